//! The load dimensions as users type them and as the embedded server reads them: concurrency levels
//! (`-c 1,4,16`), body sizes (`--body-size 0,1k,64k,1m`) and server think times (`--server-delay 0,5ms`), each a
//! list whose every value is a case; how a level is named in a case label (`c16`, `64k`, `d5ms`); and the
//! target path and query that ask the embedded server for a body size and a delay (`/bytes/N`, `delay_ms=N`).

use thiserror::Error;

use super::parse_duration;

/// Most requests in flight per case: beyond it a loopback benchmark measures the scheduler, not the client.
pub const MAX_CONCURRENCY: u32 = 4096;

/// Largest body size a case may ask the embedded server for (1 GiB per response).
pub const MAX_BODY_BYTES: u64 = 1 << 30;

/// Longest think time the embedded server may be asked for, in milliseconds (a minute).
pub const MAX_DELAY_MS: u64 = 60_000;

/// A list value that cannot be used, named with what to give instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LoadError {
    /// Not a concurrency level.
    #[error("'{0}' is not a concurrency level: give whole numbers from 1 to {MAX_CONCURRENCY}, e.g. 1,4,16")]
    Concurrency(String),
    /// Not a body size.
    #[error(
        "'{0}' is not a body size: give bytes with an optional k or m (1024 and 1048576), e.g. 0,1k,64k,1m; at most 1g"
    )]
    Size(String),
    /// Not a delay.
    #[error("'{0}' is not a server delay: give whole milliseconds, e.g. 0, 5ms, 1s (at most a minute)")]
    Delay(String),
    /// Nothing but commas.
    #[error("'{0}' names no value: give at least one")]
    Empty(String),
}

/// Split a comma-separated list into its values, each read by `one`, in the order given without repeats.
fn list<T: PartialEq>(raw: &str, one: impl Fn(&str) -> Result<T, LoadError>) -> Result<Vec<T>, LoadError> {
    let mut out = Vec::new();
    for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let v = one(part)?;
        if !out.contains(&v) {
            out.push(v);
        }
    }
    if out.is_empty() {
        return Err(LoadError::Empty(raw.to_string()));
    }
    Ok(out)
}

/// Read `-c`: concurrency levels, each from 1 to [`MAX_CONCURRENCY`].
pub fn parse_concurrency(raw: &str) -> Result<Vec<u32>, LoadError> {
    list(raw, |p| match p.parse::<u32>() {
        Ok(n) if (1..=MAX_CONCURRENCY).contains(&n) => Ok(n),
        _ => Err(LoadError::Concurrency(p.to_string())),
    })
}

/// Read `--body-size`: byte counts, with `k` (1024) or `m` (1048576) or `g` suffixes, at most [`MAX_BODY_BYTES`].
pub fn parse_sizes(raw: &str) -> Result<Vec<u64>, LoadError> {
    list(raw, |p| {
        let err = || LoadError::Size(p.to_string());
        let lower = p.to_ascii_lowercase();
        let suffixes = [("k", 1u64 << 10), ("m", 1 << 20), ("g", 1 << 30)];
        let (digits, scale) = suffixes
            .iter()
            .find_map(|(s, scale)| Some((lower.strip_suffix(s)?, *scale)))
            .unwrap_or((lower.as_str(), 1));
        let n: u64 = digits.parse().map_err(|_| err())?;
        n.checked_mul(scale).filter(|b| *b <= MAX_BODY_BYTES).ok_or_else(err)
    })
}

/// Read `--server-delay`: think times in whole milliseconds (`0` for none), at most [`MAX_DELAY_MS`].
pub fn parse_delays(raw: &str) -> Result<Vec<u64>, LoadError> {
    list(raw, |p| {
        let err = || LoadError::Delay(p.to_string());
        if p.trim_end_matches("ms").trim_end_matches('s') == "0" {
            return Ok(0);
        }
        let d = parse_duration(p).map_err(|_| err())?;
        if d.subsec_nanos() % 1_000_000 != 0 {
            return Err(err());
        }
        u64::try_from(d.as_millis()).ok().filter(|ms| *ms <= MAX_DELAY_MS).ok_or_else(err)
    })
}

/// A body size as labels show it: `512`, `1k`, `64k`, `1m` (exact multiples of 1024 get the suffix).
pub fn size_label(bytes: u64) -> String {
    let (n, suffix) = match bytes {
        0 => (0, ""),
        b if b % (1 << 30) == 0 => (b >> 30, "g"),
        b if b % (1 << 20) == 0 => (b >> 20, "m"),
        b if b % (1 << 10) == 0 => (b >> 10, "k"),
        b => (b, ""),
    };
    n.to_string() + suffix
}

/// The target `base` (the embedded server's URL, ending in `/`) asking for `body_bytes` of body and a think
/// time of `delay_ms`: `/bytes/N` for a size (else `base`'s own path), `delay_ms=N` in the query for a delay.
pub fn load_url(base: &str, body_bytes: Option<u64>, delay_ms: Option<u64>) -> String {
    let url = match body_bytes {
        Some(n) => format!("{}/bytes/{n}", base.trim_end_matches('/')),
        None => base.to_string(),
    };
    match delay_ms.filter(|ms| *ms > 0) {
        Some(ms) => super::with_param(&url, &format!("delay_ms={ms}")),
        None => url,
    }
}

/// The think time a request's query asks the embedded server for: `delay_ms=N`, at most [`MAX_DELAY_MS`]
/// (`None` for none, or a value that is not a number of milliseconds in range). On the server's hot path: a
/// plain scan, no decoding.
pub fn asks_for_delay(query: Option<&str>) -> Option<u64> {
    let ms = query?.split('&').find_map(|kv| kv.strip_prefix("delay_ms="))?.parse::<u64>().ok()?;
    (ms <= MAX_DELAY_MS).then_some(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_in_order_without_repeats_and_refuse_bad_values_by_name() {
        assert_eq!(parse_concurrency("1, 4,16,4"), Ok(vec![1, 4, 16]));
        assert_eq!(parse_concurrency("0"), Err(LoadError::Concurrency("0".into())));
        assert_eq!(parse_concurrency("4,x"), Err(LoadError::Concurrency("x".into())));
        assert_eq!(parse_concurrency(","), Err(LoadError::Empty(",".into())));
        assert_eq!(parse_sizes("0,1k,64K,1m,1g"), Ok(vec![0, 1024, 65536, 1 << 20, 1 << 30]));
        assert!(parse_sizes("2g").unwrap_err().to_string().contains("'2g'"));
        assert_eq!(parse_sizes("1.5k"), Err(LoadError::Size("1.5k".into())));
        assert_eq!(parse_delays("0,5ms,1s"), Ok(vec![0, 5, 1000]));
        assert_eq!(parse_delays("500us"), Err(LoadError::Delay("500us".into())));
        assert_eq!(parse_delays("2m"), Err(LoadError::Delay("2m".into())));
    }

    #[test]
    fn labels_and_the_servers_half() {
        let labels: Vec<String> = [0, 512, 1024, 65536, 1 << 20, 1536].into_iter().map(size_label).collect();
        assert_eq!(labels, ["0", "512", "1k", "64k", "1m", "1536"]);
        assert_eq!(load_url("http://h:1/", Some(1024), Some(5)), "http://h:1/bytes/1024?delay_ms=5");
        assert_eq!(load_url("http://h:1/", None, Some(0)), "http://h:1/");
        assert_eq!(load_url("http://h:1/?a=b", None, Some(7)), "http://h:1/?a=b&delay_ms=7");
        assert_eq!(asks_for_delay(Some("close=1&delay_ms=5")), Some(5));
        assert_eq!(asks_for_delay(Some("delay_ms=600000")), None);
        assert_eq!(asks_for_delay(Some("xdelay_ms=5")), None);
        assert_eq!(asks_for_delay(None), None);
    }
}
