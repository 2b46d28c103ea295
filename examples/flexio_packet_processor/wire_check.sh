#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The packet processor fed from outside its process, as the SDK's sample is
# run on a NIC: the program serves the port's cable (--wire), `softmlx5 wire`
# plays a pcap of N UDP frames from the host's MAC to the DPA's MAC into it
# and captures what comes back. Every frame must come back (frame 0 perhaps
# more than once: --probe repeats it until steering is up) with the MAC
# addresses swapped and every other byte unchanged.
#
# usage: wire_check.sh SAMPLE SOFTMLX5 [N]
set -euo pipefail
sample=$1 softmlx5=$2 n=${3:-200}
dir=$(mktemp -d)
pid=
cleanup() {
    [[ -n $pid ]] && kill "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

python3 - "$dir/in.pcap" "$n" <<'PY'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for k in range(n):
        ln = 60 + k % 200
        eth = bytes.fromhex('02427e7feb02' '02427e7feb01' '0800')
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, ln - 14, k, 0, 64, 17, 0,
                         bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
        udp = struct.pack('!HHHH', 4660, 5678, ln - 34, 0)
        body = bytes((k * 31 + i) & 0xff for i in range(ln - 42))
        fr = eth + ip + udp + body
        f.write(struct.pack('<IIII', 0, 0, len(fr), len(fr)) + fr)
PY
mkfifo "$dir/stdin"
SOFTMLX5_WIRE="$dir/port" "$sample" mlx5_0 --wire < "$dir/stdin" > "$dir/out" 2>&1 &
pid=$!
exec 3> "$dir/stdin"
"$softmlx5" wire --port "$dir/port" --send "$dir/in.pcap" --probe --window 16 \
    --expect "$n" --timeout 20000 --capture "$dir/out.pcap"
echo >&3
exec 3>&-
wait "$pid"
pid=
cat "$dir/out"
python3 - "$dir/in.pcap" "$dir/out.pcap" <<'PY'
import struct, sys

def frames(path):
    d, off, out = open(path, 'rb').read(), 24, []
    while off < len(d):
        incl = struct.unpack('<IIII', d[off:off + 16])[2]
        out.append(d[off + 16:off + 16 + incl])
        off += 16 + incl
    return out

sent, got = frames(sys.argv[1]), frames(sys.argv[2])
want = {f[6:12] + f[0:6] + f[12:] for f in sent}
bad = [g for g in got if g not in want]
if bad:
    sys.exit(f'wire_check: {len(bad)} replies match no frame sent (first: {bad[0][:20].hex()})')
missing = want - set(got)
if missing:
    sys.exit(f'wire_check: {len(missing)} of {len(sent)} frames never came back')
print(f'wire_check: all {len(sent)} frames came back through the cable, MACs swapped, '
      f'{len(got)} replies')
PY
