//! The page's query string: the whole plan of a run (shared's [`RawPlan`], each value under its field's key:
//! `target` and a target per HTTP version, `n`, `duration`, `warmup`, `rounds`, `interleave`, `timeout`,
//! `clients`, `mode`, `http`, `c`, `size`, `delay`), plus what only a page has: `autorun=1` to start at once,
//! `import=URL` for result files to load, `reference=CASE` for the headline's reference (as `--reference`),
//! and `page=ID`, the name a run gives it. `httpbench run --browser`
//! writes it and the page reads it, both through [`PageQuery`], on `form_urlencoded`. Values stay text as
//! typed: the page checks them like its form's, by the one parse, so a bad link gets the form's error message.

use crate::model::HttpVersion;
use crate::session::{Field, RawPlan};

/// The parameters of a page URL; `None` where the query leaves the page's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageQuery {
    /// The plan's values the link sets (`count` is read as `n` too).
    pub plan: RawPlan<Option<String>>,
    /// Start the run as soon as the page has loaded.
    pub autorun: bool,
    /// URLs of result files to import at start (`import=` repeated, or comma-separated).
    pub imports: Vec<String>,
    /// The page's id in a run of `httpbench run --browser` (`page=chromium`): it takes its turns at each pass
    /// ([`super::turn_query`]) and names itself in its posts.
    pub page: Option<String>,
    /// The case the headline compares the others with (`reference=js-fetch`), as `run --reference`; a case
    /// the results do not hold is said under the headline, which falls back to its defaults.
    pub reference: Option<String>,
}

impl PageQuery {
    /// Read a query string, with or without its leading `?`. Unknown parameters are ignored, so links keep
    /// working when parameters are added; a repeated one keeps its last value.
    pub fn parse(search: &str) -> Self {
        let mut q = PageQuery::default();
        for (key, value) in form_urlencoded::parse(search.trim_start_matches('?').as_bytes()) {
            let value = value.into_owned();
            let key = if key == "count" { Field::Count.key() } else { key.as_ref() };
            if let Some((_, slot)) = q.plan.values_mut().into_iter().find(|(f, _)| f.key() == key) {
                *slot = Some(value);
                continue;
            }
            match key {
                "page" => q.page = Some(value),
                "reference" => q.reference = Some(value).filter(|v| !v.is_empty()),
                "autorun" => q.autorun = value == "1" || value == "true",
                "import" => q.imports.extend(value.split(',').filter(|u| !u.is_empty()).map(str::to_string)),
                other => {
                    let version = other.strip_prefix("target_").and_then(version_of_short);
                    if let Some(http) = version {
                        q.plan.targets.retain(|(v, _)| *v != http);
                        q.plan.targets.push((http, value));
                    }
                }
            }
        }
        q
    }

    /// The query string without its `?`: every parameter that is set, percent-encoded.
    pub fn to_query(&self) -> String {
        let mut s = form_urlencoded::Serializer::new(String::new());
        for (field, value) in self.plan.values() {
            if let Some(v) = value {
                s.append_pair(field.key(), v);
            }
            if field == Field::Target {
                for (http, url) in &self.plan.targets {
                    s.append_pair(&format!("target_{}", http.short()), url);
                }
            }
        }
        if let Some(v) = &self.page {
            s.append_pair("page", v);
        }
        if let Some(v) = &self.reference {
            s.append_pair("reference", v);
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
        let plan = RawPlan {
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
        };
        PageQuery {
            plan,
            autorun: true,
            imports: vec!["/results/a b.json".into(), "http://h/r.json?v=1&w=2".into()],
            page: Some("firefox".into()),
            reference: Some("native/curl".into()),
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
        assert!(text.ends_with("&autorun=1") && text.contains("&reference=native%2Fcurl&"), "{text}");
        assert_eq!(PageQuery::parse(&format!("?{text}")), q);
        assert_eq!(PageQuery::parse(""), PageQuery::default());
        assert_eq!(PageQuery::default().to_query(), "");
    }

    #[test]
    fn hand_written_links_decode_and_unknown_keys_are_ignored() {
        let q = PageQuery::parse("?count=7&clients=fetch%2Cxhr&mode=reuse&autorun=true&import=/a.json,/b.json&x=y&n=9");
        assert_eq!(q.plan.count.as_deref(), Some("9"), "the last value wins");
        assert_eq!(q.plan.clients.as_deref(), Some("fetch,xhr"));
        assert_eq!(q.plan.mode.as_deref(), Some("reuse"));
        assert!(q.autorun);
        assert_eq!(q.imports, ["/a.json", "/b.json"]);
        assert_eq!(PageQuery::parse("target=a+b%zz").plan.target.as_deref(), Some("a b%zz"));
        let q = PageQuery::parse("target_h2=x&target_h4=y&target_h2=z&target_h3=w");
        let kept = [(HttpVersion::Http2, "z".to_string()), (HttpVersion::Http3, "w".to_string())];
        assert_eq!(q.plan.targets, kept, "known versions only, the last kept");
    }
}
