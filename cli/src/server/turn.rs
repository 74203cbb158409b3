//! The turn endpoint, `GET /turn?page=ID&pass=N` (shared's turn protocol): how the pages of one
//! `run --browser` wait for their turn at each pass. A child server tells its parent that page ID waits at
//! pass N (a [`super::TURN_LINE`] on stdout) and holds the request until the parent lets that page go (a
//! `go ID N` line on the server's stdin, [`GO_LINE`]) or [`TURN_HOLD`] passes (`wait`: the page asks again).
//! Only the parent can let a page go: a web page can reach this endpoint, never the server's stdin. A server
//! with no parent (`serve` in the foreground) lets every page go at once.
//!
//! The gate also keeps the pages' seals (`seal ID SECRET` on stdin, shared's `protocol::seal`): a sealed
//! server (`--sealed`, as `run --browser` starts its servers) answers turn, status and result requests only
//! when they carry their page's seal ([`Gate::admits`]), so no other user's program and no web page can take
//! a page's turn, speak for it or post its figures.

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::{Arc, Mutex};

use hyper::StatusCode;
use subtle::ConstantTimeEq;
use tokio::sync::watch;

use httpbench_shared::protocol::{asked_page, asked_seal, asked_turn, is_seal, TurnAnswer, TURN_HOLD};

use super::body::TargetBody;
use super::results::{plain, reply};

/// What the parent writes on the server's stdin to let page ID begin pass N: `go ID N`.
pub(crate) const GO_LINE: &str = "go ";

/// What the parent writes on the server's stdin to give page ID its seal: `seal ID SECRET` (shared's
/// `protocol::seal`). The server answers with a [`super::SEALED_LINE`] on stdout once the seal holds.
pub(crate) const SEAL_LINE: &str = "seal ";

/// Why a request to a sealed server's own endpoints is refused (403): no secret is named, none is echoed.
pub(crate) const UNSEALED: &str =
    "this server belongs to one run of httpbench run --browser: only the pages it started, with their seal, may take turns, post status or results";

/// Pages waiting for their turn, the passes the parent let each page begin, and the pages' seals.
#[derive(Debug)]
pub(crate) struct Gate {
    /// Whether a parent hands out the turns (a child server, `--quiet`).
    parent: bool,
    /// Whether the server's own endpoints answer only requests that carry their page's seal (`--sealed`).
    sealed: bool,
    /// How long a request is held ([`TURN_HOLD`]).
    hold: std::time::Duration,
    /// The highest pass each page may begin.
    granted: watch::Sender<HashMap<String, u32>>,
    /// Each page's seal, as the parent gave it.
    seals: Mutex<HashMap<String, String>>,
}

/// What the parent says on the server's stdin.
#[derive(Debug, PartialEq, Eq)]
enum Word<'a> {
    /// `go ID N`.
    Go(&'a str, u32),
    /// `seal ID SECRET`.
    Seal(&'a str, &'a str),
}

impl Gate {
    /// A gate whose turns a parent hands out (`parent`), or one that lets every page go; `sealed`: one whose
    /// own endpoints answer only the pages the parent sealed.
    pub(crate) fn new(parent: bool, sealed: bool) -> Arc<Self> {
        let gate = Arc::new(Gate { sealed, ..Gate::with_hold(parent, TURN_HOLD) });
        if parent || sealed {
            let listening = gate.clone();
            // Ends when stdin closes (the parent is gone, or gave none).
            std::thread::spawn(move || {
                for line in std::io::stdin().lock().lines().map_while(Result::ok) {
                    match read_word(&line) {
                        Some(Word::Go(page, pass)) => listening.let_go(page, pass),
                        Some(Word::Seal(page, seal)) => listening.seal(page, seal),
                        None => {}
                    }
                }
            });
        }
        gate
    }

    fn with_hold(parent: bool, hold: std::time::Duration) -> Self {
        let (granted, seals) = (watch::Sender::new(HashMap::new()), Mutex::default());
        Gate { parent, sealed: false, hold, granted, seals }
    }

    /// Let `page` begin every pass up to `pass`.
    fn let_go(&self, page: &str, pass: u32) {
        self.granted.send_modify(|granted| {
            let at = granted.entry(page.to_string()).or_insert(pass);
            *at = (*at).max(pass);
        });
    }

    /// Give `page` its seal (the first one given holds), and tell the parent when this one does: a parent
    /// told so hands the page a seal the server takes.
    fn seal(&self, page: &str, seal: &str) {
        let held = self.seals.lock().is_ok_and(|mut seals| {
            let kept = seals.entry(page.to_string()).or_insert_with(|| seal.to_string());
            bool::from(kept.as_bytes().ct_eq(seal.as_bytes()))
        });
        if held {
            let _ = crate::output::print(&format!("{}{page}\n", super::SEALED_LINE));
        }
    }

    /// Whether a request to the server's own endpoints (turn, status, results) with this query may change
    /// anything: always on a server that is not sealed (`serve` keeps its origin rules), else only when the
    /// query names a page the parent sealed and carries that page's seal, compared in constant time. The
    /// refusal's reason is for a 403.
    pub(crate) fn admits(&self, query: Option<&str>) -> Result<(), &'static str> {
        if !self.sealed {
            return Ok(());
        }
        let (page, seal) = (asked_page(query), asked_seal(query));
        let seals = self.seals.lock().map_err(|_| UNSEALED)?;
        match (page.and_then(|p| seals.get(p)), seal) {
            (Some(expected), Some(given)) if bool::from(expected.as_bytes().ct_eq(given.as_bytes())) => Ok(()),
            _ => Err(UNSEALED),
        }
    }

    /// Answer one turn request (its query): `go` once the parent let the page begin its pass, `wait` after
    /// [`TURN_HOLD`].
    pub(crate) async fn answer(&self, query: Option<&str>) -> hyper::Response<TargetBody> {
        let Some((page, pass)) = asked_turn(query) else {
            return reply(StatusCode::BAD_REQUEST, "expected ?page=ID&pass=N");
        };
        let let_go = |granted: &HashMap<String, u32>| granted.get(page).is_some_and(|at| *at >= pass);
        if !self.parent || let_go(&self.granted.borrow()) {
            return plain(TurnAnswer::Go.as_str().to_string());
        }
        // The parent's signal; a parent that went away leaves the page waiting until its own bound.
        let _ = crate::output::print(&format!("{}{page} {pass}\n", super::TURN_LINE));
        let mut seen = self.granted.subscribe();
        let answer = match tokio::time::timeout(self.hold, seen.wait_for(let_go)).await {
            Ok(Ok(_)) => TurnAnswer::Go,
            _ => TurnAnswer::Wait,
        };
        plain(answer.as_str().to_string())
    }
}

impl Default for Gate {
    /// A gate with no parent: every page goes at once.
    fn default() -> Self {
        Gate::with_hold(false, TURN_HOLD)
    }
}

/// What a line of the parent's says, if anything: `go ID N` or `seal ID SECRET` (a well-formed seal only).
fn read_word(line: &str) -> Option<Word<'_>> {
    if let Some(rest) = line.strip_prefix(GO_LINE) {
        let (page, pass) = rest.trim().split_once(' ')?;
        return Some(Word::Go(page, pass.parse().ok()?));
    }
    let (page, seal) = line.strip_prefix(SEAL_LINE)?.trim().split_once(' ')?;
    (!page.is_empty() && is_seal(seal)).then_some(Word::Seal(page, seal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_go_or_seal_line_reads_back_and_nothing_else_does() {
        assert_eq!(read_word("go chromium 3\n"), Some(Word::Go("chromium", 3)));
        assert_eq!(read_word("go chromium"), None);
        assert_eq!(read_word("go chromium x"), None);
        assert_eq!(read_word("page chromium 1"), None);
        let seal = "x".repeat(httpbench_shared::protocol::SEAL_CHARS);
        assert_eq!(read_word(&format!("seal chromium {seal}\n")), Some(Word::Seal("chromium", &seal)));
        assert_eq!(read_word("seal chromium short"), None);
        assert_eq!(read_word(&format!("seal {seal}")), None);
    }

    #[test]
    fn a_sealed_gate_admits_only_the_seal_given_for_the_page() {
        let seal = "a".repeat(httpbench_shared::protocol::SEAL_CHARS);
        let other = "b".repeat(httpbench_shared::protocol::SEAL_CHARS);
        let open = Gate::default();
        assert!(open.admits(None).is_ok(), "serve in the foreground keeps its origin rules alone");
        let gate = Gate { sealed: true, ..Gate::default() };
        gate.seal("chromium", &seal);
        gate.seal("chromium", &other);
        let q = |s: &str| format!("page=chromium&pass=0&seal={s}");
        assert!(gate.admits(Some(&q(&seal))).is_ok());
        for bad in [q(&other), q(""), "page=chromium&pass=0".into(), format!("page=firefox&seal={seal}")] {
            assert_eq!(gate.admits(Some(&bad)), Err(UNSEALED), "{bad}");
        }
        assert!(gate.admits(None).is_err());
    }

    #[tokio::test]
    async fn a_page_waits_until_the_parent_lets_it_go_and_no_longer_than_the_hold() {
        let gate = Gate::new(false, false);
        let body = |r: hyper::Response<TargetBody>| async move {
            use http_body_util::BodyExt;
            String::from_utf8(r.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
        };
        assert_eq!(body(gate.answer(Some("page=a&pass=0")).await).await, "go", "no parent: no waiting");
        assert_eq!(gate.answer(Some("pass=1")).await.status(), StatusCode::BAD_REQUEST);

        let hold = std::time::Duration::from_millis(50);
        let gate = Arc::new(Gate::with_hold(true, hold));
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { body(gate.answer(Some("page=a&pass=1")).await).await }
        });
        tokio::task::yield_now().await;
        gate.let_go("b", 1);
        gate.let_go("a", 0);
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "neither another page's turn nor an earlier pass lets it go");
        gate.let_go("a", 1);
        assert_eq!(waiting.await.unwrap(), "go");
        assert_eq!(body(gate.answer(Some("page=a&pass=1")).await).await, "go", "a pass let go stays so");
        assert_eq!(body(gate.answer(Some("page=a&pass=2")).await).await, "wait", "after the hold");
    }
}
