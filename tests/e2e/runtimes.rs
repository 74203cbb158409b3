//! Command clients over HTTP/2 (issue 38): each runtime whose client speaks it (from the client table) runs
//! `--tls --http both` as cases of their own, told the version by `HTTPBENCH_HTTP`, and the others are left
//! out with the table's reason; asked for HTTP/2 by a server that speaks only HTTP/1.1, none passes a request
//! as HTTP/2; a user's `--client-cmd NAME@1.1,2` is told the version of each case; `all-runtimes` names them all.

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::cannot_speak;
use httpbench_shared::EnvironmentKind;

use crate::support::cli::{cases, run_json};
use crate::support::serve::Serve;
use crate::support::table::commands_speaking;

/// The command clients that speak HTTP/1.1 over TLS (HTTP::Lite has no TLS), requests when it is installed.
fn tls_commands() -> Vec<&'static str> {
    let has_requests = crate::support::python_has_requests();
    commands_speaking(HttpVersion::Http11)
        .into_iter()
        .filter(|c| *c != "perl-lite" && (*c != "python-requests" || has_requests))
        .collect()
}

#[test]
#[ignore = "needs every command client's runtime (scripts/setup.sh --runtimes; scripts/test.sh runs it)"]
fn command_clients_that_speak_http2_run_it_as_cases_of_their_own_and_the_others_are_left_out() {
    let clients = tls_commands();
    let list = clients.join(",");
    let args = ["run", "--tls", "--http", "both", "--clients", &list, "-n", "6", "--warmup", "2", "--rounds", "2"];
    let (code, v, err) = run_json(&[&args[..], &["--no-progress"]].concat());
    assert_eq!(code, 0, "{err}");
    let h2 = commands_speaking(HttpVersion::Http2);
    assert!(h2.len() >= 4, "deno-fetch, java-http, go-http and python-httpx speak HTTP/2: {h2:?}");
    let mut wrong = Vec::new();
    for client in &clients {
        for http in ["1.1", "2"] {
            let n = cases(&v).iter().filter(|c| c["client"] == *client && c["http_version"] == http).count();
            let expected = if http == "1.1" || h2.contains(client) { 2 } else { 0 };
            if n != expected {
                wrong.push(format!("{client} over {http}: {n} cases, {expected} expected"));
            }
        }
    }
    for c in cases(&v) {
        if c["ok"].as_u64() != Some(6) {
            wrong.push(format!("{}/{}/{}: {c}", c["client"], c["mode"], c["http_version"]));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let left_out: Vec<String> = clients
        .iter()
        .filter(|c| !h2.contains(c))
        .map(|c| {
            let why = cannot_speak(EnvironmentKind::Native, c, HttpVersion::Http2, None).unwrap();
            format!("{c} over HTTP/2 ({why})")
        })
        .collect();
    assert_eq!(v["settings"]["skipped"], serde_json::json!(left_out));
    for client in &h2 {
        let version = v["environment"]["client_versions"][client].as_str().unwrap_or_default();
        assert!(!version.is_empty(), "{client} reports its library and runtime");
    }
}

/// A server that offers only HTTP/1.1 by ALPN: a client asked for HTTP/2 either cannot agree on a protocol
/// (tls) or is answered over HTTP/1.1, which its adapter counts as a protocol failure. Nothing passes as h2.
#[test]
#[ignore = "needs every command client's runtime (scripts/setup.sh --runtimes; scripts/test.sh runs it)"]
fn asked_for_http2_by_a_server_without_it_no_command_client_passes_a_request() {
    let serve = Serve::start_with(&["--quiet", "--tls", "--http", "1.1"]);
    let lines = serve.stdout_until("SPKI pin: ", 10);
    let ca = lines.iter().find_map(|l| l.strip_prefix("CA certificate: ")).unwrap().to_string();
    let list = commands_speaking(HttpVersion::Http2).join(",");
    let args = ["--clients", &list, "--http", "2", "-n", "2", "--warmup", "0", "--rounds", "1", "--mode", "reuse"];
    let (code, v, err) =
        run_json(&[&["run", serve.url.as_str(), "--cacert", ca.as_str(), "--timeout", "5"], &args[..]].concat());
    assert_eq!(code, 1, "{err}");
    for c in cases(&v) {
        let kinds: Vec<&String> = c["errors"].as_object().unwrap().keys().collect();
        assert_eq!(c["ok"], 0, "{c}");
        assert!(kinds.iter().all(|k| *k == "tls" || *k == "protocol") && !kinds.is_empty(), "{c}");
    }
}

/// A user's command client that declares HTTP/1.1 and HTTP/2 is told each case's version (`HTTPBENCH_HTTP`),
/// as the built-in ones are.
#[test]
fn a_client_cmd_is_told_the_version_of_each_case() {
    let adapter = "mine@1.1,2=python3 -c \"import os,sys\nfor l in sys.stdin:\n n=int(l)\n if n==0: \
                   print('version', os.environ['HTTPBENCH_HTTP'])\n print('1000 200 3\\n'*n+'end', flush=True)\"";
    let args = ["--client-cmd", adapter, "--clients", "mine", "--mode", "reuse", "-n", "3", "--rounds", "1"];
    for http in ["1.1", "2"] {
        let (code, v, err) = run_json(&[&["run", "--tls", "--http", http], &args[..]].concat());
        assert_eq!(code, 0, "{err}");
        assert_eq!(v["environment"]["client_versions"]["mine"], http, "{v}");
    }
}

/// `all-runtimes` is every client of the table, the libraries and every command client.
#[test]
fn all_runtimes_names_every_library_and_every_command_client() {
    let args = ["run", "--clients", "all-runtimes", "-n", "1", "--warmup", "0", "--rounds", "1", "--mode", "reuse"];
    let (code, v, err) = run_json(&args);
    let names: Vec<&str> = cases(&v).iter().filter_map(|c| c["client"].as_str()).collect();
    let expected: Vec<&str> = httpbench_shared::protocol::native_clients()
        .filter(|c| c.versions.contains(&HttpVersion::Http11))
        .map(|c| c.name)
        .collect();
    for client in &expected {
        assert!(names.contains(client), "{client} is in all-runtimes: {names:?}\n{err}");
    }
    assert!(code == 0 || code == 1, "a runtime not installed fails its case alone: {err}");
}
