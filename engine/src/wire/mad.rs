//! Management datagrams (MADs, IBTA Vol 1 §13.4): the 256-byte payload of a UD SEND to
//! QP0 (subnet management) or QP1 (every other class), with its 24-byte common header,
//! and the layouts the lab decodes after it: subnet management packets, LID-routed and
//! directed route (§14.2.1), subnet administration with its RMPP header (§15.2.1,
//! §13.6.2), performance management (§16.1.3) and the connection manager's messages
//! (§12.6). Numbers and offsets are those of the kernel's `include/rdma/ib_mad.h`,
//! `ib_smi.h`, `ib_sa.h` and `ibta_vol1_c12.h` (CM offsets there count from the end
//! of the common header, as [`cm`] does).
//!
//! ```text
//! byte 0 BaseVersion  1 MgmtClass  2 ClassVersion  3 R(7) Method(6-0)
//!      4-5 Status  6-7 ClassSpecific  8-15 TransactionID  16-17 AttributeID
//!      18-19 Reserved  20-23 AttributeModifier  24-255 class data
//! ```

use super::{ErrorKind, Header, Result, WireError};

/// Bytes of a MAD.
pub const MAD_LEN: usize = 256;
/// Bytes of the common header.
pub const COMMON_LEN: usize = 24;
/// The QP every subnet management MAD goes to.
pub const QP_SMI: u32 = 0;
/// The QP every other management class goes to.
pub const QP_GSI: u32 = 1;

/// Offsets within a MAD.
pub mod field {
    pub const BASE_VERSION: usize = 0;
    pub const MGMT_CLASS: usize = 1;
    pub const CLASS_VERSION: usize = 2;
    pub const METHOD: usize = 3;
    pub const STATUS: usize = 4;
    pub const CLASS_SPECIFIC: usize = 6;
    pub const TRANSACTION_ID: usize = 8;
    pub const ATTRIBUTE_ID: usize = 16;
    pub const RESERVED: usize = 18;
    pub const ATTRIBUTE_MODIFIER: usize = 20;

    /// A directed route SMP: the D bit and status share bytes 4-5, and the class-specific
    /// bytes are the hop pointer and count.
    pub const DR_HOP_POINTER: usize = 6;
    pub const DR_HOP_COUNT: usize = 7;
    /// Both SMP kinds: M_Key, then (directed route) the route's end LIDs.
    pub const SMP_M_KEY: usize = 24;
    pub const DR_SLID: usize = 32;
    pub const DR_DLID: usize = 34;
    pub const SMP_DATA: usize = 64;
    pub const SMP_DATA_LEN: usize = 64;
    pub const DR_INITIAL_PATH: usize = 128;
    pub const DR_RETURN_PATH: usize = 192;
    pub const DR_PATH_LEN: usize = 64;

    /// Subnet administration: the RMPP header, SM_Key, attribute offset, component mask.
    pub const RMPP_VERSION: usize = 24;
    pub const RMPP_TYPE: usize = 25;
    pub const RMPP_RESP_TIME_FLAGS: usize = 26;
    pub const RMPP_STATUS: usize = 27;
    pub const RMPP_DATA1: usize = 28;
    pub const RMPP_DATA2: usize = 32;
    pub const SA_SM_KEY: usize = 36;
    pub const SA_ATTRIBUTE_OFFSET: usize = 44;
    pub const SA_COMPONENT_MASK: usize = 48;
    pub const SA_DATA: usize = 56;

    /// Performance management: 40 reserved bytes, then the attribute.
    pub const PERF_DATA: usize = 64;
}

/// Management classes (`ib_mad.h`).
pub mod class {
    pub const SUBN_LID_ROUTED: u8 = 0x01;
    pub const SUBN_DIRECTED_ROUTE: u8 = 0x81;
    pub const SUBN_ADM: u8 = 0x03;
    pub const PERF_MGMT: u8 = 0x04;
    pub const BM: u8 = 0x05;
    pub const DEVICE_MGMT: u8 = 0x06;
    pub const CM: u8 = 0x07;
    pub const SNMP: u8 = 0x08;
    pub const CONG_MGMT: u8 = 0x21;
}

/// The name of a management class.
pub fn class_name(class: u8) -> &'static str {
    match class {
        class::SUBN_LID_ROUTED => "Subnet Management (LID routed)",
        class::SUBN_DIRECTED_ROUTE => "Subnet Management (directed route)",
        class::SUBN_ADM => "Subnet Administration",
        class::PERF_MGMT => "Performance Management",
        class::BM => "Baseboard Management",
        class::DEVICE_MGMT => "Device Management",
        class::CM => "Communication Management",
        class::SNMP => "SNMP Tunneling",
        class::CONG_MGMT => "Congestion Control",
        0x09..=0x0F | 0x30..=0x4F => "vendor specific",
        _ => "unknown class",
    }
}

/// The name of a method (bits 6-0 of byte 3 with the response bit, bit 7).
pub fn method_name(method: u8) -> Option<&'static str> {
    Some(match method {
        0x01 => "Get",
        0x02 => "Set",
        0x81 => "GetResp",
        0x03 => "Send",
        0x05 => "Trap",
        0x06 => "Report",
        0x86 => "ReportResp",
        0x07 => "TrapRepress",
        0x12 => "GetTable",
        0x92 => "GetTableResp",
        0x13 => "GetTraceTable",
        0x93 => "GetTraceTableResp",
        0x14 => "GetMulti",
        0x94 => "GetMultiResp",
        0x15 => "Delete",
        0x95 => "DeleteResp",
        _ => return None,
    })
}

/// The name of an attribute of a class, when the lab knows it.
pub fn attribute_name(class: u8, id: u16) -> Option<&'static str> {
    if id == 0x0001 {
        return Some("ClassPortInfo");
    }
    match class {
        class::SUBN_LID_ROUTED | class::SUBN_DIRECTED_ROUTE => smp_attribute(id),
        class::SUBN_ADM => sa_attribute(id),
        class::PERF_MGMT => perf_attribute(id),
        class::CM => cm::message(id).map(|m| m.name),
        _ => None,
    }
}

fn smp_attribute(id: u16) -> Option<&'static str> {
    Some(match id {
        0x0002 => "Notice",
        0x0010 => "NodeDescription",
        0x0011 => "NodeInfo",
        0x0012 => "SwitchInfo",
        0x0014 => "GUIDInfo",
        0x0015 => "PortInfo",
        0x0016 => "P_KeyTable",
        0x0017 => "SLtoVLMappingTable",
        0x0018 => "VLArbitrationTable",
        0x0019 => "LinearForwardingTable",
        0x001A => "RandomForwardingTable",
        0x001B => "MulticastForwardingTable",
        0x0020 => "SMInfo",
        0x0030 => "VendorDiag",
        0x0031 => "LedInfo",
        _ => return None,
    })
}

fn sa_attribute(id: u16) -> Option<&'static str> {
    Some(match id {
        0x0002 => "Notice",
        0x0003 => "InformInfo",
        0x0011 => "NodeRecord",
        0x0012 => "PortInfoRecord",
        0x0013 => "SLtoVLMappingTableRecord",
        0x0014 => "SwitchInfoRecord",
        0x0015 => "LinearForwardingTableRecord",
        0x0016 => "RandomForwardingTableRecord",
        0x0017 => "MulticastForwardingTableRecord",
        0x0018 => "SMInfoRecord",
        0x0020 => "LinkRecord",
        0x0030 => "GuidInfoRecord",
        0x0031 => "ServiceRecord",
        0x0033 => "P_KeyTableRecord",
        0x0035 => "PathRecord",
        0x0036 => "VLArbitrationTableRecord",
        0x0038 => "MCMemberRecord",
        0x0039 => "TraceRecord",
        0x003A => "MultiPathRecord",
        0x003B => "ServiceAssociationRecord",
        0x00F3 => "InformInfoRecord",
        _ => return None,
    })
}

fn perf_attribute(id: u16) -> Option<&'static str> {
    Some(match id {
        0x0010 => "PortSamplesControl",
        0x0011 => "PortSamplesResult",
        0x0012 => "PortCounters",
        0x0015 => "PortRcvErrorDetails",
        0x0016 => "PortXmitDiscardDetails",
        0x0017 => "PortOpRcvCounters",
        0x0018 => "PortFlowCtlCounters",
        0x0019 => "PortVLOpPackets",
        0x001A => "PortVLOpData",
        0x001B => "PortVLXmitFlowCtlUpdateErrors",
        0x001C => "PortVLXmitWaitCounters",
        0x001D => "PortCountersExtended",
        0x001E => "PortSamplesResultExtended",
        0x0030 => "SwPortVLCongestion",
        _ => return None,
    })
}

/// The connection manager's messages (attribute IDs of class 0x07, IBTA Vol 1 §12.6).
pub mod cm {
    /// One CM message: its attribute ID and names.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct CmMessage {
        pub attribute: u16,
        /// The abbreviation the specification uses (REQ, REP, …).
        pub name: &'static str,
        /// What Wireshark's Info column calls it.
        pub long_name: &'static str,
    }

    pub const REQ: u16 = 0x0010;
    pub const MRA: u16 = 0x0011;
    pub const REJ: u16 = 0x0012;
    pub const REP: u16 = 0x0013;
    pub const RTU: u16 = 0x0014;
    pub const DREQ: u16 = 0x0015;
    pub const DREP: u16 = 0x0016;

    #[rustfmt::skip]
    const MESSAGES: [CmMessage; 11] = [
        CmMessage { attribute: REQ, name: "REQ", long_name: "ConnectRequest" },
        CmMessage { attribute: MRA, name: "MRA", long_name: "MsgRcptAck" },
        CmMessage { attribute: REJ, name: "REJ", long_name: "ConnectReject" },
        CmMessage { attribute: REP, name: "REP", long_name: "ConnectReply" },
        CmMessage { attribute: RTU, name: "RTU", long_name: "ReadyToUse" },
        CmMessage { attribute: DREQ, name: "DREQ", long_name: "DisconnectRequest" },
        CmMessage { attribute: DREP, name: "DREP", long_name: "DisconnectReply" },
        CmMessage { attribute: 0x0017, name: "SIDR_REQ", long_name: "ServiceIDResReq" },
        CmMessage { attribute: 0x0018, name: "SIDR_REP", long_name: "ServiceIDResReqResp" },
        CmMessage { attribute: 0x0019, name: "LAP", long_name: "LoadAlternatePath" },
        CmMessage { attribute: 0x001A, name: "APR", long_name: "AlternatePathResponse" },
    ];

    /// The message an attribute ID names.
    pub fn message(attribute: u16) -> Option<&'static CmMessage> {
        MESSAGES.iter().find(|m| m.attribute == attribute)
    }

    /// Why a REJ refused (IBTA Vol 1 §12.6.7.2, Table 112 of the 1.4 text).
    pub fn reject_reason(code: u16) -> Option<&'static str> {
        Some(match code {
            1 => "no QP available",
            2 => "no EEC available",
            3 => "no resources available",
            4 => "timeout",
            5 => "unsupported request",
            6 => "invalid communication ID",
            7 => "invalid communication instance",
            8 => "invalid service ID",
            9 => "invalid transport service type",
            10 => "stale connection",
            11 => "RDC does not exist",
            12 => "invalid primary GID",
            13 => "invalid primary LID",
            14 => "invalid primary SL",
            15 => "invalid primary traffic class",
            16 => "invalid primary hop limit",
            17 => "invalid primary packet rate",
            18 => "invalid alternate GID",
            19 => "invalid alternate LID",
            20 => "invalid alternate SL",
            21 => "invalid alternate traffic class",
            22 => "invalid alternate hop limit",
            23 => "invalid alternate packet rate",
            24 => "port redirection",
            26 => "invalid path MTU",
            27 => "insufficient responder resources",
            28 => "consumer reject",
            29 => "RNR retry count reject",
            30 => "duplicate local communication ID",
            31 => "unsupported class version",
            32 => "invalid primary flow label",
            33 => "invalid alternate flow label",
            _ => return None,
        })
    }
}

/// A MAD's common header and the bytes after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MadRepr {
    pub base_version: u8,
    pub mgmt_class: u8,
    pub class_version: u8,
    pub method: u8,
    pub status: u16,
    pub class_specific: u16,
    pub transaction_id: u64,
    pub attribute_id: u16,
    pub attribute_modifier: u32,
    /// Bytes 24-255: the class's own layout.
    pub data: Vec<u8>,
}

impl MadRepr {
    /// Reads a MAD from a UD payload (which may carry pad bytes after it).
    pub fn parse(payload: &[u8]) -> Result<MadRepr> {
        if payload.len() < MAD_LEN {
            return Err(WireError::truncated(
                Header::Payload,
                0,
                MAD_LEN,
                payload.len(),
            ));
        }
        let be = |at: usize, n: usize| {
            payload[at..at + n]
                .iter()
                .fold(0u64, |a, &b| a << 8 | u64::from(b))
        };
        if payload[field::BASE_VERSION] != 1 {
            let value = u64::from(payload[field::BASE_VERSION]);
            let kind = ErrorKind::BadValue {
                field: "infiniband.mad.baseversion",
                value,
            };
            return Err(WireError::new(Header::Payload, field::BASE_VERSION, kind));
        }
        Ok(MadRepr {
            base_version: payload[field::BASE_VERSION],
            mgmt_class: payload[field::MGMT_CLASS],
            class_version: payload[field::CLASS_VERSION],
            method: payload[field::METHOD],
            status: be(field::STATUS, 2) as u16,
            class_specific: be(field::CLASS_SPECIFIC, 2) as u16,
            transaction_id: be(field::TRANSACTION_ID, 8),
            attribute_id: be(field::ATTRIBUTE_ID, 2) as u16,
            attribute_modifier: be(field::ATTRIBUTE_MODIFIER, 4) as u32,
            data: payload[COMMON_LEN..MAD_LEN].to_vec(),
        })
    }

    /// The 256 bytes of the MAD (data shorter than 232 bytes is padded with zeros).
    pub fn emit(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(MAD_LEN);
        out.extend_from_slice(&[
            self.base_version,
            self.mgmt_class,
            self.class_version,
            self.method,
        ]);
        out.extend_from_slice(&self.status.to_be_bytes());
        out.extend_from_slice(&self.class_specific.to_be_bytes());
        out.extend_from_slice(&self.transaction_id.to_be_bytes());
        out.extend_from_slice(&self.attribute_id.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&self.attribute_modifier.to_be_bytes());
        out.extend_from_slice(&self.data[..self.data.len().min(MAD_LEN - COMMON_LEN)]);
        out.resize(MAD_LEN, 0);
        out
    }

    /// "Method(Attribute)", as Wireshark's Info column names a MAD.
    pub fn describe(&self) -> String {
        describe(self.mgmt_class, self.method, self.attribute_id)
    }
}

/// "SubnGet(SMInfo)", "SubnAdmGetTable(PathRecord)", "PERF (PortCounters)",
/// "CM: ConnectRequest": a MAD named by its class, method and attribute, as tshark 4.0's
/// Info column names it.
pub fn describe(mgmt_class: u8, method: u8, attribute: u16) -> String {
    let method = method_name(method).map_or_else(|| format!("Method {method:#04x}"), String::from);
    let attr = attribute_name(mgmt_class, attribute)
        .map_or_else(|| format!("Attribute {attribute:#06x}"), String::from);
    match mgmt_class {
        class::SUBN_LID_ROUTED | class::SUBN_DIRECTED_ROUTE => format!("Subn{method}({attr})"),
        class::SUBN_ADM => format!("SubnAdm{method}({attr})"),
        class::PERF_MGMT => format!("PERF ({attr})"),
        class::CM => match cm::message(attribute) {
            Some(m) => format!("CM: {}", m.long_name),
            None => format!("CM: {attr}"),
        },
        c => format!("{}: {method}({attr})", class_name(c)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mad_round_trips_and_names_itself() {
        let mad = MadRepr {
            base_version: 1,
            mgmt_class: class::SUBN_DIRECTED_ROUTE,
            class_version: 1,
            method: 0x01,
            status: 0,
            class_specific: 0x0001,
            transaction_id: 0x1234_5678_9abc_def0,
            attribute_id: 0x0020,
            attribute_modifier: 0,
            data: vec![0xAA; 232],
        };
        let bytes = mad.emit();
        assert_eq!(bytes.len(), MAD_LEN);
        assert_eq!(MadRepr::parse(&bytes).unwrap(), mad);
        assert_eq!(mad.describe(), "SubnGet(SMInfo)");
        assert_eq!(describe(class::CM, 0x03, cm::REQ), "CM: ConnectRequest");
        assert_eq!(
            describe(class::SUBN_ADM, 0x12, 0x35),
            "SubnAdmGetTable(PathRecord)"
        );
        assert_eq!(
            describe(0x21, 0x01, 0x99),
            "Congestion Control: Get(Attribute 0x0099)"
        );
    }

    #[test]
    fn a_short_mad_or_an_unknown_base_version_is_refused() {
        assert!(MadRepr::parse(&[1; 100]).is_err());
        let mut bytes = vec![0u8; MAD_LEN];
        bytes[0] = 2;
        assert!(MadRepr::parse(&bytes).is_err());
    }
}
