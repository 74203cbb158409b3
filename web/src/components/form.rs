//! The settings form: target URL, count and mode, the clients (this build's, from shared's catalog, a line
//! each), then folded the expert knobs (duration, warm-up, rounds, timeout, requests in flight, body sizes,
//! server delays, HTTP versions, interleaving), with Run and Cancel; locked while a run goes on. Every input has a label, and the form submits with Enter, so the page works from the
//! keyboard. The targets per HTTP version come from a link only (`run --browser` writes them).

use leptos::ev::SubmitEvent;
use leptos::prelude::*;

use super::PageState;
use httpbench_shared::protocol::client;
use httpbench_shared::session::RawPlan;
use httpbench_shared::EnvironmentKind;

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

/// A labelled text or number input bound to `value`.
#[component]
fn Field(
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
    let submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        state.start(form.raw());
    };
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
                    <Field label="Target URL" id="target" kind="url" value=form.target />
                    <Field label="Requests per case" id="count" kind="number" value=form.count />
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
                        <Field
                            label="Duration per case (optional, e.g. 3s; empty: use the requests per case)"
                            id="duration"
                            kind="text"
                            value=form.duration
                        />
                        <Field label="Warm-up requests" id="warmup" kind="number" value=form.warmup />
                        <Field label="Rounds" id="rounds" kind="number" value=form.rounds />
                        <Field label="Timeout per request (e.g. 10, 500ms)" id="timeout" kind="text" value=form.timeout />
                        <Field label="Requests in flight (e.g. 1,8)" id="concurrency" kind="text" value=form.concurrency />
                        <Field
                            label="Body sizes from httpbench serve (e.g. 0,16k; empty: the target as given)"
                            id="body-sizes"
                            kind="text"
                            value=form.body_sizes
                        />
                        <Field
                            label="Server delays (e.g. 5ms; httpbench serve only)"
                            id="server-delays"
                            kind="text"
                            value=form.server_delays
                        />
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
            </div>
        </form>
    }
}
