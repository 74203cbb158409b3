//! One CSV line per case with raw figures in fixed units (seconds, nanoseconds, bytes), for spreadsheets;
//! text cells that a spreadsheet would run as formulas are neutralised.

use crate::view::{rows, Source};

const HEADER: &str =
    "case,environment,client,mode,http_version,iterations,ok,failed,errors,rate_wall,rate_cpu,wall_secs,\
rounds,rate_wall_ci95_low,rate_wall_ci95_high,rate_wall_cv,latency_outliers,\
cpu_user_secs,cpu_sys_secs,bytes,latency_min_ns,latency_mean_ns,latency_stddev_ns,latency_p50_ns,latency_p90_ns,\
latency_p99_ns,latency_p999_ns,latency_max_ns,concurrency,body_bytes,server_delay_ms,connections,link";

/// Render the CSV report.
pub(super) fn render(sources: &[Source<'_>]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for row in rows(sources) {
        let c = row.case;
        let errors: Vec<String> = c.errors.iter().map(|(k, n)| format!("{k}:{n}")).collect();
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let mut fields = vec![
            row.label.clone(),
            row.report.environment.name().to_string(),
            c.client.clone(),
            c.mode.to_string(),
            c.http_version.as_str().to_string(),
            c.iterations.to_string(),
            c.ok.to_string(),
            c.failed().to_string(),
            errors.join(";"),
            c.rate_wall.to_string(),
            opt(c.rate_cpu),
            c.wall_secs.to_string(),
            c.rounds.len().to_string(),
            opt(c.rate_wall_spread.map(|s| s.ci95_low)),
            opt(c.rate_wall_spread.map(|s| s.ci95_high)),
            opt(c.rate_wall_spread.map(|s| s.cv)),
            c.latency_outliers.to_string(),
            opt(c.cpu_user_secs),
            opt(c.cpu_sys_secs),
            c.bytes.to_string(),
        ];
        let latency = match c.latency_ns {
            Some(l) => [l.min, l.mean, l.stddev, l.p50, l.p90, l.p99, l.p999, l.max].map(Some),
            None => [None; 8],
        };
        fields.extend(latency.into_iter().map(opt));
        // The load, last, so scripts reading the columns before it by position keep working.
        let int = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        fields.extend([c.in_flight().to_string(), int(c.body_bytes), int(c.server_delay_ms), int(c.connections)]);
        // The emulated link as case labels name it (empty over loopback).
        fields.push(c.link().map(|l| l.label()).unwrap_or_default());
        let quoted: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        out.push_str(&quoted.join(","));
        out.push('\n');
    }
    out
}

/// RFC 4180 quoting, only where a field needs it. A text field that starts with `=`, `+`, `-` or `@` is
/// a formula to a spreadsheet (`=HYPERLINK(...)` from a file's name or a foreign label): it gets a leading
/// `'`, as OWASP advises, so it shows as the text it is. Numbers are left alone.
fn quote(field: &str) -> String {
    let formula = field.starts_with(['=', '+', '-', '@']) && field.parse::<f64>().is_err();
    let field = if formula { format!("'{field}") } else { field.to_string() };
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        assert_eq!(quote("=HYPERLINK(\"http://x\")/curl"), "\"'=HYPERLINK(\"\"http://x\"\")/curl\"");
        assert_eq!(quote("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(quote("+1+2/curl"), "'+1+2/curl");
        assert_eq!(quote("-1.5"), "-1.5");
        assert_eq!(quote("curl/fresh"), "curl/fresh");
        assert_eq!(quote("a,b"), "\"a,b\"");
    }
}
