//! Property tests of the parser and the renderers: no input makes them panic, and a valid report survives a
//! JSON round trip unchanged. CI runs a few hundred cases; `scripts/fuzz.sh` runs many more for longer.

use std::collections::BTreeMap;
use std::time::Duration;

use httpbench_shared::model::SCHEMA_VERSION;
use httpbench_shared::parse::parse_reports;
use httpbench_shared::{
    render, Environment, EnvironmentKind, ErrorKind, Format, Mode, Outcome, RateBasis, Recorder, RenderOptions, Report,
    Settings, Source, Target, Tool,
};
use proptest::prelude::*;

/// A report built through the real recorder from arbitrary outcomes and durations.
fn report_strategy() -> impl Strategy<Value = Report> {
    let request = (0u64..10_000_000_000, 0u16..700, 0u64..1_000_000, 0usize..12);
    let case = (prop::collection::vec(request, 0..60), 1u32..6, prop::bool::ANY, "[a-z][a-z0-9._-]{0,11}");
    prop::collection::vec(case, 0..6).prop_map(|cases| {
        let cases = cases
            .into_iter()
            .map(|(requests, rounds, fresh, name)| {
                let mut r = Recorder::new();
                let per_round = requests.len() / rounds as usize + 1;
                for (i, (ns, status, bytes, kind)) in requests.iter().enumerate() {
                    let outcome = match ErrorKind::ALL.get(*kind) {
                        Some(k) => Outcome::failed(*k, None),
                        None => Outcome::response(*status, *bytes),
                    };
                    r.record(&outcome, Duration::from_nanos(*ns));
                    if (i + 1) % per_round == 0 {
                        r.end_round(Duration::from_nanos(*ns * 3), None);
                    }
                }
                r.end_round(Duration::from_millis(1), None);
                r.finish(&name, if fresh { Mode::Fresh } else { Mode::Reuse }, None)
            })
            .collect();
        Report {
            schema_version: SCHEMA_VERSION,
            tool: Tool { name: "httpbench".into(), version: "0".into(), build_profile: "release".into() },
            environment: Environment {
                kind: EnvironmentKind::Browser,
                os: "x".into(),
                arch: "y".into(),
                cpu: None,
                cpus_online: None,
                user_agent: Some("ua, \"quoted\" | piped".into()),
                cross_origin_isolated: Some(true),
                timer_resolution_ns: Some(100_000.0),
                client_versions: BTreeMap::new(),
                placement: None,
                started_unix_ms: None,
                browser_version: None,
                kernel: None,
            },
            target: Target { url: "http://127.0.0.1/".into(), embedded_server: false },
            settings: Settings {
                count: Some(1),
                duration_secs: None,
                rounds: 1,
                interleave: false,
                warmup: 0,
                modes: vec![Mode::Reuse],
                clients: vec![],
                timeout_ms: None,
                tls: false,
                http_versions: vec![httpbench_shared::model::HttpVersion::Http11],
                skipped: Vec::new(),
            },
            partial: false,
            cases,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_parsed_or_refused_without_panic(text in "\\PC{0,400}") {
        let _ = parse_reports(&text);
    }

    #[test]
    fn damaged_result_files_are_refused_without_panic(report in report_strategy(), cut in 0usize..4000, flip in 0usize..4000, byte in 0u8..128) {
        let text = serde_json::to_string(&report).unwrap();
        let mut bytes = text.into_bytes();
        if !bytes.is_empty() {
            let i = flip % bytes.len();
            bytes[i] = byte;
            bytes.truncate(cut.max(1).min(bytes.len()));
        }
        let _ = parse_reports(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn every_renderer_takes_any_report_and_json_round_trips(a in report_strategy(), b in report_strategy()) {
        let sources = [Source::tagged(&a, Some("a")), Source::tagged(&b, Some("a"))];
        for format in [Format::Text, Format::Json, Format::Markdown, Format::Csv] {
            for basis in [RateBasis::Wall, RateBasis::Cpu] {
                let _ = render(&sources, format, &RenderOptions { basis, ..Default::default() });
            }
        }
        let json = render(&sources[..1], Format::Json, &RenderOptions::default());
        prop_assert_eq!(parse_reports(&json).unwrap(), vec![a]);
    }
}
