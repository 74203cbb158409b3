//! The page on a static host that sends no headers (Python's `http.server` on loopback, as GitHub Pages would
//! serve it): its own service worker (`web/sw.js`) makes it cross-origin isolated after one reload, the
//! environment panel says so, the timer steps like an isolated page's, and a benchmark against an `httpbench
//! serve` on another port runs.

use std::time::Duration;

use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::PageQuery;
use httpbench_shared::session::RawPlan;

use crate::helpers::{wait_until, Serve};
use crate::page::{launch, plain_static_server, testid, try_eval};

/// The hosted page's link for these tests: 2 rounds of 20 requests of `fetch,js-fetch` reusing connections,
/// against `target`, run at once (Chromium's test here and Firefox's in `firefox_page`).
pub(crate) fn autorun_query(target: &str) -> PageQuery {
    let plan = RawPlan {
        target: Some(target.to_string()),
        count: Some("20".into()),
        warmup: Some("2".into()),
        rounds: Some("2".into()),
        clients: Some("fetch,js-fetch".into()),
        mode: Some("reuse".into()),
        ..RawPlan::default()
    };
    PageQuery { plan, autorun: true, ..PageQuery::default() }
}

/// `"true"` once the page is cross-origin isolated (on a plain host, after its worker's reload) and its run done.
pub(crate) const ISOLATED_AND_DONE: &str = "String(self.crossOriginIsolated && \
     document.querySelector(\"[data-testid='status']\")?.dataset.state === 'done')";

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn on_a_host_without_headers_the_worker_isolates_the_page() {
    let dist = crate::browser_run::dist();
    let target = Serve::start();
    let (_site, site) = plain_static_server(&dist);
    let (browser, _profile) = launch();
    let tab = browser.new_tab().unwrap();
    tab.navigate_to(&format!("{site}?{}", autorun_query(&target.url).to_query())).unwrap();
    let why = || try_eval(&tab, "document.body.innerText.slice(0, 400)");
    wait_until("isolated and done", Duration::from_secs(120), || try_eval(&tab, ISOLATED_AND_DONE) == "true", why);
    assert_eq!(testid(&tab, "isolation"), "by the page's service worker");
    let report = parse_reports(&testid(&tab, "result-json")).expect("the page's result file")[0].clone();
    assert_eq!(report.environment.cross_origin_isolated, Some(true));
    let step = report.environment.timer_resolution_ns.expect("a measured timer step");
    assert!(step <= 20_000.0, "an isolated page's timer steps by ~5 µs, not 100 µs: {step} ns");
    for c in &report.cases {
        assert_eq!(c.ok, 20, "{} against httpbench serve on another port: {c:?}", c.client);
    }
}
