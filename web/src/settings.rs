//! The page's run settings: their defaults, reading them from the query string (`?target=&n=&warmup=&rounds=
//! &clients=&mode=&autorun=1`, so a headless driver can start a run), and checking them before any request.
//! Pure: it never touches the browser, so it is tested natively.

use httpbench_shared::schedule::Plan;
use httpbench_shared::Mode;

/// The browser clients of this build, in report order; the names are the `client` values of the result file.
#[cfg(feature = "reqwest")]
pub const CLIENTS: [&str; 5] = ["fetch", "gloo-net", "xhr", "reqwest", "js-fetch"];
/// The browser clients of this build, in report order; the names are the `client` values of the result file.
/// (`reqwest` needs the cargo feature of that name.)
#[cfg(not(feature = "reqwest"))]
pub const CLIENTS: [&str; 4] = ["fetch", "gloo-net", "xhr", "js-fetch"];

/// Largest count, warm-up and rounds the page accepts: a typo must not start a day-long run.
pub const MAX_COUNT: u64 = 1_000_000;
/// Largest number of rounds.
pub const MAX_ROUNDS: u32 = 100;

/// Checked settings of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSettings {
    /// The URL every client GETs (in fresh mode with `close=1` added).
    pub target: String,
    /// Measured requests per case.
    pub count: u64,
    /// Requests per case before measuring.
    pub warmup: u64,
    /// Rounds per case, run round-robin across cases.
    pub rounds: u32,
    /// Client names, a subset of [`CLIENTS`] in that order.
    pub clients: Vec<String>,
    /// Connection modes, fresh before reuse.
    pub modes: Vec<Mode>,
}

impl RunSettings {
    /// The shared schedule these settings describe: the CLI's, interleaved.
    pub fn plan(&self) -> Plan {
        Plan { count: Some(self.count), duration: None, warmup: self.warmup, rounds: self.rounds, interleave: true }
    }
}

/// The form's raw values (strings, as typed), before checking.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSettings {
    /// Target URL.
    pub target: String,
    /// Count, as typed.
    pub count: String,
    /// Warm-up, as typed.
    pub warmup: String,
    /// Rounds, as typed.
    pub rounds: String,
    /// Comma-separated client names, or `all`.
    pub clients: String,
    /// `fresh`, `reuse` or `both`.
    pub mode: String,
    /// Start the run as soon as the page has loaded.
    pub autorun: bool,
}

impl RawSettings {
    /// The defaults, with the target at `origin` + `/` (a page opened from a file has no usable origin).
    pub fn defaults(origin: &str) -> Self {
        let target = if origin.starts_with("http") { format!("{origin}/") } else { "http://127.0.0.1:8080/".into() };
        RawSettings {
            target,
            count: "500".into(),
            warmup: "20".into(),
            rounds: "5".into(),
            clients: "all".into(),
            mode: "both".into(),
            autorun: false,
        }
    }

    /// The defaults overridden by the query string `search` (with or without its leading `?`). Unknown
    /// parameters are ignored, so links keep working when parameters are added.
    pub fn from_query(origin: &str, search: &str) -> Self {
        let mut s = Self::defaults(origin);
        for (key, value) in search.trim_start_matches('?').split('&').filter_map(|kv| kv.split_once('=')) {
            let value = decode(value);
            match key {
                "target" => s.target = value,
                "n" | "count" => s.count = value,
                "warmup" => s.warmup = value,
                "rounds" => s.rounds = value,
                "clients" => s.clients = value,
                "mode" => s.mode = value,
                "autorun" => s.autorun = value == "1" || value == "true",
                _ => {}
            }
        }
        s
    }

    /// Check every value; the error names the field and the bad value.
    pub fn check(&self) -> Result<RunSettings, String> {
        let target = self.target.trim().to_string();
        if !(target.starts_with("http://") || target.starts_with("https://")) || target.len() < 10 {
            return Err(format!("target URL '{target}' is not an http:// or https:// URL"));
        }
        Ok(RunSettings {
            target,
            count: number("count", &self.count, 1, MAX_COUNT)?,
            warmup: number("warm-up", &self.warmup, 0, MAX_COUNT)?,
            rounds: number("rounds", &self.rounds, 1, u64::from(MAX_ROUNDS))? as u32,
            clients: clients(&self.clients)?,
            modes: modes(&self.mode)?,
        })
    }
}

fn number(field: &str, text: &str, min: u64, max: u64) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("{field} '{}' must be a whole number from {min} to {max}", text.trim())),
    }
}

fn clients(text: &str) -> Result<Vec<String>, String> {
    let wanted: Vec<&str> = text.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if wanted == ["all"] {
        return Ok(CLIENTS.iter().map(|c| c.to_string()).collect());
    }
    if let Some(bad) = wanted.iter().find(|w| !CLIENTS.contains(w)) {
        return Err(format!("unknown client '{bad}': expected some of {} or all", CLIENTS.join(", ")));
    }
    let chosen: Vec<String> = CLIENTS.iter().filter(|c| wanted.contains(c)).map(|c| c.to_string()).collect();
    if chosen.is_empty() {
        return Err("choose at least one client".into());
    }
    Ok(chosen)
}

fn modes(text: &str) -> Result<Vec<Mode>, String> {
    match text.trim() {
        "fresh" => Ok(vec![Mode::Fresh]),
        "reuse" => Ok(vec![Mode::Reuse]),
        "both" => Ok(vec![Mode::Fresh, Mode::Reuse]),
        other => Err(format!("mode '{other}' must be fresh, reuse or both")),
    }
}

/// The URL a client requests in `mode`: fresh mode asks the server to close the connection after the response.
pub fn url_for(target: &str, mode: Mode) -> String {
    match mode {
        Mode::Reuse => target.to_string(),
        Mode::Fresh if target.contains('?') => format!("{target}&close=1"),
        Mode::Fresh => format!("{target}?close=1"),
    }
}

/// Percent-decoding of a query value (`+` is a space); invalid escapes are kept as they are.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(b) => {
                    out.push(b);
                    i += 2;
                }
                None => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_overrides_defaults_and_decodes() {
        let s = RawSettings::from_query(
            "http://127.0.0.1:9000",
            "?target=http%3A%2F%2F127.0.0.1%3A8080%2Fbytes%2F10&n=40&warmup=2&rounds=2&clients=fetch,xhr&mode=reuse&autorun=1",
        );
        assert!(s.autorun);
        let r = s.check().unwrap();
        assert_eq!(r.target, "http://127.0.0.1:8080/bytes/10");
        assert_eq!((r.count, r.warmup, r.rounds), (40, 2, 2));
        assert_eq!(r.clients, vec!["fetch", "xhr"]);
        assert_eq!(r.modes, vec![Mode::Reuse]);
        let d = RawSettings::defaults("http://127.0.0.1:9000").check().unwrap();
        assert_eq!(d.target, "http://127.0.0.1:9000/");
        assert_eq!(d.clients.len(), CLIENTS.len());
        assert_eq!(d.modes, vec![Mode::Fresh, Mode::Reuse]);
        assert_eq!(RawSettings::defaults("null").target, "http://127.0.0.1:8080/");
    }

    #[test]
    fn bad_values_are_named() {
        let base = RawSettings::defaults("http://h:1");
        let err = |f: fn(&mut RawSettings)| {
            let mut s = base.clone();
            f(&mut s);
            s.check().unwrap_err()
        };
        assert_eq!(err(|s| s.count = "0".into()), "count '0' must be a whole number from 1 to 1000000");
        assert!(err(|s| s.rounds = "x".into()).starts_with("rounds 'x'"));
        assert!(err(|s| s.clients = "curl".into()).starts_with("unknown client 'curl'"));
        assert!(err(|s| s.mode = "new".into()).starts_with("mode 'new'"));
        assert!(err(|s| s.target = "ftp://x/".into()).contains("'ftp://x/'"));
    }

    #[test]
    fn fresh_urls_ask_the_server_to_close() {
        assert_eq!(url_for("http://h/", Mode::Fresh), "http://h/?close=1");
        assert_eq!(url_for("http://h/?a=1", Mode::Fresh), "http://h/?a=1&close=1");
        assert_eq!(url_for("http://h/", Mode::Reuse), "http://h/");
        assert_eq!(decode("a%2Fb+c%zz"), "a/b c%zz");
    }
}
