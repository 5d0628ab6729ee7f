//! JSON input files (craft specs, DCQCN and netsim scenarios) read into the engine's types strictly:
//! an error names the file, the JSON path (`packets[0].opcode`), the line and column, and
//! where to look next.

use std::{fmt, path::Path};

use serde::de::DeserializeOwned;

/// A JSON file that is not valid JSON or does not fit the type it should hold.
#[derive(Debug)]
pub struct JsonInputError {
    file: String,
    /// Where in the document, as serde_path_to_error writes it; `.` for the top level.
    at: String,
    error: serde_json::Error,
    hint: &'static str,
}

impl fmt::Display for JsonInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file)?;
        // A syntax error has no meaningful path: the line and column say where.
        if self.at != "." && !self.error.is_syntax() && !self.error.is_eof() {
            write!(f, "{}: ", self.at)?;
        }
        write!(f, "{}\nhint: {}", self.error, self.hint)
    }
}

impl std::error::Error for JsonInputError {}

/// Parses `text`, read from `file`, as a `T`; `hint` says where to look when it does not fit.
pub fn parse<T: DeserializeOwned>(
    file: &Path,
    text: &str,
    hint: &'static str,
) -> Result<T, JsonInputError> {
    let located = |at: String, error| JsonInputError {
        file: file.display().to_string(),
        at,
        error,
        hint,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let at = e.path().to_string();
        located(at, e.into_inner())
    })?;
    // Anything after the value (a second object, a stray bracket) is refused too.
    de.end().map_err(|e| located(".".into(), e))?;
    Ok(value)
}
