/* SPDX-License-Identifier: MIT */
/*
 * softmlx5's own sections of a `softmlx5 status` snapshot (eng_status.c):
 * a library of ours running in the process (libflexio: its DPA processes
 * and threads) adds what only it knows. Exported by libmlx5.so.1 under the
 * node SOFTMLX5_PRIVATE_1: softmlx5's libraries call it, no application.
 *
 * smx_status_section(): @fn writes one JSON value (an object or an array)
 * for key @name of every snapshot from now on, called with @arg by the
 * inbox thread outside the device's lock; @fn NULL removes the section.
 * 0, -EEXIST (another section of that name), -ENOSPC (8 at most) or
 * -EINVAL.
 */
#ifndef SMX_DEVICE_STATUS_H
#define SMX_DEVICE_STATUS_H

#include <stdio.h>

int smx_status_section(const char *name, void (*fn)(FILE *f, void *arg),
		       void *arg);

#endif
