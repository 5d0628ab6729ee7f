//! How the views write numbers a learner compares at a glance: counts, byte sizes, durations
//! and rates, one function each, so the same quantity reads the same on every page.
//!
//! One rounding rule for sizes and durations: a whole value is written whole, anything else
//! with three significant figures (`1.50 KiB`, `4.63 µs`, `67.1 ms`); rates on the live
//! charts' narrow axes drop trailing zeros instead (`1.5 MB/s`).

/// A whole number with a thin space between thousands (`1 000 000`), as the reference text
/// writes long figures. A fractional part is rounded off first.
pub fn grouped(value: f64) -> String {
    let digits = format!("{value:.0}");
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", digits.as_str()),
    };
    let mut out = String::from(sign);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// A byte count in the largest binary unit that keeps it at or above 1: `4 KiB`, `1.50 KiB`.
pub fn bytes(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let name = UNITS[unit];
    if value.fract() == 0.0 {
        format!("{value:.0} {name}")
    } else {
        format!("{value:.2} {name}")
    }
}

/// A duration given in seconds: ns below 1 µs, then µs, ms and s, three significant figures.
pub fn duration(seconds: f64) -> String {
    duration_ns(seconds * 1e9)
}

/// A duration given in nanoseconds, written as [`duration`] writes it.
pub fn duration_ns(ns: f64) -> String {
    let (value, unit) = if ns.abs() < 1e3 {
        (ns, "ns")
    } else if ns.abs() < 1e6 {
        (ns / 1e3, "µs")
    } else if ns.abs() < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if unit == "ns" {
        format!("{value:.0} {unit}")
    } else {
        format!("{} {unit}", significant(value))
    }
}

/// Three significant figures for a value from 1 to 999.
pub fn significant(value: f64) -> String {
    if value.abs() >= 100.0 {
        format!("{value:.0}")
    } else if value.abs() >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// 1234567 → "1.23 M": an SI prefix and at most two decimals, trailing zeros dropped, so a
/// chart's axis stays narrow.
pub fn si(value: f64) -> String {
    let magnitude = value.abs();
    let (scaled, suffix) = if magnitude >= 1e9 {
        (value / 1e9, " G")
    } else if magnitude >= 1e6 {
        (value / 1e6, " M")
    } else if magnitude >= 1e3 {
        (value / 1e3, " k")
    } else {
        (value, "")
    };
    let digits = format!("{scaled:.2}");
    let digits = digits.trim_end_matches('0').trim_end_matches('.');
    format!("{digits}{suffix}")
}

/// A rate per second of `unit` (`B`, or `""` for events): `1.5 MB/s`, `12 B/s`, `0.25/s`.
pub fn rate(value: f64, unit: &str) -> String {
    let number = si(value);
    // A prefix joins its unit (`MB/s`); a bare number is spaced from one (`12 B/s`).
    let space = if unit.is_empty() || number.ends_with(char::is_alphabetic) {
        ""
    } else {
        " "
    };
    format!("{number}{space}{unit}/s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_pick_their_unit() {
        assert_eq!(bytes(64.0), "64 B");
        assert_eq!(bytes(4096.0), "4 KiB");
        assert_eq!(bytes((256u64 << 20) as f64), "256 MiB");
        assert_eq!(bytes(1536.0), "1.50 KiB");
        assert_eq!(bytes(8.0 * 1024.0 * 1024.0 * 1024.0), "8 GiB");
    }

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(duration_ns(933.2), "933 ns");
        assert_eq!(duration_ns(4630.5), "4.63 µs");
        assert_eq!(duration_ns(67_114_707.0), "67.1 ms");
        assert_eq!(duration_ns(260_100.0), "260 µs");
        assert_eq!(duration_ns(2.5e9), "2.50 s");
        assert_eq!(duration(2.5), "2.50 s");
        assert_eq!(duration(0.1234), "123 ms");
        assert_eq!(duration(42e-6), "42.0 µs");
    }

    #[test]
    fn rates_take_a_prefix() {
        assert_eq!(si(1_234_567.0), "1.23 M");
        assert_eq!(rate(1_500_000.0, "B"), "1.5 MB/s");
        assert_eq!(rate(12.0, "B"), "12 B/s");
        assert_eq!(rate(0.25, ""), "0.25/s");
        assert_eq!(rate(1500.0, ""), "1.5 k/s");
    }

    #[test]
    fn thousands_are_spaced() {
        assert_eq!(grouped(1_000_000.0), "1\u{202f}000\u{202f}000");
        assert_eq!(grouped(43_496.0), "43\u{202f}496");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(-12_500.0), "-12\u{202f}500");
    }
}
