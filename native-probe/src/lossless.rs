//! `native-probe qos` and `native-probe headroom`: the /lossless calculators
//! (`engine::lossless`) on the command line.

use engine::lossless::{parse_dscp_map, parse_priorities, Headroom, QosPlan, Severity};
use serde_json::json;

use crate::{
    cli::{HeadroomArgs, QosArgs},
    flags::FieldFlags,
    output,
};

/// The plan's field names and the flags that set them, for error messages.
const QOS_FLAGS: FieldFlags = FieldFlags(&[
    ("nccl_ib_tc", "--tc"),
    ("dscp_priority", "--map"),
    ("pfc_priorities", "--pfc"),
    ("ecn_priorities", "--ecn"),
    ("cnp_dscp", "--cnp-dscp"),
    ("ecn_kmin_bytes", "--kmin"),
    ("pfc_xoff_bytes", "--xoff"),
]);

const HEADROOM_FLAGS: FieldFlags = FieldFlags(&[
    ("link_gbps", "--gbps"),
    ("cable_m", "--cable-m"),
    ("ns_per_m", "--ns-per-m"),
    ("max_frame_bytes", "--max-frame"),
    ("response_ns", "--response-ns"),
]);

/// A finding of error severity: the run exits 1 after printing.
#[derive(Debug)]
struct Broken(usize);

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} problem(s) in the chain (listed above)", self.0)
    }
}

impl std::error::Error for Broken {}

pub fn qos(args: &QosArgs) -> Result<(), Box<dyn std::error::Error>> {
    let plan = QosPlan {
        nccl_ib_tc: args.tc,
        dscp_priority: parse_dscp_map("dscp_priority", &args.map)
            .map_err(|e| QOS_FLAGS.refusal(&e))?,
        pfc_priorities: parse_priorities("pfc_priorities", &args.pfc)
            .map_err(|e| QOS_FLAGS.refusal(&e))?,
        ecn_priorities: parse_priorities("ecn_priorities", &args.ecn)
            .map_err(|e| QOS_FLAGS.refusal(&e))?,
        cnp_dscp: args.cnp_dscp,
        ecn_kmin_bytes: args.kmin,
        pfc_xoff_bytes: args.xoff,
    };
    let (chain, findings) = plan.check().map_err(|e| QOS_FLAGS.refusal(&e))?;
    let text = if args.json {
        serde_json::to_string_pretty(&json!({ "chain": chain, "findings": findings }))? + "\n"
    } else {
        let mut t = format!(
            "NCCL_IB_TC {} = {:08b}: DSCP {} -> priority {}{} (PFC {}, ECN {}); CNPs: DSCP {} -> priority {} (PFC {})\n",
            chain.traffic_class,
            chain.traffic_class,
            chain.dscp,
            chain.priority,
            if chain.priority_mapped { "" } else { ", not in the map" },
            on_off(chain.pfc),
            on_off(chain.ecn),
            plan.cnp_dscp,
            chain.cnp_priority,
            on_off(chain.cnp_pfc),
        );
        for f in &findings {
            let mark = match f.severity {
                Severity::Ok => "✓",
                Severity::Warning => "!",
                Severity::Error => "✗",
            };
            t.push_str(&format!("{mark} {} (the lab's {})\n", f.text, f.topic));
        }
        t
    };
    output::to_stdout(|out| out.write_all(text.as_bytes()))?;
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if errors > 0 {
        return Err(Broken(errors).into());
    }
    Ok(())
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

pub fn headroom(args: &HeadroomArgs) -> Result<(), Box<dyn std::error::Error>> {
    let h = Headroom {
        link_gbps: args.gbps,
        cable_m: args.cable_m,
        ns_per_m: args.ns_per_m,
        max_frame_bytes: args.max_frame,
        response_ns: args.response_ns,
    };
    let b = h.bytes().map_err(|e| HEADROOM_FLAGS.refusal(&e))?;
    let text = if args.json {
        serde_json::to_string_pretty(&b)? + "\n"
    } else {
        format!(
            "frame in progress when XOFF is decided  {:>9} B\n\
             the PFC frame                          {:>9} B\n\
             cable, both ways                       {:>9} B\n\
             interfaces and peer response           {:>9} B\n\
             frame the peer had just started        {:>9} B\n\
             total per port and lossless priority   {:>9} B ({:.1} KiB)\n",
            b.frame_in_progress,
            b.pfc_frame,
            b.cable_both_ways,
            b.response,
            b.peer_frame,
            b.total,
            b.total as f64 / 1024.0
        )
    };
    output::to_stdout(|out| out.write_all(text.as_bytes()))?;
    Ok(())
}
