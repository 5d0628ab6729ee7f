//! The calculator's state and reducer. What the learner chose and typed is the draft, kept
//! exactly as given; every change re-reads the whole draft, so each refusal sits at the field
//! it names and disappears once that field (or the one it depends on) is fixed. The results
//! are those of the last draft the engine accepted.

use std::rc::Rc;

use engine::collective::{
    estimate, parse_size, sweep, Algorithm, Collective, CollectiveError, CollectiveReport,
    CollectiveRequest, GpuModel, Machines, NicModel,
};
use engine::fabric::{presets, ClusterPreset};
use engine::FieldError;
use yew::Reducible;

use super::format::{op_from_id, op_id};
use super::query::{switch, switch_text};

/// An input of the form. Its `key` is its URL query key and its element's `data-field`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Preset,
    Gpu,
    GpusPerNode,
    Nodes,
    Nic,
    Nics,
    Gdr,
    Sharp,
    Op,
    Size,
}

impl Field {
    pub fn key(self) -> &'static str {
        match self {
            Field::Preset => "preset",
            Field::Gpu => "gpu",
            Field::GpusPerNode => "gpn",
            Field::Nodes => "nodes",
            Field::Nic => "nic",
            Field::Nics => "nics",
            Field::Gdr => "gdr",
            Field::Sharp => "sharp",
            Field::Op => "op",
            Field::Size => "size",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Field::Preset => "Cluster preset",
            Field::Gpu => "GPU",
            Field::GpusPerNode => "GPUs per node",
            Field::Nodes => "Nodes",
            Field::Nic => "NIC",
            Field::Nics => "NICs per node",
            Field::Gdr => "GPUDirect RDMA",
            Field::Sharp => "SHARP (in-network reduction)",
            Field::Op => "Collective",
            Field::Size => "Size",
        }
    }

    /// The field a [`CollectiveError`] names: `cluster.nodes`, `nic`, `bytes`, …. What comes
    /// from the GPU model (compute capability, link rates, NVSwitch) lands on the GPU.
    pub fn for_error(name: &str) -> Field {
        match name {
            "cluster.nodes" => Field::Nodes,
            "cluster.gpus_per_node" => Field::GpusPerNode,
            "cluster.nics_per_node" => Field::Nics,
            "nic" | "cluster.nic_gbps" | "cluster.transport" => Field::Nic,
            "sharp" | "cluster.sharp" => Field::Sharp,
            "cluster.gdr" => Field::Gdr,
            "bytes" => Field::Size,
            "op" => Field::Op,
            _ => Field::Gpu,
        }
    }
}

/// The second configuration the page compares against: the current one with its own
/// network, GPUDirect RDMA, NVLS and node count.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// Used when its rate is the current NIC's (the same rate on another transport);
    /// otherwise the variant keeps the current NIC.
    pub nic: NicModel,
    pub gdr: bool,
    /// The automatic choice may take NVLS and NVLS Tree.
    pub nvls: bool,
    /// Run on a single node of the same GPUs.
    pub one_node: bool,
}

/// Everything as the learner left it.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// A preset's id while the machines are still that preset's.
    pub preset: Option<&'static str>,
    pub gpu: GpuModel,
    pub nic: NicModel,
    pub gdr: bool,
    pub sharp: bool,
    pub op: Collective,
    pub gpus_per_node: String,
    pub nodes: String,
    pub nics: String,
    pub size: String,
    pub variant: Variant,
    pub sweep: bool,
}

/// A configuration the engine accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub machines: Machines,
    pub op: Collective,
    pub bytes: u64,
    /// The size as the learner wrote it, for the URL.
    pub size_text: String,
}

/// The variant's results, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantCalc {
    pub machines: Machines,
    pub request: CollectiveRequest,
    pub report: CollectiveReport,
}

/// The numbers the page shows for an accepted configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Calc {
    pub config: Config,
    pub request: CollectiveRequest,
    pub report: CollectiveReport,
    /// `all_reduce_perf`'s sizes, when the learner asked for the sweep.
    pub sweep: Option<Vec<CollectiveReport>>,
    pub variant: Result<VariantCalc, String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NcclState {
    pub draft: Draft,
    /// Refusals, each at the field it names: the form's, the engine's, and the link's
    /// (a value in the URL the page could not read, kept until that field changes).
    pub errors: Vec<(Field, String)>,
    link_errors: Vec<(Field, String)>,
    /// The last accepted configuration's results.
    pub calc: Option<Rc<Calc>>,
}

pub enum Action {
    /// A preset by id, or `None` for custom machines.
    Preset(Option<String>),
    Gpu(GpuModel),
    Nic(NicModel),
    Gdr(bool),
    Sharp(bool),
    Op(Collective),
    /// A keystroke in a number or size box: kept as typed and read at once.
    Text(Field, String),
    VariantNic(NicModel),
    VariantGdr(bool),
    VariantNvls(bool),
    VariantOneNode(bool),
    Sweep(bool),
}

/// The page opens on the first named cluster.
fn default_machines() -> (Option<&'static str>, Machines) {
    match presets().first() {
        Some(p) => (Some(p.id), p.machines()),
        None => (
            None,
            Machines {
                gpu: GpuModel::H100,
                gpus_per_node: 8,
                nodes: 2,
                nic: NicModel::Ndr400,
                nics_per_node: 8,
                gdr: true,
                sharp: false,
            },
        ),
    }
}

fn find_preset(id: &str) -> Option<ClusterPreset> {
    presets().into_iter().find(|p| p.id == id)
}

/// A u32 typed into `field`'s box, or the located reason it is not one.
fn whole(field: Field, text: &str) -> Result<u32, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err(format!("invalid `{}`: enter a whole number", field.key()));
    }
    t.parse::<u32>().map_err(|_| {
        format!(
            "invalid `{}`: {t:?} is not a whole number from 0 to {}",
            field.key(),
            u32::MAX
        )
    })
}

impl Draft {
    fn with_machines(preset: Option<&'static str>, m: &Machines) -> Draft {
        Draft {
            preset,
            gpu: m.gpu,
            nic: m.nic,
            gdr: m.gdr,
            sharp: m.sharp,
            op: Collective::AllReduce,
            gpus_per_node: m.gpus_per_node.to_string(),
            nodes: m.nodes.to_string(),
            nics: m.nics_per_node.to_string(),
            size: "8G".to_string(),
            variant: Variant {
                nic: m.nic,
                gdr: m.gdr,
                nvls: true,
                one_node: false,
            },
            sweep: false,
        }
    }

    fn set_machines(&mut self, m: &Machines) {
        self.gpu = m.gpu;
        self.nic = m.nic;
        self.gdr = m.gdr;
        self.sharp = m.sharp;
        self.gpus_per_node = m.gpus_per_node.to_string();
        self.nodes = m.nodes.to_string();
        self.nics = m.nics_per_node.to_string();
    }

    /// The machines the boxes describe, or each box's refusal.
    fn machines(&self) -> Result<Machines, Vec<(Field, String)>> {
        let gpn = whole(Field::GpusPerNode, &self.gpus_per_node);
        let nodes = whole(Field::Nodes, &self.nodes);
        let nics = whole(Field::Nics, &self.nics);
        match (gpn, nodes, nics) {
            (Ok(gpus_per_node), Ok(nodes), Ok(nics_per_node)) => Ok(Machines {
                gpu: self.gpu,
                gpus_per_node,
                nodes,
                nic: self.nic,
                nics_per_node,
                gdr: self.gdr,
                sharp: self.sharp,
            }),
            (gpn, nodes, nics) => Err([
                (Field::GpusPerNode, gpn.err()),
                (Field::Nodes, nodes.err()),
                (Field::Nics, nics.err()),
            ]
            .into_iter()
            .filter_map(|(f, e)| e.map(|e| (f, e)))
            .collect()),
        }
    }

    /// The variant's machines and request from an accepted configuration.
    fn variant_request(
        &self,
        config: &Config,
        request: &CollectiveRequest,
    ) -> Result<(Machines, CollectiveRequest), CollectiveError> {
        let mut m = config.machines;
        m.nic = variant_nic(&self.variant, m.nic);
        m.gdr = self.variant.gdr;
        if self.variant.one_node {
            m.nodes = 1;
        }
        let mut r = request.clone();
        r.cluster = m.cluster()?;
        if !self.variant.nvls {
            r.algorithms = Some(
                Algorithm::ALL
                    .into_iter()
                    .filter(|a| !matches!(a, Algorithm::Nvls | Algorithm::NvlsTree))
                    .collect(),
            );
        }
        Ok((m, r))
    }

    /// Reads the whole draft: the refusals, or the results.
    fn evaluate(&self) -> Result<Calc, Vec<(Field, String)>> {
        let machines = self.machines();
        let bytes = parse_size(&self.size).map_err(|e| (Field::Size, e.to_string()));
        let (machines, bytes) = match (machines, bytes) {
            (Ok(m), Ok(b)) => (m, b),
            (m, b) => {
                let mut errors = m.err().unwrap_or_default();
                errors.extend(b.err());
                return Err(errors);
            }
        };
        let located = |e: CollectiveError| {
            let CollectiveError::InvalidField(FieldError { field, .. }) = &e;
            vec![(Field::for_error(field), e.to_string())]
        };
        let cluster = machines.cluster().map_err(located)?;
        let request = CollectiveRequest {
            op: self.op,
            bytes: bytes as f64,
            cluster,
            algorithms: None,
            protocols: None,
        };
        let report = estimate(&request).map_err(located)?;
        let config = Config {
            machines,
            op: self.op,
            bytes,
            size_text: self.size.trim().to_string(),
        };
        // The sweep and the variant are the same request changed in one way each: the main
        // request was accepted, so what they refuse is said where they are shown.
        let sweep = self.sweep.then(|| sweep(&request).ok()).flatten();
        let variant = self
            .variant_request(&config, &request)
            .and_then(|(machines, request)| {
                estimate(&request).map(|report| VariantCalc {
                    machines,
                    request,
                    report,
                })
            })
            .map_err(|e| e.to_string());
        Ok(Calc {
            config,
            request,
            report,
            sweep,
            variant,
        })
    }
}

/// The variant's NIC: its own when it runs at the current NIC's rate, else the current one.
pub fn variant_nic(variant: &Variant, current: NicModel) -> NicModel {
    if variant.nic.gbps() == current.gbps() {
        variant.nic
    } else {
        current
    }
}

/// The NICs at `nic`'s rate: the networks a same-rate comparison can choose from.
pub fn same_rate_nics(nic: NicModel) -> Vec<NicModel> {
    NicModel::ALL
        .into_iter()
        .filter(|n| n.gbps() == nic.gbps())
        .collect()
}

impl NcclState {
    /// The state a URL's query asks for. Keys it does not know are left alone; values it
    /// cannot read are refused at their field, and the default stands in for them.
    pub fn from_pairs(pairs: &[(String, String)]) -> NcclState {
        let get = |key: &str| crate::views::page_query::value(pairs, key);
        let mut link_errors = Vec::new();
        let (default_preset, defaults) = default_machines();
        let any_machine_key = ["gpu", "gpn", "nodes", "nic", "nics", "gdr", "sharp"]
            .iter()
            .any(|k| get(k).is_some());
        let (preset, base) = match get("preset") {
            Some(id) => {
                match find_preset(id) {
                    Some(p) => (Some(p.id), p.machines()),
                    None => {
                        link_errors.push((
                        Field::Preset,
                        format!("invalid `preset`: the link names {id:?}, which is not a preset here"),
                    ));
                        (None, defaults)
                    }
                }
            }
            None if any_machine_key => (None, defaults),
            None => (default_preset, defaults),
        };
        let mut draft = Draft::with_machines(preset, &base);
        if let Some(v) = get("gpu") {
            match GpuModel::from_id(v) {
                Some(g) => draft.gpu = g,
                None => link_errors.push((
                    Field::Gpu,
                    unknown("gpu", v, GpuModel::ALL.iter().map(|g| g.id().to_string())),
                )),
            }
        }
        if let Some(v) = get("nic") {
            // A model (`roce-400`), or a network without a rate (`roce`, from the log
            // explainer): that network's model at the rate the page would otherwise show.
            match NicModel::from_id(v).or_else(|| NicModel::of_family(v, draft.nic.gbps())) {
                Some(n) => draft.nic = n,
                None => link_errors.push((
                    Field::Nic,
                    unknown("nic", v, NicModel::ALL.iter().map(|n| n.id().to_string())),
                )),
            }
        }
        if let Some(v) = get("op") {
            match op_from_id(v) {
                Some(op) => draft.op = op,
                None => link_errors.push((
                    Field::Op,
                    unknown("op", v, Collective::ALL.iter().map(|op| op_id(*op))),
                )),
            }
        }
        for (key, field, target) in [
            ("gdr", Field::Gdr, &mut draft.gdr),
            ("sharp", Field::Sharp, &mut draft.sharp),
        ] {
            if let Some(v) = get(key) {
                match switch(v) {
                    Some(on) => *target = on,
                    None => link_errors.push((
                        field,
                        format!("invalid `{key}`: the link says {v:?}; use 1 or 0"),
                    )),
                }
            }
        }
        for (key, target) in [
            ("gpn", &mut draft.gpus_per_node),
            ("nodes", &mut draft.nodes),
            ("nics", &mut draft.nics),
            ("size", &mut draft.size),
        ] {
            if let Some(v) = get(key) {
                *target = v.to_string();
            }
        }
        draft.variant = Variant {
            nic: get("cmp-nic")
                .and_then(NicModel::from_id)
                .unwrap_or(draft.nic),
            gdr: get("cmp-gdr").and_then(switch).unwrap_or(draft.gdr),
            nvls: get("cmp-nvls").and_then(switch).unwrap_or(true),
            one_node: get("cmp-nodes") == Some("1"),
        };
        draft.sweep = get("sweep").and_then(switch).unwrap_or(false);
        let mut state = NcclState {
            draft,
            errors: Vec::new(),
            link_errors,
            calc: None,
        };
        state.refresh();
        state
    }

    /// Re-reads the draft: new refusals, or new results.
    fn refresh(&mut self) {
        if let Some(id) = self.draft.preset {
            let still = find_preset(id)
                .zip(self.draft.machines().ok())
                .is_some_and(|(p, m)| p.machines() == m);
            if !still {
                self.draft.preset = None;
            }
        }
        let mut errors = self.link_errors.clone();
        match self.draft.evaluate() {
            Ok(calc) => self.calc = Some(Rc::new(calc)),
            Err(refusals) => errors.extend(refusals),
        }
        self.errors = errors;
    }

    /// The refusal shown at `field`, if any.
    #[cfg(test)]
    pub fn error(&self, field: Field) -> Option<String> {
        error_at(&self.errors, field)
    }

    /// The query for what the page shows: the accepted configuration (the draft's values
    /// where none was ever accepted), the sweep switch and the variant.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let d = &self.draft;
        let (m, op, size) = match &self.calc {
            Some(c) => (
                Some(c.config.machines),
                c.config.op,
                c.config.size_text.clone(),
            ),
            None => (None, d.op, d.size.clone()),
        };
        let mut pairs = Vec::new();
        if let Some(id) = d.preset {
            pairs.push(("preset", id.to_string()));
        }
        match m {
            Some(m) => pairs.extend([
                ("gpu", m.gpu.id().to_string()),
                ("gpn", m.gpus_per_node.to_string()),
                ("nodes", m.nodes.to_string()),
                ("nic", m.nic.id().to_string()),
                ("nics", m.nics_per_node.to_string()),
                ("gdr", switch_text(m.gdr).to_string()),
                ("sharp", switch_text(m.sharp).to_string()),
            ]),
            None => pairs.extend([
                ("gpu", d.gpu.id().to_string()),
                ("gpn", d.gpus_per_node.clone()),
                ("nodes", d.nodes.clone()),
                ("nic", d.nic.id().to_string()),
                ("nics", d.nics.clone()),
                ("gdr", switch_text(d.gdr).to_string()),
                ("sharp", switch_text(d.sharp).to_string()),
            ]),
        }
        pairs.push(("op", op_id(op)));
        pairs.push(("size", size));
        if d.sweep {
            pairs.push(("sweep", "1".to_string()));
        }
        pairs.extend([
            ("cmp-nic", d.variant.nic.id().to_string()),
            ("cmp-gdr", switch_text(d.variant.gdr).to_string()),
            ("cmp-nvls", switch_text(d.variant.nvls).to_string()),
            (
                "cmp-nodes",
                if d.variant.one_node { "1" } else { "n" }.to_string(),
            ),
        ]);
        pairs
    }
}

/// Every refusal at `field`, as one message.
pub fn error_at(errors: &[(Field, String)], field: Field) -> Option<String> {
    let messages: Vec<&str> = errors
        .iter()
        .filter(|(f, _)| *f == field)
        .map(|(_, m)| m.as_str())
        .collect();
    (!messages.is_empty()).then(|| messages.join(" "))
}

fn unknown(key: &str, value: &str, known: impl Iterator<Item = String>) -> String {
    let known: Vec<String> = known.collect();
    format!(
        "invalid `{key}`: the link says {value:?}, which is none of {}",
        known.join(", ")
    )
}

impl Reducible for NcclState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        let touched = match &action {
            Action::Preset(_) => Some(Field::Preset),
            Action::Gpu(_) => Some(Field::Gpu),
            Action::Nic(_) => Some(Field::Nic),
            Action::Gdr(_) => Some(Field::Gdr),
            Action::Sharp(_) => Some(Field::Sharp),
            Action::Op(_) => Some(Field::Op),
            Action::Text(f, _) => Some(*f),
            _ => None,
        };
        let d = &mut next.draft;
        match action {
            Action::Preset(id) => {
                let preset = id.as_deref().and_then(find_preset);
                if let Some(p) = &preset {
                    d.set_machines(&p.machines());
                    next.link_errors.retain(|(f, _)| {
                        !matches!(f, Field::Gpu | Field::Nic | Field::Gdr | Field::Sharp)
                    });
                }
                d.preset = preset.map(|p| p.id);
            }
            Action::Gpu(g) => d.gpu = g,
            Action::Nic(n) => d.nic = n,
            Action::Gdr(on) => d.gdr = on,
            Action::Sharp(on) => d.sharp = on,
            Action::Op(op) => d.op = op,
            Action::Text(field, text) => match field {
                Field::GpusPerNode => d.gpus_per_node = text,
                Field::Nodes => d.nodes = text,
                Field::Nics => d.nics = text,
                Field::Size => d.size = text,
                _ => {}
            },
            Action::VariantNic(n) => d.variant.nic = n,
            Action::VariantGdr(on) => d.variant.gdr = on,
            Action::VariantNvls(on) => d.variant.nvls = on,
            Action::VariantOneNode(on) => d.variant.one_node = on,
            Action::Sweep(on) => d.sweep = on,
        }
        if let Some(f) = touched {
            next.link_errors.retain(|(g, _)| *g != f);
        }
        next.refresh();
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::page_query;

    fn state(search: &str) -> NcclState {
        NcclState::from_pairs(&page_query::parse(search))
    }

    fn act(s: NcclState, action: Action) -> NcclState {
        (*Rc::new(s).reduce(action)).clone()
    }

    const LINK: &str = "?gpu=h100&gpn=8&nodes=128&nic=ndr-400&nics=8&gdr=1&op=all_reduce&size=8G";

    #[test]
    fn the_topology_link_opens_its_machines_and_the_engine_answers() {
        let s = state(LINK);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        let calc = s.calc.as_ref().expect("results");
        assert_eq!(calc.config.machines.nodes, 128);
        assert_eq!(calc.config.bytes, 8 << 30);
        assert!(calc.report.chosen.is_some());
        assert_eq!(s.draft.preset, None, "explicit machines are custom");
        // The query written back reads back to the same state.
        let again = state(&page_query::format(&s.pairs()));
        assert_eq!(again.draft, s.draft);
    }

    #[test]
    fn typing_digit_by_digit_reads_each_prefix_and_garbage_keeps_the_last_results() {
        let mut s = state(LINK);
        for text in ["", "1", "16"] {
            s = act(s, Action::Text(Field::Nodes, text.to_string()));
        }
        assert!(s.errors.is_empty());
        assert_eq!(s.calc.as_ref().unwrap().config.machines.nodes, 16);
        let good = s.calc.clone();
        s = act(s, Action::Text(Field::Size, "8Gx".into()));
        assert_eq!(s.draft.size, "8Gx", "what was typed is kept");
        let e = s.error(Field::Size).expect("a refusal at the size");
        assert!(e.contains("bytes"), "{e}");
        assert_eq!(s.calc, good, "the last good results stay");
        s = act(s, Action::Text(Field::Nodes, "1x".into()));
        assert!(s.error(Field::Nodes).unwrap().contains("`nodes`"));
        assert!(s.error(Field::Size).is_some(), "both refusals shown");
    }

    #[test]
    fn engine_refusals_land_on_the_field_they_name() {
        let s = act(state(LINK), Action::Nic(NicModel::None));
        assert!(s.error(Field::Nic).is_some(), "{:?}", s.errors);
        let s = act(state(LINK), Action::Text(Field::Nodes, "0".into()));
        assert!(s.error(Field::Nodes).unwrap().contains("cluster.nodes"));
        let s = act(
            act(state(LINK), Action::Nic(NicModel::Roce400)),
            Action::Sharp(true),
        );
        assert!(s.error(Field::Sharp).is_some(), "{:?}", s.errors);
        let s = state("?gpu=h900&op=all_sum&gdr=perhaps");
        for f in [Field::Gpu, Field::Op, Field::Gdr] {
            assert!(s.error(f).is_some(), "{f:?}: {:?}", s.errors);
        }
        assert!(
            s.calc.is_some(),
            "defaults stand in for what the link lacks"
        );
        let s = act(s, Action::Gpu(GpuModel::A100));
        assert!(s.error(Field::Gpu).is_none(), "fixing the field clears it");
    }

    #[test]
    fn the_log_explainers_link_names_the_network_and_the_page_its_rate() {
        let s = state("?gpn=8&nodes=2&nic=roce&nics=1&gdr=1");
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        let m = &s.calc.as_ref().expect("results").config.machines;
        assert_eq!(
            (m.nic, m.nics_per_node, m.gpus_per_node, m.nodes),
            (NicModel::Roce400, 1, 8, 2)
        );
        assert_eq!(state("?nic=ib").draft.nic, NicModel::Ndr400);
        assert_eq!(state("?nic=tcp").draft.nic, NicModel::Tcp100);
        assert!(state("?nic=ethernet").error(Field::Nic).is_some());
    }

    #[test]
    fn presets_fill_the_machines_and_a_change_makes_them_custom() {
        let Some(p) = presets().into_iter().next() else {
            return;
        };
        let s = state(&format!("?preset={}", p.id));
        assert_eq!(s.draft.preset, Some(p.id));
        assert_eq!(s.calc.as_ref().unwrap().config.machines, p.machines());
        let s = act(s, Action::Text(Field::Nodes, "3".into()));
        assert_eq!(s.draft.preset, None);
        let s = act(s, Action::Preset(Some(p.id.to_string())));
        assert_eq!(s.draft.nodes, p.machines().nodes.to_string());
    }

    #[test]
    fn the_variant_changes_the_network_at_the_same_rate_and_the_sweep_has_31_sizes() {
        let s = state("?gpu=h100&gpn=8&nodes=4&nic=roce-100&nics=1&gdr=0&cmp-nic=tcp-100&sweep=1");
        let calc = s.calc.as_ref().unwrap();
        let v = calc.variant.as_ref().expect("a variant");
        assert_eq!(v.machines.nic, NicModel::Tcp100);
        assert_eq!(calc.sweep.as_ref().map(Vec::len), Some(31));
        // A variant NIC at another rate falls back to the current NIC.
        let s = act(s, Action::Nic(NicModel::Ndr400));
        let v = s.calc.as_ref().unwrap().variant.clone().unwrap();
        assert_eq!(v.machines.nic, NicModel::Ndr400);
        let s = act(s, Action::VariantNvls(false));
        let v = s.calc.as_ref().unwrap().variant.clone().unwrap();
        assert!(!v.request.algorithms.unwrap().contains(&Algorithm::Nvls));
    }
}
