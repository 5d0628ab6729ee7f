//! The page's state and its reducer: the case picked, the parameters typed, and the run in
//! the worker (its progress, both sides' reports, the verdict).

use std::rc::Rc;

use engine::exercise::Progress as Tried;
use engine::netsim::{
    check_browser_budget, lab_case, LabCase, LabParams, LabRuns, Report, Scenario, SimError,
    Verdict, CASES, EXERCISES,
};
use yew::Reducible;

use super::fields::{read_params, FIELDS};
use super::worker::Heard;
use crate::views::form::Form;

/// Where the run stands; the page shows it as `data-run`.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    Running,
    Done,
    Cancelled,
    /// Refused before it ran: too large for the browser, or a scenario the engine refuses
    /// that no box of the form names.
    Refused(String),
    /// A box's value was refused (the message is under the box).
    Invalid,
    Failed(String),
}

impl Phase {
    pub fn name(&self) -> &'static str {
        match self {
            Phase::Running => "running",
            Phase::Done => "done",
            Phase::Cancelled => "cancelled",
            Phase::Refused(_) => "refused",
            Phase::Invalid => "invalid",
            Phase::Failed(_) => "failed",
        }
    }
}

/// One side's finished run.
#[derive(Debug, Clone)]
pub struct SideRun {
    pub report: Rc<Report>,
    pub solve_ms: Option<f64>,
}

impl PartialEq for SideRun {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.report, &other.report)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LabPage {
    pub case: &'static LabCase,
    pub form: Form,
    /// The last parameters the form read.
    pub params: LabParams,
    /// Bumped for every run asked for; the worker's messages carry `2 run + side`.
    pub run: u64,
    pub phase: Phase,
    /// The scenarios of the current run, once accepted.
    pub sides: Option<Rc<[Scenario; 2]>>,
    pub progress: [f64; 2],
    pub done: [Option<SideRun>; 2],
    pub verdict: Option<Verdict>,
    /// Bumped to start a fresh worker (after a cancel or a failure).
    pub worker: u64,
    /// Bumped on theme changes and resizes: the chart redraws.
    pub redraw: u64,
    /// Where the timeline stands: a sample of the longer run (`None`: its end).
    pub cursor: Option<usize>,
    pub playing: bool,
    /// Samples the player moves on per tick (one of [`SPEEDS`]).
    pub speed: usize,
    pub tried: Tried,
}

/// The player's speeds, in samples per tick.
pub const SPEEDS: [usize; 4] = [1, 4, 16, 64];

pub enum Action {
    Pick(String),
    Type {
        key: &'static str,
        text: String,
    },
    Edit {
        key: &'static str,
        text: String,
    },
    Run,
    Cancel,
    /// What the worker said.
    Heard(Heard),
    Redraw,
    /// The timeline moved to this sample of the longer run.
    Seek(usize),
    /// One sample back (-1) or on (+1).
    Step(i64),
    TogglePlay,
    /// The player's clock: `speed` samples on, stopping at the end.
    Tick,
    /// Samples per tick.
    Speed(usize),
}

impl LabPage {
    /// The page a URL's query asks for; it starts running at once.
    pub fn from_query(pairs: &[(String, String)]) -> LabPage {
        let case = crate::views::page_query::value(pairs, "case")
            .and_then(lab_case)
            .unwrap_or(&CASES[0]);
        let mut form = Form::new(FIELDS.iter().map(|f| (f.key, String::new())));
        form.read_query("", pairs);
        let mut page = LabPage {
            case,
            form,
            params: LabParams::default(),
            run: 0,
            phase: Phase::Running,
            sides: None,
            progress: [0.0; 2],
            done: [None, None],
            verdict: None,
            worker: 0,
            redraw: 0,
            cursor: None,
            playing: false,
            speed: 1,
            tried: Tried::default(),
        };
        page.start();
        page
    }

    /// The query that restores this page: the case and any parameter typed.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = vec![("case".to_string(), self.case.id.to_string())];
        pairs.extend(self.form.changed("", &Form::default()));
        pairs
    }

    /// Reads the form and, if every box reads and the engine accepts both sides within the
    /// browser's budget, asks for a new run.
    fn start(&mut self) {
        self.run += 1;
        self.progress = [0.0; 2];
        self.done = [None, None];
        self.verdict = None;
        self.sides = None;
        self.cursor = None;
        self.playing = false;
        self.form.accept_all();
        let params = match read_params(&self.form) {
            Ok(p) => p,
            Err((key, why)) => {
                self.form.refuse(key, why);
                self.phase = Phase::Invalid;
                return;
            }
        };
        self.params = params;
        match self.accepted_sides() {
            Ok(sides) => {
                self.sides = Some(Rc::new(sides));
                self.phase = Phase::Running;
            }
            Err(SimError::InvalidParameter(e)) if self.form.place(&e).is_some() => {
                self.phase = Phase::Invalid;
            }
            Err(e) => self.phase = Phase::Refused(e.to_string()),
        }
    }

    fn accepted_sides(&self) -> Result<[Scenario; 2], SimError> {
        let sides = self.case.scenarios_with(&self.params)?;
        for s in &sides {
            check_browser_budget(s)?;
        }
        Ok(sides)
    }

    /// Both reports, once both sides have finished.
    pub fn reports(&self) -> Option<[Rc<Report>; 2]> {
        match &self.done {
            [Some(a), Some(b)] => Some([a.report.clone(), b.report.clone()]),
            _ => None,
        }
    }

    /// The sample times of the run with more of them: the timeline's steps.
    pub fn timeline(&self) -> Option<Vec<f64>> {
        let [a, b] = self.reports()?;
        let longer = if b.time_us.len() > a.time_us.len() {
            b
        } else {
            a
        };
        (!longer.time_us.is_empty()).then(|| longer.time_us.clone())
    }

    /// The timeline's sample and its last index, if there is a timeline.
    fn position(&self) -> Option<(usize, usize)> {
        let last = self.timeline()?.len() - 1;
        Some((self.cursor.unwrap_or(last).min(last), last))
    }

    fn finish(&mut self, side: usize, solve_ms: Option<f64>, report: Box<Report>) {
        self.progress[side] = 1.0;
        self.done[side] = Some(SideRun {
            report: Rc::from(report),
            solve_ms,
        });
        let Some([a, b]) = self.reports() else {
            return;
        };
        self.verdict = Some((self.case.check)(&a, &b));
        self.phase = Phase::Done;
        let seen = LabRuns {
            case: self.case.id.to_string(),
            runs: [(*a).clone(), (*b).clone()],
        };
        self.tried = self.tried.observe(&EXERCISES, &seen);
    }

    /// The timeline's actions; false when one changes nothing.
    fn play(&mut self, action: Action) -> bool {
        match action {
            Action::Seek(i) => {
                let Some((_, last)) = self.position() else {
                    return false;
                };
                self.cursor = Some(i.min(last));
            }
            Action::Step(delta) => {
                let Some((at, last)) = self.position() else {
                    return false;
                };
                self.cursor = Some(at.saturating_add_signed(delta as isize).min(last));
                self.playing = false;
            }
            Action::TogglePlay => {
                let Some((at, last)) = self.position() else {
                    return false;
                };
                self.playing = !self.playing;
                if self.playing && at == last {
                    self.cursor = Some(0);
                }
            }
            Action::Tick => {
                let Some((at, last)) = self.position().filter(|_| self.playing) else {
                    return false;
                };
                let next = at.saturating_add(self.speed).min(last);
                self.cursor = Some(next);
                self.playing = next < last;
            }
            Action::Speed(speed) => {
                if !SPEEDS.contains(&speed) {
                    return false;
                }
                self.speed = speed;
            }
            _ => return false,
        }
        true
    }

    /// Which side of the current run a worker message is about, if it is about this run.
    fn side_of(&self, message_run: u64) -> Option<usize> {
        (self.phase == Phase::Running && message_run / 2 == self.run)
            .then_some((message_run % 2) as usize)
    }
}

impl Reducible for LabPage {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut page = (*self).clone();
        match action {
            Action::Pick(id) => {
                let Some(case) = lab_case(&id) else {
                    return self;
                };
                page.case = case;
                page.start();
            }
            Action::Type { key, text } => page.form.set(key, text),
            Action::Edit { key, text } => {
                page.form.set(key, text);
                page.start();
            }
            Action::Run => page.start(),
            Action::Cancel => {
                if page.phase != Phase::Running {
                    return self;
                }
                // A side that finished before the cancel is half a comparison: drop it.
                page.phase = Phase::Cancelled;
                page.progress = [0.0; 2];
                page.done = [None, None];
                page.worker += 1;
            }
            Action::Heard(Heard::Progress { run, progress }) => {
                let Some(side) = page.side_of(run) else {
                    return self;
                };
                page.progress[side] =
                    (progress.simulated_us / progress.duration_us.max(1e-9)).clamp(0.0, 1.0);
            }
            Action::Heard(Heard::Finished {
                run,
                solve_ms,
                result,
            }) => {
                let Some(side) = page.side_of(run) else {
                    return self;
                };
                match result {
                    Ok(report) => page.finish(side, solve_ms, report),
                    Err(e) => page.phase = Phase::Failed(e),
                }
            }
            Action::Heard(Heard::Failed(e)) => {
                page.phase = Phase::Failed(e);
                page.worker += 1;
            }
            Action::Redraw => page.redraw += 1,
            Action::Seek(_)
            | Action::Step(_)
            | Action::TogglePlay
            | Action::Tick
            | Action::Speed(_) => {
                if !page.play(action) {
                    return self;
                }
            }
        }
        Rc::new(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::netsim::{simulate, Limits};

    /// The deadlock case with both sides run here, as the worker would.
    fn finished_page() -> Rc<LabPage> {
        let mut page = Rc::new(LabPage::from_query(&[(
            "case".to_string(),
            "deadlock".to_string(),
        )]));
        let sides = page.sides.clone().expect("the case is accepted");
        for (side, scenario) in sides.iter().enumerate() {
            let report = simulate(scenario, &Limits::default()).expect("runs");
            let run = 2 * page.run + side as u64;
            page = page.reduce(Action::Heard(Heard::Finished {
                run,
                solve_ms: Some(1.0),
                result: Ok(Box::new(report)),
            }));
        }
        assert_eq!(page.phase, Phase::Done);
        page
    }

    #[test]
    fn a_cancel_after_one_side_finished_shows_nothing_of_the_run() {
        let page = Rc::new(LabPage::from_query(&[(
            "case".to_string(),
            "deadlock".to_string(),
        )]));
        let sides = page.sides.clone().expect("the case is accepted");
        let report = simulate(&sides[0], &Limits::default()).expect("runs");
        let run = 2 * page.run;
        let page = page.reduce(Action::Heard(Heard::Finished {
            run,
            solve_ms: Some(1.0),
            result: Ok(Box::new(report)),
        }));
        assert!(page.done[0].is_some());
        let worker = page.worker;
        let page = page.reduce(Action::Cancel);
        assert_eq!(page.phase, Phase::Cancelled);
        assert!(page.done.iter().all(Option::is_none));
        assert_eq!(page.progress, [0.0; 2]);
        assert_eq!(page.worker, worker + 1, "a fresh worker runs the next run");
    }

    #[test]
    fn the_player_moves_on_by_its_speed_and_stops_at_the_end() {
        let page = finished_page();
        let last = page.timeline().expect("a timeline").len() - 1;
        assert!(last > 8, "{last} samples are too few to tell speeds apart");
        let page = page.reduce(Action::TogglePlay);
        assert_eq!((page.cursor, page.playing), (Some(0), true));
        let page = page.reduce(Action::Tick);
        assert_eq!(page.cursor, Some(1));
        let page = page.reduce(Action::Speed(4)).reduce(Action::Tick);
        assert_eq!(page.cursor, Some(5));
        // A speed the list does not offer is ignored.
        let page = page.reduce(Action::Speed(3)).reduce(Action::Tick);
        assert_eq!(page.cursor, Some(9));
        let mut page = page.reduce(Action::Speed(64));
        while page.playing {
            page = page.reduce(Action::Tick);
        }
        assert_eq!(page.cursor, Some(last));
    }
}
