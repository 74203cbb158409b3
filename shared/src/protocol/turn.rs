//! How a page that `httpbench run --browser` started shares the run's passes with the native clients and the
//! other browser engines (the session's [`Turns`](crate::session::Turns)): the page is named by the run
//! (`page=chromium` in its query, [`PageQuery::page`](super::PageQuery)); at each pass it asks
//! `GET /turn?page=ID&pass=N` of the server that served it, which holds the request until the run lets that
//! page go (`go`) or [`TURN_HOLD`] passes (`wait`: ask again). The page's status and result posts carry the
//! same `page=ID`, so the run tells its pages apart, and each of these requests carries the page's seal
//! (`seal=SECRET`, [`super::seal`]) when the run gave it one: without it the run's server changes nothing.
//! Both halves live here: the page's requests and the server's reading of them.

use std::time::Duration;

use super::names::check_name;

/// Where a page asks for its turn.
pub const TURN_PATH: &str = "/turn";

/// Longest the server holds a turn request before it answers [`TurnAnswer::Wait`]: long enough that a waiting
/// page makes no request during another side's ordinary pass, short enough that no proxy or browser gives up
/// on the request first.
pub const TURN_HOLD: Duration = Duration::from_secs(60);

/// The server's answer to a turn request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnAnswer {
    /// The page's pass may begin.
    Go,
    /// Not yet: ask again.
    Wait,
}

impl TurnAnswer {
    /// The answer's body.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnAnswer::Go => "go",
            TurnAnswer::Wait => "wait",
        }
    }

    /// An answer's body read back; `None` for anything else (no `httpbench serve`, an error page).
    pub fn parse(body: &str) -> Option<TurnAnswer> {
        match body.trim() {
            "go" => Some(TurnAnswer::Go),
            "wait" => Some(TurnAnswer::Wait),
            _ => None,
        }
    }
}

/// The path and query with which page `page` asks for its turn at pass `pass`, with its seal if it has one.
pub fn turn_query(page: &str, pass: u32, seal: Option<&str>) -> String {
    sealed(format!("{TURN_PATH}?page={page}&pass={pass}"), seal)
}

/// The page and pass a turn request asks about, if its query names both, the page by a valid id.
pub fn asked_turn(query: Option<&str>) -> Option<(&str, u32)> {
    let page = asked_page(query)?;
    let pass = query?.split('&').find_map(|kv| kv.strip_prefix("pass="))?.parse().ok()?;
    Some((page, pass))
}

/// `path` (the status or results endpoint) with the page's id, and its seal if it has one, added to its query.
pub fn page_path(path: &str, page: &str, seal: Option<&str>) -> String {
    sealed(super::with_param(path, &format!("page={page}")), seal)
}

/// `path_and_query` with `seal=SECRET` added, when there is a seal.
fn sealed(path_and_query: String, seal: Option<&str>) -> String {
    match seal {
        Some(s) => super::with_param(&path_and_query, &format!("{}={s}", super::seal::SEAL_PARAM)),
        None => path_and_query,
    }
}

/// The page id a request's query carries (`page=ID`), if it is a valid one: letters, digits, `.`, `_` and
/// `-` (the rule of a client's name: it is printed to the run's terminal as it is).
pub fn asked_page(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|kv| kv.strip_prefix("page=")).filter(|id| check_page_id(id).is_ok())
}

/// Whether `id` may name a page; the error names the bad value.
pub fn check_page_id(id: &str) -> Result<(), String> {
    check_name(id).map_err(|_| {
        format!("page '{}' cannot name a page: use 1 to 64 letters, digits, '.', '_' and '-'", super::shown(id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_request_round_trips_and_a_bad_one_is_not_read() {
        let q = turn_query("firefox", 3, None);
        assert_eq!(q, "/turn?page=firefox&pass=3");
        assert_eq!(asked_turn(q.split_once('?').map(|(_, q)| q)), Some(("firefox", 3)));
        assert_eq!(asked_turn(Some("page=firefox")), None, "no pass");
        assert_eq!(asked_turn(Some("page=a%0Ab&pass=1")), None, "an id that is no name");
        assert_eq!(asked_turn(Some("page=x&pass=-1")), None);
        assert_eq!(asked_turn(None), None);
    }

    #[test]
    fn posts_carry_the_page_id_and_answers_read_back() {
        assert_eq!(page_path("/status", "chromium", None), "/status?page=chromium");
        let seal = "s".repeat(super::super::SEAL_CHARS);
        let sealed = page_path("/results", "chromium", Some(&seal));
        assert_eq!(sealed, format!("/results?page=chromium&seal={seal}"));
        let query = sealed.split_once('?').map(|(_, q)| q);
        assert_eq!((asked_page(query), super::super::asked_seal(query)), (Some("chromium"), Some(seal.as_str())));
        let turn = turn_query("firefox", 3, Some(&seal));
        assert_eq!(asked_turn(turn.split_once('?').map(|(_, q)| q)), Some(("firefox", 3)), "{turn}");
        assert_eq!(asked_page(Some("a=1&page=chromium")), Some("chromium"));
        assert_eq!(asked_page(Some("page=")), None);
        for a in [TurnAnswer::Go, TurnAnswer::Wait] {
            assert_eq!(TurnAnswer::parse(a.as_str()), Some(a));
        }
        assert_eq!(TurnAnswer::parse("<html>"), None);
        assert!(check_page_id("x y").unwrap_err().contains("'x y'"));
    }
}
