//! IP over InfiniBand (RFC 4391): a UD SEND whose payload starts with the 4-byte IPoIB
//! header, an EtherType and two reserved bytes, before the IP packet (or ARP). The
//! EtherType is shown under Wireshark's name for it (`infiniband.rwh.etype`) and an IPv4 or
//! IPv6 header under the IP tables the RoCE path uses, with no RoCE rule applied to it.

use super::{num, Dissector, Read, Row};
use crate::wire::ethernet::EtherType;
use crate::wire::ipv4::Ipv4Packet;
use crate::wire::ipv6::{self, Ipv6Packet};
use crate::wire::Header;

/// The IPoIB header's bytes.
pub(super) const IPOIB_LEN: usize = 4;
const ARP: u16 = 0x0806;

#[rustfmt::skip]
const IPOIB: [Row; 2] = [
    num("infiniband.rwh.etype", "Ethertype", 0, 2)
        .pick(&[(0x0800, "IPv4"), (0x86DD, "IPv6"), (ARP as u64, "ARP")], "other"),
    num("infiniband.ipoib.reserved", "Reserved (not a Wireshark field)", 2, 2),
];

/// Whether a UD payload is IPoIB: an IP or ARP EtherType, then two zero bytes.
pub(super) fn is_ipoib(payload: &[u8]) -> bool {
    match payload {
        [t0, t1, 0, 0, ..] => matches!(u16::from_be_bytes([*t0, *t1]), 0x0800 | 0x86DD | ARP),
        _ => false,
    }
}

impl Dissector<'_> {
    /// The IPoIB header at `at`, then the IP header after it; the rest as data.
    pub(super) fn ipoib(&mut self, at: usize, len: usize) {
        let f = self.frame;
        let mut l = self.named_layer(
            "infiniband.payload",
            "IBA Payload - EtherType encapsulated (IPoIB)",
            at,
            len,
        );
        l.rows(at, &IPOIB);
        self.push(l);
        let (ip_at, end) = (at + IPOIB_LEN, at + len);
        let packet = f.get(ip_at..end).unwrap_or(&[]);
        let ethertype = EtherType(u16::from_be_bytes([f[at], f[at + 1]]));
        let header_len = match ethertype {
            EtherType::IPV4 => Ipv4Packet::new_checked(packet)
                .ok()
                .map(|p| (Header::Ipv4, p.header_len())),
            EtherType::IPV6 => Ipv6Packet::new_checked(packet)
                .ok()
                .map(|_| (Header::Ipv6, ipv6::HEADER_LEN)),
            _ => None,
        };
        let data_at = match header_len {
            Some((h, hl)) => {
                let l = self.header(h, ip_at, hl);
                self.push(l);
                ip_at + hl
            }
            None => ip_at,
        };
        if data_at < end {
            let mut l = self.named_layer("data", "Data", data_at, end - data_at);
            let row = super::row("data.data", "Data", 0, end - data_at, Read::Hex);
            l.row(data_at, &row).meaning =
                format!("{} bytes after the header", end - data_at).into();
            self.push(l);
        }
    }
}
