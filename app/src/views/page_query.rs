//! The page's URL query, where a view keeps its shareable state (`/qp?type=RC&state=RTS`,
//! `/flows?scenario=post-send&step=3`, …): a link opens the view as it was, and a reload
//! keeps it. Each view maps its state to and from key/value pairs; this reads the pairs and
//! rewrites the query with `history.replaceState` (no history entry per change).

use gloo::utils::window;
use wasm_bindgen::JsValue;

/// The query's pairs, decoded, in order; a key without `=` has an empty value.
pub fn parse(search: &str) -> Vec<(String, String)> {
    search
        .trim_start_matches('?')
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

/// The query for `pairs`, with its `?`; empty for no pairs.
pub fn format<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) -> String {
    let mut search = String::new();
    for (key, value) in pairs {
        search.push(if search.is_empty() { '?' } else { '&' });
        encode(key.as_ref(), &mut search);
        search.push('=');
        encode(value.as_ref(), &mut search);
    }
    search
}

/// The first value of `key`.
pub fn value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The page's query.
pub fn read() -> Vec<(String, String)> {
    parse(&window().location().search().unwrap_or_default())
}

/// Makes `pairs` the page's query, keeping the path and any `#anchor`; no pairs, no `?`.
pub fn replace<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) {
    let location = window().location();
    let search = format(pairs);
    // replaceState costs milliseconds in Chromium: skip it when nothing changed.
    if location.search().unwrap_or_default() == search {
        return;
    }
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    replace_url(&format!("{path}{search}{hash}"));
}

/// Makes `anchor` the page's `#anchor`, keeping the path and the query (the view's state).
pub fn replace_anchor(anchor: &str) {
    let location = window().location();
    let path = location.pathname().unwrap_or_default();
    let search = location.search().unwrap_or_default();
    replace_url(&format!("{path}{search}#{anchor}"));
}

fn replace_url(url: &str) {
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

/// Writes `text` percent-encoded, leaving as they are the characters a view's values are
/// made of (names, numbers, `a,b` pairs, MAC addresses), so a link stays readable.
fn encode(text: &str, out: &mut String) {
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~,:".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

/// Undoes `%XX` escapes and reads `+` as a space (as a form's query has it); a `%` without
/// two hex digits after it is kept as typed.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[i], escaped) {
            (_, Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', None) => {
                out.push(b' ');
                i += 1;
            }
            (byte, None) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_round_trip_and_plain_values_stay_readable() {
        let pairs = vec![
            (
                "compare".to_string(),
                "gpudirect-write,staged-write".to_string(),
            ),
            ("src_mac".to_string(), "02:00:00:00:00:01".to_string()),
            ("dcqcn.g".to_string(), "0.5".to_string()),
            ("note".to_string(), "a b&c=d%é".to_string()),
        ];
        let search = format(&pairs);
        assert!(search.starts_with("?compare=gpudirect-write,staged-write&src_mac=02:00:"));
        assert!(search.contains("&dcqcn.g=0.5&"));
        assert_eq!(parse(&search), pairs);
        assert_eq!(format::<&str, &str>(&[]), "");
    }

    #[test]
    fn reading_takes_form_escapes_and_junk() {
        let pairs = parse("?a=1+2&b=%3Cscript%3E&c&&d=%zz&e=%4");
        let get = |k| value(&pairs, k);
        assert_eq!(get("a"), Some("1 2"));
        assert_eq!(get("b"), Some("<script>"));
        assert_eq!(get("c"), Some(""));
        assert_eq!(get("d"), Some("%zz"));
        assert_eq!(get("e"), Some("%4"));
        assert_eq!(get("f"), None);
        assert!(parse("").is_empty() && parse("?").is_empty());
    }
}
