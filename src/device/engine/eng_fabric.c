/* SPDX-License-Identifier: MIT */
/*
 * The packet layer every link shares (docs/transport.md): segmentation at
 * the path MTU (eng_fabric_send()), building a packet into a link's buffer
 * (eng_fabric_tx(): headers, payload, RoCEv2 encapsulation, ICRC, capture,
 * the fault stage), the checks of what a link received and its hand-over
 * to the responder or the completer (eng_fabric_rx(), eng_fabric_rx_pkt()),
 * and the choice of link (eng_fabric_link()). It reaches a link only
 * through its ops (struct eng_link_ops, eng_loc.h): the shared-memory link
 * between processes (eng_link_shm.c), the loopback link within one
 * (eng_link_loop.c), the network link to other hosts (eng_link_udp.c,
 * with whole frames eng_link_raw.c).
 *
 * In-process (the destination QPN belongs to this process's slot, or the
 * process is alone): with a fault stage, a capture or loopback_packets, the
 * loopback link carries the same packets; otherwise eng_fabric_xmit() runs
 * the responder in the requester's thread, under the same locks, on the
 * whole message as one unit (FIRST | LAST, every PSN of the message): no
 * segmentation, and the response is there when it returns.
 *
 * The ICRC is computed when something may look at it -- a capture
 * (SOFTMLX5_PCAP) or fault injection (a corrupted packet must be caught) --
 * and the packet's flags say so (SMX_CELL_F_ICRC); otherwise a local link
 * leaves it zero, as Annex A17 lets a link that cannot corrupt. Only the
 * fault stages (SOFTMLX5_FAULT, transport/fault.c) lose packets, and the
 * transport recovers from that.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/engine/eng_loc.h"
#include "device/transport/counters.h"
#include "device/transport/fault.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/pcap.h"
#include "device/transport/roce.h"
#include "device/trace.h"
#include "util/log.h"

/* At engine creation and after every command: a port bound to a network
 * interface follows its addresses (the firmware re-reads them before a
 * command runs). Distinct GIDs only (RoCE v1 and v2 entries repeat one). */
void eng_fabric_cache_gids(struct eng *e)
{
	const struct smx_config *cfg = fw_config(e->fw);
	uint8_t mine[16];
	uint32_t i, k, n = 0;

	for (i = 0; i < cfg->gid_tbl_len && n < ENG_MAX_GIDS; i++) {
		if (!fw_gid(e->fw, i, mine))
			continue;
		for (k = 0; k < n && memcmp(e->gids[k], mine, 16); k++)
			;
		if (k == n)
			memcpy(e->gids[n++], mine, 16);
	}
	e->ngids = n;
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

bool eng_fabric_routed(struct eng *e, const uint8_t gid[16])
{
	return eng_fabric_gid_local(e, gid) ||
	       (e->udp && eng_udp_dst(e, gid) >= 0);
}

int eng_fabric_peer(struct eng *e, const uint8_t dgid[16], uint32_t dqpn)
{
	int slot;

	/* Another host: its QPNs say nothing of our slots. */
	if (e->udp && !eng_fabric_gid_local(e, dgid))
		return eng_udp_dst(e, dgid);
	slot = e->shm ? smx_shm_qpn_slot(dqpn) : -1;
	/* Ours (or nobody else's: we are alone): the loopback link, in
	 * packets or whole (eng_fabric_xmit()). */
	if (slot < 0 || (uint32_t)slot == e->slot)
		return e->loop_pkts ? (int)e->slot : -1;
	return slot;
}

const struct eng_link_ops *eng_fabric_link(const struct eng *e, uint32_t dst)
{
	if (eng_dst_net(dst))
		return e->raw ? &eng_link_raw : &eng_link_udp;
	return dst == e->slot && e->loop_pkts ? &eng_link_loop : &eng_link_shm;
}

bool eng_fabric_peer_alive(struct eng *e, uint32_t slot)
{
	return eng_fabric_link(e, slot)->alive(e, slot);
}

bool eng_fabric_peer_stalled(struct eng *e, uint32_t dst, uint64_t since_ns)
{
	return eng_fabric_link(e, dst)->stalled(e, dst, since_ns);
}

/* ------------------------------------------------------------------ */
/* Transmit                                                           */
/* ------------------------------------------------------------------ */

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

	for (s = 0; e->fault && s < ENG_DSTS; s++) {
		struct fab_emit x = { e, s, SMX_CELL_F_ICRC, 0 };

		if (!e->fault[s])
			continue;
		e->fault_next = trn_fault_poll(e->fault[s], eng_now(),
					       fab_emit_cell, &x);
		if (e->fault_next)
			eng_timer_note(e, e->fault_next);
	}
	for (s = 0; e->fault_rx && s < ENG_DSTS; s++) {
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
		e->fault = calloc(ENG_DSTS, sizeof(*e->fault));
		if (!e->fault)
			return NULL;
	}
	if (!e->fault[slot]) {
		e->fault[slot] = trn_fault_create(e->fault_spec,
						  (uint64_t)e->slot << 16 | slot,
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
	bool icrc = f || trn_pcap_on() || l->icrc;
	uint32_t l3len = roce_gid_is_v4(l3->sgid) && roce_gid_is_v4(l3->dgid) ? 28 : 48;
	struct roce_l3 fixed;
	uint32_t pad = ibp_pad(h->paylen), hlen, iblen, len;
	struct eng_link_tx t = { 0 };
	bool room = false;
	uint8_t *b;
	int rc;

	if (l->sport || l->ip_id) {
		/* the packet as the link's socket sends it; or a whole
		 * frame: IPv4 packets numbered, as a host numbers them */
		fixed = *l3;
		if (l->sport)
			fixed.sport = l->sport;
		if (l->ip_id)
			fixed.ip_id = e->ip_id++;
		l3 = &fixed;
	}
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
	if (roce_build(b, l3len, l3, iblen) != l3len)
		goto bad;	/* the GIDs of two families: no one IP header */
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
	if (smx_trace_on(SMX_TR_PKT))
		smx_trace_pkt_log(true, l->name, slot, h->dqpn,
				  ibp_op(h->opcode)->flags & IBP_OF_REQ ? h->src_qp : 0, b, len,
				  icrc, ref != NULL);
	trn_ctr_add(e->ctr, TRN_CTR_TX_PACKETS, ref ? ref->npkts : 1);
	/* by reference: each packet's headers, and the payload once */
	trn_ctr_add(e->ctr, TRN_CTR_TX_BYTES,
		    ref ? (uint64_t)len * ref->npkts + ref->len : len);
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
			const struct roce_l3 *l3, const struct smx_sref *ref,
			bool dreq)
{
	struct ibp_hdr h;
	int rc;

	fab_req_hdr(p, 0, true, &h);
	rc = fab_tx(e, slot, &h, l3, NULL, 0, dreq ? SMX_CELL_F_DREQ : 0, ref);
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
	if (!o->sent && slot != e->slot && !eng_dst_net(slot) &&
	    eng_direct_sref(e, p, o->npkts, &ref))
		return fab_send_ref(e, p, o, slot, &l3, &ref, dreq);
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

/* What every received packet meets before anything moves: the RoCEv2
 * encapsulation, the ICRC if the sender computed it, the IBTA headers (the
 * one decoder), the destination address. false: counted and dropped. */
bool eng_fabric_rx_parse(struct eng *e, uint32_t src, const uint8_t *pkt,
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
		/* ConnectX's counter of it, and ours */
		trn_ctr_add(e->ctr, TRN_CTR_RX_ICRC_ENCAPSULATED, 1);
		trn_ctr_add(e->ctr, TRN_CTR_RX_ICRC_ERRORS, 1);
		smx_dbg("engine: packet from slot %u dropped: bad ICRC", src);
		return false;
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

	if (!eng_fabric_rx_parse(e, src, pkt, len, flags, &h, &l3)) {
		if (smx_trace_on(SMX_TR_PKT))	/* as received: the dump says why */
			smx_trace_pkt_log(false, eng_fabric_link(e, src)->name, src, 0, 0,
					  pkt, len, flags & SMX_CELL_F_ICRC, flags & SMX_CELL_F_REF);
		return NULL;
	}
	if (smx_trace_on(SMX_TR_PKT))
		smx_trace_pkt_log(false, eng_fabric_link(e, src)->name, src, h.dqpn, 0, pkt, len,
				  flags & SMX_CELL_F_ICRC, flags & SMX_CELL_F_REF);
	trn_ctr_add(e->ctr, TRN_CTR_RX_PACKETS, 1);
	trn_ctr_add(e->ctr, TRN_CTR_RX_BYTES, len);
	if (ibp_op(h.opcode)->flags & IBP_OF_REQ) {
		eng_resp_pkt(e, &h, &l3, src, (flags & SMX_CELL_F_DREQ) != 0, 1);
		return NULL;
	}
	return eng_compl_pkt(e, &h, src);
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
		e->fault_rx = calloc(ENG_DSTS, sizeof(*e->fault_rx));
		e->fault_rx_pid = calloc(ENG_DSTS, sizeof(int32_t));
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
						     (uint64_t)e->slot << 16 |
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
	    (x->slot != x->e->slot && !eng_dst_net(x->slot) &&
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

void eng_fabric_fault_init(struct eng *e)
{
	const char *spec = getenv("SOFTMLX5_FAULT");

	if (!spec || !*spec)
		spec = fw_config(e->fw)->fault;
	if (spec && *spec)
		e->fault_spec = strdup(spec);
}

void eng_fabric_fault_free(struct eng *e)
{
	uint32_t s;

	for (s = 0; e->fault && s < ENG_DSTS; s++)
		if (e->fault[s])
			trn_fault_destroy(e->fault[s]);
	free(e->fault);
	e->fault = NULL;
	for (s = 0; e->fault_rx && s < ENG_DSTS; s++)
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
	free((void *)e->fault_spec);
	e->fault_spec = NULL;
}
