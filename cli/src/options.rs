//! Checked options: raw arguments turned into values that are known to be usable, before any work starts.
//! Every error names the flag and the bad value, and says what would work.

use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use httpbench_shared::model::Pin;
use httpbench_shared::{Format, Mode, RateBasis};
use url::Url;

use crate::args::{CompareArgs, RunArgs, ServeArgs};
use crate::clients::ClientKind;
use crate::server::ServeOptions;

/// A mistake in the command line: reported on one line, exit code 2, before any work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage(pub String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

fn usage<T>(msg: impl Into<String>) -> Result<T, Usage> {
    Err(Usage(msg.into()))
}

/// Checked options of `httpbench run`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The URL to benchmark; `None` means the embedded server.
    pub url: Option<Url>,
    /// Measured requests per case (`None` with a duration).
    pub count: Option<u64>,
    /// Measured time per case (`None` with a count).
    pub duration: Option<Duration>,
    /// Rounds per case.
    pub rounds: u32,
    /// Round-robin across cases.
    pub interleave: bool,
    /// Warm-up requests per case.
    pub warmup: u64,
    /// Clients, in the order given, without duplicates.
    pub clients: Vec<ClientKind>,
    /// Modes, fresh before reuse.
    pub modes: Vec<Mode>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Format printed on stdout.
    pub format: Format,
    /// Files to write, with their formats.
    pub exports: Vec<(Format, PathBuf)>,
    /// Which rate the Perl-style lines show.
    pub basis: RateBasis,
    /// Whether a progress bar may be shown (it still needs a terminal).
    pub progress: bool,
    /// CPU placement policy; `None` is auto.
    pub pin: Option<Pin>,
    /// The browser half of the run, with `--browser`.
    pub browser: Option<BrowserOptions>,
}

/// Checked `--browser` options.
#[derive(Debug, Clone)]
pub struct BrowserOptions {
    /// The Chromium binary.
    pub chromium: PathBuf,
    /// Browser client names, comma-separated.
    pub clients: String,
    /// The built page.
    pub page_dir: PathBuf,
}

/// Browser clients the page knows.
const BROWSER_CLIENTS: [&str; 5] = ["fetch", "gloo-net", "xhr", "reqwest", "js-fetch"];

fn browser_options(a: &RunArgs) -> Result<Option<BrowserOptions>, Usage> {
    if !a.browser {
        return Ok(None);
    }
    if a.duration.is_some() {
        return usage("--browser runs the page with a request count: use -n instead of --duration");
    }
    let clients: Vec<&str> = a.browser_clients.split(',').map(str::trim).filter(|c| !c.is_empty()).collect();
    if let Some(bad) = clients.iter().find(|c| !BROWSER_CLIENTS.contains(c)) {
        return usage(format!(
            "--browser-clients: unknown client '{bad}': expected some of {}",
            BROWSER_CLIENTS.join(", ")
        ));
    }
    if clients.is_empty() {
        return usage("--browser-clients names no client");
    }
    let page_dir = match &a.page_dir {
        Some(d) if d.join("index.html").is_file() => d.clone(),
        Some(d) => {
            return usage(format!(
                "--page-dir {}: no index.html there; {}",
                d.display(),
                crate::server::page::HOW_TO_BUILD
            ))
        }
        None => default_page_dir()
            .ok_or_else(|| Usage(format!("--browser needs the built page: {}", crate::server::page::HOW_TO_BUILD)))?,
    };
    let chromium = crate::browser::find_chromium(a.chromium.as_deref())?;
    Ok(Some(BrowserOptions { chromium, clients: clients.join(","), page_dir }))
}

/// Largest `-n`: a billion requests is days of benchmarking, larger is a typo.
const MAX_COUNT: u64 = 1_000_000_000;
/// `-n` when neither a count nor a duration is given: a stable figure in a few seconds per case.
pub const DEFAULT_COUNT: u64 = 2000;
/// Largest `--rounds`.
const MAX_ROUNDS: u32 = 10_000;
/// Longest `--duration` per case: a day.
const MAX_DURATION_SECS: f64 = 86_400.0;

/// `--duration`: seconds (`3`, `2.5`), or with a unit (`3s`, `500ms`, `2m`).
fn parse_duration(raw: &str) -> Result<Duration, Usage> {
    let t = raw.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    match num.trim().parse::<f64>().map(|v| v * scale) {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= MAX_DURATION_SECS => Ok(Duration::from_secs_f64(secs)),
        _ => usage(format!("--duration '{raw}' is not a usable time: give e.g. 3, 3s, 500ms or 2m (at most a day)")),
    }
}

impl RunOptions {
    /// Check `run` arguments.
    pub fn from_args(a: &RunArgs) -> Result<Self, Usage> {
        let duration = a.duration.as_deref().map(parse_duration).transpose()?;
        let count = match (a.count, duration) {
            (_, Some(_)) => None,
            (Some(n), None) if n == 0 || n > MAX_COUNT => {
                return usage(format!("-n/--count {n} is out of range: give 1 to {MAX_COUNT} requests per case"));
            }
            (n, None) => Some(n.unwrap_or(DEFAULT_COUNT)),
        };
        if a.rounds == 0 || a.rounds > MAX_ROUNDS {
            return usage(format!("--rounds {} is out of range: give 1 to {MAX_ROUNDS}", a.rounds));
        }
        if let Some(n) = count.filter(|n| *n < u64::from(a.rounds)) {
            return usage(format!("-n {n} is fewer than --rounds {}: give at least one request per round", a.rounds));
        }
        if a.warmup > MAX_COUNT {
            return usage(format!("--warmup {} is out of range: give 0 to {MAX_COUNT}", a.warmup));
        }
        if !(a.timeout.is_finite() && a.timeout > 0.0 && a.timeout <= 3600.0) {
            return usage(format!("--timeout {} is out of range: give seconds between 0 and 3600, e.g. 10", a.timeout));
        }
        let url = a.url.as_deref().map(parse_url).transpose()?;
        let clients = parse_clients(&a.clients)?;
        if let Some(url) = &url {
            if let Some(c) = clients.iter().find(|c| !c.supports_scheme(url.scheme())) {
                return usage(format!(
                    "--clients: {c} cannot fetch {}:// URLs (it speaks plain http); drop it or use an http:// URL",
                    url.scheme()
                ));
            }
        }
        let exports =
            [(Format::Json, &a.export_json), (Format::Markdown, &a.export_markdown), (Format::Csv, &a.export_csv)]
                .into_iter()
                .filter_map(|(f, p)| p.as_ref().map(|p| (f, p.clone())))
                .map(|(f, p)| check_export(&p, f).map(|()| (f, p)))
                .collect::<Result<Vec<_>, _>>()?;
        let cases = clients.len() * parse_modes(&a.mode)?.len();
        Ok(RunOptions {
            url,
            count,
            duration,
            rounds: a.rounds,
            interleave: !a.no_interleave && cases > 1,
            warmup: a.warmup,
            clients,
            modes: parse_modes(&a.mode)?,
            timeout: Duration::from_secs_f64(a.timeout),
            format: parse_format(&a.format)?,
            exports,
            basis: if a.perl { RateBasis::Cpu } else { RateBasis::Wall },
            progress: !a.no_progress,
            pin: crate::placement::parse_pin(&a.pin).map_err(Usage)?,
            browser: browser_options(a)?,
        })
    }
}

/// An absolute http(s) URL with a host.
pub fn parse_url(raw: &str) -> Result<Url, Usage> {
    let url = Url::parse(raw).map_err(|e| {
        Usage(format!("URL '{raw}' is not valid ({e}): give an absolute URL such as http://127.0.0.1:8080/"))
    })?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return usage(format!(
            "URL '{raw}' has scheme '{}': httpbench fetches http:// and https:// URLs",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return usage(format!("URL '{raw}' has no host: give one, e.g. http://127.0.0.1:8080/"));
    }
    Ok(url)
}

fn parse_clients(list: &str) -> Result<Vec<ClientKind>, Usage> {
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if name == "all" {
            out.extend(ClientKind::ALL);
            continue;
        }
        out.push(name.parse::<ClientKind>().map_err(|e| Usage(format!("--clients: {e}")))?);
    }
    let mut seen = Vec::new();
    out.retain(|c| {
        if seen.contains(c) {
            false
        } else {
            seen.push(*c);
            true
        }
    });
    if out.is_empty() {
        return usage(format!("--clients '{list}' names no client: give some of {}", ClientKind::names()));
    }
    Ok(out)
}

fn parse_modes(mode: &str) -> Result<Vec<Mode>, Usage> {
    match mode {
        "fresh" => Ok(vec![Mode::Fresh]),
        "reuse" => Ok(vec![Mode::Reuse]),
        "both" => Ok(vec![Mode::Fresh, Mode::Reuse]),
        other => usage(format!("--mode '{other}' is not a mode: give fresh, reuse or both")),
    }
}

fn parse_format(f: &str) -> Result<Format, Usage> {
    f.parse().map_err(|e| Usage(format!("--format: {e}")))
}

/// Refuse an export path whose directory does not exist before spending minutes on a run.
fn check_export(path: &Path, format: Format) -> Result<(), Usage> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return usage(format!("--export-{format} {}: is a directory; give a file name", path.display()));
    }
    if !dir.is_dir() {
        return usage(format!(
            "--export-{format} {}: directory {} does not exist; create it first",
            path.display(),
            dir.display()
        ));
    }
    Ok(())
}

/// Checked options of `httpbench serve`.
pub fn serve_options(a: &ServeArgs) -> Result<ServeOptions, Usage> {
    let bind: IpAddr = a
        .bind
        .parse()
        .map_err(|_| Usage(format!("--bind '{}' is not an IP address: give one such as 127.0.0.1", a.bind)))?;
    let threads = match a.threads {
        Some(0) => return usage("--threads 0: give at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    let page_dir = match &a.page_dir {
        Some(d) if d.join("index.html").is_file() => Some(d.clone()),
        Some(d) => {
            return usage(format!(
                "--page-dir {}: no index.html there; {}",
                d.display(),
                crate::server::page::HOW_TO_BUILD
            ))
        }
        None => default_page_dir(),
    };
    Ok(ServeOptions {
        bind,
        port: a.port,
        threads,
        cpu: a.cpu,
        page_dir,
        results_dir: Some(a.results_dir.clone()),
        open: a.open,
        quiet: a.quiet,
    })
}

/// `./dist`, else `dist/` of the repository this binary was built in (`target/<profile>/httpbench`).
pub fn default_page_dir() -> Option<PathBuf> {
    let here = PathBuf::from("dist");
    let beside_target =
        std::env::current_exe().ok().and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("dist")));
    [Some(here), beside_target].into_iter().flatten().find(|d| d.join("index.html").is_file())
}

/// Checked options of `httpbench compare`.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// The result files, in the order given.
    pub files: Vec<PathBuf>,
    /// Output format.
    pub format: Format,
    /// Which rate the Perl-style lines show.
    pub basis: RateBasis,
}

impl CompareOptions {
    /// Check `compare` arguments.
    pub fn from_args(a: &CompareArgs) -> Result<Self, Usage> {
        Ok(CompareOptions {
            files: a.files.clone(),
            format: parse_format(&a.format)?,
            basis: if a.perl { RateBasis::Cpu } else { RateBasis::Wall },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_with_the_value_named() {
        assert!(parse_url("http://127.0.0.1:8080/").is_ok());
        let e = parse_url("ftp://example.com/").unwrap_err();
        assert!(e.0.contains("'ftp://example.com/'") && e.0.contains("scheme"), "{e}");
        let e = parse_url("not a url").unwrap_err();
        assert!(e.0.contains("'not a url'"), "{e}");
        assert!(parse_url("http://").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("-1s").unwrap_err().0.contains("'-1s'"));
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn clients_and_modes() {
        assert_eq!(parse_clients("curl, raw,curl").unwrap(), vec![ClientKind::Curl, ClientKind::Raw]);
        assert_eq!(parse_clients("all").unwrap().len(), 5);
        assert!(parse_clients("wget").unwrap_err().0.contains("'wget'"));
        assert!(parse_clients(",").is_err());
        assert_eq!(parse_modes("both").unwrap(), vec![Mode::Fresh, Mode::Reuse]);
        assert!(parse_modes("sometimes").unwrap_err().0.contains("'sometimes'"));
    }
}
