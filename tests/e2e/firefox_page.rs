//! The page as a person opens it in Firefox: on a static host that sends no headers, its service worker
//! isolates it, a benchmark against `httpbench serve` on another port runs, its charts are drawn and a pasted
//! CLI result joins its report; served by `httpbench serve`, a run is exported as the file Firefox saves and
//! shared as a link that the CLI reads and Firefox opens as that report, without running anything. Firefox is driven by its own
//! built-in WebDriver BiDi (`--remote-debugging-port`, a WebSocket; no geckodriver), a few commands of it.

use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use httpbench::process::KillOnDrop;
use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::share;
use serde_json::{json, Value};
use tungstenite::{stream::MaybeTlsStream, Message, WebSocket};

use crate::helpers::{refused_port, run, Serve};
use crate::hosted::{autorun_query, ISOLATED_AND_DONE};
use crate::page::plain_static_server;

/// Headless Firefox with a fresh profile, and a BiDi session on its one tab.
struct Firefox {
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    context: String,
    _browser: KillOnDrop,
    _profile: tempfile::TempDir,
}

impl Firefox {
    fn start() -> Firefox {
        Firefox::start_with("")
    }

    /// Firefox with `more` prefs (`user_pref(...)` lines) after the run's own.
    fn start_with(more: &str) -> Firefox {
        let profile = tempfile::tempdir().unwrap();
        // The run's own prefs: the same user.js `run --browser firefox` writes.
        let prefs = httpbench::browser::firefox_user_js() + more;
        std::fs::write(profile.path().join("user.js"), prefs).unwrap();
        let port = refused_port();
        let mut cmd = Command::new("firefox-esr");
        cmd.args(["--headless", "--no-remote", "--remote-debugging-port", &port.to_string(), "--profile"])
            .arg(profile.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let browser = KillOnDrop::spawn(&mut cmd).expect("firefox-esr runs (scripts/setup-web.sh --firefox)");
        let url = format!("ws://127.0.0.1:{port}/session");
        let started = Instant::now();
        let socket = loop {
            match tungstenite::connect(&url) {
                Ok((socket, _)) => break socket,
                Err(e) if started.elapsed() > Duration::from_secs(30) => panic!("no BiDi on {url}: {e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        };
        let mut ff = Firefox { socket, next_id: 0, context: String::new(), _browser: browser, _profile: profile };
        ff.send("session.new", json!({"capabilities": {}}));
        let tree = ff.send("browsingContext.getTree", json!({}));
        ff.context = tree["contexts"][0]["context"].as_str().unwrap().to_string();
        ff
    }

    /// Send one command and wait (at most 60 s) for its answer, success or error.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let command = json!({"id": id, "method": method, "params": params}).to_string();
        self.socket.send(Message::text(command)).unwrap();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(60) {
            let Message::Text(text) = self.socket.read().unwrap() else { continue };
            let answer: Value = serde_json::from_str(text.as_str()).unwrap();
            if answer["id"] == id {
                return answer;
            }
        }
        panic!("{method}: no answer in 60 s");
    }

    /// Send one command that must succeed; its answer's `result`.
    fn send(&mut self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params);
        assert_eq!(answer["type"], "success", "{method}: {answer}");
        answer["result"].clone()
    }

    fn navigate(&mut self, url: &str) {
        let context = self.context.clone();
        self.send("browsingContext.navigate", json!({"context": context, "url": url, "wait": "complete"}));
    }

    /// The text of the element with `data-testid` `id`.
    fn testid(&mut self, id: &str) -> String {
        self.eval(&format!("document.querySelector(\"[data-testid='{id}']\").textContent"))
    }

    /// Evaluate `js` every 200 ms until `done` holds for its value (at most `secs` s); the last value.
    fn wait_for(&mut self, js: &str, secs: u64, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let value = self.eval(js);
            if done(&value) || started.elapsed() > Duration::from_secs(secs) {
                return value;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `js`'s string value, or "" when it is not a string or the page is between documents.
    fn eval(&mut self, js: &str) -> String {
        let target = json!({"context": self.context});
        let answer = self.call("script.evaluate", json!({"expression": js, "target": target, "awaitPromise": false}));
        answer["result"]["result"]["value"].as_str().unwrap_or_default().to_string()
    }
}

#[test]
#[ignore = "needs the built page (dist/), Chromium and Firefox ESR: scripts/test.sh runs it"]
fn in_firefox_on_a_host_without_headers_the_worker_isolates_the_page_and_it_runs() {
    let dist = crate::browser_run::dist();
    let target = Serve::start();
    let (_site, site) = plain_static_server(&dist);
    let mut firefox = Firefox::start();
    firefox.navigate(&format!("{site}?{}", autorun_query(&target.url).to_query()));
    let mut done = false;
    let started = Instant::now();
    while !done && started.elapsed() < Duration::from_secs(120) {
        done = firefox.eval(ISOLATED_AND_DONE) == "true";
        std::thread::sleep(Duration::from_millis(250));
    }
    let text = firefox.eval("document.body.innerText.slice(0, 400)");
    assert!(done, "not isolated and done in 120 s: {text}");
    let testid =
        |ff: &mut Firefox, id: &str| ff.eval(&format!("document.querySelector(\"[data-testid='{id}']\").textContent"));
    assert_eq!(testid(&mut firefox, "isolation"), "by the page's service worker");
    let report = parse_reports(&testid(&mut firefox, "result-json")).expect("the page's result file")[0].clone();
    assert!(report.environment.user_agent.as_deref().unwrap_or_default().contains("Firefox/"), "{report:?}");
    assert_eq!(report.environment.cross_origin_isolated, Some(true));
    let step = report.environment.timer_resolution_ns.expect("a measured timer step");
    assert!(step <= 20_000.0, "an isolated Firefox page's timer steps by 20 µs, not 1 ms: {step} ns");
    for c in &report.cases {
        assert_eq!(c.ok, 20, "{} against httpbench serve on another port: {c:?}", c.client);
    }
    // The charts are drawn: a bar per case.
    let bars = firefox
        .eval("String(document.querySelector(\"[data-testid='rate-chart']\").innerHTML.split('<rect').length - 1)");
    assert_eq!(bars, "2", "fetch and js-fetch");
    // A CLI result pasted in joins the report, each case named by its environment.
    let (code, cli_json, err) =
        run(&["run", &target.url, "-n", "50", "--clients", "curl", "--mode", "reuse", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let paste = format!(
        "const t = document.querySelector(\"[data-testid='import-paste']\"); t.value = {}; \
         t.dispatchEvent(new Event('input')); document.querySelector(\"[data-testid='import-paste-button']\").click(); ''",
        serde_json::to_string(&cli_json).unwrap()
    );
    firefox.eval(&paste);
    let rows = "[...document.querySelectorAll(\"[data-testid='stats-row']\")].map(r => r.dataset.case).join(' ')";
    let started = Instant::now();
    let mut labels = String::new();
    while !labels.contains("native/") && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(200));
        labels = firefox.eval(rows);
    }
    assert!(labels.contains("firefox/fetch") && labels.contains("native/curl"), "{labels}");
    let report = testid(&mut firefox, "report");
    assert!(report.contains("· firefox "), "the header names the engine: {report}");
}

#[test]
#[ignore = "needs the built page (dist/), Chromium and Firefox ESR: scripts/test.sh runs it"]
fn in_firefox_a_run_is_exported_as_a_file_and_shared_as_a_link_that_opens_as_its_report() {
    let dist = crate::browser_run::dist();
    // The page posts its result back: into a folder of the test's, not the default one in the working tree.
    let results = tempfile::tempdir().unwrap();
    let serve =
        Serve::start_with(&["--page-dir", dist.to_str().unwrap(), "--results-dir", results.path().to_str().unwrap()]);
    // Downloads land in a folder of the test's, without a dialog.
    let downloads = tempfile::tempdir().unwrap();
    let prefs = format!(
        "user_pref(\"browser.download.folderList\", 2);\nuser_pref(\"browser.download.dir\", {:?});\n\
         user_pref(\"browser.download.useDownloadDir\", true);\n\
         user_pref(\"browser.download.always_ask_before_handling_new_types\", false);\n\
         user_pref(\"browser.helperApps.neverAsk.saveToDisk\", \"application/json\");\n",
        downloads.path().to_str().unwrap()
    );
    let mut firefox = Firefox::start_with(&prefs);
    let page = format!("{}app/", serve.url);
    firefox.navigate(&format!("{page}?{}", autorun_query(&serve.url).to_query()));
    let state = "document.querySelector(\"[data-testid='status']\").dataset.state";
    assert_eq!(firefox.wait_for(state, 120, |s| s == "done"), "done", "{}", firefox.testid("status"));
    let own = parse_reports(&firefox.testid("result-json")).expect("the page's result file");

    // Export: the file Firefox saves is the page's result file.
    firefox.eval("document.querySelector(\"[data-testid='export-json']\").click(); ''");
    let started = Instant::now();
    let saved = loop {
        let done = std::fs::read_dir(downloads.path()).unwrap().flatten().map(|e| e.path()).find(|p| {
            // Firefox writes a `.part` file and renames it when the download is complete.
            p.extension().is_some_and(|x| x == "json")
        });
        match done {
            Some(p) => break p,
            None if started.elapsed() > Duration::from_secs(30) => panic!("no file exported in 30 s"),
            None => std::thread::sleep(Duration::from_millis(200)),
        }
    };
    let exported = parse_reports(&std::fs::read_to_string(&saved).unwrap()).expect("an exported result file");
    assert_eq!(exported, own, "{}", saved.display());

    // Share: the link carries that report, the CLI reads it, and Firefox opens it as that report.
    firefox.eval("document.querySelector(\"[data-testid='share']\").click(); ''");
    let value = "document.querySelector(\"[data-testid='share-link']\").value";
    let link = firefox.wait_for(value, 30, |v| v.contains("#r="));
    assert!(link.starts_with(&page), "the page's own address, then #r=: {link}");
    assert_eq!(parse_reports(&share::decode(&link).unwrap()).unwrap(), own);
    let (code, text, err) = run(&["compare", &link]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("[link] httpbench-web") && text.contains("· firefox ") && text.contains("js-fetch"),
        "{text}"
    );
    firefox.navigate("about:blank");
    firefox.navigate(&link);
    let rows = "[...document.querySelectorAll(\"[data-testid='stats-row']\")].map(r => r.dataset.case).join(' ')";
    let labels = firefox.wait_for(rows, 30, |l| l.split(' ').count() == 2);
    let mut labels: Vec<&str> = labels.split(' ').collect();
    labels.sort();
    assert_eq!(labels, ["fetch", "js-fetch"], "one report: the labels name the clients alone");
    assert!(firefox.testid("imported").contains("shared-link"), "{}", firefox.testid("imported"));
    assert_eq!(firefox.eval(state), "idle", "nothing was run");
}
