//! Captures: open or drop a pcap/pcapng file (or load the sample), decode it in slices of
//! a few milliseconds between turns of the event loop so the page stays responsive (a
//! progress bar shows how far it got), keep one compact summary per frame, list the
//! frames with a filter (drawing only the rows scrolled into view), show the selected
//! one in the dissector, and plot each conversation's PSNs.

use std::cell::Cell;
use std::rc::Rc;

use engine::capture::conversation::{conversations_of, Conversation};
use engine::capture::dissect;
use engine::capture::listing::{
    row_from, CaptureDecoder, FrameSummary, IcrcStatus, PacketRole, RowFilter,
};
use engine::capture::pcap::FrameRef;
use engine::wire::opcode::Opcode;
use gloo::utils::window;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;
use yew::prelude::*;

use super::dissector::Dissector;
use crate::views::file::{fetch_blob, FileDrop, FileInput};
use crate::views::form::{whole, ChoiceField, FieldDef, Reads, Refusal, TextField};
use crate::views::timing;
use crate::views::Shared;

/// Frames decoded between two looks at the clock.
const STEP: usize = 512;
/// Milliseconds of decoding per turn of the event loop: short enough that input and
/// painting stay smooth (under the 50 ms of a "long task"), long enough that the turns
/// themselves cost little.
const SLICE_MS: f64 = 25.0;
/// Height of one packet-list row, in CSS pixels (style.css sets it on `.capture-row`).
const ROW_PX: f64 = 28.0;
/// Rows drawn beyond the visible ones, above and below.
const OVERSCAN: usize = 10;
/// Rows the list's viewport holds (its `max-height` is 24rem).
const VIEW_ROWS: usize = 16;
/// Points drawn on the PSN timeline; a longer conversation shows its beginning.
const MAX_POINTS: usize = 500;
/// The samples, where trunk copies `assets/samples`: relative, so they resolve against
/// the page's `<base>`, the site root, wherever the site is served from (`crate::base`).
/// The RoCE v2 exchange (engine::capture::sample), and the InfiniBand one as ibdump
/// writes it (engine::capture::ib_sample).
pub const SAMPLE_URL: &str = "samples/roce-sample.pcapng";
pub const IB_SAMPLE_URL: &str = "samples/ib-sample.pcap";
/// Performance mark set when a file is chosen, and the measure from it to the complete
/// packet list (read by `./lab bench`).
pub const OPEN_MARK: &str = "lab-capture-open";
pub const DECODE_MEASURE: &str = "lab-capture-decode";
/// The measure from the choice to the file's bytes in memory, before decoding starts.
pub const READ_MEASURE: &str = "lab-capture-read";

/// A decoded capture: its bytes, a reference and a summary per frame, its conversations,
/// and the milliseconds decoding took (without the turns given to the event loop).
pub struct Capture {
    bytes: Vec<u8>,
    frames: Vec<FrameRef>,
    summaries: Vec<FrameSummary>,
    conversations: Vec<Conversation>,
    busy_ms: f64,
}

#[derive(Clone, PartialEq, Default)]
pub struct CaptureState {
    generation: u32,
    name: String,
    loading: bool,
    /// Size of the file being decoded, and the bytes and frames decoded so far.
    decoding: Option<(usize, (usize, usize))>,
    capture: Option<Shared<Capture>>,
    /// The located error that stopped reading the file, or why it could not be read.
    error: Option<String>,
    /// The frame picked in the list (numbered from 1), shown in the dissector.
    picked: Option<usize>,
    /// The conversation on the PSN timeline.
    conversation: usize,
    /// The list's filter as the learner set it; it stays for the next file.
    qpn_text: String,
    opcode: Option<u8>,
    problems: bool,
}

pub enum CaptureAction {
    Loading(String),
    /// Decoding began: the generation, the file name and its size.
    Started(u32, String, usize),
    Progress(u32, usize, usize),
    /// The decoded capture, and the error that stopped it early.
    Done(u32, Rc<Capture>, Option<String>),
    Failed(String),
    Pick(usize),
    Conversation(usize),
    Qpn(String),
    Opcode(Option<u8>),
    Problems(bool),
}

impl Reducible for CaptureState {
    type Action = CaptureAction;
    fn reduce(self: Rc<Self>, action: CaptureAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            CaptureAction::Loading(name) => {
                (next.name, next.loading, next.error) = (name, true, None)
            }
            CaptureAction::Started(generation, name, size) => {
                let (qpn_text, opcode, problems) = (next.qpn_text, next.opcode, next.problems);
                next = CaptureState {
                    generation,
                    name,
                    decoding: Some((size, (0, 0))),
                    qpn_text,
                    opcode,
                    problems,
                    ..CaptureState::default()
                };
            }
            CaptureAction::Progress(generation, ..) | CaptureAction::Done(generation, ..)
                if generation != self.generation =>
            {
                return self
            }
            CaptureAction::Progress(_, offset, frames) => {
                next.decoding = next.decoding.map(|(size, _)| (size, (offset, frames)));
            }
            CaptureAction::Done(_, capture, error) => {
                (next.decoding, next.capture) = (None, Some(Shared(capture)));
                next.error = error;
            }
            CaptureAction::Failed(message) => (next.loading, next.error) = (false, Some(message)),
            CaptureAction::Pick(frame) => next.picked = Some(frame),
            CaptureAction::Conversation(i) => next.conversation = i,
            CaptureAction::Qpn(text) => next.qpn_text = text,
            CaptureAction::Opcode(opcode) => next.opcode = opcode,
            CaptureAction::Problems(on) => next.problems = on,
        }
        Rc::new(next)
    }
}

impl CaptureState {
    /// The QPN filter as typed: none when empty, or why it does not read.
    fn qpn(&self) -> Result<Option<u32>, String> {
        if self.qpn_text.trim().is_empty() {
            return Ok(None);
        }
        whole(&self.qpn_text, 0xFF_FFFF).map(|v| Some(v as u32))
    }
}

fn now_ms() -> f64 {
    timing::now_ms().unwrap_or(0.0)
}

/// Gives the event loop a turn (input, painting) before going on.
async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = JsFuture::from(promise).await;
}

/// Bytes asked of the file at a time; the next part is read while this one decodes.
const READ_CHUNK: usize = 32 << 20;

fn read_part(blob: &Blob, from: usize, size: usize) -> Option<JsFuture> {
    let to = from.saturating_add(READ_CHUNK).min(size);
    let part = blob.slice_with_f64_and_f64(from as f64, to as f64).ok()?;
    Some(JsFuture::from(part.array_buffer()))
}

/// One opened file's reading and decoding, until another file takes over (`current`
/// moves past `generation`).
struct Job {
    generation: u32,
    current: Rc<Cell<u32>>,
    dispatch: UseReducerDispatcher<CaptureState>,
}

impl Job {
    fn is_current(&self) -> bool {
        self.current.get() == self.generation
    }
    fn send(&self, action: CaptureAction) {
        self.dispatch.dispatch(action);
    }
}

/// Reads and decodes a capture a slice at a time, yielding to the event loop between
/// slices. The file is read in parts, each decoded while the next one is read.
async fn decode(job: Job, name: String, blob: Blob) {
    let size = blob.size() as usize;
    let mut bytes = Vec::new();
    if bytes.try_reserve_exact(size).is_err() {
        let mb = size as f64 / 1e6;
        let message = format!("{name} ({mb:.0} MB) does not fit in the page's memory");
        return job.send(CaptureAction::Failed(message));
    }
    job.send(CaptureAction::Started(job.generation, name, size));
    let mut pending = read_part(&blob, 0, size);
    let mut decoder = CaptureDecoder::new(&[]);
    let mut busy_ms = 0.0;
    loop {
        let buffer = match pending.take() {
            Some(part) => part.await.ok(),
            None => None,
        };
        let Some(buffer) = buffer else {
            let unreadable = "the browser could not read the file".to_string();
            return job.send(CaptureAction::Failed(unreadable));
        };
        let part = js_sys::Uint8Array::new(&buffer);
        let old = bytes.len();
        bytes.resize(old + part.length() as usize, 0);
        part.copy_to(&mut bytes[old..]);
        if old == 0 {
            timing::measure_since(READ_MEASURE, OPEN_MARK);
            decoder = CaptureDecoder::new(&bytes);
            decoder.expect_len(size);
        }
        // A file that yields less than the size it gave (it changed on disk) ends here.
        let complete = bytes.len() >= size || bytes.len() == old;
        if !complete {
            pending = read_part(&blob, bytes.len(), size);
        }
        let Some(ms) = decode_part(&job, &mut decoder, &bytes, complete).await else {
            return;
        };
        busy_ms += ms;
        if complete || decoder.is_finished() {
            break;
        }
    }
    // The PSN timelines, in a turn of their own.
    let start = now_ms();
    let frames = &decoder.frames;
    let conversations = conversations_of(&decoder.summaries, |i| {
        frames.get(i).map(|r| r.timestamp_ns).unwrap_or(0)
    });
    busy_ms += now_ms() - start;
    yield_now().await;
    if job.is_current() {
        let error = decoder.error().map(|e| e.to_string());
        let (frames, summaries) = (decoder.frames, decoder.summaries);
        let capture = Capture {
            bytes,
            frames,
            summaries,
            conversations,
            busy_ms,
        };
        job.send(CaptureAction::Done(job.generation, Rc::new(capture), error));
    }
}

/// Decodes the bytes read so far in slices of [`SLICE_MS`], reporting progress and giving
/// the event loop a turn after each; the milliseconds spent, or `None` when another file
/// took over.
async fn decode_part(
    job: &Job,
    d: &mut CaptureDecoder,
    bytes: &[u8],
    complete: bool,
) -> Option<f64> {
    let mut busy = 0.0;
    loop {
        if !job.is_current() {
            return None;
        }
        let start = now_ms();
        let mut more = true;
        while more && now_ms() - start < SLICE_MS {
            more = d.step_of(bytes, complete, STEP);
        }
        busy += now_ms() - start;
        let (offset, frames) = (d.offset(), d.frames.len());
        job.send(CaptureAction::Progress(job.generation, offset, frames));
        // Give the event loop a turn: paint the progress bar, take input.
        yield_now().await;
        if !more {
            return Some(busy);
        }
    }
}

/// Opens a capture: marks the moment for the decode measure, then reads and decodes it.
fn open(
    name: String,
    source: impl std::future::Future<Output = Result<Blob, String>> + 'static,
    current: &Rc<Cell<u32>>,
    dispatch: &UseReducerDispatcher<CaptureState>,
) {
    timing::reset_mark(OPEN_MARK);
    let generation = current.get().wrapping_add(1);
    current.set(generation);
    let (current, dispatch) = (current.clone(), dispatch.clone());
    let job = Job {
        generation,
        current,
        dispatch,
    };
    job.send(CaptureAction::Loading(name.clone()));
    wasm_bindgen_futures::spawn_local(async move {
        match source.await {
            Ok(blob) if job.is_current() => decode(job, name, blob).await,
            Ok(_) => {}
            Err(e) => job.send(CaptureAction::Failed(e)),
        }
    });
}

#[function_component]
pub fn CaptureView() -> Html {
    let state = use_reducer(CaptureState::default);
    let current = use_memo((), |_| Rc::new(Cell::new(0u32)));
    // The packet list is complete once rendered: close the measure begun at the choice.
    use_effect_with((state.generation, state.capture.is_some()), |(_, done)| {
        if *done {
            timing::measure_since(DECODE_MEASURE, OPEN_MARK);
        }
    });
    let on_file = {
        let (current, dispatch) = ((*current).clone(), state.dispatcher());
        Callback::from(move |file: web_sys::File| {
            let source = std::future::ready(Ok(file.clone().into()));
            open(file.name(), source, &current, &dispatch);
        })
    };
    let sample = |url: &'static str| {
        let (current, dispatch) = ((*current).clone(), state.dispatcher());
        Callback::from(move |_: MouseEvent| {
            let name = url.trim_start_matches("samples/").to_string();
            open(name, fetch_blob(url), &current, &dispatch);
        })
    };
    let total = state.capture.as_ref().map_or(0, |c| c.frames.len());
    let failed = state.error.as_ref().map(|e| {
        let before = (total > 0).then(|| format!(" (the {total} frames before it are shown)"));
        format!("{}: {e}{}", state.name, before.unwrap_or_default())
    });
    html! {
        <div class="capture">
            <FileDrop class="drop-zone" on_file={on_file.clone()}>
                <label for="cap-file">{ "Open a pcap or pcapng file, or drop one here" }</label>
                <FileInput id="cap-file" accept=".pcap,.pcapng,.cap,application/vnd.tcpdump.pcap" {on_file} />
                <button type="button" class="load-sample" onclick={sample(SAMPLE_URL)}>{ "Load sample capture" }</button>
                <button type="button" class="load-ib-sample" onclick={sample(IB_SAMPLE_URL)}>{ "Load InfiniBand sample (ibdump)" }</button>
            </FileDrop>
            if state.loading { <p aria-live="polite">{ format!("Reading {}…", state.name) }</p> }
            if let Some(e) = failed { <p class="decode-error" role="alert">{ e }</p> }
            if let Some((size, progress)) = state.decoding {
                <DecodeProgress name={state.name.clone()} {size} {progress} />
            }
            if let Some(capture) = state.capture.clone() {
                if total == 0 && state.error.is_none() {
                    <p class="capture-empty" role="status">{ format!("{}: 0 frames. The file is a valid capture that holds no packets.", state.name) }</p>
                }
                if total > 0 {
                    <CaptureFrames {capture} state={state.clone()} />
                }
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct FramesProps {
    capture: Shared<Capture>,
    state: UseReducerHandle<CaptureState>,
}

/// A decoded capture: the filters, the packet list, the picked frame and the timeline.
#[function_component]
fn CaptureFrames(props: &FramesProps) -> Html {
    let (capture, state) = (&props.capture, &props.state);
    let on = state.dispatcher().to_callback();
    let qpn = state.qpn();
    let filter = RowFilter {
        qpn: qpn.clone().unwrap_or(None),
        opcode: state.opcode,
        problems_only: state.problems,
    };
    let shown = use_memo((capture.clone(), filter), |(capture, filter)| {
        let shows = capture.summaries.iter().enumerate();
        let shows = shows
            .filter(|(_, s)| filter.shows(s))
            .map(|(i, _)| i as u32);
        Shared(Rc::new(shows.collect::<Vec<u32>>()))
    });
    let opcodes = use_memo(capture.clone(), |capture| opcodes_in(&capture.summaries));
    html! { <>
        <CaptureFilters qpn_text={state.qpn_text.clone()} qpn_error={qpn.err()} opcode={state.opcode}
            problems={state.problems} opcodes={opcodes} on={on.clone()} />
        <CaptureList capture={capture.clone()} shown={(*shown).clone()} selected={state.picked}
            on_pick={on.reform(CaptureAction::Pick)} />
        if let Some(n) = state.picked {
            <FrameDetail number={n} capture={capture.clone()} />
        }
        if !capture.conversations.is_empty() {
            <QpTimeline capture={capture.clone()} at={state.conversation}
                on_pick={on.reform(CaptureAction::Conversation)} />
        }
    </> }
}

#[derive(Properties, PartialEq)]
struct DetailProps {
    /// The frame's number in the list, from 1.
    number: usize,
    capture: Shared<Capture>,
}

/// The picked frame in the dissector.
#[function_component]
fn FrameDetail(props: &DetailProps) -> Html {
    let n = props.number;
    let Some(f) = props.capture.frames.get(n.wrapping_sub(1)) else {
        return html! {};
    };
    let data = Rc::new(f.data(&props.capture.bytes).to_vec());
    html! {
        <section class="capture-detail" aria-label={format!("Frame {n}")}>
            <h4>{ format!("Frame {n}: {} bytes", data.len()) }</h4>
            <Dissector bytes={data} link={f.link_type} id="cap" />
        </section>
    }
}

/// The opcodes the capture holds, with their names, for the filter's choices.
fn opcodes_in(summaries: &[FrameSummary]) -> Vec<(u8, String)> {
    let mut seen = [false; 256];
    for o in summaries.iter().filter_map(|s| s.opcode) {
        seen[usize::from(o)] = true;
    }
    let held = (0..=255u8).filter(|o| seen[usize::from(*o)]);
    held.map(|o| (o, Opcode(o).name().unwrap_or_default()))
        .collect()
}

#[derive(Properties, PartialEq)]
struct ProgressProps {
    name: String,
    size: usize,
    /// Bytes and frames decoded so far.
    progress: (usize, usize),
}

#[function_component]
fn DecodeProgress(props: &ProgressProps) -> Html {
    let ((offset, frames), size) = (props.progress, props.size.max(1));
    let (percent, mb) = (offset * 100 / size, size as f64 / 1e6);
    html! {
        <div class="capture-progress">
            <label for="cap-progress">{ format!("Decoding {}: {frames} frames, {percent}% of {mb:.1} MB", props.name) }</label>
            <progress id="cap-progress" max={size.to_string()} value={offset.to_string()} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct FilterProps {
    qpn_text: String,
    qpn_error: Option<String>,
    opcode: Option<u8>,
    problems: bool,
    /// The opcodes in the capture, with their names.
    opcodes: Rc<Vec<(u8, String)>>,
    on: Callback<CaptureAction>,
}

/// The QPN filter's box: decimal or `0x` hex, empty for any.
static QPN_FIELD: FieldDef = FieldDef {
    key: "qpn",
    label: "QPN",
    unit: "",
    help: "",
    reads: Reads::Text,
};

#[function_component]
fn CaptureFilters(props: &FilterProps) -> Html {
    let qpn_in = props.on.reform(|(_, text)| CaptureAction::Qpn(text));
    let op_change = props.on.reform(|e: Event| {
        let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
        CaptureAction::Opcode(s.value().parse().ok())
    });
    let prob_change = props.on.reform(|e: Event| {
        CaptureAction::Problems(
            e.target_unchecked_into::<web_sys::HtmlInputElement>()
                .checked(),
        )
    });
    let err = props.qpn_error.clone();
    html! {
        <div class="capture-filters" role="group" aria-label="Filter frames">
            <TextField def={&QPN_FIELD} id="cap-qpn" placeholder="any" text={props.qpn_text.clone()}
                refusal={err.map(Refusal::plain)} on_type={qpn_in} />
            <ChoiceField key_name="opcode" id="cap-opcode" label="Opcode">
                <select id="cap-opcode" onchange={op_change}>
                    <option value="" selected={props.opcode.is_none()}>{ "any" }</option>
                    { for props.opcodes.iter().map(|(o, name)| html! {
                        <option value={o.to_string()} selected={props.opcode == Some(*o)}>{ format!("{name} ({o:#04x})") }</option>
                    }) }
                </select>
            </ChoiceField>
            <label class="check"><input type="checkbox" id="cap-problems" checked={props.problems} onchange={prob_change} />
                { " Errors, NAKs and retransmissions only" }</label>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct QpTimelineProps {
    capture: Shared<Capture>,
    at: usize,
    on_pick: Callback<usize>,
}

/// A conversation's PSN timeline, with the choice of conversation.
#[function_component]
fn QpTimeline(props: &QpTimelineProps) -> Html {
    let convs = &props.capture.conversations;
    let at = props.at.min(convs.len().saturating_sub(1));
    let pick = props.on_pick.reform(|e: Event| {
        let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
        s.value().parse().unwrap_or(0)
    });
    let Some(conv) = convs.get(at) else {
        return html! {};
    };
    let drawn = Conversation {
        a: conv.a.clone(),
        b: conv.b.clone(),
        qpns: conv.qpns.clone(),
        points: conv.points.iter().take(MAX_POINTS).copied().collect(),
    };
    let option = |(i, c): (usize, &Conversation)| {
        let qpns: Vec<String> = c.qpns.iter().map(|q| format!("{q:#x}")).collect();
        let text = format!("{} ⇄ {} · QP {}", c.a, c.b, qpns.join(", "));
        html! { <option value={i.to_string()} selected={i == at}>{ text }</option> }
    };
    html! {
        <section class="qp-view" aria-label="Per-QP view">
            <h4>{ "Per-QP PSN timeline" }</h4>
            <div class="form-field">
                <label for="cap-conv">{ "Conversation" }</label>
                <select id="cap-conv" onchange={pick}>{ for convs.iter().enumerate().map(option) }</select>
            </div>
            if conv.points.len() > MAX_POINTS {
                <p class="qp-note">{ format!("The first {MAX_POINTS} of {} packets are drawn.", conv.points.len()) }</p>
            }
            <PsnTimeline conversation={drawn} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct CaptureListProps {
    capture: Shared<Capture>,
    /// Indexes of the frames the filter lets through.
    shown: Shared<Vec<u32>>,
    selected: Option<usize>,
    on_pick: Callback<usize>,
}

/// The packet list: a scrolling table that draws only the rows in view, each decoded in
/// full when drawn.
#[function_component]
fn CaptureList(props: &CaptureListProps) -> Html {
    let first = use_state(|| 0usize);
    let onscroll = {
        let first = first.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::Element = e.target_unchecked_into();
            let row = (f64::from(el.scroll_top()) / ROW_PX) as usize;
            if row != *first {
                first.set(row);
            }
        })
    };
    // A click anywhere on a row picks its frame; the number's button is the keyboard's way.
    let onclick = {
        let on_pick = props.on_pick.clone();
        Callback::from(move |e: MouseEvent| {
            let row = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
            let row = row.and_then(|r| r.closest("[data-frame]").ok().flatten());
            let number = row.and_then(|r| r.get_attribute("data-frame")?.parse().ok());
            number.into_iter().for_each(|n| on_pick.emit(n));
        })
    };
    let n = props.shown.len();
    let from = first.saturating_sub(OVERSCAN).min(n);
    let to = (*first + VIEW_ROWS + OVERSCAN).min(n);
    let c = &props.capture;
    let start_ns = c.frames.first().map(|f| f.timestamp_ns).unwrap_or(0);
    let rows = props.shown[from..to].iter().filter_map(|&i| {
        let i = i as usize;
        let (f, s) = (c.frames.get(i)?, c.summaries.get(i)?);
        let number = i + 1;
        let d = dissect(f.data(&c.bytes), f.link_type);
        let mut r = row_from(number, f.timestamp_ns, &d);
        // Retransmissions are judged across the whole capture, in the summaries.
        r.role = s.role;
        let is_sel = props.selected == Some(number);
        // A problem first, then a retransmission, NAK or CNP, then the MAD a UD SEND carries.
        let mark = r.role.is_marked().then(|| r.role.name().to_string());
        let note = r.error.clone().or(mark).or_else(|| d.mad_name()).unwrap_or_default();
        Some(html! {
            <tr class={classes!("capture-row", is_sel.then_some("sel"), r.has_error().then_some("bad"),
                r.role.is_marked().then_some("marked"))}
                data-frame={number.to_string()}>
                <td><button type="button" class="frame-pick" aria-pressed={is_sel.to_string()}>{ number }</button></td>
                <td>{ format!("{:.6}", r.time_ns.saturating_sub(start_ns) as f64 / 1e9) }</td>
                <td>{ &r.source }</td><td>{ &r.destination }</td>
                <td>{ &r.opcode_name }</td>
                <td>{ r.qpn.map(|q| format!("{q:#x}")).unwrap_or_default() }</td>
                <td>{ r.psn.map(|p| p.to_string()).unwrap_or_default() }</td>
                <td>{ r.len }</td>
                <td>{ match r.icrc { IcrcStatus::Valid => "ok", IcrcStatus::Invalid => "BAD", IcrcStatus::Absent => "—" } }</td>
                // A long error is cut to the column; all of it is in the title and, once the
                // frame is picked, in its dissection.
                <td class="capture-note" title={note.clone()}>{ note }</td>
            </tr>
        })
    });
    html! {
        <div class="capture-list-wrap" {onscroll}>
            <table class="capture-list" {onclick} data-frames={c.frames.len().to_string()}
                data-decode-ms={format!("{:.1}", c.busy_ms)}>
                <caption>{ format!("{n} of {} frames", c.frames.len()) }</caption>
                <thead><tr>
                    <th scope="col">{ "No." }</th><th scope="col">{ "Time (s)" }</th><th scope="col">{ "Source" }</th>
                    <th scope="col">{ "Destination" }</th><th scope="col">{ "Opcode" }</th><th scope="col">{ "QPN" }</th>
                    <th scope="col">{ "PSN" }</th><th scope="col">{ "Length" }</th><th scope="col">{ "ICRC" }</th><th scope="col">{ "Note" }</th>
                </tr></thead>
                <tbody>
                    { spacer(from) }
                    { for rows }
                    { spacer(n - to) }
                </tbody>
            </table>
        </div>
    }
}

/// Stands in for `rows` rows not drawn, so the scroll bar keeps the whole list's height.
fn spacer(rows: usize) -> Html {
    if rows == 0 {
        return html! {};
    }
    let style = format!("height: {}px", rows as f64 * ROW_PX);
    html! { <tr class="capture-spacer" aria-hidden="true" {style}><td colspan="10"></td></tr> }
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
            p.role.name(),
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
