//! The value parsers clap calls for typed arguments: a URL (never echoing a password), a duration and a
//! per-request timeout as users type them (shared's parsers, the page's too).

use std::time::Duration;

use url::Url;

/// An absolute http(s) URL with a host, without credentials; a fragment is dropped (it is the browser's, never
/// sent: HTTP::Lite once put `#frag` on its request line).
///
/// A user name or password is refused rather than sent: 9 of 13 clients sent `Authorization: Basic` and the
/// others nothing, so the cases measured different requests, and the report and result file kept the
/// password. The message never repeats it.
pub(super) fn parse_url(raw: &str) -> Result<Url, String> {
    let mut url = Url::parse(raw)
        .map_err(|e| format!("URL '{raw}' is not valid ({e}): give an absolute URL such as http://127.0.0.1:8080/"))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(format!("URL '{raw}' has scheme '{}': httpbench fetches http:// and https:// URLs", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("URL '{raw}' has no host: give one, e.g. http://127.0.0.1:8080/"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "URL {}://***@{} has a user name or password: httpbench sends no credentials (clients would send them \
             differently, and the report would keep them); drop the part before '@'",
            url.scheme(),
            &url[url::Position::BeforeHost..]
        ));
    }
    url.set_fragment(None);
    Ok(url)
}

/// [`parse_url`] as clap's value parser: its error alone, as one line. clap's own wrapping of a value
/// parser's error quotes the value first, and a URL's value may hold a password.
#[derive(Debug, Clone, Copy)]
pub(super) struct UrlParser;

impl clap::builder::TypedValueParser for UrlParser {
    type Value = Url;

    fn parse_ref(&self, _: &clap::Command, _: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<Url, clap::Error> {
        let invalid = |msg: String| clap::Error::raw(clap::error::ErrorKind::ValueValidation, msg + "\n");
        let raw = value.to_str().ok_or_else(|| invalid(format!("URL {value:?} is not UTF-8")))?;
        parse_url(raw).map_err(invalid)
    }
}

/// A duration as users type it (clap value parser of `--duration`): the shared parser's forms.
pub(super) fn parse_duration(raw: &str) -> Result<Duration, String> {
    httpbench_shared::protocol::parse_duration(raw).map_err(|e| e.to_string())
}

/// A per-request timeout (clap value parser of `--timeout`): the shared parser's, the page's too.
pub(super) fn parse_timeout(raw: &str) -> Result<Duration, String> {
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
        let e = parse_url("http://user:s3cret@127.0.0.1:8080/p?q=1").unwrap_err();
        assert!(e.contains("http://***@127.0.0.1:8080/p?q=1") && e.contains("user name or password"), "{e}");
        assert!(!e.contains("s3cret") && !e.contains("user:"), "{e}");
        assert!(parse_url("http://user@127.0.0.1/").is_err());
        assert_eq!(parse_url("http://127.0.0.1/p?q=1#frag").unwrap().as_str(), "http://127.0.0.1/p?q=1");
    }

    #[test]
    fn durations_and_timeouts() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("soon").unwrap_err().contains("'soon'"));
        assert_eq!(parse_timeout("2.5"), Ok(Duration::from_millis(2500)));
        let e = parse_timeout("0").unwrap_err();
        assert!(e.contains("'0'") && e.contains("above 0 and at most 3600"), "{e}");
        assert!(parse_timeout("nan").is_err());
    }
}
