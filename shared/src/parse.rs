//! Reading result files someone else wrote: malformed JSON, another schema version, missing fields and absurd
//! values are refused with an error that says what is wrong and where, never a panic.

use serde::de::{Deserializer, IgnoredAny, Visitor};
use serde::Deserialize;
use serde_json::error::Category;
use thiserror::Error;

use crate::model::{Report, OLDEST_SCHEMA_VERSION, SCHEMA_VERSION};

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
    /// Well-formed, but a figure cannot be true.
    #[error("impossible value: {0}")]
    Absurd(String),
}

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

/// A report as the first pass sees it: its version, as written (`1`, `99`, `"1"`), and nothing else.
#[derive(Deserialize)]
#[serde(expecting = "a result file (a JSON object)")]
struct Version {
    #[serde(default, deserialize_with = "as_written")]
    schema_version: Option<String>,
}

/// Any JSON scalar as its JSON text; an object or an array as "an object" / "an array".
fn as_written<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct Written;
    impl<'de> Visitor<'de> for Written {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a version")
        }
        fn visit_u64<E>(self, v: u64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_i64<E>(self, v: i64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_f64<E>(self, v: f64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_str<E>(self, v: &str) -> Result<String, E> {
            Ok(format!("{v:?}"))
        }
        fn visit_bool<E>(self, v: bool) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_unit<E>(self) -> Result<String, E> {
            Ok("null".into())
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<String, A::Error> {
            while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok("an object".into())
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<String, A::Error> {
            while s.next_element::<IgnoredAny>()?.is_some() {}
            Ok("an array".into())
        }
    }
    d.deserialize_any(Written).map(Some)
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

/// Figures that no run can produce: negative or non-finite times, more ok requests than attempts.
fn check(report: &Report) -> Result<(), ReportError> {
    for (i, c) in report.cases.iter().enumerate() {
        let at = |field: &str| format!("cases[{i}] ({} {}): {field}", c.client, c.mode);
        let times = [
            ("wall_secs", Some(c.wall_secs)),
            ("cpu_user_secs", c.cpu_user_secs),
            ("cpu_sys_secs", c.cpu_sys_secs),
            ("rate_wall", Some(c.rate_wall)),
            ("rate_cpu", c.rate_cpu),
        ];
        for (field, v) in times {
            if let Some(v) = v.filter(|v| !v.is_finite() || *v < 0.0) {
                return Err(ReportError::Absurd(format!("{} is {v}, expected a finite number ≥ 0", at(field))));
            }
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
    }
    Ok(())
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
        let ReportError::UnsupportedVersion { .. } = err(&format!(r#"[{one}, {{"schema_version": 4}}]"#)) else {
            panic!("a list is refused when any report in it is of another version")
        };
        assert_eq!(parse_reports(&format!("  [{one},{one}]")).unwrap().len(), 2);
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
