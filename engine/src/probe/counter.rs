//! Turning two readings of a counter into a rate, across 32-bit wrap and counter reset.
//!
//! Kernel counters only grow, so a smaller value than last time means one of two things:
//! the counter is 32 bits wide and passed 2^32 (it wrapped), or it was cleared (a driver
//! reload, `echo 0`, a device reset). Sysfs does not say how wide a counter is: the kernel
//! picks the 32-bit IBTA PortCounters or the 64-bit PortCountersExt attribute per device
//! (`drivers/infiniband/core/sysfs.c`), and hardware counters are driver-defined. So the width
//! is inferred: a decrease from a value that fits in 32 bits, by less than half the 32-bit
//! range once wrapped, is a wrap; any other decrease is a reset, for which no rate can be
//! known. The IBTA PortCounters attribute stops at all ones rather than wrapping, so a
//! 32-bit counter stuck at 2^32 − 1 is reported as saturated.

use serde::{Deserialize, Serialize};

use super::CounterSample;

/// 2^32: one full turn of a 32-bit counter.
const TURN_32: u64 = 1 << 32;
/// The largest advance accepted as a 32-bit wrap: half a turn. A larger one is more likely a
/// reset from a high value.
const MAX_WRAPPED_ADVANCE: u64 = TURN_32 / 2;

/// How a counter moved between two readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delta {
    /// It grew by this much.
    Increase(u64),
    /// A 32-bit counter passed 2^32 and grew by this much in all.
    Wrapped32(u64),
    /// It was cleared: the advance over the interval is unknown.
    Reset,
    /// A 32-bit counter is pinned at 2^32 − 1 and counts no more.
    Saturated32,
}

/// What a [`CounterSample`]'s rate can be trusted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterStatus {
    /// The rate is the counter's growth over the interval.
    Ok,
    /// As `ok`, across a 32-bit wrap.
    Wrapped,
    /// First reading of this counter, or the first since it was unreadable: no rate yet.
    First,
    /// The counter went down (cleared): no rate for this interval.
    Reset,
    /// A 32-bit counter stuck at its maximum: it no longer counts, no rate.
    Saturated,
    /// The file could not be read this time (or last time): no rate.
    Unavailable,
}

/// Classifies the move from `previous` to `now`.
pub fn delta(previous: u64, now: u64) -> Delta {
    if now >= previous {
        if now == previous && now == u64::from(u32::MAX) {
            return Delta::Saturated32;
        }
        return Delta::Increase(now - previous);
    }
    if previous < TURN_32 {
        // now < previous < 2^32, so this neither overflows nor underflows.
        let advance = TURN_32 - previous + now;
        if advance <= MAX_WRAPPED_ADVANCE {
            return Delta::Wrapped32(advance);
        }
    }
    Delta::Reset
}

/// One counter's sample. `scale` converts the counter's unit (4 for the data-word counters,
/// else 1); `elapsed_ms` is the time between the two readings.
pub fn sample(
    previous: Option<u64>,
    now: Option<u64>,
    elapsed_ms: u64,
    scale: u64,
) -> CounterSample {
    let Some(value) = now else {
        return CounterSample {
            value: None,
            per_second: None,
            status: CounterStatus::Unavailable,
        };
    };
    let (status, advance) = match previous {
        None => (CounterStatus::First, None),
        Some(before) => match delta(before, value) {
            Delta::Increase(advance) => (CounterStatus::Ok, Some(advance)),
            Delta::Wrapped32(advance) => (CounterStatus::Wrapped, Some(advance)),
            Delta::Reset => (CounterStatus::Reset, None),
            Delta::Saturated32 => (CounterStatus::Saturated, None),
        },
    };
    let per_second = match advance {
        Some(advance) if elapsed_ms > 0 => {
            // f64 keeps 53 bits: exact for any advance a real interval can produce.
            Some(advance as f64 * scale as f64 * 1000.0 / elapsed_ms as f64)
        }
        _ => None,
    };
    let status = if advance.is_some() && per_second.is_none() {
        CounterStatus::Unavailable
    } else {
        status
    };
    CounterSample {
        value: Some(value),
        per_second,
        status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_is_the_difference() {
        assert_eq!(delta(10, 25), Delta::Increase(15));
        assert_eq!(delta(7, 7), Delta::Increase(0));
        assert_eq!(delta(u64::MAX - 5, u64::MAX), Delta::Increase(5));
    }

    #[test]
    fn a_32_bit_counter_wraps_through_zero() {
        // 2^32 − 10 → 5 is 10 steps to reach 2^32 (= 0) and 5 more.
        assert_eq!(delta((1 << 32) - 10, 5), Delta::Wrapped32(15));
        assert_eq!(delta(u64::from(u32::MAX), 0), Delta::Wrapped32(1));
        // Exactly half a turn is still accepted; one step more is not.
        assert_eq!(delta(1 << 31, 0), Delta::Wrapped32(1 << 31));
        assert_eq!(delta((1 << 31) - 1, 0), Delta::Reset);
    }

    #[test]
    fn a_decrease_on_a_wide_counter_is_a_reset() {
        assert_eq!(delta(1 << 40, 12), Delta::Reset);
        assert_eq!(delta(u64::from(u32::MAX) + 1, 0), Delta::Reset);
        assert_eq!(delta(1_000, 3), Delta::Reset);
    }

    #[test]
    fn a_pinned_32_bit_counter_is_saturated() {
        assert_eq!(
            delta(u64::from(u32::MAX), u64::from(u32::MAX)),
            Delta::Saturated32
        );
        let s = sample(
            Some(u64::from(u32::MAX)),
            Some(u64::from(u32::MAX)),
            1000,
            1,
        );
        assert_eq!(s.status, CounterStatus::Saturated);
        assert_eq!(s.per_second, None);
    }

    #[test]
    fn rates_are_per_second_and_scaled() {
        let s = sample(Some(100), Some(350), 250, 4);
        assert_eq!(s.status, CounterStatus::Ok);
        // 250 words in 0.25 s = 1000 words/s = 4000 octets/s.
        assert_eq!(s.per_second, Some(4_000.0));
        let wrapped = sample(Some((1 << 32) - 100), Some(100), 2_000, 4);
        assert_eq!(wrapped.status, CounterStatus::Wrapped);
        assert_eq!(wrapped.per_second, Some(400.0));
    }

    #[test]
    fn no_rate_without_two_readings_or_across_a_reset() {
        assert_eq!(sample(None, Some(5), 1000, 1).status, CounterStatus::First);
        let reset = sample(Some(1 << 40), Some(3), 1000, 1);
        assert_eq!(reset.status, CounterStatus::Reset);
        assert_eq!(reset.per_second, None);
        assert_eq!(reset.value, Some(3));
        let gone = sample(Some(5), None, 1000, 1);
        assert_eq!(gone.status, CounterStatus::Unavailable);
        let no_time = sample(Some(5), Some(6), 0, 1);
        assert_eq!(no_time.status, CounterStatus::Unavailable);
        assert_eq!(no_time.per_second, None);
    }
}
