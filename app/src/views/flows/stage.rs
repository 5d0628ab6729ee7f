//! The stage: actors on the scenario's grid, the wires its steps use, and the message of
//! the step under way travelling its route.

use std::rc::Rc;

use engine::flows::{ActorKind, Scenario, Side, Step, StepKind};
use yew::prelude::*;

use super::text::bytes_text;

const CELL_W: f64 = 120.0;
const CELL_H: f64 = 84.0;
const BOX_W: f64 = 108.0;
const BOX_H: f64 = 46.0;

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

fn centre(scenario: &Scenario, id: &str) -> Option<(f64, f64)> {
    let actor = scenario.actor(id)?;
    Some((
        f64::from(actor.layout.column) * CELL_W + CELL_W / 2.0,
        f64::from(actor.layout.row) * CELL_H + CELL_H / 2.0,
    ))
}

/// The point `progress` of the way along the polyline through `points`.
fn along(points: &[(f64, f64)], progress: f64) -> Option<(f64, f64)> {
    let first = *points.first()?;
    let lengths: Vec<f64> = points
        .windows(2)
        .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
        .collect();
    let total: f64 = lengths.iter().sum();
    if total <= 0.0 {
        return Some(first);
    }
    let mut left = total * progress.clamp(0.0, 1.0);
    for (pair, length) in points.windows(2).zip(&lengths) {
        if left <= *length && *length > 0.0 {
            let f = left / length;
            return Some((
                pair[0].0 + (pair[1].0 - pair[0].0) * f,
                pair[0].1 + (pair[1].1 - pair[0].1) * f,
            ));
        }
        left -= length;
    }
    points.last().copied()
}

/// Splits a label into at most two lines near its middle.
fn two_lines(label: &str) -> (String, Option<String>) {
    if label.chars().count() <= 16 {
        return (label.to_string(), None);
    }
    let middle = label.len() / 2;
    let split = label
        .match_indices(' ')
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(middle));
    match split {
        Some(i) => (label[..i].to_string(), Some(label[i + 1..].to_string())),
        None => (label.to_string(), None),
    }
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
    let width = f64::from(s.columns.max(1)) * CELL_W;
    let height = f64::from(s.rows.max(1)) * CELL_H;
    let step = props.step.and_then(|i| s.steps.get(i));
    let wires = use_memo(props.scenario.clone(), |s| s.wires());

    let wire_lines = wires.iter().filter_map(|w| {
        let (a, b) = (centre(s, &w.a)?, centre(s, &w.b)?);
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
        let (x, y) = centre(s, &actor.id).unwrap_or_default();
        let involved = step.is_some_and(|st| st.from == actor.id || st.to == actor.id);
        let remote = actor.side == Side::Remote;
        let class = classes!(
            "flow-actor",
            kind_class(actor.kind),
            remote.then_some("remote"),
            involved.then_some("active")
        );
        let (first, second) = two_lines(&actor.label);
        let dy = if second.is_some() { -6.0 } else { 4.0 };
        html! {
            <g {class} data-actor={actor.id.clone()}>
                <rect x={(x - BOX_W / 2.0).to_string()} y={(y - BOX_H / 2.0).to_string()}
                      width={BOX_W.to_string()} height={BOX_H.to_string()} rx="7" />
                <text x={x.to_string()} y={(y + dy).to_string()} text-anchor="middle">
                    <tspan>{ first }</tspan>
                    if let Some(second) = second {
                        <tspan x={x.to_string()} dy="14">{ second }</tspan>
                    }
                </text>
            </g>
        }
    });

    let message = step.and_then(|st| {
        let points: Vec<(f64, f64)> = st.route().iter().filter_map(|id| centre(s, id)).collect();
        let (x, y) = along(&points, props.progress)?;
        // Work on one actor shows on its top edge, clear of its name.
        let y = if points.len() == 1 {
            y - BOX_H / 2.0
        } else {
            y
        };
        let label = if st.bytes > 0 {
            format!("{} · {}", kind_text(st.kind), bytes_text(st.bytes))
        } else {
            kind_text(st.kind).to_string()
        };
        let dropped = st.kind == StepKind::PacketDrop;
        let class = classes!("flow-message", dropped.then_some("dropped"));
        Some(html! {
            <g {class} transform={format!("translate({x:.1} {y:.1})")}>
                <circle r="8" />
                <text y="-28" text-anchor="middle">{ label }</text>
            </g>
        })
    });

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

    html! {
        <div class="flow-stage-scroll" tabindex="0">
            <svg class="flow-stage" role="img" viewBox={format!("0 -18 {width} {}", height + 18.0)}
                 aria-label={description.clone()} data-scenario={s.id.clone()}>
                <title>{ description }</title>
                <g class="flow-wires">{ for wire_lines }</g>
                <g class="flow-actors">{ for actors }</g>
                { message.unwrap_or_default() }
            </svg>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn along_walks_the_polyline() {
        let points = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)];
        assert_eq!(along(&points, 0.0), Some((0.0, 0.0)));
        assert_eq!(along(&points, 0.5), Some((10.0, 0.0)));
        assert_eq!(along(&points, 0.75), Some((10.0, 5.0)));
        assert_eq!(along(&points, 1.0), Some((10.0, 10.0)));
        assert_eq!(along(&[(3.0, 4.0)], 0.5), Some((3.0, 4.0)));
        assert_eq!(along(&[], 0.5), None);
    }

    #[test]
    fn long_labels_split_near_the_middle() {
        let (a, b) = two_lines("Remote application (CPU)");
        let b = b.unwrap_or_default();
        assert_eq!(format!("{a} {b}"), "Remote application (CPU)");
        assert!(a.len() <= 18 && b.len() <= 18, "{a} / {b}");
        assert_eq!(two_lines("NIC"), ("NIC".to_string(), None));
    }
}
