//! ERF (Extensible Record Format) records, the link type pcap and pcapng files carry as
//! LINKTYPE_ERF (197, tcpdump.org's link-type list). `ibdump` writes its InfiniBand
//! captures this way on a ConnectX NIC: one ERF record per packet, record type 21.
//!
//! ```text
//! bytes 0-7   timestamp, 32.32 fixed-point seconds, little-endian
//! byte  8     bit 7: an extension header follows; bits 6-0: record type
//! byte  9     flags: capture interface (bits 0-1), varying length (2), truncated (3),
//!             receive error (4), data-stream error (5)
//! bytes 10-11 rlen, the record's length with this header (big-endian)
//! bytes 12-13 loss counter / colour
//! bytes 14-15 wlen, the packet's length on the wire (big-endian)
//! then 8-byte extension headers, each with bit 7 of its first byte set when another
//! follows; then, for the Ethernet types, 2 bytes (offset and pad) before the frame.
//! ```
//! Record type numbers are those of Wireshark's `wiretap/erf_record.h` (Endace's list):
//! 2, 11, 16 and 20 are Ethernet, 21 is InfiniBand (LRH first), 25 an InfiniBand link
//! packet (flow control, no LRH).

use super::pcap::LinkType;

/// LINKTYPE_ERF.
pub const LINKTYPE_ERF: u32 = 197;
/// Bytes of the ERF header before any extension header.
pub const HEADER_LEN: usize = 16;
/// Bytes of one extension header.
pub const EXT_HEADER_LEN: usize = 8;
/// Bytes before an Ethernet record's frame: the offset and pad bytes.
pub const ETH_PAD_LEN: usize = 2;

/// ERF record type 21: an InfiniBand packet from its LRH.
pub const TYPE_INFINIBAND: u8 = 21;
/// ERF record type 25: an InfiniBand link packet (credit flow control).
pub const TYPE_INFINIBAND_LINK: u8 = 25;
/// The Ethernet record types: plain, coloured, DSM-coloured, hash-coloured.
pub const TYPES_ETHERNET: [u8; 4] = [2, 11, 16, 20];

/// Where the packet of one ERF record is, within the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErfRecord {
    /// The record type (bits 6-0 of byte 8).
    pub kind: u8,
    pub flags: u8,
    pub rlen: u16,
    pub wlen: u16,
    pub ext_headers: usize,
    /// The packet's first byte, counted from the record's.
    pub payload_offset: usize,
    /// The packet's bytes present: what rlen and the capture hold, at most wlen.
    pub payload_len: usize,
}

/// Why an ERF record was refused, at a byte of the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErfError {
    pub at: usize,
    pub message: String,
}

impl ErfRecord {
    /// Reads the header of `record` (one pcap record's data) and locates its packet.
    pub fn parse(record: &[u8]) -> Result<ErfRecord, ErfError> {
        let fail = |at, message: String| Err(ErfError { at, message });
        if record.len() < HEADER_LEN {
            let n = record.len();
            return fail(
                0,
                format!("an ERF header takes {HEADER_LEN} bytes; the record holds {n}"),
            );
        }
        let be16 = |at: usize| u16::from_be_bytes([record[at], record[at + 1]]);
        let (kind, flags, rlen, wlen) = (record[8] & 0x7F, record[9], be16(10), be16(14));
        let mut at = HEADER_LEN;
        let mut more = record[8] & 0x80 != 0;
        let mut ext_headers = 0;
        while more {
            if at + EXT_HEADER_LEN > record.len() {
                return fail(
                    at,
                    format!("extension header {} is cut off", ext_headers + 1),
                );
            }
            more = record[at] & 0x80 != 0;
            (at, ext_headers) = (at + EXT_HEADER_LEN, ext_headers + 1);
        }
        if TYPES_ETHERNET.contains(&kind) {
            at += ETH_PAD_LEN;
        }
        let rlen_at = 10;
        if usize::from(rlen) < at {
            return fail(
                rlen_at,
                format!("rlen {rlen} is shorter than the record's {at} header bytes"),
            );
        }
        if usize::from(rlen) > record.len() {
            let n = record.len();
            return fail(
                rlen_at,
                format!("rlen says {rlen} bytes but the record holds {n}"),
            );
        }
        let payload_len = (usize::from(rlen) - at).min(usize::from(wlen));
        Ok(ErfRecord {
            kind,
            flags,
            rlen,
            wlen,
            ext_headers,
            payload_offset: at,
            payload_len,
        })
    }

    /// The link type of the packet inside, when the lab reads it.
    pub fn link_type(&self) -> Option<LinkType> {
        match self.kind {
            TYPE_INFINIBAND => Some(LinkType::Infiniband),
            k if TYPES_ETHERNET.contains(&k) => Some(LinkType::Ethernet),
            _ => None,
        }
    }
}

/// An ERF record type the lab does not read, named for the sentence "… has NAME, type N".
pub fn unread_type(kind: u8) -> &'static str {
    match kind {
        1 | 10 | 15 | 17 | 19 => "an ERF PoS HDLC record",
        3 | 4 | 7 | 9 | 12 | 18 => "an ERF ATM record",
        22 => "an ERF IPv4 record (no link header)",
        23 => "an ERF IPv6 record (no link header)",
        24 => "an ERF raw link record",
        TYPE_INFINIBAND_LINK => "an ERF InfiniBand link record (credit flow control, no LRH)",
        27 => "an ERF provenance metadata record",
        48 => "an ERF padding record",
        _ => "an ERF record of a type the lab does not read",
    }
}

/// An ERF record around `packet` with no extension header, for fixtures and tests:
/// `kind` with its Ethernet pad bytes when it is an Ethernet type, rlen and wlen exact.
pub fn emit_record(kind: u8, timestamp_ns: u64, packet: &[u8]) -> Vec<u8> {
    let pad = if TYPES_ETHERNET.contains(&kind) {
        ETH_PAD_LEN
    } else {
        0
    };
    let rlen = HEADER_LEN + pad + packet.len();
    let secs = timestamp_ns / 1_000_000_000;
    let frac = ((timestamp_ns % 1_000_000_000) << 32) / 1_000_000_000;
    let mut out = Vec::with_capacity(rlen);
    out.extend_from_slice(&((secs << 32) | frac).to_le_bytes());
    out.extend_from_slice(&[kind & 0x7F, 0]);
    out.extend_from_slice(&(rlen.min(0xFFFF) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(packet.len().min(0xFFFF) as u16).to_be_bytes());
    out.resize(HEADER_LEN + pad, 0);
    out.extend_from_slice(packet);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_infiniband_record_locates_its_packet() {
        let rec = emit_record(TYPE_INFINIBAND, 1_500_000_000, &[0xAB; 30]);
        let r = ErfRecord::parse(&rec).unwrap();
        assert_eq!((r.kind, r.payload_offset, r.payload_len), (21, 16, 30));
        assert_eq!(r.link_type(), Some(LinkType::Infiniband));
        let eth = ErfRecord::parse(&emit_record(2, 0, &[1; 60])).unwrap();
        assert_eq!((eth.payload_offset, eth.payload_len), (18, 60));
        assert_eq!(eth.link_type(), Some(LinkType::Ethernet));
    }

    #[test]
    fn extension_headers_are_skipped_and_padding_after_wlen_is_not_packet() {
        let mut rec = emit_record(TYPE_INFINIBAND, 0, &[7; 24]);
        rec[8] |= 0x80;
        // Two extension headers (the first says another follows), then 8 bytes of padding.
        let ext = [[0x83, 0, 0, 0, 0, 0, 0, 1], [0x03, 0, 0, 0, 0, 0, 0, 2]];
        for (i, e) in ext.iter().enumerate() {
            rec.splice(16 + 8 * i..16 + 8 * i, e.iter().copied());
        }
        rec.extend_from_slice(&[0; 8]);
        let rlen = rec.len() as u16;
        rec[10..12].copy_from_slice(&rlen.to_be_bytes());
        let r = ErfRecord::parse(&rec).unwrap();
        assert_eq!(
            (r.ext_headers, r.payload_offset, r.payload_len),
            (2, 32, 24)
        );
    }

    #[test]
    fn a_cut_or_lying_record_is_refused_at_its_byte() {
        let e = ErfRecord::parse(&[0; 10]).unwrap_err();
        assert_eq!(e.at, 0);
        let mut rec = emit_record(TYPE_INFINIBAND, 0, &[0; 20]);
        rec[10..12].copy_from_slice(&200u16.to_be_bytes());
        let e = ErfRecord::parse(&rec).unwrap_err();
        assert_eq!(e.at, 10);
        assert!(e.message.contains("rlen says 200"), "{}", e.message);
        rec[10..12].copy_from_slice(&8u16.to_be_bytes());
        assert!(ErfRecord::parse(&rec)
            .unwrap_err()
            .message
            .contains("shorter"));
        rec[8] |= 0x80;
        rec.truncate(20);
        assert_eq!(ErfRecord::parse(&rec).unwrap_err().at, 16);
    }
}
