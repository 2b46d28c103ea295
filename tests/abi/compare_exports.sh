#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Compares the dynamic exports of softmlx5's libibverbs.so.1 and libmlx5.so.1
# with Debian 12's (rdma-core 44), listed in debian-*.syms next to this script
# as "VERSION name" lines ("(VERSION) name" for hidden compat versions).
#
# Fails, listing them all, if any Debian symbol@version is missing or a SONAME
# is wrong. Extra exports are allowed and listed for information.
#
# usage: compare_exports.sh [LIBDIR]     (default: <repo>/build/lib)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
libdir=${1:-$here/../../build/lib}

if [[ $# -gt 1 ]]; then
    echo "usage: $0 [LIBDIR]" >&2
    exit 2
fi
if ! command -v objdump >/dev/null; then
    echo "compare_exports: objdump not found (install binutils)" >&2
    exit 2
fi

# One "VERSION name" line per defined dynamic symbol, like the .syms files.
# objdump -T rows: ADDR FLAGS... SECTION SIZE [VERSION] NAME; hidden versions
# print as "(VERSION)". Undefined (*UND*) and version-node (*ABS*) rows are
# skipped.
exports() {
    objdump -T "$1" | awk '
        /^[0-9a-f]+ / && $0 !~ /\*UND\*/ && $0 !~ /\*ABS\*/ { print $(NF-1), $NF }
    ' | LC_ALL=C sort -u
}

status=0
for pair in "libibverbs.so.1:debian-libibverbs.syms" "libmlx5.so.1:debian-libmlx5.syms"; do
    lib=${pair%%:*}
    ref=$here/${pair#*:}
    path=$libdir/$lib

    echo "== $lib"
    if [[ ! -e $path ]]; then
        echo "FAIL: $path does not exist (build first: make build)"
        status=1
        continue
    fi
    if [[ ! -f $ref ]]; then
        echo "FAIL: reference list $ref is missing"
        status=1
        continue
    fi

    soname=$(objdump -p "$path" | awk '$1 == "SONAME" { print $2 }')
    if [[ $soname != "$lib" ]]; then
        echo "FAIL: SONAME is '${soname:-<none>}', expected '$lib'"
        status=1
    else
        echo "SONAME $soname: ok"
    fi

    ours=$(mktemp)
    theirs=$(mktemp)
    trap 'rm -f "$ours" "$theirs"' EXIT
    if ! objdump -T "$path" >/dev/null 2>&1; then
        echo "FAIL: objdump -T cannot read $path"
        status=1
        continue
    fi
    exports "$path" >"$ours"
    grep -v '^[[:space:]]*$' "$ref" | LC_ALL=C sort -u >"$theirs"

    missing=$(LC_ALL=C comm -23 "$theirs" "$ours")
    extra=$(LC_ALL=C comm -13 "$theirs" "$ours")
    n_ref=$(wc -l <"$theirs")
    n_missing=$(grep -c . <<<"$missing" || true)
    n_extra=$(grep -c . <<<"$extra" || true)

    if [[ $n_missing -gt 0 ]]; then
        echo "FAIL: $n_missing of $n_ref Debian exports missing (VERSION name):"
        sed 's/^/  missing: /' <<<"$missing"
        status=1
    else
        echo "all $n_ref Debian exports present"
    fi
    if [[ $n_extra -gt 0 ]]; then
        echo "info: $n_extra exports that Debian's $lib does not have:"
        sed 's/^/  extra:   /' <<<"$extra"
    fi
    rm -f "$ours" "$theirs"
    trap - EXIT
done

if [[ $status -ne 0 ]]; then
    echo "ABI check: FAILED"
else
    echo "ABI check: ok"
fi
exit $status
