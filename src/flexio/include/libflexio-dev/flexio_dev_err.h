/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: errors raised by DPA code.
 *
 * A fatal error stops the process; the host sees it through
 * flexio_err_status_get() / flexio_err_handler_fd(). Process status values:
 * 0 running fine, 1..63 DPA OS / firmware, 64..127 SDK (0x40: the process
 * called flexio_dev_process_finish), 128..255 user codes given to
 * flexio_dev_error().
 * Each thread also has a recoverable errno that SDK calls may set.
 */
#ifndef _FLEXIO_DEV_ERR_H_
#define _FLEXIO_DEV_ERR_H_

#include <stdint.h>

#include <libflexio-dev/flexio_dev.h>

#define FLEXIO_DEV_ERROR_USER_FIRST 0x80
/* What flexio_dev_error() reports when given a code below 0x80. */
#define FLEXIO_DEV_ERROR_ILLEGAL_ERR 0x42
/* Process status after flexio_dev_process_finish(). */
#define FLEXIO_DEV_PROCESS_FINISHED 0x40

/* Recoverable thread errno values set by the runtime. */
enum flexio_dev_errno {
	FLEXIO_DEV_ERRNO_OK = 0,
	FLEXIO_DEV_ERRNO_BAD_ARG = 1,	/* an argument was out of range */
	FLEXIO_DEV_ERRNO_NO_STREAM = 2,	/* message to a stream that does not exist */
	FLEXIO_DEV_ERRNO_WINDOW = 3,	/* window access outside its mkey */
};

/* Stop the process with user error @error (0x80..0xff). Does not return. */
void flexio_dev_error(uint8_t error) __attribute__((noreturn));
uint64_t flexio_dev_get_errno(struct flexio_dev_thread_ctx *dtctx);
void flexio_dev_rst_errno(struct flexio_dev_thread_ctx *dtctx);
uint64_t flexio_dev_get_and_rst_errno(struct flexio_dev_thread_ctx *dtctx);

#endif
