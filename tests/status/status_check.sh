#!/bin/bash
# SPDX-License-Identifier: MIT
#
# softmlx5 status during a two-process run (issue #18): both processes of
# an ibv_rc_pingpong pair are listed, each with its RC QP in RTS connected
# to the other's (remote_qpn), CQs and the MR; a third process stopped
# with SIGSTOP is listed as not answering, and after it is continued it
# answers again. --json must parse; the text form must name the QPs;
# `status PID` shows that process alone.
#
#   status_check.sh BUILD_DIR
set -u
BUILD=$1
SMX=$BUILD/bin/softmlx5
command -v ibv_rc_pingpong >/dev/null || { echo "no ibv_rc_pingpong; skipped"; exit 77; }
WORK=$(mktemp -d /tmp/smx-status.XXXXXX)
export SOFTMLX5_SHM_PATH=$WORK/segment SOFTMLX5_CONFIG=/dev/null
PIDS=()
cleanup() {
	kill -CONT "${PIDS[@]}" 2>/dev/null
	kill "${PIDS[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
. "$(dirname "$0")/../conformance/pair_lib.sh"
PORT=$((20000 + $$ % 20000))

"$SMX" run -- ibv_rc_pingpong -g 0 -n 100000000 -p $PORT >"$WORK/a" 2>&1 &
PIDS+=($!)
wait_port $PORT || { echo "FAIL: the server did not listen"; exit 1; }
"$SMX" run -- ibv_rc_pingpong -g 0 -n 100000000 -p $PORT localhost >"$WORK/b" 2>&1 &
PIDS+=($!)
# a third process with the device open, waiting for a client that never
# comes: stopped, it cannot answer
"$SMX" run -- ibv_rc_pingpong -g 0 -p $((PORT + 1)) >"$WORK/c" 2>&1 &
PIDS+=($!)
wait_port $((PORT + 1)) || { echo "FAIL: the third process did not listen"; exit 1; }
sleep 0.5
kill -STOP "${PIDS[2]}"
"$SMX" status --json --wait 1000 >"$WORK/stopped.json" || { echo "FAIL: status exited $?"; exit 1; }
kill -CONT "${PIDS[2]}"
"$SMX" status --json --wait 2000 >"$WORK/all.json" || { echo "FAIL: status exited $?"; exit 1; }
"$SMX" status >"$WORK/all.txt" || { echo "FAIL: status (text) exited $?"; exit 1; }
"$SMX" status --json "${PIDS[1]}" >"$WORK/one.json" || { echo "FAIL: status PID exited $?"; exit 1; }

/usr/bin/python3 - "$WORK" "${PIDS[@]}" <<'PY'
import json, sys
work, a, b, c = sys.argv[1], *map(int, sys.argv[2:5])
fails = []
def need(cond, msg):
    if not cond:
        fails.append(msg)
stopped = json.load(open(work + "/stopped.json"))
byp = {p["pid"]: p for p in stopped["processes"]}
need(set(byp) == {a, b, c}, "stopped run lists pids %s, want %s" % (sorted(byp), sorted({a, b, c})))
need(byp.get(c, {}).get("answered") is False, "the stopped process is not marked as not answering")
allp = {p["pid"]: p for p in json.load(open(work + "/all.json"))["processes"]}
need(set(allp) == {a, b, c}, "lists pids %s, want %s" % (sorted(allp), sorted({a, b, c})))
qa, qb = allp.get(a, {}).get("qps", []), allp.get(b, {}).get("qps", [])
need(len(qa) == 1 and len(qb) == 1, "want one QP in each of the pair, got %d and %d" % (len(qa), len(qb)))
if len(qa) == 1 and len(qb) == 1:
    qa, qb = qa[0], qb[0]
    for q in (qa, qb):
        need(q["type"] == "RC" and q["state"] == "RTS", "QP %d is %s %s, want RC RTS" % (q["qpn"], q["type"], q["state"]))
        need(q["sq_posted"] >= q["sq_taken"] >= 0, "QP %d: posted %d, taken %d" % (q["qpn"], q["sq_posted"], q["sq_taken"]))
    need(qa["remote_qpn"] == qb["qpn"] and qb["remote_qpn"] == qa["qpn"],
         "the pair's QPs do not name each other (%#x->%#x, %#x->%#x)"
         % (qa["qpn"], qa["remote_qpn"], qb["qpn"], qb["remote_qpn"]))
qc = allp.get(c, {}).get("qps", [])
need(len(qc) == 1 and qc[0]["state"] == "INIT", "the waiting process's QP: %s, want one in INIT" % qc)
for pid in (a, b):
    p = allp.get(pid, {})
    cqs, mks = p.get("cqs", []), p.get("mkeys", [])
    need(len(cqs) == 1 and 0 <= cqs[0]["fill"] <= cqs[0]["size"], "pid %d: CQs %s" % (pid, cqs))
    need(any(m["length"] == 4096 and "w" in m["access"] for m in mks), "pid %d: no 4 KiB MR with local write in %s" % (pid, mks))
    need(p.get("objects", {}).get("pd") == 1, "pid %d: objects %s" % (pid, p.get("objects")))
    need(isinstance(p.get("counters"), dict), "pid %d: no counters object" % pid)
one = [p["pid"] for p in json.load(open(work + "/one.json"))["processes"]]
need(one == [b], "status PID lists %s, want [%d]" % (one, b))
txt = open(work + "/all.txt").read()
need(txt.count("type RC state RTS") == 2, "the text form lists %d RC QPs in RTS, want 2" % txt.count("type RC state RTS"))
for f in fails:
    print("FAIL: " + f)
if fails:
    sys.exit(1)
print("PASS: status lists the pair's QPs (RTS, each naming the other), CQs and MRs; a stopped process as not answering")
PY
