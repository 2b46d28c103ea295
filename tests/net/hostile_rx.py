#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Hostile RoCEv2 datagrams from the network against a live device.

Run in host B of tests/net/two_hosts.sh while host A runs hostile_target
(tests/net/udp_link.sh, case `hostile`): A's RC QPs are connected to
requesters on B that do not exist; this script is that requester, forging
every packet by hand (IPv6, so the receiver checks the ICRC, computed here
with check_pcap.icrc(), independently of softmlx5's C code), from port
4791 of B's address, where it also reads what A answers.

What the IBTA says and a ConnectX does, per packet (A's QP i, its next
expected PSN e_i, one MR of a page between two pages the MR does not
cover, all three filled with 0xa5):
  QP 0  truncated datagram; a good RDMA WRITE with a bad ICRC; a WRITE to
        a QPN that does not exist; a good WRITE from an address not in
        the QP's path: dropped, no answer, nothing written.
        A WRITE with a PSN far ahead: NAK PSN sequence error for e_0;
        another one 3 ahead: no answer (one NAK until e_0 arrives).
        Then a good WRITE: ACKed, written. The same PSN again with other
        bytes: a duplicate, ACKed again, not written again.
  QP 1  a WRITE with a wrong rkey: NAK remote access error, QP in error.
  QP 2  a WRITE Only whose RETH length (16) disagrees with its payload
        (32): NAK invalid request, QP in error.
  QP 3  a reserved RC opcode (0x1e): NAK invalid request (QP in error) or
        dropped as malformed; nothing written either way.
  QP 4  a WRITE running 8 bytes past the MR's end: NAK remote access
        error, QP in error, the page after the MR untouched.
  QP 5  a READ starting 16 bytes before the MR: NAK remote access error,
        no data returned, QP in error.
  QP 6  a FETCH_ADD to an address that is not 8-byte aligned: NAK invalid
        request, QP in error, nothing changed.
  QP 7  a WRITE whose payload runs past the path MTU (1280 bytes at MTU
        1024, within the veth's 1500) in one packet: dropped or NAK
        invalid request; nothing written.
Afterwards A's memory must hold exactly the one good WRITE, QP 0 must
still be in RTS and its counters must have moved. The device must still
be alive to answer (hostile_target prints its QPs' states and pages).
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "transport"))
from check_pcap import icrc  # noqa: E402  (the independent ICRC)

# hostile_rx.py OUT 4|6 OTHER_ADDRESS: IPv6 in udp mode (a UDP socket
# cannot see the IPv4 identification the ICRC covers, so only IPv6's is
# checked there), IPv4 in raw mode (where both are, and B's kernel takes
# the checksum-0 answers only over IPv4).
OUT, FAM = sys.argv[1], int(sys.argv[2])
AF = socket.AF_INET6 if FAM == 6 else socket.AF_INET
A6, B6 = os.environ["HOST_A_IP%d" % FAM], os.environ["HOST_B_IP%d" % FAM]
C6 = sys.argv[3]
PORT = 4791
IP_ID = 0x5a5a
FAILS = []

# IBTA opcodes (RC) and NAK codes (AETH syndrome)
WRITE_ONLY, READ_REQ, READ_RESP_ONLY, ACK, FETCH_ADD = 0x0a, 0x0c, 0x10, 0x11, 0x14
NAK_PSN, NAK_INV, NAK_ACCESS = 0x60, 0x61, 0x62


def fail(msg):
    FAILS.append(msg)
    print("FAIL  hostile: " + msg)


def wait_for(path, text, secs=20):
    end = time.time() + secs
    while time.time() < end:
        try:
            with open(path) as f:
                data = f.read()
            if text in data:
                return data
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    sys.exit("hostile_rx.py: %s never showed %r" % (path, text))


def bth(op, qpn, psn, ackreq=True, pad=0):
    return struct.pack(">BBHII", op, pad << 4, 0xffff, qpn & 0xffffff,
                       (0x80000000 if ackreq else 0) | (psn & 0xffffff))


def reth(va, rkey, length):
    return struct.pack(">QII", va, rkey, length)


def frame(src, ib, bad_icrc=False):
    """The UDP payload of a RoCEv2 packet from src:4791 to A: the IB
    packet padded to 4 bytes, with its ICRC over the IPv6 and UDP headers
    the kernel will write (masked fields set to anything)."""
    pad = -len(ib) % 4
    ib = bytearray(ib + b"\0" * pad)
    ib[1] |= pad << 4
    ulen = 8 + len(ib) + 4
    if FAM == 6:
        ip = struct.pack(">IHBB", 6 << 28, ulen, 17, 64)
    else:
        # our own identification (the ICRC covers it), DF, checksum 0:
        # the raw socket fills it in
        ip = struct.pack(">BBHHHBBH", 0x45, 0, 20 + ulen, IP_ID, 0x4000, 64, 17, 0)
    ip += socket.inet_pton(AF, src)
    ip += socket.inet_pton(AF, A6)
    udp = struct.pack(">HHHH", PORT, PORT, ulen, 0)
    c = icrc(ip + udp + bytes(ib))
    if bad_icrc:
        c ^= 1
    tail = bytes(ib) + struct.pack("<I", c)
    # IPv6: a UDP socket sends what follows the UDP header; IPv4: the whole
    # datagram through a raw socket, so the identification is ours
    return tail if FAM == 6 else ip + udp + tail


def answers(sock, secs=0.4):
    """(opcode, qpn, psn, syndrome or None, payload bytes) of what came back."""
    got = []
    end = time.time() + secs
    while True:
        left = end - time.time()
        if left <= 0:
            return got
        sock.settimeout(left)
        try:
            d = sock.recv(4096)
        except socket.timeout:
            return got
        if len(d) < 16:
            continue
        op, _, _, qpn, psn = struct.unpack(">BBHII", d[:12])
        syn = d[12] if op in (0x0d, 0x0f, 0x10, 0x11, 0x12) else None
        got.append((op, qpn & 0xffffff, psn & 0xffffff, syn, len(d) - 16))


def main():
    info = wait_for(os.path.join(OUT, "hostile.A"), "\n").split("\n")[0]
    kv = dict(x.split("=") for x in info.split())
    qpn = [int(x, 16) for x in kv["qpn"].split(",")]
    psn = [int(x, 16) for x in kv["psn"].split(",")]
    rkey, addr = int(kv["rkey"], 16), int(kv["addr"], 16)
    mrlen = int(kv["len"])

    s = socket.socket(AF, socket.SOCK_DGRAM)
    s.bind((B6, PORT))
    other = socket.socket(AF, socket.SOCK_DGRAM)
    other.bind((C6, PORT))

    if FAM == 4:
        rawsock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)

    def send(ib, src=B6, sock=None, bad_icrc=False, raw=None):
        if raw is not None:
            s.sendto(raw, (A6, PORT))
        elif FAM == 6:
            (sock or s).sendto(frame(src, ib, bad_icrc), (A6, PORT))
        else:
            rawsock.sendto(frame(src, ib, bad_icrc), (A6, 0))

    def expect_none(what):
        got = answers(s)
        if got:
            fail("%s: answered %s" % (what, got))

    def expect_nak(what, q, code, epsn):
        got = answers(s)
        want = [(ACK, q, epsn, code)]
        if [g[:4] for g in got] != want:
            fail("%s: answers %s, want NAK 0x%x for psn 0x%x" % (what, got, code, epsn))

    w16 = lambda b: bytes([b]) * 16  # noqa: E731
    e0 = psn[0]
    # --- QP 0: dropped, nothing written, no answer
    send(None, raw=bth(WRITE_ONLY, qpn[0], e0)[:6])
    send(bth(WRITE_ONLY, qpn[0], e0) + reth(addr, rkey, 16) + w16(0x11), bad_icrc=True)
    send(bth(WRITE_ONLY, 0xabcdef, e0) + reth(addr, rkey, 16) + w16(0x12))
    send(bth(WRITE_ONLY, qpn[0], e0) + reth(addr, rkey, 16) + w16(0x13), src=C6, sock=other)
    expect_none("dropped packets to QP 0")
    if answers(other, 0.1):
        fail("the address not in the QP's path was answered")
    # --- QP 0: ahead of the expected PSN -> one NAK sequence error (for
    # the expected PSN), then nothing until the expected PSN comes
    send(bth(WRITE_ONLY, qpn[0], e0 + 0x400000) + reth(addr, rkey, 16) + w16(0x14))
    expect_nak("PSN far ahead", 0x800, NAK_PSN, e0)
    send(bth(WRITE_ONLY, qpn[0], e0 + 3) + reth(addr, rkey, 16) + w16(0x15))
    expect_none("PSN ahead again (NAKed once already)")
    # --- QP 0: the good WRITE, then its duplicate
    send(bth(WRITE_ONLY, qpn[0], e0) + reth(addr + 64, rkey, 16) + w16(0x44))
    got = answers(s)
    if [g[:3] for g in got] != [(ACK, 0x800, e0)] or not got[0][3] < 0x20:
        fail("good WRITE: answers %s, want an ACK for psn 0x%x" % (got, e0))
    send(bth(WRITE_ONLY, qpn[0], e0) + reth(addr + 64, rkey, 16) + w16(0x55))
    got = answers(s)
    if [g[:3] for g in got] != [(ACK, 0x800, e0)]:
        fail("duplicate WRITE: answers %s, want the ACK again" % got)
    # --- one QP per fatal error
    send(bth(WRITE_ONLY, qpn[1], psn[1]) + reth(addr, rkey ^ 0xffff00, 16) + w16(0x21))
    expect_nak("wrong rkey", 0x801, NAK_ACCESS, psn[1])
    send(bth(WRITE_ONLY, qpn[2], psn[2]) + reth(addr, rkey, 16) + bytes([0x22]) * 32)
    expect_nak("RETH length 16, payload 32", 0x802, NAK_INV, psn[2])
    send(bth(0x1e, qpn[3], psn[3]) + reth(addr, rkey, 16) + w16(0x23))
    got = answers(s)
    if got and [g[:4] for g in got] != [(ACK, 0x803, psn[3], NAK_INV)]:
        fail("reserved opcode: answers %s, want nothing or NAK invalid request" % got)
    reserved_nakd = bool(got)
    send(bth(WRITE_ONLY, qpn[4], psn[4]) + reth(addr + mrlen - 8, rkey, 16) + w16(0x24))
    expect_nak("WRITE past the MR", 0x804, NAK_ACCESS, psn[4])
    send(bth(READ_REQ, qpn[5], psn[5]) + reth(addr - 16, rkey, 32))
    expect_nak("READ before the MR", 0x805, NAK_ACCESS, psn[5])
    send(bth(FETCH_ADD, qpn[6], psn[6]) + struct.pack(">QIQQ", addr + 4, rkey, 1, 0))
    expect_nak("unaligned FETCH_ADD", 0x806, NAK_INV, psn[6])
    send(bth(WRITE_ONLY, qpn[7], psn[7]) + reth(addr, rkey, 1280) + bytes([0x27]) * 1280)
    got = answers(s)
    if got and [g[:4] for g in got] != [(ACK, 0x807, psn[7], NAK_INV)]:
        fail("1280-byte packet at MTU 1024: answers %s" % got)
    big_nakd = bool(got)

    open(os.path.join(OUT, "hostile.done"), "w").close()
    res = wait_for(os.path.join(OUT, "hostile.A"), "page 2 ")
    ctr = wait_for(os.path.join(OUT, "hostile.ctr"), "\n")
    state = {}
    pages = {}
    for line in res.split("\n"):
        f = line.split()
        if len(f) == 3 and f[0] == "state":
            state[int(f[1])] = int(f[2])
        elif len(f) == 3 and f[0] == "page":
            pages[int(f[1])] = bytes.fromhex(f[2])
    want_mr = bytearray(b"\xa5" * mrlen)
    want_mr[64:80] = w16(0x44)
    if pages.get(0) != b"\xa5" * 4096 or pages.get(2) != b"\xa5" * 4096:
        fail("a page outside the MR changed")
    if pages.get(1) != bytes(want_mr):
        diff = [i for i in range(mrlen) if pages.get(1, b"")[i:i + 1] != want_mr[i:i + 1]]
        fail("the MR holds other bytes than the one good WRITE (at %s: %s)"
             % (diff[:4], pages.get(1, b"")[diff[0]:diff[0] + 4].hex() if diff else ""))
    RTS, ERR = 3, 6
    want_state = {0: RTS, 1: ERR, 2: ERR, 3: ERR if reserved_nakd else RTS,
                  4: ERR, 5: ERR, 6: ERR, 7: ERR if big_nakd else RTS}
    for i, st in want_state.items():
        if state.get(i) != st:
            fail("QP %d in state %s, want %d" % (i, state.get(i), st))
    c = {}
    for line in ctr.split("\n"):
        f = line.split()
        if len(f) == 2 and f[1].isdigit():
            c[f[0]] = c.get(f[0], 0) + int(f[1])
    for name, least in (("rx_icrc_errors", 1), ("rx_malformed", 1), ("rx_dropped", 1),
                        ("out_of_sequence", 1), ("duplicate_request", 1),
                        ("resp_remote_access_errors", 3)):
        if c.get(name, 0) < least:
            fail("counter %s is %s, want at least %d" % (name, c.get(name), least))
    if FAILS:
        sys.exit(1)
    print("PASS  hostile: %d forged packets counted, dropped or NAKed as a "
          "ConnectX does; only the one good WRITE reached memory (rx_icrc_errors %d, "
          "rx_malformed %d, rx_dropped %d)" % (17, c["rx_icrc_errors"],
                                              c["rx_malformed"], c["rx_dropped"]))


main()
