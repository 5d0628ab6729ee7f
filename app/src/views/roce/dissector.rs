//! Layers as an expandable tree beside a hex dump, linked both ways as in Wireshark:
//! a field highlights its bytes and a byte highlights its field.

use std::rc::Rc;

use engine::capture::exercise::Inspection;
use engine::capture::hex::{format_hex, parse_hex};
use engine::capture::listing::{row_from, IcrcStatus};
use engine::capture::{dissect, DecodedFrame, Field, FieldValue, LinkType};
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

/// A highlighted byte range and the field it belongs to.
#[derive(Clone, PartialEq)]
struct Mark {
    name: &'static str,
    offset: usize,
    len: usize,
}

impl Mark {
    fn of(f: &Field) -> Mark {
        Mark {
            name: f.name,
            offset: f.offset,
            len: f.len,
        }
    }
    fn covers(&self, at: usize) -> bool {
        at >= self.offset && at < self.offset + self.len
    }
}

/// The narrowest field holding byte `at`, as Wireshark selects on a hex click.
fn field_at(d: &DecodedFrame, at: usize) -> Option<(usize, &Field)> {
    d.layers
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.fields.iter().map(move |f| (i, f)))
        .filter(|(_, f)| at >= f.offset && at < f.offset + f.len)
        .min_by_key(|(_, f)| f.len)
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

#[function_component]
pub fn Dissector(props: &DissectorProps) -> Html {
    let decoded = {
        let bytes = props.bytes.clone();
        let link = props.link;
        use_memo(bytes, move |b| dissect(b, link))
    };
    let expanded = use_state(Vec::<usize>::new);
    let selected = use_state(|| None::<Mark>);
    let hovered = use_state(|| None::<Mark>);
    // The byte the keyboard is on while the hex pane has focus.
    let cursor = use_state(|| None::<usize>);
    let draft = use_state(|| format_hex(&props.bytes));
    let hex_error = use_state(|| None::<String>);
    {
        let (draft, hex_error, selected) = (draft.clone(), hex_error.clone(), selected.clone());
        use_effect_with(props.bytes.clone(), move |b| {
            draft.set(format_hex(b));
            hex_error.set(None);
            selected.set(None);
        });
    }
    {
        let on_inspect = props.on_inspect.clone();
        let picked = selected.as_ref().map(|m| m.name.to_string());
        use_effect_with((decoded.clone(), picked), move |(frame, picked)| {
            if let Some(on_inspect) = on_inspect {
                on_inspect.emit(Inspection {
                    frame: (**frame).clone(),
                    picked: picked.clone(),
                });
            }
        });
    }

    let row = row_from(0, 0, &decoded);
    let icrc_field = decoded.field("infiniband.invariant.crc");
    let icrc = match row.icrc {
        IcrcStatus::Valid => html! {
            <p class="icrc-status icrc-ok" data-ok="true">
                <span aria-hidden="true">{ "✓ " }</span>{ "ICRC valid" }
                { icrc_field.map(|f| format!(": {}", f.meaning)).unwrap_or_default() }
            </p>
        },
        IcrcStatus::Invalid => html! {
            <p class="icrc-status icrc-bad" data-ok="false">
                <span aria-hidden="true">{ "✗ " }</span>{ "ICRC invalid" }
                { icrc_field.map(|f| format!(": {}", f.meaning)).unwrap_or_default() }
            </p>
        },
        IcrcStatus::Absent => html! {
            <p class="icrc-status" data-ok="none">{ "No ICRC: not an InfiniBand transport packet" }</p>
        },
    };

    let select = {
        let (selected, expanded) = (selected.clone(), expanded.clone());
        Callback::from(move |(layer, mark): (usize, Mark)| {
            if !expanded.contains(&layer) {
                let mut e = (*expanded).clone();
                e.push(layer);
                expanded.set(e);
            }
            selected.set(Some(mark));
        })
    };

    let tree = decoded.layers.iter().enumerate().map(|(i, layer)| {
        let open = expanded.contains(&i);
        let toggle = {
            let expanded = expanded.clone();
            Callback::from(move |_| {
                let mut e = (*expanded).clone();
                match e.iter().position(|x| *x == i) {
                    Some(p) => {
                        e.remove(p);
                    }
                    None => e.push(i),
                }
                expanded.set(e);
            })
        };
        let fields = layer.fields.iter().map(|fl| {
            let mark = Mark::of(fl);
            let is_sel = selected.as_ref().is_some_and(|s| s.name == fl.name && s.offset == fl.offset);
            let is_hov = hovered.as_ref().is_some_and(|s| s.name == fl.name && s.offset == fl.offset);
            let onclick = {
                let (select, mark) = (select.clone(), mark.clone());
                Callback::from(move |_| select.emit((i, mark.clone())))
            };
            let onmouseenter = {
                let (hovered, mark) = (hovered.clone(), mark.clone());
                Callback::from(move |_| hovered.set(Some(mark.clone())))
            };
            let onmouseleave = {
                let hovered = hovered.clone();
                Callback::from(move |_| hovered.set(None))
            };
            // Focus shows a field's bytes as hover does, for the keyboard.
            let onfocus = {
                let (hovered, mark) = (hovered.clone(), mark.clone());
                Callback::from(move |_| hovered.set(Some(mark.clone())))
            };
            let onblur = {
                let hovered = hovered.clone();
                Callback::from(move |_| hovered.set(None))
            };
            let value = match &fl.value {
                FieldValue::Uint(v) if fl.len >= 2 || *v > 9 => format!("{v} ({v:#x})"),
                FieldValue::Uint(v) => v.to_string(),
                FieldValue::Bool(b) => if *b { "set".into() } else { "not set".into() },
                FieldValue::Text(t) => t.clone(),
            };
            html! {
                <li>
                    <button type="button"
                        class={classes!("field", is_sel.then_some("sel"), is_hov.then_some("hov"))}
                        data-field={fl.name} data-offset={fl.offset.to_string()} data-len={fl.len.to_string()}
                        aria-pressed={is_sel.to_string()}
                        {onclick} {onmouseenter} {onmouseleave} {onfocus} {onblur}>
                        <span class="field-label">{ &fl.label }</span>{ ": " }
                        <span class="field-value">{ value }</span>
                        if !fl.meaning.is_empty() { <span class="field-meaning">{ format!(" — {}", fl.meaning) }</span> }
                        <span class="field-name">{ format!(" {} · bytes {}–{}", fl.name, fl.offset, fl.offset + fl.len.max(1) - 1) }</span>
                    </button>
                </li>
            }
        });
        html! {
            <li class={classes!("layer", format!("band-{}", i % 6))}>
                <button type="button" class="layer-toggle" aria-expanded={open.to_string()}
                    data-layer={layer.name} onclick={toggle}>
                    <span aria-hidden="true">{ if open { "▾ " } else { "▸ " } }</span>
                    { format!("{} ({} bytes at {})", layer.title, layer.len, layer.offset) }
                </button>
                if open { <ul class="fields">{ for fields }</ul> }
            </li>
        }
    });

    let bytes = &props.bytes;
    let hex_rows = bytes.chunks(16).enumerate().map(|(r, chunk)| {
        let cells = chunk.iter().enumerate().map(|(c, b)| {
            let at = r * 16 + c;
            let band = layer_of(&decoded, at).map(|l| format!("band-{}", l % 6));
            let sel = selected.as_ref().is_some_and(|m| m.covers(at));
            let hov = hovered.as_ref().is_some_and(|m| m.covers(at));
            let here = *cursor == Some(at);
            let onmouseenter = {
                let (hovered, d) = (hovered.clone(), decoded.clone());
                Callback::from(move |_| hovered.set(field_at(&d, at).map(|(_, f)| Mark::of(f))))
            };
            let onmouseleave = {
                let hovered = hovered.clone();
                Callback::from(move |_| hovered.set(None))
            };
            let onclick = {
                let (select, d) = (select.clone(), decoded.clone());
                Callback::from(move |_| {
                    if let Some((l, f)) = field_at(&d, at) {
                        select.emit((l, Mark::of(f)));
                    }
                })
            };
            html! {
                <span class={classes!("hex-byte", band, sel.then_some("sel"), hov.then_some("hov"), here.then_some("cursor"))}
                    data-offset={at.to_string()} {onmouseenter} {onmouseleave} {onclick}>
                    { format!("{b:02x}") }
                </span>
            }
        });
        let ascii: String = chunk
            .iter()
            .map(|b| {
                if b.is_ascii_graphic() || *b == b' ' {
                    *b as char
                } else {
                    '.'
                }
            })
            .collect();
        html! {
            <div class="hex-row">
                <span class="hex-offset">{ format!("{:04x}", r * 16) }</span>
                <span class="hex-cells">{ for cells }</span>
                <span class="hex-ascii" aria-hidden="true">{ ascii }</span>
            </div>
        }
    });

    let cursor_status = cursor.and_then(|at| {
        let byte = bytes.get(at)?;
        Some(match field_at(&decoded, at) {
            Some((_, f)) => format!(
                "Byte {at} = {byte:#04x}, in {}: bytes {}–{} ({} bytes). Enter picks it.",
                f.name,
                f.offset,
                f.offset + f.len.max(1) - 1,
                f.len
            ),
            None => format!("Byte {at} = {byte:#04x}, in no decoded field."),
        })
    });
    let status = match (cursor_status, selected.as_ref().or(hovered.as_ref())) {
        (Some(on_byte), _) => on_byte,
        (None, Some(m)) => format!(
            "{}: bytes {}–{} ({} bytes)",
            m.name,
            m.offset,
            m.offset + m.len.max(1) - 1,
            m.len
        ),
        (None, None) => "Select a field or a byte to link the two panes.".to_string(),
    };

    // The hex pane's keyboard: a byte cursor that shows its field, as pointing does.
    let move_cursor = {
        let (cursor, hovered, d) = (cursor.clone(), hovered.clone(), decoded.clone());
        move |at: usize| {
            cursor.set(Some(at));
            hovered.set(field_at(&d, at).map(|(_, f)| Mark::of(f)));
        }
    };
    let onfocus = {
        let (move_cursor, selected) = (move_cursor.clone(), selected.clone());
        let len = bytes.len();
        Callback::from(move |_: FocusEvent| {
            if len > 0 {
                move_cursor(selected.as_ref().map_or(0, |m| m.offset.min(len - 1)));
            }
        })
    };
    let onblur = {
        let (cursor, hovered) = (cursor.clone(), hovered.clone());
        Callback::from(move |_: FocusEvent| {
            cursor.set(None);
            hovered.set(None);
        })
    };
    let onkeydown = {
        let (cursor, select, d) = (cursor.clone(), select.clone(), decoded.clone());
        let len = bytes.len();
        Callback::from(move |e: KeyboardEvent| {
            let Some(at) = *cursor else { return };
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                if let Some((l, f)) = field_at(&d, at) {
                    select.emit((l, Mark::of(f)));
                }
            } else if let Some(next) = cursor_step(&e.key(), at, len) {
                // The arrows would scroll the pane or the page as well.
                e.prevent_default();
                move_cursor(next);
            }
        })
    };

    let editor = props.on_edit.as_ref().map(|on_edit| {
        let oninput = {
            let draft = draft.clone();
            Callback::from(move |e: InputEvent| {
                let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
                draft.set(area.value());
            })
        };
        let apply = {
            let (draft, hex_error, on_edit) = (draft.clone(), hex_error.clone(), on_edit.clone());
            Callback::from(move |_| match parse_hex(&draft) {
                Ok(b) if b.is_empty() => hex_error.set(Some("the frame needs at least one byte".into())),
                Ok(b) => {
                    hex_error.set(None);
                    on_edit.emit(b);
                }
                Err(e) => hex_error.set(Some(e.to_string())),
            })
        };
        let area_id = format!("{}-hex-edit", props.id);
        html! {
            <div class="hex-editor">
                <label for={area_id.clone()}>{ "Edit the bytes (hex), then apply to decode them again" }</label>
                <textarea id={area_id} class="hex-text" rows="6" spellcheck="false"
                    value={(*draft).clone()} {oninput}
                    aria-invalid={hex_error.is_some().to_string()} />
                <button type="button" class="hex-apply" onclick={apply}>{ "Apply bytes" }</button>
                if let Some(e) = hex_error.as_ref() {
                    <p class="field-error hex-error" role="alert">{ format!("Not applied, previous packet kept: {e}") }</p>
                }
            </div>
        }
    });

    html! {
        <div class="dissector">
            { icrc }
            if let Some(e) = &decoded.error {
                <p class="decode-error" role="alert">{ format!("Decoding stopped: {e}") }</p>
            }
            { for decoded.warnings.iter().filter(|w| w.header != engine::wire::Header::Icrc).map(|w| html! {
                <p class="decode-warning">{ w.to_string() }</p>
            }) }
            <div class="dissector-panes">
                <ul class="layer-tree" aria-label="Decoded layers">{ for tree }</ul>
                <div class="hex-pane" tabindex="0" aria-describedby={format!("{}-hex-keys", props.id)}
                    {onfocus} {onblur} {onkeydown}>
                    <div class="hex-dump" aria-label={format!("Frame bytes, {} in all", bytes.len())}>{ for hex_rows }</div>
                    <p class="hex-status" aria-live="polite">{ status }</p>
                    <p class="hex-keys" id={format!("{}-hex-keys", props.id)}>
                        { "With the bytes focused: arrow keys move byte by byte, Home and End to the ends, Enter picks the byte's field." }
                    </p>
                </div>
            </div>
            { editor.unwrap_or_default() }
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
