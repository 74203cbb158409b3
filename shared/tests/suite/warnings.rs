//! Each warning appears exactly when its condition holds: both sides of every threshold, and one line per kind
//! however many cases it applies to.

use std::collections::BTreeMap;

use httpbench_shared::fixture;
use httpbench_shared::model::Spread;
use httpbench_shared::render::notes;
use httpbench_shared::render::warnings::{outlier_mean_shift, timer_too_coarse, COARSE_TIMER_FALLBACK_NS};
use httpbench_shared::view::rows;
use httpbench_shared::{
    Case, EnvironmentKind, ErrorKind, Latency, Mode, Outcome, Recorder, Report, Settings, Source, Target,
};

fn case(cv: f64, outliers: u64, p50_ns: f64) -> Case {
    // An empty recorder's case (every optional field absent), given the figures each warning reads.
    let mut c = Recorder::new().finish("c", Mode::Reuse, None);
    (c.iterations, c.ok, c.wall_secs, c.rate_wall, c.bytes) = (1000, 1000, 1.0, 1000.0, 612_000);
    c.statuses = BTreeMap::from([("200".into(), 1000)]);
    c.latency_ns = Some(Latency {
        min: p50_ns / 2.0,
        mean: p50_ns,
        stddev: 1.0,
        p50: p50_ns,
        p90: p50_ns,
        p99: p50_ns,
        p999: p50_ns,
        max: p50_ns * 2.0,
    });
    c.latency_outliers = outliers;
    c.latency_mean_without_outliers_ns = Some(p50_ns);
    c.rate_wall_spread = Some(Spread {
        rounds: 5,
        mean: 1000.0,
        stddev: cv * 1000.0,
        stderr: cv * 1000.0 / 5f64.sqrt(),
        ci95_low: 900.0,
        ci95_high: 1100.0,
        cv,
    });
    c
}

fn report(case: Case, timer_ns: f64, profile: &str) -> Report {
    let mut r = fixture::report(EnvironmentKind::Browser);
    r.tool.build_profile = profile.into();
    r.environment.cross_origin_isolated = Some(false);
    r.environment.timer_resolution_ns = Some(timer_ns);
    r.target = Target { url: "http://127.0.0.1/".into(), embedded_server: false };
    r.settings = Settings { count: Some(1000), interleave: false, warmup: 0, timeout_ms: None, ..r.settings };
    r.settings.modes = vec![Mode::Reuse];
    r.settings.clients = vec!["c".into()];
    r.cases = vec![case];
    r
}

fn warnings(r: &Report) -> String {
    let sources = [Source::new(r)];
    notes(&sources, &rows(&sources)).iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join("\n")
}

const QUIET: (f64, u64, f64) = (0.05, 0, 1_000_000.0);

#[test]
fn a_quiet_run_has_no_warning() {
    let (cv, outliers, p50) = QUIET;
    assert_eq!(warnings(&report(case(cv, outliers, p50), 5_000.0, "release")), "");
}

/// `case` with the client name `client`.
fn named(client: &str, mut c: Case) -> Case {
    c.client = client.into();
    c
}

/// A case whose `outliers` of 1000 ok requests move its mean by `shift` (a fraction of the mean without them).
fn shifted(outliers: u64, shift: f64) -> Case {
    let mut c = case(0.01, outliers, 1e6);
    c.latency_ns.as_mut().unwrap().mean = 1e6 * (1.0 + shift);
    c
}

#[test]
fn noisy_rounds_warn_above_ten_percent() {
    assert!(!warnings(&report(case(0.099, 0, 1e6), 5_000.0, "release")).contains("noisy"));
    let w = warnings(&report(case(0.101, 0, 1e6), 5_000.0, "release"));
    assert_eq!(
        w,
        "warning: noisy rounds (CV above 10%): c 10.1%: the machine is noisy. Re-run on a quieter machine, or raise \
         -n or --rounds."
    );
}

#[test]
fn two_noisy_cases_share_one_line_naming_both() {
    let mut r = report(named("curl", case(0.165, 0, 1e6)), 5_000.0, "release");
    r.cases.push(named("ureq", case(0.05, 0, 1e6)));
    r.cases.push(named("raw", case(0.231, 0, 1e6)));
    let w = warnings(&r);
    assert_eq!(w.lines().count(), 1, "{w}");
    assert!(w.starts_with("warning: noisy rounds (CV above 10%): curl 16.5%, raw 23.1%: the machine is noisy."), "{w}");
}

#[test]
fn a_terminal_gets_one_short_line_per_kind_with_as_many_cases_as_fit() {
    let names = ["curl", "curl-multi", "ureq", "reqwest", "raw", "perl-lwp", "perl-curl", "python-requests"];
    let mut r = report(named(names[0], case(0.165, 100, 1e6)), 5_000.0, "release");
    r.cases.extend(names[1..].iter().map(|n| named(n, case(0.2, 100, 1e6))));
    let sources = [Source::new(&r)];
    let all = notes(&sources, &rows(&sources));
    let shorts: Vec<&str> = all.iter().filter_map(|n| n.short.as_deref()).collect();
    assert_eq!(shorts.len(), 2, "noisy rounds and outliers, one line each: {shorts:?}");
    for line in &shorts {
        assert!(line.chars().count() <= 100, "{line}");
    }
    let noisy = shorts[0];
    assert!(noisy.starts_with("warning: noisy rounds (CV > 10%): curl 16.5%"), "{noisy}");
    let shown = noisy.matches('%').count() - 1;
    assert!(noisy.contains(&format!(" +{} more; ", names.len() - shown)), "{noisy}");
    assert!(noisy.ends_with("; re-run quieter or raise --rounds"), "{noisy}");
    // The whole line still names every case.
    assert!(all[0].text.contains("python-requests 20.0%"), "{}", all[0].text);
}

#[test]
fn failures_of_several_cases_share_one_line_with_their_kinds_and_statuses() {
    let mut a = named("curl", case(0.01, 0, 1e6));
    a.errors = BTreeMap::from([(ErrorKind::Connect, 2), (ErrorKind::Status, 1)]);
    a.statuses.insert("404".into(), 1);
    let mut b = named("ureq", case(0.01, 0, 1e6));
    b.errors = BTreeMap::from([(ErrorKind::Timeout, 3)]);
    let mut r = report(a, 5_000.0, "release");
    r.cases.push(b);
    r.cases.push(named("raw", case(0.01, 0, 1e6)));
    assert_eq!(
        warnings(&r),
        "warning: failed requests: curl 3 of 1000 (connect: 2, status: 1; statuses 404×1), ureq 3 of 1000 \
         (timeout: 3): Failed requests are left out of rates and latencies; check the URL and the server."
    );
}

#[test]
fn outliers_warn_above_five_percent_of_requests_whatever_the_mean() {
    assert!(!warnings(&report(shifted(50, 0.0), 5_000.0, "release")).contains("outliers"));
    let w = warnings(&report(shifted(51, 0.0), 5_000.0, "release"));
    assert_eq!(
        w,
        "warning: latency outliers (above 5% of requests, or moving the mean by more than 5%): c 5.1% (mean +0.0%): \
         other work on the machine or a stalling server interfered (outliers: modified z-score above 3.5). Mean and \
         σ include them; the percentiles show their effect."
    );
}

#[test]
fn few_outliers_warn_when_they_move_the_mean_by_more_than_five_percent() {
    assert!(!warnings(&report(shifted(11, 0.049), 5_000.0, "release")).contains("outliers"));
    let w = warnings(&report(shifted(11, 0.051), 5_000.0, "release"));
    assert!(w.contains("moving the mean by more than 5%): c 1.1% (mean +5.1%): other work"), "{w}");
    // Fast outliers move it the other way, and count alike.
    let w = warnings(&report(shifted(11, -0.051), 5_000.0, "release"));
    assert!(w.contains("c 1.1% (mean -5.1%)"), "{w}");
}

#[test]
fn a_normal_right_tail_is_no_warning() {
    // 1.1% of requests at twice the median, as a quiet loopback run has: the mean moves by about 1%.
    assert_eq!(warnings(&report(shifted(11, 0.011), 5_000.0, "release")), "");
    // The same through the recorder: 989 requests around 100 µs, 11 at about 200 µs.
    let mut r = Recorder::new();
    for i in 0..1000u64 {
        let us = if i % 90 == 89 { 200 + i % 7 } else { 95 + i % 11 };
        r.record(&Outcome::response(200, 612), std::time::Duration::from_micros(us));
    }
    r.end_round(std::time::Duration::from_millis(100), None);
    let c = r.finish("c", Mode::Reuse, None);
    assert_eq!(c.latency_outliers, 11, "{c:?}");
    let shift = outlier_mean_shift(&c).unwrap();
    assert!((0.009..0.013).contains(&shift), "{shift}");
    assert_eq!(warnings(&report(c, 20.0, "release")), "");
}

#[test]
fn a_few_stalls_through_the_recorder_warn() {
    // 1% of requests stalled at 10 ms against a 100 µs median: the stalls are half the time, the mean doubles.
    let mut r = Recorder::new();
    for i in 0..1000u64 {
        let us = if i % 100 == 99 { 10_000 } else { 95 + i % 11 };
        r.record(&Outcome::response(200, 612), std::time::Duration::from_micros(us));
    }
    r.end_round(std::time::Duration::from_millis(200), None);
    let w = warnings(&report(r.finish("c", Mode::Reuse, None), 20.0, "release"));
    assert!(w.contains("c 1.0% (mean +99."), "{w}");
}

#[test]
fn an_old_file_without_the_mean_falls_back_to_the_share_test() {
    let mut c = shifted(11, 0.5);
    c.latency_mean_without_outliers_ns = None;
    assert_eq!(warnings(&report(c.clone(), 5_000.0, "release")), "");
    c.latency_outliers = 51;
    assert!(warnings(&report(c, 5_000.0, "release")).contains(": c 5.1%: other work"));
    // A result file written before the field existed still reads.
    let json = serde_json::to_string(&shifted(11, 0.0))
        .unwrap()
        .replace(",\"latency_mean_without_outliers_ns\":1000000.0", "");
    assert!(!json.contains("without_outliers"), "{json}");
    let back: Case = serde_json::from_str(&json).unwrap();
    assert_eq!(back.latency_mean_without_outliers_ns, None);
}

#[test]
fn a_coarse_timer_warns_above_five_percent_of_the_median() {
    // 100 µs steps (a browser that is not cross-origin isolated) against a 2 ms median: exactly 5%, no warning.
    assert!(!warnings(&report(case(0.01, 0, 2_000_000.0), 100_000.0, "release")).contains("coarse"));
    let w = warnings(&report(case(0.01, 0, 1_999_000.0), 100_000.0, "release"));
    assert_eq!(
        w,
        "warning: coarse timer (step above 5% of the median latency): c 5.0% (100.0 µs of 2.00 ms): per-request \
         latencies are quantized; rates, timed over whole rounds, are not affected."
    );
}

#[test]
fn the_timer_rule_without_a_median_is_the_absolute_fallback() {
    assert!(!timer_too_coarse(100_000.0, Some(2_000_000.0)));
    assert!(timer_too_coarse(100_000.0, Some(1_999_000.0)));
    assert!(!timer_too_coarse(COARSE_TIMER_FALLBACK_NS, None));
    assert!(timer_too_coarse(COARSE_TIMER_FALLBACK_NS + 1.0, None));
    // The page's two steps: 5 µs isolated is fine, 100 µs is not.
    assert!(!timer_too_coarse(5_000.0, None) && timer_too_coarse(100_000.0, None));
}

#[test]
fn a_debug_build_warns() {
    let (cv, outliers, p50) = QUIET;
    let w = warnings(&report(case(cv, outliers, p50), 5_000.0, "debug"));
    assert!(w.contains("is a debug build: its figures are meaningless"), "{w}");
}

/// A browser runs where a browser runs: native and browser placements differ by design and are only noted;
/// two reports of one environment under different placements still warn.
#[test]
fn placements_are_compared_within_an_environment_only() {
    use httpbench_shared::model::{Pin, Placement};
    let placed = |kind, pin, cpus: Vec<u32>| {
        let mut r = fixture::report(kind);
        r.environment.placement =
            Some(Placement { pin, client_cpus: cpus, server_cpus: Some(vec![1]), load_average_1m: None });
        r
    };
    let native = placed(EnvironmentKind::Native, Pin::Split, vec![0]);
    let browser = placed(EnvironmentKind::Browser, Pin::None, vec![0, 1]);
    let sources = [Source::new(&native), Source::new(&browser)];
    let text = notes(&sources, &rows(&sources)).iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("note: browser placement: --browser-pin none (chromium CPUs 0,1, server CPUs 1)"), "{text}");
    assert!(text.contains("note: placement: pin split (client CPUs 0, server CPUs 1)"), "{text}");
    assert!(!text.contains("different CPU placements"), "{text}");
    let other = placed(EnvironmentKind::Browser, Pin::Split, vec![0]);
    let sources = [Source::new(&native), Source::new(&browser), Source::new(&other)];
    let text = notes(&sources, &rows(&sources)).iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("different CPU placements (pin: #2 none, #3 split; client CPUs: #2 0,1, #3 0)"), "{text}");
}

#[test]
fn cases_stopped_early_share_one_line_with_each_reason() {
    let mut a = named("mine", case(0.01, 0, 1e6));
    a.aborted = Some("command client 'mine' printed 'oops, no' (line 38 of a batch of 400)".into());
    let mut r = report(a, 5_000.0, "release");
    r.cases.push(named("curl", case(0.01, 0, 1e6)));
    let mut gone = named("node-fetch", case(0.01, 0, 1e6));
    (gone.iterations, gone.aborted) = (0, Some("unavailable: node not found".into()));
    r.cases.push(gone);
    assert_eq!(
        warnings(&r),
        "warning: cases stopped early: mine after 1000 requests (command client 'mine' printed 'oops, no' (line 38 \
         of a batch of 400)); node-fetch after 0 requests (unavailable: node not found): their figures are what \
         they measured until then; the other cases ran to their end."
    );
}

#[test]
fn phases_name_quic_s_one_handshake_and_tcp_s_two() {
    use httpbench_shared::model::{HttpVersion, Phases};
    let phased = |client: &str, http: HttpVersion, tls_mean: Option<f64>| Case {
        client: client.into(),
        http_version: http,
        phases_ns: Some(Phases { samples: 10, connect_mean: 2000.0, ttfb_mean: 9000.0, tls_mean }),
        ..case(0.01, 0, 1_000_000.0)
    };
    let mut r = report(phased("a", HttpVersion::Http11, Some(5000.0)), 1.0, "release");
    r.environment.kind = EnvironmentKind::Native;
    r.cases.push(phased("b", HttpVersion::Http11, None));
    r.cases.push(phased("q", HttpVersion::Http3, Some(5000.0)));
    r.settings.clients = vec!["a".into(), "b".into(), "q".into()];
    let text = warnings(&r);
    let line =
        |client: &str| text.lines().find(|l| l.starts_with(&format!("note: {client}"))).unwrap_or_default().to_string();
    assert!(line("a").contains("connect 2.0 µs mean, TLS handshake 5.0 µs mean, time to first byte 9.0 µs"), "{text}");
    assert!(line("b").contains(": connect 2.0 µs mean, time to first byte"), "plaintext: no TLS phase: {text}");
    let quic = line("q");
    assert!(quic.contains("QUIC handshake 7.0 µs mean (connect and TLS in one), time to first byte 9.0 µs"), "{text}");
    assert!(!quic.contains("connect 2"), "one handshake over QUIC, its connect part in it: {quic}");
}
