//! The /lossless calculators: where `NCCL_IB_TC` lands (DSCP, priority, PFC, ECN, and the
//! CNPs' own path) and how much buffer a lossless priority needs per port. Every verdict
//! and byte count is `engine::lossless`'s; the view keeps the typed text, in the URL too.

mod form;
mod headroom;
mod qos;

use std::rc::Rc;

use engine::lossless::{Headroom, HeadroomBreakdown, QosChain, QosFinding, QosPlan};
use engine::FieldError;
use yew::prelude::*;

use super::page_query;
use form::Texts;

/// Query keys: each calculator's field names, behind its prefix.
const QOS_PREFIX: &str = "qos.";
const HEADROOM_PREFIX: &str = "headroom.";

/// Both calculators' text and their last good answers.
#[derive(Debug, Clone, PartialEq)]
pub struct LosslessPage {
    pub qos: Texts,
    pub qos_error: Option<FieldError>,
    pub qos_result: Option<(QosChain, Vec<QosFinding>)>,
    pub headroom: Texts,
    pub headroom_error: Option<FieldError>,
    pub headroom_result: Option<HeadroomBreakdown>,
}

pub enum Action {
    Qos(&'static str, String),
    Headroom(&'static str, String),
    Reset,
}

impl LosslessPage {
    fn new(qos: Texts, headroom: Texts) -> LosslessPage {
        let mut page = LosslessPage {
            qos,
            qos_error: None,
            qos_result: None,
            headroom,
            headroom_error: None,
            headroom_result: None,
        };
        page.recompute();
        page
    }

    /// The examples, with whatever the query changes.
    fn from_query(pairs: &[(String, String)]) -> LosslessPage {
        let mut qos = Texts::new(QosPlan::example().texts());
        qos.read(QOS_PREFIX, pairs);
        let mut headroom = Texts::new(Headroom::example().texts());
        headroom.read(HEADROOM_PREFIX, pairs);
        LosslessPage::new(qos, headroom)
    }

    /// Judges both forms; an answer that fails keeps the last good one on screen.
    fn recompute(&mut self) {
        match QosPlan::from_texts(|k| self.qos.get(k)).and_then(|plan| plan.check()) {
            Ok(result) => {
                self.qos_result = Some(result);
                self.qos_error = None;
            }
            Err(e) => self.qos_error = Some(e),
        }
        match Headroom::from_texts(|k| self.headroom.get(k)).and_then(|h| h.bytes()) {
            Ok(b) => {
                self.headroom_result = Some(b);
                self.headroom_error = None;
            }
            Err(e) => self.headroom_error = Some(e),
        }
    }

    /// The query: only the fields that differ from the examples.
    fn pairs(&self) -> Vec<(String, String)> {
        let mut pairs = self.qos.changed(QOS_PREFIX, &QosPlan::example().texts());
        pairs.extend(
            self.headroom
                .changed(HEADROOM_PREFIX, &Headroom::example().texts()),
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
            <qos::QosPanel texts={page.qos.clone()} error={page.qos_error.clone()}
                result={page.qos_result.clone()} on_input={on_qos} />
            <headroom::HeadroomPanel texts={page.headroom.clone()} error={page.headroom_error.clone()}
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
        assert!(page.qos_error.is_none() && page.headroom_error.is_none());
        assert_eq!(page.headroom_result.as_ref().unwrap().total, 43_496);
        assert!(page.pairs().is_empty());
    }

    #[test]
    fn a_half_typed_value_keeps_the_last_answer_and_names_the_field() {
        let page = Rc::new(LosslessPage::from_query(&[]));
        let page = page.reduce(Action::Headroom("cable_m", "1e".into()));
        assert_eq!(page.headroom_error.as_ref().unwrap().field, "cable_m");
        assert_eq!(page.headroom_result.as_ref().unwrap().total, 43_496);
        let page = page.reduce(Action::Headroom("cable_m", "300".into()));
        assert!(page.headroom_error.is_none());
        assert!(page.headroom_result.as_ref().unwrap().total > 43_496);
        assert_eq!(
            page.pairs(),
            vec![("headroom.cable_m".to_string(), "300".to_string())]
        );
    }

    #[test]
    fn the_query_restores_the_typed_text() {
        let pairs = vec![
            ("qos.nccl_ib_tc".to_string(), "96".to_string()),
            ("other".to_string(), "x".to_string()),
        ];
        let page = LosslessPage::from_query(&pairs);
        assert_eq!(page.qos.get("nccl_ib_tc"), "96");
        let (chain, _) = page.qos_result.as_ref().unwrap();
        assert_eq!(chain.dscp, 24);
    }
}
