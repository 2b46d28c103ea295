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
 *
 * The inboxes are a link that drops nothing by design. A full inbox does
 * not make a producer wait long: it registers for room (room_waiters in
 * the owner's slot) and is rung when the owner frees a cell. A producer
 * that dies between reserving a cell and publishing it (a CAS on the tail,
 * then a store of the cell's sequence) would stop the owner at that cell
 * for ever: every producer keeps a record of the position it claims
 * (resv, in its own slot), and the owner skips a cell that has waited
 * SMX_SHM_STUCK_GRACE_NS once no live process's record claims it (the
 * argument is at shm_unstick()).
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
#define SHM_SCAN_MIN_NS 1000000ull	/* a stuck head cell: first re-scan */
#define SHM_SCAN_MAX_NS 64000000ull	/* ... backing off to this */
#define SHM_PARK_MIN_NS 100000ull	/* shortest park while stuck */

struct smx_shm {
	struct smx_shm_hdr *h;
	size_t size;
	int fd;			/* kept open: our slot's lock lives on it */
	uint32_t slot;
	int32_t pid;		/* getpid() at attach (dbusy tag) */
	uint64_t gen;		/* the slot's claim count when we took it */
	/* Work for the inbox thread outside the cells (smx_shm_set_pending()). */
	bool (*pending)(void *);
	void *pending_arg;
	uint64_t pidns;		/* our pid namespace (smx_slot.pidns) */
	char path[256];
	/* Producer: held from a successful reserve to its publish (one
	 * reservation record per slot). Error-checking: a thread reserving
	 * twice fails instead of hanging. */
	pthread_mutex_t prod;
	uint64_t room_wanted;	/* bit t: we wait for room in t's inbox */
	/* Consumer (relaxed atomics: several threads may peek): the head
	 * position found reserved but unpublished, since when (0: none),
	 * and when to scan the records next (shm_unstick()). */
	uint64_t stuck_pos, stuck_ns, next_scan_ns, scan_every;
	uint32_t idle_peeks;	/* empty peeks since the tail was read */
	uint64_t skipped;	/* cells of dead producers skipped */
	/* Producer: per inbox, 1 + the position of the last cell we
	 * published there (0: none) and that slot's claim count then, for
	 * smx_shm_flush(). Written under s->prod. */
	uint64_t sent_pos[SMX_SHM_SLOTS], sent_gen[SMX_SHM_SLOTS];
};

/* getpid(), kept without a system call: set at attach and in every fork
 * child (a child must not act as its parent's slot). */
static int32_t shm_self;
static pthread_once_t shm_once = PTHREAD_ONCE_INIT;

static void shm_fork_child(void)
{
	__atomic_store_n(&shm_self, (int32_t)getpid(), __ATOMIC_RELAXED);
}

static void shm_init_once(void)
{
	pthread_atfork(NULL, NULL, shm_fork_child);
}

/* Fetches the line at @p for writing, ahead of the stores (a cell's
 * lines were last written by the other side: one trip each, overlapped,
 * instead of a read miss and then an upgrade). */
static inline void shm_prefetch_w(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

static uint64_t shm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
static void shm_room_wake(struct smx_shm_hdr *h, struct smx_slot *sl);

static bool shm_slot_lock(int fd, uint32_t i)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = (off_t)i, .l_len = 1 };

	return fcntl(fd, F_SETLK, &fl) == 0;
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
 * (shm_ro.c: readers that do not attach judge it the same way.)
 */
static bool slot_held(const struct smx_shm *s, uint32_t i, int32_t *pidp)
{
	return smx_shm_slot_held(s->h, s->fd, i, s->pidns, pidp);
}

static void slot_reset_ring(struct smx_slot *sl)
{
	uint32_t i;

	sl->tail = 0;
	sl->head = 0;
	sl->head_ns = shm_now();
	sl->sleeping = 0;
	for (i = 0; i < SMX_SHM_CELLS; i++)
		__atomic_store_n(&sl->cell[i].seq, (uint64_t)i, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
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

	/* The previous holder's reservation claims nothing now (first: the
	 * dead-producer rule in shm_unstick() counts on it). */
	__atomic_store_n(&sl->resv, 0, __ATOMIC_SEQ_CST);
	/* Producers waiting for room in its inbox: there is room now. */
	shm_room_wake(s->h, sl);
	slot_reset_ring(sl);
	/* Records about the previous holder's keys die with it. */
	__atomic_fetch_add(&sl->dgen, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sl->dbusy, 0, __ATOMIC_RELEASE);
	/* So do its counts: the port's sum never had them (a dead slot is
	 * not summed), and must not get them now. */
	for (uint32_t c = 0; c < TRN_CTR_MAX_SLOTS; c++)
		__atomic_store_n(&sl->ctr[c], 0, __ATOMIC_RELAXED);
	/* Its tombstones stay: they name its claim (gen), not the new one,
	 * and a requester it left may still need them. */
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

	if (!smx_shm_default_path(path, sizeof(path))) {
		if (errno == ENODEV)
			return NULL;	/* SOFTMLX5_SHM_PATH=off */
		smx_err("shm: no place for the shared segment (/dev/shm, "
			"$XDG_RUNTIME_DIR%s); this process is alone on the "
			"device", errno == ENAMETOOLONG ?
			"; SOFTMLX5_SHM_PATH is too long" : "");
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
	pthread_once(&shm_once, shm_init_once);
	s->h = h;
	s->size = SMX_SHM_SIZE;
	s->fd = fd;
	s->pid = (int32_t)getpid();
	__atomic_store_n(&shm_self, s->pid, __ATOMIC_RELAXED);
	{
		pthread_mutexattr_t ma;

		pthread_mutexattr_init(&ma);
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
		pthread_mutex_init(&s->prod, &ma);
		pthread_mutexattr_destroy(&ma);
	}
	s->pidns = smx_shm_pidns();
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (!shm_claim(s)) {
		pthread_mutex_destroy(&s->prod);
		munmap(h, s->size);
		close(fd);
		free(s);
		return NULL;
	}
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
		__atomic_store_n(&sl->resv, 0, __ATOMIC_RELEASE);
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
	if (s->pid == (int32_t)getpid())
		pthread_mutex_destroy(&s->prod);
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
	if (!s)
		return false;
	return smx_shm_slot_alive(s->h, s->fd, slot, s->pidns, pid);
}

/* A process alone on the device (or a fork child of an attached one)
 * counts here. */
static struct trn_counters shm_local_ctr;

struct trn_counters *smx_shm_counters(struct smx_shm *s)
{
	if (!s || s->pid != (int32_t)getpid())
		return &shm_local_ctr;
	return (struct trn_counters *)s->h->slot[s->slot].ctr;
}

void smx_shm_counters_sum(struct smx_shm *s, uint64_t out[TRN_CTR_NUM])
{
	const struct trn_counters *own = smx_shm_counters(s);
	uint32_t i, j;

	for (j = 0; j < TRN_CTR_NUM; j++)
		out[j] = trn_ctr_get(own, (enum trn_ctr)j);
	if (own == &shm_local_ctr)
		return;
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		if (i == s->slot || !smx_shm_alive(s, i, NULL))
			continue;
		for (j = 0; j < TRN_CTR_NUM; j++)
			out[j] += __atomic_load_n(&s->h->slot[i].ctr[j],
						  __ATOMIC_RELAXED);
	}
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

/* Rings slot @sl's doorbell whatever its owner does: a wake-up it must
 * not miss (shutdown, room in an inbox it waits for). */
static void shm_bell(struct smx_slot *sl)
{
	__atomic_fetch_add(&sl->bell, 1, __ATOMIC_SEQ_CST);
	shm_futex(&sl->bell, FUTEX_WAKE, INT_MAX, NULL);
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

/* Takes the producers waiting for room in @sl's inbox and rings them. */
static void shm_room_wake(struct smx_shm_hdr *h, struct smx_slot *sl)
{
	uint64_t w = __atomic_exchange_n(&sl->room_waiters, 0, __ATOMIC_ACQ_REL);

	while (w) {
		uint32_t i = (uint32_t)__builtin_ctzll(w);

		w &= w - 1;
		shm_bell(&h->slot[i]);
	}
}

/*
 * Producer. The reservation record (smx_slot.resv, our own slot's) names
 * the position we CAS for before the CAS, and stays on it until the cell is
 * published: the owner of the inbox relies on that to tell a dead
 * producer's cell from a slow one's (shm_unstick()). One reservation per
 * process at a time (s->prod), since there is one record.
 */
struct smx_cell *smx_shm_reserve(struct smx_shm *s, uint32_t slot,
				 uint64_t wait_ns, uint64_t *posp)
{
	struct smx_slot *sl, *me;
	uint64_t pos, t0 = 0;
	unsigned int spins = 0;
	bool registered = false;
	int r;

	/* A fork child's copy of our attachment is not the slot's holder:
	 * it must not write our record (nor send as us). */
	if (!s || slot >= SMX_SHM_SLOTS ||
	    s->pid != __atomic_load_n(&shm_self, __ATOMIC_RELAXED))
		return NULL;
	sl = &s->h->slot[slot];
	/* A process of another pid namespace cannot read our memory by pid
	 * (nor we its): it is not a peer, and nothing is sent to it. */
	if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SMX_SLOT_ALIVE ||
	    !slot_our_ns(s, sl))
		return NULL;
	r = pthread_mutex_lock(&s->prod);
	if (r) {
		shm_err_once("shm: a thread reserved an inbox cell while it "
			     "held another (%s); that message is not sent",
			     strerror(r));
		return NULL;
	}
	me = &s->h->slot[s->slot];
	pos = __atomic_load_n(&sl->tail, __ATOMIC_RELAXED);
	for (;;) {
		struct smx_cell *c = &sl->cell[pos & (SMX_SHM_CELLS - 1)];
		uint64_t seq;
		int64_t d;

		shm_prefetch_w(c);
		shm_prefetch_w((const uint8_t *)c + 64);
		seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		d = (int64_t)(seq - pos);

		if (d == 0) {
			/* The claim before the CAS (seq_cst, and the CAS too:
			 * whoever sees the tail past @pos sees the claim). */
			__atomic_store_n(&me->resv, smx_resv_make(slot, pos, 1),
					 __ATOMIC_SEQ_CST);
			if (__atomic_compare_exchange_n(&sl->tail, &pos, pos + 1,
							false, __ATOMIC_SEQ_CST,
							__ATOMIC_RELAXED)) {
				__atomic_store_n(&me->resv,
						 smx_resv_make(slot, pos, 0),
						 __ATOMIC_RELEASE);
				__atomic_fetch_and(&s->room_wanted,
						   ~(1ull << slot),
						   __ATOMIC_RELAXED);
				*posp = pos;
				return c;	/* s->prod held until publish */
			}
			continue;	/* pos reloaded by the failed CAS */
		}
		if (d < 0) {
			/* Full: the owner has not consumed yet (wake it: cells
			 * may have been published quietly; polled or not, it
			 * must not let us wait). */
			uint64_t now = shm_now();

			if (!t0) {
				shm_ring(sl, true);
				t0 = now;
			}
			if (now - t0 >= wait_ns) {
				if (registered)
					break;
				/*
				 * Ask to be rung when the owner frees a cell,
				 * then look once more: the owner frees (seq),
				 * fences and reads room_waiters; we set our
				 * bit, fence and read seq. One of us sees the
				 * other, so no room goes unnoticed.
				 */
				__atomic_fetch_or(&s->room_wanted, 1ull << slot,
						  __ATOMIC_RELAXED);
				__atomic_fetch_or(&sl->room_waiters,
						  1ull << s->slot,
						  __ATOMIC_SEQ_CST);
				__atomic_thread_fence(__ATOMIC_SEQ_CST);
				registered = true;
				pos = __atomic_load_n(&sl->tail, __ATOMIC_SEQ_CST);
				continue;
			}
			if (++spins > 64)
				sched_yield();
		}
		pos = __atomic_load_n(&sl->tail, __ATOMIC_RELAXED);
	}
	/* A failed CAS may have left a claim: it claims nothing now. */
	__atomic_store_n(&me->resv, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->prod);
	return NULL;
}

uint32_t smx_shm_room(struct smx_shm *s, uint32_t slot)
{
	struct smx_slot *sl;
	uint64_t t, h;

	if (!s || slot >= SMX_SHM_SLOTS)
		return 0;
	sl = &s->h->slot[slot];
	t = __atomic_load_n(&sl->tail, __ATOMIC_ACQUIRE);
	h = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
	return t - h >= SMX_SHM_CELLS ? 0 : (uint32_t)(SMX_SHM_CELLS - (t - h));
}

bool smx_shm_full(struct smx_shm *s, uint32_t slot)
{
	return s && slot < SMX_SHM_SLOTS && !smx_shm_room(s, slot);
}

void smx_shm_publish_quiet(struct smx_shm *s, uint32_t slot,
			   struct smx_cell *c, uint64_t pos)
{
	uint64_t seq = pos;

	/* A CAS, not a store: if the owner ever skipped this cell (it must
	 * not: we are alive) or the slot was reclaimed and its ring reset
	 * meanwhile, the ring's sequence stays sane and the loss is said,
	 * instead of a cell of a later lap being clobbered. */
	if (!__atomic_compare_exchange_n(&c->seq, &seq, pos + 1, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		shm_err_once("shm: a cell reserved in slot %u's inbox was "
			     "taken back before it was published (skipped by "
			     "its owner, or the slot changed hands; position "
			     "%llu, sequence %llu); message lost",
			     slot, (unsigned long long)pos,
			     (unsigned long long)seq);
	if (!s)
		return;
	__atomic_store_n(&s->sent_gen[slot],
			 __atomic_load_n(&s->h->slot[slot].gen, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&s->sent_pos[slot], pos + 1, __ATOMIC_RELAXED);
	/* After the cell (release): whoever reads the record cleared, or
	 * anything we write to it later, sees the cell published. */
	__atomic_store_n(&s->h->slot[s->slot].resv, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->prod);
	/* The next cell there was freed by its owner long ago: fetched now,
	 * while nobody waits, it is ours when the next packet goes. */
	c = &s->h->slot[slot].cell[(pos + 1) & (SMX_SHM_CELLS - 1)];
	shm_prefetch_w(c);
	shm_prefetch_w((const uint8_t *)c + 64);
}

void smx_shm_publish(struct smx_shm *s, uint32_t slot, struct smx_cell *c,
		     uint64_t pos)
{
	smx_shm_publish_quiet(s, slot, c, pos);
	smx_shm_ring(s, slot);
}

void smx_shm_ring(struct smx_shm *s, uint32_t slot)
{
	if (!s || slot >= SMX_SHM_SLOTS)
		return;
	shm_ring(&s->h->slot[slot], false);
}

/* Can the holder of slot @i still run (publish a cell, consume)?
 * slot_held(), and in our namespace not a zombie (dead, not yet reaped: kill(pid, 0) and /proc
 * still answer for it) nor, by now, another process with its pid. */
static bool shm_holder_runs(const struct smx_shm *s, uint32_t i)
{
	const struct smx_slot *sl = &s->h->slot[i];
	uint64_t start;
	int32_t pid;
	char st;

	if (!slot_held(s, i, &pid))
		return false;
	if (!slot_our_ns(s, sl) || !smx_shm_proc_stat(pid, &st, &start))
		return true;	/* held: nothing says it is gone */
	if (st == 'Z' || st == 'X')
		return false;
	return !start || !sl->start_time || start == sl->start_time;
}

/* Head advanced past @h (cell freed): the time first, so that whoever sees
 * the new head sees a time at least as late; then producers waiting for
 * room are rung. */
static void shm_advance(struct smx_shm *s, struct smx_slot *sl, uint64_t h,
			uint64_t now)
{
	__atomic_store_n(&sl->head_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&sl->head, h + 1, __ATOMIC_RELEASE);
	/* Dekker with smx_shm_reserve()'s registration: the freed cell,
	 * fence, then the waiters' bits. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sl->room_waiters, __ATOMIC_RELAXED))
		shm_room_wake(s->h, sl);
}

/*
 * THE DEAD-PRODUCER RULE. The head cell @h of our inbox is not published
 * while the tail is past it, and has been so for SMX_SHM_STUCK_GRACE_NS.
 * We read every slot's reservation record; if no record claims (our inbox,
 * @h) -- pending or not -- for a process that can still run, the cell's
 * producer is dead, and we skip the cell (free it unread).
 *
 * Why. tail moves only by a producer's successful CAS from p to p + 1, so
 * tail > h means some producer W won position h. W stored the claim
 * (us, h) in its record before that CAS, both seq_cst; we loaded the tail
 * (seq_cst, seeing the CAS or a later one) before loading the records
 * (seq_cst). So our load of W's record returns the claim or a value W's
 * slot got after it. W writes its record again only: confirming the claim
 * (still a claim of (us, h)), clearing it after publishing the cell
 * (release, after the release store of the cell's sequence), and for its
 * next reservation, after that clear (one reservation per process:
 * s->prod; a fork child's copy of W's attachment never writes it). If we
 * read the clear or anything later W wrote, the publication happened
 * before our read, and our CAS on the cell's sequence, after the scan,
 * sees it published (and delivers it instead). Anyone else writes W's
 * record only when claiming W's slot (shm_take() clears it first), which
 * happens only once W no longer holds it: W's pid is gone, or is another
 * process (start time), or W's slot lock is free (another namespace) --
 * W is dead. So: if the cell is unpublished at our CAS and no record
 * claims it, W is dead; if a record claims it, its slot's holder is the
 * claimant, and we skip only if that holder cannot run any more
 * (slot_held() false: no such pid, a reused pid, a free lock; or in our
 * namespace a zombie). Reading "gone" is never wrong (a dead pid does not
 * come back, a reused one has another start time); "alive" may be wrong
 * only for a moment (a holder dying as we look), which merely delays the
 * skip to the next scan. A claim by a live loser of the CAS (it stored the
 * claim, lost, has not rewritten it yet) delays us the same way, not for
 * long. A producer stopped (SIGSTOP, a debugger) between its CAS and its
 * publication is alive: its cell is waited for, however long. Positions
 * are compared on 56 bits: a claim of h + 2^56 would only delay us.
 *
 * Scans back off (1 ms doubling to 64 ms) while a live producer keeps the
 * cell; smx_shm_wait() cuts its park to the next scan, nothing spins.
 */
static bool shm_unstick(struct smx_shm *s, struct smx_slot *sl, uint64_t h)
{
	struct smx_cell *c = &sl->cell[h & (SMX_SHM_CELLS - 1)];
	uint64_t now, every, seq, t = __atomic_load_n(&sl->tail, __ATOMIC_SEQ_CST);
	uint32_t i, dead = SMX_SHM_SLOTS;
	int32_t pid = 0;

	if (t == h) {	/* empty */
		if (__atomic_load_n(&s->stuck_ns, __ATOMIC_RELAXED))
			__atomic_store_n(&s->stuck_ns, 0, __ATOMIC_RELAXED);
		return false;
	}
	now = shm_now();
	if (!__atomic_load_n(&s->stuck_ns, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&s->stuck_pos, __ATOMIC_RELAXED) != h) {
		__atomic_store_n(&s->stuck_pos, h, __ATOMIC_RELAXED);
		__atomic_store_n(&s->scan_every, SHM_SCAN_MIN_NS, __ATOMIC_RELAXED);
		__atomic_store_n(&s->next_scan_ns, now + SMX_SHM_STUCK_GRACE_NS,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&s->stuck_ns, now, __ATOMIC_RELAXED);
		return false;
	}
	if (now < __atomic_load_n(&s->next_scan_ns, __ATOMIC_RELAXED))
		return false;
	every = __atomic_load_n(&s->scan_every, __ATOMIC_RELAXED);
	__atomic_store_n(&s->next_scan_ns, now + every, __ATOMIC_RELAXED);
	__atomic_store_n(&s->scan_every, every < SHM_SCAN_MAX_NS ? every * 2 :
			 every, __ATOMIC_RELAXED);
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		uint64_t r = __atomic_load_n(&s->h->slot[i].resv, __ATOMIC_SEQ_CST);

		if (!smx_resv_claims(r, s->slot, h))
			continue;
		if (shm_holder_runs(s, i))
			return false;	/* it will publish */
		dead = i;
		pid = __atomic_load_n(&s->h->slot[i].pid, __ATOMIC_RELAXED);
	}
	seq = h;
	if (!__atomic_compare_exchange_n(&c->seq, &seq, h + SMX_SHM_CELLS, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE))
		return seq == h + 1;	/* published after all: peek again */
	__atomic_store_n(&s->stuck_ns, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->skipped, 1, __ATOMIC_RELAXED);
	if (dead < SMX_SHM_SLOTS)
		smx_dbg("shm: inbox %u: cell at position %llu skipped: its "
			"producer, slot %u (pid %d), died between reserving "
			"and publishing it", s->slot, (unsigned long long)h,
			dead, (int)pid);
	else
		smx_dbg("shm: inbox %u: cell at position %llu skipped: its "
			"producer died between reserving and publishing it "
			"(no live process claims it; its slot was reclaimed)",
			s->slot, (unsigned long long)h);
	shm_advance(s, sl, h, now);
	return true;
}

/* The owner consumes under its engine lock, but any of its threads may peek
 * first (a hint, checked again under the lock): head is read atomically,
 * and a skip takes the cell by CAS on its sequence, so two peekers never
 * both skip it, and a cell published meanwhile is never skipped.
 *
 * An empty peek looks at the tail (shm_unstick(): a reserved head cell
 * whose producer died) only every SHM_TAIL_LOOK_EVERY times, or at once
 * while a head cell is known reserved: the tail is the producers' line,
 * and reading it at each of the many empty peeks of a poller took it from
 * the producer at every message. A dead producer is found at most that
 * many peeks later, against a grace of SMX_SHM_STUCK_GRACE_NS. */
#define SHM_TAIL_LOOK_EVERY 64u

static struct smx_cell *shm_peek(struct smx_shm *s, bool tail)
{
	struct smx_slot *sl = &s->h->slot[s->slot];

	for (;;) {
		uint64_t h = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
		struct smx_cell *c = &sl->cell[h & (SMX_SHM_CELLS - 1)];
		uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		uint32_t n;

		if (seq == h + 1) {
			/* a packet of more than one line: the rest too */
			__builtin_prefetch((const uint8_t *)c + 64, 0, 3);
			return c;
		}
		/* seq == h: free or reserved; else head moved meanwhile. */
		if (seq != h)
			return NULL;
		n = __atomic_load_n(&s->idle_peeks, __ATOMIC_RELAXED) + 1;
		__atomic_store_n(&s->idle_peeks, n, __ATOMIC_RELAXED);
		if (!tail && n % SHM_TAIL_LOOK_EVERY &&
		    !__atomic_load_n(&s->stuck_ns, __ATOMIC_RELAXED))
			return NULL;
		if (!shm_unstick(s, sl, h))
			return NULL;
	}
}

struct smx_cell *smx_shm_peek(struct smx_shm *s)
{
	return shm_peek(s, false);
}

void smx_shm_pop(struct smx_shm *s, uint64_t now_ns)
{
	struct smx_slot *sl = &s->h->slot[s->slot];
	uint64_t h = __atomic_load_n(&sl->head, __ATOMIC_RELAXED);
	struct smx_cell *c = &sl->cell[h & (SMX_SHM_CELLS - 1)];

	__atomic_store_n(&c->seq, h + SMX_SHM_CELLS, __ATOMIC_RELEASE);
	shm_advance(s, sl, h, now_ns ? now_ns : shm_now());
}

uint64_t smx_shm_skipped(const struct smx_shm *s)
{
	return s ? __atomic_load_n(&s->skipped, __ATOMIC_RELAXED) : 0;
}

/* Has an inbox we found full room now? Reported once per registration. */
static bool shm_room_came(struct smx_shm *s)
{
	uint64_t w = __atomic_load_n(&s->room_wanted, __ATOMIC_RELAXED), got = 0;

	while (w) {
		uint32_t i = (uint32_t)__builtin_ctzll(w);

		w &= w - 1;
		if (smx_shm_room(s, i))
			got |= 1ull << i;
	}
	if (got)
		__atomic_fetch_and(&s->room_wanted, ~got, __ATOMIC_RELAXED);
	return got != 0;
}

void smx_shm_wait(struct smx_shm *s, uint64_t timeout_ns, bool polled)
{
	struct smx_slot *sl = &s->h->slot[s->slot];
	/* Before looking at cells and rooms: a ring after this read changes
	 * the word, and the futex then does not sleep. */
	uint32_t v = __atomic_load_n(&sl->bell, __ATOMIC_ACQUIRE);
	struct timespec ts;

	__atomic_store_n(&sl->sleeping, polled ? SMX_SLEEP_POLLED : SMX_SLEEP_WAKE,
			 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if ((polled || (!shm_peek(s, true) &&
			!(s->pending && s->pending(s->pending_arg)))) &&
	    !shm_room_came(s)) {
		/* A head cell waiting for its producer: be back for the next
		 * look at it (shm_unstick()). */
		if (__atomic_load_n(&s->stuck_ns, __ATOMIC_RELAXED)) {
			uint64_t now = shm_now(), left,
				 next = __atomic_load_n(&s->next_scan_ns,
							__ATOMIC_RELAXED);

			left = next > now + SHM_PARK_MIN_NS ? next - now :
			       SHM_PARK_MIN_NS;
			if (left < timeout_ns)
				timeout_ns = left;
		}
		ts.tv_sec = (time_t)(timeout_ns / 1000000000ull);
		ts.tv_nsec = (long)(timeout_ns % 1000000000ull);
		shm_futex(&sl->bell, FUTEX_WAIT, v, &ts);
	}
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

void smx_shm_arrive(struct smx_shm *s, uint32_t slot)
{
	if (s && slot < SMX_SHM_SLOTS)
		shm_ring(&s->h->slot[slot], false);
}

void smx_shm_set_pending(struct smx_shm *s, bool (*fn)(void *), void *arg)
{
	s->pending_arg = arg;
	s->pending = fn;
}

bool smx_shm_status_asked(struct smx_shm *s, uint32_t *req)
{
	struct smx_slot *sl;

	if (!s)
		return false;
	sl = &s->h->slot[s->slot];
	*req = __atomic_load_n(&sl->status_req, __ATOMIC_ACQUIRE);
	return *req != __atomic_load_n(&sl->status_ack, __ATOMIC_RELAXED);
}

void smx_shm_status_answered(struct smx_shm *s, uint32_t req)
{
	__atomic_store_n(&s->h->slot[s->slot].status_ack, req, __ATOMIC_RELEASE);
}

void smx_shm_kick(struct smx_shm *s)
{
	if (!s)
		return;
	shm_bell(&s->h->slot[s->slot]);
}

void smx_shm_flush(struct smx_shm *s, uint64_t wait_ns)
{
	uint64_t t0 = shm_now(), now = t0, next_check = 0;
	uint32_t i;

	if (!s || s->pid != __atomic_load_n(&shm_self, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&s->prod);	/* no cell of ours half published */
	pthread_mutex_unlock(&s->prod);
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		struct smx_slot *sl = &s->h->slot[i];
		uint64_t want = __atomic_load_n(&s->sent_pos[i], __ATOMIC_RELAXED);
		uint64_t gen = __atomic_load_n(&s->sent_gen[i], __ATOMIC_RELAXED);
		bool rung = false;
		int32_t pid;

		if (!want || i == s->slot)
			continue;
		while (__atomic_load_n(&sl->head, __ATOMIC_ACQUIRE) < want &&
		       __atomic_load_n(&sl->gen, __ATOMIC_RELAXED) == gen &&
		       __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == SMX_SLOT_ALIVE &&
		       now - t0 < wait_ns) {
			/* The owner may be parked with our cells published
			 * quietly; then it must be running and not stopped
			 * (looked at once a millisecond). */
			if (!rung) {
				shm_ring(sl, true);
				rung = true;
			}
			if (now >= next_check) {
				if (!smx_shm_alive(s, i, &pid) || !shm_holder_runs(s, i) ||
				    smx_shm_stopped(pid))
					break;
				next_check = now + SHM_LIVE_CHECK_NS;
			}
			sched_yield();
			now = shm_now();
		}
	}
}

bool smx_shm_stopped(int32_t pid)
{
	uint64_t start;
	char st;

	return pid > 0 && smx_shm_proc_stat(pid, &st, &start) &&
	       (st == 'T' || st == 't');
}

bool smx_shm_stalled(struct smx_shm *s, uint32_t slot, uint64_t since_ns)
{
	struct smx_slot *sl;
	uint64_t h, t, at;
	int32_t pid;

	if (!smx_shm_alive(s, slot, &pid) || !shm_holder_runs(s, slot))
		return false;
	if (smx_shm_stopped(pid))
		return true;
	sl = &s->h->slot[slot];
	/* head_ns is written before head: it is at least this head's. */
	h = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
	at = __atomic_load_n(&sl->head_ns, __ATOMIC_RELAXED);
	t = __atomic_load_n(&sl->tail, __ATOMIC_ACQUIRE);
	return t != h && at < since_ns;
}

/* ------------------------------------------------------------------ */
/* Tombstones of destroyed QPs                                        */
/* ------------------------------------------------------------------ */

static uint64_t tomb_make(uint64_t gen, uint32_t qpn, uint32_t epsn)
{
	return SMX_TOMB_VALID |
	       (gen & SMX_TOMB_GEN_MASK) << SMX_TOMB_GEN_SHIFT |
	       (uint64_t)(qpn & 0xffffff) << 24 | (epsn & 0xffffff);
}

/* Does tombstone @t name QP @qpn of claim @gen? */
static bool tomb_is(uint64_t t, uint64_t gen, uint32_t qpn)
{
	return (t & SMX_TOMB_VALID) &&
	       ((t >> SMX_TOMB_GEN_SHIFT) & SMX_TOMB_GEN_MASK) ==
	       (gen & SMX_TOMB_GEN_MASK) &&
	       ((t >> 24) & 0xffffff) == (qpn & 0xffffff);
}

void smx_shm_tomb_clear(struct smx_shm *s, uint32_t qpn)
{
	struct smx_slot *sl;
	uint32_t i;

	if (!s)
		return;
	sl = &s->h->slot[s->slot];
	for (i = 0; i < SMX_SHM_TOMBS; i++) {
		uint64_t t = __atomic_load_n(&sl->tomb[i], __ATOMIC_RELAXED);

		if (tomb_is(t, s->gen, qpn))
			__atomic_store_n(&sl->tomb[i], 0, __ATOMIC_RELEASE);
	}
}

void smx_shm_tomb_put(struct smx_shm *s, uint32_t qpn, uint32_t epsn)
{
	struct smx_slot *sl;

	if (!s)
		return;
	smx_shm_tomb_clear(s, qpn);
	sl = &s->h->slot[s->slot];
	__atomic_store_n(&sl->tomb[sl->tomb_next++ % SMX_SHM_TOMBS],
			 tomb_make(s->gen, qpn, epsn), __ATOMIC_RELEASE);
}

bool smx_shm_tomb(struct smx_shm *s, uint32_t slot, uint64_t gen,
		  uint32_t qpn, uint32_t *epsn)
{
	struct smx_slot *sl;
	uint32_t i;

	if (!s || slot >= SMX_SHM_SLOTS)
		return false;
	sl = &s->h->slot[slot];
	for (i = 0; i < SMX_SHM_TOMBS; i++) {
		uint64_t t = __atomic_load_n(&sl->tomb[i], __ATOMIC_ACQUIRE);

		if (tomb_is(t, gen, qpn)) {
			*epsn = t & 0xffffff;
			return true;
		}
	}
	return false;
}

uint64_t smx_shm_slot_gen(struct smx_shm *s, uint32_t slot)
{
	if (!s || slot >= SMX_SHM_SLOTS)
		return 0;
	return __atomic_load_n(&s->h->slot[slot].gen, __ATOMIC_ACQUIRE);
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
