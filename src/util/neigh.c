/* SPDX-License-Identifier: MIT */
/*
 * Neighbour resolution through the kernel's routing and neighbour tables
 * (neigh.h). One rtnetlink request and its answer per question: callers
 * cache what they learn.
 */
#include "util/neigh.h"

#include <errno.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NEIGH_DISCARD_PORT 9	/* rdma-core's trigger: RFC 863 discard */
#define NEIGH_TRIES 11		/* rdma-core: 10 retries in the timeout */
#define NEIGH_NL_BYTES 1024u	/* one answer: a route or an entry */

static const uint8_t neigh_v4_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					     0xff, 0xff };

static int neigh_v4(const uint8_t gid[16])
{
	return !memcmp(gid, neigh_v4_prefix, 12);
}

/* Addresses that carry their MAC (the kernel's rdma_is_multicast_addr()
 * and rdma_link_local_addr() cases, rdma-core's encoded prefixes): 1 with
 * @mac filled, else 0. */
static int neigh_encoded(const uint8_t gid[16], uint8_t mac[6])
{
	if (neigh_v4(gid) && (gid[12] & 0xf0) == 0xe0) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = gid[13] & 0x7f;
		mac[4] = gid[14];
		mac[5] = gid[15];
		return 1;
	}
	if (neigh_v4(gid))
		return 0;
	if (gid[0] == 0xff) {
		mac[0] = mac[1] = 0x33;
		memcpy(mac + 2, gid + 12, 4);
		return 1;
	}
	if (gid[0] == 0xfe && gid[1] == 0x80 && !gid[2] && !gid[3] &&
	    !gid[4] && !gid[5] && !gid[6] && !gid[7]) {
		/* the interface id is the EUI-64 of the MAC */
		memcpy(mac, gid + 8, 3);
		memcpy(mac + 3, gid + 13, 3);
		mac[0] ^= 2;
		return 1;
	}
	return 0;
}

/* Sends request @req (its header's length set) and reads the one answer
 * into @ans: its length, or -errno (the kernel's NLMSG_ERROR included). */
static int neigh_nl_ask(struct nlmsghdr *req, uint8_t *ans, size_t room)
{
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	struct nlmsghdr *h = (struct nlmsghdr *)ans;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	req->nlmsg_flags = NLM_F_REQUEST;
	req->nlmsg_seq = 1;
	if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&k,
		   sizeof(k)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	do
		n = recv(fd, ans, room, 0);
	while (n < 0 && errno == EINTR);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if ((size_t)n < sizeof(*h) || h->nlmsg_len > (size_t)n ||
	    h->nlmsg_len < sizeof(*h))
		return -EPROTO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EPROTO;
		return e->error ? e->error : -ENOENT;
	}
	return (int)h->nlmsg_len;
}

/* Appends attribute @type of @len bytes to request @h (room checked by
 * the callers' sizes). */
static void neigh_nl_attr(struct nlmsghdr *h, unsigned short type,
			  const void *data, unsigned short len)
{
	struct rtattr *a = (struct rtattr *)((uint8_t *)h +
					     NLMSG_ALIGN(h->nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* The next hop towards @gid through @ifindex: @nh, 1 when @gid is one of
 * this host's own addresses, 0 otherwise, -errno without a route. */
static int neigh_route(unsigned int ifindex, const uint8_t gid[16],
		       uint8_t nh[16])
{
	union {
		struct nlmsghdr h;
		uint8_t b[NLMSG_SPACE(sizeof(struct rtmsg)) + 64];
	} req;
	uint8_t ans[NEIGH_NL_BYTES];
	int v4 = neigh_v4(gid), alen = v4 ? 4 : 16, oif = (int)ifindex;
	unsigned int oif_got = 0;
	struct nlmsghdr *h = (struct nlmsghdr *)ans;
	struct rtmsg *rt;
	struct rtattr *a;
	int n, left;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*rt));
	req.h.nlmsg_type = RTM_GETROUTE;
	rt = NLMSG_DATA(&req.h);
	rt->rtm_family = v4 ? AF_INET : AF_INET6;
	rt->rtm_dst_len = (unsigned char)(alen * 8);
	neigh_nl_attr(&req.h, RTA_DST, v4 ? gid + 12 : gid, (unsigned short)alen);
	neigh_nl_attr(&req.h, RTA_OIF, &oif, sizeof(oif));
	n = neigh_nl_ask(&req.h, ans, sizeof(ans));
	if (n < 0)
		return n == -ENOENT ? -ENETUNREACH : n;
	if (h->nlmsg_type != RTM_NEWROUTE ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*rt)))
		return -EPROTO;
	rt = NLMSG_DATA(h);
	if (rt->rtm_type == RTN_LOCAL)
		return 1;
	if (rt->rtm_type != RTN_UNICAST)
		return -ENETUNREACH;	/* unreachable, blackhole, prohibit */
	memcpy(nh, gid, 16);
	left = (int)RTM_PAYLOAD(h);
	for (a = RTM_RTA(rt); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
		if (a->rta_type == RTA_GATEWAY &&
		    RTA_PAYLOAD(a) == (unsigned int)alen) {
			memset(nh, 0, 16);
			if (v4) {
				memcpy(nh, neigh_v4_prefix, 12);
				memcpy(nh + 12, RTA_DATA(a), 4);
			} else {
				memcpy(nh, RTA_DATA(a), 16);
			}
		} else if (a->rta_type == RTA_OIF &&
			   RTA_PAYLOAD(a) == sizeof(int)) {
			memcpy(&oif, RTA_DATA(a), sizeof(oif));
			oif_got = (unsigned int)oif;
		}
	}
	/* the route leaves through another interface: not our port's */
	return oif_got == ifindex ? 0 : -ENETUNREACH;
}

/* The kernel's entry for @nh on @ifindex: its state with @mac. */
static int neigh_entry(unsigned int ifindex, const uint8_t nh[16],
		       uint8_t mac[6])
{
	union {
		struct nlmsghdr h;
		uint8_t b[NLMSG_SPACE(sizeof(struct ndmsg)) + 32];
	} req;
	uint8_t ans[NEIGH_NL_BYTES];
	struct nlmsghdr *h = (struct nlmsghdr *)ans;
	int v4 = neigh_v4(nh), n, left, have = 0;
	struct ndmsg *nd;
	struct rtattr *a;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*nd));
	req.h.nlmsg_type = RTM_GETNEIGH;
	nd = NLMSG_DATA(&req.h);
	nd->ndm_family = v4 ? AF_INET : AF_INET6;
	nd->ndm_ifindex = (int)ifindex;
	neigh_nl_attr(&req.h, NDA_DST, v4 ? nh + 12 : nh,
		      (unsigned short)(v4 ? 4 : 16));
	n = neigh_nl_ask(&req.h, ans, sizeof(ans));
	if (n == -ENOENT)
		return SMX_NEIGH_NONE;
	if (n < 0)
		return n;
	if (h->nlmsg_type != RTM_NEWNEIGH ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*nd)))
		return -EPROTO;
	nd = NLMSG_DATA(h);
	left = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*nd)));
	for (a = (struct rtattr *)((uint8_t *)nd + NLMSG_ALIGN(sizeof(*nd)));
	     RTA_OK(a, left); a = RTA_NEXT(a, left))
		if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6) {
			memcpy(mac, RTA_DATA(a), 6);
			have = 1;
		}
	if (!have || nd->ndm_state & (NUD_INCOMPLETE | NUD_FAILED | NUD_NONE))
		return SMX_NEIGH_NONE;
	if (nd->ndm_state & NUD_STALE)
		return SMX_NEIGH_STALE;
	return SMX_NEIGH_VALID;
}

/* The MAC of interface @ifindex. */
static int neigh_own_mac(unsigned int ifindex, uint8_t mac[6])
{
	struct ifreq r;
	int fd, err = 0;

	memset(&r, 0, sizeof(r));
	if (!if_indextoname(ifindex, r.ifr_name))
		return -errno;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFHWADDR, &r))
		err = -errno;
	else
		memcpy(mac, r.ifr_hwaddr.sa_data, 6);
	close(fd);
	return err;
}

int smx_neigh_lookup(unsigned int ifindex, const uint8_t gid[16],
		     uint8_t mac[6], uint8_t nh[16])
{
	static const uint8_t zero[16];
	uint8_t hop[16];
	int r;

	if (!memcmp(gid, zero, 16) || (neigh_v4(gid) && !gid[12]))
		return -EINVAL;
	if (neigh_encoded(gid, mac)) {
		if (nh)
			memcpy(nh, gid, 16);
		return SMX_NEIGH_VALID;
	}
	r = neigh_route(ifindex, gid, hop);
	if (r < 0)
		return r;
	if (nh)
		memcpy(nh, r ? gid : hop, 16);
	if (r) {
		r = neigh_own_mac(ifindex, mac);
		return r < 0 ? r : SMX_NEIGH_LOCAL;
	}
	return neigh_entry(ifindex, hop, mac);
}

int smx_neigh_solicit(unsigned int ifindex, const uint8_t nh[16])
{
	union {
		struct sockaddr sa;
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} to;
	socklen_t len;
	char name[IF_NAMESIZE];
	int fd, err = 0;

	memset(&to, 0, sizeof(to));
	if (neigh_v4(nh)) {
		to.v4.sin_family = AF_INET;
		to.v4.sin_port = htons(NEIGH_DISCARD_PORT);
		memcpy(&to.v4.sin_addr, nh + 12, 4);
		len = sizeof(to.v4);
	} else {
		to.v6.sin6_family = AF_INET6;
		to.v6.sin6_port = htons(NEIGH_DISCARD_PORT);
		memcpy(&to.v6.sin6_addr, nh, 16);
		to.v6.sin6_scope_id = ifindex;
		len = sizeof(to.v6);
	}
	fd = socket(to.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* out of the port's interface where we may (unprivileged: 5.7+) */
	if (if_indextoname(ifindex, name))
		setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name,
			   (socklen_t)strlen(name));
	if (sendto(fd, "", 1, MSG_DONTWAIT, &to.sa, len) < 0)
		err = -errno;
	close(fd);
	return err;
}

static uint64_t neigh_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

int smx_neigh_resolve(unsigned int ifindex, const uint8_t gid[16],
		      uint8_t mac[6], unsigned int timeout_ms)
{
	uint64_t start = neigh_now_ms(), asked = 0, now;
	unsigned int tick = timeout_ms / NEIGH_TRIES, wait = 1, tries = 0;
	uint8_t nh[16];
	int r;

	for (;;) {
		r = smx_neigh_lookup(ifindex, gid, mac, nh);
		if (r < 0)
			return r;
		if (r != SMX_NEIGH_NONE)
			return 0;
		now = neigh_now_ms();
		if (now - start >= timeout_ms)
			return -ETIMEDOUT;
		/* asked again each tick, as rdma-core; looked at sooner (an
		 * answer on a LAN takes well under a millisecond) */
		if (!tries || (now - asked >= tick && tries < NEIGH_TRIES)) {
			smx_neigh_solicit(ifindex, nh);
			asked = now;
			tries++;
		}
		usleep(wait * 1000);
		if (wait < tick)
			wait *= 2;
	}
}
