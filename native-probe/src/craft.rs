//! `native-probe craft SPEC.json -o OUT.pcap`: the packets the lab's builder describes,
//! written as a pcap file. The spec is the engine's serde `PacketSpec` (see CRAFT.md);
//! the file holds one spec or an array of them, one frame each.

use std::path::Path;

use engine::wire::{
    capture::{write_pcap, CapturedFrame, LinkType},
    spec::{build, PacketSpec},
};
use serde::Deserialize;

use crate::cli::CraftArgs;

/// One spec, or several.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Specs {
    Many(Vec<PacketSpec>),
    One(Box<PacketSpec>),
}

/// Frames spaced this far apart, so a capture viewer shows them in order.
const FRAME_GAP_NS: u64 = 1_000;

pub fn run(args: &CraftArgs) -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(&args.spec)
        .map_err(|e| format!("cannot read {}: {e}", args.spec.display()))?;
    let bytes = craft(&text)?;
    write_file(&args.output, &bytes)?;
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A pcap file holding the frames the JSON describes; errors name the spec (from 1) and
/// the field.
pub fn craft(json: &str) -> Result<Vec<u8>, String> {
    let specs = match serde_json::from_str::<Specs>(json) {
        Ok(Specs::Many(v)) => v,
        Ok(Specs::One(s)) => vec![*s],
        Err(_) => {
            // Untagged enums hide the cause; parse again as the likelier shape to say it.
            let trimmed = json.trim_start();
            let detail = if trimmed.starts_with('[') {
                serde_json::from_str::<Vec<PacketSpec>>(json).err()
            } else {
                serde_json::from_str::<PacketSpec>(json).err()
            };
            return Err(match detail {
                Some(e) => format!("spec JSON: {e}"),
                None => "spec JSON: neither a spec nor an array of specs".to_string(),
            });
        }
    };
    if specs.is_empty() {
        return Err("spec JSON: the array holds no specs".to_string());
    }
    let mut frames = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let data = build(spec).map_err(|e| format!("spec {}: {e}", i + 1))?;
        frames.push(CapturedFrame {
            timestamp_ns: i as u64 * FRAME_GAP_NS,
            orig_len: data.len() as u32,
            link_type: LinkType::Ethernet,
            data,
        });
    }
    write_pcap(&frames).map_err(|e| e.to_string())
}
