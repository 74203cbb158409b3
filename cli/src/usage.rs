//! A mistake in the command line. A leaf module: it knows no other module of the CLI, so every module may report
//! a usage error without an import cycle.

use std::fmt;

/// A mistake in the command line: reported on one line, exit code 2, before any work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage(pub String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// `Err(Usage(msg))`.
pub(crate) fn usage<T>(msg: impl Into<String>) -> Result<T, Usage> {
    Err(Usage(msg.into()))
}
