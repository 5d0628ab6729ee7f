//! Turning two readings of a counter into a rate, across counter resets and saturation.
//!
//! Kernel counters only grow, and the InfiniBand port counters do not wrap: the IBA
//! PortCounters attribute saturates, it stops at all ones (rdma-core's `perfquery` says so:
//! "IB semantics is to cap counters", `infiniband-diags/perfquery.c`). So a smaller value than
//! last time means the counter was cleared (a driver reload, `perfquery -R`, a device reset),
//! for which no rate can be known, and a counter pinned at its width's maximum counts no
//! more. The widths are those the kernel reads PortCounters with (`PORT_PMA_ATTR` in
//! `drivers/infiniband/core/sysfs.c`: 4, 8, 16 and 32 bits); where a device has the 64-bit
//! PortCountersExt attribute the kernel shows that instead for the data and packet counters,
//! and those never reach 2^32 − 1 unchanged. Hardware counters (`hw_counters/`) and netdev
//! statistics are 64 bits wide here.

use serde::{Deserialize, Serialize};

use super::CounterSample;

/// The value at which an InfiniBand port counter saturates, by its sysfs name (`counters/`),
/// from the kernel's PortCounters table; `None` for a counter with no narrow width.
pub fn saturation_limit(name: &str) -> Option<u64> {
    let bits = match name {
        "local_link_integrity_errors" | "excessive_buffer_overrun_errors" => 4,
        "link_error_recovery"
        | "link_downed"
        | "port_xmit_constraint_errors"
        | "port_rcv_constraint_errors" => 8,
        "symbol_error"
        | "port_rcv_errors"
        | "port_rcv_remote_physical_errors"
        | "port_rcv_switch_relay_errors"
        | "port_xmit_discards"
        | "VL15_dropped" => 16,
        "port_xmit_data" | "port_rcv_data" | "port_xmit_packets" | "port_rcv_packets"
        | "port_xmit_wait" => 32,
        _ => return None,
    };
    Some((1u64 << bits) - 1)
}

/// How a counter moved between two readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delta {
    /// It grew by this much.
    Increase(u64),
    /// It was cleared: the advance over the interval is unknown.
    Reset,
    /// It is pinned at the largest value its width holds and counts no more.
    Saturated,
}

/// What a [`CounterSample`]'s rate can be trusted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterStatus {
    /// The rate is the counter's growth over the interval.
    Ok,
    /// First reading of this counter, or the first since it was unreadable: no rate yet.
    First,
    /// The counter went down (cleared): no rate for this interval.
    Reset,
    /// The counter is stuck at its maximum: it no longer counts, no rate.
    Saturated,
    /// The file could not be read this time (or last time): no rate.
    Unavailable,
}

/// Classifies the move from `previous` to `now` of a counter that saturates at `limit`.
pub fn delta(previous: u64, now: u64, limit: Option<u64>) -> Delta {
    if now < previous {
        Delta::Reset
    } else if now == previous && limit == Some(now) {
        Delta::Saturated
    } else {
        Delta::Increase(now - previous)
    }
}

/// One counter's sample. `scale` converts the counter's unit (4 for the data-word counters,
/// else 1); `elapsed_ms` is the time between the two readings.
pub fn sample(
    previous: Option<u64>,
    now: Option<u64>,
    elapsed_ms: u64,
    scale: u64,
    limit: Option<u64>,
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
        Some(before) => match delta(before, value, limit) {
            Delta::Increase(advance) => (CounterStatus::Ok, Some(advance)),
            Delta::Reset => (CounterStatus::Reset, None),
            Delta::Saturated => (CounterStatus::Saturated, None),
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

    const U32: u64 = u32::MAX as u64;

    #[test]
    fn growth_is_the_difference() {
        assert_eq!(delta(10, 25, None), Delta::Increase(15));
        assert_eq!(delta(7, 7, None), Delta::Increase(0));
        assert_eq!(delta(u64::MAX - 5, u64::MAX, None), Delta::Increase(5));
        assert_eq!(delta(U32 - 5, U32, Some(U32)), Delta::Increase(5));
    }

    #[test]
    fn any_decrease_is_a_reset_for_counters_cap_rather_than_wrap() {
        // What a 32-bit wrap would look like is a clear: no rate is invented for it.
        assert_eq!(delta(U32 - 10, 5, Some(U32)), Delta::Reset);
        assert_eq!(delta(1 << 40, 12, None), Delta::Reset);
        assert_eq!(delta(1_000, 3, None), Delta::Reset);
    }

    #[test]
    fn a_counter_pinned_at_its_widths_maximum_is_saturated() {
        let limit = saturation_limit("symbol_error");
        assert_eq!(limit, Some(65_535));
        assert_eq!(delta(65_535, 65_535, limit), Delta::Saturated);
        assert_eq!(
            delta(15, 15, saturation_limit("local_link_integrity_errors")),
            Delta::Saturated
        );
        assert_eq!(
            delta(255, 255, saturation_limit("link_downed")),
            Delta::Saturated
        );
        // A 64-bit hardware counter resting at 65 535 is only idle.
        assert_eq!(saturation_limit("np_cnp_sent"), None);
        assert_eq!(delta(65_535, 65_535, None), Delta::Increase(0));
        let s = sample(
            Some(U32),
            Some(U32),
            1000,
            4,
            saturation_limit("port_xmit_data"),
        );
        assert_eq!(s.status, CounterStatus::Saturated);
        assert_eq!(s.per_second, None);
    }

    #[test]
    fn rates_are_per_second_and_scaled() {
        let s = sample(Some(100), Some(350), 250, 4, Some(U32));
        assert_eq!(s.status, CounterStatus::Ok);
        // 250 words in 0.25 s = 1000 words/s = 4000 octets/s.
        assert_eq!(s.per_second, Some(4_000.0));
    }

    #[test]
    fn no_rate_without_two_readings_or_across_a_reset() {
        assert_eq!(
            sample(None, Some(5), 1000, 1, None).status,
            CounterStatus::First
        );
        let reset = sample(Some(1 << 40), Some(3), 1000, 1, None);
        assert_eq!(reset.status, CounterStatus::Reset);
        assert_eq!(reset.per_second, None);
        assert_eq!(reset.value, Some(3));
        let gone = sample(Some(5), None, 1000, 1, None);
        assert_eq!(gone.status, CounterStatus::Unavailable);
        let no_time = sample(Some(5), Some(6), 0, 1, None);
        assert_eq!(no_time.status, CounterStatus::Unavailable);
        assert_eq!(no_time.per_second, None);
    }
}
