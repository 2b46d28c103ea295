/* SPDX-License-Identifier: MIT */
/*
 * The device's crypto primitives against independent references:
 *  - eng_xts_crypt() (engine/eng_crypto.c, our XTS mode over AES blocks)
 *    against IEEE P1619 known answers and against OpenSSL's own XTS mode
 *    run data unit by data unit with tweaks this test computes itself
 *    (128-bit arithmetic), for one and many data units, every mlx5 data
 *    unit size, partial last units, tweak carries and wrap-around;
 *  - fw_crypto_unwrap() against the RFC 3394 section 4 vectors;
 *  - the power-up self-test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "device/engine/eng_crypto.h"
#include "device/fw/fw.h"
#include "smx_test.h"

typedef unsigned __int128 u128;

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (h[0] && h[1] && n < cap) {
		unsigned int v;

		if (h[0] == ' ') {
			h++;
			continue;
		}
		if (sscanf(h, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

static void be128(u128 v, uint8_t out[16])
{
	for (int i = 15; i >= 0; i--, v >>= 8)
		out[i] = (uint8_t)v;
}

static void le128(u128 v, uint8_t out[16])
{
	for (int i = 0; i < 16; i++, v >>= 8)
		out[i] = (uint8_t)v;
}

static u128 from_be(const uint8_t b[16])
{
	u128 v = 0;

	for (int i = 0; i < 16; i++)
		v = v << 8 | b[i];
	return v;
}

/* The reference: OpenSSL's XTS mode per data unit, tweak = T0 + i as a
 * little-endian block (IEEE 1619 data unit number). */
static int ref_xts(const uint8_t *key, size_t key_len, int enc, u128 t0,
		   uint32_t du, const uint8_t *in, uint8_t *out, size_t len)
{
	const EVP_CIPHER *c = key_len == 32 ? EVP_aes_128_xts() :
					      EVP_aes_256_xts();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int ok = ctx != NULL;
	u128 t = t0;

	for (size_t off = 0; ok && off < len; off += du, t++) {
		size_t n = len - off < du ? len - off : du;
		uint8_t iv[16];
		int outl = 0;

		le128(t, iv);
		ok = EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc) == 1 &&
		     EVP_CipherUpdate(ctx, out + off, &outl, in + off,
				      (int)n) == 1 &&
		     (size_t)outl == n;
	}
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

/* IEEE P1619 known answers (key1|key2, data unit number, PTX, CTX). */
static const struct {
	const char *key;
	u128 seq;
	const char *pt, *ct;
} ieee[] = {
	{ "0000000000000000000000000000000000000000000000000000000000000000",
	  0,
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e" },
	{ "1111111111111111111111111111111122222222222222222222222222222222",
	  0x3333333333,
	  "4444444444444444444444444444444444444444444444444444444444444444",
	  "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0" },
	/* partial last blocks: ciphertext stealing */
	{ "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
	  0x123456789a, "000102030405060708090a0b0c0d0e0f10",
	  "6c1625db4671522d3d7599601de7ca09ed" },
	{ "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
	  0x123456789a,
	  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
	  "d05bc090a8e04f1b3d3ecdd5baec0fd4edbf9dace45d6f6a7306e64be5dd82" },
};

static void test_ieee(void)
{
	for (size_t v = 0; v < sizeof(ieee) / sizeof(ieee[0]); v++) {
		uint8_t key[64], pt[64], ct[64], out[64], tw[16];
		size_t kl = unhex(ieee[v].key, key, sizeof(key));
		size_t n = unhex(ieee[v].pt, pt, sizeof(pt));

		unhex(ieee[v].ct, ct, sizeof(ct));
		be128(ieee[v].seq, tw);
		CHECK_EQ(eng_xts_crypt(key, kl, true, tw, 0, 512, pt, out, n), 0);
		CHECKM(!memcmp(out, ct, n), "IEEE vector %zu encrypt", v);
		CHECK_EQ(eng_xts_crypt(key, kl, false, tw, 0, 512, ct, out, n), 0);
		CHECKM(!memcmp(out, pt, n), "IEEE vector %zu decrypt", v);
		/* The same unit as the second of a buffer starting one unit
		 * earlier: first_du moves the tweak. */
		be128(ieee[v].seq - 1, tw);
		CHECK_EQ(eng_xts_crypt(key, kl, true, tw, 1, 512, pt, out, n), 0);
		CHECKM(!memcmp(out, ct, n), "IEEE vector %zu with first_du", v);
	}
}

/* 512 bytes, one data unit, data unit number 0xa987654321 (IEEE P1619). */
static void test_ieee_512(void)
{
	static const char ct_hex[] =
		"38b45812ef43a05bd957e545907e223b954ab4aaf088303ad910eadf14b42be6"
		"8b2461149d8c8ba85f992be970bc621f1b06573f63e867bf5875acafa04e42cc"
		"bd7bd3c2a0fb1fff791ec5ec36c66ae4ac1e806d81fbf709dbe29e471fad3854"
		"9c8e66f5345d7c1eb94f405d1ec785cc6f6a68f6254dd8339f9d84057e01a177"
		"41990482999516b5611a38f41bb6478e6f173f320805dd71b1932fc333cb9ee3"
		"9936beea9ad96fa10fb4112b901734ddad40bc1878995f8e11aee7d141a2f5d4"
		"8b7a4e1e7f0b2c04830e69a4fd1378411c2f287edf48c6c4e5c247a19680f7fe"
		"41cefbd49b582106e3616cbbe4dfb2344b2ae9519391f3e0fb4922254b1d6d2d"
		"19c6d4d537b3a26f3bcc51588b32f3eca0829b6a5ac72578fb814fb43cf80d64"
		"a233e3f997a3f02683342f2b33d25b492536b93becb2f5e1a8b82f5b88334272"
		"9e8ae09d16938841a21a97fb543eea3bbff59f13c1a18449e398701c1ad51648"
		"346cbc04c27bb2da3b93a1372ccae548fb53bee476f9e9c91773b1bb19828394"
		"d55d3e1a20ed69113a860b6829ffa847224604435070221b257e8dff783615d2"
		"cae4803a93aa4334ab482a0afac9c0aeda70b45a481df5dec5df8cc0f423c77a"
		"5fd46cd312021d4b438862419a791be03bb4d97c0e59578542531ba466a83baf"
		"92cefc151b5cc1611a167893819b63fb8a6b18e86de60290fa72b797b0ce59f3";
	uint8_t key[32], pt[512], ct[512], buf[512], tw[16];

	unhex("e0e1e2e3e4e5e6e7e8e9eaebecedeeefc0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
	      key, sizeof(key));
	unhex(ct_hex, ct, sizeof(ct));
	for (int i = 0; i < 512; i++)
		pt[i] = (uint8_t)i;
	be128(0xa987654321, tw);
	/* in place, both ways */
	memcpy(buf, pt, sizeof(buf));
	CHECK_EQ(eng_xts_crypt(key, 32, true, tw, 0, 512, buf, buf, 512), 0);
	CHECK(!memcmp(buf, ct, 512));
	CHECK_EQ(eng_xts_crypt(key, 32, false, tw, 0, 512, buf, buf, 512), 0);
	CHECK(!memcmp(buf, pt, 512));
}

/* Many data units against OpenSSL, every mlx5 data unit size, both key
 * sizes, tweaks that carry across 64 bits and wrap at 2^128. */
static void test_multi_unit(void)
{
	static const uint32_t dus[] = { 512, 520, 4048, 4096, 4160 };
	const u128 ones = ~(u128)0;
	const u128 tweaks[] = { 0, 0x123456789a, (u128)UINT64_MAX - 1,
				ones - 1, ((u128)0x0102030405060708 << 64) |
				0x090a0b0c0d0e0f10 };
	size_t max = 4160 * 3 + 100;
	uint8_t *pt = malloc(max), *out = malloc(max), *ref = malloc(max);
	uint8_t key[64];
	unsigned int cases = 0, bad = 0;

	RAND_bytes(pt, (int)max);
	for (int ks = 0; ks < 2; ks++) {
		size_t kl = ks ? 64 : 32;

		RAND_bytes(key, (int)kl);
		for (size_t d = 0; d < sizeof(dus) / sizeof(dus[0]); d++) {
			uint32_t du = dus[d];
			/* 1 unit, 3 units, 2 units + a partial one (whole
			 * blocks, then not), the shortest last unit */
			const size_t lens[] = { du, 3 * (size_t)du,
						2 * (size_t)du + 48,
						2 * (size_t)du + 100,
						(size_t)du + 16 };

			for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]);
			     l++) {
				for (size_t t = 0;
				     t < sizeof(tweaks) / sizeof(tweaks[0]);
				     t++) {
					uint8_t tw[16];
					size_t n = lens[l];
					int r1, r2;

					be128(tweaks[t], tw);
					r1 = eng_xts_crypt(key, kl, true, tw, 0,
							   du, pt, out, n);
					r2 = ref_xts(key, kl, 1, tweaks[t], du,
						     pt, ref, n);
					cases++;
					if (r1 || r2 || memcmp(out, ref, n)) {
						bad++;
						fprintf(stderr, "    encrypt "
							"key %zu du %u len %zu "
							"tweak #%zu: r %d/%d\n",
							kl * 4, du, n, t, r1,
							r2);
						continue;
					}
					r1 = eng_xts_crypt(key, kl, false, tw,
							   0, du, ref, out, n);
					if (r1 || memcmp(out, pt, n)) {
						bad++;
						fprintf(stderr, "    decrypt "
							"key %zu du %u len %zu "
							"tweak #%zu\n", kl * 4,
							du, n, t);
					}
				}
			}
		}
	}
	CHECKM(bad == 0, "%u of %u cases differ from OpenSSL", bad, cases);
	CHECK(cases == 2 * 5 * 5 * 5);
	free(pt);
	free(out);
	free(ref);
}

/* Data unit i takes tweak T0 + i in that order: the units of a buffer are
 * not interchangeable, and each equals the single unit with its own tweak. */
static void test_tweak_order(void)
{
	uint8_t key[32], pt[4 * 512], ct[4 * 512], one[512], tw[16], tw_i[16];
	u128 t0 = ((u128)0xfedcba98 << 64) | UINT64_MAX;	/* carries at unit 1 */

	RAND_bytes(key, sizeof(key));
	memset(pt, 'c', sizeof(pt));	/* identical units */
	be128(t0, tw);
	CHECK_EQ(eng_xts_crypt(key, 32, true, tw, 0, 512, pt, ct, sizeof(pt)),
		 0);
	for (unsigned int i = 0; i < 4; i++) {
		uint8_t ref[512];

		ref_xts(key, 32, 1, t0 + i, 512, pt, ref, 512);
		CHECKM(!memcmp(ct + 512 * i, ref, 512), "unit %u: tweak T0+%u",
		       i, i);
		if (i)
			CHECKM(memcmp(ct + 512 * i, ct + 512 * (i - 1), 512),
			       "units %u and %u encrypt alike", i - 1, i);
		eng_xts_tweak_add(tw, i, tw_i);
		CHECK(from_be(tw_i) == t0 + i);
		CHECK_EQ(eng_xts_crypt(key, 32, true, tw_i, 0, 512, pt, one,
				       512), 0);
		CHECK(!memcmp(one, ct + 512 * i, 512));
		CHECK_EQ(eng_xts_crypt(key, 32, true, tw, i, 512, pt, one, 512),
			 0);
		CHECK(!memcmp(one, ct + 512 * i, 512));
	}
	/* The tweak is big-endian in the BSF: the same value read
	 * little-endian is another tweak altogether. */
	{
		uint8_t swapped[16], other[512];

		for (int i = 0; i < 16; i++)
			swapped[i] = tw[15 - i];
		eng_xts_crypt(key, 32, true, swapped, 0, 512, pt, other, 512);
		CHECK(memcmp(other, ct, 512));
	}
	/* 2^128 - 1 + 1 wraps to 0 */
	memset(tw, 0xff, sizeof(tw));
	eng_xts_tweak_add(tw, 1, tw_i);
	CHECK(from_be(tw_i) == 0);
}

static void test_bad_sizes(void)
{
	uint8_t key[64] = { 1 }, tw[16] = { 0 }, in[1024] = { 0 }, out[1024];

	memset(out, 0x5a, sizeof(out));
	CHECK_EQ(eng_xts_crypt(key, 40, true, tw, 0, 512, in, out, 512), -EINVAL);
	CHECK_EQ(eng_xts_crypt(key, 32, true, tw, 0, 8, in, out, 512), -EINVAL);
	CHECK_EQ(eng_xts_crypt(key, 32, true, tw, 0, 512, in, out, 15), -EINVAL);
	/* a last data unit of 8 bytes: XTS cannot, nothing is written */
	CHECK_EQ(eng_xts_crypt(key, 32, true, tw, 0, 512, in, out, 520), -EINVAL);
	CHECK(out[0] == 0x5a && out[519] == 0x5a);
	CHECK_EQ(eng_xts_crypt(key, 32, true, tw, 0, 512, in, out, 0), 0);
	CHECK_EQ(eng_xts_crypt(key, 32, true, NULL, 0, 512, in, out, 16), -EINVAL);
	CHECK_EQ(eng_xts_crypt(key, 32, true, tw, 0, 512, NULL, out, 16), -EINVAL);
}

/* RFC 3394 section 4: KEK, key data, ciphertext. */
static const struct {
	const char *kek, *key, *wrapped;
} rfc3394[] = {
	{ "000102030405060708090A0B0C0D0E0F", "00112233445566778899AABBCCDDEEFF",
	  "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5" },
	{ "000102030405060708090A0B0C0D0E0F1011121314151617",
	  "00112233445566778899AABBCCDDEEFF",
	  "96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D" },
	{ "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
	  "00112233445566778899AABBCCDDEEFF",
	  "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7" },
	{ "000102030405060708090A0B0C0D0E0F1011121314151617",
	  "00112233445566778899AABBCCDDEEFF0001020304050607",
	  "031D33264E15D33268F24EC260743EDCE1C6C7DDEE725A936BA814915C6762D2" },
	{ "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
	  "00112233445566778899AABBCCDDEEFF0001020304050607",
	  "A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1" },
	{ "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
	  "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F",
	  "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21" },
};

static void test_unwrap(void)
{
	for (size_t v = 0; v < sizeof(rfc3394) / sizeof(rfc3394[0]); v++) {
		uint8_t kek[32], key[32], w[40], out[40];
		size_t kl = unhex(rfc3394[v].kek, kek, sizeof(kek));
		size_t n = unhex(rfc3394[v].key, key, sizeof(key));
		size_t wl = unhex(rfc3394[v].wrapped, w, sizeof(w));

		CHECK_EQ(wl, n + 8);
		CHECK_EQ(fw_crypto_unwrap(kek, kl, w, wl, out), 0);
		CHECKM(!memcmp(out, key, n), "RFC 3394 4.%zu", v + 1);
		/* one flipped bit anywhere fails the integrity check */
		w[wl / 2] ^= 0x10;
		memset(out, 0x77, sizeof(out));
		CHECK_EQ(fw_crypto_unwrap(kek, kl, w, wl, out), -EBADMSG);
		CHECK(out[0] == 0 && out[n - 1] == 0);	/* cleared */
		w[wl / 2] ^= 0x10;
		/* another KEK */
		kek[0] ^= 1;
		CHECK_EQ(fw_crypto_unwrap(kek, kl, w, wl, out), -EBADMSG);
	}
	{
		uint8_t kek[32] = { 0 }, in[64] = { 0 }, out[64];

		CHECK_EQ(fw_crypto_unwrap(kek, 20, in, 24, out), -EINVAL);
		CHECK_EQ(fw_crypto_unwrap(kek, 16, in, 16, out), -EINVAL);
		CHECK_EQ(fw_crypto_unwrap(kek, 16, in, 25, out), -EINVAL);
		CHECK_EQ(fw_crypto_unwrap(kek, 16, NULL, 24, out), -EINVAL);
	}
}

int main(void)
{
	test_ieee();
	test_ieee_512();
	test_multi_unit();
	test_tweak_order();
	test_bad_sizes();
	test_unwrap();
	CHECK_EQ(fw_crypto_selftest(), 0);
	return smx_test_done();
}
