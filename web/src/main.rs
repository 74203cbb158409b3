//! The page's entry point: mount the app; everything else lives in the library.

/// Talc instead of Rust's default wasm allocator, dlmalloc: smaller in the page and faster.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    // No panic hook: the page has no panic paths it knows of, and every hook costs the page's 200 KB budget
    // what it cannot spare (measured: console_error_panic_hook 2.0 KB gzip, a hook that formats the message
    // 1.0 KB, one that hands the location to console.error unformatted 0.5 KB). A panic shows in the console
    // as "unreachable executed", with the wasm stack.
    leptos::mount::mount_to_body(httpbench_web::components::App);
}

/// Natively there is nothing to run: the page is built for the browser by trunk.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("httpbench-web is a browser page: build it with `trunk build --release` (see README.md)");
    std::process::exit(2);
}
