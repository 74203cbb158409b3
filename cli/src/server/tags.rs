//! The connections per case tag (`conns=TAG` in a request's query, [`httpbench_shared::protocol::case_tag`]):
//! each connection remembers the tags it has carried, and the server counts, per tag, the connections that
//! carried it, so `GET /stats/connections?tag=TAG` tells how many distinct connections served a case even
//! when its client shares them with other cases (a browser's one pool). Bounded: a run has a few hundred
//! cases at most, so tags beyond [`MAX_TAGS`] (or a connection's beyond [`MAX_TAGS_PER_CONNECTION`]) are not
//! counted rather than grow the server's memory without end.

use std::collections::HashMap;
use std::sync::Mutex;

/// Most tags the server counts.
pub const MAX_TAGS: usize = 4096;
/// Most tags one connection remembers.
pub const MAX_TAGS_PER_CONNECTION: usize = 256;

/// The tags one connection has carried.
#[derive(Debug, Default)]
pub struct Seen(Mutex<Vec<Box<str>>>);

/// Connections per tag, over the server's life.
#[derive(Debug, Default)]
pub struct Tally(Mutex<HashMap<Box<str>, u64>>);

impl Tally {
    /// A request tagged `tag` came on the connection that has carried `seen`: count the connection for the
    /// tag the first time it carries it.
    pub fn note(&self, seen: &Seen, tag: &str) {
        let mut carried = seen.0.lock().unwrap_or_else(|e| e.into_inner());
        if carried.iter().any(|t| **t == *tag) || carried.len() >= MAX_TAGS_PER_CONNECTION {
            return;
        }
        carried.push(tag.into());
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = counts.get_mut(tag) {
            *n += 1;
        } else if counts.len() < MAX_TAGS {
            counts.insert(tag.into(), 1);
        }
    }

    /// The connections that carried `tag` so far (0 for a tag never seen).
    pub fn count(&self, tag: &str) -> u64 {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(tag).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_counts_once_per_tag_however_often_it_carries_it() {
        let tally = Tally::default();
        let (a, b) = (Seen::default(), Seen::default());
        for _ in 0..3 {
            tally.note(&a, "fetch.reuse.c1");
        }
        tally.note(&a, "xhr.reuse.c1");
        tally.note(&b, "fetch.reuse.c1");
        tally.note(&a, "fetch.reuse.c1");
        assert_eq!(tally.count("fetch.reuse.c1"), 2);
        assert_eq!(tally.count("xhr.reuse.c1"), 1);
        assert_eq!(tally.count("never"), 0);
    }

    #[test]
    fn tags_past_the_bounds_are_not_counted() {
        let tally = Tally::default();
        let seen = Seen::default();
        for i in 0..MAX_TAGS_PER_CONNECTION + 1 {
            tally.note(&seen, &format!("t{i}"));
        }
        assert_eq!(tally.count(&format!("t{}", MAX_TAGS_PER_CONNECTION - 1)), 1);
        assert_eq!(tally.count(&format!("t{MAX_TAGS_PER_CONNECTION}")), 0);
        for i in 0..MAX_TAGS + 10 {
            tally.note(&Seen::default(), &format!("u{i}"));
        }
        assert_eq!(tally.0.lock().unwrap().len(), MAX_TAGS);
    }
}
