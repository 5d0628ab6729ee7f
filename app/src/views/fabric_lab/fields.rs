//! The parameters a learner may change on both sides of a case, as the form toolkit's field
//! table; an empty box keeps the case's own value.

use engine::netsim::LabParams;
use engine::number::parse_whole;

use crate::views::form::{decimal, FieldDef, Form, Reads};

pub static FIELDS: [FieldDef; 2] = [
    FieldDef {
        key: "seed",
        label: "Seed",
        unit: "",
        help: "Seeds ECMP's hashes and RED's draws on both sides; empty keeps the case's own.",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "duration_us",
        label: "Longest simulated time",
        unit: "µs",
        help: "Both sides stop here if their traffic has not finished; empty keeps the case's own.",
        reads: Reads::Decimal,
    },
];

/// The parameters the form's boxes hold, or the first box that does not read and why.
pub fn read_params(form: &Form) -> Result<LabParams, (&'static str, String)> {
    let seed = form.text("seed").trim();
    let duration = form.text("duration_us").trim();
    let seed = match seed {
        "" => None,
        t => Some(parse_whole(t).ok_or_else(|| {
            (
                "seed",
                format!("`seed`: {t:?} is not a whole number from 0 to 2^64 − 1"),
            )
        })?),
    };
    let duration_us = match duration {
        "" => None,
        t => {
            Some(decimal(t).map_err(|why| ("duration_us", format!("`duration_us`: {t:?} {why}")))?)
        }
    };
    Ok(LabParams { seed, duration_us })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_boxes_keep_the_case_and_bad_text_is_located() {
        let mut form = Form::new(FIELDS.iter().map(|f| (f.key, String::new())));
        assert_eq!(read_params(&form), Ok(LabParams::default()));
        form.set("seed", "0x10".into());
        form.set("duration_us", "2500".into());
        assert_eq!(
            read_params(&form),
            Ok(LabParams {
                seed: Some(16),
                duration_us: Some(2500.0)
            })
        );
        form.set("seed", "lots".into());
        let (key, why) = read_params(&form).unwrap_err();
        assert_eq!(key, "seed");
        assert!(why.contains("\"lots\""), "{why}");
        form.set("seed", "".into());
        form.set("duration_us", "soon".into());
        assert_eq!(read_params(&form).unwrap_err().0, "duration_us");
    }
}
