/* SPDX-License-Identifier: MIT */
/*
 * Logging for every layer of softmlx5.
 *
 * smx_err()   always printed (to stderr) -- things a user must see.
 * smx_dbg()   printed only when SOFTMLX5_DEBUG is set; every failed firmware
 *             command and every error CQE logs one such line naming the
 *             object, the check and why.
 * smx_stub()  a one-time line for an entry point that is not implemented;
 *             the caller then answers EOPNOTSUPP (see docs/status.md).
 */
#ifndef SMX_UTIL_LOG_H
#define SMX_UTIL_LOG_H

#include <stdbool.h>

bool smx_debug_enabled(void);
void smx_log_msg(const char *level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define smx_err(fmt, ...) smx_log_msg("error", fmt, ##__VA_ARGS__)
#define smx_dbg(fmt, ...)                                                      \
	do {                                                                   \
		if (smx_debug_enabled())                                       \
			smx_log_msg("debug", fmt, ##__VA_ARGS__);              \
	} while (0)

/* Logs "<name> is not implemented" once per call site. */
#define smx_stub(name)                                                         \
	do {                                                                   \
		static int smx_stub_once_;                                     \
		if (!__atomic_exchange_n(&smx_stub_once_, 1, __ATOMIC_RELAXED)) \
			smx_log_msg("stub", "%s is not implemented "           \
				    "(EOPNOTSUPP), see docs/status.md", name); \
	} while (0)

#endif
