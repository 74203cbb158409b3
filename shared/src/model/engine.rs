//! The browser engines httpbench runs the page in (`run --browser chromium,firefox,webkit`), what their HTTP
//! stacks cannot speak, and which engine a browser report came from: read off the user agent the page
//! recorded, so files written before engines were a dimension (a v3 file's `browser/...` cases, from
//! Chromium) read as they ran, with no field to add.

use std::fmt;

use super::{Environment, EnvironmentKind, HttpVersion};

/// A browser engine, each with its own HTTP stack (Chromium's //net, Firefox's Necko, WebKitGTK's libsoup).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Engine {
    /// Chromium or Chrome (and the other browsers built on it).
    Chromium,
    /// Firefox (Gecko).
    Firefox,
    /// WebKit as WebKitGTK builds it, over libsoup: not Safari, whose network stack (Apple's) differs. A page
    /// opened by hand in Safari reads as this engine too (its user agent cannot tell them apart).
    Webkit,
}

impl Engine {
    /// The engines `run --browser` can start, in the order `--browser all` runs them.
    pub const STARTED: [Engine; 3] = [Engine::Chromium, Engine::Firefox, Engine::Webkit];

    /// Why this engine's HTTP stack cannot run cases over `http`, if it cannot: the one home of that fact, for
    /// the CLI's plan and the page's alike.
    pub fn cannot_speak(self, http: HttpVersion) -> Option<&'static str> {
        match (self, http) {
            (Engine::Webkit, HttpVersion::Http3) => Some("WebKitGTK's network stack, libsoup, has no HTTP/3"),
            _ => None,
        }
    }

    /// The lowercase name that prefixes this engine's cases (`firefox/fetch/reuse`).
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
            Engine::Webkit => "webkit",
        }
    }

    /// The engine a `navigator.userAgent` names, with its version as the user agent gives it (Chromium's
    /// reduced user agent gives only the major version: `156.0.0.0`). Firefox says `Firefox/153.0`; WebKit
    /// says `Safari/...` without Chrome's token, with Safari's version (`Version/18.1`) on Apple's systems and
    /// none of its own in WebKitGTK; anything else, and no user agent at all (the
    /// files before engines were a dimension, all from Chromium), is Chromium.
    pub fn of_user_agent(user_agent: Option<&str>) -> (Engine, Option<String>) {
        let ua = user_agent.unwrap_or_default();
        let version_after = |token: &str| {
            let at = ua.find(token)? + token.len();
            let version: String = ua[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
            (!version.is_empty()).then_some(version)
        };
        if ua.contains("Firefox/") {
            return (Engine::Firefox, version_after("Firefox/"));
        }
        if let Some(v) = version_after("Chrome/") {
            return (Engine::Chromium, Some(v));
        }
        if ua.contains("Safari/") {
            // WebKitGTK writes a Safari version there that is not its own (2.50.6 says `Version/60.5`): none.
            return (Engine::Webkit, if webkitgtk(ua) { None } else { version_after("Version/") });
        }
        (Engine::Chromium, None)
    }

    /// The engine a page's plan is made for, read off its user agent: what its HTTP stack cannot speak is left
    /// out ([`Engine::cannot_speak`]). Safari is WebKit over Apple's own network stack, which speaks HTTP/3,
    /// so only WebKitGTK (over libsoup) reads as [`Engine::Webkit`] here, and Safari as no engine.
    pub fn of_page(user_agent: &str) -> Option<Engine> {
        match Engine::of_user_agent(Some(user_agent)).0 {
            Engine::Webkit if !webkitgtk(user_agent) => None,
            engine => Some(engine),
        }
    }

    /// The engines named in a `--browser` list (`chromium`, `firefox`, `webkit`, comma-separated, or `all`), in the
    /// order given, each once; an error naming the bad value and what is accepted.
    pub fn parse_list(text: &str) -> Result<Vec<Engine>, String> {
        let mut engines = Vec::new();
        for name in text.split(',').map(str::trim) {
            // `chrome` too: Chrome is a Chromium.
            let named = Engine::STARTED
                .into_iter()
                .find(|e| e.as_str() == name || (name == "chrome" && *e == Engine::Chromium));
            let add: Vec<Engine> = match (name, named) {
                ("all", _) => Engine::STARTED.to_vec(),
                (_, Some(engine)) => vec![engine],
                (_, None) => {
                    let known: Vec<&str> = Engine::STARTED.iter().map(|e| e.as_str()).collect();
                    return Err(format!("unknown browser `{name}`: use {} or all (comma-separated)", known.join(", ")));
                }
            };
            for e in add {
                if !engines.contains(&e) {
                    engines.push(e);
                }
            }
        }
        Ok(engines)
    }
}

/// Whether a WebKit user agent is WebKitGTK's (Linux, X11 or Wayland), not Safari's.
fn webkitgtk(user_agent: &str) -> bool {
    user_agent.contains("X11;") || user_agent.contains("Linux")
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Environment {
    /// The browser engine of a browser report and its version, from its user agent, else as recorded when the
    /// browser was started ([`Environment::browser_version`]); `None` for a native one.
    pub fn engine(&self) -> Option<(Engine, Option<String>)> {
        (self.kind == EnvironmentKind::Browser).then(|| {
            let (engine, version) = Engine::of_user_agent(self.user_agent.as_deref());
            (engine, version.or_else(|| self.browser_version.clone()))
        })
    }

    /// What tells this report's cases apart from another environment's in one view or comparison: `native`,
    /// or the browser engine's name (`chromium`, `firefox`).
    pub fn name(&self) -> &'static str {
        match self.engine() {
            Some((engine, _)) => engine.as_str(),
            None => self.kind.as_str(),
        }
    }

    /// `native`, or the engine with its version (`firefox 153.0`): how a header names where the cases ran.
    pub fn title(&self) -> String {
        match self.engine() {
            Some((engine, Some(version))) => format!("{engine} {version}"),
            _ => self.name().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHROMIUM: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                            HeadlessChrome/156.0.0.0 Safari/537.36";
    const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0";
    const SAFARI: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) \
                          Version/18.1 Safari/605.1.15";

    #[test]
    fn the_user_agent_names_the_engine_and_its_version() {
        assert_eq!(Engine::of_user_agent(Some(CHROMIUM)), (Engine::Chromium, Some("156.0.0.0".into())));
        assert_eq!(Engine::of_user_agent(Some(FIREFOX)), (Engine::Firefox, Some("153.0".into())));
        assert_eq!(Engine::of_user_agent(Some(SAFARI)), (Engine::Webkit, Some("18.1".into())));
        let gtk =
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/60.5 Safari/605.1.15";
        assert_eq!(Engine::of_user_agent(Some(gtk)), (Engine::Webkit, None), "not WebKitGTK's own version");
        // The plan leaves HTTP/3 out in WebKitGTK alone: Safari's own stack speaks it.
        assert_eq!(Engine::of_page(gtk), Some(Engine::Webkit));
        assert_eq!(Engine::of_page(SAFARI), None);
        assert_eq!(Engine::of_page(FIREFOX), Some(Engine::Firefox));
        assert_eq!(Engine::of_user_agent(None), (Engine::Chromium, None), "files before engines: Chromium");
        assert_eq!(Engine::of_user_agent(Some("curl/8")), (Engine::Chromium, None));
    }

    #[test]
    fn a_browser_list_is_read_in_order_once_each() {
        assert_eq!(Engine::parse_list("firefox").unwrap(), [Engine::Firefox]);
        assert_eq!(Engine::parse_list("firefox, chromium,firefox").unwrap(), [Engine::Firefox, Engine::Chromium]);
        assert_eq!(Engine::parse_list("all").unwrap(), Engine::STARTED);
        let e = Engine::parse_list("chromium,safari").unwrap_err();
        assert!(e.contains("`safari`") && e.contains("chromium, firefox, webkit or all"), "{e}");
        assert_eq!(Engine::parse_list("webkit,chrome").unwrap(), [Engine::Webkit, Engine::Chromium]);
    }

    #[test]
    fn only_webkit_leaves_a_version_out_and_says_why() {
        for engine in Engine::STARTED {
            for http in [HttpVersion::Http11, HttpVersion::Http2] {
                assert_eq!(engine.cannot_speak(http), None, "{engine} {http}");
            }
        }
        assert_eq!(Engine::Chromium.cannot_speak(HttpVersion::Http3), None);
        assert_eq!(Engine::Firefox.cannot_speak(HttpVersion::Http3), None);
        assert!(Engine::Webkit.cannot_speak(HttpVersion::Http3).unwrap().contains("no HTTP/3"));
    }
}
