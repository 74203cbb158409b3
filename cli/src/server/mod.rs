//! The embedded target server: hyper on tokio, HTTP/1.1 keep-alive, pre-built responses, no logging on the
//! hot path, so the server is never what a benchmark measures. `httpbench serve` runs it in the foreground;
//! `httpbench run` starts it as a child process ([`child`]) so its CPU time is not billed to the clients.

mod body;
pub mod child;
mod routes;

use std::convert::Infallible;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use anyhow::Context;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;

pub use routes::{INDEX_HTML, MAX_BYTES};

/// Checked options of `httpbench serve`.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to bind (127.0.0.1 unless the user asked otherwise).
    pub bind: IpAddr,
    /// Port; 0 picks a free one.
    pub port: u16,
    /// Worker threads; 1 gives the lowest latency for one sequential client.
    pub threads: usize,
    /// CPU to pin the server to (all its threads), if any.
    pub cpu: Option<usize>,
}

/// Run the server until Ctrl-C, printing `listening on http://ADDR/` first (the parent of a child server
/// reads that line to learn the port).
pub fn run_foreground(options: &ServeOptions) -> anyhow::Result<()> {
    if let Some(cpu) = options.cpu {
        // Before the runtime exists: every thread it starts inherits the mask.
        crate::placement::pin_current_thread(cpu).with_context(|| {
            format!("--cpu {cpu}: cannot pin the server to CPU {cpu}; give a CPU this process may use")
        })?;
    }
    let runtime = if options.threads <= 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(options.threads).enable_all().build()
    }
    .context("cannot start the server's runtime")?;
    runtime.block_on(async {
        let addr = SocketAddr::new(options.bind, options.port);
        let listener = TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}: is the port in use? Try --port 0 for a free one"))?;
        let local = listener.local_addr()?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on http://{}/", display_addr(local))?;
        out.flush()?;
        drop(out);
        tokio::select! {
            _ = serve(listener) => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok(())
    })
}

/// `127.0.0.1:8080`, or `[::1]:8080` for IPv6.
pub fn display_addr(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(a) => a.to_string(),
        SocketAddr::V6(a) => format!("[{}]:{}", a.ip(), a.port()),
    }
}

/// Accept connections forever, one task each.
pub async fn serve(listener: TcpListener) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors or a peer gone before accept: back off briefly, keep serving.
                eprintln!("httpbench serve: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let service = service_fn(|req| async move { Ok::<_, Infallible>(routes::respond(&req)) });
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(30))
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
