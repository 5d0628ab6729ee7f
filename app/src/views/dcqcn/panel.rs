//! The parameter panel: one row per field with a slider, a number box, its unit, the mlx5
//! name and an explanation; the engine's refusal appears under the field it names.

use yew::prelude::*;

use super::fields::{Field, Group, FIELDS};

#[derive(Properties, PartialEq)]
pub struct ParamRowProps {
    pub field_key: &'static str,
    /// What the number box shows (as typed, or the live value); `None`: not applicable.
    pub text: Option<String>,
    pub error: Option<String>,
    pub on_edit: Callback<(&'static str, String)>,
}

fn lookup(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

#[function_component]
pub fn ParamRow(props: &ParamRowProps) -> Html {
    let Some(field) = lookup(props.field_key) else {
        return html! {};
    };
    let Some(text) = props.text.clone() else {
        return html! {
            <div class="dcqcn-param dcqcn-param-off">
                <span class="dcqcn-param-label">{ field.label }</span>
                <span class="dcqcn-param-note">{ "off in this scenario" }</span>
            </div>
        };
    };
    let key = field.key;
    let id = format!("dcqcn-{}", key.replace('.', "-"));
    let error_id = format!("{id}-error");
    let on_input = {
        let on_edit = props.on_edit.clone();
        move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            on_edit.emit((key, input.value()));
        }
    };
    let slider_value = text
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(field.min, field.max))
        .unwrap_or(field.min);
    let invalid = props.error.is_some();
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
                    max={field.max.to_string()}
                    step={field.step.to_string()}
                    value={slider_value.to_string()}
                    oninput={on_input.clone()}
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
                    oninput={on_input}
                />
                <span class="dcqcn-unit">{ field.unit }</span>
            </div>
            <p class="dcqcn-param-help">{ field.help }</p>
            if let Some(error) = &props.error {
                <p class="dcqcn-error" id={error_id} role="alert">{ error.clone() }</p>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct GroupProps {
    pub group: Group,
    pub rows: Vec<(&'static str, Option<String>, Option<String>)>,
    pub on_edit: Callback<(&'static str, String)>,
    #[prop_or_default]
    pub open: bool,
}

/// One collapsible section of the panel.
#[function_component]
pub fn ParamGroup(props: &GroupProps) -> Html {
    let has_error = props.rows.iter().any(|(_, _, e)| e.is_some());
    html! {
        <details class="dcqcn-group" open={props.open || has_error}>
            <summary>{ props.group.title() }</summary>
            { for props.rows.iter().map(|(key, text, error)| html! {
                <ParamRow
                    key={*key}
                    field_key={*key}
                    text={text.clone()}
                    error={error.clone()}
                    on_edit={props.on_edit.clone()}
                />
            }) }
        </details>
    }
}
