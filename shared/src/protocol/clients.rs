//! The client table: every client httpbench knows, native library, command client and browser client, one row
//! each with what it is (name, environment, the HTTP versions it speaks, whether a run without a list includes
//! it, how it reports its version and how its driver is made). Front ends make drivers for the rows they can
//! run (the CLI one module per library or adapter language, the page one per browser client); lists typed by
//! users (`--clients`, `--browser-clients`, the page's form and link) are read by [`parse_client_list`], so a
//! name means the same everywhere. A user's own command client (`--client-cmd`) is beyond the table: it declares
//! its versions, and the matrix treats it like a command client of the table.

use thiserror::Error;

use crate::model::{EnvironmentKind, HttpVersion};

/// One client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientInfo {
    /// The name on the command line, in the page and in result files.
    pub name: &'static str,
    /// Where it runs.
    pub environment: EnvironmentKind,
    /// Whether a run without a client list includes it.
    pub default: bool,
    /// The HTTP versions it speaks (2 over TLS by ALPN, 3 over QUIC). A browser client uses the browser's HTTP
    /// stack.
    pub versions: &'static [HttpVersion],
    /// How its driver is made, which says how it reports its version.
    pub made: Made,
    /// What it is, in one line (`--help` and the README's table).
    pub about: &'static str,
}

/// How a client's driver is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    /// A library in the CLI's process, driven by its module in `cli/src/clients/`. Its version is that of
    /// `crates` as Cargo.lock pins them (the first named, the others in brackets); none: the module asks the
    /// library at run time (libcurl is the system's).
    Library {
        /// The crates whose versions name it.
        crates: &'static [&'static str],
    },
    /// Another process speaking the adapter protocol (a command client): one request at a time, its version
    /// the one the adapter reports.
    Command(Adapter),
    /// A client of the page, in the browser's wasm; its version the page records.
    Browser {
        /// The cargo feature of the page that builds it in, if it is optional.
        feature: Option<&'static str>,
    },
}

/// How a built-in command client is started: the adapter of its language (compiled into the CLI) run by its
/// interpreter, the client picked by an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adapter {
    /// The adapter's language, one file in `adapters/`.
    pub script: Script,
    /// The argument that picks the client in the adapter.
    pub arg: &'static str,
    /// How to install what it needs on Debian, for the "unavailable" note.
    pub install: &'static str,
}

/// The adapters, one per language (Bun and Deno share one: fetch in both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// `adapters/perl.pl`, run by `perl -e`.
    Perl,
    /// `adapters/python.py`, run by `python3 -c`.
    Python,
    /// `adapters/node.mjs`, run by `node --input-type=module -e`.
    Node,
    /// `adapters/fetch.mjs`, run by `bun -e`.
    Bun,
    /// `adapters/fetch.mjs`, run by `deno eval`.
    Deno,
    /// `adapters/Java.java`, written to a file and run from source by `java FILE` (the source launcher).
    Java,
    /// `adapters/go.go`, built once by `go build` into a program of its own.
    Go,
}

/// How an adapter's source reaches its runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handover {
    /// On the command line, after these flags.
    Inline(&'static [&'static str]),
    /// In a file of this name, given as the runtime's first argument.
    File(&'static str),
    /// Compiled by the runtime's `build` command from a file of this name; the program it makes runs alone.
    Built(&'static str),
}

impl Script {
    /// The runtime, looked up on PATH (for [`Handover::Built`], its compiler).
    pub fn runtime(self) -> &'static str {
        match self {
            Script::Perl => "perl",
            Script::Python => "python3",
            Script::Node => "node",
            Script::Bun => "bun",
            Script::Deno => "deno",
            Script::Java => "java",
            Script::Go => "go",
        }
    }

    /// How the adapter's source reaches the runtime.
    pub fn handover(self) -> Handover {
        match self {
            Script::Perl => Handover::Inline(&["-e"]),
            Script::Python => Handover::Inline(&["-c"]),
            Script::Node => Handover::Inline(&["--input-type=module", "-e"]),
            Script::Bun => Handover::Inline(&["-e"]),
            Script::Deno => Handover::Inline(&["eval"]),
            // The source launcher runs the first class of a file whose name ends in .java.
            Script::Java => Handover::File("Java.java"),
            Script::Go => Handover::Built("main.go"),
        }
    }
}

impl ClientInfo {
    /// Whether it is a command client (another process, one request at a time).
    pub fn is_command(&self) -> bool {
        matches!(self.made, Made::Command(_))
    }

    /// The page feature that builds it in, for a browser client that is optional.
    pub fn feature(&self) -> Option<&'static str> {
        match self.made {
            Made::Browser { feature } => feature,
            _ => None,
        }
    }

    /// Whether `all` in a client list includes it: every client but the command clients (other processes,
    /// each with an interpreter to install, named one by one).
    pub fn in_all(&self) -> bool {
        !self.is_command()
    }
}

mod table;

pub use table::CLIENTS;

/// The browser client that runs the wasm clients' fetch loop in plain JavaScript: their floor, and the
/// reference the headline compares them with.
pub const BROWSER_FLOOR: &str = "js-fetch";

/// The clients of one environment.
pub fn clients_of(environment: EnvironmentKind) -> impl Iterator<Item = &'static ClientInfo> {
    CLIENTS.iter().filter(move |c| c.environment == environment)
}

/// The native clients: libraries, then command clients.
pub fn native_clients() -> impl Iterator<Item = &'static ClientInfo> {
    clients_of(EnvironmentKind::Native)
}

/// The native clients in the CLI's process (no command clients).
pub fn libraries() -> impl Iterator<Item = &'static ClientInfo> {
    native_clients().filter(|c| matches!(c.made, Made::Library { .. }))
}

/// The built-in command clients.
pub fn commands() -> impl Iterator<Item = &'static ClientInfo> {
    native_clients().filter(|c| c.is_command())
}

/// The browser clients (all of them; a page build without a feature lacks that one).
pub fn browser_clients() -> impl Iterator<Item = &'static ClientInfo> {
    clients_of(EnvironmentKind::Browser)
}

/// The client of `environment` named `name`.
pub fn client(environment: EnvironmentKind, name: &str) -> Option<&'static ClientInfo> {
    clients_of(environment).find(|c| c.name == name)
}

/// Why client `name` of `environment` cannot make requests over `version`, if it cannot: such a case is left
/// out of a run and the report says why. A client of the table speaks its row's versions; one beyond it (a
/// user's command client) the versions its front end `declared` for it, HTTP/1.1 when none were.
pub fn cannot_speak(
    environment: EnvironmentKind,
    name: &str,
    version: HttpVersion,
    declared: Option<&[HttpVersion]>,
) -> Option<&'static str> {
    let versions = match (client(environment, name), declared) {
        (Some(c), _) => c.versions,
        (None, Some(declared)) => declared,
        (None, None) => &[HttpVersion::Http11],
    };
    match version {
        _ if versions.contains(&version) => None,
        _ if versions == [HttpVersion::Http11] => Some("HTTP/1.1 only"),
        _ if versions == [HttpVersion::Http3] => Some("HTTP/3 only"),
        HttpVersion::Http11 => Some("no HTTP/1.1 in this client"),
        HttpVersion::Http2 => Some("no HTTP/2 in this client"),
        HttpVersion::Http3 => Some("no HTTP/3 in this client"),
    }
}

/// Why client `name` of `environment` cannot keep `concurrency` requests in flight, if it cannot: such a
/// case is left out of a run and the report says why. Command clients, of the table or a user's, make one
/// request at a time.
pub fn cannot_run_at(environment: EnvironmentKind, name: &str, concurrency: u32) -> Option<&'static str> {
    let command = client(environment, name).is_none_or(ClientInfo::is_command);
    (concurrency > 1 && command).then_some("command clients make one request at a time")
}
/// Why fresh mode cannot be run in `environment` over `http` with `concurrency` requests in flight, if it
/// cannot. A browser puts all its requests in flight to a host on one HTTP/2 connection, so they cannot have a
/// connection each; and when the server ends it after an answer (`close=1`), Chromium fails the requests it
/// had queued on it (3 to 12 of 96 measured at 8 in flight) instead of sending them on a new one.
pub fn cannot_run_fresh(environment: EnvironmentKind, http: HttpVersion, concurrency: u32) -> Option<&'static str> {
    match (environment, http, concurrency) {
        (EnvironmentKind::Browser, HttpVersion::Http2, 2..) => {
            Some("a browser multiplexes its requests in flight on one HTTP/2 connection")
        }
        (EnvironmentKind::Browser, HttpVersion::Http3, 2..) => {
            Some("a browser multiplexes its requests in flight on one HTTP/3 connection")
        }
        _ => None,
    }
}

/// A client list that cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClientListError {
    /// A name that is not a client of this environment (or of this build).
    #[error("unknown client '{name}': expected some of {expected}, or all")]
    Unknown {
        /// The name as typed.
        name: String,
        /// The names that would work, comma-separated.
        expected: String,
    },
    /// Nothing but commas and spaces.
    #[error("'{0}' names no client: give some of {1}, or all")]
    Empty(String, String),
}

/// A name that stands for several clients of the table in a client list.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    /// The name in a list.
    pub name: &'static str,
    /// Whether it takes a client of the table.
    pub takes: fn(&ClientInfo) -> bool,
    /// What it is (`--help`).
    pub about: &'static str,
}

/// The groups: `all`, the libraries ([`ClientInfo::in_all`]); `all-runtimes`, every client of the table,
/// libraries and every runtime's command clients.
pub const GROUPS: &[Group] = &[
    Group { name: "all", takes: ClientInfo::in_all, about: "every in-process library" },
    Group {
        name: "all-runtimes",
        takes: |_| true,
        about: "every client of the table: the libraries and every runtime's command clients",
    },
];

/// Read a comma-separated client list of `environment`: names in the order given, without repeats. A name is
/// accepted when it is in `available` (the names this front end can run: table clients in table order, then
/// any others it knows, such as a user's command clients); a group name ([`GROUPS`]) is every client of the
/// table in `available` that the group takes.
pub fn parse_client_list<'a>(
    environment: EnvironmentKind,
    list: &str,
    available: &[&'a str],
) -> Result<Vec<&'a str>, ClientListError> {
    let expected = || available.join(", ");
    let mut out: Vec<&'a str> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let names: Vec<&'a str> = if let Some(group) = GROUPS.iter().find(|g| g.name == name) {
            available.iter().copied().filter(|n| client(environment, n).is_some_and(group.takes)).collect()
        } else {
            match available.iter().find(|n| **n == name) {
                Some(n) => vec![*n],
                None => return Err(ClientListError::Unknown { name: name.to_string(), expected: expected() }),
            }
        };
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    if out.is_empty() {
        return Err(ClientListError::Empty(list.to_string(), expected()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NATIVE: [&str; 5] = ["curl", "ureq", "reqwest", "reqwest-async", "raw"];

    #[test]
    fn lists_keep_the_order_given_without_repeats_and_all_expands() {
        let p = |s| parse_client_list(EnvironmentKind::Native, s, &NATIVE);
        assert_eq!(p("raw, curl,raw").unwrap(), ["raw", "curl"]);
        assert_eq!(p("all").unwrap(), NATIVE);
        assert_eq!(p("ureq,all").unwrap()[..2], ["ureq", "curl"]);
        let e = p("wget").unwrap_err().to_string();
        assert!(e.contains("'wget'") && e.contains("curl, ureq"), "{e}");
        assert!(p(" , ").unwrap_err().to_string().contains("names no client"));
    }

    #[test]
    fn names_beyond_the_table_and_command_clients_are_accepted_but_not_in_all() {
        let available = ["curl", "raw", "perl-lwp", "mine"];
        let p = |s| parse_client_list(EnvironmentKind::Native, s, &available);
        assert_eq!(p("all,mine").unwrap(), ["curl", "raw", "mine"]);
        assert_eq!(p("all-runtimes").unwrap(), ["curl", "raw", "perl-lwp"], "the table's clients, not a user's");
        assert_eq!(p("perl-lwp,curl").unwrap(), ["perl-lwp", "curl"]);
    }

    #[test]
    fn a_name_of_the_other_environment_or_build_is_unknown() {
        let e = parse_client_list(EnvironmentKind::Browser, "curl", &["fetch"]).unwrap_err();
        assert!(matches!(e, ClientListError::Unknown { .. }));
        let e = parse_client_list(EnvironmentKind::Browser, "reqwest", &["fetch", "js-fetch"]).unwrap_err();
        assert!(e.to_string().contains("fetch, js-fetch"), "{e}");
    }

    #[test]
    fn http2_is_spoken_by_the_clients_that_can() {
        let n = |name| cannot_speak(EnvironmentKind::Native, name, HttpVersion::Http2, None);
        assert_eq!((n("curl"), n("reqwest"), n("reqwest-async")), (None, None, None));
        assert_eq!((n("ureq"), n("raw")), (Some("HTTP/1.1 only"), Some("no HTTP/2 in this client")));
        let h3 = |name| cannot_speak(EnvironmentKind::Native, name, HttpVersion::Http3, None);
        assert_eq!((h3("raw"), h3("reqwest"), h3("reqwest-async")), (None, None, None));
        assert_eq!((h3("curl"), h3("ureq")), (Some("no HTTP/3 in this client"), Some("HTTP/1.1 only")));
        assert_eq!((h3("perl-lwp"), n("perl-lwp")), (Some("HTTP/1.1 only"), Some("HTTP/1.1 only")));
        assert_eq!(cannot_speak(EnvironmentKind::Native, "perl-lwp", HttpVersion::Http11, None), None);
        let quic = |v| cannot_speak(EnvironmentKind::Native, "python-aioquic", v, None);
        assert_eq!((quic(HttpVersion::Http3), quic(HttpVersion::Http11)), (None, Some("HTTP/3 only")));
        // A user's command client speaks what it declared, HTTP/1.1 when it declared nothing, like a row.
        let mine = |v, declared| cannot_speak(EnvironmentKind::Native, "mine", v, declared);
        let h1_h2 = [HttpVersion::Http11, HttpVersion::Http2];
        assert_eq!(
            (mine(HttpVersion::Http2, Some(&h1_h2[..])), mine(HttpVersion::Http2, None)),
            (None, Some("HTTP/1.1 only"))
        );
        assert_eq!(mine(HttpVersion::Http3, Some(&h1_h2[..])), Some("no HTTP/3 in this client"));
        // The table wins over a declaration for one of its own names.
        assert_eq!(
            cannot_speak(EnvironmentKind::Native, "ureq", HttpVersion::Http3, Some(&[HttpVersion::Http3])),
            Some("HTTP/1.1 only")
        );
        assert!(browser_clients().all(|c| cannot_speak(c.environment, c.name, HttpVersion::Http2, None).is_none()));
        assert_eq!(cannot_run_at(EnvironmentKind::Native, "perl-lwp", 1), None);
        assert!(cannot_run_at(EnvironmentKind::Native, "perl-lwp", 2).unwrap().contains("one request at a time"));
        assert!(cannot_run_at(EnvironmentKind::Native, "mine", 2).is_some());
        assert!(CLIENTS.iter().all(|c| cannot_run_at(c.environment, c.name, 64).is_none() != c.is_command()));
    }

    #[test]
    fn a_browser_runs_fresh_mode_over_http2_only_one_request_at_a_time() {
        let f = |env, http, c| cannot_run_fresh(env, http, c).is_some();
        assert!(f(EnvironmentKind::Browser, HttpVersion::Http2, 8));
        assert!(!f(EnvironmentKind::Browser, HttpVersion::Http2, 1));
        assert!(!f(EnvironmentKind::Browser, HttpVersion::Http11, 8));
        assert!(!f(EnvironmentKind::Native, HttpVersion::Http2, 8));
    }

    #[test]
    fn the_catalog_has_unique_names_per_environment_and_defaults() {
        for env in [EnvironmentKind::Native, EnvironmentKind::Browser] {
            let names: Vec<&str> = clients_of(env).map(|c| c.name).collect();
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(names.len(), unique.len(), "{names:?}");
            assert!(names.iter().all(|n| crate::protocol::check_name(n).is_ok() && *n != "all"));
        }
        // Native rows: libraries first, then command clients (the report's order); none of them in `all`.
        let kinds: Vec<bool> = native_clients().map(ClientInfo::is_command).collect();
        assert!(kinds.windows(2).all(|w| w[0] <= w[1]), "{kinds:?}");
        let everything: Vec<&str> = native_clients().map(|c| c.name).collect();
        let all = parse_client_list(EnvironmentKind::Native, "all", &everything).unwrap();
        assert_eq!(all, libraries().map(|c| c.name).collect::<Vec<_>>());
        let defaults: Vec<&str> = native_clients().filter(|c| c.default).map(|c| c.name).collect();
        assert_eq!(defaults, ["curl", "ureq", "reqwest"]);
        let defaults: Vec<&str> = browser_clients().filter(|c| c.default).map(|c| c.name).collect();
        assert_eq!(defaults, ["fetch", "gloo-net", "xhr", "js-fetch"]);
    }
}
