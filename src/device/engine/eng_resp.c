/* SPDX-License-Identifier: MIT */
/*
 * The responder: one incoming message, run through an explicit chain of
 * states (rxe style). Each check returns the next state; failures are named
 * states that decide what the requester hears and what the responder's own
 * QP does:
 *
 *   CHK_QP -> CHK_PSN -> CHK_OP -> CHK_RKEY -> GET_RECV -> EXECUTE -> COMPLETE
 *
 *   DROP          no response (unknown QP, wrong type or state, qkey
 *                 mismatch, UC/UD errors): an RC requester times out.
 *   RNR           RC SEND / WRITE_IMM without a receive WQE: RNR NAK with
 *                 the responder's min_rnr_nak; UC/UD drop.
 *   ERR_INV_REQ   NAK invalid request (opcode not allowed, message too long,
 *                 misaligned atomic, bad XRC SRQ, failed remote invalidate);
 *                 responder QP to ERR, with an error CQE if a receive WQE was
 *                 taken, else the "invalid request" async event.
 *   ERR_ACCESS    NAK remote access (QP access flags, rkey checks); responder
 *                 QP to ERR and the "access error" async event.
 *   ERR_RECV_PROT the receive WQE's own scatter list failed its checks:
 *                 responder LOCAL_PROT_ERR CQE, NAK remote operational error.
 *   ERR_RECV_LEN  the message does not fit the receive WQE: responder
 *                 LOCAL_LENGTH_ERR CQE, NAK invalid request.
 * For UC and UD every failure is a silent drop towards the requester (no
 * acknowledgements exist); the responder-side CQE and QP error still happen.
 *
 * DC: a DCI's requests go to a DCT (st FW_QP_ST_DCT), which answers like an
 * RC responder keeping per initiator (slot, DCI) only the message in
 * progress and the last PSN (a retransmission is answered again, not
 * executed again), forgotten when the DCI's stream generation in the
 * DCETH changes (it was reset). CHK_QP checks the DC access key: a
 * mismatch counts a violation, raises the DCT key violation event once
 * armed (ARM_DCT_FOR_KEY_VIOLATION) and is NAKed as a remote access error. Receives come from the DCT's SRQ,
 * complete on its CQ, and keys are checked in the DCT's PD. A DCT serves
 * many initiators: errors are NAKed (and receive errors completed) but never
 * move it to ERR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/engine/eng_loc.h"
#include "device/transport/counters.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"
#include "util/fault.h"
#include "util/log.h"

enum resp_state {
	RESP_CHK_QP,
	RESP_CHK_PSN,
	RESP_CHK_OP,
	RESP_CHK_RKEY,
	RESP_GET_RECV,
	RESP_EXECUTE,
	RESP_COMPLETE,
	RESP_DONE,
	RESP_DROP,
	RESP_RNR,
	RESP_ERR_INV_REQ,
	RESP_ERR_ACCESS,
	RESP_ERR_RECV_PROT,
	RESP_ERR_RECV_LEN,
};

static const char *const resp_state_name[] = {
	[RESP_CHK_QP] = "CHK_QP",
	[RESP_CHK_PSN] = "CHK_PSN",
	[RESP_CHK_OP] = "CHK_OP",
	[RESP_CHK_RKEY] = "CHK_RKEY",
	[RESP_GET_RECV] = "GET_RECV",
	[RESP_EXECUTE] = "EXECUTE",
	[RESP_COMPLETE] = "COMPLETE",
	[RESP_DONE] = "DONE",
	[RESP_DROP] = "DROP",
	[RESP_RNR] = "RNR",
	[RESP_ERR_INV_REQ] = "ERR_INV_REQ",
	[RESP_ERR_ACCESS] = "ERR_ACCESS",
	[RESP_ERR_RECV_PROT] = "ERR_RECV_PROT",
	[RESP_ERR_RECV_LEN] = "ERR_RECV_LEN",
};

struct resp_ctx {
	struct eng *e;
	const struct eng_pkt *p;
	struct eng_resp *r;
	struct fw_qp *qp;
	struct fw_srq *srq;	/* where receives come from (NULL: RQ) */
	const struct fw_pd *pd;	/* protection domain for keys */
	struct fw_mkey *mk;	/* the rkey's mkey */
	bool have_wqe;
	struct eng_rwqe w;
	struct eng_rstate *rs;	/* packets: the QP's responder state */
	struct eng_rmsg *m;	/* packets: the message being received */
	uint32_t off;		/* packets: this payload's offset */
	uint32_t seg;		/* failing receive segment, for the log */
	bool dup;		/* a duplicate READ being re-executed */
	bool rsig;		/* the rkey is a signature or crypto key */
	/* Receive entries through signature keys: the message lands in a
	 * staging buffer, then goes through the key (eng_sig.c). */
	uint32_t nsig;
	struct resp_sig {
		struct fw_mkey *mk;
		uint64_t va;
		uint8_t *buf;
		uint64_t at, wlen;	/* offset in the message, wire bytes */
	} *sig;			/* ENG_MAX_SGE, allocated on first use */
	char why[200];
};

/*
 * Responder state towards other processes (packets): the message being
 * received, the responder resources of READs and atomics (IBTA 9.7.5.1.4:
 * replayed, never executed twice), and what is owed to requesters whose
 * inbox was full (flushed by eng_resp_flush()).
 */
#define ENG_RRES 16u	/* >= 2^log_rra_max (at most 4) */
/* The largest WRITE of several packets through a signature key: staged
 * whole, since the key's guards span packets. */
#define RESP_SIG_STAGE_MAX (64u << 20)
#define ENG_RACKS 8u	/* a DCT answers several initiators */

struct eng_rres {
	uint8_t op;		/* ENG_PKT_*; 0: free */
	bool pending;		/* responses still to send */
	uint32_t psn, npkts, tx;	/* tx: response packets sent */
	uint32_t from;		/* READ: the packet the last request asked
				 * from (its response there is FIRST) */
	uint32_t rkey, len, mtu;
	uint64_t va, orig;
	uint32_t slot, dqpn, msn;
	struct roce_l3 l3;	/* the response's addressing */
	uint8_t *sigbuf;	/* READ through a signature key: wire bytes */
};

struct eng_rack {
	bool pending;
	uint8_t syndrome;	/* AETH */
	uint32_t psn, msn, slot, dqpn;
	struct roce_l3 l3;
};

struct eng_rstate {
	struct eng_rmsg {
		bool active;	/* a SEND / WRITE is being received */
		uint8_t op;
		uint32_t off;	/* its bytes received so far */
		uint32_t rkey, len;
		uint64_t va;
		bool have_wqe;
		struct eng_rwqe w;
		/* A WRITE of several packets through a signature key: its
		 * wire bytes, staged until the last packet (RESP_SIG_STAGE_MAX
		 * at most). A SEND of several packets into a receive through
		 * signature keys: the receive's staged entries (resp_scatter()),
		 * kept from its first packet to its last. */
		uint8_t *sbuf;
		struct resp_sig *sig;
		uint32_t nsig;
	} m;
	/* A DCT: one message in progress and the last PSN per initiator
	 * (DCI), which has no connection state of its own here. */
	struct eng_dctx {
		bool used;
		uint8_t gen;	/* the DCI's stream generation (DCETH) */
		uint32_t slot, dqpn, last_psn;
		struct eng_rmsg m;
	} dctx[ENG_RACKS];
	uint32_t dctx_next;
	uint32_t msn;
	bool nak_sent;		/* a sequence NAK went out for this gap */
	bool listed;		/* counted in e->resp_pending */
	uint32_t res_next;
	struct eng_rres res[ENG_RRES];
	struct eng_rack ack[ENG_RACKS];	/* [0]: a connected QP's */
	/* the packet being processed (eng_resp_pkt) */
	uint32_t slot;
	const struct roce_l3 *l3;
};

static struct eng_rres *resp_res_add(struct resp_ctx *c, uint64_t orig)
{
	struct eng_rstate *rs = c->rs;
	struct eng_rres *res = &rs->res[rs->res_next++ % ENG_RRES];
	const struct eng_pkt *p = c->p;

	free(res->sigbuf);
	memset(res, 0, sizeof(*res));
	res->op = p->op;
	res->psn = p->psn;
	res->npkts = p->npkts;
	res->rkey = p->rkey;
	res->va = p->raddr;
	res->len = p->len;
	res->mtu = eng_mtu_bytes(DEVX_GET(qpc, c->qp->qpc, mtu));
	res->orig = orig;
	res->slot = rs->slot;
	res->dqpn = p->sqpn;
	res->l3 = *rs->l3;
	res->pending = true;
	return res;
}

/*
 * A duplicate READ or atomic (a lost response): its resource answers
 * again, never executing it twice. A READ may ask again from a PSN inside
 * it for the rest of the message (the requester lost a response there):
 * the same rkey, the VA advanced and the length shortened by whole MTUs --
 * anything else names no resource and is dropped, as rxe does. A DCT's
 * resource is one initiator's (@dct: same process and DCI).
 */
static void resp_res_again(struct eng_rstate *rs, const struct eng_pkt *p,
			   uint32_t slot, bool dct)
{
	uint32_t i;

	for (i = 0; i < ENG_RRES; i++) {
		struct eng_rres *res = &rs->res[i];
		int32_t k = eng_psn_diff(p->psn, res->psn);
		uint64_t off;

		if (res->op != p->op || k < 0 || (uint32_t)k >= res->npkts ||
		    (dct && (res->slot != slot || res->dqpn != p->sqpn)))
			continue;
		if (p->op == ENG_PKT_READ) {
			off = (uint64_t)k * res->mtu;
			if (p->rkey != res->rkey || p->raddr != res->va + off ||
			    (uint64_t)p->len + off != res->len)
				continue;
		} else if (k) {
			continue;
		}
		res->tx = res->from = (uint32_t)k;
		res->pending = true;
		res->slot = slot;
		res->l3 = *rs->l3;
		return;
	}
	smx_dbg("engine: duplicate %s psn 0x%x names no responder resource; "
		"dropped", p->op == ENG_PKT_READ ? "READ" : "atomic", p->psn);
}

static enum resp_state resp_sig_read(struct resp_ctx *c);
static enum resp_state resp_rkey_fault(struct resp_ctx *c, const char *what);

/* A READ from another process: checked; its responses go out as packets
 * from the responder resource (eng_resp_flush()). */
static enum resp_state resp_read_grant(struct resp_ctx *c)
{
	struct eng_sge one = { NULL, c->mk, c->p->raddr, c->p->len };
	struct eng_sgl remote = { &one, 1, c->p->len };

	if (c->p->len && c->rsig)
		return resp_sig_read(c);
	/* Memory the key names but the target unmapped answers now, as
	 * the copy would. */
	if (c->p->len && !eng_sgl_probe(&remote, c->p->len, false))
		return resp_rkey_fault(c, "READ from");
	resp_res_add(c, 0);
	return RESP_COMPLETE;
}

#define ENG_EVT_DCT_KEY_VIOLATION 0x1d

/* A DCI's request: to a DCT holding the same DC access key. */
static enum resp_state resp_chk_dct(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct fw_qp *qp = c->qp;
	uint64_t key = DEVX_GET64(qpc, qp->qpc, dc_access_key);

	if (p->st != MLX5_QPC_ST_DCI || qp->st != FW_QP_ST_DCT) {
		snprintf(c->why, sizeof(c->why), "0x%x is %s, the packet %s a "
			 "DCI", qp->obj.id, qp->st == FW_QP_ST_DCT ? "a DCT" :
			 "a QP", p->st == MLX5_QPC_ST_DCI ? "is from" :
			 "is not from");
		return RESP_DROP;
	}
	if (qp->dct_state != MLX5_DCTC_STATE_ACTIVE) {
		snprintf(c->why, sizeof(c->why), "dct 0x%x is drained",
			 qp->obj.id);
		return RESP_DROP;
	}
	c->srq = qp->srq;
	c->pd = qp->pd;
	if (p->dc_key != key) {
		qp->dct_key_violations++;
		snprintf(c->why, sizeof(c->why), "DC access key 0x%llx, dct 0x%x "
			 "holds 0x%llx", (unsigned long long)p->dc_key,
			 qp->obj.id, (unsigned long long)key);
		if (qp->dct_armed) {
			qp->dct_armed = false;
			eng_async_event(c->e, ENG_EVT_DCT_KEY_VIOLATION,
					qp->obj.id, false, qp->obj.uid);
		}
		return RESP_ERR_ACCESS;
	}
	return RESP_CHK_OP;
}

static bool resp_needs_recv(const struct eng_pkt *p)
{
	return p->op == ENG_PKT_SEND ||
	       (p->op == ENG_PKT_WRITE && (p->flags & ENG_PKT_F_IMM));
}

static enum resp_state resp_chk_qp(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct fw_qp *qp = fw_qp_lookup(c->e->fw, p->dqpn);

	if (!qp) {
		snprintf(c->why, sizeof(c->why), "no QP 0x%x", p->dqpn);
		return RESP_DROP;
	}
	c->qp = qp;
	if (qp->st == FW_QP_ST_DCT || p->st == MLX5_QPC_ST_DCI)
		return resp_chk_dct(c);
	if (qp->st != p->st) {
		snprintf(c->why, sizeof(c->why), "qp 0x%x is of type %u, the "
			 "packet of type %u", qp->obj.id, qp->st, p->st);
		return RESP_DROP;
	}
	if (!eng_racc_ready(qp)) {
		snprintf(c->why, sizeof(c->why), "qp 0x%x is in state %u, not "
			 "ready to receive", qp->obj.id, qp->state);
		return RESP_DROP;
	}
	if (qp->st == MLX5_QPC_ST_UD &&
	    p->qkey != DEVX_GET(qpc, qp->qpc, q_key)) {
		snprintf(c->why, sizeof(c->why), "qkey 0x%x, qp 0x%x has 0x%x",
			 p->qkey, qp->obj.id, DEVX_GET(qpc, qp->qpc, q_key));
		return RESP_DROP;
	}
	c->srq = qp->srq;
	c->pd = qp->pd;
	/* XRC: every request names its XRC SRQ, whose PD governs the access
	 * checks (the target QP has no PD of its own). */
	if (qp->st == MLX5_QPC_ST_XRC && qp->xrcd) {
		struct fw_srq *srq = fw_srq_lookup(c->e->fw, p->xrc_srqn);

		if (!srq || srq->kind != FW_SRQ_XRC || srq->xrcd != qp->xrcd) {
			snprintf(c->why, sizeof(c->why), "xrc srq 0x%x is not an "
				 "XRC SRQ of qp 0x%x's domain", p->xrc_srqn,
				 qp->obj.id);
			return RESP_ERR_INV_REQ;
		}
		c->srq = srq;
	}
	if (c->srq)
		c->pd = c->srq->pd;
	return RESP_CHK_PSN;
}

static enum resp_state resp_chk_psn(struct resp_ctx *c)
{
	uint32_t expect = DEVX_GET(qpc, c->qp->qpc, next_rcv_psn);
	int32_t d;

	if (c->qp->st == MLX5_QPC_ST_UD || c->rs)
		return RESP_CHK_OP;	/* packets: eng_resp_pkt() checked */
	if (c->qp->st == FW_QP_ST_DCT)
		return RESP_CHK_OP;	/* no connection, no PSN state */
	if (c->qp->st == MLX5_QPC_ST_UC) {
		/* UC: a message's first packet resynchronises. */
		return RESP_CHK_OP;
	}
	d = eng_psn_diff(c->p->psn, expect);
	if (d == 0)
		return RESP_CHK_OP;
	if (d < 0 && c->p->op == ENG_PKT_READ) {
		/* A duplicate READ is executed again (its response may have
		 * been lost); the expected PSN does not move. */
		c->dup = true;
		return RESP_CHK_OP;
	}
	if (d < 0) {
		/* A duplicate: acknowledged again, not executed again. */
		snprintf(c->why, sizeof(c->why), "duplicate psn 0x%x (expected "
			 "0x%x)", c->p->psn, expect);
		c->r->ack = ENG_ACK_OK;
		return RESP_DONE;
	}
	snprintf(c->why, sizeof(c->why), "psn 0x%x ahead of expected 0x%x",
		 c->p->psn, expect);
	c->r->ack = ENG_NAK_SEQ;
	return RESP_DONE;
}

/*
 * One packet's payload against the path MTU (IBTA C9-92, as rxe checks
 * it): a FIRST or MIDDLE packet carries exactly one MTU, a LAST one 1 to
 * MTU bytes, an ONLY one at most MTU. A SEND by reference stands for
 * npkts packets; eng_resp_pkt() checked it against them.
 */
static bool resp_pkt_len_ok(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	uint32_t mtu = eng_mtu_bytes(DEVX_GET(qpc, c->qp->qpc, mtu));
	const char *rule = NULL;

	if ((p->op != ENG_PKT_SEND && p->op != ENG_PKT_WRITE) || p->npkts != 1)
		return true;
	if (p->seg == ENG_SEG_ONLY) {
		if (p->plen > mtu)
			rule = "an ONLY packet above";
	} else if (p->seg & ENG_SEG_LAST) {
		if (!p->plen || p->plen > mtu)
			rule = "a LAST packet empty or above";
	} else if (p->plen != mtu) {
		rule = "a FIRST or MIDDLE packet not of";
	}
	if (!rule)
		return true;
	snprintf(c->why, sizeof(c->why), "%u payload bytes: %s the %u-byte "
		 "path MTU", p->plen, rule, mtu);
	return false;
}

static enum resp_state resp_chk_op(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct eng_racc a;

	eng_racc_of(c->qp, &a);
	switch (eng_racc_op(&a, c->qp->obj.id, p->op, p->raddr,
			    p->op == ENG_PKT_SEND ? (uint64_t)c->off + p->plen :
			    p->len, c->why, sizeof(c->why))) {
	case ENG_RACC_OK:
		break;
	case ENG_RACC_DROP:
		return RESP_DROP;
	case ENG_RACC_ACCESS:
		return RESP_ERR_ACCESS;
	default:
		return RESP_ERR_INV_REQ;
	}
	if (c->rs && !resp_pkt_len_ok(c))
		return RESP_ERR_INV_REQ;
	/* The rkey is checked over the RETH's [va, va + len) only (not at
	 * all when len is 0): payload past it would land unchecked, outside
	 * the key. IBTA: an invalid request, like rxe's length error. */
	if (p->op == ENG_PKT_WRITE && (uint64_t)c->off + p->plen > p->len) {
		snprintf(c->why, sizeof(c->why), "WRITE payload up to byte %llu "
			 "of a %u-byte RETH length",
			 (unsigned long long)c->off + p->plen, p->len);
		return RESP_ERR_INV_REQ;
	}
	return RESP_CHK_RKEY;
}

static enum resp_state resp_chk_rkey(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	uint32_t need, len = p->len;

	switch (p->op) {
	case ENG_PKT_WRITE:
		need = ENG_ACC_RW;
		break;
	case ENG_PKT_READ:
		need = ENG_ACC_RR;
		break;
	case ENG_PKT_CMP_SWAP:
	case ENG_PKT_FETCH_ADD:
		need = ENG_ACC_A;
		len = 8;
		break;
	default:
		return RESP_GET_RECV;
	}
	/* A zero-length RDMA operation touches no memory: no rkey check. */
	if (!len)
		return RESP_GET_RECV;
	/* A signature key's range is in wire bytes (data and the wire
	 * domain's signatures), as the message carries them. */
	c->rsig = false;
	{
		struct fw_mkey *sk = fw_mkey_lookup(c->e->fw, p->rkey);

		if (sk && !sk->free && eng_xform(sk)) {
			if (p->op != ENG_PKT_WRITE && p->op != ENG_PKT_READ) {
				snprintf(c->why, sizeof(c->why), "rkey 0x%x is a "
					 "signature key: no atomics through it",
					 p->rkey);
				return RESP_ERR_ACCESS;
			}
			c->rsig = true;
		}
	}
	/* XRC: the PD is the XRC SRQ's (c->pd), the target QP has none of its own. */
	if (eng_key_check(c->e, p->rkey, c->pd, need, p->raddr, len, &c->mk,
			  c->why, sizeof(c->why)))
		return RESP_ERR_ACCESS;
	if (c->rsig && !eng_xform(c->mk)) {
		snprintf(c->why, sizeof(c->why), "rkey 0x%x changed under the "
			 "request", p->rkey);
		return RESP_ERR_ACCESS;
	}
	/* A type 2 window answers only on the QP it is bound to. */
	if (c->mk->bound && DEVX_GET(mkc, c->mk->ctx, qpn) != 0xffffff &&
	    DEVX_GET(mkc, c->mk->ctx, qpn) != c->qp->obj.id) {
		snprintf(c->why, sizeof(c->why), "rkey 0x%x is a window bound to "
			 "qp 0x%x, the request came on 0x%x", p->rkey,
			 DEVX_GET(mkc, c->mk->ctx, qpn), c->qp->obj.id);
		return RESP_ERR_ACCESS;
	}
	return RESP_GET_RECV;
}

static enum resp_state resp_get_recv(struct resp_ctx *c)
{
	if (!resp_needs_recv(c->p))
		return RESP_EXECUTE;
	/* A SEND's later packets go to the WQE its first packet took; a
	 * WRITE with immediate takes one with its last packet. */
	if (c->p->op == ENG_PKT_SEND && !(c->p->seg & ENG_SEG_FIRST)) {
		c->w = c->m->w;
		c->have_wqe = true;
		return RESP_EXECUTE;
	}
	if (c->p->op == ENG_PKT_WRITE && !(c->p->seg & ENG_SEG_LAST))
		return RESP_EXECUTE;
	if (!eng_rq_take(c->e, c->qp, c->srq, &c->w)) {
		snprintf(c->why, sizeof(c->why), "qp 0x%x: no receive WQE "
			 "posted%s", c->qp->obj.id, c->srq ? " (srq)" : "");
		return RESP_RNR;
	}
	c->have_wqe = true;
	return RESP_EXECUTE;
}

/*
 * The 40 bytes a UD receive starts with, as rxe and a ConnectX fill them.
 * RoCEv2: the packet's IP header -- IPv4 in the last 20 bytes, IPv6 all 40
 * -- from the one builder (roce_build()), its lengths counting what the
 * packet held (BTH, DETH, ImmDt, payload, pad, ICRC), so
 * ibv_create_ah_from_wc() reads the addresses where it looks; the IPv4
 * identification is not kept (0). InfiniBand: a GRH, next header BTH.
 */
static void resp_build_grh(uint8_t grh[40], const struct eng_pkt *p,
			   bool eth)
{
	uint32_t ib_len = IBP_BTH_BYTES + IBP_DETH_BYTES +
			  (p->flags & ENG_PKT_F_IMM ? IBP_IMMDT_BYTES : 0) +
			  ((p->len + 3) & ~3u);

	memset(grh, 0, 40);
	if (eth) {
		struct roce_l3 l3;
		uint8_t hdr[ROCE_V6_HDR_LEN];

		memset(&l3, 0, sizeof(l3));
		memcpy(l3.sgid, p->sgid, 16);
		memcpy(l3.dgid, p->dgid, 16);
		l3.tclass = p->tclass;
		l3.hop_limit = p->hop_limit;
		l3.flow_label = p->flow_label;
		switch (roce_build(hdr, sizeof(hdr), &l3, ib_len)) {
		case ROCE_V4_HDR_LEN:
			memcpy(grh + 20, hdr, ROCE_IPV4_HDR_BYTES);
			break;
		case ROCE_V6_HDR_LEN:
			memcpy(grh, hdr, ROCE_IPV6_HDR_BYTES);
			break;
		default:	/* one GID IPv4-mapped, the other not: none */
			break;
		}
	} else {
		uint32_t w = 6u << 28 | (uint32_t)p->tclass << 20 |
			     (p->flow_label & 0xfffff);

		ibp_put32(grh, w);
		ibp_put16(grh + 4, (uint16_t)(ib_len + ROCE_ICRC_BYTES));
		grh[6] = 0x1b;		/* next header: IB's BTH */
		grh[7] = p->hop_limit;
		memcpy(grh + 8, p->sgid, 16);
		memcpy(grh + 24, p->dgid, 16);
	}
}

/* The receive WQE's scatter list, checked; false (state set) on failure. */
static enum resp_state resp_scatter(struct resp_ctx *c, struct eng_sgl *l,
				    struct eng_sge *sge)
{
	/* A later packet of a SEND whose receive stages signature entries:
	 * the same entries, the bytes so far in them. */
	struct resp_sig *kept = c->m && c->off ? c->m->sig : NULL;
	uint32_t i, k = 0;

	if (kept) {
		c->sig = kept;
		c->nsig = c->m->nsig;
	}
	l->sge = sge;
	l->n = 0;
	l->len = 0;
	for (i = 0; i < c->w.nseg; i++) {
		const struct mlx5_wqe_data_seg *d = &c->w.seg[i];
		uint64_t len = be32toh(d->byte_count) & 0x7fffffff;
		struct fw_mkey *mk;

		if (!len)
			len = 1ull << 31;	/* PRM: 0 means 2 GiB */
		if (eng_key_check(c->e, be32toh(d->lkey), c->pd, ENG_ACC_LW,
				  be64toh(d->addr), len, &mk, c->why,
				  sizeof(c->why))) {
			c->seg = i;
			return RESP_ERR_RECV_PROT;
		}
		sge[l->n].host = NULL;
		sge[l->n].mk = mk;
		sge[l->n].va = be64toh(d->addr);
		sge[l->n].len = len;
		if (eng_xform(mk) && kept) {
			if (k >= c->nsig || kept[k].mk != mk) {
				snprintf(c->why, sizeof(c->why), "signature key "
					 "0x%x changed under the message",
					 be32toh(d->lkey));
				c->seg = i;
				return RESP_ERR_RECV_PROT;
			}
			sge[l->n].host = kept[k++].buf;
			sge[l->n].mk = NULL;
		} else if (eng_xform(mk)) {
			uint64_t wl = len;	/* wire bytes */
			struct resp_sig *rs;

			if (!c->sig)
				c->sig = calloc(ENG_MAX_SGE, sizeof(*c->sig));
			rs = c->sig ? &c->sig[c->nsig] : NULL;
			if (rs)
				rs->buf = wl <= (1ull << 30) ? malloc(wl ? wl : 1) : NULL;
			if (!rs || !rs->buf) {
				snprintf(c->why, sizeof(c->why), "no memory to stage "
					 "%llu bytes for signature key 0x%x",
					 (unsigned long long)wl,
					 be32toh(d->lkey));
				c->seg = i;
				return RESP_ERR_RECV_PROT;
			}
			rs->mk = mk;
			rs->va = be64toh(d->addr);
			rs->at = l->len;
			rs->wlen = wl;
			c->nsig++;
			sge[l->n].host = rs->buf;
			sge[l->n].mk = NULL;
		}
		l->n++;
		l->len += len;
	}
	return RESP_COMPLETE;
}

static bool resp_invalidate(struct resp_ctx *c)
{
	struct fw_mkey *mk = fw_mkey_lookup(c->e->fw, c->p->inv_rkey);

	/* Remote invalidation needs mkc.en_rinval, or a UMR-managed key (the
	 * memory windows and UMR mkeys the driver creates); an indirect mkey
	 * (mlx5dv_create_mkey) only with en_rinval (..._REMOTE_INVALIDATE). */
	bool ind = mk && mk->access_mode == MLX5_MKC_ACCESS_MODE_KLMS && !mk->bound;

	if (!mk || mk->free || mk->pd != c->pd ||
	    !(DEVX_GET(mkc, mk->ctx, en_rinval) || (mk->umr_en && !ind))) {
		snprintf(c->why, sizeof(c->why), "send with invalidate: key 0x%x "
			 "%s", c->p->inv_rkey,
			 !mk || mk->free ? "is not valid" :
			 mk->pd != c->pd ? "is in another pd" :
			 "cannot be invalidated remotely (not a UMR/MW key)");
		return false;
	}
	fw_mkey_invalidate(mk, false, 0);
	eng_gen_bump(c->e);	/* caches and peers' records of it are void */
	return true;
}

/* Signature errors found while receiving go to the receive CQ. */
static void resp_sig_report(struct resp_ctx *c, const struct fw_mkey *mk,
			    const struct eng_sig_err *se)
{
	struct fw_cq *cq = c->qp->rcq ? c->qp->rcq : c->srq ? c->srq->cq : NULL;

	eng_sig_report(c->e, cq, mk, c->qp->obj.id, se);
}

/* The staged receive entries through signature keys: the wire bytes the
 * message (ending at byte @end of the scatter list) filled go through.
 * false (c->why) when an entry's memory could not be written. */
static bool resp_sig_commit(struct resp_ctx *c, uint64_t end)
{
	bool ok = true;
	uint32_t i;

	for (i = 0; i < c->nsig; i++) {
		struct resp_sig *rs = &c->sig[i];
		struct eng_sig_err se = { 0 };
		uint64_t got = end > rs->at ? end - rs->at : 0;

		if (got > rs->wlen)
			got = rs->wlen;
		if (!got)
			continue;
		if (eng_sig_write(rs->mk, rs->va, got, rs->buf, &se) && ok) {
			snprintf(c->why, sizeof(c->why), "signature key 0x%x: %s",
				 rs->mk->obj.id << 8 | rs->mk->variant, se.why);
			ok = false;
		}
		if (se.set)
			resp_sig_report(c, rs->mk, &se);
	}
	return ok;
}

/* RDMA READ out of a signature key: through a buffer in the wire format,
 * moved like any other. */
static enum resp_state resp_sig_read(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct eng_sig_err se = { 0 };
	uint8_t *buf = malloc(p->len);
	struct eng_sge hs = { buf, NULL, 0, p->len };
	struct eng_sgl hl = { &hs, 1, p->len };
	enum resp_state st = RESP_COMPLETE;

	if (!buf) {
		snprintf(c->why, sizeof(c->why), "no memory to stage %u bytes for "
			 "signature key 0x%x", p->len, p->rkey);
		return RESP_ERR_ACCESS;
	}
	if (eng_sig_read(c->mk, p->raddr, p->len, buf, &se)) {
		snprintf(c->why, sizeof(c->why), "rkey 0x%x: %s", p->rkey,
			 se.why);
		st = RESP_ERR_ACCESS;
	} else if (!p->rdata) {
		/* packets: the staged bytes are the response */
		struct eng_rres *res = resp_res_add(c, 0);

		res->sigbuf = buf;
		buf = NULL;
	} else if (eng_sgl_copy(p->rdata, 0, &hl, 0, p->len) != p->len) {
		char f[96];

		snprintf(c->why, sizeof(c->why), "READ data could not be "
			 "placed: %s", eng_fault_why(f, sizeof(f)));
		st = RESP_ERR_ACCESS;
	}
	if (se.set)
		resp_sig_report(c, c->mk, &se);
	free(buf);
	return st;
}

/* RDMA WRITE into a signature key: the payload into a buffer in the wire
 * format, and with the message's last packet the whole message through the
 * key. A WRITE of several packets stages in the message in progress
 * (c->m->sbuf, RESP_SIG_STAGE_MAX at most); a whole one in a buffer of its
 * own. */
static enum resp_state resp_sig_write(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct eng_rmsg *m = c->m;
	bool whole = p->seg == ENG_SEG_ONLY;
	uint8_t *one = NULL, **buf = m ? &m->sbuf : &one;
	struct eng_sig_err se = { 0 };
	struct eng_sge hs;
	struct eng_sgl hl;
	enum resp_state st = RESP_COMPLETE;

	if (!whole && (!m || p->len > RESP_SIG_STAGE_MAX)) {
		snprintf(c->why, sizeof(c->why), "a WRITE of %u bytes in "
			 "several packets through signature key 0x%x (%s)",
			 p->len, p->rkey, m ? "above the 64 MiB staged" :
			 "not in packets");
		return RESP_ERR_ACCESS;
	}
	if (p->seg & ENG_SEG_FIRST) {
		free(*buf);
		*buf = malloc(p->len);
	}
	if (!*buf) {
		snprintf(c->why, sizeof(c->why), "no memory to stage %u bytes "
			 "for signature key 0x%x", p->len, p->rkey);
		return RESP_ERR_ACCESS;
	}
	hs = (struct eng_sge){ *buf + c->off, NULL, 0, p->plen };
	hl = (struct eng_sgl){ &hs, 1, p->plen };
	if (eng_sgl_copy(&hl, 0, p->payload, 0, p->plen) != p->plen) {
		snprintf(c->why, sizeof(c->why), "the sender's %u bytes could "
			 "not be read", p->plen);
		st = RESP_ERR_ACCESS;
	} else if (!(p->seg & ENG_SEG_LAST)) {
		return RESP_COMPLETE;
	} else if (eng_sig_write(c->mk, p->raddr, p->len, *buf, &se)) {
		snprintf(c->why, sizeof(c->why), "rkey 0x%x: %s", p->rkey,
			 se.why);
		st = RESP_ERR_ACCESS;
	}
	if (se.set)
		resp_sig_report(c, c->mk, &se);
	free(*buf);
	*buf = NULL;
	return st;
}

/*
 * An 8-byte compare-and-swap or fetch-and-add on the responder's memory,
 * lock-free so that it stays atomic with the direct path's (eng_direct.c)
 * and with the host CPU's own atomics. The value is in host byte order:
 * atomic_req_8B_endianness_mode 1, which mlx5_core sets on every device
 * that supports it (UCX and SHMEM mix NIC and CPU atomics on one word).
 * Returns the value before.
 */
uint64_t eng_atomic8(const struct eng_pkt *p, uint64_t *m)
{
	uint64_t cur = __atomic_load_n(m, __ATOMIC_ACQUIRE), want;

	for (;;) {
		if (p->op == ENG_PKT_CMP_SWAP)
			want = cur == p->compare ? p->swap_add : cur;
		else
			want = cur + p->swap_add;
		if (want == cur ||
		    __atomic_compare_exchange_n(m, &cur, want, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return cur;
	}
}

struct resp_atomic {
	const struct eng_pkt *p;
	uint64_t *m;
	uint64_t orig;
};

static void resp_atomic_fn(void *arg)
{
	struct resp_atomic *a = arg;

	a->orig = eng_atomic8(a->p, a->m);
}

/* A copy into / out of the rkey's memory that failed: the log line. */
static enum resp_state resp_rkey_fault(struct resp_ctx *c, const char *what)
{
	const struct eng_pkt *p = c->p;
	char f[96];

	snprintf(c->why, sizeof(c->why), "%s rkey 0x%x [0x%llx,+0x%x): %s", what,
		 p->rkey, (unsigned long long)p->raddr, p->len,
		 eng_fault_why(f, sizeof(f)));
	return RESP_ERR_ACCESS;
}

/* The same for the receive WQE's scatter list. */
static enum resp_state resp_recv_fault(struct resp_ctx *c)
{
	char f[96];

	snprintf(c->why, sizeof(c->why), "%u-byte message into the receive "
		 "WQE: %s", c->p->len, eng_fault_why(f, sizeof(f)));
	return RESP_ERR_RECV_PROT;
}

static enum resp_state resp_execute(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct eng_sge one = { 0 };
	struct eng_sgl remote = { &one, 1, 0 };

	switch (p->op) {
	case ENG_PKT_SEND: {
		struct eng_sge sge[ENG_MAX_SGE + 1];
		struct eng_sgl l;
		uint8_t grh[40];
		struct eng_sge gs = { grh, NULL, 0, 40 };
		struct eng_sgl g = { &gs, 1, 40 };
		uint64_t need = (uint64_t)c->off + p->plen, at = 0;
		enum resp_state s = resp_scatter(c, &l, sge);

		if (s != RESP_COMPLETE)
			return s;
		if (c->qp->st == MLX5_QPC_ST_UD)
			need += 40;
		if (need > l.len) {
			snprintf(c->why, sizeof(c->why), "message of %llu bytes, "
				 "receive WQE holds %llu",
				 (unsigned long long)need,
				 (unsigned long long)l.len);
			return RESP_ERR_RECV_LEN;
		}
		if ((p->flags & ENG_PKT_F_INV) && !resp_invalidate(c))
			return RESP_ERR_INV_REQ;
		if (c->qp->st == MLX5_QPC_ST_UD) {
			resp_build_grh(grh, p,
				       fw_config(c->e->fw)->link_layer ==
				       SMX_LINK_ETH);
			if (eng_sgl_copy(&l, 0, &g, 0, 40) != 40)
				return resp_recv_fault(c);
			at = 40;
		}
		if (p->plen && eng_sgl_copy(&l, at + c->off, p->payload, 0,
					    p->plen) != p->plen)
			return resp_recv_fault(c);
		/* through the keys once the whole message is staged */
		if (c->nsig && (p->seg & ENG_SEG_LAST) &&
		    !resp_sig_commit(c, at + c->off + p->plen))
			return RESP_ERR_RECV_PROT;
		return RESP_COMPLETE;
	}
	case ENG_PKT_WRITE:
		if (p->plen && c->rsig) {
			return resp_sig_write(c);
		}
		if (p->plen) {
			one.mk = c->mk;
			one.va = p->raddr + c->off;
			one.len = p->plen;
			remote.len = p->plen;
			if (eng_sgl_copy(&remote, 0, p->payload, 0, p->plen) !=
			    p->plen)
				return resp_rkey_fault(c, "WRITE into");
		}
		return RESP_COMPLETE;
	case ENG_PKT_READ:
		if (!p->rdata)
			return resp_read_grant(c);	/* answered by packets */
		if (p->len && c->rsig)
			return resp_sig_read(c);
		if (p->len) {
			one.mk = c->mk;
			one.va = p->raddr;
			one.len = p->len;
			remote.len = p->len;
			if (eng_sgl_copy(p->rdata, 0, &remote, 0, p->len) !=
			    p->len)
				return resp_rkey_fault(c, "READ from");
		}
		return RESP_COMPLETE;
	case ENG_PKT_CMP_SWAP:
	case ENG_PKT_FETCH_ADD: {
		uint64_t contig;
		struct resp_atomic a = {
			p, (uint64_t *)eng_mkey_host(c->mk, p->raddr, &contig), 0
		};

		if (!a.m || contig < 8 || ((uintptr_t)a.m & 7)) {
			snprintf(c->why, sizeof(c->why), "atomic target 0x%llx "
				 "cannot be mapped", (unsigned long long)p->raddr);
			return RESP_ERR_ACCESS;
		}
		if (!smx_fault_run(resp_atomic_fn, &a))
			return resp_rkey_fault(c, "atomic on");
		c->r->atomic_orig = a.orig;
		if (c->rs)
			resp_res_add(c, a.orig);	/* replayed if asked again */
		return RESP_COMPLETE;
	}
	default:
		return RESP_ERR_INV_REQ;
	}
}

static uint32_t resp_srqn_uidx(const struct resp_ctx *c)
{
	uint32_t uidx = DEVX_GET(qpc, c->qp->qpc, user_index);

	if (c->srq && c->srq->kind == FW_SRQ_XRC)
		return c->srq->user_index ? c->srq->user_index : c->srq->obj.id;
	if (uidx)
		return uidx;
	return c->have_wqe && c->w.srq ? c->w.srq->obj.id : 0;
}

static struct fw_cq *resp_cq(const struct resp_ctx *c)
{
	if (c->srq && c->srq->kind == FW_SRQ_XRC && c->srq->cq)
		return c->srq->cq;
	return c->qp->rcq;
}

/* The CQE of a receive that message @p (its last packet) filled with
 * @byte_cnt bytes: the responder's, and direct SEND's (eng_drq.c). */
void eng_resp_cqe(struct eng *e, struct fw_qp *qp, struct fw_cq *cq,
		  uint16_t index, uint32_t srqn_uidx, uint32_t byte_cnt,
		  const struct eng_pkt *p)
{
	struct eng_cqe cqe = {
		.qpn = qp->obj.id,
		.wqe_counter = index,
		.byte_cnt = byte_cnt,
		.flags_rqpn = p->sqpn & 0xffffff,
		.srqn_uidx = srqn_uidx,
		.solicited = !!(p->flags & ENG_PKT_F_SE),
	};

	if (p->op == ENG_PKT_WRITE) {
		cqe.opcode = MLX5_CQE_RESP_WR_IMM;
		cqe.imm_inval_pkey = p->imm;
	} else if (p->flags & ENG_PKT_F_IMM) {
		cqe.opcode = MLX5_CQE_RESP_SEND_IMM;
		cqe.imm_inval_pkey = p->imm;
	} else if (p->flags & ENG_PKT_F_INV) {
		cqe.opcode = MLX5_CQE_RESP_SEND_INV;
		cqe.imm_inval_pkey = htobe32(p->inv_rkey);
	} else {
		cqe.opcode = MLX5_CQE_RESP_SEND;
	}
	if (qp->st == MLX5_QPC_ST_UD) {
		bool v4 = roce_gid_is_v4(p->sgid) && roce_gid_is_v4(p->dgid);
		bool eth = fw_config(e->fw)->link_layer == SMX_LINK_ETH;

		cqe.byte_cnt += 40;
		/* g (GRH present); RoCE: L3 type 2 = IPv4, 1 = IPv6 */
		cqe.flags_rqpn |= 1u << 28;
		if (eth)
			cqe.flags_rqpn |= (v4 ? 2u : 1u) << 24;
	}
	eng_cqe_post(e, cq, &cqe);
}

static enum resp_state resp_complete(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct fw_qp *qp = c->qp;

	if (qp->st != MLX5_QPC_ST_UD && qp->st != FW_QP_ST_DCT && !c->dup &&
	    !c->rs)
		DEVX_SET(qpc, qp->qpc, next_rcv_psn,
			 eng_psn_add(p->psn, p->npkts));
	if (!(p->seg & ENG_SEG_LAST)) {
		c->r->ack = ENG_ACK_OK;	/* the message goes on */
		return RESP_DONE;
	}
	if (c->have_wqe && resp_cq(c))
		eng_resp_cqe(c->e, qp, resp_cq(c), c->w.index, resp_srqn_uidx(c),
			     c->off + p->plen, p);
	c->r->ack = ENG_ACK_OK;
	return RESP_DONE;
}

/* A failure after a receive WQE was taken: its error CQE, QP to ERR (a
 * DCT stays active). */
static void resp_fail_wqe(struct resp_ctx *c, uint8_t syndrome)
{
	struct eng_cqe cqe = {
		.opcode = MLX5_CQE_RESP_ERR,
		.syndrome = syndrome,
		.qpn = c->qp->obj.id,
		.wqe_counter = c->w.index,
		.srqn_uidx = resp_srqn_uidx(c),
	};

	smx_dbg("engine: qp 0x%x (responder) wqe %u seg %u (data): %s -> %s",
		c->qp->obj.id, c->w.index, c->seg, c->why,
		eng_synd_str(syndrome));
	if (resp_cq(c))
		eng_cqe_post(c->e, resp_cq(c), &cqe);
	if (c->qp->st != FW_QP_ST_DCT)
		eng_qp_to_err(c->e, c->qp);
}

/* A failure with no receive WQE to report it: async event, QP to ERR. */
static void resp_fail_event(struct resp_ctx *c, uint8_t type)
{
	if (c->qp->st == FW_QP_ST_DCT) {
		smx_dbg("engine: dct 0x%x psn 0x%x: %s -> NAK", c->qp->obj.id,
			c->p->psn, c->why);
		return;
	}
	smx_dbg("engine: qp 0x%x (responder) psn 0x%x: %s -> %s event", c->qp->obj.id,
		c->p->psn, c->why, type == ENG_EVT_WQ_ACCESS_ERROR ?
		"access error" : "invalid request");
	eng_async_event(c->e, type, c->qp->obj.id, false, c->qp->obj.uid);
	eng_qp_to_err(c->e, c->qp);
}

static void resp_run(struct resp_ctx *cp);

void eng_resp_rx(struct eng *e, const struct eng_pkt *p, struct eng_resp *r)
{
	struct eng_pkt whole = *p;
	struct resp_ctx c = { .e = e, .p = &whole, .r = r };
	uint32_t i;

	/* In-process: the whole message is one unit. */
	whole.seg = ENG_SEG_ONLY;
	whole.plen = p->op == ENG_PKT_SEND || p->op == ENG_PKT_WRITE ? p->len : 0;
	resp_run(&c);
	if (c.sig) {
		for (i = 0; i < c.nsig; i++)
			free(c.sig[i].buf);
		free(c.sig);
	}
}

static void resp_run(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct eng_resp *r = c->r;
	enum resp_state s = RESP_CHK_QP;
	bool rc;

	for (;;) {
		switch (s) {
		case RESP_CHK_QP: s = resp_chk_qp(c); break;
		case RESP_CHK_PSN: s = resp_chk_psn(c); break;
		case RESP_CHK_OP: s = resp_chk_op(c); break;
		case RESP_CHK_RKEY: s = resp_chk_rkey(c); break;
		case RESP_GET_RECV: s = resp_get_recv(c); break;
		case RESP_EXECUTE: s = resp_execute(c); break;
		case RESP_COMPLETE: s = resp_complete(c); break;
		case RESP_DONE:
			return;
		case RESP_DROP:
			smx_dbg("engine: packet to qp 0x%x dropped: %s", p->dqpn,
				c->why);
			r->ack = ENG_ACK_DROPPED;
			return;
		case RESP_RNR:
			trn_ctr_add(c->e->ctr, TRN_CTR_OUT_OF_BUFFER, 1);
			rc = eng_racc_connected(c->qp->st);
			if (!rc)
				smx_dbg("engine: packet to qp 0x%x dropped: no "
					"receive WQE posted", p->dqpn);
			r->ack = rc ? ENG_NAK_RNR : ENG_ACK_DROPPED;
			r->rnr_timer = DEVX_GET(qpc, c->qp->qpc, min_rnr_nak);
			return;
		default:
			break;
		}
		if (s < RESP_ERR_INV_REQ)
			continue;
		/* Error states. */
		rc = eng_racc_connected(c->qp->st);
		switch (s) {
		case RESP_ERR_INV_REQ:
			if (c->have_wqe)
				resp_fail_wqe(c, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
			else if (rc)
				resp_fail_event(c, ENG_EVT_WQ_INVAL_REQ_ERROR);
			r->ack = rc ? ENG_NAK_INV_REQ : ENG_ACK_DROPPED;
			break;
		case RESP_ERR_ACCESS:
			trn_ctr_add(c->e->ctr, TRN_CTR_RESP_REMOTE_ACCESS_ERRORS, 1);
			if (rc)
				resp_fail_event(c, ENG_EVT_WQ_ACCESS_ERROR);
			else
				smx_dbg("engine: qp 0x%x (responder): %s -> "
					"dropped", c->qp->obj.id, c->why);
			r->ack = rc ? ENG_NAK_REM_ACCESS : ENG_ACK_DROPPED;
			break;
		case RESP_ERR_RECV_PROT:
			resp_fail_wqe(c, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
			r->ack = rc ? ENG_NAK_REM_OP : ENG_ACK_DROPPED;
			break;
		case RESP_ERR_RECV_LEN:
			trn_ctr_add(c->e->ctr, TRN_CTR_RESP_LOCAL_LENGTH_ERROR, 1);
			resp_fail_wqe(c, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
			r->ack = rc ? ENG_NAK_INV_REQ : ENG_ACK_DROPPED;
			break;
		default:
			smx_err("engine: responder reached state %s",
				(size_t)s < sizeof(resp_state_name) /
				sizeof(resp_state_name[0]) ?
				resp_state_name[s] : "?");
			r->ack = ENG_ACK_DROPPED;
			break;
		}
		return;
	}
}

/* ------------------------------------------------------------------ */
/* Packets from another process                                       */
/* ------------------------------------------------------------------ */

/* The message in progress ends (received, abandoned or failed). */
static void resp_sig_free(struct resp_sig *sig, uint32_t n)
{
	uint32_t i;

	for (i = 0; sig && i < n; i++)
		free(sig[i].buf);
	free(sig);
}

static void resp_msg_end(struct eng_rmsg *m)
{
	m->active = false;
	free(m->sbuf);
	m->sbuf = NULL;
	resp_sig_free(m->sig, m->nsig);
	m->sig = NULL;
	m->nsig = 0;
}

void eng_resp_free(struct eng *e, struct eng_qp *q)
{
	uint32_t i;

	if (!q->rs)
		return;
	/* Whatever it owed goes with it: uncounted, or every batch would
	 * walk the QPs for it from now on (eng_resp_flush_all()). */
	if (q->rs->listed)
		e->resp_pending--;
	for (i = 0; i < ENG_RRES; i++)
		free(q->rs->res[i].sigbuf);
	resp_msg_end(&q->rs->m);
	for (i = 0; i < ENG_RACKS; i++)
		resp_msg_end(&q->rs->dctx[i].m);
	free(q->rs);
	q->rs = NULL;
}

/* Something is owed to a requester: one acknowledgement per requester,
 * the newest replacing the older (ACKs are cumulative). */
static void resp_owe(struct eng_rstate *rs, bool dct, uint8_t syndrome,
		     uint32_t psn, uint32_t dqpn, const struct roce_l3 *l3)
{
	struct eng_rack *a = &rs->ack[0];
	uint32_t i;

	for (i = 0; dct && i < ENG_RACKS; i++) {
		a = &rs->ack[i];
		if (!a->pending || (a->slot == rs->slot && a->dqpn == dqpn))
			break;
	}
	if (i == ENG_RACKS)
		a = &rs->ack[0];
	a->pending = true;
	a->syndrome = syndrome;
	a->psn = psn;
	a->msn = rs->msn;
	a->slot = rs->slot;
	a->dqpn = dqpn;
	a->l3 = *l3;
}

static uint8_t resp_base(const struct fw_qp *qp)
{
	return qp->st == MLX5_QPC_ST_XRC ? IBP_TR_XRC : IBP_TR_RC;
}

/* A READ whose memory went between the request and its response: NAK
 * remote access, the responder QP to ERR (a DCT stays). */
static bool resp_res_fail(struct eng *e, struct eng_qp *q,
			  struct eng_rres *res)
{
	struct eng_rack *a = &q->rs->ack[0];

	res->pending = false;
	a->pending = true;
	a->syndrome = IBP_NAK_REM_ACCESS_ERR;
	a->psn = res->psn;
	a->msn = q->rs->msn;
	a->slot = res->slot;
	a->dqpn = res->dqpn;
	a->l3 = res->l3;
	if (q->qp->st != FW_QP_ST_DCT) {
		eng_async_event(e, ENG_EVT_WQ_ACCESS_ERROR, q->qp->obj.id, false,
				q->qp->obj.uid);
		eng_qp_to_err(e, q->qp);
	}
	return true;
}

/* READ response packets or the atomic ACK of one resource: false when the
 * requester's inbox is full. */
static bool resp_res_send(struct eng *e, struct eng_qp *q,
			  struct eng_rres *res)
{
	struct ibp_hdr h;
	int rc;

	if (res->op != ENG_PKT_READ) {
		memset(&h, 0, sizeof(h));
		h.opcode = resp_base(q->qp) | IBP_OP_ATOMIC_ACK;
		h.pkey = 0xffff;
		h.dqpn = res->dqpn;
		h.psn = res->psn;
		h.syndrome = IBP_AETH_KIND_ACK | IBP_AETH_CREDIT_INVALID;
		h.msn = res->msn;
		h.atomic_orig = res->orig;
		rc = eng_fabric_tx(e, res->slot, &h, &res->l3, NULL, 0, 0);
		if (!rc)
			return false;
		res->pending = false;
		return true;
	}
	for (; res->tx < res->npkts; res->tx++) {
		uint32_t k = res->tx, off = k * res->mtu, n = res->len - off;
		bool first = k == res->from, last = k + 1 == res->npkts;
		struct eng_sge s = { res->sigbuf, NULL, off, 0 };
		struct eng_sgl l = { &s, 1, 0 };

		if (n > res->mtu)
			n = res->mtu;
		memset(&h, 0, sizeof(h));
		h.opcode = resp_base(q->qp) | ibp_op_read_resp(first, last);
		h.pkey = 0xffff;
		h.dqpn = res->dqpn;
		h.psn = eng_psn_add(res->psn, k);
		h.syndrome = IBP_AETH_KIND_ACK | IBP_AETH_CREDIT_INVALID;
		h.msn = res->msn;
		h.paylen = n;
		if (n && !res->sigbuf) {
			/* The key is checked again for every packet: it
			 * may have gone since the request was granted. */
			struct fw_mkey *mk = fw_mkey_lookup(e->fw, res->rkey);
			char why[160];

			if (!mk || eng_key_check(e, res->rkey, mk->pd,
						 ENG_ACC_RR, res->va + off, n,
						 &mk, why, sizeof(why))) {
				smx_dbg("engine: qp 0x%x: READ response psn 0x%x "
					"not sent: %s", q->qp->obj.id, h.psn,
					mk ? why : "rkey gone");
				return resp_res_fail(e, q, res);
			}
			s.mk = mk;
			s.va = res->va + off;
		}
		s.len = n;
		l.len = n;
		rc = eng_fabric_tx(e, res->slot, &h, &res->l3, &l, 0, 0);
		if (!rc)
			return false;
		if (rc < 0)
			return resp_res_fail(e, q, res);	/* it faulted */
	}
	res->pending = false;
	return true;
}

/* Sends what the responder owes for @q: resource responses in PSN order,
 * then acknowledgements. false: an inbox is full (listed for a retry). */
static bool resp_flush(struct eng *e, struct eng_qp *q)
{
	struct eng_rstate *rs = q->rs;
	uint32_t i;

	for (i = 0; i < ENG_RRES; i++) {
		struct eng_rres *res = &rs->res[(rs->res_next + i) % ENG_RRES];

		if (res->pending && !resp_res_send(e, q, res))
			goto blocked;
	}
	for (i = 0; i < ENG_RACKS; i++) {
		struct eng_rack *a = &rs->ack[i];
		struct ibp_hdr h;

		if (!a->pending)
			continue;
		memset(&h, 0, sizeof(h));
		h.opcode = resp_base(q->qp) | IBP_OP_ACK;
		h.pkey = 0xffff;
		h.dqpn = a->dqpn;
		h.psn = a->psn;
		h.syndrome = a->syndrome;
		h.msn = a->msn;
		if (!eng_fabric_tx(e, a->slot, &h, &a->l3, NULL, 0, 0))
			goto blocked;
		a->pending = false;
	}
	if (rs->listed) {
		rs->listed = false;
		e->resp_pending--;
	}
	return true;
blocked:
	if (!rs->listed) {
		rs->listed = true;
		e->resp_pending++;
	}
	return false;
}

/* Positive acknowledgements owed and nothing else: they may wait for the
 * end of the batch. NAKs, READ responses and atomic results go at once. */
static bool resp_acks_only(const struct eng_rstate *rs)
{
	uint32_t i, acks = 0;

	for (i = 0; i < ENG_RRES; i++)
		if (rs->res[i].pending)
			return false;
	for (i = 0; i < ENG_RACKS; i++) {
		if (!rs->ack[i].pending)
			continue;
		if (!ibp_aeth_is_ack(rs->ack[i].syndrome))
			return false;
		acks++;
	}
	return acks != 0;
}

void eng_resp_flush_all(struct eng *e)
{
	struct eng_obj *o;

	if (!e->resp_pending)
		return;
	for (o = e->list[ENG_K_QP].next; o != &e->list[ENG_K_QP]; o = o->next) {
		struct eng_qp *q = (struct eng_qp *)o;

		if (q->rs && q->rs->listed)
			resp_flush(e, q);
	}
}

static uint8_t resp_pkt_st(uint8_t opcode)
{
	switch (opcode & 0xe0) {
	case IBP_TR_UC: return MLX5_QPC_ST_UC;
	case IBP_TR_UD: return MLX5_QPC_ST_UD;
	case IBP_TR_XRC: return MLX5_QPC_ST_XRC;
	case IBP_TR_DC: return MLX5_QPC_ST_DCI;
	default: return MLX5_QPC_ST_RC;
	}
}

static uint8_t resp_nak(uint8_t ack, uint8_t rnr_timer)
{
	switch (ack) {
	case ENG_NAK_RNR: return (uint8_t)(IBP_AETH_KIND_RNR_NAK | (rnr_timer & 0x1f));
	case ENG_NAK_INV_REQ: return IBP_NAK_INV_REQ;
	case ENG_NAK_REM_ACCESS: return IBP_NAK_REM_ACCESS_ERR;
	default: return IBP_NAK_REM_OP_ERR;
	}
}

/*
 * A connected QP takes packets from its path only, as rxe (check_addr)
 * and ConnectX do: the source address is the path's remote GID and the
 * destination the GID of its source index. A path without a remote GID
 * (no GRH given: both ends use the port's first) is not checked.
 */
static bool resp_pkt_on_path(struct eng *e, const struct fw_qp *qp,
			     const struct roce_l3 *l3)
{
	static const uint8_t zero[16];
	const uint8_t *rgid = DEVX_ADDR_OF(qpc, qp->qpc,
					   primary_address_path.rgid_rip);
	uint8_t sgid[16];

	if ((qp->st != MLX5_QPC_ST_RC && qp->st != MLX5_QPC_ST_UC &&
	     qp->st != MLX5_QPC_ST_XRC) || !memcmp(rgid, zero, 16))
		return true;
	if (memcmp(rgid, l3->sgid, 16))
		return false;
	return !fw_gid(e->fw, DEVX_GET(qpc, qp->qpc,
				       primary_address_path.src_addr_index),
		       sgid) || !memcmp(sgid, l3->dgid, 16);
}

void eng_resp_pkt(struct eng *e, const struct ibp_hdr *h,
		  const struct roce_l3 *l3, uint32_t slot, bool dreq,
		  uint32_t npkts)
{
	const struct ibp_op *op = ibp_op(h->opcode);
	struct fw_qp *qp = fw_qp_lookup(e->fw, h->dqpn);
	struct eng_sge ps = { (uint8_t *)h->payload, NULL, 0, h->paylen };
	struct eng_sgl pl = { &ps, 1, h->paylen };
	struct eng_qp *q;
	struct eng_rstate *rs;
	struct eng_pkt p;
	struct eng_resp r;
	struct roce_l3 back;
	struct eng_rmsg *m;
	bool conn, dct, first, last;
	uint32_t i;
	int32_t d;

	if (!qp || !(q = eng_qp_of(e, qp))) {
		if (eng_udp_tomb_ack(e, h, slot))
			return;	/* gone after receiving it: ACKed again */
		trn_ctr_add(e->ctr, TRN_CTR_RX_DROPPED, 1);
		smx_dbg("engine: packet %s to qp 0x%x dropped: no such QP",
			op->name, h->dqpn);
		return;
	}
	if (!resp_pkt_on_path(e, qp, l3)) {
		trn_ctr_add(e->ctr, TRN_CTR_RX_MALFORMED, 1);
		smx_dbg("engine: packet %s to qp 0x%x psn 0x%x dropped: not "
			"from the QP's path (source or destination address)",
			op->name, h->dqpn, h->psn);
		return;
	}
	if (!q->rs && !(q->rs = calloc(1, sizeof(*q->rs))))
		return;
	rs = q->rs;
	memset(&p, 0, sizeof(p));
	p.st = resp_pkt_st(h->opcode);
	p.op = op->flags & IBP_OF_SEND ? ENG_PKT_SEND :
	       op->flags & IBP_OF_WRITE ? ENG_PKT_WRITE :
	       op->flags & IBP_OF_READ_REQ ? ENG_PKT_READ :
	       (h->opcode & 0x1f) == IBP_OP_CMP_SWAP ? ENG_PKT_CMP_SWAP :
	       ENG_PKT_FETCH_ADD;
	p.flags = (uint8_t)((op->flags & IBP_OF_IMM ? ENG_PKT_F_IMM : 0) |
			    (op->flags & IBP_OF_INV ? ENG_PKT_F_INV : 0) |
			    (h->se ? ENG_PKT_F_SE : 0));
	first = op->flags & IBP_OF_FIRST;
	last = op->flags & IBP_OF_LAST;
	p.seg = (uint8_t)((first ? ENG_SEG_FIRST : 0) | (last ? ENG_SEG_LAST : 0));
#define RESP_FROM_HDR(pf, hf) p.pf = h->hf;
	ENG_PKT_HDR_FIELDS(RESP_FROM_HDR)
#undef RESP_FROM_HDR
	p.psn = h->psn;
	p.npkts = 1;
	p.ackreq = h->ackreq;
	p.src_slot = slot;
	p.sqpn = p.st == MLX5_QPC_ST_UD ? h->src_qp :
		 p.st == MLX5_QPC_ST_DCI ? h->dc_sqpn :
		 DEVX_GET(qpc, qp->qpc, remote_qpn);
	p.plen = h->paylen;
	p.payload = &pl;
	p.pkey = h->pkey;
	memcpy(p.sgid, l3->sgid, 16);
	memcpy(p.dgid, l3->dgid, 16);
	p.tclass = l3->tclass;
	p.hop_limit = l3->hop_limit;
	p.flow_label = l3->flow_label;
	if (p.op == ENG_PKT_READ) {
		uint32_t mtu = eng_mtu_bytes(DEVX_GET(qpc, qp->qpc, mtu));

		p.len = h->dma_len;
		p.npkts = p.len ? (uint32_t)(((uint64_t)p.len + mtu - 1) / mtu) : 1;
	} else if (p.op == ENG_PKT_WRITE) {
		p.len = first ? h->dma_len : 0;	/* later: the message's */
	} else if (p.op != ENG_PKT_SEND) {
		p.len = 8;
	} else {
		uint64_t mtu = eng_mtu_bytes(DEVX_GET(qpc, qp->qpc, mtu));

		/* A SEND by reference takes exactly the PSNs its packets
		 * would (one packet's length: resp_pkt_len_ok()). */
		if (!npkts || (npkts > 1 && (h->paylen > npkts * mtu ||
					     h->paylen <= (npkts - 1) * mtu))) {
			trn_ctr_add(e->ctr, TRN_CTR_RX_MALFORMED, 1);
			smx_dbg("engine: %s to qp 0x%x psn 0x%x dropped: %u "
				"payload bytes in %u PSNs at MTU %llu", op->name,
				h->dqpn, h->psn, h->paylen, npkts,
				(unsigned long long)mtu);
			return;
		}
		p.npkts = npkts;
	}
	/* Responses go back the way the request came. */
	back = *l3;
	memcpy(back.sgid, l3->dgid, 16);
	memcpy(back.dgid, l3->sgid, 16);
	rs->slot = slot;
	rs->l3 = &back;
	conn = (qp->st == MLX5_QPC_ST_RC || qp->st == MLX5_QPC_ST_XRC) &&
	       qp->st == p.st;
	dct = qp->st == FW_QP_ST_DCT;
	m = &rs->m;
	if (dct) {
		struct eng_dctx *x = NULL;

		for (i = 0; i < ENG_RACKS; i++)
			if (rs->dctx[i].used && rs->dctx[i].slot == slot &&
			    rs->dctx[i].dqpn == p.sqpn)
				x = &rs->dctx[i];
		if (!x)	/* a new initiator: the oldest one's place */
			x = &rs->dctx[rs->dctx_next++ % ENG_RACKS];
		else if (x->gen != p.dc_gen)
			x->used = false;	/* the DCI was reset */
		if (!x->used || x->slot != slot || x->dqpn != p.sqpn) {
			trn_ctr_add(e->ctr, TRN_CTR_RX_DCT_CONNECT, 1);
			resp_msg_end(&x->m);
			memset(x, 0, sizeof(*x));
			x->used = true;
			x->gen = p.dc_gen;
			x->slot = slot;
			x->dqpn = p.sqpn;
			x->last_psn = eng_psn_add(h->psn, 0xffffff);
		} else if (eng_psn_diff(h->psn, x->last_psn) <= 0) {
			/* A retransmission: answered again, not executed. */
			trn_ctr_add(e->ctr, TRN_CTR_DUPLICATE_REQUEST, 1);
			if (p.op == ENG_PKT_SEND || p.op == ENG_PKT_WRITE) {
				if (h->ackreq)
					resp_owe(rs, true, IBP_AETH_KIND_ACK |
						 IBP_AETH_CREDIT_INVALID,
						 h->psn, p.sqpn, &back);
			} else {
				resp_res_again(rs, &p, slot, true);
			}
			goto out;
		}
		x->last_psn = eng_psn_add(h->psn, p.npkts - 1);
		m = &x->m;
	}

	if (conn) {
		uint32_t expect = DEVX_GET(qpc, qp->qpc, next_rcv_psn);

		d = eng_psn_diff(h->psn, expect);
		if (d > 0) {
			/* A gap: one sequence NAK, later packets dropped
			 * until the expected one comes (go-back-N). */
			trn_ctr_add(e->ctr, TRN_CTR_OUT_OF_SEQUENCE, 1);
			if (!rs->nak_sent) {
				rs->nak_sent = true;
				resp_owe(rs, false, IBP_NAK_PSN_SEQ_ERR, expect,
					 p.sqpn, &back);
			}
			goto out;
		}
		if (d < 0) {
			trn_ctr_add(e->ctr, TRN_CTR_DUPLICATE_REQUEST, 1);
			if (p.op == ENG_PKT_SEND || p.op == ENG_PKT_WRITE) {
				if (h->ackreq)
					resp_owe(rs, false, IBP_AETH_KIND_ACK |
						 IBP_AETH_CREDIT_INVALID,
						 eng_psn_add(expect, 0xffffff),
						 p.sqpn, &back);
				goto out;
			}
			/* READ again from its resource; an atomic's saved
			 * result replayed, never executed twice. */
			resp_res_again(rs, &p, slot, false);
			goto out;
		}
		rs->nak_sent = false;
		if (first == m->active ||
		    (!first && m->op != p.op)) {
			char why[96];

			snprintf(why, sizeof(why), "%s %s a message in progress",
				 op->name, first ? "inside" : "without");
			smx_dbg("engine: qp 0x%x (responder) psn 0x%x: %s -> NAK "
				"invalid request", qp->obj.id, h->psn, why);
			resp_owe(rs, false, IBP_NAK_INV_REQ, h->psn, p.sqpn,
				 &back);
			resp_msg_end(m);
			eng_async_event(e, ENG_EVT_WQ_INVAL_REQ_ERROR, qp->obj.id,
					false, qp->obj.uid);
			eng_qp_to_err(e, qp);
			goto out;
		}
	} else if (qp->st == MLX5_QPC_ST_UC && qp->st == p.st) {
		uint32_t expect = DEVX_GET(qpc, qp->qpc, next_rcv_psn);

		/* UC: a first packet starts afresh; a gap loses the
		 * message in progress. */
		if (first) {
			resp_msg_end(m);
		} else if (!m->active || m->op != p.op ||
			   h->psn != expect) {
			resp_msg_end(m);
			trn_ctr_add(e->ctr, TRN_CTR_OUT_OF_SEQUENCE, 1);
			goto out;
		}
	} else if (dct && !first && (!m->active || m->op != p.op)) {
		goto out;
	}
	if (!first) {
		p.rkey = m->rkey;
		p.raddr = m->va;
		if (p.op == ENG_PKT_WRITE)
			p.len = m->len;
		if (p.op == ENG_PKT_SEND)
			p.len = m->off + p.plen;
	} else if (p.op == ENG_PKT_SEND) {
		p.len = p.plen;
	}

	{
		struct resp_ctx c = { .e = e, .p = &p, .r = &r, .rs = rs,
				      .m = m, .off = first ? 0 : m->off };

		memset(&r, 0, sizeof(r));
		resp_run(&c);
		if (c.sig && c.sig != m->sig) {
			/* a first packet's staged entries: kept while its
			 * message goes on (resp_scatter()) */
			if (r.ack == ENG_ACK_OK && p.op == ENG_PKT_SEND && !last) {
				m->sig = c.sig;
				m->nsig = c.nsig;
			} else {
				resp_sig_free(c.sig, c.nsig);
			}
		}
		if (r.ack == ENG_ACK_OK &&
		    (p.op == ENG_PKT_SEND || p.op == ENG_PKT_WRITE)) {
			if (first) {
				m->op = p.op;
				m->off = 0;
				m->rkey = p.rkey;
				m->va = p.raddr;
				m->len = p.len;
				m->have_wqe = c.have_wqe;
				if (c.have_wqe && !last)
					m->w = c.w;
			}
			m->off += p.plen;
			m->active = !last;
			if (last)
				resp_msg_end(m);
		} else if (r.ack != ENG_ACK_OK) {
			resp_msg_end(m);
		}
	}
	if (r.ack == ENG_ACK_DROPPED)
		goto out;
	if (r.ack != ENG_ACK_OK) {
		if (conn || dct)
			resp_owe(rs, dct, resp_nak(r.ack, r.rnr_timer), h->psn,
				 p.sqpn, &back);
		goto out;
	}
	if (conn || qp->st == MLX5_QPC_ST_UC)
		DEVX_SET(qpc, qp->qpc, next_rcv_psn,
			 eng_psn_add(h->psn, p.npkts));
	if (last || p.op == ENG_PKT_READ || p.op == ENG_PKT_CMP_SWAP ||
	    p.op == ENG_PKT_FETCH_ADD)
		rs->msn = (rs->msn + 1) & 0xffffff;
	if (p.op == ENG_PKT_SEND || p.op == ENG_PKT_WRITE) {
		if ((conn || dct) && h->ackreq)
			resp_owe(rs, dct, IBP_AETH_KIND_ACK | IBP_AETH_CREDIT_INVALID,
				 eng_psn_add(h->psn, p.npkts - 1), p.sqpn,
				 &back);
	} else {
		rs->res[(rs->res_next + ENG_RRES - 1) % ENG_RRES].msn = rs->msn;
	}
	switch (p.op) {
	case ENG_PKT_READ: trn_ctr_add(e->ctr, TRN_CTR_RX_READ_REQUESTS, 1); break;
	case ENG_PKT_WRITE: trn_ctr_add(e->ctr, TRN_CTR_RX_WRITE_REQUESTS, last); break;
	case ENG_PKT_SEND: break;
	default: trn_ctr_add(e->ctr, TRN_CTR_RX_ATOMIC_REQUESTS, 1); break;
	}
	if (dreq && p.op == ENG_PKT_SEND)
		eng_drq_record(e, slot, qp, p.sqpn);
	else if (dreq)
		eng_fabric_drec(e, slot, p.op, p.dqpn, p.rkey);
out:
	rs->l3 = NULL;
	if (resp_acks_only(rs)) {
		/* Coalesced: the batch's end (eng_resp_flush_all()) sends
		 * the newest, which acknowledges every PSN before it too. */
		if (!rs->listed) {
			rs->listed = true;
			e->resp_pending++;
		}
		return;
	}
	resp_flush(e, q);
}
