//! The client table: one row per client httpbench knows. A new client is a row here and a module in the front
//! end that runs it (the CLI's `clients/`, the page's `clients/`).

use super::{Adapter, ClientInfo, Made, Script};
use crate::model::{EnvironmentKind, HttpVersion};

const H1: &[HttpVersion] = &[HttpVersion::Http11];
const H1_H2: &[HttpVersion] = &[HttpVersion::Http11, HttpVersion::Http2];
const H1_H3: &[HttpVersion] = &[HttpVersion::Http11, HttpVersion::Http3];
const H3: &[HttpVersion] = &[HttpVersion::Http3];
const ALL: &[HttpVersion] = &[HttpVersion::Http11, HttpVersion::Http2, HttpVersion::Http3];

const fn library(
    name: &'static str,
    default: bool,
    versions: &'static [HttpVersion],
    crates: &'static [&'static str],
    about: &'static str,
) -> ClientInfo {
    ClientInfo { name, environment: EnvironmentKind::Native, default, versions, made: Made::Library { crates }, about }
}

const fn command(
    name: &'static str,
    script: Script,
    arg: &'static str,
    install: &'static str,
    about: &'static str,
) -> ClientInfo {
    command_of(name, H1, script, arg, install, about)
}

const fn command_of(
    name: &'static str,
    versions: &'static [HttpVersion],
    script: Script,
    arg: &'static str,
    install: &'static str,
    about: &'static str,
) -> ClientInfo {
    let made = Made::Command(Adapter { script, arg, install });
    ClientInfo { name, environment: EnvironmentKind::Native, default: false, versions, made, about }
}

const fn browser(name: &'static str, feature: Option<&'static str>, about: &'static str) -> ClientInfo {
    let made = Made::Browser { feature };
    ClientInfo { name, environment: EnvironmentKind::Browser, default: feature.is_none(), versions: ALL, made, about }
}

const NODE: &str = "apt install nodejs (Node 18 or later)";

/// Every client: native libraries, then command clients, then browser clients, each group in report order.
pub const CLIENTS: &[ClientInfo] = &[
    library("curl", true, H1_H2, &[], "libcurl through the curl crate (easy interface)"),
    library(
        "curl-multi",
        false,
        H1_H2,
        &[],
        "libcurl's multi interface: one thread, an easy handle per request in flight",
    ),
    library("ureq", true, H1, &["ureq"], "ureq 3, blocking, rustls"),
    library("reqwest", true, ALL, &["reqwest", "hyper"], "reqwest's blocking client, rustls; HTTP/3 by quinn + h3"),
    library("reqwest-async", false, ALL, &["reqwest", "hyper"], "reqwest's async client on a tokio runtime"),
    library(
        "hyper",
        false,
        H1_H2,
        &["hyper-util", "hyper"],
        "hyper-util's client over hyper-rustls, tasks on a tokio runtime",
    ),
    library(
        "raw",
        false,
        H1_H3,
        &[],
        "the floor: a std TcpStream with a fixed request (rustls over TLS); over HTTP/3 quinn + h3 directly",
    ),
    // The seed's three (www_bench.pl).
    command("perl-lwp", Script::Perl, "lwp", "apt install libwww-perl", "Perl's LWP::UserAgent"),
    command("perl-lite", Script::Perl, "lite", "apt install libhttp-lite-perl", "Perl's HTTP::Lite"),
    command("perl-curl", Script::Perl, "curl", "apt install libwww-curl-perl", "Perl's WWW::Curl (libcurl)"),
    command("python-urllib", Script::Python, "urllib", "apt install python3", "Python's urllib.request"),
    command(
        "python-requests",
        Script::Python,
        "requests",
        "pip install requests, or apt install python3-requests",
        "Python's requests",
    ),
    command_of(
        "python-httpx",
        H1_H2,
        Script::Python,
        "httpx",
        "pip install 'httpx[http2]' (scripts/setup.sh --runtimes does)",
        "Python's httpx (HTTP/2 through h2)",
    ),
    // HTTP/3 on aioquic, a QUIC stack independent of quinn (scripts/setup.sh installs it from PyPI).
    ClientInfo {
        versions: H3,
        ..command(
            "python-aioquic",
            Script::Python,
            "aioquic",
            "pip install aioquic (scripts/setup.sh does)",
            "Python's aioquic (HTTP/3 alone)",
        )
    },
    command("node-fetch", Script::Node, "fetch", NODE, "Node's fetch (undici)"),
    command("node-http", Script::Node, "http", NODE, "Node's http/https modules"),
    command("bun-fetch", Script::Bun, "bun", "npm install bun (scripts/setup.sh --runtimes does)", "Bun's fetch"),
    command_of(
        "deno-fetch",
        H1_H2,
        Script::Deno,
        "deno",
        "npm install deno (scripts/setup.sh --runtimes does)",
        "Deno's fetch (hyper and rustls underneath)",
    ),
    command_of(
        "java-http",
        H1_H2,
        Script::Java,
        "http",
        "apt install openjdk-17-jdk-headless (Java 11 or later; scripts/setup.sh --runtimes does)",
        "Java's java.net.http.HttpClient",
    ),
    command_of(
        "go-http",
        H1_H2,
        Script::Go,
        "http",
        "apt install golang-go (scripts/setup.sh --runtimes does)",
        "Go's net/http",
    ),
    browser("fetch", None, "window.fetch through web-sys, body read with arrayBuffer()"),
    browser("gloo-net", None, "gloo-net's fetch wrapper, body copied into wasm memory"),
    browser("xhr", None, "XMLHttpRequest through web-sys, responseType arraybuffer"),
    browser("reqwest", Some("reqwest"), "reqwest compiled to wasm32 (its fetch backend)"),
    browser(super::BROWSER_FLOOR, None, "the same fetch loop in plain JavaScript: the floor of the wasm clients"),
];
