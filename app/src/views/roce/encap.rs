//! Encapsulation as a stepper: the sender wraps the payload one header at a time, the
//! receiver takes them off in the opposite order.

use std::rc::Rc;

use engine::capture::encap::{sender_steps, EncapStep};
use engine::capture::{dissect, LinkType};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EncapsulationProps {
    pub bytes: Rc<Vec<u8>>,
}

/// Bytes shown per layer before eliding the rest.
const SHOWN_BYTES: usize = 48;

#[function_component]
pub fn Encapsulation(props: &EncapsulationProps) -> Html {
    let steps = use_memo(props.bytes.clone(), |b| {
        sender_steps(&dissect(b, LinkType::Ethernet))
    });
    let receiving = use_state(|| false);
    let step = use_state(|| 0usize);
    {
        let step = step.clone();
        use_effect_with(props.bytes.clone(), move |_| step.set(0));
    }
    let n = steps.len();
    if n == 0 {
        return html! { <p>{ "Nothing to unwrap: the frame did not decode." }</p> };
    }
    let at = (*step).min(n - 1);
    // Sender: steps 0..=at are on. Receiver: it starts with everything and strips the
    // outermost first, so after `at` steps the innermost n - at remain.
    let (present, current) = if *receiving {
        (n - at, n - 1 - at)
    } else {
        (at + 1, at)
    };
    let cur = &steps[current];
    let bytes: Vec<String> = props
        .bytes
        .iter()
        .skip(cur.offset)
        .take(cur.len.min(SHOWN_BYTES))
        .map(|b| format!("{b:02x}"))
        .collect();
    let more = cur.len.saturating_sub(SHOWN_BYTES);
    let verb = if *receiving {
        "removes and checks"
    } else {
        "adds"
    };
    let prev = {
        let step = step.clone();
        Callback::from(move |_| step.set(at.saturating_sub(1)))
    };
    let next = {
        let step = step.clone();
        Callback::from(move |_| step.set((at + 1).min(n - 1)))
    };
    let flip = |to: bool| {
        let (receiving, step) = (receiving.clone(), step.clone());
        Callback::from(move |_| {
            receiving.set(to);
            step.set(0);
        })
    };
    html! {
        <div class="encap">
            <div class="encap-modes" role="group" aria-label="Direction">
                <button type="button" aria-pressed={(!*receiving).to_string()} onclick={flip(false)}>{ "Sender wraps" }</button>
                <button type="button" aria-pressed={receiving.to_string()} onclick={flip(true)}>{ "Receiver unwraps" }</button>
            </div>
            <EncapStack steps={steps.clone()} {present} {current} />
            <p class="encap-step" aria-live="polite">
                <strong>{ format!("Step {} of {n}: the {} {verb} {} ({} bytes). ", at + 1, if *receiving { "receiver" } else { "sender" }, cur.title, cur.len) }</strong>
                { cur.purpose }
            </p>
            <code class="encap-bytes">{ bytes.join(" ") }{ if more > 0 { format!(" … {more} more") } else { String::new() } }</code>
            <div class="encap-nav">
                <button type="button" onclick={prev} disabled={at == 0}>{ "← Previous" }</button>
                <button type="button" class="encap-next" onclick={next} disabled={at + 1 == n}>{ "Next →" }</button>
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct StackProps {
    steps: Rc<Vec<EncapStep>>,
    /// How many steps, innermost first, are on, and which is the one just taken.
    present: usize,
    current: usize,
}

/// The headers on so far, in wire order, each as wide as its bytes (within bounds).
#[function_component]
fn EncapStack(props: &StackProps) -> Html {
    let steps = &props.steps;
    let mut on: Vec<usize> = (0..props.present.min(steps.len())).collect();
    on.sort_by_key(|&i| steps[i].offset);
    let titles: Vec<&str> = on.iter().map(|&i| steps[i].title.as_str()).collect();
    let blocks = on.iter().map(|&i| {
        let (s, now) = (&steps[i], i == props.current);
        html! {
            <div class={classes!("encap-block", now.then_some("encap-current"))}
                style={format!("flex-grow: {}", s.len.clamp(4, 64))}>
                <span class="encap-name">{ &s.title }</span>
                <span class="encap-len">{ format!("{} B", s.len) }</span>
            </div>
        }
    });
    html! {
        <div class="encap-stack" role="img" aria-label={format!("Frame so far: {}", titles.join(", "))}>
            { for blocks }
        </div>
    }
}
