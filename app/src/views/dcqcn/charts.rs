//! The five charts on one time axis, drawn with plotters on `<canvas>`: rates, alpha,
//! queue, CNPs and PFC pauses. Colours come from the page's CSS so both themes work.

use std::rc::Rc;

use engine::dcqcn::{FlowSeries, Model, Scenario, Series, Summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A finished run: the series, the scenario it ran (the charts draw its switch profile,
/// the exports list its parameters) and the engine's summary of it, worked out once.
#[derive(Debug, Clone)]
pub struct Drawn {
    pub series: Rc<Series>,
    pub scenario: Rc<Scenario>,
    pub summary: Rc<Summary>,
}

impl Drawn {
    pub fn new(series: Series, scenario: Scenario) -> Drawn {
        Drawn {
            summary: Rc::new(series.summary()),
            series: Rc::new(series),
            scenario: Rc::new(scenario),
        }
    }
}

/// One run is one allocation: comparing the pointers tells runs apart without comparing
/// every sample (props are compared at each render).
impl PartialEq for Drawn {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.series, &other.series)
    }
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
            ChartKind::Rate => {
                "Rate per flow: sent on the wire (solid), DCQCN's current rate Rc (dashed), \
                 target Rt (dotted)"
            }
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
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// What each flow colour is called, for the legend: the same hue in both themes.
pub const FLOW_COLOUR_NAMES: [&str; 8] = [
    "blue", "orange", "green", "purple", "pink", "teal", "gold", "grey",
];

/// The flow colour of flow `i` in the light or dark set.
pub fn flow_colour(dark: bool, i: usize) -> RGBColor {
    let set = if dark { &FLOWS_DARK } else { &FLOWS_LIGHT };
    set[i % set.len()]
}

/// CSS `rgb(...)` of flow `i`'s colour, for the legend swatches.
pub fn flow_css(dark: bool, i: usize) -> String {
    let c = flow_colour(dark, i);
    format!("rgb({}, {}, {})", c.0, c.1, c.2)
}

/// The name of flow `i`'s colour.
pub fn flow_colour_name(i: usize) -> &'static str {
    FLOW_COLOUR_NAMES[i % FLOW_COLOUR_NAMES.len()]
}

impl Palette {
    pub fn flow(&self, i: usize) -> RGBColor {
        flow_colour(self.dark, i)
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
///
/// The axes, grid and labels are drawn once onto a canvas of their own, kept until the size,
/// ranges or theme change, and copied in under the lines: drawing them afresh was about a
/// third of each redraw, and a drag rarely changes them (the y ranges are rounded up to
/// round numbers, so a slightly taller queue keeps its axis).
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
    let ctx = context_2d(canvas)?;
    let axes = Axes {
        kind,
        width,
        height: kind.height(),
        x_max_ms: x_max_ms(frame),
        y: y_scale(kind, frame),
        palette: frame.palette,
    };
    AXES.with(|cache| -> Result<(), String> {
        let mut cache = cache.borrow_mut();
        let Some(slot) = cache.get_mut(kind as usize) else {
            return Err(format!("no axes slot for the {} chart", kind.id()));
        };
        if slot.as_ref().is_none_or(|(drawn, _)| *drawn != axes) {
            let layer = match slot.take() {
                Some((_, layer)) => layer,
                None => gloo::utils::document()
                    .create_element("canvas")
                    .ok()
                    .and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok())
                    .ok_or_else(|| "this browser gave no canvas for the axes".to_string())?,
            };
            layer.set_width(axes.width);
            layer.set_height(axes.height);
            draw_axes(&layer, &axes).map_err(|e| e.to_string())?;
            *slot = Some((axes.clone(), layer));
        }
        if let Some((_, layer)) = slot.as_ref() {
            ctx.draw_image_with_html_canvas_element(layer, 0.0, 0.0)
                .map_err(|_| "the axes could not be copied onto the chart".to_string())?;
        }
        Ok(())
    })?;
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "this browser gave no 2D canvas".to_string())?;
    let root = backend.into_drawing_area();
    let chart = chart_on(&root, &axes).map_err(|e| e.to_string())?;
    match kind {
        ChartKind::Rate => rate(chart, &ctx, frame, &axes),
        ChartKind::Alpha => alpha(chart, &ctx, frame, &axes),
        ChartKind::Queue => queue(chart, &ctx, frame, &axes),
        ChartKind::Cnps => cnps(chart, &ctx, frame, &axes),
        ChartKind::Pause => pause(chart, frame, &axes),
    }
    .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

fn context_2d(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, String> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        .ok_or_else(|| "this browser gave no 2D canvas".to_string())
}

thread_local! {
    /// Per chart kind: the axes last drawn and the canvas holding them.
    static AXES: std::cell::RefCell<[Option<(Axes, HtmlCanvasElement)>; ChartKind::ALL.len()]> =
        const { std::cell::RefCell::new([const { None }; ChartKind::ALL.len()]) };
}

/// Everything the axes layer of a chart depends on.
#[derive(Debug, Clone, PartialEq)]
struct Axes {
    kind: ChartKind,
    width: u32,
    height: u32,
    x_max_ms: f64,
    y: YScale,
    palette: Palette,
}

/// A chart's y axis: its top, caption and how many labels.
#[derive(Debug, Clone, PartialEq)]
struct YScale {
    max: f64,
    caption: &'static str,
    labels: usize,
}

/// The y axis of `kind` for this frame.
fn y_scale(kind: ChartKind, frame: &Frame) -> YScale {
    let (max, caption, labels) = match kind {
        ChartKind::Rate => (rate_max(frame), "Gb/s", 5),
        ChartKind::Alpha => (ALPHA_MAX, "alpha", 3),
        ChartKind::Queue => (queue_max_kib(frame), "KiB", 4),
        ChartKind::Cnps => (round_up(cnps_max(frame) * 1.1), "CNPs", 3),
        ChartKind::Pause => (1.0, "paused", 0),
    };
    YScale {
        max,
        caption,
        labels,
    }
}

/// The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (times a power of ten) not below `v`:
/// an axis top that stays put while the data's peak moves a little.
fn round_up(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let decade = 10f64.powf(v.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * decade)
        .find(|top| *top >= v * (1.0 - 1e-12))
        .unwrap_or(10.0 * decade)
}

/// The axes, grid, labels and background of a chart, onto `layer`.
fn draw_axes(layer: &HtmlCanvasElement, axes: &Axes) -> DrawResult {
    let Some(backend) = CanvasBackend::with_canvas_object(layer.clone()) else {
        return Ok(());
    };
    let root = backend.into_drawing_area();
    let p = axes.palette;
    root.fill(&p.bg)?;
    let mut chart = chart_on(&root, axes)?;
    chart
        .configure_mesh()
        .bold_line_style(p.grid)
        // Only the labelled grid lines: light lines cost draw time for little.
        .max_light_lines(0)
        .axis_style(p.muted)
        .label_style((FontFamily::SansSerif, 12).into_font().color(&p.text))
        .axis_desc_style((FontFamily::SansSerif, 12).into_font().color(&p.muted))
        .x_labels(8)
        .y_labels(axes.y.labels)
        .x_label_formatter(&|v| format!("{v} ms"))
        .y_desc(axes.y.caption)
        .draw()?;
    root.present()
}

/// The chart's coordinates on `root`: the same margins whether drawing axes or lines.
fn chart_on<'a>(
    root: &'a Area,
    axes: &Axes,
) -> Result<Chart<'a>, DrawingAreaErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>> {
    ChartBuilder::on(root)
        .margin_top(6)
        .margin_right(26)
        .x_label_area_size(22)
        .y_label_area_size(58)
        .build_cartesian_2d(0f64..axes.x_max_ms, 0f64..axes.y.max)
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
    // Whole pixels: formatting integers into the path text is far cheaper in wasm than
    // formatting floats, and a line a pixel wide looks no different.
    let pixels = points.into_iter().map(|p| chart.backend_coord(&p));
    let mut path = String::with_capacity(4096);
    match stroke.dash {
        None => {
            for (i, (x, y)) in pixels.enumerate() {
                push_point(&mut path, if i == 0 { 'M' } else { 'L' }, x, y);
            }
        }
        Some([on, off]) => {
            // Walk the line, drawing while `drawing` and switching each time the current
            // dash or gap (`left` pixels more) runs out.
            let (mut drawing, mut left) = (true, on);
            let mut last: Option<(f64, f64)> = None;
            for (x, y) in pixels {
                let Some((mut px, mut py)) = last else {
                    push_point(&mut path, 'M', x, y);
                    last = Some((f64::from(x), f64::from(y)));
                    continue;
                };
                let (x, y) = (f64::from(x), f64::from(y));
                let mut length = (x - px).hypot(y - py);
                while length > left {
                    let t = left / length;
                    let (cx, cy) = (px + (x - px) * t, py + (y - py) * t);
                    let (ix, iy) = (cx.round() as i32, cy.round() as i32);
                    push_point(&mut path, if drawing { 'L' } else { 'M' }, ix, iy);
                    length -= left;
                    (px, py) = (cx, cy);
                    drawing = !drawing;
                    left = if drawing { on } else { off };
                }
                left -= length;
                if drawing {
                    push_point(&mut path, 'L', x as i32, y as i32);
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

/// Appends one SVG path command ("L12 34") for a point in whole pixels. By hand: the
/// formatting machinery took most of the time of building a line's path in wasm.
fn push_point(path: &mut String, command: char, x: i32, y: i32) {
    path.push(command);
    push_int(path, x);
    path.push(' ');
    push_int(path, y);
}

fn push_int(path: &mut String, v: i32) {
    if v < 0 {
        path.push('-');
    }
    let mut digits = [0u8; 10];
    let mut n = v.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        path.push(char::from(d));
    }
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

fn cursor_line(chart: &mut Chart<'_>, frame: &Frame, y_max: f64) -> DrawResult {
    if let Some(c) = frame.cursor_us {
        let x = ms(c);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x, 0.0), (x, y_max)],
            frame.palette.cursor.stroke_width(2),
        )))?;
    }
    Ok(())
}

const ALPHA_MAX: f64 = 1.05;

/// The rate axis' top: 5 % over the highest rate drawn, or the bottleneck's line rate.
fn rate_max(frame: &Frame) -> f64 {
    let peak = |d: &Drawn| {
        d.series
            .flows
            .iter()
            .flat_map(|f| f.rc_gbps.iter().chain(&f.rt_gbps).chain(&f.sent_gbps))
            .fold(0.0_f64, |a, &b| a.max(b))
    };
    let mut y_max = peak(frame.run).max(frame.run.series.bottleneck_gbps);
    if let Some(p) = frame.pinned {
        y_max = y_max.max(peak(p));
    }
    y_max * 1.05
}

fn rate(
    mut chart: Chart<'_>,
    ctx: &CanvasRenderingContext2d,
    frame: &Frame,
    axes: &Axes,
) -> DrawResult {
    let t = &frame.run.series.time_us;
    pinned_flows(ctx, &chart, frame, |f| &f.sent_gbps);
    // What DCQCN allows (R_T, R_C) thin under what left the sender, which is less
    // whenever PFC holds the sender or the flow has nothing more to send.
    for (i, f) in frame.run.series.flows.iter().enumerate() {
        let colour = frame.palette.flow(i);
        polyline(
            ctx,
            &chart,
            t.iter().zip(&f.rt_gbps).map(|(&t, &v)| (ms(t), v)),
            &Stroke::dashed(colour, 1.0, [2.0, 3.0]),
        );
        polyline(
            ctx,
            &chart,
            t.iter().zip(&f.rc_gbps).map(|(&t, &v)| (ms(t), v)),
            &Stroke::dashed(colour, 1.0, [6.0, 3.0]),
        );
        polyline(
            ctx,
            &chart,
            t.iter().zip(&f.sent_gbps).map(|(&t, &v)| (ms(t), v)),
            &Stroke::solid(colour, 1.0, 2.0),
        );
    }
    cursor_line(&mut chart, frame, axes.y.max)
}

fn alpha(
    mut chart: Chart<'_>,
    ctx: &CanvasRenderingContext2d,
    frame: &Frame,
    axes: &Axes,
) -> DrawResult {
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
    cursor_line(&mut chart, frame, axes.y.max)
}

fn kib(bytes: f64) -> f64 {
    bytes / 1024.0
}

/// The queue axis' top, in KiB: over the highest queue drawn and every threshold line.
fn queue_max_kib(frame: &Frame) -> f64 {
    let cp = &frame.run.scenario.cp;
    let xoff = cp.pfc.as_ref().map_or(0.0, |p| p.xoff_bytes as f64);
    let mut y_max = frame
        .run
        .series
        .queue_bytes
        .iter()
        .fold(cp.kmax_bytes as f64, |a, &b| a.max(b))
        .max(xoff);
    if let Some(p) = frame.pinned {
        y_max = p.series.queue_bytes.iter().fold(y_max, |a, &b| a.max(b));
    }
    round_up(kib(y_max) * 1.1)
}

fn queue(
    mut chart: Chart<'_>,
    ctx: &CanvasRenderingContext2d,
    frame: &Frame,
    axes: &Axes,
) -> DrawResult {
    let cp = &frame.run.scenario.cp;
    let x_end = axes.x_max_ms;
    let p = frame.palette;
    let mut marks = vec![
        ("Kmin", cp.kmin_bytes as f64),
        ("Kmax", cp.kmax_bytes as f64),
    ];
    if let Some(pfc) = &cp.pfc {
        marks.push(("XOFF", pfc.xoff_bytes as f64));
    }
    for (label, bytes) in marks {
        let y = kib(bytes);
        polyline(
            ctx,
            &chart,
            [(0.0, y), (x_end, y)],
            &Stroke::dashed(p.muted, 1.0, [6.0, 4.0]),
        );
        chart.draw_series(std::iter::once(Text::new(
            label,
            (x_end * 0.995, y),
            (FontFamily::SansSerif, 11)
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
                .map(|(&t, &q)| (ms(t), kib(q))),
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
            .map(|(&t, &q)| (ms(t), kib(q))),
        &Stroke::solid(p.accent, 1.0, 2.0),
    );
    cursor_line(&mut chart, frame, axes.y.max)
}

/// CNPs in each sample interval, as chart points.
fn cnps_per_interval(d: &Drawn) -> impl Iterator<Item = (f64, f64)> + '_ {
    d.series
        .time_us
        .iter()
        .enumerate()
        .map(|(k, &t)| (ms(t), d.series.cnps_in_interval(k) as f64))
}

/// The most CNPs in one interval, of the run and the pinned one (at least 1).
fn cnps_max(frame: &Frame) -> f64 {
    cnps_per_interval(frame.run)
        .chain(frame.pinned.into_iter().flat_map(cnps_per_interval))
        .fold(1.0_f64, |a, (_, v)| a.max(v))
}

fn cnps(
    mut chart: Chart<'_>,
    ctx: &CanvasRenderingContext2d,
    frame: &Frame,
    axes: &Axes,
) -> DrawResult {
    if let Some(pin) = frame.pinned {
        polyline(
            ctx,
            &chart,
            cnps_per_interval(pin),
            &Stroke::solid(frame.palette.muted, 0.45, 3.0),
        );
    }
    polyline(
        ctx,
        &chart,
        cnps_per_interval(frame.run),
        &Stroke::solid(frame.palette.accent, 1.0, 2.0),
    );
    cursor_line(&mut chart, frame, axes.y.max)
}

/// When the upstream was paused, as (from, to) in µs. The packet model records each
/// PAUSE to RESUME; the fluid model has no single pauses, only whether PFC was holding the
/// senders at each sample, so its spans are the sample intervals in which it was.
fn paused_spans_us(series: &Series) -> Vec<(f64, f64)> {
    match series.model {
        Model::Packet => series
            .pause_intervals
            .iter()
            .map(|i| (i.start_us, i.end_us))
            .collect(),
        Model::Fluid => {
            let dt = series.sample_interval_us;
            let mut spans: Vec<(f64, f64)> = Vec::new();
            for (&t, _) in series
                .time_us
                .iter()
                .zip(&series.pfc_paused)
                .filter(|(_, &p)| p)
            {
                match spans.last_mut() {
                    // The sample before was paused too: one span.
                    Some(last) if (last.1 - (t - dt)).abs() < dt * 1e-6 => last.1 = t,
                    _ => spans.push(((t - dt).max(0.0), t)),
                }
            }
            spans
        }
    }
}

fn pause(mut chart: Chart<'_>, frame: &Frame, axes: &Axes) -> DrawResult {
    let p = frame.palette;
    if let Some(pin) = frame.pinned {
        chart.draw_series(paused_spans_us(&pin.series).into_iter().map(|(from, to)| {
            Rectangle::new([(ms(from), 0.0), (ms(to), 0.35)], p.muted.mix(0.5).filled())
        }))?;
    }
    chart.draw_series(
        paused_spans_us(&frame.run.series)
            .into_iter()
            .map(|(from, to)| {
                Rectangle::new(
                    [(ms(from), 0.45), (ms(to), 1.0)],
                    p.accent.mix(0.8).filled(),
                )
            }),
    )?;
    cursor_line(&mut chart, frame, axes.y.max)
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

    #[test]
    fn path_points_are_written_as_whole_numbers() {
        let mut path = String::new();
        for (command, x, y) in [('M', 0, 7), ('L', 1234, -56), ('L', i32::MIN, i32::MAX)] {
            push_point(&mut path, command, x, y);
        }
        assert_eq!(path, "M0 7L1234 -56L-2147483648 2147483647");
    }

    #[test]
    fn the_fluid_models_paused_samples_make_spans_and_the_packet_models_pauses_are_its_own() {
        let scenario = engine::dcqcn::named_scenario("ecn-above-xoff").expect("named");
        let limits = engine::dcqcn::Limits::default();
        let fluid = engine::dcqcn::simulate_fluid(&scenario, &limits).expect("runs");
        let spans = paused_spans_us(&fluid);
        // PFC holds the incast from its first step until the queue drains: one span, of
        // about the pause time the summary gives (to a sample interval at either end).
        assert_eq!(spans.len(), 1, "{spans:?}");
        let (from, to) = spans[0];
        assert_eq!(from, 0.0);
        let slack = 2.0 * fluid.sample_interval_us;
        assert!(
            (to - from - fluid.pfc_pause_total_us).abs() <= slack,
            "{spans:?}"
        );

        let mut short = scenario.clone();
        short.duration_us = 500.0;
        let packet = engine::dcqcn::simulate_packets(&short, &limits).expect("runs");
        let own: Vec<(f64, f64)> = packet
            .pause_intervals
            .iter()
            .map(|i| (i.start_us, i.end_us))
            .collect();
        assert!(own.len() > 5);
        assert_eq!(paused_spans_us(&packet), own);
    }

    #[test]
    fn axis_tops_round_up_to_round_numbers() {
        assert_eq!(round_up(44.0), 50.0);
        assert_eq!(round_up(40.0), 40.0);
        assert_eq!(round_up(1.1), 1.2);
        assert_eq!(round_up(0.013), 0.015);
        assert_eq!(round_up(812.0), 1000.0);
        assert_eq!(round_up(0.0), 1.0);
        assert_eq!(round_up(f64::NAN), 1.0);
        // Never below the value, for any value.
        for v in [0.7, 3.3, 9.99, 123.4, 5e6] {
            assert!(round_up(v) >= v, "{v}");
        }
    }
}
