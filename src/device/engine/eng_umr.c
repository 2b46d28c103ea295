/* SPDX-License-Identifier: MIT */
/*
 * UMR WQEs on a send queue: binding and invalidating memory windows,
 * configuring indirect mkeys (KLM lists, repeat blocks) and LOCAL_INV.
 * Layout (PRM / <infiniband/mlx5dv.h>): control segment, UMR
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

/*
 * A UMR from the kernel's REG_UMR QP re-registers a memory region in place
 * (the key stays): PD (flags_pd), start/len, rights, and an inline MTT list
 * of klm_octowords * 2 entries at the mkey context's log_page_size.
 */
static uint8_t umr_update_mr(struct eng *e, struct fw_mkey *mk,
			     const struct mlx5_wqe_umr_ctrl_seg *uc,
			     const struct mlx5_wqe_mkey_context_seg *mc,
			     const uint8_t *wqe, uint32_t len, char *why, size_t whylen)
{
	uint64_t mask = be64toh(uc->mkey_mask);
	uint32_t octw = be16toh(uc->klm_octowords);
	struct fw_mkey_update u = { 0 };
	uint64_t mtt[ENG_MAX_WQE_BYTES / 8];
	uint32_t i;

	if (mask & ((1ull << 7) /* PD */)) {
		u.pd = fw_pd_lookup(e->fw, be32toh(mc->flags_pd) & 0xffffff);
		if (!u.pd) {
			snprintf(why, whylen, "UMR on key 0x%x: pd 0x%x does not exist",
				 mk->obj.id << 8 | mk->variant,
				 be32toh(mc->flags_pd) & 0xffffff);
			return MLX5_CQE_SYNDROME_MW_BIND_ERR;
		}
	}
	if (mask & (MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR | MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN)) {
		u.set_range = true;
		u.start = be64toh(mc->start_addr);
		u.len = be64toh(mc->len);
	}
	if (mask & (MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
		    MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
		    MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
		    MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC)) {
		u.set_access = true;
		u.access = umr_access(mc->access_flags);
	}
	if (octw) {
		if (!(uc->flags & MLX5_WQE_UMR_CTRL_FLAG_INLINE) ||
		    UMR_KLM_OFF + octw * 16u > len || octw * 2u > sizeof(mtt) / 8) {
			snprintf(why, whylen, "UMR on key 0x%x: %u octowords of MTT do "
				 "not fit the %u-byte WQE", mk->obj.id << 8 | mk->variant,
				 octw, len);
			return MLX5_CQE_SYNDROME_MW_BIND_ERR;
		}
		for (i = 0; i < octw * 2u; i++)
			mtt[i] = be64toh(((const uint64_t *)(wqe + UMR_KLM_OFF))[i]);
		u.nmtt = be32toh(mc->translations_octword_size) * 2;
		if (!u.nmtt || u.nmtt > octw * 2u)
			u.nmtt = octw * 2u;
		/* trailing padding entries of an odd list are zero */
		while (u.nmtt > 1 && !mtt[u.nmtt - 1])
			u.nmtt--;
		u.mtt = mtt;
		u.page_shift = mc->log_page_size;
	}
	if (fw_mkey_update(mk, &u, why, whylen))
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	return 0;
}

/*
 * A user UMR configuring an indirect KLM mkey (mlx5dv_wr_mkey_configure and
 * its setters, mlx5dv_wr_mr_list/_interleaved): no start address (the key is
 * zero-based), optional rights, variant and free state, and an optional
 * inline layout of klm_octowords: either a KLM list (trailing all-zero
 * entries are padding) or a repeat block -- a 16-byte header {byte_count,
 * op 0x400, repeat_count, num_ent} followed by num_ent entries {stride,
 * byte_count, mkey, va}, which takes one translation entry of the mkey
 * itself. The inner keys are checked at access time (eng_mkey.c).
 */
#define UMR_REPEAT_BLOCK_OP 0x400

static uint8_t umr_mkey_config(struct eng *e, struct fw_mkey *mk,
			       const struct mlx5_wqe_umr_ctrl_seg *uc,
			       const struct mlx5_wqe_mkey_context_seg *mc,
			       const uint8_t *wqe, uint32_t len, char *why, size_t whylen)
{
	uint64_t mask = be64toh(uc->mkey_mask);
	uint32_t key = mk->obj.id << 8 | mk->variant;
	uint32_t octw = be16toh(uc->klm_octowords), n, i;
	const uint8_t *x = wqe + UMR_KLM_OFF;
	struct fw_mkey_conf c = { 0 };

#define CONF_FAIL(...) do { snprintf(why, whylen, __VA_ARGS__); \
		return MLX5_CQE_SYNDROME_MW_BIND_ERR; } while (0)

	uint32_t bsf_octw = be16toh(uc->bsf_octowords);
	bool bsf_set = mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE;
	bool bsf_on = bsf_set && (be32toh(mc->flags_pd) & SMX_MKC_SEG_FLAGS_BSF_ENABLE);
	struct fw_mkey_crypto cry;
	struct fw_sig sig;

	if (bsf_octw && !bsf_on)
		CONF_FAIL("UMR on key 0x%x: %u BSF octowords without enabling "
			  "the BSF (mkey mask bit 12, mkey context bit 30)", key,
			  bsf_octw);
	if (bsf_on && !bsf_octw)
		CONF_FAIL("UMR on key 0x%x: BSF enabled, but none follows the "
			  "layout", key);
	if (mk->access_mode != MLX5_MKC_ACCESS_MODE_KLMS || mk->bound)
		CONF_FAIL("UMR on key 0x%x: not an indirect (KLM) mkey", key);
	if (octw) {
		uint64_t total = 0;
		bool rb;

		if (!(uc->flags & MLX5_WQE_UMR_CTRL_FLAG_INLINE))
			CONF_FAIL("UMR on key 0x%x: the layout is not inline", key);
		if (UMR_KLM_OFF + octw * 16u > len)
			CONF_FAIL("UMR on key 0x%x: %u octowords of layout do not fit "
				  "the %u-byte WQE", key, octw, len);
		rb = be32toh(((const struct mlx5_wqe_umr_repeat_block_seg *)x)->op) ==
		     UMR_REPEAT_BLOCK_OP;
		if (rb) {
			const struct mlx5_wqe_umr_repeat_block_seg *h = (const void *)x;
			uint32_t rep = be32toh(h->repeat_count);
			uint64_t bc = be32toh(h->byte_count), sum = 0;

			n = be16toh(h->num_ent);
			if (!n || n + 1 > octw)
				CONF_FAIL("UMR on key 0x%x: repeat block of %u entries "
					  "in %u octowords", key, n, octw);
			if (n + 1 > mk->max_klm)
				CONF_FAIL("UMR on key 0x%x: %u interleaved entries and "
					  "the repeat header need %u entries, the mkey "
					  "has %u", key, n, n + 1, mk->max_klm);
			if (!rep)
				CONF_FAIL("UMR on key 0x%x: repeat count 0", key);
			for (i = 0; i < n; i++) {
				const struct mlx5_wqe_umr_repeat_ent_seg *en = &h->entries[i];

				if (!en->byte_count ||
				    be16toh(en->stride) < be16toh(en->byte_count))
					CONF_FAIL("UMR on key 0x%x: interleaved entry %u: "
						  "%u bytes every %u", key, i,
						  be16toh(en->byte_count),
						  be16toh(en->stride));
				sum += be16toh(en->byte_count);
			}
			if (sum != bc)
				CONF_FAIL("UMR on key 0x%x: repeat block of 0x%llx bytes, "
					  "its entries 0x%llx", key,
					  (unsigned long long)bc,
					  (unsigned long long)sum);
			total = bc * rep;
		} else {
			static const uint8_t zero[16];

			n = octw;
			while (n && !memcmp(x + (n - 1) * 16u, zero, 16))
				n--;
			if (!n)
				CONF_FAIL("UMR on key 0x%x: an empty KLM list", key);
			if (n > mk->max_klm)
				CONF_FAIL("UMR on key 0x%x: %u KLM entries, the mkey "
					  "has %u", key, n, mk->max_klm);
			for (i = 0; i < n; i++) {
				const struct mlx5_wqe_umr_klm_seg *k =
					(const void *)(x + i * 16u);

				if (!k->byte_count)
					CONF_FAIL("UMR on key 0x%x: KLM %u of 0 bytes "
						  "(2 GiB) is not supported", key, i);
				total += be32toh(k->byte_count);
			}
		}
		if ((mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN) && be64toh(mc->len) != total)
			CONF_FAIL("UMR on key 0x%x: mkey length 0x%llx, its layout "
				  "0x%llx", key, (unsigned long long)be64toh(mc->len),
				  (unsigned long long)total);
		c.klm = x;
		c.nklm = n;
		c.rblock = rb;
		c.set_len = true;
		c.len = total;
	} else if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN) {
		c.set_len = true;
		c.len = be64toh(mc->len);
	}
	if (mask & (MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
		    MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
		    MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
		    MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC)) {
		c.set_access = true;
		c.access = umr_access(mc->access_flags);
	}
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY) {
		c.set_variant = true;
		c.variant = (uint8_t)(be32toh(mc->qpn_mkey) & 0xff);
	}
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE) {
		c.set_free = true;
		c.free = !!(mc->free & MLX5_WQE_MKEY_CONTEXT_FREE);
	}
	memset(&sig, 0, sizeof(sig));
	memset(&cry, 0, sizeof(cry));
	if (bsf_on) {
		uint32_t at = UMR_KLM_OFF + octw * 16u;
		uint8_t rc;

		if (at + bsf_octw * 16u > len)
			CONF_FAIL("UMR on key 0x%x: a %u-octoword BSF after %u "
				  "octowords of layout does not fit the %u-byte "
				  "WQE", key, bsf_octw, octw, len);
		rc = eng_sig_bsf(e, mk, wqe + at, bsf_octw * 16u,
				 c.set_len ? c.len : mk->len, &sig, &cry, why, whylen);
		if (rc)
			return rc;
	}
	if (fw_mkey_configure(mk, &c, why, whylen))
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	if (bsf_set) {
		fw_mkey_set_sig(mk, sig.en ? &sig : NULL);
		mk->crypto = cry;
	}
	/* The driver acknowledges signature errors it has seen. */
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR)
		mk->sig.err_cnt = (be32toh(mc->flags_pd) >> SMX_MKC_SEG_SIG_ERR_CNT_SHIFT) & 1;
	return 0;
#undef CONF_FAIL
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
	if (qp->st == MLX5_QPC_ST_REG_UMR)
		return umr_update_mr(e, mw, uc, mc, wqe, len, why, whylen);
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

	/* No start address: a (zero-based) indirect mkey's configuration. */
	if (!(mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR))
		return umr_mkey_config(e, mw, uc, mc, wqe, len, why, whylen);

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
