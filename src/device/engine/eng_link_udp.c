/* SPDX-License-Identifier: MIT */
/*
 * The network link in netdev_mode udp (docs/transport.md, "The network
 * link"): RoCEv2 between hosts through UDP sockets bound to port 4791, no
 * privilege needed. On when the port is bound to an interface (key
 * netdev) in that mode; a request whose destination GID is not one of
 * ours goes here (eng_fabric_peer()).
 *
 * DESTINATIONS. A host is a number >= ENG_NET_DST0 (eng_loc.h) naming an
 * IP address in this process's table: the GID itself (IPv4-mapped ->
 * IPv4, else IPv6; link-local ones scoped to the interface). Requests to
 * a GID and responses from it meet at the same number, so the completer's
 * check of where a response came from holds. Entries are never reused
 * (what is in flight names them); a full table routes no further host.
 *
 * SENDING. The packet layer builds every packet whole (eng_fabric.c: IP,
 * UDP, BTH .. ICRC) with the socket's source port and its ICRC; the link
 * sends what follows the UDP header to the destination's port 4791, from
 * the packet's source address (IP_PKTINFO / IPV6_PKTINFO) out of the
 * bound interface, with its traffic class and hop limit. The kernel writes
 * the IP and UDP headers: the UDP checksum (computed, not RoCEv2's zero),
 * the source port (4791, not the QP's: one socket), and on IPv4 an
 * identification of 0 (DF set on an unconnected socket), which is what
 * the ICRC was computed with. Packets wait in a queue per address family,
 * sent by one sendmmsg() at the end of the engine's pass (eng_fabric_ring())
 * or when the queue is full; a run of packets to one address, of one size
 * but the last, goes as one UDP GSO message (UDP_SEGMENT), whose IPv4
 * segments the kernel numbers 0, 1, 2 ... (the ICRC of each is computed
 * with its number). A packet the socket refuses is lost, as on a wire: the
 * requester's timers recover.
 *
 * RECEIVING. Every process of the host binds port 4791 (IPv4 and IPv6,
 * SO_REUSEPORT: one group per user), and a reuseport program sends every
 * datagram to the group's first socket: one process receives for the
 * host. A datagram belongs to the process whose slot its destination QPN
 * names (smx_shm_qpn_slot()). A receive thread -- or, while the
 * application busy polls its CQs, its idle pollers (eng_udp_poll()) --
 * takes datagrams in batches (recvmmsg; with UDP GRO a message holds the
 * consecutive datagrams of one flow, cut again at their size), rebuilds
 * the IP and UDP headers around each from the source
 * address, the destination address and interface (IP_PKTINFO /
 * IPV6_PKTINFO), the TOS and TTL the kernel reports -- with the one builder,
 * roce_build() -- and either hands the packet to the one parser and the
 * transport (eng_fabric_rx()) or, when the QPN is another process's,
 * forwards it whole to that process's inbox (SMX_CELL_F_NET), whose engine
 * finds the sender's destination in its own table (eng_udp_rx_cell()).
 * The ICRC is checked on IPv6; on IPv4 it covers the identification
 * field, which a UDP socket does not see, so it is not checked there (the
 * UDP checksum, which the kernel verifies, covers the same bytes).
 *
 * Nothing from the network is trusted: a datagram that is truncated, has
 * no destination address, came in through another interface, is shorter
 * than a BTH and an ICRC or fails the packet layer's checks is counted
 * (rx_malformed) and dropped, with one line under SOFTMLX5_DEBUG.
 *
 * RAW MODE (netdev_mode raw or auto, eng_link_raw.c) is this link with
 * whole frames through a packet socket instead of the sockets' send and
 * receive: destinations, tombstones, the receive thread, pollers and
 * forwarding stay here (e->raw set: its socket is polled, its flush
 * used; the UDP sockets stay bound and take nothing).
 *
 * LOCKS. The destination table and the send batches are fw->lock's; the
 * receive thread takes datagrams without it and handles a batch under it.
 */
#include <errno.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "device/config.h"
#include "device/engine/eng_loc.h"
#include "device/transport/counters.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"
#include "util/log.h"

#define UDP_BATCH 32u			/* datagrams per recvmmsg */
/* Packets queued for one sendmmsg(): two 64 KiB messages at path MTU
 * 1024, each of a few GSO sends. */
#define UDP_TXQ 160u
/* A GSO send (UDP_SEGMENT): at most this many segments (the kernel's
 * UDP_MAX_SEGMENTS) and bytes of UDP payload (an IP datagram's). */
#define UDP_GSO_SEGS 64u
#define UDP_GSO_BYTES 65000u
#define UDP_SOCKBUF (8u << 20)		/* socket buffers asked for */
#define UDP_CTL_BYTES 128u		/* control messages of a datagram */
#define UDP_TX_WAIT_MS 1		/* a full socket: waited once */
/* A poll this recent: the application's pollers take datagrams; the
 * receive thread looks again this much later. */
#define UDP_POLLER_NS 3000u
#define UDP_POLLED_NS 50000l
/* Tombstones of QPs that talked to the network (udp_tomb): kept this
 * long after their last use, the device's close waiting at most
 * UDP_LINGER_MAX_NS for them, as TCP's TIME_WAIT keeps a last ACK. */
#define UDP_TOMBS 32u
#define UDP_LINGER_NS (8 * ENG_NET_RTO_NS)
#define UDP_LINGER_MAX_NS 1000000000ull
/* Where a datagram is received in a buffer: room for the IPv6 and UDP
 * headers rebuilt in front of it. */
#define UDP_RX_AT ROCE_V6_HDR_LEN
/* A received message: a datagram, or with UDP GRO the datagrams of one
 * flow the kernel coalesced (all of one size but the last), up to an IP
 * datagram's 64 KiB. A packet is at most what a cell holds. */
#define UDP_RX_MSG (UDP_RX_AT + 65536u)
#define UDP_RX_PKT (SMX_SHM_INLINE - UDP_RX_AT)

union udp_addr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

struct udp_dst {
	uint8_t gid[16];
	union udp_addr to;
	socklen_t len;
	bool v6;
};

/* How a queued packet goes: to whom, from which address, with which
 * traffic class and hop limit. Consecutive packets that agree, all of
 * one size but the last, go as one GSO send. */
struct udp_txp {
	uint32_t dst;
	uint8_t src[16];
	uint8_t tc, hl;
};

/* Packets waiting for one socket (one address family). */
struct udp_txq {
	int fd;
	bool gso;			/* the kernel takes UDP_SEGMENT */
	uint32_t n;
	uint8_t *buf;			/* UDP_TXQ packets of SMX_SHM_INLINE */
	struct udp_txp p[UDP_TXQ];
	struct iovec iov[UDP_TXQ];	/* their UDP payloads, in order */
	/* the messages of a flush: one per run of packets */
	struct mmsghdr m[UDP_TXQ];
	uint32_t first[UDP_TXQ];	/* the packet each message starts at */
	union {
		struct cmsghdr align;
		uint8_t b[UDP_CTL_BYTES];
	} ctl[UDP_TXQ];
};

/* A destroyed RC / XRC QP that received from the network: a request
 * its requester sends again because our last ACK was lost is answered
 * as the QP would have (eng_udp_tomb_ack()). */
struct udp_tomb {
	bool used;
	uint8_t base;			/* IBP_TR_RC or IBP_TR_XRC */
	uint32_t qpn, rqpn, epsn;	/* ours, the requester's, expected */
	uint32_t dst;
	struct roce_l3 l3;		/* the ACK's addressing */
	uint64_t at_ns;			/* made, or last answered */
};

struct eng_udp {
	unsigned int ifindex;
	int efd;			/* stops the receive thread */
	pthread_t thr;
	bool started;
	/* The receive buffers' (below): the thread's, lent to an idle
	 * poller (eng_udp_poll()). Taken before fw->lock. */
	pthread_mutex_t rx_mu;
	struct udp_txq q[2];		/* [0] IPv4, [1] IPv6; fd -1: none */
	struct udp_dst dst[ENG_NET_DSTS];
	uint32_t ndst, last;		/* entries; the last one found */
	struct udp_tomb tomb[UDP_TOMBS];
	uint32_t tomb_next;		/* the oldest: the next one replaced */
	/* what rx_mu guards */
	uint8_t *rbuf;			/* UDP_BATCH buffers of UDP_RX_MSG */
	struct mmsghdr rm[UDP_BATCH];
	struct iovec riov[UDP_BATCH];
	union udp_addr from[UDP_BATCH];
	union {
		struct cmsghdr align;
		uint8_t b[UDP_CTL_BYTES];
	} rctl[UDP_BATCH];
};

/* ------------------------------------------------------------------ */
/* Destinations                                                       */
/* ------------------------------------------------------------------ */

/* @a: address @addr (IPv6: 16 bytes, else IPv4: 4), port 4791; returns
 * its length. */
static socklen_t udp_sockaddr(bool v6, const uint8_t *addr, union udp_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (!v6) {
		a->v4.sin_family = AF_INET;
		a->v4.sin_port = htons(ROCE_UDP_PORT);
		memcpy(&a->v4.sin_addr, addr, 4);
		return sizeof(a->v4);
	}
	a->v6.sin6_family = AF_INET6;
	a->v6.sin6_port = htons(ROCE_UDP_PORT);
	memcpy(&a->v6.sin6_addr, addr, 16);
	return sizeof(a->v6);
}

/* The socket address of @gid, or false: not a unicast address a host on
 * the network may have (unspecified, loopback, multicast, broadcast). */
static bool udp_addr_of(const struct eng_udp *u, const uint8_t gid[16],
			struct udp_dst *d)
{
	static const uint8_t zero[16], lo6[16] = { [15] = 1 };

	memset(d, 0, sizeof(*d));
	memcpy(d->gid, gid, 16);
	if (roce_gid_is_v4(gid)) {
		const uint8_t *a = gid + 12;

		if (!a[0] || a[0] == 127 || a[0] >= 224)
			return false;
		d->len = udp_sockaddr(false, a, &d->to);
		return true;
	}
	if (!memcmp(gid, zero, 16) || !memcmp(gid, lo6, 16) || gid[0] == 0xff)
		return false;
	d->v6 = true;
	d->len = udp_sockaddr(true, gid, &d->to);
	/* link-local: on the bound interface */
	if (gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80)
		d->to.v6.sin6_scope_id = u->ifindex;
	return true;
}

int eng_udp_dst(struct eng *e, const uint8_t gid[16])
{
	struct eng_udp *u = e->udp;
	struct udp_dst d;
	uint32_t i;

	if (!u)
		return -1;
	if (u->last < u->ndst && !memcmp(u->dst[u->last].gid, gid, 16))
		return (int)(ENG_NET_DST0 + u->last);
	for (i = 0; i < u->ndst; i++)
		if (!memcmp(u->dst[i].gid, gid, 16)) {
			u->last = i;
			return (int)(ENG_NET_DST0 + i);
		}
	if (!udp_addr_of(u, gid, &d) || u->q[d.v6].fd < 0)
		return -1;
	if (u->ndst == ENG_NET_DSTS) {
		smx_dbg("engine: network link: %u hosts already known; no "
			"route to another", ENG_NET_DSTS);
		return -1;
	}
	u->dst[u->ndst] = d;
	u->last = u->ndst;
	return (int)(ENG_NET_DST0 + u->ndst++);
}

static const struct udp_dst *udp_dst_at(const struct eng_udp *u, uint32_t dst)
{
	if (!u || !eng_dst_net(dst) || dst - ENG_NET_DST0 >= u->ndst)
		return NULL;
	return &u->dst[dst - ENG_NET_DST0];
}

const uint8_t *eng_udp_dst_gid(const struct eng *e, uint32_t dst)
{
	const struct udp_dst *d = udp_dst_at(e->udp, dst);

	return d ? d->gid : NULL;
}

/* ------------------------------------------------------------------ */
/* Sending                                                            */
/* ------------------------------------------------------------------ */

/* Appends a control message of @len bytes to @m's (room: UDP_CTL_BYTES,
 * zeroed); returns where its data goes. */
static void *udp_cmsg(struct msghdr *m, int level, int type, size_t len)
{
	struct cmsghdr *c = (struct cmsghdr *)((uint8_t *)m->msg_control +
					       m->msg_controllen);

	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	m->msg_controllen += CMSG_SPACE(len);
	return CMSG_DATA(c);
}

/* Does packet @j go in the same GSO send as @i .. @j - 1? */
static bool udp_txq_joins(const struct udp_txq *q, uint32_t i, uint32_t j)
{
	size_t seg = q->iov[i].iov_len;

	return q->gso && j - i < UDP_GSO_SEGS &&
	       q->iov[j - 1].iov_len == seg && q->iov[j].iov_len <= seg &&
	       (j - i + 1) * seg <= UDP_GSO_BYTES &&
	       q->p[j].dst == q->p[i].dst && q->p[j].tc == q->p[i].tc &&
	       q->p[j].hl == q->p[i].hl && !memcmp(q->p[j].src, q->p[i].src, 16);
}

/* The IPv4 identification of packet @i of @q set to @id, its ICRC
 * computed again if that changed it. The kernel cuts a GSO send into
 * datagrams numbered on from the first's identification (0: DF on an
 * unconnected socket), and the ICRC covers it. */
static void udp_txq_ip_id(struct udp_txq *q, uint32_t i, uint32_t id)
{
	uint8_t *ip = q->buf + (size_t)i * SMX_SHM_INLINE;
	uint32_t len = ROCE_V4_HDR_LEN + (uint32_t)q->iov[i].iov_len;

	if (ip[4] == (uint8_t)(id >> 8) && ip[5] == (uint8_t)id)
		return;
	ip[4] = (uint8_t)(id >> 8);
	ip[5] = (uint8_t)id;
	roce_icrc_set(ip, len - ROCE_ICRC_BYTES);
}

/* Message @k of @q: packets @i .. @j - 1, with their addressing. */
static void udp_txq_msg(struct eng_udp *u, struct udp_txq *q, uint32_t k,
			uint32_t i, uint32_t j)
{
	const struct udp_txp *p = &q->p[i];
	struct udp_dst *d = &u->dst[p->dst - ENG_NET_DST0];
	struct msghdr *m = &q->m[k].msg_hdr;
	int tc = p->tc, hl = p->hl;

	memset(m, 0, sizeof(*m));
	m->msg_name = &d->to;
	m->msg_namelen = d->len;
	m->msg_iov = &q->iov[i];
	m->msg_iovlen = j - i;
	m->msg_control = q->ctl[k].b;
	memset(q->ctl[k].b, 0, UDP_CTL_BYTES);
	q->first[k] = i;
	if (!d->v6) {
		struct in_pktinfo pi = { .ipi_ifindex = (int)u->ifindex };

		memcpy(&pi.ipi_spec_dst, p->src + 12, 4);
		memcpy(udp_cmsg(m, IPPROTO_IP, IP_PKTINFO, sizeof(pi)), &pi,
		       sizeof(pi));
		memcpy(udp_cmsg(m, IPPROTO_IP, IP_TOS, sizeof(tc)), &tc,
		       sizeof(tc));
		if (hl)
			memcpy(udp_cmsg(m, IPPROTO_IP, IP_TTL, sizeof(hl)), &hl,
			       sizeof(hl));
	} else {
		struct in6_pktinfo pi = { .ipi6_ifindex = u->ifindex };

		memcpy(&pi.ipi6_addr, p->src, 16);
		memcpy(udp_cmsg(m, IPPROTO_IPV6, IPV6_PKTINFO, sizeof(pi)), &pi,
		       sizeof(pi));
		memcpy(udp_cmsg(m, IPPROTO_IPV6, IPV6_TCLASS, sizeof(tc)), &tc,
		       sizeof(tc));
		if (hl)
			memcpy(udp_cmsg(m, IPPROTO_IPV6, IPV6_HOPLIMIT,
					sizeof(hl)), &hl, sizeof(hl));
	}
	for (uint32_t x = i; !d->v6 && x < j; x++)
		udp_txq_ip_id(q, x, x - i);
	if (j - i > 1) {
		uint16_t seg = (uint16_t)q->iov[i].iov_len;

		memcpy(udp_cmsg(m, SOL_UDP, UDP_SEGMENT, sizeof(seg)), &seg,
		       sizeof(seg));
	}
}

/* The messages of packets @from .. q->n - 1, from message @k on; returns
 * the number of messages. */
static uint32_t udp_txq_msgs(struct eng_udp *u, struct udp_txq *q,
			     uint32_t k, uint32_t from)
{
	uint32_t i, j;

	for (i = from; i < q->n; i = j, k++) {
		for (j = i + 1; j < q->n && udp_txq_joins(q, i, j); j++)
			;
		udp_txq_msg(u, q, k, i, j);
	}
	return k;
}

/* Sends every packet waiting in @q, in order, runs of them as GSO sends.
 * A message the socket refuses is lost (counted per packet); a full
 * socket is waited for once per flush. A kernel that takes UDP_SEGMENT
 * but not the send (EIO: no checksum offload on the way out) gets single
 * datagrams from then on. */
int eng_net_send(int fd, struct mmsghdr *m, uint32_t n, uint32_t *at,
		 bool *waited)
{
	while (*at < n) {
		int r = sendmmsg(fd, m + *at, n - *at, MSG_DONTWAIT);

		if (r > 0) {
			*at += (uint32_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == ENOBUFS) && !*waited) {
			struct pollfd p = { fd, POLLOUT, 0 };

			*waited = true;
			poll(&p, 1, UDP_TX_WAIT_MS);
			continue;
		}
		return r < 0 ? errno : EMSGSIZE;	/* none taken (not seen) */
	}
	return 0;
}

static void udp_txq_flush(struct eng *e, struct udp_txq *q)
{
	bool waited = false;
	uint32_t i = 0, nm = udp_txq_msgs(e->udp, q, 0, 0), np;
	int err;

	while ((err = eng_net_send(q->fd, q->m, nm, &i, &waited))) {
		np = (uint32_t)q->m[i].msg_hdr.msg_iovlen;
		if ((err == EIO || err == EINVAL) && np > 1) {
			smx_dbg("engine: network link: no UDP GSO (%s): one "
				"datagram per packet", strerror(err));
			q->gso = false;
			nm = udp_txq_msgs(e->udp, q, i, q->first[i]);
			continue;
		}
		trn_ctr_add(e->ctr, TRN_CTR_NET_TX_DROPPED, np);
		smx_dbg("engine: network link: %u datagram(s) of %zu bytes not "
			"sent: %s", np, q->iov[q->first[i]].iov_len, strerror(err));
		i++;
	}
	q->n = 0;
}

void eng_udp_flush(struct eng *e)
{
	struct eng_udp *u = e->udp;

	if (e->raw) {
		eng_raw_flush(e);
		return;
	}

	if (u->q[0].n)
		udp_txq_flush(e, &u->q[0]);
	if (u->q[1].n)
		udp_txq_flush(e, &u->q[1]);
}

static int udp_tx_get(struct eng *e, uint32_t dst, struct eng_link_tx *t)
{
	const struct udp_dst *d = udp_dst_at(e->udp, dst);
	struct udp_txq *q;

	if (!d)
		return -ENOTCONN;
	q = &e->udp->q[d->v6];
	if (q->n == UDP_TXQ)
		udp_txq_flush(e, q);
	t->buf = q->buf + (size_t)q->n * SMX_SHM_INLINE;
	t->cap = SMX_SHM_INLINE;
	t->dst = dst;
	t->pos = d->v6;
	t->cell = NULL;
	return 1;
}

static void udp_tx_put(struct eng *e, struct eng_link_tx *t, uint32_t len,
		       uint8_t flags)
{
	struct eng_udp *u = e->udp;
	const struct udp_dst *d = udp_dst_at(u, t->dst);
	struct udp_txq *q;
	struct udp_txp *p;
	struct roce_l3 l3;
	const char *why;
	uint32_t off, iblen;

	(void)flags;	/* the ICRC is always there (eng_link_udp.icrc) */
	if (!len || !d)
		return;	/* the room given back */
	q = &u->q[t->pos];
	/* Our own packet, read back with the one parser: where its UDP
	 * payload starts, its source address, traffic class, hop limit. */
	if (roce_parse(t->buf, len, &l3, &off, &iblen, &why) ||
	    roce_gid_is_v4(l3.sgid) == d->v6 ||
	    off != (d->v6 ? ROCE_V6_HDR_LEN : ROCE_V4_HDR_LEN)) {
		smx_err("engine: network link: a packet we built does not "
			"parse (%s); not sent", why ? why : "address family");
		return;
	}
	/* the UDP payload: BTH .. ICRC */
	q->iov[q->n].iov_base = t->buf + off;
	q->iov[q->n].iov_len = len - off;
	p = &q->p[q->n];
	p->dst = t->dst;
	memcpy(p->src, l3.sgid, 16);
	p->tc = l3.tclass;
	p->hl = l3.hop_limit;
	if (++q->n == UDP_TXQ)
		udp_txq_flush(e, q);
}

static uint32_t udp_tx_room(struct eng *e, uint32_t dst)
{
	(void)e;
	(void)dst;
	return UDP_TXQ;	/* a full queue goes out to make room */
}

/* A host on the network has no slot to look at: it is presumed there,
 * and the requester's own timers decide (RETRY_EXC_ERR when nothing
 * answers). */
static bool udp_alive(struct eng *e, uint32_t dst)
{
	return udp_dst_at(e->udp, dst) != NULL;
}

static bool udp_stalled(struct eng *e, uint32_t dst, uint64_t since_ns)
{
	(void)e;
	(void)dst;
	(void)since_ns;
	return false;
}

const struct eng_link_ops eng_link_udp = {
	.name = "udp",
	.tx_get = udp_tx_get,
	.tx_put = udp_tx_put,
	.tx_room = udp_tx_room,
	.alive = udp_alive,
	.stalled = udp_stalled,
	.icrc = true,
	.sport = ROCE_UDP_PORT,
	.rto_ns = ENG_NET_RTO_NS,
};

/* ------------------------------------------------------------------ */
/* Tombstones                                                         */
/* ------------------------------------------------------------------ */

void eng_udp_tomb_put(struct eng *e, const struct fw_qp *qp)
{
	struct eng_udp *u = e->udp;
	const uint8_t *c = qp->qpc;
	const uint8_t *rgid = DEVX_ADDR_OF(qpc, c, primary_address_path.rgid_rip);
	struct udp_tomb *t;
	int dst;

	if (eng_fabric_gid_local(e, rgid) || (dst = eng_udp_dst(e, rgid)) < 0)
		return;	/* not a QP of the network */
	t = &u->tomb[u->tomb_next++ % UDP_TOMBS];
	memset(t, 0, sizeof(*t));
	t->used = true;
	t->base = qp->st == MLX5_QPC_ST_XRC ? IBP_TR_XRC : IBP_TR_RC;
	t->qpn = qp->obj.id;
	t->rqpn = DEVX_GET(qpc, c, remote_qpn);
	t->epsn = DEVX_GET(qpc, c, next_rcv_psn);
	t->dst = (uint32_t)dst;
	memcpy(t->l3.dgid, rgid, 16);
	fw_gid(e->fw, DEVX_GET(qpc, c, primary_address_path.src_addr_index),
	       t->l3.sgid);
	t->l3.hop_limit = 64;
	t->at_ns = eng_now();
}

bool eng_udp_tomb_ack(struct eng *e, const struct ibp_hdr *h, uint32_t src)
{
	struct eng_udp *u = e->udp;
	struct ibp_hdr a;
	uint32_t i;

	if (!u || !eng_dst_net(src))
		return false;
	for (i = 0; i < UDP_TOMBS; i++) {
		struct udp_tomb *t = &u->tomb[i];

		if (!t->used || t->qpn != h->dqpn || t->dst != src ||
		    (h->opcode & 0xe0) != t->base ||
		    eng_psn_diff(h->psn, t->epsn) >= 0)
			continue;
		/* a request it had received: ACKed again, up to the last */
		memset(&a, 0, sizeof(a));
		a.opcode = (uint8_t)(t->base | IBP_OP_ACK);
		a.pkey = 0xffff;
		a.dqpn = t->rqpn;
		a.psn = eng_psn_add(t->epsn, 0xffffff);
		a.syndrome = ibp_aeth_ack(IBP_AETH_CREDIT_INVALID);
		eng_fabric_tx(e, src, &a, &t->l3, NULL, 0, 0);
		t->at_ns = eng_now();
		smx_dbg("engine: network link: psn 0x%x to destroyed qp 0x%x "
			"ACKed again from its tombstone", h->psn, h->dqpn);
		return true;
	}
	return false;
}

/* Does a tombstone wait for its requester's resend (fw->lock held)? */
static bool udp_tombs_fresh(const struct eng_udp *u, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < UDP_TOMBS; i++)
		if (u->tomb[i].used && now - u->tomb[i].at_ns < UDP_LINGER_NS)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Receiving                                                          */
/* ------------------------------------------------------------------ */

static void udp_drop(struct eng *e, enum trn_ctr ctr, const char *why)
{
	trn_ctr_add(e->ctr, ctr, 1);
	smx_dbg("engine: network link: datagram dropped: %s", why);
}

void eng_udp_drop(struct eng *e, unsigned int ctr, const char *why)
{
	udp_drop(e, (enum trn_ctr)ctr, why);
}

/* Hands packet @pkt (@len bytes from its IP header) to the process owning
 * its QPN when that is another one of this host: true when it was that
 * process's (forwarded, or lost on the way). */
static bool udp_rx_forward(struct eng *e, const uint8_t *pkt, uint32_t len,
			   uint32_t ib_off, uint8_t flags)
{
	const uint8_t *bth = pkt + ib_off;
	uint32_t dqpn = (uint32_t)bth[IBP_BTH_DQPN] << 16 |
			(uint32_t)bth[IBP_BTH_DQPN + 1] << 8 |
			bth[IBP_BTH_DQPN + 2];
	int owner = e->shm ? smx_shm_qpn_slot(dqpn) : -1;
	struct smx_cell *c;
	uint64_t pos;

	if (owner < 0 || (uint32_t)owner == e->slot)
		return false;
	c = smx_shm_reserve(e->shm, (uint32_t)owner, 0, &pos);
	if (!c) {
		trn_ctr_add(e->ctr, TRN_CTR_RX_DROPPED, 1);
		smx_dbg("engine: network link: packet to qp 0x%x dropped: slot "
			"%d has no process, or its inbox is full", dqpn, owner);
		return true;
	}
	c->kind = SMX_CELL_PKT;
	c->flags = (uint8_t)(flags | SMX_CELL_F_NET);
	c->src_slot = e->slot;
	c->src_pid = e->pid;
	c->len = len;
	memcpy(c->data, pkt, len);
	smx_shm_publish_quiet(e->shm, (uint32_t)owner, c, pos);
	e->ring_mask |= 1ull << owner;
	trn_ctr_add(e->ctr, TRN_CTR_NET_RX_FORWARDED, 1);
	return true;
}

/* Packet @pkt (@len bytes from its IP header) from the host at @sgid, to
 * the transport: returns as eng_fabric_rx(). */
static struct eng_qp *udp_rx_from(struct eng *e, const uint8_t sgid[16],
				  const uint8_t *pkt, uint32_t len,
				  uint8_t flags)
{
	int src = eng_udp_dst(e, sgid);

	if (src < 0) {
		udp_drop(e, TRN_CTR_RX_MALFORMED, "from an address we cannot "
			 "answer");
		return NULL;
	}
	return eng_fabric_rx(e, (uint32_t)src, 0, pkt, len, flags);
}

struct eng_qp *eng_udp_rx_ip(struct eng *e, const uint8_t sgid[16],
			     const uint8_t *pkt, uint32_t len, uint32_t ib_off,
			     uint8_t flags)
{
	if (udp_rx_forward(e, pkt, len, ib_off, flags))
		return NULL;
	return udp_rx_from(e, sgid, pkt, len, flags);
}

void eng_udp_run_add(struct eng *e, struct eng_udp_run *r, struct eng_qp *q)
{
	unsigned int i;

	for (i = 0; q && i < r->n; i++)
		if (r->q[i] == q)
			return;
	if (q && r->n == ENG_UDP_RUN) {
		/* a full list ends the batch here and starts another */
		eng_fabric_rx_end(e, r->q, r->n);
		eng_comp_batch_begin(e);
		r->n = 0;
	}
	eng_fabric_run_add(r->q, &r->n, q);
}

/* Message @k of the batch (@n bytes at its buffer + UDP_RX_AT): each of
 * its datagrams (GRO segments of @seg bytes, the last maybe shorter),
 * headers rebuilt, handed on in order (fw->lock held); the QPs to run
 * at the batch's end go to @run. */
static void udp_rx_one(struct eng *e, uint32_t k, uint32_t n,
		       struct eng_udp_run *run)
{
	struct eng_udp *u = e->udp;
	struct msghdr *m = &u->rm[k].msg_hdr;
	uint8_t *ib = u->rbuf + (size_t)k * UDP_RX_MSG + UDP_RX_AT;
	const union udp_addr *from = &u->from[k];
	struct roce_l3 l3 = { .hop_limit = 64 };
	unsigned int ifindex = 0;
	bool v6, have_dst = false;
	struct cmsghdr *c;
	uint32_t l3len, seg = 0, off, len;
	uint8_t flags;

	if (m->msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		udp_drop(e, TRN_CTR_RX_MALFORMED, "longer than a packet");
		return;
	}
	if (from->sa.sa_family == AF_INET &&
	    m->msg_namelen >= sizeof(from->v4)) {
		v6 = false;
		l3.sgid[10] = l3.sgid[11] = 0xff;
		memcpy(l3.sgid + 12, &from->v4.sin_addr, 4);
		l3.sport = ntohs(from->v4.sin_port);
	} else if (from->sa.sa_family == AF_INET6 &&
		   m->msg_namelen >= sizeof(from->v6)) {
		v6 = true;
		memcpy(l3.sgid, &from->v6.sin6_addr, 16);
		l3.sport = ntohs(from->v6.sin6_port);
	} else {
		udp_drop(e, TRN_CTR_RX_MALFORMED, "no source address");
		return;
	}
	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		const uint8_t *p = CMSG_DATA(c);
		size_t dl = c->cmsg_len - CMSG_LEN(0);
		int v;

		if (!v6 && c->cmsg_level == IPPROTO_IP &&
		    c->cmsg_type == IP_PKTINFO && dl >= sizeof(struct in_pktinfo)) {
			struct in_pktinfo pi;

			memcpy(&pi, p, sizeof(pi));
			l3.dgid[10] = l3.dgid[11] = 0xff;
			memcpy(l3.dgid + 12, &pi.ipi_addr, 4);
			ifindex = (unsigned int)pi.ipi_ifindex;
			have_dst = true;
		} else if (!v6 && c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_TOS && dl >= 1) {
			l3.tclass = p[0];
		} else if (!v6 && c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_TTL && dl >= sizeof(int)) {
			memcpy(&v, p, sizeof(v));
			l3.hop_limit = (uint8_t)v;
		} else if (v6 && c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_PKTINFO &&
			   dl >= sizeof(struct in6_pktinfo)) {
			struct in6_pktinfo pi;

			memcpy(&pi, p, sizeof(pi));
			memcpy(l3.dgid, &pi.ipi6_addr, 16);
			ifindex = pi.ipi6_ifindex;
			have_dst = true;
		} else if (v6 && c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_TCLASS && dl >= sizeof(int)) {
			memcpy(&v, p, sizeof(v));
			l3.tclass = (uint8_t)v;
		} else if (v6 && c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_HOPLIMIT && dl >= sizeof(int)) {
			memcpy(&v, p, sizeof(v));
			l3.hop_limit = (uint8_t)v;
		} else if (c->cmsg_level == SOL_UDP &&
			   c->cmsg_type == UDP_GRO && dl >= sizeof(int)) {
			memcpy(&v, p, sizeof(v));
			seg = v > 0 ? (uint32_t)v : 0;
		}
	}
	if (!have_dst) {
		udp_drop(e, TRN_CTR_RX_MALFORMED, "no destination address");
		return;
	}
	if (ifindex != u->ifindex) {
		udp_drop(e, TRN_CTR_RX_MALFORMED, "came in through another "
			 "interface");
		return;
	}
	if (!n) {
		udp_drop(e, TRN_CTR_RX_MALFORMED, "empty");
		return;
	}
	if (!seg || seg > n)
		seg = n;	/* one datagram */
	l3len = v6 ? ROCE_V6_HDR_LEN : ROCE_V4_HDR_LEN;
	/* IPv4: the identification the ICRC covers is not known here */
	flags = v6 ? SMX_CELL_F_ICRC : 0;
	/* In order: the headers of a segment are rebuilt over the end of
	 * the one before, which was handled (and copied wherever it had to
	 * stay) already; the first has UDP_RX_AT bytes of room. */
	for (off = 0; off < n; off += len) {
		uint8_t *pkt = ib + off - l3len;

		len = n - off < seg ? n - off : seg;
		if (len > UDP_RX_PKT) {
			udp_drop(e, TRN_CTR_RX_MALFORMED, "longer than a "
				 "packet");
			continue;
		}
		if (len < IBP_BTH_BYTES + ROCE_ICRC_BYTES) {
			udp_drop(e, TRN_CTR_RX_MALFORMED, "shorter than a BTH "
				 "and an ICRC");
			continue;
		}
		if (roce_build(pkt, l3len + len, &l3, len - ROCE_ICRC_BYTES) !=
		    l3len) {
			udp_drop(e, TRN_CTR_RX_MALFORMED, "its headers cannot "
				 "be rebuilt");
			continue;
		}
		eng_udp_run_add(e, run, eng_udp_rx_ip(e, l3.sgid, pkt,
						      l3len + len, l3len,
						      flags));
	}
}

struct eng_qp *eng_udp_rx_cell(struct eng *e, const struct smx_cell *c)
{
	struct roce_l3 l3;
	const char *why;
	uint32_t off, len;

	if (!e->udp) {
		udp_drop(e, TRN_CTR_RX_DROPPED, "forwarded to a process "
			 "without the network link");
		return NULL;
	}
	/* the sender's address: where the answers go */
	if (c->len > SMX_SHM_INLINE ||
	    roce_parse(c->data, c->len, &l3, &off, &len, &why)) {
		udp_drop(e, TRN_CTR_RX_MALFORMED, "a forwarded packet does not "
			 "parse");
		return NULL;
	}
	return udp_rx_from(e, l3.sgid, c->data, c->len,
			   (uint8_t)(c->flags & SMX_CELL_F_ICRC));
}

void eng_udp_rx_batch(struct eng *e, uint32_t n,
		      void (*one)(struct eng *, uint32_t, void *,
				  struct eng_udp_run *),
		      void *arg)
{
	struct eng_udp_run run;
	uint32_t k;
	bool clk;

	run.n = 0;
	fw_lock(e->fw);
	clk = eng_clock_begin(e);
	eng_comp_batch_begin(e);
	for (k = 0; k < n && k < UDP_BATCH; k++)
		one(e, k, arg, &run);
	eng_fabric_rx_end(e, run.q, run.n);
	eng_loop_run(e);
	eng_clock_end(e, clk);
	fw_unlock(e->fw);
}

static void udp_rx_batch_one(struct eng *e, uint32_t k, void *arg,
			     struct eng_udp_run *run)
{
	(void)arg;
	udp_rx_one(e, k, e->udp->rm[k].msg_len, run);
}

/* Reads a batch of what waits on @fd and handles it under the lock
 * (rx_mu held); false when nothing was there. */
static bool udp_rx_drain(struct eng *e, int fd)
{
	struct eng_udp *u = e->udp;
	uint32_t k;
	int n;

	for (k = 0; k < UDP_BATCH; k++) {
		struct msghdr *m = &u->rm[k].msg_hdr;

		u->riov[k].iov_base = u->rbuf + (size_t)k * UDP_RX_MSG +
				      UDP_RX_AT;
		u->riov[k].iov_len = UDP_RX_MSG - UDP_RX_AT;
		memset(m, 0, sizeof(*m));
		m->msg_name = &u->from[k];
		m->msg_namelen = sizeof(u->from[k]);
		m->msg_iov = &u->riov[k];
		m->msg_iovlen = 1;
		m->msg_control = u->rctl[k].b;
		m->msg_controllen = UDP_CTL_BYTES;
	}
	n = recvmmsg(fd, u->rm, UDP_BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return false;
	eng_udp_rx_batch(e, (uint32_t)n, udp_rx_batch_one, NULL);
	return true;
}

/* Do the application's pollers take datagrams right now? Only asked
 * when they busy polled of late (eng_fabric_busy_polled()): then a poll
 * within UDP_POLLER_NS says they are at it. A poller that stopped (perftest's
 * WRITE latency polls its CQ for the ACK, then memory for the peer's
 * WRITE) leaves the datagram to the thread at once; parking for a fixed
 * time instead left it waiting up to that time (ib_write_lat: 0.6 ms). */
static bool udp_rx_pollers_serve(struct eng *e, uint32_t *seen,
				 uint64_t *seen_ns)
{
	uint64_t t0 = eng_now(), now = t0;
	uint32_t p0;

	if (!eng_fabric_busy_polled(e, seen, seen_ns, t0))
		return false;
	p0 = __atomic_load_n(&e->polls, __ATOMIC_RELAXED);
	while (now - t0 < UDP_POLLER_NS) {
		if (__atomic_load_n(&e->polls, __ATOMIC_RELAXED) != p0)
			return true;
		now = eng_now();
	}
	return false;
}

/*
 * THE RECEIVE THREAD sleeps in poll() on the sockets. Woken by a datagram
 * while busy pollers take them (eng_udp_poll()), it leaves it to them and
 * looks again UDP_POLLED_NS later: taking it itself only fought them for
 * the receive buffers and fw->lock, and cost a context switch per
 * datagram on two cores. Else it takes what waits, a batch at a time.
 */
static void *udp_rx_thread(void *arg)
{
	struct eng *e = arg;
	struct eng_udp *u = e->udp;
	/* raw: the UDP sockets take nothing (eng_link_raw.c) */
	struct pollfd p[4] = {
		{ u->efd, POLLIN, 0 },
		{ e->raw ? -1 : u->q[0].fd, POLLIN, 0 },
		{ e->raw ? -1 : u->q[1].fd, POLLIN, 0 },  /* -1: ignored */
		{ e->raw ? eng_raw_fd(e->raw) : -1, POLLIN, 0 },
	};
	const struct timespec polled = { 0, UDP_POLLED_NS };
	uint64_t seen_ns = eng_now();
	uint32_t seen = 0;

	/* the short waits below are meant short (default slack: 50 us) */
	prctl(PR_SET_TIMERSLACK, 1000ul);
	for (;;) {
		int k;

		if (poll(p, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			smx_err("engine: network link: poll: %s; nothing is "
				"received any more", strerror(errno));
			return NULL;
		}
		if (p[0].revents)
			return NULL;
		if (udp_rx_pollers_serve(e, &seen, &seen_ns)) {
			if (ppoll(p, 1, &polled, NULL) > 0)
				return NULL;	/* stopped */
			continue;
		}
		pthread_mutex_lock(&u->rx_mu);
		for (k = 1; k < 3; k++)
			if (p[k].revents)
				while (udp_rx_drain(e, p[k].fd))
					;
		if (p[3].revents)
			while (eng_raw_rx_drain(e))
				;
		pthread_mutex_unlock(&u->rx_mu);
	}
}

/* An application polling an empty CQ lends its thread, as it does to the
 * inbox (eng_fabric_progress()): on two cores busy pollers leave the
 * receive thread no CPU, and a datagram would wait for a time slice. */
bool eng_udp_poll(struct eng *e)
{
	struct eng_udp *u = e->udp;
	bool got = false;
	int k;

	if (pthread_mutex_trylock(&u->rx_mu))
		return false;	/* the thread is at it */
	if (e->raw)
		got = eng_raw_rx_drain(e);
	for (k = 0; k < 2 && !e->raw; k++)
		if (u->q[k].fd >= 0)
			got |= udp_rx_drain(e, u->q[k].fd);
	pthread_mutex_unlock(&u->rx_mu);
	return got;
}

bool eng_udp_pending(struct eng *e)
{
	struct eng_udp *u = e->udp;
	int k, n;

	if (e->raw)
		return eng_raw_pending(e);
	for (k = 0; k < 2; k++)
		if (u->q[k].fd >= 0 && !ioctl(u->q[k].fd, FIONREAD, &n) && n > 0)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                     */
/* ------------------------------------------------------------------ */

/* The options of a socket of each family: DF and no fragments (the
 * kernel's IPv4 identification is then 0), the addresses, traffic class
 * and hop limit of what it receives, the port shared with the host's
 * other processes; the IPv6 one IPv6 only. */
struct udp_sockopt {
	int level, name, val;
};
static const struct udp_sockopt udp_opts4[] = {
	{ IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO },
	{ IPPROTO_IP, IP_PKTINFO, 1 },
	{ IPPROTO_IP, IP_RECVTOS, 1 },
	{ IPPROTO_IP, IP_RECVTTL, 1 },
	{ SOL_SOCKET, SO_REUSEPORT, 1 },
};
static const struct udp_sockopt udp_opts6[] = {
	{ IPPROTO_IPV6, IPV6_V6ONLY, 1 },
	{ IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO },
	{ IPPROTO_IPV6, IPV6_RECVPKTINFO, 1 },
	{ IPPROTO_IPV6, IPV6_RECVTCLASS, 1 },
	{ IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1 },
	{ SOL_SOCKET, SO_REUSEPORT, 1 },
};

/* A socket of @family bound to port 4791 on every address, shared with
 * the host's other processes; -1 (errno) if it cannot be. */
static int udp_socket(const char *ifname, int family)
{
	static const uint8_t any[16];
	const struct udp_sockopt *o = family == AF_INET ? udp_opts4 : udp_opts6;
	size_t i, n = family == AF_INET ? sizeof(udp_opts4) / sizeof(*o) :
		      sizeof(udp_opts6) / sizeof(*o);
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int sz = (int)UDP_SOCKBUF;
	union udp_addr a;
	socklen_t alen;

	if (fd < 0)
		return -1;
	alen = udp_sockaddr(family == AF_INET6, any, &a);
	for (i = 0; i < n; i++)
		if (setsockopt(fd, o[i].level, o[i].name, &o[i].val,
			       sizeof(o[i].val)))
			goto fail;
	/* Room for a window of packets: forced where we may, else what
	 * net.core.[rw]mem_max allows. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	/* Datagrams of one flow coalesced into one message where the kernel
	 * does it (UDP GRO, 5.0 and later; each says its segment size) */
	setsockopt(fd, SOL_UDP, UDP_GRO, &(int){ 1 }, sizeof(int));
	/* The port's interface only, where the kernel lets us (5.7 and
	 * later); else the receiver checks the interface of each datagram. */
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname,
		   (socklen_t)strlen(ifname));
	if (bind(fd, &a.sa, alen))
		goto fail;
	/* Every datagram to the group's first socket: one process receives
	 * for the host (a flow's packets in order), the others get what it
	 * forwards; when it leaves, the kernel moves another socket into its
	 * place. Spread by the kernel, one flow's packets came through two
	 * processes, reordered, and go-back-N never caught up. (Attached
	 * once bound: a socket with a program before its bind forms a group
	 * of its own and the port is taken.) */
	{
		struct sock_filter first[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
		struct sock_fprog prog = { 1, first };

		if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
			       sizeof(prog)))
			goto fail;
	}
	return fd;
fail:
	{
		int err = errno;

		close(fd);
		errno = err;
	}
	return -1;
}

/* This process's sockets: a fork child closes its copies -- holding the
 * host's receiving socket (the group's first) without a thread to read
 * it, it would take every datagram of the host. */
static int udp_fork_fds[3] = { -1, -1, -1 };	/* IPv4, IPv6, raw's */
static pthread_once_t udp_fork_once = PTHREAD_ONCE_INIT;

static void udp_fork_child(void)
{
	int k;

	for (k = 0; k < 3; k++) {
		int fd = __atomic_exchange_n(&udp_fork_fds[k], -1,
					     __ATOMIC_RELAXED);

		if (fd >= 0)
			close(fd);
	}
}

static void udp_fork_init(void)
{
	pthread_atfork(NULL, NULL, udp_fork_child);
}

/* The raw link's packet socket goes (no thread uses it any more). */
static void udp_raw_stop(struct eng *e)
{
	struct eng_raw *r = e->raw;
	int fd;

	if (!r)
		return;
	fd = eng_raw_fd(r);
	__atomic_compare_exchange_n(&udp_fork_fds[2], &fd, -1, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	e->raw = NULL;
	eng_raw_stop(r);
}

static void udp_free(struct eng_udp *u)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (u->q[k].fd >= 0) {
			int fd = u->q[k].fd;

			/* (no longer a fork child's to close) */
			__atomic_compare_exchange_n(&udp_fork_fds[k], &fd, -1,
						    false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			close(u->q[k].fd);
		}
		free(u->q[k].buf);
	}
	if (u->efd >= 0)
		close(u->efd);
	pthread_mutex_destroy(&u->rx_mu);
	free(u->rbuf);
	free(u);
}

void eng_udp_start(struct eng *e)
{
	const struct smx_config *cfg = fw_config(e->fw);
	struct eng_udp *u;
	int err4, err6;

	if (!cfg->netdev[0])
		return;
	u = calloc(1, sizeof(*u));
	if (!u)
		goto nomem;
	u->efd = -1;
	u->q[0].fd = u->q[1].fd = -1;
	pthread_mutex_init(&u->rx_mu, NULL);
	u->ifindex = if_nametoindex(cfg->netdev);
	u->rbuf = malloc((size_t)UDP_BATCH * UDP_RX_MSG);
	u->q[0].buf = malloc((size_t)UDP_TXQ * SMX_SHM_INLINE);
	u->q[1].buf = malloc((size_t)UDP_TXQ * SMX_SHM_INLINE);
	if (!u->rbuf || !u->q[0].buf || !u->q[1].buf) {
		udp_free(u);
		goto nomem;
	}
	if (!u->ifindex) {
		smx_err("engine: network link: interface %s: %s; packets stay "
			"on this host", cfg->netdev, strerror(errno));
		udp_free(u);
		return;
	}
	u->q[0].fd = udp_socket(cfg->netdev, AF_INET);
	err4 = errno;
	u->q[1].fd = udp_socket(cfg->netdev, AF_INET6);
	err6 = errno;
	/* UDP GSO where the kernel knows it (4.18 and later): a size of 0
	 * on the socket, each send says its own */
	for (int k = 0; k < 2; k++) {
		int zero = 0;

		u->q[k].gso = u->q[k].fd >= 0 &&
			      !setsockopt(u->q[k].fd, SOL_UDP, UDP_SEGMENT,
					  &zero, sizeof(zero));
	}
	if (cfg->netdev_mode != SMX_NETDEV_UDP) {
		int err = eng_raw_start(e, cfg->netdev, u->ifindex,
					(const int[2]){ u->q[0].fd, u->q[1].fd });

		if (err && cfg->netdev_mode == SMX_NETDEV_RAW)
			smx_err("engine: network link: netdev_mode raw: no packet "
				"socket on %s (%s; CAP_NET_RAW is needed); udp "
				"instead", cfg->netdev, strerror(-err));
		else if (err)
			smx_dbg("engine: network link: no packet socket on %s "
				"(%s): udp", cfg->netdev, strerror(-err));
	}
	if (u->q[0].fd < 0 && u->q[1].fd < 0 && e->raw) {
		/* raw works without them; the kernel may answer ICMP */
		smx_err("engine: network link: cannot bind UDP port %u (%s); "
			"the kernel answers RoCE datagrams with port "
			"unreachable", ROCE_UDP_PORT, strerror(err4));
	} else if (u->q[0].fd < 0 && u->q[1].fd < 0) {
		smx_err("engine: network link: cannot bind UDP port %u (IPv4: "
			"%s; IPv6: %s; another user's device on this host?); "
			"packets stay on this host", ROCE_UDP_PORT,
			strerror(err4), strerror(err6));
		udp_free(u);
		return;
	}
	if (u->q[0].fd < 0 || u->q[1].fd < 0)
		smx_dbg("engine: network link: no IPv%c socket (%s)",
			u->q[0].fd < 0 ? '4' : '6',
			strerror(u->q[0].fd < 0 ? err4 : err6));
	pthread_once(&udp_fork_once, udp_fork_init);
	__atomic_store_n(&udp_fork_fds[0], u->q[0].fd, __ATOMIC_RELAXED);
	__atomic_store_n(&udp_fork_fds[1], u->q[1].fd, __ATOMIC_RELAXED);
	if (e->raw)
		__atomic_store_n(&udp_fork_fds[2], eng_raw_fd(e->raw),
				 __ATOMIC_RELAXED);
	u->efd = eventfd(0, EFD_CLOEXEC);
	if (!e->ctr)
		e->ctr = smx_shm_counters(NULL);	/* alone: ours */
	e->udp = u;
	if (u->efd < 0 || pthread_create(&u->thr, NULL, udp_rx_thread, e)) {
		smx_err("engine: network link: cannot start its receive "
			"thread; packets stay on this host");
		e->udp = NULL;
		udp_raw_stop(e);
		udp_free(u);
		return;
	}
	u->started = true;
	smx_dbg("engine: network link on %s (ifindex %u): %s", cfg->netdev,
		u->ifindex, e->raw ? "raw frames (netdev_mode raw)" :
		"UDP port 4791 (netdev_mode udp)");
	return;
nomem:
	smx_err("engine: network link: no memory; packets stay on this host");
}

void eng_udp_stop(struct eng *e)
{
	struct eng_udp *u = e->udp;
	uint64_t one = 1;

	if (!u)
		return;
	if (u->started) {
		uint64_t start = eng_now(), now = start;
		bool fresh = true;

		/* TIME_WAIT: the last ACKs of QPs destroyed a moment ago may
		 * be lost; their requesters' resends are answered meanwhile
		 * (a peer that sees no answer fails with RETRY_EXC_ERR). */
		while (fresh && now - start < UDP_LINGER_MAX_NS) {
			fw_lock(e->fw);
			fresh = udp_tombs_fresh(u, now);
			fw_unlock(e->fw);
			if (fresh)
				usleep(1000);
			now = eng_now();
		}
		if (write(u->efd, &one, sizeof(one)) != sizeof(one))
			smx_err("engine: network link: cannot stop its thread");
		else
			pthread_join(u->thr, NULL);
	}
	fw_lock(e->fw);
	eng_udp_flush(e);
	e->udp = NULL;
	fw_unlock(e->fw);
	/* a poller that found the link before it went has left it */
	pthread_mutex_lock(&u->rx_mu);
	pthread_mutex_unlock(&u->rx_mu);
	udp_raw_stop(e);
	udp_free(u);
}
