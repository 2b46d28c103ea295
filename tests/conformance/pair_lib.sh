# SPDX-License-Identifier: MIT
#
# Shell helpers of the two-process conformance scripts (run_pingpong.sh,
# run_fault.sh), sourced. The caller sets (pair_args sets the first three
# from the command line):
#   SMX    path of the softmlx5 tool      TMO   seconds per program
#   ONLY   regex of the names to run (empty: all)
#   LOG    directory for the logs          PORT  first TCP port to use
# and reads PASS, FAIL, FAILED afterwards.

PASS=${PASS:-0}
FAIL=${FAIL:-0}
FAILED=${FAILED:-}

# pair_args "OPTION=VAR ..." ARGS...: the script's command line. Every
# script takes --build DIR (into BUILD), --timeout SEC (TMO), --only REGEX
# (ONLY) and -h / --help (prints the script's opening comment and exits);
# the first argument lists its own options and the variable each sets,
# e.g. "--seeds=SEEDS". Then SMX, the softmlx5 tool under BUILD. Exits 2
# on an unknown argument or when the tool is not built.
pair_args() {
	local own=$1 o var
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--build) BUILD=$2; shift 2 ;;
		--timeout) TMO=$2; shift 2 ;;
		--only) ONLY=$2; shift 2 ;;
		-h|--help)
			awk 'NR > 2 && !/^#/ { exit }
			     NR > 2 { sub(/^# ?/, ""); print }' "$0"
			exit 0 ;;
		*)
			var=
			for o in $own; do
				[ "$1" = "${o%%=*}" ] && var=${o#*=}
			done
			if [ -z "$var" ]; then
				echo "${0##*/}: unknown argument $1" >&2
				exit 2
			fi
			printf -v "$var" '%s' "$2"
			shift 2 ;;
		esac
	done
	SMX=$(cd "$BUILD" 2>/dev/null && pwd)/bin/softmlx5
	if [ ! -x "$SMX" ]; then
		echo "${0##*/}: $SMX not found (build first)" >&2
		exit 2
	fi
}

# pair_need PROGRAM...: exits 77 (skipped) when one is not installed.
pair_need() {
	local p
	for p in "$@"; do
		if ! command -v "$p" >/dev/null; then
			echo "${0##*/}: $p not installed (ibverbs-utils, perftest); skipped"
			exit 77
		fi
	done
}

result() { # name ok detail
	if [ "$2" = 1 ]; then
		PASS=$((PASS + 1)); printf 'PASS  %-22s %s\n' "$1" "$3"
	else
		FAIL=$((FAIL + 1)); FAILED="$FAILED $1"
		printf 'FAIL  %-22s %s (logs: %s/%s.*)\n' "$1" "$3" "$LOG" "$1"
	fi
}

# Waits until something listens on TCP port $1 (at most 10 s).
wait_port() {
	local hex i
	hex=$(printf '%04X' "$1")
	for i in $(seq 100); do
		if grep -q ":$hex 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

selected() { [ -z "$ONLY" ] || [[ "$1" =~ $ONLY ]]; }

# pair NAME PORTFLAG CMD ARGS...: server and client, both must exit 0.
pair() {
	local name=$1 pflag=$2; shift 2
	local port=$((PORT++)) spid s c
	selected "$name" || return 0
	timeout "$TMO" "$SMX" run -- "$@" $pflag $port >"$LOG/$name.server" 2>&1 &
	spid=$!
	wait_port $port
	timeout "$TMO" "$SMX" run -- "$@" $pflag $port localhost >"$LOG/$name.client" 2>&1
	c=$?
	wait $spid; s=$?
	local detail="server $s client $c"
	local last
	last=$(grep -E 'usec/iter|^ *[0-9]+ +[0-9]+ +[0-9.]+' "$LOG/$name.client" | tail -1 | tr -s ' ')
	[ -n "$last" ] && detail="$detail |$last"
	if [ $s = 0 ] && [ $c = 0 ]; then result "$name" 1 "$detail"
	else result "$name" 0 "$detail"; fi
}

