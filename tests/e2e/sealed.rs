//! A sealed run (issue 36): only the pages `run --browser` started, each with the seal it was handed, can take
//! their turns, post their status or their results; another program on the machine that talks to the run's
//! server as a page changes nothing (403). A page's result that does not answer the run's plan is refused with
//! what differs. Tested with a real `serve --sealed`, a stand-in browser (a second process that does what a
//! page with its seal could do) and a real Chromium run attacked while it measures.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use httpbench::process::KillOnDrop;
use serde_json::Value;

use crate::support::cli::{bin, export_run, SMALL_RAW};
use crate::support::http::post;
use crate::support::{scratch, wait_for};

const SEAL: &str = "sealsealsealsealsealsealsealsealsealseal123";
const WRONG: &str = "wrongwrongwrongwrongwrongwrongwrongwrong123";

/// `serve --quiet --sealed` with its stdin ours (where a run gives seals) and its stdout lines on a channel.
fn sealed_server(results: &Path) -> (KillOnDrop, String, Receiver<String>) {
    let mut child = KillOnDrop::spawn(
        bin()
            .args(["serve", "--port", "0", "--quiet", "--sealed", "--results-dir"])
            .arg(results)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped()),
    )
    .expect("httpbench serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok);
    let url = lines.next().and_then(|l| l.strip_prefix("listening on ").map(str::to_string)).expect("its address");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || lines.for_each(|l| drop(tx.send(l))));
    (child, url, rx)
}

/// The lines `rx` gives until one equals `last` (at most 10 s).
fn lines_until(rx: &Receiver<String>, last: &str) -> Vec<String> {
    let mut seen = Vec::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(10)) {
        let done = line == last;
        seen.push(line);
        if done {
            return seen;
        }
    }
    panic!("the server did not print {last:?}; it printed {seen:?}");
}

/// A result file a second process could post (a small native run's).
fn some_result(dir: &Path) -> Vec<u8> {
    let path = dir.join("some.json");
    export_run(&path, &SMALL_RAW);
    std::fs::read(path).unwrap()
}

#[test]
fn a_sealed_server_hears_only_the_pages_it_sealed() {
    let dir = scratch("sealed-server");
    let results = dir.join("results");
    let body = some_result(&dir);
    let (mut child, url, rx) = sealed_server(&results);
    writeln!(child.stdin.as_mut().unwrap(), "seal chromium {SEAL}").unwrap();
    lines_until(&rx, "sealed chromium");
    // Another program: no seal, a wrong one, the right one for another page, a page never sealed.
    for query in [
        "page=chromium".to_string(),
        format!("page=chromium&seal={WRONG}"),
        format!("page=firefox&seal={SEAL}"),
        format!("seal={SEAL}"),
    ] {
        let (head, answer) = post(&url, &format!("/results?{query}"), &body);
        assert!(head.starts_with("HTTP/1.1 403"), "{query}: {head}");
        assert!(String::from_utf8_lossy(&answer).contains("only the pages it started"), "{query}");
        let (head, _) = post(&url, &format!("/status?{query}"), b"refused forged by another program");
        assert!(head.starts_with("HTTP/1.1 403"), "{query}: {head}");
        let (head, _) = crate::support::http::get(&url, &format!("/turn?{query}&pass=99"));
        assert!(head.starts_with("HTTP/1.1 403"), "{query}: {head}");
    }
    assert_eq!(std::fs::read_dir(&results).map_or(0, |d| d.count()), 0, "nothing refused was saved");
    // The page with its seal is heard, and nothing before it was.
    let sealed = format!("page=chromium&seal={SEAL}");
    let (head, _) = post(&url, &format!("/status?{sealed}"), b"progress round 1/2");
    assert!(head.starts_with("HTTP/1.1 204"), "{head}");
    let heard = lines_until(&rx, "page chromium progress round 1/2");
    assert_eq!(heard, ["page chromium progress round 1/2"], "no refused request reached the parent");
    let (head, _) = post(&url, &format!("/results?{sealed}"), &body);
    assert!(head.starts_with("HTTP/1.1 201"), "{head}");
    let saved = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(saved.starts_with(&format!("saved chromium {}", results.display())), "{saved}");
}

/// A stand-in for Chromium (`--chromium` takes any program): it finds its page's address in the start page
/// it is given, reports what it saw of its own start and what an unsealed status got, and posts the file its
/// environment names as its page would, with the seal (the run's refusal then shows the server took it). Python, which the command clients need anyway.
const STAND_IN: &str = r##"#!/usr/bin/env python3
import json, os, re, stat, sys, urllib.request, urllib.parse
start = urllib.parse.urlparse(sys.argv[-1]).path
html = open(start).read()
address = json.loads(re.search(r"location\.replace\((.*)\)</script>", html).group(1))
url, _, fragment = address.partition("#")
parts = urllib.parse.urlparse(url)
page = urllib.parse.parse_qs(parts.query)["page"][0]
seal = fragment.removeprefix("seal=")
origin = f"{parts.scheme}://{parts.netloc}"
def send(path, body):
    try:
        return urllib.request.urlopen(urllib.request.Request(origin + path, data=body, method="POST"), timeout=10).status
    except urllib.error.HTTPError as e:
        return e.code
seen = {
    "argv": " ".join(sys.argv),
    "start_mode": oct(stat.S_IMODE(os.stat(start).st_mode)),
    "folder_mode": oct(stat.S_IMODE(os.stat(os.path.dirname(start)).st_mode)),
    "unsealed_status": send(f"/status?page={page}", b"refused forged"),
}
json.dump(seen, open(os.environ["SEEN"], "w"))
# With the seal the server takes it; the run reads it at once, refuses it and ends this "browser".
send(f"/results?page={page}&seal={seal}", open(os.environ["FORGED"], "rb").read())
import time; time.sleep(60)
"##;

#[test]
fn a_page_result_that_does_not_answer_the_plan_is_refused_and_the_seal_stays_private() {
    let dir = scratch("sealed-plan");
    let (stand_in, seen, forged, page_dir) =
        (dir.join("chromium"), dir.join("seen.json"), dir.join("forged.json"), dir.join("page"));
    std::fs::write(&stand_in, STAND_IN).unwrap();
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(&page_dir).unwrap();
    std::fs::write(page_dir.join("index.html"), "<!doctype html>").unwrap();
    // What a page might post: a browser report of another plan (n=20 where the run asks 50).
    let mut report: Value = serde_json::from_slice(&some_result(&dir)).unwrap();
    let r = if report.is_array() { &mut report[0] } else { &mut report };
    r["environment"]["kind"] = "browser".into();
    r["environment"]["user_agent"] = "Mozilla/5.0 HeadlessChrome/156.0.0.0 Safari/537.36".into();
    (r["settings"]["count"], r["settings"]["clients"], r["cases"]) =
        (20.into(), vec!["fetch"].into(), Vec::<Value>::new().into());
    std::fs::write(&forged, serde_json::to_vec(&report).unwrap()).unwrap();
    let export = dir.join("run.json");
    let args = ["run", "--browser", "chromium", "--chromium", stand_in.to_str().unwrap(), "--page-dir"];
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_httpbench"));
    cmd.args(args).arg(&page_dir).args(["-n", "50", "--clients", "raw", "--mode", "reuse", "--rounds", "1"]);
    cmd.args(["--warmup", "0", "--browser-clients", "fetch", "--export-json"]).arg(&export);
    let out = cmd.env("FORGED", &forged).env("SEEN", &seen).timeout(Duration::from_secs(120)).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}\n{stdout}");
    assert!(
        stderr.contains(
            "posted a result that does not answer the run's plan: it ran a count of 20 where the run asked 50"
        ),
        "{stderr}"
    );
    assert!(!stdout.contains("chromium/"), "no figure of the refused report: {stdout}");
    let exported: Value = serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    // One report is exported as an object, several as an array.
    let kinds: Vec<Value> = match exported.as_array() {
        Some(all) => all.iter().map(|r| r["environment"]["kind"].clone()).collect(),
        None => vec![exported["environment"]["kind"].clone()],
    };
    assert_eq!(kinds, ["native"], "the native cases are still reported");
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(seen["unsealed_status"].as_u64(), Some(403), "{seen}");
    let argv = seen["argv"].as_str().unwrap();
    assert!(argv.contains("start.html") && !argv.contains("seal=") && !argv.contains("page="), "{argv}");
    assert_eq!((seen["start_mode"].as_str(), seen["folder_mode"].as_str()), (Some("0o600"), Some("0o700")), "{seen}");
}

/// The listening TCP port of the `serve --sealed` child of process `parent`, from `/proc` (what another
/// program on the machine can find out).
fn sealed_server_port(parent: u32) -> Option<u16> {
    let pid = std::fs::read_dir("/proc").ok()?.filter_map(Result::ok).find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let ppid: u32 = stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse().ok()?;
        let cmdline = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).ok()?;
        (ppid == parent && cmdline.contains("--sealed")).then_some(pid)
    })?;
    let sockets: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|fd| {
            std::fs::read_link(fd.path())
                .ok()?
                .to_str()?
                .strip_prefix("socket:[")?
                .strip_suffix(']')
                .map(str::to_string)
        })
        .collect();
    let table = std::fs::read_to_string(format!("/proc/{pid}/net/tcp")).ok()?;
    table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let listening = f.get(3) == Some(&"0A") && f.get(9).is_some_and(|inode| sockets.iter().any(|s| s == inode));
        listening.then(|| u16::from_str_radix(f[1].rsplit(':').next()?, 16).ok()).flatten()
    })
}

/// Drain a child's pipe on a thread.
fn drain(pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || std::io::read_to_string(pipe).unwrap_or_default())
}

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn another_program_cannot_write_a_browser_runs_figures() {
    let dist: PathBuf = crate::support::site::dist();
    let dir = scratch("sealed-run");
    let (export, body) = (dir.join("run.json"), some_result(&dir));
    let mut child: Child = bin()
        .args(["run", "--browser", "chromium", "--page-dir", dist.to_str().unwrap(), "-n", "50", "--rounds", "2"])
        .args(["--warmup", "5", "--clients", "raw", "--browser-clients", "fetch,js-fetch", "--export-json"])
        .arg(&export)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (out, err) = (drain(child.stdout.take().unwrap()), drain(child.stderr.take().unwrap()));
    let port = wait_for("the run's server", Duration::from_secs(30), || sealed_server_port(child.id()), String::new);
    let url = format!("http://127.0.0.1:{port}/");
    // While the page measures: a forged result, a refusal, a turn far ahead, as the page names itself.
    for _ in 0..3 {
        let (head, _) = post(&url, "/results?page=chromium", &body);
        assert!(head.starts_with("HTTP/1.1 403"), "{head}");
        let (head, _) =
            post(&url, &format!("/status?page=chromium&seal={WRONG}"), b"refused forged by another program");
        assert!(head.starts_with("HTTP/1.1 403"), "{head}");
        let (head, _) = crate::support::http::get(&url, "/turn?page=chromium&pass=99");
        assert!(head.starts_with("HTTP/1.1 403"), "{head}");
        std::thread::sleep(Duration::from_millis(300));
    }
    let status = wait_for("the run's end", Duration::from_secs(180), || child.try_wait().ok().flatten(), String::new);
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert_eq!(status.code(), Some(0), "{err}\n{out}");
    assert!(!err.contains("forged"), "{err}");
    let reports: Value = serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    let browser =
        reports.as_array().unwrap().iter().find(|r| r["environment"]["kind"] == "browser").expect("a browser report");
    assert_eq!(browser["settings"]["count"], 50, "the page's own report, of the run's plan");
    for c in browser["cases"].as_array().unwrap() {
        assert_eq!((c["iterations"].as_u64(), c["rounds"].as_array().map(Vec::len)), (Some(50), Some(2)), "{c}");
    }
}
