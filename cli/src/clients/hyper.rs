//! `hyper`: hyper-util's client (the legacy `Client`, what most hyper users run) over hyper-rustls, at every
//! level tasks on one current-thread runtime owned by the driver (sequentially, a pool of one), as async users
//! run it. Reuse mode shares one client and its connection pool; fresh mode builds a client, and so a
//! connection, per request. HTTP/1.1, or HTTP/2 over TLS by ALPN (the case's version alone is offered). hyper
//! exposes no connect or TLS timings, so its cases have no phases.

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use httpbench_shared::model::HttpVersion;
use httpbench_shared::{ErrorKind, Mode, Outcome};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::runtime::{Builder, Runtime};

use super::classify::{body_against_length, chain_kind, describe};
use super::library::Library;
use super::pool::{run_tasks, Done, Pool, Record, Round, RoundEnd, Sample};
use super::{tls, DriverConfig};

/// The `hyper` row of the client table.
pub(super) struct Lib;

impl Library for Lib {
    fn name(&self) -> &'static str {
        "hyper"
    }

    fn driver(&self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Pool>> {
        Ok(Box::new(HyperPool::new(config, in_flight)?))
    }
}

type HyperClient = Client<HttpsConnector<HttpConnector>, Empty<Bytes>>;

/// `in_flight` tasks on the driver's one thread, sharing one client in reuse mode.
struct HyperPool {
    config: DriverConfig,
    runtime: Runtime,
    client: Option<HyperClient>,
    in_flight: usize,
}

impl HyperPool {
    fn new(config: &DriverConfig, in_flight: usize) -> anyhow::Result<Self> {
        let runtime = Builder::new_current_thread().enable_all().build()?;
        Ok(HyperPool { config: config.clone(), runtime, client: None, in_flight: in_flight.max(1) })
    }
}

/// A client as every request of a case uses it: TCP_NODELAY, the case's version alone offered by ALPN, the
/// run's CA trusted (verification on), HTTP/2's header list bounded as the other clients bound it.
fn new_client(config: &DriverConfig) -> Result<HyperClient, String> {
    let mut tls = tls::client_config(config.cacert.as_deref(), config.http).map_err(|e| format!("tls: {e}"))?;
    // hyper-rustls offers by ALPN the versions enabled below, and refuses a configuration that names its own.
    tls.alpn_protocols.clear();
    let mut http = HttpConnector::new();
    http.set_nodelay(true);
    http.enforce_http(false);
    let connector = HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http();
    let connector = match config.http {
        HttpVersion::Http2 => connector.enable_http2().wrap_connector(http),
        _ => connector.enable_http1().wrap_connector(http),
    };
    let mut builder = Client::builder(TokioExecutor::new());
    builder.http2_only(config.http == HttpVersion::Http2);
    builder.http2_max_header_list_size(crate::tls::MAX_FIELD_SECTION_BYTES as u32);
    Ok(builder.build(connector))
}

/// One GET within the request's deadline, its body read whole and held to its Content-Length.
async fn get(client: &HyperClient, config: &DriverConfig) -> Done {
    match tokio::time::timeout(config.timeout, exchange(client, config)).await {
        Ok(Ok(outcome)) => Done { outcome, phases: None, reason: None },
        Ok(Err((kind, why))) => Done::failed(Outcome::failed(kind, None), why),
        Err(_) => Done::failed(
            Outcome::failed(ErrorKind::Timeout, None),
            "no whole answer within the request's deadline (--timeout)".into(),
        ),
    }
}

/// The request and its body; a failure as its kind and one line.
async fn exchange(client: &HyperClient, config: &DriverConfig) -> Result<Outcome, (ErrorKind, String)> {
    let uri: hyper::Uri = config.url.as_str().parse().map_err(|e| (ErrorKind::Other, format!("{e}")))?;
    let failed = |e: &(dyn std::error::Error + 'static)| (chain_kind(e).unwrap_or(ErrorKind::Other), describe(e));
    let response = client.get(uri).await.map_err(|e| failed(&e))?;
    let status = response.status().as_u16();
    let http = match response.version() {
        hyper::Version::HTTP_2 => Some(HttpVersion::Http2),
        hyper::Version::HTTP_11 => Some(HttpVersion::Http11),
        _ => None,
    };
    let declared = response.headers().get(hyper::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse().ok());
    let mut body = response.into_body();
    let mut bytes = 0u64;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| failed(&e))?;
        bytes += frame.data_ref().map_or(0, |d| d.len() as u64);
        if declared.is_some_and(|d| bytes > d) {
            break;
        }
    }
    if let Some(wrong) = body_against_length(declared, bytes) {
        return Err(wrong);
    }
    Ok(Outcome::response(status, bytes).over(http))
}

/// One request of a task: a client of its own in fresh mode, else the shared one.
async fn pooled(config: &DriverConfig, shared: Option<&HyperClient>) -> Done {
    match shared {
        Some(client) => get(client, config).await,
        None => match new_client(config) {
            Ok(client) => get(&client, config).await,
            Err(why) => Done::failed(Outcome::failed(ErrorKind::Tls, None), why),
        },
    }
}

impl Pool for HyperPool {
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd {
        if self.client.is_none() && self.config.mode == Mode::Reuse {
            // Building the connector needs no runtime; its connections are made on this one.
            match new_client(&self.config) {
                Ok(c) => self.client = Some(c),
                Err(why) => {
                    let outcome = Outcome::failed(ErrorKind::Tls, None);
                    record.sample(Sample { outcome, latency: Default::default(), phases: None, reason: Some(why) });
                    return RoundEnd::default();
                }
            }
        }
        let (config, shared) = (&self.config, self.client.as_ref());
        run_tasks(&self.runtime, self.in_flight, round, record, || pooled(config, shared));
        RoundEnd::default()
    }
}
