/* SPDX-License-Identifier: MIT */
/*
 * The crypto engine's AES-XTS (IEEE 1619), as an mlx5 crypto mkey applies it
 * to the bytes it covers: the data are cut into data units of du_size bytes
 * from the start, and data unit i is en/decrypted with tweak T0 + i, where T0
 * is the initial tweak the crypto BSF carries.
 *
 * Tweak format: this device advertises aes_xts_multi_block_be_tweak, so the
 * BSF holds T0 as a big-endian 128-bit number (rdma-core reverses the
 * application's mlx5dv_crypto_attr.initial_tweak into it). The tweak block
 * AES-XTS encrypts with key2 is that number little-endian, i.e. the IEEE 1619
 * "data unit sequence number" encoding: initial_tweak as the application
 * wrote it, for data unit 0.
 *
 * The key is a DEK's: key1 (data) followed by key2 (tweak), 16 + 16 bytes
 * (AES-128) or 32 + 32 (AES-256). Both halves may be equal here; the
 * firmware refuses such DEKs at creation.
 *
 * The mode is computed here on top of AES-ECB blocks from OpenSSL's libcrypto
 * (Debian 12 packages no ISA-L crypto), so tests can hold it against
 * OpenSSL's own XTS mode and the IEEE vectors as independent references.
 */
#ifndef SMX_DEVICE_ENGINE_ENG_CRYPTO_H
#define SMX_DEVICE_ENGINE_ENG_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of one AES-XTS tweak / block. */
#define ENG_XTS_BLOCK 16

/*
 * En/decrypts @len bytes from @in to @out (they may be the same buffer, not
 * otherwise overlapping). @key: @key_len bytes, 32 or 64 (key1 | key2).
 * @tweak_be: T0, big-endian. @first_du: index of the data unit @in starts
 * at (added to T0; 0 when @in starts where the mkey does). @du_size: data
 * unit bytes, at least 16. The last data unit may be shorter than @du_size
 * (ciphertext stealing covers a partial last block) but not shorter than 16
 * bytes: XTS has no answer for that.
 * Returns 0, -EINVAL for sizes XTS cannot process (nothing written then),
 * -ENOMEM / -EIO when libcrypto fails.
 */
int eng_xts_crypt(const uint8_t *key, size_t key_len, bool encrypt,
		  const uint8_t tweak_be[ENG_XTS_BLOCK], uint64_t first_du,
		  uint32_t du_size, const uint8_t *in, uint8_t *out, size_t len);

/* T0 + @n (mod 2^128), big-endian in and out: the tweak of data unit @n. */
void eng_xts_tweak_add(const uint8_t tweak_be[ENG_XTS_BLOCK], uint64_t n,
		       uint8_t out_be[ENG_XTS_BLOCK]);

#endif
