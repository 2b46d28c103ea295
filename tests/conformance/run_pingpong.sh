#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Two processes on one host through the software device: Debian's
# ibv_*_pingpong (ibverbs-utils) and perftest run as server + client pairs,
# each side under `softmlx5 run`, plus
#   raw   perftest's raw_ethernet_bw and raw_ethernet_lat, frames between the
#         two processes through the eth_switch knob
#   ucx   UCX's ucx_perftest over its verbs and mlx5 transports (UCT and UCP)
#   idle  an ibv_rc_pingpong server waiting 5 s for its client uses < 0.1 s CPU
#   kill  a side killed mid-transfer: the other side ends with an error
#         completion (transport retry exceeded), not a hang; then a new pair
#         runs fine.
#
# Usage: run_pingpong.sh [--build DIR] [--timeout SEC] [--only REGEX]
# Exit status: 0 when every check passed, 1 otherwise, 77 when the clients
# are not installed.
set -u

# pair_args, pair_need, result, wait_port, selected, pair
. "$(dirname "$0")/pair_lib.sh"

BUILD=build
TMO=60
ONLY=
pair_args "" "$@"
pair_need ibv_rc_pingpong ib_write_bw

LOG=$(mktemp -d /tmp/smx-pingpong.XXXXXX)
PORT=$((20000 + $$ % 20000))

echo "== pingpong between two processes ($SMX, logs in $LOG)"
pair rc_pingpong -p ibv_rc_pingpong -g 0
pair uc_pingpong -p ibv_uc_pingpong -g 0
pair ud_pingpong -p ibv_ud_pingpong -g 0
pair srq_pingpong -p ibv_srq_pingpong -g 0
pair xsrq_pingpong -p ibv_xsrq_pingpong -g 0

echo "== perftest between two processes"
for t in write_bw read_bw send_bw atomic_bw write_lat read_lat send_lat atomic_lat; do
	if command -v ib_$t >/dev/null; then
		pair "ib_$t" -p "ib_$t" -d mlx5_0 -x 0 -n 1000
	else
		result "ib_$t" 0 "ib_$t not installed"
	fi
done

# Raw Ethernet between two processes: frames cross through the eth_switch
# knob (the device's processes joined as by a switch); server and client
# differ in MACs and role. The bandwidth test is timed (a flooding sender
# may lose frames at a full inbox, as at a switch port); the server must
# have received frames.
raw_pair() {
	local name=$1; shift
	local port=$((PORT++)) spid s c got
	selected "$name" || return 0
	SOFTMLX5_ETH_SWITCH=on timeout "$TMO" "$SMX" run -- "$@" -d mlx5_0 \
		-B 02:00:00:00:00:02 -E 02:00:00:00:00:01 --server -p $port \
		>"$LOG/$name.server" 2>&1 &
	spid=$!
	wait_port $port
	SOFTMLX5_ETH_SWITCH=on timeout "$TMO" "$SMX" run -- "$@" -d mlx5_0 \
		-B 02:00:00:00:00:01 -E 02:00:00:00:00:02 --client -p $port localhost \
		>"$LOG/$name.client" 2>&1
	c=$?
	wait $spid; s=$?
	got=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$LOG/$name.server" | tail -1 | tr -s ' ')
	if [ $s = 0 ] && [ $c = 0 ] && [ -n "$got" ] && [ "$(echo $got | cut -d' ' -f2)" -gt 0 ]; then
		result "$name" 1 "server |$got"
	else
		result "$name" 0 "server $s client $c |$got"
	fi
}

echo "== raw Ethernet (perftest) between two processes, eth_switch on"
if command -v raw_ethernet_bw >/dev/null; then
	raw_pair raw_ethernet_bw raw_ethernet_bw -D 2
	raw_pair raw_ethernet_lat raw_ethernet_lat -n 1000
else
	result raw_ethernet 0 "raw_ethernet_bw not installed"
fi

# UCX (Debian's ucx-utils) between two processes, UCT and UCP levels.
# `softmlx5 run` shows UCX the device node and the sysfs files it looks for
# (src/run/devnode.c), so both its verbs transports (rc_verbs, ud_verbs) and
# its mlx5 ones run: rc_mlx5, dc_mlx5 and ud_mlx5 build WQEs and ring
# doorbells by plain stores and read CQEs from memory, DEVX objects where
# UCX makes them. ud_mlx5's 6000 round trips wrap its 4096-entry RQ; the
# fetch-and-adds check host-order atomics; dc_x carries UCP's rendezvous.
ucx_pair() {
	local name=$1; shift
	local port=$((PORT++)) spid s c line
	selected "$name" || return 0
	timeout "$TMO" "$SMX" run -- ucx_perftest -p $port "$@" \
		>"$LOG/$name.server" 2>&1 &
	spid=$!
	wait_port $port
	timeout "$TMO" "$SMX" run -- ucx_perftest localhost -p $port "$@" \
		>"$LOG/$name.client" 2>&1
	c=$?
	wait $spid; s=$?
	line=$(grep '^Final:' "$LOG/$name.client" | tr -s ' ')
	if [ $s = 0 ] && [ $c = 0 ] && [ -n "$line" ]; then
		result "$name" 1 "$line"
	else
		result "$name" 0 "server $s client $c: $(grep -m1 ERROR "$LOG/$name.client")"
	fi
}

echo "== UCX (ucx_perftest) between two processes"
if command -v ucx_perftest >/dev/null; then
	ucx_pair ucx_uct_am_lat -d mlx5_0:1 -x rc_verbs -t am_lat -n 10000
	ucx_pair ucx_uct_put_bw -d mlx5_0:1 -x rc_verbs -t put_bw -s 65536 -D zcopy -n 1000
	UCX_TLS=rc_verbs,ud_verbs,self ucx_pair ucx_tag_lat -t tag_lat -n 10000
	UCX_TLS=rc_verbs,ud_verbs,self ucx_pair ucx_tag_bw -t tag_bw -s 1048576 -n 200
	ucx_pair ucx_rc_mlx5_am_lat -d mlx5_0:1 -x rc_mlx5 -t am_lat -n 2000
	ucx_pair ucx_rc_mlx5_fadd -d mlx5_0:1 -x rc_mlx5 -t fadd -n 1000
	ucx_pair ucx_dc_mlx5_put_bw -d mlx5_0:1 -x dc_mlx5 -t put_bw -s 65536 -D zcopy -n 300
	ucx_pair ucx_ud_mlx5_am_lat -d mlx5_0:1 -x ud_mlx5 -t am_lat -n 6000
	UCX_TLS=dc_x,self ucx_pair ucx_dc_x_tag_bw -t tag_bw -s 1048576 -n 50
	# One process, both ends (ucx_perftest -l), the watcher spinning
	# (SOFTMLX5_WATCH_SPIN_US): store-rung doorbells found at once.
	if selected ucx_rc_mlx5_loopback_spin; then
		line=$(SOFTMLX5_WATCH_SPIN_US=1000 timeout "$TMO" "$SMX" run -- \
			ucx_perftest -l -d mlx5_0:1 -x rc_mlx5 -t am_lat -n 20000 \
			2>"$LOG/ucx_lb.err" | grep '^Final:' | tr -s ' ')
		if [ -n "$line" ]; then
			result ucx_rc_mlx5_loopback_spin 1 "$line"
		else
			result ucx_rc_mlx5_loopback_spin 0 "$(head -c 300 "$LOG/ucx_lb.err")"
		fi
	fi
else
	result ucx 0 "ucx_perftest not installed (ucx-utils)"
fi

# idle: an RC server waiting for a client that never comes.
if selected idle_cpu; then
	port=$((PORT++))
	"$SMX" run -- ibv_rc_pingpong -g 0 -p $port >"$LOG/idle_cpu.server" 2>&1 &
	spid=$!
	sleep 5
	ticks=$(awk '{ print $14 + $15 }' /proc/$spid/stat 2>/dev/null || echo 99999)
	hz=$(getconf CLK_TCK)
	kill $spid 2>/dev/null; wait $spid 2>/dev/null
	ms=$((ticks * 1000 / hz))
	if [ "$ms" -lt 100 ]; then result idle_cpu 1 "${ms} ms CPU in 5 s waiting"
	else result idle_cpu 0 "${ms} ms CPU in 5 s waiting (limit 100)"; fi
fi

# kill: the client of a long bidirectional ib_write_bw dies; the server, which
# keeps writing to it, must end with an error completion (retry exceeded)
# rather than hang, then a new pair works. (A side that only waits for
# receives never learns that its peer died, on hardware as here.)
if selected kill_client; then
	port=$((PORT++))
	timeout "$TMO" "$SMX" run -- ib_write_bw -d mlx5_0 -x 0 -b -D 20 -p $port >"$LOG/kill_client.server" 2>&1 &
	spid=$!
	wait_port $port
	# no timeout(1) wrapper: $cpid must be the program itself
	"$SMX" run -- ib_write_bw -d mlx5_0 -x 0 -b -D 20 -p $port localhost >"$LOG/kill_client.client" 2>&1 &
	cpid=$!
	sleep 3
	kill -9 $cpid 2>/dev/null; wait $cpid 2>/dev/null
	wait $spid; s=$?
	if [ $s != 0 ] && [ $s != 124 ]; then
		result kill_client 1 "server exit $s: $(grep -i 'status\|error' "$LOG/kill_client.server" | head -1)"
	else
		result kill_client 0 "server exit $s (124 = hung until the timeout)"
	fi
	pair after_kill_pingpong -p ibv_rc_pingpong -g 0
fi

# kill: the target of a long ib_write_bw dies; the writer must end with an
# error completion, then a new pair works.
if selected kill_server; then
	port=$((PORT++))
	# no timeout(1) wrapper: $spid must be the program itself
	"$SMX" run -- ib_write_bw -d mlx5_0 -x 0 -D 20 -p $port >"$LOG/kill_server.server" 2>&1 &
	spid=$!
	wait_port $port
	timeout "$TMO" "$SMX" run -- ib_write_bw -d mlx5_0 -x 0 -D 20 -p $port localhost >"$LOG/kill_server.client" 2>&1 &
	cpid=$!
	sleep 3
	kill -9 $spid 2>/dev/null; wait $spid 2>/dev/null
	wait $cpid; c=$?
	if [ $c != 0 ] && [ $c != 124 ]; then
		result kill_server 1 "client exit $c: $(grep -i 'status\|error' "$LOG/kill_server.client" | head -1)"
	else
		result kill_server 0 "client exit $c (124 = hung until the timeout)"
	fi
	pair after_kill_write_bw -p ib_write_bw -d mlx5_0 -x 0 -n 1000
fi

echo "== $PASS passed, $FAIL failed${FAILED:+:$FAILED}"
[ $FAIL = 0 ] || exit 1
rm -rf "$LOG"
exit 0
