/* SPDX-License-Identifier: MIT */
/*
 * Neighbour (ARP / ND) resolution through the kernel's tables, for a
 * RoCE port bound to a network interface (docs/transport.md, "Neighbours").
 * The route to a GID's address names the next hop (the address itself on
 * the link, else a gateway); the kernel's neighbour entry of that hop
 * on the interface gives the MAC (rtnetlink RTM_GETROUTE, RTM_GETNEIGH,
 * no privilege). Resolution is started the way rdma-core's libibverbs
 * starts it, with no privilege either: a one-byte datagram to the
 * address's discard port (9), which makes the kernel ask (ARP / NS).
 * Addresses whose MAC is written in them -- IPv6 link-local (the EUI-64)
 * and multicast -- need no table, as the kernel's ib_resolve_eth_dmac()
 * and rdma-core decide. libc only: the driver, libibverbs and the engine
 * share it.
 */
#ifndef SMX_UTIL_NEIGH_H
#define SMX_UTIL_NEIGH_H

#include <stdint.h>

enum smx_neigh_state {
	SMX_NEIGH_NONE = 0,	/* no entry, incomplete or failed */
	SMX_NEIGH_VALID,	/* reachable, permanent, noarp, delay, probe */
	SMX_NEIGH_STALE,	/* a MAC, not confirmed lately: ask again */
	SMX_NEIGH_LOCAL,	/* one of the interface's own addresses */
};

/*
 * The MAC to send to @gid (IPv4-mapped: IPv4, else IPv6) out of interface
 * @ifindex, as the kernel knows it now, without waiting: the state
 * (SMX_NEIGH_NONE: no MAC in @mac), or -errno: no route through the
 * interface (-ENETUNREACH), the address cannot be a host's (-EINVAL),
 * netlink failed. @nh, when not NULL, gets the next hop's address (16
 * bytes, a GID) that smx_neigh_solicit() must be given.
 */
int smx_neigh_lookup(unsigned int ifindex, const uint8_t gid[16],
		     uint8_t mac[6], uint8_t nh[16]);

/* Makes the kernel resolve next hop @nh (a GID; smx_neigh_lookup()):
 * a datagram to its discard port. 0 or -errno. */
int smx_neigh_solicit(unsigned int ifindex, const uint8_t nh[16]);

/*
 * smx_neigh_lookup(), and while there is no MAC, resolution asked for and
 * looked at again until @timeout_ms passed (10 tries, as rdma-core): 0
 * with @mac, -ETIMEDOUT when the neighbour did not answer, or the lookup's
 * -errno. Blocks the caller.
 */
int smx_neigh_resolve(unsigned int ifindex, const uint8_t gid[16],
		      uint8_t mac[6], unsigned int timeout_ms);

#endif
