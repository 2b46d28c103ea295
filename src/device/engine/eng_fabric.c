/* SPDX-License-Identifier: MIT */
/*
 * The links between device instances, as the engine sees them
 * (docs/transport.md).
 *
 * The packet layer every link shares -- segmentation, building a packet into
 * a link's buffer, the fault stages, capture, the checks of what a link
 * received -- reaches a link only through its ops (struct eng_link_ops,
 * eng_loc.h); this file also holds the shared-memory link's.
 *
 * In-process (the destination QPN belongs to this process's slot, or the
 * process is alone): with a fault stage, a capture or loopback_packets, the
 * loopback link carries the same packets (eng_link_loop.c); otherwise
 * eng_fabric_xmit() runs the responder in the requester's thread, under the
 * same locks, on the whole message as one unit (FIRST | LAST, every PSN of
 * the message): no segmentation, and the response is there when it returns.
 *
 * Between processes (docs/multiprocess.md): the QPN names its owner's slot
 * (fw_set_slot). The shared-memory link carries IBTA packets, one per cell of
 * the owner's inbox (fabric/shm.c): a RoCEv2 packet from the IP header to the
 * ICRC, exactly what the network link puts in a frame. The requester
 * (eng_sq.c) segments a message at the path MTU with eng_fabric_send(); the
 * owner's inbox thread parses every cell as hostile input (roce_parse,
 * ibp_parse: the one decoder) and hands requests to the responder
 * (eng_resp.c, whose answers go out through eng_fabric_tx()) and responses to
 * the completer (eng_compl.c).
 *
 * Nothing is dropped by design: a full inbox makes eng_fabric_tx() return 0
 * with this process registered as waiting for room; the owner rings our
 * doorbell when it frees cells, and our inbox thread resumes every QP that
 * was blocked (eng_fabric_resume()). Requests stay in their send queue
 * meanwhile, a responder keeps what it owes (ACK state, READ and atomic
 * responses in its responder resources). Only the fault stage
 * (SOFTMLX5_FAULT, transport/fault.c) loses packets, and the transport
 * recovers from that.
 *
 * The ICRC is computed when something may look at it -- a capture
 * (SOFTMLX5_PCAP) or fault injection (a corrupted packet must be caught) --
 * and the cell says so (SMX_CELL_F_ICRC); otherwise the local link leaves it
 * zero, as Annex A17 lets a link that cannot corrupt.
 *
 * Direct placement records (eng_direct.c) are the link's own sideband: a
 * request cell flagged SMX_CELL_F_DREQ asks for one, and the responder
 * answers with an SMX_CELL_DREC cell after the packet's acknowledgement.
 *
 * ETHERNET (the eth_switch knob): a frame an SQ of this process sends is
 * also copied into the inbox of every other attached process, whose inbox
 * thread runs it through its own NIC receive steering (eng_eth_rx), as a
 * switch floods a frame to all ports; a full inbox loses the frame for that
 * process, counted, as a congested switch port drops.
 *
 * THREADS AND LOCKS. The inbox thread processes cells under fw->lock like
 * any engine pass. Cells are reserved in another process's ring without any
 * lock of that process, and never waited for.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/engine/eng_loc.h"
#include "device/transport/counters.h"
#include "device/transport/fault.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/pcap.h"
#include "device/transport/roce.h"
#include "util/log.h"

#define FAB_MAX_BATCH 32u		/* cells per lock hold */
#define FAB_POLLED_PARK_NS 1000000ull	/* inbox thread's park while polled */
#define FAB_POLLED_RECENT_NS 10000000ull /* traffic this recent: polled */
#define FAB_POLLED_PER_MS 200u		/* empty polls per ms: busy polling */
#define FAB_FLUSH_WAIT_NS 1000000000ull	/* closing: peers taking our cells */

/* Called once at engine creation: the GID table is fixed by configuration. */
void eng_fabric_cache_gids(struct eng *e)
{
	const struct smx_config *cfg = fw_config(e->fw);
	uint8_t mine[16];
	uint32_t i;

	e->ngids = 0;
	for (i = 0; i < cfg->gid_tbl_len && e->ngids < 4; i++)
		if (fw_gid(e->fw, i, mine))
			memcpy(e->gids[e->ngids++], mine, 16);
}

bool eng_fabric_gid_local(struct eng *e, const uint8_t gid[16])
{
	uint32_t i;

	for (i = 0; i < e->ngids; i++)
		if (!memcmp(e->gids[i], gid, 16))
			return true;
	return false;
}

void eng_fabric_xmit(struct eng *e, const struct eng_pkt *p,
		     struct eng_resp *r)
{
	memset(r, 0, sizeof(*r));
	eng_resp_rx(e, p, r);
}

int eng_fabric_peer(struct eng *e, uint32_t dqpn)
{
	int slot = e->shm ? smx_shm_qpn_slot(dqpn) : -1;

	/* Ours (or nobody else's: we are alone): the loopback link, in
	 * packets or whole (eng_fabric_xmit()). */
	if (slot < 0 || (uint32_t)slot == e->slot)
		return e->loop_pkts ? (int)e->slot : -1;
	return slot;
}

/* ------------------------------------------------------------------ */
/* The shared-memory link: one packet per cell of the peer's inbox      */
/* ------------------------------------------------------------------ */

static int shm_tx_get(struct eng *e, uint32_t dst, struct eng_link_tx *t)
{
	struct smx_cell *c = smx_shm_reserve(e->shm, dst, 0, &t->pos);

	if (!c)
		return smx_shm_alive(e->shm, dst, NULL) ? 0 : -ENOTCONN;
	t->cell = c;
	t->buf = c->data;
	t->cap = SMX_SHM_INLINE;
	t->dst = dst;
	return 1;
}

static void shm_tx_put(struct eng *e, struct eng_link_tx *t, uint32_t len,
		       uint8_t flags)
{
	struct smx_cell *c = t->cell;

	/* A reservation is published even when given back (a SKIP cell):
	 * the ring position is taken. */
	c->kind = len ? SMX_CELL_PKT : SMX_CELL_SKIP;
	c->flags = flags;
	c->src_slot = e->slot;
	c->src_pid = e->pid;
	c->len = len;
	smx_shm_publish_quiet(e->shm, t->dst, c, t->pos);
	e->ring_mask |= 1ull << t->dst;
}

static uint32_t shm_tx_room(struct eng *e, uint32_t dst)
{
	return smx_shm_room(e->shm, dst);
}

static bool shm_alive(struct eng *e, uint32_t dst)
{
	return smx_shm_alive(e->shm, dst, NULL);
}

static bool shm_stalled(struct eng *e, uint32_t dst, uint64_t since_ns)
{
	return smx_shm_stalled(e->shm, dst, since_ns);
}

static const struct eng_link_ops fab_link_shm = {
	.name = "shm",
	.tx_get = shm_tx_get,
	.tx_put = shm_tx_put,
	.tx_room = shm_tx_room,
	.alive = shm_alive,
	.stalled = shm_stalled,
};

const struct eng_link_ops *eng_fabric_link(const struct eng *e, uint32_t dst)
{
	return dst == e->slot && e->loop_pkts ? &eng_link_loop : &fab_link_shm;
}

bool eng_fabric_peer_alive(struct eng *e, uint32_t slot)
{
	return eng_fabric_link(e, slot)->alive(e, slot);
}

bool eng_fabric_peer_stalled(struct eng *e, uint32_t dst, uint64_t since_ns)
{
	return eng_fabric_link(e, dst)->stalled(e, dst, since_ns);
}

void eng_fabric_ring(struct eng *e)
{
	uint64_t m = e->ring_mask;

	e->ring_mask = 0;
	while (m) {
		uint32_t slot = (uint32_t)__builtin_ctzll(m);

		m &= m - 1;
		smx_shm_ring(e->shm, slot);
	}
}

/* ------------------------------------------------------------------ */
/* Transmit                                                           */
/* ------------------------------------------------------------------ */

static bool gid_v4(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return !memcmp(g, pfx, 12);
}

/* The fault stage's class of an opcode. */
static uint32_t fab_fault_class(uint8_t opcode)
{
	const struct ibp_op *o = ibp_op(opcode);

	if (!o)
		return 0;
	if (o->flags & IBP_OF_READ_RESP)
		return TRN_FC_RDRESP;
	if (o->flags & IBP_OF_ATOMIC_ACK)
		return TRN_FC_ATOMIC | TRN_FC_ACK;
	if (o->flags & IBP_OF_ACK)
		return TRN_FC_ACK;
	if (o->flags & IBP_OF_ATOMIC)
		return TRN_FC_ATOMIC | TRN_FC_REQ;
	return TRN_FC_REQ;
}

struct fab_emit {
	struct eng *e;
	uint32_t slot;
	uint8_t cflags;
	uint32_t emitted;
};

/* Sends one (possibly faulted) packet the fault stage lets go. */
static void fab_emit_cell(void *arg, const uint8_t *pkt, uint32_t len)
{
	struct fab_emit *x = arg;
	const struct eng_link_ops *l = eng_fabric_link(x->e, x->slot);
	struct eng_link_tx t;
	int rc = l->tx_get(x->e, x->slot, &t);

	if (rc != 1 || len > t.cap) {
		/* Only with faults on (room was checked before the stage):
		 * a held packet finding no room is one more loss. */
		if (rc == 1)
			l->tx_put(x->e, &t, 0, 0);
		trn_ctr_add(x->e->ctr, TRN_CTR_FAULT_DROPPED, 1);
		return;
	}
	memcpy(t.buf, pkt, len);
	l->tx_put(x->e, &t, len, x->cflags);
	x->emitted++;
}

static void fab_rx_emit(void *arg, const uint8_t *pkt, uint32_t len);

/* Held packets of the fault stages whose time has come. */
void eng_fabric_fault_poll(struct eng *e)
{
	uint32_t s;

	for (s = 0; e->fault && s < SMX_SHM_SLOTS; s++) {
		struct fab_emit x = { e, s, SMX_CELL_F_ICRC, 0 };

		if (!e->fault[s])
			continue;
		e->fault_next = trn_fault_poll(e->fault[s], eng_now(),
					       fab_emit_cell, &x);
		if (e->fault_next)
			eng_timer_note(e, e->fault_next);
	}
	for (s = 0; e->fault_rx && s < SMX_SHM_SLOTS; s++) {
		struct fab_emit x = { e, s, SMX_CELL_F_ICRC, 0 };
		uint64_t next;

		if (!e->fault_rx[s])
			continue;
		next = trn_fault_poll(e->fault_rx[s], eng_now(), fab_rx_emit,
				      &x);
		if (next)
			eng_timer_note(e, next);
	}
}

static struct trn_fault *fab_fault(struct eng *e, uint32_t slot)
{
	char err[160];

	if (!e->fault_spec)
		return NULL;
	if (!e->fault) {
		e->fault = calloc(SMX_SHM_SLOTS, sizeof(*e->fault));
		if (!e->fault)
			return NULL;
	}
	if (!e->fault[slot]) {
		e->fault[slot] = trn_fault_create(e->fault_spec,
						  (uint64_t)e->slot << 8 | slot,
						  err, sizeof(err));
		if (e->fault[slot])
			trn_fault_set_counters(e->fault[slot], e->ctr);
		if (!e->fault[slot]) {
			smx_err("engine: SOFTMLX5_FAULT: %s; faults off", err);
			free((void *)e->fault_spec);
			e->fault_spec = NULL;
		}
	}
	return e->fault[slot];
}

/* No process holds @slot any more: like a frame to a host that left the
 * network the packet is lost (the requester's ACK timer decides), rather
 * than waiting for room that no owner will make. */
static int fab_tx_void(struct eng *e, uint32_t slot, const struct ibp_hdr *h)
{
	smx_dbg("engine: packet to slot %u (qp 0x%x psn 0x%x) lost: no live "
		"process there", slot, h->dqpn, h->psn);
	trn_ctr_add(e->ctr, TRN_CTR_TX_PACKETS, 1);
	return 1;
}

/* eng_fabric_tx(), and for a SEND by reference (@ref: no payload in the
 * cell; never with faults or capture on, eng_direct_sref()). */
static int fab_tx(struct eng *e, uint32_t slot, struct ibp_hdr *h,
		  const struct roce_l3 *l3, const struct eng_sgl *src,
		  uint64_t soff, uint8_t cflags, const struct smx_sref *ref)
{
	const struct eng_link_ops *l = eng_fabric_link(e, slot);
	struct trn_fault *f = fab_fault(e, slot);
	bool icrc = f || trn_pcap_on();
	uint32_t l3len = gid_v4(l3->sgid) && gid_v4(l3->dgid) ? 28 : 48;
	uint32_t pad = ibp_pad(h->paylen), hlen, iblen, len;
	struct eng_link_tx t = { 0 };
	bool room = false;
	uint8_t *b;
	int rc;

	if (f) {
		/* Room for a duplicate too: the stage never finds it full. */
		if (l->tx_room(e, slot) < 2) {
			/* Registers us for a wake-up; room it finds after
			 * all is given back unused. */
			rc = l->tx_get(e, slot, &t);
			if (rc < 0)
				return fab_tx_void(e, slot, h);
			if (rc > 0)
				l->tx_put(e, &t, 0, 0);
			return 0;
		}
		if (!e->txbuf && !(e->txbuf = malloc(SMX_SHM_INLINE)))
			return 0;
		b = e->txbuf;
	} else {
		rc = l->tx_get(e, slot, &t);
		if (rc < 0)
			return fab_tx_void(e, slot, h);
		if (!rc)
			return 0;	/* full: we are rung when room is made */
		room = true;
		b = t.buf;
	}
	hlen = ibp_build(b + l3len, SMX_SHM_INLINE - l3len - 4, h);
	iblen = hlen + h->paylen + pad;
	if (!hlen || l3len + iblen + 4 > SMX_SHM_INLINE)
		goto bad;
	if (h->paylen) {
		struct eng_sge s = { b + l3len + hlen, NULL, 0, h->paylen };
		struct eng_sgl d = { &s, 1, h->paylen };

		if (eng_sgl_copy(&d, 0, src, soff, h->paylen) != h->paylen) {
			if (room)
				l->tx_put(e, &t, 0, 0);
			return -EFAULT;
		}
	}
	memset(b + l3len + hlen + h->paylen, 0, pad);
	roce_build(b, l3len, l3, iblen);
	len = l3len + iblen + 4;
	if (icrc)
		roce_icrc_set(b, len - 4);
	else
		memset(b + len - 4, 0, 4);
	if (trn_pcap_on()) {
		uint8_t smac[6], dmac[6];

		roce_mac_of_gid(l3->sgid, smac);
		roce_mac_of_gid(l3->dgid, dmac);
		trn_pcap_write(b, len, smac, dmac);
	}
	trn_ctr_add(e->ctr, TRN_CTR_TX_PACKETS, ref ? ref->npkts : 1);
	if (f) {
		struct trn_fault_pkt info = {
			.tx = true, .dqpn = h->dqpn,
			.cls = fab_fault_class(h->opcode), .psn = h->psn,
		};
		struct fab_emit x = { e, slot, (uint8_t)(cflags | SMX_CELL_F_ICRC),
				      0 };

		trn_fault_xmit(f, &info, b, len, l3len, fab_emit_cell, &x);
		e->fault_next = trn_fault_poll(f, eng_now(), fab_emit_cell, &x);
		if (e->fault_next)
			eng_timer_note(e, e->fault_next);
		return 1;
	}
	cflags |= icrc ? SMX_CELL_F_ICRC : 0;
	if (ref) {
		/* the shared-memory link's own: the cell's tail names the
		 * payload (fab_rx_ref()) */
		memcpy(b + SMX_SHM_INLINE - sizeof(*ref), ref, sizeof(*ref));
		cflags |= SMX_CELL_F_REF;
	}
	l->tx_put(e, &t, len, cflags);
	return 1;
bad:
	smx_err("engine: cannot build a packet (opcode 0x%x, %u payload bytes)",
		h->opcode, h->paylen);
	if (room)
		l->tx_put(e, &t, 0, 0);
	return -EINVAL;
}

int eng_fabric_tx(struct eng *e, uint32_t slot, struct ibp_hdr *h,
		  const struct roce_l3 *l3, const struct eng_sgl *src,
		  uint64_t soff, uint8_t cflags)
{
	return fab_tx(e, slot, h, l3, src, soff, cflags, NULL);
}

/* The opcode of packet @i of @n of a request (the transport's base added
 * by the caller). */
static uint8_t fab_req_opcode(const struct eng_pkt *p, bool first, bool last)
{
	bool imm = p->flags & ENG_PKT_F_IMM, inv = p->flags & ENG_PKT_F_INV;

	switch (p->op) {
	case ENG_PKT_SEND:
		return ibp_op_send(first, last, imm, inv);
	case ENG_PKT_WRITE:
		return ibp_op_write(first, last, imm);
	case ENG_PKT_READ:
		return IBP_OP_READ_REQ;
	case ENG_PKT_CMP_SWAP:
		return IBP_OP_CMP_SWAP;
	default:
		return IBP_OP_FETCH_ADD;
	}
}

static uint8_t fab_base(uint8_t st)
{
	switch (st) {
	case MLX5_QPC_ST_UC: return IBP_TR_UC;
	case MLX5_QPC_ST_UD: return IBP_TR_UD;
	case MLX5_QPC_ST_XRC: return IBP_TR_XRC;
	case MLX5_QPC_ST_DCI: return IBP_TR_DC;
	default: return IBP_TR_RC;
	}
}

void eng_fabric_l3(struct eng *e, const struct eng_pkt *p, struct roce_l3 *l3)
{
	static const uint8_t zero[16];

	memset(l3, 0, sizeof(*l3));
	memcpy(l3->sgid, memcmp(p->sgid, zero, 16) ? p->sgid : e->gids[0], 16);
	memcpy(l3->dgid, memcmp(p->dgid, zero, 16) ? p->dgid : e->gids[0], 16);
	l3->tclass = p->tclass;
	l3->hop_limit = p->hop_limit ? p->hop_limit : 64;
	l3->flow_label = p->flow_label;
	l3->sport = roce_udp_sport(p->flow_label, p->sqpn, p->dqpn);
}

/* The headers of packet @i of request @p (@last: its last packet), with no
 * payload yet. */
static void fab_req_hdr(const struct eng_pkt *p, uint32_t i, bool last,
			struct ibp_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = (uint8_t)(fab_base(p->st) | fab_req_opcode(p, i == 0, last));
	if (p->st == MLX5_QPC_ST_UD)
		h->opcode = p->flags & ENG_PKT_F_IMM ?
			    (IBP_TR_UD | IBP_OP_SEND_ONLY_IMM) :
			    (IBP_TR_UD | IBP_OP_SEND_ONLY);
#define FAB_TO_HDR(pf, hf) h->hf = p->pf;
	ENG_PKT_HDR_FIELDS(FAB_TO_HDR)
#undef FAB_TO_HDR
	h->se = last && (p->flags & ENG_PKT_F_SE);
	h->pkey = p->pkey ? p->pkey : 0xffff;
	h->psn = eng_psn_add(p->psn, i);
	h->ackreq = last && p->st != MLX5_QPC_ST_UC && p->st != MLX5_QPC_ST_UD;
	h->dc_sqpn = p->sqpn;
	h->src_qp = p->sqpn;
	h->dma_len = p->len;
}

/* The one packet of a SEND by reference: the message's SEND ONLY header,
 * its PSNs all taken (eng_direct.c says when). */
static int fab_send_ref(struct eng *e, const struct eng_pkt *p,
			struct eng_out *o, uint32_t slot,
			const struct roce_l3 *l3, const struct smx_sref *ref)
{
	struct ibp_hdr h;
	int rc;

	fab_req_hdr(p, 0, true, &h);
	rc = fab_tx(e, slot, &h, l3, NULL, 0, 0, ref);
	if (rc < 0)
		return rc;
	if (!rc)
		return -EAGAIN;
	trn_ctr_add(e->ctr, TRN_CTR_TX_SEND_BY_REF, 1);
	o->sent = o->npkts;
	return 0;
}

int eng_fabric_send(struct eng *e, const struct eng_pkt *p, uint32_t mtu,
		    struct eng_out *o, uint32_t slot, bool dreq)
{
	struct smx_sref ref;
	struct roce_l3 l3;

	eng_fabric_l3(e, p, &l3);
	/* (Never with a fault stage: eng_direct_sref() checks.) */
	if (!o->sent && slot != e->slot && eng_direct_sref(e, p, o->npkts, &ref))
		return fab_send_ref(e, p, o, slot, &l3, &ref);
	while (o->sent < o->npkts) {
		uint32_t i = o->sent;
		bool rd = p->op != ENG_PKT_SEND && p->op != ENG_PKT_WRITE;
		bool last = rd || i + 1 == o->npkts;
		uint64_t off = (uint64_t)i * mtu;
		struct ibp_hdr h;
		int rc;

		fab_req_hdr(p, i, last, &h);
		if (p->op == ENG_PKT_READ && o->rd_from) {
			/* Asked again from a missing response: the rest of
			 * the message, at that response's PSN. */
			h.psn = eng_psn_add(p->psn, o->rd_from);
			h.va += (uint64_t)o->rd_from * mtu;
			h.dma_len -= o->rd_from * mtu;
		}
		if (!rd) {
			uint64_t left = p->len - off;

			h.paylen = (uint32_t)(left < mtu ? left : mtu);
		}
		rc = eng_fabric_tx(e, slot, &h, &l3, p->payload, off,
				   dreq && last ? SMX_CELL_F_DREQ : 0);
		if (rc < 0)
			return rc;
		if (!rc)
			return -EAGAIN;
		/* A READ or atomic request is one packet, whatever PSNs its
		 * responses take: sending one per PSN made the responder see
		 * the rest as duplicates. */
		o->sent = rd ? o->npkts : o->sent + 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The inbox                                                          */
/* ------------------------------------------------------------------ */

void eng_fabric_eth_flood(struct eng *e, const uint8_t *frame, uint32_t len)
{
	uint32_t s;

	if (!e->shm || !fw_config(e->fw)->eth_switch)
		return;
	if (len > SMX_SHM_INLINE) {
		e->eth_flood_dropped++;
		smx_dbg("engine: eth_switch: a %u-byte frame is over the %u bytes a "
			"cell carries; not flooded", len, SMX_SHM_INLINE);
		return;
	}
	for (s = 0; s < SMX_SHM_SLOTS; s++) {
		struct smx_cell *c;
		uint64_t pos;

		if (s == e->slot)
			continue;
		c = smx_shm_reserve(e->shm, s, 0, &pos);
		if (!c) {
			int32_t pid;

			if (smx_shm_alive(e->shm, s, &pid))
				e->eth_flood_dropped++;	/* alive, inbox full */
			continue;
		}
		c->kind = SMX_CELL_ETH;
		c->flags = 0;
		c->src_slot = e->slot;
		c->src_pid = e->pid;
		c->len = len;
		memcpy(c->data, frame, len);
		smx_shm_publish(e->shm, s, c, pos);
	}
}

/* A direct placement record a responder sent us. */
static void fab_rx_drec(struct eng *e, const struct smx_cell *c)
{
	struct smx_drec dr;

	if (c->len != sizeof(dr))
		return;
	memcpy(&dr, c->data, sizeof(dr));
	/* The memfd is opened through /proc/<pid>/fd: the pid must be the
	 * process attached in the slot the cell came from. */
	if (dr.pid != c->src_pid)
		return;
	eng_direct_learn(e, c->src_slot, &dr);
}

void eng_fabric_drec(struct eng *e, uint32_t slot, uint8_t op, uint32_t dqpn,
		     uint32_t rkey)
{
	struct smx_drec dr;
	struct smx_cell *c;
	uint64_t pos;

	eng_direct_record(e, op, dqpn, rkey, &dr);
	if (!dr.valid)
		return;
	/* An optimisation, not a message: no room, no record. */
	if (smx_shm_room(e->shm, slot) < 2)
		return;
	c = smx_shm_reserve(e->shm, slot, 0, &pos);
	if (!c)
		return;
	c->kind = SMX_CELL_DREC;
	c->flags = 0;
	c->src_slot = e->slot;
	c->src_pid = e->pid;
	c->len = sizeof(dr);
	memcpy(c->data, &dr, sizeof(dr));
	smx_shm_publish_quiet(e->shm, slot, c, pos);
	e->ring_mask |= 1ull << slot;
}

/* A SEND by reference (eng_direct.c): a SEND ONLY header without payload
 * and the reference, checked like the rest of the cell; the responder
 * takes the payload from the sender's memory, mapped here, while the
 * sender's key generation has not moved (a moved one: the cell is lost,
 * and the requester's timer sends the message again). */
static struct eng_qp *fab_rx_ref(struct eng *e, const struct smx_cell *c,
				 struct ibp_hdr *h, const struct roce_l3 *l3)
{
	const struct ibp_op *op = ibp_op(h->opcode);
	struct smx_sref r;
	const uint8_t *at;
	const char *why;

	memcpy(&r, c->data + SMX_SHM_INLINE - sizeof(r), sizeof(r));
	if (!(op->flags & IBP_OF_SEND) || !(op->flags & IBP_OF_FIRST) ||
	    !(op->flags & IBP_OF_LAST) || h->paylen ||
	    c->len > SMX_SHM_INLINE - sizeof(r) || !r.npkts ||
	    r.npkts > (1u << 21) || !r.len) {
		why = "a reference that is not a SEND ONLY without payload";
		goto drop;
	}
	at = eng_direct_sref_map(e, c->src_pid, &r);
	if (!at) {
		why = "the referenced payload cannot be mapped";
		goto drop;
	}
	if (!smx_shm_dbegin(e->shm, c->src_slot, r.gen)) {
		trn_ctr_add(e->ctr, TRN_CTR_RX_SEND_REF_STALE, 1);
		smx_dbg("engine: SEND by reference psn 0x%x from slot %u "
			"dropped: the sender's keys changed since", h->psn,
			c->src_slot);
		return NULL;
	}
	trn_ctr_add(e->ctr, TRN_CTR_RX_PACKETS, r.npkts);
	h->payload = at;
	h->paylen = r.len;
	eng_resp_pkt(e, h, l3, c->src_slot, false, r.npkts);
	if (r.len >= ENG_CLOCK_STALE_BYTES)
		eng_clock_tick(e);	/* the copy took a while */
	smx_shm_dend(e->shm);
	return NULL;
drop:
	trn_ctr_add(e->ctr, TRN_CTR_RX_MALFORMED, 1);
	smx_dbg("engine: cell from slot %u dropped: %s", c->src_slot, why);
	return NULL;
}

/* What every received packet meets before anything moves: the RoCEv2
 * encapsulation, the ICRC if the sender computed it, the IBTA headers (the
 * one decoder), the destination address. false: counted and dropped. */
static bool fab_rx_parse(struct eng *e, uint32_t src, const uint8_t *pkt,
			 uint32_t plen, uint8_t flags, struct ibp_hdr *h,
			 struct roce_l3 *l3)
{
	const char *why = NULL;
	uint32_t off, len;

	if (plen > SMX_SHM_INLINE || plen < 4 ||
	    roce_parse(pkt, plen, l3, &off, &len, &why) ||
	    ibp_parse(pkt + off, len, h, &why))
		goto drop;
	if ((flags & SMX_CELL_F_ICRC) && !roce_icrc_ok(pkt, plen)) {
		why = "bad ICRC";
		goto drop;
	}
	if (!eng_fabric_gid_local(e, l3->dgid)) {
		why = "destination address is not one of our GIDs";
		goto drop;
	}
	return true;
drop:
	trn_ctr_add(e->ctr, TRN_CTR_RX_MALFORMED, 1);
	smx_dbg("engine: packet from slot %u dropped: %s", src,
		why ? why : "malformed");
	return false;
}

struct eng_qp *eng_fabric_rx_pkt(struct eng *e, uint32_t src,
				 const uint8_t *pkt, uint32_t len,
				 uint8_t flags)
{
	struct roce_l3 l3;
	struct ibp_hdr h;

	if (!fab_rx_parse(e, src, pkt, len, flags, &h, &l3))
		return NULL;
	trn_ctr_add(e->ctr, TRN_CTR_RX_PACKETS, 1);
	if (ibp_op(h.opcode)->flags & IBP_OF_REQ) {
		eng_resp_pkt(e, &h, &l3, src, (flags & SMX_CELL_F_DREQ) != 0, 1);
		return NULL;
	}
	return eng_compl_pkt(e, &h, src);
}

/* A packet cell of the shared-memory link. */
static struct eng_qp *fab_rx_pkt(struct eng *e, const struct smx_cell *c)
{
	struct roce_l3 l3;
	struct ibp_hdr h;

	if (!(c->flags & SMX_CELL_F_REF))
		return eng_fabric_rx_pkt(e, c->src_slot, c->data, c->len,
					 c->flags);
	if (!fab_rx_parse(e, c->src_slot, c->data, c->len, c->flags, &h, &l3))
		return NULL;
	return fab_rx_ref(e, c, &h, &l3);
}

/*
 * THE RECEIVE-SIDE FAULT STAGE (rules with dir=rx): a packet from @slot
 * goes through the stage's decisions as it arrives, each packet the stage
 * lets through (maybe duplicated, corrupted, late or reordered) is
 * received then. A packet the sender left without ICRC gets one first,
 * so that a corrupted copy fails the check as on a wire. A SEND by
 * reference is not a packet on any wire: it is received as it is.
 */
static struct trn_fault *fab_fault_rx(struct eng *e, uint32_t slot,
				      int32_t pid)
{
	char err[160];

	if (e->fault_rx_on == 0) {
		struct trn_fault *f = e->fault_spec ?
			trn_fault_create(e->fault_spec, 0, err, sizeof(err)) :
			NULL;

		e->fault_rx_on = trn_fault_sees(f, false) ? 2 : 1;
		trn_fault_destroy(f);
	}
	if (e->fault_rx_on != 2)
		return NULL;
	if (!e->fault_rx) {
		e->fault_rx = calloc(SMX_SHM_SLOTS, sizeof(*e->fault_rx));
		e->fault_rx_pid = calloc(SMX_SHM_SLOTS, sizeof(int32_t));
		e->rx_in = malloc(sizeof(*e->rx_in));
		e->rx_out = malloc(sizeof(*e->rx_out));
		if (!e->fault_rx || !e->fault_rx_pid || !e->rx_in ||
		    !e->rx_out) {
			e->fault_rx_on = 1;
			return NULL;
		}
	}
	/* Packets held for a process that left are not its successor's. */
	if (e->fault_rx[slot] && e->fault_rx_pid[slot] != pid) {
		trn_fault_destroy(e->fault_rx[slot]);
		e->fault_rx[slot] = NULL;
	}
	if (!e->fault_rx[slot]) {
		e->fault_rx[slot] = trn_fault_create(e->fault_spec,
						     1ull << 40 |
						     (uint64_t)e->slot << 8 |
						     slot, err, sizeof(err));
		if (!e->fault_rx[slot])
			return NULL;
		trn_fault_set_counters(e->fault_rx[slot], e->ctr);
		e->fault_rx_pid[slot] = pid;
	}
	return e->fault_rx[slot];
}

/* A packet the dir=rx stage lets through: received now (fw->lock held).
 * Its QP runs at once (the batch's list is the caller's). */
static void fab_rx_emit(void *arg, const uint8_t *pkt, uint32_t len)
{
	struct fab_emit *x = arg;
	struct smx_cell *c = x->e->rx_out;
	struct eng_qp *q;

	if (len > SMX_SHM_INLINE ||
	    (x->slot != x->e->slot &&
	     !smx_shm_peer(x->e->shm, x->slot, x->e->fault_rx_pid[x->slot])))
		return;
	/* a copy: @pkt is the stage's, which receiving may send through */
	memcpy(c->data, pkt, len);
	q = eng_fabric_rx_pkt(x->e, x->slot, c->data, len, x->cflags);
	if (q)
		eng_sq_run(x->e, q);
	x->emitted++;
}

/* A packet from @src (process @pid) through the dir=rx stage; false:
 * there is none for it. */
static bool fab_rx_faulted(struct eng *e, uint32_t src, int32_t pid,
			   const uint8_t *pkt, uint32_t plen, uint8_t flags)
{
	/* This packet keeps its flags; held ones released now say only that
	 * they carry an ICRC, as eng_fabric_fault_poll() has them. */
	struct fab_emit fresh = { e, src, (uint8_t)(flags | SMX_CELL_F_ICRC),
				  0 };
	struct fab_emit held = { e, src, SMX_CELL_F_ICRC, 0 };
	struct trn_fault_pkt info = { .tx = false };
	struct trn_fault *f;
	struct roce_l3 l3;
	struct ibp_hdr h;
	const char *why;
	uint32_t off, len;
	uint64_t next;

	if (!(f = fab_fault_rx(e, src, pid)))
		return false;
	if (plen > SMX_SHM_INLINE || plen < 4 ||
	    roce_parse(pkt, plen, &l3, &off, &len, &why) ||
	    ibp_parse(pkt + off, len, &h, &why))
		return false;	/* malformed: dropped as such */
	info.dqpn = h.dqpn;
	info.cls = fab_fault_class(h.opcode);
	info.psn = h.psn;
	memcpy(e->rx_in->data, pkt, plen);
	if (!(flags & SMX_CELL_F_ICRC))
		roce_icrc_set(e->rx_in->data, plen - 4);
	trn_fault_xmit(f, &info, e->rx_in->data, plen, off, fab_rx_emit,
		       &fresh);
	next = trn_fault_poll(f, eng_now(), fab_rx_emit, &held);
	if (next)
		eng_timer_note(e, next);
	return true;
}

struct eng_qp *eng_fabric_rx(struct eng *e, uint32_t src, int32_t pid,
			     const uint8_t *pkt, uint32_t len, uint8_t flags)
{
	if (e->fault_spec && e->fault_rx_on != 1 &&
	    fab_rx_faulted(e, src, pid, pkt, len, flags))
		return NULL;
	return eng_fabric_rx_pkt(e, src, pkt, len, flags);
}

/* One cell (fw->lock held): its sender checked against the process table,
 * then handled by kind. Returns the QP whose oldest request can complete
 * now (run at the end of the batch), or NULL. */
static struct eng_qp *fab_rx_cell(struct eng *e, const struct smx_cell *c)
{
	/* The process table says who may send: a cell naming a slot that is
	 * not its sender's is not looked at. */
	if (c->kind != SMX_CELL_SKIP &&
	    (c->src_slot >= SMX_SHM_SLOTS ||
	     !smx_shm_peer(e->shm, c->src_slot, c->src_pid))) {
		smx_dbg("engine: cell from slot %u pid %d dropped: not the "
			"process attached there in our pid namespace",
			c->src_slot, (int)c->src_pid);
	} else if (c->kind == SMX_CELL_PKT) {
		/* A SEND by reference is not a packet on any wire: received
		 * as it is. */
		if (!(c->flags & SMX_CELL_F_REF))
			return eng_fabric_rx(e, c->src_slot, c->src_pid,
					     c->data, c->len, c->flags);
		return fab_rx_pkt(e, c);
	} else if (c->kind == SMX_CELL_ETH) {
		if (c->len >= 14 && c->len <= SMX_SHM_INLINE)
			eng_eth_rx(e, c->data, c->len, NULL);
	} else if (c->kind == SMX_CELL_DREC) {
		fab_rx_drec(e, c);
	}
	return NULL;
}

/* Requesters that stopped sending until our inbox was served (eng_sq_run),
 * or found a link full, go on (fw->lock held). */
void eng_fabric_unblock(struct eng *e)
{
	struct eng_obj *o;

	e->tx_paused = false;
	for (o = e->list[ENG_K_QP].next; o != &e->list[ENG_K_QP]; o = o->next) {
		struct eng_qp *q = (struct eng_qp *)o;

		if (q->tx_blocked) {
			q->tx_blocked = false;
			eng_sq_run(e, q);
		}
	}
}

/* The end of a batch (fw->lock held): completions in order and the next
 * requests of the QPs in @run, once per batch; what responders owe; the
 * compressed CQEs; the wake-ups. */
void eng_fabric_rx_end(struct eng *e, struct eng_qp *const *run,
		       unsigned int nrun)
{
	unsigned int i;

	for (i = 0; i < nrun; i++)
		eng_sq_run(e, run[i]);
	if (e->tx_paused)
		eng_fabric_unblock(e);
	eng_resp_flush_all(e);
	eng_comp_batch_end(e);
	eng_fabric_ring(e);
}

/* Processes up to FAB_MAX_BATCH cells; returns how many. */
static unsigned int fab_drain(struct eng *e)
{
	struct eng_qp *run[FAB_MAX_BATCH];
	unsigned int n = 0, nrun = 0, i;
	struct smx_cell *c;
	uint64_t now;
	bool clk;

	if (!smx_shm_peek(e->shm))
		return 0;
	fw_lock(e->fw);
	clk = eng_clock_begin(e);
	eng_comp_batch_begin(e);	/* flooded frames' CQEs may compress */
	while (n < FAB_MAX_BATCH && (c = smx_shm_peek(e->shm))) {
		struct eng_qp *q = fab_rx_cell(e, c);

		/* the batch's clock: a cell's work is short, a SEND by
		 * reference's copy ticks it (fab_rx_ref()) */
		smx_shm_pop(e->shm, eng_clock(e));
		n++;
		for (i = 0; q && i < nrun; i++)
			if (run[i] == q)
				q = NULL;
		if (q)
			run[nrun++] = q;
	}
	/* Objects stay valid: fw->lock is held throughout. */
	eng_fabric_rx_end(e, run, nrun);
	eng_loop_run(e);
	now = eng_clock(e);
	eng_clock_end(e, clk);
	fw_unlock(e->fw);
	if (n)
		__atomic_store_n(&e->traffic_ns, now, __ATOMIC_RELAXED);
	return n;
}

void eng_fabric_rx_cell(struct eng *e, const struct smx_cell *c)
{
	struct eng_qp *q;
	bool clk;

	fw_lock(e->fw);
	clk = eng_clock_begin(e);
	eng_comp_batch_begin(e);
	q = fab_rx_cell(e, c);
	eng_fabric_rx_end(e, &q, q ? 1 : 0);
	eng_loop_run(e);
	eng_clock_end(e, clk);
	fw_unlock(e->fw);
}

/* Room was made in an inbox we were waiting for (our bell rang): every QP
 * with a packet waiting goes on. */
void eng_fabric_resume(struct eng *e)
{
	struct eng_obj *o;

	fw_lock(e->fw);
	for (o = e->list[ENG_K_QP].next; o != &e->list[ENG_K_QP]; o = o->next) {
		struct eng_qp *q = (struct eng_qp *)o;

		if (q->tx_blocked) {
			q->tx_blocked = false;
			eng_sq_run(e, q);
		}
	}
	eng_resp_flush_all(e);
	eng_fabric_fault_poll(e);
	eng_loop_run(e);
	eng_fabric_ring(e);
	fw_unlock(e->fw);
}

bool eng_fabric_progress(struct eng *e)
{
	if (!e)
		return false;
	if (e->loop && eng_loop_pending(e)) {
		/* packets a command's side effect left on the loopback link */
		fw_lock(e->fw);
		eng_loop_run(e);
		fw_unlock(e->fw);
		return true;
	}
	if (!e->shm)
		return false;
	/* Several pollers may race here: any change will do. */
	__atomic_store_n(&e->polls, __atomic_load_n(&e->polls, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	return fab_drain(e);
}

void eng_fabric_armed(struct eng *e)
{
	if (!e->shm)
		return;
	__atomic_store_n(&e->polls_armed,
			 __atomic_load_n(&e->polls, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	/* The application is about to wait for an event instead of polling:
	 * producers must wake the inbox thread again, now if cells wait. */
	if (smx_shm_unpoll(e->shm))
		smx_shm_kick(e->shm);
}

/*
 * THE INBOX THREAD parks on its futex doorbell when the inbox is empty. While
 * cells keep coming (within FAB_POLLED_RECENT_NS) and the application busy-
 * polls its CQs (FAB_POLLED_PER_MS empty polls since the thread last looked,
 * none armed since), the pollers serve the inbox themselves
 * (eng_fabric_progress()): the thread then parks "polled", for at most
 * FAB_POLLED_PARK_NS, and producers skip the futex wake-up -- on two cores
 * that wake-up, and the context switch it forces on a busy CPU, cost more
 * than the message. If the pollers stop without arming, a cell waits that
 * long at most; an arm (eng_fabric_armed()) ends it at once. An application
 * that waits for events polls a few times per event: far below the rate.
 * Every wake-up also resumes what waited for room in a peer's inbox.
 */
static void *fab_rx_thread(void *arg)
{
	struct eng *e = arg;
	uint64_t last = 0, seen_ns = 0;
	uint32_t seen = 0;

	while (!__atomic_load_n(&e->rx_stop, __ATOMIC_ACQUIRE)) {
		uint64_t now;
		uint32_t p;
		bool polled;

		if (fab_drain(e)) {
			last = eng_now();
			continue;
		}
		if (__atomic_exchange_n(&e->resume, false, __ATOMIC_ACQ_REL))
			eng_fabric_resume(e);
		now = eng_now();
		if (now - last < e->spin_ns) {
			/* Yield rather than pause: with more busy threads
			 * than cores the peer we wait for needs this CPU. */
			sched_yield();
			continue;
		}
		p = __atomic_load_n(&e->polls, __ATOMIC_RELAXED);
		polled = p != __atomic_load_n(&e->polls_armed, __ATOMIC_RELAXED) &&
			 (uint64_t)(p - seen) * 1000000ull >=
			 (now - seen_ns) * FAB_POLLED_PER_MS &&
			 now - __atomic_load_n(&e->traffic_ns, __ATOMIC_RELAXED) <
			 FAB_POLLED_RECENT_NS;
		seen = p;
		seen_ns = now;
		smx_shm_wait(e->shm, polled ? FAB_POLLED_PARK_NS : 1000000000ull,
			     polled);
		/* Woken: maybe a peer made room for us. */
		__atomic_store_n(&e->resume, true, __ATOMIC_RELEASE);
		last = 0;
	}
	return NULL;
}

void eng_fabric_start(struct eng *e, struct smx_shm *shm)
{
	if (!e || !shm)
		return;
	e->spin_ns = eng_env_us("SOFTMLX5_PROGRESS_SPIN_US");
	eng_direct_start(e);
	e->shm = shm;
	e->slot = smx_shm_slot(shm);
	e->pid = (int32_t)getpid();
	e->ctr = smx_shm_counters(shm);
	if (pthread_create(&e->rx_thr, NULL, fab_rx_thread, e) == 0) {
		e->rx_started = true;
	} else {
		smx_err("engine: cannot start the inbox thread; this process is "
			"alone on the device");
		e->shm = NULL;
	}
}

void eng_fabric_stop(struct eng *e)
{
	if (!e->rx_started)
		return;
	/* Our packets still in peers' inboxes are taken before our slot is
	 * freed (a cell of a freed slot is dropped), with our own inbox
	 * thread still serving peers that close at the same time. A UD or
	 * UC sender completes when its packets are out and may leave at
	 * once. */
	smx_shm_flush(e->shm, FAB_FLUSH_WAIT_NS);
	__atomic_store_n(&e->rx_stop, true, __ATOMIC_RELEASE);
	smx_shm_kick(e->shm);
	pthread_join(e->rx_thr, NULL);
	e->rx_started = false;
	eng_direct_fini(e);
}

/* The fault stages and their buffers (eng_destroy(), once nothing runs). */
void eng_fabric_fault_free(struct eng *e)
{
	uint32_t s;

	for (s = 0; e->fault && s < SMX_SHM_SLOTS; s++)
		if (e->fault[s])
			trn_fault_destroy(e->fault[s]);
	free(e->fault);
	e->fault = NULL;
	for (s = 0; e->fault_rx && s < SMX_SHM_SLOTS; s++)
		trn_fault_destroy(e->fault_rx[s]);
	free(e->fault_rx);
	free(e->fault_rx_pid);
	free(e->rx_in);
	free(e->rx_out);
	e->fault_rx = NULL;
	e->fault_rx_pid = NULL;
	e->rx_in = e->rx_out = NULL;
	e->fault_rx_on = 0;
	free(e->txbuf);
	e->txbuf = NULL;
}
