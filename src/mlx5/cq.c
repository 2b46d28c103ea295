/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: a ring of 64-byte CQEs and a doorbell record in process
 * memory, registered with CREATE_CQ (PAS + dbr_addr + the vector's EQ).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

#define MLX5_CQE_SIZE_64 64
#define MLX5_CQE_SIZE_128 128

/* What ibv_create_cq_ex() accepts today; everything else is EOPNOTSUPP. */
#define CQ_EX_SUPPORTED_WC_FLAGS                                                \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |  \
	 IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |       \
	 IBV_WC_EX_WITH_DLID_PATH_BITS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |  \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK | IBV_WC_EX_WITH_CVLAN |   \
	 IBV_WC_EX_WITH_FLOW_TAG)

static int cq_destroy_cmd(struct mlx5_context *ctx, uint32_t cqn)
{
	uint32_t in[DEVX_ST_SZ_DW(destroy_cq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(destroy_cq_in, in, opcode, MLX5_CMD_OP_DESTROY_CQ);
	DEVX_SET(destroy_cq_in, in, cqn, cqn);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

/*
 * The CQE size: mlx5dv's cqe_size when given, else $MLX5_CQE_SIZE (read at
 * each creation, as rdma-core does), else 64. Anything but 64 or 128 is
 * -EINVAL.
 */
static int cq_cqe_size(const struct mlx5dv_cq_init_attr *dv)
{
	const char *env;
	long size = MLX5_CQE_SIZE_64;

	if (dv && (dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE)) {
		size = dv->cqe_size;
	} else {
		env = getenv("MLX5_CQE_SIZE");
		if (env)
			size = atol(env);
	}
	return size == MLX5_CQE_SIZE_64 || size == MLX5_CQE_SIZE_128 ? (int)size : -EINVAL;
}

/* The 64-byte CQE of slot @i: the second half of a 128-byte one. */
static inline struct mlx5_cqe64 *cq_slot(void *buf, uint32_t cqe_size, uint32_t i)
{
	return (struct mlx5_cqe64 *)((uint8_t *)buf + (size_t)i * cqe_size + (cqe_size - 64));
}

static struct mlx5_cq *cq_create(struct mlx5_context *ctx, uint32_t cqe,
				 int comp_vector, struct ibv_pd *pd, int cqe_size,
				 bool pad, int comp_fmt)
{
	uint32_t out[DEVX_ST_SZ_DW(create_cq_out)] = {};
	uint32_t ncqe, eqn, i, *in = NULL;
	struct mlx5_cq *cq;
	size_t inlen;
	void *cqc;
	int ret;

	if (!cqe || cqe > ctx->max_cqe || cqe_size < 0) {
		errno = EINVAL;
		return NULL;
	}
	ret = mlx5_comp_eqn(ctx, comp_vector, &eqn);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ncqe = mlx5_roundup_pow2(cqe + 1);
	cq->cqe_cnt = ncqe;
	cq->cqe_size = (uint32_t)cqe_size;
	cq->comp_vector = comp_vector;
	ret = mlx5_buf_alloc_pd(ctx, &cq->buf, (size_t)ncqe * cq->cqe_size, pd, MLX5DV_RES_TYPE_CQ);
	if (ret)
		goto err;
	for (i = 0; i < ncqe; i++)
		cq_slot(cq->buf.addr, cq->cqe_size, i)->op_own = MLX5_CQE_INVALID << 4;
	cq->dbrec = mlx5_dbrec_alloc();
	if (!cq->dbrec) {
		ret = ENOMEM;
		goto err_buf;
	}

	inlen = DEVX_ST_SZ_BYTES(create_cq_in) + mlx5_buf_npages(&cq->buf) * sizeof(__be64);
	in = calloc(1, inlen);
	if (!in) {
		ret = ENOMEM;
		goto err_db;
	}
	DEVX_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	cqc = DEVX_ADDR_OF(create_cq_in, in, cq_context);
	DEVX_SET(cqc, cqc, cqe_sz, cq->cqe_size != MLX5_CQE_SIZE_128 ?
		 MLX5_CQC_CQE_SZ_64_BYTES : pad ? MLX5_CQC_CQE_SZ_128_PAD :
		 MLX5_CQC_CQE_SZ_128_BYTES);
	DEVX_SET(cqc, cqc, log_cq_size, mlx5_ilog2_ceil(ncqe));
	if (comp_fmt >= 0) {
		DEVX_SET(cqc, cqc, cqe_comp_en, 1);
		DEVX_SET(cqc, cqc, mini_cqe_res_format, comp_fmt);
	}
	cq->comp_fmt = comp_fmt;
	DEVX_SET(cqc, cqc, uar_page, ctx->uar_page);
	DEVX_SET(cqc, cqc, c_eqn, eqn);
	DEVX_SET(cqc, cqc, log_page_size, 0);	/* 4 KiB PAS entries */
	DEVX_SET64(cqc, cqc, dbr_addr, (uint64_t)(uintptr_t)cq->dbrec);
	mlx5_buf_fill_pas(&cq->buf, (__be64 *)DEVX_ADDR_OF(create_cq_in, in, pas));
	ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
	free(in);
	if (ret)
		goto err_db;
	cq->cqn = DEVX_GET(create_cq_out, out, cqn);
	cq->ibv_cq.cqe = (int)ncqe - 1;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	ret = mlx5_table_insert(&to_mdev(ctx->ibv_ctx.context.device)->cqs, cq->cqn, cq);
	if (ret) {
		cq_destroy_cmd(ctx, cq->cqn);
		goto err_db;
	}
	return cq;

err_db:
	mlx5_dbrec_free(cq->dbrec);
err_buf:
	mlx5_buf_free(&cq->buf);
err:
	free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq *mlx5_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel, int comp_vector)
{
	struct mlx5_cq *cq;

	if (cqe <= 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = cq_create(to_mctx(context), (uint32_t)cqe, comp_vector, NULL, cq_cqe_size(NULL),
		       false, -1);
	return cq ? ibv_cq_ex_to_cq(&cq->ibv_cq) : NULL;
}

static struct ibv_cq_ex *cq_create_ex(struct ibv_context *context,
				      struct ibv_cq_init_attr_ex *attr,
				      const struct mlx5dv_cq_init_attr *dv)
{
	struct mlx5_cq *cq;
	bool pad = false;
	int cqe_size, comp_fmt = -1;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->wc_flags & ~(uint64_t)CQ_EX_SUPPORTED_WC_FLAGS) {
		/* Timestamps, CVLAN, flow tag, TM info: not yet. */
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
				       IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!attr->parent_domain || !to_mpd(attr->parent_domain)->parent)) {
		errno = EINVAL;	/* only a parent domain may be given */
		return NULL;
	}
	if (dv && (dv->comp_mask & ~(uint64_t)(MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE |
					       MLX5DV_CQ_INIT_ATTR_MASK_FLAGS |
					       MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE))) {
		errno = EINVAL;
		return NULL;
	}
	cqe_size = cq_cqe_size(dv);
	if (!attr->cqe || cqe_size < 0) {
		errno = EINVAL;
		return NULL;
	}
	/* CQE compression: one mini CQE format the device offers (rdma-core
	 * answers EINVAL otherwise); 128-byte CQEs need cqe_compression_128. */
	if (dv && (dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE)) {
		const struct mlx5_context *mc = to_mctx(context);
		uint8_t f = dv->cqe_comp_res_format;

		comp_fmt = f == MLX5DV_CQE_RES_FORMAT_HASH ? 0 :
			   f == MLX5DV_CQE_RES_FORMAT_CSUM ? 1 :
			   f == MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX &&
			   DEVX_GET(cmd_hca_cap, mc->caps.gen, mini_cqe_resp_stride_index) ?
			   3 : -1;
		if (comp_fmt < 0 || !DEVX_GET(cmd_hca_cap, mc->caps.gen, cqe_compression) ||
		    (cqe_size == MLX5_CQE_SIZE_128 &&
		     !DEVX_GET(cmd_hca_cap, mc->caps.gen, cqe_compression_128))) {
			smx_dbg("mlx5dv_create_cq: CQE compression format 0x%x with "
				"%d-byte CQEs is not offered", f, cqe_size);
			errno = EINVAL;
			return NULL;
		}
	}
	if (dv && (dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_FLAGS)) {
		if (dv->flags & ~(uint32_t)(MLX5DV_CQ_INIT_ATTR_FLAGS_RESERVED - 1)) {
			errno = EINVAL;
			return NULL;
		}
		/* Padding needs the device cap and 128-byte CQEs. */
		pad = dv->flags & MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD;
		if (pad && (cqe_size != MLX5_CQE_SIZE_128 ||
			    !DEVX_GET(cmd_hca_cap, to_mctx(context)->caps.gen,
				      cqe_128_always))) {
			smx_dbg("mlx5dv_create_cq: CQE padding needs 128-byte "
				"CQEs (asked %d) and cqe_128_always", cqe_size);
			errno = EINVAL;
			return NULL;
		}
	}
	cq = cq_create(to_mctx(context), attr->cqe, (int)attr->comp_vector,
		       (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) ? attr->parent_domain : NULL,
		       cqe_size, pad, comp_fmt);
	if (!cq)
		return NULL;
	cq->wc_flags = attr->wc_flags;
	mlx5_cq_ex_init(cq);
	verbs_init_cq(ibv_cq_ex_to_cq(&cq->ibv_cq), context, attr->channel, attr->cq_context);
	return &cq->ibv_cq;
}

struct ibv_cq_ex *mlx5_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	return cq_create_ex(context, attr, NULL);
}

SMX_EXPORT struct ibv_cq_ex *mlx5dv_create_cq(struct ibv_context *context,
					      struct ibv_cq_init_attr_ex *attr,
					      struct mlx5dv_cq_init_attr *dv_attr)
{
	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	if (!mlx5dv_is_supported(context->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return cq_create_ex(context, attr, dv_attr);
}

int mlx5_destroy_cq(struct ibv_cq *ibcq)
{
	struct mlx5_context *ctx = to_mctx(ibcq->context);
	struct mlx5_cq *cq = to_mcq(ibcq);
	int ret;

	ret = cq_destroy_cmd(ctx, cq->cqn);
	if (ret)
		return ret;
	mlx5_table_remove(&to_mdev(ibcq->context->device)->cqs, cq->cqn);
	pthread_spin_destroy(&cq->lock);
	mlx5_dbrec_free(cq->dbrec);
	mlx5_buf_free(&cq->buf);
	free(cq);
	return 0;
}


/* CQEs the device produced that the application has not polled yet. */
static uint32_t cq_outstanding(struct mlx5_cq *cq)
{
	uint32_t n = 0;

	while (n < cq->cqe_cnt) {
		uint32_t ci = cq->cons_index + n;
		struct mlx5_cqe64 *c = cq_slot(cq->buf.addr, cq->cqe_size,
					       ci & (cq->cqe_cnt - 1));
		uint8_t own = __atomic_load_n(&c->op_own, __ATOMIC_ACQUIRE);

		if ((own >> 4) == MLX5_CQE_INVALID ||
		    ((own & MLX5_CQE_OWNER_MASK) ^ !!(ci & cq->cqe_cnt)))
			break;
		n++;
	}
	return n;
}

/*
 * RESIZE_CQ (MODIFY_CQ op_mod 1) onto a fresh ring. The producer and
 * consumer counters carry on, so ring slots and owner bits follow the new
 * size. Unpolled CQEs are not migrated: more than the new size is EINVAL
 * (verbs), fewer is refused with EAGAIN (docs/status.md).
 */
int mlx5_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mlx5_context *ctx = to_mctx(ibcq->context);
	struct mlx5_cq *cq = to_mcq(ibcq);
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	struct mlx5_buf nbuf = {}, obuf;
	uint32_t ncqe, i, pending, *in;
	size_t inlen;
	void *cqc;
	int ret;

	if (cqe <= 0 || (uint32_t)cqe > ctx->max_cqe)
		return EINVAL;
	ncqe = mlx5_roundup_pow2((uint32_t)cqe + 1);
	pthread_spin_lock(&cq->lock);
	pending = cq_outstanding(cq);
	if (pending > (uint32_t)cqe) {
		ret = EINVAL;
		goto out;
	}
	if (pending) {
		ret = EAGAIN;
		goto out;
	}
	if (ncqe == cq->cqe_cnt) {
		ret = 0;
		goto out;
	}
	/* From the allocator the CQ's ring came from (parent domain, the
	 * context's external allocators, or ours). */
	ret = mlx5_buf_alloc_pd(ctx, &nbuf, (size_t)ncqe * cq->cqe_size,
				cq->buf.custom ? &cq->buf.custom->ibv_pd : NULL,
				MLX5DV_RES_TYPE_CQ);
	if (ret)
		goto out;
	for (i = 0; i < ncqe; i++)
		cq_slot(nbuf.addr, cq->cqe_size, i)->op_own = MLX5_CQE_INVALID << 4;
	inlen = DEVX_ST_SZ_BYTES(modify_cq_in) + mlx5_buf_npages(&nbuf) * sizeof(__be64);
	in = calloc(1, inlen);
	if (!in) {
		mlx5_buf_free(&nbuf);
		ret = ENOMEM;
		goto out;
	}
	DEVX_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	DEVX_SET(modify_cq_in, in, op_mod, MLX5_MODIFY_CQ_IN_OP_MOD_RESIZE_CQ);
	DEVX_SET(modify_cq_in, in, cqn, cq->cqn);
	DEVX_SET(modify_cq_in, in, modify_field_select_resize_field_select,
		 MLX5_CQ_RESIZE_LOG_CQ_SIZE | MLX5_CQ_RESIZE_PAGE_OFFSET |
			 MLX5_CQ_RESIZE_LOG_PAGE_SIZE);
	cqc = DEVX_ADDR_OF(modify_cq_in, in, cq_context);
	DEVX_SET(cqc, cqc, log_cq_size, mlx5_ilog2_ceil(ncqe));
	DEVX_SET(cqc, cqc, log_page_size, 0);
	mlx5_buf_fill_pas(&nbuf, (__be64 *)DEVX_ADDR_OF(modify_cq_in, in, pas));
	ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
	free(in);
	if (ret) {
		mlx5_buf_free(&nbuf);
		goto out;
	}
	obuf = cq->buf;
	cq->buf = nbuf;
	cq->cqe_cnt = ncqe;
	cq->ibv_cq.cqe = (int)ncqe - 1;
	mlx5_buf_free(&obuf);
out:
	pthread_spin_unlock(&cq->lock);
	return ret;
}
