/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: the DPA's small C library. DPA code built for the host uses
 * the host's own <inttypes.h>.
 */
#ifndef SMX_FLEXIO_LIBC_INTTYPES_H
#define SMX_FLEXIO_LIBC_INTTYPES_H
#include <inttypes.h>
#endif
