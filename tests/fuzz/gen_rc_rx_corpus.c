/* SPDX-License-Identifier: MIT */
/*
 * Seeds for fuzz_rc_rx: valid packet sequences in the input convention of
 * fuzz_rc_rx.h, so the fuzzer starts from packets that reach the deep
 * states -- a SEND of several packets, WRITEs with their RETH, READ and
 * atomic requests (and their duplicates), the responses QP 1's requests
 * wait for (ACK, READ response packets, atomic ACKs, NAKs, RNR NAK), a gap
 * and a duplicate in the PSN sequence, the PSN space wrapping, UC and UD.
 *   gen_rc_rx_corpus DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "device/transport/ib_pkt.h"
#include "fuzz_rc_rx.h"

#define RC(op) (IBP_TR_RC | IBP_OP_##op)

struct seq {
	uint8_t b[16384];
	uint32_t n;
	uint32_t mtu;
};

struct hdr {
	uint8_t mode;	/* FZR_MODE_* besides FZR_MODE_ICRC */
	uint8_t qp, op, flags, mr, synd, fill, l3;
	uint32_t psn, dqpn, rkey, dmalen, imm, ieth, qkey, srcqp, msn;
	uint64_t va, swap, cmp, orig;
	uint16_t pkey, paylen;
};

static void be16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void be24(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 16); be16(p + 1, v); }
static void be32(uint8_t *p, uint32_t v) { be16(p, v >> 16); be16(p + 2, v); }
static void be64(uint8_t *p, uint64_t v) { be32(p, (uint32_t)(v >> 32)); be32(p + 4, (uint32_t)v); }

/* MTU 256 << @mtu_sel, QP 1's requests @mask, PSN base, ACK timer 0 and
 * three retries. */
static void start(struct seq *s, uint32_t mtu_sel, uint8_t mask, uint32_t psn)
{
	memset(s, 0, sizeof(*s));
	s->b[0] = (uint8_t)(mtu_sel | (uint32_t)mask << 2);
	be24(s->b + 1, psn);
	s->b[4] = 3 << 5;
	s->n = FZR_PREFIX;
	s->mtu = 256u << mtu_sel;
}

static uint8_t *pkt(struct seq *s, uint8_t mode, uint32_t len)
{
	uint8_t *p = s->b + s->n;

	if (s->n + 3 + len > sizeof(s->b)) {
		fprintf(stderr, "gen_rc_rx_corpus: a seed is too long\n");
		return NULL;
	}
	p[0] = mode;
	be16(p + 1, len);
	s->n += 3 + len;
	return p + 3;
}

/* A FZR_HDR packet; its payload is left to the fill pattern. */
static void hdr(struct seq *s, const struct hdr *h)
{
	uint8_t *f = pkt(s, FZR_HDR | FZR_MODE_ICRC | h->mode, FZR_H_BYTES);

	if (!f)
		return;
	f[FZR_H_QP] = h->qp;
	f[FZR_H_OPCODE] = h->op;
	f[FZR_H_FLAGS] = h->flags;
	f[FZR_H_MR] = h->mr;
	be32(f + FZR_H_PSN, h->psn);
	be32(f + FZR_H_DQPN, h->dqpn);
	be32(f + FZR_H_RKEY, h->rkey);
	be64(f + FZR_H_VA, h->va);
	be32(f + FZR_H_DMALEN, h->dmalen);
	be64(f + FZR_H_SWAP, h->swap);
	be64(f + FZR_H_CMP, h->cmp);
	f[FZR_H_SYND] = h->synd;
	be24(f + FZR_H_MSN, h->msn);
	be64(f + FZR_H_ORIG, h->orig);
	be32(f + FZR_H_IMM, h->imm);
	be32(f + FZR_H_IETH, h->ieth);
	be32(f + FZR_H_QKEY, h->qkey);
	be32(f + FZR_H_SRCQP, h->srcqp);
	be16(f + FZR_H_PKEY, h->pkey ? h->pkey : 0xffff);
	be16(f + FZR_H_PAYLEN, h->paylen);
	f[FZR_H_HOP] = 64;
	f[FZR_H_FILL] = h->fill;
	f[FZR_H_L3] = h->l3;
}

/* A FZR_MSG message of @np packets, the last @last bytes. */
static void msg(struct seq *s, uint8_t qp, uint8_t kind, uint8_t np,
		uint8_t mr, uint32_t psn, uint32_t va, uint32_t last,
		uint32_t imm, uint8_t synd)
{
	uint8_t *f = pkt(s, FZR_MSG, FZR_M_BYTES);

	if (!f)
		return;
	f[FZR_M_QP] = qp;
	f[FZR_M_KIND] = kind;
	f[FZR_M_NPKTS] = np;
	f[FZR_M_MR] = mr;
	be32(f + FZR_M_PSN, psn);
	be32(f + FZR_M_VA, va);
	be32(f + FZR_M_DMALEN, UINT32_MAX);
	be32(f + FZR_M_IMM, imm);
	be16(f + FZR_M_LAST, last);
	f[FZR_M_FILL] = 0x31;
	f[FZR_M_SYND] = synd;
}

/* The first PSN (offset from the base) of QP 1's request @k when all of
 * them are posted. */
static uint32_t req_psn(const struct seq *s, unsigned int k)
{
	uint32_t psn = 0, i;

	for (i = 0; i < k; i++)
		psn += fzr_req_npkts(i, s->mtu);
	return psn;
}

static void put(const char *dir, const char *name, const struct seq *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n) {
		perror(path);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	const uint8_t rc = FZR_F_ACKREQ;
	struct seq s;
	uint32_t p;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}

	/* SEND FIRST / MIDDLE / LAST, one packet each, into QP 0. */
	start(&s, 1, 0, 0x100);
	hdr(&s, &(struct hdr){ .op = RC(SEND_FIRST), .paylen = 512, .fill = 1 });
	hdr(&s, &(struct hdr){ .op = RC(SEND_MIDDLE), .psn = 1, .paylen = 512,
			       .fill = 2 });
	hdr(&s, &(struct hdr){ .op = RC(SEND_LAST_IMM), .psn = 2, .flags = rc,
			       .paylen = 100, .imm = 0xabcd, .fill = 3 });
	put(argv[1], "send-first-middle-last", &s);

	/* The same as one message, and the PSN space wrapping under it. */
	start(&s, 1, 0, 0xfffffe);
	msg(&s, 0, FZR_K_SEND, 3, 0, 0, 0, 100, 0, 0);
	msg(&s, 0, FZR_K_SEND | FZR_K_IMM | FZR_K_SE, 1, 0, 3, 0, 64, 7, 0);
	put(argv[1], "send-msg-psn-wrap", &s);

	/* SENDs by reference into QP 0: one that lands, a stale one (its
	 * PSN is then taken by the next), a wrong inode, a length that
	 * does not fill the PSNs claimed, and one with immediate. */
	start(&s, 1, 0, 0x500);
	msg(&s, 0, FZR_K_SEND | FZR_K_REF, 3, 0, 0, 40, 100, 0, 0);
	msg(&s, 0, FZR_K_SEND | FZR_K_REF, 1, 0, 3, 0, 200, 0, 1);
	msg(&s, 0, FZR_K_SEND | FZR_K_REF, 1, 0, 3, 0, 200, 0, 2);
	msg(&s, 0, FZR_K_SEND | FZR_K_REF, 2, 0, 3, 0, 300, 0, 4);
	msg(&s, 0, FZR_K_SEND | FZR_K_REF | FZR_K_IMM, 2, 0, 3, 100, 300, 5, 0);
	msg(&s, 0, FZR_K_WRITE | FZR_K_REF, 1, 0, 5, 0, 64, 0, 0);
	put(argv[1], "send-by-ref", &s);

	/* Direct SEND: a SEND asking for a record lends QP 0's receive
	 * queue; then SENDs placed by the peer -- one by the rules, one
	 * with immediate and SE, one too long for its receive, one not
	 * claimed, one in the wrong arrival slot, one with a wrong
	 * sequence -- and a SEND through the inbox after them. */
	start(&s, 1, 0, 0x700);
	hdr(&s, &(struct hdr){ .op = RC(SEND_ONLY), .flags = rc,
			       .mode = FZR_MODE_DREQ, .paylen = 16 });
	msg(&s, 0, FZR_K_SEND | FZR_K_DIRECT, 1, 0, 0, 0, 100, 0, 0);
	msg(&s, 0, FZR_K_SEND | FZR_K_DIRECT | FZR_K_IMM | FZR_K_SE, 1, 0, 0, 0,
	    8, 0x1234, 0);
	msg(&s, 0, FZR_K_SEND | FZR_K_DIRECT, 3, 0, 0, 0, 700, 0, 0);
	msg(&s, 0, FZR_K_SEND | FZR_K_DIRECT, 1, 0, 0, 0, 10, 0, 1);
	msg(&s, 0, FZR_K_SEND | FZR_K_DIRECT, 1, 0, 1, 0, 10, 0, 0);
	msg(&s, 0, FZR_K_SEND | FZR_K_DIRECT, 1, 0, 0, 5, 10, 0, 2);
	hdr(&s, &(struct hdr){ .op = RC(SEND_ONLY), .flags = rc, .psn = 1,
			       .paylen = 32 });
	put(argv[1], "send-direct", &s);

	/* SEND with invalidate of region 5, then a WRITE through it. */
	start(&s, 2, 0, 0x2000);
	hdr(&s, &(struct hdr){ .op = RC(SEND_ONLY_INV), .flags = rc | FZR_F_IETH_MR,
			       .ieth = 5, .paylen = 32 });
	hdr(&s, &(struct hdr){ .op = RC(WRITE_ONLY), .flags = rc, .psn = 1,
			       .mr = 5, .dmalen = 16, .paylen = 16 });
	put(argv[1], "send-inv", &s);

	/* WRITE ONLY, WRITE FIRST / MIDDLE / LAST, WRITE with immediate. */
	start(&s, 2, 0, 0x300);
	hdr(&s, &(struct hdr){ .op = RC(WRITE_ONLY), .flags = rc, .mr = 0,
			       .va = 0x100, .dmalen = 200, .paylen = 200 });
	msg(&s, 0, FZR_K_WRITE, 3, 0, 1, 0x800, 300, 0, 0);
	msg(&s, 0, FZR_K_WRITE | FZR_K_IMM, 1, 0, 4, 0x1f00, 256, 0x77, 0);
	put(argv[1], "write", &s);

	/* WRITE FIRST / MIDDLE / LAST as single packets (RETH on the first). */
	start(&s, 0, 0, 0x40);
	hdr(&s, &(struct hdr){ .op = RC(WRITE_FIRST), .mr = 0, .va = 0x200,
			       .dmalen = 600, .paylen = 256 });
	hdr(&s, &(struct hdr){ .op = RC(WRITE_MIDDLE), .psn = 1, .paylen = 256 });
	hdr(&s, &(struct hdr){ .op = RC(WRITE_LAST), .psn = 2, .flags = rc,
			       .paylen = 88 });
	put(argv[1], "write-first-middle-last", &s);

	/* READ requests: of region 0 (three response packets), of the
	 * read-only region, of another domain's region (access error). */
	start(&s, 2, 0, 0x500);
	hdr(&s, &(struct hdr){ .op = RC(READ_REQ), .mr = 0, .va = 0x10,
			       .dmalen = 3000 });
	hdr(&s, &(struct hdr){ .op = RC(READ_REQ), .psn = 3, .mr = 1,
			       .dmalen = 2048 });
	hdr(&s, &(struct hdr){ .op = RC(READ_REQ), .psn = 5, .mr = 0, .va = 0x10,
			       .dmalen = 0 });
	put(argv[1], "read", &s);
	start(&s, 2, 0, 0x500);
	hdr(&s, &(struct hdr){ .op = RC(READ_REQ), .mr = 4, .dmalen = 64 });
	put(argv[1], "read-other-pd", &s);

	/* Atomics, then the same PSN again (replayed, not executed twice),
	 * then a misaligned one. */
	start(&s, 2, 0, 0x600);
	hdr(&s, &(struct hdr){ .op = RC(CMP_SWAP), .mr = 0, .va = 0x40,
			       .swap = 0x55, .cmp = 0 });
	hdr(&s, &(struct hdr){ .op = RC(FETCH_ADD), .psn = 1, .mr = 0, .va = 0x48,
			       .swap = 3 });
	hdr(&s, &(struct hdr){ .op = RC(FETCH_ADD), .psn = 1, .mr = 0, .va = 0x48,
			       .swap = 3 });
	hdr(&s, &(struct hdr){ .op = RC(CMP_SWAP), .psn = 2, .mr = 0, .va = 0x44 });
	put(argv[1], "atomic-dup-misaligned", &s);

	/* Duplicates and a gap: SEND ONLY twice, READ twice (replayed from
	 * its resource), then a PSN ahead (sequence NAK), then the right one. */
	start(&s, 2, 0, 0x700);
	hdr(&s, &(struct hdr){ .op = RC(SEND_ONLY), .flags = rc, .paylen = 40 });
	hdr(&s, &(struct hdr){ .op = RC(SEND_ONLY), .flags = rc, .paylen = 40 });
	hdr(&s, &(struct hdr){ .op = RC(READ_REQ), .psn = 1, .mr = 0,
			       .dmalen = 1500 });
	hdr(&s, &(struct hdr){ .op = RC(READ_REQ), .psn = 1, .mr = 0,
			       .dmalen = 1500 });
	hdr(&s, &(struct hdr){ .op = RC(SEND_ONLY), .flags = rc, .psn = 9,
			       .paylen = 8 });
	hdr(&s, &(struct hdr){ .op = RC(SEND_ONLY), .flags = rc, .psn = 3,
			       .paylen = 8 });
	put(argv[1], "dup-gap", &s);

	/* Every response QP 1's six requests wait for, in order. */
	start(&s, 2, 0x3f, 0x800);
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ACK), .psn = req_psn(&s, 1) - 1,
			       .synd = 0x1f });
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ACK), .psn = req_psn(&s, 2) - 1,
			       .synd = 0x1f });
	msg(&s, 1, FZR_K_RDRESP, 3, 0, req_psn(&s, 2), 0,
	    2100 - 2 * s.mtu, 0, 0x1f);
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ATOMIC_ACK), .psn = req_psn(&s, 3),
			       .synd = 0x1f, .orig = 0x2222 });
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ATOMIC_ACK), .psn = req_psn(&s, 4),
			       .synd = 0x1f, .orig = 41 });
	msg(&s, 1, FZR_K_RDRESP, 1, 0, req_psn(&s, 5), 0, 100, 0, 0x1f);
	put(argv[1], "responses", &s);

	/* The same at MTU 256 (more READ response packets), in one
	 * cumulative ACK after the READ. */
	start(&s, 0, 0x3f, 0);
	msg(&s, 1, FZR_K_RDRESP, 9, 0, req_psn(&s, 2), 0,
	    2100 - 8 * s.mtu, 0, 0x1f);
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ACK), .psn = req_psn(&s, 3) - 1,
			       .synd = 0x1f });
	put(argv[1], "responses-mtu256", &s);

	/* NAKs: a sequence NAK at the WRITE (resent at the watcher's pass),
	 * an RNR NAK, a remote access NAK at the READ, out-of-order READ
	 * responses. */
	start(&s, 2, 0x3f, 0x900);
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ACK), .psn = req_psn(&s, 1),
			       .synd = IBP_NAK_PSN_SEQ_ERR,
			       .mode = FZR_MODE_POLL });
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ACK), .psn = req_psn(&s, 1),
			       .synd = ibp_aeth_rnr_nak(1) });
	msg(&s, 1, FZR_K_RDRESP, 2, 0, req_psn(&s, 2) + 1, 0, 52, 0, 0x1f);
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ACK), .psn = req_psn(&s, 2),
			       .synd = IBP_NAK_REM_ACCESS_ERR });
	put(argv[1], "naks", &s);

	/* A peer that does not drain its inbox: eight READs of 8 KiB at MTU
	 * 256 owe 256 responses, four times the inbox; QP 1's retransmission
	 * after a sequence NAK finds it full too. Drained at the end. */
	start(&s, 0, 0x3f, 0xb00);
	for (p = 0; p < 8; p++)
		hdr(&s, &(struct hdr){ .op = RC(READ_REQ), .psn = p * 32,
				       .mr = 0, .dmalen = 8192,
				       .mode = FZR_MODE_HOLD });
	hdr(&s, &(struct hdr){ .qp = 1, .op = RC(ACK), .psn = req_psn(&s, 1),
			       .synd = IBP_NAK_PSN_SEQ_ERR,
			       .mode = FZR_MODE_POLL | FZR_MODE_HOLD });
	put(argv[1], "peer-slow", &s);

	/* UC: SEND and WRITE; UD: SEND ONLY with its Q_Key. */
	start(&s, 2, 0, 0xa00);
	msg(&s, 2, FZR_K_SEND, 2, 0, 0, 0, 10, 0, 0);
	msg(&s, 2, FZR_K_WRITE, 1, 0, 2, 0x40, 128, 0, 0);
	msg(&s, 3, FZR_K_SEND | FZR_K_IMM, 1, 0, 0, 0, 300, 9, 0);
	hdr(&s, &(struct hdr){ .qp = 3, .op = IBP_TR_UD | IBP_OP_SEND_ONLY,
			       .qkey = FZR_QKEY, .srcqp = 0x10040, .paylen = 64 });
	put(argv[1], "uc-ud", &s);

	/* A bare IB packet the harness wraps: SEND ONLY to QP 0 at PSN 0. */
	start(&s, 2, 0, 0);
	{
		uint8_t *b = pkt(&s, FZR_IB | FZR_MODE_ICRC, IBP_BTH_BYTES + 16);

		if (b) {
			b[IBP_BTH_OPCODE] = RC(SEND_ONLY);
			be16(b + IBP_BTH_PKEY, 0xffff);
			be24(b + IBP_BTH_DQPN, FZR_IB_QPN + 0);
			b[IBP_BTH_ACKREQ] = IBP_BTH_ACKREQ_BIT;
			for (p = 0; p < 16; p++)
				b[IBP_BTH_BYTES + p] = (uint8_t)p;
		}
	}
	put(argv[1], "ib-send", &s);
	return 0;
}
