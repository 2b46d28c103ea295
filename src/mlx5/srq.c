/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues (CREATE_SRQ) and XRC SRQs (CREATE_XRC_SRQ), plus XRC
 * domains (ALLOC_XRCD). The ring holds WQEs of a next-segment header followed
 * by data segments, in process memory, with a doorbell record.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

struct mlx5_xrcd {
	struct ibv_xrcd ibv_xrcd;
	uint32_t xrcdn;
	dev_t dev;
	ino_t ino;		/* file the domain is bound to, if any */
	int users;
	struct mlx5_xrcd *next;
};

static pthread_mutex_t xrcd_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mlx5_xrcd *xrcd_list;	/* domains bound to a file */

uint32_t mlx5_xrcdn(struct ibv_xrcd *xrcd)
{
	return SMX_CONTAINER_OF(xrcd, struct mlx5_xrcd, ibv_xrcd)->xrcdn;
}

struct ibv_xrcd *mlx5_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr)
{
	struct mlx5_context *ctx = to_mctx(context);
	uint32_t in[DEVX_ST_SZ_DW(alloc_xrcd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_xrcd_out)] = {};
	struct mlx5_xrcd *x = NULL;
	struct stat st;
	int ret;

	if (!attr || !(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS) ||
	    (attr->comp_mask & ~(uint32_t)(IBV_XRCD_INIT_ATTR_FD |
					   IBV_XRCD_INIT_ATTR_OFLAGS)) ||
	    (attr->oflags & ~(O_CREAT | O_EXCL))) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&xrcd_lock);
	if (attr->fd >= 0) {
		if (fstat(attr->fd, &st)) {
			ret = errno;
			goto out_unlock;
		}
		for (x = xrcd_list; x; x = x->next)
			if (x->dev == st.st_dev && x->ino == st.st_ino)
				break;
		if (x && (attr->oflags & O_EXCL)) {
			ret = EEXIST;
			goto out_unlock;
		}
		if (x) {
			x->users++;
			pthread_mutex_unlock(&xrcd_lock);
			return &x->ibv_xrcd;
		}
		if (!(attr->oflags & O_CREAT)) {
			ret = ENOENT;
			goto out_unlock;
		}
	} else if (!(attr->oflags & O_CREAT)) {
		ret = EINVAL;
		goto out_unlock;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		ret = ENOMEM;
		goto out_unlock;
	}
	DEVX_SET(alloc_xrcd_in, in, opcode, MLX5_CMD_OP_ALLOC_XRCD);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret) {
		free(x);
		goto out_unlock;
	}
	x->xrcdn = DEVX_GET(alloc_xrcd_out, out, xrcd);
	x->ibv_xrcd.context = context;
	x->users = 1;
	if (attr->fd >= 0) {
		x->dev = st.st_dev;
		x->ino = st.st_ino;
		x->next = xrcd_list;
		xrcd_list = x;
	}
	pthread_mutex_unlock(&xrcd_lock);
	return &x->ibv_xrcd;

out_unlock:
	pthread_mutex_unlock(&xrcd_lock);
	errno = ret;
	return NULL;
}

int mlx5_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct mlx5_xrcd *x = SMX_CONTAINER_OF(ibxrcd, struct mlx5_xrcd, ibv_xrcd);
	uint32_t in[DEVX_ST_SZ_DW(dealloc_xrcd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	struct mlx5_xrcd **pp;
	int ret;

	pthread_mutex_lock(&xrcd_lock);
	if (--x->users > 0) {
		pthread_mutex_unlock(&xrcd_lock);
		return 0;
	}
	DEVX_SET(dealloc_xrcd_in, in, opcode, MLX5_CMD_OP_DEALLOC_XRCD);
	DEVX_SET(dealloc_xrcd_in, in, xrcd, x->xrcdn);
	ret = mlx5_cmd_exec(to_mctx(ibxrcd->context), in, sizeof(in), out, sizeof(out));
	if (ret) {
		x->users++;
		pthread_mutex_unlock(&xrcd_lock);
		return ret;
	}
	for (pp = &xrcd_list; *pp; pp = &(*pp)->next)
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	pthread_mutex_unlock(&xrcd_lock);
	free(x);
	return 0;
}

/* A file-bound domain left open names an XRCD of an instance now closed:
 * the file must not find it again, as it would not after the kernel's
 * clean-up. The struct is the application's leak; it is not freed here. */
void mlx5_xrcd_forget(void)
{
	struct mlx5_xrcd *x;

	pthread_mutex_lock(&xrcd_lock);
	while ((x = xrcd_list)) {
		xrcd_list = x->next;
		x->next = NULL;
	}
	pthread_mutex_unlock(&xrcd_lock);
}

static int srq_sizes(struct mlx5_context *ctx, struct mlx5_srq *srq,
		     struct ibv_srq_attr *attr)
{
	uint32_t desc;

	/* max_wr 0 is allowed, as in rdma-core: a ring of the sentinel WQE
	 * only, which takes no receives. */
	if (attr->max_wr > ctx->max_srq_wr)
		return EINVAL;
	if (attr->max_sge > ctx->max_sge)
		return EINVAL;
	/* One next-segment (16 bytes) plus the scatter list. */
	desc = mlx5_roundup_pow2((attr->max_sge + 1) * (uint32_t)sizeof(struct mlx5_wqe_data_seg));
	if (desc < 32)
		desc = 32;
	srq->wqe_shift = mlx5_ilog2_ceil(desc);
	srq->max_gs = desc / sizeof(struct mlx5_wqe_data_seg) - 1;
	srq->wqe_cnt = mlx5_roundup_pow2(attr->max_wr + 1);
	return 0;
}

static struct ibv_srq *srq_create(struct mlx5_context *ctx, struct ibv_pd *pd,
				  struct ibv_srq_attr *attr, enum ibv_srq_type type,
				  struct ibv_xrcd *xrcd, struct ibv_cq *cq)
{
	uint32_t out[DEVX_ST_SZ_DW(create_srq_out)] = {};
	struct mlx5_srq *srq;
	uint32_t *in = NULL;
	size_t inlen, npages;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = srq_sizes(ctx, srq, attr);
	if (ret)
		goto err;
	ret = mlx5_buf_alloc_pd(ctx, &srq->buf, (size_t)srq->wqe_cnt << srq->wqe_shift, pd,
				MLX5DV_RES_TYPE_SRQ);
	if (ret)
		goto err;
	srq->dbrec = mlx5_dbrec_alloc();
	srq->wrid = calloc(srq->wqe_cnt, sizeof(*srq->wrid));
	if (!srq->dbrec || !srq->wrid) {
		ret = ENOMEM;
		goto err_buf;
	}
	/* Link the free list: each WQE's next_wqe_index names its successor. */
	for (uint32_t i = 0; i < srq->wqe_cnt; i++) {
		__be16 *next = (__be16 *)((uint8_t *)srq->buf.addr +
					  ((size_t)i << srq->wqe_shift) + 2);
		*next = htobe16((uint16_t)((i + 1) & (srq->wqe_cnt - 1)));
	}
	npages = mlx5_buf_npages(&srq->buf);

	if (type == IBV_SRQT_XRC) {
		void *xc;

		inlen = DEVX_ST_SZ_BYTES(create_xrc_srq_in) + npages * sizeof(__be64);
		in = calloc(1, inlen);
		if (!in) {
			ret = ENOMEM;
			goto err_buf;
		}
		DEVX_SET(create_xrc_srq_in, in, opcode, MLX5_CMD_OP_CREATE_XRC_SRQ);
		xc = DEVX_ADDR_OF(create_xrc_srq_in, in, xrc_srq_context_entry);
		DEVX_SET(xrc_srqc, xc, log_xrc_srq_size, mlx5_ilog2_ceil(srq->wqe_cnt));
		DEVX_SET(xrc_srqc, xc, log_rq_stride, srq->wqe_shift - 4);
		DEVX_SET(xrc_srqc, xc, xrcd, mlx5_xrcdn(xrcd));
		DEVX_SET(xrc_srqc, xc, cqn, to_mcq(cq)->cqn);
		DEVX_SET(xrc_srqc, xc, pd, to_mpd(pd)->pdn);
		DEVX_SET(xrc_srqc, xc, lwm, attr->srq_limit);
		DEVX_SET(xrc_srqc, xc, db_record_addr_h,
			 (uint32_t)((uint64_t)(uintptr_t)srq->dbrec >> 32));
		DEVX_SET(xrc_srqc, xc, db_record_addr_l,
			 (uint32_t)(((uint64_t)(uintptr_t)srq->dbrec & 0xffffffff) >> 2));
		mlx5_buf_fill_pas(&srq->buf,
				  (__be64 *)DEVX_ADDR_OF(create_xrc_srq_in, in, pas));
		ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
		if (!ret)
			srq->srqn = DEVX_GET(create_xrc_srq_out, out, xrc_srqn);
		srq->is_xrc = true;
	} else {
		void *sc;

		inlen = DEVX_ST_SZ_BYTES(create_srq_in) + npages * sizeof(__be64);
		in = calloc(1, inlen);
		if (!in) {
			ret = ENOMEM;
			goto err_buf;
		}
		DEVX_SET(create_srq_in, in, opcode, MLX5_CMD_OP_CREATE_SRQ);
		sc = DEVX_ADDR_OF(create_srq_in, in, srq_context_entry);
		DEVX_SET(srqc, sc, log_srq_size, mlx5_ilog2_ceil(srq->wqe_cnt));
		DEVX_SET(srqc, sc, log_rq_stride, srq->wqe_shift - 4);
		DEVX_SET(srqc, sc, pd, to_mpd(pd)->pdn);
		DEVX_SET(srqc, sc, lwm, attr->srq_limit);
		DEVX_SET64(srqc, sc, dbr_addr, (uint64_t)(uintptr_t)srq->dbrec);
		mlx5_buf_fill_pas(&srq->buf, (__be64 *)DEVX_ADDR_OF(create_srq_in, in, pas));
		ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
		if (!ret)
			srq->srqn = DEVX_GET(create_srq_out, out, srqn);
	}
	free(in);
	if (ret)
		goto err_buf;
	srq->srq_type = type;
	srq->cq = cq;
	srq->head = 0;
	srq->tail = srq->wqe_cnt - 1;
	srq->counter = 0;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	ret = mlx5_table_insert(&to_mdev(ctx->ibv_ctx.context.device)->srqs, srq->srqn, srq);
	if (ret) {
		uint32_t d[DEVX_ST_SZ_DW(destroy_srq_in)] = {};
		uint32_t o[DEVX_ST_SZ_DW(mbox_out)] = {};

		DEVX_SET(destroy_srq_in, d, opcode, srq->is_xrc ? MLX5_CMD_OP_DESTROY_XRC_SRQ :
							      MLX5_CMD_OP_DESTROY_SRQ);
		DEVX_SET(destroy_srq_in, d, srqn, srq->srqn);
		mlx5_cmd_exec(ctx, d, sizeof(d), o, sizeof(o));
		goto err_buf;
	}
	srq->srq_limit = attr->srq_limit;
	attr->max_wr = srq->wqe_cnt - 1;
	attr->max_sge = srq->max_gs;
	srq->ibv_srq.context = &ctx->ibv_ctx.context;
	return &srq->ibv_srq;

err_buf:
	free(srq->wrid);
	mlx5_dbrec_free(srq->dbrec);
	mlx5_buf_free(&srq->buf);
err:
	free(srq);
	errno = ret;
	return NULL;
}

struct ibv_srq *mlx5_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	return srq_create(to_mctx(pd->context), pd, &attr->attr, IBV_SRQT_BASIC,
			  NULL, NULL);
}

struct ibv_srq *mlx5_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	enum ibv_srq_type type = IBV_SRQT_BASIC;
	struct ibv_srq *srq;

	if (attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
					  IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
					  IBV_SRQ_INIT_ATTR_TM)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if (type == IBV_SRQT_TM) {
		errno = EOPNOTSUPP;	/* tag matching: docs/status.md */
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    (type == IBV_SRQT_XRC &&
	     (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	      !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq)) ||
	    (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC)) {
		errno = EINVAL;
		return NULL;
	}
	srq = srq_create(to_mctx(context), attr->pd, &attr->attr, type,
			 type == IBV_SRQT_XRC ? attr->xrcd : NULL,
			 type == IBV_SRQT_XRC ? attr->cq : NULL);
	if (srq) {
		srq->context = context;
		srq->srq_context = attr->srq_context;
		srq->pd = attr->pd;
		pthread_mutex_init(&srq->mutex, NULL);
		pthread_cond_init(&srq->cond, NULL);
	}
	return srq;
}

int mlx5_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	*srq_num = to_msrq(srq)->srqn;
	return 0;
}

int mlx5_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct mlx5_srq *srq = to_msrq(ibsrq);
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	int ret;

	if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return EINVAL;
	if (mask & IBV_SRQ_MAX_WR)
		return EINVAL;	/* mlx5 SRQs cannot be resized */
	if (!(mask & IBV_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit >= srq->wqe_cnt)
		return EINVAL;
	if (srq->is_xrc) {
		uint32_t in[DEVX_ST_SZ_DW(arm_xrc_srq_in)] = {};

		DEVX_SET(arm_xrc_srq_in, in, opcode, MLX5_CMD_OP_ARM_XRC_SRQ);
		DEVX_SET(arm_xrc_srq_in, in, op_mod, 1);	/* arm the limit event */
		DEVX_SET(arm_xrc_srq_in, in, xrc_srqn, srq->srqn);
		DEVX_SET(arm_xrc_srq_in, in, lwm, attr->srq_limit);
		ret = mlx5_cmd_exec(to_mctx(ibsrq->context), in, sizeof(in), out, sizeof(out));
	} else {
		uint32_t in[DEVX_ST_SZ_DW(arm_rq_in)] = {};

		DEVX_SET(arm_rq_in, in, opcode, MLX5_CMD_OP_ARM_RQ);
		DEVX_SET(arm_rq_in, in, op_mod, 1);		/* SRQ */
		DEVX_SET(arm_rq_in, in, srq_number, srq->srqn);
		DEVX_SET(arm_rq_in, in, lwm, attr->srq_limit);
		ret = mlx5_cmd_exec(to_mctx(ibsrq->context), in, sizeof(in), out, sizeof(out));
	}
	if (!ret)
		srq->srq_limit = attr->srq_limit;
	return ret;
}

int mlx5_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct mlx5_srq *srq = to_msrq(ibsrq);
	int ret;

	if (srq->is_xrc) {
		uint32_t in[DEVX_ST_SZ_DW(query_xrc_srq_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(query_xrc_srq_out) + 64] = {};

		DEVX_SET(query_xrc_srq_in, in, opcode, MLX5_CMD_OP_QUERY_XRC_SRQ);
		DEVX_SET(query_xrc_srq_in, in, xrc_srqn, srq->srqn);
		ret = mlx5_cmd_exec(to_mctx(ibsrq->context), in, sizeof(in), out, sizeof(out));
		if (ret)
			return ret;
		attr->srq_limit = DEVX_GET(query_xrc_srq_out, out, xrc_srq_context_entry.lwm);
	} else {
		uint32_t in[DEVX_ST_SZ_DW(query_srq_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(query_srq_out) + 64] = {};

		DEVX_SET(query_srq_in, in, opcode, MLX5_CMD_OP_QUERY_SRQ);
		DEVX_SET(query_srq_in, in, srqn, srq->srqn);
		ret = mlx5_cmd_exec(to_mctx(ibsrq->context), in, sizeof(in), out, sizeof(out));
		if (ret)
			return ret;
		attr->srq_limit = DEVX_GET(query_srq_out, out, srq_context_entry.lwm);
	}
	attr->max_wr = srq->wqe_cnt - 1;
	attr->max_sge = srq->max_gs;
	return 0;
}

int mlx5_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mlx5_srq *srq = to_msrq(ibsrq);
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	int ret;

	if (srq->is_xrc) {
		uint32_t in[DEVX_ST_SZ_DW(destroy_xrc_srq_in)] = {};

		DEVX_SET(destroy_xrc_srq_in, in, opcode, MLX5_CMD_OP_DESTROY_XRC_SRQ);
		DEVX_SET(destroy_xrc_srq_in, in, xrc_srqn, srq->srqn);
		ret = mlx5_cmd_exec(to_mctx(ibsrq->context), in, sizeof(in), out, sizeof(out));
	} else {
		uint32_t in[DEVX_ST_SZ_DW(destroy_srq_in)] = {};

		DEVX_SET(destroy_srq_in, in, opcode, MLX5_CMD_OP_DESTROY_SRQ);
		DEVX_SET(destroy_srq_in, in, srqn, srq->srqn);
		ret = mlx5_cmd_exec(to_mctx(ibsrq->context), in, sizeof(in), out, sizeof(out));
	}
	if (ret)
		return ret;
	mlx5_table_remove(&to_mdev(ibsrq->context->device)->srqs, srq->srqn);
	pthread_spin_destroy(&srq->lock);
	free(srq->wrid);
	mlx5_dbrec_free(srq->dbrec);
	mlx5_buf_free(&srq->buf);
	free(srq);
	return 0;
}
