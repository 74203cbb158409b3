//! The turn endpoint, `GET /turn?page=ID&pass=N` (shared's turn protocol): how the pages of one
//! `run --browser` wait for their turn at each pass. A child server tells its parent that page ID waits at
//! pass N (a [`super::TURN_LINE`] on stdout) and holds the request until the parent lets that page go (a
//! `go ID N` line on the server's stdin, [`GO_LINE`]) or [`TURN_HOLD`] passes (`wait`: the page asks again).
//! Only the parent can let a page go: a web page can reach this endpoint, never the server's stdin. A server
//! with no parent (`serve` in the foreground) lets every page go at once.

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::Arc;

use hyper::StatusCode;
use tokio::sync::watch;

use httpbench_shared::protocol::{asked_turn, TurnAnswer, TURN_HOLD};

use super::body::TargetBody;
use super::results::{plain, reply};

/// What the parent writes on the server's stdin to let page ID begin pass N: `go ID N`.
pub const GO_LINE: &str = "go ";

/// Pages waiting for their turn, and the passes the parent let each page begin.
#[derive(Debug)]
pub struct Gate {
    /// Whether a parent hands out the turns (a child server, `--quiet`).
    parent: bool,
    /// How long a request is held ([`TURN_HOLD`]).
    hold: std::time::Duration,
    /// The highest pass each page may begin.
    granted: watch::Sender<HashMap<String, u32>>,
}

impl Gate {
    /// A gate whose turns a parent hands out (`parent`), or one that lets every page go.
    pub fn new(parent: bool) -> Arc<Self> {
        let gate = Arc::new(Gate { parent, hold: TURN_HOLD, granted: watch::Sender::new(HashMap::new()) });
        if parent {
            let listening = gate.clone();
            // Ends when stdin closes (the parent is gone, or gave none).
            std::thread::spawn(move || {
                for line in std::io::stdin().lock().lines().map_while(Result::ok) {
                    if let Some((page, pass)) = read_go(&line) {
                        listening.let_go(page, pass);
                    }
                }
            });
        }
        gate
    }

    /// Let `page` begin every pass up to `pass`.
    fn let_go(&self, page: &str, pass: u32) {
        self.granted.send_modify(|granted| {
            let at = granted.entry(page.to_string()).or_insert(pass);
            *at = (*at).max(pass);
        });
    }

    /// Answer one turn request (its query): `go` once the parent let the page begin its pass, `wait` after
    /// [`TURN_HOLD`].
    pub async fn answer(&self, query: Option<&str>) -> hyper::Response<TargetBody> {
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
        Gate { parent: false, hold: TURN_HOLD, granted: watch::Sender::new(HashMap::new()) }
    }
}

/// The page and pass of a `go ID N` line.
fn read_go(line: &str) -> Option<(&str, u32)> {
    let (page, pass) = line.strip_prefix(GO_LINE)?.trim().split_once(' ')?;
    Some((page, pass.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_go_line_reads_back_and_nothing_else_does() {
        assert_eq!(read_go("go chromium 3\n"), Some(("chromium", 3)));
        assert_eq!(read_go("go chromium"), None);
        assert_eq!(read_go("go chromium x"), None);
        assert_eq!(read_go("page chromium 1"), None);
    }

    #[tokio::test]
    async fn a_page_waits_until_the_parent_lets_it_go_and_no_longer_than_the_hold() {
        let gate = Gate::new(false);
        let body = |r: hyper::Response<TargetBody>| async move {
            use http_body_util::BodyExt;
            String::from_utf8(r.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
        };
        assert_eq!(body(gate.answer(Some("page=a&pass=0")).await).await, "go", "no parent: no waiting");
        assert_eq!(gate.answer(Some("pass=1")).await.status(), StatusCode::BAD_REQUEST);

        let hold = std::time::Duration::from_millis(50);
        let gate = Arc::new(Gate { parent: true, hold, granted: watch::Sender::new(HashMap::new()) });
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
