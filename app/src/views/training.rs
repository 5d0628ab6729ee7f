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
use super::page_query;

/// Every key this view owns starts with this; the page's other views own the rest.
const KEY_PREFIX: &str = "train-";

/// A text box of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextField {
    Nodes,
    GpusPerNode,
    ParamsBillions,
    TokensPerGpu,
    MfuPercent,
}

impl TextField {
    pub const ALL: [TextField; 5] = [
        TextField::ParamsBillions,
        TextField::TokensPerGpu,
        TextField::MfuPercent,
        TextField::Nodes,
        TextField::GpusPerNode,
    ];

    /// The URL key, without [`KEY_PREFIX`]; also the element id's tail.
    fn key(self) -> &'static str {
        match self {
            TextField::Nodes => "nodes",
            TextField::GpusPerNode => "gpus",
            TextField::ParamsBillions => "params",
            TextField::TokensPerGpu => "tokens",
            TextField::MfuPercent => "mfu",
        }
    }

    fn label(self) -> &'static str {
        match self {
            TextField::Nodes => "Machines (nodes)",
            TextField::GpusPerNode => "GPUs per machine",
            TextField::ParamsBillions => "Model size, billions of parameters",
            TextField::TokensPerGpu => "Tokens per GPU per step",
            TextField::MfuPercent => "Model-FLOPs utilisation, %",
        }
    }

    /// The engine's name for the field this box feeds (`CollectiveError`'s `field`).
    fn engine_field(self) -> &'static str {
        match self {
            TextField::Nodes => "machines.nodes",
            TextField::GpusPerNode => "machines.gpus_per_node",
            TextField::ParamsBillions => "params",
            TextField::TokensPerGpu => "tokens_per_gpu",
            TextField::MfuPercent => "mfu",
        }
    }

    /// Machine shape: typing here leaves the named example.
    fn shapes_machines(self) -> bool {
        matches!(self, TextField::Nodes | TextField::GpusPerNode)
    }
}

/// Where an error is shown: by a text box, or by the NIC picker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spot {
    Text(TextField),
    Nic,
    /// An error naming nothing on the form.
    Form,
}

/// What the learner has entered, as typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    /// The named example the machines come from; `None` once the learner changes them.
    pub example: Option<&'static str>,
    pub gpu: GpuModel,
    pub nic: NicModel,
    pub gradients: GradientFormat,
    nodes: String,
    gpus_per_node: String,
    params_billions: String,
    tokens_per_gpu: String,
    mfu_percent: String,
}

/// Example inputs, not measurements: a 1B-parameter model and one 2048-token sequence per
/// GPU per step.
const DEFAULT_PARAMS_BILLIONS: &str = "1";
const DEFAULT_TOKENS_PER_GPU: &str = "2048";

impl Default for Form {
    fn default() -> Form {
        let first = TRAINING_EXAMPLES[0];
        let mut form = Form {
            example: None,
            gpu: first.machines.gpu,
            nic: first.machines.nic,
            gradients: GradientFormat::Bf16,
            nodes: String::new(),
            gpus_per_node: String::new(),
            params_billions: DEFAULT_PARAMS_BILLIONS.to_string(),
            tokens_per_gpu: DEFAULT_TOKENS_PER_GPU.to_string(),
            mfu_percent: trim_number(DEFAULT_MFU * 100.0),
        };
        form.use_example(first);
        form
    }
}

/// `41.5`, not `41.50000000000001`.
fn trim_number(value: f64) -> String {
    let text = format!("{value:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl Form {
    pub fn text(&self, field: TextField) -> &str {
        match field {
            TextField::Nodes => &self.nodes,
            TextField::GpusPerNode => &self.gpus_per_node,
            TextField::ParamsBillions => &self.params_billions,
            TextField::TokensPerGpu => &self.tokens_per_gpu,
            TextField::MfuPercent => &self.mfu_percent,
        }
    }

    fn text_mut(&mut self, field: TextField) -> &mut String {
        match field {
            TextField::Nodes => &mut self.nodes,
            TextField::GpusPerNode => &mut self.gpus_per_node,
            TextField::ParamsBillions => &mut self.params_billions,
            TextField::TokensPerGpu => &mut self.tokens_per_gpu,
            TextField::MfuPercent => &mut self.mfu_percent,
        }
    }

    fn use_example(&mut self, example: TrainingExample) {
        let m = example.machines;
        self.example = Some(example.id);
        self.gpu = m.gpu;
        self.nic = m.nic;
        self.nodes = m.nodes.to_string();
        self.gpus_per_node = m.gpus_per_node.to_string();
    }

    /// Reads the `train-` pairs; unknown keys and unreadable choices keep their defaults,
    /// and typed numbers are kept as typed (the form judges them).
    pub fn from_pairs(pairs: &[(String, String)]) -> Form {
        let mut form = Form::default();
        let get = |key: &str| page_query::value(pairs, &format!("{KEY_PREFIX}{key}"));
        if let Some(example) = get("example").and_then(TrainingExample::from_id) {
            form.use_example(example);
        } else if get("example").is_some() {
            form.example = None;
        }
        // Explicit machines override the example (a custom set keeps `example=custom`).
        if let Some(gpu) = get("gpu").and_then(GpuModel::from_id) {
            form.gpu = gpu;
        }
        if let Some(nic) = get("nic").and_then(NicModel::from_id) {
            form.nic = nic;
        }
        if let Some(g) = get("grad").and_then(GradientFormat::from_id) {
            form.gradients = g;
        }
        for field in TextField::ALL {
            if let Some(text) = get(field.key()) {
                *form.text_mut(field) = text.to_string();
            }
        }
        if let Some(id) = form.example {
            let example = TrainingExample::from_id(id).map(|e| e.machines);
            if example != form.machines_as_typed() {
                form.example = None;
            }
        }
        form
    }

    /// Every value, defaults too, each key with [`KEY_PREFIX`].
    pub fn pairs(&self) -> Vec<(String, String)> {
        let mut pairs = vec![
            ("example", self.example.unwrap_or("custom").to_string()),
            ("gpu", self.gpu.id().to_string()),
            ("nic", self.nic.id().to_string()),
            ("grad", self.gradients.id().to_string()),
        ];
        for field in [TextField::Nodes, TextField::GpusPerNode] {
            pairs.push((field.key(), self.text(field).to_string()));
        }
        for field in [
            TextField::ParamsBillions,
            TextField::TokensPerGpu,
            TextField::MfuPercent,
        ] {
            pairs.push((field.key(), self.text(field).to_string()));
        }
        pairs
            .into_iter()
            .map(|(k, v)| (format!("{KEY_PREFIX}{k}"), v))
            .collect()
    }

    /// The machines, if both counts read.
    fn machines_as_typed(&self) -> Option<Machines> {
        Some(Machines {
            gpu: self.gpu,
            gpus_per_node: self.gpus_per_node.trim().parse().ok()?,
            nodes: self.nodes.trim().parse().ok()?,
            nic: self.nic,
            nics_per_node: 1,
            gdr: false,
            sharp: false,
        })
    }

    /// The engine's question, or the box that does not read as a number.
    pub fn request(&self) -> Result<TrainingRequest, (Spot, String)> {
        let count = |field: TextField| -> Result<u32, (Spot, String)> {
            let text = self.text(field).trim();
            text.parse::<u32>().map_err(|_| {
                not_read(
                    field,
                    format!("{text:?} is not a whole number (digits only, e.g. 2)"),
                )
            })
        };
        let machines = Machines {
            gpu: self.gpu,
            gpus_per_node: count(TextField::GpusPerNode)?,
            nodes: count(TextField::Nodes)?,
            nic: self.nic,
            nics_per_node: 1,
            gdr: false,
            sharp: false,
        };
        let billions = decimal(self, TextField::ParamsBillions)?;
        let tokens_text = self.text(TextField::TokensPerGpu).trim();
        let tokens_per_gpu = tokens_text.parse::<u64>().map_err(|_| {
            not_read(
                TextField::TokensPerGpu,
                format!("{tokens_text:?} is not a whole number of tokens (e.g. 2048)"),
            )
        })?;
        let percent = decimal(self, TextField::MfuPercent)?;
        Ok(TrainingRequest {
            machines,
            // Past u64 the cast saturates, and the engine refuses it by name.
            params: (billions * 1e9).round() as u64,
            gradients: self.gradients,
            tokens_per_gpu,
            mfu: percent / 100.0,
        })
    }
}

fn not_read(field: TextField, why: String) -> (Spot, String) {
    (
        Spot::Text(field),
        format!("invalid `{}`: {why}", field.engine_field()),
    )
}

/// A decimal number ≥ 0 from a box; ranges are the engine's to judge.
fn decimal(form: &Form, field: TextField) -> Result<f64, (Spot, String)> {
    let text = form.text(field).trim();
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(not_read(
            field,
            format!("{text:?} is not a decimal number ≥ 0 (e.g. 1.5)"),
        )),
    }
}

/// Where the engine's error belongs on the form.
fn spot_of(error: &CollectiveError) -> Spot {
    let CollectiveError::InvalidField(FieldError { field, .. }) = error;
    TextField::ALL
        .into_iter()
        .find(|f| f.engine_field() == field)
        .map(Spot::Text)
        .unwrap_or(if field.starts_with("machines.nic") {
            Spot::Nic
        } else {
            Spot::Form
        })
}

/// The engine's answer for the form, or where and why it has none.
pub fn evaluate(form: &Form) -> Result<TrainingReport, (Spot, String)> {
    let request = form.request()?;
    training_step(&request).map_err(|e| (spot_of(&e), e.to_string()))
}

/// The page's query with this view's pairs replaced and every other pair kept, in order.
pub fn merged_query(current: &[(String, String)], form: &Form) -> Vec<(String, String)> {
    current
        .iter()
        .filter(|(k, _)| !k.starts_with(KEY_PREFIX))
        .cloned()
        .chain(form.pairs())
        .collect()
}

/// Everything the view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingPage {
    pub form: Form,
    /// The last answer the engine gave; kept while the form has an error.
    pub report: Option<TrainingReport>,
    pub error: Option<(Spot, String)>,
}

impl TrainingPage {
    pub fn new(form: Form) -> TrainingPage {
        let mut page = TrainingPage {
            form,
            report: None,
            error: None,
        };
        page.recompute();
        page
    }

    fn recompute(&mut self) {
        match evaluate(&self.form) {
            Ok(report) => {
                self.report = Some(report);
                self.error = None;
            }
            Err(error) => self.error = Some(error),
        }
    }
}

pub enum Action {
    Example(String),
    Gpu(String),
    Nic(String),
    Gradients(String),
    Text(TextField, String),
}

impl Reducible for TrainingPage {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut page = (*self).clone();
        let form = &mut page.form;
        match action {
            Action::Example(id) => match TrainingExample::from_id(&id) {
                Some(example) => form.use_example(example),
                None => form.example = None,
            },
            Action::Gpu(id) => {
                if let Some(gpu) = GpuModel::from_id(&id) {
                    form.gpu = gpu;
                    form.example = None;
                }
            }
            Action::Nic(id) => {
                if let Some(nic) = NicModel::from_id(&id) {
                    form.nic = nic;
                    form.example = None;
                }
            }
            Action::Gradients(id) => {
                if let Some(g) = GradientFormat::from_id(&id) {
                    form.gradients = g;
                }
            }
            Action::Text(field, text) => {
                *form.text_mut(field) = text;
                if field.shapes_machines() {
                    form.example = None;
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
    let page = use_reducer(|| TrainingPage::new(Form::from_pairs(&page_query::read())));
    {
        let form = page.form.clone();
        use_effect_with(form, |form| {
            page_query::replace(&merged_query(&page_query::read(), form));
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
    let on_text = |field: TextField| {
        let page = page.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(input) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                page.dispatch(Action::Text(field, input.value()));
            }
        })
    };
    let form = &page.form;
    let error_at = |spot: Spot| {
        page.error
            .as_ref()
            .filter(|(s, _)| *s == spot)
            .map(|(_, m)| m.clone())
    };
    html! {
        <section class="train-view" aria-labelledby="train-title">
            <h2 id="train-title">{ "Data-parallel training without RDMA" }</h2>
            <div class="train-form">
                <div class="train-field train-wide">
                    <label for="train-example">{ "Machines" }</label>
                    <select id="train-example" onchange={dispatch(Action::Example)}>
                        { for TRAINING_EXAMPLES.iter().map(|e| html! {
                            <option value={e.id} selected={form.example == Some(e.id)}>{ e.name }</option>
                        }) }
                        <option value="custom" selected={form.example.is_none()}>{ "Custom (set below)" }</option>
                    </select>
                </div>
                <div class="train-field">
                    <label for="train-gpu">{ "GPU" }</label>
                    <select id="train-gpu" onchange={dispatch(Action::Gpu)}>
                        { for GpuModel::ALL.iter().map(|g| html! {
                            <option value={g.id()} selected={form.gpu == *g}>{ g.name() }</option>
                        }) }
                    </select>
                </div>
                <TextBox field={TextField::Nodes} text={form.text(TextField::Nodes).to_string()}
                         error={error_at(Spot::Text(TextField::Nodes))} oninput={on_text(TextField::Nodes)} />
                <TextBox field={TextField::GpusPerNode} text={form.text(TextField::GpusPerNode).to_string()}
                         error={error_at(Spot::Text(TextField::GpusPerNode))} oninput={on_text(TextField::GpusPerNode)} />
                <ChoiceError id="train-nic" label="Network between machines" error={error_at(Spot::Nic)}>
                    <select id="train-nic" onchange={dispatch(Action::Nic)}
                            aria-invalid={error_at(Spot::Nic).is_some().to_string()}
                            aria-describedby={error_at(Spot::Nic).map(|_| "train-nic-error")}>
                        { for NicModel::ALL.iter().map(|n| html! {
                            <option value={n.id()} selected={form.nic == *n}>{ n.name() }</option>
                        }) }
                    </select>
                </ChoiceError>
                <TextBox field={TextField::ParamsBillions} text={form.text(TextField::ParamsBillions).to_string()}
                         error={error_at(Spot::Text(TextField::ParamsBillions))} oninput={on_text(TextField::ParamsBillions)} />
                <div class="train-field">
                    <label for="train-grad">{ "Gradient format" }</label>
                    <select id="train-grad" onchange={dispatch(Action::Gradients)}>
                        { for GradientFormat::ALL.iter().map(|g| html! {
                            <option value={g.id()} selected={form.gradients == *g}>
                                { format!("{} ({} bytes)", g.id().to_uppercase(), g.bytes()) }
                            </option>
                        }) }
                    </select>
                </div>
                <TextBox field={TextField::TokensPerGpu} text={form.text(TextField::TokensPerGpu).to_string()}
                         error={error_at(Spot::Text(TextField::TokensPerGpu))} oninput={on_text(TextField::TokensPerGpu)} />
                <TextBox field={TextField::MfuPercent} text={form.text(TextField::MfuPercent).to_string()}
                         error={error_at(Spot::Text(TextField::MfuPercent))} oninput={on_text(TextField::MfuPercent)} />
            </div>
            if let Some(message) = error_at(Spot::Form) {
                <p class="train-error" role="alert">{ message }</p>
            }
            if page.error.is_some() && page.report.is_some() {
                <p class="train-stale">{ "Showing the last values that computed." }</p>
            }
            if let Some(report) = page.report {
                <StepTable report={report} />
                <p class="train-verdict" aria-live="polite">{ verdict(&report, form.gpu) }</p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct TextBoxProps {
    field: TextField,
    text: String,
    error: Option<String>,
    oninput: Callback<InputEvent>,
}

#[function_component]
fn TextBox(props: &TextBoxProps) -> Html {
    let id = format!("{KEY_PREFIX}{}", props.field.key());
    let error_id = format!("{id}-error");
    let invalid = props.error.is_some();
    html! {
        <div class={classes!("train-field", invalid.then_some("invalid"))}>
            <label for={id.clone()}>{ props.field.label() }</label>
            <input id={id} type="text" inputmode="decimal" autocomplete="off" value={props.text.clone()}
                   oninput={props.oninput.clone()} aria-invalid={invalid.to_string()}
                   aria-describedby={invalid.then(|| error_id.clone())} />
            if let Some(message) = &props.error {
                <p class="train-field-error" id={error_id} role="alert">{ message.clone() }</p>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ChoiceErrorProps {
    id: AttrValue,
    label: AttrValue,
    error: Option<String>,
    children: Html,
}

/// A picker with its label and, under it, the error that names it.
#[function_component]
fn ChoiceError(props: &ChoiceErrorProps) -> Html {
    let invalid = props.error.is_some();
    html! {
        <div class={classes!("train-field", invalid.then_some("invalid"))}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            { props.children.clone() }
            if let Some(message) = &props.error {
                <p class="train-field-error" id={format!("{}-error", props.id)} role="alert">{ message.clone() }</p>
            }
        </div>
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

    #[test]
    fn the_default_form_is_the_first_example_and_computes() {
        let page = TrainingPage::new(Form::default());
        assert_eq!(page.form.example, Some(TRAINING_EXAMPLES[0].id));
        assert!(page.error.is_none(), "{:?}", page.error);
        assert_eq!(page.report.unwrap().gpus, 8);
    }

    #[test]
    fn the_query_round_trips_and_keeps_other_views_pairs() {
        let mut form = Form::from_pairs(&pairs("?train-example=ws2-10g&train-params=7"));
        assert_eq!(form.example, Some("ws2-10g"));
        assert_eq!(form.text(TextField::ParamsBillions), "7");
        form.gradients = GradientFormat::Fp32;
        let search = page_query::format(&form.pairs());
        assert_eq!(Form::from_pairs(&page_query::parse(&search)), form);

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
        let form = Form::from_pairs(&pairs("?train-example=ws2-10g&train-nodes=3"));
        assert_eq!(form.example, None);
        assert_eq!(form.text(TextField::Nodes), "3");
        assert_eq!(form.nic, NicModel::Tcp10);
        let junk = Form::from_pairs(&pairs("?train-example=nope&train-gpu=zzz&train-grad=q"));
        assert_eq!(junk.example, None);
        assert_eq!(junk.gpu, Form::default().gpu);
    }

    #[test]
    fn a_bad_value_is_located_and_keeps_the_last_good_results() {
        let page = Rc::new(TrainingPage::new(Form::default()));
        let good = page.report;
        let typed = page.reduce(Action::Text(TextField::ParamsBillions, "7x".into()));
        let (spot, message) = typed.error.clone().expect("an error");
        assert_eq!(spot, Spot::Text(TextField::ParamsBillions));
        assert!(message.contains("`params`"), "{message}");
        assert_eq!(typed.report, good);

        // The engine's own range check lands on its box too.
        let mfu = typed
            .reduce(Action::Text(TextField::ParamsBillions, "7".into()))
            .reduce(Action::Text(TextField::MfuPercent, "150".into()));
        let (spot, message) = mfu.error.clone().expect("an error");
        assert_eq!(spot, Spot::Text(TextField::MfuPercent));
        assert!(message.contains("`mfu`"), "{message}");
        // Two nodes with no network: the NIC picker is named.
        let nodes = mfu
            .reduce(Action::Text(TextField::MfuPercent, "41.5".into()))
            .reduce(Action::Text(TextField::Nodes, "2".into()));
        assert_eq!(nodes.form.example, None);
        assert_eq!(nodes.error.as_ref().unwrap().0, Spot::Nic);
        let fixed = nodes.reduce(Action::Nic("tcp-10".into()));
        assert!(fixed.error.is_none(), "{:?}", fixed.error);
        assert_eq!(fixed.report.unwrap().gpus, 16);
    }

    #[test]
    fn the_verdict_says_plainly_when_many_gpus_lose_to_one() {
        let mut form = Form::from_pairs(&pairs("?train-example=ws2-10g&train-params=7"));
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
        *one.text_mut(TextField::GpusPerNode) = "1".into();
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
