//! `native-probe nccl-log`: explains an NCCL_DEBUG=INFO log with the engine's reader
//! (`engine::nccl_log`), as text for people or JSON for scripts.

use std::{
    fs,
    io::{self, Read},
    path::Path,
};

use engine::nccl_log::{diagnose, parse, Finding, InterNodeTransport, Severity, Summary};
use serde::Serialize;

use crate::{cli::NcclLogArgs, output};

/// What `--json` prints: the summary's keys, then the findings.
#[derive(Debug, Serialize)]
struct Report {
    #[serde(flatten)]
    summary: Summary,
    findings: Vec<Finding>,
}

/// A finding of error severity: the run exits 1 after printing.
#[derive(Debug)]
struct ErrorsFound(usize);

impl std::fmt::Display for ErrorsFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} finding(s) of error severity (listed above)", self.0)
    }
}

impl std::error::Error for ErrorsFound {}

fn read(path: &Path) -> Result<String, String> {
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        bytes
    } else {
        fs::read(path).map_err(|e| {
            format!(
                "cannot read {}: {e} (give a log file, or - to read standard input)",
                path.display()
            )
        })?
    };
    // A pasted log may carry stray bytes (terminal colours cut in half); keep every line.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub fn run(args: &NcclLogArgs) -> Result<(), Box<dyn std::error::Error>> {
    let text = read(&args.file)?;
    let log = parse(&text);
    let report = Report {
        summary: log.summary(),
        findings: diagnose(&log),
    };
    let out = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        explain(&report)
    };
    output::to_stdout(|o| o.write_all(out.as_bytes()))?;
    let errors = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if errors > 0 {
        return Err(ErrorsFound(errors).into());
    }
    Ok(())
}

fn or_unknown<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map_or_else(|| "not in the log".to_string(), T::to_string)
}

fn lines(lines: &[usize]) -> String {
    lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The summary and the findings, for people.
fn explain(r: &Report) -> String {
    let s = &r.summary;
    let transport = match (s.inter_node_transport, s.inter_node_network.as_deref()) {
        (Some(InterNodeTransport::IB), _) => "InfiniBand (NET/IB)".to_string(),
        (Some(InterNodeTransport::RoCE), _) => "RoCE (NET/IB over Ethernet)".to_string(),
        (Some(InterNodeTransport::Socket), _) => "TCP sockets (NET/Socket)".to_string(),
        (Some(InterNodeTransport::None), _) => "none (one host)".to_string(),
        (None, Some(net)) if net.starts_with("IB") => {
            format!("NCCL's IB verbs transport ({net}); InfiniBand or RoCE not in the log")
        }
        (None, Some(net)) => format!("the network `{net}`"),
        (None, None) => "not in the log".to_string(),
    };
    let gdr = match s.gdr_used {
        Some(true) => "yes",
        Some(false) => "no",
        None => "not in the log",
    };
    let intra: Vec<String> = s.intra_node.iter().map(|t| format!("{t:?}")).collect();
    let mut out = format!(
        "NCCL {} (CUDA {})\nranks: {}, hosts: {}\nbetween hosts: {transport}\nGPUDirect RDMA: {gdr}\n\
         inside a host: {}\n",
        or_unknown(&s.nccl_version),
        or_unknown(&s.cuda_version),
        or_unknown(&s.nranks),
        match (s.nnodes, s.multi_node) {
            (Some(n), _) => n.to_string(),
            (None, Some(true)) => "more than one (how many is not in the log)".to_string(),
            (None, _) => "not in the log".to_string(),
        },
        if intra.is_empty() {
            "not in the log".to_string()
        } else {
            intra.join(", ")
        },
    );
    out.push_str("where each came from:\n");
    for f in &s.sources {
        if f.known {
            out.push_str(&format!(
                "  {}: line {} ({})\n",
                f.fact,
                lines(&f.lines),
                f.reading
            ));
        } else {
            out.push_str(&format!("  {}: unknown; {}\n", f.fact, f.reading));
        }
    }
    if !s.env.is_empty() {
        out.push_str("set in the environment:\n");
        for e in &s.env {
            out.push_str(&format!(
                "  {}={} (line {})\n",
                e.name,
                e.value,
                lines(&e.lines)
            ));
        }
    }
    out.push('\n');
    for f in &r.findings {
        let mark = match f.severity {
            Severity::Info => "i",
            Severity::Warning => "!",
            Severity::Error => "✗",
        };
        out.push_str(&format!("{mark} {}\n  {}\n", f.title, f.explanation));
        if !f.lines.is_empty() {
            out.push_str(&format!("  log lines: {}\n", lines(&f.lines)));
        }
        out.push_str(&format!("  explained at the lab's {}\n", f.topic));
    }
    out
}
