//! Arbitrary bytes as a pcap/pcapng file: reading it and decoding every frame must not
//! panic, and the zero-copy reader must agree with the copying one.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    engine::capture::fuzz::capture(data);
});
