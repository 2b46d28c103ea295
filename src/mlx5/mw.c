/* SPDX-License-Identifier: MIT */
/*
 * Memory windows: a free, UMR-enabled KLM mkey (CREATE_MKEY, as the kernel
 * allocates one), bound and invalidated by UMR WQEs on a send queue.
 */
#include <errno.h>
#include <stdlib.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

struct ibv_mw *mlx5_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct mlx5_context *ctx = to_mctx(pd->context);
	uint32_t in[DEVX_ST_SZ_DW(create_mkey_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_mkey_out)] = {};
	void *mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	struct ibv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(mkc, mkc, free, 1);
	DEVX_SET(mkc, mkc, umr_en, 1);
	DEVX_SET(mkc, mkc, lr, 1);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	DEVX_SET(mkc, mkc, en_rinval, type == IBV_MW_TYPE_2);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, pd, to_mpd(pd)->pdn);
	DEVX_SET(mkc, mkc, translations_octword_size, 2);
	DEVX_SET(mkc, mkc, log_page_size, MLX5_ADAPTER_PAGE_SHIFT);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	mw->context = pd->context;
	mw->pd = pd;
	mw->type = type;
	mw->rkey = DEVX_GET(create_mkey_out, out, mkey_index) << 8;
	mw->handle = mw->rkey >> 8;
	return mw;
}

int mlx5_dealloc_mw(struct ibv_mw *mw)
{
	int ret = mlx5_mkey_destroy(to_mctx(mw->context), mw->rkey);

	if (!ret)
		free(mw);
	return ret;
}

/* Type 1 windows are bound through ibv_bind_mw(): a BIND_MW work request
 * with the key's next variant, which becomes the window's rkey. */
int mlx5_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	struct ibv_send_wr wr = {}, *bad;
	const struct ibv_mw_bind_info *bi = &bind->bind_info;
	int ret;

	if (!mw || mw->type != IBV_MW_TYPE_1 || mw->pd != qp->pd)
		return EINVAL;
	if (bi->length && (!bi->mr || bi->mr->pd != qp->pd ||
			   bi->addr < (uintptr_t)bi->mr->addr ||
			   bi->addr + bi->length > (uintptr_t)bi->mr->addr + bi->mr->length))
		return EINVAL;
	wr.wr_id = bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = *bi;
	ret = mlx5_post_send(qp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}
