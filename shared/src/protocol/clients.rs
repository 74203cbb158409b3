//! The client catalog: every in-process client httpbench knows, native and browser, with what it is. Front
//! ends map the names they can run to drivers; lists typed by users (`--clients`, `--browser-clients`, the
//! page's form and query string) are read by [`parse_client_list`], so a name means the same everywhere.
//! Command clients (another process speaking the adapter protocol) are the CLI's alone: its built-in ones are
//! listed in `cli/src/clients/command/builtin.rs`, users add their own with `--client-cmd`.

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
    /// The cargo feature of the page that builds it in, if it is optional.
    pub feature: Option<&'static str>,
    /// The HTTP versions it speaks (2 over TLS by ALPN, 3 over QUIC). A browser client uses the browser's HTTP
    /// stack.
    pub versions: &'static [HttpVersion],
}

const H1: &[HttpVersion] = &[HttpVersion::Http11];
const H1_H2: &[HttpVersion] = &[HttpVersion::Http11, HttpVersion::Http2];
const H1_H3: &[HttpVersion] = &[HttpVersion::Http11, HttpVersion::Http3];
/// HTTP/3 alone (a command client on a QUIC library).
pub const HTTP3_ONLY: &[HttpVersion] = &[HttpVersion::Http3];
const ALL: &[HttpVersion] = &[HttpVersion::Http11, HttpVersion::Http2, HttpVersion::Http3];

const fn native(name: &'static str, default: bool, versions: &'static [HttpVersion]) -> ClientInfo {
    ClientInfo { name, environment: EnvironmentKind::Native, default, feature: None, versions }
}

const fn browser(name: &'static str, feature: Option<&'static str>) -> ClientInfo {
    ClientInfo { name, environment: EnvironmentKind::Browser, default: feature.is_none(), feature, versions: ALL }
}

/// Every client, native first, each environment's in report order.
pub const CLIENTS: [ClientInfo; 11] = [
    // libcurl through the curl crate (easy interface)
    native("curl", true, H1_H2),
    // libcurl's multi interface: one thread driving one easy handle per request in flight
    native("curl-multi", false, H1_H2),
    // ureq 3, blocking, rustls
    native("ureq", true, H1),
    // reqwest's blocking client, rustls; HTTP/3 through its (unstable) quinn + h3 client
    native("reqwest", true, ALL),
    // reqwest's async client on a tokio runtime
    native("reqwest-async", false, ALL),
    // the floor: a std TcpStream with a fixed request, read by Content-Length; over HTTP/3 quinn + h3 directly,
    // a request stream per request
    native("raw", false, H1_H3),
    // window.fetch through web-sys, body read with arrayBuffer()
    browser("fetch", None),
    // gloo-net's fetch wrapper, body copied into wasm memory
    browser("gloo-net", None),
    // XMLHttpRequest through web-sys, responseType arraybuffer
    browser("xhr", None),
    // reqwest compiled to wasm32 (its fetch backend)
    browser("reqwest", Some("reqwest")),
    // the same fetch loop in plain JavaScript: the floor of the wasm clients
    browser("js-fetch", None),
];

/// The clients of one environment.
pub fn clients_of(environment: EnvironmentKind) -> impl Iterator<Item = &'static ClientInfo> {
    CLIENTS.iter().filter(move |c| c.environment == environment)
}

/// The native clients.
pub fn native_clients() -> impl Iterator<Item = &'static ClientInfo> {
    clients_of(EnvironmentKind::Native)
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
/// out of a run and the report says why. A client beyond the catalog (a command client) speaks the versions
/// its front end `declared` for it, HTTP/1.1 when none were.
pub fn cannot_speak(
    environment: EnvironmentKind,
    name: &str,
    version: HttpVersion,
    declared: Option<&[HttpVersion]>,
) -> Option<&'static str> {
    let versions = match (client(environment, name), declared) {
        (Some(c), _) => c.versions,
        (None, Some(declared)) if declared.contains(&version) => return None,
        (None, Some(HTTP3_ONLY)) => return Some("HTTP/3 only"),
        (None, Some(_)) => return Some("not an HTTP version of this command client"),
        (None, None) if version == HttpVersion::Http11 => return None,
        (None, None) => return Some("command clients speak HTTP/1.1 only"),
    };
    match version {
        _ if versions.contains(&version) => None,
        _ if versions == H1 => Some("HTTP/1.1 only"),
        HttpVersion::Http11 => Some("no HTTP/1.1 in this client"),
        HttpVersion::Http2 => Some("no HTTP/2 in this client"),
        HttpVersion::Http3 => Some("no HTTP/3 in this client"),
    }
}

/// Why client `name` of `environment` cannot keep `concurrency` requests in flight, if it cannot: such a
/// case is left out of a run and the report says why. Command clients make one request at a time.
pub fn cannot_run_at(environment: EnvironmentKind, name: &str, concurrency: u32) -> Option<&'static str> {
    match (concurrency, client(environment, name)) {
        (0 | 1, _) | (_, Some(_)) => None,
        (_, None) => Some("command clients make one request at a time"),
    }
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

/// Read a comma-separated client list of `environment`: names in the order given, without repeats. A name is
/// accepted when it is in `available` (the names this front end can run: catalog clients in catalog order,
/// then any others it knows, such as the CLI's command clients); `all` is every catalog client in `available`.
pub fn parse_client_list<'a>(
    environment: EnvironmentKind,
    list: &str,
    available: &[&'a str],
) -> Result<Vec<&'a str>, ClientListError> {
    let expected = || available.join(", ");
    let mut out: Vec<&'a str> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let names: Vec<&'a str> = if name == "all" {
            available.iter().copied().filter(|n| client(environment, n).is_some()).collect()
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
    fn names_beyond_the_catalog_are_accepted_but_not_in_all() {
        let available = ["curl", "raw", "perl-lwp", "mine"];
        let p = |s| parse_client_list(EnvironmentKind::Native, s, &available);
        assert_eq!(p("all,mine").unwrap(), ["curl", "raw", "mine"]);
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
        assert!(h3("perl-lwp").unwrap().contains("command clients"));
        assert!(n("perl-lwp").unwrap().contains("command clients"));
        assert_eq!(cannot_speak(EnvironmentKind::Native, "perl-lwp", HttpVersion::Http11, None), None);
        // A command client its front end declared to speak HTTP/3 alone.
        let quic = |v| cannot_speak(EnvironmentKind::Native, "python-aioquic", v, Some(HTTP3_ONLY));
        assert_eq!((quic(HttpVersion::Http3), quic(HttpVersion::Http11)), (None, Some("HTTP/3 only")));
        // The catalog wins over a declaration for one of its own names.
        assert_eq!(
            cannot_speak(EnvironmentKind::Native, "ureq", HttpVersion::Http3, Some(HTTP3_ONLY)),
            Some("HTTP/1.1 only")
        );
        assert!(browser_clients().all(|c| cannot_speak(c.environment, c.name, HttpVersion::Http2, None).is_none()));
        assert_eq!(cannot_run_at(EnvironmentKind::Native, "perl-lwp", 1), None);
        assert!(cannot_run_at(EnvironmentKind::Native, "perl-lwp", 2).unwrap().contains("one request at a time"));
        assert!(CLIENTS.iter().all(|c| cannot_run_at(c.environment, c.name, 64).is_none()));
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
            unique.dedup();
            assert_eq!(names, unique);
        }
        let defaults: Vec<&str> = native_clients().filter(|c| c.default).map(|c| c.name).collect();
        assert_eq!(defaults, ["curl", "ureq", "reqwest"]);
        let defaults: Vec<&str> = browser_clients().filter(|c| c.default).map(|c| c.name).collect();
        assert_eq!(defaults, ["fetch", "gloo-net", "xhr", "js-fetch"]);
    }
}
