//! The page's entry point: install the panic hook and mount the app; everything else lives in the library.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(httpbench_web::components::App);
}

/// Natively there is nothing to run: the page is built for the browser by trunk.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("httpbench-web is a browser page: build it with `trunk build --release` (see README.md)");
    std::process::exit(2);
}
