/* SPDX-License-Identifier: MIT */
/*
 * A process-private mutex of one futex word (Drepper, "Futexes Are Tricky",
 * mutex 3): 0 free, 1 held, 2 held with waiters. Taking and releasing it
 * uncontended is one atomic instruction each and nothing more; the data path
 * takes the firmware's lock for every doorbell, where pthread_mutex_lock()'s
 * type dispatch and owner bookkeeping cost as much again as the atomics.
 * Not recursive, not robust, no owner check: a plain exclusive lock.
 */
#ifndef SMX_UTIL_MUTEX_H
#define SMX_UTIL_MUTEX_H

#include <stdbool.h>
#include <stdint.h>

struct smx_mutex {
	uint32_t v;
};

#define SMX_MUTEX_INIT { 0 }

void smx_mutex_lock_slow(struct smx_mutex *m);
void smx_mutex_wake(struct smx_mutex *m);

static inline void smx_mutex_lock(struct smx_mutex *m)
{
	uint32_t free = 0;

	if (!__atomic_compare_exchange_n(&m->v, &free, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		smx_mutex_lock_slow(m);
}

static inline void smx_mutex_unlock(struct smx_mutex *m)
{
	if (__atomic_exchange_n(&m->v, 0, __ATOMIC_RELEASE) == 2)
		smx_mutex_wake(m);
}

#endif
