//! Two peers, A and B, bringing up a Reliable Connected QP pair, as data.
//!
//! Every step is executed on two simulated [`Qp`]s, so the states, completions and errors a
//! step shows are what the model computed, not text. The success variants reach RTS on both
//! sides; the failure variants show the classic mistakes and what the verbs user sees.
//!
//! The order of a hand-rolled connection (ibv_modify_qp(3) tables; IBTA Vol. 1 §10.3):
//! create QP (RESET) → RESET→INIT (port, P_Key, access) → exchange QPN, PSN, LID/GID (and
//! rkey/address for one-sided operations) out of band → INIT→RTR with the peer's values →
//! RTR→RTS with the local send parameters. With rdma_cm the same exchange rides in the
//! Communication Manager's REQ/REP/RTU messages (IBTA Vol. 1 ch. 12) and librdmacm issues
//! the modify calls.

use core::fmt;
use serde::{Deserialize, Serialize};

use super::sim::{Qp, QpEvent, Response};
use super::state::{QpState, QpType};
use super::table::Errno;
use super::values::{self, Decoded};
use super::verbs::{
    format_gid, AddressVector, AsyncEvent, ModifyAttrs, RecvWr, SendOpcode, SendWr, WorkCompletion,
};

/// Who acts in a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Actor {
    /// Peer A (the active side, which connects).
    A,
    /// Peer B (the passive side, which listens).
    B,
    /// The network between them: the out-of-band channel or the RDMA fabric.
    Wire,
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Actor::A => "A",
            Actor::B => "B",
            Actor::Wire => "wire",
        })
    }
}

/// Which story to tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Walkthrough {
    /// Success: values exchanged over a TCP socket (as NCCL's bootstrap and perftest do).
    TcpBootstrap,
    /// Success: rdma_cm carries the values in CM REQ/REP/RTU and drives the modifies.
    RdmaCm,
    /// A forgets two RC-only attributes at INIT→RTR: `EINVAL`, then fixes it.
    MissingAttribute,
    /// A sends while B is still in INIT: packets dropped, retries run out, A ends in ERR.
    SendBeforePeerRtr,
    /// B is in RTS but posted no receive: RNR NAKs until `rnr_retry` runs out.
    ReceiverNotReady,
    /// The peer vanishes mid-connection: transport retries exceeded, flush, back to RESET.
    RetryExceeded,
}

impl Walkthrough {
    /// Every variant.
    pub const ALL: [Walkthrough; 6] = [
        Walkthrough::TcpBootstrap,
        Walkthrough::RdmaCm,
        Walkthrough::MissingAttribute,
        Walkthrough::SendBeforePeerRtr,
        Walkthrough::ReceiverNotReady,
        Walkthrough::RetryExceeded,
    ];

    /// A short title.
    pub fn title(self) -> &'static str {
        match self {
            Walkthrough::TcpBootstrap => "RC connection, values exchanged over TCP",
            Walkthrough::RdmaCm => "RC connection through rdma_cm",
            Walkthrough::MissingAttribute => "Missing attribute at INIT→RTR (EINVAL)",
            Walkthrough::SendBeforePeerRtr => "Sending before the peer is in RTR",
            Walkthrough::ReceiverNotReady => "No receive posted: RNR NAK and rnr_retry",
            Walkthrough::RetryExceeded => "Peer lost: retry exceeded, ERR, flushed completions",
        }
    }
}

/// An attribute or exchanged value shown in a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepValue {
    /// Field name (`path_mtu`, `qp_num`, …).
    pub name: String,
    /// The value as a verbs user would write it.
    pub value: String,
    /// What it means.
    pub meaning: String,
}

/// A completion polled by one peer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerCompletion {
    /// Whose CQ.
    pub peer: Actor,
    /// The completion.
    pub completion: WorkCompletion,
}

/// An async event one peer's `ibv_get_async_event()` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerAsyncEvent {
    /// Whose QP.
    pub peer: Actor,
    /// The event.
    pub event: AsyncEvent,
}

/// Whether the step's call succeeded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum StepOutcome {
    /// It worked.
    Ok,
    /// The call returned an error.
    Failed {
        /// What the verbs user sees.
        message: String,
        /// The errno, when the call returns one.
        errno: Option<Errno>,
    },
}

/// One step of a walkthrough.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionStep {
    /// Who acts.
    pub actor: Actor,
    /// What happens, in a few words.
    pub title: String,
    /// A's QP state after the step (`None` before it exists).
    pub state_a: Option<QpState>,
    /// B's QP state after the step.
    pub state_b: Option<QpState>,
    /// Attributes and values involved, decoded.
    pub values: Vec<StepValue>,
    /// Completions that appeared.
    pub completions: Vec<PeerCompletion>,
    /// Async events raised.
    pub async_events: Vec<PeerAsyncEvent>,
    /// Whether the call succeeded.
    pub outcome: StepOutcome,
    /// Why, in plain words.
    pub explanation: String,
}

/// Why a UD QP names an address handle in every send, for the page and the CLI.
pub const UD_ADDRESS_HANDLE: &str = "A UD QP is not connected to anyone. Its INIT→RTR \
transition takes no IBV_QP_AV and no IBV_QP_DEST_QPN (see the transition table), so the QP \
itself never learns a destination. Each send work request therefore carries one: wr.ud.ah \
(an address handle made once per destination with ibv_create_ah() from a struct \
ibv_ah_attr: LID or GID, SL, source GID index, port), wr.ud.remote_qpn and \
wr.ud.remote_qkey (ibv_post_send(3)). One UD QP can so talk to any number of peers, one \
message (at most one MTU) at a time, with no acknowledgement. Creating the handle resolves \
the path (on RoCE the destination MAC) once, outside the fast path, which is why the handle \
is an object and not a field. The receiver learns the sender from the completion (src_qp, \
slid) and from the 40-byte GRH area at the start of its receive buffer.";

/// The values each peer brings to the exchange.
#[derive(Debug, Clone, Copy)]
struct PeerInfo {
    qpn: u32,
    psn: u32,
    lid: u16,
    gid: [u8; 16],
    rkey: u32,
    addr: u64,
}

const fn ipv4_mapped_gid(a: u8, b: u8, c: u8, d: u8) -> [u8; 16] {
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d]
}

// Example values: RoCE v2 over IPv4 (LID 0, IPv4-mapped GIDs).
const PEER_A: PeerInfo = PeerInfo {
    qpn: 0x0001a4,
    psn: 0x3c5a1e,
    lid: 0,
    gid: ipv4_mapped_gid(192, 168, 10, 1),
    rkey: 0x0001_2f3d,
    addr: 0x7f3a_1c00_0000,
};
const PEER_B: PeerInfo = PeerInfo {
    qpn: 0x0002b7,
    psn: 0x7d0f42,
    lid: 0,
    gid: ipv4_mapped_gid(192, 168, 10, 2),
    rkey: 0x0004_8a11,
    addr: 0x7f52_8800_0000,
};

/// GID table index of the RoCE v2 IPv4 address (what `show_gids` lists on the host).
const SGID_INDEX: u8 = 3;

/// Send parameters each peer uses at RTR→RTS.
#[derive(Debug, Clone, Copy)]
struct SendParams {
    timeout: u8,
    retry_cnt: u8,
    rnr_retry: u8,
}

const USUAL_SEND: SendParams = SendParams {
    timeout: 14,
    retry_cnt: 7,
    rnr_retry: 7,
};

struct Script {
    a: Option<Qp>,
    b: Option<Qp>,
    link_up: bool,
    steps: Vec<ConnectionStep>,
}

fn info(actor: Actor) -> PeerInfo {
    match actor {
        Actor::B => PEER_B,
        _ => PEER_A,
    }
}

fn peer_of(actor: Actor) -> Actor {
    match actor {
        Actor::A => Actor::B,
        _ => Actor::A,
    }
}

fn step_values(decoded: Vec<Decoded>) -> Vec<StepValue> {
    decoded
        .into_iter()
        .map(|d| StepValue {
            name: d.field,
            value: d.value.to_string(),
            meaning: d.meaning,
        })
        .collect()
}

fn value(name: &str, value: String, meaning: &str) -> StepValue {
    StepValue {
        name: name.to_string(),
        value,
        meaning: meaning.to_string(),
    }
}

impl Script {
    fn new() -> Script {
        Script {
            a: None,
            b: None,
            link_up: true,
            steps: Vec::new(),
        }
    }

    fn qp_mut(&mut self, actor: Actor) -> Option<&mut Qp> {
        match actor {
            Actor::A => self.a.as_mut(),
            Actor::B => self.b.as_mut(),
            Actor::Wire => None,
        }
    }

    fn push(&mut self, actor: Actor, title: &str, explanation: &str) {
        let step = ConnectionStep {
            actor,
            title: title.to_string(),
            state_a: self.a.as_ref().map(Qp::state),
            state_b: self.b.as_ref().map(Qp::state),
            values: Vec::new(),
            completions: Vec::new(),
            async_events: Vec::new(),
            outcome: StepOutcome::Ok,
            explanation: explanation.to_string(),
        };
        self.steps.push(step);
    }

    fn set_values(&mut self, values: Vec<StepValue>) {
        if let Some(step) = self.steps.last_mut() {
            step.values = values;
        }
    }

    /// Refreshes the state columns of the last step after the model ran.
    fn seal(&mut self) {
        let (sa, sb) = (
            self.a.as_ref().map(Qp::state),
            self.b.as_ref().map(Qp::state),
        );
        if let Some(step) = self.steps.last_mut() {
            step.state_a = sa;
            step.state_b = sb;
        }
    }

    fn fail_last(&mut self, message: String, errno: Option<Errno>) {
        if let Some(step) = self.steps.last_mut() {
            step.outcome = StepOutcome::Failed { message, errno };
        }
    }

    fn create(&mut self, actor: Actor, title: &str, explanation: &str) {
        let qp = Qp::new(QpType::Rc, info(actor).qpn);
        let qpn = qp.qp_num();
        match actor {
            Actor::A => self.a = Some(qp),
            _ => self.b = Some(qp),
        }
        self.push(actor, title, explanation);
        self.set_values(vec![
            value(
                "qp_type",
                "IBV_QPT_RC".into(),
                "Reliable Connected: acknowledged, in order, one peer",
            ),
            value(
                "qp_num",
                format!("{qpn:#x}"),
                "chosen by the HCA; the peer must learn it to address this QP",
            ),
        ]);
    }

    fn modify(&mut self, actor: Actor, req: ModifyAttrs, title: &str, explanation: &str) {
        let result = match self.qp_mut(actor) {
            Some(qp) => qp.modify(&req),
            None => {
                self.push(actor, title, explanation);
                self.fail_last(format!("peer {actor} has no QP"), None);
                return;
            }
        };
        self.push(actor, title, explanation);
        match result {
            Ok(outcome) => {
                if let Some(step) = self.steps.last_mut() {
                    step.values = step_values(outcome.values);
                }
            }
            Err(e) => {
                let errno = match &e {
                    super::sim::QpError::Modify(m) => Some(m.errno),
                    super::sim::QpError::Value { errno, .. } => Some(*errno),
                    super::sim::QpError::CurStateMismatch { errno, .. } => Some(*errno),
                    super::sim::QpError::Post { errno, .. } => Some(*errno),
                    super::sim::QpError::Event { .. } => None,
                };
                let detail = match &e {
                    super::sim::QpError::Modify(m) => format!("{m}. {}", m.explanation()),
                    other => other.to_string(),
                };
                self.fail_last(detail, errno);
            }
        }
        self.seal();
    }

    fn post_recv(&mut self, actor: Actor, wr_id: u64, title: &str, explanation: &str) {
        let result = self.qp_mut(actor).map(|qp| {
            qp.post_recv(RecvWr {
                wr_id,
                length: 4096,
            })
        });
        self.push(actor, title, explanation);
        self.set_values(vec![
            value("wr_id", wr_id.to_string(), "returned in the completion"),
            value("length", "4096".into(), "receive buffer size in bytes"),
        ]);
        self.record(actor, result);
    }

    fn post_send(&mut self, actor: Actor, wr_id: u64, title: &str, explanation: &str) {
        let wr = SendWr {
            wr_id,
            opcode: SendOpcode::Send,
            length: 4096,
            ud: None,
        };
        let result = self.qp_mut(actor).map(|qp| qp.post_send(wr));
        self.push(actor, title, explanation);
        self.set_values(vec![
            value(
                "opcode",
                "IBV_WR_SEND".into(),
                "consumes one receive at the peer",
            ),
            value("wr_id", wr_id.to_string(), "returned in the completion"),
            value(
                "length",
                "4096".into(),
                "bytes; with IBV_MTU_1024 the message goes out as 4 packets",
            ),
        ]);
        self.record(actor, result);
    }

    fn record(
        &mut self,
        actor: Actor,
        result: Option<Result<super::sim::EventOutcome, super::sim::QpError>>,
    ) {
        match result {
            Some(Ok(outcome)) => {
                if let Some(step) = self.steps.last_mut() {
                    step.completions
                        .extend(outcome.completions.into_iter().map(|c| PeerCompletion {
                            peer: actor,
                            completion: c,
                        }));
                }
            }
            Some(Err(e)) => self.fail_last(e.to_string(), Some(Errno::Einval)),
            None => self.fail_last(format!("peer {actor} has no QP"), None),
        }
        self.seal();
    }

    fn exchange(&mut self, title: &str, explanation: &str) {
        self.push(Actor::Wire, title, explanation);
        let mut shown = Vec::new();
        for (from, p) in [(Actor::A, PEER_A), (Actor::B, PEER_B)] {
            let to = peer_of(from);
            shown.extend([
                value(
                    &format!("{from}→{to} qpn"),
                    format!("{:#x}", p.qpn),
                    "becomes the peer's dest_qp_num",
                ),
                value(
                    &format!("{from}→{to} psn"),
                    format!("{:#x}", p.psn),
                    "the sender's sq_psn; becomes the peer's rq_psn",
                ),
                value(
                    &format!("{from}→{to} lid"),
                    p.lid.to_string(),
                    "0 on RoCE: Ethernet has no LIDs; InfiniBand fabrics route on it",
                ),
                value(
                    &format!("{from}→{to} gid"),
                    format_gid(&p.gid),
                    "becomes ah_attr.grh.dgid; on RoCE v2 it is the IP address",
                ),
                value(
                    &format!("{from}→{to} rkey"),
                    format!("{:#x}", p.rkey),
                    "lets the peer RDMA Read/Write this side's registered buffer",
                ),
                value(
                    &format!("{from}→{to} addr"),
                    format!("{:#x}", p.addr),
                    "the buffer's virtual address for one-sided operations",
                ),
            ]);
        }
        self.set_values(shown);
        self.seal();
    }

    fn move_to_init(&mut self, actor: Actor, title: &str, explanation: &str) {
        let req = ModifyAttrs {
            pkey_index: Some(0),
            port_num: Some(1),
            // REMOTE_WRITE | REMOTE_READ: the peer may write and read this side's memory.
            qp_access_flags: Some(0x2 | 0x4),
            ..ModifyAttrs::to(QpState::Init)
        };
        self.modify(actor, req, title, explanation);
    }

    fn rtr_attrs(actor: Actor) -> ModifyAttrs {
        let peer = info(peer_of(actor));
        ModifyAttrs {
            ah_attr: Some(AddressVector {
                dlid: peer.lid,
                dgid: Some(peer.gid),
                sgid_index: SGID_INDEX,
                sl: 0,
                port_num: 1,
            }),
            path_mtu: Some(values::PathMtu::Mtu1024.value()),
            dest_qp_num: Some(peer.qpn),
            rq_psn: Some(peer.psn),
            max_dest_rd_atomic: Some(4),
            min_rnr_timer: Some(12),
            ..ModifyAttrs::to(QpState::Rtr)
        }
    }

    fn move_to_rtr(&mut self, actor: Actor, title: &str, explanation: &str) {
        self.modify(actor, Script::rtr_attrs(actor), title, explanation);
    }

    fn move_to_rts(&mut self, actor: Actor, p: SendParams, title: &str, explanation: &str) {
        let req = ModifyAttrs {
            timeout: Some(p.timeout),
            retry_cnt: Some(p.retry_cnt),
            rnr_retry: Some(p.rnr_retry),
            sq_psn: Some(info(actor).psn),
            max_rd_atomic: Some(4),
            ..ModifyAttrs::to(QpState::Rts)
        };
        self.modify(actor, req, title, explanation);
    }

    /// Delivers `from`'s oldest in-flight send across the fabric, with the reliable
    /// transport's retries, and records what both sides see.
    fn transmit(&mut self, from: Actor, title: &str, explanation: &str) {
        self.push(Actor::Wire, title, explanation);
        let link_up = self.link_up;
        let (sender, receiver) = match from {
            Actor::A => (self.a.as_mut(), self.b.as_mut()),
            _ => (self.b.as_mut(), self.a.as_mut()),
        };
        let (Some(sender), Some(receiver)) = (sender, receiver) else {
            self.fail_last("both peers need a QP".into(), None);
            return;
        };
        let Some(byte_len) = sender.outstanding_sends().first().map(|w| w.length) else {
            self.fail_last(format!("{from} has no send in flight"), None);
            return;
        };
        let attrs = sender.attrs().clone();
        let to = peer_of(from);
        let mut completions = Vec::new();
        let mut events = Vec::new();
        let mut shown = Vec::new();
        let mut failure = None;

        // One delivery attempt: what the receiver answers.
        let deliver = |receiver: &mut Qp,
                       completions: &mut Vec<PeerCompletion>,
                       events: &mut Vec<PeerAsyncEvent>|
         -> Response {
            if !link_up {
                return Response::Dropped;
            }
            match receiver.apply(QpEvent::MessageArrived { byte_len }) {
                Ok(out) => {
                    completions.extend(out.completions.into_iter().map(|c| PeerCompletion {
                        peer: to,
                        completion: c,
                    }));
                    events.extend(
                        out.async_events
                            .into_iter()
                            .map(|e| PeerAsyncEvent { peer: to, event: e }),
                    );
                    out.response.unwrap_or(Response::Dropped)
                }
                Err(_) => Response::Dropped,
            }
        };

        let mut response = deliver(receiver, &mut completions, &mut events);
        let mut final_event = None;
        match response {
            Response::Accepted => final_event = Some(QpEvent::SendCompleted),
            Response::RnrNak { min_rnr_timer } => {
                let rnr_retry = attrs.rnr_retry.unwrap_or(0);
                if let Ok(d) = values::decode_min_rnr_timer(min_rnr_timer) {
                    shown.push(d);
                }
                if let Ok(d) = values::decode_rnr_retry(rnr_retry) {
                    shown.push(d);
                }
                if rnr_retry == 7 {
                    shown.push(Decoded {
                        field: "outcome".into(),
                        value: 7,
                        meaning: "rnr_retry = 7 retries forever: the send stays pending until \
                                  the peer posts a receive"
                            .into(),
                    });
                } else {
                    for _ in 0..rnr_retry {
                        response = deliver(receiver, &mut completions, &mut events);
                        if response == Response::Accepted {
                            break;
                        }
                    }
                    if response == Response::Accepted {
                        final_event = Some(QpEvent::SendCompleted);
                    } else {
                        let waited = values::rnr_timer_us(min_rnr_timer)
                            .map(|us| u64::from(us) * u64::from(rnr_retry) * 1000)
                            .unwrap_or(0);
                        shown.push(Decoded {
                            field: "waited_ns".into(),
                            value: waited,
                            meaning: format!(
                                "{} RNR NAKs answered with {rnr_retry} retries, about {} of \
                                 waiting in all",
                                u32::from(rnr_retry) + 1,
                                values::format_ns(waited)
                            ),
                        });
                        final_event = Some(QpEvent::RnrRetryExceeded);
                    }
                }
            }
            Response::Dropped => {
                let retry_cnt = attrs.retry_cnt.unwrap_or(0);
                let timeout = attrs.timeout.unwrap_or(0);
                if let Ok(d) = values::decode_timeout(timeout) {
                    shown.push(d);
                }
                if let Ok(d) = values::decode_retry_cnt(retry_cnt) {
                    shown.push(d);
                }
                match values::timeout_ns(timeout) {
                    Ok(Some(ns)) => {
                        for _ in 0..retry_cnt {
                            response = deliver(receiver, &mut completions, &mut events);
                            if response != Response::Dropped {
                                break;
                            }
                        }
                        if response == Response::Accepted {
                            final_event = Some(QpEvent::SendCompleted);
                        } else {
                            let attempts = u64::from(retry_cnt) + 1;
                            shown.push(Decoded {
                                field: "waited_ns".into(),
                                value: ns * attempts,
                                meaning: format!(
                                    "{attempts} transmissions, none acknowledged: at least {} \
                                     before the error",
                                    values::format_ns(ns * attempts)
                                ),
                            });
                            final_event = Some(QpEvent::RetryExceeded);
                        }
                    }
                    _ => shown.push(Decoded {
                        field: "outcome".into(),
                        value: 0,
                        meaning: "timeout = 0 never expires: the send hangs forever".into(),
                    }),
                }
            }
        }
        if let Some(ev) = final_event {
            match sender.apply(ev) {
                Ok(out) => {
                    completions.extend(out.completions.into_iter().map(|c| PeerCompletion {
                        peer: from,
                        completion: c,
                    }));
                    events.extend(out.async_events.into_iter().map(|e| PeerAsyncEvent {
                        peer: from,
                        event: e,
                    }));
                }
                Err(e) => failure = Some(e.to_string()),
            }
        }
        if let Some(step) = self.steps.last_mut() {
            step.values = step_values(shown);
            step.completions = completions;
            step.async_events = events;
        }
        if let Some(message) = failure {
            self.fail_last(message, None);
        }
        self.seal();
    }
}

/// The steps of one walkthrough variant.
pub fn connection_walkthrough(variant: Walkthrough) -> Vec<ConnectionStep> {
    let mut s = Script::new();
    match variant {
        Walkthrough::TcpBootstrap => {
            bring_up_over_tcp(&mut s, USUAL_SEND);
            s.post_send(
                Actor::A,
                1,
                "A posts a Send",
                "Both sides are in RTS, so A may send. B posted a receive long ago.",
            );
            s.transmit(
                Actor::A,
                "The Send crosses the fabric",
                "B's receive completes with the data; B's ACK completes A's send. The \
                 connection works.",
            );
        }
        Walkthrough::RdmaCm => rdma_cm(&mut s),
        Walkthrough::MissingAttribute => missing_attribute(&mut s),
        Walkthrough::SendBeforePeerRtr => send_before_peer_rtr(&mut s),
        Walkthrough::ReceiverNotReady => receiver_not_ready(&mut s),
        Walkthrough::RetryExceeded => retry_exceeded(&mut s),
    }
    s.steps
}

fn create_and_init(s: &mut Script) {
    s.create(
        Actor::A,
        "A creates an RC QP",
        "ibv_create_qp() returns a QP in RESET, with its send and receive CQs and queue \
         sizes fixed. Nothing can be sent or received yet.",
    );
    s.create(
        Actor::B,
        "B creates an RC QP",
        "B does the same on its host; its QP number is its own, unrelated to A's.",
    );
    s.move_to_init(
        Actor::A,
        "A: RESET → INIT",
        "INIT binds the QP to a port and a partition (P_Key index) and says which remote \
         operations it will accept. For RC the kernel requires exactly IBV_QP_PKEY_INDEX, \
         IBV_QP_PORT and IBV_QP_ACCESS_FLAGS here.",
    );
    s.move_to_init(
        Actor::B,
        "B: RESET → INIT",
        "Same attributes on B. From INIT on, receives may be posted.",
    );
    s.post_recv(
        Actor::B,
        100,
        "B posts a receive",
        "Receives must be waiting before the peer sends, or a reliable QP answers RNR NAK. \
         Posting in INIT is allowed; nothing is processed until RTR.",
    );
}

fn bring_up_over_tcp(s: &mut Script, send: SendParams) {
    create_and_init(s);
    s.exchange(
        "QPN, PSN, LID/GID, rkey and address swapped over TCP",
        "RDMA cannot address a QP it knows nothing about, so the two sides first talk over an \
         ordinary TCP socket: each sends its QP number, starting PSN, LID (InfiniBand) or GID \
         (RoCE), and for one-sided operations the rkey and address of a registered buffer. \
         NCCL's IB transport and perftest bootstrap this way.",
    );
    s.move_to_rtr(
        Actor::A,
        "A: INIT → RTR with B's values",
        "RTR needs the remote end: the path (IBV_QP_AV, here a GRH to B's GID), the path MTU, \
         B's QP number and the PSN B will start from (IBV_QP_RQ_PSN). RC also requires how \
         many incoming RDMA Reads/Atomics A will serve (IBV_QP_MAX_DEST_RD_ATOMIC) and the \
         RNR wait A asks for when it has no receive (IBV_QP_MIN_RNR_TIMER).",
    );
    s.move_to_rtr(
        Actor::B,
        "B: INIT → RTR with A's values",
        "The mirror image on B: A's GID, A's QP number, A's starting PSN.",
    );
    s.move_to_rts(
        Actor::A,
        send,
        "A: RTR → RTS",
        "RTS sets the sending side: its own starting PSN (IBV_QP_SQ_PSN, the value B used as \
         rq_psn), the ACK timeout, the retry counts and how many RDMA Reads/Atomics A may \
         have outstanding (IBV_QP_MAX_QP_RD_ATOMIC).",
    );
    s.move_to_rts(
        Actor::B,
        send,
        "B: RTR → RTS",
        "B can now send too. Each side went RESET → INIT → RTR → RTS; no step can be skipped.",
    );
}

fn rdma_cm(s: &mut Script) {
    s.push(
        Actor::B,
        "B listens: rdma_create_id, rdma_bind_addr, rdma_listen",
        "The passive side waits for connection requests on an IP address and port; no QP yet.",
    );
    s.push(
        Actor::A,
        "A resolves: rdma_resolve_addr, rdma_resolve_route",
        "The active side maps B's IP address to a device, port and GID (on RoCE also the \
         next-hop MAC), then a path.",
    );
    s.create(
        Actor::A,
        "A: rdma_create_qp (QP created)",
        "librdmacm creates the QP on the device the route resolved to.",
    );
    s.move_to_init(
        Actor::A,
        "A: rdma_create_qp moves the QP to INIT",
        "librdmacm asks the kernel for the INIT attributes (rdma_init_qp_attr) and issues the \
         same RESET → INIT modify a hand-written program would.",
    );
    {
        s.push(
            Actor::Wire,
            "A: rdma_connect sends a CM REQ",
            "The Communication Manager carries what the TCP exchange carried: A's QP number, \
             starting PSN, path, responder resources and initiator depth. CM messages are MADs \
             sent to the peer's QP1; on RoCE v2 they are UDP datagrams to port 4791.",
        );
        s.set_values(vec![
            value(
                "REQ local QPN",
                format!("{:#x}", PEER_A.qpn),
                "becomes B's dest_qp_num",
            ),
            value(
                "REQ starting PSN",
                format!("{:#x}", PEER_A.psn),
                "becomes B's rq_psn",
            ),
            value(
                "responder_resources",
                "4".into(),
                "becomes B's max_dest_rd_atomic",
            ),
            value("initiator_depth", "4".into(), "becomes B's max_rd_atomic"),
        ]);
    }
    s.create(
        Actor::B,
        "B: CONNECT_REQUEST event, rdma_create_qp",
        "B's event channel reports RDMA_CM_EVENT_CONNECT_REQUEST with a new cm_id; B creates \
         its QP on it.",
    );
    s.move_to_init(
        Actor::B,
        "B: rdma_create_qp moves the QP to INIT",
        "The same RESET → INIT, issued by librdmacm.",
    );
    s.post_recv(
        Actor::B,
        100,
        "B posts a receive",
        "Before accepting, so A's first Send finds a buffer.",
    );
    s.move_to_rtr(
        Actor::B,
        "B: rdma_accept moves the QP to RTR",
        "rdma_accept first brings B's QP to RTR with the values from A's REQ …",
    );
    s.move_to_rts(
        Actor::B,
        USUAL_SEND,
        "B: … and to RTS, then sends a CM REP",
        "… then to RTS, and answers with a REP carrying B's QP number and starting PSN.",
    );
    s.move_to_rtr(
        Actor::A,
        "A: REP received, QP to RTR",
        "On the REP librdmacm moves A's QP to RTR with B's values …",
    );
    s.move_to_rts(
        Actor::A,
        USUAL_SEND,
        "A: QP to RTS, CM RTU sent",
        "… then RTS, and sends the RTU (ready to use). Both sides get \
         RDMA_CM_EVENT_ESTABLISHED.",
    );
    s.post_send(
        Actor::A,
        1,
        "A posts a Send",
        "Same data path as the hand-made connection.",
    );
    s.transmit(
        Actor::A,
        "The Send crosses the fabric",
        "B's receive completes; A's send completes on B's ACK.",
    );
}

fn missing_attribute(s: &mut Script) {
    create_and_init(s);
    s.exchange("Values swapped over TCP", "As in the working connection.");
    let mut req = Script::rtr_attrs(Actor::A);
    req.max_dest_rd_atomic = None;
    req.min_rnr_timer = None;
    s.modify(
        Actor::A,
        req,
        "A: INIT → RTR without the RC-only attributes",
        "Code written for UC sets only AV, PATH_MTU, DEST_QPN and RQ_PSN. For RC the kernel \
         also requires IBV_QP_MAX_DEST_RD_ATOMIC and IBV_QP_MIN_RNR_TIMER, so \
         ib_modify_qp_is_ok() fails and ibv_modify_qp() returns EINVAL. The QP stays in INIT \
         with nothing changed.",
    );
    s.move_to_rtr(
        Actor::A,
        "A: INIT → RTR again, with the full mask",
        "Adding the two attributes makes the same call succeed.",
    );
    s.move_to_rtr(Actor::B, "B: INIT → RTR", "B was never affected.");
    s.move_to_rts(Actor::A, USUAL_SEND, "A: RTR → RTS", "Continue as usual.");
    s.move_to_rts(Actor::B, USUAL_SEND, "B: RTR → RTS", "Both sides ready.");
}

fn send_before_peer_rtr(s: &mut Script) {
    create_and_init(s);
    s.exchange(
        "Values swapped over TCP",
        "A gets B's values first and races ahead; B has not processed A's values yet.",
    );
    s.move_to_rtr(
        Actor::A,
        "A: INIT → RTR",
        "A only needs B's values for this.",
    );
    s.move_to_rts(
        Actor::A,
        USUAL_SEND,
        "A: RTR → RTS",
        "A is ready to send, but nobody told it whether B is.",
    );
    s.post_recv(
        Actor::A,
        200,
        "A posts a receive",
        "For B's later reply; it will be caught in what follows.",
    );
    s.post_send(Actor::A, 1, "A posts a Send", "B is still in INIT.");
    s.post_send(
        Actor::A,
        2,
        "A posts a second Send",
        "It queues behind the first.",
    );
    s.transmit(
        Actor::A,
        "A's packets reach a QP in INIT",
        "A QP that is not yet in RTR silently drops what arrives: B sends no ACK and no NAK. \
         A's ACK timer expires, A retransmits retry_cnt times, then gives up: the first send \
         completes with IBV_WC_RETRY_EXC_ERR, A's QP goes to ERR, and every other \
         outstanding request (the second send, the receive) completes with \
         IBV_WC_WR_FLUSH_ERR. The fix: after the exchange, have each side report over the \
         TCP socket that it reached RTR (a barrier) before anyone sends.",
    );
    s.move_to_rtr(
        Actor::B,
        "B: INIT → RTR, too late",
        "B's QP is fine, but A's is in ERR: A must go ERR → RESET and redo the whole \
         bring-up, with a fresh exchange.",
    );
}

fn receiver_not_ready(s: &mut Script) {
    s.create(Actor::A, "A creates an RC QP", "As usual.");
    s.create(Actor::B, "B creates an RC QP", "As usual.");
    s.move_to_init(Actor::A, "A: RESET → INIT", "As usual.");
    s.move_to_init(
        Actor::B,
        "B: RESET → INIT",
        "B forgets to post a receive before going further.",
    );
    s.exchange("Values swapped over TCP", "As usual.");
    let send = SendParams {
        rnr_retry: 3,
        ..USUAL_SEND
    };
    s.move_to_rtr(Actor::A, "A: INIT → RTR", "As usual.");
    s.move_to_rtr(Actor::B, "B: INIT → RTR", "As usual.");
    s.move_to_rts(
        Actor::A,
        send,
        "A: RTR → RTS with rnr_retry = 3",
        "A allows only 3 retries after Receiver Not Ready NAKs (7 would mean forever).",
    );
    s.move_to_rts(
        Actor::B,
        send,
        "B: RTR → RTS",
        "B is ready to send but not to receive.",
    );
    s.post_send(
        Actor::A,
        1,
        "A posts a Send",
        "A Send needs a receive at B.",
    );
    s.transmit(
        Actor::A,
        "B has no receive: RNR NAK",
        "B is in RTS and gets the packet, but has no receive work request to put it in. A \
         reliable responder then answers RNR NAK (Receiver Not Ready) carrying its \
         min_rnr_timer: wait at least that long and retry. A retries rnr_retry times, then \
         completes the send with IBV_WC_RNR_RETRY_EXC_ERR and goes to ERR. B notices nothing. \
         The fix: post receives before signalling readiness, or use rnr_retry = 7.",
    );
}

fn retry_exceeded(s: &mut Script) {
    bring_up_over_tcp(s, USUAL_SEND);
    s.post_recv(Actor::A, 200, "A posts a receive", "For B's replies.");
    for wr_id in 1..=3 {
        s.post_send(
            Actor::A,
            wr_id,
            &format!("A posts Send #{wr_id}"),
            "Several sends are in flight at once.",
        );
    }
    s.link_up = false;
    s.push(
        Actor::Wire,
        "B's host crashes (or the cable is pulled)",
        "Nothing tells A: RDMA has no connection teardown at the transport level when a peer \
         simply disappears.",
    );
    s.transmit(
        Actor::A,
        "A's first Send gets no ACK",
        "A retransmits after every ACK timeout, retry_cnt times. Then the first send completes \
         with IBV_WC_RETRY_EXC_ERR, the QP goes to ERR, and the other two sends and the \
         receive complete with IBV_WC_WR_FLUSH_ERR: they never ran. Only wr_id, status and \
         qp_num are valid in these error completions.",
    );
    s.modify(
        Actor::A,
        ModifyAttrs::to(QpState::Reset),
        "A: ERR → RESET",
        "ERR is a dead end except for RESET (or destroying the QP). From RESET the whole \
         bring-up starts again with a new exchange.",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_steps_with_titles() {
        for v in Walkthrough::ALL {
            let steps = connection_walkthrough(v);
            assert!(steps.len() >= 5, "{v:?}");
            assert!(steps
                .iter()
                .all(|s| !s.title.is_empty() && !s.explanation.is_empty()));
        }
    }

    /// The page shows a title alone ("A: RESET → INIT"), so a peer's step names the peer
    /// first, once.
    #[test]
    fn a_peers_step_names_that_peer_first() {
        for v in Walkthrough::ALL {
            for s in connection_walkthrough(v) {
                if s.actor == Actor::Wire {
                    continue;
                }
                let name = s.actor.to_string();
                let rest = s.title.strip_prefix(&name);
                assert!(
                    rest.is_some_and(|r| r.starts_with(' ') || r.starts_with(':')),
                    "{v:?}: {:?} does not start with {name}",
                    s.title
                );
                assert!(
                    !rest.is_some_and(|r| r
                        .trim_start_matches([':', ' '])
                        .starts_with(&format!("{name}:"))),
                    "{v:?}: {:?} names {name} twice",
                    s.title
                );
            }
        }
    }
}
