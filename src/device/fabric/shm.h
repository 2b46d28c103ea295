/* SPDX-License-Identifier: MIT */
/*
 * The host-wide half of the device: one shared-memory segment per user
 * (mode 0600) that every process opening the device attaches to. It holds
 * the process table (one slot per attached process: pid, start time, a futex
 * doorbell) and, per slot, an inbox: a bounded multi-producer single-consumer
 * ring of fixed-size cells carrying fabric messages (requests and responses).
 *
 * A process's slot number partitions the object number spaces (QPN, CQN,
 * SRQN, PDN, XRCD, mkey index), so the owner of any QPN is computable:
 * smx_shm_qpn_slot(). See docs/multiprocess.md.
 *
 * Concurrency: the process table is changed under a robust process-shared
 * mutex (a process that dies holding it does not leave it stuck). The rings
 * are lock-free (Vyukov's bounded queue: a sequence word per cell).
 */
#ifndef SMX_DEVICE_FABRIC_SHM_H
#define SMX_DEVICE_FABRIC_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMX_SHM_SLOTS 64u		/* processes attached at once */
#define SMX_SHM_CELLS 64u		/* inbox cells per process (power of 2) */
#define SMX_SHM_INLINE 4096u		/* payload bytes a cell carries inline */
#define SMX_SHM_MAX_IOV 128u		/* remote iovecs a request may name */

/* Number partition: slot s owns [base + s * 2^16, base + (s + 1) * 2^16). */
#define SMX_SHM_ID_SHIFT 16u
#define SMX_SHM_QPN_BASE 0x100u

/* Message kinds. */
enum { SMX_MSG_REQ = 1, SMX_MSG_RESP = 2, SMX_MSG_ETH = 3 /* a frame, len bytes inline */ };

struct smx_drec;

/* Payload modes of a request / response. */
enum {
	SMX_PAY_NONE = 0,
	SMX_PAY_INLINE = 1,	/* @len bytes in data[] */
	SMX_PAY_IOV = 2,	/* data[] holds niov struct smx_iov of the sender */
};

struct smx_iov {
	uint64_t addr;		/* in the sender's address space */
	uint64_t len;
};

/*
 * Direct placement record: what a responder tells a requester about one
 * (QP, rkey) pair it has just served, so the requester can check further
 * WRITEs / READs itself and copy straight into the target's memory (a memfd
 * mapped by both; eng_direct.c). Valid while the target's key generation
 * (smx_shm_dgen) stays @gen.
 */
struct smx_drec {
	uint8_t valid;
	uint8_t st;		/* the target QP's transport */
	uint8_t qp_acc;		/* ENG_ACC_RR / RW / A the QP allows */
	uint8_t log_msg;	/* the target QP's log_msg_max */
	uint32_t key_acc;	/* the key's rights (ENG_ACC_*) */
	uint32_t dqpn, rkey;
	int32_t fd;		/* the memfd, as /proc/<pid>/fd/<fd> */
	int32_t pid;
	uint64_t gen;
	uint64_t start, len;	/* the key's range (virtual addresses) */
	uint64_t host;		/* target address of byte @start */
	uint64_t rva, rlen;	/* the memfd's range in the target */
	uint64_t ino;		/* the memfd's inode (checked at open) */
};

/*
 * One fabric message as it travels between processes: the fields of the
 * engine's eng_pkt (requests) or eng_resp (responses), plus routing.
 */
struct smx_msg {
	uint8_t kind;		/* SMX_MSG_* */
	uint8_t op, flags, st;
	uint8_t pay;		/* SMX_PAY_* for the payload (SEND/WRITE data,
				 * or READ data in a response) */
	uint8_t rpay;		/* SMX_PAY_IOV: READ data goes to riov */
	uint8_t ack, rnr_timer;	/* responses */
	uint32_t src_slot;
	int32_t src_pid;
	uint32_t sqpn, dqpn;
	uint32_t psn, npkts, len;
	uint32_t imm, inv_rkey, qkey, xrc_srqn, rkey;
	uint32_t flow_label;
	uint16_t pkey;
	uint8_t tclass, hop_limit;
	uint16_t niov, nriov;	/* iovecs in data[]: payload first, then READ */
	uint32_t dc_key_hi;	/* DC access key, high half (was padding) */
	uint64_t raddr, swap_add, compare;
	uint64_t atomic_orig;	/* responses */
	uint64_t token;		/* matches a response to its request */
	uint8_t sgid[16], dgid[16];
	uint32_t data_len;	/* bytes used in data[] */
	uint32_t dc_key_lo;	/* DC access key, low half (was padding) */
};

/* Version 1's layout: new fields only ever take former padding. */
_Static_assert(sizeof(struct smx_msg) == 152, "smx_msg layout version 1");

/*
 * flags bit of a request: "answer with a direct record"; of a response: a
 * struct smx_drec follows the inline payload in data[] (at offset len).
 * Both are ignored by processes that do not know them: the layout is
 * version 1's.
 */
#define SMX_MSG_F_DR 0x80u

struct smx_cell {
	uint64_t seq;		/* ring sequence word */
	struct smx_msg m;
	uint8_t data[SMX_SHM_INLINE] __attribute__((aligned(16)));
} __attribute__((aligned(64)));

struct smx_shm;

/*
 * Attaches this process to the segment (creating it race-safely if needed,
 * all of its pages allocated up front) and claims a slot, reclaiming slots
 * of processes that are gone. Returns NULL when the segment cannot be used
 * (no place, out of space, all slots busy, not ours: logged); the device
 * then runs this process alone, slot 0. The segment: $SOFTMLX5_SHM_PATH
 * ("off": none), else /dev/shm/softmlx5-<uid>, else
 * $XDG_RUNTIME_DIR/softmlx5-shm.
 */
struct smx_shm *smx_shm_attach(void);
/* Frees the slot; in a fork child (@s is the parent's) only forgets @s. */
void smx_shm_detach(struct smx_shm *s);

uint32_t smx_shm_slot(const struct smx_shm *s);
const char *smx_shm_path(const struct smx_shm *s);

/* The slot owning object number @qpn, or -1 (reserved numbers). */
int smx_shm_qpn_slot(uint32_t qpn);

/*
 * Is the process in @slot a live peer: in our pid namespace, its pid there
 * and with the start time it attached with? *pid set (0 for a process of
 * another namespace, which is never a peer).
 */
bool smx_shm_alive(struct smx_shm *s, uint32_t slot, int32_t *pid);

/* Is @pid the process attached in @slot, in our pid namespace? (Checks a
 * sender's pid before using it for cross-memory copies; no system call.) */
bool smx_shm_peer(struct smx_shm *s, uint32_t slot, int32_t pid);

/* Field 22 of /proc/<pid>/stat: start time in clock ticks after boot; 0
 * when unknown. */
uint64_t smx_shm_start_time(int32_t pid);

/*
 * Producer side: reserves the next cell of @slot's inbox, waiting at most
 * @wait_ns for room. NULL when the inbox stays full or the slot is dead.
 * The caller fills the cell and publishes it with smx_shm_publish().
 */
struct smx_cell *smx_shm_reserve(struct smx_shm *s, uint32_t slot,
				 uint64_t wait_ns, uint64_t *pos);
void smx_shm_publish(struct smx_shm *s, uint32_t slot, struct smx_cell *c,
		     uint64_t pos);
/* smx_shm_publish() without the wake-up: a batch of cells is published this
 * way, then smx_shm_ring() wakes the owner once if it sleeps. */
void smx_shm_publish_quiet(struct smx_shm *s, uint32_t slot,
			   struct smx_cell *c, uint64_t pos);
void smx_shm_ring(struct smx_shm *s, uint32_t slot);
/* Free cells in @slot's inbox right now (a hint: others may take them). */
uint32_t smx_shm_room(struct smx_shm *s, uint32_t slot);

/* Consumer side (this process's inbox): the next published cell or NULL;
 * smx_shm_pop() releases it. */
struct smx_cell *smx_shm_peek(struct smx_shm *s);
void smx_shm_pop(struct smx_shm *s);

/*
 * Parks the calling thread until a producer rings this process's doorbell
 * or @timeout_ns passes (spurious returns possible). smx_shm_kick() wakes
 * it (used at shutdown). With @polled the owner says that its own threads
 * are polling the inbox meanwhile (smx_dev_progress()): producers then skip
 * the wake-up, and @timeout_ns bounds how long a cell may wait if they
 * stop; smx_shm_unpoll() withdraws that (true: cells are waiting).
 */
void smx_shm_wait(struct smx_shm *s, uint64_t timeout_ns, bool polled);
bool smx_shm_unpoll(struct smx_shm *s);
void smx_shm_kick(struct smx_shm *s);

/*
 * Direct placement (docs/multiprocess.md): each slot publishes a key
 * generation that its owner bumps after any change of its keys or QPs
 * (smx_shm_dbump(), which then waits until no process is inside an access
 * begun under the old generation). A requester brackets every direct
 * access with smx_shm_dbegin() (false: the generation moved, the cached
 * record is stale) and smx_shm_dend().
 */
uint64_t smx_shm_dgen(struct smx_shm *s, uint32_t slot);
bool smx_shm_dbegin(struct smx_shm *s, uint32_t slot, uint64_t gen);
void smx_shm_dend(struct smx_shm *s);
void smx_shm_dbump(struct smx_shm *s);

#endif
