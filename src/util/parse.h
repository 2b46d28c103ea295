/* SPDX-License-Identifier: MIT */
/* Number parsing shared by the configuration and fault-spec parsers. */
#ifndef SMX_UTIL_PARSE_H
#define SMX_UTIL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* @s whole as a decimal number, or hexadecimal after 0x / 0X; no sign, no
 * blanks. False when empty, malformed or above UINT64_MAX. */
bool smx_parse_u64(const char *s, uint64_t *out);

#endif
