/* SPDX-License-Identifier: MIT */
/* The Internet checksum (RFC 1071): IPv4 headers, UDP / TCP with their
 * pseudo-headers. Sum pieces with smx_csum_add(), then fold. */
#ifndef SMX_UTIL_CSUM_H
#define SMX_UTIL_CSUM_H

#include <stdint.h>

/* One's-complement sum of @len bytes read as big-endian 16-bit words (an
 * odd last byte is the high half of a word), added to @sum, not folded. */
static inline uint32_t smx_csum_add(uint32_t sum, const uint8_t *p,
				    uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static inline uint16_t smx_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

#endif
