//! `native-probe decode FILE [--json]`: the lab's decoder over a pcap/pcapng file.
//!
//! Without `--json`, one line per frame: number, time, source -> destination, length,
//! ICRC verdict and the Info column. A well-formed RoCE v2 frame is read in place by the
//! packet list's fast path (`summarize_roce`, ICRC checked); any other frame goes through
//! the dissector, which says what is wrong with it.
//!
//! With `--json`, one object per frame (JSON Lines) from the full dissector: `frame`,
//! `time`, `layers`, `fields` (Wireshark display-filter names to numbers, booleans or
//! strings), `icrc_ok` and `error`, streamed by serde with the keys in sorted order.
//!
//! The file is read once into memory and its records are decoded where they lie. A file
//! that breaks off part-way is decoded up to the break, then (with `--json`) the located
//! capture error is printed as one last line, and the exit status is non-zero.

use std::{
    fmt,
    io::{self, Write},
    path::{Path, PathBuf},
};

use engine::capture::{
    dissect,
    listing::{icrc_status, row_from, summarize_roce, FrameSummary, IcrcStatus},
    pcap::{CaptureCursor, CaptureError, LinkType},
    DecodedFrame, FieldValue,
};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::json;

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
    let bytes = read_file(&args.file)?;
    let mut error = None;
    output::to_stdout(|out| {
        error = write_frames(&bytes, args.json, out)?;
        Ok(())
    })?;
    match error {
        Some(error) => Err(DecodeError::Capture {
            file: args.file.clone(),
            error,
        }
        .into()),
        None => Ok(()),
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, DecodeError> {
    std::fs::read(path).map_err(|error| DecodeError::Read {
        file: path.to_path_buf(),
        error,
    })
}

/// One line per frame of the capture in `bytes`, then, with `json`, the capture error as
/// one last object. Returns the error that stopped reading, if any.
fn write_frames(bytes: &[u8], json: bool, out: &mut dyn Write) -> io::Result<Option<CaptureError>> {
    let mut cursor = CaptureCursor::new(bytes);
    let mut number = 0;
    while let Some(frame) = cursor.next_frame(bytes) {
        number += 1;
        let data = frame.data(bytes);
        if json {
            let d = dissect(data, frame.link_type);
            serde_json::to_writer(&mut *out, &FrameJson::new(number, frame.timestamp_ns, &d))?;
            out.write_all(b"\n")?;
        } else {
            write_line(out, number, frame.timestamp_ns, data, frame.link_type)?;
        }
    }
    let error = cursor.into_error();
    if let (Some(e), true) = (&error, json) {
        let line = json!({ "capture_error": e.to_string(), "frame": e.frame, "offset": e.offset });
        writeln!(out, "{line}")?;
    }
    Ok(error)
}

/// Nanoseconds since the epoch as seconds with nine decimals, exactly.
struct Seconds(u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Right-aligned in 17 columns, as `{:>17.9}` would an f64.
        write!(
            f,
            "{:>7}.{:09}",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}

fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn icrc_text(icrc: IcrcStatus) -> &'static str {
    match icrc {
        IcrcStatus::Valid => "ICRC ok",
        IcrcStatus::Invalid => "ICRC BAD",
        IcrcStatus::Absent => "no ICRC",
    }
}

/// One readable line for a frame: from the fast path when it reads the frame, else from
/// the dissector's row (the same columns, and the error the fast path cannot name).
fn write_line(
    out: &mut dyn Write,
    number: usize,
    time_ns: u64,
    data: &[u8],
    link: LinkType,
) -> io::Result<()> {
    let fast = (link == LinkType::Ethernet)
        .then(|| summarize_roce(data))
        .flatten();
    match fast {
        Some(s) => write_fast_line(out, number, time_ns, &s),
        None => {
            let row = row_from(number, time_ns, &dissect(data, link));
            writeln!(
                out,
                "{number:>5} {} {} -> {} {}B {} {}",
                Seconds(time_ns),
                or_unknown(&row.source),
                or_unknown(&row.destination),
                row.len,
                icrc_text(row.icrc),
                row.info
            )
        }
    }
}

/// A host the dissector could not name is shown as `?`.
fn or_unknown(host: &str) -> &str {
    if host.is_empty() {
        "?"
    } else {
        host
    }
}

fn write_fast_line(
    out: &mut dyn Write,
    number: usize,
    time_ns: u64,
    s: &FrameSummary,
) -> io::Result<()> {
    writeln!(
        out,
        "{number:>5} {} {} -> {} {}B {} {}",
        Seconds(time_ns),
        s.source,
        s.destination,
        s.len,
        icrc_text(s.icrc),
        s.info()
    )
}

/// One frame's JSON Lines object, serialized as it is written.
struct FrameJson<'a> {
    number: usize,
    time_ns: u64,
    frame: &'a DecodedFrame,
    /// Every field once (the first occurrence wins, as `DecodedFrame::field` reads it), by
    /// name: the order of a JSON object serde_json builds.
    fields: Vec<(&'a str, &'a FieldValue)>,
}

impl<'a> FrameJson<'a> {
    fn new(number: usize, time_ns: u64, frame: &'a DecodedFrame) -> Self {
        let mut fields: Vec<(&str, &FieldValue)> = frame
            .layers
            .iter()
            .flat_map(|l| l.fields.iter())
            .map(|f| (f.name, &f.value))
            .collect();
        // Stable, so of equal names the first stays first for `dedup_by_key`.
        fields.sort_by_key(|&(name, _)| name);
        fields.dedup_by_key(|&mut (name, _)| name);
        FrameJson {
            number,
            time_ns,
            frame,
            fields,
        }
    }
}

impl Serialize for FrameJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.frame;
        let icrc_ok = match icrc_status(d) {
            IcrcStatus::Valid => Some(true),
            IcrcStatus::Invalid => Some(false),
            IcrcStatus::Absent => None,
        };
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("error", &d.error.as_ref().map(AsText))?;
        m.serialize_entry("fields", &Fields(&self.fields))?;
        m.serialize_entry("frame", &self.number)?;
        m.serialize_entry("icrc_ok", &icrc_ok)?;
        m.serialize_entry("layers", &Layers(d))?;
        m.serialize_entry("time", &seconds(self.time_ns))?;
        m.end()
    }
}

/// A value serialized as its `Display` text.
struct AsText<T>(T);

impl<T: fmt::Display> Serialize for AsText<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

struct Fields<'a>(&'a [(&'a str, &'a FieldValue)]);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            match value {
                FieldValue::Uint(n) => m.serialize_entry(name, n)?,
                FieldValue::Bool(b) => m.serialize_entry(name, b)?,
                FieldValue::Text(t) => m.serialize_entry(name, t)?,
            }
        }
        m.end()
    }
}

struct Layers<'a>(&'a DecodedFrame);

impl Serialize for Layers<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.layers.len()))?;
        for l in &self.0.layers {
            seq.serialize_element(l.name)?;
        }
        seq.end()
    }
}
