#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs Debian's unmodified `ibv_devinfo -v` on softmlx5 and checks that it
# sees the device as configured by default: mlx5_0, Mellanox vendor id, one
# active Ethernet (RoCE) port.
#
# usage: check_devinfo.sh [SOFTMLX5]     (default: <repo>/build/bin/softmlx5)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
softmlx5=${1:-$here/../../build/bin/softmlx5}

if [[ $# -gt 1 ]]; then
    echo "usage: $0 [SOFTMLX5]" >&2
    exit 2
fi
[[ -x $softmlx5 ]] || { echo "devinfo: $softmlx5 not found (run: make build)" >&2; exit 2; }
command -v ibv_devinfo >/dev/null || { echo "devinfo: ibv_devinfo not found (apt-get install ibverbs-utils)" >&2; exit 2; }

# The expectations below are the defaults; a personal config would change
# them, so ignore it (and any SOFTMLX5_* overrides) for this check.
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^SOFTMLX5_' | grep -v -E '^SOFTMLX5_(DEBUG|LIBDIR)$' || true)
export SOFTMLX5_CONFIG=/dev/null

out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
timeout 60 "$softmlx5" run -- ibv_devinfo -v >"$out" 2>&1 || rc=$?

fail=0
expect() {  # expect DESCRIPTION EXTENDED-REGEX
    if grep -Eq "$2" "$out"; then
        echo "devinfo: ok    $1"
    else
        echo "devinfo: FAIL  $1 (no line matching /$2/)"
        fail=1
    fi
}
if [[ $rc -ne 0 ]]; then
    echo "devinfo: FAIL  'softmlx5 run -- ibv_devinfo -v' exited with status $rc"
    fail=1
fi
expect "device mlx5_0"            '^hca_id:[[:space:]]+mlx5_0$'
expect "vendor_id 0x02c9"         '^[[:space:]]+vendor_id:[[:space:]]+0x02c9$'
expect "port 1 PORT_ACTIVE"       '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$'
expect "link_layer Ethernet"      '^[[:space:]]+link_layer:[[:space:]]+Ethernet$'

if [[ $fail -ne 0 ]]; then
    echo "devinfo: output was:"
    sed 's/^/  | /' "$out"
    exit 1
fi
echo "devinfo: ibv_devinfo sees mlx5_0 as expected"
