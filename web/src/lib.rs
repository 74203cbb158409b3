//! httpbench's browser page: it times the browser's HTTP stack from WebAssembly — `fetch`, `gloo-net`,
//! XMLHttpRequest, reqwest compiled to wasm, and the same loop in plain JavaScript as the floor — driving the
//! run session the CLI drives too (`httpbench_shared::session`), and shows the CLI's own report, rendered by
//! `httpbench_shared`.
//!
//! The pure part (settings) builds everywhere and is tested natively; everything that touches the browser is
//! compiled for wasm32 only. The charts are `httpbench_shared::render::charts`, shared with the HTML report.

pub mod settings;

#[cfg(target_arch = "wasm32")]
pub mod bench;
#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(target_arch = "wasm32")]
pub mod clients;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod timing;

/// The result file's tool name for reports made by this page.
pub const TOOL_NAME: &str = "httpbench-web";
