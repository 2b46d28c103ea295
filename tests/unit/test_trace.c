/* SPDX-License-Identifier: MIT */
/*
 * SOFTMLX5_TRACE against what a program did (docs/observe.md, "The trace").
 *
 * The test runs itself twice as a child, each on a private device segment
 * and with the trace in a file: an RC RDMA WRITE, an inline SEND and an
 * RDMA READ between two QPs of one process, each completed before the next,
 * the receive CQ armed. The first run traces everything and the child then
 * compares the trace field by field with what it posted and polled: the
 * commands that made its QPs, CQs and MRs (numbers, keys, ranges, PSNs, in
 * order), the three send doorbells and the CQ arm, each WQE (opcode,
 * index, remote address, rkey, lkey, local address, length, the inline
 * bytes), each CQE (counter, opcode, byte count, QPs), the completion EQE,
 * and the packets both ways (opcodes, QPs, PSNs, RETH, payload lengths).
 * The second run filters on the receiving QP (qp=N): its WQE, CQE and
 * packet lines all name that QP, and command lines are still there.
 */
#include <errno.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "smx_test.h"

#define PSN_A 0x1234	/* qp_a's send PSN = qp_b's receive PSN */
#define PSN_B 0x5678

struct run {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *ma, *mb;
	uint8_t *a, *b;
	uint32_t cqna, cqnb;
	uint32_t qpna, qpnb, lkey_a, rkey_b, lkey_b;	/* kept: checked after the close */
	struct ibv_wc wc[4];	/* WRITE, SEND, READ on cq a; the receive on cq b */
};

/* ---- the traced program ------------------------------------------------ */

static uint32_t cqn_of(struct ibv_cq *cq)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj o = { .cq = { .in = cq, .out = &dv } };

	return mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) ? 0 : dv.cqn;
}

static int connect_qp(struct ibv_qp *qp, uint32_t dqpn, uint32_t rq_psn, uint32_t sq_psn,
		      const union ibv_gid *gid)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i, n;

	for (i = 0; i < 10000000; i++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1 && wc->status == IBV_WC_SUCCESS ? 0 : -1;
	}
	return -1;
}

static int post_and_wait(struct run *r, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
			 uint64_t raddr, int flags, struct ibv_wc *wc)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = r->ma->lkey };
	struct ibv_send_wr wr = {
		.wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = r->mb->rkey;
	return ibv_post_send(r->qa, &wr, &bad) || poll_one(r->cqa, wc);
}

static int run_program(struct run *r)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_sge rs;
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rs, .num_sge = 1 }, *rbad;
	union ibv_gid gid;
	struct ibv_cq *ecq;
	void *ectx;
	int i;

	if (!l || !l[0] || !(r->ctx = ibv_open_device(l[0])))
		return -1;
	ibv_free_device_list(l);
	if (ibv_query_gid(r->ctx, 1, 0, &gid))
		return -1;
	r->pd = ibv_alloc_pd(r->ctx);
	r->ch = ibv_create_comp_channel(r->ctx);
	r->cqa = ibv_create_cq(r->ctx, 16, NULL, NULL, 0);
	r->cqb = r->ch ? ibv_create_cq(r->ctx, 16, NULL, r->ch, 0) : NULL;
	r->a = aligned_alloc(4096, 4096);
	r->b = aligned_alloc(4096, 4096);
	if (!r->pd || !r->cqa || !r->cqb || !r->a || !r->b)
		return -1;
	for (i = 0; i < 4096; i++) {
		r->a[i] = (uint8_t)(i * 7 + 1);
		r->b[i] = (uint8_t)(i * 13 + 5);
	}
	r->ma = ibv_reg_mr(r->pd, r->a, 4096, IBV_ACCESS_LOCAL_WRITE);
	r->mb = ibv_reg_mr(r->pd, r->b, 4096, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	qa.send_cq = qa.recv_cq = r->cqa;
	r->qa = ibv_create_qp(r->pd, &qa);
	qa.send_cq = qa.recv_cq = r->cqb;
	r->qb = ibv_create_qp(r->pd, &qa);
	if (!r->ma || !r->mb || !r->qa || !r->qb)
		return -1;
	r->cqna = cqn_of(r->cqa);
	r->cqnb = cqn_of(r->cqb);
	r->qpna = r->qa->qp_num;
	r->qpnb = r->qb->qp_num;
	r->lkey_a = r->ma->lkey;
	r->rkey_b = r->mb->rkey;
	r->lkey_b = r->mb->lkey;
	if (connect_qp(r->qa, r->qb->qp_num, PSN_B, PSN_A, &gid) ||
	    connect_qp(r->qb, r->qa->qp_num, PSN_A, PSN_B, &gid))
		return -1;
	rs = (struct ibv_sge){ .addr = (uintptr_t)r->b + 1024, .length = 256, .lkey = r->mb->lkey };
	if (ibv_post_recv(r->qb, &rwr, &rbad) || ibv_req_notify_cq(r->cqb, 0))
		return -1;
	if (post_and_wait(r, IBV_WR_RDMA_WRITE, (uintptr_t)r->a, 100, (uintptr_t)r->b, 0,
			  &r->wc[0]) ||
	    post_and_wait(r, IBV_WR_SEND, (uintptr_t)r->a + 200, 32, 0, IBV_SEND_INLINE,
			  &r->wc[1]) ||
	    post_and_wait(r, IBV_WR_RDMA_READ, (uintptr_t)r->a + 600, 48, (uintptr_t)r->b + 512,
			  0, &r->wc[2]) ||
	    poll_one(r->cqb, &r->wc[3]))
		return -1;
	if (ibv_get_cq_event(r->ch, &ecq, &ectx) || ecq != r->cqb)
		return -1;
	ibv_ack_cq_events(ecq, 1);
	return 0;
}

static void close_program(struct run *r)
{
	ibv_destroy_qp(r->qa);
	ibv_destroy_qp(r->qb);
	ibv_dereg_mr(r->ma);
	ibv_dereg_mr(r->mb);
	ibv_destroy_cq(r->cqa);
	ibv_destroy_cq(r->cqb);
	ibv_destroy_comp_channel(r->ch);
	ibv_dealloc_pd(r->pd);
	ibv_close_device(r->ctx);
}

/* ---- reading the trace --------------------------------------------------- */

#define MAX_LINES 4096
static char *lines[MAX_LINES];
static int nlines;

static int read_trace(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[8192];

	if (!f)
		return -1;
	while (nlines < MAX_LINES && fgets(buf, sizeof(buf), f))
		lines[nlines++] = strdup(buf);
	fclose(f);
	return 0;
}

/* The line's kind: the word after "t=...". */
static bool is_kind(const char *l, const char *kind)
{
	const char *p = strstr(l, " t=");
	size_t k = strlen(kind);

	if (!p || !(p = strchr(p + 1, ' ')))
		return false;
	return !strncmp(p + 1, kind, k) && p[1 + k] == ' ';
}

/* The value of the first " key=" in @l (after @from when given), or "". */
static const char *val(const char *l, const char *key, const char *from)
{
	static char v[4][2048];
	static int w;
	char pat[64];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(from ? strstr(l, from) ? strstr(l, from) : l : l, pat);
	w = (w + 1) % 4;
	v[w][0] = 0;
	if (!p)
		return v[w];
	p += strlen(pat);
	n = strcspn(p, " \n");
	if (n >= sizeof(v[w]))
		n = sizeof(v[w]) - 1;
	memcpy(v[w], p, n);
	v[w][n] = 0;
	return v[w];
}

static unsigned long long num(const char *s)
{
	return strtoull(s, NULL, 0);
}

/* The first line from index @start of @kind whose fields include every
 * "key=value" of the NULL-ended list; -1 if none. */
static int find(int start, const char *kind, ...)
{
	int i;

	for (i = start < 0 ? 0 : start; i < nlines; i++) {
		va_list ap;
		const char *kv;
		bool ok = is_kind(lines[i], kind);

		va_start(ap, kind);
		while (ok && (kv = va_arg(ap, const char *))) {
			char pat[256];

			snprintf(pat, sizeof(pat), " %s", kv);
			/* whole field: followed by a blank, '(' or the end */
			const char *p = strstr(lines[i], pat);

			ok = false;
			while (p) {
				char c = p[strlen(pat)];

				if (c == ' ' || c == '\n' || c == '(' || c == 0) {
					ok = true;
					break;
				}
				p = strstr(p + 1, pat);
			}
		}
		va_end(ap);
		if (ok)
			return i;
	}
	return -1;
}

static int count(const char *kind, const char *kv)
{
	int i, n = 0;

	for (i = 0; i < nlines; i++)
		if (is_kind(lines[i], kind) && (!kv || find(i, kind, kv, NULL) == i))
			n++;
	return n;
}

static const char *fmt(const char *f, ...)
{
	static char b[16][128];
	static int w;
	va_list ap;

	w = (w + 1) % 16;
	va_start(ap, f);
	vsnprintf(b[w], sizeof(b[w]), f, ap);
	va_end(ap);
	return b[w];
}

/* ---- the checks ---------------------------------------------------------- */

static void check_every_line(void)
{
	char pfx[64];
	int i;

	snprintf(pfx, sizeof(pfx), "softmlx5-trace pid=%d t=", (int)getpid());
	CHECK(nlines > 0);
	for (i = 0; i < nlines; i++) {
		size_t n = strlen(lines[i]);

		CHECKM(!strncmp(lines[i], pfx, strlen(pfx)) && n && lines[i][n - 1] == '\n',
		       "line %d: %s", i, lines[i]);
	}
}

static void check_commands(const struct run *r)
{
	uint32_t qa = r->qpna, qb = r->qpnb;
	int c, i2, rtr, rts;

	/* the QP: created with our CQs, RC, then through its states in order */
	c = find(0, "cmd", "opcode=CREATE_QP", "st=RC", fmt("cqn_snd=0x%x", r->cqna),
		 fmt("cqn_rcv=0x%x", r->cqna), "status=OK", fmt("obj=0x%x", qa), NULL);
	i2 = find(c, "cmd", "opcode=RST2INIT_QP", fmt("qpn=0x%x", qa), "status=OK", NULL);
	rtr = find(i2, "cmd", "opcode=INIT2RTR_QP", fmt("qpn=0x%x", qa),
		   fmt("remote_qpn=0x%x", qb), fmt("next_rcv_psn=0x%x", PSN_B),
		   "mtu=3", "status=OK", NULL);
	rts = find(rtr, "cmd", "opcode=RTR2RTS_QP", fmt("qpn=0x%x", qa),
		   fmt("next_send_psn=0x%x", PSN_A), "retry_count=7", "rnr_retry=7", "status=OK",
		   NULL);
	CHECKM(c >= 0 && i2 > c && rtr > i2 && rts > rtr, "qp a commands at %d %d %d %d", c, i2,
	       rtr, rts);
	CHECK(find(0, "cmd", "opcode=CREATE_QP", fmt("cqn_snd=0x%x", r->cqnb),
		   fmt("obj=0x%x", qb), NULL) >= 0);
	CHECK(find(0, "cmd", "opcode=CREATE_CQ", fmt("obj=0x%x", r->cqna), NULL) >= 0);
	/* the MRs: range, key byte and index, rights */
	CHECK(find(0, "cmd", "opcode=CREATE_MKEY", fmt("start=%p", (void *)r->a), "len=0x1000",
		   fmt("key=0x%02x", r->lkey_a & 0xff), "access=lwlr", "status=OK",
		   fmt("obj=0x%x", r->lkey_a >> 8), NULL) >= 0);
	CHECK(find(0, "cmd", "opcode=CREATE_MKEY", fmt("start=%p", (void *)r->b),
		   fmt("key=0x%02x", r->rkey_b & 0xff), "access=rwrrlwlr",
		   fmt("obj=0x%x", r->rkey_b >> 8), NULL) >= 0);
	/* and they go away at the end, after the traffic */
	CHECK(find(rts, "cmd", "opcode=DESTROY_QP", fmt("obj=0x%x", qa), "status=OK", NULL) > rts);
}

static void check_doorbells_and_wqes(const struct run *r)
{
	uint32_t qa = r->qpna;
	const char *sq = fmt("sq=0x%06x", qa), *qpn = fmt("qpn=0x%06x", qa);
	int w;

	/* one send doorbell per post, naming the QP, its WQE and opcode */
	CHECK_EQ(count("db", "reg=0x800") + count("db", "reg=0x900"), 3);
	CHECK(find(0, "db", qpn, "wqe_index=0", "opcode=0x08", NULL) >= 0);
	CHECK(find(0, "db", qpn, "wqe_index=1", "opcode=0x0a", NULL) >= 0);
	CHECK(find(0, "db", qpn, "wqe_index=2", "opcode=0x10", NULL) >= 0);
	CHECK(find(0, "db", "reg=0x020", fmt("cqn=0x%06x", r->cqnb), "cmd=0", NULL) >= 0);

	CHECK_EQ(count("wqe", NULL), 3);	/* qp b posts no sends */
	w = find(0, "wqe", sq, "index=0", "opcode=RDMA_WRITE", "wqe_index=0", qpn, "ds=3",
		 fmt("va=%p", (void *)r->b), fmt("rkey=0x%08x", r->rkey_b), "len=100",
		 fmt("lkey=0x%08x", r->lkey_a), fmt("addr=%p", (void *)r->a), NULL);
	CHECKM(w >= 0, "no WRITE WQE line");
	{
		char hex[65];
		int i;

		for (i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", r->a[200 + i]);
		w = find(0, "wqe", sq, "index=1", "opcode=SEND", "wqe_index=1", "len=32",
			 fmt("data=%s", hex), NULL);
		CHECKM(w >= 0, "no inline SEND WQE line with the bytes %s", hex);
	}
	w = find(0, "wqe", sq, "index=2", "opcode=RDMA_READ", "wqe_index=2",
		 fmt("va=%p", (void *)(r->b + 512)), fmt("rkey=0x%08x", r->rkey_b), "len=48",
		 fmt("lkey=0x%08x", r->lkey_a), fmt("addr=%p", (void *)(r->a + 600)), NULL);
	CHECKM(w >= 0, "no READ WQE line");
	/* qp b's one receive, as the SEND took it: 256 bytes at b + 1024 */
	CHECK_EQ(count("rwqe", NULL), 1);
	w = find(0, "rwqe", fmt("rq=0x%06x", r->qpnb), "index=0", "len=256",
		 fmt("lkey=0x%08x", r->lkey_b), fmt("addr=%p", (void *)(r->b + 1024)), NULL);
	CHECKM(w >= 0, "no receive WQE line");
}

static void check_cqes(const struct run *r)
{
	uint32_t qa = r->qpna, qb = r->qpnb;
	const char *cqa = fmt("cqn=0x%06x", r->cqna), *qpa = fmt("qpn=0x%06x", qa);
	int c;

	/* what the program polled, each from one CQE line */
	CHECK_EQ(r->wc[0].qp_num, qa);
	CHECK(find(0, "cqe", cqa, "opcode=REQ", qpa, "wqe_counter=0",
		   "wqe_opcode=RDMA_WRITE", NULL) >= 0);
	CHECK(find(0, "cqe", cqa, "opcode=REQ", qpa, "wqe_counter=1", "wqe_opcode=SEND",
		   NULL) >= 0);
	c = find(0, "cqe", cqa, "opcode=REQ", qpa, "wqe_counter=2", "wqe_opcode=RDMA_READ",
		 fmt("byte_cnt=%u", r->wc[2].byte_len), NULL);
	CHECKM(c >= 0 && r->wc[2].byte_len == 48, "READ CQE (polled byte_len %u)",
	       r->wc[2].byte_len);
	c = find(0, "cqe", fmt("cqn=0x%06x", r->cqnb), "opcode=RESP_SEND",
		 fmt("qpn=0x%06x", qb), "wqe_counter=0", fmt("byte_cnt=%u", r->wc[3].byte_len),
		 fmt("rqpn=0x%06x", qa), NULL);
	CHECKM(c >= 0 && r->wc[3].byte_len == 32 && r->wc[3].wr_id == 7,
	       "receive CQE (polled byte_len %u)", r->wc[3].byte_len);
	CHECK_EQ(count("cqe", NULL), 4);
	/* the armed CQ's event */
	CHECK(find(c, "eqe", "type=COMP", fmt("cqn=0x%06x", r->cqnb), NULL) > c);
}

static void check_packets(const struct run *r)
{
	uint32_t qa = r->qpna, qb = r->qpnb;
	const char *tx = "dir=tx", *rx = "dir=rx", *dqb = fmt("dqpn=0x%06x", qb);
	const char *sqa = fmt("sqpn=0x%06x", qa), *dqa = fmt("dqpn=0x%06x", qa);
	int w, s, rd;

	w = find(0, "pkt", tx, sqa, "opcode=RC_RDMA_WRITE_ONLY", dqb,
		 fmt("psn=0x%06x", PSN_A), "ackreq=1", fmt("va=%p", (void *)r->b),
		 fmt("rkey=0x%08x", r->rkey_b), "dma_len=100", "len=100", NULL);
	s = find(w, "pkt", tx, sqa, "opcode=RC_SEND_ONLY", dqb, fmt("psn=0x%06x", PSN_A + 1),
		 "len=32", NULL);
	rd = find(s, "pkt", tx, sqa, "opcode=RC_RDMA_READ_REQUEST", dqb,
		  fmt("psn=0x%06x", PSN_A + 2), fmt("va=%p", (void *)(r->b + 512)),
		  "dma_len=48", NULL);
	CHECKM(w >= 0 && s > w && rd > s, "requests at %d %d %d", w, s, rd);
	CHECK(find(0, "pkt", rx, "opcode=RC_RDMA_WRITE_ONLY", dqb, "dma_len=100", NULL) > w);
	CHECK(find(0, "pkt", rx, "opcode=RC_SEND_ONLY", dqb, "len=32", NULL) > s);
	CHECK(find(rd, "pkt", tx, "opcode=RC_RDMA_READ_RESPONSE_ONLY", dqa,
		   fmt("psn=0x%06x", PSN_A + 2), "len=48", NULL) > rd);
	CHECK(find(0, "pkt", tx, "opcode=RC_ACKNOWLEDGE", dqa, fmt("psn=0x%06x", PSN_A),
		   "type=ACK", NULL) >= 0);
	/* in one process the loopback link carries them: each sent once, received once */
	CHECK_EQ(count("pkt", "dir=tx"), count("pkt", "dir=rx"));
	CHECK_EQ(count("pkt", "link=loopback"), count("pkt", NULL));
}

/* qp=N: the WQE, CQE and packet lines are N's only. */
static void check_filtered(const struct run *r, uint32_t want)
{
	uint32_t qb = r->qpnb;
	int i;

	CHECKM(qb == want, "the filter names qp 0x%x, qp b is 0x%x", want, qb);
	CHECK(count("cmd", "opcode=CREATE_QP") == 2);
	CHECK_EQ(count("wqe", NULL), 0);
	CHECK_EQ(count("cqe", NULL), 1);
	CHECK(count("pkt", NULL) > 0);
	for (i = 0; i < nlines; i++) {
		if (is_kind(lines[i], "cqe"))
			CHECK_EQ(num(val(lines[i], "qpn", NULL)), qb);
		if (is_kind(lines[i], "pkt"))
			CHECKM(num(val(lines[i], "dqpn", "| bth")) == qb ||
			       num(val(lines[i], "sqpn", NULL)) == qb, "%s", lines[i]);
	}
}

static int child(const char *mode, const char *trace, const char *out)
{
	struct run r;
	const char *spec = getenv("SOFTMLX5_TRACE");
	const char *q = spec ? strstr(spec, "qp=") : NULL;

	memset(&r, 0, sizeof(r));
	if (run_program(&r)) {
		fprintf(stderr, "test_trace: the program failed (errno %d)\n", errno);
		return 1;
	}
	close_program(&r);	/* every line is written */
	if (read_trace(trace)) {
		fprintf(stderr, "test_trace: no trace in %s\n", trace);
		return 1;
	}
	check_every_line();
	if (!strcmp(mode, "all")) {
		FILE *f = fopen(out, "w");

		check_commands(&r);
		check_doorbells_and_wqes(&r);
		check_cqes(&r);
		check_packets(&r);
		if (f) {
			fprintf(f, "%u\n", r.qpnb);
			fclose(f);
		}
	} else {
		check_filtered(&r, q ? (uint32_t)strtoul(q + 3, NULL, 0) : 0);
	}
	free(r.a);
	free(r.b);
	if (smx_test_failed)
		fprintf(stderr, "test_trace: the trace is in %s\n", trace);
	return smx_test_done();
}

/* Runs this program as a child on segment @shm with @spec, tracing to @trace. */
static int spawn(const char *self, const char *mode, const char *shm, const char *spec,
		 const char *trace, const char *out)
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		setenv("SOFTMLX5_SHM_PATH", shm, 1);
		setenv("SOFTMLX5_TRACE", spec, 1);
		setenv("SOFTMLX5_TRACE_FILE", trace, 1);
		execl(self, self, "child", mode, trace, out, (char *)NULL);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/softmlx5-trace-XXXXXX", self[4096], spec[64];
	char shm[128], t1[128], t2[128], out[128];
	unsigned int qb = 0;
	FILE *f;
	ssize_t n;
	int rc;

	if (argc == 5 && !strcmp(argv[1], "child"))
		return child(argv[2], argv[3], argv[4]);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0 || !mkdtemp(dir))
		return 1;
	self[n] = 0;
	snprintf(shm, sizeof(shm), "%s/shm", dir);
	snprintf(t1, sizeof(t1), "%s/all.trace", dir);
	snprintf(t2, sizeof(t2), "%s/qp.trace", dir);
	snprintf(out, sizeof(out), "%s/qpn", dir);
	rc = spawn(self, "all", shm, "cmd,wqe,cqe,eqe,pkt,db", t1, out);
	CHECKM(rc == 0, "the traced run failed (%d)", rc);
	f = fopen(out, "r");
	CHECK(f && fscanf(f, "%u", &qb) == 1);
	if (f)
		fclose(f);
	/* the same program again: on a fresh segment it gets the same QPNs */
	snprintf(shm, sizeof(shm), "%s/shm2", dir);
	snprintf(spec, sizeof(spec), "all,qp=0x%x", qb);
	rc = spawn(self, "qp", shm, spec, t2, out);
	CHECKM(rc == 0, "the filtered run failed (%d)", rc);
	if (!smx_test_failed) {
		snprintf(shm, sizeof(shm), "%s/shm", dir);
		unlink(shm);
		snprintf(shm, sizeof(shm), "%s/shm2", dir);
		unlink(shm);
		unlink(t1);
		unlink(t2);
		unlink(out);
		rmdir(dir);
	}
	return smx_test_done();
}
