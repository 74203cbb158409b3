//! Each browser client against a real `httpbench serve` on 127.0.0.1: every body read and counted, statuses
//! and failures mapped onto `shared`'s error kinds, Resource Timing phases recorded.

use httpbench_shared::protocol::native_clients;
use httpbench_shared::{ErrorKind, Mode, Report};
use httpbench_web::bench::Cancel;
use httpbench_web::clients::Client;
use httpbench_web::settings::available_clients;
use wasm_bindgen_test::*;

use crate::common::{self, measure_with};

async fn measure(target: &str, clients: &str, mode: &str, n: u32) -> Report {
    measure_with(&common::small(target, clients, mode, n), &Cancel::default(), &|_| {}).await.report
}

#[wasm_bindgen_test]
fn every_catalog_client_of_this_build_has_a_driver_and_nothing_else_does() {
    for name in available_clients() {
        assert!(Client::from_name(name).is_some(), "{name}");
    }
    for info in native_clients() {
        assert_eq!(Client::from_name(info.name).is_some(), info.name == "reqwest" && cfg!(feature = "reqwest"));
    }
    assert_eq!(Client::from_name("js_fetch"), None);
}

#[wasm_bindgen_test]
async fn every_client_reads_every_body_in_both_modes() {
    let report = measure(&common::target(), "all", "both", 12).await;
    assert_eq!(report.cases.len(), available_clients().len() * 2, "{:?}", report.cases);
    for case in &report.cases {
        let who = format!("{}/{}", case.client, case.mode);
        assert_eq!((case.iterations, case.ok), (12, 12), "{who}: {:?}", case.errors);
        assert_eq!(case.bytes, 12 * 612, "{who}: every 612-byte body is read to the end");
        assert_eq!(case.statuses.get("200"), Some(&12), "{who}");
        assert_eq!(case.rounds.len(), 2, "{who}");
        assert!(case.rate_wall > 0.0 && case.latency_ns.is_some(), "{who}");
        let phases = case.phases_ns.unwrap_or_else(|| panic!("{who}: no Resource Timing phases"));
        assert!(phases.samples >= 1 && phases.ttfb_mean > 0.0, "{who}: {phases:?}");
    }
    assert_eq!(report.environment.kind, httpbench_shared::EnvironmentKind::Browser);
    assert_eq!(report.tool.name, "httpbench-web");
    assert!(report.environment.timer_resolution_ns.is_some_and(|t| t > 0.0));
    assert_eq!(report.environment.client_versions.len(), available_clients().len());
    assert!(report.cases.iter().any(|c| c.mode == Mode::Fresh));
}

#[wasm_bindgen_test]
async fn a_5xx_is_a_status_failure_for_every_client() {
    let target = format!("{}status/503", common::target());
    let report = measure(&target, "all", "reuse", 3).await;
    for case in &report.cases {
        assert_eq!(case.ok, 0, "{}", case.client);
        assert_eq!(case.errors.get(&ErrorKind::Status), Some(&3), "{}: {:?}", case.client, case.errors);
        assert_eq!(case.statuses.get("503"), Some(&3), "{}", case.client);
    }
}

#[wasm_bindgen_test]
async fn a_refused_connection_is_a_connect_failure() {
    // Port 1 on loopback: nothing listens there (and Chromium refuses it as unsafe): no response at all.
    let report = measure("http://127.0.0.1:1/", "all", "reuse", 2).await;
    assert_eq!(report.cases.len(), available_clients().len());
    for case in &report.cases {
        assert_eq!(case.errors.get(&ErrorKind::Connect), Some(&2), "{}: {:?}", case.client, case.errors);
        assert_eq!(case.rate_wall, 0.0);
    }
}

#[wasm_bindgen_test]
async fn a_cancel_stops_the_run_and_keeps_what_was_measured() {
    let settings = common::small(&common::target(), "fetch,js-fetch", "reuse", 100_000);
    let cancel = Cancel::default();
    let stopper = cancel.clone();
    let progress = move |p: httpbench_web::bench::Progress| {
        if p.requests >= 10 {
            stopper.cancel();
        }
    };
    let out = measure_with(&settings, &cancel, &progress).await;
    assert!(out.stopped);
    assert!(!out.report.cases.is_empty(), "what was measured before the cancel is kept");
    assert!(out.report.cases.iter().all(|c| c.iterations < 100_000), "stopped early");
    assert_eq!(out.report.settings.count, Some(100_000), "the settings are the ones asked for");
}

/// Progress inside a long round comes at most once per `PROGRESS_INTERVAL` (each report repaints the page,
/// which costs the network stack CPU), at least that often, and the same way for the wasm loop and `js-fetch`.
#[wasm_bindgen_test]
async fn progress_inside_a_round_is_reported_once_per_interval_for_every_client() {
    use std::cell::RefCell;
    use std::rc::Rc;

    use httpbench_web::bench::{Progress, PROGRESS_INTERVAL};

    let interval_ms = PROGRESS_INTERVAL.as_secs_f64() * 1000.0;
    for client in ["fetch", "js-fetch"] {
        let mut raw = common::small(&common::target(), client, "reuse", 100_000);
        raw.plan.rounds = "1".into();
        let cancel = Cancel::default();
        let stopper = cancel.clone();
        let seen: Rc<RefCell<Vec<(f64, u64)>>> = Rc::default();
        let log = seen.clone();
        let progress = move |p: Progress| {
            if p.stage.starts_with("round") {
                let mut log = log.borrow_mut();
                log.push((js_sys::Date::now(), p.requests));
                if log.len() >= 4 {
                    stopper.cancel(); // the round start and three reports inside it are enough
                }
            }
        };
        let out = measure_with(&raw, &cancel, &progress).await;
        let seen = seen.borrow();
        assert!(seen.len() >= 4, "{client}: too few progress reports inside a long round: {seen:?}");
        // Between the round's start and the report after the cancel, every gap is one interval or more.
        for pair in seen[..seen.len() - 1].windows(2) {
            let gap = pair[1].0 - pair[0].0;
            assert!(gap >= interval_ms * 0.9, "{client}: progress {gap:.0} ms after the last one: {seen:?}");
            assert!(gap <= interval_ms * 3.0 + 1000.0, "{client}: no progress for {gap:.0} ms: {seen:?}");
            assert!(pair[1].1 > pair[0].1, "{client}: progress did not advance: {seen:?}");
        }
        let measured: u64 = out.report.cases.iter().map(|c| c.iterations).sum();
        assert_eq!(seen.last().unwrap().1, measured + 2, "{client}: the last report counts every request (+2 warm-up)");
    }
}

/// The progress line names each case as the report does, level included, and says how many rounds of the
/// whole run are left, as the CLI's does: a scan of many levels shows where it is.
#[wasm_bindgen_test]
async fn progress_names_the_case_and_its_level_and_the_rounds_left() {
    use std::cell::RefCell;
    use std::rc::Rc;

    use httpbench_web::bench::Progress;

    let mut raw = common::small(&common::target(), "fetch", "reuse", 4);
    raw.plan.concurrency = "1,2".into();
    let stages: Rc<RefCell<Vec<String>>> = Rc::default();
    let log = stages.clone();
    let progress = move |p: Progress| {
        if log.borrow().last() != Some(&p.stage) {
            log.borrow_mut().push(p.stage);
        }
    };
    measure_with(&raw, &Cancel::default(), &progress).await;
    let stages = stages.borrow();
    let rounds: Vec<&String> = stages.iter().filter(|s| s.starts_with("round")).collect();
    // Two levels, two rounds each: four rounds, the last with none left.
    assert_eq!(rounds.len(), 4, "{stages:?}");
    assert!(rounds.iter().any(|s| s.contains("fetch/reuse/c2 · ")), "{stages:?}");
    assert!(rounds[0].ends_with("· 3 rounds left") && rounds[3].ends_with("· 0 rounds left"), "{stages:?}");
}
