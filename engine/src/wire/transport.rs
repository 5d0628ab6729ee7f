//! The InfiniBand transport part of a packet, BTH through ICRC (IBTA Vol 1 §9.2–§9.3),
//! which RoCE v2 carries in UDP and native InfiniBand after its LRH [and GRH]: the one
//! walk that checks it fits, shared by both framings, their `Repr`s, the packet list's
//! fast path and the dissector.

use super::bth::{self, BthPacket};
use super::crc::ICRC_LEN;
use super::ext::header_len;
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
