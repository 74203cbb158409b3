//! Fresh mode for a client that cannot close its connections (a page in a browser): it asks the target to
//! close after each response with `close=1` in the query, and the embedded server honours that. Both halves
//! of that small protocol live here: the page adds the parameter, the server reads it.

use crate::model::Mode;

/// `target` as a client in `mode` requests it: in fresh mode with `close=1` added to its query.
pub fn url_for_mode(target: &str, mode: Mode) -> String {
    match mode {
        Mode::Reuse => target.to_string(),
        Mode::Fresh => with_param(target, "close=1"),
    }
}

/// `url` with `param` (`name=value`) added to its query: after `?`, or after `&` when it has one. The one way
/// the protocol's parameters (`close`, `delay_ms`, `conns`) are added to a target.
pub fn with_param(url: &str, param: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{param}")
}

/// Whether a request's query asks the server to close the connection after answering: `close=1` or
/// `close=true` anywhere in it. On the server's hot path, so a plain scan, no decoding.
pub fn asks_to_close(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|kv| kv == "close=1" || kv == "close=true"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_urls_ask_the_server_to_close_and_the_server_hears_it() {
        for (target, fresh) in [("http://h/", "http://h/?close=1"), ("http://h/?a=1", "http://h/?a=1&close=1")] {
            assert_eq!(url_for_mode(target, Mode::Fresh), fresh);
            assert_eq!(url_for_mode(target, Mode::Reuse), target);
            assert!(asks_to_close(fresh.split_once('?').map(|(_, q)| q)));
        }
        assert!(asks_to_close(Some("close=true")));
        assert!(!asks_to_close(Some("closed=1&x=close")));
        assert!(!asks_to_close(None));
    }
}
