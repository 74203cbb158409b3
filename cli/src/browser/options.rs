//! The checked options of the browser half ([`BrowserOptions`]), as the run's options check them: the browser
//! code is handed these values, never the run's whole options.

use httpbench_shared::model::Pin;
use httpbench_shared::session::Matrix;

use super::engine::Binary;

/// Checked `--browser` options.
#[derive(Debug, Clone)]
pub struct BrowserOptions {
    /// The browsers, one per engine, in the order they run.
    pub binaries: Vec<Binary>,
    /// The browser cases' dimensions, one per engine in the order of `binaries`: the run's, for the browser
    /// clients, less what the engine cannot speak (the page builds the same matrix from its query and its
    /// engine); each checked to hold a case to run.
    pub matrices: Vec<Matrix>,
    /// The built page: a folder, or the copy built into this binary.
    pub(crate) page: crate::server::page::Page,
    /// The browsers' placement, relative to the embedded server.
    pub pin: Pin,
}
