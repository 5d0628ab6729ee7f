//! Where the stage draws things: the scenario's grid as it is in a wide box (local host on
//! the left, the fabric in the middle, the remote host on the right), or turned a quarter in
//! a narrow one (local host on top, remote below), so that a phone shows the whole flow with
//! text it can read; and where the moving message's label goes so that it covers no actor.

use engine::flows::{Layout, Scenario};

/// A box narrower than this, in CSS pixels, draws the stage tall.
pub const TALL_BELOW_PX: f64 = 640.0;

/// Which way the stage is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// The scenario's columns across, its rows down.
    Wide,
    /// Turned: the scenario's rows across, its columns down.
    Tall,
}

impl Orientation {
    /// The orientation for a box `px` CSS pixels wide; a box not laid out (0) stays wide.
    pub fn for_width(px: f64) -> Orientation {
        if px > 0.0 && px < TALL_BELOW_PX {
            Orientation::Tall
        } else {
            Orientation::Wide
        }
    }
}

/// An axis-aligned rectangle in the drawing's units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    fn overlap(&self, other: &Rect) -> f64 {
        let w = (self.x + self.w).min(other.x + other.w) - self.x.max(other.x);
        let h = (self.y + self.h).min(other.y + other.h) - self.y.max(other.y);
        w.max(0.0) * h.max(0.0)
    }

    /// How far the point is from the rectangle (0 inside it).
    fn distance(&self, (x, y): (f64, f64)) -> f64 {
        let dx = (self.x - x).max(x - (self.x + self.w)).max(0.0);
        let dy = (self.y - y).max(y - (self.y + self.h)).max(0.0);
        dx.hypot(dy)
    }

    /// The part of `self` outside `bounds`.
    fn outside(&self, bounds: &Rect) -> f64 {
        (self.w * self.h - self.overlap(bounds)).max(0.0)
    }
}

/// A text placed: its middle `x` and its baseline `y`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub x: f64,
    pub y: f64,
}

/// The message's dot, in drawing units.
pub const DOT_R: f64 = 8.0;
/// Space between the dot and its label.
const LABEL_GAP: f64 = 4.0;
/// A line of text, and the part of it above the baseline, in ems.
const LINE_EMS: f64 = 1.05;
const ASCENT_EMS: f64 = 0.8;
/// How finely the label's place is searched, in drawing units across and down.
const SEARCH_STEP_X: f64 = 6.0;
const SEARCH_STEP_Y: f64 = 3.0;
/// A text's advance per character, in ems: generous, so an estimate never undercounts
/// (DejaVu Sans, the widest of the fonts the page names, averages about 0.6 em, and the
/// message's label is semibold).
const EM_PER_CHAR: f64 = 0.64;

/// The grid of one orientation, in drawing units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub orientation: Orientation,
    /// Columns and rows as drawn (a tall grid's columns are the scenario's rows).
    columns: u8,
    rows: u8,
    cell_w: f64,
    cell_h: f64,
    box_w: f64,
    box_h: f64,
    /// The text size, which the SVG states itself so that these sums and the drawing agree.
    pub font: f64,
    /// Between the baselines of an actor's lines.
    pub line_step: f64,
    /// An actor's name, wrapped at this many characters.
    wrap_at: usize,
}

impl Grid {
    pub fn new(orientation: Orientation, scenario: &Scenario) -> Grid {
        let (columns, rows) = (scenario.columns.max(1), scenario.rows.max(1));
        match orientation {
            // 11 units in a 1080-unit row: 9 px or more from an 880 px box.
            Orientation::Wide => Grid {
                orientation,
                columns,
                rows,
                cell_w: 120.0,
                cell_h: 84.0,
                box_w: 108.0,
                box_h: 46.0,
                font: 11.0,
                line_step: 14.0,
                wrap_at: 16,
            },
            // 15 units in a 448-unit row (four columns): 10 px or more from a 300 px box.
            Orientation::Tall => Grid {
                orientation,
                columns: rows,
                rows: columns,
                cell_w: 112.0,
                cell_h: 82.0,
                box_w: 106.0,
                box_h: 58.0,
                font: 15.0,
                line_step: 17.0,
                wrap_at: 11,
            },
        }
    }

    pub fn width(&self) -> f64 {
        f64::from(self.columns) * self.cell_w
    }

    pub fn height(&self) -> f64 {
        f64::from(self.rows) * self.cell_h
    }

    /// Room above the first row for a label over its boxes.
    pub fn top_margin(&self) -> f64 {
        self.font + 2.0 * LABEL_GAP
    }

    /// The whole drawing, margin included.
    pub fn bounds(&self) -> Rect {
        Rect {
            x: 0.0,
            y: -self.top_margin(),
            w: self.width(),
            h: self.height() + self.top_margin(),
        }
    }

    /// The centre of the cell an actor's layout names.
    pub fn centre(&self, layout: Layout) -> (f64, f64) {
        let (column, row) = match self.orientation {
            Orientation::Wide => (layout.column, layout.row),
            Orientation::Tall => (layout.row, layout.column),
        };
        (
            f64::from(column) * self.cell_w + self.cell_w / 2.0,
            f64::from(row) * self.cell_h + self.cell_h / 2.0,
        )
    }

    /// The box drawn around the point `centre`.
    pub fn actor_box(&self, (x, y): (f64, f64)) -> Rect {
        Rect {
            x: x - self.box_w / 2.0,
            y: y - self.box_h / 2.0,
            w: self.box_w,
            h: self.box_h,
        }
    }

    /// An actor's name in lines that fit its box.
    pub fn lines(&self, label: &str) -> Vec<String> {
        match self.orientation {
            Orientation::Wide => {
                let (first, second) = two_lines(label, self.wrap_at);
                std::iter::once(first).chain(second).collect()
            }
            Orientation::Tall => wrap(label, self.wrap_at),
        }
    }

    /// The baseline of the first of `n` lines centred on `y`.
    pub fn first_baseline(&self, y: f64, n: usize) -> f64 {
        y - self.line_step * (n.max(1) - 1) as f64 / 2.0 + self.font * 0.35
    }

    /// The rectangle `chars` characters of text take when placed so.
    fn text_rect(&self, chars: usize, at: Placed) -> Rect {
        let w = chars as f64 * EM_PER_CHAR * self.font;
        Rect {
            x: at.x - w / 2.0,
            y: at.y - ASCENT_EMS * self.font,
            w,
            h: LINE_EMS * self.font,
        }
    }

    /// Where the message's dot is drawn, `progress` of the way along the route through
    /// `points`, and whether it rests on an actor: at the start or end of a step, or in work
    /// on one actor, it sits on the actor's top edge, clear of its name; on its way it
    /// passes under the boxes it crosses.
    pub fn dot(&self, points: &[(f64, f64)], progress: f64) -> Option<((f64, f64), bool)> {
        let (x, y) = along(points, progress)?;
        let resting = points.len() == 1 || progress <= 0.0 || progress >= 1.0;
        if resting {
            Some(((x, y - self.box_h / 2.0), true))
        } else {
            Some(((x, y), false))
        }
    }

    /// Where the label of the dot at `dot` goes: the place nearest the dot, above it when
    /// two are as near, where it covers neither the dot nor any box in `boxes` and stays in
    /// the drawing; straight above the dot if no place within a cell or so is free.
    pub fn place_label(&self, dot: (f64, f64), chars: usize, boxes: &[Rect]) -> Placed {
        let (x, y) = dot;
        let clear = DOT_R + LABEL_GAP;
        let around = Rect {
            x: x - clear,
            y: y - clear,
            w: 2.0 * clear,
            h: 2.0 * clear,
        };
        let bounds = self.bounds();
        let half_width = chars as f64 * EM_PER_CHAR * self.font / 2.0;
        let reach_x = ((half_width + self.cell_w) / SEARCH_STEP_X) as i32;
        let reach_y = (self.cell_h / SEARCH_STEP_Y) as i32;
        // A baseline that centres the line on the point it is tried at.
        let to_baseline = (ASCENT_EMS - LINE_EMS / 2.0) * self.font;
        let mut best: Option<(f64, Placed)> = None;
        for j in -reach_y..=reach_y {
            for i in -reach_x..=reach_x {
                let at = Placed {
                    x: x + f64::from(i) * SEARCH_STEP_X,
                    y: y + f64::from(j) * SEARCH_STEP_Y + to_baseline,
                };
                let rect = self.text_rect(chars, at);
                let distance = rect.distance(dot);
                if best.is_some_and(|(d, _)| d <= distance)
                    || rect.overlap(&around) > 0.0
                    || rect.outside(&bounds) > 1e-6
                    || boxes.iter().any(|b| rect.overlap(b) > 0.0)
                {
                    continue;
                }
                best = Some((distance, at));
            }
        }
        best.map_or(
            Placed {
                x,
                y: y - clear - (LINE_EMS - ASCENT_EMS) * self.font,
            },
            |(_, at)| at,
        )
    }
}

/// The point `progress` of the way along the polyline through `points`.
pub fn along(points: &[(f64, f64)], progress: f64) -> Option<(f64, f64)> {
    let first = *points.first()?;
    let lengths: Vec<f64> = points
        .windows(2)
        .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
        .collect();
    let total: f64 = lengths.iter().sum();
    if total <= 0.0 {
        return Some(first);
    }
    let mut left = total * progress.clamp(0.0, 1.0);
    for (pair, length) in points.windows(2).zip(&lengths) {
        if left <= *length && *length > 0.0 {
            let f = left / length;
            return Some((
                pair[0].0 + (pair[1].0 - pair[0].0) * f,
                pair[0].1 + (pair[1].1 - pair[0].1) * f,
            ));
        }
        left -= length;
    }
    points.last().copied()
}

/// Splits a label into at most two lines near its middle, when it is longer than `at`.
fn two_lines(label: &str, at: usize) -> (String, Option<String>) {
    if label.chars().count() <= at {
        return (label.to_string(), None);
    }
    let middle = label.len() / 2;
    let split = label
        .match_indices(' ')
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(middle));
    match split {
        Some(i) => (label[..i].to_string(), Some(label[i + 1..].to_string())),
        None => (label.to_string(), None),
    }
}

/// Words packed into lines of at most `at` characters (a longer word has a line of its own);
/// a bracketed tail ("(CPU)", "(same rail)") stays whole.
fn wrap(label: &str, at: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in label.split_whitespace() {
        match words.last_mut() {
            Some(last) if last.starts_with('(') && !last.ends_with(')') => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
    }
    let mut lines: Vec<String> = Vec::new();
    for word in words {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= at => {
                line.push(' ');
                line.push_str(&word);
            }
            _ => lines.push(word),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::flows::{build_scenario, default_params, scenario_ids};

    fn scenario(id: &str) -> Scenario {
        let params = default_params(id).expect("defaults");
        build_scenario(id, &params).expect("a scenario")
    }

    #[test]
    fn along_walks_the_polyline() {
        let points = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)];
        assert_eq!(along(&points, 0.0), Some((0.0, 0.0)));
        assert_eq!(along(&points, 0.5), Some((10.0, 0.0)));
        assert_eq!(along(&points, 0.75), Some((10.0, 5.0)));
        assert_eq!(along(&points, 1.0), Some((10.0, 10.0)));
        assert_eq!(along(&[(3.0, 4.0)], 0.5), Some((3.0, 4.0)));
        assert_eq!(along(&[], 0.5), None);
    }

    #[test]
    fn a_narrow_box_turns_the_stage_tall() {
        assert_eq!(Orientation::for_width(343.0), Orientation::Tall);
        assert_eq!(Orientation::for_width(878.0), Orientation::Wide);
        assert_eq!(Orientation::for_width(0.0), Orientation::Wide);
    }

    #[test]
    fn long_labels_split_near_the_middle_when_wide() {
        let grid = Grid::new(Orientation::Wide, &scenario("post-send"));
        let lines = grid.lines("Remote application (CPU)");
        assert_eq!(lines.join(" "), "Remote application (CPU)");
        assert!(lines.iter().all(|l| l.len() <= 18), "{lines:?}");
        assert_eq!(grid.lines("NIC"), ["NIC"]);
    }

    /// Turned tall, every name fits its box in at most three lines at the larger size.
    #[test]
    fn every_name_fits_its_box_when_tall() {
        let s = scenario("nccl-allreduce");
        let grid = Grid::new(Orientation::Tall, &s);
        assert_eq!(
            wrap("The other nodes (same rail)", 11),
            ["The other", "nodes", "(same rail)"]
        );
        assert_eq!(
            wrap("Remote application (CPU)", 11),
            ["Remote", "application", "(CPU)"]
        );
        for id in scenario_ids() {
            for actor in &scenario(id).actors {
                let lines = grid.lines(&actor.label);
                assert!(lines.len() <= 3, "{}: {lines:?}", actor.label);
                let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
                // At 0.6 em a character (DejaVu Sans' average), inside the box.
                assert!(
                    widest as f64 * 0.6 * grid.font <= grid.box_w,
                    "{}: {lines:?}",
                    actor.label
                );
                let block = grid.line_step * (lines.len() - 1) as f64 + grid.font;
                assert!(block <= grid.box_h - 6.0, "{}", actor.label);
            }
        }
    }

    /// The tall grid is the wide one turned: every actor keeps its own cell, and the
    /// drawing is four cells across.
    #[test]
    fn turning_keeps_each_actor_in_a_cell_of_its_own() {
        let s = scenario("gpudirect-write");
        let wide = Grid::new(Orientation::Wide, &s);
        let tall = Grid::new(Orientation::Tall, &s);
        assert!((tall.width() - 4.0 * 112.0).abs() < 1e-9);
        assert!(tall.height() > tall.width() && wide.width() > wide.height());
        for grid in [wide, tall] {
            let boxes: Vec<Rect> = s
                .actors
                .iter()
                .map(|a| grid.actor_box(grid.centre(a.layout)))
                .collect();
            for (i, a) in boxes.iter().enumerate() {
                for b in &boxes[i + 1..] {
                    assert_eq!(a.overlap(b), 0.0, "{:?}", grid.orientation);
                }
            }
        }
    }

    /// UX check 2026-12: "packets · 4 KiB" ran over "Spine switch" as the packet climbed
    /// to the spine. Every step of every scenario, at its default size and at 1 GiB where
    /// it takes one, in both orientations: all along its route the label covers no actor
    /// and not the dot, stays in the drawing, and keeps near the dot.
    #[test]
    fn every_label_keeps_clear_of_every_actor() {
        for id in scenario_ids() {
            let mut sizes = vec![scenario(id)];
            let mut big = default_params(id).expect("defaults");
            big.message_bytes = 1 << 30;
            sizes.extend(build_scenario(id, &big).ok());
            for s in sizes {
                for orientation in [Orientation::Wide, Orientation::Tall] {
                    let grid = Grid::new(orientation, &s);
                    let boxes: Vec<Rect> = s
                        .actors
                        .iter()
                        .map(|a| grid.actor_box(grid.centre(a.layout)))
                        .collect();
                    for step in &s.steps {
                        let chars = super::super::stage::message_text(step).chars().count();
                        let points: Vec<(f64, f64)> = step
                            .route()
                            .iter()
                            .filter_map(|id| s.actor(id).map(|a| grid.centre(a.layout)))
                            .collect();
                        for k in 0..=20 {
                            let t = f64::from(k) / 20.0;
                            let (dot, _) = grid.dot(&points, t).expect("a dot");
                            let at = grid.place_label(dot, chars, &boxes);
                            let rect = grid.text_rect(chars, at);
                            let covered: f64 = boxes.iter().map(|b| rect.overlap(b)).sum();
                            let what = format!("{id} {orientation:?} step {} at {t}", step.index);
                            assert!(covered < 1e-6, "{what}: {at:?}");
                            assert!(rect.distance(dot) >= DOT_R, "{what}: on the dot");
                            assert!(rect.outside(&grid.bounds()) < 1e-6, "{what}: {at:?}");
                            assert!(rect.distance(dot) < grid.cell_h, "{what}: {at:?}");
                        }
                    }
                }
            }
        }
    }
}
