/* SPDX-License-Identifier: MIT */
/*
 * IBTA transport headers: the opcode table, the parser, the builder and the
 * one-line formatter. Layouts and the DC format: ib_pkt.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "device/transport/ib_pkt.h"

/* ---- the opcode table ---------------------------------------------------- */

#define N IBP_H_NONE
/* Size of an extended header, as a constant expression for the table. */
#define HSZ(k)                                                                 \
	((k) == IBP_H_XRCETH ? IBP_XRCETH_BYTES :                              \
	 (k) == IBP_H_DCETH ? IBP_DCETH_BYTES :                                \
	 (k) == IBP_H_DETH ? IBP_DETH_BYTES :                                  \
	 (k) == IBP_H_RETH ? IBP_RETH_BYTES :                                  \
	 (k) == IBP_H_ATOMICETH ? IBP_ATOMICETH_BYTES :                        \
	 (k) == IBP_H_AETH ? IBP_AETH_BYTES :                                  \
	 (k) == IBP_H_ATOMICACKETH ? IBP_ATOMICACKETH_BYTES :                  \
	 (k) == IBP_H_IMMDT ? IBP_IMMDT_BYTES :                                \
	 (k) == IBP_H_IETH ? IBP_IETH_BYTES : 0)
#define HLEN_(a, b, c, d, ...) (IBP_BTH_BYTES + HSZ(a) + HSZ(b) + HSZ(c) + HSZ(d))
#define HLEN(...) HLEN_(__VA_ARGS__, N, N, N, N)

/* One entry; the header list is at least N. */
#define OP(opc, nm, fl, ...)                                                   \
	[opc] = { .name = nm, .flags = (fl), .transport = (opc) & IBP_TR_MASK, \
		  .hdr_len = HLEN(__VA_ARGS__), .hdrs = { __VA_ARGS__ } }

/* A request of RC, XRC (XRCETH first) and DC (DCETH first). */
#define REQ(op, nm, fl, ...)                                                   \
	OP(IBP_TR_RC | (op), "RC " nm, IBP_OF_REQ | (fl), __VA_ARGS__),        \
	OP(IBP_TR_XRC | (op), "XRC " nm, IBP_OF_REQ | (fl), IBP_H_XRCETH,      \
	   __VA_ARGS__),                                                       \
	OP(IBP_TR_DC | (op), "DC " nm, IBP_OF_REQ | (fl), IBP_H_DCETH,         \
	   __VA_ARGS__)
/* A SEND or WRITE request, which UC has too. */
#define REQ_UC(op, nm, fl, ...)                                                \
	REQ(op, nm, fl, __VA_ARGS__),                                          \
	OP(IBP_TR_UC | (op), "UC " nm, IBP_OF_REQ | (fl), __VA_ARGS__)
/* A response of RC and XRC (no XRCETH); DC responses are RC's. */
#define RESP(op, nm, fl, ...)                                                  \
	OP(IBP_TR_RC | (op), "RC " nm, IBP_OF_RESP | (fl), __VA_ARGS__),       \
	OP(IBP_TR_XRC | (op), "XRC " nm, IBP_OF_RESP | (fl), __VA_ARGS__)

#define F_SEND (IBP_OF_SEND | IBP_OF_PAYLOAD)
#define F_WRITE (IBP_OF_WRITE | IBP_OF_PAYLOAD)
#define F_RRESP (IBP_OF_READ_RESP | IBP_OF_PAYLOAD)

const struct ibp_op ibp_op_info[256] = {
	REQ_UC(IBP_OP_SEND_FIRST, "SEND First", F_SEND | IBP_OF_FIRST, N),
	REQ_UC(IBP_OP_SEND_MIDDLE, "SEND Middle", F_SEND | IBP_OF_MIDDLE, N),
	REQ_UC(IBP_OP_SEND_LAST, "SEND Last", F_SEND | IBP_OF_LAST, N),
	REQ_UC(IBP_OP_SEND_LAST_IMM, "SEND Last with Immediate",
	       F_SEND | IBP_OF_LAST | IBP_OF_IMM, IBP_H_IMMDT),
	REQ_UC(IBP_OP_SEND_ONLY, "SEND Only", F_SEND | IBP_OF_ONLY, N),
	REQ_UC(IBP_OP_SEND_ONLY_IMM, "SEND Only with Immediate",
	       F_SEND | IBP_OF_ONLY | IBP_OF_IMM, IBP_H_IMMDT),
	REQ_UC(IBP_OP_WRITE_FIRST, "RDMA WRITE First", F_WRITE | IBP_OF_FIRST,
	       IBP_H_RETH),
	REQ_UC(IBP_OP_WRITE_MIDDLE, "RDMA WRITE Middle", F_WRITE | IBP_OF_MIDDLE, N),
	REQ_UC(IBP_OP_WRITE_LAST, "RDMA WRITE Last", F_WRITE | IBP_OF_LAST, N),
	REQ_UC(IBP_OP_WRITE_LAST_IMM, "RDMA WRITE Last with Immediate",
	       F_WRITE | IBP_OF_LAST | IBP_OF_IMM, IBP_H_IMMDT),
	REQ_UC(IBP_OP_WRITE_ONLY, "RDMA WRITE Only", F_WRITE | IBP_OF_ONLY,
	       IBP_H_RETH),
	REQ_UC(IBP_OP_WRITE_ONLY_IMM, "RDMA WRITE Only with Immediate",
	       F_WRITE | IBP_OF_ONLY | IBP_OF_IMM, IBP_H_RETH, IBP_H_IMMDT),
	REQ(IBP_OP_READ_REQ, "RDMA READ Request", IBP_OF_READ_REQ | IBP_OF_ONLY,
	    IBP_H_RETH),
	RESP(IBP_OP_READ_RESP_FIRST, "RDMA READ response First",
	     F_RRESP | IBP_OF_FIRST, IBP_H_AETH),
	RESP(IBP_OP_READ_RESP_MIDDLE, "RDMA READ response Middle",
	     F_RRESP | IBP_OF_MIDDLE, N),
	RESP(IBP_OP_READ_RESP_LAST, "RDMA READ response Last",
	     F_RRESP | IBP_OF_LAST, IBP_H_AETH),
	RESP(IBP_OP_READ_RESP_ONLY, "RDMA READ response Only",
	     F_RRESP | IBP_OF_ONLY, IBP_H_AETH),
	RESP(IBP_OP_ACK, "Acknowledge", IBP_OF_ACK | IBP_OF_ONLY, IBP_H_AETH),
	RESP(IBP_OP_ATOMIC_ACK, "ATOMIC Acknowledge",
	     IBP_OF_ATOMIC_ACK | IBP_OF_ONLY, IBP_H_AETH, IBP_H_ATOMICACKETH),
	REQ(IBP_OP_CMP_SWAP, "CmpSwap", IBP_OF_ATOMIC | IBP_OF_ONLY,
	    IBP_H_ATOMICETH),
	REQ(IBP_OP_FETCH_ADD, "FetchAdd", IBP_OF_ATOMIC | IBP_OF_ONLY,
	    IBP_H_ATOMICETH),
	REQ(IBP_OP_SEND_LAST_INV, "SEND Last with Invalidate",
	    F_SEND | IBP_OF_LAST | IBP_OF_INV, IBP_H_IETH),
	REQ(IBP_OP_SEND_ONLY_INV, "SEND Only with Invalidate",
	    F_SEND | IBP_OF_ONLY | IBP_OF_INV, IBP_H_IETH),
	/* IBTA 1.5 ATOMIC WRITE: RETH and exactly 8 bytes of payload. RC only. */
	OP(IBP_TR_RC | IBP_OP_ATOMIC_WRITE, "RC ATOMIC WRITE",
	   IBP_OF_REQ | IBP_OF_ONLY | IBP_OF_WRITE | IBP_OF_PAYLOAD |
	   IBP_OF_UNSUPPORTED, IBP_H_RETH),
	OP(IBP_TR_UD | IBP_OP_SEND_ONLY, "UD SEND only",
	   IBP_OF_REQ | F_SEND | IBP_OF_ONLY, IBP_H_DETH),
	OP(IBP_TR_UD | IBP_OP_SEND_ONLY_IMM, "UD SEND only with Immediate",
	   IBP_OF_REQ | F_SEND | IBP_OF_ONLY | IBP_OF_IMM, IBP_H_DETH, IBP_H_IMMDT),
};

_Static_assert(IBP_MAX_HDR_LEN == HLEN(IBP_H_DCETH, IBP_H_ATOMICETH),
	       "largest header stack");

const struct ibp_op *ibp_op(uint8_t opcode)
{
	const struct ibp_op *op = &ibp_op_info[opcode];

	return op->name ? op : NULL;
}

uint32_t ibp_hdr_size(enum ibp_hdr_kind k)
{
	return HSZ(k);
}

static const char *const ibp_hdr_names[IBP_H_COUNT] = {
	[IBP_H_NONE] = "none",
	[IBP_H_XRCETH] = "XRCETH",
	[IBP_H_DCETH] = "DCETH",
	[IBP_H_DETH] = "DETH",
	[IBP_H_RETH] = "RETH",
	[IBP_H_ATOMICETH] = "AtomicETH",
	[IBP_H_AETH] = "AETH",
	[IBP_H_ATOMICACKETH] = "AtomicAckETH",
	[IBP_H_IMMDT] = "ImmDt",
	[IBP_H_IETH] = "IETH",
};

/* The parser's "why" for a header cut short. */
static const char *const ibp_hdr_truncated[IBP_H_COUNT] = {
	[IBP_H_NONE] = "truncated BTH",
	[IBP_H_XRCETH] = "XRCETH truncated",
	[IBP_H_DCETH] = "DCETH truncated",
	[IBP_H_DETH] = "DETH truncated",
	[IBP_H_RETH] = "RETH truncated",
	[IBP_H_ATOMICETH] = "AtomicETH truncated",
	[IBP_H_AETH] = "AETH truncated",
	[IBP_H_ATOMICACKETH] = "AtomicAckETH truncated",
	[IBP_H_IMMDT] = "ImmDt truncated",
	[IBP_H_IETH] = "IETH truncated",
};

const char *ibp_hdr_name(enum ibp_hdr_kind k)
{
	return (unsigned int)k < IBP_H_COUNT ? ibp_hdr_names[k] : "?";
}

/* "unknown opcode 0x.." for each opcode, so the parser's why stays static. */
#define UNK(h, l) "unknown opcode 0x" #h #l
#define UNK16(h)                                                               \
	UNK(h, 0), UNK(h, 1), UNK(h, 2), UNK(h, 3), UNK(h, 4), UNK(h, 5),      \
	UNK(h, 6), UNK(h, 7), UNK(h, 8), UNK(h, 9), UNK(h, a), UNK(h, b),      \
	UNK(h, c), UNK(h, d), UNK(h, e), UNK(h, f)
static const char *const ibp_unknown_opcode[256] = {
	UNK16(0), UNK16(1), UNK16(2), UNK16(3), UNK16(4), UNK16(5), UNK16(6),
	UNK16(7), UNK16(8), UNK16(9), UNK16(a), UNK16(b), UNK16(c), UNK16(d),
	UNK16(e), UNK16(f),
};

/* IBTA Vol. 1 Table 45, in microseconds. */
static const uint32_t ibp_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint32_t ibp_rnr_timer_us(uint8_t timer)
{
	return ibp_rnr_us[timer & IBP_AETH_VALUE_MASK];
}

/* ---- parser -------------------------------------------------------------- */

static void ibp_read_ext(const uint8_t *p, enum ibp_hdr_kind k, struct ibp_hdr *h)
{
	switch (k) {
	case IBP_H_XRCETH:
		h->xrc_srqn = ibp_get24(p + IBP_XRCETH_SRQN);
		break;
	case IBP_H_DCETH:
		h->dc_key = ibp_get64(p + IBP_DCETH_KEY);
		h->dc_gen = p[IBP_DCETH_GEN];
		h->dc_sqpn = ibp_get24(p + IBP_DCETH_SQPN);
		break;
	case IBP_H_DETH:
		h->qkey = ibp_get32(p + IBP_DETH_QKEY);
		h->src_qp = ibp_get24(p + IBP_DETH_SRCQP);
		break;
	case IBP_H_RETH:
		h->va = ibp_get64(p + IBP_RETH_VA);
		h->rkey = ibp_get32(p + IBP_RETH_RKEY);
		h->dma_len = ibp_get32(p + IBP_RETH_LEN);
		break;
	case IBP_H_ATOMICETH:
		h->va = ibp_get64(p + IBP_ATOMICETH_VA);
		h->rkey = ibp_get32(p + IBP_ATOMICETH_RKEY);
		h->swap_add = ibp_get64(p + IBP_ATOMICETH_SWAP_ADD);
		h->compare = ibp_get64(p + IBP_ATOMICETH_COMPARE);
		break;
	case IBP_H_AETH:
		h->syndrome = p[IBP_AETH_SYNDROME];
		h->msn = ibp_get24(p + IBP_AETH_MSN);
		break;
	case IBP_H_ATOMICACKETH:
		h->atomic_orig = ibp_get64(p + IBP_ATOMICACKETH_ORIG);
		break;
	case IBP_H_IMMDT:
		memcpy(&h->imm, p, IBP_IMMDT_BYTES);
		break;
	case IBP_H_IETH:
		h->ieth_rkey = ibp_get32(p + IBP_IETH_RKEY);
		break;
	case IBP_H_NONE:
	case IBP_H_COUNT:
		break;
	}
}

int ibp_parse(const uint8_t *buf, uint32_t len, struct ibp_hdr *h, const char **why)
{
	const struct ibp_op *op;
	uint32_t off, rem, i;

	memset(h, 0, sizeof(*h));
	if (len < IBP_BTH_BYTES) {
		*why = "truncated BTH";
		return -1;
	}
	if (buf[IBP_BTH_FLAGS] & IBP_BTH_TVER_MASK) {
		*why = "TVer != 0";
		return -1;
	}
	op = ibp_op(buf[IBP_BTH_OPCODE]);
	if (!op) {
		*why = ibp_unknown_opcode[buf[IBP_BTH_OPCODE]];
		return -1;
	}
	h->opcode = buf[IBP_BTH_OPCODE];
	h->se = buf[IBP_BTH_FLAGS] & IBP_BTH_SE;
	h->mig = buf[IBP_BTH_FLAGS] & IBP_BTH_MIG;
	h->pad = (buf[IBP_BTH_FLAGS] & IBP_BTH_PAD_MASK) >> IBP_BTH_PAD_SHIFT;
	h->pkey = ibp_get16(buf + IBP_BTH_PKEY);
	h->resv8a = buf[IBP_BTH_RESV8A];
	h->dqpn = ibp_get24(buf + IBP_BTH_DQPN);
	h->ackreq = buf[IBP_BTH_ACKREQ] & IBP_BTH_ACKREQ_BIT;
	h->psn = ibp_get24(buf + IBP_BTH_PSN);

	off = IBP_BTH_BYTES;
	for (i = 0; i < IBP_OP_MAX_HDRS && op->hdrs[i] != IBP_H_NONE; i++) {
		enum ibp_hdr_kind k = op->hdrs[i];
		uint32_t sz = HSZ(k);

		if (len - off < sz) {
			*why = ibp_hdr_truncated[k];
			return -1;
		}
		ibp_read_ext(buf + off, k, h);
		off += sz;
	}
	/* Every header is a multiple of 4 bytes, so payload + pad must be. */
	if (len & 3) {
		*why = "length not a multiple of 4";
		return -1;
	}
	rem = len - off;
	if (h->pad > rem) {
		*why = "pad exceeds payload";
		return -1;
	}
	h->hdr_len = off;
	h->payload = buf + off;
	h->paylen = rem - h->pad;
	if (h->paylen && !(op->flags & IBP_OF_PAYLOAD)) {
		*why = "payload on an opcode that carries none";
		return -1;
	}
	if (h->paylen > IBP_MAX_PAYLOAD) {
		*why = "packet too long";
		return -1;
	}
	if ((h->opcode & IBP_OP_MASK) == IBP_OP_ATOMIC_WRITE && h->paylen != 8) {
		*why = "ATOMIC WRITE payload not 8 bytes";
		return -1;
	}
	return 0;
}

/* ---- builder ------------------------------------------------------------- */

static void ibp_write_ext(uint8_t *p, enum ibp_hdr_kind k, const struct ibp_hdr *h)
{
	memset(p, 0, HSZ(k));
	switch (k) {
	case IBP_H_XRCETH:
		ibp_put24(p + IBP_XRCETH_SRQN, h->xrc_srqn);
		break;
	case IBP_H_DCETH:
		ibp_put64(p + IBP_DCETH_KEY, h->dc_key);
		p[IBP_DCETH_GEN] = h->dc_gen;
		ibp_put24(p + IBP_DCETH_SQPN, h->dc_sqpn);
		break;
	case IBP_H_DETH:
		ibp_put32(p + IBP_DETH_QKEY, h->qkey);
		ibp_put24(p + IBP_DETH_SRCQP, h->src_qp);
		break;
	case IBP_H_RETH:
		ibp_put64(p + IBP_RETH_VA, h->va);
		ibp_put32(p + IBP_RETH_RKEY, h->rkey);
		ibp_put32(p + IBP_RETH_LEN, h->dma_len);
		break;
	case IBP_H_ATOMICETH:
		ibp_put64(p + IBP_ATOMICETH_VA, h->va);
		ibp_put32(p + IBP_ATOMICETH_RKEY, h->rkey);
		ibp_put64(p + IBP_ATOMICETH_SWAP_ADD, h->swap_add);
		ibp_put64(p + IBP_ATOMICETH_COMPARE, h->compare);
		break;
	case IBP_H_AETH:
		p[IBP_AETH_SYNDROME] = h->syndrome;
		ibp_put24(p + IBP_AETH_MSN, h->msn);
		break;
	case IBP_H_ATOMICACKETH:
		ibp_put64(p + IBP_ATOMICACKETH_ORIG, h->atomic_orig);
		break;
	case IBP_H_IMMDT:
		memcpy(p, &h->imm, IBP_IMMDT_BYTES);
		break;
	case IBP_H_IETH:
		ibp_put32(p + IBP_IETH_RKEY, h->ieth_rkey);
		break;
	case IBP_H_NONE:
	case IBP_H_COUNT:
		break;
	}
}

uint32_t ibp_build(uint8_t *buf, uint32_t room, const struct ibp_hdr *h)
{
	const struct ibp_op *op = ibp_op(h->opcode);
	uint32_t off, i;

	if (!op || room < op->hdr_len)
		return 0;
	buf[IBP_BTH_OPCODE] = h->opcode;
	buf[IBP_BTH_FLAGS] = (uint8_t)((h->se ? IBP_BTH_SE : 0) |
				       (h->mig ? IBP_BTH_MIG : 0) |
				       ibp_pad(h->paylen) << IBP_BTH_PAD_SHIFT);
	ibp_put16(buf + IBP_BTH_PKEY, h->pkey);
	buf[IBP_BTH_RESV8A] = h->resv8a;
	ibp_put24(buf + IBP_BTH_DQPN, h->dqpn);
	buf[IBP_BTH_ACKREQ] = h->ackreq ? IBP_BTH_ACKREQ_BIT : 0;
	ibp_put24(buf + IBP_BTH_PSN, h->psn);

	off = IBP_BTH_BYTES;
	for (i = 0; i < IBP_OP_MAX_HDRS && op->hdrs[i] != IBP_H_NONE; i++) {
		ibp_write_ext(buf + off, op->hdrs[i], h);
		off += HSZ(op->hdrs[i]);
	}
	return off;
}

/* ---- one-line format ----------------------------------------------------- */

const char *ibp_nak_name(uint8_t syn)
{
	switch (syn) {
	case IBP_NAK_PSN_SEQ_ERR: return "PSN sequence error";
	case IBP_NAK_INV_REQ: return "invalid request";
	case IBP_NAK_REM_ACCESS_ERR: return "remote access error";
	case IBP_NAK_REM_OP_ERR: return "remote operational error";
	case IBP_NAK_INV_RD_REQ: return "invalid RD request";
	default: return "reserved NAK code";
	}
}

/* Appends to out[*n..room) like snprintf; *n keeps the untruncated length. */
__attribute__((format(printf, 4, 5)))
static void ibp_add(char *out, size_t room, int *n, const char *fmt, ...)
{
	va_list ap;
	size_t at = *n < 0 ? room : (size_t)*n;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(at < room ? out + at : NULL, at < room ? room - at : 0, fmt, ap);
	va_end(ap);
	if (r > 0 && *n >= 0)
		*n += r;
}

int ibp_format(char *out, size_t room, const struct ibp_hdr *h)
{
	const struct ibp_op *op = ibp_op(h->opcode);
	uint8_t imm[4];
	int n = 0;
	uint32_t i;

	if (room)
		out[0] = '\0';
	if (!op) {
		ibp_add(out, room, &n, "opcode 0x%02x (unknown) psn 0x%06x dqpn 0x%06x",
			h->opcode, h->psn, h->dqpn);
		return n;
	}
	ibp_add(out, room, &n, "%s psn 0x%06x dqpn 0x%06x", op->name, h->psn, h->dqpn);
	if (h->ackreq)
		ibp_add(out, room, &n, " ackreq");
	if (h->se)
		ibp_add(out, room, &n, " se");
	if (h->mig)
		ibp_add(out, room, &n, " mig");
	if (h->pkey != 0xffff)
		ibp_add(out, room, &n, " pkey 0x%04x", h->pkey);
	if (h->resv8a & IBP_BTH_FECN)
		ibp_add(out, room, &n, " fecn");
	if (h->resv8a & IBP_BTH_BECN)
		ibp_add(out, room, &n, " becn");
	for (i = 0; i < IBP_OP_MAX_HDRS && op->hdrs[i] != IBP_H_NONE; i++) {
		switch ((enum ibp_hdr_kind)op->hdrs[i]) {
		case IBP_H_XRCETH:
			ibp_add(out, room, &n, " srqn 0x%06x", h->xrc_srqn);
			break;
		case IBP_H_DCETH:
			ibp_add(out, room, &n, " dc_key 0x%016llx dci 0x%06x gen %u",
				(unsigned long long)h->dc_key, h->dc_sqpn,
				h->dc_gen);
			break;
		case IBP_H_DETH:
			ibp_add(out, room, &n, " qkey 0x%08x sqpn 0x%06x", h->qkey,
				h->src_qp);
			break;
		case IBP_H_RETH:
			ibp_add(out, room, &n, " va 0x%llx rkey 0x%08x dlen %u",
				(unsigned long long)h->va, h->rkey, h->dma_len);
			break;
		case IBP_H_ATOMICETH:
			ibp_add(out, room, &n,
				" va 0x%llx rkey 0x%08x swap_add 0x%llx compare 0x%llx",
				(unsigned long long)h->va, h->rkey,
				(unsigned long long)h->swap_add,
				(unsigned long long)h->compare);
			break;
		case IBP_H_AETH:
			if (ibp_aeth_is_ack(h->syndrome))
				ibp_add(out, room, &n, " ACK credits %u",
					ibp_aeth_value(h->syndrome));
			else if (ibp_aeth_is_rnr_nak(h->syndrome))
				ibp_add(out, room, &n, " RNR NAK timer %u (%u us)",
					ibp_aeth_value(h->syndrome),
					ibp_rnr_timer_us(h->syndrome));
			else if (ibp_aeth_is_nak(h->syndrome))
				ibp_add(out, room, &n, " NAK %s",
					ibp_nak_name(h->syndrome));
			else
				ibp_add(out, room, &n, " syndrome 0x%02x (reserved)",
					h->syndrome);
			ibp_add(out, room, &n, " msn 0x%06x", h->msn);
			break;
		case IBP_H_ATOMICACKETH:
			ibp_add(out, room, &n, " orig 0x%llx",
				(unsigned long long)h->atomic_orig);
			break;
		case IBP_H_IMMDT:
			memcpy(imm, &h->imm, sizeof(imm));
			ibp_add(out, room, &n, " imm 0x%08x", ibp_get32(imm));
			break;
		case IBP_H_IETH:
			ibp_add(out, room, &n, " inv_rkey 0x%08x", h->ieth_rkey);
			break;
		case IBP_H_NONE:
		case IBP_H_COUNT:
			break;
		}
	}
	if (op->flags & IBP_OF_PAYLOAD)
		ibp_add(out, room, &n, " len %u", h->paylen);
	return n;
}
