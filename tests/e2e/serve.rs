//! `httpbench serve`: the target endpoints and the headers a browser page needs.

use crate::support::cli::{export_run, SMALL_RAW};
use crate::support::http::{exchange, get};
use crate::support::serve::Serve;

#[test]
fn index_bytes_status_and_close() {
    let s = Serve::start();
    assert!(s.url.starts_with("http://127.0.0.1:"), "binds loopback by default: {}", s.url);
    let (head, body) = get(&s.url, "/");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body.len(), 612);
    let lower = head.to_ascii_lowercase();
    for h in ["access-control-allow-origin: *", "timing-allow-origin: *", "cross-origin-resource-policy: cross-origin"]
    {
        assert!(lower.contains(h), "missing {h}: {head}");
    }
    let (head, body) = get(&s.url, "/bytes/100000");
    assert!(head.contains("content-length: 100000"), "{head}");
    assert_eq!(body.len(), 100_000);
    let (head, _) = get(&s.url, "/status/503");
    assert!(head.starts_with("HTTP/1.1 503"), "{head}");
    let (head, _) = get(&s.url, "/?close=1");
    assert!(head.to_ascii_lowercase().contains("connection: close"), "{head}");
    let (head, _) = get(&s.url, "/bytes/nope");
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
}

#[test]
fn a_busy_port_is_a_clear_error() {
    let s = Serve::start();
    let port = s.url.trim_end_matches('/').rsplit(':').next().unwrap().to_string();
    let (code, _, err) = crate::support::cli::run(&["serve", "--port", &port]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&port) && err.contains("--port 0"), "{err}");
}

/// A page directory with a secret beside it (and a symlink to the secret inside it).
fn page_fixture(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = crate::support::scratch(name);
    let page = root.join("dist");
    std::fs::create_dir_all(page.join("sub")).unwrap();
    std::fs::write(page.join("index.html"), "<!DOCTYPE html><p>the page</p>").unwrap();
    std::fs::write(page.join("app.js"), "console.log(1)").unwrap();
    std::fs::write(page.join("app.wasm"), b"\0asm").unwrap();
    std::fs::write(page.join("sub/x.css"), "p{}").unwrap();
    std::fs::write(root.join("secret.txt"), "SECRET").unwrap();
    std::os::unix::fs::symlink(root.join("secret.txt"), page.join("link.txt")).unwrap();
    (root, page)
}

#[test]
fn the_page_is_served_cross_origin_isolated() {
    let (_root, page) = page_fixture("page-isolated");
    let s = Serve::start_with(&["--page-dir", page.to_str().unwrap(), "--quiet"]);
    let (head, _) = get(&s.url, "/app");
    assert!(head.starts_with("HTTP/1.1 301") && head.to_ascii_lowercase().contains("location: /app/"), "{head}");
    let (head, body) = get(&s.url, "/app/");
    let lower = head.to_ascii_lowercase();
    assert!(head.starts_with("HTTP/1.1 200") && body == b"<!DOCTYPE html><p>the page</p>", "{head}");
    assert!(lower.contains("cross-origin-opener-policy: same-origin"), "{head}");
    assert!(lower.contains("cross-origin-embedder-policy: require-corp"), "{head}");
    for (path, ty) in
        [("/app/app.js", "text/javascript"), ("/app/app.wasm", "application/wasm"), ("/app/sub/x.css", "text/css")]
    {
        let (head, _) = get(&s.url, path);
        assert!(head.starts_with("HTTP/1.1 200") && head.to_ascii_lowercase().contains(ty), "{path}: {head}");
    }
    // The target endpoints are still at the root, for the page to benchmark.
    let (_, body) = get(&s.url, "/");
    assert_eq!(body.len(), 612);
}

#[test]
fn static_serving_never_escapes_the_page_directory() {
    let (_root, page) = page_fixture("page-escape");
    let s = Serve::start_with(&["--page-dir", page.to_str().unwrap(), "--quiet"]);
    for path in [
        "/app/../secret.txt",
        "/app/%2e%2e/secret.txt",
        "/app/..%2fsecret.txt",
        "/app/sub/../../secret.txt",
        "/app//etc/passwd",
        "/app/%2fetc%2fpasswd",
        "/app/link.txt",
        "/app/..\\secret.txt",
        "/app/%00index.html",
    ] {
        let (head, body) = get(&s.url, path);
        assert!(!head.starts_with("HTTP/1.1 200"), "{path} was served: {head}");
        let text = String::from_utf8_lossy(&body);
        assert!(!text.contains("SECRET") && !text.contains("root:"), "{path} leaked: {text}");
    }
}

#[test]
fn a_missing_page_says_how_to_build_it() {
    let s = Serve::start_with(&["--quiet"]);
    let (head, body) = get(&s.url, "/app/");
    let text = String::from_utf8_lossy(&body);
    // Without --page-dir, a dist/ beside the repository is found if one was built; otherwise the message.
    if head.starts_with("HTTP/1.1 404") {
        assert!(text.contains("scripts/run.sh --browser"), "{text}");
    }
    let (code, _, err) = crate::support::cli::run(&["serve", "--port", "0", "--page-dir", "/nonexistent-page"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent-page") && err.contains("scripts/build-page.sh"), "{err}");
}

#[test]
fn the_results_endpoint_validates_limits_and_saves_atomically() {
    use crate::support::http::post;
    let dir = crate::support::scratch("results");
    let results = dir.join("results");
    let s = Serve::start_with(&["--results-dir", results.to_str().unwrap()]);
    let report = dir.join("r.json");
    let good = export_run(&report, &[&SMALL_RAW[..], &["--rounds", "1"]].concat()).into_bytes();
    let (head, body) = post(&s.url, "/results", &good);
    assert!(head.starts_with("HTTP/1.1 201"), "{head} {}", String::from_utf8_lossy(&body));
    // The terminal sums the posted run up in one line.
    let printed = s.stdout_until("httpbench serve: result from native", 10);
    assert!(printed.last().unwrap().contains(": 1 case, 5 requests, saved "), "{printed:?}");
    let saved: Vec<_> = std::fs::read_dir(&results).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(saved.len(), 1, "one file, no temporary left: {saved:?}");
    let text = std::fs::read_to_string(&saved[0]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    crate::schema::validate(&v);

    let (head, body) = post(&s.url, "/results", b"{ nope");
    assert!(head.starts_with("HTTP/1.1 400") && String::from_utf8_lossy(&body).contains("not valid JSON"), "{head}");
    let (head, body) = post(&s.url, "/results", br#"{"schema_version": 7}"#);
    assert!(head.starts_with("HTTP/1.1 400") && String::from_utf8_lossy(&body).contains("schema_version 7"), "{head}");
    let huge = vec![b' '; 9 * 1024 * 1024];
    let (head, _) = post(&s.url, "/results", &huge);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    assert_eq!(std::fs::read_dir(&results).unwrap().count(), 1, "refused files are not saved");
    // Saved files can be read back (for the page's import), and nothing else.
    let name = saved[0].file_name().unwrap().to_str().unwrap().to_string();
    let (head, body) = get(&s.url, &format!("/results/{name}"));
    assert!(head.starts_with("HTTP/1.1 200") && body == text.as_bytes(), "{head}");
    for bad in ["/results/../r.json", "/results/%2e%2e/r.json", "/results/x.txt"] {
        let (head, _) = get(&s.url, bad);
        assert!(head.starts_with("HTTP/1.1 404"), "{bad}: {head}");
    }
    let (head, body) = get(&s.url, "/app/serve.json");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&body).unwrap()["results"], "/results");
    // A page on another origin may not post (serve_origin.rs has the rest): its preflight is refused.
    let (head, _) = crate::support::http::exchange(
        &s.url,
        b"OPTIONS /results HTTP/1.1\r\nHost: x\r\nOrigin: http://elsewhere\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n",
    );
    assert!(head.starts_with("HTTP/1.1 403"), "{head}");
}

/// A page on a public origin calling the local server: Chromium's Private Network Access preflight, as a real
/// OPTIONS request on the wire, is answered so the request may go ahead; with the CORS preflight's headers.
#[test]
fn private_network_access_preflights_are_answered() {
    let s = Serve::start();
    let addr = s.url.trim_start_matches("http://").trim_end_matches('/').to_string();
    let request = format!(
        "OPTIONS /bytes/612 HTTP/1.1\r\nHost: {addr}\r\nOrigin: https://example.github.io\r\n\
         Access-Control-Request-Method: GET\r\nAccess-Control-Request-Private-Network: true\r\n\
         Connection: close\r\n\r\n"
    );
    let (head, body) = exchange(&s.url, request.as_bytes());
    let head = head.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 204"), "{head}");
    for line in [
        "access-control-allow-private-network: true",
        "access-control-allow-origin: *",
        "access-control-allow-methods: get, head, options",
    ] {
        assert!(head.contains(line), "{line} in {head}");
    }
    assert!(body.is_empty());
}

/// A reuse case's kept-alive connection idles while the run's other cases and sides (the browsers) have their
/// turn, minutes at times: the server keeps it. Its header read timeout once closed it after 30 idle seconds,
/// and the case's next request paid a new connection.
#[test]
fn a_kept_alive_connection_outlives_half_a_minute_of_idling() {
    use std::io::{Read, Write};
    let serve = Serve::start();
    let addr = serve.url.trim_start_matches("http://").trim_end_matches('/').to_string();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    let mut get = || {
        s.write_all(b"GET /bytes/10 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut buf = [0u8; 4096];
        s.read(&mut buf).unwrap_or(0)
    };
    assert!(get() > 10, "the first answer");
    std::thread::sleep(std::time::Duration::from_secs(32));
    assert!(get() > 10, "the same connection answers after 32 idle seconds");
}

/// A browser that takes gzip gets a file's precompressed twin (`scripts/build-page.sh` writes them), with its
/// own content type, `Content-Encoding: gzip` and `Vary`; one that does not, and a file without a twin, get the
/// file as it is.
#[test]
fn precompressed_assets_go_to_browsers_that_take_gzip() {
    let (_root, page) = page_fixture("page-gzip");
    let wasm = page.join("app.wasm");
    std::fs::write(&wasm, vec![b'w'; 100_000]).unwrap();
    let zipped = std::process::Command::new("gzip").args(["-9", "-k", "-n"]).arg(&wasm).status().unwrap();
    assert!(zipped.success());
    let gz = std::fs::read(page.join("app.wasm.gz")).unwrap();
    let s = Serve::start_with(&["--page-dir", page.to_str().unwrap(), "--quiet"]);
    let ask = |path: &str, accept: &str| {
        let head = format!("GET {path} HTTP/1.1\r\nHost: x\r\n{accept}Connection: close\r\n\r\n");
        let (head, body) = exchange(&s.url, head.as_bytes());
        (head.to_ascii_lowercase(), body)
    };
    let (head, body) = ask("/app/app.wasm", "Accept-Encoding: gzip, deflate, br\r\n");
    assert!(head.contains("content-encoding: gzip") && head.contains("content-type: application/wasm"), "{head}");
    assert!(head.contains("vary: accept-encoding") && head.contains("cross-origin-embedder-policy"), "{head}");
    assert_eq!(body, gz, "the twin, as written");
    assert!(body.len() < 1_000, "{}", body.len());
    for accept in ["", "Accept-Encoding: br\r\n", "Accept-Encoding: gzip;q=0\r\n"] {
        let (head, body) = ask("/app/app.wasm", accept);
        assert!(!head.contains("content-encoding"), "{accept}: {head}");
        assert_eq!(body.len(), 100_000, "{accept}");
    }
    let (head, body) = ask("/app/app.js", "Accept-Encoding: gzip\r\n");
    assert!(!head.contains("content-encoding") && body == b"console.log(1)", "no twin: {head}");
    // A twin is never reached by its own name through another file's path, nor outside the page.
    let (head, _) = ask("/app/link.txt", "Accept-Encoding: gzip\r\n");
    assert!(head.starts_with("http/1.1 404"), "{head}");
}

/// The page travels inside the binary: a copy of it placed where no checkout is (no `./dist`, no `dist/` beside a
/// `target/`) serves the page it was built with, gzip twins included, and says so; `run --browser` finds it the
/// same way (scripts/install-check.sh runs that against a real `cargo install`). With `--page-dir` a folder
/// still comes first.
#[test]
#[ignore = "needs the built page (dist/) when the binary was built: scripts/test.sh builds it first"]
fn a_copy_of_the_binary_away_from_any_checkout_serves_the_page_built_into_it() {
    let dist = crate::support::site::dist();
    let away = crate::support::scratch("page-built-in");
    let bin = away.join("bin/x/httpbench");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_httpbench"), &bin).unwrap();
    let mut child = std::process::Command::new(&bin)
        .args(["serve", "--port", "0"])
        .current_dir(&away)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    let url = line.trim().strip_prefix("listening on ").expect("the address first").to_string();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    std::io::BufRead::read_line(&mut err, &mut said).unwrap();
    // A binary whose build script ran before dist/ was built has none: `touch cli/build.rs` and build again.
    assert!(said.contains("/app/ (built into this binary)"), "{said}");
    let (head, body) = get(&url, "/app/");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, std::fs::read(dist.join("index.html")).unwrap(), "the very page of dist/");
    let wasm = std::fs::read_dir(&dist)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find(|n| n.ends_with("_bg.wasm"))
        .expect("a wasm in dist/");
    let request = format!("GET /app/{wasm} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n");
    let (head, body) = exchange(&url, request.as_bytes());
    assert!(head.to_ascii_lowercase().contains("content-encoding: gzip"), "{head}");
    assert_eq!(body, std::fs::read(dist.join(format!("{wasm}.gz"))).unwrap(), "its gzip twin");
    let (head, _) = get(&url, "/app/../Cargo.toml");
    assert!(head.starts_with("HTTP/1.1 404") || head.starts_with("HTTP/1.1 400"), "{head}");
    let _ = child.kill();
    let _ = child.wait();
}
