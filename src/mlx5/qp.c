/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs: sizing the send/receive rings as the mlx5 driver does, CREATE_QP
 * with the rings' PAS and doorbell record, the verbs state machine mapped onto
 * the PRM transition commands (each with its required and optional attributes,
 * IB spec table 11-...), and QUERY_QP back into verbs attributes.
 *
 * DC (mlx5dv_create_qp, IBV_QPT_DRIVER): a DCI is a QP of st DCI (send queue
 * only; its WQEs name the DCT), moved RESET->INIT->RTR->RTS like the kernel
 * does, without the per-type attribute checks. A DCT has no queue: like
 * rdma-core with the kernel, RESET->INIT and INIT->RTR only gather
 * attributes and INIT->RTR issues CREATE_DCT, which gives its number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

#define MLX5_QP_PM_MIGRATED 0x3
#define MLX5_STAT_RATE_OFFSET 5

/* ------------------------------------------------------------------ */
/* Which attributes each transition requires / allows, per QP type.    */

enum qp_class { QPC_UD, QPC_UC, QPC_RC, QPC_XRC_INI, QPC_XRC_TGT, QPC_DCI, QPC_NUM };

struct qp_transition {
	bool valid;
	int req[QPC_NUM];
	int opt[QPC_NUM];
};

#define ALL5(x) { x, x, x, x, x }

static const struct qp_transition qp_table[IBV_QPS_ERR + 1][IBV_QPS_ERR + 1] = {
	[IBV_QPS_RESET] = {
		[IBV_QPS_RESET] = { .valid = true },
		[IBV_QPS_ERR] = { .valid = true },
		[IBV_QPS_INIT] = {
			.valid = true,
			.req = {
				[QPC_UD] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
				[QPC_UC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
				[QPC_RC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
				[QPC_XRC_INI] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
				[QPC_XRC_TGT] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
			},
		},
	},
	[IBV_QPS_INIT] = {
		[IBV_QPS_RESET] = { .valid = true },
		[IBV_QPS_ERR] = { .valid = true },
		[IBV_QPS_INIT] = {
			.valid = true,
			.opt = {
				[QPC_UD] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
				[QPC_UC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
				[QPC_RC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
				[QPC_XRC_INI] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
				[QPC_XRC_TGT] = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
			},
		},
		[IBV_QPS_RTR] = {
			.valid = true,
			.req = {
				[QPC_UC] = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
				[QPC_RC] = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
				[QPC_XRC_INI] = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
						IBV_QP_RQ_PSN,
				[QPC_XRC_TGT] = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
						IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
						IBV_QP_MIN_RNR_TIMER,
			},
			.opt = {
				[QPC_UD] = IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
				[QPC_UC] = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
				[QPC_RC] = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
				[QPC_XRC_INI] = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
				[QPC_XRC_TGT] = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
			},
		},
	},
	[IBV_QPS_RTR] = {
		[IBV_QPS_RESET] = { .valid = true },
		[IBV_QPS_ERR] = { .valid = true },
		[IBV_QPS_RTS] = {
			.valid = true,
			.req = {
				[QPC_UD] = IBV_QP_SQ_PSN,
				[QPC_UC] = IBV_QP_SQ_PSN,
				[QPC_RC] = IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
				[QPC_XRC_INI] = IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
				[QPC_XRC_TGT] = IBV_QP_TIMEOUT | IBV_QP_SQ_PSN,
			},
			.opt = {
				[QPC_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
				[QPC_UC] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					   IBV_QP_PATH_MIG_STATE,
				[QPC_RC] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					   IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE,
				[QPC_XRC_INI] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH |
						IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE,
				[QPC_XRC_TGT] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH |
						IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
						IBV_QP_PATH_MIG_STATE,
			},
		},
	},
	[IBV_QPS_RTS] = {
		[IBV_QPS_RESET] = { .valid = true },
		[IBV_QPS_ERR] = { .valid = true },
		[IBV_QPS_RTS] = {
			.valid = true,
			.opt = {
				[QPC_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
				[QPC_UC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
					   IBV_QP_PATH_MIG_STATE,
				[QPC_RC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
					   IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER,
				[QPC_XRC_INI] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS |
						IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE,
				[QPC_XRC_TGT] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS |
						IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
						IBV_QP_MIN_RNR_TIMER,
			},
		},
		[IBV_QPS_SQD] = {
			.valid = true,
			.opt = ALL5(IBV_QP_EN_SQD_ASYNC_NOTIFY),
		},
	},
	[IBV_QPS_SQD] = {
		[IBV_QPS_RESET] = { .valid = true },
		[IBV_QPS_ERR] = { .valid = true },
		[IBV_QPS_RTS] = {
			.valid = true,
			.opt = {
				[QPC_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
				[QPC_UC] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					   IBV_QP_PATH_MIG_STATE,
				[QPC_RC] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					   IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE,
				[QPC_XRC_INI] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH |
						IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE,
				[QPC_XRC_TGT] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH |
						IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
						IBV_QP_PATH_MIG_STATE,
			},
		},
		[IBV_QPS_SQD] = {
			.valid = true,
			.opt = {
				[QPC_UD] = IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
				[QPC_UC] = IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					   IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE,
				[QPC_RC] = IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
					   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					   IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					   IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER |
					   IBV_QP_PATH_MIG_STATE,
				[QPC_XRC_INI] = IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
						IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH |
						IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
						IBV_QP_PATH_MIG_STATE,
				[QPC_XRC_TGT] = IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
						IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH |
						IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
						IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE,
			},
		},
	},
	[IBV_QPS_SQE] = {
		[IBV_QPS_RESET] = { .valid = true },
		[IBV_QPS_ERR] = { .valid = true },
		[IBV_QPS_RTS] = {
			.valid = true,
			.opt = {
				[QPC_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
				[QPC_UC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS,
			},
		},
	},
	[IBV_QPS_ERR] = {
		[IBV_QPS_RESET] = { .valid = true },
		[IBV_QPS_ERR] = { .valid = true },
	},
};

static enum qp_class qp_class_of(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_UD: return QPC_UD;
	case IBV_QPT_UC: return QPC_UC;
	case IBV_QPT_XRC_SEND: return QPC_XRC_INI;
	case IBV_QPT_XRC_RECV: return QPC_XRC_TGT;
	case IBV_QPT_DRIVER: return QPC_DCI;
	default: return QPC_RC;
	}
}

/* ------------------------------------------------------------------ */
/* Sizing                                                              */

/*
 * Bytes of a send WQE before its data: control plus the largest transport
 * part the QP type can post. Connected QPs can bind memory windows, whose
 * UMR WQE (UMR control + mkey context + one KLM padded to 64 bytes) is the
 * largest, as in rdma-core's mlx5 sizing.
 */
static uint32_t sq_overhead(enum ibv_qp_type t)
{
	uint32_t ctrl = sizeof(struct mlx5_wqe_ctrl_seg);
	uint32_t umr = sizeof(struct mlx5_wqe_umr_ctrl_seg) +
		       sizeof(struct mlx5_wqe_mkey_context_seg) + 64;
	uint32_t rdma = sizeof(struct mlx5_wqe_raddr_seg) + sizeof(struct mlx5_wqe_atomic_seg);

	switch (t) {
	case IBV_QPT_UD:
		return ctrl + sizeof(struct mlx5_wqe_datagram_seg);
	case IBV_QPT_UC:
		return ctrl + umr;
	case IBV_QPT_XRC_SEND:
		return ctrl + 16 /* xrc seg */ + (umr > rdma ? umr : rdma);
	case IBV_QPT_DRIVER:	/* DCI: address vector, then RDMA/atomic */
		return ctrl + sizeof(struct mlx5_wqe_datagram_seg) + rdma;
	default: /* RC */
		return ctrl + (umr > rdma ? umr : rdma);
	}
}

/* Bytes before the data of an ordinary (non-UMR) WQE: what the data and
 * inline limits are computed from. */
static uint32_t sq_data_offset(enum ibv_qp_type t)
{
	uint32_t ctrl = sizeof(struct mlx5_wqe_ctrl_seg);
	uint32_t rdma = sizeof(struct mlx5_wqe_raddr_seg) + sizeof(struct mlx5_wqe_atomic_seg);

	switch (t) {
	case IBV_QPT_UD:
		return ctrl + sizeof(struct mlx5_wqe_datagram_seg);
	case IBV_QPT_UC:
		return ctrl + sizeof(struct mlx5_wqe_raddr_seg);
	case IBV_QPT_XRC_SEND:
		return ctrl + 16 + rdma;
	case IBV_QPT_DRIVER:
		return ctrl + sizeof(struct mlx5_wqe_datagram_seg) + rdma;
	default:
		return ctrl + rdma;
	}
}

static int qp_size_sq(struct mlx5_context *ctx, struct mlx5_qp *qp,
		      struct ibv_qp_cap *cap)
{
	uint32_t inl, data, wqe_size, wqebbs;
	uint32_t max_wqe = DEVX_GET(cmd_hca_cap, ctx->caps.gen, max_wqe_sz_sq);

	if (qp->qp_type == IBV_QPT_XRC_RECV || !cap->max_send_wr) {
		qp->sq.wqe_cnt = 0;
		return 0;
	}
	if (cap->max_send_wr > ctx->max_qp_wr || cap->max_send_sge > ctx->max_sge ||
	    cap->max_inline_data > ctx->max_inline)
		return EINVAL;
	inl = cap->max_inline_data ?
		      (uint32_t)sizeof(struct mlx5_wqe_inl_data_seg) + cap->max_inline_data : 0;
	data = cap->max_send_sge * (uint32_t)sizeof(struct mlx5_wqe_data_seg);
	wqe_size = sq_data_offset(qp->qp_type) + (inl > data ? inl : data);
	if (wqe_size < sq_overhead(qp->qp_type))
		wqe_size = sq_overhead(qp->qp_type);
	wqe_size = (wqe_size + MLX5_SEND_WQE_BB - 1) & ~(uint32_t)(MLX5_SEND_WQE_BB - 1);
	if (wqe_size > max_wqe)
		return EINVAL;
	wqebbs = wqe_size / MLX5_SEND_WQE_BB;
	if ((uint64_t)cap->max_send_wr * wqebbs > ctx->max_qp_wr)
		return EINVAL;
	qp->sq.wqe_cnt = mlx5_roundup_pow2(cap->max_send_wr * wqebbs);
	qp->sq.wqe_shift = MLX5_SEND_WQE_SHIFT;
	qp->sq.max_post = qp->sq.wqe_cnt / wqebbs;
	qp->sq.max_gs = (wqe_size - sq_data_offset(qp->qp_type)) /
			(uint32_t)sizeof(struct mlx5_wqe_data_seg);
	qp->max_inline = wqe_size - sq_data_offset(qp->qp_type) -
			 (uint32_t)sizeof(struct mlx5_wqe_inl_data_seg);
	return 0;
}

/* Receive queue geometry from the caller's caps; shared with raw packet QPs. */
int mlx5_rq_size(struct mlx5_context *ctx, struct mlx5_qp *qp,
		 const struct ibv_qp_cap *cap)
{
	uint32_t desc;

	if (!cap->max_recv_wr) {
		qp->rq.wqe_cnt = 0;
		return 0;
	}
	if (cap->max_recv_wr > ctx->max_qp_wr || cap->max_recv_sge > ctx->max_sge)
		return EINVAL;
	desc = mlx5_roundup_pow2((cap->max_recv_sge ? cap->max_recv_sge : 1) *
			     (uint32_t)sizeof(struct mlx5_wqe_data_seg));
	if (desc < MLX5_RECV_WQE_MIN)
		desc = MLX5_RECV_WQE_MIN;
	if (desc > DEVX_GET(cmd_hca_cap, ctx->caps.gen, max_wqe_sz_rq))
		return EINVAL;
	qp->rq.wqe_cnt = mlx5_roundup_pow2(cap->max_recv_wr);
	qp->rq.wqe_shift = mlx5_ilog2_ceil(desc);
	qp->rq.max_post = qp->rq.wqe_cnt;
	qp->rq.max_gs = desc / (uint32_t)sizeof(struct mlx5_wqe_data_seg);
	return 0;
}

static int qp_size_rq(struct mlx5_context *ctx, struct mlx5_qp *qp,
		      struct ibv_qp_cap *cap)
{
	/* SRQ users and XRC/driver QPs own no receive queue. */
	if (qp->has_srq || qp->qp_type == IBV_QPT_XRC_SEND ||
	    qp->qp_type == IBV_QPT_XRC_RECV || qp->qp_type == IBV_QPT_DRIVER) {
		qp->rq.wqe_cnt = 0;
		return 0;
	}
	return mlx5_rq_size(ctx, qp, cap);
}

/* ------------------------------------------------------------------ */
/* Create / destroy                                                    */

static int qp_destroy_cmd(struct mlx5_context *ctx, uint32_t qpn)
{
	uint32_t in[DEVX_ST_SZ_DW(destroy_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(destroy_qp_in, in, opcode, MLX5_CMD_OP_DESTROY_QP);
	DEVX_SET(destroy_qp_in, in, qpn, qpn);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

static int qp_st(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC: return MLX5_QPC_ST_RC;
	case IBV_QPT_UC: return MLX5_QPC_ST_UC;
	case IBV_QPT_UD: return MLX5_QPC_ST_UD;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV: return MLX5_QPC_ST_XRC;
	case IBV_QPT_DRIVER: return MLX5_QPC_ST_DCI;	/* DCTs: no CREATE_QP */
	default: return -1;
	}
}

static void qp_free_bufs(struct mlx5_qp *qp)
{
	free(qp->sq.wqe_head);
	free(qp->sq.wc_opcode);
	free(qp->sq.wrid);
	free(qp->rq.wrid);
	mlx5_dbrec_free(qp->dbrec);
	mlx5_buf_free(&qp->buf);
}

static const uint32_t qp_supported_create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;

/* ---- mlx5dv_create_qp() attributes ---- */

/* What rdma-core 44 knows; unknown bits are EINVAL, as there. */
#define DV_QP_KNOWN_COMP_MASK                                                  \
	(MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS | MLX5DV_QP_INIT_ATTR_MASK_DC | \
	 MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS |                             \
	 MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS)
#define DV_QP_KNOWN_CREATE_FLAGS                                               \
	(MLX5DV_QP_CREATE_TUNNEL_OFFLOADS |                                    \
	 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC |                         \
	 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC |                         \
	 MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |                             \
	 MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE |                               \
	 MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE |                           \
	 MLX5DV_QP_CREATE_SIG_PIPELINING)
#define DV_QP_KNOWN_SEND_OPS                                                   \
	(MLX5DV_QP_EX_WITH_MR_INTERLEAVED | MLX5DV_QP_EX_WITH_MR_LIST |        \
	 MLX5DV_QP_EX_WITH_MKEY_CONFIGURE | MLX5DV_QP_EX_WITH_RAW_WQE |        \
	 MLX5DV_QP_EX_WITH_MEMCPY)

/*
 * Checks the mlx5dv part of a QP creation the way rdma-core 44 orders
 * them: malformed requests are EINVAL, well-formed ones that softmlx5 does
 * not implement yet (tunnel/TIR/credit flags, mkey WRs on other QP types
 * than RC) EOPNOTSUPP. Signature pipelining is the QP context's
 * drain_sigerr, set at creation (the device stops the SQ in SQD on a
 * signature error). Scatter-to-CQE is not implemented,
 * so asking for it or against it changes nothing and is accepted.
 */
static int qp_dv_check(struct mlx5_context *ctx, const struct ibv_qp_init_attr_ex *attr,
		       const struct mlx5dv_qp_init_attr *dv)
{
	uint64_t ops;

	if (!dv)
		return attr->qp_type == IBV_QPT_DRIVER ? EINVAL : 0;
	if (dv->comp_mask & ~(uint64_t)DV_QP_KNOWN_COMP_MASK)
		return EINVAL;
	if ((dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC) && attr->qp_type != IBV_QPT_DRIVER)
		return EINVAL;
	if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS) {
		uint32_t f = dv->create_flags;

		if (f & ~(uint32_t)DV_QP_KNOWN_CREATE_FLAGS)
			return EINVAL;
		if ((f & MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE) &&
		    (f & MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE))
			return EINVAL;
		if ((f & MLX5DV_QP_CREATE_SIG_PIPELINING) &&
		    !DEVX_GET(cmd_hca_cap, ctx->caps.gen, drain_sigerr))
			return EOPNOTSUPP;
		if (f & ~(uint32_t)(MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
				    MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE |
				    MLX5DV_QP_CREATE_SIG_PIPELINING))
			return EOPNOTSUPP;
	}
	if (attr->qp_type == IBV_QPT_DRIVER) {
		if (!(dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC) ||
		    (dv->dc_init_attr.dc_type != MLX5DV_DCTYPE_DCT &&
		     dv->dc_init_attr.dc_type != MLX5DV_DCTYPE_DCI))
			return EINVAL;
		if (dv->dc_init_attr.dc_type == MLX5DV_DCTYPE_DCT) {
			/* rdma-core 44: no send operations, no streams, no
			 * dv send ops on a DCT. */
			if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ||
			    (dv->comp_mask & (MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS |
					      MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS)))
				return EINVAL;
			return 0;
		}
		if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS) {
			const struct mlx5dv_dci_streams *ds = &dv->dc_init_attr.dci_streams;

			if (ds->log_num_concurent >
				    DEVX_GET(cmd_hca_cap, ctx->caps.gen,
					     log_max_dci_stream_channels) ||
			    ds->log_num_errored >
				    DEVX_GET(cmd_hca_cap, ctx->caps.gen,
					     log_max_dci_errored_streams))
				return EINVAL;
		}
		if ((dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS) &&
		    dv->send_ops_flags)
			return EOPNOTSUPP;	/* dv operations on a DCI: not yet */
		return 0;
	}
	if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS)
		return EOPNOTSUPP;
	if (!(dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))
		return 0;
	ops = dv->send_ops_flags;
	if (ops & ~(uint64_t)DV_QP_KNOWN_SEND_OPS)
		return EOPNOTSUPP;
	switch (attr->qp_type) {
	case IBV_QPT_RC:	/* every dv operation, mkey WRs (UMR) included */
		break;
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
		if (ops & ~(uint64_t)MLX5DV_QP_EX_WITH_RAW_WQE)
			return EOPNOTSUPP;
		break;
	default:
		return EOPNOTSUPP;
	}
	if (ops & MLX5DV_QP_EX_WITH_MEMCPY) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
			return EINVAL;
		if (!ctx->dma_max_size)
			return EOPNOTSUPP;
	}
	return 0;
}

#define MLX5_OPAQUE_BUF_LEN 64

/* The PD's scratch key for MMO WQEs: 64 bytes, local write, made once. */
int mlx5_pd_opaque_mr(struct ibv_pd *ibpd)
{
	struct mlx5_context *ctx = to_mctx(ibpd->context);
	struct mlx5_pd *pd = to_mpd(ibpd);
	int ret = 0;

	if (pd->parent)
		pd = pd->parent;
	pthread_mutex_lock(&ctx->lock);
	if (pd->opaque_mr)
		goto out;
	ret = posix_memalign(&pd->opaque_buf, MLX5_OPAQUE_BUF_LEN, MLX5_OPAQUE_BUF_LEN);
	if (ret) {
		pd->opaque_buf = NULL;
		goto out;
	}
	pd->opaque_mr = mlx5_reg_mr(&pd->ibv_pd, pd->opaque_buf, MLX5_OPAQUE_BUF_LEN,
				    (uint64_t)(uintptr_t)pd->opaque_buf,
				    IBV_ACCESS_LOCAL_WRITE);
	if (!pd->opaque_mr) {
		ret = errno ? errno : ENOMEM;
		free(pd->opaque_buf);
		pd->opaque_buf = NULL;
		goto out;
	}
	/* What ibv_reg_mr() fills in above the provider. */
	pd->opaque_mr->context = pd->ibv_pd.context;
	pd->opaque_mr->pd = &pd->ibv_pd;
	pd->opaque_mr->addr = pd->opaque_buf;
	pd->opaque_mr->length = MLX5_OPAQUE_BUF_LEN;
out:
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

void mlx5_pd_opaque_free(struct mlx5_pd *pd)
{
	if (!pd->opaque_mr)
		return;
	if (mlx5_dereg_mr(pd->opaque_mr))
		smx_dbg("pd 0x%x: the memcpy scratch key could not be deregistered", pd->pdn);
	pd->opaque_mr = NULL;
	free(pd->opaque_buf);
	pd->opaque_buf = NULL;
}

/*
 * A DCT object: nothing exists in the device until INIT->RTR (CREATE_DCT,
 * dct_modify()), as with rdma-core over the kernel. It needs a PD, an SRQ
 * (where its receives come from) and the CQ they complete on.
 */
static struct ibv_qp *dct_create(struct mlx5_context *ctx, struct ibv_qp_init_attr_ex *attr,
				 const struct mlx5dv_qp_init_attr *dv)
{
	struct mlx5_qp *qp;

	if ((attr->comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD) ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd || !attr->srq ||
	    !attr->recv_cq) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->qp_type = IBV_QPT_DRIVER;
	qp->dc_type = MLX5DV_DCTYPE_DCT;
	qp->has_srq = true;
	qp->dct.access_key = dv->dc_init_attr.dct_access_key;
	if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS)
		qp->dv_create_flags = dv->create_flags;
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	memset(&attr->cap, 0, sizeof(attr->cap));
	qp->vqp.qp.context = &ctx->ibv_ctx.context;
	qp->vqp.qp.qp_context = attr->qp_context;
	qp->vqp.qp.pd = attr->pd;
	qp->vqp.qp.send_cq = attr->send_cq;
	qp->vqp.qp.recv_cq = attr->recv_cq;
	qp->vqp.qp.srq = attr->srq;
	qp->vqp.qp.qp_num = 0;	/* given by CREATE_DCT at RTR */
	qp->vqp.qp.state = IBV_QPS_RESET;
	qp->vqp.qp.qp_type = IBV_QPT_DRIVER;
	pthread_mutex_init(&qp->vqp.qp.mutex, NULL);
	pthread_cond_init(&qp->vqp.qp.cond, NULL);
	return &qp->vqp.qp;
}

static int dct_destroy_cmd(struct mlx5_context *ctx, uint32_t dctn)
{
	uint32_t in[DEVX_ST_SZ_DW(dct_cmd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(dct_cmd_in, in, opcode, MLX5_CMD_OP_DESTROY_DCT);
	DEVX_SET(dct_cmd_in, in, dctn, dctn);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

static struct ibv_qp *qp_create(struct mlx5_context *ctx,
				struct ibv_qp_init_attr_ex *attr,
				const struct mlx5dv_qp_init_attr *dv)
{
	uint32_t out[DEVX_ST_SZ_DW(create_qp_out)] = {};
	struct ibv_pd *pd = attr->pd;
	size_t rq_bytes, sq_bytes, inlen;
	struct mlx5_qp *qp;
	uint32_t *in;
	void *qpc;
	int ret, st;

	ret = qp_dv_check(ctx, attr, dv);
	if (ret) {
		errno = ret;
		return NULL;
	}
	if (attr->qp_type == IBV_QPT_DRIVER &&
	    dv->dc_init_attr.dc_type == MLX5DV_DCTYPE_DCT)
		return dct_create(ctx, attr, dv);
	if (attr->qp_type == IBV_QPT_RAW_PACKET) {
		if (dv && dv->comp_mask) {
			errno = EOPNOTSUPP;	/* mlx5dv raw QP flags: not yet */
			return NULL;
		}
		return mlx5_raw_qp_create(ctx, attr);	/* raw.c */
	}
	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
					  IBV_QP_INIT_ATTR_CREATE_FLAGS |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		/* RSS, TSO, max TSO header ...: not yet. */
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~mlx5_qp_ex_supported_ops(attr->qp_type))) {
		errno = EOPNOTSUPP;	/* an operation this QP type cannot do */
		return NULL;
	}
	st = qp_st(attr->qp_type);
	if (st < 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (attr->create_flags & ~qp_supported_create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd) {
			errno = EINVAL;
			return NULL;
		}
	} else if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !pd ||
		   (attr->qp_type != IBV_QPT_XRC_SEND && !attr->recv_cq && !attr->srq) ||
		   !attr->send_cq) {
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->qp_type = attr->qp_type;
	if (attr->qp_type == IBV_QPT_DRIVER)
		qp->dc_type = MLX5DV_DCTYPE_DCI;
	if (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))
		qp->dv_send_ops = dv->send_ops_flags;
	if (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS))
		qp->dv_create_flags = dv->create_flags;
	if (qp->dv_send_ops & MLX5DV_QP_EX_WITH_MEMCPY) {
		ret = mlx5_pd_opaque_mr(pd);
		if (ret)
			goto err;
	}
	/* A DCI receives nothing: an SRQ given to it is only recorded. */
	qp->has_srq = attr->srq != NULL && attr->qp_type != IBV_QPT_DRIVER;
	qp->sq_sig_all = attr->sq_sig_all;
	ret = qp_size_sq(ctx, qp, &attr->cap);
	if (!ret)
		ret = qp_size_rq(ctx, qp, &attr->cap);
	if (ret)
		goto err;

	rq_bytes = (size_t)qp->rq.wqe_cnt << qp->rq.wqe_shift;
	sq_bytes = (size_t)qp->sq.wqe_cnt << qp->sq.wqe_shift;
	ret = mlx5_buf_alloc_pd(ctx, &qp->buf, rq_bytes + sq_bytes ? rq_bytes + sq_bytes : 1, pd,
				MLX5DV_RES_TYPE_QP);
	if (ret)
		goto err;
	qp->rq.buf = qp->buf.addr;	/* RQ first, then SQ: the mlx5 layout */
	qp->sq.buf = (uint8_t *)qp->buf.addr + rq_bytes;
	qp->dbrec = mlx5_dbrec_alloc();
	qp->sq.wrid = qp->sq.wqe_cnt ? calloc(qp->sq.wqe_cnt, sizeof(uint64_t)) : NULL;
	qp->sq.wqe_head = qp->sq.wqe_cnt ? calloc(qp->sq.wqe_cnt, sizeof(uint32_t)) : NULL;
	qp->sq.wc_opcode = qp->sq.wqe_cnt ? calloc(qp->sq.wqe_cnt, 1) : NULL;
	qp->rq.wrid = qp->rq.wqe_cnt ? calloc(qp->rq.wqe_cnt, sizeof(uint64_t)) : NULL;
	if (!qp->dbrec ||
	    (qp->sq.wqe_cnt && (!qp->sq.wrid || !qp->sq.wqe_head || !qp->sq.wc_opcode)) ||
	    (qp->rq.wqe_cnt && !qp->rq.wrid)) {
		ret = ENOMEM;
		goto err_buf;
	}

	inlen = DEVX_ST_SZ_BYTES(create_qp_in) + mlx5_buf_npages(&qp->buf) * sizeof(__be64);
	in = calloc(1, inlen);
	if (!in) {
		ret = ENOMEM;
		goto err_buf;
	}
	DEVX_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	qpc = DEVX_ADDR_OF(create_qp_in, in, qpc);
	DEVX_SET(qpc, qpc, st, (uint32_t)st);
	DEVX_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	if (qp->dv_create_flags & MLX5DV_QP_CREATE_SIG_PIPELINING)
		DEVX_SET(qpc, qpc, drain_sigerr, 1);
	if (pd) {
		DEVX_SET(qpc, qpc, pd, to_mpd(pd)->pdn);
	} else {
		/* XRC targets belong to no user PD; like the kernel, give them
		 * one of the context's own (access checks use the XRC SRQ's). */
		uint32_t pdn;

		ret = mlx5_context_internal_pd(ctx, &pdn);
		if (ret) {
			free(in);
			goto err_buf;
		}
		DEVX_SET(qpc, qpc, pd, pdn);
	}
	DEVX_SET(qpc, qpc, uar_page, ctx->uar_page);
	DEVX_SET(qpc, qpc, log_page_size, 0);
	DEVX_SET(qpc, qpc, block_lb_mc,
		 !!(attr->create_flags & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB));
	if (qp->sq.wqe_cnt)
		DEVX_SET(qpc, qpc, log_sq_size, mlx5_ilog2_ceil(qp->sq.wqe_cnt));
	else
		DEVX_SET(qpc, qpc, no_sq, 1);
	if (qp->has_srq) {
		DEVX_SET(qpc, qpc, rq_type, MLX5_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ);
		DEVX_SET(qpc, qpc, srqn_rmpn_xrqn, to_msrq(attr->srq)->srqn);
	} else if (qp->rq.wqe_cnt) {
		DEVX_SET(qpc, qpc, rq_type, MLX5_QPC_RQ_TYPE_REGULAR);
		DEVX_SET(qpc, qpc, log_rq_size, mlx5_ilog2_ceil(qp->rq.wqe_cnt));
		DEVX_SET(qpc, qpc, log_rq_stride, qp->rq.wqe_shift - 4);
	} else {
		DEVX_SET(qpc, qpc, rq_type, MLX5_QPC_RQ_TYPE_ZERO_SIZE_RQ);
	}
	if (attr->send_cq)
		DEVX_SET(qpc, qpc, cqn_snd, to_mcq(attr->send_cq)->cqn);
	if (attr->recv_cq)
		DEVX_SET(qpc, qpc, cqn_rcv, to_mcq(attr->recv_cq)->cqn);
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		DEVX_SET(qpc, qpc, xrcd, mlx5_xrcdn(attr->xrcd));
	if (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS)) {
		DEVX_SET(qpc, qpc, log_num_dci_stream_channels,
			 dv->dc_init_attr.dci_streams.log_num_concurent);
		DEVX_SET(qpc, qpc, log_num_dci_errored_streams,
			 dv->dc_init_attr.dci_streams.log_num_errored);
	}
	DEVX_SET64(qpc, qpc, dbr_addr, (uint64_t)(uintptr_t)qp->dbrec);
	mlx5_buf_fill_pas(&qp->buf, (__be64 *)DEVX_ADDR_OF(create_qp_in, in, pas));
	ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
	free(in);
	if (ret)
		goto err_buf;
	qp->qpn = DEVX_GET(create_qp_out, out, qpn);
	ret = mlx5_table_insert(&to_mdev(ctx->ibv_ctx.context.device)->qps, qp->qpn, qp);
	if (ret) {
		qp_destroy_cmd(ctx, qp->qpn);
		goto err_buf;
	}
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	qp->bf_offset = 0x800;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ||
	    (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))) {
		if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
			qp->send_ops = attr->send_ops_flags;
		mlx5_qp_ex_init(qp);
	}

	/* What the creator actually got (>= what it asked for). */
	if (qp->sq.wqe_cnt) {
		attr->cap.max_send_wr = qp->sq.max_post;
		attr->cap.max_send_sge = qp->sq.max_gs;
		attr->cap.max_inline_data = qp->max_inline;
	}
	if (qp->rq.wqe_cnt) {
		attr->cap.max_recv_wr = qp->rq.max_post;
		attr->cap.max_recv_sge = qp->rq.max_gs;
	}
	qp->cap = attr->cap;

	qp->vqp.qp.context = &ctx->ibv_ctx.context;
	qp->vqp.qp.qp_context = attr->qp_context;
	qp->vqp.qp.pd = pd;
	qp->vqp.qp.send_cq = attr->send_cq;
	qp->vqp.qp.recv_cq = attr->recv_cq;
	qp->vqp.qp.srq = attr->srq;
	qp->vqp.qp.qp_num = qp->qpn;
	qp->vqp.qp.state = IBV_QPS_RESET;
	qp->vqp.qp.qp_type = attr->qp_type;
	qp->vqp.qp.events_completed = 0;
	pthread_mutex_init(&qp->vqp.qp.mutex, NULL);
	pthread_cond_init(&qp->vqp.qp.cond, NULL);
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		qp->vqp.comp_mask |= VERBS_QP_XRCD;
		qp->vqp.xrcd = attr->xrcd;
	}
	return &qp->vqp.qp;

err_buf:
	qp_free_bufs(qp);
err:
	free(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *mlx5_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = qp_create(to_mctx(pd->context), &ex, NULL);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

struct ibv_qp *mlx5_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	return qp_create(to_mctx(context), attr, NULL);
}

SMX_EXPORT struct ibv_qp *mlx5dv_create_qp(struct ibv_context *context,
					   struct ibv_qp_init_attr_ex *attr,
					   struct mlx5dv_qp_init_attr *dv_attr)
{
	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	if (!mlx5dv_is_supported(context->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return qp_create(to_mctx(context), attr, dv_attr);
}

int mlx5_destroy_qp(struct ibv_qp *ibqp)
{
	struct mlx5_qp *qp = to_mqp(ibqp);
	int ret;

	if (qp->qp_type == IBV_QPT_RAW_PACKET)
		return mlx5_raw_qp_destroy(qp);

	if (qp->dc_type == MLX5DV_DCTYPE_DCT) {
		if (qp->dct.created) {
			ret = dct_destroy_cmd(to_mctx(ibqp->context), qp->qpn);
			if (ret)
				return ret;
			mlx5_table_remove(&to_mdev(ibqp->context->device)->qps, qp->qpn);
			mlx5_cq_clean(to_mcq(ibqp->recv_cq), qp->qpn, to_msrq(ibqp->srq));
		}
		pthread_spin_destroy(&qp->sq.lock);
		pthread_spin_destroy(&qp->rq.lock);
		free(qp);
		return 0;
	}
	ret = qp_destroy_cmd(to_mctx(ibqp->context), qp->qpn);
	if (ret)
		return ret;
	mlx5_table_remove(&to_mdev(ibqp->context->device)->qps, qp->qpn);
	/* Completions still in the CQs for this QP go with it. */
	if (ibqp->recv_cq)
		mlx5_cq_clean(to_mcq(ibqp->recv_cq), qp->qpn,
			      ibqp->srq ? to_msrq(ibqp->srq) : NULL);
	if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
		mlx5_cq_clean(to_mcq(ibqp->send_cq), qp->qpn, NULL);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	qp_free_bufs(qp);
	free(qp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Modify                                                              */

static int qp_path_mtu(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? (int)mtu : -1;
}

static uint32_t ilog2_floor(uint32_t v)
{
	uint32_t l = 0;

	while (v >>= 1)
		l++;
	return l;
}

/* Fill an address path from an AH attribute (kernel: mlx5_set_path). */
static int qp_set_path(struct mlx5_context *ctx, struct mlx5_qp *qp, void *path,
		       const struct ibv_ah_attr *ah, uint8_t port)
{
	struct ibv_gid_entry sgid;

	if (ah->port_num && (ah->port_num < 1 || ah->port_num > ctx->num_ports))
		return EINVAL;
	DEVX_SET(ads, path, stat_rate,
		 ah->static_rate ? ah->static_rate + MLX5_STAT_RATE_OFFSET : 0);
	if (ctx->link_layer == IBV_LINK_LAYER_ETHERNET) {
		struct ibv_ah_attr a = *ah;
		struct mlx5_wqe_av av;
		int ret;

		a.port_num = port;
		/* The AV code owns L2 resolution and the RoCEv2 source port. */
		ret = mlx5_av_fill(ctx, &a, &av);
		if (ret)
			return ret;
		if (mlx5_query_gid_ex(&ctx->ibv_ctx.context, port, ah->grh.sgid_index, &sgid))
			return EINVAL;
		DEVX_SET(ads, path, rmac_47_32, (uint32_t)av.rmac[0] << 8 | av.rmac[1]);
		DEVX_SET(ads, path, rmac_31_0,
			 (uint32_t)av.rmac[2] << 24 | (uint32_t)av.rmac[3] << 16 |
				 (uint32_t)av.rmac[4] << 8 | av.rmac[5]);
		if (sgid.gid_type == IBV_GID_TYPE_ROCE_V2)
			DEVX_SET(ads, path, udp_sport, be16toh(av.rlid));
		DEVX_SET(ads, path, eth_prio, ah->sl & 0x7);
	} else {
		DEVX_SET(ads, path, grh, ah->is_global);
		DEVX_SET(ads, path, rlid, ah->dlid);
		DEVX_SET(ads, path, mlid, ah->src_path_bits & 0x7f);
		DEVX_SET(ads, path, sl, ah->sl & 0xf);
	}
	if (ah->is_global) {
		DEVX_SET(ads, path, src_addr_index, ah->grh.sgid_index);
		DEVX_SET(ads, path, hop_limit, ah->grh.hop_limit);
		DEVX_SET(ads, path, tclass, ah->grh.traffic_class);
		DEVX_SET(ads, path, flow_label, ah->grh.flow_label);
		memcpy(DEVX_ADDR_OF(ads, path, rgid_rip), ah->grh.dgid.raw, 16);
	}
	DEVX_SET(ads, path, vhca_port_num, port);
	return 0;
}

static int qp_transition_opcode(enum ibv_qp_state cur, enum ibv_qp_state next)
{
	if (next == IBV_QPS_RESET)
		return MLX5_CMD_OP_2RST_QP;
	if (next == IBV_QPS_ERR)
		return MLX5_CMD_OP_2ERR_QP;
	switch (cur) {
	case IBV_QPS_RESET:
		return next == IBV_QPS_INIT ? MLX5_CMD_OP_RST2INIT_QP : -1;
	case IBV_QPS_INIT:
		return next == IBV_QPS_INIT ? MLX5_CMD_OP_INIT2INIT_QP :
		       next == IBV_QPS_RTR ? MLX5_CMD_OP_INIT2RTR_QP : -1;
	case IBV_QPS_RTR:
		return next == IBV_QPS_RTS ? MLX5_CMD_OP_RTR2RTS_QP : -1;
	case IBV_QPS_RTS:
		return next == IBV_QPS_RTS ? MLX5_CMD_OP_RTS2RTS_QP :
		       next == IBV_QPS_SQD ? MLX5_CMD_OP_RTS2SQD_QP : -1;
	case IBV_QPS_SQD:
		return next == IBV_QPS_RTS ? MLX5_CMD_OP_SQD_RTS_QP :
		       next == IBV_QPS_SQD ? MLX5_CMD_OP_SQD2SQD_QP : -1;
	case IBV_QPS_SQE:
		return next == IBV_QPS_RTS ? MLX5_CMD_OP_SQERR2RTS_QP : -1;
	default:
		return -1;
	}
}

/* verbs attribute -> PRM optional-parameter bit */
static uint32_t qp_optpar(int mask)
{
	uint32_t o = 0;

	if (mask & IBV_QP_ACCESS_FLAGS)
		o |= MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_RAE;
	if (mask & IBV_QP_PKEY_INDEX)
		o |= MLX5_QP_OPTPAR_PKEY_INDEX;
	if (mask & IBV_QP_QKEY)
		o |= MLX5_QP_OPTPAR_Q_KEY;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		o |= MLX5_QP_OPTPAR_RNR_TIMEOUT;
	if (mask & IBV_QP_AV)
		o |= MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH;
	if (mask & IBV_QP_ALT_PATH)
		o |= MLX5_QP_OPTPAR_ALT_ADDR_PATH;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		o |= MLX5_QP_OPTPAR_SRA_MAX;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		o |= MLX5_QP_OPTPAR_RRA_MAX;
	if (mask & IBV_QP_PATH_MIG_STATE)
		o |= MLX5_QP_OPTPAR_PM_STATE;
	if (mask & IBV_QP_RETRY_CNT)
		o |= MLX5_QP_OPTPAR_RETRY_COUNT;
	if (mask & IBV_QP_RNR_RETRY)
		o |= MLX5_QP_OPTPAR_RNR_RETRY;
	if (mask & IBV_QP_TIMEOUT)
		o |= MLX5_QP_OPTPAR_ACK_TIMEOUT;
	if (mask & IBV_QP_PORT)
		o |= MLX5_QP_OPTPAR_PRI_PORT;
	return o;
}

/*
 * DCT: RESET->INIT takes the access flags, port and pkey index; INIT->RTR
 * the path MTU, the minimum RNR NAK timer and the address (GRH fields) and
 * creates the DCT, which gets its number. Nothing else is a DCT transition
 * (the kernel's mlx5_ib_modify_dct).
 */
static int dct_modify(struct mlx5_context *ctx, struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		      int mask)
{
	struct mlx5_qp *qp = to_mqp(ibqp);
	enum ibv_qp_state cur = ibqp->state, next;
	uint32_t in[DEVX_ST_SZ_DW(create_dct_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_dct_out)] = {};
	void *d = DEVX_ADDR_OF(create_dct_in, in, dct_context_entry);
	int ret;

	if (!(mask & IBV_QP_STATE))
		return EINVAL;
	next = attr->qp_state;
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT) {
		const int need = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;

		if ((mask & need) != need ||
		    attr->port_num < 1 || attr->port_num > ctx->num_ports ||
		    attr->pkey_index >= (ctx->link_layer == IBV_LINK_LAYER_ETHERNET ? 1 :
					 DEVX_GET(cmd_hca_cap, ctx->caps.gen, pkey_table_size)))
			return EINVAL;
		qp->dct.access_flags = attr->qp_access_flags;
		qp->dct.port = attr->port_num;
		qp->dct.pkey_index = attr->pkey_index;
		ibqp->state = IBV_QPS_INIT;
		return 0;
	}
	if (cur != IBV_QPS_INIT || next != IBV_QPS_RTR)
		return EINVAL;
	if ((mask & (IBV_QP_MIN_RNR_TIMER | IBV_QP_AV | IBV_QP_PATH_MTU)) !=
	    (IBV_QP_MIN_RNR_TIMER | IBV_QP_AV | IBV_QP_PATH_MTU) ||
	    qp_path_mtu(attr->path_mtu) < 0)
		return EINVAL;
	if (ctx->link_layer == IBV_LINK_LAYER_ETHERNET && !attr->ah_attr.is_global)
		return EINVAL;
	qp->dct.min_rnr_timer = attr->min_rnr_timer;
	qp->dct.mtu = (uint8_t)attr->path_mtu;
	qp->dct.ah = attr->ah_attr;

	DEVX_SET(create_dct_in, in, opcode, MLX5_CMD_OP_CREATE_DCT);
	DEVX_SET(dctc, d, pd, to_mpd(ibqp->pd)->pdn);
	DEVX_SET(dctc, d, cqn, to_mcq(ibqp->recv_cq)->cqn);
	DEVX_SET(dctc, d, srqn_xrqn, to_msrq(ibqp->srq)->srqn);
	DEVX_SET(dctc, d, user_index, 0);
	DEVX_SET(dctc, d, rre, !!(qp->dct.access_flags & IBV_ACCESS_REMOTE_READ));
	DEVX_SET(dctc, d, rwe, !!(qp->dct.access_flags & IBV_ACCESS_REMOTE_WRITE));
	if (qp->dct.access_flags & IBV_ACCESS_REMOTE_ATOMIC) {
		DEVX_SET(dctc, d, rae, 1);
		DEVX_SET(dctc, d, atomic_mode, 3);	/* up to 8 bytes */
	}
	DEVX_SET(dctc, d, min_rnr_nak, qp->dct.min_rnr_timer);
	DEVX_SET(dctc, d, mtu, qp->dct.mtu);
	DEVX_SET(dctc, d, port, qp->dct.port);
	DEVX_SET(dctc, d, pkey_index, qp->dct.pkey_index);
	DEVX_SET64(dctc, d, dc_access_key, qp->dct.access_key);
	if (attr->ah_attr.is_global) {
		DEVX_SET(dctc, d, my_addr_index, attr->ah_attr.grh.sgid_index);
		DEVX_SET(dctc, d, hop_limit, attr->ah_attr.grh.hop_limit);
		DEVX_SET(dctc, d, tclass, attr->ah_attr.grh.traffic_class);
		DEVX_SET(dctc, d, flow_label, attr->ah_attr.grh.flow_label);
	}
	if (ctx->link_layer == IBV_LINK_LAYER_ETHERNET)
		DEVX_SET(dctc, d, eth_prio, attr->ah_attr.sl & 0x7);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	qp->qpn = DEVX_GET(create_dct_out, out, dctn);
	ret = mlx5_table_insert(&to_mdev(ibqp->context->device)->qps, qp->qpn, qp);
	if (ret) {
		dct_destroy_cmd(ctx, qp->qpn);
		return ret;
	}
	qp->dct.created = true;
	ibqp->qp_num = qp->qpn;
	ibqp->state = IBV_QPS_RTR;
	return 0;
}

int mlx5_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	struct mlx5_context *ctx = to_mctx(ibqp->context);
	struct mlx5_qp *qp = to_mqp(ibqp);
	enum ibv_qp_state cur, next;
	const struct qp_transition *tr;
	enum qp_class cls = qp_class_of(qp->qp_type);
	uint32_t in[DEVX_ST_SZ_DW(modify_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(modify_qp_out)] = {};
	void *qpc = DEVX_ADDR_OF(modify_qp_in, in, qpc);
	uint8_t port;
	int op, ret;

	if (qp->dc_type == MLX5DV_DCTYPE_DCT)
		return dct_modify(ctx, ibqp, attr, mask);
	if (qp->qp_type == IBV_QPT_RAW_PACKET)
		return mlx5_raw_qp_modify(qp, attr, mask);
	if (mask & IBV_QP_RATE_LIMIT)
		return EOPNOTSUPP;	/* packet pacing: docs/status.md */
	/* As the kernel's uverbs modify_qp_mask(): an XRC initiator has no
	 * responder and an XRC target no requester, so the attributes of the
	 * missing half are dropped, not refused (perftest's XRC sets the RC
	 * masks on both). */
	if (qp->qp_type == IBV_QPT_XRC_SEND)
		mask &= ~(IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	else if (qp->qp_type == IBV_QPT_XRC_RECV)
		mask &= ~(IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY);
	cur = (mask & IBV_QP_CUR_STATE) ? attr->cur_qp_state : ibqp->state;
	next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
	if (cur > IBV_QPS_ERR || next > IBV_QPS_ERR)
		return EINVAL;
	/* The device leaves RTS on its own for SQE (send error on UC/UD) and
	 * SQD (signature error with drain_sigerr); the caller says so. */
	if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != ibqp->state &&
	    !(ibqp->state == IBV_QPS_RTS && (attr->cur_qp_state == IBV_QPS_SQE ||
					     attr->cur_qp_state == IBV_QPS_SQD)))
		return EINVAL;
	tr = &qp_table[cur][next];
	/* A DCI: the kernel checks no attribute mask (its peer is per WQE). */
	if (!tr->valid || (cls != QPC_DCI &&
			   ((mask & tr->req[cls]) != tr->req[cls] ||
			    (mask & ~(tr->req[cls] | tr->opt[cls] | IBV_QP_STATE)))))
		return EINVAL;

	if ((mask & IBV_QP_PORT) && (attr->port_num < 1 || attr->port_num > ctx->num_ports))
		return EINVAL;
	if ((mask & IBV_QP_PKEY_INDEX) &&
	    attr->pkey_index >= (ctx->link_layer == IBV_LINK_LAYER_ETHERNET ? 1 :
				 DEVX_GET(cmd_hca_cap, ctx->caps.gen, pkey_table_size)))
		return EINVAL;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > 1u << DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_ra_req_qp))
		return EINVAL;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > 1u << DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_ra_res_qp))
		return EINVAL;
	if ((mask & IBV_QP_PATH_MTU) && qp_path_mtu(attr->path_mtu) < 0)
		return EINVAL;

	op = qp_transition_opcode(cur, next);
	if (op < 0)
		return EINVAL;
	port = (mask & IBV_QP_PORT) ? attr->port_num : (qp->port_num ? qp->port_num : 1);

	if (op != MLX5_CMD_OP_2RST_QP && op != MLX5_CMD_OP_2ERR_QP) {
		if (mask & IBV_QP_PKEY_INDEX)
			DEVX_SET(qpc, qpc, primary_address_path.pkey_index, attr->pkey_index);
		if (mask & IBV_QP_PORT)
			DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, attr->port_num);
		if (mask & IBV_QP_QKEY)
			DEVX_SET(qpc, qpc, q_key, attr->qkey);
		if (mask & IBV_QP_ACCESS_FLAGS) {
			DEVX_SET(qpc, qpc, rre, !!(attr->qp_access_flags & IBV_ACCESS_REMOTE_READ));
			DEVX_SET(qpc, qpc, rwe, !!(attr->qp_access_flags & IBV_ACCESS_REMOTE_WRITE));
			DEVX_SET(qpc, qpc, rae, !!(attr->qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC));
		}
		if (mask & IBV_QP_AV) {
			ret = qp_set_path(ctx, qp, DEVX_ADDR_OF(qpc, qpc, primary_address_path),
					  &attr->ah_attr, port);
			if (ret)
				return ret;
		}
		if (mask & IBV_QP_ALT_PATH)
			return EOPNOTSUPP;	/* automatic path migration */
		if (mask & IBV_QP_PATH_MTU) {
			DEVX_SET(qpc, qpc, mtu, attr->path_mtu);
			DEVX_SET(qpc, qpc, log_msg_max,
				 DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_msg));
		}
		if (mask & IBV_QP_DEST_QPN)
			DEVX_SET(qpc, qpc, remote_qpn, attr->dest_qp_num);
		if (mask & IBV_QP_RQ_PSN)
			DEVX_SET(qpc, qpc, next_rcv_psn, attr->rq_psn & 0xffffff);
		if (mask & IBV_QP_SQ_PSN)
			DEVX_SET(qpc, qpc, next_send_psn, attr->sq_psn & 0xffffff);
		if (mask & IBV_QP_MAX_DEST_RD_ATOMIC && attr->max_dest_rd_atomic)
			DEVX_SET(qpc, qpc, log_rra_max, ilog2_floor(attr->max_dest_rd_atomic));
		if (mask & IBV_QP_MAX_QP_RD_ATOMIC && attr->max_rd_atomic)
			DEVX_SET(qpc, qpc, log_sra_max, ilog2_floor(attr->max_rd_atomic));
		if (mask & IBV_QP_MIN_RNR_TIMER)
			DEVX_SET(qpc, qpc, min_rnr_nak, attr->min_rnr_timer);
		if (mask & IBV_QP_TIMEOUT)
			DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, attr->timeout);
		if (mask & IBV_QP_RETRY_CNT)
			DEVX_SET(qpc, qpc, retry_count, attr->retry_cnt);
		if (mask & IBV_QP_RNR_RETRY)
			DEVX_SET(qpc, qpc, rnr_retry, attr->rnr_retry);
		if (mask & IBV_QP_PATH_MIG_STATE)
			DEVX_SET(qpc, qpc, pm_state,
				 attr->path_mig_state == IBV_MIG_MIGRATED ? MLX5_QP_PM_MIGRATED :
				 attr->path_mig_state == IBV_MIG_REARM ? 1 : 2);
		DEVX_SET(modify_qp_in, in, opt_param_mask,
			 qp_optpar(cls == QPC_DCI ? mask : mask & tr->opt[cls]));
	}
	DEVX_SET(modify_qp_in, in, opcode, (uint32_t)op);
	DEVX_SET(modify_qp_in, in, qpn, qp->qpn);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;

	if (mask & IBV_QP_PORT)
		qp->port_num = attr->port_num;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		qp->sq_draining = attr->en_sqd_async_notify;
	if (next == IBV_QPS_RESET) {
		struct mlx5_srq *srq = ibqp->srq ? to_msrq(ibqp->srq) : NULL;

		/* No completions of the old incarnation stay behind. */
		if (ibqp->recv_cq)
			mlx5_cq_clean(to_mcq(ibqp->recv_cq), qp->qpn, srq);
		if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
			mlx5_cq_clean(to_mcq(ibqp->send_cq), qp->qpn, NULL);
		/* The rings start over, as after a fresh create. */
		qp->sq.head = qp->sq.tail = qp->sq.cur_post = 0;
		qp->rq.head = qp->rq.tail = 0;
		qp->dbrec[0] = 0;
		qp->dbrec[1] = 0;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Query                                                               */

static enum ibv_qp_state qp_state_from_prm(uint32_t s)
{
	switch (s) {
	case MLX5_QPC_STATE_RST: return IBV_QPS_RESET;
	case MLX5_QPC_STATE_INIT: return IBV_QPS_INIT;
	case MLX5_QPC_STATE_RTR: return IBV_QPS_RTR;
	case MLX5_QPC_STATE_RTS: return IBV_QPS_RTS;
	case MLX5_QPC_STATE_SQER: return IBV_QPS_SQE;
	case MLX5_QPC_STATE_SQD: return IBV_QPS_SQD;
	case MLX5_QPC_STATE_ERR: return IBV_QPS_ERR;
	default: return IBV_QPS_UNKNOWN;
	}
}

static void qp_path_to_ah(struct mlx5_context *ctx, const void *path,
			  struct ibv_ah_attr *ah)
{
	uint32_t rate = DEVX_GET(ads, path, stat_rate);

	memset(ah, 0, sizeof(*ah));
	ah->port_num = (uint8_t)DEVX_GET(ads, path, vhca_port_num);
	ah->static_rate = (uint8_t)(rate ? rate - MLX5_STAT_RATE_OFFSET : 0);
	if (ctx->link_layer == IBV_LINK_LAYER_ETHERNET) {
		ah->sl = (uint8_t)DEVX_GET(ads, path, eth_prio);
		ah->is_global = 1;
	} else {
		ah->dlid = (uint16_t)DEVX_GET(ads, path, rlid);
		ah->sl = (uint8_t)DEVX_GET(ads, path, sl);
		ah->src_path_bits = (uint8_t)DEVX_GET(ads, path, mlid);
		ah->is_global = (uint8_t)DEVX_GET(ads, path, grh);
	}
	if (ah->is_global) {
		ah->grh.sgid_index = (uint8_t)DEVX_GET(ads, path, src_addr_index);
		ah->grh.hop_limit = (uint8_t)DEVX_GET(ads, path, hop_limit);
		ah->grh.traffic_class = (uint8_t)DEVX_GET(ads, path, tclass);
		ah->grh.flow_label = DEVX_GET(ads, path, flow_label);
		memcpy(ah->grh.dgid.raw, DEVX_ADDR_OF(ads, path, rgid_rip), 16);
	}
}

/* A DCT: what it was given, its state from QUERY_DCT once created. */
static int dct_query(struct mlx5_context *ctx, struct mlx5_qp *qp, struct ibv_qp_attr *attr)
{
	uint32_t in[DEVX_ST_SZ_DW(dct_cmd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_dct_out)] = {};
	void *d = DEVX_ADDR_OF(query_dct_out, out, dct_context_entry);
	int ret;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = qp->vqp.qp.state;
	attr->qp_access_flags = (int)qp->dct.access_flags;
	attr->port_num = qp->dct.port;
	attr->pkey_index = qp->dct.pkey_index;
	if (!qp->dct.created) {
		attr->cur_qp_state = attr->qp_state;
		return 0;
	}
	DEVX_SET(dct_cmd_in, in, opcode, MLX5_CMD_OP_QUERY_DCT);
	DEVX_SET(dct_cmd_in, in, dctn, qp->qpn);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	attr->qp_state = DEVX_GET(dctc, d, state) == MLX5_DCTC_STATE_ACTIVE ? IBV_QPS_RTR :
			 IBV_QPS_ERR;
	attr->cur_qp_state = attr->qp_state;
	attr->qp_access_flags =
		(DEVX_GET(dctc, d, rre) ? IBV_ACCESS_REMOTE_READ : 0) |
		(DEVX_GET(dctc, d, rwe) ? IBV_ACCESS_REMOTE_WRITE : 0) |
		(DEVX_GET(dctc, d, rae) ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	attr->path_mtu = (enum ibv_mtu)DEVX_GET(dctc, d, mtu);
	attr->min_rnr_timer = (uint8_t)DEVX_GET(dctc, d, min_rnr_nak);
	attr->port_num = (uint8_t)DEVX_GET(dctc, d, port);
	attr->pkey_index = (uint16_t)DEVX_GET(dctc, d, pkey_index);
	attr->ah_attr = qp->dct.ah;
	attr->ah_attr.port_num = attr->port_num;
	attr->ah_attr.grh.sgid_index = (uint8_t)DEVX_GET(dctc, d, my_addr_index);
	attr->ah_attr.grh.hop_limit = (uint8_t)DEVX_GET(dctc, d, hop_limit);
	attr->ah_attr.grh.traffic_class = (uint8_t)DEVX_GET(dctc, d, tclass);
	attr->ah_attr.grh.flow_label = DEVX_GET(dctc, d, flow_label);
	return 0;
}

int mlx5_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
		  struct ibv_qp_init_attr *init_attr)
{
	struct mlx5_context *ctx = to_mctx(ibqp->context);
	struct mlx5_qp *qp = to_mqp(ibqp);
	uint32_t in[DEVX_ST_SZ_DW(query_qp_in)] = {};
	uint32_t *out;
	size_t outlen;
	void *qpc;
	int ret;

	if (qp->qp_type == IBV_QPT_RAW_PACKET)
		return mlx5_raw_qp_query(qp, attr, mask, init_attr);
	if (qp->dc_type == MLX5DV_DCTYPE_DCT) {
		ret = dct_query(ctx, qp, attr);
		if (ret)
			return ret;
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = ibqp->qp_context;
		init_attr->send_cq = ibqp->send_cq;
		init_attr->recv_cq = ibqp->recv_cq;
		init_attr->srq = ibqp->srq;
		init_attr->qp_type = ibqp->qp_type;
		return 0;
	}

	/* The firmware appends the PAS: leave room for it. */
	outlen = DEVX_ST_SZ_BYTES(query_qp_out) + mlx5_buf_npages(&qp->buf) * sizeof(__be64);
	out = calloc(1, outlen);
	if (!out)
		return ENOMEM;
	DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, in, qpn, qp->qpn);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, outlen);
	if (ret) {
		free(out);
		return ret;
	}
	qpc = DEVX_ADDR_OF(query_qp_out, out, qpc);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = qp_state_from_prm(DEVX_GET(qpc, qpc, state));
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = (enum ibv_mtu)DEVX_GET(qpc, qpc, mtu);
	attr->path_mig_state = IBV_MIG_MIGRATED;
	attr->qkey = DEVX_GET(qpc, qpc, q_key);
	attr->rq_psn = DEVX_GET(qpc, qpc, next_rcv_psn);
	attr->sq_psn = DEVX_GET(qpc, qpc, next_send_psn);
	attr->dest_qp_num = DEVX_GET(qpc, qpc, remote_qpn);
	attr->qp_access_flags =
		(DEVX_GET(qpc, qpc, rre) ? IBV_ACCESS_REMOTE_READ : 0) |
		(DEVX_GET(qpc, qpc, rwe) ? IBV_ACCESS_REMOTE_WRITE : 0) |
		(DEVX_GET(qpc, qpc, rae) ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	attr->cap = qp->cap;
	qp_path_to_ah(ctx, DEVX_ADDR_OF(qpc, qpc, primary_address_path), &attr->ah_attr);
	attr->pkey_index = (uint16_t)DEVX_GET(qpc, qpc, primary_address_path.pkey_index);
	attr->port_num = (uint8_t)DEVX_GET(qpc, qpc, primary_address_path.vhca_port_num);
	attr->timeout = (uint8_t)DEVX_GET(qpc, qpc, primary_address_path.ack_timeout);
	attr->en_sqd_async_notify = qp->sq_draining;
	attr->sq_draining = attr->qp_state == IBV_QPS_SQD;
	attr->max_rd_atomic = (uint8_t)(1u << DEVX_GET(qpc, qpc, log_sra_max));
	attr->max_dest_rd_atomic = (uint8_t)(1u << DEVX_GET(qpc, qpc, log_rra_max));
	attr->min_rnr_timer = (uint8_t)DEVX_GET(qpc, qpc, min_rnr_nak);
	attr->retry_cnt = (uint8_t)DEVX_GET(qpc, qpc, retry_count);
	attr->rnr_retry = (uint8_t)DEVX_GET(qpc, qpc, rnr_retry);
	free(out);

	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->cap = qp->cap;
	init_attr->sq_sig_all = qp->sq_sig_all;
	return 0;
}

int mlx5_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
				uint32_t flags)
{
	/* The engine places every message in order. */
	return 1;
}

/*
 * mlx5dv_dci_stream_id_reset(): RTS2RTS with the extended QP context, the
 * way rdma-core 44 does it (opt_param_mask_95_32 DCI_STREAM_CHANNEL_ID,
 * qpc_data_ext.dci_stream_channel_id). The device refuses a stream that is
 * not in error.
 */
SMX_EXPORT int mlx5dv_dci_stream_id_reset(struct ibv_qp *ibqp, uint16_t stream_id)
{
	uint32_t in[DEVX_ST_SZ_DW(modify_qp_ext_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(modify_qp_out)] = {};
	struct mlx5_context *ctx;
	struct mlx5_qp *qp;

	if (!ibqp || !mlx5dv_is_supported(ibqp->context->device))
		return EOPNOTSUPP;
	ctx = to_mctx(ibqp->context);
	qp = to_mqp(ibqp);
	if (!DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_dci_errored_streams) ||
	    !DEVX_GET(cmd_hca_cap, ctx->caps.gen, qpc_extension) ||
	    ibqp->state != IBV_QPS_RTS)
		return EOPNOTSUPP;
	if (qp->dc_type != MLX5DV_DCTYPE_DCI || ibqp->qp_type != IBV_QPT_DRIVER)
		return EINVAL;
	DEVX_SET(modify_qp_ext_in, in, opcode, MLX5_CMD_OP_RTS2RTS_QP);
	DEVX_SET(modify_qp_ext_in, in, qpn, qp->qpn);
	DEVX_SET(modify_qp_ext_in, in, qpc_ext, 1);
	DEVX_SET64(modify_qp_ext_in, in, opt_param_mask_95_32,
		   MLX5_QPC_OPT_MASK_32_DCI_STREAM_CHANNEL_ID);
	DEVX_SET(qpc_ext, DEVX_ADDR_OF(modify_qp_ext_in, in, qpc_data_ext),
		 dci_stream_channel_id, stream_id);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

/*
 * mlx5dv_modify_qp_udp_sport(): RTS2RTS carrying opt_param_mask_95_32
 * UDP_SPORT and the port in the primary address path, as rdma-core 44 sends
 * it (RC/UC in RTS, device cap rts2rts_qp_udp_sport).
 */
SMX_EXPORT int mlx5dv_modify_qp_udp_sport(struct ibv_qp *ibqp,
					  uint16_t udp_sport)
{
	uint32_t in[DEVX_ST_SZ_DW(modify_qp_ext_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(modify_qp_out)] = {};
	struct mlx5_context *ctx;

	if (!ibqp || !mlx5dv_is_supported(ibqp->context->device))
		return EOPNOTSUPP;
	ctx = to_mctx(ibqp->context);
	if ((ibqp->qp_type != IBV_QPT_RC && ibqp->qp_type != IBV_QPT_UC) ||
	    ibqp->state != IBV_QPS_RTS ||
	    !DEVX_GET(cmd_hca_cap, ctx->caps.gen, rts2rts_qp_udp_sport))
		return EOPNOTSUPP;
	DEVX_SET(modify_qp_ext_in, in, opcode, MLX5_CMD_OP_RTS2RTS_QP);
	DEVX_SET(modify_qp_ext_in, in, qpn, to_mqp(ibqp)->qpn);
	DEVX_SET64(modify_qp_ext_in, in, opt_param_mask_95_32,
		   MLX5_QPC_OPT_MASK_32_UDP_SPORT);
	DEVX_SET(modify_qp_ext_in, in, qpc.primary_address_path.udp_sport,
		 udp_sport);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}
