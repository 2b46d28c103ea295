#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Neighbour resolution at modify_qp(RTR) and create_ah on a port bound to an
interface (tests/net/udp_link.sh, case neighbour), through pyverbs:

    neigh_check.py NOBODY PEER    (IPv4 addresses; the source is GID 3)

Towards NOBODY, an address that does not answer ARP, both must fail with
ETIMEDOUT after 0.9-3 s (the kernel's ib_resolve_eth_dmac() waits 1 s);
towards PEER, which answers, both must succeed in under 0.9 s.
"""
import errno, sys, time
import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr

ctx = Context(name="mlx5_0")
pd = PD(ctx)
cq = CQ(ctx, 8)

def attr(ip):
    a, b, c, d = (int(x) for x in ip.split("."))
    gid = "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % (a, b, c, d)
    gr = GlobalRoute(dgid=GID(gid), sgid_index=3)
    return AHAttr(gr=gr, is_global=1, port_num=1)

def rtr(ip):
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    a = QPAttr()
    a.qp_state, a.pkey_index, a.port_num = e.IBV_QPS_INIT, 0, 1
    a.qp_access_flags = 0
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
              e.IBV_QP_ACCESS_FLAGS)
    a = QPAttr()
    a.qp_state, a.path_mtu, a.dest_qp_num, a.rq_psn = e.IBV_QPS_RTR, e.IBV_MTU_1024, 0x100, 0
    a.max_dest_rd_atomic, a.min_rnr_timer, a.ah_attr = 1, 12, attr(ip)
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
              e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
              e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)

def timed(what, fn, ip):
    t = time.monotonic()
    try:
        fn(ip)
        err = 0
    except PyverbsRDMAError as x:
        err = x.error_code
    dt = time.monotonic() - t
    print("%s to %s: %s after %.2f s" % (what, ip, errno.errorcode.get(err, err), dt))
    return err, dt

ok = True
for what, fn in (("modify_qp(RTR)", rtr), ("create_ah", lambda ip: AH(pd, attr=attr(ip)))):
    err, dt = timed(what, fn, sys.argv[1])       # nobody has it
    ok &= err == errno.ETIMEDOUT and 0.9 <= dt <= 3
    err, dt = timed(what, fn, sys.argv[2])       # the peer: resolved
    ok &= err == 0 and dt < 0.9
sys.exit(0 if ok else 1)
