/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: the DPA's small C library. DPA code built for the host uses
 * the host's own <stdio.h>.
 */
#ifndef SMX_FLEXIO_LIBC_STDIO_H
#define SMX_FLEXIO_LIBC_STDIO_H
#include <stdio.h>
#endif
