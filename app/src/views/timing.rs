//! The views' bench timing: User Timing marks and measures named `lab-…`, which the bench
//! (`tests/src/bench/`) reads from the page, and the laps of a DCQCN run on its way to the
//! screen. Off the browser (the views' native unit tests) nothing is recorded.

use std::cell::RefCell;

use wasm_bindgen::JsCast;

fn performance() -> Option<web_sys::Performance> {
    if cfg!(target_arch = "wasm32") {
        gloo::utils::window().performance()
    } else {
        None
    }
}

/// The page's clock, ms; `None` off the browser.
pub fn now_ms() -> Option<f64> {
    performance().map(|p| p.now())
}

/// Adds the mark `name` (the bench reads the first of a name: the view-ready mark).
pub fn mark(name: &str) {
    if let Some(p) = performance() {
        let _ = p.mark(name);
    }
}

/// Sets the mark `name`, replacing earlier ones, for measures that start there.
pub fn reset_mark(name: &str) {
    if let Some(p) = performance() {
        p.clear_marks_with_mark_name(name);
        let _ = p.mark(name);
    }
}

/// Starts the timing `name` (the mark `name-start`), closed by [`measure`].
pub fn mark_start(name: &str) {
    reset_mark(&format!("{name}-start"));
}

/// Ends the timing begun by [`mark_start`]; returns its duration, ms.
pub fn measure(name: &str) -> Option<f64> {
    let p = performance()?;
    p.clear_measures_with_measure_name(name);
    p.measure_with_start_mark(name, &format!("{name}-start"))
        .ok()?;
    let entries = p.get_entries_by_name_with_entry_type(name, "measure");
    let last = entries.get(entries.length().checked_sub(1)?);
    let entry: web_sys::PerformanceEntry = last.dyn_into().ok()?;
    Some(entry.duration())
}

/// Adds the measure `name` from the mark `start` to now (earlier ones are kept: the bench
/// reads each).
pub fn measure_since(name: &str, start: &str) {
    if let Some(p) = performance() {
        let _ = p.measure_with_start_mark(name, start);
    }
}

/// Begins the measure `name`, from now until [`Span::end`], one entry per span (its marks
/// `name-start` and `name-end` are removed once measured).
pub fn measure_span(name: &'static str) -> Span {
    let span = Span(name);
    mark(&span.start());
    span
}

/// A measure begun by [`measure_span`].
pub struct Span(&'static str);

impl Span {
    fn start(&self) -> String {
        format!("{}-start", self.0)
    }

    /// Ends the span: adds its measure and forgets its marks.
    pub fn end(self) {
        let Some(p) = performance() else {
            return;
        };
        let (start, end) = (self.start(), format!("{}-end", self.0));
        let _ = p.mark(&end);
        let _ = p.measure_with_start_mark_and_end_mark(self.0, &start, &end);
        p.clear_marks_with_mark_name(&start);
        p.clear_marks_with_mark_name(&end);
    }
}

thread_local! {
    /// Instants of a run's way to the screen, for `data-draw-parts`: each label names the
    /// stretch that ended there (solve, queued for render, view, patch and effects).
    static LAPS: RefCell<Vec<(&'static str, f64)>> = const { RefCell::new(Vec::new()) };
}

/// Marks the end of the stretch `label`; `"start"` begins a new record, and nothing is
/// recorded outside one (renders that start no run leave no trace).
pub fn lap(label: &'static str) {
    if let Some(now) = now_ms() {
        LAPS.with(|laps| {
            let mut laps = laps.borrow_mut();
            if label == "start" {
                laps.clear();
            } else if laps.is_empty() {
                return;
            }
            laps.push((label, now));
        });
    }
}

/// The stretches since the last `"start"`, as `label:ms`, and a fresh record.
pub fn take_laps() -> Vec<String> {
    LAPS.with(|laps| {
        let laps = std::mem::take(&mut *laps.borrow_mut());
        laps.windows(2)
            .map(|w| format!("{}:{:.2}", w[1].0, w[1].1 - w[0].1))
            .collect()
    })
}

/// Where a piece of work's time goes, part by part, as `label:ms` entries.
pub struct Parts {
    parts: Vec<String>,
    last: Option<f64>,
}

impl Parts {
    /// Starts timing parts after the `earlier` entries.
    pub fn after(earlier: Vec<String>) -> Parts {
        Parts {
            parts: earlier,
            last: now_ms(),
        }
    }

    /// Ends the part `label`, begun where the last one ended.
    pub fn split(&mut self, label: &str) {
        let now = now_ms();
        if let (Some(a), Some(b)) = (self.last, now) {
            self.parts.push(format!("{label}:{:.2}", b - a));
        }
        self.last = now;
    }

    /// The entries, space-separated (the form `data-draw-parts` takes).
    pub fn joined(&self) -> String {
        self.parts.join(" ")
    }
}
