//! What moves a QP without a modify call: posting work, completions, errors, drains. Each
//! button runs the engine's simulated QP and lists the completions and events it produced.

use engine::qp::sim::WorkQueue;
use engine::qp::WorkCompletion;
use yew::prelude::*;

use super::{Action, QpPage, PAGE_EVENTS};

#[derive(Properties, PartialEq)]
pub struct EventPanelProps {
    pub page: UseReducerHandle<QpPage>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn EventPanel(props: &EventPanelProps) -> Html {
    let page = &props.page;
    let sends = page.qp.outstanding_sends().len();
    let recvs = page.qp.outstanding_recvs().len();
    html! {
        <section class="qp-events" aria-labelledby="qp-events-title">
            <h2 id="qp-events-title">{ "Events without a modify call" }</h2>
            <p>
                { format!("{} QP {:#x} in {}: {sends} send(s) and {recvs} receive(s) outstanding{}.",
                    page.qp.qp_type(), page.qp.qp_num(), page.qp.state(),
                    if page.qp.is_draining() { ", draining (SQD)" } else { "" }) }
            </p>
            <div class="qp-event-buttons">
                { for PAGE_EVENTS.into_iter().map(|event| html! {
                    <button type="button" onclick={props.dispatch.reform(move |_| Action::Event(event))}>
                        { event.label() }
                    </button>
                }) }
            </div>
            <ol class="qp-log" aria-live="polite" aria-label="What happened, newest first">
                { for page.log.iter().map(|entry| html! {
                    <li class={classes!(entry.result.is_err().then_some("error"))}>
                        <strong>{ &entry.label }</strong>
                        { match &entry.result {
                            Ok(o) => html! {
                                <>
                                    { if o.before != o.after { format!(" — {} → {}", o.before, o.after) } else { String::new() } }
                                    if !o.notes.is_empty() {
                                        <ul>{ for o.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                                    }
                                    if !o.completions.is_empty() {
                                        <Completions completions={o.completions.clone()} />
                                    }
                                    if !o.async_events.is_empty() {
                                        <p class="qp-async">{ "Async event: " }
                                            { for o.async_events.iter().map(|e| html! { <code>{ e.name() }</code> }) }
                                        </p>
                                    }
                                </>
                            },
                            Err(e) => html! { <p><code>{ e.to_string() }</code></p> },
                        } }
                    </li>
                }) }
            </ol>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct CompletionsProps {
    pub completions: Vec<WorkCompletion>,
}

/// Completions as `ibv_poll_cq()` returns them.
#[function_component]
pub fn Completions(props: &CompletionsProps) -> Html {
    html! {
        <table class="qp-wc">
            <caption>{ "Work completions (ibv_poll_cq)" }</caption>
            <thead><tr><th scope="col">{ "CQ" }</th><th scope="col">{ "wr_id" }</th><th scope="col">{ "status" }</th></tr></thead>
            <tbody>
                { for props.completions.iter().map(|c| html! {
                    <tr class={classes!((c.status.value() != 0).then_some("error"))}>
                        <td>{ match c.queue { WorkQueue::Send => "send", WorkQueue::Recv => "recv" } }</td>
                        <td>{ c.wr_id }</td>
                        <td><code title={c.status.meaning()}>{ c.status.name() }</code></td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}
