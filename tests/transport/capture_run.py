#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Captures real runs of every transport between two processes and checks
each capture (tests/transport/check_pcap.py):

    capture_run.py [--build DIR] [--only REGEX] [--keep DIR] [--timeout SEC]

Each run is two processes on a segment of its own (SOFTMLX5_SHM_PATH) with
its own capture file (SOFTMLX5_PCAP), path MTU 1024: perftest and
ibverbs-utils programs as server + client under `softmlx5 run`, and
build/bin/capture_peer (it forks; see capture_peer.c) for what those
programs never send: SEND and RDMA WRITE with immediate, lengths that
need a pad, zero-length messages, solicited events, READ responses of one
packet.

SOFTMLX5_DIRECT=0 turns direct placement off (docs/multiprocess.md): RC /
UC RDMA WRITE, READ and atomics between processes otherwise go without
packets once the requester has learned the target's key, and a capture
would hold only the first few.

Every capture, in pure Python: every record whole, every ICRC recomputed
(zlib.crc32 over the masked fields) and right, the PSNs of each
connection's requests consecutive (a READ request taking one PSN per
response); then by tshark: no malformed packet, no error or warning,
every RC / UC / UD packet dissected whole (BTH, the opcode's extended
headers, ICRC, payload); and each run must hold the opcodes listed for it,
so a run that went through a path without packets fails. Prints the
opcode counts of every run.

Exit status 0 all passed, 1 a failure, 77 tshark or a program missing.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_pcap  # noqa: E402

SKIP = 77
PERF = ["-d", "mlx5_0", "-x", "0", "-n", "5", "-m", "1024"]
PP = ["-g", "0", "-n", "5", "-m", "1024"]


def ops(*r):
    """Opcodes: numbers and inclusive (first, last) ranges."""
    out = []
    for x in r:
        out += list(range(x[0], x[1] + 1)) if isinstance(x, tuple) else [x]
    return out


# name, program (argv; "peer:T" is capture_peer T), opcodes that must be there
RUNS = [
    ("rc_send", ["ib_send_bw", "-c", "RC", "-s", "3000"] + PERF, ops((0x00, 0x02), 0x11)),
    ("rc_pingpong", ["ibv_rc_pingpong", "-s", "100"] + PP, ops(0x04, 0x11)),
    ("rc_write", ["ib_write_bw", "-c", "RC", "-s", "3000"] + PERF, ops((0x06, 0x08), 0x11)),
    ("rc_read", ["ib_read_bw", "-c", "RC", "-s", "3000"] + PERF, ops(0x0c, (0x0d, 0x0f))),
    ("rc_fetch_add", ["ib_atomic_bw", "-A", "FETCH_AND_ADD"] + PERF, ops(0x14, 0x12)),
    ("rc_cmp_swap", ["ib_atomic_bw", "-A", "CMP_AND_SWAP"] + PERF, ops(0x13, 0x12)),
    ("rc_peer", ["peer:rc"], ops((0x00, 0x11))),
    ("uc_send", ["ib_send_bw", "-c", "UC", "-s", "3000"] + PERF, ops((0x20, 0x22))),
    ("uc_write", ["ib_write_bw", "-c", "UC", "-s", "3000"] + PERF, ops((0x26, 0x28))),
    ("uc_pingpong", ["ibv_uc_pingpong", "-s", "100"] + PP, ops(0x24)),
    ("uc_peer", ["peer:uc"], ops((0x20, 0x2b))),
    ("ud_send", ["ib_send_bw", "-c", "UD", "-s", "1000"] + PERF, ops(0x64)),
    ("ud_pingpong", ["ibv_ud_pingpong", "-s", "100", "-g", "0", "-n", "5"], ops(0x64)),
    ("ud_peer", ["peer:ud"], ops(0x64, 0x65)),
    ("xrc_send", ["ib_send_bw", "-c", "XRC", "-s", "3000"] + PERF, ops((0xa0, 0xa2), 0xb1)),
    ("xrc_write", ["ib_write_bw", "-c", "XRC", "-s", "3000"] + PERF, ops((0xa6, 0xa8), 0xb1)),
    ("xrc_read", ["ib_read_bw", "-c", "XRC", "-s", "3000"] + PERF, ops(0xac, (0xad, 0xaf))),
    ("xrc_xsrq_pingpong", ["ibv_xsrq_pingpong", "-s", "100", "-m", "1024", "-g", "0"],
     ops(0xa4, 0xb1)),
    ("dc_send", ["ib_send_bw", "-c", "DC", "-s", "3000"] + PERF, ops((0xe0, 0xe2), 0x11)),
    ("dc_write", ["ib_write_bw", "-c", "DC", "-s", "3000"] + PERF, ops((0xe6, 0xe8), 0x11)),
    ("dc_read", ["ib_read_bw", "-c", "DC", "-s", "3000"] + PERF, ops(0xec, (0x0d, 0x0f))),
    ("dc_fetch_add", ["ib_atomic_bw", "-c", "DC", "-A", "FETCH_AND_ADD"] + PERF,
     ops(0xf4, 0x12)),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    pat = re.compile(r":%04X [0-9A-F]+:0000 0A " % port)
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(f) as fp:
                if pat.search(fp.read()):
                    return True
        except OSError:
            pass
    return False


def run_pair(smx, argv, env, log, tmo):
    """Server, then client once the server listens; both must exit 0.
    Returns an error string or None."""
    port = str(free_port())
    with open(log + ".server", "w") as so, open(log + ".client", "w") as co:
        srv = subprocess.Popen([smx, "run", "--"] + argv + ["-p", port], env=env,
                               stdout=so, stderr=subprocess.STDOUT)
        t0 = time.monotonic()
        while not listening(int(port)) and srv.poll() is None and time.monotonic() - t0 < 10:
            time.sleep(0.02)
        try:
            c = subprocess.run([smx, "run", "--"] + argv + ["-p", port, "localhost"],
                               env=env, stdout=co, stderr=subprocess.STDOUT,
                               timeout=tmo, check=False).returncode
        except subprocess.TimeoutExpired:
            c = "timeout"
        try:
            s = srv.wait(timeout=tmo)
        except subprocess.TimeoutExpired:
            srv.kill()
            s = "timeout"
    return None if (s, c) == (0, 0) else "server %s client %s" % (s, c)


def run_peer(peer, kind, env, log, tmo):
    with open(log + ".peer", "w") as out:
        try:
            r = subprocess.run([peer, kind], env=env, stdout=out, stderr=subprocess.STDOUT,
                               timeout=tmo, check=False).returncode
        except subprocess.TimeoutExpired:
            r = "timeout"
    return None if r == 0 else "capture_peer %s: exit %s" % (kind, r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", help="keep captures and logs in this directory")
    ap.add_argument("--timeout", type=int, default=30, help="seconds per program")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    smx = os.path.join(build, "bin", "softmlx5")
    peer = os.path.join(build, "bin", "capture_peer")
    for p in (smx, peer):
        if not os.access(p, os.X_OK):
            print("capture_run: %s not found (build first)" % p)
            return 2
    runs = [r for r in RUNS if re.search(a.only, r[0])]
    missing = sorted({r[1][0] for r in runs if not r[1][0].startswith("peer:") and
                      not shutil.which(r[1][0])})
    if not shutil.which("tshark"):
        missing.insert(0, "tshark")
    if missing:
        print("capture_run: skipped: not installed: %s (Debian: tshark, perftest, "
              "ibverbs-utils)" % " ".join(missing))
        return SKIP

    out = a.keep or tempfile.mkdtemp(prefix="smx-capture-")
    os.makedirs(out, exist_ok=True)
    shm_dir = "/dev/shm" if os.access("/dev/shm", os.W_OK) else out
    bad, table = [], []
    t_all = time.monotonic()
    for name, argv, expect in runs:
        pcap = os.path.join(out, name + ".pcap")
        shm = os.path.join(shm_dir, "softmlx5-capture-%d-%s" % (os.getpid(), name))
        for f in (pcap, shm):
            if os.path.exists(f):
                os.unlink(f)
        env = dict(os.environ, SOFTMLX5_SHM_PATH=shm, SOFTMLX5_PCAP=pcap,
                   SOFTMLX5_DIRECT="0", SOFTMLX5_CONFIG="/dev/null")
        env.pop("SOFTMLX5_FAULT", None)
        t0 = time.monotonic()
        log = os.path.join(out, name)
        if argv[0].startswith("peer:"):
            err = run_peer(peer, argv[0][5:], env, log, a.timeout)
        else:
            err = run_pair(smx, argv, env, log, a.timeout)
        dt = time.monotonic() - t0
        if os.path.exists(shm):
            os.unlink(shm)
        what = "capture_peer " + argv[0][5:] if argv[0].startswith("peer:") else \
            " ".join(x for x in argv if x not in PERF and x not in PP)
        if err:
            bad.append(name)
            print("FAIL  %-18s %s: %s (logs: %s.*)" % (name, what, err, log))
            continue
        if not os.path.exists(pcap):
            bad.append(name)
            print("FAIL  %-18s %s: no packet captured" % (name, what))
            continue
        fails, counts, names, _ = check_pcap.check_file(pcap, expect, psns=True)
        if fails:
            bad.append(name)
        table.append((name, counts, names))
        print("%s  %-18s %s: %d packets, run %.1f s" %
              ("FAIL" if fails else "PASS", name, what, sum(counts.values()), dt))

    print("\nOpcodes captured (packets per run):")
    for name, counts, names in table:
        print("  %s:" % name)
        for op in sorted(counts):
            print("    %#04x %-38s %5d" % (op, names[op], counts[op]))
    keep = bad or a.keep
    print("\n%d runs, %d failed%s; %.1f s%s" %
          (len(runs), len(bad), (": " + " ".join(bad)) if bad else "",
           time.monotonic() - t_all, "; captures and logs in " + out if keep else ""))
    if not keep:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
