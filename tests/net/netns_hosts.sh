#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Processes in different network namespaces are different hosts; processes
# in one namespace share one device (docs/multiprocess.md). Through
# two_hosts.sh, with both hosts up at the same time:
#   A  two ibv_rc_pingpong servers hold the device open; `softmlx5 counters`
#      must count 2 processes attached to /dev/shm/softmlx5-<uid>-<netns A>;
#      then a client in A runs against one of them (the pair shares A's
#      device and exchanges its messages);
#   B  one server: `softmlx5 counters` must count 1 process attached to
#      /dev/shm/softmlx5-<uid>-<netns B>, another file.
# Each side reads its count only once both have their servers up, and keeps
# them up until both have read: one shared segment would count 3 on each.
#
# Usage: netns_hosts.sh [--build DIR]
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no ip netns, no
# ibverbs-utils).
set -u
BUILD=build
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$2; shift 2 ;;
	*) echo "netns_hosts.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
SMX=$(cd "$BUILD" 2>/dev/null && pwd)/bin/softmlx5
[ -x "$SMX" ] || { echo "netns_hosts.sh: $SMX not found" >&2; exit 2; }
command -v ibv_rc_pingpong >/dev/null ||
	{ echo "netns_hosts.sh: ibv_rc_pingpong not installed; skipped"; exit 77; }
[ -d /dev/shm ] || { echo "netns_hosts.sh: no /dev/shm; skipped"; exit 77; }

OUT=$(mktemp -d /tmp/smx-netns.XXXXXX)
export SMX OUT
# The default segment, not one a caller set.
unset SOFTMLX5_SHM_PATH
export SOFTMLX5_CONFIG=/dev/null SOFTMLX5_DEBUG=${SOFTMLX5_DEBUG:-}

# side NAME SERVERS: NAME's part. Starts SERVERS pingpong servers, meets
# the other side, counts, meets again, then (on A) runs a client.
cat >"$OUT/side.sh" <<'EOF'
set -u
me=$1 n=$2 other=$3
pids=()
# One after the other: a server has the device open before it listens.
for i in $(seq "$n"); do
	"$SMX" run -- ibv_rc_pingpong -g 0 -n 20 -p $((18514 + i)) \
		>"$OUT/$me.server$i" 2>&1 &
	pids+=($!)
	hex=$(printf '%04X' $((18514 + i)))
	for _ in $(seq 200); do
		grep -q ":$hex 0\+:0000 0A" /proc/net/tcp /proc/net/tcp6 && break
		sleep 0.05
	done
done
meet() { # STEP: mark it, wait (10 s at most) for the other side's
	: >"$OUT/$me.$1"
	for _ in $(seq 200); do
		[ -e "$OUT/$other.$1" ] && return 0
		sleep 0.05
	done
	echo "$me: $other never reached $1" >&2
	return 1
}
meet up || exit 1
stat -L -c %i /proc/self/ns/net >"$OUT/$me.netns"
"$SMX" counters | head -1 >"$OUT/$me.counters"
meet counted || exit 1
rc=0
if [ "$me" = A ]; then
	"$SMX" run -- ibv_rc_pingpong -g 0 -n 20 -p 18515 localhost \
		>"$OUT/A.client" 2>&1 || rc=1
	wait "${pids[0]}" || rc=1
	kill "${pids[@]:1}" 2>/dev/null
else
	kill "${pids[@]}" 2>/dev/null
fi
wait
exit $rc
EOF

"$here/two_hosts.sh" --timeout 60 -- "bash $OUT/side.sh A 2 B" -- "bash $OUT/side.sh B 1 A"
rc=$?
[ $rc = 77 ] && { rm -rf "$OUT"; exit 77; }

fail=0
check() { # OK WHAT
	if [ "$1" = 1 ]; then echo "PASS  $2"; else echo "FAIL  $2"; fail=1; fi
}
uid=$(id -u)
ino_a=$(cat "$OUT/A.netns" 2>/dev/null)
ino_b=$(cat "$OUT/B.netns" 2>/dev/null)
cnt_a=$(cat "$OUT/A.counters" 2>/dev/null)
cnt_b=$(cat "$OUT/B.counters" 2>/dev/null)
echo "A (netns $ino_a): $cnt_a"
echo "B (netns $ino_b): $cnt_b"
check "$([ $rc = 0 ] && echo 1)" "both sides ran (status $rc)"
check "$([ -n "$ino_a" ] && [ "$ino_a" != "$ino_b" ] && echo 1)" \
	"two network namespaces"
check "$([ "$cnt_a" = "# mlx5_0 port 1: 2 processes attached (/dev/shm/softmlx5-$uid-$ino_a)" ] && echo 1)" \
	"A: both processes on A's segment"
check "$([ "$cnt_b" = "# mlx5_0 port 1: 1 process attached (/dev/shm/softmlx5-$uid-$ino_b)" ] && echo 1)" \
	"B: one process, on a segment of its own"
check "$(grep -q 'iters in' "$OUT/A.client" 2>/dev/null && echo 1)" \
	"A: a pingpong pair within A ran"
[ $fail = 0 ] || { echo "logs in $OUT"; for f in "$OUT"/*.server* "$OUT"/A.client; do
	[ -e "$f" ] && { echo "-- $f"; cat "$f"; }; done; }
# The two segments this test's processes made.
for ino in $ino_a $ino_b; do
	rm -f "/dev/shm/softmlx5-$uid-$ino"
done
[ $fail = 0 ] && rm -rf "$OUT"
exit $fail
