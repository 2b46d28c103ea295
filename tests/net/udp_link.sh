#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The network link in netdev_mode udp between two hosts: two network
# namespaces joined by a veth pair (two_hosts.sh), each port bound to its
# veth end (SOFTMLX5_NETDEV), servers in A, clients in B. Each case must
# end with both sides exiting 0 and printing what it measured:
#   ibv_rc_pingpong -c (data checked), ibv_uc_pingpong, ibv_ud_pingpong,
#   perftest ib_write_bw / ib_send_bw / ib_read_bw, each over IPv4 (GID 3,
#   ::ffff:10.77.0.x) and IPv6 (GID 5, fd77::x); ibv_rc_pingpong -c under
#   SOFTMLX5_FAULT=loss=5% (both hosts); two pairs of processes at once
#   (one process of each host receives and forwards to the other);
#   datagrams that are no packets, counted as malformed by a live device
#   which then still runs a pingpong; a peer whose port does not reach the
#   wire (netdev_mode raw, not implemented) makes the requester fail with
#   "transport retry counter exceeded"; a fork child of a process that
#   closed the device does not keep the host's receiving socket (with
#   pyverbs).
# Capture: tcpdump (or dumpcap) on A's veth during an IPv4 and an IPv6
# ibv_rc_pingpong and an IPv4 ib_read_bw; tests/transport/check_pcap.py
# --wire recomputes every ICRC and has tshark dissect every packet (no
# malformed one). Without tshark or a capture tool that part is skipped.
#
# Usage: udp_link.sh [--build DIR] [CASE...]   (CASE: a name printed below)
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no ip netns, no
# ibverbs-utils or perftest).
set -u
BUILD=build
ONLY=()
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$2; shift 2 ;;
	-*) echo "udp_link.sh: unknown argument $1" >&2; exit 2 ;;
	*) ONLY+=("$1"); shift ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
SMX=$(cd "$BUILD" 2>/dev/null && pwd)/bin/softmlx5
[ -x "$SMX" ] || { echo "udp_link.sh: $SMX not found" >&2; exit 2; }
for t in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ib_write_bw \
	 ib_send_bw ib_read_bw; do
	command -v $t >/dev/null ||
		{ echo "udp_link.sh: $t not installed; skipped"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "udp_link.sh: not root; skipped"; exit 77; }

OUT=$(mktemp -d /tmp/smx-udp.XXXXXX)
export SMX OUT
unset SOFTMLX5_SHM_PATH SOFTMLX5_FAULT SOFTMLX5_NETDEV_MODE
export SOFTMLX5_CONFIG=/dev/null SOFTMLX5_DEBUG=${SOFTMLX5_DEBUG:-}
CAP=$(command -v tcpdump || command -v dumpcap || true)
command -v tshark >/dev/null || CAP=
fails=0
trap 'rm -rf "$OUT"' EXIT

# The side scripts: A serves on a TCP port and says so (a file), B waits
# for that and connects. Both run under two_hosts.sh in their namespace.
cat >"$OUT/serve.sh" <<'EOF'
# serve.sh NAME PORT CAPTURE CMD...: in A
name=$1 port=$2 cap=$3; shift 3
export SOFTMLX5_NETDEV=$HOST_A_IF
if [ -n "$cap" ]; then
	# The wire as a NIC puts it: a veth passes a UDP GSO send whole (the
	# capture saw one super-frame); one segment at most per frame makes
	# the kernel cut it before the veth.
	ip link set dev "$HOST_A_IF" gso_max_segs 1
	ip -n "$HOST_B_NS" link set dev "$HOST_B_IF" gso_max_segs 1
	case "$cap" in
	*tcpdump) "$cap" -i "$HOST_A_IF" -U -s 0 -w "$OUT/$name.pcap" \
		udp port 4791 2>"$OUT/$name.cap.err" & ;;
	*) "$cap" -q -i "$HOST_A_IF" -f "udp port 4791" -P \
		-w "$OUT/$name.pcap" 2>"$OUT/$name.cap.err" & ;;
	esac
	cpid=$!
	for _ in $(seq 100); do
		[ -s "$OUT/$name.pcap" ] && break
		sleep 0.05
	done
fi
"$SMX" run -- "$@" >"$OUT/$name.A" 2>&1 &
spid=$!
hex=$(printf '%04X' "$port")
for _ in $(seq 200); do
	grep -q ":$hex 0\+:0000 0A" /proc/net/tcp /proc/net/tcp6 && break
	sleep 0.05
done
: >"$OUT/$name.ready"
wait $spid
rc=$?
if [ -n "$cap" ]; then
	sleep 0.2
	kill -INT $cpid
	wait $cpid
fi
exit $rc
EOF
cat >"$OUT/connect.sh" <<'EOF'
# connect.sh NAME CMD...: in B (the server's address is appended)
name=$1; shift
export SOFTMLX5_NETDEV=$HOST_B_IF
for _ in $(seq 200); do
	[ -e "$OUT/$name.ready" ] && break
	sleep 0.05
done
"$SMX" run -- "$@" "$HOST_A_IP4" >"$OUT/$name.B" 2>&1
EOF

wanted() { # NAME: is the case selected?
	[ ${#ONLY[@]} -eq 0 ] && return 0
	local c
	for c in "${ONLY[@]}"; do [ "$c" = "$1" ] && return 0; done
	return 1
}
bad() { echo "FAIL  $*"; fails=$((fails + 1)); }

# pair NAME PORT CAPTURE CHECK ENV CMD...: CMD in A (-p PORT), then in B
# with A's address; CHECK: pingpong (both print their iterations) or bw
# (the client prints a bandwidth above 0).
pair() {
	local name=$1 port=$2 cap=$3 check=$4 env=$5 rc line
	shift 5
	wanted "$name" || return 0
	"$here/two_hosts.sh" --timeout 60 -- \
		"$env bash $OUT/serve.sh $name $port '$cap' $* -p $port" -- \
		"$env bash $OUT/connect.sh $name $* -p $port" >"$OUT/$name.log" 2>&1
	rc=$?
	if [ $rc = 77 ]; then
		echo "udp_link.sh: $(tail -1 "$OUT/$name.log")"
		exit 77
	fi
	if [ $rc != 0 ]; then
		bad "$name: exit $rc"
		tail -5 "$OUT/$name.A" "$OUT/$name.B" 2>/dev/null | sed 's/^/      /'
		return
	fi
	case $check in
	pingpong)
		if grep -q "iters in" "$OUT/$name.A" && grep -q "iters in" "$OUT/$name.B"; then
			echo "PASS  $name: $(grep -h 'iters in' "$OUT/$name.B")"
		else
			bad "$name: no iteration count"
		fi ;;
	bw)
		# the result row: size, iterations, peak, average, rate
		line=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $4 + 0 > 0 { print; exit }' \
			"$OUT/$name.B")
		if [ -n "$line" ]; then
			echo "PASS  $name: $(echo "$line" | awk '{ printf "%s B, %s MB/s average", $1, $4 }')"
		else
			bad "$name: no bandwidth reported"
			tail -3 "$OUT/$name.B" | sed 's/^/      /'
		fi ;;
	esac
	if [ -n "$cap" ]; then
		if python3 "$here/../transport/check_pcap.py" --wire "$OUT/$name.pcap" \
			>"$OUT/$name.check" 2>&1; then
			echo "PASS  $name capture: $(head -1 "$OUT/$name.check")"
		else
			bad "$name capture"
			grep FAIL "$OUT/$name.check" | head -5 | sed 's/^/      /'
		fi
	fi
}

for ip in 4 6; do
	g=$([ $ip = 4 ] && echo 3 || echo 5)
	pair rc_pingpong_ipv$ip 18515 "$CAP" pingpong "" ibv_rc_pingpong -c -g $g -n 500
	pair uc_pingpong_ipv$ip 18516 "" pingpong "" ibv_uc_pingpong -g $g -n 500
	pair ud_pingpong_ipv$ip 18517 "" pingpong "" ibv_ud_pingpong -g $g -n 500 -s 512
	pair write_bw_ipv$ip 18518 "" bw "" ib_write_bw -x $g -s 65536 -n 1000 -F
	pair send_bw_ipv$ip 18519 "" bw "" ib_send_bw -x $g -s 65536 -n 1000 -F
	pair read_bw_ipv$ip 18520 "" bw "" ib_read_bw -x $g -s 65536 -n 1000 -F
done
pair read_bw_capture 18521 "$CAP" bw "" ib_read_bw -x 3 -s 3000 -n 100
pair rc_pingpong_loss 18522 "" pingpong "SOFTMLX5_FAULT=loss=5%" \
	ibv_rc_pingpong -c -g 3 -n 300

# Two pairs at once: one process of each host receives for the host and
# forwards what is the other's. With completion events: four busy-polling
# processes on two cores in two sessions leave whole processes unscheduled
# for longer than an RC retry cycle (docs/transport.md).
if wanted two_pairs; then
	"$here/two_hosts.sh" --timeout 60 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF
		$SMX run -- ibv_rc_pingpong -e -c -g 3 -n 500 -p 18530 >$OUT/p1.A 2>&1 &
		p1=\$!
		sleep 0.3
		$SMX run -- ibv_rc_pingpong -e -c -g 3 -n 500 -p 18531 >$OUT/p2.A 2>&1 &
		p2=\$!
		sleep 0.3; : >$OUT/pairs.ready; wait \$p1 && wait \$p2" -- "
		export SOFTMLX5_NETDEV=\$HOST_B_IF
		for _ in \$(seq 200); do [ -e $OUT/pairs.ready ] && break; sleep 0.05; done
		$SMX run -- ibv_rc_pingpong -e -c -g 3 -n 500 -p 18530 \$HOST_A_IP4 >$OUT/p1.B 2>&1 &
		p1=\$!
		$SMX run -- ibv_rc_pingpong -e -c -g 3 -n 500 -p 18531 \$HOST_A_IP4 >$OUT/p2.B 2>&1 &
		p2=\$!
		wait \$p1 && wait \$p2" >"$OUT/pairs.log" 2>&1
	rc=$?
	n=$(cat "$OUT"/p[12].[AB] 2>/dev/null | grep -c "iters in")
	if [ $rc = 0 ] && [ "$n" = 4 ]; then
		echo "PASS  two_pairs: $(grep -h 'iters in' "$OUT/p1.B" "$OUT/p2.B" | tr '\n' ' ')"
	else
		bad "two_pairs: exit $rc, $n of 4 processes finished"
		tail -3 "$OUT"/p[12].[AB] 2>/dev/null | sed 's/^/      /'
	fi
fi

# Hostile datagrams: counted and dropped by a live device, which then
# still runs its pingpong.
if wanted malformed; then
	cat >"$OUT/junk.py" <<'EOF'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
bth = struct.pack(">BBHBBHBBH", 0x04, 0, 0xffff, 0, 0, 0x100, 0, 0, 1)
nqp = struct.pack(">BBHBBHBBH", 0x04, 0, 0xffff, 0, 0xab, 0xcdef, 0, 0, 1)
for d in (b"", b"\x00" * 3, bth,                  # empty, short, no ICRC
          nqp + b"\xff" * 4,                       # to no QP (dropped)
          struct.pack(">B", 0x1e) + bth[1:] + b"\0" * 8,   # reserved opcode
          b"\xff" * 3000):                         # junk
    s.sendto(d, (sys.argv[1], 4791))
EOF
	"$here/two_hosts.sh" --timeout 60 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF
		$SMX run -- ibv_rc_pingpong -c -g 3 -n 100 -p 18540 >$OUT/mal.A 2>&1 &
		sp=\$!
		for _ in \$(seq 200); do grep -q ':483C 0\+:0000 0A' /proc/net/tcp /proc/net/tcp6 && break; sleep 0.05; done
		: >$OUT/mal.listen
		for _ in \$(seq 200); do [ -e $OUT/mal.sent ] && break; sleep 0.05; done
		sleep 0.3
		$SMX counters >$OUT/mal.counters
		: >$OUT/mal.ready
		wait \$sp" -- "
		export SOFTMLX5_NETDEV=\$HOST_B_IF
		for _ in \$(seq 200); do [ -e $OUT/mal.listen ] && break; sleep 0.05; done
		python3 $OUT/junk.py \$HOST_A_IP4 && : >$OUT/mal.sent
		for _ in \$(seq 200); do [ -e $OUT/mal.ready ] && break; sleep 0.05; done
		$SMX run -- ibv_rc_pingpong -c -g 3 -n 100 -p 18540 \$HOST_A_IP4 >$OUT/mal.B 2>&1" \
		>"$OUT/mal.log" 2>&1
	rc=$?
	m=$(awk '$1 == "rx_malformed" { print $2 }' "$OUT/mal.counters" 2>/dev/null)
	if [ $rc = 0 ] && [ "${m:-0}" -ge 5 ] && grep -q "iters in" "$OUT/mal.B"; then
		echo "PASS  malformed: rx_malformed $m, then the pingpong ran"
	else
		bad "malformed: exit $rc, rx_malformed '${m:-none}'"
		tail -3 "$OUT/mal.A" "$OUT/mal.B" 2>/dev/null | sed 's/^/      /'
	fi
fi

# A peer that never answers: its port does not reach the wire (raw mode,
# not implemented); the requester's retries run out.
if wanted no_answer; then
	"$here/two_hosts.sh" --timeout 60 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF SOFTMLX5_NETDEV_MODE=raw
		$SMX run -- ibv_rc_pingpong -g 3 -n 10 -p 18550 >$OUT/dead.A 2>&1 &
		sp=\$!
		for _ in \$(seq 200); do grep -q ':487E 0\+:0000 0A' /proc/net/tcp /proc/net/tcp6 && break; sleep 0.05; done
		: >$OUT/dead.ready
		for _ in \$(seq 400); do [ -e $OUT/dead.done ] && break; sleep 0.05; done
		kill \$sp; true" -- "
		export SOFTMLX5_NETDEV=\$HOST_B_IF
		for _ in \$(seq 200); do [ -e $OUT/dead.ready ] && break; sleep 0.05; done
		$SMX run -- ibv_rc_pingpong -g 3 -n 10 -p 18550 \$HOST_A_IP4 >$OUT/dead.B 2>&1
		rc=\$?; : >$OUT/dead.done; [ \$rc != 0 ]" >"$OUT/dead.log" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "retry counter exceeded" "$OUT/dead.B" &&
	   grep -q "netdev_mode raw" "$OUT/dead.A"; then
		echo "PASS  no_answer: the requester failed with transport retry counter exceeded"
	else
		bad "no_answer: exit $rc"
		tail -3 "$OUT/dead.A" "$OUT/dead.B" 2>/dev/null | sed 's/^/      /'
	fi
fi

# A fork child of a process that had the device open (so the host's
# receiving socket) and closed it: the child must not keep that socket
# from the next process (it would take every datagram, reading none).
if wanted fork_child && /usr/bin/python3 -c "import pyverbs" 2>/dev/null; then
	cat >"$OUT/fork.py" <<'EOF'
import os, time
from pyverbs.device import Context
ctx = Context(name="mlx5_0")
if os.fork() == 0:
    time.sleep(6)
    os._exit(0)
ctx.close()
EOF
	"$here/two_hosts.sh" --timeout 60 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF
		$SMX run -- /usr/bin/python3 $OUT/fork.py >$OUT/fork.A 2>&1 &&
		$SMX run -- ibv_rc_pingpong -c -g 3 -n 200 -p 18560 >>$OUT/fork.A 2>&1" -- "
		export SOFTMLX5_NETDEV=\$HOST_B_IF
		sleep 2
		$SMX run -- ibv_rc_pingpong -c -g 3 -n 200 -p 18560 \$HOST_A_IP4 >$OUT/fork.B 2>&1" \
		>"$OUT/fork.log" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "iters in" "$OUT/fork.B"; then
		echo "PASS  fork_child: $(grep -h 'iters in' "$OUT/fork.B")"
	else
		bad "fork_child: exit $rc"
		tail -3 "$OUT/fork.A" "$OUT/fork.B" 2>/dev/null | sed 's/^/      /'
	fi
fi

[ -z "$CAP" ] && echo "(no tcpdump / dumpcap or no tshark: captures not checked)"
if [ $fails != 0 ]; then
	echo "$fails failed"
	exit 1
fi
echo "all passed"
