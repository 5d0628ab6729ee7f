//! The calculator's state in the URL query. The machine keys are a contract with the
//! /topology page's link: `gpu`, `gpn`, `nodes`, `nic`, `nics`, `gdr`, `sharp`, `op`, `size`
//! and optionally `preset`; this view also owns `sweep` and every `cmp-` key. Writing the
//! query replaces only those: another widget's pairs (`train-…`) stay as they are. `nic` is a
//! model id (`roce-400`) or, from the NCCL log explainer, a network without a rate (`roce`,
//! `ib`, `tcp`, `none`), which the page reads at its default NIC's rate.

/// The keys this view writes besides the `cmp-` ones.
const OWNED: [&str; 11] = [
    "preset", "gpu", "gpn", "nodes", "nic", "nics", "gdr", "sharp", "op", "size", "sweep",
];
const OWNED_PREFIX: &str = "cmp-";

pub fn owned(key: &str) -> bool {
    OWNED.contains(&key) || key.starts_with(OWNED_PREFIX)
}

/// `1`/`0` (also `true`/`false`, `on`/`off`) as a switch; anything else is not one.
pub fn switch(value: &str) -> Option<bool> {
    match value {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

pub fn switch_text(on: bool) -> &'static str {
    if on {
        "1"
    } else {
        "0"
    }
}

/// This view's pairs first, then every pair of the current query it does not own.
pub fn merge(
    mine: Vec<(&'static str, String)>,
    current: &[(String, String)],
) -> Vec<(String, String)> {
    mine.into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .chain(current.iter().filter(|(k, _)| !owned(k)).cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::page_query;

    #[test]
    fn writing_keeps_other_widgets_pairs_and_replaces_its_own() {
        let current = page_query::parse("?train-gpus=64&nodes=2&cmp-nic=tcp-100&train-net=tcp&x=1");
        let merged = merge(
            vec![("nodes", "128".into()), ("cmp-gdr", "0".into())],
            &current,
        );
        assert_eq!(
            page_query::format(&merged),
            "?nodes=128&cmp-gdr=0&train-gpus=64&train-net=tcp&x=1"
        );
        assert_eq!(switch("1"), Some(true));
        assert_eq!(switch("0"), Some(false));
        assert_eq!(switch("maybe"), None);
    }
}
