/* SPDX-License-Identifier: MIT */
/* Protection domains: ALLOC_PD / DEALLOC_PD, shared by handle on import. */
#include <errno.h>
#include <stdlib.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

struct ibv_pd *mlx5_alloc_pd(struct ibv_context *context)
{
	struct mlx5_context *ctx = to_mctx(context);
	uint32_t in[DEVX_ST_SZ_DW(alloc_pd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_pd_out)] = {};
	struct mlx5_handle h = { .type = MLX5_HANDLE_PD };
	struct mlx5_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	DEVX_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret)
		goto err;
	pd->pdn = DEVX_GET(alloc_pd_out, out, pd);
	h.hw_id = pd->pdn;
	ret = mlx5_handle_add(ctx->uctx, &h, &pd->ibv_pd.handle);
	if (ret) {
		uint32_t din[DEVX_ST_SZ_DW(dealloc_pd_in)] = {};
		uint32_t dout[DEVX_ST_SZ_DW(mbox_out)] = {};

		DEVX_SET(dealloc_pd_in, din, opcode, MLX5_CMD_OP_DEALLOC_PD);
		DEVX_SET(dealloc_pd_in, din, pd, pd->pdn);
		mlx5_cmd_exec(ctx, din, sizeof(din), dout, sizeof(dout));
		goto err;
	}
	return &pd->ibv_pd;
err:
	free(pd);
	errno = ret;
	return NULL;
}

int mlx5_dealloc_pd(struct ibv_pd *ibpd)
{
	struct mlx5_context *ctx = to_mctx(ibpd->context);
	struct mlx5_pd *pd = to_mpd(ibpd);
	uint32_t in[DEVX_ST_SZ_DW(dealloc_pd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	int ret;

	if (pd->imported)
		return EINVAL;	/* an importer only unimports */
	if (pd->parent) {
		atomic_fetch_sub(&pd->parent->users, 1);
		if (pd->td)
			atomic_fetch_sub(&SMX_CONTAINER_OF(pd->td, struct mlx5_td, ibv_td)->users, 1);
		free(pd);
		return 0;
	}
	if (atomic_load(&pd->users))
		return EBUSY;	/* parent domains still wrap it */
	mlx5_pd_opaque_free(pd);
	DEVX_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	DEVX_SET(dealloc_pd_in, in, pd, pd->pdn);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	mlx5_handle_del(ctx->uctx, ibpd->handle);
	free(pd);
	return 0;
}

struct ibv_pd *mlx5_import_pd(struct ibv_context *context, uint32_t handle)
{
	struct mlx5_context *ctx = to_mctx(context);
	struct mlx5_handle h;
	struct mlx5_pd *pd;
	int ret;

	ret = mlx5_handle_get(ctx->uctx, handle, MLX5_HANDLE_PD, &h);
	if (ret) {
		errno = ret;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->pdn = h.hw_id;
	pd->imported = true;
	pd->ibv_pd.context = context;
	pd->ibv_pd.handle = handle;
	return &pd->ibv_pd;
}

void mlx5_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_mpd(ibpd));
}

/* A parent domain is driver-only: the PD number is its parent's, plus the
 * thread domain and the allocators rings are taken from. */
struct ibv_pd *mlx5_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr)
{
	struct mlx5_pd *pd, *parent;

	if (!attr || !attr->pd ||
	    (attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					   IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT))) {
		errno = EINVAL;
		return NULL;
	}
	parent = to_mpd(attr->pd);
	if (parent->parent || attr->pd->context != context) {
		errno = EINVAL;	/* a parent domain wraps a plain PD of this context */
		return NULL;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc || !attr->free)) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->parent = parent;
	pd->pdn = parent->pdn;
	pd->td = attr->td;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	pd->ibv_pd.context = context;
	pd->ibv_pd.handle = attr->pd->handle;
	atomic_fetch_add(&parent->users, 1);
	if (attr->td)
		atomic_fetch_add(&SMX_CONTAINER_OF(attr->td, struct mlx5_td, ibv_td)->users, 1);
	return &pd->ibv_pd;
}

/* Thread domains promise single-threaded use; the rings need no dedicated
 * doorbell register in softmlx5, so a TD is bookkeeping only. */
struct ibv_td *mlx5_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *attr)
{
	struct mlx5_td *td;

	if (!attr || attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibv_td.context = context;
	return &td->ibv_td;
}

int mlx5_dealloc_td(struct ibv_td *ibtd)
{
	struct mlx5_td *td = SMX_CONTAINER_OF(ibtd, struct mlx5_td, ibv_td);

	if (atomic_load(&td->users))
		return EBUSY;
	free(td);
	return 0;
}
