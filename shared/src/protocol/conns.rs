//! Connections per case, counted by the embedded server for a client that shares its connections with other
//! cases (a browser page: every case uses the browser's one pool, so a case reuses what the one before it
//! left, and counting what each case opened would credit one with another's). Such a client tags each request
//! of a case with `conns=TAG` in its query; the server counts, per tag, the distinct connections that carried
//! it, and `GET /stats/connections?tag=TAG` answers `connections N`. Both halves live here: the tag a case of
//! a run gets, the tagged URL, the server's reading of both queries, and the answer's.

use crate::model::Mode;

/// The query parameter that tags a request with its case.
const PARAM: &str = "conns=";

/// The path that answers `connections N`: the connections the server accepted so far, the asking one included;
/// with `?tag=TAG`, the connections that carried requests tagged `TAG`.
pub const CONNECTIONS_PATH: &str = "/stats/connections";

/// The tag of the case with these parameters in run `run` (any number that differs between runs against one
/// server, e.g. the time it started in ms), e.g. `fetch.reuse.c8.r1764627600000`: made of URL-safe characters
/// only, so it goes into a query as it is and the server compares it undecoded. The run keeps a second run's
/// counts apart from the first's (the server counts per tag for its whole life).
pub fn case_tag(client: &str, mode: Mode, concurrency: u32, run: u64) -> String {
    format!("{client}.{mode}.c{concurrency}.r{run}")
}

/// `url` with `conns=TAG` added to its query.
pub fn tagged_url(url: &str, tag: &str) -> String {
    super::with_param(url, &format!("{PARAM}{tag}"))
}

/// The tag a request's query carries (`conns=TAG`), if any. On the server's hot path: a plain scan.
pub fn conns_tag(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|kv| kv.strip_prefix(PARAM)).filter(|t| !t.is_empty())
}

/// The path and query that ask the server how many connections carried `tag`.
pub fn connections_query(path: &str, tag: &str) -> String {
    format!("{path}?tag={tag}")
}

/// The count in the server's answer to a reading (`connections N`), if it is one.
pub fn read_connections(body: &str) -> Option<u64> {
    body.trim().strip_prefix("connections ")?.parse().ok()
}

/// The tag a counter reading asks about (`tag=TAG` in its query), if any.
pub fn asked_tag(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|kv| kv.strip_prefix("tag=")).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tagged_url_carries_its_case_and_the_server_reads_it_back() {
        let tag = case_tag("fetch", Mode::Reuse, 8, 17);
        assert_eq!(tag, "fetch.reuse.c8.r17");
        for (url, query) in
            [("http://h/", "conns=fetch.reuse.c8.r17"), ("http://h/?close=1", "close=1&conns=fetch.reuse.c8.r17")]
        {
            let tagged = tagged_url(url, &tag);
            assert_eq!(tagged.split_once('?').map(|(_, q)| q), Some(query));
            assert_eq!(conns_tag(Some(query)), Some(tag.as_str()));
        }
        // gloo-net re-appends an empty query part: the tag still reads.
        assert_eq!(conns_tag(Some("conns=a.b.c1&")), Some("a.b.c1"));
        assert_eq!(conns_tag(Some("conns=&x=1")), None);
        assert_eq!(conns_tag(Some("xconns=a")), None);
        assert_eq!(conns_tag(None), None);
        let asked = connections_query(CONNECTIONS_PATH, &tag);
        assert_eq!(asked, "/stats/connections?tag=fetch.reuse.c8.r17");
        assert_eq!(asked_tag(asked.split_once('?').map(|(_, q)| q)), Some(tag.as_str()));
        assert_eq!(asked_tag(Some("tag=")), None);
        assert_eq!(read_connections("connections 6\n"), Some(6));
        assert_eq!(read_connections("<html>not found</html>"), None);
    }
}
