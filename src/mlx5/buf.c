/* SPDX-License-Identifier: MIT */
/*
 * Queue buffers: page-aligned process memory handed to the device by a
 * physical address list (PAS). In softmlx5 a DMA address is the virtual
 * address in this process, so a PAS entry is the address of one 4 KiB page.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "mlx5/mlx5.h"
#include "util/log.h"
#include "util/symver.h"

/* @len rounded up to whole 4 KiB pages: rings are handed over by page. */
static size_t buf_round(size_t len)
{
	return (len + MLX5_ADAPTER_PAGE_SIZE - 1) & ~(size_t)(MLX5_ADAPTER_PAGE_SIZE - 1);
}

int mlx5_buf_alloc(struct mlx5_buf *buf, size_t len)
{
	size_t size = buf_round(len);
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

#define MLX5_HUGE_PAGE (2ul << 20)

/*
 * $MLX_{QP,CQ,SRQ}_ALLOC_TYPE, read at each allocation as rdma-core does:
 * HUGE must come from 2 MiB huge pages (failing when there are none),
 * PREFER_HUGE tries them first. ANON, CONTIG, PREFER_CONTIG and ALL all
 * get ordinary pages: process memory is what the device reads either way.
 */
enum buf_alloc_type { BUF_ANON, BUF_HUGE, BUF_PREFER_HUGE };

static enum buf_alloc_type buf_alloc_type(uint64_t res_type)
{
	const char *comp, *v;
	char name[32];

	switch (res_type) {
	case MLX5DV_RES_TYPE_QP: comp = "MLX_QP"; break;
	case MLX5DV_RES_TYPE_CQ: comp = "MLX_CQ"; break;
	case MLX5DV_RES_TYPE_SRQ: comp = "MLX_SRQ"; break;
	default: return BUF_ANON;
	}
	snprintf(name, sizeof(name), "%s_ALLOC_TYPE", comp);
	v = getenv(name);
	if (v && !strcasecmp(v, "HUGE"))
		return BUF_HUGE;
	if (v && !strcasecmp(v, "PREFER_HUGE"))
		return BUF_PREFER_HUGE;
	return BUF_ANON;
}

static int buf_alloc_huge(struct mlx5_buf *buf, size_t len)
{
	size_t size = buf_round(len);
	size_t map = (len + MLX5_HUGE_PAGE - 1) & ~(MLX5_HUGE_PAGE - 1);
	void *p;

	if (!len)
		return EINVAL;
	p = mmap(NULL, map, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED)
		return ENOMEM;
	madvise(p, map, MADV_DONTFORK);
	buf->addr = p;
	buf->len = size;
	buf->huge_len = map;
	return 0;
}

/* The application's buffer allocator (mlx5dv_set_context_attr). The device
 * reads rings by page (PAS), so memory that is not page-aligned is refused. */
static int buf_alloc_extern(struct mlx5_context *ctx, struct mlx5_buf *buf,
			    size_t len)
{
	size_t size = buf_round(len);
	void *p = ctx->extern_alloc.alloc(size, ctx->extern_alloc.data);

	if (!p) {
		smx_dbg("mlx5: external buffer allocator failed for %zu bytes", size);
		return ENOMEM;
	}
	if ((uintptr_t)p & (MLX5_ADAPTER_PAGE_SIZE - 1)) {
		smx_dbg("mlx5: external buffer allocator returned %p, not "
			"4 KiB-aligned: refused", p);
		ctx->extern_alloc.free(p, ctx->extern_alloc.data);
		return ENOMEM;
	}
	memset(p, 0, size);
	madvise(p, size, MADV_DONTFORK);
	buf->addr = p;
	buf->len = size;
	buf->ext = ctx;
	return 0;
}

/*
 * A ring buffer for a QP, CQ, SRQ or WQ, from (in rdma-core's order) the
 * parent domain's allocator, the context's external allocators, 2 MiB huge
 * pages if $MLX_*_ALLOC_TYPE asks, or ordinary pages.
 */
int mlx5_buf_alloc_pd(struct mlx5_context *ctx, struct mlx5_buf *buf, size_t len,
		      struct ibv_pd *ibpd, uint64_t res_type)
{
	struct mlx5_pd *pd = ibpd ? to_mpd(ibpd) : NULL;
	size_t size;
	void *p;

	if (!len)
		return EINVAL;
	if (!pd || !pd->parent || !pd->alloc) {
		if (ctx && ctx->extern_alloc.alloc && ctx->extern_alloc.free)
			return buf_alloc_extern(ctx, buf, len);
		switch (buf_alloc_type(res_type)) {
		case BUF_HUGE:
			return buf_alloc_huge(buf, len);
		case BUF_PREFER_HUGE:
			if (!buf_alloc_huge(buf, len))
				return 0;
			/* fall through */
		default:
			return mlx5_buf_alloc(buf, len);
		}
	}
	size = buf_round(len);
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
	if (buf->ext) {
		madvise(buf->addr, buf->len, MADV_DOFORK);
		buf->ext->extern_alloc.free(buf->addr, buf->ext->extern_alloc.data);
		buf->addr = NULL;
		buf->ext = NULL;
		return;
	}
	if (buf->huge_len) {
		munmap(buf->addr, buf->huge_len);
		buf->addr = NULL;
		buf->len = buf->huge_len = 0;
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

/*
 * mlx5dv_set_context_attr: MLX5DV_CTX_ATTR_BUF_ALLOCATORS makes the
 * application's alloc/free give the rings of the QPs, CQs, SRQs and WQs
 * created afterwards (DPDK puts them in its own memory this way); buffers
 * made before keep their allocator. Doorbell records stay in softmlx5's
 * memory. Other attribute types are ENOTSUP, as in rdma-core.
 */
SMX_EXPORT int mlx5dv_set_context_attr(struct ibv_context *context,
				       enum mlx5dv_set_ctx_attr_type type,
				       void *attr)
{
	if (!context || !mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	if (type != MLX5DV_CTX_ATTR_BUF_ALLOCATORS) {
		smx_dbg("mlx5dv_set_context_attr: attribute type %d is not "
			"supported", (int)type);
		return ENOTSUP;
	}
	if (!attr)
		return EINVAL;
	to_mctx(context)->extern_alloc = *(const struct mlx5dv_ctx_allocators *)attr;
	return 0;
}
