#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Checks a SOFTMLX5_PCAP capture independently of softmlx5's C code.

    check_pcap.py --writer PCAP_WRITER [--rounds N] [--procs N]
    check_pcap.py [--expect OP,OP,...] FILE
    check_pcap.py [--expect OP,OP,...] --capture-of PROG [ARG...]
    check_pcap.py --wire [--raw [--sports N]] [--lossy] [--expect OP,OP,...] FILE

With --writer, runs tests/transport/pcap_writer (several processes capture
every golden packet, rebuilt by the C builders, into one new file in a
temporary directory) and checks the record count and opcode names too.
With FILE, checks any capture (SOFTMLX5_PCAP of a real run, without
faults; --lossy when the interface's queue dropped some before the capture
saw them): also the PSNs of each connection's requests (check_psns()); prints
how many packets of each opcode it holds, and with --expect fails unless
each opcode listed (hex) is among them. With --capture-of, runs PROG alone
(SOFTMLX5_SHM_PATH=off: one process, its messages on the loopback link in
packets, which a capture turns on) with SOFTMLX5_PCAP on a new file, which
it must exit 0 from, and checks that file the same way.
tests/transport/capture_run.py imports check_file() for its captures.
With --wire, FILE was taken on an interface (tcpdump, dumpcap) while the
network link ran (tests/net/udp_link.sh, tests/interop/rxe_interop.sh): any
snaplen, the interfaces' own unicast MACs, UDP source port 4791 (a socket's,
netdev_mode udp) or one of 0xC000..0xFFFF (a QP's: a whole RoCEv2 frame from
a peer such as Soft-RoCE), and a checksum that is 0 or right (the kernel
computes it for a socket); every ICRC is still recomputed (on IPv4 a socket
sends identification 0, which the sender's ICRC assumed). With --wire --raw
the capture is of netdev_mode raw, whose frames are softmlx5's from the IP
header on: UDP checksum 0, and each packet's UDP source port the one
rdma_get_udp_sport() derives from its QP pair (flow label 0): for UD from
the DETH's source QP and the destination QP, for RC / UC from the
destination QP of a packet going the other way between the same two
addresses (a connection's two directions share the port); with --sports N
at least N distinct source ports (N QPs).

Pure Python checks: the pcap global header (one, linktype Ethernet, snaplen
65535), every record whole (records of different processes must not
interleave), Ethernet type by IP version, locally administered MACs, IPv4
header checksum, lengths, UDP port 4791, and every ICRC recomputed with
zlib.crc32 over the masked fields (IBTA Annex A17).

Then tshark (-d udp.port==4791,infiniband --disable-protocol rpcordma,
PDML) must dissect every packet as InfiniBand with no malformed packet and
no error or warning expert info (except the zero UDP checksum of IPv6,
which RoCEv2 sends on purpose), find the ICRC where we put it, agree with
our parse of the BTH and extended headers, and print our opcode names
(DC's vendor opcodes aside). Every RC, UC and UD packet (QP0/QP1 MADs
aside) must be dissected whole: the InfiniBand protocol spans the packet,
its items are exactly the BTH, the extended headers the opcode carries (in
order, at their sizes) and the ICRC, and the payload with its pad follows
the headers as data. XRC packets must be named XRC (Wireshark 4.0 shows
the XRCETH and what follows as vendor data); DC's are ours alone.

Wireshark 4.0's Mellanox EoIB heuristic reads the first payload byte of
every UD packet and throws on an empty one (a zero-length UD SEND shows as
malformed): it is disabled (--disable-heuristic mellanox_eoib) where tshark
knows it. Without tshark: exit 77 (skipped) after the Python checks pass.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SKIP = 77
failures = []
WIRE = False	# --wire: a capture taken on an interface (udp mode)
RAW = False	# --raw: ... of netdev_mode raw


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def icrc(ip):
    b = bytearray(ip)
    if b[0] >> 4 == 4:
        ihl = (b[0] & 15) * 4
        b[1] = b[8] = 0xff
        b[10:12] = b"\xff\xff"
    else:
        ihl = 40
        b[0] |= 0x0f
        b[1:4] = b"\xff\xff\xff"
        b[7] = 0xff
    b[ihl + 6:ihl + 8] = b"\xff\xff"
    b[ihl + 12] = 0xff
    return zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xffffffff


def ip4_csum_ok(h):
    s = sum(struct.unpack(">%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s == 0xffff


# Extended headers after the BTH, by operation (opcode & 0x1f): RC's.
OPS = {
    0x00: [], 0x01: [], 0x02: [], 0x03: ["ImmDt"], 0x04: [], 0x05: ["ImmDt"],
    0x06: ["RETH"], 0x07: [], 0x08: [], 0x09: ["ImmDt"], 0x0a: ["RETH"],
    0x0b: ["RETH", "ImmDt"], 0x0c: ["RETH"], 0x0d: ["AETH"], 0x0e: [],
    0x0f: ["AETH"], 0x10: ["AETH"], 0x11: ["AETH"], 0x12: ["AETH", "AtomicAckETH"],
    0x13: ["AtomicETH"], 0x14: ["AtomicETH"], 0x16: ["IETH"], 0x17: ["IETH"],
}
SIZES = {"ImmDt": 4, "RETH": 16, "AETH": 4, "AtomicAckETH": 8, "AtomicETH": 28,
         "IETH": 4, "DETH": 8, "XRCETH": 4, "DCETH": 16}
RESPONSES = range(0x0d, 0x13)


def parse_ib(ib):
    """Our own reading of the BTH and extended headers: a dict of fields."""
    op, fl, pkey, w1, w2 = struct.unpack(">BBHII", ib[:12])
    f = {"opcode": op, "se": fl >> 7, "m": (fl >> 6) & 1, "padcnt": (fl >> 4) & 3,
         "tver": fl & 15, "p_key": pkey, "destqp": w1 & 0xffffff,
         "a": w2 >> 31, "psn": w2 & 0xffffff}
    t, x = op & 0xe0, op & 0x1f
    if t == 0x60:
        hdrs = ["DETH"] + (["ImmDt"] if x == 5 else [])
    else:
        hdrs = list(OPS[x])
        if t == 0xa0 and x not in RESPONSES:
            hdrs.insert(0, "XRCETH")
        if t == 0xe0:
            hdrs.insert(0, "DCETH")
    off = 12
    for h in hdrs:
        d = ib[off:off + SIZES[h]]
        if len(d) != SIZES[h]:
            raise ValueError("%s truncated" % h)
        if h == "RETH":
            f["reth.va"], f["reth.r_key"], f["reth.dmalen"] = struct.unpack(">QII", d)
        elif h == "AtomicETH":
            f["atomiceth.va"], f["atomiceth.r_key"], f["atomiceth.swapdt"], \
                f["atomiceth.cmpdt"] = struct.unpack(">QIQQ", d)
        elif h == "AETH":
            v = struct.unpack(">I", d)[0]
            f["aeth.syndrome"], f["aeth.msn"] = v >> 24, v & 0xffffff
        elif h == "AtomicAckETH":
            f["atomicacketh.origremdt"] = struct.unpack(">Q", d)[0]
        elif h == "DETH":
            q, s = struct.unpack(">II", d)
            f["deth.q_key"], f["deth.srcqp"] = q, s & 0xffffff
        elif h == "DCETH":
            f["_dc_sqpn"] = struct.unpack(">I", d[8:12])[0] & 0xffffff
        off += SIZES[h]
    f["hdr_len"] = off
    if (len(ib) - off) < f["padcnt"] or len(ib) % 4:
        raise ValueError("bad pad or length")
    # (keys with "_" are ours alone, not compared with Wireshark's fields)
    f["_hdrs"], f["_body"] = hdrs, len(ib) - off
    return f


def read_pcap(path):
    with open(path, "rb") as fp:
        data = fp.read()
    if len(data) < 24:
        fail("%s: no global header" % path)
        return []
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic == 0xa1b2c3d4 else ">"
    magic, vmaj, vmin, _, _, snaplen, linktype = struct.unpack(end + "IHHiIII", data[:24])
    if magic != 0xa1b2c3d4 or (vmaj, vmin) != (2, 4):
        fail("bad pcap magic/version %#x %d.%d" % (magic, vmaj, vmin))
    if (snaplen != 65535 and not WIRE) or linktype != 1:
        fail("snaplen %d linktype %d" % (snaplen, linktype))
    recs, at = [], 24
    while at < len(data):
        if len(data) - at < 16:
            fail("record header truncated at %d" % at)
            break
        _, _, incl, orig = struct.unpack(end + "IIII", data[at:at + 16])
        if incl != orig or incl > 65535 or at + 16 + incl > len(data):
            fail("record at %d: incl %d orig %d (interleaved or cut?)" % (at, incl, orig))
            break
        recs.append(data[at + 16:at + 16 + incl])
        at += 16 + incl
    return recs


def csum16(data):
    data += b"\0" if len(data) % 2 else b""
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def udp_csum_ok(ip, ver, ihl):
    """The UDP checksum over the pseudo header (RFC 768 / RFC 8200), or,
    captured before a device's checksum offload filled it in (a veth), the
    pseudo header's sum the kernel leaves there."""
    udp = ip[ihl:]
    if ver == 4:
        pseudo = ip[12:20] + struct.pack(">BBH", 0, 17, len(udp))
    else:
        pseudo = ip[8:40] + struct.pack(">IxxxB", len(udp), 17)
    return csum16(pseudo + udp) == 0xffff or \
        struct.unpack(">H", udp[6:8])[0] == csum16(pseudo)


def check_frame(n, fr):
    """Python checks of one frame; returns the parsed IB fields or None."""
    dmac, smac, etype = fr[:6], fr[6:12], struct.unpack(">H", fr[12:14])[0]
    ip = fr[14:]
    if WIRE:
        if dmac[0] & 1 or smac[0] & 1:
            fail("frame %d: a multicast MAC" % n)
    elif dmac[0] != 0x02 or smac[0] != 0x02:
        fail("frame %d: MACs not locally administered unicast" % n)
    ver = ip[0] >> 4
    if (ver, etype) not in ((4, 0x0800), (6, 0x86dd)):
        fail("frame %d: IP version %d with ethertype %#x" % (n, ver, etype))
        return None
    if ver == 4:
        ihl = (ip[0] & 15) * 4
        if not ip4_csum_ok(ip[:ihl]):
            fail("frame %d: IPv4 header checksum" % n)
        if struct.unpack(">H", ip[2:4])[0] != len(ip) or ip[9] != 17:
            fail("frame %d: IPv4 total length / protocol" % n)
        if not ip[6] & 0x40:
            fail("frame %d: IPv4 DF not set" % n)
    else:
        ihl = 40
        if 40 + struct.unpack(">H", ip[4:6])[0] != len(ip) or ip[6] != 17:
            fail("frame %d: IPv6 payload length / next header" % n)
    sport, dport, ulen, ucsum = struct.unpack(">HHHH", ip[ihl:ihl + 8])
    if RAW:
        if dport != 4791 or ulen != len(ip) - ihl or ucsum != 0 or sport < 0xc000:
            fail("frame %d: UDP sport %#x dport %d len %d csum %#x" % (n, sport, dport, ulen, ucsum))
    elif WIRE:
        # a UDP socket's packet (source port 4791) or a whole RoCEv2 frame
        # (a peer's -- rxe, a ConnectX, netdev_mode raw: the QP's source
        # port), either with checksum 0 or a right one
        if dport != 4791 or ulen != len(ip) - ihl or \
                not (sport == 4791 or sport >= 0xc000) or \
                (ucsum and not udp_csum_ok(ip, ver, ihl)):
            fail("frame %d: UDP sport %d dport %d len %d csum %#x" % (n, sport, dport, ulen, ucsum))
    elif dport != 4791 or ulen != len(ip) - ihl or ucsum != 0 or sport < 0xc000:
        fail("frame %d: UDP sport %#x dport %d len %d csum %#x" % (n, sport, dport, ulen, ucsum))
    want = icrc(ip[:-4])
    got = struct.unpack("<I", ip[-4:])[0]
    if want != got:
        fail("frame %d: ICRC %#010x, recomputed %#010x" % (n, got, want))
    try:
        f = parse_ib(ip[ihl + 8:-4])
    except (ValueError, KeyError, struct.error) as e:
        fail("frame %d: IB headers: %s" % (n, e))
        return None
    f["icrc_be"] = struct.unpack(">I", ip[-4:])[0]
    f["ipv"] = ver
    # two hosts number their QPs alike: a connection is also its address
    f["_dst"] = ip[16:20] if ver == 4 else ip[24:40]
    f["_src"] = ip[12:16] if ver == 4 else ip[8:24]
    f["_sport"] = sport
    f["_ib_pos"], f["_ib_len"] = 14 + ihl + 8, len(ip) - ihl - 8
    return f


def wireshark_name(showname):
    """'Opcode: Reliable Connection (RC) - SEND Only (4)' -> 'RC SEND Only'."""
    s = showname.split(": ", 1)[1]
    if "(" not in s or " - " not in s:
        return None
    tr = s[s.index("(") + 1:s.index(")")]
    op = s.split(" - ", 1)[1].rsplit(" (", 1)[0]
    return tr + " " + op


def as_int(v):
    if v in ("True", "False"):
        return int(v == "True")
    return int(v, 0)


# Wireshark's item of each extended header.
WS_HDR = {"RETH": "infiniband.reth", "AETH": "infiniband.aeth",
          "AtomicETH": "infiniband.atomiceth", "AtomicAckETH": "infiniband.atomicacketh",
          "ImmDt": "infiniband.immdt", "IETH": "infiniband.ieth", "DETH": "infiniband.deth"}


def run_tshark(path):
    """PDML of the file (the EoIB heuristic off where tshark has it)."""
    base = ["tshark", "-r", path, "-n", "-d", "udp.port==4791,infiniband",
            "--disable-protocol", "rpcordma", "-T", "pdml"]
    out = subprocess.run(base + ["--disable-heuristic", "mellanox_eoib"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if out.returncode and b"disable" in out.stderr:
        out = subprocess.run(base, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             check=False)
    return out


def check_whole(n, ib, pk, f):
    """An RC / UC / UD packet dissected whole: the InfiniBand protocol's
    items are the BTH, the opcode's extended headers and the ICRC, end to
    end, and the payload (with its pad) is the data after the headers."""
    pos, end = f["_ib_pos"], f["_ib_pos"] + f["_ib_len"]
    want = [("infiniband.bth", 12)] + [(WS_HDR[h], SIZES[h]) for h in f["_hdrs"]]
    got = [(c.get("name"), int(c.get("size") or -1), int(c.get("pos") or -1))
           for c in ib]
    at = pos
    for i, (name, size) in enumerate(want):
        if i >= len(got) or got[i] != (name, size, at):
            fail("frame %d (opcode %#04x): Wireshark's headers %s, expected %s then the ICRC"
                 % (n, f["opcode"], [g[0] for g in got], [w[0] for w in want]))
            return
        at += size
    if got[len(want):] != [("infiniband.invariant.crc", 4, end - 4)]:
        fail("frame %d (opcode %#04x): after the headers Wireshark shows %s, not just the ICRC"
             % (n, f["opcode"], [g[0] for g in got[len(want):]]))
    if int(ib.get("size") or -1) != f["_ib_len"]:
        fail("frame %d: Wireshark's InfiniBand is %s bytes, the packet's %d"
             % (n, ib.get("size"), f["_ib_len"]))
    if f["_body"]:
        data = [e for e in pk.iter() if e.get("name") == "data.data"]
        if not data or (int(data[0].get("pos")), int(data[0].get("size"))) != (at, f["_body"]):
            fail("frame %d (opcode %#04x): the %d bytes of payload and pad at %d are not "
                 "shown as data" % (n, f["opcode"], f["_body"], at))


def check_tshark(path, parsed, names):
    """Returns Wireshark's name of each opcode it saw."""
    out = run_tshark(path)
    if out.returncode:
        fail("tshark: exit %d: %s" % (out.returncode, out.stderr.decode()[-500:]))
        return {}
    pkts = ET.fromstring(out.stdout).findall("packet")
    if len(pkts) != len(parsed):
        fail("tshark saw %d packets, the file has %d" % (len(pkts), len(parsed)))
    seen_names = {}
    for n, (pk, f) in enumerate(zip(pkts, parsed), 1):
        fields = {}
        ibs = [p for p in pk.findall("proto") if p.get("name") == "infiniband"]
        if not ibs:
            fail("frame %d: not dissected as InfiniBand (%s)"
                 % (n, [p.get("name") for p in pk.findall("proto")]))
            continue
        for el in pk.iter():
            name = el.get("name") or ""
            if name == "_ws.malformed":
                fail("frame %d: malformed: %s" % (n, el.get("showname")))
            if name == "_ws.expert":
                sn = el.get("showname") or ""
                zero6 = (f and f["ipv"] == 6 and
                         any(c.get("name") == "udp.checksum.zero" for c in el))
                if ("(Error/" in sn or "(Warning/" in sn) and not zero6:
                    fail("frame %d: %s" % (n, sn))
            if name.startswith("infiniband.") and el.get("show") is not None:
                fields.setdefault(name[len("infiniband."):], el)
        if not f:
            continue
        for k, v in f.items():
            if k.startswith("_"):
                continue
            key = "bth." + k if k in ("se", "m", "padcnt", "tver", "p_key",
                                      "destqp", "a", "psn") else k
            if key.startswith("atomiceth.va") or key.startswith("atomiceth.r_key"):
                key = key.replace("atomiceth.", "reth.")	# how Wireshark names them
            el = fields.get(key)
            if el is None:
                continue
            try:
                tv = as_int(el.get("show"))
            except ValueError:
                continue
            if tv != v:
                fail("frame %d: Wireshark %s = %#x, ours %#x" % (n, key, tv, v))
        op = f["opcode"]
        mad = op & 0xe0 == 0x60 and f["destqp"] <= 1
        if "invariant.crc" in fields:
            if as_int(fields["invariant.crc"].get("show")) != f["icrc_be"]:
                fail("frame %d: Wireshark found the ICRC elsewhere" % n)
        elif op < 0xa0 and not mad:
            # (Wireshark dissects QP0/QP1 payload as a MAD, without the ICRC)
            fail("frame %d: Wireshark shows no ICRC" % n)
        if op & 0xe0 in (0x00, 0x20, 0x60) and not mad:
            check_whole(n, ibs[0], pk, f)
        if "bth.opcode" in fields:
            seen_names[op] = wireshark_name(fields["bth.opcode"].get("showname"))
            if op & 0xe0 == 0xa0 and not (seen_names[op] or "").startswith("XRC "):
                fail("opcode %#04x: Wireshark names it \"%s\", not XRC"
                     % (op, seen_names[op]))
    for op, ours in names.items():
        theirs = seen_names.get(op)
        if op >= 0xe0:
            continue	# softmlx5's DC: vendor opcodes, unknown to Wireshark
        if theirs != ours:
            fail("opcode %#04x: ours \"%s\", Wireshark \"%s\"" % (op, ours, theirs))
    return seen_names


# IBTA names of the operations (opcode & 0x1f), for DC's opcodes (0xe0 |
# the RC operation), which Wireshark does not know.
OP_NAMES = {
    0x00: "SEND First", 0x01: "SEND Middle", 0x02: "SEND Last",
    0x03: "SEND Last with Immediate", 0x04: "SEND Only", 0x05: "SEND Only with Immediate",
    0x06: "RDMA WRITE First", 0x07: "RDMA WRITE Middle", 0x08: "RDMA WRITE Last",
    0x09: "RDMA WRITE Last with Immediate", 0x0a: "RDMA WRITE Only",
    0x0b: "RDMA WRITE Only with Immediate", 0x0c: "RDMA READ Request",
    0x0d: "RDMA READ response First", 0x0e: "RDMA READ response Middle",
    0x0f: "RDMA READ response Last", 0x10: "RDMA READ response Only",
    0x11: "Acknowledge", 0x12: "ATOMIC Acknowledge", 0x13: "CmpSwap", 0x14: "FetchAdd",
    0x16: "SEND Last with Invalidate", 0x17: "SEND Only with Invalidate",
}


def opcode_name(op, seen_names):
    if seen_names.get(op):
        return seen_names[op]
    tr = {0x00: "RC", 0x20: "UC", 0x40: "RD", 0x60: "UD", 0xa0: "XRC",
          0xe0: "DC"}.get(op & 0xe0, "?")
    return "%s %s" % (tr, OP_NAMES.get(op & 0x1f, "opcode %#04x" % op))


def psn_diff(a, b):
    """a - b in 24-bit PSN arithmetic."""
    d = (a - b) & 0xffffff
    return d - 0x1000000 if d & 0x800000 else d


def check_psns(parsed):
    """The requests of each connection take consecutive PSNs: one per
    packet, a READ request one for each of its responses (ceil(length /
    PMTU), at least one). A PSN behind is a retransmission and must repeat
    a request packet sent before -- or, for a READ, the rest of one sent
    before: a READ retried from its first missing response carries that
    response's PSN and its RETH starts as many PMTUs further, for as much
    less (IBTA 9.4.4); a PSN ahead is a packet never sent (no faults are
    injected in the runs that use this). PMTU: the payload of FIRST /
    MIDDLE packets, one size in the file (else READs are skipped)."""
    mtus = {f["_body"] - f["padcnt"] for f in parsed
            if f and f["opcode"] & 0x1f in (0x00, 0x01, 0x06, 0x07, 0x0d, 0x0e)}
    mtu = mtus.pop() if len(mtus) == 1 else None
    streams = {}
    for n, f in enumerate(parsed, 1):
        if not f:
            continue
        op, x = f["opcode"], f["opcode"] & 0x1f
        if op & 0xe0 not in (0x00, 0x20, 0xa0, 0xe0) or not (x <= 0x0c or x in (0x13, 0x14, 0x16, 0x17)):
            continue
        span = 1
        if x == 0x0c:
            if mtu is None:
                continue
            span = max(1, -(-f["reth.dmalen"] // mtu))
        key = (op & 0xe0, f["destqp"], f.get("_dc_sqpn"), f["_dst"])
        st = streams.setdefault(key, {"next": f["psn"], "used": set(), "reads": []})
        d = psn_diff(f["psn"], st["next"])
        rest = x == 0x0c and any(
            0 < psn_diff(f["psn"], p) < sp and
            f["reth.va"] == va + psn_diff(f["psn"], p) * mtu and
            f["reth.dmalen"] == ln - psn_diff(f["psn"], p) * mtu
            for p, sp, va, ln in st["reads"])
        if d > 0:
            fail("frame %d: opcode %#04x to QP %#x with PSN %d, %d past the next one (%d)"
                 % (n, op, f["destqp"], f["psn"], d, st["next"]))
        elif d < 0 and (f["psn"], op) not in st["used"] and not rest:
            fail("frame %d: opcode %#04x to QP %#x with PSN %d, behind the next one (%d) "
                 "and no retransmission of a packet sent before"
                 % (n, op, f["destqp"], f["psn"], st["next"]))
        st["used"].add((f["psn"], op))
        if x == 0x0c:
            st["reads"].append((f["psn"], span, f["reth.va"], f["reth.dmalen"]))
        st["next"] = (f["psn"] + span) & 0xffffff


def udp_sport(fl, lqpn, rqpn):
    """rdma_get_udp_sport() of the kernel's ib_verbs.h, written again."""
    if not fl:
        v = lqpn * rqpn
        v ^= v >> 20
        v ^= v >> 40
        fl = v & 0xfffff
    return ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000


def check_sports(parsed, want):
    """Every packet's UDP source port is its QP pair's (see --raw)."""
    back = {}
    for f in parsed:
        if f:
            back.setdefault((f["_src"], f["_dst"]), set()).add(f["destqp"])
    for n, f in enumerate(parsed, 1):
        if not f or f["opcode"] >> 5 not in (0, 1, 3):
            continue
        if f["opcode"] >> 5 == 3:
            ok = udp_sport(0, f["deth.srcqp"], f["destqp"]) == f["_sport"]
        else:
            ok = any(udp_sport(0, q, f["destqp"]) == f["_sport"]
                     for q in back.get((f["_dst"], f["_src"]), ()))
        if not ok:
            fail("frame %d: UDP source port %#x is not rdma_get_udp_sport() of "
                 "its QPs (destination QP %#x)" % (n, f["_sport"], f["destqp"]))
            return
    ports = {f["_sport"] for f in parsed if f}
    if len(ports) < want:
        fail("%d distinct UDP source ports, at least %d expected" % (len(ports), want))
    print("UDP source ports: %s" % " ".join("%#x" % p for p in sorted(ports)))


def check_file(path, expect=(), names=None, nrecords=None, psns=False, sports=0):
    """Every check of one capture. Returns (failures, {opcode: count},
    {opcode: name}, tshark_ran)."""
    del failures[:]
    recs = read_pcap(path)
    if nrecords is not None and len(recs) != nrecords:
        fail("%d records, expected %d" % (len(recs), nrecords))
    parsed = [check_frame(n, fr) for n, fr in enumerate(recs, 1)]
    counts = {}
    for f in parsed:
        if f:
            counts[f["opcode"]] = counts.get(f["opcode"], 0) + 1
    if psns:
        check_psns(parsed)
    for op in expect:
        if op not in counts:
            fail("no packet of opcode %#04x (%s)" % (op, opcode_name(op, {})))
    print("%s: %d records, %d ICRCs recomputed" %
          (os.path.basename(path), len(recs), sum(1 for f in parsed if f)))
    if RAW:
        check_sports(parsed, sports)
    seen, ran = {}, False
    if shutil.which("tshark"):
        seen, ran = check_tshark(path, parsed, names or {}), True
    return list(failures), counts, {op: opcode_name(op, seen) for op in counts}, ran


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?")
    ap.add_argument("--writer")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--expect", default="",
                    help="opcodes (hex, comma-separated) that must be in the file")
    ap.add_argument("--capture-of", nargs=argparse.REMAINDER,
                    help="a program (and its arguments) to capture")
    ap.add_argument("--wire", action="store_true",
                    help="FILE was taken on an interface (netdev_mode udp)")
    ap.add_argument("--raw", action="store_true",
                    help="with --wire: netdev_mode raw (UDP checksum 0, per-QP ports)")
    ap.add_argument("--sports", type=int, default=0,
                    help="with --raw: at least this many UDP source ports")
    ap.add_argument("--lossy", action="store_true",
                    help="packets were lost before the capture saw them "
                         "(a full queue): PSNs not checked")
    a = ap.parse_args()
    global WIRE, RAW
    WIRE = a.wire
    RAW = a.wire and a.raw
    tmp = None
    names, expect = {}, None
    if a.writer:
        tmp = tempfile.mkdtemp(prefix="smx-pcap-")
        path = os.path.join(tmp, "cap.pcap")
        r = subprocess.run([a.writer, path, str(a.rounds), str(a.procs)],
                           stdout=subprocess.PIPE, check=False)
        if r.returncode:
            print("FAIL: %s exited %d" % (a.writer, r.returncode))
            return 1
        for line in r.stdout.decode().splitlines():
            w = line.split(" ", 2)
            if w[0] == "packets":
                expect = int(w[1])
            elif w[0] == "opcode":
                names[int(w[1], 16)] = w[2]
    elif a.capture_of:
        tmp = tempfile.mkdtemp(prefix="smx-pcap-")
        path = os.path.join(tmp, "cap.pcap")
        env = dict(os.environ, SOFTMLX5_PCAP=path, SOFTMLX5_SHM_PATH="off")
        r = subprocess.run(a.capture_of, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, check=False)
        if r.returncode:
            print(r.stdout.decode(errors="replace")[-4000:])
            print("FAIL: %s exited %d" % (a.capture_of[0], r.returncode))
            shutil.rmtree(tmp, ignore_errors=True)
            return 1
    elif a.file:
        path = a.file
    else:
        ap.error("a FILE or --writer")
    try:
        fails, counts, opnames, ran = check_file(
            path, [int(x, 16) for x in a.expect.split(",") if x], names, expect,
            psns=not a.writer and not a.lossy, sports=a.sports)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    if not a.writer:
        for op in sorted(counts):
            print("  %#04x %-40s %6d" % (op, opnames[op], counts[op]))
    if fails:
        print("%d failures" % len(fails))
        return 1
    if not ran:
        print("tshark not found (Debian: apt-get install tshark); skipped")
        return SKIP
    print("ok: every record whole, every ICRC right, tshark dissects all of them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
