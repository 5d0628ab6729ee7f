//! `native-probe serve` as a learner runs it: the real binary, a real socket, a site folder.

use std::{
    io::Read,
    net::TcpListener,
    path::Path,
    process::{Command, Output, Stdio},
    time::Duration,
};

use lab_tests::{
    loopback::{self, Answer},
    probe::Probe as Running,
};
use tempfile::TempDir;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");
const WASM_NAME: &str = "app-0123456789abcdef_bg.wasm";
/// A view module as `./lab` lays it out: plain names inside a folder named by their hash.
const VIEW_MODULE: &str = "views/qp-0123456789abcdef/qp.js";
const INDEX: &str = "<!DOCTYPE html><html><head><title>rdma-lab</title></head><body></body></html>";

/// A small built site: index.html and a fingerprinted wasm file, as trunk lays them out.
/// Removed when dropped.
fn site_dir(name: &str) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("rdma-lab-serve-{name}-"))
        .tempdir()
        .unwrap();
    std::fs::write(dir.path().join("index.html"), INDEX).unwrap();
    // Compressible like real wasm: the magic number, then repetitive sections.
    let mut wasm = b"\0asm\x01\0\0\0".to_vec();
    wasm.extend(std::iter::repeat_n(b"rdma-lab ".as_slice(), 4000).flatten());
    std::fs::write(dir.path().join(WASM_NAME), wasm).unwrap();
    let view = dir.path().join(VIEW_MODULE);
    std::fs::create_dir_all(view.parent().unwrap()).unwrap();
    std::fs::write(view, "export default function init() {}").unwrap();
    dir
}

/// A running `native-probe serve` on an ephemeral port; stopped when dropped.
struct Probe(Running);

impl Probe {
    fn start(ui: &Path) -> Probe {
        let mut command = Command::new(PROBE);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--ui"])
            .arg(ui);
        Probe(Running::spawn(command))
    }

    async fn get(&self, path: &str, accept_encoding: Option<&str>) -> Answer {
        let headers: Vec<_> = accept_encoding
            .map(|encoding| ("accept-encoding", encoding))
            .into_iter()
            .collect();
        loopback::get(self.0.addr(), path, &headers).unwrap()
    }
}

fn header<'a>(response: &'a Answer, name: &str) -> &'a str {
    response.field(name)
}

#[tokio::test]
async fn serves_the_site_with_types_compression_and_caching() {
    let dir = site_dir("types");
    let probe = Probe::start(dir.path());

    let index = probe.get("/", None).await;
    assert_eq!(index.status, 200);
    assert!(header(&index, "content-type").starts_with("text/html"));
    assert_eq!(header(&index, "cache-control"), "no-cache");
    assert_eq!(index.text(), INDEX);

    let wasm = probe.get(&format!("/{WASM_NAME}"), Some("gzip")).await;
    assert_eq!(wasm.status, 200);
    assert_eq!(header(&wasm, "content-type"), "application/wasm");
    assert_eq!(header(&wasm, "content-encoding"), "gzip");
    assert_eq!(
        header(&wasm, "cache-control"),
        "public, max-age=31536000, immutable"
    );
    let compressed = wasm.body;
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut plain)
        .unwrap();
    assert_eq!(plain, std::fs::read(dir.path().join(WASM_NAME)).unwrap());
    assert!(
        compressed.len() * 10 < plain.len(),
        "gzip shrinks the repetitive test file"
    );

    let brotli = probe.get(&format!("/{WASM_NAME}"), Some("br")).await;
    assert_eq!(header(&brotli, "content-encoding"), "br");

    // A view module's files keep their plain names; their folder carries the hash.
    let view = probe.get(&format!("/{VIEW_MODULE}"), None).await;
    assert_eq!(view.status, 200);
    assert!(header(&view, "content-type").contains("javascript"));
    assert_eq!(
        header(&view, "cache-control"),
        "public, max-age=31536000, immutable"
    );
}

#[tokio::test]
async fn app_routes_get_index_html_and_missing_files_get_404() {
    let dir = site_dir("routes");
    let probe = Probe::start(dir.path());
    for route in ["/qp", "/nccl-env", "/no/such/page"] {
        let response = probe.get(route, None).await;
        assert_eq!(response.status, 200, "{route}");
        assert!(
            header(&response, "content-type").starts_with("text/html"),
            "{route}"
        );
        assert_eq!(response.text(), INDEX, "{route}");
    }
    let missing = probe.get("/app-ffffffffffffffff.js", None).await;
    assert_eq!(missing.status, 404);
}

fn run_to_end(args: &[&str]) -> Output {
    let mut child = Command::new(PROBE)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if lab_tests::probe::exited_within(&mut child, Duration::from_secs(10)).is_some() {
        return child.wait_with_output().unwrap();
    }
    let _ = child.kill();
    panic!("native-probe {args:?} kept running instead of failing");
}

#[test]
fn missing_or_empty_site_folder_says_what_to_run() {
    let missing = run_to_end(&["serve", "--ui", "/nonexistent/rdma-lab-dist"]);
    assert!(!missing.status.success());
    let message = String::from_utf8_lossy(&missing.stderr);
    assert!(
        message.contains("/nonexistent/rdma-lab-dist does not exist"),
        "{message}"
    );
    assert!(message.contains("./lab run"), "{message}");

    let empty = tempfile::Builder::new()
        .prefix("rdma-lab-empty-")
        .tempdir()
        .unwrap();
    let output = run_to_end(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--ui",
        empty.path().to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("has no index.html"), "{message}");
}

#[test]
fn a_port_in_use_is_reported_with_a_way_out() {
    let dir = site_dir("busy");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let output = run_to_end(&[
        "serve",
        "--listen",
        &addr,
        "--ui",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("already in use"), "{message}");
    assert!(message.contains("--listen 127.0.0.1:0"), "{message}");
}

#[test]
fn sigterm_and_ctrl_c_stop_the_server_cleanly() {
    for signal in ["TERM", "INT"] {
        let dir = site_dir(&format!("signal-{signal}"));
        let Probe(mut probe) = Probe::start(dir.path());
        let status = Command::new("kill")
            .args([format!("-{signal}"), probe.pid().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let status = probe
            .exited_within(Duration::from_secs(5))
            .unwrap_or_else(|| panic!("SIG{signal} did not stop the server"));
        assert!(
            status.success(),
            "SIG{signal} ends with success, got {status}"
        );
        let rest = probe.rest_of_stdout();
        assert!(rest.contains("stopped"), "{rest:?}");
    }
}
