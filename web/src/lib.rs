//! httpbench's browser page: it times the browser's HTTP stack from WebAssembly — `fetch`, `gloo-net`,
//! XMLHttpRequest, reqwest compiled to wasm, and the same loop in plain JavaScript as the floor — driving the
//! run session the CLI drives too (`httpbench_shared::session`), and shows the CLI's own report, rendered by
//! `httpbench_shared`.
//!
//! The pure parts (settings, charts) build everywhere and are tested natively; everything that touches the
//! browser is compiled for wasm32 only.

pub mod charts;
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
