/* SPDX-License-Identifier: MIT */
/*
 * Raw packet QPs and ibv_create_flow through the public verbs API on the
 * software device's Ethernet port: caps, the RESET->INIT->RTR->RTS steps
 * and their attribute rules, frames sent with ibv_post_send (gather,
 * inline, checksum offload) and the ibv_wr_* API, received byte for byte
 * through an Ethernet flow with a tag (extended CQ: flow tag, C-VLAN,
 * timestamp), frames no flow matches and a drop flow, ERR flushing, RESET
 * and reuse, a QP that flows still use, and refused attributes.
 * With the argument "wire" (ctest test_raw_qp_wire) it cables the port to
 * a UNIX datagram socket (the `wire` knob) and checks frames both ways.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "smx_test.h"
#include "verbs_test_util.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *mem;		/* [0, 8K): frames to send; [8K, 16K): receives */
static struct ibv_cq *scq;
static struct ibv_cq_ex *rcq;

static const uint8_t dmac[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };
static const uint8_t smac[6] = { 0x24, 0x8a, 0x07, 0xa5, 0x28, 0xc8 };

/* Eth [VLAN] | IPv4 | UDP | payload, @len bytes, IP/UDP checksums 0. */
static void frame(uint8_t *f, size_t len, const uint8_t *dst, bool vlan)
{
	size_t o = 12, ip;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, smac, 6);
	if (vlan) {
		f[o++] = 0x81; f[o++] = 0x00;
		f[o++] = 0xac; f[o++] = 0x0c;
	}
	f[o++] = 0x08; f[o++] = 0x00;
	ip = o;
	f[ip] = 0x45;
	f[ip + 2] = (uint8_t)((len - ip) >> 8);
	f[ip + 3] = (uint8_t)(len - ip);
	f[ip + 8] = 64;
	f[ip + 9] = 17;
	f[ip + 12] = 1; f[ip + 15] = 1;
	f[ip + 16] = 2; f[ip + 19] = 2;
	f[ip + 20] = 0x04; f[ip + 21] = 0xd2;
	f[ip + 22] = 0x16; f[ip + 23] = 0x2e;
	f[ip + 24] = (uint8_t)((len - ip - 20) >> 8);
	f[ip + 25] = (uint8_t)(len - ip - 20);
	for (o = ip + 28; o < len; o++)
		f[o] = (uint8_t)(o * 7);
}

static struct ibv_qp *raw_qp(bool ex, uint32_t flags, struct ibv_cq *send_cq)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.send_cq = send_cq,
		.recv_cq = ibv_cq_ex_to_cq(rcq),
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 4,
			 .max_recv_sge = 2, .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};

	if (flags) {
		a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a.create_flags = flags;
	}
	if (ex) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	}
	return ibv_create_qp_ex(ctx, &a);
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s, int extra)
{
	struct ibv_qp_attr a = { .qp_state = s, .port_num = 1 };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | extra);
}

static int to_rts(struct ibv_qp *qp)
{
	int ret = to_state(qp, IBV_QPS_INIT, IBV_QP_PORT);

	if (!ret)
		ret = to_state(qp, IBV_QPS_RTR, 0);
	if (!ret)
		ret = to_state(qp, IBV_QPS_RTS, 0);
	return ret;
}

static void post_recv(struct ibv_qp *qp, uint64_t id, size_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)(mem + 8192 + off), len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1 }, *bad;

	CHECK_EQ(ibv_post_recv(qp, &wr, &bad), 0);
}

static int send_frame(struct ibv_qp *qp, uint64_t id, size_t len, int flags)
{
	struct ibv_sge s[2] = {
		{ (uintptr_t)mem, 7, mr->lkey },	/* splits the L2 header */
		{ (uintptr_t)mem + 7, (uint32_t)len - 7, mr->lkey },
	};
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = s, .num_sge = 2,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | flags }, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static int poll_send(uint64_t *id)
{
	struct ibv_wc wc;
	int n = ibv_poll_cq(scq, 1, &wc);

	if (n == 1 && id)
		*id = wc.wr_id;
	return n == 1 ? (int)wc.status : -1;
}

struct rx {
	int got;
	enum ibv_wc_status status;
	uint64_t wr_id;
	uint32_t len, qpn, tag, flags;
	uint16_t cvlan;
	uint64_t ts;
};

static struct rx poll_recv(void)
{
	struct ibv_poll_cq_attr pa = {};
	struct rx r = { 0 };

	if (ibv_start_poll(rcq, &pa))
		return r;
	r.got = 1;
	r.status = rcq->status;
	r.wr_id = rcq->wr_id;
	r.len = ibv_wc_read_byte_len(rcq);
	r.qpn = ibv_wc_read_qp_num(rcq);
	r.tag = ibv_wc_read_flow_tag(rcq);
	r.flags = ibv_wc_read_wc_flags(rcq);
	r.cvlan = ibv_wc_read_cvlan(rcq);
	r.ts = ibv_wc_read_completion_ts(rcq);
	ibv_end_poll(rcq);
	return r;
}

static struct ibv_flow *eth_flow(struct ibv_qp *qp, const uint8_t *mac,
				 uint32_t tag, bool drop)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
		union {
			struct ibv_flow_spec_action_tag tag;
			struct ibv_flow_spec_action_drop drop;
		} act;
	} f = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(f),
			  .num_of_specs = 2, .port = 1 },
		.eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(f.eth) },
	};

	memcpy(f.eth.val.dst_mac, mac, 6);
	memset(f.eth.mask.dst_mac, 0xff, 6);
	f.eth.val.ether_type = htobe16(0x0800);
	f.eth.mask.ether_type = 0xffff;
	if (drop) {
		f.act.drop.type = IBV_FLOW_SPEC_ACTION_DROP;
		f.act.drop.size = sizeof(f.act.drop);
	} else {
		f.act.tag.type = IBV_FLOW_SPEC_ACTION_TAG;
		f.act.tag.size = sizeof(f.act.tag);
		f.act.tag.tag_id = tag;
	}
	return ibv_create_flow(qp, &f.attr);
}

static void test_caps(void)
{
	struct ibv_device_attr_ex a;
	struct ibv_port_attr p;

	CHECK_EQ(ibv_query_device_ex(ctx, NULL, &a), 0);
	CHECK(a.raw_packet_caps & IBV_RAW_PACKET_CAP_CVLAN_STRIPPING);
	CHECK(a.raw_packet_caps & IBV_RAW_PACKET_CAP_IP_CSUM);
	CHECK(a.orig_attr.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM);
	CHECK_EQ(a.tso_caps.max_tso, 0);
	CHECK_EQ(ibv_query_port(ctx, 1, &p), 0);
	CHECK_EQ(p.link_layer, IBV_LINK_LAYER_ETHERNET);
}

static void test_traffic(void)
{
	struct ibv_qp *tx = raw_qp(true, 0, scq), *rx = raw_qp(false, 0, scq);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_flow *fl, *fdrop;
	struct ibv_qp_ex *qx;
	uint64_t id = 0;
	struct rx r;

	CHECK(tx && rx);
	if (!tx || !rx)
		return;
	CHECK(tx->qp_num != rx->qp_num);
	/* Receives need INIT, sends RTS; RESET->INIT needs the port. */
	{
		struct ibv_sge s = { (uintptr_t)(mem + 8192), 64, mr->lkey };
		struct ibv_recv_wr wr = { .sg_list = &s, .num_sge = 1 }, *bad;

		CHECK_EQ(ibv_post_recv(rx, &wr, &bad), EINVAL);
	}
	CHECK_EQ(to_state(rx, IBV_QPS_INIT, 0), EINVAL);
	CHECK_EQ(to_state(rx, IBV_QPS_RTR, 0), EINVAL);
	CHECK_EQ(to_state(rx, IBV_QPS_INIT, IBV_QP_PORT | IBV_QP_QKEY), EINVAL);
	CHECK_EQ(to_state(rx, IBV_QPS_INIT, IBV_QP_PORT), 0);
	CHECK_EQ(to_state(tx, IBV_QPS_INIT, IBV_QP_PORT), 0);
	frame(mem, 100, dmac, false);
	CHECK_EQ(send_frame(tx, 1, 100, 0), EINVAL);	/* INIT: no sends */
	CHECK_EQ(to_state(tx, IBV_QPS_RTR, 0), 0);
	CHECK_EQ(to_state(tx, IBV_QPS_RTS, 0), 0);
	CHECK_EQ(to_state(rx, IBV_QPS_RTR, 0), 0);
	CHECK_EQ(to_state(rx, IBV_QPS_RTS, 0), 0);
	CHECK_EQ(ibv_query_qp(rx, &qa, IBV_QP_STATE | IBV_QP_CAP, &qi), 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_RTS);
	CHECK(qi.cap.max_recv_wr >= 16 && qi.cap.max_send_sge >= 4);
	CHECK(qi.cap.max_inline_data >= 64);

	fl = eth_flow(rx, dmac, 0x42, false);
	CHECK(fl != NULL);
	/* Gathered from two entries, checksums offloaded. */
	post_recv(rx, 100, 0, 256);
	CHECK_EQ(send_frame(tx, 11, 100, IBV_SEND_IP_CSUM), 0);
	CHECK_EQ(poll_send(&id), IBV_WC_SUCCESS);
	CHECK_EQ(id, 11);
	r = poll_recv();
	CHECK(r.got);
	CHECK_EQ(r.status, IBV_WC_SUCCESS);
	CHECK_EQ(r.wr_id, 100);
	CHECK_EQ(r.len, 100);
	CHECK_EQ(r.qpn, rx->qp_num);
	CHECK_EQ(r.tag, 0x42);
	CHECK(r.flags & IBV_WC_IP_CSUM_OK);
	CHECK(r.ts != 0);
	CHECK(memcmp(mem + 8192, mem, 24) == 0);	/* up to the IP checksum */
	CHECK(memcmp(mem + 8192 + 44, mem + 44, 56) == 0);	/* the payload */
	CHECK(mem[8192 + 24] | mem[8192 + 25]);	/* IP checksum filled */

	/* Inline; then the QP-ex API with an inline list and a gather list. */
	frame(mem, 80, dmac, false);
	post_recv(rx, 101, 0, 256);
	CHECK_EQ(send_frame(tx, 12, 80, IBV_SEND_INLINE), 0);
	CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
	r = poll_recv();
	CHECK(r.got && r.len == 80 && r.wr_id == 101);
	CHECK(!(r.flags & IBV_WC_IP_CSUM_OK));	/* checksums 0: not OK */
	CHECK(memcmp(mem + 8192, mem, 80) == 0);

	qx = ibv_qp_to_qp_ex(tx);
	CHECK(qx != NULL);
	if (qx) {
		struct ibv_data_buf b[2] = { { mem, 10 }, { mem + 10, 60 } };
		struct ibv_sge g[3] = {
			{ (uintptr_t)mem, 20, mr->lkey },
			{ (uintptr_t)mem + 20, 30, mr->lkey },
			{ (uintptr_t)mem + 50, 20, mr->lkey },
		};

		frame(mem, 70, dmac, false);
		post_recv(rx, 102, 0, 256);
		post_recv(rx, 103, 256, 256);
		ibv_wr_start(qx);
		qx->wr_id = 21;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qx);
		ibv_wr_set_inline_data_list(qx, 2, b);
		qx->wr_id = 22;
		ibv_wr_send(qx);
		ibv_wr_set_sge_list(qx, 3, g);
		CHECK_EQ(ibv_wr_complete(qx), 0);
		CHECK_EQ(poll_send(&id), IBV_WC_SUCCESS);
		CHECK_EQ(id, 21);
		CHECK_EQ(poll_send(&id), IBV_WC_SUCCESS);
		CHECK_EQ(id, 22);
		r = poll_recv();
		CHECK(r.got && r.len == 70 && r.wr_id == 102);
		r = poll_recv();
		CHECK(r.got && r.len == 70 && r.wr_id == 103);
		CHECK(memcmp(mem + 8192, mem, 70) == 0);
		CHECK(memcmp(mem + 8192 + 256, mem, 70) == 0);
		/* A RECV-only opcode on a raw QP-ex fails the batch. */
		ibv_wr_start(qx);
		ibv_wr_send_imm(qx, 0);
		CHECK(ibv_wr_complete(qx) != 0);
	}

	/* No flow for this destination: sent, never received. */
	{
		static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 1 };

		frame(mem, 64, other, false);
		post_recv(rx, 104, 0, 256);
		CHECK_EQ(send_frame(tx, 13, 64, 0), 0);
		CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
		r = poll_recv();
		CHECK(!r.got);
		/* A drop flow for it: dropped as well. */
		fdrop = eth_flow(rx, other, 0, true);
		CHECK(fdrop != NULL);
		CHECK_EQ(send_frame(tx, 14, 64, 0), 0);
		CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
		r = poll_recv();
		CHECK(!r.got);
		if (fdrop)
			CHECK_EQ(ibv_destroy_flow(fdrop), 0);
	}
	/* A frame larger than the posted receive: the receive completes in
	 * error and the QP's receive side is in error. */
	frame(mem, 100, dmac, false);
	CHECK_EQ(send_frame(tx, 15, 100, 0), 0);	/* takes WQE 104 (256) */
	CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
	r = poll_recv();
	CHECK(r.got && r.wr_id == 104 && r.status == IBV_WC_SUCCESS);
	post_recv(rx, 105, 0, 32);
	CHECK_EQ(send_frame(tx, 16, 100, 0), 0);
	CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
	r = poll_recv();
	CHECK(r.got && r.wr_id == 105);
	CHECK_EQ(r.status, IBV_WC_LOC_LEN_ERR);
	CHECK_EQ(ibv_query_qp(rx, &qa, IBV_QP_STATE, &qi), 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR);
	/* ERR: posted receives come back flushed; RESET and back. */
	post_recv(rx, 106, 0, 256);
	CHECK_EQ(to_state(rx, IBV_QPS_ERR, 0), 0);
	CHECK_EQ(to_state(rx, IBV_QPS_RESET, 0), 0);	/* cleans the CQ */
	r = poll_recv();
	CHECK(!r.got);
	CHECK_EQ(to_rts(rx), 0);
	post_recv(rx, 107, 0, 256);
	CHECK_EQ(send_frame(tx, 17, 100, 0), 0);
	CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
	r = poll_recv();
	CHECK(r.got && r.wr_id == 107 && r.status == IBV_WC_SUCCESS);
	post_recv(rx, 108, 0, 256);
	CHECK_EQ(to_state(rx, IBV_QPS_ERR, 0), 0);
	r = poll_recv();
	CHECK(r.got && r.wr_id == 108 && r.status == IBV_WC_WR_FLUSH_ERR);

	/* Flows keep their QP. */
	CHECK_EQ(ibv_destroy_qp(rx), EBUSY);
	if (fl)
		CHECK_EQ(ibv_destroy_flow(fl), 0);
	CHECK_EQ(ibv_destroy_qp(rx), 0);
	CHECK_EQ(ibv_destroy_qp(tx), 0);
}

static void test_vlan_strip(void)
{
	struct ibv_qp *tx = raw_qp(false, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, scq);
	struct ibv_qp *rx = raw_qp(false, IBV_QP_CREATE_CVLAN_STRIPPING, scq);
	struct ibv_flow *fl;
	struct rx r;

	CHECK(tx && rx);
	if (!tx || !rx)
		return;
	CHECK_EQ(to_rts(tx), 0);
	CHECK_EQ(to_rts(rx), 0);
	fl = eth_flow(rx, dmac, 7, false);
	CHECK(fl != NULL);
	frame(mem, 104, dmac, true);
	post_recv(rx, 200, 0, 256);
	CHECK_EQ(send_frame(tx, 31, 104, 0), 0);
	CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
	r = poll_recv();
	CHECK(r.got && r.status == IBV_WC_SUCCESS);
	CHECK_EQ(r.len, 100);
	CHECK_EQ(r.cvlan, 0xac0c);
	CHECK(memcmp(mem + 8192, mem, 12) == 0);
	CHECK(memcmp(mem + 8192 + 12, mem + 16, 88) == 0);
	if (fl)
		CHECK_EQ(ibv_destroy_flow(fl), 0);

	/* A QP blocking multicast loopback does not get this context's own
	 * multicast frames; unicast ones still arrive. */
	{
		static const uint8_t uc[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
		struct ibv_qp *blk = raw_qp(false, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB,
					    scq);
		struct ibv_flow *fm = NULL, *fu = NULL;

		CHECK(blk != NULL);
		if (blk) {
			CHECK_EQ(to_rts(blk), 0);
			fm = eth_flow(blk, dmac, 1, false);
			fu = eth_flow(blk, uc, 2, false);
			CHECK(fm && fu);
			post_recv(blk, 300, 0, 256);
			frame(mem, 90, dmac, false);
			CHECK_EQ(send_frame(tx, 32, 90, 0), 0);
			CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
			r = poll_recv();
			CHECK(!r.got);
			frame(mem, 90, uc, false);
			CHECK_EQ(send_frame(tx, 33, 90, 0), 0);
			CHECK_EQ(poll_send(NULL), IBV_WC_SUCCESS);
			r = poll_recv();
			CHECK(r.got && r.wr_id == 300 && r.tag == 2);
			if (fm)
				CHECK_EQ(ibv_destroy_flow(fm), 0);
			if (fu)
				CHECK_EQ(ibv_destroy_flow(fu), 0);
			CHECK_EQ(ibv_destroy_qp(blk), 0);
		}
	}
	CHECK_EQ(ibv_destroy_qp(rx), 0);
	CHECK_EQ(ibv_destroy_qp(tx), 0);
}

static void test_refused(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = scq,
		.recv_cq = ibv_cq_ex_to_cq(rcq),
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};
	struct ibv_qp_init_attr_ex b;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	struct ibv_qp *qp;

	b = a;
	b.comp_mask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	b.max_tso_header = 64;
	CHECK(!ibv_create_qp_ex(ctx, &b) && errno == EOPNOTSUPP);
	b = a;
	b.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	b.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	CHECK(!ibv_create_qp_ex(ctx, &b) && errno == EOPNOTSUPP);
	b = a;
	b.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	b.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	CHECK(!ibv_create_qp_ex(ctx, &b) && errno == EOPNOTSUPP);
	b = a;
	b.srq = srq;
	CHECK(!ibv_create_qp_ex(ctx, &b) && errno == EOPNOTSUPP);
	b = a;
	b.cap.max_send_wr = 0xffffffff;
	CHECK(!ibv_create_qp_ex(ctx, &b) && errno == EINVAL);
	b = a;
	b.cap.max_recv_sge = 0xffff;
	CHECK(!ibv_create_qp_ex(ctx, &b) && errno == EINVAL);
	if (srq)
		ibv_destroy_srq(srq);

	/* Flows: on an RC QP, of another type, with unsupported specs. */
	qp = ibv_create_qp_ex(ctx, &a);
	CHECK(qp != NULL);
	if (qp) {
		struct {
			struct ibv_flow_attr attr;
			struct ibv_flow_spec_ipv6 ip6;
		} f = {
			.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(f),
				  .num_of_specs = 1, .port = 1 },
			.ip6 = { .type = IBV_FLOW_SPEC_IPV6, .size = sizeof(f.ip6) },
		};

		f.ip6.mask.flow_label = 0xffffffff;
		CHECK(!ibv_create_flow(qp, &f.attr) && errno == EOPNOTSUPP);
		f.ip6.mask.flow_label = 0;
		f.ip6.size = 8;
		CHECK(!ibv_create_flow(qp, &f.attr) && errno == EINVAL);
		f.ip6.size = sizeof(f.ip6);
		f.attr.type = IBV_FLOW_ATTR_SNIFFER;
		CHECK(!ibv_create_flow(qp, &f.attr) && errno == EOPNOTSUPP);
		f.attr.type = IBV_FLOW_ATTR_NORMAL;
		f.attr.port = 2;
		CHECK(!ibv_create_flow(qp, &f.attr) && errno == EINVAL);
		f.attr.port = 1;
		f.ip6.type = IBV_FLOW_SPEC_IPV6 | IBV_FLOW_SPEC_INNER;
		CHECK(!ibv_create_flow(qp, &f.attr) && errno == EOPNOTSUPP);
		CHECK_EQ(ibv_destroy_qp(qp), 0);
	}
	{
		struct ibv_qp_init_attr rc = {
			.send_cq = scq, .recv_cq = scq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct ibv_flow_attr fa = { .type = IBV_FLOW_ATTR_NORMAL,
					    .size = sizeof(fa), .port = 1 };

		qp = ibv_create_qp(pd, &rc);
		CHECK(qp != NULL);
		if (qp) {
			CHECK(!ibv_create_flow(qp, &fa) && errno == EOPNOTSUPP);
			CHECK_EQ(ibv_destroy_qp(qp), 0);
		}
	}
}

/*
 * The mlx5dv flow API on the same table: a matcher on the outer dmac, a rule
 * to the QP with a tag, and one to a DEVX TIR is refused when the object is
 * not a TIR; masks past the outer headers, a rule without a destination,
 * and destroying a matcher still in use are refused.
 */
static void test_dv_flow(void)
{
	struct ibv_qp *tx = raw_qp(false, 0, scq), *rx = raw_qp(false, 0, scq);
	struct {
		size_t sz;
		uint8_t b[0x180];
	} __attribute__((aligned(8))) mask = { 0x180, { 0 } }, val = { 0x180, { 0 } };
	struct mlx5dv_flow_matcher_attr ma = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.match_criteria_enable = 1,	/* outer headers */
		.match_mask = (struct mlx5dv_flow_match_parameters *)&mask,
		.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE,
		.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX,
	};
	struct mlx5dv_flow_action_attr act[2] = {
		{ .type = MLX5DV_FLOW_ACTION_DEST_IBV_QP, .qp = rx },
		{ .type = MLX5DV_FLOW_ACTION_TAG, .tag_value = 0x77 },
	};
	struct mlx5dv_flow_matcher *fm;
	struct ibv_flow *fl;
	uint64_t id = 0;
	struct rx r;

	CHECK(tx && rx);
	if (!tx || !rx)
		return;
	CHECK_EQ(to_rts(tx), 0);
	CHECK_EQ(to_rts(rx), 0);
	/* dmac is bytes 4..9 of fte_match_set_lyr_2_4 (after smac_47_16,
	 * smac_15_0, ethertype) -- PRM offsets: smac at 0, ethertype at 6,
	 * dmac_47_16 at 8, dmac_15_0 at 12 */
	memset(mask.b + 8, 0xff, 4);
	memset(mask.b + 12, 0xff, 2);
	memcpy(val.b + 8, dmac, 4);
	memcpy(val.b + 12, dmac + 4, 2);
	mask.b[100] = 1;	/* a misc field: not steered on */
	CHECK(!mlx5dv_create_flow_matcher(ctx, &ma) && errno == EOPNOTSUPP);
	mask.b[100] = 0;
	fm = mlx5dv_create_flow_matcher(ctx, &ma);
	CHECK(fm != NULL);
	if (!fm)
		return;
	CHECK(!mlx5dv_create_flow(fm, (struct mlx5dv_flow_match_parameters *)&val, 1,
				  &act[1]) && errno == EINVAL);	/* no destination */
	fl = mlx5dv_create_flow(fm, (struct mlx5dv_flow_match_parameters *)&val, 2, act);
	CHECK(fl != NULL);
	CHECK_EQ(mlx5dv_destroy_flow_matcher(fm), EBUSY);
	post_recv(rx, 300, 0, 256);
	frame(mem, 80, dmac, false);
	CHECK_EQ(send_frame(tx, 31, 80, 0), 0);
	CHECK_EQ(poll_send(&id), IBV_WC_SUCCESS);
	r = poll_recv();
	CHECK(r.got && r.status == IBV_WC_SUCCESS && r.wr_id == 300 && r.tag == 0x77 &&
	      r.len == 80 && !memcmp(mem + 8192, mem, 80));
	if (fl)
		CHECK_EQ(ibv_destroy_flow(fl), 0);
	CHECK_EQ(mlx5dv_destroy_flow_matcher(fm), 0);
	ibv_destroy_qp(tx);
	ibv_destroy_qp(rx);
}

/*
 * CQE compression: 16 frames sent with one doorbell land in an RQ whose CQ
 * compresses (checksum format). Before polling, the ring holds one session
 * as the PRM lays it out -- a title (format bits 3, byte_cnt 16, the first
 * WQE counter) and mini CQE arrays (checksum, byte count) in slots 1 and
 * 8 --, and polling expands it into the 16 completions, in order.
 */
static void test_cqe_compression(void)
{
	struct mlx5dv_cq_init_attr dva = {
		.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE,
		.cqe_comp_res_format = MLX5DV_CQE_RES_FORMAT_CSUM,
	};
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_cq_ex *ccq = mlx5dv_create_cq(ctx, &ca, &dva);
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = scq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};
	struct ibv_send_wr wr[16], *bad;
	struct ibv_sge sg[16];
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o = { .cq = { .out = &dcq } };
	struct ibv_flow *fl;
	struct ibv_qp *qp;
	struct ibv_wc wc[16];
	uint64_t id;
	const uint8_t *ring;
	int k, got = 0, tries;

	CHECK(ccq != NULL);
	if (!ccq)
		return;
	a.recv_cq = ibv_cq_ex_to_cq(ccq);
	qp = ibv_create_qp_ex(ctx, &a);
	CHECK(qp && !to_rts(qp));
	if (!qp)
		return;
	fl = eth_flow(qp, dmac, 0, false);
	CHECK(fl != NULL);
	for (k = 0; k < 16; k++) {
		post_recv(qp, (uint64_t)k, 256 * (size_t)k, 256);
		frame(mem + 512 * k, 64 + 8 * (size_t)k, dmac, false);
		sg[k] = (struct ibv_sge){ (uintptr_t)(mem + 512 * k), 64 + 8 * (uint32_t)k,
					  mr->lkey };
		wr[k] = (struct ibv_send_wr){ .wr_id = 100 + (uint64_t)k, .sg_list = &sg[k],
					      .num_sge = 1, .opcode = IBV_WR_SEND,
					      .send_flags = IBV_SEND_SIGNALED,
					      .next = k < 15 ? &wr[k + 1] : NULL };
	}
	CHECK_EQ(ibv_post_send(qp, wr, &bad), 0);
	for (k = 0; k < 16; k++)
		while (poll_send(&id) < 0)
			usleep(100);
	o.cq.in = ibv_cq_ex_to_cq(ccq);
	CHECK_EQ(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ), 0);
	ring = dcq.buf;
	CHECKM(ring && (ring[63] >> 2 & 3) == 3 && (ring[63] >> 4) == MLX5_CQE_RESP_SEND &&
	       be32toh(*(const uint32_t *)(ring + 44)) == 16,
	       "title: op_own 0x%02x byte_cnt %u", ring ? ring[63] : 0,
	       ring ? be32toh(*(const uint32_t *)(ring + 44)) : 0);
	for (k = 0; ring && k < 16; k++) {
		const uint8_t *m = ring + 64 * (k < 8 ? 1 : 8) + 8 * (k & 7);

		CHECKM(be32toh(*(const uint32_t *)(m + 4)) == 64 + 8 * (uint32_t)k,
		       "mini CQE %d: byte count %u", k, be32toh(*(const uint32_t *)(m + 4)));
	}
	for (tries = 0; got < 16 && tries < 1000; tries++) {
		int n = ibv_poll_cq(ibv_cq_ex_to_cq(ccq), 16 - got, wc + got);

		CHECK(n >= 0);
		got += n > 0 ? n : 0;
	}
	CHECK_EQ(got, 16);
	for (k = 0; k < got; k++)
		CHECKM(wc[k].status == IBV_WC_SUCCESS && wc[k].wr_id == (uint64_t)k &&
		       wc[k].byte_len == 64 + 8 * (uint32_t)k && wc[k].opcode == IBV_WC_RECV,
		       "completion %d: status %d wr_id %llu len %u", k, wc[k].status,
		       (unsigned long long)wc[k].wr_id, wc[k].byte_len);
	CHECK(!memcmp(mem + 8192 + 256 * 15, mem + 512 * 15, 64 + 8 * 15));
	CHECK_EQ(ibv_destroy_flow(fl), 0);
	CHECK_EQ(ibv_destroy_qp(qp), 0);
	CHECK_EQ(ibv_destroy_cq(ibv_cq_ex_to_cq(ccq)), 0);
}

/* Waits up to 2 s for a receive completion. */
static struct rx wait_recv(void)
{
	struct rx r = { 0 };
	int i;

	for (i = 0; i < 2000 && !r.got; i++) {
		r = poll_recv();
		if (!r.got)
			usleep(1000);
	}
	return r;
}

/* RSS through verbs: receive WQs, an indirection table, an RSS QP whose
 * flow spreads frames over the WQs by source address; rules and refusals. */
static void test_rss(void)
{
	static uint8_t key[40] = {	/* Microsoft's RSS verification key */
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d,
		0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
		0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b,
		0xbe, 0xac, 0x01, 0xfa,
	};
	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = 64, .max_sge = 1,
				       .pd = pd, .cq = ibv_cq_ex_to_cq(rcq) };
	struct ibv_wq_attr ma = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };
	struct ibv_device_attr_ex dx;
	struct ibv_wq *wq[4];
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 2, .ind_tbl = wq };
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RAW_PACKET, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.rx_hash_conf = { .rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				  .rx_hash_key_len = 40, .rx_hash_key = key,
				  .rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 },
	};
	struct ibv_qp *tx = raw_qp(false, 0, scq), *rss;
	struct ibv_rwq_ind_table *tbl;
	struct ibv_flow *fl;
	unsigned int seen = 0, got = 0;
	struct ibv_sge sge;
	struct ibv_recv_wr rw = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, k;

	CHECK(!ibv_query_device_ex(ctx, NULL, &dx) &&
	      dx.rss_caps.supported_qpts == 1u << IBV_QPT_RAW_PACKET &&
	      dx.rss_caps.max_rwq_indirection_table_size >= 4 &&
	      dx.rss_caps.rx_hash_function == IBV_RX_HASH_FUNC_TOEPLITZ);
	CHECK(tx && !to_rts(tx));
	for (i = 0; i < 4; i++) {
		wq[i] = ibv_create_wq(ctx, &wa);
		CHECK(wq[i] && !ibv_modify_wq(wq[i], &ma) && wq[i]->state == IBV_WQS_RDY);
		if (!wq[i])
			return;
		for (k = 0; k < 16; k++) {
			sge = (struct ibv_sge){ (uintptr_t)(mem + 8192 + 2048 * i + 128 * k), 128,
						mr->lkey };
			rw.wr_id = (uint64_t)(i << 8 | k);
			CHECK_EQ(ibv_post_wq_recv(wq[i], &rw, &bad), 0);
		}
	}
	tbl = ibv_create_rwq_ind_table(ctx, &ta);
	CHECK(tbl);
	/* the table and a WQ are PRM objects DEVX reaches through verbs */
	if (tbl) {
		uint32_t in[DEVX_ST_SZ_DW(eth_obj_cmd_in)] = {};
		uint8_t out[DEVX_ST_SZ_BYTES(query_rqt_out) + 16] = {};
		uint32_t qin[DEVX_ST_SZ_DW(eth_obj_cmd_in)] = {};
		uint32_t qout[DEVX_ST_SZ_DW(query_rq_out)] = {};
		const uint8_t *rqtc = DEVX_ADDR_OF(query_rqt_out, out, rqt_context);

		DEVX_SET(eth_obj_cmd_in, in, opcode, MLX5_CMD_OP_QUERY_RQT);
		DEVX_SET(eth_obj_cmd_in, in, obj_num, tbl->ind_tbl_num);
		CHECK_EQ(mlx5dv_devx_ind_tbl_query(tbl, in, sizeof(in), out, sizeof(out)), 0);
		CHECK_EQ(DEVX_GET(rqtc, rqtc, rqt_actual_size), 4);
		CHECK_EQ(DEVX_GET(rq_num, rqtc + DEVX_ST_SZ_BYTES(rqtc) + 8, rq_num),
			 wq[2]->wq_num);
		DEVX_SET(eth_obj_cmd_in, qin, opcode, MLX5_CMD_OP_QUERY_RQ);
		DEVX_SET(eth_obj_cmd_in, qin, obj_num, wq[1]->wq_num);
		CHECK_EQ(mlx5dv_devx_wq_query(wq[1], qin, sizeof(qin), qout, sizeof(qout)), 0);
		CHECK_EQ(DEVX_GET(query_rq_out, qout, rq_context.state), MLX5_RQC_STATE_RDY);
	}
	qa.rwq_ind_tbl = tbl;
	/* refused: a key that is not 40 bytes, IPv4 with IPv6, inner headers,
	 * no fields over more than one WQ */
	qa.rx_hash_conf.rx_hash_key_len = 16;
	CHECK(!ibv_create_qp_ex(ctx, &qa) && errno == EINVAL);
	qa.rx_hash_conf.rx_hash_key_len = 40;
	qa.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV6;
	CHECK(!ibv_create_qp_ex(ctx, &qa) && errno == EINVAL);
	qa.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_INNER;
	CHECK(!ibv_create_qp_ex(ctx, &qa) && errno == EOPNOTSUPP);
	qa.rx_hash_conf.rx_hash_fields_mask = 0;
	CHECK(!ibv_create_qp_ex(ctx, &qa) && errno == EINVAL);
	qa.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4;
	rss = ibv_create_qp_ex(ctx, &qa);
	CHECK(rss);
	if (!rss || !tbl)
		return;
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

		CHECK_EQ(ibv_modify_qp(rss, &a, IBV_QP_STATE | IBV_QP_PORT), EOPNOTSUPP);
	}
	fl = eth_flow(rss, dmac, 0, false);
	CHECK(fl);
	/* 16 sources: each lands on exactly one WQ, and more than one WQ
	 * is used */
	for (k = 0; k < 16; k++) {
		struct rx r;

		frame(mem, 100, dmac, false);
		mem[14 + 15] = (uint8_t)(k * 37 + 1);	/* source address */
		CHECK_EQ(send_frame(tx, 50 + (uint64_t)k, 100, 0), 0);
		r = wait_recv();
		CHECK(r.got && r.status == IBV_WC_SUCCESS && r.len == 100);
		if (r.got) {
			seen |= 1u << (r.wr_id >> 8);
			got++;
		}
		while (poll_send(NULL) < 0)
			usleep(100);
	}
	CHECKM(got == 16 && __builtin_popcount(seen) > 1, "got %u, WQs used 0x%x", got, seen);
	/* in use: the WQs by the table, the table by the QP */
	CHECK_EQ(ibv_destroy_wq(wq[0]), EBUSY);
	CHECK_EQ(ibv_destroy_rwq_ind_table(tbl), EBUSY);
	CHECK_EQ(ibv_destroy_flow(fl), 0);
	CHECK_EQ(ibv_destroy_qp(rss), 0);
	CHECK_EQ(ibv_destroy_rwq_ind_table(tbl), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(ibv_destroy_wq(wq[i]), 0);
	CHECK_EQ(ibv_destroy_qp(tx), 0);
	/* a WQ of another type, unknown flags */
	wa.wq_type = (enum ibv_wq_type)1;
	CHECK(!ibv_create_wq(ctx, &wa) && errno == EOPNOTSUPP);
	wa.wq_type = IBV_WQT_RQ;
	wa.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
	wa.create_flags = IBV_WQ_FLAGS_SCATTER_FCS;
	CHECK(!ibv_create_wq(ctx, &wa) && errno == EOPNOTSUPP);
	ta.log_ind_tbl_size = 30;
	CHECK(!ibv_create_rwq_ind_table(ctx, &ta) && errno == EINVAL);
}

/*
 * The port's cable: the device bound @port (SOFTMLX5_WIRE, set by main);
 * this test is the far end. Frames from it go through NIC receive
 * steering; frames the QP sends come back to it.
 */
static void test_wire(const char *port, const char *far)
{
	static uint8_t out[9300];
	static const uint8_t other[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct sockaddr_un pa = { .sun_family = AF_UNIX }, fa = { .sun_family = AF_UNIX };
	struct ibv_qp *qp = raw_qp(false, 0, scq);
	struct pollfd pfd;
	struct ibv_flow *fl;
	struct stat st;
	struct rx r;
	uint64_t id = 0;
	int fd, k;

	CHECKM(!lstat(port, &st) && S_ISSOCK(st.st_mode), "no socket at %s", port);
	CHECK(qp && !to_rts(qp));
	if (!qp)
		return;
	fl = eth_flow(qp, dmac, 0x77, false);
	CHECK(fl);
	snprintf(pa.sun_path, sizeof(pa.sun_path), "%s", port);
	snprintf(fa.sun_path, sizeof(fa.sun_path), "%s", far);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	CHECKM(fd >= 0 && !bind(fd, (struct sockaddr *)&fa, sizeof(fa)), "far end: %s",
	       strerror(errno));

	/* a frame from the cable lands through the flow, tag and all */
	frame(out, 200, dmac, false);
	post_recv(qp, 1, 0, 2048);
	CHECK_EQ(sendto(fd, out, 200, 0, (struct sockaddr *)&pa, sizeof(pa)), 200);
	r = wait_recv();
	CHECKM(r.got && r.status == IBV_WC_SUCCESS && r.wr_id == 1 && r.len == 200 &&
	       r.tag == 0x77 && !memcmp(mem + 8192, out, 200),
	       "cable -> QP: got %d status %d len %u tag 0x%x", r.got, r.status, r.len,
	       r.tag);

	/* a frame no flow matches, and one larger than any port takes: both
	 * dropped, the posted receive untouched */
	post_recv(qp, 2, 0, 2048);
	frame(out, 100, other, false);
	CHECK_EQ(sendto(fd, out, 100, 0, (struct sockaddr *)&pa, sizeof(pa)), 100);
	frame(out, sizeof(out), dmac, false);
	CHECK_EQ(sendto(fd, out, sizeof(out), 0, (struct sockaddr *)&pa, sizeof(pa)),
		 (ssize_t)sizeof(out));
	usleep(300000);
	r = poll_recv();
	CHECKM(!r.got, "a dropped frame completed (len %u)", r.len);

	/* a frame the QP sends leaves on the cable, to the far end */
	frame(mem, 300, other, false);
	CHECK_EQ(send_frame(qp, 9, 300, 0), 0);
	pfd.fd = fd;
	pfd.events = POLLIN;
	CHECKM(poll(&pfd, 1, 2000) == 1, "nothing came out of the port");
	CHECK_EQ(recv(fd, out, sizeof(out), MSG_DONTWAIT), 300);
	CHECK(!memcmp(out, mem, 300));
	while (poll_send(&id) < 0)
		usleep(100);
	CHECK_EQ(id, 9);

	/* 12 frames sent before the far end reads any: more than a UNIX
	 * datagram socket queues (10), so the port holds the rest back and
	 * all arrive, in order */
	for (k = 0; k < 12; k++) {
		frame(mem + 256 * k, 200, other, false);
		mem[256 * k + 60] = (uint8_t)k;
	}
	for (k = 0; k < 12; k++) {
		struct ibv_sge sg = { (uintptr_t)(mem + 256 * k), 200, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 100 + (uint64_t)k, .sg_list = &sg,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		CHECK_EQ(ibv_post_send(qp, &wr, &bad), 0);
	}
	for (k = 0; k < 12; k++) {
		while (poll_send(&id) < 0)
			usleep(100);
	}
	usleep(20000);
	for (k = 0; k < 12; k++) {
		ssize_t n;

		CHECKM(poll(&pfd, 1, 2000) == 1, "burst frame %d never came", k);
		n = recv(fd, out, sizeof(out), MSG_DONTWAIT);
		CHECKM(n == 200 && out[60] == (uint8_t)k, "burst frame %d: %zd bytes, #%u", k, n,
		       out[60]);
	}

	/* and one for the flow both loops back and leaves */
	frame(mem, 120, dmac, false);
	CHECK_EQ(send_frame(qp, 10, 120, 0), 0);
	r = wait_recv();
	CHECKM(r.got && r.wr_id == 2 && r.len == 120, "looped back: got %d len %u",
	       r.got, r.len);
	CHECKM(poll(&pfd, 1, 2000) == 1 &&
	       recv(fd, out, sizeof(out), MSG_DONTWAIT) == 120, "not on the cable");
	while (poll_send(&id) < 0)
		usleep(100);

	CHECK_EQ(ibv_destroy_flow(fl), 0);
	CHECK_EQ(ibv_destroy_qp(qp), 0);
	close(fd);
	unlink(far);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/smx-wire-XXXXXX", port[64] = "", far[64] = "";
	bool wire = argc > 1 && !strcmp(argv[1], "wire");
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_FLOW_TAG |
			    IBV_WC_EX_WITH_CVLAN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};

	if (wire) {
		CHECK(mkdtemp(dir));
		snprintf(port, sizeof(port), "%s/port", dir);
		snprintf(far, sizeof(far), "%s/far", dir);
		setenv("SOFTMLX5_WIRE", port, 1);
	}
	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	mem = aligned_alloc(4096, 16384);
	memset(mem, 0, 16384);
	mr = ibv_reg_mr(pd, mem, 16384, IBV_ACCESS_LOCAL_WRITE);
	scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	rcq = ibv_create_cq_ex(ctx, &ca);
	CHECK(pd && mr && scq && rcq);
	if (!pd || !mr || !scq || !rcq)
		return smx_test_done();
	if (wire) {
		test_wire(port, far);
	} else {
		test_caps();
		test_traffic();
		test_vlan_strip();
		test_refused();
		test_dv_flow();
		test_rss();
		test_cqe_compression();
	}
	ibv_destroy_cq(ibv_cq_ex_to_cq(rcq));
	ibv_destroy_cq(scq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(mem);
	if (wire) {
		/* the device (and its socket) may live until the process exits */
		unlink(port);
		rmdir(dir);
	}
	return smx_test_done();
}
