//! Value rules for QP attributes: each decoder checks the range and says what the value
//! means, or returns a located [`ValueError`] (`timeout: 32 does not fit in 5 bits`).

use crate::psn::Psn;
use crate::FieldError;
use core::fmt;
use serde::{Deserialize, Serialize};

/// A valid attribute value and what it means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decoded {
    /// The `struct ibv_qp_attr` field, e.g. `timeout`.
    pub field: String,
    /// The raw value.
    pub value: u64,
    /// Human-readable meaning, e.g. `4.096 µs × 2^14 = 67.109 ms`.
    pub meaning: String,
}

/// Why an attribute's value was refused: the field and why, as every model's [`FieldError`]
/// carries them, and which of the two ways it failed. The reason starts with what was
/// given, so the message reads as ibv_modify_qp(3) names the field:
/// `timeout: 32 does not fit in 5 bits`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueError {
    /// The text is not a value of the field's kind at all (`qkey: "twelve" is not a whole
    /// number …`); only [`super::builder`], which reads typed text, says this.
    Unreadable(FieldError),
    /// A value of the right kind outside what the field allows: the driver answers `EINVAL`.
    OutOfRange(FieldError),
}

impl ValueError {
    /// `field` given `value`, which breaks the rule `reason` states (`does not fit in 5
    /// bits`).
    pub(crate) fn out_of_range(field: &str, value: u64, reason: impl fmt::Display) -> ValueError {
        ValueError::OutOfRange(FieldError::new(field, format!("{value} {reason}")))
    }

    /// `field` typed as `text`, which is not `expected` (`a whole number …`).
    pub(crate) fn unreadable(field: &str, text: &str, expected: &str) -> ValueError {
        ValueError::Unreadable(FieldError::new(
            field,
            format!("{text:?} is not {expected}"),
        ))
    }

    /// The `struct ibv_qp_attr` field refused and why.
    pub fn field_error(&self) -> &FieldError {
        match self {
            ValueError::Unreadable(e) | ValueError::OutOfRange(e) => e,
        }
    }
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.field_error();
        write!(f, "{}: {}", e.field, e.reason)
    }
}

impl std::error::Error for ValueError {}

fn decoded(field: &str, value: u64, meaning: String) -> Decoded {
    Decoded {
        field: field.to_string(),
        value,
        meaning,
    }
}

fn check_bits(field: &str, value: u64, bits: u32) -> Result<(), ValueError> {
    if value >> bits != 0 {
        return Err(ValueError::out_of_range(
            field,
            value,
            format!("does not fit in {bits} bits"),
        ));
    }
    Ok(())
}

/// Formats nanoseconds with a unit a person reads easily.
pub fn format_ns(ns: u64) -> String {
    // Integer arithmetic only; three decimals of the chosen unit.
    let (unit, scale) = if ns < 1_000 {
        return format!("{ns} ns");
    } else if ns < 1_000_000 {
        ("µs", 1_000u64)
    } else if ns < 1_000_000_000 {
        ("ms", 1_000_000)
    } else {
        ("s", 1_000_000_000)
    };
    let whole = ns / scale;
    // Round to three decimals.
    let frac = ((ns % scale) * 1000 + scale / 2) / scale;
    let (whole, frac) = if frac == 1000 {
        (whole + 1, 0)
    } else {
        (whole, frac)
    };
    format!("{whole}.{frac:03} {unit}")
}

/// Path MTU, `enum ibv_mtu` (rdma-core `libibverbs/verbs.h`: 1 = 256 … 5 = 4096 bytes, the
/// IBTA MTU encoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PathMtu {
    /// `IBV_MTU_256` = 1.
    #[serde(rename = "IBV_MTU_256")]
    Mtu256 = 1,
    /// `IBV_MTU_512` = 2.
    #[serde(rename = "IBV_MTU_512")]
    Mtu512 = 2,
    /// `IBV_MTU_1024` = 3.
    #[serde(rename = "IBV_MTU_1024")]
    Mtu1024 = 3,
    /// `IBV_MTU_2048` = 4.
    #[serde(rename = "IBV_MTU_2048")]
    Mtu2048 = 4,
    /// `IBV_MTU_4096` = 5.
    #[serde(rename = "IBV_MTU_4096")]
    Mtu4096 = 5,
}

impl PathMtu {
    /// All values in order.
    pub const ALL: [PathMtu; 5] = [
        PathMtu::Mtu256,
        PathMtu::Mtu512,
        PathMtu::Mtu1024,
        PathMtu::Mtu2048,
        PathMtu::Mtu4096,
    ];

    /// Reads the `path_mtu` field.
    pub fn from_ibv(value: u32) -> Result<PathMtu, ValueError> {
        PathMtu::ALL
            .into_iter()
            .find(|m| *m as u32 == value)
            .ok_or_else(|| {
                ValueError::out_of_range(
                    "path_mtu",
                    value.into(),
                    "is not an enum ibv_mtu value (1 = IBV_MTU_256 … 5 = IBV_MTU_4096)",
                )
            })
    }

    /// The enum value.
    pub fn value(self) -> u32 {
        self as u32
    }

    /// Payload bytes per packet: 256 << (value − 1).
    pub fn bytes(self) -> u32 {
        256 << (self.value() - 1)
    }

    /// The constant name, e.g. `IBV_MTU_1024`.
    pub fn name(self) -> &'static str {
        match self {
            PathMtu::Mtu256 => "IBV_MTU_256",
            PathMtu::Mtu512 => "IBV_MTU_512",
            PathMtu::Mtu1024 => "IBV_MTU_1024",
            PathMtu::Mtu2048 => "IBV_MTU_2048",
            PathMtu::Mtu4096 => "IBV_MTU_4096",
        }
    }
}

/// Decodes `path_mtu`.
pub fn decode_path_mtu(value: u32) -> Result<Decoded, ValueError> {
    let mtu = PathMtu::from_ibv(value)?;
    Ok(decoded(
        "path_mtu",
        value.into(),
        format!(
            "{}: each packet carries at most {} bytes of payload; a longer message is split \
             into several packets (on RoCE pick the largest value that fits the Ethernet MTU)",
            mtu.name(),
            mtu.bytes()
        ),
    ))
}

/// Local ACK timeout in nanoseconds: `None` for 0 (infinite), else 4.096 µs × 2^timeout.
///
/// IBTA Vol. 1 §9.7.6.1.3 (transport timer) and ibv_modify_qp(3): a 5-bit exponent.
pub fn timeout_ns(timeout: u8) -> Result<Option<u64>, ValueError> {
    check_bits("timeout", timeout.into(), 5)?;
    if timeout == 0 {
        return Ok(None);
    }
    Ok(Some(4096u64 << timeout))
}

/// Decodes `timeout` (local ACK timeout).
pub fn decode_timeout(timeout: u8) -> Result<Decoded, ValueError> {
    let meaning = match timeout_ns(timeout)? {
        None => "0 = infinite: the sender never times out waiting for an ACK, so a lost \
                 packet is never retransmitted"
            .to_string(),
        Some(ns) => format!(
            "4.096 µs × 2^{timeout} = {}: how long the sender waits for an ACK before it \
             retransmits (the hardware may wait longer, never shorter)",
            format_ns(ns)
        ),
    };
    Ok(decoded("timeout", timeout.into(), meaning))
}

/// Decodes `retry_cnt` (3 bits, IBTA Vol. 1 §9.7.6.1.3).
pub fn decode_retry_cnt(retry_cnt: u8) -> Result<Decoded, ValueError> {
    check_bits("retry_cnt", retry_cnt.into(), 3)?;
    Ok(decoded(
        "retry_cnt",
        retry_cnt.into(),
        format!(
            "after an ACK timeout the sender retransmits up to {retry_cnt} times ({} attempts \
             in all), then completes the WR with IBV_WC_RETRY_EXC_ERR and the QP goes to ERR",
            u32::from(retry_cnt) + 1
        ),
    ))
}

/// Decodes `rnr_retry` (3 bits; 7 means retry forever; IBTA Vol. 1 §9.7.5.2.8 RNR NAK,
/// ibv_modify_qp(3)).
pub fn decode_rnr_retry(rnr_retry: u8) -> Result<Decoded, ValueError> {
    check_bits("rnr_retry", rnr_retry.into(), 3)?;
    let meaning = if rnr_retry == 7 {
        "7 = infinite: after each RNR NAK (receiver had no receive posted) the sender waits \
         and tries again, forever"
            .to_string()
    } else {
        format!(
            "after an RNR NAK (receiver had no receive posted) the sender waits the timer the \
             NAK carries and retries, up to {rnr_retry} times; then IBV_WC_RNR_RETRY_EXC_ERR \
             and the QP goes to ERR"
        )
    };
    Ok(decoded("rnr_retry", rnr_retry.into(), meaning))
}

/// RNR NAK timer field encodings in microseconds, index = 5-bit code.
///
/// IBTA Vol. 1 §9.7.5.2.8, table "RNR NAK timer field encodings"; the same values name the
/// kernel's `enum ib_rnr_timeout` in `include/rdma/ib_verbs.h` (`IB_RNR_TIMER_655_36` = 0,
/// `IB_RNR_TIMER_000_01` = 1, …, `IB_RNR_TIMER_491_52` = 31, in milliseconds). Code 0 is
/// the longest wait, not zero.
pub const RNR_TIMER_US: [u32; 32] = [
    655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840,
    5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840,
    245_760, 327_680, 491_520,
];

/// The RNR NAK timer for a 5-bit code, in microseconds.
pub fn rnr_timer_us(code: u8) -> Result<u32, ValueError> {
    check_bits("min_rnr_timer", code.into(), 5)?;
    RNR_TIMER_US
        .get(usize::from(code))
        .copied()
        .ok_or_else(|| ValueError::out_of_range("min_rnr_timer", code.into(), "has no table entry"))
}

/// Decodes `min_rnr_timer`.
pub fn decode_min_rnr_timer(code: u8) -> Result<Decoded, ValueError> {
    let us = rnr_timer_us(code)?;
    Ok(decoded(
        "min_rnr_timer",
        code.into(),
        format!(
            "{}: when this QP has no receive posted it answers with an RNR NAK asking the \
             sender to wait at least this long before retrying",
            format_ns(u64::from(us) * 1000)
        ),
    ))
}

/// Decodes a PSN field (`sq_psn` or `rq_psn`).
pub fn decode_psn(field: &str, value: u32) -> Result<Decoded, ValueError> {
    check_bits(field, value.into(), Psn::BITS)?;
    let psn = Psn::truncate(value);
    let role = if field == "rq_psn" {
        "the PSN this QP expects on the first request it receives; must equal the peer's sq_psn"
    } else {
        "the PSN of the first packet this QP sends; the peer's rq_psn must equal it"
    };
    Ok(decoded(field, value.into(), format!("PSN {psn}: {role}")))
}

/// Decodes a QP number (24 bits: the BTH DestQP field, IBTA Vol. 1 §9.2).
pub fn decode_qpn(field: &str, value: u32) -> Result<Decoded, ValueError> {
    check_bits(field, value.into(), 24)?;
    Ok(decoded(
        field,
        value.into(),
        format!(
            "QP number {value:#x}: the remote QP every packet of this connection is addressed to"
        ),
    ))
}

/// One `enum ibv_access_flags` bit (rdma-core `libibverbs/verbs.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessFlag {
    /// Constant name.
    pub name: &'static str,
    /// Bit value.
    pub value: u32,
    /// What it grants.
    pub meaning: &'static str,
}

/// The `ibv_access_flags` bits. `IBV_ACCESS_RELAXED_ORDERING` is
/// `IBV_ACCESS_OPTIONAL_FIRST` = `IB_UVERBS_ACCESS_OPTIONAL_FIRST` = 1 << 20
/// (kernel `include/uapi/rdma/ib_user_ioctl_verbs.h`).
pub const ACCESS_FLAGS: [AccessFlag; 11] = [
    AccessFlag {
        name: "IBV_ACCESS_LOCAL_WRITE",
        value: 1,
        meaning: "the local HCA may write the memory (needed to receive into it)",
    },
    AccessFlag {
        name: "IBV_ACCESS_REMOTE_WRITE",
        value: 1 << 1,
        meaning: "the peer may RDMA Write into it",
    },
    AccessFlag {
        name: "IBV_ACCESS_REMOTE_READ",
        value: 1 << 2,
        meaning: "the peer may RDMA Read from it",
    },
    AccessFlag {
        name: "IBV_ACCESS_REMOTE_ATOMIC",
        value: 1 << 3,
        meaning: "the peer may run atomics (fetch-and-add, compare-and-swap) on it",
    },
    AccessFlag {
        name: "IBV_ACCESS_MW_BIND",
        value: 1 << 4,
        meaning: "memory windows may be bound to the region",
    },
    AccessFlag {
        name: "IBV_ACCESS_ZERO_BASED",
        value: 1 << 5,
        meaning: "remote addresses count from 0 instead of the virtual address",
    },
    AccessFlag {
        name: "IBV_ACCESS_ON_DEMAND",
        value: 1 << 6,
        meaning: "on-demand paging: pages are pinned when the HCA touches them",
    },
    AccessFlag {
        name: "IBV_ACCESS_HUGETLB",
        value: 1 << 7,
        meaning: "the region is backed by huge pages",
    },
    AccessFlag {
        name: "IBV_ACCESS_FLUSH_GLOBAL",
        value: 1 << 8,
        meaning: "the peer may FLUSH it to global visibility",
    },
    AccessFlag {
        name: "IBV_ACCESS_FLUSH_PERSISTENT",
        value: 1 << 9,
        meaning: "the peer may FLUSH it to persistence",
    },
    AccessFlag {
        name: "IBV_ACCESS_RELAXED_ORDERING",
        value: 1 << 20,
        meaning: "PCIe writes to it may be reordered (optional: ignored where unsupported)",
    },
];

/// The names of the set bits of an access-flags value, or an error naming unknown bits.
pub fn access_flag_names(field: &str, value: u32) -> Result<Vec<&'static str>, ValueError> {
    let known = ACCESS_FLAGS.iter().fold(0, |acc, f| acc | f.value);
    let unknown = value & !known;
    if unknown != 0 {
        return Err(ValueError::out_of_range(
            field,
            value.into(),
            format!("has bits {unknown:#x} that are not ibv_access_flags"),
        ));
    }
    Ok(ACCESS_FLAGS
        .iter()
        .filter(|f| value & f.value != 0)
        .map(|f| f.name)
        .collect())
}

/// Decodes `qp_access_flags`: which incoming remote operations the QP's responder allows.
///
/// On a QP only the three remote bits matter (ibv_modify_qp(3): "mask of enabled remote
/// access operations"); the memory region must grant the same right as well.
pub fn decode_qp_access_flags(value: u32) -> Result<Decoded, ValueError> {
    let names = access_flag_names("qp_access_flags", value)?;
    let remote: Vec<&str> = ACCESS_FLAGS
        .iter()
        .filter(|f| value & f.value != 0 && (2..=8).contains(&f.value))
        .map(|f| f.meaning)
        .collect();
    let meaning = if remote.is_empty() {
        format!(
            "{}: the peer may only Send to this QP; incoming RDMA Read, Write and Atomic \
             requests are refused (remote access error)",
            if names.is_empty() {
                "0".to_string()
            } else {
                names.join(" | ")
            }
        )
    } else {
        format!("{}: {}", names.join(" | "), remote.join("; "))
    };
    Ok(decoded("qp_access_flags", value.into(), meaning))
}

/// Checks the memory-registration rule of ibv_reg_mr(3): remote write or remote atomic
/// access needs local write access too.
pub fn check_mr_access_flags(value: u32) -> Result<Decoded, ValueError> {
    let names = access_flag_names("access", value)?;
    let needs_local = value & ((1 << 1) | (1 << 3)) != 0;
    if needs_local && value & 1 == 0 {
        return Err(ValueError::out_of_range(
            "access",
            value.into(),
            "sets IBV_ACCESS_REMOTE_WRITE or IBV_ACCESS_REMOTE_ATOMIC without \
             IBV_ACCESS_LOCAL_WRITE (ibv_reg_mr fails with EINVAL)",
        ));
    }
    Ok(decoded("access", value.into(), names.join(" | ")))
}

/// Checks a depth against the `struct ibv_device_attr` field `limit` that bounds it.
fn within_device_limit(field: &str, value: u8, limit: &str, max: u8) -> Result<(), ValueError> {
    if value > max {
        return Err(ValueError::out_of_range(
            field,
            value.into(),
            format!("exceeds the device limit {limit} = {max}"),
        ));
    }
    Ok(())
}

/// Decodes `max_rd_atomic` (the "initiator depth" of IBTA/rdma_cm): how many RDMA Read and
/// Atomic requests this QP may have outstanding at once toward its peer (ibv_modify_qp(3)).
/// Bounded by the device's `max_qp_init_rd_atom` (ibv_query_device(3)).
pub fn decode_max_rd_atomic(value: u8, device_max: u8) -> Result<Decoded, ValueError> {
    within_device_limit("max_rd_atomic", value, "max_qp_init_rd_atom", device_max)?;
    let meaning = if value == 0 {
        "0: this QP may not issue RDMA Read or Atomic requests at all".to_string()
    } else {
        format!(
            "up to {value} RDMA Read/Atomic requests in flight from this QP; more wait in the \
             send queue. Keep it ≤ the peer's max_dest_rd_atomic"
        )
    };
    Ok(decoded("max_rd_atomic", value.into(), meaning))
}

/// Decodes `max_dest_rd_atomic` (responder resources): how many incoming RDMA Read and
/// Atomic requests this QP can be working on at once (ibv_modify_qp(3)). Bounded by the
/// device's `max_qp_rd_atom` (ibv_query_device(3)).
pub fn decode_max_dest_rd_atomic(value: u8, device_max: u8) -> Result<Decoded, ValueError> {
    within_device_limit("max_dest_rd_atomic", value, "max_qp_rd_atom", device_max)?;
    let meaning = if value == 0 {
        "0: the peer may not RDMA Read or run atomics against this QP".to_string()
    } else {
        format!(
            "this QP keeps state for up to {value} incoming RDMA Read/Atomic requests at \
             once; the peer's max_rd_atomic should not exceed it"
        )
    };
    Ok(decoded("max_dest_rd_atomic", value.into(), meaning))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtu_bytes() {
        let expect = [(1, 256), (2, 512), (3, 1024), (4, 2048), (5, 4096)];
        for (v, bytes) in expect {
            assert_eq!(PathMtu::from_ibv(v).map(PathMtu::bytes), Ok(bytes));
        }
        for bad in [0, 6, 1024] {
            let e = PathMtu::from_ibv(bad).unwrap_err();
            assert_eq!(e.field_error().field, "path_mtu");
        }
        assert!(decode_path_mtu(3).unwrap().meaning.contains("1024 bytes"));
    }

    #[test]
    fn timeout_is_4_096_us_times_power_of_two() {
        assert_eq!(timeout_ns(0), Ok(None));
        assert_eq!(timeout_ns(1), Ok(Some(8_192)));
        // 14 is a common choice: 4.096 µs × 16384 = 67.108864 ms.
        assert_eq!(timeout_ns(14), Ok(Some(67_108_864)));
        assert_eq!(timeout_ns(31), Ok(Some(4_096 * (1u64 << 31))));
        assert_eq!(
            decode_timeout(32).unwrap_err().to_string(),
            "timeout: 32 does not fit in 5 bits"
        );
        assert!(decode_timeout(14).unwrap().meaning.contains("67.109 ms"));
        assert!(decode_timeout(0).unwrap().meaning.contains("infinite"));
    }

    #[test]
    fn retry_fields_are_three_bits() {
        for v in 0..=7 {
            assert!(decode_retry_cnt(v).is_ok());
            assert!(decode_rnr_retry(v).is_ok());
        }
        assert_eq!(
            decode_retry_cnt(8).unwrap_err().to_string(),
            "retry_cnt: 8 does not fit in 3 bits"
        );
        assert!(decode_rnr_retry(8).is_err());
        assert!(decode_rnr_retry(7).unwrap().meaning.contains("infinite"));
        assert!(!decode_rnr_retry(6).unwrap().meaning.contains("infinite"));
    }

    #[test]
    fn rnr_timer_spot_checks_against_ibta_table() {
        // IBTA Vol. 1 RNR NAK timer encodings, in milliseconds.
        let ms_times_100 = [
            (0, 65_536),
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 6),
            (6, 8),
            (7, 12),
            (12, 64),
            (14, 128),
            (18, 512),
            (22, 2_048),
            (24, 4_096),
            (27, 12_288),
            (30, 32_768),
            (31, 49_152),
        ];
        for (code, hundredths) in ms_times_100 {
            assert_eq!(rnr_timer_us(code), Ok(hundredths * 10), "code {code}");
        }
        assert!(rnr_timer_us(32).is_err());
        // Codes 1..=31 grow monotonically; 0 is the largest of all.
        for w in RNR_TIMER_US[1..].windows(2) {
            assert!(w[0] < w[1]);
        }
        assert!(RNR_TIMER_US.iter().all(|&v| v <= RNR_TIMER_US[0]));
        assert!(decode_min_rnr_timer(0)
            .unwrap()
            .meaning
            .starts_with("655.360 ms"));
        assert!(decode_min_rnr_timer(1)
            .unwrap()
            .meaning
            .starts_with("10.000 µs"));
    }

    #[test]
    fn access_flags() {
        assert_eq!(
            access_flag_names("access", 1 | 2 | 4 | 8),
            Ok(vec![
                "IBV_ACCESS_LOCAL_WRITE",
                "IBV_ACCESS_REMOTE_WRITE",
                "IBV_ACCESS_REMOTE_READ",
                "IBV_ACCESS_REMOTE_ATOMIC"
            ])
        );
        assert_eq!(
            access_flag_names("access", 1 << 20),
            Ok(vec!["IBV_ACCESS_RELAXED_ORDERING"])
        );
        assert!(access_flag_names("access", 1 << 12).is_err());
        assert!(check_mr_access_flags(2).is_err());
        assert!(check_mr_access_flags(3).is_ok());
        assert!(decode_qp_access_flags(0)
            .unwrap()
            .meaning
            .contains("only Send"));
    }

    #[test]
    fn rd_atomic_limits() {
        assert!(decode_max_rd_atomic(16, 16).is_ok());
        let e = decode_max_rd_atomic(17, 16).unwrap_err();
        assert!(e.to_string().contains("max_qp_init_rd_atom = 16"));
        assert!(decode_max_dest_rd_atomic(0, 16)
            .unwrap()
            .meaning
            .contains("may not"));
        assert!(decode_max_dest_rd_atomic(5, 4).is_err());
    }

    #[test]
    fn ns_formatting() {
        assert_eq!(format_ns(999), "999 ns");
        assert_eq!(format_ns(4_096), "4.096 µs");
        assert_eq!(format_ns(1_999_999), "2.000 ms");
        assert_eq!(format_ns(2_500_000_000), "2.500 s");
    }
}
