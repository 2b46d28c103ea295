/* SPDX-License-Identifier: MIT */
/*
 * Posting work: send WQEs (control + transport segments + data or inline) into
 * the SQ ring, receive WQEs into the RQ / SRQ rings, doorbell records, and the
 * send doorbell to the UAR -- the mlx5 formats of <infiniband/mlx5dv.h>. The
 * legacy ibv_post_send() and the ibv_wr_*() builder share one WQE assembler.
 */
#include <errno.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

#define MLX5_EXTENDED_UD_AV 0x80000000u
#define MLX5_BF_OFFSET 0x800
#define MLX5_BF_SIZE 0x100

struct mlx5_wqe_xrc_seg {
	__be32 xrc_srqn;
	uint8_t rsvd[12];
};

/* ---- the send ring ---- */

static inline uint8_t *sq_end(struct mlx5_qp *qp)
{
	return (uint8_t *)qp->sq.buf + ((size_t)qp->sq.wqe_cnt << MLX5_SEND_WQE_SHIFT);
}

static inline void *sq_wqe(struct mlx5_qp *qp, uint32_t idx)
{
	return (uint8_t *)qp->sq.buf +
	       ((size_t)(idx & (qp->sq.wqe_cnt - 1)) << MLX5_SEND_WQE_SHIFT);
}

/* Advance past a 16-byte-multiple segment, wrapping at the end of the ring. */
static inline uint8_t *seg_next(struct mlx5_qp *qp, uint8_t *seg, size_t len)
{
	seg += len;
	if (seg >= sq_end(qp))
		seg = (uint8_t *)qp->sq.buf + (seg - sq_end(qp));
	return seg;
}

/* Copy @len bytes into the ring at @seg, wrapping; returns the end. */
static uint8_t *ring_copy(struct mlx5_qp *qp, uint8_t *seg, const void *src, size_t len)
{
	size_t room = (size_t)(sq_end(qp) - seg);

	if (len <= room) {
		memcpy(seg, src, len);
		return len == room ? (uint8_t *)qp->sq.buf : seg + len;
	}
	memcpy(seg, src, room);
	memcpy(qp->sq.buf, (const uint8_t *)src + room, len - room);
	return (uint8_t *)qp->sq.buf + (len - room);
}

static inline bool sq_full(struct mlx5_qp *qp)
{
	return qp->sq.head - qp->sq.tail >= qp->sq.max_post;
}

/* Legal opcodes per transport (IB spec: UD sends only; UC no reads/atomics). */
static bool op_legal(enum ibv_qp_type t, uint8_t mlx5_op)
{
	switch (t) {
	case IBV_QPT_UD:
		return mlx5_op == MLX5_OPCODE_SEND || mlx5_op == MLX5_OPCODE_SEND_IMM;
	case IBV_QPT_UC:
		return mlx5_op == MLX5_OPCODE_SEND || mlx5_op == MLX5_OPCODE_SEND_IMM ||
		       mlx5_op == MLX5_OPCODE_RDMA_WRITE ||
		       mlx5_op == MLX5_OPCODE_RDMA_WRITE_IMM || mlx5_op == MLX5_OPCODE_UMR;
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		return mlx5_op != MLX5_OPCODE_TSO;
	case IBV_QPT_RAW_PACKET:	/* Ethernet frames */
		return mlx5_op == MLX5_OPCODE_SEND;
	case IBV_QPT_DRIVER:	/* DCI: RC's operations, no memory windows */
		return mlx5_op == MLX5_OPCODE_SEND || mlx5_op == MLX5_OPCODE_SEND_IMM ||
		       mlx5_op == MLX5_OPCODE_RDMA_WRITE ||
		       mlx5_op == MLX5_OPCODE_RDMA_WRITE_IMM ||
		       mlx5_op == MLX5_OPCODE_RDMA_READ || mlx5_op == MLX5_OPCODE_ATOMIC_CS ||
		       mlx5_op == MLX5_OPCODE_ATOMIC_FA || mlx5_op == MLX5_OPCODE_NOP;
	default:
		return false;
	}
}

/* Begins a WQE: control segment slot plus the transport segments the opcode
 * needs; RDMA/atomic address segments are filled by the caller. */
static int wqe_begin(struct mlx5_qp *qp, struct mlx5_wqe_build *b, uint8_t mlx5_op,
		     uint8_t wc_op, unsigned int send_flags, __be32 imm)
{
	if (!op_legal(qp->qp_type, mlx5_op))
		return EINVAL;
	if (sq_full(qp))
		return ENOMEM;
	memset(b, 0, sizeof(*b));
	b->ctrl = sq_wqe(qp, qp->sq.cur_post);
	b->seg = seg_next(qp, (uint8_t *)b->ctrl, sizeof(struct mlx5_wqe_ctrl_seg));
	b->ds = 1;
	b->mlx5_opcode = mlx5_op;
	b->wc_opcode = wc_op;
	b->imm = imm;
	b->fm_ce_se = 0;
	if ((send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		b->fm_ce_se |= MLX5_WQE_CTRL_CQ_UPDATE;
	if (send_flags & IBV_SEND_SOLICITED)
		b->fm_ce_se |= MLX5_WQE_CTRL_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		b->fm_ce_se |= MLX5_WQE_CTRL_FENCE;
	if (qp->qp_type == IBV_QPT_XRC_SEND) {
		b->xrc = b->seg;
		memset(b->seg, 0, sizeof(struct mlx5_wqe_xrc_seg));
		b->seg = seg_next(qp, b->seg, sizeof(struct mlx5_wqe_xrc_seg));
		b->ds++;
	}
	if (qp->qp_type == IBV_QPT_RAW_PACKET) {
		/* The Ethernet segment: checksum flags, and room for the
		 * frame's L2 header (wqe_raw_data() fills it). It follows
		 * the control segment inside the first WQEBB. */
		struct mlx5_wqe_eth_seg *e = (struct mlx5_wqe_eth_seg *)b->seg;

		memset(e, 0, sizeof(*e));
		if (send_flags & IBV_SEND_IP_CSUM)
			e->cs_flags = MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM;
		b->eth = b->seg;
		b->seg = seg_next(qp, b->seg, sizeof(*e));
		b->ds += sizeof(*e) / 16;
	}
	if (qp->qp_type == IBV_QPT_UD || qp->qp_type == IBV_QPT_DRIVER) {
		/* ctrl + AV fill exactly one WQEBB: the AV never wraps. A
		 * DCI's AV names the DCT (mlx5dv_wr_set_dc_addr). */
		b->dgram = b->seg;
		memset(b->seg, 0, sizeof(struct mlx5_wqe_datagram_seg));
		b->seg = seg_next(qp, b->seg, sizeof(struct mlx5_wqe_datagram_seg));
		b->ds += sizeof(struct mlx5_wqe_datagram_seg) / 16;
	}
	return 0;
}

static void wqe_raddr(struct mlx5_qp *qp, struct mlx5_wqe_build *b, uint64_t raddr,
		      uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)b->seg;

	r->raddr = htobe64(raddr);
	r->rkey = htobe32(rkey);
	r->reserved = 0;
	b->seg = seg_next(qp, b->seg, sizeof(*r));
	b->ds++;
}

static void wqe_atomic(struct mlx5_qp *qp, struct mlx5_wqe_build *b, uint64_t swap_add,
		       uint64_t compare)
{
	struct mlx5_wqe_atomic_seg *a = (struct mlx5_wqe_atomic_seg *)b->seg;

	a->swap_add = htobe64(swap_add);
	a->compare = htobe64(compare);
	b->seg = seg_next(qp, b->seg, sizeof(*a));
	b->ds++;
}

static int wqe_sges(struct mlx5_qp *qp, struct mlx5_wqe_build *b, const struct ibv_sge *sg,
		    size_t n)
{
	size_t i;

	if (n > qp->sq.max_gs)
		return EINVAL;
	for (i = 0; i < n; i++) {
		struct mlx5_wqe_data_seg *d = (struct mlx5_wqe_data_seg *)b->seg;

		if (!sg[i].length)
			continue;	/* zero-length entries carry nothing */
		d->byte_count = htobe32(sg[i].length);
		d->lkey = htobe32(sg[i].lkey);
		d->addr = htobe64(sg[i].addr);
		b->seg = seg_next(qp, b->seg, sizeof(*d));
		b->ds++;
	}
	return 0;
}

static int wqe_inline(struct mlx5_qp *qp, struct mlx5_wqe_build *b,
		      const struct ibv_data_buf *bufs, size_t n)
{
	struct mlx5_wqe_inl_data_seg *h = (struct mlx5_wqe_inl_data_seg *)b->seg;
	uint8_t *p;
	size_t i, total = 0;

	for (i = 0; i < n; i++)
		total += bufs[i].length;
	if (total > qp->max_inline)
		return EINVAL;
	if (!total)
		return 0;
	p = seg_next(qp, b->seg, sizeof(*h));
	for (i = 0; i < n; i++)
		p = ring_copy(qp, p, bufs[i].addr, bufs[i].length);
	h->byte_count = htobe32((uint32_t)total | MLX5_INLINE_SEG);
	total += sizeof(*h);
	total = (total + 15) & ~(size_t)15;
	b->seg = seg_next(qp, b->seg, total);
	b->ds += (uint32_t)(total / 16);
	return 0;
}

/*
 * A raw packet QP's data: the first bytes of the frame, up to the 18-byte
 * L2 header (MACs, one VLAN tag, ethertype), go inline in the Ethernet
 * segment as rdma-core puts them; the rest follows as data segments, or
 * inline with IBV_SEND_INLINE.
 */
#define MLX5_ETH_L2_INLINE 18

static int wqe_raw_data(struct mlx5_qp *qp, struct mlx5_wqe_build *b,
			const struct ibv_sge *sg, size_t n, bool inl)
{
	struct mlx5_wqe_eth_seg *e = (struct mlx5_wqe_eth_seg *)b->eth;
	struct ibv_sge rest[64];
	struct ibv_data_buf bufs[64];
	uint32_t hdr = 0;
	size_t i, nrest = 0;

	if (n > 64)
		return EINVAL;
	for (i = 0; i < n; i++) {
		uint32_t take = sg[i].length < MLX5_ETH_L2_INLINE - hdr ?
				sg[i].length : MLX5_ETH_L2_INLINE - hdr;

		memcpy(e->inline_hdr_start + hdr, (const void *)(uintptr_t)sg[i].addr,
		       take);
		hdr += take;
		if (take < sg[i].length) {
			rest[nrest] = sg[i];
			rest[nrest].addr += take;
			rest[nrest].length -= take;
			nrest++;
		}
	}
	e->inline_hdr_sz = htobe16((uint16_t)hdr);
	if (!inl)
		return wqe_sges(qp, b, rest, nrest);
	for (i = 0; i < nrest; i++) {
		bufs[i].addr = (void *)(uintptr_t)rest[i].addr;
		bufs[i].length = rest[i].length;
	}
	return wqe_inline(qp, b, bufs, nrest);
}

/* Closes the WQE: control segment, bookkeeping, ring index advance. */
static void wqe_finish(struct mlx5_qp *qp, struct mlx5_wqe_build *b, uint64_t wr_id)
{
	uint32_t idx = qp->sq.cur_post & (qp->sq.wqe_cnt - 1);
	struct mlx5_wqe_ctrl_seg *c = b->ctrl;

	c->opmod_idx_opcode = htobe32((uint32_t)b->opmod << 24 |
				      ((qp->sq.cur_post & 0xffff) << 8) | b->mlx5_opcode);
	c->qpn_ds = htobe32(qp->qpn << 8 | b->ds);
	c->signature = 0;
	c->dci_stream_channel_id = htobe16(b->stream_id);
	c->fm_ce_se = b->fm_ce_se;
	c->imm = b->imm;
	qp->sq.wrid[idx] = wr_id;
	qp->sq.wqe_head[idx] = qp->sq.head;
	qp->sq.wc_opcode[idx] = b->wc_opcode;
	qp->sq.cur_post += (b->ds * 16 + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
	qp->sq.head++;
}

/* Record the producer and ring: the first 8 bytes of the last WQE. */
static void sq_doorbell(struct mlx5_qp *qp, struct mlx5_wqe_ctrl_seg *last)
{
	struct mlx5_context *ctx = to_mctx(qp->vqp.qp.context);
	uint64_t val;

	__atomic_thread_fence(__ATOMIC_RELEASE);	/* WQEs before the record */
	qp->dbrec[MLX5_SND_DBR] = htobe32(qp->sq.cur_post & 0xffff);
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* record before the doorbell */
	memcpy(&val, last, sizeof(val));
	smx_dev_mmio_write64(ctx->hca,
			     (uint64_t)ctx->uar_page * MLX5_ADAPTER_PAGE_SIZE + qp->bf_offset,
			     val);
	qp->bf_offset ^= MLX5_BF_SIZE;
}

/*
 * A UMR WQE that binds (length > 0) or invalidates (length 0) a memory
 * window: UMR control, mkey context and one inline KLM naming the MR. The
 * window is ctrl.imm (set by the caller); @rkey's low byte becomes its new
 * key variant; type 2 windows are tied to this QP.
 */
static int wqe_umr_mw(struct mlx5_qp *qp, struct mlx5_wqe_build *b, enum ibv_mw_type type,
		      uint32_t rkey, const struct ibv_mw_bind_info *bi)
{
	struct mlx5_wqe_umr_ctrl_seg *uc = (struct mlx5_wqe_umr_ctrl_seg *)b->seg;
	struct mlx5_wqe_mkey_context_seg *mk;
	uint64_t mask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE | MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY;

	if (bi->length > 1ull << 31)
		return EOPNOTSUPP;	/* a KLM covers at most 2 GiB */
	if (bi->length && !bi->mr)
		return EINVAL;
	memset(uc, 0, sizeof(*uc));
	uc->flags = MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET | MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	if (type == IBV_MW_TYPE_2)
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN;
	if (bi->length) {
		uc->klm_octowords = htobe16(4);	/* one KLM, padded to 64 bytes */
		if (type == IBV_MW_TYPE_2)
			uc->flags |= MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE;
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN | MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
	} else if (type == IBV_MW_TYPE_2) {
		uc->flags |= MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN;
	}
	uc->mkey_mask = htobe64(mask);
	b->seg = seg_next(qp, b->seg, sizeof(*uc));
	b->ds += sizeof(*uc) / 16;

	mk = (struct mlx5_wqe_mkey_context_seg *)b->seg;
	memset(mk, 0, sizeof(*mk));
	mk->qpn_mkey = htobe32((rkey & 0xff) | ((type == IBV_MW_TYPE_1 || !bi->length) ?
						 0xffffff00u : qp->qpn << 8));
	if (bi->length) {
		int acc = (int)bi->mw_access_flags;

		mk->access_flags =
			(acc & IBV_ACCESS_LOCAL_WRITE ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE : 0) |
			(acc & IBV_ACCESS_REMOTE_WRITE ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE : 0) |
			(acc & IBV_ACCESS_REMOTE_READ ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ : 0) |
			(acc & IBV_ACCESS_REMOTE_ATOMIC ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC : 0);
		mk->start_addr = (acc & IBV_ACCESS_ZERO_BASED) ? 0 : htobe64(bi->addr);
		mk->len = htobe64(bi->length);
	} else {
		mk->free = MLX5_WQE_MKEY_CONTEXT_FREE;
	}
	b->seg = seg_next(qp, b->seg, sizeof(*mk));
	b->ds += sizeof(*mk) / 16;
	if (!bi->length)
		return 0;

	{
		uint8_t klm[64] = {};
		struct mlx5_wqe_umr_klm_seg *k = (struct mlx5_wqe_umr_klm_seg *)klm;

		k->byte_count = htobe32((uint32_t)bi->length);
		k->mkey = htobe32(bi->mr->lkey);
		k->address = htobe64(bi->addr);
		b->seg = ring_copy(qp, b->seg, klm, sizeof(klm));
		b->ds += sizeof(klm) / 16;
	}
	return 0;
}

static int map_send_opcode(enum ibv_wr_opcode op, uint8_t *mlx5_op, uint8_t *wc_op)
{
	switch (op) {
	case IBV_WR_SEND: *mlx5_op = MLX5_OPCODE_SEND; *wc_op = IBV_WC_SEND; return 0;
	case IBV_WR_SEND_WITH_IMM: *mlx5_op = MLX5_OPCODE_SEND_IMM; *wc_op = IBV_WC_SEND; return 0;
	case IBV_WR_SEND_WITH_INV: *mlx5_op = MLX5_OPCODE_SEND_INVAL; *wc_op = IBV_WC_SEND; return 0;
	case IBV_WR_RDMA_WRITE: *mlx5_op = MLX5_OPCODE_RDMA_WRITE; *wc_op = IBV_WC_RDMA_WRITE; return 0;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		*mlx5_op = MLX5_OPCODE_RDMA_WRITE_IMM; *wc_op = IBV_WC_RDMA_WRITE; return 0;
	case IBV_WR_RDMA_READ: *mlx5_op = MLX5_OPCODE_RDMA_READ; *wc_op = IBV_WC_RDMA_READ; return 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		*mlx5_op = MLX5_OPCODE_ATOMIC_CS; *wc_op = IBV_WC_COMP_SWAP; return 0;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		*mlx5_op = MLX5_OPCODE_ATOMIC_FA; *wc_op = IBV_WC_FETCH_ADD; return 0;
	case IBV_WR_BIND_MW: *mlx5_op = MLX5_OPCODE_UMR; *wc_op = IBV_WC_BIND_MW; return 0;
	case IBV_WR_LOCAL_INV: *mlx5_op = MLX5_OPCODE_UMR; *wc_op = IBV_WC_LOCAL_INV; return 0;
	default:
		return EINVAL;	/* TSO (raw packet QPs): not yet */
	}
}

static bool sq_state_ok(struct mlx5_qp *qp)
{
	enum ibv_qp_state s = qp->vqp.qp.state;

	/* Posting is allowed from RTS on; in ERR the WQEs are flushed. */
	return s == IBV_QPS_RTS || s == IBV_QPS_SQD || s == IBV_QPS_SQE ||
	       s == IBV_QPS_ERR;
}

static int post_one(struct mlx5_qp *qp, struct ibv_send_wr *wr, struct mlx5_wqe_build *b)
{
	uint8_t mop, wop;
	__be32 imm = 0;
	int ret;

	ret = map_send_opcode(wr->opcode, &mop, &wop);
	if (ret)
		return ret;
	if (wr->opcode == IBV_WR_SEND_WITH_IMM || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		imm = wr->imm_data;
	else if (wr->opcode == IBV_WR_SEND_WITH_INV || wr->opcode == IBV_WR_LOCAL_INV)
		imm = htobe32(wr->invalidate_rkey);
	else if (wr->opcode == IBV_WR_BIND_MW)
		imm = htobe32(wr->bind_mw.mw ? wr->bind_mw.mw->rkey : 0);
	ret = wqe_begin(qp, b, mop, wop, wr->send_flags, imm);
	if (ret)
		return ret;
	if (wr->opcode == IBV_WR_BIND_MW || wr->opcode == IBV_WR_LOCAL_INV) {
		static const struct ibv_mw_bind_info none;

		/* Later WQEs wait for the window update (initiator small fence). */
		b->fm_ce_se |= MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
		if (wr->opcode == IBV_WR_BIND_MW) {
			if (!wr->bind_mw.mw)
				return EINVAL;
			ret = wqe_umr_mw(qp, b, wr->bind_mw.mw->type, wr->bind_mw.rkey,
					 &wr->bind_mw.bind_info);
		} else {
			ret = wqe_umr_mw(qp, b, IBV_MW_TYPE_2, 0, &none);
		}
		if (ret)
			return ret;
		wqe_finish(qp, b, wr->wr_id);
		return 0;
	}
	if (b->xrc)
		((struct mlx5_wqe_xrc_seg *)b->xrc)->xrc_srqn =
			htobe32(wr->qp_type.xrc.remote_srqn);
	if (b->dgram) {
		struct mlx5_wqe_datagram_seg *d = (struct mlx5_wqe_datagram_seg *)b->dgram;

		if (!wr->wr.ud.ah)
			return EINVAL;
		memcpy(&d->av, &SMX_CONTAINER_OF(wr->wr.ud.ah, struct mlx5_ah, ibv_ah)->av,
		       sizeof(d->av));
		d->av.dqp_dct = htobe32(wr->wr.ud.remote_qpn | MLX5_EXTENDED_UD_AV);
		d->av.key.qkey.qkey = htobe32(wr->wr.ud.remote_qkey);
	}
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		wqe_raddr(qp, b, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe_raddr(qp, b, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
		if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP)
			wqe_atomic(qp, b, wr->wr.atomic.swap, wr->wr.atomic.compare_add);
		else
			wqe_atomic(qp, b, wr->wr.atomic.compare_add, 0);
		break;
	default:
		break;
	}
	if (qp->qp_type == IBV_QPT_RAW_PACKET) {
		if (wr->num_sge < 0)
			return EINVAL;
		ret = wqe_raw_data(qp, b, wr->sg_list, (size_t)wr->num_sge,
				   wr->send_flags & IBV_SEND_INLINE);
	} else if ((wr->send_flags & IBV_SEND_INLINE) && wr->opcode != IBV_WR_RDMA_READ &&
	    wr->opcode != IBV_WR_ATOMIC_CMP_AND_SWP &&
	    wr->opcode != IBV_WR_ATOMIC_FETCH_AND_ADD) {
		struct ibv_data_buf bufs[64];
		int i;

		if (wr->num_sge < 0 || wr->num_sge > 64)
			return EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			bufs[i].addr = (void *)(uintptr_t)wr->sg_list[i].addr;
			bufs[i].length = wr->sg_list[i].length;
		}
		ret = wqe_inline(qp, b, bufs, (size_t)wr->num_sge);
	} else {
		if (wr->num_sge < 0)
			return EINVAL;
		ret = wqe_sges(qp, b, wr->sg_list, (size_t)wr->num_sge);
	}
	if (ret)
		return ret;
	wqe_finish(qp, b, wr->wr_id);
	return 0;
}

int mlx5_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct mlx5_qp *qp = to_mqp(ibqp);
	struct mlx5_wqe_ctrl_seg *last = NULL;
	struct mlx5_wqe_build b;
	int ret = 0;

	pthread_spin_lock(&qp->sq.lock);
	if (!qp->sq.wqe_cnt || !sq_state_ok(qp)) {
		ret = EINVAL;
		*bad = wr;
		goto out;
	}
	for (; wr; wr = wr->next) {
		ret = post_one(qp, wr, &b);
		if (ret) {
			*bad = wr;
			break;
		}
		last = b.ctrl;
	}
	if (last)
		sq_doorbell(qp, last);
out:
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
}

/* ---- receive rings ---- */

static void recv_fill(struct mlx5_wqe_data_seg *d, const struct ibv_sge *sg, int n, uint32_t max)
{
	int i, j = 0;

	for (i = 0; i < n; i++) {
		if (!sg[i].length)
			continue;
		d[j].byte_count = htobe32(sg[i].length);
		d[j].lkey = htobe32(sg[i].lkey);
		d[j].addr = htobe64(sg[i].addr);
		j++;
	}
	if ((uint32_t)j < max) {	/* terminate a short scatter list */
		d[j].byte_count = 0;
		d[j].lkey = htobe32(MLX5_INVALID_LKEY);
		d[j].addr = 0;
	}
}

/* Receive WQEs on @qp's RQ ring (a QP's own, or a receive WQ's), with
 * the doorbell record; the caller checked the state. */
static int rq_post_locked(struct mlx5_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	int ret = 0, n = 0;

	for (; wr; wr = wr->next) {
		uint32_t idx = qp->rq.head & (qp->rq.wqe_cnt - 1);

		if (qp->rq.head - qp->rq.tail >= qp->rq.max_post) {
			ret = ENOMEM;
			*bad = wr;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->rq.max_gs) {
			ret = EINVAL;
			*bad = wr;
			break;
		}
		recv_fill((struct mlx5_wqe_data_seg *)((uint8_t *)qp->rq.buf +
						       ((size_t)idx << qp->rq.wqe_shift)),
			  wr->sg_list, wr->num_sge, qp->rq.max_gs);
		qp->rq.wrid[idx] = wr->wr_id;
		qp->rq.head++;
		n++;
	}
	if (n) {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		qp->dbrec[MLX5_RCV_DBR] = htobe32(qp->rq.head & 0xffff);
	}
	return ret;
}

int mlx5_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct mlx5_qp *qp = to_mqp(ibqp);
	int ret;

	pthread_spin_lock(&qp->rq.lock);
	if (!qp->rq.wqe_cnt || ibqp->state == IBV_QPS_RESET) {
		*bad = wr;
		ret = EINVAL;
	} else {
		ret = rq_post_locked(qp, wr, bad);
	}
	pthread_spin_unlock(&qp->rq.lock);
	return ret;
}

int mlx5_rq_post(struct mlx5_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int ret;

	pthread_spin_lock(&qp->rq.lock);
	ret = rq_post_locked(qp, wr, bad);
	pthread_spin_unlock(&qp->rq.lock);
	return ret;
}

static inline struct mlx5_wqe_srq_next_seg *srq_wqe(struct mlx5_srq *srq, uint32_t i)
{
	return (struct mlx5_wqe_srq_next_seg *)((uint8_t *)srq->buf.addr +
						((size_t)i << srq->wqe_shift));
}

int mlx5_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad)
{
	struct mlx5_srq *srq = to_msrq(ibsrq);
	int ret = 0, n = 0;

	pthread_spin_lock(&srq->lock);
	for (; wr; wr = wr->next) {
		struct mlx5_wqe_srq_next_seg *w;
		uint32_t idx = srq->head;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_gs) {
			ret = EINVAL;
			*bad = wr;
			break;
		}
		if (srq->head == srq->tail) {	/* only the sentinel is free */
			ret = ENOMEM;
			*bad = wr;
			break;
		}
		w = srq_wqe(srq, idx);
		recv_fill((struct mlx5_wqe_data_seg *)(w + 1), wr->sg_list, wr->num_sge,
			  srq->max_gs);
		srq->wrid[idx] = wr->wr_id;
		srq->head = be16toh(w->next_wqe_index);
		srq->counter++;
		n++;
	}
	if (n) {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		srq->dbrec[0] = htobe32(srq->counter & 0xffff);
	}
	pthread_spin_unlock(&srq->lock);
	return ret;
}

/* A consumed SRQ WQE goes back to the end of the free list. */
void mlx5_srq_free_wqe(struct mlx5_srq *srq, uint32_t idx)
{
	pthread_spin_lock(&srq->lock);
	srq_wqe(srq, srq->tail)->next_wqe_index = htobe16((uint16_t)idx);
	srq->tail = idx;
	pthread_spin_unlock(&srq->lock);
}

/* ---- ibv_wr_*: the extended send API ---- */

static inline struct mlx5_qp *ex_to_mqp(struct ibv_qp_ex *ex)
{
	return SMX_CONTAINER_OF(ex, struct mlx5_qp, vqp.qp_ex);
}

static void ex_start(struct ibv_qp_ex *ex)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);

	pthread_spin_lock(&qp->sq.lock);
	qp->ex_err = sq_state_ok(qp) ? 0 : EINVAL;
	qp->ex_nreq = 0;
	qp->bld.ctrl = NULL;
	qp->bld.needs_data = false;
	qp->mk_cur = NULL;
	qp->ex_rb_post = qp->sq.cur_post;
	qp->ex_rb_head = qp->sq.head;
}

static int ex_complete(struct ibv_qp_ex *ex)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);
	int err = qp->ex_err;

	if (!err && qp->bld.needs_data)
		err = EINVAL;	/* an operation without its data setter */
	/* A failed batch is not rung and its WQEs are taken back: the device
	 * sees none of it. */
	if (err) {
		qp->sq.cur_post = qp->ex_rb_post;
		qp->sq.head = qp->ex_rb_head;
	} else if (qp->ex_nreq) {
		sq_doorbell(qp, qp->bld.ctrl);
	}
	pthread_spin_unlock(&qp->sq.lock);
	return err;
}

static void ex_abort(struct ibv_qp_ex *ex)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);

	qp->sq.cur_post = qp->ex_rb_post;
	qp->sq.head = qp->ex_rb_head;
	pthread_spin_unlock(&qp->sq.lock);
}

/* Starts one operation of the batch; data setters complete it. */
static struct mlx5_qp *ex_op(struct ibv_qp_ex *ex, uint8_t mop, uint8_t wop, __be32 imm,
			     bool needs_data)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);
	int ret;

	if (qp->ex_err)
		return NULL;
	if (qp->bld.needs_data) {
		qp->ex_err = EINVAL;
		return NULL;
	}
	ret = wqe_begin(qp, &qp->bld, mop, wop, ex->wr_flags, imm);
	if (ret) {
		qp->ex_err = ret;
		return NULL;
	}
	qp->bld.needs_data = needs_data;
	if (!needs_data) {
		wqe_finish(qp, &qp->bld, ex->wr_id);
		qp->ex_nreq++;
	}
	return qp;
}

static void ex_data_done(struct mlx5_qp *qp, int ret)
{
	if (ret) {
		qp->ex_err = ret;
		return;
	}
	qp->bld.needs_data = false;
	wqe_finish(qp, &qp->bld, qp->vqp.qp_ex.wr_id);
	qp->ex_nreq++;
}

static void ex_send(struct ibv_qp_ex *ex)
{
	ex_op(ex, MLX5_OPCODE_SEND, IBV_WC_SEND, 0, true);
}

static void ex_send_imm(struct ibv_qp_ex *ex, __be32 imm)
{
	ex_op(ex, MLX5_OPCODE_SEND_IMM, IBV_WC_SEND, imm, true);
}

static void ex_send_inv(struct ibv_qp_ex *ex, uint32_t rkey)
{
	ex_op(ex, MLX5_OPCODE_SEND_INVAL, IBV_WC_SEND, htobe32(rkey), true);
}

static void ex_rdma(struct ibv_qp_ex *ex, uint8_t mop, uint8_t wop, uint32_t rkey,
		    uint64_t raddr, __be32 imm)
{
	struct mlx5_qp *qp = ex_op(ex, mop, wop, imm, true);

	if (qp)
		wqe_raddr(qp, &qp->bld, raddr, rkey);
}

static void ex_rdma_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr)
{
	ex_rdma(ex, MLX5_OPCODE_RDMA_WRITE, IBV_WC_RDMA_WRITE, rkey, raddr, 0);
}

static void ex_rdma_write_imm(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr,
			      __be32 imm)
{
	ex_rdma(ex, MLX5_OPCODE_RDMA_WRITE_IMM, IBV_WC_RDMA_WRITE, rkey, raddr, imm);
}

static void ex_rdma_read(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr)
{
	ex_rdma(ex, MLX5_OPCODE_RDMA_READ, IBV_WC_RDMA_READ, rkey, raddr, 0);
}

static void ex_cmp_swp(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr,
		       uint64_t compare, uint64_t swap)
{
	struct mlx5_qp *qp = ex_op(ex, MLX5_OPCODE_ATOMIC_CS, IBV_WC_COMP_SWAP, 0, true);

	if (qp) {
		wqe_raddr(qp, &qp->bld, raddr, rkey);
		wqe_atomic(qp, &qp->bld, swap, compare);
	}
}

static void ex_fetch_add(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr, uint64_t add)
{
	struct mlx5_qp *qp = ex_op(ex, MLX5_OPCODE_ATOMIC_FA, IBV_WC_FETCH_ADD, 0, true);

	if (qp) {
		wqe_raddr(qp, &qp->bld, raddr, rkey);
		wqe_atomic(qp, &qp->bld, add, 0);
	}
}

static void ex_bind_mw(struct ibv_qp_ex *ex, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bi)
{
	struct mlx5_qp *qp;
	int ret;

	if (!mw || mw->type != IBV_MW_TYPE_2) {
		ex_to_mqp(ex)->ex_err = EINVAL;	/* type 1 binds via ibv_bind_mw() */
		return;
	}
	qp = ex_op(ex, MLX5_OPCODE_UMR, IBV_WC_BIND_MW, htobe32(mw->rkey), true);
	if (!qp)
		return;
	qp->bld.fm_ce_se |= MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	ret = wqe_umr_mw(qp, &qp->bld, IBV_MW_TYPE_2, rkey, bi);
	ex_data_done(qp, ret);
	if (!ret)
		mw->rkey = rkey;
}

static void ex_local_inv(struct ibv_qp_ex *ex, uint32_t rkey)
{
	static const struct ibv_mw_bind_info none;
	struct mlx5_qp *qp = ex_op(ex, MLX5_OPCODE_UMR, IBV_WC_LOCAL_INV, htobe32(rkey), true);

	if (!qp)
		return;
	qp->bld.fm_ce_se |= MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	ex_data_done(qp, wqe_umr_mw(qp, &qp->bld, IBV_MW_TYPE_2, 0, &none));
}

static void ex_set_ud_addr(struct ibv_qp_ex *ex, struct ibv_ah *ah, uint32_t qpn,
			   uint32_t qkey)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);
	struct mlx5_wqe_datagram_seg *d;

	if (qp->ex_err)
		return;
	if (!qp->bld.dgram || !ah) {
		qp->ex_err = EINVAL;
		return;
	}
	d = (struct mlx5_wqe_datagram_seg *)qp->bld.dgram;
	memcpy(&d->av, &SMX_CONTAINER_OF(ah, struct mlx5_ah, ibv_ah)->av, sizeof(d->av));
	d->av.dqp_dct = htobe32(qpn | MLX5_EXTENDED_UD_AV);
	d->av.key.qkey.qkey = htobe32(qkey);
}

static void ex_set_xrc_srqn(struct ibv_qp_ex *ex, uint32_t srqn)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);

	if (qp->ex_err)
		return;
	if (!qp->bld.xrc) {
		qp->ex_err = EINVAL;
		return;
	}
	((struct mlx5_wqe_xrc_seg *)qp->bld.xrc)->xrc_srqn = htobe32(srqn);
}

static void ex_set_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr, uint32_t len)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };

	if (qp->ex_err || !qp->bld.needs_data) {
		qp->ex_err = qp->ex_err ? qp->ex_err : EINVAL;
		return;
	}
	ex_data_done(qp, qp->qp_type == IBV_QPT_RAW_PACKET ?
		     wqe_raw_data(qp, &qp->bld, &sge, 1, false) :
		     wqe_sges(qp, &qp->bld, &sge, 1));
}

static void ex_set_sge_list(struct ibv_qp_ex *ex, size_t n, const struct ibv_sge *sg)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);

	if (qp->ex_err || !qp->bld.needs_data) {
		qp->ex_err = qp->ex_err ? qp->ex_err : EINVAL;
		return;
	}
	ex_data_done(qp, qp->qp_type == IBV_QPT_RAW_PACKET ?
		     wqe_raw_data(qp, &qp->bld, sg, n, false) :
		     wqe_sges(qp, &qp->bld, sg, n));
}

static bool ex_inline_ok(struct mlx5_qp *qp)
{
	uint8_t op = qp->bld.mlx5_opcode;

	return op != MLX5_OPCODE_RDMA_READ && op != MLX5_OPCODE_ATOMIC_CS &&
	       op != MLX5_OPCODE_ATOMIC_FA;
}

static void ex_set_inline(struct ibv_qp_ex *ex, void *addr, size_t len)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);
	struct ibv_data_buf b = { .addr = addr, .length = len };

	if (qp->ex_err || !qp->bld.needs_data || !ex_inline_ok(qp)) {
		qp->ex_err = qp->ex_err ? qp->ex_err : EINVAL;
		return;
	}
	if (qp->qp_type == IBV_QPT_RAW_PACKET) {
		struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = (uint32_t)len };

		ex_data_done(qp, len > UINT32_MAX ? EINVAL :
			     wqe_raw_data(qp, &qp->bld, &sge, 1, true));
		return;
	}
	ex_data_done(qp, wqe_inline(qp, &qp->bld, &b, 1));
}

static void ex_set_inline_list(struct ibv_qp_ex *ex, size_t n, const struct ibv_data_buf *b)
{
	struct mlx5_qp *qp = ex_to_mqp(ex);

	if (qp->ex_err || !qp->bld.needs_data || !ex_inline_ok(qp)) {
		qp->ex_err = qp->ex_err ? qp->ex_err : EINVAL;
		return;
	}
	if (qp->qp_type == IBV_QPT_RAW_PACKET) {
		struct ibv_sge sg[64];
		size_t i;

		if (n > 64) {
			qp->ex_err = EINVAL;
			return;
		}
		for (i = 0; i < n; i++) {
			sg[i].addr = (uintptr_t)b[i].addr;
			sg[i].length = (uint32_t)b[i].length;
			sg[i].lkey = 0;
		}
		ex_data_done(qp, wqe_raw_data(qp, &qp->bld, sg, n, true));
		return;
	}
	ex_data_done(qp, wqe_inline(qp, &qp->bld, b, n));
}

/* ---- mlx5dv_wr_*: the mlx5 extensions of the builder ---- */

static inline struct mlx5_qp *dv_to_mqp(struct mlx5dv_qp_ex *dv)
{
	return SMX_CONTAINER_OF(dv, struct mlx5_qp, dv_qp);
}

/*
 * mlx5dv_wr_set_dc_addr(_stream)(): the DCI WQE's datagram segment gets the
 * AH's address vector with dqp_dct = DCT number | extended AV and the DC
 * access key; a stream id goes to the control segment's
 * dci_stream_channel_id (also when the data setter already closed the WQE).
 */
static void dv_set_dc_addr_stream(struct mlx5dv_qp_ex *dv, struct ibv_ah *ah,
				  uint32_t dctn, uint64_t key, uint16_t stream)
{
	struct mlx5_qp *qp = dv_to_mqp(dv);
	struct mlx5_wqe_datagram_seg *d;

	if (qp->ex_err)
		return;
	if (!qp->bld.dgram || !ah) {
		qp->ex_err = EINVAL;
		return;
	}
	d = (struct mlx5_wqe_datagram_seg *)qp->bld.dgram;
	memcpy(&d->av, &SMX_CONTAINER_OF(ah, struct mlx5_ah, ibv_ah)->av, sizeof(d->av));
	d->av.dqp_dct = htobe32((dctn & 0xffffff) | MLX5_EXTENDED_UD_AV);
	d->av.key.dc_key = htobe64(key);
	qp->bld.stream_id = stream;
	if (qp->bld.ctrl)
		qp->bld.ctrl->dci_stream_channel_id = htobe16(stream);
}

static void dv_set_dc_addr(struct mlx5dv_qp_ex *dv, struct ibv_ah *ah, uint32_t dctn,
			   uint64_t key)
{
	dv_set_dc_addr_stream(dv, ah, dctn, key, 0);
}

/*
 * mlx5dv_wr_raw_wqe(): the caller's WQE goes into the ring as it is
 * (wrapping at the end), with only the WQE index in opmod_idx_opcode
 * rewritten; its size is the DS of its qpn_ds, its signalling the CQ_UPDATE
 * bits of its fm_ce_se. The completion reads IBV_WC_DRIVER2
 * (MLX5DV_WC_RAW_WQE). The device executes it like any other WQE and
 * rejects what is malformed (wrong QPN, unknown opcode, bad keys).
 */
static void dv_raw_wqe(struct mlx5dv_qp_ex *dv, const void *wqe)
{
	struct mlx5_qp *qp = dv_to_mqp(dv);
	const struct mlx5_wqe_ctrl_seg *src = wqe;
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint32_t ds, nbb, idx;

	if (qp->ex_err)
		return;
	if (qp->bld.needs_data || !wqe) {
		qp->ex_err = EINVAL;
		return;
	}
	ds = be32toh(src->qpn_ds) & 0x3f;
	nbb = (ds * 16 + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
	/* No bigger than the WQEs the ring was sized for: a full ring of
	 * them must still fit. */
	if (!ds || nbb > qp->sq.wqe_cnt / qp->sq.max_post) {
		qp->ex_err = EINVAL;
		return;
	}
	if (sq_full(qp)) {
		qp->ex_err = ENOMEM;
		return;
	}
	idx = qp->sq.cur_post & (qp->sq.wqe_cnt - 1);
	ctrl = sq_wqe(qp, qp->sq.cur_post);
	ring_copy(qp, (uint8_t *)ctrl, wqe, (size_t)ds * 16);
	ctrl->opmod_idx_opcode = htobe32((be32toh(src->opmod_idx_opcode) & 0xff0000ffu) |
					 (qp->sq.cur_post & 0xffff) << 8);
	qp->sq.wrid[idx] = qp->vqp.qp_ex.wr_id;
	qp->sq.wqe_head[idx] = qp->sq.head;
	qp->sq.wc_opcode[idx] = IBV_WC_DRIVER2;
	qp->sq.cur_post += nbb;
	qp->sq.head++;
	qp->bld.ctrl = ctrl;
	qp->ex_nreq++;
}

/*
 * mlx5dv_wr_memcpy(): an MMO WQE, opmod DMA -- ctrl, MMO metadata naming
 * the PD's scratch key, then the source and destination data segments.
 * The completion reads IBV_WC_DRIVER3 (MLX5DV_WC_MEMCPY). A length of 0 or
 * above max_wr_memcpy_length fails the batch with EINVAL at wr_complete.
 */
#define MLX5_OPC_MOD_MMO_DMA 0x1

/* Largest inline mkey layout: 128 bytes of ctrl, UMR control and mkey
 * context before it, at most 63 octowords in all, 64-byte aligned. */
#define MK_MAX_XLAT 832

static void dv_memcpy(struct mlx5dv_qp_ex *dv, uint32_t dest_lkey, uint64_t dest_addr,
		      uint32_t src_lkey, uint64_t src_addr, size_t length)
{
	struct mlx5_qp *qp = dv_to_mqp(dv);
	struct mlx5_context *ctx = to_mctx(qp->vqp.qp.context);
	struct mlx5_pd *pd;
	struct mlx5_wqe_data_seg *d;
	uint8_t *meta;
	uint32_t bc;

	if (qp->ex_err)
		return;
	if (!(qp->dv_send_ops & MLX5DV_QP_EX_WITH_MEMCPY) || !length ||
	    length > ctx->dma_max_size) {
		qp->ex_err = EINVAL;
		return;
	}
	pd = to_mpd(qp->vqp.qp.pd);
	if (pd->parent)
		pd = pd->parent;
	if (!pd->opaque_mr) {
		qp->ex_err = EINVAL;
		return;
	}
	bc = length == 1ull << 31 ? 0 : (uint32_t)length;	/* 0 means 2 GiB */
	if (!ex_op(&qp->vqp.qp_ex, MLX5_OPCODE_MMO, IBV_WC_DRIVER3, 0, true))
		return;
	qp->bld.opmod = MLX5_OPC_MOD_MMO_DMA;
	meta = qp->bld.seg;
	memset(meta, 0, 16);			/* mmo_control_31_0 = 0 */
	*(__be32 *)(meta + 4) = htobe32(pd->opaque_mr->lkey);
	*(__be64 *)(meta + 8) = htobe64((uint64_t)(uintptr_t)pd->opaque_buf);
	qp->bld.seg = seg_next(qp, qp->bld.seg, 16);
	qp->bld.ds++;
	d = (struct mlx5_wqe_data_seg *)qp->bld.seg;
	d->byte_count = htobe32(bc);
	d->lkey = htobe32(src_lkey);
	d->addr = htobe64(src_addr);
	qp->bld.seg = seg_next(qp, qp->bld.seg, sizeof(*d));
	d = (struct mlx5_wqe_data_seg *)qp->bld.seg;
	d->byte_count = htobe32(bc);
	d->lkey = htobe32(dest_lkey);
	d->addr = htobe64(dest_addr);
	qp->bld.seg = seg_next(qp, qp->bld.seg, sizeof(*d));
	qp->bld.ds += 2;
	ex_data_done(qp, 0);
}

/*
 * Indirect mkeys: mlx5dv_wr_mkey_configure() begins a UMR WQE on the mkey
 * (ctrl.imm = its lkey): UMR control {INLINE, mask FREE | MKEY} and a
 * zeroed mkey context (free = 0: the key becomes valid; no start address:
 * zero-based). Each of the num_setters setters that follow fills its part
 * once -- access flags into the mkey context, a layout appended inline
 * after it -- and the last one closes the WQE. A setter called twice, one
 * that does not follow a builder, or fewer setters than announced fail the
 * batch with EINVAL at wr_complete; signature and crypto setters fail it
 * with EOPNOTSUPP. The completion reads IBV_WC_DRIVER1 (MLX5DV_WC_UMR).
 * Layouts as rdma-core 44 writes them: a list of data segments (= KLMs)
 * padded to 64 bytes, or a repeat block {byte_count, op 0x400,
 * repeat_count, num_ent} followed by entries {stride = bytes_count +
 * bytes_skip, byte_count, lkey, addr}: that header takes one of the mkey's
 * entries. What fits: the QP's WQE size less ctrl, UMR control and mkey
 * context (4 list entries in the default 192-byte WQE; more with a larger
 * max_inline_data), and the mkey's own entries; more is ENOMEM.
 */
enum { MK_SET_ACCESS = 1, MK_SET_LAYOUT = 2, MK_SET_SIG = 4, MK_SET_CRYPTO = 8 };

#define MK_ACCESS_MASK                                                           \
	(MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |                        \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |                        \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |                       \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC)

static uint8_t mk_bs_selector(enum mlx5dv_block_size bs)
{
	switch (bs) {
	case MLX5DV_BLOCK_SIZE_512: return SMX_BS_SEL_512;
	case MLX5DV_BLOCK_SIZE_520: return SMX_BS_SEL_520;
	case MLX5DV_BLOCK_SIZE_4048: return SMX_BS_SEL_4048;
	case MLX5DV_BLOCK_SIZE_4096: return SMX_BS_SEL_4096;
	case MLX5DV_BLOCK_SIZE_4160: return SMX_BS_SEL_4160;
	default: return 0;
	}
}

/* Block format selector of a CRC domain, shifted into *_bfs_psv. */
static uint32_t mk_crc_bfs(const struct mlx5dv_sig_crc *crc)
{
	uint32_t bfs = crc->type == MLX5DV_SIG_CRC_TYPE_CRC32C ? SMX_BFS_CRC32C_BASE :
		       crc->type == MLX5DV_SIG_CRC_TYPE_CRC64_XP10 ?
		       SMX_BFS_CRC64_XP10_BASE : SMX_BFS_CRC32_BASE;

	if (!crc->seed)
		bfs |= SMX_BFS_CRC_SEED_BIT;
	return (bfs | SMX_BFS_CRC_REPEAT_BIT) << SMX_BFS_SHIFT;
}

static void mk_t10dif_inl(const struct mlx5dv_sig_t10dif *dif, struct smx_bsf_inl *inl)
{
	inl->vld_refresh = htobe16(SMX_BSF_INL_VALID | SMX_BSF_REFRESH_DIF);
	inl->dif_apptag = htobe16(dif->app_tag);
	inl->dif_reftag = htobe32(dif->ref_tag);
	inl->rp_inv_seed = SMX_BSF_REPEAT_BLOCK | (dif->bg ? SMX_BSF_SEED : 0);
	inl->sig_type = dif->bg_type == MLX5DV_SIG_T10DIF_CRC ? SMX_T10DIF_CRC :
								SMX_T10DIF_IPCS;
	if (dif->flags & MLX5DV_SIG_T10DIF_FLAG_REF_REMAP)
		inl->dif_inc_ref_guard_check |= SMX_BSF_INC_REFTAG;
	if (dif->flags & MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE)
		inl->dif_inc_ref_guard_check |= SMX_BSF_APPREF_ESCAPE;
	else if (dif->flags & MLX5DV_SIG_T10DIF_FLAG_APP_ESCAPE)
		inl->dif_inc_ref_guard_check |= SMX_BSF_APPTAG_ESCAPE;
	inl->dif_app_bitmask_check = htobe16(0xffff);
}

/*
 * Same block structure: both domains sign the same way, so the wire may
 * copy the memory signature's bytes (the default copy mask: all of those
 * that agree) instead of computing them.
 */
static bool mk_sbs(const struct mlx5_mkey_sig *sig, uint8_t *copy)
{
	const struct mlx5_sig_dom *m = &sig->mem, *w = &sig->wire;

	*copy = 0;
	if (m->type != w->type || m->block_size != w->block_size)
		return false;
	if (m->type == MLX5_SIG_CRC) {
		if (m->crc.type != w->crc.type)
			return false;
		*copy = m->crc.type == MLX5DV_SIG_CRC_TYPE_CRC64_XP10 ?
			MLX5DV_SIG_MASK_CRC64_XP10 : MLX5DV_SIG_MASK_CRC32;
		return true;
	}
	if (m->dif.bg_type == w->dif.bg_type && m->dif.bg == w->dif.bg)
		*copy |= MLX5DV_SIG_MASK_T10DIF_GUARD;
	if (m->dif.app_tag == w->dif.app_tag)
		*copy |= MLX5DV_SIG_MASK_T10DIF_APPTAG;
	if (m->dif.ref_tag == w->dif.ref_tag)
		*copy |= MLX5DV_SIG_MASK_T10DIF_REFTAG;
	return true;
}

/* The signature BSF of @sig (4 octowords, PRM layout); a crypto BSF
 * follows it when @crypto. */
static int mk_fill_bsf(const struct mlx5_mkey_sig *sig, struct smx_bsf *b, bool crypto)
{
	uint8_t copy = 0;
	bool sbs = false;

	memset(b, 0, sizeof(*b));
	b->basic.bsf_size_sbs = (crypto ? SMX_BSF_SIZE_SIG_AND_CRYPTO :
					  SMX_BSF_SIZE_WITH_INLINE) << SMX_BSF_SIZE_SHIFT;
	b->basic.raw_data_size = htobe32(UINT32_MAX);
	b->basic.check_byte_mask = sig->check_mask;
	if (sig->mem.type != MLX5_SIG_NONE || sig->wire.type != MLX5_SIG_NONE)
		b->basic.check_byte_mask = sig->check_mask;
	else
		b->basic.check_byte_mask = 0;
	if (sig->mem.type != MLX5_SIG_NONE) {
		uint32_t bfs = 0;

		if (sig->mem.type == MLX5_SIG_CRC)
			bfs = mk_crc_bfs(&sig->mem.crc);
		else
			mk_t10dif_inl(&sig->mem.dif, &b->m_inl);
		b->basic.m_bfs_psv = htobe32(bfs | (sig->mem_psv & SMX_BSF_PSV_INDEX_MASK));
		b->basic.mem_sel = mk_bs_selector(sig->mem.block_size);
	}
	if (sig->wire.type != MLX5_SIG_NONE) {
		uint32_t bfs = 0;

		if (sig->wire.type == MLX5_SIG_CRC)
			bfs = mk_crc_bfs(&sig->wire.crc);
		else
			mk_t10dif_inl(&sig->wire.dif, &b->w_inl);
		sbs = mk_sbs(sig, &copy);
		if (sig->flags & MLX5DV_SIG_BLOCK_ATTR_FLAG_COPY_MASK) {
			if (!sbs)
				return EINVAL;
			copy = sig->copy_mask;
		}
		b->basic.w_bfs_psv = htobe32(bfs | (sig->wire_psv & SMX_BSF_PSV_INDEX_MASK));
		if (sbs) {
			b->basic.bsf_size_sbs |= 1 << SMX_BSF_SBS_SHIFT;
			b->basic.wire_sel = copy;
		} else {
			b->basic.wire_sel = mk_bs_selector(sig->wire.block_size);
		}
	}
	return 0;
}

/*
 * The crypto BSF: AES-XTS, the order of crypto and signature (as rdma-core
 * 44 maps encrypt_on_tx and signature_crypto_order), the data unit, the
 * initial tweak turned big-endian (the multi-block engine this device has
 * takes it so), the DEK's object id and the key tag. EINVAL for a raw-data
 * order with both signature domains, which the device cannot do.
 */
static int mk_fill_crypto_bsf(const struct mlx5_mkey *mk, struct smx_crypto_bsf *cb)
{
	const struct mlx5_mkey_crypto *c = mk->crypto;
	bool after = c->order == MLX5DV_SIGNATURE_CRYPTO_ORDER_SIGNATURE_AFTER_CRYPTO_ON_TX;
	bool both = mk->sig && mk->sig->mem.type != MLX5_SIG_NONE &&
		    mk->sig->wire.type != MLX5_SIG_NONE;
	uint8_t order;
	int i;

	memset(cb, 0, sizeof(*cb));
	cb->bsf_size_type = (mk->sig ? SMX_BSF_SIZE_SIG_AND_CRYPTO : SMX_BSF_SIZE_WITH_INLINE)
			    << SMX_BSF_SIZE_SHIFT | SMX_BSF_TYPE_CRYPTO;
	if (c->encrypt_on_tx)
		order = after ? 2 /* raw wire */ : 0 /* encrypted wire + signature */;
	else
		order = after ? 1 /* encrypted memory + signature */ : 3 /* raw memory */;
	if ((order == 2 || order == 3) && both)
		return EINVAL;
	cb->enc_order = order;
	cb->enc_standard = 0;	/* AES-XTS */
	cb->raw_data_size = htobe32(UINT32_MAX);
	cb->bs_pointer = mk_bs_selector(c->data_unit_size);
	for (i = 0; i < 16; i++)
		cb->xts_init_tweak[i] = c->initial_tweak[15 - i];
	cb->rsvd_dek_ptr = htobe32(c->dek_id & 0xffffff);
	memcpy(cb->keytag, c->keytag, sizeof(cb->keytag));
	return 0;
}

/* What SET_PSV loads: T10-DIF bg << 48 | app tag << 32 | ref tag; CRC the
 * seed (CRC32/C in the upper half). */
static uint64_t mk_psv_value(const struct mlx5_sig_dom *d)
{
	if (d->type == MLX5_SIG_T10DIF)
		return (uint64_t)d->dif.bg << 48 | (uint64_t)d->dif.app_tag << 32 |
		       d->dif.ref_tag;
	return d->crc.type == MLX5DV_SIG_CRC_TYPE_CRC64_XP10 ? d->crc.seed :
							       d->crc.seed << 32;
}

/* A SET_PSV WQE after the UMR; @signal: whether it may complete. */
static void mk_set_psv(struct mlx5_qp *qp, uint32_t psv, uint64_t value, bool signal)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;
	unsigned int flags = ex->wr_flags;
	struct smx_set_psv_seg *ps;

	if (!signal)
		ex->wr_flags &= ~IBV_SEND_SIGNALED;
	qp = ex_op(ex, MLX5_OPCODE_SET_PSV, IBV_WC_DRIVER1, 0, true);
	ex->wr_flags = flags;
	if (!qp)
		return;
	if (!signal)
		qp->bld.fm_ce_se &= ~MLX5_WQE_CTRL_CQ_UPDATE;
	ps = (struct smx_set_psv_seg *)qp->bld.seg;
	memset(ps, 0, sizeof(*ps));
	ps->psv_index = htobe32(psv);
	ps->transient_signature = htobe64(value);
	qp->bld.seg = seg_next(qp, qp->bld.seg, sizeof(*ps));
	qp->bld.ds += sizeof(*ps) / 16;
	/* The next WQE waits for the key to be ready. */
	qp->bld.fm_ce_se |= MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	ex_data_done(qp, 0);
}

/* Tells the device, in the mkey WQE being closed, the signature errors the
 * CQ reported since the last one (mkey mask SIG_ERR); true if there were. */
static bool mk_ack_sig_err(struct mlx5_qp *qp, struct mlx5_mkey_sig *sig)
{
	bool updated;

	pthread_mutex_lock(&sig->lock);
	updated = sig->err_count_updated;
	if (updated) {
		qp->mk_uc->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR);
		qp->mk_mkc->flags_pd |= htobe32((sig->err_count & 1) <<
						SMX_MKC_SEG_SIG_ERR_CNT_SHIFT);
		sig->err_count_updated = false;
	}
	pthread_mutex_unlock(&sig->lock);
	return updated;
}

/* The SET_PSV WQEs after a UMR that (re)loaded a signature BSF. */
static void mk_set_psvs(struct mlx5_qp *qp, struct mlx5_mkey_sig *sig)
{
	bool wire = sig->wire.type != MLX5_SIG_NONE;

	if (sig->mem.type != MLX5_SIG_NONE)
		mk_set_psv(qp, sig->mem_psv, mk_psv_value(&sig->mem), !wire);
	if (wire)
		mk_set_psv(qp, sig->wire_psv, mk_psv_value(&sig->wire), true);
}

/*
 * Closes the WQE configuring a CRYPTO mkey, as rdma-core 44 does: the BSFs
 * are sent when a setter changed something (crypto or signature, or the
 * signature was reset) -- the signature BSF first if the key has one, then
 * the crypto BSF whenever crypto is configured -- and the signature's
 * PSVs follow when it was updated.
 */
static void mk_close_crypto(struct mlx5_qp *qp)
{
	struct mlx5_mkey *mk = qp->mk_cur;
	struct mlx5_mkey_sig *sig = mk->sig;
	struct mlx5_mkey_crypto *c = mk->crypto;
	uint8_t bsf[sizeof(struct smx_bsf) + sizeof(struct smx_crypto_bsf)];
	bool set_psv = false, with_crypto;
	uint32_t n = 0;
	int ret;

	if (sig && mk_ack_sig_err(qp, sig))
		set_psv = sig->state == MLX5_SIG_ST_SET;
	if ((sig && (sig->state == MLX5_SIG_ST_UPDATED || sig->state == MLX5_SIG_ST_RESET)) ||
	    c->state == MLX5_CRYPTO_ST_UPDATED) {
		uint32_t wqe_bytes = qp->sq.wqe_cnt / qp->sq.max_post * MLX5_SEND_WQE_BB;
		uint32_t used = 128 + be16toh(qp->mk_uc->klm_octowords) * 16u;

		with_crypto = c->state == MLX5_CRYPTO_ST_UPDATED || c->state == MLX5_CRYPTO_ST_SET;
		if (sig) {
			ret = mk_fill_bsf(sig, (struct smx_bsf *)bsf, with_crypto);
			if (ret) {
				qp->ex_err = ret;
				return;
			}
			n += sizeof(struct smx_bsf);
			set_psv |= sig->state == MLX5_SIG_ST_UPDATED;
		}
		if (with_crypto) {
			ret = mk_fill_crypto_bsf(mk, (struct smx_crypto_bsf *)(bsf + n));
			if (ret) {
				qp->ex_err = ret;
				return;
			}
			n += sizeof(struct smx_crypto_bsf);
		}
		if (used + n > wqe_bytes) {
			qp->ex_err = ENOMEM;	/* layout + BSFs too large */
			return;
		}
		qp->bld.seg = ring_copy(qp, qp->bld.seg, bsf, n);
		qp->bld.ds += n / 16;
		qp->mk_uc->bsf_octowords = htobe16((uint16_t)(n / 16));
		qp->mk_uc->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
		qp->mk_mkc->flags_pd |= htobe32(SMX_MKC_SEG_FLAGS_BSF_ENABLE);
	}
	if (set_psv)
		qp->bld.fm_ce_se &= ~MLX5_WQE_CTRL_CQ_UPDATE;
	qp->mk_cur = NULL;
	ex_data_done(qp, 0);
	if (set_psv)
		mk_set_psvs(qp, sig);
}

/*
 * Closes the mkey WQE. For a signature mkey, as rdma-core 44 does: a BSF
 * (after the layout) when a sig_block setter ran, the BSF disabled when
 * none is configured, the error count the CQ saw acknowledged; then one
 * SET_PSV per signed domain, the UMR's own completion suppressed so that
 * only the last WQE completes.
 */
static void mk_close(struct mlx5_qp *qp)
{
	struct mlx5_mkey *mk = qp->mk_cur;
	struct mlx5_mkey_sig *sig = mk->sig;
	bool set_psv = false;

	if (mk->crypto) {
		mk_close_crypto(qp);
		return;
	}
	if (sig) {
		if (sig->state != MLX5_SIG_ST_UPDATED && sig->state != MLX5_SIG_ST_SET)
			qp->mk_uc->mkey_mask |=
				htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
		if (mk_ack_sig_err(qp, sig))
			set_psv = sig->state == MLX5_SIG_ST_SET;
		if (sig->state == MLX5_SIG_ST_UPDATED) {
			uint32_t wqe_bytes = qp->sq.wqe_cnt / qp->sq.max_post *
					     MLX5_SEND_WQE_BB;
			uint32_t used = 128 + be16toh(qp->mk_uc->klm_octowords) * 16u;
			struct smx_bsf bsf;
			int ret;

			if (used + sizeof(bsf) > wqe_bytes) {
				qp->ex_err = ENOMEM;	/* layout + BSF too large */
				return;
			}
			ret = mk_fill_bsf(sig, &bsf, false);
			if (ret) {
				qp->ex_err = ret;
				return;
			}
			qp->bld.seg = ring_copy(qp, qp->bld.seg, &bsf, sizeof(bsf));
			qp->bld.ds += sizeof(bsf) / 16;
			qp->mk_uc->bsf_octowords = htobe16(sizeof(bsf) / 16);
			qp->mk_uc->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
			qp->mk_mkc->flags_pd |= htobe32(SMX_MKC_SEG_FLAGS_BSF_ENABLE);
			set_psv = true;
		}
	}
	if (set_psv)
		qp->bld.fm_ce_se &= ~MLX5_WQE_CTRL_CQ_UPDATE;
	qp->mk_cur = NULL;
	ex_data_done(qp, 0);
	if (set_psv)
		mk_set_psvs(qp, sig);
}

/* The next setter of the mkey WQE being built, each kind once. */
static struct mlx5_qp *mk_setter(struct mlx5dv_qp_ex *dv, uint8_t which)
{
	struct mlx5_qp *qp = dv_to_mqp(dv);

	if (qp->ex_err)
		return NULL;
	if (!qp->mk_cur || !qp->bld.needs_data || (qp->mk_seen & which)) {
		qp->ex_err = EINVAL;
		return NULL;
	}
	qp->mk_seen |= which;
	return qp;
}

static void mk_setter_done(struct mlx5_qp *qp)
{
	if (--qp->mk_setters_left == 0)
		mk_close(qp);
}

static void dv_mkey_configure(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *mkey,
			      uint8_t num_setters, struct mlx5dv_mkey_conf_attr *attr)
{
	struct mlx5_qp *qp = dv_to_mqp(dv);
	struct mlx5_wqe_umr_ctrl_seg *uc;
	struct mlx5_wqe_mkey_context_seg *mkc;

	if (qp->ex_err)
		return;
	if (!(qp->vqp.qp_ex.wr_flags & IBV_SEND_INLINE) ||
	    (attr && (attr->comp_mask ||
		      (attr->conf_flags & ~(uint32_t)MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR)))) {
		qp->ex_err = EOPNOTSUPP;	/* only inline layouts */
		return;
	}
	if (!mkey || (mkey->lkey & 0xff)) {
		qp->ex_err = EINVAL;
		return;
	}
	if (!ex_op(&qp->vqp.qp_ex, MLX5_OPCODE_UMR, IBV_WC_DRIVER1, htobe32(mkey->lkey), true))
		return;
	{
		struct mlx5_mkey_sig *sig = SMX_CONTAINER_OF(mkey, struct mlx5_mkey, dv)->sig;

		/* The last configuration is in force now; a reset drops it. */
		if (sig && attr && (attr->conf_flags & MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR)) {
			sig->mem.type = sig->wire.type = MLX5_SIG_NONE;
			sig->state = MLX5_SIG_ST_RESET;
		} else if (sig && sig->state == MLX5_SIG_ST_UPDATED) {
			sig->state = MLX5_SIG_ST_SET;
		} else if (sig && sig->state == MLX5_SIG_ST_RESET) {
			sig->state = MLX5_SIG_ST_NONE;
		}
		{
			struct mlx5_mkey_crypto *c =
				SMX_CONTAINER_OF(mkey, struct mlx5_mkey, dv)->crypto;

			if (c && c->state == MLX5_CRYPTO_ST_UPDATED)
				c->state = MLX5_CRYPTO_ST_SET;
		}
	}
	/* Later WQEs wait for the key (initiator small fence). */
	qp->bld.fm_ce_se |= MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	uc = (struct mlx5_wqe_umr_ctrl_seg *)qp->bld.seg;
	memset(uc, 0, sizeof(*uc));
	uc->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	uc->mkey_mask = htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE | MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY);
	qp->bld.seg = seg_next(qp, qp->bld.seg, sizeof(*uc));
	qp->bld.ds += sizeof(*uc) / 16;
	mkc = (struct mlx5_wqe_mkey_context_seg *)qp->bld.seg;
	memset(mkc, 0, sizeof(*mkc));
	mkc->qpn_mkey = htobe32(0xffffff00u | (mkey->lkey & 0xff));
	qp->bld.seg = seg_next(qp, qp->bld.seg, sizeof(*mkc));
	qp->bld.ds += sizeof(*mkc) / 16;
	qp->mk_cur = SMX_CONTAINER_OF(mkey, struct mlx5_mkey, dv);
	qp->mk_uc = uc;
	qp->mk_mkc = mkc;
	qp->mk_seen = 0;
	qp->mk_setters_left = num_setters;
	if (!num_setters)
		mk_close(qp);
}

static void dv_set_mkey_access_flags(struct mlx5dv_qp_ex *dv, uint32_t acc)
{
	struct mlx5_qp *qp = mk_setter(dv, MK_SET_ACCESS);

	if (!qp)
		return;
	if (acc & ~(uint32_t)(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)) {
		qp->ex_err = EINVAL;
		return;
	}
	qp->mk_uc->mkey_mask |= htobe64(MK_ACCESS_MASK);
	qp->mk_mkc->access_flags =
		(acc & IBV_ACCESS_LOCAL_WRITE ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE : 0) |
		(acc & IBV_ACCESS_REMOTE_WRITE ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE : 0) |
		(acc & IBV_ACCESS_REMOTE_READ ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ : 0) |
		(acc & IBV_ACCESS_REMOTE_ATOMIC ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC : 0);
	mk_setter_done(qp);
}

static void mk_layout(struct mlx5dv_qp_ex *dv, uint32_t repeat, uint16_t n,
		      const struct mlx5dv_mr_interleaved *data, const struct ibv_sge *sge)
{
	struct mlx5_qp *qp = mk_setter(dv, MK_SET_LAYOUT);
	uint8_t xlat[MK_MAX_XLAT] __attribute__((aligned(8))) = {};
	uint32_t wqe_bytes, room, max, bytes, i;
	uint64_t reglen = 0;

	if (!qp)
		return;
	wqe_bytes = qp->sq.wqe_cnt / qp->sq.max_post * MLX5_SEND_WQE_BB;
	room = wqe_bytes > 128 ? (wqe_bytes - 128) / 16 : 0;
	if (room > sizeof(xlat) / 16)
		room = sizeof(xlat) / 16;
	max = room < qp->mk_cur->num_desc ? room : qp->mk_cur->num_desc;
	/* An interleaved layout's repeat header takes an entry of its own. */
	if (data)
		max = max ? max - 1 : 0;
	if (!n || (data && !repeat) || (!data && !sge)) {
		qp->ex_err = EINVAL;
		return;
	}
	if (n > max) {
		qp->ex_err = ENOMEM;
		return;
	}
	if (data) {
		struct mlx5_wqe_umr_repeat_block_seg *rb = (void *)xlat;
		uint64_t bc = 0;

		for (i = 0; i < n; i++) {
			struct mlx5_wqe_umr_repeat_ent_seg *en = &rb->entries[i];
			uint64_t stride = (uint64_t)data[i].bytes_count + data[i].bytes_skip;

			if (!data[i].bytes_count || stride > 0xffff) {
				qp->ex_err = EINVAL;	/* 16-bit entry fields */
				return;
			}
			en->va = htobe64(data[i].addr);
			en->byte_count = htobe16((uint16_t)data[i].bytes_count);
			en->stride = htobe16((uint16_t)stride);
			en->memkey = htobe32(data[i].lkey);
			bc += data[i].bytes_count;
		}
		rb->op = htobe32(0x400);
		rb->num_ent = htobe16(n);
		rb->repeat_count = htobe32(repeat);
		rb->byte_count = htobe32((uint32_t)bc);
		reglen = bc * repeat;
		bytes = (n + 1u) * 16;
	} else {
		struct mlx5_wqe_data_seg *d = (void *)xlat;

		for (i = 0; i < n; i++) {
			d[i].byte_count = htobe32(sge[i].length);
			d[i].lkey = htobe32(sge[i].lkey);
			d[i].addr = htobe64(sge[i].addr);
			reglen += sge[i].length;
		}
		bytes = n * 16u;
	}
	bytes = (bytes + 63) & ~63u;
	qp->mk_uc->klm_octowords = htobe16((uint16_t)(bytes / 16));
	qp->mk_uc->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN);
	qp->mk_mkc->len = htobe64(reglen);
	qp->bld.seg = ring_copy(qp, qp->bld.seg, xlat, bytes);
	qp->bld.ds += bytes / 16;
	qp->mk_cur->length = reglen;
	mk_setter_done(qp);
}

static void dv_set_mkey_layout_list(struct mlx5dv_qp_ex *dv, uint16_t n,
				    const struct ibv_sge *sge)
{
	mk_layout(dv, 0, n, NULL, sge);
}

static void dv_set_mkey_layout_interleaved(struct mlx5dv_qp_ex *dv, uint32_t repeat,
					   uint16_t n,
					   const struct mlx5dv_mr_interleaved *data)
{
	if (!data) {
		if (!dv_to_mqp(dv)->ex_err)
			dv_to_mqp(dv)->ex_err = EINVAL;
		return;
	}
	mk_layout(dv, repeat, n, data, NULL);
}

/* A signature domain as rdma-core 44 accepts it, within the device's caps. */
static bool mk_sig_dom_ok(const struct mlx5dv_sig_block_domain *d)
{
	if (d->comp_mask || mk_bs_selector(d->block_size) == 0)
		return false;
	switch (d->sig_type) {
	case MLX5DV_SIG_TYPE_T10DIF:
		return d->sig.dif && (d->sig.dif->bg == 0 || d->sig.dif->bg == 0xffff) &&
		       (d->sig.dif->bg_type == MLX5DV_SIG_T10DIF_CRC ||
			d->sig.dif->bg_type == MLX5DV_SIG_T10DIF_CSUM) &&
		       !(d->sig.dif->flags & ~(uint16_t)(MLX5DV_SIG_T10DIF_FLAG_REF_REMAP |
							 MLX5DV_SIG_T10DIF_FLAG_APP_ESCAPE |
							 MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE));
	case MLX5DV_SIG_TYPE_CRC:
		if (!d->sig.crc)
			return false;
		if (d->sig.crc->type == MLX5DV_SIG_CRC_TYPE_CRC32 ||
		    d->sig.crc->type == MLX5DV_SIG_CRC_TYPE_CRC32C)
			return d->sig.crc->seed == 0 || d->sig.crc->seed == UINT32_MAX;
		return false;	/* CRC64_XP10: not offered by the device */
	default:
		return false;
	}
}

static void mk_sig_dom_copy(const struct mlx5dv_sig_block_domain *src,
			    struct mlx5_sig_dom *dst)
{
	memset(dst, 0, sizeof(*dst));
	if (!src)
		return;
	if (src->sig_type == MLX5DV_SIG_TYPE_CRC) {
		dst->type = MLX5_SIG_CRC;
		dst->crc = *src->sig.crc;
	} else {
		dst->type = MLX5_SIG_T10DIF;
		dst->dif = *src->sig.dif;
	}
	dst->block_size = src->block_size;
}

static void dv_set_mkey_sig_block(struct mlx5dv_qp_ex *dv,
				  const struct mlx5dv_sig_block_attr *attr)
{
	struct mlx5_qp *qp = mk_setter(dv, MK_SET_SIG);
	struct mlx5_mkey_sig *sig;

	if (!qp)
		return;
	sig = qp->mk_cur->sig;
	if (!sig || !attr || (!attr->mem && !attr->wire) || attr->comp_mask ||
	    (attr->flags & ~(uint32_t)MLX5DV_SIG_BLOCK_ATTR_FLAG_COPY_MASK) ||
	    (attr->mem && !mk_sig_dom_ok(attr->mem)) ||
	    (attr->wire && !mk_sig_dom_ok(attr->wire)) ||
	    (attr->mem && attr->wire && attr->mem->block_size != attr->wire->block_size)) {
		/* (different block sizes per domain are not supported) */
		qp->ex_err = EINVAL;
		return;
	}
	mk_sig_dom_copy(attr->mem, &sig->mem);
	mk_sig_dom_copy(attr->wire, &sig->wire);
	sig->flags = attr->flags;
	sig->check_mask = attr->check_mask;
	sig->copy_mask = attr->copy_mask;
	sig->state = MLX5_SIG_ST_UPDATED;
	mk_setter_done(qp);
}

/* mlx5dv_wr_set_mkey_crypto: checked as rdma-core 44 does; the BSF is
 * written when the WQE closes. */
static void dv_set_mkey_crypto(struct mlx5dv_qp_ex *dv, const struct mlx5dv_crypto_attr *attr)
{
	struct mlx5_qp *qp = mk_setter(dv, MK_SET_CRYPTO);
	struct mlx5_mkey_crypto *c;

	if (!qp)
		return;
	c = qp->mk_cur->crypto;
	if (!c || !attr || attr->comp_mask || !attr->dek ||
	    attr->crypto_standard != MLX5DV_CRYPTO_STANDARD_AES_XTS ||
	    (attr->signature_crypto_order !=
		     MLX5DV_SIGNATURE_CRYPTO_ORDER_SIGNATURE_AFTER_CRYPTO_ON_TX &&
	     attr->signature_crypto_order !=
		     MLX5DV_SIGNATURE_CRYPTO_ORDER_SIGNATURE_BEFORE_CRYPTO_ON_TX) ||
	    !mk_bs_selector(attr->data_unit_size)) {
		qp->ex_err = EINVAL;
		return;
	}
	c->encrypt_on_tx = attr->encrypt_on_tx;
	c->order = attr->signature_crypto_order;
	c->data_unit_size = attr->data_unit_size;
	memcpy(c->initial_tweak, attr->initial_tweak, sizeof(c->initial_tweak));
	memcpy(c->keytag, attr->keytag, sizeof(c->keytag));
	c->dek_id = attr->dek->id;
	c->state = MLX5_CRYPTO_ST_UPDATED;
	mk_setter_done(qp);
}

static void dv_mr_list(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *mkey, uint32_t acc,
		       uint16_t n, struct ibv_sge *sge)
{
	struct mlx5dv_mkey_conf_attr attr = {};

	dv_mkey_configure(dv, mkey, 2, &attr);
	dv_set_mkey_access_flags(dv, acc);
	mk_layout(dv, 0, n, NULL, sge);
}

static void dv_mr_interleaved(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *mkey,
			      uint32_t acc, uint32_t repeat, uint16_t n,
			      struct mlx5dv_mr_interleaved *data)
{
	struct mlx5dv_mkey_conf_attr attr = {};

	dv_mkey_configure(dv, mkey, 2, &attr);
	dv_set_mkey_access_flags(dv, acc);
	dv_set_mkey_layout_interleaved(dv, repeat, n, data);
}

SMX_EXPORT struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *ex)
{
	if (!ex) {
		errno = EINVAL;
		return NULL;
	}
	return &ex_to_mqp(ex)->dv_qp;
}

/* Operations a QP-ex may be created with (IBV_QP_EX_WITH_*). */
uint64_t mlx5_qp_ex_supported_ops(enum ibv_qp_type t)
{
	uint64_t sends = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

	switch (t) {
	case IBV_QPT_UD:
		return sends;
	case IBV_QPT_UC:
		return sends | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		return sends | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV |
		       IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV;
	case IBV_QPT_RAW_PACKET:
		return IBV_QP_EX_WITH_SEND;
	case IBV_QPT_DRIVER:	/* DCI */
		return sends | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	default:
		return 0;
	}
}

void mlx5_qp_ex_init(struct mlx5_qp *qp)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;

	qp->vqp.comp_mask |= VERBS_QP_EX;
	ex->wr_start = ex_start;
	ex->wr_complete = ex_complete;
	ex->wr_abort = ex_abort;
	ex->wr_send = ex_send;
	ex->wr_send_imm = ex_send_imm;
	ex->wr_send_inv = ex_send_inv;
	ex->wr_rdma_write = ex_rdma_write;
	ex->wr_rdma_write_imm = ex_rdma_write_imm;
	ex->wr_rdma_read = ex_rdma_read;
	ex->wr_atomic_cmp_swp = ex_cmp_swp;
	ex->wr_atomic_fetch_add = ex_fetch_add;
	ex->wr_bind_mw = ex_bind_mw;
	ex->wr_local_inv = ex_local_inv;
	ex->wr_set_ud_addr = ex_set_ud_addr;
	ex->wr_set_xrc_srqn = ex_set_xrc_srqn;
	ex->wr_set_sge = ex_set_sge;
	ex->wr_set_sge_list = ex_set_sge_list;
	ex->wr_set_inline_data = ex_set_inline;
	ex->wr_set_inline_data_list = ex_set_inline_list;
	if (qp->qp_type == IBV_QPT_DRIVER) {
		qp->dv_qp.wr_set_dc_addr = dv_set_dc_addr;
		qp->dv_qp.wr_set_dc_addr_stream = dv_set_dc_addr_stream;
	}
	if (qp->dv_send_ops) {
		qp->dv_qp.wr_raw_wqe = dv_raw_wqe;
		if (qp->qp_type == IBV_QPT_RC)
			qp->dv_qp.wr_memcpy = dv_memcpy;
		if (qp->dv_send_ops & MLX5DV_QP_EX_WITH_MR_LIST)
			qp->dv_qp.wr_mr_list = dv_mr_list;
		if (qp->dv_send_ops & MLX5DV_QP_EX_WITH_MR_INTERLEAVED)
			qp->dv_qp.wr_mr_interleaved = dv_mr_interleaved;
		if (qp->dv_send_ops & MLX5DV_QP_EX_WITH_MKEY_CONFIGURE) {
			qp->dv_qp.wr_mkey_configure = dv_mkey_configure;
			qp->dv_qp.wr_set_mkey_access_flags = dv_set_mkey_access_flags;
			qp->dv_qp.wr_set_mkey_layout_list = dv_set_mkey_layout_list;
			qp->dv_qp.wr_set_mkey_layout_interleaved =
				dv_set_mkey_layout_interleaved;
			qp->dv_qp.wr_set_mkey_sig_block = dv_set_mkey_sig_block;
			qp->dv_qp.wr_set_mkey_crypto = dv_set_mkey_crypto;
		}
	}
}

/*
 * mlx5dv_qp_cancel_posted_send_wrs(): on a QP the device stopped in SQD
 * (signature pipelining), the WQEs it has not started -- from the SQ's
 * hardware counter in QUERY_QP to what software posted -- whose wr_id
 * matches become NOPs. They keep their CQ-update bits, so a signalled one
 * still completes (successfully, with its original opcode) once the QP is
 * back in RTS.
 */
SMX_EXPORT int mlx5dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *dv, uint64_t wr_id)
{
	uint32_t in[DEVX_ST_SZ_DW(query_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_qp_out)] = {};
	struct mlx5_qp *qp;
	uint16_t at;
	int ret, n = 0;

	if (!dv)
		return -EINVAL;
	qp = dv_to_mqp(dv);
	if (!qp->sq.wqe_cnt)
		return -EINVAL;
	pthread_spin_lock(&qp->sq.lock);
	DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, in, qpn, qp->qpn);
	ret = mlx5_cmd_exec(to_mctx(qp->vqp.qp.context), in, sizeof(in), out, sizeof(out));
	if (ret) {
		n = -ret;
		goto out;
	}
	if (DEVX_GET(query_qp_out, out, qpc.state) != MLX5_QPC_STATE_SQD) {
		n = -EINVAL;	/* only a stopped send queue can be edited */
		goto out;
	}
	at = (uint16_t)DEVX_GET(query_qp_out, out, qpc.hw_sq_wqebb_counter);
	while (at != (uint16_t)qp->sq.cur_post) {
		uint32_t idx = at & (qp->sq.wqe_cnt - 1);
		struct mlx5_wqe_ctrl_seg *c =
			(void *)((uint8_t *)qp->sq.buf + ((size_t)idx << MLX5_SEND_WQE_SHIFT));
		uint32_t ds = be32toh(c->qpn_ds) & 0x3f;

		if (!ds)
			break;	/* not a WQE start: stop rather than guess */
		if (qp->sq.wrid[idx] == wr_id) {
			c->opmod_idx_opcode = htobe32((be32toh(c->opmod_idx_opcode) &
						       0x00ffff00u) | MLX5_OPCODE_NOP);
			n++;
		}
		at = (uint16_t)(at + (ds * 16 + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB);
	}
out:
	pthread_spin_unlock(&qp->sq.lock);
	return n;
}
