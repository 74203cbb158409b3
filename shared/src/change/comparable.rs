//! Whether two reports can be compared: what differs between their environments that moves figures (CPU model
//! and count, kernel, placement, build profile, client versions, the server), each difference named in one line.

use crate::model::Report;

/// The facts of `report`'s environment that move figures, as (what, value), in a fixed order: CPU model and
/// count, kernel, placement, build profile, browser, the server (and the target, when it is not the embedded
/// one). Client versions are not here: each case has its own client's.
pub(crate) fn facts(report: &Report) -> Vec<(&'static str, String)> {
    let e = &report.environment;
    let or_unknown = |v: Option<String>| v.unwrap_or_else(|| "unknown".to_string());
    let mut out = vec![
        ("CPU", or_unknown(e.cpu.clone())),
        ("CPUs online", or_unknown(e.cpus_online.map(|n| n.to_string()))),
        ("kernel", or_unknown(e.kernel.clone())),
        ("placement", or_unknown(e.placement.as_ref().map(|p| p.pin.as_str().to_string()))),
        ("build profile", report.tool.build_profile.clone()),
        ("browser", or_unknown(e.user_agent.clone())),
        ("server", if report.target.embedded_server { "embedded" } else { "given URL" }.to_string()),
    ];
    if !report.target.embedded_server {
        out.push(("target", report.target.url.clone()));
    }
    out
}

/// Each difference between `before` and `after` that moves figures, as `what: before vs after`.
pub fn differences(before: &Report, after: &Report) -> Vec<String> {
    let (b, a) = (facts(before), facts(after));
    let mut out = Vec::new();
    for (what, x) in &b {
        // A fact one side lacks (the target of an embedded server) shows in the server's line already.
        if let Some((_, y)) = a.iter().find(|(w, _)| w == what) {
            // A kernel one file does not record (files before it was) is no difference.
            if x != y && !(*what == "kernel" && (x == "unknown" || y == "unknown")) {
                out.push(format!("{what}: {x} vs {y}"));
            }
        }
    }
    for (client, version) in &before.environment.client_versions {
        if let Some(other) = after.environment.client_versions.get(client) {
            if version != other {
                out.push(format!("{client} version: {version} vs {other}"));
            }
        }
    }
    out
}
