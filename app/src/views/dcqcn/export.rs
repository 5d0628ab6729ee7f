//! The run's exports. The CSV is the engine's (`run_csv`: `#` lines naming the scenario,
//! model and every parameter, then the series), the same as `native-probe dcqcn --csv`. The
//! PNG stacks the charts under a caption drawn into the image: the title, the parameters
//! changed from the named scenario, every parameter, and the flow colours.

use engine::dcqcn::{parameters, run_csv, run_title, Parameter, Scenario};
use gloo::utils::document;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::charts::{flow_colour_name, ChartKind, Drawn, Palette, FLOW_COLOUR_NAMES};
use crate::views::download;

/// `dcqcn-incast-16-fluid.csv`: scenario and model in the name too.
fn file_name(name: &str, run: &Drawn, ext: &str) -> String {
    format!("dcqcn-{name}-{}.{ext}", run.series.model.name())
}

/// Downloads the run as CSV.
pub fn csv(name: &str, run: &Drawn) {
    let text = run_csv(&run.scenario, &run.series);
    let _ = download::save_bytes(text.as_bytes(), &file_name(name, run, "csv"), "text/csv");
}

/// The parameters of `now` that differ from `base`, the named scenario.
pub fn changed(base: &Scenario, now: &Scenario) -> Vec<Parameter> {
    let before = parameters(base);
    parameters(now)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect()
}

const PAD: f64 = 12.0;
const TITLE_FONT: &str = "bold 16px sans-serif";
const TEXT_FONT: &str = "12px sans-serif";
const SMALL_FONT: &str = "11px sans-serif";
const TITLE_LINE: f64 = 22.0;
const LINE: f64 = 16.0;
const SMALL_LINE: f64 = 14.0;
const GAP: f64 = 6.0;
/// Room for a legend swatch before its label, and after the label.
const SWATCH_GAP: f64 = 14.0;

/// The width of `text` in the context's current font, px.
fn text_width(ctx: &CanvasRenderingContext2d, text: &str) -> f64 {
    // `measureText` through Reflect: the page's web-sys build has no `TextMetrics`.
    let measured = js_sys::Reflect::get(ctx, &JsValue::from_str("measureText"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call1(ctx, &JsValue::from_str(text)).ok())
        .and_then(|m| js_sys::Reflect::get(&m, &JsValue::from_str("width")).ok())
        .and_then(|w| w.as_f64());
    measured.unwrap_or(text.chars().count() as f64 * 7.0)
}

/// Joins `items` with " · " into lines no wider than `width` in the current font.
fn wrap(ctx: &CanvasRenderingContext2d, lead: &str, items: &[String], width: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = lead.to_string();
    for item in items {
        let candidate = if line.is_empty() || line == lead {
            format!("{line}{item}")
        } else {
            format!("{line} · {item}")
        };
        if text_width(ctx, &candidate) > width && line != lead && !line.is_empty() {
            lines.push(line);
            line = item.clone();
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The caption's text lines, in their fonts, wrapped to `width`.
struct Caption {
    title: String,
    changed: Vec<String>,
    parameters: Vec<String>,
    /// (colour index, label, x, row) per legend entry.
    legend: Vec<(usize, String, f64, usize)>,
}

impl Caption {
    fn new(
        ctx: &CanvasRenderingContext2d,
        name: &str,
        run: &Drawn,
        base: &Scenario,
        width: f64,
    ) -> Caption {
        let changed: Vec<String> = changed(base, &run.scenario)
            .iter()
            .map(|p| p.to_string())
            .collect();
        ctx.set_font(TEXT_FONT);
        let changed = if changed.is_empty() {
            vec![format!("As named: no parameter changed from {name}.")]
        } else {
            wrap(ctx, &format!("Changed from {name}: "), &changed, width)
        };
        ctx.set_font(SMALL_FONT);
        let all: Vec<String> = parameters(&run.scenario)
            .iter()
            .map(|p| p.to_string())
            .collect();
        // The legend: a swatch and its flows' names, left to right, wrapping.
        ctx.set_font(TEXT_FONT);
        let flows = run.series.flows.len();
        let (mut x, mut row) = (PAD, 0);
        let mut legend = Vec::new();
        for c in 0..flows.min(FLOW_COLOUR_NAMES.len()) {
            let members: Vec<String> = (c..flows)
                .step_by(FLOW_COLOUR_NAMES.len())
                .map(|i| i.to_string())
                .collect();
            let label = format!("flow {} ({})", members.join(", "), flow_colour_name(c));
            let w = SWATCH_GAP + text_width(ctx, &label) + SWATCH_GAP;
            if x + w > PAD + width && x > PAD {
                x = PAD;
                row += 1;
            }
            legend.push((c, label, x, row));
            x += w;
        }
        Caption {
            title: run_title(&run.scenario, run.series.model),
            changed,
            parameters: wrap(ctx, "Parameters: ", &all, width),
            legend,
        }
    }

    fn legend_rows(&self) -> usize {
        self.legend.last().map_or(0, |(_, _, _, row)| row + 1)
    }

    fn height(&self) -> f64 {
        PAD + TITLE_LINE
            + LINE * self.changed.len() as f64
            + SMALL_LINE * self.parameters.len() as f64
            + GAP
            + LINE * (self.legend_rows() + 1) as f64
            + PAD
    }
}

/// Stacks the chart canvases under the run's caption and downloads the image as PNG.
pub fn png(
    canvases: &[HtmlCanvasElement],
    palette: &Palette,
    name: &str,
    run: &Drawn,
    base: &Scenario,
) {
    let width = canvases
        .iter()
        .map(|c| c.width())
        .max()
        .unwrap_or(0)
        .max(480);
    let Ok(out) = document().create_element("canvas") else {
        return;
    };
    let Ok(out) = out.dyn_into::<HtmlCanvasElement>() else {
        return;
    };
    out.set_width(width);
    let Some(ctx) = out
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let text_width = f64::from(width) - 2.0 * PAD;
    let caption = Caption::new(&ctx, name, run, base, text_width);
    let chart_caption = LINE + 4.0;
    let charts: f64 = canvases
        .iter()
        .map(|c| f64::from(c.height()) + chart_caption)
        .sum();
    // Resizing clears the canvas and its state: size it first, then draw.
    out.set_height((caption.height() + charts).ceil() as u32);
    let css = |c: plotters::style::RGBColor| format!("rgb({}, {}, {})", c.0, c.1, c.2);
    ctx.set_fill_style_str(&css(palette.bg));
    ctx.fill_rect(0.0, 0.0, f64::from(width), f64::from(out.height()));
    ctx.set_text_baseline("top");

    let mut y = PAD;
    ctx.set_fill_style_str(&css(palette.text));
    ctx.set_font(TITLE_FONT);
    let _ = ctx.fill_text(&caption.title, PAD, y);
    y += TITLE_LINE;
    ctx.set_font(TEXT_FONT);
    for line in &caption.changed {
        let _ = ctx.fill_text(line, PAD, y);
        y += LINE;
    }
    ctx.set_fill_style_str(&css(palette.muted));
    ctx.set_font(SMALL_FONT);
    for line in &caption.parameters {
        let _ = ctx.fill_text(line, PAD, y);
        y += SMALL_LINE;
    }
    y += GAP;
    ctx.set_font(TEXT_FONT);
    for (colour, label, x, row) in &caption.legend {
        let top = y + LINE * *row as f64;
        ctx.set_fill_style_str(&css(palette.flow(*colour)));
        ctx.fill_rect(*x, top + 2.0, 10.0, 10.0);
        ctx.set_fill_style_str(&css(palette.text));
        let _ = ctx.fill_text(label, x + SWATCH_GAP, top);
    }
    y += LINE * caption.legend_rows() as f64;
    ctx.set_fill_style_str(&css(palette.muted));
    let _ = ctx.fill_text(
        "solid: rate sent on the wire, and alpha · dashed: current rate R_C · dotted: target \
         rate R_T",
        PAD,
        y,
    );
    y += LINE + PAD;

    for (canvas, kind) in canvases.iter().zip(ChartKind::ALL) {
        ctx.set_fill_style_str(&css(palette.text));
        ctx.set_font(TEXT_FONT);
        let _ = ctx.fill_text(kind.title(), PAD, y);
        y += chart_caption;
        let _ = ctx.draw_image_with_html_canvas_element(canvas, 0.0, y);
        y += f64::from(canvas.height());
    }
    if let Ok(url) = out.to_data_url_with_type("image/png") {
        let _ = download::save_url(&url, &file_name(name, run, "png"));
    }
}
