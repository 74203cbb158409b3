//! The page on a static host that sends no headers (Python's `http.server` on loopback, as GitHub Pages would
//! serve it): its own service worker (`web/sw.js`) makes it cross-origin isolated after one reload, the
//! environment panel says so, the timer steps like an isolated page's, and a benchmark against an `httpbench
//! serve` on another port runs.

use std::time::Duration;

use httpbench_shared::parse::parse_reports;

use crate::support::chromium::Chromium;
use crate::support::page::{PageDriver, BODY_TEXT_JS, ISOLATED_AND_DONE_JS};
use crate::support::serve::Serve;
use crate::support::site::{autorun_query, dist, plain_static_server};
use crate::support::wait_until;

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn on_a_host_without_headers_the_worker_isolates_the_page() {
    let target = Serve::start();
    let (_site, site) = plain_static_server(&dist());
    let chromium = Chromium::launch();
    let tab = chromium.page();
    tab.navigate(&format!("{site}?{}", autorun_query(&target.url).to_query()));
    let why = || tab.try_eval(BODY_TEXT_JS);
    wait_until("isolated and done", Duration::from_secs(120), || tab.try_eval(ISOLATED_AND_DONE_JS) == "true", why);
    assert_eq!(tab.testid("isolation"), "by the page's service worker");
    let report = parse_reports(&tab.testid("result-json")).expect("the page's result file")[0].clone();
    assert_eq!(report.environment.cross_origin_isolated, Some(true));
    let step = report.environment.timer_resolution_ns.expect("a measured timer step");
    assert!(step <= 20_000.0, "an isolated page's timer steps by ~5 µs, not 100 µs: {step} ns");
    for c in &report.cases {
        assert_eq!(c.ok, 20, "{} against httpbench serve on another port: {c:?}", c.client);
    }
}
