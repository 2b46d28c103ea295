/* SPDX-License-Identifier: MIT */
/*
 * The network link in netdev_mode raw (docs/transport.md, "The network
 * link"): whole Ethernet frames through a packet socket bound to the
 * port's interface, so that every byte after the Ethernet header is the
 * packet layer's -- the IP header (IPv4 identification, DF, DSCP/ECN from
 * the traffic class, TTL / hop limit), the QP's UDP source port, the UDP
 * checksum 0, the ICRC over exactly those bytes. This is what Soft-RoCE
 * and a ConnectX put on the wire. Needs CAP_NET_RAW; without it the link
 * stays udp (eng_link_udp.c).
 *
 * It is eng_link_udp.c's link with another way onto the wire: the same
 * destination table (a number per IP address), tombstones, receive thread
 * and pollers, the same hand-over of what arrives (forwarded to the
 * process owning the QPN, or to the transport: eng_udp_rx_ip()). What is
 * this file's: the packet socket, the Ethernet header, the neighbours.
 *
 * SENDING. The packet layer builds IP .. ICRC at t->buf, 14 bytes after
 * the start of a frame buffer; the link writes the Ethernet header in
 * front (the interface's MAC, read again every RAW_NB_FRESH_NS as the
 * port follows it; the next hop's) and the batch goes with one
 * sendmmsg() at the end of the engine pass or when full. The next hop's
 * MAC is the kernel's (util/neigh.h), kept per destination and looked at
 * again every RAW_NB_FRESH_NS; a stale entry is refreshed by asking the
 * kernel to resolve it again, as its own traffic would; with no entry a
 * packet is lost (net_tx_dropped) and resolution asked for: RC retries.
 *
 * RECEIVING. A classic BPF program on the socket takes only frames to our
 * MAC that are UDP to port 4791 over IPv4 (not a fragment) or IPv6.
 * Several processes of one host: every packet socket joins one fanout
 * group of the interface whose program picks its first member, so one
 * process receives for the host (the UDP link's reuseport rule); when it
 * leaves, the kernel moves another member into its place. Each frame is
 * checked (whole, to us, the Ethernet type the IP version's), its
 * Ethernet padding cut off at the IP length, read with roce_parse() and
 * handed on with its ICRC to check (IPv4 and IPv6: the IP header is what
 * the sender wrote). The kernel receives the same datagrams: the link's
 * UDP sockets on port 4791 stay bound so that it does not answer port
 * unreachable, with a filter that drops everything they would queue.
 *
 * Nothing from the network is trusted: a frame that is truncated, not to
 * us, not IP, or fails the IP / UDP checks is counted (rx_malformed) and
 * dropped with one line under SOFTMLX5_DEBUG; the rest meets every check
 * of any packet (eng_fabric_rx_pkt()), the ICRC first.
 *
 * LOCKS. As the UDP link's: the send batch and the neighbours are
 * fw->lock's, the receive buffers the UDP link's rx_mu's.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "device/engine/eng_loc.h"
#include "device/transport/counters.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"
#include "util/csum.h"
#include "util/log.h"
#include "util/neigh.h"

#define RAW_BATCH 32u			/* frames per sendmmsg / recvmmsg */
#define RAW_SOCKBUF (8u << 20)		/* socket buffers asked for */
#define RAW_ETH 14u			/* Ethernet II header */
/* A frame buffer: the IP header 4-aligned at RAW_AT, the Ethernet header
 * before it; room for the largest packet a cell holds. */
#define RAW_AT 16u
#define RAW_FRAME (RAW_AT + SMX_SHM_INLINE)
/* A received frame: up to a whole UDP GSO message, which a veth hands on
 * unsegmented (raw_rx_gso()). */
#define RAW_RX_FRAME (RAW_AT + 65536u)
/* The kernel's entry is looked at again this often; a destination
 * without one at most this often. */
#define RAW_NB_FRESH_NS (1000 * 1000000ull)
#define RAW_NB_RETRY_NS (10 * 1000000ull)
#define RAW_NB_ASK_NS (100 * 1000000ull)	/* resolution asked for */
#define RAW_FANOUT_BASE 0x4791u		/* + ifindex: the group's id */
#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23	/* Linux 4.20 */
#endif
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5	/* Linux 6.2: UDP GSO in the header */
#endif
#ifndef UDP_NO_CHECK6_RX
#define UDP_NO_CHECK6_RX 102		/* linux/udp.h */
#endif

/* The next hop of one destination, as the kernel last told us. */
struct raw_nb {
	uint8_t mac[6];
	uint8_t hop[16];		/* whom to resolve (a GID) */
	int state;			/* enum smx_neigh_state */
	uint64_t at_ns, asked_ns;	/* looked at; resolution asked */
};

struct eng_raw {
	int fd;
	unsigned int ifindex;
	char ifname[IF_NAMESIZE];
	uint8_t mac[6];			/* the interface's */
	uint64_t mac_ns;		/* when it was read */
	struct raw_nb nb[ENG_NET_DSTS];
	/* the send batch (fw->lock) */
	uint32_t n;
	uint8_t *buf;			/* RAW_BATCH frames of RAW_FRAME */
	struct mmsghdr m[RAW_BATCH];
	struct iovec iov[2 * RAW_BATCH];	/* virtio-net header, frame */
	struct sockaddr_ll to[RAW_BATCH];
	/* the receive batch (the UDP link's rx_mu) */
	uint8_t *rbuf;
	struct mmsghdr rm[RAW_BATCH];
	struct iovec riov[2 * RAW_BATCH];
	struct virtio_net_hdr vh[RAW_BATCH];	/* each frame's */
	struct sockaddr_ll from[RAW_BATCH];
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} rctl[RAW_BATCH];
};

/* What leads every frame sent (PACKET_VNET_HDR, which receiving needs to
 * learn a GSO frame's segment size): no offload asked for. */
static const struct virtio_net_hdr raw_vh_none;

int eng_raw_fd(const struct eng_raw *r)
{
	return r->fd;
}

/* ------------------------------------------------------------------ */
/* Neighbours                                                         */
/* ------------------------------------------------------------------ */

/* The interface's MAC into r->mac: the port's follows it (fw_vport.c),
 * so do our frames. */
static int raw_own_mac(struct eng_raw *r)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, r->ifname, sizeof(r->ifname));
	if (ioctl(r->fd, SIOCGIFHWADDR, &ifr))
		return -errno;
	memcpy(r->mac, ifr.ifr_hwaddr.sa_data, 6);
	r->mac_ns = eng_now();
	return 0;
}

/* The MAC of destination @dst's next hop, or NULL: not known now (the
 * kernel asked to find it). */
static const uint8_t *raw_nb_mac(struct eng *e, uint32_t dst)
{
	struct eng_raw *r = e->raw;
	struct raw_nb *nb = &r->nb[dst - ENG_NET_DST0];
	const uint8_t *gid = eng_udp_dst_gid(e, dst);
	uint64_t now = eng_now();
	int st;

	if (now - r->mac_ns >= RAW_NB_FRESH_NS)
		raw_own_mac(r);
	if (nb->state != SMX_NEIGH_NONE && now - nb->at_ns < RAW_NB_FRESH_NS)
		return nb->mac;
	if (nb->state == SMX_NEIGH_NONE && nb->at_ns &&
	    now - nb->at_ns < RAW_NB_RETRY_NS)
		return NULL;
	if (!gid)
		return NULL;
	nb->at_ns = now;
	st = smx_neigh_lookup(r->ifindex, gid, nb->mac, nb->hop);
	if (st < 0) {
		if (nb->state != SMX_NEIGH_NONE)
			smx_dbg("engine: network link: destination %u: no "
				"route through the interface (%s)", dst,
				strerror(-st));
		nb->state = SMX_NEIGH_NONE;
		return NULL;
	}
	nb->state = st;
	/* none: ask; stale: ask again, as the kernel's own traffic would
	 * confirm it (a frame of ours is not seen by its neighbour code) */
	if ((st == SMX_NEIGH_NONE || st == SMX_NEIGH_STALE) &&
	    now - nb->asked_ns >= RAW_NB_ASK_NS) {
		nb->asked_ns = now;
		smx_neigh_solicit(r->ifindex, nb->hop);
	}
	return st == SMX_NEIGH_NONE ? NULL : nb->mac;
}

/* ------------------------------------------------------------------ */
/* Sending                                                            */
/* ------------------------------------------------------------------ */

void eng_raw_flush(struct eng *e)
{
	struct eng_raw *r = e->raw;
	bool waited = false;
	uint32_t i = 0;
	int err;

	while ((err = eng_net_send(r->fd, r->m, r->n, &i, &waited))) {
		trn_ctr_add(e->ctr, TRN_CTR_NET_TX_DROPPED, 1);
		smx_dbg("engine: network link: a %zu-byte frame was not sent: "
			"%s", r->iov[2 * i + 1].iov_len, strerror(err));
		i++;
	}
	r->n = 0;
}

static int raw_tx_get(struct eng *e, uint32_t dst, struct eng_link_tx *t)
{
	struct eng_raw *r = e->raw;

	if (!eng_udp_dst_gid(e, dst))
		return -ENOTCONN;
	if (r->n == RAW_BATCH)
		eng_raw_flush(e);
	t->buf = r->buf + (size_t)r->n * RAW_FRAME + RAW_AT;
	t->cap = SMX_SHM_INLINE;
	t->dst = dst;
	t->pos = 0;
	t->cell = NULL;
	return 1;
}

static void raw_tx_put(struct eng *e, struct eng_link_tx *t, uint32_t len,
		       uint8_t flags)
{
	struct eng_raw *r = e->raw;
	uint8_t *eth = t->buf - RAW_ETH;
	uint16_t type = t->buf[0] >> 4 == 4 ? ETH_P_IP : ETH_P_IPV6;
	struct sockaddr_ll *to = &r->to[r->n];
	struct msghdr *m = &r->m[r->n].msg_hdr;
	const uint8_t *mac;

	(void)flags;	/* the ICRC is always there (eng_link_raw.icrc) */
	if (!len)
		return;	/* the room given back */
	mac = raw_nb_mac(e, t->dst);
	if (!mac) {
		trn_ctr_add(e->ctr, TRN_CTR_NET_TX_DROPPED, 1);
		smx_dbg("engine: network link: packet to destination %u lost: "
			"its neighbour is not resolved", t->dst);
		return;
	}
	memcpy(eth, mac, 6);
	memcpy(eth + 6, r->mac, 6);
	ibp_put16(eth + 12, type);
	memset(to, 0, sizeof(*to));
	to->sll_family = AF_PACKET;
	to->sll_protocol = htons(type);
	to->sll_ifindex = (int)r->ifindex;
	to->sll_halen = 6;
	memcpy(to->sll_addr, mac, 6);
	/* (PACKET_VNET_HDR: a header of zeroes, no offloads, leads) */
	r->iov[2 * r->n].iov_base = (void *)&raw_vh_none;
	r->iov[2 * r->n].iov_len = sizeof(raw_vh_none);
	r->iov[2 * r->n + 1].iov_base = eth;
	r->iov[2 * r->n + 1].iov_len = RAW_ETH + len;
	memset(m, 0, sizeof(*m));
	m->msg_name = to;
	m->msg_namelen = sizeof(*to);
	m->msg_iov = &r->iov[2 * r->n];
	m->msg_iovlen = 2;
	if (++r->n == RAW_BATCH)
		eng_raw_flush(e);
}

static uint32_t raw_tx_room(struct eng *e, uint32_t dst)
{
	(void)e;
	(void)dst;
	return RAW_BATCH;	/* a full batch goes out to make room */
}

/* As the UDP link: a host is presumed there, the requester's timers
 * decide. */
static bool raw_alive(struct eng *e, uint32_t dst)
{
	return eng_udp_dst_gid(e, dst) != NULL;
}

static bool raw_stalled(struct eng *e, uint32_t dst, uint64_t since_ns)
{
	(void)e;
	(void)dst;
	(void)since_ns;
	return false;
}

const struct eng_link_ops eng_link_raw = {
	.name = "raw",
	.tx_get = raw_tx_get,
	.tx_put = raw_tx_put,
	.tx_room = raw_tx_room,
	.alive = raw_alive,
	.stalled = raw_stalled,
	.icrc = true,
	.sport = 0,		/* the QP's */
	.ip_id = true,
	.rto_ns = ENG_NET_RTO_NS,
};

/* ------------------------------------------------------------------ */
/* Receiving                                                          */
/* ------------------------------------------------------------------ */

/* A UDP checksum the kernel vouches for -- verified by the interface, or
 * not computed yet because the sender is on this machine (a veth peer's
 * kernel, checksum offload) -- is not checked again: it is set to 0, the
 * "no checksum" roce_parse() accepts (the ICRC does not cover it). */
static void raw_rx_csum(struct msghdr *m, uint8_t *ip, uint32_t len)
{
	struct cmsghdr *c;
	uint32_t at = ip[0] >> 4 == 4 ? (ip[0] & 0xfu) * 4 :
		      ROCE_IPV6_HDR_BYTES;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		struct tpacket_auxdata a;

		if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA ||
		    c->cmsg_len < CMSG_LEN(sizeof(a)))
			continue;
		memcpy(&a, CMSG_DATA(c), sizeof(a));
		if ((a.tp_status & (TP_STATUS_CSUMNOTREADY |
				    TP_STATUS_CSUM_VALID)) &&
		    at + ROCE_UDP_HDR_BYTES <= len)
			ibp_put16(ip + at + 6, 0);
	}
}

/* One packet of a frame (@len bytes from its IP header) to the transport
 * or its process (fw->lock). */
static struct eng_qp *raw_rx_pkt(struct eng *e, uint8_t *ip, uint32_t len)
{
	struct roce_l3 l3;
	uint32_t off, iblen;
	const char *why;

	if (roce_parse(ip, len, &l3, &off, &iblen, &why)) {
		eng_udp_drop(e, TRN_CTR_RX_MALFORMED, why);
		return NULL;
	}
	return eng_udp_rx_ip(e, l3.sgid, ip, len, off, SMX_CELL_F_ICRC);
}

/*
 * A UDP GSO message a host of this machine sent through a veth arrives
 * whole, one IP and UDP header over @gso-byte segments (a NIC, and the
 * kernel before a socket, would have cut it): cut here as the kernel
 * does -- each segment its own IPv4 identification (the first + i) and
 * lengths, its UDP checksum left 0 -- and each handed on as a packet. A
 * segment's headers are written over the end of the one before, handled
 * already (what had to stay was copied).
 */
static void raw_rx_gso(struct eng *e, uint8_t *ip, uint32_t len,
		       uint16_t gso, struct eng_udp_run *run)
{
	bool v4 = ip[0] >> 4 == 4;
	uint32_t hl = (v4 ? ROCE_IPV4_HDR_BYTES : ROCE_IPV6_HDR_BYTES) +
		      ROCE_UDP_HDR_BYTES, off, seg, i;
	uint8_t hdr[ROCE_IPV6_HDR_BYTES + ROCE_UDP_HDR_BYTES];
	uint16_t id;

	if (len <= hl || (v4 && (ip[0] & 0xfu) != 5) ||
	    (!v4 && ip[6] != IPPROTO_UDP) || (v4 && ip[9] != IPPROTO_UDP)) {
		eng_udp_drop(e, TRN_CTR_RX_MALFORMED, "a GSO frame that is not "
			     "UDP over IPv4 or IPv6 without options");
		return;
	}
	memcpy(hdr, ip, hl);
	id = ibp_get16(hdr + 4);
	for (off = 0, i = 0; off < len - hl; off += seg, i++) {
		uint8_t *pkt = ip + off;

		seg = len - hl - off < gso ? len - hl - off : gso;
		memcpy(pkt, hdr, hl);
		if (v4) {
			ibp_put16(pkt + 2, (uint16_t)(hl + seg));
			ibp_put16(pkt + 4, (uint16_t)(id + i));
			ibp_put16(pkt + 10, 0);
			ibp_put16(pkt + 10, (uint16_t)~smx_csum_fold(
				smx_csum_add(0, pkt, ROCE_IPV4_HDR_BYTES)));
		} else {
			ibp_put16(pkt + 4, (uint16_t)(ROCE_UDP_HDR_BYTES + seg));
		}
		ibp_put16(pkt + hl - 4, (uint16_t)(ROCE_UDP_HDR_BYTES + seg));
		ibp_put16(pkt + hl - 2, 0);
		eng_udp_run_add(e, run, raw_rx_pkt(e, pkt, hl + seg));
	}
}

/* Frame @k of the batch to the transport or its process (fw->lock). */
static void raw_rx_one(struct eng *e, uint32_t k, void *arg,
		       struct eng_udp_run *run)
{
	struct eng_raw *r = arg;
	uint8_t *f = r->rbuf + (size_t)k * RAW_RX_FRAME + RAW_AT - RAW_ETH;
	struct msghdr *m = &r->rm[k].msg_hdr;
	const struct virtio_net_hdr *vh = &r->vh[k];
	uint32_t n = r->rm[k].msg_len, len, iplen;
	uint8_t *ip = f + RAW_ETH;
	uint16_t type;

	if (m->msg_flags & (MSG_TRUNC | MSG_CTRUNC) || n < sizeof(*vh)) {
		eng_udp_drop(e, TRN_CTR_RX_MALFORMED, "frame longer than a "
			     "packet");
		return;
	}
	n -= sizeof(*vh);
	if (n < RAW_ETH + 1) {
		eng_udp_drop(e, TRN_CTR_RX_MALFORMED, "frame without an IP "
			     "header");
		return;
	}
	if (r->from[k].sll_pkttype != PACKET_HOST ||
	    memcmp(f, r->mac, 6)) {
		eng_udp_drop(e, TRN_CTR_RX_MALFORMED, "frame not to our MAC");
		return;
	}
	type = ibp_get16(f + 12);
	len = n - RAW_ETH;
	if (!(type == ETH_P_IP && ip[0] >> 4 == 4) &&
	    !(type == ETH_P_IPV6 && ip[0] >> 4 == 6)) {
		eng_udp_drop(e, TRN_CTR_RX_MALFORMED, "Ethernet type and IP "
			     "version disagree");
		return;
	}
	/* Ethernet padding: the frame may be longer than its packet */
	iplen = type == ETH_P_IP ?
		(len >= ROCE_IPV4_HDR_BYTES ? ibp_get16(ip + 2) : len) :
		(len >= ROCE_IPV6_HDR_BYTES ?
		 ROCE_IPV6_HDR_BYTES + ibp_get16(ip + 4) : len);
	if (iplen < len)
		len = iplen;
	if ((vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) == VIRTIO_NET_HDR_GSO_UDP_L4 &&
	    vh->gso_size) {
		raw_rx_gso(e, ip, len, vh->gso_size, run);
		return;
	}
	if (len > SMX_SHM_INLINE) {
		eng_udp_drop(e, TRN_CTR_RX_MALFORMED, "frame longer than a "
			     "packet");
		return;
	}
	raw_rx_csum(m, ip, len);
	eng_udp_run_add(e, run, raw_rx_pkt(e, ip, len));
}

bool eng_raw_rx_drain(struct eng *e)
{
	struct eng_raw *r = e->raw;
	uint32_t k;
	int n;

	for (k = 0; k < RAW_BATCH; k++) {
		struct msghdr *m = &r->rm[k].msg_hdr;

		r->riov[2 * k].iov_base = &r->vh[k];
		r->riov[2 * k].iov_len = sizeof(r->vh[k]);
		r->riov[2 * k + 1].iov_base = r->rbuf + (size_t)k * RAW_RX_FRAME +
					      RAW_AT - RAW_ETH;
		r->riov[2 * k + 1].iov_len = RAW_RX_FRAME - RAW_AT + RAW_ETH;
		memset(m, 0, sizeof(*m));
		m->msg_name = &r->from[k];
		m->msg_namelen = sizeof(r->from[k]);
		m->msg_iov = &r->riov[2 * k];
		m->msg_iovlen = 2;
		m->msg_control = r->rctl[k].b;
		m->msg_controllen = sizeof(r->rctl[k].b);
	}
	n = recvmmsg(r->fd, r->rm, RAW_BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return false;
	eng_udp_rx_batch(e, (uint32_t)n, raw_rx_one, r);
	return true;
}

bool eng_raw_pending(struct eng *e)
{
	int n;

	/* (a packet socket reports the next frame's length) */
	return !ioctl(e->raw->fd, FIONREAD, &n) && n > 0;
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                     */
/* ------------------------------------------------------------------ */

/* Frames to us (PACKET_HOST) that are UDP to port 4791: IPv4 (not a
 * fragment; the header's length from its IHL) or IPv6 (UDP the first
 * next header, as Annex A17 has it). */
static const struct sock_filter raw_bpf[] = {
	/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
	/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_HOST, 0, 15),
	/* 2 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
	/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 8, 0),
	/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 12),
	/* 5 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 9),
	/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 10),
	/* 7 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14 + 6),
	/* 8 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x3fff, 8, 0),
	/* 9 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
	/* 10 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 14 + 2),
	/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCE_UDP_PORT, 4, 5),
	/* 12 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 6),
	/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 3),
	/* 14 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14 + 40 + 2),
	/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCE_UDP_PORT, 0, 1),
	/* 16 */ BPF_STMT(BPF_RET | BPF_K, 0x40000),	/* the whole frame */
	/* 17 */ BPF_STMT(BPF_RET | BPF_K, 0),
};

/* The packet socket on @ifindex, in the host's fanout group: fd or
 * -errno. */
static int raw_socket(unsigned int ifindex)
{
	struct sock_fprog prog = {
		sizeof(raw_bpf) / sizeof(raw_bpf[0]),
		(struct sock_filter *)raw_bpf,
	};
	/* the group's program: its first member */
	struct sock_filter first[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog fprog = { 1, first };
	struct sockaddr_ll a = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = (int)ifindex,
	};
	int fanout = (int)(((RAW_FANOUT_BASE + ifindex) & 0xffff) |
			   (uint32_t)PACKET_FANOUT_CBPF << 16);
	int one = 1, sz = (int)RAW_SOCKBUF, err;
	/* protocol 0: nothing is received before the filter is there */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
		       sizeof(one)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)))
		goto fail;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &fanout, sizeof(fanout)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_FANOUT_DATA, &fprog,
		       sizeof(fprog)))
		goto fail;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

void eng_raw_stop(struct eng_raw *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->rbuf);
	free(r);
}

int eng_raw_start(struct eng *e, const char *ifname, unsigned int ifindex,
		  const int hold[2])
{
	struct sock_filter none[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog drop = { 1, none };
	struct eng_raw *r = calloc(1, sizeof(*r));
	int k, one = 1, err;

	if (!r)
		return -ENOMEM;
	r->ifindex = ifindex;
	r->buf = malloc((size_t)RAW_BATCH * RAW_FRAME);
	r->rbuf = malloc((size_t)RAW_BATCH * RAW_RX_FRAME);
	r->fd = raw_socket(ifindex);
	if (!r->buf || !r->rbuf || r->fd < 0) {
		err = r->fd < 0 ? r->fd : -ENOMEM;
		r->fd = r->fd < 0 ? -1 : r->fd;
		eng_raw_stop(r);
		return err;
	}
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
	err = raw_own_mac(r);
	if (err) {
		eng_raw_stop(r);
		return err;
	}
	/* The UDP sockets keep port 4791 bound and take nothing. */
	for (k = 0; k < 2; k++) {
		if (hold[k] < 0)
			continue;
		if (setsockopt(hold[k], SOL_SOCKET, SO_ATTACH_FILTER, &drop,
			       sizeof(drop)))
			smx_dbg("engine: network link: cannot filter UDP "
				"socket %d: %s", k, strerror(errno));
		/* IPv6 with checksum 0 (RoCEv2's) reaches the filter
		 * instead of being counted as a checksum error */
		if (k == 1)
			setsockopt(hold[k], IPPROTO_UDP, UDP_NO_CHECK6_RX, &one,
				   sizeof(one));
	}
	e->raw = r;
	return 0;
}
