//! The entry points the fuzz targets (`fuzz/`) and the corpus replay test (below) feed
//! arbitrary bytes to, behind the `fuzzing` feature (and in the engine's own tests).
//! Each runs every decoder the lab has over the input and panics only when two of them
//! disagree, so a crash means either a panic in the engine or a divergence between the
//! packet list's fast path and the dissector.

use super::dissect::dissect;
use super::listing::{decode_capture, packet_row, summarize_frame, summarize_roce, summary_from};
use super::pcap::{read_capture, LinkType};
use crate::wire::roce::{FcsMode, RoceFrameRepr};

/// Frames of a fuzzed capture that also go through the full dissector.
const DISSECTED_FRAMES: usize = 64;

/// `data` as one frame, on each link type.
pub fn frame(data: &[u8]) {
    for link in [LinkType::Ethernet, LinkType::Infiniband] {
        let d = dissect(data, link);
        let fast = summarize_frame(data, link);
        assert_eq!(
            fast,
            summary_from(&d, data),
            "fast path and dissector differ"
        );
    }
    if let Some(s) = summarize_roce(data) {
        assert_eq!(
            s.info().to_string(),
            dissect(data, LinkType::Ethernet).summary,
            "fast path and dissector write different Info columns"
        );
    }
    for fcs in [FcsMode::Absent, FcsMode::Present, FcsMode::Detect] {
        if let Ok(repr) = RoceFrameRepr::parse(data, fcs) {
            let _ = repr.emit();
        }
    }
}

/// `data` as a pcap or pcapng file, every frame decoded.
pub fn capture(data: &[u8]) {
    let file = read_capture(data);
    let decoded = decode_capture(data);
    assert_eq!(
        file.error.as_ref(),
        decoded.error(),
        "the two readers stop differently"
    );
    assert_eq!(decoded.summaries.len(), file.frames.len());
    assert_eq!(decoded.frames.len(), file.frames.len());
    for (f, r) in file.frames.iter().zip(&decoded.frames) {
        assert_eq!(f.data, r.data(data), "the two readers read different bytes");
    }
    for (i, f) in file.frames.iter().enumerate().take(DISSECTED_FRAMES) {
        let row = packet_row(i + 1, f);
        let s = decoded.summaries[i];
        assert_eq!(s.source.to_string(), row.source);
        assert_eq!(
            (s.opcode, s.qpn, s.psn, s.icrc),
            (row.opcode, row.qpn, row.psn, row.icrc)
        );
    }
}

/// The committed fuzz corpus (`fuzz/corpus/<target>/`) replayed through the same entry points
/// the cargo-fuzz targets call, so every `cargo test` checks that no input the fuzzer kept
/// makes the decoders panic or disagree, without cargo-fuzz or nightly.
#[cfg(test)]
mod corpus {
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
        replay("dissect", super::frame);
    }

    #[test]
    fn the_capture_corpus_replays_clean() {
        replay("capture", super::capture);
    }
}
