//! `native-probe decode FILE [--json]`: the lab's decoder over a pcap/pcapng file.
//!
//! Without `--json`, one line per frame: number, time, source -> destination, length,
//! ICRC verdict and the Info column. A well-formed RoCE v2 frame is read in place by the
//! packet list's fast path (`summarize_roce`, ICRC checked); any other frame goes through
//! the dissector, which says what is wrong with it.
//!
//! With `--json`, one object per frame (JSON Lines) from the full dissector: `frame`,
//! `time`, `layers`, `fields` (Wireshark display-filter names to numbers, booleans or
//! strings), `icrc_ok`, `vcrc_ok` (native InfiniBand frames; null for RoCE) and `error`,
//! streamed by serde with the keys in sorted order.
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
    listing::{icrc_status, row_from, summarize_roce, FrameSummary, HostAddr, IcrcStatus},
    pcap::{CaptureCursor, CaptureError, LinkType},
    DecodedFrame, FieldValue,
};
use engine::wire::Header;
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
    let mut line = Vec::new();
    while let Some(frame) = cursor.next_frame(bytes) {
        number += 1;
        let data = frame.data(bytes);
        if json {
            let d = dissect(data, frame.link_type);
            serde_json::to_writer(&mut *out, &FrameJson::new(number, frame.timestamp_ns, &d))?;
            out.write_all(b"\n")?;
        } else {
            write_line(
                out,
                &mut line,
                number,
                frame.timestamp_ns,
                data,
                frame.link_type,
            )?;
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
    line: &mut Vec<u8>,
    number: usize,
    time_ns: u64,
    data: &[u8],
    link: LinkType,
) -> io::Result<()> {
    let fast = (link == LinkType::Ethernet)
        .then(|| summarize_roce(data))
        .flatten();
    match fast {
        Some(s) => write_fast_line(out, line, number, time_ns, &s),
        None => write_dissected_line(out, number, time_ns, data, link),
    }
}

/// A frame's line from the dissector's row: the fast path's columns, and the error it
/// cannot name.
fn write_dissected_line(
    out: &mut dyn Write,
    number: usize,
    time_ns: u64,
    data: &[u8],
    link: LinkType,
) -> io::Result<()> {
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

/// A host the dissector could not name is shown as `?`.
fn or_unknown(host: &str) -> &str {
    if host.is_empty() {
        "?"
    } else {
        host
    }
}

/// A fast-path frame's line. Built in `line` (reused from frame to frame) and written with
/// one call, the integers through `itoa`: formatting everything through `core::fmt` was
/// most of the time the summary took (the decoding is a small part).
fn write_fast_line(
    out: &mut dyn Write,
    line: &mut Vec<u8>,
    number: usize,
    time_ns: u64,
    s: &FrameSummary,
) -> io::Result<()> {
    line.clear();
    push_number(line, number as u64, 5, b' ');
    line.push(b' ');
    push_seconds(line, time_ns);
    line.push(b' ');
    push_host(line, s.source)?;
    line.extend_from_slice(b" -> ");
    push_host(line, s.destination)?;
    line.push(b' ');
    push_number(line, u64::from(s.len), 0, b' ');
    line.extend_from_slice(b"B ");
    line.extend_from_slice(icrc_text(s.icrc).as_bytes());
    line.push(b' ');
    write!(line, "{}", s.info())?;
    line.push(b'\n');
    out.write_all(line)
}

/// `n` in decimal, right-aligned in `width` columns filled with `fill`.
fn push_number(line: &mut Vec<u8>, n: u64, width: usize, fill: u8) {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(n).as_bytes();
    line.resize(line.len() + width.saturating_sub(digits.len()), fill);
    line.extend_from_slice(digits);
}

/// The same text as [`Seconds`].
fn push_seconds(line: &mut Vec<u8>, ns: u64) {
    push_number(line, ns / 1_000_000_000, 7, b' ');
    line.push(b'.');
    push_number(line, ns % 1_000_000_000, 9, b'0');
}

/// The same text as `HostAddr`'s `Display`; IPv4, the common case, without `core::fmt`.
fn push_host(line: &mut Vec<u8>, host: HostAddr) -> io::Result<()> {
    match host {
        HostAddr::V4(octets) => {
            for (i, octet) in octets.into_iter().enumerate() {
                if i > 0 {
                    line.push(b'.');
                }
                push_number(line, u64::from(octet), 0, b' ');
            }
            Ok(())
        }
        other => write!(line, "{other}"),
    }
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
        // A native InfiniBand frame ends with a VCRC; RoCE v2 has none.
        let vcrc_ok = d
            .field("infiniband.variant.crc")
            .map(|_| !d.warnings.iter().any(|w| w.header == Header::Vcrc));
        let mut m = s.serialize_map(Some(7))?;
        m.serialize_entry("error", &d.error.as_ref().map(AsText))?;
        m.serialize_entry("fields", &Fields(&self.fields))?;
        m.serialize_entry("frame", &self.number)?;
        m.serialize_entry("icrc_ok", &icrc_ok)?;
        m.serialize_entry("layers", &Layers(d))?;
        m.serialize_entry("time", &seconds(self.time_ns))?;
        m.serialize_entry("vcrc_ok", &vcrc_ok)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-formatted fast line says exactly what the dissector's row says, for IPv4
    /// and IPv6, every opcode the generator makes, and bad ICRCs.
    #[test]
    fn the_fast_line_reads_as_the_dissected_line() {
        let mut frames = lab_tests::capture_gen::roce_frames(2_000);
        let bad = lab_tests::capture_gen::with_bad_icrcs(&mut frames, 97);
        assert!(bad > 0);
        let mut line = Vec::new();
        let (mut fast_frames, mut fast_bad) = (0, 0);
        for (i, frame) in frames.iter().enumerate() {
            // The fast path leaves a frame it cannot read whole to the dissector.
            let Some(s) = summarize_roce(&frame.data) else {
                continue;
            };
            fast_frames += 1;
            fast_bad += usize::from(s.icrc == IcrcStatus::Invalid);
            let (number, time) = (i + 1, frame.timestamp_ns + 123_456_789 * i as u64);
            let mut fast = Vec::new();
            write_fast_line(&mut fast, &mut line, number, time, &s).unwrap();
            let mut dissected = Vec::new();
            write_dissected_line(&mut dissected, number, time, &frame.data, frame.link_type)
                .unwrap();
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(dissected).unwrap()
            );
        }
        assert!(
            fast_frames > 1_900,
            "{fast_frames} of 2000 frames took the fast path"
        );
        // A flipped ICRC bit under a UDP checksum (the IPv6 frames') breaks that checksum
        // too, which sends the frame to the dissector; the IPv4 ones stay on the fast path.
        assert!(
            fast_bad > 0 && fast_bad < bad,
            "{fast_bad} of {bad} bad ICRCs"
        );
    }
}
