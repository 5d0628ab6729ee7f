//! pcap and pcapng capture files, via the `pcap-file` crate (pure Rust, works on byte
//! slices, so it builds for wasm32).
//!
//! Reading never panics and never gives up silently: frames decoded before a corrupt
//! spot are kept, and [`CaptureFile::error`] says which frame failed at which file
//! offset. Writing uses nanosecond timestamps: the pcap nanosecond magic 0xA1B23C4D,
//! and an `if_tsresol` of 9 in the pcapng Interface Description Block
//! (draft-ietf-opsawg-pcapng §4.2).

use super::error::FrameError;
use super::roce::{summarize, RoceSummary};
use super::{ErrorKind, Header, WireError};
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
    let magic = bytes.get(..4).map(|m| [m[0], m[1], m[2], m[3]]);
    match magic {
        Some([0x0A, 0x0D, 0x0D, 0x0A]) => read_pcapng(bytes),
        Some(m) if is_pcap_magic(m) => read_pcap(bytes),
        _ => CaptureFile {
            format: None,
            frames: Vec::new(),
            error: Some(CaptureError {
                frame: 0,
                offset: 0,
                message: "not a pcap or pcapng file (unknown magic number)".into(),
            }),
        },
    }
}

fn is_pcap_magic(m: [u8; 4]) -> bool {
    let le = u32::from_le_bytes(m);
    matches!(le, 0xA1B2_C3D4 | 0xD4C3_B2A1 | 0xA1B2_3C4D | 0x4D3C_B2A1)
}

fn read_pcap(bytes: &[u8]) -> CaptureFile {
    let mut out = CaptureFile {
        format: Some(CaptureFormat::Pcap),
        frames: Vec::new(),
        error: None,
    };
    let (mut rem, parser) = match PcapParser::new(bytes) {
        Ok(x) => x,
        Err(e) => {
            out.error = Some(CaptureError {
                frame: 0,
                offset: 0,
                message: describe(&e),
            });
            return out;
        }
    };
    let header = parser.header();
    let link = LinkType::from_datalink(header.datalink);
    let frac_ns: u64 = match header.ts_resolution {
        TsResolution::MicroSecond => 1_000,
        TsResolution::NanoSecond => 1,
    };
    while !rem.is_empty() {
        let offset = bytes.len() - rem.len();
        let frame = out.frames.len() + 1;
        // Raw records: real captures often have orig_len > snaplen, which the crate's
        // validated packet type rejects.
        match parser.next_raw_packet(rem) {
            Ok((next, p)) => {
                out.frames.push(CapturedFrame {
                    timestamp_ns: u64::from(p.ts_sec)
                        .saturating_mul(1_000_000_000)
                        .saturating_add(u64::from(p.ts_frac).saturating_mul(frac_ns)),
                    orig_len: p.orig_len,
                    link_type: link,
                    data: p.data.into_owned(),
                });
                rem = next;
            }
            Err(e) => {
                out.error = Some(CaptureError {
                    frame,
                    offset,
                    message: describe(&e),
                });
                break;
            }
        }
    }
    out
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

fn read_pcapng(bytes: &[u8]) -> CaptureFile {
    let mut out = CaptureFile {
        format: Some(CaptureFormat::PcapNg),
        frames: Vec::new(),
        error: None,
    };
    let (mut rem, mut parser) = match PcapNgParser::new(bytes) {
        Ok(x) => x,
        Err(e) => {
            out.error = Some(CaptureError {
                frame: 0,
                offset: 0,
                message: describe(&e),
            });
            return out;
        }
    };
    while !rem.is_empty() {
        let offset = bytes.len() - rem.len();
        let frame = out.frames.len() + 1;
        let block = match parser.next_block(rem) {
            Ok((next, b)) => {
                rem = next;
                b
            }
            Err(e) => {
                out.error = Some(CaptureError {
                    frame,
                    offset,
                    message: describe(&e),
                });
                break;
            }
        };
        let iface = |id: u32| -> Option<(LinkType, Option<u8>)> {
            let i = parser.interfaces().get(usize::try_from(id).ok()?)?;
            let res = i.options.iter().find_map(|o| match o {
                InterfaceDescriptionOption::IfTsResol(r) => Some(*r),
                _ => None,
            });
            Some((LinkType::from_datalink(i.linktype), res))
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
            _ => continue,
        };
        let Some((link, res)) = iface(id) else {
            out.error = Some(CaptureError {
                frame,
                offset,
                message: format!(
                    "packet refers to interface {id}, which no Interface Description Block defined"
                ),
            });
            break;
        };
        out.frames.push(CapturedFrame {
            timestamp_ns: ticks.map(|t| ticks_to_ns(t, res)).unwrap_or(0),
            orig_len,
            link_type: link,
            data: data.into_owned(),
        });
    }
    out
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

/// Summarizes every frame of a capture, continuing past bad ones; frame numbers in
/// errors count from 1.
pub fn summarize_frames(file: &CaptureFile) -> Vec<Result<RoceSummary, FrameError>> {
    file.frames
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let r = match f.link_type {
                LinkType::Ethernet => summarize(&f.data),
                other => Err(WireError::new(
                    Header::Capture,
                    0,
                    ErrorKind::NotRoce {
                        reason: "link type (summaries cover RoCE v2 on Ethernet)",
                        value: u64::from(other.number()),
                    },
                )),
            };
            r.map_err(|error| FrameError {
                frame: i + 1,
                error,
            })
        })
        .collect()
}
