//! The page's entry point: mount the app; everything else lives in the library.

/// Talc instead of Rust's default wasm allocator, dlmalloc: smaller in the page and faster.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    // A panic, should one happen, says what and where in the console (2 KB gzip of the page's budget).
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(httpbench_web::components::App);
}

/// Natively there is nothing to run: the page is built for the browser by trunk.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("httpbench-web is a browser page: build it with `trunk build --release` (see README.md)");
    std::process::exit(2);
}
