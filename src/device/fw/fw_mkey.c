/* SPDX-License-Identifier: MIT */
/*
 * Memory keys. mkey = index << 8 | mkey_7_0 (the "variant" byte the creator
 * chooses). Access modes PA, MTT, KLM, KSM and MEMIC; the translation entries
 * are stored for the engine (MTT: page addresses; KLM/KSM: the 16-byte
 * entries as given, resolved at access time like the hardware does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

void fw_mkey_free(struct fw_mkey *mk)
{
	if (mk->sig.mem.psv)
		fw_unref(&mk->sig.mem.psv->obj);
	if (mk->sig.wire.psv)
		fw_unref(&mk->sig.wire.psv->obj);
	if (mk->bound)
		fw_unref(&mk->bound->obj);
	if (mk->umem)
		fw_unref(&mk->umem->obj);
	free(mk->mtt);
	free(mk->klm);
	free(mk);
}

static int fw_mkey_mtt(struct fw_cmd *c, struct fw_mkey *mk, uint32_t octw)
{
	size_t off = DEVX_BYTE_OFF(create_mkey_in, klm_pas_mtt);
	uint64_t psz = 1ull << mk->page_shift;
	uint64_t need, i;

	if (mk->page_shift < 12 || mk->page_shift > 30)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "MTT mkey: log_page_size %u outside 12..30",
			       mk->page_shift);
	if (IN_GET(create_mkey_in, mkey_umem_valid)) {
		uint64_t uoff = IN_GET64(create_mkey_in, mkey_umem_offset);
		struct fw_umem *u = FW_REF(c, umem,
					   IN_GET(create_mkey_in, mkey_umem_id),
					   "mkey umem");

		if (!u)
			return -1;
		if (!mk->len64 && (uoff > u->buf.size ||
				   mk->len > u->buf.size - uoff))
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "mkey: [0x%llx, +0x%llx) exceeds umem 0x%x",
				       (unsigned long long)uoff,
				       (unsigned long long)mk->len, u->obj.id);
		mk->umem = u;
		mk->umem_offset = uoff;
		fw_ref(&u->obj);
		return 0;
	}
	/* Enough entries to cover [start, start + len). */
	need = mk->len64 ? 0 :
	       ((mk->start & (psz - 1)) + mk->len + psz - 1) >> mk->page_shift;
	if (!mk->free && need > (uint64_t)octw * 2)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "MTT mkey of 0x%llx bytes needs %llu entries, "
			       "%u given", (unsigned long long)mk->len,
			       (unsigned long long)need, octw * 2);
	mk->nmtt = octw * 2;
	if (!mk->nmtt)
		return 0;
	mk->mtt = calloc(mk->nmtt, sizeof(uint64_t));
	if (!mk->mtt)
		return FW_FAIL(c, NO_RES_ERR, "mkey: out of memory");
	for (i = 0; i < mk->nmtt; i++) {
		const uint8_t *m = (const uint8_t *)c->in + off + i * 8;
		uint64_t pa = (uint64_t)DEVX_GET(mtt, m, ptag_63_32) << 32 |
			      (uint64_t)DEVX_GET(mtt, m, ptag_31_8) << 8;

		if (i < need && (!pa || (pa & (psz - 1))))
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "MTT[%llu] = 0x%llx is not a %llu-byte page",
				       (unsigned long long)i,
				       (unsigned long long)pa,
				       (unsigned long long)psz);
		mk->mtt[i] = pa;
	}
	return 0;
}

int fw_mkey_create(struct fw_cmd *c)
{
	const uint8_t *mkc = IN_ADDR(create_mkey_in, memory_key_mkey_entry);
	uint32_t mode = DEVX_GET(mkc, mkc, access_mode_4_2) << 2 |
			DEVX_GET(mkc, mkc, access_mode_1_0);
	uint32_t octw = DEVX_GET(mkc, mkc, translations_octword_size);
	uint32_t actual = IN_GET(create_mkey_in, translations_octword_actual_size);
	size_t xlt_off = DEVX_BYTE_OFF(create_mkey_in, klm_pas_mtt);
	struct fw_mkey *mk;

	if (DEVX_GET(mkc, mkc, qpn) != 0xffffff)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "mkc.qpn 0x%x: must be 0xffffff (no QP binding)",
			       DEVX_GET(mkc, mkc, qpn));
	/* A crypto mkey: a BSF-capable indirect mkey whose crypto BSF a UMR
	 * provides; crypto_en 1 is AES-XTS, the only engine offered. */
	if (DEVX_GET(mkc, mkc, crypto_en) &&
	    (DEVX_GET(mkc, mkc, crypto_en) != 1 || !DEVX_GET(mkc, mkc, bsf_en) ||
	     c->fw->cfg.crypto_mode == SMX_CRYPTO_OFF))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "crypto_en %u%s: a crypto mkey is crypto_en 1 with "
			       "bsf_en, on a device whose crypto is on",
			       DEVX_GET(mkc, mkc, crypto_en),
			       DEVX_GET(mkc, mkc, bsf_en) ? "" : " without bsf_en");
	/* A signature mkey: an indirect (KLM) mkey a UMR gives a BSF. */
	if (DEVX_GET(mkc, mkc, bsf_en) &&
	    (mode != MLX5_MKC_ACCESS_MODE_KLMS || !DEVX_GET(mkc, mkc, umr_en) ||
	     DEVX_GET(mkc, mkc, bsf_octword_size) < sizeof(struct smx_bsf) / 16))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "bsf_en on a %s mkey%s with bsf_octword_size %u: "
			       "a signature mkey is a UMR-enabled KLM mkey with "
			       "room for a %zu-octoword BSF",
			       mode == MLX5_MKC_ACCESS_MODE_KLMS ? "KLM" : "non-KLM",
			       DEVX_GET(mkc, mkc, umr_en) ? "" : " without umr_en",
			       DEVX_GET(mkc, mkc, bsf_octword_size),
			       sizeof(struct smx_bsf) / 16);
	if (actual > octw)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "translations_octword_actual_size %u above "
			       "translations_octword_size %u", actual, octw);
	if ((c->inlen - xlt_off) / 16 < actual)
		return FW_FAIL(c, BAD_INP_LEN_ERR,
			       "%u translation octwords, the input mailbox "
			       "holds %zu", actual, (c->inlen - xlt_off) / 16);

	mk = calloc(1, sizeof(*mk));
	if (!mk)
		return FW_FAIL(c, NO_RES_ERR, "mkey: out of memory");
	mk->access_mode = mode;
	mk->free = DEVX_GET(mkc, mkc, free);
	mk->umr_en = DEVX_GET(mkc, mkc, umr_en);
	mk->access = DEVX_GET(mkc, mkc, lr) | DEVX_GET(mkc, mkc, lw) << 1 |
		     DEVX_GET(mkc, mkc, rr) << 2 | DEVX_GET(mkc, mkc, rw) << 3 |
		     DEVX_GET(mkc, mkc, a) << 4;
	mk->start = DEVX_GET64(mkc, mkc, start_addr);
	mk->len = DEVX_GET64(mkc, mkc, len);
	mk->len64 = DEVX_GET(mkc, mkc, length64);
	mk->page_shift = DEVX_GET(mkc, mkc, log_page_size);
	mk->variant = DEVX_GET(mkc, mkc, mkey_7_0);
	mk->max_klm = octw;
	mk->fw = c->fw;
	mk->bsf_cap = DEVX_GET(mkc, mkc, bsf_en);
	mk->crypto_cap = DEVX_GET(mkc, mkc, crypto_en) == 1;
	mk->pd = FW_REF(c, pd, DEVX_GET(mkc, mkc, pd), "mkey pd");
	if (!mk->pd)
		goto err;
	if ((mk->access & 0x18) && !(mk->access & 0x2)) {
		FW_FAIL(c, BAD_PARAM_ERR,
			"remote write/atomic access without local write");
		goto err;
	}

	switch (mode) {
	case MLX5_MKC_ACCESS_MODE_PA:
		if (c->uid) {
			FW_FAIL(c, BAD_PARAM_ERR,
				"PA mkeys are for the privileged function, "
				"uid %u", c->uid);
			goto err;
		}
		break;
	case MLX5_MKC_ACCESS_MODE_MTT:
		if (fw_mkey_mtt(c, mk, actual))
			goto err;
		break;
	case MLX5_MKC_ACCESS_MODE_KLMS:
	case MLX5_MKC_ACCESS_MODE_KSM:
		if (!mk->free && !actual) {
			FW_FAIL(c, BAD_PARAM_ERR,
				"%s mkey without translation entries",
				mode == MLX5_MKC_ACCESS_MODE_KSM ? "KSM" : "KLM");
			goto err;
		}
		/* UCX's atomic and indirect keys use 2 GiB entities. */
		if (mode == MLX5_MKC_ACCESS_MODE_KSM &&
		    (mk->page_shift < 12 || mk->page_shift > 31)) {
			FW_FAIL(c, BAD_PARAM_ERR,
				"KSM entity size 2^%u outside 2^12..2^31",
				mk->page_shift);
			goto err;
		}
		mk->nklm = actual;
		if (actual) {
			mk->klm = malloc((size_t)actual * 16);
			if (!mk->klm) {
				FW_FAIL(c, NO_RES_ERR, "mkey: out of memory");
				goto err;
			}
			memcpy(mk->klm, (const uint8_t *)c->in + xlt_off,
			       (size_t)actual * 16);
		}
		break;
	case MLX5_MKC_ACCESS_MODE_MEMIC:
		mk->memic = fw_memic_host(c->fw, mk->start, mk->len);
		if (!mk->memic || mk->len64) {
			FW_FAIL(c, BAD_PARAM_ERR,
				"MEMIC mkey [0x%llx, +0x%llx) is not device memory",
				(unsigned long long)mk->start,
				(unsigned long long)mk->len);
			goto err;
		}
		break;
	default:
		FW_FAIL(c, BAD_PARAM_ERR, "access mode %u is not supported",
			mode);
		goto err;
	}
	if (fw_table_add(&c->fw->mkey, &mk->obj)) {
		FW_FAIL(c, NO_RES_ERR, "mkey: all %u indexes are in use",
			c->fw->mkey.limit);
		goto err;
	}
	if (fw_obj_own(c, &mk->obj, "mkey")) {
		fw_table_del(&c->fw->mkey, mk->obj.id);
		goto err;
	}
	fw_ref(&mk->pd->obj);
	memcpy(mk->ctx, mkc, sizeof(mk->ctx));
	OUT_SET(create_mkey_out, mkey_index, mk->obj.id);
	return 0;
err:
	mk->pd = NULL;
	fw_mkey_free(mk);
	return -1;
}

void fw_mkey_invalidate(struct fw_mkey *mk, bool set_variant, uint8_t variant)
{
	if (mk->bound) {
		fw_unref(&mk->bound->obj);
		mk->bound = NULL;
	}
	mk->free = true;
	DEVX_SET(mkc, mk->ctx, free, 1);
	if (set_variant) {
		mk->variant = variant;
		DEVX_SET(mkc, mk->ctx, mkey_7_0, variant);
	}
}

void fw_mkey_bind(struct fw_mkey *mw, const struct fw_mkey_bind *b)
{
	fw_mkey_invalidate(mw, true, b->variant);
	if (!mw->klm) {
		mw->klm = calloc(1, 16);
		if (!mw->klm)
			return;	/* stays free: the bind is not applied */
	}
	/* KLM entry: byte_count, mkey, address (PRM bytes). */
	DEVX_SET(klm, mw->klm, byte_count, (uint32_t)b->len);
	DEVX_SET(klm, mw->klm, mkey, b->mr->obj.id << 8 | b->mr->variant);
	DEVX_SET64(klm, mw->klm, address, b->mr_addr);
	mw->nklm = 1;
	mw->rblock = false;
	mw->bound = b->mr;
	fw_ref(&b->mr->obj);
	mw->start = b->start;
	mw->len = b->len;
	mw->len64 = false;
	mw->access = b->access | 1;	/* local read is implied */
	mw->free = false;
	DEVX_SET(mkc, mw->ctx, free, 0);
	DEVX_SET(mkc, mw->ctx, qpn, b->qpn);
	DEVX_SET64(mkc, mw->ctx, start_addr, b->start);
	DEVX_SET64(mkc, mw->ctx, len, b->len);
	DEVX_SET(mkc, mw->ctx, lw, !!(b->access & 2));
	DEVX_SET(mkc, mw->ctx, rr, !!(b->access & 4));
	DEVX_SET(mkc, mw->ctx, rw, !!(b->access & 8));
	DEVX_SET(mkc, mw->ctx, a, !!(b->access & 16));
}

int fw_mkey_configure(struct fw_mkey *mk, const struct fw_mkey_conf *c, char *why,
		      size_t whylen)
{
	uint8_t *klm = NULL;
	size_t bytes = 0;

	if (mk->access_mode != MLX5_MKC_ACCESS_MODE_KLMS || mk->bound) {
		snprintf(why, whylen, "mkey 0x%x is not an indirect (KLM) mkey",
			 mk->obj.id << 8 | mk->variant);
		return -1;
	}
	if (c->klm) {
		bytes = ((size_t)c->nklm + (c->rblock ? 1 : 0)) * 16;
		klm = malloc(bytes);
		if (!klm) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		memcpy(klm, c->klm, bytes);
		free(mk->klm);
		mk->klm = klm;
		mk->nklm = c->nklm;
		mk->rblock = c->rblock;
		DEVX_SET(mkc, mk->ctx, translations_octword_size, mk->max_klm);
	}
	if (c->set_len) {
		mk->len = c->len;
		mk->len64 = false;
		DEVX_SET64(mkc, mk->ctx, len, c->len);
	}
	if (c->set_access) {
		mk->access = c->access | 1;	/* local read is implied */
		DEVX_SET(mkc, mk->ctx, lw, !!(c->access & 2));
		DEVX_SET(mkc, mk->ctx, rr, !!(c->access & 4));
		DEVX_SET(mkc, mk->ctx, rw, !!(c->access & 8));
		DEVX_SET(mkc, mk->ctx, a, !!(c->access & 16));
	}
	if (c->set_variant) {
		mk->variant = c->variant;
		DEVX_SET(mkc, mk->ctx, mkey_7_0, c->variant);
	}
	if (c->set_free) {
		mk->free = c->free;
		DEVX_SET(mkc, mk->ctx, free, c->free);
	}
	return 0;
}

int fw_mkey_update(struct fw_mkey *mk, const struct fw_mkey_update *u, char *why,
		   size_t whylen)
{
	uint64_t *mtt = NULL;
	uint32_t i;

	if (mk->access_mode != MLX5_MKC_ACCESS_MODE_MTT || mk->umem || mk->free) {
		snprintf(why, whylen, "mkey 0x%x is not a live MTT key", mk->obj.id);
		return -1;
	}
	if (u->mtt) {
		if (!u->nmtt || u->page_shift < 12 || u->page_shift > 30) {
			snprintf(why, whylen, "mkey 0x%x: %u MTT entries of 2^%u bytes",
				 mk->obj.id, u->nmtt, u->page_shift);
			return -1;
		}
		mtt = malloc((size_t)u->nmtt * sizeof(*mtt));
		if (!mtt) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		for (i = 0; i < u->nmtt; i++) {
			mtt[i] = u->mtt[i] & ~7ull;	/* low bits: rd/wr enable */
			if (!mtt[i] || (mtt[i] & ((1ull << u->page_shift) - 1))) {
				snprintf(why, whylen, "MTT[%u] = 0x%llx is not a page", i,
					 (unsigned long long)mtt[i]);
				free(mtt);
				return -1;
			}
		}
		free(mk->mtt);
		mk->mtt = mtt;
		mk->nmtt = u->nmtt;
		mk->page_shift = u->page_shift;
		DEVX_SET(mkc, mk->ctx, log_page_size, u->page_shift);
		DEVX_SET(mkc, mk->ctx, translations_octword_size, (u->nmtt + 1) / 2);
	}
	if (u->pd && u->pd != mk->pd) {
		fw_ref(&u->pd->obj);
		fw_unref(&mk->pd->obj);
		mk->pd = u->pd;
		DEVX_SET(mkc, mk->ctx, pd, u->pd->obj.id);
	}
	if (u->set_range) {
		mk->start = u->start;
		mk->len = u->len;
		mk->len64 = false;
		DEVX_SET64(mkc, mk->ctx, start_addr, u->start);
		DEVX_SET64(mkc, mk->ctx, len, u->len);
	}
	if (u->set_access) {
		mk->access = u->access | 1;
		DEVX_SET(mkc, mk->ctx, lw, !!(u->access & 2));
		DEVX_SET(mkc, mk->ctx, rr, !!(u->access & 4));
		DEVX_SET(mkc, mk->ctx, rw, !!(u->access & 8));
		DEVX_SET(mkc, mk->ctx, a, !!(u->access & 16));
	}
	return 0;
}

int fw_mkey_destroy(struct fw_cmd *c)
{
	uint32_t idx = IN_GET(destroy_mkey_in, mkey_index);
	struct fw_mkey *mk = FW_GET(c, mkey, idx, "DESTROY_MKEY");

	if (!mk)
		return -1;
	if (mk->obj.refs)
		return FW_FAIL(c, BAD_RES_STATE_ERR,
			       "mkey index 0x%x is still referenced", idx);
	fw_table_del(&c->fw->mkey, idx);
	fw_obj_disown(c->fw, &mk->obj);
	fw_unref(&mk->pd->obj);
	fw_mkey_free(mk);
	return 0;
}

int fw_mkey_query(struct fw_cmd *c)
{
	uint32_t idx = IN_GET(query_mkey_in, mkey_index);
	struct fw_mkey *mk = FW_GET(c, mkey, idx, "QUERY_MKEY");

	if (!mk)
		return -1;
	memcpy(OUT_ADDR(query_mkey_out, memory_key_mkey_entry), mk->ctx,
	       sizeof(mk->ctx));
	return 0;
}

/*
 * A UMR's BSF (or its removal, @s == NULL): the new domains' PSVs are
 * referenced before the old ones are let go.
 */
void fw_mkey_set_sig(struct fw_mkey *mk, const struct fw_sig *s)
{
	struct fw_psv *om = mk->sig.mem.psv, *ow = mk->sig.wire.psv;
	uint8_t cnt = mk->sig.err_cnt;

	if (s) {
		if (s->mem.psv)
			fw_ref(&s->mem.psv->obj);
		if (s->wire.psv)
			fw_ref(&s->wire.psv->obj);
		mk->sig = *s;
	} else {
		memset(&mk->sig, 0, sizeof(mk->sig));
	}
	mk->sig.err_cnt = cnt;
	if (om)
		fw_unref(&om->obj);
	if (ow)
		fw_unref(&ow->obj);
}
