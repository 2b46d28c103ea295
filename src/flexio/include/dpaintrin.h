/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: the DPA compiler intrinsics, for DPA code built for the
 * host. Fences become host fences (the host's memory model is stronger than
 * the DPA's, so a full fence is always enough); counters read the host clock.
 */
#ifndef __DPAINTRIN_H
#define __DPAINTRIN_H

#include <stdint.h>
#include <time.h>

#define DPA_INTRIN_VERSION(major, minor) ((major) << 16 | (minor))
#define DPA_INTRIN_VERSION_USED DPA_INTRIN_VERSION(1, 3)

/* Memory spaces and orderings a fence names. */
#define __DPA_HEAP 0
#define __DPA_MEMORY 1
#define __DPA_MMIO 2
#define __DPA_SYSTEM 3
#define __DPA_R 1
#define __DPA_W 2
#define __DPA_RW 3

#define __dpa_thread_fence(space, pred, succ)                                  \
	do {                                                                   \
		(void)(space); (void)(pred); (void)(succ);                     \
		__atomic_thread_fence(__ATOMIC_SEQ_CST);                       \
	} while (0)
#define __dpa_thread_memory_fence(op1, op2) __dpa_thread_fence(__DPA_MEMORY, op1, op2)
#define __dpa_thread_outbox_fence(op1, op2) __dpa_thread_fence(__DPA_MMIO, op1, op2)
#define __dpa_thread_window_fence(op1, op2) __dpa_thread_fence(__DPA_MMIO, op1, op2)
#define __dpa_thread_system_fence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __dpa_thread_window_read_inv() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __dpa_thread_window_writeback() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __dpa_thread_memory_writeback() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __dpa_data_ignore(addr) ((void)(addr))

/* Nanoseconds of the monotonic clock. */
static inline uint64_t __dpa_thread_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Cycle counter: the TSC where there is one, else nanoseconds. */
static inline uint64_t __dpa_thread_cycles(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	return __dpa_thread_time();
#endif
}

/* Retired instructions are not observable here: the cycle count stands in. */
static inline uint64_t __dpa_thread_inst_ret(void)
{
	return __dpa_thread_cycles();
}

/* Fixed point Q16.16: reciprocal, 2^x and log2 x. */
static inline int32_t __dpa_fxp_rcp(int32_t x)
{
	if (!x)
		return INT32_MAX;
	return (int32_t)(((int64_t)1 << 32) / x);
}

static inline int32_t __dpa_fxp_pow2(int32_t x)
{
	int32_t ip = x >> 16;
	uint32_t fp = (uint32_t)x & 0xffff;
	/* 2^f ~ 1 + f*(0.6565 + 0.3435 f) on [0,1), error < 0.3% */
	uint64_t f = fp;
	uint64_t frac = 65536 + ((f * (43028 + ((22508 * f) >> 16))) >> 16);

	if (ip >= 15)
		return INT32_MAX;
	if (ip < -16)
		return 0;
	return ip >= 0 ? (int32_t)(frac << ip) : (int32_t)(frac >> -ip);
}

static inline int32_t __dpa_fxp_log2(int32_t x)
{
	int32_t ip;
	uint64_t m;
	int i;
	int32_t frac = 0;

	if (x <= 0)
		return INT32_MIN;
	ip = 31 - __builtin_clz((uint32_t)x) - 16;
	m = (uint64_t)(uint32_t)x << 16 >> (ip + 16);	/* Q16.16 in [1, 2) */
	for (i = 15; i >= 0; i--) {
		m = (m * m) >> 16;
		if (m >= (2u << 16)) {
			m >>= 1;
			frac |= 1 << i;
		}
	}
	return (ip << 16) | frac;
}

#endif
