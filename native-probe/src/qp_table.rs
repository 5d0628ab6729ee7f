//! `native-probe qp-table`: the engine's QP transition table, for scripts (`--json`) or
//! people (an aligned table).

use engine::qp::{transition_table, AttrName, TransitionRule};

use crate::{cli::QpTableArgs, output};

pub fn run(args: &QpTableArgs) -> Result<(), Box<dyn std::error::Error>> {
    let table = transition_table();
    let text = if args.json {
        serde_json::to_string_pretty(&table)? + "\n"
    } else {
        aligned(&table)
    };
    output::to_stdout(|out| out.write_all(text.as_bytes()))?;
    Ok(())
}

/// The attribute list without the `IBV_QP_` prefix every entry shares, or `-` when empty.
fn short_names(attrs: &[AttrName]) -> String {
    if attrs.is_empty() {
        return "-".to_string();
    }
    attrs
        .iter()
        .map(|a| a.name().trim_start_matches("IBV_QP_"))
        .collect::<Vec<_>>()
        .join(",")
}

/// One line per rule, columns padded to the widest entry.
fn aligned(table: &[TransitionRule]) -> String {
    let header = [
        "FROM",
        "TO",
        "QP TYPE",
        "REQUIRED (IBV_QP_*)",
        "OPTIONAL (IBV_QP_*)",
    ];
    let rows: Vec<[String; 5]> = table
        .iter()
        .map(|r| {
            [
                r.from.to_string(),
                r.to.to_string(),
                r.qp_type.to_string(),
                short_names(&r.required),
                short_names(&r.optional),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut text = String::new();
    let mut line = |cells: [&str; 5]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        text.push_str(padded.join("  ").trim_end());
        text.push('\n');
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3], &row[4]].map(String::as_str));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lines_up_and_lists_every_rule() {
        let table = transition_table();
        let text = aligned(&table);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), table.len() + 1);
        // The TO column starts at the same offset on every line.
        let to_col = lines[0].find("TO").expect("header has TO");
        assert!(lines[1..]
            .iter()
            .all(|l| l[to_col..].starts_with(|c: char| c.is_ascii_uppercase())));
        assert!(text.contains("PKEY_INDEX,PORT") || text.contains("ACCESS_FLAGS,PKEY_INDEX,PORT"));
    }
}
