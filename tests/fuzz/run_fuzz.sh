#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Builds tests/fuzz with clang (libFuzzer + ASan + UBSan) into BUILD_DIR/fuzz
# and runs one fuzzer on its seed corpus for a bounded time.
#   run_fuzz.sh SRC_DIR BUILD_DIR [SECONDS [TARGET]]
# TARGET: fuzz_fw_cmd (PRM command interpreter, default), fuzz_wqe
# (send-queue WQE parsers), fuzz_ib_pkt (RoCEv2 / IBTA packet parsers),
# fuzz_decode (softmlx5 decode's hex reader and decoders) or
# fuzz_rc_rx (packet sequences into the responder and completer).
# Exits 77 (ctest: skipped) when clang with libFuzzer is not installed.
set -euo pipefail

src=$1
out=$2/fuzz
secs=${3:-60}
target=${4:-fuzz_fw_cmd}
cc=${SMX_FUZZ_CC:-clang}
# Each input opens a fresh device: keep it out of the shared-memory fabric
# (no segment, no inbox thread) so inputs run fast and stay independent.
# (fuzz_rc_rx makes a private segment of its own.)
export SOFTMLX5_SHM_PATH=off

if ! command -v "$cc" >/dev/null; then
    echo "fuzz: $cc not found; skipped"
    exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    echo "fuzz: $cc has no libFuzzer runtime (Debian: libclang-rt-14-dev); skipped"
    exit 77
fi

cmake -S "$src/tests/fuzz" -B "$out" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$out" -j "${JOBS:-2}" >/dev/null

corpus=$out/corpus-$target
mkdir -p "$corpus" "$out/artifacts"
if [ "$target" = fuzz_wqe ]; then
    "$out/gen_wqe_corpus" "$corpus"
    cp -n "$src"/tests/fuzz/corpus-wqe/* "$corpus"/ 2>/dev/null || true
elif [ "$target" = fuzz_rc_rx ]; then
    "$out/gen_rc_rx_corpus" "$corpus"
    # reproducers of past findings, and seeds written by hand
    cp -n "$src"/tests/fuzz/corpus-rc-rx/* "$corpus"/ 2>/dev/null || true
elif [ "$target" = fuzz_ib_pkt ]; then
    # golden packets (tests/unit/gen_golden_pkts.py), whole and from the BTH
    cp -n "$src"/tests/fuzz/corpus-ib-pkt/* "$corpus"/ 2>/dev/null || true
elif [ "$target" = fuzz_decode ]; then
    # the golden dumps of tests/decode/golden.txt, one hex text per file
    /usr/bin/python3 - "$src/tests/decode/golden.txt" "$corpus" <<'PY'
import sys
text, n, cur = open(sys.argv[1]).read().splitlines(), 0, None
for line in text + ['']:
    if line.startswith(('hex:', 'hexarg:')):
        cur = line.split(':', 1)[1]
    elif cur is not None and line.startswith(' '):
        cur += '\n' + line.strip()
    elif cur is not None:
        open('%s/golden-%02d' % (sys.argv[2], n), 'w').write(cur.strip() + '\n')
        n, cur = n + 1, None
PY
else
    "$out/gen_corpus" "$corpus"
    cp -n "$src"/tests/fuzz/corpus/* "$corpus"/ 2>/dev/null || true
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export SOFTMLX5_DEBUG=
# The corpus directory grows with what libFuzzer finds; the committed seeds
# are read-only input. A finding exits 1: libFuzzer's own default (77) is
# ctest's "skipped" here.
"$out/$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -error_exitcode=1 \
    -artifact_prefix="$out/artifacts/$target-" "$corpus"
