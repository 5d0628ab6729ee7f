//! The parameter panel: one row per field with a slider, a number box, its unit, the mlx5
//! name and an explanation; the engine's refusal appears under the field it names.
//!
//! A number box is typed into digit by digit: each keystroke is kept as a draft, and the
//! value is committed (checked and run) once the box has rested for [`COMMIT_MS`], on
//! Enter, or when the learner leaves the box (`change`). A slider commits as it moves.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo::timers::callback::Timeout;
use yew::prelude::*;

use super::fields::{field, Group, FIELDS};
use super::state::{Action, DcqcnState};

/// How long a number box must rest before its value is committed, ms.
pub const COMMIT_MS: u32 = 400;

/// A refused value as the row shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The engine's (or the parser's) message, naming the parameter.
    pub message: String,
    /// Which values are accepted and why.
    pub allowed: String,
    /// The value still in use, as the box would show it, with its unit.
    pub kept: Option<String>,
}

/// What one row shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RowView {
    pub key: &'static str,
    /// What the number box shows (as typed, or the live value); `None`: not applicable.
    pub text: Option<String>,
    pub refusal: Option<Refusal>,
    /// The slider's top in this scenario (a threshold's is the switch's buffer).
    pub slider_max: f64,
    /// What the rest of the scenario means for this value ([`super::fields::Field::context`]).
    pub context: Option<String>,
}

/// The row's note on the rest of the scenario, if it has one.
fn context_note(context: &Option<String>) -> Html {
    match context {
        Some(text) => html! { <p class="dcqcn-param-context">{ text.clone() }</p> },
        None => html! {},
    }
}

#[derive(Properties, PartialEq)]
pub struct ParamRowProps {
    pub row: RowView,
    /// A keystroke: `(key, text)` kept as a draft.
    pub on_type: Callback<(&'static str, String)>,
    /// A committed value: `(key, text)` checked and run.
    pub on_edit: Callback<(&'static str, String)>,
}

/// A number box's draft: the timer that will commit it, and whether it still waits (a
/// fired timer is kept until the next keystroke replaces it, never dropped from inside
/// its own callback).
#[derive(Default)]
struct Draft {
    timer: RefCell<Option<Timeout>>,
    waiting: Cell<bool>,
}

#[function_component]
pub fn ParamRow(props: &ParamRowProps) -> Html {
    let draft: Rc<Draft> = use_memo((), |_| Draft::default());
    let Some(field) = field(props.row.key) else {
        return html! {};
    };
    let Some(text) = props.row.text.clone() else {
        return html! {
            <div class="dcqcn-param dcqcn-param-off" data-key={field.key}>
                <span class="dcqcn-param-label">{ field.label }</span>
                <span class="dcqcn-param-note">{ "not used in this run" }</span>
                { context_note(&props.row.context) }
            </div>
        };
    };
    let key = field.key;
    let id = format!("dcqcn-{}", key.replace('.', "-"));
    let error_id = format!("{id}-error");

    // Commits `text` now, dropping any commit still waiting.
    let commit = {
        let (draft, on_edit) = (draft.clone(), props.on_edit.clone());
        move |text: String| {
            if let Some(timer) = draft.timer.borrow_mut().take() {
                timer.cancel();
            }
            draft.waiting.set(false);
            on_edit.emit((key, text));
        }
    };
    // Commits what the box holds if a draft is waiting (Enter).
    let commit_draft = {
        let (draft, commit) = (draft.clone(), commit.clone());
        move |input: web_sys::HtmlInputElement| {
            if draft.waiting.get() {
                commit(input.value());
            }
        }
    };
    let on_slide = {
        let commit = commit.clone();
        move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            commit(input.value());
        }
    };
    let on_type = {
        let (draft, on_type, on_edit) =
            (draft.clone(), props.on_type.clone(), props.on_edit.clone());
        move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let text = input.value();
            on_type.emit((key, text.clone()));
            draft.waiting.set(true);
            let (waiting, on_edit) = (draft.clone(), on_edit.clone());
            // Replacing the timer cancels the one it held.
            *draft.timer.borrow_mut() = Some(Timeout::new(COMMIT_MS, move || {
                waiting.waiting.set(false);
                on_edit.emit((key, text));
            }));
        }
    };
    let on_keydown = move |e: KeyboardEvent| {
        if e.key() == "Enter" {
            commit_draft(e.target_unchecked_into());
        }
    };
    // A change (the learner left a box they edited) commits what it holds; a value the
    // timer already committed runs nothing twice.
    let on_change = {
        let commit = commit.clone();
        move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            commit(input.value());
        }
    };

    let slider_value = text
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(field.min, props.row.slider_max))
        .unwrap_or(field.min);
    let refusal = props.row.refusal.as_ref();
    let invalid = refusal.is_some();
    html! {
        <div class={classes!("dcqcn-param", invalid.then_some("dcqcn-param-invalid"))} data-key={key}>
            <label class="dcqcn-param-label" for={id.clone()} title={field.help}>
                { field.label }
                <code class="dcqcn-mlx5">{ field.mlx5 }</code>
            </label>
            <div class="dcqcn-param-inputs">
                <input
                    type="range"
                    aria-label={format!("{} slider", field.label)}
                    title={field.help}
                    min={field.min.to_string()}
                    max={props.row.slider_max.to_string()}
                    step={field.step.to_string()}
                    value={slider_value.to_string()}
                    oninput={on_slide}
                />
                <input
                    id={id}
                    type="text"
                    inputmode="decimal"
                    class="dcqcn-number"
                    title={field.help}
                    value={text}
                    aria-invalid={invalid.to_string()}
                    aria-describedby={invalid.then(|| error_id.clone())}
                    oninput={on_type}
                    onkeydown={on_keydown}
                    onchange={on_change}
                />
                <span class="dcqcn-unit">{ field.unit }</span>
            </div>
            <p class="dcqcn-param-help">{ field.help }</p>
            { context_note(&props.row.context) }
            if let Some(refusal) = refusal {
                <div class="dcqcn-error" id={error_id} role="alert">
                    <p>{ refusal.message.clone() }</p>
                    <p class="dcqcn-allowed">{ format!("Allowed: {}.", refusal.allowed) }</p>
                    if let Some(kept) = &refusal.kept {
                        <p class="dcqcn-kept">{ format!("The run keeps the last valid value, {kept}.") }</p>
                    }
                </div>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct GroupProps {
    pub group: Group,
    pub rows: Vec<RowView>,
    /// Whether the section is open; the learner's choice, kept by the reducer.
    pub open: bool,
    pub on_toggle: Callback<(Group, bool)>,
    pub on_type: Callback<(&'static str, String)>,
    pub on_edit: Callback<(&'static str, String)>,
}

/// One collapsible section of the panel.
#[function_component]
pub fn ParamGroup(props: &GroupProps) -> Html {
    let ontoggle = {
        let (group, on_toggle) = (props.group, props.on_toggle.clone());
        move |e: Event| {
            let details: web_sys::Element = e.target_unchecked_into();
            on_toggle.emit((group, details.has_attribute("open")));
        }
    };
    html! {
        <details class="dcqcn-group" open={props.open} {ontoggle}>
            <summary>{ props.group.title() }</summary>
            { for props.rows.iter().map(|row| html! {
                <ParamRow
                    key={row.key}
                    row={row.clone()}
                    on_type={props.on_type.clone()}
                    on_edit={props.on_edit.clone()}
                />
            }) }
        </details>
    }
}

/// What one section shows.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupView {
    pub group: Group,
    pub rows: Vec<RowView>,
    pub open: bool,
}

/// Every section as the state has it: each field's text, and the refusal of a value the
/// engine did not take, with what it allows and the value kept.
pub fn group_views(state: &DcqcnState) -> Vec<GroupView> {
    Group::ALL
        .iter()
        .map(|&group| GroupView {
            group,
            open: state.is_open(group),
            rows: FIELDS
                .iter()
                .filter(|f| f.group == group)
                .map(|f| RowView {
                    key: f.key,
                    text: state.text(f.key),
                    slider_max: f.slider_max(&state.current),
                    context: f.context(&state.current),
                    refusal: state.errors.get(f.key).map(|message| Refusal {
                        message: message.clone(),
                        allowed: f.allowed(&state.current),
                        kept: f
                            .value(&state.current)
                            .map(|v| format!("{} {}", f.format(v), f.unit)),
                    }),
                })
                .collect(),
        })
        .collect()
}

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub groups: Vec<GroupView>,
    pub dispatch: Callback<Action>,
}

/// The parameter panel, one section per group.
#[function_component]
pub fn ParamPanel(props: &PanelProps) -> Html {
    // Callbacks for the panel's lifetime: the sections compare their props, so a drag or a
    // keystroke re-renders only the section whose field changed.
    let dispatch = props.dispatch.clone();
    let on_edit = use_callback(dispatch.clone(), |(key, text), dispatch| {
        dispatch.emit(Action::Edit { key, text })
    });
    let on_type = use_callback(dispatch.clone(), |(key, text), dispatch| {
        dispatch.emit(Action::Type { key, text })
    });
    let on_toggle = use_callback(dispatch, |(group, open), dispatch| {
        dispatch.emit(Action::Toggle { group, open })
    });
    html! {
        <div class="dcqcn-panel" role="group" aria-label="Parameters">
            { for props.groups.iter().map(|g| html! {
                <ParamGroup
                    key={g.group.title()}
                    group={g.group}
                    rows={g.rows.clone()}
                    open={g.open}
                    on_toggle={on_toggle.clone()}
                    on_type={on_type.clone()}
                    on_edit={on_edit.clone()}
                />
            }) }
        </div>
    }
}
