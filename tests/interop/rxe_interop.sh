#!/bin/bash
# SPDX-License-Identifier: MIT
#
# softmlx5 against an independent RoCEv2 peer: Linux Soft-RoCE (rdma_rxe
# in Debian 12's own kernel, rdma-core 44, perftest) in a QEMU VM built by
# ../shared/tools/rxe-peer (its README). The VM's NIC is a TAP in a network
# namespace of ours; the host side of the TAP (198.51.100.1) is softmlx5's
# port (SOFTMLX5_NETDEV=the TAP, netdev_mode from --mode), the guest is
# 198.51.100.2 (rxe0, GID 1 = ::ffff:198.51.100.2). Every case runs both
# ways -- softmlx5 serves and rxe connects (smx_srv), then rxe serves and
# softmlx5 connects (rxe_srv) -- and passes when both sides exit 0 and
# print what they measured:
#   ibv_rc_pingpong -c (data checked), ibv_ud_pingpong, perftest
#   ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw (small counts: the
#   guest runs under TCG emulation here, its speed means nothing), and
#   ibv_rc_pingpong -c with SOFTMLX5_FAULT=loss=5% on softmlx5's side.
# Each case's RoCEv2 traffic is captured on the TAP (dumpcap or tcpdump)
# and checked by tests/transport/check_pcap.py --wire: every ICRC
# recomputed, both peers' packets, and tshark (-d udp.port==4791,infiniband
# --disable-protocol rpcordma) dissects every one with no malformed packet.
# The VM, the TAP and the namespace are always removed.
#
# Not part of `make check`: the first run downloads Debian's kernel and
# QEMU (rxe-peer's build.sh). `make interop` runs it.
#
# Usage: rxe_interop.sh [--build DIR] [--mode udp|raw] [--rxe-peer DIR]
#                       [--keep-output] [CASE...]
#   CASE: rc_pingpong ud_pingpong write_bw read_bw send_bw atomic_bw
#   rc_pingpong_loss, or
#   one of them with _smx_srv / _rxe_srv for one direction.
#   --rxe-peer: the tool's directory (default $RXE_PEER, else
#   ../shared/tools/rxe-peer beside the repository).
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no rxe-peer, no
# /dev/kvm, the VM cannot be built or booted, no ibverbs-utils/perftest).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=$repo/build
MODE=${SOFTMLX5_NETDEV_MODE:-udp}
PEER=${RXE_PEER:-$repo/../shared/tools/rxe-peer}
KEEP_OUT=0
ONLY=()
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$2; shift 2 ;;
	--mode) MODE=$2; shift 2 ;;
	--rxe-peer) PEER=$2; shift 2 ;;
	--keep-output) KEEP_OUT=1; shift ;;
	-*) echo "rxe_interop.sh: unknown argument $1" >&2; exit 2 ;;
	*) ONLY+=("$1"); shift ;;
	esac
done
skip() { echo "rxe_interop.sh: $*; skipped"; exit 77; }
case $MODE in udp|raw) ;; *) echo "rxe_interop.sh: --mode udp|raw" >&2; exit 2 ;; esac
SMX=$(cd "$BUILD" 2>/dev/null && pwd)/bin/softmlx5
[ -x "$SMX" ] || { echo "rxe_interop.sh: $SMX not found (make build)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || skip "not root (the TAP and the namespace need it)"
[ -x "$PEER/run.sh" ] || skip "no rxe-peer tool at $PEER (set RXE_PEER or --rxe-peer)"
[ -e /dev/kvm ] || skip "no /dev/kvm (rxe-peer's QEMU wants it, even for TCG)"
for t in ibv_rc_pingpong ibv_ud_pingpong ib_write_bw ib_read_bw ib_send_bw \
	 ib_atomic_bw python3; do
	command -v $t >/dev/null || skip "$t not installed"
done
# The VM's kernel, initramfs and QEMU (downloaded the first time).
if ! "$PEER/build.sh" >/tmp/rxe_interop.build.$$ 2>&1; then
	tail -5 /tmp/rxe_interop.build.$$
	rm -f /tmp/rxe_interop.build.$$
	skip "rxe-peer's build.sh failed (no network or no Debian archive?)"
fi
rm -f /tmp/rxe_interop.build.$$
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64"

# Unique names: the namespace, the VM (its TAP is rxtap-<first 9 chars>).
VM=si$$
VM=${VM:0:9}
NS=smx-interop-$$
TAP=rxtap-$VM
HOST_IP=198.51.100.1
GUEST_IP=198.51.100.2
SMX_GID=3			# ::ffff:198.51.100.1 (IPv4, RoCE v2) on the TAP
RXE_GID=1			# ::ffff:198.51.100.2
SHARE=${RXEVM_STATE:-/run/rxe-vm}/$VM/share
OUT=$(mktemp -d /tmp/smx-interop.XXXXXX)
CAP=$(command -v dumpcap || command -v tcpdump || true)
command -v tshark >/dev/null || CAP=
export SOFTMLX5_CONFIG=/dev/null SOFTMLX5_DEBUG=${SOFTMLX5_DEBUG:-}
unset SOFTMLX5_SHM_PATH SOFTMLX5_FAULT SOFTMLX5_PCAP
fails=0
passes=0
booted=0
bgpids=()

cleanup() {
	local p
	for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${bgpids[@]}"; do wait "$p" 2>/dev/null; done
	if [ $booted = 1 ]; then
		"$PEER/run.sh" --name "$VM" --stop >/dev/null 2>&1
		# run.sh keeps a stopped VM's files; the name is ours alone
		rm -rf "${RXEVM_STATE:-/run/rxe-vm}/$VM"
	fi
	ip netns list 2>/dev/null | grep -qw "$NS" && ip netns del "$NS"
	if [ $KEEP_OUT = 1 ]; then echo "output kept in $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "rxe_interop: softmlx5 ($MODE mode) <-> Linux Soft-RoCE in a VM; netns $NS, TAP $TAP"
booted=1
if ! "$PEER/run.sh" --keep --name "$VM" --net tap --netns "$NS" -- true \
	>"$OUT/boot.log" 2>&1; then
	cat "$OUT/boot.log"
	skip "the rxe VM did not boot"
fi
sed -n 's/^ *\(kernel=\|rxe0_state=\)/  guest \1/p' "$OUT/boot.log"
[ -e /sys/module/kvm_intel ] || [ -e /sys/module/kvm_amd ] ||
	echo "  (QEMU under TCG emulation here: figures are correctness runs, not speed)"

in_ns() { ip netns exec "$NS" "$@"; }
guest() { "$PEER/run.sh" --name "$VM" --exec -- "$@"; }
FAULT=			# SOFTMLX5_FAULT of the case running
smx() { # smx CMD...: CMD on softmlx5, its port bound to the TAP
	in_ns env SOFTMLX5_NETDEV="$TAP" SOFTMLX5_NETDEV_MODE="$MODE" \
		${FAULT:+SOFTMLX5_FAULT=$FAULT} \
		timeout -k 5 90 "$SMX" run -- "$@"
}
# listening PORT LISTFILE...: does a TCP socket listen on PORT (from
# /proc/net/tcp text read from stdin)?
listening() { grep -q ":$(printf '%04X' "$1") 0\+:0000 0A"; }

wanted() { # NAME DIR
	[ ${#ONLY[@]} -eq 0 ] && return 0
	local c
	for c in "${ONLY[@]}"; do
		[ "$c" = "$1" ] || [ "$c" = "$1_$2" ] && return 0
	done
	return 1
}
bad() { echo "FAIL  $*"; fails=$((fails + 1)); }

# Frames the TAP lost before the capture saw them: its queue (qdisc) and
# the tun ring are full while the emulated guest is slow to take them.
tap_drops() {
	local q t
	q=$(in_ns tc -s qdisc show dev "$TAP" 2>/dev/null |
		awk '/dropped/ { sub(",", "", $7); s += $7 } END { print s + 0 }')
	t=$(in_ns cat "/sys/class/net/$TAP/statistics/tx_dropped" 2>/dev/null)
	echo $((q + ${t:-0}))
}

cap_start() { # NAME
	drops0=$(tap_drops)
	[ -n "$CAP" ] || return 0
	# ip netns exec execs the tool: $! is its pid (SIGINT ends it)
	case $CAP in
	*tcpdump) ip netns exec "$NS" "$CAP" -i "$TAP" -U -s 0 -w "$OUT/$1.pcap" \
		udp port 4791 2>"$OUT/$1.cap.err" & ;;
	*) ip netns exec "$NS" "$CAP" -q -i "$TAP" -f "udp port 4791" -P \
		-w "$OUT/$1.pcap" 2>"$OUT/$1.cap.err" & ;;
	esac
	cpid=$!
	bgpids+=("$cpid")
	for _ in $(seq 100); do
		[ -s "$OUT/$1.pcap" ] && break
		sleep 0.05
	done
}
cap_stop() { # NAME
	local lossy= d
	[ -n "$CAP" ] || return 0
	sleep 0.2
	kill -INT "$cpid" 2>/dev/null
	wait "$cpid" 2>/dev/null
	# lost frames were never captured: the PSNs then have gaps
	d=$(($(tap_drops) - drops0))
	[ $d -gt 0 ] || [ -n "$FAULT" ] && lossy=--lossy
	if python3 "$here/../transport/check_pcap.py" --wire $lossy "$OUT/$1.pcap" \
		>"$OUT/$1.check" 2>&1; then
		echo "      capture: $(head -1 "$OUT/$1.check"), no malformed packet${lossy:+; $d frames dropped by the TAP${FAULT:+, $FAULT injected} (PSNs not checked)}"
	else
		bad "$1 capture"
		grep FAIL "$OUT/$1.check" | head -8 | sed 's/^/      /'
	fi
}

# figures CHECK FILE: what a side printed, on one line; empty if nothing
figures() {
	case $1 in
	pingpong) grep -h "iters in" "$2" | tail -1 ;;
	bw) awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $4 + 0 > 0 {
		printf "%s B x %s: %s MB/s average, %s Mpps\n", $1, $2, $4, $5; exit }' "$2" ;;
	esac
}

# run NAME PORT CHECK SMX_CMD -- RXE_CMD: both directions. The client's
# command gets the server's address appended; both get -p PORT.
run() {
	local name=$1 port=$2 check=$3 scmd=() rcmd=() dir
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	rcmd=("$@")
	for dir in smx_srv rxe_srv; do
		wanted "$name" "$dir" || continue
		one "${name}_$dir" "$dir" "$port" "$check"
		port=$((port + 1))
	done
}

one() { # CASE DIR PORT CHECK (scmd, rcmd from run())
	local c=$1 dir=$2 port=$3 check=$4 rc_s rc_c spid fs fc i
	local rline="${rcmd[*]} -p $port"
	cap_start "$c"
	if [ "$dir" = smx_srv ]; then
		smx "${scmd[@]}" -p "$port" >"$OUT/$c.smx" 2>&1 &
		spid=$!
		bgpids+=("$spid")
		for i in $(seq 200); do
			in_ns cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
				listening "$port" && break
			sleep 0.05
		done
		guest "timeout 80 $rline $HOST_IP" >"$OUT/$c.rxe" 2>&1
		rc_c=$?
		wait "$spid"
		rc_s=$?
	else
		# the guest's server in the background; its pid kept to end it
		guest "timeout 80 $rline >/share/$c.out 2>&1 & echo \$! >/share/$c.pid; wait \$!; echo \$? >/share/$c.rc" \
			>/dev/null 2>&1 &
		spid=$!
		bgpids+=("$spid")
		for i in $(seq 100); do
			guest cat /proc/net/tcp 2>/dev/null | listening "$port" && break
			sleep 0.1
		done
		smx "${scmd[@]}" -p "$port" "$GUEST_IP" >"$OUT/$c.smx" 2>&1
		rc_c=$?
		for i in $(seq 100); do
			[ -e "$SHARE/$c.rc" ] && break
			sleep 0.1
		done
		[ -e "$SHARE/$c.rc" ] || guest "kill \$(cat /share/$c.pid)" >/dev/null 2>&1
		wait "$spid"
		cp "$SHARE/$c.out" "$OUT/$c.rxe" 2>/dev/null
		rc_s=$(cat "$SHARE/$c.rc" 2>/dev/null || echo killed)
	fi
	fs=$(figures "$check" "$OUT/$c.smx")
	fc=$(figures "$check" "$OUT/$c.rxe")
	if [ "$rc_s" = 0 ] && [ "$rc_c" = 0 ] && [ -n "$fs" ] && [ -n "$fc" ]; then
		passes=$((passes + 1))
		echo "PASS  $c"
		echo "      softmlx5: $fs"
		echo "      rxe:      $fc"
	else
		bad "$c: exit $([ "$dir" = smx_srv ] && echo "server (softmlx5) $rc_s, client (rxe) $rc_c" ||
			echo "server (rxe) $rc_s, client (softmlx5) $rc_c")"
		tail -4 "$OUT/$c.smx" | sed 's/^/      softmlx5: /'
		tail -4 "$OUT/$c.rxe" 2>/dev/null | sed 's/^/      rxe:      /'
	fi
	cap_stop "$c"
}

# The rxe port's active MTU is 1024 (guest MTU 1500), as is softmlx5's on
# the TAP: UD messages fit one packet.
run rc_pingpong 18600 pingpong ibv_rc_pingpong -g $SMX_GID -c -n 100 -- \
	ibv_rc_pingpong -d rxe0 -g $RXE_GID -c -n 100
run ud_pingpong 18610 pingpong ibv_ud_pingpong -g $SMX_GID -s 1024 -n 100 -- \
	ibv_ud_pingpong -d rxe0 -g $RXE_GID -s 1024 -n 100
# 8 KiB messages: 8 packets each, READs with several responses. READ and
# atomics: -o 16 on both sides. perftest's requester takes the responder's
# count of outstanding reads as its max_rd_atomic; rxe offers 128, a
# ConnectX (and softmlx5) 16, and mlx5 refuses more at RTS.
port=18620
for t in write send read; do
	o=
	[ $t = read ] && o="-o 16"
	run ${t}_bw $port bw ib_${t}_bw -x $SMX_GID -s 8192 -n 100 -F $o -- \
		ib_${t}_bw -d rxe0 -x $RXE_GID -s 8192 -n 100 -F $o
	port=$((port + 10))
done
run atomic_bw 18650 bw ib_atomic_bw -x $SMX_GID -n 200 -F -o 16 -- \
	ib_atomic_bw -d rxe0 -x $RXE_GID -n 200 -F -o 16

# Loss at softmlx5's side (both ways through its link): its go-back-N
# and rxe's PSN sequence NAKs, duplicates and retransmissions meet. What
# we drop before sending never reaches the capture (--lossy).
FAULT=loss=5%
run rc_pingpong_loss 18660 pingpong ibv_rc_pingpong -g $SMX_GID -c -n 100 -- \
	ibv_rc_pingpong -d rxe0 -g $RXE_GID -c -n 100
FAULT=

[ -z "$CAP" ] && echo "(no dumpcap / tcpdump or no tshark: captures not checked)"
echo "$passes passed, $fails failed"
[ $fails = 0 ]
