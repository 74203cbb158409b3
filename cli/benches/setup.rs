//! Micro-benchmarks of the per-request costs that are not the network: making (and dropping) each client as
//! fresh mode does before every request, and recording one sample. They explain the fresh-mode figures of
//! `scripts/bench-perf.sh` (figure 3): a client whose set-up costs hundreds of µs cannot reach thousands of
//! fresh requests per second whatever its HTTP code does. Run: `cargo bench -p httpbench --bench setup`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use httpbench::clients::{curl, reqwest_async, reqwest_blocking, ureq, DriverConfig};
use httpbench_shared::{Mode, Outcome, Recorder};

fn config() -> DriverConfig {
    DriverConfig {
        url: "http://127.0.0.1:8080/".parse().expect("a valid URL"),
        mode: Mode::Fresh,
        timeout: Duration::from_secs(10),
        cacert: None,
        http: Default::default(),
    }
}

/// Create and drop one client, configured exactly as the drivers configure theirs. No request is sent.
fn client_setup(c: &mut Criterion) {
    let config = config();
    let mut group = c.benchmark_group("client set-up (create + drop)");
    group.bench_function("curl", |b| b.iter(|| black_box(curl::new_handle(&config).is_ok())));
    group.bench_function("ureq", |b| b.iter(|| black_box(ureq::new_agent(&config))));
    group.bench_function("reqwest (blocking)", |b| b.iter(|| black_box(reqwest_blocking::new_client(&config).is_ok())));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let _guard = runtime.enter();
    group.bench_function("reqwest-async", |b| b.iter(|| black_box(reqwest_async::new_client(&config).is_ok())));
    group.finish();
}

/// The harness's own work per request: recording one latency into the case's histogram and moments.
fn record(c: &mut Criterion) {
    let mut recorder = Recorder::new();
    let ok = Outcome::response(200, 612);
    let mut ns = 40_000u64;
    c.bench_function("Recorder::record (one sample)", |b| {
        b.iter(|| {
            ns = 40_000 + (ns * 7919) % 200_000; // varied latencies, so the histogram's buckets vary too
            recorder.record(black_box(&ok), Duration::from_nanos(ns));
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = client_setup, record
}
criterion_main!(benches);
