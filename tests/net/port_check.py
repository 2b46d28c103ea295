#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A port bound to a network interface (key netdev) against the interface.

Run in host A of tests/net/two_hosts.sh (net_port ctest: port_check.sh). The
device's view comes from tests/net/port_query (ibv_query_port,
ibv_query_gid_ex / _table, DEVX QUERY_NIC_VPORT_CONTEXT and
QUERY_ROCE_ADDRESS, the sysfs view of `softmlx5 run`); what it should be is computed here from `ip -j`,
by the kernel's rules written out again (not softmlx5's code):

  - state ACTIVE (4) / phys LinkUp (5) when the interface is UP with a
    carrier (LOWER_UP), else DOWN (1) / Disabled (3) (mlx5_ib);
  - active_mtu: the largest of 256..4096 not above the MTU less 96 bytes
    of headers (iboe_get_mtu()), at most max_mtu;
  - the MAC is the interface's; the node GUID the EUI-64 of the MAC it had
    when the device opened (ff:fe inserted);
  - GIDs: fe80::EUI-64 of the MAC (U/L bit flipped) as RoCE v1 then v2,
    then every IPv4 address (::ffff:a.b.c.d) and every IPv6 address in the
    order `ip` lists them, each v1 then v2, none twice; the interface's
    index on each.

One port_query process keeps the device open while the interface changes:
addresses added and removed, MTU, the peer's end down and up (carrier), the
MAC. Without netdev the port must show what it always did (the `ipv4` and
`mac` of `softmlx5 info`, ACTIVE, 4096). A netdev that does not exist keeps
the device from opening with one error line naming it.
"""
import argparse
import ipaddress
import json
import os
import subprocess
import sys
import time

IFACE = os.environ.get("HOST_A_IF", "")
PEER_NS = os.environ.get("HOST_B_NS", "")
PEER_IF = os.environ.get("HOST_B_IF", "")
FAILS = []


def check(ok, what):
    print(("PASS  " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILS.append(what)


def ip_json(*args):
    return json.loads(subprocess.run(["ip", "-j", *args], check=True,
                                     capture_output=True, text=True).stdout)


def sh(*args):
    subprocess.run(args, check=True)


def eui64(mac, flip):
    b = bytes.fromhex(mac.replace(":", ""))
    return bytes([b[0] ^ (2 if flip else 0), b[1], b[2], 0xff, 0xfe,
                  b[3], b[4], b[5]])


def gid_text(raw):
    return ":".join(raw[i:i + 2].hex() for i in range(0, 16, 2))


def ib_mtu(eth_mtu, max_mtu):
    room = eth_mtu - (40 + 8 + 12 + 4 + 28 + 4)
    fit = [m for m in (256, 512, 1024, 2048, 4096) if m <= room]
    return min(fit[-1] if fit else 256, max_mtu)


def expected(iface, guid_mac, max_mtu):
    link = ip_json("link", "show", "dev", iface)[0]
    addrs = ip_json("addr", "show", "dev", iface)[0].get("addr_info", [])
    up = "UP" in link["flags"] and "LOWER_UP" in link["flags"]
    gids = []
    raws = [bytes.fromhex("fe80" + "00" * 6) + eui64(link["address"], True)]
    for fam in ("inet", "inet6"):
        for a in addrs:
            if a["family"] == fam:
                raws.append(ipaddress.ip_address(a["local"]).packed
                            if fam == "inet6" else
                            ipaddress.IPv6Address("::ffff:" + a["local"]).packed)
    for raw in raws:
        if any(g[0] == gid_text(raw) for g in gids):
            continue
        gids += [(gid_text(raw), "v1", link["ifindex"]),
                 (gid_text(raw), "v2", link["ifindex"])]
    return {
        "state": 4 if up else 1, "phys_state": 5 if up else 3,
        "max_mtu": max_mtu, "active_mtu": ib_mtu(link["mtu"], max_mtu),
        "mac": link["address"], "roce_mac": link["address"],
        "node_guid": eui64(guid_mac, False).hex(),
        "gids": gids,
    }


class Query:
    """A port_query process under `softmlx5 run`: one block per ask()."""

    def __init__(self, smx, prog, env):
        self.p = subprocess.Popen([smx, "run", "--", prog], env=env,
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def ask(self, first=False):
        if not first:
            self.p.stdin.write("\n")
            self.p.stdin.flush()
        got = {"gids": [], "errors": []}
        for line in self.p.stdout:
            w = line.split()
            if not w or w[0] == "end":
                break
            if w[0] == "port":
                for kv in w[1:]:
                    k, v = kv.split("=")
                    got[k] = int(v)
            elif w[0] in ("node_guid", "mac", "roce_mac"):
                got[w[0]] = w[1]
            elif w[0] == "gid":
                got["gids"].append((w[2], w[3], int(w[4])))
            else:
                got["errors"].append(line.strip())
        return got

    def close(self):
        self.p.stdin.close()
        return self.p.wait(timeout=20)


def compare(name, got, want):
    for k, v in want.items():
        check(got.get(k) == v, f"{name}: {k} {got.get(k)!r} (expected {v!r})")
    check(not got["errors"], f"{name}: the ways of asking agree "
          f"{got['errors'][:4] if got['errors'] else ''}")


def wait_link(ns, iface, lower_up):
    """Until the kernel has announced the carrier change (operstate)."""
    for _ in range(100):
        link = ip_json(*(["-n", ns] if ns else []), "link", "show", "dev",
                       iface)[0]
        if ("LOWER_UP" in link["flags"]) == lower_up and \
                (link.get("operstate") == "UP") == lower_up:
            return
        time.sleep(0.05)


def info(smx, env):
    out = subprocess.run([smx, "info"], env=env, check=True,
                         capture_output=True, text=True).stdout
    kv = {}
    for line in out.splitlines():
        if line.startswith("# segment:"):
            kv["segment"] = line.split(":", 1)[1].strip()
        elif "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            kv[k.strip()] = v.split("#")[0].strip()
    return kv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    smx = os.path.join(build, "bin", "softmlx5")
    prog = os.path.join(build, "bin", "port_query")
    env = dict(os.environ, SOFTMLX5_CONFIG="/dev/null")
    for k in ("SOFTMLX5_NETDEV", "SOFTMLX5_SHM_PATH", "SOFTMLX5_MAC",
              "SOFTMLX5_IPV4", "SOFTMLX5_MAX_MTU"):
        env.pop(k, None)
    if not IFACE:
        print("port_check.py: run it through tests/net/two_hosts.sh")
        return 2

    # Without the key: what the port always showed.
    conf = info(smx, env)
    segment = conf["segment"]
    ours = not os.path.exists(segment)
    q = Query(smx, prog, env)
    got = q.ask(first=True)
    q.close()
    v4 = ipaddress.IPv6Address("::ffff:" + conf["ipv4"]).packed
    compare("unbound", got, {
        "state": 4, "phys_state": 5, "active_mtu": int(conf["max_mtu"]),
        "max_mtu": int(conf["max_mtu"]), "mac": conf["mac"],
        "roce_mac": conf["mac"],
        "node_guid": conf["node_guid"].replace(":", ""),
        "gids": [(gid_text(v4), "v2", 0)]})

    # Bound: one process follows the interface through changes.
    env["SOFTMLX5_NETDEV"] = IFACE
    mac0 = ip_json("link", "show", "dev", IFACE)[0]["address"]
    max_mtu = int(info(smx, env)["max_mtu"])
    q = Query(smx, prog, env)
    steps = [
        ("bound", []),
        ("addresses added, MTU 1280",
         [["ip", "addr", "add", "10.77.9.9/24", "dev", IFACE],
          ["ip", "addr", "add", "fd79::9/64", "dev", IFACE, "nodad"],
          ["ip", "link", "set", IFACE, "mtu", "1280"]]),
        ("peer down: no carrier",
         [["ip", "-n", PEER_NS, "link", "set", PEER_IF, "down"]]),
        ("peer up, an address removed, MTU 9000",
         [["ip", "-n", PEER_NS, "link", "set", PEER_IF, "up"],
          ["ip", "addr", "del", "10.77.9.9/24", "dev", IFACE],
          ["ip", "link", "set", IFACE, "mtu", "9000"],
          ["ip", "-n", PEER_NS, "link", "set", PEER_IF, "mtu", "9000"]]),
        ("MAC changed", [["ip", "link", "set", IFACE, "address",
                          "02:77:00:00:00:0a"]]),
    ]
    for i, (name, cmds) in enumerate(steps):
        for c in cmds:
            sh(*c)
        if "peer" in name:
            wait_link("", IFACE, "down" not in name)
        got = q.ask(first=i == 0)
        compare(name, got, expected(IFACE, mac0, max_mtu))
    check(q.close() == 0, "port_query ran to the end")

    # No such interface: the device does not open; one line names it.
    env["SOFTMLX5_NETDEV"] = "nosuch0"
    env["LD_LIBRARY_PATH"] = os.path.join(build, "lib")
    r = subprocess.run([prog], env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    ours = [ln for ln in r.stderr.splitlines() if "softmlx5" in ln]
    check(r.returncode == 1 and len(ours) == 1 and "nosuch0" in ours[0] and
          "no such network interface" in ours[0],
          f"netdev = nosuch0: the device does not open ({ours})")
    if ours and segment.startswith("/"):
        os.unlink(segment)  # this namespace's, made by the runs above
    print(f"{len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
