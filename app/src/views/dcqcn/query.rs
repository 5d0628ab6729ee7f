//! The page's shareable state in the URL query: `?scenario=incast-16&model=packet&dcqcn.g=0.5`.
//! Only parameters that differ from the named scenario are written, so a link stays short.

use engine::dcqcn::{Model, Scenario};

use super::fields::FIELDS;

/// What the query asked for, before the engine has judged the values.
pub struct Requested {
    pub scenario: Option<String>,
    pub model: Option<Model>,
    /// (field key, text) in query order.
    pub values: Vec<(String, String)>,
}

impl Requested {
    /// Reads the query's pairs; the values are judged later, by the engine.
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Requested {
        let mut requested = Requested {
            scenario: None,
            model: None,
            values: Vec::new(),
        };
        for (key, value) in pairs {
            match key.as_str() {
                "scenario" => requested.scenario = Some(value),
                "model" => {
                    requested.model = match value.as_str() {
                        "packet" => Some(Model::Packet),
                        "fluid" => Some(Model::Fluid),
                        _ => None,
                    }
                }
                _ if FIELDS.iter().any(|f| f.def.key == key) => requested.values.push((key, value)),
                _ => {}
            }
        }
        requested
    }
}

pub fn model_name(model: Model) -> &'static str {
    match model {
        Model::Packet => "packet",
        Model::Fluid => "fluid",
    }
}

/// The query for this state: the scenario, the model and the changed parameters.
pub fn pairs(
    name: &str,
    model: Model,
    base: &Scenario,
    current: &Scenario,
) -> Vec<(&'static str, String)> {
    let mut pairs = vec![
        ("scenario", name.to_string()),
        ("model", model_name(model).to_string()),
    ];
    for f in FIELDS {
        let now = f.value(current);
        if let Some(v) = now.filter(|_| now != f.value(base)) {
            pairs.push((f.def.key, f.format(v)));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::page_query;
    use engine::dcqcn::named_scenario;

    #[test]
    fn only_changed_parameters_are_written_and_read_back() {
        let base = named_scenario("incast-16").expect("a named scenario");
        let mut now = base.clone();
        now.dcqcn.g = 0.5;
        let search = page_query::format(&pairs("incast-16", Model::Packet, &base, &now));
        assert_eq!(search, "?scenario=incast-16&model=packet&dcqcn.g=0.5");
        let back = Requested::from_pairs(page_query::parse(&format!("{search}&junk=1")));
        assert_eq!(back.scenario.as_deref(), Some("incast-16"));
        assert_eq!(back.model, Some(Model::Packet));
        assert_eq!(
            back.values,
            vec![("dcqcn.g".to_string(), "0.5".to_string())]
        );
    }
}
