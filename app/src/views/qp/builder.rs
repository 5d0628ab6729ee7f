//! The `ibv_modify_qp()` builder: target state, ticked attributes with typed values and
//! their decoded meaning, the live kernel check, the C call, and the result of calling it.

use engine::qp::builder::{build_call, c_call, expected_text, live_check, set_from_text};
use engine::qp::table::kernel_cell;
use engine::qp::{AttrName, ModifyAttrs, QpError, QpState, QpType};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::{Action, ModifyResult, QpPage};
use crate::views::form::{FieldDef, Reads, Refusal, TextField};

#[derive(Properties, PartialEq)]
pub struct ModifyBuilderProps {
    pub page: UseReducerHandle<QpPage>,
    pub dispatch: Callback<Action>,
}

/// How the kernel table treats an attribute for the chosen transition.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Required,
    Optional,
    NotAccepted,
}

impl Role {
    fn label(self) -> &'static str {
        match self {
            Role::Required => "required",
            Role::Optional => "optional",
            Role::NotAccepted => "not accepted here",
        }
    }
}

#[function_component]
pub fn ModifyBuilder(props: &ModifyBuilderProps) -> Html {
    let page = &props.page;
    let dispatch = &props.dispatch;
    let qp_type = page.qp.qp_type();
    let current = page.qp.state();
    let cell = kernel_cell(current, page.target, qp_type);
    let role = |attr: AttrName| match cell {
        _ if attr == AttrName::State => Role::Required,
        Some(c) if c.required.contains(attr) => Role::Required,
        Some(c) if c.optional.contains(attr) => Role::Optional,
        _ => Role::NotAccepted,
    };
    let (listed, others): (Vec<AttrName>, Vec<AttrName>) = AttrName::ALL
        .into_iter()
        .partition(|a| role(*a) != Role::NotAccepted);

    let on_type = dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::SetType(QpType::parse(&select.value()).unwrap_or(QpType::Rc))
    });
    let on_target = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(state) = QpState::parse(&select.value()) {
                dispatch.emit(Action::SetTarget(state));
            }
        })
    };
    let row = |attr: AttrName| attr_row(page, dispatch, attr, role(attr));
    let ticked_others = others.iter().filter(|a| page.ticked.contains(**a)).count();

    html! {
        <section class="qp-builder" aria-labelledby="qp-builder-title">
            <h2 id="qp-builder-title">{ "Build an ibv_modify_qp() call" }</h2>
            <div class="qp-controls">
                <label>{ "QP type " }
                    <select id="qp-type" onchange={on_type}>
                        { for QpType::ALL.into_iter().map(|t| html! {
                            <option value={t.name()} selected={t == qp_type}>{ t.ibv_name() }</option>
                        }) }
                    </select>
                </label>
                <p class="qp-current-line">{ "The QP is in " }
                    <strong class="qp-current" data-state={current.name()}>{ current.name() }</strong></p>
                <label>{ "Move it to " }
                    <select id="qp-target" onchange={on_target}>
                        { for QpState::ALL.into_iter().map(|s| html! {
                            <option value={s.name()} selected={s == page.target}>
                                { format!("{}{}", s.ibv_name(), if kernel_cell(current, s, qp_type).is_some() { "" } else { " (not a valid transition)" }) }
                            </option>
                        }) }
                    </select>
                </label>
                <button type="button" class="qp-tick-required" onclick={dispatch.reform(|_| Action::TickRequired)}>
                    { "Tick exactly what the kernel requires" }
                </button>
            </div>
            <fieldset class="qp-attrs">
                <legend>{ format!("attr_mask for {qp_type} {current} → {}", page.target) }</legend>
                if cell.is_none() {
                    <p class="qp-hint">{ format!("The kernel table has no {current} → {} entry: every mask fails.", page.target) }</p>
                }
                { listed.into_iter().map(row).collect::<Html>() }
                <details class="qp-other-attrs" open={ticked_others > 0}>
                    <summary>{ format!("Other attributes ({} ticked): the kernel refuses them for this transition", ticked_others) }</summary>
                    { others.into_iter().map(row).collect::<Html>() }
                </details>
            </fieldset>
            <LiveCheck page={page.clone()} />
            <CCall page={page.clone()} />
            <button type="button" class="qp-apply primary" onclick={dispatch.reform(|_| Action::Apply)}>
                { "Call ibv_modify_qp()" }
            </button>
            <div class="qp-result-area" aria-live="polite">
                { page.result.as_ref().map(result_view).unwrap_or_default() }
            </div>
        </section>
    }
}

fn attr_row(
    page: &UseReducerHandle<QpPage>,
    dispatch: &Callback<Action>,
    attr: AttrName,
    role: Role,
) -> Html {
    let ticked = page.ticked.contains(attr);
    let is_state = attr == AttrName::State;
    let text = page.field_text(attr).to_string();
    let decoded = set_from_text(&mut ModifyAttrs::default(), attr, &text);
    let id = attr.name().to_ascii_lowercase().replace('_', "-");
    let check_id = format!("{id}-on");
    let on_toggle = dispatch.reform(move |_| Action::Toggle(attr));
    let on_type = dispatch.reform(move |(_, text)| Action::SetText(attr, text));
    let class = classes!(
        "qp-attr",
        match role {
            Role::Required => "required",
            Role::Optional => "optional",
            Role::NotAccepted => "refused",
        },
        ticked.then_some("ticked"),
    );
    let (meaning, refusal) = match decoded {
        Ok(d) => (Some(AttrValue::from(d.meaning)), None),
        Err(e) => (
            None,
            Some(Refusal::plain(format!(
                "{e} — expected {}",
                expected_text(attr)
            ))),
        ),
    };
    html! {
        <div {class} key={attr.name()} data-attr={attr.name()}>
            <input type="checkbox" id={check_id.clone()} checked={ticked} onchange={on_toggle} />
            <label for={check_id} class="qp-attr-name">
                <code>{ attr.name() }</code>
                <span class="qp-role">{ role.label() }</span>
            </label>
            <TextField def={&VALUE_FIELD} id={format!("{id}-value")} {text} readonly={is_state}
                label={format!("attr.{}", attr.field())} note={meaning} {refusal} {on_type} />
        </div>
    }
}

/// An attribute's value box; its label names the `ibv_qp_attr` field it sets.
static VALUE_FIELD: FieldDef = FieldDef {
    key: "value",
    label: "",
    unit: "",
    help: "",
    reads: Reads::Text,
};

#[derive(Properties, PartialEq)]
struct PageProps {
    page: UseReducerHandle<QpPage>,
}

/// What the kernel's `ib_modify_qp_is_ok()` would say about the ticked mask right now, and
/// which ticked values do not read (the C call leaves them out, so it says both).
#[function_component]
fn LiveCheck(props: &PageProps) -> Html {
    let page = &props.page;
    let check = live_check(
        page.qp.qp_type(),
        page.qp.state(),
        page.target,
        page.ticked,
        |attr| page.field_text(attr),
    );
    let values_ok = check.left_out.is_empty();
    let left_out = (!values_ok).then(|| {
        html! {
            <div class="qp-live-values">
                <ul>
                    { for check.left_out.iter().map(|l| html! {
                        <li data-attr={l.attr.name()}>
                            <code>{ l.to_string() }</code>{ ": the C snippet below leaves it out." }
                        </li>
                    }) }
                </ul>
                if let Some(refused) = &check.source_refused {
                    <p>{ if check.left_out.len() == 1 { "Without it" } else { "Without them" } }
                        { ", the snippet's own mask is refused: " }
                        <code>{ refused.to_string() }</code></p>
                }
                <p>{ "Calling ibv_modify_qp() now does nothing until the values are fixed." }</p>
            </div>
        }
    });
    html! {
        <div class={classes!("qp-live", (check.mask.is_ok() && values_ok).then_some("ok"))} aria-live="polite">
            <h3>{ "Kernel check, live" }</h3>
            { match &check.mask {
                Ok(()) if values_ok => html! { <p>{ "✓ ib_modify_qp_is_ok() accepts this mask." }</p> },
                Ok(()) => html! {
                    <p class="qp-live-verdict">{ "✓ ib_modify_qp_is_ok() accepts this mask, but not every value is valid:" }</p>
                },
                Err(e) => html! {
                    <>
                        <p class="qp-live-error"><code>{ e.to_string() }</code></p>
                        <p>{ e.explanation() }</p>
                        if !values_ok {
                            <p class="qp-live-verdict">{ "Some values are not valid either:" }</p>
                        }
                    </>
                },
            } }
            { left_out.unwrap_or_default() }
        </div>
    }
}

/// The C source for what is ticked (values that do not read are left out until fixed).
#[function_component]
fn CCall(props: &PageProps) -> Html {
    let page = &props.page;
    let call = build_call(page.ticked, |attr| page.field_text(attr));
    let mut source = c_call(&call.attrs);
    if !call.left_out.is_empty() {
        let names: Vec<&str> = call.left_out.iter().map(|l| l.attr.name()).collect();
        source = format!(
            "/* left out until their values read: {} */\n{source}",
            names.join(", ")
        );
    }
    html! {
        <div class="qp-c">
            <h3>{ "The same call in C" }</h3>
            <pre><code class="qp-c-source">{ source }</code></pre>
        </div>
    }
}

fn result_view(result: &ModifyResult) -> Html {
    match result {
        ModifyResult::Done(outcome) => html! {
            <div class="qp-result ok">
                <p><strong>{ format!("ibv_modify_qp() returned 0: {} → {}", outcome.before, outcome.after) }</strong></p>
                if !outcome.notes.is_empty() {
                    <ul>{ for outcome.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                }
                if !outcome.completions.is_empty() {
                    <super::events::Completions completions={outcome.completions.clone()} />
                }
            </div>
        },
        ModifyResult::Refused(error) => html! {
            <div class="qp-result error" role="alert">
                <p><strong>{ "ibv_modify_qp() returned -1" }</strong></p>
                <p><code class="qp-error-text">{ error.to_string() }</code></p>
                if let QpError::Modify(m) = error {
                    <p class="qp-explanation">{ m.explanation() }</p>
                }
            </div>
        },
        ModifyResult::FieldsInvalid(errors) => html! {
            <div class="qp-result error" role="alert">
                <p><strong>{ "Not called: fix the values marked above first." }</strong></p>
                <ul>{ for errors.iter().map(|e| html! { <li>{ e.to_string() }</li> }) }</ul>
            </div>
        },
    }
}
