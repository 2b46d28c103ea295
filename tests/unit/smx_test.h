/* SPDX-License-Identifier: MIT */
/*
 * A tiny assert harness for softmlx5's C unit tests. CHECK() records and
 * continues; smx_test_done() prints "N passed, N failed" and gives the exit
 * status (non-zero on any failure).
 */
#ifndef SMX_TEST_H
#define SMX_TEST_H

#include <stdio.h>
#include <stdlib.h>

static unsigned int smx_test_passed, smx_test_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			smx_test_passed++;                                     \
		} else {                                                       \
			smx_test_failed++;                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		unsigned long long a_ = (unsigned long long)(a);               \
		unsigned long long b_ = (unsigned long long)(b);               \
		if (a_ == b_) {                                                \
			smx_test_passed++;                                     \
		} else {                                                       \
			smx_test_failed++;                                     \
			fprintf(stderr,                                        \
				"%s:%d: CHECK_EQ failed: %s = 0x%llx, "        \
				"%s = 0x%llx\n", __FILE__, __LINE__, #a, a_,   \
				#b, b_);                                       \
		}                                                              \
	} while (0)

/* CHECK with a printf-style explanation printed when it fails. */
#define CHECKM(cond, ...)                                                      \
	do {                                                                   \
		int ok_ = !!(cond);                                            \
		CHECK(ok_);                                                    \
		if (!ok_) {                                                    \
			fprintf(stderr, "    %s: ", #cond);                    \
			fprintf(stderr, __VA_ARGS__);                          \
			fprintf(stderr, "\n");                                 \
		}                                                              \
	} while (0)

static inline int smx_test_done(void)
{
	printf("%u passed, %u failed\n", smx_test_passed, smx_test_failed);
	return smx_test_failed ? 1 : 0;
}

#endif
