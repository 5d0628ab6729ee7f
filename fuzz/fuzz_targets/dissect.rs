//! Arbitrary bytes as one frame: the dissector and the packet list's fast path must not
//! panic, and must agree (see `engine/src/capture/fuzz.rs`'s `corpus` tests, which replay the corpus).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    engine::capture::fuzz::frame(data);
});
