/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: the DPA's small C library. DPA code built for the host uses
 * the host's own <stdlib.h>.
 */
#ifndef SMX_FLEXIO_LIBC_STDLIB_H
#define SMX_FLEXIO_LIBC_STDLIB_H
#include <stdlib.h>
#endif
