/* SPDX-License-Identifier: MIT */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool smx_debug_enabled(void)
{
	/* Read at call time: tests flip it with setenv(). */
	const char *v = getenv("SOFTMLX5_DEBUG");

	return v && *v && strcmp(v, "0") != 0;
}

void smx_log_msg(const char *level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "softmlx5[%d] %s: ", (int)getpid(), level);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", buf);
}
