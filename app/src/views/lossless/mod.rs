//! The /lossless calculators: where `NCCL_IB_TC` lands (DSCP, priority, PFC, ECN, and the
//! CNPs' own path) and how much buffer a lossless priority needs per port. Every verdict
//! and byte count is `engine::lossless`'s; the view keeps the typed text, in the URL too.

mod headroom;
mod qos;

use std::rc::Rc;

use engine::lossless::{Headroom, HeadroomBreakdown, QosChain, QosFinding, QosPlan};
use yew::prelude::*;

use super::page_query;
use crate::views::form::{FieldDef, Form, Refusal, TextField};

/// Query keys: each calculator's field names, behind its prefix.
const QOS_PREFIX: &str = "qos.";
const HEADROOM_PREFIX: &str = "headroom.";

/// Both calculators' text, each refusal under its box, and their last good answers.
#[derive(Debug, Clone, PartialEq)]
pub struct LosslessPage {
    pub qos: Form,
    pub qos_result: Option<(QosChain, Vec<QosFinding>)>,
    pub headroom: Form,
    pub headroom_result: Option<HeadroomBreakdown>,
}

pub enum Action {
    Qos(&'static str, String),
    Headroom(&'static str, String),
    Reset,
}

impl LosslessPage {
    fn new(qos: Form, headroom: Form) -> LosslessPage {
        let mut page = LosslessPage {
            qos,
            qos_result: None,
            headroom,
            headroom_result: None,
        };
        page.recompute();
        page
    }

    /// The examples, with whatever the query changes.
    fn from_query(pairs: &[(String, String)]) -> LosslessPage {
        let mut qos = Form::new(QosPlan::example().texts());
        qos.read_query(QOS_PREFIX, pairs);
        let mut headroom = Form::new(Headroom::example().texts());
        headroom.read_query(HEADROOM_PREFIX, pairs);
        LosslessPage::new(qos, headroom)
    }

    /// Judges both forms; an answer that fails keeps the last good one on screen.
    fn recompute(&mut self) {
        self.qos.accept_all();
        match QosPlan::from_texts(|k| self.qos.text(k).to_string()).and_then(|p| p.check()) {
            Ok(result) => self.qos_result = Some(result),
            Err(e) => {
                self.qos.place(&e);
            }
        }
        self.headroom.accept_all();
        match Headroom::from_texts(|k| self.headroom.text(k).to_string()).and_then(|h| h.bytes()) {
            Ok(b) => self.headroom_result = Some(b),
            Err(e) => {
                self.headroom.place(&e);
            }
        }
    }

    /// The query: only the fields that differ from the examples.
    fn pairs(&self) -> Vec<(String, String)> {
        let mut pairs = (self.qos).changed(QOS_PREFIX, &Form::new(QosPlan::example().texts()));
        pairs.extend(
            (self.headroom).changed(HEADROOM_PREFIX, &Form::new(Headroom::example().texts())),
        );
        pairs
    }
}

impl Reducible for LosslessPage {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Qos(key, text) => next.qos.set(key, text),
            Action::Headroom(key, text) => next.headroom.set(key, text),
            Action::Reset => return Rc::new(LosslessPage::from_query(&[])),
        }
        next.recompute();
        Rc::new(next)
    }
}

#[derive(Properties, PartialEq)]
pub struct FieldsProps {
    pub defs: &'static [FieldDef],
    /// The element ids' and query keys' prefix: `qos`, `headroom`.
    pub prefix: &'static str,
    pub form: Form,
    pub on_input: Callback<(&'static str, String)>,
}

/// A calculator's boxes, each with the refusal of its own text.
#[function_component]
pub fn Fields(props: &FieldsProps) -> Html {
    html! {
        <div class="lossless-fields">
            { for props.defs.iter().map(|def| html! {
                <TextField {def} id={format!("{}-{}", props.prefix, def.key)}
                    text={props.form.text(def.key).to_string()}
                    refusal={props.form.refusal(def.key).map(Refusal::plain)}
                    on_type={props.on_input.clone()} />
            }) }
        </div>
    }
}

#[function_component]
pub fn LosslessView() -> Html {
    let page = use_reducer(|| LosslessPage::from_query(&page_query::read()));
    {
        let pairs = page.pairs();
        use_effect_with(pairs, |pairs| page_query::replace(pairs));
    }
    let on_qos = {
        let page = page.dispatcher();
        Callback::from(move |(key, text): (&'static str, String)| {
            page.dispatch(Action::Qos(key, text))
        })
    };
    let on_headroom = {
        let page = page.dispatcher();
        Callback::from(move |(key, text): (&'static str, String)| {
            page.dispatch(Action::Headroom(key, text))
        })
    };
    let reset = {
        let page = page.dispatcher();
        Callback::from(move |_| page.dispatch(Action::Reset))
    };
    html! {
        <section class="lossless-view" aria-labelledby="lossless-view-title">
            <h2 id="lossless-view-title" class="lossless-title">{ "QoS and headroom calculator" }</h2>
            <qos::QosPanel form={page.qos.clone()}
                result={page.qos_result.clone()} on_input={on_qos} />
            <headroom::HeadroomPanel form={page.headroom.clone()}
                result={page.headroom_result.clone()} on_input={on_headroom} />
            <button type="button" class="lossless-reset" onclick={reset}>{ "Back to the examples" }</button>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_answer_and_write_no_query() {
        let page = LosslessPage::from_query(&[]);
        assert!(!page.qos.is_refused() && !page.headroom.is_refused());
        assert_eq!(page.headroom_result.as_ref().unwrap().total, 43_496);
        assert!(page.pairs().is_empty());
    }

    #[test]
    fn a_half_typed_value_keeps_the_last_answer_and_names_the_field() {
        let page = Rc::new(LosslessPage::from_query(&[]));
        let page = page.reduce(Action::Headroom("cable_m", "1e".into()));
        assert!(page.headroom.refusal("cable_m").is_some());
        assert_eq!(page.headroom_result.as_ref().unwrap().total, 43_496);
        let page = page.reduce(Action::Headroom("cable_m", "300".into()));
        assert!(!page.headroom.is_refused());
        assert!(page.headroom_result.as_ref().unwrap().total > 43_496);
        assert_eq!(
            page.pairs(),
            vec![("headroom.cable_m".to_string(), "300".to_string())]
        );
    }

    #[test]
    fn every_box_is_a_field_the_engine_reads() {
        let qos: Vec<&str> = QosPlan::example().texts().iter().map(|(k, _)| *k).collect();
        let headroom: Vec<&str> = (Headroom::example().texts().iter())
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(qos, qos::FIELDS.iter().map(|d| d.key).collect::<Vec<_>>());
        assert_eq!(
            headroom,
            headroom::FIELDS.iter().map(|d| d.key).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_query_restores_the_typed_text() {
        let pairs = vec![
            ("qos.nccl_ib_tc".to_string(), "96".to_string()),
            ("other".to_string(), "x".to_string()),
        ];
        let page = LosslessPage::from_query(&pairs);
        assert_eq!(page.qos.text("nccl_ib_tc"), "96");
        let (chain, _) = page.qos_result.as_ref().unwrap();
        assert_eq!(chain.dscp, 24);
    }
}
