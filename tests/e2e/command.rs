//! Command clients end to end: every built-in adapter against real servers in both modes (fresh really opens
//! a connection per request, reuse keeps one), a user's adapter through `--client-cmd` with the protocol's
//! environment, and small misbehaving adapters (`tests/adapters/scripted.py`) that must each be stopped with
//! a reason naming them while the other cases run.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::cli::{cases, run, run_json};
use crate::support::python_has_requests;
use crate::support::servers::{connections, TestServer};

const BODY: &[u8] = b"0123456789abcdef0123456789abcdef";

/// The built-in command clients over HTTP/1.1 (the client table's), with the start of the version each
/// reports where the test knows it (a new one is held to reporting any version).
fn builtins() -> Vec<(&'static str, &'static str)> {
    let known = |client: &str| match client {
        "perl-lwp" => "LWP::UserAgent ",
        "perl-lite" => "HTTP::Lite ",
        "perl-curl" => "WWW::Curl::Easy ",
        "python-urllib" => "http.client (Python 3",
        "python-requests" => "requests ",
        "node-fetch" => "fetch (undici ",
        "node-http" => "node:http (Node v",
        "python-httpx" => "httpx ",
        "bun-fetch" => "fetch (Bun ",
        "deno-fetch" => "fetch (Deno ",
        "java-http" => "java.net.http (Java ",
        "go-http" => "net/http (Go ",
        _ => "",
    };
    let h1 = crate::support::table::commands_speaking(httpbench_shared::model::HttpVersion::Http11);
    h1.into_iter().map(|c| (c, known(c))).collect()
}

fn scripted(behaviour: &str) -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/adapters/scripted.py");
    format!("bad=python3 {} {behaviour}", script.display())
}

fn case<'a>(v: &'a Value, client: &str) -> &'a Value {
    cases(v).iter().find(|c| c["client"] == client).unwrap_or_else(|| panic!("no case {client}: {v}"))
}

#[test]
#[ignore = "needs every command client's runtime (scripts/setup.sh --runtimes; scripts/test.sh runs it)"]
fn every_builtin_adapter_measures_both_modes_with_fresh_and_kept_connections() {
    for (client, version) in builtins() {
        if client == "python-requests" && !python_has_requests() {
            let (code, v, _) = run_json(&["--clients", client, "-n", "5", "--no-progress"]);
            let reason = case(&v, client)["aborted"].as_str().unwrap_or_default().to_string();
            assert_eq!(code, 1);
            assert!(
                reason.starts_with("unavailable: Python module requests") && reason.contains("pip install"),
                "{reason}"
            );
            continue;
        }
        for mode in ["fresh", "reuse"] {
            let server = TestServer::fixed(BODY);
            let args = ["--clients", client, "--mode", mode, "-n", "20", "--warmup", "3", "--rounds", "2"];
            let (code, v, err) = run_json(&[&[server.url.as_str()], &args[..], &["--no-progress"]].concat());
            assert_eq!(code, 0, "{client}/{mode}: {err}\n{v}");
            let c = case(&v, client);
            assert_eq!((c["iterations"].as_u64(), c["ok"].as_u64()), (Some(20), Some(20)), "{client}/{mode}: {c}");
            assert_eq!(c["bytes"].as_u64(), Some(20 * BODY.len() as u64), "{client}/{mode}: every body read whole");
            assert!(c["cpu_user_secs"].is_number(), "{client}/{mode}: the adapter's CPU time was read: {c}");
            assert!(c["latency_ns"]["p50"].as_f64().unwrap() > 1000.0, "{client}/{mode}: its own clock: {c}");
            let reported = v["environment"]["client_versions"][client].as_str().unwrap_or_default();
            assert!(!reported.is_empty() && reported.starts_with(version), "{client}: version {reported:?}");
            // The run has ended, so every request it made is in the server's channel.
            let connections = connections(&server.received());
            // HTTP::Lite has no keep-alive: it connects per request in both modes (its version line says so).
            // undici may open a second connection for a request sent while the first goes back to its pool.
            let expected = match (mode, client) {
                ("fresh", _) | (_, "perl-lite") => 23..=23,
                (_, "node-fetch") => 1..=2,
                _ => 1..=1,
            };
            assert!(expected.contains(&connections), "{client}/{mode}: {connections} connections for 23 requests");
        }
    }
}

#[test]
fn a_client_cmd_gets_the_url_mode_and_timeout_and_its_version_is_recorded() {
    let adapter = "env=python3 -c \"import os,sys\nfor l in sys.stdin:\n n=int(l)\n if n==0: \
                   print('version', os.environ['HTTPBENCH_URL'], os.environ['HTTPBENCH_MODE'], \
                   os.environ['HTTPBENCH_TIMEOUT'])\n print('1000 200 3\\n'*n+'end', flush=True)\"";
    let (code, v, err) = run_json(&[
        "http://127.0.0.1:9/x?y=1",
        "--client-cmd",
        adapter,
        "--clients",
        "env",
        "--mode",
        "fresh",
        "--timeout",
        "2.5",
        "-n",
        "10",
        "--no-progress",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["environment"]["client_versions"]["env"], "http://127.0.0.1:9/x?y=1 fresh 2.5");
    let c = case(&v, "env");
    assert_eq!(
        (c["ok"].as_u64(), c["bytes"].as_u64(), c["latency_ns"]["max"].as_f64()),
        (Some(10), Some(30), Some(1000.0))
    );
}

#[test]
fn many_requests_in_large_batches_are_all_counted() {
    let (code, v, err) = run_json(&[
        "--client-cmd",
        &scripted("instant").replacen("bad=", "instant=", 1),
        "--clients",
        "instant",
        "--mode",
        "reuse",
        "-n",
        "200000",
        "--rounds",
        "2",
        "--no-progress",
    ]);
    assert_eq!(code, 0, "{err}");
    let c = case(&v, "instant");
    assert_eq!((c["iterations"].as_u64(), c["ok"].as_u64()), (Some(200_000), Some(200_000)));
    assert_eq!(c["rounds"][0]["iterations"].as_u64(), Some(100_000));
}

#[test]
fn a_duration_is_spent_in_batches_sized_from_the_rate() {
    let (code, v, err) = run_json(&[
        "--client-cmd",
        &scripted("instant"),
        "--clients",
        "bad",
        "--mode",
        "reuse",
        "--duration",
        "1s",
        "--rounds",
        "2",
        "--warmup",
        "0",
        "--no-progress",
    ]);
    assert_eq!(code, 0, "{err}");
    let c = case(&v, "bad");
    for r in c["rounds"].as_array().unwrap() {
        let wall = r["wall_secs"].as_f64().unwrap();
        assert!((0.5..1.5).contains(&wall), "each round takes its half second, about: {r}");
    }
    assert!(c["iterations"].as_u64().unwrap() > 1000, "{c}");
}

/// Each fault: the adapter is stopped, its case says why naming the adapter and the bad line, raw still runs
/// all its requests, the exit code is 1, and the run ends in bounded time.
#[test]
fn misbehaving_adapters_are_stopped_with_a_reason_and_the_other_cases_run() {
    for (behaviour, got, says) in [
        ("garbage", 5, "command client bad printed 'oops, not a line' (line 6 of a batch of 10): 'oops,' is not"),
        ("fewer", 9, "printed 'end' (line 10 of a batch of 10): end after 9 of 10 request lines"),
        ("more", 10, "printed '1 200 0' (line 11 of a batch of 10): more request lines than the 10 asked"),
        ("crash", 3, "command client bad exited (exit status: 139) after 3 of 10 requests: segfault (pretend)"),
        ("hang", 2, "command client bad gave no line for 3 s (--timeout 1 s + 2 s) after 2 of 10 requests"),
        ("exit-at-start", 0, "command client bad exited (exit status: 4) at start: cannot start: no such library"),
        // Timings that do not fit the wall time httpbench measured around the batch (issue 36).
        ("zero", 0, "command client bad printed '0 200 0' (line 1 of a batch of 10): a request of 0 ns"),
        (
            "ten-seconds",
            2,
            "printed '10000000000 200 0' (line 3 of a batch of 10): its 3 requests so far claim 10.000 s in all, \
             but httpbench asked for this batch ",
        ),
        (
            "ages",
            0,
            "printed '18446744073709551615 200 0' (line 1 of a batch of 10): this request claims 18446744073.710 s",
        ),
        (
            "late-version",
            1,
            "printed 'version too late' (line 2 of a batch of 10): a second version line, or one after",
        ),
    ] {
        let t = Instant::now();
        let args = ["--clients", "raw,bad", "--mode", "reuse", "-n", "20", "--rounds", "2", "--warmup", "0"];
        let (code, v, err) =
            run_json(&[&args[..], &["--timeout", "1", "--no-progress", "--client-cmd", &scripted(behaviour)]].concat());
        assert!(t.elapsed() < Duration::from_secs(20), "{behaviour}: bounded, took {:?}", t.elapsed());
        assert_eq!(code, 1, "{behaviour}: {err}");
        assert_eq!(case(&v, "raw")["ok"].as_u64(), Some(20), "{behaviour}: the other case ran");
        let bad = case(&v, "bad");
        let reason = bad["aborted"].as_str().unwrap_or_else(|| panic!("{behaviour}: no reason: {bad}"));
        assert!(reason.contains(says), "{behaviour}: {reason}");
        assert_eq!(bad["iterations"].as_u64(), Some(got), "{behaviour}: what it answered is kept: {bad}");
    }
}

#[test]
fn a_command_that_is_not_found_is_named_with_what_the_shell_said() {
    let args = ["--clients", "raw,gone", "--mode", "reuse", "-n", "5", "--no-progress"];
    let (code, v, _) = run_json(&[&args[..], &["--client-cmd", "gone=/nonexistent/adapter --fast"]].concat());
    assert_eq!(code, 1);
    assert_eq!(case(&v, "raw")["ok"].as_u64(), Some(5));
    let reason = case(&v, "gone")["aborted"].as_str().unwrap().to_string();
    assert!(reason.starts_with("command client gone exited (exit status: 127) at start: "), "{reason}");
    assert!(reason.contains("/nonexistent/adapter") && reason.contains("not found"), "{reason}");
}

#[test]
fn the_text_report_shows_a_stopped_case_with_its_reason() {
    let (code, out, _) = run(&[
        "--clients",
        "raw,bad",
        "--mode",
        "reuse",
        "-n",
        "10",
        "--no-progress",
        "--wide",
        "--client-cmd",
        &scripted("fewer"),
    ]);
    assert_eq!(code, 1);
    let warning = out.lines().find(|l| l.starts_with("warning: cases stopped early: ")).expect("a warning line");
    assert!(warning.contains("bad/reuse") || warning.contains("bad after"), "{warning}");
    assert!(warning.contains("end after"), "{warning}");
}

#[test]
fn an_interpreter_not_on_path_is_unavailable_with_how_to_install_it_and_the_others_run() {
    // A PATH with a shell and nothing else: no node, so node-fetch cannot start; raw needs no PATH.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/bin/sh", dir.path().join("sh")).unwrap();
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_httpbench"))
        .args(["--clients", "raw,node-fetch", "--mode", "reuse", "-n", "5", "--no-progress", "--format", "json"])
        .env("PATH", dir.path())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(case(&v, "raw")["ok"].as_u64(), Some(5));
    let reason = case(&v, "node-fetch")["aborted"].as_str().unwrap().to_string();
    assert_eq!(reason, "unavailable: node is not on PATH; install: apt install nodejs (Node 18 or later)");
}

#[test]
#[ignore = "needs Perl's HTTP::Lite, python3 and node (scripts/setup.sh; scripts/test.sh runs it)"]
fn a_batch_longer_than_the_timeout_is_answered_as_it_goes_not_stopped() {
    for client in ["perl-lite", "python-urllib", "node-http"] {
        // One round of 6 s: after a first request the runner asks for half of what is left, about 3 s of
        // requests in one batch, longer than --timeout 0.3 s + 2 s. The adapter must not hold its lines back.
        let args = ["--clients", client, "--mode", "reuse", "--duration", "6s", "--rounds", "1", "--timeout", "0.3"];
        let (code, v, err) = run_json(&[&args[..], &["--warmup", "0", "--no-progress"]].concat());
        let c = case(&v, client);
        assert_eq!(code, 0, "{client}: {err}\n{c}");
        assert!(c["aborted"].is_null(), "{client}: {c}");
        assert!(c["wall_secs"].as_f64().unwrap() >= 6.0, "{client}: {c}");
    }
}

/// Command clients over HTTPS (`run --tls`): each adapter is handed the embedded server's CA
/// (`HTTPBENCH_CACERT`, and `NODE_EXTRA_CA_CERTS` for Node) and verifies against it; fresh makes a full
/// handshake per request, counted by the server, reuse none in its rounds. HTTP::Lite has no TLS: it is
/// reported unavailable with that reason, and the others run.
#[test]
#[ignore = "needs every command client's runtime (scripts/setup.sh --runtimes; scripts/test.sh runs it)"]
fn every_builtin_adapter_speaks_https_when_given_the_ca() {
    let mut clients: Vec<&str> = builtins().iter().map(|(c, _)| *c).collect();
    if !python_has_requests() {
        clients.retain(|c| *c != "python-requests");
    }
    let list = clients.join(",");
    let args = ["run", "--tls", "--clients", &list, "-n", "6", "--warmup", "2", "--rounds", "2", "--no-progress"];
    let (code, v, err) = run_json(&args);
    assert_eq!(code, 1, "perl-lite cannot run, the others can: {err}");
    let mut wrong = Vec::new();
    for client in clients {
        for c in cases(&v).iter().filter(|c| c["client"] == client) {
            if client == "perl-lite" {
                let reason = c["aborted"].as_str().unwrap_or_default();
                assert!(reason.contains("HTTP::Lite speaks plain http only"), "{c}");
                continue;
            }
            let (full, resumed) = (c["tls_full_handshakes"].as_u64(), c["tls_resumed_handshakes"].as_u64());
            let (full, resumed) = (full.unwrap_or(99), resumed.unwrap_or(99));
            let fits = match (c["mode"].as_str(), client) {
                // Bun keeps a process-wide TLS session cache with no switch: a new connection resumes.
                (Some("fresh"), "bun-fetch") => full + resumed == 6 && full <= 1,
                (Some("fresh"), _) => (full, resumed) == (6, 0),
                // undici closes a connection idle for 4 s (its keepAliveTimeout): the other cases' rounds
                // between two of its own can outlast that, and it connects again, resuming.
                (_, "node-fetch") => full == 0,
                _ => (full, resumed) == (0, 0),
            };
            if c["ok"].as_u64() != Some(6) || !fits {
                wrong.push(format!("{client}/{}: ok {}, handshakes {full} full {resumed} resumed", c["mode"], c["ok"]));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn scripted_path() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/adapters/scripted.py").display().to_string()
}

/// An adapter that floods stderr is shown in part, with how much was cut (issue 29: it was forwarded without
/// end); the run itself is unharmed.
#[test]
fn an_adapters_stderr_is_cut_after_twenty_lines_and_says_how_much() {
    let cmd = format!(
        "noisy=i=0; while [ $i -lt 3000 ]; do echo \"noise $i\" >&2; i=$((i+1)); done; exec python3 {} instant",
        scripted_path()
    );
    let args = ["--clients", "noisy", "--mode", "reuse", "-n", "10", "--warmup", "0", "--no-progress"];
    let (code, v, err) = run_json(&[&args[..], &["--client-cmd", &cmd]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(case(&v, "noisy")["ok"].as_u64(), Some(10));
    let shown = err.lines().filter(|l| l.starts_with("httpbench: noisy/reuse says: noise ")).count();
    assert_eq!(shown, 20, "{err}");
    let cut = "httpbench: noisy/reuse says: ... and 2980 more lines (";
    assert!(err.lines().any(|l| l.starts_with(cut) && l.ends_with(" bytes) not shown")), "{err}");
    assert!(err.lines().count() < 30, "{err}");
}

/// A helper an adapter started in a session of its own (out of the adapter's process group, which is what
/// httpbench killed) is ended with the adapter: it is a descendant, tracked as the CPU time is (issue 29).
#[test]
fn a_helper_in_a_session_of_its_own_is_ended_with_its_adapter() {
    let dir = crate::support::scratch("setsid-helper");
    let pidfile = dir.join("helper.pid");
    let cmd =
        format!("lingers=setsid sleep 300 & echo $! > {}; exec python3 {} instant", pidfile.display(), scripted_path());
    let args = ["--clients", "lingers", "--mode", "reuse", "-n", "10", "--warmup", "0", "--no-progress"];
    let (code, _, err) = run_json(&[&args[..], &["--client-cmd", &cmd]].concat());
    assert_eq!(code, 0, "{err}");
    assert_ended(&pidfile);
}

/// A helper that forked twice (a subshell that starts it and exits) and left for a session of its own is no
/// descendant of its adapter by the first time httpbench looks: init has it. It still carries the token
/// httpbench put in its adapter's environment, and is ended with the adapter (issue 36).
#[test]
fn a_detached_grandchild_that_forked_twice_is_ended_with_its_adapter() {
    let dir = crate::support::scratch("double-fork-helper");
    let pidfile = dir.join("helper.pid");
    let cmd = format!(
        "detached=(setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > {}); exec python3 {} instant",
        pidfile.display(),
        scripted_path()
    );
    let args = ["--clients", "detached", "--mode", "reuse", "-n", "10", "--warmup", "0", "--no-progress"];
    let (code, _, err) = run_json(&[&args[..], &["--client-cmd", &cmd]].concat());
    assert_eq!(code, 0, "{err}");
    assert_ended(&pidfile);
}

/// The process whose pid is in `pidfile` is gone (or a zombie) within 5 s of httpbench's exit: it was
/// killed before httpbench exited, and init may take a moment to reap it. Killed here if it is not.
fn assert_ended(pidfile: &std::path::Path) {
    let pid: i32 = std::fs::read_to_string(pidfile).unwrap().trim().parse().unwrap();
    let alive = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rfind(')').and_then(|i| stat[i + 1..].split_whitespace().next().map(str::to_string));
        matches!(state.as_deref(), Some(s) if s != "Z")
    };
    let until = Instant::now() + Duration::from_secs(5);
    while alive() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = alive();
    if survived {
        // SAFETY: the helper this test started; it must not outlive the test.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(!survived, "the helper {pid} outlived its adapter");
}
