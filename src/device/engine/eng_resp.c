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
 * RC responder without per-initiator PSN state (every message stands
 * alone). CHK_QP checks the DC access key: a mismatch counts a violation,
 * raises the DCT key violation event once armed (ARM_DCT_FOR_KEY_VIOLATION)
 * and is NAKed as a remote access error. Receives come from the DCT's SRQ,
 * complete on its CQ, and keys are checked in the DCT's PD. A DCT serves
 * many initiators: errors are NAKed (and receive errors completed) but never
 * move it to ERR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/engine/eng_loc.h"
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

static bool resp_connected(uint32_t st)
{
	return st == MLX5_QPC_ST_RC || st == MLX5_QPC_ST_XRC ||
	       st == FW_QP_ST_DCT;
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
	if (qp->state != MLX5_QPC_STATE_RTR && qp->state != MLX5_QPC_STATE_RTS &&
	    qp->state != MLX5_QPC_STATE_SQD && qp->state != MLX5_QPC_STATE_SQER) {
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

	if (c->qp->st == MLX5_QPC_ST_UD)
		return RESP_CHK_OP;
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

static enum resp_state resp_chk_op(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	const uint8_t *q = c->qp->qpc;
	uint32_t st = c->qp->st;
	uint32_t log_msg = DEVX_GET(qpc, q, log_msg_max);

	switch (p->op) {
	case ENG_PKT_SEND:
		break;
	case ENG_PKT_WRITE:
		if (st == MLX5_QPC_ST_UD)
			goto bad_op;
		if (!DEVX_GET(qpc, q, rwe)) {
			snprintf(c->why, sizeof(c->why), "qp 0x%x does not allow "
				 "remote write (rwe 0)", c->qp->obj.id);
			return RESP_ERR_ACCESS;
		}
		break;
	case ENG_PKT_READ:
		if (!resp_connected(st))
			goto bad_op;
		if (!DEVX_GET(qpc, q, rre)) {
			snprintf(c->why, sizeof(c->why), "qp 0x%x does not allow "
				 "remote read (rre 0)", c->qp->obj.id);
			return RESP_ERR_ACCESS;
		}
		break;
	case ENG_PKT_CMP_SWAP:
	case ENG_PKT_FETCH_ADD:
		if (!resp_connected(st))
			goto bad_op;
		if (!DEVX_GET(qpc, q, rae)) {
			snprintf(c->why, sizeof(c->why), "qp 0x%x does not allow "
				 "atomics (rae 0)", c->qp->obj.id);
			return RESP_ERR_ACCESS;
		}
		if (p->raddr & 7) {
			snprintf(c->why, sizeof(c->why), "atomic address 0x%llx "
				 "is not 8-byte aligned",
				 (unsigned long long)p->raddr);
			return RESP_ERR_INV_REQ;
		}
		break;
	default:
		goto bad_op;
	}
	if (st == MLX5_QPC_ST_UD) {
		if (p->len > 4096u) {
			snprintf(c->why, sizeof(c->why), "UD message of %u bytes "
				 "above the MTU", p->len);
			return RESP_DROP;
		}
	} else if (log_msg && log_msg < 32 && p->len > (1ull << log_msg)) {
		snprintf(c->why, sizeof(c->why), "message of %u bytes above "
			 "2^log_msg_max (%u)", p->len, log_msg);
		return RESP_ERR_INV_REQ;
	}
	return RESP_CHK_RKEY;
bad_op:
	snprintf(c->why, sizeof(c->why), "operation %u is not valid on qp "
		 "0x%x of type %u", p->op, c->qp->obj.id, st);
	return RESP_ERR_INV_REQ;
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
	if (!eng_rq_take(c->e, c->qp, c->srq, &c->w)) {
		snprintf(c->why, sizeof(c->why), "qp 0x%x: no receive WQE "
			 "posted%s", c->qp->obj.id, c->srq ? " (srq)" : "");
		return RESP_RNR;
	}
	c->have_wqe = true;
	return RESP_EXECUTE;
}

static bool gid_is_v4(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return !memcmp(g, pfx, 12);
}

/* The 40 bytes a UD receive starts with: a GRH, or for RoCEv2 over IPv4 the
 * IPv4 header in its last 20 bytes (what ibv_init_ah_from_wc expects). */
static void resp_build_grh(uint8_t grh[40], const struct eng_pkt *p,
			   bool eth)
{
	/* UDP 8 + BTH 12 + DETH 8 + payload + ICRC 4 */
	uint32_t l4 = 8 + 12 + 8 + p->len + 4;

	memset(grh, 0, 40);
	if (eth && gid_is_v4(p->sgid) && gid_is_v4(p->dgid)) {
		uint8_t *ip = grh + 20;
		uint32_t sum = 0;
		uint16_t v;
		int i;

		ip[0] = 0x45;
		ip[1] = p->tclass;
		v = htobe16((uint16_t)(20 + l4));
		memcpy(ip + 2, &v, 2);
		v = htobe16(0x4000);	/* don't fragment */
		memcpy(ip + 6, &v, 2);
		ip[8] = p->hop_limit;
		ip[9] = 17;		/* UDP */
		memcpy(ip + 12, p->sgid + 12, 4);
		memcpy(ip + 16, p->dgid + 12, 4);
		for (i = 0; i < 20; i += 2)
			sum += (uint32_t)ip[i] << 8 | ip[i + 1];
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		v = htobe16((uint16_t)~sum);
		memcpy(ip + 10, &v, 2);
	} else {
		uint32_t w = 6u << 28 | (uint32_t)p->tclass << 20 |
			     (p->flow_label & 0xfffff);
		uint16_t v;

		w = htobe32(w);
		memcpy(grh, &w, 4);
		v = htobe16((uint16_t)(eth ? l4 : l4 - 8));
		memcpy(grh + 4, &v, 2);
		grh[6] = eth ? 17 : 0x1b;	/* UDP, or IB's BTH */
		grh[7] = p->hop_limit;
		memcpy(grh + 8, p->sgid, 16);
		memcpy(grh + 24, p->dgid, 16);
	}
}

/* The receive WQE's scatter list, checked; false (state set) on failure. */
static enum resp_state resp_scatter(struct resp_ctx *c, struct eng_sgl *l,
				    struct eng_sge *sge)
{
	uint32_t i;

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
		if (eng_xform(mk)) {
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

/* RDMA WRITE into / READ out of a signature key: through a buffer in the
 * wire format, moved like any other. */
static enum resp_state resp_sig_rdma(struct resp_ctx *c, bool write)
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
	if (write) {
		if (p->rpay ? !eng_rmem_xfer(&hl, 0, p->rpay, p->len, false) :
			      eng_sgl_copy(&hl, 0, p->payload, 0, p->len) != p->len) {
			snprintf(c->why, sizeof(c->why), "the sender's %u bytes "
				 "could not be read", p->len);
			st = RESP_ERR_ACCESS;
		} else if (eng_sig_write(c->mk, p->raddr, p->len, buf, &se)) {
			snprintf(c->why, sizeof(c->why), "rkey 0x%x: %s", p->rkey,
				 se.why);
			st = RESP_ERR_ACCESS;
		}
	} else {
		if (eng_sig_read(c->mk, p->raddr, p->len, buf, &se)) {
			snprintf(c->why, sizeof(c->why), "rkey 0x%x: %s", p->rkey,
				 se.why);
			st = RESP_ERR_ACCESS;
		} else if (p->rrdata) {
			if (!eng_rmem_xfer(&hl, 0, p->rrdata, p->len, true)) {
				snprintf(c->why, sizeof(c->why), "READ data could "
					 "not be written to pid %d",
					 (int)p->rrdata->pid);
				st = RESP_ERR_ACCESS;
			}
		} else if (p->rdata &&
			   eng_sgl_copy(p->rdata, 0, &hl, 0, p->len) != p->len) {
			char f[96];

			snprintf(c->why, sizeof(c->why), "READ data could not be "
				 "placed: %s", eng_fault_why(f, sizeof(f)));
			st = RESP_ERR_ACCESS;
		}
	}
	if (se.set)
		resp_sig_report(c, c->mk, &se);
	free(buf);
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
		uint64_t need = p->len, at = 0;
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
		if (p->len && p->rpay &&
		    !eng_rmem_xfer(&l, at, p->rpay, p->len, false)) {
			snprintf(c->why, sizeof(c->why), "the sender's %u bytes "
				 "could not be read (pid %d)", p->len,
				 (int)p->rpay->pid);
			return RESP_ERR_RECV_PROT;
		}
		if (p->len && !p->rpay &&
		    eng_sgl_copy(&l, at, p->payload, 0, p->len) != p->len)
			return resp_recv_fault(c);
		if (c->nsig && !resp_sig_commit(c, at + p->len))
			return RESP_ERR_RECV_PROT;
		return RESP_COMPLETE;
	}
	case ENG_PKT_WRITE:
		if (p->len && c->rsig)
			return resp_sig_rdma(c, true);
		if (p->len) {
			one.mk = c->mk;
			one.va = p->raddr;
			one.len = p->len;
			remote.len = p->len;
			if (p->rpay) {
				if (!eng_rmem_xfer(&remote, 0, p->rpay, p->len,
						   false)) {
					snprintf(c->why, sizeof(c->why), "the "
						 "sender's %u bytes could not be "
						 "read (pid %d)", p->len,
						 (int)p->rpay->pid);
					return RESP_ERR_ACCESS;
				}
			} else if (eng_sgl_copy(&remote, 0, p->payload, 0,
						p->len) != p->len) {
				return resp_rkey_fault(c, "WRITE into");
			}
		}
		return RESP_COMPLETE;
	case ENG_PKT_READ:
		if (p->len && c->rsig)
			return resp_sig_rdma(c, false);
		if (p->len) {
			one.mk = c->mk;
			one.va = p->raddr;
			one.len = p->len;
			remote.len = p->len;
			if (p->rrdata) {
				if (!eng_rmem_xfer(&remote, 0, p->rrdata, p->len,
						   true)) {
					snprintf(c->why, sizeof(c->why), "READ "
						 "data could not be written to "
						 "pid %d", (int)p->rrdata->pid);
					return RESP_ERR_ACCESS;
				}
			} else if (p->rdata &&
				   eng_sgl_copy(p->rdata, 0, &remote, 0,
						p->len) != p->len) {
				return resp_rkey_fault(c, "READ from");
			}
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

static enum resp_state resp_complete(struct resp_ctx *c)
{
	const struct eng_pkt *p = c->p;
	struct fw_qp *qp = c->qp;

	if (qp->st != MLX5_QPC_ST_UD && qp->st != FW_QP_ST_DCT && !c->dup)
		DEVX_SET(qpc, qp->qpc, next_rcv_psn,
			 eng_psn_add(p->psn, p->npkts));
	if (c->have_wqe && resp_cq(c)) {
		struct eng_cqe cqe = {
			.qpn = qp->obj.id,
			.wqe_counter = c->w.index,
			.byte_cnt = p->len,
			.flags_rqpn = p->sqpn & 0xffffff,
			.srqn_uidx = resp_srqn_uidx(c),
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
			bool v4 = gid_is_v4(p->sgid) && gid_is_v4(p->dgid);
			bool eth = fw_config(c->e->fw)->link_layer == SMX_LINK_ETH;

			cqe.byte_cnt += 40;
			/* g (GRH present); RoCE: L3 type 2 = IPv4, 1 = IPv6 */
			cqe.flags_rqpn |= 1u << 28;
			if (eth)
				cqe.flags_rqpn |= (v4 ? 2u : 1u) << 24;
		}
		eng_cqe_post(c->e, resp_cq(c), &cqe);
	}
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
	struct resp_ctx c = { .e = e, .p = p, .r = r };
	uint32_t i;

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
			rc = resp_connected(c->qp->st);
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
		rc = resp_connected(c->qp->st);
		switch (s) {
		case RESP_ERR_INV_REQ:
			if (c->have_wqe)
				resp_fail_wqe(c, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
			else if (rc)
				resp_fail_event(c, ENG_EVT_WQ_INVAL_REQ_ERROR);
			r->ack = rc ? ENG_NAK_INV_REQ : ENG_ACK_DROPPED;
			break;
		case RESP_ERR_ACCESS:
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
