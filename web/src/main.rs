//! The page's entry point: install the panic hook and mount the app; everything else lives in the library.

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `console.error(what, message, file, line)`.
    #[wasm_bindgen(js_namespace = console)]
    fn error(what: &str, message: &str, file: &str, line: u32);
}

#[cfg(target_arch = "wasm32")]
fn main() {
    // Where a panic happened, in the browser console, instead of "unreachable executed" alone. Its own hook,
    // not the console_error_panic_hook crate, and no Rust formatting (the console joins the parts): the crate
    // cost the page 2 KB gzip of its 200 KB budget, a hook formatting the message 1 KB (both measured).
    std::panic::set_hook(Box::new(|info| {
        let message = info.payload().downcast_ref::<&str>().copied().unwrap_or("");
        let (file, line) = info.location().map_or(("?", 0), |l| (l.file(), l.line()));
        error("httpbench-web panicked:", message, file, line);
    }));
    leptos::mount::mount_to_body(httpbench_web::components::App);
}

/// Natively there is nothing to run: the page is built for the browser by trunk.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("httpbench-web is a browser page: build it with `trunk build --release` (see README.md)");
    std::process::exit(2);
}
