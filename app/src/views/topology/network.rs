//! The network a fabric's NICs and switches speak. The sizing does not depend on it, but
//! the machines /nccl models do: a 400 Gb/s NIC is `ndr-400` on InfiniBand and `roce-400`
//! on Ethernet, and NCCL runs a different transport over each.

use engine::collective::{NicModel, Transport};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Network {
    InfiniBand,
    /// Ethernet with RDMA (RoCE v2): verbs, as on InfiniBand.
    Roce,
    /// Ethernet without RDMA: NCCL's socket transport.
    Tcp,
}

impl Network {
    pub const ALL: [Network; 3] = [Network::InfiniBand, Network::Roce, Network::Tcp];

    /// The network a NIC model speaks; `None` for no NIC.
    pub fn of(nic: NicModel) -> Option<Network> {
        match nic.transport()? {
            Transport::Socket => Some(Network::Tcp),
            _ if nic.infiniband() => Some(Network::InfiniBand),
            _ => Some(Network::Roce),
        }
    }

    /// The URL query's value (`network=roce`).
    pub fn id(self) -> &'static str {
        match self {
            Network::InfiniBand => "ib",
            Network::Roce => "roce",
            Network::Tcp => "tcp",
        }
    }

    pub fn from_id(id: &str) -> Option<Network> {
        Network::ALL.into_iter().find(|n| n.id() == id)
    }

    /// What a reader calls it.
    pub fn label(self) -> &'static str {
        match self {
            Network::InfiniBand => "InfiniBand",
            Network::Roce => "Ethernet, RoCE v2",
            Network::Tcp => "Ethernet, TCP (no RDMA)",
        }
    }

    /// Its name before "NICs": "RoCE NICs".
    pub fn short(self) -> &'static str {
        match self {
            Network::InfiniBand => "InfiniBand",
            Network::Roce => "RoCE",
            Network::Tcp => "TCP",
        }
    }

    /// The calculator's NIC model of this network at `gbps` per NIC, if it has one.
    pub fn nic_at(self, gbps: f64) -> Option<NicModel> {
        self.nics().find(|n| (n.gbps() - gbps).abs() < 1e-9)
    }

    /// The calculator's NIC models of this network, slowest first.
    pub fn nics(self) -> impl Iterator<Item = NicModel> {
        NicModel::ALL
            .into_iter()
            .filter(move |n| Network::of(*n) == Some(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nic_model_has_one_network_and_its_rate_finds_it_again() {
        for nic in NicModel::ALL {
            match Network::of(nic) {
                Some(net) => assert_eq!(net.nic_at(nic.gbps()), Some(nic), "{}", nic.id()),
                None => assert_eq!(nic, NicModel::None),
            }
        }
        assert_eq!(Network::of(NicModel::Ndr400), Some(Network::InfiniBand));
        assert_eq!(Network::of(NicModel::Roce400), Some(Network::Roce));
        assert_eq!(Network::of(NicModel::Tcp25), Some(Network::Tcp));
        for net in Network::ALL {
            assert_eq!(Network::from_id(net.id()), Some(net));
        }
        assert_eq!(Network::from_id("ethernet"), None);
    }
}
