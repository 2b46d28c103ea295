/* SPDX-License-Identifier: MIT */
/*
 * Registered memory the application unmapped (without deregistering) is
 * an access error, never a crash of the device's process (issue 13 item 2,
 * docs/multiprocess.md "Unmapped registered memory"). Two processes, a
 * target T and a requester R (forked before either opens the device), run
 * twice: with direct placement off and on (the default).
 *
 *   - R's WRITE, READ and atomic into an MR whose pages T unmapped -- the
 *     first access to that key, so T's inbox responder makes it -- small
 *     (inline) and large (cross-memory attach): REMOTE_ACCESS_ERR. A SEND
 *     into a receive WQE whose buffer T unmapped: T's receive completes
 *     with LOC_PROT_ERR, R gets REMOTE_OP_ERR. Memory that was never
 *     mapped cannot be registered (EFAULT, as the kernel's pinning).
 *   - T keeps running: afterwards WRITE, READ and an atomic into its other
 *     MR, on a new QP, complete and their bytes are right; T exits 0.
 *   - R's own lists over pages R unmapped: WRITE and SEND complete with
 *     LOC_PROT_ERR while T is stopped (R found it alone, without T; with
 *     direct placement the WQE first went through the fast lane), also
 *     after a WRITE on the same QP was placed directly; READ and atomic
 *     results with LOC_PROT_ERR; T's memory untouched.
 *   - In one process (R to itself, the responder run in the requester's
 *     thread): the same, blamed on the right side.
 * The segment is private to the test ($SOFTMLX5_SHM_PATH).
 */
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

#define BUFSZ 65536
#define BIG 8192	/* above a cell's 4 KiB: by cross-memory attach */

/* Queue pairs between T and R (index on both sides). */
enum { P_W, P_R, P_A, P_WL, P_RL, P_S, P_N, P_OK, P_LW, P_LR, P_LA, P_LWL,
       P_LS, NPAIR };
/* R's queue pairs to itself: pair k is QPs 2k and 2k + 1. */
enum { L_LOCAL, L_WRITE, L_READ, L_OK, NLOOP };

/* T's MRs: kept, unmapped after registration, never mapped. */
enum { M_OK, M_GONE, M_NEVER, NMR };

/* What T tells R (peer_connect_qps() then pairs the QPs). */
struct info {
	uint32_t rkey[NMR];
	uint64_t addr[NMR];
	int never_errno;	/* reg_mr of never-mapped memory: 0 = taken */
	int pid;
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[NPAIR];
	struct ibv_qp *lqp[2 * NLOOP];
	union ibv_gid gid;
};

static struct ibv_qp *new_qp(struct side *s)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &a);

	if (!qp)
		exit(2);
	return qp;
}

static void side_open(struct side *s, bool loops)
{
	int i;

	s->ctx = peer_open_device();
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	if (!s->pd || !s->cq || ibv_query_gid(s->ctx, 1, 0, &s->gid))
		exit(2);
	for (i = 0; i < NPAIR; i++)
		s->qp[i] = new_qp(s);
	for (i = 0; loops && i < 2 * NLOOP; i++)
		s->lqp[i] = new_qp(s);
}

/*
 * @n bytes of anonymous memory at an address the kernel does not hand out
 * by itself (far below where mmap() places mappings, above ASan's shadow):
 * a hole there stays a hole, where one among other mappings is soon filled
 * by the next mmap() -- the library's own mapping of a peer's memory, say
 * -- and a stale key would then name that (docs/multiprocess.md).
 */
static uint8_t *far_map(size_t n, int prot)
{
	static uintptr_t next = 0x200000000000ull;
	void *p;

	for (;;) {
		p = mmap((void *)next, n, prot, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE, -1, 0);
		next += 1ull << 30;
		if (p != MAP_FAILED)
			return p;
		if (errno != EEXIST || next >= 0x400000000000ull)
			exit(2);
	}
}

/* @n bytes of such memory, registered with @acc, then unmapped (the MR
 * stays). */
static uint8_t *reg_unmapped(struct ibv_pd *pd, size_t n, int acc,
			     struct ibv_mr **mr)
{
	uint8_t *p = far_map(n, PROT_READ | PROT_WRITE);

	memset(p, 0x22, n);
	*mr = ibv_reg_mr(pd, p, n, acc);
	if (!*mr || munmap(p, n))
		exit(2);
	return p;
}

/* ------------------------------------------------------------------ */
/* Target                                                             */
/* ------------------------------------------------------------------ */

enum { ORD_DONE, ORD_PEEK, ORD_POLL };

struct order {
	int op;
	uint32_t off, len;
};

#define ACC_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		    IBV_ACCESS_REMOTE_ATOMIC)
#define ACC_ALL (IBV_ACCESS_LOCAL_WRITE | ACC_REMOTE)

static int target(int in, int out)
{
	struct side s;
	struct info me = { 0 };
	struct ibv_mr *mr[NMR] = { 0 };
	uint8_t *ok, *never;
	int i;

	side_open(&s, false);
	ok = aligned_alloc(4096, BUFSZ);
	if (!ok)
		return 2;
	memset(ok, 0x11, BUFSZ);
	mr[M_OK] = ibv_reg_mr(s.pd, ok, BUFSZ, ACC_ALL);
	if (!mr[M_OK])
		return 2;
	me.addr[M_OK] = (uintptr_t)ok;
	me.addr[M_GONE] = (uintptr_t)reg_unmapped(s.pd, BUFSZ, ACC_ALL,
						    &mr[M_GONE]);
	/* An address that was never mapped: reserved, then released. */
	never = far_map(BUFSZ, PROT_NONE);
	if (munmap(never, BUFSZ))
		return 2;
	mr[M_NEVER] = ibv_reg_mr(s.pd, never, BUFSZ, ACC_ALL);
	me.never_errno = mr[M_NEVER] ? 0 : errno;
	me.addr[M_NEVER] = (uintptr_t)never;
	for (i = 0; i < NMR; i++)
		me.rkey[i] = mr[i] ? mr[i]->rkey : 0;
	me.pid = getpid();
	xwrite(out, &me, sizeof(me));
	CHECK_EQ(peer_connect_qps(in, out, true, s.qp, NPAIR, ACC_REMOTE), 0);
	{
		/* P_S's receive lands in the unmapped MR. */
		struct ibv_sge sge = { me.addr[M_GONE] + 128, 64,
				       mr[M_GONE]->lkey };
		struct ibv_recv_wr wr = { .wr_id = 5, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		CHECK(ibv_post_recv(s.qp[P_S], &wr, &bad) == 0);
	}
	xwrite(out, &me, 1);
	for (;;) {
		struct order o;
		uint8_t r = 0;
		uint32_t k;

		xread(in, &o, sizeof(o));
		if (o.op == ORD_DONE)
			break;
		if (o.op == ORD_POLL) {
			/* The status of P_S's receive (0xff: none in 3 s). */
			struct ibv_wc wc;
			int n;

			r = 0xff;
			for (k = 0; k < 30000; k++) {
				n = ibv_poll_cq(s.cq, 1, &wc);
				if (n == 1 && wc.wr_id == 5) {
					r = (uint8_t)wc.status;
					break;
				}
				if (n != 1)
					usleep(100);
			}
		} else {
			/* 0 when [off, off + len) of M_OK is all 0x11,
			 * else the first byte that is not. */
			for (k = o.off; k < o.off + o.len && !r; k++)
				if (ok[k] != 0x11)
					r = ok[k];
		}
		xwrite(out, &r, 1);
	}
	for (i = 0; i < NMR; i++)
		if (mr[i])
			CHECK(ibv_dereg_mr(mr[i]) == 0);
	return smx_test_done();
}

/* ------------------------------------------------------------------ */
/* Requester                                                          */
/* ------------------------------------------------------------------ */

static struct side rs;
static int to_t, from_t;

/* One signalled WR on @qp, waited for up to 3 s: the WC status, or -1
 * when nothing completed. */
static int post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t raddr,
		uint32_t rkey, void *local, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)local, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct timespec t0, t;
	struct ibv_wc wc;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(qp, &wr, &bad))
		return -2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(rs.cq, 1, &wc);

		if (n == 1 && wc.wr_id == 7)
			return wc.status;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 3)
			return -1;
		if (n != 1)
			usleep(100);
	}
}

static uint8_t order(int op, uint32_t off, uint32_t len)
{
	struct order o = { op, off, len };
	uint8_t r;

	xwrite(to_t, &o, sizeof(o));
	xread(from_t, &r, 1);
	return r;
}

/* R to itself: the responder runs in the requester's thread. */
static void loopback(uint8_t *lbuf, uint32_t lkey, uint8_t *lgone,
		     uint32_t lgkey)
{
	struct ibv_mr *okmr, *gmr;
	uint8_t *okb = aligned_alloc(4096, BUFSZ), *gone;
	uint64_t v;
	int i;

	if (!okb)
		exit(2);
	memset(okb, 0x33, BUFSZ);
	okmr = ibv_reg_mr(rs.pd, okb, BUFSZ, ACC_ALL);
	gone = reg_unmapped(rs.pd, BUFSZ, ACC_ALL, &gmr);
	if (!okmr)
		exit(2);
	for (i = 0; i < NLOOP; i++) {
		CHECK(qp_connect_peer(rs.lqp[2 * i], rs.lqp[2 * i + 1]->qp_num,
				      &rs.gid, ACC_REMOTE) == 0);
		CHECK(qp_connect_peer(rs.lqp[2 * i + 1], rs.lqp[2 * i]->qp_num,
				      &rs.gid, ACC_REMOTE) == 0);
	}
	/* Our gather list unmapped: ours to report, the target untouched. */
	CHECK_EQ(post(rs.lqp[2 * L_LOCAL], IBV_WR_RDMA_WRITE,
		      (uintptr_t)okb, okmr->rkey, lgone, 8, lgkey),
		 IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(okb[0], 0x33);
	/* The target's memory unmapped: the responder's access error. */
	memset(lbuf, 0x44, 64);
	CHECK_EQ(post(rs.lqp[2 * L_WRITE], IBV_WR_RDMA_WRITE,
		      (uintptr_t)gone, gmr->rkey, lbuf, 8, lkey),
		 IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(post(rs.lqp[2 * L_READ], IBV_WR_RDMA_READ,
		      (uintptr_t)gone + 64, gmr->rkey, lbuf, 8, lkey),
		 IBV_WC_REM_ACCESS_ERR);
	/* The rest still works; a READ into our unmapped list does not. */
	CHECK_EQ(post(rs.lqp[2 * L_OK], IBV_WR_RDMA_WRITE, (uintptr_t)okb + 64,
		      okmr->rkey, lbuf, 8, lkey), IBV_WC_SUCCESS);
	CHECK_EQ(okb[64], 0x44);
	CHECK_EQ(okb[72], 0x33);
	CHECK_EQ(post(rs.lqp[2 * L_OK], IBV_WR_ATOMIC_FETCH_AND_ADD,
		      (uintptr_t)okb + 128, okmr->rkey, lbuf + 8, 8, lkey),
		 IBV_WC_SUCCESS);
	memcpy(&v, lbuf + 8, 8);
	CHECK_EQ(v, 0x3333333333333333ull);
	CHECK_EQ(post(rs.lqp[2 * L_OK], IBV_WR_RDMA_READ, (uintptr_t)okb,
		      okmr->rkey, lgone, 8, lgkey), IBV_WC_LOC_PROT_ERR);
	CHECK(ibv_dereg_mr(okmr) == 0);
	CHECK(ibv_dereg_mr(gmr) == 0);
	free(okb);
}

static int requester(int in, int out, bool direct)
{
	struct info t;
	struct ibv_mr *lmr, *lgmr;
	uint8_t *lbuf, *lgone, c;
	uint64_t v;

	to_t = out;
	from_t = in;
	side_open(&rs, true);
	lbuf = aligned_alloc(4096, BUFSZ);
	lmr = lbuf ? ibv_reg_mr(rs.pd, lbuf, BUFSZ, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!lmr)
		return 2;
	lgone = reg_unmapped(rs.pd, BUFSZ, IBV_ACCESS_LOCAL_WRITE, &lgmr);
	xread(in, &t, sizeof(t));
	CHECK_EQ(peer_connect_qps(in, out, false, rs.qp, NPAIR, ACC_REMOTE), 0);
	xread(in, &c, 1);

	/* (a) T's unmapped MR, each the first access to its key on a QP. */
	memset(lbuf, 0x5a, BUFSZ);
	CHECK_EQ(post(rs.qp[P_W], IBV_WR_RDMA_WRITE, t.addr[M_GONE],
		      t.rkey[M_GONE], lbuf, 8, lmr->lkey), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(post(rs.qp[P_R], IBV_WR_RDMA_READ, t.addr[M_GONE] + 64,
		      t.rkey[M_GONE], lbuf, 8, lmr->lkey), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(post(rs.qp[P_A], IBV_WR_ATOMIC_FETCH_AND_ADD, t.addr[M_GONE] + 128,
		      t.rkey[M_GONE], lbuf, 8, lmr->lkey), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(post(rs.qp[P_WL], IBV_WR_RDMA_WRITE, t.addr[M_GONE],
		      t.rkey[M_GONE], lbuf, BIG, lmr->lkey), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(post(rs.qp[P_RL], IBV_WR_RDMA_READ, t.addr[M_GONE],
		      t.rkey[M_GONE], lbuf, BIG, lmr->lkey), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(post(rs.qp[P_S], IBV_WR_SEND, 0, 0, lbuf, 8, lmr->lkey),
		 IBV_WC_REM_OP_ERR);
	CHECK_EQ(order(ORD_POLL, 0, 0), IBV_WC_LOC_PROT_ERR);
	/* As the kernel's pinning: never-mapped memory cannot be registered. */
	CHECK_EQ(t.never_errno, EFAULT);

	/* T is still there, and its other MR works (a new QP: the ones above
	 * went to error, as on hardware). */
	memset(lbuf, 0x66, 64);
	CHECK_EQ(post(rs.qp[P_OK], IBV_WR_RDMA_WRITE, t.addr[M_OK] + 256,
		      t.rkey[M_OK], lbuf, 64, lmr->lkey), IBV_WC_SUCCESS);
	CHECK_EQ(order(ORD_PEEK, 256, 64), 0x66);
	CHECK_EQ(order(ORD_PEEK, 256 + 64, 64), 0);
	memset(lbuf + 4096, 0, 64);
	CHECK_EQ(post(rs.qp[P_OK], IBV_WR_RDMA_READ, t.addr[M_OK] + 256 + 32,
		      t.rkey[M_OK], lbuf + 4096, 64, lmr->lkey), IBV_WC_SUCCESS);
	CHECK_EQ(lbuf[4096], 0x66);
	CHECK_EQ(lbuf[4096 + 31], 0x66);
	CHECK_EQ(lbuf[4096 + 32], 0x11);
	CHECK_EQ(post(rs.qp[P_OK], IBV_WR_ATOMIC_FETCH_AND_ADD, t.addr[M_OK] + 1024,
		      t.rkey[M_OK], lbuf + 8192, 8, lmr->lkey), IBV_WC_SUCCESS);
	memcpy(&v, lbuf + 8192, 8);
	CHECK_EQ(v, 0x1111111111111111ull);

	/* (b) R's own unmapped lists. A WRITE learns M_OK's record first
	 * (with direct placement, the next one is placed while T is stopped);
	 * the faulting ones complete while T is stopped: R found them. */
	memset(lbuf, 0x77, 64);
	CHECK_EQ(post(rs.qp[P_LW], IBV_WR_RDMA_WRITE, t.addr[M_OK] + 2048,
		      t.rkey[M_OK], lbuf, 8, lmr->lkey), IBV_WC_SUCCESS);
	CHECK(stop(t.pid));
	if (direct)
		CHECK_EQ(post(rs.qp[P_LW], IBV_WR_RDMA_WRITE, t.addr[M_OK] + 2056,
			      t.rkey[M_OK], lbuf, 8, lmr->lkey), IBV_WC_SUCCESS);
	CHECK_EQ(post(rs.qp[P_LW], IBV_WR_RDMA_WRITE, t.addr[M_OK] + 2064,
		      t.rkey[M_OK], lgone, 8, lgmr->lkey), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(post(rs.qp[P_LWL], IBV_WR_RDMA_WRITE, t.addr[M_OK] + 8192,
		      t.rkey[M_OK], lgone, BIG, lgmr->lkey), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(post(rs.qp[P_LS], IBV_WR_SEND, 0, 0, lgone, 8, lgmr->lkey),
		 IBV_WC_LOC_PROT_ERR);
	CHECK(kill(t.pid, SIGCONT) == 0);
	CHECK_EQ(order(ORD_PEEK, 2048, 8), 0x77);
	CHECK_EQ(order(ORD_PEEK, 2056, 8), direct ? 0x77 : 0);
	CHECK_EQ(order(ORD_PEEK, 2064, 8), 0);		/* untouched */
	CHECK_EQ(order(ORD_PEEK, 8192, BIG), 0);
	/* READ and atomic results into R's unmapped pages. */
	CHECK_EQ(post(rs.qp[P_LR], IBV_WR_RDMA_READ, t.addr[M_OK],
		      t.rkey[M_OK], lbuf, 8, lmr->lkey), IBV_WC_SUCCESS);
	CHECK_EQ(post(rs.qp[P_LR], IBV_WR_RDMA_READ, t.addr[M_OK],
		      t.rkey[M_OK], lgone, 8, lgmr->lkey), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(post(rs.qp[P_LA], IBV_WR_ATOMIC_FETCH_AND_ADD, t.addr[M_OK] + 1024,
		      t.rkey[M_OK], lbuf, 8, lmr->lkey), IBV_WC_SUCCESS);
	CHECK_EQ(post(rs.qp[P_LA], IBV_WR_ATOMIC_FETCH_AND_ADD, t.addr[M_OK] + 1024,
		      t.rkey[M_OK], lgone, 8, lgmr->lkey), IBV_WC_LOC_PROT_ERR);

	/* (b) in one process. */
	loopback(lbuf, lmr->lkey, lgone, lgmr->lkey);

	xwrite(to_t, &(struct order){ ORD_DONE, 0, 0 }, sizeof(struct order));
	CHECK(ibv_dereg_mr(lgmr) == 0);
	CHECK(ibv_dereg_mr(lmr) == 0);
	return smx_test_done();
}

/* One run with direct placement on or off; 0 if both sides passed. */
static int run(bool direct)
{
	char path[128];
	int a[2], b[2], st, rc = 0, k;
	pid_t pid[2];

	snprintf(path, sizeof(path), "%s/softmlx5-test-guard-%d-%d",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid(),
		 direct);
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	if (direct)
		unsetenv("SOFTMLX5_DIRECT");
	else
		setenv("SOFTMLX5_DIRECT", "0", 1);
	printf("direct placement %s\n", direct ? "on" : "off");
	fflush(stdout);
	if (pipe(a) || pipe(b))
		return 2;
	for (k = 0; k < 2; k++) {
		pid[k] = fork();
		if (pid[k] < 0)
			return 2;
		if (pid[k] == 0) {
			close(k ? a[1] : a[0]);
			close(k ? b[0] : b[1]);
			rc = k ? target(a[0], b[1]) : requester(b[0], a[1], direct);
			fflush(stdout);
			_exit(rc);
		}
	}
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	for (k = 0; k < 2; k++) {
		st = 0;
		if (waitpid(pid[k], &st, 0) != pid[k] || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "%s exited with status 0x%x\n",
				k ? "target" : "requester", st);
			rc = 1;
		}
	}
	unlink(path);
	return rc;
}

int main(void)
{
	int r0 = run(false), r1 = run(true);

	return r0 || r1;
}
