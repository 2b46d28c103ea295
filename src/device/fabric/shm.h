/* SPDX-License-Identifier: MIT */
/*
 * The host-wide half of the device: one shared-memory segment per user
 * (mode 0600) that every process opening the device attaches to. It holds
 * the process table (one slot per attached process: pid, start time, a futex
 * doorbell) and, per slot, an inbox: a bounded multi-producer single-consumer
 * ring of fixed-size cells, each carrying one RoCEv2 packet (IP header to
 * ICRC, the transport's packets: docs/transport.md), an Ethernet frame
 * (eth_switch) or a direct placement record.
 *
 * A process's slot number partitions the object number spaces (QPN, CQN,
 * SRQN, PDN, XRCD, mkey index), so the owner of any QPN is computable:
 * smx_shm_qpn_slot(). See docs/multiprocess.md.
 *
 * Concurrency: the process table is changed under a robust process-shared
 * mutex (a process that dies holding it does not leave it stuck). The rings
 * are lock-free (Vyukov's bounded queue: a sequence word per cell), and a
 * link that drops nothing by design: a full inbox makes the producer wait
 * for room (it is woken when the owner frees a cell), and a producer that
 * dies between reserving a cell and publishing it does not wedge the inbox
 * (its reservation record says whose the cell is; the owner skips the
 * cell once no live producer claims it).
 */
#ifndef SMX_DEVICE_FABRIC_SHM_H
#define SMX_DEVICE_FABRIC_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/transport/counters.h"

#define SMX_SHM_SLOTS 64u		/* processes attached at once */
#define SMX_SHM_CELLS 64u		/* inbox cells per process (power of 2) */
/* Bytes a cell carries: one RoCEv2 packet at the 4096-byte MTU (IPv6 40,
 * UDP 8, BTH 12, at most 28 bytes of extended headers, 4096 of payload,
 * pad, ICRC 4), or an Ethernet frame of up to this size. */
#define SMX_SHM_INLINE 4224u

/* Number partition: slot s owns [base + s * 2^16, base + (s + 1) * 2^16). */
#define SMX_SHM_ID_SHIFT 16u
#define SMX_SHM_QPN_BASE 0x100u

/* Cell kinds. */
enum {
	SMX_CELL_SKIP = 0,	/* nothing (a reservation given up) */
	SMX_CELL_PKT = 1,	/* a RoCEv2 packet, IP header to ICRC */
	SMX_CELL_ETH = 2,	/* an Ethernet frame (eth_switch) */
	SMX_CELL_DREC = 3,	/* a struct smx_drec (direct placement) */
	SMX_CELL_RREC = 4,	/* a struct smx_rrec (direct SEND, drq.h) */
};

/* Cell flags (the link's, not the packet's). */
enum {
	SMX_CELL_F_ICRC = 1 << 0,	/* the ICRC is computed: check it */
	SMX_CELL_F_DREQ = 1 << 1,	/* request: answer with a direct record */
	SMX_CELL_F_REF = 1 << 2,	/* a SEND whose payload is referenced:
					 * struct smx_sref at the cell's end */
	SMX_CELL_F_NET = 1 << 3,	/* a packet from the network, received
					 * by the sender for the owner of its
					 * QPN (eng_link_udp.c) */
};

/*
 * SEND by reference (eng_link_shm.c): the cell holds the message's SEND ONLY
 * packet without payload; the payload is @len bytes at @off in the
 * sender's memfd (fd @fd of the cell's sender, inode @ino, @rlen bytes),
 * readable while the sender's key generation (smx_shm_dgen) stays @gen.
 * The message takes @npkts PSNs, as its packets would. The responder
 * copies it straight into the receive buffer: one copy instead of two.
 */
struct smx_sref {
	uint32_t npkts, len;
	int32_t fd;
	uint32_t rsvd;
	uint64_t ino, rlen, off, gen;
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

struct smx_cell {
	uint64_t seq;		/* ring sequence word */
	uint8_t kind;		/* SMX_CELL_* */
	uint8_t flags;		/* SMX_CELL_F_* */
	uint16_t rsvd;
	uint32_t len;		/* bytes in data[] */
	uint32_t src_slot;	/* the producer's slot and pid (checked */
	int32_t src_pid;	/* against the process table) */
	uint8_t data[SMX_SHM_INLINE] __attribute__((aligned(16)));
} __attribute__((aligned(64)));

struct smx_shm;

/*
 * Attaches this process to the segment (creating it race-safely if needed,
 * all of its pages allocated up front) and claims a slot, reclaiming slots
 * of processes that are gone. Returns NULL when the segment cannot be used
 * (no place, out of space, all slots busy, not ours: logged); the device
 * then runs this process alone, slot 0. The segment:
 * smx_shm_default_path().
 */
struct smx_shm *smx_shm_attach(void);
/* Frees the slot; in a fork child (@s is the parent's) only forgets @s. */
void smx_shm_detach(struct smx_shm *s);
/* Before leaving: waits, at most @wait_ns in all, until every inbox we
 * published cells into has taken the last of them -- packets on the wire
 * arrive after their sender left, and the owner drops cells of a slot that
 * was freed. An owner that is gone, stopped, no longer the one we sent to,
 * or whose process cannot run is not waited for. */
void smx_shm_flush(struct smx_shm *s, uint64_t wait_ns);

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

/* Fields 3 (state) and 22 (start time in clock ticks after boot, 0 when
 * unreadable) of /proc/<pid>/stat; false when there is no such file to
 * read. smx_shm_start_time(): field 22 alone, 0 when unknown. (shm_ro.c) */
bool smx_shm_proc_stat(int32_t pid, char *state, uint64_t *start);
uint64_t smx_shm_start_time(int32_t pid);

/* Inode of /proc/self/ns/pid (smx_slot.pidns); 0 when unknown. (shm_ro.c) */
uint64_t smx_shm_pidns(void);

/*
 * Where the segment is, for smx_shm_attach() and for readers that do not
 * attach (shm_ro.c): $SOFTMLX5_SHM_PATH, else
 * /dev/shm/softmlx5-<uid>-<netns> (<netns>: the inode of /proc/self/ns/net,
 * so each network namespace is a host of its own; left out when unknown),
 * else $XDG_RUNTIME_DIR/softmlx5-shm-<netns>. NULL with errno ENODEV when
 * SOFTMLX5_SHM_PATH is "off" or "none" (no segment: every process alone),
 * ENOENT when there is no place for one, ENAMETOOLONG.
 */
const char *smx_shm_default_path(char *buf, size_t len);

/*
 * Port counters (device/transport/counters.h). smx_shm_counters(): this
 * process's, in its slot (never NULL: without a segment -- @s NULL -- or
 * in a fork child of the attached process, in process memory).
 * smx_shm_counters_sum(): the port's, summed over the live slots
 * (smx_shm_alive() and our own); with @s NULL, this process's.
 */
struct trn_counters *smx_shm_counters(struct smx_shm *s);
void smx_shm_counters_sum(struct smx_shm *s, uint64_t out[TRN_CTR_NUM]);

/*
 * The port's counters without attaching (shm_ro.c; `softmlx5 counters`, the
 * sysfs view of `softmlx5 run`): opens the segment at @path (NULL:
 * smx_shm_default_path()) read-only and sums its live slots, as
 * smx_shm_counters_sum() does; *nlive (if given) gets how many there
 * were. 0; -ENOENT: no segment (nobody has the device open: out[] zeros);
 * -ESTALE: a segment of another layout (out[] zeros); -ENODEV:
 * SOFTMLX5_SHM_PATH is off; -EPERM: not ours; other -errno.
 */
int smx_shm_counters_read(const char *path, uint64_t out[TRN_CTR_NUM],
			  uint32_t *nlive);

/*
 * Producer side: reserves the next cell of @slot's inbox, waiting at most
 * @wait_ns for room (0: not at all). NULL when the slot is not a live peer,
 * or when the inbox stays full: then this process is registered as waiting
 * for room there, and when the owner frees a cell it rings our doorbell
 * (our inbox thread returns from smx_shm_wait()): the caller keeps what it
 * wanted to send and tries again then. The caller fills the cell and
 * publishes it with smx_shm_publish() or smx_shm_publish_quiet(), from the
 * same thread and always (a cell it no longer wants goes out as one its
 * owner ignores): a process holds one reservation at a time -- another
 * thread's reserve waits for that publish, and a second reserve from the
 * same thread before it fails (NULL, logged).
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
/* No free cell in @slot's inbox right now (a hint, like smx_shm_room()). */
bool smx_shm_full(struct smx_shm *s, uint32_t slot);

/*
 * Does the consumer of @slot's inbox appear stalled (for a transport's
 * retry decisions; costs a /proc read)? True when its holder is alive and
 * either stopped (state T or t: SIGSTOP, a debugger) or has not advanced
 * its head since @since_ns (CLOCK_MONOTONIC, as eng_now()) while cells are
 * waiting in its inbox. False for a dead or foreign slot.
 */
bool smx_shm_stalled(struct smx_shm *s, uint32_t slot, uint64_t since_ns);
/* Is @pid stopped (state T or t in /proc/<pid>/stat)? False if unknown. */
bool smx_shm_stopped(int32_t pid);

/*
 * Tombstones. A QP of ours that received requests is destroyed: its QPN
 * and the PSN it expected next stay in our slot, under our claim of it
 * (its gen) -- after we exit too, and after another process takes the
 * slot -- so that a requester whose last ACK was lost (an injected fault)
 * learns what arrived, as the QP's responder would have re-ACKed it
 * (smx_shm_tomb()). A QPN created again forgets its tombstone
 * (smx_shm_tomb_clear()).
 */
void smx_shm_tomb_put(struct smx_shm *s, uint32_t qpn, uint32_t epsn);
void smx_shm_tomb_clear(struct smx_shm *s, uint32_t qpn);
/* The tombstone of QP @qpn in @slot, made under claim @gen of the slot
 * (smx_shm_slot_gen() when the requester talked to it): true with *epsn,
 * or false. */
bool smx_shm_tomb(struct smx_shm *s, uint32_t slot, uint64_t gen,
		  uint32_t qpn, uint32_t *epsn);
/* The claim count of @slot now (0: no segment). */
uint64_t smx_shm_slot_gen(struct smx_shm *s, uint32_t slot);

/*
 * Consumer side (this process's inbox): the next published cell or NULL;
 * smx_shm_pop() releases it (and wakes producers waiting for room). A cell
 * reserved by a producer that died before publishing it is skipped here,
 * never returned: once it has waited SMX_SHM_STUCK_GRACE_NS and no live
 * process's reservation record claims it (logged with SOFTMLX5_DEBUG;
 * counted by smx_shm_skipped()). A live producer's cell -- one stopped
 * between reserving and publishing included -- is always waited for.
 */
struct smx_cell *smx_shm_peek(struct smx_shm *s);
/* @now_ns: CLOCK_MONOTONIC, read by the caller moments ago (a batch's
 * clock), or 0 to read it here -- when the head moved, for
 * smx_shm_stalled(). */
void smx_shm_pop(struct smx_shm *s, uint64_t now_ns);
/* Cells of this process's inbox skipped so far (dead producers). */
uint64_t smx_shm_skipped(const struct smx_shm *s);

#define SMX_SHM_STUCK_GRACE_NS 2000000ull	/* an unpublished head cell */

/*
 * Parks the calling thread until a producer rings this process's doorbell
 * or @timeout_ns passes (spurious returns possible). It does not park when
 * a cell is ready (unless @polled: the pollers take it), nor when an inbox
 * we found full (smx_shm_reserve()) has
 * room again: that room is reported once, by this early return. While the
 * head cell waits for its producer, the park is cut short to check it
 * again (smx_shm_peek(): dead producers). smx_shm_kick() wakes
 * it (used at shutdown). With @polled the owner says that its own threads
 * are polling the inbox meanwhile (smx_dev_progress()): producers then skip
 * the wake-up, and @timeout_ns bounds how long a cell may wait if they
 * stop; smx_shm_unpoll() withdraws that (true: cells are waiting).
 */
void smx_shm_wait(struct smx_shm *s, uint64_t timeout_ns, bool polled);
bool smx_shm_unpoll(struct smx_shm *s);
void smx_shm_kick(struct smx_shm *s);

/*
 * `softmlx5 status`. smx_shm_status_asked(): a reader asks our slot for a
 * snapshot (*req: the request to answer); smx_shm_status_answered(): it is
 * written (<segment>.status.<slot>). smx_shm_status_ask() (shm_ro.c, the
 * reader): asks every live slot of the segment at @path (@only non-zero:
 * the slot of that pid alone) and waits at most @wait_ms for their
 * answers; bit i of *asked / *answered for slot i, pids[i] its pid. 0 or
 * -errno (-ESTALE: another layout).
 */
bool smx_shm_status_asked(struct smx_shm *s, uint32_t *req);
void smx_shm_status_answered(struct smx_shm *s, uint32_t req);
int smx_shm_status_ask(const char *path, uint32_t wait_ms, long only,
		       uint64_t *asked, uint64_t *answered,
		       int32_t pids[SMX_SHM_SLOTS]);

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

/*
 * Direct SEND (fabric/drq.h): a peer that placed a SEND in a receive queue
 * slot @slot lent it calls smx_shm_arrive() after publishing the arrival:
 * a parked inbox thread is woken as for a cell (the owner's pollers look
 * at the queues themselves). The owner's smx_shm_wait() asks @fn(@arg)
 * (smx_shm_set_pending()), after announcing that it parks, whether such
 * work waits: one of the two sees the other.
 */
void smx_shm_arrive(struct smx_shm *s, uint32_t slot);
void smx_shm_set_pending(struct smx_shm *s, bool (*fn)(void *), void *arg);

#endif
