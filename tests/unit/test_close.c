/* SPDX-License-Identifier: MIT */
/*
 * ibv_close_device leaves nothing of the device behind: after the last
 * close the process has the threads and fds it had before the first open
 * and no mapping of the device instance (BAR, shared segment, memfds); a
 * later open brings a new instance up, through the same device list entry.
 *
 *   A  open, PD/CQ/QP, RDMA WRITE to itself, an MR with remote access
 *      left registered, close: all of the above
 *   B  the same again on a new instance; mappings as many as after A
 *   C  two contexts (one by mlx5dv_open_device with a DEVX UAR left
 *      allocated): closing one leaves the other working
 *   D  an imported context keeps the user context, and the instance,
 *      after the context it came from is closed
 *   E  threads opening and closing the device at once
 *
 * The shared segment is private to the test ($SOFTMLX5_SHM_PATH).
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "smx_test.h"
#include "verbs_test_util.h"

#define LEN 8192u
#define ACC_REMOTE (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ)

static char shm_path[128];
static struct ibv_device *dev;

static void shm_unlink_path(void)
{
	unlink(shm_path);
}

/* What the test leaves open on purpose; reachable, so not a leak report. */
static void *left[16];
static unsigned int nleft;

/* ---- what /proc says about this process ---- */

static unsigned int dir_count(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	unsigned int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static unsigned int threads(void)
{
	return dir_count("/proc/self/task");
}

/* Open fds (opendir's own among them, alike in every count). */
static unsigned int fds(void)
{
	return dir_count("/proc/self/fd");
}

/* Mappings in all, and those whose line contains @needle (NULL: none). */
static unsigned int maps(const char *needle, unsigned int *hits)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (hits)
		*hits = 0;
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (hits && strstr(line, needle))
			(*hits)++;
	}
	if (f)
		fclose(f);
	return n;
}

static unsigned int maps_with(const char *needle)
{
	unsigned int hits;

	maps(needle, &hits);
	return hits;
}

static bool mapped(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	char line[512];
	bool yes = false;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && !yes && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		yes = sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= a && a < hi;
	}
	if (f)
		fclose(f);
	return yes;
}

/* Nothing of an instance: the segment, the memfds (cmd fd, re-backed
 * MRs) and @bar, a UAR page it mapped. */
static void check_gone(const char *when, const void *bar, unsigned int thr0,
		       unsigned int fd0)
{
	CHECKM(threads() == thr0, "%s: %u threads, %u before the first open",
	       when, threads(), thr0);
	CHECKM(fds() == fd0, "%s: %u fds, %u before the first open", when,
	       fds(), fd0);
	CHECKM(maps_with(shm_path) == 0, "%s: the segment is still mapped", when);
	CHECKM(maps_with("softmlx5") == 0, "%s: a softmlx5 memfd is still mapped",
	       when);
	CHECKM(!bar || !mapped(bar), "%s: the BAR (UAR page %p) is still mapped",
	       when, bar);
}

/* ---- one RC QP connected to itself ---- */

struct ep {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *smr, *dmr;
	uint8_t *src, *dst;
	void *bar;		/* the QP's BlueFlame register */
};

static uint8_t *page_alloc(void)
{
	void *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	return p;
}

/* On @ctx, with @pd if given (an imported one) or a new PD. */
static bool ep_up(struct ep *e, struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct mlx5dv_qp dv = {};
	struct mlx5dv_obj obj = {};

	memset(e, 0, sizeof(*e));
	e->ctx = ctx;
	e->src = page_alloc();
	e->dst = page_alloc();
	e->pd = pd ? pd : ibv_alloc_pd(ctx);
	e->cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!e->pd || !e->cq)
		return false;
	a.send_cq = a.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &a);
	e->smr = ibv_reg_mr(e->pd, e->src, LEN, IBV_ACCESS_LOCAL_WRITE);
	e->dmr = ibv_reg_mr(e->pd, e->dst, LEN, ACC_REMOTE);
	if (!e->qp || !e->smr || !e->dmr)
		return false;
	obj.qp.in = e->qp;
	obj.qp.out = &dv;
	if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP))
		return false;
	e->bar = dv.bf.reg;
	return !qp_to_rts_loopback(ctx, e->qp, ACC_REMOTE);
}

/* One signaled RDMA WRITE of @byte from src to dst: true if it completed
 * well and dst holds it. */
static bool ep_write(struct ep *e, uint8_t byte)
{
	struct ibv_sge sge = { (uintptr_t)e->src, LEN, e->smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = byte, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)e->dst, .rkey = e->dmr->rkey },
	}, *bad;
	struct timespec t0, t;
	struct ibv_wc wc;
	int n = 0;

	memset(e->src, byte, LEN);
	memset(e->dst, 0, LEN);
	if (ibv_post_send(e->qp, &wr, &bad))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(e->cq, 1, &wc);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!n && t.tv_sec - t0.tv_sec < 5);
	if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != byte) {
		fprintf(stderr, "write 0x%x: %d completions, status %s\n", byte, n,
			n == 1 ? ibv_wc_status_str(wc.status) : "-");
		return false;
	}
	return e->dst[0] == byte && e->dst[LEN - 1] == byte &&
	       !memcmp(e->src, e->dst, LEN);
}

/* Everything but the remote-access MR and its PD, left to the close as
 * applications do. */
static void ep_down_leave_mr(struct ep *e)
{
	ibv_destroy_qp(e->qp);
	ibv_destroy_cq(e->cq);
	ibv_dereg_mr(e->smr);
	left[nleft++] = e->dmr;
	left[nleft++] = e->pd;
}

static void ep_down(struct ep *e)
{
	CHECK(!ibv_destroy_qp(e->qp));
	CHECK(!ibv_destroy_cq(e->cq));
	CHECK(!ibv_dereg_mr(e->smr));
	CHECK(!ibv_dereg_mr(e->dmr));
}

/* ---- A, B: open, work, close, nothing left ---- */

/* A NIC RX matcher on the steering root: commands on the root table the
 * provider made for the instance. */
static bool dr_root_matcher(struct ibv_context *ctx)
{
	struct mlx5dv_dr_domain *d;
	struct mlx5dv_dr_table *t = NULL;
	struct mlx5dv_dr_matcher *m = NULL;
	struct {
		size_t sz;
		uint8_t b[0x200];
	} __attribute__((aligned(8))) mask = { .sz = 64 };

	memset(mask.b, 0xff, 6);	/* smac */
	d = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
	if (d)
		t = mlx5dv_dr_table_create(d, 0);
	if (t)
		m = mlx5dv_dr_matcher_create(t, 0, 1,
					     (struct mlx5dv_flow_match_parameters *)&mask);
	if (m)
		mlx5dv_dr_matcher_destroy(m);
	if (t)
		mlx5dv_dr_table_destroy(t);
	if (d)
		mlx5dv_dr_domain_destroy(d);
	return m != NULL;
}

/*
 * What the provider makes on the instance on first use must be made again
 * on a new one: the UMR QP (ibv_rereg_mr), the steering root, the EQs (a
 * CQ), the packet-pacing table. @stale: a pacing entry of the previous
 * instance to free here (it must not touch this one's), or where to leave
 * one allocated.
 */
static void device_level(const char *name, struct ep *e, struct mlx5dv_pp **stale)
{
	uint32_t r1 = htobe32(100), r2 = htobe32(200);
	struct mlx5dv_pp *p1, *p2;

	CHECKM(!ibv_rereg_mr(e->smr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			     IBV_ACCESS_LOCAL_WRITE), "%s: rereg (UMR)", name);
	CHECKM(dr_root_matcher(e->ctx), "%s: matcher on the NIC RX root", name);
	p1 = mlx5dv_pp_alloc(e->ctx, sizeof(r1), &r1, 0);
	CHECKM(p1 != NULL, "%s: pp: %s", name, strerror(errno));
	if (!*stale) {
		*stale = p1;	/* left to the close */
		return;
	}
	mlx5dv_pp_free(*stale);
	*stale = NULL;
	/* p1's entry is still held: another rate gets another entry. */
	p2 = mlx5dv_pp_alloc(e->ctx, sizeof(r2), &r2, 0);
	CHECKM(p1 && p2 && p2->index != p1->index,
	       "%s: the stale pp freed the new instance's entry", name);
	mlx5dv_pp_free(p1);
	mlx5dv_pp_free(p2);
}

static unsigned int cycle(const char *name, unsigned int thr0, unsigned int fd0,
			  uint8_t byte, struct mlx5dv_pp **stale)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	uint8_t byte2 = (uint8_t)~byte, *dst;
	struct ibv_device_attr da;
	struct ep e;

	CHECKM(ctx != NULL, "%s: open: %s", name, strerror(errno));
	if (!ctx)
		exit(1);
	/* The list entry, made without an instance, says what the device does. */
	CHECKM(!ibv_query_device(ctx, &da) &&
	       da.node_guid == ibv_get_device_guid(dev),
	       "%s: node GUID of the list entry is not the device's", name);
	CHECKM(ep_up(&e, ctx, NULL), "%s: PD/CQ/QP/MRs", name);
	CHECKM(ep_write(&e, byte), "%s: RDMA WRITE to itself", name);
	device_level(name, &e, stale);
	CHECKM(ep_write(&e, byte2), "%s: RDMA WRITE after rereg", name);
	printf("%s: QPN 0x%x, BAR page %p, %s\n", name, e.qp->qp_num, e.bar,
	       maps_with("memfd:softmlx5-mr") ? "MR re-backed" : "MR not re-backed");
	/* What check_gone() looks for is there while open. */
	CHECKM(threads() > thr0, "%s: no device thread while open", name);
	CHECKM(maps_with(shm_path) > 0, "%s: segment %s not mapped", name,
	       shm_path);
	CHECKM(mapped(e.bar), "%s: UAR page not mapped", name);

	dst = e.dst;
	ep_down_leave_mr(&e);
	CHECKM(!ibv_close_device(ctx), "%s: close", name);
	check_gone(name, e.bar, thr0, fd0);
	/* The registered bytes stay the application's. */
	CHECKM(dst[0] == byte2 && dst[LEN - 1] == byte2, "%s: dst lost its bytes",
	       name);
	munmap(e.src, LEN);
	munmap(dst, LEN);
	return maps(NULL, NULL);
}

/* ---- C: two contexts, one closed ---- */

static void two_contexts(unsigned int thr0, unsigned int fd0)
{
	struct mlx5dv_context_attr da = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_context *a = ibv_open_device(dev);
	struct ibv_context *b = mlx5dv_open_device(dev, &da);
	struct mlx5dv_devx_uar *uar;
	struct ep ea, eb;

	CHECKM(a && b, "C: two opens: %s", strerror(errno));
	if (!a || !b)
		exit(1);
	CHECK(ep_up(&ea, a, NULL));
	CHECK(ep_up(&eb, b, NULL));
	CHECKM(ep_write(&ea, 0xa1) && ep_write(&eb, 0xb1), "C: writes on both");
	uar = mlx5dv_devx_alloc_uar(b, MLX5DV_UAR_ALLOC_TYPE_NC);
	CHECKM(uar != NULL, "C: DEVX UAR: %s", strerror(errno));

	ep_down_leave_mr(&ea);
	CHECKM(!ibv_close_device(a), "C: close a");
	CHECKM(ep_write(&eb, 0xb2), "C: b's WRITE after a's close");
	CHECKM(threads() > thr0, "C: b lost the device threads");
	CHECKM(maps_with(shm_path) > 0, "C: b lost the segment");

	ep_down(&eb);
	CHECK(!ibv_dealloc_pd(eb.pd));
	/* The DEVX UAR goes with its context. */
	CHECKM(!ibv_close_device(b), "C: close b");
	check_gone("C", eb.bar, thr0, fd0);
	munmap(ea.src, LEN);
	munmap(ea.dst, LEN);
	munmap(eb.src, LEN);
	munmap(eb.dst, LEN);
}

/* ---- D: an imported context outlives its origin ---- */

static void imported(unsigned int thr0, unsigned int fd0)
{
	struct ibv_context *a = ibv_open_device(dev), *b;
	struct ibv_pd *pd, *ipd = NULL;
	uint32_t rate = htobe32(300);
	struct mlx5dv_pp *pp;
	struct ep e;

	if (!a)
		exit(1);
	pd = ibv_alloc_pd(a);
	b = ibv_import_device(dup(a->cmd_fd));
	CHECKM(pd && b, "D: PD, import: %s", strerror(errno));
	if (!pd || !b)
		exit(1);
	ipd = ibv_import_pd(b, pd->handle);
	CHECKM(ipd != NULL, "D: import_pd: %s", strerror(errno));
	left[nleft++] = pd;
	CHECKM(!ibv_close_device(a), "D: close the original");
	CHECKM(ipd && ep_up(&e, b, ipd), "D: CQ/QP/MRs on the imported PD");
	CHECKM(ipd && ep_write(&e, 0xd1), "D: WRITE on the imported context");
	if (ipd) {
		ep_down(&e);
		ibv_unimport_pd(ipd);
		munmap(e.src, LEN);
		munmap(e.dst, LEN);
	}
	pp = mlx5dv_pp_alloc(b, sizeof(rate), &rate, 0);
	CHECKM(pp != NULL, "D: pp: %s", strerror(errno));
	CHECKM(!ibv_close_device(b), "D: close the imported context");
	check_gone("D", NULL, thr0, fd0);
	mlx5dv_pp_free(pp);	/* no instance at all now */
	check_gone("D, pp freed", NULL, thr0, fd0);
}

/* ---- E: opens and closes racing ---- */

#define E_THREADS 4
#define E_ROUNDS 15

static void *racer(void *arg)
{
	unsigned int *bad = arg, i;

	for (i = 0; i < E_ROUNDS; i++) {
		struct ibv_context *c = ibv_open_device(dev);
		struct ibv_pd *pd = c ? ibv_alloc_pd(c) : NULL;
		struct ibv_cq *cq = c ? ibv_create_cq(c, 4, NULL, NULL, 0) : NULL;

		if (!c || !pd || !cq || ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) ||
		    ibv_close_device(c))
			__atomic_fetch_add(bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void racing(unsigned int thr0, unsigned int fd0)
{
	pthread_t t[E_THREADS];
	unsigned int bad = 0, i, started = 0;

	for (i = 0; i < E_THREADS; i++)
		started += !pthread_create(&t[i], NULL, racer, &bad);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(started, E_THREADS);
	CHECKM(bad == 0, "E: %u of %u rounds failed", bad, E_THREADS * E_ROUNDS);
	check_gone("E", NULL, thr0, fd0);
}

int main(void)
{
	unsigned int thr0, fd0, maps0, maps_a, maps_b;
	struct mlx5dv_pp *pp = NULL;
	struct ibv_device **list;
	int n = 0;

	snprintf(shm_path, sizeof(shm_path), "/dev/shm/softmlx5-test-close-%d",
		 (int)getpid());
	if (access("/dev/shm", W_OK))
		snprintf(shm_path, sizeof(shm_path), "/tmp/softmlx5-test-close-%d",
			 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", shm_path, 1);
	atexit(shm_unlink_path);	/* early exits too */
	unsetenv("SOFTMLX5_DIRECT");
	unsetenv("SOFTMLX5_WIRE");
	setvbuf(stdout, NULL, _IONBF, 0);

	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		fprintf(stderr, "no device\n");
		return 1;
	}
	dev = list[0];
	/* The list brings up no instance. */
	thr0 = threads();
	fd0 = fds();
	maps0 = maps(NULL, NULL);
	CHECK_EQ(thr0, 1);
	CHECK_EQ(access(shm_path, F_OK), -1);

	maps_a = cycle("A", thr0, fd0, 0x5a, &pp);
	maps_b = cycle("B", thr0, fd0, 0x5b, &pp);
	printf("mappings: %u before, %u after A, %u after B\n", maps0, maps_a,
	       maps_b);
	/* Threads' stacks and malloc arenas stay cached after the first
	 * cycle; a second one adds nothing. (ASan's quarantine holds freed
	 * memory back, so its allocator maps more each cycle.) */
#ifndef __SANITIZE_ADDRESS__
	CHECK_EQ(maps_b, maps_a);
#endif
	two_contexts(thr0, fd0);
	imported(thr0, fd0);
	racing(thr0, fd0);

	ibv_free_device_list(list);
	return smx_test_done();
}
