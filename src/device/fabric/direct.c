/* SPDX-License-Identifier: MIT */
/*
 * memfd re-backing of registered memory (direct.h).
 *
 * Registration: memfd_create + ftruncate + fallocate to the page-rounded
 * range (out of memory is a clean refusal here, never a SIGBUS later), map
 * it at a scratch address, then -- with every other thread parked
 * (smx_freeze) -- check the range is still private anonymous memory, copy
 * its bytes in and move the scratch mapping over the original addresses
 * with one mremap(MAYMOVE | FIXED). A parked thread makes no store and has
 * no system call in progress, and our own device threads are parked too,
 * so nothing can write the old pages between the copy and the move: no
 * store is lost. Whole pages move, neighbours included; their bytes are
 * kept.
 *
 * Deregistration (the last registration of a region): the same switch
 * backwards -- private anonymous pages with the memfd's bytes -- then the
 * memfd is closed, so nothing of the registration remains. Pieces the
 * application unmapped meanwhile stay unmapped; a memfd whose pages the
 * application no longer maps is simply closed.
 *
 * fork() (the device's pthread_atfork handlers call ours, after taking
 * the firmware locks): the prepare handler makes every record peers hold stale
 * (@suspend), parks the threads, switches each region back to private
 * pages (as at deregistration, keeping the memfd) and lets the threads go;
 * fork() then gives the child an ordinary copy-on-write view of exactly
 * what the parent had at that instant. The parent handler switches the
 * regions to their memfds again, the same way as a registration. Peers
 * cannot write the memfds meanwhile: their records are stale and new ones
 * are made under direct_lock, which the fork holds. Where the threads
 * cannot be parked, the regions stay shared through fork() and the child
 * copies them into private pages in its handler (it has one thread then);
 * it may then see stores the parent made after fork() began.
 *
 * Anything that cannot be parked, or any doubt about what a range is,
 * leaves the memory as it is: the registration works, through the inbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "device/fabric/direct.h"
#include "device/fabric/freeze.h"
#include "util/log.h"

#define DIRECT_MAX_REGIONS 256
#define DIRECT_NAME "softmlx5-mr"
#define DIRECT_MAX_PIECES 32

struct region {
	uint64_t va, len;
	uint64_t ino;		/* the handle registrations hold */
	int fd;
	unsigned int refs;	/* registrations alive over it */
};

static pthread_mutex_t direct_lock = PTHREAD_MUTEX_INITIALIZER;
static struct region regions[DIRECT_MAX_REGIONS];
static unsigned int nregions;
static bool direct_on;
static void (*direct_suspend)(void *);
static void *direct_suspend_arg;

void smx_direct_enable(bool on, void (*suspend)(void *), void *arg)
{
	pthread_mutex_lock(&direct_lock);
	direct_suspend = on ? suspend : NULL;
	direct_suspend_arg = on ? arg : NULL;
	__atomic_store_n(&direct_on, on, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&direct_lock);
}

bool smx_direct_enabled(void)
{
	return __atomic_load_n(&direct_on, __ATOMIC_ACQUIRE);
}

/* ------------------------------------------------------------------ */
/* Mapping calls, made as raw system calls: memory hooks that watch    */
/* libc's mmap family (UCX's UCM, for one) must not take our switches,  */
/* which leave the application's view as it was, for its own unmaps.   */
/* ------------------------------------------------------------------ */

static void *vm_map(size_t n, int prot, int flags, int fd)
{
	long r = syscall(SYS_mmap, NULL, n, prot, flags, fd, 0L);

	return r < 0 && r > -4096 ? MAP_FAILED : (void *)r;
}

static void vm_unmap(void *p, size_t n)
{
	syscall(SYS_munmap, p, n);
}

static bool vm_protect(void *p, size_t n, int prot)
{
	return syscall(SYS_mprotect, p, n, prot) == 0;
}

/* @from's pages replace [to, to + n) in one step. */
static bool vm_move(void *from, size_t n, uint64_t to)
{
	return syscall(SYS_mremap, from, n, n, MREMAP_MAYMOVE | MREMAP_FIXED,
		       (void *)(uintptr_t)to) != -1;
}

/* ------------------------------------------------------------------ */
/* What maps an address range (/proc/self/maps, without allocating:   */
/* it is read with other threads parked)                              */
/* ------------------------------------------------------------------ */

struct vma {
	uint64_t lo, hi, ino;
	char perm[5];
	const char *path;
};

static uint64_t hex_parse(const char **p)
{
	uint64_t v = 0;

	for (;; (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

static bool vma_parse(char *line, struct vma *v)
{
	const char *p = line;
	int i;

	v->lo = hex_parse(&p);
	if (*p++ != '-')
		return false;
	v->hi = hex_parse(&p);
	if (*p++ != ' ')
		return false;
	for (i = 0; i < 4 && *p; i++)
		v->perm[i] = *p++;
	v->perm[4] = 0;
	/* offset, device */
	for (i = 0; i < 2; i++) {
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
	}
	while (*p == ' ')
		p++;
	v->ino = 0;
	while (*p >= '0' && *p <= '9')
		v->ino = v->ino * 10 + (uint64_t)(*p++ - '0');
	while (*p == ' ')
		p++;
	v->path = p;
	return v->hi > v->lo;
}

/*
 * Calls @fn for each mapping that overlaps [lo, hi), in address order,
 * until it returns false or (unless @holes) a hole is met. True when
 * [lo, hi) has no hole and @fn never said stop.
 */
static bool maps_walk(uint64_t lo, uint64_t hi, bool holes,
		      bool (*fn)(const struct vma *, void *), void *arg)
{
	static char buf[16384];
	size_t have = 0;
	uint64_t at = lo;
	bool go = true, hole = false, end = false;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (go && !end && at < hi &&
	       (n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += (size_t)n;
		buf[have] = 0;
		while (go && at < hi && (nl = strchr(line, '\n'))) {
			struct vma v;

			*nl = 0;
			if (vma_parse(line, &v) && v.hi > at) {
				if (v.lo >= hi) {	/* ends in a hole */
					hole = end = true;
					break;
				}
				if (v.lo > at) {	/* a hole */
					hole = true;
					if (!holes) {
						go = false;
						break;
					}
				}
				go = fn(&v, arg);
				at = v.hi;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* no line is that long */
	}
	close(fd);
	if (at < hi)
		hole = true;
	return go && !hole;
}

static bool vma_ours(const struct vma *v)
{
	static const char name[] = "/memfd:" DIRECT_NAME;

	return v->perm[3] == 's' && v->ino &&
	       !strncmp(v->path, name, sizeof(name) - 1);
}

static bool vma_anon(const struct vma *v)
{
	return !strcmp(v->perm, "rw-p") && !v->ino &&
	       (!v->path[0] || !strcmp(v->path, "[heap]"));
}

enum cover { COVER_NONE, COVER_ANON, COVER_OURS, COVER_OTHER };

struct cover_walk {
	enum cover c;
	uint64_t ino;
};

static bool cover_fn(const struct vma *v, void *arg)
{
	struct cover_walk *w = arg;
	enum cover k = vma_anon(v) ? COVER_ANON :
		       vma_ours(v) && !strcmp(v->perm, "rw-s") ? COVER_OURS :
		       COVER_OTHER;

	if (k == COVER_OURS && w->c == COVER_OURS && w->ino != v->ino)
		k = COVER_OTHER;
	if (k == COVER_OURS)
		w->ino = v->ino;
	if (w->c != COVER_NONE && w->c != k)
		k = COVER_OTHER;
	w->c = k;
	return k != COVER_OTHER;
}

/*
 * What maps [lo, hi): only private anonymous read-write memory (heap
 * included: COVER_ANON), only our memfd of inode *@ino (COVER_OURS), or
 * anything else / holes (COVER_OTHER).
 */
static enum cover direct_cover(uint64_t lo, uint64_t hi, uint64_t *ino)
{
	struct cover_walk w = { COVER_NONE, 0 };

	if (!maps_walk(lo, hi, false, cover_fn, &w))
		return COVER_OTHER;
	*ino = w.ino;
	return w.c;
}

/* ------------------------------------------------------------------ */
/* Switching pages (callers hold direct_lock and have parked the other */
/* threads, or are the only thread)                                    */
/* ------------------------------------------------------------------ */

/*
 * Copies whole pages of the process's own memory. The pages hold other
 * objects too (the neighbours of the registered buffer, which re-backing must
 * keep), so a sanitizer's view of "this object's bytes" does not apply: the
 * copy is word by word, outside AddressSanitizer's instrumentation.
 */
__attribute__((no_sanitize("address")))
static void pages_copy(void *dst, const void *src, size_t n)
{
	volatile const uint64_t *s = src;
	uint64_t *d = dst;
	size_t i;

	for (i = 0; i < n / sizeof(*d); i++)
		d[i] = s[i];
}

/* @tmp (a scratch mapping of @n bytes) takes @lo's place and bytes. */
static bool pages_move(void *tmp, uint64_t lo, size_t n, int prot)
{
	pages_copy(tmp, (const void *)(uintptr_t)lo, n);
	if (prot != (PROT_READ | PROT_WRITE) && !vm_protect(tmp, n, prot))
		return false;
	return vm_move(tmp, n, lo);
}

struct piece {
	uint64_t lo, hi;
	int prot;
};

struct pieces_walk {
	uint64_t ino;
	struct piece p[DIRECT_MAX_PIECES];
	unsigned int n;
};

static bool pieces_fn(const struct vma *v, void *arg)
{
	struct pieces_walk *w = arg;

	if (!vma_ours(v) || v->ino != w->ino)
		return true;
	if (w->n == DIRECT_MAX_PIECES)
		return false;
	w->p[w->n].lo = v->lo;
	w->p[w->n].hi = v->hi;
	w->p[w->n].prot = (v->perm[0] == 'r' ? PROT_READ : 0) |
			  (v->perm[1] == 'w' ? PROT_WRITE : 0) |
			  (v->perm[2] == 'x' ? PROT_EXEC : 0);
	w->n++;
	return true;
}

/*
 * Private anonymous pages with the memfd's bytes wherever [va, va + len)
 * is still mapped from region inode @ino, with the mapping's protection.
 */
static bool region_unback(uint64_t va, uint64_t len, uint64_t ino)
{
	struct pieces_walk w;
	unsigned int i, rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		memset(&w, 0, sizeof(w));
		w.ino = ino;
		maps_walk(va, va + len, true, pieces_fn, &w);
		if (!w.n)
			return true;
		for (i = 0; i < w.n; i++) {
			struct piece *p = &w.p[i];
			size_t n;
			void *tmp;

			if (p->lo < va)
				p->lo = va;
			if (p->hi > va + len)
				p->hi = va + len;
			if (p->hi <= p->lo)
				continue;
			n = p->hi - p->lo;
			if (!(p->prot & PROT_READ) &&
			    !vm_protect((void *)(uintptr_t)p->lo, n,
					p->prot | PROT_READ))
				return false;
			tmp = vm_map(n, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1);
			if (tmp == MAP_FAILED)
				return false;
			if (!pages_move(tmp, p->lo, n, p->prot)) {
				vm_unmap(tmp, n);
				return false;
			}
		}
	}
	return false;
}

/* The memfd @fd (of inode @ino) takes [va, va + len)'s place and bytes,
 * if that range is wholly private anonymous memory. */
static bool region_back(uint64_t va, uint64_t len, int fd)
{
	uint64_t ino;
	void *tmp;

	if (direct_cover(va, va + len, &ino) != COVER_ANON)
		return false;
	tmp = vm_map(len, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	if (tmp == MAP_FAILED)
		return false;
	if (!pages_move(tmp, va, len, PROT_READ | PROT_WRITE)) {
		vm_unmap(tmp, len);
		return false;
	}
	return true;
}

static void region_drop(unsigned int i)
{
	if (regions[i].fd >= 0)
		close(regions[i].fd);
	regions[i] = regions[--nregions];
}

/* ------------------------------------------------------------------ */
/* fork()                                                             */
/* ------------------------------------------------------------------ */

static enum { FK_NONE, FK_PRIVATE, FK_SHARED } fork_mode;

void smx_direct_fork_prepare(void)
{
	unsigned int i;

	pthread_mutex_lock(&direct_lock);
	fork_mode = FK_NONE;
	if (!nregions)
		return;
	if (direct_suspend)
		direct_suspend(direct_suspend_arg);
	if (smx_freeze()) {
		smx_dbg("direct: threads cannot be parked for fork(); the "
			"child copies %u registered regions itself", nregions);
		fork_mode = FK_SHARED;
		return;
	}
	for (i = 0; i < nregions; i++)
		if (!region_unback(regions[i].va, regions[i].len,
				   regions[i].ino))
			smx_dbg("direct: region [0x%llx,+0x%llx) stays shared "
				"through fork()",
				(unsigned long long)regions[i].va,
				(unsigned long long)regions[i].len);
	smx_thaw();
	fork_mode = FK_PRIVATE;
}

void smx_direct_fork_parent(void)
{
	unsigned int i;

	if (fork_mode == FK_PRIVATE) {
		bool parked = smx_freeze() == 0;

		for (i = 0; i < nregions;) {
			if (parked && regions[i].fd >= 0 &&
			    region_back(regions[i].va, regions[i].len,
					regions[i].fd)) {
				i++;
				continue;
			}
			/* Left private: its registrations use the inbox. */
			smx_dbg("direct: region [0x%llx,+0x%llx) stays private "
				"after fork()",
				(unsigned long long)regions[i].va,
				(unsigned long long)regions[i].len);
			region_drop(i);
		}
		if (parked)
			smx_thaw();
	}
	fork_mode = FK_NONE;
	pthread_mutex_unlock(&direct_lock);
}

void smx_direct_fork_child(void)
{
	smx_freeze_reset_child();
	while (nregions) {
		struct region *r = &regions[nregions - 1];

		/* One thread here: nothing to park. */
		if (fork_mode == FK_SHARED)
			region_unback(r->va, r->len, r->ino);
		region_drop(nregions - 1);
	}
	fork_mode = FK_NONE;
	pthread_mutex_unlock(&direct_lock);
}

/* ------------------------------------------------------------------ */
/* Registration                                                       */
/* ------------------------------------------------------------------ */

static struct region *region_of(uint64_t ino)
{
	unsigned int i;

	for (i = 0; i < nregions; i++)
		if (regions[i].ino == ino)
			return &regions[i];
	return NULL;
}

uint64_t smx_direct_back(void *addr, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t lo, hi, n, ino = 0, h = 0;
	struct region *r;
	struct stat st;
	int fd, err;

	if (!smx_direct_enabled() || !addr || !len || pg <= 0)
		return 0;
	lo = (uint64_t)(uintptr_t)addr & ~((uint64_t)pg - 1);
	hi = ((uint64_t)(uintptr_t)addr + len + (uint64_t)pg - 1) &
	     ~((uint64_t)pg - 1);
	if (hi <= lo)
		return 0;
	n = hi - lo;
	pthread_mutex_lock(&direct_lock);
	switch (direct_cover(lo, hi, &ino)) {
	case COVER_OURS:	/* inside a region alive: one more hold */
		r = region_of(ino);
		if (r && r->fd >= 0 && r->va <= lo && hi - r->va <= r->len) {
			r->refs++;
			h = ino;
		}
		goto out;
	case COVER_ANON:
		break;
	default:
		goto out;
	}
	if (nregions >= DIRECT_MAX_REGIONS)
		goto out;
	fd = memfd_create(DIRECT_NAME, MFD_CLOEXEC);
	if (fd < 0)
		goto out;
	err = ftruncate(fd, (off_t)n) ? errno : posix_fallocate(fd, 0, (off_t)n);
	if (err || fstat(fd, &st)) {
		smx_dbg("direct: no %llu bytes of shared memory for "
			"[0x%llx,+0x%llx): %s; it keeps the inbox",
			(unsigned long long)n, (unsigned long long)lo,
			(unsigned long long)n, strerror(err ? err : errno));
		close(fd);
		goto out;
	}
	if (smx_freeze()) {
		smx_dbg("direct: [0x%llx,+0x%llx) not re-backed: the process's "
			"threads cannot be parked; it keeps the inbox",
			(unsigned long long)lo, (unsigned long long)n);
		close(fd);
		goto out;
	}
	/* Looked at again with the threads parked: they may have changed
	 * the mapping since. */
	if (!region_back(lo, n, fd)) {
		smx_thaw();
		smx_dbg("direct: cannot re-back [0x%llx,+0x%llx); it keeps the "
			"inbox", (unsigned long long)lo, (unsigned long long)n);
		close(fd);
		goto out;
	}
	smx_thaw();
	r = &regions[nregions++];
	r->va = lo;
	r->len = n;
	r->fd = fd;
	r->ino = (uint64_t)st.st_ino;
	r->refs = 1;
	h = r->ino;
out:
	pthread_mutex_unlock(&direct_lock);
	return h;
}

/* Gives region @i's pages back as private memory and forgets it. */
static void region_release(unsigned int i, bool parked)
{
	struct region *r = &regions[i];

	if (!parked || !region_unback(r->va, r->len, r->ino))
		/* Still mapped shared: the application's memory now, as
		 * it is (the memfd itself is closed below). */
		smx_dbg("direct: [0x%llx,+0x%llx) could not be made private "
			"again", (unsigned long long)r->va,
			(unsigned long long)r->len);
	region_drop(i);
}

void smx_direct_release(uint64_t h)
{
	struct region *r;

	if (!h)
		return;
	pthread_mutex_lock(&direct_lock);
	r = region_of(h);
	if (r && !--r->refs) {
		bool parked = smx_freeze() == 0;

		region_release((unsigned int)(r - regions), parked);
		if (parked)
			smx_thaw();
	}
	pthread_mutex_unlock(&direct_lock);
}

void smx_direct_release_all(void)
{
	bool parked;

	pthread_mutex_lock(&direct_lock);
	if (nregions) {
		parked = smx_freeze() == 0;
		while (nregions)
			region_release(nregions - 1, parked);
		if (parked)
			smx_thaw();
	}
	pthread_mutex_unlock(&direct_lock);
}

bool smx_direct_find(uint64_t addr, uint64_t len, int *fd, uint64_t *ino,
		     uint64_t *rva, uint64_t *rlen)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned int i;
	bool ok = false;

	if (pg <= 0 || !len)
		return false;
	pthread_mutex_lock(&direct_lock);
	for (i = 0; i < nregions && !ok; i++) {
		const struct region *r = &regions[i];
		uint64_t lo = addr & ~((uint64_t)pg - 1), mapped = 0;

		if (r->fd < 0 || addr < r->va || addr - r->va > r->len ||
		    len > r->len - (addr - r->va))
			continue;
		/* Still our memfd at those addresses? Memory unmapped and
		 * mapped again since is not ours. */
		if (direct_cover(lo, (addr + len + (uint64_t)pg - 1) &
				 ~((uint64_t)pg - 1), &mapped) != COVER_OURS ||
		    mapped != r->ino)
			continue;
		*fd = r->fd;
		*ino = r->ino;
		*rva = r->va;
		*rlen = r->len;
		ok = true;
	}
	pthread_mutex_unlock(&direct_lock);
	return ok;
}
