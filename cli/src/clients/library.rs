//! What an in-process client library gives the run: its driver for a case, its version, and what this build
//! of it cannot speak. One implementation per client module; the table of them is `LIBRARIES` (`clients`),
//! matched to the shared client table's `Made::Library` rows by name.

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::{ClientInfo, Made};

use super::contained::Contained;
use super::pool::Threads;
use super::{Driver, DriverConfig, Pool, Sequential};

include!(concat!(env!("OUT_DIR"), "/locked.rs"));

/// One client library driven in this process.
pub trait Library: Sync {
    /// Its name: the shared table's row for it.
    fn name(&self) -> &'static str;

    /// A driver keeping `in_flight` requests in flight (1: sequential); fails only when the client cannot be
    /// set up at all.
    fn driver(&self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Pool>>;

    /// The version recorded in the report: by default the crates its row names, as Cargo.lock pins them
    /// ([`crates_version`]); a library linked from the system (libcurl) asks itself.
    fn version(&self, info: &ClientInfo) -> String {
        match info.made {
            Made::Library { crates } => crates_version(crates),
            _ => "unknown".into(),
        }
    }

    /// Why this build's copy cannot make requests over `http`, if it cannot: asked of the library at run time
    /// (the table says what the client speaks; a libcurl may be built without HTTP/2).
    fn cannot_speak(&self, _http: HttpVersion) -> Option<String> {
        None
    }
}

/// The version Cargo.lock pins for `name`; `unknown` for a crate it does not hold.
pub fn locked(name: &str) -> &'static str {
    LOCKED.binary_search_by(|(n, _)| (*n).cmp(name)).map_or("unknown", |i| LOCKED[i].1)
}

/// `first 1.2 (second 3.4, ...)`: the crates that make a client, the first its name.
pub fn crates_version(crates: &[&str]) -> String {
    let named: Vec<String> = crates.iter().map(|c| format!("{c} {}", locked(c))).collect();
    match named.split_first() {
        None => "unknown".into(),
        Some((first, [])) => first.clone(),
        Some((first, rest)) => format!("{first} ({})", rest.join(", ")),
    }
}

/// The pool of a blocking client: one `make`, a pool of one ([`Sequential`]), or a thread and a `make` each for
/// `in_flight` of them ([`Threads`]); a panic in its library is one failed request ([`Contained`]).
pub fn blocking<D: Driver + Send + 'static>(
    in_flight: usize,
    mut make: impl FnMut() -> anyhow::Result<D>,
) -> anyhow::Result<Box<dyn Pool>> {
    if in_flight <= 1 {
        return Ok(Box::new(Sequential(Contained::new(Box::new(make()?)))));
    }
    let mut one = || make().map(|d| Box::new(Contained::new(Box::new(d))) as Box<dyn Driver + Send>);
    let drivers = (0..in_flight).map(|_| one()).collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Box::new(Threads::new(drivers)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_lock_file() {
        assert!(LOCKED.windows(2).all(|w| w[0].0 < w[1].0), "sorted, each name once");
        assert_ne!(locked("ureq"), "unknown");
        assert_eq!(locked("no-such-crate"), "unknown");
        let v = crates_version(&["reqwest", "hyper"]);
        assert!(v.starts_with("reqwest 0.") && v.contains(" (hyper 1."), "{v}");
        assert_eq!(crates_version(&[]), "unknown");
    }
}
