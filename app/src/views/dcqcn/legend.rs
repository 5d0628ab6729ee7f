//! The charts' key: which colour is which flow (named in words, not by colour alone), and
//! what the line styles mean.

use yew::prelude::*;

use super::charts::{flow_colour_name, flow_css, FLOW_COLOUR_NAMES};

#[derive(Properties, PartialEq)]
pub struct LegendProps {
    pub flows: usize,
    /// The theme's colour set (the charts' own).
    pub dark: bool,
    /// Whether a pinned run is drawn under this one.
    pub pinned: bool,
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
                    { "solid: current rate R_C and alpha" }
                </span>
                <span class="dcqcn-legend-key">
                    <span class="dcqcn-line-sample dcqcn-line-dashed" aria-hidden="true"></span>
                    { "dashed: target rate R_T" }
                </span>
                if props.pinned {
                    <span class="dcqcn-legend-key">
                        <span class="dcqcn-line-sample dcqcn-line-pinned" aria-hidden="true"></span>
                        { "wide grey: the pinned run" }
                    </span>
                }
            </p>
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
}
