//! The headline's references and verdicts on constructed cases: each default reference, a chosen one, ties
//! never read as wins, the intervals' arithmetic, failed cases and too few rounds.

use std::time::Duration;

use super::*;
use crate::fixture;
use crate::model::{Mode, Report};
use crate::stats::{Outcome, Recorder};
use crate::view::{rows, Source};

/// A case recorded by the real recorder: a round per rate (that many ok requests in 1 s each).
fn case(client: &str, mode: Mode, rates: &[u64]) -> Case {
    let mut recorder = Recorder::new();
    for &n in rates {
        for _ in 0..n {
            recorder.record(&Outcome::response(200, 0), Duration::from_nanos(1_000_000_000 / n.max(1)));
        }
        recorder.end_round(Duration::from_secs(1), None);
    }
    recorder.finish(client, mode, None)
}

fn report(kind: EnvironmentKind, cases: Vec<Case>) -> Report {
    Report { cases, ..fixture::report(kind) }
}

const A: [u64; 5] = [1000, 1002, 998, 1001, 999];

fn scaled(f: f64) -> Vec<u64> {
    A.iter().map(|&n| (n as f64 * f).round() as u64).collect()
}

fn headline_of(reports: &[Report], chosen: Option<&str>) -> Headline {
    let sources: Vec<Source<'_>> = reports.iter().map(Source::new).collect();
    headline(&rows(&sources), chosen)
}

#[test]
fn native_cases_are_compared_with_the_fastest_at_each_mode() {
    let r = report(
        EnvironmentKind::Native,
        vec![
            case("curl", Mode::Fresh, &scaled(0.5)),
            case("ureq", Mode::Fresh, &A),
            case("curl", Mode::Reuse, &A),
            case("ureq", Mode::Reuse, &scaled(0.8)),
        ],
    );
    let h = headline_of(&[r], None);
    assert_eq!(h.blocks.len(), 2);
    let (fresh, reuse) = (&h.blocks[0], &h.blocks[1]);
    assert_eq!((fresh.load.as_str(), fresh.reference.as_str(), fresh.why), ("fresh", "ureq", Reference::Fastest));
    assert_eq!((reuse.load.as_str(), reuse.reference.as_str()), ("reuse", "curl"));
    let l = &fresh.lines[0];
    assert_eq!((l.case.as_str(), l.verdict), ("curl", Verdict::Slower));
    // Half the rate: twice the time, 1 ms more per request.
    assert!((l.ratio - 2.0).abs() < 1e-3, "{l:?}");
    assert!((l.difference_secs - 1e-3).abs() < 1e-6, "{l:?}");
    let (lo, hi) = l.ratio_interval.unwrap();
    assert!(lo > 1.9 && hi < 2.1 && lo < l.ratio && l.ratio < hi, "{l:?}");
    let (dlo, dhi) = l.difference_interval_secs.unwrap();
    assert!(dlo < l.difference_secs && l.difference_secs < dhi, "{l:?}");
    assert_eq!(reuse.lines[0].verdict, Verdict::Slower);
    assert_eq!(h.few_rounds, None);
}

#[test]
fn browser_cases_meet_the_best_native_and_wasm_clients_their_javascript_floor() {
    let native =
        report(EnvironmentKind::Native, vec![case("curl", Mode::Reuse, &A), case("ureq", Mode::Reuse, &scaled(0.9))]);
    let browser = report(
        EnvironmentKind::Browser,
        vec![
            case("fetch", Mode::Reuse, &scaled(0.4)),
            case("xhr", Mode::Reuse, &scaled(0.41)),
            case(BROWSER_FLOOR, Mode::Reuse, &scaled(0.405)),
        ],
    );
    let h = headline_of(&[native, browser], None);
    let whys: Vec<(Reference, &str)> = h.blocks.iter().map(|b| (b.why, b.reference.as_str())).collect();
    assert_eq!(whys, [(Reference::BestNative, "native/curl"), (Reference::JsFloor, "chromium/js-fetch")]);
    let vs_native: Vec<&str> = h.blocks[0].lines.iter().map(|l| l.case.as_str()).collect();
    assert_eq!(vs_native, ["native/ureq", "chromium/fetch", "chromium/xhr", "chromium/js-fetch"]);
    assert!(h.blocks[0].lines[1..].iter().all(|l| l.verdict == Verdict::Slower && l.ratio > 2.0));
    // 1.2% apart with rounds 0.2% apart: measurably different, not a tie; the wasm clients against the floor.
    let vs_floor: Vec<(&str, Verdict)> = h.blocks[1].lines.iter().map(|l| (l.case.as_str(), l.verdict)).collect();
    assert_eq!(vs_floor, [("chromium/fetch", Verdict::Slower), ("chromium/xhr", Verdict::Faster)]);
}

#[test]
fn a_single_browser_with_its_floor_is_compared_with_the_floor_alone() {
    let browser = report(
        EnvironmentKind::Browser,
        vec![case("fetch", Mode::Reuse, &scaled(0.04)), case(BROWSER_FLOOR, Mode::Reuse, &scaled(0.04))],
    );
    let h = headline_of(&[browser], None);
    assert_eq!(h.blocks.len(), 1);
    assert_eq!((h.blocks[0].why, h.blocks[0].reference.as_str()), (Reference::JsFloor, "js-fetch"));
    assert_eq!(h.blocks[0].lines[0].verdict, Verdict::Unchanged, "{:?}", h.blocks[0].lines[0]);
}

#[test]
fn a_tie_is_never_a_win_and_a_wide_interval_is_inconclusive() {
    // 5% apart on average, but rounds scattered by ±30%: the interval holds 1× and reaches far past ±10%.
    let noisy = [700, 1300, 1000, 1400, 850];
    let r = report(EnvironmentKind::Native, vec![case("curl", Mode::Reuse, &A), case("ureq", Mode::Reuse, &noisy)]);
    let h = headline_of(&[r], None);
    let l = &h.blocks[0].lines[0];
    let (lo, hi) = l.ratio_interval.unwrap();
    assert!(lo < 1.0 && hi > 1.0 + SAME_WITHIN, "{l:?}");
    assert_eq!(l.verdict, Verdict::Inconclusive);
    // Within 0.2% and rounds as steady: the same.
    let r = report(
        EnvironmentKind::Native,
        vec![case("curl", Mode::Reuse, &A), case("ureq", Mode::Reuse, &[999, 1001, 1000, 1002, 998])],
    );
    assert_eq!(headline_of(&[r], None).blocks[0].lines[0].verdict, Verdict::Unchanged);
}

#[test]
fn a_chosen_reference_is_found_by_label_or_client_and_a_missing_one_is_said() {
    let native =
        report(EnvironmentKind::Native, vec![case("curl", Mode::Reuse, &A), case("ureq", Mode::Reuse, &scaled(0.9))]);
    let browser = report(EnvironmentKind::Browser, vec![case("fetch", Mode::Reuse, &scaled(0.04))]);
    let both = [native, browser];
    for chosen in ["ureq", "native/ureq"] {
        let h = headline_of(&both, Some(chosen));
        assert_eq!((h.blocks[0].why, h.blocks[0].reference.as_str()), (Reference::Chosen, "native/ureq"), "{chosen}");
        assert_eq!(h.blocks[0].lines.len(), 2);
        // curl is faster than the reference.
        assert_eq!(h.blocks[0].lines[0].verdict, Verdict::Faster);
        assert_eq!(h.reference_missing, None);
    }
    let h = headline_of(&both, Some("hyper"));
    assert_eq!(h.reference_missing.as_deref(), Some("hyper"));
    assert_eq!(h.blocks[0].why, Reference::BestNative, "the defaults still answer");
}

#[test]
fn failed_cases_and_single_rounds_say_what_they_are() {
    let mut dead = case("ureq", Mode::Reuse, &[0]);
    dead.errors.insert(crate::model::ErrorKind::Connect, 10);
    let one_round = case("reqwest", Mode::Reuse, &[900]);
    let r = report(EnvironmentKind::Native, vec![case("curl", Mode::Reuse, &A), dead, one_round]);
    let h = headline_of(&[r], None);
    let verdicts: Vec<Verdict> = h.blocks[0].lines.iter().map(|l| l.verdict).collect();
    assert_eq!(verdicts, [Verdict::Failed, Verdict::Inconclusive]);
    assert_eq!(h.blocks[0].lines[1].ratio_interval, None);
    assert_eq!(h.few_rounds, Some(1));
}

#[test]
fn a_reference_is_checked_against_the_clients_of_the_run() {
    let sides =
        [("native", vec!["curl".to_string(), "ureq".into()]), ("chromium", vec!["fetch".into(), "js-fetch".into()])];
    assert_eq!(check_reference("--reference", "ureq", &sides).unwrap(), "ureq");
    assert_eq!(check_reference("--reference", "chromium/js-fetch", &sides).unwrap(), "chromium/js-fetch");
    let e = check_reference("--reference", "firefox/fetch", &sides).unwrap_err();
    assert!(
        e.starts_with("--reference 'firefox/fetch': ") && e.contains("native/curl, native/ureq, chromium/fetch"),
        "{e}"
    );
    let e = check_reference("--reference", "hyper", &sides[..1]).unwrap_err();
    assert!(e.ends_with("give one of curl, ureq"), "{e}");
}
