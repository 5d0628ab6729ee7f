//! Compiles `content/topics.toml` into the app, so the sidebar and page headings come from
//! the content files without shipping a TOML parser to the browser.

use std::{env, fmt::Write as _, fs, path::PathBuf};

#[derive(serde::Deserialize)]
struct Topics {
    topic: Vec<TopicEntry>,
}

#[derive(serde::Deserialize)]
struct TopicEntry {
    path: String,
    title: String,
    group: String,
    summary: String,
}

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let source = manifest_dir.join("../content/topics.toml");
    println!("cargo:rerun-if-changed={}", source.display());

    let text = fs::read_to_string(&source)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", source.display()));
    let topics: Topics =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid: {e}", source.display()));

    let mut out = String::from("pub static TOPICS: &[Topic] = &[\n");
    for t in &topics.topic {
        writeln!(
            out,
            "    Topic {{ path: {:?}, title: {:?}, group: {:?}, summary: {:?} }},",
            t.path, t.title, t.group, t.summary
        )
        .expect("writing to a String cannot fail");
    }
    out.push_str("];\n");

    let dest = PathBuf::from(env::var("OUT_DIR").expect("set by cargo")).join("topics.rs");
    fs::write(&dest, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
}
