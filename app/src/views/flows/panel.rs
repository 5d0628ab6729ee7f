//! The side panel: the step under way, the latency breakdown filling as the flow goes, the
//! totals, and the reference topics the flow illustrates.

use std::rc::Rc;

use engine::flows::{Category, CategoryTime, Scenario};
use yew::prelude::*;

use super::stage::kind_text;
use crate::base;
use crate::topics::Topic;
use crate::views::figures;

fn category_text(category: Category) -> &'static str {
    match category {
        Category::HostSoftware => "Host software",
        Category::Kernel => "Kernel",
        Category::Memcpy => "CPU copies",
        Category::Pcie => "PCIe",
        Category::NicProcessing => "NIC processing",
        Category::WireSerialization => "Serialization",
        Category::Propagation => "Propagation",
        Category::Switch => "Switches",
        Category::Nvlink => "NVLink",
        Category::Waiting => "Timers and waits",
    }
}

#[derive(Properties, PartialEq)]
pub struct TopicLinkProps {
    pub path: AttrValue,
    pub children: Html,
}

/// A plain link to a reference topic (the shell follows it without reloading).
#[function_component]
pub fn TopicLink(props: &TopicLinkProps) -> Html {
    html! { <a href={base::href(&props.path)}>{ props.children.clone() }</a> }
}

fn topic_title(path: &str) -> &str {
    let page = path.split('#').next().unwrap_or(path);
    Topic::at_path(page).map_or(path, |t| t.title)
}

#[derive(Properties, PartialEq)]
pub struct StepPanelProps {
    pub scenario: Rc<Scenario>,
    pub step: Option<usize>,
}

/// The step under way: what happens, why, and what it costs.
#[function_component]
pub fn StepPanel(props: &StepPanelProps) -> Html {
    let s = &*props.scenario;
    let Some(step) = props.step.and_then(|i| s.steps.get(i)) else {
        return html! { <p class="flow-step-none">{ "Press play or step forward to start." }</p> };
    };
    let link = step.link.map_or_else(
        || "none (on one device)".to_string(),
        |l| l.link().name.to_string(),
    );
    html! {
        <section class="flow-step" aria-live="polite">
            <h3 class="flow-step-title">
                { format!("Step {} of {}: {}", step.index + 1, s.steps.len(), step.title) }
            </h3>
            <p class="flow-step-text">{ step.explanation.clone() }</p>
            <dl class="flow-facts">
                <dt>{ "What" }</dt><dd>{ kind_text(step.kind) }{ if step.critical { "" } else { " (off the critical path)" } }</dd>
                <dt>{ "Size" }</dt><dd>{ if step.bytes > 0 { figures::bytes(step.bytes as f64) } else { "no payload".to_string() } }</dd>
                <dt>{ "Duration" }</dt><dd>{ figures::duration_ns(step.duration_ns) }</dd>
                <dt>{ "Starts at" }</dt><dd>{ figures::duration_ns(step.start_ns) }</dd>
                <dt>{ "Link" }</dt><dd>{ link }</dd>
            </dl>
            <p class="flow-step-topic">
                { "Read more: " }
                <TopicLink path={step.topic.clone()}>{ topic_title(&step.topic) }</TopicLink>
            </p>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct BreakdownProps {
    pub accrued: Vec<CategoryTime>,
    /// The time a full bar stands for.
    pub scale_ns: f64,
    pub total_ns: f64,
}

/// Critical-path time per category so far, as bars.
#[function_component]
pub fn Breakdown(props: &BreakdownProps) -> Html {
    let so_far: f64 = props.accrued.iter().map(|c| c.ns).sum();
    let scale = if props.scale_ns > 0.0 {
        props.scale_ns
    } else {
        1.0
    };
    html! {
        <figure class="flow-breakdown">
            <figcaption>
                { format!("Latency so far: {} of {}", figures::duration_ns(so_far), figures::duration_ns(props.total_ns)) }
            </figcaption>
            <ul>
                { for props.accrued.iter().filter(|c| c.ns > 0.0).map(|c| html! {
                    <li class="bar">
                        <span class="bar-label">{ category_text(c.category) }</span>
                        <span class="bar-track">
                            <span class="bar-fill" style={format!("width: {:.2}%", (c.ns / scale * 100.0).min(100.0))}></span>
                        </span>
                        <span class="bar-value">{ figures::duration_ns(c.ns) }</span>
                    </li>
                }) }
            </ul>
        </figure>
    }
}

#[derive(Properties, PartialEq)]
pub struct TotalsProps {
    pub scenario: Rc<Scenario>,
}

/// The whole flow's figures.
#[function_component]
pub fn TotalsList(props: &TotalsProps) -> Html {
    let s = &*props.scenario;
    let t = &s.totals;
    html! {
        <dl class="flow-totals">
            <dt>{ "End to end" }</dt><dd>{ figures::duration_ns(t.end_to_end_ns) }</dd>
            <dt>{ "Data copies" }</dt><dd>{ t.data_copies }</dd>
            <dt>{ "System calls" }</dt><dd>{ t.syscalls }</dd>
            <dt>{ "Interrupts" }</dt><dd>{ t.interrupts }</dd>
            <dt>{ "CPU busy" }</dt><dd>{ figures::duration_ns(t.cpu_busy_ns) }</dd>
            if let Some(c) = &s.collective {
                <dt>{ "Ranks" }</dt><dd>{ c.ranks }</dd>
                <dt>{ "algbw" }</dt><dd>{ format!("{:.1} GB/s", c.algbw_gbytes_per_s) }</dd>
                <dt>{ "busbw" }</dt><dd>{ format!("{:.1} GB/s", c.busbw_gbytes_per_s) }</dd>
            }
        </dl>
    }
}

#[derive(Properties, PartialEq)]
pub struct TopicsProps {
    pub scenario: Rc<Scenario>,
}

/// Every reference topic the flow's steps point to, once each.
#[function_component]
pub fn FlowTopics(props: &TopicsProps) -> Html {
    let mut paths: Vec<&str> = Vec::new();
    for step in &props.scenario.steps {
        if !paths.contains(&step.topic.as_str()) {
            paths.push(&step.topic);
        }
    }
    html! {
        <nav class="flow-topics" aria-label="Reference topics this flow illustrates">
            <span>{ "Explained in: " }</span>
            <ul>
                { for paths.into_iter().map(|p| html! {
                    <li><TopicLink path={p.to_string()}>{ topic_title(p) }</TopicLink></li>
                }) }
            </ul>
        </nav>
    }
}
