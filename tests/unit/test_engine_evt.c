/* SPDX-License-Identifier: MIT */
/*
 * Events and the doorbell watcher: CQ arming (next / solicited, by doorbell
 * and by arm record), completion EQEs and their owner bit across EQ passes,
 * EQ arming and interrupts, CQ overrun, async events (access error, SRQ
 * limit, last WQE reached, SQ drained), an RC QP receiving through an RMP
 * (list order, CQE fields, limit event, RNR on an empty pool), WQEs posted
 * by plain stores, RNR retries run by the watcher thread alone, and an idle
 * watcher using no CPU.
 */
#include <sys/resource.h>
#include <time.h>

#include "eng_test_util.h"

#define VEC 5

static struct t_env env;
static volatile unsigned int irqs;
static uint8_t *eqbuf;
static uint32_t eqn, eq_ci;
#define EQ_LOG 3

static void on_irq(void *arg, uint32_t vector)
{
	(void)arg;
	if (vector == VEC)
		__atomic_add_fetch(&irqs, 1, __ATOMIC_RELAXED);
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static uint32_t eq_create(void)
{
	size_t bytes = (size_t)64 << EQ_LOG;
	size_t inlen = DEVX_ST_SZ_BYTES(create_eq_in) + 8;
	uint8_t *in = calloc(1, inlen);
	TMB(create_eq_out) = { 0 };
	void *eqc = DEVX_ADDR_OF(create_eq_in, in, eq_context_entry);
	uint64_t mask = 1ull << 0 | 1ull << 3 | 1ull << 4 | 1ull << 0x10 |
			1ull << 0x11 | 1ull << 0x13 | 1ull << 0x14;
	uint64_t v;
	uint32_t n = 0, i;

	eqbuf = t_zalloc(bytes);
	for (i = 0; i < (1u << EQ_LOG); i++)
		eqbuf[i * 64 + 63] = 1;
	DEVX_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	DEVX_SET(eqc, eqc, log_eq_size, EQ_LOG);
	DEVX_SET(eqc, eqc, uar_page, env.uar);
	DEVX_SET(eqc, eqc, intr, VEC);
	DEVX_SET64(create_eq_in, in, event_bitmask[0], mask);
	v = htobe64((uint64_t)(uintptr_t)eqbuf);
	memcpy(in + DEVX_BYTE_OFF(create_eq_in, pas), &v, 8);
	if (!t_exec(env.d, in, inlen, create_eq_out, sizeof(create_eq_out)))
		n = DEVX_GET(create_eq_out, create_eq_out, eq_number);
	free(in);
	return n;
}

/* Next EQE if software owns it: type, and the 32-bit number at @off. */
static int eq_next(uint8_t *type, uint32_t *num, uint32_t off)
{
	uint8_t *e = eqbuf + (eq_ci & ((1u << EQ_LOG) - 1)) * 64;
	uint32_t v;

	if ((__atomic_load_n(&e[63], __ATOMIC_ACQUIRE) & 1) !=
	    !!(eq_ci & (1u << EQ_LOG)))
		return 0;
	*type = e[1];
	memcpy(&v, e + off, 4);
	*num = be32toh(v) & 0xffffff;
	eq_ci++;
	return 1;
}

static void eq_doorbell(bool arm)
{
	uint32_t db[2] = { htobe32((eq_ci & 0xffffff) | eqn << 24), 0 };
	uint64_t v;

	memcpy(&v, db, 8);
	smx_dev_mmio_write64(env.d, (uint64_t)env.uar * 4096 + (arm ? 0x40 : 0x48),
			     v);
}

static void cq_arm(struct t_cq *cq, bool solicited, uint32_t sn, bool uar)
{
	uint32_t db[2] = { htobe32(sn << 28 | (solicited ? 1u << 24 : 0) |
				   (cq->ci & 0xffffff)),
			   htobe32(cq->cqn) };
	uint64_t v;

	cq->db[1] = db[0];
	memcpy(&v, db, 8);
	if (uar)
		smx_dev_mmio_write64(env.d, (uint64_t)env.uar * 4096 + 0x20, v);
}

struct pair {
	struct t_qp *a, *b;
};

static struct pair mk_pair(struct t_cq *scq, struct t_cq *rcq,
			   const struct t_qp_opt *ob, uint32_t rnr_retry)
{
	struct t_conn c = { .rwe = 1, .rre = 1, .rae = 1, .retry_count = 7,
			    .rnr_retry = rnr_retry, .timeout = 14,
			    .min_rnr_nak = 1 };
	struct pair p;

	p.a = t_qp_create(&env, MLX5_QPC_ST_RC, scq, rcq, NULL);
	p.b = t_qp_create(&env, MLX5_QPC_ST_RC, scq, rcq, ob);
	c.remote_qpn = p.b->qpn;
	CHECK_EQ(t_qp_rts(p.a, &c), 0);
	c.remote_qpn = p.a->qpn;
	CHECK_EQ(t_qp_rts(p.b, &c), 0);
	return p;
}

static void send(struct t_qp *qp, struct t_mr *m, bool solicited, bool ring)
{
	struct t_wqe w;

	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE |
		    (solicited ? MLX5_WQE_CTRL_SOLICITED : 0), 0);
	t_wqe_data(&w, m->key, m->addr, 8);
	t_wqe_put(qp, &w);
	if (ring)
		t_ring(qp, &w);
}

static void test_idle_watcher(void)
{
	uint64_t t0 = cpu_ns();

	/* No QP exists yet: the watcher is parked. */
	sleep_us(200000);
	CHECK(cpu_ns() - t0 < 20000000ull);
}

static void test_comp_events(void)
{
	struct t_cq *scq = t_cq_create(&env, 4, eqn), *rcq = t_cq_create(&env, 4, eqn);
	struct pair p = mk_pair(scq, rcq, NULL, 7);
	uint8_t *buf = t_guarded(4096);
	struct t_mr m = t_mr(&env, env.pd, buf, 4096, T_LR | T_LW);
	struct t_sge rs = { m.key, buf + 512, 64 };
	struct mlx5_cqe64 c;
	uint32_t num, base;
	uint8_t type;

	/* Not armed: CQEs, no EQE. */
	eq_doorbell(true);
	t_post_recv(p.b, &rs, 1);
	send(p.a, &m, false, true);
	CHECK(t_poll(scq, &c) && t_poll(rcq, &c));
	CHECK(!eq_next(&type, &num, 56));
	CHECK_EQ(irqs, 0);
	/* Arm both CQs (next completion): one EQE each, one interrupt (the EQ
	 * disarms after the first). */
	cq_arm(scq, false, 0, true);
	cq_arm(rcq, false, 0, true);
	t_post_recv(p.b, &rs, 1);
	send(p.a, &m, false, true);
	/* The responder completes first (its CQE is written while the
	 * request is delivered), then the requester. */
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(type, 0);
	CHECK_EQ(num, rcq->cqn);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(num, scq->cqn);
	CHECK(!eq_next(&type, &num, 56));
	CHECK_EQ(irqs, 1);
	CHECK(t_poll(scq, &c) && t_poll(rcq, &c));
	/* Disarmed CQs: nothing more. */
	t_post_recv(p.b, &rs, 1);
	send(p.a, &m, false, true);
	CHECK(!eq_next(&type, &num, 56));
	CHECK(t_poll(scq, &c) && t_poll(rcq, &c));
	/* Solicited-only arm: an unsolicited receive does not fire, a
	 * solicited one does. */
	cq_arm(rcq, true, 1, true);
	eq_doorbell(true);
	t_post_recv(p.b, &rs, 1);
	send(p.a, &m, false, true);
	CHECK(!eq_next(&type, &num, 56));
	t_post_recv(p.b, &rs, 1);
	send(p.a, &m, true, true);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(num, rcq->cqn);
	CHECK_EQ(irqs, 2);
	while (t_poll(scq, &c) || t_poll(rcq, &c))
		;
	/* Arming behind the producer fires at once. */
	eq_doorbell(true);
	t_post_recv(p.b, &rs, 1);
	send(p.a, &m, false, true);
	cq_arm(rcq, false, 2, true);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(irqs, 3);
	/* scq has a CQE pending too: arming it writes its EQE at once, but
	 * the EQ disarmed after the last interrupt, so there is none. */
	cq_arm(scq, false, 1, true);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(num, scq->cqn);
	CHECK_EQ(irqs, 3);
	/* EQ armed with EQEs still unconsumed: interrupt at once. */
	base = irqs;
	eq_ci--;			/* pretend the last EQE was not read */
	eq_doorbell(true);
	CHECK_EQ(irqs, base + 1);
	eq_ci++;
	while (eq_next(&type, &num, 56))
		;
	while (t_poll(scq, &c) || t_poll(rcq, &c))
		;
	/* Owner bit across EQ passes: 20 events through an 8-entry EQ. */
	{
		unsigned int i, got = 0;

		for (i = 0; i < 20; i++) {
			cq_arm(scq, false, i & 3, true);
			t_post_recv(p.b, &rs, 1);
			send(p.a, &m, false, true);
			t_poll(scq, &c);
			t_poll(rcq, &c);
			if (eq_next(&type, &num, 56) && num == scq->cqn)
				got++;
			eq_doorbell(false);
		}
		CHECK_EQ(got, 20);
	}
	/* Arm by the arm record alone (no UAR store): the watcher acts. */
	eq_doorbell(true);
	cq_arm(scq, false, 1, false);
	sleep_us(20000);
	t_post_recv(p.b, &rs, 1);
	send(p.a, &m, false, true);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(num, scq->cqn);
	t_poll(scq, &c);
}

static void test_overrun_and_async(void)
{
	struct t_cq *scq = t_cq_create(&env, 1, eqn), *rcq = t_cq_create(&env, 4, eqn);
	struct pair p = mk_pair(scq, rcq, NULL, 7);
	uint8_t *buf = t_guarded(4096);
	struct t_mr m = t_mr(&env, env.pd, buf, 4096, T_LR | T_LW);
	struct t_sge rs = { m.key, buf + 512, 64 };
	struct t_wqe w;
	uint32_t num, i;
	uint8_t type;

	while (eq_next(&type, &num, 56))
		;
	eq_doorbell(true);
	/* Three CQEs into a 2-entry CQ: overrun, CQ error event. */
	for (i = 0; i < 3; i++) {
		t_post_recv(p.b, &rs, 1);
		send(p.a, &m, false, true);
	}
	CHECK(eq_next(&type, &num, 32));
	CHECK_EQ(type, 4);
	CHECK_EQ(num, scq->cqn);
	CHECK_EQ(eqbuf[((eq_ci - 1) & 7) * 64 + 43], 1);	/* overrun */
	/* Responder access error: the target QP's access error event. */
	t_wqe_begin(&w, MLX5_OPCODE_RDMA_WRITE, 0, 0);
	t_wqe_raddr(&w, 0x1000, 0xdead00);
	t_wqe_data(&w, m.key, buf, 8);
	t_post(p.a, &w);
	eq_doorbell(true);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(type, 0x11);
	CHECK_EQ(num, p.b->qpn);
	CHECK_EQ(eqbuf[((eq_ci - 1) & 7) * 64 + 52], 0);	/* a QP */
	while (eq_next(&type, &num, 56))
		;
}

static uint32_t srq_create(uint8_t **bufp, volatile uint32_t **dbp)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_srq_in) + 8;
	uint8_t *in = calloc(1, inlen), *buf = t_zalloc(4096);
	volatile uint32_t *db = t_zalloc(64);
	TMB(create_srq_out) = { 0 };
	void *ctx = DEVX_ADDR_OF(create_srq_in, in, srq_context_entry);
	uint64_t v = htobe64((uint64_t)(uintptr_t)buf);
	uint32_t srqn = 0, i;

	DEVX_SET(create_srq_in, in, opcode, MLX5_CMD_OP_CREATE_SRQ);
	DEVX_SET(srqc, ctx, log_srq_size, 3);
	DEVX_SET(srqc, ctx, log_rq_stride, 2);
	DEVX_SET(srqc, ctx, pd, env.pd);
	DEVX_SET64(srqc, ctx, dbr_addr, (uint64_t)(uintptr_t)db);
	memcpy(in + DEVX_BYTE_OFF(create_srq_in, pas), &v, 8);
	for (i = 0; i < 8; i++)
		((struct mlx5_wqe_srq_next_seg *)(void *)(buf + i * 64))
			->next_wqe_index = htobe16((uint16_t)((i + 1) & 7));
	if (!t_exec(env.d, in, inlen, create_srq_out, sizeof(create_srq_out)))
		srqn = DEVX_GET(create_srq_out, create_srq_out, srqn);
	free(in);
	*bufp = buf;
	*dbp = db;
	return srqn;
}

static void test_srq_events(void)
{
	uint8_t *sbuf, *buf = t_guarded(4096), type;
	volatile uint32_t *sdb;
	uint32_t srqn = srq_create(&sbuf, &sdb), num, i;
	struct t_qp_opt o = { .srqn = srqn };
	struct t_cq *scq = t_cq_create(&env, 4, eqn), *rcq = t_cq_create(&env, 4, eqn);
	struct pair p = mk_pair(scq, rcq, &o, 7);
	struct t_mr m = t_mr(&env, env.pd, buf, 4096, T_LR | T_LW);
	struct mlx5_cqe64 c;
	TMB(arm_rq_in) = { 0 };
	TMB(mbox_out) = { 0 };

	for (i = 0; i < 4; i++) {
		struct mlx5_wqe_data_seg *d = (void *)(sbuf + i * 64 + 16);

		d->byte_count = htobe32(64);
		d->lkey = htobe32(m.key);
		d->addr = htobe64((uint64_t)(uintptr_t)buf + i * 64);
		d[1].lkey = htobe32(MLX5_INVALID_LKEY);
	}
	sdb[0] = htobe32(4);
	DEVX_SET(arm_rq_in, arm_rq_in, opcode, MLX5_CMD_OP_ARM_RQ);
	DEVX_SET(arm_rq_in, arm_rq_in, op_mod, MLX5_ARM_RQ_IN_OP_MOD_SRQ);
	DEVX_SET(arm_rq_in, arm_rq_in, srq_number, srqn);
	DEVX_SET(arm_rq_in, arm_rq_in, lwm, 3);
	CHECK_EQ(t_exec(env.d, arm_rq_in, sizeof(arm_rq_in), mbox_out,
			sizeof(mbox_out)), 0);
	while (eq_next(&type, &num, 56))
		;
	eq_doorbell(true);
	/* 4 posted, limit 3: the second receive leaves 2 -> limit event. */
	send(p.a, &m, false, true);
	CHECK(!eq_next(&type, &num, 56));
	send(p.a, &m, false, true);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(type, 0x14);
	CHECK_EQ(num, srqn);
	CHECK_EQ(eqbuf[((eq_ci - 1) & 7) * 64 + 52], 1);	/* an SRQ */
	while (t_poll(scq, &c) || t_poll(rcq, &c))
		;
	/* SQ drained on RTS -> SQD; last WQE reached when an SRQ QP errs. */
	eq_doorbell(true);
	CHECK_EQ(t_modify(&env, MLX5_CMD_OP_RTS2SQD_QP, p.a->qpn, 0, NULL), 0);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(type, 0x03);
	CHECK_EQ(num, p.a->qpn);
	CHECK_EQ(t_modify(&env, MLX5_CMD_OP_2ERR_QP, p.b->qpn, 0, NULL), 0);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(type, 0x13);
	CHECK_EQ(num, p.b->qpn);
}

/* An RC QP whose receives come from an RMP (qpc.rq_type SRQ_RMP naming
 * it): WQEs taken along the RMP's linked list, CQEs naming the RMP index
 * and number, the limit event armed by MODIFY_RMP, RNR when the pool is
 * empty until a WQE is posted. */
static void test_rmp_qp(void)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_rmp_in) + 8;
	uint8_t *in = calloc(1, inlen), *rbuf = t_zalloc(4096);
	uint8_t *buf = t_guarded(4096), type;
	volatile uint32_t *rdb = t_zalloc(64);
	void *wq = DEVX_ADDR_OF(create_rmp_in, in, ctx.wq);
	struct t_cq *scq = t_cq_create(&env, 4, eqn), *rcq = t_cq_create(&env, 4, eqn);
	struct t_mr m = t_mr(&env, env.pd, buf, 4096, T_LR | T_LW);
	static const uint32_t slot[4] = { 0, 3, 5, 6 };
	TMB(create_rmp_out) = { 0 };
	TMB(modify_rmp_in) = { 0 };
	TMB(modify_rmp_out) = { 0 };
	TMB(destroy_rmp_in) = { 0 };
	struct mlx5_cqe64 c;
	struct t_qp_opt o;
	uint32_t rmpn = 0, num, i;
	uint64_t v = htobe64((uint64_t)(uintptr_t)rbuf);
	struct pair p;
	int got;

	DEVX_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);
	DEVX_SET(create_rmp_in, in, ctx.state, MLX5_RMPC_STATE_RDY);
	DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_LINKED_LIST);
	DEVX_SET(wq, wq, pd, env.pd);
	DEVX_SET64(wq, wq, dbr_addr, (uint64_t)(uintptr_t)rdb);
	DEVX_SET(wq, wq, log_wq_stride, 6);
	DEVX_SET(wq, wq, log_wq_sz, 3);
	memcpy((uint8_t *)wq + DEVX_BYTE_OFF(wq, pas), &v, 8);
	CHECK_EQ(t_exec(env.d, in, inlen, create_rmp_out,
			sizeof(create_rmp_out)), 0);
	rmpn = DEVX_GET(create_rmp_out, create_rmp_out, rmpn);
	free(in);
	o = (struct t_qp_opt){ .srqn = rmpn };
	p = mk_pair(scq, rcq, &o, 7);
	/* Slots 0 -> 3 -> 5 (-> 6, posted later), 64 bytes each. */
	for (i = 0; i < 4; i++) {
		uint8_t *w = rbuf + slot[i] * 64;
		struct mlx5_wqe_data_seg *d = (void *)(w + 16);

		((struct mlx5_wqe_srq_next_seg *)(void *)w)->next_wqe_index =
			htobe16((uint16_t)(i < 3 ? slot[i + 1] : 0));
		d->byte_count = htobe32(64);
		d->lkey = htobe32(m.key);
		d->addr = htobe64((uint64_t)(uintptr_t)buf + 1024 + slot[i] * 64);
		d[1].lkey = htobe32(MLX5_INVALID_LKEY);
	}
	rdb[0] = htobe32(3);
	/* Limit 2: the second receive leaves 1 -> SRQ_RQ_LIMIT, the RMP's
	 * number, the SRQ flag. */
	DEVX_SET(modify_rmp_in, modify_rmp_in, opcode, MLX5_CMD_OP_MODIFY_RMP);
	DEVX_SET(modify_rmp_in, modify_rmp_in, rmpn, rmpn);
	DEVX_SET(modify_rmp_in, modify_rmp_in, rmp_state, MLX5_RMPC_STATE_RDY);
	DEVX_SET(modify_rmp_in, modify_rmp_in, ctx.state, MLX5_RMPC_STATE_RDY);
	DEVX_SET(modify_rmp_in, modify_rmp_in, bitmask.lwm, 1);
	DEVX_SET(modify_rmp_in, modify_rmp_in, ctx.wq.lwm, 2);
	CHECK_EQ(t_exec(env.d, modify_rmp_in, sizeof(modify_rmp_in),
			modify_rmp_out, sizeof(modify_rmp_out)), 0);
	while (eq_next(&type, &num, 56))
		;
	eq_doorbell(true);
	for (i = 0; i < 8; i++)
		buf[i] = (uint8_t)(0x40 + i);
	send(p.a, &m, false, true);
	CHECK(!eq_next(&type, &num, 56));
	send(p.a, &m, false, true);
	CHECK(eq_next(&type, &num, 56));
	CHECK_EQ(type, 0x14);
	CHECK_EQ(num, rmpn);
	CHECK_EQ(eqbuf[((eq_ci - 1) & 7) * 64 + 52], 1);	/* an SRQ */
	send(p.a, &m, false, true);
	for (i = 0; i < 3; i++) {
		CHECK(t_poll(rcq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
		CHECK_EQ(be16toh(c.wqe_counter), slot[i]);
		CHECK_EQ(be32toh(c.srqn_uidx) & 0xffffff, rmpn);
		CHECK_EQ(be32toh(c.byte_cnt), 8);
		CHECK(memcmp(buf + 1024 + slot[i] * 64, buf, 8) == 0);
	}
	while (t_poll(scq, &c))
		;
	/* The pool is empty: RNR; the requester (rnr_retry 7) waits until
	 * a WQE is posted, then completes into slot 6. */
	send(p.a, &m, false, true);
	CHECK(!t_poll(rcq, &c));
	sleep_us(2000);
	CHECK(!t_poll(rcq, &c));
	rdb[0] = htobe32(4);
	for (got = 0, i = 0; i < 2000 && !got; i++) {
		got = t_poll(rcq, &c);
		if (!got)
			sleep_us(500);
	}
	CHECK(got);
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
	CHECK_EQ(be16toh(c.wqe_counter), 6);
	for (got = 0, i = 0; i < 2000 && !got; i++) {
		got = t_poll(scq, &c);
		if (!got)
			sleep_us(500);
	}
	CHECK(got);
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	/* The QP holds the RMP. */
	DEVX_SET(destroy_rmp_in, destroy_rmp_in, opcode, MLX5_CMD_OP_DESTROY_RMP);
	DEVX_SET(destroy_rmp_in, destroy_rmp_in, rmpn, rmpn);
	CHECK_EQ(t_exec(env.d, destroy_rmp_in, sizeof(destroy_rmp_in),
			modify_rmp_out, sizeof(modify_rmp_out)),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	while (eq_next(&type, &num, 56))
		;
}

/* Plain stores only -- no MMIO call, no eng_poll: the watcher thread. */
static void test_watcher(void)
{
	struct t_cq *scq = t_cq_create(&env, 4, 0), *rcq = t_cq_create(&env, 4, 0);
	struct pair p = mk_pair(scq, rcq, NULL, 7);
	uint8_t *buf = t_guarded(4096);
	struct t_mr m = t_mr(&env, env.pd, buf, 4096, T_LR | T_LW);
	struct t_sge rs = { m.key, buf + 1024, 64 };
	struct mlx5_cqe64 c;
	int i, got = 0;

	t_post_recv(p.b, &rs, 1);
	send(p.a, &m, false, false);
	for (i = 0; i < 2000 && !got; i++) {
		got = t_poll(scq, &c);
		if (!got)
			sleep_us(500);
	}
	CHECK(got);
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(t_poll(rcq, &c));
	/* An RNR-parked requester retried by the watcher when a receive is
	 * posted later (rnr_retry 7, 10 us timer). */
	send(p.a, &m, false, true);
	CHECK(!t_poll(scq, &c));
	sleep_us(2000);
	t_post_recv(p.b, &rs, 1);
	for (got = 0, i = 0; i < 2000 && !got; i++) {
		got = t_poll(scq, &c);
		if (!got)
			sleep_us(500);
	}
	CHECK(got);
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
}

int main(void)
{
	t_env_open(&env);
	CHECK(env.d != NULL);
	test_idle_watcher();
	CHECK_EQ(smx_dev_irq_register(env.d, VEC, on_irq, NULL), 0);
	eqn = eq_create();
	CHECK(eqn != 0);
	test_comp_events();
	test_overrun_and_async();
	test_srq_events();
	test_rmp_qp();
	test_watcher();
	smx_dev_irq_unregister(env.d, VEC);
	smx_dev_close(env.d);
	t_free_all();
	return smx_test_done();
}
