//! Layers as an expandable tree beside a hex dump, linked both ways as in Wireshark:
//! a field highlights its bytes and a byte highlights its field. The two panes share one
//! handler per kind of event, which finds the field from the element's `data-offset` (and
//! `data-field`), so no byte or field has closures of its own.

use std::rc::Rc;

use engine::capture::exercise::Inspection;
use engine::capture::hex::{format_hex, parse_hex};
use engine::capture::listing::{row_from, IcrcStatus};
use engine::capture::{dissect, DecodedFrame, Field, FieldValue, LinkType};
use engine::wire::Header;
use wasm_bindgen::JsCast;
use web_sys::{Element, EventTarget};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DissectorProps {
    pub bytes: Rc<Vec<u8>>,
    pub link: LinkType,
    /// When set, the hex can be edited and applied; the new bytes come here.
    #[prop_or_default]
    pub on_edit: Option<Callback<Vec<u8>>>,
    /// Prefix for element ids, so two dissectors can share a page.
    pub id: AttrValue,
    /// Told the frame and the picked field whenever either changes (the "try this" checks).
    #[prop_or_default]
    pub on_inspect: Option<Callback<Inspection>>,
}

/// A field's bytes, and the layer that holds it.
#[derive(Clone, Copy, PartialEq)]
struct Mark {
    layer: usize,
    name: &'static str,
    offset: usize,
    len: usize,
}

impl Mark {
    fn of(layer: usize, f: &Field) -> Mark {
        let (name, offset, len) = (f.name, f.offset, f.len);
        Mark {
            layer,
            name,
            offset,
            len,
        }
    }
    fn covers(&self, at: usize) -> bool {
        at >= self.offset && at < self.offset + self.len
    }
    fn is(&self, f: &Field) -> bool {
        self.name == f.name && self.offset == f.offset
    }
    /// "name: bytes a–b (n bytes)".
    fn span(&self) -> String {
        let last = self.offset + self.len.max(1) - 1;
        format!(
            "{}: bytes {}–{last} ({} bytes)",
            self.name, self.offset, self.len
        )
    }
}

/// The narrowest field holding byte `at`, as Wireshark selects on a hex click.
fn field_at(d: &DecodedFrame, at: usize) -> Option<Mark> {
    let fields = d.layers.iter().enumerate();
    let holding = fields.flat_map(|(i, l)| l.fields.iter().map(move |f| (i, f)));
    let (i, f) = holding
        .filter(|(_, f)| at >= f.offset && at < f.offset + f.len)
        .min_by_key(|(_, f)| f.len)?;
    Some(Mark::of(i, f))
}

/// Where the keyboard's byte cursor goes from `at` on `key`, in a frame of `len` bytes
/// shown 16 to a row; `None` for a key that does not move it.
fn cursor_step(key: &str, at: usize, len: usize) -> Option<usize> {
    let last = len.checked_sub(1)?;
    let next = match key {
        "ArrowLeft" => at.saturating_sub(1),
        "ArrowRight" => at + 1,
        "ArrowUp" => at.saturating_sub(16),
        "ArrowDown" => at + 16,
        "Home" => 0,
        "End" => last,
        _ => return None,
    };
    Some(next.min(last))
}

fn layer_of(d: &DecodedFrame, at: usize) -> Option<usize> {
    d.layers
        .iter()
        .rposition(|l| at >= l.offset && at < l.offset + l.len)
}

/// What the learner has opened, picked and pointed at, and the hex being edited.
#[derive(Clone, PartialEq, Default)]
struct Panes {
    expanded: Vec<usize>,
    selected: Option<Mark>,
    hovered: Option<Mark>,
    /// The byte the keyboard is on while the hex pane has focus.
    cursor: Option<usize>,
    draft: String,
    hex_error: Option<String>,
}

enum PaneAction {
    Toggle(usize),
    /// A field picked, in the tree or by a byte: its layer opens too.
    Pick(Mark),
    /// The field pointed at or focused, shown as hovered.
    Point(Option<Mark>),
    /// The keyboard's byte cursor moved (or left the pane) and shows its field.
    Cursor(Option<usize>, Option<Mark>),
    Draft(String),
    /// Why the draft was not applied, or `None` when it was.
    HexError(Option<String>),
    /// New bytes: the draft becomes theirs and nothing is picked.
    Bytes(String),
}

impl Reducible for Panes {
    type Action = PaneAction;
    fn reduce(self: Rc<Self>, action: PaneAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            PaneAction::Toggle(layer) => match next.expanded.iter().position(|&l| l == layer) {
                Some(p) => {
                    next.expanded.remove(p);
                }
                None => next.expanded.push(layer),
            },
            PaneAction::Pick(mark) => {
                if !next.expanded.contains(&mark.layer) {
                    next.expanded.push(mark.layer);
                }
                next.selected = Some(mark);
            }
            PaneAction::Point(mark) => next.hovered = mark,
            PaneAction::Cursor(at, mark) => (next.cursor, next.hovered) = (at, mark),
            PaneAction::Draft(text) => next.draft = text,
            PaneAction::HexError(e) => next.hex_error = e,
            PaneAction::Bytes(draft) => {
                (next.draft, next.hex_error, next.selected) = (draft, None, None)
            }
        }
        // Pointing within one field repeats its action: nothing to draw again.
        if next == *self {
            self
        } else {
            Rc::new(next)
        }
    }
}

/// The field or byte element an event happened in, if any.
fn marked(target: Option<EventTarget>) -> Option<Element> {
    target?
        .dyn_into::<Element>()
        .ok()?
        .closest("[data-offset]")
        .ok()?
}

/// The field of a field's button, or the narrowest one holding a hex byte.
fn field_of(d: &DecodedFrame, el: &Element) -> Option<Mark> {
    let at: usize = el.get_attribute("data-offset")?.parse().ok()?;
    let Some(name) = el.get_attribute("data-field") else {
        return field_at(d, at);
    };
    let mut layers = d.layers.iter().enumerate();
    layers.find_map(|(i, l)| {
        l.fields
            .iter()
            .find(|f| f.name == name && f.offset == at)
            .map(|f| Mark::of(i, f))
    })
}

/// A click picks a field (in the tree or by a byte) or opens or closes a layer.
fn click(d: &DecodedFrame, _: &Panes, e: &Event) -> Option<PaneAction> {
    if let Some(el) = marked(e.target()) {
        return field_of(d, &el).map(PaneAction::Pick);
    }
    let toggle = e
        .target()?
        .dyn_into::<Element>()
        .ok()?
        .closest(".layer-toggle")
        .ok()??;
    Some(PaneAction::Toggle(
        toggle.get_attribute("data-index")?.parse().ok()?,
    ))
}

/// Pointing at or focusing a field or byte shows its field's bytes.
fn enter(d: &DecodedFrame, _: &Panes, e: &Event) -> Option<PaneAction> {
    marked(e.target()).map(|el| PaneAction::Point(field_of(d, &el)))
}

/// Leaving a field or byte for anything but its own inside stops showing it.
fn leave(_: &DecodedFrame, _: &Panes, e: &Event) -> Option<PaneAction> {
    let from = marked(e.target())?;
    let related = match e.dyn_ref::<MouseEvent>() {
        Some(m) => m.related_target(),
        None => e.dyn_ref::<FocusEvent>()?.related_target(),
    };
    (marked(related).as_ref() != Some(&from)).then_some(PaneAction::Point(None))
}

/// What an event in the panes does, given the frame and what the panes show.
type Handler = fn(&DecodedFrame, &Panes, &Event) -> Option<PaneAction>;

/// One handler for the panes' events of a kind.
fn delegate<E: AsRef<Event> + 'static>(
    frame: &Rc<DecodedFrame>,
    panes: &UseReducerHandle<Panes>,
    act: Handler,
) -> Callback<E> {
    let (frame, panes) = (frame.clone(), panes.clone());
    Callback::from(move |e: E| {
        if let Some(action) = act(&frame, &panes, e.as_ref()) {
            panes.dispatch(action);
        }
    })
}

/// Focus on the hex puts the keyboard's byte cursor on the picked field, or on byte 0.
fn focus_hex(d: &DecodedFrame, p: &Panes, _: &Event) -> Option<PaneAction> {
    let at = p
        .selected
        .map_or(0, |m| m.offset)
        .min(d.len.checked_sub(1)?);
    Some(PaneAction::Cursor(Some(at), field_at(d, at)))
}

fn blur_hex(_: &DecodedFrame, _: &Panes, _: &Event) -> Option<PaneAction> {
    Some(PaneAction::Cursor(None, None))
}

/// The arrows move the byte cursor and show its field as pointing does; Enter picks it.
fn key_hex(d: &DecodedFrame, p: &Panes, e: &Event) -> Option<PaneAction> {
    let (e, at) = (e.dyn_ref::<KeyboardEvent>()?, p.cursor?);
    if e.key() == "Enter" || e.key() == " " {
        e.prevent_default();
        return field_at(d, at).map(PaneAction::Pick);
    }
    let next = cursor_step(&e.key(), at, d.len)?;
    // The arrows would scroll the pane or the page as well.
    e.prevent_default();
    Some(PaneAction::Cursor(Some(next), field_at(d, next)))
}

/// The status line under the hex: the cursor's byte, else the picked or pointed field.
fn status(bytes: &[u8], frame: &DecodedFrame, panes: &Panes) -> String {
    let on_byte = panes.cursor.and_then(|at| Some((at, bytes.get(at)?)));
    match (on_byte, panes.selected.or(panes.hovered)) {
        (Some((at, byte)), _) => match field_at(frame, at) {
            Some(m) => format!("Byte {at} = {byte:#04x}, in {}. Enter picks it.", m.span()),
            None => format!("Byte {at} = {byte:#04x}, in no decoded field."),
        },
        (None, Some(m)) => m.span(),
        (None, None) => "Select a field or a byte to link the two panes.".to_string(),
    }
}

#[function_component]
pub fn Dissector(props: &DissectorProps) -> Html {
    let link = props.link;
    let frame = use_memo(props.bytes.clone(), move |b| dissect(b, link));
    let panes = use_reducer(|| Panes {
        draft: format_hex(&props.bytes),
        ..Panes::default()
    });
    let dispatch = panes.dispatcher();
    {
        let dispatch = dispatch.clone();
        use_effect_with(props.bytes.clone(), move |b| {
            dispatch.dispatch(PaneAction::Bytes(format_hex(b)))
        });
    }
    {
        let on_inspect = props.on_inspect.clone();
        let picked = panes.selected.map(|m| m.name.to_string());
        use_effect_with((frame.clone(), picked), move |(frame, picked)| {
            if let Some(on_inspect) = on_inspect {
                let (frame, picked) = ((**frame).clone(), picked.clone());
                on_inspect.emit(Inspection { frame, picked });
            }
        });
    }
    let keys_id = format!("{}-hex-keys", props.id);
    let (selected, hovered, cursor) = (panes.selected, panes.hovered, panes.cursor);
    html! {
        <div class="dissector">
            <IcrcLine frame={frame.clone()} />
            if let Some(e) = &frame.error {
                <p class="decode-error" role="alert">{ format!("Decoding stopped: {e}") }</p>
            }
            { for frame.warnings.iter().filter(|w| w.header != Header::Icrc).map(|w| html! {
                <p class="decode-warning">{ w.to_string() }</p>
            }) }
            <div class="dissector-panes" onclick={delegate::<MouseEvent>(&frame, &panes, click)}
                onmouseover={delegate::<MouseEvent>(&frame, &panes, enter)}
                onmouseout={delegate::<MouseEvent>(&frame, &panes, leave)}
                onfocusin={delegate::<FocusEvent>(&frame, &panes, enter)}
                onfocusout={delegate::<FocusEvent>(&frame, &panes, leave)}>
                <LayerTree frame={frame.clone()} expanded={panes.expanded.clone()} {selected} {hovered} />
                <div class="hex-pane" tabindex="0" aria-describedby={keys_id.clone()}
                    onfocus={delegate::<FocusEvent>(&frame, &panes, focus_hex)}
                    onblur={delegate::<FocusEvent>(&frame, &panes, blur_hex)}
                    onkeydown={delegate::<KeyboardEvent>(&frame, &panes, key_hex)}>
                    <HexDump bytes={props.bytes.clone()} frame={frame.clone()} {selected} {hovered} {cursor} />
                    <p class="hex-status" aria-live="polite">{ status(&props.bytes, &frame, &panes) }</p>
                    <p class="hex-keys" id={keys_id}>
                        { "With the bytes focused: arrow keys move byte by byte, Home and End to the ends, Enter picks the byte's field." }
                    </p>
                </div>
            </div>
            if let Some(on_edit) = props.on_edit.clone() {
                <HexEditor id={props.id.clone()} draft={panes.draft.clone()} error={panes.hex_error.clone()}
                    {on_edit} on={dispatch.to_callback()} />
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct FrameProps {
    frame: Rc<DecodedFrame>,
}

/// Whether the ICRC holds, and what the dissector says of it.
#[function_component]
fn IcrcLine(props: &FrameProps) -> Html {
    let f = &props.frame;
    let meaning = f
        .field("infiniband.invariant.crc")
        .map(|f| format!(": {}", f.meaning));
    let (class, ok, mark, text) = match row_from(0, 0, f).icrc {
        IcrcStatus::Valid => ("icrc-ok", "true", "✓ ", "ICRC valid"),
        IcrcStatus::Invalid => ("icrc-bad", "false", "✗ ", "ICRC invalid"),
        IcrcStatus::Absent => {
            return html! { <p class="icrc-status" data-ok="none">{ "No ICRC: not an InfiniBand transport packet" }</p> }
        }
    };
    html! {
        <p class={classes!("icrc-status", class)} data-ok={ok}>
            <span aria-hidden="true">{ mark }</span>{ text }{ meaning.unwrap_or_default() }
        </p>
    }
}

#[derive(Properties, PartialEq)]
struct TreeProps {
    frame: Rc<DecodedFrame>,
    expanded: Vec<usize>,
    selected: Option<Mark>,
    hovered: Option<Mark>,
}

/// The layers, each a toggle over its fields; a field is a button carrying its byte range.
#[function_component]
fn LayerTree(props: &TreeProps) -> Html {
    let field = |f: &Field| {
        let sel = props.selected.is_some_and(|m| m.is(f));
        let hov = props.hovered.is_some_and(|m| m.is(f));
        let value = match &f.value {
            FieldValue::Uint(v) if f.len >= 2 || *v > 9 => format!("{v} ({v:#x})"),
            FieldValue::Uint(v) => v.to_string(),
            FieldValue::Bool(b) => if *b { "set" } else { "not set" }.to_string(),
            FieldValue::Text(t) => t.clone(),
        };
        html! {
            <li>
                <button type="button" class={classes!("field", sel.then_some("sel"), hov.then_some("hov"))}
                    data-field={f.name} data-offset={f.offset.to_string()} data-len={f.len.to_string()}
                    aria-pressed={sel.to_string()}>
                    <span class="field-label">{ f.label }</span>{ ": " }
                    <span class="field-value">{ value }</span>
                    if !f.meaning.is_empty() { <span class="field-meaning">{ format!(" — {}", f.meaning) }</span> }
                    <span class="field-name">{ format!(" {} · bytes {}–{}", f.name, f.offset, f.offset + f.len.max(1) - 1) }</span>
                </button>
            </li>
        }
    };
    let layers = props.frame.layers.iter().enumerate().map(|(i, layer)| {
        let open = props.expanded.contains(&i);
        html! {
            <li class={classes!("layer", format!("band-{}", i % 6))}>
                <button type="button" class="layer-toggle" aria-expanded={open.to_string()}
                    data-layer={layer.name} data-index={i.to_string()}>
                    <span aria-hidden="true">{ if open { "▾ " } else { "▸ " } }</span>
                    { format!("{} ({} bytes at {})", layer.title, layer.len, layer.offset) }
                </button>
                if open { <ul class="fields">{ for layer.fields.iter().map(field) }</ul> }
            </li>
        }
    });
    html! { <ul class="layer-tree" aria-label="Decoded layers">{ for layers }</ul> }
}

#[derive(Properties, PartialEq)]
struct HexProps {
    bytes: Rc<Vec<u8>>,
    frame: Rc<DecodedFrame>,
    selected: Option<Mark>,
    hovered: Option<Mark>,
    cursor: Option<usize>,
}

/// Sixteen bytes to a row, each coloured by its layer, with the rows' ASCII.
#[function_component]
fn HexDump(props: &HexProps) -> Html {
    let byte = |at: usize, b: &u8| {
        let band = layer_of(&props.frame, at).map(|l| format!("band-{}", l % 6));
        let sel = props
            .selected
            .is_some_and(|m| m.covers(at))
            .then_some("sel");
        let hov = props.hovered.is_some_and(|m| m.covers(at)).then_some("hov");
        let here = (props.cursor == Some(at)).then_some("cursor");
        html! {
            <span class={classes!("hex-byte", band, sel, hov, here)} data-offset={at.to_string()}>
                { format!("{b:02x}") }
            </span>
        }
    };
    let rows = props.bytes.chunks(16).enumerate().map(|(r, chunk)| {
        let ascii: String = chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }).collect();
        html! {
            <div class="hex-row">
                <span class="hex-offset">{ format!("{:04x}", r * 16) }</span>
                <span class="hex-cells">{ for chunk.iter().enumerate().map(|(c, b)| byte(r * 16 + c, b)) }</span>
                <span class="hex-ascii" aria-hidden="true">{ ascii }</span>
            </div>
        }
    });
    let label = format!("Frame bytes, {} in all", props.bytes.len());
    html! { <div class="hex-dump" aria-label={label}>{ for rows }</div> }
}

#[derive(Properties, PartialEq)]
struct EditorProps {
    id: AttrValue,
    draft: String,
    error: Option<String>,
    /// Told the bytes when they are applied.
    on_edit: Callback<Vec<u8>>,
    on: Callback<PaneAction>,
}

/// The draft's bytes, or why they are not applied.
fn applied(draft: &str) -> Result<Vec<u8>, String> {
    match parse_hex(draft) {
        Ok(b) if b.is_empty() => Err("the frame needs at least one byte".to_string()),
        Ok(b) => Ok(b),
        Err(e) => Err(e.to_string()),
    }
}

/// The frame's bytes as editable hex, applied on request.
#[function_component]
fn HexEditor(props: &EditorProps) -> Html {
    let area_id = format!("{}-hex-edit", props.id);
    let oninput = props.on.reform(|e: InputEvent| {
        PaneAction::Draft(
            e.target_unchecked_into::<web_sys::HtmlTextAreaElement>()
                .value(),
        )
    });
    let apply = {
        let (draft, on, on_edit) = (props.draft.clone(), props.on.clone(), props.on_edit.clone());
        Callback::from(move |_: MouseEvent| {
            let bytes = applied(&draft);
            on.emit(PaneAction::HexError(bytes.as_ref().err().cloned()));
            bytes.into_iter().for_each(|b| on_edit.emit(b));
        })
    };
    html! {
        <div class="hex-editor">
            <label for={area_id.clone()}>{ "Edit the bytes (hex), then apply to decode them again" }</label>
            <textarea id={area_id} class="hex-text" rows="6" spellcheck="false"
                value={props.draft.clone()} {oninput} aria-invalid={props.error.is_some().to_string()} />
            <button type="button" class="hex-apply" onclick={apply}>{ "Apply bytes" }</button>
            if let Some(e) = &props.error {
                <p class="field-error hex-error" role="alert">{ format!("Not applied, previous packet kept: {e}") }</p>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::cursor_step;

    #[test]
    fn the_byte_cursor_moves_by_byte_and_by_row_and_stays_in_the_frame() {
        assert_eq!(cursor_step("ArrowRight", 3, 60), Some(4));
        assert_eq!(cursor_step("ArrowDown", 50, 60), Some(59));
        assert_eq!(cursor_step("ArrowUp", 5, 60), Some(0));
        assert_eq!(cursor_step("ArrowLeft", 0, 60), Some(0));
        assert_eq!(cursor_step("End", 0, 60), Some(59));
        assert_eq!(cursor_step("Tab", 3, 60), None);
        assert_eq!(cursor_step("Home", 0, 0), None);
    }
}
