//! What the report says about the machine: OS, architecture, CPU model, CPUs online, client versions.

use std::collections::BTreeMap;

use httpbench_shared::clock::{resolution, SystemClock};
use httpbench_shared::model::Placement;
use httpbench_shared::{Environment, EnvironmentKind, Tool};

use crate::clients::Client;

/// This program, as the report names it.
pub(crate) fn tool() -> Tool {
    Tool::this_build("httpbench")
}

/// The native environment, with the versions of `clients` known before the run (command clients report
/// theirs as they start) and the placement the run used.
pub(crate) fn detect(clients: &[Client], placement: Option<Placement>) -> Environment {
    let mut client_versions = BTreeMap::new();
    client_versions.extend(clients.iter().filter_map(|c| Some((c.name().to_string(), c.version()?))));
    Environment {
        kind: EnvironmentKind::Native,
        os: std::env::consts::OS.into(),
        arch: std::env::consts::ARCH.into(),
        cpu: cpu_model(),
        cpus_online: cpus_online(),
        user_agent: None,
        cross_origin_isolated: None,
        timer_resolution_ns: resolution(&SystemClock::new(), 10_000).map(|d| d.as_nanos() as f64),
        client_versions,
        placement,
        started_unix_ms: started_unix_ms(),
        browser_version: None,
        kernel: kernel(),
    }
}

/// Now on the wall clock, in milliseconds since the Unix epoch: when the run started, to order runs by.
fn started_unix_ms() -> Option<u64> {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(since.as_millis()).ok()
}

/// The kernel's release, where the OS tells it (Linux: `/proc/sys/kernel/osrelease`).
fn kernel() -> Option<String> {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
    Some(release.trim().to_string()).filter(|r| !r.is_empty())
}

/// The CPU model name, where the OS tells it.
fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// CPUs online on the machine (not just those this thread may use: after `--pin` that is one).
fn cpus_online() -> Option<u64> {
    // SAFETY: sysconf only reads a system setting.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    u64::try_from(n).ok().filter(|n| *n > 0)
}
