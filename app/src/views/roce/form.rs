//! The builder's form: the learner's text for each `PacketSpec` field, kept verbatim so
//! nothing typed is lost, turned into a spec with a message per field when it does not fit.

use std::net::IpAddr;

use engine::capture::spec::{build, BuildError, PacketSpec, Payload, SpecOperation};
use engine::wire::ext::{ExtHeaders, NakCode};
use engine::wire::VlanRepr;
use engine::FieldError;

use crate::views::form::{whole, FieldDef, Form, Reads};

/// Which packets show a field: every one, a tagged one, a NAK, or one whose operation
/// carries a header the field fills (as the engine's `SpecOperation::headers` says).
#[derive(Clone, Copy)]
pub enum Shown {
    Always,
    Vlan,
    Nak,
    With(fn(ExtHeaders) -> bool),
}

/// What a box's text fills in the spec.
#[derive(Clone, Copy)]
enum Fills {
    /// A whole number, decimal or `0x` hex, at most the bound.
    Number(u64, fn(&mut PacketSpec, u64)),
    Address(fn(&mut PacketSpec, IpAddr)),
    /// A size in bytes, or text, as `payload_kind` says.
    Payload,
}

/// One box of the form: its key is the `PacketSpec` field it fills (also its URL query
/// key), its help the value's width or range.
pub struct PacketField {
    pub def: FieldDef,
    pub default: &'static str,
    pub shown: Shown,
    fills: Fills,
}

const fn f(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    help: &'static str,
) -> PacketField {
    let def = FieldDef {
        key,
        label,
        unit: "",
        help,
        reads: Reads::Text,
    };
    PacketField {
        def,
        default,
        shown: Shown::Always,
        fills: Fills::Payload,
    }
}

impl PacketField {
    const fn number(mut self, max: u64, set: fn(&mut PacketSpec, u64)) -> PacketField {
        self.fills = Fills::Number(max, set);
        self
    }
    const fn address(mut self, set: fn(&mut PacketSpec, IpAddr)) -> PacketField {
        self.fills = Fills::Address(set);
        self
    }
    const fn shown(mut self, shown: Shown) -> PacketField {
        self.shown = shown;
        self
    }
}

const U24: u64 = 0xFF_FFFF;
const U32: u64 = u32::MAX as u64;
/// The tag a PCP or VLAN ID box fills in.
const TAG: VlanRepr = VlanRepr {
    pcp: 0,
    dei: false,
    vid: 0,
};

/// Text inputs, in form order. `operation`, `ip`, `vlan`, `payload_kind` and `nak_code`
/// are selects and checkboxes drawn separately.
#[rustfmt::skip]
pub static TEXT_FIELDS: &[PacketField] = &[
    f("src_ip", "Source IP", "192.168.1.1", "").address(|s, ip| s.src_ip = ip),
    f("dst_ip", "Destination IP", "192.168.1.2", "").address(|s, ip| s.dst_ip = ip),
    f("dest_qp", "Destination QP", "0x11", "24 bits").number(U24, |s, v| s.dest_qp = v as u32),
    f("psn", "PSN", "0", "24 bits").number(U24, |s, v| s.psn = v as u32),
    f("p_key", "P_Key", "0xffff", "16 bits").number(0xFFFF, |s, v| s.p_key = v as u16),
    f("dscp", "DSCP", "26", "0–63").number(63, |s, v| s.dscp = Some(v as u8)),
    f("ecn", "ECN", "2", "0–3; 3 = CE").number(3, |s, v| s.ecn = Some(v as u8)),
    f("pcp", "PCP", "3", "0–7").shown(Shown::Vlan)
        .number(7, |s, v| s.vlan.get_or_insert(TAG).pcp = v as u8),
    f("vid", "VLAN ID", "100", "0–4095").shown(Shown::Vlan)
        .number(4095, |s, v| s.vlan.get_or_insert(TAG).vid = v as u16),
    f("payload", "Payload", "64", "bytes, or text").shown(Shown::With(|h| h.payload)),
    // An atomic's AtomicETH holds a VA and R_Key as a RETH does.
    f("va", "Remote VA", "0x10000", "64 bits").shown(Shown::With(|h| h.reth || h.atomic_eth))
        .number(u64::MAX, |s, v| s.va = v),
    f("r_key", "R_Key", "0x1000", "32 bits").shown(Shown::With(|h| h.reth || h.atomic_eth))
        .number(U32, |s, v| s.r_key = v as u32),
    f("immediate", "Immediate data", "0", "32 bits").shown(Shown::With(|h| h.immdt))
        .number(U32, |s, v| s.immediate = v as u32),
    f("swap_add", "Swap / add", "1", "64 bits").shown(Shown::With(|h| h.atomic_eth))
        .number(u64::MAX, |s, v| s.swap_add = v),
    f("compare", "Compare", "0", "64 bits").shown(Shown::With(|h| h.atomic_eth))
        .number(u64::MAX, |s, v| s.compare = v),
    f("msn", "MSN", "0", "24 bits").shown(Shown::With(|h| h.aeth)).number(U24, |s, v| s.msn = v as u32),
    f("q_key", "Q_Key", "0x11111111", "32 bits").shown(Shown::With(|h| h.deth))
        .number(U32, |s, v| s.q_key = v as u32),
    f("src_qp", "Source QP", "0x12", "24 bits").shown(Shown::With(|h| h.deth))
        .number(U24, |s, v| s.src_qp = v as u32),
];

/// Keys of the selects and checkboxes, with their defaults.
pub const CHOICES: &[(&str, &str)] = &[
    ("operation", "write"),
    ("ip", "4"),
    ("vlan", "off"),
    ("payload_kind", "size"),
    ("nak_code", "0"),
];

/// NAK codes offered (IBTA Vol 1 §9.3.5, AETH NAK codes 0–3).
pub const NAK_CODES: &[(&str, &str)] = &[
    ("0", "PSN sequence error"),
    ("1", "Invalid request"),
    ("2", "Remote access error"),
    ("3", "Remote operational error"),
];

/// The learner's text for each `PacketSpec` field, kept in a [`Form`]; a box not typed
/// into holds its default.
#[derive(Clone, PartialEq, Default)]
pub struct SpecTexts {
    texts: Form,
}

fn default_of(key: &str) -> &'static str {
    TEXT_FIELDS
        .iter()
        .find(|d| d.def.key == key)
        .map(|d| d.default)
        .or_else(|| CHOICES.iter().find(|(k, _)| *k == key).map(|(_, v)| *v))
        .unwrap_or("")
}

fn known_key(key: &str) -> Option<&'static str> {
    TEXT_FIELDS
        .iter()
        .map(|d| d.def.key)
        .chain(CHOICES.iter().map(|(k, _)| *k))
        .find(|k| *k == key)
}

impl SpecTexts {
    pub fn get(&self, key: &str) -> &str {
        self.texts.typed(key).unwrap_or_else(|| default_of(key))
    }

    pub fn set(&mut self, key: &'static str, value: String) {
        if key == "ip" && value != self.get("ip") {
            // Switching families swaps in that family's example addresses.
            let (src, dst) = if value == "6" {
                ("fd00::1", "fd00::2")
            } else {
                ("192.168.1.1", "192.168.1.2")
            };
            self.texts.set("src_ip", src.to_string());
            self.texts.set("dst_ip", dst.to_string());
        }
        self.texts.set(key, value);
    }

    pub fn operation(&self) -> SpecOperation {
        SpecOperation::from_key(self.get("operation")).unwrap_or(SpecOperation::Write)
    }

    pub fn shows(&self, shown: Shown) -> bool {
        match shown {
            Shown::Always => true,
            Shown::Vlan => self.get("vlan") == "on",
            Shown::Nak => self.operation() == SpecOperation::Nak,
            Shown::With(carried) => carried(self.operation().headers()),
        }
    }

    /// Reads `key=value` pairs (already URL-decoded); unknown keys are ignored.
    pub fn from_pairs<'a>(pairs: impl Iterator<Item = (String, String)> + 'a) -> SpecTexts {
        let mut form = SpecTexts::default();
        for (k, v) in pairs {
            if let Some(key) = known_key(&k) {
                form.texts.set(key, v);
            }
        }
        form
    }

    /// The values that differ from their defaults, for the URL.
    pub fn changed_pairs(&self) -> Vec<(&'static str, &str)> {
        let mut pairs: Vec<(&'static str, &str)> = (self.texts.texts().iter())
            .filter(|(k, v)| default_of(k) != v.as_str())
            .map(|(k, v)| (*k, v.as_str()))
            .collect();
        // In key order, as the URL always had them.
        pairs.sort_by_key(|(k, _)| *k);
        pairs
    }

    /// The spec this form builds, or, where fields are refused, the spec with those fields
    /// at their defaults: the nearest packet to what the form asks for.
    pub fn nearest_buildable(&self) -> PacketSpec {
        let refused: Vec<&'static str> = match self.to_spec() {
            Ok(spec) => match build(&spec) {
                Ok(_) => return spec,
                Err(e) => vec![build_error_field(&e).0],
            },
            Err(errors) => errors.into_iter().map(|(key, _)| key).collect(),
        };
        let mut fixed = self.clone();
        for key in refused {
            fixed.texts.forget(key);
        }
        fixed
            .to_spec()
            .ok()
            .filter(|spec| build(spec).is_ok())
            .unwrap_or_else(|| SpecTexts::default().to_spec().unwrap_or_default())
    }

    /// The spec, or one message per offending field key.
    pub fn to_spec(&self) -> Result<PacketSpec, Vec<(&'static str, String)>> {
        let mut errors = Vec::new();
        let operation = self.operation();
        let mut spec = PacketSpec {
            operation,
            ..PacketSpec::default()
        };
        for field in TEXT_FIELDS.iter().filter(|d| self.shows(d.shown)) {
            let (key, text) = (field.def.key, self.get(field.def.key));
            let read = match field.fills {
                Fills::Number(max, set) => whole(text, max).map(|v| set(&mut spec, v)),
                Fills::Address(set) => (text.trim().parse::<IpAddr>())
                    .map(|ip| set(&mut spec, ip))
                    .map_err(|_| "not an IPv4 or IPv6 address".to_string()),
                Fills::Payload if self.get("payload_kind") == "text" => {
                    spec.payload = Payload::Text(text.to_string());
                    Ok(())
                }
                // The engine holds it to one packet's worth and says why.
                Fills::Payload => whole(text, U32).map(|v| spec.payload = Payload::Size(v as u32)),
            };
            if let Err(e) = read {
                errors.push((key, e));
            }
        }
        if operation == SpecOperation::Nak {
            spec.nak_code = NakCode::from_code(self.get("nak_code").parse().unwrap_or(0));
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        engine_checks(spec)
    }
}

/// The range and consistency checks the engine makes, shown at their fields.
fn engine_checks(spec: PacketSpec) -> Result<PacketSpec, Vec<(&'static str, String)>> {
    match engine::capture::spec::to_repr(&spec) {
        Ok(_) => Ok(spec),
        Err(BuildError::Invalid(FieldError { field, reason })) => Err(field
            .split('/')
            .filter_map(known_key)
            .map(|k| (k, reason.clone()))
            .chain(
                known_key(field.split('/').next().unwrap_or(""))
                    .is_none()
                    .then(|| ("operation", format!("{field}: {reason}"))),
            )
            .collect()),
        Err(e) => Err(vec![("operation", e.to_string())]),
    }
}

/// The form field a build error belongs to, with its message: the payload's size goes to
/// the payload box, the rest to the operation.
pub fn build_error_field(e: &BuildError) -> (&'static str, String) {
    match e {
        BuildError::Invalid(FieldError { field, reason }) => match known_key(field) {
            Some(key) => (key, reason.clone()),
            None => ("operation", e.to_string()),
        },
        BuildError::Wire(_) => ("operation", e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_build_a_write() {
        let spec = SpecTexts::default().to_spec();
        assert!(matches!(spec, Ok(ref s) if s.operation == SpecOperation::Write));
    }

    #[test]
    fn bad_text_is_reported_at_its_field_and_kept() {
        let mut form = SpecTexts::default();
        form.set("psn", "0x1000000".to_string());
        form.set("dscp", "abc".to_string());
        let errors = form.to_spec().err().unwrap_or_default();
        let keys: Vec<&str> = errors.iter().map(|(k, _)| *k).collect();
        assert!(keys.contains(&"psn") && keys.contains(&"dscp"), "{keys:?}");
        assert_eq!(form.get("dscp"), "abc");
    }

    #[test]
    fn mixed_address_families_blame_the_addresses() {
        let mut form = SpecTexts::default();
        form.set("dst_ip", "fd00::2".to_string());
        let errors = form.to_spec().err().unwrap_or_default();
        assert!(errors.iter().any(|(k, _)| *k == "dst_ip"), "{errors:?}");
    }

    #[test]
    fn the_url_carries_only_changes_and_reads_back() {
        let mut form = SpecTexts::default();
        form.set("operation", "nak".to_string());
        form.set("psn", "42".to_string());
        let pairs = form.changed_pairs();
        assert_eq!(pairs.len(), 2);
        let back = SpecTexts::from_pairs(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .chain([("bogus".to_string(), "1".to_string())]),
        );
        assert!(back == form);
        assert_eq!(back.operation(), SpecOperation::Nak);
    }

    /// UX check 2026-12: `/roce?payload=9000` showed an RC SEND with no payload (the
    /// default spec), with the size's refusal on the operation box.
    #[test]
    fn a_refused_payload_keeps_the_forms_operation_and_is_named_at_its_box() {
        let form = SpecTexts::from_pairs([("payload".to_string(), "9000".to_string())].into_iter());
        let errors = form.to_spec().expect_err("too large for one packet");
        let keys: Vec<&str> = errors.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["payload"]);
        let shown = form.nearest_buildable();
        assert_eq!(
            shown.operation,
            form.operation(),
            "the form's own operation"
        );
        assert_eq!(shown, SpecTexts::default().to_spec().unwrap());
    }
}
