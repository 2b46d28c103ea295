#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs rdma-core 44's pyverbs test suite (Debian's python3-pyverbs ships it,
# in /usr/share/doc/rdma-core/tests) against softmlx5 under a per-test
# watchdog (pyverbs_watchdog.py) and summarizes the result per module
# (pyverbs_report.py).
#
# usage: run_pyverbs.sh [options] [MODULE...]
#   MODULE        test module, e.g. test_device (also test_device.DeviceTest
#                 or test_device.DeviceTest.test_query_port); default: every
#                 test module the installed python3-pyverbs package ships
#   --build DIR   build tree holding bin/softmlx5 and lib/ (default: build/)
#   --min-pass N  fail unless at least N tests pass (default 1)
#   --test-timeout S
#                 a test with no result after S seconds is a hang: its
#                 traceback is printed, its processes are killed, the run
#                 goes on with the tests after it and fails (default 60)
#   --timeout S   give up on the tests not run after S seconds (default 1200)
#   --system      run against the system's libibverbs instead of softmlx5
#                 (only useful to exercise this runner itself)
#
# Exit status: 0 if every test ran with no failure, error or hang and enough
# passed; 1 otherwise; 2 for usage errors or a missing prerequisite.
set -euo pipefail

# The whole suite: every module the package ships, listed at run time so a
# module added by a new package cannot be left out. Modules that need
# hardware softmlx5 cannot be (EFA, CUDA, VFIO, ...) report their skips.
# The floor (PYVERBS_MIN_PASS, 200; 210 pass today) leaves room for
# environment-dependent tests only; a test that fails, errors or hangs
# fails the run regardless.
# The per-test limit: on a 2-vCPU VM the slowest test (test_cq's
# test_create_cq) takes 0.8-1.0 s idle and 1.3-2.3 s with both CPUs busy
# (the whole suite 2.4 s and 4.8-8 s), so 60 s is 25 times anything real
# while one hang costs the CI budget only a minute.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
python=/usr/bin/python3     # Debian's interpreter: the one with pyverbs

build=$repo/build
min_pass=1
test_timeout=60
timeout_s=1200
system=0
modules=()

die() { echo "run_pyverbs: $*" >&2; exit 2; }
need_arg() { [[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value"; }

while [[ $# -gt 0 ]]; do
    case $1 in
    --build) need_arg "$@"; build=$2; shift 2 ;;
    --min-pass) need_arg "$@"; min_pass=$2; shift 2 ;;
    --test-timeout) need_arg "$@"; test_timeout=$2; shift 2 ;;
    --timeout) need_arg "$@"; timeout_s=$2; shift 2 ;;
    --system) system=1; shift ;;
    -h|--help) sed -n '4,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; modules+=("$@"); break ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) modules+=("$1"); shift ;;
    esac
done
[[ $min_pass =~ ^[0-9]+$ ]] || die "--min-pass needs a non-negative integer, got '$min_pass'"
[[ $test_timeout =~ ^[1-9][0-9]*$ ]] || die "--test-timeout needs a positive number of seconds, got '$test_timeout'"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "--timeout needs a positive number of seconds, got '$timeout_s'"

[[ -x $python ]] || die "$python not found (apt-get install python3)"
command -v dpkg-query >/dev/null || die "dpkg-query not found (the suite comes from Debian's python3-pyverbs)"
pkg_files=$(dpkg-query -L python3-pyverbs 2>/dev/null) ||
    die "python3-pyverbs is not installed (scripts/install-deps.sh installs it)"
runner=$(grep -m1 '/tests/run_tests\.py$' <<<"$pkg_files") ||
    die "python3-pyverbs ships no tests/run_tests.py"
suite_src=${runner%/run_tests.py}
[[ -d $suite_src ]] || die "$suite_src is missing (reinstall python3-pyverbs)"
shipped=()
while IFS= read -r f; do
    [[ ${f%/*} == "$suite_src" && ${f##*/} =~ ^(test_[A-Za-z0-9_]+)\.py(\.gz)?$ ]] &&
        shipped+=("${BASH_REMATCH[1]}")
done <<<"$pkg_files"
[[ ${#shipped[@]} -gt 0 ]] || die "python3-pyverbs lists no test modules in $suite_src"
# run_tests.py's order: the package sorts its modules by name.
mapfile -t shipped < <(printf '%s\n' "${shipped[@]}" | LC_ALL=C sort -u)
[[ ${#modules[@]} -gt 0 ]] || modules=("${shipped[@]}")

[[ -d $build ]] || die "build directory '$build' does not exist (run: make build)"
build=$(cd "$build" && pwd)

for m in "${modules[@]}"; do
    [[ $m =~ ^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$ ]] || die "bad module name '$m'"
    base=${m%%.*}
    [[ " ${shipped[*]} " == *" $base "* ]] ||
        die "unknown pyverbs module '$base' (python3-pyverbs ships no $base.py)"
done

if [[ $system -eq 1 ]]; then
    under=()
    what="system libraries (runner self-check, not softmlx5)"
else
    softmlx5=$build/bin/softmlx5
    [[ -x $softmlx5 ]] || die "$softmlx5 not found (run: make build)"
    under=(--softmlx5 "$softmlx5")
    what="softmlx5 ($build/lib)"
fi

# Fresh scratch copy of the suite: the .gz files are unpacked in place.
work=$build/conformance/pyverbs
rm -rf "$work"
mkdir -p "$work/tests"
cp -r "$suite_src/." "$work/tests/"
find "$work/tests" -name '*.gz' -exec gunzip -f {} +
log=$work/pyverbs.log
results=$work/results.jsonl

if [[ ${#modules[@]} -eq ${#shipped[@]} && " ${modules[*]} " == " ${shipped[*]} " ]]; then
    echo "pyverbs: running the whole suite (${#shipped[@]} modules) on $what"
else
    echo "pyverbs: running ${modules[*]} on $what"
fi
echo "pyverbs: per-test limit ${test_timeout}s, whole run ${timeout_s}s; log in $log"

# Huge pages: test_odp (2), test_parent_domain (1) and test_mlx5_huge_page
# skip when no 2 MiB page is set aside. As root with none, set aside a few
# for the run and give them back afterwards, whatever way it ends.
huge=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [[ $(id -u) = 0 && -w $huge && $(cat "$huge") = 0 ]]; then
    if echo 32 >"$huge" 2>/dev/null && [[ $(cat "$huge") -gt 0 ]]; then
        trap 'echo 0 >"$huge"' EXIT
        echo "pyverbs: set aside $(cat "$huge") huge pages of 2 MiB for the run (given back at its end)"
    else
        echo 0 >"$huge" 2>/dev/null || true
        echo "pyverbs: no huge pages could be set aside; the huge-page tests will skip"
    fi
fi

dog_rc=0
"$python" "$here/pyverbs_watchdog.py" --suite "$work/tests" --log "$log" \
    --results "$results" --python "$python" --test-timeout "$test_timeout" \
    --timeout "$timeout_s" "${under[@]}" -- "${modules[@]}" || dog_rc=$?
if [[ $dog_rc -ne 0 || ! -s $results ]]; then
    echo "pyverbs: FAIL: the watchdog itself failed (status $dog_rc)"
    exit 1
fi
"$python" "$here/pyverbs_report.py" "$results" --min-pass "$min_pass"
