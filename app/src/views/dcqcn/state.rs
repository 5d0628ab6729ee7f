//! The page's state and its reducer: the scenario being edited, what the learner typed,
//! which values the engine refused, which panel sections are open, and the runs on screen.

use std::rc::Rc;

use engine::dcqcn::exercise::EXERCISES;
use engine::dcqcn::{named_scenario, simulate_fluid, DcqcnParams, Limits, Model, Scenario, Series};
use engine::exercise::Progress;
use yew::Reducible;

use super::charts::Drawn;
use super::fields::{field, field_for_error, stagger_us, with_flows, Group, FIELDS};
use super::query::Requested;
use crate::views::form::Form;
use crate::views::timing;

/// A run pinned for comparison, with the scenario it ran, for "what changed".
#[derive(Debug, Clone, PartialEq)]
pub struct Pinned {
    pub drawn: Drawn,
    pub scenario: Scenario,
    pub model: Model,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DcqcnState {
    pub scenario_name: String,
    /// The named scenario as defined, to tell which values the learner changed.
    pub base: Scenario,
    /// The last scenario the engine accepted.
    pub current: Scenario,
    pub model: Model,
    /// Text the learner typed, per field key, kept as typed (a draft not yet committed,
    /// or a committed value, refused or not), and the engine's (or the parser's) refusal
    /// under the field it names. A field not typed into shows its live value.
    pub form: Form,
    /// The panel sections the learner has open (a refusal opens its section too).
    pub open: Vec<Group>,
    /// The gap between flow starts to use when a single flow (which has none) becomes
    /// several again: the last one the learner had.
    pub stagger_us: f64,
    /// Whether the page shows its dark theme, as the charts last found it: the legend's
    /// swatches take the same colour set.
    pub dark: bool,
    /// Bumped whenever `current` or `model` changes: each value is one run to do.
    pub run: u64,
    pub running: bool,
    /// The newest finished run and its number.
    pub shown: Option<Drawn>,
    pub shown_run: u64,
    pub run_error: Option<String>,
    pub pinned: Option<Pinned>,
    pub cursor_us: Option<f64>,
    /// Bumped on theme changes and resizes: the charts redraw.
    pub redraw: u64,
    /// The "try this" tasks the runs so far have fulfilled.
    pub tried: Progress,
}

pub enum Action {
    /// A keystroke in a number box: kept as typed, not yet run.
    Type {
        key: &'static str,
        text: String,
    },
    /// A value committed (the box rested, Enter, leaving it, or a slider): checked and,
    /// if accepted, run.
    Edit {
        key: &'static str,
        text: String,
    },
    /// The learner opened or closed a panel section.
    Toggle {
        group: Group,
        open: bool,
    },
    /// The charts found the page's theme.
    Theme {
        dark: bool,
    },
    Preset(DcqcnParams),
    Scenario(String),
    Model(Model),
    Cursor(f64),
    Pin,
    Unpin,
    Started,
    Finished {
        run: u64,
        result: Result<Box<Series>, String>,
    },
    Redraw,
}

impl DcqcnState {
    /// The state a URL asks for; values the engine refuses are shown next to their field
    /// and the named scenario runs instead.
    pub fn from_query(q: Requested) -> DcqcnState {
        let (name, base) = q
            .scenario
            .as_deref()
            .and_then(|n| named_scenario(n).ok().map(|s| (n.to_string(), s)))
            .unwrap_or_else(|| ("two-flow".to_string(), default_scenario()));
        let mut state = DcqcnState {
            scenario_name: name,
            current: base.clone(),
            stagger_us: stagger_us(&base).unwrap_or(0.0),
            base,
            model: q.model.unwrap_or(Model::Fluid),
            form: Form::default(),
            open: vec![Group::Reaction],
            dark: false,
            run: 1,
            running: false,
            shown: None,
            shown_run: 0,
            run_error: None,
            pinned: None,
            cursor_us: None,
            redraw: 0,
            tried: Progress::default(),
        };
        for (key, text) in q.values {
            if let Some(f) = field(&key) {
                state.edit(f.def.key, text);
            }
        }
        state.run = 1;
        if state.model == Model::Fluid {
            state.run_fluid();
        }
        state
    }

    /// Applies one committed value: the parser refuses malformed numbers, the engine
    /// refuses values out of range; either way `current` keeps the last valid scenario.
    /// A value equal to the current one runs nothing.
    fn edit(&mut self, key: &'static str, text: String) {
        let Some(f) = field(key) else { return };
        self.form.set(key, text.clone());
        let candidate = match f.apply(&self.current, &text) {
            Ok(c) => c,
            Err(message) => {
                self.refuse(key, message);
                return;
            }
        };
        // A single flow has no stagger: growing it again takes the last one there was.
        let candidate = if key == "flows" && self.current.flows.len() < 2 {
            with_flows(&candidate, candidate.flows.len(), self.stagger_us)
        } else {
            candidate
        };
        match candidate.validate() {
            Ok(()) => {
                // Other fields' refused texts no longer apply: show their live values.
                let stale: Vec<&'static str> = (self.form.refusals().iter())
                    .map(|(k, _)| *k)
                    .filter(|k| *k != key)
                    .collect();
                for k in stale {
                    self.form.forget(k);
                }
                self.form.accept_all();
                if let Some(gap) = stagger_us(&candidate) {
                    self.stagger_us = gap;
                }
                if candidate != self.current {
                    self.current = candidate;
                    self.run += 1;
                }
            }
            Err(error) => {
                let message = error.to_string();
                if let Some(refused) = error.field_error() {
                    if let Some(named) = field_for_error(&refused.field) {
                        if named.def.key != key {
                            self.refuse(named.def.key, message.clone());
                        }
                    }
                }
                self.refuse(key, message);
            }
        }
    }

    /// Shows `message` next to field `key` and opens the section that holds it.
    fn refuse(&mut self, key: &'static str, message: String) {
        if let Some(f) = field(key) {
            if !self.open.contains(&f.group) {
                self.open.push(f.group);
            }
        }
        self.form.refuse(key, message);
    }

    pub fn is_open(&self, group: Group) -> bool {
        self.open.contains(&group)
    }

    /// Runs the fluid model now, in the same update as the change that asked for it, so a
    /// slider drag costs one render (the page's frame budget; measure `lab-dcqcn-fluid`).
    pub fn run_fluid(&mut self) {
        timing::mark_start(super::FLUID_MEASURE);
        timing::lap("start");
        let started = timing::now_ms();
        let result = simulate_fluid(&self.current, &Limits::default())
            .map(|mut series| {
                series.solve_ms = started.zip(timing::now_ms()).map(|(a, b)| b - a);
                timing::lap("solve");
                series
            })
            .map_err(|e| e.to_string());
        self.finish(self.run, result);
    }

    fn finish(&mut self, run: u64, result: Result<Series, String>) {
        self.running = false;
        match result {
            Ok(series) => {
                // A task is the learner's to do: a named scenario as shipped, which may
                // show the effect already, ticks nothing.
                if self.current != self.base {
                    self.tried = self.tried.observe(&EXERCISES, &series);
                }
                self.shown = Some(Drawn::new(series, self.current.clone()));
                self.shown_run = run;
                self.run_error = None;
            }
            Err(message) => self.run_error = Some(message),
        }
    }

    /// Where the time cursor stands, µs: where the learner left it, within the shown run;
    /// the run's end before that.
    pub fn cursor_at_us(&self) -> f64 {
        let end_us = self
            .shown
            .as_ref()
            .and_then(|d| d.series.time_us.last().copied())
            .unwrap_or(0.0);
        self.cursor_us.unwrap_or(end_us).min(end_us)
    }

    /// The text a field shows: what the learner typed, else the live value.
    pub fn text(&self, key: &'static str) -> Option<String> {
        if let Some(t) = self.form.typed(key) {
            return Some(t.to_string());
        }
        let f = field(key)?;
        f.value(&self.current).map(|v| f.format(v))
    }

    /// Parameters that differ between the pinned run and now: (label, then, now).
    pub fn changes_since_pin(&self) -> Vec<(&'static str, String, String)> {
        let Some(pin) = &self.pinned else {
            return Vec::new();
        };
        let mut out: Vec<(&'static str, String, String)> = FIELDS
            .iter()
            .filter_map(|f| {
                let (a, b) = (f.value(&pin.scenario), f.value(&self.current));
                (a != b).then(|| {
                    let show = |v: Option<f64>| v.map(|v| f.format(v)).unwrap_or("—".into());
                    (f.def.label, show(a), show(b))
                })
            })
            .collect();
        if pin.model != self.model {
            out.push((
                "Model",
                super::query::model_name(pin.model).into(),
                super::query::model_name(self.model).into(),
            ));
        }
        if pin.scenario.name != self.current.name {
            out.push((
                "Scenario",
                pin.scenario.name.clone(),
                self.current.name.clone(),
            ));
        }
        out
    }
}

/// The page opens on the paper's two-flow experiment.
fn default_scenario() -> Scenario {
    // `two-flow` is one of the engine's own names; should that ever change, the first
    // listed scenario stands in, and as a last resort an empty-named copy of incast.
    named_scenario("two-flow")
        .or_else(|_| {
            named_scenario(
                engine::dcqcn::scenario_names()
                    .first()
                    .copied()
                    .unwrap_or(""),
            )
        })
        .unwrap_or_else(|_| empty_scenario())
}

fn empty_scenario() -> Scenario {
    Scenario {
        name: String::new(),
        description: String::new(),
        bottleneck_gbps: 40.0,
        prop_delay_us: 1.0,
        mtu_bytes: 1024,
        duration_us: 1000.0,
        sample_interval_us: 10.0,
        seed: 1,
        cp: engine::dcqcn::CongestionPointParams::paper(1 << 20, None),
        dcqcn: DcqcnParams::paper(),
        flows: vec![engine::dcqcn::FlowSpec {
            link_gbps: 40.0,
            start_us: 0.0,
            size_bytes: None,
        }],
        fluid_step_us: 2.5,
    }
}

impl Reducible for DcqcnState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Type { key, text } => {
                if self.form.typed(key) == Some(text.as_str()) {
                    return self;
                }
                // A refusal speaks of the text it judged: a new draft is judged when the
                // box rests, and the old message would name a value no longer there.
                next.form.accept(key);
                next.form.set(key, text);
            }
            Action::Edit { key, text } => {
                // The same refused text again (the box's change after its timer's
                // commit): nothing new to say.
                if self.form.refusal(key).is_some() && self.form.typed(key) == Some(text.as_str()) {
                    return self;
                }
                next.edit(key, text)
            }
            Action::Toggle { group, open } => {
                if self.is_open(group) == open {
                    return self;
                }
                next.open.retain(|g| *g != group);
                if open {
                    next.open.push(group);
                }
            }
            Action::Theme { dark } => {
                if self.dark == dark {
                    return self;
                }
                next.dark = dark;
            }
            Action::Preset(params) => {
                let mut candidate = next.current.clone();
                candidate.dcqcn = params;
                next.form.clear();
                match candidate.validate() {
                    Ok(()) => {
                        next.current = candidate;
                        next.run += 1;
                    }
                    Err(e) => next.run_error = Some(e.to_string()),
                }
            }
            Action::Scenario(name) => match named_scenario(&name) {
                Ok(s) => {
                    next.scenario_name = name;
                    next.stagger_us = stagger_us(&s).unwrap_or(0.0);
                    next.base = s.clone();
                    next.current = s;
                    next.form.clear();
                    next.cursor_us = None;
                    next.run += 1;
                }
                Err(e) => next.run_error = Some(e.to_string()),
            },
            Action::Model(m) => {
                if m != next.model {
                    next.model = m;
                    next.run += 1;
                }
            }
            Action::Cursor(t) => next.cursor_us = Some(t),
            Action::Pin => {
                if let Some(d) = &next.shown {
                    next.pinned = Some(Pinned {
                        drawn: d.clone(),
                        scenario: next.current.clone(),
                        model: next.model,
                    });
                }
            }
            Action::Unpin => next.pinned = None,
            Action::Started => next.running = true,
            Action::Finished { run, result } => {
                // Run 0 is a worker failure that belongs to whatever is running now.
                if run != next.run && run != 0 {
                    return self;
                }
                let run = next.run;
                next.finish(run, result.map(|b| *b));
            }
            Action::Redraw => next.redraw += 1,
        }
        if next.run != self.run && next.model == Model::Fluid {
            next.run_fluid();
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> DcqcnState {
        DcqcnState::from_query(Requested {
            scenario: Some("two-flow".into()),
            model: None,
            values: vec![],
        })
    }

    #[test]
    fn a_refused_value_keeps_the_last_valid_scenario_and_names_the_parameter() {
        let s = Rc::new(fresh());
        let before = s.current.clone();
        let s = s.reduce(Action::Edit {
            key: "dcqcn.g",
            text: "2".into(),
        });
        assert_eq!(s.current, before);
        assert!(s
            .form
            .refusal("dcqcn.g")
            .is_some_and(|e| e.contains("dcqcn.g")));
        assert_eq!(s.text("dcqcn.g").as_deref(), Some("2"));
        let run = s.run;
        let s = s.reduce(Action::Edit {
            key: "dcqcn.g",
            text: "0.5".into(),
        });
        assert_eq!(s.current.dcqcn.g, 0.5);
        assert!(!s.form.is_refused());
        assert_eq!(s.run, run + 1);
    }

    #[test]
    fn the_query_restores_changed_values_and_reports_refused_ones() {
        let s = DcqcnState::from_query(Requested {
            scenario: Some("incast-16".into()),
            model: Some(Model::Packet),
            values: vec![
                ("dcqcn.g".into(), "0.25".into()),
                ("cp.kmin_bytes".into(), "99999999".into()),
            ],
        });
        assert_eq!(s.scenario_name, "incast-16");
        assert_eq!(s.model, Model::Packet);
        assert_eq!(s.current.dcqcn.g, 0.25);
        assert_eq!(s.current.cp.kmin_bytes, s.base.cp.kmin_bytes);
        assert!(s.form.refusal("cp.kmin_bytes").is_some());
    }

    #[test]
    fn typing_runs_nothing_until_the_value_is_committed() {
        let s = Rc::new(fresh());
        let run = s.run;
        let s = s
            .reduce(Action::Type {
                key: "bottleneck_gbps",
                text: "1".into(),
            })
            .reduce(Action::Type {
                key: "bottleneck_gbps",
                text: "10".into(),
            });
        assert_eq!(s.run, run, "drafts run nothing");
        assert_eq!(s.text("bottleneck_gbps").as_deref(), Some("10"));
        assert_eq!(s.current.bottleneck_gbps, 40.0);
        let s = s.reduce(Action::Edit {
            key: "bottleneck_gbps",
            text: "100".into(),
        });
        assert_eq!(s.current.bottleneck_gbps, 100.0);
        assert_eq!(s.run, run + 1);
        // Committing the same value again (leaving the box) runs nothing more.
        let s = s.reduce(Action::Edit {
            key: "bottleneck_gbps",
            text: "100".into(),
        });
        assert_eq!(s.run, run + 1);
    }

    #[test]
    fn sections_stay_as_the_learner_left_them_and_a_refusal_opens_its_own() {
        let s = Rc::new(fresh());
        assert!(s.is_open(Group::Reaction) && !s.is_open(Group::Workload));
        let s = s.reduce(Action::Toggle {
            group: Group::Switch,
            open: true,
        });
        let s = s.reduce(Action::Edit {
            key: "cp.kmin_bytes",
            text: "".into(),
        });
        assert!(s.form.refusal("cp.kmin_bytes").is_some());
        let s = s.reduce(Action::Edit {
            key: "cp.kmin_bytes",
            text: "100".into(),
        });
        assert!(!s.form.is_refused());
        assert!(s.is_open(Group::Switch), "a cleared error closes nothing");
        let s = s.reduce(Action::Edit {
            key: "duration_us",
            text: "-5".into(),
        });
        assert!(s.is_open(Group::Workload), "a refusal shows itself");
    }

    #[test]
    fn one_flow_keeps_no_stagger_and_more_flows_get_the_last_one_back() {
        let s = Rc::new(fresh());
        let gap = stagger_us(&s.current).expect("two flows");
        let s = s.reduce(Action::Edit {
            key: "flows",
            text: "1".into(),
        });
        assert_eq!(s.current.flows.len(), 1);
        assert_eq!(stagger_us(&s.current), None);
        let s = s.reduce(Action::Edit {
            key: "flows",
            text: "12".into(),
        });
        assert_eq!(s.current.flows.len(), 12);
        assert_eq!(stagger_us(&s.current), Some(gap));
        // A billion flows is refused and the 12 stay.
        let s = s.reduce(Action::Edit {
            key: "flows",
            text: "1e9".into(),
        });
        assert_eq!(s.current.flows.len(), 12);
        assert!(s.form.refusal("flows").is_some());
    }

    #[test]
    fn the_time_cursor_stays_within_the_shown_run() {
        let s = Rc::new(fresh());
        let end_us = s
            .shown
            .as_ref()
            .and_then(|d| d.series.time_us.last().copied());
        let end_us = end_us.expect("the fluid run is shown at once");
        assert_eq!(s.cursor_at_us(), end_us);
        let s = s.reduce(Action::Cursor(5.0));
        assert_eq!(s.cursor_at_us(), 5.0);
        let s = s.reduce(Action::Cursor(end_us * 2.0));
        assert_eq!(s.cursor_at_us(), end_us);
    }

    #[test]
    fn stale_runs_are_ignored() {
        let s = Rc::new(fresh());
        let s = s.reduce(Action::Model(Model::Packet));
        let stale = s.clone().reduce(Action::Finished {
            run: s.run - 1,
            result: Err("old".into()),
        });
        assert!(stale.run_error.is_none());
    }

    #[test]
    fn pinning_reports_what_changed() {
        let mut s = fresh();
        s.shown = Some(Drawn::new(
            engine::dcqcn::simulate_fluid(&s.current, &Default::default()).expect("runs"),
            s.current.clone(),
        ));
        let s = Rc::new(s).reduce(Action::Pin).reduce(Action::Edit {
            key: "dcqcn.g",
            text: "0.5".into(),
        });
        let changes = s.changes_since_pin();
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].2, "0.5");
    }

    /// UX check 2026-12: the XOFF box read 1900000 while its message still spoke of the
    /// 5000000 refused before.
    #[test]
    fn a_new_draft_drops_the_message_about_the_old_text() {
        let s = Rc::new(fresh());
        let refused = s.reduce(Action::Edit {
            key: "cp.pfc.xoff_bytes",
            text: "5000000".into(),
        });
        assert!(refused
            .form
            .refusal("cp.pfc.xoff_bytes")
            .is_some_and(|m| m.contains("5000000")));
        let typing = refused.reduce(Action::Type {
            key: "cp.pfc.xoff_bytes",
            text: "6000000".into(),
        });
        assert!(typing.form.refusal("cp.pfc.xoff_bytes").is_none());
        let judged = typing.reduce(Action::Edit {
            key: "cp.pfc.xoff_bytes",
            text: "6000000".into(),
        });
        assert!(judged
            .form
            .refusal("cp.pfc.xoff_bytes")
            .is_some_and(|m| m.contains("6000000")));
    }
}
