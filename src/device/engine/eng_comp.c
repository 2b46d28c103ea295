/* SPDX-License-Identifier: MIT */
/*
 * Completions and events, in the PRM formats the driver parses:
 *
 * CQE (struct mlx5_cqe64; the second half of a 128-byte CQE). The entry at
 * producer counter pi lives at index pi & (size - 1); its owner bit (op_own
 * bit 0) is (pi >> log_size) & 1, so software, which initialised op_own to
 * 0xf0 and accepts a CQE when opcode != INVALID and owner == !!(ci & size),
 * sees each pass of the ring in turn. Everything but op_own is stored first,
 * then op_own with release order. Before writing, the consumer index in the
 * doorbell record (dbrec[0], 24 bits) is compared with pi: a full CQ is an
 * overrun -- the CQE is dropped, the CQ is in error and a CQ error event
 * (syndrome 1, overrun) is raised -- unless cqc.oi (overrun ignore) is set.
 *
 * Arming (CQ doorbell 0x20 or the arm record dbrec[1]: sn << 28 | cmd << 24 |
 * ci): cmd 0 requests an event for the next CQE, 1 for the next solicited or
 * error CQE. Like the hardware, arming when CQEs beyond the given consumer
 * index already exist fires at once (cmd 0; for cmd 1 only new solicited CQEs
 * count). An event disarms the CQ. Every CQE write first looks at the arm
 * record, so an arm written before the CQE counts even if its UAR store went
 * to plain memory (DEVX) and the watcher has not passed yet.
 *
 * CQE compression (cqc.cqe_comp_en, the basic layout; Ethernet receive
 * CQEs only, as the hardware compresses responder CQEs of RQs): receive
 * CQEs written during one batch (the frames one SQ run or one read of the
 * cable delivers) that differ only in byte count, checksum or RSS hash,
 * timestamp and a WQE counter one higher each time form a session of n
 * completions (2..ENG_COMP_MAX). It takes n slots like n CQEs, but only
 * some are written: at the first, a title -- the first CQE, format bits
 * (op_own[3:2]) 3, byte_cnt n --, at the next one the first array of 8
 * mini CQEs, and at slot 8k the k-th array; the other slots keep what they
 * held. A mini CQE is 8 bytes: the checksum and a stride index (0: no
 * striding RQs) or the RSS hash result, per mini_cqe_res_format, then the
 * byte count. Consumers expand a session from its title (the driver's
 * poller does, in place) and set the owner bits of its slots themselves.
 * All completions of a session carry the title's timestamp.
 *
 * EQE (64 bytes): type at byte 1, sub_type at 3, 28 bytes of data at 32,
 * owner at 63 = (pi >> log_size) & 1 (the driver initialises owner = 1).
 * Completion event data: cqn at data + 24. An armed EQ that gets an EQE calls
 * the interrupt handler of eqc.intr and disarms until the next doorbell 0x40.
 * Doorbells stored in the EQ's UAR page are taken before each EQE is written
 * (eng_mmio.c), so the overrun check sees the consumer index of every store
 * made so far. An EQE that finds the EQ full is dropped.
 * The device's internal EQs (no ring) just raise their vector.
 */
#include <string.h>

#include "device/engine/eng_loc.h"
#include "device/trace.h"
#include "device/transport/counters.h"
#include "util/log.h"

static inline void put_be32(void *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void eng_cq_event(struct eng *e, struct fw_cq *cq)
{
	uint8_t data[28] = { 0 };

	put_be32(data + 24, cq->obj.id & 0xffffff);
	if (cq->eq)
		eng_eqe_post(e, cq->eq, ENG_EVT_COMP, 0, data);
}

static void eng_cq_error(struct eng *e, struct fw_cq *cq, uint8_t syndrome)
{
	uint8_t data[28] = { 0 };
	struct fw_eq *eq = cq->eq;

	put_be32(data, cq->obj.id & 0xffffff);
	data[11] = syndrome;
	smx_dbg("engine: cq 0x%x overrun (syndrome %u): CQE dropped, CQ in "
		"error", cq->obj.id, syndrome);
	/* A CQ error goes to the CQ's own EQ if it enables the type, else to
	 * whichever EQ of the uid does. */
	if (eq && !eq->internal && (eq->event_bitmask[0] >> ENG_EVT_CQ_ERROR) & 1)
		eng_eqe_post(e, eq, ENG_EVT_CQ_ERROR, 0, data);
	else
		eng_async_event(e, ENG_EVT_CQ_ERROR, cq->obj.id, false,
				cq->obj.uid);
}

/*
 * An arm request the client wrote to the arm record (and rang at UAR 0x20,
 * which lands in plain memory for DEVX clients) before this CQE: take it now,
 * as the hardware would have processed that doorbell already, instead of at
 * the watcher's next pass.
 */
static void eng_cq_arm_sync(struct eng *e, struct eng_cq *ec)
{
	uint32_t w = be32toh(__atomic_load_n(&ec->cq->dbrec[1], __ATOMIC_ACQUIRE));

	if (w != ec->arm_word)
		eng_cq_arm(e, ec->cq, w);
}

/* Room for @n more CQEs, else the overrun (CQ in error, unless cqc.oi). */
static bool cq_room(struct eng *e, struct eng_cq *ec, uint32_t n)
{
	struct fw_cq *cq = ec->cq;
	uint32_t ci = be32toh(__atomic_load_n(&cq->dbrec[0], __ATOMIC_ACQUIRE)) & 0xffffff;

	if (((ec->pi - ci) & 0xffffff) + n <= (1u << cq->log_size) ||
	    DEVX_GET(cqc, cq->ctx, oi))
		return true;
	if (!ec->overrun) {
		ec->overrun = true;
		DEVX_SET(cqc, cq->ctx, status, 0x9);	/* CQ overflow */
		eng_cq_error(e, cq, 1);
	}
	return false;
}

/* The 64-byte CQE part of slot @idx (the second half of a 128-byte CQE). */
static uint8_t *cq_slot(struct fw_cq *cq, uint32_t idx)
{
	return fw_buf_addr(&cq->buf, (uint64_t)(idx & ((1u << cq->log_size) - 1)) *
			   cq->cqe_size + (cq->cqe_size - 64));
}

static void cq_fire(struct eng *e, struct eng_cq *ec, bool solicited_or_err)
{
	if (ec->arm == ENG_ARM_NEXT ||
	    (ec->arm == ENG_ARM_SOLICITED && solicited_or_err)) {
		ec->arm = ENG_ARM_NONE;
		eng_cq_event(e, ec->cq);
	}
}

/* Writes the open session of @ec (fw->lock held). */
static void comp_flush(struct eng *e, struct eng_cq *ec)
{
	struct fw_cq *cq = ec->cq;
	uint32_t n = ec->comp_n, pi = ec->pi, k;
	uint8_t *slot;

	ec->comp_n = 0;
	if (!n || !cq_room(e, ec, n))
		return;
	if (n == 1) {
		/* alone: a plain CQE after all */
		slot = cq_slot(cq, pi);
		if (!slot)
			return;
		memcpy(slot, ec->comp_title, 63);
		__atomic_store_n(&slot[63], (uint8_t)(MLX5_CQE_RESP_SEND << 4 |
						      ((pi >> cq->log_size) & 1)),
				 __ATOMIC_RELEASE);
	} else {
		/* the arrays first, then the title makes the session valid */
		for (k = 0; k * 8 < n; k++) {
			slot = cq_slot(cq, k ? pi + 8 * k : pi + 1);
			if (slot)
				memcpy(slot, ec->comp_mini[8 * k],
				       8 * (n - 8 * k < 8 ? n - 8 * k : 8));
		}
		slot = cq_slot(cq, pi);
		if (!slot)
			return;
		put_be32(ec->comp_title + 44, n);	/* byte_cnt: the count */
		memcpy(slot, ec->comp_title, 63);
		__atomic_store_n(&slot[63], (uint8_t)(MLX5_CQE_RESP_SEND << 4 | 3u << 2 |
						      ((pi >> cq->log_size) & 1)),
				 __ATOMIC_RELEASE);
	}
	ec->pi = pi + n;
	cq_fire(e, ec, false);
}

void eng_comp_batch_begin(struct eng *e)
{
	e->comp_batch++;
}

void eng_comp_batch_end(struct eng *e)
{
	struct eng_cq *ec;

	if (e->comp_batch && --e->comp_batch)
		return;
	while ((ec = e->comp_open)) {
		e->comp_open = ec->comp_next;
		ec->comp_next = NULL;
		ec->comp_listed = false;
		comp_flush(e, ec);
	}
}

/* Bytes of a receive CQE that may differ within a session: the RSS hash
 * result (12..15), the checksum (20..21), the byte count (44..47), the
 * timestamp (48..55), the WQE counter (60..61) and op_own (63). */
static bool comp_joins(const uint8_t *t, const uint8_t *c, uint32_t n)
{
	uint16_t tw = (uint16_t)(t[60] << 8 | t[61]), cw = (uint16_t)(c[60] << 8 | c[61]);

	return !memcmp(t, c, 12) && !memcmp(t + 16, c + 16, 4) &&
	       !memcmp(t + 22, c + 22, 22) && !memcmp(t + 56, c + 56, 4) &&
	       t[62] == c[62] && (uint16_t)(tw + n) == cw;
}

/* A compressible receive CQE on a cqe_comp_en CQ during a batch. */
static bool comp_add(struct eng *e, struct eng_cq *ec, const uint8_t *cqe)
{
	uint32_t fmt = DEVX_GET(cqc, ec->cq->ctx, mini_cqe_res_format);
	uint8_t *m;

	if (ec->comp_n && (ec->comp_n == ENG_COMP_MAX ||
			   !comp_joins(ec->comp_title, cqe, ec->comp_n)))
		comp_flush(e, ec);
	if (!ec->comp_n) {
		memcpy(ec->comp_title, cqe, 64);
		if (!ec->comp_listed) {
			ec->comp_next = e->comp_open;
			e->comp_open = ec;
			ec->comp_listed = true;
		}
	}
	m = ec->comp_mini[ec->comp_n++];
	memset(m, 0, 8);
	if (fmt == 0)
		memcpy(m, cqe + 12, 4);		/* RSS hash result */
	else
		memcpy(m, cqe + 20, 2);		/* checksum; stride index 0 */
	memcpy(m + 4, cqe + 44, 4);		/* byte count */
	return true;
}

bool eng_cqe_post(struct eng *e, struct fw_cq *cq, const struct eng_cqe *c)
{
	struct eng_cq *ec = eng_cq_of(e, cq);
	uint32_t pi;
	struct mlx5_cqe64 cqe;
	uint8_t *slot;

	if (!ec)
		return false;
	eng_cq_arm_sync(e, ec);
	if (c->compressible && c->raw && e->comp_batch && DEVX_GET(cqc, cq->ctx, cqe_comp_en)) {
		if (smx_trace_on(SMX_TR_CQE))
			smx_trace_cqe_log(cq->obj.id, 0, c->raw, true);
		return comp_add(e, ec, c->raw);
	}
	if (ec->comp_n)
		comp_flush(e, ec);	/* completions stay in order */
	pi = ec->pi;
	if (!cq_room(e, ec, 1))
		return false;
	slot = cq_slot(cq, pi);
	if (!slot)
		return false;
	if (cq->cqe_pad) {
		/* 128-byte padded CQEs: the device writes the whole line,
		 * the first half as padding (a 128-byte slot is in one page). */
		uint8_t *pad = fw_buf_addr(&cq->buf,
					   (uint64_t)(pi & ((1u << cq->log_size) - 1)) * 128);

		if (pad)
			memset(pad, 0, 64);
	}

	memset(&cqe, 0, sizeof(cqe));
	if (c->raw) {
		memcpy(&cqe, c->raw, sizeof(cqe));
	} else if (c->opcode == MLX5_CQE_REQ_ERR || c->opcode == MLX5_CQE_RESP_ERR) {
		struct mlx5_err_cqe *ecqe = (struct mlx5_err_cqe *)&cqe;

		ecqe->srqn = htobe32(c->srqn_uidx & 0xffffff);
		ecqe->vendor_err_synd = c->vendor_synd;
		ecqe->syndrome = c->syndrome;
		ecqe->s_wqe_opcode_qpn = htobe32((uint32_t)c->sq_opcode << 24 |
						 (c->qpn & 0xffffff));
		ecqe->wqe_counter = htobe16(c->wqe_counter);
		trn_ctr_add(e->ctr, c->syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR ?
			    (c->opcode == MLX5_CQE_REQ_ERR ?
			     TRN_CTR_REQ_CQE_FLUSH_ERROR : TRN_CTR_RESP_CQE_FLUSH_ERROR) :
			    (c->opcode == MLX5_CQE_REQ_ERR ?
			     TRN_CTR_REQ_CQE_ERROR : TRN_CTR_RESP_CQE_ERROR), 1);
	} else {
		cqe.srqn_uidx = htobe32(c->srqn_uidx & 0xffffff);
		cqe.imm_inval_pkey = c->imm_inval_pkey;
		cqe.byte_cnt = htobe32(c->byte_cnt);
		cqe.timestamp = htobe64(eng_clock(e));
		cqe.flags_rqpn = htobe32(c->flags_rqpn);
		cqe.sop_drop_qpn = htobe32((c->opcode == MLX5_CQE_REQ ?
					    (uint32_t)c->sq_opcode << 24 : 0) |
					   (c->qpn & 0xffffff));
		cqe.wqe_counter = htobe16(c->wqe_counter);
	}
	memcpy(slot, &cqe, 63);
	__atomic_store_n(&slot[63],
			 (uint8_t)(c->opcode << 4 | ((pi >> cq->log_size) & 1)),
			 __ATOMIC_RELEASE);
	if (smx_trace_on(SMX_TR_CQE)) {
		/* what was written, from our copy: the slot is the consumer's now */
		cqe.op_own = (uint8_t)(c->opcode << 4 | ((pi >> cq->log_size) & 1));
		smx_trace_cqe_log(cq->obj.id, pi, (const uint8_t *)&cqe, false);
	}
	ec->pi = pi + 1;
	cq_fire(e, ec, c->solicited || c->opcode == MLX5_CQE_REQ_ERR ||
		       c->opcode == MLX5_CQE_RESP_ERR);
	return true;
}

void eng_cq_arm(struct eng *e, struct fw_cq *cq, uint32_t arm_word)
{
	struct eng_cq *ec = eng_cq_of(e, cq);
	uint32_t cmd = (arm_word >> 24) & 0xf;
	uint32_t ci = arm_word & 0xffffff;

	if (!ec)
		return;
	ec->arm_word = arm_word;
	if (cmd > 1) {
		smx_dbg("engine: cq 0x%x arm command %u is not 0 or 1, ignored",
			cq->obj.id, cmd);
		return;
	}
	ec->arm = cmd == 1 ? ENG_ARM_SOLICITED : ENG_ARM_NEXT;
	/* Whoever armed will wait for an event rather than poll: the inbox
	 * thread leaves polled mode (every way of arming comes here). */
	eng_fabric_armed(e);
	if (ec->arm == ENG_ARM_NEXT && ((ec->pi - ci) & 0xffffff) != 0 &&
	    ((ec->pi - ci) & 0xffffff) <= (1u << cq->log_size)) {
		ec->arm = ENG_ARM_NONE;
		eng_cq_event(e, cq);
	}
}

void eng_eq_doorbell(struct eng *e, struct fw_eq *eq, uint32_t ci, bool arm)
{
	struct eng_eq *q = eng_eq_of(e, eq);

	if (!q)
		return;
	q->ci = ci & 0xffffff;
	if (!arm)
		return;
	q->armed = true;
	/* EQEs the consumer has not reached yet: interrupt again. */
	if (!eq->internal && ((q->pi - q->ci) & 0xffffff) != 0) {
		q->armed = q->always_armed;
		eng_irq_fire(e, eq->intr);
	}
}

void eng_eqe_post(struct eng *e, struct fw_eq *eq, uint8_t type,
		  uint8_t sub_type, const uint8_t data[28])
{
	struct eng_eq *q = eng_eq_of(e, eq);
	uint32_t size;
	uint8_t eqe[64];
	uint8_t *slot;

	if (!q)
		return;
	if (eq->internal) {
		if (smx_trace_on(SMX_TR_EQE)) {
			/* no ring: the EQE it would have been */
			memset(eqe, 0, sizeof(eqe));
			eqe[1] = type;
			eqe[3] = sub_type;
			memcpy(eqe + 32, data, 28);
			smx_trace_eqe_log(eq->obj.id, 0, true, eqe);
		}
		eng_irq_fire(e, eq->intr);
		return;
	}
	/* consumer-index (and arm) stores made before this EQE count */
	eng_eq_uar_take(e, eq->uar);
	size = 1u << eq->log_size;
	if (((q->pi - q->ci) & 0xffffff) >= size) {
		smx_dbg("engine: eq %u overrun, event type 0x%x dropped",
			eq->obj.id, type);
		return;
	}
	slot = fw_buf_addr(&eq->buf, (uint64_t)(q->pi & (size - 1)) * 64);
	if (!slot)
		return;
	memset(eqe, 0, sizeof(eqe));
	eqe[1] = type;
	eqe[3] = sub_type;
	memcpy(eqe + 32, data, 28);
	memcpy(slot, eqe, 63);
	__atomic_store_n(&slot[63], (uint8_t)((q->pi >> eq->log_size) & 1),
			 __ATOMIC_RELEASE);
	if (smx_trace_on(SMX_TR_EQE)) {
		eqe[63] = (uint8_t)((q->pi >> eq->log_size) & 1);
		smx_trace_eqe_log(eq->obj.id, q->pi, false, eqe);
	}
	q->pi++;
	if (q->armed) {
		q->armed = q->always_armed;
		eng_irq_fire(e, eq->intr);
	}
}

void eng_async_event(struct eng *e, uint8_t type, uint32_t num, bool is_srq,
		     uint16_t uid)
{
	uint8_t data[28] = { 0 };
	uint32_t eqn;
	bool sent = false;

	if (type == ENG_EVT_CQ_ERROR) {
		put_be32(data, num & 0xffffff);
		data[11] = 1;
	} else {
		data[20] = is_srq ? 1 : 0;
		put_be32(data + 24, num & 0xffffff);
	}
	/* Every EQ (with a ring) of the object's uid, or of uid 0, that
	 * enables this event type. EQs are few; walk the numbers. */
	for (eqn = 0; eqn < 256; eqn++) {
		struct fw_eq *eq = fw_eq_lookup(e->fw, eqn);

		if (!eq || eq->internal)
			continue;
		if (eq->obj.uid && eq->obj.uid != uid)
			continue;
		if (!((eq->event_bitmask[type / 64] >> (type % 64)) & 1))
			continue;
		eng_eqe_post(e, eq, type, 0, data);
		sent = true;
	}
	if (!sent)
		smx_dbg("engine: event 0x%x for %s 0x%x: no EQ enables it",
			type, is_srq ? "srq" : type == ENG_EVT_CQ_ERROR ? "cq" :
			"qp", num);
}
