//! The little of WebDriver httpbench speaks to WebKitWebDriver (HTTP and JSON on a loopback port): wait until
//! it is ready, start a session of MiniBrowser that accepts the servers' certificates, open the start page
//! without waiting for it to load, and say nothing more. The whole start is bounded by one deadline; a driver
//! that exits or refuses is reported with what it said and its log's tail. What a program of this machine can
//! reach meanwhile: the driver's port (driving the browser needs the session's id, a random UUID known to this
//! run alone) and MiniBrowser's remote-inspector port, which WebKitWebDriver makes it open on 127.0.0.1 for
//! itself (WebKitGTK has no other way to automate it) and which this run cannot close (the README says so).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::{json, Value};

use crate::browser::engine::{tail, Started};
use crate::process::KillOnDrop;

/// How long the whole start may take: the driver ready, the session (MiniBrowser starts: 1-3 s here), the
/// start page asked for.
const WITHIN: Duration = Duration::from_secs(60);

/// A free TCP port on 127.0.0.1 for the driver (it listens on loopback alone, by default). Another program
/// could take it before the driver does: the driver then exits, and that is reported.
pub(super) fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("no free port for WebKitWebDriver")?;
    Ok(listener.local_addr()?.port())
}

/// Through `driver`, listening on `port`: start `browser` (MiniBrowser) accepting `certificates` for
/// 127.0.0.1, and open `url`; the driver's guard, which now ends the browser too, and the browser's version
/// as the session tells it.
pub(super) fn open(
    mut driver: KillOnDrop,
    port: u16,
    browser: &Path,
    certificates: &[String],
    url: &str,
    log: &Path,
) -> anyhow::Result<Started> {
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + WITHIN;
    let browser = browser.to_str().context("MiniBrowser's path is not UTF-8")?;
    wait_ready(&base, &mut driver, deadline, log)?;
    let session = call(&format!("{base}/session"), &capabilities(browser, certificates), deadline)
        .with_context(|| format!("WebKitWebDriver could not start {browser}; its log:\n{}", tail(log)))?;
    let id = session["sessionId"].as_str().context("WebKitWebDriver started a session without an id")?;
    call(&format!("{base}/session/{id}/url"), &json!({ "url": url }), deadline)
        .with_context(|| format!("WebKitWebDriver could not open the start page; its log:\n{}", tail(log)))?;
    let version = session["capabilities"]["browserVersion"].as_str().map(String::from);
    Ok(Started { browser: driver, version })
}

/// The session asked of the driver: `browser` as an automated MiniBrowser accepting `certificates`, each
/// for every address the run's servers listen on (127.0.0.1; with `--link` the server's addresses in its
/// namespace); no wait for a page to load (the page runs on its own).
fn capabilities(browser: &str, certificates: &[String]) -> Value {
    let hosts = std::iter::once("127.0.0.1").chain(crate::netem::SERVER_ADDRS);
    let certificates: Vec<Value> = hosts
        .flat_map(|host| certificates.iter().map(move |file| json!({ "host": host, "certificateFile": file })))
        .collect();
    json!({ "capabilities": { "alwaysMatch": {
        "pageLoadStrategy": "none",
        "webkitgtk:browserOptions": {
            "binary": browser,
            "args": ["--automation"],
            "certificates": certificates,
        }
    } } })
}

/// An agent whose every call ends by `deadline` (at least a second is left to it), and which goes to the
/// driver directly, whatever proxy the environment names.
fn agent(deadline: Instant) -> ureq::Agent {
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_secs(1));
    ureq::Agent::config_builder().timeout_global(Some(left)).http_status_as_error(false).proxy(None).build().into()
}

/// Wait until the driver says it is ready; an error if it exits or `deadline` passes.
fn wait_ready(base: &str, driver: &mut KillOnDrop, deadline: Instant, log: &Path) -> anyhow::Result<()> {
    loop {
        if let Some(status) = driver.try_wait()? {
            bail!("WebKitWebDriver exited ({status}) before it was ready; its log:\n{}", tail(log));
        }
        let status = agent(deadline).get(format!("{base}/status")).call();
        let body = status.ok().and_then(|mut r| r.body_mut().read_to_string().ok());
        let ready: Option<Value> = body.and_then(|body| serde_json::from_str(&body).ok());
        if ready.is_some_and(|v| v["value"]["ready"] == json!(true)) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("WebKitWebDriver was not ready within {} s; its log:\n{}", WITHIN.as_secs(), tail(log));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// POST `body` to `url` by `deadline`; the answer's `value`, or the driver's error in its words.
fn call(url: &str, body: &Value, deadline: Instant) -> anyhow::Result<Value> {
    let mut response = agent(deadline)
        .post(url)
        .header("content-type", "application/json")
        .send(body.to_string())
        .context("no answer")?;
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().context("an unreadable answer")?;
    let answer: Value = serde_json::from_str(&text).with_context(|| format!("an answer that is not JSON: {text}"))?;
    match status {
        200 => Ok(answer["value"].clone()),
        _ => bail!("{status} {}: {}", answer["value"]["error"], answer["value"]["message"]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_accepts_each_certificate_for_the_loopback_address_and_waits_for_no_load() {
        let caps = capabilities("/usr/lib/MiniBrowser", &["/tmp/a.pem".into(), "/tmp/b.pem".into()]);
        let options = &caps["capabilities"]["alwaysMatch"]["webkitgtk:browserOptions"];
        assert_eq!(options["binary"], "/usr/lib/MiniBrowser");
        assert_eq!(options["args"], json!(["--automation"]));
        assert_eq!(options["certificates"][1], json!({ "host": "127.0.0.1", "certificateFile": "/tmp/b.pem" }));
        assert_eq!(caps["capabilities"]["alwaysMatch"]["pageLoadStrategy"], "none");
    }
}
