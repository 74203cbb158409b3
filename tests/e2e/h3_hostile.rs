//! Hostile HTTP/3 peers (issue 36), each a real QUIC peer on 127.0.0.1 written here on raw quinn, with its
//! frames and QPACK fields written by hand (h3 itself refuses to send what these send): a response header
//! block of 40,000 fields, a 16 MiB header value, a body longer than its Content-Length, an HTTP/3
//! application close, a stateless reset and a version negotiation. Every HTTP/3 client meets each within its
//! timeout and a memory bound, as the same kind with a one-line reason, and the process never panics; the
//! embedded server (`serve --tls --http 3`) meets the hostile requests from a raw client and goes on serving.

use std::io::BufRead;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::h3::{h3_clients, quic_peer, FaultServer};
use crate::support::cli::{cases, run_bounded, Bounded};
use crate::support::scratch;

/// A QUIC variable-length integer (RFC 9000 16).
fn varint(n: u64, out: &mut Vec<u8>) {
    match n {
        0..0x40 => out.push(n as u8),
        0x40..0x4000 => out.extend((n as u16 | 0x4000).to_be_bytes()),
        0x4000..0x4000_0000 => out.extend((n as u32 | 0x8000_0000).to_be_bytes()),
        _ => out.extend((n | 0xc000_0000_0000_0000).to_be_bytes()),
    }
}

/// A QPACK prefixed integer (RFC 7541 5.1) of `bits` bits after the pattern bits `first`.
fn prefixed(n: usize, bits: u32, first: u8, out: &mut Vec<u8>) {
    let max = (1usize << bits) - 1;
    if n < max {
        return out.push(first | n as u8);
    }
    out.push(first | max as u8);
    let mut rest = n - max;
    while rest >= 0x80 {
        out.push((rest % 0x80) as u8 | 0x80);
        rest /= 0x80;
    }
    out.push(rest as u8);
}

/// An HTTP/3 frame of type `ty`.
fn frame(ty: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 16);
    varint(ty, &mut out);
    varint(payload.len() as u64, &mut out);
    out.extend_from_slice(payload);
    out
}

/// A HEADERS frame of QPACK field lines that use no dynamic table (the two-byte prefix is zero).
fn headers(fields: &[u8]) -> Vec<u8> {
    frame(0x01, &[&[0, 0][..], fields].concat())
}

/// An indexed field line of QPACK's static table (RFC 9204 4.5.2, Appendix A), one byte.
fn indexed(index: u8) -> u8 {
    0xc0 | index
}

/// `:status 200`, `content-length`, `set-cookie` and `accept-ranges: bytes` in QPACK's static table.
const STATUS_200: u8 = 25;
const CONTENT_LENGTH: usize = 4;
const SET_COOKIE: usize = 14;
const ACCEPT_RANGES_BYTES: u8 = 32;

/// A literal field line whose name is static entry `name` (RFC 9204 4.5.4), with `value`.
fn literal(name: usize, value: &[u8], out: &mut Vec<u8>) {
    prefixed(name, 4, 0x50, out);
    prefixed(value.len(), 7, 0, out);
    out.extend_from_slice(value);
}

/// What a hostile peer answers to every request.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// A 40 KB header block of 40,000 one-byte fields (each 50 bytes as HTTP/3 counts a field section).
    ManyFields,
    /// A header value of 16 MiB.
    HugeValue,
    /// `content-length: 10` and a body of 20 bytes.
    LongBody,
    /// Closes the connection at the HTTP/3 level (H3_INTERNAL_ERROR, 0x102: TLS alert 2 by number).
    ApplicationClose,
}

/// The bytes of `hostile`'s response.
fn response(hostile: Hostile) -> Vec<u8> {
    let mut fields = vec![indexed(STATUS_200)];
    match hostile {
        Hostile::ManyFields => fields.extend(std::iter::repeat_n(indexed(ACCEPT_RANGES_BYTES), 40_000)),
        Hostile::HugeValue => literal(SET_COOKIE, &vec![b'x'; 16 << 20], &mut fields),
        Hostile::LongBody => literal(CONTENT_LENGTH, b"10", &mut fields),
        Hostile::ApplicationClose => {}
    }
    let mut bytes = headers(&fields);
    if let Hostile::LongBody = hostile {
        bytes.extend(frame(0x00, &[b'x'; 20]));
    }
    bytes
}

/// One connection of a hostile server: a control stream with empty SETTINGS (kept open: closing it is a
/// connection error), then `hostile` done to every request stream once the request has been read whole.
async fn hostile_connection(incoming: quinn::Incoming, hostile: Hostile) {
    let Ok(conn) = incoming.await else { return };
    let Ok(mut control) = conn.open_uni().await else { return };
    let _ = control.write_all(&[0x00, 0x04, 0x00]).await;
    let answer = Arc::new(response(hostile));
    while let Ok((mut send, mut recv)) = conn.accept_bi().await {
        let (conn, answer) = (conn.clone(), answer.clone());
        tokio::spawn(async move {
            let _ = recv.read_to_end(64 * 1024).await;
            if let Hostile::ApplicationClose = hostile {
                return conn.close(quinn::VarInt::from_u32(0x102), b"H3_INTERNAL_ERROR");
            }
            let _ = send.write_all(&answer).await;
            let _ = send.finish();
            // Until the client has all of it, or stops reading.
            let _ = send.stopped().await;
        });
    }
    drop(control);
}

/// A hostile HTTP/3 server: its URL, the CA file, and its guard.
fn hostile_server(hostile: Hostile, dir: &std::path::Path) -> (String, String, FaultServer) {
    let (url, ca, guard) = quic_peer(dir, move |incoming| hostile_connection(incoming, hostile));
    (url, ca.display().to_string(), guard)
}

/// Run `clients` against `url` (2 requests in each mode, each bounded by `timeout` seconds), with the
/// peak memory of the process; every request must have failed (exit 1).
fn against(clients: &str, url: &str, ca: &str, timeout: &str) -> (Value, Bounded) {
    against_in(clients, url, ca, timeout, "both", "2")
}

/// [`against`] with `n` requests in `modes` alone.
fn against_in(clients: &str, url: &str, ca: &str, timeout: &str, modes: &str, n: &str) -> (Value, Bounded) {
    let args = ["run", url, "--http", "3", "--cacert", ca, "--clients", clients, "--mode", modes, "-n", n];
    let more = ["--warmup", "0", "--rounds", "1", "--timeout", timeout, "--no-progress", "--format", "json"];
    let run = run_bounded(&[&args[..], &more[..]].concat(), 90);
    assert_eq!(run.code, 1, "every request failed, and the process lived to say so: {}", run.err);
    assert!(!run.err.contains("panicked"), "no panic, even one caught: {}", run.err);
    let v = serde_json::from_str(&run.out).unwrap_or_else(|e| panic!("a result file ({e}): {}\n{}", run.out, run.err));
    (v, run)
}

/// Every case of `v` failed both its requests as `kind`, with a one-line reason containing `says`.
fn all_failed_as(v: &Value, kind: &str, says: &str) {
    all_n_failed_as(v, 2, kind, says);
}

/// Every case of `v` failed its `n` requests as `kind`, with a one-line reason containing `says`.
fn all_n_failed_as(v: &Value, n: u64, kind: &str, says: &str) {
    assert!(!cases(v).is_empty(), "{v}");
    for c in cases(v) {
        assert_eq!(c["errors"][kind].as_u64(), Some(n), "{kind}: {c}");
        let reason = c["error_reasons"][0].as_str().unwrap_or_default();
        let said = reason.starts_with(&format!("{kind}: ")) && reason.to_lowercase().contains(says);
        assert!(said && !reason.contains('\n'), "a reason that says {says:?}: {c}");
    }
}

#[test]
fn a_response_header_block_of_40000_fields_is_a_protocol_failure_not_a_panic() {
    let (url, ca, _server) = hostile_server(Hostile::ManyFields, &scratch("h3-many-fields"));
    let (v, run) = against(&h3_clients(), &url, &ca, "5");
    // h3 refuses the block by its size before `http` builds a map of it (raw: "header too big"; reqwest
    // words it its own way), so every client says `protocol`.
    all_failed_as(&v, "protocol", "");
    assert!(run.took < Duration::from_secs(60) && run.peak_mib < 200, "{} MiB in {:?}", run.peak_mib, run.took);
}

#[test]
fn a_16_mib_header_value_is_refused_within_a_memory_bound() {
    let (url, ca, _server) = hostile_server(Hostile::HugeValue, &scratch("h3-huge-value"));
    // One request each: h3 reads the frame whole, and a debug build takes seconds of CPU over 16 MiB of it
    // (h3 sums its buffered chunks on every read: quadratic in their number).
    let (v, run) = against_in(&h3_clients(), &url, &ca, "30", "fresh", "1");
    all_n_failed_as(&v, 1, "protocol", "");
    // h3 (0.0.8) still reads a HEADERS frame whole before it measures it, then refuses it: the peak is that
    // frame in the receive buffers its packets arrived in (several times its 16 MiB: 79 MiB for raw alone,
    // 132 MiB with reqwest's clients, measured), bounded by the frame a peer sends, not by the header bound.
    assert!(run.peak_mib < 200, "peak {} MiB", run.peak_mib);
    assert!(run.took < Duration::from_secs(85), "{:?}", run.took);
}

#[test]
fn a_body_longer_than_its_content_length_is_a_protocol_failure_for_every_client() {
    let (url, ca, _server) = hostile_server(Hostile::LongBody, &scratch("h3-long-body"));
    let (v, _) = against(&h3_clients(), &url, &ca, "2");
    all_failed_as(&v, "protocol", "past its content-length of 10 bytes");
}

#[test]
fn an_http3_application_close_is_a_reset_not_tls() {
    let (url, ca, _server) = hostile_server(Hostile::ApplicationClose, &scratch("h3-app-close"));
    let (v, _) = against(&h3_clients(), &url, &ca, "2");
    all_failed_as(&v, "reset", "");
}

#[test]
fn a_stateless_reset_is_a_reset_for_every_client() {
    let (url, ca, _server) = crate::h3_peers::resetting_server(&scratch("h3-stateless-reset"));
    let (v, _) = against(&h3_clients(), &url, &ca, "2");
    all_failed_as(&v, "reset", "");
}

#[test]
fn a_version_negotiation_is_a_protocol_failure_for_every_client() {
    let (url, _server) = crate::h3_peers::version_negotiator();
    let ca = scratch("h3-version").join("ca.pem");
    std::fs::write(&ca, crate::tls_faults::authority().0.pem()).unwrap();
    let (v, _) = against(&h3_clients(), &url, ca.to_str().unwrap(), "2");
    all_failed_as(&v, "protocol", "");
}

/// Each hostile peer above, met by python-aioquic: the same kind as the in-process clients, within the
/// timeout and a memory bound (its process's own peak is not metered here: it runs beside httpbench).
#[test]
#[ignore = "needs python3 with aioquic (scripts/setup.sh installs it; scripts/test.sh runs it)"]
fn python_aioquic_meets_every_hostile_peer_as_the_others_do() {
    for (hostile, kind) in [
        (Hostile::ManyFields, "protocol"),
        (Hostile::HugeValue, "protocol"),
        (Hostile::LongBody, "protocol"),
        (Hostile::ApplicationClose, "reset"),
    ] {
        let (url, ca, _server) = hostile_server(hostile, &scratch(&format!("h3-aioquic-{hostile:?}")));
        let (v, run) = against("python-aioquic", &url, &ca, "5");
        assert!(run.took < Duration::from_secs(60), "{hostile:?}: {:?}", run.took);
        all_failed_as(&v, kind, "");
    }
    let (url, ca, _server) = crate::h3_peers::resetting_server(&scratch("h3-aioquic-reset"));
    all_failed_as(&against("python-aioquic", &url, &ca, "2").0, "reset", "stateless reset");
    let (url, _server) = crate::h3_peers::version_negotiator();
    let ca = scratch("h3-aioquic-version").join("ca.pem");
    std::fs::write(&ca, crate::tls_faults::authority().0.pem()).unwrap();
    all_failed_as(&against("python-aioquic", &url, ca.to_str().unwrap(), "2").0, "protocol", "version");
}

/// `serve --tls --http 3` on 127.0.0.1 with its stderr in `log`: the child, its HTTP/3 address and its CA file.
fn logged_serve(log: &std::path::Path) -> (httpbench::process::KillOnDrop, std::net::SocketAddr, String) {
    let mut child = httpbench::process::KillOnDrop::spawn(
        crate::support::cli::bin()
            .args(["serve", "--quiet", "--port", "0", "--threads", "2", "--tls", "--http", "3", "--bind", "127.0.0.1"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(log).unwrap()),
    )
    .expect("httpbench serve starts");
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    // Drained to the end, so that serve never writes to a closed pipe.
    std::thread::spawn(move || stdout.lines().map_while(Result::ok).for_each(|l| drop(tx.send(l))));
    let (mut addr, mut ca) = (None, None);
    while addr.is_none() || ca.is_none() {
        let line = rx.recv_timeout(Duration::from_secs(10)).expect("serve prints its address and its CA");
        if let Some(url) = line.strip_prefix("listening on https://") {
            addr = url.trim_end_matches('/').parse().ok();
        } else if let Some(path) = line.strip_prefix("CA certificate: ") {
            ca = Some(path.to_string());
        }
    }
    (child, addr.unwrap(), ca.unwrap())
}

/// A GET of `/` on `addr` as QPACK field lines, with `more` after the pseudo-headers.
fn request_block(addr: std::net::SocketAddr, more: &[u8]) -> Vec<u8> {
    // :method GET, :scheme https, :path /, then :authority by name.
    let mut fields = vec![indexed(17), indexed(23), indexed(1)];
    literal(0, addr.to_string().as_bytes(), &mut fields);
    fields.extend_from_slice(more);
    headers(&fields)
}

/// The field lines of the first frame of a response stream, which must be its HEADERS.
fn response_head(answer: &[u8]) -> &[u8] {
    assert_eq!(answer.first(), Some(&0x01), "a HEADERS frame first: {answer:?}");
    let len = match answer[1] >> 6 {
        0 => usize::from(answer[1]),
        1 => usize::from(u16::from_be_bytes([answer[1] & 0x3f, answer[2]])),
        _ => panic!("a short head: {answer:?}"),
    };
    let start = if answer[1] >> 6 == 0 { 2 } else { 3 };
    &answer[start..start + len]
}

/// `VmHWM` (peak resident memory) of process `pid` in MiB.
fn peak_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap();
    line.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap() / 1024
}

#[test]
fn the_embedded_server_answers_a_hostile_request_header_section_with_431_and_serves_on() {
    let dir = scratch("h3-serve-hostile");
    let log = dir.join("serve.log");
    let (child, addr, ca) = logged_serve(&log);
    let mut many = Vec::new();
    many.extend(std::iter::repeat_n(indexed(31), 40_000));
    let mut huge = Vec::new();
    literal(5, &vec![b'x'; 16 << 20], &mut huge);
    for (what, more) in [("40,000 fields", many), ("a 16 MiB cookie", huge)] {
        let answer = crate::h3_peers::hostile_request(addr, &ca, request_block(addr, &more))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        // `:status 431` as h3 writes it: a literal value, Huffman-coded "431" (011010 011001 00001, padded).
        assert!(response_head(&answer).ends_with(&[0x69, 0x90, 0xff]), "{what}: a 431: {answer:?}");
    }
    let answer = crate::h3_peers::hostile_request(addr, &ca, request_block(addr, &[])).unwrap();
    // `:status 200`, static entry 25, then the body.
    assert_eq!(response_head(&answer).get(2), Some(&indexed(STATUS_200)), "served on: {answer:?}");
    let peak = peak_mib(child.id());
    assert!(peak < 90, "the 16 MiB request was refused with at most the frame in memory: {peak} MiB");
    drop(child);
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(!log.contains("panicked"), "no task panicked: {log}");
}
