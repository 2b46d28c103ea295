/* SPDX-License-Identifier: MIT */
/*
 * Direct SEND between two processes (eng_drq.c, fabric/drq.h): the receiver
 * R lends the receive queue of its RC QP to the sender S, which places
 * SENDs straight into the receive buffers; R completes them. Three QP
 * pairs, orders over pipes, a segment of the test's own:
 *
 *  - order and contents: 48 SENDs of 0 .. 8 KiB, with and without
 *    immediate, into receives R posted ahead (more than it lends at once,
 *    so direct SENDs and packets alternate): every receive completes once,
 *    in order, with its message's bytes, length and immediate;
 *    tx_send_direct and rx_send_direct agree and moved;
 *  - placed while R is stopped (SIGSTOP): S's SENDs complete although R
 *    cannot run, and R finds them in order when it resumes;
 *  - a receive buffer deregistered after it was lent: the SEND is not
 *    placed there; the responder reports the receive's bad key
 *    (LOC_PROT_ERR at R, REM_OP_ERR at S) as with packets, and the memory
 *    keeps its bytes;
 *  - a SEND longer than the lent receive: LOC_LEN_ERR at R,
 *    REM_INV_REQ_ERR at S, as with packets;
 *  - R moves its QP to ERR while placed SENDs wait for it: they complete
 *    first, successfully, the rest of its receives flush.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "peer_test_util.h"
#include "smx_test.h"

#ifndef SMX_TOOL
#define SMX_TOOL "softmlx5"
#endif

#define NPAIR 3
#define SLOT 8192u		/* one receive's share of the buffer */
#define NRECV 64u
#define BUFSZ (SLOT * NRECV)

enum { P_MAIN, P_BADKEY, P_LONG };
enum { O_POST, O_POLL, O_POST_MR2, O_DEREG_MR2, O_PEEK_MR2, O_ERR, O_DONE };

struct order {
	uint32_t op, pair, n, len, first;	/* receives [first, first + n) */
};

struct result {
	int32_t status;
	uint32_t opcode, byte_len, imm, has_imm, wr_id;
	int32_t bad_at;		/* first byte not the message's, -1: none */
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[NPAIR];
	struct ibv_qp *qp[NPAIR];
	struct ibv_mr *mr, *mr2;
	uint8_t *buf, *buf2;
};

static uint8_t pattern(uint32_t seed, uint32_t i)
{
	return (uint8_t)(i * 29 + seed * 7 + i / 253 + 1);
}

static void side_open(struct side *s)
{
	int i;

	s->ctx = peer_open_device();
	s->pd = ibv_alloc_pd(s->ctx);
	s->buf = aligned_alloc(4096, BUFSZ);
	s->buf2 = aligned_alloc(4096, 4096);
	if (!s->pd || !s->buf || !s->buf2)
		exit(2);
	memset(s->buf2, 0x5a, 4096);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUFSZ, IBV_ACCESS_LOCAL_WRITE);
	s->mr2 = ibv_reg_mr(s->pd, s->buf2, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr || !s->mr2)
		exit(2);
	for (i = 0; i < NPAIR; i++) {
		struct ibv_qp_init_attr a = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = NRECV, .max_recv_wr = NRECV,
				 .max_send_sge = 1, .max_recv_sge = 2,
				 .max_inline_data = 64 },
		};

		s->cq[i] = ibv_create_cq(s->ctx, 2 * NRECV, NULL, NULL, 0);
		if (!s->cq[i])
			exit(2);
		a.send_cq = a.recv_cq = s->cq[i];
		s->qp[i] = ibv_create_qp(s->pd, &a);
		if (!s->qp[i])
			exit(2);
	}
}

/* Both sides' QPs connected, pair by pair. */
static void side_connect(struct side *s, int in, int out, bool first)
{
	struct peer_hello me[NPAIR], peer[NPAIR];
	int i;

	for (i = 0; i < NPAIR; i++) {
		memset(&me[i], 0, sizeof(me[i]));
		me[i].qpn = s->qp[i]->qp_num;
		if (ibv_query_gid(s->ctx, 1, 0, &me[i].gid))
			exit(2);
	}
	if (first) {
		xwrite(out, me, sizeof(me));
		xread(in, peer, sizeof(peer));
	} else {
		xread(in, peer, sizeof(peer));
		xwrite(out, me, sizeof(me));
	}
	for (i = 0; i < NPAIR; i++)
		if (qp_connect_peer(s->qp[i], peer[i].qpn, &peer[i].gid, 0))
			exit(2);
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i;

	for (i = 0; i < 200000; i++) {
		if (ibv_poll_cq(cq, 1, wc) == 1)
			return 0;
		if (i > 1000)
			usleep(20);
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* R                                                                  */
/* ------------------------------------------------------------------ */

static struct side rs;

static void r_post(uint32_t pair, uint32_t first, uint32_t n, uint32_t len,
		   bool mr2)
{
	uint32_t k;

	for (k = first; k < first + n; k++) {
		uint8_t *at = mr2 ? rs.buf2 : rs.buf + (k % NRECV) * SLOT;
		/* two segments: a receive is not one piece */
		struct ibv_sge sge[2] = {
			{ (uintptr_t)at, len / 2, mr2 ? rs.mr2->lkey : rs.mr->lkey },
			{ (uintptr_t)at + len / 2, len - len / 2,
			  mr2 ? rs.mr2->lkey : rs.mr->lkey },
		};
		struct ibv_recv_wr wr = { .wr_id = k, .sg_list = sge,
					  .num_sge = 2 }, *bad;

		if (!mr2)
			memset(at, 0, SLOT);
		if (ibv_post_recv(rs.qp[pair], &wr, &bad))
			exit(2);
	}
	/* One look: lent receives are armed by the device's pollers. */
	{
		struct ibv_wc wc;

		if (ibv_poll_cq(rs.cq[pair], 0, &wc) < 0)
			exit(2);
	}
}

static struct result r_result(const struct ibv_wc *wc)
{
	struct result res = { .status = wc->status, .opcode = wc->opcode,
			      .byte_len = wc->byte_len,
			      .has_imm = !!(wc->wc_flags & IBV_WC_WITH_IMM),
			      .imm = ntohl(wc->imm_data),
			      .wr_id = (uint32_t)wc->wr_id, .bad_at = -1 };
	const uint8_t *at = rs.buf + (wc->wr_id % NRECV) * SLOT;
	uint32_t i;

	for (i = 0; wc->status == IBV_WC_SUCCESS && i < wc->byte_len; i++)
		if (at[i] != pattern((uint32_t)wc->wr_id, i)) {
			res.bad_at = (int32_t)i;
			break;
		}
	/* and nothing beyond the message */
	for (; res.bad_at < 0 && wc->status == IBV_WC_SUCCESS && i < SLOT; i++)
		if (at[i]) {
			res.bad_at = (int32_t)i;
			break;
		}
	return res;
}

static int receiver(int in, int out)
{
	side_open(&rs);
	side_connect(&rs, in, out, false);
	for (;;) {
		struct order o;
		struct result res;
		struct ibv_wc wc;
		uint32_t k;

		xread(in, &o, sizeof(o));
		switch (o.op) {
		case O_POST:
		case O_POST_MR2:
			r_post(o.pair, o.first, o.n, o.len, o.op == O_POST_MR2);
			xwrite(out, "p", 1);
			break;
		case O_ERR:
		case O_POLL:
			if (o.op == O_ERR) {
				/* then every receive completes */
				struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

				if (ibv_modify_qp(rs.qp[o.pair], &a,
						  IBV_QP_STATE))
					exit(2);
			}
			for (k = 0; k < o.n; k++) {
				memset(&wc, 0, sizeof(wc));
				if (poll_one(rs.cq[o.pair], &wc))
					wc.status = (enum ibv_wc_status)-1;
				res = r_result(&wc);
				xwrite(out, &res, sizeof(res));
			}
			break;
		case O_DEREG_MR2:
			if (ibv_dereg_mr(rs.mr2))
				exit(2);
			rs.mr2 = NULL;
			xwrite(out, "d", 1);
			break;
		case O_PEEK_MR2:
			/* The deregistered buffer: still 0x5a throughout? */
			for (k = 0; k < 4096 && rs.buf2[k] == 0x5a; k++)
				;
			xwrite(out, &k, sizeof(k));
			break;
		case O_DONE:
			return 0;
		}
	}
}

/* ------------------------------------------------------------------ */
/* S                                                                  */
/* ------------------------------------------------------------------ */

static struct side ss;
static int to_r, from_r, r_pid;

static void order(uint32_t op, uint32_t pair, uint32_t first, uint32_t n,
		  uint32_t len)
{
	struct order o = { op, pair, n, len, first };
	char c;

	xwrite(to_r, &o, sizeof(o));
	if (op == O_POST || op == O_POST_MR2 || op == O_DEREG_MR2)
		xread(from_r, &c, 1);
}

/* Posts SEND @k of @len bytes (its bytes: pattern(k)); immediate on odd. */
static void s_send(uint32_t pair, uint32_t k, uint32_t len)
{
	uint8_t *at = ss.buf + (k % NRECV) * SLOT;
	struct ibv_sge sge = { (uintptr_t)at, len, ss.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = k, .sg_list = &sge, .num_sge = 1,
		.opcode = k & 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED |
			      (len <= 64 && k % 3 == 0 ? IBV_SEND_INLINE : 0),
	}, *bad;
	uint32_t i;

	wr.imm_data = htonl(0xd5000000u | k);
	for (i = 0; i < len; i++)
		at[i] = pattern(k, i);
	CHECK_EQ(ibv_post_send(ss.qp[pair], &wr, &bad), 0);
}

static int s_wait(uint32_t pair, uint32_t *wr_id)
{
	struct ibv_wc wc;

	if (poll_one(ss.cq[pair], &wc))
		return -1;
	if (wr_id)
		*wr_id = (uint32_t)wc.wr_id;
	return wc.status;
}

static uint32_t msg_len(uint32_t k)
{
	static const uint32_t len[] = { 0, 1, 8, 63, 64, 100, 1000, 1024,
					4095, 4096, 5000, 8192 };

	return len[k % (sizeof(len) / sizeof(len[0]))];
}

/* R's results for receives [first, first + n) of @pair: in order, each
 * with its message. */
static void check_recvs(uint32_t pair, uint32_t first, uint32_t n,
			const char *what)
{
	uint32_t k;

	order(O_POLL, pair, first, n, 0);
	for (k = first; k < first + n; k++) {
		struct result r;

		xread(from_r, &r, sizeof(r));
		CHECKM(r.status == IBV_WC_SUCCESS && r.wr_id == k &&
		       r.opcode == IBV_WC_RECV,
		       "%s: receive %u: status %d, wr_id %u, opcode %u", what,
		       k, r.status, r.wr_id, r.opcode);
		CHECKM(r.byte_len == msg_len(k) && r.bad_at < 0,
		       "%s: receive %u: %u bytes (sent %u), wrong from %d",
		       what, k, r.byte_len, msg_len(k), r.bad_at);
		CHECKM(r.has_imm == (k & 1) &&
		       (!(k & 1) || r.imm == (0xd5000000u | k)),
		       "%s: receive %u: immediate %u 0x%x", what, k,
		       r.has_imm, r.imm);
	}
}

int main(void)
{
	enum { C_TX, C_RX, NCNT };
	static const char *const names[NCNT] = { "tx_send_direct",
						 "rx_send_direct" };
	const char *tool = getenv("SOFTMLX5_TOOL") ? getenv("SOFTMLX5_TOOL") :
			   SMX_TOOL;
	uint64_t v[NCNT], before;
	bool seen[NCNT];
	char path[128], why[600];
	uint32_t k, got, next = 0;
	int st;

	alarm(120);
	peer_seg_path(path, sizeof(path), "dsend");
	unsetenv("SOFTMLX5_DIRECT");
	unsetenv("SOFTMLX5_DIRECT_SEND");
	unsetenv("SOFTMLX5_FAULT");
	unsetenv("SOFTMLX5_PCAP");
	r_pid = peer_fork(&from_r, &to_r);
	if (r_pid < 0)
		return 2;
	if (r_pid == 0)
		_exit(receiver(from_r, to_r));
	side_open(&ss);
	side_connect(&ss, from_r, to_r, true);

	/* Order and contents: 48 SENDs into 48 receives posted ahead. */
	order(O_POST, P_MAIN, 0, 48, SLOT);
	for (k = 0; k < 48; k++) {
		s_send(P_MAIN, k, msg_len(k));
		CHECKM(s_wait(P_MAIN, &got) == IBV_WC_SUCCESS && got == k,
		       "SEND %u: completion of %u", k, got);
	}
	check_recvs(P_MAIN, 0, 48, "in order");
	next = 48;
	CHECKM(peer_counters_read(tool, names, NCNT, v, seen, why, sizeof(why)),
	       "counters: %s", why);
	printf("tx_send_direct %llu, rx_send_direct %llu of 48 SENDs\n",
	       (unsigned long long)v[C_TX], (unsigned long long)v[C_RX]);
	CHECKM(v[C_TX] >= 16 && v[C_TX] == v[C_RX],
	       "direct SENDs: %llu placed, %llu completed",
	       (unsigned long long)v[C_TX], (unsigned long long)v[C_RX]);
	before = v[C_TX];

	/* Placed while R is stopped: lent receives are all S needs. */
	order(O_POST, P_MAIN, next, 6, SLOT);
	CHECK(stop(r_pid));
	for (k = next; k < next + 6; k++) {
		s_send(P_MAIN, k, msg_len(k));
		CHECKM(s_wait(P_MAIN, &got) == IBV_WC_SUCCESS && got == k,
		       "SEND %u to a stopped receiver: completion of %u", k,
		       got);
	}
	CHECK(kill(r_pid, SIGCONT) == 0);
	check_recvs(P_MAIN, next, 6, "placed while stopped");
	next += 6;
	CHECKM(peer_counters_read(tool, names, NCNT, v, seen, why, sizeof(why)),
	       "counters: %s", why);
	CHECKM(v[C_TX] == before + 6 && v[C_RX] == v[C_TX],
	       "while stopped: %llu more placed (6 sent), %llu completed",
	       (unsigned long long)(v[C_TX] - before),
	       (unsigned long long)v[C_RX]);

	/* A lent receive whose key goes away. First a SEND that makes R
	 * lend the queue, then the receive on mr2, then the deregistration. */
	order(O_POST, P_BADKEY, 0, 1, SLOT);
	s_send(P_BADKEY, 0, msg_len(0));
	CHECK_EQ(s_wait(P_BADKEY, NULL), IBV_WC_SUCCESS);
	check_recvs(P_BADKEY, 0, 1, "before deregistration");
	order(O_POST_MR2, P_BADKEY, 1, 1, 4096);
	order(O_DEREG_MR2, P_BADKEY, 0, 0, 0);
	s_send(P_BADKEY, 2, 100);
	st = s_wait(P_BADKEY, NULL);
	order(O_POLL, P_BADKEY, 1, 1, 0);
	{
		struct result r;
		uint32_t clean;

		xread(from_r, &r, sizeof(r));
		CHECKM(r.status == IBV_WC_LOC_PROT_ERR && st == IBV_WC_REM_OP_ERR,
		       "into a deregistered receive: receiver %s, sender %s",
		       ibv_wc_status_str((enum ibv_wc_status)r.status),
		       ibv_wc_status_str((enum ibv_wc_status)st));
		order(O_PEEK_MR2, P_BADKEY, 0, 0, 0);
		xread(from_r, &clean, sizeof(clean));
		CHECKM(clean == 4096, "the deregistered buffer changed at "
		       "byte %u", clean);
	}

	/* Longer than the lent receive. */
	order(O_POST, P_LONG, 0, 2, 2048);
	s_send(P_LONG, 0, 64);
	CHECK_EQ(s_wait(P_LONG, NULL), IBV_WC_SUCCESS);
	s_send(P_LONG, 1, 4096);
	st = s_wait(P_LONG, NULL);
	order(O_POLL, P_LONG, 0, 2, 0);
	{
		struct result r[2];

		xread(from_r, r, sizeof(r));
		CHECKM(r[0].status == IBV_WC_SUCCESS && r[0].byte_len == 64 &&
		       r[1].status == IBV_WC_LOC_LEN_ERR &&
		       st == IBV_WC_REM_INV_REQ_ERR,
		       "4096 bytes into 2048: receiver %d then %s, sender %s",
		       r[0].status,
		       ibv_wc_status_str((enum ibv_wc_status)r[1].status),
		       ibv_wc_status_str((enum ibv_wc_status)st));
	}

	/* ERR with placed SENDs waiting: they complete first. R's keys
	 * changed since S last sent on this pair (the deregistration): one
	 * SEND brings S the current record. */
	order(O_POST, P_MAIN, next, 9, SLOT);
	s_send(P_MAIN, next, msg_len(next));
	CHECK_EQ(s_wait(P_MAIN, NULL), IBV_WC_SUCCESS);
	check_recvs(P_MAIN, next, 1, "after deregistration");
	next++;
	CHECK(stop(r_pid));
	for (k = next; k < next + 3; k++) {
		s_send(P_MAIN, k, msg_len(k));
		CHECK_EQ(s_wait(P_MAIN, NULL), IBV_WC_SUCCESS);
	}
	CHECK(kill(r_pid, SIGCONT) == 0);
	order(O_ERR, P_MAIN, next, 8, 0);
	for (k = next; k < next + 8; k++) {
		struct result r;

		xread(from_r, &r, sizeof(r));
		if (k < next + 3)
			CHECKM(r.status == IBV_WC_SUCCESS && r.wr_id == k &&
			       r.byte_len == msg_len(k) && r.bad_at < 0,
			       "placed before ERR: receive %u: status %d, "
			       "wr_id %u, %u bytes, wrong from %d", k, r.status,
			       r.wr_id, r.byte_len, r.bad_at);
		else
			CHECKM(r.status == IBV_WC_WR_FLUSH_ERR && r.wr_id == k,
			       "after ERR: receive %u: status %d, wr_id %u", k,
			       r.status, r.wr_id);
	}

	order(O_DONE, 0, 0, 0, 0);
	CHECK(waitpid(r_pid, &st, 0) == r_pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	unlink(path);
	return smx_test_done();
}
