//! A real run beside the model: the learner pastes nccl-tests' output, and each size's
//! measured busbw stands beside the model's for the calculator's machines, with what
//! bounds the model where the run falls short. The engine reads the table
//! (`engine::collective::read_perf_table`) and answers each size (`against_model`).

use std::rc::Rc;

use engine::collective::{against_model, read_perf_table, CollectiveRequest, MeasuredError};
use engine::collective::{Collective, MeasuredPoint};
use yew::prelude::*;

use super::format::{self, op_id, op_name};
use super::results::pair_name;
use super::state::Calc;
use crate::views::figures;
use crate::views::kept::{keep, kept};

/// Where the pasted run is kept for this tab ([`kept`]), so Back from the troubleshooting
/// page finds it again.
const KEPT_RUN_KEY: &str = "rdma-lab.nccl-run";

/// A run this far below the model is worth the troubleshooting page's checks: the lab's
/// rule of thumb, said as such on the page, not a figure from a source.
const SHORT_OF_MODEL: f64 = 0.8;

#[derive(Properties, PartialEq)]
pub struct MeasuredProps {
    pub calc: Rc<Calc>,
}

/// Each row of the pasted run beside the model, or why the text does not compare.
fn compare(text: &str, request: &CollectiveRequest) -> Result<Vec<MeasuredPoint>, String> {
    let table = read_perf_table(text).map_err(|e| e.to_string())?;
    against_model(&table, request).map_err(|e| match e {
        MeasuredError::OtherCollective(run) => format!(
            "this run is {} ({}_perf) and the calculator is set to {}: pick {} above to compare",
            op_name(run),
            op_id(run),
            op_name(request.op),
            op_name(run)
        ),
        MeasuredError::Model { line, error } => format!("line {line}: {error}"),
    })
}

#[function_component]
pub fn Measured(props: &MeasuredProps) -> Html {
    let text = use_state(|| kept(KEPT_RUN_KEY).unwrap_or_default());
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            keep(KEPT_RUN_KEY, &area.value());
            text.set(area.value())
        })
    };
    let request = props.calc.request.clone();
    let answer = use_memo(((*text).clone(), request), |(text, request)| {
        (!text.trim().is_empty()).then(|| compare(text, request))
    });
    let perf = format!("{}_perf", op_id(props.calc.config.op));
    let refused = matches!(*answer, Some(Err(_)));
    html! {
        <section class="nccl-measured" aria-labelledby="nccl-measured-title">
            <h3 id="nccl-measured-title">{ "Your run beside the model" }</h3>
            <label for="nccl-measured-text">
                { format!("Paste the output of {perf} (nccl-tests) from your machines; each size's out-of-place busbw is set beside the model's for the machines above.") }
            </label>
            <textarea id="nccl-measured-text" class="nccl-measured-text" rows="6" spellcheck="false"
                value={(*text).clone()} {oninput} aria-invalid={refused.to_string()}
                aria-describedby={refused.then_some("nccl-measured-error")} />
            { match &*answer {
                Some(Err(e)) => html! { <p id="nccl-measured-error" class="field-error" role="alert">{ e }</p> },
                Some(Ok(points)) => html! { <MeasuredTable points={Rc::new(points.clone())} op={props.calc.config.op} /> },
                None => html! {},
            } }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct TableProps {
    points: Rc<Vec<MeasuredPoint>>,
    op: Collective,
}

/// The sizes side by side, after a sentence on the largest.
#[function_component]
fn MeasuredTable(props: &TableProps) -> Html {
    let sized = props.points.iter().filter_map(|p| Some((p, p.ratio()?)));
    let Some((largest, ratio)) = sized.max_by_key(|(p, _)| p.row.bytes) else {
        return html! { <p role="status">{ "The model moves no bytes at these sizes." }</p> };
    };
    let verdict = if ratio < SHORT_OF_MODEL {
        html! { <>
            { "More than a fifth short (the lab's rule of thumb): " }
            <a href={crate::base::href("/troubleshooting#bandwidth-still-low-with-rdma-and-gpudirect-rdma")}>
                { "Bandwidth still low with RDMA and GPUDirect RDMA" }
            </a>
            { " lists what to check." }
        </> }
    } else if ratio > 1.0 {
        html! { { "Above the model: NCCL's tuning constants are estimates, or your machines differ from the ones above." } }
    } else {
        html! { { "Within a fifth of the model." } }
    };
    html! {
        <div class="nccl-measured-answer">
            <p class="nccl-measured-verdict" role="status">
                { format!(
                    "At {}, your run reaches {:.0} % of the model's {} GB/s ({} {}), which the model bounds by {}. ",
                    figures::bytes(largest.row.bytes as f64),
                    ratio * 100.0,
                    format::gbs(largest.model.busbw_gbs),
                    op_name(props.op),
                    pair_name(largest.model.algorithm, largest.model.protocol),
                    format::bottleneck(largest.model.bottleneck),
                ) }
                { verdict }
            </p>
            <div class="nccl-scroll" tabindex="0" role="region" aria-label="Your run beside the model">
                <table class="nccl-table nccl-measured-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "size (B)" }</th>
                            <th scope="col">{ "measured ÷ model" }</th>
                            <th scope="col">{ "measured busbw (GB/s)" }</th>
                            <th scope="col">{ "model busbw (GB/s)" }</th>
                            <th scope="col">{ "model's pair" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for props.points.iter().map(|p| html! {
                            <tr data-line={p.row.line.to_string()}>
                                <th scope="row" class="num">{ p.row.bytes }</th>
                                <td class="num">{ p.ratio().map(|r| format!("{:.0} %", r * 100.0)).unwrap_or_else(|| "—".into()) }</td>
                                <td class="num">{ format::gbs(p.row.busbw_gbs) }</td>
                                <td class="num">{ format::gbs(p.model.busbw_gbs) }</td>
                                <td>{ pair_name(p.model.algorithm, p.model.protocol) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </div>
    }
}
