//! Checked options of `httpbench serve`: the address, threads, the page's folder, TLS and the origins allowed to
//! post results.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use crate::args::ServeArgs;
use crate::server::page::Page;
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
    let page = page(a.page_dir.as_deref())?;
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
        page,
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

/// `--page-dir`, checked to hold a built page; without the flag, the default page if there is one.
pub(super) fn page(given: Option<&Path>) -> Result<Option<Page>, Usage> {
    match given {
        Some(d) => match Page::dir(d) {
            Some(p) => Ok(Some(p)),
            None => usage(format!(
                "--page-dir {}: no index.html there; give the folder scripts/build-page.sh builds (dist/)",
                d.display()
            )),
        },
        None => Ok(default_page()),
    }
}

/// `./dist`, else `dist/` of the repository this binary was built in (`target/<profile>/httpbench`), else the
/// page built into this binary: a page being worked on comes before the copy the binary was built with.
pub(super) fn default_page() -> Option<Page> {
    let here = PathBuf::from("dist");
    let beside_target =
        std::env::current_exe().ok().and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("dist")));
    let dirs = [Some(here), beside_target].into_iter().flatten();
    dirs.filter_map(|d| Page::dir(&d)).next().or_else(Page::embedded)
}
