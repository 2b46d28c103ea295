/* SPDX-License-Identifier: MIT */
/*
 * src/device/transport: the IBTA header parser/builder (ib_pkt.c) and
 * RoCEv2 encapsulation + ICRC (roce.c), against golden packets made by
 * scapy / struct.pack + zlib.crc32 (golden_pkt.h), and every structural
 * check on malformed packets. Truncated inputs are exact-size heap copies,
 * so the ASan build catches any read past the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_pkt.h"
#include "smx_test.h"

#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"

static uint8_t *dup_n(const uint8_t *p, uint32_t n)
{
	uint8_t *d = malloc(n ? n : 1);

	if (!d)
		abort();
	memcpy(d, p, n);
	return d;
}

/* Test-side IPv4 header checksum (not roce.c's). */
static void fix_ip4_csum(uint8_t *ip)
{
	uint32_t sum = 0;
	int i;

	ip[10] = ip[11] = 0;
	for (i = 0; i < (ip[0] & 15) * 4; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	ip[10] = (uint8_t)(sum >> 8);
	ip[11] = (uint8_t)sum;
}

static void check_fields(const char *name, const struct ibp_hdr *a, const struct ibp_hdr *e)
{
#define F(f) CHECKM(a->f == e->f, "%s: " #f " 0x%llx, expected 0x%llx", name, \
		    (unsigned long long)a->f, (unsigned long long)e->f)
	F(opcode); F(se); F(mig); F(pad); F(pkey); F(resv8a); F(dqpn); F(ackreq);
	F(psn); F(xrc_srqn); F(dc_key); F(dc_gen); F(dc_sqpn); F(qkey); F(src_qp); F(va);
	F(rkey); F(dma_len); F(swap_add); F(compare); F(syndrome); F(msn);
	F(atomic_orig); F(ieth_rkey); F(hdr_len); F(paylen);
#undef F
}

static void check_l3(const char *name, const struct roce_l3 *a, const struct roce_l3 *e)
{
	CHECKM(!memcmp(a->sgid, e->sgid, 16), "%s: sgid", name);
	CHECKM(!memcmp(a->dgid, e->dgid, 16), "%s: dgid", name);
	CHECKM(a->tclass == e->tclass, "%s: tclass %#x", name, a->tclass);
	CHECKM(a->hop_limit == e->hop_limit, "%s: hop_limit %u", name, a->hop_limit);
	CHECKM(a->flow_label == e->flow_label, "%s: flow_label %#x", name, a->flow_label);
	CHECKM(a->sport == e->sport, "%s: sport %#x", name, a->sport);
	CHECKM(a->ip_id == e->ip_id, "%s: ip_id %#x", name, a->ip_id);
}

/* Parse, ICRC, build and format one golden packet. */
static void test_golden(const struct golden_pkt *g)
{
	struct roce_l3 l3;
	struct ibp_hdr h, b;
	uint32_t ib_off = 0, ib_len = 0, hl, il, icrc;
	const char *why = NULL;
	uint8_t buf[2048], *ib;
	char line[512], small[8];
	int n;

	/* parse */
	CHECKM(roce_parse(g->pkt, g->len, &l3, &ib_off, &ib_len, &why) == 0, "%s: %s",
	       g->name, why);
	CHECK_EQ(ib_off, g->ib_off);
	CHECK_EQ(ib_len, g->len - g->ib_off - ROCE_ICRC_BYTES);
	check_l3(g->name, &l3, &g->l3);
	CHECKM(roce_icrc_ok(g->pkt, g->len), "%s: ICRC", g->name);
	icrc = roce_icrc(g->pkt, g->len - 4);
	CHECKM(!memcmp(&(uint8_t[4]){ (uint8_t)icrc, (uint8_t)(icrc >> 8),
				     (uint8_t)(icrc >> 16), (uint8_t)(icrc >> 24) },
		       g->pkt + g->len - 4, 4), "%s: ICRC bytes (little-endian)", g->name);

	ib = dup_n(g->pkt + ib_off, ib_len);
	why = NULL;
	CHECKM(ibp_parse(ib, ib_len, &h, &why) == 0, "%s: %s", g->name, why);
	check_fields(g->name, &h, &g->h);
	CHECK(h.payload == ib + g->h.hdr_len);
	if (g->has_imm)
		CHECKM(!memcmp(&h.imm, g->imm, 4), "%s: imm", g->name);
	else
		CHECK_EQ(h.imm, 0);
	CHECK(ibp_op(h.opcode) && ibp_op(h.opcode)->hdr_len == g->h.hdr_len);

	/* build the same packet from the fields */
	memset(buf, 0xa5, sizeof(buf));
	b = g->h;
	if (g->has_imm)
		memcpy(&b.imm, g->imm, 4);
	b.pad = 0;	/* computed from paylen */
	hl = roce_build(buf, sizeof(buf), &g->l3, ib_len);
	CHECK_EQ(hl, g->ib_off);
	il = ibp_build(buf + hl, sizeof(buf) - hl, &b);
	CHECK_EQ(il, g->h.hdr_len);
	memcpy(buf + hl + il, h.payload, h.paylen);
	memset(buf + hl + il + h.paylen, 0, ibp_pad(h.paylen));
	CHECK_EQ(il + h.paylen + ibp_pad(h.paylen), ib_len);
	roce_icrc_set(buf, g->len - 4);
	if (g->udp_csum) {
		/* Ours is 0; the ICRC does not cover it. */
		CHECK(buf[g->ib_off - 2] == 0 && buf[g->ib_off - 1] == 0);
		memcpy(buf + g->ib_off - 2, g->pkt + g->ib_off - 2, 2);
	}
	CHECKM(!memcmp(buf, g->pkt, g->len), "%s: built bytes differ from golden", g->name);
	if (memcmp(buf, g->pkt, g->len)) {
		for (uint32_t i = 0; i < g->len; i++)
			if (buf[i] != g->pkt[i])
				fprintf(stderr, "    byte %u: 0x%02x, golden 0x%02x\n", i, buf[i],
					g->pkt[i]);
	}
	/* room one byte short */
	CHECK_EQ(roce_build(buf, hl - 1, &g->l3, ib_len), 0);
	CHECK_EQ(ibp_build(buf, il - 1, &b), 0);

	/* format */
	n = ibp_format(line, sizeof(line), &h);
	CHECKM(n > 0 && (size_t)n < sizeof(line) && strstr(line, ibp_op(h.opcode)->name) == line,
	       "%s: format \"%s\"", g->name, line);
	CHECK(strstr(line, "psn 0x") != NULL);
	CHECK_EQ(ibp_format(small, sizeof(small), &h), n);
	CHECK_EQ(strlen(small), sizeof(small) - 1);
	CHECK_EQ(ibp_format(NULL, 0, &h), n);

	/* every truncation of the IP packet fails roce_parse */
	for (uint32_t l = 0; l < g->len; l++) {
		uint8_t *t = dup_n(g->pkt, l);

		CHECKM(roce_parse(t, l, &l3, &ib_off, &ib_len, &why) == -1,
		       "%s: truncated to %u parsed", g->name, l);
		(void)roce_icrc_ok(t, l);	/* must not read past l */
		free(t);
	}
	/* every truncation of the IB packet: headers cut short fail; beyond
	 * them, the result is a shorter payload or a named failure */
	for (uint32_t l = 0; l < g->h.hdr_len + h.paylen + h.pad; l++) {
		uint8_t *t = dup_n(ib, l);
		int r = ibp_parse(t, l, &b, &why);

		if (l < g->h.hdr_len) {
			CHECKM(r == -1 && strstr(why, "truncated"), "%s: IB cut to %u: %s",
			       g->name, l, r ? why : "parsed");
		} else if (l & 3) {
			CHECKM(r == -1 && !strcmp(why, "length not a multiple of 4"),
			       "%s: IB cut to %u: %s", g->name, l, r ? why : "parsed");
		} else if (r == 0) {
			CHECK_EQ(b.paylen + b.pad, l - g->h.hdr_len);
		} else {
			CHECKM(!strcmp(why, "pad exceeds payload"), "%s: IB cut to %u: %s",
			       g->name, l, why);
		}
		free(t);
	}
	free(ib);
}

/* A writable copy of golden packet `name`. */
static const struct golden_pkt *find(const char *name)
{
	for (size_t i = 0; i < GOLDEN_COUNT; i++)
		if (!strcmp(golden[i].name, name))
			return &golden[i];
	fprintf(stderr, "no golden packet %s\n", name);
	abort();
}

static int parse_ib(const uint8_t *p, uint32_t len, const char **why)
{
	struct ibp_hdr h;
	uint8_t *t = dup_n(p, len);
	int r;

	*why = "(parsed)";
	r = ibp_parse(t, len, &h, why);
	free(t);
	return r;
}

#define CHECK_WHY(r, why, want)                                                \
	CHECKM((r) == -1 && !strcmp((why), (want)), "got \"%s\", want \"%s\"", \
	       (why), (want))

static void test_ib_negative(void)
{
	const struct golden_pkt *g = find("rc_send_only");
	const struct golden_pkt *rd = find("rc_read_req");
	const struct golden_pkt *ack = find("rc_ack");
	const struct golden_pkt *ro = find("rc_read_resp_only");
	uint8_t p[IBP_MAX_HDR_LEN + IBP_MAX_PAYLOAD + 16];
	uint32_t len = g->len - g->ib_off - 4;
	static const uint8_t unknown[] = { 0x15, 0x18, 0x1c, 0x1e, 0x1f, 0x2c, 0x30, 0x3f,
					   0x40, 0x44, 0x60, 0x63, 0x66, 0x81, 0x9f, 0xb5,
					   0xbd, 0xc0, 0xed, 0xf1, 0xf2, 0xf5, 0xfd, 0xff };
	const char *why;
	struct ibp_hdr h;
	char want[32];

	/* TVer */
	for (int v = 1; v < 16; v++) {
		memcpy(p, g->pkt + g->ib_off, len);
		p[1] |= (uint8_t)v;
		CHECK_WHY(parse_ib(p, len, &why), why, "TVer != 0");
	}
	/* unknown opcodes name themselves */
	for (size_t i = 0; i < sizeof(unknown); i++) {
		memcpy(p, g->pkt + g->ib_off, len);
		p[0] = unknown[i];
		snprintf(want, sizeof(want), "unknown opcode 0x%02x", unknown[i]);
		CHECK_WHY(parse_ib(p, len, &why), why, want);
		CHECK(ibp_op(unknown[i]) == NULL);
	}
	/* pad larger than what follows the headers */
	len = rd->len - rd->ib_off - 4;
	for (int pad = 1; pad < 4; pad++) {
		memcpy(p, rd->pkt + rd->ib_off, len);
		p[1] |= (uint8_t)(pad << 4);
		CHECK_WHY(parse_ib(p, len, &why), why, "pad exceeds payload");
	}
	len = ro->len - ro->ib_off - 4;
	memcpy(p, ro->pkt + ro->ib_off, len);
	p[1] |= 3 << 4;
	CHECK_WHY(parse_ib(p, len, &why), why, "pad exceeds payload");
	/* a pad that shortens the payload is structurally fine */
	len = g->len - g->ib_off - 4;
	memcpy(p, g->pkt + g->ib_off, len);
	p[1] &= (uint8_t)~0x30;
	CHECK(ibp_parse(p, len, &h, &why) == 0 && h.paylen == 16);
	/* payload on opcodes that carry none */
	len = ack->len - ack->ib_off - 4;
	memcpy(p, ack->pkt + ack->ib_off, len);
	memset(p + len, 0, 4);
	CHECK_WHY(parse_ib(p, len + 4, &why), why, "payload on an opcode that carries none");
	len = rd->len - rd->ib_off - 4;
	memcpy(p, rd->pkt + rd->ib_off, len);
	memset(p + len, 0, 4);
	p[1] |= 1 << 4;	/* 3 bytes + pad 1 */
	CHECK_WHY(parse_ib(p, len + 4, &why), why, "payload on an opcode that carries none");
	/* length */
	len = g->len - g->ib_off - 4;
	memcpy(p, g->pkt + g->ib_off, len);
	CHECK_WHY(parse_ib(p, len - 1, &why), why, "length not a multiple of 4");
	/* IBP_MAX_PAYLOAD is the limit */
	memset(&h, 0, sizeof(h));
	h.opcode = IBP_TR_RC | IBP_OP_SEND_ONLY;
	h.pkey = 0xffff;
	h.paylen = IBP_MAX_PAYLOAD;
	CHECK_EQ(ibp_build(p, sizeof(p), &h), 12);
	memset(p + 12, 0x5a, IBP_MAX_PAYLOAD + 4);
	CHECK(ibp_parse(p, 12 + IBP_MAX_PAYLOAD, &h, &why) == 0 && h.paylen == IBP_MAX_PAYLOAD);
	CHECK_WHY(parse_ib(p, 12 + IBP_MAX_PAYLOAD + 4, &why), why, "packet too long");
	/* ATOMIC WRITE: described, flagged, exactly 8 bytes */
	memset(&h, 0, sizeof(h));
	h.opcode = IBP_TR_RC | IBP_OP_ATOMIC_WRITE;
	h.paylen = 8;
	CHECK_EQ(ibp_build(p, sizeof(p), &h), 28);
	CHECK(ibp_parse(p, 28 + 8, &h, &why) == 0 && h.paylen == 8);
	CHECK_WHY(parse_ib(p, 28 + 4, &why), why, "ATOMIC WRITE payload not 8 bytes");
	CHECK(ibp_op(0x1d)->flags & IBP_OF_UNSUPPORTED);
	/* unknown opcode: nothing built */
	h.opcode = 0x15;
	CHECK_EQ(ibp_build(p, sizeof(p), &h), 0);
	/* each extended header, cut: names it */
	{
		static const struct { const char *pkt; uint32_t cut; const char *why; } cuts[] = {
			{ "rc_read_req", 16, "RETH truncated" },
			{ "rc_ack", 12, "AETH truncated" },
			{ "rc_atomic_ack", 16, "AtomicAckETH truncated" },
			{ "rc_cmp_swap", 36, "AtomicETH truncated" },
			{ "rc_send_last_imm", 12, "ImmDt truncated" },
			{ "rc_send_only_inv", 12, "IETH truncated" },
			{ "ud_send_only_imm", 16, "DETH truncated" },
			{ "ud_send_only_imm", 20, "ImmDt truncated" },
			{ "xrc_send_only", 12, "XRCETH truncated" },
			{ "dc_send_only", 24, "DCETH truncated" },
			{ "dc_read_req", 40, "RETH truncated" },
			{ "rc_send_only", 8, "truncated BTH" },
		};
		for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			const struct golden_pkt *c = find(cuts[i].pkt);

			CHECK_WHY(parse_ib(c->pkt + c->ib_off, cuts[i].cut, &why), why,
				  cuts[i].why);
		}
	}
}

static void test_roce_negative(void)
{
	const struct golden_pkt *g4 = find("rc_send_only");
	const struct golden_pkt *g6 = find("rc_nak_seq");
	const struct golden_pkt *gc = find("rc_send_only_udp_csum");
	const struct golden_pkt *gb = find("rc_ack_credits");
	uint8_t p[4200];
	struct roce_l3 l3, mixed;
	uint32_t off, len;
	const char *why;

#define RP(buf, n) roce_parse((buf), (n), &l3, &off, &len, &why)
	/* IP version, IHL */
	memcpy(p, g4->pkt, g4->len);
	p[0] = 0x55;
	CHECK_WHY(RP(p, g4->len), why, "IP version not 4 or 6");
	memcpy(p, g4->pkt, g4->len);
	p[0] = 0x44;
	fix_ip4_csum(p);
	CHECK_WHY(RP(p, g4->len), why, "IPv4 IHL < 5");
	/* IPv4 header checksum: every bit of the header is covered */
	for (int i = 0; i < 20 * 8; i++) {
		memcpy(p, g4->pkt, g4->len);
		p[i / 8] ^= (uint8_t)(1 << (i % 8));
		if (i / 8 == 0 && ((p[0] >> 4) != 4 || (p[0] & 15) < 5))
			continue;	/* caught earlier, by version or IHL */
		if (i / 8 == 0 && (p[0] & 15) * 4 > g4->len)
			continue;
		CHECKM(RP(p, g4->len) == -1, "IPv4 bit %d flipped parsed", i);
	}
	memcpy(p, g4->pkt, g4->len);
	p[11] ^= 1;
	CHECK_WHY(RP(p, g4->len), why, "bad IPv4 header checksum");
	/* fragments, protocol */
	memcpy(p, g4->pkt, g4->len);
	p[6] |= 0x20;
	fix_ip4_csum(p);
	CHECK_WHY(RP(p, g4->len), why, "IPv4 fragment");
	memcpy(p, g4->pkt, g4->len);
	p[7] = 8;
	fix_ip4_csum(p);
	CHECK_WHY(RP(p, g4->len), why, "IPv4 fragment");
	memcpy(p, g4->pkt, g4->len);
	p[9] = 6;
	fix_ip4_csum(p);
	CHECK_WHY(RP(p, g4->len), why, "IPv4 protocol not UDP");
	memcpy(p, g6->pkt, g6->len);
	p[6] = 0;	/* hop-by-hop options */
	CHECK_WHY(RP(p, g6->len), why, "IPv6 next header not UDP");
	/* lengths */
	memcpy(p, g4->pkt, g4->len);
	p[3] += 4;
	fix_ip4_csum(p);
	CHECK_WHY(RP(p, g4->len), why, "IPv4 total length exceeds packet");
	CHECK_WHY(RP(p, g4->len), why, "IPv4 total length exceeds packet");
	memcpy(p, g4->pkt, g4->len);
	p[2] = 0;
	p[3] = 16;
	fix_ip4_csum(p);
	CHECK_WHY(RP(p, g4->len), why, "IPv4 total length shorter than header");
	memcpy(p, g4->pkt, g4->len);
	p[3] -= 4;
	fix_ip4_csum(p);
	CHECK_WHY(RP(p, g4->len), why, "UDP length does not match IP length");
	memcpy(p, g6->pkt, g6->len);
	p[5] += 4;
	CHECK_WHY(RP(p, g6->len), why, "IPv6 payload length exceeds packet");
	memcpy(p, g6->pkt, g6->len);
	p[45] += 4;
	CHECK_WHY(RP(p, g6->len), why, "UDP length does not match IP length");
	/* a short datagram, lengths consistent */
	memcpy(p, g6->pkt, 40 + 8 + 12);
	p[4] = 0;
	p[5] = 8 + 12;
	p[44] = 0;
	p[45] = 8 + 12;
	CHECK_WHY(RP(p, 60), why, "UDP payload too short for BTH and ICRC");
	p[5] = p[45] = 4;
	CHECK_WHY(RP(p, 60), why, "truncated UDP header");
	/* Ethernet padding after an IPv4 packet is ignored */
	memcpy(p, g4->pkt, g4->len);
	memset(p + g4->len, 0, 6);
	CHECK(RP(p, g4->len + 6) == 0 && off == 28 && len == g4->len - 32);
	/* UDP port */
	memcpy(p, g4->pkt, g4->len);
	p[23] ^= 1;
	CHECK_WHY(RP(p, g4->len), why, "UDP destination port not 4791");
	memcpy(p, g6->pkt, g6->len);
	p[43] = 0xb8;
	CHECK_WHY(RP(p, g6->len), why, "UDP destination port not 4791");
	/* UDP checksum: 0 accepted, a right one accepted, a wrong one not */
	CHECK(RP(gc->pkt, gc->len) == 0);
	memcpy(p, gc->pkt, gc->len);
	p[27] ^= 0x10;
	CHECK_WHY(RP(p, gc->len), why, "bad UDP checksum");
	CHECK(roce_icrc_ok(p, gc->len));	/* the ICRC does not cover it */
	memcpy(p, gc->pkt, gc->len);
	p[40] ^= 0x01;	/* payload */
	CHECK_WHY(RP(p, gc->len), why, "bad UDP checksum");
	memcpy(p, g6->pkt, g6->len);
	p[46] = 0x12;
	CHECK_WHY(RP(p, g6->len), why, "bad UDP checksum");

	/* ICRC: any bit of the covered bytes or the ICRC itself */
	for (uint32_t i = 0; i < g4->len * 8; i++) {
		uint32_t at = i / 8;
		bool masked = at == 1 || at == 8 || at == 10 || at == 11 || at == 26 ||
			      at == 27 || at == 32;

		memcpy(p, g4->pkt, g4->len);
		p[at] ^= (uint8_t)(1 << (i % 8));
		CHECKM(roce_icrc_ok(p, g4->len) == masked, "IPv4 byte %u bit %u", at, i % 8);
	}
	for (uint32_t i = 0; i < g6->len * 8; i++) {
		uint32_t at = i / 8;
		bool masked = (at == 0 && i % 8 < 4) || at == 1 || at == 2 || at == 3 ||
			      at == 7 || at == 46 || at == 47 || at == 52;

		memcpy(p, g6->pkt, g6->len);
		p[at] ^= (uint8_t)(1 << (i % 8));
		CHECKM(roce_icrc_ok(p, g6->len) == masked, "IPv6 byte %u bit %u", at, i % 8);
	}
	/* FECN/BECN set on the golden: same ICRC as with byte 4 clear */
	memcpy(p, gb->pkt, gb->len);
	CHECK(p[32] == 0x40);
	p[32] = 0;
	CHECK(roce_icrc_ok(p, gb->len));
	CHECK(!roce_icrc_ok(p, 3));

	/* build refuses a v4/v6 mix */
	mixed = g4->l3;
	memcpy(mixed.dgid, g6->l3.dgid, 16);
	CHECK_EQ(roce_build(p, sizeof(p), &mixed, 16), 0);
	CHECK_EQ(roce_build(p, sizeof(p), &g4->l3, 70000), 0);
	/* largest IB packet each IP length field holds */
	CHECK_EQ(roce_build(p, sizeof(p), &g4->l3, 65535 - 20 - 8 - 4), 28);
	CHECK(p[2] == 0xff && p[3] == 0xff);
	CHECK_EQ(roce_build(p, sizeof(p), &g4->l3, 65535 - 20 - 8 - 4 + 1), 0);
	CHECK_EQ(roce_build(p, sizeof(p), &g6->l3, 65535 - 8 - 4), 48);
	CHECK(p[4] == 0xff && p[5] == 0xff);
	CHECK_EQ(roce_build(p, sizeof(p), &g6->l3, 65535 - 8 - 4 + 1), 0);
#undef RP
}

static void test_op_table(void)
{
	unsigned int known = 0, max_hdr = 0;

	for (unsigned int op = 0; op < 256; op++) {
		const struct ibp_op *o = ibp_op((uint8_t)op);
		uint32_t t = op & 0xe0, x = op & 0x1f, sum = 12;
		bool want;

		switch (t) {
		case IBP_TR_RC:
			want = x <= 0x14 || x == 0x16 || x == 0x17 || x == 0x1d;
			break;
		case IBP_TR_XRC:
			want = x <= 0x14 || x == 0x16 || x == 0x17;
			break;
		case IBP_TR_UC:
			want = x <= 0x0b;
			break;
		case IBP_TR_UD:
			want = x == 4 || x == 5;
			break;
		case IBP_TR_DC:	/* requests only */
			want = x <= 0x0c || x == 0x13 || x == 0x14 || x == 0x16 || x == 0x17;
			break;
		default:
			want = false;
		}
		CHECKM(!!o == want, "opcode 0x%02x known %d", op, !!o);
		if (!o)
			continue;
		known++;
		CHECK(o == &ibp_op_info[op]);
		CHECK_EQ(o->transport, t);
		CHECKM(!!(o->flags & IBP_OF_REQ) != !!(o->flags & IBP_OF_RESP),
		       "opcode 0x%02x: exactly one of REQ / RESP", op);
		CHECK((o->flags & IBP_OF_MIDDLE) ? !(o->flags & IBP_OF_ONLY) :
						   (o->flags & (IBP_OF_FIRST | IBP_OF_LAST)) != 0);
		for (int i = 0; i < IBP_OP_MAX_HDRS && o->hdrs[i]; i++)
			sum += ibp_hdr_size(o->hdrs[i]);
		CHECKM(o->hdr_len == sum, "opcode 0x%02x hdr_len %u, headers sum %u", op,
		       o->hdr_len, sum);
		CHECKM(o->hdr_len <= IBP_MAX_HDR_LEN, "opcode 0x%02x hdr_len %u > max", op,
		       o->hdr_len);
		max_hdr = o->hdr_len > max_hdr ? o->hdr_len : max_hdr;
		CHECK(!strncmp(o->name, t == IBP_TR_RC ? "RC " : t == IBP_TR_UC ? "UC " :
			       t == IBP_TR_UD ? "UD " : t == IBP_TR_XRC ? "XRC " : "DC ",
			       t == IBP_TR_XRC ? 4 : 3));
		if (t == IBP_TR_XRC || t == IBP_TR_DC)
			CHECKM((o->hdrs[0] == (t == IBP_TR_XRC ? IBP_H_XRCETH : IBP_H_DCETH)) ==
			       !!(o->flags & IBP_OF_REQ), "opcode 0x%02x: XRCETH/DCETH first", op);
		if (o->flags & IBP_OF_IMM)
			CHECK(o->hdrs[0] == IBP_H_IMMDT || o->hdrs[1] == IBP_H_IMMDT ||
			      o->hdrs[2] == IBP_H_IMMDT);
		if (t != IBP_TR_RC && (x == 0x13 || x == 0x14))
			CHECK(o->flags & IBP_OF_ATOMIC);
	}
	/* RC 24 (with ATOMIC WRITE), UC 12, UD 2, XRC 23, DC 17 */
	CHECK_EQ(known, 24 + 12 + 2 + 23 + 17);
	CHECK_EQ(max_hdr, IBP_MAX_HDR_LEN);
	CHECK(!strcmp(ibp_op(0x04)->name, "RC SEND Only"));
	CHECK(!strcmp(ibp_op(0x65)->name, "UD SEND only with Immediate"));
	CHECK(!strcmp(ibp_op(0xb1)->name, "XRC Acknowledge"));
	CHECK(!strcmp(ibp_op(0xec)->name, "DC RDMA READ Request"));
	CHECK_EQ(ibp_op(0x0b)->flags, IBP_OF_REQ | IBP_OF_ONLY | IBP_OF_WRITE |
				      IBP_OF_PAYLOAD | IBP_OF_IMM);
	CHECK_EQ(ibp_op(0x12)->flags, IBP_OF_RESP | IBP_OF_ONLY | IBP_OF_ATOMIC_ACK);
	CHECK_EQ(ibp_op(0x0e)->flags, IBP_OF_RESP | IBP_OF_MIDDLE | IBP_OF_READ_RESP |
				      IBP_OF_PAYLOAD);
	CHECK_EQ(ibp_op(0xf7)->hdr_len, 12 + 16 + 4);
	CHECK(ibp_op(0x17)->flags & IBP_OF_INV);
	CHECK(!strcmp(ibp_hdr_name(IBP_H_ATOMICACKETH), "AtomicAckETH"));
}

static void test_helpers(void)
{
	CHECK_EQ(ibp_pad(0), 0);
	CHECK_EQ(ibp_pad(1), 3);
	CHECK_EQ(ibp_pad(2), 2);
	CHECK_EQ(ibp_pad(3), 1);
	CHECK_EQ(ibp_pad(4096), 0);
	CHECK_EQ(ibp_aeth_ack(IBP_AETH_CREDIT_INVALID), 0x1f);
	CHECK_EQ(ibp_aeth_ack(3), 0x03);
	CHECK_EQ(ibp_aeth_rnr_nak(14), 0x2e);
	CHECK_EQ(ibp_aeth_rnr_nak(0x3f), 0x3f);
	CHECK(ibp_aeth_is_ack(0x1f) && !ibp_aeth_is_nak(0x1f) && !ibp_aeth_is_rnr_nak(0x1f));
	CHECK(ibp_aeth_is_rnr_nak(0x2e) && ibp_aeth_value(0x2e) == 14);
	CHECK(ibp_aeth_is_nak(IBP_NAK_PSN_SEQ_ERR) && ibp_aeth_is_nak(IBP_NAK_REM_OP_ERR));
	CHECK(!ibp_aeth_is_ack(0x40) && !ibp_aeth_is_nak(0x40) && !ibp_aeth_is_rnr_nak(0x40));
	CHECK_EQ(ibp_rnr_timer_us(0), 655360);
	CHECK_EQ(ibp_rnr_timer_us(1), 10);
	CHECK_EQ(ibp_rnr_timer_us(14), 1280);
	CHECK_EQ(ibp_rnr_timer_us(25), 61440);
	CHECK_EQ(ibp_rnr_timer_us(31), 491520);
	CHECK_EQ(ibp_psn_diff(0, 0xffffff), 1);
	CHECK_EQ(ibp_psn_diff(0xffffff, 0), -1);
	CHECK_EQ(ibp_psn_diff(5, 3), 2);
	CHECK_EQ(ibp_psn_diff(0x800000, 0), -0x800000);
	/* rdma_get_udp_sport() by hand: 0x123456 * 0xabcdef = 0xc379a59ba4a;
	 * ^ >> 20 = 0xc379a9ac3ef; ^ >> 40 = 0xc379a9ac3e3; 20 bits 0xac3e3;
	 * 0x3e3 ^ (0xac000 >> 14 = 0x2b) = 0x3c8 | 0xc000. A flow label is
	 * folded alone: 0x2345 ^ 0x4 | 0xc000. Small QPNs: 0x11 * 0x12. */
	CHECK_EQ(roce_udp_sport(0, 0x123456, 0xabcdef), 0xc3c8);
	CHECK_EQ(roce_udp_sport(0, 0xabcdef, 0x123456), 0xc3c8);
	CHECK_EQ(roce_udp_sport(0x12345, 0x123456, 0xabcdef), 0xe341);
	CHECK_EQ(roce_udp_sport(0, 0x11, 0x12), 0xc132);
	for (size_t i = 0; i < sizeof(golden_sport) / sizeof(golden_sport[0]); i++)
		CHECKM(roce_udp_sport(golden_sport[i].fl, golden_sport[i].lqpn,
				      golden_sport[i].rqpn) == golden_sport[i].sport,
		       "sport(%#x, %#x, %#x)", golden_sport[i].fl, golden_sport[i].lqpn,
		       golden_sport[i].rqpn);
}

static void test_format(void)
{
	const struct golden_pkt *g;
	struct ibp_hdr h;
	const char *why;
	char line[256];

	g = find("rc_rnr_nak");
	CHECK(ibp_parse(g->pkt + g->ib_off, g->len - g->ib_off - 4, &h, &why) == 0);
	ibp_format(line, sizeof(line), &h);
	CHECKM(!strcmp(line, "RC Acknowledge psn 0x000034 dqpn 0x000200 RNR NAK timer 14 "
			     "(1280 us) msn 0x00abce"), "%s", line);
	g = find("rc_send_last_imm");
	CHECK(ibp_parse(g->pkt + g->ib_off, g->len - g->ib_off - 4, &h, &why) == 0);
	ibp_format(line, sizeof(line), &h);
	CHECKM(!strcmp(line, "RC SEND Last with Immediate psn 0x000003 dqpn 0x00abcd ackreq se "
			     "imm 0xdeadbeef len 5"), "%s", line);
	g = find("rc_nak_seq");
	CHECK(ibp_parse(g->pkt + g->ib_off, g->len - g->ib_off - 4, &h, &why) == 0);
	ibp_format(line, sizeof(line), &h);
	CHECKM(strstr(line, "NAK PSN sequence error") != NULL, "%s", line);
	memset(&h, 0, sizeof(h));
	h.opcode = 0x15;
	ibp_format(line, sizeof(line), &h);
	CHECKM(strstr(line, "unknown") != NULL, "%s", line);
}

int main(void)
{
	for (size_t i = 0; i < GOLDEN_COUNT; i++)
		test_golden(&golden[i]);
	test_ib_negative();
	test_roce_negative();
	test_op_table();
	test_helpers();
	test_format();
	return smx_test_done();
}
