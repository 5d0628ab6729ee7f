//! The `ibv_qp_attr_mask` bits: which fields of `struct ibv_qp_attr` a modify call sets.

use core::fmt;
use serde::{Deserialize, Serialize};

use crate::number::parse_whole;

/// One bit of `enum ibv_qp_attr_mask`.
///
/// Names and values are rdma-core's (`libibverbs/verbs.h`); bits 0–20 equal the kernel's
/// `IB_QP_*` bits. Bits 21–24 were kernel-internal (SMAC/VID) and never exposed by
/// libibverbs, which is why `IBV_QP_RATE_LIMIT` sits at bit 25.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AttrName {
    /// `qp_state`: the state to move to.
    #[serde(rename = "IBV_QP_STATE")]
    State,
    /// `cur_qp_state`: the state the caller believes the QP is in.
    #[serde(rename = "IBV_QP_CUR_STATE")]
    CurState,
    /// `en_sqd_async_notify`: raise `IBV_EVENT_SQ_DRAINED` once SQD has drained.
    #[serde(rename = "IBV_QP_EN_SQD_ASYNC_NOTIFY")]
    EnSqdAsyncNotify,
    /// `qp_access_flags`: which remote operations the responder accepts.
    #[serde(rename = "IBV_QP_ACCESS_FLAGS")]
    AccessFlags,
    /// `pkey_index`: index into the port's P_Key table (partition).
    #[serde(rename = "IBV_QP_PKEY_INDEX")]
    PkeyIndex,
    /// `port_num`: the HCA port the QP uses.
    #[serde(rename = "IBV_QP_PORT")]
    Port,
    /// `qkey`: the Q_Key datagram QPs check on receive.
    #[serde(rename = "IBV_QP_QKEY")]
    Qkey,
    /// `ah_attr`: the primary path (address vector) to the remote QP.
    #[serde(rename = "IBV_QP_AV")]
    Av,
    /// `path_mtu`: the payload size per packet on the path.
    #[serde(rename = "IBV_QP_PATH_MTU")]
    PathMtu,
    /// `timeout`: the local ACK timeout exponent.
    #[serde(rename = "IBV_QP_TIMEOUT")]
    Timeout,
    /// `retry_cnt`: retransmissions after an ACK timeout.
    #[serde(rename = "IBV_QP_RETRY_CNT")]
    RetryCnt,
    /// `rnr_retry`: retransmissions after an RNR NAK.
    #[serde(rename = "IBV_QP_RNR_RETRY")]
    RnrRetry,
    /// `rq_psn`: the PSN the receive side expects first.
    #[serde(rename = "IBV_QP_RQ_PSN")]
    RqPsn,
    /// `max_rd_atomic`: outstanding RDMA Read/Atomic this QP may issue (initiator depth).
    #[serde(rename = "IBV_QP_MAX_QP_RD_ATOMIC")]
    MaxQpRdAtomic,
    /// `alt_ah_attr` & co: the alternate path for automatic path migration.
    #[serde(rename = "IBV_QP_ALT_PATH")]
    AltPath,
    /// `min_rnr_timer`: the wait this QP asks for in the RNR NAKs it sends.
    #[serde(rename = "IBV_QP_MIN_RNR_TIMER")]
    MinRnrTimer,
    /// `sq_psn`: the PSN of the first packet this QP sends.
    #[serde(rename = "IBV_QP_SQ_PSN")]
    SqPsn,
    /// `max_dest_rd_atomic`: incoming RDMA Read/Atomic handled at once (responder resources).
    #[serde(rename = "IBV_QP_MAX_DEST_RD_ATOMIC")]
    MaxDestRdAtomic,
    /// `path_mig_state`: automatic path migration state (MIGRATED, REARM, ARMED).
    #[serde(rename = "IBV_QP_PATH_MIG_STATE")]
    PathMigState,
    /// `cap`: queue sizes (resize; no cell of the kernel table accepts it).
    #[serde(rename = "IBV_QP_CAP")]
    Cap,
    /// `dest_qp_num`: the remote QP number.
    #[serde(rename = "IBV_QP_DEST_QPN")]
    DestQpn,
    /// `rate_limit`: packet pacing in kbps (RAW_PACKET only).
    #[serde(rename = "IBV_QP_RATE_LIMIT")]
    RateLimit,
}

impl AttrName {
    /// Every bit, in ascending bit order.
    pub const ALL: [AttrName; 22] = [
        AttrName::State,
        AttrName::CurState,
        AttrName::EnSqdAsyncNotify,
        AttrName::AccessFlags,
        AttrName::PkeyIndex,
        AttrName::Port,
        AttrName::Qkey,
        AttrName::Av,
        AttrName::PathMtu,
        AttrName::Timeout,
        AttrName::RetryCnt,
        AttrName::RnrRetry,
        AttrName::RqPsn,
        AttrName::MaxQpRdAtomic,
        AttrName::AltPath,
        AttrName::MinRnrTimer,
        AttrName::SqPsn,
        AttrName::MaxDestRdAtomic,
        AttrName::PathMigState,
        AttrName::Cap,
        AttrName::DestQpn,
        AttrName::RateLimit,
    ];

    /// The bit number (`1 << bit_index()` is the mask value).
    pub const fn bit_index(self) -> u32 {
        match self {
            AttrName::State => 0,
            AttrName::CurState => 1,
            AttrName::EnSqdAsyncNotify => 2,
            AttrName::AccessFlags => 3,
            AttrName::PkeyIndex => 4,
            AttrName::Port => 5,
            AttrName::Qkey => 6,
            AttrName::Av => 7,
            AttrName::PathMtu => 8,
            AttrName::Timeout => 9,
            AttrName::RetryCnt => 10,
            AttrName::RnrRetry => 11,
            AttrName::RqPsn => 12,
            AttrName::MaxQpRdAtomic => 13,
            AttrName::AltPath => 14,
            AttrName::MinRnrTimer => 15,
            AttrName::SqPsn => 16,
            AttrName::MaxDestRdAtomic => 17,
            AttrName::PathMigState => 18,
            AttrName::Cap => 19,
            AttrName::DestQpn => 20,
            AttrName::RateLimit => 25,
        }
    }

    /// The mask value, e.g. `IBV_QP_AV` = 128.
    pub const fn bit(self) -> u32 {
        1 << self.bit_index()
    }

    /// The rdma-core name, e.g. `IBV_QP_AV`.
    pub fn name(self) -> &'static str {
        match self {
            AttrName::State => "IBV_QP_STATE",
            AttrName::CurState => "IBV_QP_CUR_STATE",
            AttrName::EnSqdAsyncNotify => "IBV_QP_EN_SQD_ASYNC_NOTIFY",
            AttrName::AccessFlags => "IBV_QP_ACCESS_FLAGS",
            AttrName::PkeyIndex => "IBV_QP_PKEY_INDEX",
            AttrName::Port => "IBV_QP_PORT",
            AttrName::Qkey => "IBV_QP_QKEY",
            AttrName::Av => "IBV_QP_AV",
            AttrName::PathMtu => "IBV_QP_PATH_MTU",
            AttrName::Timeout => "IBV_QP_TIMEOUT",
            AttrName::RetryCnt => "IBV_QP_RETRY_CNT",
            AttrName::RnrRetry => "IBV_QP_RNR_RETRY",
            AttrName::RqPsn => "IBV_QP_RQ_PSN",
            AttrName::MaxQpRdAtomic => "IBV_QP_MAX_QP_RD_ATOMIC",
            AttrName::AltPath => "IBV_QP_ALT_PATH",
            AttrName::MinRnrTimer => "IBV_QP_MIN_RNR_TIMER",
            AttrName::SqPsn => "IBV_QP_SQ_PSN",
            AttrName::MaxDestRdAtomic => "IBV_QP_MAX_DEST_RD_ATOMIC",
            AttrName::PathMigState => "IBV_QP_PATH_MIG_STATE",
            AttrName::Cap => "IBV_QP_CAP",
            AttrName::DestQpn => "IBV_QP_DEST_QPN",
            AttrName::RateLimit => "IBV_QP_RATE_LIMIT",
        }
    }

    /// The `struct ibv_qp_attr` field(s) the bit makes valid, per ibv_modify_qp(3).
    pub fn field(self) -> &'static str {
        match self {
            AttrName::State => "qp_state",
            AttrName::CurState => "cur_qp_state",
            AttrName::EnSqdAsyncNotify => "en_sqd_async_notify",
            AttrName::AccessFlags => "qp_access_flags",
            AttrName::PkeyIndex => "pkey_index",
            AttrName::Port => "port_num",
            AttrName::Qkey => "qkey",
            AttrName::Av => "ah_attr",
            AttrName::PathMtu => "path_mtu",
            AttrName::Timeout => "timeout",
            AttrName::RetryCnt => "retry_cnt",
            AttrName::RnrRetry => "rnr_retry",
            AttrName::RqPsn => "rq_psn",
            AttrName::MaxQpRdAtomic => "max_rd_atomic",
            AttrName::AltPath => "alt_ah_attr, alt_pkey_index, alt_port_num, alt_timeout",
            AttrName::MinRnrTimer => "min_rnr_timer",
            AttrName::SqPsn => "sq_psn",
            AttrName::MaxDestRdAtomic => "max_dest_rd_atomic",
            AttrName::PathMigState => "path_mig_state",
            AttrName::Cap => "cap",
            AttrName::DestQpn => "dest_qp_num",
            AttrName::RateLimit => "rate_limit",
        }
    }

    /// Parses `IBV_QP_AV`, `AV` or the kernel spelling `IB_QP_AV` (any case).
    pub fn from_name(text: &str) -> Option<AttrName> {
        let upper = text.trim().to_ascii_uppercase();
        let short = upper
            .strip_prefix("IBV_QP_")
            .or_else(|| upper.strip_prefix("IB_QP_"))
            .unwrap_or(&upper);
        AttrName::ALL
            .into_iter()
            .find(|a| a.name().strip_prefix("IBV_QP_") == Some(short))
    }

    /// The single-bit mask.
    pub fn mask(self) -> AttrMask {
        AttrMask(self.bit())
    }
}

impl fmt::Display for AttrName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of `ibv_qp_attr_mask` bits, the `attr_mask` argument of `ibv_modify_qp()`.
///
/// Only the 22 bits rdma-core defines can be set; [`AttrMask::from_bits`] rejects others.
/// Serializes as the list of names in bit order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(into = "Vec<AttrName>", from = "Vec<AttrName>")]
pub struct AttrMask(u32);

/// Every defined bit ORed together.
const DEFINED_BITS: u32 = {
    let mut bits = 0;
    let mut i = 0;
    while i < AttrName::ALL.len() {
        bits |= AttrName::ALL[i].bit();
        i += 1;
    }
    bits
};

/// A mask that could not be read: unknown bits or an unknown name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AttrMaskError {
    /// Bits set that `enum ibv_qp_attr_mask` does not define.
    UnknownBits {
        /// The whole value given.
        value: u32,
        /// The undefined bits in it.
        unknown: u32,
    },
    /// A name that is not an `IBV_QP_*` attribute.
    UnknownName {
        /// The text that did not match.
        name: String,
        /// Its position (0-based) in the `|`-separated list.
        position: usize,
    },
}

impl fmt::Display for AttrMaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrMaskError::UnknownBits { value, unknown } => write!(
                f,
                "attr_mask {value:#x}: bits {unknown:#x} are not defined by enum ibv_qp_attr_mask"
            ),
            AttrMaskError::UnknownName { name, position } => write!(
                f,
                "attr_mask item {}: {name:?} is not an IBV_QP_* attribute",
                position + 1
            ),
        }
    }
}

impl std::error::Error for AttrMaskError {}

impl AttrMask {
    /// The empty mask.
    pub const EMPTY: AttrMask = AttrMask(0);
    /// All 22 defined bits.
    pub const ALL: AttrMask = AttrMask(DEFINED_BITS);

    /// Reads a raw `attr_mask`, rejecting undefined bits.
    pub fn from_bits(value: u32) -> Result<AttrMask, AttrMaskError> {
        let unknown = value & !DEFINED_BITS;
        if unknown != 0 {
            return Err(AttrMaskError::UnknownBits { value, unknown });
        }
        Ok(AttrMask(value))
    }

    /// Keeps the defined bits of `value` and drops the rest.
    pub fn from_bits_truncate(value: u32) -> AttrMask {
        AttrMask(value & DEFINED_BITS)
    }

    /// Builds a mask from names.
    pub fn of(names: &[AttrName]) -> AttrMask {
        AttrMask(names.iter().fold(0, |acc, n| acc | n.bit()))
    }

    /// Parses `IBV_QP_STATE | IBV_QP_PORT` (also `,` or whitespace separated, short or
    /// kernel names, or a single number in decimal or `0x` hex). Empty text is the empty mask.
    pub fn parse(text: &str) -> Result<AttrMask, AttrMaskError> {
        let t = text.trim();
        if let Some(value) = parse_whole(t).and_then(|v| u32::try_from(v).ok()) {
            return AttrMask::from_bits(value);
        }
        let mut mask = AttrMask::EMPTY;
        for (position, item) in t
            .split(|c: char| c == '|' || c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .enumerate()
        {
            match AttrName::from_name(item) {
                Some(name) => mask = mask.with(name),
                None => {
                    return Err(AttrMaskError::UnknownName {
                        name: item.to_string(),
                        position,
                    })
                }
            }
        }
        Ok(mask)
    }

    /// The raw value.
    pub fn bits(self) -> u32 {
        self.0
    }

    /// Whether `name` is set.
    pub fn contains(self, name: AttrName) -> bool {
        self.0 & name.bit() != 0
    }

    /// Whether every bit of `other` is set here.
    pub fn contains_all(self, other: AttrMask) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no bit is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of bits set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// This mask plus `name`.
    pub fn with(self, name: AttrName) -> AttrMask {
        AttrMask(self.0 | name.bit())
    }

    /// This mask without `name`.
    pub fn without(self, name: AttrName) -> AttrMask {
        AttrMask(self.0 & !name.bit())
    }

    /// Set union.
    pub fn union(self, other: AttrMask) -> AttrMask {
        AttrMask(self.0 | other.0)
    }

    /// Set intersection.
    pub fn intersection(self, other: AttrMask) -> AttrMask {
        AttrMask(self.0 & other.0)
    }

    /// Bits here that are not in `other`.
    pub fn difference(self, other: AttrMask) -> AttrMask {
        AttrMask(self.0 & !other.0)
    }

    /// The set bits in ascending order.
    pub fn iter(self) -> impl Iterator<Item = AttrName> {
        AttrName::ALL.into_iter().filter(move |a| self.contains(*a))
    }

    /// The names of the set bits in ascending order.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(AttrName::name).collect()
    }
}

impl From<AttrName> for AttrMask {
    fn from(name: AttrName) -> AttrMask {
        name.mask()
    }
}

impl From<AttrMask> for Vec<AttrName> {
    fn from(mask: AttrMask) -> Vec<AttrName> {
        mask.iter().collect()
    }
}

impl From<Vec<AttrName>> for AttrMask {
    fn from(names: Vec<AttrName>) -> AttrMask {
        AttrMask::of(&names)
    }
}

impl core::ops::BitOr for AttrMask {
    type Output = AttrMask;
    fn bitor(self, rhs: AttrMask) -> AttrMask {
        self.union(rhs)
    }
}

impl core::ops::BitOr<AttrName> for AttrMask {
    type Output = AttrMask;
    fn bitor(self, rhs: AttrName) -> AttrMask {
        self.with(rhs)
    }
}

impl core::ops::BitOr for AttrName {
    type Output = AttrMask;
    fn bitor(self, rhs: AttrName) -> AttrMask {
        self.mask().with(rhs)
    }
}

impl core::str::FromStr for AttrMask {
    type Err = AttrMaskError;
    fn from_str(s: &str) -> Result<AttrMask, AttrMaskError> {
        AttrMask::parse(s)
    }
}

impl fmt::Display for AttrMask {
    /// `IBV_QP_STATE | IBV_QP_PORT`, or `0` for the empty mask.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("0");
        }
        f.write_str(&self.names().join(" | "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_rdma_core() {
        // libibverbs/verbs.h, enum ibv_qp_attr_mask.
        let expected: [(&str, u32); 22] = [
            ("IBV_QP_STATE", 1),
            ("IBV_QP_CUR_STATE", 2),
            ("IBV_QP_EN_SQD_ASYNC_NOTIFY", 4),
            ("IBV_QP_ACCESS_FLAGS", 8),
            ("IBV_QP_PKEY_INDEX", 16),
            ("IBV_QP_PORT", 32),
            ("IBV_QP_QKEY", 64),
            ("IBV_QP_AV", 128),
            ("IBV_QP_PATH_MTU", 256),
            ("IBV_QP_TIMEOUT", 512),
            ("IBV_QP_RETRY_CNT", 1024),
            ("IBV_QP_RNR_RETRY", 2048),
            ("IBV_QP_RQ_PSN", 4096),
            ("IBV_QP_MAX_QP_RD_ATOMIC", 8192),
            ("IBV_QP_ALT_PATH", 16384),
            ("IBV_QP_MIN_RNR_TIMER", 32768),
            ("IBV_QP_SQ_PSN", 65536),
            ("IBV_QP_MAX_DEST_RD_ATOMIC", 131072),
            ("IBV_QP_PATH_MIG_STATE", 262144),
            ("IBV_QP_CAP", 524288),
            ("IBV_QP_DEST_QPN", 1048576),
            ("IBV_QP_RATE_LIMIT", 33554432),
        ];
        for (name, value) in expected {
            let a = AttrName::from_name(name).expect("defined name");
            assert_eq!(a.name(), name);
            assert_eq!(a.bit(), value, "{name}");
            assert_eq!(AttrMask::from_bits(value), Ok(a.mask()));
        }
        assert_eq!(AttrMask::ALL.len(), 22);
    }

    #[test]
    fn undefined_bits_are_rejected_with_location() {
        // Bits 21..=24 are the never-exposed SMAC/VID bits.
        for bit in [21u32, 22, 23, 24, 26, 31] {
            let err = AttrMask::from_bits(1 | (1 << bit)).unwrap_err();
            assert_eq!(
                err,
                AttrMaskError::UnknownBits {
                    value: 1 | (1 << bit),
                    unknown: 1 << bit
                }
            );
        }
        assert_eq!(AttrMask::from_bits_truncate(u32::MAX), AttrMask::ALL);
    }

    #[test]
    fn parse_and_display_round_trip() {
        let m = AttrMask::parse("IBV_QP_STATE | ib_qp_port,PKEY_INDEX  IBV_QP_ACCESS_FLAGS")
            .expect("valid names");
        assert_eq!(m.bits(), 1 | 32 | 16 | 8);
        assert_eq!(
            m.to_string(),
            "IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT"
        );
        assert_eq!(m.to_string().parse::<AttrMask>(), Ok(m));
        assert_eq!(
            AttrMask::parse("0x21"),
            Ok(AttrName::State | AttrName::Port)
        );
        assert_eq!(AttrMask::parse("33"), Ok(AttrName::State | AttrName::Port));
        assert_eq!(AttrMask::parse(""), Ok(AttrMask::EMPTY));
        assert_eq!(
            AttrMask::parse("IBV_QP_STATE | IBV_QP_SMAC"),
            Err(AttrMaskError::UnknownName {
                name: "IBV_QP_SMAC".into(),
                position: 1
            })
        );
    }

    #[test]
    fn set_operations() {
        let a = AttrName::State | AttrName::Port;
        let b = AttrName::Port | AttrName::Qkey;
        assert_eq!(a.union(b).len(), 3);
        assert_eq!(a.intersection(b), AttrName::Port.mask());
        assert_eq!(a.difference(b), AttrName::State.mask());
        assert!(a.union(b).contains_all(a));
        assert!(!a.contains_all(b));
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            vec![AttrName::State, AttrName::Port]
        );
    }
}
