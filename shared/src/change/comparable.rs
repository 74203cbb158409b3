//! Whether two reports can be compared: what differs between their environments that moves figures (CPU model
//! and count, placement, build profile, client versions, the server), each difference named in one line.

use crate::model::Report;

/// Each difference between `before` and `after` that moves figures, as `what: before vs after`.
pub fn differences(before: &Report, after: &Report) -> Vec<String> {
    let (b, a) = (&before.environment, &after.environment);
    let mut out = Vec::new();
    let mut differ = |what: &str, x: String, y: String| {
        if x != y {
            out.push(format!("{what}: {x} vs {y}"));
        }
    };
    let or_unknown = |v: Option<String>| v.unwrap_or_else(|| "unknown".to_string());
    differ("CPU", or_unknown(b.cpu.clone()), or_unknown(a.cpu.clone()));
    differ(
        "CPUs online",
        or_unknown(b.cpus_online.map(|n| n.to_string())),
        or_unknown(a.cpus_online.map(|n| n.to_string())),
    );
    let placed = |r: &Report| r.environment.placement.as_ref().map(|p| p.pin.as_str().to_string());
    differ("placement", or_unknown(placed(before)), or_unknown(placed(after)));
    differ("build profile", before.tool.build_profile.clone(), after.tool.build_profile.clone());
    differ("browser", or_unknown(b.user_agent.clone()), or_unknown(a.user_agent.clone()));
    let server = |r: &Report| if r.target.embedded_server { "embedded" } else { "given URL" }.to_string();
    differ("server", server(before), server(after));
    if !before.target.embedded_server && before.target.url != after.target.url {
        differ("target", before.target.url.clone(), after.target.url.clone());
    }
    for (client, version) in &b.client_versions {
        if let Some(other) = a.client_versions.get(client) {
            differ(&format!("{client} version"), version.clone(), other.clone());
        }
    }
    out
}
