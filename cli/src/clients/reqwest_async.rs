//! `reqwest` async on a current-thread tokio runtime owned by the driver: every future runs on the measuring
//! thread, so the measured time and CPU are the client's alone. Concurrently ([`AsyncPool`]), N tasks on that
//! one thread share one client, as async users run it.

use std::time::Duration;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::{Mode, Outcome};
use reqwest::Client;
use tokio::runtime::{Builder, Runtime};

use super::pool::{Done, Pool, Record, Round, RoundEnd, Sample};

use super::library::{blocking, Library};
use super::reqwest_blocking::{held_to_length, observed, unchecked_length, Failure};
use super::tls;
use super::{Driver, DriverConfig};

/// reqwest's async client: sequentially a driver with its runtime, concurrently tasks on one runtime
/// ([`AsyncPool`]): the `reqwest-async` row of the client table.
pub struct Lib;

impl Library for Lib {
    fn name(&self) -> &'static str {
        "reqwest-async"
    }

    fn driver(&self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Pool>> {
        match in_flight {
            0 | 1 => blocking(1, || ReqwestAsyncDriver::new(config)),
            n => Ok(Box::new(AsyncPool::new(config, n)?)),
        }
    }
}

/// The async reqwest client.
pub struct ReqwestAsyncDriver {
    config: DriverConfig,
    runtime: Runtime,
    client: Option<Client>,
    last_error: Option<String>,
}

impl ReqwestAsyncDriver {
    /// A driver with its own runtime.
    pub fn new(config: &DriverConfig) -> anyhow::Result<Self> {
        let runtime = Builder::new_current_thread().enable_all().build()?;
        Ok(ReqwestAsyncDriver { config: config.clone(), runtime, client: None, last_error: None })
    }
}

/// A client set up as every request of this driver uses it (public for the client set-up benchmark). Call it
/// inside a tokio runtime context: the connector needs one.
pub fn new_client(config: &DriverConfig) -> Result<Client, Failure> {
    let tls = tls::client_config(config.cacert.as_deref(), config.http).map_err(|_| Failure::Tls)?;
    Ok(tls::configure_reqwest!(Client::builder(), config, tls).build()?)
}

impl Driver for ReqwestAsyncDriver {
    fn request(&mut self) -> Outcome {
        // Fresh: a new client for every request; reuse: the one kept.
        let client = match &self.client {
            Some(c) if self.config.mode == Mode::Reuse => c.clone(),
            _ => {
                // Building a client needs the runtime for its connector.
                let _guard = self.runtime.enter();
                match new_client(&self.config) {
                    Ok(c) => self.client.insert(c).clone(),
                    Err(e) => {
                        self.last_error = Some(e.describe());
                        return e.outcome();
                    }
                }
            }
        };
        let url = self.config.url.clone();
        self.runtime.block_on(get(&client, url, self.config.http)).unwrap_or_else(|e| {
            self.last_error = Some(e.describe());
            e.outcome()
        })
    }

    fn failure_reason(&mut self) -> Option<String> {
        self.last_error.take()
    }
}

/// One GET with the whole body read, held to its Content-Length where reqwest does not.
async fn get(client: &Client, url: url::Url, http: HttpVersion) -> Result<Outcome, Failure> {
    let mut response = client.get(url).version(tls::reqwest_version(http)).send().await?;
    let status = response.status().as_u16();
    let http = observed(response.version());
    let declared = unchecked_length(http, response.content_length());
    let mut bytes = 0u64;
    while let Some(chunk) = response.chunk().await? {
        bytes += chunk.len() as u64;
        if declared.is_some_and(|d| bytes > d) {
            break;
        }
    }
    held_to_length(declared, bytes)?;
    Ok(Outcome::response(status, bytes).over(http))
}

/// `in_flight` tasks on the driver's one thread, sharing one client in reuse mode (each request its own
/// client in fresh mode, as the sequential driver does).
pub struct AsyncPool {
    config: DriverConfig,
    runtime: Runtime,
    client: Option<Client>,
    in_flight: usize,
}

impl AsyncPool {
    /// A pool with its own current-thread runtime.
    pub fn new(config: &DriverConfig, in_flight: usize) -> anyhow::Result<Self> {
        let runtime = Builder::new_current_thread().enable_all().build()?;
        Ok(AsyncPool { config: config.clone(), runtime, client: None, in_flight })
    }
}

/// One request of a task: a client of its own in fresh mode, else the shared one.
async fn pooled(config: &DriverConfig, shared: Option<&Client>) -> Done {
    let own;
    let client = match shared {
        Some(c) => c,
        None => match new_client(config) {
            Ok(c) => {
                own = c;
                &own
            }
            Err(e) => return Done::failed(e.outcome(), e.describe()),
        },
    };
    match get(client, config.url.clone(), config.http).await {
        Ok(outcome) => Done { outcome, phases: None, reason: None },
        Err(e) => Done::failed(e.outcome(), e.describe()),
    }
}

impl Pool for AsyncPool {
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd {
        if self.client.is_none() && self.config.mode == Mode::Reuse {
            let _guard = self.runtime.enter();
            match new_client(&self.config) {
                Ok(c) => self.client = Some(c),
                Err(e) => {
                    let sample = Sample {
                        outcome: e.outcome(),
                        latency: Duration::ZERO,
                        phases: None,
                        reason: Some(e.describe()),
                    };
                    record.sample(sample);
                    return RoundEnd::default();
                }
            }
        }
        let (config, shared) = (&self.config, self.client.as_ref());
        super::pool::run_tasks(&self.runtime, self.in_flight, round, record, || pooled(config, shared));
        RoundEnd::default()
    }
}
