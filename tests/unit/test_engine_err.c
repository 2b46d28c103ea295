/* SPDX-License-Identifier: MIT */
/*
 * Every error completion provoked on purpose, through the device boundary:
 * local length / protection / QP operation errors, remote access / invalid
 * request / operational errors, RNR and transport retries exhausted, flushes
 * after an error (send and receive side), QP states after errors -- and that
 * no byte outside a registered range is touched (guard bytes, ASan).
 */
#include <sys/mman.h>
#include <time.h>

#include "eng_test_util.h"

static struct t_env env;
static struct t_cq *scq, *rcq;

struct pair {
	struct t_qp *a, *b;
};

static struct t_conn conn_defaults(void)
{
	struct t_conn c = { .rwe = 1, .rre = 1, .rae = 1, .retry_count = 7,
			    .rnr_retry = 7, .timeout = 14, .min_rnr_nak = 1 };

	return c;
}

static struct pair mk_pair(uint32_t st, const struct t_conn *ca,
			   const struct t_conn *cb)
{
	struct pair p;
	struct t_conn a = ca ? *ca : conn_defaults();
	struct t_conn b = cb ? *cb : conn_defaults();

	p.a = t_qp_create(&env, st, scq, rcq, NULL);
	p.b = t_qp_create(&env, st, scq, rcq, NULL);
	a.remote_qpn = p.b->qpn;
	b.remote_qpn = p.a->qpn;
	CHECK_EQ(t_qp_rts(p.a, &a), 0);
	CHECK_EQ(t_qp_rts(p.b, &b), 0);
	return p;
}

static void drain(void)
{
	struct mlx5_cqe64 c;

	while (t_poll(scq, &c) || t_poll(rcq, &c))
		;
}

/* Polls @cq, running watcher passes, for up to @ms milliseconds. */
static int wait_cqe(struct t_cq *cq, struct mlx5_cqe64 *c, unsigned int ms)
{
	struct timespec ts = { 0, 50000 };
	unsigned int i;

	for (i = 0; i < ms * 20; i++) {
		if (t_poll(cq, c))
			return 1;
		eng_poll(smx_dev_eng(env.d));
		nanosleep(&ts, NULL);
	}
	return t_poll(cq, c);
}

/* Expects a requester error CQE with @synd for WQE @idx, QP in ERR. */
static void expect_req_err(struct t_qp *qp, uint32_t idx, uint8_t synd,
			   uint8_t opcode)
{
	struct mlx5_cqe64 c;

	CHECK(wait_cqe(scq, &c, 100));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ_ERR);
	CHECK_EQ(t_cqe_synd(&c), synd);
	CHECK_EQ(be16toh(c.wqe_counter), idx);
	CHECK_EQ(be32toh(c.sop_drop_qpn), (uint32_t)opcode << 24 | qp->qpn);
	CHECK_EQ(t_qp_state(&env, qp->qpn), MLX5_QPC_STATE_ERR);
}

static uint32_t post_send(struct t_qp *qp, uint8_t op, uint32_t lkey,
			  const void *addr, uint32_t len, bool signaled)
{
	struct t_wqe w;

	t_wqe_begin(&w, op, signaled ? MLX5_WQE_CTRL_CQ_UPDATE : 0, 0);
	t_wqe_data(&w, lkey, addr, len);
	return t_post(qp, &w);
}

static uint32_t post_rdma(struct t_qp *qp, uint8_t op, uint64_t raddr,
			  uint32_t rkey, uint32_t lkey, void *addr, uint32_t len)
{
	struct t_wqe w;

	t_wqe_begin(&w, op, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, raddr, rkey);
	if (op == MLX5_OPCODE_ATOMIC_CS || op == MLX5_OPCODE_ATOMIC_FA)
		t_wqe_atomic(&w, 1, 0);
	if (len)
		t_wqe_data(&w, lkey, addr, len);
	return t_post(qp, &w);
}

/* ---- local errors ---- */

static void test_loc_len(void)
{
	struct pair p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	uint8_t *src = t_guarded(200), *dst = t_guarded(100);
	struct t_mr ms = t_mr(&env, env.pd, src, 200, T_LR);
	struct t_mr md = t_mr(&env, env.pd, dst, 100, T_LW);
	struct t_sge rs = { md.key, dst, 100 };
	struct mlx5_cqe64 c;
	uint32_t idx, idx2;

	t_post_recv(p.b, &rs, 1);
	idx = post_send(p.a, MLX5_OPCODE_SEND, ms.key, src, 200, true);
	/* The receiver: LOCAL_LENGTH_ERR, QP in error. */
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_ERR);
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, p.b->qpn);
	CHECK_EQ(t_qp_state(&env, p.b->qpn), MLX5_QPC_STATE_ERR);
	/* The sender: remote invalid request. */
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
		       MLX5_OPCODE_SEND);
	CHECK(t_guards_ok(dst, 100));
	/* After the error: later sends flush (signalled or not), and
	 * receives posted to the QP in error flush too. */
	idx = post_send(p.a, MLX5_OPCODE_SEND, ms.key, src, 10, false);
	idx2 = post_send(p.a, MLX5_OPCODE_SEND, ms.key, src, 10, true);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CHECK_EQ(be16toh(c.wqe_counter), idx);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CHECK_EQ(be16toh(c.wqe_counter), idx2);
	t_post_recv(p.b, &rs, 1);
	CHECK(wait_cqe(rcq, &c, 100));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_ERR);
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CHECK_EQ(be16toh(c.wqe_counter), 1);
	drain();
}

static void test_loc_prot(void)
{
	uint8_t *src = t_guarded(4096), *dst = t_guarded(4096);
	struct t_mr ms = t_mr(&env, env.pd, src, 4096, T_LR | T_RR);
	struct t_mr m_pd2 = t_mr(&env, env.pd2, src, 4096, T_LR | T_LW);
	struct t_mr m_ro = t_mr(&env, env.pd, dst, 4096, T_LR | T_RR);
	struct t_mr md = t_mr(&env, env.pd, dst, 4096, T_ALL);
	struct pair p;
	uint32_t idx;

	/* A key that does not exist. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_send(p.a, MLX5_OPCODE_SEND, 0xabcdef42, src, 16, true);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
		       MLX5_OPCODE_SEND);
	drain();
	/* A key of another protection domain. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_send(p.a, MLX5_OPCODE_SEND, m_pd2.key, src, 16, false);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
		       MLX5_OPCODE_SEND);
	drain();
	/* Beyond the region (one byte too many). */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_send(p.a, MLX5_OPCODE_SEND, ms.key, src + 1, 4096, true);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
		       MLX5_OPCODE_SEND);
	drain();
	/* RDMA READ into memory without local write. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	memset(dst, 0x11, 4096);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_READ, (uint64_t)(uintptr_t)src,
			ms.key, m_ro.key, dst, 64);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
		       MLX5_OPCODE_RDMA_READ);
	CHECK_EQ(dst[0], 0x11);
	CHECK(t_guards_ok(dst, 4096) && t_guards_ok(src, 4096));
	drain();
	/* A PA (implicit ODP) key over a hole in the address space, and over a
	 * read-only page as a scatter target: errors, not device crashes. */
	{
		uint8_t *hole = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
				     -1, 0);
		uint32_t pa;

		CHECK(hole != MAP_FAILED);
		munmap(hole + 4096, 4096);
		pa = t_mkey(&env, env.pd, hole, 8192, T_ALL, MLX5_MKC_ACCESS_MODE_PA,
			    12, 0x5a, false);
		p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
		idx = post_send(p.a, MLX5_OPCODE_SEND, pa, hole + 4096, 16, true);
		expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
			       MLX5_OPCODE_SEND);
		drain();
		p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
		idx = post_rdma(p.a, MLX5_OPCODE_RDMA_READ, (uint64_t)(uintptr_t)src,
				ms.key, pa, hole, 64);
		expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
			       MLX5_OPCODE_RDMA_READ);
		drain();
		munmap(hole, 4096);
	}
	(void)md;
}

static void test_loc_qp_op(void)
{
	uint8_t *src = t_guarded(64);
	struct t_mr ms = t_mr(&env, env.pd, src, 64, T_LR | T_LW);
	struct t_conn uc;
	struct pair p;
	struct t_wqe w;
	uint32_t idx;

	/* An opcode the device does not execute (masked atomic). */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	t_wqe_begin(&w, MLX5_OPCODE_ATOMIC_MASKED_CS, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)src, ms.key);
	t_wqe_atomic(&w, 1, 1);
	t_wqe_atomic(&w, 1, 1);
	t_wqe_data(&w, ms.key, src, 8);
	idx = t_post(p.a, &w);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		       MLX5_OPCODE_ATOMIC_MASKED_CS);
	drain();
	/* RDMA READ on a UC QP. */
	uc = conn_defaults();
	uc.rre = uc.rae = 0;
	p = mk_pair(MLX5_QPC_ST_UC, &uc, &uc);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_READ, (uint64_t)(uintptr_t)src,
			ms.key, ms.key, src, 8);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		       MLX5_OPCODE_RDMA_READ);
	drain();
	/* DS of 0, and a control segment naming another QP. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	idx = t_wqe_put(p.a, &w);
	t_wqe_ctrl(&w)->qpn_ds = htobe32(p.a->qpn << 8);
	memcpy(p.a->sq + idx * 64, w.b, 16);
	t_ring(p.a, &w);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		       MLX5_OPCODE_SEND);
	drain();
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_data(&w, ms.key, src, 8);
	idx = t_wqe_put(p.a, &w);
	t_wqe_ctrl(&w)->qpn_ds = htobe32(p.b->qpn << 8 | 2);
	memcpy(p.a->sq + idx * 64, w.b, 16);
	t_ring(p.a, &w);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		       MLX5_OPCODE_SEND);
	drain();
}

static void test_ud_too_long(void)
{
	struct t_qp *a = t_qp_create(&env, MLX5_QPC_ST_UD, scq, rcq, NULL);
	uint8_t *src = t_guarded(5000);
	struct t_mr ms = t_mr(&env, env.pd, src, 5000, T_LR);
	struct t_conn c = { .qkey = 1 };
	struct t_wqe w;
	uint32_t idx;

	CHECK_EQ(t_qp_rts(a, &c), 0);
	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_ud(&w, &env, a->qpn, 1);
	t_wqe_data(&w, ms.key, src, 4097);
	idx = t_post(a, &w);
	expect_req_err(a, idx, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
		       MLX5_OPCODE_SEND);
	drain();
}

/* ---- remote errors ---- */

static void test_rem_access(void)
{
	uint8_t *loc = t_guarded(4096), *rem = t_guarded(4096);
	struct t_mr ml = t_mr(&env, env.pd, loc, 4096, T_LR | T_LW);
	struct t_mr m_rr = t_mr(&env, env.pd, rem, 4096, T_LR | T_LW | T_RR);
	struct t_mr m_all = t_mr(&env, env.pd, rem, 4096, T_ALL);
	struct t_mr m_pd2 = t_mr(&env, env.pd2, rem, 4096, T_ALL);
	uint64_t ra = (uint64_t)(uintptr_t)rem;
	struct t_conn no_w = conn_defaults();
	struct mlx5_cqe64 c;
	struct pair p;
	uint32_t idx;

	memset(rem, 0x99, 4096);
	/* Bad rkey. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_WRITE, ra, 0x12345678, ml.key, loc, 64);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		       MLX5_OPCODE_RDMA_WRITE);
	CHECK_EQ(t_qp_state(&env, p.b->qpn), MLX5_QPC_STATE_ERR);
	drain();
	/* rkey without remote write. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_WRITE, ra, m_rr.key, ml.key, loc, 64);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		       MLX5_OPCODE_RDMA_WRITE);
	drain();
	/* Out of bounds by one byte (READ). */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_READ, ra + 4033, m_all.key, ml.key,
			loc, 64);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		       MLX5_OPCODE_RDMA_READ);
	drain();
	/* rkey of another PD than the target QP's. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_WRITE, ra, m_pd2.key, ml.key, loc, 8);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		       MLX5_OPCODE_RDMA_WRITE);
	drain();
	/* Atomic on a key without atomic access. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_rdma(p.a, MLX5_OPCODE_ATOMIC_FA, ra, m_rr.key, ml.key, loc, 8);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		       MLX5_OPCODE_ATOMIC_FA);
	drain();
	/* The target QP does not allow remote writes (rwe 0). */
	no_w.rwe = 0;
	p = mk_pair(MLX5_QPC_ST_RC, NULL, &no_w);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_WRITE, ra, m_all.key, ml.key, loc, 8);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		       MLX5_OPCODE_RDMA_WRITE);
	drain();
	/* Nothing of the remote buffer changed. */
	CHECK_EQ(rem[0], 0x99);
	CHECK_EQ(rem[4095], 0x99);
	CHECK(t_guards_ok(rem, 4096) && t_guards_ok(loc, 4096));
	/* A zero-length WRITE needs no valid rkey. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	post_rdma(p.a, MLX5_OPCODE_RDMA_WRITE, 0, 0x777, ml.key, loc, 0);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	drain();
}

static void test_rem_inv_req_and_op(void)
{
	uint8_t *loc = t_guarded(4096), *rem = t_guarded(4096);
	struct t_mr ml = t_mr(&env, env.pd, loc, 4096, T_LR | T_LW);
	struct t_mr mr = t_mr(&env, env.pd, rem, 4096, T_ALL);
	struct t_mr m_inv = { 0, rem, 4096 };
	struct t_sge bad = { 0xbad00042, rem, 64 };
	struct t_sge good;
	struct mlx5_cqe64 c;
	struct pair p;
	struct t_wqe w;
	uint32_t idx;

	/* Misaligned atomic: NAK invalid request. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	idx = post_rdma(p.a, MLX5_OPCODE_ATOMIC_CS, (uint64_t)(uintptr_t)rem + 4,
			mr.key, ml.key, loc, 8);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
		       MLX5_OPCODE_ATOMIC_CS);
	drain();
	/* A receive WQE with a bad lkey: the responder's LOCAL_PROT_ERR, the
	 * requester's REMOTE_OP_ERR. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	t_post_recv(p.b, &bad, 1);
	idx = post_send(p.a, MLX5_OPCODE_SEND, ml.key, loc, 32, true);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_ERR);
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_OP_ERR,
		       MLX5_OPCODE_SEND);
	drain();
	/* SEND with invalidate: a key without en_rinval -> invalid request;
	 * one with it is invalidated, and then refused. */
	m_inv.key = t_mkey(&env, env.pd, rem, 4096, T_ALL,
			   MLX5_MKC_ACCESS_MODE_MTT, 12, 0x17, true);
	good = (struct t_sge){ mr.key, rem, 256 };
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	t_post_recv(p.b, &good, 1);
	t_wqe_begin(&w, MLX5_OPCODE_SEND_INVAL, MLX5_WQE_CTRL_CQ_UPDATE,
		    htobe32(mr.key));
	t_wqe_data(&w, ml.key, loc, 16);
	idx = t_post(p.a, &w);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_ERR);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
		       MLX5_OPCODE_SEND_INVAL);
	drain();
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	t_post_recv(p.b, &good, 1);
	t_wqe_begin(&w, MLX5_OPCODE_SEND_INVAL, MLX5_WQE_CTRL_CQ_UPDATE,
		    htobe32(m_inv.key));
	t_wqe_data(&w, ml.key, loc, 16);
	t_post(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND_INV);
	CHECK_EQ(be32toh(c.imm_inval_pkey), m_inv.key);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_WRITE, (uint64_t)(uintptr_t)rem,
			m_inv.key, ml.key, loc, 8);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		       MLX5_OPCODE_RDMA_WRITE);
	drain();
}

/* ---- retries ---- */

static void test_rnr(void)
{
	uint8_t *loc = t_guarded(256), *dst = t_guarded(256);
	struct t_mr ml = t_mr(&env, env.pd, loc, 256, T_LR | T_LW);
	struct t_mr md = t_mr(&env, env.pd, dst, 256, T_LW);
	struct t_sge rs = { md.key, dst, 256 };
	struct t_conn ca = conn_defaults(), cb = conn_defaults();
	struct mlx5_cqe64 c;
	struct pair p;
	uint32_t r, idx;

	/* rnr_retry 0..6 without a receive: RNR_RETRY_EXC_ERR after r
	 * retries (10 us RNR timer). */
	for (r = 0; r <= 6; r += 3) {
		ca.rnr_retry = r;
		cb.min_rnr_nak = 1;
		p = mk_pair(MLX5_QPC_ST_RC, &ca, &cb);
		idx = post_send(p.a, MLX5_OPCODE_SEND, ml.key, loc, 8, true);
		expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR,
			       MLX5_OPCODE_SEND);
		/* The responder is unharmed by RNR. */
		CHECK_EQ(t_qp_state(&env, p.b->qpn), MLX5_QPC_STATE_RTS);
		drain();
	}
	/* rnr_retry 7 waits forever; a receive posted later completes it. */
	ca.rnr_retry = 7;
	p = mk_pair(MLX5_QPC_ST_RC, &ca, &cb);
	post_send(p.a, MLX5_OPCODE_SEND, ml.key, loc, 8, true);
	CHECK(!wait_cqe(scq, &c, 5));
	t_post_recv(p.b, &rs, 1);
	CHECK(wait_cqe(scq, &c, 200));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
	drain();
}

static void test_retry_exc(void)
{
	uint8_t *loc = t_guarded(256);
	struct t_mr ml = t_mr(&env, env.pd, loc, 256, T_LR | T_LW);
	struct t_conn ca = conn_defaults();
	uint8_t other[16];
	struct pair p;
	uint32_t idx;
	TMB(destroy_qp_in) = { 0 };
	TMB(mbox_out) = { 0 };

	ca.retry_count = 2;
	ca.timeout = 1;		/* 8.192 us */
	/* Remote QP destroyed. */
	p = mk_pair(MLX5_QPC_ST_RC, &ca, NULL);
	DEVX_SET(destroy_qp_in, destroy_qp_in, opcode, MLX5_CMD_OP_DESTROY_QP);
	DEVX_SET(destroy_qp_in, destroy_qp_in, qpn, p.b->qpn);
	CHECK_EQ(t_exec(env.d, destroy_qp_in, sizeof(destroy_qp_in),
			mbox_out, sizeof(mbox_out)), 0);
	idx = post_send(p.a, MLX5_OPCODE_SEND, ml.key, loc, 8, true);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
		       MLX5_OPCODE_SEND);
	drain();
	/* Remote QP in RESET. */
	p = mk_pair(MLX5_QPC_ST_RC, &ca, NULL);
	CHECK_EQ(t_modify(&env, MLX5_CMD_OP_2RST_QP, p.b->qpn, 0, NULL), 0);
	idx = post_rdma(p.a, MLX5_OPCODE_RDMA_READ, (uint64_t)(uintptr_t)loc,
			ml.key, ml.key, loc + 8, 8);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
		       MLX5_OPCODE_RDMA_READ);
	drain();
	/* A path to a GID that is not on this device. */
	memcpy(other, env.gid, 16);
	other[15] ^= 0x55;
	ca.rgid = other;
	p = mk_pair(MLX5_QPC_ST_RC, &ca, NULL);
	idx = post_send(p.a, MLX5_OPCODE_SEND, ml.key, loc, 8, true);
	expect_req_err(p.a, idx, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
		       MLX5_OPCODE_SEND);
	drain();
}

/* Several WQEs rung at once; the second fails: the first completes, the
 * rest flush in order, unsignalled ones included. */
static void test_flush_batch(void)
{
	uint8_t *loc = t_guarded(256), *dst = t_guarded(256);
	struct t_mr ml = t_mr(&env, env.pd, loc, 256, T_LR | T_LW);
	struct t_mr md = t_mr(&env, env.pd, dst, 256, T_ALL);
	struct pair p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	struct mlx5_cqe64 c;
	struct t_wqe w;
	uint32_t i0, i1, i2, i3;

	t_wqe_begin(&w, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)dst, md.key);
	t_wqe_data(&w, ml.key, loc, 8);
	i0 = t_wqe_put(p.a, &w);
	t_wqe_begin(&w, MLX5_OPCODE_RDMA_WRITE, 0, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)dst, 0x4242);	/* bad rkey */
	t_wqe_data(&w, ml.key, loc, 8);
	i1 = t_wqe_put(p.a, &w);
	t_wqe_begin(&w, MLX5_OPCODE_NOP, 0, 0);
	i2 = t_wqe_put(p.a, &w);
	t_wqe_begin(&w, MLX5_OPCODE_RDMA_READ, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	t_wqe_raddr(&w, (uint64_t)(uintptr_t)dst, md.key);
	t_wqe_data(&w, ml.key, loc, 8);
	i3 = t_wqe_put(p.a, &w);
	t_ring(p.a, &w);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK_EQ(be16toh(c.wqe_counter), i0);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
	CHECK_EQ(be16toh(c.wqe_counter), i1);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CHECK_EQ(be16toh(c.wqe_counter), i2);
	CHECK_EQ(be32toh(c.sop_drop_qpn) >> 24, MLX5_OPCODE_NOP);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CHECK_EQ(be16toh(c.wqe_counter), i3);
	CHECK(!t_poll(scq, &c));
	drain();
	/* Moving a QP to ERR by command flushes what is posted. */
	p = mk_pair(MLX5_QPC_ST_RC, NULL, NULL);
	{
		struct t_sge rs = { md.key, dst, 16 };

		t_post_recv(p.b, &rs, 1);
		t_post_recv(p.b, &rs, 1);
	}
	CHECK_EQ(t_modify(&env, MLX5_CMD_OP_2ERR_QP, p.b->qpn, 0, NULL), 0);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CHECK_EQ(be16toh(c.wqe_counter), 0);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(be16toh(c.wqe_counter), 1);
	CHECK(!t_poll(rcq, &c));
}

int main(void)
{
	t_env_open(&env);
	scq = t_cq_create(&env, 8, 0);
	rcq = t_cq_create(&env, 8, 0);
	CHECK(env.d && scq && rcq);
	test_loc_len();
	test_loc_prot();
	test_loc_qp_op();
	test_ud_too_long();
	test_rem_access();
	test_rem_inv_req_and_op();
	test_rnr();
	test_retry_exc();
	test_flush_batch();
	smx_dev_close(env.d);
	t_free_all();
	return smx_test_done();
}
