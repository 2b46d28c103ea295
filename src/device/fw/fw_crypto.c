/* SPDX-License-Identifier: MIT */
/*
 * The crypto engine's control side: the CRYPTO_LOGIN and DEK general objects,
 * AES key unwrap (RFC 3394) with the import KEK, and the power-up self-test
 * whose result QUERY_HCA_CAP(CRYPTO).failed_selftests reports.
 *
 * Key material comes from the configuration (man 7 softmlx5, crypto_*): one
 * import KEK and one credential, each with the 24-bit id a login names, like
 * a part whose crypto officer loaded them into non-volatile storage.
 *
 * The device's mode decides how DEKs arrive:
 *   wrapped    key fields are RFC 3394-wrapped by the import KEK, and a user
 *              context must hold a VALID crypto login to create or query a
 *              DEK (DEKs outlive the login that created them);
 *   plaintext  key fields are in the clear; there is no login object;
 *   off        no crypto: neither object type is offered.
 * A login belongs to the user context (uid) that made it, one per uid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "device/engine/eng_crypto.h"
#include "device/fw/fw_loc.h"
#include "util/log.h"

struct fw_crypto_login {
	struct fw_genobj g;
	struct fw_crypto_login *next;	/* fw->crypto.logins */
	uint32_t credential_id;
	uint32_t import_kek_id;
	uint8_t state;			/* MLX5_CRYPTO_LOGIN_OBJ_STATE_* */
};

struct fw_dek_obj {
	struct fw_genobj g;
	struct fw_dek dek;
};

#define LOGIN_GET(fld) IN_GET(create_crypto_login_obj_in, login_obj.fld)
#define DEK_GET(fld) IN_GET(create_encryption_key_obj_in, key_obj.fld)

/* ---- key unwrap --------------------------------------------------------- */

int fw_crypto_unwrap(const uint8_t *kek, size_t kek_len, const uint8_t *in,
		     size_t in_len, uint8_t *out)
{
	static const uint8_t iv[8] = { 0xa6, 0xa6, 0xa6, 0xa6,
				       0xa6, 0xa6, 0xa6, 0xa6 };
	const EVP_CIPHER *c;
	EVP_CIPHER_CTX *ctx;
	int n = 0, fin = 0, ret = 0;

	switch (kek_len) {
	case 16: c = EVP_aes_128_wrap(); break;
	case 24: c = EVP_aes_192_wrap(); break;
	case 32: c = EVP_aes_256_wrap(); break;
	default: return -EINVAL;
	}
	/* RFC 3394: n >= 2 64-bit blocks of key data plus the check block. */
	if (!kek || !in || !out || in_len < 24 || in_len % 8 || in_len > 4096)
		return -EINVAL;
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -ENOMEM;
	EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
	if (EVP_DecryptInit_ex(ctx, c, NULL, kek, iv) != 1)
		ret = -EIO;
	/* A failed integrity check (wrong KEK, damaged data) fails here. */
	else if (EVP_DecryptUpdate(ctx, out, &n, in, (int)in_len) != 1 ||
		 EVP_DecryptFinal_ex(ctx, out + n, &fin) != 1 ||
		 (size_t)(n + fin) != in_len - 8)
		ret = -EBADMSG;
	EVP_CIPHER_CTX_free(ctx);
	if (ret)
		OPENSSL_cleanse(out, in_len - 8);
	return ret;
}

/* ---- power-up self-test --------------------------------------------------- */

static int hexbytes(const char *h, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return 0;
}

/*
 * Known-answer tests of what the engine relies on, like a FIPS part at power
 * up: AES-XTS both ways on the IEEE P1619 vector with a partial last block
 * (data unit 0x123456789a), and RFC 3394 section 4.6 unwrap. Bit 0: XTS
 * failed; bit 1: unwrap failed.
 */
uint16_t fw_crypto_selftest(void)
{
	uint8_t key[32], tweak[16] = { 0 }, pt[17], ct[17], buf[17];
	uint8_t kek[32], wrapped[40], want[32], got[32];
	uint16_t failed = 0;

	hexbytes("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0"
		 "bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0", key, 32);
	hexbytes("000102030405060708090a0b0c0d0e0f10", pt, 17);
	hexbytes("6c1625db4671522d3d7599601de7ca09ed", ct, 17);
	hexbytes("123456789a", tweak + 11, 5);
	if (eng_xts_crypt(key, 32, true, tweak, 0, 512, pt, buf, 17) ||
	    memcmp(buf, ct, 17) ||
	    eng_xts_crypt(key, 32, false, tweak, 0, 512, ct, buf, 17) ||
	    memcmp(buf, pt, 17))
		failed |= 1u << 0;

	for (unsigned int i = 0; i < 32; i++)
		kek[i] = (uint8_t)i;
	hexbytes("28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326"
		 "cbc7f0e71a99f43bfb988b9b7a02dd21", wrapped, 40);
	hexbytes("00112233445566778899aabbccddeeff"
		 "000102030405060708090a0b0c0d0e0f", want, 32);
	if (fw_crypto_unwrap(kek, 32, wrapped, 40, got) || memcmp(got, want, 32))
		failed |= 1u << 1;
	return failed;
}

/* ---- CRYPTO_LOGIN --------------------------------------------------------- */

/* The command uid's login, or NULL. */
static struct fw_crypto_login *fw_crypto_login_of(struct fw *fw, uint16_t uid)
{
	struct fw_crypto_login *l;

	for (l = fw->crypto.logins; l; l = l->next)
		if (l->g.obj.uid == uid)
			return l;
	return NULL;
}

/* Wrapped mode: does the command's user context hold a valid session? */
static bool fw_crypto_session_ok(struct fw_cmd *c, const char *what)
{
	struct fw_crypto_login *l = fw_crypto_login_of(c->fw, c->uid);

	if (!l) {
		FW_FAIL(c, BAD_RES_STATE_ERR, "%s: wrapped import needs a crypto "
			"login, and uid %u has none", what, c->uid);
		return false;
	}
	if (l->state != MLX5_CRYPTO_LOGIN_OBJ_STATE_VALID) {
		FW_FAIL(c, BAD_RES_STATE_ERR, "%s: crypto login 0x%x of uid %u "
			"is not valid", what, l->g.obj.id, c->uid);
		return false;
	}
	return true;
}

int fw_crypto_login_create(struct fw_cmd *c, struct fw_genobj **o)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint32_t cred_id = LOGIN_GET(credential_pointer);
	uint32_t kek_id = LOGIN_GET(session_import_kek_ptr);
	uint8_t cred[DEVX_FLD_SZ_BYTES(crypto_login_obj, credential) - 8];
	struct fw_crypto_login *l = fw_crypto_login_of(c->fw, c->uid);
	int r;

	if (cfg->crypto_mode != SMX_CRYPTO_WRAPPED)
		return FW_FAIL(c, BAD_PARAM_ERR, "crypto login: the device "
			       "imports keys %s; there is no login to make",
			       cfg->crypto_mode == SMX_CRYPTO_OFF ?
			       "not at all (crypto off)" : "in plaintext");
	if (c->fw->crypto.failed_selftests)
		return FW_FAIL(c, BAD_SYS_STATE_ERR, "crypto login: the crypto "
			       "self-test failed (0x%x)",
			       c->fw->crypto.failed_selftests);
	if (l)
		return FW_FAIL(c, BAD_RES_STATE_ERR, "crypto login: uid %u "
			       "already has login 0x%x (one per user context)",
			       c->uid, l->g.obj.id);
	if (kek_id != cfg->crypto_import_kek_id)
		return FW_FAIL(c, BAD_PARAM_ERR, "crypto login: import KEK "
			       "0x%x does not exist (the device holds 0x%x)",
			       kek_id, cfg->crypto_import_kek_id);
	if (cred_id != cfg->crypto_credential_id)
		return FW_FAIL(c, BAD_PARAM_ERR, "crypto login: credential "
			       "0x%x does not exist (the device holds 0x%x)",
			       cred_id, cfg->crypto_credential_id);
	r = fw_crypto_unwrap(cfg->crypto_import_kek.bytes,
			     cfg->crypto_import_kek.len,
			     IN_ADDR(create_crypto_login_obj_in,
				     login_obj.credential),
			     sizeof(cred) + 8, cred);
	if (r)
		return FW_FAIL(c, BAD_PARAM_ERR, "crypto login: the credential "
			       "does not unwrap under import KEK 0x%x (%s)",
			       kek_id, r == -EBADMSG ? "integrity check failed: "
			       "another KEK or damaged data" : "unwrap error");
	r = cfg->crypto_credential.len != sizeof(cred) ||
	    CRYPTO_memcmp(cred, cfg->crypto_credential.bytes, sizeof(cred));
	OPENSSL_cleanse(cred, sizeof(cred));
	if (r)
		return FW_FAIL(c, BAD_PARAM_ERR, "crypto login: the credential "
			       "does not match credential 0x%x", cred_id);
	l = calloc(1, sizeof(*l));
	if (!l)
		return FW_FAIL(c, NO_RES_ERR, "crypto login: out of memory");
	l->credential_id = cred_id;
	l->import_kek_id = kek_id;
	l->state = MLX5_CRYPTO_LOGIN_OBJ_STATE_VALID;
	/* The generic code sets the owner after create: record it now so a
	 * DEK of this uid finds the session. */
	l->g.obj.uid = c->uid;
	l->next = c->fw->crypto.logins;
	c->fw->crypto.logins = l;
	*o = &l->g;
	return 0;
}

int fw_crypto_login_modify(struct fw_cmd *c, struct fw_genobj *o)
{
	return FW_FAIL(c, BAD_PARAM_ERR, "crypto login 0x%x has no "
		       "modifiable field", o->obj.id);
}

int fw_crypto_login_query(struct fw_cmd *c, struct fw_genobj *o)
{
	struct fw_crypto_login *l = (struct fw_crypto_login *)o;

	/* The credential is not read back. */
	OUT_SET(query_crypto_login_obj_out, obj.state, l->state);
	OUT_SET(query_crypto_login_obj_out, obj.credential_pointer,
		l->credential_id);
	OUT_SET(query_crypto_login_obj_out, obj.session_import_kek_ptr,
		l->import_kek_id);
	return 0;
}

int fw_crypto_login_destroy(struct fw_cmd *c, struct fw_genobj *o)
{
	struct fw_crypto_login **pp;

	for (pp = &c->fw->crypto.logins; *pp; pp = &(*pp)->next)
		if (&(*pp)->g == o) {
			*pp = (*pp)->next;
			break;
		}
	return 0;
}

/* ---- DEK (ENCRYPTION_KEY) ------------------------------------------------- */

int fw_dek_create(struct fw_cmd *c, struct fw_genobj **o)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint32_t size = DEK_GET(key_size), purpose = DEK_GET(key_purpose);
	bool tag = DEK_GET(has_keytag);
	const uint8_t *field = IN_ADDR(create_encryption_key_obj_in,
				       key_obj.key);
	uint8_t plain[DEVX_FLD_SZ_BYTES(encryption_key_obj, key)];
	size_t half, n;
	struct fw_dek_obj *d;

	if (cfg->crypto_mode == SMX_CRYPTO_OFF)
		return FW_FAIL(c, BAD_PARAM_ERR, "DEK: the crypto engine is off "
			       "(crypto_mode)");
	if (c->fw->crypto.failed_selftests)
		return FW_FAIL(c, BAD_SYS_STATE_ERR, "DEK: the crypto self-test "
			       "failed (0x%x)", c->fw->crypto.failed_selftests);
	if (purpose != MLX5_ENCRYPTION_KEY_OBJ_KEY_PURPOSE_AES_XTS)
		return FW_FAIL(c, BAD_PARAM_ERR, "DEK: key_purpose %u (only "
			       "AES-XTS, %u)", purpose,
			       MLX5_ENCRYPTION_KEY_OBJ_KEY_PURPOSE_AES_XTS);
	if (size != MLX5_ENCRYPTION_KEY_OBJ_KEY_SIZE_128 &&
	    size != MLX5_ENCRYPTION_KEY_OBJ_KEY_SIZE_256)
		return FW_FAIL(c, BAD_PARAM_ERR, "DEK: key_size %u (0: 128 "
			       "bits, 1: 256 bits)", size);
	if (c->fw->crypto.ndeks >= 1u << FW_CRYPTO_LOG_MAX_DEKS)
		return FW_FAIL(c, NO_RES_ERR, "DEK: all %u DEKs are in use",
			       1u << FW_CRYPTO_LOG_MAX_DEKS);
	/* The PD must exist and be usable by the uid when the key is made. */
	if (!FW_REF(c, pd, DEK_GET(pd), "DEK"))
		return -1;

	/* key1 | key2 [| keytag], wrapped: an 8-byte check block ahead. */
	half = size == MLX5_ENCRYPTION_KEY_OBJ_KEY_SIZE_128 ? 16 : 32;
	n = 2 * half + (tag ? 8 : 0);
	if (cfg->crypto_mode == SMX_CRYPTO_WRAPPED) {
		int r;

		if (!fw_crypto_session_ok(c, "DEK"))
			return -1;
		r = fw_crypto_unwrap(cfg->crypto_import_kek.bytes,
				     cfg->crypto_import_kek.len, field, n + 8,
				     plain);
		if (r)
			return FW_FAIL(c, BAD_PARAM_ERR, "DEK: the %zu-byte "
				       "wrapped key does not unwrap under "
				       "import KEK 0x%x (%s)", n + 8,
				       cfg->crypto_import_kek_id,
				       r == -EBADMSG ? "integrity check "
				       "failed: another KEK, key size or "
				       "keytag setting" : "unwrap error");
	} else {
		memcpy(plain, field, n);
	}
	if (!CRYPTO_memcmp(plain, plain + half, half)) {
		OPENSSL_cleanse(plain, sizeof(plain));
		return FW_FAIL(c, BAD_PARAM_ERR, "DEK: key1 equals key2 (AES-XTS "
			       "needs two different keys)");
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		OPENSSL_cleanse(plain, sizeof(plain));
		return FW_FAIL(c, NO_RES_ERR, "DEK: out of memory");
	}
	d->dek.state = MLX5_ENCRYPTION_KEY_OBJ_STATE_READY;
	d->dek.key_size = (uint8_t)size;
	d->dek.key_len = (uint32_t)(2 * half);
	memcpy(d->dek.key, plain, 2 * half);
	d->dek.has_keytag = tag;
	if (tag)
		memcpy(d->dek.keytag, plain + 2 * half, 8);
	memcpy(d->dek.opaque, IN_ADDR(create_encryption_key_obj_in,
				      key_obj.opaque), 8);
	OPENSSL_cleanse(plain, sizeof(plain));
	d->dek.pdn = DEK_GET(pd);
	c->fw->crypto.ndeks++;
	*o = &d->g;
	return 0;
}

int fw_dek_modify(struct fw_cmd *c, struct fw_genobj *o)
{
	return FW_FAIL(c, BAD_PARAM_ERR, "DEK 0x%x has no modifiable field",
		       o->obj.id);
}

int fw_dek_query(struct fw_cmd *c, struct fw_genobj *o)
{
	const struct fw_dek *d = &((struct fw_dek_obj *)o)->dek;

	if (c->fw->cfg.crypto_mode == SMX_CRYPTO_WRAPPED &&
	    !fw_crypto_session_ok(c, "DEK query"))
		return -1;
	/* Everything but the key itself. */
	OUT_SET(query_encryption_key_obj_out, obj.state, d->state);
	OUT_SET(query_encryption_key_obj_out, obj.key_size, d->key_size);
	OUT_SET(query_encryption_key_obj_out, obj.has_keytag, d->has_keytag);
	OUT_SET(query_encryption_key_obj_out, obj.key_purpose,
		MLX5_ENCRYPTION_KEY_OBJ_KEY_PURPOSE_AES_XTS);
	OUT_SET(query_encryption_key_obj_out, obj.pd, d->pdn);
	memcpy(OUT_ADDR(query_encryption_key_obj_out, obj.opaque), d->opaque,
	       sizeof(d->opaque));
	return 0;
}

int fw_dek_destroy(struct fw_cmd *c, struct fw_genobj *o)
{
	struct fw_dek *d = &((struct fw_dek_obj *)o)->dek;

	OPENSSL_cleanse(d->key, sizeof(d->key));
	OPENSSL_cleanse(d->keytag, sizeof(d->keytag));
	c->fw->crypto.ndeks--;
	return 0;
}

const struct fw_dek *fw_dek_lookup(struct fw *fw, uint32_t id)
{
	struct fw_genobj *o = fw_table_get(&fw->genobj, id);

	if (!o || o->type != MLX5_OBJ_TYPE_DEK)
		return NULL;
	return &((struct fw_dek_obj *)o)->dek;
}
