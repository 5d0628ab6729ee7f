//! The InfiniBand transport part of a packet, BTH through ICRC (IBTA Vol 1 §9.2–§9.3),
//! which RoCE v2 carries in UDP and native InfiniBand after its LRH [and GRH]: the one
//! walk that checks it fits, shared by both framings, their `Repr`s, the packet list's
//! fast path and the dissector.

use super::bth::{self, BthPacket, BthRepr};
use super::bytes::slice;
use super::crc::ICRC_LEN;
use super::ext::header_len;
use super::ext::ExtRepr;
use super::opcode::OpcodeInfo;
use super::{ErrorKind, Header, Result, WireError};

/// Byte offsets (in the frame) of the parts of a transport packet, found by [`locate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportLayout {
    pub info: OpcodeInfo,
    pub bth_offset: usize,
    pub ext_offset: usize,
    pub payload_offset: usize,
    /// Payload bytes, without the pad.
    pub payload_len: usize,
    pub pad_len: usize,
    pub icrc_offset: usize,
}

/// Checks that the transport packet from `bth_offset` to `end` (the end of the ICRC) of
/// `frame` holds a known opcode, the extended headers it requires, its pad and an ICRC.
/// Errors carry frame offsets. CRCs are not verified here.
// Always inlined: the packet list's fast path runs it for every frame of a capture, and
// as a call (its layout returned through a `Result`) it cost that path a fifth of its speed.
#[inline(always)]
pub fn locate(frame: &[u8], bth_offset: usize, end: usize) -> Result<TransportLayout> {
    let bth_buf = frame.get(bth_offset..end).unwrap_or(&[]);
    let bth = BthPacket::new_checked(bth_buf).map_err(|e| e.shifted(bth_offset))?;
    let opcode = bth.opcode();
    let info = opcode.info().ok_or_else(|| {
        WireError::new(
            Header::Bth,
            bth_offset,
            ErrorKind::UnknownOpcode { opcode: opcode.0 },
        )
    })?;
    let ext_offset = bth_offset + bth::HEADER_LEN;
    let mut at = ext_offset;
    for h in info.headers.iter() {
        let need = header_len(h);
        let avail = end.saturating_sub(at);
        if avail < need {
            return Err(WireError::truncated(h, at, need, avail));
        }
        at += need;
    }
    let room = end.saturating_sub(at);
    if room < ICRC_LEN {
        return Err(WireError::truncated(Header::Icrc, at, ICRC_LEN, room));
    }
    let payload_and_pad = room - ICRC_LEN;
    let pad_len = usize::from(bth.pad_count());
    if pad_len > payload_and_pad {
        return Err(WireError::new(
            Header::Bth,
            bth_offset,
            ErrorKind::LengthMismatch {
                field: "infiniband.bth.padcnt",
                claimed: pad_len,
                available: payload_and_pad,
            },
        ));
    }
    if !info.headers.payload && payload_and_pad != 0 {
        return Err(WireError::new(
            Header::Payload,
            at,
            ErrorKind::LengthMismatch {
                field: "payload of an opcode that carries none",
                claimed: 0,
                available: payload_and_pad,
            },
        ));
    }
    Ok(TransportLayout {
        info,
        bth_offset,
        ext_offset,
        payload_offset: at,
        payload_len: payload_and_pad - pad_len,
        pad_len,
        icrc_offset: end - ICRC_LEN,
    })
}

/// What `emit` refuses before it writes a transport packet, so that what it writes
/// [`locate`] accepts: an unknown opcode, a pad that does not bring the payload to a
/// multiple of 4 bytes, a payload on an opcode that carries none. Errors at offset 0.
pub fn check_emit(bth: &BthRepr, payload_len: usize) -> Result<OpcodeInfo> {
    let info = bth.opcode.info().ok_or_else(|| {
        WireError::new(
            Header::Bth,
            0,
            ErrorKind::UnknownOpcode {
                opcode: bth.opcode.0,
            },
        )
    })?;
    let pad = usize::from(bth.pad_count);
    if !(payload_len + pad).is_multiple_of(4) || pad > 3 {
        return Err(WireError::new(
            Header::Bth,
            0,
            ErrorKind::BadValue {
                field: "infiniband.bth.padcnt (payload + pad must be a multiple of 4)",
                value: pad as u64,
            },
        ));
    }
    if !info.headers.payload && payload_len != 0 {
        return Err(WireError::new(
            Header::Payload,
            0,
            ErrorKind::LengthMismatch {
                field: "payload of an opcode that carries none",
                claimed: 0,
                available: payload_len,
            },
        ));
    }
    Ok(info)
}

/// The BTH, extended headers and payload (without its pad) of a transport packet
/// [`locate`] found in `frame`.
pub fn parse(frame: &[u8], t: &TransportLayout) -> Result<(BthRepr, ExtRepr, Vec<u8>)> {
    let bth_p = BthPacket::new_checked(slice(frame, t.bth_offset, t.icrc_offset))
        .map_err(|e| e.shifted(t.bth_offset))?;
    let bth = BthRepr::parse(&bth_p)?;
    let (ext, _) = ExtRepr::parse(t.info.headers, slice(frame, t.ext_offset, t.icrc_offset))
        .map_err(|e| e.shifted(t.ext_offset))?;
    let payload = slice(frame, t.payload_offset, t.payload_offset + t.payload_len).to_vec();
    Ok((bth, ext, payload))
}

/// The error for a stored ICRC that is not the one computed.
pub fn check_icrc(t: &TransportLayout, computed: u32, found: u32) -> Result<()> {
    if computed == found {
        return Ok(());
    }
    Err(WireError::new(
        Header::Icrc,
        t.icrc_offset,
        ErrorKind::BadChecksum {
            field: "infiniband.invariant.crc",
            computed,
            found,
        },
    ))
}
