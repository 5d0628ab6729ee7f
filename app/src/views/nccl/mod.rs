//! The collective calculator (/nccl): a cluster by preset or by parts, a collective and a
//! size; every algorithm/protocol pair from NCCL's cost model (`engine::collective`), the
//! pair NCCL's tuner would take and why, a sweep shaped like `all_reduce_perf`'s output, and
//! a side-by-side comparison with a variant, and a pasted nccl-tests run beside the model.
//! The view only draws what the engine computes.

mod compare;
mod fields;
mod format;
mod inputs;
mod measured;
mod query;
mod results;
mod state;
mod sweep;

use yew::prelude::*;

use compare::Compare;
use inputs::CalculatorForm;
use measured::Measured;
use results::PairResults;
use state::{Action, NcclState};
use sweep::Sweep;

use super::page_query;
use super::training::TrainingWithoutRdma;

#[function_component]
pub fn NcclView() -> Html {
    let state = use_reducer(|| NcclState::from_pairs(&page_query::read()));
    let dispatch = {
        let dispatcher = state.dispatcher();
        use_callback((), move |action: Action, _| dispatcher.dispatch(action))
    };
    // The query follows the page; pairs this view does not own stay.
    {
        let pairs = state.pairs();
        use_effect_with(pairs, |pairs| {
            page_query::replace(&query::merge(pairs.clone(), &page_query::read()));
        });
    }
    let stale = state.inputs.form.is_refused();
    html! {
        <>
        <section class="nccl-view" aria-labelledby="nccl-view-title">
            <h2 id="nccl-view-title">{ "Collective calculator" }</h2>
            <p class="nccl-lead">
                { "Pick the machines and a collective: the page runs NCCL's own cost model (its tuning tables, cited in the engine) and shows what each algorithm and protocol would take, and which one NCCL would pick." }
            </p>
            <CalculatorForm inputs={state.inputs.clone()} dispatch={dispatch.clone()} />
            if let Some(calc) = state.calc.clone() {
                <PairResults calc={calc.clone()} {stale} />
                <Compare calc={calc.clone()} variant={state.inputs.variant.clone()} dispatch={dispatch.clone()} />
                <Sweep calc={calc.clone()} shown={state.inputs.sweep} {dispatch} />
                <Measured {calc} />
            } else {
                <p class="nccl-empty" role="status">{ "No results yet: fix the marked fields above." }</p>
            }
        </section>
        // The training step on machines without RDMA: its own form, state under `train-` keys.
        <TrainingWithoutRdma />
        </>
    }
}
