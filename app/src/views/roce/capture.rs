//! Captures: open or drop a pcap/pcapng file (or load the sample), decode it a chunk of
//! frames per timer tick so the page stays responsive, list the frames with a filter,
//! show the selected one in the dissector, and plot each conversation's PSNs.

use std::rc::Rc;

use engine::wire::capture::{read_capture, CapturedFrame};
use engine::wire::listing::{
    classify_retransmissions, conversations, packet_row, Conversation, IcrcStatus, PacketRole,
    PacketRow, RowFilter,
};
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

use super::dissector::Dissector;
use super::form::parse_number;

/// Frames decoded per timer tick: a few milliseconds of work, so input stays smooth.
const CHUNK: usize = 2000;
/// Rows drawn at once; the filter narrows a bigger capture.
const MAX_ROWS: usize = 1000;
/// Where trunk copies `assets/samples`.
pub const SAMPLE_URL: &str = "/samples/roce-sample.pcapng";

#[derive(Clone, PartialEq, Default)]
pub struct CaptureState {
    generation: u32,
    name: String,
    frames: Rc<Vec<CapturedFrame>>,
    chunks: Vec<Rc<Vec<PacketRow>>>,
    decoded: usize,
    /// The located error that stopped reading the file, or why it could not be read.
    error: Option<String>,
    loading: bool,
}

pub enum CaptureAction {
    Loading(String),
    Loaded(String, Vec<u8>),
    Chunk(u32, Vec<PacketRow>),
    Failed(String),
}

impl Reducible for CaptureState {
    type Action = CaptureAction;
    fn reduce(self: Rc<Self>, action: CaptureAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            CaptureAction::Loading(name) => {
                next.name = name;
                next.loading = true;
                next.error = None;
            }
            CaptureAction::Loaded(name, bytes) => {
                let file = read_capture(&bytes);
                next = CaptureState {
                    generation: self.generation.wrapping_add(1),
                    name,
                    frames: Rc::new(file.frames),
                    chunks: Vec::new(),
                    decoded: 0,
                    error: file.error.map(|e| e.to_string()),
                    loading: false,
                };
            }
            CaptureAction::Chunk(generation, rows) => {
                if generation != self.generation {
                    return self;
                }
                next.decoded += rows.len();
                next.chunks.push(Rc::new(rows));
            }
            CaptureAction::Failed(message) => {
                next.loading = false;
                next.error = Some(message);
            }
        }
        Rc::new(next)
    }
}

async fn blob_bytes(blob: web_sys::Blob) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|_| "the browser could not read the file".to_string())?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let response = JsFuture::from(gloo::utils::window().fetch_with_str(url))
        .await
        .map_err(|_| format!("could not fetch {url}"))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| "unexpected fetch result".to_string())?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let promise = response
        .array_buffer()
        .map_err(|_| "could not read the response".to_string())?;
    let buffer = JsFuture::from(promise)
        .await
        .map_err(|_| "could not read the response".to_string())?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

fn open_file(file: web_sys::File, dispatch: UseReducerDispatcher<CaptureState>) {
    let name = file.name();
    dispatch.dispatch(CaptureAction::Loading(name.clone()));
    wasm_bindgen_futures::spawn_local(async move {
        match blob_bytes(file.into()).await {
            Ok(bytes) => dispatch.dispatch(CaptureAction::Loaded(name, bytes)),
            Err(e) => dispatch.dispatch(CaptureAction::Failed(e)),
        }
    });
}

fn role_mark(role: PacketRole) -> &'static str {
    match role {
        PacketRole::Retransmission => "retransmission",
        PacketRole::Nak => "NAK",
        PacketRole::RnrNak => "RNR NAK",
        PacketRole::Cnp => "CNP",
        _ => "",
    }
}

#[function_component]
pub fn CaptureView() -> Html {
    let state = use_reducer(CaptureState::default);
    let selected = use_state(|| None::<usize>);
    let qpn_text = use_state(String::new);
    let opcode = use_state(|| None::<u8>);
    let problems = use_state(|| false);
    let conv_index = use_state(|| 0usize);
    let dragging = use_state(|| false);

    // Decode the next chunk on a timer tick; the effect reruns after each chunk lands.
    {
        let dispatch = state.dispatcher();
        let frames = state.frames.clone();
        let (generation, decoded) = (state.generation, state.decoded);
        use_effect_with((generation, decoded), move |_| {
            let timeout = (decoded < frames.len()).then(|| {
                Timeout::new(0, move || {
                    let end = (decoded + CHUNK).min(frames.len());
                    let rows = frames[decoded..end]
                        .iter()
                        .enumerate()
                        .map(|(i, f)| packet_row(decoded + i + 1, f))
                        .collect();
                    dispatch.dispatch(CaptureAction::Chunk(generation, rows));
                })
            });
            move || drop(timeout)
        });
    }
    let total = state.frames.len();
    let done = state.decoded >= total;
    let rows = use_memo((state.generation, done), {
        let chunks = state.chunks.clone();
        move |(_, done)| {
            if !*done {
                return Vec::new();
            }
            let mut rows: Vec<PacketRow> = chunks.iter().flat_map(|c| c.iter().cloned()).collect();
            classify_retransmissions(&mut rows);
            rows
        }
    });
    let convs = use_memo(rows.clone(), |rows| conversations(rows));
    {
        let (selected, conv_index) = (selected.clone(), conv_index.clone());
        use_effect_with(state.generation, move |_| {
            selected.set(None);
            conv_index.set(0);
        });
    }

    let onchange = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                open_file(file, dispatch.clone());
            }
        })
    };
    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(true);
        })
    };
    let ondragleave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };
    let ondrop = {
        let (dispatch, dragging) = (state.dispatcher(), dragging.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            let file = e
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|f| f.get(0));
            if let Some(file) = file {
                open_file(file, dispatch.clone());
            }
        })
    };
    let load_sample = {
        let dispatch = state.dispatcher();
        Callback::from(move |_| {
            let dispatch = dispatch.clone();
            dispatch.dispatch(CaptureAction::Loading("roce-sample.pcapng".into()));
            wasm_bindgen_futures::spawn_local(async move {
                match fetch_bytes(SAMPLE_URL).await {
                    Ok(b) => {
                        dispatch.dispatch(CaptureAction::Loaded("roce-sample.pcapng".into(), b))
                    }
                    Err(e) => dispatch.dispatch(CaptureAction::Failed(e)),
                }
            });
        })
    };

    let qpn_filter = if qpn_text.trim().is_empty() {
        Ok(None)
    } else {
        parse_number(&qpn_text, 0xFF_FFFF).map(|v| Some(v as u32))
    };
    let filter = RowFilter {
        qpn: qpn_filter.clone().unwrap_or(None),
        opcode: *opcode,
        problems_only: *problems,
    };
    let start_ns = rows.first().map(|r| r.time_ns).unwrap_or(0);
    let shown: Vec<&PacketRow> = rows.iter().filter(|r| filter.matches(r)).collect();
    let mut opcodes: Vec<(u8, String)> = rows
        .iter()
        .filter_map(|r| r.opcode.map(|o| (o, r.opcode_name.clone())))
        .collect();
    opcodes.sort();
    opcodes.dedup_by_key(|(o, _)| *o);

    let filters = {
        let qpn_in = {
            let qpn_text = qpn_text.clone();
            Callback::from(move |e: InputEvent| {
                let i: web_sys::HtmlInputElement = e.target_unchecked_into();
                qpn_text.set(i.value());
            })
        };
        let op_change = {
            let opcode = opcode.clone();
            Callback::from(move |e: Event| {
                let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
                opcode.set(s.value().parse().ok());
            })
        };
        let prob_change = {
            let problems = problems.clone();
            Callback::from(move |e: Event| {
                let i: web_sys::HtmlInputElement = e.target_unchecked_into();
                problems.set(i.checked());
            })
        };
        let qpn_err = qpn_filter.as_ref().err().cloned();
        html! {
            <div class="capture-filters" role="group" aria-label="Filter frames">
                <div class="form-field">
                    <label for="cap-qpn">{ "QPN" }</label>
                    <input id="cap-qpn" type="text" placeholder="any" value={(*qpn_text).clone()} oninput={qpn_in}
                        aria-invalid={qpn_err.is_some().to_string()} aria-describedby="cap-qpn-err" />
                    <p class="field-error" id="cap-qpn-err">{ qpn_err.unwrap_or_default() }</p>
                </div>
                <div class="form-field">
                    <label for="cap-opcode">{ "Opcode" }</label>
                    <select id="cap-opcode" onchange={op_change}>
                        <option value="" selected={opcode.is_none()}>{ "any" }</option>
                        { for opcodes.iter().map(|(o, name)| html! {
                            <option value={o.to_string()} selected={*opcode == Some(*o)}>{ format!("{name} ({o:#04x})") }</option>
                        }) }
                    </select>
                </div>
                <label class="check"><input type="checkbox" id="cap-problems" checked={*problems} onchange={prob_change} />
                    { " Errors, NAKs and retransmissions only" }</label>
            </div>
        }
    };

    let list = html! {
        <div class="capture-list-wrap">
            <table class="capture-list">
                <caption>{ format!("{} of {} frames{}", shown.len().min(MAX_ROWS), rows.len(),
                    if shown.len() > MAX_ROWS { format!(" (first {MAX_ROWS} of {} matching; narrow the filter)", shown.len()) } else { String::new() }) }</caption>
                <thead><tr>
                    <th scope="col">{ "No." }</th><th scope="col">{ "Time (s)" }</th><th scope="col">{ "Source" }</th>
                    <th scope="col">{ "Destination" }</th><th scope="col">{ "Opcode" }</th><th scope="col">{ "QPN" }</th>
                    <th scope="col">{ "PSN" }</th><th scope="col">{ "Length" }</th><th scope="col">{ "ICRC" }</th><th scope="col">{ "Note" }</th>
                </tr></thead>
                <tbody>
                    { for shown.iter().take(MAX_ROWS).map(|r| {
                        let n = r.number;
                        let pick = { let selected = selected.clone(); Callback::from(move |_| selected.set(Some(n))) };
                        let is_sel = *selected == Some(n);
                        let note = r.error.clone().unwrap_or_else(|| role_mark(r.role).to_string());
                        html! {
                            <tr class={classes!("capture-row", is_sel.then_some("sel"), r.has_error().then_some("bad"),
                                (r.role != PacketRole::Request && r.role != PacketRole::Response && r.role != PacketRole::Other).then_some("marked"))}
                                data-frame={n.to_string()}>
                                <td><button type="button" class="frame-pick" aria-pressed={is_sel.to_string()} onclick={pick}>{ n }</button></td>
                                <td>{ format!("{:.6}", r.time_ns.saturating_sub(start_ns) as f64 / 1e9) }</td>
                                <td>{ &r.source }</td><td>{ &r.destination }</td>
                                <td>{ &r.opcode_name }</td>
                                <td>{ r.qpn.map(|q| format!("{q:#x}")).unwrap_or_default() }</td>
                                <td>{ r.psn.map(|p| p.to_string()).unwrap_or_default() }</td>
                                <td>{ r.len }</td>
                                <td>{ match r.icrc { IcrcStatus::Valid => "ok", IcrcStatus::Invalid => "BAD", IcrcStatus::Absent => "—" } }</td>
                                <td>{ note }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    };

    let detail = selected
        .and_then(|n| state.frames.get(n.wrapping_sub(1)).map(|f| (n, f)))
        .map(|(n, f)| {
            html! {
                <section class="capture-detail" aria-label={format!("Frame {n}")}>
                    <h4>{ format!("Frame {n}: {} bytes", f.data.len()) }</h4>
                    <Dissector bytes={Rc::new(f.data.clone())} link={f.link_type} id="cap" />
                </section>
            }
        });

    let timeline = (!convs.is_empty()).then(|| {
        let at = (*conv_index).min(convs.len() - 1);
        let pick = {
            let conv_index = conv_index.clone();
            Callback::from(move |e: Event| {
                let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
                conv_index.set(s.value().parse().unwrap_or(0));
            })
        };
        html! {
            <section class="qp-view" aria-label="Per-QP view">
                <h4>{ "Per-QP PSN timeline" }</h4>
                <div class="form-field">
                    <label for="cap-conv">{ "Conversation" }</label>
                    <select id="cap-conv" onchange={pick}>
                        { for convs.iter().enumerate().map(|(i, c)| html! {
                            <option value={i.to_string()} selected={i == at}>
                                { format!("{} ⇄ {} · QP {}", c.a, c.b, c.qpns.iter().map(|q| format!("{q:#x}")).collect::<Vec<_>>().join(", ")) }
                            </option>
                        }) }
                    </select>
                </div>
                <PsnTimeline conversation={convs[at].clone()} />
            </section>
        }
    });

    let progress = (!done).then(|| html! {
        <div class="capture-progress">
            <label for="cap-progress">{ format!("Decoding {}: {} of {total} frames", state.name, state.decoded) }</label>
            <progress id="cap-progress" max={total.to_string()} value={state.decoded.to_string()} />
        </div>
    });

    html! {
        <div class="capture">
            <div class={classes!("drop-zone", dragging.then_some("dragging"))} {ondragover} {ondragleave} {ondrop}>
                <label for="cap-file">{ "Open a pcap or pcapng file, or drop one here" }</label>
                <input id="cap-file" type="file" accept=".pcap,.pcapng,.cap,application/vnd.tcpdump.pcap" {onchange} />
                <button type="button" class="load-sample" onclick={load_sample}>{ "Load sample capture" }</button>
            </div>
            if state.loading { <p aria-live="polite">{ format!("Reading {}…", state.name) }</p> }
            if let Some(e) = &state.error {
                <p class="decode-error" role="alert">{ format!("{}: {e}{}", state.name,
                    if total > 0 { format!(" (the {total} frames before it are shown)") } else { String::new() }) }</p>
            }
            { progress.unwrap_or_default() }
            if done && total > 0 {
                { filters }
                { list }
                { detail.unwrap_or_default() }
                { timeline.unwrap_or_default() }
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct PsnTimelineProps {
    conversation: Conversation,
}

/// PSN against packet order: requests as dots, retransmissions ringed, ACKs as squares,
/// NAKs as crosses and CNPs as diamonds on the top rail, each also named in text.
#[function_component]
fn PsnTimeline(props: &PsnTimelineProps) -> Html {
    let c = &props.conversation;
    let (w, h, pad) = (640.0f64, 220.0f64, 36.0f64);
    let sequenced = c.points.iter().filter(|p| p.role != PacketRole::Cnp);
    let lo = sequenced.clone().map(|p| p.psn).min().unwrap_or(0);
    let hi = sequenced.map(|p| p.psn).max().unwrap_or(0).max(lo + 1);
    let n = c.points.len().max(2) as f64;
    let x = |i: usize| pad + (w - 2.0 * pad) * i as f64 / (n - 1.0);
    let y = |psn: u32| h - pad - (h - 2.5 * pad) * f64::from(psn - lo) / f64::from(hi - lo);
    let marks = c.points.iter().enumerate().map(|(i, p)| {
        let (cx, cy) = (x(i), if p.role == PacketRole::Cnp { pad * 0.6 } else { y(p.psn) });
        let label = format!(
            "frame {}: {} QP {:#x} PSN {} ({})",
            p.frame,
            if p.from_a { format!("{} → {}", c.a, c.b) } else { format!("{} → {}", c.b, c.a) },
            p.qpn,
            p.psn,
            match p.role {
                PacketRole::Request => "request",
                PacketRole::Retransmission => "retransmission",
                PacketRole::Response => "ACK/response",
                PacketRole::Nak => "NAK",
                PacketRole::RnrNak => "RNR NAK",
                PacketRole::Cnp => "CNP",
                PacketRole::Other => "other",
            }
        );
        let shape = match p.role {
            PacketRole::Request => html! { <circle class="m-req" cx={cx.to_string()} cy={cy.to_string()} r="5" /> },
            PacketRole::Retransmission => html! { <>
                <circle class="m-retx" cx={cx.to_string()} cy={cy.to_string()} r="7" />
                <text class="m-text" x={(cx + 9.0).to_string()} y={(cy + 4.0).to_string()}>{ "R" }</text>
            </> },
            PacketRole::Response => html! { <rect class="m-ack" x={(cx - 4.0).to_string()} y={(cy - 4.0).to_string()} width="8" height="8" /> },
            PacketRole::Nak | PacketRole::RnrNak => html! { <>
                <path class="m-nak" d={format!("M{} {} l10 10 m0 -10 l-10 10", cx - 5.0, cy - 5.0)} />
                <text class="m-text" x={(cx + 8.0).to_string()} y={(cy - 6.0).to_string()}>{ "NAK" }</text>
            </> },
            PacketRole::Cnp => html! { <>
                <path class="m-cnp" d={format!("M{cx} {} l6 6 l-6 6 l-6 -6 z", cy - 6.0)} />
                <text class="m-text" x={(cx + 8.0).to_string()} y={(cy + 4.0).to_string()}>{ "CNP" }</text>
            </> },
            PacketRole::Other => html! {},
        };
        html! { <g class="qp-mark" data-role={format!("{:?}", p.role)}><title>{ label }</title>{ shape }</g> }
    });
    let summary = format!(
        "{} packets: {} retransmissions, {} NAKs, {} CNPs; PSNs {lo}–{hi}",
        c.points.len(),
        c.count(PacketRole::Retransmission),
        c.count(PacketRole::Nak) + c.count(PacketRole::RnrNak),
        c.count(PacketRole::Cnp)
    );
    html! {
        <figure class="qp-timeline">
            <svg viewBox={format!("0 0 {w} {h}")} role="img" aria-label={format!("PSN timeline, {summary}")}>
                <title>{ format!("PSN timeline: {summary}") }</title>
                <line class="axis" x1={pad.to_string()} y1={(h - pad).to_string()} x2={(w - pad).to_string()} y2={(h - pad).to_string()} />
                <line class="axis" x1={pad.to_string()} y1={pad.to_string()} x2={pad.to_string()} y2={(h - pad).to_string()} />
                <text class="axis-label" x={pad.to_string()} y={(h - 8.0).to_string()}>{ "packet order →" }</text>
                <text class="axis-label" x="2" y={(y(hi) + 4.0).to_string()}>{ hi }</text>
                <text class="axis-label" x="2" y={(y(lo) + 4.0).to_string()}>{ lo }</text>
                { for marks }
            </svg>
            <figcaption>
                { summary }
                <span class="qp-legend">{ " Legend: ● request, ◯R retransmission, ■ ACK, ✗ NAK, ◆ CNP (top rail)." }</span>
            </figcaption>
        </figure>
    }
}
