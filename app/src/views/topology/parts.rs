//! The parts list of the fabric shown: switches per tier (per plane and in all), cables,
//! optics, bisection bandwidth, hop counts and scalable units, each with what it means.

use crate::views::figures;
use engine::fabric::{Fabric, Tiers};
use yew::prelude::*;

/// A count with grouped thousands, as the reference text writes it.
pub fn grouped(n: u64) -> String {
    figures::grouped(n as f64)
}

/// Gb/s as Tb/s with at most one decimal.
pub fn tbps(gbps: f64) -> String {
    let t = format!("{:.1}", gbps / 1000.0);
    t.trim_end_matches(".0").to_string()
}

/// A count with the noun that agrees, thousands grouped.
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

/// A leaf's port split, and what the fullest leaf cables when the nodes do not fill it.
fn leaf_note(f: &Fabric) -> String {
    let split = format!(
        "{} ports down, {} up, {} Gb/s each",
        f.leaf.down_ports, f.leaf.up_ports, f.switch_port_gbps
    );
    if f.leaf.down_used < f.leaf.down_ports {
        format!(
            "{split}; the fullest cables {} down and {} up",
            f.leaf.down_used, f.leaf.up_used
        )
    } else {
        split
    }
}

/// What the counts leave a learner to weigh, in sentences: the one switch that would
/// serve, spines that carry only traffic between rails, and the parts NVIDIA's
/// reference architecture would cable instead.
fn choices(f: &Fabric) -> Vec<String> {
    let planes = u64::from(f.spec.planes.max(1));
    let mut out = Vec::new();
    if f.one_switch_would_serve {
        let ports = counted(f.endpoints / planes, "NIC port", "NIC ports");
        let of_plane = if planes > 1 { " of a plane" } else { "" };
        let fit = format!("All {ports}{of_plane} fit one {}-port switch", f.radix);
        out.push(if f.spec.rail_optimized {
            let how = if f.spec.tiers == Tiers::Auto {
                "Untick rail-optimized"
            } else {
                "Untick rail-optimized and take the fewest tiers that fit"
            };
            format!(
                "{fit}, which puts every port one hop from every other: a rail-optimized \
                 fabric needs more switches only when the NIC ports outgrow one switch. \
                 {how} to size that switch."
            )
        } else {
            format!("{fit}: with the fewest tiers that fit, that switch is the whole fabric.")
        });
    }
    if f.spines_only_between_rails && f.spine.count > 0 {
        let above = if f.core.is_some() {
            "spines and cores"
        } else {
            "spines"
        };
        out.push(format!(
            "Every node is in one scalable unit, so each rail's NIC ports share a leaf and the \
             {above} carry only traffic between rails. NCCL's PXN (on by default since NCCL \
             2.12) moves that traffic over NVLink to the GPU on the destination's rail first, \
             so for NCCL the {} alone would do; rail-only designs drop the spines this way \
             (Wang et al., arXiv:2307.12169). Traffic that does not take PXN (GPUs without \
             NVLink, NCCL_PXN_DISABLE=1, other programs) still needs them.",
            counted(f.leaf.count / planes, "leaf", "leaves")
        ));
    }
    if let Some(full) = &f.full_units {
        let cores = if full.cores > 0 {
            format!("{}, ", counted(full.cores, "core", "cores"))
        } else {
            String::new()
        };
        out.push(format!(
            "These counts are for the {} asked. NVIDIA's DGX SuperPOD reference architecture \
             builds a partly filled scalable unit as a full one, leaves and leaf–spine cables \
             included, so the fabric can grow and every path is alike: {}, {cores}{} and {} \
             here.",
            counted(f.nodes, "node", "nodes"),
            counted(full.spines, "spine", "spines"),
            counted(full.links.total, "link", "links"),
            counted(full.transceivers, "transceiver", "transceivers")
        ));
    }
    out
}

/// One row: what, per plane, in all, and a note.
struct Row {
    part: &'static str,
    label: String,
    per_plane: String,
    total: String,
    note: String,
}

fn rows(f: &Fabric) -> Vec<Row> {
    let planes = u64::from(f.spec.planes);
    let per = |n: u64| grouped(n / planes.max(1));
    let mut rows = vec![
        Row {
            part: "nodes",
            label: "Nodes".into(),
            per_plane: String::new(),
            total: grouped(f.nodes),
            note: format!(
                "{} GPUs each, {} GPUs in all",
                f.spec.gpus_per_node,
                grouped(u64::from(f.spec.gpus))
            ),
        },
        Row {
            part: "rails",
            label: "NIC ports per node".into(),
            per_plane: f.rails.to_string(),
            total: (u64::from(f.rails) * planes).to_string(),
            note: if f.spec.rail_optimized {
                format!("{} rails in each plane", f.rails)
            } else {
                "all of a node's ports go to one leaf (top-of-rack)".into()
            },
        },
        Row {
            part: "tiers",
            label: "Switch tiers".into(),
            per_plane: String::new(),
            total: f.tiers.to_string(),
            note: match f.tiers {
                1 => "one switch per plane holds every NIC port".into(),
                2 => "leaf and spine".into(),
                _ => "leaf, spine and core".into(),
            },
        },
        Row {
            part: "leaves",
            label: "Leaves".into(),
            per_plane: per(f.leaf.count),
            total: grouped(f.leaf.count),
            note: if f.leaf.up_ports == 0 {
                format!(
                    "{} ports of {} Gb/s, all to nodes",
                    f.radix, f.switch_port_gbps
                )
            } else {
                leaf_note(f)
            },
        },
        Row {
            part: "spines",
            label: "Spines".into(),
            per_plane: per(f.spine.count),
            total: grouped(f.spine.count),
            note: match (f.tiers, f.pods) {
                (1, _) => "none: one switch is the fabric".into(),
                (2, _) if f.spine.down_used < f.spine.down_ports => format!(
                    "every leaf reaches every spine; {} of each spine's {} ports cabled",
                    f.spine.down_used, f.spine.down_ports
                ),
                (2, _) => "every leaf reaches every spine".into(),
                (_, Some(pods)) => format!(
                    "{} per pod, {} pods per plane of {} leaves each",
                    f.spines_per_pod,
                    grouped(pods),
                    f.leaves_per_pod
                ),
                _ => String::new(),
            },
        },
    ];
    rows.push(match &f.core {
        Some(core) => Row {
            part: "cores",
            label: "Cores".into(),
            per_plane: per(core.count),
            total: grouped(core.count),
            note: format!(
                "{} groups of {}: group j joins spine j of every pod",
                f.spines_per_pod, f.cores_per_group
            ),
        },
        None => Row {
            part: "cores",
            label: "Cores".into(),
            per_plane: "0".into(),
            total: "0".into(),
            note: "no core tier".into(),
        },
    });
    rows.push(Row {
        part: "switches",
        label: "Switches in all".into(),
        per_plane: per(f.switches),
        total: grouped(f.switches),
        note: if f.spec.switch_port_split == 1 {
            format!("{} ports of {} Gb/s each", f.radix, f.switch_port_gbps)
        } else {
            format!(
                "{} ports of {} Gb/s, each split into {}: {} ports of {} Gb/s",
                f.spec.switch_ports,
                f.spec.switch_port_gbps,
                f.spec.switch_port_split,
                f.radix,
                f.switch_port_gbps
            )
        },
    });
    for (part, label, n) in [
        ("links-nic-leaf", "Links NIC to leaf", f.links.nic_leaf),
        (
            "links-leaf-spine",
            "Links leaf to spine",
            f.links.leaf_spine,
        ),
        (
            "links-spine-core",
            "Links spine to core",
            f.links.spine_core,
        ),
    ] {
        rows.push(Row {
            part,
            label: label.into(),
            per_plane: per(n),
            total: grouped(n),
            note: String::new(),
        });
    }
    rows.push(Row {
        part: "links",
        label: "Links in all".into(),
        per_plane: per(f.links.total),
        total: grouped(f.links.total),
        note: String::new(),
    });
    rows.push(Row {
        part: "transceivers",
        label: "Optical transceivers".into(),
        per_plane: per(f.optics.transceivers),
        total: grouped(f.optics.transceivers),
        note: "two per link; see the optics assumption below".into(),
    });
    rows.push(Row {
        part: "bisection",
        label: "Bisection bandwidth".into(),
        per_plane: format!("{} Tb/s", tbps(f.bisection_gbps / planes as f64)),
        total: format!("{} Tb/s", tbps(f.bisection_gbps)),
        note: "one direction, across the worst halving; see the definition below".into(),
    });
    let hops = &f.hops;
    let mut hop_text = vec![format!("same leaf: {}", hops.same_leaf)];
    if let Some(n) = hops.other_leaf {
        hop_text.push(format!("other leaf: {n}"));
    }
    if let Some(n) = hops.other_pod {
        hop_text.push(format!("other pod: {n}"));
    }
    if let Some(n) = hops.other_rail_with_pxn {
        hop_text.push(format!("other rail with PXN: 1 NVLink hop, then {n}"));
    }
    rows.push(Row {
        part: "hops",
        label: "Switches crossed".into(),
        per_plane: String::new(),
        total: hop_text.join("; "),
        note: "between GPUs on different nodes".into(),
    });
    if let Some(su) = &f.scalable_units {
        rows.push(Row {
            part: "units",
            label: "Scalable units".into(),
            per_plane: grouped(su.count),
            total: grouped(su.count),
            note: format!(
                "{} nodes ({} GPUs) and {} leaves (one per rail) per unit and plane",
                su.nodes_per_su,
                grouped(su.gpus_per_su),
                su.leaves_per_su
            ),
        });
    }
    rows
}

#[derive(Properties, PartialEq)]
pub struct PartsProps {
    pub fabric: std::rc::Rc<Fabric>,
}

#[function_component]
pub fn PartsTable(props: &PartsProps) -> Html {
    let f = &props.fabric;
    html! {
        <section class="topo-parts" aria-labelledby="topo-parts-h">
            <h2 id="topo-parts-h">{ "What it takes" }</h2>
            <div class="topo-table-box" tabindex="0" role="region" aria-label="Parts table (scrolls sideways)">
                <table class="topo-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Part" }</th>
                            <th scope="col">{ format!("All {} plane{}", f.spec.planes, if f.spec.planes == 1 { "" } else { "s" }) }</th>
                            <th scope="col">{ "Per plane" }</th>
                            <th scope="col">{ "Notes" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for rows(f).into_iter().map(|r| html! {
                            <tr data-part={r.part}>
                                <th scope="row">{ r.label }</th>
                                <td class="total">{ r.total }</td>
                                <td class="per-plane">{ r.per_plane }</td>
                                <td class="note">{ r.note }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            { for choices(f).into_iter().map(|c| html! { <p class="topo-note topo-choice">{ c }</p> }) }
            <p class="topo-assumption"><strong>{ "Optics: " }</strong>{ f.optics.assumption }{ "." }</p>
            <p class="topo-assumption"><strong>{ "Bisection bandwidth: " }</strong>{ f.bisection_definition }{ "." }</p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_rates_read_as_a_person_writes_them() {
        assert_eq!(grouped(7), "7");
        assert_eq!(grouped(1016), "1\u{202f}016");
        assert_eq!(grouped(1_234_567), "1\u{202f}234\u{202f}567");
        assert_eq!(tbps(204_800.0), "204.8");
        assert_eq!(tbps(100.0), "0.1");
        assert_eq!(tbps(2_000.0), "2");
    }

    #[test]
    fn the_table_has_every_part_of_the_4su_superpod() {
        let f = engine::fabric::build(&engine::fabric::preset("superpod-h100-4su").unwrap().spec)
            .unwrap();
        let rows = rows(&f);
        let get = |part: &str| rows.iter().find(|r| r.part == part).unwrap().total.clone();
        assert_eq!(get("leaves"), "32");
        assert_eq!(get("spines"), "16");
        assert_eq!(get("cores"), "0");
        assert_eq!(get("links-nic-leaf"), "1\u{202f}016");
        assert_eq!(get("links-leaf-spine"), "1\u{202f}024");
        assert!(rows.iter().any(|r| r.part == "units"));
        // Four nearly full units: nothing smaller to weigh.
        assert_eq!(choices(&f), Vec::<String>::new());
    }

    #[test]
    fn two_rail_optimized_nodes_list_16_ports_and_say_one_switch_would_serve() {
        // The audit's case (#32): the 1-SU SuperPOD preset with GPUs = 16.
        let mut spec = engine::fabric::preset("superpod-h100-1su").unwrap().spec;
        spec.gpus = 16;
        let f = engine::fabric::build(&spec).unwrap();
        let rows = rows(&f);
        let row = |part: &str| rows.iter().find(|r| r.part == part).unwrap();
        assert_eq!(row("leaves").total, "8");
        assert!(
            row("leaves")
                .note
                .contains("the fullest cables 2 down and 2 up"),
            "{}",
            row("leaves").note
        );
        assert_eq!(row("spines").total, "1");
        assert_eq!(row("links-leaf-spine").total, "16");
        assert_eq!(row("transceivers").total, "64");
        let said = choices(&f);
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(
            said[0].starts_with("All 16 NIC ports fit one 64-port switch"),
            "{}",
            said[0]
        );
        assert!(
            said[1].contains("the 8 leaves alone would do"),
            "{}",
            said[1]
        );
        assert!(
            said[2].contains("for the 2 nodes asked")
                && said[2].contains("4 spines, 272 links and 544 transceivers"),
            "{}",
            said[2]
        );
        let mut two = spec.clone();
        two.tiers = Tiers::Two;
        let said = choices(&engine::fabric::build(&two).unwrap());
        assert!(said[0].contains("and take the fewest tiers"), "{}", said[0]);
        // Top-of-rack, the same ports are one switch, and nothing is left to say.
        spec.rail_optimized = false;
        let one = engine::fabric::build(&spec).unwrap();
        assert_eq!((one.switches, choices(&one).len()), (1, 0));
    }
}
