//! The page on a static host that sends no headers (Python's `http.server` on loopback, as GitHub Pages would
//! serve it): its own service worker (`web/sw.js`) makes it cross-origin isolated after one reload, the
//! environment panel says so, the timer steps like an isolated page's, and a benchmark against an `httpbench
//! serve` on another port runs.

use std::time::Duration;

use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::PageQuery;

use crate::helpers::{wait_until, Serve};
use crate::page::{launch, plain_static_server, testid, try_eval};

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn on_a_host_without_headers_the_worker_isolates_the_page() {
    let dist = crate::browser_run::dist();
    let target = Serve::start();
    let (_site, site) = plain_static_server(&dist);
    let (browser, _profile) = launch();
    let tab = browser.new_tab().unwrap();
    let query = PageQuery {
        target: Some(target.url.clone()),
        count: Some("20".into()),
        warmup: Some("2".into()),
        rounds: Some("2".into()),
        clients: Some("fetch,js-fetch".into()),
        mode: Some("reuse".into()),
        autorun: true,
        ..PageQuery::default()
    };
    tab.navigate_to(&format!("{site}?{}", query.to_query())).unwrap();
    let settled = "String(self.crossOriginIsolated && document.querySelector(\"[data-testid='status']\")?.dataset.state === 'done')";
    let why = || try_eval(&tab, "document.body.innerText.slice(0, 400)");
    wait_until("isolated and done", Duration::from_secs(120), || try_eval(&tab, settled) == "true", why);
    assert_eq!(testid(&tab, "isolation"), "by the page's service worker");
    let report = parse_reports(&testid(&tab, "result-json")).expect("the page's result file")[0].clone();
    assert_eq!(report.environment.cross_origin_isolated, Some(true));
    let step = report.environment.timer_resolution_ns.expect("a measured timer step");
    assert!(step <= 20_000.0, "an isolated page's timer steps by ~5 µs, not 100 µs: {step} ns");
    for c in &report.cases {
        assert_eq!(c.ok, 20, "{} against httpbench serve on another port: {c:?}", c.client);
    }
}
