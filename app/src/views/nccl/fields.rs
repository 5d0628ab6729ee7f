//! The calculator's field table: each input's key (its URL query key, the tail of its
//! element id `nccl-<key>` and the `data-key` of its field), label and help, for the form and
//! the variant it is compared with. The engine's refusals are placed by [`for_error`].

use crate::views::form::{FieldDef, Reads};

pub static PRESET: FieldDef = FieldDef {
    key: "preset",
    label: "Cluster preset",
    unit: "",
    help: "",
    reads: Reads::Text,
};

pub static GPU: FieldDef = FieldDef {
    key: "gpu",
    label: "GPU",
    unit: "",
    help: "",
    reads: Reads::Text,
};

pub static GPUS_PER_NODE: FieldDef = FieldDef {
    key: "gpn",
    label: "GPUs per node",
    unit: "",
    help: "ranks on each node",
    reads: Reads::Whole,
};

pub static NODES: FieldDef = FieldDef {
    key: "nodes",
    label: "Nodes",
    unit: "",
    help: "hosts in the job",
    reads: Reads::Whole,
};

pub static NIC: FieldDef = FieldDef {
    key: "nic",
    label: "NIC",
    unit: "",
    help: "",
    reads: Reads::Text,
};

pub static NICS: FieldDef = FieldDef {
    key: "nics",
    label: "NICs per node",
    unit: "",
    help: "scale-out NICs on each node",
    reads: Reads::Whole,
};

pub static GDR: FieldDef = FieldDef {
    key: "gdr",
    label: "GPUDirect RDMA",
    unit: "",
    help: "the NIC reads and writes GPU memory (verbs only)",
    reads: Reads::Text,
};

pub static SHARP: FieldDef = FieldDef {
    key: "sharp",
    label: "SHARP (in-network reduction)",
    unit: "",
    help: "InfiniBand switches reduce (NCCL's CollNet plugin)",
    reads: Reads::Text,
};

pub static OP: FieldDef = FieldDef {
    key: "op",
    label: "Collective",
    unit: "",
    help: "",
    reads: Reads::Text,
};

/// A size with its suffix, so the box reads text (a numeric pad has no `G`).
pub static SIZE: FieldDef = FieldDef {
    key: "size",
    label: "Size",
    unit: "",
    help: "bytes; K, M, G, T are powers of 1024, as nccl-tests' -b and -e read them (8G = 8 GiB)",
    reads: Reads::Text,
};

/// The variant's network: one at the current NIC's rate.
pub static CMP_NIC: FieldDef = FieldDef {
    key: "cmp-nic",
    label: "Network, at the same rate",
    unit: "",
    help: "",
    reads: Reads::Text,
};

pub static CMP_GDR: FieldDef = FieldDef {
    key: "cmp-gdr",
    label: "GPUDirect RDMA",
    unit: "",
    help: "",
    reads: Reads::Text,
};

pub static CMP_NVLS: FieldDef = FieldDef {
    key: "cmp-nvls",
    label: "NVLS allowed",
    unit: "",
    help: "",
    reads: Reads::Text,
};

pub static CMP_NODES: FieldDef = FieldDef {
    key: "cmp-nodes",
    label: "One node only",
    unit: "",
    help: "",
    reads: Reads::Text,
};

/// The typed boxes, in form order; the other fields are picked.
pub static BOXES: [&FieldDef; 4] = [&GPUS_PER_NODE, &NODES, &NICS, &SIZE];

/// The field a `CollectiveError` names (`cluster.nodes`, `nic`, `bytes`, …). What comes
/// from the GPU model (compute capability, link rates, NVSwitch) lands on the GPU.
pub fn for_error(name: &str) -> &'static FieldDef {
    match name {
        "cluster.nodes" => &NODES,
        "cluster.gpus_per_node" => &GPUS_PER_NODE,
        "cluster.nics_per_node" => &NICS,
        "nic" | "cluster.nic_gbps" | "cluster.transport" => &NIC,
        "sharp" | "cluster.sharp" => &SHARP,
        "cluster.gdr" => &GDR,
        "bytes" => &SIZE,
        "op" => &OP,
        _ => &GPU,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::nccl::query::owned;

    #[test]
    fn every_field_is_a_key_of_the_query_this_view_owns() {
        let all = [
            &PRESET,
            &GPU,
            &GPUS_PER_NODE,
            &NODES,
            &NIC,
            &NICS,
            &GDR,
            &SHARP,
            &OP,
            &SIZE,
            &CMP_NIC,
            &CMP_GDR,
            &CMP_NVLS,
            &CMP_NODES,
        ];
        for def in all {
            assert!(owned(def.key), "{}", def.key);
        }
        assert_eq!(for_error("bytes").key, "size");
        assert_eq!(for_error("cluster.gpu").key, "gpu");
    }
}
