/* SPDX-License-Identifier: MIT */
/*
 * The shared segment's process table (src/device/fabric/shm.c): liveness
 * of other processes, and never waiting on one without a bound. The test
 * plays the other processes by writing slots into the segment by hand:
 *
 *   - smx_shm_start_time() is field 22 of /proc/<pid>/stat: equal to the
 *     field found by a scanf of the whole line, within the boot-clock ticks
 *     around a fork, later for a later process, right for a command name
 *     with spaces and parentheses;
 *   - a slot of a dead pid, of a live pid with another start time, and of
 *     another pid namespace whose slot lock is free are reclaimed; one of
 *     another namespace whose lock a live process holds is kept, is not a
 *     peer and gets no message -- its pid (dead here) is never looked up;
 *   - all slots taken: attach fails (the process runs alone);
 *   - a segment of layout version 1 is replaced;
 *   - smx_shm_dbump() does not wait for a reader that died, that left its
 *     slot to another pid or that is of another namespace, and waits at
 *     most 2 s for a live one that never leaves;
 *   - a table lock held by a live process: attach gives up after 2 s; once
 *     that process is killed, the lock is recovered;
 *   - the inbox link (real processes, forked): a producer that dies between
 *     reserving a cell and publishing it -- as a zombie, or reaped and its
 *     slot reclaimed -- does not wedge the inbox: the cell is skipped and
 *     the cell behind it delivered; while that producer lives (blocked, or
 *     stopped by SIGSTOP) its cell is waited for and never skipped;
 *   - a full inbox: reserve fails at once, registers us as waiting for
 *     room, and the owner's pop rings our doorbell (a parked wait returns);
 *   - smx_shm_stalled(): a consumer that is stopped, or idle with cells
 *     waiting, is stalled; one that consumes, or is dead, is not.
 *
 * "test_shm tmpfs" (its own ctest entry): the segment on a 64 KiB tmpfs
 * (mounted in a private mount namespace; skipped, exit 77, where that is
 * not allowed) cannot be allocated: attach fails with one line, leaves no
 * file, and the device runs alone.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "device/fabric/shm.h"
#include "device/fabric/shm_layout.h"
#include "prm/prm.h"
#include "smx_test.h"

static char path[128];
static uint64_t my_ns, my_start;

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Start time of @pid read another way: one scanf over fields 3-22. */
static uint64_t stat_scanf(pid_t pid)
{
	char p[64], buf[1024];
	unsigned long long v = 0;
	FILE *f;
	char *c;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	c = strrchr(buf, ')');
	if (!c || sscanf(c + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%*u %*u %*d %*d %*d %*d %*d %*d %llu", &v) != 1)
		return 0;
	return v;
}

/* A child that waits on a pipe; its write end is returned in *wake. */
static pid_t child_waiting(const char *name, int *wake)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		exit(2);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (name)
			prctl(PR_SET_NAME, name, 0, 0, 0);
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	*wake = p[1];
	return pid;
}

static void child_end(pid_t pid, int wake)
{
	close(wake);
	waitpid(pid, NULL, 0);
}

/* A pid that was a process and is no more. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void test_start_time(void)
{
	uint64_t hz = (uint64_t)sysconf(_SC_CLK_TCK), t0, t1, a, b;
	int wa, wb;
	pid_t pa, pb;
	struct timespec pause = { 0, 50000000 };

	CHECK(my_start != 0);
	CHECK_EQ(my_start, stat_scanf(getpid()));
	CHECK_EQ(smx_shm_start_time(999999999), 0);	/* no such pid */
	/* /proc counts ticks of the boot clock: a child started within
	 * [t0, t1] has a start time within their ticks. */
	t0 = now_ns(CLOCK_BOOTTIME) / (1000000000ull / hz);
	pa = child_waiting("a) b (c", &wa);
	t1 = now_ns(CLOCK_BOOTTIME) / (1000000000ull / hz);
	nanosleep(&pause, NULL);
	pb = child_waiting(NULL, &wb);
	a = smx_shm_start_time(pa);
	b = smx_shm_start_time(pb);
	CHECKM(a >= t0 && a <= t1, "start %llu, boot ticks %llu..%llu",
	       (unsigned long long)a, (unsigned long long)t0,
	       (unsigned long long)t1);
	CHECK_EQ(a, stat_scanf(pa));	/* comm with spaces and ')' */
	CHECKM(b > a, "a %llu, b %llu 50 ms later", (unsigned long long)a,
	       (unsigned long long)b);
	child_end(pb, wb);	/* first: it holds a copy of wa */
	child_end(pa, wa);
}

static struct smx_shm_hdr *seg_map(void)
{
	int fd = open(path, O_RDWR);
	void *h;

	if (fd < 0)
		return NULL;
	h = mmap(NULL, SMX_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return h == MAP_FAILED ? NULL : h;
}

static void slot_set(struct smx_shm_hdr *h, uint32_t i, int32_t pid,
		     uint64_t start, uint64_t ns)
{
	struct smx_slot *sl = &h->slot[i];

	sl->pid = pid;
	sl->start_time = start;
	sl->pidns = ns;
	sl->dbusy = 0;
	sl->state = pid ? SMX_SLOT_ALIVE : SMX_SLOT_FREE;
}

/* Every slot but @keep: this (live) process, as its own attach writes. */
static void slots_live(struct smx_shm_hdr *h, uint32_t keep)
{
	uint32_t i;

	for (i = 0; i < SMX_SHM_SLOTS; i++)
		if (i != keep)
			slot_set(h, i, getpid(), my_start, my_ns);
}

/* Attaches and says which slot it got (-1: none); detaches again. */
static int attach_slot(void)
{
	struct smx_shm *s = smx_shm_attach();
	int slot = s ? (int)smx_shm_slot(s) : -1;

	smx_shm_detach(s);
	return slot;
}

/* A process that holds slot @i's lock until woken. */
static pid_t lock_holder(uint32_t i, int *wake)
{
	int p[2], r[2];
	char c;
	pid_t pid;

	if (pipe(p) || pipe(r))
		exit(2);
	pid = fork();
	if (pid == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = (off_t)i, .l_len = 1 };
		int fd = open(path, O_RDWR);

		close(p[1]);
		close(r[0]);
		c = fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0;
		if (write(r[1], &c, 1) != 1 || read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	close(r[1]);
	if (read(r[0], &c, 1) != 1 || !c)
		exit(2);
	close(r[0]);
	*wake = p[1];
	return pid;
}

static void test_reclaim(void)
{
	struct smx_shm_hdr *h = seg_map();
	pid_t dead = dead_pid(), holder;
	uint64_t pos;
	struct smx_shm *s;
	int32_t pid;
	int wake;

	if (!h) {
		CHECK(0);
		return;
	}
	CHECK_EQ(h->version, SMX_SHM_VERSION);
	/* Nothing free: attach gives up, the process runs alone. */
	slots_live(h, SMX_SHM_SLOTS);
	CHECK_EQ(attach_slot(), -1);

	slots_live(h, 5);
	slot_set(h, 5, dead, 12345, my_ns);
	CHECK_EQ(attach_slot(), 5);		/* a dead pid */
	slots_live(h, 9);
	slot_set(h, 9, getpid(), my_start + 1000, my_ns);
	CHECK_EQ(attach_slot(), 9);		/* a reused pid */
	slots_live(h, 17);
	slot_set(h, 17, getpid(), my_start, my_ns ^ 1);
	CHECK_EQ(attach_slot(), 17);		/* another ns, lock free */

	/* Another namespace, lock held: alive, whatever its pid means here
	 * (the pid of a dead process of ours). Slot 21 is free. */
	slots_live(h, 20);
	slot_set(h, 20, dead, 1, my_ns ^ 1);
	slot_set(h, 21, 0, 0, 0);
	holder = lock_holder(20, &wake);
	s = smx_shm_attach();
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(smx_shm_slot(s), 21);
		CHECK(!smx_shm_alive(s, 20, &pid));
		CHECK_EQ(pid, 0);
		CHECK(!smx_shm_peer(s, 20, dead));
		CHECK(smx_shm_reserve(s, 20, 0, &pos) == NULL);
		CHECK(smx_shm_alive(s, 22, &pid));	/* ours: a peer */
		CHECK_EQ(pid, getpid());
	}
	smx_shm_detach(s);
	CHECK_EQ(h->slot[20].state, SMX_SLOT_ALIVE);
	CHECK_EQ(h->slot[20].pid, dead);
	child_end(holder, wake);
	slot_set(h, 21, getpid(), my_start, my_ns);
	CHECK_EQ(attach_slot(), 20);		/* its holder is gone now */

	slots_live(h, SMX_SHM_SLOTS);
	slot_set(h, 0, 0, 0, 0);
	munmap(h, SMX_SHM_SIZE);
}

/* Time smx_shm_dbump() of @s takes with slot @m busy in @s's memory. */
static uint64_t dbump_ms(struct smx_shm *s, struct smx_shm_hdr *h, uint32_t m,
			 int32_t pid, uint64_t ns, int32_t reader)
{
	uint64_t t0, gen = h->slot[smx_shm_slot(s)].dgen;

	slot_set(h, m, pid, pid == getpid() ? my_start : 1, ns);
	h->slot[m].dbusy = (uint64_t)(uint32_t)reader << 32 |
			   (smx_shm_slot(s) + 1);
	t0 = now_ns(CLOCK_MONOTONIC);
	smx_shm_dbump(s);
	t0 = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	CHECK_EQ(h->slot[smx_shm_slot(s)].dgen, gen + 1);
	slot_set(h, m, 0, 0, 0);
	return t0;
}

static void test_dbusy(void)
{
	struct smx_shm_hdr *h = seg_map();
	struct smx_shm *s;
	pid_t dead = dead_pid();
	uint64_t ms;

	if (!h) {
		CHECK(0);
		return;
	}
	slots_live(h, SMX_SHM_SLOTS);
	slot_set(h, 0, 0, 0, 0);
	slot_set(h, 1, 0, 0, 0);
	s = smx_shm_attach();
	CHECK(s != NULL);
	if (!s)
		return;
	ms = dbump_ms(s, h, 1, dead, my_ns, dead);	/* reader died */
	CHECKM(ms < 500, "%llu ms", (unsigned long long)ms);
	ms = dbump_ms(s, h, 1, getpid(), my_ns, dead);	/* slot reused */
	CHECKM(ms < 500, "%llu ms", (unsigned long long)ms);
	ms = dbump_ms(s, h, 1, getpid(), my_ns ^ 1, getpid()); /* other ns */
	CHECKM(ms < 500, "%llu ms", (unsigned long long)ms);
	/* A live reader that never leaves: 2 s, then given up (logged). */
	ms = dbump_ms(s, h, 1, getpid(), my_ns, getpid());
	CHECKM(ms >= 1900 && ms < 5000, "%llu ms", (unsigned long long)ms);
	smx_shm_detach(s);
	munmap(h, SMX_SHM_SIZE);
}

/* A process that takes the table lock and keeps it until killed. */
static void test_table_lock(void)
{
	struct smx_shm_hdr *h = seg_map();
	uint64_t t0, ms;
	int r[2];
	char c;
	pid_t pid;

	if (!h || pipe(r)) {
		CHECK(0);
		return;
	}
	slots_live(h, SMX_SHM_SLOTS);
	slot_set(h, 3, 0, 0, 0);
	pid = fork();
	if (pid == 0) {
		c = pthread_mutex_lock(&h->lock) == 0;
		if (write(r[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(r[0], &c, 1) != 1 || !c)
		exit(2);
	t0 = now_ns(CLOCK_MONOTONIC);
	CHECK_EQ(attach_slot(), -1);
	ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	CHECKM(ms >= 1900 && ms < 5000, "%llu ms", (unsigned long long)ms);
	kill(pid, SIGKILL);	/* dies holding it: recovered */
	waitpid(pid, NULL, 0);
	CHECK_EQ(attach_slot(), 3);
	close(r[0]);
	close(r[1]);
	munmap(h, SMX_SHM_SIZE);
}

static void test_old_layout(void)
{
	struct smx_shm_hdr *h;
	struct stat st0, st1;
	int fd;

	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)SMX_SHM_SIZE) || fstat(fd, &st0)) {
		CHECK(0);
		return;
	}
	close(fd);
	h = seg_map();
	if (!h) {
		CHECK(0);
		return;
	}
	h->version = 1;
	h->nslots = SMX_SHM_SLOTS;
	h->ncells = SMX_SHM_CELLS;
	h->inline_max = SMX_SHM_INLINE;
	h->size = SMX_SHM_SIZE;
	h->magic = SMX_SHM_MAGIC;
	munmap(h, SMX_SHM_SIZE);
	CHECK_EQ(attach_slot(), 0);
	CHECK(stat(path, &st1) == 0 && st1.st_ino != st0.st_ino);
	h = seg_map();
	CHECK(h && h->version == SMX_SHM_VERSION);
	if (h)
		munmap(h, SMX_SHM_SIZE);
}

/* ---- the inbox link ------------------------------------------------- */

static void slots_free(struct smx_shm_hdr *h)
{
	uint32_t i;

	for (i = 0; i < SMX_SHM_SLOTS; i++)
		slot_set(h, i, 0, 0, 0);
}

/*
 * A link to test: the segment mapped at @h with every slot free, and two
 * attachments to it, the consumer @cons and the producer @prod. False (a
 * failed check) when any of them is missing; link_close() releases what
 * was made either way.
 */
static bool link_open(struct smx_shm_hdr **h, struct smx_shm **cons,
		      struct smx_shm **prod)
{
	*cons = *prod = NULL;
	*h = seg_map();
	if (!*h) {
		CHECK(0);
		return false;
	}
	slots_free(*h);
	*cons = smx_shm_attach();
	*prod = smx_shm_attach();
	CHECK(*cons && *prod);
	return *cons && *prod;
}

static void link_close(struct smx_shm_hdr *h, struct smx_shm *cons,
		       struct smx_shm *prod)
{
	smx_shm_detach(prod);
	smx_shm_detach(cons);
	if (h)
		munmap(h, SMX_SHM_SIZE);
}

static void cell_mark(struct smx_cell *c, uint64_t v)
{
	memcpy(c->data, &v, sizeof(v));
}

static uint64_t cell_marker(const struct smx_cell *c)
{
	uint64_t v;

	memcpy(&v, c->data, sizeof(v));
	return v;
}

/* The next cell of @s's inbox (not popped), parking as the inbox thread
 * does; NULL after @ms. */
static struct smx_cell *consume(struct smx_shm *s, uint64_t ms)
{
	uint64_t until = now_ns(CLOCK_MONOTONIC) + ms * 1000000ull;
	struct smx_cell *c;

	while (!(c = smx_shm_peek(s)) && now_ns(CLOCK_MONOTONIC) < until)
		smx_shm_wait(s, 1000000000ull, false);
	return c;
}

/* Publishes one cell marked @v into @slot's inbox; false if no room. */
static bool send_mark(struct smx_shm *p, uint32_t slot, uint64_t v)
{
	uint64_t pos;
	struct smx_cell *c = smx_shm_reserve(p, slot, 0, &pos);

	if (!c)
		return false;
	cell_mark(c, v);
	smx_shm_publish(p, slot, c, pos);
	return true;
}

/*
 * A forked producer: attaches, reserves a cell of @slot's inbox, marks it,
 * says so on @up (its slot number, or -1), then: @stop -- stops itself
 * (SIGSTOP), and once continued publishes the cell and exits; otherwise
 * waits for a byte (or EOF) on @down and exits without publishing.
 */
static pid_t producer_child(uint32_t slot, bool stop, int *up, int *down)
{
	int u[2], d[2];
	pid_t pid;

	if (pipe(u) || pipe(d))
		exit(2);
	pid = fork();
	if (pid == 0) {
		struct smx_shm *s;
		struct smx_cell *c = NULL;
		uint64_t pos = 0;
		int32_t me = -1;
		char b;

		close(u[0]);
		close(d[1]);
		s = smx_shm_attach();
		if (s)
			c = smx_shm_reserve(s, slot, 0, &pos);
		if (c) {
			me = (int32_t)smx_shm_slot(s);
			cell_mark(c, stop ? 0x5709 : 0xdead);
		}
		if (write(u[1], &me, sizeof(me)) != sizeof(me) || !c)
			_exit(1);
		if (stop) {
			raise(SIGSTOP);
			smx_shm_publish(s, slot, c, pos);
			_exit(0);
		}
		if (read(d[0], &b, 1) < 0)
			_exit(1);
		_exit(0);	/* dies holding the reservation */
	}
	close(u[1]);
	close(d[0]);
	*up = u[0];
	*down = d[1];
	return pid;
}

static void test_dead_producer(void)
{
	struct smx_shm_hdr *h;
	struct smx_shm *cons, *prod;
	struct smx_cell *c;
	uint64_t t0, ms;
	int32_t cslot = -1;
	uint32_t me;
	int up, down, round;
	pid_t pid;

	if (!link_open(&h, &cons, &prod))
		goto out;
	me = smx_shm_slot(cons);
	/* Round 0: the dead producer is a zombie, its record still there.
	 * Round 1: it is reaped and its slot reclaimed: no record at all. */
	for (round = 0; round < 2; round++) {
		uint64_t skipped = smx_shm_skipped(cons), pos;

		pid = producer_child(me, false, &up, &down);
		if (read(up, &cslot, sizeof(cslot)) != sizeof(cslot) ||
		    cslot < 0) {
			CHECK(0);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			break;
		}
		CHECK(smx_resv_claims(h->slot[cslot].resv, me,
				      h->slot[me].head));
		CHECK(!(h->slot[cslot].resv & SMX_RESV_PENDING));
		/* Behind it: our cell. */
		CHECK(send_mark(prod, me, 0x600d + round));
		/* The producer lives (blocked in read): its cell is waited
		 * for, however many grace periods pass. */
		CHECK(consume(cons, 100) == NULL);
		CHECK_EQ(smx_shm_skipped(cons), skipped);
		CHECK(smx_shm_stalled(prod, me, now_ns(CLOCK_MONOTONIC)));
		close(down);	/* it exits without publishing */
		if (round == 1) {
			waitpid(pid, NULL, 0);
			CHECK_EQ(attach_slot(), cslot);	/* reclaimed */
			CHECK_EQ(h->slot[cslot].resv, 0);
		}
		t0 = now_ns(CLOCK_MONOTONIC);
		c = consume(cons, 5000);
		ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
		CHECK(c != NULL);
		if (c) {
			CHECK_EQ(cell_marker(c), 0x600d + round);
			smx_shm_pop(cons, 0);
		}
		/* Parked for 1 s at a time: back early only by checking the
		 * stuck cell on its own (2 ms grace, then 1 ms re-scans). */
		CHECKM(ms < 900, "%llu ms to skip a dead producer's cell",
		       (unsigned long long)ms);
		CHECK_EQ(smx_shm_skipped(cons), skipped + 1);
		CHECK(smx_shm_peek(cons) == NULL);
		/* The link goes on: the next cell comes through. */
		CHECK(smx_shm_reserve(prod, me, 0, &pos) != NULL);
		if (round == 0)
			smx_shm_publish(prod, me, &h->slot[me].cell[pos &
					(SMX_SHM_CELLS - 1)], pos);
		else
			smx_shm_publish_quiet(prod, me, &h->slot[me].cell[pos &
					      (SMX_SHM_CELLS - 1)], pos);
		CHECK(consume(cons, 1000) != NULL);
		smx_shm_pop(cons, 0);
		if (round == 0)
			waitpid(pid, NULL, 0);
		close(up);
	}
out:
	link_close(h, cons, prod);
}

static void test_stopped_producer(void)
{
	struct smx_shm_hdr *h;
	struct smx_shm *cons, *prod;
	struct smx_cell *c;
	int32_t cslot = -1;
	uint32_t me;
	int up, down, st = 0;
	pid_t pid;

	if (!link_open(&h, &cons, &prod))
		goto out;
	me = smx_shm_slot(cons);
	pid = producer_child(me, true, &up, &down);
	if (read(up, &cslot, sizeof(cslot)) != sizeof(cslot) || cslot < 0 ||
	    waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st)) {
		CHECK(0);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	CHECK(smx_shm_stopped(pid));
	CHECK(!smx_shm_stopped(getpid()));
	CHECK(send_mark(prod, me, 0x600d));
	/* Stopped between reserve and publish: alive, never skipped. */
	CHECK(consume(cons, 300) == NULL);
	CHECK_EQ(smx_shm_skipped(cons), 0);
	kill(pid, SIGCONT);
	c = consume(cons, 5000);
	CHECK(c != NULL);
	if (c) {
		CHECK_EQ(cell_marker(c), 0x5709);	/* its cell first */
		smx_shm_pop(cons, 0);
	}
	c = consume(cons, 1000);
	CHECK(c != NULL);
	if (c) {
		CHECK_EQ(cell_marker(c), 0x600d);
		smx_shm_pop(cons, 0);
	}
	CHECK_EQ(smx_shm_skipped(cons), 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	CHECK_EQ(h->slot[cslot].resv, 0);	/* cleared at publish */
	close(up);
	close(down);
out:
	link_close(h, cons, prod);
}

struct waiter {
	struct smx_shm *s;
	uint64_t ns;		/* time the wait took */
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	smx_shm_wait(w->s, 10000000000ull, false);
	__atomic_store_n(&w->ns, now_ns(CLOCK_MONOTONIC) - t0, __ATOMIC_RELEASE);
	return NULL;
}

static void test_full(void)
{
	struct smx_shm_hdr *h;
	struct smx_shm *cons, *prod;
	struct waiter w = { 0 };
	struct timespec pause = { 0, 100000000 };
	uint32_t me, ps, i, bell;
	uint64_t t0, ms, pos;
	pthread_t thr;

	if (!link_open(&h, &cons, &prod))
		goto out;
	me = smx_shm_slot(cons);
	ps = smx_shm_slot(prod);
	for (i = 0; i < SMX_SHM_CELLS; i++)
		CHECK(send_mark(prod, me, i));
	CHECK(smx_shm_full(prod, me));
	CHECK_EQ(smx_shm_room(prod, me), 0);
	CHECK_EQ(h->slot[me].room_waiters, 0);
	/* Full, no wait: NULL at once, and we are registered. */
	t0 = now_ns(CLOCK_MONOTONIC);
	CHECK(smx_shm_reserve(prod, me, 0, &pos) == NULL);
	ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	CHECKM(ms < 100, "%llu ms", (unsigned long long)ms);
	CHECK_EQ(h->slot[me].room_waiters, 1ull << ps);
	CHECK_EQ(h->slot[ps].resv, 0);	/* no claim left behind */
	/* With a wait: about that long. */
	t0 = now_ns(CLOCK_MONOTONIC);
	CHECK(smx_shm_reserve(prod, me, 20000000ull, &pos) == NULL);
	ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	CHECKM(ms >= 19 && ms < 2000, "%llu ms", (unsigned long long)ms);
	/* Our inbox thread parks; the owner's pop rings it. */
	bell = __atomic_load_n(&h->slot[ps].bell, __ATOMIC_ACQUIRE);
	w.s = prod;
	if (pthread_create(&thr, NULL, wait_thread, &w)) {
		CHECK(0);
		goto out;
	}
	nanosleep(&pause, NULL);
	CHECK_EQ(__atomic_load_n(&w.ns, __ATOMIC_ACQUIRE), 0);	/* parked */
	CHECK(smx_shm_peek(cons) != NULL);
	smx_shm_pop(cons, 0);
	t0 = now_ns(CLOCK_MONOTONIC);
	pthread_join(thr, NULL);
	ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	CHECKM(ms < 2000, "woken %llu ms after the pop", (unsigned long long)ms);
	CHECK(w.ns < 5000000000ull);
	CHECK(__atomic_load_n(&h->slot[ps].bell, __ATOMIC_ACQUIRE) != bell);
	CHECK_EQ(h->slot[me].room_waiters, 0);
	CHECK(!smx_shm_full(prod, me));
	CHECK(send_mark(prod, me, 1000));
	CHECK(smx_shm_full(prod, me));
	/* Room noticed before the park (the ring came while we were busy):
	 * the wait does not park. */
	CHECK(smx_shm_reserve(prod, me, 0, &pos) == NULL);
	CHECK(smx_shm_peek(cons) != NULL);
	smx_shm_pop(cons, 0);
	t0 = now_ns(CLOCK_MONOTONIC);
	smx_shm_wait(prod, 5000000000ull, false);
	ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	CHECKM(ms < 1000, "%llu ms", (unsigned long long)ms);
	/* ... and only once. */
	t0 = now_ns(CLOCK_MONOTONIC);
	smx_shm_wait(prod, 50000000ull, false);
	ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	CHECKM(ms >= 40, "%llu ms", (unsigned long long)ms);
	/* Everything arrives, in order. */
	for (i = 2; i < SMX_SHM_CELLS; i++) {
		struct smx_cell *c = smx_shm_peek(cons);

		CHECK(c && cell_marker(c) == i);
		if (!c)
			break;
		smx_shm_pop(cons, 0);
	}
	CHECK(smx_shm_peek(cons) && cell_marker(smx_shm_peek(cons)) == 1000);
	smx_shm_pop(cons, 0);
	CHECK(smx_shm_peek(cons) == NULL);
	CHECK_EQ(smx_shm_room(prod, me), SMX_SHM_CELLS);
	CHECK_EQ(smx_shm_skipped(cons), 0);
out:
	link_close(h, cons, prod);
}

/* A consumer: attaches, says its slot on @up, waits for a byte on @down,
 * then consumes until a cell marked 0xe0f. */
static pid_t consumer_child(int *up, int *down)
{
	int u[2], d[2];
	pid_t pid;

	if (pipe(u) || pipe(d))
		exit(2);
	pid = fork();
	if (pid == 0) {
		struct smx_shm *s = smx_shm_attach();
		int32_t me = s ? (int32_t)smx_shm_slot(s) : -1;
		char b;

		close(u[0]);
		close(d[1]);
		if (write(u[1], &me, sizeof(me)) != sizeof(me) || !s ||
		    read(d[0], &b, 1) != 1)
			_exit(1);
		for (;;) {
			struct smx_cell *c;

			while ((c = smx_shm_peek(s))) {
				bool end = cell_marker(c) == 0xe0f;

				smx_shm_pop(s, 0);
				if (end)
					_exit(0);
			}
			smx_shm_wait(s, 5000000ull, false);
		}
	}
	close(u[1]);
	close(d[0]);
	*up = u[0];
	*down = d[1];
	return pid;
}

static void test_stalled(void)
{
	struct smx_shm_hdr *h = seg_map();
	struct timespec pause = { 0, 2000000 };
	struct smx_shm *prod;
	uint64_t t1, until;
	int32_t k = -1;
	int up, down, st = 0;
	pid_t pid;

	if (!h) {
		CHECK(0);
		return;
	}
	slots_free(h);
	prod = smx_shm_attach();
	CHECK(prod != NULL);
	if (!prod)
		goto out;
	pid = consumer_child(&up, &down);
	if (read(up, &k, sizeof(k)) != sizeof(k) || k < 0) {
		CHECK(0);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	/* Alive, nothing waiting: not stalled. */
	CHECK(!smx_shm_stalled(prod, (uint32_t)k, now_ns(CLOCK_MONOTONIC)));
	/* Alive and running, but not consuming while a cell waits. */
	t1 = now_ns(CLOCK_MONOTONIC);
	CHECK(send_mark(prod, (uint32_t)k, 1));
	nanosleep(&pause, NULL);
	CHECK(smx_shm_stalled(prod, (uint32_t)k, t1));
	CHECK(!smx_shm_stalled(prod, (uint32_t)k, 0));	/* head moved since 0 */
	/* Consuming: not stalled. */
	CHECK(write(down, "g", 1) == 1);
	until = now_ns(CLOCK_MONOTONIC) + 5000000000ull;
	while (smx_shm_room(prod, (uint32_t)k) != SMX_SHM_CELLS &&
	       now_ns(CLOCK_MONOTONIC) < until)
		nanosleep(&pause, NULL);
	CHECK_EQ(smx_shm_room(prod, (uint32_t)k), SMX_SHM_CELLS);
	CHECK(h->slot[k].head_ns >= t1);
	CHECK(!smx_shm_stalled(prod, (uint32_t)k, t1));
	t1 = now_ns(CLOCK_MONOTONIC);
	CHECK(send_mark(prod, (uint32_t)k, 2));
	until = now_ns(CLOCK_MONOTONIC) + 5000000000ull;
	while (smx_shm_room(prod, (uint32_t)k) != SMX_SHM_CELLS &&
	       now_ns(CLOCK_MONOTONIC) < until)
		nanosleep(&pause, NULL);
	CHECK(!smx_shm_stalled(prod, (uint32_t)k, t1));
	/* Stopped: stalled, waiting cells or not. */
	kill(pid, SIGSTOP);
	CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st));
	CHECK(smx_shm_stopped(pid));
	CHECK(smx_shm_stalled(prod, (uint32_t)k, now_ns(CLOCK_MONOTONIC)));
	kill(pid, SIGCONT);
	CHECK(waitpid(pid, &st, WCONTINUED) == pid && WIFCONTINUED(st));
	until = now_ns(CLOCK_MONOTONIC) + 5000000000ull;
	while (smx_shm_stopped(pid) && now_ns(CLOCK_MONOTONIC) < until)
		nanosleep(&pause, NULL);
	CHECK(!smx_shm_stalled(prod, (uint32_t)k, now_ns(CLOCK_MONOTONIC)));
	/* Dead: not stalled (gone is another matter). */
	CHECK(send_mark(prod, (uint32_t)k, 0xe0f));
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	CHECK(send_mark(prod, (uint32_t)k, 3));
	CHECK(!smx_shm_stalled(prod, (uint32_t)k, now_ns(CLOCK_MONOTONIC)));
	close(up);
	close(down);
out:
	smx_shm_detach(prod);
	munmap(h, SMX_SHM_SIZE);
}

/* ---- "tmpfs": a segment that does not fit -------------------------- */

static int lines_with(const char *file, const char *what)
{
	char line[1024];
	FILE *f = fopen(file, "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* In a private mount namespace (nothing outlives the test); 77: skip. */
static int tmpfs_case(void)
{
	char dir[] = "/tmp/softmlx5-test-shm-XXXXXX", log[160];
	uint32_t nop[4] = { htobe32(MLX5_CMD_OP_NOP << 16) }, out[4] = { 0 };
	struct smx_dev *dev;
	struct stat st;
	int saved, fd;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("SKIP: no private mount namespace here (%s): needs "
		       "root (CAP_SYS_ADMIN)\n", strerror(errno));
		return 77;
	}
	if (!mkdtemp(dir))
		return 2;
	if (mount("tmpfs", dir, "tmpfs", 0, "size=64k")) {
		printf("SKIP: cannot mount a tmpfs on %s: %s\n", dir,
		       strerror(errno));
		rmdir(dir);
		return 77;
	}
	snprintf(path, sizeof(path), "%s/segment", dir);
	snprintf(log, sizeof(log), "/tmp/softmlx5-test-shm-%d.log",
		 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	fd = open(log, O_RDWR | O_CREAT | O_TRUNC, 0600);
	saved = dup(2);
	if (fd < 0 || saved < 0)
		return 2;
	fflush(stderr);
	dup2(fd, 2);
	/* Without allocating up front this was a SIGBUS at the first slot
	 * beyond 64 KiB. */
	CHECK(smx_shm_attach() == NULL);
	fflush(stderr);
	dup2(saved, 2);
	CHECK_EQ(lines_with(log, "softmlx5"), 1);
	CHECK_EQ(lines_with(log, "alone on the device"), 1);
	CHECK_EQ(lines_with(log, strerror(ENOSPC)), 1);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);	/* nothing left */
	/* The device comes up alone (slot 0) and answers commands. */
	dup2(fd, 2);
	dev = smx_dev_open();
	dup2(saved, 2);
	CHECK(dev != NULL);
	if (dev) {
		CHECK_EQ(smx_dev_cmd(dev, nop, sizeof(nop), out, sizeof(out)), 0);
		CHECK_EQ(out[0], 0);	/* status OK */
		smx_dev_close(dev);
	}
	CHECK_EQ(lines_with(log, "alone on the device"), 2);
	close(fd);
	close(saved);
	unlink(log);
	if (umount(dir))
		CHECK(0);
	rmdir(dir);
	return smx_test_done();
}

int main(int argc, char **argv)
{
	struct stat st;

	unsetenv("SOFTMLX5_DEBUG");
	if (argc > 1 && !strcmp(argv[1], "tmpfs"))
		return tmpfs_case();
	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-shm-%d",
		 (int)getpid());
	if (access("/dev/shm", W_OK))
		snprintf(path, sizeof(path), "/tmp/softmlx5-test-shm-%d",
			 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	my_ns = stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
	my_start = smx_shm_start_time(getpid());
	test_start_time();
	CHECK_EQ(attach_slot(), 0);	/* creates the segment */
	test_reclaim();
	test_dbusy();
	test_table_lock();
	test_old_layout();
	test_dead_producer();
	test_stopped_producer();
	test_full();
	test_stalled();
	unlink(path);
	return smx_test_done();
}
