/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the transport's packet parsers (src/device/transport).
 * Each input is tried twice: as a RoCEv2 packet from its IP header
 * (roce_parse, then ibp_parse of its IB part, roce_icrc_ok) and as a bare
 * IB packet from its BTH (ibp_parse). Seeds: the golden packets
 * (corpus-ib-pkt/, written by tests/unit/gen_golden_pkts.py), whole and
 * from the BTH.
 *
 * Invariants checked (abort = a finding):
 *   - what ibp_parse accepts, ibp_build writes back byte for byte (reserved
 *     bits aside), and the rebuilt packet parses to the same fields;
 *   - ibp_format never writes past its room and returns the same length
 *     whatever the room;
 *   - what roce_parse accepts, roce_build re-encapsulates (unless one GID
 *     is IPv4-mapped and the other not), and that packet parses to the
 *     same addresses, lengths and fields with a right ICRC.
 * ASan/UBSan catch reads past the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(c)                                                             \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "fuzz_ib_pkt: %s:%d: %s\n", __FILE__,  \
				__LINE__, #c);                                 \
			abort();                                               \
		}                                                              \
	} while (0)

static int same_fields(const struct ibp_hdr *a, const struct ibp_hdr *b)
{
	return a->opcode == b->opcode && a->se == b->se && a->mig == b->mig &&
	       a->pad == b->pad && a->pkey == b->pkey && a->resv8a == b->resv8a &&
	       a->dqpn == b->dqpn && a->ackreq == b->ackreq && a->psn == b->psn &&
	       a->xrc_srqn == b->xrc_srqn && a->dc_key == b->dc_key &&
	       a->dc_gen == b->dc_gen && a->dc_sqpn == b->dc_sqpn &&
	       a->qkey == b->qkey && a->src_qp == b->src_qp &&
	       a->va == b->va && a->rkey == b->rkey && a->dma_len == b->dma_len &&
	       a->swap_add == b->swap_add && a->compare == b->compare &&
	       a->syndrome == b->syndrome && a->msn == b->msn &&
	       a->atomic_orig == b->atomic_orig && a->imm == b->imm &&
	       a->ieth_rkey == b->ieth_rkey && a->hdr_len == b->hdr_len &&
	       a->paylen == b->paylen;
}

static void fuzz_format(const struct ibp_hdr *h)
{
	char big[512], small[16];
	int n;

	memset(small, 0x7e, sizeof(small));
	n = ibp_format(big, sizeof(big), h);
	REQUIRE(n > 0 && (size_t)n < sizeof(big) && strlen(big) == (size_t)n);
	REQUIRE(ibp_format(small, 9, h) == n);
	REQUIRE(strlen(small) == (n < 8 ? (size_t)n : 8) && small[9] == 0x7e);
	REQUIRE(ibp_format(NULL, 0, h) == n);
}

/* The input with the reserved fields the builder writes as 0 cleared. */
static void mask_reserved(uint8_t *p, const struct ibp_op *op)
{
	uint32_t off = IBP_BTH_BYTES;

	p[IBP_BTH_ACKREQ] &= IBP_BTH_ACKREQ_BIT;
	for (int i = 0; i < IBP_OP_MAX_HDRS && op->hdrs[i] != IBP_H_NONE; i++) {
		switch (op->hdrs[i]) {
		case IBP_H_XRCETH:
			p[off] = 0;
			break;
		case IBP_H_DETH:
			p[off + 4] = 0;
			break;
		case IBP_H_DCETH:
			memset(p + off + 12, 0, 4);
			break;
		default:
			break;
		}
		off += ibp_hdr_size(op->hdrs[i]);
	}
}

static void fuzz_ib(const uint8_t *buf, uint32_t len)
{
	uint8_t out[IBP_MAX_HDR_LEN + IBP_MAX_PAYLOAD + 4], want[IBP_MAX_HDR_LEN];
	struct ibp_hdr h, h2;
	const char *why = NULL;
	uint32_t hl;

	if (ibp_parse(buf, len, &h, &why)) {
		REQUIRE(why && *why);
		return;
	}
	REQUIRE(h.hdr_len <= IBP_MAX_HDR_LEN && h.hdr_len + h.paylen + h.pad == len);
	REQUIRE(h.payload == buf + h.hdr_len && h.pad == ibp_pad(h.paylen));
	fuzz_format(&h);

	hl = ibp_build(out, sizeof(out), &h);
	REQUIRE(hl == h.hdr_len);
	REQUIRE(ibp_build(out, hl - 1, &h) == 0);
	memcpy(want, buf, hl);
	mask_reserved(want, ibp_op(h.opcode));
	REQUIRE(memcmp(out, want, hl) == 0);
	memcpy(out + hl, h.payload, h.paylen + h.pad);
	REQUIRE(ibp_parse(out, len, &h2, &why) == 0);
	REQUIRE(same_fields(&h, &h2));
}

static void fuzz_roce(const uint8_t *buf, uint32_t len)
{
	static uint8_t out[ROCE_V6_HDR_LEN + 65536];
	struct roce_l3 l3, l3b;
	uint32_t off, ib_len, off2, ib_len2, hl;
	const char *why = NULL;
	bool v4;

	(void)roce_icrc(buf, len);
	if (roce_parse(buf, len, &l3, &off, &ib_len, &why)) {
		REQUIRE(why && *why);
		return;
	}
	REQUIRE(off + ib_len + ROCE_ICRC_BYTES <= len && ib_len >= IBP_BTH_BYTES);
	(void)roce_icrc_ok(buf, off + ib_len + ROCE_ICRC_BYTES);
	fuzz_ib(buf + off, ib_len);

	hl = roce_build(out, sizeof(out), &l3, ib_len);
	v4 = roce_gid_is_v4(l3.sgid);
	if (v4 != roce_gid_is_v4(l3.dgid)) {
		REQUIRE(hl == 0);
		return;
	}
	REQUIRE(hl == (v4 ? ROCE_V4_HDR_LEN : ROCE_V6_HDR_LEN));
	memcpy(out + hl, buf + off, ib_len);
	roce_icrc_set(out, hl + ib_len);
	REQUIRE(roce_icrc_ok(out, hl + ib_len + ROCE_ICRC_BYTES));
	REQUIRE(roce_parse(out, hl + ib_len + ROCE_ICRC_BYTES, &l3b, &off2, &ib_len2, &why) == 0);
	REQUIRE(off2 == hl && ib_len2 == ib_len);
	REQUIRE(!memcmp(l3.sgid, l3b.sgid, 16) && !memcmp(l3.dgid, l3b.dgid, 16));
	REQUIRE(l3.tclass == l3b.tclass && l3.hop_limit == l3b.hop_limit &&
		l3.sport == l3b.sport && l3.ip_id == l3b.ip_id);
	/* an IPv6 packet between mapped GIDs comes back as IPv4: no flow label */
	REQUIRE(l3b.flow_label == (v4 ? 0 : l3.flow_label));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 70000)
		return 0;
	fuzz_roce(data, (uint32_t)size);
	fuzz_ib(data, (uint32_t)size);
	return 0;
}
