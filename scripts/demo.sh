#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make demo: what softmlx5 is, in five short steps, every figure measured
# by this run. The device (ibv_devinfo); RDMA WRITE between two processes
# (perftest's ib_write_lat and ib_write_bw, unmodified); mlx5dv DEVX (an RC
# connection built from PRM commands, examples/devx_rc.c); the FlexIO RPC
# on the software DPA (examples/flexio_rpc); one error explained in one line
# (examples/wqe_error.c under SOFTMLX5_DEBUG=1).
#
#   scripts/demo.sh [BUILD_DIR]        (default build)
set -u
BUILD=${1:-build}
SMX=$BUILD/bin/softmlx5
[ -x "$SMX" ] || { echo "demo: $SMX not found (make build)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/smx-demo.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
PORT=$((30000 + $$ % 20000))
step() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; }

# wait_port PORT: the conformance scripts' (at most 10 s)
. "$(dirname "$0")/../tests/conformance/pair_lib.sh"

# pair PROG ARGS...: server and client of a perftest program, two processes
# on the one device; the client's output is in $WORK/PROG.
pair() {
	local prog=$1 port=$((PORT++)) spid
	shift
	timeout 60 "$SMX" run -- "$prog" -d mlx5_0 -x 0 "$@" -p $port >"$WORK/$prog.server" 2>&1 &
	spid=$!
	wait_port $port
	timeout 60 "$SMX" run -- "$prog" -d mlx5_0 -x 0 "$@" -p $port localhost >"$WORK/$prog" 2>&1
	wait $spid
}

echo "softmlx5 is a software NVIDIA ConnectX (mlx5) RDMA NIC. 'softmlx5 run' starts a"
echo "program with softmlx5's libibverbs.so.1 and libmlx5.so.1 in front of the system's,"
echo "so unmodified binaries see the device. No root, no kernel module, no hardware."

step "1. The device"
show "$SMX run -- ibv_devinfo"
"$SMX" run -- ibv_devinfo

step "2. RDMA WRITE between two processes (perftest, unmodified; figures of this run)"
if command -v ib_write_lat >/dev/null && command -v ib_write_bw >/dev/null; then
	show "$SMX run -- ib_write_lat -s 8 -n 20000 &  $SMX run -- ib_write_lat -s 8 -n 20000 localhost"
	pair ib_write_lat -s 8 -n 20000
	grep -E '^ *(local|remote) address' "$WORK/ib_write_lat" | sed 's/^ */  /'
	awk '/^ *8 +20000 / { printf "  8 B RDMA WRITE one-way latency: typical %s us, p99 %s us (%s iterations)\n", $5, $8, $2; ok=1 }
	     END { exit !ok }' "$WORK/ib_write_lat" ||
		{ echo "  ib_write_lat gave no result:"; tail -5 "$WORK/ib_write_lat"; }
	show "$SMX run -- ib_write_bw -s 65536 -n 5000 &  $SMX run -- ib_write_bw -s 65536 -n 5000 localhost"
	pair ib_write_bw -s 65536 -n 5000
	awk '/^ *65536 +5000 / { printf "  64 KiB RDMA WRITE bandwidth: %s MB/s average, %s M msg/s (%s messages)\n", $4, $5, $2; ok=1 }
	     END { exit !ok }' "$WORK/ib_write_bw" ||
		{ echo "  ib_write_bw gave no result:"; tail -5 "$WORK/ib_write_bw"; }
	echo "  (make bench sets these beside same-run baselines: memcpy, shared-memory latency)"
else
	echo "  perftest is not installed (apt-get install perftest); skipped"
fi

step "3. mlx5dv DEVX: an RC connection built from PRM commands and hand-written WQEs"
show "$BUILD/bin/devx_rc"
"$BUILD/bin/devx_rc" | awk '/^    [AB]: CQE/ { if ($3 == "0") print; else cut++; next }
	{ if (cut) { printf "    ... %d more CQEs\n", cut; cut = 0 } print }'

step "4. FlexIO: an RPC into code running on the software DPA"
show "$BUILD/bin/flexio_rpc mlx5_0 1 100"
"$BUILD/bin/flexio_rpc" mlx5_0 1 100

step "5. An error, explained: an RDMA WRITE whose lkey is wrong"
show "SOFTMLX5_DEBUG=1 $BUILD/bin/wqe_error"
SOFTMLX5_DEBUG=1 "$BUILD/bin/wqe_error" 2>"$WORK/debug"
echo "  the device's log line (SOFTMLX5_DEBUG=1):"
grep -E 'engine: qp .* -> ' "$WORK/debug" | sed 's/^/  /'

echo
echo "Your own programs:        $SMX run -- CMD ARGS..."
echo "Configuration and knobs:  $SMX info   (man man/softmlx5.7, docs/configuration.md)"
echo "Figures beside baselines: make bench"
