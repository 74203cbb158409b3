//! HTTPS (issue 15, first part): `httpbench serve --tls` with a certificate generated at start, and the TLS
//! clients trusting it because they are given its CA (`--cacert`), never by turning verification off: every
//! client in both modes, the same clients refusing the certificate without the CA, and a bad `--cacert`.

use std::time::{Duration, Instant};

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::cannot_speak;
use httpbench_shared::EnvironmentKind;

use crate::support::cli::{cases, run, run_json};
use crate::support::scratch;
use crate::support::serve::Serve;
use crate::support::table::{all_libraries, libraries_speaking, list};

/// `serve --tls`, and the CA file and SPKI pin it printed.
fn tls_server() -> (Serve, String, String) {
    let serve = Serve::start_with(&["--quiet", "--tls"]);
    assert!(serve.url.starts_with("https://127.0.0.1:"), "{}", serve.url);
    let lines = serve.stdout_until("SPKI pin: ", 10);
    let after = |prefix: &str| lines.iter().find_map(|l| l.strip_prefix(prefix)).map(str::to_string);
    let ca = after("CA certificate: ").unwrap_or_else(|| panic!("no CA line: {lines:?}"));
    let pin = after("SPKI pin: ").unwrap();
    (serve, ca, pin)
}

/// Every in-process client: all of them speak HTTP/1.1 over TLS.
fn tls_clients() -> String {
    list(&all_libraries())
}

#[test]
fn every_tls_client_trusts_the_generated_certificate_when_given_its_ca() {
    let (serve, ca, pin) = tls_server();
    assert!(pin.starts_with("sha256/") && pin.len() == 51, "{pin}");
    assert!(std::fs::read_to_string(&ca).unwrap().starts_with("-----BEGIN CERTIFICATE-----"));
    let clients = tls_clients();
    let args = ["--clients", &clients, "-n", "10", "--warmup", "2", "--rounds", "2", "--no-progress"];
    let (code, v, err) = run_json(&[&["run", serve.url.as_str(), "--cacert", ca.as_str()], &args[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(cases(&v).len(), 2 * all_libraries().len(), "every client, two modes");
    for c in cases(&v) {
        assert_eq!((c["ok"].as_u64(), c["bytes"].as_u64()), (Some(10), Some(6120)), "{c}");
    }
}

#[test]
fn without_the_ca_every_request_is_a_tls_failure_bounded_in_time() {
    let (serve, _ca, _pin) = tls_server();
    let t = Instant::now();
    let clients = tls_clients();
    let args = ["--clients", &clients, "-n", "2", "--warmup", "0", "--rounds", "1", "--no-progress"];
    let (code, v, err) = run_json(&[&["run", serve.url.as_str(), "--timeout", "2"], &args[..]].concat());
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    assert_eq!(code, 1, "{err}");
    for c in cases(&v) {
        assert_eq!(c["errors"]["tls"].as_u64(), Some(2), "{} refuses an unknown issuer as tls: {c}", c["client"]);
        let reason = c["error_reasons"][0].as_str().unwrap_or_default().to_lowercase();
        assert!(reason.starts_with("tls: "), "{c}");
        assert!(
            reason.contains("certificate") || reason.contains("issuer"),
            "{}: the reason says why: {c}",
            c["client"]
        );
    }
}

#[test]
fn a_bad_cacert_is_refused_before_any_work_naming_the_file() {
    let dir = scratch("tls-bad-ca");
    let not_pem = dir.join("not.pem");
    std::fs::write(&not_pem, "hello").unwrap();
    for (file, says) in [(dir.join("absent.pem"), "cannot read it"), (not_pem, "holds no certificate")] {
        let (code, _, err) = run(&["run", "https://127.0.0.1:9/", "--cacert", file.to_str().unwrap(), "-n", "5"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("--cacert {}", file.display())) && err.contains(says), "{err}");
    }
}

#[test]
fn run_tls_measures_the_embedded_server_over_https_with_its_ca() {
    let (code, v, err) = run_json(&["run", "--tls", "-n", "10", "--warmup", "2", "--rounds", "2", "--no-progress"]);
    assert_eq!(code, 0, "{err}");
    assert!(v["target"]["url"].as_str().unwrap().starts_with("https://127.0.0.1:"), "{}", v["target"]);
    assert_eq!(v["target"]["embedded_server"], true);
    assert_eq!(cases(&v).len(), 6, "curl, ureq and reqwest in both modes");
    for c in cases(&v) {
        assert_eq!(c["ok"].as_u64(), Some(10), "{c}");
    }
    for (args, says) in [
        (&["run", "https://127.0.0.1:9/", "--tls"][..], "--tls is for the embedded server"),
        (&["run", "--http", "2"][..], "--http 2: HTTP/2 and HTTP/3 are measured over TLS only"),
        (&["run", "http://127.0.0.1:9/", "--http", "both"][..], "--http both: HTTP/2 and HTTP/3 are measured"),
        (&["run", "--http", "1.1,3"][..], "--http 1.1,3: HTTP/2 and HTTP/3 are measured over TLS only"),
        (&["run", "--tls", "--http", "4"][..], "'4'"),
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// `GET /tls/handshakes` of `serve --tls` over a TLS connection of its own (trusting `ca`): (full, resumed).
/// The server takes the asking connection's own handshake out of the tally, so reading it changes nothing.
fn handshakes(serve: &Serve, ca: &str) -> (u64, u64) {
    use rustls::pki_types::pem::PemObject;
    use std::io::{Read, Write};
    let mut roots = rustls::RootCertStore::empty();
    roots.add_parsable_certificates(rustls::pki_types::CertificateDer::pem_file_iter(ca).unwrap().flatten());
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let url = url::Url::parse(&serve.url).unwrap();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let conn = rustls::ClientConnection::new(std::sync::Arc::new(config), name).unwrap();
    let tcp = std::net::TcpStream::connect(("127.0.0.1", url.port().unwrap())).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    tls.write_all(b"GET /tls/handshakes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    let _ = tls.read_to_string(&mut text);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    let first = body.lines().next().unwrap_or_default();
    let n: Vec<u64> = first.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert_eq!(n.len(), 2, "{text}");
    (n[0], n[1])
}

/// Fresh means a full handshake per request for every TLS client: the server counts none resumed (reqwest's
/// clients share one rustls configuration, whose session cache would let them resume). Reuse makes one.
#[test]
fn fresh_clients_make_a_full_handshake_per_request_and_resume_none() {
    for client in ["curl", "ureq", "reqwest", "reqwest-async", "raw"] {
        for (mode, handshakes_made) in [("fresh", 12), ("reuse", 1)] {
            let (serve, ca, _) = tls_server();
            let before = handshakes(&serve, &ca);
            let args = ["--clients", client, "--mode", mode, "-n", "10", "--warmup", "2", "--rounds", "2"];
            let (code, _, err) = run(&[&["run", serve.url.as_str(), "--cacert", ca.as_str()], &args[..]].concat());
            assert_eq!(code, 0, "{client}/{mode}: {err}");
            let after = handshakes(&serve, &ca);
            assert_eq!((after.0 - before.0, after.1 - before.1), (handshakes_made, 0), "{client}/{mode}");
        }
    }
}

/// `run --tls --http both`: every client that speaks HTTP/2 runs it as cases of their own, ureq is left out of
/// them with the reason in the report, every response came over the version its case asked for (the session
/// would count it a protocol error otherwise), and each case records the TLS the server negotiated: fresh
/// cases one full handshake per measured request, reuse cases none (made in the warm-up).
#[test]
fn run_tls_http_both_measures_h1_and_h2_as_separate_cases_with_their_handshakes() {
    let clients = tls_clients();
    let args = ["run", "--tls", "--http", "both", "--clients", &clients, "-n", "12", "--warmup", "2"];
    let (code, v, err) = run_json(&[&args[..], &["--rounds", "2", "--no-progress"]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["schema_version"], httpbench_shared::model::SCHEMA_VERSION);
    assert_eq!(
        (v["settings"]["tls"].clone(), v["settings"]["http_versions"].clone()),
        (true.into(), serde_json::json!(["1.1", "2"]))
    );
    let (h2, no_h2) = (libraries_speaking(HttpVersion::Http2), left_out_of(HttpVersion::Http2));
    assert_eq!(v["settings"]["skipped"], serde_json::json!(no_h2));
    let names: Vec<String> = cases(&v)
        .iter()
        .map(|c| {
            format!(
                "{}/{}/{}",
                c["client"].as_str().unwrap(),
                c["mode"].as_str().unwrap(),
                c["http_version"].as_str().unwrap()
            )
        })
        .collect();
    let mut expected = Vec::new();
    for client in all_libraries() {
        for mode in ["fresh", "reuse"] {
            expected.push(format!("{client}/{mode}/1.1"));
            if h2.contains(&client) {
                expected.push(format!("{client}/{mode}/2"));
            }
        }
    }
    assert_eq!(names, expected);
    for c in cases(&v) {
        assert_eq!(c["ok"].as_u64(), Some(12), "{c}");
        let full = if c["mode"] == "fresh" { 12 } else { 0 };
        let counts = (c["tls_full_handshakes"].as_u64(), c["tls_resumed_handshakes"].as_u64());
        assert_eq!(counts, (Some(full), Some(0)), "{c}");
        if c["mode"] == "fresh" {
            assert!(c["tls"].as_str().unwrap().starts_with("TLSv1.3 TLS13_"), "{c}");
        }
    }
    // The text report names the cases with /h1 and /h2 and says who was left out.
    let (code, text, err) = run(&[&args[..], &["--rounds", "1", "--mode", "reuse", "--no-progress"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("curl/h2") && text.contains("reqwest-async/h1"), "{text}");
    let left = format!("note: left out: {}.", no_h2.join(", "));
    assert!(text.contains(&left), "{text}");
    assert!(text.contains("HTTP/1.1 and HTTP/2 over TLS"), "{text}");
}

/// A server that offers only HTTP/1.1 (`serve --tls --http 1.1`) against cases that ask for HTTP/2: libcurl
/// falls back to HTTP/1.1, which is counted as a protocol error with its reason; reqwest, offering only h2,
/// finds no common protocol and fails the handshake, counted as tls. Nothing passes as h2 that was not.
#[test]
fn asking_for_h2_from_a_server_without_it_counts_errors_with_reasons() {
    let serve = Serve::start_with(&["--quiet", "--tls", "--http", "1.1"]);
    let lines = serve.stdout_until("SPKI pin: ", 10);
    let ca = lines.iter().find_map(|l| l.strip_prefix("CA certificate: ")).unwrap().to_string();
    let args = ["--clients", "curl,reqwest", "--http", "2", "-n", "3", "--warmup", "0", "--rounds", "1"];
    let (code, v, err) =
        run_json(&[&["run", serve.url.as_str(), "--cacert", ca.as_str(), "--timeout", "5"], &args[..]].concat());
    assert_eq!(code, 1, "{err}");
    let curl = cases(&v).iter().find(|c| c["client"] == "curl").cloned().unwrap();
    assert_eq!((curl["ok"].as_u64(), curl["errors"]["protocol"].as_u64()), (Some(0), Some(3)), "{curl}");
    let reason = "protocol: the response came over HTTP/1.1, HTTP/2 was asked for";
    assert_eq!(curl["error_reasons"], serde_json::json!([reason]), "{curl}");
    let reqwest = cases(&v).iter().find(|c| c["client"] == "reqwest").cloned().unwrap();
    assert_eq!((reqwest["ok"].as_u64(), reqwest["errors"]["tls"].as_u64()), (Some(0), Some(3)), "{reqwest}");
    assert!(reqwest["error_reasons"][0].as_str().is_some_and(|r| r.starts_with("tls: ")), "{reqwest}");
}

/// Phases natively: libcurl's timers and the raw client's own clock split each request into connect, TLS
/// handshake and time to first byte. Fresh cases connect and shake hands on every request; reuse cases on
/// none (their connection came from the warm-up); in plaintext there is no handshake phase at all.
#[test]
fn curl_and_raw_report_connect_tls_and_first_byte_phases() {
    let args = ["--clients", "curl,raw", "-n", "10", "--warmup", "2", "--rounds", "1", "--no-progress"];
    let (code, v, err) = run_json(&[&["run", "--tls"], &args[..]].concat());
    assert_eq!(code, 0, "{err}");
    for c in cases(&v) {
        let p = &c["phases_ns"];
        assert_eq!(p["samples"].as_u64(), Some(10), "{c}");
        let (connect, tls, ttfb) = (p["connect_mean"].as_f64(), p["tls_mean"].as_f64(), p["ttfb_mean"].as_f64());
        let (connect, tls, ttfb) = (connect.unwrap(), tls.unwrap(), ttfb.unwrap());
        if c["mode"] == "fresh" {
            assert!(connect > 0.0 && tls > 0.0, "{c}");
            assert!(ttfb > connect + tls, "the first byte comes after connecting and the handshake: {c}");
        } else {
            assert_eq!((connect, tls), (0.0, 0.0), "{c}");
            assert!(ttfb > 0.0, "{c}");
        }
    }
    let (code, v, err) = run_json(&[&["run"], &args[..]].concat());
    assert_eq!(code, 0, "{err}");
    for c in cases(&v) {
        assert!(c["phases_ns"]["tls_mean"].is_null() && c["phases_ns"]["ttfb_mean"].as_f64() > Some(0.0), "{c}");
    }
}

/// The report's line for each in-process client left out of `http`'s cases, with the table's reason.
fn left_out_of(http: HttpVersion) -> Vec<String> {
    let speaking = libraries_speaking(http);
    let others = all_libraries().into_iter().filter(|c| !speaking.contains(c));
    others
        .map(|c| format!("{c} over {http} ({})", cannot_speak(EnvironmentKind::Native, c, http, None).unwrap_or("?")))
        .collect()
}
