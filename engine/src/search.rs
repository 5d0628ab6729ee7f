//! Full-text search over the lab's reference pages.
//!
//! The app compiles every topic into [`Section`]s at build time; [`SearchIndex`] lowercases
//! them once, and [`SearchIndex::search`] answers each keystroke by scanning that text. The
//! whole corpus is a few hundred kilobytes, so a linear scan stays far inside one frame.

/// A stretch of a topic page under one heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    /// The topic's route, e.g. `/dcqcn`.
    pub path: &'a str,
    /// The heading's anchor on that page; empty for the text above the first heading.
    pub anchor: &'a str,
    pub heading: &'a str,
    pub text: &'a str,
}

/// One result: the section, and a short excerpt around the first match.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'a> {
    pub section: &'a Section<'a>,
    pub score: u32,
    pub excerpt: String,
    /// Byte ranges of `excerpt` that match a query term, for highlighting.
    pub marks: Vec<(usize, usize)>,
}

const EXCERPT_BEFORE: usize = 40;
const EXCERPT_LENGTH: usize = 140;
/// A term found in a heading outweighs any number of mentions in body text.
const HEADING_WORD: u32 = 100;
const HEADING_EXACT_WORD: u32 = 50;
const TEXT_MENTION: u32 = 2;
const TEXT_MENTIONS_COUNTED: u32 = 5;

struct Prepared {
    heading: String,
    text: String,
}

/// The sections with their lowercased text, ready to search.
pub struct SearchIndex<'a> {
    sections: &'a [Section<'a>],
    prepared: Vec<Prepared>,
}

/// Lowercase terms of a query: runs of letters, digits and `_`.
pub fn terms(query: &str) -> Vec<String> {
    query
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Positions where `term` starts a word of `haystack` (both lowercase).
fn word_starts<'h>(haystack: &'h str, term: &'h str) -> impl Iterator<Item = usize> + 'h {
    haystack.match_indices(term).filter_map(move |(at, _)| {
        let before = haystack[..at].chars().next_back();
        let starts_word = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        starts_word.then_some(at)
    })
}

fn is_whole_word(haystack: &str, at: usize, len: usize) -> bool {
    haystack[at + len..]
        .chars()
        .next()
        .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
}

/// Lowercasing can change byte lengths for a few non-ASCII letters; excerpts are cut from the
/// original text, so only keep positions that still fall on the same character boundaries.
fn lowercase_keeps_offsets(original: &str, lower: &str) -> bool {
    original.len() == lower.len()
}

impl<'a> SearchIndex<'a> {
    pub fn new(sections: &'a [Section<'a>]) -> Self {
        let prepared = sections
            .iter()
            .map(|s| Prepared {
                heading: s.heading.to_lowercase(),
                text: s.text.to_lowercase(),
            })
            .collect();
        SearchIndex { sections, prepared }
    }

    pub fn len(&self) -> usize {
        self.sections.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
    }

    /// Sections that contain every term of `query` at the start of a word, best first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit<'a>> {
        let terms = terms(query);
        if terms.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(u32, usize)> = Vec::new();
        'sections: for (index, prepared) in self.prepared.iter().enumerate() {
            let mut score = 0;
            for term in &terms {
                let mut term_score = 0;
                for at in word_starts(&prepared.heading, term) {
                    term_score =
                        term_score.max(if is_whole_word(&prepared.heading, at, term.len()) {
                            HEADING_WORD + HEADING_EXACT_WORD
                        } else {
                            HEADING_WORD
                        });
                }
                let mentions = word_starts(&prepared.text, term)
                    .take(TEXT_MENTIONS_COUNTED as usize)
                    .count() as u32;
                term_score += mentions * TEXT_MENTION;
                if term_score == 0 {
                    continue 'sections;
                }
                score += term_score;
            }
            // A heading that is exactly the query is the place the reader is looking for.
            let heading_words = prepared
                .heading
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty());
            if heading_words.eq(terms.iter().map(String::as_str)) {
                score += HEADING_EXACT_WORD;
            }
            scored.push((score, index));
        }
        // Best score first; equal scores keep the order of the pages.
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(limit)
            .map(|(score, index)| self.hit(index, score, &terms))
            .collect()
    }

    fn hit(&self, index: usize, score: u32, terms: &[String]) -> Hit<'a> {
        let section = &self.sections[index];
        let lower = &self.prepared[index].text;
        if !lowercase_keeps_offsets(section.text, lower) {
            let excerpt: String = section.text.chars().take(EXCERPT_LENGTH).collect();
            return Hit {
                section,
                score,
                excerpt,
                marks: Vec::new(),
            };
        }
        let first = terms
            .iter()
            .filter_map(|t| word_starts(lower, t).next())
            .min()
            .unwrap_or(0);
        let mut start = first.saturating_sub(EXCERPT_BEFORE);
        while !section.text.is_char_boundary(start) {
            start -= 1;
        }
        // Begin at a word, not in the middle of one.
        if start > 0 {
            if let Some(space) = section.text[start..first].find(' ') {
                start += space + 1;
            }
        }
        let mut end = (start + EXCERPT_LENGTH).min(section.text.len());
        while !section.text.is_char_boundary(end) {
            end += 1;
        }
        if end < section.text.len() {
            if let Some(space) = section.text[start..end].rfind(' ') {
                end = start + space;
            }
        }
        let prefix = if start > 0 { "… " } else { "" };
        let suffix = if end < section.text.len() { " …" } else { "" };
        let excerpt = format!("{prefix}{}{suffix}", &section.text[start..end]);
        let window = &lower[start..end];
        let mut marks: Vec<(usize, usize)> = terms
            .iter()
            .flat_map(|t| {
                word_starts(window, t)
                    .map(move |at| (at + prefix.len(), at + prefix.len() + t.len()))
            })
            .collect();
        marks.sort_unstable();
        marks.dedup_by(|later, earlier| later.0 < earlier.1);
        Hit {
            section,
            score,
            excerpt,
            marks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTIONS: &[Section<'static>] = &[
        Section {
            path: "/roce",
            anchor: "",
            heading: "RoCE v2 packets",
            text: "RoCE v2 carries the BTH over UDP; the GID picks the source address.",
        },
        Section {
            path: "/dcqcn",
            anchor: "",
            heading: "DCQCN",
            text: "The congestion control loop of RoCE.",
        },
        Section {
            path: "/troubleshooting",
            anchor: "roce-gid-index-wrong",
            heading: "RoCE GID index wrong",
            text: "NCCL picks a GID of the wrong type.",
        },
        Section {
            path: "/nccl",
            anchor: "pxn",
            heading: "PXN",
            text: "PCI and NVLink: DCQCN is not involved.",
        },
    ];

    #[test]
    fn heading_matches_rank_above_text_mentions() {
        let index = SearchIndex::new(SECTIONS);
        let hits = index.search("dcqcn", 10);
        assert_eq!(hits[0].section.path, "/dcqcn");
        assert_eq!(hits.len(), 2);
        let gid = index.search("GID", 10);
        assert_eq!(gid[0].section.anchor, "roce-gid-index-wrong");
    }

    #[test]
    fn every_term_must_match_at_a_word_start() {
        let index = SearchIndex::new(SECTIONS);
        assert!(index
            .search("gid udp", 10)
            .iter()
            .all(|h| h.section.path == "/roce"));
        assert!(
            index.search("cqcn", 10).is_empty(),
            "no match inside a word"
        );
        assert!(
            index
                .search("dcq", 10)
                .iter()
                .any(|h| h.section.path == "/dcqcn"),
            "prefixes match"
        );
        assert!(index.search("  ", 10).is_empty());
        assert!(index.search("pxn", 0).is_empty());
    }

    #[test]
    fn excerpt_marks_cover_the_matched_terms() {
        let index = SearchIndex::new(SECTIONS);
        let hit = &index.search("udp", 1)[0];
        assert!(!hit.marks.is_empty());
        for &(from, to) in &hit.marks {
            assert_eq!(hit.excerpt[from..to].to_lowercase(), "udp");
        }
    }

    #[test]
    fn non_ascii_text_never_splits_a_character() {
        let sections = [Section {
            path: "/x",
            anchor: "",
            heading: "Ünïcode",
            text: "Straße µs ÅÄÖ 4.096 µs × 2^timeout İstanbul ıı",
        }];
        let index = SearchIndex::new(&sections);
        for query in ["µs", "straße", "timeout", "istanbul", "ü", "ı"] {
            for hit in index.search(query, 5) {
                assert!(hit.excerpt.is_char_boundary(0));
                for &(from, to) in &hit.marks {
                    assert!(hit.excerpt.is_char_boundary(from) && hit.excerpt.is_char_boundary(to));
                }
            }
        }
    }
}
