#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make bench: perftest between two processes on the software device (each
# side under `softmlx5 run`, QP info exchanged over TCP on localhost), every
# figure printed beside a physical baseline measured in the same run:
#   latency  (ib_{write,send,read}_lat 8 B, t_typical = median, us; with
#            perftest's 99% percentile column as p99)
#            vs the one-way latency of handing a cache line between two
#            processes through shared memory (bench/baseline.c lat, the
#            median of 20 chunks, measured again just before each row)
#   msg rate (ib_{write,send,read}_bw 8 B, M msg/s)
#            vs 1 / that one-way latency (cache-line hand-offs per second)
#   bandwidth (ib_{write,send,read}_bw 4 KiB, 64 KiB, 1 MiB, MiB/s)
#            vs single-thread memcpy of hot buffers of the same size
#   loss     (ib_{write,send}_bw 64 KiB, both sides with
#            SOFTMLX5_FAULT="loss=1%,seed=1" and SOFTMLX5_DIRECT=0, MiB/s)
#            vs the same transfer without loss (target: ratio >= 0.5),
#            measured again with SOFTMLX5_DIRECT=0; the row says how many drops
#            `softmlx5 counters` saw while it ran (fault_dropped)
#   raw Ethernet (raw_ethernet_lat 64 B t_typical and p99, raw_ethernet_bw
#            1518 B M msg/s, 2 s; frames between the processes by
#            eth_switch=on) vs the same shared-memory latency and hand-off rate
#   UCX      (ucx_perftest) UCT am_lat p50 over rc_verbs and rc_mlx5 between
#            two processes, and over rc_mlx5 in one (-l) with the watcher
#            spinning, vs the shm latency; p99 from a second run with -R 99
#            (ucx_perftest reports one percentile per run, over its last
#            2048 samples); UCP tag_bw 1 MiB over dc_mlx5 vs memcpy
#   FlexIO   (bench/flexio_bench.c, p50 / p99, us) DPA event-handler trigger
#            latency vs one host thread wake-up; flexio_process_call round
#            trip vs a two-thread ping-pong; baselines from the same program
#   two hosts (veth) (between two network namespaces joined by a veth pair
#            at its default MTU, tests/net/two_hosts.sh; root only, else
#            skipped with the reason), IPv4 and IPv6: the baselines
#            (bench/udp_baseline.c) UDP one-way latency of 8-byte datagrams
#            (median, us; p99 beside it) and UDP stream throughput (64 KiB
#            of payload per system call, GSO / GRO where the kernel takes
#            them; MiB/s received); then softmlx5 over its network link
#            (netdev_mode udp, ports bound to the veth ends):
#            ib_{write,send}_lat 8 B (t_typical and p99) vs that UDP
#            one-way latency (target: ratio <= 2), ib_{write,send}_bw 64 KiB
#            (2 s each) vs that UDP stream (target: ratio >= 0.5)
# Output: a table, then one line per figure:
#   bench: NAME VALUE UNIT BASELINE RATIO [EXTRA...]   (RATIO = VALUE / BASELINE)
# A baseline row without a softmlx5 figure has VALUE "-" and RATIO n/a.
# Latency rows (a typical or p50 VALUE) append p99=P99 p99/typ=P99/VALUE;
# loss rows append loss=1% target>=0.5 and fault_dropped>=N, or a note in
# parentheses when the injection was not seen. The first five fields keep
# their meaning.
#
# Usage: bench/run.sh [--build DIR] [--iters N] [--veth-only]
#   N (default 5000): iterations of a latency row (x20 at 8 B); an 8-byte
#   message rate runs 200 N messages, a bandwidth row of 4 KiB or more
#   max(N, 1 GiB / size); a latency row over the veth 2 N.
#   --veth-only: the two hosts' rows alone.
set -u
BUILD=build
ITERS=5000
VETH_ONLY=
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$2; shift 2 ;;
	--iters) ITERS=$2; shift 2 ;;
	--veth-only) VETH_ONLY=1; shift ;;
	-h|--help) sed -n '3,55p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench: unknown argument $1" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
SMX=$(cd "$BUILD" 2>/dev/null && pwd)/bin/softmlx5
[ -x "$SMX" ] || { echo "bench: $SMX not found (make build)" >&2; exit 2; }
command -v ib_write_bw >/dev/null || { echo "bench: perftest not installed" >&2; exit 2; }
WORK=$(mktemp -d /tmp/smx-bench.XXXXXX)
BASE=$WORK/baseline
${CC:-cc} -O2 -o "$BASE" "$here/baseline.c" || { echo "bench: cannot build baseline.c" >&2; exit 2; }
PORT=$((30000 + $$ % 20000))

# wait_port PORT: the conformance scripts' (at most 10 s)
. "$here/../tests/conformance/pair_lib.sh"

# perf PROG SIZE [VAR=VALUE...]: runs a pair, both sides with the VAR=VALUE
# settings in their environment; prints the client's result line (or
# nothing).
perf() {
	local prog=$1 size=$2 port=$((PORT++)) spid n=$ITERS
	shift 2
	# Rates and bandwidths are steady-state figures: 5000 8-byte messages
	# last a few milliseconds, less than the noise of two processes
	# starting up, and the first tens of milliseconds run slower (the
	# receiving side's inbox thread has not seen the polling yet); 5000 x
	# 4 KiB lasted 3 ms, and one descheduled millisecond moved the figure
	# 2-10x. So an 8-byte rate runs 1 M messages, a bandwidth row moves
	# 1 GiB at least (5000 x 1 MiB at most), an 8-byte latency row 100 k.
	case $prog in
	*_bw)
		[ "$size" -le 64 ] && n=$((ITERS * 200))
		[ "$size" -ge 4096 ] && n=$(( (1 << 30) / size > ITERS ?
					      (1 << 30) / size : ITERS )) ;;
	*)
		[ "$size" -le 64 ] && n=$((ITERS * 20)) ;;
	esac
	env "$@" timeout 120 "$SMX" run -- "$prog" -d mlx5_0 -x 0 -s "$size" -n "$n" -p $port \
		>"$WORK/$prog.$size.server" 2>&1 &
	spid=$!
	wait_port $port
	env "$@" timeout 120 "$SMX" run -- "$prog" -d mlx5_0 -x 0 -s "$size" -n "$n" -p $port localhost \
		>"$WORK/$prog.$size.client" 2>&1
	wait $spid
	grep -E "^ *$size +[0-9]+ " "$WORK/$prog.$size.client" | tail -1 | tr -s ' \t' ' '
}

# raw_perf PROG ARGS...: a raw Ethernet pair (server and client MACs
# differ), prints the client's result line.
raw_perf() {
	local prog=$1 port=$((PORT++)) spid; shift
	SOFTMLX5_ETH_SWITCH=on timeout 120 "$SMX" run -- "$prog" -d mlx5_0 "$@" \
		-B 02:00:00:00:00:02 -E 02:00:00:00:00:01 --server -p $port \
		>"$WORK/$prog.server" 2>&1 &
	spid=$!
	wait_port $port
	SOFTMLX5_ETH_SWITCH=on timeout 120 "$SMX" run -- "$prog" -d mlx5_0 "$@" \
		-B 02:00:00:00:00:01 -E 02:00:00:00:00:02 --client -p $port localhost \
		>"$WORK/$prog.client" 2>&1
	wait $spid
	grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$WORK/$prog.client" | tail -1 | tr -s ' \t' ' '
}

# ucx_perf ARGS...: a ucx_perftest pair, prints the client's Final line.
ucx_perf() {
	local port=$((PORT++)) spid
	timeout 120 "$SMX" run -- ucx_perftest -p $port "$@" \
		>"$WORK/ucx.server" 2>&1 &
	spid=$!
	wait_port $port
	timeout 120 "$SMX" run -- ucx_perftest localhost -p $port "$@" \
		>"$WORK/ucx.client" 2>&1
	wait $spid
	grep '^Final:' "$WORK/ucx.client" | tr -s ' '
}

ROWS=()
row() { # name value unit baseline [extra...]
	local ratio
	if [ -n "$2" ] && [ -n "$4" ]; then
		ratio=$(awk -v v="$2" -v b="$4" 'BEGIN { printf "%.3f", (b > 0) ? (v / b) : 0 }')
	else
		ratio=n/a
	fi
	ROWS+=("$1 ${2:-FAILED} $3 ${4:-FAILED} $ratio${5:+ ${*:5}}")
}

# lat_row NAME TYPICAL P99 BASELINE [extra...]: a latency row, the typical
# (median) figure against the baseline, then p99=P99 p99/typ=P99/TYPICAL.
lat_row() {
	local p99=$3 q=n/a
	case $p99 in ''|*[!0-9.]*) p99=n/a ;; esac
	[ "$p99" != n/a ] && [ -n "$2" ] &&
		q=$(awk -v p="$p99" -v t="$2" 'BEGIN { printf "%.2f", (t > 0) ? (p / t) : 0 }')
	[ "$q" = 0.00 ] && q=n/a
	row "$1" "$2" us "$4" "p99=$p99" "p99/typ=$q" "${@:5}"
}

# base_row NAME UNIT BASELINE [extra...]: a baseline with no softmlx5 figure
# beside it (yet).
base_row() {
	ROWS+=("$1 - $2 ${3:-FAILED} n/a${4:+ ${*:4}}")
}

# fault_dropped: the fault_dropped count `softmlx5 counters` prints (summed
# over the lines naming it), "none" if it names no such counter, "nocmd" if
# the tool has no counters command.
fault_dropped() {
	local out
	out=$(timeout 10 "$SMX" counters 2>/dev/null) || { echo nocmd; return; }
	awk -F'[ \t=:]+' '/fault_dropped/ {
		for (i = NF; i > 0; i--) if ($i ~ /^[0-9]+$/) { s += $i; break }
		f = 1 }
		END { print f ? s + 0 : "none" }' <<<"$out"
}

# Two hosts on one machine (bench/udp_baseline.c and perftest between two
# network namespaces over a veth pair, one run of tests/net/two_hosts.sh:
# A serves, B measures). Per address family, in this order: the UDP
# baselines, then ib_write_lat, ib_send_lat 8 B (VETH_LAT_N iterations),
# ib_write_bw, ib_send_bw 64 KiB (2 s each), every port bound to its veth
# end (SOFTMLX5_NETDEV, netdev_mode udp), the veth at its default MTU.
VETH_LAT_N=$((ITERS * 2))
veth_side() { # A|B: the script of that side, written to $WORK/veth.$1.sh
	cat <<'SIDE'
# Each perftest pair: A's server says it listens (a file), B's client
# waits for that. A failing pair only fails its row.
export SOFTMLX5_NETDEV=$(eval echo \$HOST_${SIDE}_IF)
unset SOFTMLX5_FAULT SOFTMLX5_NETDEV_MODE SOFTMLX5_SHM_PATH
n=0
pt() { # PROG SIZE ARGS...
	local prog=$1 size=$2 port=$((VETH_PORT + n)) tag=$1.$2.ipv$f hex
	shift 2
	n=$((n + 1))
	if [ $SIDE = A ]; then
		timeout 120 "$SMX" run -- $prog -d mlx5_0 -x $g -s $size "$@" -p $port \
			>"$WORK/veth.$tag.A" 2>&1 &
		hex=$(printf '%04X' $port)
		for _ in $(seq 200); do
			grep -q ":$hex 0\+:0000 0A" /proc/net/tcp /proc/net/tcp6 && break
			sleep 0.05
		done
		: >"$WORK/veth.$tag.ready"
		wait $!
	else
		for _ in $(seq 400); do
			[ -e "$WORK/veth.$tag.ready" ] && break
			sleep 0.05
		done
		# (perftest's own TCP exchange over IPv4: it takes no IPv6
		# literal)
		timeout 120 "$SMX" run -- $prog -d mlx5_0 -x $g -s $size "$@" -p $port \
			$HOST_A_IP4 >"$WORK/veth.$tag.B" 2>&1
	fi
}
for f in 4 6; do
	eval a=\$HOST_A_IP$f
	g=$([ $f = 4 ] && echo 3 || echo 5)	# the GID of that address
	if [ $SIDE = A ]; then
		"$UDPB" lat server $a -t 20 && "$UDPB" bw server $a -p 47911 -t 20
	else
		"$UDPB" lat client $a -n $UDP_ITERS && "$UDPB" bw client $a -p 47911 -d 2
	fi || echo "veth: UDP baseline IPv$f failed"
	pt ib_write_lat 8 -n $VETH_LAT_N
	pt ib_send_lat 8 -n $VETH_LAT_N
	pt ib_write_bw 65536 -D 2
	pt ib_send_bw 65536 -D 2
done
true
SIDE
}

veth_rows() {
	local rc f l b t ul mtu
	echo "bench: two hosts (veth)"
	UDPB=$(cd "$BUILD" && pwd)/bin/udp_baseline
	if [ ! -x "$UDPB" ]; then
		echo "bench: two hosts (veth): skipped ($UDPB not built)"
		return
	fi
	veth_side >"$WORK/veth.sh"
	export UDPB SMX WORK VETH_LAT_N UDP_ITERS=$((ITERS * 4)) VETH_PORT=$PORT
	PORT=$((PORT + 16))
	"$here/../tests/net/two_hosts.sh" --timeout 900 -- \
		'SIDE=A; cat /sys/class/net/$HOST_A_IF/mtu >"$WORK/veth.mtu"; . "$WORK/veth.sh"' -- \
		'SIDE=B; . "$WORK/veth.sh"' >"$WORK/veth.out" 2>&1
	rc=$?
	if [ $rc = 77 ]; then
		echo "bench: two hosts (veth): skipped ($(sed -n 's/^two_hosts.sh: \(.*\); skipped$/\1/p' "$WORK/veth.out" | head -1))"
		return
	fi
	[ $rc = 0 ] || { echo "bench: two hosts (veth): failed ($rc)"; cat "$WORK/veth.out"; }
	mtu=mtu=$(cat "$WORK/veth.mtu" 2>/dev/null)
	val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }	# KEY LINE
	res() { # TAG SIZE: the client's result line
		grep -E "^ *$2 +[0-9]+ " "$WORK/veth.$1.B" 2>/dev/null | tail -1 | tr -s ' \t' ' '
	}
	for f in 4 6; do
		l=$(grep "^udp_lat family=$f " "$WORK/veth.out")
		b=$(grep "^udp_bw family=$f " "$WORK/veth.out")
		ul=$(val median_us "$l")
		base_row veth_udp_lat_8B_ipv$f us "$ul" \
			"baseline_p99=$(val p99_us "$l")" "(UDP one-way, busy-polled)"
		base_row veth_udp_bw_64KiB_ipv$f MiB/s "$(val mib_per_s "$b")" \
			"gso=$(val gso "$b")" "gro=$(val gro "$b")" "loss=$(val loss_pct "$b")%"
		for t in write send; do
			# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
			l=$(res ib_${t}_lat.8.ipv$f 8)
			lat_row veth_${t}_lat_8B_ipv$f "$(echo "$l" | awk '{ print $5 }')" \
				"$(echo "$l" | awk '{ print $8 }')" "$ul" "target<=2" $mtu
		done
		for t in write send; do
			# #bytes #iterations BW_peak BW_average MsgRate
			l=$(res ib_${t}_bw.65536.ipv$f 65536)
			row veth_${t}_bw_64KiB_ipv$f "$(echo "$l" | awk '{ print $4 }')" \
				MiB/s "$(val mib_per_s "$b")" "target>=0.5" $mtu
		done
	done
}

table_print() {
	echo
	fmt='%-26s %12s %-8s %14s %8s %9s %7s  %s\n'
	{
		printf "$fmt" figure softmlx5 unit baseline ratio p99 p99/typ note
		printf "$fmt" -------------------------- ------------ -------- -------------- -------- \
			--------- ------- ----
		for r in "${ROWS[@]}"; do
			read -r f v u b q rest <<<"$r"
			p99= pq= note=
			for x in $rest; do
				case $x in
				p99=*) p99=${x#p99=} ;;
				p99/typ=*) pq=${x#p99/typ=} ;;
				*) note="${note:+$note }$x" ;;
				esac
			done
			printf "$fmt" "$f" "$v" "$u" "$b" "$q" "$p99" "$pq" "$note"
		done
	} | sed 's/ *$//'
	echo "(baselines: latency = shm cache-line one-way between two processes;"
	echo " msg rate = 1 / that latency; bandwidth = single-thread memcpy, same size;"
	echo " *_loss1pct = the same transfer without loss (SOFTMLX5_DIRECT=0), target >= 0.5;"
	echo " flexio_trig = one host thread wake-up (eventfd); flexio_rpc = eventfd"
	echo " ping-pong round trip between two threads;"
	echo " veth_udp_* = UDP between two network namespaces over a veth pair"
	echo " (bench/udp_baseline.c: busy-polled ping-pong; GSO+GRO stream, MiB/s received);"
	echo " veth_*_lat / _bw = softmlx5 between the same namespaces (netdev_mode udp)"
	echo " vs the same run's UDP one-way latency (target <= 2) / stream (target >= 0.5);"
	echo " mtu = the veth's interface MTU (path MTU 1024 at 1500)."
	echo " p99: perftest's 99% percentile column; UCX from a second run with -R 99;"
	echo " p99/typ = p99 / the typical (median) figure)"
	echo
}

if [ -n "$VETH_ONLY" ]; then
	veth_rows
	table_print
	for r in "${ROWS[@]}"; do echo "bench: $r"; done
	rm -rf "$WORK"
	exit 0
fi

echo "bench: measuring baselines"
SHM_LAT=$("$BASE" lat 200000)
SHM_RATE=$(awk -v l="$SHM_LAT" 'BEGIN { printf "%.2f", 1 / l }')
declare -A MEMCPY NOLOSS
for s in 4096 65536 1048576; do MEMCPY[$s]=$("$BASE" memcpy $s); done

echo "bench: latency"
for t in write send read; do
	# The floor again just before the row: where the host puts the two
	# vCPUs moves it (0.04-0.2 us seen), and the row should meet the
	# floor it ran on.
	floor=$("$BASE" lat 100000)
	line=$(perf ib_${t}_lat 8)
	# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
	lat_row "${t}_lat_8B" "$(echo "$line" | awk '{ print $5 }')" \
		"$(echo "$line" | awk '{ print $8 }')" "${floor:-$SHM_LAT}"
done
echo "bench: bandwidth"
for t in write send read; do
	line=$(perf ib_${t}_bw 8)
	# #bytes #iterations BW_peak BW_average MsgRate(Mpps)
	row "${t}_bw_8B" "$(echo "$line" | awk '{ print $5 }')" Mmsg/s "$SHM_RATE"
	for s in 4096 65536 1048576; do
		line=$(perf ib_${t}_bw $s)
		case $s in 4096) n=4KiB ;; 65536) n=64KiB ;; *) n=1MiB ;; esac
		row "${t}_bw_$n" "$(echo "$line" | awk '{ print $4 }')" MiB/s "${MEMCPY[$s]}"
	done
done

# 64 KiB WRITE and SEND bandwidth with the device dropping 1% of the
# packets (SOFTMLX5_FAULT, both sides, fixed seed), against the same
# transfer without loss. Both go with SOFTMLX5_DIRECT=0 in both runs:
# direct placement and SEND by reference send no payload in packets, so
# the lossy link would never see it (and a fault stage turns them off
# anyway); their no-loss references are measured here too. The port's counters are the
# sum over the processes attached now, so fault_dropped is sampled while
# the pair runs (the largest value seen); a device that does not know
# SOFTMLX5_FAULT runs loss-free, and the row says so.
drops_watch() {	# FLAG: sample fault_dropped while FLAG exists; max to FLAG.max
	local m=0 v
	while [ -e "$1" ]; do
		v=$(fault_dropped)
		case $v in ''|*[!0-9]*) ;; *) [ "$v" -gt "$m" ] && m=$v ;; esac
		sleep 0.05
	done
	echo "$m" >"$1.max"
}
echo "bench: bandwidth under 1% loss"
NOLOSS[write]=$(perf ib_write_bw 65536 SOFTMLX5_DIRECT=0 | awk '{ print $4 }')
NOLOSS[send]=$(perf ib_send_bw 65536 SOFTMLX5_DIRECT=0 | awk '{ print $4 }')
for t in write send; do
	flag=$WORK/drops.$t
	: >"$flag"
	drops_watch "$flag" &
	wpid=$!
	line=$(perf ib_${t}_bw 65536 SOFTMLX5_FAULT="loss=1%,seed=1" SOFTMLX5_DIRECT=0)
	rm -f "$flag"
	wait $wpid
	case $(fault_dropped) in
	nocmd) note="(fault injection unverified: no softmlx5 counters)" ;;
	*) d=$(cat "$flag.max" 2>/dev/null || echo 0)
	   if [ "$d" -gt 0 ]; then
		note="fault_dropped>=$d"
	   else
		note="(no packet seen dropped)"
	   fi ;;
	esac
	row "${t}_bw_64KiB_loss1pct" "$(echo "$line" | awk '{ print $4 }')" MiB/s \
		"${NOLOSS[$t]:-0}" "loss=1%" "target>=0.5" "$note"
done

if command -v raw_ethernet_bw >/dev/null; then
	echo "bench: raw Ethernet"
	line=$(raw_perf raw_ethernet_lat -n $ITERS)
	# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
	lat_row raw_eth_lat_64B "$(echo "$line" | awk '{ print $5 }')" \
		"$(echo "$line" | awk '{ print $8 }')" "$SHM_LAT"
	line=$(raw_perf raw_ethernet_bw -D 2)
	row raw_eth_bw_1518B "$(echo "$line" | awk '{ print $5 }')" Mmsg/s "$SHM_RATE"
fi

# UCX's UCT active-message latency (p50 of the one-way figure) over a verbs
# transport, whose doorbells are library calls, and over an mlx5 transport,
# whose doorbells are stores the device's watcher finds; UCP's 1 MiB
# tagged bandwidth over dc_mlx5 (rendezvous by RDMA). ucx_perftest reports
# one percentile per run (-R, 50 by default; over its last 2048 samples),
# so each latency is run twice: p50, then -R 99 for the p99.
if command -v ucx_perftest >/dev/null; then
	echo "bench: UCX"
	for tl in rc_verbs rc_mlx5; do
		# Final: iters percentile average overall ...
		p50=$(ucx_perf -d mlx5_0:1 -x $tl -t am_lat -n $((ITERS / 2)) | awk '{ print $3 }')
		p99=$(ucx_perf -d mlx5_0:1 -x $tl -t am_lat -n $((ITERS / 2)) -R 99 |
			awk '{ print $3 }')
		lat_row ucx_am_lat_$tl "$p50" "$p99" "$SHM_LAT"
	done
	# One process, both ends, the watcher spinning (SOFTMLX5_WATCH_SPIN_US):
	# what store-rung doorbells cost when the watcher has a core.
	lb() {
		SOFTMLX5_WATCH_SPIN_US=1000 timeout 120 "$SMX" run -- ucx_perftest \
			-l -d mlx5_0:1 -x rc_mlx5 -t am_lat -n $((ITERS * 4)) "$@" 2>/dev/null |
			grep '^Final:' | tr -s ' ' | awk '{ print $3 }'
	}
	p50=$(lb)
	p99=$(lb -R 99)
	lat_row ucx_am_lat_rc_mlx5_lb_spin "$p50" "$p99" "$SHM_LAT"
	line=$(UCX_TLS=dc_x,self ucx_perf -t tag_bw -s 1048576 -n 200)
	# ... MB/s average (decimal MB) -> MiB/s
	row ucx_tag_bw_dc_1MiB "$(echo "$line" | awk '{ if ($6 != "") printf "%.1f", $6 * 1e6 / 1048576 }')" \
		MiB/s "${MEMCPY[1048576]}"
fi

# FlexIO (bench/flexio_bench.c): the software DPA's event-handler trigger
# latency and RPC round trip; the program measures its host thread wake-up
# baselines itself, interleaved with the figures. Its p50 rows also carry
# the matching p99 row's figure as p99= (the p99 rows stay as they were).
echo "bench: flexio"
FXB=$(cd "$BUILD" && pwd)/bin/flexio_bench
FXN=0
if [ -x "$FXB" ]; then
	FXROWS=()
	declare -A FX99
	while read -r tag n v u b; do
		[ "$tag" = row ] || continue
		FXROWS+=("$n $v $u $b")
		FX99[$n]=$v
	done < <(timeout 300 "$FXB" --iters $((ITERS * 4)) 2>"$WORK/flexio_bench.err")
	for r in "${FXROWS[@]}"; do
		read -r n v u b <<<"$r"
		if [ "$u" = us ] && [[ $n == *_p50 ]] && [ -n "${FX99[${n%_p50}_p99]:-}" ]; then
			lat_row "$n" "$v" "${FX99[${n%_p50}_p99]}" "$b"
		else
			row "$n" "$v" "$u" "$b"
		fi
		FXN=$((FXN + 1))
	done
fi
if [ $FXN -eq 0 ]; then
	cat "$WORK/flexio_bench.err" 2>/dev/null >&2
	for f in flexio_trig_p50 flexio_trig_p99 flexio_rpc_p50 flexio_rpc_p99; do
		row $f "" us 0
	done
fi

veth_rows
table_print
for r in "${ROWS[@]}"; do echo "bench: $r"; done
rm -rf "$WORK"
