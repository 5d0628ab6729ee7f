//! The QP state machine page: a state diagram, an `ibv_modify_qp()` builder checked by the
//! engine's kernel table, the events that move a QP without a modify call, and two peers
//! connecting step by step. Every rule and value comes from `engine::qp`.

mod builder;
mod diagram;
mod events;
mod links;
mod query;
mod walkthrough;

use std::rc::Rc;

use engine::exercise::Progress;
use engine::qp::builder::{build_call, example_send, example_text, qp_in_state};
use engine::qp::exercise::{QpMove, EXERCISES};
use engine::qp::sim::RecvWr;
use engine::qp::{
    check_transition, AttrMask, AttrName, EventOutcome, ModifyAttrs, Qp, QpError, QpEvent, QpState,
    QpType, TransitionRefusal, ValueError, Walkthrough, WcStatus,
};
use yew::prelude::*;

use builder::ModifyBuilder;
use diagram::StateDiagram;
use events::EventPanel;
use links::ReferenceLinks;
use query::Query;
use walkthrough::ConnectionStepper;

use super::page_query;
use super::try_this::{attempts, TryThis};

/// The QP number the page's QP gets (any 24-bit value; this one is the walkthrough's A).
const PAGE_QPN: u32 = 0x1a4;
/// How many event results the log keeps.
const LOG_LENGTH: usize = 8;

/// What the last `ibv_modify_qp()` press gave.
#[derive(Debug, Clone, PartialEq)]
pub enum ModifyResult {
    /// Accepted: the outcome the engine reports.
    Done(EventOutcome),
    /// Refused by the engine (kernel table, value rules, cur_qp_state).
    Refused(QpError),
    /// Not called: some ticked fields do not read.
    FieldsInvalid(Vec<ValueError>),
}

/// One line of the event log: the button pressed and what the engine answered.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub label: String,
    pub result: Result<EventOutcome, QpError>,
}

/// Events a button can trigger.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PageEvent {
    PostRecv,
    PostSend,
    Sim(QpEvent),
}

impl PageEvent {
    pub fn label(self) -> &'static str {
        match self {
            PageEvent::PostRecv => "ibv_post_recv()",
            PageEvent::PostSend => "ibv_post_send()",
            PageEvent::Sim(QpEvent::SendCompleted) => "Oldest send completes",
            PageEvent::Sim(QpEvent::SendError { .. }) => "Send error (IBV_WC_LOC_LEN_ERR)",
            PageEvent::Sim(QpEvent::RetryExceeded) => "Transport retries exceeded",
            PageEvent::Sim(QpEvent::Fatal) => "Fatal error",
            PageEvent::Sim(_) => "Event",
        }
    }
}

/// The buttons offered, in order.
pub const PAGE_EVENTS: [PageEvent; 6] = [
    PageEvent::PostRecv,
    PageEvent::PostSend,
    PageEvent::Sim(QpEvent::SendCompleted),
    PageEvent::Sim(QpEvent::SendError {
        status: WcStatus::LocLenErr,
    }),
    PageEvent::Sim(QpEvent::RetryExceeded),
    PageEvent::Sim(QpEvent::Fatal),
];

/// What the last pick of a state in the diagram did.
#[derive(Debug, Clone, PartialEq)]
pub enum Pick {
    /// The builder now targets this state (the kernel table has `current → state`).
    Aimed(QpState),
    /// No modify leads there from the current state; the builder is unchanged.
    Refused(TransitionRefusal),
}

/// Everything the page shows, kept in one reducer.
#[derive(Debug, Clone, PartialEq)]
pub struct QpPage {
    pub qp: Qp,
    pub target: QpState,
    pub ticked: AttrMask,
    /// The text of each attribute's field, indexed like `AttrName::ALL`.
    pub texts: Vec<String>,
    pub result: Option<ModifyResult>,
    pub log: Vec<LogEntry>,
    pub next_wr_id: u64,
    pub walk: Walkthrough,
    /// 0-based step of the walkthrough.
    pub step: usize,
    /// Said when the link's state could not be restored.
    pub note: Option<String>,
    /// The answer to the last state picked in the diagram, until the QP or the target moves.
    pub pick: Option<Pick>,
    /// The "try this" tasks done so far.
    pub tried: Progress,
}

pub enum Action {
    SetType(QpType),
    SetTarget(QpState),
    /// A state picked in the diagram: the builder's target if a modify can go there.
    PickState(QpState),
    Toggle(AttrName),
    SetText(AttrName, String),
    TickRequired,
    Apply,
    Event(PageEvent),
    SetWalk(Walkthrough),
    /// Move the walkthrough by this many steps (clamped).
    Step(isize),
    Restart,
}

/// The state a learner most likely wants next from `state` (the bring-up order).
fn natural_next(state: QpState) -> QpState {
    match state {
        QpState::Reset => QpState::Init,
        QpState::Init => QpState::Rtr,
        QpState::Rtr => QpState::Rts,
        QpState::Rts => QpState::Sqd,
        QpState::Sqd | QpState::Sqe => QpState::Rts,
        QpState::Err => QpState::Reset,
    }
}

pub fn attr_index(attr: AttrName) -> usize {
    AttrName::ALL.iter().position(|a| *a == attr).unwrap_or(0)
}

impl QpPage {
    fn from_query(q: &Query) -> QpPage {
        let (qp, note) = match qp_in_state(q.qp_type, PAGE_QPN, q.state) {
            Ok(qp) => (qp, None),
            Err(e) => (
                Qp::new(q.qp_type, PAGE_QPN),
                Some(format!(
                    "The link asks for a {} QP in {}, which cannot be reached ({e}); starting in RESET.",
                    q.qp_type, q.state
                )),
            ),
        };
        let steps = engine::qp::connection_walkthrough(q.walk).len();
        QpPage {
            target: natural_next(qp.state()),
            qp,
            ticked: AttrName::State.mask(),
            texts: AttrName::ALL
                .iter()
                .map(|a| example_text(*a).to_string())
                .collect(),
            result: None,
            log: Vec::new(),
            next_wr_id: 1,
            walk: q.walk,
            step: q.step.min(steps.saturating_sub(1)),
            note,
            pick: None,
            tried: Progress::default(),
        }
    }

    pub fn text(&self, attr: AttrName) -> &str {
        self.texts
            .get(attr_index(attr))
            .map(String::as_str)
            .unwrap_or_default()
    }

    /// The request the ticked fields make, or the fields that do not read.
    pub fn request(&self) -> Result<ModifyAttrs, Vec<ValueError>> {
        let call = build_call(self.ticked, |attr| self.field_text(attr));
        if call.left_out.is_empty() {
            Ok(call.attrs)
        } else {
            Err(call.left_out.into_iter().map(|l| l.error).collect())
        }
    }

    /// The text a ticked attribute is read from: the target for `IBV_QP_STATE`, else its field.
    pub fn field_text(&self, attr: AttrName) -> &str {
        if attr == AttrName::State {
            self.target.name()
        } else {
            self.text(attr)
        }
    }

    pub fn query(&self) -> Query {
        Query {
            qp_type: self.qp.qp_type(),
            state: self.qp.state(),
            walk: self.walk,
            step: self.step,
        }
    }

    /// Ticks off the tasks this move fulfils.
    fn observe(&mut self, before: QpState, modify_to: Option<QpState>, refused: bool) {
        let seen = QpMove {
            before,
            after: self.qp.state(),
            modify_to,
            refused,
        };
        self.tried = self.tried.observe(&EXERCISES, &seen);
    }

    fn log(&mut self, entry: LogEntry) {
        self.log.insert(0, entry);
        self.log.truncate(LOG_LENGTH);
    }
}

impl Reducible for QpPage {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut page = (*self).clone();
        match action {
            Action::SetType(qp_type) => {
                page.qp = Qp::new(qp_type, PAGE_QPN);
                page.target = QpState::Init;
                page.ticked = AttrName::State.mask();
                page.result = None;
                page.log.clear();
                page.note = None;
                page.pick = None;
            }
            Action::SetTarget(state) => {
                page.target = state;
                page.result = None;
                page.pick = None;
            }
            Action::PickState(state) => {
                match check_transition(page.qp.qp_type(), page.qp.state(), state) {
                    Ok(_) => {
                        page.target = state;
                        page.result = None;
                        page.pick = Some(Pick::Aimed(state));
                    }
                    Err(refusal) => page.pick = Some(Pick::Refused(refusal)),
                }
            }
            Action::Toggle(attr) => {
                page.ticked = if page.ticked.contains(attr) {
                    page.ticked.without(attr)
                } else {
                    page.ticked.with(attr)
                };
            }
            Action::SetText(attr, text) => {
                if let Some(slot) = page.texts.get_mut(attr_index(attr)) {
                    *slot = text;
                }
            }
            Action::TickRequired => {
                let cell =
                    engine::qp::table::kernel_cell(page.qp.state(), page.target, page.qp.qp_type());
                page.ticked = cell.map_or(AttrMask::EMPTY, |c| c.required) | AttrName::State;
            }
            Action::Apply => {
                let (before, target) = (page.qp.state(), page.target);
                let result = match page.request() {
                    Err(errors) => ModifyResult::FieldsInvalid(errors),
                    Ok(req) => match page.qp.modify(&req) {
                        Ok(outcome) => {
                            page.target = natural_next(page.qp.state());
                            page.ticked = AttrName::State.mask();
                            page.pick = None;
                            ModifyResult::Done(outcome)
                        }
                        Err(e) => ModifyResult::Refused(e),
                    },
                };
                // Fields that do not read never reach the kernel: no move to observe.
                if !matches!(result, ModifyResult::FieldsInvalid(_)) {
                    let refused = matches!(result, ModifyResult::Refused(_));
                    page.observe(before, Some(target), refused);
                }
                page.result = Some(result);
            }
            Action::Event(event) => {
                let before = page.qp.state();
                let qp_type = page.qp.qp_type();
                let wr_id = page.next_wr_id;
                let result = match event {
                    PageEvent::PostRecv => page.qp.post_recv(RecvWr {
                        wr_id,
                        length: 4096,
                    }),
                    PageEvent::PostSend => page.qp.post_send(example_send(qp_type, wr_id)),
                    PageEvent::Sim(e) => page.qp.apply(e),
                };
                let label = match event {
                    PageEvent::PostRecv | PageEvent::PostSend => {
                        page.next_wr_id += 1;
                        format!("{} wr_id {wr_id}", event.label())
                    }
                    PageEvent::Sim(_) => event.label().to_string(),
                };
                if result.as_ref().is_ok_and(|o| o.after != o.before) {
                    page.target = natural_next(page.qp.state());
                    page.ticked = AttrName::State.mask();
                    page.result = None;
                    page.pick = None;
                }
                page.observe(before, None, result.is_err());
                page.log(LogEntry { label, result });
            }
            Action::SetWalk(walk) => {
                page.walk = walk;
                page.step = 0;
            }
            Action::Step(delta) => {
                let last = engine::qp::connection_walkthrough(page.walk)
                    .len()
                    .saturating_sub(1);
                page.step = page.step.saturating_add_signed(delta).min(last);
            }
            Action::Restart => page.step = 0,
        }
        Rc::new(page)
    }
}

/// The whole interactive part of `/qp`.
#[function_component]
pub fn QpView() -> Html {
    let page = use_reducer(|| QpPage::from_query(&Query::from_pairs(&page_query::read())));
    let dispatch = {
        let page = page.clone();
        Callback::from(move |action: Action| page.dispatch(action))
    };
    {
        let query = page.query();
        use_effect_with(query, |query| page_query::replace(&query.pairs()));
    }
    html! {
        <div class="qp-view">
            <TryThis view="qp" attempts={attempts(&EXERCISES, page.tried)} />
            if let Some(note) = &page.note {
                <p class="qp-note" role="note">{ note }</p>
            }
            <StateDiagram
                qp_type={page.qp.qp_type()}
                current={page.qp.state()}
                target={page.target}
                pick={page.pick.clone()}
                on_pick={dispatch.reform(Action::PickState)}
            />
            <ModifyBuilder page={page.clone()} dispatch={dispatch.clone()} />
            <EventPanel page={page.clone()} dispatch={dispatch.clone()} />
            <ConnectionStepper walk={page.walk} step={page.step} dispatch={dispatch} />
            <ReferenceLinks />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(qp_type: QpType, state: QpState) -> Rc<QpPage> {
        Rc::new(QpPage::from_query(&Query {
            qp_type,
            state,
            ..Query::default()
        }))
    }

    #[test]
    fn picking_a_state_aims_the_builder_only_where_the_table_allows() {
        let p = page(QpType::Rc, QpState::Init);
        assert_eq!(p.target, QpState::Rtr);
        let p = p.reduce(Action::PickState(QpState::Err));
        assert_eq!(p.target, QpState::Err);
        assert_eq!(p.pick, Some(Pick::Aimed(QpState::Err)));
        let p = p.reduce(Action::PickState(QpState::Rts));
        assert_eq!(p.target, QpState::Err, "a refused pick leaves the target");
        assert!(matches!(
            &p.pick,
            Some(Pick::Refused(r)) if (r.from, r.to) == (QpState::Init, QpState::Rts)
        ));
        // Choosing in the builder's own menu clears the diagram's answer.
        let p = p.reduce(Action::SetTarget(QpState::Rtr));
        assert_eq!(p.pick, None);
    }

    #[test]
    fn a_value_that_does_not_read_keeps_the_request_from_being_made() {
        let p = page(QpType::Rc, QpState::Reset)
            .reduce(Action::Toggle(AttrName::AccessFlags))
            .reduce(Action::SetText(AttrName::AccessFlags, "REMOTE_FLY".into()));
        let errors = p.request().expect_err("the flags do not read");
        assert_eq!(errors.len(), 1);
        let p = p.reduce(Action::Apply);
        assert!(matches!(p.result, Some(ModifyResult::FieldsInvalid(_))));
        assert_eq!(p.qp.state(), QpState::Reset);
    }

    #[test]
    fn only_a_call_the_kernel_judged_counts_as_a_try() {
        // With only IBV_QP_STATE ticked, INIT → RTR lacks what the kernel requires.
        let p = page(QpType::Rc, QpState::Init)
            .reduce(Action::Toggle(AttrName::PathMtu))
            .reduce(Action::SetText(AttrName::PathMtu, "IBV_MTU_9000".into()))
            .reduce(Action::Apply);
        assert!(matches!(p.result, Some(ModifyResult::FieldsInvalid(_))));
        assert_eq!(
            p.tried.count(),
            0,
            "a field that does not read never reached the kernel"
        );
        let p = p
            .reduce(Action::Toggle(AttrName::PathMtu))
            .reduce(Action::Apply);
        assert!(matches!(p.result, Some(ModifyResult::Refused(_))));
        assert!(p.tried.is_done(1), "{:?}", p.tried);
    }
}
