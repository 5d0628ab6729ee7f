//! `native-probe fabric`: sizes a fabric with the engine's model and prints its parts, as a
//! table for people or JSON for scripts.

use engine::fabric::{build, Fabric, FabricSpec, HopCounts, Links, Optics, ScalableUnits, Tiers};
use serde::Serialize;

use crate::{
    cli::{FabricArgs, TiersArg},
    flags::FieldFlags,
    output,
};

/// The spec's JSON field names and the flags that set them, for error messages.
const FLAGS: FieldFlags = FieldFlags(&[
    ("gpus_per_node", "--gpus-per-node"),
    ("nics_per_node", "--nics-per-node"),
    ("nic_ports", "--nic-ports"),
    ("nic_port_gbps", "--nic-gbps"),
    ("switch_ports", "--switch-ports"),
    ("switch_port_gbps", "--switch-gbps"),
    ("switch_port_split", "--switch-split"),
    ("oversubscription", "--oversubscription"),
    ("rail_optimized", "--rail-optimized"),
    ("planes", "--planes"),
    ("gpus", "--gpus"),
]);

/// What `--json` prints: the counts first, under the names a reader looks for.
#[derive(Debug, Serialize)]
struct Report<'a> {
    tiers: u8,
    nodes: u64,
    leaves: u64,
    spines: u64,
    cores: u64,
    switches: u64,
    links: &'a Links,
    optics: &'a Optics,
    bisection_gbps: f64,
    bisection_definition: &'static str,
    hops: &'a HopCounts,
    scalable_units: Option<&'a ScalableUnits>,
    /// Everything the engine sized, for the curious.
    fabric: &'a Fabric,
}

pub fn run(args: &FabricArgs) -> Result<(), Box<dyn std::error::Error>> {
    let spec = FabricSpec {
        gpus: args.gpus,
        gpus_per_node: args.gpus_per_node,
        nics_per_node: args.nics_per_node,
        nic_ports: args.nic_ports,
        nic_port_gbps: args.nic_gbps,
        switch_ports: args.switch_ports,
        switch_port_gbps: args.switch_gbps,
        switch_port_split: args.switch_split,
        tiers: match args.tiers {
            TiersArg::Two => Tiers::Two,
            TiersArg::Three => Tiers::Three,
            TiersArg::Auto => Tiers::Auto,
        },
        oversubscription: args.oversubscription,
        rail_optimized: args.rail_optimized,
        planes: args.planes,
    };
    let fabric = build(&spec).map_err(|e| match e.field_error() {
        Some(refused) => FLAGS.refusal(refused),
        None => FLAGS.in_message(&e.to_string()),
    })?;
    let text = if args.json {
        let report = Report {
            tiers: fabric.tiers,
            nodes: fabric.nodes,
            leaves: fabric.leaf.count,
            spines: fabric.spine.count,
            cores: fabric.core.as_ref().map_or(0, |c| c.count),
            switches: fabric.switches,
            links: &fabric.links,
            optics: &fabric.optics,
            bisection_gbps: fabric.bisection_gbps,
            bisection_definition: fabric.bisection_definition,
            hops: &fabric.hops,
            scalable_units: fabric.scalable_units.as_ref(),
            fabric: &fabric,
        };
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        table(&fabric)
    };
    output::to_stdout(|out| out.write_all(text.as_bytes()))?;
    Ok(())
}

/// A rate in Tb/s from 1 Tb/s up, else Gb/s, without trailing zeros.
fn rate(gbps: f64) -> String {
    let (value, unit) = if gbps >= 1000.0 {
        (gbps / 1000.0, "Tb/s")
    } else {
        (gbps, "Gb/s")
    };
    let text = format!("{value:.3}");
    format!(
        "{} {unit}",
        text.trim_end_matches('0').trim_end_matches('.')
    )
}

/// The parts, one per line, for people.
fn table(f: &Fabric) -> String {
    let planes = f.spec.planes;
    let per_plane = |n: u64| {
        if planes > 1 {
            format!("{n} ({} per plane)", n / u64::from(planes))
        } else {
            n.to_string()
        }
    };
    let mut rows: Vec<(&str, String)> = vec![
        ("tiers", f.tiers.to_string()),
        ("nodes", f.nodes.to_string()),
        ("NIC ports", f.endpoints.to_string()),
        ("leaves", per_plane(f.leaf.count)),
        ("spines", per_plane(f.spine.count)),
    ];
    if let Some(core) = &f.core {
        rows.push(("cores", per_plane(core.count)));
    }
    rows.extend([
        ("switches", per_plane(f.switches)),
        (
            "leaf ports down:up",
            format!("{}:{}", f.leaf.down_ports, f.leaf.up_ports),
        ),
        ("NIC-leaf cables", f.links.nic_leaf.to_string()),
        ("leaf-spine cables", f.links.leaf_spine.to_string()),
    ]);
    if f.core.is_some() {
        rows.push(("spine-core cables", f.links.spine_core.to_string()));
    }
    rows.extend([
        ("cables", f.links.total.to_string()),
        ("transceivers", f.optics.transceivers.to_string()),
        (
            "bisection",
            format!("{}, one direction", rate(f.bisection_gbps)),
        ),
        ("switch hops, same leaf", f.hops.same_leaf.to_string()),
    ]);
    if let Some(h) = f.hops.other_leaf {
        rows.push(("switch hops, other leaf", h.to_string()));
    }
    if let Some(h) = f.hops.other_pod {
        rows.push(("switch hops, other pod", h.to_string()));
    }
    if let Some(su) = &f.scalable_units {
        rows.push((
            "scalable units",
            format!(
                "{} of {} nodes ({} GPUs), {} leaves each",
                su.count, su.nodes_per_su, su.gpus_per_su, su.leaves_per_su
            ),
        ));
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in rows {
        out.push_str(&format!("{k:<width$}  {v}\n"));
    }
    out.push_str(&format!(
        "\noptics: {}.\nbisection: {}.\n",
        f.optics.assumption, f.bisection_definition
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_become_flags() {
        let m =
            FLAGS.in_message("`gpus` 9 is not a whole number of nodes of 8 GPUs (`gpus_per_node`)");
        assert_eq!(
            m,
            "`--gpus` 9 is not a whole number of nodes of 8 GPUs (`--gpus-per-node`)"
        );
        let refused = engine::FieldError::new("nic_port_gbps", "0");
        assert!(FLAGS.refusal(&refused).contains("`--nic-gbps`"));
    }
}
