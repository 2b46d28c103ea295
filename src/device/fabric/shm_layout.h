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
#include "device/transport/counters.h"

#define SMX_SHM_MAGIC 0x31304d5035584d53ull	/* "SMX5PM01" */
/* 2: slots carry their holder's pid namespace, and the holder keeps a
 * write lock (fcntl) on byte <slot> of the file while attached.
 * 3: slots carry their holder's port counters (ctr[]); the inbox link: a
 * producer's reservation record (resv), the waiters for room in an inbox
 * (room_waiters) and the time its head last moved (head_ns).
 * 4: slots carry tombstones of their holder's destroyed QPs (tomb[]).
 * 5: dbusy moved out of the first line, next to resv; a tombstone names
 *    the claim of the slot it was made under, and outlives it. */
#define SMX_SHM_VERSION 7u

enum { SMX_SLOT_FREE = 0, SMX_SLOT_ALIVE = 1 };

#define SMX_SHM_TOMBS 32u
#define SMX_TOMB_VALID (1ull << 63)
#define SMX_TOMB_GEN_SHIFT 48u		/* 15 bits of the slot's gen */
#define SMX_TOMB_GEN_MASK 0x7fffull

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
	/* Direct placement (eng_direct.c): the owner's key generation
	 * (read by peers at every direct access, written when keys change). */
	uint64_t dgen;
	/* Inode of the holder's /proc/self/ns/pid (0: unknown). A pid means
	 * something only in its own namespace. */
	uint64_t pidns;
	/* `softmlx5 status` (eng_status.c): a reader adds 1 to status_req
	 * and rings the bell; the holder writes its snapshot and sets
	 * status_ack to the request it answered. */
	uint32_t status_req;
	uint32_t status_ack;
	/* Inbox: producers advance tail, the owner advances head. */
	uint64_t tail __attribute__((aligned(64)));
	uint64_t head __attribute__((aligned(64)));
	/* CLOCK_MONOTONIC ns when the owner last advanced head (or claimed
	 * the slot): smx_shm_stalled(). */
	uint64_t head_ns;
	/* Bit p: the holder of slot p found this inbox full and waits for
	 * room (set by it, atomic OR; taken by the owner, exchange with 0,
	 * when it frees a cell, which then rings slot p's bell). */
	uint64_t room_waiters;
	/* This slot's holder as a producer: the inbox position it is
	 * claiming or holds (SMX_RESV_*), 0 when it holds none. Written only
	 * by the holder, cleared when the slot is claimed. */
	uint64_t resv __attribute__((aligned(64)));
	/* Direct placement: pid << 32 | slot + 1 of the memory the owner is
	 * accessing. Written at each access, read by others only when they
	 * change their keys (smx_shm_dbump()): a line peers do not read at
	 * every message, as they do the first one (process table, dgen) --
	 * there the owner's store at each access found the line shared and
	 * waited to own it again. */
	uint64_t dbusy;
	uint32_t bell __attribute__((aligned(64)));	/* futex word */
	uint32_t sleeping;	/* SMX_SLEEP_*: the owner's inbox thread */
	/* The holder's port counters (enum trn_ctr; counters.h), zeroed
	 * when the slot is taken. Only the holder adds; anyone reads. */
	uint64_t ctr[TRN_CTR_MAX_SLOTS] __attribute__((aligned(64)));
	/* Destroyed RC / XRC QPs of the slot's holders, newest replacing the
	 * oldest: SMX_TOMB_VALID | the holder's claim (gen, 15 bits) << 48 |
	 * qpn << 24 | the PSN it expected next. Only the holder writes; they
	 * outlive it, also when the slot is taken again (a requester asks
	 * for the claim it talked to). */
	uint64_t tomb[SMX_SHM_TOMBS];
	uint32_t tomb_next;
	struct smx_cell cell[SMX_SHM_CELLS];
};

/*
 * smx_slot.resv: HELD | target slot | position (low 56 bits), with PENDING
 * while the CAS on the target's tail is not known to have succeeded.
 * Written (seq_cst) before the CAS, rewritten without PENDING after it
 * succeeds, rewritten for the next try after it fails, 0 after the cell is
 * published (release) or when the producer gives up. shm.c argues why a
 * position no live record claims has a dead producer.
 */
#define SMX_RESV_PENDING (1ull << 63)
#define SMX_RESV_HELD (1ull << 62)
#define SMX_RESV_SLOT_SHIFT 56u
#define SMX_RESV_SLOT_MASK 0x3full
#define SMX_RESV_POS_MASK ((1ull << SMX_RESV_SLOT_SHIFT) - 1)

static inline uint64_t smx_resv_make(uint32_t slot, uint64_t pos, int pending)
{
	return SMX_RESV_HELD | (pending ? SMX_RESV_PENDING : 0) |
	       ((uint64_t)slot & SMX_RESV_SLOT_MASK) << SMX_RESV_SLOT_SHIFT |
	       (pos & SMX_RESV_POS_MASK);
}

/* Does record @r claim position @pos of slot @slot's inbox, pending or not? */
static inline int smx_resv_claims(uint64_t r, uint32_t slot, uint64_t pos)
{
	return (r & SMX_RESV_HELD) &&
	       ((r >> SMX_RESV_SLOT_SHIFT) & SMX_RESV_SLOT_MASK) == slot &&
	       (r & SMX_RESV_POS_MASK) == (pos & SMX_RESV_POS_MASK);
}

_Static_assert(SMX_SHM_SLOTS <= SMX_RESV_SLOT_MASK + 1, "resv slot field");
_Static_assert(SMX_SHM_SLOTS <= 64, "room_waiters is one bit per slot");

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

_Static_assert(sizeof(((struct smx_slot *)0)->ctr) ==
	       sizeof(struct trn_counters), "smx_slot.ctr is a trn_counters");

/* Bytes of the segment file (whole pages). */
#define SMX_SHM_SIZE ((sizeof(struct smx_shm_hdr) + 4095) & ~(size_t)4095)

/*
 * Liveness of slot @i's holder, seen from a process of pid namespace
 * @pidns with the segment open as @fd (read-only is enough; shm_ro.c):
 * smx_shm_slot_held() -- claimed by a process that is still there (in
 * our namespace its pid has the start time it recorded; in another, it
 * holds the slot's record lock); smx_shm_slot_alive() -- held, and in our
 * namespace (a peer: what smx_shm_alive() answers). *pidp, if given, gets
 * the slot's pid (0 from smx_shm_slot_alive() for another namespace's).
 */
bool smx_shm_slot_held(const struct smx_shm_hdr *h, int fd, uint32_t i,
		       uint64_t pidns, int32_t *pidp);
bool smx_shm_slot_alive(const struct smx_shm_hdr *h, int fd, uint32_t i,
			uint64_t pidns, int32_t *pidp);

#endif
