/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv indirect mkeys (mlx5dv_create_mkey): a free, UMR-enabled KLM mkey
 * with room for max_entries translation entries (rounded up to 4), created
 * with CREATE_MKEY as rdma-core does through DevX. Its layout, rights and
 * validity are then set by UMR WQEs on a send queue (mlx5dv_wr_mr_list,
 * mlx5dv_wr_mr_interleaved, mlx5dv_wr_mkey_configure: qp_post.c) and
 * cleared by LOCAL_INV or a remote send-with-invalidate.
 * Signature (BLOCK_SIGNATURE) and crypto mkeys are not supported yet:
 * EOPNOTSUPP, as is UPDATE_TAG (the capability is not advertised).
 */
#include <errno.h>
#include <stdlib.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

SMX_EXPORT struct mlx5dv_mkey *mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *a)
{
	uint32_t in[DEVX_ST_SZ_DW(create_mkey_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_mkey_out)] = {};
	void *mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	const uint32_t known = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			       MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE |
			       MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO |
			       MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE;
	struct mlx5_context *ctx;
	struct mlx5_mkey *mk;
	struct mlx5_pd *pd;
	uint32_t num_desc;
	int ret;

	if (!a || !a->pd) {
		errno = EINVAL;
		return NULL;
	}
	if (!a->create_flags || (a->create_flags & ~known) ||
	    (a->create_flags & (MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	num_desc = ((uint32_t)a->max_entries + 3) & ~3u;
	if (num_desc > 0xffff) {
		errno = EINVAL;	/* not representable in max_entries */
		return NULL;
	}
	ctx = to_mctx(a->pd->context);
	pd = to_mpd(a->pd);
	if (pd->parent)
		pd = pd->parent;
	mk = calloc(1, sizeof(*mk));
	if (!mk) {
		errno = ENOMEM;
		return NULL;
	}
	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	DEVX_SET(mkc, mkc, free, 1);
	DEVX_SET(mkc, mkc, umr_en, 1);
	DEVX_SET(mkc, mkc, pd, pd->pdn);
	DEVX_SET(mkc, mkc, translations_octword_size, num_desc);
	DEVX_SET(mkc, mkc, lr, 1);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	if (a->create_flags & MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE)
		DEVX_SET(mkc, mkc, en_rinval, 1);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret) {
		free(mk);
		errno = ret;
		return NULL;
	}
	a->max_entries = (uint16_t)num_desc;
	mk->ctx = ctx;
	mk->num_desc = num_desc;
	mk->dv.lkey = DEVX_GET(create_mkey_out, out, mkey_index) << 8;
	mk->dv.rkey = mk->dv.lkey;
	return &mk->dv;
}

SMX_EXPORT int mlx5dv_destroy_mkey(struct mlx5dv_mkey *dv)
{
	struct mlx5_mkey *mk;
	int ret;

	if (!dv)
		return EINVAL;
	mk = SMX_CONTAINER_OF(dv, struct mlx5_mkey, dv);
	ret = mlx5_mkey_destroy(mk->ctx, dv->lkey);
	if (!ret)
		free(mk);
	return ret;
}
