/* SPDX-License-Identifier: MIT */
/*
 * Reaping completions: 64-byte CQEs owned by software when their owner bit
 * matches the consumer index's pass, decoded into ibv_wc (ibv_poll_cq) or
 * read field by field (the ibv_cq_ex start/next/end_poll API).
 */
#include <errno.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

#define CQE_G_BITS(f) ((be32toh(f) >> 28) & 3)

static inline struct mlx5_cqe64 *cqe_at(struct mlx5_cq *cq, uint32_t n)
{
	/* A 128-byte CQE carries the 64-byte one in its second half. */
	return (struct mlx5_cqe64 *)((uint8_t *)cq->buf.addr +
				     (size_t)(n & (cq->cqe_cnt - 1)) * cq->cqe_size +
				     (cq->cqe_size - 64));
}

/* Completions a compressed session stands for at most (the device's
 * cqe_compression_max_num is 64). */
#define CQ_COMP_MAX 64

/*
 * A compressed CQE session at slot @idx (CQE compression, the basic
 * layout): the title -- the first completion, format bits 3, byte_cnt the
 * number n of completions --, the first array of 8 mini CQEs in the next
 * slot and the k-th array in slot 8k. It is written out in place as the n
 * plain CQEs it stands for (the title's fields, each mini CQE's byte count
 * and checksum or RSS hash, consecutive WQE counters), each with the owner
 * bit of its own slot, so the rest of the poller and cq_clean see ordinary
 * CQEs -- and the next pass of the ring sees the right owner bits, which a
 * mini CQE array would not have left.
 */
static void cqe_expand(struct mlx5_cq *cq, uint32_t idx)
{
	struct mlx5_cqe64 t = *cqe_at(cq, idx);
	uint32_t n = be32toh(t.byte_cnt), j;
	uint16_t wc = be16toh(t.wqe_counter);
	uint8_t mini[CQ_COMP_MAX][8];

	if (n > CQ_COMP_MAX || n > cq->cqe_cnt)
		n = CQ_COMP_MAX < cq->cqe_cnt ? CQ_COMP_MAX : cq->cqe_cnt;
	/* every mini CQE first: the expansion overwrites their arrays */
	for (j = 0; j < n; j++)
		memcpy(mini[j], (uint8_t *)cqe_at(cq, j < 8 ? idx + 1 : idx + (j & ~7u)) +
			       8 * (j & 7), 8);
	for (j = 0; j < n; j++) {
		struct mlx5_cqe64 c = t, *d = cqe_at(cq, idx + j);

		memcpy(&c.byte_cnt, mini[j] + 4, 4);
		if (cq->comp_fmt == 0)
			memcpy((uint8_t *)&c + 12, mini[j], 4);	/* RSS hash result */
		else
			memcpy((uint8_t *)&c + 20, mini[j], 2);	/* checksum */
		c.wqe_counter = htobe16((uint16_t)(wc + j));
		c.op_own = (uint8_t)((t.op_own & 0xf0) | !!((idx + j) & cq->cqe_cnt));
		memcpy(d, &c, sizeof(c));
	}
}

/* Is the CQE at @idx software's (compressed sessions expanded)? */
static inline bool cqe_owned(struct mlx5_cq *cq, uint32_t idx)
{
	struct mlx5_cqe64 *cqe = cqe_at(cq, idx);
	uint8_t own = __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);

	if ((own >> 4) == MLX5_CQE_INVALID ||
	    ((own & MLX5_CQE_OWNER_MASK) ^ !!(idx & cq->cqe_cnt)))
		return false;
	if (((own >> 2) & 3) == 3 && cq->comp_fmt >= 0)
		cqe_expand(cq, idx);
	return true;
}

/* The next CQE if software owns it, else NULL. */
static inline struct mlx5_cqe64 *cqe_next_sw(struct mlx5_cq *cq)
{
	return cqe_owned(cq, cq->cons_index) ? cqe_at(cq, cq->cons_index) : NULL;
}

static inline void cq_update_ci(struct mlx5_cq *cq);

/*
 * The next CQE for the application: signature error CQEs (opcode 12, which
 * the device writes before the completion of the transfer that found the
 * error) are filed with their mkey for mlx5dv_mkey_check() and consumed
 * here, as rdma-core does.
 */
static struct mlx5_cqe64 *cqe_next_user(struct mlx5_cq *cq)
{
	struct mlx5_cqe64 *cqe;
	bool consumed = false;

	while ((cqe = cqe_next_sw(cq)) && mlx5dv_get_cqe_opcode(cqe) == MLX5_CQE_SIG_ERR) {
		if (mlx5_mkey_sig_error(to_mdev(cq->ibv_cq.context->device),
					(const struct smx_sigerr_cqe *)cqe))
			smx_dbg("cq 0x%x: signature error CQE for unknown mkey 0x%x",
				cq->cqn,
				be32toh(((const struct smx_sigerr_cqe *)cqe)->mkey));
		cq->cons_index++;
		consumed = true;
	}
	if (consumed)
		cq_update_ci(cq);
	return cqe;
}

static enum ibv_wc_status err_syndrome_to_status(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR: return IBV_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR: return IBV_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR: return IBV_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR: return IBV_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR: return IBV_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR: return IBV_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR: return IBV_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR: return IBV_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR: return IBV_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR: return IBV_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR: return IBV_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR: return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR: return IBV_WC_REM_ABORT_ERR;
	default: return IBV_WC_GENERAL_ERR;
	}
}

static struct mlx5_qp *cqe_qp(struct mlx5_cq *cq, uint32_t qpn)
{
	struct mlx5_device *mdev = to_mdev(cq->ibv_cq.context->device);

	if (cq->last_qp && cq->last_qp->qpn == qpn)
		return cq->last_qp;
	cq->last_qp = mlx5_table_find(&mdev->qps, qpn);
	return cq->last_qp;
}

/* A raw packet QP by the user index its CQEs carry (raw.c). */
static struct mlx5_qp *cqe_raw_qp(struct mlx5_cq *cq, uint32_t uidx)
{
	struct mlx5_device *mdev = to_mdev(cq->ibv_cq.context->device);

	if (cq->last_qp && cq->last_qp->qp_type == IBV_QPT_RAW_PACKET &&
	    cq->last_qp->raw.uidx == uidx)
		return cq->last_qp;
	cq->last_qp = mlx5_table_find(&mdev->uidx, uidx);
	return cq->last_qp;
}

/* Retire the send WQE at @wqe_counter (and the unsignaled ones before it). */
static void sq_complete(struct mlx5_qp *qp, uint16_t wqe_counter, struct ibv_wc *wc)
{
	uint32_t idx = wqe_counter & (qp->sq.wqe_cnt - 1);

	wc->wr_id = qp->sq.wrid[idx];
	wc->opcode = (enum ibv_wc_opcode)qp->sq.wc_opcode[idx];
	qp->sq.tail = qp->sq.wqe_head[idx] + 1;
}

/* Retire a receive: RQ in order, SRQ by the index the CQE names. */
static int rq_complete(struct mlx5_cq *cq, struct mlx5_qp *qp, struct mlx5_cqe64 *cqe,
		       struct ibv_wc *wc)
{
	struct mlx5_device *mdev = to_mdev(cq->ibv_cq.context->device);
	uint16_t ctr = be16toh(cqe->wqe_counter);

	if (qp && !qp->has_srq && qp->rq.wqe_cnt) {
		wc->wr_id = qp->rq.wrid[qp->rq.tail & (qp->rq.wqe_cnt - 1)];
		qp->rq.tail++;
		return 0;
	} else {
		uint32_t srqn = be32toh(cqe->srqn_uidx) & 0xffffff;
		struct mlx5_srq *srq = qp && qp->vqp.qp.srq ? to_msrq(qp->vqp.qp.srq) :
							    mlx5_table_find(&mdev->srqs, srqn);

		if (!srq || ctr >= srq->wqe_cnt)
			return EIO;
		wc->wr_id = srq->wrid[ctr];
		mlx5_srq_free_wqe(srq, ctr);
		return 0;
	}
}

/* A raw packet QP's CQE (raw.c): sends and Ethernet receives, in order. */
static int cqe_decode_raw(struct mlx5_cq *cq, struct mlx5_qp *qp,
			  struct mlx5_cqe64 *cqe, struct ibv_wc *wc)
{
	uint8_t opcode = mlx5dv_get_cqe_opcode(cqe);

	wc->qp_num = qp->qpn;
	cq->cur_flow_tag = 0;
	cq->cur_cvlan = 0;
	switch (opcode) {
	case MLX5_CQE_REQ:
	case MLX5_CQE_REQ_ERR:
		if (!qp->sq.wqe_cnt)
			return EIO;
		sq_complete(qp, be16toh(cqe->wqe_counter), wc);
		break;
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_ERR:
		if (!qp->rq.wqe_cnt)
			return EIO;
		wc->wr_id = qp->rq.wrid[qp->rq.tail & (qp->rq.wqe_cnt - 1)];
		qp->rq.tail++;
		wc->opcode = IBV_WC_RECV;
		break;
	default:
		return EIO;
	}
	if (opcode == MLX5_CQE_REQ_ERR || opcode == MLX5_CQE_RESP_ERR) {
		struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)cqe;

		wc->status = err_syndrome_to_status(e->syndrome);
		wc->vendor_err = e->vendor_err_synd;
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			smx_dbg("cq 0x%x: error completion on raw qp 0x%x: %s "
				"(syndrome 0x%x)", cq->cqn, qp->qpn,
				ibv_wc_status_str(wc->status), e->syndrome);
		return 0;
	}
	wc->status = IBV_WC_SUCCESS;
	if (opcode == MLX5_CQE_RESP_SEND) {
		wc->byte_len = be32toh(cqe->byte_cnt);
		/* Checksums verified: IPv4 with good L3 and L4 (as rdma-core). */
		if ((cqe->hds_ip_ext & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK)) ==
		    (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK) &&
		    ((cqe->l4_hdr_type_etc >> 2) & 3) == MLX5_CQE_L3_HDR_TYPE_IPV4)
			wc->wc_flags |= IBV_WC_IP_CSUM_OK;
		cq->cur_flow_tag = be32toh(cqe->sop_drop_qpn) & 0xffffff;
		if (cqe->l4_hdr_type_etc & 1)
			cq->cur_cvlan = be16toh(cqe->vlan_info);
	}
	return 0;
}

/* Decodes @cqe into @wc; 0, or EIO for a CQE the driver cannot place. */
static int cqe_decode(struct mlx5_cq *cq, struct mlx5_cqe64 *cqe, struct ibv_wc *wc)
{
	uint8_t opcode = mlx5dv_get_cqe_opcode(cqe);
	uint32_t qpn = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	uint32_t uidx = be32toh(cqe->srqn_uidx) & 0xffffff;
	struct mlx5_qp *qp;
	uint32_t flags;

	memset(wc, 0, sizeof(*wc));
	cq->cur_flow_tag = 0;
	cq->cur_cvlan = 0;
	/* Raw packet QPs are named by user index: a receive CQE carries the
	 * steering flow tag where others carry the QP number. */
	if (uidx & MLX5_RAW_UIDX_BIT) {
		qp = cqe_raw_qp(cq, uidx);
		if (!qp)
			return EIO;
		return cqe_decode_raw(cq, qp, cqe, wc);
	}
	qp = cqe_qp(cq, qpn);
	wc->qp_num = qpn;
	switch (opcode) {
	case MLX5_CQE_REQ:
		if (!qp || !qp->sq.wqe_cnt)
			return EIO;
		sq_complete(qp, be16toh(cqe->wqe_counter), wc);
		wc->status = IBV_WC_SUCCESS;
		if (wc->opcode == IBV_WC_RDMA_READ)
			wc->byte_len = be32toh(cqe->byte_cnt);
		else if (wc->opcode == IBV_WC_COMP_SWAP || wc->opcode == IBV_WC_FETCH_ADD)
			wc->byte_len = 8;
		return 0;
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		if (rq_complete(cq, qp, cqe, wc))
			return EIO;
		wc->status = IBV_WC_SUCCESS;
		wc->byte_len = be32toh(cqe->byte_cnt);
		wc->opcode = opcode == MLX5_CQE_RESP_WR_IMM ? IBV_WC_RECV_RDMA_WITH_IMM
							      : IBV_WC_RECV;
		if (opcode == MLX5_CQE_RESP_WR_IMM || opcode == MLX5_CQE_RESP_SEND_IMM) {
			wc->imm_data = cqe->imm_inval_pkey;
			wc->wc_flags |= IBV_WC_WITH_IMM;
		} else if (opcode == MLX5_CQE_RESP_SEND_INV) {
			wc->invalidated_rkey = be32toh(cqe->imm_inval_pkey);
			wc->wc_flags |= IBV_WC_WITH_INV;
		}
		flags = be32toh(cqe->flags_rqpn);
		wc->src_qp = flags & 0xffffff;
		wc->sl = (flags >> 24) & 0xf;
		if (CQE_G_BITS(cqe->flags_rqpn))
			wc->wc_flags |= IBV_WC_GRH;
		wc->slid = be16toh(cqe->slid);
		wc->dlid_path_bits = cqe->ml_path & 0x7f;
		wc->pkey_index = 0;
		return 0;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR: {
		struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)cqe;

		wc->status = err_syndrome_to_status(e->syndrome);
		wc->vendor_err = e->vendor_err_synd;
		if (opcode == MLX5_CQE_REQ_ERR) {
			if (!qp || !qp->sq.wqe_cnt)
				return EIO;
			sq_complete(qp, be16toh(e->wqe_counter), wc);
		} else if (rq_complete(cq, qp, cqe, wc)) {
			return EIO;
		}
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			smx_dbg("cq 0x%x: error completion on qp 0x%x: %s (syndrome 0x%x, vendor 0x%x)",
				cq->cqn, qpn, ibv_wc_status_str(wc->status), e->syndrome,
				e->vendor_err_synd);
		return 0;
	}
	default:
		smx_dbg("cq 0x%x: CQE with opcode %u the driver does not handle", cq->cqn, opcode);
		return EIO;
	}
}

static inline void cq_update_ci(struct mlx5_cq *cq)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	cq->dbrec[0] = htobe32(cq->cons_index & 0xffffff);
}

int mlx5_cq_poll(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct mlx5_cq *cq = to_mcq(ibcq);
	struct mlx5_cqe64 *cqe;
	bool lent = false;
	int n = 0, err = 0;

again:
	pthread_spin_lock(&cq->lock);
	while (n < ne && (cqe = cqe_next_user(cq))) {
		err = cqe_decode(cq, cqe, &wc[n]);
		cq->cons_index++;
		if (err)
			break;
		n++;
	}
	if (n || err)
		cq_update_ci(cq);
	pthread_spin_unlock(&cq->lock);
	/* Nothing yet: let the device use this idle thread for what other
	 * processes sent, then look once more. */
	if (!n && !err && !lent) {
		lent = true;
		if (smx_dev_progress(to_mctx(ibcq->context)->hca))
			goto again;
	}
	return err && !n ? -1 : n;
}

/* Request an event for the next (solicited) completion: arm record + CQ
 * doorbell, with the sequence number the last event acknowledged. */
int mlx5_cq_arm(struct ibv_cq *ibcq, int solicited)
{
	struct mlx5_context *ctx = to_mctx(ibcq->context);
	struct mlx5_cq *cq = to_mcq(ibcq);
	uint32_t sn = cq->arm_sn & 3, ci = cq->cons_index & 0xffffff;
	uint32_t cmd = solicited ? 1u << 24 : 0;	/* REQ_NOT_SOL : REQ_NOT */
	__be32 db[2];
	uint64_t val;

	mlx5_eq_rearm(ctx);
	db[0] = htobe32(sn << 28 | cmd | ci);
	db[1] = htobe32(cq->cqn);
	cq->dbrec[1] = db[0];
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&val, db, sizeof(val));
	smx_dev_mmio_write64(ctx->hca, (uint64_t)ctx->uar_page * MLX5_ADAPTER_PAGE_SIZE + 0x20,
			     val);
	return 0;
}

void mlx5_cq_event(struct ibv_cq *ibcq)
{
	to_mcq(ibcq)->arm_sn++;
}

/* ---- extended polling ---- */

static inline struct mlx5_cq *ex_to_mcq(struct ibv_cq_ex *ex)
{
	return SMX_CONTAINER_OF(ex, struct mlx5_cq, ibv_cq);
}

static int ex_read_next(struct mlx5_cq *cq)
{
	struct mlx5_cqe64 *cqe = cqe_next_user(cq);
	int err;

	if (!cqe)
		return ENOENT;
	err = cqe_decode(cq, cqe, &cq->cur_wc);
	cq->cur_ts = be64toh(cqe->timestamp);
	cq->cons_index++;
	if (err)
		return err;
	cq->ibv_cq.status = cq->cur_wc.status;
	cq->ibv_cq.wr_id = cq->cur_wc.wr_id;
	return 0;
}

static int ex_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct mlx5_cq *cq = ex_to_mcq(ex);
	bool lent = false;
	int ret;

	if (attr->comp_mask)
		return EINVAL;
again:
	pthread_spin_lock(&cq->lock);
	ret = ex_read_next(cq);
	if (ret) {
		if (ret != ENOENT)
			cq_update_ci(cq);
		pthread_spin_unlock(&cq->lock);
		/* As mlx5_cq_poll(): an idle poller serves the inbox. */
		if (ret == ENOENT && !lent) {
			lent = true;
			if (smx_dev_progress(to_mctx(ex->context)->hca))
				goto again;
		}
		return ret;
	}
	cq->polling = true;
	return 0;
}

static int ex_next_poll(struct ibv_cq_ex *ex)
{
	return ex_read_next(ex_to_mcq(ex));
}

static void ex_end_poll(struct ibv_cq_ex *ex)
{
	struct mlx5_cq *cq = ex_to_mcq(ex);

	cq_update_ci(cq);
	cq->polling = false;
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode ex_opcode(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.opcode; }
static uint32_t ex_vendor_err(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.vendor_err; }
static uint32_t ex_byte_len(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.byte_len; }
static uint32_t ex_qp_num(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.qp_num; }
static uint32_t ex_src_qp(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.src_qp; }
static unsigned int ex_wc_flags(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.wc_flags; }
static uint32_t ex_slid(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.slid; }
static uint8_t ex_sl(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.sl; }
static uint8_t ex_dlid_path_bits(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_wc.dlid_path_bits; }
static uint64_t ex_ts(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_ts; }
static uint32_t ex_flow_tag(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_flow_tag; }
static uint16_t ex_cvlan(struct ibv_cq_ex *ex) { return ex_to_mcq(ex)->cur_cvlan; }

/*
 * Wall-clock completion time, the way rdma-core does it without real-time
 * CQE timestamps: the free-running device clock of the CQE (CLOCK_MONOTONIC
 * ns here, see dv_misc.c) carried onto the wall clock by a fresh pairing of
 * the two clocks (what mlx5dv_get_clock_info + mlx5dv_ts_to_ns compute).
 */
static uint64_t ex_wallclock_ns(struct ibv_cq_ex *ex)
{
	struct mlx5dv_clock_info ci;

	if (mlx5dv_get_clock_info(ex->context, &ci))
		return 0;
	return ci.nsec + (ex_to_mcq(ex)->cur_ts - ci.last_cycles);
}

static __be32 ex_imm(struct ibv_cq_ex *ex)
{
	struct mlx5_cq *cq = ex_to_mcq(ex);

	/* imm and the invalidated rkey share the field, as in the CQE */
	if (cq->cur_wc.wc_flags & IBV_WC_WITH_INV)
		return htobe32(cq->cur_wc.invalidated_rkey);
	return cq->cur_wc.imm_data;
}

void mlx5_cq_ex_init(struct mlx5_cq *cq)
{
	struct ibv_cq_ex *ex = &cq->ibv_cq;
	uint64_t f = cq->wc_flags;

	ex->start_poll = ex_start_poll;
	ex->next_poll = ex_next_poll;
	ex->end_poll = ex_end_poll;
	ex->read_opcode = ex_opcode;
	ex->read_vendor_err = ex_vendor_err;
	if (f & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = ex_byte_len;
	if (f & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = ex_imm;
	if (f & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = ex_qp_num;
	if (f & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = ex_src_qp;
	ex->read_wc_flags = ex_wc_flags;
	if (f & IBV_WC_EX_WITH_SLID)
		ex->read_slid = ex_slid;
	if (f & IBV_WC_EX_WITH_SL)
		ex->read_sl = ex_sl;
	if (f & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = ex_dlid_path_bits;
	if (f & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		ex->read_completion_ts = ex_ts;
	if (f & IBV_WC_EX_WITH_FLOW_TAG)
		ex->read_flow_tag = ex_flow_tag;
	if (f & IBV_WC_EX_WITH_CVLAN)
		ex->read_cvlan = ex_cvlan;
	if (f & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		ex->read_completion_wallclock_ns = ex_wallclock_ns;
}

/*
 * Drops the unpolled CQEs of @qpn from @cq (a QP going to RESET or being
 * destroyed leaves no completions behind, as mlx5 drivers do): later CQEs
 * slide down over them keeping each slot's owner bit, and the consumer
 * index advances by the number removed. Receives they held on an SRQ go
 * back to its free list.
 */
/* The CQEs of one QP: by QP number, or by user index (raw packet QPs). */
static bool cqe_is_of(const struct mlx5_cqe64 *c, uint32_t qpn, uint32_t uidx)
{
	if (uidx)
		return (be32toh(c->srqn_uidx) & 0xffffff) == uidx;
	return (be32toh(c->sop_drop_qpn) & 0xffffff) == qpn;
}

static void cq_clean(struct mlx5_cq *cq, uint32_t qpn, uint32_t uidx,
		     struct mlx5_srq *srq)
{
	uint32_t prod, nfreed = 0;

	if (!cq)
		return;
	pthread_spin_lock(&cq->lock);
	for (prod = cq->cons_index; prod - cq->cons_index < cq->cqe_cnt; prod++)
		if (!cqe_owned(cq, prod))
			break;
	while (prod-- != cq->cons_index) {
		struct mlx5_cqe64 *c = cqe_at(cq, prod);

		if (cqe_is_of(c, qpn, uidx)) {
			uint8_t op = mlx5dv_get_cqe_opcode(c);

			if (srq && op != MLX5_CQE_REQ && op != MLX5_CQE_REQ_ERR)
				mlx5_srq_free_wqe(srq, be16toh(c->wqe_counter));
			nfreed++;
		} else if (nfreed) {
			struct mlx5_cqe64 *d = cqe_at(cq, prod + nfreed);
			uint8_t owner = d->op_own & MLX5_CQE_OWNER_MASK;

			memcpy(d, c, sizeof(*d));
			d->op_own = (uint8_t)((d->op_own & ~MLX5_CQE_OWNER_MASK) | owner);
		}
	}
	if (nfreed) {
		cq->cons_index += nfreed;
		cq_update_ci(cq);
	}
	cq->last_qp = NULL;
	pthread_spin_unlock(&cq->lock);
}

void mlx5_cq_clean(struct mlx5_cq *cq, uint32_t qpn, struct mlx5_srq *srq)
{
	cq_clean(cq, qpn, 0, srq);
}

void mlx5_cq_clean_uidx(struct mlx5_cq *cq, uint32_t uidx)
{
	cq_clean(cq, 0, uidx, NULL);
}
