/* SPDX-License-Identifier: MIT */
/*
 * The per-user shared segment: process table and inboxes (shm.h).
 *
 * Creation is race-safe: the first process creates the file with O_EXCL,
 * sizes it, initialises the header and publishes a magic word last; the
 * others open the existing file, check owner and mode (0600, ours), and wait
 * for the magic. A segment whose creator died before publishing it, or of an
 * incompatible layout, is replaced.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "device/fabric/shm.h"
#include "util/log.h"

#define SMX_SHM_MAGIC 0x31304d5035584d53ull	/* "SMX5PM01" */
#define SMX_SHM_VERSION 1u

enum { SLOT_FREE = 0, SLOT_ALIVE = 1 };

/* smx_slot.sleeping. Processes of the first layout write 0 / 1 only, and
 * wake on anything but 0: SLEEP_POLLED costs them a needless wake-up. */
enum {
	SLEEP_NO = 0,
	SLEEP_WAKE = 1,		/* parked: producers ring the bell */
	SLEEP_POLLED = 2,	/* parked, the owner's threads poll the inbox
				 * and the park is short: no bell needed */
};

struct smx_slot {
	/* Process table entry (changed under the header mutex). */
	uint32_t state;
	int32_t pid;
	uint64_t start_time;	/* /proc/<pid>/stat field 22 */
	uint64_t gen;		/* claims of this slot so far */
	/* Direct placement (eng_direct.c), in what was padding (processes
	 * of the first layout leave it alone): the owner's key generation,
	 * and pid << 32 | slot + 1 of the memory the owner is accessing. */
	uint64_t dgen;
	uint64_t dbusy;
	/* Inbox: producers advance tail, the owner advances head. */
	uint64_t tail __attribute__((aligned(64)));
	uint64_t head __attribute__((aligned(64)));
	uint32_t bell __attribute__((aligned(64)));	/* futex word */
	uint32_t sleeping;	/* SLEEP_*: the owner's inbox thread */
	struct smx_cell cell[SMX_SHM_CELLS];
};

struct smx_shm_hdr {
	uint64_t magic;		/* written last at creation */
	uint32_t version;
	uint32_t nslots;
	uint32_t ncells;
	uint32_t inline_max;
	uint64_t size;
	pthread_mutex_t lock;	/* robust, process-shared */
	struct smx_slot slot[SMX_SHM_SLOTS] __attribute__((aligned(64)));
};

struct smx_shm {
	struct smx_shm_hdr *h;
	size_t size;
	uint32_t slot;
	int32_t pid;		/* getpid() at attach (dbusy tag) */
	char path[256];
};

static uint64_t shm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Field 22 of /proc/<pid>/stat (start time in clock ticks); 0 if unknown. */
static uint64_t shm_start_time(int32_t pid)
{
	char path[64], buf[1024];
	unsigned long long v = 0;
	const char *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	if (!p)
		return 0;
	/* After ") " comes field 3 (state); field 22 is 19 fields later. */
	p++;
	for (field = 2; field < 21 && *p; p++)
		if (*p == ' ')
			field++;
	if (sscanf(p, "%llu", &v) != 1)
		return 0;
	return v;
}

static void shm_lock(struct smx_shm_hdr *h)
{
	int r = pthread_mutex_lock(&h->lock);

	if (r == EOWNERDEAD) {
		/* The holder died; the table is only slot fields written
		 * one at a time, so it is consistent enough to go on. */
		smx_dbg("shm: a process died holding the table lock; recovered");
		pthread_mutex_consistent(&h->lock);
	}
}

static void shm_unlock(struct smx_shm_hdr *h)
{
	pthread_mutex_unlock(&h->lock);
}

static bool slot_alive(const struct smx_slot *sl, int32_t *pidp)
{
	int32_t pid = __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE);
	uint64_t st;

	if (pidp)
		*pidp = pid;
	if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SLOT_ALIVE ||
	    pid <= 0)
		return false;
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return false;
	st = shm_start_time(pid);
	/* A pid reused by another process has another start time. */
	return !st || st == sl->start_time;
}

static void slot_reset_ring(struct smx_slot *sl)
{
	uint32_t i;

	sl->tail = 0;
	sl->head = 0;
	sl->sleeping = 0;
	for (i = 0; i < SMX_SHM_CELLS; i++)
		__atomic_store_n(&sl->cell[i].seq, (uint64_t)i, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static const char *shm_default_path(char *buf, size_t len)
{
	const char *p = getenv("SOFTMLX5_SHM_PATH");
	struct stat st;

	if (p && *p) {
		snprintf(buf, len, "%s", p);
		return buf;
	}
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(buf, len, "/dev/shm/softmlx5-%u", (unsigned int)getuid());
		return buf;
	}
	p = getenv("XDG_RUNTIME_DIR");
	if (p && p[0] == '/') {
		snprintf(buf, len, "%s/softmlx5-shm", p);
		return buf;
	}
	return NULL;
}

/* Creates and initialises a new segment at @path; fd or -1 (errno). */
static int shm_create(const char *path, size_t size, struct smx_shm_hdr **hp)
{
	pthread_mutexattr_t ma;
	struct smx_shm_hdr *h;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		      0600);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) != 0)
		goto fail;
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		goto fail;
	h->version = SMX_SHM_VERSION;
	h->nslots = SMX_SHM_SLOTS;
	h->ncells = SMX_SHM_CELLS;
	h->inline_max = SMX_SHM_INLINE;
	h->size = size;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&h->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	__atomic_store_n(&h->magic, SMX_SHM_MAGIC, __ATOMIC_RELEASE);
	*hp = h;
	return fd;
fail:
	{
		int err = errno;

		close(fd);
		unlink(path);
		errno = err;
	}
	return -1;
}

/* Opens an existing segment; fd or -1. Sets *stale when it should be
 * replaced (creator died before finishing, other layout). */
static int shm_open_existing(const char *path, size_t size,
			     struct smx_shm_hdr **hp, bool *stale)
{
	struct smx_shm_hdr *h;
	struct stat st;
	uint64_t t0 = shm_now();
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

	*stale = false;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		smx_err("shm: %s is not a regular file", path);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (st.st_uid != getuid() || (st.st_mode & 077)) {
		smx_err("shm: %s must belong to uid %u with mode 0600 (it has "
			"uid %u mode %03o); not using it", path,
			(unsigned int)getuid(), (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 0777));
		close(fd);
		errno = EPERM;
		return -1;
	}
	/* The creator may still be between open and ftruncate. */
	while ((size_t)st.st_size < size && shm_now() - t0 < 2000000000ull) {
		usleep(1000);
		if (fstat(fd, &st) != 0)
			break;
	}
	if ((size_t)st.st_size != size) {
		*stale = true;
		close(fd);
		return -1;
	}
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		close(fd);
		return -1;
	}
	while (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != SMX_SHM_MAGIC &&
	       shm_now() - t0 < 2000000000ull)
		usleep(1000);
	if (h->magic != SMX_SHM_MAGIC || h->version != SMX_SHM_VERSION ||
	    h->nslots != SMX_SHM_SLOTS || h->ncells != SMX_SHM_CELLS ||
	    h->inline_max != SMX_SHM_INLINE || h->size != size) {
		*stale = true;
		munmap(h, size);
		close(fd);
		return -1;
	}
	*hp = h;
	return fd;
}

struct smx_shm *smx_shm_attach(void)
{
	size_t size = (sizeof(struct smx_shm_hdr) + 4095) & ~(size_t)4095;
	struct smx_shm_hdr *h = NULL;
	struct smx_shm *s;
	char path[256];
	int fd = -1, tries;
	uint32_t i, pick = UINT32_MAX;
	const char *env = getenv("SOFTMLX5_SHM_PATH");

	if (env && (!strcmp(env, "off") || !strcmp(env, "none")))
		return NULL;
	if (!shm_default_path(path, sizeof(path))) {
		smx_err("shm: no place for the shared segment (/dev/shm, "
			 "$XDG_RUNTIME_DIR); this process is alone on the device");
		return NULL;
	}
	for (tries = 0; tries < 3 && fd < 0; tries++) {
		bool stale = false;

		fd = shm_create(path, size, &h);
		if (fd >= 0 || errno != EEXIST)
			break;
		fd = shm_open_existing(path, size, &h, &stale);
		if (fd < 0 && stale) {
			smx_dbg("shm: %s is stale or of another layout; "
				 "replacing it", path);
			unlink(path);
		} else if (fd < 0) {
			break;
		}
	}
	if (fd < 0) {
		smx_err("shm: cannot use %s (%s); this process is alone on the "
			 "device", path, strerror(errno));
		return NULL;
	}
	close(fd);	/* the mapping stays */

	shm_lock(h);
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		struct smx_slot *sl = &h->slot[i];

		if (sl->state == SLOT_ALIVE && !slot_alive(sl, NULL)) {
			smx_dbg("shm: reclaiming slot %u of dead pid %d", i,
				sl->pid);
			__atomic_store_n(&sl->state, SLOT_FREE, __ATOMIC_RELEASE);
			sl->pid = 0;
		}
		if (sl->state == SLOT_FREE && pick == UINT32_MAX)
			pick = i;
	}
	if (pick != UINT32_MAX) {
		struct smx_slot *sl = &h->slot[pick];

		slot_reset_ring(sl);
		/* Records about the previous holder's keys die with it. */
		__atomic_fetch_add(&sl->dgen, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sl->dbusy, 0, __ATOMIC_RELEASE);
		sl->start_time = shm_start_time(getpid());
		sl->gen++;
		__atomic_store_n(&sl->pid, (int32_t)getpid(), __ATOMIC_RELEASE);
		__atomic_store_n(&sl->state, SLOT_ALIVE, __ATOMIC_RELEASE);
	}
	shm_unlock(h);
	if (pick == UINT32_MAX) {
		smx_err("shm: all %u process slots of %s are in use; this "
			 "process is alone on the device", SMX_SHM_SLOTS, path);
		munmap(h, size);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		shm_lock(h);
		h->slot[pick].state = SLOT_FREE;
		h->slot[pick].pid = 0;
		shm_unlock(h);
		munmap(h, size);
		return NULL;
	}
	s->h = h;
	s->size = size;
	s->slot = pick;
	s->pid = (int32_t)getpid();
	snprintf(s->path, sizeof(s->path), "%s", path);
	/* Peers move bulk data with process_vm_readv/writev: where Yama
	 * restricts ptrace, allow it (same user only, as always). */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	smx_dbg("shm: %s slot %u (pid %d)", path, pick, (int)getpid());
	return s;
}

void smx_shm_detach(struct smx_shm *s)
{
	struct smx_slot *sl;

	if (!s)
		return;
	sl = &s->h->slot[s->slot];
	smx_shm_dbump(s);
	shm_lock(s->h);
	if (sl->pid == (int32_t)getpid()) {
		__atomic_store_n(&sl->state, SLOT_FREE, __ATOMIC_RELEASE);
		sl->pid = 0;
	}
	shm_unlock(s->h);
	munmap(s->h, s->size);
	free(s);
}

uint32_t smx_shm_slot(const struct smx_shm *s)
{
	return s ? s->slot : 0;
}

const char *smx_shm_path(const struct smx_shm *s)
{
	return s ? s->path : NULL;
}

int smx_shm_qpn_slot(uint32_t qpn)
{
	uint32_t slot;

	if (qpn < SMX_SHM_QPN_BASE)
		return -1;
	slot = (qpn - SMX_SHM_QPN_BASE) >> SMX_SHM_ID_SHIFT;
	return slot < SMX_SHM_SLOTS ? (int)slot : -1;
}

bool smx_shm_alive(struct smx_shm *s, uint32_t slot, int32_t *pid)
{
	if (!s || slot >= SMX_SHM_SLOTS)
		return false;
	return slot_alive(&s->h->slot[slot], pid);
}

static long shm_futex(uint32_t *w, int op, uint32_t val,
		      const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static void shm_ring(struct smx_slot *sl, bool always);

struct smx_cell *smx_shm_reserve(struct smx_shm *s, uint32_t slot,
				 uint64_t wait_ns, uint64_t *posp)
{
	struct smx_slot *sl;
	uint64_t pos, t0 = 0;
	unsigned int spins = 0;

	if (!s || slot >= SMX_SHM_SLOTS)
		return NULL;
	sl = &s->h->slot[slot];
	if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SLOT_ALIVE)
		return NULL;
	pos = __atomic_load_n(&sl->tail, __ATOMIC_RELAXED);
	for (;;) {
		struct smx_cell *c = &sl->cell[pos & (SMX_SHM_CELLS - 1)];
		uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		int64_t d = (int64_t)(seq - pos);

		if (d == 0) {
			if (__atomic_compare_exchange_n(&sl->tail, &pos, pos + 1,
							true, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				*posp = pos;
				return c;
			}
			continue;	/* pos reloaded by the failed CAS */
		}
		if (d < 0) {
			/* Full: the owner has not consumed yet (wake it: cells
			 * may have been published quietly; polled or not, it
			 * must not let us wait). */
			if (!t0) {
				shm_ring(sl, true);
				t0 = shm_now();
			}
			else if (shm_now() - t0 > wait_ns)
				return NULL;
			if (++spins > 64)
				sched_yield();
		}
		pos = __atomic_load_n(&sl->tail, __ATOMIC_RELAXED);
	}
}

uint32_t smx_shm_room(struct smx_shm *s, uint32_t slot)
{
	struct smx_slot *sl;
	uint64_t t, h;

	if (!s || slot >= SMX_SHM_SLOTS)
		return 0;
	sl = &s->h->slot[slot];
	t = __atomic_load_n(&sl->tail, __ATOMIC_RELAXED);
	h = __atomic_load_n(&sl->head, __ATOMIC_RELAXED);
	return t - h >= SMX_SHM_CELLS ? 0 : (uint32_t)(SMX_SHM_CELLS - (t - h));
}

void smx_shm_publish_quiet(struct smx_shm *s, uint32_t slot,
			   struct smx_cell *c, uint64_t pos)
{
	(void)s;
	(void)slot;
	__atomic_store_n(&c->seq, pos + 1, __ATOMIC_RELEASE);
}

void smx_shm_publish(struct smx_shm *s, uint32_t slot, struct smx_cell *c,
		     uint64_t pos)
{
	smx_shm_publish_quiet(s, slot, c, pos);
	smx_shm_ring(s, slot);
}

static void shm_ring(struct smx_slot *sl, bool always)
{
	uint32_t z;

	/* Pairs with the fence in smx_shm_wait(): either the owner sees the
	 * cells published before this call before it sleeps, or we see it
	 * sleeping and wake it -- unless it said its threads poll. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	z = __atomic_load_n(&sl->sleeping, __ATOMIC_RELAXED);
	if (z == SLEEP_WAKE || (always && z != SLEEP_NO)) {
		__atomic_fetch_add(&sl->bell, 1, __ATOMIC_RELEASE);
		shm_futex(&sl->bell, FUTEX_WAKE, INT_MAX, NULL);
	}
}

void smx_shm_ring(struct smx_shm *s, uint32_t slot)
{
	if (!s || slot >= SMX_SHM_SLOTS)
		return;
	shm_ring(&s->h->slot[slot], false);
}

/* The owner consumes under its engine lock, but any of its threads may peek
 * first (a hint, checked again under the lock): head is read atomically. */
struct smx_cell *smx_shm_peek(struct smx_shm *s)
{
	struct smx_slot *sl = &s->h->slot[s->slot];
	uint64_t h = __atomic_load_n(&sl->head, __ATOMIC_RELAXED);
	struct smx_cell *c = &sl->cell[h & (SMX_SHM_CELLS - 1)];

	if (__atomic_load_n(&c->seq, __ATOMIC_ACQUIRE) != h + 1)
		return NULL;
	return c;
}

void smx_shm_pop(struct smx_shm *s)
{
	struct smx_slot *sl = &s->h->slot[s->slot];
	uint64_t h = __atomic_load_n(&sl->head, __ATOMIC_RELAXED);
	struct smx_cell *c = &sl->cell[h & (SMX_SHM_CELLS - 1)];

	__atomic_store_n(&c->seq, h + SMX_SHM_CELLS, __ATOMIC_RELEASE);
	__atomic_store_n(&sl->head, h + 1, __ATOMIC_RELAXED);
}

void smx_shm_wait(struct smx_shm *s, uint64_t timeout_ns, bool polled)
{
	struct smx_slot *sl = &s->h->slot[s->slot];
	uint32_t v = __atomic_load_n(&sl->bell, __ATOMIC_ACQUIRE);
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / 1000000000ull),
		.tv_nsec = (long)(timeout_ns % 1000000000ull),
	};

	__atomic_store_n(&sl->sleeping, polled ? SLEEP_POLLED : SLEEP_WAKE,
			 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!smx_shm_peek(s))
		shm_futex(&sl->bell, FUTEX_WAIT, v, &ts);
	__atomic_store_n(&sl->sleeping, SLEEP_NO, __ATOMIC_RELAXED);
}

bool smx_shm_unpoll(struct smx_shm *s)
{
	struct smx_slot *sl;
	uint32_t z = SLEEP_POLLED;

	if (!s)
		return false;
	sl = &s->h->slot[s->slot];
	/* From here producers wake the parked thread; cells published
	 * before are seen by our peek after the exchange's fence. */
	__atomic_compare_exchange_n(&sl->sleeping, &z, SLEEP_WAKE, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return smx_shm_peek(s) != NULL;
}

void smx_shm_kick(struct smx_shm *s)
{
	struct smx_slot *sl;

	if (!s)
		return;
	sl = &s->h->slot[s->slot];
	__atomic_fetch_add(&sl->bell, 1, __ATOMIC_RELEASE);
	shm_futex(&sl->bell, FUTEX_WAKE, INT_MAX, NULL);
}

/* ------------------------------------------------------------------ */
/* Direct placement: key generations and busy words                   */
/* ------------------------------------------------------------------ */

uint64_t smx_shm_dgen(struct smx_shm *s, uint32_t slot)
{
	if (!s || slot >= SMX_SHM_SLOTS)
		return 0;
	return __atomic_load_n(&s->h->slot[slot].dgen, __ATOMIC_ACQUIRE);
}

bool smx_shm_dbegin(struct smx_shm *s, uint32_t slot, uint64_t gen)
{
	struct smx_slot *me = &s->h->slot[s->slot];

	if (slot >= SMX_SHM_SLOTS)
		return false;
	/* Dekker with smx_shm_dbump(): store busy, fence, load the
	 * generation; it stores the generation, fences, loads busy. The
	 * exchange is the store and the full fence in one locked
	 * instruction (cheaper than a store and an mfence on x86). */
	__atomic_exchange_n(&me->dbusy, (uint64_t)(uint32_t)s->pid << 32 |
			    (slot + 1), __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->h->slot[slot].dgen, __ATOMIC_SEQ_CST) == gen)
		return true;
	__atomic_store_n(&me->dbusy, 0, __ATOMIC_RELEASE);
	return false;
}

void smx_shm_dend(struct smx_shm *s)
{
	__atomic_store_n(&s->h->slot[s->slot].dbusy, 0, __ATOMIC_RELEASE);
}

void smx_shm_dbump(struct smx_shm *s)
{
	uint32_t mine, i;

	if (!s)
		return;
	mine = s->slot + 1;
	__atomic_fetch_add(&s->h->slot[s->slot].dgen, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		struct smx_slot *sl = &s->h->slot[i];
		uint64_t t0 = 0, b;
		unsigned int spins = 0;

		if (i == s->slot)
			continue;
		/* A reader that saw the old generation finishes its copy;
		 * one that died meanwhile (its slot free, or another pid
		 * there now) is not waited for. */
		while (((b = __atomic_load_n(&sl->dbusy, __ATOMIC_ACQUIRE)) &
			0xffffffffu) == mine) {
			if (++spins < 1024) {
#if defined(__x86_64__) || defined(__i386__)
				__builtin_ia32_pause();
#endif
				continue;
			}
			if (!t0)
				t0 = shm_now();
			else if (shm_now() - t0 > 1000000ull &&
				 ((int32_t)(b >> 32) !=
				  __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE) ||
				  !slot_alive(sl, NULL)))
				break;
			sched_yield();
		}
	}
}
