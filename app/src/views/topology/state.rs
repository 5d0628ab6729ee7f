//! The page's state and its reducer: what the learner typed, the last fabric that built,
//! the refusals placed at their fields, and the two GPUs whose path is shown.

use std::rc::Rc;

use engine::collective::Machines;
use engine::fabric::{build, preset, ClusterPreset, Fabric, FabricSpec, Path, Tiers};
use yew::prelude::*;

use super::fields::{apply, error_key, text, FIELDS};
use super::network::Network;
use super::query::{self, Query};
use crate::views::form::Form;

/// Each typed field's box showing `spec`.
fn texts_of(spec: &FabricSpec) -> Form {
    Form::new(FIELDS.iter().map(|f| (f.key, text(f, spec))))
}

/// The preset a page opens with when its link names none.
pub const DEFAULT_PRESET: &str = "superpod-h100-1su";

#[derive(Debug, Clone, PartialEq)]
pub struct TopologyPage {
    /// The preset the fabric started from; its GPU (and NIC where it fits) name the
    /// machines for /nccl.
    pub base: ClusterPreset,
    /// What the NICs and switches speak: with the NICs' rate, it names the NIC model for
    /// /nccl. The preset's own at first.
    pub network: Network,
    /// The text of each typed field, kept as typed, and the refusals by input key (a
    /// field, `tiers`, `planes`, `rail_optimized`): a typed text that does not read, or
    /// the engine's answer to the parts as typed.
    pub form: Form,
    pub tiers: Tiers,
    pub rail_optimized: bool,
    pub planes: u32,
    /// The last spec that built, and its fabric: what the table and drawing show.
    pub spec: FabricSpec,
    pub fabric: Rc<Fabric>,
    /// Up to two GPUs, in the order picked.
    pub selected: Vec<u64>,
    pub pxn: bool,
    /// Said when the link's fabric could not be restored.
    pub note: Option<String>,
}

pub enum Action {
    Preset(String),
    Type(&'static str, String),
    Tiers(Tiers),
    RailOptimized(bool),
    Planes(u32),
    Network(Network),
    /// A GPU clicked (or Enter/Space on it): the first or second end of the path.
    Pick(u64),
    Pxn(bool),
}

impl TopologyPage {
    fn from_preset(base: ClusterPreset) -> TopologyPage {
        let spec = base.spec.clone();
        // Every preset builds (the engine's own test).
        let fabric = build(&spec).expect("a preset builds");
        TopologyPage {
            network: base_network(&base),
            form: texts_of(&spec),
            tiers: spec.tiers,
            rail_optimized: spec.rail_optimized,
            planes: spec.planes,
            fabric: Rc::new(fabric),
            spec,
            base,
            selected: Vec::new(),
            pxn: false,
            note: None,
        }
    }

    pub fn from_query(q: &Query) -> TopologyPage {
        let named = q.preset.as_deref().and_then(preset);
        let base = named
            .clone()
            .or_else(|| preset(DEFAULT_PRESET))
            .expect("the default preset exists");
        let mut page = TopologyPage::from_preset(base.clone());
        let mut notes = Vec::new();
        if let (Some(id), None) = (q.preset.as_deref(), &named) {
            notes.push(format!(
                "The link names no preset {id:?}; starting from {}.",
                base.name
            ));
        }
        let mut spec = base.spec.clone();
        let mut unread = q.apply_parts(&mut spec);
        match q.network.as_deref().map(Network::from_id) {
            Some(Some(network)) => page.network = network,
            Some(None) => unread.push("network".to_string()),
            None => {}
        }
        if !unread.is_empty() {
            notes.push(format!(
                "The link's {} did not read and kept the preset's value.",
                unread.join(", ")
            ));
        }
        match build(&spec) {
            Ok(f) => {
                page.form = texts_of(&spec);
                page.tiers = spec.tiers;
                page.rail_optimized = spec.rail_optimized;
                page.planes = spec.planes;
                page.fabric = Rc::new(f);
                page.spec = spec;
            }
            Err(e) => notes.push(format!(
                "The link's fabric does not build ({e}); showing {}.",
                base.name
            )),
        }
        let gpus = page.fabric.spec.gpus.into();
        page.selected = [q.from, q.to]
            .into_iter()
            .map_while(|g| g)
            .filter(|g| *g < gpus)
            .collect();
        page.pxn = q.pxn;
        page.note = (!notes.is_empty()).then(|| notes.join(" "));
        page
    }

    /// The fabric shown is the base preset's own, on the preset's network.
    pub fn is_preset(&self) -> bool {
        self.spec == self.base.spec && self.network == base_network(&self.base)
    }

    /// Reads every input into a spec and builds it: the fabric shown changes only when
    /// it builds; otherwise each refusal is kept at its input and nothing typed is lost.
    fn rebuild(&mut self) {
        let mut spec = self.spec.clone();
        self.form.accept_all();
        for f in FIELDS {
            if let Err(message) = apply(f, &mut spec, self.form.text(f.key)) {
                self.form.refuse(f.key, message);
            }
        }
        spec.tiers = self.tiers;
        spec.rail_optimized = self.rail_optimized;
        spec.planes = self.planes;
        if !self.form.is_refused() {
            match build(&spec) {
                Ok(fabric) => {
                    let gpus = u64::from(spec.gpus);
                    self.selected.retain(|g| *g < gpus);
                    self.fabric = Rc::new(fabric);
                    self.spec = spec;
                }
                Err(e) => self.form.refuse(error_key(&e), e.to_string()),
            }
        }
        self.note = None;
    }

    /// The path between the two GPUs picked, in plane 0.
    pub fn path(&self) -> Option<Path> {
        match self.selected.as_slice() {
            [a, b] => self.fabric.path(*a, *b, self.pxn).ok(),
            _ => None,
        }
    }

    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        query::pairs(
            Some(self.base.id),
            &self.spec,
            self.network,
            &self.selected,
            self.pxn,
        )
    }

    /// The machines /nccl should model for the fabric shown, or why none fits: a preset's
    /// own, or for a hand-built fabric the preset's GPU and the NIC model of the fabric's
    /// network whose rate is the NIC's ports at their speed. Never a NIC of another network:
    /// a RoCE fabric's NICs are not InfiniBand ones of the same rate.
    pub fn machines(&self) -> Result<Machines, String> {
        if self.is_preset() {
            return Ok(self.base.machines());
        }
        let s = &self.spec;
        let gbps = f64::from(s.nic_ports) * s.nic_port_gbps;
        let nic = self.network.nic_at(gbps).ok_or_else(|| {
            format!(
                "The calculator's {} NICs run at {} Gb/s; this fabric's NICs have {} × {} \
                 Gb/s = {gbps} Gb/s, so there is no NIC to give it.",
                self.network.short(),
                rates(self.network),
                s.nic_ports,
                s.nic_port_gbps
            )
        })?;
        Ok(Machines {
            gpu: self.base.gpu,
            gpus_per_node: s.gpus_per_node,
            nodes: s.gpus / s.gpus_per_node,
            nic,
            nics_per_node: s.nics_per_node,
            gdr: true,
            sharp: false,
        })
    }
}

/// The network of a preset's NICs (every preset names one).
fn base_network(base: &ClusterPreset) -> Network {
    Network::of(base.nic).unwrap_or(Network::InfiniBand)
}

/// A network's NIC rates as a reader lists them: "100, 200 or 400".
fn rates(network: Network) -> String {
    let all: Vec<String> = network.nics().map(|n| n.gbps().to_string()).collect();
    match all.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => "no rate".to_string(),
    }
}

/// The /nccl query for these machines (the calculator's own contract).
pub fn nccl_query(m: &Machines) -> String {
    format!(
        "?gpu={}&gpn={}&nodes={}&nic={}&nics={}&gdr=1&op=all_reduce&size=8G",
        m.gpu.id(),
        m.gpus_per_node,
        m.nodes,
        m.nic.id(),
        m.nics_per_node
    )
}

impl Reducible for TopologyPage {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut page = (*self).clone();
        match action {
            Action::Preset(id) => match preset(&id) {
                Some(p) => page = TopologyPage::from_preset(p),
                None => return self,
            },
            Action::Type(key, text) => {
                if page.form.typed(key).is_none_or(|t| t == text) {
                    return self;
                }
                page.form.set(key, text);
                page.rebuild();
            }
            Action::Tiers(t) => {
                page.tiers = t;
                page.rebuild();
            }
            Action::RailOptimized(on) => {
                page.rail_optimized = on;
                page.rebuild();
            }
            Action::Planes(n) => {
                page.planes = n;
                page.rebuild();
            }
            // The parts are the same; only the machines for /nccl change.
            Action::Network(n) => page.network = n,
            Action::Pick(gpu) => {
                page.selected = match page.selected.as_slice() {
                    [a] if *a != gpu => vec![*a, gpu],
                    [a] if *a == gpu => Vec::new(),
                    _ => vec![gpu],
                };
            }
            Action::Pxn(on) => page.pxn = on,
        }
        Rc::new(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::page_query;
    use engine::collective::NicModel;

    fn page(search: &str) -> Rc<TopologyPage> {
        Rc::new(TopologyPage::from_query(&Query::from_pairs(
            &page_query::parse(search),
        )))
    }

    #[test]
    fn typing_digit_by_digit_keeps_the_text_and_shows_the_last_fabric_that_built() {
        let p = page("?preset=superpod-h100-4su");
        assert_eq!(p.fabric.leaf.count, 32);
        let p = p.reduce(Action::Type("switch_ports", String::new()));
        assert!(p.form.refusal("switch_ports").unwrap().contains("empty"));
        let p = p.reduce(Action::Type("switch_ports", "1".into()));
        assert_eq!(p.form.text("switch_ports"), "1");
        assert!(p
            .form
            .refusal("switch_ports")
            .unwrap()
            .contains("switch_ports"));
        assert_eq!(p.fabric.leaf.count, 32, "the last fabric that built stays");
        let p = p.reduce(Action::Type("switch_ports", "12".into()));
        assert_eq!(p.form.refusal("switch_ports"), None);
        let p = p.reduce(Action::Type("switch_ports", "128".into()));
        assert_eq!(p.form.text("switch_ports"), "128");
        // 127 nodes on 128-port leaves (64 down): 2 units of 8 leaves.
        assert_eq!(p.fabric.leaf.count, 16);
        assert!(!p.is_preset());
        let p = p.reduce(Action::Type("gpus", "12a".into()));
        assert!(p.form.refusal("gpus").unwrap().contains("`gpus`"));
        assert_eq!(
            p.form.text("switch_ports"),
            "128",
            "other fields keep their text"
        );
    }

    #[test]
    fn constraints_are_placed_at_the_input_they_concern() {
        let p = page("?preset=superpod-h100-1su").reduce(Action::Planes(2));
        assert!(p.form.refusal("planes").unwrap().contains("nic_ports"));
        let p = p.reduce(Action::Type("nic_ports", "2".into()));
        assert!(!p.form.is_refused());
        let p = p
            .reduce(Action::Tiers(Tiers::Two))
            .reduce(Action::Type("gpus", "80000".into()));
        assert!(p.form.refusal("tiers").unwrap().contains("2-tier"));
    }

    #[test]
    fn picks_make_a_path_and_a_link_restores_them() {
        let p = page("?preset=superpod-h100-1su")
            .reduce(Action::Pick(0))
            .reduce(Action::Pick(13));
        let path = p.path().unwrap();
        assert_eq!(path.switches, 3);
        let p = p.reduce(Action::Pxn(true));
        assert!(p.path().unwrap().pxn);
        let search = page_query::format(&p.query_pairs());
        let back = page(&search);
        assert_eq!(back.selected, vec![0, 13]);
        assert!(back.pxn);
        assert_eq!(back.spec, p.spec);
        // A third pick starts a new pair.
        let p = p.reduce(Action::Pick(5));
        assert_eq!(p.selected, vec![5]);
    }

    #[test]
    fn nccl_link_uses_the_preset_or_a_nic_of_its_network_at_the_same_rate() {
        let p = page("?preset=superpod-h100-4su");
        assert_eq!(
            nccl_query(&p.machines().unwrap()),
            "?gpu=h100&gpn=8&nodes=127&nic=ndr-400&nics=8&gdr=1&op=all_reduce&size=8G"
        );
        let p = p.reduce(Action::Type("gpus", "512".into()));
        let m = p.machines().unwrap();
        assert_eq!((m.nodes, m.nic), (64, NicModel::Ndr400));
        let p = p.reduce(Action::Type("nic_port_gbps", "300".into()));
        assert!(p.machines().unwrap_err().contains("300 Gb/s"));
        let rack = page("?preset=rtx4090-rack");
        assert!(nccl_query(&rack.machines().unwrap()).contains("nic=tcp-25"));
    }

    #[test]
    fn nccl_link_keeps_the_fabrics_network_at_its_rate() {
        // #32: a RoCE fabric's link opened /nccl on InfiniBand.
        let p = page("?preset=superpod-h100-4su&network=roce");
        assert_eq!(
            nccl_query(&p.machines().unwrap()),
            "?gpu=h100&gpn=8&nodes=127&nic=roce-400&nics=8&gdr=1&op=all_reduce&size=8G"
        );
        // The InfiniBand preset at 200 Gb/s stays InfiniBand: HDR, not 200 GbE RoCE.
        let p = page("?preset=superpod-h100-1su&nic_port_gbps=200");
        assert_eq!(p.machines().unwrap().nic, NicModel::Hdr200);
        // The RoCE preset at 800 Gb/s: the calculator has no 800 GbE RoCE NIC, so it says
        // so rather than switching to XDR InfiniBand.
        let p = page("?preset=meta-llama3-roce&nic_port_gbps=800&switch_port_gbps=800");
        let why = p.machines().unwrap_err();
        assert!(why.contains("RoCE") && why.contains("800 Gb/s"), "{why}");
        // The TCP rack on 100 GbE ports stays TCP, without RDMA.
        let p = page("?preset=rtx4090-rack&nic_port_gbps=100&switch_port_split=1");
        assert_eq!(p.machines().unwrap().nic, NicModel::Tcp100);

        // Picking the network: the same parts, another NIC, no longer the preset, and the
        // link keeps it.
        let p = page("?preset=superpod-h100-4su");
        assert_eq!(p.network, Network::InfiniBand);
        let p = p.reduce(Action::Network(Network::Roce));
        assert!(!p.is_preset());
        assert_eq!(p.fabric.leaf.count, 32, "the parts are the same");
        assert_eq!(p.machines().unwrap().nic, NicModel::Roce400);
        let back = page(&page_query::format(&p.query_pairs()));
        assert_eq!(back.network, Network::Roce);
        assert_eq!(back.machines().unwrap().nic, NicModel::Roce400);
        let p = p.reduce(Action::Preset("superpod-h100-4su".into()));
        assert_eq!((p.network, p.is_preset()), (Network::InfiniBand, true));
        // A link with a network the page does not know says so and keeps the preset's.
        let p = page("?preset=meta-llama3-roce&network=ethernet");
        assert_eq!(p.network, Network::Roce);
        assert!(p.note.as_deref().is_some_and(|n| n.contains("network")));
    }

    #[test]
    fn a_broken_link_says_so_and_opens_a_preset() {
        let p = page("?preset=nope&gpus=7");
        let note = p.note.clone().unwrap();
        assert!(note.contains("\"nope\""), "{note}");
        assert!(note.contains("does not build"), "{note}");
        assert_eq!(p.spec, preset(DEFAULT_PRESET).unwrap().spec);
    }
}
