//! What keeps series apart: a case's full name, the machine it ran on, and the plan it ran under. A run on
//! another machine or under another plan starts another series, never a false change point.

use crate::change::comparable;
use crate::model::{Case, Report};

/// A short, stable digest of facts, with the facts themselves for display.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint {
    /// 8 hex digits of FNV-1a over the facts: the same facts, the same digest, on every platform and version.
    pub digest: String,
    /// `what: value` for each fact, in a fixed order.
    pub facts: Vec<String>,
}

impl Fingerprint {
    fn of(facts: Vec<String>) -> Fingerprint {
        // FNV-1a (64-bit): a digest for telling series apart, not a defence against forgery.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in facts.join("\n").bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        Fingerprint { digest: format!("{:08x}", hash >> 32), facts }
    }
}

/// The machine `report` ran on: the environment's facts that move figures, the ones `compare` warns about
/// ([`comparable::facts`]). A case's client version keeps series apart too ([`client_version`]), but is not the
/// machine's: every case of a run shares its machine.
pub fn machine(report: &Report) -> Fingerprint {
    Fingerprint::of(comparable::facts(report).into_iter().map(|(what, v)| format!("{what}: {v}")).collect())
}

/// The version of `case`'s client, as the report recorded it: only this case's, so adding a client to a run
/// does not start new series for the others.
pub fn client_version(report: &Report, case: &Case) -> Option<String> {
    report.environment.client_versions.get(&case.client).cloned()
}

/// The plan: what each case was asked to do, other than the case's own dimensions. The clients, modes and
/// HTTP versions of a run are not in it: adding one adds series without moving the others.
pub fn plan(report: &Report) -> Fingerprint {
    let s = &report.settings;
    let opt = |v: Option<String>| v.unwrap_or_else(|| "none".into());
    Fingerprint::of(vec![
        format!("count: {}", opt(s.count.map(|c| c.to_string()))),
        format!("duration: {}", opt(s.duration_secs.map(|d| format!("{d}s")))),
        format!("rounds: {}", s.rounds),
        format!("interleave: {}", s.interleave),
        format!("warmup: {}", s.warmup),
        format!("timeout: {}", opt(s.timeout_ms.map(|t| format!("{t}ms")))),
        format!("tls: {}", s.tls),
    ])
}

/// A case's full name, stable across runs: the environment (for browser cases, the engine), client, mode and
/// HTTP version, then the load dimensions that are not at their default (`/64k`, `/d5ms`, `/c16`).
pub fn case_name(report: &Report, case: &Case) -> String {
    let mut name = String::new();
    if let Some((engine, _)) = report.environment.engine() {
        name.push_str(engine.as_str());
        name.push('/');
    }
    name.push_str(&format!("{}/{}/{}", case.client, case.mode, case.http_version.short()));
    if let Some(bytes) = case.body_bytes {
        name.push_str(&format!("/{}", crate::protocol::size_label(bytes)));
    }
    if let Some(ms) = case.server_delay_ms {
        name.push_str(&format!("/d{ms}ms"));
    }
    if case.in_flight() > 1 {
        name.push_str(&format!("/c{}", case.in_flight()));
    }
    if let Some(link) = case.link() {
        name.push_str(&format!("/{}", link.label()));
    }
    name
}
