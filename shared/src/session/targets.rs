//! The URLs a run's cases request: the run's target, or one per HTTP version (over TLS a browser takes the
//! best version a server offers, so `run --browser --tls --http both` requests each version's cases from a
//! server that offers that version alone), each case asking the embedded server for its body size and think
//! time (`/bytes/N`, `delay_ms=N`). One rule for the CLI's native cases and the page's.

use super::CaseKey;
use crate::model::HttpVersion;
use crate::protocol::load_url;

/// The targets of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Targets {
    /// The URL every case requests unless its version has its own.
    pub default: String,
    /// The URL of one version's cases instead of `default`.
    pub per_version: Vec<(HttpVersion, String)>,
}

impl Targets {
    /// One target for every case.
    pub fn one(url: &str) -> Self {
        Targets { default: url.to_string(), per_version: Vec::new() }
    }

    /// The base URL of `http`'s cases.
    pub fn of_version(&self, http: HttpVersion) -> &str {
        self.per_version.iter().find(|(v, _)| *v == http).map_or(self.default.as_str(), |(_, url)| url.as_str())
    }

    /// The URL case `key` requests: its version's target, asking for its body size and think time.
    pub fn of_case(&self, key: &CaseKey) -> String {
        load_url(self.of_version(key.http), key.body_bytes, key.server_delay_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Mode;

    #[test]
    fn each_case_requests_its_versions_target_with_its_load() {
        let targets = Targets {
            default: "https://127.0.0.1:4000/".into(),
            per_version: vec![(HttpVersion::Http11, "https://127.0.0.1:4001/".into())],
        };
        let key = |http, body_bytes, server_delay_ms| CaseKey {
            client: "fetch".into(),
            mode: Mode::Reuse,
            http,
            body_bytes,
            server_delay_ms,
            link: None,
            concurrency: 1,
        };
        assert_eq!(targets.of_case(&key(HttpVersion::Http2, None, None)), "https://127.0.0.1:4000/");
        assert_eq!(
            targets.of_case(&key(HttpVersion::Http11, Some(16384), Some(5))),
            "https://127.0.0.1:4001/bytes/16384?delay_ms=5"
        );
        assert_eq!(Targets::one("http://h:1/").of_case(&key(HttpVersion::Http2, Some(0), None)), "http://h:1/bytes/0");
    }
}
