/* SPDX-License-Identifier: MIT */
/*
 * The parts of the shared segment that need no attachment: where it is,
 * whether a slot's holder is alive, and the port counters summed over the
 * live slots, read through a read-only mapping.
 *
 * libc only (no softmlx5 logging, no device): besides the device library,
 * the CLI and the preloaded sysfs view (src/run/devnode.c) compile this
 * file in, so that all three find the same segment and judge liveness
 * the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "device/fabric/shm.h"
#include "device/fabric/shm_layout.h"

bool smx_shm_proc_stat(int32_t pid, char *state, uint64_t *start)
{
	char path[64], buf[1024];
	unsigned long long v = 0;
	const char *p;
	ssize_t n;
	int fd, field;

	*state = 0;
	*start = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* "pid (comm) state ...": comm may hold spaces and parentheses, so
	 * count from the last ')'; field 3 (state) follows it and a space. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return false;
	p += 2;
	*state = *p;
	for (field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return true;
		p++;
	}
	if (sscanf(p, "%llu", &v) == 1)
		*start = v;
	return true;
}

uint64_t smx_shm_start_time(int32_t pid)
{
	uint64_t start;
	char state;

	return smx_shm_proc_stat(pid, &state, &start) ? start : 0;
}

uint64_t smx_shm_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/*
 * "-<inode of /proc/self/ns/net>", or "" when it cannot be read (no /proc):
 * processes of one user in different network namespaces are different
 * hosts, so the default segment is one per user and network namespace.
 */
static const char *shm_netns_suffix(char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st) != 0)
		return "";
	snprintf(buf, len, "-%llu", (unsigned long long)st.st_ino);
	return buf;
}

const char *smx_shm_default_path(char *buf, size_t len)
{
	const char *p = getenv("SOFTMLX5_SHM_PATH");
	char ns[24];
	struct stat st;
	int n;

	if (p && (!strcmp(p, "off") || !strcmp(p, "none"))) {
		errno = ENODEV;
		return NULL;
	}
	if (p && *p) {
		n = snprintf(buf, len, "%s", p);
	} else if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)) {
		n = snprintf(buf, len, "/dev/shm/softmlx5-%u%s",
			     (unsigned int)getuid(),
			     shm_netns_suffix(ns, sizeof(ns)));
	} else {
		p = getenv("XDG_RUNTIME_DIR");
		if (!p || p[0] != '/') {
			errno = ENOENT;
			return NULL;
		}
		n = snprintf(buf, len, "%s/softmlx5-shm%s", p,
			     shm_netns_suffix(ns, sizeof(ns)));
	}
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return buf;
}

/* Does another process hold slot @i's record lock? (Our own locks never
 * show; F_GETLK works on a read-only descriptor.) */
static bool slot_locked(int fd, uint32_t i)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = (off_t)i, .l_len = 1 };

	if (fcntl(fd, F_GETLK, &fl) != 0)
		return true;	/* cannot tell: do not take it away */
	return fl.l_type != F_UNLCK;
}

bool smx_shm_slot_held(const struct smx_shm_hdr *h, int fd, uint32_t i,
		       uint64_t pidns, int32_t *pidp)
{
	const struct smx_slot *sl = &h->slot[i];
	int32_t pid = __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE);
	uint64_t st;

	if (pidp)
		*pidp = pid;
	if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SMX_SLOT_ALIVE ||
	    pid <= 0)
		return false;
	/* Another namespace: its pid is not ours to look up; the lock says. */
	if (__atomic_load_n(&sl->pidns, __ATOMIC_ACQUIRE) != pidns)
		return slot_locked(fd, i);
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return false;
	st = smx_shm_start_time(pid);
	return !st || st == sl->start_time;
}

bool smx_shm_slot_alive(const struct smx_shm_hdr *h, int fd, uint32_t i,
			uint64_t pidns, int32_t *pidp)
{
	if (i >= SMX_SHM_SLOTS)
		return false;
	if (__atomic_load_n(&h->slot[i].pidns, __ATOMIC_ACQUIRE) != pidns) {
		if (pidp)
			*pidp = 0;	/* not a pid of ours: never used */
		return false;
	}
	return smx_shm_slot_held(h, fd, i, pidns, pidp);
}

/*
 * The segment at @path mapped without attaching (@writable: for the status
 * request words only), after the checks every reader makes: a regular file
 * of ours, of this layout's size (else a creator still allocating, or
 * another layout: -ESTALE), its magic and layout. 0 with *hp and *fdp (the
 * caller unmaps and closes), or -errno.
 */
static int shm_ro_map(const char *path, bool writable, struct smx_shm_hdr **hp,
		      int *fdp)
{
	struct smx_shm_hdr *h;
	struct stat st;
	int fd, ret;

	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (st.st_uid != getuid()) {
		close(fd);
		return -EPERM;
	}
	if ((size_t)st.st_size != SMX_SHM_SIZE) {
		close(fd);
		return -ESTALE;
	}
	h = mmap(NULL, SMX_SHM_SIZE, PROT_READ | (writable ? PROT_WRITE : 0),
		 MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != SMX_SHM_MAGIC ||
	    h->version != SMX_SHM_VERSION || h->nslots != SMX_SHM_SLOTS ||
	    h->size != SMX_SHM_SIZE) {
		munmap(h, SMX_SHM_SIZE);
		close(fd);
		return -ESTALE;
	}
	*hp = h;
	*fdp = fd;
	return 0;
}

int smx_shm_counters_read(const char *path, uint64_t out[TRN_CTR_NUM],
			  uint32_t *nlive)
{
	char buf[256];
	struct smx_shm_hdr *h;
	uint64_t pidns = smx_shm_pidns();
	uint32_t i, j, live = 0;
	int fd, ret;

	memset(out, 0, sizeof(uint64_t) * TRN_CTR_NUM);
	if (nlive)
		*nlive = 0;
	if (!path && !(path = smx_shm_default_path(buf, sizeof(buf))))
		return errno == ENODEV ? -ENODEV : -ENOENT;
	ret = shm_ro_map(path, false, &h, &fd);
	if (ret)
		return ret;
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		if (!smx_shm_slot_alive(h, fd, i, pidns, NULL))
			continue;
		live++;
		for (j = 0; j < TRN_CTR_NUM; j++)
			out[j] += __atomic_load_n(&h->slot[i].ctr[j],
						  __ATOMIC_RELAXED);
	}
	if (nlive)
		*nlive = live;
	munmap(h, SMX_SHM_SIZE);
	close(fd);
	return 0;
}

int smx_shm_status_ask(const char *path, uint32_t wait_ms, long only,
		       uint64_t *asked, uint64_t *answered,
		       int32_t pids[SMX_SHM_SLOTS])
{
	uint32_t want[SMX_SHM_SLOTS], i, t;
	uint64_t pidns = smx_shm_pidns();
	struct smx_shm_hdr *h;
	int fd, ret;

	*asked = *answered = 0;
	ret = shm_ro_map(path, true, &h, &fd);
	if (ret)
		return ret;
	/* Only the request word and the bell are written: the holder's own
	 * state is its to change. */
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		struct smx_slot *sl = &h->slot[i];

		if (!smx_shm_slot_alive(h, fd, i, pidns, &pids[i]) ||
		    (only && pids[i] != only))
			continue;
		*asked |= 1ull << i;
		want[i] = __atomic_add_fetch(&sl->status_req, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&sl->bell, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &sl->bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
	for (t = 0; t <= wait_ms && *answered != *asked; t++) {
		for (i = 0; i < SMX_SHM_SLOTS; i++)
			if ((*asked >> i & 1) &&
			    (int32_t)(__atomic_load_n(&h->slot[i].status_ack,
						      __ATOMIC_ACQUIRE) -
				      want[i]) >= 0)
				*answered |= 1ull << i;
		if (*answered != *asked)
			usleep(1000);
	}
	munmap(h, SMX_SHM_SIZE);
	close(fd);
	return 0;
}
