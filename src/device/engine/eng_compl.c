/* SPDX-License-Identifier: MIT */
/*
 * The completer: responses from another process (ACK, NAK, RNR NAK, atomic
 * ACK, READ response packets) matched by PSN to the requests in flight
 * (struct eng_out, eng_sq.c), as IBTA 9.7.5.1 describes.
 *
 *   FIND       the request whose PSN range holds the response's PSN; none:
 *              a stale or duplicate response, dropped (counted).
 *   ACK        cumulative: every SEND / WRITE whose last PSN is at or
 *              before it is done. A READ or atomic it passes that has no
 *              answer yet is an implied NAK: it is sent again (go-back-N).
 *   NAK        requests before the NAK'd PSN are done. A sequence NAK
 *              resends from the NAK'd request (a retry: retry_cnt); RNR and
 *              the error NAKs answer the NAK'd request (eng_sq_exec).
 *   READ RESP  in PSN order only: FIRST / MIDDLE carry exactly one MTU,
 *              LAST / ONLY the rest; the data lands in the WQE's scatter
 *              list at once and restarts the ACK timer. A gap asks again
 *              for the rest of the message from the first missing PSN
 *              (once per gap; a lost last response waits for the timer,
 *              whose go-back also asks only for the rest); a duplicate is
 *              dropped.
 *   ATOMIC ACK the atomic at its PSN is answered with the original value.
 *
 * The oldest answered request completes in order when eng_sq_run() next
 * runs the QP (the returned QP, under fw->lock).
 */
#include <string.h>

#include "device/engine/eng_loc.h"
#include "device/transport/counters.h"
#include "device/transport/ib_pkt.h"
#include "util/log.h"

static bool compl_rd(const struct eng_out *o)
{
	return o->op != ENG_PKT_SEND && o->op != ENG_PKT_WRITE;
}

static void compl_answer(struct eng_out *o, uint8_t ack, uint8_t timer,
			 uint64_t orig)
{
	o->have_resp = true;
	o->resp.ack = ack;
	o->resp.rnr_timer = timer;
	o->resp.atomic_orig = orig;
}

/*
 * A sequence NAK, or an implied one, for request @o at PSN @psn: stale if
 * the oldest request already went back for a NAK from a PSN at or after
 * @psn -- the responder sent it before it saw that resend (one NAK per
 * gap: a later gap names a later PSN). The resend's own answer, or the
 * timer, decides instead, and no second retry is spent on one loss.
 */
static bool compl_nak_stale(struct eng *e, struct eng_qp *q,
			    const struct eng_out *o, uint32_t psn)
{
	if (!q->nak_retry || o != eng_out_at(q, 0) ||
	    eng_psn_diff(psn, q->nak_retry_psn) > 0)
		return false;
	trn_ctr_add(e->ctr, TRN_CTR_DUPLICATE_RESPONSE, 1);
	smx_dbg("engine: qp 0x%x: NAK of psn 0x%x ignored: already resent "
		"from psn 0x%x", q->qp->obj.id, psn, q->nak_retry_psn);
	return true;
}

/* An ACK passed READ or atomic @o that has no answer: an implied NAK,
 * unless stale. */
static void compl_implied_nak(struct eng *e, struct eng_qp *q,
			      struct eng_out *o)
{
	if (compl_nak_stale(e, q, o, o->psn))
		return;
	trn_ctr_add(e->ctr, TRN_CTR_IMPLIED_NAK_SEQ_ERR, 1);
	compl_answer(o, ENG_NAK_SEQ, 0, 0);
}

/* Requests before index @n are acknowledged; one that needed its own
 * answer (READ, atomic) and lacks it is an implied NAK (false). @earlier:
 * the ACK covers them as sent before a go-back, even those not wholly
 * sent again yet. */
static bool compl_ack_upto(struct eng *e, struct eng_qp *q, uint32_t n,
			   bool earlier)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct eng_out *o = eng_out_at(q, i);

		if (o->have_resp)
			continue;
		if (compl_rd(o)) {
			compl_implied_nak(e, q, o);
			return false;
		}
		if (earlier || o->sent == o->npkts)
			compl_answer(o, ENG_ACK_OK, 0, 0);
	}
	return true;
}

static uint8_t compl_nak_code(uint8_t syndrome)
{
	switch (syndrome) {
	case IBP_NAK_PSN_SEQ_ERR: return ENG_NAK_SEQ;
	case IBP_NAK_INV_REQ: return ENG_NAK_INV_REQ;
	case IBP_NAK_REM_ACCESS_ERR: return ENG_NAK_REM_ACCESS;
	default: return ENG_NAK_REM_OP;
	}
}

/*
 * An error NAK (invalid request, remote access, remote operational) for a
 * request sent before a go-back and not sent again yet: the responder's
 * QP went to error with it and will answer the resend with nothing, so it
 * must not be lost. Kept (eng_qp.late_nak) and applied to the request
 * when it is in flight again (eng_compl_late()). True if @h was one.
 */
static bool compl_late_nak(struct eng_qp *q, const struct ibp_hdr *h)
{
	uint32_t kind = h->syndrome & IBP_AETH_KIND_MASK;

	if (!q->resending || kind == IBP_AETH_KIND_ACK ||
	    kind == IBP_AETH_KIND_RNR_NAK ||
	    h->syndrome == IBP_NAK_PSN_SEQ_ERR ||
	    eng_psn_diff(h->psn, q->wqe_psn) < 0 ||
	    eng_psn_diff(h->psn, q->resend_end) >= 0)
		return false;
	if (q->late_nak && eng_psn_diff(h->psn, q->late_nak_psn) >= 0)
		return true;	/* an older one decides first */
	q->late_nak = true;
	q->late_nak_psn = h->psn;
	q->late_nak_ack = compl_nak_code(h->syndrome);
	smx_dbg("engine: qp 0x%x: NAK psn 0x%x for a request not sent again "
		"yet: kept for it", h->dqpn, h->psn);
	return true;
}

void eng_compl_late(struct eng_qp *q, struct eng_out *o)
{
	if (q->late_nak && !o->have_resp &&
	    eng_psn_diff(q->late_nak_psn, o->psn) >= 0 &&
	    (uint32_t)eng_psn_diff(q->late_nak_psn, o->psn) < o->npkts) {
		compl_answer(o, q->late_nak_ack, 0, 0);
		q->late_nak = false;
	}
}

/*
 * After a go-back the window holds what went out again so far, but every
 * PSN before resend_end was sent once: the responder may acknowledge any
 * of them (a duplicate is re-ACKed with the last PSN it received). Such an
 * ACK, past every request in flight, covers all of them -- an unanswered
 * READ or atomic among them is an implied NAK. True if @h was one.
 */
static bool compl_ack_resent(struct eng *e, struct eng_qp *q,
			     const struct ibp_hdr *h, uint32_t slot)
{
	const struct ibp_op *op = ibp_op(h->opcode);
	struct eng_out *last;

	if (!q->resending || !q->nout || eng_out_at(q, 0)->slot != slot ||
	    !op || (op->flags & (IBP_OF_READ_RESP | IBP_OF_ATOMIC_ACK)) ||
	    (h->syndrome & IBP_AETH_KIND_MASK) != IBP_AETH_KIND_ACK)
		return false;
	last = eng_out_at(q, q->nout - 1u);
	if (eng_psn_diff(h->psn, eng_psn_add(last->psn, last->npkts)) < 0 ||
	    eng_psn_diff(h->psn, q->resend_end) >= 0)
		return false;
	eng_sq_heard(e, q);
	compl_ack_upto(e, q, q->nout, true);
	return true;
}

struct eng_qp *eng_compl_pkt(struct eng *e, const struct ibp_hdr *h,
			     uint32_t slot)
{
	struct fw_qp *qp = fw_qp_lookup(e->fw, h->dqpn);
	struct eng_qp *q = qp ? qp->eng : NULL;
	const struct ibp_op *op = ibp_op(h->opcode);
	struct eng_out *o = NULL;
	uint32_t i, mtu, kind;
	const char *why;

	if (!q || (qp->st != MLX5_QPC_ST_RC && qp->st != MLX5_QPC_ST_XRC &&
		   qp->st != MLX5_QPC_ST_DCI)) {
		why = "no requester QP";
		goto drop;
	}
	if (qp->state != MLX5_QPC_STATE_RTS && qp->state != MLX5_QPC_STATE_SQD) {
		why = "QP not sending";
		goto drop;
	}
	for (i = 0; i < q->nout; i++) {
		struct eng_out *x = eng_out_at(q, i);
		int32_t d = eng_psn_diff(h->psn, x->psn);

		if (d >= 0 && (uint32_t)d < x->npkts) {
			o = x;
			break;
		}
	}
	if (!o && compl_ack_resent(e, q, h, slot))
		return eng_out_at(q, 0)->have_resp ? q : NULL;
	if (!o && (!q->nout || eng_out_at(q, 0)->slot == slot) &&
	    compl_late_nak(q, h))
		return NULL;
	if (!o) {
		smx_dbg("engine: qp 0x%x: response psn 0x%x (%s) ignored: PSN "
			"of no request in flight (%u in flight from psn 0x%x, "
			"next 0x%x)", h->dqpn, h->psn, op ? op->name : "?",
			q->nout, q->nout ? eng_out_at(q, 0)->psn : 0,
			DEVX_GET(qpc, qp->qpc, next_send_psn));
		trn_ctr_add(e->ctr, TRN_CTR_DUPLICATE_RESPONSE, 1);
		return NULL;
	}
	if (o->slot != slot) {
		why = "from another process than the request went to";
		goto drop;
	}
	eng_sq_heard(e, q);
	mtu = eng_mtu_bytes(DEVX_GET(qpc, qp->qpc, mtu));
	kind = h->syndrome & IBP_AETH_KIND_MASK;

	if (op->flags & IBP_OF_READ_RESP) {
		uint32_t k = (uint32_t)eng_psn_diff(h->psn, o->psn);
		uint32_t want = o->op == ENG_PKT_READ && k + 1 == o->npkts ?
				o->len - k * mtu : mtu;
		bool first = op->flags & IBP_OF_FIRST, last = op->flags & IBP_OF_LAST;

		if (!compl_ack_upto(e, q, i, false))
			return q;
		if (o->op != ENG_PKT_READ || o->have_resp) {
			why = o->have_resp ? "READ already answered" :
			      "READ response to a request that is no READ";
			goto stale;
		}
		if (k > o->rd_next && !o->rd_retry) {
			/* A response is missing: ask again from it without
			 * waiting for the timer -- once, until a response
			 * arrives in order again (the rest of the stream
			 * that revealed the gap comes after a gap too). */
			trn_ctr_add(e->ctr, TRN_CTR_OUT_OF_SEQUENCE, 1);
			o->rd_reask = o->rd_retry = true;
			smx_dbg("engine: qp 0x%x: READ response psn 0x%x "
				"after a gap: asking again from psn 0x%x",
				h->dqpn, h->psn, eng_psn_add(o->psn, o->rd_next));
			return q;
		}
		if (k != o->rd_next) {
			why = k < o->rd_next ? "duplicate READ response" :
			      "READ response after a gap";
			goto stale;
		}
		/* FIRST where a request asked from (the start, or a
		 * re-request's PSN); MIDDLE of an older request's stream may
		 * still arrive there too. */
		if ((first && k != 0 && k != o->rd_from) || (!first && k == 0) ||
		    last != (k + 1 == o->npkts) ||
		    h->paylen != want ||
		    ((first || last) && kind != IBP_AETH_KIND_ACK)) {
			why = "READ response of the wrong kind or length";
			goto drop;
		}
		if (h->paylen &&
		    !eng_sq_land_at(e, q, o->at, (uint64_t)k * mtu, h->payload,
				    h->paylen)) {
			compl_answer(o, ENG_ACK_LOCAL_PROT, 0, 0);
			return q;
		}
		o->rd_next++;
		o->rd_retry = false;
		if (o == eng_out_at(q, 0))
			eng_sq_progress(e, q);
		if (last)
			compl_answer(o, ENG_ACK_OK, 0, 0);
		return o == eng_out_at(q, 0) && o->have_resp ? q : NULL;
	}
	if (op->flags & IBP_OF_ATOMIC_ACK) {
		if (!compl_ack_upto(e, q, i, false))
			return q;
		if ((o->op != ENG_PKT_CMP_SWAP && o->op != ENG_PKT_FETCH_ADD) ||
		    kind != IBP_AETH_KIND_ACK) {
			why = "atomic ACK to a request that is no atomic";
			goto drop;
		}
		if (!o->have_resp)
			compl_answer(o, ENG_ACK_OK, 0, h->atomic_orig);
		return eng_out_at(q, 0)->have_resp ? q : NULL;
	}
	/* ACK / NAK */
	if (kind == IBP_AETH_KIND_ACK) {
		int32_t d = eng_psn_diff(h->psn, o->psn);

		if (!compl_ack_upto(e, q, i, false))
			return q;
		/* This request too, if the ACK covers its last packet. */
		if (!o->have_resp && (uint32_t)d + 1 == o->npkts &&
		    o->sent == o->npkts) {
			if (compl_rd(o)) {
				compl_implied_nak(e, q, o);
			} else {
				compl_answer(o, ENG_ACK_OK, 0, 0);
			}
		}
		return eng_out_at(q, 0)->have_resp ? q : NULL;
	}
	if (!compl_ack_upto(e, q, i, false))
		return q;
	if (o->have_resp)
		return eng_out_at(q, 0)->have_resp ? q : NULL;
	if (kind == IBP_AETH_KIND_RNR_NAK) {
		compl_answer(o, ENG_NAK_RNR, h->syndrome & 0x1f, 0);
	} else {
		if (h->syndrome == IBP_NAK_PSN_SEQ_ERR) {
			int32_t k = eng_psn_diff(h->psn, o->psn);

			trn_ctr_add(e->ctr, TRN_CTR_PACKET_SEQ_ERR, 1);
			if (compl_nak_stale(e, q, o, h->psn))
				return NULL;
			/* The packets before the one it names arrived: the
			 * go-back resends from there, as rxe's req_retry()
			 * does, not the whole message. */
			if ((o->op == ENG_PKT_SEND || o->op == ENG_PKT_WRITE) &&
			    k > 0 && (uint32_t)k < o->sent) {
				o->nak_k = (uint32_t)k;
				/* Forward progress in the oldest request (a
				 * NAK after an earlier one names a later
				 * packet): its retries count afresh, as READ
				 * responses make them (eng_sq_progress()). */
				if (o == eng_out_at(q, 0))
					q->retry_left = (uint8_t)DEVX_GET(qpc,
						qp->qpc, retry_count);
			}
		}
		compl_answer(o, compl_nak_code(h->syndrome), 0, 0);
	}
	return eng_out_at(q, 0)->have_resp ? q : NULL;
stale:
	trn_ctr_add(e->ctr, TRN_CTR_DUPLICATE_RESPONSE, 1);
	smx_dbg("engine: qp 0x%x: response psn 0x%x (%s) ignored: %s", h->dqpn,
		h->psn, op ? op->name : "?", why);
	return NULL;
drop:
	trn_ctr_add(e->ctr, TRN_CTR_RX_MALFORMED, 1);
	smx_dbg("engine: qp 0x%x: response psn 0x%x (%s) dropped: %s", h->dqpn,
		h->psn, op ? op->name : "?", why);
	return NULL;
}
