/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_init_obj(): the rings, doorbell records and UAR registers behind
 * verbs objects, for applications that drive them directly (DEVX style).
 */
#include <errno.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "util/symver.h"

#define MLX5_BF_OFFSET 0x800	/* BlueFlame register within the UAR page */
#define MLX5_BF_SIZE 256

static int dv_qp(struct ibv_qp *ibqp, struct mlx5dv_qp *out)
{
	struct mlx5_context *ctx = to_mctx(ibqp->context);
	struct mlx5_qp *qp = to_mqp(ibqp);

	out->dbrec = qp->dbrec;
	out->sq.buf = qp->sq.wqe_cnt ? qp->sq.buf : NULL;
	out->sq.wqe_cnt = qp->sq.wqe_cnt;
	out->sq.stride = qp->sq.wqe_cnt ? 1u << qp->sq.wqe_shift : 0;
	out->rq.buf = qp->rq.wqe_cnt ? qp->rq.buf : NULL;
	out->rq.wqe_cnt = qp->rq.wqe_cnt;
	out->rq.stride = qp->rq.wqe_cnt ? 1u << qp->rq.wqe_shift : 0;
	out->bf.reg = (uint8_t *)ctx->uar + MLX5_BF_OFFSET;
	out->bf.size = MLX5_BF_SIZE;
	out->comp_mask = 0;	/* no UAR mmap offsets or raw QP handles */
	return 0;
}

static int dv_cq(struct ibv_cq *ibcq, struct mlx5dv_cq *out)
{
	struct mlx5_context *ctx = to_mctx(ibcq->context);
	struct mlx5_cq *cq = to_mcq(ibcq);

	out->buf = cq->buf.addr;
	out->dbrec = cq->dbrec;
	out->cqe_cnt = cq->cqe_cnt;
	out->cqe_size = cq->cqe_size;
	out->cq_uar = ctx->uar;
	out->cqn = cq->cqn;
	out->comp_mask = 0;
	return 0;
}

static int dv_srq(struct ibv_srq *ibsrq, struct mlx5dv_srq *out)
{
	struct mlx5_srq *srq = to_msrq(ibsrq);

	out->buf = srq->buf.addr;
	out->dbrec = srq->dbrec;
	out->stride = 1u << srq->wqe_shift;
	out->head = 0;
	out->tail = srq->wqe_cnt - 1;
	if (out->comp_mask & MLX5DV_SRQ_MASK_SRQN) {
		out->srqn = srq->srqn;
		out->comp_mask = MLX5DV_SRQ_MASK_SRQN;
	} else {
		out->comp_mask = 0;
	}
	return 0;
}

static int dv_dm(struct ibv_dm *ibdm, struct mlx5dv_dm *out)
{
	struct mlx5_dm *dm = SMX_CONTAINER_OF(ibdm, struct mlx5_dm, ibv_dm);

	out->buf = dm->map;
	out->length = dm->length;
	if (out->comp_mask & MLX5DV_DM_MASK_REMOTE_VA) {
		out->remote_va = dm->dev_addr;
		out->comp_mask = MLX5DV_DM_MASK_REMOTE_VA;
	} else {
		out->comp_mask = 0;
	}
	return 0;
}

static int dv_init_obj(struct mlx5dv_obj *obj, uint64_t type)
{
	int ret = 0;

	if (!obj || (type & ~(uint64_t)(MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ | MLX5DV_OBJ_SRQ |
					MLX5DV_OBJ_RWQ | MLX5DV_OBJ_DM | MLX5DV_OBJ_AH |
					MLX5DV_OBJ_PD)))
		return EINVAL;
	if (type & MLX5DV_OBJ_RWQ)
		return EOPNOTSUPP;	/* receive WQs (ibv_create_wq) not yet */
	if ((type & MLX5DV_OBJ_QP) && !ret)
		ret = obj->qp.in && obj->qp.out ? dv_qp(obj->qp.in, obj->qp.out) : EINVAL;
	if ((type & MLX5DV_OBJ_CQ) && !ret)
		ret = obj->cq.in && obj->cq.out ? dv_cq(obj->cq.in, obj->cq.out) : EINVAL;
	if ((type & MLX5DV_OBJ_SRQ) && !ret)
		ret = obj->srq.in && obj->srq.out ? dv_srq(obj->srq.in, obj->srq.out) : EINVAL;
	if ((type & MLX5DV_OBJ_DM) && !ret)
		ret = obj->dm.in && obj->dm.out ? dv_dm(obj->dm.in, obj->dm.out) : EINVAL;
	if ((type & MLX5DV_OBJ_AH) && !ret) {
		if (obj->ah.in && obj->ah.out) {
			obj->ah.out->av = &SMX_CONTAINER_OF(obj->ah.in, struct mlx5_ah, ibv_ah)->av;
			obj->ah.out->comp_mask = 0;
		} else {
			ret = EINVAL;
		}
	}
	if ((type & MLX5DV_OBJ_PD) && !ret) {
		if (obj->pd.in && obj->pd.out) {
			obj->pd.out->pdn = to_mpd(obj->pd.in)->pdn;
			obj->pd.out->comp_mask = 0;
		} else {
			ret = EINVAL;
		}
	}
	return ret;
}

SMX_EXPORT int mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	return dv_init_obj(obj, obj_type);
}

/* MLX5_1.0 knew QP, CQ, SRQ and RWQ only. */
SMX_EXPORT int smx_mlx5dv_init_obj_1_0(struct mlx5dv_obj *obj, uint64_t obj_type);
int smx_mlx5dv_init_obj_1_0(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	if (obj_type & ~(uint64_t)(MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ | MLX5DV_OBJ_SRQ |
				   MLX5DV_OBJ_RWQ))
		return EINVAL;
	return dv_init_obj(obj, obj_type);
}
SMX_COMPAT_SYMVER(smx_mlx5dv_init_obj_1_0, mlx5dv_init_obj, "MLX5_1.0");
