//! The settings form: target URL, count and mode, the clients (this build's, from shared's catalog, a line
//! each), then folded the expert knobs (duration, warm-up, rounds, timeout, requests in flight, body sizes,
//! server delays, HTTP versions, interleaving), with Run and Cancel; locked while a run goes on. Every input has a label, and the form submits with Enter, so the page works from the
//! keyboard. The targets per HTTP version come from a link only (`run --browser` writes them).

use leptos::ev::SubmitEvent;
use leptos::prelude::*;

use super::PageState;
use std::time::Duration;

use httpbench_shared::model::Report;
use httpbench_shared::protocol::client;
use httpbench_shared::session::{Budget, Field, InputError, RawPlan};
use httpbench_shared::units::{duration_ns, wait};
use httpbench_shared::EnvironmentKind;
use wasm_bindgen::JsCast;

use crate::settings::{available_clients, RawSettings};

/// The form's values as typed.
#[derive(Clone, Copy)]
struct FormState {
    target: RwSignal<String>,
    count: RwSignal<String>,
    duration: RwSignal<String>,
    warmup: RwSignal<String>,
    rounds: RwSignal<String>,
    timeout: RwSignal<String>,
    concurrency: RwSignal<String>,
    body_sizes: RwSignal<String>,
    server_delays: RwSignal<String>,
    http: RwSignal<String>,
    interleave: RwSignal<bool>,
    /// One box per client of this build (shared's catalog), in catalog order.
    clients: StoredValue<Vec<(&'static str, RwSignal<bool>)>>,
    mode: RwSignal<String>,
    /// What only a link sets (the targets per HTTP version).
    initial: StoredValue<RawSettings>,
}

impl FormState {
    /// The form filled with `initial`.
    fn new(initial: &RawSettings) -> Self {
        let chosen = initial.plan.clients.split(',').map(str::trim).collect::<Vec<_>>();
        let on = |name: &str| chosen.contains(&"all") || chosen.contains(&name);
        FormState {
            target: RwSignal::new(initial.plan.target.clone()),
            count: RwSignal::new(initial.plan.count.clone()),
            duration: RwSignal::new(initial.plan.duration.clone()),
            warmup: RwSignal::new(initial.plan.warmup.clone()),
            rounds: RwSignal::new(initial.plan.rounds.clone()),
            timeout: RwSignal::new(initial.plan.timeout.clone()),
            concurrency: RwSignal::new(initial.plan.concurrency.clone()),
            body_sizes: RwSignal::new(initial.plan.body_sizes.clone()),
            server_delays: RwSignal::new(initial.plan.server_delays.clone()),
            http: RwSignal::new(initial.plan.http.clone()),
            // Anything but an explicit 0 interleaves; a bad value is the check's to name, not the box's.
            interleave: RwSignal::new(!matches!(initial.plan.interleave.trim(), "0" | "false")),
            clients: StoredValue::new(available_clients().into_iter().map(|c| (c, RwSignal::new(on(c)))).collect()),
            mode: RwSignal::new(initial.plan.mode.clone()),
            initial: StoredValue::new(initial.clone()),
        }
    }

    /// The values, read so that a reactive caller (the estimate) follows every change.
    fn tracked(&self) -> RawSettings {
        for s in [self.target, self.count, self.duration, self.warmup, self.rounds, self.timeout, self.mode] {
            s.track();
        }
        for s in [self.concurrency, self.body_sizes, self.server_delays, self.http] {
            s.track();
        }
        self.interleave.track();
        self.clients.with_value(|all| all.iter().for_each(|(_, on)| on.track()));
        self.raw()
    }

    /// A preset: the count, warm-up, rounds and duration of `plan`.
    fn preset(&self, plan: &RawPlan) {
        self.count.set(plan.count.clone());
        self.warmup.set(plan.warmup.clone());
        self.rounds.set(plan.rounds.clone());
        self.duration.set(plan.duration.clone());
    }

    /// The values to check and run.
    fn raw(&self) -> RawSettings {
        let clients: Vec<&str> =
            self.clients.with_value(|all| all.iter().filter(|(_, on)| on.get_untracked()).map(|(c, _)| *c).collect());
        let plan = RawPlan {
            target: self.target.get_untracked(),
            targets: self.initial.with_value(|i| i.plan.targets.clone()),
            count: self.count.get_untracked(),
            duration: self.duration.get_untracked(),
            warmup: self.warmup.get_untracked(),
            rounds: self.rounds.get_untracked(),
            interleave: if self.interleave.get_untracked() { "1" } else { "0" }.into(),
            timeout: self.timeout.get_untracked(),
            clients: clients.join(","),
            mode: self.mode.get_untracked(),
            http: self.http.get_untracked(),
            concurrency: self.concurrency.get_untracked(),
            body_sizes: self.body_sizes.get_untracked(),
            server_delays: self.server_delays.get_untracked(),
        };
        RawSettings { plan, autorun: false, page: self.initial.with_value(|i| i.page.clone()) }
    }
}

/// A labelled text or number input bound to `value` (the errors of a Run are marked on it by [`mark`]).
#[component]
fn Input(
    /// The label text.
    label: &'static str,
    /// `data-testid` and `id` of the input.
    id: &'static str,
    /// Input type (`url`, `number`, `text`).
    kind: &'static str,
    /// The bound value.
    value: RwSignal<String>,
) -> impl IntoView {
    view! {
        <label for=id>{label}</label>
        <input
            id=id
            data-testid=id
            type=kind
            min="0"
            prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev))
        />
    }
}

/// A labelled checkbox bound to `checked`.
#[component]
fn Check(
    /// The label text.
    label: String,
    /// `data-testid` and `id` of the box.
    id: String,
    /// The bound value.
    checked: RwSignal<bool>,
) -> impl IntoView {
    let (for_label, testid) = (id.clone(), id.clone());
    view! {
        <label class="check" for=for_label>
            <input
                type="checkbox"
                id=id
                data-testid=testid
                prop:checked=move || checked.get()
                on:change=move |ev| checked.set(event_target_checked(&ev))
            />
            {label}
        </label>
    }
}

/// A labelled drop-down bound to `value`.
#[component]
fn Choice(
    /// The label text.
    label: &'static str,
    /// `data-testid` and `id` of the select.
    id: &'static str,
    /// The bound value.
    value: RwSignal<String>,
    /// (value, text) of each option.
    options: &'static [(&'static str, &'static str)],
) -> impl IntoView {
    let options = options.iter().map(|(v, text)| view! { <option value=*v>{*text}</option> }).collect_view();
    view! {
        <label for=id>{label}</label>
        <select id=id data-testid=id prop:value=move || value.get() on:change=move |ev| value.set(event_target_value(&ev))>
            {options}
        </select>
    }
}

/// A button beside Run that sets the amount to measure.
struct Preset {
    /// Its `data-testid`.
    id: &'static str,
    text: &'static str,
    /// Whose count, warm-up, rounds and duration it sets.
    plan: fn() -> RawPlan,
}

/// A quick look, and the page's defaults back.
const PRESETS: [Preset; 2] = [
    Preset {
        id: "preset-quick",
        text: "Quick: 100 requests",
        plan: || RawPlan {
            count: "100".into(),
            warmup: "10".into(),
            rounds: "3".into(),
            ..RawPlan::page_defaults(String::new())
        },
    },
    Preset { id: "preset-default", text: "Defaults", plan: || RawPlan::page_defaults(String::new()) },
];

/// The fields in the order the form shows them: errors are said and focused in it.
const FORM_ORDER: [Field; 13] = [
    Field::Target,
    Field::Count,
    Field::Mode,
    Field::Clients,
    Field::Duration,
    Field::Warmup,
    Field::Rounds,
    Field::Timeout,
    Field::Concurrency,
    Field::BodySizes,
    Field::ServerDelays,
    Field::Http,
    Field::Interleave,
];

/// The id of the control that holds `field` (the clients' first box for the clients).
fn control_of(field: Field) -> String {
    match field {
        Field::Target => "target".into(),
        Field::Count => "count".into(),
        Field::Duration => "duration".into(),
        Field::Warmup => "warmup".into(),
        Field::Rounds => "rounds".into(),
        Field::Interleave => "interleave".into(),
        Field::Timeout => "timeout".into(),
        Field::Clients | Field::BrowserClients => {
            format!("client-{}", available_clients().first().copied().unwrap_or_default())
        }
        Field::Mode => "mode".into(),
        Field::Http => "http".into(),
        Field::Concurrency => "concurrency".into(),
        Field::BodySizes => "body-sizes".into(),
        Field::ServerDelays => "server-delays".into(),
    }
}

/// Mark each error of `errors` on its control, all at once: `aria-invalid`, and the message in a paragraph
/// after it (the clients': at the end of their box) that the control names with `aria-describedby`, "More
/// settings" unfolded when one is folded there; then focus the first. The last Run's marks go first. Done on
/// the DOM rather than by a reactive view per field, which cost the page's size budget 6 KB.
fn mark(errors: &[InputError]) {
    let doc = document();
    for selector in [".field-error", "[aria-invalid]"] {
        let Ok(found) = doc.query_selector_all(selector) else { continue };
        for node in (0..found.length()).filter_map(|i| found.get(i)) {
            let Ok(e) = node.dyn_into::<web_sys::Element>() else { continue };
            if selector == ".field-error" {
                e.remove();
            } else {
                let _ = e.remove_attribute("aria-invalid");
                let _ = e.remove_attribute("aria-describedby");
            }
        }
    }
    let mut first = None;
    for (field, message) in errors.iter().filter_map(|e| Some((e.field?, &e.message))) {
        let id = control_of(field);
        let Some(control) = doc.get_element_by_id(&id) else { continue };
        let Ok(p) = doc.create_element("p") else { continue };
        p.set_class_name("field-error");
        p.set_id(&format!("{id}-error"));
        let _ = p.set_attribute("data-testid", &format!("{id}-error"));
        p.set_text_content(Some(message));
        let _ = control.set_attribute("aria-invalid", "true");
        let _ = control.set_attribute("aria-describedby", &p.id());
        let _ = match control.closest("fieldset.clients") {
            Ok(Some(clients)) => clients.append_child(&p).map(drop),
            _ => control.after_with_node_1(&p),
        };
        // A wrong value folded away is unfolded: every mark in sight at once.
        if let Ok(Some(details)) = control.closest("details") {
            let _ = details.set_attribute("open", "");
        }
        first = first.or(Some(control));
    }
    if let Some(Ok(control)) = first.map(|c| c.dyn_into::<web_sys::HtmlElement>()) {
        let _ = control.focus();
    }
}

/// About how long the form's plan takes, at the time per request this browser took in its last run (or 1 ms
/// before any): `≈ 8 cases × 520 requests · about 42 s`; or nothing while the plan cannot run.
fn estimate(raw: &RawSettings, last: Option<&Report>) -> Option<String> {
    let settings = raw.check(crate::browser::engine()).ok()?;
    let cases = settings.matrix.cases().0.len();
    let measured = last.map(|r| r.cases.iter().fold((0.0, 0), |(w, n), c| (w + c.wall_secs, n + c.iterations)));
    let (per_request, whose) = match measured {
        Some((wall, n)) if n > 0 && wall > 0.0 => (wall / n as f64, "this browser's last run"),
        _ => (0.001, "an assumed 1 ms"),
    };
    let time = settings.plan.estimate(cases, Duration::from_secs_f64(per_request));
    let per_case = match settings.plan.budget {
        Budget::Count(n) => format!("{} requests", n + settings.plan.warmup),
        Budget::Duration(d) => format!("{} s", d.as_secs_f64()),
    };
    Some(format!(
        "{cases} cases × {per_case}: about {} at {} per request ({whose})",
        wait(time),
        duration_ns(per_request * 1e9)
    ))
}

/// The HTTP versions the form offers (shared's `HttpChoice` spellings; empty: the browser's own choice).
const HTTP_CHOICES: &[(&str, &str)] = &[
    ("", "what the browser negotiates"),
    ("1.1", "HTTP/1.1"),
    ("2", "HTTP/2 (https only)"),
    ("both", "HTTP/1.1 and HTTP/2 (https only)"),
];

/// The modes the form offers (shared's `Modes` spellings).
const MODE_CHOICES: &[(&str, &str)] = &[
    ("both", "both: fresh and reuse"),
    ("reuse", "reuse: keep-alive"),
    ("fresh", "fresh: server closes each connection"),
];

/// The settings form with Run and Cancel; runs start and stop through the page state (context).
// The component macro's expansion is flagged by unreachable_pub whatever the function's visibility.
#[allow(unreachable_pub)]
#[component]
pub(super) fn SettingsForm(
    /// The form's starting values.
    initial: RawSettings,
) -> impl IntoView {
    let state = expect_context::<PageState>();
    let form = FormState::new(&initial);
    let running = move || state.running.get();
    // Every wrong field at once, each under its field, the first focused; a plan that can run starts.
    let submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        let raw = form.raw();
        let found = raw.errors(&crate::browser::origin(), crate::browser::engine());
        // In the form's order, through shared's one sort (a sort of its own is one more copy of std's here).
        let at = |i: usize| found[i].field.and_then(|f| FORM_ORDER.iter().position(|&o| o == f));
        let order = httpbench_shared::order::stable_order(found.len(), &|a, b| at(a).cmp(&at(b)));
        let errors: Vec<_> = order.into_iter().map(|i| found[i].clone()).collect();
        mark(&errors);
        state.start(raw);
        if let Some(first) = errors.first() {
            let more = match errors.len() {
                1 => String::new(),
                n => format!(" (and {} more, each marked on its field)", n - 1),
            };
            state.message.set(format!("Not started: {}{more}.", first.message));
        }
    };
    let estimate = move || state.own.with(|last| estimate(&form.tracked(), last.as_ref()));
    let presets = PRESETS.map(|p| {
        view! {
            <button type="button" data-testid=p.id disabled=running on:click=move |_| form.preset(&(p.plan)())>
                {p.text}
            </button>
        }
    });
    let boxes = form.clients.get_value().into_iter();
    // One line per client: its name and what it is, from shared's catalog.
    let about = |name: &str| client(EnvironmentKind::Browser, name).map_or("", |c| c.about);
    let boxes = boxes.map(move |(name, on)| {
        let label = format!("{name}: {}", about(name));
        view! { <Check label=label id=format!("client-{name}") checked=on /> }
    });
    view! {
        <form class="settings" on:submit=submit aria-label="Benchmark settings">
            // Locked while a run goes on: what it measures cannot change under it.
            <fieldset class="plain" disabled=running>
                <div class="grid">
                    <Input label="Target URL" id="target" kind="url" value=form.target />
                    <Input label="Requests per case" id="count" kind="number" value=form.count />
                    <Choice label="Mode" id="mode" value=form.mode options=MODE_CHOICES />
                </div>
                <fieldset class="clients">
                    <legend>"Clients"</legend>
                    {boxes.collect_view()}
                </fieldset>
                // The expert knobs, folded: the defaults measure well.
                <details class="more">
                    <summary>"More settings: duration, warm-up, rounds, timeout, load, HTTP version"</summary>
                    <div class="grid">
                        <Input
                            label="Duration per case (optional, e.g. 3s; empty: use the requests per case)"
                            id="duration"
                            kind="text"
                            value=form.duration />
                        <Input label="Warm-up requests" id="warmup" kind="number" value=form.warmup />
                        <Input label="Rounds" id="rounds" kind="number" value=form.rounds />
                        <Input label="Timeout per request (e.g. 10, 500ms)" id="timeout" kind="text" value=form.timeout />
                        <Input label="Requests in flight (e.g. 1,8)" id="concurrency" kind="text" value=form.concurrency />
                        <Input
                            label="Body sizes from httpbench serve (e.g. 0,16k; empty: the target as given)"
                            id="body-sizes"
                            kind="text"
                            value=form.body_sizes />
                        <Input
                            label="Server delays (e.g. 5ms; httpbench serve only)"
                            id="server-delays"
                            kind="text"
                            value=form.server_delays />
                        <Choice label="HTTP version" id="http" value=form.http options=HTTP_CHOICES />
                    </div>
                    <Check
                        label="Interleave the cases' rounds (round-robin, so drift hits every case alike)".to_string()
                        id="interleave".to_string()
                        checked=form.interleave
                    />
                </details>
            </fieldset>
            <div class="buttons">
                <button type="submit" data-testid="run" disabled=running>"Run"</button>
                <button type="button" data-testid="cancel" disabled=move || !running() on:click=move |_| state.stop()>
                    "Cancel"
                </button>
                {presets}
            </div>
            <p class="estimate" data-testid="estimate">{estimate}</p>
        </form>
    }
}
