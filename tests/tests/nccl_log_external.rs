//! The NCCL log explainer against real users' logs kept outside the repository (issue #21):
//! when `LAB_NCCL_LOGS` names a directory, every `NAME.log` there (a log as its user pasted
//! it) with its `NAME.toml` (the diagnosis the thread reached) is read by `engine::nccl_log`
//! and the summary and findings compared with what the TOML says. The logs are not ours to
//! copy into the repository; this file only holds the harness and its own test.
//!
//! `NAME.toml` (every key optional except `source`; unknown keys are refused by name):
//!
//! ```toml
//! source = "https://github.com/NVIDIA/nccl/issues/NNN"   # where the log and diagnosis are
//! inter_node_transport = "Socket"   # "IB", "RoCE", "Socket" or "none"
//! gdr_used = false
//! nranks = 16
//! nnodes = 2
//! topics = ["/troubleshooting#nccl-falls-back-to-sockets"]   # findings that must be there
//! absent_topics = ["/troubleshooting#retry-exceeded"]        # findings that must not
//! ```
//!
//! Run with `LAB_NCCL_LOGS=DIR ./lab external`.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use engine::nccl_log::{diagnose, parse};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    source: String,
    inter_node_transport: Option<String>,
    gdr_used: Option<bool>,
    nranks: Option<u32>,
    nnodes: Option<usize>,
    #[serde(default)]
    topics: Vec<String>,
    #[serde(default)]
    absent_topics: Vec<String>,
}

/// What one log's reading got wrong against its TOML; empty when it agrees.
fn check(name: &str, log_text: &str, toml_text: &str) -> Result<Vec<String>, String> {
    let expected: Expected = toml::from_str(toml_text).map_err(|e| format!("{name}.toml: {e}"))?;
    let log = parse(log_text);
    let summary = log.summary();
    let findings = diagnose(&log);
    let mut wrong = Vec::new();
    let transport = serde_json::to_value(summary.inter_node_transport)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string));
    if let Some(want) = &expected.inter_node_transport {
        if transport.as_deref() != Some(want.as_str()) {
            wrong.push(format!(
                "inter_node_transport {transport:?}, expected {want:?}"
            ));
        }
    }
    if expected.gdr_used.is_some() && summary.gdr_used != expected.gdr_used {
        wrong.push(format!(
            "gdr_used {:?}, expected {:?}",
            summary.gdr_used, expected.gdr_used
        ));
    }
    if expected.nranks.is_some() && summary.nranks != expected.nranks {
        wrong.push(format!(
            "nranks {:?}, expected {:?}",
            summary.nranks, expected.nranks
        ));
    }
    if expected.nnodes.is_some() && summary.nnodes != expected.nnodes {
        wrong.push(format!(
            "nnodes {:?}, expected {:?}",
            summary.nnodes, expected.nnodes
        ));
    }
    for t in &expected.topics {
        if !findings.iter().any(|f| f.topic == t) {
            wrong.push(format!("no finding links to {t}"));
        }
    }
    for t in &expected.absent_topics {
        if findings.iter().any(|f| f.topic == t) {
            wrong.push(format!(
                "a finding links to {t}, which the diagnosis rules out"
            ));
        }
    }
    Ok(wrong
        .into_iter()
        .map(|w| format!("{name} ({}): {w}", expected.source))
        .collect())
}

/// A log and its diagnosis, either of which may be missing from the directory.
type Pair = (Option<PathBuf>, Option<PathBuf>);

/// Every `NAME.log` / `NAME.toml` pair in `dir`, by name.
fn pairs(dir: &Path) -> Result<BTreeMap<String, Pair>, String> {
    let mut pairs: BTreeMap<String, Pair> = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let (Some(stem), Some(ext)) = (path.file_stem(), path.extension()) else {
            continue;
        };
        let slot = pairs
            .entry(stem.to_string_lossy().into_owned())
            .or_default();
        match ext.to_str() {
            Some("log") => slot.0 = Some(path.clone()),
            Some("toml") => slot.1 = Some(path.clone()),
            _ => {}
        }
    }
    Ok(pairs)
}

/// Checks a directory; every problem, located by file.
fn check_dir(dir: &Path) -> Result<usize, Vec<String>> {
    let pairs = pairs(dir).map_err(|e| vec![e])?;
    if pairs.is_empty() {
        return Err(vec![format!(
            "{}: no NAME.log / NAME.toml pairs",
            dir.display()
        )]);
    }
    let mut problems = Vec::new();
    for (name, paths) in &pairs {
        let (Some(log), Some(toml)) = paths else {
            problems.push(format!(
                "{name}.log and {name}.toml go together; one is missing"
            ));
            continue;
        };
        // A pasted log may carry stray bytes; read it as the CLI does.
        let log_text = std::fs::read(log)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("{}: {e}", log.display()));
        let toml_text =
            std::fs::read_to_string(toml).map_err(|e| format!("{}: {e}", toml.display()));
        match (log_text, toml_text) {
            (Ok(l), Ok(t)) => match check(name, &l, &t) {
                Ok(wrong) => problems.extend(wrong),
                Err(e) => problems.push(e),
            },
            (Err(e), _) | (_, Err(e)) => problems.push(e),
        }
    }
    if problems.is_empty() {
        Ok(pairs.len())
    } else {
        Err(problems)
    }
}

#[test]
#[ignore = "needs LAB_NCCL_LOGS, a folder of NCCL logs with their diagnoses: `./lab external`"]
fn logs_kept_outside_the_repository_read_as_their_threads_diagnosed() {
    let dir = std::env::var_os("LAB_NCCL_LOGS").expect(
        "LAB_NCCL_LOGS names the folder of logs to check; run `LAB_NCCL_LOGS=DIR ./lab external`",
    );
    match check_dir(Path::new(&dir)) {
        Ok(n) => println!("{n} external logs read as their diagnoses say"),
        Err(problems) => panic!("{}", problems.join("\n")),
    }
}

/// The harness on a log we write ourselves from NCCL's format strings (NVIDIA/nccl
/// v2.18.3-1 src/misc/ibvsymbols.cc:78, src/transport/net_socket.cc:62, src/init.cc:1375,
/// src/transport/net.cc:186): it passes a right diagnosis and names each wrong one.
#[test]
fn the_harness_agrees_and_disagrees_where_it_should() {
    let log = "n1:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]\n\
               n1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n\
               n1:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
               n2:3:4 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
               n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n";
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::fs::write(dir.join("fallback.log"), log).unwrap();
    std::fs::write(
        dir.join("fallback.toml"),
        "source = \"written here\"\ninter_node_transport = \"Socket\"\ngdr_used = false\n\
         nranks = 2\nnnodes = 2\ntopics = [\"/troubleshooting#nccl-falls-back-to-sockets\"]\n",
    )
    .unwrap();
    assert_eq!(check_dir(dir), Ok(1));

    std::fs::write(
        dir.join("fallback.toml"),
        "source = \"written here\"\ninter_node_transport = \"IB\"\n\
         absent_topics = [\"/troubleshooting#nccl-falls-back-to-sockets\"]\n",
    )
    .unwrap();
    let problems = check_dir(dir).unwrap_err();
    assert_eq!(problems.len(), 2, "{problems:?}");

    std::fs::write(
        dir.join("fallback.toml"),
        "source = \"x\"\nverdict = \"sockets\"\n",
    )
    .unwrap();
    let problems = check_dir(dir).unwrap_err();
    assert!(
        problems[0].contains("verdict"),
        "unknown keys are named: {problems:?}"
    );

    std::fs::remove_file(dir.join("fallback.toml")).unwrap();
    let problems = check_dir(dir).unwrap_err();
    assert!(problems[0].contains("go together"), "{problems:?}");
}
