//! Reading result files someone else wrote: malformed JSON, another schema version, missing fields and absurd
//! values are refused with an error that says what is wrong and where, never a panic.

use serde_json::Value;
use thiserror::Error;

use crate::model::{Report, SCHEMA_VERSION};

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
    #[error("schema_version {found} is not supported (this httpbench reads version {SCHEMA_VERSION}); re-export it with a matching httpbench")]
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

/// Parse a result file: one report, or an array of reports (as `--format json` writes for several).
pub fn parse_reports(text: &str) -> Result<Vec<Report>, ReportError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ReportError::Malformed {
        line: e.line(),
        column: e.column(),
        reason: e.to_string(),
    })?;
    match value {
        Value::Array(items) if items.is_empty() => Err(ReportError::NotAReport("an empty array".into())),
        Value::Array(items) => items.into_iter().map(report_from_value).collect(),
        other => Ok(vec![report_from_value(other)?]),
    }
}

fn report_from_value(value: Value) -> Result<Report, ReportError> {
    let Value::Object(map) = &value else {
        return Err(ReportError::NotAReport(format!("expected a JSON object, found {}", kind(&value))));
    };
    match map.get("schema_version") {
        None => return Err(ReportError::NotAReport("it has no schema_version field".into())),
        Some(Value::Number(n)) if n.as_u64() == Some(u64::from(SCHEMA_VERSION)) => {}
        Some(other) => return Err(ReportError::UnsupportedVersion { found: other.to_string() }),
    }
    let report: Report = serde_json::from_value(value).map_err(|e| ReportError::Invalid(e.to_string()))?;
    check(&report)?;
    Ok(report)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
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
