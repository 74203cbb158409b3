//! `ureq` 3: a new `Agent` per request in fresh mode, one agent with its connection pool in reuse mode.

use std::io;

use httpbench_shared::{ErrorKind, Mode, Outcome};
use ureq::Agent;

use super::classify::{chain_kind, io_kind};
use super::{Driver, DriverConfig};

/// The ureq client.
pub struct UreqDriver {
    config: DriverConfig,
    agent: Option<Agent>,
}

impl UreqDriver {
    /// A driver.
    pub fn new(config: &DriverConfig) -> Self {
        UreqDriver { config: config.clone(), agent: None }
    }

    fn new_agent(&self) -> Agent {
        Agent::config_builder()
            .timeout_global(Some(self.config.timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .no_delay(true)
            .build()
            .into()
    }

    fn perform(&mut self) -> Result<Outcome, ureq::Error> {
        if self.agent.is_none() || self.config.mode == Mode::Fresh {
            self.agent = Some(self.new_agent());
        }
        let Some(agent) = self.agent.as_ref() else { unreachable!("set just above") };
        let mut response = agent.get(self.config.url.as_str()).call()?;
        let status = response.status().as_u16();
        let mut reader = response.body_mut().with_config().limit(u64::MAX).reader();
        let bytes = io::copy(&mut reader, &mut io::sink()).map_err(ureq::Error::Io)?;
        Ok(Outcome::response(status, bytes))
    }
}

impl Driver for UreqDriver {
    fn request(&mut self) -> Outcome {
        self.perform().unwrap_or_else(|e| Outcome::failed(kind(&e), None))
    }
}

fn kind(e: &ureq::Error) -> ErrorKind {
    match e {
        ureq::Error::Timeout(_) => ErrorKind::Timeout,
        ureq::Error::HostNotFound => ErrorKind::Dns,
        ureq::Error::ConnectionFailed => ErrorKind::Connect,
        ureq::Error::TooManyRedirects | ureq::Error::RedirectFailed => ErrorKind::Redirect,
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => ErrorKind::Tls,
        ureq::Error::Protocol(_) | ureq::Error::Http(_) => ErrorKind::Protocol,
        ureq::Error::Io(io) => unwrap_io(io),
        other => chain_kind(other).unwrap_or(ErrorKind::Other),
    }
}

/// ureq wraps its own errors inside `io::Error` when reading the body; look inside first.
fn unwrap_io(io: &io::Error) -> ErrorKind {
    match io.get_ref().and_then(|inner| inner.downcast_ref::<ureq::Error>()) {
        Some(inner) => kind(inner),
        None => io_kind(io),
    }
}
