/* SPDX-License-Identifier: MIT */
/*
 * Packet-pacing entries (mlx5dv_pp_alloc): the kernel half of rdma-core's
 * MLX5_IB_OBJECT_PP. Like mlx5_core's rate-limit table, equal contexts share
 * one device index (reference counted) unless the caller asks for a dedicated
 * one; the device entry is written with SET_PP_RATE_LIMIT and cleared (rate
 * 0) when its last user frees it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

#define PP_CTX_BYTES DEVX_ST_SZ_BYTES(set_pp_rate_limit_context)
#define PP_DEDICATED (1u << 0)	/* MLX5_IB_UAPI_PP_ALLOC_FLAGS_DEDICATED_INDEX */

struct mlx5_rl_entry {
	uint8_t ctx[PP_CTX_BYTES];
	uint32_t refcount;
	bool dedicated;
};

struct mlx5_rl_table {
	pthread_mutex_t lock;
	uint32_t size;			/* entries 1..size */
	struct mlx5_rl_entry *e;	/* [size + 1] */
};

struct mlx5_pp {
	struct mlx5dv_pp dv;
	struct mlx5_device *mdev;
	uint64_t gen;		/* the device instance it was made on */
};

static pthread_mutex_t rl_init_lock = PTHREAD_MUTEX_INITIALIZER;

/* The device's table, sized from qos_cap; NULL + errno if no packet pacing. */
static struct mlx5_rl_table *pp_table_get(struct mlx5_context *ctx,
					  struct mlx5_device *mdev)
{
	uint8_t cap[MLX5_CAP_GENERAL_BYTES] = { 0 };
	struct mlx5_rl_table *t;
	int ret;

	pthread_mutex_lock(&rl_init_lock);
	t = mdev->rl;
	if (t)
		goto out;
	if (!DEVX_GET(cmd_hca_cap, ctx->caps.gen, qos)) {
		errno = EOPNOTSUPP;
		goto out;
	}
	ret = mlx5_query_hca_cap(mdev->hca, MLX5_CAP_QOS, cap, sizeof(cap));
	if (ret || !DEVX_GET(qos_cap, cap, packet_pacing) ||
	    !DEVX_GET(qos_cap, cap, packet_pacing_rate_table_size)) {
		errno = EOPNOTSUPP;
		goto out;
	}
	t = calloc(1, sizeof(*t));
	if (t) {
		t->size = DEVX_GET(qos_cap, cap, packet_pacing_rate_table_size);
		t->e = calloc(t->size + 1, sizeof(*t->e));
		if (!t->e) {
			free(t);
			t = NULL;
		}
	}
	if (!t) {
		errno = ENOMEM;
		goto out;
	}
	pthread_mutex_init(&t->lock, NULL);
	mdev->rl = t;
out:
	pthread_mutex_unlock(&rl_init_lock);
	return t;
}

static int pp_hw_set(struct smx_dev *hca, uint16_t idx, const uint8_t *ctx)
{
	uint32_t in[DEVX_ST_SZ_DW(set_pp_rate_limit_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(set_pp_rate_limit_in, in, opcode,
		 MLX5_CMD_OP_SET_PP_RATE_LIMIT);
	DEVX_SET(set_pp_rate_limit_in, in, rate_limit_index, idx);
	if (ctx)
		memcpy(DEVX_ADDR_OF(set_pp_rate_limit_in, in, ctx), ctx,
		       PP_CTX_BYTES);
	return mlx5_cmd_exec_hca(hca, 0, in, sizeof(in), out, sizeof(out));
}

SMX_EXPORT struct mlx5dv_pp *mlx5dv_pp_alloc(struct ibv_context *context,
					     size_t pp_context_sz,
					     const void *pp_context,
					     uint32_t flags)
{
	uint8_t raw[PP_CTX_BYTES] = { 0 };
	struct mlx5_device *mdev;
	struct mlx5_rl_table *t;
	struct mlx5_context *ctx;
	struct mlx5_pp *pp;
	uint32_t i, idx = 0, free_idx = 0;
	bool dedicated = flags & PP_DEDICATED;
	int ret;

	if (!context || !mlx5dv_is_supported(context->device) ||
	    (flags & ~PP_DEDICATED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!pp_context || !pp_context_sz || pp_context_sz > PP_CTX_BYTES) {
		smx_dbg("mlx5dv_pp_alloc: context of %zu bytes (1..%zu)",
			pp_context_sz, (size_t)PP_CTX_BYTES);
		errno = EINVAL;
		return NULL;
	}
	ctx = to_mctx(context);
	mdev = to_mdev(context->device);
	t = pp_table_get(ctx, mdev);
	if (!t)
		return NULL;
	memcpy(raw, pp_context, pp_context_sz);
	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&t->lock);
	for (i = 1; i <= t->size; i++) {
		if (!t->e[i].refcount) {
			if (!free_idx)
				free_idx = i;
			continue;
		}
		if (!dedicated && !t->e[i].dedicated &&
		    !memcmp(t->e[i].ctx, raw, sizeof(raw))) {
			idx = i;
			break;
		}
	}
	if (!idx) {
		if (!free_idx) {
			pthread_mutex_unlock(&t->lock);
			smx_dbg("mlx5dv_pp_alloc: all %u rate-limit entries "
				"in use", t->size);
			free(pp);
			errno = ENOSPC;
			return NULL;
		}
		ret = pp_hw_set(mdev->hca, free_idx, raw);
		if (ret) {
			pthread_mutex_unlock(&t->lock);
			free(pp);
			errno = ret;
			return NULL;
		}
		idx = free_idx;
		memcpy(t->e[idx].ctx, raw, sizeof(raw));
		t->e[idx].dedicated = dedicated;
	}
	t->e[idx].refcount++;
	pthread_mutex_unlock(&t->lock);
	pp->dv.index = (uint16_t)idx;
	pp->mdev = mdev;
	pp->gen = mdev->gen;	/* stable: our context holds the instance */
	return &pp->dv;
}

SMX_EXPORT void mlx5dv_pp_free(struct mlx5dv_pp *dv_pp)
{
	struct mlx5_pp *pp;
	struct mlx5_rl_table *t;
	struct mlx5_rl_entry *e;

	if (!dv_pp)
		return;
	pp = SMX_CONTAINER_OF(dv_pp, struct mlx5_pp, dv);
	/* No context is named: the instance it was made on may be closed
	 * (its table went with it), even replaced by a newer one. */
	pthread_mutex_lock(&pp->mdev->lock);
	t = pp->gen == pp->mdev->gen ? pp->mdev->rl : NULL;
	if (t) {
		pthread_mutex_lock(&t->lock);
		e = &t->e[dv_pp->index];
		if (e->refcount && !--e->refcount) {
			/* Last user: clear the device entry (rate 0). */
			if (pp_hw_set(pp->mdev->hca, dv_pp->index, NULL))
				smx_dbg("mlx5dv_pp_free: clearing entry %u failed",
					dv_pp->index);
			memset(e, 0, sizeof(*e));
		}
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&pp->mdev->lock);
	free(pp);
}

void mlx5_pp_table_free(struct mlx5_device *mdev)
{
	uint32_t i;

	if (!mdev->rl)
		return;
	/* Entries the application never freed: rate 0, as the kernel's
	 * clean-up of a closed file does. */
	for (i = 1; i <= mdev->rl->size; i++)
		if (mdev->rl->e[i].refcount)
			pp_hw_set(mdev->hca, (uint16_t)i, NULL);
	pthread_mutex_destroy(&mdev->rl->lock);
	free(mdev->rl->e);
	free(mdev->rl);
	mdev->rl = NULL;
}
