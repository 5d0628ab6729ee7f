//! The verbs call behind a packet the builder makes: the `ibv_post_send()` work request whose
//! packet it is, as C with each line's header field named, or, for the packets no call
//! posts (acknowledgements, READ responses, CNPs), what sends them instead.
//!
//! The work request's fields and the opcodes each QP type takes are ibv_post_send(3)
//! (rdma-core v64.0, `libibverbs/man/ibv_post_send.3`), where `imm_data` is "in network byte
//! order". A fetch-and-add's operand goes in `wr.atomic.compare_add`: rdma-core's mlx5
//! provider (`providers/mlx5/qp.c` at 01341ca, `_set_atomic_seg()`) puts `compare_add` in
//! the AtomicETH's Swap (or Add) Data for it, and for a compare-and-swap `swap` there and
//! `compare_add` in Compare Data. The QP's own attributes are ibv_modify_qp(3)'s.

use super::spec::{PacketSpec, SpecOperation};
use core::fmt::Write;

/// Where a packet comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PacketOrigin {
    /// The application posts it: the C source of the `ibv_post_send()` call.
    Posted(String),
    /// The NIC sends it on its own: when, and what the application sees of it.
    Nic(&'static str),
}

/// Where `spec`'s packet comes from: the call that posts it, or what sends it instead.
pub fn origin(spec: &PacketSpec) -> PacketOrigin {
    use SpecOperation as S;
    let opcode = match spec.operation {
        S::Send | S::UdSend => "IBV_WR_SEND",
        S::SendWithImmediate => "IBV_WR_SEND_WITH_IMM",
        S::Write => "IBV_WR_RDMA_WRITE",
        S::WriteWithImmediate => "IBV_WR_RDMA_WRITE_WITH_IMM",
        S::ReadRequest => "IBV_WR_RDMA_READ",
        S::CompareSwap => "IBV_WR_ATOMIC_CMP_AND_SWP",
        S::FetchAdd => "IBV_WR_ATOMIC_FETCH_AND_ADD",
        S::ReadResponse => return PacketOrigin::Nic(READ_RESPONSE),
        S::Ack => return PacketOrigin::Nic(ACK),
        S::Nak => return PacketOrigin::Nic(NAK),
        S::RnrNak => return PacketOrigin::Nic(RNR_NAK),
        S::Cnp => return PacketOrigin::Nic(CNP),
    };
    PacketOrigin::Posted(post_send(spec, opcode))
}

const READ_RESPONSE: &str = "No verb posts a READ response: the responder's NIC reads the \
    memory the request's address and R_Key name and sends it back without the responder's \
    CPU. The requester posted IBV_WR_RDMA_READ (pick RDMA READ request to see that call).";
const ACK: &str = "No verb posts an ACK: the responder's NIC sends it for the requests it has \
    received, and the requester's NIC then completes the work requests it covers.";
const NAK: &str = "No verb posts a NAK: the responder's NIC sends it for a request out of \
    sequence or one it cannot carry out (invalid, not allowed by the memory's access rights, or \
    failed on its side). On a sequence error the requester's NIC resends from the PSN it \
    names; the other codes end the work request with an error completion.";
const RNR_NAK: &str = "No verb posts an RNR NAK: the responder's NIC sends it when a SEND \
    arrives and no receive is posted (ibv_post_recv()); the requester's NIC waits the timer \
    and tries again, up to the QP's rnr_retry times (7: for ever).";
const CNP: &str = "No verb posts a CNP: the receiving NIC, DCQCN's notification point, sends it \
    to the sending QP when packets arrive marked CE, and the sender's NIC lowers that QP's \
    rate.";

/// One line of C with the header field it fills, aligned into a comment column.
fn line(out: &mut String, code: &str, field: &str) {
    if field.is_empty() {
        let _ = writeln!(out, "{code}");
    } else {
        let _ = writeln!(out, "{code:<42} /* {field} */");
    }
}

/// The `ibv_post_send()` call for an operation that a work request posts.
fn post_send(s: &PacketSpec, opcode: &str) -> String {
    use SpecOperation as S;
    let name = s
        .operation
        .opcode()
        .and_then(|o| o.name())
        .unwrap_or_default();
    let (length, buffer) = match s.operation {
        S::ReadRequest => (
            s.dma_len.unwrap_or(4096),
            "where the data lands; the RETH's DMA Length",
        ),
        S::CompareSwap | S::FetchAdd => (8, "the remote value, as it was before, lands here"),
        S::Write | S::WriteWithImmediate => {
            (s.payload.len() as u32, "the payload; the RETH's DMA Length")
        }
        _ => (s.payload.len() as u32, "the payload"),
    };
    let mut c = String::new();
    line(&mut c, "struct ibv_sge sge = {", "");
    line(&mut c, "    .addr = (uintptr_t)buf,", "");
    line(&mut c, &format!("    .length = {length},"), buffer);
    line(&mut c, "    .lkey = mr->lkey,", "from ibv_reg_mr()");
    line(&mut c, "};", "");
    line(&mut c, "struct ibv_send_wr wr = {", "");
    line(&mut c, "    .wr_id = 1,", "returned in the completion");
    line(&mut c, "    .sg_list = &sge,", "");
    line(&mut c, "    .num_sge = 1,", "");
    line(
        &mut c,
        &format!("    .opcode = {opcode},"),
        &format!("BTH OpCode: {name}"),
    );
    // ibv_post_send(3): the solicited flag is valid only for SEND and WRITE with immediate.
    let solicitable = matches!(
        s.operation,
        S::Send | S::UdSend | S::SendWithImmediate | S::WriteWithImmediate
    );
    if s.solicited_event && solicitable {
        let flags = "    .send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED,";
        line(&mut c, flags, "BTH SE");
    } else {
        line(&mut c, "    .send_flags = IBV_SEND_SIGNALED,", "");
    }
    if matches!(s.operation, S::SendWithImmediate | S::WriteWithImmediate) {
        let imm = format!("    .imm_data = htonl({:#x}),", s.immediate);
        line(&mut c, &imm, "ImmDt, in network byte order");
    }
    let va = format!("{:#x}", s.va);
    let r_key = format!("{:#x}", s.r_key);
    match s.operation {
        S::Write | S::WriteWithImmediate | S::ReadRequest => {
            let remote = format!("    .wr.rdma.remote_addr = {va},");
            line(&mut c, &remote, "RETH Virtual Address");
            line(
                &mut c,
                &format!("    .wr.rdma.rkey = {r_key},"),
                "RETH R_Key",
            );
        }
        S::CompareSwap | S::FetchAdd => {
            let remote = format!("    .wr.atomic.remote_addr = {va},");
            line(&mut c, &remote, "AtomicETH Virtual Address");
            line(
                &mut c,
                &format!("    .wr.atomic.rkey = {r_key},"),
                "AtomicETH R_Key",
            );
            if s.operation == S::CompareSwap {
                let compare = format!("    .wr.atomic.compare_add = {:#x},", s.compare);
                line(&mut c, &compare, "AtomicETH Compare Data");
                let swap = format!("    .wr.atomic.swap = {:#x},", s.swap_add);
                line(&mut c, &swap, "AtomicETH Swap Data");
            } else {
                let add = format!("    .wr.atomic.compare_add = {:#x},", s.swap_add);
                line(&mut c, &add, "AtomicETH (Swap or) Add Data");
            }
        }
        S::UdSend => {
            line(
                &mut c,
                "    .wr.ud.ah = ah,",
                "from ibv_create_ah(): the addresses",
            );
            let qpn = format!("    .wr.ud.remote_qpn = {:#x},", s.dest_qp);
            line(&mut c, &qpn, "BTH DestQP");
            let q_key = format!("    .wr.ud.remote_qkey = {:#x},", s.q_key);
            line(&mut c, &q_key, "DETH Q_Key");
        }
        _ => {}
    }
    line(&mut c, "};", "");
    line(&mut c, "struct ibv_send_wr *bad_wr;", "");
    line(&mut c, "int ret = ibv_post_send(qp, &wr, &bad_wr);", "");
    c.push_str(&from_the_qp(s));
    c
}

/// The header fields the QP fills rather than the work request (ibv_modify_qp(3)), as a
/// comment of one field a line.
fn from_the_qp(s: &PacketSpec) -> String {
    let psn = format!("BTH PSN {}", s.psn);
    let p_key = format!("BTH P_Key {:#x}", s.p_key);
    let mut rows = vec![
        (psn, "counts on from sq_psn, given for RTS"),
        (p_key, "the port's P_Key at the QP's pkey_index"),
    ];
    let last = if s.operation == SpecOperation::UdSend {
        let source = format!("DETH Source QP {:#x}", s.src_qp);
        rows.push((source, "the QP's own number (qp->qp_num)"));
        " * and the addresses from the address handle. */"
    } else {
        let dest = format!("BTH DestQP {:#x}", s.dest_qp);
        rows.insert(0, (dest, "dest_qp_num, given for RTR"));
        let addresses = "IP addresses".to_string();
        rows.push((addresses, "the GIDs of ah_attr (sgid_index, grh.dgid)"));
        " */"
    };
    let mut c = "/* From the QP, not the request (ibv_modify_qp()):\n".to_string();
    for (field, from) in rows {
        let _ = writeln!(c, " *   {field:<22} {from}");
    }
    c.push_str(last);
    c.push('\n');
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::spec::Payload;

    fn posted(spec: &PacketSpec) -> String {
        match origin(spec) {
            PacketOrigin::Posted(c) => c,
            PacketOrigin::Nic(why) => panic!("{:?} is posted, not {why}", spec.operation),
        }
    }

    #[test]
    fn a_write_names_its_reth_fields_and_the_qps() {
        let spec = PacketSpec {
            operation: SpecOperation::Write,
            payload: Payload::Size(64),
            va: 0xdead_0000,
            r_key: 0x42,
            dest_qp: 0x11,
            psn: 7,
            ..PacketSpec::default()
        };
        let c = posted(&spec);
        assert!(c.contains(".opcode = IBV_WR_RDMA_WRITE,"), "{c}");
        assert!(c.contains("RC RDMA WRITE Only"), "{c}");
        assert!(c.contains(".length = 64,"), "{c}");
        assert!(c.contains(".wr.rdma.remote_addr = 0xdead0000,"), "{c}");
        assert!(c.contains(".wr.rdma.rkey = 0x42,"), "{c}");
        assert!(c.contains("DestQP 0x11") && c.contains("PSN 7"), "{c}");
        assert!(!c.contains("imm_data"), "{c}");
    }

    #[test]
    fn immediates_go_in_network_byte_order() {
        for operation in [
            SpecOperation::SendWithImmediate,
            SpecOperation::WriteWithImmediate,
        ] {
            let spec = PacketSpec {
                operation,
                immediate: 0x1234,
                ..PacketSpec::default()
            };
            assert!(posted(&spec).contains(".imm_data = htonl(0x1234),"));
        }
    }

    /// A fetch-and-add's operand is `compare_add`, which the provider writes into the
    /// AtomicETH's Swap (or Add) Data; a compare-and-swap splits the two.
    #[test]
    fn atomics_put_each_operand_where_the_provider_reads_it() {
        let add = PacketSpec {
            operation: SpecOperation::FetchAdd,
            swap_add: 5,
            ..PacketSpec::default()
        };
        let c = posted(&add);
        assert!(
            c.contains(".wr.atomic.compare_add = 0x5,") && !c.contains(".swap ="),
            "{c}"
        );
        let cas = PacketSpec {
            operation: SpecOperation::CompareSwap,
            swap_add: 9,
            compare: 3,
            ..PacketSpec::default()
        };
        let c = posted(&cas);
        assert!(c.contains(".wr.atomic.compare_add = 0x3,"), "{c}");
        assert!(c.contains(".wr.atomic.swap = 0x9,"), "{c}");
        assert!(c.contains(".length = 8,"), "{c}");
    }

    #[test]
    fn a_ud_send_names_its_destination_in_the_request() {
        let spec = PacketSpec {
            operation: SpecOperation::UdSend,
            dest_qp: 0x33,
            q_key: 0x1111_1111,
            src_qp: 0x12,
            ..PacketSpec::default()
        };
        let c = posted(&spec);
        assert!(c.contains(".wr.ud.remote_qpn = 0x33,"), "{c}");
        assert!(c.contains(".wr.ud.remote_qkey = 0x11111111,"), "{c}");
        assert!(c.contains("Source QP 0x12"), "{c}");
        assert!(!c.contains("dest_qp_num"), "{c}");
    }

    #[test]
    fn the_solicited_flag_only_where_ibv_post_send_allows_it() {
        let send = PacketSpec {
            solicited_event: true,
            ..PacketSpec::default()
        };
        assert!(posted(&send).contains("IBV_SEND_SOLICITED"));
        let write = PacketSpec {
            operation: SpecOperation::Write,
            ..send
        };
        assert!(!posted(&write).contains("IBV_SEND_SOLICITED"));
    }

    #[test]
    fn acknowledgements_responses_and_cnps_come_from_the_nic() {
        use SpecOperation as S;
        for operation in [S::ReadResponse, S::Ack, S::Nak, S::RnrNak, S::Cnp] {
            let spec = PacketSpec {
                operation,
                ..PacketSpec::default()
            };
            assert!(
                matches!(origin(&spec), PacketOrigin::Nic(_)),
                "{operation:?}"
            );
        }
        let posted = S::ALL.iter().filter(|&&operation| {
            let spec = PacketSpec {
                operation,
                ..PacketSpec::default()
            };
            matches!(origin(&spec), PacketOrigin::Posted(_))
        });
        assert_eq!(posted.count(), 8);
    }
}
