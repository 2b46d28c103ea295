/* SPDX-License-Identifier: MIT */
/*
 * Firmware crypto, by PRM mailbox: the crypto caps in each crypto_mode, the
 * CRYPTO_LOGIN object (credential and KEK checks, one per user context,
 * query without the credential) and the DEK object (wrapped and plaintext
 * keys, 128/256 bits, keytags, opaque, query rules, hostile fields), and the
 * key the engine gets from fw_dek_lookup(). Wrapped material is made here
 * with OpenSSL's key wrap, not with the device's code.
 */
#include <openssl/evp.h>

#include "device/fw/fw.h"
#include "fw_test_util.h"

/* The device's configuration for the wrapped part: a 128-bit KEK (the RFC
 * 3394 one) and a credential, under ids other than 0. */
static const uint8_t kek[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				 13, 14, 15 };
static const char cred[41] = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
#define KEK_ID 0x12
#define CRED_ID 0x345

static void wrap(const uint8_t *k, size_t klen, const void *in, size_t n,
		 uint8_t *out)
{
	static const uint8_t iv[8] = { 0xa6, 0xa6, 0xa6, 0xa6,
				       0xa6, 0xa6, 0xa6, 0xa6 };
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int a = 0, b = 0;

	EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
	EVP_EncryptInit_ex(ctx, klen == 16 ? EVP_aes_128_wrap() :
			   EVP_aes_256_wrap(), NULL, k, iv);
	EVP_EncryptUpdate(ctx, out, &a, in, (int)n);
	EVP_EncryptFinal_ex(ctx, out + a, &b);
	EVP_CIPHER_CTX_free(ctx);
}

static struct smx_dev *open_mode(const char *mode)
{
	char hex[128];

	setenv("SOFTMLX5_CRYPTO_MODE", mode, 1);
	for (int i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", kek[i]);
	setenv("SOFTMLX5_CRYPTO_IMPORT_KEK", hex, 1);
	for (int i = 0; i < 40; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)cred[i]);
	setenv("SOFTMLX5_CRYPTO_CREDENTIAL", hex, 1);
	setenv("SOFTMLX5_CRYPTO_IMPORT_KEK_ID", "0x12", 1);
	setenv("SOFTMLX5_CRYPTO_CREDENTIAL_ID", "0x345", 1);
	return t_open();
}

static void query_cap(struct smx_dev *d, uint16_t type, uint8_t *cap)
{
	MB(query_hca_cap_in) = { 0 };
	MB(query_hca_cap_out) = { 0 };

	DEVX_SET(query_hca_cap_in, query_hca_cap_in, opcode,
		 MLX5_CMD_OP_QUERY_HCA_CAP);
	DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod, type << 1 | 1);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in),
		       query_hca_cap_out, sizeof(query_hca_cap_out)), 0);
	memcpy(cap, DEVX_ADDR_OF(query_hca_cap_out, query_hca_cap_out,
				 capability), 0x1000);
}

/* CREATE_GENERAL_OBJECT(CRYPTO_LOGIN); status, id in *id. */
static unsigned int login(struct smx_dev *d, uint16_t uid, uint32_t cred_id,
			  uint32_t kek_id, const uint8_t wcred[48], uint32_t *id)
{
	MB(create_crypto_login_obj_in) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };
	void *in = create_crypto_login_obj_in;
	unsigned int st;

	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, uid, uid);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type,
		 MLX5_OBJ_TYPE_CRYPTO_LOGIN);
	DEVX_SET(create_crypto_login_obj_in, in, login_obj.credential_pointer,
		 cred_id);
	DEVX_SET(create_crypto_login_obj_in, in,
		 login_obj.session_import_kek_ptr, kek_id);
	memcpy(DEVX_ADDR_OF(create_crypto_login_obj_in, in, login_obj.credential),
	       wcred, 48);
	st = t_cmd(d, in, sizeof(create_crypto_login_obj_in),
		   general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr));
	*id = DEVX_GET(general_obj_out_cmd_hdr, general_obj_out_cmd_hdr, obj_id);
	return st;
}

struct dek_args {
	uint16_t uid;
	uint32_t pd, size, purpose;
	bool tag;
	const uint8_t *key;	/* as the key field holds it */
	size_t key_len;
	const char *opaque;
	size_t inlen;		/* 0: the full mailbox */
};

static unsigned int dek(struct smx_dev *d, const struct dek_args *a,
			uint32_t *id)
{
	MB(create_encryption_key_obj_in) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };
	void *in = create_encryption_key_obj_in;
	uint8_t *field = DEVX_ADDR_OF(create_encryption_key_obj_in, in,
				      key_obj.key);
	unsigned int st;

	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, uid, a->uid);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type, MLX5_OBJ_TYPE_DEK);
	DEVX_SET(create_encryption_key_obj_in, in, key_obj.key_size, a->size);
	DEVX_SET(create_encryption_key_obj_in, in, key_obj.has_keytag, a->tag);
	DEVX_SET(create_encryption_key_obj_in, in, key_obj.key_purpose,
		 a->purpose);
	DEVX_SET(create_encryption_key_obj_in, in, key_obj.pd, a->pd);
	if (a->opaque)
		strncpy((char *)DEVX_ADDR_OF(create_encryption_key_obj_in, in,
					     key_obj.opaque), a->opaque, 8);
	/* What follows the key is garbage (pyverbs copies 128 bytes from a
	 * shorter buffer): the device must not care. */
	memset(field, 0xee, 128);
	memcpy(field, a->key, a->key_len);
	st = t_cmd(d, in, a->inlen ? a->inlen : sizeof(create_encryption_key_obj_in),
		   general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr));
	*id = DEVX_GET(general_obj_out_cmd_hdr, general_obj_out_cmd_hdr, obj_id);
	return st;
}

static unsigned int genobj_cmd(struct smx_dev *d, uint16_t op, uint16_t uid,
			       uint16_t type, uint32_t id, void *out,
			       size_t outlen)
{
	MB(general_obj_in_cmd_hdr) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };

	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, opcode, op);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, uid, uid);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_type, type);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_id, id);
	if (!out) {
		out = general_obj_out_cmd_hdr;
		outlen = sizeof(general_obj_out_cmd_hdr);
	}
	return t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		     out, outlen);
}

static unsigned int destroy(struct smx_dev *d, uint16_t uid, uint16_t type,
			    uint32_t id)
{
	return genobj_cmd(d, MLX5_CMD_OP_DESTROY_GENERAL_OBJECT, uid, type, id,
			  NULL, 0);
}

/* The key the engine would use, copied out under the lock. */
static bool lookup(struct smx_dev *d, uint32_t id, struct fw_dek *out)
{
	struct fw *fw = smx_dev_fw(d);
	const struct fw_dek *k;

	fw_lock(fw);
	k = fw_dek_lookup(fw, id);
	if (k)
		*out = *k;
	fw_unlock(fw);
	return k != NULL;
}

static void test_wrapped(void)
{
	struct smx_dev *d = open_mode("wrapped");
	uint8_t cap[0x1000], wcred[48], bad[48], key[64], wkey[80], wtag[80];
	uint8_t qout[DEVX_ST_SZ_BYTES(query_encryption_key_obj_out)];
	uint8_t lout[DEVX_ST_SZ_BYTES(query_crypto_login_obj_out)];
	uint64_t types;
	uint32_t la, lb, k1, k2, kx, pda, pdb;
	uint16_t ua, ub;
	struct fw_dek fk;
	unsigned int st;

	CHECK(d != NULL);
	if (!d)
		return;
	query_cap(d, MLX5_CAP_GENERAL, cap);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, crypto), 1);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, aes_xts_multi_block_be_tweak), 1);
	types = DEVX_GET64(cmd_hca_cap, cap, general_obj_types);
	CHECK(types & (1ull << MLX5_OBJ_TYPE_DEK));
	CHECK(types & (1ull << MLX5_OBJ_TYPE_CRYPTO_LOGIN));
	query_cap(d, MLX5_CAP_CRYPTO, cap);
	CHECK_EQ(DEVX_GET(crypto_caps, cap, wrapped_crypto_operational), 1);
	CHECK_EQ(DEVX_GET(crypto_caps, cap, wrapped_import_method),
		 MLX5_CRYPTO_WRAPPED_IMPORT_METHOD_AES_XTS);
	CHECK_EQ(DEVX_GET(crypto_caps, cap, failed_selftests), 0);
	CHECK_EQ(DEVX_GET(crypto_caps, cap, log_max_num_deks), 16);

	ua = t_uctx(d);
	ub = t_uctx(d);
	pda = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, ua, &st);
	pdb = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, ub, &st);
	for (int i = 0; i < 64; i++)
		key[i] = (uint8_t)(0x40 + i);
	wrap(kek, 16, key, 32, wkey);
	wrap(kek, 16, cred, 40, wcred);

	/* No DEK outside a login. */
	st = dek(d, &(struct dek_args){ ua, pda, 0, 3, false, wkey, 40, "dek", 0 },
		 &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_RES_STATE_ERR);

	/* Login: every mismatch is refused. */
	CHECK_EQ(login(d, ua, CRED_ID + 1, KEK_ID, wcred, &la),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(login(d, ua, CRED_ID, KEK_ID + 1, wcred, &la),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	memcpy(bad, wcred, 48);
	bad[20] ^= 1;				/* damaged */
	CHECK_EQ(login(d, ua, CRED_ID, KEK_ID, bad, &la),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	{
		uint8_t other[16] = { 9 };	/* another KEK */

		wrap(other, 16, cred, 40, bad);
		CHECK_EQ(login(d, ua, CRED_ID, KEK_ID, bad, &la),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
	}
	{
		char wrong[41];			/* another credential */

		memcpy(wrong, cred, sizeof(wrong));
		wrong[39] = '!';
		wrap(kek, 16, wrong, 40, bad);
		CHECK_EQ(login(d, ua, CRED_ID, KEK_ID, bad, &la),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
	}
	CHECK_EQ(login(d, ua, CRED_ID, KEK_ID, wcred, &la), 0);
	CHECK_EQ(login(d, ua, CRED_ID, KEK_ID, wcred, &kx),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);	/* one per context */
	memset(lout, 0xff, sizeof(lout));
	CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_QUERY_GENERAL_OBJECT, ua,
			    MLX5_OBJ_TYPE_CRYPTO_LOGIN, la, lout, sizeof(lout)), 0);
	CHECK_EQ(DEVX_GET(query_crypto_login_obj_out, lout, obj.state),
		 MLX5_CRYPTO_LOGIN_OBJ_STATE_VALID);
	CHECK_EQ(DEVX_GET(query_crypto_login_obj_out, lout,
			  obj.credential_pointer), CRED_ID);
	CHECK_EQ(DEVX_GET(query_crypto_login_obj_out, lout,
			  obj.session_import_kek_ptr), KEK_ID);
	CHECK_EQ(DEVX_GET(query_crypto_login_obj_out, lout,
			  obj.credential[0]), 0);	/* not read back */
	CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_QUERY_GENERAL_OBJECT, ua,
			    MLX5_OBJ_TYPE_CRYPTO_LOGIN, la, lout, 0x20),
		 MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
	CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_MODIFY_GENERAL_OBJECT, ua,
			    MLX5_OBJ_TYPE_CRYPTO_LOGIN, la, NULL, 0),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);	/* header only */
	/* Another context logs in on its own; it cannot end ours. */
	CHECK_EQ(login(d, ub, CRED_ID, KEK_ID, wcred, &lb), 0);
	CHECK_EQ(destroy(d, ub, MLX5_OBJ_TYPE_CRYPTO_LOGIN, la),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);

	/* DEK fields. */
	st = dek(d, &(struct dek_args){ ua, pda, 0, 0, false, wkey, 40, "dek", 0 },
		 &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* purpose */
	st = dek(d, &(struct dek_args){ ua, pda, 2, 3, false, wkey, 40, "dek", 0 },
		 &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* size */
	st = dek(d, &(struct dek_args){ ua, 0xabcde, 0, 3, false, wkey, 40,
					"dek", 0 }, &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_RES_ERR);	/* no such PD */
	st = dek(d, &(struct dek_args){ ua, pdb, 0, 3, false, wkey, 40, "dek", 0 },
		 &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* B's PD */
	st = dek(d, &(struct dek_args){ ua, pda, 0, 3, false, key, 40, "dek", 0 },
		 &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* not wrapped */
	st = dek(d, &(struct dek_args){ ua, pda, 1, 3, false, wkey, 40, "dek", 0 },
		 &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* 128 sent as 256 */
	st = dek(d, &(struct dek_args){ ua, pda, 0, 3, true, wkey, 40, "dek", 0 },
		 &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* no keytag in it */
	{
		uint8_t same[32], wsame[40];

		memcpy(same, key, 16);
		memcpy(same + 16, key, 16);
		wrap(kek, 16, same, 32, wsame);
		st = dek(d, &(struct dek_args){ ua, pda, 0, 3, false, wsame,
						40, "dek", 0 }, &kx);
		CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* key1 == key2 */
	}
	st = dek(d, &(struct dek_args){ ua, pda, 0, 3, false, wkey, 40, "dek",
					0x100 }, &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_INP_LEN_ERR);

	/* 128-bit, no keytag. */
	st = dek(d, &(struct dek_args){ ua, pda, 0, 3, false, wkey, 40,
					"dek", 0 }, &k1);
	CHECK_EQ(st, 0);
	CHECK(lookup(d, k1, &fk));
	CHECK_EQ(fk.key_len, 32);
	CHECK(!memcmp(fk.key, key, 32));
	CHECK_EQ(fk.pdn, pda);
	CHECK_EQ(fk.state, MLX5_ENCRYPTION_KEY_OBJ_STATE_READY);
	CHECK(!fk.has_keytag);
	memset(qout, 0xff, sizeof(qout));
	CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_QUERY_GENERAL_OBJECT, ua,
			    MLX5_OBJ_TYPE_DEK, k1, qout, sizeof(qout)), 0);
	CHECK(!memcmp(DEVX_ADDR_OF(query_encryption_key_obj_out, qout,
				   obj.opaque), "dek\0\0\0\0", 8));
	CHECK_EQ(DEVX_GET(query_encryption_key_obj_out, qout, obj.pd), pda);
	CHECK_EQ(DEVX_GET(query_encryption_key_obj_out, qout, obj.key_size), 0);
	CHECK_EQ(DEVX_GET(query_encryption_key_obj_out, qout, obj.key_purpose), 3);
	CHECK_EQ(DEVX_GET(query_encryption_key_obj_out, qout, obj.state), 0);
	CHECK_EQ(DEVX_GET(query_encryption_key_obj_out, qout, obj.key[0]), 0);
	CHECK_EQ(DEVX_GET(query_encryption_key_obj_out, qout, obj.key[7]), 0);
	/* B may not look at A's key. */
	CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_QUERY_GENERAL_OBJECT, ub,
			    MLX5_OBJ_TYPE_DEK, k1, qout, sizeof(qout)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_MODIFY_GENERAL_OBJECT, ua,
			    MLX5_OBJ_TYPE_DEK, k1, NULL, 0),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);

	/* 256-bit with a keytag: key1 | key2 | tag wrapped together. */
	{
		uint8_t kt[72];

		memcpy(kt, key, 64);
		memcpy(kt + 64, "KEYTAG!!", 8);
		wrap(kek, 16, kt, 72, wtag);
		st = dek(d, &(struct dek_args){ ua, pda, 1, 3, true, wtag, 80,
						"dek256", 0 }, &k2);
		CHECK_EQ(st, 0);
		CHECK(lookup(d, k2, &fk));
		CHECK_EQ(fk.key_len, 64);
		CHECK(!memcmp(fk.key, key, 64));
		CHECK(fk.has_keytag && !memcmp(fk.keytag, "KEYTAG!!", 8));
		CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_QUERY_GENERAL_OBJECT, ua,
				    MLX5_OBJ_TYPE_DEK, k2, qout, sizeof(qout)), 0);
		CHECK_EQ(DEVX_GET(query_encryption_key_obj_out, qout,
				  obj.key_size), 1);
		CHECK_EQ(DEVX_GET(query_encryption_key_obj_out, qout,
				  obj.has_keytag), 1);
	}

	/* After logout: keys stay usable, but a wrapped DEK cannot be
	 * queried or created; destroying it needs no session. */
	CHECK_EQ(destroy(d, ua, MLX5_OBJ_TYPE_CRYPTO_LOGIN, la), 0);
	CHECK(lookup(d, k1, &fk));
	CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_QUERY_GENERAL_OBJECT, ua,
			    MLX5_OBJ_TYPE_DEK, k1, qout, sizeof(qout)),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	st = dek(d, &(struct dek_args){ ua, pda, 0, 3, false, wkey, 40, "dek", 0 },
		 &kx);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	/* The PD may go while a DEK names it. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, ua, pda), 0);
	CHECK_EQ(destroy(d, ua, MLX5_OBJ_TYPE_DEK, k1), 0);
	CHECK_EQ(destroy(d, ua, MLX5_OBJ_TYPE_DEK, k1),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK(!lookup(d, k1, &fk));
	CHECK_EQ(destroy(d, ua, MLX5_OBJ_TYPE_DEK, k2), 0);
	/* A login object is no DEK. */
	CHECK(!lookup(d, lb, &fk));
	CHECK_EQ(destroy(d, ub, MLX5_OBJ_TYPE_DEK, lb),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(destroy(d, ub, MLX5_OBJ_TYPE_CRYPTO_LOGIN, lb), 0);
	smx_dev_close(d);
}

static void test_plaintext(void)
{
	struct smx_dev *d = open_mode("plaintext");
	uint8_t cap[0x1000], key[32], wcred[48];
	uint8_t qout[DEVX_ST_SZ_BYTES(query_encryption_key_obj_out)];
	uint32_t pd, k, l;
	struct fw_dek fk;
	unsigned int st;

	CHECK(d != NULL);
	if (!d)
		return;
	query_cap(d, MLX5_CAP_GENERAL, cap);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, crypto), 1);
	CHECK(DEVX_GET64(cmd_hca_cap, cap, general_obj_types) &
	      (1ull << MLX5_OBJ_TYPE_DEK));
	CHECK(!(DEVX_GET64(cmd_hca_cap, cap, general_obj_types) &
		(1ull << MLX5_OBJ_TYPE_CRYPTO_LOGIN)));
	query_cap(d, MLX5_CAP_CRYPTO, cap);
	CHECK_EQ(DEVX_GET(crypto_caps, cap, wrapped_crypto_operational), 0);
	CHECK_EQ(DEVX_GET(crypto_caps, cap, wrapped_import_method), 0);

	/* No login in plaintext mode. */
	wrap(kek, 16, cred, 40, wcred);
	CHECK_EQ(login(d, 0, CRED_ID, KEK_ID, wcred, &l),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);

	pd = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, 0, &st);
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(0x80 + 3 * i);
	st = dek(d, &(struct dek_args){ 0, pd, 0, 3, false, key, 32, "plain", 0 },
		 &k);
	CHECK_EQ(st, 0);
	CHECK(lookup(d, k, &fk));
	CHECK(fk.key_len == 32 && !memcmp(fk.key, key, 32));
	CHECK_EQ(genobj_cmd(d, MLX5_CMD_OP_QUERY_GENERAL_OBJECT, 0,
			    MLX5_OBJ_TYPE_DEK, k, qout, sizeof(qout)), 0);
	CHECK(!memcmp(DEVX_ADDR_OF(query_encryption_key_obj_out, qout,
				   obj.opaque), "plain", 5));
	CHECK_EQ(destroy(d, 0, MLX5_OBJ_TYPE_DEK, k), 0);
	memcpy(key + 16, key, 16);
	st = dek(d, &(struct dek_args){ 0, pd, 0, 3, false, key, 32, "plain", 0 },
		 &k);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* key1 == key2 */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd), 0);
	smx_dev_close(d);
}

static void test_off(void)
{
	struct smx_dev *d = open_mode("off");
	uint8_t cap[0x1000], key[32];
	uint32_t pd, k;
	unsigned int st;

	CHECK(d != NULL);
	if (!d)
		return;
	query_cap(d, MLX5_CAP_GENERAL, cap);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, crypto), 0);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, aes_xts_multi_block_be_tweak), 0);
	CHECK(!(DEVX_GET64(cmd_hca_cap, cap, general_obj_types) &
		(1ull << MLX5_OBJ_TYPE_DEK)));
	query_cap(d, MLX5_CAP_CRYPTO, cap);
	CHECK_EQ(DEVX_GET(crypto_caps, cap, log_max_num_deks), 0);
	pd = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, 0, &st);
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	st = dek(d, &(struct dek_args){ 0, pd, 0, 3, false, key, 32, "off", 0 },
		 &k);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);
	smx_dev_close(d);
}

int main(void)
{
	test_wrapped();
	test_plaintext();
	test_off();
	return smx_test_done();
}
