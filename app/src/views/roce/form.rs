//! The builder's form: the learner's text for each `PacketSpec` field, kept verbatim so
//! nothing typed is lost, turned into a spec with a message per field when it does not fit.

use std::net::IpAddr;

use engine::capture::spec::{build, BuildError, PacketSpec, Payload, SpecOperation};
use engine::wire::ext::NakCode;
use engine::wire::VlanRepr;
use engine::FieldError;

use crate::views::form::{FieldDef, Form, Reads};

/// Which operations show a field.
#[derive(Clone, Copy, PartialEq)]
pub enum Shown {
    Always,
    /// Only with an 802.1Q tag.
    Vlan,
    Payload,
    Reth,
    Immediate,
    Atomic,
    Aeth,
    Nak,
    Ud,
}

/// One box of the form: its key is the `PacketSpec` field it fills (also its URL query
/// key), its help the value's width or range.
pub struct PacketField {
    pub def: FieldDef,
    pub default: &'static str,
    pub shown: Shown,
}

const fn f(
    key: &'static str,
    label: &'static str,
    default: &'static str,
    help: &'static str,
    shown: Shown,
) -> PacketField {
    PacketField {
        def: FieldDef {
            key,
            label,
            unit: "",
            help,
            reads: Reads::Text,
        },
        default,
        shown,
    }
}

/// Text inputs, in form order. `operation`, `ip`, `vlan`, `payload_kind` and `nak_code`
/// are selects and checkboxes drawn separately.
pub static TEXT_FIELDS: &[PacketField] = &[
    f("src_ip", "Source IP", "192.168.1.1", "", Shown::Always),
    f("dst_ip", "Destination IP", "192.168.1.2", "", Shown::Always),
    f(
        "dest_qp",
        "Destination QP",
        "0x11",
        "24 bits",
        Shown::Always,
    ),
    f("psn", "PSN", "0", "24 bits", Shown::Always),
    f("p_key", "P_Key", "0xffff", "16 bits", Shown::Always),
    f("dscp", "DSCP", "26", "0–63", Shown::Always),
    f("ecn", "ECN", "2", "0–3; 3 = CE", Shown::Always),
    f("pcp", "PCP", "3", "0–7", Shown::Vlan),
    f("vid", "VLAN ID", "100", "0–4095", Shown::Vlan),
    f("payload", "Payload", "64", "bytes, or text", Shown::Payload),
    f("va", "Remote VA", "0x10000", "64 bits", Shown::Reth),
    f("r_key", "R_Key", "0x1000", "32 bits", Shown::Reth),
    f(
        "immediate",
        "Immediate data",
        "0",
        "32 bits",
        Shown::Immediate,
    ),
    f("swap_add", "Swap / add", "1", "64 bits", Shown::Atomic),
    f("compare", "Compare", "0", "64 bits", Shown::Atomic),
    f("msn", "MSN", "0", "24 bits", Shown::Aeth),
    f("q_key", "Q_Key", "0x11111111", "32 bits", Shown::Ud),
    f("src_qp", "Source QP", "0x12", "24 bits", Shown::Ud),
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
        use SpecOperation as S;
        let op = self.operation();
        match shown {
            Shown::Always => true,
            Shown::Vlan => self.get("vlan") == "on",
            Shown::Payload => op.carries_payload(),
            Shown::Reth => matches!(
                op,
                S::Write | S::WriteWithImmediate | S::ReadRequest | S::CompareSwap | S::FetchAdd
            ),
            Shown::Immediate => matches!(op, S::SendWithImmediate | S::WriteWithImmediate),
            Shown::Atomic => matches!(op, S::CompareSwap | S::FetchAdd),
            Shown::Aeth => matches!(op, S::Ack | S::Nak | S::RnrNak | S::ReadResponse),
            Shown::Nak => op == S::Nak,
            Shown::Ud => op == S::UdSend,
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
        let mut spec = PacketSpec {
            operation: self.operation(),
            ..PacketSpec::default()
        };
        let mut num = |key: &'static str, max: u64| -> u64 {
            match parse_number(self.get(key), max) {
                Ok(v) => v,
                Err(e) => {
                    errors.push((key, e));
                    0
                }
            }
        };
        spec.dest_qp = num("dest_qp", 0xFF_FFFF) as u32;
        spec.psn = num("psn", 0xFF_FFFF) as u32;
        spec.p_key = num("p_key", 0xFFFF) as u16;
        spec.dscp = Some(num("dscp", 63) as u8);
        spec.ecn = Some(num("ecn", 3) as u8);
        if self.shows(Shown::Vlan) {
            spec.vlan = Some(VlanRepr {
                pcp: num("pcp", 7) as u8,
                dei: false,
                vid: num("vid", 4095) as u16,
            });
        }
        if self.shows(Shown::Reth) {
            spec.va = num("va", u64::MAX);
            spec.r_key = num("r_key", u64::from(u32::MAX)) as u32;
        }
        if self.shows(Shown::Immediate) {
            spec.immediate = num("immediate", u64::from(u32::MAX)) as u32;
        }
        if self.shows(Shown::Atomic) {
            spec.swap_add = num("swap_add", u64::MAX);
            spec.compare = num("compare", u64::MAX);
        }
        if self.shows(Shown::Aeth) {
            spec.msn = num("msn", 0xFF_FFFF) as u32;
        }
        if self.shows(Shown::Ud) {
            spec.q_key = num("q_key", u64::from(u32::MAX)) as u32;
            spec.src_qp = num("src_qp", 0xFF_FFFF) as u32;
        }
        if self.shows(Shown::Payload) {
            spec.payload = if self.get("payload_kind") == "text" {
                Payload::Text(self.get("payload").to_string())
            } else {
                // The engine holds it to one packet's worth and says why.
                Payload::Size(num("payload", u64::from(u32::MAX)) as u32)
            };
        }
        if spec.operation == SpecOperation::Nak {
            spec.nak_code = NakCode::from_code(self.get("nak_code").parse().unwrap_or(0));
        }
        for key in ["src_ip", "dst_ip"] {
            match self.get(key).trim().parse::<IpAddr>() {
                Ok(ip) if key == "src_ip" => spec.src_ip = ip,
                Ok(ip) => spec.dst_ip = ip,
                Err(_) => errors.push((key, "not an IPv4 or IPv6 address".to_string())),
            }
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

/// A whole number in decimal or `0x` hex, at most `max`.
pub fn parse_number(text: &str, max: u64) -> Result<u64, String> {
    if text.trim().is_empty() {
        return Err("enter a number".to_string());
    }
    match engine::number::parse_whole(text) {
        Some(v) if v <= max => Ok(v),
        Some(_) => Err(format!("at most {max} ({max:#x})")),
        None => Err(format!(
            "{:?} is not a decimal or 0x-hex number",
            text.trim()
        )),
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

    #[test]
    fn numbers_take_hex_and_refuse_overflow() {
        assert_eq!(parse_number("0x11", 255), Ok(17));
        assert_eq!(parse_number(" 1_000 ", 5000), Ok(1000));
        assert!(parse_number("256", 255).is_err());
        assert!(parse_number("", 255).is_err());
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
