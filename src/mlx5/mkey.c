/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv indirect mkeys (mlx5dv_create_mkey): a free, UMR-enabled KLM mkey
 * with room for max_entries translation entries (rounded up to 4), created
 * with CREATE_MKEY as rdma-core does through DevX. Its layout, rights and
 * validity are then set by UMR WQEs on a send queue (mlx5dv_wr_mr_list,
 * mlx5dv_wr_mr_interleaved, mlx5dv_wr_mkey_configure: qp_post.c) and
 * cleared by LOCAL_INV or a remote send-with-invalidate.
 * A BLOCK_SIGNATURE mkey also gets a BSF (mkc.bsf_en, 4 octowords) and two
 * PSVs (CREATE_PSV), one per signature domain, which the UMR's SET_PSV WQEs
 * load; the device reports signature errors with CQEs the CQ poller files
 * here (mlx5_mkey_sig_error()) for mlx5dv_mkey_check().
 * A CRYPTO mkey (crypto_en, AES-XTS) gets a crypto BSF from the UMR of
 * mlx5dv_wr_set_mkey_crypto (after the signature BSF when both); the device
 * refuses to move data through it before that. UPDATE_TAG is EOPNOTSUPP
 * (the capability is not advertised).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

bool mlx5_sig_supported(const struct mlx5_context *ctx)
{
	return DEVX_GET(cmd_hca_cap, ctx->caps.gen, sho) &&
	       DEVX_GET(cmd_hca_cap, ctx->caps.gen, sigerr_domain_and_sig_type);
}

static int mkey_psv_create(struct mlx5_context *ctx, uint32_t pdn, uint32_t *index)
{
	uint32_t in[DEVX_ST_SZ_DW(create_psv_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_psv_out)] = {};
	int ret;

	DEVX_SET(create_psv_in, in, opcode, MLX5_CMD_OP_CREATE_PSV);
	DEVX_SET(create_psv_in, in, num_psv, 1);
	DEVX_SET(create_psv_in, in, pd, pdn);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (!ret)
		*index = DEVX_GET(create_psv_out, out, psv0_index);
	return ret;
}

static int mkey_psv_destroy(struct mlx5_context *ctx, uint32_t index)
{
	uint32_t in[DEVX_ST_SZ_DW(destroy_psv_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(destroy_psv_in, in, opcode, MLX5_CMD_OP_DESTROY_PSV);
	DEVX_SET(destroy_psv_in, in, psvn, index);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

static void mkey_sig_free(struct mlx5_context *ctx, struct mlx5_mkey_sig *sig)
{
	if (!sig)
		return;
	if (sig->mem_psv)
		mkey_psv_destroy(ctx, sig->mem_psv);
	if (sig->wire_psv)
		mkey_psv_destroy(ctx, sig->wire_psv);
	pthread_mutex_destroy(&sig->lock);
	free(sig);
}

static struct mlx5_mkey_sig *mkey_sig_alloc(struct mlx5_context *ctx, uint32_t pdn)
{
	struct mlx5_mkey_sig *sig = calloc(1, sizeof(*sig));
	int ret;

	if (!sig) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&sig->lock, NULL);
	ret = mkey_psv_create(ctx, pdn, &sig->mem_psv);
	if (!ret)
		ret = mkey_psv_create(ctx, pdn, &sig->wire_psv);
	if (ret) {
		mkey_sig_free(ctx, sig);
		errno = ret;
		return NULL;
	}
	return sig;
}

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
	if (!a->create_flags || (a->create_flags & ~known)) {
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
	if (a->create_flags & MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE) {
		if (!mlx5_sig_supported(ctx)) {
			free(mk);
			errno = EOPNOTSUPP;
			return NULL;
		}
		mk->sig = mkey_sig_alloc(ctx, pd->pdn);
		if (!mk->sig) {
			free(mk);
			return NULL;
		}
		DEVX_SET(mkc, mkc, bsf_en, 1);
		DEVX_SET(mkc, mkc, bsf_octword_size, sizeof(struct smx_bsf) / 16);
	}
	if (a->create_flags & MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO) {
		if (!(ctx->crypto_caps.crypto_engines &
		      (MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_SINGLE_BLOCK |
		       MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_MULTI_BLOCK))) {
			mkey_sig_free(ctx, mk->sig);
			free(mk);
			errno = EOPNOTSUPP;
			return NULL;
		}
		mk->crypto = calloc(1, sizeof(*mk->crypto));
		if (!mk->crypto) {
			mkey_sig_free(ctx, mk->sig);
			free(mk);
			errno = ENOMEM;
			return NULL;
		}
		DEVX_SET(mkc, mkc, crypto_en, 1);
		DEVX_SET(mkc, mkc, bsf_en, 1);
		DEVX_SET(mkc, mkc, bsf_octword_size,
			 (mk->sig ? 2 : 1) * sizeof(struct smx_crypto_bsf) / 16);
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
		mkey_sig_free(ctx, mk->sig);
		free(mk->crypto);
		free(mk);
		errno = ret;
		return NULL;
	}
	a->max_entries = (uint16_t)num_desc;
	mk->ctx = ctx;
	mk->num_desc = num_desc;
	mk->dv.lkey = DEVX_GET(create_mkey_out, out, mkey_index) << 8;
	mk->dv.rkey = mk->dv.lkey;
	if (mk->sig &&
	    mlx5_table_insert(&to_mdev(ctx->ibv_ctx.context.device)->mkeys,
			      mk->dv.lkey >> 8, mk)) {
		mlx5_mkey_destroy(ctx, mk->dv.lkey);
		mkey_sig_free(ctx, mk->sig);
		free(mk->crypto);
		free(mk);
		errno = ENOMEM;
		return NULL;
	}
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
	if (ret)
		return ret;
	if (mk->sig) {
		mlx5_table_remove(&to_mdev(mk->ctx->ibv_ctx.context.device)->mkeys,
				  dv->lkey >> 8);
		mkey_sig_free(mk->ctx, mk->sig);
	}
	free(mk->crypto);
	free(mk);
	return 0;
}

/* A signature error CQE (opcode 12) named this mkey index: the first error
 * is kept for mlx5dv_mkey_check(); every one is counted for the device. */
int mlx5_mkey_sig_error(struct mlx5_device *mdev, const struct smx_sigerr_cqe *c)
{
	struct mlx5_mkey *mk = mlx5_table_find(&mdev->mkeys, be32toh(c->mkey) >> 8);
	struct mlx5_mkey_sig *sig;

	if (!mk || !mk->sig)
		return EIO;
	sig = mk->sig;
	pthread_mutex_lock(&sig->lock);
	if (!sig->err_exists) {
		sig->err_exists = true;
		sig->err_syndrome = be16toh(c->syndrome);
		sig->err_expected = (uint64_t)be32toh(c->expected_trans_sig) << 32 |
				    be32toh(c->expected_ref_tag);
		sig->err_actual = (uint64_t)be32toh(c->actual_trans_sig) << 32 |
				  be32toh(c->actual_ref_tag);
		sig->err_offset = be64toh(c->sig_err_offset);
		sig->err_sig_type = c->sig_type & 7;
		sig->err_domain = c->domain & 7;
	}
	sig->err_count++;
	sig->err_count_updated = true;
	pthread_mutex_unlock(&sig->lock);
	smx_dbg("mkey 0x%x: signature error reported (syndrome 0x%x, %s domain, "
		"offset 0x%llx)", mk->dv.lkey, be16toh(c->syndrome),
		(c->domain & 7) == SMX_SIGERR_DOMAIN_MEMORY ? "memory" : "wire",
		(unsigned long long)be64toh(c->sig_err_offset));
	return 0;
}

SMX_EXPORT int _mlx5dv_mkey_check(struct mlx5dv_mkey *dv, struct mlx5dv_mkey_err *info,
				  size_t info_size)
{
	struct mlx5_mkey_sig *sig;
	struct mlx5_sig_dom *d;
	struct mlx5_mkey *mk;
	int ret = 0;

	if (!dv || !info || info_size < sizeof(*info))
		return EINVAL;
	mk = SMX_CONTAINER_OF(dv, struct mlx5_mkey, dv);
	sig = mk->sig;
	if (!sig)
		return EINVAL;
	memset(info, 0, sizeof(*info));
	pthread_mutex_lock(&sig->lock);
	if (!sig->err_exists) {
		info->err_type = MLX5DV_MKEY_NO_ERR;
		goto out;
	}
	d = sig->err_domain == SMX_SIGERR_DOMAIN_MEMORY ? &sig->mem :
	    sig->err_domain == SMX_SIGERR_DOMAIN_WIRE ? &sig->wire : NULL;
	if (!(sig->err_syndrome & (SMX_SIGERR_SYND_GUARD | SMX_SIGERR_SYND_APPTAG |
				   SMX_SIGERR_SYND_REFTAG)) ||
	    sig->err_sig_type != SMX_SIGERR_SIG_TYPE_BLOCK || !d ||
	    d->type == MLX5_SIG_NONE) {
		smx_dbg("mkey 0x%x: undecodable signature error (syndrome 0x%x, "
			"type %u, domain %u)", dv->lkey, sig->err_syndrome,
			sig->err_sig_type, sig->err_domain);
		ret = EINVAL;
		goto out;
	}
	info->err.sig.offset = sig->err_offset;
	if (sig->err_syndrome & SMX_SIGERR_SYND_REFTAG) {
		info->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG;
		info->err.sig.expected_value = sig->err_expected & 0xffffffff;
		info->err.sig.actual_value = sig->err_actual & 0xffffffff;
	} else if (sig->err_syndrome & SMX_SIGERR_SYND_APPTAG) {
		info->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG;
		info->err.sig.expected_value = (sig->err_expected >> 32) & 0xffff;
		info->err.sig.actual_value = (sig->err_actual >> 32) & 0xffff;
	} else {
		info->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD;
		if (d->type == MLX5_SIG_T10DIF) {
			info->err.sig.expected_value = sig->err_expected >> 48;
			info->err.sig.actual_value = sig->err_actual >> 48;
		} else if (d->crc.type == MLX5DV_SIG_CRC_TYPE_CRC64_XP10) {
			info->err.sig.expected_value = sig->err_expected;
			info->err.sig.actual_value = sig->err_actual;
		} else {
			info->err.sig.expected_value = sig->err_expected >> 32;
			info->err.sig.actual_value = sig->err_actual >> 32;
		}
	}
	sig->err_exists = false;
out:
	pthread_mutex_unlock(&sig->lock);
	return ret;
}
