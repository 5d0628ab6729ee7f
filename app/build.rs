//! Compiles `content/` into the app (see `build/content.rs`): the browser receives finished
//! HTML and a search index, and no Markdown or TOML parser.

#[path = "build/content.rs"]
mod content;

use std::{env, fmt::Write as _, fs, path::PathBuf};

/// What the wasm modules hold of `content/`: the topic list and the counters' notes. A wasm
/// build reads and watches only those two files, so editing a page's text rebuilds the
/// native prerenderer, not every wasm module.
const COUNTERS_FILE: &str = "data/counters.toml";

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let content_dir = manifest_dir.join("../content");
    let wasm = env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32");

    let mut texts = String::new();
    let topics = if wasm {
        for file in [content::TOPICS_FILE, COUNTERS_FILE] {
            println!(
                "cargo:rerun-if-changed={}",
                content_dir.join(file).display()
            );
        }
        content::topics(&content_dir).unwrap_or_else(|message| panic!("{message}"))
    } else {
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
        write_texts(&mut texts, &pages);
        pages.into_iter().map(|page| page.topic).collect()
    };
    let mut out = String::from("pub static TOPICS: &[Topic] = &[\n");
    for t in &topics {
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
    out.push_str("];\n\n");
    out.push_str(&texts);
    out.push_str("pub static COUNTER_NOTES: &[CounterNote] = &[\n");
    let counters: content::CountersFile = content::read_toml(&content_dir.join(COUNTERS_FILE))
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

/// The pages' HTML and the search index, which only native builds hold (see
/// src/bin/prerender.rs, which publishes them as files beside the pages).
fn write_texts(out: &mut String, pages: &[content::Page]) {
    out.push_str(
        "#[cfg(not(target_arch = \"wasm32\"))]\npub static TOPIC_TEXTS: &[(&str, &str)] = &[\n",
    );
    for page in pages {
        writeln!(out, "    ({:?}, {:?}),", page.topic.path, page.html)
            .expect("writing to a String cannot fail");
    }
    out.push_str("];\n\n#[cfg(not(target_arch = \"wasm32\"))]\npub static SEARCH_SECTIONS: &[engine::search::Section<'static>] = &[\n");
    for page in pages {
        for section in &page.sections {
            writeln!(
                out,
                "    engine::search::Section {{ path: {:?}, anchor: {:?}, heading: {:?}, keywords: {:?}, text: {:?} }},",
                page.topic.path, section.anchor, section.heading, section.keywords, section.text
            )
            .expect("writing to a String cannot fail");
        }
    }
    out.push_str("];\n\n");
}
