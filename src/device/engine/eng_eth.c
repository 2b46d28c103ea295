/* SPDX-License-Identifier: MIT */
/*
 * Ethernet: send WQEs of SQs become frames, which go through NIC transmit
 * steering (fw_flow_steer_tx), then NIC receive steering (fw_flow_steer),
 * and land in RQs.
 *
 * SEND WQE on an SQ (PRM): control segment (opcode SEND 0x0a or NOP; qpn_ds
 * names the SQ), an Ethernet segment (struct mlx5_wqe_eth_seg: cs_flags
 * L3_CSUM 0x40 / L4_CSUM 0x80, mss 0, inline_hdr_sz bytes of frame header
 * starting at inline_hdr_start, so the segment is 16 + roundup(sz - 2, 16)
 * bytes), then data: pointer segments (lkey with local read in the SQ's PD)
 * and inline segments. The frame is the inline header followed by the data.
 * The device needs no inline header (cap wqe_inline_mode NOT_REQUIRED);
 * an SQ created with min_wqe_inline_mode L2 must carry at least the 18-byte
 * L2 header (MAC addresses, one VLAN tag, ethertype). Checksum flags are
 * honoured for IPv4 (header checksum) and TCP/UDP over IPv4 or IPv6 (no
 * extension headers); other frames are sent as they are. LSO (mss), VLAN
 * insertion by the WQE and SWP are not supported: TSO/other opcodes fail the WQE.
 * A signalled WQE completes with a REQ CQE (qpn: the SQN, srqn_uidx: the
 * SQ's user_index). A bad WQE completes with an error CQE and moves the SQ
 * to ERR; in ERR, posted WQEs are flushed when flush_in_error_en is set.
 *
 * Every sent frame first goes through NIC transmit steering
 * (fw_flow_steer_tx) when a NIC TX root is set: its entries may rewrite
 * it (MAC fields, VLAN push / pop, encapsulation) or drop it (counted in
 * fw_eth_stats tx_dropped; the WQE still completes without error).
 *
 * A NIC RX path with a DECAP entry delivers a VXLAN frame (outer Ethernet,
 * up to two VLAN tags, IPv4 or IPv6, UDP to port 4789, an 8-byte VXLAN
 * header with the I flag) as its inner Ethernet frame; other frames go as
 * they came. Steering matched the outer headers; CQE flags describe what
 * the queue gets.
 *
 * Frames loop back in-process: a sent frame enters this device's NIC
 * receive, like traffic that the eswitch turns around towards the local
 * vport. Frames do not travel between processes; with the `wire` knob
 * they also leave on the port's cable, and frames from the cable enter
 * NIC receive (eng_wire.c).
 *
 * Receive: the frame's outer headers are parsed into a
 * fte_match_set_lyr_2_4 for steering. Every TIR that steering names gets
 * the frame, except when the TIR blocks self loopback for the frame's kind
 * (unicast / multicast DMAC) and the sending TIS is in its transport
 * domain. The TIR's RQ must be RDY; its next receive WQE (a scatter list of
 * local-write keys in the RQ's PD) takes the frame, the C-VLAN tag removed
 * unless the RQ has vsd. The CQE (RESP_SEND) carries the byte count, the
 * RQ's user_index, the steering entry's flow tag (sop_drop_qpn), the
 * stripped tag (vlan_info, l4_hdr_type_etc bit 0), the L3/L4 header types
 * and hds_ip_ext L2_OK / L3_OK (IPv4 header checksum good, or IPv6) /
 * L4_OK (TCP/UDP checksum good). With no WQE posted the frame is dropped
 * and counted (fw_eth_stats rx_out_of_buffer, the RQ's out_of_buffer); a
 * frame larger than the WQE (LOCAL_LENGTH_ERR) or a bad key
 * (LOCAL_PROT_ERR) completes the WQE in error and moves the RQ to ERR.
 * An RMP-backed RQ takes its WQEs from the RMP (eng_rq_take: linked list
 * or basic cyclic, limit event) and names the RMP's WQE index in the CQE;
 * an empty RMP, or one in ERR, drops the frame as above.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/decode.h"
#include "device/engine/eng_loc.h"
#include "device/trace.h"
#include "util/log.h"
#include "util/csum.h"

#define ENG_ETH_HLEN 14
#define ENG_ETH_L2_INLINE 18	/* MAC addresses, one VLAN tag, ethertype */
#define ENG_ETHERTYPE_IPV4 0x0800
#define ENG_ETHERTYPE_IPV6 0x86dd
#define ENG_ETHERTYPE_CVLAN 0x8100
#define ENG_ETHERTYPE_SVLAN 0x88a8
#define ENG_IPPROTO_TCP 6
#define ENG_IPPROTO_UDP 17
#define ENG_VXLAN_PORT 4789
#define ENG_VXLAN_HLEN 8
#define ENG_VXLAN_FLAG_I 0x08	/* the VNI is valid */
#define ENG_CQE_L4_TCP_NO_ACK 1
#define ENG_CQE_L4_UDP 2
#define ENG_CQE_L4_TCP_ACK_NO_DATA 3
#define ENG_CQE_L4_TCP_ACK_AND_DATA 4

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The parsed layers of a frame. */
struct eth_parse {
	uint32_t len;
	uint16_t ethertype;	/* after the VLAN tags */
	uint32_t l3_off, l3_len;	/* IP header start, bytes from it on */
	uint32_t l4_off, l4_len;
	uint8_t ipver;		/* 4, 6 or 0 */
	bool len_ok;		/* the IP length fits the frame */
	uint8_t proto;		/* TCP/UDP when l4_off is set */
	bool frag;
	bool cvlan;		/* first tag is 802.1Q */
	uint32_t ntags;
};

static void eth_parse(const uint8_t *f, uint32_t len, struct eth_parse *p)
{
	uint32_t off = 12;

	memset(p, 0, sizeof(*p));
	p->len = len;
	if (len < ENG_ETH_HLEN)
		return;
	p->ethertype = get16(f + off);
	while ((p->ethertype == ENG_ETHERTYPE_CVLAN ||
		p->ethertype == ENG_ETHERTYPE_SVLAN) && p->ntags < 2 &&
	       off + 6 <= len) {
		if (!p->ntags)
			p->cvlan = p->ethertype == ENG_ETHERTYPE_CVLAN;
		p->ntags++;
		off += 4;
		p->ethertype = get16(f + off);
	}
	off += 2;
	/* Headers are parsed for steering even when the IP length field
	 * disagrees with the frame (a parser does not check it); only
	 * len_ok frames get L3_OK / L4_OK and checksum offloads. */
	if (p->ethertype == ENG_ETHERTYPE_IPV4 && off + 20 <= len &&
	    (f[off] >> 4) == 4) {
		uint32_t ihl = (f[off] & 0xf) * 4u;
		uint32_t tot = get16(f + off + 2);

		if (ihl < 20 || off + ihl > len)
			return;
		p->ipver = 4;
		p->l3_off = off;
		p->len_ok = tot >= ihl && off + tot <= len;
		p->l3_len = p->len_ok ? tot : len - off;
		p->proto = f[off + 9];
		p->frag = (get16(f + off + 6) & 0x3fff) != 0;
		if (!p->frag) {
			p->l4_off = off + ihl;
			p->l4_len = p->l3_len - ihl;
		}
	} else if (p->ethertype == ENG_ETHERTYPE_IPV6 && off + 40 <= len &&
		   (f[off] >> 4) == 6) {
		uint32_t pl = get16(f + off + 4);

		p->ipver = 6;
		p->l3_off = off;
		p->len_ok = off + 40 + pl <= len;
		p->l3_len = p->len_ok ? 40 + pl : len - off;
		p->proto = f[off + 6];
		p->frag = p->proto == 44;	/* fragment header */
		p->l4_off = off + 40;
		p->l4_len = p->l3_len - 40;
	}
	if (p->l4_off && ((p->proto == ENG_IPPROTO_TCP && p->l4_len < 20) ||
			  (p->proto == ENG_IPPROTO_UDP && p->l4_len < 8) ||
			  (p->proto != ENG_IPPROTO_TCP &&
			   p->proto != ENG_IPPROTO_UDP)))
		p->l4_off = p->l4_len = 0;
}

/* The TCP/UDP checksum over the pseudo header and the segment, folded. */
static uint16_t eth_l4_sum(const uint8_t *f, const struct eth_parse *p)
{
	uint32_t sum = 0;

	if (p->ipver == 4)
		sum = smx_csum_add(sum, f + p->l3_off + 12, 8);
	else
		sum = smx_csum_add(sum, f + p->l3_off + 8, 32);
	sum += p->proto;
	sum += p->l4_len & 0xffff;
	sum += p->l4_len >> 16;
	sum = smx_csum_add(sum, f + p->l4_off, p->l4_len);
	return smx_csum_fold(sum);
}

/* Send side: fill the checksums the WQE asks for. */
static void eth_tx_csum(uint8_t *f, uint32_t len, uint8_t cs_flags)
{
	struct eth_parse p;

	eth_parse(f, len, &p);
	if (!p.len_ok)
		return;	/* nothing sensible to checksum */
	if ((cs_flags & MLX5_ETH_WQE_L3_CSUM) && p.ipver == 4) {
		uint8_t *ip = f + p.l3_off;
		uint32_t ihl = (ip[0] & 0xf) * 4u;
		uint16_t s;

		ip[10] = ip[11] = 0;
		s = (uint16_t)~smx_csum_fold(smx_csum_add(0, ip, ihl));
		ip[10] = (uint8_t)(s >> 8);
		ip[11] = (uint8_t)s;
	}
	if ((cs_flags & MLX5_ETH_WQE_L4_CSUM) && p.l4_off) {
		uint32_t at = p.l4_off + (p.proto == ENG_IPPROTO_TCP ? 16 : 6);
		uint16_t s;

		f[at] = f[at + 1] = 0;
		s = (uint16_t)~eth_l4_sum(f, &p);
		if (p.proto == ENG_IPPROTO_UDP && !s)
			s = 0xffff;	/* 0 would mean "no checksum" */
		f[at] = (uint8_t)(s >> 8);
		f[at + 1] = (uint8_t)s;
	}
}

/* ------------------------------------------------------------------ */
/* Receive                                                            */
/* ------------------------------------------------------------------ */

struct eth_rx {
	const uint8_t *f;
	struct eth_parse p;
	uint8_t match[FW_MATCH_BYTES] __attribute__((aligned(8)));
	uint8_t l3_type;	/* MLX5_CQE_L3_HDR_TYPE_* */
	uint8_t l4_type;	/* CQE l4_hdr_type */
	uint8_t hds_ip_ext;	/* MLX5_CQE_L2_OK / L3_OK / L4_OK */
	bool multicast;
	uint32_t hash;		/* RSS: the Toeplitz hash an indirect TIR took */
	uint8_t hash_type;	/* RSS: CQE rss_hash_type of the fields hashed */
};

#define M_SET(fld, v) DEVX_SET(fte_match_set_lyr_2_4, r->match, fld, v)

/* The frame's outer headers as a steering match set, and its CQE flags. */
static void eth_rx_classify(struct eth_rx *r)
{
	const uint8_t *f = r->f;
	const struct eth_parse *p = &r->p;

	memset(r->match, 0, sizeof(r->match));
	r->multicast = f[0] & 1;
	M_SET(dmac_47_16, get32(f));
	M_SET(dmac_15_0, get16(f + 4));
	M_SET(smac_47_16, get32(f + 6));
	M_SET(smac_15_0, get16(f + 10));
	M_SET(ethertype, p->ethertype);
	r->hds_ip_ext = MLX5_CQE_L2_OK;
	if (p->ntags) {
		uint16_t tci = get16(f + 14);

		M_SET(cvlan_tag, p->cvlan);
		M_SET(svlan_tag, !p->cvlan);
		M_SET(first_prio, tci >> 13);
		M_SET(first_cfi, (tci >> 12) & 1);
		M_SET(first_vid, tci & 0xfff);
	}
	if (p->ipver == 4) {
		const uint8_t *ip = f + p->l3_off;
		uint32_t ihl = (ip[0] & 0xf) * 4u;

		r->l3_type = MLX5_CQE_L3_HDR_TYPE_IPV4;
		M_SET(ip_version, 4);
		M_SET(ip_dscp, ip[1] >> 2);
		M_SET(ip_ecn, ip[1] & 3);
		M_SET(ttl_hoplimit, ip[8]);
		M_SET(ip_protocol, p->proto);
		M_SET(frag, p->frag);
		M_SET(ipv4_ihl, ip[0] & 0xf);
		M_SET(src_ipv4_src_ipv6.ipv4_layout.ipv4, get32(ip + 12));
		M_SET(dst_ipv4_dst_ipv6.ipv4_layout.ipv4, get32(ip + 16));
		if (p->len_ok && smx_csum_fold(smx_csum_add(0, ip, ihl)) == 0xffff)
			r->hds_ip_ext |= MLX5_CQE_L3_OK;
	} else if (p->ipver == 6) {
		const uint8_t *ip = f + p->l3_off;
		uint8_t tc = (uint8_t)((ip[0] & 0xf) << 4 | ip[1] >> 4);

		r->l3_type = MLX5_CQE_L3_HDR_TYPE_IPV6;
		M_SET(ip_version, 6);
		M_SET(ip_dscp, tc >> 2);
		M_SET(ip_ecn, tc & 3);
		M_SET(ttl_hoplimit, ip[7]);
		M_SET(ip_protocol, p->proto);
		M_SET(frag, p->frag);
		memcpy(DEVX_ADDR_OF(fte_match_set_lyr_2_4, r->match,
				    src_ipv4_src_ipv6.ipv6_layout.ipv6), ip + 8, 16);
		memcpy(DEVX_ADDR_OF(fte_match_set_lyr_2_4, r->match,
				    dst_ipv4_dst_ipv6.ipv6_layout.ipv6), ip + 24, 16);
		if (p->len_ok)
			r->hds_ip_ext |= MLX5_CQE_L3_OK;
	}
	if (p->l4_off) {
		const uint8_t *l4 = f + p->l4_off;
		uint16_t stored = get16(l4 + (p->proto == ENG_IPPROTO_TCP ? 16 : 6));

		if (p->proto == ENG_IPPROTO_TCP) {
			uint32_t doff = (l4[12] >> 4) * 4u;

			M_SET(l4_type, MLX5_PACKET_L4_TYPE_TCP);
			M_SET(tcp_sport, get16(l4));
			M_SET(tcp_dport, get16(l4 + 2));
			M_SET(tcp_flags, (uint32_t)(l4[12] & 1) << 8 | l4[13]);
			r->l4_type = !(l4[13] & 0x10) ? ENG_CQE_L4_TCP_NO_ACK :
				     p->l4_len > doff ? ENG_CQE_L4_TCP_ACK_AND_DATA :
				     ENG_CQE_L4_TCP_ACK_NO_DATA;
		} else {
			M_SET(l4_type, MLX5_PACKET_L4_TYPE_UDP);
			M_SET(udp_sport, get16(l4));
			M_SET(udp_dport, get16(l4 + 2));
			r->l4_type = ENG_CQE_L4_UDP;
		}
		if (p->len_ok &&
		    ((p->proto == ENG_IPPROTO_UDP && p->ipver == 4 && !stored) ||
		     eth_l4_sum(f, p) == 0xffff))
			r->hds_ip_ext |= MLX5_CQE_L4_OK;
	}
}

#undef M_SET

/* The match set of a frame, for NIC transmit steering. */
static void eng_eth_match(const uint8_t *f, uint32_t len,
			  uint8_t hdr[FW_MATCH_BYTES])
{
	struct eth_rx r;

	memset(hdr, 0, FW_MATCH_BYTES);
	if (len < ENG_ETH_HLEN)
		return;	/* matches only entries that match anything */
	r.f = f;
	eth_parse(f, len, &r.p);
	eth_rx_classify(&r);
	memcpy(hdr, r.match, FW_MATCH_BYTES);
}

/* ------------------------------------------------------------------ */
/* Engine state                                                       */
/* ------------------------------------------------------------------ */

static struct eng_sq *eng_eth_sq_of(struct eng *e, struct fw_sq *sq)
{
	struct eng_sq *s = sq->eng;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->sq = sq;
	eng_obj_add(e, &s->o, ENG_K_SQ);
	sq->eng = s;
	eng_watch_add(e, 1);
	return s;
}

static struct eng_rq *eng_eth_rq_of(struct eng *e, struct fw_rq *rq)
{
	struct eng_rq *s = rq->eng;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->rq = rq;
	eng_obj_add(e, &s->o, ENG_K_RQ);
	rq->eng = s;
	return s;
}

static uint16_t eng_eth_sq_pi(const struct fw_sq *sq)
{
	return (uint16_t)be32toh(__atomic_load_n(&sq->dbrec[1], __ATOMIC_ACQUIRE));
}

static uint16_t eng_eth_rq_pi(const struct fw_rq *rq)
{
	return (uint16_t)be32toh(__atomic_load_n(&rq->dbrec[0], __ATOMIC_ACQUIRE));
}

/* ------------------------------------------------------------------ */
/* Receive: into one RQ                                               */
/* ------------------------------------------------------------------ */

static void eng_eth_rq_err(struct eng *e, struct eng_rq *s, uint8_t syndrome,
			   uint16_t counter, const char *why)
{
	struct fw_rq *rq = s->rq;
	struct eng_cqe c = {
		.opcode = MLX5_CQE_RESP_ERR,
		.syndrome = syndrome,
		.qpn = rq->obj.id,
		.wqe_counter = counter,
		.srqn_uidx = DEVX_GET(rqc, rq->ctx, user_index),
	};

	smx_dbg("engine: rq 0x%x wqe %u: %s -> %s; rq to ERR", rq->obj.id,
		counter, why, eng_synd_str(syndrome));
	eng_cqe_post(e, rq->cq, &c);
	rq->state = MLX5_RQC_STATE_ERR;
	DEVX_SET(rqc, rq->ctx, state, MLX5_RQC_STATE_ERR);
}

/* Flushes the posted WQEs of an RQ in ERR (flush_in_error_en). */
static bool eng_eth_rq_flush(struct eng *e, struct eng_rq *s)
{
	struct fw_rq *rq = s->rq;
	bool work = false;
	uint16_t pi;

	/* An RMP-backed RQ owns no WQEs: the pool's stay posted. */
	if (rq->rmp || !DEVX_GET(rqc, rq->ctx, flush_in_error_en))
		return false;
	pi = eng_eth_rq_pi(rq);
	while (s->ci != pi) {
		struct eng_cqe c = {
			.opcode = MLX5_CQE_RESP_ERR,
			.syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
			.qpn = rq->obj.id,
			.wqe_counter = s->ci,
			.srqn_uidx = DEVX_GET(rqc, rq->ctx, user_index),
		};

		eng_cqe_post(e, rq->cq, &c);
		s->ci++;
		work = true;
	}
	return work;
}

/* The next receive WQE of @rq: its own ring, or its RMP's (eng_rq.c).
 * False (frame dropped and counted) when none is posted. */
static bool eng_eth_rq_take(struct eng *e, struct eng_rq *s, uint32_t len,
			    struct eng_rwqe *w)
{
	struct fw_rq *rq = s->rq;
	uint8_t body[1024] __attribute__((aligned(16)));
	struct fw_eth_stats *st = fw_eth_stats(e->fw);
	uint32_t stride = rq->buf.stride;
	const uint8_t *p;

	if (rq->rmp) {
		if (eng_rq_take(e, NULL, rq->rmp, w))
			return true;
	} else if (s->ci != eng_eth_rq_pi(rq)) {
		w->srq = NULL;
		w->index = s->ci;
		p = fw_buf_addr(&rq->buf,
				(uint64_t)(s->ci & (rq->wqes - 1)) * stride);
		if (!p || stride > sizeof(body)) {
			eng_eth_rq_err(e, s, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
				       s->ci, "receive WQE outside the RQ buffer");
			return false;
		}
		memcpy(body, p, stride);
		s->ci++;
		eng_rwqe_parse(w, body, stride);
		return true;
	}
	rq->out_of_buffer++;
	st->rx_out_of_buffer++;
	if (rq->rmp)
		smx_dbg("engine: rq 0x%x: rmp 0x%x (%s) has no receive WQE, "
			"frame of %u bytes dropped", rq->obj.id,
			rq->rmp->obj.id, rq->rmp->state == MLX5_RMPC_STATE_RDY ?
			"RDY" : "ERR", len);
	else
		smx_dbg("engine: rq 0x%x: no receive WQE posted, frame of %u "
			"bytes dropped", rq->obj.id, len);
	return false;
}

static void eng_eth_deliver(struct eng *e, struct fw_rq *rq,
			    const struct eth_rx *r, uint32_t flow_tag)
{
	struct eng_rq *s = rq ? eng_eth_rq_of(e, rq) : NULL;
	struct eng_sge ds[ENG_MAX_SGE], src[2];
	struct eng_sgl dst = { ds, 0, 0 }, from = { src, 0, 0 };
	uint32_t i, len = r->p.len;
	uint16_t counter, tci = 0;
	struct mlx5_cqe64 cqe;
	struct eng_rwqe w;
	struct eng_cqe c;
	char why[200];
	bool strip;

	if (!s || !rq || rq->state != MLX5_RQC_STATE_RDY) {
		fw_eth_stats(e->fw)->rx_dropped++;
		return;
	}
	if (!eng_eth_rq_take(e, s, len, &w))
		return;
	counter = w.index;
	for (i = 0; i < w.nseg; i++) {
		const struct mlx5_wqe_data_seg *d = &w.seg[i];
		uint32_t lkey = be32toh(d->lkey);
		uint64_t bc = be32toh(d->byte_count) & 0x7fffffff;
		struct eng_sge *g = &ds[dst.n];

		if (!bc)
			continue;
		if (eng_key_check(e, lkey, rq->pd, ENG_ACC_LW, be64toh(d->addr),
				  bc, &g->mk, why, sizeof(why))) {
			eng_eth_rq_err(e, s, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
				       counter, why);
			return;
		}
		if (g->mk->sig.en) {
			eng_eth_rq_err(e, s, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
				       counter, "signature key in an Ethernet "
				       "receive WQE");
			return;
		}
		g->host = NULL;
		g->va = be64toh(d->addr);
		g->len = bc;
		dst.len += bc;
		dst.n++;
	}
	/* C-VLAN stripping: the 4 tag bytes after the MACs leave the frame
	 * and go to the CQE. */
	strip = !rq->vsd && r->p.ntags && r->p.cvlan;
	src[0].host = (uint8_t *)r->f;
	src[0].mk = NULL;
	src[0].va = 0;
	if (strip) {
		tci = get16(r->f + 14);
		src[0].len = 12;
		src[1].host = (uint8_t *)r->f + 16;
		src[1].mk = NULL;
		src[1].va = 0;
		src[1].len = len - 16;
		from.n = 2;
		len -= 4;
	} else {
		src[0].len = len;
		from.n = 1;
	}
	from.len = len;
	if (len > dst.len) {
		snprintf(why, sizeof(why), "frame of %u bytes, the WQE holds "
			 "%llu", len, (unsigned long long)dst.len);
		eng_eth_rq_err(e, s, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, counter,
			       why);
		return;
	}
	if (eng_sgl_copy(&dst, 0, &from, 0, len) != len) {
		eng_eth_rq_err(e, s, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, counter,
			       "receive buffer hit unmapped memory");
		return;
	}
	memset(&cqe, 0, sizeof(cqe));
	/* rss_hash_result and rss_hash_type sit at bytes 12 and 16 */
	if (r->hash_type) {
		uint32_t h = htobe32(r->hash);

		memcpy((uint8_t *)&cqe + 12, &h, 4);
		((uint8_t *)&cqe)[16] = r->hash_type;
	}
	cqe.hds_ip_ext = r->hds_ip_ext;
	cqe.l4_hdr_type_etc = (uint8_t)(r->l4_type << 4 | r->l3_type << 2 |
					(strip ? 1 : 0));
	cqe.vlan_info = htobe16(tci);
	cqe.srqn_uidx = htobe32(DEVX_GET(rqc, rq->ctx, user_index));
	cqe.byte_cnt = htobe32(len);
	cqe.timestamp = htobe64(eng_now());
	cqe.sop_drop_qpn = htobe32(flow_tag & 0xffffff);
	cqe.wqe_counter = htobe16(counter);
	memset(&c, 0, sizeof(c));
	c.opcode = MLX5_CQE_RESP_SEND;
	c.raw = &cqe;
	c.compressible = true;
	eng_cqe_post(e, rq->cq, &c);
}

/*
 * The Toeplitz hash RSS uses: each set bit of the input, taken from the
 * most significant bit of byte 0 on, XORs in the 32 key bits that start at
 * the same position of the key. The 40-byte key covers 36 input bytes
 * (IPv6 addresses and both ports).
 */
static uint32_t eth_toeplitz(const uint8_t key[40], const uint8_t *in, uint32_t n)
{
	uint32_t h = 0, win = get32(key), i;
	int b;

	for (i = 0; i < n && i < 36; i++)
		for (b = 7; b >= 0; b--) {
			if (in[i] >> b & 1)
				h ^= win;
			win = win << 1 | (uint32_t)(key[i + 4] >> b & 1);
		}
	return h;
}

/* CQE rss_hash_type bits: which L3 and L4 fields were hashed. */
#define ENG_RSS_IPV4 (1u << 2)
#define ENG_RSS_IPV6 (2u << 2)
#define ENG_RSS_TCP (1u << 6)
#define ENG_RSS_UDP (2u << 6)

/* The RQ a TIR gives @r: its own, or (RSS) the table's entry the hash of
 * the selected fields picks; fields of another L3/L4 type than the
 * selector's are not in the frame, so they are left out of the input. */
static struct fw_rq *eth_tir_rq(const struct fw_tir *t, struct eth_rx *r)
{
	const struct eth_parse *p = &r->p;
	uint8_t in[36];
	uint32_t n = 0, alen;
	bool l3, l4;

	r->hash = 0;
	r->hash_type = 0;
	if (t->rq)
		return t->rq;
	if (!t->rqt || !t->rqt->n)
		return NULL;
	l3 = (t->hash_l3 == MLX5_L3_PROT_TYPE_IPV4 && p->ipver == 4) ||
	     (t->hash_l3 == MLX5_L3_PROT_TYPE_IPV6 && p->ipver == 6);
	l4 = l3 && p->l4_off &&
	     ((t->hash_l4 == MLX5_L4_PROT_TYPE_TCP && p->proto == ENG_IPPROTO_TCP) ||
	      (t->hash_l4 == MLX5_L4_PROT_TYPE_UDP && p->proto == ENG_IPPROTO_UDP));
	alen = p->ipver == 4 ? 4 : 16;
	if (l3 && (t->hash_fields & MLX5_HASH_FIELD_SEL_SRC_IP)) {
		memcpy(in + n, r->f + p->l3_off + (p->ipver == 4 ? 12 : 8), alen);
		n += alen;
	}
	if (l3 && (t->hash_fields & MLX5_HASH_FIELD_SEL_DST_IP)) {
		memcpy(in + n, r->f + p->l3_off + (p->ipver == 4 ? 16 : 24), alen);
		n += alen;
	}
	if (l4 && (t->hash_fields & MLX5_HASH_FIELD_SEL_L4_SPORT)) {
		memcpy(in + n, r->f + p->l4_off, 2);
		n += 2;
	}
	if (l4 && (t->hash_fields & MLX5_HASH_FIELD_SEL_L4_DPORT)) {
		memcpy(in + n, r->f + p->l4_off + 2, 2);
		n += 2;
	}
	if (n) {
		r->hash = eth_toeplitz(t->hash_key, in, n);
		r->hash_type = (uint8_t)((p->ipver == 4 ? ENG_RSS_IPV4 : ENG_RSS_IPV6) |
			       (l4 && (t->hash_fields & (MLX5_HASH_FIELD_SEL_L4_SPORT |
							 MLX5_HASH_FIELD_SEL_L4_DPORT)) ?
				(p->proto == ENG_IPPROTO_TCP ? ENG_RSS_TCP : ENG_RSS_UDP) : 0));
	}
	return t->rqt->rq[r->hash % t->rqt->n];
}

/* Where the inner Ethernet frame of a VXLAN frame starts, or 0. */
static uint32_t eth_vxlan_inner(const uint8_t *f, const struct eth_parse *p)
{
	uint32_t at;

	if (!p->l4_off || p->proto != ENG_IPPROTO_UDP ||
	    get16(f + p->l4_off + 2) != ENG_VXLAN_PORT)
		return 0;
	at = p->l4_off + 8;
	if (at + ENG_VXLAN_HLEN + ENG_ETH_HLEN > p->len ||
	    !(f[at] & ENG_VXLAN_FLAG_I))
		return 0;
	return at + ENG_VXLAN_HLEN;
}

void eng_eth_rx(struct eng *e, const uint8_t *frame, uint32_t len,
		const struct fw_tis *tis)
{
	uint8_t *popped = NULL;
	struct fw_steer st;
	struct eth_rx r;
	uint32_t i;

	r.f = frame;
	eth_parse(frame, len, &r.p);
	if (len < ENG_ETH_HLEN) {
		fw_eth_stats(e->fw)->rx_malformed++;
		smx_dbg("engine: NIC receive: %u-byte frame is shorter than an "
			"Ethernet header, dropped", len);
		return;
	}
	eth_rx_classify(&r);
	fw_flow_steer(e->fw, r.match, len, &st);
	if (!st.ntir)
		smx_dbg("engine: NIC receive: %u-byte frame (ethertype 0x%04x) "
			"%s", len, r.p.ethertype, st.dropped ? "dropped by a "
			"steering entry" : "missed steering, dropped");
	/* Decap: the queues get the inner frame, which lies inside the
	 * outer one; a frame that is no VXLAN frame goes unchanged. */
	if (st.ntir && st.decap) {
		uint32_t in = eth_vxlan_inner(frame, &r.p);
		bool mc = r.multicast;

		if (in) {
			frame += in;
			len -= in;
			r.f = frame;
			eth_parse(frame, len, &r.p);
			eth_rx_classify(&r);
			r.multicast = mc;	/* loopback blocking: as it came */
		}
	}
	/* A VLAN pop on the path: the queues get the frame without its
	 * outer tag, and CQE flags of what they get. */
	if (st.ntir && st.pop_vlan && r.p.ntags) {
		popped = malloc(len - 4);
		if (!popped) {
			smx_dbg("engine: NIC receive: no memory to pop a VLAN tag, "
				"%u-byte frame dropped", len);
			return;
		}
		memcpy(popped, frame, 12);
		memcpy(popped + 12, frame + 16, len - 16);
		len -= 4;
		r.f = popped;
		eth_parse(popped, len, &r.p);
		eth_rx_classify(&r);
	}
	for (i = 0; i < st.ntir; i++) {
		const struct fw_tir *t = st.tir[i];
		uint8_t blk = r.multicast ? MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST :
				MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST;

		if (tis && t->td && (t->self_lb_block & blk) && tis->td == t->td)
			continue;	/* our own frame, loopback blocked */
		eng_eth_deliver(e, eth_tir_rq(t, &r), &r, st.flow_tag);
	}
	free(popped);
}

/* ------------------------------------------------------------------ */
/* Send                                                               */
/* ------------------------------------------------------------------ */

struct sq_fail {
	uint8_t syndrome;
	char why[200];
};

#define ETH_FAIL(f, synd, ...)                                                 \
	do {                                                                   \
		(f)->syndrome = MLX5_CQE_SYNDROME_##synd;                      \
		snprintf((f)->why, sizeof((f)->why), __VA_ARGS__);             \
		return -1;                                                     \
	} while (0)

static void eng_eth_sq_cqe(struct eng *e, struct fw_sq *sq, uint8_t opcode,
			   uint8_t syndrome, uint8_t sq_opcode, uint16_t counter,
			   uint32_t bytes)
{
	struct eng_cqe c = {
		.opcode = opcode,
		.syndrome = syndrome,
		.sq_opcode = sq_opcode,
		.qpn = sq->obj.id,
		.wqe_counter = counter,
		.byte_cnt = bytes,
		.srqn_uidx = DEVX_GET(sqc, sq->ctx, user_index),
	};

	eng_cqe_post(e, sq->cq, &c);
}

/* Copies @nbb WQEBBs at counter @idx (wrapping) into @dst. */
static bool eng_eth_sq_copy(const struct fw_sq *sq, uint16_t idx, uint32_t nbb,
			    uint8_t *dst)
{
	uint32_t i;

	for (i = 0; i < nbb; i++) {
		uint32_t bb = (uint16_t)(idx + i) & (sq->wqebbs - 1);
		const uint8_t *src = fw_buf_addr(&sq->buf, (uint64_t)bb * 64);

		if (!src)
			return false;
		memcpy(dst + (size_t)i * 64, src, 64);
	}
	return true;
}

/* Decodes the WQE in e->wqe into the frame of @s; returns its length. */
static int eng_eth_frame(struct eng *e, struct eng_sq *s, uint32_t ds,
			 uint32_t *flen, uint8_t *cs_flags, struct sq_fail *f)
{
	struct fw_sq *sq = s->sq;
	const uint8_t *b = e->wqe;
	const struct mlx5_wqe_eth_seg *eseg = (const void *)(b + 16);
	uint32_t end = ds * 16, off, ihs, len = 0;
	char why[200];

	if (end < 32)
		ETH_FAIL(f, LOCAL_QP_OP_ERR, "DS %u ends before the Ethernet "
			 "segment", ds);
	ihs = be16toh(eseg->inline_hdr_sz);
	if (eseg->mss)
		ETH_FAIL(f, LOCAL_QP_OP_ERR, "Ethernet segment mss %u: LSO is "
			 "not supported", be16toh(eseg->mss));
	off = 16 + 16 + (ihs > 2 ? (ihs - 2 + 15) & ~15u : 0);
	if (off > end)
		ETH_FAIL(f, LOCAL_QP_OP_ERR, "%u inline header bytes run past "
			 "DS %u", ihs, ds);
	if (sq->min_inline == MLX5_INLINE_MODE_L2 && ihs < ENG_ETH_L2_INLINE)
		ETH_FAIL(f, LOCAL_QP_OP_ERR, "%u inline header bytes, the SQ "
			 "requires the L2 header (%u)", ihs, ENG_ETH_L2_INLINE);
	if (ihs > ENG_ETH_MAX_FRAME)
		ETH_FAIL(f, LOCAL_LENGTH_ERR, "%u inline header bytes", ihs);
	memcpy(s->frame, eseg->inline_hdr_start, ihs);
	len = ihs;
	*cs_flags = eseg->cs_flags;
	while (off < end) {
		uint32_t bc = be32toh(*(const uint32_t *)(b + off));

		if (bc & MLX5_INLINE_SEG) {
			uint32_t n = bc & ~MLX5_INLINE_SEG;

			if (n > end - off - 4)
				ETH_FAIL(f, LOCAL_QP_OP_ERR, "%u inline bytes run "
					 "past DS %u", n, ds);
			if (n > ENG_ETH_MAX_FRAME - len)
				ETH_FAIL(f, LOCAL_LENGTH_ERR, "frame above %u "
					 "bytes", ENG_ETH_MAX_FRAME);
			memcpy(s->frame + len, b + off + 4, n);
			len += n;
			off += (4 + n + 15) & ~15u;
		} else {
			const struct mlx5_wqe_data_seg *d = (const void *)(b + off);
			uint64_t n = bc & 0x7fffffff;
			struct eng_sge g = { 0 }, h = { 0 };
			struct eng_sgl src = { &g, 1, 0 }, dst = { &h, 1, 0 };

			if (off + 16 > end)
				ETH_FAIL(f, LOCAL_QP_OP_ERR, "data segment cut by "
					 "DS %u", ds);
			off += 16;
			if (!n)
				continue;	/* carries nothing */
			if (n > ENG_ETH_MAX_FRAME - len)
				ETH_FAIL(f, LOCAL_LENGTH_ERR, "frame above %u "
					 "bytes", ENG_ETH_MAX_FRAME);
			if (eng_key_check(e, be32toh(d->lkey), sq->pd, ENG_ACC_LR,
					  be64toh(d->addr), n, &g.mk, why,
					  sizeof(why)))
				ETH_FAIL(f, LOCAL_PROT_ERR, "%s", why);
			if (g.mk->sig.en)
				ETH_FAIL(f, LOCAL_QP_OP_ERR, "signature key 0x%x "
					 "on an Ethernet SQ", be32toh(d->lkey));
			g.va = be64toh(d->addr);
			g.len = src.len = n;
			h.host = s->frame + len;
			h.len = dst.len = n;
			if (eng_sgl_copy(&dst, 0, &src, 0, n) != n)
				ETH_FAIL(f, LOCAL_PROT_ERR, "gather of %llu bytes "
					 "hit unmapped memory",
					 (unsigned long long)n);
			len += (uint32_t)n;
		}
	}
	*flen = len;
	return 0;
}

/* Moves @sq to ERR after an error completion. */
static void eng_eth_sq_to_err(struct fw_sq *sq)
{
	sq->state = MLX5_SQC_STATE_ERR;
	DEVX_SET(sqc, sq->ctx, state, MLX5_SQC_STATE_ERR);
}

static bool eng_eth_sq_flush(struct eng *e, struct eng_sq *s)
{
	struct fw_sq *sq = s->sq;
	uint16_t pi = eng_eth_sq_pi(sq);
	bool work = false;

	if (!DEVX_GET(sqc, sq->ctx, flush_in_error_en)) {
		s->ci = pi;	/* not reported, not executed */
		return false;
	}
	while (s->ci != pi) {
		uint8_t bb[64];
		uint32_t ds = 1, nbb;
		uint8_t op = 0;

		if (eng_eth_sq_copy(sq, s->ci, 1, bb)) {
			op = (uint8_t)(be32toh(((struct mlx5_wqe_ctrl_seg *)bb)
					       ->opmod_idx_opcode) & 0xff);
			ds = be32toh(((struct mlx5_wqe_ctrl_seg *)bb)->qpn_ds) & 0x3f;
		}
		nbb = ds ? (ds * 16 + 63) / 64 : 1;
		if (nbb > (uint16_t)(pi - s->ci))
			nbb = (uint16_t)(pi - s->ci);
		eng_eth_sq_cqe(e, sq, MLX5_CQE_REQ_ERR,
			       MLX5_CQE_SYNDROME_WR_FLUSH_ERR, op, s->ci, 0);
		s->ci += (uint16_t)nbb;
		work = true;
	}
	return work;
}

/* SOFTMLX5_TRACE=wqe: the WQE at @at, as posted (at most @avail WQEBBs). */
static void eng_eth_sq_trace(const struct fw_sq *sq, uint16_t at, uint16_t avail)
{
	uint8_t wqe[16 * 64];	/* DS <= 63: at most 16 WQEBBs */
	uint32_t ds, nbb;

	if (!smx_trace_qp_ok(sq->obj.id) || !eng_eth_sq_copy(sq, at, 1, wqe))
		return;
	ds = be32toh(((const struct mlx5_wqe_ctrl_seg *)wqe)->qpn_ds) & 0x3f;
	nbb = ds ? (ds * 16 + 63) / 64 : 1;
	if (nbb > avail)
		nbb = avail;
	if (nbb > 1 && !eng_eth_sq_copy(sq, (uint16_t)(at + 1), nbb - 1, wqe + 64))
		nbb = 1;
	smx_trace_wqe_log(sq->obj.id, DEC_SQ_ETH, at, wqe, (size_t)nbb * 64);
}

/* Executes the WQE at s->ci; false when the SQ went to ERR. */
static bool eng_eth_sq_exec(struct eng *e, struct eng_sq *s, uint16_t pi)
{
	struct fw_sq *sq = s->sq;
	const struct mlx5_wqe_ctrl_seg *ctrl = (const void *)e->wqe;
	uint16_t avail = (uint16_t)(pi - s->ci), at = s->ci;
	uint32_t opcode = 0, ds = 0, nbb = 1, flen = 0;
	struct sq_fail f = { 0, "" };
	uint8_t cs_flags = 0;

	if (!eng_eth_sq_copy(sq, at, 1, e->wqe)) {
		snprintf(f.why, sizeof(f.why), "WQE outside the SQ buffer");
		f.syndrome = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		goto fail;
	}
	if (smx_trace_on(SMX_TR_WQE))
		eng_eth_sq_trace(sq, at, avail);
	opcode = be32toh(ctrl->opmod_idx_opcode) & 0xff;
	ds = be32toh(ctrl->qpn_ds) & 0x3f;
	nbb = ds ? (ds * 16 + 63) / 64 : 1;
	f.syndrome = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	if (!ds) {
		snprintf(f.why, sizeof(f.why), "DS is 0");
		goto fail;
	}
	if (nbb > avail) {
		snprintf(f.why, sizeof(f.why), "DS %u needs %u WQEBBs, only %u "
			 "posted", ds, nbb, avail);
		nbb = avail;
		goto fail;
	}
	if ((be32toh(ctrl->qpn_ds) >> 8) != sq->obj.id) {
		snprintf(f.why, sizeof(f.why), "sqn 0x%x in the control segment, "
			 "the WQE is on sq 0x%x", be32toh(ctrl->qpn_ds) >> 8,
			 sq->obj.id);
		goto fail;
	}
	if (opcode != MLX5_OPCODE_SEND && opcode != MLX5_OPCODE_NOP) {
		snprintf(f.why, sizeof(f.why), "opcode 0x%x is not SEND or NOP "
			 "(TSO and the rest are not supported on an SQ)", opcode);
		goto fail;
	}
	if (nbb > 1 && !eng_eth_sq_copy(sq, (uint16_t)(at + 1), nbb - 1,
					e->wqe + 64)) {
		snprintf(f.why, sizeof(f.why), "WQE outside the SQ buffer");
		goto fail;
	}
	if (opcode == MLX5_OPCODE_SEND) {
		if (eng_eth_frame(e, s, ds, &flen, &cs_flags, &f))
			goto fail;
		if (cs_flags & (MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM))
			eth_tx_csum(s->frame, flen, cs_flags);
	}
	s->ci += (uint16_t)nbb;
	if (((ctrl->fm_ce_se >> 2) & 3) >= 2)
		eng_eth_sq_cqe(e, sq, MLX5_CQE_REQ, 0, (uint8_t)opcode, at, flen);
	/* NIC TX steering may rewrite or drop the frame; a dropped frame's
	 * send has completed all the same. */
	if (opcode == MLX5_OPCODE_SEND &&
	    !fw_flow_steer_tx(e->fw, s->frame, &flen, sizeof(s->frame),
			      eng_eth_match)) {
		smx_dbg("engine: sq 0x%x wqe %u: %u-byte frame dropped by NIC "
			"transmit steering", sq->obj.id, at, flen);
	} else if (opcode == MLX5_OPCODE_SEND) {
		eng_eth_rx(e, s->frame, flen, sq->tis);
		eng_wire_tx(e, s->frame, flen);
		eng_fabric_eth_flood(e, s->frame, flen);
	}
	return true;
fail:
	smx_dbg("engine: sq 0x%x wqe %u (opcode 0x%x): %s -> %s; sq to ERR",
		sq->obj.id, at, opcode, f.why, eng_synd_str(f.syndrome));
	eng_eth_sq_cqe(e, sq, MLX5_CQE_REQ_ERR, f.syndrome, (uint8_t)opcode, at,
		       0);
	s->ci += (uint16_t)(nbb ? nbb : 1);
	eng_eth_sq_to_err(sq);
	eng_eth_sq_flush(e, s);
	return false;
}

void eng_eth_sq_run(struct eng *e, struct fw_sq *sq)
{
	struct eng_sq *s = eng_eth_sq_of(e, sq);

	if (!s)
		return;
	if (sq->state == MLX5_SQC_STATE_ERR) {
		eng_eth_sq_flush(e, s);
		return;
	}
	/* Frames may land in an RQ of this very SQ's owner, whose CQ
	 * callbacks run under the same locks: bounded by the posted count.
	 * The receive CQEs of one run may be compressed (eng_comp.c). */
	eng_comp_batch_begin(e);
	while (sq->state == MLX5_SQC_STATE_RDY) {
		uint16_t pi = eng_eth_sq_pi(sq);

		if (pi == s->ci || !eng_eth_sq_exec(e, s, pi))
			break;
	}
	eng_comp_batch_end(e);
}

bool eng_eth_scan(struct eng *e)
{
	struct eng_obj *o, *n;
	bool work = false;

	for (o = e->list[ENG_K_SQ].next; o != &e->list[ENG_K_SQ]; o = n) {
		struct eng_sq *s = (struct eng_sq *)o;
		struct fw_sq *sq = s->sq;

		n = o->next;
		if (sq->state == MLX5_SQC_STATE_RST || eng_eth_sq_pi(sq) == s->ci)
			continue;
		eng_eth_sq_run(e, sq);
		work = true;
	}
	for (o = e->list[ENG_K_RQ].next; o != &e->list[ENG_K_RQ]; o = o->next) {
		struct eng_rq *s = (struct eng_rq *)o;

		if (s->rq->state == MLX5_RQC_STATE_ERR)
			work |= eng_eth_rq_flush(e, s);
	}
	return work;
}

/* ------------------------------------------------------------------ */
/* Firmware hooks (fw->lock held)                                     */
/* ------------------------------------------------------------------ */

void eng_eth_sq_changed(void *arg, struct fw_sq *sq, uint32_t old_state)
{
	struct eng *e = arg;
	struct eng_sq *s = eng_eth_sq_of(e, sq);

	if (!s)
		return;
	if (old_state == FW_WQ_NEW)
		eng_cq_of(e, sq->cq);	/* as a QP's CQs are taken up */
	switch (sq->state) {
	case MLX5_SQC_STATE_RST:
		/* The driver starts its counters over (and zeroes the
		 * doorbell record); so does the device. */
		if (old_state != FW_WQ_NEW)
			s->ci = 0;
		break;
	case MLX5_SQC_STATE_ERR:
		eng_eth_sq_flush(e, s);
		break;
	default:
		/* WQEs posted before RDY are executable now. */
		eng_watch_kick(e);
		break;
	}
}

void eng_eth_rq_changed(void *arg, struct fw_rq *rq, uint32_t old_state)
{
	struct eng *e = arg;
	struct eng_rq *s = eng_eth_rq_of(e, rq);

	if (!s)
		return;
	if (old_state == FW_WQ_NEW)
		eng_cq_of(e, rq->cq);
	if (rq->state == MLX5_RQC_STATE_RST)
		s->ci = 0;
	else if (rq->state == MLX5_RQC_STATE_ERR)
		eng_eth_rq_flush(e, s);
}
