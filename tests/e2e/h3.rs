//! HTTP/3 over QUIC, natively: the embedded server answers on UDP of its TCP port (`--http 3`), the `raw` floor
//! speaks it through quinn and h3, every version is a dimension of the cases (`--http 1.1,2,3`), the clients
//! without HTTP/3 are left out with the reason, and each fault a QUIC client meets ends within `--timeout`
//! with its one-line reason: nothing listening on the UDP port, a certificate for another name.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{cases, run_json, Serve};

/// `serve --tls --http VERSIONS` on `bind`, and the CA file it printed.
fn tls_server(versions: &str, bind: &str) -> (Serve, String) {
    let serve = Serve::start_with(&["--quiet", "--tls", "--http", versions, "--bind", bind]);
    let lines = serve.stdout_until("SPKI pin: ", 10);
    let ca = lines.iter().find_map(|l| l.strip_prefix("CA certificate: ")).expect("a CA line").to_string();
    (serve, ca)
}

/// The case of `client`, `mode` and HTTP `version` in a result file.
fn case<'a>(v: &'a Value, client: &str, mode: &str, version: &str) -> &'a Value {
    let found = cases(v).iter().find(|c| c["client"] == client && c["mode"] == mode && c["http_version"] == version);
    found.unwrap_or_else(|| panic!("no {client}/{mode} over {version}: {v}"))
}

#[test]
fn every_version_is_a_dimension_and_raw_speaks_http3_with_a_handshake_per_fresh_request() {
    let args = ["run", "--tls", "--http", "1.1,2,3", "--clients", "raw,curl", "-n", "40", "--warmup", "2"];
    let (code, v, err) = run_json(&[&args[..], &["--rounds", "2", "--no-progress"]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["settings"]["http_versions"], serde_json::json!(["1.1", "2", "3"]));
    let skipped = &v["settings"]["skipped"];
    for left_out in ["curl over HTTP/3 (no HTTP/3 in this client)", "raw over HTTP/2 (no HTTP/2 in this client)"] {
        assert!(skipped.as_array().unwrap().iter().any(|s| s == left_out), "{left_out}: {skipped}");
    }
    assert_eq!(cases(&v).len(), 8, "raw over h1 and h3, curl over h1 and h2, both modes");
    for c in cases(&v) {
        assert_eq!((c["ok"].as_u64(), c["bytes"].as_u64()), (Some(40), Some(40 * 612)), "{c}");
    }
    let fresh = case(&v, "raw", "fresh", "3");
    assert_eq!(fresh["tls"], "TLSv1.3 TLS13_AES_128_GCM_SHA256", "{fresh}");
    // A new QUIC connection with a full handshake per request, resuming nothing; the warm-up's are its own.
    assert_eq!((fresh["tls_full_handshakes"].as_u64(), fresh["tls_resumed_handshakes"].as_u64()), (Some(40), Some(0)));
    assert_eq!(fresh["connections"].as_u64(), Some(42), "{fresh}");
    let reuse = case(&v, "raw", "reuse", "3");
    assert_eq!(reuse["tls_full_handshakes"].as_u64(), Some(0), "its one handshake was in the warm-up: {reuse}");
    assert_eq!(reuse["connections"].as_u64(), Some(1), "{reuse}");
    // With requests in flight, reuse keeps them all on its one connection, as streams.
    let (code, v, err) = run_json(&[
        "run",
        "--tls",
        "--http",
        "3",
        "--clients",
        "raw",
        "--mode",
        "reuse",
        "-c",
        "8",
        "-n",
        "200",
        "--rounds",
        "2",
        "--no-progress",
    ]);
    assert_eq!(code, 0, "{err}");
    let c = case(&v, "raw", "reuse", "3");
    assert_eq!((c["ok"].as_u64(), c["connections"].as_u64()), (Some(200), Some(1)), "{c}");
}

#[test]
fn a_url_served_over_http3_is_measured_with_its_ca() {
    let (serve, ca) = tls_server("3", "127.0.0.1");
    let args = ["run", serve.url.as_str(), "--http", "3", "--cacert", ca.as_str(), "--clients", "raw,ureq"];
    let (code, v, err) = run_json(&[&args[..], &["-n", "20", "--warmup", "1", "--no-progress"]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(cases(&v).len(), 2, "raw in both modes; ureq left out: {v}");
    assert!(cases(&v).iter().all(|c| c["ok"] == 20 && c["http_version"] == "3"), "{v}");
    assert!(v["settings"]["skipped"].to_string().contains("ureq over HTTP/3 (HTTP/1.1 only)"), "{v}");
}

/// Run `raw` over HTTP/3 against `url` with `ca`, 2 requests in reuse and fresh mode with a 1 s timeout; the
/// result and how long it took.
fn faulty(url: &str, ca: &str) -> (Value, Duration) {
    let t = Instant::now();
    let args = ["run", url, "--http", "3", "--cacert", ca, "--clients", "raw", "-n", "2", "--warmup", "0"];
    let (code, v, err) = run_json(&[&args[..], &["--rounds", "1", "--timeout", "1", "--no-progress"]].concat());
    assert_eq!(code, 1, "every request failed: {err}");
    (v, t.elapsed())
}

#[test]
fn nothing_listening_on_the_udp_port_is_a_timeout_within_the_timeout() {
    // The server speaks HTTP/1.1 and HTTP/2 on TCP only: its UDP port answers nothing (QUIC hears no refusal).
    let (serve, ca) = tls_server("both", "127.0.0.1");
    let (v, took) = faulty(&serve.url, &ca);
    assert!(took < Duration::from_secs(20), "4 requests of at most 1 s each: {took:?}");
    for c in cases(&v) {
        assert_eq!(c["errors"]["timeout"].as_u64(), Some(2), "{c}");
        let reason = c["error_reasons"][0].as_str().unwrap_or_default();
        assert!(reason.starts_with("timeout: ") && !reason.contains('\n'), "one line: {c}");
    }
}

#[test]
fn a_certificate_for_another_name_is_a_tls_failure() {
    // 127.0.0.2 is loopback too, but not a name the generated certificate holds (127.0.0.1, localhost, ::1).
    let (serve, ca) = tls_server("3", "127.0.0.2");
    let (v, took) = faulty(&serve.url, &ca);
    assert!(took < Duration::from_secs(20), "{took:?}");
    for c in cases(&v) {
        assert_eq!(c["errors"]["tls"].as_u64(), Some(2), "{c}");
        let reason = c["error_reasons"][0].as_str().unwrap_or_default().to_lowercase();
        assert!(reason.starts_with("tls: ") && reason.contains("certificate"), "the reason says why: {c}");
    }
}
