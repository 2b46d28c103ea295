/* SPDX-License-Identifier: MIT */
/* The contended half of struct smx_mutex (mutex.h). */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/mutex.h"

#if defined(__x86_64__) || defined(__i386__)
#define SMX_RELAX() __builtin_ia32_pause()
#else
#define SMX_RELAX() __asm__ __volatile__("" ::: "memory")
#endif

void smx_mutex_lock_slow(struct smx_mutex *m)
{
	unsigned int i;

	/* Holders keep it for a few microseconds at most: look a little
	 * before sleeping. */
	for (i = 0; i < 100; i++) {
		uint32_t free = 0;

		SMX_RELAX();
		if (__atomic_load_n(&m->v, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&m->v, &free, 1, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
	}
	/* From here on the word says "waiters" (2) while we hold it, so the
	 * release wakes the next one; a spurious wake-up costs one more
	 * futex call, never a missed one. */
	while (__atomic_exchange_n(&m->v, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &m->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void smx_mutex_wake(struct smx_mutex *m)
{
	syscall(SYS_futex, &m->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
