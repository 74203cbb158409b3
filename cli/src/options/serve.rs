//! Checked options of `httpbench serve`: the address, threads, the page's folder, TLS and the origins allowed to
//! post results.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use crate::args::ServeArgs;
use crate::server::ServeOptions;
use crate::usage::{usage, Usage};

/// Checked options of `httpbench serve`.
pub(crate) fn serve_options(a: &ServeArgs) -> Result<ServeOptions, Usage> {
    let bind: IpAddr = a
        .bind
        .parse()
        .map_err(|_| Usage(format!("--bind '{}' is not an IP address: give one such as 127.0.0.1", a.bind)))?;
    let threads = match a.threads {
        Some(0) => return usage("--threads 0: give at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    let page_dir = page_dir(a.page_dir.as_deref())?;
    let allowed_origins = a
        .allow_origin
        .iter()
        .map(|o| crate::server::origin::canonical(o).map_err(|e| Usage(format!("--allow-origin '{o}': {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let server_delay_ms = match a.server_delay.as_deref().map(httpbench_shared::protocol::parse_delays) {
        None => 0,
        Some(Ok(ms)) if ms.len() == 1 => ms[0],
        Some(Ok(_)) => {
            let given = a.server_delay.as_deref().unwrap_or_default();
            return usage(format!(
                "--server-delay '{given}': give one think time to serve with, such as 5ms (a list scans only in run)"
            ));
        }
        Some(Err(e)) => return usage(format!("--server-delay: {e}")),
    };
    Ok(ServeOptions {
        server_delay_ms,
        bind,
        port: a.port,
        threads,
        cpu: a.cpu,
        page_dir,
        results_dir: Some(a.results_dir.clone()),
        open: a.open,
        quiet: a.quiet,
        sealed: a.sealed,
        tls: a.tls,
        http_versions: a.http.versions(),
        own_cert: match (&a.cert, &a.key) {
            (Some(cert), Some(key)) => Some(crate::server::tls::OwnCert::read(cert, key).map_err(Usage)?),
            _ => None,
        },
        allowed_origins,
    })
}

/// `--page-dir`, checked to hold a built page; without the flag, the default page if one is built.
pub(super) fn page_dir(given: Option<&Path>) -> Result<Option<PathBuf>, Usage> {
    match given {
        Some(d) if d.join("index.html").is_file() => Ok(Some(d.to_path_buf())),
        Some(d) => {
            usage(format!("--page-dir {}: no index.html there; {}", d.display(), crate::server::page::HOW_TO_BUILD))
        }
        None => Ok(default_page_dir()),
    }
}

/// `./dist`, else `dist/` of the repository this binary was built in (`target/<profile>/httpbench`).
pub(super) fn default_page_dir() -> Option<PathBuf> {
    let here = PathBuf::from("dist");
    let beside_target =
        std::env::current_exe().ok().and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("dist")));
    [Some(here), beside_target].into_iter().flatten().find(|d| d.join("index.html").is_file())
}
