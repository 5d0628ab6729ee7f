//! From `NCCL_IB_TC` to a PFC priority, and back for the CNPs.

use crate::FieldError;
use serde::{Deserialize, Serialize};

/// The two ECN bits (RFC 3168 §5, Figure 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Ecn {
    /// 00: not ECN-capable.
    NotEct,
    /// 01.
    Ect1,
    /// 10.
    Ect0,
    /// 11: congestion experienced.
    Ce,
}

impl Ecn {
    fn from_bits(bits: u8) -> Ecn {
        match bits & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
}

/// The IP traffic-class byte of a DSCP and ECN bits: `DSCP << 2 | ECN` (RFC 2474 §3,
/// RFC 3168 §5).
pub fn traffic_class_byte(dscp: u8, ecn: u8) -> u8 {
    ((dscp & 0x3f) << 2) | (ecn & 0b11)
}

/// One entry of the DSCP-to-priority map the switches and the NIC trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DscpPriority {
    pub dscp: u8,
    pub priority: u8,
}

/// A RoCE QoS configuration, as an engineer would read it off the NIC and the switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QosPlan {
    /// `NCCL_IB_TC`: the traffic class of NCCL's QPs, 0–255.
    pub nccl_ib_tc: u16,
    /// DSCP → priority (trust DSCP). A DSCP not listed maps to priority 0, as a switch's
    /// default class would take it.
    pub dscp_priority: Vec<DscpPriority>,
    /// Priorities with PFC enabled (0–7).
    pub pfc_priorities: Vec<u8>,
    /// Priorities with ECN marking on the switches and DCQCN on the NIC (mlx5:
    /// `ecn/roce_np/enable/<prio>` and `ecn/roce_rp/enable/<prio>`).
    pub ecn_priorities: Vec<u8>,
    /// The DSCP the NIC writes in CNPs (mlx5 `np_cnp_dscp`).
    pub cnp_dscp: u8,
    /// The switch queue's ECN marking threshold (K_min), bytes.
    pub ecn_kmin_bytes: u64,
    /// The same queue's PFC XOFF threshold, bytes.
    pub pfc_xoff_bytes: u64,
}

/// Where the traffic lands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QosChain {
    /// The traffic-class byte NCCL puts in the QP's address vector.
    pub traffic_class: u8,
    /// The DSCP mlx5 programs for a RoCE v2 QP: traffic class >> 2 (Linux
    /// drivers/infiniband/hw/mlx5/qp.c, `mlx5_set_path`).
    pub dscp: u8,
    /// The low two bits of `NCCL_IB_TC`, which select no DSCP.
    pub ignored_ecn_bits: Ecn,
    pub priority: u8,
    /// The data's priority came from the map, not from the default of 0.
    pub priority_mapped: bool,
    pub pfc: bool,
    pub ecn: bool,
    pub cnp_priority: u8,
    pub cnp_priority_mapped: bool,
    pub cnp_pfc: bool,
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Ok,
    Warning,
    Error,
}

/// One verdict on the plan, with the lab's page that explains it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QosFinding {
    pub severity: Severity,
    pub text: String,
    pub topic: &'static str,
}

/// Between entries of a list the learner types: commas, semicolons or spaces.
const LIST_SEPARATORS: [char; 3] = [',', ';', ' '];

/// Reads a DSCP-to-priority map written `26:3, 48:6` (DSCP:priority; commas, semicolons or
/// spaces between entries), as the learner types it; `field` names it in errors.
pub fn parse_dscp_map(field: &str, text: &str) -> Result<Vec<DscpPriority>, FieldError> {
    let mut map = Vec::new();
    for entry in text.split(LIST_SEPARATORS).filter(|e| !e.is_empty()) {
        let bad = || FieldError::new(field, format!("{entry:?} is not DSCP:priority, e.g. 26:3"));
        let (d, p) = entry.split_once(':').ok_or_else(bad)?;
        let dscp = d.trim().parse().map_err(|_| bad())?;
        let priority = p.trim().parse().map_err(|_| bad())?;
        map.push(DscpPriority { dscp, priority });
    }
    Ok(map)
}

/// Reads a list of priorities written `3` or `3, 4` (empty for none).
pub fn parse_priorities(field: &str, text: &str) -> Result<Vec<u8>, FieldError> {
    text.split(LIST_SEPARATORS)
        .filter(|e| !e.is_empty())
        .map(|e| {
            e.parse::<u8>()
                .map_err(|_| FieldError::new(field, format!("{e:?} is not a priority 0–7")))
        })
        .collect()
}

/// A whole number typed into `field`.
pub(crate) fn parse_whole<T: std::str::FromStr>(field: &str, text: &str) -> Result<T, FieldError> {
    text.trim()
        .parse()
        .map_err(|_| FieldError::new(field, format!("{text:?} is not a whole number in range")))
}

fn list_text<T: ToString>(items: impl Iterator<Item = T>) -> String {
    items.map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
}

fn priorities(field: &str, list: &[u8]) -> Result<(), FieldError> {
    match list.iter().find(|&&p| p > 7) {
        Some(p) => Err(FieldError::new(
            field,
            format!("priority {p} is not one of the eight 802.1p priorities 0–7"),
        )),
        None => Ok(()),
    }
}

impl QosPlan {
    /// The lab's worked example: DSCP 26 (AF31) lossless on priority 3 with ECN, CNPs on
    /// DSCP 48 in priority 6.
    pub fn example() -> QosPlan {
        QosPlan {
            nccl_ib_tc: 104,
            dscp_priority: vec![
                DscpPriority {
                    dscp: 26,
                    priority: 3,
                },
                DscpPriority {
                    dscp: 48,
                    priority: 6,
                },
            ],
            pfc_priorities: vec![3],
            ecn_priorities: vec![3],
            cnp_dscp: 48,
            ecn_kmin_bytes: 150_000,
            pfc_xoff_bytes: 400_000,
        }
    }

    /// The fields as a page's boxes hold them, by JSON name, in form order.
    pub fn texts(&self) -> Vec<(&'static str, String)> {
        vec![
            ("nccl_ib_tc", self.nccl_ib_tc.to_string()),
            (
                "dscp_priority",
                list_text(
                    self.dscp_priority
                        .iter()
                        .map(|e| format!("{}:{}", e.dscp, e.priority)),
                ),
            ),
            ("pfc_priorities", list_text(self.pfc_priorities.iter())),
            ("ecn_priorities", list_text(self.ecn_priorities.iter())),
            ("cnp_dscp", self.cnp_dscp.to_string()),
            ("ecn_kmin_bytes", self.ecn_kmin_bytes.to_string()),
            ("pfc_xoff_bytes", self.pfc_xoff_bytes.to_string()),
        ]
    }

    /// Reads the boxes back (`text(name)` gives a field's text), naming the first field
    /// that does not read; the ranges are [`QosPlan::validate`]'s to judge.
    pub fn from_texts(text: impl Fn(&str) -> String) -> Result<QosPlan, FieldError> {
        let plan = QosPlan {
            nccl_ib_tc: parse_whole("nccl_ib_tc", &text("nccl_ib_tc"))?,
            dscp_priority: parse_dscp_map("dscp_priority", &text("dscp_priority"))?,
            pfc_priorities: parse_priorities("pfc_priorities", &text("pfc_priorities"))?,
            ecn_priorities: parse_priorities("ecn_priorities", &text("ecn_priorities"))?,
            cnp_dscp: parse_whole("cnp_dscp", &text("cnp_dscp"))?,
            ecn_kmin_bytes: parse_whole("ecn_kmin_bytes", &text("ecn_kmin_bytes"))?,
            pfc_xoff_bytes: parse_whole("pfc_xoff_bytes", &text("pfc_xoff_bytes"))?,
        };
        plan.validate()?;
        Ok(plan)
    }

    pub fn validate(&self) -> Result<(), FieldError> {
        if self.nccl_ib_tc > 255 {
            return Err(FieldError::new(
                "nccl_ib_tc",
                format!(
                    "{} does not fit the 8-bit traffic class (0–255)",
                    self.nccl_ib_tc
                ),
            ));
        }
        for (i, e) in self.dscp_priority.iter().enumerate() {
            if e.dscp > 63 {
                return Err(FieldError::new(
                    format!("dscp_priority[{i}].dscp"),
                    format!("{} is not a 6-bit DSCP (0–63)", e.dscp),
                ));
            }
            if e.priority > 7 {
                return Err(FieldError::new(
                    format!("dscp_priority[{i}].priority"),
                    format!("{} is not a priority 0–7", e.priority),
                ));
            }
            if self.dscp_priority[..i].iter().any(|o| o.dscp == e.dscp) {
                return Err(FieldError::new(
                    format!("dscp_priority[{i}].dscp"),
                    format!("DSCP {} is mapped twice", e.dscp),
                ));
            }
        }
        priorities("pfc_priorities", &self.pfc_priorities)?;
        priorities("ecn_priorities", &self.ecn_priorities)?;
        if self.cnp_dscp > 63 {
            return Err(FieldError::new(
                "cnp_dscp",
                format!("{} is not a 6-bit DSCP (0–63)", self.cnp_dscp),
            ));
        }
        if self.pfc_xoff_bytes == 0 {
            return Err(FieldError::new("pfc_xoff_bytes", "must be > 0"));
        }
        Ok(())
    }

    fn priority_of(&self, dscp: u8) -> (u8, bool) {
        self.dscp_priority
            .iter()
            .find(|e| e.dscp == dscp)
            .map_or((0, false), |e| (e.priority, true))
    }

    /// Follows the data and the CNPs through the map and says where the chain breaks.
    pub fn check(&self) -> Result<(QosChain, Vec<QosFinding>), FieldError> {
        self.validate()?;
        let tc = self.nccl_ib_tc as u8;
        let dscp = tc >> 2;
        let (priority, priority_mapped) = self.priority_of(dscp);
        let (cnp_priority, cnp_priority_mapped) = self.priority_of(self.cnp_dscp);
        let chain = QosChain {
            traffic_class: tc,
            dscp,
            ignored_ecn_bits: Ecn::from_bits(tc),
            priority,
            priority_mapped,
            pfc: self.pfc_priorities.contains(&priority),
            ecn: self.ecn_priorities.contains(&priority),
            cnp_priority,
            cnp_priority_mapped,
            cnp_pfc: self.pfc_priorities.contains(&cnp_priority),
        };
        let mut findings = Vec::new();
        let mut say = |severity, text: String, topic| {
            findings.push(QosFinding {
                severity,
                text,
                topic,
            })
        };
        const TC: &str = "/lossless#traffic-class-dscp-and-priority";
        if !priority_mapped {
            say(
                Severity::Error,
                format!(
                    "DSCP {dscp} (NCCL_IB_TC={tc}) is not in the map, so it lands in \
                     priority 0 like ordinary traffic. Map it, or set NCCL_IB_TC to \
                     4 × a mapped DSCP."
                ),
                TC,
            );
        }
        if chain.pfc {
            say(
                Severity::Ok,
                format!("RoCE data (DSCP {dscp}) runs in priority {priority}, which PFC keeps lossless."),
                "/lossless#priority-flow-control",
            );
        } else {
            say(
                Severity::Error,
                format!(
                    "RoCE data runs in priority {priority}, where PFC is off: a full queue \
                     drops packets and RC QPs retransmit (go-back-N)."
                ),
                "/lossless#priority-flow-control",
            );
        }
        if !chain.ecn {
            // What happens without ECN depends on what PFC does on that priority.
            let then = if chain.pfc {
                "before PFC pauses the link"
            } else {
                "before the queue fills and drops"
            };
            say(
                Severity::Warning,
                format!(
                    "ECN/DCQCN is not enabled on priority {priority}: nothing slows the \
                     senders {then}."
                ),
                "/lossless#ecn-must-act-before-pfc",
            );
        }
        if !matches!(chain.ignored_ecn_bits, Ecn::NotEct) {
            say(
                Severity::Ok,
                format!(
                    "The low two bits of NCCL_IB_TC={tc} are ECN bits; mlx5 ignores them \
                     when it programs the DSCP ({dscp})."
                ),
                TC,
            );
        }
        if cnp_priority == priority && !chain.cnp_pfc {
            say(
                Severity::Warning,
                format!(
                    "CNPs (DSCP {}) share priority {priority} with the data and are not \
                     protected: congestion can drop the very packets that report it.",
                    self.cnp_dscp
                ),
                "/lossless#cnps-the-receivers-answer",
            );
        } else if cnp_priority == priority {
            say(
                Severity::Warning,
                format!(
                    "CNPs (DSCP {}) share the data's priority {priority}: they wait behind \
                     the congestion they report. Give them their own, higher queue.",
                    self.cnp_dscp
                ),
                "/lossless#cnps-the-receivers-answer",
            );
        } else {
            say(
                Severity::Ok,
                format!(
                    "CNPs (DSCP {}) travel in priority {cnp_priority}, apart from the data.",
                    self.cnp_dscp
                ),
                "/lossless#cnps-the-receivers-answer",
            );
        }
        if self.ecn_kmin_bytes >= self.pfc_xoff_bytes {
            say(
                Severity::Error,
                format!(
                    "ECN starts marking at {} B but PFC pauses at {} B: PFC fires first, \
                     so the pause spreads and DCQCN never hears of the congestion.",
                    self.ecn_kmin_bytes, self.pfc_xoff_bytes
                ),
                "/lossless#ecn-must-act-before-pfc",
            );
        } else {
            say(
                Severity::Ok,
                format!(
                    "ECN marks from {} B, below PFC's XOFF at {} B.",
                    self.ecn_kmin_bytes, self.pfc_xoff_bytes
                ),
                "/lossless#ecn-must-act-before-pfc",
            );
        }
        Ok((chain, findings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(plan: &QosPlan) -> Vec<QosFinding> {
        plan.check()
            .unwrap()
            .1
            .into_iter()
            .filter(|f| f.severity != Severity::Ok)
            .collect()
    }

    #[test]
    fn the_pages_example_is_clean() {
        // content/topics/lossless.md: DSCP 26 × 4 = 104; 106 = 26 × 4 + ECT(0).
        assert_eq!(traffic_class_byte(26, 0), 104);
        assert_eq!(traffic_class_byte(26, 0b10), 106);
        let plan = QosPlan::example();
        let (chain, _) = plan.check().unwrap();
        assert_eq!((chain.dscp, chain.priority), (26, 3));
        assert!(chain.pfc && chain.ecn && chain.priority_mapped);
        assert_eq!(chain.cnp_priority, 6);
        assert!(errors(&plan).is_empty(), "{:?}", errors(&plan));
    }

    /// UX check 2026-12: with TC 26 (priority 0, PFC off) the ECN warning spoke of PFC
    /// pausing the link, one line below saying PFC was off there.
    #[test]
    fn the_ecn_warning_speaks_of_what_pfc_does_on_that_priority() {
        let plan = QosPlan {
            nccl_ib_tc: 26,
            ..QosPlan::example()
        };
        let (chain, findings) = plan.check().unwrap();
        assert!(!chain.pfc && !chain.ecn, "{chain:?}");
        let ecn = findings
            .iter()
            .find(|f| f.text.starts_with("ECN/DCQCN is not enabled"))
            .expect("the ECN warning");
        assert!(!ecn.text.contains("PFC pauses"), "{}", ecn.text);
        assert!(ecn.text.contains("drops"), "{}", ecn.text);
    }

    /// UX check 2026-12: `26:3; 48:6` was refused.
    #[test]
    fn lists_take_commas_semicolons_or_spaces() {
        // The example plan's map, as the page's text writes it.
        let want = QosPlan::example().dscp_priority;
        for text in ["26:3, 48:6", "26:3; 48:6", "26:3 48:6", "26:3;48:6"] {
            assert_eq!(parse_dscp_map("dscp_map", text).unwrap(), want, "{text}");
        }
        assert_eq!(parse_priorities("pfc", "3; 4").unwrap(), vec![3, 4]);
        assert!(parse_dscp_map("dscp_map", "26-3").is_err());
    }

    #[test]
    fn tc_106_selects_the_same_dscp_as_104() {
        let plan = QosPlan {
            nccl_ib_tc: 106,
            ..QosPlan::example()
        };
        let (chain, _) = plan.check().unwrap();
        assert_eq!(chain.dscp, 26);
        assert_eq!(chain.ignored_ecn_bits, Ecn::Ect0);
        assert!(errors(&plan).is_empty());
    }

    #[test]
    fn an_unmapped_dscp_lands_in_lossy_priority_0() {
        // NCCL_IB_TC=96 is DSCP 24, which the example map does not list.
        let plan = QosPlan {
            nccl_ib_tc: 96,
            ..QosPlan::example()
        };
        let (chain, _) = plan.check().unwrap();
        assert_eq!((chain.dscp, chain.priority, chain.pfc), (24, 0, false));
        let e = errors(&plan);
        assert!(e.iter().any(|f| f.text.contains("not in the map")));
        assert!(e.iter().any(|f| f.text.contains("PFC is off")));
    }

    #[test]
    fn inverted_thresholds_and_shared_cnp_queue_are_named() {
        let plan = QosPlan {
            ecn_kmin_bytes: 500_000,
            cnp_dscp: 26,
            ..QosPlan::example()
        };
        let e = errors(&plan);
        assert!(e.iter().any(|f| f.text.contains("PFC fires first")));
        assert!(e
            .iter()
            .any(|f| f.text.contains("share the data's priority")));
    }

    #[test]
    fn out_of_range_fields_are_named() {
        let field = |p: QosPlan| p.check().unwrap_err().field;
        let ex = QosPlan::example;
        assert_eq!(
            field(QosPlan {
                nccl_ib_tc: 256,
                ..ex()
            }),
            "nccl_ib_tc"
        );
        assert_eq!(
            field(QosPlan {
                cnp_dscp: 64,
                ..ex()
            }),
            "cnp_dscp"
        );
        assert_eq!(
            field(QosPlan {
                pfc_priorities: vec![8],
                ..ex()
            }),
            "pfc_priorities"
        );
        let mut twice = ex();
        twice.dscp_priority.push(DscpPriority {
            dscp: 26,
            priority: 1,
        });
        assert_eq!(field(twice), "dscp_priority[2].dscp");
    }

    #[test]
    fn typed_maps_and_lists_read_or_name_the_field() {
        assert_eq!(
            parse_dscp_map("map", "26:3, 48:6").unwrap(),
            QosPlan::example().dscp_priority
        );
        assert_eq!(parse_dscp_map("map", " ").unwrap(), vec![]);
        assert_eq!(parse_priorities("pfc", "3 4").unwrap(), vec![3, 4]);
        for bad in ["26", "26:x", "a:3", "26:3:1", "300:1"] {
            assert_eq!(
                parse_dscp_map("map", bad).unwrap_err().field,
                "map",
                "{bad}"
            );
        }
        assert_eq!(parse_priorities("pfc", "3,x").unwrap_err().field, "pfc");
    }

    #[test]
    fn texts_read_back_to_the_same_plan() {
        let plan = QosPlan::example();
        let texts = plan.texts();
        let get = |k: &str| texts.iter().find(|(n, _)| *n == k).unwrap().1.clone();
        assert_eq!(QosPlan::from_texts(get).unwrap(), plan);
        let e = QosPlan::from_texts(|k| {
            if k == "cnp_dscp" {
                "4 8".into()
            } else {
                get(k)
            }
        });
        assert_eq!(e.unwrap_err().field, "cnp_dscp");
        let e = QosPlan::from_texts(|k| if k == "cnp_dscp" { "99".into() } else { get(k) });
        assert_eq!(e.unwrap_err().field, "cnp_dscp");
    }

    #[test]
    fn json_refuses_unknown_fields() {
        let mut v = serde_json::to_value(QosPlan::example()).unwrap();
        v["nccl_ib_sl"] = 3.into();
        let e = serde_json::from_value::<QosPlan>(v)
            .unwrap_err()
            .to_string();
        assert!(e.contains("nccl_ib_sl"), "{e}");
    }
}
