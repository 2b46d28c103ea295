/* SPDX-License-Identifier: MIT */
/*
 * Memory regions: CREATE_MKEY in MTT mode over the registered range, as the
 * kernel registers user memory. A "physical" page in softmlx5 is the page's
 * address in this process, so the translation is exact and the device checks
 * every access against the mkey's PD, rights and bounds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device/fabric/direct.h"
#include "util/fault.h"
#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

#define MTT_READ (1ull << 0)
#define MTT_WRITE (1ull << 1)
#define MR_MAX_LOG_PAGE 30

static const int mr_supported_access =
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_RELAXED_ORDERING | IBV_ACCESS_MW_BIND;

/* Rights rules shared by every kind of MR (IB spec o10-37.2.x). */
int mlx5_mr_check_access(int access)
{
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	if (access & ~(mr_supported_access | IBV_ACCESS_HUGETLB | IBV_ACCESS_ON_DEMAND |
		       IBV_ACCESS_OPTIONAL_RANGE | IBV_ACCESS_ZERO_BASED))
		return EINVAL;
	return 0;
}

void mlx5_mkc_set_access(void *mkc, int access)
{
	DEVX_SET(mkc, mkc, lr, 1);
	DEVX_SET(mkc, mkc, lw, !!(access & IBV_ACCESS_LOCAL_WRITE));
	DEVX_SET(mkc, mkc, rr, !!(access & IBV_ACCESS_REMOTE_READ));
	DEVX_SET(mkc, mkc, rw, !!(access & IBV_ACCESS_REMOTE_WRITE));
	DEVX_SET(mkc, mkc, a, !!(access & IBV_ACCESS_REMOTE_ATOMIC));
	DEVX_SET(mkc, mkc, relaxed_ordering_write,
		 !!(access & IBV_ACCESS_RELAXED_ORDERING));
}

/* Largest page size (>= 4 KiB) in which @addr and @iova share the offset. */
static int mr_log_page_size(uint64_t addr, uint64_t iova)
{
	int log;

	/* Page 0 is never a DMA page: keep the first page's base non-zero. */
	for (log = MR_MAX_LOG_PAGE; log > MLX5_ADAPTER_PAGE_SHIFT; log--)
		if (!((addr ^ iova) & ((1ull << log) - 1)) && (addr >> log))
			break;
	if ((addr ^ iova) & (MLX5_ADAPTER_PAGE_SIZE - 1))
		return -1;
	return log;
}

static uint32_t mr_next_variant(struct mlx5_context *ctx)
{
	static atomic_uint variant;

	return atomic_fetch_add(&variant, 1) & 0xff;
}

/* DESTROY_MKEY as @uid (0 for the keys the kernel half owns). */
static int mkey_destroy(struct mlx5_context *ctx, uint16_t uid, uint32_t mkey)
{
	uint32_t in[DEVX_ST_SZ_DW(destroy_mkey_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(destroy_mkey_in, in, opcode, MLX5_CMD_OP_DESTROY_MKEY);
	DEVX_SET(destroy_mkey_in, in, mkey_index, mkey >> 8);
	return mlx5_cmd_exec_hca(ctx->hca, uid, in, sizeof(in), out, sizeof(out));
}

int mlx5_mkey_destroy(struct mlx5_context *ctx, uint32_t mkey)
{
	return mkey_destroy(ctx, ctx->uctx->uid, mkey);
}

/* CREATE_MKEY in MTT mode over [addr, addr + length) seen at @iova. */
static int mr_mkey_create(struct mlx5_context *ctx, uint32_t pdn, void *addr,
			  size_t length, uint64_t iova, int access, uint32_t *key)
{
	uint32_t out[DEVX_ST_SZ_DW(create_mkey_out)] = {};
	uint64_t base, end, npages, i, pgsz;
	uint32_t variant, *in;
	size_t inlen;
	void *mkc;
	__be64 *mtt;
	int log, ret;

	ret = mlx5_mr_check_access(access);
	if (ret)
		return ret;
	if (!addr || !length || (uint64_t)(uintptr_t)addr + length < (uintptr_t)addr)
		return EINVAL;
	log = mr_log_page_size((uintptr_t)addr, iova);
	if (log < 0)
		return EINVAL;
	pgsz = 1ull << log;
	base = (uintptr_t)addr & ~(pgsz - 1);
	end = ((uintptr_t)addr + length + pgsz - 1) & ~(pgsz - 1);
	npages = (end - base) >> log;

	inlen = DEVX_ST_SZ_BYTES(create_mkey_in) + ((npages + 1) & ~1ull) * sizeof(*mtt);
	in = calloc(1, inlen);
	if (!in)
		return ENOMEM;
	variant = mr_next_variant(ctx);
	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(create_mkey_in, in, translations_octword_actual_size,
		 (uint32_t)((npages + 1) / 2));
	mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	mlx5_mkc_set_access(mkc, access);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, mkey_7_0, variant);
	DEVX_SET(mkc, mkc, pd, pdn);
	DEVX_SET64(mkc, mkc, start_addr, iova);
	DEVX_SET64(mkc, mkc, len, length);
	DEVX_SET(mkc, mkc, log_page_size, (uint32_t)log);
	DEVX_SET(mkc, mkc, translations_octword_size, (uint32_t)((npages + 1) / 2));
	mtt = (__be64 *)DEVX_ADDR_OF(create_mkey_in, in, klm_pas_mtt);
	for (i = 0; i < npages; i++)
		mtt[i] = htobe64((base + i * pgsz) | MTT_READ | MTT_WRITE);
	ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
	free(in);
	if (!ret)
		*key = DEVX_GET(create_mkey_out, out, mkey_index) << 8 | variant;
	return ret;
}

/*
 * Implicit ODP (addr NULL, length SIZE_MAX): one key over the whole address
 * space. The kernel creates such keys itself, so the mkey belongs to uid 0
 * and uses PA mode; the device still checks PD and rights on every access
 * and treats an unmapped page as an access error.
 */
static int mr_implicit_create(struct mlx5_context *ctx, uint32_t pdn, int access,
			      uint32_t *key)
{
	uint32_t in[DEVX_ST_SZ_DW(create_mkey_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_mkey_out)] = {};
	uint32_t variant = mr_next_variant(ctx);
	void *mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	int ret;

	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
	mlx5_mkc_set_access(mkc, access);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, mkey_7_0, variant);
	DEVX_SET(mkc, mkc, pd, pdn);
	DEVX_SET(mkc, mkc, length64, 1);
	ret = mlx5_cmd_exec_hca(ctx->hca, 0, in, sizeof(in), out, sizeof(out));
	if (!ret)
		*key = DEVX_GET(create_mkey_out, out, mkey_index) << 8 | variant;
	return ret;
}

/*
 * What pinning checks in the kernel: every page of the range is mapped,
 * and writable when the access lets anything write it (EFAULT otherwise).
 * On-demand paging registrations pin nothing and are not checked.
 */
static bool mr_pages_present(void *addr, size_t length, int access)
{
	if (access & IBV_ACCESS_ON_DEMAND)
		return true;
	smx_fault_init();
	return smx_fault_probe(addr, length,
			       access & (IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_WRITE |
					 IBV_ACCESS_REMOTE_ATOMIC |
					 IBV_ACCESS_MW_BIND));
}

struct ibv_mr *mlx5_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			   uint64_t iova, int access)
{
	bool implicit = !addr && length == SIZE_MAX;
	struct mlx5_context *ctx = to_mctx(ibpd->context);
	struct mlx5_handle h = { .type = MLX5_HANDLE_MR };
	struct mlx5_mr *mr;
	uint32_t key;
	int ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	if (implicit && !(access & IBV_ACCESS_ON_DEMAND))
		ret = EINVAL;
	else if (implicit && !ctx->caps.have_odp)
		ret = EOPNOTSUPP;
	else if (implicit)
		ret = mlx5_mr_check_access(access) ?:
		      mr_implicit_create(ctx, to_mpd(ibpd)->pdn, access, &key);
	else if ((access & IBV_ACCESS_ON_DEMAND) && !ctx->caps.have_odp)
		ret = EOPNOTSUPP;
	else if (!mr_pages_present(addr, length, access))
		ret = EFAULT;
	else {
		/* Shareable with the peer processes' engines: remotely
		 * accessible memory for direct placement, any memory as the
		 * source of a SEND by reference (fabric/direct.h). */
		mr->direct = smx_direct_back(addr, length);
		ret = mr_mkey_create(ctx, to_mpd(ibpd)->pdn, addr, length, iova, access,
				     &key);
	}
	if (ret)
		goto err;
	mr->implicit = implicit;
	mr->ibv_mr.lkey = key;
	mr->ibv_mr.rkey = key;
	mr->access = access;
	mr->iova = iova;
	h.hw_id = key;
	h.u64 = (uintptr_t)addr;
	h.u64b = length;
	h.access = (uint32_t)access;
	h.pd_handle = ibpd->handle;
	ret = mlx5_handle_add(ctx->uctx, &h, &mr->ibv_mr.handle);
	if (ret) {
		mlx5_mkey_destroy(ctx, key);
		goto err;
	}
	return &mr->ibv_mr;
err:
	smx_direct_release(mr->direct);
	free(mr);
	errno = ret;
	return NULL;
}

/*
 * Re-registration in place: one UMR WQE on the kernel half's UMR QP changes
 * the PD, the rights and/or the page list of the existing mkey, so lkey and
 * rkey stay what the peer already knows (rdma-core semantics on mlx5).
 * On failure the MR is unchanged.
 */
int mlx5_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd, void *addr,
		  size_t length, int access)
{
	struct mlx5_context *ctx = to_mctx(ibmr->context);
	struct mlx5_mr *mr = to_mmr(ibmr);
	struct mlx5_umr_rereg r = { 0 };
	uint64_t mtt[110], base, end, pgsz, iova = (uintptr_t)addr;
	struct mlx5_handle h;
	int ret, log;

	if (mr->imported || mr->implicit || !ibmr->addr)
		return EINVAL;	/* DM, imported and implicit MRs stay as they are */
	if ((flags & IBV_REREG_MR_CHANGE_PD) && pd->context != ibmr->context)
		return EINVAL;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		ret = mlx5_mr_check_access(access);
		if (ret)
			return ret;
		r.set_access = true;
		r.access = access;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		r.set_pd = true;
		r.pdn = to_mpd(pd)->pdn;
	}
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		if ((uint64_t)(uintptr_t)addr + length < (uintptr_t)addr)
			return EINVAL;
		if (!mr_pages_present(addr, length,
				      flags & IBV_REREG_MR_CHANGE_ACCESS ?
				      access : mr->access))
			return EFAULT;
		log = mr_log_page_size((uintptr_t)addr, iova);
		if (log < 0)
			return EINVAL;
		pgsz = 1ull << log;
		base = (uintptr_t)addr & ~(pgsz - 1);
		end = ((uintptr_t)addr + length + pgsz - 1) & ~(pgsz - 1);
		if ((end - base) >> log > sizeof(mtt) / sizeof(mtt[0]))
			return EOPNOTSUPP;	/* more pages than one inline UMR carries */
		for (r.nmtt = 0; base + (uint64_t)r.nmtt * pgsz < end; r.nmtt++)
			mtt[r.nmtt] = (base + (uint64_t)r.nmtt * pgsz) | MTT_READ | MTT_WRITE;
		r.mtt = mtt;
		r.page_shift = (uint32_t)log;
		r.start = iova;
		r.len = length;
	}
	ret = mlx5_umr_rereg(ctx, ibmr->lkey, &r);
	if (ret)
		return ret;
	/* The UMR made every peer record of the key stale: the old pages
	 * can go back to private memory, the new ones be shared. */
	if (r.nmtt) {
		smx_direct_release(mr->direct);
		mr->direct = 0;
	}
	if (r.set_access)
		mr->access = access;
	if (!mr->direct)
		mr->direct = r.nmtt ? smx_direct_back(addr, length) :
			     smx_direct_back(ibmr->addr, ibmr->length);
	if (r.nmtt)
		mr->iova = iova;
	/* The handle importers resolve follows the MR. */
	if (!mlx5_handle_get(ctx->uctx, ibmr->handle, MLX5_HANDLE_MR, &h)) {
		mlx5_handle_del(ctx->uctx, ibmr->handle);
		if (r.nmtt) {
			h.u64 = (uintptr_t)addr;
			h.u64b = length;
		}
		if (r.set_access)
			h.access = (uint32_t)access;
		if (r.set_pd)
			h.pd_handle = pd->handle;
		return mlx5_handle_add(ctx->uctx, &h, &ibmr->handle);
	}
	return 0;
}

int mlx5_dereg_mr(struct ibv_mr *ibmr)
{
	struct mlx5_context *ctx = to_mctx(ibmr->context);
	struct mlx5_mr *mr = to_mmr(ibmr);
	int ret;

	if (mr->imported)
		return EINVAL;
	ret = mkey_destroy(ctx, mr->implicit ? 0 : ctx->uctx->uid, ibmr->lkey);
	if (ret)
		return ret;
	mlx5_handle_del(ctx->uctx, ibmr->handle);
	/* The key is gone (no peer record of it is usable any more): the
	 * pages become the application's private memory again. */
	smx_direct_release(mr->direct);
	free(mr);
	return 0;
}

struct ibv_mr *mlx5_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	struct mlx5_context *ctx = to_mctx(pd->context);
	struct mlx5_handle h;
	struct mlx5_mr *mr;
	int ret;

	ret = mlx5_handle_get(ctx->uctx, handle, MLX5_HANDLE_MR, &h);
	if (ret) {
		errno = ret;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	mr->imported = true;
	mr->access = (int)h.access;
	mr->ibv_mr.context = pd->context;
	mr->ibv_mr.pd = pd;
	mr->ibv_mr.addr = (void *)(uintptr_t)h.u64;
	mr->ibv_mr.length = h.u64b;
	mr->ibv_mr.handle = handle;
	mr->ibv_mr.lkey = h.hw_id;
	mr->ibv_mr.rkey = h.hw_id;
	return &mr->ibv_mr;
}

void mlx5_unimport_mr(struct ibv_mr *mr)
{
	free(to_mmr(mr));
}

/*
 * ibv_advise_mr: the device reaches memory through the process's own
 * mappings, so there is nothing to prefetch; the call still validates what
 * the kernel validates -- advice, flags, and that every SGE lies in an ODP MR
 * of this PD (writable for PREFETCH_WRITE).
 */
int mlx5_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		   struct ibv_sge *sg_list, uint32_t num_sge)
{
	struct mlx5_ucontext *u = to_mctx(pd->context)->uctx;
	uint32_t i, h;

	if (advice != IBV_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return EOPNOTSUPP;
	if ((flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH) || !num_sge || !sg_list)
		return EINVAL;
	for (i = 0; i < num_sge; i++) {
		bool found = false;

		pthread_mutex_lock(&u->lock);
		for (h = 0; h < u->num_handles && !found; h++) {
			const struct mlx5_handle *e = &u->handles[h];

			if (!e->live || e->type != MLX5_HANDLE_MR || e->hw_id != sg_list[i].lkey)
				continue;
			found = (e->access & IBV_ACCESS_ON_DEMAND) && e->pd_handle == pd->handle &&
				(advice != IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE ||
				 (e->access & IBV_ACCESS_LOCAL_WRITE)) &&
				(e->u64b == SIZE_MAX ||
				 (sg_list[i].addr >= e->u64 &&
				  sg_list[i].addr + sg_list[i].length <= e->u64 + e->u64b));
		}
		pthread_mutex_unlock(&u->lock);
		if (!found)
			return EINVAL;
	}
	return 0;
}
