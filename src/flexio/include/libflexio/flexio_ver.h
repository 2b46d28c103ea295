/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: API version numbers. A version is packed as
 * major << 24 | minor << 16 | sub, so versions compare as integers.
 * Host code of the 25.x style defines FLEXIO_VER_USED before including
 * <libflexio/flexio.h> and passes it to flexio_version_set().
 */
#ifndef _FLEXIO_VER_H_
#define _FLEXIO_VER_H_

/* plain integer arithmetic: usable in #if */
#define FLEXIO_VER(major, minor, sub)                                          \
	((((major) & 0xffUL) << 24) | (((minor) & 0xffUL) << 16) | ((sub) & 0xffffUL))

/* Newest version this library implements, and "whatever is newest". */
#define FLEXIO_CURRENT_VERSION FLEXIO_VER(25, 1, 0)
#define FLEXIO_VER_LATEST FLEXIO_VER(0xff, 0xff, 0xffff)
/* Oldest version whose API this library still answers to (24.01). */
#define FLEXIO_LAST_SUPPORTED_VERSION FLEXIO_VER(24, 1, 0)

#endif
