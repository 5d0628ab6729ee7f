//! Captured RoCE v2 and InfiniBand frames, built on the header codecs of [`crate::wire`].
//!
//! * pcap and pcapng files, read in place and written ([`pcap`]), and the ERF records
//!   `ibdump` writes in them ([`erf`]),
//! * the field-level dissector for the UI and `native-probe decode --json`
//!   ([`dissect`](mod@dissect)),
//! * the packet list of a capture, with its allocation-free fast path ([`listing`]), and its
//!   PSN conversations and retransmissions ([`conversation`]),
//! * a serde packet description and builder for crafting ([`spec`]), the verbs call that
//!   sends such a packet ([`verbs`]), segmentation and per-packet overhead ([`segment`]),
//! * editable hex ([`hex`]), the purpose of each layer ([`encap`]), the lab's sample
//!   capture ([`sample`]) and the /roce view's "try this" tasks ([`exercise`]).

pub mod conversation;
pub mod dissect;
pub mod encap;
pub mod erf;
pub mod exercise;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzz;
pub mod hex;
pub mod ib_sample;
pub mod listing;
pub mod pcap;
pub mod sample;
pub mod segment;
pub mod spec;
pub mod verbs;

pub use dissect::{dissect, DecodedFrame, Field, FieldValue, Layer};
pub use pcap::{read_capture, CaptureFile, CapturedFrame, LinkType};
pub use spec::{build, BuildError, PacketSpec};
