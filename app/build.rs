//! Compiles `content/` into the app (see `build/content.rs`): the browser receives finished
//! HTML and a search index, and no Markdown or TOML parser.

#[path = "build/content.rs"]
mod content;

use std::{env, fmt::Write as _, fs, path::PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let content_dir = manifest_dir.join("../content");
    for file in content::watched_files(&content_dir) {
        println!("cargo:rerun-if-changed={}", file.display());
    }

    let pages = content::compile(&content_dir).unwrap_or_else(|message| panic!("{message}"));
    // Broken citations fail the build; the app's tests list every rule a page breaks.
    for page in &pages {
        if let Some(problem) = page
            .problems
            .iter()
            .find(|p| p.message.contains("names no source"))
        {
            panic!("{problem}");
        }
    }

    let mut out = String::from("pub static TOPICS: &[Topic] = &[\n");
    for page in &pages {
        let t = &page.topic;
        writeln!(
            out,
            "    Topic {{ path: {:?}, title: {:?}, group: {:?}, summary: {:?}, view: {:?} }},",
            t.path,
            t.title,
            t.group,
            t.summary,
            t.view.as_deref()
        )
        .expect("writing to a String cannot fail");
    }
    // The texts and the search index are published as files beside the pages (see
    // src/bin/prerender.rs); only native builds hold them, so no wasm module carries them.
    out.push_str("];\n\n#[cfg(not(target_arch = \"wasm32\"))]\npub static TOPIC_TEXTS: &[(&str, &str)] = &[\n");
    for page in &pages {
        writeln!(out, "    ({:?}, {:?}),", page.topic.path, page.html)
            .expect("writing to a String cannot fail");
    }
    out.push_str("];\n\n#[cfg(not(target_arch = \"wasm32\"))]\npub static SEARCH_SECTIONS: &[engine::search::Section<'static>] = &[\n");
    for page in &pages {
        for section in &page.sections {
            writeln!(
                out,
                "    engine::search::Section {{ path: {:?}, anchor: {:?}, heading: {:?}, keywords: {:?}, text: {:?} }},",
                page.topic.path, section.anchor, section.heading, section.keywords, section.text
            )
            .expect("writing to a String cannot fail");
        }
    }
    out.push_str("];\n\npub static COUNTER_NOTES: &[CounterNote] = &[\n");
    let counters: content::CountersFile =
        content::read_toml(&content_dir.join("data/counters.toml"))
            .unwrap_or_else(|message| panic!("{message}"));
    for note in &counters.counter {
        writeln!(
            out,
            "    CounterNote {{ file: {:?}, group: {:?}, meaning: {:?}, topic: {:?} }},",
            note.file, note.group, note.meaning, note.topic
        )
        .expect("writing to a String cannot fail");
    }
    out.push_str("];\n");

    let dest = PathBuf::from(env::var("OUT_DIR").expect("set by cargo")).join("topics.rs");
    fs::write(&dest, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
}
