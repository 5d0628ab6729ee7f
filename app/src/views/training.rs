//! Training without RDMA: how long one data-parallel training step takes on GPUs that reach
//! each other through PCIe and TCP sockets, and how that compares with one GPU alone. Every
//! figure is `engine::collective::training_step`'s; this view reads the form, keeps its state
//! in the URL under `train-` keys, and draws the answer.

use std::rc::Rc;

use engine::collective::{
    training_step, Bottleneck, CollectiveError, GpuModel, GradientFormat, Machines, NicModel,
    TrainingExample, TrainingReport, TrainingRequest, DEFAULT_MFU, TRAINING_EXAMPLES,
};
use engine::FieldError;
use yew::prelude::*;

use super::figures::{duration, significant};
use super::form::{
    choice_described_by, decimal, ChoiceField, FieldDef, Form, Reads, Refusal, TextField,
};
use super::page_query;

/// Every key this view owns starts with this; the page's other views own the rest.
const KEY_PREFIX: &str = "train-";

/// One box of the form.
struct Field {
    /// Its key is the URL key without [`KEY_PREFIX`] and the element id's tail.
    def: FieldDef,
    /// The engine's name for the value (`CollectiveError`'s `field`).
    engine: &'static str,
}

static NODES: Field = Field {
    def: FieldDef {
        key: "nodes",
        label: "Machines (nodes)",
        unit: "",
        help: "",
        reads: Reads::Whole,
    },
    engine: "machines.nodes",
};

static GPUS_PER_NODE: Field = Field {
    def: FieldDef {
        key: "gpus",
        label: "GPUs per machine",
        unit: "",
        help: "",
        reads: Reads::Whole,
    },
    engine: "machines.gpus_per_node",
};

static PARAMS: Field = Field {
    def: FieldDef {
        key: "params",
        label: "Model size, billions of parameters",
        unit: "",
        help: "",
        reads: Reads::Decimal,
    },
    engine: "params",
};

static TOKENS: Field = Field {
    def: FieldDef {
        key: "tokens",
        label: "Tokens per GPU per step",
        unit: "",
        help: "",
        reads: Reads::Whole,
    },
    engine: "tokens_per_gpu",
};

static MFU: Field = Field {
    def: FieldDef {
        key: "mfu",
        label: "Model-FLOPs utilisation, %",
        unit: "",
        help: "",
        reads: Reads::Decimal,
    },
    engine: "mfu",
};

/// Every box, in the URL's order.
static FIELDS: [&Field; 5] = [&NODES, &GPUS_PER_NODE, &PARAMS, &TOKENS, &MFU];

/// Where a refusal naming nothing on the form is kept: it is shown under the form.
const WHOLE_STEP: &str = "step";

/// What the learner has entered: the picks, and the boxes' texts as typed with the refusal
/// of the last reading in `form`.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingInputs {
    /// The named example the machines come from; `None` once the learner changes them.
    pub example: Option<&'static str>,
    pub gpu: GpuModel,
    pub nic: NicModel,
    pub gradients: GradientFormat,
    pub form: Form,
}

/// Example inputs, not measurements: a 1B-parameter model and one 2048-token sequence per
/// GPU per step.
const DEFAULT_PARAMS_BILLIONS: &str = "1";
const DEFAULT_TOKENS_PER_GPU: &str = "2048";

impl Default for TrainingInputs {
    fn default() -> TrainingInputs {
        let first = TRAINING_EXAMPLES[0];
        let mut inputs = TrainingInputs {
            example: None,
            gpu: first.machines.gpu,
            nic: first.machines.nic,
            gradients: GradientFormat::Bf16,
            form: Form::new([
                (NODES.def.key, String::new()),
                (GPUS_PER_NODE.def.key, String::new()),
                (PARAMS.def.key, DEFAULT_PARAMS_BILLIONS.to_string()),
                (TOKENS.def.key, DEFAULT_TOKENS_PER_GPU.to_string()),
                (MFU.def.key, trim_number(DEFAULT_MFU * 100.0)),
            ]),
        };
        inputs.use_example(first);
        inputs
    }
}

/// `41.5`, not `41.50000000000001`.
fn trim_number(value: f64) -> String {
    let text = format!("{value:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl TrainingInputs {
    fn text(&self, field: &Field) -> &str {
        self.form.text(field.def.key).trim()
    }

    fn use_example(&mut self, example: TrainingExample) {
        let m = example.machines;
        self.example = Some(example.id);
        self.gpu = m.gpu;
        self.nic = m.nic;
        self.form.set(NODES.def.key, m.nodes.to_string());
        self.form
            .set(GPUS_PER_NODE.def.key, m.gpus_per_node.to_string());
    }

    /// Reads the `train-` pairs; unknown keys and unreadable choices keep their defaults,
    /// and typed numbers are kept as typed (the form judges them).
    pub fn from_pairs(pairs: &[(String, String)]) -> TrainingInputs {
        let mut inputs = TrainingInputs::default();
        let get = |key: &str| page_query::value(pairs, &format!("{KEY_PREFIX}{key}"));
        if let Some(example) = get("example").and_then(TrainingExample::from_id) {
            inputs.use_example(example);
        } else if get("example").is_some() {
            inputs.example = None;
        }
        // Explicit machines override the example (a custom set keeps `example=custom`).
        if let Some(gpu) = get("gpu").and_then(GpuModel::from_id) {
            inputs.gpu = gpu;
        }
        if let Some(nic) = get("nic").and_then(NicModel::from_id) {
            inputs.nic = nic;
        }
        if let Some(g) = get("grad").and_then(GradientFormat::from_id) {
            inputs.gradients = g;
        }
        for field in FIELDS {
            if let Some(text) = get(field.def.key) {
                inputs.form.set(field.def.key, text.to_string());
            }
        }
        if let Some(id) = inputs.example {
            let example = TrainingExample::from_id(id).map(|e| e.machines);
            if example != inputs.machines_as_typed() {
                inputs.example = None;
            }
        }
        inputs
    }

    /// Every value, defaults too, each key with [`KEY_PREFIX`].
    pub fn pairs(&self) -> Vec<(String, String)> {
        let picks = [
            ("example", self.example.unwrap_or("custom").to_string()),
            ("gpu", self.gpu.id().to_string()),
            ("nic", self.nic.id().to_string()),
            ("grad", self.gradients.id().to_string()),
        ];
        let texts = self.form.texts().iter().map(|(k, t)| (*k, t.clone()));
        picks
            .into_iter()
            .chain(texts)
            .map(|(k, v)| (format!("{KEY_PREFIX}{k}"), v))
            .collect()
    }

    /// The machines, if both counts read.
    fn machines_as_typed(&self) -> Option<Machines> {
        Some(Machines {
            gpu: self.gpu,
            gpus_per_node: self.text(&GPUS_PER_NODE).parse().ok()?,
            nodes: self.text(&NODES).parse().ok()?,
            nic: self.nic,
            nics_per_node: 1,
            gdr: false,
            sharp: false,
        })
    }

    /// The engine's question, or the key of the box that does not read as a number.
    pub fn request(&self) -> Result<TrainingRequest, (&'static str, String)> {
        let count = |field: &Field| -> Result<u32, (&'static str, String)> {
            let text = self.text(field);
            text.parse::<u32>().map_err(|_| {
                not_read(
                    field,
                    format!("{text:?} is not a whole number (digits only, e.g. 2)"),
                )
            })
        };
        let machines = Machines {
            gpu: self.gpu,
            gpus_per_node: count(&GPUS_PER_NODE)?,
            nodes: count(&NODES)?,
            nic: self.nic,
            nics_per_node: 1,
            gdr: false,
            sharp: false,
        };
        let billions = self.decimal(&PARAMS)?;
        let tokens_text = self.text(&TOKENS);
        let tokens_per_gpu = tokens_text.parse::<u64>().map_err(|_| {
            not_read(
                &TOKENS,
                format!("{tokens_text:?} is not a whole number of tokens (e.g. 2048)"),
            )
        })?;
        let percent = self.decimal(&MFU)?;
        Ok(TrainingRequest {
            machines,
            // Past u64 the cast saturates, and the engine refuses it by name.
            params: (billions * 1e9).round() as u64,
            gradients: self.gradients,
            tokens_per_gpu,
            mfu: percent / 100.0,
        })
    }

    /// A decimal number ≥ 0 from a box; ranges are the engine's to judge.
    fn decimal(&self, field: &Field) -> Result<f64, (&'static str, String)> {
        let text = self.text(field);
        match decimal(text) {
            Ok(v) if v >= 0.0 => Ok(v),
            _ => Err(not_read(
                field,
                format!("{text:?} is not a decimal number ≥ 0 (e.g. 1.5)"),
            )),
        }
    }
}

/// The refusal of a box whose text does not read, naming the engine's field.
fn not_read(field: &Field, why: String) -> (&'static str, String) {
    (field.def.key, format!("invalid `{}`: {why}", field.engine))
}

/// The key of the field the engine's error belongs at: a box, the NIC picker, or
/// [`WHOLE_STEP`].
fn key_of(error: &CollectiveError) -> &'static str {
    let CollectiveError::InvalidField(FieldError { field, .. }) = error;
    FIELDS
        .iter()
        .find(|f| f.engine == field)
        .map(|f| f.def.key)
        .unwrap_or(if field.starts_with("machines.nic") {
            "nic"
        } else {
            WHOLE_STEP
        })
}

/// The engine's answer for the inputs, or the key of where and why it has none.
pub fn evaluate(inputs: &TrainingInputs) -> Result<TrainingReport, (&'static str, String)> {
    let request = inputs.request()?;
    training_step(&request).map_err(|e| (key_of(&e), e.to_string()))
}

/// The page's query with this view's pairs replaced and every other pair kept, in order.
pub fn merged_query(
    current: &[(String, String)],
    inputs: &TrainingInputs,
) -> Vec<(String, String)> {
    current
        .iter()
        .filter(|(k, _)| !k.starts_with(KEY_PREFIX))
        .cloned()
        .chain(inputs.pairs())
        .collect()
}

/// Everything the view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingPage {
    /// The inputs; their form holds the refusal, if the last reading had one.
    pub inputs: TrainingInputs,
    /// The last answer the engine gave; kept while the form has an error.
    pub report: Option<TrainingReport>,
}

impl TrainingPage {
    pub fn new(inputs: TrainingInputs) -> TrainingPage {
        let mut page = TrainingPage {
            inputs,
            report: None,
        };
        page.recompute();
        page
    }

    fn recompute(&mut self) {
        let read = evaluate(&self.inputs);
        let form = &mut self.inputs.form;
        form.accept_all();
        match read {
            Ok(report) => self.report = Some(report),
            Err((key, why)) => form.refuse(key, why),
        }
    }
}

pub enum Action {
    Example(String),
    Gpu(String),
    Nic(String),
    Gradients(String),
    /// A keystroke in the box `key`.
    Text(&'static str, String),
}

impl Reducible for TrainingPage {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut page = (*self).clone();
        let inputs = &mut page.inputs;
        match action {
            Action::Example(id) => match TrainingExample::from_id(&id) {
                Some(example) => inputs.use_example(example),
                None => inputs.example = None,
            },
            Action::Gpu(id) => {
                if let Some(gpu) = GpuModel::from_id(&id) {
                    inputs.gpu = gpu;
                    inputs.example = None;
                }
            }
            Action::Nic(id) => {
                if let Some(nic) = NicModel::from_id(&id) {
                    inputs.nic = nic;
                    inputs.example = None;
                }
            }
            Action::Gradients(id) => {
                if let Some(g) = GradientFormat::from_id(&id) {
                    inputs.gradients = g;
                }
            }
            Action::Text(key, text) => {
                if inputs.form.typed(key).is_some() {
                    inputs.form.set(key, text);
                }
                // Machine shape: typing here leaves the named example.
                if [NODES.def.key, GPUS_PER_NODE.def.key].contains(&key) {
                    inputs.example = None;
                }
            }
        }
        page.recompute();
        Rc::new(page)
    }
}

/// A byte count in decimal units (GB = 10⁹ bytes), as the model's sizes are counted.
fn bytes(value: f64) -> String {
    if value >= 1e9 {
        format!("{} GB", significant(value / 1e9))
    } else if value >= 1e6 {
        format!("{} MB", significant(value / 1e6))
    } else {
        format!("{} kB", significant(value / 1e3))
    }
}

fn bottleneck_words(b: Bottleneck) -> &'static str {
    match b {
        Bottleneck::NvLink => "NVLink",
        Bottleneck::Pcie => "PCIe",
        Bottleneck::Network => "the NICs' line rate",
        Bottleneck::HostCopy => "the socket transport (host-memory copies and TCP)",
        Bottleneck::HostStaging => {
            "host memory, which stages every network byte without GPUDirect RDMA"
        }
        Bottleneck::ProtocolCap => "an NCCL per-channel cap",
    }
}

/// The sentence under the table: plainly, is it worth it?
pub fn verdict(report: &TrainingReport, gpu: GpuModel) -> String {
    let n = report.gpus;
    let one = gpu.name();
    if n == 1 {
        return format!(
            "One {one} alone: there are no gradients to average, so this is the baseline the \
             speedup is measured against."
        );
    }
    let (plain, overlapped) = (report.speedup_no_overlap, report.speedup_overlap);
    if report.slower_than_one_gpu() {
        format!(
            "These {n} GPUs train slower than one {one} alone: even if the AllReduce ran \
             entirely behind the computation, they would get through {:.2}× the tokens per \
             second of a single GPU.",
            overlapped
        )
    } else if plain < 1.0 {
        format!(
            "Without overlap these {n} GPUs are slower than one {one} alone ({plain:.2}×); only \
             hiding the AllReduce behind the backward pass would lift them to {overlapped:.2}×."
        )
    } else {
        format!(
            "These {n} GPUs train {plain:.2}× as fast as one {one} ({overlapped:.2}× with perfect \
             overlap), against {n}× if communication were free."
        )
    }
}

/// The "Training without RDMA" calculator.
#[function_component]
pub fn TrainingWithoutRdma() -> Html {
    let page = use_reducer(|| TrainingPage::new(TrainingInputs::from_pairs(&page_query::read())));
    {
        let inputs = page.inputs.clone();
        use_effect_with(inputs, |inputs| {
            page_query::replace(&merged_query(&page_query::read(), inputs));
        });
    }
    let dispatch = |make: fn(String) -> Action| {
        let page = page.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                page.dispatch(make(select.value()));
            }
        })
    };
    let on_type = {
        let page = page.clone();
        Callback::from(move |(key, text): (&'static str, String)| {
            page.dispatch(Action::Text(key, text))
        })
    };
    let inputs = &page.inputs;
    let refusal = |key: &str| inputs.form.refusal(key).map(Refusal::plain);
    let text_field = |field: &'static Field| {
        let key = field.def.key;
        html! {
            <TextField def={&field.def} id={format!("{KEY_PREFIX}{key}")} text={inputs.form.text(key).to_string()}
                refusal={refusal(key)} on_type={on_type.clone()} />
        }
    };
    let nic_refused = refusal("nic").is_some();
    html! {
        <section class="train-view" aria-labelledby="train-title">
            <h2 id="train-title">{ "Data-parallel training without RDMA" }</h2>
            <div class="train-form">
                <ChoiceField key_name="example" id="train-example" label="Machines">
                    <select id="train-example" onchange={dispatch(Action::Example)}>
                        { for TRAINING_EXAMPLES.iter().map(|e| html! {
                            <option value={e.id} selected={inputs.example == Some(e.id)}>{ e.name }</option>
                        }) }
                        <option value="custom" selected={inputs.example.is_none()}>{ "Custom (set below)" }</option>
                    </select>
                </ChoiceField>
                <ChoiceField key_name="gpu" id="train-gpu" label="GPU">
                    <select id="train-gpu" onchange={dispatch(Action::Gpu)}>
                        { for GpuModel::ALL.iter().map(|g| html! {
                            <option value={g.id()} selected={inputs.gpu == *g}>{ g.name() }</option>
                        }) }
                    </select>
                </ChoiceField>
                { text_field(&NODES) }
                { text_field(&GPUS_PER_NODE) }
                <ChoiceField key_name="nic" id="train-nic" label="Network between machines" refusal={refusal("nic")}>
                    <select id="train-nic" onchange={dispatch(Action::Nic)}
                            aria-invalid={nic_refused.to_string()}
                            aria-describedby={choice_described_by("train-nic", false, nic_refused)}>
                        { for NicModel::ALL.iter().map(|n| html! {
                            <option value={n.id()} selected={inputs.nic == *n}>{ n.name() }</option>
                        }) }
                    </select>
                </ChoiceField>
                { text_field(&PARAMS) }
                <ChoiceField key_name="grad" id="train-grad" label="Gradient format">
                    <select id="train-grad" onchange={dispatch(Action::Gradients)}>
                        { for GradientFormat::ALL.iter().map(|g| html! {
                            <option value={g.id()} selected={inputs.gradients == *g}>
                                { format!("{} ({} bytes)", g.id().to_ascii_uppercase(), g.bytes()) }
                            </option>
                        }) }
                    </select>
                </ChoiceField>
                { text_field(&TOKENS) }
                { text_field(&MFU) }
            </div>
            // A refusal naming no field is the whole step's: said under the form.
            if let Some(message) = inputs.form.refusal(WHOLE_STEP) {
                <div class="form-error" role="alert"><p>{ message.to_string() }</p></div>
            }
            if inputs.form.is_refused() && page.report.is_some() {
                <p class="train-stale">{ "Showing the last values that computed." }</p>
            }
            if let Some(report) = page.report {
                <StepTable report={report} />
                <p class="train-verdict" aria-live="polite">{ verdict(&report, inputs.gpu) }</p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct StepTableProps {
    report: TrainingReport,
}

/// One step, per GPU, as the engine priced it.
#[function_component]
fn StepTable(props: &StepTableProps) -> Html {
    let r = &props.report;
    let all_reduce = match &r.all_reduce {
        Some(a) => html! {
            <tr>
                <th scope="row">{ "Gradient AllReduce" }</th>
                <td>{ duration(a.time_s) }</td>
                <td>{ format!("{} of gradients; NCCL {:?}/{:?}, bus bandwidth {} GB/s, limited by {}",
                              bytes(a.bytes), a.algorithm, a.protocol, significant(a.busbw_gbs),
                              bottleneck_words(a.bottleneck)) }</td>
            </tr>
        },
        None => html! {
            <tr>
                <th scope="row">{ "Gradient AllReduce" }</th>
                <td>{ "none" }</td>
                <td>{ "one GPU has no one to average with" }</td>
            </tr>
        },
    };
    html! {
        <div class="train-table-scroll" tabindex="0" role="region" aria-label="Step time, per GPU">
            <table class="train-table">
                <thead>
                    <tr><th scope="col">{ "Per step, per GPU" }</th><th scope="col">{ "Time" }</th><th scope="col">{ "What sets it" }</th></tr>
                </thead>
                <tbody>
                    <tr>
                        <th scope="row">{ "Compute" }</th>
                        <td>{ duration(r.compute_s) }</td>
                        <td>{ format!("{:.3e} FLOPs (6 × parameters × tokens) at {} TFLOP/s peak × MFU",
                                      r.flops_per_gpu, significant(r.peak_tflops)) }</td>
                    </tr>
                    { all_reduce }
                    <tr>
                        <th scope="row">{ "Step, no overlap" }</th>
                        <td>{ duration(r.step_no_overlap_s) }</td>
                        <td>{ format!("compute, then the AllReduce: {:.2}× one GPU's tokens/s", r.speedup_no_overlap) }</td>
                    </tr>
                    <tr>
                        <th scope="row">{ "Step, perfect overlap" }</th>
                        <td>{ duration(r.step_overlap_s) }</td>
                        <td>{ format!("the longer of the two: {:.2}× one GPU's tokens/s", r.speedup_overlap) }</td>
                    </tr>
                </tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(search: &str) -> Vec<(String, String)> {
        page_query::parse(search)
    }

    /// The one refusal the page shows: (key, message).
    fn the_refusal(page: &TrainingPage) -> (&'static str, String) {
        match page.inputs.form.refusals() {
            [(key, message)] => (key, message.clone()),
            other => panic!("not one refusal: {other:?}"),
        }
    }

    #[test]
    fn the_default_form_is_the_first_example_and_computes() {
        let page = TrainingPage::new(TrainingInputs::default());
        assert_eq!(page.inputs.example, Some(TRAINING_EXAMPLES[0].id));
        assert!(!page.inputs.form.is_refused(), "{:?}", page.inputs.form);
        assert_eq!(page.report.unwrap().gpus, 8);
    }

    #[test]
    fn the_query_round_trips_and_keeps_other_views_pairs() {
        let mut form = TrainingInputs::from_pairs(&pairs("?train-example=ws2-10g&train-params=7"));
        assert_eq!(form.example, Some("ws2-10g"));
        assert_eq!(form.form.text("params"), "7");
        form.gradients = GradientFormat::Fp32;
        let search = page_query::format(&form.pairs());
        assert_eq!(
            TrainingInputs::from_pairs(&page_query::parse(&search)),
            form
        );

        let current = pairs("?op=all_reduce&train-params=3&gpu=h100&train-junk=1");
        let merged = merged_query(&current, &form);
        assert_eq!(merged[0], ("op".to_string(), "all_reduce".to_string()));
        assert_eq!(merged[1], ("gpu".to_string(), "h100".to_string()));
        assert!(merged[2..].iter().all(|(k, _)| k.starts_with(KEY_PREFIX)));
        assert!(!merged.iter().any(|(k, _)| k == "train-junk"));
        assert_eq!(page_query::value(&merged, "train-params"), Some("7"));
    }

    #[test]
    fn changed_machines_in_a_link_are_custom() {
        let form = TrainingInputs::from_pairs(&pairs("?train-example=ws2-10g&train-nodes=3"));
        assert_eq!(form.example, None);
        assert_eq!(form.form.text("nodes"), "3");
        assert_eq!(form.nic, NicModel::Tcp10);
        let junk =
            TrainingInputs::from_pairs(&pairs("?train-example=nope&train-gpu=zzz&train-grad=q"));
        assert_eq!(junk.example, None);
        assert_eq!(junk.gpu, TrainingInputs::default().gpu);
    }

    #[test]
    fn a_bad_value_is_located_and_keeps_the_last_good_results() {
        let page = Rc::new(TrainingPage::new(TrainingInputs::default()));
        let good = page.report;
        let typed = page.reduce(Action::Text("params", "7x".into()));
        let (spot, message) = the_refusal(&typed);
        assert_eq!(spot, "params");
        assert!(message.contains("`params`"), "{message}");
        assert_eq!(typed.report, good);

        // The engine's own range check lands on its box too.
        let mfu = typed
            .reduce(Action::Text("params", "7".into()))
            .reduce(Action::Text("mfu", "150".into()));
        let (spot, message) = the_refusal(&mfu);
        assert_eq!(spot, "mfu");
        assert!(message.contains("`mfu`"), "{message}");
        // Two nodes with no network: the NIC picker is named.
        let nodes = mfu
            .reduce(Action::Text("mfu", "41.5".into()))
            .reduce(Action::Text("nodes", "2".into()));
        assert_eq!(nodes.inputs.example, None);
        assert_eq!(the_refusal(&nodes).0, "nic");
        let fixed = nodes.reduce(Action::Nic("tcp-10".into()));
        assert!(!fixed.inputs.form.is_refused(), "{:?}", fixed.inputs.form);
        assert_eq!(fixed.report.unwrap().gpus, 16);
    }

    #[test]
    fn the_verdict_says_plainly_when_many_gpus_lose_to_one() {
        let mut form = TrainingInputs::from_pairs(&pairs("?train-example=ws2-10g&train-params=7"));
        let slow = evaluate(&form).unwrap();
        assert!(slow.slower_than_one_gpu());
        let text = verdict(&slow, form.gpu);
        assert!(
            text.contains("16 GPUs train slower than one GeForce RTX 4090"),
            "{text}"
        );

        form.use_example(TrainingExample::from_id("ws1").unwrap());
        let fast = evaluate(&form).unwrap();
        assert!(!fast.slower_than_one_gpu());
        assert!(verdict(&fast, form.gpu).contains("as fast as one"));

        let mut one = form.clone();
        one.form.set("gpus", "1".into());
        let alone = evaluate(&one).unwrap();
        assert!(verdict(&alone, one.gpu).contains("baseline"));
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration(2.5), "2.50 s");
        assert_eq!(duration(0.1234), "123 ms");
        assert_eq!(duration(42e-6), "42.0 µs");
        assert_eq!(trim_number(DEFAULT_MFU * 100.0), "41.5");
    }
}
