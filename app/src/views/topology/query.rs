//! The page's shareable state in the URL query: the preset a fabric started from, every
//! part of its spec (named as in the spec's JSON), its network, the two GPUs picked and PXN.
//! `?preset=superpod-h100-4su&gpus=1016&…&network=ib&from=0&to=13&pxn=1`.

use engine::fabric::{FabricSpec, Tiers};

use super::fields::{apply, text, FIELDS};
use super::network::Network;
use crate::views::form::FieldDef;

#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The preset the fabric started from (its GPU and NIC models name the machines).
    pub preset: Option<String>,
    /// The spec's parts as the link gives them, by key; applied over the preset's.
    pub parts: Vec<(String, String)>,
    /// The network's id as the link gives it (`ib`, `roce`, `tcp`); the preset's when absent.
    pub network: Option<String>,
    pub from: Option<u64>,
    pub to: Option<u64>,
    pub pxn: bool,
}

pub fn tiers_name(t: Tiers) -> &'static str {
    match t {
        Tiers::Two => "2",
        Tiers::Three => "3",
        Tiers::Auto => "auto",
    }
}

pub fn tiers_from(name: &str) -> Option<Tiers> {
    [Tiers::Two, Tiers::Three, Tiers::Auto]
        .into_iter()
        .find(|t| tiers_name(*t) == name)
}

impl Query {
    pub fn from_pairs(pairs: &[(String, String)]) -> Query {
        let mut q = Query {
            preset: None,
            parts: Vec::new(),
            network: None,
            from: None,
            to: None,
            pxn: false,
        };
        for (key, value) in pairs {
            match key.as_str() {
                "preset" => q.preset = Some(value.clone()),
                "network" => q.network = Some(value.clone()),
                "from" => q.from = value.parse().ok(),
                "to" => q.to = value.parse().ok(),
                "pxn" => q.pxn = value == "1",
                _ => q.parts.push((key.clone(), value.clone())),
            }
        }
        q
    }

    /// Writes the link's parts into `spec`; a part that does not read is left as it was
    /// and named in the answer.
    pub fn apply_parts(&self, spec: &mut FabricSpec) -> Vec<String> {
        let mut unread = Vec::new();
        for (key, value) in &self.parts {
            let ok = match key.as_str() {
                "tiers" => tiers_from(value).map(|t| spec.tiers = t).is_some(),
                "rail_optimized" => match value.as_str() {
                    "1" => {
                        spec.rail_optimized = true;
                        true
                    }
                    "0" => {
                        spec.rail_optimized = false;
                        true
                    }
                    _ => false,
                },
                "planes" => value.parse().map(|p| spec.planes = p).is_ok(),
                k => match FieldDef::find(FIELDS, k) {
                    Some(f) => apply(f, spec, value).is_ok(),
                    // Keys of other views or of no one: not ours to judge.
                    None => true,
                },
            };
            if !ok {
                unread.push(key.clone());
            }
        }
        unread
    }
}

/// The pairs for a fabric: every part, defaults too, so a copied link says what it shows.
pub fn pairs(
    preset: Option<&str>,
    spec: &FabricSpec,
    network: Network,
    selected: &[u64],
    pxn: bool,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(p) = preset {
        out.push(("preset", p.to_string()));
    }
    for f in FIELDS {
        out.push((f.key, text(f, spec)));
    }
    out.push(("tiers", tiers_name(spec.tiers).to_string()));
    out.push((
        "rail_optimized",
        if spec.rail_optimized { "1" } else { "0" }.to_string(),
    ));
    out.push(("planes", spec.planes.to_string()));
    out.push(("network", network.id().to_string()));
    if let Some(a) = selected.first() {
        out.push(("from", a.to_string()));
    }
    if let Some(b) = selected.get(1) {
        out.push(("to", b.to_string()));
    }
    out.push(("pxn", if pxn { "1" } else { "0" }.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::page_query;
    use engine::fabric::preset;

    #[test]
    fn a_fabric_round_trips_through_its_link() {
        let p = preset("alibaba-hpn-pod").unwrap();
        let mut spec = p.spec.clone();
        spec.tiers = Tiers::Three;
        spec.switch_ports = 200;
        let search = page_query::format(&pairs(Some(p.id), &spec, Network::Tcp, &[3, 900], true));
        let q = Query::from_pairs(&page_query::parse(&search));
        assert_eq!(q.preset.as_deref(), Some(p.id));
        assert_eq!(q.network.as_deref(), Some("tcp"));
        assert_eq!((q.from, q.to, q.pxn), (Some(3), Some(900), true));
        let mut back = preset("superpod-h100-1su").unwrap().spec;
        assert!(q.apply_parts(&mut back).is_empty());
        assert!((back.oversubscription - spec.oversubscription).abs() < 1e-4);
        back.oversubscription = spec.oversubscription;
        assert_eq!(back, spec);
    }

    #[test]
    fn a_typed_down_up_ratio_reads_from_a_link_and_is_written_back_as_a_number() {
        for search in [
            "?oversubscription=3:1",
            "?oversubscription=3%3A1",
            "?oversubscription=3+:+1",
            "?oversubscription=3",
        ] {
            let q = Query::from_pairs(&page_query::parse(search));
            let mut spec = preset("superpod-h100-1su").unwrap().spec;
            assert!(q.apply_parts(&mut spec).is_empty(), "{search}");
            assert_eq!(spec.oversubscription, 3.0, "{search}");
            let out = pairs(None, &spec, Network::InfiniBand, &[], false);
            assert!(out.contains(&("oversubscription", "3".to_string())));
        }
        let q = Query::from_pairs(&page_query::parse("?oversubscription=1:0"));
        let mut spec = preset("superpod-h100-1su").unwrap().spec;
        assert_eq!(q.apply_parts(&mut spec), vec!["oversubscription"]);
        assert_eq!(spec.oversubscription, 1.0);
    }

    #[test]
    fn unreadable_parts_are_named_and_leave_the_spec() {
        let q = Query::from_pairs(&page_query::parse("?gpus=lots&tiers=9&planes=2&x=1"));
        let mut spec = preset("superpod-h100-1su").unwrap().spec;
        let before = spec.clone();
        assert_eq!(q.apply_parts(&mut spec), vec!["gpus", "tiers"]);
        assert_eq!(spec.gpus, before.gpus);
        assert_eq!(spec.planes, 2);
    }
}
