/* SPDX-License-Identifier: MIT */
/*
 * AES-XTS for crypto mkeys (see eng_crypto.h for the data-unit and tweak
 * rules). Per data unit: T = AES-enc(key2, tweak block); block j is
 * C = AES(key1, P ^ T_j) ^ T_j with T_{j+1} = T_j * alpha in GF(2^128)
 * (IEEE 1619 little-endian convention); a partial last block takes
 * ciphertext stealing. The AES block operations are OpenSSL ECB calls over
 * whole batches of pre-whitened blocks, so AES-NI does the work.
 */
#include "device/engine/eng_crypto.h"

#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

/* Blocks whitened per ECB call: bounded so the tweaks fit on the stack. */
#define XTS_BATCH 32

struct xts_ctx {
	EVP_CIPHER_CTX *data;	/* key1, encrypt or decrypt */
	EVP_CIPHER_CTX *tweak;	/* key2, always encrypt */
};

static void xor16(uint8_t *d, const uint8_t *a, const uint8_t *b)
{
	for (unsigned int i = 0; i < ENG_XTS_BLOCK; i++)
		d[i] = a[i] ^ b[i];
}

/* T * alpha: shift the little-endian 128-bit value left by one, folding the
 * bit shifted out back in with x^128 = x^7 + x^2 + x + 1 (0x87). No branch
 * on the value. */
static void xts_mul_alpha(uint8_t t[ENG_XTS_BLOCK])
{
	uint8_t carry = t[15] >> 7;

	for (unsigned int i = 15; i > 0; i--)
		t[i] = (uint8_t)(t[i] << 1 | t[i - 1] >> 7);
	t[0] = (uint8_t)(t[0] << 1) ^ (uint8_t)(0x87 & -carry);
}

void eng_xts_tweak_add(const uint8_t tweak_be[ENG_XTS_BLOCK], uint64_t n,
		       uint8_t out_be[ENG_XTS_BLOCK])
{
	unsigned int carry = 0;

	for (int i = ENG_XTS_BLOCK - 1; i >= 0; i--) {
		unsigned int s = tweak_be[i] + (unsigned int)(n & 0xff) + carry;

		out_be[i] = (uint8_t)s;
		carry = s >> 8;
		n >>= 8;
	}
}

/* One ECB pass over @n bytes (whole blocks), in place allowed. */
static int xts_ecb(EVP_CIPHER_CTX *c, uint8_t *out, const uint8_t *in,
		   size_t n)
{
	int outl = 0;

	if (n > (size_t)0x7ffffff0 ||
	    EVP_CipherUpdate(c, out, &outl, in, (int)n) != 1 ||
	    (size_t)outl != n)
		return -EIO;
	return 0;
}

/* @t: T_j; writes the whitened-AES-whitened block @in -> @out. */
static int xts_block(EVP_CIPHER_CTX *c, const uint8_t t[ENG_XTS_BLOCK],
		     const uint8_t *in, uint8_t *out)
{
	uint8_t b[ENG_XTS_BLOCK];

	xor16(b, in, t);
	if (xts_ecb(c, b, b, ENG_XTS_BLOCK))
		return -EIO;
	xor16(out, b, t);
	return 0;
}

/* One data unit of @n >= 16 bytes with tweak block @tw (little-endian). */
static int xts_unit(const struct xts_ctx *x, bool enc,
		    const uint8_t tw[ENG_XTS_BLOCK], const uint8_t *in,
		    uint8_t *out, size_t n)
{
	uint8_t t[ENG_XTS_BLOCK], tws[XTS_BATCH][ENG_XTS_BLOCK];
	size_t full = n / ENG_XTS_BLOCK, rem = n % ENG_XTS_BLOCK;
	size_t bulk = rem ? full - 1 : full, j = 0;

	if (xts_ecb(x->tweak, t, tw, ENG_XTS_BLOCK))
		return -EIO;
	while (j < bulk) {
		size_t k = bulk - j < XTS_BATCH ? bulk - j : XTS_BATCH;
		uint8_t *o = out + j * ENG_XTS_BLOCK;

		for (size_t b = 0; b < k; b++) {
			memcpy(tws[b], t, ENG_XTS_BLOCK);
			xor16(o + b * ENG_XTS_BLOCK,
			      in + (j + b) * ENG_XTS_BLOCK, t);
			xts_mul_alpha(t);
		}
		if (xts_ecb(x->data, o, o, k * ENG_XTS_BLOCK))
			return -EIO;
		for (size_t b = 0; b < k; b++)
			xor16(o + b * ENG_XTS_BLOCK, o + b * ENG_XTS_BLOCK,
			      tws[b]);
		j += k;
	}
	if (rem) {
		/* Ciphertext stealing between block m-1 (full, tweak t) and
		 * the partial block m (tweak t * alpha). Decryption takes
		 * the two tweaks in the opposite order. */
		const uint8_t *pin = in + bulk * ENG_XTS_BLOCK;
		uint8_t *pout = out + bulk * ENG_XTS_BLOCK;
		uint8_t t2[ENG_XTS_BLOCK], head[ENG_XTS_BLOCK],
			last[ENG_XTS_BLOCK];

		memcpy(t2, t, ENG_XTS_BLOCK);
		xts_mul_alpha(t2);
		if (xts_block(x->data, enc ? t : t2, pin, head))
			return -EIO;
		/* The partial input is read before the output overwrites it
		 * (in == out is allowed). */
		memcpy(last, pin + ENG_XTS_BLOCK, rem);
		memcpy(last + rem, head + rem, ENG_XTS_BLOCK - rem);
		memcpy(pout + ENG_XTS_BLOCK, head, rem);
		if (xts_block(x->data, enc ? t2 : t, last, pout))
			return -EIO;
	}
	return 0;
}

static int xts_ctx_init(struct xts_ctx *x, const uint8_t *key, size_t half,
			bool enc)
{
	const EVP_CIPHER *c = half == 16 ? EVP_aes_128_ecb() : EVP_aes_256_ecb();

	x->data = EVP_CIPHER_CTX_new();
	x->tweak = EVP_CIPHER_CTX_new();
	if (!x->data || !x->tweak)
		return -ENOMEM;
	if (EVP_CipherInit_ex(x->data, c, NULL, key, NULL, enc) != 1 ||
	    EVP_CipherInit_ex(x->tweak, c, NULL, key + half, NULL, 1) != 1 ||
	    EVP_CIPHER_CTX_set_padding(x->data, 0) != 1 ||
	    EVP_CIPHER_CTX_set_padding(x->tweak, 0) != 1)
		return -EIO;
	return 0;
}

int eng_xts_crypt(const uint8_t *key, size_t key_len, bool encrypt,
		  const uint8_t tweak_be[ENG_XTS_BLOCK], uint64_t first_du,
		  uint32_t du_size, const uint8_t *in, uint8_t *out, size_t len)
{
	struct xts_ctx x = { NULL, NULL };
	uint8_t cur[ENG_XTS_BLOCK];
	size_t off = 0;
	int ret;

	if (!key || (key_len != 32 && key_len != 64) || !tweak_be ||
	    du_size < ENG_XTS_BLOCK || (len && (!in || !out)))
		return -EINVAL;
	if (len % du_size && len % du_size < ENG_XTS_BLOCK)
		return -EINVAL;
	if (!len)
		return 0;
	ret = xts_ctx_init(&x, key, key_len / 2, encrypt);
	eng_xts_tweak_add(tweak_be, first_du, cur);
	while (!ret && off < len) {
		size_t n = len - off < du_size ? len - off : du_size;
		uint8_t tw[ENG_XTS_BLOCK];

		/* The tweak block is the data unit number little-endian. */
		for (unsigned int i = 0; i < ENG_XTS_BLOCK; i++)
			tw[i] = cur[ENG_XTS_BLOCK - 1 - i];
		ret = xts_unit(&x, encrypt, tw, in + off, out + off, n);
		eng_xts_tweak_add(cur, 1, cur);
		off += n;
	}
	EVP_CIPHER_CTX_free(x.data);
	EVP_CIPHER_CTX_free(x.tweak);
	return ret;
}
