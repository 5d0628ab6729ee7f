//! The committed sample captures are exactly what the engine generates today.
//! Regenerate them with `cargo run -p engine --example roce_sample` and `--example
//! ib_sample`.

#[test]
fn committed_sample_matches_the_engine() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/samples/roce-sample.pcapng"
    );
    let committed = std::fs::read(path).unwrap_or_default();
    let generated = engine::capture::sample::pcapng().unwrap_or_default();
    assert!(!generated.is_empty());
    assert!(
        committed == generated,
        "{path} is stale or missing; run `cargo run -p engine --example roce_sample`"
    );
}

#[test]
fn committed_infiniband_sample_matches_the_engine() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/samples/ib-sample.pcap"
    );
    let committed = std::fs::read(path).unwrap_or_default();
    let generated = engine::capture::ib_sample::pcap().unwrap_or_default();
    assert!(!generated.is_empty());
    assert!(
        committed == generated,
        "{path} is stale or missing; run `cargo run -p engine --example ib_sample`"
    );
}
