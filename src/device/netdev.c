/* SPDX-License-Identifier: MIT */
/*
 * The network interface a port is bound to (netdev.h). libc only.
 */
#include "device/netdev.h"

#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* linux/if.h: the carrier */
#endif

bool smx_netdev_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= SMX_NETDEV_NAME_MAX || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	for (; *name; name++)
		if (*name == '/' || *name == ':' ||
		    (unsigned char)*name <= ' ' || *name == 0x7f)
			return false;
	return true;
}

const char *smx_gid_type_str(uint8_t type)
{
	return type == SMX_GID_ROCE_V1 ? "IB/RoCE v1" : "RoCE v2";
}

/* Appends @raw as RoCE v1 and v2 (the kernel adds a GID for every type
 * the port supports, in type order), unless it is there already. */
static void gid_add(struct smx_netdev *nd, unsigned int max,
		    const uint8_t raw[16])
{
	unsigned int i;

	for (i = 0; i < nd->ngids; i++)
		if (!memcmp(nd->gid[i].raw, raw, 16))
			return;
	for (i = SMX_GID_ROCE_V1; i <= SMX_GID_ROCE_V2 && nd->ngids < max; i++) {
		memcpy(nd->gid[nd->ngids].raw, raw, 16);
		nd->gid[nd->ngids++].type = (uint8_t)i;
	}
}

/* Is @ifa about interface @name? IPv4 addresses carry their label, which
 * may be "name:alias". */
static bool ifa_of(const struct ifaddrs *ifa, const char *name)
{
	size_t n = strlen(name);

	return ifa->ifa_name && !strncmp(ifa->ifa_name, name, n) &&
	       (ifa->ifa_name[n] == 0 || ifa->ifa_name[n] == ':');
}

/* The GIDs of the addresses of family @fam, in the kernel's order. */
static void gids_of_family(struct smx_netdev *nd, unsigned int max,
			   const struct ifaddrs *list, const char *name,
			   int fam)
{
	const struct ifaddrs *ifa;
	uint8_t raw[16];

	for (ifa = list; ifa; ifa = ifa->ifa_next) {
		if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != fam ||
		    !ifa_of(ifa, name))
			continue;
		if (fam == AF_INET) {
			const struct sockaddr_in *a = (const void *)ifa->ifa_addr;

			/* rdma_ip2gid(): IPv4-mapped */
			memset(raw, 0, 10);
			raw[10] = raw[11] = 0xff;
			memcpy(raw + 12, &a->sin_addr, 4);
		} else {
			const struct sockaddr_in6 *a = (const void *)ifa->ifa_addr;

			memcpy(raw, &a->sin6_addr, 16);
		}
		gid_add(nd, max, raw);
	}
}

int smx_netdev_read(const char *name, unsigned int max_gids,
		    struct smx_netdev *nd)
{
	const struct sockaddr_ll *ll = NULL;
	struct ifaddrs *list, *ifa;
	struct ifreq ifr;
	uint8_t raw[16];
	int fd, err = 0;

	memset(nd, 0, sizeof(*nd));
	if (!smx_netdev_name_ok(name))
		return -ENODEV;
	if (max_gids > SMX_NETDEV_GIDS)
		max_gids = SMX_NETDEV_GIDS;
	/* One netlink dump of links and addresses (of this process's
	 * network namespace, whichever /sys shows). */
	if (getifaddrs(&list))
		return -errno;
	for (ifa = list; ifa; ifa = ifa->ifa_next)
		if (ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_PACKET &&
		    !strcmp(ifa->ifa_name, name)) {
			ll = (const void *)ifa->ifa_addr;
			nd->up = ifa->ifa_flags & IFF_UP;
			nd->carrier = ifa->ifa_flags & IFF_LOWER_UP;
			break;
		}
	if (!ll) {
		err = -ENODEV;
		goto out;
	}
	/* RoCE lives on Ethernet only (roce_gid_mgmt.c: ARPHRD_ETHER). */
	if (ll->sll_hatype != ARPHRD_ETHER || ll->sll_halen != 6) {
		err = -EPROTOTYPE;
		goto out;
	}
	nd->ifindex = (unsigned int)ll->sll_ifindex;
	memcpy(nd->mac, ll->sll_addr, 6);

	/* The MTU is not in the dump's link entries as getifaddrs() keeps
	 * them. */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, name, sizeof(ifr.ifr_name) - 1);
	if (fd < 0 || ioctl(fd, SIOCGIFMTU, &ifr)) {
		err = errno == ENODEV ? -ENODEV : -errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	nd->mtu = (unsigned int)ifr.ifr_mtu;

	/* The default GID: fe80::/64 with the MAC's EUI-64 (the U/L bit
	 * flipped), cache.c make_default_gid(). */
	memset(raw, 0, sizeof(raw));
	raw[0] = 0xfe;
	raw[1] = 0x80;
	raw[8] = nd->mac[0] ^ 2;
	raw[9] = nd->mac[1];
	raw[10] = nd->mac[2];
	raw[11] = 0xff;
	raw[12] = 0xfe;
	raw[13] = nd->mac[3];
	raw[14] = nd->mac[4];
	raw[15] = nd->mac[5];
	gid_add(nd, max_gids, raw);
	/* add_netdev_ips(): IPv4 addresses, then IPv6 ones. */
	gids_of_family(nd, max_gids, list, name, AF_INET);
	gids_of_family(nd, max_gids, list, name, AF_INET6);
out:
	freeifaddrs(list);
	if (err)
		memset(nd, 0, sizeof(*nd));
	return err;
}
