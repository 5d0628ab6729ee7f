//! The player's state: which scenario (or pair), the parameters as typed, and where the
//! playhead is. A reducer, so every control is one action and the state is plain data.

use std::rc::Rc;

use engine::flows::{
    build_scenario, comparisons, default_params, param_fields, scenario_ids, Comparison, FlowError,
    ParamField, Scenario, ScenarioParams,
};
use yew::prelude::*;

use super::form::{from_params, read_params};
use crate::views::form::Form;

/// Wall-clock milliseconds one step takes at 1× in a single scenario.
pub const STEP_MS: f64 = 1200.0;
/// Wall-clock milliseconds the longer side of a comparison takes at 1×.
pub const COMPARE_MS: f64 = 16_000.0;
/// The speeds offered.
pub const SPEEDS: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];
/// Longest frame gap taken into account: a tab in the background should not jump ahead.
const MAX_FRAME_MS: f64 = 100.0;

/// What is on stage.
#[derive(Debug, Clone, PartialEq)]
pub enum Show {
    One(Rc<Scenario>),
    /// Two scenarios stepped on one time axis; `moments` are the union of both sides'
    /// step boundaries, the stops of the playhead.
    Pair {
        comparison: Comparison,
        left: Rc<Scenario>,
        right: Rc<Scenario>,
        moments: Rc<Vec<f64>>,
    },
}

impl Show {
    /// How many segments the playhead walks: steps, or gaps between moments.
    pub fn segments(&self) -> usize {
        match self {
            Show::One(s) => s.steps.len(),
            Show::Pair { moments, .. } => moments.len().saturating_sub(1),
        }
    }

    /// The scenario time (ns) of a playhead position in a comparison.
    pub fn time_at(&self, index: usize, progress: f64) -> f64 {
        match self {
            Show::One(s) => s
                .steps
                .get(index)
                .map_or(0.0, |st| st.start_ns + st.duration_ns * progress),
            Show::Pair { moments, .. } => {
                let a = moments.get(index).copied().unwrap_or(0.0);
                let b = moments.get(index + 1).copied().unwrap_or(a);
                a + (b - a) * progress
            }
        }
    }

    /// Wall-clock milliseconds the segment takes at 1×.
    fn segment_ms(&self, index: usize) -> f64 {
        match self {
            Show::One(_) => STEP_MS,
            Show::Pair {
                left,
                right,
                moments,
                ..
            } => {
                let end = left.end_ns().max(right.end_ns());
                let gap = self.time_at(index, 1.0) - moments.get(index).copied().unwrap_or(0.0);
                if end > 0.0 {
                    (gap / end * COMPARE_MS).max(1.0)
                } else {
                    1.0
                }
            }
        }
    }
}

/// The whole state of the view.
#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    /// The scenario id, or the left side of the pair in comparison mode.
    pub scenario: String,
    /// The comparison shown, by its index in `comparisons()`.
    pub compare: Option<usize>,
    pub form: Form,
    /// The engine's refusal of the form's values, kept beside the last good show.
    pub error: Option<FlowError>,
    pub show: Show,
    /// Segment under the playhead.
    pub index: usize,
    /// How far through that segment, 0–1.
    pub progress: f64,
    pub playing: bool,
    /// Playing only until the current segment is done (a step forward that animates).
    pub to_segment_end: bool,
    pub speed: f64,
    /// `prefers-reduced-motion`: steps jump instead of tweening.
    pub reduced_motion: bool,
}

/// What the learner or the clock does.
pub enum Action {
    PickScenario(String),
    PickComparison(Option<usize>),
    /// A keystroke in a box: kept as typed.
    Type(&'static str, String),
    /// A value committed (the box rested, Enter, leaving it, or a menu): read and shown.
    Edit(&'static str, String),
    TogglePlay,
    Forward,
    Back,
    Restart,
    Seek(usize),
    Speed(f64),
    /// Milliseconds since the previous animation frame.
    Tick(f64),
}

/// The comparison a URL names.
pub fn comparison_index(left: &str, right: &str) -> Option<usize> {
    comparisons()
        .iter()
        .position(|c| c.left == left && c.right == right)
}

impl Player {
    /// The state a URL describes; anything it gets wrong falls back to a default.
    pub fn open(
        scenario: Option<&str>,
        compare: Option<usize>,
        fields: &[(&'static str, String)],
        step: Option<usize>,
        reduced_motion: bool,
    ) -> Player {
        let ids = scenario_ids();
        let scenario = scenario
            .filter(|id| ids.contains(id))
            .or(ids.first().copied())
            .unwrap_or_default()
            .to_string();
        let compare = compare.filter(|&i| i < comparisons().len());
        let mut player = Player::fresh(scenario, compare, reduced_motion);
        for (key, text) in fields {
            player.form.set(key, text.clone());
        }
        player.rebuild();
        if let Some(step) = step {
            let last = player.show.segments().saturating_sub(1);
            player.index = step.min(last);
            // A linked step opens with that step shown done.
            player.progress = 1.0;
        }
        player
    }

    fn fresh(scenario: String, compare: Option<usize>, reduced_motion: bool) -> Player {
        let pair = compare.and_then(|i| comparisons().into_iter().nth(i));
        // In a comparison the picker names its left side.
        let scenario = pair.as_ref().map_or(scenario, |p| p.left.clone());
        let params = match &pair {
            Some(pair) => pair.params(),
            None => default_params(&scenario),
        }
        .unwrap_or_default();
        let (show, error) = match build_show(&scenario, pair.as_ref(), &params) {
            Ok(show) => (show, None),
            // The registry builds every scenario with its own defaults (engine tests); an
            // empty stage with the message is still better than a panic.
            Err(e) => (Show::One(Rc::new(empty_scenario(&scenario))), Some(e)),
        };
        Player {
            scenario,
            compare,
            form: from_params(&params),
            error,
            show,
            index: 0,
            progress: 0.0,
            playing: false,
            to_segment_end: false,
            speed: 1.0,
            reduced_motion,
        }
    }

    /// The comparison shown, if any.
    pub fn comparison(&self) -> Option<Comparison> {
        self.compare.and_then(|i| comparisons().into_iter().nth(i))
    }

    /// The fields that matter for what is on stage.
    pub fn fields(&self) -> Vec<ParamField> {
        let mut fields: Vec<ParamField> = Vec::new();
        let ids = match self.comparison() {
            Some(c) => vec![c.left, c.right],
            None => vec![self.scenario.clone()],
        };
        for id in ids {
            for field in param_fields(&id).unwrap_or(&[]) {
                if !fields.contains(field) {
                    fields.push(*field);
                }
            }
        }
        fields
    }

    /// Rebuilds the show from the form; keeps the old show when the form or the engine
    /// refuses, so nothing the learner typed is lost and the stage stays.
    fn rebuild(&mut self) {
        let base = self.base_params();
        let Ok(params) = read_params(&mut self.form, &base) else {
            self.error = None;
            return;
        };
        let pair = self.comparison();
        match build_show(&self.scenario, pair.as_ref(), &params) {
            Ok(show) => {
                if show != self.show {
                    self.show = show;
                    let last = self.show.segments().saturating_sub(1);
                    self.index = self.index.min(last);
                }
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn base_params(&self) -> ScenarioParams {
        match self.comparison() {
            Some(pair) => pair.params(),
            None => default_params(&self.scenario),
        }
        .unwrap_or_default()
    }

    /// Whether the playhead is at the very end.
    pub fn done(&self) -> bool {
        self.index + 1 >= self.show.segments() && self.progress >= 1.0
    }

    /// Progress as drawn: whole steps when motion is reduced.
    pub fn shown_progress(&self) -> f64 {
        if self.reduced_motion {
            if self.progress > 0.0 {
                1.0
            } else {
                0.0
            }
        } else {
            self.progress
        }
    }

    /// The step shown, as the scrubber's label reads it: "Step 3 of 14"; before the first
    /// step has begun, "Step 0 of 14", since no step is shown yet.
    pub fn step_position(&self) -> String {
        let segments = self.show.segments();
        let at = if self.index == 0 && self.shown_progress() == 0.0 {
            0
        } else {
            (self.index + 1).min(segments)
        };
        format!("Step {at} of {segments}")
    }

    fn forward(&mut self) {
        // A second press while a step animates finishes it and moves on.
        if self.to_segment_end {
            self.progress = 1.0;
            self.to_segment_end = false;
        }
        if self.progress >= 1.0 {
            if self.index + 1 >= self.show.segments() {
                return;
            }
            self.index += 1;
            self.progress = 0.0;
        }
        self.finish_segment();
    }

    /// Shows the current segment done: at once without motion, animated otherwise.
    fn finish_segment(&mut self) {
        if self.reduced_motion {
            self.progress = 1.0;
        } else {
            self.to_segment_end = true;
        }
    }

    fn back(&mut self) {
        self.to_segment_end = false;
        self.playing = false;
        if self.index > 0 {
            self.index -= 1;
            self.progress = 1.0;
        } else {
            self.progress = 0.0;
        }
    }

    fn tick(&mut self, ms: f64) {
        if !(self.playing || self.to_segment_end) {
            return;
        }
        let mut budget = ms.clamp(0.0, MAX_FRAME_MS) * self.speed;
        let segments = self.show.segments();
        // Without motion, each step is held for its time, then shown done in one jump.
        while budget > 0.0 {
            let length = self.show.segment_ms(self.index);
            let left = (1.0 - self.progress) * length;
            if budget < left {
                self.progress += budget / length;
                break;
            }
            budget -= left;
            self.progress = 1.0;
            if self.to_segment_end || self.index + 1 >= segments {
                self.to_segment_end = false;
                self.playing = false;
                break;
            }
            self.index += 1;
            self.progress = 0.0;
        }
    }
}

impl Reducible for Player {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::PickScenario(id) => {
                if scenario_ids().contains(&id.as_str()) {
                    next = Player::fresh(id, None, self.reduced_motion);
                    next.speed = self.speed;
                }
            }
            Action::PickComparison(compare) => {
                next = Player::fresh(self.scenario.clone(), compare, self.reduced_motion);
                next.speed = self.speed;
            }
            Action::Type(key, text) => {
                if self.form.text(key) == text {
                    return self;
                }
                next.form.set(key, text);
            }
            Action::Edit(key, text) => {
                next.form.set(key, text);
                next.rebuild();
            }
            Action::TogglePlay => {
                if next.playing {
                    next.playing = false;
                    next.to_segment_end = false;
                } else {
                    if next.done() {
                        next.index = 0;
                        next.progress = 0.0;
                    }
                    next.playing = true;
                }
            }
            Action::Forward => {
                next.playing = false;
                next.forward();
            }
            Action::Back => next.back(),
            Action::Restart => {
                next.index = 0;
                next.progress = 0.0;
                next.playing = false;
                next.to_segment_end = false;
            }
            Action::Seek(index) => {
                next.index = index.min(next.show.segments().saturating_sub(1));
                next.progress = 1.0;
                next.playing = false;
                next.to_segment_end = false;
            }
            Action::Speed(speed) => {
                if SPEEDS.contains(&speed) {
                    next.speed = speed;
                }
            }
            Action::Tick(ms) => next.tick(ms),
        }
        Rc::new(next)
    }
}

fn build_show(
    scenario: &str,
    pair: Option<&Comparison>,
    params: &ScenarioParams,
) -> Result<Show, FlowError> {
    match pair {
        None => Ok(Show::One(Rc::new(build_scenario(scenario, params)?))),
        Some(pair) => {
            let (left, right) = pair.build(params)?;
            let mut moments: Vec<f64> = left.moments();
            moments.extend(right.moments());
            moments.sort_by(f64::total_cmp);
            moments.dedup();
            Ok(Show::Pair {
                comparison: pair.clone(),
                left: Rc::new(left),
                right: Rc::new(right),
                moments: Rc::new(moments),
            })
        }
    }
}

fn empty_scenario(id: &str) -> Scenario {
    Scenario {
        id: id.to_string(),
        title: id.to_string(),
        summary: String::new(),
        columns: 1,
        rows: 1,
        actors: Vec::new(),
        steps: Vec::new(),
        totals: engine::flows::Totals {
            end_to_end_ns: 0.0,
            breakdown: Vec::new(),
            data_copies: 0,
            syscalls: 0,
            interrupts: 0,
            cpu_busy_ns: 0.0,
        },
        figures: Vec::new(),
        collective: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(id: &str) -> Rc<Player> {
        Rc::new(Player::open(Some(id), None, &[], None, false))
    }

    fn play_to_end(mut p: Rc<Player>) -> Rc<Player> {
        p = p.reduce(Action::TogglePlay);
        for _ in 0..100_000 {
            if !p.playing {
                break;
            }
            p = p.reduce(Action::Tick(16.0));
        }
        p
    }

    #[test]
    fn playing_reaches_the_end_of_every_scenario_and_stops() {
        for id in scenario_ids() {
            let p = play_to_end(player(id));
            assert!(p.done(), "{id}");
            assert!(!p.playing);
            assert_eq!(p.index + 1, p.show.segments(), "{id}");
        }
        for i in 0..comparisons().len() {
            let p = Rc::new(Player::open(None, Some(i), &[], None, false));
            assert!(matches!(p.show, Show::Pair { .. }));
            let p = play_to_end(p);
            assert!(p.done(), "comparison {i}");
        }
    }

    #[test]
    fn the_position_counts_steps_taken() {
        for reduced_motion in [false, true] {
            let mut p = Rc::new(Player::open(
                Some("post-send"),
                None,
                &[],
                None,
                reduced_motion,
            ));
            let steps = p.show.segments();
            assert_eq!(p.step_position(), format!("Step 0 of {steps}"));
            p = p.reduce(Action::Forward).reduce(Action::Tick(16.0));
            assert_eq!(p.step_position(), format!("Step 1 of {steps}"));
            p = p.reduce(Action::Forward).reduce(Action::Tick(16.0));
            assert_eq!(p.step_position(), format!("Step 2 of {steps}"));
            p = p.reduce(Action::Back);
            assert_eq!(p.step_position(), format!("Step 1 of {steps}"));
            p = p.reduce(Action::Back);
            assert_eq!(p.step_position(), format!("Step 0 of {steps}"));
        }
    }

    #[test]
    fn stepping_forward_and_back_walks_the_steps() {
        let mut p = player("post-send");
        let steps = p.show.segments();
        assert!(steps > 3);
        p = p.reduce(Action::Forward);
        // Animated: finishes step 1 over the next frames.
        for _ in 0..200 {
            p = p.reduce(Action::Tick(16.0));
        }
        assert_eq!((p.index, p.progress), (0, 1.0));
        p = p.reduce(Action::Forward);
        assert_eq!(p.index, 1);
        p = p.reduce(Action::Back);
        assert_eq!((p.index, p.progress), (0, 1.0));
        p = p.reduce(Action::Back);
        assert_eq!((p.index, p.progress), (0, 0.0));
    }

    #[test]
    fn reduced_motion_jumps_whole_steps() {
        let p = Rc::new(Player::open(Some("post-send"), None, &[], None, true));
        let p = p.reduce(Action::Forward);
        assert_eq!((p.index, p.progress), (0, 1.0));
        let p = p.reduce(Action::Forward);
        assert_eq!((p.index, p.progress), (1, 1.0));
        let p = p.reduce(Action::TogglePlay).reduce(Action::Tick(10.0));
        assert_eq!(p.shown_progress(), 1.0);
    }

    #[test]
    fn a_bad_field_keeps_the_stage_and_the_text() {
        let p = player("post-send");
        let before = p.show.clone();
        let p = p.reduce(Action::Edit("message_bytes", "lots".into()));
        assert_eq!(p.show, before);
        assert!(p.form.refusal("message_bytes").is_some());
        assert_eq!(p.form.text("message_bytes"), "lots");
        // Out of the engine's range: the engine's message, located at the field.
        let p = p.reduce(Action::Edit("message_bytes", "0".into()));
        assert!(p
            .error
            .as_ref()
            .is_some_and(|e| ParamField::MessageBytes.is_about(e)));
        assert_eq!(p.show, before);
    }

    #[test]
    fn a_deep_link_opens_at_its_step() {
        let p = Player::open(Some("tcp-socket"), None, &[], Some(4), false);
        assert_eq!((p.index, p.progress), (4, 1.0));
        let p = Player::open(Some("tcp-socket"), None, &[], Some(10_000), false);
        assert_eq!(p.index + 1, p.show.segments());
        let p = Player::open(Some("no-such"), None, &[], None, false);
        assert_eq!(p.scenario, scenario_ids()[0]);
    }
}
