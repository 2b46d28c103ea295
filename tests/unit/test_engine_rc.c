/* SPDX-License-Identifier: MIT */
/*
 * Engine happy paths, driven through the device boundary only: RC SEND,
 * SEND_IMM, RDMA WRITE(+IMM), RDMA READ, atomics, inline data, several data
 * segments, unsignalled WQEs, NOP, ring wrap-around, PSNs in QUERY_QP; UC and
 * UD (GRH), SRQ receives; every buffer guarded.
 */
#include "eng_test_util.h"

static struct t_env env;
static struct t_cq *scq, *rcq;

struct pair {
	struct t_qp *a, *b;
};

static struct pair rc_pair(uint32_t st, const struct t_qp_opt *oa,
			   const struct t_qp_opt *ob)
{
	struct pair p;
	struct t_conn ca = { .rwe = 1, .rre = 1, .rae = 1, .retry_count = 7,
			     .rnr_retry = 7, .timeout = 14, .min_rnr_nak = 1,
			     .sq_psn = 0x100, .rq_psn = 0x200 };
	struct t_conn cb = ca;

	p.a = t_qp_create(&env, st, scq, rcq, oa);
	p.b = t_qp_create(&env, st, scq, rcq, ob);
	if (st == MLX5_QPC_ST_UC)
		ca.rre = ca.rae = cb.rre = cb.rae = 0;
	ca.remote_qpn = p.b->qpn;
	cb.remote_qpn = p.a->qpn;
	cb.sq_psn = 0x200;
	cb.rq_psn = 0x100;
	CHECK_EQ(t_qp_rts(p.a, &ca), 0);
	CHECK_EQ(t_qp_rts(p.b, &cb), 0);
	return p;
}

static void drain(struct t_cq *cq)
{
	struct mlx5_cqe64 c;

	while (t_poll(cq, &c))
		;
}

static void test_rc_send_write(void)
{
	struct pair p = rc_pair(MLX5_QPC_ST_RC, NULL, NULL);
	uint8_t *src = t_guarded(3000), *dst = t_guarded(4096);
	struct t_mr ms = t_mr(&env, env.pd, src, 3000, T_LR | T_LW);
	struct t_mr md = t_mr(&env, env.pd, dst, 4096, T_ALL);
	struct t_sge rs = { md.key, dst, 4096 };
	struct mlx5_cqe64 c;
	struct t_wqe w;
	uint8_t qpc[DEVX_ST_SZ_BYTES(qpc)] __attribute__((aligned(8)));
	uint32_t i, idx;

	CHECK(ms.key && md.key);
	for (i = 0; i < 3000; i++)
		src[i] = (uint8_t)(i * 7 + 1);

	/* SEND with immediate, solicited. */
	t_post_recv(p.b, &rs, 1);
	t_wqe_begin(&w, MLX5_OPCODE_SEND_IMM,
		    MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED,
		    htobe32(0xdeadbeef));
	t_wqe_data(&w, ms.key, src, 3000);
	idx = t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK_EQ(be32toh(c.sop_drop_qpn), (uint32_t)MLX5_OPCODE_SEND_IMM << 24 | p.a->qpn);
	CHECK_EQ(be16toh(c.wqe_counter), idx);
	CHECK_EQ(c.op_own & 1, 0);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND_IMM);
	CHECK_EQ(be32toh(c.byte_cnt), 3000);
	CHECK_EQ(c.imm_inval_pkey, htobe32(0xdeadbeef));
	CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, p.b->qpn);
	CHECK_EQ(be32toh(c.flags_rqpn) & 0xffffff, p.a->qpn);
	CHECK_EQ(be16toh(c.wqe_counter), 0);
	CHECK(!memcmp(src, dst, 3000));
	CHECK(t_guards_ok(dst, 4096) && t_guards_ok(src, 3000));

	/* PSNs moved by ceil(3000 / 1024) = 3 packets on both sides. */
	t_query_qp(&env, p.a->qpn, qpc);
	CHECK_EQ(DEVX_GET(qpc, qpc, next_send_psn), 0x103);
	t_query_qp(&env, p.b->qpn, qpc);
	CHECK_EQ(DEVX_GET(qpc, qpc, next_rcv_psn), 0x103);

	/* RDMA WRITE into the middle of dst. */
	memset(dst, 0, 4096);
	t_wqe_begin(&w, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)dst + 100, md.key);
	t_wqe_data(&w, ms.key, src, 1000);
	idx = t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK_EQ(be32toh(c.sop_drop_qpn) >> 24, MLX5_OPCODE_RDMA_WRITE);
	CHECK_EQ(be16toh(c.wqe_counter), idx);
	CHECK(!memcmp(dst + 100, src, 1000));
	CHECK_EQ(dst[99], 0);
	CHECK_EQ(dst[1100], 0);
	CHECK(!t_poll(rcq, &c));	/* a plain WRITE consumes no receive */
	CHECK(t_guards_ok(dst, 4096));

	/* RDMA WRITE with immediate: consumes a receive, byte_cnt = length. */
	t_post_recv(p.b, &rs, 1);
	t_wqe_begin(&w, MLX5_OPCODE_RDMA_WRITE_IMM, MLX5_WQE_CTRL_CQ_UPDATE,
		    htobe32(0x1234));
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)dst, md.key);
	t_wqe_data(&w, ms.key, src + 10, 500);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_WR_IMM);
	CHECK_EQ(be32toh(c.byte_cnt), 500);
	CHECK_EQ(c.imm_inval_pkey, htobe32(0x1234));
	CHECK(!memcmp(dst, src + 10, 500));
}

static void test_rc_read_atomic(void)
{
	struct pair p = rc_pair(MLX5_QPC_ST_RC, NULL, NULL);
	uint8_t *remote = t_guarded(8192), *local = t_guarded(8192);
	struct t_mr mr = t_mr(&env, env.pd, remote, 8192, T_ALL);
	struct t_mr ml = t_mr(&env, env.pd, local, 8192, T_LR | T_LW);
	uint64_t *ctr = (uint64_t *)(void *)(remote + 64);
	struct mlx5_cqe64 c;
	struct t_wqe w;
	uint32_t i;

	for (i = 0; i < 8192; i++)
		remote[i] = (uint8_t)(i ^ 0x5a);
	/* READ 5000 bytes spanning pages into two local segments. */
	t_wqe_begin(&w, MLX5_OPCODE_RDMA_READ, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)remote + 1000, mr.key);
	t_wqe_data(&w, ml.key, local, 3000);
	t_wqe_data(&w, ml.key, local + 4000, 2000);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK_EQ(be32toh(c.sop_drop_qpn) >> 24, MLX5_OPCODE_RDMA_READ);
	CHECK_EQ(be32toh(c.byte_cnt), 5000);
	CHECK(!memcmp(local, remote + 1000, 3000));
	CHECK(!memcmp(local + 4000, remote + 4000, 2000));
	CHECK(t_guards_ok(local, 8192) && t_guards_ok(remote, 8192));

	/* Fetch-and-add then compare-and-swap on a counter in host order
	 * (atomic_req_8B_endianness_mode 1); so are the values returned. */
	*ctr = 40;
	t_wqe_begin(&w, MLX5_OPCODE_ATOMIC_FA, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)ctr, mr.key);
	t_wqe_atomic(&w, 2, 0);
	t_wqe_data(&w, ml.key, local, 8);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK_EQ(be32toh(c.sop_drop_qpn) >> 24, MLX5_OPCODE_ATOMIC_FA);
	CHECK_EQ(be32toh(c.byte_cnt), 8);
	CHECK_EQ(*ctr, 42);
	CHECK_EQ(*(uint64_t *)(void *)local, 40);

	t_wqe_begin(&w, MLX5_OPCODE_ATOMIC_CS, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)ctr, mr.key);
	t_wqe_atomic(&w, 7, 42);
	t_wqe_data(&w, ml.key, local + 8, 8);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(*ctr, 7);
	CHECK_EQ(*(uint64_t *)(void *)(local + 8), 42);
	/* A failed compare leaves memory alone and returns the value. */
	t_wqe_begin(&w, MLX5_OPCODE_ATOMIC_CS, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)ctr, mr.key);
	t_wqe_atomic(&w, 9, 1);
	t_wqe_data(&w, ml.key, local + 16, 8);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(*ctr, 7);
	CHECK_EQ(*(uint64_t *)(void *)(local + 16), 7);
}

static void test_inline_unsignaled_nop_wrap(void)
{
	struct t_qp_opt small = { .log_sq = 2 };	/* 4 WQEBBs: wraps fast */
	struct pair p = rc_pair(MLX5_QPC_ST_RC, &small, NULL);
	uint8_t *dst = t_guarded(4096), msg[100];
	struct t_mr md = t_mr(&env, env.pd, dst, 4096, T_ALL);
	struct t_sge rs = { md.key, dst, 4096 };
	struct mlx5_cqe64 c;
	struct t_wqe w;
	uint32_t i, round, idx = 0;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(0xc0 + i);
	/* 100 inline bytes: ctrl 16 + 4 + 100 -> DS 8, 2 WQEBBs; with 4
	 * WQEBBs and a NOP of one in between, WQEs wrap over the ring end. */
	for (round = 0; round < 6; round++) {
		t_wqe_begin(&w, MLX5_OPCODE_NOP, 0, 0);
		t_post(p.a, &w);	/* unsignalled: no CQE */
		t_post_recv(p.b, &rs, 1);
		t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		msg[0] = (uint8_t)round;
		t_wqe_inline(&w, msg, sizeof(msg));
		idx = t_post(p.a, &w);
		CHECK(t_poll(scq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
		CHECK_EQ(be16toh(c.wqe_counter), idx);
		CHECK(!t_poll(scq, &c));
		CHECK(t_poll(rcq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
		CHECK_EQ(be32toh(c.byte_cnt), sizeof(msg));
		CHECK(!memcmp(dst, msg, sizeof(msg)));
	}
	CHECK_EQ(idx, 3 * 5 + 1);
	/* A signalled NOP completes with its own CQE. */
	t_wqe_begin(&w, MLX5_OPCODE_NOP, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	idx = t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(be32toh(c.sop_drop_qpn) >> 24, MLX5_OPCODE_NOP);
	CHECK_EQ(be16toh(c.wqe_counter), idx);
	CHECK(t_guards_ok(dst, 4096));
}

static void test_multi_sge_send(void)
{
	struct pair p = rc_pair(MLX5_QPC_ST_RC, NULL, NULL);
	uint8_t *src = t_guarded(9000), *d1 = t_guarded(100), *d2 = t_guarded(9000);
	struct t_mr ms = t_mr(&env, env.pd, src, 9000, T_LR);
	struct t_mr m1 = t_mr(&env, env.pd, d1, 100, T_LW);
	struct t_mr m2 = t_mr(&env, env.pd, d2, 9000, T_LW);
	struct t_sge rs[2] = { { m1.key, d1, 100 }, { m2.key, d2, 9000 } };
	struct mlx5_cqe64 c;
	struct t_wqe w;
	uint32_t i;

	for (i = 0; i < 9000; i++)
		src[i] = (uint8_t)(i * 13);
	t_post_recv(p.b, rs, 2);
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_data(&w, ms.key, src, 10);
	t_wqe_data(&w, ms.key, src + 10, 5000);
	t_wqe_data(&w, ms.key, src + 5010, 3990);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(be32toh(c.byte_cnt), 9000);
	CHECK(!memcmp(d1, src, 100));
	CHECK(!memcmp(d2, src + 100, 8900));
	CHECK(t_guards_ok(d1, 100) && t_guards_ok(d2, 9000));
}

static void test_uc(void)
{
	struct pair p = rc_pair(MLX5_QPC_ST_UC, NULL, NULL);
	uint8_t *src = t_guarded(256), *dst = t_guarded(256);
	struct t_mr ms = t_mr(&env, env.pd, src, 256, T_LR);
	struct t_mr md = t_mr(&env, env.pd, dst, 256, T_LW | T_RW);
	struct t_sge rs = { md.key, dst, 256 };
	struct mlx5_cqe64 c;
	struct t_wqe w;

	memset(src, 0x77, 256);
	t_post_recv(p.b, &rs, 1);
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_data(&w, ms.key, src, 256);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
	CHECK(!memcmp(dst, src, 256));
	/* UC WRITE, then a UC SEND without a receive: dropped silently, the
	 * sender still completes successfully. */
	memset(dst, 0, 256);
	t_wqe_begin(&w, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)dst, md.key);
	t_wqe_data(&w, ms.key, src, 128);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK_EQ(dst[127], 0x77);
	CHECK_EQ(dst[128], 0);
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_data(&w, ms.key, src, 16);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(!t_poll(rcq, &c));
	CHECK_EQ(t_qp_state(&env, p.a->qpn), MLX5_QPC_STATE_RTS);
}

/* The ones' complement sum of @n bytes (0xffff over a header with a
 * right checksum), computed here, not by the device's code. */
static unsigned int t_csum16(const uint8_t *b, unsigned int n)
{
	unsigned int s = 0, i;

	for (i = 0; i + 1 < n; i += 2)
		s += (unsigned int)b[i] << 8 | b[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static struct t_qp *ud_qp(uint32_t qkey)
{
	struct t_qp *qp = t_qp_create(&env, MLX5_QPC_ST_UD, scq, rcq, NULL);
	struct t_conn c = { .qkey = qkey, .sq_psn = 5 };

	CHECK_EQ(t_qp_rts(qp, &c), 0);
	return qp;
}

static void test_ud(void)
{
	struct t_qp *a = ud_qp(0x1111), *b = ud_qp(0x2222);
	uint8_t *src = t_guarded(512), *dst = t_guarded(1024);
	struct t_mr ms = t_mr(&env, env.pd, src, 512, T_LR);
	struct t_mr md = t_mr(&env, env.pd, dst, 1024, T_LW);
	struct t_sge rs = { md.key, dst, 1024 };
	struct mlx5_cqe64 c;
	struct t_wqe w;
	uint8_t *ip = dst + 20;

	memset(src, 0x3c, 512);
	t_post_recv(b, &rs, 1);
	t_wqe_begin(&w, MLX5_OPCODE_SEND_IMM, MLX5_WQE_CTRL_CQ_UPDATE,
		    htobe32(77));
	t_wqe_ud(&w, &env, b->qpn, 0x2222);
	t_wqe_data(&w, ms.key, src, 512);
	t_post(a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND_IMM);
	CHECK_EQ(be32toh(c.byte_cnt), 512 + 40);
	CHECK_EQ(be32toh(c.flags_rqpn) & 0xffffff, a->qpn);
	CHECK_EQ((be32toh(c.flags_rqpn) >> 28) & 3, 1);	/* GRH present */
	CHECK_EQ((be32toh(c.flags_rqpn) >> 24) & 3, 2);	/* RoCEv2 IPv4 */
	CHECK(!memcmp(dst + 40, src, 512));
	/* IPv4 header in the last 20 bytes of the GRH space. */
	CHECK_EQ(ip[0], 0x45);
	CHECK_EQ(ip[9], 17);
	CHECK(!memcmp(ip + 12, env.gid + 12, 4));
	CHECK(!memcmp(ip + 16, env.gid + 12, 4));
	CHECK_EQ(ip[8], 64);
	/* the packet's IP header as rxe and a ConnectX copy it: its total
	 * length counts IP, UDP, BTH, DETH, ImmDt, payload and ICRC, and its
	 * header checksum is right */
	CHECK_EQ(ip[2] << 8 | ip[3], 20 + 8 + 12 + 8 + 4 + 512 + 4);
	CHECK_EQ(ip[6], 0x40);				/* DF */
	CHECK_EQ(t_csum16(ip, 20), 0xffff);
	CHECK(t_guards_ok(dst, 1024));

	/* 13 bytes, no immediate: the pad (3) counts too */
	t_post_recv(b, &rs, 1);
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_ud(&w, &env, b->qpn, 0x2222);
	t_wqe_data(&w, ms.key, src, 13);
	t_post(a, &w);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
	CHECK_EQ(ip[2] << 8 | ip[3], 20 + 8 + 12 + 8 + 16 + 4);
	CHECK_EQ(t_csum16(ip, 20), 0xffff);

	/* Wrong qkey: dropped, the sender completes anyway. qkey with the
	 * high bit set: the sender QP's own qkey is used (0x1111 -> a's). */
	t_post_recv(b, &rs, 1);
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_ud(&w, &env, b->qpn, 0x9999);
	t_wqe_data(&w, ms.key, src, 8);
	t_post(a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(!t_poll(rcq, &c));
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_ud(&w, &env, a->qpn, 0x80000000);	/* to a, with a's qkey */
	t_wqe_data(&w, ms.key, src, 8);
	t_post_recv(a, &rs, 1);
	t_post(a, &w);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(c.byte_cnt), 48);
	/* No receive posted: dropped silently. */
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_ud(&w, &env, b->qpn, 0x2222);
	t_wqe_data(&w, ms.key, src, 8);
	t_post(a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	drain(rcq);
	CHECK_EQ(t_qp_state(&env, b->qpn), MLX5_QPC_STATE_RTS);
}

static uint32_t t_srq(uint32_t log, uint8_t **bufp, volatile uint32_t **dbp)
{
	size_t bytes = (size_t)64 << log, i;
	size_t inlen = DEVX_ST_SZ_BYTES(create_srq_in) + 8 * ((bytes + 4095) / 4096);
	uint8_t *in = calloc(1, inlen), *buf = t_zalloc(bytes);
	volatile uint32_t *db = t_zalloc(64);
	TMB(create_srq_out) = { 0 };
	void *ctx = DEVX_ADDR_OF(create_srq_in, in, srq_context_entry);
	uint32_t srqn = 0;

	DEVX_SET(create_srq_in, in, opcode, MLX5_CMD_OP_CREATE_SRQ);
	DEVX_SET(srqc, ctx, log_srq_size, log);
	DEVX_SET(srqc, ctx, log_rq_stride, 2);
	DEVX_SET(srqc, ctx, pd, env.pd);
	DEVX_SET64(srqc, ctx, dbr_addr, (uint64_t)(uintptr_t)db);
	for (i = 0; i * 4096 < bytes; i++) {
		uint64_t v = htobe64((uint64_t)(uintptr_t)buf + i * 4096);

		memcpy(in + DEVX_BYTE_OFF(create_srq_in, pas) + i * 8, &v, 8);
	}
	/* The free list a driver builds: i -> i + 1. */
	for (i = 0; i < (1u << log); i++) {
		struct mlx5_wqe_srq_next_seg *n = (void *)(buf + i * 64);

		n->next_wqe_index = htobe16((uint16_t)((i + 1) & ((1u << log) - 1)));
	}
	if (!t_exec(env.d, in, inlen, create_srq_out, sizeof(create_srq_out)))
		srqn = DEVX_GET(create_srq_out, create_srq_out, srqn);
	free(in);
	*bufp = buf;
	*dbp = db;
	return srqn;
}

static void test_srq(void)
{
	uint8_t *sbuf;
	volatile uint32_t *sdb;
	uint32_t srqn = t_srq(3, &sbuf, &sdb);
	struct t_qp_opt o = { .srqn = srqn };
	struct pair p = rc_pair(MLX5_QPC_ST_RC, NULL, &o);
	uint8_t *src = t_guarded(64), *dst = t_guarded(4 * 64);
	struct t_mr ms = t_mr(&env, env.pd, src, 64, T_LR);
	struct t_mr md = t_mr(&env, env.pd, dst, 4 * 64, T_LW);
	struct mlx5_cqe64 c;
	struct t_wqe w;
	/* Post WQEs at indexes 0, 1, 2 out of order of the list: the driver
	 * puts them where its free list says; the device follows the list. */
	uint16_t order[3] = { 0, 1, 2 };
	uint32_t i;

	CHECK(srqn != 0);
	for (i = 0; i < 3; i++) {
		struct mlx5_wqe_data_seg *d = (void *)(sbuf + order[i] * 64 + 16);

		d[0].byte_count = htobe32(64);
		d[0].lkey = htobe32(md.key);
		d[0].addr = htobe64((uint64_t)(uintptr_t)(dst + i * 64));
		d[1].lkey = htobe32(MLX5_INVALID_LKEY);
	}
	sdb[0] = htobe32(3);
	for (i = 0; i < 3; i++) {
		memset(src, 0x10 + i, 64);
		t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		t_wqe_data(&w, ms.key, src, 64);
		t_post(p.a, &w);
		CHECK(t_poll(scq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
		CHECK(t_poll(rcq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
		CHECK_EQ(be16toh(c.wqe_counter), order[i]);
		CHECK_EQ(be32toh(c.srqn_uidx) & 0xffffff, srqn);
		CHECK_EQ(dst[i * 64 + 63], 0x10 + i);
	}
	CHECK(t_guards_ok(dst, 4 * 64));
}

int main(void)
{
	t_env_open(&env);
	scq = t_cq_create(&env, 6, 0);
	rcq = t_cq_create(&env, 6, 0);
	CHECK(env.d && scq && rcq);
	test_rc_send_write();
	test_rc_read_atomic();
	test_inline_unsignaled_nop_wrap();
	test_multi_sge_send();
	test_uc();
	test_ud();
	test_srq();
	smx_dev_close(env.d);
	t_free_all();
	return smx_test_done();
}
