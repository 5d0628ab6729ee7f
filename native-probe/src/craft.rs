//! `native-probe craft SPEC.json -o OUT.pcap`: the packets the lab's builder describes,
//! written as a pcap file. The spec is the engine's serde `PacketSpec` (see CRAFT.md);
//! the file holds one spec, an array of them or `{"packets": [...]}`, one frame each.

use std::{error::Error, fs::File, io::Write, path::Path};

use engine::capture::{
    pcap::{write_pcap, CapturedFrame, LinkType},
    spec::{build, PacketSpec},
};
use serde::Deserialize;
use serde_json::Value;

use crate::{cli::CraftArgs, json_input};

/// `{"packets": [...]}`: the specs under a name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PacketList {
    packets: Vec<PacketSpec>,
}

const HINT: &str = "a spec file holds one packet spec, an array of them or \
                    {\"packets\": [...]}; native-probe/CRAFT.md lists every field with its \
                    type and default";

/// Frames spaced this far apart, so a capture viewer shows them in order.
const FRAME_GAP_NS: u64 = 1_000;

pub fn run(args: &CraftArgs) -> Result<(), Box<dyn Error>> {
    let text = std::fs::read_to_string(&args.spec)
        .map_err(|e| format!("cannot read {}: {e}", args.spec.display()))?;
    let specs = specs(&args.spec, &text)?;
    let bytes = craft(&specs).map_err(|e| format!("{}: {e}", args.spec.display()))?;
    write_file(&args.output, &bytes)?;
    Ok(())
}

/// The specs `text` (read from `file`) holds. A first look at the top level picks the
/// shape; the typed parse of that shape then names the path of whatever is wrong inside.
/// (An untagged enum would say only "did not match any variant", and it took any object
/// for a spec: unknown fields were ignored and every field has a default.)
fn specs(file: &Path, text: &str) -> Result<Vec<PacketSpec>, Box<dyn Error>> {
    let refused = |what: &str| format!("{}: {what}\nhint: {HINT}", file.display());
    let top: Value = json_input::parse(file, text, HINT)?;
    let specs = match top {
        Value::Array(_) => json_input::parse(file, text, HINT)?,
        Value::Object(o) if o.contains_key("packets") => {
            json_input::parse::<PacketList>(file, text, HINT)?.packets
        }
        Value::Object(_) => vec![json_input::parse(file, text, HINT)?],
        other => {
            let kind = match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                _ => "a string",
            };
            return Err(refused(&format!("the file holds {kind}, not a packet spec")).into());
        }
    };
    if specs.is_empty() {
        return Err(refused("the file holds no specs").into());
    }
    Ok(specs)
}

/// Writes the whole capture or, when a write fails part-way, leaves no partial one behind.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let mut file = File::create(path).map_err(failed)?;
    let written = file.write_all(bytes);
    drop(file);
    written.map_err(|e| {
        // Only a file this run created or truncated goes, never one it could not open.
        let _ = std::fs::remove_file(path);
        failed(e)
    })
}

/// A pcap file holding one frame per spec; an error names the spec (from 1) and the field.
pub fn craft(specs: &[PacketSpec]) -> Result<Vec<u8>, String> {
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
