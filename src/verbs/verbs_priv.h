/* SPDX-License-Identifier: MIT */
/* Internal declarations shared by the files of libibverbs.so.1. */
#ifndef SMX_VERBS_PRIV_H
#define SMX_VERBS_PRIV_H

#include <errno.h>

#include "verbs/driver.h"

/* Sets errno and returns NULL, for the pointer-returning entry points. */
#define SMX_FAIL_NULL(err)                                                     \
	({                                                                     \
		errno = (err);                                                 \
		(void *)NULL;                                                  \
	})

/* Provider op or EOPNOTSUPP: returns the op pointer, or NULL with errno set. */
#define SMX_OP(ctx, name)                                                      \
	({                                                                     \
		__typeof__(verbs_ops(ctx)->name) op_ = verbs_ops(ctx)->name;   \
		if (!op_)                                                      \
			errno = EOPNOTSUPP;                                    \
		op_;                                                           \
	})

#endif
