//! The text formats of the sysfs attributes the probe reads, as the kernel prints them
//! (`drivers/infiniband/core/sysfs.c`, `net/core/net-sysfs.c`): what a file's text means,
//! apart from how the probe finds and reads the file.

use std::fmt;

use super::Enumerated;

/// A file's text did not have the format its name promises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    pub expected: &'static str,
    pub found: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {:?}", self.expected, self.found)
    }
}

impl std::error::Error for FormatError {}

fn format_error(expected: &'static str, found: &str) -> FormatError {
    FormatError {
        expected,
        found: found.chars().take(80).collect(),
    }
}

/// A counter: a decimal unsigned integer (`%llu`).
pub fn counter(text: &str) -> Result<u64, FormatError> {
    text.trim()
        .parse()
        .map_err(|_| format_error("a decimal counter", text))
}

/// "`<code>: <name>`", as port `state` ("4: ACTIVE"), `phys_state` ("5: LinkUp") and
/// `node_type` ("1: CA") are printed.
pub fn enumerated(text: &str) -> Result<Enumerated, FormatError> {
    let expected = "\"<number>: <name>\"";
    let (code, name) = text
        .split_once(':')
        .ok_or_else(|| format_error(expected, text))?;
    let code = code
        .trim()
        .parse()
        .map_err(|_| format_error(expected, text))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format_error(expected, text));
    }
    Ok(Enumerated {
        code,
        name: name.to_string(),
    })
}

/// The Gb/s figure that leads a port `rate`: "100 Gb/sec (4X EDR)" → 100, "2.5 Gb/sec (1X SDR)"
/// → 2.5.
pub fn rate_gbps(text: &str) -> Result<f64, FormatError> {
    let expected = "\"<number> Gb/sec (<width>X <speed>)\"";
    let (number, rest) = text
        .trim()
        .split_once(' ')
        .ok_or_else(|| format_error(expected, text))?;
    if !rest.starts_with("Gb/sec") {
        return Err(format_error(expected, text));
    }
    let gbps: f64 = number.parse().map_err(|_| format_error(expected, text))?;
    if gbps.is_finite() && gbps >= 0.0 {
        Ok(gbps)
    } else {
        Err(format_error(expected, text))
    }
}

/// A LID as `lid` and `sm_lid` print it: "0x1c". LIDs are 16 bits (the IBTA LRH DLID/SLID width).
pub fn lid(text: &str) -> Result<u32, FormatError> {
    let expected = "a hexadecimal LID such as 0x1c";
    let digits = text
        .trim()
        .strip_prefix("0x")
        .ok_or_else(|| format_error(expected, text))?;
    let value = u32::from_str_radix(digits, 16).map_err(|_| format_error(expected, text))?;
    if value > u32::from(u16::MAX) {
        return Err(format_error(expected, text));
    }
    Ok(value)
}

/// A GID as `gids/<n>` prints it (`%pI6`): eight groups of four hex digits.
pub fn gid(text: &str) -> Result<[u16; 8], FormatError> {
    let expected = "a GID of eight 4-hex-digit groups";
    let mut groups = [0u16; 8];
    let mut count = 0;
    for part in text.trim().split(':') {
        let slot = groups
            .get_mut(count)
            .ok_or_else(|| format_error(expected, text))?;
        if part.len() != 4 {
            return Err(format_error(expected, text));
        }
        *slot = u16::from_str_radix(part, 16).map_err(|_| format_error(expected, text))?;
        count += 1;
    }
    if count != groups.len() {
        return Err(format_error(expected, text));
    }
    Ok(groups)
}

/// The dotted IPv4 address of an IPv4-mapped GID `::ffff:a.b.c.d` (RFC 4291 section 2.5.5.2),
/// which is how RoCE encodes an IPv4 address in a GID.
pub fn ipv4_of_gid(groups: &[u16; 8]) -> Option<String> {
    let [0, 0, 0, 0, 0, 0xffff, high, low] = *groups else {
        return None;
    };
    let [a, b] = high.to_be_bytes();
    let [c, d] = low.to_be_bytes();
    Some(format!("{a}.{b}.{c}.{d}"))
}

/// A netdev `speed` in Mb/s; the kernel prints -1 (`SPEED_UNKNOWN`) when it has none.
pub fn speed_mbps(text: &str) -> Result<Option<u64>, FormatError> {
    let value: i64 = text
        .trim()
        .parse()
        .map_err(|_| format_error("a speed in Mb/s", text))?;
    Ok(u64::try_from(value).ok())
}

/// A decimal number of another width (`mtu`, `numa_node`, a `cc_params` value).
pub fn number<T: std::str::FromStr>(text: &str, expected: &'static str) -> Result<T, FormatError> {
    text.trim()
        .parse()
        .map_err(|_| format_error(expected, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerated_values_split_code_and_name() {
        let state = enumerated("4: ACTIVE").unwrap();
        assert_eq!((state.code, state.name.as_str()), (4, "ACTIVE"));
        let phys = enumerated("5: LinkUp").unwrap();
        assert_eq!((phys.code, phys.name.as_str()), (5, "LinkUp"));
        assert!(enumerated("ACTIVE").is_err());
        assert!(enumerated("x: ACTIVE").is_err());
        assert!(enumerated("4:").is_err());
    }

    #[test]
    fn rates_lead_with_gigabits() {
        assert_eq!(rate_gbps("100 Gb/sec (4X EDR)").unwrap(), 100.0);
        assert_eq!(rate_gbps("2.5 Gb/sec (1X SDR)").unwrap(), 2.5);
        assert!(rate_gbps("fast").is_err());
        assert!(rate_gbps("100 Mb/sec").is_err());
    }

    #[test]
    fn gids_and_ipv4_mapping() {
        let mapped = gid("0000:0000:0000:0000:0000:ffff:0a00:0001").unwrap();
        assert_eq!(ipv4_of_gid(&mapped).as_deref(), Some("10.0.0.1"));
        let link_local = gid("fe80:0000:0000:0000:0e42:a1ff:fef2:1a2a").unwrap();
        assert_eq!(link_local[0], 0xfe80);
        assert_eq!(ipv4_of_gid(&link_local), None);
        assert!(gid("fe80::1").is_err());
        assert!(gid("fe80:0000:0000:0000:0e42:a1ff:fef2:1a2a:0000").is_err());
        assert!(gid("fe80:0000:0000:0000:0e42:a1ff:fef2").is_err());
    }

    #[test]
    fn lids_counters_and_speeds() {
        assert_eq!(lid("0x1c").unwrap(), 28);
        assert!(lid("28").is_err());
        assert!(lid("0x10000").is_err());
        assert_eq!(counter("18446744073709551615").unwrap(), u64::MAX);
        assert!(counter("-1").is_err());
        assert_eq!(speed_mbps("100000").unwrap(), Some(100_000));
        assert_eq!(speed_mbps("-1").unwrap(), None);
    }
}
