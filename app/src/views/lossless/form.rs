//! The text of a calculator's boxes, by the engine's field names.

/// (field name, text) in form order.
#[derive(Debug, Clone, PartialEq)]
pub struct Texts(Vec<(&'static str, String)>);

impl Texts {
    pub fn new(fields: Vec<(&'static str, String)>) -> Texts {
        Texts(fields)
    }

    pub fn fields(&self) -> &[(&'static str, String)] {
        &self.0
    }

    /// A field's text; empty for a name the form does not have.
    pub fn get(&self, key: &str) -> String {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, t)| t.clone())
            .unwrap_or_default()
    }

    pub fn set(&mut self, key: &str, text: String) {
        if let Some((_, t)) = self.0.iter_mut().find(|(k, _)| *k == key) {
            *t = text;
        }
    }

    /// Takes the query's `PREFIXname=text` pairs for this form's fields.
    pub fn read(&mut self, prefix: &str, pairs: &[(String, String)]) {
        for (key, text) in pairs {
            if let Some(name) = key.strip_prefix(prefix) {
                self.set(name, text.clone());
            }
        }
    }

    /// `PREFIXname=text` for each field whose text differs from `base`'s.
    pub fn changed(&self, prefix: &str, base: &[(&'static str, String)]) -> Vec<(String, String)> {
        self.0
            .iter()
            .filter(|(k, t)| base.iter().any(|(b, bt)| b == k && bt != t))
            .map(|(k, t)| (format!("{prefix}{k}"), t.clone()))
            .collect()
    }
}
