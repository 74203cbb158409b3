//! Native and browser cases take the plan's passes in turn (`run --browser`): round r of every side before
//! round r + 1 of any. Seen from outside by a command client of the test's own, a spy: at the start of each of
//! its batches it reads the embedded server's count of accepted connections. In fresh mode every request opens
//! a connection, so between two of its rounds the count grows by the spy's own requests, plus the browser's
//! round when the sides interleave; with `--no-interleave` the browser waits, and the count grows by the spy's
//! own alone.

use std::path::Path;

use crate::browser_plan::BrowserRun;
use crate::support::scratch;

/// A command client in Python: fresh connections, and before each batch one more to read the server's count,
/// which it appends to the file named by its first argument.
const SPY: &str = r#"
import http.client, os, sys, time, urllib.parse
log = open(sys.argv[1], "a")
u = urllib.parse.urlsplit(os.environ["HTTPBENCH_URL"])
target = u.path + ("?" + u.query if u.query else "")
def get(path):
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body
for line in sys.stdin:
    n = int(line)
    _, counted = get("/stats/connections")
    log.write(counted.decode().split()[1] + "\n")
    log.flush()
    for _ in range(n):
        t0 = time.monotonic_ns()
        status, body = get(target)
        print(f"{time.monotonic_ns() - t0} {status} {len(body)}")
    print("end", flush=True)
"#;

const REQUESTS_PER_ROUND: u64 = 20;
const ROUNDS: u64 = 3;

/// Run the spy and Chromium's `fetch` in fresh mode, 3 rounds of 20 requests (with `more` arguments); the
/// server's count at the start of each of the spy's batches (its start-up check, its warm-up, its rounds).
fn counts_seen_by_the_spy(name: &str, more: &str) -> Vec<u64> {
    let dir = scratch(name);
    let (spy, log, launcher) = (dir.join("spy.py"), dir.join("counts.txt"), dir.join("spy.sh"));
    std::fs::write(&spy, SPY).unwrap();
    let script = format!("#!/bin/sh\nexec python3 {} {}\n", spy.display(), log.display());
    std::fs::write(&launcher, script).unwrap();
    make_executable(&launcher);
    let args = format!(
        "-n {} --warmup 2 --rounds {ROUNDS} --mode fresh --clients spy --client-cmd spy={} \
         --browser-clients fetch {more}",
        REQUESTS_PER_ROUND * ROUNDS,
        launcher.display()
    );
    let r = BrowserRun::new(&format!("{name}-run"), &args).run();
    assert_eq!(r.code, 0, "{}\n{}", r.err, r.out);
    let row = |label: &str| r.out.lines().any(|l| l.starts_with(&format!("{label} ")));
    assert!(row("native/spy") && row("chromium/fetch"), "{}", r.out);
    let text = std::fs::read_to_string(&log).unwrap();
    let counts: Vec<u64> = text.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(counts.len(), 5, "a start-up check, a warm-up and three rounds: {counts:?}");
    counts
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The count's growth from each of the spy's rounds to the next.
fn between_rounds(counts: &[u64]) -> Vec<u64> {
    counts[2..].windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn a_browser_round_runs_between_two_native_rounds() {
    // The spy's requests and its reading, and the CLI's reading of the spy's case's count after each round.
    let own = REQUESTS_PER_ROUND + 1 + 1;
    let interleaved = between_rounds(&counts_seen_by_the_spy("interleave", ""));
    eprintln!("the count grew by {interleaved:?} between the spy's rounds");
    for grown in &interleaved {
        // The browser's round opened a connection per request (close=1), but for its first one or two, which
        // may ride connections its page kept alive (the one its turn's answer came on, its status post's):
        // 18 to 20 seen here, and none at all when the browser waits.
        assert!(*grown >= own + REQUESTS_PER_ROUND / 2, "the browser's round ran in between: {interleaved:?}");
    }
    let one_after_another = between_rounds(&counts_seen_by_the_spy("no-interleave", "--no-interleave"));
    assert_eq!(one_after_another, [own, own], "the browser waited while the native cases ran whole");
}
