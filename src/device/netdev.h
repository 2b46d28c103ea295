/* SPDX-License-Identifier: MIT */
/*
 * A port bound to a Linux network interface (configuration key `netdev`,
 * docs/transport.md "Ports bound to a network interface"): what the port
 * takes from the interface -- MAC, MTU, state -- and the RoCE GID table the
 * kernel builds from its addresses for a ConnectX.
 *
 * libc only: the device (fw), the configuration loader (also in the CLI)
 * and the preloaded sysfs view of `softmlx5 run` (src/run/devnode.c) read
 * the interface through this one file, so that all three see the same
 * table.
 */
#ifndef SMX_DEVICE_NETDEV_H
#define SMX_DEVICE_NETDEV_H

#include <stdbool.h>
#include <stdint.h>

#define SMX_NETDEV_NAME_MAX 16		/* IFNAMSIZ, with the NUL */
#define SMX_NETDEV_GIDS 256		/* the largest gid_tbl_len */

enum smx_gid_type {
	SMX_GID_ROCE_V1 = 1,		/* IB/RoCE v1 (kernel IB_GID_TYPE_ROCE) */
	SMX_GID_ROCE_V2 = 2,		/* RoCE v2 (IB_GID_TYPE_ROCE_UDP_ENCAP) */
};

struct smx_gid {
	uint8_t raw[16];
	uint8_t type;			/* enum smx_gid_type */
};

struct smx_netdev {
	unsigned int ifindex;
	uint8_t mac[6];
	unsigned int mtu;		/* the interface's (IP) MTU, bytes */
	bool up;			/* IFF_UP */
	bool carrier;			/* IFF_LOWER_UP */
	unsigned int ngids;		/* gid[0..ngids) populated, in order */
	struct smx_gid gid[SMX_NETDEV_GIDS];
};

/*
 * Reads interface @name as it is now, and builds its GID table of at most
 * @max_gids entries the way the kernel fills a RoCE port's
 * (drivers/infiniband/core/roce_gid_mgmt.c, cache.c) when it enumerates
 * the interface: indices 0 and 1 the default GID fe80::<EUI-64 of the MAC>
 * as RoCE v1 and v2, then every IPv4 address (as ::ffff:a.b.c.d) and every
 * IPv6 address, link-local ones included, in the order the kernel lists
 * them, each as v1 then v2; a GID already in the table (the link-local
 * address that is the default GID) is not added again. 0; -ENODEV: no
 * such interface here (in this network namespace); -EPROTOTYPE: not an
 * Ethernet interface; other -errno.
 */
int smx_netdev_read(const char *name, unsigned int max_gids,
		    struct smx_netdev *nd);

/* Is @name a possible interface name (1-15 characters, not "." or "..",
 * no '/', ':' or blank, as the kernel's dev_valid_name())? */
bool smx_netdev_name_ok(const char *name);

/* "IB/RoCE v1" / "RoCE v2": the kernel's names, as sysfs gid_attrs/types
 * shows them. */
const char *smx_gid_type_str(uint8_t type);

#endif
