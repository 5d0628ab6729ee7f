//! The numeric parts of a [`FabricSpec`] the page lets a learner type: each named as in the
//! spec's JSON (which is also the URL query key and the name a `FabricError` gives), with
//! its unit and what it means. Ranges are the engine's to judge; this table only reads
//! what was typed and writes it into a spec.

use engine::fabric::{FabricError, FabricSpec};

use crate::views::form::{decimal, ratio, FieldDef, Reads};

/// The value of the spec field a box is named after (its key is the `FabricSpec` field).
fn value(spec: &FabricSpec, key: &str) -> f64 {
    match key {
        "gpus" => spec.gpus.into(),
        "gpus_per_node" => spec.gpus_per_node.into(),
        "nics_per_node" => spec.nics_per_node.into(),
        "nic_ports" => spec.nic_ports.into(),
        "nic_port_gbps" => spec.nic_port_gbps,
        "switch_ports" => spec.switch_ports.into(),
        "switch_port_gbps" => spec.switch_port_gbps,
        "switch_port_split" => spec.switch_port_split.into(),
        "oversubscription" => spec.oversubscription,
        _ => f64::NAN,
    }
}

/// Writes `v` into the spec field `key`; a whole-number field has been read as a `u32`.
fn set(spec: &mut FabricSpec, key: &str, v: f64) {
    let count = v as u32;
    match key {
        "gpus" => spec.gpus = count,
        "gpus_per_node" => spec.gpus_per_node = count,
        "nics_per_node" => spec.nics_per_node = count,
        "nic_ports" => spec.nic_ports = count,
        "nic_port_gbps" => spec.nic_port_gbps = v,
        "switch_ports" => spec.switch_ports = count,
        "switch_port_gbps" => spec.switch_port_gbps = v,
        "switch_port_split" => spec.switch_port_split = count,
        "oversubscription" => spec.oversubscription = v,
        _ => {}
    }
}

/// The value of `def` in `spec` as its box and the link show it; a ratio as its first side
/// (`3` for 3:1), which reads back the same and keeps older links' values.
pub fn text(def: &FieldDef, spec: &FabricSpec) -> String {
    let v = value(spec, def.key);
    if def.reads == Reads::Whole {
        format!("{v:.0}")
    } else {
        // At most four decimals: 16/15 shows as 1.0667, 400 as 400.
        let t = format!("{v:.4}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Writes what was typed into `def`'s field of `spec`, or says why it does not read as
/// that field's number (the range is left to the engine).
pub fn apply(def: &FieldDef, spec: &mut FabricSpec, text: &str) -> Result<(), String> {
    let (key, unit, t) = (def.key, def.unit, text.trim());
    if t.is_empty() {
        return Err(match def.reads {
            Reads::Ratio => format!("`{key}` is empty: type down:up, such as 3:1"),
            _ => format!("`{key}` is empty: type a number of {unit}"),
        });
    }
    let value = match def.reads {
        Reads::Whole => t.parse::<u32>().map(f64::from).map_err(|_| {
            format!(
                "`{key}`: {t:?} is not a whole number of {unit} (0 to {})",
                u32::MAX
            )
        })?,
        Reads::Ratio => ratio(t).map_err(|why| format!("`{key}`: {why}"))?,
        _ => decimal(t).map_err(|why| format!("`{key}`: {t:?} {why}"))?,
    };
    set(spec, key, value);
    Ok(())
}

/// Every typed field, in the panel's order.
pub static FIELDS: &[FieldDef] = &[
    FieldDef {
        key: "gpus",
        label: "GPUs",
        unit: "GPUs",
        help: "GPUs in the whole cluster, a whole number of nodes.",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "gpus_per_node",
        label: "GPUs per node",
        unit: "GPUs",
        help: "GPUs in one server (8 in a DGX H100).",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "nics_per_node",
        label: "NICs per node",
        unit: "NICs",
        help: "Scale-out NICs in one server; GPUs share them out evenly in order.",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "nic_ports",
        label: "Ports per NIC",
        unit: "ports",
        help: "Fabric ports on one NIC; with two planes, one port in each.",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "nic_port_gbps",
        label: "NIC port speed",
        unit: "Gb/s",
        help: "Line rate of one NIC port, per direction.",
        reads: Reads::Decimal,
    },
    FieldDef {
        key: "switch_ports",
        label: "Switch radix",
        unit: "ports",
        help: "Physical ports on one switch; every tier uses the same switch.",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "switch_port_gbps",
        label: "Switch port speed",
        unit: "Gb/s",
        help: "Line rate of one physical switch port, per direction.",
        reads: Reads::Decimal,
    },
    FieldDef {
        key: "switch_port_split",
        label: "Port split",
        unit: "ports",
        help: "Each switch port used as this many ports of its speed divided by it (breakout).",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "oversubscription",
        label: "Leaf oversubscription",
        unit: "down:up",
        help: "Down ports per up port at the leaf, as 3:1 or 3: 1:1 is non-blocking; spines and cores stay 1:1.",
        reads: Reads::Ratio,
    },
];

#[cfg(test)]
pub fn field(key: &str) -> Option<&'static FieldDef> {
    FieldDef::find(FIELDS, key)
}

/// The inputs that are not number boxes: the page's choices, named as in `FabricSpec`.
const CHOICES: [&str; 3] = ["planes", "tiers", "rail_optimized"];

/// The input a refusal belongs next to: the field it names, or for a constraint between
/// fields the one a learner most likely changes to meet it.
pub fn error_key(e: &FabricError) -> &'static str {
    match e {
        FabricError::InvalidField(e) => FIELDS
            .iter()
            .map(|f| f.key)
            .chain(CHOICES)
            .find(|&key| key == e.field)
            .unwrap_or("gpus"),
        FabricError::PartialNode { .. } => "gpus",
        FabricError::PlanesWithoutPorts { .. } => "planes",
        FabricError::NicFasterThanSwitchPort { .. } => "nic_port_gbps",
        FabricError::LeafHasNoRoom { .. } => "oversubscription",
        FabricError::NodeDoesNotFitLeaf { .. } => "rail_optimized",
        FabricError::TooLarge { .. } => "tiers",
        // A path query; the page keeps its selection within the fabric.
        FabricError::NoSuchGpu { .. } => "path",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::fabric::{build, preset};

    #[test]
    fn every_field_round_trips_every_preset() {
        for p in engine::fabric::presets() {
            let mut spec = p.spec.clone();
            for f in FIELDS {
                apply(f, &mut spec, &text(f, &p.spec)).unwrap();
            }
            // The ratio shows four decimals; the rest read back exactly.
            assert!((spec.oversubscription - p.spec.oversubscription).abs() < 1e-4);
            spec.oversubscription = p.spec.oversubscription;
            assert_eq!(spec, p.spec, "{}", p.id);
        }
    }

    #[test]
    fn oversubscription_reads_a_down_up_ratio_or_one_number() {
        // #32: the unit says down:up, so "3:1" must read.
        let ratio = field("oversubscription").unwrap();
        let mut spec = preset("superpod-h100-1su").unwrap().spec;
        for (text, want) in [
            ("3:1", 3.0),
            ("3", 3.0),
            ("1.5:1", 1.5),
            ("3 : 1", 3.0),
            (" 16:15 ", 16.0 / 15.0),
            ("6:2", 3.0),
        ] {
            apply(ratio, &mut spec, text).unwrap();
            assert!(
                (spec.oversubscription - want).abs() < 1e-12,
                "{text:?} read as {}",
                spec.oversubscription
            );
        }
        assert_eq!(build(&spec).unwrap().leaf.down_ports, 48, "64 ports at 3:1");
        for (text, says) in [
            ("1:0", "up side"),
            ("abc", "not a number"),
            ("3:1:1", "3 parts"),
            ("3:", "empty"),
            (":1", "empty"),
            ("x:1", "down side"),
            ("3:inf", "up side"),
        ] {
            let e = apply(ratio, &mut spec, text).unwrap_err();
            assert!(
                e.contains("`oversubscription`") && e.contains(says),
                "{text:?}: {e}"
            );
            assert!(e.contains(&format!("{text:?}")), "quotes the text: {e}");
        }
        assert_eq!(spec.oversubscription, 3.0, "a refusal leaves the spec");
        // The range stays the engine's: 1:2 reads, and the engine names the field.
        apply(ratio, &mut spec, "1:2").unwrap();
        assert_eq!(error_key(&build(&spec).unwrap_err()), "oversubscription");
    }

    #[test]
    fn half_typed_and_malformed_text_is_refused_with_the_key() {
        let mut spec = preset("superpod-h100-1su").unwrap().spec;
        let radix = field("switch_ports").unwrap();
        assert!(apply(radix, &mut spec, "12x")
            .unwrap_err()
            .contains("`switch_ports`"));
        assert!(apply(radix, &mut spec, "").unwrap_err().contains("empty"));
        assert!(apply(radix, &mut spec, "-1").is_err());
        let speed = field("nic_port_gbps").unwrap();
        assert!(apply(speed, &mut spec, "inf").is_err());
        // "1" reads, and the engine names the field it refuses.
        apply(radix, &mut spec, "1").unwrap();
        let e = build(&spec).unwrap_err();
        assert_eq!(error_key(&e), "switch_ports");
        apply(radix, &mut spec, "128").unwrap();
        assert!(build(&spec).is_ok());
    }
}
