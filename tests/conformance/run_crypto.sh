#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs rdma-core 44's test_mlx5_crypto against softmlx5 once per DEK import
# mode. The mode is a device configuration (SOFTMLX5_CRYPTO_MODE), as on real
# hardware: 5 of the 7 tests are written for wrapped import and skip on a
# plaintext device, the other 2 the other way round. For each mode the data
# file the tests need ($MLX5_CRYPTO_TEST_INFO) comes from
# `softmlx5 crypto-test-data` for that configuration.
#
# usage: run_crypto.sh [options] [MODE...]
#   MODE          wrapped, plaintext (default: both, in that order)
#   --build DIR   build tree holding bin/softmlx5 and lib/ (default: build/)
#   --min-pass N  fail unless at least N tests pass over all modes (default
#                 1: the DEK management test; 7 once crypto mkeys exist)
#   --timeout S   per mode, passed to run_pyverbs.sh (default 600)
#   --skip TEST   leave test TEST (e.g. test_mlx5_crypto_signature_mkey) out;
#                 may be repeated (make check runs all 7)
#
# Logs: DIR/conformance/crypto-MODE.log, data files crypto-MODE.json.
# Exit status: 0 if every mode ran with no failure or error and enough
# tests passed; 1 otherwise; 2 for usage errors.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$repo/build
min_pass=1
timeout_s=600
modes=()
skips=()

die() { echo "run_crypto: $*" >&2; exit 2; }
need_arg() { [[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value"; }

while [[ $# -gt 0 ]]; do
    case $1 in
    --build) need_arg "$@"; build=$2; shift 2 ;;
    --min-pass) need_arg "$@"; min_pass=$2; shift 2 ;;
    --timeout) need_arg "$@"; timeout_s=$2; shift 2 ;;
    --skip) need_arg "$@"; skips+=("$2"); shift 2 ;;
    -h|--help) sed -n '3,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    wrapped|plaintext) modes+=("$1"); shift ;;
    *) die "unknown mode '$1' (wrapped or plaintext)" ;;
    esac
done
[[ $min_pass =~ ^[0-9]+$ ]] || die "--min-pass needs a non-negative integer, got '$min_pass'"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "--timeout needs a positive number of seconds, got '$timeout_s'"
[[ ${#modes[@]} -gt 0 ]] || modes=(wrapped plaintext)
[[ -d $build ]] || die "build directory '$build' does not exist (run: make build)"
build=$(cd "$build" && pwd)
softmlx5=$build/bin/softmlx5
[[ -x $softmlx5 ]] || die "$softmlx5 not found (run: make build)"
mkdir -p "$build/conformance"

# The module, or its tests one by one when some are left out.
all_tests=(Mlx5CryptoAPITest.test_mlx5_dek_management
           Mlx5CryptoTrafficTest.test_mlx5_crypto_mkey_old_api
           Mlx5CryptoTrafficTest.test_mlx5_crypto_wrapped_dek
           Mlx5CryptoTrafficTest.test_mlx5_crypto_plaintext_dek
           Mlx5CryptoTrafficTest.test_mlx5_crypto_signature_mkey
           Mlx5CryptoTrafficTest.test_mlx5_plaintext_dek_multi_block
           Mlx5CryptoTrafficTest.test_mlx5_wrapped_dek_multi_block)
selected=(test_mlx5_crypto)
if [[ ${#skips[@]} -gt 0 ]]; then
    selected=()
    for t in "${all_tests[@]}"; do
        keep=1
        for x in "${skips[@]}"; do [[ ${t#*.} == "$x" ]] && keep=0; done
        [[ $keep == 1 ]] && selected+=("test_mlx5_crypto.$t")
    done
fi

total_pass=0
rc=0
for mode in "${modes[@]}"; do
    data=$build/conformance/crypto-$mode.json
    log=$build/conformance/crypto-$mode.log
    export SOFTMLX5_CRYPTO_MODE=$mode
    if ! "$softmlx5" crypto-test-data >"$data"; then
        echo "run_crypto: $mode: softmlx5 crypto-test-data failed" >&2
        rc=1
        continue
    fi
    echo "run_crypto: crypto_mode=$mode, data file $data"
    out=$(MLX5_CRYPTO_TEST_INFO=$data "$here/run_pyverbs.sh" --build "$build" \
              --min-pass 0 --timeout "$timeout_s" "${selected[@]}" 2>&1) || rc=1
    echo "$out" | sed "s/^/  [$mode] /"
    cp "$build/conformance/pyverbs/pyverbs.log" "$log" 2>/dev/null || true
    passed=$(echo "$out" | sed -n 's/^pyverbs: \([0-9]*\) passed,.*/\1/p' | tail -n 1)
    total_pass=$((total_pass + ${passed:-0}))
done

echo "run_crypto: ${total_pass} passed over modes ${modes[*]} (need ${min_pass})"
if [[ $total_pass -lt $min_pass ]]; then
    rc=1
fi
exit "$rc"
