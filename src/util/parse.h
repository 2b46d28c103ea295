/* SPDX-License-Identifier: MIT */
/* Number parsing shared by the configuration and fault-spec parsers. */
#ifndef SMX_UTIL_PARSE_H
#define SMX_UTIL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* @s whole as a decimal number, or hexadecimal after 0x / 0X; no sign, no
 * blanks. False when empty, malformed or above UINT64_MAX. */
bool smx_parse_u64(const char *s, uint64_t *out);

/* The value of hexadecimal digit @c (either case), or -1. */
static inline int smx_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
