#!/usr/bin/env python3
"""Independent RoCE v2 test vectors for engine/tests/wire_vectors.rs.

Frames are built with scapy (>= 2.5; `scapy.contrib.roce` computes the ICRC in its
BTH.post_build), which shares no code with the Rust engine. Extended transport headers
that scapy does not model (RETH, DETH) are packed here with `struct`, straight from
the IBTA Vol 1 §9.3 layouts.

Outputs (all committed):
  vectors.json    one entry per frame: hex bytes, the ICRC scapy computed, and the
                  expected values of Wireshark display-filter fields
  vectors.pcap    the same frames, for tshark
  tshark.json     what `tshark -r vectors.pcap -T json` says about them, reduced to
                  {field name: integer} per frame (written only when tshark exists)

Run: pip install scapy; python3 gen_vectors.py
"""
import json
import shutil
import struct
import subprocess
import sys

from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH, AETH, cnp

MAC_A = "02:00:00:00:00:01"
MAC_B = "02:00:00:00:00:02"
V4_A, V4_B = "192.168.1.1", "192.168.1.2"
V6_A, V6_B = "fd00::1", "fd00::2"


def reth(va, rkey, dmalen):
    return struct.pack("!QII", va, rkey, dmalen)


def deth(qkey, srcqp):
    return struct.pack("!II", qkey, srcqp & 0xFFFFFF)


def pad4(payload):
    pad = (4 - len(payload) % 4) % 4
    return payload + b"\x00" * pad, pad


def v4(tos=0, ttl=64, ident=0, vlan=None):
    eth = Ether(src=MAC_A, dst=MAC_B)
    if vlan is not None:
        eth = eth / Dot1Q(prio=vlan[0], id=0, vlan=vlan[1])
    return eth / IP(src=V4_A, dst=V4_B, tos=tos, ttl=ttl, id=ident, flags="DF")


def v6(tc=0, fl=0, hlim=64):
    return Ether(src=MAC_A, dst=MAC_B) / IPv6(src=V6_A, dst=V6_B, tc=tc, fl=fl, hlim=hlim)


def udp_v4(sport):
    # RoCE v2 senders leave the UDP checksum zero over IPv4.
    return UDP(sport=sport, dport=4791, chksum=0)


def udp_v6(sport):
    return UDP(sport=sport, dport=4791)


vectors = []


def add(name, pkt, fields):
    raw = bytes(pkt)
    icrc = int.from_bytes(raw[-4:], "little")
    fields = dict(fields)
    fields["infiniband.invariant.crc"] = icrc
    vectors.append({"name": name, "hex": raw.hex(), "icrc": icrc, "fields": fields})
    return pkt


frames = []

# 1. RC SEND Only over IPv4 with an 802.1Q tag, 11-byte payload (pad count 1).
payload, pad = pad4(b"hello RoCE!")
frames.append(add(
    "ipv4_vlan_rc_send_only",
    v4(tos=(26 << 2) | 2, ttl=64, ident=0x1234, vlan=(3, 100)) / udp_v4(49152)
    / BTH(opcode=0x04, solicited=1, padcount=pad, pkey=0xFFFF, dqpn=0x000011, ackreq=1, psn=100)
    / Raw(payload),
    {"vlan.priority": 3, "vlan.dei": 0, "vlan.id": 100, "ip.dsfield.dscp": 26, "ip.dsfield.ecn": 2,
     "ip.ttl": 64, "udp.srcport": 49152, "udp.dstport": 4791, "udp.checksum": 0,
     "infiniband.bth.opcode": 4, "infiniband.bth.se": 1, "infiniband.bth.m": 0,
     "infiniband.bth.padcnt": 1, "infiniband.bth.tver": 0, "infiniband.bth.p_key": 0xFFFF,
     "infiniband.bth.destqp": 0x11, "infiniband.bth.a": 1, "infiniband.bth.psn": 100},
))

# 2. RC RDMA WRITE Only with RETH over IPv4, 64-byte payload.
body = bytes(range(64))
frames.append(add(
    "ipv4_rc_write_only_reth",
    v4(tos=(26 << 2) | 2) / udp_v4(50000)
    / BTH(opcode=0x0A, pkey=0xFFFF, dqpn=0x0000C3, ackreq=1, psn=0xFFFFFF)
    / Raw(reth(0x00007F0012345678, 0xDEADBEEF, 64) + body),
    {"infiniband.bth.opcode": 0x0A, "infiniband.bth.destqp": 0xC3, "infiniband.bth.psn": 0xFFFFFF,
     "infiniband.reth.va": 0x00007F0012345678, "infiniband.reth.r_key": 0xDEADBEEF,
     "infiniband.reth.dmalen": 64},
))

# 3. RC Acknowledge with AETH over IPv6 (ACK, credit count 31 = invalid), flow label set.
frames.append(add(
    "ipv6_rc_ack_aeth",
    v6(tc=(26 << 2) | 2, fl=0x12345, hlim=63) / udp_v6(49153)
    / BTH(opcode=0x11, pkey=0xFFFF, dqpn=0x000022, psn=4242) / AETH(syndrome=0x1F, msn=7),
    {"ipv6.tclass": (26 << 2) | 2, "ipv6.flow": 0x12345, "ipv6.hlim": 63,
     "infiniband.bth.opcode": 0x11, "infiniband.bth.destqp": 0x22, "infiniband.bth.psn": 4242,
     "infiniband.aeth.syndrome": 0x1F, "infiniband.aeth.msn": 7},
))

# 4. RC NAK (PSN sequence error) over IPv4.
frames.append(add(
    "ipv4_rc_nak_psn_seq",
    v4() / udp_v4(49154)
    / BTH(opcode=0x11, pkey=0xFFFF, dqpn=0x000033, psn=77) / AETH(syndrome=0x60, msn=3),
    {"infiniband.bth.opcode": 0x11, "infiniband.aeth.syndrome": 0x60, "infiniband.aeth.msn": 3},
))

# 5. CNP over IPv4 (scapy's cnp(): opcode 0x81, BECN set, 16 reserved bytes), DSCP 48.
frames.append(add(
    "ipv4_cnp",
    v4(tos=(48 << 2) | 2) / udp_v4(49155) / cnp(0x000044),
    {"ip.dsfield.dscp": 48, "infiniband.bth.opcode": 0x81, "infiniband.bth.destqp": 0x44},
))

# 6. UD SEND Only with DETH over IPv6, 256-byte payload.
body = bytes((i * 7) & 0xFF for i in range(256))
frames.append(add(
    "ipv6_ud_send_only_deth",
    v6(tc=0, fl=0xABCDE) / udp_v6(49156)
    / BTH(opcode=0x64, pkey=0xFFFF, dqpn=0x000001, psn=9)
    / Raw(deth(0x80010000, 0x000001) + body),
    {"infiniband.bth.opcode": 0x64, "infiniband.deth.q_key": 0x80010000,
     "infiniband.deth.srcqp": 1},
))

# 7. RC RDMA READ Request over IPv4 (RETH, no payload).
frames.append(add(
    "ipv4_rc_read_request",
    v4() / udp_v4(49157)
    / BTH(opcode=0x0C, pkey=0x8001, dqpn=0x000055, ackreq=0, psn=1000)
    / Raw(reth(0x1000, 0x1234, 8192)),
    {"infiniband.bth.opcode": 0x0C, "infiniband.bth.p_key": 0x8001,
     "infiniband.reth.va": 0x1000, "infiniband.reth.r_key": 0x1234, "infiniband.reth.dmalen": 8192},
))

# 8. Frame 1 again after a switch marked it: ECN CE, TTL decremented, FECN set. Only
#    variant fields changed, so the ICRC must equal frame 1's.
payload, pad = pad4(b"hello RoCE!")
frames.append(add(
    "ipv4_vlan_rc_send_only_marked",
    v4(tos=(26 << 2) | 3, ttl=63, ident=0x1234, vlan=(3, 100)) / udp_v4(49152)
    / BTH(opcode=0x04, solicited=1, padcount=pad, pkey=0xFFFF, fecn=1, dqpn=0x000011, ackreq=1, psn=100)
    / Raw(payload),
    {"ip.dsfield.ecn": 3, "ip.ttl": 63},
))

with open("vectors.json", "w") as f:
    json.dump({"generator": "scapy " + __import__("scapy").VERSION, "vectors": vectors}, f, indent=1)
wrpcap("vectors.pcap", frames)

if shutil.which("tshark"):
    out = subprocess.run(["tshark", "-r", "vectors.pcap", "-T", "json", "-d", "udp.port==4791,infiniband"],
                         check=True, capture_output=True, text=True).stdout
    wanted = {k for v in vectors for k in v["fields"]} | {"udp.length", "ip.len", "ip.checksum"}
    reduced = []

    def walk(node, acc):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in wanted and isinstance(v, str):
                    try:
                        acc.setdefault(k, int(v, 0))
                    except ValueError:
                        pass
                walk(v, acc)
        elif isinstance(node, list):
            for x in node:
                walk(x, acc)

    for pkt in json.loads(out):
        acc = {}
        walk(pkt["_source"]["layers"], acc)
        reduced.append(acc)
    version = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    with open("tshark.json", "w") as f:
        json.dump({"tshark": version, "frames": reduced}, f, indent=1)
else:
    print("tshark not found; tshark.json not regenerated", file=sys.stderr)
