/* SPDX-License-Identifier: MIT */
/*
 * Stop-the-world for this process's other threads (freeze.h).
 *
 * The signal is the highest real-time signal that has no handler when the
 * first freeze is asked for; it is installed with SA_RESTART (interrupted
 * calls that can restart do) and a full mask (no application handler runs
 * in a parked thread). Before each freeze the disposition is looked at
 * again: if the application took the signal over, freezing fails rather
 * than calling its handler.
 *
 * Whether a thread is parked is counted by acknowledgement, not assumed:
 * each parked handler adds one to fz_acks. Threads created while the
 * freeze goes on are found by listing /proc/self/task again until a pass
 * finds none; threads that exit before they park stop being waited for.
 * No allocation anywhere here: a parked thread may hold malloc's locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "device/fabric/freeze.h"
#include "util/log.h"

#define FZ_MAX_THREADS 1024
#define FZ_TIMEOUT_NS 500000000ull	/* a thread must park within this */
#define FZ_BLOCKED_NS 20000000ull	/* or unblock the signal within this */

static int fz_sig;		/* 0: no handler installed yet */
static uint32_t fz_word;	/* the freeze in force (futex), 0: none */
static uint32_t fz_acks;	/* threads parked under it (futex) */
static uint32_t fz_inside;	/* threads in the handler (futex) */
static uint32_t fz_next;	/* freeze ids */
static pid_t fz_tids[FZ_MAX_THREADS];	/* threads signalled for it */
static unsigned int fz_ntids;

static long fz_futex(uint32_t *w, int op, uint32_t val,
		     const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static uint64_t fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fz_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	uint32_t id = (uint32_t)si->si_value.sival_int;

	(void)sig;
	(void)uc;
	/* Only our own request, and only the one in force: a signal left
	 * pending by a freeze that gave up finds another id and returns. */
	if (si->si_code == SI_QUEUE && si->si_pid == getpid() && id &&
	    __atomic_load_n(&fz_word, __ATOMIC_ACQUIRE) == id) {
		__atomic_fetch_add(&fz_inside, 1, __ATOMIC_SEQ_CST);
		/* Looked at again once counted as inside: a thaw that did
		 * not wait for us has moved fz_word on, and our ack must
		 * not count for the next freeze. */
		if (__atomic_load_n(&fz_word, __ATOMIC_SEQ_CST) == id) {
			__atomic_fetch_add(&fz_acks, 1, __ATOMIC_SEQ_CST);
			fz_futex(&fz_acks, FUTEX_WAKE_PRIVATE, 1, NULL);
			while (__atomic_load_n(&fz_word, __ATOMIC_ACQUIRE) == id)
				fz_futex(&fz_word, FUTEX_WAIT_PRIVATE, id, NULL);
		}
		if (__atomic_sub_fetch(&fz_inside, 1, __ATOMIC_SEQ_CST) == 0)
			fz_futex(&fz_inside, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
	errno = saved;
}

/* Our handler is (still) installed: true. */
static bool fz_install(void)
{
	struct sigaction cur, sa;
	int s;

	if (fz_sig) {
		if (sigaction(fz_sig, NULL, &cur) == 0 &&
		    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fz_handler)
			return true;
		smx_dbg("freeze: signal %d was taken over by the application",
			fz_sig);
		return false;
	}
	for (s = SIGRTMAX; s >= SIGRTMIN + 2; s--) {
		if (sigaction(s, NULL, &cur) || (cur.sa_flags & SA_SIGINFO) ||
		    cur.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = fz_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigfillset(&sa.sa_mask);
		if (sigaction(s, &sa, NULL) == 0) {
			fz_sig = s;
			return true;
		}
	}
	smx_dbg("freeze: no free real-time signal");
	return false;
}

/* Reads a small /proc file into @buf (NUL-terminated); its length or -1. */
static ssize_t fz_read(const char *path, char *buf, size_t size)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)got < size - 1 &&
	       (n = read(fd, buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return got;
}

static const char *fz_field(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	if (!p)
		return NULL;
	p += strlen(name);
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

enum fz_state { FZ_SEND, FZ_GONE, FZ_REFUSE, FZ_BLOCKED };

/* What to do with thread @tid: signal it, skip it (gone or a zombie), give
 * up (it cannot park: stopped, a kernel I/O worker), or see again (it
 * blocks the signal now). */
static enum fz_state fz_thread(pid_t tid, bool quiet)
{
	char path[64], st[2048];
	const char *v;
	unsigned long long blk = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	if (fz_read(path, st, sizeof(st)) <= 0)
		return FZ_GONE;
	v = fz_field(st, "State:");
	if (v && (*v == 'Z' || *v == 'X'))
		return FZ_GONE;
	if (v && (*v == 'T' || *v == 't')) {
		if (!quiet)
			smx_dbg("freeze: thread %d is stopped", (int)tid);
		return FZ_REFUSE;
	}
	v = fz_field(st, "Name:");
	if (v && !strncmp(v, "iou-", 4)) {
		if (!quiet)
			smx_dbg("freeze: thread %d is an io_uring worker",
				(int)tid);
		return FZ_REFUSE;
	}
	v = fz_field(st, "SigBlk:");
	if (v && sscanf(v, "%llx", &blk) == 1 && (blk >> (fz_sig - 1) & 1))
		return FZ_BLOCKED;
	return FZ_SEND;
}

/* Conditions that no parking can cover: a tracer (its stops would show
 * our signal to the debugger) and asynchronous kernel I/O into memory. */
static bool fz_process_ok(void)
{
	static char buf[65536];
	const char *v;
	ssize_t n;

	if (fz_read("/proc/self/status", buf, sizeof(buf)) > 0 &&
	    (v = fz_field(buf, "TracerPid:")) && *v != '0') {
		smx_dbg("freeze: the process is traced");
		return false;
	}
	/* The rings of io_uring and of AIO are mapped into the process. */
	{
		int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		size_t keep = 0;
		bool hit = false;

		if (fd < 0)
			return false;
		while (!hit && (n = read(fd, buf + keep,
					 sizeof(buf) - 1 - keep)) > 0) {
			size_t len = keep + (size_t)n;
			char *nl;

			buf[len] = 0;
			hit = strstr(buf, "[io_uring]") || strstr(buf, "/[aio]");
			nl = strrchr(buf, '\n');
			keep = nl ? len - (size_t)(nl + 1 - buf) : 0;
			if (keep >= sizeof(buf) / 2)
				keep = 0;
			memmove(buf, buf + len - keep, keep);
		}
		close(fd);
		if (hit) {
			smx_dbg("freeze: io_uring or AIO rings are mapped");
			return false;
		}
	}
	return true;
}

struct fz_dirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* The threads of this process, at most @max: their count or -1. */
static int fz_tasks(pid_t *out, unsigned int max)
{
	char buf[4096] __attribute__((aligned(8)));
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsigned int n = 0;
	long got;

	if (fd < 0)
		return -1;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < got) {
			const struct fz_dirent *d = (const void *)(buf + off);
			long tid = 0;
			const char *c;

			off += d->reclen;
			if (d->name[0] < '0' || d->name[0] > '9')
				continue;
			for (c = d->name; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (n == max) {
				close(fd);
				return -1;
			}
			out[n++] = (pid_t)tid;
		}
	}
	close(fd);
	return got < 0 ? -1 : (int)n;
}

static bool fz_signalled(pid_t tid)
{
	unsigned int i;

	for (i = 0; i < fz_ntids; i++)
		if (fz_tids[i] == tid)
			return true;
	return false;
}

/*
 * As fz_thread(), but a thread that blocks the signal is given a moment:
 * a thread being created runs with every signal blocked until it has set
 * itself up. One that keeps it blocked cannot be parked.
 */
static enum fz_state fz_thread_ready(pid_t tid)
{
	uint64_t until = fz_now() + FZ_BLOCKED_NS;
	enum fz_state st;

	while ((st = fz_thread(tid, false)) == FZ_BLOCKED) {
		struct timespec ts = { 0, 200000 };

		if (fz_now() > until) {
			smx_dbg("freeze: thread %d blocks signal %d", (int)tid,
				fz_sig);
			break;
		}
		nanosleep(&ts, NULL);
	}
	return st;
}

/* Signalled threads that still live (and so must park). */
static unsigned int fz_alive(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < fz_ntids; i++)
		if (fz_thread(fz_tids[i], true) != FZ_GONE)
			n++;
	return n;
}

static int fz_send(pid_t tid, uint32_t id)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = fz_sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = (int)id;
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, fz_sig, &si))
		return -errno;
	return 0;
}

/* Waits until every signalled thread that still lives has parked. */
static bool fz_wait(uint64_t deadline)
{
	for (;;) {
		uint32_t a = __atomic_load_n(&fz_acks, __ATOMIC_ACQUIRE);
		struct timespec ts = { 0, 1000000 };

		if (a >= fz_ntids)
			return true;
		fz_futex(&fz_acks, FUTEX_WAIT_PRIVATE, a, &ts);
		if (__atomic_load_n(&fz_acks, __ATOMIC_ACQUIRE) >= fz_ntids)
			return true;
		/* Some may have exited before parking. */
		if (fz_alive() <= __atomic_load_n(&fz_acks, __ATOMIC_ACQUIRE))
			return true;
		if (fz_now() > deadline) {
			smx_dbg("freeze: %u of %u threads parked in time",
				__atomic_load_n(&fz_acks, __ATOMIC_ACQUIRE),
				fz_ntids);
			return false;
		}
	}
}

int smx_freeze(void)
{
	static pid_t tasks[FZ_MAX_THREADS];
	pid_t self = (pid_t)syscall(SYS_gettid);
	uint64_t deadline = fz_now() + FZ_TIMEOUT_NS;
	bool fresh = true;
	uint32_t id;

	if (!fz_install() || !fz_process_ok())
		return -EBUSY;
	id = ++fz_next ? fz_next : ++fz_next;
	fz_ntids = 0;
	__atomic_store_n(&fz_acks, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&fz_word, id, __ATOMIC_SEQ_CST);
	/* Until a listing finds no thread that was not signalled yet. */
	while (fresh) {
		int n = fz_tasks(tasks, FZ_MAX_THREADS), i;

		if (n < 0) {
			smx_dbg("freeze: cannot list this process's threads");
			goto fail;
		}
		fresh = false;
		for (i = 0; i < n; i++) {
			pid_t t = tasks[i];
			int r;

			if (t == self || fz_signalled(t))
				continue;
			switch (fz_thread_ready(t)) {
			case FZ_GONE:
				continue;
			case FZ_REFUSE:
			case FZ_BLOCKED:
				goto fail;
			case FZ_SEND:
				break;
			}
			if (fz_ntids == FZ_MAX_THREADS)
				goto fail;
			r = fz_send(t, id);
			if (r == -ESRCH)
				continue;
			if (r) {
				smx_dbg("freeze: cannot signal thread %d: %s",
					(int)t, strerror(-r));
				goto fail;
			}
			fz_tids[fz_ntids++] = t;
			fresh = true;
		}
		if (!fz_wait(deadline))
			goto fail;
	}
	return 0;
fail:
	smx_thaw();
	return -EBUSY;
}

/* Also waits for the parked threads to leave the handler: until then
 * they block every signal, which would make the next freeze refuse them. */
void smx_thaw(void)
{
	uint32_t n;

	__atomic_store_n(&fz_word, 0, __ATOMIC_SEQ_CST);
	fz_futex(&fz_word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
	while ((n = __atomic_load_n(&fz_inside, __ATOMIC_ACQUIRE)) != 0)
		fz_futex(&fz_inside, FUTEX_WAIT_PRIVATE, n, NULL);
}

void smx_freeze_reset_child(void)
{
	fz_word = 0;
	fz_acks = 0;
	fz_inside = 0;
	fz_ntids = 0;
}
