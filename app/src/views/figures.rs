//! How the views write numbers a learner compares at a glance.

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

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn thousands_are_spaced() {
        assert_eq!(grouped(1_000_000.0), "1\u{202f}000\u{202f}000");
        assert_eq!(grouped(43_496.0), "43\u{202f}496");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(-12_500.0), "-12\u{202f}500");
    }
}
