/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: the DPA's small C library. DPA code built for the host uses
 * the host's own <string.h>.
 */
#ifndef SMX_FLEXIO_LIBC_STRING_H
#define SMX_FLEXIO_LIBC_STRING_H
#include <string.h>
#endif
