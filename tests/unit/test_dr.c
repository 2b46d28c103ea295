/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_dr steering (src/mlx5/dr.c) through the public API, checked with
 * real frames: a raw packet QP sends, the device's NIC RX steering lands
 * them in one of three receiving raw packet QPs (or nowhere). Covered: the
 * root table chaining to a level-1 table (dest table), hits and misses, a
 * flow tag, matcher priorities, drop, DEVX flow counters, duplicates
 * refused on request; then bad input -- NULLs, domain types, levels,
 * criteria, values outside the mask, action mixes, destroy order (EBUSY) --
 * each answered with its errno and, with SOFTMLX5_DEBUG set, one log line.
 * NIC TX: the frames the raw QP sends go through a TX domain's rules first:
 * a modify header (SET of MAC fields), a pushed VLAN tag a receive rule on
 * C-VLAN sees, a popped tag (on send, and on receive), a counted drop,
 * default miss before a drop;
 * the firmware's mailboxes refused (modify header contexts, entries).
 * Packet reformat: a TX encap (IPv4/UDP/VXLAN, IPv6/UDP/VXLAN, and
 * IPv4/UDP/VXLAN behind an 802.1Q tag) received byte for byte, lengths and
 * IPv4 checksum recomputed (the expected checksum computed here); an RX
 * decap rule delivering the inner frame (tagged outer header too), and a
 * non-tunnel or truncated frame unchanged; the same encap through
 * mlx5dv_create_flow_action_packet_reformat and a NIC TX mlx5dv matcher;
 * bad input to both APIs, and EBUSY while rules use the action.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "smx_test.h"
#include "verbs_test_util.h"

#define NRX 3

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *mem;		/* [0, 4K): the frame to send; then receives */
static struct ibv_cq *scq;
static struct ibv_cq_ex *rcq;
static struct ibv_qp *tx, *rx[NRX];

static const uint8_t mac_a[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t mac_b[6] = { 0x02, 0x66, 0x77, 0x88, 0x99, 0xaa };
static const uint8_t mac_c[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0c };

/* fte_match_param as mlx5dv_flow_match_parameters: outer headers first
 * (smac at byte 0, ethertype at 6, dmac at 8), 0x200 bytes in all. */
struct param {
	size_t sz;
	uint8_t b[0x200];
} __attribute__((aligned(8)));

#define MP(p) ((struct mlx5dv_flow_match_parameters *)(p))

static void p_init(struct param *p, size_t sz)
{
	memset(p, 0, sizeof(*p));
	p->sz = sz;
}

static void p_mac(struct param *p, size_t off, const uint8_t *mac)
{
	memcpy(p->b + off, mac, 4);		/* *mac_47_16 */
	memcpy(p->b + off + 4, mac + 4, 2);	/* *mac_15_0 */
}

#define P_SMAC 0
#define P_DMAC 8

static struct ibv_qp *raw_qp(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.send_cq = scq,
		.recv_cq = ibv_cq_ex_to_cq(rcq),
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT))
		return NULL;
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
		return NULL;
	qa.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
		return NULL;
	return qp;
}

static void post_recv(int i)
{
	struct ibv_sge s = { (uintptr_t)(mem + 4096 + 1024 * i), 1024, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &s, .num_sge = 1 },
			   *bad;

	CHECK_EQ(ibv_post_recv(rx[i], &wr, &bad), 0);
}

/* Sends dst | src | IPv4 ethertype | 50 bytes; the index of the receiving
 * QP (its tag in *tag), or -1 when no QP got it. */
static int send_frame(const uint8_t *dst, const uint8_t *src, uint32_t *tag)
{
	struct ibv_sge s = { (uintptr_t)mem, 64, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_poll_cq_attr pa = {};
	struct ibv_wc wc;
	int i, n, got = -1;

	memset(mem, 0x5a, 64);
	memcpy(mem, dst, 6);
	memcpy(mem + 6, src, 6);
	mem[12] = 0x08;
	mem[13] = 0x00;
	CHECK_EQ(ibv_post_send(tx, &wr, &bad), 0);
	for (i = 0, n = 0; i < 100000 && n == 0; i++)
		n = ibv_poll_cq(scq, 1, &wc);
	CHECK(n == 1 && wc.status == IBV_WC_SUCCESS);
	/* Delivery ends before the send completes: nothing more comes later. */
	if (ibv_start_poll(rcq, &pa))
		return -1;
	if (rcq->status == IBV_WC_SUCCESS) {
		got = (int)rcq->wr_id;
		CHECK(got >= 0 && got < NRX &&
		      ibv_wc_read_qp_num(rcq) == rx[got]->qp_num);
		CHECK(!memcmp(mem + 4096 + 1024 * got, mem, 64));
		if (tag)
			*tag = ibv_wc_read_flow_tag(rcq);
	}
	CHECK(ibv_next_poll(rcq) == ENOENT);	/* one copy only */
	ibv_end_poll(rcq);
	if (got >= 0)
		post_recv(got);
	return got;
}

/* Sends the first @len bytes of mem as they are; the index of the QP that
 * got the frame (its length in *rlen), or -1. The send always completes. */
static int send_bytes(uint32_t len, uint32_t *rlen)
{
	struct ibv_sge s = { (uintptr_t)mem, len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_poll_cq_attr pa = {};
	struct ibv_wc wc;
	int i, n, got = -1;

	CHECK_EQ(ibv_post_send(tx, &wr, &bad), 0);
	for (i = 0, n = 0; i < 100000 && n == 0; i++)
		n = ibv_poll_cq(scq, 1, &wc);
	CHECK(n == 1 && wc.status == IBV_WC_SUCCESS);
	if (ibv_start_poll(rcq, &pa))
		return -1;
	if (rcq->status == IBV_WC_SUCCESS) {
		got = (int)rcq->wr_id;
		*rlen = ibv_wc_read_byte_len(rcq);
	}
	CHECK(ibv_next_poll(rcq) == ENOENT);
	ibv_end_poll(rcq);
	if (got >= 0)
		post_recv(got);
	return got;
}

/* The frame send_bytes sends: dst | src | [802.1Q tag] | IPv4 | 0x5a... */
static uint32_t frame_build(const uint8_t *dst, const uint8_t *src,
			    uint16_t vlan_tci, bool tagged)
{
	uint32_t off = 12;

	memset(mem, 0x5a, 128);
	memcpy(mem, dst, 6);
	memcpy(mem + 6, src, 6);
	if (tagged) {
		mem[12] = 0x81;
		mem[13] = 0x00;
		mem[14] = (uint8_t)(vlan_tci >> 8);
		mem[15] = (uint8_t)vlan_tci;
		off = 16;
	}
	mem[off] = 0x08;
	mem[off + 1] = 0x00;
	return 64 + (tagged ? 4 : 0);
}

/* What receive QP @i got. */
static const uint8_t *rx_buf(int i)
{
	return mem + 4096 + 1024 * i;
}

/* One PRM set_action_in, as mlx5dv_dr_action_create_modify_header takes it. */
static __be64 set_action(uint32_t type, uint32_t field, uint32_t offset,
			 uint32_t length, uint32_t data)
{
	uint8_t a[8] = { 0 };
	__be64 v;

	DEVX_SET(set_action_in, a, action_type, type);
	DEVX_SET(set_action_in, a, field, field);
	DEVX_SET(set_action_in, a, offset, offset);
	DEVX_SET(set_action_in, a, length, length);
	DEVX_SET(set_action_in, a, data, data);
	memcpy(&v, a, 8);
	return v;
}

static struct mlx5dv_devx_obj *counter_alloc(uint32_t *id)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_flow_counter_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_flow_counter_out)] = {};
	struct mlx5dv_devx_obj *o;

	DEVX_SET(alloc_flow_counter_in, in, opcode, MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
	o = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	*id = DEVX_GET(alloc_flow_counter_out, out, flow_counter_id);
	return o;
}

static uint64_t counter_packets(struct mlx5dv_devx_obj *o, uint32_t id)
{
	uint32_t in[DEVX_ST_SZ_DW(query_flow_counter_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_flow_counter_out)] = {};
	uint64_t packets;

	DEVX_SET(query_flow_counter_in, in, opcode, MLX5_CMD_OP_QUERY_FLOW_COUNTER);
	DEVX_SET(query_flow_counter_in, in, flow_counter_id, id);
	if (mlx5dv_devx_obj_query(o, in, sizeof(in), out, sizeof(out)))
		return ~0ull;
	/* flow_statistics.packets: 64 bits, big-endian */
	memcpy(&packets, (uint8_t *)out + DEVX_BYTE_OFF(query_flow_counter_out,
						       flow_statistics), 8);
	return be64toh(packets);
}

/*
 * The chain: root matcher on smac -> the level-1 table; there a dmac
 * matcher sends mac_a to rx[0] with a tag and a counter, a lower-priority
 * (higher value) matcher on smac alone catches the rest into rx[1]; a
 * drop rule on mac_c counts what it drops.
 */
static void test_steering(void)
{
	struct mlx5dv_dr_domain *dmn = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
	struct mlx5dv_dr_table *root = NULL, *t1 = NULL;
	struct mlx5dv_dr_matcher *m_root = NULL, *m_dmac = NULL, *m_any = NULL;
	struct mlx5dv_dr_action *to_t1 = NULL, *to0 = NULL, *to1 = NULL, *tag = NULL,
				*cnt = NULL, *drop = NULL, *cnt_drop = NULL;
	struct mlx5dv_dr_rule *r_root = NULL, *r_a = NULL, *r_any = NULL, *r_c = NULL;
	struct mlx5dv_devx_obj *c1, *c2;
	struct param mask, val;
	uint32_t id1 = 0, id2 = 0, t = 0;

	CHECK(dmn != NULL);
	if (!dmn)
		return;
	CHECK_EQ(mlx5dv_dr_domain_sync(dmn, MLX5DV_DR_DOMAIN_SYNC_FLAGS_SW |
				       MLX5DV_DR_DOMAIN_SYNC_FLAGS_HW), 0);
	mlx5dv_dr_domain_set_reclaim_device_memory(dmn, true);
	root = mlx5dv_dr_table_create(dmn, 0);
	t1 = mlx5dv_dr_table_create(dmn, 1);
	CHECK(root && t1);
	c1 = counter_alloc(&id1);
	c2 = counter_alloc(&id2);
	CHECK(c1 && c2);
	if (!root || !t1 || !c1 || !c2)
		return;

	/* The SDK's sequence: match_criteria_enable 1, a 512-byte mask. */
	p_init(&mask, 512);
	p_mac(&mask, P_SMAC, (const uint8_t[6]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff });
	m_root = mlx5dv_dr_matcher_create(root, 0, 1, MP(&mask));
	/* in t1: the catch-all on smac at priority 7 first, then dmac at 2 */
	m_any = mlx5dv_dr_matcher_create(t1, 7, 1, MP(&mask));
	p_init(&mask, 64);
	p_mac(&mask, P_DMAC, (const uint8_t[6]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff });
	m_dmac = mlx5dv_dr_matcher_create(t1, 2, 1, MP(&mask));
	CHECK(m_root && m_any && m_dmac);
	to_t1 = mlx5dv_dr_action_create_dest_table(t1);
	to0 = mlx5dv_dr_action_create_dest_ibv_qp(rx[0]);
	to1 = mlx5dv_dr_action_create_dest_ibv_qp(rx[1]);
	tag = mlx5dv_dr_action_create_tag(0x123456);
	cnt = mlx5dv_dr_action_create_flow_counter(c1, 0);
	drop = mlx5dv_dr_action_create_drop();
	cnt_drop = mlx5dv_dr_action_create_flow_counter(c2, 0);
	CHECK(to_t1 && to0 && to1 && tag && cnt && drop && cnt_drop);
	if (!m_root || !m_any || !m_dmac || !to_t1 || !to0 || !to1 || !tag ||
	    !cnt || !drop || !cnt_drop)
		return;

	/* Nothing steers mac_b's frames yet. */
	CHECK_EQ(send_frame(mac_a, mac_b, NULL), -1);

	p_init(&val, 8);
	p_mac(&val, P_SMAC, mac_b);
	r_root = mlx5dv_dr_rule_create(m_root, MP(&val), 1, &to_t1);
	CHECK(r_root != NULL);
	/* t1 is empty: a miss there drops */
	CHECK_EQ(send_frame(mac_a, mac_b, NULL), -1);
	r_any = mlx5dv_dr_rule_create(m_any, MP(&val), 1, &to1);
	CHECK(r_any != NULL);
	CHECK_EQ(send_frame(mac_a, mac_b, NULL), 1);
	CHECK_EQ(send_frame(mac_c, mac_b, NULL), 1);
	/* the root rule wants smac mac_b: mac_a's frames miss */
	CHECK_EQ(send_frame(mac_b, mac_a, NULL), -1);

	/* priority 2 beats 7, though made later: mac_a goes to rx[0], tagged
	 * and counted */
	p_init(&val, 64);
	p_mac(&val, P_DMAC, mac_a);
	{
		struct mlx5dv_dr_action *acts[3] = { tag, to0, cnt };

		r_a = mlx5dv_dr_rule_create(m_dmac, MP(&val), 3, acts);
	}
	CHECK(r_a != NULL);
	t = 0;
	CHECK_EQ(send_frame(mac_a, mac_b, &t), 0);
	CHECK_EQ(t, 0x123456);
	CHECK_EQ(send_frame(mac_a, mac_b, &t), 0);
	CHECK_EQ(send_frame(mac_c, mac_b, &t), 1);	/* still the catch-all */
	CHECK_EQ(t, 0);
	CHECK_EQ(counter_packets(c1, id1), 2);

	/* drop mac_c and count it; the others are untouched */
	p_mac(&val, P_DMAC, mac_c);
	{
		struct mlx5dv_dr_action *acts[2] = { cnt_drop, drop };

		r_c = mlx5dv_dr_rule_create(m_dmac, MP(&val), 2, acts);
	}
	CHECK(r_c != NULL);
	CHECK_EQ(send_frame(mac_c, mac_b, NULL), -1);
	CHECK_EQ(send_frame(mac_c, mac_b, NULL), -1);
	CHECK_EQ(counter_packets(c2, id2), 2);
	CHECK_EQ(send_frame(mac_a, mac_b, NULL), 0);
	CHECK_EQ(counter_packets(c1, id1), 3);

	/* rule gone: back to the catch-all */
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_a), 0);
	CHECK_EQ(send_frame(mac_a, mac_b, NULL), 1);
	CHECK_EQ(counter_packets(c1, id1), 3);

	/* duplicates: allowed by default, EEXIST once forbidden */
	p_init(&val, 8);
	p_mac(&val, P_SMAC, mac_b);
	{
		struct mlx5dv_dr_rule *dup = mlx5dv_dr_rule_create(m_any, MP(&val), 1, &to0);

		CHECK(dup != NULL);
		if (dup)
			CHECK_EQ(mlx5dv_dr_rule_destroy(dup), 0);
		mlx5dv_dr_domain_allow_duplicate_rules(dmn, false);
		errno = 0;
		CHECK(!mlx5dv_dr_rule_create(m_any, MP(&val), 1, &to0) && errno == EEXIST);
		mlx5dv_dr_domain_allow_duplicate_rules(dmn, true);
	}
	{
		struct mlx5dv_dr_matcher_layout lay = {
			.flags = MLX5DV_DR_MATCHER_LAYOUT_NUM_RULE,
			.log_num_of_rules_hint = 10,
		};

		CHECK_EQ(mlx5dv_dr_matcher_set_layout(m_dmac, &lay), 0);
		lay.flags = MLX5DV_DR_MATCHER_LAYOUT_RESIZABLE;
		CHECK_EQ(mlx5dv_dr_matcher_set_layout(m_dmac, &lay), 0);
	}

	/* more rules than one 64-entry group holds */
	{
		struct mlx5dv_dr_rule *many[100];
		uint8_t m[6] = { 0x02, 0xee, 0, 0, 0, 0 };
		int i, made = 0;

		for (i = 0; i < 100; i++) {
			m[5] = (uint8_t)i;
			p_init(&val, 64);
			p_mac(&val, P_DMAC, m);
			many[i] = mlx5dv_dr_rule_create(m_dmac, MP(&val), 1, &to0);
			made += many[i] != NULL;
		}
		CHECK_EQ(made, 100);
		m[5] = 99;
		CHECK_EQ(send_frame(m, mac_b, NULL), 0);
		m[5] = 100;
		CHECK_EQ(send_frame(m, mac_b, NULL), 1);
		for (i = 0; i < 100; i++)
			if (many[i])
				CHECK_EQ(mlx5dv_dr_rule_destroy(many[i]), 0);
	}

	/* teardown in order, each step refused while something depends on it */
	CHECK_EQ(mlx5dv_dr_domain_destroy(dmn), EBUSY);
	CHECK_EQ(mlx5dv_dr_table_destroy(t1), EBUSY);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_dmac), EBUSY);
	CHECK_EQ(mlx5dv_dr_action_destroy(cnt_drop), EBUSY);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_c), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_any), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_dmac), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_any), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(t1), EBUSY);	/* to_t1 names it */
	CHECK_EQ(mlx5dv_dr_action_destroy(to_t1), EBUSY);	/* r_root uses it */
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_root), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to_t1), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(t1), 0);
	CHECK_EQ(send_frame(mac_a, mac_b, NULL), -1);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_root), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(root), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(dmn), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to0), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to1), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(tag), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(cnt), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(drop), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(cnt_drop), 0);
	CHECK_EQ(mlx5dv_devx_obj_destroy(c1), 0);
	CHECK_EQ(mlx5dv_devx_obj_destroy(c2), 0);
}

/* ---- NIC TX ---- */

static const uint8_t mac_d[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0d };
static const uint8_t mac_e[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0e };
static const uint8_t ones[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/*
 * Receive side: C-VLAN 5 frames into rx[1], C-VLAN 7 ones popped into
 * rx[2], the rest into rx[0]. Send side:
 * the TX root matches smac -- mac_b: modify header; mac_c: on to the TX
 * level-1 table, which pushes VLAN 5 (then: default miss for dmac mac_a
 * before a catch-all drop); mac_a: pop VLAN; mac_d: counted drop.
 */
static void test_tx_steering(void)
{
	struct mlx5dv_dr_domain *rxd = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
	struct mlx5dv_dr_domain *txd = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_TX);
	struct mlx5dv_dr_table *rroot = NULL, *troot = NULL, *t1 = NULL;
	struct mlx5dv_dr_matcher *m_all = NULL, *m_vlan = NULL, *m_smac = NULL,
				 *m_t1 = NULL, *m_dm = NULL, *m_drop = NULL;
	struct mlx5dv_dr_action *to0, *to1, *to2, *mod, *push, *pop, *to_t1, *drop,
				*cnt, *dmiss;
	struct mlx5dv_dr_rule *r_all, *r_vlan, *r_vlan7 = NULL, *r_mod, *r_push, *r_to_t1, *r_pop,
			      *r_drop, *r_dm, *r_catch;
	__be64 acts[3] = {
		set_action(MLX5_ACTION_TYPE_SET, MLX5_ACTION_IN_FIELD_OUT_SMAC_47_16,
			   0, 0, 0x02c0ffee),	/* length 0: all 32 bits */
		set_action(MLX5_ACTION_TYPE_SET, MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0,
			   0, 16, 0x1234),
		/* bits 8..15 of dmac_15_0: the fifth dmac byte */
		set_action(MLX5_ACTION_TYPE_SET, MLX5_ACTION_IN_FIELD_OUT_DMAC_15_0,
			   8, 8, 0xab),
	};
	struct mlx5dv_devx_obj *c;
	struct param mask, val;
	uint8_t want[128];
	uint32_t len, rl = 0, cid = 0;

	CHECK(rxd && txd);
	if (!rxd || !txd)
		return;
	rroot = mlx5dv_dr_table_create(rxd, 0);
	troot = mlx5dv_dr_table_create(txd, 0);
	t1 = mlx5dv_dr_table_create(txd, 1);
	c = counter_alloc(&cid);
	CHECK(rroot && troot && t1 && c);
	if (!rroot || !troot || !t1 || !c)
		return;
	p_init(&mask, 64);
	m_all = mlx5dv_dr_matcher_create(rroot, 5, 0, MP(&mask));
	m_t1 = mlx5dv_dr_matcher_create(t1, 0, 0, MP(&mask));
	DEVX_SET(fte_match_set_lyr_2_4, mask.b, cvlan_tag, 1);
	DEVX_SET(fte_match_set_lyr_2_4, mask.b, first_vid, 0xfff);
	m_vlan = mlx5dv_dr_matcher_create(rroot, 1, 1, MP(&mask));
	p_init(&mask, 64);
	p_mac(&mask, P_SMAC, ones);
	m_smac = mlx5dv_dr_matcher_create(troot, 0, 1, MP(&mask));
	CHECK(m_all && m_t1 && m_vlan && m_smac);
	to0 = mlx5dv_dr_action_create_dest_ibv_qp(rx[0]);
	to1 = mlx5dv_dr_action_create_dest_ibv_qp(rx[1]);
	to2 = mlx5dv_dr_action_create_dest_ibv_qp(rx[2]);
	mod = mlx5dv_dr_action_create_modify_header(txd, MLX5DV_DR_ACTION_FLAGS_ROOT_LEVEL,
						    sizeof(acts), acts);
	push = mlx5dv_dr_action_create_push_vlan(txd, htobe32(0x81002005));
	pop = mlx5dv_dr_action_create_pop_vlan();
	to_t1 = mlx5dv_dr_action_create_dest_table(t1);
	drop = mlx5dv_dr_action_create_drop();
	cnt = mlx5dv_dr_action_create_flow_counter(c, 0);
	dmiss = mlx5dv_dr_action_create_default_miss();
	CHECK(to0 && to1 && to2 && mod && push && pop && to_t1 && drop && cnt &&
	      dmiss);
	if (!m_all || !m_t1 || !m_vlan || !m_smac || !to0 || !to1 || !to2 || !mod ||
	    !push || !pop || !to_t1 || !drop || !cnt || !dmiss)
		return;
	p_init(&val, 64);
	r_all = mlx5dv_dr_rule_create(m_all, MP(&val), 1, &to0);
	DEVX_SET(fte_match_set_lyr_2_4, val.b, cvlan_tag, 1);
	DEVX_SET(fte_match_set_lyr_2_4, val.b, first_vid, 5);
	r_vlan = mlx5dv_dr_rule_create(m_vlan, MP(&val), 1, &to1);
	CHECK(r_all && r_vlan);

	/* an empty TX root: a miss goes on to the wire untouched */
	len = frame_build(mac_a, mac_b, 0, false);
	CHECK_EQ(send_bytes(len, &rl), 0);
	CHECK(rl == len && !memcmp(rx_buf(0), mem, len));

	/* a receive rule pops: C-VLAN 7 frames reach rx[2] untagged */
	{
		struct mlx5dv_dr_action *a[2] = { pop, to2 };

		p_init(&val, 64);
		DEVX_SET(fte_match_set_lyr_2_4, val.b, cvlan_tag, 1);
		DEVX_SET(fte_match_set_lyr_2_4, val.b, first_vid, 7);
		r_vlan7 = mlx5dv_dr_rule_create(m_vlan, MP(&val), 2, a);
	}
	CHECK(r_vlan7 != NULL);
	len = frame_build(mac_a, mac_e, 7, true);
	memcpy(want, mem, 12);
	memcpy(want + 12, mem + 16, len - 16);
	CHECK_EQ(send_bytes(len, &rl), 2);
	CHECK(rl == len - 4 && !memcmp(rx_buf(2), want, len - 4));

	/* modify header: smac rewritten, one byte of dmac, nothing else */
	p_init(&val, 8);
	p_mac(&val, P_SMAC, mac_b);
	r_mod = mlx5dv_dr_rule_create(m_smac, MP(&val), 1, &mod);
	CHECK(r_mod != NULL);
	len = frame_build(mac_a, mac_b, 0, false);
	memcpy(want, mem, len);
	memcpy(want + 6, (const uint8_t[6]){ 0x02, 0xc0, 0xff, 0xee, 0x12, 0x34 }, 6);
	want[4] = 0xab;
	CHECK_EQ(send_bytes(len, &rl), 0);
	CHECK(rl == len && !memcmp(rx_buf(0), want, len));
	CHECK_EQ(mlx5dv_dr_action_destroy(mod), EBUSY);

	/* push VLAN in the level-1 table: the C-VLAN receive rule takes it */
	p_mac(&val, P_SMAC, mac_c);
	r_to_t1 = mlx5dv_dr_rule_create(m_smac, MP(&val), 1, &to_t1);
	p_init(&val, 64);
	r_push = mlx5dv_dr_rule_create(m_t1, MP(&val), 1, &push);
	CHECK(r_to_t1 && r_push);
	len = frame_build(mac_a, mac_c, 0, false);
	memcpy(want, mem, 12);
	memcpy(want + 12, (const uint8_t[4]){ 0x81, 0x00, 0x20, 0x05 }, 4);
	memcpy(want + 16, mem + 12, len - 12);
	CHECK_EQ(send_bytes(len, &rl), 1);
	CHECK(rl == len + 4 && !memcmp(rx_buf(1), want, len + 4));

	/* pop VLAN: a tagged frame leaves untagged, so rx[0] gets it */
	len = frame_build(mac_b, mac_a, 5, true);
	CHECK_EQ(send_bytes(len, &rl), 1);	/* no TX rule yet: still tagged */
	p_init(&val, 8);
	p_mac(&val, P_SMAC, mac_a);
	r_pop = mlx5dv_dr_rule_create(m_smac, MP(&val), 1, &pop);
	CHECK(r_pop != NULL);
	memcpy(want, mem, 12);
	memcpy(want + 12, mem + 16, len - 16);
	CHECK_EQ(send_bytes(len, &rl), 0);
	CHECK(rl == len - 4 && !memcmp(rx_buf(0), want, len - 4));
	/* an untagged frame has nothing to pop */
	len = frame_build(mac_b, mac_a, 0, false);
	CHECK_EQ(send_bytes(len, &rl), 0);
	CHECK(rl == len && !memcmp(rx_buf(0), mem, len));

	/* a counted drop: the send completes, nobody receives */
	p_mac(&val, P_SMAC, mac_d);
	{
		struct mlx5dv_dr_action *a[2] = { drop, cnt };

		r_drop = mlx5dv_dr_rule_create(m_smac, MP(&val), 2, a);
	}
	CHECK(r_drop != NULL);
	len = frame_build(mac_a, mac_d, 0, false);
	CHECK_EQ(send_bytes(len, &rl), -1);
	CHECK_EQ(send_bytes(len, &rl), -1);
	CHECK_EQ(counter_packets(c, cid), 2);

	/* default miss (priority 1) before a catch-all drop (priority 2) */
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_push), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_t1), 0);
	p_init(&mask, 64);
	p_mac(&mask, P_DMAC, ones);
	m_dm = mlx5dv_dr_matcher_create(t1, 1, 1, MP(&mask));
	p_init(&mask, 64);
	m_drop = mlx5dv_dr_matcher_create(t1, 2, 0, MP(&mask));
	CHECK(m_dm && m_drop);
	if (!m_dm || !m_drop)
		return;
	p_init(&val, 64);
	r_catch = mlx5dv_dr_rule_create(m_drop, MP(&val), 1, &drop);
	p_mac(&val, P_DMAC, mac_a);
	r_dm = mlx5dv_dr_rule_create(m_dm, MP(&val), 1, &dmiss);
	CHECK(r_catch && r_dm);
	len = frame_build(mac_a, mac_c, 0, false);
	CHECK_EQ(send_bytes(len, &rl), 0);
	CHECK(rl == len && !memcmp(rx_buf(0), mem, len));
	len = frame_build(mac_b, mac_c, 0, false);
	CHECK_EQ(send_bytes(len, &rl), -1);

	/* teardown: the TX domain waits for its actions too */
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_dm), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_catch), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_drop), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_pop), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_to_t1), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_mod), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_dm), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_drop), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_smac), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to_t1), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(t1), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(troot), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(txd), EBUSY);	/* mod, push */
	CHECK_EQ(mlx5dv_dr_action_destroy(mod), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(push), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(txd), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_all), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_vlan), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_vlan7), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_all), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_vlan), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(rroot), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(rxd), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to0), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to1), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to2), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(pop), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(drop), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(cnt), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(dmiss), 0);
	CHECK_EQ(mlx5dv_devx_obj_destroy(c), 0);
	/* the TX root is empty again, the RX root too: nobody gets it */
	len = frame_build(mac_a, mac_b, 0, false);
	CHECK_EQ(send_bytes(len, &rl), -1);
}

/* ---- packet reformat ---- */

/* RFC 1071, written out here so the device's checksum is checked against
 * an independent one: the one's complement of the one's complement sum of
 * the header's 16-bit words, the checksum field counted as 0. */
static uint16_t t_ipv4_csum(const uint8_t *ip)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		if (i != 10)
			sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum > 0xffff)
		sum = (sum >> 16) + (sum & 0xffff);
	return (uint16_t)(~sum & 0xffff);
}

#define VXLAN_OUTER4 50	/* Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 */
#define VXLAN_OUTER6 70	/* Ethernet 14 + IPv6 40 + UDP 8 + VXLAN 8 */

/* Ethernet (dst mac_a, src @src) + IPv4 or IPv6 + UDP to 4789 + VXLAN
 * (VNI 0x123456), with lengths and checksums deliberately wrong: the
 * device must fix them. The header length. */
static size_t vxlan_outer(uint8_t *h, const uint8_t *src, bool v6)
{
	size_t ip = 14, udp = v6 ? 54 : 34;

	memset(h, 0, VXLAN_OUTER6);
	memcpy(h, mac_a, 6);
	memcpy(h + 6, src, 6);
	h[12] = v6 ? 0x86 : 0x08;
	h[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		h[ip] = 0x60;
		h[ip + 4] = 0xde;		/* payload length: wrong */
		h[ip + 5] = 0xad;
		h[ip + 6] = 17;			/* next header: UDP */
		h[ip + 7] = 64;
		h[ip + 8] = 0xfe;		/* fe80::1 -> fe80::2 */
		h[ip + 9] = 0x80;
		h[ip + 23] = 1;
		h[ip + 24] = 0xfe;
		h[ip + 25] = 0x80;
		h[ip + 39] = 2;
	} else {
		h[ip] = 0x45;
		h[ip + 2] = 0x12;		/* total length: wrong */
		h[ip + 3] = 0x34;
		h[ip + 4] = 0xab;		/* id */
		h[ip + 5] = 0xcd;
		h[ip + 6] = 0x40;		/* DF */
		h[ip + 8] = 64;
		h[ip + 9] = 17;
		h[ip + 10] = 0xee;		/* checksum: wrong */
		h[ip + 11] = 0xee;
		memcpy(h + ip + 12, (const uint8_t[8]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
	}
	h[udp] = 0xc0;				/* sport 49152 */
	h[udp + 2] = 0x12;			/* dport 4789 */
	h[udp + 3] = 0xb5;
	h[udp + 4] = 0x99;			/* length: wrong */
	h[udp + 6] = 0x77;			/* checksum: must become 0 */
	h[udp + 7] = 0x77;
	h[udp + 8] = 0x08;			/* VXLAN: I flag */
	h[udp + 12] = 0x12;			/* VNI */
	h[udp + 13] = 0x34;
	h[udp + 14] = 0x56;
	return v6 ? VXLAN_OUTER6 : VXLAN_OUTER4;
}

/* What the receiver of @inner (@len bytes) wrapped in @outer should get. */
static void vxlan_want(uint8_t *want, const uint8_t *outer, size_t olen,
		       const uint8_t *inner, uint32_t len)
{
	uint32_t total = (uint32_t)olen + len;

	memcpy(want, outer, olen);
	memcpy(want + olen, inner, len);
	if (olen == VXLAN_OUTER4) {
		uint16_t cs;

		want[16] = (uint8_t)((total - 14) >> 8);
		want[17] = (uint8_t)(total - 14);
		cs = t_ipv4_csum(want + 14);
		want[24] = (uint8_t)(cs >> 8);
		want[25] = (uint8_t)cs;
		want[38] = (uint8_t)((total - 34) >> 8);
		want[39] = (uint8_t)(total - 34);
		want[40] = want[41] = 0;
	} else {
		want[18] = (uint8_t)((total - 54) >> 8);
		want[19] = (uint8_t)(total - 54);
		want[58] = (uint8_t)((total - 54) >> 8);
		want[59] = (uint8_t)(total - 54);
		want[60] = want[61] = 0;
	}
}

/* An 802.1Q tag (VID 9) put after the MACs of the @n-byte header @h;
 * the new length. */
static size_t vlan_insert(uint8_t *h, size_t n)
{
	memmove(h + 16, h + 12, n - 12);
	memcpy(h + 12, (const uint8_t[4]){ 0x81, 0x00, 0x00, 0x09 }, 4);
	return n + 4;
}

/*
 * TX root: smac mac_b -> encap IPv4 (outer smac mac_e), smac mac_c ->
 * encap IPv6 (outer smac mac_d), smac mac_a -> encap IPv4 behind a VLAN
 * tag (outer smac mac_e). RX root: outer smac mac_e -> rx[1] (first as it
 * is, then decapsulated); everything else -> rx[0].
 */
static void test_reformat(void)
{
	struct mlx5dv_dr_domain *rxd = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
	struct mlx5dv_dr_domain *txd = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_TX);
	struct mlx5dv_dr_table *rroot = NULL, *troot = NULL;
	struct mlx5dv_dr_matcher *m_all = NULL, *m_rs = NULL, *m_ts = NULL;
	struct mlx5dv_dr_action *to0, *to1, *enc4 = NULL, *enc6 = NULL, *enct = NULL,
				*dec = NULL;
	struct mlx5dv_dr_rule *r_all = NULL, *r_rs = NULL, *r_e4 = NULL, *r_e6 = NULL,
			      *r_et = NULL;
	uint8_t outer4[VXLAN_OUTER6], outer6[VXLAN_OUTER6], outert[VXLAN_OUTER6 + 4],
		inner[128], want[256];
	struct param mask, val;
	uint32_t len, rl = 0;
	size_t o4, o6, ot;

	CHECK(rxd && txd);
	if (!rxd || !txd)
		return;
	o4 = vxlan_outer(outer4, mac_e, false);
	o6 = vxlan_outer(outer6, mac_d, true);
	ot = vlan_insert(outert, vxlan_outer(outert, mac_e, false));
	rroot = mlx5dv_dr_table_create(rxd, 0);
	troot = mlx5dv_dr_table_create(txd, 0);
	CHECK(rroot && troot);
	if (!rroot || !troot)
		return;
	p_init(&mask, 64);
	m_all = mlx5dv_dr_matcher_create(rroot, 5, 0, MP(&mask));
	p_mac(&mask, P_SMAC, ones);
	m_rs = mlx5dv_dr_matcher_create(rroot, 1, 1, MP(&mask));
	m_ts = mlx5dv_dr_matcher_create(troot, 0, 1, MP(&mask));
	to0 = mlx5dv_dr_action_create_dest_ibv_qp(rx[0]);
	to1 = mlx5dv_dr_action_create_dest_ibv_qp(rx[1]);
	enc4 = mlx5dv_dr_action_create_packet_reformat(
		txd, MLX5DV_DR_ACTION_FLAGS_ROOT_LEVEL,
		MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL, o4, outer4);
	enc6 = mlx5dv_dr_action_create_packet_reformat(
		txd, 0, MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL, o6,
		outer6);
	enct = mlx5dv_dr_action_create_packet_reformat(
		txd, 0, MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL, ot,
		outert);
	dec = mlx5dv_dr_action_create_packet_reformat(
		rxd, 0, MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2, 0, NULL);
	CHECK(m_all && m_rs && m_ts && to0 && to1 && enc4 && enc6 && enct && dec);
	if (!m_all || !m_rs || !m_ts || !to0 || !to1 || !enc4 || !enc6 || !enct ||
	    !dec)
		return;
	p_init(&val, 64);
	r_all = mlx5dv_dr_rule_create(m_all, MP(&val), 1, &to0);
	p_mac(&val, P_SMAC, mac_e);
	r_rs = mlx5dv_dr_rule_create(m_rs, MP(&val), 1, &to1);
	p_mac(&val, P_SMAC, mac_b);
	r_e4 = mlx5dv_dr_rule_create(m_ts, MP(&val), 1, &enc4);
	p_mac(&val, P_SMAC, mac_c);
	r_e6 = mlx5dv_dr_rule_create(m_ts, MP(&val), 1, &enc6);
	p_mac(&val, P_SMAC, mac_a);
	r_et = mlx5dv_dr_rule_create(m_ts, MP(&val), 1, &enct);
	CHECK(r_all && r_rs && r_e4 && r_e6 && r_et);
	if (!r_all || !r_rs || !r_e4 || !r_e6 || !r_et)
		return;

	/* IPv4 encap: receive steering matches the outer smac */
	len = frame_build(mac_a, mac_b, 0, false);
	memcpy(inner, mem, len);
	vxlan_want(want, outer4, o4, inner, len);
	CHECK_EQ(send_bytes(len, &rl), 1);
	CHECK(rl == o4 + len && !memcmp(rx_buf(1), want, o4 + len));
	CHECK_EQ(rx_buf(1)[16] << 8 | rx_buf(1)[17], 100);	/* 50 + 64 - 14 */
	CHECK_EQ(rx_buf(1)[38] << 8 | rx_buf(1)[39], 80);	/* 100 - 20 */
	{
		/* and the header sums to 0xffff with the device's checksum */
		uint32_t sum = 0;

		for (int i = 0; i < 20; i += 2)
			sum += (uint32_t)rx_buf(1)[14 + i] << 8 | rx_buf(1)[15 + i];
		while (sum > 0xffff)
			sum = (sum >> 16) + (sum & 0xffff);
		CHECK_EQ(sum, 0xffff);
	}
	/* IPv6 encap: payload and UDP lengths, no UDP checksum */
	len = frame_build(mac_a, mac_c, 0, false);
	memcpy(inner, mem, len);
	vxlan_want(want, outer6, o6, inner, len);
	CHECK_EQ(send_bytes(len, &rl), 0);
	CHECK(rl == o6 + len && !memcmp(rx_buf(0), want, o6 + len));
	CHECK_EQ(rx_buf(0)[18] << 8 | rx_buf(0)[19], 8 + 8 + 64);
	/* a tagged outer header: the fixes find the IPv4 header behind the
	 * tag (what the untagged header gets, with the tag put in) */
	len = frame_build(mac_b, mac_a, 0, false);
	memcpy(inner, mem, len);
	vxlan_want(want, outer4, o4, inner, len);
	vlan_insert(want, o4 + len);
	memcpy(want + 6, mac_e, 6);
	CHECK_EQ(send_bytes(len, &rl), 1);
	CHECK(rl == ot + len && !memcmp(rx_buf(1), want, ot + len));

	/* decap on receive: rx[1] gets the inner frame back */
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_rs), 0);
	{
		struct mlx5dv_dr_action *a[2] = { dec, to1 };

		p_init(&val, 64);
		p_mac(&val, P_SMAC, mac_e);
		r_rs = mlx5dv_dr_rule_create(m_rs, MP(&val), 2, a);
	}
	CHECK(r_rs != NULL);
	len = frame_build(mac_a, mac_b, 0, false);
	memcpy(inner, mem, len);
	CHECK_EQ(send_bytes(len, &rl), 1);
	CHECK(rl == len && !memcmp(rx_buf(1), inner, len));
	/* a frame from mac_e that is no tunnel frame goes as it came */
	len = frame_build(mac_a, mac_e, 0, false);
	CHECK_EQ(send_bytes(len, &rl), 1);
	CHECK(rl == len && !memcmp(rx_buf(1), mem, len));
	/* the tagged outer header comes off too */
	len = frame_build(mac_b, mac_a, 0, false);
	memcpy(inner, mem, len);
	CHECK_EQ(send_bytes(len, &rl), 1);
	CHECK(rl == len && !memcmp(rx_buf(1), inner, len));
	/* UDP to 4789 with no room for a VXLAN header and an inner Ethernet
	 * header: no tunnel frame, delivered unchanged */
	memcpy(mem, outer4, o4);
	memset(mem + o4, 0x33, 13);
	CHECK_EQ(send_bytes((uint32_t)o4 + 13, &rl), 1);
	CHECK(rl == o4 + 13 && !memcmp(rx_buf(1), mem, o4 + 13));
	/* a VXLAN frame sent as it is (no encap rule for mac_e): decapsulated */
	frame_build(mac_b, mac_d, 0, false);
	memcpy(inner, mem, 64);
	memcpy(mem, outer4, o4);
	memcpy(mem + o4, inner, 64);
	CHECK_EQ(send_bytes((uint32_t)o4 + 64, &rl), 1);
	CHECK(rl == 64 && !memcmp(rx_buf(1), inner, 64));

	/* in use: busy */
	CHECK_EQ(mlx5dv_dr_action_destroy(enc4), EBUSY);
	CHECK_EQ(mlx5dv_dr_action_destroy(dec), EBUSY);
	CHECK_EQ(mlx5dv_dr_domain_destroy(txd), EBUSY);

	CHECK_EQ(mlx5dv_dr_rule_destroy(r_e4), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_e6), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_et), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_rs), 0);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r_all), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(enc4), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(enc6), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(enct), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(dec), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to0), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to1), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_all), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_rs), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_ts), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(rroot), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(troot), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(rxd), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(txd), 0);
}

/*
 * The mlx5dv flow API: a NIC TX matcher (EGRESS) whose rule only
 * encapsulates (the frame goes on), a NIC RX matcher delivering to rx[2];
 * ibv_destroy_flow_action busy while the flow lives.
 */
static void test_flow_reformat(void)
{
	struct mlx5dv_flow_matcher_attr ta = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.flags = IBV_FLOW_ATTR_FLAGS_EGRESS,
		.match_criteria_enable = 0,
	}, ra = { .type = IBV_FLOW_ATTR_NORMAL };
	struct mlx5dv_flow_matcher *tm, *rm;
	struct ibv_flow_action *enc;
	struct mlx5dv_flow_action_attr act[1];
	struct ibv_flow *tf = NULL, *rf = NULL;
	uint8_t outer[VXLAN_OUTER6], inner[128], want[256];
	struct param p;
	uint32_t len, rl = 0;
	size_t o;

	p_init(&p, 64);
	ta.match_mask = MP(&p);
	ra.match_mask = MP(&p);
	tm = mlx5dv_create_flow_matcher(ctx, &ta);
	rm = mlx5dv_create_flow_matcher(ctx, &ra);
	o = vxlan_outer(outer, mac_e, false);
	enc = mlx5dv_create_flow_action_packet_reformat(
		ctx, o, outer, MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL,
		MLX5DV_FLOW_TABLE_TYPE_NIC_TX);
	CHECK(tm && rm && enc);
	if (!tm || !rm || !enc)
		return;
	act[0].type = MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION;
	act[0].action = enc;
	tf = mlx5dv_create_flow(tm, MP(&p), 1, act);
	act[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	act[0].qp = rx[2];
	rf = mlx5dv_create_flow(rm, MP(&p), 1, act);
	CHECK(tf && rf);
	if (!tf || !rf)
		return;
	len = frame_build(mac_a, mac_b, 0, false);
	memcpy(inner, mem, len);
	vxlan_want(want, outer, o, inner, len);
	CHECK_EQ(send_bytes(len, &rl), 2);
	CHECK(rl == o + len && !memcmp(rx_buf(2), want, o + len));
	CHECK_EQ(ibv_destroy_flow_action(enc), EBUSY);
	CHECK_EQ(ibv_destroy_flow(tf), 0);
	CHECK_EQ(ibv_destroy_flow_action(enc), 0);
	/* the TX root is empty again: the frame goes as it is */
	CHECK_EQ(send_bytes(len, &rl), 2);
	CHECK(rl == len && !memcmp(rx_buf(2), inner, len));
	CHECK_EQ(ibv_destroy_flow(rf), 0);
	CHECK_EQ(mlx5dv_destroy_flow_matcher(tm), 0);
	CHECK_EQ(mlx5dv_destroy_flow_matcher(rm), 0);
}

/* ---- bad input: errno, and one SOFTMLX5_DEBUG line each ---- */

static FILE *logf;
static int saved_stderr = -1;

/* stderr into a temporary file while bad input is tried. */
static void log_capture(bool on)
{
	fflush(stderr);
	if (on) {
		logf = tmpfile();
		saved_stderr = dup(2);
		if (logf && saved_stderr >= 0)
			dup2(fileno(logf), 2);
		setenv("SOFTMLX5_DEBUG", "1", 1);
	} else {
		char line[1024];

		unsetenv("SOFTMLX5_DEBUG");
		if (saved_stderr >= 0) {
			dup2(saved_stderr, 2);
			close(saved_stderr);
		}
		if (!logf)
			return;
		/* failed CHECKs went to the file too: show them */
		rewind(logf);
		while (fgets(line, sizeof(line), logf))
			if (strncmp(line, "softmlx5[", 9))
				fputs(line, stderr);
		fclose(logf);
		logf = NULL;
	}
}

/* Lines written to the log since the last call. */
static int log_new_lines(void)
{
	static long seen;
	long end;
	int c, n = 0;

	fflush(stderr);
	if (!logf)
		return -1;
	end = lseek(fileno(logf), 0, SEEK_END);
	fseek(logf, seen, SEEK_SET);
	while (ftell(logf) < end && (c = fgetc(logf)) != EOF)
		n += c == '\n';
	seen = end;
	return n;
}

/* A failing pointer call: NULL, errno @err and exactly one log line. */
#define BAD_PTR(call, err)                                                     \
	do {                                                                   \
		void *p_;                                                      \
		log_new_lines();                                               \
		errno = 0;                                                     \
		p_ = (void *)(call);                                           \
		CHECKM(p_ == NULL && errno == (err) && log_new_lines() == 1,   \
		       "%s: errno %d", #call, errno);                          \
	} while (0)

#define BAD_INT(call, err)                                                     \
	do {                                                                   \
		int r_;                                                        \
		log_new_lines();                                               \
		r_ = (call);                                                   \
		CHECKM(r_ == (err) && log_new_lines() == 1, "%s: %d", #call,   \
		       r_);                                                    \
	} while (0)

/* Refused by the device: the firmware's line, the command's, DR's. */
#define BAD_PTR_DEV(call, err)                                                 \
	do {                                                                   \
		void *p_;                                                      \
		log_new_lines();                                               \
		errno = 0;                                                     \
		p_ = (void *)(call);                                           \
		CHECKM(p_ == NULL && errno == (err) && log_new_lines() >= 1,   \
		       "%s: errno %d", #call, errno);                          \
	} while (0)

/* NIC TX actions and rules: bad arguments, actions in the wrong domain,
 * modify header lists the device refuses, destroy order. */
static void test_tx_bad_input(void)
{
	struct mlx5dv_dr_domain *rxd = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
	struct mlx5dv_dr_domain *txd = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_TX);
	struct mlx5dv_dr_domain *txd2 = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_TX);
	struct mlx5dv_dr_table *rt = rxd ? mlx5dv_dr_table_create(rxd, 1) : NULL;
	struct mlx5dv_dr_table *tt = txd ? mlx5dv_dr_table_create(txd, 1) : NULL;
	struct mlx5dv_dr_matcher *rm = NULL, *tm = NULL;
	struct mlx5dv_dr_action *pop = mlx5dv_dr_action_create_pop_vlan();
	struct mlx5dv_dr_action *dmiss = mlx5dv_dr_action_create_default_miss();
	struct mlx5dv_dr_action *drop = mlx5dv_dr_action_create_drop();
	struct mlx5dv_dr_action *tag = mlx5dv_dr_action_create_tag(1);
	struct mlx5dv_dr_action *to0 = mlx5dv_dr_action_create_dest_ibv_qp(rx[0]);
	struct mlx5dv_dr_action *mod2 = NULL;
	__be64 ok = set_action(MLX5_ACTION_TYPE_SET, MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0,
			       0, 16, 1);
	__be64 bad;
	struct param mask, val;

	CHECK(rxd && txd && txd2 && rt && tt && pop && dmiss && drop && tag && to0);
	if (!rxd || !txd || !txd2 || !rt || !tt || !pop || !dmiss || !drop ||
	    !tag || !to0)
		return;
	p_init(&mask, 64);
	rm = mlx5dv_dr_matcher_create(rt, 0, 0, MP(&mask));
	tm = mlx5dv_dr_matcher_create(tt, 0, 0, MP(&mask));
	mod2 = mlx5dv_dr_action_create_modify_header(txd2, 0, 8, &ok);
	CHECK(rm && tm && mod2);
	if (!rm || !tm || !mod2)
		return;
	p_init(&val, 64);

	log_capture(true);
	/* modify header: arguments */
	BAD_PTR(mlx5dv_dr_action_create_modify_header(NULL, 0, 8, &ok), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_modify_header(txd, 0, 8, NULL), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_modify_header(txd, 0, 0, &ok), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_modify_header(txd, 0, 7, &ok), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_modify_header(txd, 0x2, 8, &ok), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_modify_header(rxd, 0, 8, &ok), EOPNOTSUPP);
	/* ... and lists the device refuses */
	bad = set_action(MLX5_ACTION_TYPE_SET, 0x99, 0, 16, 1);	/* unknown field */
	BAD_PTR_DEV(mlx5dv_dr_action_create_modify_header(txd, 0, 8, &bad), EINVAL);
	bad = set_action(MLX5_ACTION_TYPE_SET, 0x16, 0, 0, 1);	/* OUT_DIPV4: not done */
	BAD_PTR_DEV(mlx5dv_dr_action_create_modify_header(txd, 0, 8, &bad), EINVAL);
	bad = set_action(5, MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0, 0, 16, 1);
	BAD_PTR_DEV(mlx5dv_dr_action_create_modify_header(txd, 0, 8, &bad), EINVAL);
	bad = set_action(MLX5_ACTION_TYPE_COPY, MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0,
			 0, 16, 1);
	BAD_PTR_DEV(mlx5dv_dr_action_create_modify_header(txd, 0, 8, &bad), EINVAL);
	/* bits 8..24 of a 16-bit field */
	bad = set_action(MLX5_ACTION_TYPE_SET, MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0,
			 8, 16, 1);
	BAD_PTR_DEV(mlx5dv_dr_action_create_modify_header(txd, 0, 8, &bad), EINVAL);
	{
		__be64 many[40];

		for (int i = 0; i < 40; i++)
			many[i] = ok;	/* max_modify_header_actions is 32 */
		BAD_PTR_DEV(mlx5dv_dr_action_create_modify_header(txd, 0, sizeof(many),
								  many), EINVAL);
	}
	/* push VLAN */
	BAD_PTR(mlx5dv_dr_action_create_push_vlan(NULL, htobe32(0x81000005)), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_push_vlan(txd, htobe32(0x08000005)), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_push_vlan(rxd, htobe32(0x81000005)), EOPNOTSUPP);
	/* rules: rewrites only on TX, no QP or tag there, one fate, one domain */
	BAD_PTR(mlx5dv_dr_rule_create(rm, MP(&val), 1, &mod2), EOPNOTSUPP);
	BAD_PTR(mlx5dv_dr_rule_create(tm, MP(&val), 1, &to0), EINVAL);
	BAD_PTR(mlx5dv_dr_rule_create(tm, MP(&val), 1, &tag), EINVAL);
	BAD_PTR(mlx5dv_dr_rule_create(tm, MP(&val), 1, &mod2), EINVAL);
	{
		struct mlx5dv_dr_action *two[2] = { dmiss, drop };

		BAD_PTR(mlx5dv_dr_rule_create(tm, MP(&val), 2, two), EINVAL);
	}
	/* packet reformat: arguments, domains, types, header sizes */
	{
		uint8_t hdr[200];
		const int l2t = MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL;
		const int t2l = MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2;
		struct mlx5dv_dr_action *enc, *dec;

		memset(hdr, 0, sizeof(hdr));
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(NULL, 0, l2t, 50, hdr),
			EINVAL);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(txd, 0, l2t, 50, NULL),
			EINVAL);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(txd, 0, l2t, 13, hdr),
			EINVAL);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(txd, 0, l2t, 129, hdr),
			EINVAL);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(txd, 0x2, l2t, 50, hdr),
			EINVAL);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(rxd, 0, l2t, 50, hdr),
			EINVAL);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(txd, 0, t2l, 0, NULL),
			EINVAL);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(rxd, 0, t2l, 50, hdr),
			EINVAL);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(
				txd, 0, MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L3_TUNNEL,
				50, hdr), EOPNOTSUPP);
		BAD_PTR(mlx5dv_dr_action_create_packet_reformat(
				rxd, 0, MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L3_TUNNEL_TO_L2,
				0, NULL), EOPNOTSUPP);
		enc = mlx5dv_dr_action_create_packet_reformat(txd, 0, l2t, 50, hdr);
		dec = mlx5dv_dr_action_create_packet_reformat(rxd, 0, t2l, 0, NULL);
		CHECK(enc && dec);
		if (enc && dec) {
			struct mlx5dv_dr_action *a[2] = { dec, drop };

			/* encap only in TX rules, decap only in RX rules */
			BAD_PTR(mlx5dv_dr_rule_create(rm, MP(&val), 1, &enc), EOPNOTSUPP);
			BAD_PTR(mlx5dv_dr_rule_create(tm, MP(&val), 1, &dec), EINVAL);
			a[0] = a[1] = enc;	/* two encaps */
			BAD_PTR(mlx5dv_dr_rule_create(tm, MP(&val), 2, a), EINVAL);
			CHECK_EQ(mlx5dv_dr_action_destroy(enc), 0);
			CHECK_EQ(mlx5dv_dr_action_destroy(dec), 0);
		}
		/* the verbs-level action */
		BAD_PTR(mlx5dv_create_flow_action_packet_reformat(
				NULL, 50, hdr, l2t, MLX5DV_FLOW_TABLE_TYPE_NIC_TX), EINVAL);
		BAD_PTR(mlx5dv_create_flow_action_packet_reformat(
				ctx, 50, NULL, l2t, MLX5DV_FLOW_TABLE_TYPE_NIC_TX), EINVAL);
		BAD_PTR(mlx5dv_create_flow_action_packet_reformat(
				ctx, 13, hdr, l2t, MLX5DV_FLOW_TABLE_TYPE_NIC_TX), EINVAL);
		BAD_PTR(mlx5dv_create_flow_action_packet_reformat(
				ctx, 129, hdr, l2t, MLX5DV_FLOW_TABLE_TYPE_NIC_TX), EINVAL);
		BAD_PTR(mlx5dv_create_flow_action_packet_reformat(
				ctx, 8, hdr, t2l, MLX5DV_FLOW_TABLE_TYPE_NIC_RX), EINVAL);
		BAD_PTR(mlx5dv_create_flow_action_packet_reformat(
				ctx, 50, hdr, l2t, MLX5DV_FLOW_TABLE_TYPE_NIC_RX), EOPNOTSUPP);
		BAD_PTR(mlx5dv_create_flow_action_packet_reformat(
				ctx, 0, NULL, t2l, MLX5DV_FLOW_TABLE_TYPE_NIC_TX), EOPNOTSUPP);
		BAD_PTR(mlx5dv_create_flow_action_packet_reformat(
				ctx, 0, NULL, t2l, MLX5DV_FLOW_TABLE_TYPE_FDB), EOPNOTSUPP);
		/* a decap action in a NIC TX mlx5dv rule */
		{
			struct mlx5dv_flow_matcher_attr ta = {
				.type = IBV_FLOW_ATTR_NORMAL,
				.flags = IBV_FLOW_ATTR_FLAGS_EGRESS,
				.match_mask = MP(&val),
			};
			struct mlx5dv_flow_matcher *fm = mlx5dv_create_flow_matcher(ctx, &ta);
			struct ibv_flow_action *d = mlx5dv_create_flow_action_packet_reformat(
				ctx, 0, NULL, t2l, MLX5DV_FLOW_TABLE_TYPE_NIC_RX);
			struct mlx5dv_flow_action_attr fa = {
				.type = MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION, .action = d };

			CHECK(fm && d);
			if (fm && d)
				BAD_PTR(mlx5dv_create_flow(fm, MP(&val), 1, &fa), EINVAL);
			fa.action = NULL;
			if (fm)
				BAD_PTR(mlx5dv_create_flow(fm, MP(&val), 1, &fa), EINVAL);
			ta.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
			ta.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
			BAD_PTR(mlx5dv_create_flow_matcher(ctx, &ta), EINVAL);
			if (d)
				CHECK_EQ(ibv_destroy_flow_action(d), 0);
			if (fm)
				CHECK_EQ(mlx5dv_destroy_flow_matcher(fm), 0);
		}
	}
	/* in use */
	{
		struct mlx5dv_dr_rule *r = mlx5dv_dr_rule_create(tm, MP(&val), 1, &pop);

		CHECK(r != NULL);
		BAD_INT(mlx5dv_dr_action_destroy(pop), EBUSY);
		BAD_INT(mlx5dv_dr_domain_destroy(txd2), EBUSY);	/* mod2 */
		if (r)
			CHECK_EQ(mlx5dv_dr_rule_destroy(r), 0);
	}
	log_capture(false);

	CHECK_EQ(mlx5dv_dr_matcher_destroy(rm), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(tm), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(rt), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(tt), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(mod2), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(rxd), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(txd), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(txd2), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(pop), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(dmiss), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(drop), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(tag), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to0), 0);
}

static void test_bad_input(void)
{
	struct mlx5dv_dr_domain *dmn = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
	struct mlx5dv_dr_table *root = dmn ? mlx5dv_dr_table_create(dmn, 0) : NULL;
	struct mlx5dv_dr_table *t1 = dmn ? mlx5dv_dr_table_create(dmn, 1) : NULL;
	struct mlx5dv_dr_matcher *m1 = NULL, *m_root = NULL;
	struct mlx5dv_dr_action *to0, *to_t1, *drop, *dup_to;
	struct mlx5dv_dr_matcher_layout lay = { .flags = 0x80 };
	struct ibv_qp *rc;
	struct ibv_qp_init_attr rca = { .send_cq = scq, .recv_cq = scq,
					.cap = { .max_send_wr = 1, .max_recv_wr = 1,
						 .max_send_sge = 1, .max_recv_sge = 1 },
					.qp_type = IBV_QPT_RC };
	struct mlx5dv_devx_obj *c;
	struct param mask, val;
	uint32_t cid;

	CHECK(dmn && root && t1);
	if (!dmn || !root || !t1)
		return;
	p_init(&mask, 64);
	p_mac(&mask, P_DMAC, (const uint8_t[6]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff });
	m1 = mlx5dv_dr_matcher_create(t1, 0, 1, MP(&mask));
	m_root = mlx5dv_dr_matcher_create(root, 0, 1, MP(&mask));
	to0 = mlx5dv_dr_action_create_dest_ibv_qp(rx[0]);
	dup_to = mlx5dv_dr_action_create_dest_ibv_qp(rx[1]);
	to_t1 = mlx5dv_dr_action_create_dest_table(t1);
	drop = mlx5dv_dr_action_create_drop();
	rc = ibv_create_qp(pd, &rca);
	c = counter_alloc(&cid);
	CHECK(m1 && m_root && to0 && dup_to && to_t1 && drop && rc && c);
	if (!m1 || !m_root || !to0 || !dup_to || !to_t1 || !drop || !rc || !c)
		return;

	log_capture(true);
	/* domains */
	BAD_PTR(mlx5dv_dr_domain_create(NULL, MLX5DV_DR_DOMAIN_TYPE_NIC_RX), EINVAL);
	BAD_PTR(mlx5dv_dr_domain_create(ctx, (enum mlx5dv_dr_domain_type)7), EINVAL);
	/* no eswitch tables: the one-time stub line, then a debug line per
	 * call */
	BAD_PTR(mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_FDB), EOPNOTSUPP);
	BAD_PTR(mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_FDB), EOPNOTSUPP);
	if (logf) {
		char line[256] = "";
		long end;

		fflush(stderr);
		end = lseek(fileno(logf), 0, SEEK_END);
		fseek(logf, 0, SEEK_SET);
		while (ftell(logf) < end && fgets(line, sizeof(line), logf) &&
		       !strstr(line, "stub: mlx5dv_dr_domain_create(FDB)"))
			;
		CHECK(strstr(line, "stub: mlx5dv_dr_domain_create(FDB) is not "
			     "implemented") != NULL);
	}
	BAD_INT(mlx5dv_dr_domain_destroy(NULL), EINVAL);
	BAD_INT(mlx5dv_dr_domain_sync(NULL, MLX5DV_DR_DOMAIN_SYNC_FLAGS_SW), EINVAL);
	BAD_INT(mlx5dv_dr_domain_sync(dmn, 0x100), EINVAL);
	/* tables */
	BAD_PTR(mlx5dv_dr_table_create(NULL, 0), EINVAL);
	BAD_PTR(mlx5dv_dr_table_create(dmn, 200), EOPNOTSUPP);	/* > max_ft_level */
	BAD_INT(mlx5dv_dr_table_destroy(NULL), EINVAL);
	BAD_INT(mlx5dv_dr_table_destroy(t1), EBUSY);
	BAD_INT(mlx5dv_dr_domain_destroy(dmn), EBUSY);
	/* matchers */
	BAD_PTR(mlx5dv_dr_matcher_create(NULL, 0, 1, MP(&mask)), EINVAL);
	BAD_PTR(mlx5dv_dr_matcher_create(t1, 0, 1, NULL), EINVAL);
	BAD_PTR(mlx5dv_dr_matcher_create(t1, 0, 0x80, MP(&mask)), EINVAL);
	mask.sz = 0x300;
	BAD_PTR(mlx5dv_dr_matcher_create(t1, 0, 1, MP(&mask)), EINVAL);
	mask.sz = 0x200;
	mask.b[0x40 + 4] = 0xff;	/* misc: a field the device does not match */
	BAD_PTR(mlx5dv_dr_matcher_create(t1, 0, 3, MP(&mask)), EOPNOTSUPP);
	mask.b[0x80] = 0xff;		/* inner headers */
	BAD_PTR(mlx5dv_dr_matcher_create(t1, 0, 5, MP(&mask)), EOPNOTSUPP);
	/* the same bytes under criteria not enabled are ignored */
	{
		struct mlx5dv_dr_matcher *ok = mlx5dv_dr_matcher_create(t1, 0, 1, MP(&mask));

		CHECK(ok != NULL);
		if (ok)
			CHECK_EQ(mlx5dv_dr_matcher_destroy(ok), 0);
	}
	BAD_INT(mlx5dv_dr_matcher_destroy(NULL), EINVAL);
	BAD_INT(mlx5dv_dr_matcher_set_layout(m1, &lay), EINVAL);
	BAD_INT(mlx5dv_dr_matcher_set_layout(m1, NULL), EINVAL);
	/* actions */
	BAD_PTR(mlx5dv_dr_action_create_dest_ibv_qp(NULL), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_dest_ibv_qp(rc), EOPNOTSUPP);
	BAD_PTR(mlx5dv_dr_action_create_dest_table(NULL), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_dest_table(root), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_dest_devx_tir(NULL), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_dest_devx_tir(c), EINVAL);	/* a counter */
	BAD_PTR(mlx5dv_dr_action_create_tag(0x1000000), EINVAL);
	BAD_PTR(mlx5dv_dr_action_create_flow_counter(NULL, 0), EINVAL);
	BAD_INT(mlx5dv_dr_action_destroy(NULL), EINVAL);
	/* rules */
	p_init(&val, 64);
	p_mac(&val, P_DMAC, mac_a);
	BAD_PTR(mlx5dv_dr_rule_create(NULL, MP(&val), 1, &to0), EINVAL);
	BAD_PTR(mlx5dv_dr_rule_create(m1, NULL, 1, &to0), EINVAL);
	BAD_PTR(mlx5dv_dr_rule_create(m1, MP(&val), 1, NULL), EINVAL);
	BAD_PTR(mlx5dv_dr_rule_create(m1, MP(&val), 0, NULL), EINVAL);	/* no action */
	{
		struct mlx5dv_dr_action *two[2] = { to0, dup_to }, *mix[2] = { to0, drop },
					*nul[2] = { drop, NULL };

		BAD_PTR(mlx5dv_dr_rule_create(m1, MP(&val), 2, two), EINVAL);
		BAD_PTR(mlx5dv_dr_rule_create(m1, MP(&val), 2, mix), EINVAL);
		BAD_PTR(mlx5dv_dr_rule_create(m1, MP(&val), 2, nul), EINVAL);
	}
	/* t1 is level 1: not a destination of a rule in t1 itself */
	BAD_PTR(mlx5dv_dr_rule_create(m1, MP(&val), 1, &to_t1), EINVAL);
	val.b[0] = 1;		/* smac: not in the dmac matcher's mask */
	BAD_PTR(mlx5dv_dr_rule_create(m1, MP(&val), 1, &to0), EINVAL);
	val.b[0] = 0;
	val.sz = 0x80;
	val.b[0x40] = 1;	/* misc, not enabled: a value outside the mask */
	BAD_PTR(mlx5dv_dr_rule_create(m1, MP(&val), 1, &to0), EINVAL);
	val.b[0x40] = 0;
	BAD_INT(mlx5dv_dr_rule_destroy(NULL), EINVAL);
	{
		struct mlx5dv_dr_rule *r = mlx5dv_dr_rule_create(m_root, MP(&val), 1, &to_t1);

		CHECK(r != NULL);
		BAD_INT(mlx5dv_dr_matcher_destroy(m_root), EBUSY);
		BAD_INT(mlx5dv_dr_action_destroy(to_t1), EBUSY);
		if (r)
			CHECK_EQ(mlx5dv_dr_rule_destroy(r), 0);
	}
	log_capture(false);

	CHECK_EQ(mlx5dv_dr_matcher_destroy(m_root), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m1), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to_t1), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(t1), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(root), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(dmn), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(to0), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(dup_to), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(drop), 0);
	CHECK_EQ(mlx5dv_devx_obj_destroy(c), 0);
	ibv_destroy_qp(rc);
}

/* Dumps: a domain's lists its table, matcher and rule with the mask,
 * value and actions; narrower dumps their part; bad input EINVAL. */
static void test_dump(void)
{
	struct mlx5dv_dr_domain *d = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
	struct mlx5dv_dr_table *t = d ? mlx5dv_dr_table_create(d, 1) : NULL;
	struct mlx5dv_dr_matcher *m = NULL;
	struct mlx5dv_dr_action *tag = mlx5dv_dr_action_create_tag(0x1234);
	struct mlx5dv_dr_action *drop = mlx5dv_dr_action_create_drop();
	struct mlx5dv_dr_action *acts[2] = { tag, drop };
	struct mlx5dv_dr_rule *r = NULL;
	struct param mask, val;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(d && t && tag && drop);
	if (!d || !t || !tag || !drop)
		return;
	p_init(&mask, 0x40);
	p_mac(&mask, P_SMAC, (const uint8_t[6]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff });
	p_init(&val, 0x40);
	p_mac(&val, P_SMAC, mac_c);
	m = mlx5dv_dr_matcher_create(t, 3, 1, MP(&mask));
	CHECK(m != NULL);
	if (m)
		r = mlx5dv_dr_rule_create(m, MP(&val), 2, acts);
	CHECK(r != NULL);
	f = open_memstream(&buf, &len);
	CHECK(f && !mlx5dv_dump_dr_domain(f, d));
	if (f)
		fclose(f);
	CHECKM(buf && strstr(buf, "domain,") && strstr(buf, "type=nic_rx,tables=1") &&
	       strstr(buf, "level=1,flow_table=0x") &&
	       strstr(buf, "priority=3,criteria=0x1,mask=ffffffffffff") &&
	       strstr(buf, "value=0200000000") && strstr(buf, "actions=tag:0x1234;drop"),
	       "domain dump:\n%s", buf ? buf : "(none)");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK(f && !mlx5dv_dump_dr_rule(f, r) && !mlx5dv_dump_dr_matcher(f, m) &&
	      !mlx5dv_dump_dr_table(f, t));
	if (f)
		fclose(f);
	CHECK(buf && !strncmp(buf, "rule,", 5) && strstr(buf, "\nmatcher,") &&
	      strstr(buf, "\ntable,"));
	free(buf);
	errno = 0;
	CHECK(mlx5dv_dump_dr_domain(NULL, d) == EINVAL && errno == EINVAL);
	CHECK(mlx5dv_dump_dr_rule(stdout, NULL) == EINVAL);
	CHECK_EQ(mlx5dv_dr_rule_destroy(r), 0);
	CHECK_EQ(mlx5dv_dr_matcher_destroy(m), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(tag), 0);
	CHECK_EQ(mlx5dv_dr_action_destroy(drop), 0);
	CHECK_EQ(mlx5dv_dr_table_destroy(t), 0);
	CHECK_EQ(mlx5dv_dr_domain_destroy(d), 0);
}

int main(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_FLOW_TAG,
	};
	int i;

	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	mem = aligned_alloc(4096, 8192);
	memset(mem, 0, 8192);
	mr = ibv_reg_mr(pd, mem, 8192, IBV_ACCESS_LOCAL_WRITE);
	scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	rcq = ibv_create_cq_ex(ctx, &ca);
	CHECK(pd && mr && scq && rcq);
	if (!pd || !mr || !scq || !rcq)
		return smx_test_done();
	tx = raw_qp();
	CHECK(tx != NULL);
	for (i = 0; i < NRX; i++) {
		rx[i] = raw_qp();
		CHECK(rx[i] != NULL);
		if (!rx[i])
			return smx_test_done();
		post_recv(i);
	}
	if (!tx)
		return smx_test_done();
	test_steering();
	test_tx_steering();
	test_reformat();
	test_flow_reformat();
	test_bad_input();
	test_tx_bad_input();
	test_dump();
	for (i = 0; i < NRX; i++)
		ibv_destroy_qp(rx[i]);
	ibv_destroy_qp(tx);
	ibv_destroy_cq(ibv_cq_ex_to_cq(rcq));
	ibv_destroy_cq(scq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(mem);
	return smx_test_done();
}
