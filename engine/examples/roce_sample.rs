//! Writes the lab's sample capture, `assets/samples/roce-sample.pcapng`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bytes = engine::capture::sample::pcapng()?;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/samples/roce-sample.pcapng"
    );
    std::fs::write(path, &bytes)?;
    println!("wrote {} bytes to {path}", bytes.len());
    Ok(())
}
