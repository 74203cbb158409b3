//! A mistake in the command line, and the value parsers clap calls for typed arguments. A leaf module: it
//! knows no other module of the CLI, so every module may report a usage error without an import cycle.

use std::fmt;
use std::time::Duration;

use url::Url;

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
pub fn usage<T>(msg: impl Into<String>) -> Result<T, Usage> {
    Err(Usage(msg.into()))
}

/// An absolute http(s) URL with a host (clap value parser of `URL`).
pub fn parse_url(raw: &str) -> Result<Url, String> {
    let url = Url::parse(raw)
        .map_err(|e| format!("URL '{raw}' is not valid ({e}): give an absolute URL such as http://127.0.0.1:8080/"))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(format!("URL '{raw}' has scheme '{}': httpbench fetches http:// and https:// URLs", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("URL '{raw}' has no host: give one, e.g. http://127.0.0.1:8080/"));
    }
    Ok(url)
}

/// A duration as users type it (clap value parser of `--duration`): the shared parser's forms.
pub fn parse_duration(raw: &str) -> Result<Duration, String> {
    httpbench_shared::protocol::parse_duration(raw).map_err(|e| e.to_string())
}

/// A per-request timeout (clap value parser of `--timeout`): the shared parser's, the page's too.
pub fn parse_timeout(raw: &str) -> Result<Duration, String> {
    httpbench_shared::protocol::parse_timeout(raw).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_with_the_value_named() {
        assert!(parse_url("http://127.0.0.1:8080/").is_ok());
        let e = parse_url("ftp://example.com/").unwrap_err();
        assert!(e.contains("'ftp://example.com/'") && e.contains("scheme"), "{e}");
        assert!(parse_url("not a url").unwrap_err().contains("'not a url'"));
        assert!(parse_url("http://").is_err());
    }

    #[test]
    fn durations_and_timeouts() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("soon").unwrap_err().contains("'soon'"));
        assert_eq!(parse_timeout("2.5"), Ok(Duration::from_millis(2500)));
        assert!(parse_timeout("0").unwrap_err().contains("'0'"));
        assert!(parse_timeout("nan").is_err());
    }
}
