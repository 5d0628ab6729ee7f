//! The five charts on one time axis, drawn with plotters on `<canvas>`: rates, alpha,
//! queue, CNPs and PFC pauses. Colours come from the page's CSS so both themes work.

use engine::dcqcn::{CongestionPointParams, FlowSeries, Series};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A finished run as the charts draw it: the series and the switch profile it ran with.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub series: std::rc::Rc<Series>,
    pub cp: CongestionPointParams,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    Rate,
    Alpha,
    Queue,
    Cnps,
    Pause,
}

impl ChartKind {
    pub const ALL: [ChartKind; 5] = [
        ChartKind::Rate,
        ChartKind::Alpha,
        ChartKind::Queue,
        ChartKind::Cnps,
        ChartKind::Pause,
    ];

    pub fn title(self) -> &'static str {
        match self {
            ChartKind::Rate => "Rate per flow: current rate Rc (solid), target Rt (dashed)",
            ChartKind::Alpha => "Alpha per flow",
            ChartKind::Queue => "Switch queue, with Kmin, Kmax and PFC XOFF",
            ChartKind::Cnps => "CNPs received per sample interval (all flows)",
            ChartKind::Pause => "PFC pause intervals (upstream paused)",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            ChartKind::Rate => "rate",
            ChartKind::Alpha => "alpha",
            ChartKind::Queue => "queue",
            ChartKind::Cnps => "cnps",
            ChartKind::Pause => "pause",
        }
    }

    /// Canvas height in CSS pixels.
    pub fn height(self) -> u32 {
        match self {
            ChartKind::Rate => 220,
            ChartKind::Alpha => 130,
            ChartKind::Queue => 170,
            ChartKind::Cnps => 120,
            ChartKind::Pause => 70,
        }
    }
}

/// Colours read from the page's CSS.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    pub bg: RGBColor,
    pub text: RGBColor,
    pub muted: RGBColor,
    pub grid: RGBColor,
    pub accent: RGBColor,
    pub cursor: RGBColor,
    pub dark: bool,
}

/// Flow colours, one set per theme so each stays readable on its background.
const FLOWS_LIGHT: [RGBColor; 8] = [
    RGBColor(0x0b, 0x5c, 0xd5),
    RGBColor(0xc2, 0x41, 0x0c),
    RGBColor(0x1a, 0x7f, 0x37),
    RGBColor(0x82, 0x50, 0xdf),
    RGBColor(0xbf, 0x39, 0x89),
    RGBColor(0x0a, 0x7e, 0x8c),
    RGBColor(0x9a, 0x67, 0x00),
    RGBColor(0x57, 0x60, 0x6a),
];
const FLOWS_DARK: [RGBColor; 8] = [
    RGBColor(0x6c, 0xb0, 0xff),
    RGBColor(0xff, 0x9a, 0x5c),
    RGBColor(0x56, 0xd3, 0x64),
    RGBColor(0xc2, 0x97, 0xff),
    RGBColor(0xff, 0x7b, 0xc6),
    RGBColor(0x39, 0xd0, 0xd8),
    RGBColor(0xe3, 0xb3, 0x41),
    RGBColor(0xb0, 0xb8, 0xc1),
];

impl Palette {
    pub fn flow(&self, i: usize) -> RGBColor {
        let set = if self.dark { &FLOWS_DARK } else { &FLOWS_LIGHT };
        set[i % set.len()]
    }

    /// CSS `rgb(...)` of a flow colour, for the legend swatches.
    pub fn flow_css(&self, i: usize) -> String {
        let c = self.flow(i);
        format!("rgb({}, {}, {})", c.0, c.1, c.2)
    }

    /// Reads the theme's colours from computed styles of `el` (see the DCQCN section
    /// of style.css: each property carries one of the theme variables).
    pub fn from_css(el: &web_sys::Element) -> Palette {
        let fallback = Palette {
            bg: RGBColor(255, 255, 255),
            text: RGBColor(0x1b, 0x1f, 0x24),
            muted: RGBColor(0x57, 0x60, 0x6a),
            grid: RGBColor(0xd5, 0xdb, 0xe1),
            accent: RGBColor(0x0b, 0x5c, 0xd5),
            cursor: RGBColor(0xb3, 0x5c, 0x00),
            dark: false,
        };
        let Some(style) = gloo::utils::window().get_computed_style(el).ok().flatten() else {
            return fallback;
        };
        let read = |prop: &str, or: RGBColor| {
            style
                .get_property_value(prop)
                .ok()
                .and_then(|v| parse_rgb(&v))
                .unwrap_or(or)
        };
        let bg = read("background-color", fallback.bg);
        Palette {
            bg,
            text: read("color", fallback.text),
            muted: read("border-bottom-color", fallback.muted),
            grid: read("border-top-color", fallback.grid),
            accent: read("caret-color", fallback.accent),
            cursor: read("outline-color", fallback.cursor),
            // Luma of the background decides which flow set reads better.
            dark: (u32::from(bg.0) * 299 + u32::from(bg.1) * 587 + u32::from(bg.2) * 114) < 128_000,
        }
    }
}

/// `rgb(1, 2, 3)` or `rgba(1, 2, 3, 0.5)` → colour.
fn parse_rgb(css: &str) -> Option<RGBColor> {
    let inner = css
        .trim()
        .strip_prefix("rgba(")
        .or_else(|| css.trim().strip_prefix("rgb("))?
        .strip_suffix(')')?;
    let mut parts = inner.split([',', ' ']).filter(|p| !p.is_empty());
    let mut next = || -> Option<u8> { parts.next()?.trim().parse::<f64>().ok().map(|v| v as u8) };
    Some(RGBColor(next()?, next()?, next()?))
}

/// What to draw on one canvas.
pub struct Frame<'a> {
    pub run: &'a Drawn,
    pub pinned: Option<&'a Drawn>,
    pub cursor_us: Option<f64>,
    pub palette: Palette,
}

type Area = DrawingArea<CanvasBackend, Shift>;

/// Draws one chart, sizing the canvas to its box first.
pub fn draw(canvas: &HtmlCanvasElement, kind: ChartKind, frame: &Frame) -> Result<(), String> {
    let width = canvas
        .parent_element()
        .and_then(|p| p.dyn_into::<web_sys::HtmlElement>().ok())
        .map(|p| p.client_width())
        .unwrap_or(600)
        .clamp(200, 4000) as u32;
    if canvas.width() != width {
        canvas.set_width(width);
    }
    if canvas.height() != kind.height() {
        canvas.set_height(kind.height());
    }
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        .ok_or_else(|| "this browser gave no 2D canvas".to_string())?;
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "this browser gave no 2D canvas".to_string())?;
    let root = backend.into_drawing_area();
    root.fill(&frame.palette.bg).map_err(|e| e.to_string())?;
    match kind {
        ChartKind::Rate => rate(&root, &ctx, frame),
        ChartKind::Alpha => alpha(&root, &ctx, frame),
        ChartKind::Queue => queue(&root, &ctx, frame),
        ChartKind::Cnps => cnps(&root, &ctx, frame),
        ChartKind::Pause => pause(&root, frame),
    }
    .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

type DrawResult = Result<(), DrawingAreaErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>>;

fn x_max_ms(frame: &Frame) -> f64 {
    let end = |d: &Drawn| d.series.time_us.last().copied().unwrap_or(0.0);
    let mut m = end(frame.run);
    if let Some(p) = frame.pinned {
        m = m.max(end(p));
    }
    (m / 1000.0).max(1e-3)
}

fn ms(t_us: f64) -> f64 {
    t_us / 1000.0
}

/// Axes with the shared time axis, the theme's colours and a y caption.
macro_rules! chart_on {
    ($root:expr, $frame:expr, $y:expr, $y_desc:expr, $y_labels:expr) => {{
        let p = $frame.palette;
        let mut chart = ChartBuilder::on($root)
            .margin_top(6)
            .margin_right(26)
            .x_label_area_size(22)
            .y_label_area_size(58)
            .build_cartesian_2d(0f64..x_max_ms($frame), $y)?;
        chart
            .configure_mesh()
            .bold_line_style(p.grid)
            // Only the labelled grid lines: light lines cost draw time for little.
            .max_light_lines(0)
            .axis_style(p.muted)
            .label_style(("sans-serif", 12).into_font().color(&p.text))
            .axis_desc_style(("sans-serif", 12).into_font().color(&p.muted))
            .x_labels(8)
            .y_labels($y_labels)
            .x_label_formatter(&|v| format!("{v} ms"))
            .y_desc($y_desc)
            .draw()?;
        chart
    }};
}

type Chart<'a> = ChartContext<
    'a,
    CanvasBackend,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// How a line is stroked: colour (CSS), width in pixels, and dash and gap lengths for a
/// dashed one.
struct Stroke {
    css: String,
    width: f64,
    dash: Option<[f64; 2]>,
}

impl Stroke {
    fn solid(colour: RGBColor, opacity: f64, width: f64) -> Stroke {
        Stroke {
            css: format!("rgba({}, {}, {}, {opacity})", colour.0, colour.1, colour.2),
            width,
            dash: None,
        }
    }

    fn dashed(colour: RGBColor, width: f64, dash: [f64; 2]) -> Stroke {
        Stroke {
            dash: Some(dash),
            ..Stroke::solid(colour, 1.0, width)
        }
    }
}

/// Strokes `points` (chart coordinates) as one `Path2D` built from SVG path text: one call
/// into the browser per line, where plotters makes one per point (and one per dash of a
/// dashed line). Dashes are cut here too: the canvas's own line dash made the rate chart's
/// dashed R_T lines cost more than the other four charts together.
fn polyline(
    ctx: &CanvasRenderingContext2d,
    chart: &Chart<'_>,
    points: impl IntoIterator<Item = (f64, f64)>,
    stroke: &Stroke,
) {
    use std::fmt::Write;
    // Whole pixels: formatting integers into the path text is far cheaper in wasm than
    // formatting floats, and a line a pixel wide looks no different.
    let pixels = points.into_iter().map(|p| chart.backend_coord(&p));
    let mut path = String::with_capacity(4096);
    match stroke.dash {
        None => {
            for (i, (x, y)) in pixels.enumerate() {
                let _ = write!(path, "{}{x} {y}", if i == 0 { "M" } else { "L" });
            }
        }
        Some([on, off]) => {
            // Walk the line, drawing while `drawing` and switching each time the current
            // dash or gap (`left` pixels more) runs out.
            let (mut drawing, mut left) = (true, on);
            let mut last: Option<(f64, f64)> = None;
            for (x, y) in pixels {
                let Some((mut px, mut py)) = last else {
                    let _ = write!(path, "M{x} {y}");
                    last = Some((f64::from(x), f64::from(y)));
                    continue;
                };
                let (x, y) = (f64::from(x), f64::from(y));
                let mut length = (x - px).hypot(y - py);
                while length > left {
                    let t = left / length;
                    let (cx, cy) = (px + (x - px) * t, py + (y - py) * t);
                    let (ix, iy) = (cx.round() as i32, cy.round() as i32);
                    let _ = write!(path, "{}{ix} {iy}", if drawing { "L" } else { "M" });
                    length -= left;
                    (px, py) = (cx, cy);
                    drawing = !drawing;
                    left = if drawing { on } else { off };
                }
                left -= length;
                if drawing {
                    let _ = write!(path, "L{} {}", x as i32, y as i32);
                }
                last = Some((x, y));
            }
        }
    }
    let Ok(path) = web_sys::Path2d::new_with_path_string(&path) else {
        return;
    };
    ctx.set_stroke_style_str(&stroke.css);
    ctx.set_line_width(stroke.width);
    // Half-pixel offsets put a one-pixel line on pixels rather than between them.
    let _ = ctx.translate(0.5, 0.5);
    ctx.stroke_with_path(&path);
    let _ = ctx.translate(-0.5, -0.5);
}

/// The pinned run's per-flow `column`, faint and wide, under the current run's lines.
fn pinned_flows(
    ctx: &CanvasRenderingContext2d,
    chart: &Chart<'_>,
    frame: &Frame,
    column: fn(&FlowSeries) -> &[f64],
) {
    let Some(pin) = frame.pinned else {
        return;
    };
    for f in &pin.series.flows {
        polyline(
            ctx,
            chart,
            pin.series
                .time_us
                .iter()
                .zip(column(f))
                .map(|(&t, &v)| (ms(t), v)),
            &Stroke::solid(frame.palette.muted, 0.45, 3.0),
        );
    }
}

fn cursor_line<DB: DrawingBackend>(
    chart: &mut ChartContext<
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    frame: &Frame,
    y_max: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if let Some(c) = frame.cursor_us {
        let x = ms(c);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x, 0.0), (x, y_max)],
            frame.palette.cursor.stroke_width(2),
        )))?;
    }
    Ok(())
}

fn rate(root: &Area, ctx: &CanvasRenderingContext2d, frame: &Frame) -> DrawResult {
    let peak = |d: &Drawn| {
        d.series
            .flows
            .iter()
            .flat_map(|f| f.rc_gbps.iter().chain(f.rt_gbps.iter()))
            .fold(0.0_f64, |a, &b| a.max(b))
    };
    let mut y_max = peak(frame.run).max(frame.run.series.bottleneck_gbps);
    if let Some(p) = frame.pinned {
        y_max = y_max.max(peak(p));
    }
    let y_max = y_max * 1.05;
    let mut chart = chart_on!(root, frame, 0f64..y_max, "Gb/s", 5);
    let t = &frame.run.series.time_us;
    pinned_flows(ctx, &chart, frame, |f| &f.rc_gbps);
    for (i, f) in frame.run.series.flows.iter().enumerate() {
        let colour = frame.palette.flow(i);
        polyline(
            ctx,
            &chart,
            t.iter().zip(&f.rt_gbps).map(|(&t, &v)| (ms(t), v)),
            &Stroke::dashed(colour, 1.0, [5.0, 4.0]),
        );
        polyline(
            ctx,
            &chart,
            t.iter().zip(&f.rc_gbps).map(|(&t, &v)| (ms(t), v)),
            &Stroke::solid(colour, 1.0, 2.0),
        );
    }
    cursor_line(&mut chart, frame, y_max)
}

fn alpha(root: &Area, ctx: &CanvasRenderingContext2d, frame: &Frame) -> DrawResult {
    let mut chart = chart_on!(root, frame, 0f64..1.05, "alpha", 3);
    pinned_flows(ctx, &chart, frame, |f| &f.alpha);
    let t = &frame.run.series.time_us;
    for (i, f) in frame.run.series.flows.iter().enumerate() {
        polyline(
            ctx,
            &chart,
            t.iter().zip(&f.alpha).map(|(&t, &v)| (ms(t), v)),
            &Stroke::solid(frame.palette.flow(i), 1.0, 2.0),
        );
    }
    cursor_line(&mut chart, frame, 1.05)
}

fn queue(root: &Area, ctx: &CanvasRenderingContext2d, frame: &Frame) -> DrawResult {
    let cp = &frame.run.cp;
    let kb = |b: f64| b / 1024.0;
    let xoff = cp.pfc.as_ref().map(|p| p.xoff_bytes as f64);
    let mut y_max = frame
        .run
        .series
        .queue_bytes
        .iter()
        .fold(cp.kmax_bytes as f64, |a, &b| a.max(b))
        .max(xoff.unwrap_or(0.0));
    if let Some(p) = frame.pinned {
        y_max = p.series.queue_bytes.iter().fold(y_max, |a, &b| a.max(b));
    }
    let y_max = kb(y_max) * 1.1;
    let mut chart = chart_on!(root, frame, 0f64..y_max, "KiB", 4);
    let x_end = x_max_ms(frame);
    let p = frame.palette;
    let mut marks = vec![
        ("Kmin", cp.kmin_bytes as f64),
        ("Kmax", cp.kmax_bytes as f64),
    ];
    if let Some(x) = xoff {
        marks.push(("XOFF", x));
    }
    for (label, bytes) in marks {
        let y = kb(bytes);
        polyline(
            ctx,
            &chart,
            [(0.0, y), (x_end, y)],
            &Stroke::dashed(p.muted, 1.0, [6.0, 4.0]),
        );
        chart.draw_series(std::iter::once(Text::new(
            label,
            (x_end * 0.995, y),
            ("sans-serif", 11)
                .into_font()
                .color(&p.muted)
                .pos(Pos::new(HPos::Right, VPos::Bottom)),
        )))?;
    }
    if let Some(pin) = frame.pinned {
        polyline(
            ctx,
            &chart,
            pin.series
                .time_us
                .iter()
                .zip(&pin.series.queue_bytes)
                .map(|(&t, &q)| (ms(t), kb(q))),
            &Stroke::solid(p.muted, 0.45, 3.0),
        );
    }
    let s = &frame.run.series;
    polyline(
        ctx,
        &chart,
        s.time_us
            .iter()
            .zip(&s.queue_bytes)
            .map(|(&t, &q)| (ms(t), kb(q))),
        &Stroke::solid(p.accent, 1.0, 2.0),
    );
    cursor_line(&mut chart, frame, y_max)
}

fn cnps(root: &Area, ctx: &CanvasRenderingContext2d, frame: &Frame) -> DrawResult {
    let per = |d: &Drawn| -> Vec<(f64, f64)> {
        d.series
            .time_us
            .iter()
            .enumerate()
            .map(|(k, &t)| (ms(t), d.series.cnps_in_interval(k) as f64))
            .collect()
    };
    let now = per(frame.run);
    let pinned = frame.pinned.map(per);
    let y_max = now
        .iter()
        .chain(pinned.iter().flatten())
        .fold(1.0_f64, |a, &(_, v)| a.max(v))
        * 1.1;
    let mut chart = chart_on!(root, frame, 0f64..y_max, "CNPs", 3);
    if let Some(pin) = pinned {
        polyline(
            ctx,
            &chart,
            pin,
            &Stroke::solid(frame.palette.muted, 0.45, 3.0),
        );
    }
    polyline(
        ctx,
        &chart,
        now,
        &Stroke::solid(frame.palette.accent, 1.0, 2.0),
    );
    cursor_line(&mut chart, frame, y_max)
}

fn pause(root: &Area, frame: &Frame) -> DrawResult {
    let p = frame.palette;
    let mut chart = chart_on!(root, frame, 0f64..1.0, "paused", 0);
    if let Some(pin) = frame.pinned {
        chart.draw_series(pin.series.pause_intervals.iter().map(|i| {
            Rectangle::new(
                [(ms(i.start_us), 0.0), (ms(i.end_us), 0.35)],
                p.muted.mix(0.5).filled(),
            )
        }))?;
    }
    chart.draw_series(frame.run.series.pause_intervals.iter().map(|i| {
        Rectangle::new(
            [(ms(i.start_us), 0.45), (ms(i.end_us), 1.0)],
            p.accent.mix(0.8).filled(),
        )
    }))?;
    cursor_line(&mut chart, frame, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computed_colours_parse() {
        assert_eq!(parse_rgb("rgb(1, 2, 3)"), Some(RGBColor(1, 2, 3)));
        assert_eq!(
            parse_rgb("rgba(10, 20, 30, 0.5)"),
            Some(RGBColor(10, 20, 30))
        );
        assert_eq!(parse_rgb("rgb(1 2 3)"), Some(RGBColor(1, 2, 3)));
        assert_eq!(parse_rgb("oklch(0.5 0.1 20)"), None);
    }
}
