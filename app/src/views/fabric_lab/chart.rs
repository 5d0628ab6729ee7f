//! The charts under the comparison, both sides on one time axis: the rate every flow
//! together delivered, the hottest queue of each side, the senders PFC held, and a
//! collective's progress beside NCCL's model of it. Drawn with plotters on
//! `<canvas>`, coloured from the page's CSS (the DCQCN view's palette) so both themes work.

use engine::netsim::{
    collective_progress, delivered_series, hottest_queue, nccl_line, paused_series, Report,
    Scenario,
};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

use crate::views::dcqcn::charts::Palette;

/// Canvas height, px.
pub const HEIGHT: u32 = 220;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    Delivered,
    Queue,
    Paused,
    /// Only for runs with a collective.
    Progress,
}

impl ChartKind {
    pub const ALL: [ChartKind; 4] = [
        ChartKind::Delivered,
        ChartKind::Queue,
        ChartKind::Paused,
        ChartKind::Progress,
    ];

    pub fn id(self) -> &'static str {
        match self {
            ChartKind::Delivered => "delivered",
            ChartKind::Queue => "queue",
            ChartKind::Paused => "paused",
            ChartKind::Progress => "progress",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            ChartKind::Delivered => "Rate every flow together delivered, Gb/s, each side",
            ChartKind::Queue => "The deepest egress queue of each side, KiB",
            ChartKind::Paused => {
                "Senders held by PFC (ports paused, summed over each sample), each side"
            }
            ChartKind::Progress => {
                "The all-reduce's progress, % of its bytes delivered, each side; dashed: \
                 NCCL's model of it (its bandwidth term)"
            }
        }
    }

    fn y_desc(self) -> &'static str {
        match self {
            ChartKind::Delivered => "Gb/s",
            ChartKind::Queue => "KiB",
            ChartKind::Paused => "ports held",
            ChartKind::Progress => "% delivered",
        }
    }

    /// The chart has something to draw for these runs.
    pub fn shows(self, runs: &[&Report; 2]) -> bool {
        self != ChartKind::Progress || runs.iter().any(|r| !r.collectives.is_empty())
    }

    /// The points of one side: (time in ms, value).
    fn points(self, r: &Report) -> Vec<(f64, f64)> {
        let values: Vec<f64> = match self {
            ChartKind::Progress => {
                return r
                    .collectives
                    .first()
                    .map(|c| collective_progress(r, c))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(t, share)| (t / 1000.0, 100.0 * share))
                    .collect();
            }
            ChartKind::Delivered => delivered_series(r),
            ChartKind::Paused => paused_series(r),
            ChartKind::Queue => hottest_queue(r)
                .map(|l| {
                    r.links[l]
                        .queue_bytes
                        .iter()
                        .map(|b| f64::from(*b) / 1024.0)
                        .collect()
                })
                .unwrap_or_default(),
        };
        r.time_us
            .iter()
            .zip(values)
            .map(|(t, v)| (t / 1000.0, v))
            .collect()
    }
}

/// Draws one chart of both sides, sizing the canvas to its box first.
pub fn draw(
    canvas: &HtmlCanvasElement,
    kind: ChartKind,
    runs: &[&Report; 2],
    scenarios: &[Scenario; 2],
    cursor_ms: Option<f64>,
    palette: &Palette,
) -> Result<(), String> {
    if !kind.shows(runs) {
        return Ok(());
    }
    let width = canvas
        .parent_element()
        .and_then(|p| p.dyn_into::<web_sys::HtmlElement>().ok())
        .map(|p| p.client_width())
        .unwrap_or(600)
        .clamp(200, 4000) as u32;
    canvas.set_width(width);
    canvas.set_height(HEIGHT);
    let sides = runs.map(|r| kind.points(r));
    let models = model_lines(kind, runs, scenarios);
    let x_max = sides
        .iter()
        .chain(&models)
        .flatten()
        .map(|p| p.0)
        .fold(1e-3, f64::max);
    let y_max = sides.iter().flatten().map(|p| p.1).fold(0.0, f64::max) * 1.08;
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "this browser gave no 2D canvas".to_string())?;
    let root = backend.into_drawing_area();
    plot(
        &root,
        kind,
        &sides,
        &models,
        (x_max, y_max.max(1.0)),
        cursor_ms,
        palette,
    )
    .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// Each side's NCCL line on the progress chart: nothing at 0 to all at its bandwidth term
/// (ms, %); empty for other charts and for runs NCCL's model does not cover.
fn model_lines(
    kind: ChartKind,
    runs: &[&Report; 2],
    scenarios: &[Scenario; 2],
) -> [Vec<(f64, f64)>; 2] {
    [0, 1].map(|i| {
        let line = (kind == ChartKind::Progress)
            .then(|| runs[i].collectives.first())
            .flatten()
            .and_then(|c| nccl_line(&scenarios[i], c));
        line.map(|l| vec![(0.0, 0.0), (l.bandwidth_us / 1000.0, 100.0)])
            .unwrap_or_default()
    })
}

type Area = DrawingArea<CanvasBackend, plotters::coord::Shift>;
type DrawResult = Result<(), DrawingAreaErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>>;

fn plot(
    root: &Area,
    kind: ChartKind,
    sides: &[Vec<(f64, f64)>; 2],
    models: &[Vec<(f64, f64)>; 2],
    (x_max, y_max): (f64, f64),
    cursor_ms: Option<f64>,
    p: &Palette,
) -> DrawResult {
    root.fill(&p.bg)?;
    let mut chart = ChartBuilder::on(root)
        .margin_top(6)
        .margin_right(18)
        .x_label_area_size(22)
        .y_label_area_size(58)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
    chart
        .configure_mesh()
        .bold_line_style(p.grid)
        .max_light_lines(0)
        .axis_style(p.muted)
        .label_style((FontFamily::SansSerif, 12).into_font().color(&p.text))
        .axis_desc_style((FontFamily::SansSerif, 12).into_font().color(&p.muted))
        .x_labels(6)
        .y_labels(5)
        .x_label_formatter(&|v| format!("{v} ms"))
        .y_desc(kind.y_desc())
        .draw()?;
    for (i, points) in sides.iter().enumerate() {
        let style = p.flow(i).stroke_width(2);
        chart.draw_series(LineSeries::new(points.iter().copied(), style))?;
    }
    // One line in the text's colour when both sides' models agree (NCCL's model does not
    // see the wiring, so they do whenever the servers are the same); else each side's own.
    let same = models[0] == models[1];
    for (i, points) in models.iter().enumerate().take(if same { 1 } else { 2 }) {
        let colour = if same { p.text } else { p.flow(i) };
        let style = colour.stroke_width(2);
        chart.draw_series(DashedLineSeries::new(points.iter().copied(), 6, 4, style))?;
    }
    if let Some(t) = cursor_ms {
        let line = [(t, 0.0), (t, y_max)];
        chart.draw_series(LineSeries::new(line, p.cursor.stroke_width(1)))?;
    }
    Ok(())
}
