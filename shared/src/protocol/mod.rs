//! What the CLI and the page say to each other and to their users: the client catalog (every client's name,
//! environment and what it is), the connection modes and HTTP versions and their parsers, durations as typed, and the page's
//! query string (to and from, imports included). One home for each, tested natively, used by both front ends.

mod clients;
mod close;
mod duration;
mod http;
mod modes;
mod query;

pub use clients::{
    browser_clients, cannot_speak, client, clients_of, native_clients, parse_client_list, ClientInfo, ClientListError,
    CLIENTS,
};
pub use close::{asks_to_close, url_for_mode};
pub use duration::{parse_duration, DurationError, MAX_DURATION};
pub use http::HttpChoice;
pub use modes::Modes;
pub use query::PageQuery;
