//! The parameter fields as the learner typed them, and reading them into `ScenarioParams`.
//! Only reading happens here; the engine judges whether the values make sense.

use engine::flows::{LinkId, ParamField, ScenarioParams};

/// Size units offered beside the message size.
pub const UNITS: [(&str, u64); 4] = [
    ("B", 1),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// A change to one field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldText {
    /// The text of a field (a number, or a link id from a menu).
    Typed(String),
    /// The unit of the message size, by its index in [`UNITS`].
    Unit(usize),
}

/// Every editable field's text, and why a text does not read as a value.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    texts: Vec<(ParamField, String)>,
    pub unit: usize,
    errors: Vec<(ParamField, String)>,
}

const FIELDS: [ParamField; 8] = [
    ParamField::MessageBytes,
    ParamField::Mtu,
    ParamField::Pcie,
    ParamField::Network,
    ParamField::Tcp,
    ParamField::Nvlink,
    ParamField::Nodes,
    ParamField::GpusPerNode,
];

impl Form {
    /// The fields showing `params`, the size in the largest unit that divides it.
    pub fn from_params(params: &ScenarioParams) -> Form {
        let unit = UNITS
            .iter()
            .rposition(|&(_, size)| params.message_bytes.is_multiple_of(size))
            .unwrap_or(0);
        let size = UNITS.get(unit).map_or(1, |u| u.1);
        let texts = FIELDS
            .iter()
            .map(|&field| {
                let text = match field {
                    ParamField::MessageBytes => (params.message_bytes / size).to_string(),
                    ParamField::Mtu => params.mtu.to_string(),
                    ParamField::Pcie => params.pcie.to_string(),
                    ParamField::Network => params.network.to_string(),
                    ParamField::Tcp => params.tcp.to_string(),
                    ParamField::Nvlink => params.nvlink.to_string(),
                    ParamField::Nodes => params.nodes.to_string(),
                    ParamField::GpusPerNode => params.gpus_per_node.to_string(),
                };
                (field, text)
            })
            .collect();
        Form {
            texts,
            unit,
            errors: Vec::new(),
        }
    }

    pub fn text(&self, field: ParamField) -> Option<String> {
        self.texts
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, t)| t.clone())
    }

    /// Why the field's text is not a value, if it is not.
    pub fn error(&self, field: ParamField) -> Option<&str> {
        self.errors
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, e)| e.as_str())
    }

    pub fn set(&mut self, field: ParamField, change: FieldText) {
        match change {
            FieldText::Typed(text) => match self.texts.iter_mut().find(|(f, _)| *f == field) {
                Some(entry) => entry.1 = text,
                None => self.texts.push((field, text)),
            },
            FieldText::Unit(unit) if unit < UNITS.len() => self.unit = unit,
            FieldText::Unit(_) => {}
        }
    }

    /// Reads every field over `base`; on failure the reasons are kept per field.
    pub fn params(&mut self, base: &ScenarioParams) -> Result<ScenarioParams, ()> {
        let mut params = base.clone();
        self.errors.clear();
        for (field, text) in &self.texts {
            if let Err(reason) = apply(&mut params, *field, text.trim(), self.unit) {
                self.errors.push((*field, reason));
            }
        }
        if self.errors.is_empty() {
            Ok(params)
        } else {
            Err(())
        }
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

fn apply(p: &mut ScenarioParams, field: ParamField, text: &str, unit: usize) -> Result<(), String> {
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
fn size_bytes(text: &str, unit: usize) -> Result<u64, String> {
    let (name, size) = UNITS.get(unit).copied().unwrap_or(("B", 1));
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
        assert_eq!(size_bytes("4", 1), Ok(4096));
        assert_eq!(size_bytes("1.5", 2), Ok(3 << 19));
        assert_eq!(size_bytes("1_000", 0), Ok(1000));
        assert!(size_bytes("0.3", 0).is_err());
        assert!(size_bytes("-1", 0).is_err());
        assert!(size_bytes("1e300", 3).is_err());
        assert!(size_bytes("four", 0).is_err());
    }

    #[test]
    fn a_form_reads_back_the_params_it_shows() {
        let p = ScenarioParams {
            message_bytes: 256 << 20,
            network: LinkId::Roce200g,
            ..ScenarioParams::default()
        };
        let mut form = Form::from_params(&p);
        assert_eq!(form.text(ParamField::MessageBytes).as_deref(), Some("256"));
        assert_eq!(UNITS[form.unit].0, "MiB");
        assert_eq!(form.params(&ScenarioParams::default()), Ok(p));
    }

    #[test]
    fn a_bad_field_is_named() {
        let mut form = Form::from_params(&ScenarioParams::default());
        form.set(ParamField::Nodes, FieldText::Typed("two".into()));
        assert!(form.params(&ScenarioParams::default()).is_err());
        assert!(form.error(ParamField::Nodes).is_some());
        assert!(form.error(ParamField::Mtu).is_none());
    }
}
