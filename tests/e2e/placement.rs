//! `--pin`: placement is applied (read back from the OS), recorded in the result file and the report, and
//! `compare` warns exactly when two reports' placements differ.

use crate::schema::validate;
use crate::support::cli::{export_run, run, run_json, SMALL_RAW};
use crate::support::scratch;
use crate::support::servers::TestServer;

fn nproc() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

fn cpus(v: &serde_json::Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect()
}

#[test]
fn same_pins_client_and_server_to_one_cpu() {
    let (code, v, err) =
        run_json(&["-n", "5", "--warmup", "0", "--clients", "raw", "--mode", "reuse", "--pin", "same"]);
    assert_eq!(code, 0, "{err}");
    validate(&v);
    let p = &v["environment"]["placement"];
    assert_eq!(p["pin"], "same");
    let client = cpus(&p["client_cpus"]);
    assert_eq!(client.len(), 1, "read back from the OS: one CPU");
    assert_eq!(cpus(&p["server_cpus"]), client, "server on the same CPU");
    assert!(p["load_average_1m"].as_f64().is_some());
}

#[test]
fn split_pins_them_apart_when_there_are_two_cpus() {
    let (code, v, err) =
        run_json(&["-n", "5", "--warmup", "0", "--clients", "raw", "--mode", "reuse", "--pin", "split"]);
    if nproc() < 2 {
        assert_eq!(code, 2, "split needs two CPUs: {err}");
        assert!(err.contains("--pin split"), "{err}");
        return;
    }
    assert_eq!(code, 0, "{err}");
    let p = &v["environment"]["placement"];
    let (client, server) = (cpus(&p["client_cpus"]), cpus(&p["server_cpus"]));
    assert_eq!((client.len(), server.len()), (1, 1));
    assert_ne!(client, server);
}

#[test]
fn none_leaves_every_cpu_and_an_external_url_cannot_pin_the_server() {
    let (code, v, _) = run_json(&["-n", "5", "--warmup", "0", "--clients", "raw", "--mode", "reuse", "--pin", "none"]);
    assert_eq!(code, 0);
    assert_eq!(cpus(&v["environment"]["placement"]["client_cpus"]).len(), nproc());
    let server = TestServer::fixed(b"hello");
    let (code, out, _) =
        run(&["run", &server.url, "-n", "5", "--warmup", "0", "--clients", "raw", "--pin", "same", "--wide"]);
    assert_eq!(code, 0);
    assert!(out.contains("server not pinnable (external URL)"), "{out}");
    let (code, _, err) = run(&["-n", "5", "--pin", "sideways"]);
    assert_eq!(code, 2);
    assert!(err.contains("'sideways'"), "{err}");
}

#[test]
fn compare_warns_exactly_when_placements_differ() {
    let dir = scratch("placement");
    let mut files = Vec::new();
    for pin in ["same", "same", "none"] {
        let f = dir.join(format!("{pin}-{}.json", files.len()));
        export_run(&f, &[&SMALL_RAW[..], &["--pin", pin]].concat());
        files.push(f);
    }
    let path = |i: usize| files[i].to_str().unwrap().to_string();
    let (_, out, _) = run(&["compare", &path(0), &path(1)]);
    assert!(!out.contains("different CPU placements"), "same placement, no warning: {out}");
    let (_, out, _) = run(&["compare", &path(0), &path(2)]);
    assert!(out.contains("warning: different CPU placements"), "{out}");
}

#[test]
fn the_default_is_split_when_two_cpus_are_free() {
    let (code, v, _) = run_json(&["-n", "5", "--warmup", "0", "--clients", "raw", "--mode", "reuse"]);
    assert_eq!(code, 0);
    let expected = if nproc() >= 2 { "split" } else { "same" };
    assert_eq!(v["environment"]["placement"]["pin"], expected);
}
