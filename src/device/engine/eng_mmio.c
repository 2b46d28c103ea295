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
 * Ownership: a doorbell only acts on a queue whose uid may use the page
 * (the queue's own UAR, or a page of the same uid, or a uid 0 queue); other
 * stores are ignored, like a doorbell on a UAR page the queue does not
 * belong to. The watcher still executes posted WQEs from the doorbell record
 * (which belongs to the queue's owner), so nothing is lost but latency.
 */
#include <string.h>

#include "device/engine/eng_loc.h"
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

void eng_mmio(struct eng *e, uint64_t offset, const uint8_t *buf, size_t len)
{
	uint32_t page = (uint32_t)(offset / ENG_UAR_SIZE);
	uint32_t reg = (uint32_t)(offset % ENG_UAR_SIZE);
	struct fw_uar *uar;

	if (page >= e->nr_uars || len < 4)
		return;
	uar = fw_uar_lookup(e->fw, page);
	if (!uar) {
		smx_dbg("engine: store at 0x%llx: UAR page %u is not allocated",
			(unsigned long long)offset, page);
		return;
	}
	/* The send doorbell first: it is the one on the data path. */
	if (reg >= 0x800 && reg < 0xa00 && len >= 8) {
		uint32_t qpn = get_be32(buf + 4) >> 8;
		struct fw_qp *qp = fw_qp_lookup(e->fw, qpn);
		struct eng_qp *q;

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
		eng_fabric_armed(e);
		return;
	}
	if (reg == 0x40 || reg == 0x48) {
		uint32_t v = get_be32(buf);
		struct fw_eq *eq = fw_eq_lookup(e->fw, v >> 24);

		if (!eq || eq->internal || !eng_uar_may(uar, eq->uar, &eq->obj)) {
			smx_dbg("engine: EQ doorbell on UAR %u for eq %u ignored",
				page, v >> 24);
			return;
		}
		eng_eq_doorbell(e, eq, v & 0xffffff, reg == 0x40);
		return;
	}
	smx_dbg("engine: store of %zu bytes at UAR %u offset 0x%x ignored", len,
		page, reg);
}
