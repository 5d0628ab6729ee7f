//! The search index as published: `search.json` is not JSON-heavy machinery but one line per
//! section, `path TAB anchor TAB heading TAB keywords TAB text`, which `prerender` writes and the browser
//! reads without a parser library.

use engine::search::Section;

/// The published file, relative to the site root.
pub const FILE: &str = "search.txt";

fn field(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

/// The file's text for `sections`.
pub fn encode(sections: &[Section]) -> String {
    let mut out = String::new();
    for s in sections {
        for (index, part) in [s.path, s.anchor, s.heading, s.keywords, s.text]
            .into_iter()
            .enumerate()
        {
            if index > 0 {
                out.push('\t');
            }
            out.push_str(&field(part));
        }
        out.push('\n');
    }
    out
}

/// The sections in `text`; an error names the first line that is not five fields.
pub fn decode(text: &str) -> Result<Vec<Section<'_>>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.is_empty())
        .map(|(index, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[..] {
                [path, anchor, heading, keywords, text] if path.starts_with('/') => {
                    Ok(Section {
                        path,
                        anchor,
                        heading,
                        keywords,
                        text,
                    })
                }
                _ => Err(format!(
                    "{FILE} line {}: expected path, anchor, heading, keywords and text separated by tabs",
                    index + 1
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_survive_the_file() {
        let sections = [
            Section {
                path: "/",
                anchor: "",
                heading: "Overview",
                keywords: "start, map",
                text: "one\ttwo\nthree",
            },
            Section {
                path: "/qp",
                anchor: "rts",
                heading: "RTS",
                keywords: "",
                text: "ready to send",
            },
        ];
        let text = encode(&sections);
        let back = decode(&text).expect("its own file reads back");
        assert_eq!(back[0].text, "one two three");
        assert_eq!(back[0].keywords, "start, map");
        assert_eq!(back[1], sections[1]);
    }

    #[test]
    fn a_broken_line_is_named() {
        let error = decode("/qp\ta\tb\t\tc\nnot a section\n").unwrap_err();
        assert!(error.contains("line 2"), "{error}");
        let four_fields = decode("/qp\ta\tb\tc\n").unwrap_err();
        assert!(four_fields.contains("line 1"), "{four_fields}");
    }
}
