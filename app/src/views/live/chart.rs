//! A small line chart on a `<canvas>`, drawn with plotters.

use gloo::events::EventListener;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use yew::prelude::*;

use crate::views::figures;

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    /// (seconds, value)
    pub points: Vec<(f64, f64)>,
    /// Why the latest sample has no value, when the counter says (saturated, reset).
    pub no_rate: Option<&'static str>,
}

#[derive(Properties, PartialEq)]
pub struct LineChartProps {
    pub title: String,
    pub unit: AttrValue,
    pub series: Vec<Series>,
}

/// Distinct in both themes, and told apart by the legend, not by colour alone.
const COLOURS: &[RGBColor] = &[
    RGBColor(0x1f, 0x77, 0xd4),
    RGBColor(0xd9, 0x6c, 0x06),
    RGBColor(0x2d, 0xa4, 0x4e),
    RGBColor(0xb3, 0x3d, 0xc6),
    RGBColor(0xcf, 0x22, 0x2e),
];

/// The text colour the page uses here, so axes read well in either theme.
fn text_colour(canvas: &web_sys::HtmlCanvasElement) -> RGBColor {
    let style = gloo::utils::window()
        .get_computed_style(canvas)
        .ok()
        .flatten();
    let colour = style
        .and_then(|s| s.get_property_value("color").ok())
        .unwrap_or_default();
    let parts: Vec<u8> = colour
        .trim_start_matches("rgba(")
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .filter_map(|p| p.trim().parse::<f64>().ok())
        .map(|v| v.clamp(0.0, 255.0) as u8)
        .collect();
    match parts[..] {
        [r, g, b, ..] => RGBColor(r, g, b),
        _ => RGBColor(0x57, 0x60, 0x6a),
    }
}

fn draw(canvas: web_sys::HtmlCanvasElement, series: &[Series]) -> Option<()> {
    let width = canvas.parent_element()?.client_width().max(200) as u32;
    canvas.set_width(width);
    canvas.set_height(180);
    let text = text_colour(&canvas);
    let backend = CanvasBackend::with_canvas_object(canvas)?;
    let root = backend.into_drawing_area();
    root.fill(&TRANSPARENT).ok()?;

    let all = || series.iter().flat_map(|s| s.points.iter());
    let newest = all().map(|p| p.0).fold(f64::MIN, f64::max);
    if newest == f64::MIN {
        return Some(());
    }
    let oldest = all()
        .map(|p| p.0)
        .fold(f64::MAX, f64::min)
        .min(newest - 10.0);
    let top = all().map(|p| p.1).fold(0.0_f64, f64::max).max(1.0) * 1.1;

    let label_style = (FontFamily::SansSerif, 12).into_font().color(&text);
    let mut chart = ChartBuilder::on(&root)
        .margin(6)
        .x_label_area_size(22)
        .y_label_area_size(64)
        .build_cartesian_2d((oldest - newest)..0.0, 0.0..top)
        .ok()?;
    chart
        .configure_mesh()
        .light_line_style(text.mix(0.08))
        .bold_line_style(text.mix(0.2))
        .axis_style(text.mix(0.6))
        .label_style(label_style.clone())
        .x_labels(6)
        .y_labels(5)
        .x_label_formatter(&|s| format!("{s:.0} s"))
        .y_label_formatter(&|v| figures::si(*v))
        .draw()
        .ok()?;
    for (index, s) in series.iter().enumerate() {
        let colour = COLOURS[index % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|&(t, v)| (t - newest, v)),
                colour.stroke_width(2),
            ))
            .ok()?;
    }
    root.present().ok()
}

#[function_component]
pub fn LineChart(props: &LineChartProps) -> Html {
    let canvas = use_node_ref();
    // What the chart shows now, for a redraw that is not caused by new data.
    let shown = use_mut_ref(Vec::new);
    {
        let canvas = canvas.clone();
        let shown = shown.clone();
        use_effect_with(props.series.clone(), move |series| {
            *shown.borrow_mut() = series.clone();
            if let Some(element) = canvas.cast::<web_sys::HtmlCanvasElement>() {
                let _ = draw(element, series);
            }
        });
    }
    // The canvas is drawn at its box's width in pixels: a window that changes size (a phone
    // turned, a probe that no longer sends) would otherwise stretch the old drawing.
    {
        let canvas = canvas.clone();
        use_effect_with((), move |_| {
            let listener = EventListener::new(&gloo::utils::window(), "resize", move |_| {
                if let Some(element) = canvas.cast::<web_sys::HtmlCanvasElement>() {
                    let _ = draw(element, &shown.borrow());
                }
            });
            move || drop(listener)
        });
    }
    let latest: Vec<String> = props
        .series
        .iter()
        .map(|s| match (s.no_rate, s.points.last()) {
            (Some(why), _) => format!("{}: {why}", s.name),
            (None, Some(&(_, v))) => format!("{}: {}", s.name, figures::si(v)),
            (None, None) => format!("{}: waiting for a second sample", s.name),
        })
        .collect();
    html! {
        <figure class="live-chart">
            <figcaption>{ format!("{} ({})", props.title, props.unit) }</figcaption>
            <canvas ref={canvas} role="img" aria-label={format!("{}: {}", props.title, latest.join(", "))}></canvas>
            <ul class="live-legend">
                { for latest.iter().enumerate().map(|(i, line)| {
                    let c = COLOURS[i % COLOURS.len()];
                    html! {
                        <li>
                            <span class="swatch" style={format!("background: rgb({}, {}, {})", c.0, c.1, c.2)}></span>
                            { line.clone() }
                        </li>
                    }
                }) }
            </ul>
        </figure>
    }
}
