#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Installs the Debian 12 packages softmlx5 needs to build and test, if any are
# missing. Quiet when everything is present. Uses apt-get as root, or through
# sudo otherwise; runs `apt-get update` only when something must be installed.
#
# Set SOFTMLX5_SKIP_DEPS=1 to skip this step (e.g. on a non-Debian system
# where you installed the equivalents yourself).
set -euo pipefail

PACKAGES=(
    cmake gcc make pkg-config binutils       # build (binutils: objdump)
    libibverbs-dev                           # rdma-core 44 headers: the ABI
    libisal-dev libssl-dev                   # CRC/T10-DIF; AES (XTS), key wrap
    ibverbs-utils ibverbs-providers rdma-core perftest   # real clients
    ucx-utils                                # UCX's ucx_perftest (verbs transports)
    python3-pyverbs python3-scapy            # pyverbs conformance suite
    clang libclang-rt-14-dev                 # fuzzer (tests/fuzz): libFuzzer runtime
    tshark                                   # dissects SOFTMLX5_PCAP captures (tests/transport)
)

if [[ ${SOFTMLX5_SKIP_DEPS:-0} == 1 ]]; then
    exit 0
fi
if ! command -v dpkg-query >/dev/null; then
    echo "install-deps: dpkg-query not found: this is not a Debian system." >&2
    echo "install-deps: install the equivalents of: ${PACKAGES[*]}" >&2
    echo "install-deps: then rerun with SOFTMLX5_SKIP_DEPS=1" >&2
    exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [[ $status == installed ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing missing packages: ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null; then
    as_root=(sudo)
else
    echo "install-deps: not root and sudo is not available; as root run:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
fi

# wireshark-common (pulled in by tshark) asks whether non-root users may
# capture; answer no beforehand so nothing waits for a terminal.
if [[ " ${missing[*]} " == *" tshark "* ]] && command -v debconf-set-selections >/dev/null; then
    echo "wireshark-common wireshark-common/install-setuid boolean false" |
        "${as_root[@]}" debconf-set-selections
fi
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"

# Verify: a package that failed to install must not go unnoticed.
still=()
for p in "${missing[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [[ $status == installed ]] || still+=("$p")
done
if [[ ${#still[@]} -gt 0 ]]; then
    echo "install-deps: still missing after apt-get: ${still[*]}" >&2
    exit 1
fi
