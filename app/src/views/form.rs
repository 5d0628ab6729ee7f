//! The one form toolkit every view builds its inputs from:
//! - [`FieldDef`], a row of a view's field table: the key (the URL query key and the name
//!   the engine's [`engine::FieldError`] gives), label, unit, help and how the text reads;
//! - [`Form`], the texts as typed and the refusal located under each box;
//! - [`TextField`], the one labelled text box, with the typing behaviour of the lab: every
//!   keystroke is kept as typed (nothing is ever replaced), and where a view runs something
//!   costly the value is committed once the box rests for [`COMMIT_MS`], on Enter, or on
//!   leaving it; [`ChoiceField`] frames a select or checkbox the same way;
//! - [`whole`] (decimal or `0x` hex, with a bound), [`decimal`] and [`ratio`], the readers
//!   of typed numbers.
//!
//! One CSS block (`.form-field` in `assets/style.css`) styles them all; a view lays the
//! fields out in its own grid.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo::timers::callback::Timeout;
use yew::prelude::*;

/// How long a box must rest before its text is committed, ms.
pub const COMMIT_MS: u32 = 400;

/// How a field's text reads, which also picks the keyboard a phone shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// A count: digits only.
    Whole,
    /// A decimal number.
    Decimal,
    /// A ratio as its unit writes it, `down:up` ([`ratio`]).
    Ratio,
    /// Anything else: a list, an address, a size with its suffix.
    Text,
}

impl Reads {
    /// The `inputmode` attribute: a decimal pad has no `:` or letters.
    pub fn inputmode(self) -> &'static str {
        match self {
            Reads::Whole => "numeric",
            Reads::Decimal => "decimal",
            Reads::Ratio | Reads::Text => "text",
        }
    }
}

/// One box of a view's field table.
#[derive(Debug, PartialEq)]
pub struct FieldDef {
    /// The URL query key (without a view's prefix), the element id's tail, and the field
    /// the engine's [`engine::FieldError`] names.
    pub key: &'static str,
    pub label: &'static str,
    /// Shown after the box; empty for none.
    pub unit: &'static str,
    /// One line under the box: what the value means or which values it takes.
    pub help: &'static str,
    pub reads: Reads,
}

impl FieldDef {
    /// The first of `defs` whose key is `key`.
    pub fn find<'a>(defs: &'a [FieldDef], key: &str) -> Option<&'a FieldDef> {
        defs.iter().find(|d| d.key == key)
    }
}

/// A form's state: each box's text as typed, and for a box whose text did not read or
/// whose value the engine refused, why, located by the field's key.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Form {
    texts: Vec<(&'static str, String)>,
    refusals: Vec<(&'static str, String)>,
}

impl Form {
    /// A form holding `texts`, in form order.
    pub fn new(texts: impl IntoIterator<Item = (&'static str, String)>) -> Form {
        Form {
            texts: texts.into_iter().collect(),
            refusals: Vec::new(),
        }
    }

    /// Every box's (key, text), in form order.
    pub fn texts(&self) -> &[(&'static str, String)] {
        &self.texts
    }

    /// A box's text; empty for a key the form does not hold.
    pub fn text(&self, key: &str) -> &str {
        self.typed(key).unwrap_or("")
    }

    /// The text typed into `key`, if the form holds one: a form may hold only the boxes
    /// typed into, the others showing their live values.
    pub fn typed(&self, key: &str) -> Option<&str> {
        self.texts
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, t)| t.as_str())
    }

    /// Forgets what was typed into `key` (and its refusal): the box shows its live value.
    pub fn forget(&mut self, key: &str) {
        self.texts.retain(|(k, _)| *k != key);
        self.accept(key);
    }

    /// Forgets every text and refusal.
    pub fn clear(&mut self) {
        self.texts.clear();
        self.refusals.clear();
    }

    /// Keeps `text` as typed in the box `key`, adding the box if the form lacks it.
    pub fn set(&mut self, key: &'static str, text: String) {
        match self.texts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, t)) => *t = text,
            None => self.texts.push((key, text)),
        }
    }

    /// Why the box `key` holds no value in use, if it does not.
    pub fn refusal(&self, key: &str) -> Option<&str> {
        self.refusals
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, why)| why.as_str())
    }

    /// Puts `why` under the box `key`, replacing what was there.
    pub fn refuse(&mut self, key: &'static str, why: String) {
        match self.refusals.iter_mut().find(|(k, _)| *k == key) {
            Some((_, w)) => *w = why,
            None => self.refusals.push((key, why)),
        }
    }

    /// Puts the engine's refusal under the box it names: the box whose key is the error's
    /// field, or the start of it (`dscp_priority[1]` lands on `dscp_priority`). Returns
    /// the key it landed on; `None` when no box of this form is named.
    pub fn place(&mut self, error: &engine::FieldError) -> Option<&'static str> {
        let field = error.field.as_str();
        let key = (self.texts.iter().map(|(k, _)| *k)).find(|k| {
            field == *k
                || field
                    .strip_prefix(k)
                    .is_some_and(|rest| rest.starts_with(['[', '.']))
        })?;
        self.refuse(key, error.to_string());
        Some(key)
    }

    /// Takes back the refusal under `key`, if any.
    pub fn accept(&mut self, key: &str) {
        self.refusals.retain(|(k, _)| *k != key);
    }

    pub fn accept_all(&mut self) {
        self.refusals.clear();
    }

    /// Whether any box is refused.
    pub fn is_refused(&self) -> bool {
        !self.refusals.is_empty()
    }

    /// The refusals, in the order they were made.
    pub fn refusals(&self) -> &[(&'static str, String)] {
        &self.refusals
    }

    /// Takes the URL query's `PREFIXkey=text` pairs for the boxes this form holds.
    pub fn read_query(&mut self, prefix: &str, pairs: &[(String, String)]) {
        for (name, text) in pairs {
            let Some(key) = name.strip_prefix(prefix) else {
                continue;
            };
            if let Some((_, t)) = self.texts.iter_mut().find(|(k, _)| *k == key) {
                *t = text.clone();
            }
        }
    }

    /// `PREFIXkey=text` for each box whose text differs from `base`'s, for the URL.
    pub fn changed(&self, prefix: &str, base: &Form) -> Vec<(String, String)> {
        self.texts
            .iter()
            .filter(|(k, t)| base.text(k) != t)
            .map(|(k, t)| (format!("{prefix}{k}"), t.clone()))
            .collect()
    }
}

/// A whole number in decimal or `0x` hex ([`engine::number::parse_whole`]), at most `max`.
pub fn whole(text: &str, max: u64) -> Result<u64, String> {
    if text.trim().is_empty() {
        return Err("enter a number".to_string());
    }
    match engine::number::parse_whole(text) {
        Some(v) if v <= max => Ok(v),
        Some(_) => Err(format!("at most {max} ({max:#x})")),
        None => Err(format!(
            "{:?} is not a decimal or 0x-hex number",
            text.trim()
        )),
    }
}

/// A finite decimal number, or what the text is not.
pub fn decimal(text: &str) -> Result<f64, &'static str> {
    let v: f64 = text.trim().parse().map_err(|_| "is not a number")?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err("is not a finite number")
    }
}

/// `down:up` as down / up (`3:1`, `1.5:1`, `16:15`, spaces allowed around either side),
/// or one number as that number to 1; the refusal names the side that fails. Whether the
/// ratio is in range is the engine's to say.
pub fn ratio(t: &str) -> Result<f64, String> {
    let t = t.trim();
    let sides: Vec<&str> = t.split(':').map(str::trim).collect();
    let side = |name: &str, text: &str| {
        if text.is_empty() {
            return Err(format!(
                "the {name} side of {t:?} is empty: write down:up, such as 3:1"
            ));
        }
        decimal(text).map_err(|why| format!("the {name} side of {t:?}, {text:?}, {why}"))
    };
    match sides.as_slice() {
        [one] => decimal(one).map_err(|why| {
            format!("{t:?} {why}: write down:up, such as 3:1, or one number, such as 3")
        }),
        [down, up] => {
            let (down, up) = (side("down", down)?, side("up", up)?);
            if up <= 0.0 {
                return Err(format!(
                    "the up side of {t:?} must be above 0: a leaf needs an uplink"
                ));
            }
            Ok(down / up)
        }
        _ => Err(format!(
            "{t:?} has {} parts: write down:up, such as 3:1, or one number, such as 3",
            sides.len()
        )),
    }
}

/// A refusal as a box shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The engine's (or the reader's) message, naming the field.
    pub message: String,
    /// Which values are accepted and why, where the view can say it.
    pub allowed: Option<String>,
    /// The value still in use, with its unit, where a run keeps the last valid one.
    pub kept: Option<String>,
}

impl Refusal {
    /// A refusal that is only its message.
    pub fn plain(message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            allowed: None,
            kept: None,
        }
    }
}

/// The ids a field's box, help, note and refusal go by: `{id}`, `{id}-help`, `{id}-note`,
/// `{id}-error`.
fn described_by(id: &str, help: bool, note: bool, refused: bool) -> Option<String> {
    let parts: Vec<String> = [
        help.then(|| format!("{id}-help")),
        note.then(|| format!("{id}-note")),
        refused.then(|| format!("{id}-error")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// The refusal under a box, announced when it appears.
fn refusal_note(id: &str, refusal: Option<&Refusal>) -> Html {
    let Some(r) = refusal else {
        return html! {};
    };
    html! {
        <div class="form-error" id={format!("{id}-error")} role="alert">
            <p>{ r.message.clone() }</p>
            if let Some(allowed) = &r.allowed {
                <p class="form-allowed">{ format!("Allowed: {allowed}.") }</p>
            }
            if let Some(kept) = &r.kept {
                <p class="form-kept">{ format!("The run keeps the last valid value, {kept}.") }</p>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct TextFieldProps {
    pub def: &'static FieldDef,
    /// The box's element id; its help and refusal take `-help` and `-error` after it.
    pub id: AttrValue,
    /// What the box shows: the text as typed.
    pub text: AttrValue,
    #[prop_or_default]
    pub refusal: Option<Refusal>,
    /// A label that depends on the page, in place of the table's.
    #[prop_or_default]
    pub label: Option<AttrValue>,
    /// A box shown but not typed into (a value the page sets itself).
    #[prop_or_default]
    pub readonly: bool,
    /// Help that depends on the page, in place of the table's.
    #[prop_or_default]
    pub help: Option<AttrValue>,
    /// What an empty box means (`any`).
    #[prop_or_default]
    pub placeholder: Option<AttrValue>,
    /// A name shown beside the label (the mlx5 parameter a box sets).
    #[prop_or_default]
    pub aside: Option<AttrValue>,
    /// What the rest of the form means for this value, under the help.
    #[prop_or_default]
    pub note: Option<AttrValue>,
    /// Every keystroke: `(key, text)`.
    pub on_type: Callback<(&'static str, String)>,
    /// A committed value, `(key, text)`: after a pause, on Enter, on leaving the box. A
    /// view whose work is cheap reads every keystroke and leaves this out.
    #[prop_or_default]
    pub on_commit: Option<Callback<(&'static str, String)>>,
    /// A control before the box in its row (a slider).
    #[prop_or_default]
    pub leading: Html,
    /// A control after the box (a unit picker).
    #[prop_or_default]
    pub trailing: Html,
}

/// A box's draft: the timer that will commit it, and whether it still waits (a fired
/// timer is kept until the next keystroke replaces it, never dropped from inside its own
/// callback).
#[derive(Default)]
struct Draft {
    timer: RefCell<Option<Timeout>>,
    waiting: Cell<bool>,
}

impl Draft {
    /// Commits `text` now, dropping any commit still waiting.
    fn commit(
        &self,
        on_commit: &Callback<(&'static str, String)>,
        key: &'static str,
        text: String,
    ) {
        if let Some(timer) = self.timer.borrow_mut().take() {
            timer.cancel();
        }
        self.waiting.set(false);
        on_commit.emit((key, text));
    }
}

/// The labelled text box: label (and aside), the box and its unit, help, a note, and the
/// refusal tied to the box by `aria-describedby`.
#[function_component]
pub fn TextField(props: &TextFieldProps) -> Html {
    let draft: Rc<Draft> = use_memo((), |_| Draft::default());
    let def = props.def;
    let key = def.key;
    let oninput = {
        let (draft, on_type, on_commit) = (
            draft.clone(),
            props.on_type.clone(),
            props.on_commit.clone(),
        );
        move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let text = input.value();
            on_type.emit((key, text.clone()));
            if let Some(on_commit) = on_commit.clone() {
                draft.waiting.set(true);
                let waiting = draft.clone();
                // Replacing the timer cancels the one it held.
                *draft.timer.borrow_mut() = Some(Timeout::new(COMMIT_MS, move || {
                    waiting.waiting.set(false);
                    on_commit.emit((key, text));
                }));
            }
        }
    };
    let onkeydown = {
        let (draft, on_commit) = (draft.clone(), props.on_commit.clone());
        move |e: KeyboardEvent| {
            if let Some(on_commit) = on_commit.as_ref().filter(|_| e.key() == "Enter") {
                if draft.waiting.get() {
                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                    draft.commit(on_commit, key, input.value());
                }
            }
        }
    };
    // Leaving a box one edited commits what it holds.
    let onchange = {
        let on_commit = props.on_commit.clone();
        move |e: Event| {
            if let Some(on_commit) = &on_commit {
                let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                draft.commit(on_commit, key, input.value());
            }
        }
    };
    let id = props.id.as_str();
    let refused = props.refusal.is_some();
    let help = props.help.clone().unwrap_or(AttrValue::Static(def.help));
    let has_help = !help.is_empty();
    let label = props.label.clone().unwrap_or(AttrValue::Static(def.label));
    html! {
        <div class={classes!("form-field", refused.then_some("form-field-invalid"))} data-key={key}>
            <label for={id.to_string()} title={help.clone()}>
                { label }
                if let Some(aside) = &props.aside {
                    <code class="form-aside">{ aside.clone() }</code>
                }
            </label>
            <span class="form-row">
                { props.leading.clone() }
                <input
                    id={id.to_string()}
                    type="text"
                    class="form-text"
                    inputmode={def.reads.inputmode()}
                    autocomplete="off"
                    spellcheck="false"
                    value={props.text.clone()}
                    placeholder={props.placeholder.clone()}
                    readonly={props.readonly}
                    aria-invalid={refused.to_string()}
                    aria-describedby={described_by(id, has_help, props.note.is_some(), refused)}
                    {oninput}
                    {onkeydown}
                    {onchange}
                />
                if !def.unit.is_empty() {
                    <span class="form-unit">{ def.unit }</span>
                }
                { props.trailing.clone() }
            </span>
            if has_help {
                <p class="form-help" id={format!("{id}-help")}>{ help }</p>
            }
            if let Some(note) = &props.note {
                <p class="form-note" id={format!("{id}-note")}>{ note.clone() }</p>
            }
            { refusal_note(id, props.refusal.as_ref()) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ChoiceFieldProps {
    /// The key the field goes by in the form and the engine's errors.
    pub key_name: &'static str,
    /// The id of the control inside, which the label names.
    pub id: AttrValue,
    pub label: AttrValue,
    #[prop_or_default]
    pub help: Option<AttrValue>,
    #[prop_or_default]
    pub refusal: Option<Refusal>,
    /// The control: a select, or a checkbox (then the label follows it).
    pub children: Html,
    /// A checkbox: the control first, its label after it.
    #[prop_or_default]
    pub check: bool,
}

/// A select or checkbox framed like a [`TextField`]: label, control, help and refusal.
#[function_component]
pub fn ChoiceField(props: &ChoiceFieldProps) -> Html {
    let id = props.id.as_str();
    let refused = props.refusal.is_some();
    let label = html! { <label for={id.to_string()}>{ props.label.clone() }</label> };
    html! {
        <div class={classes!("form-field", props.check.then_some("form-check"),
                refused.then_some("form-field-invalid"))} data-key={props.key_name}>
            if props.check {
                { props.children.clone() }{ label }
            } else {
                { label }{ props.children.clone() }
            }
            if let Some(help) = &props.help {
                <p class="form-help" id={format!("{id}-help")}>{ help.clone() }</p>
            }
            { refusal_note(id, props.refusal.as_ref()) }
        </div>
    }
}

/// The `aria-describedby` of a control inside a [`ChoiceField`].
pub fn choice_described_by(id: &str, help: bool, refused: bool) -> Option<String> {
    described_by(id, help, false, refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_take_hex_and_refuse_overflow() {
        assert_eq!(whole("0x11", 255), Ok(17));
        assert_eq!(whole(" 1_000 ", 5000), Ok(1000));
        assert!(whole("256", 255).is_err());
        assert!(whole("", 255).is_err());
    }

    #[test]
    fn a_form_keeps_texts_as_typed_and_refusals_by_key() {
        let mut form = Form::new([("nodes", "4".to_string()), ("gpus", "8".to_string())]);
        let base = form.clone();
        form.set("nodes", "4x".into());
        form.refuse("nodes", "`nodes`: \"4x\" is not a number".into());
        assert_eq!(form.text("nodes"), "4x");
        assert_eq!(form.text("absent"), "");
        assert!(form.refusal("nodes").is_some() && form.refusal("gpus").is_none());
        assert_eq!(
            form.changed("t-", &base),
            vec![("t-nodes".to_string(), "4x".to_string())]
        );
        form.accept("nodes");
        assert!(!form.is_refused());
        form.read_query(
            "t-",
            &[
                ("t-gpus".into(), "4".into()),
                ("t-other".into(), "x".into()),
                ("gpus".into(), "2".into()),
            ],
        );
        assert_eq!(form.text("gpus"), "4");
        assert_eq!(form.text("other"), "", "a key the form lacks is not added");
    }

    #[test]
    fn an_engine_refusal_lands_under_the_box_it_names() {
        let mut form = Form::new([("dscp", "1".into()), ("dscp_priority", "26:3".into())]);
        let error = engine::FieldError::new("dscp_priority[1]", "DSCP 64 is above 63");
        assert_eq!(form.place(&error), Some("dscp_priority"));
        assert_eq!(
            form.refusal("dscp_priority"),
            Some(error.to_string().as_str())
        );
        assert_eq!(form.place(&engine::FieldError::new("dscpx", "?")), None);
        assert!(form.refusal("dscp").is_none());
    }

    #[test]
    fn numbers_read_as_typed() {
        assert_eq!(decimal(" 1.5 "), Ok(1.5));
        assert_eq!(decimal("1e400"), Err("is not a finite number"));
        assert_eq!(decimal("fast"), Err("is not a number"));
        assert_eq!(
            described_by("a", true, false, true).as_deref(),
            Some("a-help a-error")
        );
        assert_eq!(
            described_by("a", false, true, false).as_deref(),
            Some("a-note")
        );
        assert_eq!(described_by("a", false, false, false), None);
    }
}
