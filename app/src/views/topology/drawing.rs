//! The fabric drawn: one scalable unit (rail-optimized), one pod (three tiers) or the
//! whole fabric (when that is all there is), in plane 0, with every node's GPUs, the
//! leaves and the spines above them; what is not drawn is said in words. At most
//! `MAX_NODES` nodes of `MAX_GPUS` GPUs, `MAX_LEAVES` leaves and `MAX_SPINES` spines are
//! drawn, so a fabric of any size stays a drawing of a few thousand elements.

use std::collections::HashSet;

use engine::fabric::{Fabric, Hop, Path};
use yew::prelude::*;

use super::parts::grouped;

pub const MAX_NODES: u64 = 32;
pub const MAX_GPUS: u32 = 16;
pub const MAX_LEAVES: u64 = 16;
pub const MAX_SPINES: u64 = 16;
/// Rails get these many distinct colours (`.rail-0` … in the stylesheet), then repeat;
/// every rail is also labelled, so colour is never the only cue.
const RAIL_COLOURS: u32 = 8;

const GPU_W: f64 = 14.0;
const GPU_H: f64 = 20.0;
const GPU_PITCH: f64 = 16.0;
const NODES_PER_ROW: u64 = 8;
const ROW_PITCH: f64 = 58.0;
const SWITCH_W: f64 = 50.0;
const SWITCH_H: f64 = 24.0;
/// The gap between two rows of switches (room for the cables between them).
const TIER_GAP: f64 = 100.0;

/// What part of the fabric is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    /// "scalable unit 0", "pod 0", "the fabric".
    pub what: String,
    pub nodes_in_scope: u64,
    pub nodes: u64,
    pub gpus_per_node: u32,
    /// Drawn leaves are 0..leaves (plane 0).
    pub leaves_in_scope: u64,
    pub leaves: u64,
    pub spines_in_scope: u64,
    pub spines: u64,
}

pub fn scope(f: &Fabric) -> Scope {
    let planes = u64::from(f.spec.planes.max(1));
    let leaves_per_plane = f.leaf.count / planes;
    let spines_in_scope = if f.tiers == 1 { 0 } else { f.spines_per_pod };
    let (what, nodes_in_scope, leaves_in_scope) = match &f.scalable_units {
        Some(su) if f.tiers > 1 => (
            "scalable unit 0".to_string(),
            f.nodes.min(u64::from(su.nodes_per_su)),
            u64::from(su.leaves_per_su),
        ),
        _ => {
            let leaves = if f.tiers == 3 {
                f.leaves_per_pod.min(leaves_per_plane)
            } else {
                leaves_per_plane
            };
            let per_leaf = u64::from(f.leaf.down_ports / f.rails.max(1)).max(1);
            let what = if f.tiers == 3 && f.pods.is_some_and(|p| p > 1) {
                "pod 0"
            } else {
                "the whole fabric"
            };
            (what.to_string(), f.nodes.min(leaves * per_leaf), leaves)
        }
    };
    let nodes = nodes_in_scope.min(MAX_NODES);
    let leaves = if f.spec.rail_optimized {
        leaves_in_scope.min(MAX_LEAVES)
    } else {
        // The leaves the drawn nodes use.
        (f.leaf_of(nodes.saturating_sub(1), 0) + 1).min(MAX_LEAVES)
    };
    Scope {
        what,
        nodes_in_scope,
        nodes,
        gpus_per_node: f.spec.gpus_per_node.min(MAX_GPUS),
        leaves_in_scope,
        leaves,
        spines_in_scope,
        spines: spines_in_scope.min(MAX_SPINES),
    }
}

/// What the drawing leaves out, in words.
pub fn summary(f: &Fabric, s: &Scope) -> Vec<String> {
    let mut lines = Vec::new();
    let planes = u64::from(f.spec.planes.max(1));
    if f.tiers == 1 {
        lines.push(format!(
            "Drawn: the whole fabric in plane 0: {} of its {} nodes and the one switch they all plug into.",
            s.nodes,
            grouped(s.nodes_in_scope)
        ));
    } else {
        lines.push(format!(
        "Drawn: {} in plane 0: {} of its {} nodes, {} of its {} leaves and {} of the {} spines above them.",
        s.what,
        s.nodes,
        grouped(s.nodes_in_scope),
        s.leaves,
        grouped(s.leaves_in_scope),
        s.spines,
        grouped(s.spines_in_scope)
    ));
    }
    if s.gpus_per_node < f.spec.gpus_per_node {
        lines.push(format!(
            "Each node is drawn with its first {} of {} GPUs.",
            s.gpus_per_node, f.spec.gpus_per_node
        ));
    }
    if s.nodes < s.nodes_in_scope {
        lines.push(format!(
            "+ {} more nodes in {}, each wired as the drawn ones are.",
            grouped(s.nodes_in_scope - s.nodes),
            s.what
        ));
    }
    if let Some(su) = &f.scalable_units {
        if f.tiers > 1 && su.count > 1 {
            lines.push(format!(
                "+ {} more scalable units like this ({} nodes), each with its own {} leaves, in plane 0.",
                grouped(su.count - 1),
                grouped(f.nodes - s.nodes_in_scope),
                su.leaves_per_su
            ));
        }
    } else if let Some(pods) = f.pods.filter(|p| *p > 1) {
        lines.push(format!(
            "+ {} more pods like this, each with its own {} spines, in plane 0.",
            grouped(pods - 1),
            f.spines_per_pod
        ));
    }
    if let Some(core) = &f.core {
        lines.push(format!(
            "Core: {} switches per plane in {} groups of {}; spine j of every pod goes to group j.",
            grouped(core.count / planes),
            f.spines_per_pod,
            f.cores_per_group
        ));
    }
    if planes > 1 {
        lines.push(format!(
            "+ plane 1: a copy of plane 0 ({} leaves, {} spines), taking the other port of every NIC; paths are shown in plane 0.",
            grouped(f.leaf.count / planes),
            grouped(f.spine.count / planes)
        ));
    }
    lines
}

/// What a path lights up.
#[derive(Default)]
struct Lit {
    gpus: HashSet<u64>,
    nvlink: Vec<(u64, u64)>,
    leaves: HashSet<u64>,
    spines: HashSet<u64>,
    core: bool,
    node_leaf: HashSet<(u64, u32)>,
    leaf_spine: HashSet<(u64, u64)>,
}

fn lit(path: Option<&Path>) -> Lit {
    let mut l = Lit::default();
    let Some(p) = path else { return l };
    for (i, hop) in p.hops.iter().enumerate() {
        match hop {
            Hop::Gpu { gpu, .. } => {
                l.gpus.insert(*gpu);
                if let Some(Hop::Gpu { gpu: next, .. }) = p.hops.get(i + 1) {
                    l.nvlink.push((*gpu, *next));
                }
            }
            Hop::Nic { node, rail, .. } => {
                l.node_leaf.insert((*node, *rail));
            }
            Hop::Leaf { leaf, .. } => {
                l.leaves.insert(*leaf);
                if let Some(Hop::Spine { spine, .. }) = p.hops.get(i + 1) {
                    l.leaf_spine.insert((*leaf, *spine));
                }
            }
            Hop::Spine { spine, .. } => {
                l.spines.insert(*spine);
                if let Some(Hop::Leaf { leaf, .. }) = p.hops.get(i + 1) {
                    l.leaf_spine.insert((*leaf, *spine));
                }
            }
            Hop::Core { .. } => l.core = true,
        }
    }
    l
}

#[derive(Properties, PartialEq)]
pub struct DrawingProps {
    pub fabric: std::rc::Rc<Fabric>,
    pub selected: Vec<u64>,
    pub path: Option<Path>,
    pub on_pick: Callback<u64>,
}

fn on(cond: bool) -> Option<&'static str> {
    cond.then_some("on-path")
}

#[function_component]
pub fn FabricDrawing(props: &DrawingProps) -> Html {
    let f = &*props.fabric;
    let s = scope(f);
    let lit = lit(props.path.as_ref());
    let rail_opt = f.spec.rail_optimized;
    let gpn = u64::from(f.spec.gpus_per_node);
    let node_w = f64::from(s.gpus_per_node) * GPU_PITCH + 8.0;
    let node_pitch = node_w + 12.0;
    let width = (NODES_PER_ROW.min(s.nodes.max(1)) as f64 * node_pitch)
        .max(s.leaves as f64 * (SWITCH_W + 14.0))
        .max(s.spines as f64 * (SWITCH_W + 8.0))
        .max(480.0);
    // Rows from the top: the core band, spines, leaves, nodes; tiers a fabric lacks take
    // no room.
    const CORE_Y: f64 = 8.0;
    let spine_y = if f.core.is_some() { 64.0 } else { 8.0 };
    let leaf_y = if f.tiers == 1 {
        8.0
    } else {
        spine_y + TIER_GAP
    };
    let nodes_y = leaf_y + TIER_GAP;
    let rows = s.nodes.div_ceil(NODES_PER_ROW).max(1);
    let height = nodes_y + rows as f64 * ROW_PITCH + 4.0;
    let leaf_x = |i: u64| (i as f64 + 0.5) * width / s.leaves.max(1) as f64;
    let spine_x = |i: u64| (i as f64 + 0.5) * width / s.spines.max(1) as f64;
    // Top-left corner of node n.
    let node_xy = |n: u64| {
        let row = n / NODES_PER_ROW;
        let in_row = NODES_PER_ROW.min(s.nodes - row * NODES_PER_ROW);
        let left = (width - in_row as f64 * node_pitch) / 2.0 + 6.0;
        (
            left + (n % NODES_PER_ROW) as f64 * node_pitch,
            nodes_y + row as f64 * ROW_PITCH,
        )
    };
    let gpu_xy = |gpu: u64| {
        let (x, y) = node_xy(gpu / gpn.max(1));
        (x + 4.0 + (gpu % gpn.max(1)) as f64 * GPU_PITCH, y + 4.0)
    };
    let rail_of_local = |local: u32| f.rail_of(f.nic_of(local));

    // Lines first, so switches and nodes are drawn over them.
    let mut lines: Vec<Html> = Vec::new();
    if let Some(_core) = &f.core {
        for j in 0..s.spines {
            lines.push(html! {
                <line class={classes!("topo-link", on(lit.core && lit.spines.contains(&j)))}
                    x1={spine_x(j).to_string()} y1={spine_y.to_string()}
                    x2={spine_x(j).to_string()} y2={(CORE_Y + SWITCH_H).to_string()} />
            });
        }
    }
    for l in 0..s.leaves {
        for j in 0..s.spines {
            lines.push(html! {
                <line class={classes!("topo-link", on(lit.leaf_spine.contains(&(l, j))))}
                    x1={leaf_x(l).to_string()} y1={leaf_y.to_string()}
                    x2={spine_x(j).to_string()} y2={(spine_y + SWITCH_H).to_string()} />
            });
        }
    }
    for n in 0..s.nodes {
        let (nx, ny) = node_xy(n);
        if rail_opt {
            for r in 0..(s.leaves as u32).min(f.rails) {
                let local = (0..s.gpus_per_node).find(|g| rail_of_local(*g) == r);
                let x = local.map_or(nx + node_w / 2.0, |g| {
                    nx + 4.0 + f64::from(g) * GPU_PITCH + GPU_W / 2.0
                });
                let leaf = f.leaf_of(n, r);
                if leaf >= s.leaves {
                    continue;
                }
                lines.push(html! {
                    <line class={classes!("topo-rail", format!("rail-{}", r % RAIL_COLOURS), on(lit.node_leaf.contains(&(n, r))))}
                        x1={x.to_string()} y1={ny.to_string()}
                        x2={leaf_x(leaf).to_string()} y2={(leaf_y + SWITCH_H).to_string()} />
                });
            }
        } else {
            let leaf = f.leaf_of(n, 0);
            if leaf < s.leaves {
                let on_path = lit.node_leaf.iter().any(|(node, _)| *node == n);
                lines.push(html! {
                    <line class={classes!("topo-link", "topo-tor", on(on_path))}
                        x1={(nx + node_w / 2.0).to_string()} y1={ny.to_string()}
                        x2={leaf_x(leaf).to_string()} y2={(leaf_y + SWITCH_H).to_string()} />
                });
            }
        }
    }

    let core = f.core.as_ref().map(|c| {
        let planes = u64::from(f.spec.planes.max(1));
        html! {
            <g class={classes!("topo-switch", "topo-core", on(lit.core))}>
                <rect x="2" y={CORE_Y.to_string()} width={(width - 4.0).to_string()} height={SWITCH_H.to_string()} rx="4" />
                <text x={(width / 2.0).to_string()} y={(CORE_Y + 16.0).to_string()} text-anchor="middle">
                    { format!("core tier: {} switches per plane", grouped(c.count / planes)) }
                </text>
            </g>
        }
    });
    let spines = (0..s.spines).map(|j| {
        let x = spine_x(j) - SWITCH_W / 2.0;
        html! {
            <g class={classes!("topo-switch", "topo-spine", on(lit.spines.contains(&j)))} data-spine={j.to_string()}>
                <rect x={x.to_string()} y={spine_y.to_string()} width={SWITCH_W.to_string()} height={SWITCH_H.to_string()} rx="4" />
                <text x={spine_x(j).to_string()} y={(spine_y + 16.0).to_string()} text-anchor="middle">{ format!("S{j}") }</text>
            </g>
        }
    });
    let leaves = (0..s.leaves).map(|l| {
        let x = leaf_x(l) - SWITCH_W / 2.0;
        let rail = (rail_opt).then(|| (l % u64::from(f.rails.max(1))) as u32);
        let class = rail.map(|r| format!("rail-{}", r % RAIL_COLOURS));
        html! {
            <g class={classes!("topo-switch", "topo-leaf", class, on(lit.leaves.contains(&l)))} data-leaf={l.to_string()}>
                <rect x={x.to_string()} y={leaf_y.to_string()} width={SWITCH_W.to_string()} height={SWITCH_H.to_string()} rx="4" />
                <text x={leaf_x(l).to_string()} y={(leaf_y + 11.0).to_string()} text-anchor="middle">{ format!("L{l}") }</text>
                if let Some(r) = rail {
                    <text class="topo-rail-label" x={leaf_x(l).to_string()} y={(leaf_y + 21.0).to_string()} text-anchor="middle">{ format!("rail {r}") }</text>
                }
            </g>
        }
    });
    let nodes = (0..s.nodes).map(|n| {
        let (nx, ny) = node_xy(n);
        let gpus = (0..s.gpus_per_node).map(|local| {
            let gpu = n * gpn + u64::from(local);
            let rail = rail_of_local(local);
            let (gx, gy) = gpu_xy(gpu);
            let picked = props.selected.contains(&gpu);
            let onclick = props.on_pick.reform(move |_: MouseEvent| gpu);
            let on_pick = props.on_pick.clone();
            let onkeydown = move |e: KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    on_pick.emit(gpu);
                }
            };
            let shown = if rail_opt { rail } else { local };
            html! {
                <g class={classes!("topo-gpu", format!("rail-{}", rail % RAIL_COLOURS), picked.then_some("picked"), on(lit.gpus.contains(&gpu)))}>
                    <rect
                        x={gx.to_string()} y={gy.to_string()} width={GPU_W.to_string()} height={GPU_H.to_string()} rx="2"
                        tabindex="0" role="button" data-gpu={gpu.to_string()} data-rail={rail.to_string()}
                        aria-pressed={picked.to_string()}
                        aria-label={format!("GPU {gpu}: node {n}, GPU {local}, rail {rail}")}
                        {onclick} {onkeydown}
                    />
                    <text x={(gx + GPU_W / 2.0).to_string()} y={(gy + 14.0).to_string()} text-anchor="middle" aria-hidden="true">{ shown.to_string() }</text>
                </g>
            }
        });
        html! {
            <g class="topo-node" data-node={n.to_string()}>
                <rect class="topo-node-box" x={nx.to_string()} y={ny.to_string()} width={node_w.to_string()} height="44" rx="4" />
                { for gpus }
                <text class="topo-node-label" x={(nx + node_w / 2.0).to_string()} y={(ny + 38.0).to_string()} text-anchor="middle">{ format!("node {n}") }</text>
            </g>
        }
    });
    let nvlinks = lit.nvlink.iter().filter_map(|(a, b)| {
        let drawn = |g: u64| g / gpn.max(1) < s.nodes && (g % gpn.max(1)) < u64::from(s.gpus_per_node);
        (drawn(*a) && drawn(*b)).then(|| {
            let (ax, ay) = gpu_xy(*a);
            let (bx, _) = gpu_xy(*b);
            let (ax, bx) = (ax + GPU_W / 2.0, bx + GPU_W / 2.0);
            let top = ay - 10.0;
            html! {
                <path class="topo-nvlink on-path" d={format!("M{ax},{ay} C{ax},{top} {bx},{top} {bx},{ay}")} />
            }
        })
    });
    let legend = if rail_opt {
        "The number in each GPU is its rail: the leaf its NIC port goes to in this unit. Click (or Tab to and press Enter on) two GPUs to see the path between them."
    } else {
        "The number in each GPU is its place in its node; each node's NIC ports all go to one leaf. Click (or Tab to and press Enter on) two GPUs to see the path between them."
    };
    html! {
        <section class="topo-drawing" aria-labelledby="topo-drawing-h">
            <h2 id="topo-drawing-h">{ "The fabric, drawn" }</h2>
            <p class="topo-legend">{ legend }</p>
            <div class="topo-svg-box">
                <svg viewBox={format!("0 0 {width} {height}")} width={width.to_string()} height={height.to_string()}
                    role="group" aria-label={format!("Drawing of {} in plane 0", s.what)}>
                    // Each layer in its own group: a layer that grows or shrinks (the
                    // NVLink arcs of a path) must not shift its siblings' elements, which
                    // would move the keyboard focus to another GPU.
                    <g class="topo-lines">{ for lines }</g>
                    <g class="topo-cores">{ for core }</g>
                    <g class="topo-spines">{ for spines }</g>
                    <g class="topo-leaves">{ for leaves }</g>
                    <g class="topo-nodes">{ for nodes }</g>
                    <g class="topo-nvlinks">{ for nvlinks }</g>
                </svg>
            </div>
            <ul class="topo-summary">
                { for summary(f, &s).into_iter().map(|line| html! { <li>{ line }</li> }) }
            </ul>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::fabric::{build, presets};

    #[test]
    fn every_preset_draws_a_bounded_scope() {
        for p in presets() {
            let f = build(&p.spec).unwrap();
            let s = scope(&f);
            assert!(s.nodes >= 1 && s.nodes <= MAX_NODES, "{}", p.id);
            assert!(s.leaves >= 1 && s.leaves <= MAX_LEAVES, "{}", p.id);
            assert!(s.spines <= MAX_SPINES, "{}", p.id);
            assert!(s.nodes <= s.nodes_in_scope && s.leaves <= s.leaves_in_scope);
            // Every drawn node's leaf (rail 0) is drawn.
            assert!(f.leaf_of(s.nodes - 1, 0) < s.leaves, "{}", p.id);
            assert!(!summary(&f, &s).is_empty());
        }
    }

    #[test]
    fn a_4su_superpod_draws_one_unit_and_says_three_more() {
        let f = build(&engine::fabric::preset("superpod-h100-4su").unwrap().spec).unwrap();
        let s = scope(&f);
        assert_eq!((s.nodes, s.leaves, s.spines), (32, 8, 16));
        let text = summary(&f, &s).join(" ");
        assert!(text.contains("+ 3 more scalable units"), "{text}");
    }

    #[test]
    fn a_path_lights_its_hops() {
        let f = build(&engine::fabric::preset("superpod-h100-1su").unwrap().spec).unwrap();
        let p = f.path(0, 13, false).unwrap();
        let l = lit(Some(&p));
        assert!(l.gpus.contains(&0) && l.gpus.contains(&13));
        assert_eq!(l.leaves.len(), 2);
        assert_eq!(l.spines.len(), 1);
        assert_eq!(l.leaf_spine.len(), 2);
        let pxn = lit(Some(&f.path(0, 13, true).unwrap()));
        assert_eq!(pxn.nvlink, vec![(0, 5)]);
    }
}
