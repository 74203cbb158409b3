//! The floor, `raw`: no client library does less work, so the gap between it and a library is that library's
//! overhead. Sequentially a std `TcpStream` with a request fixed in advance (`conn`, rustls on it over TLS);
//! at a level over plaintext one epoll loop (`pool`); over HTTP/3 quinn and h3 directly (`h3`).

mod conn;
mod h3;
mod pool;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::ClientInfo;

pub(super) use conn::RawDriver;

use super::library::{blocking, locked, Library};
use super::{DriverConfig, Pool};

/// The floor: sequentially a [`RawDriver`] (a thread each at a level over TLS), over plaintext at a level one
/// epoll loop (`pool`), over HTTP/3 tasks on one runtime (`h3`): the `raw` row of the client table.
pub(super) struct Lib;

impl Library for Lib {
    fn name(&self) -> &'static str {
        "raw"
    }

    fn driver(&self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Pool>> {
        Ok(match in_flight {
            _ if config.http == HttpVersion::Http3 => Box::new(h3::RawH3::new(config, in_flight)?),
            0 | 1 => blocking(1, || Ok(RawDriver::new(config)))?,
            n if config.url.scheme() == "http" => Box::new(pool::RawPool::new(config, n)?),
            n => blocking(n, || Ok(RawDriver::new(config)))?,
        })
    }

    fn version(&self, _: &ClientInfo) -> String {
        format!(
            "std::net::TcpStream (rustc {}), rustls {} over TLS, quinn {} + h3 {} over HTTP/3",
            env!("HTTPBENCH_RUSTC_VERSION"),
            locked("rustls"),
            locked("quinn"),
            locked("h3")
        )
    }
}
