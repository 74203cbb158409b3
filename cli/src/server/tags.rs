//! The connections per case tag (`conns=TAG` in a request's query, [`httpbench_shared::protocol::case_tag`]):
//! each connection remembers the tags it has carried, and the server counts, per tag, the connections that
//! carried it, so `GET /stats/connections?tag=TAG` tells how many distinct connections served a case even
//! when its client shares them with other cases (a browser's one pool). Bounded in size and in time: a run
//! has a few hundred cases at most and reads each case's count right after it, so the table keeps at most
//! [`MAX_TAGS`] tags, forgets a tag untouched for [`IDLE_LIMIT`], and when full makes room by dropping the
//! tag touched longest ago. One page that sends thousands of tags therefore cannot fill the table for the
//! server's life; a connection remembers at most [`MAX_TAGS_PER_CONNECTION`] tags.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Most tags the server counts at once.
pub(super) const MAX_TAGS: usize = 4096;
/// Most tags one connection remembers.
pub(super) const MAX_TAGS_PER_CONNECTION: usize = 256;
/// How long a tag no request carried is kept: far longer than any case's rounds are apart.
pub(super) const IDLE_LIMIT: Duration = Duration::from_secs(10 * 60);

/// The tags one connection has carried.
#[derive(Debug, Default)]
pub(crate) struct Seen(Mutex<Vec<Box<str>>>);

/// One tag's count.
#[derive(Debug, Clone, Copy)]
struct Entry {
    connections: u64,
    touched: Instant,
}

/// Connections per tag, for the tags carried lately.
#[derive(Debug, Default)]
pub(crate) struct Tally(Mutex<HashMap<Box<str>, Entry>>);

impl Tally {
    /// A request tagged `tag` came at `now` on the connection that has carried `seen`: count the connection
    /// for the tag the first time it carries it.
    pub(crate) fn note(&self, seen: &Seen, tag: &str, now: Instant) {
        let mut carried = seen.0.lock().unwrap_or_else(|e| e.into_inner());
        let before = carried.iter().any(|t| **t == *tag);
        // A connection past its own bound is not remembered, so it is not counted either (it would count again
        // on every request).
        let counted = !before && carried.len() < MAX_TAGS_PER_CONNECTION;
        if counted {
            carried.push(tag.into());
        }
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match counts.get_mut(tag) {
            Some(e) => {
                e.touched = now;
                e.connections += u64::from(counted);
            }
            // A tag forgotten while this connection still carries it starts again from this connection.
            None if counted || before => {
                if counts.len() >= MAX_TAGS {
                    make_room(&mut counts, now);
                }
                counts.insert(tag.into(), Entry { connections: 1, touched: now });
            }
            None => {}
        }
    }

    /// The connections that carried `tag` (0 for a tag never seen, or forgotten by `now`).
    pub(crate) fn count(&self, tag: &str, now: Instant) -> u64 {
        let counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        counts.get(tag).filter(|e| !idle(e, now)).map_or(0, |e| e.connections)
    }
}

fn idle(e: &Entry, now: Instant) -> bool {
    now.saturating_duration_since(e.touched) > IDLE_LIMIT
}

/// Drop the idle tags; if none is idle, the one touched longest ago (the tags of a run in progress are the
/// ones touched last).
fn make_room(counts: &mut HashMap<Box<str>, Entry>, now: Instant) {
    counts.retain(|_, e| !idle(e, now));
    if counts.len() >= MAX_TAGS {
        if let Some(oldest) = counts.iter().min_by_key(|(_, e)| e.touched).map(|(t, _)| t.clone()) {
            counts.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_counts_once_per_tag_however_often_it_carries_it() {
        let (tally, now) = (Tally::default(), Instant::now());
        let (a, b) = (Seen::default(), Seen::default());
        for _ in 0..3 {
            tally.note(&a, "fetch.reuse.c1", now);
        }
        tally.note(&a, "xhr.reuse.c1", now);
        tally.note(&b, "fetch.reuse.c1", now);
        tally.note(&a, "fetch.reuse.c1", now);
        assert_eq!(tally.count("fetch.reuse.c1", now), 2);
        assert_eq!(tally.count("xhr.reuse.c1", now), 1);
        assert_eq!(tally.count("never", now), 0);
    }

    #[test]
    fn tags_past_a_connections_bound_are_not_counted() {
        let (tally, now) = (Tally::default(), Instant::now());
        let seen = Seen::default();
        for i in 0..MAX_TAGS_PER_CONNECTION + 1 {
            tally.note(&seen, &format!("t{i}"), now);
        }
        assert_eq!(tally.count(&format!("t{}", MAX_TAGS_PER_CONNECTION - 1), now), 1);
        assert_eq!(tally.count(&format!("t{MAX_TAGS_PER_CONNECTION}"), now), 0);
    }

    /// Time is passed in: what an idle tag becomes after minutes is checked without waiting for them.
    #[test]
    fn idle_tags_expire_and_a_full_table_makes_room_for_new_ones() {
        let (tally, start) = (Tally::default(), Instant::now());
        tally.note(&Seen::default(), "old", start);
        let later = start + IDLE_LIMIT / 2;
        tally.note(&Seen::default(), "kept", later);
        let expired = start + IDLE_LIMIT + Duration::from_secs(1);
        assert_eq!(tally.count("old", expired), 0, "untouched for longer than the limit");
        assert_eq!(tally.count("kept", expired), 1);
        // One page fills the table with tags of its own, long ago; a run later still gets its count.
        for i in 0..MAX_TAGS + 10 {
            tally.note(&Seen::default(), &format!("flood{i}"), start);
        }
        assert_eq!(tally.0.lock().unwrap().len(), MAX_TAGS);
        tally.note(&Seen::default(), "fetch.reuse.c1", expired);
        assert_eq!(tally.count("fetch.reuse.c1", expired), 1);
        assert!(tally.0.lock().unwrap().len() <= 3, "the idle flood is gone");
        // A flood that is still fresh gives way from its oldest tag, never refusing the newest.
        for i in 0..MAX_TAGS + 10 {
            tally.note(&Seen::default(), &format!("fresh{i}"), expired + Duration::from_millis(i as u64));
        }
        assert_eq!(tally.0.lock().unwrap().len(), MAX_TAGS);
        assert_eq!(tally.count(&format!("fresh{}", MAX_TAGS + 9), expired + IDLE_LIMIT), 1);
        assert_eq!(tally.count("fresh0", expired + IDLE_LIMIT), 0);
    }
}
