/* SPDX-License-Identifier: MIT */
/*
 * The receive-path fuzzer's input convention (fuzz_rc_rx.c,
 * gen_rc_rx_corpus.c).
 *
 * The device holds four QPs, all in RTS and "connected" to QPs of a fake
 * peer process the harness plays (its slot in the shared segment is
 * written by hand): QP 0 RC, QP 1 RC with requests in flight to the peer,
 * QP 2 UC, QP 3 UD (Q_Key FZR_QKEY). Each has FZR_NRECV receives posted
 * (2048, 1024, 512, 256 bytes, twice, in that order). Memory regions,
 * by index:
 *   0  8 KiB, every right (local and remote read, write, atomic)
 *   1  2 KiB, remote read only
 *   2  8 KiB, local only: QP 1's requests read from and land in it
 *   3  the receive buffers (local write only)
 *   4  1 KiB, every right, but in another protection domain
 *   5  256 bytes, every right, remotely invalidatable (SEND with
 *      invalidate): made again after an input that invalidated it
 *
 * Input:
 *   prefix, FZR_PREFIX bytes:
 *     [0] bits 0-1  path MTU: 256 << n
 *         bits 2-7  which of fzr_req[] QP 1 has in flight (bit 2 + k)
 *     [1..3]        PSN base (big-endian, 24 bits): the first PSN every
 *                   QP expects and the first PSN QP 1 sends
 *     [4] bits 0-4  ACK timeout (QPC encoding, 0: none) of every QP
 *         bits 5-7  retry_count and rnr_retry
 *   then packets, each: mode (1 byte), length (2 bytes, big-endian), body.
 *
 * mode & 3:
 *   FZR_RAW  the body is the cell: a RoCEv2 packet from its IP header.
 *   FZR_IB   the body is an IB packet (BTH .. pad); the harness puts the
 *            IPv4 / UDP headers (its address to ours) before it and the
 *            ICRC after it. A DestQP of FZR_IB_QPN + n (n <= 4) becomes QP
 *            selector n's QPN.
 *   FZR_HDR  the body is FZR_H_BYTES of header fields (below) and payload
 *            bytes; the harness builds the packet with ibp_build and
 *            roce_build. Payload bytes missing from the body are
 *            fill + i.
 *   FZR_MSG  the body is a message (FZR_M_BYTES, below): the harness cuts
 *            it into FIRST / MIDDLE... / LAST packets of one MTU each.
 * The other mode bits (FZR_MODE_*) set the cell's flags and what happens
 * around the packet.
 *
 * Numbers the fuzzer cannot know are selectors: a QP selector 0-3 is our
 * QP n (its QPN), 4 the fake peer's QP (a QPN of another process), above
 * that the raw dqpn field; an MR selector 0-5 is that region's rkey and
 * (unless FZR_F_VA_ABS) the va field an offset into it, above that the
 * raw rkey field. PSNs are offsets from the base (unless FZR_F_PSN_ABS).
 * The peer drains its inbox after every packet (unless FZR_MODE_HOLD) and
 * at the end of the input.
 */
#ifndef SMX_FUZZ_RC_RX_H
#define SMX_FUZZ_RC_RX_H

#include <stdint.h>

#define FZR_NQP 4u
#define FZR_NMR 6u
#define FZR_NRECV 8u
#define FZR_QKEY 0x11223344u
#define FZR_PREFIX 5u
#define FZR_IB_QPN 0xffff00u

enum { FZR_RAW = 0, FZR_IB = 1, FZR_HDR = 2, FZR_MSG = 3 };

enum {
	FZR_MODE_ICRC = 1 << 2,		/* cell flag: the receiver checks it */
	FZR_MODE_BADICRC = 1 << 3,	/* the harness's ICRC, one bit flipped */
	FZR_MODE_DREQ = 1 << 4,		/* cell flag: ask for a direct record */
	FZR_MODE_STRANGER = 1 << 5,	/* from a slot no process holds */
	FZR_MODE_POLL = 1 << 6,		/* then a doorbell-watcher pass */
	FZR_MODE_HOLD = 1 << 7,		/* the peer does not drain its inbox
					 * after this packet: it may fill, and
					 * the device wait for room */
};

/* FZR_HDR: byte offsets of the fields (big-endian). */
enum {
	FZR_H_QP = 0,		/* u8 QP selector */
	FZR_H_OPCODE = 1,	/* u8 */
	FZR_H_FLAGS = 2,	/* u8 FZR_F_* */
	FZR_H_MR = 3,		/* u8 MR selector: RETH / AtomicETH rkey, va */
	FZR_H_PSN = 4,		/* u32 offset from the base, or FZR_F_PSN_ABS */
	FZR_H_DQPN = 8,		/* u32, QP selector > 4 */
	FZR_H_RKEY = 12,	/* u32, MR selector > 5 */
	FZR_H_VA = 16,		/* u64 */
	FZR_H_DMALEN = 24,	/* u32 */
	FZR_H_SWAP = 28,	/* u64 */
	FZR_H_CMP = 36,		/* u64; also the DCETH key */
	FZR_H_SYND = 44,	/* u8 AETH */
	FZR_H_MSN = 45,		/* u24 */
	FZR_H_ORIG = 48,	/* u64 AtomicAckETH */
	FZR_H_IMM = 56,		/* u32 ImmDt */
	FZR_H_IETH = 60,	/* u32; FZR_F_IETH_MR: an MR selector */
	FZR_H_QKEY = 64,	/* u32 DETH */
	FZR_H_SRCQP = 68,	/* u32 DETH, DCETH, XRCETH */
	FZR_H_PKEY = 72,	/* u16 */
	FZR_H_PAYLEN = 74,	/* u16 */
	FZR_H_TCLASS = 76,	/* u8 */
	FZR_H_HOP = 77,		/* u8 */
	FZR_H_FILL = 78,	/* u8 */
	FZR_H_L3 = 79,		/* u8 FZR_L3_* */
	FZR_H_BYTES = 80,
};

enum {
	FZR_F_SE = 1 << 0,
	FZR_F_ACKREQ = 1 << 1,
	FZR_F_MIG = 1 << 2,
	FZR_F_AUTO_TR = 1 << 3,	/* opcode bits 7:5 := the QP's transport */
	FZR_F_PSN_ABS = 1 << 4,
	FZR_F_VA_ABS = 1 << 5,
	FZR_F_IETH_MR = 1 << 6,
	FZR_F_BECN = 1 << 7,	/* BTH byte 4 (FECN | BECN) set */
};

enum {
	FZR_L3_SGID = 1 << 0,	/* the source address is not ours */
	FZR_L3_DGID = 1 << 1,	/* the destination address is not ours */
};

/* FZR_MSG: byte offsets. */
enum {
	FZR_M_QP = 0,		/* u8 QP selector */
	FZR_M_KIND = 1,		/* u8 FZR_K_* */
	FZR_M_NPKTS = 2,	/* u8, 0 counts as 1, at most FZR_MSG_MAX */
	FZR_M_MR = 3,		/* u8 MR selector (WRITE) */
	FZR_M_PSN = 4,		/* u32 offset from the base */
	FZR_M_VA = 8,		/* u32 offset into the MR */
	FZR_M_DMALEN = 12,	/* u32 RETH length; ~0: the message's */
	FZR_M_IMM = 16,		/* u32 ImmDt; SEND with invalidate: an MR
				 * selector */
	FZR_M_LAST = 20,	/* u16 payload of the last packet */
	FZR_M_FILL = 22,	/* u8 */
	FZR_M_SYND = 23,	/* u8 READ responses' AETH syndrome */
	FZR_M_BYTES = 24,
};

#define FZR_MSG_MAX 32u
#define FZR_REF_BYTES 65536u

enum {
	FZR_K_SEND = 0,
	FZR_K_WRITE = 1,
	FZR_K_RDRESP = 2,	/* READ response packets (to QP 1) */
	FZR_K_OPMASK = 3,
	FZR_K_IMM = 1 << 2,	/* the last packet carries ImmDt */
	FZR_K_INV = 1 << 3,	/* SEND: the last packet carries an IETH */
	FZR_K_ACKALL = 1 << 4,	/* AckReq on every packet, not only the last */
	FZR_K_SE = 1 << 5,
	/* The message as one SEND by reference (SMX_CELL_F_REF): its ONLY
	 * header without payload and a struct smx_sref naming the harness's
	 * memfd (FZR_REF_BYTES of pattern): np PSNs, (np - 1) * MTU +
	 * FZR_M_LAST bytes at offset FZR_M_VA; FZR_M_SYND bit 0: a stale key
	 * generation, bit 1: a wrong inode, bit 2: np + 1 PSNs claimed. */
	FZR_K_REF = 1 << 6,
	/* The message as a direct SEND (eng_drq.c), if the device lent the
	 * peer a receive queue (answered a SEND asking with FZR_MODE_DREQ):
	 * the harness, as that peer, claims the next armed receive (unless
	 * FZR_M_SYND bit 0), publishes an arrival of (np - 1) * MTU +
	 * FZR_M_LAST bytes, immediate FZR_M_IMM, the kind's IMM / SE, in
	 * arrival slot claim + (FZR_M_PSN & 3) (FZR_M_SYND bit 1: its
	 * sequence off by FZR_M_VA; bits 4-7 go into its flags), then lets
	 * the device poll. Nothing is placed in the receive buffer. */
	FZR_K_DIRECT = 1 << 7,
};

/* The requests QP 1 may have in flight, in posting order: @len bytes from
 * / into the local region 2 at @loff; remote address FZR_REQ_RADDR. */
enum { FZR_RQ_SEND, FZR_RQ_WRITE, FZR_RQ_READ, FZR_RQ_CAS, FZR_RQ_FADD };

struct fzr_req {
	uint8_t op;
	uint32_t len, loff;
};

static const struct fzr_req fzr_req[6] = {
	{ FZR_RQ_SEND, 1500, 0 },
	{ FZR_RQ_WRITE, 300, 2048 },
	{ FZR_RQ_READ, 2100, 4096 },
	{ FZR_RQ_CAS, 8, 6400 },
	{ FZR_RQ_FADD, 8, 6408 },
	{ FZR_RQ_READ, 100, 6656 },
};

#define FZR_REQ_RADDR 0x7f0000001000ull
#define FZR_REQ_RKEY 0x00abcd42u

/* PSNs request @k takes at path MTU @mtu (a READ: one per response
 * packet; an atomic: one). */
static inline uint32_t fzr_req_npkts(unsigned int k, uint32_t mtu)
{
	const struct fzr_req *r = &fzr_req[k];

	if (r->op == FZR_RQ_CAS || r->op == FZR_RQ_FADD || !r->len)
		return 1;
	return (r->len + mtu - 1) / mtu;
}

#endif
