//! `native-probe decode FILE [--json]`: the lab's dissector over a pcap/pcapng file.
//!
//! With `--json`, one object per frame (JSON Lines): `frame`, `time`, `layers`, `fields`
//! (Wireshark display-filter names to numbers, booleans or strings), `icrc_ok` and
//! `error`. A file that breaks off part-way is decoded up to the break, then the
//! located capture error is printed as one last line and the exit status is non-zero.

use std::{
    io::{self, Write},
    path::Path,
};

use engine::wire::{
    capture::{read_capture, CaptureError, CapturedFrame},
    dissect,
    listing::{row_from, IcrcStatus},
    DecodedFrame, FieldValue,
};
use serde_json::{json, Map, Value};

use crate::cli::DecodeArgs;

/// Why decoding the file failed as a whole.
#[derive(Debug)]
pub enum DecodeError {
    Read(io::Error),
    Capture(CaptureError),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Read(e) => write!(f, "cannot read the capture: {e}"),
            DecodeError::Capture(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DecodeError {}

pub fn run(args: &DecodeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    decode_file(&args.file, args.json, &mut out)?;
    Ok(())
}

/// Decodes every readable frame of `path` onto `out`.
pub fn decode_file(path: &Path, json: bool, out: &mut impl Write) -> Result<(), DecodeError> {
    let bytes = std::fs::read(path).map_err(DecodeError::Read)?;
    let file = read_capture(&bytes);
    for (i, frame) in file.frames.iter().enumerate() {
        let line = if json {
            frame_json(i + 1, frame).to_string()
        } else {
            frame_line(i + 1, frame)
        };
        writeln!(out, "{line}").map_err(DecodeError::Read)?;
    }
    match file.error {
        Some(e) => {
            if json {
                let line =
                    json!({ "capture_error": e.to_string(), "frame": e.frame, "offset": e.offset });
                writeln!(out, "{line}").map_err(DecodeError::Read)?;
            }
            Err(DecodeError::Capture(e))
        }
        None => Ok(()),
    }
}

fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn field_value(v: &FieldValue) -> Value {
    match v {
        FieldValue::Uint(n) => json!(n),
        FieldValue::Bool(b) => json!(b),
        FieldValue::Text(t) => json!(t),
    }
}

fn icrc_ok(d: &DecodedFrame) -> Value {
    match row_from(0, 0, d).icrc {
        IcrcStatus::Valid => Value::Bool(true),
        IcrcStatus::Invalid => Value::Bool(false),
        IcrcStatus::Absent => Value::Null,
    }
}

/// One JSON Lines object for a frame.
pub fn frame_json(number: usize, frame: &CapturedFrame) -> Value {
    let d = dissect(&frame.data, frame.link_type);
    let mut fields = Map::new();
    for f in d.layers.iter().flat_map(|l| l.fields.iter()) {
        // The first occurrence wins, as `DecodedFrame::field` reads it.
        fields
            .entry(f.name.clone())
            .or_insert_with(|| field_value(&f.value));
    }
    json!({
        "frame": number,
        "time": seconds(frame.timestamp_ns),
        "layers": d.layers.iter().map(|l| l.name.clone()).collect::<Vec<_>>(),
        "fields": fields,
        "icrc_ok": icrc_ok(&d),
        "error": d.error.as_ref().map(|e| e.to_string()),
    })
}

/// One readable line for a frame.
pub fn frame_line(number: usize, frame: &CapturedFrame) -> String {
    let d = dissect(&frame.data, frame.link_type);
    let row = row_from(number, frame.timestamp_ns, &d);
    let icrc = match row.icrc {
        IcrcStatus::Valid => "ICRC ok",
        IcrcStatus::Invalid => "ICRC BAD",
        IcrcStatus::Absent => "no ICRC",
    };
    format!(
        "{number:>5} {:>17.9} {} -> {} {}B {icrc} {}",
        seconds(frame.timestamp_ns),
        if row.source.is_empty() {
            "?"
        } else {
            &row.source
        },
        if row.destination.is_empty() {
            "?"
        } else {
            &row.destination
        },
        row.len,
        row.info
    )
}
