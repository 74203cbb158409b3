//! `httpbench serve`'s own endpoints against hostile pages: results and status only from the page's own origin
//! and `--allow-origin` ones, their preflight's Private Network Access grant only to those, the answer without
//! the folder's path, the results folder capped, and a large posted result summed up in one terminal line.

use std::fs::File;
use std::process::Stdio;
use std::time::Duration;

use httpbench::process::KillOnDrop;

use crate::support::cli::{bin, export_run, run, SMALL_RAW};
use crate::support::http::exchange;
use crate::support::serve::Serve;
use crate::support::{scratch, wait_for};

/// A small result file, made once per test by a real run.
fn small_result(dir: &std::path::Path) -> Vec<u8> {
    export_run(&dir.join("r.json"), &[&SMALL_RAW[..], &["--rounds", "1"]].concat()).into_bytes()
}

/// `METHOD path` with the given `Host` and `Origin` (none for `None`) and `body`; (head lowercased, body).
fn send(
    url: &str,
    method: &str,
    path: &str,
    host: &str,
    origin: Option<&str>,
    extra: &str,
    body: &[u8],
) -> (String, String) {
    let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\n{origin}{extra}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let (head, body) = exchange(url, &[head.as_bytes(), body].concat());
    (head.to_ascii_lowercase(), String::from_utf8_lossy(&body).into_owned())
}

fn host_of(url: &str) -> String {
    url.trim_start_matches("http://").trim_end_matches('/').to_string()
}

fn files_in(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

#[test]
fn results_and_status_are_taken_only_from_the_pages_own_origin_and_allowed_ones() {
    let dir = scratch("origin");
    let results = dir.join("results");
    let good = small_result(&dir);
    let s = Serve::start_with(&[
        "--quiet",
        "--results-dir",
        results.to_str().unwrap(),
        "--allow-origin",
        "https://You.github.io/",
    ]);
    let (host, own) = (host_of(&s.url), s.url.trim_end_matches('/').to_string());
    // A page on another site, and one on a DNS name re-pointed at 127.0.0.1 (same-origin with itself).
    let port = host.rsplit(':').next().unwrap();
    for (host, origin) in [
        (host.clone(), "http://evil.example".to_string()),
        (format!("evil.example:{port}"), format!("http://evil.example:{port}")),
    ] {
        let (head, body) = send(&s.url, "POST", "/results", &host, Some(&origin), "", &good);
        assert!(head.starts_with("http/1.1 403"), "{origin}: {head}");
        assert!(body.contains(&origin) && body.contains("--allow-origin") && body.lines().count() == 1, "{body}");
        assert!(!head.contains("access-control-allow-origin"), "{head}");
        let (head, _) = send(&s.url, "POST", "/status", &host, Some(&origin), "", b"progress 1/2");
        assert!(head.starts_with("http/1.1 403"), "{head}");
    }
    assert_eq!(files_in(&results), 0, "a refused post saves nothing");
    // The page's own origin, an allowed one, and a program without Origin (curl) are taken.
    for (origin, named) in [
        (Some(own.as_str()), Some(own.as_str())),
        (Some("https://you.github.io"), Some("https://you.github.io")),
        (None, None),
    ] {
        let (head, body) = send(&s.url, "POST", "/results", &host, origin, "", &good);
        assert!(head.starts_with("http/1.1 201"), "{origin:?}: {head} {body}");
        assert!(body.starts_with("saved native-") && body.trim_end().ends_with(".json"), "{body}");
        assert!(!body.contains('/') && !body.contains(results.to_str().unwrap()), "no path in the answer: {body}");
        match named {
            Some(o) => assert!(head.contains(&format!("access-control-allow-origin: {o}\r\n")), "{head}"),
            None => assert!(!head.contains("access-control-allow-origin"), "{head}"),
        }
        assert!(!head.contains("access-control-allow-origin: *"), "{head}");
        let (head, _) = send(&s.url, "POST", "/status", &host, origin, "", b"progress 1/2");
        assert!(head.starts_with("http/1.1 204"), "{head}");
    }
    assert_eq!(files_in(&results), 3);
    // The quiet server still tells its parent where each file is, whole path included (`-`: a page that named
    // itself by no id).
    let lines = s.stdout_until("page - progress 1/2", 10);
    assert!(lines.iter().any(|l| l.starts_with(&format!("saved - {}", results.display()))), "{lines:?}");
    // Nor can another site's page take a turn of a run, or announce that a page waits for one.
    let (head, _) = send(&s.url, "GET", "/turn?page=chromium&pass=0", &host, Some("http://evil.example"), "", b"");
    assert!(head.starts_with("http/1.1 403"), "{head}");
}

#[test]
fn the_posts_preflight_grants_private_network_access_only_to_allowed_origins() {
    let s = Serve::start_with(&["--quiet", "--allow-origin", "https://you.github.io"]);
    let host = host_of(&s.url);
    let asks = "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Private-Network: true\r\n";
    let (head, body) = send(&s.url, "OPTIONS", "/results", &host, Some("https://elsewhere.example"), asks, b"");
    assert!(head.starts_with("http/1.1 403") && body.contains("https://elsewhere.example"), "{head} {body}");
    assert!(
        !head.contains("access-control-allow-private-network") && !head.contains("access-control-allow-origin"),
        "{head}"
    );
    let (head, _) = send(&s.url, "OPTIONS", "/status", &host, Some("https://you.github.io"), asks, b"");
    assert!(head.starts_with("http/1.1 204"), "{head}");
    for line in [
        "access-control-allow-private-network: true",
        "access-control-allow-origin: https://you.github.io",
        "access-control-allow-methods: post, options",
    ] {
        assert!(head.contains(line), "{line} in {head}");
    }
    // The targets are still there for any page to benchmark.
    let (head, _) = send(&s.url, "OPTIONS", "/bytes/10", &host, Some("https://elsewhere.example"), asks, b"");
    assert!(
        head.contains("access-control-allow-private-network: true") && head.contains("access-control-allow-origin: *"),
        "{head}"
    );
}

#[test]
fn a_bad_allow_origin_is_a_one_line_usage_error() {
    for (bad, says) in
        [("you.github.io", "scheme://host"), ("https://you.github.io/httpbench/", "no path"), ("*", "each origin")]
    {
        let (code, _, err) = run(&["serve", "--port", "0", "--allow-origin", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains(&format!("--allow-origin '{bad}'")) && err.contains(says), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn the_results_folder_takes_at_most_a_thousand_files_from_one_server() {
    let dir = scratch("quota");
    let results = dir.join("results");
    let good = small_result(&dir);
    let s = Serve::start_with(&["--quiet", "--results-dir", results.to_str().unwrap()]);
    let started = std::time::Instant::now();
    for i in 0..1000 {
        let (head, body) = crate::support::http::post(&s.url, "/results", &good);
        assert!(head.starts_with("HTTP/1.1 201"), "post {i}: {head} {}", String::from_utf8_lossy(&body));
        assert!(started.elapsed() < Duration::from_secs(120), "1000 posts took too long");
    }
    let (head, body) = crate::support::http::post(&s.url, "/results", &good);
    let body = String::from_utf8_lossy(&body);
    assert!(head.starts_with("HTTP/1.1 507") && body.contains("saved 1000 result files"), "{head} {body}");
    assert_eq!(files_in(&results), 1000);
}

#[test]
fn a_large_posted_result_is_one_line_on_the_terminal() {
    let dir = scratch("summary");
    let results = dir.join("results");
    let mut report: serde_json::Value = serde_json::from_slice(&small_result(&dir)).unwrap();
    // 480 cases (the parser takes 500): a cmpthese chart of 480 x 480 if it were printed.
    let case = report["cases"][0].clone();
    report["cases"] = (2..482)
        .map(|c| {
            let mut c2 = case.clone();
            c2["concurrency"] = c.into();
            c2
        })
        .collect();
    let body = serde_json::to_vec(&report).unwrap();
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let _child = KillOnDrop::spawn(
        bin()
            .args(["serve", "--port", "0", "--threads", "2", "--results-dir", results.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(File::create(&out).unwrap())
            .stderr(File::create(&err).unwrap()),
    )
    .unwrap();
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_default();
    let url = wait_for(
        "serve's address",
        Duration::from_secs(20),
        || read(&out).lines().next()?.strip_prefix("listening on ").map(str::to_string),
        || read(&err),
    );
    let (head, answer) = crate::support::http::post(&url, "/results", &body);
    assert!(head.starts_with("HTTP/1.1 201"), "{head} {}", String::from_utf8_lossy(&answer));
    let summary = wait_for(
        "the summary line",
        Duration::from_secs(20),
        || read(&out).lines().nth(1).map(str::to_string),
        || read(&out),
    );
    assert!(
        summary.starts_with("httpbench serve: result from native ") && summary.contains(": 480 cases, "),
        "{summary}"
    );
    assert!(summary.contains(&format!("saved {}", results.display())), "the terminal may name the path: {summary}");
    let (out, err) = (read(&out), read(&err));
    assert_eq!(out.lines().count(), 2, "the address and one line: {}", &out[..out.len().min(2000)]);
    assert!(err.len() < 2000, "stderr: {}", &err[..err.len().min(2000)]);
}
