//! The page's shareable state in the URL query: `?scenario=incast-16&model=packet&dcqcn.g=0.5`.
//! Only parameters that differ from the named scenario are written, so a link stays short.

use gloo::utils::window;
use wasm_bindgen::JsValue;

use engine::dcqcn::{Model, Scenario};

use super::fields::FIELDS;

/// What the query asked for, before the engine has judged the values.
pub struct Requested {
    pub scenario: Option<String>,
    pub model: Option<Model>,
    /// (field key, text) in query order.
    pub values: Vec<(String, String)>,
}

pub fn read() -> Requested {
    let search = window().location().search().unwrap_or_default();
    let mut requested = Requested {
        scenario: None,
        model: None,
        values: Vec::new(),
    };
    for pair in search.trim_start_matches('?').split('&') {
        let Some((key, value)) = pair.split_once('=') else {
            continue;
        };
        let value = js_sys::decode_uri_component(value)
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| value.to_string());
        match key {
            "scenario" => requested.scenario = Some(value),
            "model" => {
                requested.model = match value.as_str() {
                    "packet" => Some(Model::Packet),
                    "fluid" => Some(Model::Fluid),
                    _ => None,
                }
            }
            _ if FIELDS.iter().any(|f| f.key == key) => {
                requested.values.push((key.to_string(), value))
            }
            _ => {}
        }
    }
    requested
}

pub fn model_name(model: Model) -> &'static str {
    match model {
        Model::Packet => "packet",
        Model::Fluid => "fluid",
    }
}

/// Rewrites the query for this state, keeping the path and any `#anchor`.
pub fn write(name: &str, model: Model, base: &Scenario, current: &Scenario) {
    let mut query = format!("?scenario={name}&model={}", model_name(model));
    for f in FIELDS {
        let now = f.value(current);
        if now.is_some() && now != f.value(base) {
            if let Some(v) = now {
                query.push_str(&format!("&{}={}", f.key, f.format(v)));
            }
        }
    }
    let location = window().location();
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(
            &JsValue::NULL,
            "",
            Some(&format!("{path}{query}{hash}")),
        );
    }
}
