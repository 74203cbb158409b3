//! Checked options: each command's raw arguments turned into values known to be usable, before any work starts
//! (`run`, `serve`, `compare`, one file each; the client lists of `run` apart). Every error names the flag and
//! the bad value, and says what would work.

mod clients;
mod compare;
mod run;
mod serve;

pub(crate) use compare::{CompareOptions, Gate};
pub(crate) use run::{checked_html_export, RunOptions};
pub(crate) use serve::serve_options;
