//! The packet sequence number, shared by the packet codec ([`crate::wire`]), the capture
//! analysis and the QP model ([`crate::qp`]).
//!
//! It lives at the crate root rather than in either module so the QP model can name the
//! PSN its attributes carry without depending on the packet code, and the codec without
//! depending on the QP model.

use core::cmp::Ordering;
use core::fmt;
use serde::{Deserialize, Serialize};

/// A 24-bit packet sequence number (BTH PSN field, IBTA Vol. 1 §9.2 and §9.7).
///
/// Arithmetic wraps modulo 2^24. Ordering is circular, RFC 1982 style: `a` is before `b`
/// when `b − a` (mod 2^24) is in 1..2^23, the half window the responder uses to tell new
/// requests from duplicates (IBTA Vol. 1 §9.7.5, responder PSN checks). Exactly half the
/// space apart counts as "before" the other way round, as the kernel's `psn_compare()`
/// sign test does. A wrapping space has no total order, so the type implements no
/// `PartialOrd`: callers say which comparison they mean ([`Psn::is_after`],
/// [`Psn::distance_to`], [`Psn::offset_to`]).
///
/// Serialized as the bare number; deserializing a value wider than 24 bits fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct Psn(u32);

/// A value that does not fit in a PSN's 24 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PsnRangeError(pub u32);

impl fmt::Display for PsnRangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "psn: {} does not fit in {} bits", self.0, Psn::BITS)
    }
}

impl std::error::Error for PsnRangeError {}

impl Psn {
    /// Width of the field.
    pub const BITS: u32 = 24;
    /// 2^24: the number of distinct PSNs.
    pub const MODULUS: u32 = 1 << Psn::BITS;
    /// The low 24 bits.
    pub const MASK: u32 = Psn::MODULUS - 1;
    /// The largest PSN.
    pub const MAX: Psn = Psn(Psn::MASK);
    /// Half the space: the farthest one PSN can be "after" another.
    const HALF: u32 = Psn::MODULUS / 2;

    /// Checks that `value` fits in 24 bits.
    pub fn new(value: u32) -> Result<Psn, PsnRangeError> {
        if value > Psn::MASK {
            return Err(PsnRangeError(value));
        }
        Ok(Psn(value))
    }

    /// Keeps the low 24 bits, as the kernel does with an oversized `sq_psn`/`rq_psn` and as
    /// a 24-bit header field reads.
    pub fn truncate(value: u32) -> Psn {
        Psn(value & Psn::MASK)
    }

    /// The raw value.
    pub fn value(self) -> u32 {
        self.0
    }

    /// `self + n` modulo 2^24.
    pub fn wrapping_add(self, n: u32) -> Psn {
        Psn::truncate(self.0.wrapping_add(n))
    }

    /// `self − n` modulo 2^24.
    pub fn wrapping_sub(self, n: u32) -> Psn {
        Psn::truncate(self.0.wrapping_sub(n))
    }

    /// `other − self` modulo 2^24: how many PSNs from `self` forward to `other`.
    pub fn distance_to(self, other: Psn) -> u32 {
        other.0.wrapping_sub(self.0) & Psn::MASK
    }

    /// Signed distance `other − self` within half the space, in −2^23..2^23: positive when
    /// `other` is after `self`, negative when it is behind (IBTA Vol. 1 §9.7.1).
    pub fn offset_to(self, other: Psn) -> i32 {
        let d = self.distance_to(other);
        if d >= Psn::HALF {
            d as i32 - Psn::MODULUS as i32
        } else {
            d as i32
        }
    }

    /// Whether `self` comes after `earlier`: less than half the space ahead of it.
    pub fn is_after(self, earlier: Psn) -> bool {
        let ahead = earlier.distance_to(self);
        ahead != 0 && ahead < Psn::HALF
    }

    /// Circular comparison (see the type documentation). Not a total order: two PSNs
    /// exactly half the space apart are each `Less` than the other.
    pub fn serial_cmp(self, other: Psn) -> Ordering {
        if self == other {
            Ordering::Equal
        } else if self.is_after(other) {
            Ordering::Greater
        } else {
            Ordering::Less
        }
    }
}

impl TryFrom<u32> for Psn {
    type Error = PsnRangeError;
    fn try_from(value: u32) -> Result<Psn, PsnRangeError> {
        Psn::new(value)
    }
}

impl From<Psn> for u32 {
    fn from(psn: Psn) -> u32 {
        psn.0
    }
}

impl fmt::Display for Psn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#08x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn psn_wraps_at_2_pow_24() {
        assert_eq!(Psn::MAX.wrapping_add(1), Psn::new(0).unwrap());
        assert_eq!(Psn::new(0).unwrap().wrapping_sub(1), Psn::MAX);
        assert_eq!(Psn::new(0xff_fffe).unwrap().wrapping_add(5).value(), 3);
        assert!(Psn::new(1 << 24).is_err());
        assert_eq!(Psn::truncate(0x0123_4567).value(), 0x23_4567);
        let a = Psn::new(0xff_fff0).unwrap();
        let b = a.wrapping_add(0x20);
        assert_eq!(a.serial_cmp(b), Ordering::Less);
        assert_eq!(b.serial_cmp(a), Ordering::Greater);
        assert_eq!(a.distance_to(b), 0x20);
        assert_eq!(a.serial_cmp(a), Ordering::Equal);
        // Just under half the space ahead is still "after"; half or more is "before".
        let c = Psn::new(0).unwrap();
        assert_eq!(
            c.wrapping_add((1 << 23) - 1).serial_cmp(c),
            Ordering::Greater
        );
        assert_eq!(c.wrapping_add(1 << 23).serial_cmp(c), Ordering::Less);
        assert_eq!(Psn::new(0x1a2b3c).unwrap().to_string(), "0x1a2b3c");
    }

    #[test]
    fn offsets_across_the_wrap() {
        assert_eq!(Psn::MAX.offset_to(Psn::truncate(1)), 2);
        assert_eq!(Psn::truncate(1).offset_to(Psn::MAX), -2);
        assert!(Psn::truncate(1).is_after(Psn::MAX));
        assert!(!Psn::MAX.is_after(Psn::truncate(1)));
        let half = Psn::truncate(1 << 23);
        assert_eq!(Psn::truncate(0).offset_to(half), -(1 << 23));
        assert!(!half.is_after(Psn::truncate(0)) && !Psn::truncate(0).is_after(half));
    }

    #[test]
    fn serializes_as_the_bare_number() {
        let psn = Psn::truncate(0xab_cdef);
        assert_eq!(serde_json::to_string(&psn).unwrap(), "11259375");
        assert_eq!(serde_json::from_str::<Psn>("11259375").unwrap(), psn);
        let err = serde_json::from_str::<Psn>("16777216").unwrap_err();
        assert!(err.to_string().contains("does not fit in 24 bits"), "{err}");
    }

    /// Any PSN, weighted towards the two ends of the space where the wrap is.
    fn any_psn() -> impl Strategy<Value = Psn> {
        prop_oneof![
            (0..Psn::MODULUS).prop_map(Psn::truncate),
            (0u32..64).prop_map(|n| Psn::MAX.wrapping_sub(n)),
            (0u32..64).prop_map(Psn::truncate),
        ]
    }

    proptest! {
        #[test]
        fn a_step_forward_less_than_half_the_space_is_after(a in any_psn(), n in 1..Psn::HALF) {
            let b = a.wrapping_add(n);
            prop_assert!(b.is_after(a));
            prop_assert!(!a.is_after(b));
            prop_assert_eq!(a.distance_to(b), n);
            prop_assert_eq!(a.offset_to(b), n as i32);
            prop_assert_eq!(b.offset_to(a), -(n as i32));
            prop_assert_eq!(b.serial_cmp(a), Ordering::Greater);
            prop_assert_eq!(a.serial_cmp(b), Ordering::Less);
        }

        #[test]
        fn a_step_of_half_the_space_or_more_is_not_after(a in any_psn(), n in Psn::HALF..Psn::MODULUS) {
            prop_assert!(!a.wrapping_add(n).is_after(a));
        }

        #[test]
        fn add_and_sub_undo_each_other(a in any_psn(), n in any::<u32>()) {
            prop_assert_eq!(a.wrapping_add(n).wrapping_sub(n), a);
            prop_assert_eq!(a.distance_to(a.wrapping_add(n)), n & Psn::MASK);
            prop_assert!(a.wrapping_add(n).value() <= Psn::MASK);
        }

        #[test]
        fn at_most_one_of_two_psns_is_after_the_other(a in any_psn(), b in any_psn()) {
            prop_assert!(!(a.is_after(b) && b.is_after(a)));
            prop_assert_eq!(a == b, a.distance_to(b) == 0);
            // Only exactly half the space apart is neither after the other.
            let neither = a != b && !a.is_after(b) && !b.is_after(a);
            prop_assert_eq!(neither, a.distance_to(b) == Psn::HALF);
            prop_assert_eq!(a.offset_to(b) > 0, b.is_after(a));
        }

        #[test]
        fn new_accepts_exactly_24_bits(v in any::<u32>()) {
            prop_assert_eq!(Psn::new(v).is_ok(), v <= Psn::MASK);
            prop_assert_eq!(Psn::truncate(v).value(), v & Psn::MASK);
        }
    }
}
