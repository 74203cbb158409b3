//! The page in headless Firefox, driven by its built-in WebDriver BiDi (`--remote-debugging-port`, a
//! WebSocket; no geckodriver), a few commands of it. Firefox is found as `run --browser firefox` finds it
//! (HTTPBENCH_FIREFOX, else `firefox-esr` or `firefox` on PATH) and started with the run's own prefs. Every
//! read from the socket has a deadline: a browser that stops answering fails the test naming the command,
//! never hangs it.

use std::cell::RefCell;
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use httpbench::process::KillOnDrop;
use httpbench_shared::model::Engine;
use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

use super::page::PageDriver;
use super::servers::refused_port;

/// How long one command may wait for its answer.
const ANSWER_LIMIT: Duration = Duration::from_secs(60);

/// Headless Firefox with a fresh profile, and a BiDi session on its one tab.
pub(crate) struct Firefox {
    session: RefCell<Session>,
    context: String,
    _browser: KillOnDrop,
    _profile: tempfile::TempDir,
}

/// The BiDi connection, and the id of the last command sent on it.
struct Session {
    socket: WebSocket<TcpStream>,
    last_id: u64,
}

impl Firefox {
    pub(crate) fn start() -> Firefox {
        Firefox::start_with("")
    }

    /// Firefox with `more` prefs (`user_pref(...)` lines) after the run's own.
    pub(crate) fn start_with(more: &str) -> Firefox {
        let profile = tempfile::tempdir().unwrap();
        // The run's own prefs: the same user.js `run --browser firefox` writes.
        let prefs = httpbench::browser::firefox_user_js() + more;
        std::fs::write(profile.path().join("user.js"), prefs).unwrap();
        let explicit = std::env::var_os("HTTPBENCH_FIREFOX").map(PathBuf::from);
        let binary = httpbench::browser::find(Engine::Firefox, explicit.as_deref()).unwrap_or_else(|e| panic!("{e}"));
        let port = refused_port();
        let mut cmd = Command::new(&binary.path);
        cmd.args(["--headless", "--no-remote", "--remote-debugging-port", &port.to_string(), "--profile"])
            .arg(profile.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let browser = KillOnDrop::spawn(&mut cmd).unwrap_or_else(|e| panic!("{} runs: {e}", binary.path.display()));
        let session = RefCell::new(Session { socket: connect(port), last_id: 0 });
        let mut ff = Firefox { session, context: String::new(), _browser: browser, _profile: profile };
        ff.send("session.new", json!({"capabilities": {}}));
        let tree = ff.send("browsingContext.getTree", json!({}));
        ff.context = tree["contexts"][0]["context"].as_str().unwrap().to_string();
        ff
    }

    /// Send one command and wait (at most [`ANSWER_LIMIT`]) for its answer, success or error.
    fn call(&self, method: &str, params: Value) -> Value {
        let mut session = self.session.borrow_mut();
        session.last_id += 1;
        let id = session.last_id;
        let command = json!({"id": id, "method": method, "params": params}).to_string();
        session.socket.send(Message::text(command)).unwrap_or_else(|e| panic!("{method}: not sent: {e}"));
        let deadline = Instant::now() + ANSWER_LIMIT;
        loop {
            // Each read waits at most until the deadline; a read that times out is an error, not a hang.
            let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
            session.socket.get_ref().set_read_timeout(Some(left)).unwrap();
            let message = session
                .socket
                .read()
                .unwrap_or_else(|e| panic!("{method}: Firefox gave no answer within {ANSWER_LIMIT:?} ({e})"));
            // Events and the answers to other commands are not this command's answer.
            let Message::Text(text) = message else { continue };
            let answer: Value = serde_json::from_str(text.as_str()).unwrap();
            if answer["id"] == id {
                return answer;
            }
            assert!(Instant::now() < deadline, "{method}: no answer within {ANSWER_LIMIT:?}");
        }
    }

    /// Send one command that must succeed; its answer's `result`.
    fn send(&self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params);
        assert_eq!(answer["type"], "success", "{method}: {answer}");
        answer["result"].clone()
    }
}

impl PageDriver for Firefox {
    /// Loads `url` and waits for its load to end.
    fn navigate(&self, url: &str) {
        self.send("browsingContext.navigate", json!({"context": self.context, "url": url, "wait": "complete"}));
    }

    fn evaluate(&self, js: &str) -> Result<Option<String>, String> {
        let target = json!({"context": self.context});
        let answer = self.call("script.evaluate", json!({"expression": js, "target": target, "awaitPromise": false}));
        if answer["type"] != "success" {
            return Err(answer.to_string());
        }
        let result = &answer["result"];
        if result["type"] == "exception" {
            return Err(result["exceptionDetails"]["text"].to_string());
        }
        Ok(result["result"]["value"].as_str().map(str::to_string))
    }
}

/// The BiDi session's WebSocket on `port`, once Firefox listens there (at most 30 s). The handshake has a
/// read timeout too: a port that accepts and never answers is retried, not waited on.
fn connect(port: u16) -> WebSocket<TcpStream> {
    let url = format!("ws://127.0.0.1:{port}/session");
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let started = Instant::now();
    loop {
        let attempt =
            TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(|e| e.to_string()).and_then(|s| {
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                tungstenite::client(url.as_str(), s).map(|(socket, _)| socket).map_err(|e| e.to_string())
            });
        match attempt {
            Ok(socket) => return socket,
            Err(e) if started.elapsed() > Duration::from_secs(30) => panic!("no BiDi on {url}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}
