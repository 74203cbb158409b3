//! How a run's three network namespaces are wired: the veth pairs, addresses and routes between the clients,
//! the router (the link) and the server, the router's rules that hand each direction's packets to its queue,
//! the pair that stays off the link, and the kernel settings each side needs to measure fairly.

use anyhow::Context;

use super::ns::Namespace;
use super::{CONTROL_ADDR, QUIC_ADDR, SERVER_ADDR};

/// The router's address on the server's side (the server's subnet is a /29: it has two addresses on the link).
const ROUTER_SERVER_ADDR: &str = "10.77.0.6";
/// The clients' address on the link, and the router's on their side (a /30).
const CLIENT_ADDR: &str = "10.77.1.2";
const ROUTER_CLIENT_ADDR: &str = "10.77.1.1";
/// The clients' address on the control pair (a /30 with [`CONTROL_ADDR`]).
const CONTROL_CLIENT_ADDR: &str = "10.78.0.2";
/// The veth ends: the clients' and the router's facing them, the server's and the router's facing it.
const CLIENT_DEV: &str = "hbc";
const ROUTER_CLIENT_DEV: &str = "hbrc";
const SERVER_DEV: &str = "hbs";
const ROUTER_SERVER_DEV: &str = "hbrs";
/// The control pair's ends: the clients' and the server's.
const CONTROL_CLIENT_DEV: &str = "hbcc";
const CONTROL_SERVER_DEV: &str = "hbsc";
/// The router's queue numbers: packets from the clients, and from the server.
pub(super) const UP_QUEUE: u16 = 0;
pub(super) const DOWN_QUEUE: u16 = 1;
/// The router's ends where each direction's bandwidth is limited, on its way out: towards the server (up),
/// towards the clients (down).
pub(super) const SHAPED: [&str; 2] = [ROUTER_SERVER_DEV, ROUTER_CLIENT_DEV];

/// One side of the router: its namespace, its veth end and address (with prefix), the router's end and
/// address facing it, and the queue its packets go to.
struct Side<'a> {
    ns: &'a Namespace,
    dev: &'a str,
    addr: String,
    router_dev: &'a str,
    router_addr: String,
    queue: u16,
}

/// Wire `client`, `router` and `server` (new, empty namespaces) into the run's network.
pub(super) fn wire(client: &Namespace, router: &Namespace, server: &Namespace) -> anyhow::Result<()> {
    for ns in [client, router, server] {
        settings(ns)?;
    }
    router.run("ip", &["link", "set", "lo", "up"])?;
    router.write("/proc/sys/net/ipv4/ip_forward", "1")?;
    let (client_side, server_side) = (
        Side {
            ns: client,
            dev: CLIENT_DEV,
            addr: format!("{CLIENT_ADDR}/30"),
            router_dev: ROUTER_CLIENT_DEV,
            router_addr: format!("{ROUTER_CLIENT_ADDR}/30"),
            queue: UP_QUEUE,
        },
        Side {
            ns: server,
            dev: SERVER_DEV,
            addr: format!("{SERVER_ADDR}/29"),
            router_dev: ROUTER_SERVER_DEV,
            router_addr: format!("{ROUTER_SERVER_ADDR}/29"),
            queue: DOWN_QUEUE,
        },
    );
    for side in [client_side, server_side] {
        join(router, &side)?;
    }
    server.run("ip", &["addr", "add", &format!("{QUIC_ADDR}/29"), "dev", SERVER_DEV])?;
    control_pair(client, server)?;
    // A fresh-mode client opens thousands of connections a second. Off loopback the kernel reuses none in
    // TIME-WAIT by default and runs out of ports in seconds: reuse them, from every port there is.
    client.write("/proc/sys/net/ipv4/tcp_tw_reuse", "1")?;
    client.write("/proc/sys/net/ipv4/ip_local_port_range", "1024 65535")
}

/// What each namespace needs before any interface is made in it.
fn settings(ns: &Namespace) -> anyhow::Result<()> {
    // No IPv6 on the link's interfaces (those made from now on; `lo` keeps ::1, which WebKitWebDriver listens
    // on): their link-local addresses would appear a second or two after they come up (duplicate address
    // detection), and a browser takes a new address for a network change and aborts every request in flight
    // (Chromium: ERR_NETWORK_CHANGED, seen mid-run).
    if std::path::Path::new("/proc/sys/net/ipv6").exists() {
        ns.write("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1")?;
    }
    // Every link of a scan joins the same two addresses: a connection must not start from the round trip
    // and congestion window TCP remembered of another link's connections.
    ns.write("/proc/sys/net/ipv4/tcp_no_metrics_save", "1")
}

/// Join `side` to the router: a veth pair, addresses, a default route through the router, and the router's
/// rule sending what comes in from that side to its direction's queue before it is forwarded.
fn join(router: &Namespace, side: &Side<'_>) -> anyhow::Result<()> {
    let (dev, router_dev) = (side.dev, side.router_dev);
    router.run("ip", &["link", "add", router_dev, "type", "veth", "peer", "name", dev, "netns", &side.ns.path()])?;
    router.run("ip", &["addr", "add", &side.router_addr, "dev", router_dev])?;
    router.run("ip", &["link", "set", router_dev, "up"])?;
    side.ns.run("ip", &["addr", "add", &side.addr, "dev", dev])?;
    side.ns.run("ip", &["link", "set", dev, "up"])?;
    side.ns.run("ip", &["link", "set", "lo", "up"])?;
    let gateway = side.router_addr.split('/').next().unwrap_or_default();
    side.ns.run("ip", &["route", "add", "default", "via", gateway])?;
    let queue = side.queue.to_string();
    let rule = ["-w", "-t", "mangle", "-A", "FORWARD", "-i", router_dev, "-j", "NFQUEUE", "--queue-num", &queue];
    router.run("iptables", &rule).context("cannot send the link's packets to its queue")
}

/// The pair between the clients and the server that is not the link: no router, no delay, no limit.
fn control_pair(client: &Namespace, server: &Namespace) -> anyhow::Result<()> {
    let peer = server.path();
    client.run(
        "ip",
        &["link", "add", CONTROL_CLIENT_DEV, "type", "veth", "peer", "name", CONTROL_SERVER_DEV, "netns", &peer],
    )?;
    for (ns, dev, addr) in
        [(client, CONTROL_CLIENT_DEV, CONTROL_CLIENT_ADDR), (server, CONTROL_SERVER_DEV, CONTROL_ADDR)]
    {
        ns.run("ip", &["addr", "add", &format!("{addr}/30"), "dev", dev])?;
        ns.run("ip", &["link", "set", dev, "up"])?;
    }
    Ok(())
}
