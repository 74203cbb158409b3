//! The client lists the tests iterate, derived from the client table, so that a new client runs in every test
//! that iterates clients without an edit there.

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::{commands, libraries};

/// Every in-process client library, in the table's order.
pub(crate) fn all_libraries() -> Vec<&'static str> {
    libraries().map(|c| c.name).collect()
}

/// The in-process libraries that speak `http`.
pub(crate) fn libraries_speaking(http: HttpVersion) -> Vec<&'static str> {
    libraries().filter(|c| c.versions.contains(&http)).map(|c| c.name).collect()
}

/// The built-in command clients that speak `http`.
pub(crate) fn commands_speaking(http: HttpVersion) -> Vec<&'static str> {
    commands().filter(|c| c.versions.contains(&http)).map(|c| c.name).collect()
}

/// `names` as `--clients` takes them.
pub(crate) fn list(names: &[&str]) -> String {
    names.join(",")
}
