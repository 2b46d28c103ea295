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
