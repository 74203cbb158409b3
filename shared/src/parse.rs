//! Reading result files someone else wrote: malformed JSON, another schema version, missing fields, absurd or
//! contradictory values, names that are no client's and more cases than a report shows are refused with an
//! error that says what is wrong and where, never a panic.

use serde::de::{Deserializer, IgnoredAny, Visitor};
use serde::Deserialize;
use serde_json::error::Category;
use thiserror::Error;

use crate::model::{Case, Report, OLDEST_SCHEMA_VERSION, SCHEMA_VERSION};
use crate::protocol::check_name;

mod range;
use range::out_of_range;
pub use range::{MAX_SECS, MIN_SECS};

/// Why a result file was refused.
#[derive(Debug, Error, PartialEq)]
pub enum ReportError {
    /// Not JSON at all, or JSON nested too deeply.
    #[error("not valid JSON at line {line}, column {column}: {reason}")]
    Malformed {
        /// 1-based line of the first error.
        line: usize,
        /// 1-based column of the first error.
        column: usize,
        /// The parser's explanation.
        reason: String,
    },
    /// JSON, but not an httpbench result file.
    #[error("not an httpbench result file: {0}")]
    NotAReport(String),
    /// A result file of a layout this version cannot read.
    #[error("schema_version {found} is not supported (this httpbench reads versions {OLDEST_SCHEMA_VERSION} to {SCHEMA_VERSION}); re-export it with a matching httpbench")]
    UnsupportedVersion {
        /// The version the file declares.
        found: String,
    },
    /// The right version, but a field is missing, unknown or of the wrong type.
    #[error("invalid result file: {0}")]
    Invalid(String),
    /// Well-formed, but a figure cannot be true, or figures contradict each other.
    #[error("impossible value: {0}")]
    Absurd(String),
    /// More cases than one report shows: the `cmpthese` chart grows with the square of their number.
    #[error("{0} cases, more than the {MAX_CASES} one report shows; split the file")]
    TooManyCases(usize),
}

/// Most cases in one file (all its reports together), and in one `compare`: a run of every client, mode,
/// HTTP version and four levels of two load dimensions fits. Their `cmpthese` chart is 500 x 500 cells,
/// drawn in well under a second; 2,000 cases took 1.4 s and 257 MB, 55,000 never finished.
pub const MAX_CASES: usize = 500;

/// Parse a result file: one report, or an array of reports (as `--format json` writes for several). A first
/// pass reads nothing but each report's `schema_version`, so a file of another layout is named as such
/// before its fields are judged; the second reads the reports straight from the text (no `serde_json::Value`
/// in between: the page would carry a second copy of every deserializer for it).
pub fn parse_reports(text: &str) -> Result<Vec<Report>, ReportError> {
    let many = text.trim_start().starts_with('[');
    let versions: Vec<Version> = if many {
        serde_json::from_str::<Vec<Version>>(text).map_err(first_pass)?
    } else {
        vec![serde_json::from_str::<Version>(text).map_err(first_pass)?]
    };
    if versions.is_empty() {
        return Err(ReportError::NotAReport("an empty array".into()));
    }
    let cases: usize = versions.iter().map(|v| v.cases).sum();
    if cases > MAX_CASES {
        return Err(ReportError::TooManyCases(cases));
    }
    for v in &versions {
        match &v.schema_version {
            None => return Err(ReportError::NotAReport("it has no schema_version field".into())),
            Some(found) if !(OLDEST_SCHEMA_VERSION..=SCHEMA_VERSION).any(|v| *found == v.to_string()) => {
                return Err(ReportError::UnsupportedVersion { found: found.clone() });
            }
            Some(_) => {}
        }
    }
    let invalid = |e: serde_json::Error| ReportError::Invalid(e.to_string());
    let reports = if many {
        serde_json::from_str::<Vec<Report>>(text).map_err(invalid)?
    } else {
        vec![serde_json::from_str::<Report>(text).map_err(invalid)?]
    };
    for r in &reports {
        check(r)?;
    }
    Ok(reports)
}

/// A report as the first pass sees it: its version, as written (`1`, `99`, `"1"`), and how many cases it
/// holds (counted, not read), so a file of too many is refused before they are built.
#[derive(Deserialize)]
#[serde(expecting = "a result file (a JSON object)")]
struct Version {
    #[serde(default, deserialize_with = "as_written")]
    schema_version: Option<String>,
    #[serde(default, deserialize_with = "counted")]
    cases: usize,
}

/// The length of a JSON array (anything else counts 0: the second pass names the mistake).
fn counted<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    Ok(match as_written_counting(d)? {
        Written::Array(n) => n,
        Written::Other(_) => 0,
    })
}

/// Any JSON scalar as its JSON text; an object or an array as "an object" / "an array".
fn as_written<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Some(match as_written_counting(d)? {
        Written::Array(_) => "an array".into(),
        Written::Other(text) => text,
    }))
}

/// What the first pass keeps of a value: an array's length, or the value as written.
enum Written {
    Array(usize),
    Other(String),
}

/// One visitor for both first-pass fields, so the page carries one.
fn as_written_counting<'de, D: Deserializer<'de>>(d: D) -> Result<Written, D::Error> {
    struct Writer;
    impl<'de> Visitor<'de> for Writer {
        type Value = Written;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a version")
        }
        fn visit_u64<E>(self, v: u64) -> Result<Written, E> {
            Ok(Written::Other(v.to_string()))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Written, E> {
            Ok(Written::Other(v.to_string()))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Written, E> {
            Ok(Written::Other(v.to_string()))
        }
        fn visit_str<E>(self, v: &str) -> Result<Written, E> {
            Ok(Written::Other(format!("{v:?}")))
        }
        fn visit_bool<E>(self, v: bool) -> Result<Written, E> {
            Ok(Written::Other(v.to_string()))
        }
        fn visit_unit<E>(self) -> Result<Written, E> {
            Ok(Written::Other("null".into()))
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Written, A::Error> {
            while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Written::Other("an object".into()))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Written, A::Error> {
            let mut n = 0;
            while s.next_element::<IgnoredAny>()?.is_some() {
                n += 1;
            }
            Ok(Written::Array(n))
        }
    }
    d.deserialize_any(Writer)
}

/// A first-pass error: broken JSON, or JSON that holds no report.
fn first_pass(e: serde_json::Error) -> ReportError {
    match e.classify() {
        Category::Data => {
            let text = e.to_string();
            let reason = text.split(" at line ").next().unwrap_or(&text);
            ReportError::NotAReport(reason.to_string())
        }
        _ => ReportError::Malformed { line: e.line(), column: e.column(), reason: e.to_string() },
    }
}

/// Figures that no run can produce: names that are not client names, negative or non-finite times, more ok
/// requests than attempts, and figures that contradict each other ([`contradiction`]).
fn check(report: &Report) -> Result<(), ReportError> {
    let names = report.settings.clients.iter().chain(report.environment.client_versions.keys());
    if let Some(e) = names.chain(report.cases.iter().map(|c| &c.client)).find_map(|n| check_name(n).err()) {
        return Err(ReportError::Absurd(e));
    }
    for (i, c) in report.cases.iter().enumerate() {
        let at = |field: &str| format!("cases[{i}] ({} {}): {field}", c.client, c.mode);
        let rates = [("rate_wall", Some(c.rate_wall)), ("rate_cpu", c.rate_cpu)];
        for (field, v) in rates {
            if let Some(v) = v.filter(|v| !v.is_finite() || *v < 0.0) {
                return Err(ReportError::Absurd(format!("{} is {v}, expected a finite number ≥ 0", at(field))));
            }
        }
        if let Some(why) = out_of_range(c) {
            return Err(ReportError::Absurd(at(&why)));
        }
        if c.ok > c.iterations {
            return Err(ReportError::Absurd(format!(
                "{} exceeds iterations ({})",
                at(&format!("ok = {}", c.ok)),
                c.iterations
            )));
        }
        let failed = c.errors.values().try_fold(0u64, |a, b| a.checked_add(*b));
        if failed.and_then(|f| f.checked_add(c.ok)) != Some(c.iterations) {
            return Err(ReportError::Absurd(format!(
                "{}: ok + errors must equal iterations ({})",
                at("errors"),
                c.iterations
            )));
        }
        if let Some(l) = c.latency_ns {
            let all = [l.min, l.mean, l.stddev, l.p50, l.p90, l.p99, l.p999, l.max];
            if all.iter().any(|v| !v.is_finite() || *v < 0.0) || l.min > l.max {
                return Err(ReportError::Absurd(format!(
                    "{} holds a negative, non-finite or inverted value",
                    at("latency_ns")
                )));
            }
        }
        if let Some(why) = contradiction(c) {
            return Err(ReportError::Absurd(at(&why)));
        }
    }
    Ok(())
}

/// Figures of a case that do not follow from each other, as the recorder makes them: rates from the counts
/// and times, the case from its rounds, percentiles in order. Equal within a millionth, for files written
/// without exact float round trips (the page's).
fn contradiction(c: &Case) -> Option<String> {
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(b.abs()) + 1e-9;
    let wall_rate = if c.wall_secs > 0.0 { c.ok as f64 / c.wall_secs } else { 0.0 };
    if !near(c.rate_wall, wall_rate) {
        return Some(format!("rate_wall {} is not ok / wall_secs ({wall_rate})", c.rate_wall));
    }
    if let (Some(rate), Some(cpu)) = (c.rate_cpu, c.cpu_secs().filter(|s| *s > 0.0)) {
        if !near(rate, c.iterations as f64 / cpu) {
            return Some(format!("rate_cpu {rate} is not iterations / CPU seconds ({})", c.iterations as f64 / cpu));
        }
    }
    if !c.rounds.is_empty() {
        let sum = |f: fn(&crate::model::Round) -> u64| c.rounds.iter().try_fold(0u64, |a, r| a.checked_add(f(r)));
        let wall: f64 = c.rounds.iter().map(|r| r.wall_secs).sum();
        if sum(|r| r.iterations) != Some(c.iterations) || sum(|r| r.ok) != Some(c.ok) || !near(wall, c.wall_secs) {
            return Some("rounds do not add up to the case's iterations, ok and wall_secs".into());
        }
    }
    let l = c.latency_ns?;
    let order = [l.min, l.p50, l.p90, l.p99, l.p999, l.max];
    let below = |a: f64, b: f64| a < b && !near(a, b);
    if order.windows(2).any(|w| below(w[1], w[0])) || below(l.mean, l.min) || below(l.max, l.mean) {
        return Some("latency_ns is out of order (min ≤ p50 ≤ p90 ≤ p99 ≤ p99.9 ≤ max, mean within)".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_bad_file_is_named_for_what_it_is() {
        let err = |t: &str| parse_reports(t).unwrap_err();
        assert!(matches!(err("{ not json"), ReportError::Malformed { line: 1, .. }));
        assert!(matches!(err(r#"{"schema_version": 1"#), ReportError::Malformed { .. }), "cut short");
        assert_eq!(err("[]"), ReportError::NotAReport("an empty array".into()));
        assert_eq!(err(r#"{"a": [1, {"b": 2}]}"#), ReportError::NotAReport("it has no schema_version field".into()));
        let ReportError::NotAReport(why) = err("[1, 2]") else { panic!() };
        assert_eq!(why, "invalid type: integer `1`, expected a result file (a JSON object)");
        for (version, found) in
            [("99", "99"), (r#""1""#, r#""1""#), ("1.5", "1.5"), ("null", "null"), ("[1]", "an array")]
        {
            let text = format!(r#"{{"schema_version": {version}}}"#);
            assert_eq!(err(&text), ReportError::UnsupportedVersion { found: found.into() }, "{text}");
        }
        let ReportError::Invalid(why) = err(r#"{"schema_version": 1}"#) else { panic!() };
        assert!(why.contains("missing field"), "{why}");
        let one = serde_json::to_string(&crate::fixture::report(crate::model::EnvironmentKind::Native)).unwrap();
        let ReportError::UnsupportedVersion { .. } = err(&format!(r#"[{one}, {{"schema_version": 6}}]"#)) else {
            panic!("a list is refused when any report in it is of another version")
        };
        assert_eq!(parse_reports(&format!("  [{one},{one}]")).unwrap().len(), 2);
    }

    /// Figures that contradict each other, names that are no client's, and too many cases, each refused for
    /// what it is; the fixture itself passes.
    #[test]
    fn contradictions_foreign_names_and_too_many_cases_are_refused() {
        use crate::model::EnvironmentKind;
        use std::time::Duration;
        let mut recorder = crate::stats::Recorder::new();
        for (i, us) in [100u64, 120, 90, 300, 110, 105].into_iter().enumerate() {
            recorder.record(&crate::Outcome::response(200, 612), Duration::from_micros(us));
            if i % 3 == 2 {
                recorder.end_round(Duration::from_micros(900), None);
            }
        }
        let cpu = crate::CpuTime { user: Duration::from_micros(700), sys: Duration::from_micros(300) };
        let mut good = crate::fixture::report(EnvironmentKind::Native);
        good.cases.push(recorder.finish("curl", crate::Mode::Reuse, Some(cpu)));
        assert!(parse_reports(&serde_json::to_string(&good).unwrap()).is_ok());
        let refused = |change: &dyn Fn(&mut Report)| {
            let mut r = good.clone();
            change(&mut r);
            match parse_reports(&serde_json::to_string(&r).unwrap()) {
                Err(ReportError::Absurd(why)) => why,
                other => panic!("{other:?}"),
            }
        };
        assert!(refused(&|r| r.cases[0].rate_wall *= 2.0).contains("rate_wall"));
        assert!(refused(&|r| r.cases[0].rounds[0].iterations += 1).contains("rounds do not add up"));
        assert!(refused(&|r| r.cases[0].rounds[0].wall_secs *= 3.0).contains("rounds do not add up"));
        let swap = |r: &mut Report| {
            let l = r.cases[0].latency_ns.as_mut().unwrap();
            (l.p50, l.p99) = (l.p99, l.p50 - 1.0);
        };
        assert!(refused(&swap).contains("out of order"));
        assert!(refused(&|r| r.cases[0].rate_cpu = Some(1e9)).contains("rate_cpu"));
        let long = refused(&|r| r.cases[0].client = "x".repeat(70_000));
        assert!(long.contains("cannot name a client") && long.len() < 200, "{long}");
        assert!(refused(&|r| r.cases[0].client = "\u{1b}]0;hi\u{7}".into()).contains(r"\x1b]0;hi\x07"));
        let mut big = good.clone();
        let one = big.cases[0].clone();
        big.cases = vec![one; MAX_CASES + 1];
        let text = serde_json::to_string(&big).unwrap();
        assert_eq!(parse_reports(&text), Err(ReportError::TooManyCases(MAX_CASES + 1)));
        let half =
            format!("[{0},{0}]", serde_json::to_string(&Report { cases: big.cases[..300].to_vec(), ..good }).unwrap());
        assert_eq!(parse_reports(&half), Err(ReportError::TooManyCases(600)), "all reports of a file together");
    }

    /// A file written by the version-1 layout (before HTTP versions and TLS) reads as plaintext HTTP/1.1.
    #[test]
    fn a_version_1_file_reads_as_plaintext_http_1_1() {
        let reports = parse_reports(include_str!("../tests/data/v1-report.json")).unwrap();
        let r = &reports[0];
        assert_eq!(r.schema_version, 1);
        assert!(!r.settings.tls && r.settings.skipped.is_empty());
        assert_eq!(r.settings.http_versions, [crate::model::HttpVersion::Http11]);
        assert_eq!(r.cases.len(), 4);
        assert!(r.cases.iter().all(|c| c.http_version == crate::model::HttpVersion::Http11 && c.tls.is_none()));
        assert!(r.cases.iter().all(|c| c.tls_full_handshakes.is_none() && c.error_reasons.is_empty()));
    }
}
