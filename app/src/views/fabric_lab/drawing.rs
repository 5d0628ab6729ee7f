//! Each side's fabric at the timeline's moment: cables coloured by how much of their rate
//! they carried in that sample, a bar at a port's end for its queue, a dashed cable and a
//! bar mark where PFC held a sender, and the path of a flow picked from a list. Focusing or
//! hovering a cable (every cable is a tab stop) names its numbers under the drawing.

use std::rc::Rc;

use engine::netsim::{
    sample_at, side_letter, FabricMap, FlowReport, MapNode, NodeKind, Report, Tier,
};
use yew::prelude::*;

use super::state::LabPage;
use crate::views::figures::{bytes, duration};

const PITCH: f64 = 34.0;
const MARGIN: f64 = 24.0;
const SWITCH_W: f64 = 30.0;
const NODE_H: f64 = 16.0;
const HOST_W: f64 = 16.0;
/// The longest queue bar, drawn along the cable from the sender.
const BAR_MAX: f64 = 26.0;
/// A sample whose sender was held for at least this share of it shows the pause.
const PAUSED: f32 = 0.5;

fn tier_y(tier: Tier) -> f64 {
    match tier {
        Tier::Spine => 24.0,
        Tier::Leaf => 104.0,
        Tier::Host => 184.0,
        Tier::NvLink => 240.0,
    }
}

/// Where each node sits: its tier's row, spread evenly over the drawing's width.
struct Layout {
    width: f64,
    height: f64,
    at: Vec<(f64, f64)>,
}

fn layout(map: &FabricMap) -> Layout {
    let width = f64::from(map.width.max(4)) * PITCH + 2.0 * MARGIN;
    let lens = [Tier::NvLink, Tier::Host, Tier::Leaf, Tier::Spine].map(|t| map.tier_len(t));
    let at = map
        .nodes
        .iter()
        .map(|n| {
            let in_tier = f64::from(lens[n.tier as usize].max(1));
            let span = width - 2.0 * MARGIN;
            (
                MARGIN + (f64::from(n.slot) + 0.5) * span / in_tier,
                tier_y(n.tier),
            )
        })
        .collect();
    let height = if lens[Tier::NvLink as usize] > 0 {
        tier_y(Tier::NvLink) + 24.0
    } else {
        tier_y(Tier::Host) + 24.0
    };
    Layout { width, height, at }
}

/// A node's name inside its box: short, the full label is its tooltip.
fn short(n: &MapNode) -> String {
    // Labels are "gpu 3 (server 0, rail 3)", "leaf 1", "switch 2" or "switch".
    let number = n.label.split(' ').nth(1).unwrap_or("");
    match n.kind {
        // A dumbbell's "receiver".
        NodeKind::Host if number.is_empty() => n
            .label
            .chars()
            .take(1)
            .collect::<String>()
            .to_ascii_uppercase(),
        NodeKind::Host => number.to_string(),
        NodeKind::Leaf => format!("L{number}"),
        NodeKind::Spine => format!("S{number}"),
        NodeKind::NvSwitch => format!("NV{number}"),
        NodeKind::Switch if number.parse::<u32>().is_ok() => format!("SW{number}"),
        NodeKind::Switch => "SW".to_string(),
    }
}

/// The utilisation band a cable is drawn in (`.use-0` … `.use-4` in the stylesheet).
fn band(used: f32) -> u8 {
    match used {
        u if u < 0.01 => 0,
        u if u < 0.25 => 1,
        u if u < 0.5 => 2,
        u if u < 0.9 => 3,
        _ => 4,
    }
}

/// One direction of a cable at sample `k`: used share, queue, share of it paused.
fn port_at(r: &Report, port: u32, k: usize) -> (f32, f32, f32) {
    let l = &r.links[port as usize];
    let get = |s: &Vec<f32>| s.get(k).copied().unwrap_or(0.0);
    (
        get(&l.utilisation),
        get(&l.queue_bytes),
        get(&l.paused_share),
    )
}

/// What a focused cable says: each direction's numbers at the moment shown.
fn cable_words(r: &Report, map: &FabricMap, cable: usize, k: usize) -> String {
    let c = map.cables[cable];
    let when = r
        .time_us
        .get(k)
        .map_or(String::new(), |t| duration(t * 1e-6));
    let dirs: Vec<String> = c
        .ports
        .iter()
        .map(|&p| {
            let l = &r.links[p as usize];
            let (used, queue, paused) = port_at(r, p, k);
            format!(
                "{} → {}: {:.0} % of {:.0} Gb/s used, {} queued, held by PFC {:.0} % of the sample",
                l.from,
                l.to,
                used * 100.0,
                l.gbps,
                bytes(f64::from(queue)),
                paused * 100.0
            )
        })
        .collect();
    format!("At {when}: {}.", dirs.join("; "))
}

#[derive(Properties, PartialEq)]
pub struct DrawingsProps {
    pub page: UseReducerHandle<LabPage>,
}

/// Both sides' drawings, at the timeline's cursor.
#[function_component]
pub fn FabricDrawings(props: &DrawingsProps) -> Html {
    let page = &props.page;
    let maps = use_memo(page.sides.clone(), |sides| {
        sides
            .as_ref()
            .map(|s| [&s[0], &s[1]].map(|s| FabricMap::of(s).ok().map(Rc::new)))
    });
    let (Some(times), Some(reports), Some(maps)) = (page.timeline(), page.reports(), &*maps) else {
        return html! {};
    };
    let last = times.len() - 1;
    let t_us = times[page.cursor.unwrap_or(last).min(last)];
    html! {
        <div class="fabric-drawings">
            { for reports.iter().zip(maps.iter()).enumerate().map(|(side, (r, map))| match map {
                Some(map) => html! {
                    <SideDrawing side={side} report={r.clone()} map={map.clone()} t_us={t_us} />
                },
                None => html! {},
            }) }
        </div>
    }
}

#[derive(Properties)]
struct SideProps {
    side: usize,
    report: Rc<Report>,
    map: Rc<FabricMap>,
    t_us: f64,
}

impl PartialEq for SideProps {
    fn eq(&self, o: &Self) -> bool {
        self.side == o.side
            && Rc::ptr_eq(&self.report, &o.report)
            && Rc::ptr_eq(&self.map, &o.map)
            && self.t_us == o.t_us
    }
}

/// What one side's drawing is made from at the moment shown.
struct Scene<'a> {
    r: &'a Report,
    map: &'a FabricMap,
    lay: Layout,
    k: usize,
    /// The deepest queue of the run: a full-length bar.
    queue_scale: f64,
    on_path: Vec<usize>,
    focused: UseStateHandle<Option<usize>>,
}

impl Scene<'_> {
    fn cable(&self, i: usize) -> Html {
        let c = self.map.cables[i];
        let ((x1, y1), (x2, y2)) = (
            self.lay.at[c.ends[0] as usize],
            self.lay.at[c.ends[1] as usize],
        );
        let dirs = c.ports.map(|p| port_at(self.r, p, self.k));
        let used = dirs[0].0.max(dirs[1].0);
        let paused = dirs.iter().any(|d| d.2 >= PAUSED);
        // Cables within one row (a ring of switches) bow above it.
        let d = if y1 == y2 {
            let lift = 14.0 + (x2 - x1).abs() * 0.18;
            format!(
                "M{x1:.1},{y1:.1} Q{:.1},{:.1} {x2:.1},{y2:.1}",
                (x1 + x2) / 2.0,
                y1 - lift
            )
        } else {
            format!("M{x1:.1},{y1:.1} L{x2:.1},{y2:.1}")
        };
        let path = &self.on_path;
        let class = classes!(
            "fabric-cable",
            format!("use-{}", band(used)),
            paused.then_some("paused"),
            path.contains(&i).then_some("on-path"),
            (!path.is_empty() && !path.contains(&i)).then_some("off-path"),
            (*self.focused == Some(i)).then_some("focused"),
        );
        let focus = {
            let focused = self.focused.clone();
            Callback::from(move |_: FocusEvent| focused.set(Some(i)))
        };
        let hover = {
            let focused = self.focused.clone();
            Callback::from(move |_: MouseEvent| focused.set(Some(i)))
        };
        let [a, b] = c.ends.map(|n| self.map.nodes[n as usize].label.as_str());
        html! {
            <g class={class} tabindex="0" role="img" aria-label={format!("{a} to {b}")}
                data-cable={i.to_string()} onfocus={focus} onmouseenter={hover}>
                <path class="fabric-hit" d={d.clone()} />
                <path class="fabric-wire" d={d} />
                { self.port_marks(c.ends[0], c.ends[1], dirs[0]) }
                { self.port_marks(c.ends[1], c.ends[0], dirs[1]) }
            </g>
        }
    }

    /// A sending port's queue bar along its cable, and a dot while PFC holds it.
    fn port_marks(&self, from: u32, to: u32, (_, queue, paused): (f32, f32, f32)) -> Html {
        let ((fx, fy), (tx, ty)) = (self.lay.at[from as usize], self.lay.at[to as usize]);
        let len = ((tx - fx).powi(2) + (ty - fy).powi(2)).sqrt().max(1.0);
        let (ux, uy) = ((tx - fx) / len, (ty - fy) / len);
        let bar = if self.queue_scale > 0.0 {
            BAR_MAX * f64::from(queue) / self.queue_scale
        } else {
            0.0
        };
        let (sx, sy) = (fx + ux * 12.0, fy + uy * 12.0);
        html! { <>
            if bar >= 0.5 {
                <line class="fabric-queue" x1={format!("{sx:.1}")} y1={format!("{sy:.1}")}
                    x2={format!("{:.1}", sx + ux * bar)} y2={format!("{:.1}", sy + uy * bar)} />
            }
            if paused >= PAUSED {
                <circle class="fabric-pause" cx={format!("{sx:.1}")} cy={format!("{sy:.1}")} r="3.5" />
            }
        </> }
    }

    fn node(&self, n: &MapNode, (x, y): (f64, f64)) -> Html {
        let w = if n.kind == NodeKind::Host {
            HOST_W
        } else {
            SWITCH_W
        };
        html! {
            <g class={classes!("fabric-node", format!("kind-{:?}", n.kind).to_ascii_lowercase())}>
                <title>{ n.label.clone() }</title>
                <rect x={format!("{:.1}", x - w / 2.0)} y={format!("{:.1}", y - NODE_H / 2.0)}
                    width={w.to_string()} height={NODE_H.to_string()} rx="3" />
                <text x={format!("{x:.1}")} y={format!("{:.1}", y + 4.0)}>{ short(n) }</text>
            </g>
        }
    }

    fn said(&self) -> String {
        self.focused
            .filter(|&i| i < self.map.cables.len())
            .map(|i| cable_words(self.r, self.map, i, self.k))
            .unwrap_or_else(|| "Focus or point at a cable for its numbers.".into())
    }
}

/// A flow in the list: its ends and its UDP source port (what ECMP hashed).
fn flow_name(map: &FabricMap, f: &FlowReport) -> String {
    let label = |n: u32| map.nodes.get(n as usize).map_or("?", |n| n.label.as_str());
    let per_packet = if f.path.is_none() {
        ", path per packet"
    } else {
        ""
    };
    format!(
        "{} → {} (UDP {}){per_packet}",
        label(f.src),
        label(f.dst),
        f.udp_sport
    )
}

#[function_component]
fn SideDrawing(props: &SideProps) -> Html {
    let flow = use_state(|| None::<usize>);
    let letter = side_letter(props.side);
    let (r, map) = (&*props.report, &*props.map);
    let scene = Scene {
        r,
        map,
        lay: layout(map),
        k: sample_at(r, props.t_us).unwrap_or(0),
        queue_scale: r.links.iter().map(|l| l.max_queue_bytes).max().unwrap_or(0) as f64,
        on_path: flow
            .and_then(|f| r.flows.get(f)?.path.as_deref())
            .map(|p| map.cables_on(p))
            .unwrap_or_default(),
        focused: use_state(|| None::<usize>),
    };
    let on_flow = {
        let flow = flow.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            flow.set(select.value().parse::<usize>().ok());
        })
    };
    let select_id = format!("fabric-flow-{letter}");
    html! {
        <figure class="fabric-drawing" data-side={letter.to_string()} data-sample={scene.k.to_string()}>
            <figcaption>{ format!("Side {letter}: the fabric at the timeline's moment") }</figcaption>
            <div class="fabric-drawing-box" tabindex="0" role="region"
                aria-label={format!("Side {letter}: the fabric drawing (scrolls sideways)")}>
                <svg viewBox={format!("0 0 {:.0} {:.0}", scene.lay.width, scene.lay.height)}
                    width={format!("{:.0}", scene.lay.width)} class="fabric-svg">
                    { for (0..map.cables.len()).map(|i| scene.cable(i)) }
                    { for map.nodes.iter().zip(&scene.lay.at).map(|(n, at)| scene.node(n, *at)) }
                </svg>
            </div>
            <p class="fabric-cable-said" aria-live="polite">{ scene.said() }</p>
            <div class="fabric-flow-pick">
                <label for={select_id.clone()}>{ "Highlight a flow's path" }</label>
                <select id={select_id} onchange={on_flow}>
                    <option value="" selected={flow.is_none()}>{ "none" }</option>
                    { for r.flows.iter().enumerate().map(|(i, f)| html! {
                        <option value={i.to_string()} disabled={f.path.is_none()}
                            selected={*flow == Some(i)}>{ flow_name(map, f) }</option>
                    }) }
                </select>
            </div>
            <p class="fabric-key">{ "Cables: grey idle, then blue, green, amber and red as they carry more of their rate in the sample; a bar from a port is its queue; a dashed cable and a dot mark a sender held by PFC." }</p>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_of_every_named_scenario_has_a_short_name_of_its_own() {
        for name in engine::netsim::scenario_names() {
            let s = engine::netsim::named_scenario(name).unwrap();
            let map = FabricMap::of(&s).unwrap();
            let mut names: Vec<String> = map.nodes.iter().map(short).collect();
            assert!(
                names.iter().all(|n| !n.is_empty() && n.len() <= 5),
                "{name}: {names:?}"
            );
            names.sort();
            names.dedup();
            assert_eq!(
                names.len(),
                map.nodes.len(),
                "{name}: two nodes share a name"
            );
        }
    }
}
