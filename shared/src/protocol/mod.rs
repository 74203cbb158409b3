//! What the CLI and the page say to each other and to their users: the client catalog (every client's name,
//! environment and what it is), the connection modes, HTTP versions and load levels and their parsers,
//! durations as typed, the bound on a client's name, the tags that count a case's connections, the page's
//! query string (to and from, imports included), the turns a page takes in a run with other sides and the seal its requests carry there, and the share links that carry a result file (`#r=`). One home
//! for each, tested natively, used by both front ends.

mod clients;
mod close;
mod conns;
mod duration;
mod http;
mod link;
mod load;
mod modes;
mod names;
mod query;
mod seal;
pub mod share;
mod status;
mod turn;

pub use clients::{
    browser_clients, cannot_run_at, cannot_run_fresh, cannot_speak, client, clients_of, commands, libraries,
    native_clients, parse_client_list, Adapter, ClientInfo, ClientListError, Group, Handover, Made, Script,
    BROWSER_FLOOR, CLIENTS, GROUPS,
};
pub use close::{asks_to_close, url_for_mode, with_param};
pub use conns::{asked_tag, case_tag, connections_query, conns_tag, read_connections, tagged_url, CONNECTIONS_PATH};
pub use duration::{
    parse_duration, parse_timeout, timeout_text, DurationError, TimeoutError, MAX_DURATION, MAX_TIMEOUT,
};
pub use http::HttpChoice;
pub use link::{parse_links, Link, LinkError, Profile, MAX_LINKS, PROFILES};
pub use load::{
    asks_for_delay, load_url, parse_concurrency, parse_delays, parse_sizes, size_label, LoadError, MAX_BODY_BYTES,
    MAX_CONCURRENCY, MAX_DELAY_MS,
};
pub use modes::Modes;
pub use names::{check_name, shown, MAX_NAME_CHARS};
pub use query::PageQuery;
pub use seal::{asked_seal, is_seal, new_seal, seal_fragment, seal_of_fragment, SEAL_BYTES, SEAL_CHARS, SEAL_PARAM};
pub use status::{PageStatus, MAX_STATUS_BYTES, STATUS_PATH};
pub use turn::{asked_page, asked_turn, check_page_id, page_path, turn_query, TurnAnswer, TURN_HOLD, TURN_PATH};
