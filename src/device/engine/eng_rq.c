/* SPDX-License-Identifier: MIT */
/*
 * Receive WQEs.
 *
 * Regular RQ: WQE i at byte (i % size) * stride of the QP buffer (the RQ comes
 * first), an array of data segments ended by one whose lkey is
 * MLX5_INVALID_LKEY (or by the end of the stride); the producer is the low 16
 * bits of dbrec[0]. CQEs carry the 16-bit WQE counter i, as for SQs.
 *
 * SRQ (and XRC SRQ / RMP): each WQE starts with a 16-byte "next" segment
 * whose next_wqe_index links the free list the driver keeps; the device
 * starts at index 0 and, after taking WQE i, continues at i's next_wqe_index.
 * The producer is the 16-bit WQE counter in dbrec[0]. The CQE names the
 * index taken (wqe_counter) so the driver can put it back on its list.
 * A cyclic RMP takes WQE n from slot n % size and ignores next_wqe_index;
 * with basic cyclic WQEs there is no next segment at all. An RMP in ERR hands out nothing. RMPs serve QPs (through
 * here) and Ethernet RQs (eng_eth.c, through eng_rq_take with no QP).
 */
#include <string.h>

#include "device/engine/eng_loc.h"
#include "device/trace.h"
#include "util/log.h"

void eng_rwqe_parse(struct eng_rwqe *w, const uint8_t *p, uint32_t len)
{
	uint32_t off;

	w->nseg = 0;
	for (off = 0; off + 16 <= len && w->nseg < ENG_MAX_SGE; off += 16) {
		const struct mlx5_wqe_data_seg *d = (const void *)(p + off);

		if (be32toh(d->lkey) == MLX5_INVALID_LKEY)
			break;
		w->seg[w->nseg++] = *d;
	}
}

bool eng_rq_take(struct eng *e, struct fw_qp *qp, struct fw_srq *srq,
		 struct eng_rwqe *w)
{
	uint8_t body[1024] __attribute__((aligned(16)));
	const uint8_t *p;

	if (srq) {
		struct eng_srq *s = eng_srq_of(e, srq);
		uint32_t size = 1u << srq->log_size;
		uint32_t stride = srq->buf.stride;
		uint16_t counter;

		if (!s || !srq->dbrec || (srq->kind == FW_SRQ_RMP &&
					  srq->state != MLX5_RMPC_STATE_RDY))
			return false;
		counter = (uint16_t)be32toh(__atomic_load_n(&srq->dbrec[0],
							    __ATOMIC_ACQUIRE));
		if (counter == s->consumed)
			return false;
		p = fw_buf_addr(&srq->buf, (uint64_t)s->head * stride);
		if (!p || stride > sizeof(body) || stride < 16)
			return false;
		memcpy(body, p, stride);
		w->srq = srq;
		w->index = s->head;
		s->consumed++;
		if (srq->cyclic)
			s->head = s->consumed & (size - 1);
		else
			s->head = be16toh(((const struct mlx5_wqe_srq_next_seg *)
					   body)->next_wqe_index) & (size - 1);
		if (srq->basic)
			eng_rwqe_parse(w, body, stride);
		else
			eng_rwqe_parse(w, body + 16, stride - 16);
		if (smx_trace_on(SMX_TR_WQE))
			smx_trace_rwqe_log(qp ? qp->obj.id : 0, srq->obj.id, w->index,
					   body, stride, !srq->basic);
		eng_srq_limit_check(e, srq);
		return true;
	} else {
		struct eng_qp *q = eng_qp_of(e, qp);
		uint16_t pi;

		if (!q || !qp->rq_wqes || !qp->dbrec)
			return false;
		/* A queue lent to the peer (eng_drq.c): what it placed is
		 * completed first, and the WQE is claimed from it. */
		if (q->drq_on)
			eng_drq_collect(e, q);
		pi = (uint16_t)be32toh(__atomic_load_n(&qp->dbrec[0],
						       __ATOMIC_ACQUIRE));
		/* The CQE names the WQE by the 16-bit counter, not the slot:
		 * UCX's ud_mlx5 checks it against its own count. */
		if (pi == q->rq_ci || !eng_rq_peek(qp, q->rq_ci, w) ||
		    (q->drq_on && !eng_drq_claim(e, q)))
			return false;
		q->rq_ci++;
		/* (its data segments as posted, copied by eng_rq_peek()) */
		if (smx_trace_on(SMX_TR_WQE))
			smx_trace_rwqe_log(qp->obj.id, 0, w->index,
					   (const uint8_t *)w->seg,
					   (size_t)w->nseg * sizeof(w->seg[0]), false);
		return true;
	}
}

bool eng_rq_peek(const struct fw_qp *qp, uint16_t index, struct eng_rwqe *w)
{
	uint8_t body[1024] __attribute__((aligned(16)));
	const uint8_t *p;

	if (!qp->rq_wqes || qp->rq_stride > sizeof(body))
		return false;
	p = fw_buf_addr(&qp->buf, (uint64_t)(index & (qp->rq_wqes - 1)) *
				  qp->rq_stride);
	if (!p)
		return false;
	memcpy(body, p, qp->rq_stride);
	w->srq = NULL;
	w->index = index;
	eng_rwqe_parse(w, body, qp->rq_stride);
	return true;
}

void eng_srq_limit_check(struct eng *e, struct fw_srq *srq)
{
	struct eng_srq *s = srq->eng;
	uint16_t counter, avail;

	if (!s || !srq->armed || !srq->dbrec)
		return;
	counter = (uint16_t)be32toh(__atomic_load_n(&srq->dbrec[0],
						    __ATOMIC_ACQUIRE));
	avail = (uint16_t)(counter - s->consumed);
	if (avail < srq->lwm) {
		srq->armed = false;
		eng_async_event(e, ENG_EVT_SRQ_RQ_LIMIT, srq->obj.id, true,
				srq->obj.uid);
	}
}

void eng_rq_flush(struct eng *e, struct eng_qp *q)
{
	struct fw_qp *qp = q->qp;
	uint16_t pi;

	if (!qp->rq_wqes || !qp->dbrec || !qp->rcq)
		return;
	/* Taken back from the peer first: what it placed completes
	 * before the rest is flushed. */
	eng_drq_close(e, q, false);
	pi = (uint16_t)be32toh(__atomic_load_n(&qp->dbrec[0], __ATOMIC_ACQUIRE));
	while (q->rq_ci != pi) {
		struct eng_cqe c = {
			.opcode = MLX5_CQE_RESP_ERR,
			.syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
			.qpn = qp->obj.id,
			.wqe_counter = q->rq_ci,
			.srqn_uidx = DEVX_GET(qpc, qp->qpc, user_index),
		};

		eng_cqe_post(e, qp->rcq, &c);
		q->rq_ci++;
	}
}
