//! The fabric lab: the reference's claims about fabrics, each tested by running two
//! scenarios through `engine::netsim` in a Web Worker and reading the runs' own numbers
//! (`engine::netsim::lab`). The page keeps the case, the seed and the simulated time in its
//! URL, refuses a run too large for a browser with the command that runs it natively, and
//! stops the worker on Cancel.

pub mod protocol;
mod results;
mod runner;

use std::rc::Rc;

use engine::netsim::lab::{lab_case, LabCase, LabRuns, CASES, EXERCISES};
use engine::netsim::{Progress, Report};
use yew::prelude::*;

use crate::views::form::{whole, ChoiceField, FieldDef, Form, Reads, Refusal, TextField};
use crate::views::page_query;
use crate::views::try_this::{attempts, use_tried, TryThis};
use crate::views::Shared;
use results::Results;
use runner::{use_runner, Plan};

/// The parameters every case's two scenarios share, overriding the case's own when typed.
static FIELDS: [FieldDef; 2] = [
    FieldDef {
        key: "seed",
        label: "Seed",
        unit: "",
        help: "picks ECMP's hashes and the random draws; empty: the case's own",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "duration",
        label: "Simulated time",
        unit: "µs",
        help: "the longest a run goes on; empty: the case's own",
        reads: Reads::Whole,
    },
];

/// Longest simulated time a learner may ask for, µs (a second of fabric time).
const MAX_DURATION_US: u64 = 1_000_000;

/// Where a comparison stands.
#[derive(Clone, PartialEq)]
pub enum RunState {
    Idle,
    /// Both sides queued in the worker; each side's progress, 0-1.
    Running {
        progress: [f64; 2],
    },
    Done(Shared<Finished>),
    Cancelled,
    /// Why the runs did not start or did not end.
    Failed(String),
}

/// Two finished runs, with the milliseconds each took in the worker.
pub struct Finished {
    pub runs: [Report; 2],
    pub solve_ms: [Option<f64>; 2],
}

impl PartialEq for Lab {
    fn eq(&self, other: &Self) -> bool {
        self.case.id == other.case.id && self.form == other.form && self.run == other.run
    }
}

/// The page: the case, the parameters as typed, and the comparison's state.
#[derive(Clone)]
pub struct Lab {
    case: &'static LabCase,
    form: Form,
    run: RunState,
    /// Each side's report while the other still runs.
    partial: [Option<(Report, Option<f64>)>; 2],
}

pub enum LabAction {
    Pick(String),
    Type(&'static str, String),
    Started,
    Progress(usize, Progress),
    Finished(usize, Box<Report>, Option<f64>),
    Failed(String),
    Cancel,
}

impl Lab {
    fn from_query(pairs: &[(String, String)]) -> Lab {
        let case = page_query::value(pairs, "case")
            .and_then(lab_case)
            .unwrap_or(&CASES[0]);
        let mut form = Form::new(FIELDS.iter().map(|d| (d.key, String::new())));
        form.read_query("", pairs);
        let mut lab = Lab {
            case,
            form,
            run: RunState::Idle,
            partial: [None, None],
        };
        lab.check();
        lab
    }

    /// Refuses each typed parameter that does not read, under its box.
    fn check(&mut self) {
        for (key, max) in [("seed", u64::MAX), ("duration", MAX_DURATION_US)] {
            let text = self.form.text(key).to_string();
            match text.trim().is_empty() || whole(&text, max).is_ok_and(|v| v > 0) {
                true => self.form.accept(key),
                false => {
                    let why = whole(&text, max)
                        .err()
                        .unwrap_or_else(|| "more than 0".into());
                    self.form.refuse(key, why);
                }
            }
        }
    }

    /// The typed overrides, when every box reads.
    fn plan(&self) -> Option<Plan> {
        let read = |key, max| match self.form.text(key).trim() {
            "" => Some(None),
            text => whole(text, max).ok().map(Some),
        };
        let (seed, duration_us) = (read("seed", u64::MAX)?, read("duration", MAX_DURATION_US)?);
        Some(Plan {
            case: self.case,
            seed,
            duration_us,
        })
    }

    /// The URL's pairs: the case, and each parameter typed.
    fn query(&self) -> Vec<(String, String)> {
        let base = Form::new(FIELDS.iter().map(|d| (d.key, String::new())));
        let mut pairs = vec![("case".to_string(), self.case.id.to_string())];
        pairs.extend(self.form.changed("", &base));
        pairs
    }
}

impl Reducible for Lab {
    type Action = LabAction;
    fn reduce(self: Rc<Self>, action: LabAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            LabAction::Pick(id) => {
                next.case = lab_case(&id).unwrap_or(next.case);
                (next.run, next.partial) = (RunState::Idle, [None, None]);
            }
            LabAction::Type(key, text) => {
                next.form.set(key, text);
                next.check();
            }
            LabAction::Started => {
                next.run = RunState::Running { progress: [0.0; 2] };
                next.partial = [None, None];
            }
            LabAction::Progress(side, p) => {
                if let RunState::Running { progress } = &mut next.run {
                    progress[side] = (p.simulated_us / p.duration_us.max(1.0)).clamp(0.0, 1.0);
                }
            }
            LabAction::Finished(side, report, ms) => {
                if !matches!(next.run, RunState::Running { .. }) {
                    return self;
                }
                next.partial[side] = Some((*report, ms));
                if let [Some((a, ma)), Some((b, mb))] = next.partial.clone() {
                    let finished = Finished {
                        runs: [a, b],
                        solve_ms: [ma, mb],
                    };
                    next.run = RunState::Done(Shared(Rc::new(finished)));
                } else if let RunState::Running { progress } = &mut next.run {
                    progress[side] = 1.0;
                }
            }
            LabAction::Failed(why) => next.run = RunState::Failed(why),
            LabAction::Cancel => next.run = RunState::Cancelled,
        }
        Rc::new(next)
    }
}

fn state_name(run: &RunState) -> &'static str {
    match run {
        RunState::Idle => "idle",
        RunState::Running { .. } => "running",
        RunState::Done(_) => "done",
        RunState::Cancelled => "cancelled",
        RunState::Failed(_) => "failed",
    }
}

#[function_component]
pub fn FabricLabView() -> Html {
    let lab = use_reducer(|| Lab::from_query(&page_query::read()));
    let (tried, on_runs) = use_tried(&EXERCISES);
    {
        let pairs = lab.query();
        use_effect_with(pairs, |pairs| page_query::replace(pairs));
    }
    {
        // A finished comparison counts towards its "Try this".
        let done = match &lab.run {
            RunState::Done(f) => Some((lab.case.id, f.clone())),
            _ => None,
        };
        use_effect_with(
            done.as_ref().map(|(id, f)| (*id, Rc::as_ptr(&f.0))),
            move |_| {
                if let Some((id, f)) = done {
                    on_runs.emit(LabRuns {
                        case: id.to_string(),
                        runs: f.runs.clone(),
                    });
                }
            },
        );
    }
    let runner = use_runner(lab.dispatcher());
    let on_run = {
        let (plan, runner, dispatch) = (lab.plan(), runner.clone(), lab.dispatcher());
        Callback::from(move |_: MouseEvent| match &plan {
            Some(plan) => runner.run(plan),
            None => dispatch.dispatch(LabAction::Failed("fix the marked boxes first".into())),
        })
    };
    let on_cancel = {
        let (runner, dispatch) = (runner.clone(), lab.dispatcher());
        Callback::from(move |_: MouseEvent| {
            runner.cancel();
            dispatch.dispatch(LabAction::Cancel);
        })
    };
    let on = lab.dispatcher().to_callback();
    html! {
        <div class="fabric-lab" data-run={state_name(&lab.run)} data-case={lab.case.id}>
            <TryThis view="fabric-lab" attempts={attempts(&EXERCISES, tried)} />
            <CasePicker case={lab.case.id} form={lab.form.clone()} on={on.clone()} />
            <section class="fabric-claim" aria-labelledby="fab-claim">
                <h3 id="fab-claim">{ lab.case.title }</h3>
                <p>{ lab.case.claim }</p>
                <p class="fabric-sides">{ format!("Runs: {} · {}", lab.case.sides[0].label, lab.case.sides[1].label) }</p>
            </section>
            <div class="fabric-actions">
                <button type="button" class="fabric-run" onclick={on_run}
                    disabled={matches!(lab.run, RunState::Running { .. })}>{ "Run both sides" }</button>
                if matches!(lab.run, RunState::Running { .. }) {
                    <button type="button" class="fabric-cancel" onclick={on_cancel}>{ "Cancel" }</button>
                }
            </div>
            <RunStatus run={lab.run.clone()} case={lab.case.id} />
            if let RunState::Done(finished) = &lab.run {
                <Results case={lab.case.id} finished={finished.clone()} query={page_query::format(&lab.query())} />
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct PickerProps {
    case: &'static str,
    form: Form,
    on: Callback<LabAction>,
}

/// The case and the shared parameters.
#[function_component]
fn CasePicker(props: &PickerProps) -> Html {
    let pick = props.on.reform(|e: Event| {
        LabAction::Pick(
            e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value(),
        )
    });
    let on_type = props.on.reform(|(key, text)| LabAction::Type(key, text));
    html! {
        <div class="fabric-inputs">
            <ChoiceField key_name="case" id="fab-case" label="Claim to test">
                <select id="fab-case" onchange={pick}>
                    { for CASES.iter().map(|c| html! {
                        <option value={c.id} selected={c.id == props.case}>{ c.title }</option>
                    }) }
                </select>
            </ChoiceField>
            { for FIELDS.iter().map(|def| html! {
                <TextField {def} id={format!("fab-{}", def.key)} text={props.form.text(def.key).to_string()}
                    placeholder="the case's own" refusal={props.form.refusal(def.key).map(Refusal::plain)}
                    on_type={on_type.clone()} />
            }) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct StatusProps {
    run: RunState,
    case: &'static str,
}

/// Progress while the runs go, and why they stopped when they did not finish.
#[function_component]
fn RunStatus(props: &StatusProps) -> Html {
    let case = lab_case(props.case).unwrap_or(&CASES[0]);
    match &props.run {
        RunState::Running { progress } => html! {
            <div class="fabric-progress" aria-live="polite">
                { for progress.iter().zip(&case.sides).enumerate().map(|(i, (p, side))| html! {
                    <div class="form-field">
                        <label for={format!("fab-progress-{i}")}>{ format!("{}: {:.0} %", side.label, p * 100.0) }</label>
                        <progress id={format!("fab-progress-{i}")} max="1" value={p.to_string()} />
                    </div>
                }) }
            </div>
        },
        RunState::Cancelled => {
            html! { <p class="fabric-note" role="status">{ "Cancelled: the worker was stopped. Run again to start over." }</p> }
        }
        RunState::Failed(why) => {
            html! { <p class="field-error fabric-refusal" role="alert">{ why }</p> }
        }
        _ => html! {},
    }
}
