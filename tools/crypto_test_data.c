/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 crypto-test-data: the JSON file rdma-core's test_mlx5_crypto
 * reads from $MLX5_CRYPTO_TEST_INFO, for this device's configured import
 * KEK and credential (man 7 softmlx5, crypto_*):
 *
 *   credential                 the credential wrapped by the KEK (6 x u64 BE)
 *   wrapped_key                XTS-128 key1|key2 wrapped (5 x u64 BE)
 *   wrapped_256_bits_key       XTS-256 key1|key2 wrapped (9 x u64 BE)
 *   plaintext_key              the XTS-128 key (8 x u32, host order)
 *   plaintext_256_bits_key     the XTS-256 key (16 x u32, host order)
 *   encrypted_data_for_512_c   AES-XTS-128 of 512 'c' bytes, one 512-byte
 *                              data unit, tweak 0 (64 x u64 BE)
 *   encrypted_data_for_1024_c  the same over 1024 bytes: data units 0 and 1
 *                              (128 x u64 BE)
 * plus credential_id / import_kek_id / softmlx5_crypto_mode for people
 * (the test ignores keys it does not know). The packing is the one the test
 * unpacks with struct.pack ('!NQ' and native 'NI').
 *
 * Everything is computed here with OpenSSL's own key wrap and XTS mode, not
 * with the device's code, so a test that passes checks the device against an
 * independent computation. The data keys are IEEE P1619's test keys (digits
 * of e and pi), fixed: this is test data, not a key store.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "device/config.h"
#include "crypto_test_data.h"

/* key1 | key2 of IEEE P1619 vectors 4 (128-bit) and 10 (256-bit). */
static const char key128_hex[] =
	"27182818284590452353602874713526"
	"31415926535897932384626433832795";
static const char key256_hex[] =
	"2718281828459045235360287471352662497757247093699959574966967627"
	"3141592653589793238462643383279502884197169399375105820974944592";

static void from_hex(const char *h, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int v = 0;

		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

/* RFC 3394 wrap with the default IV: @n bytes -> @n + 8. */
static bool wrap(const struct smx_secret *kek, const uint8_t *in, size_t n,
		 uint8_t *out)
{
	static const uint8_t iv[8] = { 0xa6, 0xa6, 0xa6, 0xa6,
				       0xa6, 0xa6, 0xa6, 0xa6 };
	const EVP_CIPHER *c = kek->len == 16 ? EVP_aes_128_wrap() :
			      kek->len == 24 ? EVP_aes_192_wrap() :
					       EVP_aes_256_wrap();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int a = 0, b = 0;
	bool ok;

	if (!ctx)
		return false;
	EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
	ok = EVP_EncryptInit_ex(ctx, c, NULL, kek->bytes, iv) == 1 &&
	     EVP_EncryptUpdate(ctx, out, &a, in, (int)n) == 1 &&
	     EVP_EncryptFinal_ex(ctx, out + a, &b) == 1 &&
	     (size_t)(a + b) == n + 8;
	EVP_CIPHER_CTX_free(ctx);
	return ok;
}

/* AES-XTS-128 of @n bytes in @du-byte data units numbered from 0: the
 * tweak of unit i is i, little-endian (IEEE 1619). */
static bool xts_encrypt(const uint8_t key[32], const uint8_t *in, size_t n,
			size_t du, uint8_t *out)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	bool ok = ctx != NULL;

	for (size_t off = 0, i = 0; ok && off < n; off += du, i++) {
		uint8_t tweak[16] = { 0 };
		int len = 0;

		for (unsigned int b = 0; b < 8; b++)
			tweak[b] = (uint8_t)((uint64_t)i >> (8 * b));
		ok = EVP_EncryptInit_ex(ctx, EVP_aes_128_xts(), NULL, key,
					tweak) == 1 &&
		     EVP_EncryptUpdate(ctx, out + off, &len, in + off,
				       (int)du) == 1 &&
		     (size_t)len == du;
	}
	EVP_CIPHER_CTX_free(ctx);
	return ok;
}

static void print_be64(const char *name, const uint8_t *b, size_t n, bool last)
{
	printf("  \"%s\": [", name);
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = 0;

		for (unsigned int k = 0; k < 8; k++)
			v = v << 8 | b[i + k];
		printf("%s%llu", i ? ", " : "", (unsigned long long)v);
	}
	printf("]%s\n", last ? "" : ",");
}

static void print_u32(const char *name, const uint8_t *b, size_t n)
{
	printf("  \"%s\": [", name);
	for (size_t i = 0; i < n; i += 4) {
		uint32_t v;

		memcpy(&v, b + i, 4);	/* struct.pack('I'): host order */
		printf("%s%u", i ? ", " : "", v);
	}
	printf("],\n");
}

int cmd_crypto_test_data(int argc, char **argv)
{
	uint8_t k128[32], k256[64], w128[40], w256[72], wcred[48];
	uint8_t plain[1024], ct512[512], ct1024[1024];
	struct smx_config c;
	const char *mode;

	if (argc > 0) {
		fprintf(stderr, "softmlx5 crypto-test-data: unexpected argument "
			"'%s'\n", argv[0]);
		return 2;
	}
	if (smx_config_load(&c) != 0) {
		fprintf(stderr, "softmlx5 crypto-test-data: the configuration "
			"is invalid (see the error above)\n");
		return 1;
	}
	if (c.crypto_mode == SMX_CRYPTO_OFF) {
		fprintf(stderr, "softmlx5 crypto-test-data: crypto_mode is off: "
			"the device has no crypto engine to test\n");
		return 1;
	}
	mode = c.crypto_mode == SMX_CRYPTO_WRAPPED ? "wrapped" : "plaintext";
	from_hex(key128_hex, k128, sizeof(k128));
	from_hex(key256_hex, k256, sizeof(k256));
	memset(plain, 'c', sizeof(plain));
	if (!wrap(&c.crypto_import_kek, c.crypto_credential.bytes,
		  c.crypto_credential.len, wcred) ||
	    !wrap(&c.crypto_import_kek, k128, sizeof(k128), w128) ||
	    !wrap(&c.crypto_import_kek, k256, sizeof(k256), w256) ||
	    !xts_encrypt(k128, plain, 512, 512, ct512) ||
	    !xts_encrypt(k128, plain, 1024, 512, ct1024)) {
		fprintf(stderr, "softmlx5 crypto-test-data: libcrypto failed\n");
		return 1;
	}

	printf("[{\n");
	printf("  \"softmlx5_crypto_mode\": \"%s\",\n", mode);
	printf("  \"credential_id\": %u,\n", c.crypto_credential_id);
	printf("  \"import_kek_id\": %u,\n", c.crypto_import_kek_id);
	print_be64("credential", wcred, sizeof(wcred), false);
	print_be64("wrapped_key", w128, sizeof(w128), false);
	print_be64("wrapped_256_bits_key", w256, sizeof(w256), false);
	print_u32("plaintext_key", k128, sizeof(k128));
	print_u32("plaintext_256_bits_key", k256, sizeof(k256));
	print_be64("encrypted_data_for_512_c", ct512, sizeof(ct512), false);
	print_be64("encrypted_data_for_1024_c", ct1024, sizeof(ct1024), true);
	printf("}]\n");
	return 0;
}
