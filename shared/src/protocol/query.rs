//! The page's query string: the whole plan of a run (`target` and a target per HTTP version, `n`,
//! `duration`, `warmup`, `rounds`, `interleave`, `timeout`, `clients`, `mode`, `http`, `c`, `size`, `delay`),
//! `autorun=1` to start at once, `import=URL` for result files to load, and `page=ID`, the name a run gives it. `httpbench run --browser` writes it
//! and the page reads it, both through [`PageQuery`], on `form_urlencoded`. Values stay text as typed: the
//! page checks them like its form's, so a bad link gets the form's error message.

use crate::model::HttpVersion;

/// The parameters of a page URL; `None` where the query leaves the page's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageQuery {
    /// The URL every browser client GETs (the embedded server's `/` when sizes or delays are asked).
    pub target: Option<String>,
    /// The target of one HTTP version's cases instead of `target` (`target_h1=URL`): over TLS a browser takes
    /// the best version a server offers, so each version is requested from a server offering it alone.
    pub targets: Vec<(HttpVersion, String)>,
    /// Measured requests per case (`n`; `count` is read too).
    pub count: Option<String>,
    /// Measured time per case instead of a count (`3s`, `500ms`).
    pub duration: Option<String>,
    /// Warm-up requests per case.
    pub warmup: Option<String>,
    /// Rounds per case.
    pub rounds: Option<String>,
    /// `0` to run each case's rounds back to back (`1`, the default: round-robin across cases).
    pub interleave: Option<String>,
    /// Per-request timeout, as `--timeout` takes it (`10`, `2.5`, `500ms`).
    pub timeout: Option<String>,
    /// Comma-separated browser client names, or `all`.
    pub clients: Option<String>,
    /// `fresh`, `reuse` or `both`.
    pub mode: Option<String>,
    /// HTTP versions as `--http` takes them (`1.1`, `2`, `both`); none: the browser's own choice.
    pub http: Option<String>,
    /// Requests in flight per case (`c`), a list as `-c` takes it.
    pub concurrency: Option<String>,
    /// Body sizes asked of the embedded server (`size`), a list as `--body-size` takes it.
    pub body_sizes: Option<String>,
    /// Server think times (`delay`), a list as `--server-delay` takes it.
    pub server_delays: Option<String>,
    /// Start the run as soon as the page has loaded.
    pub autorun: bool,
    /// URLs of result files to import at start (`import=` repeated, or comma-separated).
    pub imports: Vec<String>,
    /// The page's id in a run of `httpbench run --browser` (`page=chromium`): it takes its turns at each pass
    /// ([`super::turn_query`]) and names itself in its posts.
    pub page: Option<String>,
}

impl PageQuery {
    /// Read a query string, with or without its leading `?`. Unknown parameters are ignored, so links keep
    /// working when parameters are added; a repeated one keeps its last value.
    pub fn parse(search: &str) -> Self {
        let mut q = PageQuery::default();
        for (key, value) in form_urlencoded::parse(search.trim_start_matches('?').as_bytes()) {
            let value = value.into_owned();
            match key.as_ref() {
                "target" => q.target = Some(value),
                "n" | "count" => q.count = Some(value),
                "duration" => q.duration = Some(value),
                "warmup" => q.warmup = Some(value),
                "rounds" => q.rounds = Some(value),
                "interleave" => q.interleave = Some(value),
                "timeout" => q.timeout = Some(value),
                "clients" => q.clients = Some(value),
                "mode" => q.mode = Some(value),
                "http" => q.http = Some(value),
                "c" => q.concurrency = Some(value),
                "size" => q.body_sizes = Some(value),
                "delay" => q.server_delays = Some(value),
                "page" => q.page = Some(value),
                "autorun" => q.autorun = value == "1" || value == "true",
                "import" => q.imports.extend(value.split(',').filter(|u| !u.is_empty()).map(str::to_string)),
                other => {
                    let version = other.strip_prefix("target_").and_then(version_of_short);
                    if let Some(http) = version {
                        q.targets.retain(|(v, _)| *v != http);
                        q.targets.push((http, value));
                    }
                }
            }
        }
        q
    }

    /// The query string without its `?`: every parameter that is set, percent-encoded.
    pub fn to_query(&self) -> String {
        let mut s = form_urlencoded::Serializer::new(String::new());
        if let Some(v) = &self.target {
            s.append_pair("target", v);
        }
        for (http, url) in &self.targets {
            s.append_pair(&format!("target_{}", http.short()), url);
        }
        let fields = [
            ("n", &self.count),
            ("duration", &self.duration),
            ("warmup", &self.warmup),
            ("rounds", &self.rounds),
            ("interleave", &self.interleave),
            ("timeout", &self.timeout),
            ("clients", &self.clients),
            ("mode", &self.mode),
            ("http", &self.http),
            ("c", &self.concurrency),
            ("size", &self.body_sizes),
            ("delay", &self.server_delays),
            ("page", &self.page),
        ];
        for (key, value) in fields {
            if let Some(v) = value {
                s.append_pair(key, v);
            }
        }
        for url in &self.imports {
            s.append_pair("import", url);
        }
        if self.autorun {
            s.append_pair("autorun", "1");
        }
        s.finish()
    }
}

/// The version whose short name (`h1`, `h2`) is `short`.
fn version_of_short(short: &str) -> Option<HttpVersion> {
    [HttpVersion::Http11, HttpVersion::Http2, HttpVersion::Http3].into_iter().find(|v| v.short() == short)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> PageQuery {
        PageQuery {
            target: Some("http://127.0.0.1:4000/bytes/10?x=1&close=0".into()),
            targets: vec![(HttpVersion::Http11, "https://127.0.0.1:4001/".into())],
            count: Some("200".into()),
            duration: Some("2s".into()),
            warmup: Some("5".into()),
            rounds: Some("3".into()),
            interleave: Some("0".into()),
            timeout: Some("2500ms".into()),
            clients: Some("fetch,xhr".into()),
            mode: Some("both".into()),
            http: Some("both".into()),
            concurrency: Some("1,8".into()),
            body_sizes: Some("0,16384".into()),
            server_delays: Some("5ms".into()),
            autorun: true,
            imports: vec!["/results/a b.json".into(), "http://h/r.json?v=1&w=2".into()],
            page: Some("firefox".into()),
        }
    }

    #[test]
    fn a_query_round_trips_through_its_string() {
        let q = full();
        let text = q.to_query();
        assert!(
            text.starts_with("target=http%3A%2F%2F127.0.0.1%3A4000%2Fbytes%2F10%3Fx%3D1%26close%3D0&target_h1="),
            "{text}"
        );
        assert!(text.ends_with("&autorun=1"), "{text}");
        assert_eq!(PageQuery::parse(&format!("?{text}")), q);
        assert_eq!(PageQuery::parse(""), PageQuery::default());
        assert_eq!(PageQuery::default().to_query(), "");
    }

    #[test]
    fn hand_written_links_decode_and_unknown_keys_are_ignored() {
        let q = PageQuery::parse("?count=7&clients=fetch%2Cxhr&mode=reuse&autorun=true&import=/a.json,/b.json&x=y&n=9");
        assert_eq!(q.count.as_deref(), Some("9"), "the last value wins");
        assert_eq!(q.clients.as_deref(), Some("fetch,xhr"));
        assert_eq!(q.mode.as_deref(), Some("reuse"));
        assert!(q.autorun);
        assert_eq!(q.imports, ["/a.json", "/b.json"]);
        assert_eq!(PageQuery::parse("target=a+b%zz").target.as_deref(), Some("a b%zz"));
        let q = PageQuery::parse("target_h2=x&target_h4=y&target_h2=z&target_h3=w");
        let kept = [(HttpVersion::Http2, "z".to_string()), (HttpVersion::Http3, "w".to_string())];
        assert_eq!(q.targets, kept, "known versions only, the last kept");
    }
}
