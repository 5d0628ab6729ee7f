//! Words the models write for people to read.

/// `n` with the noun that agrees with it: "1 packet", "0 packets", "3 packets".
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn the_noun_agrees_with_the_number() {
        assert_eq!(count(1, "packet", "packets"), "1 packet");
        assert_eq!(count(0, "packet", "packets"), "0 packets");
        assert_eq!(count(16, "host", "hosts"), "16 hosts");
    }
}
