/* SPDX-License-Identifier: MIT */
/*
 * MMIO decode: a store at BAR offset = UAR page * 4096 + register.
 *
 *   0x020        CQ doorbell, 64 bits: [0..3] sn << 28 | cmd << 24 | ci,
 *                [4..7] cqn (both big-endian): arm the CQ.
 *   0x040/0x048  EQ doorbell with / without arm, 32 bits big-endian:
 *                eqn << 24 | consumer index.
 *   0x800-0x9ff  send doorbell / BlueFlame buffers (two of 256 bytes): the
 *                first 8 bytes are the control segment's opmod_idx_opcode and
 *                qpn_ds. The device takes the QP number from there and runs
 *                the SQ up to the producer in the doorbell record; the
 *                BlueFlame copy itself is not executed (the same WQE is in
 *                the ring, where rdma-core's and our driver's post paths
 *                always put it first), so both doorbell flavours behave
 *                identically.
 *
 * EQ doorbells stored without the library. A DEVX client (FlexIO's
 * interrupt thread and DPA outboxes among them) rings an EQ with a plain
 * 32-bit store into its UAR page, which reaches no code here when it
 * happens. The device takes such stores from the page: a nonzero word at
 * 0x40 / 0x48 is a doorbell not taken yet (eqn 0 is always a device
 * completion vector, so no doorbell of an EQ with a ring is 0), and taking
 * it swaps the word back to 0. The watcher takes them on every pass, and
 * every EQE write takes those of its EQ's page first, so an EQ overflows
 * only when its consumer really is behind. A store the library rings
 * through eng_mmio() is acted on at once and cleared from the page.
 *
 * Ownership: a doorbell only acts on a queue whose uid may use the page
 * (the queue's own UAR, or a page of the same uid, or a uid 0 queue); other
 * stores are ignored, like a doorbell on a UAR page the queue does not
 * belong to. The watcher still executes posted WQEs from the doorbell record
 * (which belongs to the queue's owner), so nothing is lost but latency.
 */
#include <string.h>

#include "device/engine/eng_loc.h"
#include "device/trace.h"
#include "util/log.h"

static inline uint32_t get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static bool eng_uar_may(const struct fw_uar *uar, const struct fw_uar *own,
			const struct fw_obj *obj)
{
	if (own == uar)
		return true;
	return obj->uid == uar->obj.uid || uar->obj.uid == 0;
}

/* An EQ doorbell value (eqn << 24 | ci) from @reg 0x40 (arm) or 0x48. */
static void eng_eq_db(struct eng *e, struct fw_uar *uar, uint32_t reg, uint32_t v,
		      bool taken)
{
	struct fw_eq *eq = fw_eq_lookup(e->fw, v >> 24);
	struct eng_eq *q;
	uint32_t ci = v & 0xffffff;

	if (!eq || eq->internal || !eng_uar_may(uar, eq->uar, &eq->obj)) {
		smx_dbg("engine: EQ doorbell on UAR %u for eq %u ignored",
			uar->obj.id, v >> 24);
		return;
	}
	q = eng_eq_of(e, eq);
	/* Two stores taken from the page at once come in no known order:
	 * the consumer index only moves forward, and never past the
	 * producer. */
	if (taken && q && ((ci - q->ci) & 0xffffff) > ((q->pi - q->ci) & 0xffffff))
		ci = q->ci;
	eng_eq_doorbell(e, eq, ci, reg == 0x40);
}

bool eng_eq_uar_take(struct eng *e, struct fw_uar *uar)
{
	uint32_t *w, arm, noarm;

	if (!uar || !uar->page)
		return false;
	w = (uint32_t *)((uint8_t *)uar->page + 0x40);
	if (!__atomic_load_n(&w[0], __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&w[2], __ATOMIC_RELAXED))
		return false;
	arm = be32toh(__atomic_exchange_n(&w[0], 0, __ATOMIC_ACQ_REL));
	noarm = be32toh(__atomic_exchange_n(&w[2], 0, __ATOMIC_ACQ_REL));
	if (smx_trace_on(SMX_TR_DB)) {
		uint32_t be;

		if (noarm) {
			be = htobe32(noarm);
			smx_trace_db_log(uar->obj.id, 0x48, &be, 4, true);
		}
		if (arm) {
			be = htobe32(arm);
			smx_trace_db_log(uar->obj.id, 0x40, &be, 4, true);
		}
	}
	if (noarm)
		eng_eq_db(e, uar, 0x48, noarm, true);
	if (arm)
		eng_eq_db(e, uar, 0x40, arm, true);
	return true;
}

bool eng_eq_uar_scan(struct eng *e)
{
	struct eng_obj *o;
	bool work = false;

	for (o = e->list[ENG_K_EQ].next; o != &e->list[ENG_K_EQ]; o = o->next)
		work |= eng_eq_uar_take(e, ((struct eng_eq *)o)->eq->uar);
	return work;
}

void eng_mmio(struct eng *e, uint64_t offset, const uint8_t *buf, size_t len)
{
	uint32_t page = (uint32_t)(offset / ENG_UAR_SIZE);
	uint32_t reg = (uint32_t)(offset % ENG_UAR_SIZE);
	struct fw_uar *uar;

	if (page >= e->nr_uars || len < 4)
		return;
	if (smx_trace_on(SMX_TR_DB))
		smx_trace_db_log(page, reg, buf, len, false);
	uar = fw_uar_lookup(e->fw, page);
	if (!uar) {
		smx_dbg("engine: store at 0x%llx: UAR page %u is not allocated",
			(unsigned long long)offset, page);
		return;
	}
	/* The send doorbell first: it is the one on the data path. */
	if (reg >= 0x800 && reg < 0xa00 && len >= 8) {
		uint32_t qpn = get_be32(buf + 4) >> 8;
		struct fw_qp *qp;
		struct eng_qp *q;

		if (qpn & FW_SQN_PREFIX) {	/* an Ethernet SQ (eng_eth.c) */
			struct fw_sq *sq = fw_sq_lookup(e->fw, qpn);

			if (!sq || !eng_uar_may(uar, sq->uar, &sq->obj)) {
				smx_dbg("engine: send doorbell on UAR %u for sq "
					"0x%x ignored (%s)", page, qpn, sq ?
					"not this UAR's uid" : "no such SQ");
				return;
			}
			eng_eth_sq_run(e, sq);
			return;
		}
		qp = fw_qp_lookup(e->fw, qpn);
		if (!qp || !eng_uar_may(uar, qp->uar, &qp->obj)) {
			smx_dbg("engine: send doorbell on UAR %u for qp 0x%x "
				"ignored (%s)", page, qpn,
				qp ? "not this UAR's uid" : "no such QP");
			return;
		}
		q = eng_qp_of(e, qp);
		if (q) {
			q->db_mmio = true;
			eng_sq_run(e, q);
		}
		return;
	}
	if (reg == 0x20 && len >= 8) {
		uint32_t arm = get_be32(buf), cqn = get_be32(buf + 4) & 0xffffff;
		struct fw_cq *cq = fw_cq_lookup(e->fw, cqn);

		if (!cq || !eng_uar_may(uar, cq->uar, &cq->obj)) {
			smx_dbg("engine: CQ doorbell on UAR %u for cq 0x%x "
				"ignored (%s)", page, cqn,
				cq ? "not this UAR's uid" : "no such CQ");
			return;
		}
		eng_cq_arm(e, cq, arm);
		return;
	}
	if (reg == 0x40 || reg == 0x48) {
		uint32_t v = get_be32(buf), was = htobe32(v);

		/* acted on now: not to be taken from the page again */
		if (uar->page)
			__atomic_compare_exchange_n((uint32_t *)((uint8_t *)uar->page + reg),
						    &was, 0, false, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED);
		eng_eq_db(e, uar, reg, v, false);
		return;
	}
	smx_dbg("engine: store of %zu bytes at UAR %u offset 0x%x ignored", len,
		page, reg);
}
