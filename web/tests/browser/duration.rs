//! The duration budget (issue 13): a run given a time per case instead of a count measures every client for
//! its share of that time per round, `js-fetch` (whose requests run in JavaScript stretches) included; the
//! report records the duration and no count; the progress bar counts rounds, since a timed run's request total
//! is unknown until it ends.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use httpbench_web::bench::{Cancel, Progress};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

use crate::common::{self, measure_with};

#[wasm_bindgen_test]
async fn a_duration_runs_every_client_for_its_share_of_the_time_per_round() {
    let mut raw = common::small(&common::target(), "fetch,js-fetch", "reuse", 1);
    raw.plan.duration = "300ms".into();
    raw.plan.count = "not read when a duration is set".into();
    let seen: Rc<RefCell<Vec<Progress>>> = Rc::default();
    let log = seen.clone();
    let out = measure_with(&raw, &Cancel::default(), &move |p| log.borrow_mut().push(p)).await;
    let report = &out.report;
    assert!(!out.stopped);
    assert_eq!((report.settings.duration_secs, report.settings.count), (Some(0.3), None));
    assert_eq!(report.cases.len(), 2, "{:?}", report.cases);
    for case in &report.cases {
        let who = &case.client;
        assert_eq!(case.rounds.len(), 2, "{who}: both rounds measured");
        for round in &case.rounds {
            assert!(round.iterations >= 1, "{who}: at least one request per round: {round:?}");
            // Each round has 150 ms: it ends with the request that passes them, not a progress stretch
            // (1 s) or a whole count later.
            assert!(round.wall_secs >= 0.15 && round.wall_secs < 0.6, "{who}: {round:?}");
        }
        assert_eq!(case.iterations, case.rounds.iter().map(|r| r.iterations).sum::<u64>(), "{who}");
        assert_eq!(case.ok, case.iterations, "{who}: {:?}", case.errors);
        let key = out.histograms.iter().find(|h| h.key.client == case.client && h.key.mode == case.mode);
        let bins = &key.unwrap_or_else(|| panic!("{who}: no histogram")).bins;
        assert_eq!(bins.iter().map(|b| b.count).sum::<u64>(), case.iterations, "{who}: its own histogram");
    }
    let seen = seen.borrow();
    let last = seen.last().expect("progress was reported");
    assert_eq!(last.total_requests, None, "a timed run's request total is unknown");
    assert_eq!((last.rounds_done, last.rounds_total), (4, 4));
    assert_eq!(last.bar(), (4, 4), "the bar counts rounds");
    let measured: u64 = report.cases.iter().map(|c| c.iterations).sum();
    assert_eq!(last.requests, measured + 4, "every request counted (+2 warm-up per case)");
}

#[wasm_bindgen_test]
async fn the_page_runs_by_duration_from_its_form_and_counts_rounds_on_the_bar() {
    let mut settings = common::small(&common::target(), "fetch", "reuse", 1);
    settings.plan.duration = "200ms".into();
    let host = common::mount(settings);
    assert_eq!(common::wait_finished(&host, Duration::from_secs(30)).await, "done");
    let duration: web_sys::HtmlInputElement = common::by_testid(&host, "duration").unchecked_into();
    assert_eq!(duration.value(), "200ms", "the form shows the duration it ran with");
    let bar = common::by_testid(&host, "progress");
    assert_eq!((bar.get_attribute("value"), bar.get_attribute("max")), (Some("2".into()), Some("2".into())));
    assert_eq!(bar.get_attribute("aria-label").as_deref(), Some("Rounds done"));
    let json = common::by_testid(&host, "result-json").text_content().unwrap();
    let report = &httpbench_shared::parse::parse_reports(&json).unwrap()[0];
    assert_eq!((report.settings.duration_secs, report.settings.count), (Some(0.2), None));
    host.remove();
}
