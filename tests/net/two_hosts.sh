#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Two hosts on one machine: two network namespaces joined by a veth pair,
# a command run in each, everything removed afterwards. Processes in
# different network namespaces are different softmlx5 hosts (the default
# shared segment is one per user and network namespace,
# docs/multiprocess.md), so `softmlx5 run` in each gives two devices.
#
# Usage: two_hosts.sh [--timeout SEC] -- 'COMMAND FOR A' -- 'COMMAND FOR B'
#   Each command is a bash command line, run in its namespace with lo and
#   the veth up and these variables exported to both:
#     HOST_A_IP4=10.77.0.1  HOST_B_IP4=10.77.0.2   (/24)
#     HOST_A_IP6=fd77::1    HOST_B_IP6=fd77::2     (/64, no DAD)
#     HOST_A_IF, HOST_B_IF  the veth end in each namespace
#     HOST_A_NS, HOST_B_NS  the namespaces' names (for `ip netns exec`)
#   Both commands start together. The exit status is the first failure in
#   the order the commands end (the other command is then stopped), 0 when
#   both succeed, 124 when SEC (default 120) passed first. The link-local
#   addresses of both ends exist before the commands start.
#   Exits 77 (skipped) when not root or when namespaces or veth pairs
#   cannot be made here. Only addresses inside the two namespaces are used;
#   the namespaces (and with them the veth pair) and the softmlx5 segments
#   of their hosts (/dev/shm/softmlx5-*-<netns inode>) are deleted on every
#   exit.
set -u

TMO=120
usage() { awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; }
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case "$1" in
	--timeout) TMO=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "two_hosts.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
	esac
done
if [ $# -ne 4 ] || [ "$1" != -- ] || [ "$3" != -- ]; then
	echo "two_hosts.sh: expected -- 'COMMAND FOR A' -- 'COMMAND FOR B'" >&2
	exit 2
fi
CMD_A=$2
CMD_B=$4

skip() { echo "two_hosts.sh: $*; skipped"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (network namespaces need CAP_SYS_ADMIN)"
command -v ip >/dev/null || skip "no ip command (iproute2)"
ip netns list >/dev/null 2>&1 || skip "ip netns does not work here"

export HOST_A_NS=smx-hA-$$ HOST_B_NS=smx-hB-$$
export HOST_A_IF=smx-a HOST_B_IF=smx-b
export HOST_A_IP4=10.77.0.1 HOST_B_IP4=10.77.0.2
export HOST_A_IP6=fd77::1 HOST_B_IP6=fd77::2
PIDS=()
NS_INODES=

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	for p in $NS_INODES; do
		rm -f /dev/shm/softmlx5-*-"$p"
	done
	ip netns del "$HOST_A_NS" 2>/dev/null
	ip netns del "$HOST_B_NS" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ip netns add "$HOST_A_NS" 2>/dev/null || skip "cannot create a network namespace"
ip netns add "$HOST_B_NS" 2>/dev/null || skip "cannot create a network namespace"
# The hosts' segments are named by these (docs/multiprocess.md).
NS_INODES=$(stat -L -c %i "/run/netns/$HOST_A_NS" "/run/netns/$HOST_B_NS" 2>/dev/null)
# Made inside A with its peer moved to B at once: no end ever sits in the
# namespace this script runs in.
ip -n "$HOST_A_NS" link add "$HOST_A_IF" type veth peer name "$HOST_B_IF" \
	netns "$HOST_B_NS" 2>/dev/null || skip "cannot create a veth pair"

setup() { # NS IF IP4 IP6
	ip -n "$1" link set lo up &&
	ip -n "$1" addr add "$3/24" dev "$2" &&
	ip -n "$1" addr add "$4/64" dev "$2" nodad &&
	ip -n "$1" link set "$2" up
}
setup "$HOST_A_NS" "$HOST_A_IF" "$HOST_A_IP4" "$HOST_A_IP6" &&
setup "$HOST_B_NS" "$HOST_B_IF" "$HOST_B_IP4" "$HOST_B_IP6" || {
	echo "two_hosts.sh: cannot configure the veth pair" >&2
	exit 1
}
# The kernel adds the link-local addresses once both ends have a carrier.
for ns in "$HOST_A_NS:$HOST_A_IF" "$HOST_B_NS:$HOST_B_IF"; do
	for _ in $(seq 100); do
		[ -n "$(ip -n "${ns%%:*}" -6 addr show dev "${ns#*:}" scope link)" ] && break
		sleep 0.05
	done
done

# Each side in a session of its own, so that stopping it stops everything
# it started.
setsid ip netns exec "$HOST_A_NS" timeout "$TMO" bash -c "$CMD_A" &
PIDS+=($!)
setsid ip netns exec "$HOST_B_NS" timeout "$TMO" bash -c "$CMD_B" &
PIDS+=($!)

rc=0
left=("${PIDS[@]}")
while [ ${#left[@]} -gt 0 ]; do
	wait -n -p done_pid "${left[@]}"
	r=$?
	[ $r != 0 ] && { rc=$r; break; }
	left=("${left[@]/$done_pid}")
	left=(${left[@]})
done
exit $rc
