/* SPDX-License-Identifier: MIT */
/*
 * Crypto offload control path: the caps of mlx5dv_query_device(), crypto
 * login sessions (mlx5dv_crypto_login* -- a CRYPTO_LOGIN general object) and
 * data encryption keys (mlx5dv_dek_* -- a DEK general object), with the
 * checks and errno values of rdma-core 44's libmlx5. The device decides what
 * a key field holds: wrapped by its import KEK, or plaintext (man 7
 * softmlx5, crypto_mode).
 *
 * Objects are made under the context's DEVX uid, which is what the device
 * ties a login to: a wrapped DEK needs a valid login of the same uid.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

#define CAP_CRYPTO(ctx, fld) DEVX_GET(crypto_caps, (ctx)->caps.crypto, fld)

/* What rdma-core 44 reports, from the same cap bits. */
void mlx5_crypto_caps_load(struct mlx5_context *ctx)
{
	struct mlx5dv_crypto_caps *cc = &ctx->crypto_caps;
	const uint8_t *gen = ctx->caps.gen;

	memset(cc, 0, sizeof(*cc));
	if (DEVX_GET(cmd_hca_cap, gen, crypto))
		cc->flags |= MLX5DV_CRYPTO_CAPS_CRYPTO;
	if (DEVX_GET(cmd_hca_cap, gen, aes_xts_single_block_le_tweak))
		cc->crypto_engines |= MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_SINGLE_BLOCK;
	if (DEVX_GET(cmd_hca_cap, gen, aes_xts_multi_block_be_tweak))
		cc->crypto_engines |= MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_SINGLE_BLOCK |
				      MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_MULTI_BLOCK;
	if (!(cc->flags & MLX5DV_CRYPTO_CAPS_CRYPTO))
		return;
	ctx->caps.have_crypto = !mlx5_query_hca_cap(ctx->hca, MLX5_CAP_CRYPTO,
						    ctx->caps.crypto,
						    sizeof(ctx->caps.crypto));
	if (!ctx->caps.have_crypto)
		return;
	if (CAP_CRYPTO(ctx, wrapped_crypto_operational))
		cc->flags |= MLX5DV_CRYPTO_CAPS_WRAPPED_CRYPTO_OPERATIONAL;
	if (CAP_CRYPTO(ctx, wrapped_crypto_going_to_commissioning))
		cc->flags |= MLX5DV_CRYPTO_CAPS_WRAPPED_CRYPTO_GOING_TO_COMMISSIONING;
	if (CAP_CRYPTO(ctx, wrapped_import_method) &
	    MLX5_CRYPTO_WRAPPED_IMPORT_METHOD_AES_XTS)
		cc->wrapped_import_method |=
			MLX5DV_CRYPTO_WRAPPED_IMPORT_METHOD_CAP_AES_XTS;
	cc->log_max_num_deks = (uint8_t)CAP_CRYPTO(ctx, log_max_num_deks);
	cc->failed_selftests = (uint16_t)CAP_CRYPTO(ctx, failed_selftests);
}

static bool crypto_obj_supported(struct mlx5_context *ctx, uint16_t type)
{
	return DEVX_GET64(cmd_hca_cap, ctx->caps.gen, general_obj_types) &
	       (1ull << type);
}

static int crypto_destroy(struct mlx5_ucontext *u, uint16_t type, uint32_t id)
{
	uint32_t in[DEVX_ST_SZ_DW(general_obj_in_cmd_hdr)] = {};
	uint32_t out[DEVX_ST_SZ_DW(general_obj_out_cmd_hdr)] = {};

	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type, type);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_id, id);
	return mlx5_cmd_exec_hca(u->hca, u->uid, in, sizeof(in), out,
				 sizeof(out));
}

/* ---- login objects -------------------------------------------------------- */

/* CREATE_GENERAL_OBJECT(CRYPTO_LOGIN); NULL + errno on failure. */
static struct mlx5dv_crypto_login_obj *
login_create(struct ibv_context *context,
	     const struct mlx5dv_crypto_login_attr_ex *a)
{
	uint32_t in[DEVX_ST_SZ_DW(create_crypto_login_obj_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(general_obj_out_cmd_hdr)] = {};
	struct mlx5_context *ctx = to_mctx(context);
	struct mlx5dv_crypto_login_obj *l;
	void *lo = DEVX_ADDR_OF(create_crypto_login_obj_in, in, login_obj);
	int ret;

	if (!(ctx->crypto_caps.flags & MLX5DV_CRYPTO_CAPS_CRYPTO) ||
	    !(ctx->crypto_caps.flags &
	      MLX5DV_CRYPTO_CAPS_WRAPPED_CRYPTO_OPERATIONAL) ||
	    !crypto_obj_supported(ctx, MLX5_OBJ_TYPE_CRYPTO_LOGIN)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* 24-bit device pointers; the wrapped credential fits the field. */
	if ((a->credential_id | a->import_kek_id) & 0xff000000 ||
	    a->credential_len >
		    DEVX_FLD_SZ_BYTES(crypto_login_obj, credential) ||
	    (a->credential_len && !a->credential)) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type,
		 MLX5_OBJ_TYPE_CRYPTO_LOGIN);
	DEVX_SET(crypto_login_obj, lo, credential_pointer, a->credential_id);
	DEVX_SET(crypto_login_obj, lo, session_import_kek_ptr, a->import_kek_id);
	if (a->credential_len)
		memcpy(DEVX_ADDR_OF(crypto_login_obj, lo, credential),
		       a->credential, a->credential_len);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	explicit_bzero(in, sizeof(in));	/* the credential */
	if (ret) {
		free(l);
		errno = ret;
		return NULL;
	}
	l->context = context;
	l->uctx = ctx->uctx;
	l->id = DEVX_GET(general_obj_out_cmd_hdr, out, obj_id);
	mlx5_ucontext_get(l->uctx);
	return l;
}

static int login_query(const struct mlx5dv_crypto_login_obj *l,
		       enum mlx5dv_crypto_login_state *state)
{
	uint32_t in[DEVX_ST_SZ_DW(general_obj_in_cmd_hdr)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_crypto_login_obj_out)] = {};
	int ret;

	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type,
		 MLX5_OBJ_TYPE_CRYPTO_LOGIN);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_id, l->id);
	ret = mlx5_cmd_exec_hca(l->uctx->hca, l->uctx->uid, in, sizeof(in),
				out, sizeof(out));
	if (ret)
		return ret;
	switch (DEVX_GET(query_crypto_login_obj_out, out, obj.state)) {
	case MLX5_CRYPTO_LOGIN_OBJ_STATE_VALID:
		*state = MLX5DV_CRYPTO_LOGIN_STATE_VALID;
		return 0;
	case MLX5_CRYPTO_LOGIN_OBJ_STATE_INVALID:
		*state = MLX5DV_CRYPTO_LOGIN_STATE_INVALID;
		return 0;
	default:
		return EINVAL;
	}
}

static int login_destroy(struct mlx5dv_crypto_login_obj *l)
{
	int ret = crypto_destroy(l->uctx, MLX5_OBJ_TYPE_CRYPTO_LOGIN, l->id);

	if (ret)
		return ret;
	mlx5_ucontext_put(l->uctx);
	free(l);
	return 0;
}

SMX_EXPORT int mlx5dv_crypto_login(struct ibv_context *context,
				   struct mlx5dv_crypto_login_attr *login_attr)
{
	struct mlx5dv_crypto_login_attr_ex ex = { 0 };
	struct mlx5dv_crypto_login_obj *l;
	struct mlx5_context *ctx;
	int ret = 0;

	if (!context || !mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	if (!login_attr || login_attr->comp_mask)
		return EINVAL;
	ctx = to_mctx(context);
	pthread_mutex_lock(&ctx->lock);
	if (ctx->crypto_login) {
		ret = EEXIST;	/* one session per context */
		goto out;
	}
	ex.credential_id = login_attr->credential_id;
	ex.import_kek_id = login_attr->import_kek_id;
	ex.credential = login_attr->credential;
	ex.credential_len = sizeof(login_attr->credential);
	l = login_create(context, &ex);
	if (!l)
		ret = errno;
	else
		ctx->crypto_login = l;
out:
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

SMX_EXPORT int
mlx5dv_crypto_login_query_state(struct ibv_context *context,
				enum mlx5dv_crypto_login_state *state)
{
	struct mlx5_context *ctx;
	int ret = 0;

	if (!context || !mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	if (!state)
		return EINVAL;
	ctx = to_mctx(context);
	pthread_mutex_lock(&ctx->lock);
	if (!ctx->crypto_login)
		*state = MLX5DV_CRYPTO_LOGIN_STATE_NO_LOGIN;
	else
		ret = login_query(ctx->crypto_login, state);
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

SMX_EXPORT int mlx5dv_crypto_logout(struct ibv_context *context)
{
	struct mlx5_context *ctx;
	int ret;

	if (!context || !mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	ctx = to_mctx(context);
	pthread_mutex_lock(&ctx->lock);
	if (!ctx->crypto_login) {
		ret = ENOENT;
	} else {
		ret = login_destroy(ctx->crypto_login);
		if (!ret)
			ctx->crypto_login = NULL;
	}
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

void mlx5_crypto_context_free(struct mlx5_context *ctx)
{
	/* The session ends with its context, as the kernel's uobject
	 * cleanup ends it on close. */
	if (ctx->crypto_login && !login_destroy(ctx->crypto_login))
		ctx->crypto_login = NULL;
}

SMX_EXPORT struct mlx5dv_crypto_login_obj *
mlx5dv_crypto_login_create(struct ibv_context *context,
			   struct mlx5dv_crypto_login_attr_ex *login_attr)
{
	if (!context || !mlx5dv_is_supported(context->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!login_attr || login_attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	return login_create(context, login_attr);
}

SMX_EXPORT int
mlx5dv_crypto_login_query(struct mlx5dv_crypto_login_obj *crypto_login,
			  struct mlx5dv_crypto_login_query_attr *query_attr)
{
	if (!crypto_login || !query_attr || query_attr->comp_mask)
		return EINVAL;
	return login_query(crypto_login, &query_attr->state);
}

SMX_EXPORT int
mlx5dv_crypto_login_destroy(struct mlx5dv_crypto_login_obj *crypto_login)
{
	if (!crypto_login)
		return EINVAL;
	return login_destroy(crypto_login);
}

/* ---- DEKs --------------------------------------------------------------- */

/*
 * Which import the attributes ask for, against what the device does:
 * CRYPTO_LOGIN with an object is a wrapped DEK under that login, with NULL
 * a plaintext DEK; without the mask, a wrapped DEK under the context's
 * mlx5dv_crypto_login() session, which must exist. rdma-core 44's rules.
 */
static int dek_import_check(struct mlx5_context *ctx,
			    const struct mlx5dv_dek_init_attr *a)
{
	bool wrapped_dev = ctx->crypto_caps.wrapped_import_method &
			   MLX5DV_CRYPTO_WRAPPED_IMPORT_METHOD_CAP_AES_XTS;
	int ret = 0;

	if (a->comp_mask & MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN) {
		if (a->crypto_login) {
			/* A login of another context is no session of
			 * this uid: the device would refuse it anyway. */
			if (!wrapped_dev ||
			    a->crypto_login->uctx != ctx->uctx)
				return EINVAL;
		} else if (wrapped_dev) {
			return EINVAL;
		}
		return 0;
	}
	pthread_mutex_lock(&ctx->lock);
	if (!ctx->crypto_login || !wrapped_dev)
		ret = EINVAL;
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

SMX_EXPORT struct mlx5dv_dek *
mlx5dv_dek_create(struct ibv_context *context,
		  struct mlx5dv_dek_init_attr *init_attr)
{
	uint32_t in[DEVX_ST_SZ_DW(create_encryption_key_obj_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(general_obj_out_cmd_hdr)] = {};
	void *ko = DEVX_ADDR_OF(create_encryption_key_obj_in, in, key_obj);
	struct mlx5_context *ctx;
	struct mlx5dv_dek *dek;
	uint32_t size;
	int ret;

	if (!context || !mlx5dv_is_supported(context->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = to_mctx(context);
	if (!(ctx->crypto_caps.crypto_engines &
	      (MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_SINGLE_BLOCK |
	       MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_MULTI_BLOCK)) ||
	    !crypto_obj_supported(ctx, MLX5_OBJ_TYPE_DEK)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!init_attr || !init_attr->pd ||
	    init_attr->key_purpose != MLX5DV_CRYPTO_KEY_PURPOSE_AES_XTS ||
	    (init_attr->comp_mask & ~(uint64_t)MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN)) {
		errno = EINVAL;
		return NULL;
	}
	switch (init_attr->key_size) {
	case MLX5DV_CRYPTO_KEY_SIZE_128:
		size = MLX5_ENCRYPTION_KEY_OBJ_KEY_SIZE_128;
		break;
	case MLX5DV_CRYPTO_KEY_SIZE_256:
		size = MLX5_ENCRYPTION_KEY_OBJ_KEY_SIZE_256;
		break;
	default:
		errno = EINVAL;
		return NULL;
	}
	ret = dek_import_check(ctx, init_attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	dek = calloc(1, sizeof(*dek));
	if (!dek) {
		errno = ENOMEM;
		return NULL;
	}
	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type, MLX5_OBJ_TYPE_DEK);
	DEVX_SET(encryption_key_obj, ko, key_size, size);
	DEVX_SET(encryption_key_obj, ko, has_keytag, !!init_attr->has_keytag);
	DEVX_SET(encryption_key_obj, ko, key_purpose,
		 MLX5_ENCRYPTION_KEY_OBJ_KEY_PURPOSE_AES_XTS);
	DEVX_SET(encryption_key_obj, ko, pd, to_mpd(init_attr->pd)->pdn);
	memcpy(DEVX_ADDR_OF(encryption_key_obj, ko, opaque), init_attr->opaque,
	       sizeof(init_attr->opaque));
	memcpy(DEVX_ADDR_OF(encryption_key_obj, ko, key), init_attr->key,
	       sizeof(init_attr->key));
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	explicit_bzero(in, sizeof(in));	/* the key */
	if (ret) {
		free(dek);
		errno = ret;
		return NULL;
	}
	dek->context = context;
	dek->uctx = ctx->uctx;
	dek->id = DEVX_GET(general_obj_out_cmd_hdr, out, obj_id);
	dek->pdn = to_mpd(init_attr->pd)->pdn;
	mlx5_ucontext_get(dek->uctx);
	return dek;
}

SMX_EXPORT int mlx5dv_dek_query(struct mlx5dv_dek *dek,
				struct mlx5dv_dek_attr *attr)
{
	uint32_t in[DEVX_ST_SZ_DW(general_obj_in_cmd_hdr)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_encryption_key_obj_out)] = {};
	int ret;

	if (!dek || !attr || attr->comp_mask)
		return EINVAL;
	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type, MLX5_OBJ_TYPE_DEK);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_id, dek->id);
	ret = mlx5_cmd_exec_hca(dek->uctx->hca, dek->uctx->uid, in, sizeof(in),
				out, sizeof(out));
	if (ret)
		return ret;
	switch (DEVX_GET(query_encryption_key_obj_out, out, obj.state)) {
	case MLX5_ENCRYPTION_KEY_OBJ_STATE_READY:
		attr->state = MLX5DV_DEK_STATE_READY;
		break;
	case MLX5_ENCRYPTION_KEY_OBJ_STATE_ERROR:
		attr->state = MLX5DV_DEK_STATE_ERROR;
		break;
	default:
		return EINVAL;
	}
	memcpy(attr->opaque,
	       DEVX_ADDR_OF(query_encryption_key_obj_out, out, obj.opaque),
	       sizeof(attr->opaque));
	return 0;
}

SMX_EXPORT int mlx5dv_dek_destroy(struct mlx5dv_dek *dek)
{
	int ret;

	if (!dek)
		return EINVAL;
	ret = crypto_destroy(dek->uctx, MLX5_OBJ_TYPE_DEK, dek->id);
	if (ret)
		return ret;
	mlx5_ucontext_put(dek->uctx);
	free(dek);
	return 0;
}
