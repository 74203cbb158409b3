//! Shared by the page's browser tests: the real target server's URL (handed over at compile time by
//! scripts/test.sh, which starts `httpbench serve --port 0`), running the bench loop or mounting the page
//! into a fresh element, and bounded waits on a condition that read the DOM.

use std::time::Duration;

use httpbench_shared::session::Finished;
use httpbench_web::bench::{run, Cancel, Progress};
use httpbench_web::settings::RawSettings;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Document, HtmlElement};

/// How often a wait looks at its condition again.
const POLL_MS: i32 = 20;

/// The target server (`httpbench serve`), e.g. `http://127.0.0.1:41234/`.
pub(crate) fn target() -> String {
    let url = option_env!("HTTPBENCH_TARGET_URL").unwrap_or_default();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "HTTPBENCH_TARGET_URL must name a running `httpbench serve` on 127.0.0.1 when the tests are compiled \
         (scripts/test.sh does this), got '{url}'"
    );
    url.to_string()
}

pub(crate) fn document() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Let the page run for about `ms` milliseconds (only inside [`wait_for`]: tests wait on conditions).
async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

/// Wait until `ready` holds, letting the page run in between, at most `limit`; `what` names the condition
/// in the failure.
pub(crate) async fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = js_sys::Date::now();
    while !ready() {
        assert!(js_sys::Date::now() - start < limit.as_secs_f64() * 1000.0, "not within {limit:?}: {what}");
        sleep(POLL_MS).await;
    }
}

/// Mount the page with `settings` into a new element of its own and return that element.
pub(crate) fn mount(settings: RawSettings) -> HtmlElement {
    let host: HtmlElement = document().create_element("div").unwrap().unchecked_into();
    document().body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone(), move || {
        leptos::view! { <httpbench_web::components::Bench initial=settings /> }
    });
    handle.forget();
    host
}

/// The element with `data-testid=id` inside `host`.
pub(crate) fn by_testid(host: &HtmlElement, id: &str) -> HtmlElement {
    host.query_selector(&format!("[data-testid='{id}']"))
        .unwrap()
        .unwrap_or_else(|| panic!("no element with data-testid={id}"))
        .unchecked_into()
}

/// The status's `data-state`.
pub(crate) fn state(host: &HtmlElement) -> String {
    by_testid(host, "status").get_attribute("data-state").unwrap_or_default()
}

/// Wait until the status's `data-state` is no longer `idle`/`running`, at most `limit`; return the state.
pub(crate) async fn wait_finished(host: &HtmlElement, limit: Duration) -> String {
    wait_for("the run to finish", limit, || !matches!(state(host).as_str(), "idle" | "running")).await;
    state(host)
}

/// Settings for a small run against the target: 2 warm-up requests and 2 rounds per case.
pub(crate) fn small(target: &str, clients: &str, mode: &str, n: u32) -> RawSettings {
    let mut settings = RawSettings::defaults("");
    let plan = &mut settings.plan;
    plan.target = target.to_string();
    plan.count = n.to_string();
    plan.warmup = "2".into();
    plan.rounds = "2".into();
    plan.clients = clients.into();
    plan.mode = mode.into();
    settings.autorun = true;
    settings
}

/// Run the bench loop on `settings` without the page, with `progress` hearing every report.
pub(crate) async fn measure_with(settings: &RawSettings, cancel: &Cancel, progress: &dyn Fn(Progress)) -> Finished {
    // A page with no id in a run takes no turns.
    run(&settings.check(None).unwrap(), cancel, progress, &|_| Box::pin(async { true })).await
}
