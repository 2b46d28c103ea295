/* SPDX-License-Identifier: MIT */
/*
 * Direct receive queues: the shared format through which a process lends
 * the receive queue of an RC QP to the one peer that sends to it
 * (eng_drq.c, docs/multiprocess.md "Direct SEND").
 *
 * The owner (the receiving process) keeps a table of entries in a memfd
 * that peers map through /proc/<pid>/fd/<fd>. An entry describes one QP:
 * receive WQEs the owner has checked -- every data segment through the
 * responder's key check, and found in one of its memfds -- are "armed"
 * in rx[]; the peer claims the next one by advancing @head with a
 * compare-and-swap, copies its SEND into the armed buffers, and publishes
 * what arrived in arr[]; the owner turns published arrivals into receive
 * CQEs in order, as its responder would have. The owner's own responder
 * takes receive WQEs by the same compare-and-swap, so each WQE is taken
 * once, by one of them.
 *
 * Counters are 64-bit and never wrap in practice; their low 16 bits are
 * the receive WQE counter the CQE names. Everything a peer reads is
 * checked before use; an armed receive is valid only under the owner's
 * key generation it names (smx_shm_dgen()), and peers bracket every use
 * with smx_shm_dbegin() / smx_shm_dend() against it.
 */
#ifndef SMX_DEVICE_FABRIC_DRQ_H
#define SMX_DEVICE_FABRIC_DRQ_H

#include <stdint.h>

#define SMX_DRQ_MAGIC 0x31305152445845ull	/* "EXDRQ01" */
#define SMX_DRQ_ENTRIES 256u	/* QPs one process lends at a time */
#define SMX_DRQ_DEPTH 64u	/* armed receives per QP (power of 2) */
#define SMX_DRQ_SGE 4u		/* data segments of an armed receive */
#define SMX_DRQ_CLOSED (1ull << 63)	/* in @head: the owner took it back */

/* One data segment of an armed receive: @len bytes at offset @off of the
 * owner's memfd (fd @fd, inode @ino, @rlen bytes long). */
struct smx_drq_seg {
	int32_t fd;
	uint32_t len;
	uint64_t ino, rlen, off;
};

/* An armed receive WQE, written by the owner: @gen is 0 while it is
 * written, then the key generation its checks were made under. */
struct smx_drq_rx {
	uint64_t gen;
	uint64_t index;		/* the receive counter it is */
	uint32_t nseg;
	uint32_t rsvd;
	uint64_t total;		/* bytes the segments hold */
	struct smx_drq_seg seg[SMX_DRQ_SGE];
};

/* Arrival flags. */
enum {
	SMX_DRQ_F_IMM = 1 << 0,	/* SEND with immediate (@imm) */
	SMX_DRQ_F_SE = 1 << 1,	/* solicited event */
};

/* A SEND placed into receive @seq - 1 (low 32 bits), written by the
 * peer: @seq last, with release. */
struct smx_drq_arr {
	uint32_t seq;
	uint32_t len;
	uint32_t imm;		/* big-endian, as in the WQE */
	uint32_t flags;		/* SMX_DRQ_F_* */
};

/*
 * Lines by writer, so that a SEND moves only the lines it must: the peer
 * reads the armed receive (rx[]), claims (@head, which the owner leaves
 * alone) and writes the arrival (arr[], the owner's notification).
 */
struct smx_drq_ent {
	/* Written by the owner when it opens the entry. */
	uint64_t qpn;		/* the QP lent; 0: the entry is free */
	/* The owner's own: receives armed so far (an armed receive says
	 * itself which one it is: peers read rx[], not this) and completed
	 * so far. */
	uint64_t tail __attribute__((aligned(64)));
	uint64_t done;
	uint64_t stuck;		/* + 1: the receive arming stopped at (it
				 * will go by packets) */
	/* The claim counter: advanced by the peer's and the owner's
	 * compare-and-swap; SMX_DRQ_CLOSED when the owner took it back. */
	uint64_t head __attribute__((aligned(64)));
	struct smx_drq_rx rx[SMX_DRQ_DEPTH] __attribute__((aligned(64)));
	struct smx_drq_arr arr[SMX_DRQ_DEPTH] __attribute__((aligned(64)));
} __attribute__((aligned(64)));

struct smx_drq_tab {
	uint64_t magic;
	uint64_t nent;
	struct smx_drq_ent ent[SMX_DRQ_ENTRIES] __attribute__((aligned(64)));
};

/*
 * What the owner tells the peer of an entry (a SMX_CELL_RREC cell, in
 * answer to a SEND that asked with SMX_CELL_F_DREQ): the table's memfd,
 * the entry, the QP's receive rules and the key generation all of it
 * holds under.
 */
struct smx_rrec {
	uint32_t dqpn;		/* the owner's QP */
	uint32_t sqpn;		/* the peer's QP it answers */
	int32_t fd, pid;	/* the table, as /proc/<pid>/fd/<fd> */
	uint64_t ino, rlen;
	uint64_t gen;
	uint32_t idx;		/* the entry */
	uint8_t st, qp_acc, log_msg;	/* struct eng_racc of the QP */
	uint8_t rsvd;
};

#endif
