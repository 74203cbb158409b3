//! Where a run's client (or browser) and the embedded server ran: the policy asked for and the CPUs read back
//! from the OS, as the result file records them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// CPU placement of a run: asked for, then read back from the OS after pinning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Placement {
    /// The policy asked for with `--pin` (natively) or `--browser-pin` (for the browser, relative to the
    /// embedded server).
    pub pin: Pin,
    /// CPUs the measuring thread (and the client threads it starts) could run on, read back after pinning;
    /// in a browser report, the CPUs the browser's processes could run on.
    pub client_cpus: Vec<u32>,
    /// CPUs the embedded server process could run on, read back; null for an external URL, which cannot be
    /// pinned.
    pub server_cpus: Option<Vec<u32>>,
    /// The machine's 1-minute load average when the run started, where known.
    pub load_average_1m: Option<f64>,
}

/// CPU placement policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Pin {
    /// Client and server pinned to one and the same CPU.
    Same,
    /// Client and server pinned to two different CPUs.
    Split,
    /// Placement left to the OS scheduler.
    None,
}

impl super::named::Named for Pin {
    const ALL: &'static [Self] = &[Pin::Same, Pin::Split, Pin::None];
    const NAMES: &'static [&'static str] = &["same", "split", "none"];
}

super::named::deserialize_by_name!(Pin);

impl Pin {
    /// The lowercase name used on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        <Pin as super::named::Named>::NAMES[self as usize]
    }
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Placement {
    /// One phrase for reports: `same CPU (client 0, server 0)`.
    pub fn describe(&self) -> String {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        let server = match &self.server_cpus {
            Some(s) => format!("server CPUs {}", list(s)),
            None => "server not pinnable (external URL)".to_string(),
        };
        format!("pin {} (client CPUs {}, {server})", self.pin, list(&self.client_cpus))
    }

    /// One phrase for a report of `browser` (an engine's name): `--browser-pin none (chromium CPUs 0,1, server
    /// CPUs 1)`.
    pub fn describe_browser(&self, browser: &str) -> String {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        let server = self.server_cpus.as_deref().map(|s| format!(", server CPUs {}", list(s))).unwrap_or_default();
        format!("--browser-pin {} ({browser} CPUs {}{server})", self.pin, list(&self.client_cpus))
    }
}
