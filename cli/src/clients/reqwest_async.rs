//! `reqwest` async on a current-thread tokio runtime owned by the driver: every future runs on the measuring
//! thread, so the measured time and CPU are the client's alone.

use httpbench_shared::{Mode, Outcome};
use reqwest::Client;
use tokio::runtime::{Builder, Runtime};

use super::reqwest_blocking::{kind, observed, Failure};
use super::tls;
use super::{Driver, DriverConfig};

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
        if self.client.is_none() || self.config.mode == Mode::Fresh {
            // Building a client needs the runtime for its connector.
            let _guard = self.runtime.enter();
            match new_client(&self.config) {
                Ok(c) => self.client = Some(c),
                Err(e) => {
                    self.last_error = Some(e.describe());
                    return e.outcome();
                }
            }
        }
        let Some(client) = self.client.clone() else { unreachable!("set just above") };
        let url = self.config.url.clone();
        self.runtime
            .block_on(async move {
                let mut response = client.get(url).send().await?;
                let status = response.status().as_u16();
                let http = observed(response.version());
                let mut bytes = 0u64;
                while let Some(chunk) = response.chunk().await? {
                    bytes += chunk.len() as u64;
                }
                Ok::<_, reqwest::Error>(Outcome::response(status, bytes).over(http))
            })
            .unwrap_or_else(|e| {
                self.last_error = Some(super::classify::describe(&e));
                Outcome::failed(kind(&e), None)
            })
    }

    fn failure_reason(&mut self) -> Option<String> {
        self.last_error.take()
    }
}
