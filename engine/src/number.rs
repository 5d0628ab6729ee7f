//! Whole numbers as people type them into the lab's fields and flags: decimal, or hex after
//! `0x`, with `_` allowed between digits as Rust and the kernel's docs write long values.

/// `4096`, `0x1000`, `0X1000` and `1_000` → their value; anything else, or a value beyond
/// `u64`, → `None`.
pub fn parse_whole(text: &str) -> Option<u64> {
    let t = text.trim().replace('_', "");
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_whole;

    #[test]
    fn decimal_and_hex_with_separators() {
        assert_eq!(parse_whole("4096"), Some(4096));
        assert_eq!(parse_whole(" 0x1000 "), Some(4096));
        assert_eq!(parse_whole("0X1_000"), Some(4096));
        assert_eq!(parse_whole("1_000_000"), Some(1_000_000));
        assert_eq!(parse_whole("0x"), None);
        assert_eq!(parse_whole("-1"), None);
        assert_eq!(parse_whole("ten"), None);
        assert_eq!(parse_whole("0x1_0000_0000_0000_0000"), None);
    }
}
