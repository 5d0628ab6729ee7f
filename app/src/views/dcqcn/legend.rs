//! The charts' key: which colour is which flow (named in words, not by colour alone), and
//! what the line styles mean.

use engine::dcqcn::Model;
use yew::prelude::*;

use super::charts::{flow_colour_name, flow_css, FLOW_COLOUR_NAMES};

#[derive(Properties, PartialEq)]
pub struct LegendProps {
    pub flows: usize,
    /// The theme's colour set (the charts' own).
    pub dark: bool,
    /// Whether a pinned run is drawn under this one.
    pub pinned: bool,
    /// The model that drew the charts, and its sample interval: what the sent rate means
    /// depends on both.
    pub model: Model,
    pub sample_interval_us: f64,
}

/// What the solid rate line means in `model`, beyond its key: the two models see PFC
/// differently, and a learner comparing them should know why their lines differ.
fn sent_rate_note(model: Model, sample_interval_us: f64) -> String {
    match model {
        Model::Packet => format!(
            "Sent averages each {sample_interval_us} µs sample, so a pause shorter than that \
             lowers it rather than zeroing it; the PFC chart shows each pause."
        ),
        Model::Fluid => "The fluid model averages PFC: while it acts, sent is each flow's \
                         share of the bottleneck, and the PFC chart marks the samples in \
                         which it acted, not single pauses."
            .to_string(),
    }
}

/// The flows a colour stands for, as text: "flow 3" or "flows 0, 8, 16".
fn flows_in_colour(colour: usize, flows: usize) -> String {
    let members: Vec<String> = (colour..flows)
        .step_by(FLOW_COLOUR_NAMES.len())
        .map(|i| i.to_string())
        .collect();
    match members.as_slice() {
        [one] => format!("Flow {one}"),
        many => format!("Flows {}", many.join(", ")),
    }
}

#[function_component]
pub fn FlowLegend(props: &LegendProps) -> Html {
    let colours = props.flows.min(FLOW_COLOUR_NAMES.len());
    html! {
        <div class="dcqcn-legend" role="group" aria-label="Chart legend">
            <ul class="dcqcn-legend-flows">
                { for (0..colours).map(|c| html! {
                    <li data-flow={c.to_string()}>
                        <span class="dcqcn-swatch" aria-hidden="true"
                            style={format!("background: {}", flow_css(props.dark, c))}></span>
                        { format!("{}: {}", flows_in_colour(c, props.flows), flow_colour_name(c)) }
                    </li>
                }) }
            </ul>
            <p class="dcqcn-legend-lines">
                <span class="dcqcn-legend-key">
                    <span class="dcqcn-line-sample dcqcn-line-solid" aria-hidden="true"></span>
                    { "solid: rate sent on the wire (0 while PFC pauses the sender), and alpha" }
                </span>
                <span class="dcqcn-legend-key">
                    <span class="dcqcn-line-sample dcqcn-line-dashed" aria-hidden="true"></span>
                    { "dashed: current rate R_C, what DCQCN allows" }
                </span>
                <span class="dcqcn-legend-key">
                    <span class="dcqcn-line-sample dcqcn-line-dotted" aria-hidden="true"></span>
                    { "dotted: target rate R_T" }
                </span>
                if props.pinned {
                    <span class="dcqcn-legend-key">
                        <span class="dcqcn-line-sample dcqcn-line-pinned" aria-hidden="true"></span>
                        { "wide grey: the pinned run" }
                    </span>
                }
            </p>
            <p class="dcqcn-legend-note">{ sent_rate_note(props.model, props.sample_interval_us) }</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_colour_names_every_flow_drawn_in_it() {
        assert_eq!(flows_in_colour(1, 2), "Flow 1");
        assert_eq!(flows_in_colour(0, 17), "Flows 0, 8, 16");
        assert_eq!(flows_in_colour(7, 16), "Flows 7, 15");
    }

    #[test]
    fn the_note_says_how_each_model_sees_pfc() {
        let packet = sent_rate_note(Model::Packet, 50.0);
        assert!(
            packet.contains("50 µs") && packet.contains("each pause"),
            "{packet}"
        );
        let fluid = sent_rate_note(Model::Fluid, 50.0);
        assert!(fluid.contains("averages PFC"), "{fluid}");
    }
}
