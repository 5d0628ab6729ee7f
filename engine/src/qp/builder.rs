//! The `ibv_modify_qp()` call as a learner builds it: attribute values typed as text, read
//! into [`ModifyAttrs`] with their decoded meaning, the equivalent C source, and a simulated
//! QP brought to any state with example values.
//!
//! The value rules themselves live in [`super::values`] and [`ModifyAttrs::decode`]; this
//! module only turns text into field values and back into C.

use core::fmt;
use serde::{Deserialize, Serialize};

use super::attr::{AttrMask, AttrName};
use super::sim::{Qp, QpError, QpEvent};
use super::state::{QpState, QpType};
use super::table::{check_modify, kernel_cell, ModifyError};
use super::values::{self, Decoded, PathMtu, ValueError, ACCESS_FLAGS};
use super::verbs::{
    AddressVector, DeviceLimits, ModifyAttrs, SendOpcode, SendWr, UdDestination, WcStatus,
};
use crate::number::parse_whole;

/// GID table index the example address vectors send from: the RoCE v2 IPv4 entry, as
/// `show_gids` commonly lists it on a ConnectX host (the same index the walkthrough uses).
const EXAMPLE_SGID_INDEX: u8 = 3;

/// A value a learner can start from for each attribute, as text [`set_from_text`] reads.
///
/// The connection values match the walkthrough's peer B (QPN 0x2b7, PSN 0x7d0f42, RoCE v2
/// over IPv4); the send parameters are the common `timeout = 14`, `retry_cnt = 7`,
/// `rnr_retry = 7` of perftest and NCCL (NCCL_IB_TIMEOUT defaults to 18 since 2.14; 14 is
/// perftest's default).
pub fn example_text(attr: AttrName) -> &'static str {
    match attr {
        AttrName::State => "IBV_QPS_INIT",
        AttrName::CurState => "IBV_QPS_RTS",
        AttrName::EnSqdAsyncNotify => "1",
        AttrName::AccessFlags => "IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ",
        AttrName::PkeyIndex => "0",
        AttrName::Port => "1",
        AttrName::Qkey => "0x11111111",
        AttrName::Av => "192.168.10.2",
        AttrName::PathMtu => "IBV_MTU_4096",
        AttrName::Timeout => "14",
        AttrName::RetryCnt => "7",
        AttrName::RnrRetry => "7",
        AttrName::RqPsn => "0x7d0f42",
        AttrName::MaxQpRdAtomic => "1",
        AttrName::AltPath => "192.168.20.2",
        AttrName::MinRnrTimer => "12",
        AttrName::SqPsn => "0x3c5a1e",
        AttrName::MaxDestRdAtomic => "1",
        AttrName::PathMigState => "IBV_MIG_MIGRATED",
        AttrName::Cap => "64, 64",
        AttrName::DestQpn => "0x2b7",
        AttrName::RateLimit => "0",
    }
}

/// What each field accepts, in words, for the hint beside its input.
pub fn expected_text(attr: AttrName) -> &'static str {
    match attr {
        AttrName::State | AttrName::CurState => "a QP state (RESET, INIT, RTR, RTS, SQD, SQE, ERR)",
        AttrName::EnSqdAsyncNotify => "0 or 1",
        AttrName::AccessFlags => "IBV_ACCESS_* names joined by |, or a number (0 = Send only)",
        AttrName::Av | AttrName::AltPath => {
            "an IPv4 address (RoCE v2: IPv4-mapped GID) or a LID number (InfiniBand)"
        }
        AttrName::PathMtu => "IBV_MTU_256 … IBV_MTU_4096, the enum value 1–5, or the bytes",
        AttrName::PathMigState => "IBV_MIG_MIGRATED, IBV_MIG_REARM, IBV_MIG_ARMED or 0–2",
        AttrName::Cap => "max_send_wr, max_recv_wr",
        _ => "a whole number (decimal or 0x hex)",
    }
}

fn unreadable(attr: AttrName, text: &str) -> ValueError {
    ValueError::unreadable(attr.field(), text, expected_text(attr))
}

/// A number that must fit the C field's type (`uint8_t`, `uint16_t`, `uint32_t`).
fn number_in<T: TryFrom<u64>>(attr: AttrName, text: &str, bits: u32) -> Result<T, ValueError> {
    let n = parse_whole(text).ok_or_else(|| unreadable(attr, text))?;
    T::try_from(n).map_err(|_| {
        ValueError::out_of_range(
            attr.field(),
            n,
            format!("does not fit the field's {bits}-bit type"),
        )
    })
}

fn parse_state(attr: AttrName, text: &str) -> Result<QpState, ValueError> {
    QpState::parse(text).ok_or_else(|| unreadable(attr, text))
}

fn parse_path_mtu(text: &str) -> Result<u32, ValueError> {
    let t = text.trim();
    if let Some(mtu) = PathMtu::ALL
        .into_iter()
        .find(|m| m.name().eq_ignore_ascii_case(t))
    {
        return Ok(mtu.value());
    }
    let n: u32 = number_in(AttrName::PathMtu, t, 32)?;
    // Bytes (256…4096) never collide with the enum values 1…5.
    Ok(PathMtu::ALL
        .into_iter()
        .find(|m| m.bytes() == n)
        .map_or(n, PathMtu::value))
}

fn parse_access_flags(text: &str) -> Result<u32, ValueError> {
    if let Some(n) = parse_whole(text) {
        return u32::try_from(n).map_err(|_| {
            ValueError::out_of_range(
                AttrName::AccessFlags.field(),
                n,
                "does not fit the field's 32-bit type",
            )
        });
    }
    let mut bits = 0;
    for item in text.split('|').map(str::trim).filter(|s| !s.is_empty()) {
        let upper = item.to_ascii_uppercase();
        let short = upper.strip_prefix("IBV_ACCESS_").unwrap_or(&upper);
        let flag = ACCESS_FLAGS
            .iter()
            .find(|f| f.name.strip_prefix("IBV_ACCESS_") == Some(short))
            .ok_or_else(|| {
                ValueError::unreadable(AttrName::AccessFlags.field(), item, "an IBV_ACCESS_* flag")
            })?;
        bits |= flag.value;
    }
    Ok(bits)
}

/// An IPv4 address becomes a RoCE v2 path (IPv4-mapped GID, `is_global = 1`); a number
/// becomes an InfiniBand LID path without GRH.
fn parse_av(attr: AttrName, text: &str) -> Result<AddressVector, ValueError> {
    let t = text.trim();
    if let Ok(ip) = t.parse::<std::net::Ipv4Addr>() {
        return Ok(AddressVector {
            dlid: 0,
            dgid: Some(ip.to_ipv6_mapped().octets()),
            sgid_index: EXAMPLE_SGID_INDEX,
            sl: 0,
            port_num: 1,
        });
    }
    let dlid: u16 = number_in(attr, t, 16)?;
    Ok(AddressVector {
        dlid,
        dgid: None,
        sgid_index: 0,
        sl: 0,
        port_num: 1,
    })
}

fn parse_mig_state(text: &str) -> Result<u8, ValueError> {
    let names = ["IBV_MIG_MIGRATED", "IBV_MIG_REARM", "IBV_MIG_ARMED"];
    let t = text.trim();
    match names.iter().position(|n| n.eq_ignore_ascii_case(t)) {
        Some(i) => Ok(i as u8),
        None => number_in(AttrName::PathMigState, t, 8),
    }
}

fn parse_cap(text: &str) -> Result<(u32, u32), ValueError> {
    let mut parts = text.split(',');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(send), Some(recv), None) => Ok((
            number_in(AttrName::Cap, send, 32)?,
            number_in(AttrName::Cap, recv, 32)?,
        )),
        _ => Err(unreadable(AttrName::Cap, text)),
    }
}

fn state_meaning(attr: AttrName, state: QpState) -> Decoded {
    let role = if attr == AttrName::State {
        "the state this call moves the QP to"
    } else {
        "the state you tell the driver the QP is in (only from RTR, RTS, SQD or SQE)"
    };
    Decoded {
        field: attr.field().to_string(),
        value: state.value().into(),
        meaning: format!("{} ({}): {role}", state.ibv_name(), state.value()),
    }
}

/// Reads `text` as the value of `attr`, stores it in `attrs` (which then carries the bit in
/// its mask) and returns its decoded meaning; on error `attrs` is left unchanged.
///
/// Values are checked by the same rules [`Qp::modify`] applies (device limits:
/// [`DeviceLimits::default`]); a PSN wider than 24 bits is refused here although the kernel
/// truncates it, because it is always a mistake.
pub fn set_from_text(
    attrs: &mut ModifyAttrs,
    attr: AttrName,
    text: &str,
) -> Result<Decoded, ValueError> {
    let mut one = ModifyAttrs::default();
    let t = text.trim();
    match attr {
        AttrName::State => {
            let s = parse_state(attr, t)?;
            attrs.qp_state = Some(s);
            return Ok(state_meaning(attr, s));
        }
        AttrName::CurState => {
            let s = parse_state(attr, t)?;
            attrs.cur_qp_state = Some(s);
            return Ok(state_meaning(attr, s));
        }
        AttrName::RqPsn | AttrName::SqPsn => {
            let v: u32 = number_in(attr, t, 32)?;
            let decoded = values::decode_psn(attr.field(), v)?;
            if attr == AttrName::RqPsn {
                attrs.rq_psn = Some(v);
            } else {
                attrs.sq_psn = Some(v);
            }
            return Ok(decoded);
        }
        AttrName::EnSqdAsyncNotify => {
            one.en_sqd_async_notify = Some(match parse_whole(t) {
                Some(0) => false,
                Some(1) => true,
                _ => return Err(unreadable(attr, t)),
            })
        }
        AttrName::AccessFlags => one.qp_access_flags = Some(parse_access_flags(t)?),
        AttrName::PkeyIndex => one.pkey_index = Some(number_in(attr, t, 16)?),
        AttrName::Port => one.port_num = Some(number_in(attr, t, 8)?),
        AttrName::Qkey => one.qkey = Some(number_in(attr, t, 32)?),
        AttrName::Av => one.ah_attr = Some(parse_av(attr, t)?),
        AttrName::PathMtu => one.path_mtu = Some(parse_path_mtu(t)?),
        AttrName::Timeout => one.timeout = Some(number_in(attr, t, 8)?),
        AttrName::RetryCnt => one.retry_cnt = Some(number_in(attr, t, 8)?),
        AttrName::RnrRetry => one.rnr_retry = Some(number_in(attr, t, 8)?),
        AttrName::MaxQpRdAtomic => one.max_rd_atomic = Some(number_in(attr, t, 8)?),
        AttrName::AltPath => one.alt_path = Some(parse_av(attr, t)?),
        AttrName::MinRnrTimer => one.min_rnr_timer = Some(number_in(attr, t, 8)?),
        AttrName::MaxDestRdAtomic => one.max_dest_rd_atomic = Some(number_in(attr, t, 8)?),
        AttrName::PathMigState => one.path_mig_state = Some(parse_mig_state(t)?),
        AttrName::Cap => one.cap = Some(parse_cap(t)?),
        AttrName::DestQpn => one.dest_qp_num = Some(number_in(attr, t, 32)?),
        AttrName::RateLimit => one.rate_limit = Some(number_in(attr, t, 32)?),
    }
    let decoded = one
        .decode(&DeviceLimits::default())?
        .into_iter()
        .next()
        .ok_or_else(|| unreadable(attr, t))?;
    // States and PSNs returned above, a PSN as typed; `one` holds neither, so
    // merge_from's PSN truncation never applies here.
    attrs.merge_from(&one);
    Ok(decoded)
}

/// A ticked attribute whose text does not read: the call leaves it out until it is fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// The attribute.
    pub attr: AttrName,
    /// The text as typed.
    pub text: String,
    /// Why it does not read.
    pub error: ValueError,
}

impl fmt::Display for LeftOut {
    /// `qp_access_flags = "REMOTE_FLY" is not a valid value ("REMOTE_FLY" is not an
    /// IBV_ACCESS_* flag)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {:?} is not a valid value ({})",
            self.attr.field(),
            self.text.trim(),
            self.error.field_error().reason
        )
    }
}

/// The call a set of ticked attributes makes: each one's text read by [`set_from_text`];
/// the ones that do not read are left out of `attrs` (and so of its mask) and listed.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltCall {
    /// The attributes that read, the call [`c_call`] spells out.
    pub attrs: ModifyAttrs,
    /// The ticked attributes that do not read, in bit order.
    pub left_out: Vec<LeftOut>,
}

/// Reads every attribute in `ticked` from `text(attr)`.
pub fn build_call<'a>(ticked: AttrMask, text: impl Fn(AttrName) -> &'a str) -> BuiltCall {
    let mut attrs = ModifyAttrs::default();
    let mut left_out = Vec::new();
    for attr in ticked.iter() {
        let typed = text(attr);
        if let Err(error) = set_from_text(&mut attrs, attr, typed) {
            left_out.push(LeftOut {
                attr,
                text: typed.to_string(),
                error,
            });
        }
    }
    BuiltCall { attrs, left_out }
}

/// What the kernel's check says about a call being built, and about the call as its C
/// source stands when some values do not read.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveCheck {
    /// `ib_modify_qp_is_ok()` on the ticked mask.
    pub mask: Result<(), ModifyError>,
    /// The ticked attributes whose values do not read, left out of the C source.
    pub left_out: Vec<LeftOut>,
    /// `ib_modify_qp_is_ok()` on the C source's mask (the ticked mask without the left-out
    /// bits), when that differs from the ticked mask and is refused.
    pub source_refused: Option<ModifyError>,
}

/// Checks the call `ticked` with `text` builds on a `qp_type` QP in `current`, asking for
/// `requested`: the ticked mask, each ticked value, and the mask the C source is left with.
pub fn live_check<'a>(
    qp_type: QpType,
    current: QpState,
    requested: QpState,
    ticked: AttrMask,
    text: impl Fn(AttrName) -> &'a str,
) -> LiveCheck {
    let call = build_call(ticked, text);
    let source_mask = call.attrs.mask();
    let source_refused = if source_mask == ticked {
        None
    } else {
        check_modify(qp_type, current, requested, source_mask).err()
    };
    LiveCheck {
        mask: check_modify(qp_type, current, requested, ticked),
        left_out: call.left_out,
        source_refused,
    }
}

fn c_av(av: &AddressVector) -> String {
    match av.dgid {
        Some(gid) => format!(
            "{{ .is_global = 1, .grh = {{ .dgid = /* {} */, .sgid_index = {}, .hop_limit = 64 }}, \
             .dlid = {}, .sl = {}, .port_num = {} }}",
            super::verbs::format_gid(&gid),
            av.sgid_index,
            av.dlid,
            av.sl,
            av.port_num
        ),
        None => format!(
            "{{ .is_global = 0, .dlid = {}, .sl = {}, .port_num = {} }}",
            av.dlid, av.sl, av.port_num
        ),
    }
}

fn c_access_flags(value: u32) -> String {
    match values::access_flag_names("qp_access_flags", value) {
        Ok(names) if names.is_empty() => "0".to_string(),
        Ok(names) => names.join(" | "),
        Err(_) => format!("{value:#x}"),
    }
}

/// The C source of the call `attrs` describes: the `struct ibv_qp_attr` initializer
/// (designated initializers, one field per line) and the `ibv_modify_qp()` call with the
/// mask spelled out, as ibv_modify_qp(3) documents them.
pub fn c_call(attrs: &ModifyAttrs) -> String {
    let mut fields: Vec<String> = Vec::new();
    let mut push = |name: &str, value: String| fields.push(format!("    .{name} = {value},"));
    if let Some(s) = attrs.qp_state {
        push("qp_state", s.ibv_name().into());
    }
    if let Some(s) = attrs.cur_qp_state {
        push("cur_qp_state", s.ibv_name().into());
    }
    if let Some(v) = attrs.en_sqd_async_notify {
        push("en_sqd_async_notify", u8::from(v).to_string());
    }
    if let Some(v) = attrs.qp_access_flags {
        push("qp_access_flags", c_access_flags(v));
    }
    if let Some(v) = attrs.pkey_index {
        push("pkey_index", v.to_string());
    }
    if let Some(v) = attrs.port_num {
        push("port_num", v.to_string());
    }
    if let Some(v) = attrs.qkey {
        push("qkey", format!("{v:#x}"));
    }
    if let Some(av) = &attrs.ah_attr {
        push("ah_attr", c_av(av));
    }
    if let Some(v) = attrs.path_mtu {
        push(
            "path_mtu",
            PathMtu::from_ibv(v).map_or(v.to_string(), |m| m.name().to_string()),
        );
    }
    if let Some(v) = attrs.timeout {
        push("timeout", v.to_string());
    }
    if let Some(v) = attrs.retry_cnt {
        push("retry_cnt", v.to_string());
    }
    if let Some(v) = attrs.rnr_retry {
        push("rnr_retry", v.to_string());
    }
    if let Some(v) = attrs.rq_psn {
        push("rq_psn", format!("{v:#x}"));
    }
    if let Some(v) = attrs.max_rd_atomic {
        push("max_rd_atomic", v.to_string());
    }
    if let Some(av) = &attrs.alt_path {
        push("alt_ah_attr", c_av(av));
    }
    if let Some(v) = attrs.min_rnr_timer {
        push("min_rnr_timer", v.to_string());
    }
    if let Some(v) = attrs.sq_psn {
        push("sq_psn", format!("{v:#x}"));
    }
    if let Some(v) = attrs.max_dest_rd_atomic {
        push("max_dest_rd_atomic", v.to_string());
    }
    if let Some(v) = attrs.path_mig_state {
        let name = ["IBV_MIG_MIGRATED", "IBV_MIG_REARM", "IBV_MIG_ARMED"]
            .get(usize::from(v))
            .map_or(v.to_string(), |n| n.to_string());
        push("path_mig_state", name);
    }
    if let Some((send, recv)) = attrs.cap {
        push(
            "cap",
            format!("{{ .max_send_wr = {send}, .max_recv_wr = {recv} }}"),
        );
    }
    if let Some(v) = attrs.dest_qp_num {
        push("dest_qp_num", format!("{v:#x}"));
    }
    if let Some(v) = attrs.rate_limit {
        push("rate_limit", v.to_string());
    }
    let body = if fields.is_empty() {
        "struct ibv_qp_attr attr = { 0 };".to_string()
    } else {
        format!("struct ibv_qp_attr attr = {{\n{}\n}};", fields.join("\n"))
    };
    format!("{body}\nibv_modify_qp(qp, &attr, {});", attrs.mask())
}

/// A send work request that `qp_type` can post: a Send, carrying an address handle for UD
/// (ibv_post_send(3): `wr.ud.ah`, `remote_qpn`, `remote_qkey`).
pub fn example_send(qp_type: QpType, wr_id: u64) -> SendWr {
    let ud = (qp_type == QpType::Ud).then(|| UdDestination {
        ah: AddressVector {
            dlid: 0,
            dgid: Some(
                std::net::Ipv4Addr::new(192, 168, 10, 2)
                    .to_ipv6_mapped()
                    .octets(),
            ),
            sgid_index: EXAMPLE_SGID_INDEX,
            sl: 0,
            port_num: 1,
        },
        remote_qpn: 0x2b7,
        remote_qkey: 0x1111_1111,
    });
    SendWr {
        wr_id,
        opcode: SendOpcode::Send,
        length: 1024,
        ud,
    }
}

/// One modify along the path, with exactly the attributes the kernel requires.
fn required_modify(qp: &mut Qp, to: QpState) -> Result<(), QpError> {
    let mut req = ModifyAttrs::to(to);
    if let Some(cell) = kernel_cell(qp.state(), to, qp.qp_type()) {
        for attr in cell.required.iter() {
            // Example texts are tested to read; a failure here would be a bug, reported
            // as the value error rather than hidden.
            set_from_text(&mut req, attr, example_text(attr)).map_err(|e| match e {
                ValueError::OutOfRange(_) => QpError::Value {
                    error: e,
                    errno: super::table::Errno::Einval,
                },
                ValueError::Unreadable(_) => QpError::Event {
                    event: QpEvent::Fatal,
                    state: qp.state(),
                    reason: e.to_string(),
                },
            })?;
        }
    }
    qp.modify(&req).map(|_| ())
}

/// A fresh QP of `qp_type` brought to `state` the usual way, with the example values and
/// only the required attributes: RESET → INIT → RTR → RTS, then RTS → SQD; ERR by a modify
/// from INIT; SQE by a failed send in RTS (UD and UC only: other types have no SQE, and
/// the error says so).
pub fn qp_in_state(qp_type: QpType, qp_num: u32, state: QpState) -> Result<Qp, QpError> {
    let mut qp = Qp::new(qp_type, qp_num);
    let path: &[QpState] = match state {
        QpState::Reset => &[],
        QpState::Init => &[QpState::Init],
        QpState::Rtr => &[QpState::Init, QpState::Rtr],
        QpState::Rts | QpState::Sqe => &[QpState::Init, QpState::Rtr, QpState::Rts],
        QpState::Sqd => &[QpState::Init, QpState::Rtr, QpState::Rts, QpState::Sqd],
        QpState::Err => &[QpState::Init, QpState::Err],
    };
    for to in path {
        required_modify(&mut qp, *to)?;
    }
    if state == QpState::Sqe {
        qp.post_send(example_send(qp_type, 1))?;
        qp.apply(QpEvent::SendError {
            status: WcStatus::LocLenErr,
        })?;
        if qp.state() != QpState::Sqe {
            return Err(QpError::Event {
                event: QpEvent::SendError {
                    status: WcStatus::LocLenErr,
                },
                state: qp.state(),
                reason: format!("a {qp_type} QP has no SQE state; a send error takes it to ERR"),
            });
        }
    }
    Ok(qp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qp::check_modify;

    #[test]
    fn every_example_reads_and_sets_its_own_bit() {
        for attr in AttrName::ALL {
            let mut attrs = ModifyAttrs::default();
            let decoded = set_from_text(&mut attrs, attr, example_text(attr))
                .unwrap_or_else(|e| panic!("{attr}: {e}"));
            assert_eq!(attrs.mask(), attr.mask(), "{attr}");
            assert!(!decoded.meaning.is_empty(), "{attr}");
        }
    }

    #[test]
    fn decoded_meanings_follow_the_value_rules() {
        let mut a = ModifyAttrs::default();
        // IBTA: 4.096 µs × 2^14 ≈ 67.1 ms; 0 = infinite.
        let t = set_from_text(&mut a, AttrName::Timeout, "14").expect("valid");
        assert!(t.meaning.contains("2^14"), "{}", t.meaning);
        let t = set_from_text(&mut a, AttrName::Timeout, "0").expect("valid");
        assert!(t.meaning.contains("infinite"), "{}", t.meaning);
        let r = set_from_text(&mut a, AttrName::RnrRetry, "7").expect("valid");
        assert!(r.meaning.contains("infinite"), "{}", r.meaning);
        // The MTU can be typed as bytes, enum value or name: all mean IBV_MTU_1024 = 3.
        for text in ["1024", "3", "ibv_mtu_1024"] {
            set_from_text(&mut a, AttrName::PathMtu, text).expect("valid");
            assert_eq!(a.path_mtu, Some(3), "{text}");
        }
        let f = set_from_text(
            &mut a,
            AttrName::AccessFlags,
            "REMOTE_READ | IBV_ACCESS_REMOTE_WRITE",
        )
        .expect("valid");
        assert_eq!(a.qp_access_flags, Some(2 | 4));
        assert!(f.meaning.contains("IBV_ACCESS_REMOTE_READ"));
        set_from_text(&mut a, AttrName::Av, "10.0.0.7").expect("valid");
        let gid = a.ah_attr.and_then(|av| av.dgid).expect("a GID");
        assert_eq!(&gid[10..], &[0xff, 0xff, 10, 0, 0, 7]);
    }

    #[test]
    fn bad_values_are_refused_with_the_field_named_and_nothing_changed() {
        let cases = [
            (AttrName::Timeout, "32"),      // 5-bit exponent
            (AttrName::RetryCnt, "8"),      // 3 bits
            (AttrName::MinRnrTimer, "32"),  // 5-bit code
            (AttrName::PathMtu, "6"),       // enum ibv_mtu ends at 5
            (AttrName::RqPsn, "0x1000000"), // 24-bit PSN
            (AttrName::Timeout, "256"),     // does not fit uint8_t
            (AttrName::Port, "2"),          // one-port device
            (AttrName::AccessFlags, "REMOTE_FLY"),
            (AttrName::Qkey, "twelve"),
            (AttrName::Cap, "16"),
        ];
        for (attr, text) in cases {
            let mut attrs = ModifyAttrs::default();
            let err = set_from_text(&mut attrs, attr, text).expect_err(text);
            assert!(
                err.to_string().starts_with(attr.field())
                    || err.to_string().starts_with("qp_access_flags"),
                "{attr} {text}: {err}"
            );
            assert_eq!(attrs, ModifyAttrs::default(), "{attr} {text}");
        }
    }

    #[test]
    fn a_call_leaves_out_what_does_not_read_and_says_so() {
        let ticked = AttrName::State | AttrName::PkeyIndex | AttrName::Port | AttrName::AccessFlags;
        let text = |attr: AttrName| match attr {
            AttrName::State => "INIT",
            AttrName::AccessFlags => " REMOTE_FLY ",
            other => example_text(other),
        };
        let call = build_call(ticked, text);
        assert_eq!(
            call.attrs.mask(),
            AttrName::State | AttrName::PkeyIndex | AttrName::Port
        );
        assert_eq!(call.left_out.len(), 1);
        assert_eq!(call.left_out[0].attr, AttrName::AccessFlags);
        assert_eq!(
            call.left_out[0].to_string(),
            "qp_access_flags = \"REMOTE_FLY\" is not a valid value (\"REMOTE_FLY\" is not an IBV_ACCESS_* flag)"
        );

        // The ticked mask passes the kernel's check; the C source, without the bit, does not.
        let live = live_check(QpType::Rc, QpState::Reset, QpState::Init, ticked, text);
        assert_eq!(live.mask, Ok(()));
        assert_eq!(live.left_out, call.left_out);
        let refused = live
            .source_refused
            .expect("the source misses a required bit");
        assert_eq!(refused.missing, AttrName::AccessFlags.mask());

        // Out of range rather than unreadable: the value and the rule.
        let timer = build_call(AttrName::MinRnrTimer.mask(), |_| "40");
        assert_eq!(
            timer.left_out[0].to_string(),
            "min_rnr_timer = \"40\" is not a valid value (40 does not fit in 5 bits)"
        );

        // Everything reads: nothing left out, nothing more to say.
        let live = live_check(QpType::Rc, QpState::Reset, QpState::Init, ticked, |a| {
            if a == AttrName::State {
                "INIT"
            } else {
                example_text(a)
            }
        });
        assert_eq!(
            (live.mask, live.left_out, live.source_refused),
            (Ok(()), vec![], None)
        );
    }

    #[test]
    fn c_call_spells_fields_and_mask() {
        let mut a = ModifyAttrs::to(QpState::Rtr);
        for attr in [AttrName::Av, AttrName::PathMtu, AttrName::DestQpn] {
            set_from_text(&mut a, attr, example_text(attr)).expect("valid");
        }
        let c = c_call(&a);
        assert!(c.contains(".qp_state = IBV_QPS_RTR,"), "{c}");
        assert!(c.contains(".path_mtu = IBV_MTU_4096,"), "{c}");
        assert!(c.contains(".dest_qp_num = 0x2b7,"), "{c}");
        assert!(c.contains(".is_global = 1"), "{c}");
        assert!(
            c.ends_with("ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN);"),
            "{c}"
        );
        assert!(c_call(&ModifyAttrs::default()).ends_with("ibv_modify_qp(qp, &attr, 0);"));
    }

    #[test]
    fn every_state_is_reachable_where_the_type_has_it() {
        for qp_type in QpType::ALL {
            for state in QpState::ALL {
                let result = qp_in_state(qp_type, 7, state);
                if state == QpState::Sqe && !qp_type.has_sqe_state() {
                    assert!(result.is_err(), "{qp_type} has no SQE");
                    continue;
                }
                let qp = result.unwrap_or_else(|e| panic!("{qp_type} {state}: {e}"));
                assert_eq!(qp.state(), state, "{qp_type}");
            }
        }
    }

    #[test]
    fn required_examples_pass_the_kernel_check() {
        // RC RESET→INIT with exactly the kernel's three attributes plus IBV_QP_STATE.
        let mut a = ModifyAttrs::to(QpState::Init);
        for attr in [AttrName::PkeyIndex, AttrName::Port, AttrName::AccessFlags] {
            set_from_text(&mut a, attr, example_text(attr)).expect("valid");
        }
        assert_eq!(
            check_modify(QpType::Rc, QpState::Reset, QpState::Init, a.mask()),
            Ok(())
        );
        assert_eq!(a.mask().len(), 4);
    }
}
