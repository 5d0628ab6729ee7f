//! What a log tells the collective calculator (/nccl) about its job.

use super::summary::{InterNodeTransport, Summary};

impl Summary {
    /// The /nccl calculator's query pairs for what this log knows of the job, in the order
    /// of its contract (`gpn`, `nodes`, `nic`, `nics`, `gdr`; see the app's
    /// `views/nccl/query.rs`), and nothing the log does not say: no GPU model, collective or
    /// size. `nic` names the network only, `roce`, `ib`, `tcp` or `none` (one host), since
    /// NCCL's INFO lines do not give a NIC's rate; the page picks the rate.
    ///
    /// - `gpn`: the ranks of each host, when every host has as many and they add up to the
    ///   job's ranks; else the ranks over the hosts, when that divides.
    /// - `nics`: per host, the devices its ranks reach other hosts through when all its
    ///   ranks printed such a channel line, else the devices NCCL lists (`NET/IB : Using`,
    ///   `NET/Socket : Using`); given when every host agrees.
    /// - `gdr`: whether the channels between hosts say `/GDRDMA`, on IB and RoCE.
    pub fn calculator_query(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        let hosts: Vec<_> = self.hosts.iter().filter(|h| !h.ranks.is_empty()).collect();
        let per_host = hosts
            .first()
            .map(|h| h.ranks.len())
            .filter(|&n| hosts.iter().all(|h| h.ranks.len() == n))
            .filter(|&n| {
                self.nranks
                    .is_some_and(|all| usize::try_from(all).is_ok_and(|all| n * hosts.len() == all))
            });
        let spread = match (self.nranks, self.nnodes) {
            (Some(ranks), Some(nodes)) if nodes > 0 => usize::try_from(ranks)
                .ok()
                .filter(|r| r % nodes == 0)
                .map(|r| r / nodes),
            _ => None,
        };
        if let Some(gpn) = per_host.or(spread) {
            pairs.push(("gpn", gpn.to_string()));
        }
        if let Some(nodes) = self.nnodes {
            pairs.push(("nodes", nodes.to_string()));
        }
        let nic = match self.inter_node_transport {
            Some(InterNodeTransport::RoCE) => Some("roce"),
            Some(InterNodeTransport::IB) => Some("ib"),
            Some(InterNodeTransport::Socket) => Some("tcp"),
            Some(InterNodeTransport::None) => Some("none"),
            None => None,
        };
        if let Some(nic) = nic {
            pairs.push(("nic", nic.to_string()));
        }
        let between_hosts = matches!(nic, Some("roce" | "ib" | "tcp"));
        let nics: Vec<usize> = hosts
            .iter()
            .map(|h| {
                if h.ranks_on_net == h.ranks && !h.nics_in_use.is_empty() {
                    h.nics_in_use.len()
                } else if nic == Some("tcp") {
                    h.socket_devices.len()
                } else {
                    h.ib_devices.len()
                }
            })
            .collect();
        if let Some(&n) = nics.first() {
            if between_hosts && n > 0 && nics.iter().all(|&m| m == n) {
                pairs.push(("nics", n.to_string()));
            }
        }
        if matches!(nic, Some("roce" | "ib")) {
            if let Some(gdr) = self.gdr_used {
                pairs.push(("gdr", if gdr { "1" } else { "0" }.to_string()));
            }
        }
        pairs
    }
}
