//! Writes the lab's InfiniBand sample capture, `assets/samples/ib-sample.pcap`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bytes = engine::capture::ib_sample::pcap()?;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/samples/ib-sample.pcap"
    );
    std::fs::write(path, &bytes)?;
    println!("wrote {} bytes to {path}", bytes.len());
    Ok(())
}
