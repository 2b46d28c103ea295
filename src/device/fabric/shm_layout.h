/* SPDX-License-Identifier: MIT */
/*
 * The shared segment's layout: what every process attached to it reads and
 * writes (shm.c), and what a test that plays another process writes by hand.
 * Any change that an older process would misread bumps SMX_SHM_VERSION; a
 * segment of another version is stale and replaced at attach.
 */
#ifndef SMX_DEVICE_FABRIC_SHM_LAYOUT_H
#define SMX_DEVICE_FABRIC_SHM_LAYOUT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "device/fabric/shm.h"

#define SMX_SHM_MAGIC 0x31304d5035584d53ull	/* "SMX5PM01" */
/* 2: slots carry their holder's pid namespace, and the holder keeps a
 * write lock (fcntl) on byte <slot> of the file while attached. */
#define SMX_SHM_VERSION 2u

enum { SMX_SLOT_FREE = 0, SMX_SLOT_ALIVE = 1 };

/* smx_slot.sleeping. Processes of the first layout wrote 0 / 1 only, and
 * woke on anything but 0: SLEEP_POLLED cost them a needless wake-up. */
enum {
	SMX_SLEEP_NO = 0,
	SMX_SLEEP_WAKE = 1,	/* parked: producers ring the bell */
	SMX_SLEEP_POLLED = 2,	/* parked, the owner's threads poll the inbox
				 * and the park is short: no bell needed */
};

struct smx_slot {
	/* Process table entry (changed under the header mutex). */
	uint32_t state;
	int32_t pid;		/* in the holder's pid namespace */
	uint64_t start_time;	/* /proc/<pid>/stat field 22 */
	uint64_t gen;		/* claims of this slot so far */
	/* Direct placement (eng_direct.c): the owner's key generation, and
	 * pid << 32 | slot + 1 of the memory the owner is accessing. */
	uint64_t dgen;
	uint64_t dbusy;
	/* Inode of the holder's /proc/self/ns/pid (0: unknown). A pid means
	 * something only in its own namespace. */
	uint64_t pidns;
	/* Inbox: producers advance tail, the owner advances head. */
	uint64_t tail __attribute__((aligned(64)));
	uint64_t head __attribute__((aligned(64)));
	uint32_t bell __attribute__((aligned(64)));	/* futex word */
	uint32_t sleeping;	/* SMX_SLEEP_*: the owner's inbox thread */
	struct smx_cell cell[SMX_SHM_CELLS];
};

/* The table entry fits in the first cache line, where it always was. */
_Static_assert(offsetof(struct smx_slot, tail) == 64, "smx_slot layout");

struct smx_shm_hdr {
	uint64_t magic;		/* written last at creation */
	uint32_t version;
	uint32_t nslots;
	uint32_t ncells;
	uint32_t inline_max;
	uint64_t size;
	pthread_mutex_t lock;	/* robust, process-shared */
	struct smx_slot slot[SMX_SHM_SLOTS] __attribute__((aligned(64)));
};

/* Bytes of the segment file (whole pages). */
#define SMX_SHM_SIZE ((sizeof(struct smx_shm_hdr) + 4095) & ~(size_t)4095)

#endif
