/* SPDX-License-Identifier: MIT */
/*
 * A process that forks with the device open (docs/multiprocess.md, "Fork"),
 * through the public verbs API. The parent P opens the device, creates
 * QPs A <-> B (connected to each other) and C, then forks. The child:
 *
 *   - uses what it inherited: QUERY and MODIFY (to ERR) of A and a PD on
 *     P's context act on the child's own copy of P's instance, with one
 *     debug line in all;
 *   - closes P's context (its copy), which must leave P's slot alone;
 *   - opens the device through the ibv_device P found: its own instance,
 *     whose QP X has a number of another slot than P's QPs;
 *   - connects X to P's C and RDMA WRITEs into P's memory: P's slot, inbox
 *     and threads still work, and so do the child's;
 *   - exits 0.
 * P then creates its next QP (a number of its own slot, not the child's)
 * and RDMA WRITEs from A to B.
 * The segment is private to the test ($SOFTMLX5_SHM_PATH).
 */
#include <errno.h>
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

#define BUFSZ 4096
#define QPN_SLOT(q) (((q) - 0x100u) >> 16)	/* docs/multiprocess.md */

/*
 * LeakSanitizer cannot check a fork child of a process with the device
 * open: the parent's queue buffers are MADV_DONTFORK holes in the heap it
 * walks, and its thread list still names the parent's threads. The child's
 * exit() runs without it (LeakSanitizer asks this hook; other builds never
 * call it).
 */
static bool in_child;
int __lsan_is_turned_off(void) __attribute__((visibility("default")));
int __lsan_is_turned_off(void)
{
	return in_child;
}

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
};

/* What one side tells the other to connect a QP and write into its MR. */
struct peer {
	uint32_t qpn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

static int side_open(struct side *s, struct ibv_device *dev)
{
	s->ctx = ibv_open_device(dev);
	if (!s->ctx)
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
	/* Its own mapping: registered memory is not in a fork child. */
	s->buf = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!s->pd || !s->cq || s->buf == MAP_FAILED ||
	    ibv_query_gid(s->ctx, 1, 0, &s->gid))
		return -1;
	s->mr = ibv_reg_mr(s->pd, s->buf, BUFSZ, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	return s->mr ? 0 : -1;
}

static struct ibv_qp *qp_new(struct side *s)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(s->pd, &a);
}

/* One signaled RDMA WRITE of @len bytes of @s's buffer; the completion
 * status, or -1 when none came within 5 s. */
static int rdma_write(struct side *s, struct ibv_qp *qp, const struct peer *to,
		      uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf, len, s->mr->lkey };
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.sg_list = &sge, .num_sge = 1,
		.wr.rdma = { .remote_addr = to->addr, .rkey = to->rkey },
	}, *bad;
	struct timespec t0, t;
	struct ibv_wc wc;

	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (ibv_poll_cq(s->cq, 1, &wc) == 1)
			return wc.status;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return -1;
	}
}

/* Lines of @path holding @what. */
static int count_lines(const char *path, const char *what)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* Everything the child does with what it inherited: commands on its own
 * copy, one debug line in all (at the close; stderr goes to @log). */
static void child_use_inherited(struct side *p, struct ibv_qp *a,
				const char *log)
{
	struct ibv_qp_attr attr = { 0 };
	struct ibv_qp_init_attr init;
	struct ibv_pd *pd;
	unsigned int failed = smx_test_failed;
	int saved = dup(2);
	FILE *f = fopen(log, "w");

	if (saved < 0 || !f)
		exit(2);
	fflush(stderr);
	dup2(fileno(f), 2);
	setenv("SOFTMLX5_DEBUG", "1", 1);
	/* Commands act on the child's private copy of the parent's instance
	 * (rdma-core's test_multi_process_alloc_dm allocates device memory
	 * so); the parent's A keeps working (checked by the parent later). */
	CHECK_EQ(ibv_query_qp(a, &attr, IBV_QP_STATE, &init), 0);
	CHECK_EQ(attr.qp_state, IBV_QPS_RTS);
	attr.qp_state = IBV_QPS_ERR;
	CHECK_EQ(ibv_modify_qp(a, &attr, IBV_QP_STATE), 0);
	/* (Not destroyed: that cleans its CQ, whose ring is MADV_DONTFORK
	 * here, as with rdma-core.) */
	pd = ibv_alloc_pd(p->ctx);
	CHECK(pd != NULL);
	if (pd)
		CHECK_EQ(ibv_dealloc_pd(pd), 0);
	/* The parent's context: its copy goes, the parent's slot stays. */
	CHECK_EQ(ibv_close_device(p->ctx), 0);
	unsetenv("SOFTMLX5_DEBUG");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(f);
	CHECK_EQ(count_lines(log, "inherited across fork"), 1);
	if (smx_test_failed != failed) {
		char line[1024];

		f = fopen(log, "r");
		while (f && fgets(line, sizeof(line), f))
			fputs(line, stderr);
		if (f)
			fclose(f);
	}
	unlink(log);
}

static int child(struct ibv_device *dev, struct side *p, struct ibv_qp *a,
		 int in, int out, const char *log)
{
	struct side c;
	struct peer me, pc;
	struct ibv_qp *x;
	int st;

	child_use_inherited(p, a, log);
	/* Through the ibv_device the parent found: the child's own. */
	if (side_open(&c, dev) || !(x = qp_new(&c)))
		return 2;
	me.qpn = x->qp_num;
	me.gid = c.gid;
	xwrite(out, &me, sizeof(me));
	xread(in, &pc, sizeof(pc));
	CHECK(QPN_SLOT(x->qp_num) != QPN_SLOT(pc.qpn));
	CHECK_EQ(qp_connect_peer(x, pc.qpn, &pc.gid, IBV_ACCESS_REMOTE_WRITE), 0);
	memcpy(c.buf, "from the child", 15);
	st = rdma_write(&c, x, &pc, 15);
	CHECK_EQ(st, IBV_WC_SUCCESS);
	xwrite(out, &st, sizeof(st));
	CHECK_EQ(ibv_destroy_qp(x), 0);
	CHECK_EQ(ibv_dereg_mr(c.mr), 0);
	CHECK_EQ(ibv_destroy_cq(c.cq), 0);
	CHECK_EQ(ibv_dealloc_pd(c.pd), 0);
	CHECK_EQ(ibv_close_device(c.ctx), 0);
	return smx_test_done();
}

int main(void)
{
	char path[128], log[160];
	struct ibv_device **list;
	struct ibv_qp *qa, *qb, *qc, *qd;
	struct side p;
	struct peer pb, pc, cx;
	int a[2], b[2], st = 0, rc;
	pid_t pid;

	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-fork-%d",
		 (int)getpid());
	if (access("/dev/shm", W_OK))
		snprintf(path, sizeof(path), "/tmp/softmlx5-test-fork-%d",
			 (int)getpid());
	snprintf(log, sizeof(log), "/tmp/softmlx5-test-fork-%d.log",
		 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	unsetenv("SOFTMLX5_DEBUG");
	list = ibv_get_device_list(NULL);
	if (!list || !list[0] || side_open(&p, list[0]))
		return 2;
	qa = qp_new(&p);
	qb = qp_new(&p);
	qc = qp_new(&p);
	if (!qa || !qb || !qc)
		return 2;
	pb = (struct peer){ qb->qp_num, p.mr->rkey, (uintptr_t)p.buf, p.gid };
	pc = (struct peer){ qc->qp_num, p.mr->rkey, (uintptr_t)p.buf + 2048,
			    p.gid };
	if (qp_connect_peer(qa, qb->qp_num, &p.gid, IBV_ACCESS_REMOTE_WRITE) ||
	    qp_connect_peer(qb, qa->qp_num, &p.gid, IBV_ACCESS_REMOTE_WRITE))
		return 2;
	if (pipe(a) || pipe(b))
		return 2;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		in_child = true;
		close(a[1]);
		close(b[0]);
		rc = child(list[0], &p, qa, a[0], b[1], log);
		fflush(stdout);
		exit(rc);	/* not _exit: exit paths run in a child too */
	}
	close(a[0]);
	close(b[1]);
	xread(b[0], &cx, sizeof(cx));
	/* The parent's next QP: its own slot's numbers, not the child's. */
	qd = qp_new(&p);
	CHECK(qd != NULL);
	if (qd) {
		CHECK(qd->qp_num != cx.qpn);
		CHECK_EQ(QPN_SLOT(qd->qp_num), QPN_SLOT(qa->qp_num));
	}
	CHECK(QPN_SLOT(cx.qpn) != QPN_SLOT(qa->qp_num));
	CHECK_EQ(qp_connect_peer(qc, cx.qpn, &cx.gid, IBV_ACCESS_REMOTE_WRITE), 0);
	xwrite(a[1], &pc, sizeof(pc));
	xread(b[0], &rc, sizeof(rc));
	CHECK_EQ(rc, IBV_WC_SUCCESS);
	CHECK(!memcmp(p.buf + 2048, "from the child", 15));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "child exited with status 0x%x\n", st);
		CHECK(0);
	}
	/* The parent's own QPs still work. */
	memcpy(p.buf, "parent", 6);
	CHECK_EQ(rdma_write(&p, qa, &(struct peer){ pb.qpn, pb.rkey,
						    pb.addr + 1024, pb.gid }, 6),
		 IBV_WC_SUCCESS);
	CHECK(!memcmp(p.buf + 1024, "parent", 6));
	if (qd)
		CHECK_EQ(ibv_destroy_qp(qd), 0);
	CHECK_EQ(ibv_destroy_qp(qc), 0);
	CHECK_EQ(ibv_destroy_qp(qb), 0);
	CHECK_EQ(ibv_destroy_qp(qa), 0);
	CHECK_EQ(ibv_dereg_mr(p.mr), 0);
	CHECK_EQ(ibv_destroy_cq(p.cq), 0);
	CHECK_EQ(ibv_dealloc_pd(p.pd), 0);
	CHECK_EQ(ibv_close_device(p.ctx), 0);
	ibv_free_device_list(list);
	munmap(p.buf, BUFSZ);
	unlink(path);
	return smx_test_done();
}
