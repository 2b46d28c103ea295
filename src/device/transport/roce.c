/* SPDX-License-Identifier: MIT */
/*
 * RoCEv2 encapsulation: IPv4/IPv6 + UDP headers, their validation, the
 * ICRC (ISA-L's CRC-32) and the UDP source port. Interface: roce.h.
 */
#include <string.h>

#include <isa-l/crc.h>

#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"
#include "util/csum.h"

/* IPv4 header fields (byte offsets). */
enum {
	V4_VER_IHL = 0,
	V4_TOS = 1,
	V4_TOT_LEN = 2,
	V4_ID = 4,
	V4_FRAG = 6,	/* flags(3) | fragment offset(13) */
	V4_TTL = 8,
	V4_PROTO = 9,
	V4_CSUM = 10,
	V4_SRC = 12,
	V4_DST = 16,
	V4_DF = 0x4000,
	V4_MF = 0x2000,
	V4_OFF_MASK = 0x1fff,
};

/* IPv6 header fields. */
enum {
	V6_VTF = 0,	/* version(4) | traffic class(8) | flow label(20) */
	V6_PLEN = 4,
	V6_NH = 6,
	V6_HLIM = 7,
	V6_SRC = 8,
	V6_DST = 24,
};

/* UDP header fields. */
enum { UDP_SPORT = 0, UDP_DPORT = 2, UDP_LEN = 4, UDP_CSUM = 6 };

#define IPPROTO_UDP_ 17
#define FLOW_LABEL_MASK 0xfffffu

static const uint8_t v4_mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

bool roce_gid_is_v4(const uint8_t gid[16])
{
	return memcmp(gid, v4_mapped_prefix, sizeof(v4_mapped_prefix)) == 0;
}

uint32_t roce_build(uint8_t *buf, uint32_t room, const struct roce_l3 *l3, uint32_t ib_len)
{
	bool v4 = roce_gid_is_v4(l3->sgid);
	uint32_t iph = v4 ? ROCE_IPV4_HDR_BYTES : ROCE_IPV6_HDR_BYTES;
	uint32_t udp_len;
	uint8_t *udp = buf + iph;

	if (v4 != roce_gid_is_v4(l3->dgid))
		return 0;
	if (room < iph + ROCE_UDP_HDR_BYTES)
		return 0;
	/* the IPv4 total length / the IPv6 payload length must hold it */
	if (ib_len > 0xffff - (v4 ? ROCE_IPV4_HDR_BYTES : 0) - ROCE_UDP_HDR_BYTES -
		     ROCE_ICRC_BYTES)
		return 0;
	udp_len = ROCE_UDP_HDR_BYTES + ib_len + ROCE_ICRC_BYTES;
	if (v4) {
		memset(buf, 0, ROCE_IPV4_HDR_BYTES);
		buf[V4_VER_IHL] = 0x45;
		buf[V4_TOS] = l3->tclass;
		ibp_put16(buf + V4_TOT_LEN, (uint16_t)(ROCE_IPV4_HDR_BYTES + udp_len));
		ibp_put16(buf + V4_ID, l3->ip_id);
		ibp_put16(buf + V4_FRAG, V4_DF);
		buf[V4_TTL] = l3->hop_limit;
		buf[V4_PROTO] = IPPROTO_UDP_;
		memcpy(buf + V4_SRC, l3->sgid + 12, 4);
		memcpy(buf + V4_DST, l3->dgid + 12, 4);
		ibp_put16(buf + V4_CSUM,
			  (uint16_t)~smx_csum_fold(smx_csum_add(0, buf, ROCE_IPV4_HDR_BYTES)));
	} else {
		ibp_put32(buf + V6_VTF, 6u << 28 | (uint32_t)l3->tclass << 20 |
					(l3->flow_label & FLOW_LABEL_MASK));
		ibp_put16(buf + V6_PLEN, (uint16_t)udp_len);
		buf[V6_NH] = IPPROTO_UDP_;
		buf[V6_HLIM] = l3->hop_limit;
		memcpy(buf + V6_SRC, l3->sgid, 16);
		memcpy(buf + V6_DST, l3->dgid, 16);
	}
	ibp_put16(udp + UDP_SPORT, l3->sport);
	ibp_put16(udp + UDP_DPORT, ROCE_UDP_PORT);
	ibp_put16(udp + UDP_LEN, (uint16_t)udp_len);
	ibp_put16(udp + UDP_CSUM, 0);
	return iph + ROCE_UDP_HDR_BYTES;
}

/* A UDP checksum over the pseudo-header and the datagram, 0xffff if right. */
static uint16_t udp_csum_check(const uint8_t *ip, bool v4, const uint8_t *udp, uint32_t ulen)
{
	uint32_t sum = 0;

	if (v4)
		sum = smx_csum_add(sum, ip + V4_SRC, 8);
	else
		sum = smx_csum_add(sum, ip + V6_SRC, 32);
	sum += IPPROTO_UDP_ + ulen;
	return smx_csum_fold(smx_csum_add(sum, udp, ulen));
}

#define FAIL(msg)                                                              \
	do {                                                                   \
		*why = (msg);                                                  \
		return -1;                                                     \
	} while (0)

int roce_parse(const uint8_t *buf, uint32_t len, struct roce_l3 *l3, uint32_t *ib_off,
	       uint32_t *ib_len, const char **why)
{
	uint32_t iph, iplen, ulen;
	const uint8_t *udp;
	bool v4;

	memset(l3, 0, sizeof(*l3));
	if (len < 1)
		FAIL("truncated IP header");
	if (buf[0] >> 4 == 4) {
		v4 = true;
		if (len < ROCE_IPV4_HDR_BYTES)
			FAIL("truncated IPv4 header");
		iph = (buf[V4_VER_IHL] & 0xfu) * 4;
		if (iph < ROCE_IPV4_HDR_BYTES)
			FAIL("IPv4 IHL < 5");
		if (iph > len)
			FAIL("truncated IPv4 header");
		if (smx_csum_fold(smx_csum_add(0, buf, iph)) != 0xffff)
			FAIL("bad IPv4 header checksum");
		iplen = ibp_get16(buf + V4_TOT_LEN);
		if (iplen > len)
			FAIL("IPv4 total length exceeds packet");
		if (iplen < iph)
			FAIL("IPv4 total length shorter than header");
		if (ibp_get16(buf + V4_FRAG) & (V4_MF | V4_OFF_MASK))
			FAIL("IPv4 fragment");
		if (buf[V4_PROTO] != IPPROTO_UDP_)
			FAIL("IPv4 protocol not UDP");
		memcpy(l3->sgid, v4_mapped_prefix, 12);
		memcpy(l3->sgid + 12, buf + V4_SRC, 4);
		memcpy(l3->dgid, v4_mapped_prefix, 12);
		memcpy(l3->dgid + 12, buf + V4_DST, 4);
		l3->tclass = buf[V4_TOS];
		l3->hop_limit = buf[V4_TTL];
		l3->ip_id = ibp_get16(buf + V4_ID);
	} else if (buf[0] >> 4 == 6) {
		v4 = false;
		iph = ROCE_IPV6_HDR_BYTES;
		if (len < iph)
			FAIL("truncated IPv6 header");
		iplen = iph + ibp_get16(buf + V6_PLEN);
		if (iplen > len)
			FAIL("IPv6 payload length exceeds packet");
		if (buf[V6_NH] != IPPROTO_UDP_)
			FAIL("IPv6 next header not UDP");
		memcpy(l3->sgid, buf + V6_SRC, 16);
		memcpy(l3->dgid, buf + V6_DST, 16);
		l3->tclass = (uint8_t)(ibp_get32(buf + V6_VTF) >> 20);
		l3->flow_label = ibp_get32(buf + V6_VTF) & FLOW_LABEL_MASK;
		l3->hop_limit = buf[V6_HLIM];
	} else {
		FAIL("IP version not 4 or 6");
	}

	if (iplen - iph < ROCE_UDP_HDR_BYTES)
		FAIL("truncated UDP header");
	udp = buf + iph;
	ulen = ibp_get16(udp + UDP_LEN);
	if (ulen != iplen - iph)
		FAIL("UDP length does not match IP length");
	if (ibp_get16(udp + UDP_DPORT) != ROCE_UDP_PORT)
		FAIL("UDP destination port not 4791");
	if (ulen < ROCE_UDP_HDR_BYTES + IBP_BTH_BYTES + ROCE_ICRC_BYTES)
		FAIL("UDP payload too short for BTH and ICRC");
	if (ibp_get16(udp + UDP_CSUM) && udp_csum_check(buf, v4, udp, ulen) != 0xffff)
		FAIL("bad UDP checksum");
	l3->sport = ibp_get16(udp + UDP_SPORT);
	*ib_off = iph + ROCE_UDP_HDR_BYTES;
	*ib_len = ulen - ROCE_UDP_HDR_BYTES - ROCE_ICRC_BYTES;
	return 0;
}

uint32_t roce_icrc(const uint8_t *ip, uint32_t len)
{
	static const uint8_t ones[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	/* Largest IP header (IPv4 with options) + UDP + BTH. */
	uint8_t hdr[60 + ROCE_UDP_HDR_BYTES + IBP_BTH_BYTES];
	uint32_t iph, n, crc;
	bool v4 = len && ip[0] >> 4 == 4;

	if (v4) {
		iph = (ip[V4_VER_IHL] & 0xfu) * 4;
		if (iph < ROCE_IPV4_HDR_BYTES)
			iph = ROCE_IPV4_HDR_BYTES;
	} else {
		iph = ROCE_IPV6_HDR_BYTES;
	}
	n = iph + ROCE_UDP_HDR_BYTES + IBP_BTH_BYTES;
	if (n > len)
		n = len;
	memcpy(hdr, ip, n);
	/* Mask the variant fields; a short packet masks what it has. */
#define MASK(at, bytes)                                                        \
	do {                                                                   \
		if ((at) + (bytes) <= n)                                       \
			memset(hdr + (at), 0xff, (bytes));                     \
	} while (0)
	if (v4) {
		MASK(V4_TOS, 1);
		MASK(V4_TTL, 1);
		MASK(V4_CSUM, 2);
	} else {
		if (n >= 4) {
			hdr[V6_VTF] |= 0x0f;	/* keep the version nibble */
			memset(hdr + V6_VTF + 1, 0xff, 3);
		}
		MASK(V6_HLIM, 1);
	}
	MASK(iph + UDP_CSUM, 2);
	MASK(iph + ROCE_UDP_HDR_BYTES + IBP_BTH_RESV8A, 1);
#undef MASK
	crc = crc32_gzip_refl(0, ones, sizeof(ones));
	crc = crc32_gzip_refl(crc, hdr, n);
	return crc32_gzip_refl(crc, ip + n, len - n);
}

void roce_icrc_set(uint8_t *ip, uint32_t len)
{
	uint32_t crc = roce_icrc(ip, len);

	ip[len] = (uint8_t)crc;
	ip[len + 1] = (uint8_t)(crc >> 8);
	ip[len + 2] = (uint8_t)(crc >> 16);
	ip[len + 3] = (uint8_t)(crc >> 24);
}

bool roce_icrc_ok(const uint8_t *ip, uint32_t len)
{
	const uint8_t *t;
	uint32_t crc;

	if (len < ROCE_ICRC_BYTES)
		return false;
	crc = roce_icrc(ip, len - ROCE_ICRC_BYTES);
	t = ip + len - ROCE_ICRC_BYTES;
	return crc == ((uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
		       (uint32_t)t[3] << 24);
}

uint16_t roce_sport_of_flow_label(uint32_t flow_label)
{
	uint32_t fl = flow_label & FLOW_LABEL_MASK;

	return (uint16_t)(((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000);
}

uint16_t roce_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn)
{
	uint32_t fl = flow_label & FLOW_LABEL_MASK;

	if (!fl) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)(v & FLOW_LABEL_MASK);
	}
	return roce_sport_of_flow_label(fl);
}
