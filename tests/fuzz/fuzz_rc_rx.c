/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the receive path of the shared-memory link. Each input
 * is a sequence of RoCEv2 packets from another process, delivered to QPs
 * that are set up and running, one cell at a time, through the function
 * the inbox thread uses (eng_fabric_rx_cell(): the sender against the
 * process table, roce_parse, ICRC, ibp_parse, our GIDs, then the
 * responder, eng_resp.c, or the completer, eng_compl.c, and the end of a
 * batch). Input convention: fuzz_rc_rx.h.
 *
 * The harness plays the other process. The device has a private shared
 * segment (SOFTMLX5_SHM_PATH, unlinked as soon as both sides have it
 * mapped); the harness writes a second slot of its process table by hand
 * -- our pid, so the device takes it for a live peer -- and consumes that
 * slot's inbox itself: the device's responses (ACKs, NAKs, READ responses,
 * atomic ACKs) and QP 1's requests land there, and are drained after every
 * packet (unless the input says to hold them) so the inbox does not stay
 * full. Every input starts from QPs set up afresh and ends with them
 * reset, so inputs are independent.
 *
 * Invariants checked after every input (abort = a finding):
 *   - no byte of the arena the regions live in changed outside them, nor
 *     inside the regions no packet may write (remote read only, another
 *     protection domain, QP 1's gather buffers);
 *   - every CQE has a known opcode (and a known syndrome if an error),
 *     names one of our QPs and a WQE posted and not completed before, and
 *     a receive's byte count fits its buffer;
 *   - every cell the device sends the peer is a well-formed packet from
 *     our slot (or a direct placement record), and its sending stops once
 *     the peer's inbox is drained; QP 1 sends a READ request only where a
 *     READ starts; once every QP is reset no responder owes anything;
 *   - the device still works afterwards: the QP resets succeed, and a
 *     SEND to a fresh QP 0 lands, completes and is ACKed.
 * ASan/UBSan catch the rest.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/engine/eng_loc.h"
#include "device/fabric/direct.h"
#include "device/fabric/shm_layout.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"
#include "eng_test_util.h"
#include "fuzz_rc_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...)                                                              \
	do {                                                                   \
		fprintf(stderr, "fuzz_rc_rx: " __VA_ARGS__);                   \
		fputc('\n', stderr);                                           \
		abort();                                                       \
	} while (0)

#define FZR_ARENA 0x11000u
#define FZR_GUARD 0xa5
#define FZR_MAX_PKTS 256u	/* packets delivered per input, at most */
#define FZR_QUIET_ROUNDS 1000u	/* drain + resume rounds before "it never
				 * stops sending" */
#define FZR_CANARY_PSN 0x10u

/* Where the regions lie in the arena, their rights and domain. */
static const struct {
	uint32_t off, len, acc;
	bool pd2, rinval;
} fzr_mr_at[FZR_NMR] = {
	{ 0x1040, 8192, T_ALL, false, false },
	{ 0x3100, 2048, T_LR | T_RR, false, false },
	{ 0x4080, 8192, T_LR | T_LW, false, false },
	{ 0x6100, FZR_NQP * 7680, T_LR | T_LW, false, false },
	{ 0xe040, 1024, T_ALL, true, false },
	{ 0xf040, 256, T_ALL, false, true },
};

/* Bytes of region 2 a READ response or atomic result may land in. */
static const struct { uint32_t off, len; } fzr_landing[] = {
	{ 4096, 2100 }, { 6400, 16 }, { 6656, 100 },
};

static const uint8_t fzr_tr[FZR_NQP] = {
	IBP_TR_RC, IBP_TR_RC, IBP_TR_UC, IBP_TR_UD,
};
static const uint32_t fzr_st[FZR_NQP] = {
	MLX5_QPC_ST_RC, MLX5_QPC_ST_RC, MLX5_QPC_ST_UC, MLX5_QPC_ST_UD,
};

static struct t_env env;
static struct eng *eng;
static struct smx_shm_hdr *seg;
static uint32_t me_slot, peer_slot, stranger_slot;
static int32_t me_pid;
static struct t_cq *cq;
static struct t_qp *qp[FZR_NQP];
static uint8_t *arena;
/* What the arena holds after a reset: guard bytes between the regions,
 * each region's pattern (the receive buffers zero). Restored and compared
 * whole with memcpy / memcmp: a loop over the bytes would be instrumented
 * compare by compare, and cost more than the input. */
static uint8_t *golden;
static struct t_mr mr[FZR_NMR];
static struct smx_cell *cell;
static uint32_t base_psn, mtu;

/* What the current input posted and what completed. */
static bool sq_posted[FZR_NQP][64], sq_done[FZR_NQP][64];
static uint32_t rq_posted[FZR_NQP];
static bool rq_done[FZR_NQP][FZR_NRECV];

/* Each READ QP 1 has in flight. Its request is one packet at its first
 * PSN -- or, asked again after a lost response, at a later PSN of its own
 * for the rest (VA and length moved by whole MTUs). */
static struct { uint32_t psn, npkts, len; uint64_t va; } rd[6];
static uint32_t nread;

/* FUZZ_RC_RX_TRACE=1: every CQE and every packet the device sends, on
 * stderr (to see what an input reaches). */
static bool trace;

/* The canary's view of the device's answers. */
static bool capture;
static uint32_t ncaptured;
/* FZR_K_REF: the harness's memory a reference names, and whether the
 * next cell delivered is one. */
static int ref_fd = -1;
static uint64_t ref_ino;
static bool ref_next;
/* FZR_K_DIRECT: the receive queue the device lent us (its last record). */
static struct smx_rrec peer_rrec;
static bool have_rrec;
static struct ibp_hdr captured;

static uint8_t *mr_addr(unsigned int i)
{
	return arena + fzr_mr_at[i].off;
}

static uint32_t recv_len(unsigned int k)
{
	return 2048u >> (k % 4);
}

static uint8_t *recv_addr(unsigned int q, unsigned int k)
{
	uint32_t off = q * 7680u, i;

	for (i = 0; i < k; i++)
		off += recv_len(i);
	return mr_addr(3) + off;
}

static uint32_t fake_qpn(unsigned int i)
{
	return SMX_SHM_QPN_BASE + (peer_slot << SMX_SHM_ID_SHIFT) + 0x40 + i;
}

static uint8_t fzr_pattern(unsigned int m, uint32_t off)
{
	return (uint8_t)(m * 0x35u + off * 7u + (off >> 8));
}

/* [at, at + len) of the arena as the golden image has it; if not, the
 * first byte that differs. */
static void same(uint32_t at, uint32_t len, const char *what)
{
	uint32_t i;

	if (!len || !memcmp(arena + at, golden + at, len))
		return;
	for (i = at; arena[i] == golden[i]; i++)
		;
	FAIL("arena byte 0x%x (%s) was written: 0x%02x, was 0x%02x", i, what,
	     arena[i], golden[i]);
}

static int qp_index(uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < FZR_NQP; i++)
		if (qp[i]->qpn == qpn)
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* The peer's inbox                                                   */
/* ------------------------------------------------------------------ */

static void check_out(const struct smx_cell *c)
{
	struct roce_l3 l3;
	struct ibp_hdr h;
	uint32_t off, len;
	const char *why = NULL;

	if (c->src_slot != me_slot || c->src_pid != me_pid)
		FAIL("a cell in the peer's inbox from slot %u pid %d, not ours",
		     c->src_slot, (int)c->src_pid);
	switch (c->kind) {
	case SMX_CELL_SKIP:
		return;
	case SMX_CELL_DREC:
		if (c->len != sizeof(struct smx_drec))
			FAIL("a direct placement record of %u bytes", c->len);
		return;
	case SMX_CELL_RREC:
		if (c->len != sizeof(struct smx_rrec))
			FAIL("a direct SEND record of %u bytes", c->len);
		memcpy(&peer_rrec, c->data, sizeof(peer_rrec));
		have_rrec = true;
		return;
	case SMX_CELL_PKT:
		break;
	default:
		FAIL("a cell of kind %u sent to the peer", c->kind);
	}
	if (c->len > SMX_SHM_INLINE ||
	    roce_parse(c->data, c->len, &l3, &off, &len, &why) ||
	    ibp_parse(c->data + off, len, &h, &why))
		FAIL("the device sent a malformed packet (%u bytes): %s", c->len,
		     why ? why : "too long");
	if ((c->flags & SMX_CELL_F_ICRC) && !roce_icrc_ok(c->data, c->len))
		FAIL("the device sent a packet with a wrong ICRC");
	if (trace) {
		char line[160];

		ibp_format(line, sizeof(line), &h);
		fprintf(stderr, "fuzz_rc_rx: out: %s\n", line);
	}
	if (h.opcode == (IBP_TR_RC | IBP_OP_READ_REQ) && h.dqpn == fake_qpn(1)) {
		uint32_t i, k = 0;

		for (i = 0; i < nread; i++) {
			k = (h.psn - rd[i].psn) & 0xffffff;
			if (k < rd[i].npkts)
				break;
		}
		if (i == nread)
			FAIL("QP 1 sent a READ request at psn 0x%x, inside no READ",
			     h.psn);
		if (h.va != rd[i].va + (uint64_t)k * mtu ||
		    h.dma_len != rd[i].len - k * mtu || h.rkey != FZR_REQ_RKEY)
			FAIL("QP 1's READ request at psn 0x%x (READ + %u) asks "
			     "va 0x%llx len %u rkey 0x%x: not the rest of its READ",
			     h.psn, k, (unsigned long long)h.va, h.dma_len,
			     h.rkey);
	}
	if (capture && h.dqpn == fake_qpn(0)) {	/* QP 1's timers may fire */
		ncaptured++;
		captured = h;
	}
}

/* Consumes the peer's inbox as its owner would (smx_shm_pop()); returns
 * how many cells there were. */
static unsigned int peer_drain(void)
{
	struct smx_slot *sl = &seg->slot[peer_slot];
	unsigned int n = 0;

	for (;;) {
		uint64_t h = __atomic_load_n(&sl->head, __ATOMIC_RELAXED);
		struct smx_cell *c = &sl->cell[h & (SMX_SHM_CELLS - 1)];

		if (__atomic_load_n(&c->seq, __ATOMIC_ACQUIRE) != h + 1)
			return n;
		check_out(c);
		__atomic_store_n(&c->seq, h + SMX_SHM_CELLS, __ATOMIC_RELEASE);
		__atomic_store_n(&sl->head_ns, eng_now(), __ATOMIC_RELAXED);
		__atomic_store_n(&sl->head, h + 1, __ATOMIC_RELEASE);
		n++;
	}
}

/*
 * Drains the peer's inbox until the device stops sending. After room was
 * made the device's inbox thread would resume what waited for it once its
 * bell rang; the harness does not ring it but runs that resume itself,
 * here, so that an input replays the same way.
 */
static void quiesce(void)
{
	unsigned int round;

	for (round = 0; peer_drain(); round++) {
		if (round == FZR_QUIET_ROUNDS)
			FAIL("the device keeps sending after %u drained inboxes",
			     round);
		eng_fabric_resume(eng);
	}
}

/* ------------------------------------------------------------------ */
/* Packets to the device                                              */
/* ------------------------------------------------------------------ */

static void default_l3(struct roce_l3 *l3, uint8_t sel)
{
	memset(l3, 0, sizeof(*l3));
	memcpy(l3->sgid, env.gid, 16);
	memcpy(l3->dgid, env.gid, 16);
	if (sel & FZR_L3_SGID)
		l3->sgid[15] ^= 0x01;
	if (sel & FZR_L3_DGID)
		l3->dgid[15] ^= 0x02;
	l3->hop_limit = 64;
	l3->sport = 0xc000;
}

static uint32_t l3_len(const struct roce_l3 *l3)
{
	return roce_gid_is_v4(l3->sgid) && roce_gid_is_v4(l3->dgid) ?
	       ROCE_V4_HDR_LEN : ROCE_V6_HDR_LEN;
}

/* IP and UDP before the IB packet of @iblen bytes already at its place,
 * the ICRC after it: the cell is ready. */
static bool wrap(const struct roce_l3 *l3, uint32_t iblen, uint8_t mode)
{
	uint32_t hl = l3_len(l3), len = hl + iblen + ROCE_ICRC_BYTES;

	if (len > SMX_SHM_INLINE || roce_build(cell->data, len, l3, iblen) != hl)
		return false;
	roce_icrc_set(cell->data, len - ROCE_ICRC_BYTES);
	if (mode & FZR_MODE_BADICRC)
		cell->data[len - 1] ^= 0x10;
	cell->len = len;
	return true;
}

static void deliver(uint8_t mode)
{
	if (trace)
		fprintf(stderr, "fuzz_rc_rx: in: %u bytes, mode 0x%x\n",
			cell->len, mode);
	cell->kind = SMX_CELL_PKT;
	cell->flags = (uint8_t)((mode & FZR_MODE_ICRC ? SMX_CELL_F_ICRC : 0) |
				(mode & FZR_MODE_DREQ ? SMX_CELL_F_DREQ : 0) |
				(ref_next ? SMX_CELL_F_REF : 0));
	cell->src_slot = mode & FZR_MODE_STRANGER ? stranger_slot : peer_slot;
	cell->src_pid = me_pid;
	eng_fabric_rx_cell(eng, cell);
	if (mode & FZR_MODE_POLL)
		eng_poll(eng);
	if (!(mode & FZR_MODE_HOLD))
		quiesce();
}

static uint32_t sel_qpn(uint8_t sel, uint32_t raw)
{
	if (sel < FZR_NQP)
		return qp[sel]->qpn;
	if (sel == FZR_NQP)
		return fake_qpn(0);
	return raw & 0xffffff;
}

static uint8_t sel_tr(uint8_t sel)
{
	return sel < FZR_NQP ? fzr_tr[sel] : IBP_TR_RC;
}

static uint32_t sel_key(uint8_t sel, uint32_t raw)
{
	return sel < FZR_NMR ? mr[sel].key : raw;
}

/* The payload: the body's bytes, then fill + i. */
static void put_payload(uint8_t *dst, uint32_t paylen, const uint8_t *src,
			uint32_t have, uint8_t fill)
{
	uint32_t i;

	if (have > paylen)
		have = paylen;
	if (have)
		memcpy(dst, src, have);
	for (i = have; i < paylen; i++)
		dst[i] = (uint8_t)(fill + i);
	memset(dst + paylen, 0, ibp_pad(paylen));
}

/* Headers @h and @paylen payload bytes (from @src, @have of them) into the
 * cell; false when they do not make a packet the builders accept. */
static bool build(struct ibp_hdr *h, const struct roce_l3 *l3,
		  const uint8_t *src, uint32_t have, uint8_t fill, uint8_t mode)
{
	uint32_t hl = l3_len(l3), room = SMX_SHM_INLINE - hl - ROCE_ICRC_BYTES;
	uint32_t hlen;

	hlen = ibp_build(cell->data + hl, room, h);
	if (!hlen || h->paylen > room - hlen - 3)
		return false;
	put_payload(cell->data + hl + hlen, h->paylen, src, have, fill);
	return wrap(l3, hlen + h->paylen + ibp_pad(h->paylen), mode);
}

static uint32_t get16(const uint8_t *f, uint32_t at)
{
	return ibp_get16(f + at);
}

static uint32_t get32(const uint8_t *f, uint32_t at)
{
	return ibp_get32(f + at);
}

static uint64_t get64(const uint8_t *f, uint32_t at)
{
	return ibp_get64(f + at);
}

/* FZR_HDR: one packet from header fields. */
static void pkt_hdr(const uint8_t *b, uint32_t n, uint8_t mode)
{
	uint8_t f[FZR_H_BYTES] = { 0 };
	struct roce_l3 l3;
	struct ibp_hdr h;
	uint8_t flags, qs, ms;

	memcpy(f, b, n < FZR_H_BYTES ? n : FZR_H_BYTES);
	flags = f[FZR_H_FLAGS];
	qs = f[FZR_H_QP];
	ms = f[FZR_H_MR];
	memset(&h, 0, sizeof(h));
	h.opcode = f[FZR_H_OPCODE];
	if (flags & FZR_F_AUTO_TR)
		h.opcode = (uint8_t)((h.opcode & IBP_OP_MASK) | sel_tr(qs));
	h.se = flags & FZR_F_SE;
	h.mig = flags & FZR_F_MIG;
	h.ackreq = flags & FZR_F_ACKREQ;
	h.resv8a = flags & FZR_F_BECN ? 0xc0 : 0;
	h.pkey = (uint16_t)get16(f, FZR_H_PKEY);
	h.dqpn = sel_qpn(qs, get32(f, FZR_H_DQPN));
	h.psn = (get32(f, FZR_H_PSN) + (flags & FZR_F_PSN_ABS ? 0 : base_psn)) &
		0xffffff;
	h.rkey = sel_key(ms, get32(f, FZR_H_RKEY));
	h.va = get64(f, FZR_H_VA);
	if (!(flags & FZR_F_VA_ABS) && ms < FZR_NMR)
		h.va += (uint64_t)(uintptr_t)mr_addr(ms);
	h.dma_len = get32(f, FZR_H_DMALEN);
	h.swap_add = get64(f, FZR_H_SWAP);
	h.compare = get64(f, FZR_H_CMP);
	h.syndrome = f[FZR_H_SYND];
	h.msn = ibp_get24(f + FZR_H_MSN);
	h.atomic_orig = get64(f, FZR_H_ORIG);
	memcpy(&h.imm, f + FZR_H_IMM, 4);	/* wire order, as ibp_hdr has it */
	h.ieth_rkey = get32(f, FZR_H_IETH);
	if (flags & FZR_F_IETH_MR)
		h.ieth_rkey = sel_key((uint8_t)h.ieth_rkey, h.ieth_rkey);
	h.qkey = get32(f, FZR_H_QKEY);
	h.src_qp = get32(f, FZR_H_SRCQP) & 0xffffff;
	h.xrc_srqn = h.src_qp;
	h.dc_sqpn = h.src_qp;
	h.dc_key = h.compare;
	h.paylen = get16(f, FZR_H_PAYLEN);
	default_l3(&l3, f[FZR_H_L3]);
	l3.tclass = f[FZR_H_TCLASS];
	l3.hop_limit = f[FZR_H_HOP];
	if (build(&h, &l3, b + FZR_H_BYTES, n > FZR_H_BYTES ? n - FZR_H_BYTES : 0,
		  f[FZR_H_FILL], mode))
		deliver(mode);
}

static uint8_t msg_opcode(uint8_t kind, bool first, bool last)
{
	bool imm = kind & FZR_K_IMM, inv = kind & FZR_K_INV;

	switch (kind & FZR_K_OPMASK) {
	case FZR_K_WRITE:
		return ibp_op_write(first, last, imm);
	case FZR_K_RDRESP:
		return ibp_op_read_resp(first, last);
	default:
		return ibp_op_send(first, last, imm, inv);
	}
}

/* FZR_MSG: the headers of packet @i of the message @f describes (@np
 * packets; the last carries @last_len bytes). */
static void msg_hdr(const uint8_t *f, uint32_t i, uint32_t np,
		    uint32_t last_len, uint32_t dma_len, struct ibp_hdr *h)
{
	uint8_t kind = f[FZR_M_KIND], qs = f[FZR_M_QP], ms = f[FZR_M_MR];
	bool first = i == 0, last = i + 1 == np;

	memset(h, 0, sizeof(*h));
	h->opcode = (uint8_t)(sel_tr(qs) | msg_opcode(kind, first, last));
	h->pkey = 0xffff;
	h->dqpn = sel_qpn(qs, 0);
	h->psn = (base_psn + get32(f, FZR_M_PSN) + i) & 0xffffff;
	h->ackreq = (last || (kind & FZR_K_ACKALL)) &&
		    (kind & FZR_K_OPMASK) != FZR_K_RDRESP;
	h->se = last && (kind & FZR_K_SE);
	h->rkey = sel_key(ms, 0);
	h->va = get32(f, FZR_M_VA) +
		(ms < FZR_NMR ? (uint64_t)(uintptr_t)mr_addr(ms) : 0);
	h->dma_len = dma_len;
	memcpy(&h->imm, f + FZR_M_IMM, 4);
	h->ieth_rkey = sel_key((uint8_t)get32(f, FZR_M_IMM), get32(f, FZR_M_IMM));
	h->qkey = FZR_QKEY;
	h->src_qp = fake_qpn(3);
	h->syndrome = f[FZR_M_SYND];
	h->msn = i;
	h->paylen = last ? last_len : mtu;
}

/* FZR_MSG with FZR_K_REF: the message as one SEND by reference. */
static uint32_t pkt_ref(const uint8_t *f, uint32_t np, uint32_t last_len,
			uint8_t mode)
{
	uint8_t how = f[FZR_M_SYND];
	struct smx_sref r;
	struct roce_l3 l3;
	struct ibp_hdr h;

	default_l3(&l3, 0);
	/* Its ONLY header (the message as one packet), without payload. */
	msg_hdr(f, 0, 1, 0, 0, &h);
	h.syndrome = 0;
	if (ref_fd < 0 || !build(&h, &l3, NULL, 0, 0, mode))
		return 1;
	memset(&r, 0, sizeof(r));
	r.npkts = np + (how & 4 ? 1 : 0);
	r.len = (np - 1) * mtu + last_len;
	r.fd = ref_fd;
	r.ino = ref_ino ^ (how & 2 ? 1 : 0);
	r.rlen = FZR_REF_BYTES;
	r.off = get32(f, FZR_M_VA);
	r.gen = __atomic_load_n(&seg->slot[peer_slot].dgen, __ATOMIC_RELAXED) +
		(how & 1);
	memcpy(cell->data + SMX_SHM_INLINE - sizeof(r), &r, sizeof(r));
	ref_next = true;
	deliver(mode);
	ref_next = false;
	return 1;
}

/* FZR_MSG with FZR_K_DIRECT: the message as a direct SEND, placed the
 * way a peer that does not follow the rules might. */
static uint32_t pkt_direct(const uint8_t *f, uint32_t np, uint32_t last_len)
{
	uint8_t how = f[FZR_M_SYND], kind = f[FZR_M_KIND];
	struct smx_drq_ent *d;
	struct smx_drq_arr *a;
	uint64_t h;

	if (!have_rrec || !eng->drq_tab || peer_rrec.idx >= SMX_DRQ_ENTRIES)
		return 1;
	d = &eng->drq_tab->ent[peer_rrec.idx];
	h = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);
	if (h & SMX_DRQ_CLOSED)
		return 1;
	if (!(how & 1) &&
	    !__atomic_compare_exchange_n(&d->head, &h, h + 1, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return 1;
	a = &d->arr[(h + (get32(f, FZR_M_PSN) & 3)) % SMX_DRQ_DEPTH];
	a->len = (np - 1) * mtu + last_len;
	memcpy(&a->imm, f + FZR_M_IMM, 4);
	a->flags = (kind & FZR_K_IMM ? SMX_DRQ_F_IMM : 0) |
		   (kind & FZR_K_SE ? SMX_DRQ_F_SE : 0) | (how & 0xf0u);
	__atomic_store_n(&a->seq, (uint32_t)(h + 1 + (how & 2 ?
						     get32(f, FZR_M_VA) : 0)),
			 __ATOMIC_RELEASE);
	if (trace)
		fprintf(stderr, "fuzz_rc_rx: direct SEND: receive %llu, %u "
			"bytes\n", (unsigned long long)h, a->len);
	eng_fabric_progress(eng);
	return 1;
}

/* FZR_MSG: a message cut into packets of one MTU; returns how many. */
static uint32_t pkt_msg(const uint8_t *b, uint32_t n, uint8_t mode,
			uint32_t budget)
{
	uint8_t f[FZR_M_BYTES] = { 0 };
	uint32_t np, i, last_len, dma_len;
	struct roce_l3 l3;
	uint8_t kind;

	memcpy(f, b, n < FZR_M_BYTES ? n : FZR_M_BYTES);
	kind = f[FZR_M_KIND];
	np = f[FZR_M_NPKTS] ? f[FZR_M_NPKTS] : 1;
	if (np > FZR_MSG_MAX)
		np = FZR_MSG_MAX;
	if (np > budget)
		np = budget;
	last_len = get16(f, FZR_M_LAST);
	dma_len = get32(f, FZR_M_DMALEN);
	if (dma_len == UINT32_MAX)
		dma_len = (np - 1) * mtu + last_len;
	default_l3(&l3, 0);
	if (kind & FZR_K_DIRECT)
		return pkt_direct(f, np, last_len);
	if (kind & FZR_K_REF)
		return pkt_ref(f, np, last_len, mode);
	for (i = 0; i < np; i++) {
		struct ibp_hdr h;

		msg_hdr(f, i, np, last_len, dma_len, &h);
		if (build(&h, &l3, NULL, 0, (uint8_t)(f[FZR_M_FILL] + i * 13),
			  mode))
			deliver(mode);
	}
	return np;
}

/* ------------------------------------------------------------------ */
/* Completions and memory                                             */
/* ------------------------------------------------------------------ */

static bool known_syndrome(uint8_t s)
{
	switch (s) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return true;
	default:
		return false;
	}
}

static void check_cqe(const struct mlx5_cqe64 *c)
{
	uint8_t op = t_cqe_op(c);
	uint32_t qpn = be32toh(c->sop_drop_qpn) & 0xffffff;
	uint16_t idx = be16toh(c->wqe_counter);
	int q = qp_index(qpn);

	if (trace)
		fprintf(stderr, "fuzz_rc_rx: cqe: qp 0x%x opcode %u wqe %u bytes %u "
			"syndrome 0x%x\n", qpn, op, idx, be32toh(c->byte_cnt),
			op == MLX5_CQE_REQ_ERR || op == MLX5_CQE_RESP_ERR ?
			t_cqe_synd(c) : 0);
	if (q < 0)
		FAIL("a CQE of qp 0x%x, not one of ours", qpn);
	switch (op) {
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		if (!known_syndrome(t_cqe_synd(c)))
			FAIL("an error CQE with syndrome 0x%x", t_cqe_synd(c));
		break;
	case MLX5_CQE_REQ:
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		break;
	default:
		FAIL("a CQE with opcode %u", op);
	}
	if (op == MLX5_CQE_REQ || op == MLX5_CQE_REQ_ERR) {
		if (idx >= 64 || !sq_posted[q][idx] || sq_done[q][idx])
			FAIL("qp 0x%x: send completion of WQE %u, %s", qpn, idx,
			     idx < 64 && sq_done[q][idx] ? "completed before" :
			     "never posted");
		sq_done[q][idx] = true;
		return;
	}
	if (idx >= rq_posted[q] || rq_done[q][idx])
		FAIL("qp 0x%x: receive completion of WQE %u, %s", qpn, idx,
		     idx < rq_posted[q] ? "completed before" : "never posted");
	rq_done[q][idx] = true;
	if (op != MLX5_CQE_RESP_ERR && op != MLX5_CQE_RESP_WR_IMM &&
	    be32toh(c->byte_cnt) > recv_len(idx))
		FAIL("qp 0x%x: receive WQE %u of %u bytes completed with %u",
		     qpn, idx, recv_len(idx), be32toh(c->byte_cnt));
}

static void poll_cqes(void)
{
	struct mlx5_cqe64 c;

	while (t_poll(cq, &c))
		check_cqe(&c);
}

static void check_memory(void)
{
	uint32_t at = 0, m, i, o;

	for (m = 0; m < FZR_NMR; m++) {
		same(at, fzr_mr_at[m].off - at, "outside every region");
		at = fzr_mr_at[m].off + fzr_mr_at[m].len;
	}
	same(at, FZR_ARENA - at, "outside every region");
	/* No packet may write these: remote read only, another protection
	 * domain; of QP 1's buffers only where READ data and atomic results
	 * land. */
	same(fzr_mr_at[1].off, fzr_mr_at[1].len, "remote read only region");
	same(fzr_mr_at[4].off, fzr_mr_at[4].len, "another domain's region");
	for (i = 0, o = 0; i < sizeof(fzr_landing) / sizeof(fzr_landing[0]); i++) {
		same(fzr_mr_at[2].off + o, fzr_landing[i].off - o,
		     "QP 1's gather buffers");
		o = fzr_landing[i].off + fzr_landing[i].len;
	}
	same(fzr_mr_at[2].off + o, fzr_mr_at[2].len - o, "QP 1's gather buffers");
}

/* ------------------------------------------------------------------ */
/* Set-up and reset                                                   */
/* ------------------------------------------------------------------ */

static uint32_t make_mr(unsigned int i)
{
	return t_mkey(&env, fzr_mr_at[i].pd2 ? env.pd2 : env.pd, mr_addr(i),
		      fzr_mr_at[i].len, fzr_mr_at[i].acc,
		      MLX5_MKC_ACCESS_MODE_MTT, 12, 0x42, fzr_mr_at[i].rinval);
}

/* Region 5 is made again after a SEND with invalidate freed its key. */
static void revalidate_mr5(void)
{
	struct fw *fw = smx_dev_fw(env.d);
	struct fw_mkey *mk;
	bool gone;
	TMB(destroy_mkey_in) = { 0 };
	TMB(mbox_out) = { 0 };

	fw_lock(fw);
	mk = fw_mkey_lookup(fw, mr[5].key);
	gone = !mk || mk->free;
	fw_unlock(fw);
	if (!gone)
		return;
	DEVX_SET(destroy_mkey_in, destroy_mkey_in, opcode,
		 MLX5_CMD_OP_DESTROY_MKEY);
	DEVX_SET(destroy_mkey_in, destroy_mkey_in, mkey_index, mr[5].key >> 8);
	if (t_exec(env.d, destroy_mkey_in, sizeof(destroy_mkey_in),
		   mbox_out, sizeof(mbox_out)))
		FAIL("DESTROY_MKEY of the invalidated region failed");
	if (!(mr[5].key = make_mr(5)))
		FAIL("CREATE_MKEY failed");
}

static void setup(void)
{
	char path[128];
	struct smx_slot *sl;
	uint32_t i;
	int fd;

	snprintf(path, sizeof(path), "%s/softmlx5-fuzz-rc-rx-%d",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		 (int)getpid());
	unlink(path);
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	unsetenv("SOFTMLX5_FAULT");	/* the harness's packets, as given */
	unsetenv("SOFTMLX5_PCAP");
	t_env_open(&env);
	if (!env.d)
		FAIL("cannot open the device");
	eng = smx_dev_eng(env.d);
	fd = open(path, O_RDWR);
	if (fd < 0 || !eng->shm)
		FAIL("the device has no shared segment at %s", path);
	seg = mmap(NULL, SMX_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	close(fd);
	/* Both sides have it mapped: gone from the file system now, so that
	 * no run leaves it behind, not even one that crashes. */
	unlink(path);
	if (seg == MAP_FAILED)
		FAIL("cannot map the shared segment");

	/* The peer: a slot held by our own pid, which the device takes for
	 * a live process (shm_layout.h), with an empty inbox. */
	me_slot = eng->slot;
	me_pid = (int32_t)getpid();
	peer_slot = (me_slot + 1) % SMX_SHM_SLOTS;
	stranger_slot = (me_slot + 2) % SMX_SHM_SLOTS;
	sl = &seg->slot[peer_slot];
	sl->tail = 0;
	sl->head = 0;
	for (i = 0; i < SMX_SHM_CELLS; i++)
		sl->cell[i].seq = i;
	sl->pid = me_pid;
	sl->start_time = smx_shm_start_time(me_pid);
	sl->pidns = smx_shm_pidns();
	__atomic_store_n(&sl->state, SMX_SLOT_ALIVE, __ATOMIC_RELEASE);

	/* The peer's registered memory a SEND by reference names. */
	ref_fd = memfd_create("fuzz_rc_rx-ref", MFD_CLOEXEC);
	if (ref_fd >= 0 && !ftruncate(ref_fd, FZR_REF_BYTES)) {
		struct stat st;
		uint8_t *m = mmap(NULL, FZR_REF_BYTES, PROT_READ | PROT_WRITE,
				  MAP_SHARED, ref_fd, 0);

		if (m != MAP_FAILED && !fstat(ref_fd, &st)) {
			for (i = 0; i < FZR_REF_BYTES; i++)
				m[i] = (uint8_t)(i * 7 + 3);
			ref_ino = (uint64_t)st.st_ino;
			munmap(m, FZR_REF_BYTES);
		} else {
			close(ref_fd);
			ref_fd = -1;
		}
	}

	arena = t_zalloc(FZR_ARENA);
	/* In a memfd, as registered memory of a process that shares the
	 * device is: the device can then lend receive queues over it. */
	smx_direct_back(arena, FZR_ARENA);
	golden = t_zalloc(FZR_ARENA);
	memset(golden, FZR_GUARD, FZR_ARENA);
	for (i = 0; i < FZR_NMR; i++) {
		uint32_t k;

		for (k = 0; k < fzr_mr_at[i].len; k++)
			golden[fzr_mr_at[i].off + k] = i == 3 ? 0 :
						       fzr_pattern(i, k);
	}
	memcpy(arena, golden, FZR_ARENA);
	for (i = 0; i < FZR_NMR; i++) {
		mr[i].addr = mr_addr(i);
		mr[i].len = fzr_mr_at[i].len;
		if (!(mr[i].key = make_mr(i)))
			FAIL("CREATE_MKEY of region %u failed", i);
	}
	cq = t_cq_create(&env, 8, 0);
	for (i = 0; i < FZR_NQP; i++)
		if (!cq || !(qp[i] = t_qp_create(&env, fzr_st[i], cq, cq, NULL)))
			FAIL("cannot create the CQ and QPs");
	cell = t_keep(aligned_alloc(64, sizeof(*cell)));
	memset(cell, 0, sizeof(*cell));
}

static void qp_to_rst(unsigned int i)
{
	if (t_modify(&env, MLX5_CMD_OP_2RST_QP, qp[i]->qpn, 0, NULL))
		FAIL("qp 0x%x: 2RST failed", qp[i]->qpn);
}

/* The driver's side of a reset QP, and what the harness knew of it (after
 * the CQEs that came before the reset were checked against that). */
static void qp_forget(unsigned int i)
{
	qp[i]->sq_pi = 0;
	qp[i]->rq_pi = 0;
	qp[i]->db[0] = 0;
	qp[i]->db[1] = 0;
	memset(sq_posted[i], 0, sizeof(sq_posted[i]));
	memset(sq_done[i], 0, sizeof(sq_done[i]));
	memset(rq_done[i], 0, sizeof(rq_done[i]));
	rq_posted[i] = 0;
}

static void qp_to_rts(unsigned int i, uint32_t psn, uint32_t mtu_enum,
		      uint8_t timers, unsigned int nrecv)
{
	struct t_conn c = {
		.remote_qpn = fake_qpn(i), .sq_psn = psn, .rq_psn = psn,
		.retry_count = timers >> 5, .rnr_retry = timers >> 5,
		.timeout = timers & 0x1f, .min_rnr_nak = 1,
		.rwe = true, .rre = fzr_st[i] == MLX5_QPC_ST_RC,
		.rae = fzr_st[i] == MLX5_QPC_ST_RC, .qkey = FZR_QKEY,
		.mtu = mtu_enum,
	};
	unsigned int k;

	if (t_qp_rts(qp[i], &c))
		FAIL("qp 0x%x: RESET to RTS failed", qp[i]->qpn);
	for (k = 0; k < nrecv; k++) {
		struct t_sge s = { mr[3].key, recv_addr(i, k), recv_len(k) };

		t_post_recv(qp[i], &s, 1);
	}
	rq_posted[i] = nrecv;
}

static void post_requests(uint8_t mask)
{
	struct t_qp *q = qp[1];
	uint32_t psn = base_psn;
	struct t_wqe w;
	bool any = false;
	unsigned int k;

	nread = 0;
	for (k = 0; k < 6; k++) {
		const struct fzr_req *r = &fzr_req[k];
		uint8_t *la = mr_addr(2) + r->loff;
		uint64_t ra = FZR_REQ_RADDR + k * 0x100u;

		if (!(mask & (1u << k)))
			continue;
		if (r->op == FZR_RQ_READ) {
			rd[nread].psn = psn;
			rd[nread].npkts = fzr_req_npkts(k, mtu);
			rd[nread].len = r->len;
			rd[nread++].va = ra;
		}
		psn = (psn + fzr_req_npkts(k, mtu)) & 0xffffff;
		switch (r->op) {
		case FZR_RQ_SEND:
			t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
			break;
		case FZR_RQ_WRITE:
			t_wqe_begin(&w, MLX5_OPCODE_RDMA_WRITE,
				    MLX5_WQE_CTRL_CQ_UPDATE, 0);
			t_wqe_raddr(&w, ra, FZR_REQ_RKEY);
			break;
		case FZR_RQ_READ:
			t_wqe_begin(&w, MLX5_OPCODE_RDMA_READ,
				    MLX5_WQE_CTRL_CQ_UPDATE, 0);
			t_wqe_raddr(&w, ra, FZR_REQ_RKEY);
			break;
		default:
			t_wqe_begin(&w, r->op == FZR_RQ_CAS ? MLX5_OPCODE_ATOMIC_CS :
				    MLX5_OPCODE_ATOMIC_FA, MLX5_WQE_CTRL_CQ_UPDATE,
				    0);
			t_wqe_raddr(&w, ra, FZR_REQ_RKEY);
			t_wqe_atomic(&w, 0x1111 * (k + 1), 0x2222);
			break;
		}
		t_wqe_data(&w, mr[2].key, la, r->len);
		sq_posted[1][t_wqe_put(q, &w)] = true;
		any = true;
	}
	if (any)
		t_ring(q, &w);
}

static void reset(const uint8_t *pre)
{
	uint32_t mtu_enum = 1 + (pre[0] & 3u);
	unsigned int i, m;

	revalidate_mr5();
	have_rrec = false;	/* the QPs were reset: no queue is lent */
	for (m = 0; m < FZR_NMR; m++)
		memcpy(mr_addr(m), golden + fzr_mr_at[m].off, fzr_mr_at[m].len);
	mtu = eng_mtu_bytes(mtu_enum);
	base_psn = ibp_get24(pre + 1);
	for (i = 0; i < FZR_NQP; i++) {
		qp_forget(i);
		qp_to_rts(i, base_psn, mtu_enum, pre[4], FZR_NRECV);
	}
	post_requests((uint8_t)(pre[0] >> 2));
	quiesce();
}

/* A SEND to QP 0, freshly reset: lands, completes, is ACKed. */
static void canary(void)
{
	uint8_t b[FZR_H_BYTES + 64];
	struct mlx5_cqe64 c;
	uint32_t i, ncqe = 0;

	/* What the inbox held is not the canary's answer; drained without
	 * the resume, so that a responder owing packets stays so. */
	peer_drain();
	qp_to_rst(0);
	/* The engine's watcher may have flushed owed packets between that
	 * drain and the reset: sent before it, they are not the answer. */
	peer_drain();
	poll_cqes();
	qp_forget(0);
	qp_to_rts(0, FZR_CANARY_PSN, MLX5_QPC_MTU_1K_BYTES, 0, 1);
	memset(b, 0, sizeof(b));
	b[FZR_H_QP] = 0;
	b[FZR_H_OPCODE] = IBP_TR_RC | IBP_OP_SEND_ONLY;
	b[FZR_H_FLAGS] = FZR_F_ACKREQ | FZR_F_PSN_ABS;
	ibp_put32(b + FZR_H_PSN, FZR_CANARY_PSN);
	ibp_put16(b + FZR_H_PKEY, 0xffff);
	ibp_put16(b + FZR_H_PAYLEN, 64);
	b[FZR_H_HOP] = 64;
	for (i = 0; i < 64; i++)
		b[FZR_H_BYTES + i] = (uint8_t)(0x5a + i);
	capture = true;
	ncaptured = 0;
	pkt_hdr(b, sizeof(b), 0);
	capture = false;
	/* QP 1's timers may complete its WQEs meanwhile: only QP 0's count. */
	while (t_poll(cq, &c)) {
		check_cqe(&c);
		if ((be32toh(c.sop_drop_qpn) & 0xffffff) != qp[0]->qpn)
			continue;
		if (t_cqe_op(&c) != MLX5_CQE_RESP_SEND ||
		    be16toh(c.wqe_counter) != 0 || be32toh(c.byte_cnt) != 64)
			FAIL("canary: CQE opcode %u wqe %u bytes %u", t_cqe_op(&c),
			     be16toh(c.wqe_counter), be32toh(c.byte_cnt));
		ncqe++;
	}
	if (ncqe != 1)
		FAIL("canary: the SEND to a fresh QP did not complete");
	if (memcmp(recv_addr(0, 0), b + FZR_H_BYTES, 64))
		FAIL("canary: the SEND's data did not land");
	if (ncaptured != 1 || captured.opcode != (IBP_TR_RC | IBP_OP_ACK) ||
	    captured.psn != FZR_CANARY_PSN ||
	    !ibp_aeth_is_ack(captured.syndrome) ||
	    captured.dqpn != fake_qpn(0))
		FAIL("canary: %u packets back, the last opcode 0x%x psn 0x%x "
		     "syndrome 0x%x", ncaptured, captured.opcode, captured.psn,
		     captured.syndrome);
}

/* Every QP to RESET at the end of an input (the next one starts there).
 * After RST no WQE completes any more: what completed since the checks (a
 * timer) is checked now, and no responder may still owe anything. */
static void settle(void)
{
	uint32_t i;

	for (i = 0; i < FZR_NQP; i++)
		qp_to_rst(i);
	poll_cqes();
	quiesce();
	fw_lock(smx_dev_fw(env.d));
	i = eng->resp_pending;
	fw_unlock(smx_dev_fw(env.d));
	if (i)
		FAIL("%u responders owe packets, with every QP reset", i);
}

static void teardown(void)
{
	if (env.d)
		smx_dev_close(env.d);
	env.d = NULL;
	if (seg && seg != MAP_FAILED)
		munmap(seg, SMX_SHM_SIZE);
	t_free_all();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t pre[FZR_PREFIX] = { 0 };
	const uint8_t *p = data;
	size_t left = size;
	uint32_t sent = 0;

	if (!eng) {
		trace = getenv("FUZZ_RC_RX_TRACE") &&
			!strcmp(getenv("FUZZ_RC_RX_TRACE"), "1");
		setup();
		atexit(teardown);
	}
	memcpy(pre, data, size < FZR_PREFIX ? size : FZR_PREFIX);
	p += size < FZR_PREFIX ? size : FZR_PREFIX;
	left -= size < FZR_PREFIX ? size : FZR_PREFIX;
	reset(pre);

	while (left >= 3 && sent < FZR_MAX_PKTS) {
		uint8_t mode = p[0];
		uint32_t len = (uint32_t)p[1] << 8 | p[2];
		struct roce_l3 l3;

		p += 3;
		left -= 3;
		if (len > left)
			len = (uint32_t)left;
		switch (mode & 3) {
		case FZR_RAW:
			memcpy(cell->data, p, len < SMX_SHM_INLINE ? len :
			       SMX_SHM_INLINE);
			cell->len = len < SMX_SHM_INLINE ? len : SMX_SHM_INLINE;
			deliver(mode);
			sent++;
			break;
		case FZR_IB:
			default_l3(&l3, 0);
			if (len <= SMX_SHM_INLINE - l3_len(&l3) - ROCE_ICRC_BYTES) {
				uint8_t *bth = cell->data + l3_len(&l3);

				memcpy(bth, p, len);
				if (len >= IBP_BTH_BYTES &&
				    ibp_get24(bth + IBP_BTH_DQPN) - FZR_IB_QPN <=
				    FZR_NQP)
					ibp_put24(bth + IBP_BTH_DQPN, sel_qpn(
						  bth[IBP_BTH_DQPN + 2], 0));
				if (wrap(&l3, len, mode))
					deliver(mode);
			}
			sent++;
			break;
		case FZR_HDR:
			pkt_hdr(p, len, mode);
			sent++;
			break;
		default:
			sent += pkt_msg(p, len, mode, FZR_MAX_PKTS - sent);
			break;
		}
		p += len;
		left -= len;
	}

	/* Not drained if the last packet held the inbox: the canary's reset
	 * of QP 0 then meets a responder that owes packets. */
	poll_cqes();
	check_memory();
	canary();
	settle();
	return 0;
}
