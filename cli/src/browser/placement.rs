//! Where the browsers of `--browser` run (Linux), relative to the embedded server ([`place_browser`]), and
//! what the browser report records of it ([`BrowserPlacement`]).

use httpbench_shared::model::Pin;

use super::options::BrowserOptions;
use crate::placement;
use crate::usage::Usage;

/// Where the browsers run for `--browser` (`browser`; Linux), relative to the server: among `allowed`, the
/// CPUs this process could use before it pinned itself.
pub fn place_browser(
    browser: Option<&BrowserOptions>,
    allowed: Option<&[usize]>,
    server_cpus: Option<&[usize]>,
) -> Result<Option<BrowserPlacement>, Usage> {
    match browser {
        Some(b) if cfg!(target_os = "linux") => Ok(Some(BrowserPlacement {
            pin: b.pin,
            cpus: placement::browser_cpus(b.pin, allowed.unwrap_or_default(), server_cpus).map_err(|e| Usage(e.0))?,
            server_cpus: server_cpus.map(<[usize]>::to_vec),
        })),
        _ => Ok(None),
    }
}

/// Where the browser is to run (Linux): the policy, its CPUs, and the server's, for the browser report.
#[derive(Clone)]
pub struct BrowserPlacement {
    pub(in crate::browser) pin: Pin,
    pub(in crate::browser) cpus: Vec<usize>,
    pub(in crate::browser) server_cpus: Option<Vec<usize>>,
}
