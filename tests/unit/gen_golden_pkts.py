#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Golden RoCEv2 packets for tests/unit/test_ib_pkt.c, made independently of
softmlx5's C code:

  - IB transport headers are packed here by hand with struct.pack from the
    IBTA layouts (BTH, RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, IETH,
    DETH, XRCETH) and softmlx5's DCETH (src/device/transport/ib_pkt.h);
  - IPv4 packets are built by scapy 2.5 (IP / UDP / scapy.contrib.roce BTH),
    which computes the IPv4 header checksum and the ICRC; the BTH scapy
    builds must equal ours, and its ICRC must equal icrc() below;
  - IPv6 packets: scapy's IPv6 / UDP headers (scapy 2.5 has no IPv6 ICRC),
    ICRC from icrc() below: zlib.crc32 over 8 x 0xff + the packet with the
    variant fields masked (IBTA Annex A17).

Writes tests/unit/golden_pkts.inc (C initializers) and the fuzz seeds in
tests/fuzz/corpus-ib-pkt/. Run with Debian's python (it has scapy):
    /usr/bin/python3 tests/unit/gen_golden_pkts.py
"""
import ipaddress
import os
import struct
import sys
import zlib

from scapy.compat import raw
from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

V4_SRC, V4_DST = "192.168.1.10", "192.168.1.20"
V6_SRC, V6_DST = "fe80::202:c9ff:fe00:101", "fd00:1:2:3::4"

# ---- IB transport headers (network byte order) -----------------------------


def bth(op, dqpn, psn, se=0, mig=0, pad=0, pkey=0xffff, resv8a=0, ackreq=0):
    return struct.pack(">BBHII", op, se << 7 | mig << 6 | pad << 4, pkey,
                       resv8a << 24 | dqpn, ackreq << 31 | psn)


def reth(va, rkey, dlen):
    return struct.pack(">QII", va, rkey, dlen)


def aeth(syn, msn):
    return struct.pack(">I", syn << 24 | msn)


def atomiceth(va, rkey, swap_add, compare):
    return struct.pack(">QIQQ", va, rkey, swap_add, compare)


def atomicacketh(orig):
    return struct.pack(">Q", orig)


def ieth(rkey):
    return struct.pack(">I", rkey)


def deth(qkey, srcqp):
    return struct.pack(">II", qkey, srcqp)


def xrceth(srqn):
    return struct.pack(">I", srqn)


def dceth(key, dci, gen=0):
    return struct.pack(">QB", key, gen) + dci.to_bytes(3, "big") + bytes(4)


def payload(n, seed):
    return bytes((i * 37 + seed) & 0xff for i in range(n))


def icrc(ip):
    """ICRC of an IP packet (without ICRC), our own reading of Annex A17."""
    b = bytearray(ip)
    if b[0] >> 4 == 4:
        ihl = (b[0] & 15) * 4
        b[1] = 0xff                 # TOS
        b[8] = 0xff                 # TTL
        b[10:12] = b"\xff\xff"      # header checksum
    else:
        ihl = 40
        b[0] |= 0x0f                # traffic class + flow label
        b[1:4] = b"\xff\xff\xff"
        b[7] = 0xff                 # hop limit
    b[ihl + 6:ihl + 8] = b"\xff\xff"   # UDP checksum
    b[ihl + 8 + 4] = 0xff              # BTH byte 4 (FECN, BECN, resv6)
    return zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xffffffff


def udp_sport(fl, lqpn, rqpn):
    """The kernel's rdma_get_udp_sport(), reimplemented."""
    if fl == 0:
        v = lqpn * rqpn
        v ^= v >> 20
        v ^= v >> 40
        fl = v & 0xfffff
    return ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000


# ---- the packets ------------------------------------------------------------
#
# Each: name, IP version, l3 fields, BTH fields, extended-header bytes and
# their parsed values (C field names of struct ibp_hdr), payload.

PKTS = []


def pkt(name, ipv, op, dqpn, psn, ext=b"", fields=None, paylen=0, seed=1,
        imm=None, se=0, mig=0, ackreq=0, resv8a=0, pkey=0xffff,
        tclass=0, hop=64, flow=0, sport=0xc000, ip_id=0, udp_csum=False):
    pay = payload(paylen, seed)
    pad = (4 - paylen % 4) % 4
    ext = ext + (imm if imm is not None else b"")
    PKTS.append(dict(name=name, ipv=ipv, op=op, dqpn=dqpn, psn=psn, ext=ext,
                     fields=fields or {}, pay=pay, pad=pad, imm=imm, se=se,
                     mig=mig, ackreq=ackreq, resv8a=resv8a, pkey=pkey,
                     tclass=tclass, hop=hop, flow=flow, sport=sport,
                     ip_id=ip_id, udp_csum=udp_csum))


IMM = b"\xde\xad\xbe\xef"

pkt("rc_send_only", 4, 0x04, 0x000012, 0x123456, paylen=13, se=1, ackreq=1,
    sport=udp_sport(0, 0x12, 0x34), ip_id=0x1234)
pkt("rc_send_only_udp_csum", 4, 0x04, 0x000012, 0x123457, paylen=31, seed=20,
    ackreq=1, ip_id=0x4321, udp_csum=True)
pkt("rc_send_first", 4, 0x00, 0x00abcd, 0x000001, paylen=64, seed=2,
    tclass=0x68, ip_id=1)
pkt("rc_send_middle", 6, 0x01, 0x00abcd, 0x000002, paylen=64, seed=3,
    flow=0x12345, tclass=0x2a, hop=255)
pkt("rc_send_last_imm", 4, 0x03, 0x00abcd, 0x000003, paylen=5, seed=4,
    imm=IMM, se=1, ackreq=1, ip_id=0xffff)
pkt("rc_write_only_imm", 6, 0x0b, 0xfedcba, 0xffffff,
    ext=reth(0x00007f0012345678, 0x00c0ffee, 7),
    fields=dict(va=0x00007f0012345678, rkey=0x00c0ffee, dma_len=7),
    paylen=7, seed=5, imm=b"\x01\x02\x03\x04", ackreq=1, flow=0xfffff)
pkt("rc_write_first", 4, 0x06, 0x000100, 0x000010,
    ext=reth(0x1000, 0x1234, 4096), fields=dict(va=0x1000, rkey=0x1234, dma_len=4096),
    paylen=256, seed=6, mig=1)
pkt("rc_read_req", 4, 0x0c, 0x000101, 0x000020,
    ext=reth(0xffffffff00000000, 0xabcdef01, 3000),
    fields=dict(va=0xffffffff00000000, rkey=0xabcdef01, dma_len=3000), ackreq=1)
pkt("rc_read_resp_first", 4, 0x0d, 0x000102, 0x000020,
    ext=aeth(0x1f, 0x000005), fields=dict(syndrome=0x1f, msn=5), paylen=1024, seed=7)
pkt("rc_read_resp_middle", 6, 0x0e, 0x000102, 0x000021, paylen=1024, seed=8)
pkt("rc_read_resp_last", 4, 0x0f, 0x000102, 0x000022,
    ext=aeth(0x1f, 0x000005), fields=dict(syndrome=0x1f, msn=5), paylen=10, seed=9)
pkt("rc_read_resp_only", 6, 0x10, 0x000102, 0x000023,
    ext=aeth(0x1f, 0x000006), fields=dict(syndrome=0x1f, msn=6), paylen=0)
pkt("rc_ack", 4, 0x11, 0x000200, 0x000030,
    ext=aeth(0x1f, 0x00abcd), fields=dict(syndrome=0x1f, msn=0xabcd))
pkt("rc_ack_credits", 4, 0x11, 0x000200, 0x000031,
    ext=aeth(0x07, 0x00abce), fields=dict(syndrome=0x07, msn=0xabce), resv8a=0x40)
pkt("rc_nak_seq", 6, 0x11, 0x000200, 0x000032,
    ext=aeth(0x60, 0x00abce), fields=dict(syndrome=0x60, msn=0xabce))
pkt("rc_nak_rem_access", 4, 0x11, 0x000200, 0x000033,
    ext=aeth(0x62, 0x00abce), fields=dict(syndrome=0x62, msn=0xabce))
pkt("rc_rnr_nak", 4, 0x11, 0x000200, 0x000034,
    ext=aeth(0x20 | 14, 0x00abce), fields=dict(syndrome=0x2e, msn=0xabce))
pkt("rc_cmp_swap", 4, 0x13, 0x000300, 0x000040,
    ext=atomiceth(0x00007f0000001000, 0x11223344, 0x0102030405060708,
                  0x1112131415161718),
    fields=dict(va=0x00007f0000001000, rkey=0x11223344,
                swap_add=0x0102030405060708, compare=0x1112131415161718),
    ackreq=1)
pkt("rc_fetch_add", 6, 0x14, 0x000300, 0x000041,
    ext=atomiceth(0x00007f0000001008, 0x11223344, 1, 0),
    fields=dict(va=0x00007f0000001008, rkey=0x11223344, swap_add=1, compare=0),
    ackreq=1)
pkt("rc_atomic_ack", 4, 0x12, 0x000301, 0x000040,
    ext=aeth(0x1f, 0x000007) + atomicacketh(0x8877665544332211),
    fields=dict(syndrome=0x1f, msn=7, atomic_orig=0x8877665544332211))
pkt("rc_send_only_inv", 4, 0x17, 0x000400, 0x000050,
    ext=ieth(0x0badcafe), fields=dict(ieth_rkey=0x0badcafe), paylen=20, seed=10,
    ackreq=1)
pkt("rc_send_last_inv", 6, 0x16, 0x000400, 0x000051,
    ext=ieth(0x0badf00d), fields=dict(ieth_rkey=0x0badf00d), paylen=3, seed=11,
    ackreq=1, se=1)
pkt("uc_send_only", 6, 0x24, 0x000500, 0x000060, paylen=1, seed=12)
pkt("uc_write_first", 4, 0x26, 0x000500, 0x000061,
    ext=reth(0x2000, 0x77, 2048), fields=dict(va=0x2000, rkey=0x77, dma_len=2048),
    paylen=1024, seed=13)
pkt("ud_send_only_imm", 4, 0x65, 0x000600, 0x000070,
    ext=deth(0x11111111, 0x000abc), fields=dict(qkey=0x11111111, src_qp=0xabc),
    paylen=33, seed=14, imm=b"\x00\x00\x00\x2a", se=1)
pkt("ud_send_only_gsi", 6, 0x64, 0x000001, 0x000071,
    ext=deth(0x80010000, 0x000001), fields=dict(qkey=0x80010000, src_qp=1),
    paylen=256, seed=15, pkey=0xffff)
pkt("xrc_send_only", 4, 0xa4, 0x000700, 0x000080,
    ext=xrceth(0x00beef), fields=dict(xrc_srqn=0xbeef), paylen=9, seed=16, ackreq=1)
pkt("xrc_write_only", 6, 0xaa, 0x000700, 0x000081,
    ext=xrceth(0x00beef) + reth(0x3000, 0x99, 16),
    fields=dict(xrc_srqn=0xbeef, va=0x3000, rkey=0x99, dma_len=16),
    paylen=16, seed=17, ackreq=1)
pkt("xrc_ack", 4, 0xb1, 0x000701, 0x000081,
    ext=aeth(0x1f, 2), fields=dict(syndrome=0x1f, msn=2))
pkt("dc_send_only", 6, 0xe4, 0x000800, 0x000090,
    ext=dceth(0x0123456789abcdef, 0x000801, 3),
    fields=dict(dc_key=0x0123456789abcdef, dc_gen=3, dc_sqpn=0x801),
    paylen=12, seed=18, ackreq=1)
pkt("dc_write_only_imm", 4, 0xeb, 0x000800, 0x000091,
    ext=dceth(0x0123456789abcdef, 0x000801) + reth(0x4000, 0x55, 8),
    fields=dict(dc_key=0x0123456789abcdef, dc_sqpn=0x801, va=0x4000, rkey=0x55,
                dma_len=8),
    paylen=8, seed=19, imm=IMM, ackreq=1)
pkt("dc_read_req", 4, 0xec, 0x000800, 0x000092,
    ext=dceth(0xfedcba9876543210, 0x000802) + reth(0x5000, 0x66, 100),
    fields=dict(dc_key=0xfedcba9876543210, dc_sqpn=0x802, va=0x5000, rkey=0x66,
                dma_len=100),
    ackreq=1)
pkt("dc_fetch_add", 6, 0xf4, 0x000800, 0x000093,
    ext=dceth(0xfedcba9876543210, 0x000802) + atomiceth(0x6000, 0x67, 5, 0),
    fields=dict(dc_key=0xfedcba9876543210, dc_sqpn=0x802, va=0x6000, rkey=0x67,
                swap_add=5, compare=0),
    ackreq=1)


def build(p):
    ib = bth(p["op"], p["dqpn"], p["psn"], p["se"], p["mig"], p["pad"],
             p["pkey"], p["resv8a"], p["ackreq"]) + p["ext"] + p["pay"] + b"\0" * p["pad"]
    if p["ipv"] == 4:
        ip = IP(src=V4_SRC, dst=V4_DST, tos=p["tclass"], ttl=p["hop"],
                id=p["ip_id"], flags="DF")
        # scapy's own BTH layer, so scapy computes the ICRC.
        # udp_csum: scapy computes the UDP checksum (after the ICRC).
        s = (ip / UDP(sport=p["sport"], dport=4791,
                      chksum=None if p["udp_csum"] else 0) /
             BTH(opcode=p["op"], solicited=p["se"], migreq=p["mig"],
                 padcount=p["pad"], pkey=p["pkey"], fecn=p["resv8a"] >> 7,
                 becn=(p["resv8a"] >> 6) & 1, resv6=p["resv8a"] & 0x3f,
                 dqpn=p["dqpn"], ackreq=p["ackreq"], psn=p["psn"]) /
             Raw(ib[12:]))
        out = raw(s)
        assert out[28:-4] == ib, p["name"] + ": scapy's BTH differs from ours"
        assert struct.unpack("<I", out[-4:])[0] == icrc(out[:-4]), \
            p["name"] + ": scapy's ICRC differs from ours"
        return out
    s = (IPv6(src=V6_SRC, dst=V6_DST, tc=p["tclass"], fl=p["flow"], hlim=p["hop"],
              nh=17) /
         UDP(sport=p["sport"], dport=4791, chksum=0) / Raw(ib + b"\0\0\0\0"))
    out = raw(s)[:-4]
    return out + struct.pack("<I", icrc(out))


def gid(ipv, addr):
    if ipv == 4:
        return b"\0" * 10 + b"\xff\xff" + ipaddress.IPv4Address(addr).packed
    return ipaddress.IPv6Address(addr).packed


def c_bytes(b, indent="\t\t"):
    lines = []
    for i in range(0, len(b), 12):
        lines.append(indent + " ".join("0x%02x," % x for x in b[i:i + 12]))
    return "\n".join(lines)


def main():
    out = []
    out.append("/* Generated by tests/unit/gen_golden_pkts.py (scapy %s, zlib.crc32);"
               " do not edit. */" % __import__("scapy").__version__)
    seeds = os.path.join(ROOT, "tests", "fuzz", "corpus-ib-pkt")
    os.makedirs(seeds, exist_ok=True)
    for p in PKTS:
        b = build(p)
        ib_off = 28 if p["ipv"] == 4 else 48
        hdr_len = 12 + len(p["ext"])
        src = V4_SRC if p["ipv"] == 4 else V6_SRC
        dst = V4_DST if p["ipv"] == 4 else V6_DST
        out.append("static const uint8_t golden_%s[] = {\n%s\n};" % (p["name"], c_bytes(b, "\t")))
        p["bytes"] = b
        p["ib_off"] = ib_off
        p["hdr_len"] = hdr_len
        p["sgid"], p["dgid"] = gid(p["ipv"], src), gid(p["ipv"], dst)
        with open(os.path.join(seeds, p["name"]), "wb") as f:
            f.write(b)
        with open(os.path.join(seeds, p["name"] + ".ib"), "wb") as f:
            f.write(b[ib_off:-4])
    out.append("")
    out.append("static const struct golden_pkt golden[] = {")
    for p in PKTS:
        f = dict(p["fields"])
        hf = ["\t\t.opcode = 0x%02x, .se = %d, .mig = %d, .pad = %d, .pkey = 0x%04x,"
              % (p["op"], p["se"], p["mig"], p["pad"], p["pkey"]),
              "\t\t.resv8a = 0x%02x, .dqpn = 0x%06x, .ackreq = %d, .psn = 0x%06x,"
              % (p["resv8a"], p["dqpn"], p["ackreq"], p["psn"])]
        for k, v in f.items():
            hf.append("\t\t.%s = 0x%x," % (k, v))
        hf.append("\t\t.hdr_len = %d, .paylen = %d," % (p["hdr_len"], len(p["pay"])))
        out.append("\t{ .name = \"%s\", .ipv = %d, .ib_off = %d," % (p["name"], p["ipv"], p["ib_off"]))
        out.append("\t  .pkt = golden_%s, .len = sizeof(golden_%s)," % (p["name"], p["name"]))
        out.append("\t  .l3 = { .sgid = { %s }," % ", ".join("0x%02x" % x for x in p["sgid"]))
        out.append("\t\t  .dgid = { %s }," % ", ".join("0x%02x" % x for x in p["dgid"]))
        out.append("\t\t  .tclass = 0x%02x, .hop_limit = %d, .flow_label = 0x%05x,"
                   " .sport = 0x%04x, .ip_id = 0x%04x }," % (
                       p["tclass"], p["hop"], p["flow"] if p["ipv"] == 6 else 0,
                       p["sport"], p["ip_id"] if p["ipv"] == 4 else 0))
        if p["udp_csum"]:
            out.append("\t  .udp_csum = 1,")
        if p["imm"] is not None:
            out.append("\t  .has_imm = 1, .imm = { %s }," % ", ".join("0x%02x" % x for x in p["imm"]))
        out.append("\t  .h = {")
        out.extend(hf)
        out.append("\t  } },")
    out.append("};")
    out.append("")
    out.append("/* rdma_get_udp_sport(fl, lqpn, rqpn), computed in Python. */")
    out.append("static const struct { uint32_t fl, lqpn, rqpn; uint16_t sport; } golden_sport[] = {")
    for fl, l, r in [(0, 0x12, 0x34), (0, 1, 1), (0, 0xffffff, 0xffffff), (0, 0x1234, 0xabcdef),
                     (0, 0, 7), (0x12345, 1, 2), (0xfffff, 0, 0), (1, 5, 6)]:
        out.append("\t{ 0x%x, 0x%x, 0x%x, 0x%04x }," % (fl, l, r, udp_sport(fl, l, r)))
    out.append("};")
    path = os.path.join(HERE, "golden_pkts.inc")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print("wrote %s (%d packets) and %s" % (path, len(PKTS), seeds))


if __name__ == "__main__":
    sys.exit(main())
