//! The player's shareable state in the URL query:
//! `?scenario=post-send&size=4KiB&network=ib-ndr&step=3`, or `?compare=gpudirect-write,staged-write&step=9`.
//! `step` counts from 1, as the page does.

use engine::flows::ParamField;

use super::form::{field_def, unit, UNITS, UNIT_KEY};
use super::player::{comparison_index, Player};
use crate::views::page_query;

const KEYS: [(ParamField, &str); 8] = [
    (ParamField::MessageBytes, "size"),
    (ParamField::Mtu, "mtu"),
    (ParamField::Pcie, "pcie"),
    (ParamField::Network, "network"),
    (ParamField::Tcp, "tcp"),
    (ParamField::Nvlink, "nvlink"),
    (ParamField::Nodes, "nodes"),
    (ParamField::GpusPerNode, "gpus"),
];

/// Characters written to the query as they are; a field holding others is left out.
fn plain(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// The player a query's pairs describe.
pub fn from_pairs(pairs: &[(String, String)], reduced_motion: bool) -> Player {
    let get = |key: &str| page_query::value(pairs, key);
    let compare = get("compare")
        .and_then(|v| v.split_once(','))
        .and_then(|(l, r)| comparison_index(l, r));
    let mut fields: Vec<(&'static str, String)> = Vec::new();
    for (field, key) in KEYS {
        let Some(value) = get(key).filter(|v| plain(v)) else {
            continue;
        };
        let name = field_def(field).key;
        if field == ParamField::MessageBytes {
            let split = value
                .find(|c: char| c.is_ascii_alphabetic())
                .unwrap_or(value.len());
            let (number, unit) = value.split_at(split);
            let unit = UNITS.iter().find(|(n, _)| *n == unit).unwrap_or(&UNITS[0]);
            fields.push((UNIT_KEY, unit.0.to_string()));
            fields.push((name, number.to_string()));
        } else {
            fields.push((name, value.to_string()));
        }
    }
    let step = get("step")
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&s| s > 0)
        .map(|s| s - 1);
    Player::open(get("scenario"), compare, &fields, step, reduced_motion)
}

/// The query for a player's state.
pub fn pairs(player: &Player) -> Vec<(&'static str, String)> {
    let mut parts = Vec::new();
    match player.comparison() {
        Some(pair) => parts.push(("compare", format!("{},{}", pair.left, pair.right))),
        None => parts.push(("scenario", player.scenario.clone())),
    }
    let shown = player.fields();
    for (field, key) in KEYS {
        if !shown.contains(&field) {
            continue;
        }
        let text = player.form.text(field_def(field).key).trim();
        if !plain(text) {
            continue;
        }
        if field == ParamField::MessageBytes {
            parts.push((key, format!("{text}{}", unit(&player.form).0)));
        } else {
            parts.push((key, text.to_string()));
        }
    }
    let started = player.index > 0 || player.progress > 0.0;
    if started {
        parts.push(("step", (player.index + 1).to_string()));
    }
    parts
}

/// Every comparison, as `compare=` values, for tests.
#[cfg(test)]
fn compare_values() -> Vec<String> {
    engine::flows::comparisons()
        .iter()
        .map(|c| format!("{},{}", c.left, c.right))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(search: &str, reduced_motion: bool) -> Player {
        from_pairs(&page_query::parse(search), reduced_motion)
    }

    fn query(player: &Player) -> String {
        page_query::format(&pairs(player))
    }

    #[test]
    fn a_query_round_trips() {
        let p = parse(
            "?scenario=staged-write&size=64KiB&network=roce-200g&step=5",
            false,
        );
        assert_eq!(p.scenario, "staged-write");
        assert_eq!(p.index, 4);
        assert_eq!(p.form.text("message_bytes"), "64");
        let q = query(&p);
        assert_eq!(parse(&q, false), p);
        assert!(
            q.contains("size=64KiB") && q.contains("network=roce-200g") && q.contains("step=5")
        );
    }

    #[test]
    fn comparisons_round_trip() {
        for value in compare_values() {
            let p = parse(&format!("?compare={value}&step=3"), false);
            assert!(p.compare.is_some(), "{value}");
            assert_eq!(parse(&query(&p), false), p);
        }
    }

    #[test]
    fn nonsense_falls_back_without_panicking() {
        let p = parse("?scenario=%3Cscript%3E&size=lots&step=-4&compare=a", false);
        assert!(p.compare.is_none());
        assert_eq!(p.index, 0);
        assert!(p.form.refusal("message_bytes").is_some() || p.error.is_some());
    }
}
