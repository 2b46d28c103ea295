#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Unmodified programs between two processes over a lossy link: every pair
# of run_pingpong.sh's RC family runs with
#   SOFTMLX5_FAULT="loss=5%,dup=1%,reorder=2%,seed=N"   (N = 1, 2, 3)
# in both processes, each under `softmlx5 run`: ibv_rc_pingpong -c and
# ibv_srq_pingpong -c (which check the received bytes), ibv_xsrq_pingpong,
# perftest's ib_write_bw, ib_read_bw, ib_send_bw and ib_atomic_bw (-n 500).
# Server and client must both exit 0. One line per run, then a table.
#
# Usage: run_fault.sh [--build DIR] [--timeout SEC] [--only REGEX]
#                     [--seeds "1 2 3"] [--budget SEC]
# --timeout bounds each program (default 20 s), --budget the whole run
# (default 170 s: pairs not started by then count as failed).
# Exit status: 0 when every run passed, 1 otherwise, 77 when a program
# is not installed.
set -u

# pair_args, pair_need, result, wait_port, selected, pair
. "$(dirname "$0")/pair_lib.sh"

BUILD=build
TMO=20
ONLY=
SEEDS="1 2 3"
BUDGET=170
pair_args "--seeds=SEEDS --budget=BUDGET" "$@"
pair_need ibv_rc_pingpong ibv_srq_pingpong ibv_xsrq_pingpong ib_write_bw \
	  ib_read_bw ib_send_bw ib_atomic_bw

LOG=$(mktemp -d /tmp/smx-fault.XXXXXX)
PORT=$((20000 + ($$ + 7919) % 20000))

TABLE=
START=$SECONDS
# run NAME PAIR-ARGS...: one pair under the current SOFTMLX5_FAULT, timed,
# unless the budget is spent; a row of the table either way.
run() {
	local name=$1 fails=$FAIL t0=$SECONDS row
	selected "$name" || return 0
	shift
	if [ $((SECONDS - START)) -ge "$BUDGET" ]; then
		result "$name" 0 "not started: the ${BUDGET} s budget is spent"
		row=SKIP
	else
		# A segment of its own: a process of another test that attaches
		# to the default one may take the slot of the side that finished
		# first, and with it the tombstones (docs/multiprocess.md) the
		# other side's last retries need when an ACK was lost.
		SOFTMLX5_SHM_PATH=/dev/shm/softmlx5-fault-$$-$name \
			pair "$name" "$@"
		rm -f "/dev/shm/softmlx5-fault-$$-$name"
		if [ "$FAIL" = "$fails" ]; then row=PASS; else row=FAIL; fi
	fi
	TABLE="$TABLE$(printf '%-24s %-5s %3d s' "$name" "$row" $((SECONDS - t0)))
"
}

echo "== RC programs over a lossy link ($SMX, logs in $LOG)"
for seed in $SEEDS; do
	export SOFTMLX5_FAULT="loss=5%,dup=1%,reorder=2%,seed=$seed"
	echo "-- SOFTMLX5_FAULT=$SOFTMLX5_FAULT"
	# One QP that waits for each answer: a lost last packet or ACK costs
	# the adaptive retransmission timeout (1 ms and up, docs/transport.md).
	run "rc_pingpong.s$seed" -p ibv_rc_pingpong -g 0 -c -n 200
	run "srq_pingpong.s$seed" -p ibv_srq_pingpong -g 0 -c -n 2000
	run "xsrq_pingpong.s$seed" -p ibv_xsrq_pingpong -g 0
	for t in write_bw read_bw send_bw atomic_bw; do
		run "ib_$t.s$seed" -p "ib_$t" -d mlx5_0 -x 0 -n 500
	done
done
unset SOFTMLX5_FAULT

echo
echo "run                      result  time   (SOFTMLX5_FAULT=loss=5%,dup=1%,reorder=2%,seed=sN)"
printf '%s' "$TABLE"
echo "== $PASS passed, $FAIL failed${FAILED:+:$FAILED} in $((SECONDS - START)) s"
[ $FAIL = 0 ] || exit 1
rm -rf "$LOG"
exit 0
