//! The emulated network link between clients and the embedded server as users type it (`--link
//! rtt=40ms,loss=1%,rate=20mbit`, a named profile such as `4g`, or a scan such as `rtt=0,20ms,80ms`): its
//! parser, the named profiles, and how a link is named in a case label and in a result file.

use thiserror::Error;

use super::parse_duration;

/// Longest round trip a link may add: 10 s (a satellite hop is 0.6 s).
const MAX_RTT_US: u64 = 10_000_000;
/// Slowest bandwidth a link may have, in kbit/s: below it a single request's headers take seconds.
const MIN_RATE_KBIT: u64 = 64;
/// Fastest bandwidth a link may be limited to, in kbit/s (100 Gbit/s).
const MAX_RATE_KBIT: u64 = 100_000_000;
/// Most links one `--link` may scan: each multiplies the run's cases.
pub const MAX_LINKS: usize = 32;

/// An emulated link: what is added to every packet between the clients and the embedded server, both
/// directions, TCP and UDP alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Link {
    /// Round-trip time added, in microseconds: half of it to each packet in each direction.
    pub rtt_us: u64,
    /// Jitter of each one-way delay, in microseconds: each packet's delay is drawn uniformly within ± this
    /// (at most half the round trip; packets are never reordered).
    pub jitter_us: u64,
    /// Packets dropped at random, in each direction, in parts per million (1% = 10000).
    pub loss_ppm: u32,
    /// Bandwidth from the server to the clients, in kbit/s (`None`: not limited).
    pub down_kbit: Option<u64>,
    /// Bandwidth from the clients to the server, in kbit/s (`None`: not limited).
    pub up_kbit: Option<u64>,
}

/// A named link: `--link 4g`.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// The name `--link` takes.
    pub name: &'static str,
    /// What it stands for, for `--help` and the guide.
    pub about: &'static str,
    /// The link.
    pub link: Link,
}

const fn profile(name: &'static str, about: &'static str, rtt_ms: u64, down: u64, up: u64, loss_ppm: u32) -> Profile {
    let link = Link { rtt_us: rtt_ms * 1000, jitter_us: 0, loss_ppm, down_kbit: Some(down), up_kbit: Some(up) };
    Profile { name, about, link }
}

/// The named links. The first six are WebPageTest's connectivity profiles (round trip, down, up); the last
/// is this project's own, for loss at a speed where it, not the bandwidth, decides.
pub const PROFILES: &[Profile] = &[
    profile("3g", "WebPageTest's 3G: 300 ms, 1.6 Mbit/s down, 768 kbit/s up", 300, 1600, 768, 0),
    profile("3g-fast", "WebPageTest's 3G Fast: 150 ms, 1.6 Mbit/s down, 768 kbit/s up", 150, 1600, 768, 0),
    profile("4g", "WebPageTest's 4G: 170 ms, 9 Mbit/s both ways", 170, 9000, 9000, 0),
    profile("lte", "WebPageTest's LTE: 70 ms, 12 Mbit/s both ways", 70, 12_000, 12_000, 0),
    profile("dsl", "WebPageTest's DSL: 50 ms, 1.5 Mbit/s down, 384 kbit/s up", 50, 1500, 384, 0),
    profile("cable", "WebPageTest's Cable: 28 ms, 5 Mbit/s down, 1 Mbit/s up", 28, 5000, 1000, 0),
    profile("lossy-wifi", "20 ms, 2% loss each way, 30 Mbit/s both ways", 20, 30_000, 30_000, 20_000),
];

/// A `--link` that cannot be used, named with what to give instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LinkError {
    /// Neither a profile nor `key=value`.
    #[error("'{0}' is neither a link profile ({profiles}) nor KEY=VALUE (rtt, jitter, loss, rate, up), e.g. rtt=40ms,loss=1%,rate=20mbit", profiles = profile_names())]
    Word(String),
    /// A key no link has.
    #[error("'{0}' is not a link setting: give rtt, jitter, loss, rate (both ways, or down only with up=) or up")]
    Key(String),
    /// A value its key does not take.
    #[error("{key}={value}: {why}")]
    Value {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What it must be.
        why: &'static str,
    },
    /// A setting that makes no link with the others.
    #[error("{0}")]
    Combination(String),
    /// Too many links.
    #[error("--link scans {0} links; at most {MAX_LINKS}: each one is a case of every client")]
    TooMany(usize),
    /// Nothing given.
    #[error("--link names no link: give a profile ({profiles}) or settings, e.g. rtt=40ms", profiles = profile_names())]
    Empty,
}

fn profile_names() -> String {
    PROFILES.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// The settings a `--link` list may scan, in the order a label names them.
const KEYS: [&str; 5] = ["rtt", "jitter", "loss", "rate", "up"];

/// Read `--link`: profiles and `KEY=VALUE` settings, comma-separated; a value without a key continues the
/// list of the key before it (`rtt=0,20ms,80ms` is three links). Every combination of the profiles (or a
/// link of no delay) and each key's values is a link, in the order given.
pub fn parse_links(raw: &str) -> Result<Vec<Link>, LinkError> {
    let mut profiles: Vec<Link> = Vec::new();
    let mut values: Vec<(&'static str, Vec<String>)> = Vec::new();
    for word in raw.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word.split_once('=') {
            Some((key, value)) => {
                let key = KEYS.iter().find(|k| key.trim().eq_ignore_ascii_case(k));
                let key = *key.ok_or_else(|| LinkError::Key(word.to_string()))?;
                if values.iter().any(|(k, _)| *k == key) {
                    return Err(LinkError::Combination(format!(
                        "{key}= is given twice: list its values after one {key}=, e.g. rtt=0,20ms,80ms"
                    )));
                }
                values.push((key, vec![value.trim().to_string()]));
            }
            None => match (values.last_mut(), PROFILES.iter().find(|p| p.name.eq_ignore_ascii_case(word))) {
                (None, Some(p)) => profiles.push(p.link),
                (Some((_, list)), None) => list.push(word.to_string()),
                (Some((key, _)), Some(p)) => {
                    return Err(LinkError::Combination(format!(
                        "profile {} after {key}=: name profiles first, then the settings they change",
                        p.name
                    )))
                }
                (None, None) => return Err(LinkError::Word(word.to_string())),
            },
        }
    }
    if profiles.is_empty() && values.is_empty() {
        return Err(LinkError::Empty);
    }
    if profiles.is_empty() {
        profiles.push(Link { rtt_us: 0, jitter_us: 0, loss_ppm: 0, down_kbit: None, up_kbit: None });
    }
    let mut links = profiles;
    for (key, list) in &values {
        let mut next = Vec::new();
        for link in &links {
            for value in list {
                next.push(set(*link, key, value)?);
            }
        }
        links = next;
        if links.len() > MAX_LINKS {
            return Err(LinkError::TooMany(links.len()));
        }
    }
    let mut out: Vec<Link> = Vec::new();
    for link in links {
        check(&link)?;
        if !out.contains(&link) {
            out.push(link);
        }
    }
    Ok(out)
}

/// `link` with `key` set to `value`.
fn set(mut link: Link, key: &str, value: &str) -> Result<Link, LinkError> {
    let bad = |why| LinkError::Value { key: key.to_string(), value: value.to_string(), why };
    match key {
        "rtt" => {
            link.rtt_us = micros(value)
                .filter(|us| *us <= MAX_RTT_US)
                .ok_or_else(|| bad("give a time up to 10 s, e.g. 0, 40ms, 1.5ms"))?
        }
        "jitter" => {
            link.jitter_us = micros(value)
                .filter(|us| *us <= MAX_RTT_US)
                .ok_or_else(|| bad("give a time up to 10 s, e.g. 0 or 5ms"))?
        }
        "loss" => link.loss_ppm = ppm(value).ok_or_else(|| bad("give a percentage below 50%, e.g. 0, 0.5%, 2%"))?,
        "rate" => {
            let rate = kbit(value).ok_or_else(|| {
                bad("give a bandwidth with its unit, e.g. 500kbit, 20mbit, 1gbit (from 64kbit), or none")
            })?;
            link.down_kbit = rate;
            link.up_kbit = rate;
        }
        _ => {
            link.up_kbit =
                kbit(value).ok_or_else(|| bad("give a bandwidth with its unit, e.g. 768kbit (from 64kbit), or none"))?
        }
    }
    Ok(link)
}

/// A link's settings that cannot go together.
fn check(link: &Link) -> Result<(), LinkError> {
    if link.jitter_us.saturating_mul(2) > link.rtt_us {
        return Err(LinkError::Combination(format!(
            "jitter={} is more than half of rtt={}: a one-way delay cannot go below zero; give rtt at least twice the jitter",
            time_label(link.jitter_us),
            time_label(link.rtt_us)
        )));
    }
    Ok(())
}

/// Microseconds of a time as `--link` takes it: `0`, or a duration with its unit.
fn micros(value: &str) -> Option<u64> {
    if value.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == 'µ') == "0" {
        return Some(0);
    }
    let d = parse_duration(value).ok()?;
    // A bare number is seconds to parse_duration; a link's times are always given with their unit.
    value.ends_with(|c: char| c.is_ascii_alphabetic()).then_some(u64::try_from(d.as_micros()).ok()?)
}

/// Parts per million of a percentage below 50% (`0` or `1%` or `0.25%`).
fn ppm(value: &str) -> Option<u32> {
    if value == "0" {
        return Some(0);
    }
    let percent: f64 = value.strip_suffix('%')?.trim().parse().ok()?;
    (percent.is_finite() && (0.0..50.0).contains(&percent)).then(|| (percent * 10_000.0).round() as u32)
}

/// Kbit/s of a bandwidth (`500kbit`, `20mbit`, `1.5mbit`, `1gbit`), or `None` for `none`/`0` (not limited).
fn kbit(value: &str) -> Option<Option<u64>> {
    let lower = value.to_ascii_lowercase();
    if lower == "none" || lower == "0" {
        return Some(None);
    }
    let units = [("kbit", 1.0), ("mbit", 1000.0), ("gbit", 1_000_000.0)];
    let (number, scale) = units.iter().find_map(|(u, s)| Some((lower.strip_suffix(u)?, *s)))?;
    let n: f64 = number.trim().parse().ok()?;
    let k = (n * scale).round();
    (k.is_finite() && (MIN_RATE_KBIT as f64..=MAX_RATE_KBIT as f64).contains(&k)).then_some(Some(k as u64))
}

/// `40ms`, `1.5ms`, `250us`, `0`.
fn time_label(us: u64) -> String {
    match us {
        0 => "0".into(),
        us if us % 1000 == 0 => format!("{}ms", us / 1000),
        us if us >= 1000 => format!("{}ms", us as f64 / 1000.0),
        us => format!("{us}us"),
    }
}

/// `20mbit`, `768kbit`, `1.6mbit`.
fn rate_label(kbit: u64) -> String {
    match kbit {
        k if k % 1_000_000 == 0 => format!("{}gbit", k / 1_000_000),
        k if k >= 1000 => format!("{}mbit", k as f64 / 1000.0),
        k => format!("{k}kbit"),
    }
}

impl Link {
    /// The link as `--link` takes it back: `rtt=40ms,loss=1%,rate=20mbit` (settings at their default left
    /// out but the round trip).
    pub fn spec(&self) -> String {
        let mut parts = vec![format!("rtt={}", time_label(self.rtt_us))];
        if self.jitter_us > 0 {
            parts.push(format!("jitter={}", time_label(self.jitter_us)));
        }
        if self.loss_ppm > 0 {
            parts.push(format!("loss={}%", self.loss_ppm as f64 / 10_000.0));
        }
        if let Some(down) = self.down_kbit {
            parts.push(format!("rate={}", rate_label(down)));
        }
        if self.up_kbit != self.down_kbit {
            parts.push(format!("up={}", self.up_kbit.map_or_else(|| "none".to_string(), rate_label)));
        }
        parts.join(",")
    }

    /// How a case label names the link: `rtt40ms`, `rtt20ms±5ms+loss2%+30mbit`, `rtt170ms+9mbit`,
    /// `rtt300ms+1.6mbit/768kbit` (down/up).
    pub fn label(&self) -> String {
        let mut label = format!("rtt{}", time_label(self.rtt_us));
        if self.jitter_us > 0 {
            label += &format!("±{}", time_label(self.jitter_us));
        }
        if self.loss_ppm > 0 {
            label += &format!("+loss{}%", self.loss_ppm as f64 / 10_000.0);
        }
        match (self.down_kbit, self.up_kbit) {
            (None, None) => {}
            (Some(d), Some(u)) if d == u => label += &format!("+{}", rate_label(d)),
            (d, u) => {
                let show = |k: Option<u64>| k.map_or_else(|| "any".to_string(), rate_label);
                label += &format!("+{}/{}", show(d), show(u));
            }
        }
        label
    }

    /// The one-way delay of each packet, in microseconds (half the round trip).
    pub fn one_way_us(&self) -> u64 {
        self.rtt_us / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(rtt_ms: u64) -> Link {
        Link { rtt_us: rtt_ms * 1000, jitter_us: 0, loss_ppm: 0, down_kbit: None, up_kbit: None }
    }

    #[test]
    fn settings_make_one_link_and_its_spec_reads_back_the_same() {
        let links = parse_links("rtt=40ms,loss=1%,rate=20mbit").unwrap();
        let want = Link { loss_ppm: 10_000, down_kbit: Some(20_000), up_kbit: Some(20_000), ..link(40) };
        assert_eq!(links, vec![want]);
        assert_eq!(want.spec(), "rtt=40ms,loss=1%,rate=20mbit");
        assert_eq!(parse_links(&want.spec()).unwrap(), links);
        assert_eq!(want.label(), "rtt40ms+loss1%+20mbit");
    }

    #[test]
    fn a_list_after_a_key_scans_it_and_keys_multiply() {
        assert_eq!(parse_links("rtt=0,20ms,80ms").unwrap(), vec![link(0), link(20), link(80)]);
        let grid = parse_links("rtt=0,20ms,loss=0,1%").unwrap();
        let labels: Vec<String> = grid.iter().map(Link::label).collect();
        assert_eq!(labels, ["rtt0", "rtt0+loss1%", "rtt20ms", "rtt20ms+loss1%"]);
    }

    #[test]
    fn profiles_are_named_and_settings_after_them_change_them() {
        let four = parse_links("4g").unwrap();
        assert_eq!(four[0].label(), "rtt170ms+9mbit");
        let two = parse_links("3g,4g,loss=1%").unwrap();
        assert_eq!(
            two.iter().map(Link::label).collect::<Vec<_>>(),
            ["rtt300ms+loss1%+1.6mbit/768kbit", "rtt170ms+loss1%+9mbit"]
        );
        assert_eq!(parse_links(&two[0].spec()).unwrap(), vec![two[0]]);
    }

    #[test]
    fn bad_input_names_the_value_and_what_to_give() {
        let cases = [
            ("rtt=40", "rtt=40: give a time"),
            ("rtt=11s", "rtt=11s: give a time up to 10 s"),
            ("loss=1", "loss=1: give a percentage"),
            ("loss=60%", "loss=60%: give a percentage below 50%"),
            ("rate=20", "rate=20: give a bandwidth with its unit"),
            ("rate=10kbit", "from 64kbit"),
            ("delay=5ms", "'delay=5ms' is not a link setting"),
            ("5g", "'5g' is neither a link profile (3g, 3g-fast, 4g"),
            ("rtt=10ms,jitter=6ms", "jitter=6ms is more than half of rtt=10ms"),
            ("jitter=99999999999999999s", "give a time up to 10 s"),
            ("rtt=1ms,rtt=2ms", "rtt= is given twice"),
            ("rtt=5ms,4g", "profile 4g after rtt="),
            (",", "--link names no link"),
            ("rtt=1ms,2ms,3ms,4ms,5ms,6ms,loss=0,1%,2%,3%,4%,5%", "--link scans 36 links; at most 32"),
        ];
        for (raw, want) in cases {
            let e = parse_links(raw).unwrap_err().to_string();
            assert!(e.contains(want), "{raw}: {e}");
        }
    }

    #[test]
    fn times_and_rates_keep_their_fractions() {
        let l = parse_links("rtt=1.5ms,jitter=250us,rate=1.5mbit,up=768kbit").unwrap()[0];
        assert_eq!((l.rtt_us, l.jitter_us, l.down_kbit, l.up_kbit), (1500, 250, Some(1500), Some(768)));
        assert_eq!(l.spec(), "rtt=1.5ms,jitter=250us,rate=1.5mbit,up=768kbit");
        assert_eq!(parse_links(&l.spec()).unwrap(), vec![l]);
        assert_eq!(l.one_way_us(), 750);
    }
}
