/* SPDX-License-Identifier: MIT */
/*
 * IBTA transport headers (IBTA Vol. 1 ch. 9): the Base Transport Header and
 * the extended transport headers that follow it, one opcode table, and a
 * parser and builder between wire bytes and a parsed form (struct ibp_hdr).
 *
 * Every layout is described once, here: the byte offset of each field
 * within its header (IBP_<HDR>_<FIELD>) and its size (IBP_<HDR>_BYTES).
 * Fields are big-endian on the wire and are read and written only through
 * the ibp_get* / ibp_put* accessors below, so no layout is a C struct whose
 * padding or byte order could disagree with the wire.
 *
 * DC is not in the IBTA specification. softmlx5 carries it in the
 * manufacturer-specific opcode range, as its own format:
 *   - a DC request's opcode is 0xE0 | (RC opcode & 0x1f);
 *   - a DCETH (16 bytes, below) follows the BTH;
 *   - the RC request's extended headers (RETH, ImmDt, AtomicETH, IETH)
 *     follow the DCETH as they would follow the BTH;
 *   - DC responses (ACK, READ response, atomic ACK) are the plain RC
 *     response opcodes, sent to the DCI's QPN.
 * Real ConnectX DC wire packets are not documented publicly; this format
 * only has to agree with itself (both ends are softmlx5).
 */
#ifndef SMX_DEVICE_TRANSPORT_IB_PKT_H
#define SMX_DEVICE_TRANSPORT_IB_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- big-endian accessors ------------------------------------------------ */

static inline uint16_t ibp_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t ibp_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t ibp_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t ibp_get64(const uint8_t *p)
{
	return (uint64_t)ibp_get32(p) << 32 | ibp_get32(p + 4);
}

static inline void ibp_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void ibp_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void ibp_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void ibp_put64(uint8_t *p, uint64_t v)
{
	ibp_put32(p, (uint32_t)(v >> 32));
	ibp_put32(p + 4, (uint32_t)v);
}

/* ---- layouts: byte offsets within each header ---------------------------- */

/*
 * BTH, 12 bytes.
 *   byte 0      OpCode
 *   byte 1      SE(7) | M(6) | PadCnt(5:4) | TVer(3:0), TVer = 0
 *   bytes 2-3   P_Key
 *   byte 4      FECN(7) | BECN(6) | Resv6 -- "Resv8a", masked in the ICRC
 *   bytes 5-7   DestQP (24 bits)
 *   byte 8      AckReq(7) | Resv7
 *   bytes 9-11  PSN (24 bits)
 */
enum {
	IBP_BTH_OPCODE = 0,
	IBP_BTH_FLAGS = 1,
	IBP_BTH_PKEY = 2,
	IBP_BTH_RESV8A = 4,
	IBP_BTH_DQPN = 5,
	IBP_BTH_ACKREQ = 8,
	IBP_BTH_PSN = 9,
	IBP_BTH_BYTES = 12,

	IBP_BTH_SE = 0x80,		/* in byte 1 */
	IBP_BTH_MIG = 0x40,
	IBP_BTH_PAD_SHIFT = 4,
	IBP_BTH_PAD_MASK = 0x30,
	IBP_BTH_TVER_MASK = 0x0f,
	IBP_BTH_FECN = 0x80,		/* in byte 4 */
	IBP_BTH_BECN = 0x40,
	IBP_BTH_ACKREQ_BIT = 0x80,	/* in byte 8 */
};

/* RETH, 16 bytes: VA(64) R_Key(32) DMA Length(32). */
enum { IBP_RETH_VA = 0, IBP_RETH_RKEY = 8, IBP_RETH_LEN = 12, IBP_RETH_BYTES = 16 };

/* AETH, 4 bytes: Syndrome(8) MSN(24). */
enum { IBP_AETH_SYNDROME = 0, IBP_AETH_MSN = 1, IBP_AETH_BYTES = 4 };

/* AtomicETH, 28 bytes: VA(64) R_Key(32) Swap/Add Data(64) Compare Data(64). */
enum {
	IBP_ATOMICETH_VA = 0,
	IBP_ATOMICETH_RKEY = 8,
	IBP_ATOMICETH_SWAP_ADD = 12,
	IBP_ATOMICETH_COMPARE = 20,
	IBP_ATOMICETH_BYTES = 28,
};

/* AtomicAckETH, 8 bytes: the original remote value. */
enum { IBP_ATOMICACKETH_ORIG = 0, IBP_ATOMICACKETH_BYTES = 8 };

/* ImmDt, 4 bytes, opaque. */
enum { IBP_IMMDT_BYTES = 4 };

/* IETH, 4 bytes: the R_Key to invalidate. */
enum { IBP_IETH_RKEY = 0, IBP_IETH_BYTES = 4 };

/* DETH, 8 bytes: Q_Key(32) Reserved(8) SrcQP(24). */
enum { IBP_DETH_QKEY = 0, IBP_DETH_SRCQP = 5, IBP_DETH_BYTES = 8 };

/* XRCETH, 4 bytes: Reserved(8) XRC SRQ number(24). */
enum { IBP_XRCETH_SRQN = 1, IBP_XRCETH_BYTES = 4 };

/* DCETH (softmlx5's own, see the top of this file), 16 bytes:
 *   bytes 0-7    DC access key
 *   byte 8       stream generation: the DCI's entries into RTS, mod 256
 *                (a DCT starts afresh with an initiator whose generation
 *                changed: the DCI was reset and its PSNs begin again)
 *   bytes 9-11   source DCI QPN (24 bits)
 *   bytes 12-15  reserved */
enum { IBP_DCETH_KEY = 0, IBP_DCETH_GEN = 8, IBP_DCETH_SQPN = 9,
       IBP_DCETH_BYTES = 16 };

/* Largest payload one packet may carry: the largest IBTA path MTU. */
#define IBP_MAX_PAYLOAD 4096u
/* Largest BTH + extended headers of any opcode (a DC atomic). */
#define IBP_MAX_HDR_LEN (IBP_BTH_BYTES + IBP_DCETH_BYTES + IBP_ATOMICETH_BYTES)

/* GSI's well-known Q_Key. */
#define IBP_GSI_QKEY 0x80010000u

/* ---- AETH syndrome ------------------------------------------------------- */

/*
 * Bits 6:5 of the syndrome give the kind (00 ACK, 01 RNR NAK, 11 NAK);
 * bits 4:0 are the credit count of an ACK, the timer of an RNR NAK or the
 * code of a NAK.
 */
enum {
	IBP_AETH_KIND_MASK = 0x60,
	IBP_AETH_KIND_ACK = 0x00,
	IBP_AETH_KIND_RNR_NAK = 0x20,
	IBP_AETH_KIND_NAK = 0x60,
	IBP_AETH_VALUE_MASK = 0x1f,

	/* ACK credit count 0x1f: no credit information (rxe always sends it) */
	IBP_AETH_CREDIT_INVALID = 0x1f,

	/* NAK syndromes */
	IBP_NAK_PSN_SEQ_ERR = 0x60,	/* PSN sequence error */
	IBP_NAK_INV_REQ = 0x61,		/* invalid request */
	IBP_NAK_REM_ACCESS_ERR = 0x62,	/* remote access error */
	IBP_NAK_REM_OP_ERR = 0x63,	/* remote operational error */
	IBP_NAK_INV_RD_REQ = 0x64,	/* invalid RD request (not used here) */
};

/* ACK syndrome carrying a credit count (IBP_AETH_CREDIT_INVALID: none). */
static inline uint8_t ibp_aeth_ack(uint8_t credits)
{
	return IBP_AETH_KIND_ACK | (credits & IBP_AETH_VALUE_MASK);
}

/* RNR NAK syndrome with the 5-bit RNR timer (ibp_rnr_timer_us). */
static inline uint8_t ibp_aeth_rnr_nak(uint8_t timer)
{
	return IBP_AETH_KIND_RNR_NAK | (timer & IBP_AETH_VALUE_MASK);
}

static inline bool ibp_aeth_is_ack(uint8_t syn)
{
	return (syn & IBP_AETH_KIND_MASK) == IBP_AETH_KIND_ACK;
}

static inline bool ibp_aeth_is_rnr_nak(uint8_t syn)
{
	return (syn & IBP_AETH_KIND_MASK) == IBP_AETH_KIND_RNR_NAK;
}

static inline bool ibp_aeth_is_nak(uint8_t syn)
{
	return (syn & IBP_AETH_KIND_MASK) == IBP_AETH_KIND_NAK;
}

/* Credit count of an ACK, timer of an RNR NAK, code of a NAK. */
static inline uint8_t ibp_aeth_value(uint8_t syn)
{
	return syn & IBP_AETH_VALUE_MASK;
}

/* The name of a NAK's code ("PSN sequence error"; decoders, messages). */
const char *ibp_nak_name(uint8_t syn);

/* The RNR NAK timer field in microseconds (IBTA Vol. 1 Table 45:
 * 0 = 655.36 ms, 1 = 0.01 ms, ..., 31 = 491.52 ms). */
uint32_t ibp_rnr_timer_us(uint8_t timer);

/* ---- opcodes ------------------------------------------------------------- */

/* Transport bases (opcode bits 7:5). */
enum {
	IBP_TR_RC = 0x00,
	IBP_TR_UC = 0x20,
	IBP_TR_RD = 0x40,
	IBP_TR_UD = 0x60,
	IBP_TR_CNP = 0x80,
	IBP_TR_XRC = 0xA0,
	IBP_TR_DC = 0xE0,	/* manufacturer-specific range: softmlx5's DC */
	IBP_TR_MASK = 0xE0,
};

/* Operations (opcode bits 4:0), the same for every transport. */
enum {
	IBP_OP_SEND_FIRST = 0x00,
	IBP_OP_SEND_MIDDLE = 0x01,
	IBP_OP_SEND_LAST = 0x02,
	IBP_OP_SEND_LAST_IMM = 0x03,
	IBP_OP_SEND_ONLY = 0x04,
	IBP_OP_SEND_ONLY_IMM = 0x05,
	IBP_OP_WRITE_FIRST = 0x06,
	IBP_OP_WRITE_MIDDLE = 0x07,
	IBP_OP_WRITE_LAST = 0x08,
	IBP_OP_WRITE_LAST_IMM = 0x09,
	IBP_OP_WRITE_ONLY = 0x0a,
	IBP_OP_WRITE_ONLY_IMM = 0x0b,
	IBP_OP_READ_REQ = 0x0c,
	IBP_OP_READ_RESP_FIRST = 0x0d,
	IBP_OP_READ_RESP_MIDDLE = 0x0e,
	IBP_OP_READ_RESP_LAST = 0x0f,
	IBP_OP_READ_RESP_ONLY = 0x10,
	IBP_OP_ACK = 0x11,
	IBP_OP_ATOMIC_ACK = 0x12,
	IBP_OP_CMP_SWAP = 0x13,
	IBP_OP_FETCH_ADD = 0x14,
	IBP_OP_SEND_LAST_INV = 0x16,
	IBP_OP_SEND_ONLY_INV = 0x17,
	IBP_OP_ATOMIC_WRITE = 0x1d,
	IBP_OP_MASK = 0x1f,
};

/* Extended headers an opcode carries after the BTH. */
enum ibp_hdr_kind {
	IBP_H_NONE = 0,
	IBP_H_XRCETH,
	IBP_H_DCETH,
	IBP_H_DETH,
	IBP_H_RETH,
	IBP_H_ATOMICETH,
	IBP_H_AETH,
	IBP_H_ATOMICACKETH,
	IBP_H_IMMDT,
	IBP_H_IETH,
	IBP_H_COUNT,
};

/* Opcode flags (struct ibp_op.flags). */
enum {
	IBP_OF_REQ = 1u << 0,		/* requester to responder */
	IBP_OF_RESP = 1u << 1,		/* responder to requester */
	IBP_OF_FIRST = 1u << 2,		/* first packet of a message */
	IBP_OF_MIDDLE = 1u << 3,
	IBP_OF_LAST = 1u << 4,
	IBP_OF_ONLY = IBP_OF_FIRST | IBP_OF_LAST,
	IBP_OF_PAYLOAD = 1u << 5,	/* may carry payload */
	IBP_OF_IMM = 1u << 6,		/* ImmDt present */
	IBP_OF_INV = 1u << 7,		/* IETH present */
	IBP_OF_SEND = 1u << 8,
	IBP_OF_WRITE = 1u << 9,
	IBP_OF_READ_REQ = 1u << 10,
	IBP_OF_READ_RESP = 1u << 11,
	IBP_OF_ACK = 1u << 12,
	IBP_OF_ATOMIC = 1u << 13,	/* CmpSwap, FetchAdd */
	IBP_OF_ATOMIC_ACK = 1u << 14,
	/* Described in the table but not offered by softmlx5 (RC ATOMIC
	 * WRITE, 0x1d: rxe has it, the device does not advertise it). */
	IBP_OF_UNSUPPORTED = 1u << 15,
};

#define IBP_OP_MAX_HDRS 4

struct ibp_op {
	const char *name;	/* as Wireshark prints it; NULL: unknown opcode */
	uint32_t flags;		/* IBP_OF_* */
	uint8_t transport;	/* IBP_TR_* */
	uint8_t hdr_len;	/* BTH + extended headers */
	/* Extended headers after the BTH, in wire order, IBP_H_NONE-ended. */
	uint8_t hdrs[IBP_OP_MAX_HDRS];
	/* Byte offset from the BTH of each extended header present (0: absent). */
	uint8_t off[IBP_H_COUNT];
};

extern const struct ibp_op ibp_op_info[256];

/* The opcode's entry, NULL when unknown. */
const struct ibp_op *ibp_op(uint8_t opcode);

/* Size in bytes of one extended header. */
uint32_t ibp_hdr_size(enum ibp_hdr_kind k);

/* Name of an extended header ("RETH"), for messages. */
const char *ibp_hdr_name(enum ibp_hdr_kind k);

/* ---- parsed form, parser, builder ---------------------------------------- */

struct ibp_hdr {
	/* BTH */
	uint8_t opcode;
	bool se, mig;
	uint8_t pad;
	uint16_t pkey;
	uint8_t resv8a;			/* BTH byte 4 (FECN/BECN) */
	uint32_t dqpn;
	bool ackreq;
	uint32_t psn;
	uint32_t xrc_srqn;		/* XRCETH */
	uint64_t dc_key;		/* DCETH */
	uint8_t dc_gen;
	uint32_t dc_sqpn;
	uint32_t qkey, src_qp;		/* DETH */
	uint64_t va;			/* RETH; AtomicETH uses va/rkey too */
	uint32_t rkey, dma_len;
	uint64_t swap_add, compare;	/* AtomicETH */
	uint8_t syndrome;		/* AETH */
	uint32_t msn;
	uint64_t atomic_orig;		/* AtomicAckETH */
	/* ImmDt as on the wire: its 4 bytes memcpy'd, so the value is the
	 * big-endian one the verbs API shows (imm_data is __be32). */
	uint32_t imm;
	uint32_t ieth_rkey;		/* IETH (host order) */
	uint32_t hdr_len;		/* BTH + extended headers */
	const uint8_t *payload;		/* after the headers, pad excluded */
	uint32_t paylen;
};

/*
 * Parses one IB transport packet. buf/len: from the BTH to the end of
 * payload + pad (no ICRC). Returns 0, or -1 with *why set to a static
 * string naming the failed check. Validates the structure (TVer, opcode
 * known, headers present, length a multiple of 4, pad within the payload,
 * no payload on an opcode that carries none, payload at most
 * IBP_MAX_PAYLOAD, the fixed payload of ATOMIC WRITE); semantic checks
 * (P_Key, QPN, PSN window) belong to the transport. Never reads outside
 * buf[0..len). h->payload points into buf.
 */
int ibp_parse(const uint8_t *buf, uint32_t len, struct ibp_hdr *h, const char **why);

/*
 * Writes the BTH and the extended headers h->opcode needs, from h. The
 * BTH pad count is ibp_pad(h->paylen); TVer is 0; reserved fields are 0.
 * The payload is not written (the caller puts h->paylen bytes and the pad
 * right after). Returns the header length, or 0 if the opcode is unknown
 * or room is too small.
 */
uint32_t ibp_build(uint8_t *buf, uint32_t room, const struct ibp_hdr *h);

/*
 * The opcode (without the transport's base) of a packet of a message cut
 * at the MTU: @first / @last say where it lies (both: ONLY), @imm and
 * @inv (SEND) whether the message carries immediate data or an rkey to
 * invalidate -- on its last packet, as IBTA 9.4 puts them.
 */
static inline uint8_t ibp_op_send(bool first, bool last, bool imm, bool inv)
{
	if (first && last)
		return inv ? IBP_OP_SEND_ONLY_INV : imm ? IBP_OP_SEND_ONLY_IMM :
		       IBP_OP_SEND_ONLY;
	if (first)
		return IBP_OP_SEND_FIRST;
	if (last)
		return inv ? IBP_OP_SEND_LAST_INV : imm ? IBP_OP_SEND_LAST_IMM :
		       IBP_OP_SEND_LAST;
	return IBP_OP_SEND_MIDDLE;
}

static inline uint8_t ibp_op_write(bool first, bool last, bool imm)
{
	if (first && last)
		return imm ? IBP_OP_WRITE_ONLY_IMM : IBP_OP_WRITE_ONLY;
	if (first)
		return IBP_OP_WRITE_FIRST;
	if (last)
		return imm ? IBP_OP_WRITE_LAST_IMM : IBP_OP_WRITE_LAST;
	return IBP_OP_WRITE_MIDDLE;
}

static inline uint8_t ibp_op_read_resp(bool first, bool last)
{
	if (first && last)
		return IBP_OP_READ_RESP_ONLY;
	if (first)
		return IBP_OP_READ_RESP_FIRST;
	return last ? IBP_OP_READ_RESP_LAST : IBP_OP_READ_RESP_MIDDLE;
}

/* Pad bytes that follow a payload of paylen bytes. */
static inline uint32_t ibp_pad(uint32_t paylen)
{
	return (4 - (paylen & 3)) & 3;
}

/*
 * One line for SOFTMLX5_DEBUG / traces, e.g.
 * "RC SEND Only psn 0x000123 dqpn 0x000012 ackreq se len 13".
 * Returns what snprintf would (the untruncated length).
 */
int ibp_format(char *out, size_t room, const struct ibp_hdr *h);

/* 24-bit PSN arithmetic: the signed distance a - b (negative: a is older). */
static inline int32_t ibp_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif
