#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The network link between two hosts, in netdev_mode udp (the default
# here) or raw (--mode raw; ctest net_raw_link): two network namespaces
# joined by a veth pair (two_hosts.sh), each port bound to its veth end
# (SOFTMLX5_NETDEV), servers in A, clients in B. Each case must end with
# both sides exiting 0 and printing what it measured:
#   ibv_rc_pingpong -c (data checked), ibv_uc_pingpong, ibv_ud_pingpong,
#   ibv_srq_pingpong, ibv_xsrq_pingpong, perftest ib_write_bw / ib_send_bw / ib_read_bw /
#   ib_atomic_bw / ib_write_lat / ib_send_lat / ib_read_lat, each over
#   IPv4 (GID 3, ::ffff:10.77.0.x) and IPv6 (GID 5, fd77::x); UCX's
#   ucx_perftest over rc_mlx5 (am_lat, fadd), dc_mlx5 (put_bw) and ud_mlx5
#   (am_lat); every reliable one of these again under
#   SOFTMLX5_FAULT=loss=5% (both hosts); two pairs of processes at once
#   (one process of each host receives and forwards to the other);
#   datagrams that are no packets (raw: also frames with a bad ICRC),
#   counted as malformed by a live device which then still runs a
#   pingpong; packets forged against live QPs (hostile_rx.py; IPv6, raw:
#   IPv4); a peer that never answers (all it sends lost, a fault stage)
#   makes the requester fail with "transport retry counter exceeded"; a
#   fork child of a process that closed the device does not keep the
#   host's receiving socket (with pyverbs). Raw only: a neighbour that
#   does not answer ARP makes modify_qp(RTR) fail after about 1 s, as the
#   kernel's ib_resolve_eth_dmac() does; four QPs at once send from four
#   UDP source ports (the capture check); a process without CAP_NET_RAW
#   falls back to udp and still talks to a raw host (IPv4).
# Capture: tcpdump (or dumpcap) on A's veth during an IPv4 and an IPv6
# ibv_rc_pingpong and an IPv4 ib_read_bw; tests/transport/check_pcap.py
# --wire recomputes every ICRC and has tshark dissect every packet (no
# malformed one); in raw mode (--raw) also the UDP checksum 0 and the
# per-QP source ports (rdma_get_udp_sport()). Without tshark or a capture
# tool that part is skipped.
#
# Usage: udp_link.sh [--build DIR] [--mode udp|raw] [CASE...]
#        (CASE: a name printed below)
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no ip netns, no
# ibverbs-utils or perftest).
set -u
BUILD=build
MODE=udp
ONLY=()
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$2; shift 2 ;;
	--mode) MODE=$2; shift 2 ;;
	-*) echo "udp_link.sh: unknown argument $1" >&2; exit 2 ;;
	*) ONLY+=("$1"); shift ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "$BUILD" 2>/dev/null && pwd)/bin
SMX=$BIN/softmlx5
[ -x "$SMX" ] || { echo "udp_link.sh: $SMX not found" >&2; exit 2; }
for t in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ib_write_bw \
	 ib_send_bw ib_read_bw; do
	command -v $t >/dev/null ||
		{ echo "udp_link.sh: $t not installed; skipped"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "udp_link.sh: not root; skipped"; exit 77; }

case $MODE in
udp) WIREARG=--wire ;;
raw) WIREARG="--wire --raw" ;;
*) echo "udp_link.sh: --mode udp or raw" >&2; exit 2 ;;
esac
OUT=$(mktemp -d /tmp/smx-$MODE.XXXXXX)
export SMX OUT
unset SOFTMLX5_SHM_PATH SOFTMLX5_FAULT
export SOFTMLX5_NETDEV_MODE=$MODE
export SOFTMLX5_CONFIG=/dev/null SOFTMLX5_DEBUG=${SOFTMLX5_DEBUG:-}
CAP=$(command -v tcpdump || command -v dumpcap || true)
command -v tshark >/dev/null || CAP=
fails=0
# SMX_KEEP=1: the directory of outputs and captures stays (its name printed)
if [ -n "${SMX_KEEP:-}" ]; then echo "outputs in $OUT"; else trap 'rm -rf "$OUT"' EXIT; fi

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
	# (a big kernel buffer: a capture that falls behind on two busy
	# cores loses packets, which the PSN check then reports)
	*tcpdump) "$cap" -i "$HOST_A_IF" -U -s 0 -B 65536 -w "$OUT/$name.pcap" \
		udp port 4791 2>"$OUT/$name.cap.err" & ;;
	*) "$cap" -q -i "$HOST_A_IF" -f "udp port 4791" -P -B 64 \
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
	success)
		# ibv_xsrq_pingpong says only this, after its last message
		if grep -qx success "$OUT/$name.A" && grep -qx success "$OUT/$name.B"; then
			echo "PASS  $name: both ends said success"
		else
			bad "$name: no success"
		fi ;;
	ucx)
		line=$(grep -h '^Final:' "$OUT/$name.B" | tr -s ' ')
		if [ -n "$line" ]; then
			echo "PASS  $name: $line"
		else
			bad "$name: no Final: line"
			grep -h -m2 -i error "$OUT/$name.A" "$OUT/$name.B" | sed 's/^/      /'
		fi ;;
	lat)
		# the result row: size, iterations, min, max, typical, avg, stdev, 99%
		line=$(awk '$1 ~ /^[0-9]+$/ && NF >= 8 && $5 + 0 > 0 { print; exit }' \
			"$OUT/$name.B")
		if [ -n "$line" ]; then
			echo "PASS  $name: $(echo "$line" | awk '{ printf "%s B, typical %s us, p99 %s us", $1, $5, $8 }')"
		else
			bad "$name: no latency reported"
			tail -3 "$OUT/$name.B" | sed 's/^/      /'
		fi ;;
	esac
	if [ -n "$cap" ]; then
		if python3 "$here/../transport/check_pcap.py" $WIREARG \
			${SPORTS:+--sports $SPORTS} "$OUT/$name.pcap" \
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
	pair srq_pingpong_ipv$ip 18523 "" pingpong "" ibv_srq_pingpong -g $g -n 500
	pair xsrq_pingpong_ipv$ip 18545 "" success "" ibv_xsrq_pingpong -g $g -n 500
	pair atomic_bw_ipv$ip 18524 "" bw "" ib_atomic_bw -x $g -n 1000 -F
	pair write_lat_ipv$ip 18525 "" lat "" ib_write_lat -x $g -s 8 -n 1000 -F
	pair send_lat_ipv$ip 18526 "" lat "" ib_send_lat -x $g -s 8 -n 1000 -F
	pair read_lat_ipv$ip 18527 "" lat "" ib_read_lat -x $g -s 8 -n 1000 -F
done
if command -v ucx_perftest >/dev/null; then
	pair ucx_rc_mlx5_am_lat 18528 "" ucx "" ucx_perftest -d mlx5_0:1 -x rc_mlx5 -t am_lat -n 2000
	pair ucx_dc_mlx5_put_bw 18529 "" ucx "" ucx_perftest -d mlx5_0:1 -x dc_mlx5 -t put_bw -s 65536 -D zcopy -n 300
	pair ucx_ud_mlx5_am_lat 18532 "" ucx "" ucx_perftest -d mlx5_0:1 -x ud_mlx5 -t am_lat -n 2000
	pair ucx_rc_mlx5_fadd 18533 "" ucx "" ucx_perftest -d mlx5_0:1 -x rc_mlx5 -t fadd -n 1000
fi
pair read_bw_capture 18521 "$CAP" bw "" ib_read_bw -x 3 -s 3000 -n 100
# 5% of the packets each host sends lost (SOFTMLX5_FAULT): every
# reliable-transport program still completes (UC and UD lose messages
# by definition; their pingpongs would wait forever, as on a wire).
# Not ibv_srq_pingpong: its server posts a SEND for every receive while
# fewer than -n of its SENDs have *completed*, so SENDs its client never
# waits for are in flight when the client destroys its QPs; one of them
# lost is resent to a QP that is gone and the server ends in
# RETRY_EXC_ERR, as it would against a ConnectX (seen 2 runs in 6 here).
L="SOFTMLX5_FAULT=loss=5%"
pair rc_pingpong_loss 18522 "" pingpong "$L" ibv_rc_pingpong -c -g 3 -n 300
pair xsrq_pingpong_loss 18546 "" success "$L" ibv_xsrq_pingpong -g 3 -n 300
pair write_bw_loss 18535 "" bw "$L" ib_write_bw -x 3 -s 65536 -n 300 -F
pair send_bw_loss 18536 "" bw "$L" ib_send_bw -x 3 -s 65536 -n 300 -F
pair read_bw_loss 18537 "" bw "$L" ib_read_bw -x 3 -s 65536 -n 300 -F
pair atomic_bw_loss 18538 "" bw "$L" ib_atomic_bw -x 3 -n 300 -F
pair write_lat_loss 18539 "" lat "$L" ib_write_lat -x 3 -s 8 -n 300 -F
pair send_lat_loss 18541 "" lat "$L" ib_send_lat -x 3 -s 8 -n 300 -F
pair read_lat_loss 18542 "" lat "$L" ib_read_lat -x 3 -s 8 -n 300 -F
if command -v ucx_perftest >/dev/null; then
	pair ucx_rc_mlx5_am_lat_loss 18543 "" ucx "$L" ucx_perftest -d mlx5_0:1 -x rc_mlx5 -t am_lat -n 500
	pair ucx_dc_mlx5_put_bw_loss 18544 "" ucx "$L" ucx_perftest -d mlx5_0:1 -x dc_mlx5 -t put_bw -s 65536 -D zcopy -n 100
	# (UCX's UD transport is reliable: it resends what is lost itself)
	pair ucx_ud_mlx5_am_lat_loss 18548 "" ucx "$L" ucx_perftest -d mlx5_0:1 -x ud_mlx5 -t am_lat -n 500
fi
# raw: four QPs at once, each pair of QPNs its own UDP source port
[ $MODE = raw ] && SPORTS=4 pair send_bw_4qps 18547 "$CAP" bw "" \
	ib_send_bw -x 3 -s 1024 -n 100 -q 4

# A neighbour that does not answer ARP (an address of the veth's subnet
# nobody has): modify_qp to RTR and create_ah fail with ETIMEDOUT after
# about 1 s, as the kernel's ib_resolve_eth_dmac() does; towards the peer
# both succeed at once.
if wanted neighbour && /usr/bin/python3 -c "import pyverbs" 2>/dev/null; then
	"$here/two_hosts.sh" --timeout 30 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF
		$SMX run -- /usr/bin/python3 $here/neigh_check.py 10.77.0.99 \$HOST_B_IP4 \
			>$OUT/neigh.A 2>&1" -- "sleep 6" >"$OUT/neigh.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "PASS  neighbour: $(tr '\n' ';' <"$OUT/neigh.A")"
	else
		bad "neighbour: exit $rc"
		tail -5 "$OUT/neigh.A" 2>/dev/null | sed 's/^/      /'
	fi
fi

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
if len(sys.argv) < 3:
    sys.exit(0)
# raw mode: frames a socket cannot send, to A's MAC (argv[2]) from argv[3]
from scapy.all import Ether, IP, UDP, Raw, sendp
import zlib
def icrc(ip):
    b = bytearray(ip)
    b[1] = b[8] = 0xff
    b[10:12] = b[26:28] = b"\xff\xff"
    b[32] = 0xff
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xffffffff)
eth = Ether(dst=sys.argv[2], type=0x0800)
good = bytes(IP(src=sys.argv[4], dst=sys.argv[1], flags="DF", id=7) /
             UDP(sport=0xc000, dport=4791, chksum=0) / Raw(nqp))
frames = [
    eth / Raw(good + b"\x00\x00\x00\x00"),          # bad ICRC
    eth / Raw(good[:-4]),                            # cut: IP length beyond
    eth / Raw(good[:10] + b"\x00\x00" + good[12:] + icrc(good)),  # IP csum
    eth / Raw(good[:24] + b"\x00\x0c" + good[26:] + icrc(good)),  # UDP length
]
sendp(frames, iface=sys.argv[3], verbose=False)
EOF
	"$here/two_hosts.sh" --timeout 60 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF
		$SMX run -- ibv_rc_pingpong -c -g 3 -n 100 -p 18540 >$OUT/mal.A 2>&1 &
		sp=\$!
		for _ in \$(seq 200); do grep -q ':486C 0\+:0000 0A' /proc/net/tcp /proc/net/tcp6 && break; sleep 0.05; done
		cat /sys/class/net/\$HOST_A_IF/address >$OUT/mal.mac
		: >$OUT/mal.listen
		for _ in \$(seq 200); do [ -e $OUT/mal.sent ] && break; sleep 0.05; done
		sleep 0.3
		$SMX counters >$OUT/mal.counters
		: >$OUT/mal.ready
		wait \$sp" -- "
		export SOFTMLX5_NETDEV=\$HOST_B_IF
		for _ in \$(seq 200); do [ -e $OUT/mal.listen ] && break; sleep 0.05; done
		if [ $MODE = raw ]; then
			/usr/bin/python3 $OUT/junk.py \$HOST_A_IP4 \$(cat $OUT/mal.mac) \$HOST_B_IF \$HOST_B_IP4
		else
			/usr/bin/python3 $OUT/junk.py \$HOST_A_IP4
		fi && : >$OUT/mal.sent
		for _ in \$(seq 200); do [ -e $OUT/mal.ready ] && break; sleep 0.05; done
		$SMX run -- ibv_rc_pingpong -c -g 3 -n 100 -p 18540 \$HOST_A_IP4 >$OUT/mal.B 2>&1" \
		>"$OUT/mal.log" 2>&1
	rc=$?
	# (a bad ICRC counts in rx_icrc_errors, the rest in rx_malformed)
	m=$(awk '$1 == "rx_malformed" || $1 == "rx_icrc_errors" { n += $2 }
		 END { if (NR) print n + 0 }' "$OUT/mal.counters" 2>/dev/null)
	want=$([ $MODE = raw ] && echo 9 || echo 5)
	if [ $rc = 0 ] && [ "${m:-0}" -ge $want ] && grep -q "iters in" "$OUT/mal.B"; then
		echo "PASS  malformed: rx_malformed + rx_icrc_errors $m, then the pingpong ran"
	else
		bad "malformed: exit $rc, rx_malformed '${m:-none}'"
		tail -3 "$OUT/mal.A" "$OUT/mal.B" 2>/dev/null | sed 's/^/      /'
	fi
fi

# Forged packets against live QPs (tests/net/hostile_rx.py says which and
# what must happen): host B is the QPs' requester, writing each packet by
# hand from its address and from a second one not in the QPs' path.
if wanted hostile; then
	# udp: IPv6 (GID 5); raw: IPv4 (GID 3), hostile_rx.py says why
	if [ $MODE = raw ]; then
		hf=4 hg=3 hpeer='::ffff:$HOST_B_IP4' hother=10.77.0.3 hcidr=10.77.0.3/24
	else
		hf=6 hg=5 hpeer='$HOST_B_IP6' hother=fd77::3 hcidr='fd77::3/64 nodad'
	fi
	"$here/two_hosts.sh" --timeout 60 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF
		(for _ in \$(seq 600); do [ -e $OUT/hostile.done ] && break; sleep 0.05; done
		 $SMX counters >$OUT/hostile.ctr 2>&1; echo done) |
		$SMX run -- $BIN/hostile_target $hg $hpeer 8 >$OUT/hostile.A 2>$OUT/hostile.err" -- "
		ip addr add $hcidr dev \$HOST_B_IF
		/usr/bin/python3 $here/hostile_rx.py $OUT $hf $hother" >"$OUT/hostile.log" 2>&1
	rc=$?
	grep -h "^PASS\|^FAIL" "$OUT/hostile.log"
	if [ $rc != 0 ]; then
		bad "hostile: exit $rc"
		grep -v "^PASS\|^FAIL" "$OUT/hostile.log" | tail -n 5 | sed 's/^/      /'
		tail -n 3 "$OUT/hostile.err" 2>/dev/null | sed 's/^/      /'
	fi
fi

# A peer that never answers: everything it sends is lost (a fault stage);
# the requester's retries run out.
if wanted no_answer; then
	"$here/two_hosts.sh" --timeout 60 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF SOFTMLX5_FAULT='loss=100%,dir=tx'
		$SMX run -- ibv_rc_pingpong -g 3 -n 10 -p 18550 >$OUT/dead.A 2>&1 &
		sp=\$!
		for _ in \$(seq 200); do grep -q ':4876 0\+:0000 0A' /proc/net/tcp /proc/net/tcp6 && break; sleep 0.05; done
		: >$OUT/dead.ready
		for _ in \$(seq 400); do [ -e $OUT/dead.done ] && break; sleep 0.05; done
		kill \$sp; true" -- "
		export SOFTMLX5_NETDEV=\$HOST_B_IF
		for _ in \$(seq 200); do [ -e $OUT/dead.ready ] && break; sleep 0.05; done
		$SMX run -- ibv_rc_pingpong -g 3 -n 10 -p 18550 \$HOST_A_IP4 >$OUT/dead.B 2>&1
		rc=\$?; : >$OUT/dead.done; [ \$rc != 0 ]" >"$OUT/dead.log" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "retry counter exceeded" "$OUT/dead.B"; then
		echo "PASS  no_answer: the requester failed with transport retry counter exceeded"
	else
		bad "no_answer: exit $rc"
		tail -3 "$OUT/dead.A" "$OUT/dead.B" 2>/dev/null | sed 's/^/      /'
	fi
fi

# raw: a process that may not open a packet socket (CAP_NET_RAW dropped)
# says so in one line and runs udp; a raw host talks to it over IPv4
# (IPv6 datagrams with checksum 0 do not reach a UDP socket).
if [ $MODE = raw ] && wanted fallback && command -v setpriv >/dev/null; then
	# The udp host sends UDP GSO messages, which a veth hands on whole; a
	# packet socket learns their segment size from Linux 6.2 on
	# (eng_link_raw.c, raw_rx_gso()). Before, the veth must cut them.
	gso1=
	printf '%s\n6.2\n' "$(uname -r | cut -d- -f1)" | sort -V -C &&
		gso1="ip link set dev \$HOST_A_IF gso_max_segs 1;"
	"$here/two_hosts.sh" --timeout 60 -- "
		export SOFTMLX5_NETDEV=\$HOST_A_IF
		$gso1
		setpriv --bounding-set=-net_raw --inh-caps=-net_raw \
			$SMX run -- ibv_rc_pingpong -c -g 3 -n 200 -p 18570 >$OUT/fb.A 2>&1" -- "
		export SOFTMLX5_NETDEV=\$HOST_B_IF
		sleep 1
		$SMX run -- ibv_rc_pingpong -c -g 3 -n 200 -p 18570 \$HOST_A_IP4 >$OUT/fb.B 2>&1" \
		>"$OUT/fb.log" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "CAP_NET_RAW is needed); udp instead" "$OUT/fb.A" &&
	   grep -q "iters in" "$OUT/fb.B"; then
		echo "PASS  fallback: udp without CAP_NET_RAW; $(grep -h 'iters in' "$OUT/fb.B")"
	else
		bad "fallback: exit $rc"
		tail -3 "$OUT/fb.A" "$OUT/fb.B" 2>/dev/null | sed 's/^/      /'
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
