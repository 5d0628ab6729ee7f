//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) through the same entry
//! points the cargo-fuzz targets call, so every `cargo test` checks that no input the
//! fuzzer kept makes the decoders panic or disagree, without cargo-fuzz or nightly.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "{} holds {} inputs",
        dir.display(),
        files.len()
    );
    for path in &files {
        let bytes = std::fs::read(path).expect("a corpus file reads");
        let outcome = std::panic::catch_unwind(|| run(&bytes));
        assert!(
            outcome.is_ok(),
            "{} makes the {target} target fail",
            path.display()
        );
    }
}

#[test]
fn the_dissect_corpus_replays_clean() {
    replay("dissect", engine::capture::fuzz::frame);
}

#[test]
fn the_capture_corpus_replays_clean() {
    replay("capture", engine::capture::fuzz::capture);
}
