//! The settings form: target URL, count, warm-up, rounds, clients and mode, with Run and Cancel. Every input
//! has a label, and the form submits with Enter, so the page works from the keyboard.

use leptos::ev::SubmitEvent;
use leptos::prelude::*;

use super::{PageState, Phase};
use crate::settings::{RawSettings, CLIENTS};

/// The form's values as typed.
#[derive(Clone, Copy)]
pub struct FormState {
    target: RwSignal<String>,
    count: RwSignal<String>,
    warmup: RwSignal<String>,
    rounds: RwSignal<String>,
    /// One flag per entry of [`CLIENTS`].
    clients: [RwSignal<bool>; CLIENTS.len()],
    mode: RwSignal<String>,
}

impl FormState {
    /// The form filled with `initial`.
    pub fn new(initial: &RawSettings) -> Self {
        let chosen = initial.clients.split(',').map(str::trim).collect::<Vec<_>>();
        let on = |name: &str| chosen.contains(&"all") || chosen.contains(&name);
        FormState {
            target: RwSignal::new(initial.target.clone()),
            count: RwSignal::new(initial.count.clone()),
            warmup: RwSignal::new(initial.warmup.clone()),
            rounds: RwSignal::new(initial.rounds.clone()),
            clients: CLIENTS.map(|c| RwSignal::new(on(c))),
            mode: RwSignal::new(initial.mode.clone()),
        }
    }

    /// The values to check and run.
    pub fn raw(&self) -> RawSettings {
        let clients: Vec<&str> =
            CLIENTS.iter().zip(&self.clients).filter(|(_, on)| on.get_untracked()).map(|(c, _)| *c).collect();
        RawSettings {
            target: self.target.get_untracked(),
            count: self.count.get_untracked(),
            warmup: self.warmup.get_untracked(),
            rounds: self.rounds.get_untracked(),
            clients: clients.join(","),
            mode: self.mode.get_untracked(),
            autorun: false,
        }
    }
}

/// A labelled text or number input bound to `value`.
#[component]
fn Field(
    /// The label text.
    label: &'static str,
    /// `data-testid` and `id` of the input.
    id: &'static str,
    /// Input type (`url`, `number`).
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

/// The settings form with Run and Cancel.
#[component]
pub fn SettingsForm(
    /// The form's values.
    form: FormState,
    /// The page state (runs start and stop here).
    state: PageState,
) -> impl IntoView {
    let running = move || state.phase.get() == Phase::Running;
    let submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        state.start(form.raw());
    };
    let boxes = CLIENTS
        .iter()
        .zip(form.clients)
        .map(|(name, on)| {
            let id = format!("client-{name}");
            let (for_label, testid) = (id.clone(), id.clone());
            view! {
                <label class="check" for=for_label>
                    <input
                        type="checkbox"
                        id=id
                        data-testid=testid
                        prop:checked=move || on.get()
                        on:change=move |ev| on.set(event_target_checked(&ev))
                    />
                    {*name}
                </label>
            }
        })
        .collect_view();
    view! {
        <form class="settings" on:submit=submit aria-label="Benchmark settings">
            <div class="grid">
                <Field label="Target URL" id="target" kind="url" value=form.target />
                <Field label="Requests per case" id="count" kind="number" value=form.count />
                <Field label="Warm-up requests" id="warmup" kind="number" value=form.warmup />
                <Field label="Rounds" id="rounds" kind="number" value=form.rounds />
                <label for="mode">"Mode"</label>
                <select
                    id="mode"
                    data-testid="mode"
                    prop:value=move || form.mode.get()
                    on:change=move |ev| form.mode.set(event_target_value(&ev))
                >
                    <option value="both">"both: fresh and reuse"</option>
                    <option value="reuse">"reuse: keep-alive"</option>
                    <option value="fresh">"fresh: server closes each connection"</option>
                </select>
            </div>
            <fieldset>
                <legend>"Clients"</legend>
                {boxes}
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
