//! The parameter fields as the learner typed them, and reading them into `ScenarioParams`.
//! Only reading happens here; the engine judges whether the values make sense. The texts
//! live in a [`Form`] keyed by the engine's field names ([`ParamField::name`]), the message
//! size's unit under [`UNIT_KEY`].

use engine::flows::{LinkId, ParamField, ScenarioParams};

use crate::views::form::{FieldDef, Form, Reads};

/// Size units offered beside the message size.
pub const UNITS: [(&str, u64); 4] = [
    ("B", 1),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// The form key of the message size's unit (a unit's name from [`UNITS`]).
pub const UNIT_KEY: &str = "message_unit";

/// Every editable field, in [`ParamField`] order, keyed by the engine's field names.
pub static FIELDS: [(ParamField, FieldDef); 8] = [
    def(ParamField::MessageBytes, "Message size", Reads::Decimal),
    def(ParamField::Mtu, "Path MTU (bytes)", Reads::Whole),
    def(ParamField::Pcie, "PCIe link", Reads::Text),
    def(ParamField::Network, "RDMA network", Reads::Text),
    def(ParamField::Tcp, "TCP network", Reads::Text),
    def(ParamField::Nvlink, "NVLink", Reads::Text),
    def(ParamField::Nodes, "Nodes", Reads::Whole),
    def(ParamField::GpusPerNode, "GPUs per node", Reads::Whole),
];

const fn def(field: ParamField, label: &'static str, reads: Reads) -> (ParamField, FieldDef) {
    let def = FieldDef {
        key: field.name(),
        label,
        unit: "",
        help: "",
        reads,
    };
    (field, def)
}

/// The box of `field`.
pub fn field_def(field: ParamField) -> &'static FieldDef {
    let (_, def) = FIELDS
        .iter()
        .find(|(f, _)| *f == field)
        .unwrap_or(&FIELDS[0]);
    def
}

/// The message size's unit as the form holds it: (name, bytes).
pub fn unit(form: &Form) -> (&'static str, u64) {
    UNITS
        .iter()
        .find(|(name, _)| *name == form.text(UNIT_KEY))
        .copied()
        .unwrap_or(UNITS[0])
}

/// The fields showing `params`, the size in the largest unit that divides it.
pub fn from_params(params: &ScenarioParams) -> Form {
    let (unit, size) = UNITS
        .iter()
        .rev()
        .find(|&&(_, size)| params.message_bytes.is_multiple_of(size))
        .copied()
        .unwrap_or(UNITS[0]);
    let text = |field: ParamField| match field {
        ParamField::MessageBytes => (params.message_bytes / size).to_string(),
        ParamField::Mtu => params.mtu.to_string(),
        ParamField::Pcie => params.pcie.to_string(),
        ParamField::Network => params.network.to_string(),
        ParamField::Tcp => params.tcp.to_string(),
        ParamField::Nvlink => params.nvlink.to_string(),
        ParamField::Nodes => params.nodes.to_string(),
        ParamField::GpusPerNode => params.gpus_per_node.to_string(),
    };
    Form::new((FIELDS.iter().map(|(f, d)| (d.key, text(*f)))).chain([(UNIT_KEY, unit.to_string())]))
}

/// Reads every field over `base`; on failure each reason is kept under its box.
pub fn read_params(form: &mut Form, base: &ScenarioParams) -> Result<ScenarioParams, ()> {
    let mut params = base.clone();
    form.accept_all();
    let unit = unit(form);
    for (field, def) in &FIELDS {
        if let Err(reason) = apply(&mut params, *field, form.text(def.key).trim(), unit) {
            form.refuse(def.key, reason);
        }
    }
    if form.is_refused() {
        Err(())
    } else {
        Ok(params)
    }
}

fn whole<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    let digits = text.replace(['_', ','], "");
    digits
        .parse()
        .map_err(|_| format!("“{text}” is not a whole number of {what}"))
}

fn link_id(text: &str) -> Result<LinkId, String> {
    text.parse()
        .map_err(|_| format!("“{text}” is not one of the links offered"))
}

fn apply(
    p: &mut ScenarioParams,
    field: ParamField,
    text: &str,
    unit: (&str, u64),
) -> Result<(), String> {
    match field {
        ParamField::MessageBytes => p.message_bytes = size_bytes(text, unit)?,
        ParamField::Mtu => p.mtu = whole(text, "bytes")?,
        ParamField::Pcie => p.pcie = link_id(text)?,
        ParamField::Network => p.network = link_id(text)?,
        ParamField::Tcp => p.tcp = link_id(text)?,
        ParamField::Nvlink => p.nvlink = link_id(text)?,
        ParamField::Nodes => p.nodes = whole(text, "nodes")?,
        ParamField::GpusPerNode => {
            p.gpus_per_node = whole(text, "GPUs")?;
            // One NIC per GPU (rail-aligned), as the defaults have it.
            p.nics_per_node = p.gpus_per_node;
        }
    }
    Ok(())
}

/// A size such as `4`, `1.5` or `0.25` in the chosen unit, as whole bytes.
fn size_bytes(text: &str, (name, size): (&str, u64)) -> Result<u64, String> {
    let value: f64 = text
        .replace(['_', ','], "")
        .parse()
        .map_err(|_| format!("“{text}” is not a number"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("“{text}” is not a size"));
    }
    let bytes = value * size as f64;
    if bytes > u64::MAX as f64 / 2.0 {
        return Err(format!("{text} {name} is far too large"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("{text} {name} is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_their_unit() {
        assert_eq!(size_bytes("4", UNITS[1]), Ok(4096));
        assert_eq!(size_bytes("1.5", UNITS[2]), Ok(3 << 19));
        assert_eq!(size_bytes("1_000", UNITS[0]), Ok(1000));
        assert!(size_bytes("0.3", UNITS[0]).is_err());
        assert!(size_bytes("-1", UNITS[0]).is_err());
        assert!(size_bytes("1e300", UNITS[3]).is_err());
        assert!(size_bytes("four", UNITS[0]).is_err());
    }

    #[test]
    fn a_form_reads_back_the_params_it_shows() {
        let p = ScenarioParams {
            message_bytes: 256 << 20,
            network: LinkId::Roce200g,
            ..ScenarioParams::default()
        };
        let mut form = from_params(&p);
        assert_eq!(form.text("message_bytes"), "256");
        assert_eq!(unit(&form).0, "MiB");
        assert_eq!(read_params(&mut form, &ScenarioParams::default()), Ok(p));
    }

    #[test]
    fn a_bad_field_is_named() {
        let mut form = from_params(&ScenarioParams::default());
        form.set("nodes", "two".into());
        assert!(read_params(&mut form, &ScenarioParams::default()).is_err());
        assert!(form.refusal("nodes").is_some());
        assert!(form.refusal("mtu").is_none());
        // Every box is the engine's name for its field.
        for (field, def) in &FIELDS {
            assert_eq!(field.name(), def.key);
        }
    }
}
