/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: byte-order helpers for DPA code. The DPA is little-endian
 * like the hosts softmlx5 runs on; queue elements are big-endian.
 */
#ifndef _FLEXIO_DEV_ENDIANITY_H_
#define _FLEXIO_DEV_ENDIANITY_H_

#include <stdint.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "softmlx5 FlexIO device code assumes a little-endian host"
#endif

#define cpu_to_be16(x) __builtin_bswap16((uint16_t)(x))
#define be16_to_cpu(x) __builtin_bswap16((uint16_t)(x))
#define cpu_to_be32(x) __builtin_bswap32((uint32_t)(x))
#define be32_to_cpu(x) __builtin_bswap32((uint32_t)(x))
#define cpu_to_be64(x) __builtin_bswap64((uint64_t)(x))
#define be64_to_cpu(x) __builtin_bswap64((uint64_t)(x))
#define cpu_to_le16(x) ((uint16_t)(x))
#define le16_to_cpu(x) ((uint16_t)(x))
#define cpu_to_le32(x) ((uint32_t)(x))
#define le32_to_cpu(x) ((uint32_t)(x))
#define cpu_to_le64(x) ((uint64_t)(x))
#define le64_to_cpu(x) ((uint64_t)(x))

#endif
