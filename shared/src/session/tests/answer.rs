//! A page's report checked against the plan it was handed: the report of a session run as the page runs it
//! passes, and each way a forged or mistaken one differs is refused with what differs.

use super::*;
use crate::model::Engine;

/// The plan a run hands its page: 40 requests in 2 interleaved rounds after 3 warm-ups.
fn asked_plan() -> Plan {
    plan(Budget::Count(40), 3, 2, true)
}

fn browser_matrix() -> Matrix {
    Matrix::new(EnvironmentKind::Browser, vec!["fetch".into(), "xhr".into()], vec![Mode::Fresh, Mode::Reuse])
}

/// The report a page running `asked_plan` over `browser_matrix` posts (its user agent is Chromium's).
fn page_report() -> Report {
    let clock = MockClock::new();
    let mut session = Session::new(asked_plan(), browser_matrix(), Some(Duration::from_secs(10)));
    Front::new(&clock, vec![vec![100, 120]; 4]).drive(&mut session, None);
    session.finish(crate::fixture::header(EnvironmentKind::Browser)).report
}

fn check(report: &Report) -> Result<(), String> {
    let (plan, matrix) = (asked_plan(), browser_matrix());
    let asked =
        Asked { plan: &plan, matrix: &matrix, timeout: Some(Duration::from_secs(10)), engine: Some(Engine::Chromium) };
    check_answer(report, &asked)
}

#[test]
fn the_pages_own_report_answers_its_plan() {
    assert_eq!(check(&page_report()), Ok(()));
}

/// A change made to the page's report, as a forger or a mistaken page would.
type Forge = fn(&mut Report);

#[test]
fn a_report_that_differs_from_the_plan_is_refused_with_what_differs() {
    let cases: [(&str, Forge); 11] = [
        ("it is partial", |r| r.partial = true),
        ("a count of 20 where the run asked 40", |r| r.settings.count = Some(20)),
        ("user agent names firefox, where the run started chromium", |r| {
            r.environment.user_agent =
                Some("Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0".into())
        }),
        ("native report where the run asked for browser", |r| r.environment.kind = EnvironmentKind::Native),
        ("it ran a plan of 3 rounds, warm-up 3, interleave true where the run asked 2 rounds", |r| {
            r.settings.rounds = 3
        }),
        ("a timeout of 5000 ms", |r| r.settings.timeout_ms = Some(5000)),
        ("a case the run did not ask for: gloo/fresh", |r| {
            let mut extra = r.cases[0].clone();
            extra.client = "gloo".into();
            r.cases.push(extra);
        }),
        ("case fetch/fresh twice", |r| {
            let again = r.cases[0].clone();
            r.cases.push(again);
        }),
        ("is missing", |r| {
            r.cases.pop();
        }),
        ("has 1 rounds where the run asked 2", |r| {
            r.cases[1].rounds.pop();
        }),
        ("made 1000000 requests where the run asked 40", |r| r.cases[2].iterations = 1_000_000),
    ];
    for (says, forge) in cases {
        let mut report = page_report();
        forge(&mut report);
        let refused = check(&report).expect_err(says);
        assert!(refused.contains(says), "{says}: {refused}");
    }
}

#[test]
fn an_aborted_case_is_taken_with_the_rounds_it_ran() {
    let mut report = page_report();
    report.cases[0].rounds.pop();
    report.cases[0].aborted = Some("the responses came over HTTP/2, HTTP/1.1 was asked for".into());
    assert_eq!(check(&report), Ok(()));
}
