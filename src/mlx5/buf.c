/* SPDX-License-Identifier: MIT */
/*
 * Queue buffers: page-aligned process memory handed to the device by a
 * physical address list (PAS). In softmlx5 a DMA address is the virtual
 * address in this process, so a PAS entry is the address of one 4 KiB page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mlx5/mlx5.h"

int mlx5_buf_alloc(struct mlx5_buf *buf, size_t len)
{
	size_t size = (len + MLX5_ADAPTER_PAGE_SIZE - 1) & ~(size_t)(MLX5_ADAPTER_PAGE_SIZE - 1);
	void *p;

	if (!len)
		return EINVAL;
	if (posix_memalign(&p, MLX5_ADAPTER_PAGE_SIZE, size))
		return ENOMEM;
	memset(p, 0, size);
	/* Like rdma-core: a forked child must not share rings with the device. */
	madvise(p, size, MADV_DONTFORK);
	buf->addr = p;
	buf->len = size;
	return 0;
}

int mlx5_buf_alloc_pd(struct mlx5_buf *buf, size_t len, struct ibv_pd *ibpd,
		      uint64_t res_type)
{
	struct mlx5_pd *pd = ibpd ? to_mpd(ibpd) : NULL;
	size_t size;
	void *p;

	if (!pd || !pd->parent || !pd->alloc)
		return mlx5_buf_alloc(buf, len);
	if (!len)
		return EINVAL;
	size = (len + MLX5_ADAPTER_PAGE_SIZE - 1) & ~(size_t)(MLX5_ADAPTER_PAGE_SIZE - 1);
	p = pd->alloc(ibpd, pd->pd_context, size, MLX5_ADAPTER_PAGE_SIZE, res_type);
	if (p == IBV_ALLOCATOR_USE_DEFAULT)
		return mlx5_buf_alloc(buf, len);
	if (!p || ((uintptr_t)p & (MLX5_ADAPTER_PAGE_SIZE - 1)))
		return ENOMEM;	/* the device needs page-aligned rings */
	memset(p, 0, size);
	buf->addr = p;
	buf->len = size;
	buf->custom = pd;
	buf->res_type = res_type;
	return 0;
}

void mlx5_buf_free(struct mlx5_buf *buf)
{
	if (!buf->addr)
		return;
	if (buf->custom) {
		if (buf->custom->free)
			buf->custom->free(&buf->custom->ibv_pd, buf->custom->pd_context,
					  buf->addr, buf->res_type);
		buf->addr = NULL;
		buf->custom = NULL;
		return;
	}
	madvise(buf->addr, buf->len, MADV_DOFORK);
	free(buf->addr);
	buf->addr = NULL;
	buf->len = 0;
}

size_t mlx5_buf_npages(const struct mlx5_buf *buf)
{
	return buf->len / MLX5_ADAPTER_PAGE_SIZE;
}

void mlx5_buf_fill_pas(const struct mlx5_buf *buf, __be64 *pas)
{
	size_t i;

	for (i = 0; i < mlx5_buf_npages(buf); i++)
		pas[i] = htobe64((uint64_t)(uintptr_t)buf->addr + i * MLX5_ADAPTER_PAGE_SIZE);
}

/* Doorbell records: two big-endian dwords the device reads, 64-byte aligned
 * so no two queues share a cache line. */
__be32 *mlx5_dbrec_alloc(void)
{
	void *p;

	if (posix_memalign(&p, 64, 64))
		return NULL;
	memset(p, 0, 64);
	return p;
}

void mlx5_dbrec_free(__be32 *db)
{
	free(db);
}
