/* SPDX-License-Identifier: MIT */
/*
 * Receive work queues (ibv_create_wq, IBV_WQT_RQ) and their indirection
 * tables (ibv_create_rwq_ind_table), the pieces of RSS: each WQ is a PRM
 * RQ with its own ring and doorbell record, the table a PRM RQ table
 * (CREATE_RQT) an RSS raw packet QP's indirect TIR hashes frames over
 * (raw.c). As for a raw packet QP's RQ, the ring lives in a struct
 * mlx5_qp whose user index the RQ's CQEs carry, so the CQ poller places
 * WQ completions with no special case.
 *
 * States (ibv_modify_wq): RESET->RDY, RDY->ERR, any->RESET, ERR->RESET,
 * and RDY->RDY; IBV_WQ_ATTR_CURR_STATE must match when given. Create flag:
 * IBV_WQ_FLAGS_CVLAN_STRIPPING when the device strips C-VLANs; scatter
 * FCS, delay drop and end padding are EOPNOTSUPP. Receives may be posted
 * in any state (the device takes them once RDY). A WQ in an indirection
 * table, and a table an RSS QP uses, are EBUSY to destroy (the firmware
 * refuses, as the kernel's reference counts do).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

struct mlx5_rwq {
	struct ibv_wq wq;
	struct mlx5_qp *q;	/* the RQ's ring, doorbell record, user index */
};

static inline struct mlx5_rwq *to_mrwq(struct ibv_wq *wq)
{
	return SMX_CONTAINER_OF(wq, struct mlx5_rwq, wq);
}

static void wq_ring_free(struct mlx5_qp *q)
{
	free(q->rq.wrid);
	mlx5_dbrec_free(q->dbrec);
	mlx5_buf_free(&q->buf);
	free(q);
}

static int wq_post_recv(struct ibv_wq *wq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad)
{
	return mlx5_rq_post(to_mrwq(wq)->q, wr, bad);
}

struct ibv_wq *mlx5_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr)
{
	struct mlx5_context *ctx = to_mctx(context);
	struct mlx5_device *mdev = to_mdev(context->device);
	struct ibv_qp_cap cap = { .max_recv_wr = attr->max_wr,
				  .max_recv_sge = attr->max_sge };
	uint32_t flags = attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS ? attr->create_flags : 0;
	struct mlx5_rwq *rwq;
	struct mlx5_qp *q;
	int ret;

	if (ctx->link_layer != IBV_LINK_LAYER_ETHERNET ||
	    !DEVX_GET(cmd_hca_cap, ctx->caps.gen, eth_net_offloads) ||
	    attr->wq_type != IBV_WQT_RQ ||
	    (attr->comp_mask & ~(uint32_t)IBV_WQ_INIT_ATTR_FLAGS) ||
	    (flags & ~(uint32_t)IBV_WQ_FLAGS_CVLAN_STRIPPING) ||
	    ((flags & IBV_WQ_FLAGS_CVLAN_STRIPPING) && !mlx5_raw_cvlan(ctx))) {
		smx_dbg("mlx5: create_wq: type %d, comp_mask 0x%x, flags 0x%x "
			"not supported", attr->wq_type, attr->comp_mask, flags);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->pd || !attr->cq || !attr->max_wr) {
		errno = EINVAL;
		return NULL;
	}
	rwq = calloc(1, sizeof(*rwq));
	q = calloc(1, sizeof(*q));
	if (!rwq || !q) {
		free(rwq);
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	rwq->q = q;
	q->qp_type = IBV_QPT_RAW_PACKET;
	q->raw.cvlan_strip = flags & IBV_WQ_FLAGS_CVLAN_STRIPPING;
	ret = mlx5_rq_size(ctx, q, &cap);
	if (!ret)
		ret = mlx5_buf_alloc_pd(ctx, &q->buf, (size_t)q->rq.wqe_cnt << q->rq.wqe_shift,
					attr->pd, MLX5DV_RES_TYPE_RWQ);
	if (ret) {
		free(q);
		free(rwq);
		errno = ret;
		return NULL;
	}
	q->rq.buf = q->buf.addr;
	q->dbrec = mlx5_dbrec_alloc();
	q->rq.wrid = calloc(q->rq.wqe_cnt, sizeof(uint64_t));
	if (!q->dbrec || !q->rq.wrid) {
		ret = ENOMEM;
		goto fail;
	}
	q->raw.uidx = mlx5_raw_uidx_alloc(mdev);
	ret = mlx5_raw_rq_create(ctx, q, attr->pd, attr->cq);
	if (ret)
		goto fail;
	ret = mlx5_table_insert(&mdev->uidx, q->raw.uidx, q);
	if (ret) {
		mlx5_raw_destroy_obj(ctx, MLX5_CMD_OP_DESTROY_RQ, q->raw.rqn);
		goto fail;
	}
	q->qpn = q->raw.rqn;
	q->raw.rq_state = MLX5_RQC_STATE_RST;
	q->vqp.qp.context = context;
	q->vqp.qp.pd = attr->pd;
	q->vqp.qp.recv_cq = attr->cq;
	q->vqp.qp.qp_num = q->qpn;
	q->vqp.qp.qp_type = IBV_QPT_RAW_PACKET;
	pthread_spin_init(&q->rq.lock, PTHREAD_PROCESS_PRIVATE);
	rwq->wq.context = context;
	rwq->wq.pd = attr->pd;
	rwq->wq.cq = attr->cq;
	rwq->wq.wq_num = q->raw.rqn;
	rwq->wq.state = IBV_WQS_RESET;
	rwq->wq.wq_type = IBV_WQT_RQ;
	rwq->wq.post_recv = wq_post_recv;
	return &rwq->wq;
fail:
	wq_ring_free(q);
	free(rwq);
	errno = ret;
	return NULL;
}

static const uint8_t wq_prm_state[] = {
	[IBV_WQS_RESET] = MLX5_RQC_STATE_RST,
	[IBV_WQS_RDY] = MLX5_RQC_STATE_RDY,
	[IBV_WQS_ERR] = MLX5_RQC_STATE_ERR,
};

int mlx5_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr)
{
	struct mlx5_context *ctx = to_mctx(wq->context);
	struct mlx5_qp *q = to_mrwq(wq)->q;
	enum ibv_wq_state cur = wq->state, next;
	int ret;

	if (attr->attr_mask & ~(uint32_t)(IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE |
					  IBV_WQ_ATTR_FLAGS))
		return EINVAL;
	if ((attr->attr_mask & IBV_WQ_ATTR_FLAGS) && attr->flags_mask)
		return EOPNOTSUPP;	/* flags are fixed at creation here */
	if (!(attr->attr_mask & IBV_WQ_ATTR_STATE))
		return 0;
	if ((attr->attr_mask & IBV_WQ_ATTR_CURR_STATE) && attr->curr_wq_state != cur)
		return EINVAL;
	next = attr->wq_state;
	if ((unsigned int)next > IBV_WQS_ERR ||
	    (next == IBV_WQS_RDY && cur == IBV_WQS_ERR) ||
	    (next == IBV_WQS_ERR && cur == IBV_WQS_RESET))
		return EINVAL;
	ret = mlx5_raw_rq_move(ctx, q, wq_prm_state[next]);
	if (!ret && next == IBV_WQS_RESET) {
		/* a reset ring starts over, its completions gone */
		mlx5_cq_clean_uidx(to_mcq(wq->cq), q->raw.uidx);
		pthread_spin_lock(&q->rq.lock);
		q->rq.head = q->rq.tail = 0;
		q->dbrec[MLX5_RCV_DBR] = 0;
		pthread_spin_unlock(&q->rq.lock);
	}
	if (!ret)
		wq->state = next;
	return ret;
}

int mlx5_destroy_wq(struct ibv_wq *wq)
{
	struct mlx5_context *ctx = to_mctx(wq->context);
	struct mlx5_rwq *rwq = to_mrwq(wq);
	struct mlx5_qp *q = rwq->q;
	int ret;

	ret = mlx5_raw_destroy_obj(ctx, MLX5_CMD_OP_DESTROY_RQ, q->raw.rqn);
	if (ret)
		return ret;	/* still in an indirection table (EBUSY) */
	mlx5_table_remove(&to_mdev(wq->context->device)->uidx, q->raw.uidx);
	mlx5_cq_clean_uidx(to_mcq(wq->cq), q->raw.uidx);
	pthread_spin_destroy(&q->rq.lock);
	wq_ring_free(q);
	free(rwq);
	return 0;
}

/* ---- indirection tables: PRM RQ tables ---- */

struct ibv_rwq_ind_table *mlx5_create_rwq_ind_table(struct ibv_context *context,
						    struct ibv_rwq_ind_table_init_attr *attr)
{
	struct mlx5_context *ctx = to_mctx(context);
	uint32_t log_max = DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_rqt_size);
	uint32_t out[DEVX_ST_SZ_DW(create_rqt_out)] = {};
	struct mlx5_rwq_ind_table *t;
	size_t n, inlen, i;
	uint8_t *in, *rqtc;
	int ret;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	if (!DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_rqt)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->log_ind_tbl_size > log_max || !attr->ind_tbl) {
		errno = EINVAL;
		return NULL;
	}
	n = (size_t)1 << attr->log_ind_tbl_size;
	for (i = 0; i < n; i++)
		if (!attr->ind_tbl[i] || attr->ind_tbl[i]->context != context) {
			errno = EINVAL;
			return NULL;
		}
	inlen = DEVX_ST_SZ_BYTES(create_rqt_in) + n * 4;
	in = calloc(1, inlen);
	t = calloc(1, sizeof(*t));
	if (!in || !t) {
		free(in);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	rqtc = DEVX_ADDR_OF(create_rqt_in, in, rqt_context);
	DEVX_SET(create_rqt_in, in, opcode, MLX5_CMD_OP_CREATE_RQT);
	DEVX_SET(rqtc, rqtc, rqt_max_size, n);
	DEVX_SET(rqtc, rqtc, rqt_actual_size, n);
	for (i = 0; i < n; i++)
		DEVX_SET(rq_num, rqtc + DEVX_ST_SZ_BYTES(rqtc) + i * 4, rq_num,
			 attr->ind_tbl[i]->wq_num);
	ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
	free(in);
	if (ret) {
		free(t);
		errno = ret;
		return NULL;
	}
	t->rqtn = DEVX_GET(create_rqt_out, out, rqtn);
	t->log_size = attr->log_ind_tbl_size;
	t->t.context = context;
	t->t.ind_tbl_num = (int)t->rqtn;
	t->t.ind_tbl_handle = (int)t->rqtn;
	return &t->t;
}

int mlx5_destroy_rwq_ind_table(struct ibv_rwq_ind_table *ind)
{
	struct mlx5_rwq_ind_table *t = to_mind(ind);
	int ret;

	ret = mlx5_raw_destroy_obj(to_mctx(ind->context), MLX5_CMD_OP_DESTROY_RQT, t->rqtn);
	if (ret)
		return ret;	/* an RSS QP's TIR still uses it (EBUSY) */
	free(t);
	return 0;
}
