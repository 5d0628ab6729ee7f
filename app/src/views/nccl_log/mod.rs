//! The NCCL log explainer: paste or drop an `NCCL_DEBUG=INFO` log and see which transport
//! NCCL used, whether GPUDirect RDMA was on, and what to change. Reading, summary and
//! findings are `engine::nccl_log`'s; the view reads the log a slice at a time between
//! frames, so a 100,000-line paste keeps the page responsive. The log never leaves the
//! browser and is not put in the URL.

mod report;
mod sample;

use std::rc::Rc;

use engine::nccl_log::{diagnose, Finding, LogReader, Summary};
use gloo::timers::callback::Timeout;
use yew::prelude::*;

use crate::base;
use crate::views::file::{FileDrop, FileInput};
use crate::views::{kept, page_query};
use report::Report;

/// Lines read per slice: a few milliseconds of work, so typing and scrolling stay smooth.
const SLICE_LINES: usize = 4000;

/// Lines not read that the page lists; a count stands for the rest.
const UNREAD_ROWS: usize = 200;

/// What the explainer shows for one log.
#[derive(Debug, PartialEq)]
pub struct Explained {
    pub summary: Summary,
    pub findings: Vec<Finding>,
    pub lines: usize,
    pub unrecognised: usize,
    /// The text of every line a finding or a fact of the summary rests on, by line number.
    pub quoted: Vec<(usize, String)>,
    /// The first [`UNREAD_ROWS`] lines the reader did not recognise, as pasted.
    pub unread: Vec<(usize, String)>,
    /// The calculator (/nccl) with what the log knows of the job, and those facts in words.
    pub calculator: Option<(String, String)>,
}

impl Explained {
    fn new(text: &str, reader: LogReader) -> Explained {
        let log = reader.finish();
        let findings = diagnose(&log);
        let summary = log.summary();
        // The lines findings rest on, and those each fact of the summary was read from.
        let mut wanted: Vec<usize> = findings.iter().flat_map(|f| f.lines.clone()).collect();
        wanted.extend(summary.sources.iter().flat_map(|f| f.lines.iter().copied()));
        wanted.sort_unstable();
        wanted.dedup();
        let unrecognised: Vec<usize> = log.unrecognised().map(|(n, _)| n).collect();
        let unread_shown = &unrecognised[..unrecognised.len().min(UNREAD_ROWS)];
        let mut quoted = Vec::new();
        let mut unread = Vec::new();
        for (n, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
            if wanted.binary_search(&n).is_ok() {
                quoted.push((n, line.to_string()));
            }
            if unread_shown.binary_search(&n).is_ok() {
                unread.push((n, line.to_string()));
            }
        }
        Explained {
            calculator: calculator_link(&summary.calculator_query()),
            summary,
            unrecognised: unrecognised.len(),
            lines: log.records.len(),
            findings,
            quoted,
            unread,
        }
    }
}

/// The link to the calculator with the engine's query, and what it carries in words;
/// `None` when the log knows nothing of the job.
fn calculator_link(pairs: &[(&'static str, String)]) -> Option<(String, String)> {
    if pairs.is_empty() {
        return None;
    }
    let words: Vec<String> = pairs
        .iter()
        .map(|(key, value)| {
            let n = value.parse::<u64>().unwrap_or(0);
            match (*key, value.as_str()) {
                ("gpn", _) => engine::prose::count(n, "GPU per host", "GPUs per host"),
                ("nodes", _) => engine::prose::count(n, "host", "hosts"),
                ("nics", _) => engine::prose::count(n, "NIC per host", "NICs per host"),
                ("nic", "roce") => "RoCE".to_string(),
                ("nic", "ib") => "InfiniBand".to_string(),
                ("nic", "tcp") => "TCP sockets".to_string(),
                ("nic", "none") => "no network".to_string(),
                ("gdr", "1") => "GPUDirect RDMA on".to_string(),
                ("gdr", _) => "GPUDirect RDMA off".to_string(),
                (key, value) => format!("{key} {value}"),
            }
        })
        .collect();
    Some((
        format!("{}{}", base::href("/nccl"), page_query::format(pairs)),
        words.join(", "),
    ))
}

/// Where the pasted log is kept for this tab ([`kept`]), so following a finding and coming
/// Back finds it again.
const KEPT_LOG_KEY: &str = "rdma-lab.nccl-log";

/// The page's state: the text, the reading in progress, the last answer.
#[derive(Debug, Clone, PartialEq)]
pub struct LogPage {
    pub text: Rc<String>,
    /// Bumped for every new text, so a slice of an older text is dropped.
    pub generation: u64,
    pub reading: Option<LogReader>,
    pub explained: Option<Rc<Explained>>,
    pub note: Option<String>,
    /// "Try an example" was pressed over a log of the learner's: the page asks first.
    pub asking_to_replace: bool,
}

pub enum Action {
    Text(String),
    /// Read the next slice of this generation's text.
    Slice(u64),
    Note(String),
    /// Show the example, asking first if it would replace a log of the learner's.
    Example,
    /// Replace the learner's log with the example after all.
    ReplaceWithExample,
    /// Keep the learner's log.
    KeepLog,
}

impl Reducible for LogPage {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Example
                if !next.text.trim().is_empty() && *next.text != sample::SOCKET_FALLBACK =>
            {
                next.asking_to_replace = true;
            }
            Action::Example | Action::ReplaceWithExample => {
                return self.reduce(Action::Text(sample::SOCKET_FALLBACK.to_string()));
            }
            Action::KeepLog => next.asking_to_replace = false,
            Action::Text(text) => {
                next.asking_to_replace = false;
                next.generation += 1;
                next.note = None;
                next.reading = (!text.trim().is_empty()).then(LogReader::new);
                if next.reading.is_none() {
                    next.explained = None;
                }
                next.text = Rc::new(text);
            }
            Action::Slice(generation) if generation == next.generation => {
                if let Some(mut reader) = next.reading.take() {
                    if reader.step(&next.text, SLICE_LINES) {
                        next.explained = Some(Rc::new(Explained::new(&next.text, reader)));
                    } else {
                        next.reading = Some(reader);
                    }
                }
            }
            Action::Slice(_) => return self,
            Action::Note(note) => next.note = Some(note),
        }
        Rc::new(next)
    }
}

impl Default for LogPage {
    fn default() -> LogPage {
        LogPage {
            text: Rc::new(String::new()),
            generation: 0,
            reading: None,
            explained: None,
            note: None,
            asking_to_replace: false,
        }
    }
}

impl LogPage {
    /// The page as it opens: with the log this tab kept, being read again.
    fn opened(kept: Option<String>) -> Rc<LogPage> {
        let page = Rc::new(LogPage::default());
        match kept {
            Some(text) => page.reduce(Action::Text(text)),
            None => page,
        }
    }
}

/// Reads a dropped or chosen file as text and hands it to the page.
fn read_file(file: web_sys::File, page: UseReducerDispatcher<LogPage>) {
    wasm_bindgen_futures::spawn_local(async move {
        let promise = file.text();
        match wasm_bindgen_futures::JsFuture::from(promise).await {
            Ok(text) => page.dispatch(Action::Text(text.as_string().unwrap_or_default())),
            Err(_) => page.dispatch(Action::Note(format!(
                "{} could not be read as text; paste its contents instead.",
                file.name()
            ))),
        }
    });
}

#[function_component]
pub fn NcclLogView() -> Html {
    let page = use_reducer(|| (*LogPage::opened(kept::kept(KEPT_LOG_KEY))).clone());
    // Every new text is kept for this tab (an empty one forgets it).
    {
        let text = page.text.clone();
        use_effect_with(page.generation, move |_| kept::keep(KEPT_LOG_KEY, &text));
    }
    // One slice per timer tick while a reading is in progress; a new text or unmount
    // drops the pending tick.
    {
        let dispatch = page.dispatcher();
        let generation = page.generation;
        let progress = page.reading.as_ref().map(LogReader::lines_read);
        use_effect_with((generation, progress), move |(generation, progress)| {
            let generation = *generation;
            let tick = progress
                .map(|_| Timeout::new(0, move || dispatch.dispatch(Action::Slice(generation))));
            move || drop(tick)
        });
    }
    let oninput = {
        let page = page.dispatcher();
        Callback::from(move |e: InputEvent| {
            let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            page.dispatch(Action::Text(area.value()));
        })
    };
    let on_file = {
        let page = page.dispatcher();
        Callback::from(move |file| read_file(file, page.clone()))
    };
    let on = |action: fn() -> Action| {
        let page = page.dispatcher();
        Callback::from(move |_: MouseEvent| page.dispatch(action()))
    };
    let (example, replace, keep) = (
        on(|| Action::Example),
        on(|| Action::ReplaceWithExample),
        on(|| Action::KeepLog),
    );
    let clear = {
        let page = page.dispatcher();
        Callback::from(move |_| page.dispatch(Action::Text(String::new())))
    };
    let status = match (&page.reading, &page.explained) {
        (Some(r), _) => format!("Reading… {} lines so far", r.lines_read()),
        (None, Some(e)) => format!(
            "Read {} lines; {} not recognised (kept, not used)",
            e.lines, e.unrecognised
        ),
        (None, None) => {
            "Paste a log, or drop a file here. It is read in this browser and never sent anywhere."
                .to_string()
        }
    };
    html! {
        <section class="ncclog-view" aria-labelledby="ncclog-title">
            <h2 id="ncclog-title" class="ncclog-title">{ "NCCL log explainer" }</h2>
            <FileDrop class="ncclog-input" on_file={on_file.clone()}>
                <label for="ncclog-text">{ "NCCL_DEBUG=INFO output, from every rank" }</label>
                <textarea id="ncclog-text" rows="10" spellcheck="false" autocomplete="off"
                    placeholder="host:pid:tid [0] NCCL INFO …" value={(*page.text).clone()} {oninput}
                    aria-describedby="ncclog-status" />
                <div class="ncclog-actions">
                    <label class="ncclog-file">{ "Open a log file " }
                        <FileInput id="ncclog-file" accept=".log,.txt,.out,text/plain" {on_file} />
                    </label>
                    <button type="button" class="ncclog-example" onclick={example}>{ "Try an example" }</button>
                    <button type="button" class="ncclog-clear" onclick={clear}>{ "Clear" }</button>
                </div>
                if page.asking_to_replace {
                    <div class="ncclog-confirm" role="alert">
                        <p>{ "The example would replace the log you pasted. Replace it?" }</p>
                        <button type="button" class="ncclog-replace" onclick={replace}>{ "Replace my log" }</button>
                        <button type="button" class="ncclog-keep" onclick={keep}>{ "Keep my log" }</button>
                    </div>
                }
                <p id="ncclog-status" class="ncclog-status" role="status">{ status }</p>
                if let Some(note) = &page.note {
                    <p class="ncclog-note" role="alert">{ note.clone() }</p>
                }
            </FileDrop>
            if let Some(explained) = &page.explained {
                <Report explained={explained.clone()} stale={page.reading.is_some()} />
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle(mut page: Rc<LogPage>) -> Rc<LogPage> {
        while page.reading.is_some() {
            let g = page.generation;
            page = page.reduce(Action::Slice(g));
        }
        page
    }

    #[test]
    fn the_example_is_read_in_slices_to_the_same_answer_as_a_whole_parse() {
        let page = Rc::new(LogPage::default()).reduce(Action::Text(sample::SOCKET_FALLBACK.into()));
        let page = settle(page);
        let e = page.explained.as_ref().expect("an answer");
        let log = engine::nccl_log::parse(sample::SOCKET_FALLBACK);
        assert_eq!(e.summary, log.summary());
        assert_eq!(e.findings, diagnose(&log));
        assert!(e
            .findings
            .iter()
            .any(|f| f.topic.ends_with("#nccl-falls-back-to-sockets")));
        // Every line a finding names is quoted.
        for f in &e.findings {
            for n in &f.lines {
                assert!(e.quoted.iter().any(|(q, _)| q == n), "line {n} quoted");
            }
        }
    }

    #[test]
    fn the_lines_not_read_are_listed_as_pasted_and_the_job_links_to_the_calculator() {
        let text = format!("{}Epoch 1: loss 2.31\n", sample::SOCKET_FALLBACK);
        let page = settle(Rc::new(LogPage::default()).reduce(Action::Text(text.clone())));
        let e = page.explained.as_ref().expect("an answer");
        let last = text.lines().count();
        assert_eq!(e.unrecognised, 1);
        assert_eq!(e.unread, [(last, "Epoch 1: loss 2.31".to_string())]);
        let (href, words) = e.calculator.as_ref().expect("a link");
        assert_eq!(href, "nccl/?gpn=1&nodes=2&nic=tcp&nics=1");
        assert_eq!(
            words,
            "1 GPU per host, 2 hosts, TCP sockets, 1 NIC per host"
        );
        // Garbage knows no job; a long one lists the first lines and counts them all.
        let garbage = "x\n".repeat(UNREAD_ROWS + 5);
        let page = settle(Rc::new(LogPage::default()).reduce(Action::Text(garbage)));
        let e = page.explained.as_ref().expect("an answer");
        assert_eq!(e.calculator, None);
        assert_eq!(
            (e.unrecognised, e.unread.len()),
            (UNREAD_ROWS + 5, UNREAD_ROWS)
        );
    }

    #[test]
    fn a_slice_of_an_old_text_is_dropped() {
        let page = Rc::new(LogPage::default()).reduce(Action::Text("a\nb".into()));
        let old = page.generation;
        let page = page.reduce(Action::Text(sample::SOCKET_FALLBACK.into()));
        let page = page.reduce(Action::Slice(old));
        assert!(page.explained.is_none() && page.reading.is_some());
        let page = settle(page.reduce(Action::Text(String::new())));
        assert!(page.explained.is_none() && page.reading.is_none());
    }

    #[test]
    fn a_long_log_takes_many_slices() {
        let text = "x NCCL INFO hello\n".repeat(3 * SLICE_LINES + 5);
        let mut page = Rc::new(LogPage::default()).reduce(Action::Text(text));
        let mut slices = 0;
        while page.reading.is_some() {
            let g = page.generation;
            page = page.reduce(Action::Slice(g));
            slices += 1;
        }
        assert_eq!(slices, 4);
        assert_eq!(page.explained.as_ref().unwrap().lines, 3 * SLICE_LINES + 5);
    }

    #[test]
    fn the_example_asks_before_replacing_a_pasted_log() {
        let mine = "host:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE".to_string();
        let page = Rc::new(LogPage::default()).reduce(Action::Text(mine.clone()));
        let asked = page.reduce(Action::Example);
        assert!(asked.asking_to_replace);
        assert_eq!(*asked.text, mine, "nothing is replaced before the answer");
        let kept = asked.clone().reduce(Action::KeepLog);
        assert!(!kept.asking_to_replace);
        assert_eq!(*kept.text, mine);
        let replaced = asked.reduce(Action::ReplaceWithExample);
        assert!(!replaced.asking_to_replace);
        assert_eq!(*replaced.text, sample::SOCKET_FALLBACK);
        // An empty box, or the example itself, has nothing to lose.
        let empty = Rc::new(LogPage::default()).reduce(Action::Example);
        assert_eq!(*empty.text, sample::SOCKET_FALLBACK);
        assert!(!empty.reduce(Action::Example).asking_to_replace);
        // A page opened with a kept log reads it again.
        let opened = settle(LogPage::opened(Some(mine.clone())));
        assert_eq!(*opened.text, mine);
        assert!(opened.explained.is_some());
    }
}
