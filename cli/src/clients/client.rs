//! A client a run can name: a row of the shared client table driven in this process (a [`Library`]), or a
//! command client (a row of the table, or a user's `--client-cmd`). What the run asks of each is the same: its
//! name, its version when known before the run, the HTTP versions it speaks, and a driver for a case.

use std::fmt;
use std::sync::atomic::AtomicBool;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::ClientInfo;

use super::{command, Broken, DriverConfig, Library, Pool, Sequential};
use crate::progress::Printer;

/// A client a run can name.
#[derive(Clone)]
pub enum Client {
    /// A library in this process: its row and its module.
    Lib(&'static ClientInfo, &'static dyn Library),
    /// Another process speaking the command-client protocol.
    Command(command::Spec),
}

impl Client {
    /// Its name in `--clients` and in reports.
    pub fn name(&self) -> &str {
        match self {
            Client::Lib(info, _) => info.name,
            Client::Command(s) => &s.name,
        }
    }

    /// The library version, where it is known before the run (a command client reports its own).
    pub fn version(&self) -> Option<String> {
        match self {
            Client::Lib(info, lib) => Some(lib.version(info)),
            Client::Command(_) => None,
        }
    }

    /// The HTTP versions a command client speaks, for the session's matrix (the table knows its own rows';
    /// a user's command client declared them).
    pub fn declared_versions(&self) -> Option<&[HttpVersion]> {
        match self {
            Client::Command(spec) => Some(&spec.versions),
            Client::Lib(..) => None,
        }
    }

    /// Why this client cannot make requests over `http` in this build, if it cannot ([`Library::cannot_speak`]).
    pub fn cannot_speak(&self, http: HttpVersion) -> Option<String> {
        match self {
            Client::Lib(_, lib) => lib.cannot_speak(http),
            Client::Command(_) => None,
        }
    }

    /// A driver for one case, keeping `in_flight` requests in flight (a command client makes one at a time:
    /// the session leaves it out of other levels). A library that cannot be set up, or an adapter that does
    /// not start, still gives a driver: its failure becomes the case's. Starting an adapter waits for it
    /// (bounded, and `stop` ends the wait).
    pub fn driver(
        &self,
        config: &DriverConfig,
        in_flight: usize,
        stop: &AtomicBool,
        printer: &Printer,
    ) -> Box<dyn Pool> {
        match self {
            Client::Lib(info, lib) => lib.driver(config, in_flight).unwrap_or_else(|e| {
                eprintln!("httpbench: {}/{}: cannot set up the client: {e:#}", info.name, config.mode);
                Box::new(Sequential(Broken))
            }),
            Client::Command(spec) => {
                Box::new(command::Batches(command::CommandDriver::start(spec, config, stop, printer)))
            }
        }
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Client::Lib(info, _) => write!(f, "Lib({})", info.name),
            Client::Command(spec) => write!(f, "Command({spec:?})"),
        }
    }
}

impl PartialEq for Client {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Client::Lib(a, _), Client::Lib(b, _)) => a.name == b.name,
            (Client::Command(a), Client::Command(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Client {}
