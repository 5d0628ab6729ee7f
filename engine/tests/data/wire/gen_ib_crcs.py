#!/usr/bin/env python3
"""Independent CRCs for the lab's InfiniBand sample (engine/tests/capture_erf.rs).

Reads assets/samples/ib-sample.pcap (pcap of ERF type-21 records, as ibdump writes them),
and for each packet computes, from IBTA Vol 1 §7.8 rather than from the engine's code:

  ICRC  CRC-32 (the Ethernet polynomial, zlib's crc32) over the packet from the LRH to the
        end of the payload and pad, with the variant fields set to ones: the LRH's VL, the
        GRH's traffic class, flow label and hop limit (when LNH says a GRH follows), and
        byte 4 of the BTH. Sent least significant byte first.
  VCRC  CRC-16 with polynomial 0x100B, initial value 0xFFFF, bits processed least
        significant first, complemented at the end, over the whole packet up to it.
        Sent least significant byte first.

Writes ib_crcs.json: per frame, the ICRC and VCRC computed here. The test checks that the
values in the packets (which the engine's emit wrote) are these.

Run: python3 gen_ib_crcs.py
"""
import json
import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parents[3] / "assets" / "samples" / "ib-sample.pcap"


def packets(data):
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), "a little-endian pcap"
    assert struct.unpack("<I", data[20:24])[0] == 197, "LINKTYPE_ERF"
    at = 24
    while at < len(data):
        incl = struct.unpack("<I", data[at + 8:at + 12])[0]
        record = data[at + 16:at + 16 + incl]
        rlen = struct.unpack(">H", record[10:12])[0]
        wlen = struct.unpack(">H", record[14:16])[0]
        assert record[8] & 0x7F == 21 and not record[8] & 0x80
        yield record[16:16 + min(rlen - 16, wlen)]
        at += 16 + incl


def icrc(packet):
    lnh = packet[1] & 3
    fixed = 8 + (40 if lnh == 3 else 0) + 12
    m = bytearray(packet[:-6])
    m[0] |= 0xF0
    if lnh == 3:
        m[8] |= 0x0F
        m[9:12] = b"\xff\xff\xff"
        m[8 + 7] = 0xFF
    m[fixed - 12 + 4] = 0xFF
    return zlib.crc32(bytes(m)) & 0xFFFFFFFF


def vcrc(packet):
    crc = 0xFFFF
    for byte in packet[:-2]:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD008 if crc & 1 else crc >> 1
    return crc ^ 0xFFFF


def main():
    out = []
    for n, p in enumerate(packets(SAMPLE.read_bytes()), start=1):
        out.append({"frame": n, "icrc": icrc(p), "vcrc": vcrc(p)})
    (HERE / "ib_crcs.json").write_text(json.dumps({"frames": out}, indent=1) + "\n")
    print(f"{len(out)} frames")


if __name__ == "__main__":
    main()
