//! The parameter panel: one row per field with a slider beside its number box
//! ([`TextField`], which keeps each keystroke as a draft and commits once the box rests,
//! on Enter or on leaving it), its unit, the mlx5 name and an explanation; the engine's
//! refusal appears under the field it names. A slider commits as it moves.

use yew::prelude::*;

use super::fields::{field, Group, FIELDS};
use super::state::{Action, DcqcnState};
use crate::views::form::{Refusal, TextField};

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

#[derive(Properties, PartialEq)]
pub struct ParamRowProps {
    pub row: RowView,
    /// A keystroke: `(key, text)` kept as a draft.
    pub on_type: Callback<(&'static str, String)>,
    /// A committed value: `(key, text)` checked and run.
    pub on_edit: Callback<(&'static str, String)>,
}

#[function_component]
pub fn ParamRow(props: &ParamRowProps) -> Html {
    let Some(field) = field(props.row.key) else {
        return html! {};
    };
    let def = &field.def;
    let note = props.row.context.clone().map(AttrValue::from);
    let Some(text) = props.row.text.clone() else {
        return html! {
            <div class="form-field dcqcn-param dcqcn-param-off" data-key={def.key}>
                <span class="dcqcn-param-label">{ def.label }</span>
                <span class="form-help">{ "not used in this run" }</span>
                if let Some(note) = note {
                    <p class="form-note">{ note }</p>
                }
            </div>
        };
    };
    let key = def.key;
    let on_slide = props.on_edit.reform(move |e: InputEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        (key, input.value())
    });
    let slider_value = text
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(field.min, props.row.slider_max))
        .unwrap_or(field.min);
    html! {
        <div class="dcqcn-param">
            <TextField
                def={def}
                id={format!("dcqcn-{}", key.replace('.', "-"))}
                text={text}
                refusal={props.row.refusal.clone()}
                aside={field.mlx5}
                {note}
                on_type={props.on_type.clone()}
                on_commit={props.on_edit.clone()}
                leading={html! {
                    <input
                    type="range"
                    aria-label={format!("{} slider", def.label)}
                    title={def.help}
                    min={field.min.to_string()}
                    max={props.row.slider_max.to_string()}
                    step={field.step.to_string()}
                    value={slider_value.to_string()}
                    oninput={on_slide}
                    />
                }}
            />
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
                    key: f.def.key,
                    text: state.text(f.def.key),
                    slider_max: f.slider_max(&state.current),
                    context: f.context(&state.current),
                    refusal: state.form.refusal(f.def.key).map(|message| Refusal {
                        message: message.to_string(),
                        allowed: Some(f.allowed(&state.current)),
                        kept: f
                            .value(&state.current)
                            .map(|v| format!("{} {}", f.format(v), f.def.unit)),
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
