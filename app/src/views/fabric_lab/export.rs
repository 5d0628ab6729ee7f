//! The downloads: both sides' series as the engine's CSV (`lab_csv`, headed by the case and
//! each side's parameters), and a PNG of the charts under a caption naming the same.

use engine::netsim::{lab_csv, side_letter, LabCase, Report, Scenario};
use gloo::utils::document;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::views::dcqcn::charts::Palette;
use crate::views::download;

const LINE: f64 = 16.0;
const PAD: f64 = 10.0;

/// `fabric-lab-ecmp-collision.csv`.
fn file_name(case: &LabCase, ext: &str) -> String {
    format!("fabric-lab-{}.{ext}", case.id)
}

pub fn csv(case: &LabCase, sides: &[Scenario; 2], runs: &[&Report; 2]) -> Result<(), String> {
    let text = lab_csv(case, sides, *runs);
    download::save_bytes(text.as_bytes(), &file_name(case, "csv"), "text/csv")
}

/// The caption's lines: the case, then each side with its colour and parameters.
fn caption(case: &LabCase, sides: &[Scenario; 2]) -> Vec<String> {
    let mut lines = vec![format!("rdma-lab fabric lab: {}", case.title)];
    for (i, s) in sides.iter().enumerate() {
        lines.push(format!(
            "Side {} ({}): {}; seed {}; duration {} µs",
            side_letter(i),
            crate::views::dcqcn::charts::flow_colour_name(i),
            case.sides[i].label,
            s.seed,
            s.duration_us
        ));
    }
    lines
}

/// The charts stacked under the caption, as one PNG.
pub fn png(
    case: &LabCase,
    sides: &[Scenario; 2],
    charts: &[HtmlCanvasElement],
    palette: &Palette,
) -> Result<(), String> {
    let lines = caption(case, sides);
    let width = charts.iter().map(|c| c.width()).max().unwrap_or(600);
    let head = PAD * 2.0 + LINE * lines.len() as f64;
    let height = head as u32 + charts.iter().map(|c| c.height()).sum::<u32>();
    let out: HtmlCanvasElement = document()
        .create_element("canvas")
        .map_err(|_| "no canvas".to_string())?
        .unchecked_into();
    out.set_width(width);
    out.set_height(height);
    let ctx: CanvasRenderingContext2d = out
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| "this browser gave no 2D canvas".to_string())?;
    let rgb = |c: plotters::style::RGBColor| format!("rgb({}, {}, {})", c.0, c.1, c.2);
    ctx.set_fill_style_str(&rgb(palette.bg));
    ctx.fill_rect(0.0, 0.0, f64::from(width), f64::from(height));
    ctx.set_fill_style_str(&rgb(palette.text));
    ctx.set_font("12px sans-serif");
    for (i, line) in lines.iter().enumerate() {
        let _ = ctx.fill_text(line, PAD, PAD + LINE * (i as f64 + 0.8));
    }
    let mut y = head;
    for chart in charts {
        ctx.draw_image_with_html_canvas_element(chart, 0.0, y)
            .map_err(|_| "a chart could not be copied".to_string())?;
        y += f64::from(chart.height());
    }
    let url = out
        .to_data_url_with_type("image/png")
        .map_err(|_| "the browser refused to encode the PNG".to_string())?;
    download::save_url(&url, &file_name(case, "png"))
}
