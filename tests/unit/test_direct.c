/* SPDX-License-Identifier: MIT */
/*
 * Direct placement between two processes (docs/multiprocess.md), through
 * the public verbs API: a target process T registers memory and answers
 * orders over a pipe; a requester process R (forked before either opens
 * the device) runs RC RDMA WRITE / READ against it.
 *
 *   - after one WRITE / READ / atomic through the inbox (which hands R the
 *     key record), further ones complete while T is stopped (SIGSTOP): the
 *     requester placed the data itself;
 *   - the requester's own checks refuse what the responder would: bounds
 *     and rights beyond what the record allows end in REMOTE_ACCESS_ERR
 *     (through the inbox) and leave T's memory untouched;
 *   - a key deregistered by T after R learned it is not usable any more;
 *   - a key of another PD never becomes usable;
 *   - the requester's own key, checked once and cached by its QP, still
 *     refuses a range beyond it and, once deregistered, any use;
 *   - file-backed memory is never placed directly (it keeps the inbox).
 * The segment is private to the test ($SOFTMLX5_SHM_PATH).
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "peer_test_util.h"
#include "smx_test.h"

#define NPAIR 9
#define BUFSZ 65536
#define ACC_QP (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		IBV_ACCESS_REMOTE_ATOMIC)

enum { MR_RW, MR_WO, MR_PD2, MR_DEREG, MR_FILE, NMR };

/* What T tells R (peer_connect_qps() then pairs the QPs). */
struct info {
	uint32_t rkey[NMR];
	uint64_t addr[NMR];
	int pid;
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	struct ibv_qp *qp[NPAIR];
};

static void side_open(struct side *s)
{
	int i;

	s->ctx = peer_open_device();
	s->pd = ibv_alloc_pd(s->ctx);
	s->pd2 = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (!s->pd || !s->pd2 || !s->cq)
		exit(2);
	for (i = 0; i < NPAIR; i++) {
		struct ibv_qp_init_attr a = {
			.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16,
				 .max_send_sge = 1, .max_recv_sge = 1,
				 .max_inline_data = 64 },
		};

		s->qp[i] = ibv_create_qp(s->pd, &a);
		if (!s->qp[i])
			exit(2);
	}
}

/* ------------------------------------------------------------------ */
/* Target                                                             */
/* ------------------------------------------------------------------ */

enum { ORD_DONE, ORD_DEREG, ORD_PEEK, ORD_RECV };

struct order {
	int op;
	int mr;
	uint32_t off, len;
};

/*
 * @n receives of 8 bytes on pair 0 into @at, then a busy poll of the CQ
 * (no pause: the inbox is served by this poller once SENDs keep coming)
 * until all completed or 3 s passed. Says "ready" (1) after posting; the
 * answer is how many completed successfully.
 */
static uint8_t target_recv(struct side *s, struct ibv_mr *m, uint8_t *at,
			   uint32_t n, int out)
{
	struct timespec t0, t;
	uint8_t ready = 1, got = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)(at + 8 * i), 8, m->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		CHECK(ibv_post_recv(s->qp[0], &wr, &bad) == 0);
	}
	xwrite(out, &ready, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n;) {
		struct ibv_wc wc;
		int k = ibv_poll_cq(s->cq, 1, &wc);

		if (k == 1) {
			got += wc.status == IBV_WC_SUCCESS &&
			       wc.opcode == IBV_WC_RECV && wc.byte_len == 8;
			i++;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 3)
			break;
	}
	return got;
}

static int target(int in, int out)
{
	struct side s;
	struct info me = { 0 };
	struct ibv_mr *mr[NMR];
	uint8_t *buf[NMR];
	static const int acc[NMR] = {
		[MR_RW] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		[MR_WO] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		[MR_PD2] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ,
		[MR_DEREG] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ,
		[MR_FILE] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ,
	};
	int i;

	side_open(&s);
	for (i = 0; i < NMR; i++) {
		if (i == MR_FILE) {
			/* A shared file mapping: never re-backed. */
			char tmpl[] = "/tmp/softmlx5-test-direct-XXXXXX";
			int fd = mkstemp(tmpl);

			if (fd < 0 || ftruncate(fd, BUFSZ))
				return 2;
			unlink(tmpl);
			buf[i] = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
				      MAP_SHARED, fd, 0);
			close(fd);
			if (buf[i] == MAP_FAILED)
				return 2;
		} else {
			/* Heap memory: what the fast path re-backs. */
			buf[i] = aligned_alloc(4096, BUFSZ);
			if (!buf[i])
				return 2;
		}
		memset(buf[i], 0x11 * (i + 1), BUFSZ);
		mr[i] = ibv_reg_mr(i == MR_PD2 ? s.pd2 : s.pd, buf[i], BUFSZ, acc[i]);
		if (!mr[i])
			return 2;
		/* Registration kept the bytes. */
		CHECK_EQ(buf[i][BUFSZ - 1], 0x11 * (i + 1));
		me.rkey[i] = mr[i]->rkey;
		me.addr[i] = (uintptr_t)buf[i];
	}
	me.pid = getpid();
	xwrite(out, &me, sizeof(me));
	CHECK_EQ(peer_connect_qps(in, out, true, s.qp, NPAIR, ACC_QP), 0);
	xwrite(out, &me, 1);
	for (;;) {
		struct order o;
		uint8_t sum = 0;
		uint32_t k;

		xread(in, &o, sizeof(o));
		if (o.op == ORD_DONE)
			break;
		if (o.op == ORD_DEREG) {
			CHECK(ibv_dereg_mr(mr[o.mr]) == 0);
			mr[o.mr] = NULL;
		} else if (o.op == ORD_RECV) {
			sum = target_recv(&s, mr[o.mr], buf[o.mr] + o.off, o.len,
					  out);
		} else {
			/* One byte: 0 when [off, off + len) is all the
			 * initial pattern, else the first byte that is not. */
			for (k = o.off; k < o.off + o.len && !sum; k++)
				if (buf[o.mr][k] != 0x11 * (o.mr + 1))
					sum = buf[o.mr][k];
		}
		xwrite(out, &sum, 1);
	}
	for (i = 0; i < NMR; i++)
		if (mr[i])
			ibv_dereg_mr(mr[i]);
	return smx_test_done();
}

/* ------------------------------------------------------------------ */
/* Requester                                                          */
/* ------------------------------------------------------------------ */

static struct side rs;
static struct ibv_mr *lmr;
static uint32_t lkey;		/* lmr's, kept after it is deregistered */
static uint8_t *lbuf;
static int to_t, from_t;

/* Waits up to @ms for one completion; its WC status, or -1 if none. */
static int wait_wc(int ms)
{
	struct timespec t0, t;
	struct ibv_wc wc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (ibv_poll_cq(rs.cq, 1, &wc) == 1)
			return wc.status;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			return -1;
		usleep(100);
	}
}

/* Posts one RDMA op on pair @p without waiting; 0 or -2. */
static int rdma_post(int p, enum ibv_wr_opcode op, uint64_t raddr,
		     uint32_t rkey, uint32_t loff, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)(lbuf + loff), len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	return ibv_post_send(rs.qp[p], &wr, &bad) ? -2 : 0;
}

/* Posts one RDMA op on pair @p and waits up to 3 s; the WC status, or
 * -1 when nothing completed. */
static int rdma(int p, enum ibv_wr_opcode op, uint64_t raddr, uint32_t rkey,
		uint32_t loff, uint32_t len)
{
	if (rdma_post(p, op, raddr, rkey, loff, len))
		return -2;
	return wait_wc(3000);
}

/* rdma() of an inline RDMA WRITE: the data travels in the WQE. */
static int rdma_inline(int p, uint64_t raddr, uint32_t rkey, uint32_t loff,
		       uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)(lbuf + loff), len, 0 };
	struct ibv_send_wr wr = {
		.wr_id = 9, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	if (ibv_post_send(rs.qp[p], &wr, &bad))
		return -2;
	return peer_wait_wc(rs.cq, 30000, 100);
}

/* An 8-byte atomic on pair @p, result at lbuf + @loff; WC status or -1. */
static int atomic(int p, enum ibv_wr_opcode op, uint64_t raddr, uint32_t rkey,
		  uint32_t loff, uint64_t cmp_add, uint64_t swap)
{
	struct ibv_sge sge = { (uintptr_t)(lbuf + loff), 8, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 8, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = raddr, .rkey = rkey,
			       .compare_add = cmp_add, .swap = swap },
	}, *bad;

	if (ibv_post_send(rs.qp[p], &wr, &bad))
		return -2;
	return peer_wait_wc(rs.cq, 30000, 100);
}

/* The atomic's original value: big-endian in the result buffer, as the
 * responder writes it (atomic_req_8B_endianness_mode 0). */
static uint64_t lval(uint32_t off)
{
	uint64_t v;

	memcpy(&v, lbuf + off, 8);
	return v;	/* host order (atomic_req_8B_endianness_mode 1) */
}

static uint8_t peek(int mr, uint32_t off, uint32_t len)
{
	struct order o = { ORD_PEEK, mr, off, len };
	uint8_t r;

	xwrite(to_t, &o, sizeof(o));
	xread(from_t, &r, 1);
	return r;
}

static int requester(int in, int out)
{
	struct info t;
	struct order o = { 0 };
	uint8_t c;
	int i;

	to_t = out;
	from_t = in;
	side_open(&rs);
	lbuf = aligned_alloc(4096, BUFSZ);
	lmr = ibv_reg_mr(rs.pd, lbuf, BUFSZ, IBV_ACCESS_LOCAL_WRITE);
	if (!lbuf || !lmr)
		return 2;
	lkey = lmr->lkey;
	xread(in, &t, sizeof(t));
	CHECK_EQ(peer_connect_qps(in, out, false, rs.qp, NPAIR, ACC_QP), 0);
	xread(in, &c, 1);

	/* Pair 0: learn, then place data while the target is stopped. */
	memset(lbuf, 0xa5, BUFSZ);
	CHECK_EQ(rdma(0, IBV_WR_RDMA_WRITE, t.addr[MR_RW], t.rkey[MR_RW], 0, 64),
		 IBV_WC_SUCCESS);
	CHECK_EQ(rdma(0, IBV_WR_RDMA_READ, t.addr[MR_RW] + 4096, t.rkey[MR_RW],
		      8192, 64), IBV_WC_SUCCESS);
	CHECK_EQ(lbuf[8192], 0x11);
	CHECK_EQ(atomic(0, IBV_WR_ATOMIC_FETCH_AND_ADD, t.addr[MR_RW] + 16384,
			t.rkey[MR_RW], 12288, 5, 0), IBV_WC_SUCCESS);
	CHECK_EQ(lval(12288), 0x1111111111111111ull);
	CHECK(stop(t.pid));
	/* Atomics while the target is stopped: placed by the requester. */
	CHECK_EQ(atomic(0, IBV_WR_ATOMIC_FETCH_AND_ADD, t.addr[MR_RW] + 16384,
			t.rkey[MR_RW], 12288, 1, 0), IBV_WC_SUCCESS);
	CHECK_EQ(lval(12288), 0x1111111111111116ull);
	CHECK_EQ(atomic(0, IBV_WR_ATOMIC_CMP_AND_SWP, t.addr[MR_RW] + 16384,
			t.rkey[MR_RW], 12288, 0x1111111111111117ull, 42),
		 IBV_WC_SUCCESS);
	CHECK_EQ(lval(12288), 0x1111111111111117ull);
	CHECK_EQ(atomic(0, IBV_WR_ATOMIC_CMP_AND_SWP, t.addr[MR_RW] + 16384,
			t.rkey[MR_RW], 12288, 7, 99), IBV_WC_SUCCESS);
	CHECK_EQ(lval(12288), 42);	/* no swap: 42 stays */
	memset(lbuf, 0x5a, 4096);
	CHECK_EQ(rdma(0, IBV_WR_RDMA_WRITE, t.addr[MR_RW] + 100, t.rkey[MR_RW], 0,
		      4000), IBV_WC_SUCCESS);
	CHECK_EQ(rdma(0, IBV_WR_RDMA_WRITE, t.addr[MR_RW] + BUFSZ - 16,
		      t.rkey[MR_RW], 0, 8), IBV_WC_SUCCESS);
	memset(lbuf + 8192, 0, 64);
	CHECK_EQ(rdma(0, IBV_WR_RDMA_READ, t.addr[MR_RW] + 100, t.rkey[MR_RW],
		      8192, 64), IBV_WC_SUCCESS);
	CHECK_EQ(lbuf[8192], 0x5a);
	CHECK_EQ(lbuf[8192 + 63], 0x5a);
	CHECK(kill(t.pid, SIGCONT) == 0);
	CHECK_EQ(peek(MR_RW, 100, 4000), 0x5a);	/* it is there */
	CHECK_EQ(peek(MR_RW, 4100, 4096), 0);	/* and nothing beyond */
	CHECK_EQ(peek(MR_RW, BUFSZ - 16, 8), 0x5a);
	CHECK_EQ(peek(MR_RW, BUFSZ - 8, 8), 0);

	/* Pair 6: a 4 KiB READ learns the record too (its data then goes by
	 * reference), and the next one runs with the target stopped. */
	memset(lbuf + 16384, 0, 8192);
	CHECK_EQ(rdma(6, IBV_WR_RDMA_READ, t.addr[MR_RW] + 32768, t.rkey[MR_RW],
		      16384, 4096), IBV_WC_SUCCESS);
	CHECK_EQ(lbuf[16384 + 4095], 0x11);
	CHECK(stop(t.pid));
	CHECK_EQ(rdma(6, IBV_WR_RDMA_READ, t.addr[MR_RW] + 40960, t.rkey[MR_RW],
		      20480, 4096), IBV_WC_SUCCESS);
	CHECK(kill(t.pid, SIGCONT) == 0);
	CHECK_EQ(lbuf[20480], 0x11);
	CHECK_EQ(lbuf[20480 + 4095], 0x11);

	/* Pair 8: inline WRITEs (one WQEBB: 8 and 28 bytes; two: 40), placed
	 * by the requester while the target is stopped once the record is
	 * learned; one beyond the key is refused and writes nothing. */
	memset(lbuf + 3072, 0x2d, 64);
	CHECK_EQ(rdma_inline(8, t.addr[MR_RW] + 57344, t.rkey[MR_RW], 3072, 8),
		 IBV_WC_SUCCESS);
	CHECK(stop(t.pid));
	CHECK_EQ(rdma_inline(8, t.addr[MR_RW] + 57352, t.rkey[MR_RW], 3072, 8),
		 IBV_WC_SUCCESS);
	CHECK_EQ(rdma_inline(8, t.addr[MR_RW] + 57360, t.rkey[MR_RW], 3072, 28),
		 IBV_WC_SUCCESS);
	CHECK_EQ(rdma_inline(8, t.addr[MR_RW] + 57388, t.rkey[MR_RW], 3072, 40),
		 IBV_WC_SUCCESS);
	CHECK(kill(t.pid, SIGCONT) == 0);
	CHECK_EQ(peek(MR_RW, 57344, 1), 0x2d);
	CHECK_EQ(peek(MR_RW, 57359, 1), 0x2d);
	CHECK_EQ(peek(MR_RW, 57360, 1), 0x2d);
	CHECK_EQ(peek(MR_RW, 57387, 1), 0x2d);
	CHECK_EQ(peek(MR_RW, 57388, 1), 0x2d);
	CHECK_EQ(peek(MR_RW, 57427, 1), 0x2d);
	CHECK_EQ(peek(MR_RW, 57428, 8), 0);	/* and nothing beyond */
	CHECK_EQ(rdma_inline(8, t.addr[MR_RW] + BUFSZ - 4, t.rkey[MR_RW], 3072,
			     8), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(peek(MR_RW, BUFSZ - 4, 4), 0);

	/* Pair 7: file-backed memory keeps the inbox: a WRITE works while
	 * the target runs; while it is stopped the WRITE waits (retry_cnt 3
	 * and timeout 14 would be spent in ~0.3 s were the stop counted) and
	 * completes once the target runs again, as with a NIC that answers. */
	memset(lbuf, 0x3c, 64);
	CHECK_EQ(rdma(7, IBV_WR_RDMA_WRITE, t.addr[MR_FILE], t.rkey[MR_FILE], 0,
		      64), IBV_WC_SUCCESS);
	CHECK_EQ(peek(MR_FILE, 0, 64), 0x3c);
	CHECK(stop(t.pid));
	CHECK_EQ(rdma_post(7, IBV_WR_RDMA_WRITE, t.addr[MR_FILE] + 64,
			   t.rkey[MR_FILE], 0, 64), 0);
	CHECK_EQ(wait_wc(1500), -1);
	CHECK(kill(t.pid, SIGCONT) == 0);
	CHECK_EQ(wait_wc(3000), IBV_WC_SUCCESS);
	CHECK_EQ(peek(MR_FILE, 64, 64), 0x3c);

	/* Pair 1: bounds beyond the key after it was learned. */
	CHECK_EQ(rdma(1, IBV_WR_RDMA_WRITE, t.addr[MR_RW] + 8192, t.rkey[MR_RW],
		      0, 8), IBV_WC_SUCCESS);
	CHECK_EQ(rdma(1, IBV_WR_RDMA_WRITE, t.addr[MR_RW] + BUFSZ - 4,
		      t.rkey[MR_RW], 4096, 8), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(peek(MR_RW, BUFSZ - 4, 4), 0);	/* untouched */

	/* Pair 2: a write-only key learned by a WRITE refuses a READ. */
	CHECK_EQ(rdma(2, IBV_WR_RDMA_WRITE, t.addr[MR_WO], t.rkey[MR_WO], 0, 8),
		 IBV_WC_SUCCESS);
	CHECK_EQ(rdma(2, IBV_WR_RDMA_READ, t.addr[MR_WO], t.rkey[MR_WO], 0, 8),
		 IBV_WC_REM_ACCESS_ERR);

	/* Pair 5: atomics on a key without atomic rights, learned by a WRITE. */
	CHECK_EQ(rdma(5, IBV_WR_RDMA_WRITE, t.addr[MR_WO] + 64, t.rkey[MR_WO], 0,
		      8), IBV_WC_SUCCESS);
	CHECK_EQ(atomic(5, IBV_WR_ATOMIC_FETCH_AND_ADD, t.addr[MR_WO] + 128,
			t.rkey[MR_WO], 12288, 1, 0), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(peek(MR_WO, 128, 8), 0);

	/* Pair 3: a key deregistered after it was learned. */
	memset(lbuf, 0x77, 64);
	CHECK_EQ(rdma(3, IBV_WR_RDMA_WRITE, t.addr[MR_DEREG], t.rkey[MR_DEREG],
		      0, 8), IBV_WC_SUCCESS);
	CHECK_EQ(rdma(3, IBV_WR_RDMA_WRITE, t.addr[MR_DEREG] + 8,
		      t.rkey[MR_DEREG], 0, 8), IBV_WC_SUCCESS);
	CHECK_EQ(peek(MR_DEREG, 8, 8), 0x77);
	o.op = ORD_DEREG;
	o.mr = MR_DEREG;
	xwrite(out, &o, sizeof(o));
	xread(in, &c, 1);
	memset(lbuf, 0x99, 64);
	CHECK_EQ(rdma(3, IBV_WR_RDMA_WRITE, t.addr[MR_DEREG] + 64,
		      t.rkey[MR_DEREG], 0, 8), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(peek(MR_DEREG, 64, 64), 0);

	/* Pair 4: a key of another PD is refused, first and second time. */
	CHECK_EQ(rdma(4, IBV_WR_RDMA_WRITE, t.addr[MR_PD2], t.rkey[MR_PD2], 0, 8),
		 IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(peek(MR_PD2, 0, 64), 0);

	/* Pair 0: SENDs to a target that busy-polls its CQ -- after the
	 * first, its poller serves its inbox and producers need not wake
	 * its inbox thread -- all land, in order. */
	o.op = ORD_RECV;
	o.mr = MR_RW;
	o.off = 49152;
	o.len = 16;	/* max_recv_wr */
	xwrite(out, &o, sizeof(o));
	xread(in, &c, 1);
	for (i = 0; i < 16; i++) {
		memset(lbuf + 2048, 0x60 + i, 8);
		CHECK_EQ(rdma(0, IBV_WR_SEND, 0, 0, 2048, 8), IBV_WC_SUCCESS);
	}
	xread(in, &c, 1);
	CHECK_EQ(c, 16);
	CHECK_EQ(peek(MR_RW, 49152, 8), 0x60);
	CHECK_EQ(peek(MR_RW, 49152 + 15 * 8, 8), 0x60 + 15);

	/* Pairs 6 and 0: the local key, cached by the QP after its first
	 * check, is still checked for each range and dropped when it is
	 * deregistered (a command moves the engine's generation). */
	memset(lbuf, 0x42, 64);
	CHECK_EQ(rdma(6, IBV_WR_RDMA_WRITE, t.addr[MR_RW] + 24576,
		      t.rkey[MR_RW], 0, 8), IBV_WC_SUCCESS);
	CHECK_EQ(rdma(6, IBV_WR_RDMA_WRITE, t.addr[MR_RW] + 24584,
		      t.rkey[MR_RW], BUFSZ - 4, 8), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(peek(MR_RW, 24584, 8), 0);	/* untouched */
	CHECK_EQ(rdma(0, IBV_WR_RDMA_WRITE, t.addr[MR_RW] + 24592,
		      t.rkey[MR_RW], 0, 8), IBV_WC_SUCCESS);
	CHECK_EQ(peek(MR_RW, 24576, 8), 0x42);
	CHECK_EQ(peek(MR_RW, 24592, 8), 0x42);
	CHECK(ibv_dereg_mr(lmr) == 0);
	CHECK_EQ(rdma(0, IBV_WR_RDMA_WRITE, t.addr[MR_RW] + 24600,
		      t.rkey[MR_RW], 0, 8), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(peek(MR_RW, 24600, 8), 0);

	o.op = ORD_DONE;
	xwrite(out, &o, sizeof(o));
	return smx_test_done();
}

int main(void)
{
	char path[128];
	int in, out, st = 0, rc;
	pid_t pid;

	peer_seg_path(path, sizeof(path), "direct");
	unsetenv("SOFTMLX5_DIRECT");
	pid = peer_fork(&in, &out);
	if (pid < 0)
		return 2;
	if (pid == 0) {
		rc = target(in, out);
		fflush(stdout);
		_exit(rc);
	}
	rc = requester(in, out);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "target exited with status 0x%x\n", st);
		rc = 1;
	}
	unlink(path);
	return rc;
}
