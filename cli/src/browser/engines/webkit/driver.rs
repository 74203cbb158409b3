//! The little of WebDriver httpbench speaks to WebKitWebDriver (HTTP and JSON on a loopback port): wait until
//! it is ready, start a session of MiniBrowser that accepts the servers' certificates, open the start page
//! without waiting for it to load, and say nothing more. Every call is bounded; a driver that exits or refuses
//! is reported with what it said and its log's tail. The session's id, a random UUID known to this run alone,
//! is what another program would need to drive the browser through the port.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::{json, Value};

use crate::browser::engine::{tail, Started};
use crate::process::KillOnDrop;

/// How long the driver may take to be ready, and each call (a session starts MiniBrowser: 1-3 s here).
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
    let agent: ureq::Agent =
        ureq::Agent::config_builder().timeout_global(Some(WITHIN)).http_status_as_error(false).build().into();
    wait_ready(&agent, &base, &mut driver, log)?;
    let session = call(&agent, &format!("{base}/session"), &capabilities(browser, certificates))
        .with_context(|| format!("WebKitWebDriver could not start {}; its log:\n{}", browser.display(), tail(log)))?;
    let id = session["sessionId"].as_str().context("WebKitWebDriver started a session without an id")?;
    call(&agent, &format!("{base}/session/{id}/url"), &json!({ "url": url }))
        .with_context(|| format!("WebKitWebDriver could not open the start page; its log:\n{}", tail(log)))?;
    let version = session["capabilities"]["browserVersion"].as_str().map(String::from);
    Ok(Started { browser: driver, version })
}

/// The session asked of the driver: `browser` as an automated MiniBrowser accepting `certificates`, each
/// for 127.0.0.1, where the run's servers listen; no wait for a page to load (the page runs on its own).
fn capabilities(browser: &Path, certificates: &[String]) -> Value {
    let certificates: Vec<Value> =
        certificates.iter().map(|file| json!({ "host": "127.0.0.1", "certificateFile": file })).collect();
    json!({ "capabilities": { "alwaysMatch": {
        "pageLoadStrategy": "none",
        "webkitgtk:browserOptions": {
            "binary": browser,
            "args": ["--automation"],
            "certificates": certificates,
        }
    } } })
}

/// Wait until the driver says it is ready; an error if it exits or takes longer than [`WITHIN`].
fn wait_ready(agent: &ureq::Agent, base: &str, driver: &mut KillOnDrop, log: &Path) -> anyhow::Result<()> {
    let start = Instant::now();
    loop {
        if let Some(status) = driver.try_wait()? {
            bail!("WebKitWebDriver exited ({status}) before it was ready; its log:\n{}", tail(log));
        }
        let ready =
            agent.get(format!("{base}/status")).call().ok().and_then(|mut r| r.body_mut().read_to_string().ok());
        let ready: Option<Value> = ready.and_then(|body| serde_json::from_str(&body).ok());
        if ready.is_some_and(|v| v["value"]["ready"] == json!(true)) {
            return Ok(());
        }
        if start.elapsed() > WITHIN {
            bail!("WebKitWebDriver was not ready within {} s; its log:\n{}", WITHIN.as_secs(), tail(log));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// POST `body` to `url`; the answer's `value`, or the driver's error in its words.
fn call(agent: &ureq::Agent, url: &str, body: &Value) -> anyhow::Result<Value> {
    let mut response =
        agent.post(url).header("content-type", "application/json").send(body.to_string()).context("no answer")?;
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
        let caps = capabilities(Path::new("/usr/lib/MiniBrowser"), &["/tmp/a.pem".into(), "/tmp/b.pem".into()]);
        let options = &caps["capabilities"]["alwaysMatch"]["webkitgtk:browserOptions"];
        assert_eq!(options["binary"], "/usr/lib/MiniBrowser");
        assert_eq!(options["args"], json!(["--automation"]));
        assert_eq!(options["certificates"][1], json!({ "host": "127.0.0.1", "certificateFile": "/tmp/b.pem" }));
        assert_eq!(caps["capabilities"]["alwaysMatch"]["pageLoadStrategy"], "none");
    }
}
