//! Numbers as the flows page writes them.

/// A duration: ns below 1 µs, then µs, ms, s with three significant figures.
pub fn ns_text(ns: f64) -> String {
    let (value, unit) = if ns.abs() < 1e3 {
        (ns, "ns")
    } else if ns.abs() < 1e6 {
        (ns / 1e3, "µs")
    } else if ns.abs() < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let decimals = if value.abs() >= 100.0 || unit == "ns" {
        0
    } else if value.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

/// A byte count in the largest binary unit that keeps it at or above 1.
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let name = UNITS.get(unit).copied().unwrap_or("B");
    if value.fract() == 0.0 {
        format!("{value:.0} {name}")
    } else {
        format!("{value:.2} {name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(ns_text(933.2), "933 ns");
        assert_eq!(ns_text(4630.5), "4.63 µs");
        assert_eq!(ns_text(67_114_707.0), "67.1 ms");
        assert_eq!(ns_text(260_100.0), "260 µs");
        assert_eq!(ns_text(2.5e9), "2.50 s");
    }

    #[test]
    fn sizes_pick_their_unit() {
        assert_eq!(bytes_text(64), "64 B");
        assert_eq!(bytes_text(4096), "4 KiB");
        assert_eq!(bytes_text(256 << 20), "256 MiB");
        assert_eq!(bytes_text(1536), "1.50 KiB");
    }
}
