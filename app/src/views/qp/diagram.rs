//! The QP state diagram as SVG: the modify transitions the kernel table allows for the
//! chosen type, the ones open from the current state highlighted, and the transitions the
//! HCA makes on its own drawn dashed.

use engine::qp::{implicit_transitions, transition_table, QpState, QpType};
use yew::prelude::*;

const NODE_W: f64 = 84.0;
const NODE_H: f64 = 40.0;

/// Where each state sits: the bring-up path along the top, the side states below.
fn position(state: QpState) -> (f64, f64) {
    match state {
        QpState::Reset => (70.0, 70.0),
        QpState::Init => (230.0, 70.0),
        QpState::Rtr => (390.0, 70.0),
        QpState::Rts => (550.0, 70.0),
        QpState::Sqd => (660.0, 195.0),
        QpState::Sqe => (550.0, 290.0),
        QpState::Err => (230.0, 290.0),
    }
}

/// The point where the ray from the centre of a node towards (dx, dy) leaves its box.
fn border_offset(dx: f64, dy: f64, margin: f64) -> f64 {
    let tx = if dx.abs() > f64::EPSILON {
        (NODE_W / 2.0 + margin) / dx.abs()
    } else {
        f64::INFINITY
    };
    let ty = if dy.abs() > f64::EPSILON {
        (NODE_H / 2.0 + margin) / dy.abs()
    } else {
        f64::INFINITY
    };
    tx.min(ty)
}

/// A curved path from one node to another, bending `bend` px to the right of the travel
/// direction so that A→B and B→A do not overlap.
fn edge_path(from: QpState, to: QpState, bend: f64) -> String {
    let (x1, y1) = position(from);
    let (x2, y2) = position(to);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    // Long edges bend more, so they arc over the nodes between their ends.
    let bend = bend.signum() * bend.abs().max(len * 0.1);
    let t1 = border_offset(ux, uy, 2.0);
    let t2 = border_offset(ux, uy, 6.0);
    let (sx, sy) = (
        x1 + ux * t1 + nx * bend * 0.5,
        y1 + uy * t1 + ny * bend * 0.5,
    );
    let (ex, ey) = (
        x2 - ux * t2 + nx * bend * 0.5,
        y2 - uy * t2 + ny * bend * 0.5,
    );
    let (cx, cy) = ((sx + ex) / 2.0 + nx * bend, (sy + ey) / 2.0 + ny * bend);
    format!("M{sx:.1},{sy:.1} Q{cx:.1},{cy:.1} {ex:.1},{ey:.1}")
}

#[derive(Properties, PartialEq)]
pub struct StateDiagramProps {
    pub qp_type: QpType,
    pub current: QpState,
    pub target: QpState,
}

#[function_component]
pub fn StateDiagram(props: &StateDiagramProps) -> Html {
    let (qp_type, current, target) = (props.qp_type, props.current, props.target);
    let rules: Vec<_> = transition_table()
        .into_iter()
        .filter(|r| r.qp_type == qp_type && r.from != r.to)
        .collect();
    // Every state can be reset or errored by a modify: those edges are drawn only from the
    // current state (and ERR → RESET, the way back), or the picture drowns in lines.
    let shown = |from: QpState, to: QpState| {
        from == current
            || !matches!(to, QpState::Reset | QpState::Err)
            || (from == QpState::Err && to == QpState::Reset)
    };
    let implicit = implicit_transitions(qp_type);
    let reachable = |s: QpState| {
        s == QpState::Reset
            || rules.iter().any(|r| r.to == s && r.from != s)
            || implicit.iter().any(|t| t.to == s)
    };
    let open_now: Vec<QpState> = rules
        .iter()
        .filter(|r| r.from == current)
        .map(|r| r.to)
        .collect();
    let label = format!(
        "State diagram for a {qp_type} QP. Current state {current}. By ibv_modify_qp() it can go to {}. Dashed: changes the hardware makes on its own.",
        if open_now.is_empty() {
            "nothing".to_string()
        } else {
            open_now.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ")
        }
    );

    let modify_edges = rules.iter().filter(|r| shown(r.from, r.to)).map(|r| {
        let class = classes!(
            "qp-edge",
            (r.from == current).then_some("open"),
            (r.from == current && r.to == target).then_some("chosen"),
        );
        html! {
            <path class={class} d={edge_path(r.from, r.to, 14.0)}
                data-from={r.from.name()} data-to={r.to.name()}
                marker-end={if r.from == current { "url(#qp-arrow-open)" } else { "url(#qp-arrow)" }}>
                <title>{ format!("{} → {} by ibv_modify_qp()", r.from, r.to) }</title>
            </path>
        }
    });
    let implicit_edges = implicit.iter().map(|t| {
        html! {
            <path class="qp-edge implicit" d={edge_path(t.from, t.to, -26.0)}
                data-from={t.from.name()} data-to={t.to.name()} marker-end="url(#qp-arrow-implicit)">
                <title>{ format!("{} → {} without a modify: {}", t.from, t.to, t.cause) }</title>
            </path>
        }
    });
    let nodes = QpState::ALL.into_iter().map(|s| {
        let (x, y) = position(s);
        let is_current = s == current;
        let class = classes!(
            "qp-node",
            is_current.then_some("current"),
            (s == target && !is_current).then_some("target"),
            (!reachable(s)).then_some("unreachable"),
        );
        html! {
            <g {class} data-state={s.name()}>
                <rect x={format!("{}", x - NODE_W / 2.0)} y={format!("{}", y - NODE_H / 2.0)}
                    width={NODE_W.to_string()} height={NODE_H.to_string()} rx="8" />
                <text x={x.to_string()} y={format!("{}", if is_current || !reachable(s) { y - 3.0 } else { y + 5.0 })}
                    text-anchor="middle" class="qp-node-name">{ s.name() }</text>
                if is_current {
                    <text x={x.to_string()} y={format!("{}", y + 13.0)} text-anchor="middle" class="qp-node-note">{ "current" }</text>
                } else if !reachable(s) {
                    <text x={x.to_string()} y={format!("{}", y + 13.0)} text-anchor="middle" class="qp-node-note">{ format!("not {qp_type}") }</text>
                }
            </g>
        }
    });

    html! {
        <figure class="qp-diagram">
            <svg viewBox="0 0 730 325" role="img" aria-label={label.clone()}>
                <title>{ label }</title>
                <defs>
                    <marker id="qp-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M0,0 L10,5 L0,10 z" class="qp-arrow" />
                    </marker>
                    <marker id="qp-arrow-open" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M0,0 L10,5 L0,10 z" class="qp-arrow open" />
                    </marker>
                    <marker id="qp-arrow-implicit" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M0,0 L10,5 L0,10 z" class="qp-arrow implicit" />
                    </marker>
                </defs>
                { for implicit_edges }
                { for modify_edges }
                { for nodes }
            </svg>
            <figcaption>
                <ul class="qp-legend">
                    <li><svg viewBox="0 0 40 10" aria-hidden="true"><line x1="2" y1="5" x2="38" y2="5" class="qp-edge" /></svg>
                        { format!("ibv_modify_qp() transition allowed for {qp_type}") }</li>
                    <li><svg viewBox="0 0 40 10" aria-hidden="true"><line x1="2" y1="5" x2="38" y2="5" class="qp-edge open" /></svg>
                        { format!("open from the current state ({current}); the builder's target is thickest") }</li>
                    <li><svg viewBox="0 0 40 10" aria-hidden="true"><line x1="2" y1="5" x2="38" y2="5" class="qp-edge implicit" /></svg>
                        { "happens without a modify call: errors and events (hover for the cause)" }</li>
                    <li>{ "Any state may also be modified to RESET, and any but RESET to ERR; those lines are drawn from the current state only. A modify to the same state (e.g. RTS → RTS) changes attributes only." }</li>
                </ul>
            </figcaption>
        </figure>
    }
}
