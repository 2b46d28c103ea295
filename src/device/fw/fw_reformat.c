/* SPDX-License-Identifier: MIT */
/*
 * Packet reformat contexts: ALLOC/DEALLOC_PACKET_REFORMAT_CONTEXT. A
 * context holds the header bytes a NIC transmit flow entry with action
 * PACKET_REFORMAT (flow_context.packet_reformat_id) puts in front of every
 * frame it matches (fw_flow.c).
 *
 * Only reformat_type L2_TO_L2_TUNNEL is supported: the data is a complete
 * outer header (Ethernet, optional VLAN tags, IPv4 or IPv6, UDP, the tunnel
 * header, e.g. VXLAN) of 14 to max_encap_header_size bytes. The device
 * prepends it as given and then fixes what depends on the frame it wraps,
 * as hardware does: IPv4 total length and header checksum, IPv6 payload
 * length, UDP length, UDP checksum 0. The other types (the L3 tunnels,
 * VXLAN/NVGRE templates) are refused.
 *
 * Decapsulation needs no context: NIC RX entries take action DECAP
 * (fw_flow.c) and the engine strips VXLAN outer headers (eng_eth.c).
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

#define FW_PR_ETH_HLEN 14

int fw_pr_alloc(struct fw_cmd *c)
{
	uint32_t type = IN_GET(alloc_packet_reformat_context_in,
			       packet_reformat_context.reformat_type);
	uint32_t size = IN_GET(alloc_packet_reformat_context_in,
			       packet_reformat_context.reformat_data_size);
	size_t at = DEVX_BYTE_OFF(alloc_packet_reformat_context_in,
				  packet_reformat_context.reformat_data);
	struct fw_pr *pr;

	if (type != MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL)
		return FW_FAIL(c, BAD_PARAM_ERR, "packet reformat: reformat_type "
			       "%u: only L2_TO_L2_TUNNEL (2) is supported", type);
	if (IN_GET(alloc_packet_reformat_context_in,
		   packet_reformat_context.reformat_param_0) ||
	    IN_GET(alloc_packet_reformat_context_in,
		   packet_reformat_context.reformat_param_1))
		return FW_FAIL(c, BAD_PARAM_ERR, "packet reformat: reformat_param_0/1 "
			       "are not used by L2_TO_L2_TUNNEL and must be 0");
	if (size < FW_PR_ETH_HLEN || size > FW_PR_MAX_HDR)
		return FW_FAIL(c, BAD_PARAM_ERR, "packet reformat: %u header bytes: "
			       "an Ethernet header (14) up to max_encap_header_size "
			       "(%u)", size, FW_PR_MAX_HDR);
	if (c->inlen < at || c->inlen - at < size)
		return FW_FAIL(c, BAD_INP_LEN_ERR, "packet reformat: %u header "
			       "bytes do not fit the %zu-byte input mailbox", size,
			       c->inlen);
	pr = calloc(1, sizeof(*pr) + size);
	if (!pr)
		return FW_FAIL(c, NO_RES_ERR, "packet reformat: out of memory");
	pr->type = type;
	pr->size = size;
	memcpy(pr->data, (const uint8_t *)c->in + at, size);
	if (fw_table_add(&c->fw->pr, &pr->obj)) {
		free(pr);
		return FW_FAIL(c, NO_RES_ERR, "packet reformat: all %u numbers are "
			       "in use", c->fw->pr.limit);
	}
	if (fw_obj_own(c, &pr->obj, "packet reformat")) {
		fw_table_del(&c->fw->pr, pr->obj.id);
		free(pr);
		return -1;
	}
	OUT_SET(alloc_packet_reformat_context_out, packet_reformat_id, pr->obj.id);
	return 0;
}

int fw_pr_dealloc(struct fw_cmd *c)
{
	struct fw_pr *pr = FW_GET(c, pr, IN_GET(dealloc_packet_reformat_context_in,
					       packet_reformat_id),
				  "DEALLOC_PACKET_REFORMAT_CONTEXT");

	if (!pr)
		return -1;
	if (pr->obj.refs)
		return FW_FAIL(c, RES_BUSY, "packet reformat 0x%x is still used by "
			       "%u flow table entries", pr->obj.id, pr->obj.refs);
	fw_table_del(&c->fw->pr, pr->obj.id);
	fw_obj_disown(c->fw, &pr->obj);
	free(pr);
	return 0;
}

static void fw_pr_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* RFC 1071 checksum of an IPv4 header whose checksum field is 0. */
static uint16_t fw_pr_ip_csum(const uint8_t *ip, uint32_t ihl)
{
	uint32_t sum = 0;

	for (uint32_t i = 0; i + 1 < ihl; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * The lengths and checksum of the outer header just prepended (the first
 * @pr->size bytes of the @len-byte frame @f). Only fields inside the
 * context's own bytes are touched: a header the parser does not know is
 * left as given.
 */
static void fw_pr_fix(const struct fw_pr *pr, uint8_t *f, uint32_t len)
{
	uint32_t n = pr->size, off = 12, l4 = 0;
	uint16_t et = (uint16_t)(f[12] << 8 | f[13]);
	uint8_t proto = 0;

	for (int tags = 0; (et == 0x8100 || et == 0x88a8) && tags < 2 &&
	     off + 6 <= n; tags++) {
		off += 4;
		et = (uint16_t)(f[off] << 8 | f[off + 1]);
	}
	off += 2;
	if (et == 0x0800 && off + 20 <= n && (f[off] >> 4) == 4) {
		uint32_t ihl = (f[off] & 0xf) * 4u;

		if (ihl < 20 || off + ihl > n)
			return;
		fw_pr_put16(f + off + 2, len - off);
		f[off + 10] = f[off + 11] = 0;
		fw_pr_put16(f + off + 10, fw_pr_ip_csum(f + off, ihl));
		proto = f[off + 9];
		l4 = off + ihl;
	} else if (et == 0x86dd && off + 40 <= n && (f[off] >> 4) == 6) {
		fw_pr_put16(f + off + 4, len - off - 40);
		proto = f[off + 6];
		l4 = off + 40;
	}
	if (l4 && proto == 17 && l4 + 8 <= n) {
		fw_pr_put16(f + l4 + 4, len - l4);
		f[l4 + 6] = f[l4 + 7] = 0;	/* no UDP checksum, as tunnels send */
	}
}

bool fw_pr_encap(const struct fw_pr *pr, uint8_t *f, uint32_t *len, uint32_t cap)
{
	if (*len > cap || pr->size > cap - *len)
		return false;
	memmove(f + pr->size, f, *len);
	memcpy(f, pr->data, pr->size);
	*len += pr->size;
	fw_pr_fix(pr, f, *len);
	return true;
}
