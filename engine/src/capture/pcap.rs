//! pcap and pcapng capture files, via the `pcap-file` crate (pure Rust, works on byte
//! slices, so it builds for wasm32).
//!
//! Reading never panics and never gives up silently: frames decoded before a corrupt
//! spot are kept, and [`CaptureFile::error`] says which frame failed at which file
//! offset. Writing uses nanosecond timestamps: the pcap nanosecond magic 0xA1B23C4D,
//! and an `if_tsresol` of 9 in the pcapng Interface Description Block
//! (draft-ietf-opsawg-pcapng §4.2).

use super::erf::{ErfError, ErfRecord, LINKTYPE_ERF};
use core::fmt;
use core::time::Duration;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapParser, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::SectionHeaderBlock;
use pcap_file::pcapng::{Block, PcapNgParser, PcapNgWriter};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Link-layer type of a capture (tcpdump.org LINKTYPE_* values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LinkType {
    /// LINKTYPE_ETHERNET (1).
    Ethernet,
    /// LINKTYPE_INFINIBAND (247): native IB packets starting at the LRH.
    Infiniband,
    Other(u32),
}

impl LinkType {
    pub fn number(self) -> u32 {
        match self {
            LinkType::Ethernet => 1,
            LinkType::Infiniband => 247,
            LinkType::Other(n) => n,
        }
    }
    pub fn from_number(n: u32) -> Self {
        match n {
            1 => LinkType::Ethernet,
            247 => LinkType::Infiniband,
            n => LinkType::Other(n),
        }
    }
    fn datalink(self) -> DataLink {
        DataLink::from(self.number())
    }
    fn from_datalink(d: DataLink) -> Self {
        Self::from_number(u32::from(d))
    }
}

/// One captured frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapturedFrame {
    /// Nanoseconds since the Unix epoch (or since the start of a simulation).
    pub timestamp_ns: u64,
    /// Length on the wire; larger than `data.len()` when the capture was truncated.
    pub orig_len: u32,
    pub link_type: LinkType,
    pub data: Vec<u8>,
}

/// File format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CaptureFormat {
    Pcap,
    PcapNg,
}

/// Where reading a capture went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureError {
    /// Number (from 1) of the frame being read; 0 for the file header.
    pub frame: usize,
    /// Byte offset in the file.
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.frame == 0 {
            write!(
                f,
                "capture header at byte {}: {}",
                self.offset, self.message
            )
        } else {
            write!(
                f,
                "frame {} at byte {}: {}",
                self.frame, self.offset, self.message
            )
        }
    }
}

impl std::error::Error for CaptureError {}

/// A capture as read: the frames, and the error that stopped reading, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureFile {
    pub format: Option<CaptureFormat>,
    pub frames: Vec<CapturedFrame>,
    pub error: Option<CaptureError>,
}

fn describe(e: &PcapError) -> String {
    match e {
        PcapError::IncompleteBuffer => "file ends in the middle of a record".to_string(),
        other => other.to_string(),
    }
}

/// Reads a pcap or pcapng file from memory, recognised by its magic number.
pub fn read_capture(bytes: &[u8]) -> CaptureFile {
    let mut cursor = CaptureCursor::new(bytes);
    let mut frames = Vec::new();
    while let Some(f) = cursor.next_frame(bytes) {
        frames.push(CapturedFrame {
            timestamp_ns: f.timestamp_ns,
            orig_len: f.orig_len,
            link_type: f.link_type,
            data: f.data(bytes).to_vec(),
        });
    }
    CaptureFile {
        format: cursor.format(),
        frames,
        error: cursor.into_error(),
    }
}

fn is_pcap_magic(m: [u8; 4]) -> bool {
    let le = u32::from_le_bytes(m);
    matches!(le, 0xA1B2_C3D4 | 0xD4C3_B2A1 | 0xA1B2_3C4D | 0x4D3C_B2A1)
}

/// Nanoseconds per `ticks` under an `if_tsresol` value (pcapng §4.2: high bit clear
/// means 10^-n s, set means 2^-n s; absent means microseconds).
fn ticks_to_ns(ticks: u64, tsresol: Option<u8>) -> u64 {
    let r = tsresol.unwrap_or(6);
    let ns = if r & 0x80 == 0 {
        let exp = u32::from(r);
        if exp <= 9 {
            u128::from(ticks) * 10u128.pow(9 - exp)
        } else {
            u128::from(ticks) / 10u128.saturating_pow(exp - 9).max(1)
        }
    } else {
        let exp = u32::from(r & 0x7F).min(127);
        (u128::from(ticks) * 1_000_000_000) >> exp
    };
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// One frame of a capture, located in the file's bytes rather than copied out of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameRef {
    /// Nanoseconds since the Unix epoch (or since the start of a simulation).
    pub timestamp_ns: u64,
    /// Length on the wire.
    pub orig_len: u32,
    pub link_type: LinkType,
    /// Where the captured bytes start in the file.
    pub offset: usize,
    /// How many bytes were captured.
    pub len: u32,
}

impl FrameRef {
    /// The captured bytes, from the file this frame was found in (empty if `file` is
    /// another file too short to hold them).
    pub fn data<'a>(&self, file: &'a [u8]) -> &'a [u8] {
        let end = self.offset.saturating_add(self.len as usize);
        file.get(self.offset..end).unwrap_or(&[])
    }
}

enum Parser {
    Pcap {
        parser: PcapParser,
        link: LinkType,
        frac_ns: u64,
    },
    PcapNg(Box<PcapNgParser>),
    /// The header could not be read, or reading stopped.
    Done,
}

/// Reads a capture one frame at a time, so a caller can spread a big file over several
/// turns of an event loop: [`CaptureCursor::next_frame`] until it returns `None`, then
/// [`CaptureCursor::error`]. The file's bytes are passed to every call rather than
/// borrowed, so the caller keeps ownership of them between turns.
pub struct CaptureCursor {
    format: Option<CaptureFormat>,
    parser: Parser,
    /// Byte offset of the next record.
    offset: usize,
    frames: usize,
    error: Option<CaptureError>,
}

impl CaptureCursor {
    /// Reads the file header; a file that is neither pcap nor pcapng yields no frames
    /// and a located error.
    pub fn new(bytes: &[u8]) -> Self {
        let mut c = CaptureCursor {
            format: None,
            parser: Parser::Done,
            offset: 0,
            frames: 0,
            error: None,
        };
        let magic = bytes.get(..4).map(|m| [m[0], m[1], m[2], m[3]]);
        let header_error = |e: &PcapError| CaptureError {
            frame: 0,
            offset: 0,
            message: describe(e),
        };
        match magic {
            Some([0x0A, 0x0D, 0x0D, 0x0A]) => {
                c.format = Some(CaptureFormat::PcapNg);
                match PcapNgParser::new(bytes) {
                    Ok((rem, parser)) => {
                        c.offset = bytes.len() - rem.len();
                        c.parser = Parser::PcapNg(Box::new(parser));
                    }
                    Err(e) => c.error = Some(header_error(&e)),
                }
            }
            Some(m) if is_pcap_magic(m) => {
                c.format = Some(CaptureFormat::Pcap);
                match PcapParser::new(bytes) {
                    Ok((rem, parser)) => {
                        let header = parser.header();
                        c.offset = bytes.len() - rem.len();
                        c.parser = Parser::Pcap {
                            link: LinkType::from_datalink(header.datalink),
                            frac_ns: match header.ts_resolution {
                                TsResolution::MicroSecond => 1_000,
                                TsResolution::NanoSecond => 1,
                            },
                            parser,
                        };
                    }
                    Err(e) => c.error = Some(header_error(&e)),
                }
            }
            _ => {
                let message = match bytes.len() {
                    0 => "the file is empty (0 bytes): not a capture".to_string(),
                    n @ 1..=3 => format!("the file holds only {n} bytes: too short for a capture"),
                    _ => "not a pcap or pcapng file (unknown magic number)".to_string(),
                };
                c.error = Some(CaptureError {
                    frame: 0,
                    offset: 0,
                    message,
                })
            }
        }
        c
    }

    /// The file format, when the magic number was recognised.
    pub fn format(&self) -> Option<CaptureFormat> {
        self.format
    }

    /// Bytes of the file read so far (for a progress bar).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Frames returned so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The error that stopped reading, if any.
    pub fn error(&self) -> Option<&CaptureError> {
        self.error.as_ref()
    }

    /// Consumes the cursor, giving the error that stopped reading, if any.
    pub fn into_error(self) -> Option<CaptureError> {
        self.error
    }

    fn stop(&mut self, message: String) -> Option<FrameRef> {
        self.stop_at(self.offset, message)
    }

    fn stop_at(&mut self, offset: usize, message: String) -> Option<FrameRef> {
        self.error = Some(CaptureError {
            frame: self.frames + 1,
            offset,
            message,
        });
        self.parser = Parser::Done;
        None
    }

    /// The next frame of `bytes` (the same bytes given to [`CaptureCursor::new`]), or
    /// `None` at the end of the file or at the first corrupt record.
    pub fn next_frame(&mut self, bytes: &[u8]) -> Option<FrameRef> {
        self.next_frame_of(bytes, true)
    }

    /// Like [`CaptureCursor::next_frame`] while the file is still arriving: `bytes` is
    /// the part read so far (it only ever grows) and `complete` says whether that is all
    /// of it. A record cut off by the end of an incomplete `bytes` is not an error: the
    /// call returns `None` and the next call, with more bytes, reads it.
    pub fn next_frame_of(&mut self, bytes: &[u8], complete: bool) -> Option<FrameRef> {
        loop {
            let rem = bytes.get(self.offset..).unwrap_or(&[]);
            if rem.is_empty() {
                if complete {
                    self.parser = Parser::Done;
                }
                return None;
            }
            // Where a record's data starts in the file; the parsers hand out sub-slices of
            // their input, so this is pointer arithmetic on the same allocation.
            let start_of = |data: &[u8]| -> Option<usize> {
                let at = (data.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
                (at.checked_add(data.len())? <= bytes.len()).then_some(at)
            };
            let (next, frame) = match &mut self.parser {
                Parser::Done => return None,
                Parser::Pcap {
                    parser,
                    link,
                    frac_ns,
                } => match parser.next_raw_packet(rem) {
                    // Raw records: real captures often have orig_len > snaplen, which the
                    // crate's validated packet type rejects.
                    Ok((next, p)) => {
                        let Some(offset) = start_of(&p.data) else {
                            return self.stop("record data outside the file".into());
                        };
                        (
                            next.len(),
                            FrameRef {
                                timestamp_ns: u64::from(p.ts_sec)
                                    .saturating_mul(1_000_000_000)
                                    .saturating_add(u64::from(p.ts_frac).saturating_mul(*frac_ns)),
                                orig_len: p.orig_len,
                                link_type: *link,
                                offset,
                                len: p.data.len() as u32,
                            },
                        )
                    }
                    Err(PcapError::IncompleteBuffer) if !complete => return None,
                    Err(e) => return self.stop(describe(&e)),
                },
                Parser::PcapNg(parser) => {
                    let (next, block) = match parser.next_block(rem) {
                        Ok(x) => x,
                        Err(PcapError::IncompleteBuffer) if !complete => return None,
                        Err(e) => return self.stop(describe(&e)),
                    };
                    let (id, ticks, orig_len, data) = match block {
                        // The crate stores the raw 64-bit tick count as if it were nanoseconds.
                        Block::EnhancedPacket(p) => (
                            p.interface_id,
                            Some(p.timestamp.as_nanos() as u64),
                            p.original_len,
                            p.data,
                        ),
                        Block::Packet(p) => (
                            u32::from(p.interface_id),
                            Some(p.timestamp),
                            p.original_len,
                            p.data,
                        ),
                        Block::SimplePacket(p) => (0, None, p.original_len, p.data),
                        _ => {
                            self.offset = bytes.len() - next.len();
                            continue;
                        }
                    };
                    let iface = usize::try_from(id)
                        .ok()
                        .and_then(|i| parser.interfaces().get(i))
                        .map(|i| {
                            let res = i.options.iter().find_map(|o| match o {
                                InterfaceDescriptionOption::IfTsResol(r) => Some(*r),
                                _ => None,
                            });
                            (LinkType::from_datalink(i.linktype), res)
                        });
                    let Some((link, res)) = iface else {
                        return self.stop(format!(
                            "packet refers to interface {id}, which no Interface Description Block defined"
                        ));
                    };
                    let Some(offset) = start_of(&data) else {
                        return self.stop("record data outside the file".into());
                    };
                    (
                        next.len(),
                        FrameRef {
                            timestamp_ns: ticks.map(|t| ticks_to_ns(t, res)).unwrap_or(0),
                            orig_len,
                            link_type: link,
                            offset,
                            len: data.len() as u32,
                        },
                    )
                }
            };
            let frame = match unwrap_erf(frame, bytes) {
                Ok(frame) => frame,
                Err(e) => {
                    return self.stop_at(frame.offset + e.at, format!("ERF record: {}", e.message))
                }
            };
            self.offset = bytes.len() - next;
            self.frames += 1;
            return Some(frame);
        }
    }
}

/// The packet inside an ERF record, when the lab reads its record type; other frames,
/// and ERF records of other types (which the dissector names), as they are.
fn unwrap_erf(frame: FrameRef, bytes: &[u8]) -> Result<FrameRef, ErfError> {
    if frame.link_type != LinkType::Other(LINKTYPE_ERF) {
        return Ok(frame);
    }
    let record = ErfRecord::parse(frame.data(bytes))?;
    Ok(match record.link_type() {
        Some(link_type) => FrameRef {
            orig_len: u32::from(record.wlen),
            link_type,
            offset: frame.offset + record.payload_offset,
            len: record.payload_len as u32,
            ..frame
        },
        None => frame,
    })
}

fn write_error(frame: usize, e: PcapError) -> CaptureError {
    CaptureError {
        frame,
        offset: 0,
        message: describe(&e),
    }
}

/// Writes a little-endian, nanosecond-resolution pcap file. Every frame must have the
/// same link type (pcap has one per file).
pub fn write_pcap(frames: &[CapturedFrame]) -> Result<Vec<u8>, CaptureError> {
    let link = frames
        .first()
        .map(|f| f.link_type)
        .unwrap_or(LinkType::Ethernet);
    let header = PcapHeader {
        datalink: link.datalink(),
        ts_resolution: TsResolution::NanoSecond,
        endianness: Endianness::Little,
        snaplen: 262_144,
        ..PcapHeader::default()
    };
    let mut w = PcapWriter::with_header(Vec::new(), header).map_err(|e| write_error(0, e))?;
    for (i, f) in frames.iter().enumerate() {
        if f.link_type != link {
            return Err(CaptureError {
                frame: i + 1,
                offset: 0,
                message: "pcap holds one link type per file; use pcapng for mixed captures".into(),
            });
        }
        let p = PcapPacket::new(
            Duration::from_nanos(f.timestamp_ns),
            f.orig_len.max(f.data.len() as u32),
            &f.data,
        );
        w.write_packet(&p).map_err(|e| write_error(i + 1, e))?;
    }
    Ok(w.into_writer())
}

/// Writes a little-endian pcapng file with one Interface Description Block per link
/// type, nanosecond timestamps.
pub fn write_pcapng(frames: &[CapturedFrame]) -> Result<Vec<u8>, CaptureError> {
    let section = SectionHeaderBlock {
        endianness: Endianness::Little,
        ..SectionHeaderBlock::default()
    };
    let mut w =
        PcapNgWriter::with_section_header(Vec::new(), section).map_err(|e| write_error(0, e))?;
    let mut links: Vec<LinkType> = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let id = match links.iter().position(|l| *l == f.link_type) {
            Some(id) => id,
            None => {
                let idb = InterfaceDescriptionBlock {
                    linktype: f.link_type.datalink(),
                    snaplen: 0,
                    options: vec![InterfaceDescriptionOption::IfTsResol(9)],
                };
                w.write_pcapng_block(idb)
                    .map_err(|e| write_error(i + 1, e))?;
                links.push(f.link_type);
                links.len() - 1
            }
        };
        let epb = EnhancedPacketBlock {
            interface_id: id as u32,
            timestamp: Duration::from_nanos(f.timestamp_ns),
            original_len: f.orig_len.max(f.data.len() as u32),
            data: Cow::Borrowed(&f.data),
            options: vec![],
        };
        w.write_pcapng_block(epb)
            .map_err(|e| write_error(i + 1, e))?;
    }
    Ok(w.into_inner())
}
