//! Frame bytes as editable hex text, the way a learner edits a packet in the lab's hex
//! pane: pairs of hex digits, with any whitespace between them.

use core::fmt;
use serde::{Deserialize, Serialize};

/// Where hex text stopped making sense.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HexError {
    /// 1-based line and column of the offending character.
    pub line: usize,
    pub column: usize,
    /// Index of the byte being read when the error was found.
    pub byte: usize,
    pub message: String,
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {} (byte {}): {}",
            self.line, self.column, self.byte, self.message
        )
    }
}

impl std::error::Error for HexError {}

/// Parses hex digits in pairs; whitespace may separate bytes but not split one.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, HexError> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<(u8, usize, usize)> = None;
    let (mut line, mut column) = (1usize, 0usize);
    for ch in text.chars() {
        column += 1;
        if ch == '\n' {
            if let Some((_, l, c)) = high {
                return Err(half_byte(l, c, out.len()));
            }
            line += 1;
            column = 0;
            continue;
        }
        if ch.is_whitespace() {
            if let Some((_, l, c)) = high {
                return Err(half_byte(l, c, out.len()));
            }
            continue;
        }
        let Some(digit) = ch.to_digit(16) else {
            return Err(HexError {
                line,
                column,
                byte: out.len(),
                message: format!("{ch:?} is not a hex digit"),
            });
        };
        let digit = digit as u8;
        match high.take() {
            Some((h, _, _)) => out.push(h << 4 | digit),
            None => high = Some((digit, line, column)),
        }
    }
    if let Some((_, l, c)) = high {
        return Err(half_byte(l, c, out.len()));
    }
    Ok(out)
}

fn half_byte(line: usize, column: usize, byte: usize) -> HexError {
    HexError {
        line,
        column,
        byte,
        message: "a byte needs two hex digits; this one has one".to_string(),
    }
}

/// Lowercase hex, 16 bytes a line in groups of 8, which [`parse_hex`] reads back.
pub fn format_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push_str(match (i % 16, i % 8) {
                (0, _) => "\n",
                (_, 0) => "  ",
                _ => " ",
            });
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Lowercase hex with no separators (`"0a1b"`), as the dissector shows unstructured bytes.
pub fn plain_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * bytes.len());
    for &x in bytes {
        s.push(char::from(DIGITS[usize::from(x >> 4)]));
        s.push(char::from(DIGITS[usize::from(x & 0xF)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatted_hex_reads_back() {
        let bytes: Vec<u8> = (0..=255).collect();
        let text = format_hex(&bytes);
        assert_eq!(text.lines().count(), 16);
        assert_eq!(parse_hex(&text), Ok(bytes));
    }

    #[test]
    fn errors_name_line_column_and_byte() {
        let e = parse_hex("00 11\n22 3g").unwrap_err();
        assert_eq!((e.line, e.column, e.byte), (2, 5, 3));
        assert!(e.message.contains("'g'"));
        let e = parse_hex("00 1 22").unwrap_err();
        assert_eq!((e.line, e.column, e.byte), (1, 4, 1));
        let e = parse_hex("ab c").unwrap_err();
        assert_eq!((e.line, e.column, e.byte), (1, 4, 1));
    }

    #[test]
    fn case_and_spacing_do_not_matter() {
        assert_eq!(
            parse_hex("  DeAd\tbeef \n"),
            Ok(vec![0xDE, 0xAD, 0xBE, 0xEF])
        );
        assert_eq!(parse_hex(""), Ok(vec![]));
    }
}
