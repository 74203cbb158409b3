//! `--link`: a real, emulated network between the run's clients and its embedded server. The server lives in
//! a network namespace of its own, the clients (native, command, browser) in another, and a third between
//! them is the link: a router joined to each side by a veth pair, forwarding every packet, TCP and UDP alike.
//! Each direction passes a delay line there (an NFQUEUE thread of this process, [`queue`]: delay, jitter,
//! loss) and then a token bucket on the router's way out (`tc tbf`: bandwidth, with a bounded queue), as a
//! real path's router and bottleneck would. The kernel here has no `sch_netem`, so delay and loss are done in
//! user space; the queue counts how late it let packets go, the emulator's own error, which the run reports.
//!
//! Why a router and not each side's own way out: a packet the sender's kernel still holds counts against its
//! socket's send budget (TCP small queues, about a millisecond of data), so delaying packets there capped a
//! 100 Mbit/s, 10 ms link at 9 Mbit/s (measured). A packet received by the router is no longer the sender's.
//!
//! The namespaces are held by descriptors of this process only ([`ns`]): they, the veth pairs and every rule
//! vanish when it exits, however it exits. Nothing of the host's own network is touched.

pub(crate) mod line;
mod ns;
mod queue;
mod setup;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use httpbench_shared::model::LinkCounts;
use httpbench_shared::protocol::Link;

pub(crate) use ns::Namespace;

/// The server's address on the link (each side has a subnet of its own with the router, only inside the
/// namespaces).
pub(crate) const SERVER_ADDR: &str = "10.77.0.1";
/// The server's second address on the link, for a browser's HTTP/3 target: Firefox maps a host, every port of
/// it, to HTTP/3, so that host must be the HTTP/3 target's alone.
pub(crate) const QUIC_ADDR: &str = "10.77.0.3";
/// The server's address off the link: a veth pair straight to the clients' namespace, no delay line, no
/// limit. A browser's page, its turns and results, and the run's reads of the server's counters go there, so
/// none of them crosses the link or is counted as its traffic.
pub(crate) const CONTROL_ADDR: &str = "10.78.0.1";
/// Every address the server has in its namespace (its certificate names them).
pub(crate) const SERVER_ADDRS: [&str; 3] = [SERVER_ADDR, QUIC_ADDR, CONTROL_ADDR];

/// The emulated network of a run: the three namespaces, the veth pairs between them and each direction's
/// queue.
pub(crate) struct Network {
    client: Namespace,
    router: Namespace,
    server: Namespace,
    /// Packets from the clients to the server.
    up: queue::Worker,
    /// Packets from the server to the clients.
    down: queue::Worker,
    /// The link the network is at now.
    current: Mutex<Link>,
    /// Set once the link failed (a direction's thread died, or a link could not be set): the run stopped for
    /// the link's sake, not the user's.
    broke: AtomicBool,
    /// Packets each bandwidth limit (the router's queue towards the server, and towards the clients) had
    /// dropped when last read.
    shaper_drops: Mutex<[u64; 2]>,
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
    /// Make the namespaces, join them through the router and start the link at `link`.
    pub(crate) fn start(link: &Link) -> anyhow::Result<Network> {
        let (client, router, server) = (Namespace::new()?, Namespace::new()?, Namespace::new()?);
        setup::wire(&client, &router, &server)?;
        let seed = fastrand::u64(..);
        let up = queue::Worker::start(&router, setup::UP_QUEUE, link, seed)?;
        let down = queue::Worker::start(&router, setup::DOWN_QUEUE, link, seed.rotate_left(32))?;
        let shaper_drops = Mutex::new([0; 2]);
        let (current, broke) = (Mutex::new(*link), AtomicBool::new(false));
        let network = Network { client, router, server, up, down, current, broke, shaper_drops };
        network.shape(link)?;
        Ok(network)
    }

    /// Change to `link` (a case's, before its round) if the link is not at it already: each direction's
    /// delay, loss and bandwidth. A link that cannot be set stops the run (`stop`), told why: no case may run
    /// over another link than its own.
    pub(crate) fn switch(&self, link: Option<&Link>, stop: &AtomicBool) {
        self.check(stop);
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
                self.broke.store(true, Ordering::Relaxed);
                stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Each direction's bandwidth: a token bucket on the router's way out to that direction's receiver, or none.
    fn shape(&self, link: &Link) -> anyhow::Result<()> {
        for (dev, kbit) in setup::SHAPED.into_iter().zip([link.up_kbit, link.down_kbit]) {
            let ns = &self.router;
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

    /// Stop the run (`stop`), told why, if a direction of the link stopped passing packets: its requests
    /// would fail for a reason that is the emulator's, not the client's.
    pub(crate) fn check(&self, stop: &AtomicBool) {
        if (self.up.failed() || self.down.failed()) && !self.broke.swap(true, Ordering::Relaxed) {
            eprintln!("httpbench: error: the emulated link no longer passes packets; stopping the run");
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the link failed during the run (it was stopped for it).
    pub(crate) fn broke(&self) -> bool {
        self.broke.load(Ordering::Relaxed)
    }

    /// CPU time the link's own threads (in this process) used so far: not the clients'.
    pub(crate) fn cpu(&self) -> httpbench_shared::CpuTime {
        crate::cpu::sum(self.up.cpu(), self.down.cpu())
    }

    /// What the link did to packets since the last call, both directions.
    pub(crate) fn take_counts(&self) -> LinkCounts {
        let (up, down) = (self.up.take(), self.down.take());
        LinkCounts {
            queue_dropped: up.overflowed + down.overflowed + self.take_shaper_drops(),
            up_packets: up.packets,
            up_dropped: up.dropped,
            down_packets: down.packets,
            down_dropped: down.dropped,
            asked_delay_us: up.asked_us + down.asked_us,
            late_us: up.late_us + down.late_us,
            late_max_us: up.late_max_us.max(down.late_max_us),
        }
    }

    /// Packets both directions' bandwidth limits dropped since the last call (`tc -s qdisc`: a sender overran the
    /// bounded queue), 0 where tc does not say.
    fn take_shaper_drops(&self) -> u64 {
        let mut last = self.shaper_drops.lock().unwrap_or_else(|p| p.into_inner());
        let mut dropped = 0;
        for (i, dev) in setup::SHAPED.into_iter().enumerate() {
            let shown = self.router.output("tc", &["-s", "-j", "qdisc", "show", "dev", dev]);
            let Some(now) = shown.ok().and_then(|o| qdisc_drops(&o)) else {
                continue;
            };
            // A new link's queue starts again from 0.
            dropped += now.saturating_sub(last[i]);
            last[i] = now;
        }
        dropped
    }
}

/// The drops of every queue in `tc -s -j qdisc show`'s output.
fn qdisc_drops(json: &str) -> Option<u64> {
    let qdiscs: Vec<serde_json::Value> = serde_json::from_str(json).ok()?;
    Some(qdiscs.iter().filter_map(|q| q["drops"].as_u64()).sum())
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
    fn the_drops_of_every_queue_are_summed() {
        let shown =
            r#"[{"kind":"tbf","handle":"8001:","root":true,"drops":12,"overlimits":40},{"kind":"x","drops":3}]"#;
        assert_eq!(qdisc_drops(shown), Some(15));
        assert_eq!(qdisc_drops("Error: no such device"), None);
    }

    #[test]
    fn a_bucket_holds_two_packets_at_least_and_queues_a_tenth_of_a_second() {
        assert_eq!(bucket(20_000), (10_000, 250_000));
        assert_eq!(bucket(768), (3028, 32 * 1024));
    }
}
