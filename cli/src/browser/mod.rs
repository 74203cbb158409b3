//! The browser front end of `httpbench run --browser`: the browser half of the run session, run by the page
//! in real headless browsers (Chromium, Firefox: one page run per engine) against the embedded server(s). The
//! run's options hold the browser cases' matrix (by shared's one parse of the run's raw plan, the page's too: a
//! plan the page would refuse exits 2 naming the flag) and hand it, with the browsers found, as [`BrowserOptions`]; the whole plan goes
//! to each engine's page run (`page`); the page runs one session over that matrix and posts its final
//! report, which the CLI only merges with the native one, noting where the browser ran.
//!
//! By job:
//! - [`engine`]: what a browser engine is to `run --browser` (the [`BrowserEngine`] trait), and how a browser
//!   is started for one page run ([`Launch`]: its start page, its command) and its log's tail.
//! - [`engines`]: one module per engine and the one table of them ([`ENGINES`]), which every lookup goes
//!   through (a binary is found by [`find`]): an engine not in it (WebKit) is refused, never started as another.
//! - [`targets`]: the servers the browser half requests and the URLs of an engine's cases on them.
//! - [`placement`]: where the browsers run, relative to the embedded server.
//! - `page` and `pages`: one page's plan and report; the pages of a run and whose turn it is.
//!
//! Nothing here reads the run's options: the browser code is handed the values it needs.

pub mod engine;
pub mod engines;
pub mod options;
mod page;
mod pages;
pub mod placement;
pub mod targets;

pub use engine::{tail, Binary, BrowserEngine, Launch};
pub use engines::{find, find_chromium, firefox_user_js, CHROMIUM_FLAGS, ENGINES};
pub use options::BrowserOptions;
pub use pages::Pages;
pub use placement::{place_browser, BrowserPlacement};
pub(crate) use targets::{start_h1_target, start_h3_target};
pub use targets::{BrowserTargets, SetLink};
