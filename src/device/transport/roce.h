/* SPDX-License-Identifier: MIT */
/*
 * RoCEv2 encapsulation (IBTA Vol. 1 Annex A17): an IB transport packet
 * (BTH .. payload + pad) behind an IPv4 or IPv6 header and a UDP header to
 * port 4791, followed by the 4-byte invariant CRC (ICRC).
 *
 *   IP header | UDP (dst 4791) | BTH | ext. headers | payload | pad | ICRC
 *
 * GIDs are 16 bytes; an IPv4 address is carried as the IPv4-mapped GID
 * ::ffff:a.b.c.d, and such a pair of GIDs gives an IPv4 packet.
 */
#ifndef SMX_DEVICE_TRANSPORT_ROCE_H
#define SMX_DEVICE_TRANSPORT_ROCE_H

#include <stdbool.h>
#include <stdint.h>

#define ROCE_UDP_PORT 4791
#define ROCE_ICRC_BYTES 4u
#define ROCE_IPV4_HDR_BYTES 20u
#define ROCE_IPV6_HDR_BYTES 40u
#define ROCE_UDP_HDR_BYTES 8u
/* roce_build's header lengths: IP + UDP. */
#define ROCE_V4_HDR_LEN (ROCE_IPV4_HDR_BYTES + ROCE_UDP_HDR_BYTES)	/* 28 */
#define ROCE_V6_HDR_LEN (ROCE_IPV6_HDR_BYTES + ROCE_UDP_HDR_BYTES)	/* 48 */

/* The network and transport (UDP) layer fields of one packet. */
struct roce_l3 {
	uint8_t sgid[16], dgid[16];	/* IPv4: ::ffff:a.b.c.d */
	uint8_t tclass;			/* IPv6 traffic class / IPv4 TOS (DSCP+ECN) */
	uint8_t hop_limit;		/* IPv6 hop limit / IPv4 TTL */
	uint32_t flow_label;		/* IPv6 only (20 bits) */
	uint16_t sport;			/* UDP source port */
	uint16_t ip_id;			/* IPv4 identification */
};

/* True for an IPv4-mapped GID (::ffff:a.b.c.d). */
bool roce_gid_is_v4(const uint8_t gid[16]);

/*
 * Writes the IP and UDP headers in front of an IB packet of ib_len bytes
 * (BTH .. pad) that will follow at buf + the returned length. IPv4 when
 * both GIDs are IPv4-mapped (DF set, TTL = hop_limit, TOS = tclass, ID =
 * ip_id, header checksum computed), else IPv6. UDP: source l3->sport,
 * destination 4791, checksum 0. The IP and UDP lengths count the ICRC.
 * Returns 28 (IPv4) or 48 (IPv6), or 0 if room is short, the packet would
 * exceed the IP length field, or one GID is IPv4-mapped and the other not.
 */
uint32_t roce_build(uint8_t *buf, uint32_t room, const struct roce_l3 *l3, uint32_t ib_len);

/*
 * Validates one RoCEv2 packet starting at its IP header (len: bytes
 * available; IPv4 bytes beyond the total length, e.g. Ethernet padding,
 * are ignored): IP version, IPv4 IHL, header checksum, no fragment;
 * IP / UDP lengths consistent with each other and with len; protocol or
 * next header UDP (no IPv6 extension headers); destination port 4791; a
 * non-zero UDP checksum must be right; room for a BTH and the ICRC.
 * Fills l3 (IPv4 addresses as mapped GIDs, flow_label 0; IPv6 ip_id 0),
 * and *ib_off / *ib_len: the IB packet, BTH .. pad, ICRC excluded.
 * Returns 0, or -1 with *why naming the check. Does not check the ICRC
 * (roce_icrc_ok) nor the IB packet (ibp_parse).
 */
int roce_parse(const uint8_t *buf, uint32_t len, struct roce_l3 *l3, uint32_t *ib_off,
	       uint32_t *ib_len, const char **why);

/*
 * ICRC of a RoCEv2 packet from its IP header, over len_without_icrc bytes:
 * the CRC-32 of zlib / Ethernet over 8 bytes of 0xff, then the packet with
 * these fields set to all ones -- IPv4 TOS, TTL and header checksum; IPv6
 * traffic class, flow label and hop limit; the UDP checksum; BTH byte 4.
 * The packet is not copied: only its first IP + UDP + BTH bytes are.
 */
uint32_t roce_icrc(const uint8_t *ip, uint32_t len_without_icrc);

/* Writes the ICRC (little-endian, as the wire has it) at ip + len_without_icrc. */
void roce_icrc_set(uint8_t *ip, uint32_t len_without_icrc);

/* True when the last 4 of len bytes (ICRC included) are the packet's ICRC. */
bool roce_icrc_ok(const uint8_t *ip, uint32_t len);

/*
 * UDP source port of a QP's packets, as the kernel's rdma_get_udp_sport():
 * from the flow label, or when it is 0 from a hash of the two QPNs; always
 * in 0xC000..0xFFFF.
 */
uint16_t roce_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn);
/* The fold both use: a (non-zero) flow label to its port (rdma-core's
 * rdma_flow_label_to_udp_sport()). */
uint16_t roce_sport_of_flow_label(uint32_t flow_label);

#endif
