/* SPDX-License-Identifier: MIT */
/*
 * Device memory (MEMIC): ALLOC_MEMIC carves a range out of the device's
 * memory window in its BAR, which the application reaches with
 * ibv_memcpy_to/from_dm(); ibv_reg_dm_mr() covers it with a MEMIC-mode mkey.
 * mlx5dv_alloc_dm gives the same MEMIC memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

#define DM_CAP(ctx, fld) DEVX_GET(device_mem_cap, (ctx)->caps.dm, fld)

static struct mlx5_dm *to_mdm(struct ibv_dm *dm)
{
	return SMX_CONTAINER_OF(dm, struct mlx5_dm, ibv_dm);
}

/* Device memory is reached through 4-byte MMIO accesses on mlx5: offset and
 * length must be multiples of 4 (EINVAL), the range inside the DM (EFAULT). */
static int dm_check_access(const struct mlx5_dm *dm, uint64_t off, size_t len)
{
	if (off > dm->length || len > dm->length - off)
		return EFAULT;
	if ((off & 3) || (len & 3))
		return EINVAL;
	return 0;
}

static int dm_memcpy_to(struct ibv_dm *ibdm, uint64_t off, const void *src, size_t len)
{
	struct mlx5_dm *dm = to_mdm(ibdm);

	int ret = dm_check_access(dm, off, len);

	if (ret)
		return ret;
	memcpy((uint8_t *)dm->map + off, src, len);
	return 0;
}

static int dm_memcpy_from(void *dst, struct ibv_dm *ibdm, uint64_t off, size_t len)
{
	struct mlx5_dm *dm = to_mdm(ibdm);

	int ret = dm_check_access(dm, off, len);

	if (ret)
		return ret;
	memcpy(dst, (const uint8_t *)dm->map + off, len);
	return 0;
}

static struct mlx5_dm *dm_new(struct mlx5_context *ctx, uint64_t dev_addr,
			      uint64_t length, uint64_t alloc_len)
{
	struct mlx5_dm *dm = calloc(1, sizeof(*dm));

	if (!dm) {
		errno = ENOMEM;
		return NULL;
	}
	dm->map = smx_dev_bar(ctx->hca, dev_addr, alloc_len);
	if (!dm->map) {
		free(dm);
		errno = EFAULT;
		return NULL;
	}
	dm->dev_addr = dev_addr;
	dm->length = length;
	dm->alloc_len = alloc_len;
	dm->ibv_dm.context = &ctx->ibv_ctx.context;
	dm->ibv_dm.memcpy_to_dm = dm_memcpy_to;
	dm->ibv_dm.memcpy_from_dm = dm_memcpy_from;
	return dm;
}

static int memic_dealloc(struct mlx5_context *ctx, uint64_t addr, uint64_t len)
{
	uint32_t in[DEVX_ST_SZ_DW(dealloc_memic_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(dealloc_memic_in, in, opcode, MLX5_CMD_OP_DEALLOC_MEMIC);
	DEVX_SET64(dealloc_memic_in, in, memic_start_addr, addr);
	DEVX_SET(dealloc_memic_in, in, memic_size, (uint32_t)len);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

struct ibv_dm *mlx5_alloc_dm(struct ibv_context *context,
			     struct ibv_alloc_dm_attr *attr)
{
	struct mlx5_context *ctx = to_mctx(context);
	uint32_t in[DEVX_ST_SZ_DW(alloc_memic_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_memic_out)] = {};
	struct mlx5_handle h = { .type = MLX5_HANDLE_DM };
	uint64_t addr, min, len;
	struct mlx5_dm *dm;
	int ret;

	if (!ctx->caps.have_dm || !DM_CAP(ctx, memic)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr || attr->comp_mask || !attr->length ||
	    attr->length > DM_CAP(ctx, max_memic_size)) {
		errno = EINVAL;
		return NULL;
	}
	/* Allocations come in units of the minimal MEMIC size. */
	min = 1ull << DM_CAP(ctx, log_min_memic_alloc_size);
	len = (attr->length + min - 1) & ~(min - 1);
	DEVX_SET(alloc_memic_in, in, opcode, MLX5_CMD_OP_ALLOC_MEMIC);
	DEVX_SET64(alloc_memic_in, in, range_start_addr,
		   DEVX_GET64(device_mem_cap, ctx->caps.dm, memic_bar_start_addr));
	DEVX_SET(alloc_memic_in, in, range_size, DM_CAP(ctx, memic_bar_size));
	DEVX_SET(alloc_memic_in, in, memic_size, (uint32_t)len);
	DEVX_SET(alloc_memic_in, in, log_memic_addr_alignment,
		 DM_CAP(ctx, log_min_memic_alloc_size));
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret) {
		errno = ret;
		return NULL;
	}
	addr = DEVX_GET64(alloc_memic_out, out, memic_start_addr);
	dm = dm_new(ctx, addr, attr->length, len);
	if (!dm)
		goto err_dealloc;
	h.u64 = addr;
	h.u64b = len;
	h.dm_len = attr->length;
	ret = mlx5_handle_add(ctx->uctx, &h, &dm->ibv_dm.handle);
	if (ret) {
		free(dm);
		errno = ret;
		goto err_dealloc;
	}
	return &dm->ibv_dm;

err_dealloc:
	ret = errno;
	memic_dealloc(ctx, addr, len);
	errno = ret;
	return NULL;
}

/*
 * mlx5dv_alloc_dm: MEMIC is ibv_alloc_dm's device memory. The SW ICM types
 * (memory for software-owned steering and header-modify tables) need
 * software steering, which the device does not offer (sw_owner 0 in its
 * flow table caps): EOPNOTSUPP, as a kernel without it answers.
 */
SMX_EXPORT struct ibv_dm *mlx5dv_alloc_dm(struct ibv_context *context,
					  struct ibv_alloc_dm_attr *dm_attr,
					  struct mlx5dv_alloc_dm_attr *mlx5_dm_attr)
{
	if (!context || !dm_attr || !mlx5_dm_attr) {
		errno = EINVAL;
		return NULL;
	}
	if (!mlx5dv_is_supported(context->device) ||
	    mlx5_dm_attr->type != MLX5DV_DM_TYPE_MEMIC) {
		smx_dbg("mlx5dv_alloc_dm: type %d: only MEMIC device memory "
			"(no software steering ICM)", (int)mlx5_dm_attr->type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (mlx5_dm_attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	return mlx5_alloc_dm(context, dm_attr);
}

int mlx5_free_dm(struct ibv_dm *ibdm)
{
	struct mlx5_context *ctx = to_mctx(ibdm->context);
	struct mlx5_dm *dm = to_mdm(ibdm);
	int ret;

	if (dm->imported)
		return EINVAL;
	ret = memic_dealloc(ctx, dm->dev_addr, dm->alloc_len);
	if (ret)
		return ret;
	mlx5_handle_del(ctx->uctx, ibdm->handle);
	free(dm);
	return 0;
}

struct ibv_dm *mlx5_import_dm(struct ibv_context *context, uint32_t handle)
{
	struct mlx5_context *ctx = to_mctx(context);
	struct mlx5_handle h;
	struct mlx5_dm *dm;
	int ret;

	ret = mlx5_handle_get(ctx->uctx, handle, MLX5_HANDLE_DM, &h);
	if (ret) {
		errno = ret;
		return NULL;
	}
	dm = dm_new(ctx, h.u64, h.dm_len, h.u64b);
	if (!dm)
		return NULL;
	dm->imported = true;
	dm->ibv_dm.handle = handle;
	return &dm->ibv_dm;
}

void mlx5_unimport_dm(struct ibv_dm *ibdm)
{
	free(to_mdm(ibdm));
}

struct ibv_mr *mlx5_reg_dm_mr(struct ibv_pd *ibpd, struct ibv_dm *ibdm,
			      uint64_t dm_offset, size_t length, unsigned int access)
{
	struct mlx5_context *ctx = to_mctx(ibpd->context);
	struct mlx5_dm *dm = to_mdm(ibdm);
	uint32_t in[DEVX_ST_SZ_DW(create_mkey_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_mkey_out)] = {};
	struct mlx5_mr *mr;
	void *mkc;
	int ret;

	/* Device memory is only addressed zero-based (verbs contract). */
	if (!(access & IBV_ACCESS_ZERO_BASED) || dm_offset > dm->length ||
	    length > dm->length - dm_offset) {
		errno = EINVAL;
		return NULL;
	}
	ret = mlx5_mr_check_access((int)(access & ~IBV_ACCESS_ZERO_BASED));
	if (ret) {
		errno = ret;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MEMIC & 0x3);
	DEVX_SET(mkc, mkc, access_mode_4_2, MLX5_MKC_ACCESS_MODE_MEMIC >> 2);
	mlx5_mkc_set_access(mkc, (int)access);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, pd, to_mpd(ibpd)->pdn);
	DEVX_SET64(mkc, mkc, start_addr, dm->dev_addr + dm_offset);
	DEVX_SET64(mkc, mkc, len, length);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	mr->ibv_mr.lkey = DEVX_GET(create_mkey_out, out, mkey_index) << 8;
	mr->ibv_mr.rkey = mr->ibv_mr.lkey;
	mr->ibv_mr.context = ibpd->context;
	mr->ibv_mr.pd = ibpd;
	mr->ibv_mr.addr = NULL;		/* zero based */
	mr->ibv_mr.length = length;
	mr->access = (int)access;

	struct mlx5_handle h = {
		.type = MLX5_HANDLE_MR, .hw_id = mr->ibv_mr.lkey, .u64b = length,
		.access = access, .pd_handle = ibpd->handle,
	};
	ret = mlx5_handle_add(ctx->uctx, &h, &mr->ibv_mr.handle);
	if (ret) {
		mlx5_mkey_destroy(ctx, mr->ibv_mr.lkey);
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->ibv_mr;
}
