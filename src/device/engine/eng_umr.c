/* SPDX-License-Identifier: MIT */
/*
 * UMR WQEs on a send queue: binding and invalidating memory windows, and
 * LOCAL_INV. Layout (PRM / <infiniband/mlx5dv.h>): control segment, UMR
 * control segment (flags, KLM octowords, mkey mask), mkey context segment,
 * then the inline KLM list. The key to change is the control segment's imm.
 * Every failure is an MW_BIND_ERR completion ("memory management operation
 * error"), and nothing is changed.
 */
#include <stdio.h>
#include <string.h>

#include "device/engine/eng_loc.h"

#define UMR_CTRL_OFF 16
#define UMR_MKC_OFF (UMR_CTRL_OFF + 48)
#define UMR_KLM_OFF (UMR_MKC_OFF + 64)

/* mkey context access_flags bits -> fw_mkey.access bits */
static uint32_t umr_access(uint8_t f)
{
	return (f & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE ? ENG_ACC_LW : 0) |
	       (f & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ ? ENG_ACC_RR : 0) |
	       (f & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE ? ENG_ACC_RW : 0) |
	       (f & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC ? ENG_ACC_A : 0);
}

uint8_t eng_umr_exec(struct eng *e, struct fw_qp *qp, const uint8_t *wqe,
		     uint32_t len, char *why, size_t whylen)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = (const void *)wqe;
	const struct mlx5_wqe_umr_ctrl_seg *uc = (const void *)(wqe + UMR_CTRL_OFF);
	const struct mlx5_wqe_mkey_context_seg *mc = (const void *)(wqe + UMR_MKC_OFF);
	uint32_t key = be32toh(ctrl->imm), qpn_mkey;
	uint64_t mask;
	struct fw_mkey *mw, *mr;
	struct fw_mkey_bind b;

#define UMR_FAIL(...) do { snprintf(why, whylen, __VA_ARGS__); \
		return MLX5_CQE_SYNDROME_MW_BIND_ERR; } while (0)

	if (len < UMR_KLM_OFF)
		UMR_FAIL("UMR WQE of %u bytes, shorter than its control and mkey "
			 "context segments", len);
	mask = be64toh(uc->mkey_mask);
	qpn_mkey = be32toh(mc->qpn_mkey);
	mw = fw_mkey_lookup(e->fw, key);
	if (!mw)
		UMR_FAIL("UMR on key 0x%x: no such key", key);
	if (!mw->umr_en)
		UMR_FAIL("UMR on key 0x%x: the mkey is not UMR-enabled", key);
	if (mw->pd != qp->pd)
		UMR_FAIL("UMR on key 0x%x: its pd 0x%x is not the QP's 0x%x", key,
			 mw->pd ? mw->pd->obj.id : 0, qp->pd ? qp->pd->obj.id : 0);
	if ((uc->flags & MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE) && !mw->free)
		UMR_FAIL("UMR on key 0x%x: the window is bound (not free)", key);
	if ((uc->flags & MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN) && !mw->free &&
	    DEVX_GET(mkc, mw->ctx, qpn) != 0xffffff &&
	    DEVX_GET(mkc, mw->ctx, qpn) != qp->obj.id)
		UMR_FAIL("UMR on key 0x%x: window bound to qp 0x%x, not 0x%x", key,
			 DEVX_GET(mkc, mw->ctx, qpn), qp->obj.id);

	/* Invalidate: the key becomes free. */
	if ((mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE) &&
	    (mc->free & MLX5_WQE_MKEY_CONTEXT_FREE)) {
		fw_mkey_invalidate(mw, mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY,
				   qpn_mkey & 0xff);
		return 0;
	}

	/* Bind: one inline KLM naming the MR the window covers. */
	{
		const struct mlx5_wqe_umr_klm_seg *k = (const void *)(wqe + UMR_KLM_OFF);
		uint32_t mrkey, bc;
		uint64_t addr;

		if (!(uc->flags & MLX5_WQE_UMR_CTRL_FLAG_INLINE) ||
		    be16toh(uc->klm_octowords) < 1 || len < UMR_KLM_OFF + 16)
			UMR_FAIL("bind of key 0x%x without an inline KLM", key);
		if (mw->access_mode != MLX5_MKC_ACCESS_MODE_KLMS)
			UMR_FAIL("bind of key 0x%x: not a KLM (window) mkey", key);
		mrkey = be32toh(k->mkey);
		bc = be32toh(k->byte_count);
		addr = be64toh(k->address);
		mr = fw_mkey_lookup(e->fw, mrkey);
		if (!mr || mr->free)
			UMR_FAIL("bind of key 0x%x to MR 0x%x: no such MR", key, mrkey);
		if (mr->pd != qp->pd)
			UMR_FAIL("bind of key 0x%x: MR 0x%x is in another pd", key, mrkey);
		if (mr->access_mode == MLX5_MKC_ACCESS_MODE_KLMS ||
		    mr->access_mode == MLX5_MKC_ACCESS_MODE_KSM || mr == mw)
			UMR_FAIL("bind of key 0x%x: 0x%x is not a direct MR", key, mrkey);
		if (!mr->len64 && (addr < mr->start || addr - mr->start > mr->len ||
				   bc > mr->len - (addr - mr->start)))
			UMR_FAIL("bind of key 0x%x: [0x%llx,+0x%x) outside MR 0x%x "
				 "[0x%llx,+0x%llx)", key, (unsigned long long)addr, bc,
				 mrkey, (unsigned long long)mr->start,
				 (unsigned long long)mr->len);
		memset(&b, 0, sizeof(b));
		b.access = umr_access(mc->access_flags);
		if ((b.access & (ENG_ACC_RW | ENG_ACC_A)) && !(mr->access & ENG_ACC_LW))
			UMR_FAIL("bind of key 0x%x: remote write/atomic on MR 0x%x "
				 "without local write", key, mrkey);
		b.start = be64toh(mc->start_addr);
		b.len = be64toh(mc->len);
		if (b.len != bc)
			UMR_FAIL("bind of key 0x%x: window length 0x%llx, KLM 0x%x",
				 key, (unsigned long long)b.len, bc);
		b.qpn = (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN) ? qpn_mkey >> 8 : 0xffffff;
		if (b.qpn != 0xffffff && b.qpn != qp->obj.id)
			UMR_FAIL("bind of key 0x%x: tied to qp 0x%x, posted on 0x%x",
				 key, b.qpn, qp->obj.id);
		b.variant = (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY) ?
				    (uint8_t)(qpn_mkey & 0xff) : mw->variant;
		b.mr = mr;
		b.mr_addr = addr;
		fw_mkey_bind(mw, &b);
		if (mw->free)
			UMR_FAIL("bind of key 0x%x: out of memory", key);
	}
	return 0;
#undef UMR_FAIL
}
