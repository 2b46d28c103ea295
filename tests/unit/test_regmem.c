/* SPDX-License-Identifier: MIT */
/*
 * Registered memory stays the application's (src/device/fabric/direct.c):
 * re-backing remotely accessible heap memory for direct placement must
 * never lose a store, change what a forked child sees, or outlive the
 * registration.
 *
 *   A  a thread increments a counter on the page of a 2000-byte buffer
 *      that the main thread registers 300 times: no increment is lost;
 *   B  the same while a peer process RDMA-WRITEs into every registration
 *      (the first WRITE through the inbox, the next ones placed directly);
 *   C  fork() after registering heap MRs: the child sees the parent's
 *      bytes as they were, reads and writes its whole heap, neighbours of
 *      the MRs included, and exits 0; its writes never reach the parent,
 *      whose MRs still take WRITEs -- placed directly while it is stopped;
 *   D  20 x (register 64 MiB, deregister, free) leaves no memfd, no fd,
 *      no mapping and no shared memory; closing the device with an MR
 *      still registered leaves no thread, fd or memfd either.
 *
 * The main process is the target T; the peer P is forked before either
 * opens the device and takes orders over a pipe. The segment is private
 * to the test ($SOFTMLX5_SHM_PATH).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
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

#define PG 4096u
#define ACC_REMOTE (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* An order to P: @count WRITEs of @len bytes of @byte at @addr, with T
 * stopped (SIGSTOP) for all but the first when @stopped. */
struct order {
	uint64_t addr;
	uint32_t rkey, len, count;
	uint8_t byte, stopped, done;
};

static int to_p, from_p;	/* T's ends of the pipes */

/* Each process's end: a CQ of 64 entries, a QP of 16 WRs each way. */
static void side_open(struct peer_end *s)
{
	peer_rc_open(s, 64, 16);
}

/* ------------------------------------------------------------------ */
/* What /proc says about this process                                 */
/* ------------------------------------------------------------------ */

/* True when the page at @p is mapped from a softmlx5 memfd. */
static bool page_shared(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	char line[512];
	bool yes = false;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= a && a < hi) {
			yes = strstr(line, "memfd:softmlx5-mr") != NULL;
			break;
		}
	}
	if (f)
		fclose(f);
	return yes;
}

/* Mappings and open fds of softmlx5 memfds in this process. */
static unsigned int memfd_maps(void)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, "memfd:softmlx5-mr") != NULL;
	if (f)
		fclose(f);
	return n;
}

static unsigned int dir_count(const char *path, unsigned int *memfds)
{
	DIR *d = opendir(path);
	struct dirent *de;
	unsigned int n = 0;

	if (memfds)
		*memfds = 0;
	while (d && (de = readdir(d))) {
		char p[512], link[256];
		ssize_t k;

		if (de->d_name[0] == '.')
			continue;
		n++;
		if (!memfds)
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		k = readlink(p, link, sizeof(link) - 1);
		if (k > 0) {
			link[k] = 0;
			*memfds += strstr(link, "memfd:softmlx5-mr") != NULL;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static long long shmem_kib(void)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Shmem: %lld kB", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* ------------------------------------------------------------------ */
/* P: the peer                                                        */
/* ------------------------------------------------------------------ */

static int peer_write(struct peer_end *s, uint8_t *lbuf, struct ibv_mr *lmr,
		      const struct order *o)
{
	struct ibv_sge sge = { (uintptr_t)lbuf, o->len, lmr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = o->addr, .rkey = o->rkey },
	}, *bad;

	memset(lbuf, o->byte, o->len);
	if (ibv_post_send(s->qp, &wr, &bad))
		return -2;
	return peer_wait_wc(s->cq, 300000, 10);
}

static int peer(int in, int out, pid_t t)
{
	struct peer_end s;
	uint8_t *lbuf = aligned_alloc(PG, 64 * 1024);
	struct ibv_mr *lmr;

	side_open(&s);
	lmr = ibv_reg_mr(s.pd, lbuf, 64 * 1024, IBV_ACCESS_LOCAL_WRITE);
	if (!lmr)
		return 2;
	if (peer_connect_qps(in, out, true, &s.qp, 1, IBV_ACCESS_REMOTE_WRITE))
		return 2;
	xwrite(out, "r", 1);
	for (;;) {
		struct order o;
		uint8_t ok = 1;
		uint32_t i;

		xread(in, &o, sizeof(o));
		if (o.done)
			break;
		for (i = 0; i < o.count && ok; i++) {
			bool stopped = o.stopped && i > 0;

			if (stopped && !stop(t))
				ok = 0;
			if (peer_write(&s, lbuf, lmr, &o) != IBV_WC_SUCCESS)
				ok = 0;
			if (stopped)
				kill(t, SIGCONT);
		}
		xwrite(out, &ok, 1);
	}
	ibv_dereg_mr(lmr);
	peer_end_close(&s);
	return 0;
}

/* T asks P for @count WRITEs; true when all completed successfully. */
static bool p_write(uint64_t addr, uint32_t rkey, uint32_t len, uint8_t byte,
		    uint32_t count, bool stopped)
{
	struct order o = { addr, rkey, len, count, byte, stopped, 0 };
	uint8_t ok;

	xwrite(to_p, &o, sizeof(o));
	xread(from_p, &ok, 1);
	return ok == 1;
}

/* ------------------------------------------------------------------ */
/* A, B: no store lost while registering                              */
/* ------------------------------------------------------------------ */

struct counter {
	volatile uint64_t *word;	/* on the registered buffer's page */
	uint64_t mine;			/* increments made */
	volatile bool stop;
};

static void *count_main(void *arg)
{
	struct counter *c = arg;

	while (!c->stop) {
		*c->word = *c->word + 1;	/* a plain store, as malloc's */
		c->mine++;
	}
	return NULL;
}

static void case_no_lost_store(struct peer_end *s, bool with_peer)
{
	uint8_t *page = aligned_alloc(PG, PG);
	uint8_t *buf = page + 64;
	struct counter c = { (volatile uint64_t *)(void *)(page + 3000), 0, false };
	unsigned int i, shared = 0, bad_bytes = 0, bad_writes = 0, after = 0;
	pthread_t th;

	if (!page)
		exit(2);
	memset(page, 0, PG);
	CHECK(pthread_create(&th, NULL, count_main, &c) == 0);
	for (i = 0; i < 300; i++) {
		struct ibv_mr *mr = ibv_reg_mr(s->pd, buf, 2000, ACC_REMOTE);

		CHECK(mr != NULL);
		if (!mr)
			break;
		shared += page_shared(buf);
		if (with_peer) {
			uint8_t want = (uint8_t)(i + 1);

			if (!p_write((uintptr_t)buf, mr->rkey, 2000, want, 3,
				     false))
				bad_writes++;
			if (buf[0] != want || buf[1999] != want)
				bad_bytes++;
		}
		CHECK(ibv_dereg_mr(mr) == 0);
		after += page_shared(buf);
	}
	c.stop = true;
	pthread_join(th, NULL);
	printf("%s: %u of 300 registrations re-backed the page; counter %llu, "
	       "increments %llu\n", with_peer ? "B" : "A", shared,
	       (unsigned long long)*c.word, (unsigned long long)c.mine);
	/* The test means something only if the page really switched. */
	CHECKM(shared >= 270, "%u of 300 registrations re-backed", shared);
	CHECKM(after == 0, "%u deregistrations left the page shared", after);
	CHECK_EQ(*c.word, c.mine);
	CHECK_EQ(bad_writes, 0);
	CHECK_EQ(bad_bytes, 0);
	free(page);
}

/* ------------------------------------------------------------------ */
/* C: fork()                                                          */
/* ------------------------------------------------------------------ */

#define NFMR 3
#define FLEN (3 * PG)

struct node {
	struct node *next;
	uint64_t v;
};

/* Pattern byte of MR @m's page bytes for owner @who (0 parent, 1 child). */
static uint8_t pat(int m, int who)
{
	return (uint8_t)(0x30 + 16 * who + m);
}

/* The counter the parent's thread increments: on MR 0's first page. */
#define CTR_AT 40u
static bool is_ctr(unsigned int m, unsigned int k)
{
	return m == 0 && k >= CTR_AT && k < CTR_AT + 8;
}

static int fork_child(uint8_t **pages, struct node *list)
{
	unsigned int m, k, bad = 0;
	struct node *n;
	void *junk[256];

	/* The parent's bytes as they were, neighbours included. */
	for (m = 0; m < NFMR; m++)
		for (k = 0; k < FLEN; k++)
			bad += !is_ctr(m, k) && pages[m][k] != pat((int)m, 0);
	for (n = list, k = 0; n; n = n->next, k++)
		bad += n->v != k;
	/* Its whole heap is its own: write everything, allocate, free. */
	for (m = 0; m < NFMR; m++)
		memset(pages[m], pat((int)m, 1), FLEN);
	for (n = list; n; n = n->next)
		n->v = ~n->v;
	for (k = 0; k < 256; k++) {
		junk[k] = malloc(16 + 37 * k);
		if (junk[k])
			memset(junk[k], 0xee, 16 + 37 * k);
	}
	for (k = 0; k < 256; k++)
		free(junk[k]);
	for (m = 0; m < NFMR; m++)
		for (k = 0; k < FLEN; k++)
			bad += pages[m][k] != pat((int)m, 1);
	return bad ? 1 : 0;
}

static void case_fork(struct peer_end *s)
{
	uint8_t *pages[NFMR];
	struct ibv_mr *mr[NFMR];
	struct node *list = NULL, **tail = &list;
	struct counter c = { NULL, 0, false };
	pthread_t th;
	unsigned int m, k, round, bad = 0;

	/* Small heap objects around the MRs, and the MRs' own pages with
	 * neighbours before and after the registered bytes. */
	for (k = 0; k < 64; k++) {
		struct node *n = malloc(sizeof(*n));

		if (!n)
			exit(2);
		n->v = k;
		n->next = NULL;
		*tail = n;
		tail = &n->next;
		if (k % 21 == 0 && k / 21 < NFMR) {
			m = k / 21;
			pages[m] = aligned_alloc(PG, FLEN);
			if (!pages[m])
				exit(2);
			memset(pages[m], pat((int)m, 0), FLEN);
			mr[m] = ibv_reg_mr(s->pd, pages[m] + 100, FLEN - 200,
					   ACC_REMOTE);
			CHECK(mr[m] != NULL);
			CHECK(page_shared(pages[m]));
		}
	}
	/* A thread keeps storing to a neighbour of MR 0 through the forks. */
	c.word = (volatile uint64_t *)(void *)(pages[0] + CTR_AT);
	*c.word = 0;
	CHECK(pthread_create(&th, NULL, count_main, &c) == 0);

	/* One child at a time, then three at once. */
	for (round = 0; round < 3; round++) {
		pid_t kids[3];
		unsigned int nk = round < 2 ? 1 : 3, i;

		for (i = 0; i < nk; i++) {
			kids[i] = fork();
			if (kids[i] == 0)
				_exit(fork_child(pages, list));
			CHECK(kids[i] > 0);
		}
		for (i = 0; i < nk; i++) {
			int st = 0;

			CHECK(waitpid(kids[i], &st, 0) == kids[i]);
			CHECKM(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			       "child %u of round %u: status 0x%x", i, round, st);
		}
	}
	c.stop = true;
	pthread_join(th, NULL);
	CHECK_EQ(*c.word, c.mine);
	/* None of the children's writes reached the parent. */
	for (m = 0; m < NFMR; m++)
		for (k = 0; k < FLEN; k++)
			bad += !is_ctr(m, k) && pages[m][k] != pat((int)m, 0);
	CHECK_EQ(bad, 0);
	for (m = 0; m < NFMR; m++)
		CHECK(page_shared(pages[m]));

	/* The MRs still take WRITEs: once through the inbox, then with the
	 * parent stopped (placed directly into its memory). */
	for (m = 0; m < NFMR; m++) {
		CHECK(p_write((uintptr_t)pages[m] + 100, mr[m]->rkey, 512,
			      0x70 + m, 3, true));
		CHECK_EQ(pages[m][100], 0x70 + m);
		CHECK_EQ(pages[m][611], 0x70 + m);
		CHECK_EQ(pages[m][612], pat((int)m, 0));
		CHECK(ibv_dereg_mr(mr[m]) == 0);
		CHECK(!page_shared(pages[m]));
		free(pages[m]);
	}
	while (list) {
		struct node *n = list->next;

		free(list);
		list = n;
	}
}

/* ------------------------------------------------------------------ */
/* D: nothing outlives a registration or the device                    */
/* ------------------------------------------------------------------ */

static void case_release(struct peer_end *s)
{
	const size_t big = 64u << 20;
	long long shm0 = shmem_kib(), shm1;
	unsigned int fds0 = dir_count("/proc/self/fd", NULL), fds1, mfd, i;
	unsigned int shared = 0;

	for (i = 0; i < 20; i++) {
		uint8_t *b = malloc(big);
		struct ibv_mr *mr;

		if (!b)
			exit(2);
		memset(b, (int)i, big);
		mr = ibv_reg_mr(s->pd, b, big, ACC_REMOTE);
		CHECK(mr != NULL);
		shared += page_shared(b + big / 2);
		CHECK_EQ(b[big - 1], i);
		if (mr)
			CHECK(ibv_dereg_mr(mr) == 0);
		CHECK_EQ(b[big / 2], i);	/* the bytes stay */
		free(b);
	}
	shm1 = shmem_kib();
	fds1 = dir_count("/proc/self/fd", &mfd);
	printf("D: %u of 20 registrations re-backed; Shmem %lld -> %lld kB; "
	       "fds %u -> %u\n", shared, shm0, shm1, fds0, fds1);
	CHECKM(shared >= 18, "%u of 20 registrations re-backed", shared);
	CHECK_EQ(fds1, fds0);
	CHECK_EQ(mfd, 0);
	CHECK_EQ(memfd_maps(), 0);
	/* One leaked region alone would be 64 MiB; other processes on the
	 * machine move Shmem a little. */
	CHECKM(shm1 - shm0 < 32 * 1024, "Shmem grew by %lld kB", shm1 - shm0);
}

/* In a child of its own: open, register, close without deregistering. */
static int close_child(void)
{
	unsigned int fds0 = dir_count("/proc/self/fd", NULL), thr0, mfd;
	uint8_t *b = aligned_alloc(PG, 16 * PG);
	struct peer_end s;
	struct ibv_mr *mr;

	thr0 = dir_count("/proc/self/task", NULL);
	side_open(&s);
	mr = b ? ibv_reg_mr(s.pd, b + 8, 15 * PG, ACC_REMOTE) : NULL;
	CHECK(mr != NULL);
	CHECK(page_shared(b));
	b[0] = 0x5e;
	ibv_destroy_qp(s.qp);
	ibv_destroy_cq(s.cq);
	/* The MR and PD are left to the close, as applications do. */
	CHECK(ibv_close_device(s.ctx) == 0);
	CHECK_EQ(dir_count("/proc/self/fd", &mfd), fds0);
	CHECK_EQ(mfd, 0);
	CHECK_EQ(memfd_maps(), 0);
	CHECK_EQ(dir_count("/proc/self/task", NULL), thr0);
	CHECK(!page_shared(b));
	CHECK_EQ(b[0], 0x5e);
	return smx_test_done();
}

int main(void)
{
	char path[128];
	int st = 0, rc;
	struct peer_end s;
	char c;
	pid_t pid, cpid;
	struct order done = { .done = 1 };

	peer_seg_path(path, sizeof(path), "regmem");
	unsetenv("SOFTMLX5_DIRECT");
	setvbuf(stdout, NULL, _IONBF, 0);

	/* D's close check first, in a process that has not opened yet. */
	cpid = fork();
	if (cpid == 0)
		_exit(close_child());
	CHECK(cpid > 0 && waitpid(cpid, &st, 0) == cpid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);

	pid = peer_fork(&from_p, &to_p);
	if (pid < 0)
		return 2;
	if (pid == 0)
		_exit(peer(from_p, to_p, getppid()));
	side_open(&s);
	CHECK_EQ(peer_connect_qps(from_p, to_p, false, &s.qp, 1,
				  IBV_ACCESS_REMOTE_WRITE), 0);
	xread(from_p, &c, 1);

	case_no_lost_store(&s, false);
	case_no_lost_store(&s, true);
	case_fork(&s);
	case_release(&s);

	xwrite(to_p, &done, sizeof(done));
	rc = smx_test_done();
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "peer exited with status 0x%x\n", st);
		rc = 1;
	}
	peer_end_close(&s);
	unlink(path);
	return rc;
}
