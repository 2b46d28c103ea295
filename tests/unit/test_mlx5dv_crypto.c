/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv crypto control path through the public API: the crypto caps of
 * mlx5dv_query_device(), mlx5dv_crypto_login / _query_state / _logout,
 * mlx5dv_crypto_login_create / _query / _destroy and mlx5dv_dek_create /
 * _query / _destroy, with rdma-core 44's errno rules (one session per
 * context: EEXIST; a DEK outside a session: EINVAL; logout without one:
 * ENOENT). Runs in the crypto_mode SOFTMLX5_CRYPTO_MODE names (ctest runs it
 * once wrapped, once plaintext). Wrapped material is made here with
 * OpenSSL's key wrap under the KEK this test configures.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <openssl/evp.h>

#include "smx_test.h"
#include "verbs_test_util.h"

static uint8_t kek[32];
static const char cred[41] = "softmlx5 unit test credential, 40 bytes.";
static uint8_t key[64];		/* key1 | key2, 256-bit */

static void wrap(const void *in, size_t n, uint8_t *out)
{
	static const uint8_t iv[8] = { 0xa6, 0xa6, 0xa6, 0xa6,
				       0xa6, 0xa6, 0xa6, 0xa6 };
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int a = 0, b = 0;

	EVP_CIPHER_CTX_set_flags(c, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
	EVP_EncryptInit_ex(c, EVP_aes_256_wrap(), NULL, kek, iv);
	EVP_EncryptUpdate(c, out, &a, in, (int)n);
	EVP_EncryptFinal_ex(c, out + a, &b);
	EVP_CIPHER_CTX_free(c);
}

/* A DEK init attr for the 128-bit key: wrapped or plaintext. */
static struct mlx5dv_dek_init_attr dek_attr(struct ibv_pd *pd, bool wrapped,
					    uint64_t mask,
					    struct mlx5dv_crypto_login_obj *l)
{
	struct mlx5dv_dek_init_attr a = {
		.key_size = MLX5DV_CRYPTO_KEY_SIZE_128,
		.key_purpose = MLX5DV_CRYPTO_KEY_PURPOSE_AES_XTS,
		.pd = pd,
		.comp_mask = mask,
		.crypto_login = l,
	};

	memcpy(a.opaque, "dek", 3);
	if (wrapped)
		wrap(key, 32, (uint8_t *)a.key);
	else
		memcpy(a.key, key, 32);
	return a;
}

static void test_caps(struct ibv_context *ctx, bool wrapped)
{
	struct mlx5dv_context dv = { .comp_mask = MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD };
	const struct mlx5dv_crypto_caps *cc = &dv.crypto_caps;

	CHECK_EQ(mlx5dv_query_device(ctx, &dv), 0);
	CHECK(dv.comp_mask & MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD);
	CHECK(cc->flags & MLX5DV_CRYPTO_CAPS_CRYPTO);
	CHECK_EQ(cc->crypto_engines,
		 MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_SINGLE_BLOCK |
		 MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_MULTI_BLOCK);
	CHECK_EQ(cc->failed_selftests, 0);
	CHECK_EQ(cc->log_max_num_deks, 16);
	CHECK_EQ(!!(cc->flags & MLX5DV_CRYPTO_CAPS_WRAPPED_CRYPTO_OPERATIONAL),
		 wrapped);
	CHECK_EQ(cc->wrapped_import_method,
		 wrapped ? MLX5DV_CRYPTO_WRAPPED_IMPORT_METHOD_CAP_AES_XTS : 0);
	CHECK(!(cc->flags &
		MLX5DV_CRYPTO_CAPS_WRAPPED_CRYPTO_GOING_TO_COMMISSIONING));
}

static void test_wrapped(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct mlx5dv_crypto_login_attr la = { 0 };
	struct mlx5dv_crypto_login_attr_ex lx = { 0 };
	struct mlx5dv_crypto_login_query_attr lq = { 0 };
	enum mlx5dv_crypto_login_state state;
	struct mlx5dv_crypto_login_obj *lo, *lo2;
	struct mlx5dv_dek_init_attr da;
	struct mlx5dv_dek_attr q = { 0 };
	struct mlx5dv_dek *dek;
	uint8_t wcred[48];

	wrap(cred, 40, wcred);
	CHECK_EQ(mlx5dv_crypto_login_query_state(ctx, &state), 0);
	CHECK_EQ(state, MLX5DV_CRYPTO_LOGIN_STATE_NO_LOGIN);
	CHECK_EQ(mlx5dv_crypto_logout(ctx), ENOENT);

	/* No DEK outside a session, no plaintext DEK on a wrapped device. */
	da = dek_attr(pd, true, 0, NULL);
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);
	da = dek_attr(pd, false, MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN, NULL);
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);

	/* Logins the device refuses. */
	memcpy(la.credential, wcred, 48);
	la.comp_mask = 1;
	CHECK_EQ(mlx5dv_crypto_login(ctx, &la), EINVAL);
	la.comp_mask = 0;
	la.credential_id = 0x1000000;
	CHECK_EQ(mlx5dv_crypto_login(ctx, &la), EINVAL);
	la.credential_id = 7;				/* no such credential */
	CHECK_EQ(mlx5dv_crypto_login(ctx, &la), EINVAL);
	la.credential_id = 0;
	la.credential[3] ^= 1;				/* damaged */
	CHECK_EQ(mlx5dv_crypto_login(ctx, &la), EINVAL);
	la.credential[3] ^= 1;
	CHECK_EQ(mlx5dv_crypto_login_query_state(ctx, &state), 0);
	CHECK_EQ(state, MLX5DV_CRYPTO_LOGIN_STATE_NO_LOGIN);

	/* The session: one per context. */
	CHECK_EQ(mlx5dv_crypto_login(ctx, &la), 0);
	CHECK_EQ(mlx5dv_crypto_login_query_state(ctx, &state), 0);
	CHECK_EQ(state, MLX5DV_CRYPTO_LOGIN_STATE_VALID);
	CHECK_EQ(mlx5dv_crypto_login(ctx, &la), EEXIST);

	/* Attribute checks before the device. */
	da = dek_attr(pd, true, 0, NULL);
	da.key_size = 7;
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);
	da = dek_attr(pd, true, 0, NULL);
	da.key_purpose = 1;
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);
	da = dek_attr(pd, true, 2, NULL);
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);
	da = dek_attr(NULL, true, 0, NULL);
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);
	da = dek_attr(pd, false, 0, NULL);		/* not wrapped */
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);

	/* 128-bit, then 256-bit with a keytag. */
	da = dek_attr(pd, true, 0, NULL);
	dek = mlx5dv_dek_create(ctx, &da);
	CHECKM(dek != NULL, "errno %d", errno);
	if (dek) {
		CHECK_EQ(mlx5dv_dek_query(dek, &q), 0);
		CHECK_EQ(q.state, MLX5DV_DEK_STATE_READY);
		CHECK(!memcmp(q.opaque, "dek\0\0\0\0\0", 8));
		q.comp_mask = 1;
		CHECK_EQ(mlx5dv_dek_query(dek, &q), EINVAL);
		q.comp_mask = 0;
		CHECK_EQ(mlx5dv_dek_destroy(dek), 0);
	}
	{
		uint8_t kt[72];

		memcpy(kt, key, 64);
		memcpy(kt + 64, "keytag!!", 8);
		da = dek_attr(pd, true, 0, NULL);
		da.key_size = MLX5DV_CRYPTO_KEY_SIZE_256;
		da.has_keytag = true;
		wrap(kt, 72, (uint8_t *)da.key);
		dek = mlx5dv_dek_create(ctx, &da);
		CHECKM(dek != NULL, "errno %d", errno);
	}

	/* Logout: the DEK stays, but a wrapped DEK is not queried without a
	 * session. */
	CHECK_EQ(mlx5dv_crypto_logout(ctx), 0);
	CHECK_EQ(mlx5dv_crypto_login_query_state(ctx, &state), 0);
	CHECK_EQ(state, MLX5DV_CRYPTO_LOGIN_STATE_NO_LOGIN);
	CHECK_EQ(mlx5dv_crypto_logout(ctx), ENOENT);
	if (dek) {
		CHECK_EQ(mlx5dv_dek_query(dek, &q), EINVAL);
		CHECK_EQ(mlx5dv_dek_destroy(dek), 0);
	}

	/* The login object API. */
	lx.credential = wcred;
	lx.credential_len = 48;
	lx.comp_mask = 1;
	errno = 0;
	CHECKM(!mlx5dv_crypto_login_create(ctx, &lx) && errno == EINVAL,
	       "errno %d", errno);
	lx.comp_mask = 0;
	lx.credential_len = 49;
	errno = 0;
	CHECKM(!mlx5dv_crypto_login_create(ctx, &lx) && errno == EINVAL,
	       "errno %d", errno);
	lx.credential_len = 48;
	lo = mlx5dv_crypto_login_create(ctx, &lx);
	CHECKM(lo != NULL, "errno %d", errno);
	if (!lo)
		return;
	CHECK_EQ(mlx5dv_crypto_login_query(lo, &lq), 0);
	CHECK_EQ(lq.state, MLX5DV_CRYPTO_LOGIN_STATE_VALID);
	lq.comp_mask = 1;
	CHECK_EQ(mlx5dv_crypto_login_query(lo, &lq), EINVAL);
	/* The device keeps one login per context. */
	errno = 0;
	CHECKM(!mlx5dv_crypto_login_create(ctx, &lx) && errno == EINVAL,
	       "errno %d", errno);
	da = dek_attr(pd, true, MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN, lo);
	dek = mlx5dv_dek_create(ctx, &da);
	CHECKM(dek != NULL, "errno %d", errno);

	/* A login of another context is no session here; and a DEK may
	 * outlive the context it was made on. */
	{
		struct ibv_context *ctx2 = open_dev();
		struct ibv_pd *pd2 = ibv_alloc_pd(ctx2);
		struct mlx5dv_dek *dek2;

		lo2 = mlx5dv_crypto_login_create(ctx2, &lx);
		CHECKM(lo2 != NULL, "errno %d", errno);
		da = dek_attr(pd, true, MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN, lo2);
		errno = 0;
		CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL,
		       "errno %d", errno);
		da = dek_attr(pd2, true, MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN, lo2);
		dek2 = mlx5dv_dek_create(ctx2, &da);
		CHECKM(dek2 != NULL, "errno %d", errno);
		CHECK_EQ(mlx5dv_crypto_login_destroy(lo2), 0);
		CHECK_EQ(ibv_dealloc_pd(pd2), 0);	/* before the DEK */
		CHECK_EQ(ibv_close_device(ctx2), 0);
		if (dek2)
			CHECK_EQ(mlx5dv_dek_destroy(dek2), 0);
	}
	if (dek)
		CHECK_EQ(mlx5dv_dek_destroy(dek), 0);
	CHECK_EQ(mlx5dv_crypto_login_destroy(lo), 0);
}

static void test_plaintext(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct mlx5dv_crypto_login_attr la = { 0 };
	struct mlx5dv_crypto_login_attr_ex lx = { 0 };
	enum mlx5dv_crypto_login_state state;
	struct mlx5dv_dek_init_attr da;
	struct mlx5dv_dek_attr q = { 0 };
	struct mlx5dv_dek *dek;
	uint8_t wcred[48];

	wrap(cred, 40, wcred);
	memcpy(la.credential, wcred, 48);
	CHECK_EQ(mlx5dv_crypto_login(ctx, &la), EOPNOTSUPP);
	lx.credential = wcred;
	lx.credential_len = 48;
	errno = 0;
	CHECKM(!mlx5dv_crypto_login_create(ctx, &lx) && errno == EOPNOTSUPP,
	       "errno %d", errno);
	CHECK_EQ(mlx5dv_crypto_login_query_state(ctx, &state), 0);
	CHECK_EQ(state, MLX5DV_CRYPTO_LOGIN_STATE_NO_LOGIN);
	CHECK_EQ(mlx5dv_crypto_logout(ctx), ENOENT);

	/* Wrapped requests make no sense here. */
	da = dek_attr(pd, true, 0, NULL);
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);

	da = dek_attr(pd, false, MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN, NULL);
	dek = mlx5dv_dek_create(ctx, &da);
	CHECKM(dek != NULL, "errno %d", errno);
	if (dek) {
		CHECK_EQ(mlx5dv_dek_query(dek, &q), 0);	/* no session needed */
		CHECK_EQ(q.state, MLX5DV_DEK_STATE_READY);
		CHECK(!memcmp(q.opaque, "dek", 4));
		CHECK_EQ(mlx5dv_dek_destroy(dek), 0);
	}
	/* key1 == key2 is refused by the device */
	da = dek_attr(pd, false, MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN, NULL);
	memcpy(da.key + 16, da.key, 16);
	errno = 0;
	CHECKM(!mlx5dv_dek_create(ctx, &da) && errno == EINVAL, "errno %d", errno);
	/* 256-bit */
	da = dek_attr(pd, false, MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN, NULL);
	da.key_size = MLX5DV_CRYPTO_KEY_SIZE_256;
	memcpy(da.key, key, 64);
	dek = mlx5dv_dek_create(ctx, &da);
	CHECKM(dek != NULL, "errno %d", errno);
	if (dek)
		CHECK_EQ(mlx5dv_dek_destroy(dek), 0);
}

int main(void)
{
	const char *mode = getenv("SOFTMLX5_CRYPTO_MODE");
	bool wrapped = !mode || !strcmp(mode, "wrapped");
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char hex[100];

	/* The device's keys are this test's: built-in defaults otherwise. */
	unsetenv("SOFTMLX5_CONFIG");
	setenv("XDG_CONFIG_HOME", "/nonexistent-softmlx5-test", 1);
	setenv("HOME", "/nonexistent-softmlx5-test", 1);
	for (int i = 0; i < 32; i++)
		kek[i] = (uint8_t)(0xc0 ^ (i * 7));
	for (int i = 0; i < 64; i++)
		key[i] = (uint8_t)(i * 13 + 1);
	for (int i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", kek[i]);
	setenv("SOFTMLX5_CRYPTO_IMPORT_KEK", hex, 1);
	for (int i = 0; i < 40; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)cred[i]);
	setenv("SOFTMLX5_CRYPTO_CREDENTIAL", hex, 1);
	unsetenv("SOFTMLX5_CRYPTO_IMPORT_KEK_ID");
	unsetenv("SOFTMLX5_CRYPTO_CREDENTIAL_ID");
	if (mode && strcmp(mode, "wrapped") && strcmp(mode, "plaintext")) {
		fprintf(stderr, "SOFTMLX5_CRYPTO_MODE=%s: this test runs in "
			"wrapped or plaintext mode\n", mode);
		return 1;
	}

	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	CHECK(pd != NULL);
	if (!pd)
		return smx_test_done();
	printf("crypto_mode %s\n", wrapped ? "wrapped" : "plaintext");
	test_caps(ctx, wrapped);
	if (wrapped)
		test_wrapped(ctx, pd);
	else
		test_plaintext(ctx, pd);
	CHECK_EQ(ibv_dealloc_pd(pd), 0);
	CHECK_EQ(ibv_close_device(ctx), 0);
	return smx_test_done();
}
