/* SPDX-License-Identifier: MIT */
/*
 * Crypto mkeys through the public API (mlx5dv_wr_set_mkey_crypto on
 * MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO mkeys), every ciphertext checked
 * against OpenSSL's own AES-XTS (EVP_aes_*_xts, the tweak of data unit i =
 * initial_tweak + i, little-endian as mlx5dv_crypto_attr gives it):
 *   A  encrypt on TX (row A of mlx5dv_wr_set_mkey_crypto(3)): RDMA WRITE
 *      out of a crypto key, three 512-byte data units, a non-zero tweak
 *      whose low byte carries into the next;
 *   F  decrypt on TX (row F) and RX decryption (an RDMA WRITE into an
 *      encrypt-on-TX key stores plaintext from ciphertext);
 *   C  signature before crypto (row C): wire T10-DIF then encryption of
 *      data + DIF in 520-byte data units;
 *   B  signature after crypto (row B): the wire CRC32 covers the ciphertext;
 *   C2 rdma-core's signature + crypto case: 512 wire bytes of a key with a
 *      wire CRC32 are block 0's data, one data unit, both directions;
 *   bad flows: a crypto key used before its crypto properties are set, a
 *      DEK of another PD, a wrong key tag, malformed setters.
 * Runs with SOFTMLX5_CRYPTO_MODE=plaintext (ctest sets it): plaintext DEKs.
 */
#include <openssl/evp.h>

#include "mkey_test_util.h"

#define DU 512u

static uint8_t key256[64];	/* key1 | key2 for AES-256-XTS */

/* OpenSSL's XTS over @n bytes in @du-byte units from tweak @t0 (LE). */
static void ref_xts(const uint8_t *key, size_t key_len, bool enc, const uint8_t t0[16],
		    uint32_t du, const uint8_t *in, uint8_t *out, size_t n)
{
	const EVP_CIPHER *c = key_len == 64 ? EVP_aes_256_xts() : EVP_aes_128_xts();
	size_t off;

	for (off = 0; off < n; off += du) {
		EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
		uint8_t tw[16];
		uint64_t carry = off / du;
		int i, l = 0;

		memcpy(tw, t0, 16);
		for (i = 0; i < 16 && carry; i++) {	/* tw += unit number */
			carry += tw[i];
			tw[i] = (uint8_t)carry;
			carry >>= 8;
		}
		EVP_CipherInit_ex(x, c, NULL, key, tw, enc);
		EVP_CipherUpdate(x, out + off, &l, in + off,
				 (int)(n - off < du ? n - off : du));
		EVP_CIPHER_CTX_free(x);
	}
}

static struct mlx5dv_dek *dek_new(struct ibv_pd *p, const uint8_t *key, bool k256,
				  bool keytag)
{
	struct mlx5dv_dek_init_attr a = {
		.key_size = k256 ? MLX5DV_CRYPTO_KEY_SIZE_256 : MLX5DV_CRYPTO_KEY_SIZE_128,
		.key_purpose = MLX5DV_CRYPTO_KEY_PURPOSE_AES_XTS,
		.has_keytag = keytag,
		.pd = p,
		.comp_mask = MLX5DV_DEK_INIT_ATTR_CRYPTO_LOGIN,
		.crypto_login = NULL,
	};
	struct mlx5dv_dek *d;

	memcpy(a.key, key, k256 ? 64 : 32);
	if (keytag)
		memcpy(a.key + (k256 ? 64 : 32), "TAG-TAG!", 8);
	d = mlx5dv_dek_create(ctx, &a);
	CHECKM(d != NULL, "dek_create: %s", strerror(errno));
	return d;
}

static struct mlx5dv_crypto_attr cattr(struct mlx5dv_dek *d, bool enc_tx, bool sig_before,
				       enum mlx5dv_block_size du, uint8_t tweak0)
{
	struct mlx5dv_crypto_attr a = {
		.crypto_standard = MLX5DV_CRYPTO_STANDARD_AES_XTS,
		.encrypt_on_tx = enc_tx,
		.signature_crypto_order = sig_before ?
			MLX5DV_SIGNATURE_CRYPTO_ORDER_SIGNATURE_BEFORE_CRYPTO_ON_TX :
			MLX5DV_SIGNATURE_CRYPTO_ORDER_SIGNATURE_AFTER_CRYPTO_ON_TX,
		.data_unit_size = du,
		.dek = d,
	};

	a.initial_tweak[0] = (char)tweak0;
	a.initial_tweak[1] = 0x22;
	return a;
}

/* A: encrypt on TX, three data units, tweak low byte 0xff carrying. */
static void test_encrypt_tx(struct mlx5dv_dek *d128, struct mlx5dv_dek *d256)
{
	struct ibv_qp *qp = rc_qp(0);
	struct mlx5dv_mkey *mk = new_mkey(MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO);
	struct ibv_mr *src = mr_new(3 * DU), *dst = mr_new(3 * DU);
	uint8_t want[3 * DU], t0[16] = { 0xff, 0x22 };
	int k;

	if (!qp || !mk || !src || !dst)
		return;
	fill(src->addr, 3 * DU, 9);
	for (k = 0; k < 2; k++) {
		struct mlx5dv_crypto_attr ca = cattr(k ? d256 : d128, true, false,
						     MLX5DV_BLOCK_SIZE_512, 0xff);

		configure_ok("A configure", qp, mk, src, 3 * DU, IBV_ACCESS_LOCAL_WRITE, NULL, &ca);
		memset(dst->addr, 0, 3 * DU);
		rdma_write(qp, mk->lkey, 0, 3 * DU, dst->rkey, (uintptr_t)dst->addr, 1, true);
		expect_ok("A write", IBV_WC_RDMA_WRITE, 1);
		ref_xts(key256, k ? 64 : 32, true, t0, DU, src->addr, want, 3 * DU);
		CHECKM(!memcmp(dst->addr, want, 3 * DU), "A: %s ciphertext differs from "
		       "OpenSSL's (unit 1 starts %02x, want %02x)", k ? "AES-256" : "AES-128",
		       ((uint8_t *)dst->addr)[DU], want[DU]);
	}
	ibv_destroy_qp(qp);
	mlx5dv_destroy_mkey(mk);
	mr_free(src);
	mr_free(dst);
}

/* F: decrypt on TX; and RX through an encrypt-on-TX key decrypts. */
static void test_decrypt(struct mlx5dv_dek *d)
{
	struct ibv_qp *qp = rc_qp(0);
	struct mlx5dv_mkey *mk = new_mkey(MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO);
	struct ibv_mr *mem = mr_new(2 * DU), *plain = mr_new(2 * DU), *ct = mr_new(2 * DU);
	struct mlx5dv_crypto_attr ca = cattr(d, false, false, MLX5DV_BLOCK_SIZE_512, 7);
	uint8_t t0[16] = { 7, 0x22 };

	if (!qp || !mk || !mem || !plain || !ct)
		return;
	fill(plain->addr, 2 * DU, 77);
	ref_xts(key256, 32, true, t0, DU, plain->addr, mem->addr, 2 * DU);
	configure_ok("F configure", qp, mk, mem, 2 * DU, IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_WRITE, NULL, &ca);
	/* memory holds ciphertext: a SEND out of the key carries plaintext */
	post_recv(qp, ct, 2 * DU, 2);
	send1(qp, mk->lkey, 0, 2 * DU, 3, IBV_SEND_SIGNALED);
	expect_send_recv("F send", 3, 2);
	CHECKM(!memcmp(ct->addr, plain->addr, 2 * DU), "F: TX did not decrypt");

	/* the same key as an RDMA WRITE target encrypts what arrives */
	memset(mem->addr, 0, 2 * DU);
	rdma_write(qp, plain->lkey, (uintptr_t)plain->addr, 2 * DU, mk->rkey, 0, 4, true);
	expect_ok("F write in", IBV_WC_RDMA_WRITE, 4);
	ref_xts(key256, 32, true, t0, DU, plain->addr, ct->addr, 2 * DU);
	CHECKM(!memcmp(mem->addr, ct->addr, 2 * DU), "F: RX did not encrypt into memory");
	ibv_destroy_qp(qp);
	mlx5dv_destroy_mkey(mk);
	mr_free(mem);
	mr_free(plain);
	mr_free(ct);
}

static uint16_t ref_crc16_t10dif(uint16_t crc, const uint8_t *p, size_t n)
{
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		crc ^= (uint16_t)(p[i] << 8);
		for (b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (uint16_t)(crc << 1 ^ 0x8bb7) : (uint16_t)(crc << 1);
	}
	return crc;
}

static uint32_t ref_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = ~0u;
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (b = 0; b < 8; b++)
			crc = crc & 1 ? crc >> 1 ^ 0xedb88320u : crc >> 1;
	}
	return ~crc;
}

/* C and B: signature and crypto together, in both orders. */
static void test_sig_and_crypto(struct mlx5dv_dek *d)
{
	const struct mlx5dv_sig_t10dif dif = { .bg_type = MLX5DV_SIG_T10DIF_CRC, .bg = 0,
					       .app_tag = 0x1111, .ref_tag = 5 };
	const struct mlx5dv_sig_crc crc = { .type = MLX5DV_SIG_CRC_TYPE_CRC32,
					    .seed = 0xffffffff };
	struct mlx5dv_sig_block_domain wd = { .sig_type = MLX5DV_SIG_TYPE_T10DIF,
					      .sig.dif = &dif,
					      .block_size = MLX5DV_BLOCK_SIZE_512 };
	struct mlx5dv_sig_block_attr sa = { .wire = &wd };
	struct ibv_qp *qp = rc_qp(0);
	struct mlx5dv_mkey *mk = new_mkey(MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO |
					  MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE);
	struct ibv_mr *src = mr_new(2 * DU), *dst = mr_new(2 * (DU + 8));
	uint8_t plain[2 * (DU + 8)], want[2 * (DU + 8)], t0[16] = { 3, 0x22 };
	struct mlx5dv_crypto_attr ca;
	int k;

	if (!qp || !mk || !src || !dst)
		return;
	fill(src->addr, 2 * DU, 5);

	/* C: data + DIF, encrypted in 520-byte data units */
	ca = cattr(d, true, true, MLX5DV_BLOCK_SIZE_520, 3);
	configure_ok("C configure", qp, mk, src, 2 * DU, IBV_ACCESS_LOCAL_WRITE, &sa, &ca);
	rdma_write(qp, mk->lkey, 0, 2 * (DU + 8), dst->rkey, (uintptr_t)dst->addr, 5, true);
	expect_ok("C write", IBV_WC_RDMA_WRITE, 5);
	for (k = 0; k < 2; k++) {
		const uint8_t *b = (const uint8_t *)src->addr + k * DU;
		uint8_t *p = plain + k * (DU + 8);

		memcpy(p, b, DU);
		p[DU] = (uint8_t)(ref_crc16_t10dif(0, b, DU) >> 8);
		p[DU + 1] = (uint8_t)ref_crc16_t10dif(0, b, DU);
		p[DU + 2] = 0x11;
		p[DU + 3] = 0x11;
		memset(p + DU + 4, 0, 3);
		p[DU + 7] = 5;
	}
	ref_xts(key256, 32, true, t0, DU + 8, plain, want, 2 * (DU + 8));
	CHECKM(!memcmp(dst->addr, want, 2 * (DU + 8)), "C: wire is not enc(data + DIF)");

	/* B: encrypt, then a CRC32 over the ciphertext on the wire */
	wd.sig_type = MLX5DV_SIG_TYPE_CRC;
	wd.sig.crc = &crc;
	ca = cattr(d, true, false, MLX5DV_BLOCK_SIZE_512, 3);
	configure_ok("B configure", qp, mk, src, 2 * DU, IBV_ACCESS_LOCAL_WRITE, &sa, &ca);
	rdma_write(qp, mk->lkey, 0, 2 * (DU + 4), dst->rkey, (uintptr_t)dst->addr, 6, true);
	expect_ok("B write", IBV_WC_RDMA_WRITE, 6);
	ref_xts(key256, 32, true, t0, DU, src->addr, plain, 2 * DU);
	for (k = 0; k < 2; k++) {
		uint8_t *w = want + k * (DU + 4);
		uint32_t c;

		memcpy(w, plain + k * DU, DU);
		c = ref_crc32(w, DU);
		w[DU] = (uint8_t)(c >> 24);
		w[DU + 1] = (uint8_t)(c >> 16);
		w[DU + 2] = (uint8_t)(c >> 8);
		w[DU + 3] = (uint8_t)c;
	}
	CHECKM(!memcmp(dst->addr, want, 2 * (DU + 4)), "B: wire is not enc(data) + CRC");

	/* C2, rdma-core's test_mlx5_crypto_signature_mkey: a wire CRC32 before
	 * crypto in 512-byte units, one block, a 512-byte transfer. The key's
	 * address space is the wire stream, so that is block 0's data without
	 * its CRC: exactly the stream's first data unit, encrypted. */
	ca = cattr(d, true, true, MLX5DV_BLOCK_SIZE_512, 3);
	configure_ok("C2 configure", qp, mk, src, DU,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &sa, &ca);
	memcpy(plain, src->addr, DU);
	memset(dst->addr, 0x5a, 2 * (DU + 8));
	rdma_write(qp, mk->lkey, 0, DU, dst->rkey, (uintptr_t)dst->addr, 7, true);
	expect_ok("C2 write", IBV_WC_RDMA_WRITE, 7);
	ref_xts(key256, 32, true, t0, DU, plain, want, DU);
	CHECKM(!memcmp(dst->addr, want, DU) && ((uint8_t *)dst->addr)[DU] == 0x5a,
	       "C2: 512 wire bytes are not enc(block 0's data)");
	/* and back: that ciphertext written into the key lands as plaintext */
	memset(src->addr, 0, DU);
	rdma_write(qp, dst->lkey, (uintptr_t)dst->addr, DU, mk->rkey, 0, 8, true);
	expect_ok("C2 write back", IBV_WC_RDMA_WRITE, 8);
	CHECKM(!memcmp(src->addr, plain, DU), "C2: RX did not decrypt into memory");
	ibv_destroy_qp(qp);
	mlx5dv_destroy_mkey(mk);
	mr_free(src);
	mr_free(dst);
}

static void test_bad_flows(struct mlx5dv_dek *d, struct mlx5dv_dek *tagged)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct mlx5dv_dek *other = pd2 ? dek_new(pd2, key256, false, false) : NULL;
	struct mlx5dv_mkey *mk = new_mkey(MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO);
	struct ibv_mr *src = mr_new(DU), *dst = mr_new(DU);
	struct mlx5dv_crypto_attr ca;
	struct ibv_qp *qp;

	if (!mk || !src || !dst || !other)
		return;
	memset(dst->addr, 0x5a, DU);

	/* configured with a layout but no crypto properties: refused */
	qp = rc_qp(0);
	configure_ok("bad: layout only", qp, mk, src, DU, IBV_ACCESS_LOCAL_WRITE, NULL, NULL);
	rdma_write(qp, mk->lkey, 0, DU, dst->rkey, (uintptr_t)dst->addr, 7, true);
	expect_err("bad: crypto key without crypto properties", IBV_WC_LOC_PROT_ERR);
	ibv_destroy_qp(qp);
	drain();

	/* a DEK of another PD */
	qp = rc_qp(0);
	ca = cattr(other, true, false, MLX5DV_BLOCK_SIZE_512, 0);
	configure_ok("bad: other pd", qp, mk, src, DU, IBV_ACCESS_LOCAL_WRITE, NULL, &ca);
	rdma_write(qp, mk->lkey, 0, DU, dst->rkey, (uintptr_t)dst->addr, 8, true);
	expect_err("bad: DEK of another PD", IBV_WC_LOC_PROT_ERR);
	ibv_destroy_qp(qp);
	drain();

	/* a key tag that does not match the DEK's */
	qp = rc_qp(0);
	ca = cattr(tagged, true, false, MLX5DV_BLOCK_SIZE_512, 0);
	memcpy(ca.keytag, "WRONGTAG", 8);
	configure_ok("bad: keytag", qp, mk, src, DU, IBV_ACCESS_LOCAL_WRITE, NULL, &ca);
	rdma_write(qp, mk->lkey, 0, DU, dst->rkey, (uintptr_t)dst->addr, 9, true);
	expect_err("bad: wrong key tag", IBV_WC_LOC_PROT_ERR);
	ibv_destroy_qp(qp);
	drain();
	CHECKM(((uint8_t *)dst->addr)[0] == 0x5a, "bad: refused transfers wrote data");

	/* the right tag works */
	qp = rc_qp(0);
	memcpy(ca.keytag, "TAG-TAG!", 8);
	configure_ok("keytag", qp, mk, src, DU, IBV_ACCESS_LOCAL_WRITE, NULL, &ca);
	rdma_write(qp, mk->lkey, 0, DU, dst->rkey, (uintptr_t)dst->addr, 10, true);
	expect_ok("matching key tag", IBV_WC_RDMA_WRITE, 10);

	/* malformed setters: EINVAL at wr_complete */
	ca = cattr(d, true, false, 99, 0);
	CHECKM(configure(qp, mk, src, DU, IBV_ACCESS_LOCAL_WRITE, NULL, &ca) == EINVAL,
	       "data unit size 99");
	ca = cattr(d, true, false, MLX5DV_BLOCK_SIZE_512, 0);
	ca.crypto_standard = 7;
	CHECKM(configure(qp, mk, src, DU, IBV_ACCESS_LOCAL_WRITE, NULL, &ca) == EINVAL,
	       "crypto standard 7");
	ca = cattr(NULL, true, false, MLX5DV_BLOCK_SIZE_512, 0);
	CHECKM(configure(qp, mk, src, DU, IBV_ACCESS_LOCAL_WRITE, NULL, &ca) == EINVAL,
	       "no DEK");
	ibv_destroy_qp(qp);
	drain();
	mlx5dv_destroy_mkey(mk);
	mlx5dv_dek_destroy(other);
	ibv_dealloc_pd(pd2);
	mr_free(src);
	mr_free(dst);
}

int main(void)
{
	struct mlx5dv_dek *d128, *d256, *tagged;
	int i;

	for (i = 0; i < 64; i++)
		key256[i] = (uint8_t)(0x40 + i * 3);
	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!pd || !cq) {
		fprintf(stderr, "pd/cq: %s\n", strerror(errno));
		return 1;
	}
	/* AES-128 uses key1|key2 = the first 32 bytes. */
	d128 = dek_new(pd, key256, false, false);
	d256 = dek_new(pd, key256, true, false);
	tagged = dek_new(pd, key256, false, true);
	if (d128 && d256 && tagged) {
		test_encrypt_tx(d128, d256);
		test_decrypt(d128);
		test_sig_and_crypto(d128);
		test_bad_flows(d128, tagged);
	}
	if (d128)
		mlx5dv_dek_destroy(d128);
	if (d256)
		mlx5dv_dek_destroy(d256);
	if (tagged)
		mlx5dv_dek_destroy(tagged);
	ibv_destroy_cq(cq);
	CHECKM(!ibv_dealloc_pd(pd), "dealloc_pd: %s", strerror(errno));
	ibv_close_device(ctx);
	return smx_test_done();
}
