//! `--link`: a real, emulated network between the run's clients and its embedded server. The server lives in
//! a network namespace of its own and the clients (native, command, browser) in another, joined by a veth
//! pair. Every packet leaving either side, TCP and UDP alike, passes that direction's delay line (an NFQUEUE
//! thread of this process, [`queue`]: delay, jitter, loss) and then a token bucket (`tc tbf`: bandwidth, with
//! a bounded queue). The kernel here has no `sch_netem`, so delay and loss are done in user space; the queue
//! counts how late it let packets go, the emulator's own error, which the run reports. The namespaces are
//! held by descriptors of this process only ([`ns`]): they, the veth pair and every rule vanish when it exits,
//! however it exits. Nothing of the host's own network is touched.

pub(crate) mod line;
mod ns;
mod queue;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use anyhow::Context;
use httpbench_shared::model::LinkCounts;
use httpbench_shared::protocol::Link;

pub(crate) use ns::Namespace;

/// The server's address on the link (a /30 of its own, only inside the two namespaces).
pub(crate) const SERVER_ADDR: &str = "10.77.0.1";
/// The clients' address on the link.
const CLIENT_ADDR: &str = "10.77.0.2";
/// The veth ends: the clients' and the server's.
const CLIENT_DEV: &str = "hbc";
const SERVER_DEV: &str = "hbs";

/// The emulated network of a run: both namespaces, the veth pair between them and each direction's queue.
pub(crate) struct Network {
    client: Namespace,
    server: Namespace,
    /// Packets from the clients to the server.
    up: queue::Worker,
    /// Packets from the server to the clients.
    down: queue::Worker,
    /// The link the network is at now.
    current: Mutex<Link>,
}

/// Why `--link` cannot run here, or `None`: it needs CAP_NET_ADMIN and CAP_SYS_ADMIN (namespaces, interfaces,
/// rules) and the `ip`, `tc` and `iptables` programs.
pub(crate) fn cannot_run() -> Option<String> {
    let caps = std::fs::read_to_string("/proc/self/status").ok()?;
    let eff = caps.lines().find_map(|l| l.strip_prefix("CapEff:")).map(str::trim).unwrap_or("0");
    let eff = u64::from_str_radix(eff, 16).unwrap_or(0);
    let (net_admin, sys_admin) = (1u64 << 12, 1u64 << 21);
    if eff & net_admin == 0 || eff & sys_admin == 0 {
        return Some(
            "--link makes network namespaces and rules, which needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN): run \
             it with sudo, or leave --link out to measure over loopback"
                .into(),
        );
    }
    let missing: Vec<&str> = ["ip", "tc", "iptables"].into_iter().filter(|p| which(p).is_none()).collect();
    (!missing.is_empty()).then(|| {
        format!(
            "--link needs {} (Debian: apt install iproute2 iptables; scripts/setup.sh --link installs them)",
            missing.join(", ")
        )
    })
}

fn which(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

impl Network {
    /// Make both namespaces, join them and start the link at `link`.
    pub(crate) fn start(link: &Link) -> anyhow::Result<Network> {
        let client = Namespace::new()?;
        let server = Namespace::new()?;
        let peer = server.path();
        client.run("ip", &["link", "add", CLIENT_DEV, "type", "veth", "peer", "name", SERVER_DEV, "netns", &peer])?;
        for (ns, dev, addr) in [(&client, CLIENT_DEV, CLIENT_ADDR), (&server, SERVER_DEV, SERVER_ADDR)] {
            ns.run("ip", &["addr", "add", &format!("{addr}/30"), "dev", dev])?;
            ns.run("ip", &["link", "set", dev, "up"])?;
            ns.run("ip", &["link", "set", "lo", "up"])?;
            let queue = queue::QUEUE_NUM.to_string();
            let rule = ["-w", "-t", "mangle", "-A", "POSTROUTING", "-o", dev, "-j", "NFQUEUE", "--queue-num", &queue];
            ns.run("iptables", &rule).context("cannot send the link's packets to its queue")?;
        }
        let seed = fastrand::u64(..);
        let up = queue::Worker::start(&client, link, seed)?;
        let down = queue::Worker::start(&server, link, seed.rotate_left(32))?;
        let network = Network { client, server, up, down, current: Mutex::new(*link) };
        network.shape(link)?;
        Ok(network)
    }

    /// Change to `link` (a case's, before its round) if the link is not at it already: each direction's
    /// delay, loss and bandwidth. A link that cannot be set stops the run (`stop`), told why: no case may run
    /// over another link than its own.
    pub(crate) fn switch(&self, link: Option<&Link>, stop: &AtomicBool) {
        let Some(link) = link else { return };
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if *current == *link {
            return;
        }
        self.up.set(link);
        self.down.set(link);
        match self.shape(link) {
            Ok(()) => *current = *link,
            Err(e) => {
                eprintln!("httpbench: error: cannot set the emulated link to {}: {e:#}; stopping", link.spec());
                stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Each side's bandwidth: a token bucket on its veth end, or none.
    fn shape(&self, link: &Link) -> anyhow::Result<()> {
        for (ns, dev, kbit) in [(&self.client, CLIENT_DEV, link.up_kbit), (&self.server, SERVER_DEV, link.down_kbit)] {
            match kbit {
                Some(kbit) => {
                    let (burst, limit) = bucket(kbit);
                    let (rate, burst, limit) = (format!("{kbit}kbit"), burst.to_string(), limit.to_string());
                    let args = [
                        "qdisc", "replace", "dev", dev, "root", "tbf", "rate", &rate, "burst", &burst, "limit", &limit,
                    ];
                    ns.run("tc", &args)?;
                }
                // Deleting what is not there fails; replacing with the default queue does not.
                None => ns.run("tc", &["qdisc", "replace", "dev", dev, "root", "pfifo_fast"])?,
            }
        }
        Ok(())
    }

    /// The clients' namespace (enter it before any client starts).
    pub(crate) fn client(&self) -> &Namespace {
        &self.client
    }

    /// The server's namespace (start the embedded server in it).
    pub(crate) fn server(&self) -> &Namespace {
        &self.server
    }

    /// What the link did to packets since the last call, both directions.
    pub(crate) fn take_counts(&self) -> LinkCounts {
        let (up, down) = (self.up.take(), self.down.take());
        LinkCounts {
            up_packets: up.packets,
            up_dropped: up.dropped,
            down_packets: down.packets,
            down_dropped: down.dropped,
            asked_delay_us: up.asked_us + down.asked_us,
            late_us: up.late_us + down.late_us,
            late_max_us: up.late_max_us.max(down.late_max_us),
        }
    }
}

/// A token bucket for `kbit` kbit/s: its burst (at least two full packets, else 4 ms at the rate) and its
/// queue (100 ms at the rate, at least 32 KiB), in bytes. The queue is bounded as a router's buffer is: a
/// sender that overruns it loses packets.
fn bucket(kbit: u64) -> (u64, u64) {
    let bytes_per_ms = kbit / 8;
    ((bytes_per_ms * 4).max(2 * 1514), (bytes_per_ms * 100).max(32 * 1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_holds_two_packets_at_least_and_queues_a_tenth_of_a_second() {
        assert_eq!(bucket(20_000), (10_000, 250_000));
        assert_eq!(bucket(768), (3028, 32 * 1024));
    }
}
