//! The results for one size: every algorithm/protocol pair NCCL's cost model offers, the
//! pair its automatic choice takes and why, and the notes that apply to these machines.

use std::rc::Rc;

use engine::collective::constants::{SOCKET_MEASURED_BUSBW_GBS, SOCKET_MEASURED_LINE_GBPS};
use engine::collective::{
    absent_reason, algorithm_name, disabled_reason, protocol_name, staged_in_host_memory,
    Algorithm, Choice, CollectiveReport, CollectiveRequest, Estimate, Machines, Transport,
    SOCKET_LINE_FRACTION, STAGING_HOST_MEMORY_PASSES,
};
use yew::prelude::*;

use crate::views::figures;

use super::format::{self, op_name};
use super::state::Calc;

pub fn pair_name(algorithm: Algorithm, protocol: engine::collective::Protocol) -> String {
    format!(
        "{} / {}",
        algorithm_name(algorithm),
        protocol_name(protocol)
    )
}

/// The node's NICs together, GB/s per direction: what a ring's busbw runs into.
pub fn node_network_gbs(m: &Machines) -> f64 {
    m.nic.gbps() * f64::from(m.nics_per_node) / 8.0
}

/// The pairs whose busbw passes the node's network rate (across nodes only).
pub fn past_wire<'a>(report: &'a CollectiveReport, m: &Machines) -> Vec<&'a Estimate> {
    let wire = node_network_gbs(m);
    report
        .estimates
        .iter()
        .filter(|e| report.nodes > 1 && wire > 0.0 && e.busbw_gbs > wire)
        .collect()
}

/// Says why the chosen pair is the one: the fastest the automatic choice may take, and how
/// far the next one is behind.
fn choice_sentence(report: &CollectiveReport) -> String {
    let Some(best) = report.chosen_estimate() else {
        return "No pair is left for the automatic choice: every one is excluded.".to_string();
    };
    let enabled = report.estimates.iter().filter(|e| e.enabled).count();
    let runner = report
        .estimates
        .iter()
        .filter(|e| e.enabled && !(e.algorithm == best.algorithm && e.protocol == best.protocol))
        .min_by(|a, b| a.time_us.total_cmp(&b.time_us));
    let mut s = format!(
        "NCCL's tuner takes the pair with the shortest estimated time among those it may use: \
         {} at {}, the fastest of {enabled}.",
        pair_name(best.algorithm, best.protocol),
        format::time(best.time_us)
    );
    if let Some(r) = runner {
        s.push_str(&format!(
            " The next, {}, would take {} ({} as long).",
            pair_name(r.algorithm, r.protocol),
            format::time(r.time_us),
            format::ratio(r.time_us / best.time_us)
        ));
    }
    if best.latency_bound {
        s.push_str(" At this size the fixed latency outweighs the transfer, so the pair with the least latency wins.");
    }
    s
}

#[derive(Properties, PartialEq)]
pub struct ResultsProps {
    pub calc: Rc<Calc>,
    /// The form holds a refused value: these are the last accepted configuration's results.
    pub stale: bool,
}

#[function_component]
pub fn PairResults(props: &ResultsProps) -> Html {
    let calc = &props.calc;
    let report = &calc.report;
    let req = &calc.request;
    let m = &calc.config.machines;
    let chosen = report.chosen;
    let absent: Vec<(Algorithm, String)> = Algorithm::ALL
        .into_iter()
        .filter_map(|a| absent_reason(req, report, a).map(|r| (a, r)))
        .collect();
    let summary = format!(
        "{} of {} on {} GPUs ({} node{} × {} GPU{}), NCCL {}.",
        op_name(report.op),
        figures::bytes(report.bytes),
        report.ranks,
        report.nodes,
        if report.nodes == 1 { "" } else { "s" },
        m.gpus_per_node,
        if m.gpus_per_node == 1 { "" } else { "s" },
        report.nccl_tag
    );
    html! {
        <section class={classes!("nccl-results", props.stale.then_some("nccl-stale"))} aria-labelledby="nccl-results-title">
            <h3 id="nccl-results-title">{ "Every algorithm and protocol at this size" }</h3>
            if props.stale {
                <p class="nccl-stale-note" role="status">
                    { "A field above holds a value the model refuses: these are still the results of the last configuration it accepted." }
                </p>
            }
            <p class="nccl-summary">{ summary }</p>
            <p class="nccl-choice">{ choice_sentence(report) }</p>
            <div class="nccl-scroll" tabindex="0" role="region" aria-labelledby="nccl-results-title">
                <table class="nccl-table nccl-pairs">
                    <thead>
                        <tr>
                            // busbw first after the pair: the figure nccl-tests users compare,
                            // in view on a phone before the table scrolls.
                            <th scope="col">{ "Pair" }</th>
                            <th scope="col">{ "busbw GB/s" }</th>
                            <th scope="col">{ "Time" }</th>
                            <th scope="col">{ "algbw GB/s" }</th>
                            <th scope="col">{ "Bottleneck" }</th>
                            <th scope="col">{ "Bound by" }</th>
                            <th scope="col">{ "NCCL's choice" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for report.estimates.iter().map(|e| pair_row(req, e, chosen)) }
                    </tbody>
                </table>
            </div>
            if !absent.is_empty() {
                <div class="nccl-absent">
                    <p>{ "Not offered on these machines:" }</p>
                    <ul>
                        { for absent.iter().map(|(a, why)| html! {
                            <li data-algorithm={algorithm_name(*a)}><strong>{ algorithm_name(*a) }</strong>{ format!(": {why}.") }</li>
                        }) }
                    </ul>
                </div>
            }
            <Notes report={report.clone()} machines={*m} transport={req.cluster.transport} staged={staged_in_host_memory(&req.cluster)} host_memory_gbs={req.cluster.host_memory_gbs} />
        </section>
    }
}

fn pair_row(req: &CollectiveRequest, e: &Estimate, chosen: Option<Choice>) -> Html {
    let is_chosen = chosen.is_some_and(|c| c.algorithm == e.algorithm && c.protocol == e.protocol);
    let choice = if is_chosen {
        "chosen".to_string()
    } else if e.enabled {
        "may take it".to_string()
    } else {
        format!("off: {}", disabled_reason(req, e).unwrap_or_default())
    };
    html! {
        <tr
            class={classes!(is_chosen.then_some("nccl-chosen"), (!e.enabled).then_some("nccl-off"))}
            data-algorithm={algorithm_name(e.algorithm)}
            data-protocol={protocol_name(e.protocol)}
            data-busbw={e.busbw_gbs.to_string()}
            data-time-us={e.time_us.to_string()}
            data-chosen={is_chosen.to_string()}
        >
            <th scope="row">
                <span class="nccl-pair">{ pair_name(e.algorithm, e.protocol) }</span>
                if is_chosen { { " " }<span class="nccl-badge">{ "chosen" }</span> }
            </th>
            <td class="num nccl-busbw">{ format::gbs(e.busbw_gbs) }</td>
            <td class="num">{ format::time(e.time_us) }</td>
            <td class="num">{ format::gbs(e.algbw_gbs) }</td>
            <td class="nccl-wrap">{ format::bottleneck(e.bottleneck) }</td>
            <td>{ if e.latency_bound { "latency" } else { "bandwidth" } }</td>
            <td class="nccl-why">{ choice }</td>
        </tr>
    }
}

#[derive(Properties, PartialEq)]
pub struct NotesProps {
    pub report: CollectiveReport,
    pub machines: Machines,
    pub transport: Transport,
    /// Network bytes are staged in host memory (GPUDirect RDMA off on verbs).
    pub staged: bool,
    pub host_memory_gbs: f64,
}

/// The explanations, each shown only where it applies.
#[function_component]
pub fn Notes(props: &NotesProps) -> Html {
    let m = &props.machines;
    let wire = node_network_gbs(m);
    let past_wire = past_wire(&props.report, m);
    let sockets = props.report.nodes > 1 && props.transport == Transport::Socket;
    html! {
        <>
            if !past_wire.is_empty() {
                <p class="nccl-note" data-note="busbw-past-wire">
                    { format!(
                        "Some busbw figures here pass the node's network rate ({} × {} Gb/s = {} GB/s per direction), {} among them. \
                         The busbw figure is algbw times the share of the data a ring would have to move (nccl-tests' factor, {:.3} for {} \
                         on {} ranks), so it equals the wire rate only when the data really travels the ring's way. NVLS and CollNet let switches do the reduction, \
                         and a tree across two nodes crosses the network fewer times than a ring would: fewer bytes than it \
                         counts go over the wire, and the figure can run past its rate.",
                        m.nics_per_node, m.nic.gbps(), format::gbs(wire),
                        past_wire.iter().map(|e| pair_name(e.algorithm, e.protocol)).collect::<Vec<_>>().join(", "),
                        props.report.op.bus_factor(props.report.ranks), op_name(props.report.op), props.report.ranks,
                    ) }
                </p>
            }
            if props.staged {
                <p class="nccl-note" data-note="host-staging">
                    { format!(
                        "Without GPUDirect RDMA, NCCL puts its network buffers in host memory instead of GPU memory: the \
                         sending GPU writes each byte there and the NIC reads it out; on the far side the NIC writes it \
                         and the GPU reads it. A node sends and receives at once, so its host memory carries {} times its \
                         network rate. NCCL's tuner does not count this (it times the path through the CPU like a direct \
                         one), so this bound is the lab's, added to NCCL's model: {} GB/s of host memory ({}, at its peak) \
                         allows at most {} GB/s per direction across the network, against {} GB/s of NICs. Real memory \
                         runs below its peak, so measured runs fall further.",
                        STAGING_HOST_MEMORY_PASSES,
                        format::gbs(props.host_memory_gbs),
                        m.gpu.host_system(),
                        format::gbs(props.host_memory_gbs / STAGING_HOST_MEMORY_PASSES),
                        format::gbs(wire),
                    ) }
                    { " " }
                    <a href="https://github.com/NVIDIA/nccl/blob/v2.29.3-1/src/transport/net.cc#L884" rel="noopener">{ "Where NCCL picks host memory" }</a>
                    { "." }
                </p>
            }
            if sockets {
                <p class="nccl-note" data-note="sockets">
                    { format!(
                        "The socket transport is slow because it takes host memory only: every byte is copied from the GPU \
                         into a host buffer, pushed through the kernel's TCP stack by CPU threads, and copied back into GPU \
                         memory on the far side. The model therefore does not use the line rate for it but a measurement: \
                         {SOCKET_MEASURED_BUSBW_GBS} GB/s busbw, the top of the best range a user reached on \
                         {SOCKET_MEASURED_LINE_GBPS} Gb/s TCP (four nodes of eight V100, NVIDIA/nccl issue #450), which is \
                         {:.0} % of that line rate; scaling the same share to this NIC's rate is the model's assumption.",
                        SOCKET_LINE_FRACTION * 100.0
                    ) }
                    { " " }
                    <a href="https://github.com/NVIDIA/nccl/issues/450" rel="noopener">{ "The measurement" }</a>
                    { "." }
                </p>
            }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::collective::{estimate, Collective, GpuModel, NicModel};

    fn report(m: &Machines) -> CollectiveReport {
        estimate(&CollectiveRequest {
            op: Collective::AllReduce,
            bytes: f64::from(1u32 << 30),
            cluster: m.cluster().unwrap(),
            algorithms: None,
            protocols: None,
        })
        .unwrap()
    }

    #[test]
    fn a_tree_on_two_nodes_passes_the_wire_and_a_ring_does_not() {
        let mut m = Machines {
            gpu: GpuModel::H100,
            gpus_per_node: 8,
            nodes: 2,
            nic: NicModel::Roce100,
            nics_per_node: 1,
            gdr: true,
            sharp: false,
        };
        let r = report(&m);
        let past: Vec<Algorithm> = past_wire(&r, &m).iter().map(|e| e.algorithm).collect();
        assert!(past.contains(&Algorithm::Tree), "{past:?}");
        assert!(!past.contains(&Algorithm::Ring), "{past:?}");
        m.nodes = 1;
        assert!(
            past_wire(&report(&m), &m).is_empty(),
            "one node has no wire"
        );
        let sentence = choice_sentence(&r);
        assert!(sentence.contains("fastest"), "{sentence}");
    }
}
