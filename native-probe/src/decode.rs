//! `native-probe decode FILE [--json]`: the lab's dissector over a pcap/pcapng file.
//!
//! With `--json`, one object per frame (JSON Lines): `frame`, `time`, `layers`, `fields`
//! (Wireshark display-filter names to numbers, booleans or strings), `icrc_ok` and
//! `error`. A file that breaks off part-way is decoded up to the break, then the
//! located capture error is printed as one last line and the exit status is non-zero.

use std::{
    io::{self, Write},
    path::{Path, PathBuf},
};

use engine::capture::{
    dissect,
    listing::{row_from, IcrcStatus},
    pcap::{read_capture, CaptureError, CaptureFile, CapturedFrame},
    DecodedFrame, FieldValue,
};
use serde_json::{json, Map, Value};

use crate::{cli::DecodeArgs, output};

/// Why the capture could not be decoded to its end; both name the file. (A failed write
/// of the frames is an [`output::OutputError`] instead.)
#[derive(Debug)]
pub enum DecodeError {
    Read {
        file: PathBuf,
        error: io::Error,
    },
    /// Where the capture breaks off or stops making sense: the frame and byte offset.
    Capture {
        file: PathBuf,
        error: CaptureError,
    },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Read { file, error } => {
                write!(f, "cannot read {}: {error}", file.display())
            }
            DecodeError::Capture { file, error } => write!(f, "{}: {error}", file.display()),
        }
    }
}

impl std::error::Error for DecodeError {}

pub fn run(args: &DecodeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let capture = read_file(&args.file)?;
    output::to_stdout(|out| write_frames(&capture, args.json, out))?;
    match capture.error {
        Some(error) => Err(DecodeError::Capture {
            file: args.file.clone(),
            error,
        }
        .into()),
        None => Ok(()),
    }
}

/// The frames of `path` up to its end or its first capture error.
fn read_file(path: &Path) -> Result<CaptureFile, DecodeError> {
    let bytes = std::fs::read(path).map_err(|error| DecodeError::Read {
        file: path.to_path_buf(),
        error,
    })?;
    Ok(read_capture(&bytes))
}

/// One line per frame, then, with `json`, the capture error as one last object.
fn write_frames(capture: &CaptureFile, json: bool, out: &mut dyn Write) -> io::Result<()> {
    for (i, frame) in capture.frames.iter().enumerate() {
        if json {
            writeln!(out, "{}", frame_json(i + 1, frame))?;
        } else {
            writeln!(out, "{}", frame_line(i + 1, frame))?;
        }
    }
    match (&capture.error, json) {
        (Some(e), true) => writeln!(
            out,
            "{}",
            json!({ "capture_error": e.to_string(), "frame": e.frame, "offset": e.offset })
        ),
        _ => Ok(()),
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
