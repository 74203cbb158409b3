//! Snapshot tests of every renderer, on reports built from fixed inputs through the real recorder (no clock),
//! so the output is exact and any change to a layout shows up as a snapshot diff.

use std::collections::BTreeMap;
use std::time::Duration;

use httpbench_shared::fixture;
use httpbench_shared::{
    render, CpuTime, EnvironmentKind, ErrorKind, Format, Mode, Outcome, RateBasis, Recorder, RenderOptions, Report,
    Source,
};

/// A case of 5 rounds of 40 requests; the i-th request took `base_us + (i % spread) µs` plus a slowdown that
/// grows with the round, so rounds differ; the first `fail` requests failed.
fn case(
    client: &str,
    mode: Mode,
    base_us: u64,
    spread: u64,
    fail: u64,
    cpu: Option<(u64, u64)>,
) -> httpbench_shared::Case {
    let cpu = cpu.map(|(u, s)| CpuTime { user: Duration::from_millis(u), sys: Duration::from_millis(s) });
    recorded(base_us, spread, fail).finish(client, mode, cpu)
}

/// The recorder of [`case`]'s requests, for its latency histogram too.
pub(crate) fn recorded(base_us: u64, spread: u64, fail: u64) -> Recorder {
    let mut r = Recorder::new();
    let mut wall = Duration::ZERO;
    for i in 0..200u64 {
        let d = Duration::from_micros(base_us + i % spread + (i / 40) * base_us / 50);
        wall += d;
        let outcome = if i < fail { Outcome::failed(ErrorKind::Connect, None) } else { Outcome::response(200, 612) };
        r.record(&outcome, d);
        if i % 40 == 39 {
            r.end_round(wall, None);
            wall = Duration::ZERO;
        }
    }
    r
}

/// The (base µs, spread, failures) of each case of [`native`], in its order, to record them again.
pub(crate) const NATIVE_CASES: [(u64, u64, u64); 4] = [(180, 40, 0), (80, 20, 0), (120, 30, 0), (35, 10, 3)];

pub(crate) fn native() -> Report {
    let mut r = fixture::report(EnvironmentKind::Native);
    r.environment.client_versions = BTreeMap::from([("curl".into(), "libcurl 7.88.1".into())]);
    r.settings.clients = vec!["curl".into(), "raw".into()];
    let [a, b, c, d] = NATIVE_CASES;
    r.cases = vec![
        case("curl", Mode::Fresh, a.0, a.1, a.2, Some((20, 18))),
        case("curl", Mode::Reuse, b.0, b.1, b.2, Some((9, 3))),
        case("raw", Mode::Fresh, c.0, c.1, c.2, Some((8, 10))),
        case("raw", Mode::Reuse, d.0, d.1, d.2, Some((2, 2))),
    ];
    r
}

/// The native report's figures as a browser run: the browser fixture's environment, its own clients.
pub(crate) fn browser() -> Report {
    let mut r = native();
    let b = fixture::report(EnvironmentKind::Browser);
    (r.tool, r.environment) = (b.tool, b.environment);
    r.environment.timer_resolution_ns = Some(20.0);
    r.environment.cpus_online = Some(2);
    r.settings.modes = vec![Mode::Reuse];
    r.settings.clients = vec!["fetch".into(), "js-fetch".into()];
    r.cases = vec![case("fetch", Mode::Reuse, 2400, 300, 0, None), case("js-fetch", Mode::Reuse, 2300, 250, 0, None)];
    r
}

fn one(format: Format, basis: RateBasis) -> String {
    let r = native();
    render(&[Source::new(&r)], format, &RenderOptions { basis, ..Default::default() })
}

#[test]
fn text_wall() {
    insta::assert_snapshot!(one(Format::Text, RateBasis::Wall));
}

#[test]
fn text_perl_cpu() {
    insta::assert_snapshot!(one(Format::Text, RateBasis::Cpu));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(one(Format::Markdown, RateBasis::Wall));
}

#[test]
fn csv() {
    insta::assert_snapshot!(one(Format::Csv, RateBasis::Wall));
}

#[test]
fn json_round_trips() {
    let text = one(Format::Json, RateBasis::Wall);
    insta::assert_snapshot!(text);
    let back = httpbench_shared::parse::parse_reports(&text).unwrap();
    assert_eq!(back, vec![native()]);
}

#[test]
fn browser_and_native_side_by_side() {
    let (n, b) = (native(), browser());
    let out = render(&[Source::new(&n), Source::new(&b)], Format::Text, &RenderOptions::default());
    insta::assert_snapshot!(out);
}

const FIREFOX_UA: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0";

/// `run --browser chromium,firefox`: three reports in one file, each engine's cases named by the engine, and
/// each header with the engine's version; in the CSV the environment column names the engine too.
#[test]
fn two_browser_engines_and_native_are_told_apart_by_engine() {
    let (n, c, mut f) = (native(), browser(), browser());
    f.environment.user_agent = Some(FIREFOX_UA.into());
    let sources = [Source::new(&n), Source::new(&c), Source::new(&f)];
    // Three environments side by side are not three runs of one plan: the headline answers, no trend.
    let compact = render(&sources, Format::Text, &RenderOptions::default());
    assert!(compact.contains("\nHeadline: ") && !compact.contains("Trend of"), "{compact}");
    assert!(compact.contains("against native/raw (the fastest native client"), "{compact}");
    assert!(compact.contains("against firefox/js-fetch (the same loop in plain JavaScript"), "{compact}");
    let out = render(&sources, Format::Text, &RenderOptions { wide: true, ..Default::default() });
    for label in ["native/curl/fresh: ", "chromium/fetch/reuse: ", "firefox/js-fetch/reuse: "] {
        assert!(out.contains(label), "{label}: {out}");
    }
    assert!(out.contains("· chromium 156 Linux/wasm32") && out.contains("· firefox 153.0 Linux/wasm32"), "{out}");
    let csv = render(&sources, Format::Csv, &RenderOptions::default());
    assert!(
        csv.contains("\nfirefox/fetch/reuse,firefox,fetch,") && csv.contains("\nchromium/fetch/reuse,chromium,"),
        "{csv}"
    );
}

/// Comparing two such runs matches Chromium's cases with Chromium's and Firefox's with Firefox's: an engine
/// is an environment of its own, never pooled with the other.
#[test]
fn a_comparison_keeps_each_engine_to_itself() {
    let (c, mut f) = (browser(), browser());
    f.environment.user_agent = Some(FIREFOX_UA.into());
    let mut slow_f = f.clone();
    for case in &mut slow_f.cases {
        case.rate_wall /= 2.0;
        for r in &mut case.rounds {
            r.wall_secs *= 2.0;
        }
    }
    let sources = [
        Source::tagged(&c, Some("before")),
        Source::tagged(&f, Some("before")),
        Source::tagged(&c, Some("after")),
        Source::tagged(&slow_f, Some("after")),
    ];
    let runs = httpbench_shared::change::runs(&sources);
    assert_eq!(runs.len(), 2);
    let cmp = httpbench_shared::change::compare(&runs[0], &runs[1], httpbench_shared::change::Rule::default());
    let verdict = |label: &str| {
        let found = cmp.changes.iter().find(|ch| ch.case == label);
        found.unwrap_or_else(|| panic!("{label}: {cmp:#?}")).verdict
    };
    use httpbench_shared::change::Verdict;
    assert_eq!(verdict("firefox/fetch"), Verdict::Slower);
    assert_ne!(verdict("chromium/fetch"), Verdict::Slower, "the same figures as before");
    assert_eq!(cmp.changes.len(), 4, "two clients in each of two engines: {cmp:#?}");
}

#[test]
fn two_runs_of_one_environment_are_told_apart_by_tag() {
    let (a, b) = (native(), native());
    let sources = [Source::tagged(&a, Some("before")), Source::tagged(&b, Some("after"))];
    let out = render(&sources, Format::Text, &RenderOptions::default());
    assert!(out.contains("before/curl/fresh") && out.contains("after/raw/reuse"), "{out}");
    let sources = [Source::tagged(&a, Some("same")), Source::tagged(&b, Some("same"))];
    let out = render(&sources, Format::Csv, &RenderOptions::default());
    assert!(out.contains("\nsame/curl/fresh,") && out.contains("\nsame/curl/fresh#2,"), "{out}");
}

/// A run over TLS with both HTTP versions: case names gain `/h1` `/h2`, the header says so, and the notes say
/// which cases were left out, why requests failed and what TLS the server saw.
#[test]
fn text_over_tls_with_both_http_versions() {
    use httpbench_shared::model::HttpVersion;
    let mut r = native();
    r.target.url = "https://127.0.0.1:8080/".into();
    r.settings.tls = true;
    r.settings.http_versions = vec![HttpVersion::Http11, HttpVersion::Http2];
    r.settings.skipped = vec!["ureq over HTTP/2 (HTTP/1.1 only)".into()];
    r.cases.truncate(2);
    for c in &mut r.cases {
        c.mode = Mode::Reuse;
        (c.tls_full_handshakes, c.tls_resumed_handshakes) = (Some(0), Some(0));
    }
    r.cases[0].mode = Mode::Fresh;
    r.cases[0].tls = Some("TLSv1.3 TLS13_AES_256_GCM_SHA384".into());
    r.cases[0].tls_full_handshakes = Some(200);
    let mut h2 = r.cases.clone();
    for c in &mut h2 {
        c.http_version = HttpVersion::Http2;
    }
    h2[1].error_reasons = vec!["connect: Connection refused (os error 111)".into()];
    r.cases.extend(h2);
    let out = render(&[Source::new(&r)], Format::Text, &RenderOptions::default());
    assert!(out.contains("curl/fresh/h2") && out.contains("curl/reuse/h1"), "{out}");
    insta::assert_snapshot!(out);
}

/// A scan of concurrency (1, 8) and body size (1k, 64k) by curl and raw in reuse mode.
pub(crate) fn scan() -> Report {
    let mut r = native();
    r.settings.modes = vec![Mode::Reuse];
    r.cases = Vec::new();
    for (size, n, base) in [(1024, 1, 80), (1024, 8, 20), (65536, 1, 200), (65536, 8, 60)] {
        for (client, factor) in [("curl", 2), ("raw", 1)] {
            let mut c = case(client, Mode::Reuse, base * factor, 10, 0, Some((5, 5)));
            (c.concurrency, c.body_bytes, c.connections) = (Some(n).filter(|n| *n > 1), Some(size), Some(n));
            c.bytes = c.ok * size;
            r.cases.push(c);
        }
    }
    r
}

/// A scan of concurrency and body size: labels name the scanned parts, each level has its cmpthese chart and
/// table, the header says what was scanned, and the body throughput is a column.
#[test]
fn text_of_a_concurrency_and_body_size_scan() {
    insta::assert_snapshot!(render(&[Source::new(&scan())], Format::Text, &RenderOptions::default()));
}

/// A label longer than a format width may be (65,535) once panicked the `cmpthese` chart (issue 29): no
/// renderer pads with `format!` widths any more. The parser refuses such names; this is the renderers' own
/// guarantee, for reports built in memory.
#[test]
fn a_label_of_any_length_renders_in_every_format() {
    let long = "x".repeat(70_000);
    let mut report = fixture::report(EnvironmentKind::Native);
    report.cases = vec![case(&long, Mode::Fresh, 100, 7, 0, None), case("curl", Mode::Reuse, 80, 5, 0, None)];
    let two = [Source::tagged(&report, Some("a")), Source::tagged(&report, Some("b"))];
    for format in [Format::Text, Format::Json, Format::Markdown, Format::Csv] {
        for basis in [RateBasis::Wall, RateBasis::Cpu] {
            let out = render(&two, format, &RenderOptions { basis, ..Default::default() });
            assert!(out.contains(&long), "{format}");
        }
    }
}
