//! The command line's names for the engine's fields. The engine refuses an input with an
//! [`engine::FieldError`] naming the field as its JSON does (`cluster.nodes`,
//! `dscp_priority[3]`); a subcommand says which flag sets each field, and the refusal is
//! printed with the flag the user typed instead.

use engine::FieldError;

/// One subcommand's fields and the flags that set them.
pub struct FieldFlags(pub &'static [(&'static str, &'static str)]);

impl FieldFlags {
    /// The flag that sets `field` or the element of it that `field` names
    /// (`dscp_priority[3]` → `--map`); the field itself if no flag sets it.
    pub fn flag<'a>(&self, field: &'a str) -> &'a str {
        let sets = |name: &str| {
            field
                .strip_prefix(name)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['[', '.']))
        };
        self.0
            .iter()
            .find(|(name, _)| sets(name))
            .map_or(field, |&(_, flag)| flag)
    }

    /// A refused field, written with its flag.
    pub fn refusal(&self, e: &FieldError) -> String {
        format!("invalid `{}`: {}", self.flag(&e.field), e.reason)
    }

    /// A message of the engine's about how several fields fit together, each `field` it
    /// names in backquotes written as its flag.
    pub fn in_message(&self, message: &str) -> String {
        self.0.iter().fold(message.to_string(), |m, (field, flag)| {
            m.replace(&format!("`{field}`"), &format!("`{flag}`"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: FieldFlags =
        FieldFlags(&[("cluster.nodes", "--nodes"), ("dscp_priority", "--map")]);

    #[test]
    fn fields_and_their_elements_become_flags() {
        assert_eq!(FLAGS.flag("cluster.nodes"), "--nodes");
        assert_eq!(FLAGS.flag("dscp_priority[3]"), "--map");
        // A name that only starts the same is another field.
        assert_eq!(FLAGS.flag("cluster.nodes_extra"), "cluster.nodes_extra");
        assert_eq!(
            FLAGS.refusal(&FieldError::new(
                "cluster.nodes",
                "must be from 1 to 1000000"
            )),
            "invalid `--nodes`: must be from 1 to 1000000"
        );
        assert_eq!(
            FLAGS.in_message("`cluster.nodes` and `cluster.gpus` disagree"),
            "`--nodes` and `cluster.gpus` disagree"
        );
    }
}
