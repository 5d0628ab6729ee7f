//! The calculator's state and reducer. What the learner chose and typed are the inputs, kept
//! exactly as given; every change re-reads all of them, so each refusal sits at the field it
//! names and disappears once that field (or the one it depends on) is fixed. The results are
//! those of the last inputs the engine accepted.

use std::rc::Rc;

use engine::collective::{
    estimate, parse_size, sweep, Algorithm, Collective, CollectiveError, CollectiveReport,
    CollectiveRequest, GpuModel, Machines, NicModel,
};
use engine::fabric::{presets, ClusterPreset};
use engine::FieldError;
use yew::Reducible;

use super::fields::{
    for_error, BOXES, GDR, GPU, GPUS_PER_NODE, NIC, NICS, NODES, OP, PRESET, SHARP, SIZE,
};
use super::format::{op_from_id, op_id};
use super::query::{switch, switch_text};
use crate::views::form::{FieldDef, Form};

/// A refusal located at a field, by the field's key.
type Refusals = Vec<(&'static str, String)>;

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

/// Everything as the learner left it: what was picked, and in `form` the boxes' texts as
/// typed with the refusals each field shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// A preset's id while the machines are still that preset's.
    pub preset: Option<&'static str>,
    pub gpu: GpuModel,
    pub nic: NicModel,
    pub gdr: bool,
    pub sharp: bool,
    pub op: Collective,
    pub form: Form,
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
    /// The inputs; their form holds the refusals, each at the field it names: the link's,
    /// the boxes' and the engine's.
    pub inputs: Inputs,
    /// Values in the URL the page could not read, each kept at its field until that field
    /// changes.
    link_refusals: Refusals,
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
    /// A keystroke in a number or size box, by its key: kept as typed and read at once.
    Text(&'static str, String),
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

/// A u32 typed into `field`'s box, or the reason it is not one, naming the field.
fn whole(field: &FieldDef, text: &str) -> Result<u32, String> {
    let key = field.key;
    let t = text.trim();
    if t.is_empty() {
        return Err(format!("invalid `{key}`: enter a whole number"));
    }
    t.parse::<u32>().map_err(|_| {
        format!(
            "invalid `{key}`: {t:?} is not a whole number from 0 to {}",
            u32::MAX
        )
    })
}

/// Puts `why` at `key`, after any refusal already there: the link's and the engine's can
/// both concern one field, and both are shown.
fn refuse_also(form: &mut Form, key: &'static str, why: String) {
    let why = match form.refusal(key) {
        Some(before) => format!("{before} {why}"),
        None => why,
    };
    form.refuse(key, why);
}

impl Inputs {
    fn with_machines(preset: Option<&'static str>, m: &Machines) -> Inputs {
        Inputs {
            preset,
            gpu: m.gpu,
            nic: m.nic,
            gdr: m.gdr,
            sharp: m.sharp,
            op: Collective::AllReduce,
            form: Form::new([
                (GPUS_PER_NODE.key, m.gpus_per_node.to_string()),
                (NODES.key, m.nodes.to_string()),
                (NICS.key, m.nics_per_node.to_string()),
                (SIZE.key, "8G".to_string()),
            ]),
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
        self.form
            .set(GPUS_PER_NODE.key, m.gpus_per_node.to_string());
        self.form.set(NODES.key, m.nodes.to_string());
        self.form.set(NICS.key, m.nics_per_node.to_string());
    }

    /// The machines the boxes describe, or each box's refusal.
    fn machines(&self) -> Result<Machines, Refusals> {
        let read = |def: &FieldDef| whole(def, self.form.text(def.key));
        let (gpn, nodes, nics) = (read(&GPUS_PER_NODE), read(&NODES), read(&NICS));
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
                (GPUS_PER_NODE.key, gpn.err()),
                (NODES.key, nodes.err()),
                (NICS.key, nics.err()),
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

    /// Reads all the inputs: the refusals, or the results.
    fn evaluate(&self) -> Result<Calc, Refusals> {
        let size = self.form.text(SIZE.key);
        let machines = self.machines();
        let bytes = parse_size(size).map_err(|e| (SIZE.key, e.to_string()));
        let (machines, bytes) = match (machines, bytes) {
            (Ok(m), Ok(b)) => (m, b),
            (m, b) => {
                let mut refusals = m.err().unwrap_or_default();
                refusals.extend(b.err());
                return Err(refusals);
            }
        };
        let located = |e: CollectiveError| {
            let CollectiveError::InvalidField(FieldError { field, .. }) = &e;
            vec![(for_error(field).key, e.to_string())]
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
            size_text: size.trim().to_string(),
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
        let mut link_refusals = Vec::new();
        let (default_preset, defaults) = default_machines();
        let any_machine_key = ["gpu", "gpn", "nodes", "nic", "nics", "gdr", "sharp"]
            .iter()
            .any(|k| get(k).is_some());
        let (preset, base) = match get("preset") {
            Some(id) => {
                match find_preset(id) {
                    Some(p) => (Some(p.id), p.machines()),
                    None => {
                        link_refusals.push((
                        PRESET.key,
                        format!("invalid `preset`: the link names {id:?}, which is not a preset here"),
                    ));
                        (None, defaults)
                    }
                }
            }
            None if any_machine_key => (None, defaults),
            None => (default_preset, defaults),
        };
        let mut inputs = Inputs::with_machines(preset, &base);
        if let Some(v) = get("gpu") {
            match GpuModel::from_id(v) {
                Some(g) => inputs.gpu = g,
                None => link_refusals.push((
                    GPU.key,
                    unknown("gpu", v, GpuModel::ALL.iter().map(|g| g.id().to_string())),
                )),
            }
        }
        if let Some(v) = get("nic") {
            // A model (`roce-400`), or a network without a rate (`roce`, from the log
            // explainer): that network's model at the rate the page would otherwise show.
            match NicModel::from_id(v).or_else(|| NicModel::of_family(v, inputs.nic.gbps())) {
                Some(n) => inputs.nic = n,
                None => link_refusals.push((
                    NIC.key,
                    unknown("nic", v, NicModel::ALL.iter().map(|n| n.id().to_string())),
                )),
            }
        }
        if let Some(v) = get("op") {
            match op_from_id(v) {
                Some(op) => inputs.op = op,
                None => link_refusals.push((
                    OP.key,
                    unknown("op", v, Collective::ALL.iter().map(|op| op_id(*op))),
                )),
            }
        }
        for (field, target) in [(&GDR, &mut inputs.gdr), (&SHARP, &mut inputs.sharp)] {
            let key = field.key;
            if let Some(v) = get(key) {
                match switch(v) {
                    Some(on) => *target = on,
                    None => link_refusals.push((
                        key,
                        format!("invalid `{key}`: the link says {v:?}; use 1 or 0"),
                    )),
                }
            }
        }
        for field in BOXES {
            if let Some(v) = get(field.key) {
                inputs.form.set(field.key, v.to_string());
            }
        }
        inputs.variant = Variant {
            nic: get("cmp-nic")
                .and_then(NicModel::from_id)
                .unwrap_or(inputs.nic),
            gdr: get("cmp-gdr").and_then(switch).unwrap_or(inputs.gdr),
            nvls: get("cmp-nvls").and_then(switch).unwrap_or(true),
            one_node: get("cmp-nodes") == Some("1"),
        };
        inputs.sweep = get("sweep").and_then(switch).unwrap_or(false);
        let mut state = NcclState {
            inputs,
            link_refusals,
            calc: None,
        };
        state.refresh();
        state
    }

    /// Re-reads the inputs: new refusals, or new results.
    fn refresh(&mut self) {
        let inputs = &mut self.inputs;
        if let Some(id) = inputs.preset {
            let still = find_preset(id)
                .zip(inputs.machines().ok())
                .is_some_and(|(p, m)| p.machines() == m);
            if !still {
                inputs.preset = None;
            }
        }
        let read = inputs.evaluate();
        let form = &mut inputs.form;
        form.accept_all();
        for (key, why) in &self.link_refusals {
            refuse_also(form, key, why.clone());
        }
        match read {
            Ok(calc) => self.calc = Some(Rc::new(calc)),
            Err(refusals) => {
                for (key, why) in refusals {
                    refuse_also(form, key, why);
                }
            }
        }
    }

    /// The query for what the page shows: the accepted configuration (the inputs' values
    /// where none was ever accepted), the sweep switch and the variant.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let d = &self.inputs;
        let (m, op, size) = match &self.calc {
            Some(c) => (
                Some(c.config.machines),
                c.config.op,
                c.config.size_text.clone(),
            ),
            None => (None, d.op, d.form.text(SIZE.key).to_string()),
        };
        let mut pairs = Vec::new();
        if let Some(id) = d.preset {
            pairs.push((PRESET.key, id.to_string()));
        }
        let text = |field: &FieldDef| d.form.text(field.key).to_string();
        match m {
            Some(m) => pairs.extend([
                (GPU.key, m.gpu.id().to_string()),
                (GPUS_PER_NODE.key, m.gpus_per_node.to_string()),
                (NODES.key, m.nodes.to_string()),
                (NIC.key, m.nic.id().to_string()),
                (NICS.key, m.nics_per_node.to_string()),
                (GDR.key, switch_text(m.gdr).to_string()),
                (SHARP.key, switch_text(m.sharp).to_string()),
            ]),
            None => pairs.extend([
                (GPU.key, d.gpu.id().to_string()),
                (GPUS_PER_NODE.key, text(&GPUS_PER_NODE)),
                (NODES.key, text(&NODES)),
                (NIC.key, d.nic.id().to_string()),
                (NICS.key, text(&NICS)),
                (GDR.key, switch_text(d.gdr).to_string()),
                (SHARP.key, switch_text(d.sharp).to_string()),
            ]),
        }
        pairs.push((OP.key, op_id(op)));
        pairs.push((SIZE.key, size));
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
            Action::Preset(_) => Some(PRESET.key),
            Action::Gpu(_) => Some(GPU.key),
            Action::Nic(_) => Some(NIC.key),
            Action::Gdr(_) => Some(GDR.key),
            Action::Sharp(_) => Some(SHARP.key),
            Action::Op(_) => Some(OP.key),
            Action::Text(key, _) => Some(*key),
            _ => None,
        };
        let d = &mut next.inputs;
        match action {
            Action::Preset(id) => {
                let preset = id.as_deref().and_then(find_preset);
                if let Some(p) = &preset {
                    d.set_machines(&p.machines());
                    let picked = [GPU.key, NIC.key, GDR.key, SHARP.key];
                    next.link_refusals.retain(|(key, _)| !picked.contains(key));
                }
                d.preset = preset.map(|p| p.id);
            }
            Action::Gpu(g) => d.gpu = g,
            Action::Nic(n) => d.nic = n,
            Action::Gdr(on) => d.gdr = on,
            Action::Sharp(on) => d.sharp = on,
            Action::Op(op) => d.op = op,
            // Only a box's text is kept; any other key is a field touched.
            Action::Text(key, text) => {
                if d.form.typed(key).is_some() {
                    d.form.set(key, text);
                }
            }
            Action::VariantNic(n) => d.variant.nic = n,
            Action::VariantGdr(on) => d.variant.gdr = on,
            Action::VariantNvls(on) => d.variant.nvls = on,
            Action::VariantOneNode(on) => d.variant.one_node = on,
            Action::Sweep(on) => d.sweep = on,
        }
        if let Some(touched) = touched {
            next.link_refusals.retain(|(key, _)| *key != touched);
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

    impl NcclState {
        /// The refusal shown at the field `key`, if any.
        fn refusal(&self, key: &str) -> Option<&str> {
            self.inputs.form.refusal(key)
        }
    }

    const LINK: &str = "?gpu=h100&gpn=8&nodes=128&nic=ndr-400&nics=8&gdr=1&op=all_reduce&size=8G";

    #[test]
    fn the_topology_link_opens_its_machines_and_the_engine_answers() {
        let s = state(LINK);
        assert!(!s.inputs.form.is_refused(), "{:?}", s.inputs.form);
        let calc = s.calc.as_ref().expect("results");
        assert_eq!(calc.config.machines.nodes, 128);
        assert_eq!(calc.config.bytes, 8 << 30);
        assert!(calc.report.chosen.is_some());
        assert_eq!(s.inputs.preset, None, "explicit machines are custom");
        // The query written back reads back to the same state.
        let again = state(&page_query::format(&s.pairs()));
        assert_eq!(again.inputs, s.inputs);
    }

    #[test]
    fn typing_digit_by_digit_reads_each_prefix_and_garbage_keeps_the_last_results() {
        let mut s = state(LINK);
        for text in ["", "1", "16"] {
            s = act(s, Action::Text("nodes", text.to_string()));
        }
        assert!(!s.inputs.form.is_refused());
        assert_eq!(s.calc.as_ref().unwrap().config.machines.nodes, 16);
        let good = s.calc.clone();
        s = act(s, Action::Text("size", "8Gx".into()));
        assert_eq!(s.inputs.form.text("size"), "8Gx", "what was typed is kept");
        let e = s.refusal("size").expect("a refusal at the size");
        assert!(e.contains("bytes"), "{e}");
        assert_eq!(s.calc, good, "the last good results stay");
        s = act(s, Action::Text("nodes", "1x".into()));
        assert!(s.refusal("nodes").unwrap().contains("`nodes`"));
        assert!(s.refusal("size").is_some(), "both refusals shown");
    }

    #[test]
    fn engine_refusals_land_on_the_field_they_name() {
        let s = act(state(LINK), Action::Nic(NicModel::None));
        assert!(s.refusal("nic").is_some(), "{:?}", s.inputs.form);
        let s = act(state(LINK), Action::Text("nodes", "0".into()));
        assert!(s.refusal("nodes").unwrap().contains("cluster.nodes"));
        let s = act(
            act(state(LINK), Action::Nic(NicModel::Roce400)),
            Action::Sharp(true),
        );
        assert!(s.refusal("sharp").is_some(), "{:?}", s.inputs.form);
        let s = state("?gpu=h900&op=all_sum&gdr=perhaps");
        for key in ["gpu", "op", "gdr"] {
            assert!(s.refusal(key).is_some(), "{key}: {:?}", s.inputs.form);
        }
        assert!(
            s.calc.is_some(),
            "defaults stand in for what the link lacks"
        );
        let s = act(s, Action::Gpu(GpuModel::A100));
        assert!(s.refusal("gpu").is_none(), "fixing the field clears it");
    }

    #[test]
    fn the_log_explainers_link_names_the_network_and_the_page_its_rate() {
        let s = state("?gpn=8&nodes=2&nic=roce&nics=1&gdr=1");
        assert!(!s.inputs.form.is_refused(), "{:?}", s.inputs.form);
        let m = &s.calc.as_ref().expect("results").config.machines;
        assert_eq!(
            (m.nic, m.nics_per_node, m.gpus_per_node, m.nodes),
            (NicModel::Roce400, 1, 8, 2)
        );
        assert_eq!(state("?nic=ib").inputs.nic, NicModel::Ndr400);
        assert_eq!(state("?nic=tcp").inputs.nic, NicModel::Tcp100);
        assert!(state("?nic=ethernet").refusal("nic").is_some());
    }

    #[test]
    fn presets_fill_the_machines_and_a_change_makes_them_custom() {
        let Some(p) = presets().into_iter().next() else {
            return;
        };
        let s = state(&format!("?preset={}", p.id));
        assert_eq!(s.inputs.preset, Some(p.id));
        assert_eq!(s.calc.as_ref().unwrap().config.machines, p.machines());
        let s = act(s, Action::Text("nodes", "3".into()));
        assert_eq!(s.inputs.preset, None);
        let s = act(s, Action::Preset(Some(p.id.to_string())));
        assert_eq!(s.inputs.form.text("nodes"), p.machines().nodes.to_string());
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
