//! The page's one browser test binary (wasm-bindgen-test in headless Chromium, against a real `httpbench
//! serve`; scripts/test.sh starts it and hands its URL over as `HTTPBENCH_TARGET_URL`): one module per area.
//! Natively there is nothing to run.
#![cfg(target_arch = "wasm32")]

mod clients;
mod common;
mod duration;
mod page;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
