//! pcap and pcapng files, read and written with the `pcap-file` crate.
//! Placeholder link-type definitions used by the dissector.

use serde::{Deserialize, Serialize};

/// Link-layer type of a capture (tcpdump.org LINKTYPE_* values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LinkType {
    /// LINKTYPE_ETHERNET (1).
    Ethernet,
    /// LINKTYPE_INFINIBAND (247): native IB packets starting at the LRH.
    Infiniband,
    Other(u32),
}
