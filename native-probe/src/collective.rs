//! `native-probe collective`: NCCL's cost model (engine `collective`) on named machines, as
//! an nccl-tests-like table for people or JSON for scripts.

use engine::collective::{
    estimate, parse_size, sweep, Algorithm, Bottleneck, Collective, CollectiveError,
    CollectiveReport, CollectiveRequest, Estimate, GpuModel, Machines, NicModel, Protocol,
    NCCL_TAG,
};
use serde::Serialize;

use crate::{cli::CollectiveArgs, flags::FieldFlags, output};

/// The engine's field paths and the flags that set them, for error messages.
const FLAGS: FieldFlags = FieldFlags(&[
    ("cluster.nodes", "--nodes"),
    ("cluster.gpus_per_node", "--gpus-per-node"),
    ("cluster.nics_per_node", "--nics-per-node"),
    ("nic", "--nic"),
    ("sharp", "--sharp"),
    ("bytes", "--bytes"),
]);

/// One line of output: an algorithm/protocol pair at one size.
#[derive(Debug, Serialize)]
struct Row {
    bytes: f64,
    algo: &'static str,
    proto: &'static str,
    time_us: f64,
    algbw_gbs: f64,
    busbw_gbs: f64,
    bottleneck: Bottleneck,
    latency_bound: bool,
    /// NCCL's automatic choice among the pairs allowed.
    chosen: bool,
}

#[derive(Debug, Serialize)]
struct Report {
    nccl_version: &'static str,
    op: &'static str,
    machines: Machines,
    ranks: u32,
    channels: u32,
    /// Without `--sweep`: every pair allowed at the size. With it: the chosen pair at each
    /// size of the sweep.
    rows: Vec<Row>,
}

pub fn run(args: &CollectiveArgs) -> Result<(), Box<dyn std::error::Error>> {
    let (request, machines) = request(args).map_err(|e| refusal(&e))?;
    let reports = if args.sweep {
        sweep(&request)
    } else {
        estimate(&request).map(|r| vec![r])
    }
    .map_err(|e| refusal(&e))?;
    let rows: Vec<Row> = if args.sweep {
        reports.iter().filter_map(chosen_row).collect()
    } else {
        reports.iter().flat_map(allowed_rows).collect()
    };
    if rows.is_empty() {
        return Err(format!(
            "NCCL offers no {} algorithm/protocol pair for {} here; try --algo auto \
             --proto auto",
            args.algo, args.op
        )
        .into());
    }
    let first = &reports[0];
    let report = Report {
        nccl_version: NCCL_TAG,
        op: request.op.id(),
        machines,
        ranks: first.ranks,
        channels: first.channels,
        rows,
    };
    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        table(&report, first)
    };
    output::to_stdout(|out| out.write_all(text.as_bytes()))?;
    Ok(())
}

/// The engine's refusal, with the field written as the flag that sets it.
fn refusal(e: &CollectiveError) -> String {
    e.field_error()
        .map_or_else(|| e.to_string(), |refused| FLAGS.refusal(refused))
}

/// The request the flags describe. clap has already checked every name against the
/// engine's lists, so a failed lookup here cannot happen; it is still an error, not a panic.
fn request(args: &CollectiveArgs) -> Result<(CollectiveRequest, Machines), CollectiveError> {
    let unknown = |flag: &str, v: &str| {
        CollectiveError::InvalidField(engine::FieldError::new(
            flag,
            format!("{v:?} is not one of its values (see --help)"),
        ))
    };
    let op = Collective::from_id(&args.op).ok_or_else(|| unknown("--op", &args.op))?;
    let gpu = GpuModel::from_id(&args.gpu).ok_or_else(|| unknown("--gpu", &args.gpu))?;
    let nic = NicModel::from_id(&args.nic).ok_or_else(|| unknown("--nic", &args.nic))?;
    let algorithms = match args.algo.as_str() {
        "auto" => None,
        a => Some(vec![
            Algorithm::from_id(a).ok_or_else(|| unknown("--algo", a))?
        ]),
    };
    let protocols = match args.proto.as_str() {
        "auto" => None,
        p => Some(vec![
            Protocol::from_id(p).ok_or_else(|| unknown("--proto", p))?
        ]),
    };
    let bytes = match &args.bytes {
        Some(text) => parse_size(text)? as f64,
        None => 0.0, // --sweep: the engine sets each size itself
    };
    let machines = Machines {
        gpu,
        gpus_per_node: args.gpus_per_node,
        nodes: args.nodes,
        nic,
        nics_per_node: args.nics_per_node.unwrap_or(args.gpus_per_node),
        gdr: !args.no_gdr,
        sharp: args.sharp,
    };
    let cluster = machines.cluster()?;
    Ok((
        CollectiveRequest {
            op,
            bytes,
            cluster,
            algorithms,
            protocols,
        },
        machines,
    ))
}

fn row(r: &CollectiveReport, e: &Estimate) -> Row {
    Row {
        bytes: r.bytes,
        algo: e.algorithm.id(),
        proto: e.protocol.id(),
        time_us: e.time_us,
        algbw_gbs: e.algbw_gbs,
        busbw_gbs: e.busbw_gbs,
        bottleneck: e.bottleneck,
        latency_bound: e.latency_bound,
        chosen: r
            .chosen
            .is_some_and(|c| c.algorithm == e.algorithm && c.protocol == e.protocol),
    }
}

fn allowed_rows(r: &CollectiveReport) -> Vec<Row> {
    r.estimates
        .iter()
        .filter(|e| e.enabled)
        .map(|e| row(r, e))
        .collect()
}

fn chosen_row(r: &CollectiveReport) -> Option<Row> {
    let c = r.chosen?;
    r.estimates
        .iter()
        .find(|e| e.algorithm == c.algorithm && e.protocol == c.protocol)
        .map(|e| row(r, e))
}

fn bottleneck(b: Bottleneck) -> &'static str {
    match b {
        Bottleneck::NvLink => "NVLink",
        Bottleneck::Pcie => "PCIe",
        Bottleneck::Network => "network",
        Bottleneck::HostCopy => "host copies (sockets)",
        Bottleneck::HostStaging => "host memory (staging, no GDR)",
        Bottleneck::ProtocolCap => "NCCL per-channel cap",
    }
}

/// nccl-tests' columns (size, time, algbw, busbw), then the pair and what limits it.
fn table(report: &Report, first: &CollectiveReport) -> String {
    let m = &report.machines;
    let mut out = format!(
        "# {} on {} nodes x {} {} ({} ranks), {} x {} per node, GPUDirect RDMA {}; \
         NCCL {} cost model, channels: {}\n",
        report.op,
        m.nodes,
        m.gpus_per_node,
        m.gpu.name(),
        first.ranks,
        m.nics_per_node,
        m.nic.name(),
        if m.gdr_in_use() { "on" } else { "off" },
        report.nccl_version,
        report.channels,
    );
    out.push_str(&format!(
        "{:>12} {:>12} {:>10} {:>10}  {:<14} {:<6} {}\n",
        "size(B)", "time(us)", "algbw", "busbw", "algo", "proto", "bottleneck"
    ));
    out.push_str(&format!(
        "{:>12} {:>12} {:>10} {:>10}\n",
        "", "", "(GB/s)", "(GB/s)"
    ));
    for r in &report.rows {
        out.push_str(&format!(
            "{:>12} {:>12.2} {:>10.2} {:>10.2}  {:<14} {:<6} {}{}{}\n",
            r.bytes,
            r.time_us,
            r.algbw_gbs,
            r.busbw_gbs,
            r.algo,
            r.proto,
            bottleneck(r.bottleneck),
            if r.latency_bound {
                ", latency-bound"
            } else {
                ""
            },
            if r.chosen { "  <- NCCL's choice" } else { "" },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_become_flags() {
        assert_eq!(
            refusal(&CollectiveError::InvalidField(engine::FieldError::new(
                "cluster.nodes",
                "must be from 1 to 1000000"
            ))),
            "invalid `--nodes`: must be from 1 to 1000000"
        );
        assert!(
            refusal(&CollectiveError::InvalidField(engine::FieldError::new(
                "nic", "pick one"
            )))
            .contains("`--nic`")
        );
    }
}
