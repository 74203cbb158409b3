//! The page's query string: the settings of a run (`target`, `n`, `duration`, `warmup`, `rounds`,
//! `clients`, `mode`, `c`), `autorun=1` to start at once, and `import=URL` for result files to load. `httpbench run
//! --browser` writes it and the page reads it, both through [`PageQuery`], on `form_urlencoded`. Values stay
//! text as typed: the page checks them like its form's, so a bad link gets the form's error message.

/// The parameters of a page URL; `None` where the query leaves the page's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageQuery {
    /// The URL every browser client GETs.
    pub target: Option<String>,
    /// Measured requests per case (`n`; `count` is read too).
    pub count: Option<String>,
    /// Measured time per case instead of a count (`3s`, `500ms`).
    pub duration: Option<String>,
    /// Warm-up requests per case.
    pub warmup: Option<String>,
    /// Rounds per case.
    pub rounds: Option<String>,
    /// Comma-separated browser client names, or `all`.
    pub clients: Option<String>,
    /// `fresh`, `reuse` or `both`.
    pub mode: Option<String>,
    /// Requests in flight per case (`c`), a list as `-c` takes it.
    pub concurrency: Option<String>,
    /// Start the run as soon as the page has loaded.
    pub autorun: bool,
    /// URLs of result files to import at start (`import=` repeated, or comma-separated).
    pub imports: Vec<String>,
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
                "clients" => q.clients = Some(value),
                "mode" => q.mode = Some(value),
                "c" => q.concurrency = Some(value),
                "autorun" => q.autorun = value == "1" || value == "true",
                "import" => q.imports.extend(value.split(',').filter(|u| !u.is_empty()).map(str::to_string)),
                _ => {}
            }
        }
        q
    }

    /// The query string without its `?`: every parameter that is set, percent-encoded.
    pub fn to_query(&self) -> String {
        let mut s = form_urlencoded::Serializer::new(String::new());
        let fields = [
            ("target", &self.target),
            ("n", &self.count),
            ("duration", &self.duration),
            ("warmup", &self.warmup),
            ("rounds", &self.rounds),
            ("clients", &self.clients),
            ("mode", &self.mode),
            ("c", &self.concurrency),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> PageQuery {
        PageQuery {
            target: Some("http://127.0.0.1:4000/bytes/10?x=1&close=0".into()),
            count: Some("200".into()),
            duration: Some("2s".into()),
            warmup: Some("5".into()),
            rounds: Some("3".into()),
            clients: Some("fetch,xhr".into()),
            mode: Some("both".into()),
            concurrency: Some("1,8".into()),
            autorun: true,
            imports: vec!["/results/a b.json".into(), "http://h/r.json?v=1&w=2".into()],
        }
    }

    #[test]
    fn a_query_round_trips_through_its_string() {
        let q = full();
        let text = q.to_query();
        assert!(
            text.starts_with("target=http%3A%2F%2F127.0.0.1%3A4000%2Fbytes%2F10%3Fx%3D1%26close%3D0&n=200"),
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
    }
}
