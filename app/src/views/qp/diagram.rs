//! The QP state diagram as SVG: the modify transitions the kernel table allows for the
//! chosen type, the ones open from the current state highlighted, and the transitions the
//! HCA makes on its own drawn dashed.
//!
//! Each state is a button that aims the builder at it (the engine's table decides whether
//! a modify can go there, and says why not); each arrow can be pointed at or focused to
//! show what it means in a caption under the picture.

use engine::qp::{implicit_transitions, transition_table, QpState, QpType};
use yew::prelude::*;

use super::Pick;

const NODE_W: f64 = 84.0;
const NODE_H: f64 = 40.0;
/// The drawing's width, in its own units.
const VIEW_W: f64 = 730.0;

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
    /// The answer to the last state picked here.
    pub pick: Option<Pick>,
    /// A state picked (clicked, or Enter/Space on it).
    pub on_pick: Callback<QpState>,
}

/// One arrow as drawn, with what it means in words.
#[derive(Clone, PartialEq)]
struct Edge {
    from: QpState,
    to: QpState,
    implicit: bool,
    path: String,
    text: String,
}

/// The arrows for `qp_type` with the QP in `current`: the changes the hardware makes first
/// (drawn underneath), then the modifies.
fn edges(qp_type: QpType, current: QpState) -> Vec<Edge> {
    // Every state can be reset or errored by a modify: those edges are drawn only from the
    // current state (and ERR → RESET, the way back), or the picture drowns in lines.
    let shown = |from: QpState, to: QpState| {
        from == current
            || !matches!(to, QpState::Reset | QpState::Err)
            || (from == QpState::Err && to == QpState::Reset)
    };
    let implicit = implicit_transitions(qp_type).into_iter().map(|t| Edge {
        from: t.from,
        to: t.to,
        implicit: true,
        path: edge_path(t.from, t.to, -26.0),
        text: format!("{} → {} without a modify: {}.", t.from, t.to, t.cause),
    });
    let modify = transition_table()
        .into_iter()
        .filter(|r| r.qp_type == qp_type && r.from != r.to && shown(r.from, r.to))
        .map(|r| {
            let required = if r.required.is_empty() {
                "nothing but IBV_QP_STATE".to_string()
            } else {
                r.required
                    .iter()
                    .map(|a| a.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            Edge {
                from: r.from,
                to: r.to,
                implicit: false,
                path: edge_path(r.from, r.to, 14.0),
                text: format!(
                    "{} → {} by ibv_modify_qp(); for {qp_type} the mask needs {required}.",
                    r.from, r.to
                ),
            }
        });
    implicit.chain(modify).collect()
}

/// What a screen reader says for a state button.
fn node_label(
    state: QpState,
    current: QpState,
    target: QpState,
    reachable: bool,
    qp_type: QpType,
) -> String {
    // The name starts with the words the node shows ("RTS current", "SQD not UD"), so a
    // learner who says what they see to speech control reaches it (WCAG 2.5.3).
    let mut label = state.name().to_string();
    if state == current {
        label.push_str(" current: the state the QP is in");
    } else if !reachable {
        label.push_str(&format!(" not {qp_type}: a {qp_type} QP never enters it"));
    } else if state == target {
        label.push_str(", the builder's target");
    }
    label
}

/// On a phone the drawing scrolls sideways in its own box (`scroller`; the caption below
/// stays put): whenever the QP changes state, the box brings that state into view, centred
/// where it can be.
#[hook]
fn use_current_in_view(scroller: NodeRef, current: QpState) {
    use_effect_with(current, move |current| {
        let Some(el) = scroller.cast::<web_sys::Element>() else {
            return;
        };
        let shown = f64::from(el.client_width());
        let Some(svg) = el.query_selector("svg").ok().flatten() else {
            return;
        };
        if f64::from(el.scroll_width()) <= shown + 1.0 {
            return;
        }
        let drawing = svg.get_bounding_client_rect();
        let left =
            drawing.left() - el.get_bounding_client_rect().left() + f64::from(el.scroll_left());
        let x = left + position(*current).0 / VIEW_W * drawing.width();
        el.set_scroll_left((x - shown / 2.0).max(0.0) as i32);
    });
}

#[function_component]
pub fn StateDiagram(props: &StateDiagramProps) -> Html {
    let (qp_type, current, target) = (props.qp_type, props.current, props.target);
    let scroller = use_node_ref();
    // Which arrow the pointer is on and which has focus: the caption shows the first.
    let hovered = use_state(|| None::<usize>);
    let focused = use_state(|| None::<usize>);
    let edges = use_memo((qp_type, current), |&(qp_type, current)| {
        edges(qp_type, current)
    });
    let rules: Vec<_> = transition_table()
        .into_iter()
        .filter(|r| r.qp_type == qp_type && r.from != r.to)
        .collect();
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

    let drawn_edges = edges.iter().map(|e| {
        let open = !e.implicit && e.from == current;
        let class = classes!(
            "qp-edge",
            open.then_some("open"),
            (open && e.to == target).then_some("chosen"),
            e.implicit.then_some("implicit"),
        );
        let marker = if e.implicit {
            "url(#qp-arrow-implicit)"
        } else if open {
            "url(#qp-arrow-open)"
        } else {
            "url(#qp-arrow)"
        };
        html! {
            <path {class} d={e.path.clone()} data-from={e.from.name()} data-to={e.to.name()}
                marker-end={marker} aria-hidden="true" />
        }
    });
    // Wide, invisible strokes over each arrow: easy to point at, focusable, and drawn after
    // the states so that Tab visits the states first.
    let hit_edges = edges.iter().enumerate().map(|(i, e)| {
        let enter = {
            let hovered = hovered.clone();
            Callback::from(move |_: MouseEvent| hovered.set(Some(i)))
        };
        let leave = {
            let hovered = hovered.clone();
            Callback::from(move |_: MouseEvent| hovered.set(None))
        };
        let focus = {
            let focused = focused.clone();
            Callback::from(move |_: FocusEvent| focused.set(Some(i)))
        };
        let blur = {
            let focused = focused.clone();
            Callback::from(move |_: FocusEvent| focused.set(None))
        };
        let active = *hovered == Some(i) || *focused == Some(i);
        html! {
            <path class={classes!("qp-edge-hit", active.then_some("active"))} d={e.path.clone()}
                data-from={e.from.name()} data-to={e.to.name()}
                data-kind={if e.implicit { "implicit" } else { "modify" }}
                tabindex="0" role="img" aria-label={e.text.clone()}
                onmouseenter={enter} onmouseleave={leave} onfocus={focus} onblur={blur} />
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
        let onclick = props.on_pick.reform(move |_: MouseEvent| s);
        let onkeydown = {
            let on_pick = props.on_pick.clone();
            Callback::from(move |e: KeyboardEvent| {
                if matches!(e.key().as_str(), "Enter" | " ") {
                    // Space would scroll the page too.
                    e.prevent_default();
                    on_pick.emit(s);
                }
            })
        };
        html! {
            <g {class} data-state={s.name()} role="button" tabindex="0"
                aria-label={node_label(s, current, target, reachable(s), qp_type)}
                aria-describedby="qp-diagram-help" {onclick} {onkeydown}>
                <rect x={format!("{}", x - NODE_W / 2.0)} y={format!("{}", y - NODE_H / 2.0)}
                    width={NODE_W.to_string()} height={NODE_H.to_string()} rx="8" />
                <text x={x.to_string()} y={format!("{}", if is_current || !reachable(s) { y - 3.0 } else { y + 5.0 })}
                    text-anchor="middle" class="qp-node-name">{ s.name() }</text>
                // The leading space keeps the note a word of its own in the node's text (what
                // the accessible-name check and copying read); SVG does not draw it.
                if is_current {
                    <text x={x.to_string()} y={format!("{}", y + 13.0)} text-anchor="middle" class="qp-node-note">{ " current" }</text>
                } else if !reachable(s) {
                    <text x={x.to_string()} y={format!("{}", y + 13.0)} text-anchor="middle" class="qp-node-note">{ format!(" not {qp_type}") }</text>
                }
            </g>
        }
    });
    let shown_edge = (*hovered).or(*focused).and_then(|i| edges.get(i));
    use_current_in_view(scroller.clone(), current);
    let caption = match shown_edge {
        Some(e) => html! {
            <p class="qp-edge-caption shown" data-from={e.from.name()} data-to={e.to.name()}>{ e.text.clone() }</p>
        },
        None => html! {
            <p class="qp-edge-caption">{ "Point at an arrow, or Tab to it, to read what it means here." }</p>
        },
    };
    let pick = match &props.pick {
        Some(Pick::Aimed(state)) => html! {
            <p class="qp-pick aimed">{ format!("{current} → {state}: the builder below now builds this modify.") }</p>
        },
        Some(Pick::Refused(refusal)) => html! {
            <p class="qp-pick refused">{ refusal.to_string() }</p>
        },
        None => Html::default(),
    };

    html! {
        <figure class="qp-diagram">
            <div class="qp-diagram-scroll" ref={scroller}>
                <svg viewBox={format!("0 0 {VIEW_W} 325")} role="group" aria-label={label}>
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
                    { for drawn_edges }
                    { for nodes }
                    { for hit_edges }
                </svg>
            </div>
            <figcaption>
                { caption }
                <div class="qp-pick-area" role="status">{ pick }</div>
                <p id="qp-diagram-help" class="qp-diagram-help">
                    { "Pick a state (click it, or Tab to it and press Enter) to aim the builder at it." }
                </p>
                <ul class="qp-legend">
                    <li><svg viewBox="0 0 40 10" aria-hidden="true"><line x1="2" y1="5" x2="38" y2="5" class="qp-edge" /></svg>
                        { format!("ibv_modify_qp() transition allowed for {qp_type}") }</li>
                    <li><svg viewBox="0 0 40 10" aria-hidden="true"><line x1="2" y1="5" x2="38" y2="5" class="qp-edge open" /></svg>
                        { format!("open from the current state ({current}); the builder's target is thickest") }</li>
                    <li><svg viewBox="0 0 40 10" aria-hidden="true"><line x1="2" y1="5" x2="38" y2="5" class="qp-edge implicit" /></svg>
                        { "happens without a modify call: errors and events (point at it or focus it for the cause)" }</li>
                    <li>{ "Any state may also be modified to RESET, and any but RESET to ERR; those lines are drawn from the current state only. A modify to the same state (e.g. RTS → RTS) changes attributes only." }</li>
                </ul>
            </figcaption>
        </figure>
    }
}
