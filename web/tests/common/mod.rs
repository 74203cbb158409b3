//! Shared by the page's browser tests: the real target server's URL (handed over at compile time by
//! scripts/test.sh, which starts `httpbench serve --port 0`), mounting the page into a fresh element, and
//! bounded waits that read the DOM.

// Each test binary uses a part of these helpers.
#![allow(dead_code)]

use std::time::Duration;

use httpbench_web::settings::RawSettings;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Document, HtmlElement};

/// The target server (`httpbench serve`), e.g. `http://127.0.0.1:41234/`.
pub fn target() -> String {
    let url = option_env!("HTTPBENCH_TARGET_URL").unwrap_or_default();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "HTTPBENCH_TARGET_URL must name a running `httpbench serve` on 127.0.0.1 when the tests are compiled \
         (scripts/test.sh does this), got '{url}'"
    );
    url.to_string()
}

pub fn document() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Wait about `ms` milliseconds, letting the page run.
pub async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

/// Mount the page with `settings` into a new element of its own and return that element.
pub fn mount(settings: RawSettings) -> HtmlElement {
    let host: HtmlElement = document().create_element("div").unwrap().unchecked_into();
    document().body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone(), move || {
        leptos::view! { <httpbench_web::components::Bench initial=settings /> }
    });
    handle.forget();
    host
}

/// The element with `data-testid=id` inside `host`.
pub fn by_testid(host: &HtmlElement, id: &str) -> HtmlElement {
    host.query_selector(&format!("[data-testid='{id}']"))
        .unwrap()
        .unwrap_or_else(|| panic!("no element with data-testid={id}"))
        .unchecked_into()
}

/// Wait until the status's `data-state` is no longer `idle`/`running`, at most `limit`; return the state.
pub async fn wait_finished(host: &HtmlElement, limit: Duration) -> String {
    let mut waited = 0;
    loop {
        let state = by_testid(host, "status").get_attribute("data-state").unwrap_or_default();
        if state != "running" && state != "idle" {
            return state;
        }
        assert!(waited < limit.as_millis(), "the run did not finish within {limit:?}; state {state}");
        sleep(100).await;
        waited += 100;
    }
}

/// Settings for a small run against the target.
pub fn small(target: &str, clients: &str, mode: &str, n: u32) -> RawSettings {
    RawSettings {
        target: target.to_string(),
        count: n.to_string(),
        warmup: "2".into(),
        rounds: "2".into(),
        clients: clients.into(),
        mode: mode.into(),
        autorun: true,
    }
}
