//! The stage: actors on the scenario's grid (turned tall in a narrow box, see
//! [`super::layout`]), the wires its steps use, and the message of the step under way
//! travelling its route, its label clear of every actor.

use std::rc::Rc;

use engine::flows::{ActorKind, Scenario, Side, Step, StepKind};
use gloo::events::EventListener;
use yew::prelude::*;

use super::layout::{Grid, Orientation, Rect, DOT_R};
use crate::views::figures;

#[derive(Properties, PartialEq)]
pub struct StageProps {
    pub scenario: Rc<Scenario>,
    /// The step under way, if the playhead has reached one.
    pub step: Option<usize>,
    /// How far through it, 0–1.
    pub progress: f64,
    /// Names the stage for assistive technology (e.g. "Left: …" in a comparison).
    pub label: AttrValue,
}

/// The orientation for the width of the box `node`: measured when the stage appears and
/// whenever the window changes size.
#[hook]
fn use_orientation(node: NodeRef) -> Orientation {
    let orientation = use_state_eq(|| Orientation::Wide);
    {
        let orientation = orientation.clone();
        use_effect_with(node, move |node| {
            let measure = {
                let node = node.clone();
                move || {
                    if let Some(el) = node.cast::<web_sys::Element>() {
                        orientation.set(Orientation::for_width(f64::from(el.client_width())));
                    }
                }
            };
            measure();
            let listener = EventListener::new(&gloo::utils::window(), "resize", move |_| measure());
            move || drop(listener)
        });
    }
    *orientation
}

/// What moves, in a word or two.
pub fn kind_text(kind: StepKind) -> &'static str {
    match kind {
        StepKind::CpuWork => "CPU work",
        StepKind::WqeWrite => "WQE",
        StepKind::Doorbell => "doorbell",
        StepKind::BlueFlame => "BlueFlame",
        StepKind::DmaRead => "DMA read",
        StepKind::DmaWrite => "DMA write",
        StepKind::NicWork => "NIC work",
        StepKind::Packet => "packets",
        StepKind::PacketDrop => "drop",
        StepKind::Ack => "ACK",
        StepKind::Nak => "NAK",
        StepKind::Cqe => "CQE",
        StepKind::Interrupt => "interrupt",
        StepKind::Cnp => "CNP",
        StepKind::PauseFrame => "PAUSE",
        StepKind::SocketCopy => "copy",
        StepKind::GpuCopy => "GPU copy",
        StepKind::NvlinkTransfer => "NVLink",
        StepKind::Syscall => "syscall",
        StepKind::Wait => "wait",
        StepKind::Control => "control",
    }
}

/// The moving message's label: what moves, and how much.
pub fn message_text(step: &Step) -> String {
    if step.bytes > 0 {
        format!(
            "{} · {}",
            kind_text(step.kind),
            figures::bytes(step.bytes as f64)
        )
    } else {
        kind_text(step.kind).to_string()
    }
}

fn kind_class(kind: ActorKind) -> &'static str {
    match kind {
        ActorKind::Application | ActorKind::Kernel => "cpu",
        ActorKind::HostMemory | ActorKind::GpuMemory => "memory",
        ActorKind::PcieSwitch | ActorKind::NvSwitch => "bus",
        ActorKind::Nic => "nic",
        ActorKind::LeafSwitch | ActorKind::SpineSwitch | ActorKind::RemoteCluster => "fabric",
    }
}

fn on_route(step: Option<&Step>, a: &str, b: &str) -> bool {
    step.is_some_and(|s| {
        s.route()
            .windows(2)
            .any(|w| (w[0] == a && w[1] == b) || (w[0] == b && w[1] == a))
    })
}

#[function_component]
pub fn Stage(props: &StageProps) -> Html {
    let s = &*props.scenario;
    let node = use_node_ref();
    let orientation = use_orientation(node.clone());
    let grid = Grid::new(orientation, s);
    let step = props.step.and_then(|i| s.steps.get(i));
    let wires = use_memo(props.scenario.clone(), |s| s.wires());
    let centre = |id: &str| s.actor(id).map(|a| grid.centre(a.layout));

    let wire_lines = wires.iter().filter_map(|w| {
        let (a, b) = (centre(&w.a)?, centre(&w.b)?);
        let active = on_route(step, &w.a, &w.b);
        let class = classes!("flow-wire", active.then_some("active"));
        let title = w.link.map(|l| l.link().name).unwrap_or("on the host");
        Some(html! {
            <line {class} x1={a.0.to_string()} y1={a.1.to_string()} x2={b.0.to_string()} y2={b.1.to_string()}>
                <title>{ title }</title>
            </line>
        })
    });

    let actors = s.actors.iter().map(|actor| {
        let (x, y) = grid.centre(actor.layout);
        let outline = grid.actor_box((x, y));
        let involved = step.is_some_and(|st| st.from == actor.id || st.to == actor.id);
        let remote = actor.side == Side::Remote;
        let class = classes!(
            "flow-actor",
            kind_class(actor.kind),
            remote.then_some("remote"),
            involved.then_some("active")
        );
        let lines = grid.lines(&actor.label);
        let first = grid.first_baseline(y, lines.len());
        html! {
            <g {class} data-actor={actor.id.clone()}>
                <rect x={outline.x.to_string()} y={outline.y.to_string()}
                      width={outline.w.to_string()} height={outline.h.to_string()} rx="7" />
                <text x={x.to_string()} y={first.to_string()} text-anchor="middle">
                    { for lines.into_iter().enumerate().map(|(i, line)| html! {
                        <tspan x={x.to_string()} dy={if i == 0 { "0".to_string() } else { grid.line_step.to_string() }}>{ line }</tspan>
                    }) }
                </text>
            </g>
        }
    });

    // The message: its dot (under the boxes while it crosses them, on top when it rests on
    // an actor) and its label, placed clear of every box.
    let message = step.and_then(|st| {
        let points: Vec<(f64, f64)> = st.route().iter().filter_map(|id| centre(id)).collect();
        let ((x, y), resting) = grid.dot(&points, props.progress)?;
        let text = message_text(st);
        let boxes: Vec<Rect> = s
            .actors
            .iter()
            .map(|a| grid.actor_box(grid.centre(a.layout)))
            .collect();
        let at = grid.place_label((x, y), text.chars().count(), &boxes);
        let class = classes!(
            "flow-message",
            (st.kind == StepKind::PacketDrop).then_some("dropped")
        );
        let dot = html! {
            <g class={class.clone()}>
                <circle cx={format!("{x:.1}")} cy={format!("{y:.1}")} r={DOT_R.to_string()} />
            </g>
        };
        let label = html! {
            <g {class}>
                <text x={format!("{:.1}", at.x)} y={format!("{:.1}", at.y)} text-anchor="middle">{ text }</text>
            </g>
        };
        Some((dot, resting, label))
    });
    let (dot_under, dot_over, label) = match message {
        Some((dot, false, label)) => (dot, Html::default(), label),
        Some((dot, true, label)) => (Html::default(), dot, label),
        None => (Html::default(), Html::default(), Html::default()),
    };

    let description = match step {
        Some(st) => format!(
            "{}. Step {} of {}: {}, from {} to {}.",
            props.label,
            st.index + 1,
            s.steps.len(),
            st.title,
            s.actor(&st.from)
                .map_or(st.from.as_str(), |a| a.label.as_str()),
            s.actor(&st.to).map_or(st.to.as_str(), |a| a.label.as_str()),
        ),
        None => format!("{}. Not started.", props.label),
    };
    let bounds = grid.bounds();
    let view_box = format!("{} {} {} {}", bounds.x, bounds.y, bounds.w, bounds.h);
    let tall = orientation == Orientation::Tall;

    html! {
        <div class="flow-stage-scroll" tabindex="0" ref={node}>
            <svg class={classes!("flow-stage", tall.then_some("tall"))} role="img" viewBox={view_box}
                 font-size={grid.font.to_string()}
                 aria-label={description.clone()} data-scenario={s.id.clone()}>
                <title>{ description }</title>
                <g class="flow-wires">{ for wire_lines }</g>
                { dot_under }
                <g class="flow-actors">{ for actors }</g>
                { dot_over }
                { label }
            </svg>
        </div>
    }
}
