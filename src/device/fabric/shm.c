/* SPDX-License-Identifier: MIT */
/*
 * The per-user shared segment: process table and inboxes (shm.h).
 *
 * Creation is race-safe: the first process creates the file with O_EXCL,
 * allocates all of it (a full tmpfs fails here, not with a SIGBUS at the
 * first touch of a page), initialises the header and publishes a magic word
 * last; the others open the existing file, check owner and mode (0600,
 * ours), and wait for the magic. A segment whose creator died before
 * publishing it, or of another layout version, is replaced.
 *
 * Liveness of a slot's holder: in our pid namespace, its pid exists with
 * the start time it recorded; in another (a container sharing /dev/shm),
 * its pid is never looked up -- it is alive while it holds its slot's
 * record lock. Nothing waits on another process without a bound.
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
#include "device/fabric/shm_layout.h"
#include "util/log.h"

/* A give-up that changes behaviour: said once per process, always. */
#define shm_err_once(...)                                                      \
	do {                                                                   \
		static int once_;                                              \
		if (!__atomic_exchange_n(&once_, 1, __ATOMIC_RELAXED))         \
			smx_err(__VA_ARGS__);                                  \
	} while (0)

#define SHM_LOCK_WAIT_S 2		/* the table mutex, held for microseconds */
#define SHM_STR_(x) #x
#define SHM_STR(x) SHM_STR_(x)
#define SHM_CREATOR_WAIT_NS 2000000000ull	/* a creator finishing the file */
#define SHM_DBUSY_WAIT_NS 2000000000ull	/* a reader inside one direct copy */
#define SHM_LIVE_CHECK_NS 1000000ull	/* liveness re-checks while waiting */

struct smx_shm {
	struct smx_shm_hdr *h;
	size_t size;
	int fd;			/* kept open: our slot's lock lives on it */
	uint32_t slot;
	int32_t pid;		/* getpid() at attach (dbusy tag) */
	uint64_t gen;		/* the slot's claim count when we took it */
	uint64_t pidns;		/* our pid namespace (smx_slot.pidns) */
	char path[256];
};

static uint64_t shm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t smx_shm_start_time(int32_t pid)
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
	/* "pid (comm) state ...": comm may hold spaces and parentheses, so
	 * count from the last ')'; field 3 (state) follows it and a space. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	p += 2;
	for (field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return 0;
		p++;
	}
	if (sscanf(p, "%llu", &v) != 1)
		return 0;
	return v;
}

/* Inode of /proc/self/ns/pid; 0 when there is no /proc to ask. */
static uint64_t shm_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* The table mutex, waited for SHM_LOCK_WAIT_S at most: its holder may be
 * stopped. False: not taken, and @then (what we do instead) said once. */
static bool shm_lock(struct smx_shm_hdr *h, const char *then)
{
	struct timespec until;
	int r;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SHM_LOCK_WAIT_S;
	r = pthread_mutex_timedlock(&h->lock, &until);
	if (r == EOWNERDEAD) {
		/* The holder died; the table is only slot fields written
		 * one at a time, so it is consistent enough to go on. */
		smx_dbg("shm: a process died holding the table lock; recovered");
		pthread_mutex_consistent(&h->lock);
		r = 0;
	}
	if (r) {
		shm_err_once("shm: cannot take the process table lock (%s); %s",
			     r == ETIMEDOUT ? "held by another process for "
			     "over " SHM_STR(SHM_LOCK_WAIT_S) " s" : strerror(r),
			     then);
		return false;
	}
	return true;
}

static void shm_unlock(struct smx_shm_hdr *h)
{
	pthread_mutex_unlock(&h->lock);
}

/*
 * Slot locks: a holder keeps a write lock on byte @i of the file while
 * attached. The kernel drops it when the process dies, whatever its pid
 * namespace, so it is how a holder from another namespace is known to be
 * alive. (Record locks belong to the process, are not inherited by fork,
 * and go when it closes any descriptor of the file: there is one.)
 */
static bool shm_slot_lock(int fd, uint32_t i)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = (off_t)i, .l_len = 1 };

	return fcntl(fd, F_SETLK, &fl) == 0;
}

/* Does another process hold slot @i's lock? (Our own locks never show.) */
static bool shm_slot_locked(int fd, uint32_t i)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = (off_t)i, .l_len = 1 };

	if (fcntl(fd, F_GETLK, &fl) != 0)
		return true;	/* cannot tell: do not take it away */
	return fl.l_type != F_UNLCK;
}

/* Is the holder of slot @i in our pid namespace (its pid means a process
 * here)? */
static bool slot_our_ns(const struct smx_shm *s, const struct smx_slot *sl)
{
	return __atomic_load_n(&sl->pidns, __ATOMIC_ACQUIRE) == s->pidns;
}

/*
 * Is slot @i claimed by a live process? In our namespace: the pid exists
 * and has the start time recorded (a reused pid has another). In another
 * namespace the pid is not ours to look up: the slot's lock says.
 */
static bool slot_held(const struct smx_shm *s, uint32_t i, int32_t *pidp)
{
	const struct smx_slot *sl = &s->h->slot[i];
	int32_t pid = __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE);
	uint64_t st;

	if (pidp)
		*pidp = pid;
	if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SMX_SLOT_ALIVE ||
	    pid <= 0)
		return false;
	if (!slot_our_ns(s, sl))
		return shm_slot_locked(s->fd, i);
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return false;
	st = smx_shm_start_time(pid);
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
	int r, fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC |
			 O_NOFOLLOW, 0600);

	if (fd < 0)
		return -1;
	/* Every page now, not at first touch: a full tmpfs is an error here
	 * instead of a SIGBUS later (in us or in a peer). The size shows
	 * only once all pages are there, so no waiter maps a hole. */
	do
		r = posix_fallocate(fd, 0, (off_t)size);
	while (r == EINTR);
	if (r) {
		errno = r;
		goto fail;
	}
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
	/* The creator may still be allocating the file. */
	while ((size_t)st.st_size < size && shm_now() - t0 < SHM_CREATOR_WAIT_NS) {
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
	       shm_now() - t0 < SHM_CREATOR_WAIT_NS)
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

/* Opens the segment at @path, creating it or replacing a stale one; fd
 * or -1 (errno). */
static int shm_open_segment(const char *path, struct smx_shm_hdr **hp)
{
	int fd = -1, tries;

	for (tries = 0; tries < 3 && fd < 0; tries++) {
		bool stale = false;

		fd = shm_create(path, SMX_SHM_SIZE, hp);
		if (fd >= 0 || errno != EEXIST)
			break;
		fd = shm_open_existing(path, SMX_SHM_SIZE, hp, &stale);
		if (fd < 0 && stale) {
			smx_dbg("shm: %s is stale or of another layout; "
				"replacing it", path);
			unlink(path);
		} else if (fd < 0) {
			break;
		}
	}
	return fd;
}

/* Takes free slot @i for this process (table mutex held). */
static void shm_take(struct smx_shm *s, uint32_t i)
{
	struct smx_slot *sl = &s->h->slot[i];

	slot_reset_ring(sl);
	/* Records about the previous holder's keys die with it. */
	__atomic_fetch_add(&sl->dgen, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sl->dbusy, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&sl->pidns, s->pidns, __ATOMIC_RELEASE);
	sl->start_time = smx_shm_start_time(s->pid);
	s->gen = ++sl->gen;
	__atomic_store_n(&sl->pid, s->pid, __ATOMIC_RELEASE);
	__atomic_store_n(&sl->state, SMX_SLOT_ALIVE, __ATOMIC_RELEASE);
	s->slot = i;
}

/*
 * Claims a slot: slots whose holder is gone are reclaimed, then the first
 * free one whose lock we get is ours (a process leaving its slot frees it
 * before it drops the lock). False when none is left or the table lock
 * cannot be had; the reason is logged.
 */
static bool shm_claim(struct smx_shm *s)
{
	struct smx_shm_hdr *h = s->h;
	uint32_t i, pick = UINT32_MAX;

	if (!shm_lock(h, "this process is alone on the device"))
		return false;
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		struct smx_slot *sl = &h->slot[i];
		int32_t pid;

		if (sl->state == SMX_SLOT_ALIVE && !slot_held(s, i, &pid)) {
			smx_dbg("shm: slot %u reclaimed: %s (pid %d)", i,
				slot_our_ns(s, sl) ? "its process is gone, or "
				"its pid has another start time now" :
				"its process, of another pid namespace, no "
				"longer holds the slot's lock", (int)pid);
			__atomic_store_n(&sl->state, SMX_SLOT_FREE,
					 __ATOMIC_RELEASE);
			sl->pid = 0;
		}
		if (sl->state == SMX_SLOT_FREE && pick == UINT32_MAX &&
		    shm_slot_lock(s->fd, i))
			pick = i;
	}
	if (pick != UINT32_MAX)
		shm_take(s, pick);
	shm_unlock(h);
	if (pick == UINT32_MAX)
		smx_err("shm: all %u process slots of %s are in use; this "
			"process is alone on the device", SMX_SHM_SLOTS, s->path);
	return pick != UINT32_MAX;
}

struct smx_shm *smx_shm_attach(void)
{
	struct smx_shm_hdr *h = NULL;
	struct smx_shm *s;
	char path[256];
	int fd;
	const char *env = getenv("SOFTMLX5_SHM_PATH");

	if (env && (!strcmp(env, "off") || !strcmp(env, "none")))
		return NULL;
	if (!shm_default_path(path, sizeof(path))) {
		smx_err("shm: no place for the shared segment (/dev/shm, "
			"$XDG_RUNTIME_DIR); this process is alone on the device");
		return NULL;
	}
	fd = shm_open_segment(path, &h);
	if (fd < 0) {
		smx_err("shm: cannot use %s (%s; the segment takes %zu bytes); "
			"this process is alone on the device", path,
			strerror(errno), SMX_SHM_SIZE);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		munmap(h, SMX_SHM_SIZE);
		close(fd);
		return NULL;
	}
	s->h = h;
	s->size = SMX_SHM_SIZE;
	s->fd = fd;
	s->pid = (int32_t)getpid();
	s->pidns = shm_pidns();
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (!shm_claim(s)) {
		munmap(h, s->size);
		close(fd);
		free(s);
		return NULL;
	}
	/* Peers move bulk data with process_vm_readv/writev: where Yama
	 * restricts ptrace, allow it (same user only, as always). */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	smx_dbg("shm: %s slot %u (pid %d)", path, s->slot, (int)s->pid);
	return s;
}

void smx_shm_detach(struct smx_shm *s)
{
	struct smx_slot *sl;

	if (!s)
		return;
	sl = &s->h->slot[s->slot];
	/* A fork child's copy of the parent's attachment is not its own:
	 * the slot, its generation and its readers stay the parent's. */
	if (s->pid == (int32_t)getpid()) {
		smx_shm_dbump(s);
		if (shm_lock(s->h, "the slot is left to be reclaimed")) {
			if (sl->pid == s->pid && sl->gen == s->gen) {
				__atomic_store_n(&sl->state, SMX_SLOT_FREE,
						 __ATOMIC_RELEASE);
				sl->pid = 0;
			}
			shm_unlock(s->h);
		}
	}
	close(s->fd);	/* drops the slot's lock, once the slot is free */
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
	if (!slot_our_ns(s, &s->h->slot[slot])) {
		if (pid)
			*pid = 0;	/* not a pid of ours: never used */
		return false;
	}
	return slot_held(s, slot, pid);
}

bool smx_shm_peer(struct smx_shm *s, uint32_t slot, int32_t pid)
{
	const struct smx_slot *sl;

	if (!s || slot >= SMX_SHM_SLOTS || pid <= 0)
		return false;
	sl = &s->h->slot[slot];
	return __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == SMX_SLOT_ALIVE &&
	       __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE) == pid &&
	       slot_our_ns(s, sl);
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
	/* A process of another pid namespace cannot read our memory by pid
	 * (nor we its): it is not a peer, and nothing is sent to it. */
	if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SMX_SLOT_ALIVE ||
	    !slot_our_ns(s, sl))
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
	if (z == SMX_SLEEP_WAKE || (always && z != SMX_SLEEP_NO)) {
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

	__atomic_store_n(&sl->sleeping, polled ? SMX_SLEEP_POLLED : SMX_SLEEP_WAKE,
			 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!smx_shm_peek(s))
		shm_futex(&sl->bell, FUTEX_WAIT, v, &ts);
	__atomic_store_n(&sl->sleeping, SMX_SLEEP_NO, __ATOMIC_RELAXED);
}

bool smx_shm_unpoll(struct smx_shm *s)
{
	struct smx_slot *sl;
	uint32_t z = SMX_SLEEP_POLLED;

	if (!s)
		return false;
	sl = &s->h->slot[s->slot];
	/* From here producers wake the parked thread; cells published
	 * before are seen by our peek after the exchange's fence. */
	__atomic_compare_exchange_n(&sl->sleeping, &z, SMX_SLEEP_WAKE, false,
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

/*
 * Waits until the process in slot @i has left the direct access to our
 * memory it began under the old generation (dbusy names our slot, @mine).
 * Not for ever: a reader that died (its slot free, taken by another pid,
 * or its pid gone), or that belongs to another pid namespace (it cannot
 * hold a record of ours), is not waited for, and a live one at most
 * SHM_DBUSY_WAIT_NS -- a copy that takes longer is one stopped mid-way.
 */
static void shm_wait_reader(struct smx_shm *s, uint32_t i, uint32_t mine)
{
	const struct smx_slot *sl = &s->h->slot[i];
	uint64_t t0 = 0, checked = 0, now, b;
	unsigned int spins = 0;

	while (((b = __atomic_load_n(&sl->dbusy, __ATOMIC_ACQUIRE)) &
		0xffffffffu) == mine) {
		if (++spins < 1024) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
			continue;
		}
		now = shm_now();
		if (!t0)
			t0 = checked = now;
		if (now - checked >= SHM_LIVE_CHECK_NS) {
			checked = now;
			if ((int32_t)(b >> 32) !=
			    __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE) ||
			    !slot_our_ns(s, sl) || !slot_held(s, i, NULL))
				return;
		}
		if (now - t0 > SHM_DBUSY_WAIT_NS) {
			shm_err_once("shm: slot %u (pid %d) stayed inside a "
				     "direct access to slot %u's memory for "
				     "%llu ms; not waiting for it any longer",
				     i, (int)(b >> 32), mine - 1,
				     SHM_DBUSY_WAIT_NS / 1000000ull);
			return;
		}
		if (now - t0 < SHM_LIVE_CHECK_NS) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 100000 };

			nanosleep(&ts, NULL);	/* a long copy: do not spin */
		}
	}
}

void smx_shm_dbump(struct smx_shm *s)
{
	uint32_t i;

	/* A fork child's copy of the attachment is not the slot's holder:
	 * commands on its inherited instance must not touch the parent's. */
	if (!s || s->pid != (int32_t)getpid())
		return;
	__atomic_fetch_add(&s->h->slot[s->slot].dgen, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < SMX_SHM_SLOTS; i++)
		if (i != s->slot)
			shm_wait_reader(s, i, s->slot + 1);
}
