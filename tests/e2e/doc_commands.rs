//! Every command of the README's and the guide's `sh` blocks, run by the real binary as a user types it (in
//! bash, `httpbench` on PATH, in a folder of its own), so the documentation cannot drift from the binary: a
//! renamed flag, a value it no longer takes or a subcommand that moved fails here, naming the page and line.
//!
//! What a line needs is given to it, and said here: the files it names (result files from a real run, a
//! history, the documented example adapter), a server at the address it names, smaller counts (`-n 30
//! --warmup 5 --rounds 2`, the plan stays the documented one), and `serve` lines are started, seen listening
//! and stopped. The few lines not run are listed in [`NOT_RUN`] with what runs them instead.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use httpbench::process::KillOnDrop;

use crate::docs::pages;
use crate::support::serve::Serve;
use crate::support::{root, scratch};

/// Documented lines this test does not run, by how they start, and what runs them instead. Each must still
/// be in the documentation (a mark outlives no line).
const NOT_RUN: &[(&str, &str)] = &[
    ("scripts/test.sh", "it is the test run that runs this test"),
    ("scripts/setup-web.sh", "scripts/test.sh runs it before the tests"),
    ("scripts/build-page.sh && cargo install", "scripts/install-check.sh, run by scripts/test.sh"),
    ("scripts/build-page.sh", "scripts/test.sh builds the page with it before the tests"),
    ("scripts/gate-ci.sh", "gate.rs runs it on a repository of its own (it builds two commits)"),
];

/// The counts every `run` line gets instead of its own (or the default 2000 × 5 rounds): the same plan,
/// smaller, so some 60 lines run in minutes.
const SMALL: &str = "-n 30 --warmup 5 --rounds 2";

/// A command of a page's `sh` block: where it is, and the line without its trailing comment.
#[derive(Debug)]
struct DocCommand {
    at: String,
    line: String,
}

/// The commands of every `sh` block of the README and the guide, in page order.
fn doc_commands() -> Vec<DocCommand> {
    let mut pages = pages();
    pages[1..].sort();
    let mut out = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(root()).unwrap_or(&page).display().to_string();
        let mut in_sh = false;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                in_sh = line == "```sh";
                continue;
            }
            let command = without_comment(line);
            if in_sh && !command.is_empty() {
                out.push(DocCommand { at: format!("{}:{}", name.trim_start_matches("./"), i + 1), line: command });
            }
        }
    }
    out
}

/// `line` up to a ` #` comment outside quotes, trimmed.
fn without_comment(line: &str) -> String {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() => return line[..i].trim().to_string(),
            _ => {}
        }
        prev = c;
    }
    line.trim().to_string()
}

/// The folder the lines run in and what they find there.
struct Sandbox {
    dir: PathBuf,
    plain: Serve,
    tls: Serve,
    ca: String,
    link: String,
}

impl Sandbox {
    /// A git repository (for `$(git rev-parse ...)`), a HOME with the completions folder, result files under
    /// every name the pages use, a history with a run at commit abc1234, the documented example adapter as
    /// `my_adapter.py`, `./my-client` (Python's httpx adapter, which speaks HTTP/1.1 and HTTP/2), and two
    /// servers: plain HTTP and TLS with HTTP/1.1, 2 and 3.
    fn new() -> Sandbox {
        let dir = scratch("doc-commands");
        std::fs::create_dir_all(dir.join("home/.local/share/bash-completion/completions")).unwrap();
        std::fs::create_dir_all(dir.join("results")).unwrap();
        let plain = Serve::start();
        let tls = Serve::start_with(&["--quiet", "--tls", "--http", "1.1,2,3"]);
        let ca = tls.stdout_until("CA certificate: ", 10).last().unwrap().replace("CA certificate: ", "");
        let mut sandbox = Sandbox { dir, plain, tls, ca, link: String::new() };
        for setup in [
            "git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m t",
            // A run of its own under each name: `compare` counts a report given twice once.
            &format!(
                "for f in today before after base new yesterday base-1 base-2 new-1 new-2 results/a results/b; do \
                 httpbench run {SMALL} --clients raw --format csv --export-json $f.json || exit; done"
            ),
            &format!("httpbench run {SMALL} --clients raw,curl --format csv --history bench.db --commit abc1234"),
        ] {
            let (code, out, err) = sandbox.bash(setup, 120);
            assert_eq!(code, 0, "setting up: {setup}\n{out}\n{err}");
        }
        let adapter = documented_adapter();
        std::fs::write(sandbox.dir.join("my_adapter.py"), adapter).unwrap();
        let python = root().join("adapters/python.py").canonicalize().unwrap();
        let client = format!("#!/bin/sh\nexec python3 '{}' httpx \"$@\"\n", python.display());
        std::fs::write(sandbox.dir.join("my-client"), client).unwrap();
        sandbox.bash("chmod +x my-client", 10);
        let (code, out, err) = sandbox.bash("httpbench share today.json --page https://you.github.io/httpbench/", 10);
        assert_eq!(code, 0, "{err}");
        sandbox.link = out.trim().to_string();
        sandbox
    }

    /// `line` with what it names made real: the addresses and CA files of the pages' examples become the
    /// test's servers', a shared link's elided `#r=...` the link of today.json, `serve --port 8080` a free
    /// port; a `run` line gets [`SMALL`] counts.
    fn concrete(&self, line: &str) -> String {
        let plain = self.plain.url.trim_start_matches("http://").trim_end_matches('/');
        let tls = self.tls.url.trim_start_matches("https://").trim_end_matches('/');
        let mut line = line
            .replace("scripts/run.sh", "httpbench")
            .replace("127.0.0.1:8080", plain)
            .replace("127.0.0.1:PORT", tls)
            .replace("/tmp/httpbench-tls-XXXX/httpbench-ca.pem", &self.ca)
            .replace("CA.pem", &self.ca)
            .replace("'https://you.github.io/httpbench/#r=...'", &format!("'{}'", self.link))
            .replace("--page URL", "--page https://you.github.io/httpbench/")
            .replace("--port 8080", "--port 0");
        if is_run(&line) {
            line = without_count(&line) + " " + SMALL;
        }
        line
    }

    /// Run `script` in bash in the sandbox, with the test's `httpbench` first on PATH, for at most `secs`.
    fn bash(&self, script: &str, secs: u64) -> (i32, String, String) {
        let out = assert_cmd::Command::from_std(self.command(script))
            .timeout(Duration::from_secs(secs))
            .output()
            .expect("bash runs");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
    }

    fn command(&self, script: &str) -> Command {
        let bin = Path::new(env!("CARGO_BIN_EXE_httpbench")).parent().unwrap().to_path_buf();
        let path = std::env::join_paths(
            std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )
        .unwrap();
        let mut cmd = Command::new("bash");
        cmd.args(["-c", script])
            .current_dir(&self.dir)
            .env("PATH", path)
            .env("HOME", self.dir.join("home"))
            .env("GITHUB_STEP_SUMMARY", self.dir.join("summary.md"))
            .env("NO_COLOR", "1")
            // `serve --open` hands its page to xdg-open, which, on no desktop, opens $BROWSER: here nothing.
            .env("BROWSER", "true")
            .stdin(Stdio::null());
        cmd
    }

    /// A `serve` line: started, seen printing its address within 10 s and still running after a second,
    /// then stopped. Returns what went wrong, if anything.
    fn serve(&self, line: &str) -> Option<String> {
        let mut cmd = self.command(&format!("exec {line}"));
        let mut child = KillOnDrop::spawn(cmd.stdout(Stdio::piped()).stderr(Stdio::null())).ok()?;
        let stdout = child.stdout.take()?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().and_then(Result::ok);
            let _ = tx.send(first.unwrap_or_default());
            // Read on to the end: over TLS serve prints its CA and pin after its address, and a closed pipe
            // would end it (a reader gone is no error to it).
            lines.for_each(drop);
        });
        let first = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
        if !first.starts_with("listening on ") {
            return Some(format!("it did not print its address in 10 s (first line: {first:?})"));
        }
        std::thread::sleep(Duration::from_secs(1));
        match child.try_wait() {
            Ok(None) => None,
            other => Some(format!("it exited after printing its address: {other:?}")),
        }
    }
}

/// Whether `line` is `httpbench run ...` or the bare `httpbench [OPTIONS]`, which is the same.
fn is_run(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("httpbench")
        && words.next().is_none_or(|w| w == "run" || w.starts_with('-') || w.starts_with("http"))
}

/// `line` without its `-n N` (the smaller count replaces it).
fn without_count(line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let mut out = Vec::new();
    let mut skip = false;
    for w in words {
        if std::mem::take(&mut skip) {
            continue;
        }
        if w == "-n" {
            skip = true;
            continue;
        }
        out.push(w);
    }
    out.join(" ")
}

/// The last 8 lines of `text`.
fn tail(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(8)..].to_vec()
}

/// The guide's minimal adapter (the `python` block of docs/command-clients.md).
fn documented_adapter() -> String {
    let text = std::fs::read_to_string(root().join("docs/command-clients.md")).unwrap();
    let start = text.find("```python\n").expect("docs/command-clients.md shows an adapter in Python") + 10;
    text[start..start + text[start..].find("```").unwrap()].to_string()
}

#[test]
#[ignore = "needs every client's runtime, Chromium, Firefox, WebKitGTK and root (--link): scripts/test.sh"]
fn every_command_of_the_readme_and_the_guide_runs() {
    let commands = doc_commands();
    assert!(commands.len() >= 50, "the documented commands: {commands:#?}");
    for (start, _) in NOT_RUN {
        assert!(commands.iter().any(|c| c.line.starts_with(start)), "no documented line starts with {start:?}");
    }
    let sandbox = Sandbox::new();
    let mut failed = Vec::new();
    let mut ran = 0;
    for c in &commands {
        if NOT_RUN.iter().any(|(start, _)| c.line.starts_with(start)) {
            continue;
        }
        let line = sandbox.concrete(&c.line);
        ran += 1;
        if line.starts_with("httpbench serve") {
            if let Some(why) = sandbox.serve(&line) {
                failed.push(format!("{}: {line}\n  {why}", c.at));
            }
            continue;
        }
        // Link runs time packets to a tenth of a millisecond: not beside another test's.
        let _one =
            line.contains("--link").then(|| crate::link::ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner()));
        let (mut code, mut out, mut err) = sandbox.bash(&line, 300);
        if code != 0 && line.contains("--browser") {
            // A browser's own crash (WebKitGTK's web process has crashed here) is not the documentation's:
            // once more, and the first failure told.
            eprintln!("{}: {line}: exit {code}, once more; it said {:?}", c.at, tail(&err));
            (code, out, err) = sandbox.bash(&line, 300);
        }
        // A gate judging two small runs of its own may find one slower (3): it ran and judged.
        let judged = line.contains("--fail-if-slower") && code == 3;
        if code != 0 && !judged {
            failed.push(format!(
                "{}: {line}\n  exit {code}\n  stdout: {:?}\n  stderr: {:?}",
                c.at,
                tail(&out),
                tail(&err)
            ));
        }
    }
    assert!(ran >= 45, "only {ran} documented commands ran");
    assert!(failed.is_empty(), "{} of {ran} documented commands failed:\n{}", failed.len(), failed.join("\n"));
    // What some lines write, written.
    for file in ["today.md", "today.csv", "today.html", "trend.html", "hist.html", "summary.md"] {
        assert!(sandbox.dir.join(file).is_file(), "{file} was not written");
    }
    let completions = sandbox.dir.join("home/.local/share/bash-completion/completions/httpbench");
    assert!(std::fs::read_to_string(completions).unwrap().contains("complete"), "the bash completions");
}
