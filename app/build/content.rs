//! Compiles `content/` into what the app shows: topic metadata, each topic's Markdown as
//! HTML with numbered citations and heading anchors, the data tables, and the search sections.
//!
//! It runs in `build.rs`, so the browser gets finished HTML and no Markdown or TOML parser,
//! and in the app's tests, which hold the content to its rules (`Page::problems`).

use std::{
    collections::BTreeMap,
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

use pulldown_cmark::{html, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicEntry {
    pub path: String,
    pub title: String,
    pub group: String,
    pub summary: String,
    /// The interactive view the page has above its text, if any.
    pub view: Option<String>,
}

#[derive(Deserialize)]
struct TopicsFile {
    topic: Vec<TopicEntry>,
}

/// One cited document, as listed in a page's front matter.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub title: String,
    pub publisher: Option<String>,
    pub locator: Option<String>,
    pub url: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    #[serde(default)]
    sources: BTreeMap<String, Source>,
}

/// A stretch of a page under one heading, for the search index.
#[derive(Debug, Clone)]
pub struct Section {
    /// The heading's anchor; empty for the text above the first heading.
    pub anchor: String,
    pub heading: String,
    /// Other words for the section, from the `<!-- search: … -->` line under its heading.
    pub keywords: String,
    pub text: String,
}

/// The line under a heading that lists other words for its section: `<!-- search: a, b -->`.
/// It is an HTML comment, so a Markdown viewer hides it too; the compiler strips it.
pub const SEARCH_LINE: &str = "<!-- search:";

/// Something in a content file that breaks the lab's rules, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
    }
}

/// One topic page, compiled.
#[derive(Debug)]
pub struct Page {
    pub topic: TopicEntry,
    pub html: String,
    pub sections: Vec<Section>,
    /// Every link target of the page, with the line it is on.
    pub links: Vec<(String, usize)>,
    pub problems: Vec<Problem>,
}

/// The file that lists the pages, in sidebar order.
pub const TOPICS_FILE: &str = "topics.toml";

/// The topic list alone (`topics.toml`), in sidebar order.
pub fn topics(content_dir: &Path) -> Result<Vec<TopicEntry>, String> {
    let topics_path = content_dir.join(TOPICS_FILE);
    let text = fs::read_to_string(&topics_path)
        .map_err(|e| format!("cannot read {}: {e}", topics_path.display()))?;
    let topics: TopicsFile = toml::from_str(&text)
        .map_err(|e| format!("{} is not valid: {e}", topics_path.display()))?;
    Ok(topics.topic)
}

/// The topic list and every page, in sidebar order.
pub fn compile(content_dir: &Path) -> Result<Vec<Page>, String> {
    let topics = topics(content_dir)?;
    // Content without a glossary (the rules' own fixtures) links no terms.
    let glossary_file = content_dir.join(GLOSSARY_FILE);
    let glossary = if glossary_file.exists() {
        read_toml(&glossary_file)?
    } else {
        GlossaryFile { term: Vec::new() }
    };
    topics
        .into_iter()
        .map(|topic| compile_page(content_dir, topic, &glossary.term))
        .collect()
}

/// The glossary's data: each term's entry on the /glossary page, and the term every other
/// page links there where it first uses it.
const GLOSSARY_FILE: &str = "data/glossary.toml";
const GLOSSARY_PATH: &str = "/glossary";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlossaryTerm {
    /// As the text writes it: `QP`, `P_Key`, `RoCE v2`.
    pub term: String,
    /// What the abbreviation stands for, if it is one.
    pub name: Option<String>,
    pub meaning: String,
    /// The page (and heading) that explains it.
    pub topic: String,
    pub sources: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlossaryFile {
    pub term: Vec<GlossaryTerm>,
}

/// A term's anchor on the glossary page: `term-p-key` for `P_Key`.
pub fn term_anchor(term: &str) -> String {
    format!("term-{}", anchor(term))
}

/// The first sentence of `text`, ending in a full stop: up to the first `. ` before a
/// capital letter or the first `; `, whichever comes first.
pub fn first_sentence(text: &str) -> String {
    let stops = text.match_indices(". ").filter(|(at, _)| {
        text[at + 2..]
            .chars()
            .next()
            .is_some_and(char::is_uppercase)
    });
    let end = stops
        .chain(text.match_indices("; "))
        .map(|(at, _)| at)
        .min()
        .unwrap_or(text.len());
    format!("{}.", text[..end].trim_end().trim_end_matches('.'))
}

impl GlossaryTerm {
    /// What a page shows beside its first use of the term: what the abbreviation stands for,
    /// and the first sentence of the glossary's entry, so the definition lives in one place.
    pub fn hover_text(&self) -> String {
        let sentence = escape(&first_sentence(&self.meaning));
        match &self.name {
            Some(name) => format!("<b>{}</b>. {sentence}", escape(name)),
            None => sentence,
        }
    }
}

/// A term linked to its glossary entry, with the entry's definition beside it: hidden until
/// the pointer rests on the term or the keyboard focuses it (see `.term-def` in style.css),
/// and the link's accessible description all the time.
pub fn term_link(term: &str, text: &str, hover_html: &str) -> String {
    let def = format!("def-{}", term_anchor(term));
    format!(
        "<span class=\"term-wrap\"><a class=\"term\" href=\"{GLOSSARY_PATH}#{}\" aria-describedby=\"{def}\">{}</a><span class=\"term-def\" role=\"tooltip\" id=\"{def}\">{hover_html}</span></span>",
        term_anchor(term),
        escape(text),
    )
}

/// Where `term` first appears in `text` as a word of its own (a trailing plural `s` may
/// follow), as the byte range to link.
fn find_term(text: &str, term: &str) -> Option<std::ops::Range<usize>> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(at) = text[from..].find(term) {
        let start = from + at;
        let mut end = start + term.len();
        if text[end..].starts_with('s') && !text[end + 1..].starts_with(word) {
            end += 1;
        }
        let before_ok = !text[..start].ends_with(word);
        let after_ok = !text[end..].starts_with(word);
        if before_ok && after_ok {
            return Some(start..end);
        }
        from = start + term.len();
    }
    None
}

/// `content/topics/<slug>.md` for a topic path: `/qp` → `qp`, `/` → `overview`.
pub fn slug(path: &str) -> String {
    match path.trim_matches('/') {
        "" => "overview".to_string(),
        other => other.replace('/', "-"),
    }
}

/// The files a build depends on, so cargo rebuilds when content changes.
pub fn watched_files(content_dir: &Path) -> Vec<PathBuf> {
    let mut files = vec![content_dir.join(TOPICS_FILE)];
    for folder in ["topics", "data"] {
        if let Ok(entries) = fs::read_dir(content_dir.join(folder)) {
            files.extend(entries.filter_map(|e| e.ok().map(|e| e.path())));
        }
        files.push(content_dir.join(folder));
    }
    files
}

fn compile_page(
    content_dir: &Path,
    topic: TopicEntry,
    glossary: &[GlossaryTerm],
) -> Result<Page, String> {
    let slug = slug(&topic.path);
    let file = content_dir.join("topics").join(format!("{slug}.md"));
    let source =
        fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let (front, body, body_line) = split_front_matter(&source)
        .map_err(|message| format!("{}:1: {message}", file.display()))?;
    let front: FrontMatter = toml::from_str(front)
        .map_err(|e| format!("{}: front matter is not valid TOML: {e}", file.display()))?;

    let mut page = Page {
        topic,
        html: String::new(),
        sections: Vec::new(),
        links: Vec::new(),
        problems: Vec::new(),
    };
    let mut citations = Citations::new(&front.sources);
    let locate = |offset: usize| body_line + body[..offset.min(body.len())].matches('\n').count();
    // The glossary's own page defines the terms rather than linking them.
    let terms: Vec<(String, String)> = if page.topic.path == GLOSSARY_PATH {
        Vec::new()
    } else {
        glossary
            .iter()
            .map(|t| (t.term.clone(), t.hover_text()))
            .collect()
    };
    render_markdown(body, &file, &locate, &terms, &mut citations, &mut page);

    let data = data_table(content_dir, &slug, &mut citations, &mut page)?;
    page.html.push_str(&data);

    for key in front.sources.keys() {
        if !citations.order.contains(key) {
            page.problems.push(Problem {
                file: file.clone(),
                line: 1,
                message: format!("source `{key}` is listed but never cited"),
            });
        }
    }
    page.html.push_str(&citations.source_list());
    Ok(page)
}

/// Splits `+++\nTOML\n+++\nbody` and says on which line the body starts.
pub fn split_front_matter(source: &str) -> Result<(&str, &str, usize), String> {
    let Some(rest) = source.strip_prefix("+++\n") else {
        return Err("a topic file starts with `+++` front matter listing its sources".into());
    };
    let Some(end) = rest.find("\n+++\n") else {
        return Err("the front matter has no closing `+++` line".into());
    };
    let front = &rest[..end];
    let body = &rest[end + "\n+++\n".len()..];
    let body_line = 1 + source[..source.len() - body.len()].matches('\n').count();
    Ok((front, body, body_line))
}

/// Numbers citations in the order a reader meets them.
struct Citations<'a> {
    sources: &'a BTreeMap<String, Source>,
    order: Vec<String>,
}

impl<'a> Citations<'a> {
    fn new(sources: &'a BTreeMap<String, Source>) -> Self {
        Citations {
            sources,
            order: Vec::new(),
        }
    }

    /// The superscript for `key`, or `None` when the page lists no such source.
    fn cite(&mut self, key: &str) -> Option<String> {
        self.sources.get(key)?;
        let number = match self.order.iter().position(|k| k == key) {
            Some(index) => index + 1,
            None => {
                self.order.push(key.to_string());
                self.order.len()
            }
        };
        Some(format!(
            "<sup class=\"cite\"><a href=\"#source-{key}\" aria-label=\"source {number}\">[{number}]</a></sup>"
        ))
    }

    fn source_list(&self) -> String {
        if self.order.is_empty() {
            return String::new();
        }
        let mut out = String::from("<section class=\"sources\" aria-labelledby=\"sources\"><h2 id=\"sources\">Sources</h2><ol>");
        for key in &self.order {
            let source = &self.sources[key];
            let _ = write!(out, "<li id=\"source-{key}\">");
            match &source.url {
                Some(url) => {
                    let _ = write!(
                        out,
                        "<a href=\"{}\" rel=\"noopener\">{}</a>",
                        escape(url),
                        escape(&source.title)
                    );
                }
                None => out.push_str(&escape(&source.title)),
            }
            for part in [&source.publisher, &source.locator].into_iter().flatten() {
                let _ = write!(out, ". {}", escape(part));
            }
            out.push_str(".</li>");
        }
        out.push_str("</ol></section>");
        out
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A heading's anchor: lowercase words joined by `-`, other punctuation dropped.
pub fn anchor(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
        } else if (c.is_whitespace() || c == '-') && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Does `text` state a number? Digits inside a name (`RoCE v2`, `mlx5`, `802.1Qbb`, `x16`)
/// do not count; a digit run standing on its own (`4791`, `100 Gb/s`, `2^24`) does.
pub fn states_a_number(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || (matches!(chars[i], '.' | ',')
                    && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit())))
        {
            i += 1;
        }
        let before = start.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i).copied();
        let in_name = before.is_some_and(|c| {
            c.is_alphanumeric()
                || c == '_'
                || c == '-' && start >= 2 && chars[start - 2].is_alphabetic()
        }) || after.is_some_and(|c| c.is_alphabetic() || c == '_');
        if !in_name {
            return true;
        }
    }
    false
}

/// Finds `[^key]` markers: (byte range, key).
fn citation_markers(text: &str) -> Vec<(std::ops::Range<usize>, &str)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(start) = text[from..].find("[^").map(|i| i + from) {
        let Some(len) = text[start + 2..].find(']') else {
            break;
        };
        let key = &text[start + 2..start + 2 + len];
        if !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            found.push((start..start + 3 + len, key));
        }
        from = start + 2;
    }
    found
}

/// A block the numbers rule applies to: a paragraph, a list item's own text, or a table row.
#[derive(Default)]
struct Unit {
    text: String,
    cited: bool,
    line: usize,
}

fn render_markdown(
    body: &str,
    file: &Path,
    locate: &dyn Fn(usize) -> usize,
    terms: &[(String, String)],
    citations: &mut Citations,
    page: &mut Page,
) {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events: Vec<(Event, std::ops::Range<usize>)> =
        Parser::new_ext(body, options).into_offset_iter().collect();
    let mut pass = MarkdownPass::new(file, locate, citations, page, events.len());
    pass.unlinked_terms = terms.to_vec();
    for (event, range) in events {
        pass.event(event, range);
    }
    pass.finish();
}

/// One pass over a page's Markdown events: it writes the HTML events, holds each unit to the
/// numbers rule and gathers the search sections, into the page being compiled.
struct MarkdownPass<'a, 's> {
    file: &'a Path,
    locate: &'a dyn Fn(usize) -> usize,
    citations: &'a mut Citations<'s>,
    page: &'a mut Page,
    out: Vec<Event<'a>>,
    /// The units open around the current text, innermost last.
    units: Vec<Unit>,
    /// The search section being gathered.
    section: Section,
    /// Whether a paragraph, list, table or code block has started since the last heading.
    section_has_blocks: bool,
    /// The open heading: its level, its text so far, and where its placeholder is in `out`.
    heading: Option<(HeadingLevel, String, usize)>,
    /// Text arrives in pieces (`[`, `^key]`); the pieces are joined before looking for
    /// markers. `pending_at` is where the first piece starts in the body.
    pending_text: String,
    pending_at: usize,
    /// Glossary terms this page has not used yet, each with its definition to show beside
    /// it: the first use of each links to its entry.
    unlinked_terms: Vec<(String, String)>,
    /// How many links or code blocks the text is inside: no term link there.
    no_term_links: usize,
}

impl<'a, 's> MarkdownPass<'a, 's> {
    fn new(
        file: &'a Path,
        locate: &'a dyn Fn(usize) -> usize,
        citations: &'a mut Citations<'s>,
        page: &'a mut Page,
        events: usize,
    ) -> Self {
        // The page's top: its title and summary, then any text above the first heading.
        let section = Section {
            anchor: String::new(),
            heading: page.topic.title.clone(),
            keywords: String::new(),
            text: format!("{} ", page.topic.summary),
        };
        MarkdownPass {
            file,
            locate,
            citations,
            page,
            out: Vec::with_capacity(events),
            units: Vec::new(),
            section,
            section_has_blocks: false,
            heading: None,
            pending_text: String::new(),
            pending_at: 0,
            unlinked_terms: Vec::new(),
            no_term_links: 0,
        }
    }

    fn problem(&mut self, line: usize, message: String) {
        self.page.problems.push(Problem {
            file: self.file.to_path_buf(),
            line,
            message,
        });
    }

    fn event(&mut self, event: Event<'a>, range: std::ops::Range<usize>) {
        if !matches!(event, Event::Text(_)) {
            self.flush_text();
        }
        if matches!(
            event,
            Event::Start(
                Tag::Paragraph
                    | Tag::List(_)
                    | Tag::Table(_)
                    | Tag::CodeBlock(_)
                    | Tag::BlockQuote(_)
            )
        ) {
            self.section_has_blocks = true;
        }
        match event {
            Event::Text(text) => {
                if self.pending_text.is_empty() {
                    self.pending_at = range.start;
                }
                self.pending_text.push_str(&text);
            }
            Event::Start(Tag::Heading { level, .. }) => self.start_heading(level, range.start),
            Event::Html(ref html) if html.trim_start().starts_with(SEARCH_LINE) => {
                let line = (self.locate)(range.start);
                self.search_line(html, line);
            }

            Event::End(TagEnd::Heading(level)) => self.end_heading(level),
            Event::Start(Tag::Paragraph | Tag::Item | Tag::TableRow | Tag::TableHead) => {
                // A paragraph inside a list item is its own unit; the item keeps only its loose text.
                self.units.push(Unit {
                    line: (self.locate)(range.start),
                    ..Unit::default()
                });
                self.out.push(event);
            }
            Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::TableRow | TagEnd::TableHead) => {
                self.end_unit();
                self.section.text.push(' ');
                self.out.push(event);
            }
            Event::Start(Tag::Link { ref dest_url, .. }) => {
                let line = (self.locate)(range.start);
                self.page.links.push((dest_url.to_string(), line));
                self.no_term_links += 1;
                self.out.push(event);
            }
            // A diagram or a command keeps its text as written.
            Event::Start(Tag::CodeBlock(_)) => {
                self.no_term_links += 1;
                self.out.push(event);
            }
            Event::End(TagEnd::Link | TagEnd::CodeBlock) => {
                self.no_term_links = self.no_term_links.saturating_sub(1);
                self.out.push(event);
            }
            Event::Code(ref code) => {
                match self.heading.as_mut() {
                    Some((_, text, _)) => text.push_str(code),
                    None => self.section.text.push_str(code),
                }
                self.out.push(event);
            }
            Event::SoftBreak | Event::HardBreak => {
                self.section.text.push(' ');
                if let Some(unit) = self.units.last_mut() {
                    unit.text.push(' ');
                }
                self.out.push(event);
            }
            Event::Start(Tag::TableCell) => {
                if let Some(unit) = self.units.last_mut() {
                    unit.text.push_str(" | ");
                }
                // Cells are words apart in the search text too.
                self.section.text.push(' ');
                self.out.push(event);
            }
            other => self.out.push(other),
        }
    }

    /// Writes `text`, its first use of each glossary term not yet linked on this page as a
    /// link to the term's entry (never inside a link, a code block or a heading).
    fn push_linking_terms(&mut self, text: &str) {
        let mut rest = text;
        if self.heading.is_none() && self.no_term_links == 0 {
            while let Some((index, range)) = self
                .unlinked_terms
                .iter()
                .enumerate()
                .filter_map(|(i, (term, _))| find_term(rest, term).map(|r| (i, r)))
                .min_by_key(|(_, r)| r.start)
            {
                let (term, hover) = self.unlinked_terms.remove(index);
                let href = format!("{GLOSSARY_PATH}#{}", term_anchor(&term));
                self.page.links.push((href, (self.locate)(self.pending_at)));
                self.out
                    .push(Event::Text(CowStr::from(rest[..range.start].to_string())));
                self.out.push(Event::InlineHtml(CowStr::from(term_link(
                    &term,
                    &rest[range.clone()],
                    &hover,
                ))));
                rest = &rest[range.end..];
            }
        }
        self.out.push(Event::Text(CowStr::from(rest.to_string())));
    }

    /// Writes the pending text with its citation markers turned into numbered links, and
    /// adds its plain words to the open unit and to the heading or section.
    fn flush_text(&mut self) {
        if self.pending_text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.pending_text);
        let mut plain = String::new();
        let mut last = 0;
        for (range, key) in citation_markers(&text) {
            plain.push_str(&text[last..range.start]);
            self.push_linking_terms(&text[last..range.start]);
            match self.citations.cite(key) {
                Some(html) => self.out.push(Event::InlineHtml(CowStr::from(html))),
                None => self.problem(
                    (self.locate)(self.pending_at),
                    format!("`[^{key}]` names no source in the front matter"),
                ),
            }
            if let Some(unit) = self.units.last_mut() {
                unit.cited = true;
            }
            last = range.end;
        }
        plain.push_str(&text[last..]);
        self.push_linking_terms(&text[last..]);
        if let Some(unit) = self.units.last_mut() {
            unit.text.push_str(&plain);
        }
        match &mut self.heading {
            Some((_, heading_text, _)) => heading_text.push_str(&plain),
            None => {
                self.section.text.push_str(&plain);
            }
        }
    }

    /// `<!-- search: a, b -->` right under a heading (or above the first one, for the page's
    /// top): the words become the section's keywords, and nothing reaches the HTML.
    fn search_line(&mut self, html: &str, line: usize) {
        let words = html
            .trim()
            .strip_prefix(SEARCH_LINE)
            .and_then(|rest| rest.strip_suffix("-->"))
            .filter(|words| !words.contains('\n') && !words.contains("-->"));
        let Some(words) = words else {
            self.problem(
                line,
                format!("a search line is one line, `{SEARCH_LINE} word, other words -->`"),
            );
            return;
        };
        if self.section_has_blocks {
            self.problem(
                line,
                "put the search line right under its heading, before the section's text".into(),
            );
        }
        if !self.section.keywords.is_empty() {
            self.problem(line, "one search line per heading".into());
        }
        let words: Vec<&str> = words
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            self.problem(line, "the search line lists no words".into());
        }
        // Keywords cite nothing, so they name things and state no figures.
        if let Some(word) = words.iter().find(|w| states_a_number(w)) {
            self.problem(
                line,
                format!("a search word states a number, which it cannot cite: {word:?}"),
            );
        }
        self.section.keywords = words.join(", ");
    }

    fn start_heading(&mut self, level: HeadingLevel, at: usize) {
        if level == HeadingLevel::H1 {
            self.problem(
                (self.locate)(at),
                "use `##` and below: the page's h1 is its title from topics.toml".into(),
            );
        }
        self.heading = Some((level, String::new(), self.out.len()));
        // Placeholder, replaced once the heading's text (and so its anchor) is known.
        self.out.push(Event::Html(CowStr::from(String::new())));
    }

    /// Writes the heading with its anchor and starts the search section it opens.
    fn end_heading(&mut self, level: HeadingLevel) {
        if let Some((_, text, at)) = self.heading.take() {
            let id = anchor(&text);
            self.out[at] = Event::Html(CowStr::from(format!("<{level} id=\"{id}\">")));
            self.out
                .push(Event::Html(CowStr::from(format!("</{level}>\n"))));
            let finished = std::mem::replace(
                &mut self.section,
                Section {
                    anchor: id,
                    heading: text,
                    keywords: String::new(),
                    text: String::new(),
                },
            );
            self.section_has_blocks = false;
            if !finished.text.trim().is_empty() || !finished.anchor.is_empty() {
                self.page.sections.push(finished);
            }
        }
    }

    /// The numbers rule: a unit that states a number cites a source.
    fn end_unit(&mut self) {
        if let Some(unit) = self.units.pop() {
            if states_a_number(&unit.text) && !unit.cited {
                self.problem(
                    unit.line,
                    format!(
                        "states a number but cites no source: {:?}",
                        unit.text.trim().chars().take(90).collect::<String>()
                    ),
                );
            }
        }
    }

    /// Flushes the last text and section, tidies the sections' white space and writes the HTML.
    fn finish(mut self) {
        self.flush_text();
        let section = self.section;
        let page = self.page;
        if !section.text.trim().is_empty() || !section.anchor.is_empty() {
            page.sections.push(section);
        }
        for section in &mut page.sections {
            section.text = section
                .text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
        }
        let start = page.html.len();
        html::push_html(&mut page.html, self.out.into_iter());
        // A code block scrolls sideways on a narrow screen; focusable, a keyboard can scroll it.
        let rendered = page
            .html
            .split_off(start)
            .replace("<pre>", "<pre tabindex=\"0\">");
        page.html.push_str(&rendered);
    }
}

/// Pages with a data file get its table after their text.
fn data_table(
    content_dir: &Path,
    slug: &str,
    citations: &mut Citations,
    page: &mut Page,
) -> Result<String, String> {
    match slug {
        "nccl-env" => nccl_env_table(&content_dir.join("data/nccl-env.toml"), citations, page),
        "bandwidth" => bandwidth_table(&content_dir.join("data/bandwidth.toml"), citations, page),
        "live" => counters_table(&content_dir.join("data/counters.toml"), citations, page),
        "glossary" => glossary_list(&content_dir.join(GLOSSARY_FILE), citations, page),
        _ => Ok(String::new()),
    }
}

fn cite_all(
    keys: &[String],
    file: &Path,
    what: &str,
    citations: &mut Citations,
    page: &mut Page,
) -> String {
    if keys.is_empty() {
        page.problems.push(Problem {
            file: file.to_path_buf(),
            line: 1,
            message: format!("{what} cites no source"),
        });
    }
    let mut out = String::new();
    for key in keys {
        match citations.cite(key) {
            Some(html) => out.push_str(&html),
            None => page.problems.push(Problem {
                file: file.to_path_buf(),
                line: 1,
                message: format!("{what}: source `{key}` is not in the page's front matter"),
            }),
        }
    }
    out
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NcclVariable {
    name: String,
    default: String,
    meaning: String,
    ib: String,
    roce: String,
    no_rdma: String,
    when_to_change: String,
    since: Option<String>,
    sources: Vec<String>,
}

#[derive(Deserialize)]
struct NcclEnvFile {
    variable: Vec<NcclVariable>,
}

pub fn read_toml<T: for<'de> Deserialize<'de>>(file: &Path) -> Result<T, String> {
    let text =
        fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    toml::from_str(&text).map_err(|e| format!("{} is not valid: {e}", file.display()))
}

fn nccl_env_table(
    file: &Path,
    citations: &mut Citations,
    page: &mut Page,
) -> Result<String, String> {
    let data: NcclEnvFile = read_toml(file)?;
    let mut out = String::from(
        "<h2 id=\"variables\">Variables</h2>\n<div class=\"table-scroll\"><table class=\"data-table nccl-env\"><thead><tr>\
         <th scope=\"col\">Variable</th><th scope=\"col\">Default</th>\
         <th scope=\"col\">IB</th><th scope=\"col\">RoCE</th><th scope=\"col\">No RDMA</th>\
         <th scope=\"col\">Meaning</th><th scope=\"col\">When to change it</th><th scope=\"col\">Since</th></tr></thead><tbody>",
    );
    for v in &data.variable {
        let cites = cite_all(&v.sources, file, &v.name, citations, page);
        let id = anchor(&v.name);
        let _ = write!(
            out,
            // The answers (what to set on IB, on RoCE, without RDMA) come before the long
            // explanations, so a row opened by its anchor shows them without scrolling sideways.
            "<tr id=\"{id}\"><th scope=\"row\"><code>{}</code></th><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}{cites}</td><td>{}</td><td>{}</td></tr>",
            // A long name may break after an underscore, so the row names that stay in
            // view on a phone leave room for the rest of the row.
            escape(&v.name).replace('_', "_<wbr>"),
            escape(&v.default),
            escape(&v.ib),
            escape(&v.roce),
            escape(&v.no_rdma),
            escape(&v.meaning),
            escape(&v.when_to_change),
            escape(v.since.as_deref().unwrap_or("—")),
        );
        page.sections.push(Section {
            anchor: id,
            heading: v.name.clone(),
            keywords: String::new(),
            text: format!(
                "{} Default {}. {} {}",
                v.name, v.default, v.meaning, v.when_to_change
            ),
        });
    }
    out.push_str("</tbody></table></div>\n");
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub id: String,
    pub name: String,
    pub family: String,
    pub scope: String,
    pub per_direction_gbit_s: f64,
    pub per_direction_gbyte_s: f64,
    pub bidirectional_gbyte_s: f64,
    /// A latency stated by a primary source, with what it covers (`latency_scope`) and the
    /// source key that states it (`latency_sources`). Rows without one say so.
    pub latency_ns: Option<f64>,
    pub latency_scope: Option<String>,
    #[serde(default)]
    pub latency_sources: Vec<String>,
    pub notes: Option<String>,
    pub sources: Vec<String>,
}

/// What the latency column says for a row whose primary sources state no latency.
pub const NO_PRIMARY_LATENCY: &str = "no primary figure";

/// Largest rounding difference accepted between a row's figures (two decimals each).
const ROUNDING: f64 = 0.02;

/// The checks a row's figures must pass: GB/s is Gb/s over 8, bidirectional is twice the
/// per-direction rate, and a latency names its scope and its source.
fn link_figure_problems(link: &Link) -> Vec<String> {
    let mut out = Vec::new();
    if (link.per_direction_gbit_s / 8.0 - link.per_direction_gbyte_s).abs() > ROUNDING {
        out.push(format!(
            "{}: {} Gb/s is not {} GB/s (GB/s = Gb/s / 8)",
            link.id, link.per_direction_gbit_s, link.per_direction_gbyte_s
        ));
    }
    if (2.0 * link.per_direction_gbyte_s - link.bidirectional_gbyte_s).abs() > ROUNDING {
        out.push(format!(
            "{}: bidirectional {} GB/s is not twice {} GB/s per direction",
            link.id, link.bidirectional_gbyte_s, link.per_direction_gbyte_s
        ));
    }
    match (
        link.latency_ns,
        &link.latency_scope,
        link.latency_sources.is_empty(),
    ) {
        (None, None, true) => {}
        (Some(ns), Some(_), false) if ns > 0.0 => {}
        _ => out.push(format!(
            "{}: a latency needs latency_ns > 0, latency_scope and latency_sources together",
            link.id
        )),
    }
    out
}

#[derive(Deserialize)]
pub struct BandwidthFile {
    pub link: Vec<Link>,
}

fn bandwidth_table(
    file: &Path,
    citations: &mut Citations,
    page: &mut Page,
) -> Result<String, String> {
    let data: BandwidthFile = read_toml(file)?;
    let max = data
        .link
        .iter()
        .map(|l| l.per_direction_gbyte_s)
        .fold(0.0_f64, f64::max);
    let mut chart = String::from(
        "<h2 id=\"link-rates\">Link rates</h2>\n<figure class=\"bar-chart\" aria-labelledby=\"bar-chart-caption\">\
         <figcaption id=\"bar-chart-caption\">Usable data rate per direction, GB/s (gigabytes per second), on a logarithmic scale.</figcaption><ul>",
    );
    let mut table = String::from(
        "<div class=\"table-scroll\"><table class=\"data-table bandwidth\"><thead><tr>\
         <th scope=\"col\">Link</th><th scope=\"col\">Per direction, Gb/s</th><th scope=\"col\">Per direction, GB/s</th>\
         <th scope=\"col\">Bidirectional, Gb/s</th><th scope=\"col\">Bidirectional, GB/s</th><th scope=\"col\">Latency</th><th scope=\"col\">Connects</th><th scope=\"col\">Notes</th></tr></thead><tbody>",
    );
    for link in &data.link {
        for message in link_figure_problems(link) {
            page.problems.push(Problem {
                file: file.to_path_buf(),
                line: 1,
                message,
            });
        }
        let cites = cite_all(&link.sources, file, &link.id, citations, page);
        // A log scale keeps a 12.5 GB/s TCP link visible beside a 128 GB/s PCIe Gen6 one.
        let share = if max > 1.0 && link.per_direction_gbyte_s > 1.0 {
            (link.per_direction_gbyte_s.log10() / max.log10() * 100.0).clamp(2.0, 100.0)
        } else {
            2.0
        };
        let _ = write!(
            chart,
            "<li class=\"bar family-{}\"><span class=\"bar-label\">{}</span><span class=\"bar-track\"><span class=\"bar-fill\" style=\"width:{share:.1}%\"></span></span><span class=\"bar-value\">{} GB/s</span></li>",
            anchor(&link.family),
            escape(&link.name),
            link.per_direction_gbyte_s
        );
        let latency = match (link.latency_ns, &link.latency_scope) {
            (Some(ns), Some(scope)) => {
                let latency_cites = cite_all(
                    &link.latency_sources,
                    file,
                    &format!("{} latency", link.id),
                    citations,
                    page,
                );
                format!("{ns} ns ({}){latency_cites}", escape(scope))
            }
            _ => NO_PRIMARY_LATENCY.to_string(),
        };
        let _ = write!(
            table,
            "<tr id=\"{}\"><th scope=\"row\">{}{cites}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{latency}</td><td>{}</td><td>{}</td></tr>",
            escape(&link.id),
            escape(&link.name),
            link.per_direction_gbit_s,
            link.per_direction_gbyte_s,
            round2(2.0 * link.per_direction_gbit_s),
            link.bidirectional_gbyte_s,
            escape(&link.scope),
            escape(link.notes.as_deref().unwrap_or("")),
        );
        page.sections.push(Section {
            anchor: link.id.clone(),
            heading: link.name.clone(),
            keywords: String::new(),
            text: format!(
                "{} {} Gb/s per direction, {} GB/s per direction, {} Gb/s bidirectional, {} GB/s bidirectional. Latency: {}. {}",
                link.name,
                link.per_direction_gbit_s,
                link.per_direction_gbyte_s,
                round2(2.0 * link.per_direction_gbit_s),
                link.bidirectional_gbyte_s,
                match (link.latency_ns, &link.latency_scope) {
                    (Some(ns), Some(scope)) => format!("{ns} ns, {scope}"),
                    _ => NO_PRIMARY_LATENCY.to_string(),
                },
                link.scope
            ),
        });
    }
    chart.push_str("</ul></figure>\n");
    table.push_str("</tbody></table></div>\n");
    Ok(chart + &table)
}

/// Rounds to two decimals, the precision of the data file.
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// One counter the live view explains.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterNote {
    pub file: String,
    pub group: String,
    /// The probe's `/metrics` name for it (native-probe checks the names themselves).
    pub metric: String,
    /// The unit of that metric's value.
    pub unit: String,
    pub meaning: String,
    pub topic: String,
    pub sources: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountersFile {
    pub counter: Vec<CounterNote>,
}

/// The glossary page's entries: a definition list, one anchor per term.
fn glossary_list(
    file: &Path,
    citations: &mut Citations,
    page: &mut Page,
) -> Result<String, String> {
    let data: GlossaryFile = read_toml(file)?;
    let mut out = String::from("<dl class=\"glossary\">");
    for entry in &data.term {
        let cites = cite_all(&entry.sources, file, &entry.term, citations, page);
        page.links.push((entry.topic.clone(), 1));
        let id = term_anchor(&entry.term);
        let name = entry
            .name
            .as_ref()
            .map(|n| format!(" <span class=\"glossary-name\">({})</span>", escape(n)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<dt id=\"{id}\">{}{name}</dt><dd>{}{cites} <a href=\"{}\">More on its page</a>.</dd>",
            escape(&entry.term),
            escape(&entry.meaning),
            escape(&entry.topic),
        );
        // Not a search section of its own: searching a term should land on the page that
        // explains it, which the entry links to.
    }
    out.push_str("</dl>\n");
    Ok(out)
}

fn counters_table(
    file: &Path,
    citations: &mut Citations,
    page: &mut Page,
) -> Result<String, String> {
    let data: CountersFile = read_toml(file)?;
    let mut out = String::from(
        "<div class=\"table-scroll\"><table class=\"data-table counters\"><thead><tr>\
         <th scope=\"col\">Counter</th><th scope=\"col\">Where</th><th scope=\"col\">What it counts</th>\
         <th scope=\"col\">In /metrics (unit)</th><th scope=\"col\">Explained on</th></tr></thead><tbody>",
    );
    for note in &data.counter {
        if !matches!(note.group.as_str(), "port" | "port_ext" | "hw" | "netdev") {
            page.problems.push(Problem {
                file: file.to_path_buf(),
                line: 1,
                message: format!(
                    "{}: group must be port, port_ext, hw or netdev, not {:?}",
                    note.file, note.group
                ),
            });
        }
        let cites = cite_all(&note.sources, file, &note.file, citations, page);
        page.links.push((note.topic.clone(), 1));
        let where_ = match note.group.as_str() {
            "port" => "ports/&lt;n&gt;/counters",
            "port_ext" => "ports/&lt;n&gt;/counters_ext",
            "hw" => "ports/&lt;n&gt;/hw_counters",
            _ => "class/net/&lt;if&gt;/statistics",
        };
        let id = format!("counter-{}", anchor(&note.file));
        let _ = write!(
            out,
            "<tr id=\"{id}\"><th scope=\"row\"><code>{}</code></th><td><code>{where_}</code></td><td>{}{cites}</td><td><code>{}</code> ({})</td><td><a href=\"{}\">{}</a></td></tr>",
            escape(&note.file),
            escape(&note.meaning),
            escape(&note.metric),
            escape(&note.unit),
            escape(&note.topic),
            escape(&note.topic),
        );
        page.sections.push(Section {
            anchor: id,
            heading: note.file.clone(),
            keywords: String::new(),
            text: format!("{} {} {}", note.file, note.metric, note.meaning),
        });
    }
    out.push_str("</tbody></table></div>\n");
    Ok(out)
}
