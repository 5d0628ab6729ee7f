//! Full-text search over the lab's reference pages.
//!
//! The app compiles every topic into [`Section`]s at build time. [`SearchIndex::new`] splits
//! them into words once: a vocabulary of distinct lowercase words, each with its stem and the
//! sections (and fields) it appears in. [`SearchIndex::search`] answers a keystroke by matching
//! each query term against the vocabulary, not the text, then adding up per section.
//!
//! A term matches a word when it is the word, has the same stem ([`stem`]: plural, `-ing`,
//! `-ed`, `-er`, `-ly`), starts it (so results show while typing), or, for terms of
//! [`FUZZY_MIN_CHARS`] letters or more, is one edit away (a letter added, dropped, changed, or
//! two neighbours swapped: `dcqnc` finds `dcqcn`). Words joined by `-` or `/` count both as a
//! whole (`all-reduce` and `AllReduce` are both `allreduce`, `GB/s` is `gbs`) and part by part.
//!
//! Ranking: a term in a section's heading outweighs the same term among its keywords (the
//! synonyms its author lists in `content/`), which outweighs any number of mentions in the
//! text. An exact word outweighs a shared stem, which outweighs a prefix. Sections that need a
//! one-edit guess for some term come after every section that matches without one. Every term
//! must match, except small words (`how`, `is`, `the` …) and bare numbers (`3` in `3 GB/s`),
//! which only add a little when they match.

use std::collections::HashMap;
use std::ops::Range;

/// A stretch of a topic page under one heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    /// The topic's route, e.g. `/dcqcn`.
    pub path: &'a str,
    /// The heading's anchor on that page; empty for the text above the first heading.
    pub anchor: &'a str,
    pub heading: &'a str,
    /// Other words a reader might use for this section (synonyms, symptoms), comma-separated;
    /// they are searched but never shown.
    pub keywords: &'a str,
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
/// Terms this long (in characters) or longer also match words one edit away.
pub const FUZZY_MIN_CHARS: usize = 5;
/// Points for a term in a heading, by how it matches: exact, stem, prefix, one edit.
const HEADING: [u32; 4] = [150, 130, 100, 60];
/// Points for a term among a section's keywords.
const KEYWORD: [u32; 4] = [120, 105, 80, 50];
/// Points per mention in the text, and how many mentions count.
const TEXT_MENTION: [u32; 4] = [2, 2, 2, 1];
const TEXT_MENTIONS_COUNTED: u32 = 5;
/// A heading that is exactly the query.
const HEADING_IS_QUERY: u32 = 50;
/// Optional terms (small words, bare numbers) count this much less.
const OPTIONAL_DIVISOR: u32 = 10;

/// Small words of a question that need not appear for a section to match.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "get",
    "getting", "how", "i", "if", "in", "is", "it", "its", "me", "my", "of", "on", "or", "so",
    "than", "that", "the", "this", "to", "what", "whats", "when", "where", "which", "who", "why",
    "with",
];

/// How a term matched a word, best first; indexes the point tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Quality {
    Exact = 0,
    Stem = 1,
    Prefix = 2,
    Fuzzy = 3,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Heading,
    Keywords,
    Text,
}

/// One word of the vocabulary in one field of one section.
#[derive(Debug, Clone, Copy)]
struct Posting {
    section: u32,
    field: Field,
    count: u16,
}

struct Word {
    text: String,
    stem: String,
    chars: Box<[char]>,
    postings: Vec<Posting>,
}

/// The sections with their words, ready to search.
pub struct SearchIndex<'a> {
    sections: &'a [Section<'a>],
    words: Vec<Word>,
    ids: HashMap<String, u32>,
    /// Each section's heading as plain lowercase words, for "the heading is the query".
    heading_words: Vec<Vec<String>>,
    /// Each section's words of text in order, as (start, end, word id), for excerpts.
    text_words: Vec<Vec<(u32, u32, u32)>>,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Calls `each(span, lowercase word, is_part)` for every word of `text`: runs of letters,
/// digits and `_`. Only ASCII letters are lowercased (queries and text alike): the reference
/// is English, and Unicode's case tables would add about 7 KB gzip to the code every page
/// downloads. Words joined by a single `-` or `/` also come as one word without the
/// joins (`all-reduce` → `allreduce`), when `parts` is true after their parts.
fn for_each_word(text: &str, parts: bool, mut each: impl FnMut(Range<usize>, String, bool)) {
    let mut chars = text.char_indices().peekable();
    // The compound being read: its start, its joined text, and its parts.
    let mut pieces: Vec<Range<usize>> = Vec::new();
    let flush = |pieces: &mut Vec<Range<usize>>,
                 each: &mut dyn FnMut(Range<usize>, String, bool)| {
        match pieces.len() {
            0 => {}
            1 => {
                let r = pieces[0].clone();
                each(r.clone(), text[r].to_ascii_lowercase(), false);
            }
            _ => {
                let joined: String = pieces
                    .iter()
                    .map(|r| text[r.clone()].to_ascii_lowercase())
                    .collect();
                each(pieces[0].start..pieces[pieces.len() - 1].end, joined, false);
                if parts {
                    for r in pieces.iter() {
                        each(r.clone(), text[r.clone()].to_ascii_lowercase(), true);
                    }
                }
            }
        }
        pieces.clear();
    };
    while let Some((at, c)) = chars.next() {
        if is_word_char(c) {
            let mut end = at + c.len_utf8();
            while let Some(&(next, c)) = chars.peek() {
                if !is_word_char(c) {
                    break;
                }
                end = next + c.len_utf8();
                chars.next();
            }
            // The `s` of `receiver's` (or the `t` of `don't`) is no word of its own.
            let after_apostrophe = text[..at].ends_with(['\'', '’'])
                && text[..at]
                    .trim_end_matches(['\'', '’'])
                    .ends_with(is_word_char);
            if after_apostrophe && pieces.is_empty() && matches!(&text[at..end], "s" | "t") {
                continue;
            }
            pieces.push(at..end);
            // A `-` or `/` with a word right after it continues the compound.
            let mut ahead = chars.clone();
            let joins = matches!(ahead.next(), Some((_, '-' | '/')))
                && ahead.next().is_some_and(|(_, c)| is_word_char(c));
            if joins {
                chars.next();
            } else {
                flush(&mut pieces, &mut each);
            }
        }
    }
    flush(&mut pieces, &mut each);
}

/// Lowercase terms of a query: words as [`SearchIndex`] splits them, compounds joined.
pub fn terms(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(query, false, |_, word, _| out.push(word));
    out
}

fn has_vowel(s: &str) -> bool {
    s.chars()
        .any(|c| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y'))
}

/// A small English suffix stripper: `sockets` → `socket`, `retries` → `retry`, `marking` and
/// `marked` → `mark`, `dropped` → `drop`, `senders` → `send`, `queues` and `queued` → `queu`.
/// Words with digits or `_` (names like `mlx5` or `NCCL_IB_HCA`) and short words stay as
/// they are. Two words with the same stem match each other.
pub fn stem(word: &str) -> String {
    if word.chars().count() <= 3 || !word.chars().all(|c| c.is_ascii_lowercase()) {
        return word.to_string();
    }
    let mut w = word.to_string();
    // Plurals.
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if w.ends_with("sses") {
        w.truncate(w.len() - 2);
    } else if let Some(base) = w
        .strip_suffix("es")
        .filter(|b| ["s", "x", "z", "ch", "sh"].iter().any(|e| b.ends_with(e)))
    {
        w = base.to_string();
    } else if w.ends_with('s') && !["ss", "us", "is"].iter().any(|e| w.ends_with(e)) {
        w.pop();
    }
    // Verb endings, then a doubled consonant they leave (`dropp` → `drop`).
    for suffix in ["ing", "ed"] {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.len() >= 3 && has_vowel(base) {
                w = base.to_string();
                let b = w.as_bytes();
                let n = b.len();
                if n >= 2 && b[n - 1] == b[n - 2] && !b"aeioulsz".contains(&b[n - 1]) {
                    w.pop();
                }
                break;
            }
        }
    }
    for suffix in ["er", "ly"] {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.len() >= 4 && has_vowel(base) {
                w = base.to_string();
                break;
            }
        }
    }
    if w.len() >= 4 && w.ends_with('e') {
        w.pop();
    }
    w
}

/// Are `a` and `b` at most one edit apart: one character inserted, deleted or replaced, or
/// two neighbouring characters swapped?
fn within_one_edit(a: &[char], b: &[char]) -> bool {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let i = long.iter().zip(short).take_while(|(x, y)| x == y).count();
    match long.len() - short.len() {
        0 => {
            i == long.len()
                || long[i + 1..] == short[i + 1..]
                || (i + 1 < long.len()
                    && long[i] == short[i + 1]
                    && long[i + 1] == short[i]
                    && long[i + 2..] == short[i + 2..])
        }
        1 => long[i + 1..] == short[i..],
        _ => false,
    }
}

/// A query term, prepared once per search.
struct Term {
    text: String,
    stem: String,
    chars: Vec<char>,
    /// Small words and bare numbers: they add points when found but need not be.
    optional: bool,
    /// Whether fuzzy matching applies (long enough, no digits).
    fuzzy: bool,
}

impl Term {
    fn new(text: String) -> Self {
        let chars: Vec<char> = text.chars().collect();
        Term {
            stem: stem(&text),
            optional: STOP_WORDS.contains(&text.as_str()) || chars.iter().all(char::is_ascii_digit),
            fuzzy: chars.len() >= FUZZY_MIN_CHARS && !chars.iter().any(|c| c.is_ascii_digit()),
            chars,
            text,
        }
    }

    /// Whether `word` is this term, give or take a stem or (for a long term) one edit.
    fn is(&self, word: &str) -> bool {
        word == self.text
            || stem(word) == self.stem
            || (self.fuzzy && within_one_edit(&word.chars().collect::<Vec<_>>(), &self.chars))
    }

    fn matches(&self, word: &Word) -> Option<Quality> {
        if word.text == self.text {
            Some(Quality::Exact)
        } else if word.stem == self.stem {
            Some(Quality::Stem)
        } else if word.text.starts_with(&self.text) {
            Some(Quality::Prefix)
        } else if self.fuzzy
            && word.chars.len().abs_diff(self.chars.len()) <= 1
            && within_one_edit(&word.chars, &self.chars)
        {
            Some(Quality::Fuzzy)
        } else {
            None
        }
    }
}

/// What one term found in one section.
#[derive(Debug, Clone, Copy, Default)]
struct Found {
    heading: Option<Quality>,
    keywords: Option<Quality>,
    /// Mentions in the text, and the best match among them.
    mentions: u32,
    text: Option<Quality>,
}

impl Found {
    fn best(&self) -> Option<Quality> {
        [self.heading, self.keywords, self.text]
            .into_iter()
            .flatten()
            .min()
    }

    fn points(&self) -> u32 {
        let heading = self.heading.map_or(0, |q| HEADING[q as usize]);
        let keywords = self.keywords.map_or(0, |q| KEYWORD[q as usize]);
        let text = self.text.map_or(0, |q| {
            TEXT_MENTION[q as usize] * self.mentions.min(TEXT_MENTIONS_COUNTED)
        });
        heading.max(keywords) + text
    }
}

impl<'a> SearchIndex<'a> {
    pub fn new(sections: &'a [Section<'a>]) -> Self {
        let mut index = SearchIndex {
            sections,
            words: Vec::new(),
            ids: HashMap::new(),
            heading_words: Vec::with_capacity(sections.len()),
            text_words: Vec::with_capacity(sections.len()),
        };
        for (number, section) in sections.iter().enumerate() {
            for (field, text) in [
                (Field::Heading, section.heading),
                (Field::Keywords, section.keywords),
                (Field::Text, section.text),
            ] {
                let mut counts: HashMap<String, u16> = HashMap::new();
                let mut spans = Vec::new();
                for_each_word(text, true, |span, word, _| {
                    if field == Field::Text {
                        spans.push((span, word.clone()));
                    }
                    let count = counts.entry(word).or_default();
                    *count = count.saturating_add(1);
                });
                if field == Field::Text {
                    let words = spans
                        .into_iter()
                        .map(|(span, word)| (span.start as u32, span.end as u32, index.id(word)))
                        .collect();
                    index.text_words.push(words);
                }
                let mut counts: Vec<_> = counts.into_iter().collect();
                counts.sort_unstable();
                for (word, count) in counts {
                    let id = index.id(word);
                    index.words[id as usize].postings.push(Posting {
                        section: number as u32,
                        field,
                        count,
                    });
                }
            }
            index.heading_words.push(
                section
                    .heading
                    .split(|c: char| !is_word_char(c))
                    .filter(|w| !w.is_empty())
                    .map(str::to_ascii_lowercase)
                    .collect(),
            );
        }
        index
    }

    fn id(&mut self, word: String) -> u32 {
        if let Some(&id) = self.ids.get(&word) {
            return id;
        }
        let id = self.words.len() as u32;
        self.words.push(Word {
            stem: stem(&word),
            chars: word.chars().collect(),
            text: word.clone(),
            postings: Vec::new(),
        });
        self.ids.insert(word, id);
        id
    }

    pub fn len(&self) -> usize {
        self.sections.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
    }

    /// The words of the vocabulary `term` matches, with how.
    fn matching_words(&self, term: &Term) -> Vec<(u32, Quality)> {
        self.words
            .iter()
            .enumerate()
            .filter_map(|(id, word)| term.matches(word).map(|q| (id as u32, q)))
            .collect()
    }

    /// Sections that match every term of `query` (small words and numbers aside), best first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit<'a>> {
        let mut terms: Vec<Term> = terms(query).into_iter().map(Term::new).collect();
        if terms.is_empty() || limit == 0 {
            return Vec::new();
        }
        if terms.iter().all(|t| t.optional) {
            for term in &mut terms {
                term.optional = false;
            }
        }
        let n = self.sections.len();
        // Per section: points, terms missing, terms found only one edit away.
        let mut score = vec![0u32; n];
        let mut missing = vec![0u32; n];
        let mut guessed = vec![0u32; n];
        // Words to highlight in excerpts.
        let mut marked: HashMap<u32, Quality> = HashMap::new();
        let mut found = vec![Found::default(); n];
        for term in &terms {
            found.fill(Found::default());
            for (id, quality) in self.matching_words(term) {
                // Small words are not worth a highlight; numbers are.
                let small = term.optional && !term.text.chars().all(|c| c.is_ascii_digit());
                if !small {
                    let best = marked.entry(id).or_insert(quality);
                    *best = (*best).min(quality);
                }
                for posting in &self.words[id as usize].postings {
                    let f = &mut found[posting.section as usize];
                    let slot = match posting.field {
                        Field::Heading => &mut f.heading,
                        Field::Keywords => &mut f.keywords,
                        Field::Text => {
                            f.mentions += u32::from(posting.count);
                            &mut f.text
                        }
                    };
                    *slot = Some(slot.map_or(quality, |q| q.min(quality)));
                }
            }
            for (section, f) in found.iter().enumerate() {
                match f.best() {
                    None if !term.optional => missing[section] += 1,
                    None => {}
                    // A guessed small word or number says nothing.
                    Some(Quality::Fuzzy) if term.optional => {}
                    Some(quality) => {
                        let points = f.points();
                        score[section] += if term.optional {
                            points / OPTIONAL_DIVISOR
                        } else {
                            points
                        };
                        if quality == Quality::Fuzzy {
                            guessed[section] += 1;
                        }
                    }
                }
            }
        }
        let mut ranked: Vec<(u32, u32, usize)> = (0..n)
            .filter(|&s| missing[s] == 0)
            .map(|s| {
                // A heading that is exactly the query is the place the reader is looking for.
                let bonus = if self.heading_words[s].len() == terms.len()
                    && self.heading_words[s]
                        .iter()
                        .zip(&terms)
                        .all(|(word, term)| term.is(word))
                {
                    HEADING_IS_QUERY
                } else {
                    0
                };
                (guessed[s], score[s] + bonus, s)
            })
            .collect();
        // Sections found without a guess first, then best score; ties keep the pages' order.
        ranked.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        ranked
            .into_iter()
            .take(limit)
            .map(|(_, score, s)| self.hit(s, score, &marked))
            .collect()
    }

    fn hit(&self, index: usize, score: u32, marked: &HashMap<u32, Quality>) -> Hit<'a> {
        let section = &self.sections[index];
        let text = section.text;
        // Every matching word of the text, with the best quality at each place.
        let spans: Vec<(Range<usize>, Quality)> = self.text_words[index]
            .iter()
            .filter_map(|&(from, to, id)| marked.get(&id).map(|&q| (from as usize..to as usize, q)))
            .collect();
        // The excerpt starts near the first of the best matches.
        let first = spans
            .iter()
            .map(|(_, q)| *q)
            .min()
            .and_then(|best| spans.iter().find(|(_, q)| *q == best))
            .map_or(0, |(span, _)| span.start);
        let mut start = first.saturating_sub(EXCERPT_BEFORE);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        // Begin at a word, not in the middle of one.
        if start > 0 {
            if let Some(space) = text[start..first].find(' ') {
                start += space + 1;
            }
        }
        let mut end = (start + EXCERPT_LENGTH).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if end < text.len() {
            if let Some(space) = text[start..end].rfind(' ') {
                end = start + space;
            }
        }
        let prefix = if start > 0 { "… " } else { "" };
        let suffix = if end < text.len() { " …" } else { "" };
        let excerpt = format!("{prefix}{}{suffix}", &text[start..end]);
        let shift = |at: usize| at - start + prefix.len();
        let mut marks: Vec<(usize, usize)> = spans
            .into_iter()
            .filter(|(span, _)| span.start >= start && span.end <= end)
            .map(|(span, _)| (shift(span.start), shift(span.end)))
            .collect();
        marks.sort_unstable();
        // A compound and its parts overlap: keep one mark over the whole.
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(marks.len());
        for (from, to) in marks {
            match merged.last_mut() {
                Some(last) if from < last.1 => last.1 = last.1.max(to),
                _ => merged.push((from, to)),
            }
        }
        Hit {
            section,
            score,
            excerpt,
            marks: merged,
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
            keywords: "",
            text: "RoCE v2 carries the BTH over UDP; the GID picks the source address.",
        },
        Section {
            path: "/dcqcn",
            anchor: "",
            heading: "DCQCN",
            keywords: "",
            text: "The congestion control loop of RoCE.",
        },
        Section {
            path: "/troubleshooting",
            anchor: "roce-gid-index-wrong",
            heading: "RoCE GID index wrong",
            keywords: "",
            text: "NCCL picks a GID of the wrong type.",
        },
        Section {
            path: "/nccl",
            anchor: "pxn",
            heading: "PXN",
            keywords: "",
            text: "PCI and NVLink: DCQCN is not involved.",
        },
    ];

    fn section(
        path: &'static str,
        heading: &'static str,
        keywords: &'static str,
        text: &'static str,
    ) -> Section<'static> {
        Section {
            path,
            anchor: "",
            heading,
            keywords,
            text,
        }
    }

    #[test]
    fn stems_join_the_forms_of_a_word() {
        for (a, b) in [
            ("sockets", "socket"),
            ("retries", "retry"),
            ("marking", "marked"),
            ("marks", "mark"),
            ("dropped", "drop"),
            ("queues", "queued"),
            ("switches", "switch"),
            ("senders", "send"),
            ("registering", "registers"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} and {b}");
        }
        for word in ["mlx5", "nccl_ib_hca", "ring", "status", "pfc", "string"] {
            assert_eq!(stem(word), word);
        }
    }

    #[test]
    fn one_edit_is_an_insertion_deletion_substitution_or_swap() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        for (a, b) in [
            ("dcqnc", "dcqcn"),
            ("sokcet", "socket"),
            ("socet", "socket"),
            ("sockret", "socket"),
            ("sockat", "socket"),
            ("socket", "socket"),
        ] {
            assert!(within_one_edit(&chars(a), &chars(b)), "{a} ~ {b}");
        }
        for (a, b) in [("dcnqc", "dcqcn"), ("sock", "socket"), ("scoket", "sockte")] {
            assert!(!within_one_edit(&chars(a), &chars(b)), "{a} !~ {b}");
        }
    }

    #[test]
    fn joined_words_match_whole_and_in_parts() {
        assert_eq!(
            terms("slow all-reduce, 3 GB/s"),
            ["slow", "allreduce", "3", "gbs"]
        );
        let sections = [
            section("/a", "Ring", "", "An AllReduce over a ring."),
            section("/b", "Tree", "", "An all-reduce over a tree at 25 GB/s."),
        ];
        let index = SearchIndex::new(&sections);
        assert_eq!(index.search("all-reduce", 10).len(), 2);
        assert_eq!(index.search("allreduce", 10).len(), 2);
        let parts = index.search("reduce", 10);
        assert_eq!(parts.len(), 1, "only the hyphenated form has the part");
        let hit = &index.search("GB/s", 10)[0];
        let (from, to) = hit.marks[0];
        assert_eq!(&hit.excerpt[from..to], "GB/s", "one mark over the whole");
        assert!(index.search("receiver's", 10).is_empty());
    }

    #[test]
    fn a_heading_outranks_keywords_which_outrank_mentions() {
        let sections = [
            section(
                "/mentions",
                "Other",
                "",
                "sockets sockets sockets fallback fallback",
            ),
            section("/keywords", "Transports", "socket fallback", "TCP"),
            section(
                "/heading",
                "NCCL falls back to sockets",
                "fallback",
                "NCCL logs it.",
            ),
        ];
        let index = SearchIndex::new(&sections);
        let order: Vec<&str> = index
            .search("nccl socket fallback", 10)
            .iter()
            .map(|h| h.section.path)
            .collect();
        assert_eq!(order, ["/heading"]);
        let order: Vec<&str> = index
            .search("socket fallback", 10)
            .iter()
            .map(|h| h.section.path)
            .collect();
        assert_eq!(order, ["/heading", "/keywords", "/mentions"]);
    }

    #[test]
    fn a_typo_finds_the_word_but_below_exact_matches() {
        let sections = [
            section("/typo", "Rate timers", "", "The timers of the rate."),
            section("/exact", "Other", "", "A timer."),
        ];
        let index = SearchIndex::new(&sections);
        let order: Vec<&str> = index
            .search("timer", 10)
            .iter()
            .map(|h| h.section.path)
            .collect();
        assert_eq!(order, ["/typo", "/exact"], "a stem is no guess");
        let index = SearchIndex::new(SECTIONS);
        let hits = index.search("dcqnc", 10);
        assert_eq!(hits[0].section.path, "/dcqcn");
        assert!(
            index.search("dcqn", 10).is_empty(),
            "short terms need no typo"
        );
        let sections = [
            section("/guess", "Times", "", ""),
            section("/exact", "Other", "", "timer"),
        ];
        let index = SearchIndex::new(&sections);
        let order: Vec<&str> = index
            .search("timer", 10)
            .iter()
            .map(|h| h.section.path)
            .collect();
        assert_eq!(order, ["/exact", "/guess"]);
    }

    #[test]
    fn small_words_and_numbers_need_not_match() {
        let index = SearchIndex::new(SECTIONS);
        let hits = index.search("why is the congestion control", 10);
        assert_eq!(hits[0].section.path, "/dcqcn");
        assert!(
            index.search("4791", 10).is_empty(),
            "alone, a number must match"
        );
        assert_eq!(index.search("v2 4791", 10)[0].section.path, "/roce");
    }

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
            keywords: "",
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
