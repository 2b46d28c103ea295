/* SPDX-License-Identifier: MIT */
/*
 * memfd re-backing of registered memory (direct.h).
 *
 * Recipe (notes: fast-paths): memfd_create + ftruncate to the page-rounded
 * range, map it at a scratch address, copy the current bytes in, then move
 * the scratch mapping over the original addresses with one mremap(MAYMOVE |
 * FIXED), which replaces the old pages atomically: other threads see either
 * the old or the new page, never a hole. A store another thread makes to
 * the range between the copy and the move is lost; registering memory that
 * another thread is writing at that moment is the one caveat (documented in
 * docs/multiprocess.md; SOFTMLX5_DIRECT=0 turns re-backing off).
 *
 * Whole pages move, neighbours included; their bytes are kept. The memfd
 * stays open for the life of the process (a peer opens it through
 * /proc/<pid>/fd), at most DIRECT_MAX_REGIONS of them; a region whose
 * addresses were unmapped and mapped again by the application is noticed
 * at the next registration (its mapping is no longer our memfd) and dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/fabric/direct.h"
#include "util/log.h"

#define DIRECT_MAX_REGIONS 256
#define DIRECT_NAME "softmlx5-mr"

struct region {
	uint64_t va, len;
	int fd;
	uint64_t ino;
};

static pthread_mutex_t direct_lock = PTHREAD_MUTEX_INITIALIZER;
static struct region regions[DIRECT_MAX_REGIONS];
static unsigned int nregions;
static bool direct_on;

void smx_direct_enable(bool on)
{
	__atomic_store_n(&direct_on, on, __ATOMIC_RELEASE);
}

bool smx_direct_enabled(void)
{
	return __atomic_load_n(&direct_on, __ATOMIC_ACQUIRE);
}

enum cover { COVER_NONE, COVER_ANON, COVER_OURS, COVER_OTHER };

/*
 * What maps [lo, hi): only private anonymous read-write memory (heap
 * included: COVER_ANON), only our memfd of inode @ino (COVER_OURS), or
 * anything else / holes (COVER_OTHER).
 */
static enum cover direct_cover(uint64_t lo, uint64_t hi, uint64_t *ino)
{
	char line[512];
	uint64_t at = lo;
	enum cover c = COVER_NONE;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return COVER_OTHER;
	while (at < hi && fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off, inode;
		char perm[8], dev[32], path[256] = "";
		enum cover k;
		int n = sscanf(line, "%llx-%llx %7s %llx %31s %llu %255[^\n]", &a,
			       &b, perm, &off, dev, &inode, path);

		if (n < 6)
			continue;
		if (b <= at)
			continue;
		if (a > at) {
			c = COVER_OTHER;	/* a hole */
			break;
		}
		{
			char *p = path;

			while (*p == ' ')
				p++;
			memmove(path, p, strlen(p) + 1);
		}
		if (!strcmp(perm, "rw-p") && !inode &&
		    (!path[0] || !strcmp(path, "[heap]")))
			k = COVER_ANON;
		else if (!strcmp(perm, "rw-s") && inode &&
			 !strncmp(path, "/memfd:" DIRECT_NAME, 7 + strlen(DIRECT_NAME)))
			k = COVER_OURS;
		else
			k = COVER_OTHER;
		if (k == COVER_OURS) {
			if (c == COVER_OURS && *ino != inode)
				k = COVER_OTHER;
			*ino = inode;
		}
		if (c != COVER_NONE && c != k)
			k = COVER_OTHER;
		c = k;
		if (c == COVER_OTHER)
			break;
		at = b;
	}
	fclose(f);
	return at >= hi ? c : COVER_OTHER;
}

static void region_drop(unsigned int i)
{
	close(regions[i].fd);
	regions[i] = regions[--nregions];
}

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

bool smx_direct_back(void *addr, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t lo, hi, n, ino = 0;
	enum cover c;
	struct stat st;
	unsigned int i;
	bool ok = false;
	void *tmp;
	int fd;

	if (!smx_direct_enabled() || !addr || !len || pg <= 0)
		return false;
	lo = (uint64_t)(uintptr_t)addr & ~((uint64_t)pg - 1);
	hi = ((uint64_t)(uintptr_t)addr + len + (uint64_t)pg - 1) &
	     ~((uint64_t)pg - 1);
	if (hi <= lo)
		return false;
	n = hi - lo;
	pthread_mutex_lock(&direct_lock);
	c = direct_cover(lo, hi, &ino);
	switch (c) {
	case COVER_OURS:
		for (i = 0; i < nregions; i++)
			if (regions[i].ino == ino && regions[i].va <= lo &&
			    hi - regions[i].va <= regions[i].len)
				ok = true;
		goto out;
	default:
		break;
	}
	/* Regions overlapping memory that is not (only) our memfd were
	 * unmapped since: forget them. */
	for (i = 0; i < nregions;)
		if (regions[i].va < hi && lo < regions[i].va + regions[i].len)
			region_drop(i);
		else
			i++;
	if (c != COVER_ANON)
		goto out;
	if (nregions >= DIRECT_MAX_REGIONS)
		goto out;
	fd = memfd_create(DIRECT_NAME, MFD_CLOEXEC);
	if (fd < 0)
		goto out;
	if (ftruncate(fd, (off_t)n) || fstat(fd, &st)) {
		close(fd);
		goto out;
	}
	tmp = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (tmp == MAP_FAILED) {
		close(fd);
		goto out;
	}
	pages_copy(tmp, (const void *)(uintptr_t)lo, n);
	if (mremap(tmp, n, n, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)(uintptr_t)lo) == MAP_FAILED) {
		smx_dbg("direct: cannot re-back [0x%llx,+0x%llx): %s",
			(unsigned long long)lo, (unsigned long long)n,
			strerror(errno));
		munmap(tmp, n);
		close(fd);
		goto out;
	}
	madvise((void *)(uintptr_t)lo, n, MADV_DONTFORK);
	regions[nregions].va = lo;
	regions[nregions].len = n;
	regions[nregions].fd = fd;
	regions[nregions].ino = (uint64_t)st.st_ino;
	nregions++;
	ok = true;
out:
	pthread_mutex_unlock(&direct_lock);
	return ok;
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

		if (addr < r->va || addr - r->va > r->len ||
		    len > r->len - (addr - r->va))
			continue;
		/* Still our memfd at those addresses? Memory unmapped and
		 * mapped again since (then registered by another path than
		 * reg_mr, e.g. DEVX or a re-registration) is not ours. */
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
