/* SPDX-License-Identifier: MIT */
/*
 * libsoftmlx5_devnode.so: what `softmlx5 run` preloads so that programs
 * which look for the kernel's files before they use libibverbs find the
 * software device, without root and without a kernel module. UCX is the
 * case in point: it skips a device unless /dev/infiniband/uverbs0 is a
 * read/write character device, and it turns on its mlx5 transports
 * (rc_mlx5, dc_mlx5, ud_mlx5) only for a Mellanox PCI function, which it
 * finds through sysfs.
 *
 * The view has two parts; every other path goes to libc untouched.
 *
 *  - The device node (/dev/infiniband/uverbs0): the status and access calls
 *    (stat, lstat, fstatat, statx, access, faccessat) report what /dev/null
 *    reports. Opening it still fails with ENOENT: softmlx5's libibverbs never
 *    opens it, and a program that does would find no kernel behind it.
 *  - sysfs: realpath() of /sys/class/infiniband/<dev> gives
 *    <pci>/infiniband/<dev>, <pci> being /sys/devices/softmlx5/0000:ff:00.0
 *    (bus 0xff: no real function has it). Opening <pci>/vendor, device and
 *    numa_node -- directly or through the class's device/ link -- for
 *    reading gives 0x15b3, the configured part id and -1; on an Ethernet
 *    port, ports/1/gid_attrs/types/<n> gives "RoCE v2" (every GID softmlx5
 *    populates is RoCE v2). A port bound to a network interface (key
 *    netdev) shows, for every index of its GID table, ports/1/gids/<n>
 *    (the GID as the kernel prints it, zeros for an empty slot),
 *    gid_attrs/types/<n> ("IB/RoCE v1" or "RoCE v2") and gid_attrs/ndevs/<n>
 *    (the interface's name), read from the interface at each open by the
 *    device's own rule (src/device/netdev.c); the last two fail with
 *    EINVAL for an empty slot, as the kernel's do (at open here, at read
 *    there). Writes to them are refused like sysfs refuses them (the path
 *    does not exist: ENOENT).
 *  - The port counters: <class or pci entry>/ports/1/hw_counters/<name>
 *    reads as the counter's host-wide value in decimal and a newline (the
 *    sum over the processes attached to the shared segment, read-only on
 *    each open: src/device/fabric/shm_ro.c), for every name of
 *    device/transport/counters.h; opendir() / readdir() of hw_counters
 *    list them (the directory stream is the view's own: readdir,
 *    readdir64, rewinddir, telldir, seekdir, dirfd and closedir know it;
 *    dirfd() of it fails with ENOTSUP, and a directory reached another
 *    way -- openat() + fdopendir(), as fts does -- is not there).
 *
 * `softmlx5 run` passes the configuration in SOFTMLX5_DEVNODE_NAME (dev_name),
 * SOFTMLX5_DEVNODE_PART (part_id), SOFTMLX5_DEVNODE_LINK (eth or ib) and,
 * for a bound port, SOFTMLX5_DEVNODE_NETDEV (netdev) and
 * SOFTMLX5_DEVNODE_GIDS (gid_tbl_len); without them the defaults (mlx5_0,
 * 0x1021, eth, no interface) apply. SOFTMLX5_DEVNODE=0
 * in the environment of the program turns the whole view off.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/fabric/shm.h"
#include "device/netdev.h"
#include "device/transport/counters.h"

#define SMX_DEVNODE "/dev/infiniband/uverbs0"
#define SMX_DEVNODE_STANDIN "/dev/null"
#define SMX_SYS_STANDIN "/proc/self/stat"	/* a regular, readable file */
#define SMX_SYS_DIR_STANDIN "/"		/* a directory */
#define SMX_HWC "/ports/1/hw_counters"
#define SMX_SYS_PCI "/sys/devices/softmlx5/0000:ff:00.0"

#define SMX_EXPORT __attribute__((visibility("default")))

/* The view as the environment configures it, read once. */
static struct {
	bool off;
	bool eth;
	char cls[96];		/* /sys/class/infiniband/<dev> */
	char real[128];		/* SMX_SYS_PCI/infiniband/<dev> */
	char part[16];		/* "0x1021\n" */
	char netdev[SMX_NETDEV_NAME_MAX];	/* "": the port is not bound */
	unsigned int gids;	/* its GID table's length */
} view;
static pthread_once_t view_once = PTHREAD_ONCE_INIT;

static void view_init(void)
{
	const char *off = getenv("SOFTMLX5_DEVNODE");
	const char *name = getenv("SOFTMLX5_DEVNODE_NAME");
	const char *part = getenv("SOFTMLX5_DEVNODE_PART");
	const char *link = getenv("SOFTMLX5_DEVNODE_LINK");
	const char *netdev = getenv("SOFTMLX5_DEVNODE_NETDEV");
	const char *gids = getenv("SOFTMLX5_DEVNODE_GIDS");
	unsigned long id = 0x1021;
	char *end;

	view.off = off && !strcmp(off, "0");
	if (!name || !*name || strchr(name, '/') || strlen(name) > 63)
		name = "mlx5_0";
	if (part && *part) {
		unsigned long v = strtoul(part, &end, 0);

		if (!*end && v <= 0xffff)
			id = v;
	}
	view.eth = !link || strcmp(link, "ib");
	if (view.eth && netdev && smx_netdev_name_ok(netdev)) {
		unsigned long n = gids ? strtoul(gids, &end, 10) : 0;

		snprintf(view.netdev, sizeof(view.netdev), "%s", netdev);
		view.gids = gids && !*end && n <= SMX_NETDEV_GIDS ?
			    (unsigned int)n : SMX_NETDEV_GIDS;
	}
	snprintf(view.cls, sizeof(view.cls), "/sys/class/infiniband/%s", name);
	snprintf(view.real, sizeof(view.real), SMX_SYS_PCI "/infiniband/%s",
		 name);
	snprintf(view.part, sizeof(view.part), "0x%04lx\n", id);
}

static bool view_on(void)
{
	pthread_once(&view_once, view_init);
	return !view.off;
}

static bool devnode(const char *path)
{
	return path && !strcmp(path, SMX_DEVNODE) && view_on();
}

/* @path without @prefix, or NULL if it does not start with it. */
static const char *after(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(path, prefix, n) ? NULL : path + n;
}

/* A file of the PCI function's directory: its contents, or NULL. */
static const char *sys_pci_file(const char *name)
{
	if (!strcmp(name, "vendor"))
		return "0x15b3\n";	/* Mellanox */
	if (!strcmp(name, "device"))
		return view.part;
	if (!strcmp(name, "numa_node"))
		return "-1\n";
	return NULL;
}

/*
 * Which part of the port's hw_counters directory @rest (a path below the
 * device's class or PCI entry) names: the directory itself (-1), a
 * counter (its index), or neither (-2).
 */
static int sys_hwc(const char *rest)
{
	const char *p = after(rest, SMX_HWC);

	if (!p)
		return -2;
	if (!*p || !strcmp(p, "/") || !strcmp(p, "/."))
		return -1;
	if (*p != '/')
		return -2;
	p++;
	return trn_ctr_lookup(p) >= 0 ? trn_ctr_lookup(p) : -2;
}

/* @path below the device's class entry or its PCI directory, or NULL. */
static const char *sys_dev_rest(const char *path)
{
	const char *rest;

	if (!path || strncmp(path, "/sys/", 5) || !view_on())
		return NULL;
	if ((rest = after(path, view.cls)) && (!*rest || *rest == '/'))
		return rest;
	if ((rest = after(path, view.real)) && (!*rest || *rest == '/'))
		return rest;
	return NULL;
}

/* Is @path the hw_counters directory of the view? */
static bool sys_hwc_dir(const char *path)
{
	const char *rest = sys_dev_rest(path);

	return rest && sys_hwc(rest) == -1;
}

/* Counter @i's host-wide value as its file reads, into @buf. */
static const char *sys_counter_text(int i, char *buf, size_t len)
{
	uint64_t v[TRN_CTR_NUM];

	/* No segment, another layout, off: nothing counted. */
	smx_shm_counters_read(NULL, v, NULL);
	snprintf(buf, len, "%llu\n", (unsigned long long)v[i]);
	return buf;
}

/* What sys_file() gives for a file that exists but reads as EINVAL. */
static const char sys_einval[] = "";

/* The index @p names (decimal, as sysfs names GID files), -1 if none or
 * not below @n. */
static int sys_index(const char *p, unsigned int n)
{
	long i;

	if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 3 ||
	    (p[0] == '0' && p[1]))
		return -1;
	i = strtol(p, NULL, 10);
	return i < (long)n ? (int)i : -1;
}

/*
 * A GID file of a port bound to an interface: @what 'g' gids/<n>, 't'
 * gid_attrs/types/<n>, 'n' gid_attrs/ndevs/<n>; @i its index. Without
 * @buf only that it is one.
 */
static const char *sys_gid_file(char what, int i, char *buf, size_t len)
{
	static const uint8_t zero[16];
	const struct smx_gid *g = NULL;
	const char *ret = sys_einval;
	struct smx_netdev *nd;
	const uint8_t *r;

	if (!buf)
		return "";
	nd = malloc(sizeof(*nd));
	if (!nd)
		return sys_einval;
	/* Gone, or an empty slot: no GID (a zero one in gids/<n>). */
	if (!smx_netdev_read(view.netdev, view.gids, nd) &&
	    (unsigned int)i < nd->ngids)
		g = &nd->gid[i];
	if (what == 'g') {
		/* %pI6: eight groups of four hex digits */
		r = g ? g->raw : zero;
		snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
			 "%02x%02x:%02x%02x:%02x%02x:%02x%02x\n", r[0], r[1],
			 r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
			 r[11], r[12], r[13], r[14], r[15]);
		ret = buf;
	} else if (g) {
		snprintf(buf, len, "%s\n", what == 't' ?
			 smx_gid_type_str(g->type) : view.netdev);
		ret = buf;
	}
	free(nd);
	return ret;
}

/*
 * The contents of a file of the sysfs view, NULL if @path is not one,
 * sys_einval if it is one that cannot be read. Without @buf only whether
 * it is one: nothing is read.
 */
static const char *sys_file(const char *path, char *buf, size_t len)
{
	const char *rest, *p;
	int c;

	if (!path || strncmp(path, "/sys/", 5) || !view_on())
		return NULL;
	if ((rest = sys_dev_rest(path)) && (c = sys_hwc(rest)) >= 0)
		return buf ? sys_counter_text(c, buf, len) : "";
	if ((rest = after(path, SMX_SYS_PCI "/")))
		return sys_pci_file(rest);
	if (!(rest = after(path, view.cls)))
		return NULL;
	if ((p = after(rest, "/device/")))
		return sys_pci_file(p);
	if (view.netdev[0]) {
		if ((p = after(rest, "/ports/1/gids/")) &&
		    (c = sys_index(p, view.gids)) >= 0)
			return sys_gid_file('g', c, buf, len);
		if ((p = after(rest, "/ports/1/gid_attrs/types/")) &&
		    (c = sys_index(p, view.gids)) >= 0)
			return sys_gid_file('t', c, buf, len);
		if ((p = after(rest, "/ports/1/gid_attrs/ndevs/")) &&
		    (c = sys_index(p, view.gids)) >= 0)
			return sys_gid_file('n', c, buf, len);
		return NULL;
	}
	if (view.eth && (p = after(rest, "/ports/1/gid_attrs/types/")) &&
	    *p && strspn(p, "0123456789") == strlen(p) && strlen(p) <= 3)
		return "RoCE v2\n";
	return NULL;
}

/* An fd reading @text, as open() of a sysfs file gives (a memfd). */
static int sys_open(const char *text)
{
	size_t n = strlen(text);
	int fd = memfd_create("softmlx5-sysfs", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, text, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET)) {
		close(fd);
		errno = EIO;
		return -1;
	}
	return fd;
}

/* What the status and access calls look at instead of @path. */
static const char *standin(const char *path)
{
	if (devnode(path))
		return SMX_DEVNODE_STANDIN;
	if (sys_file(path, NULL, 0))
		return SMX_SYS_STANDIN;
	if (sys_hwc_dir(path))
		return SMX_SYS_DIR_STANDIN;
	return path;
}

/* The next definition of @name (libc's), looked up once. */
#define REAL(type, name, args)                                                 \
	static type(*real_##name) args;                                        \
	if (!real_##name)                                                      \
		real_##name = (type(*) args)dlsym(RTLD_NEXT, #name)

SMX_EXPORT int stat(const char *path, struct stat *st)
{
	REAL(int, stat, (const char *, struct stat *));
	if (!real_stat) {
		errno = ENOSYS;
		return -1;
	}
	return real_stat(standin(path), st);
}

SMX_EXPORT int stat64(const char *path, struct stat64 *st)
{
	REAL(int, stat64, (const char *, struct stat64 *));
	if (!real_stat64) {
		errno = ENOSYS;
		return -1;
	}
	return real_stat64(standin(path), st);
}

SMX_EXPORT int lstat(const char *path, struct stat *st)
{
	REAL(int, lstat, (const char *, struct stat *));
	if (!real_lstat) {
		errno = ENOSYS;
		return -1;
	}
	return real_lstat(standin(path), st);
}

SMX_EXPORT int lstat64(const char *path, struct stat64 *st)
{
	REAL(int, lstat64, (const char *, struct stat64 *));
	if (!real_lstat64) {
		errno = ENOSYS;
		return -1;
	}
	return real_lstat64(standin(path), st);
}

SMX_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REAL(int, fstatat, (int, const char *, struct stat *, int));
	if (!real_fstatat) {
		errno = ENOSYS;
		return -1;
	}
	return real_fstatat(dirfd, standin(path), st, flags);
}

SMX_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	REAL(int, fstatat64, (int, const char *, struct stat64 *, int));
	if (!real_fstatat64) {
		errno = ENOSYS;
		return -1;
	}
	return real_fstatat64(dirfd, standin(path), st, flags);
}

SMX_EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask,
			struct statx *st)
{
	REAL(int, statx, (int, const char *, int, unsigned int, struct statx *));
	if (!real_statx) {
		errno = ENOSYS;
		return -1;
	}
	return real_statx(dirfd, standin(path), flags, mask, st);
}

SMX_EXPORT int access(const char *path, int mode)
{
	REAL(int, access, (const char *, int));
	if (!real_access) {
		errno = ENOSYS;
		return -1;
	}
	return real_access(standin(path), mode);
}

SMX_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	REAL(int, faccessat, (int, const char *, int, int));
	if (!real_faccessat) {
		errno = ENOSYS;
		return -1;
	}
	return real_faccessat(dirfd, standin(path), mode, flags);
}

/* ---- the sysfs view: realpath, open and fopen ---- */

/* realpath() of the class entry, or NULL for any other path. */
static char *sys_realpath(const char *path, char *out, size_t outlen)
{
	if (!path || strncmp(path, "/sys/", 5) || !view_on() ||
	    strcmp(path, view.cls))
		return NULL;
	if (!out)
		return strdup(view.real);
	if (outlen <= strlen(view.real)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(out, view.real);
	return out;
}

SMX_EXPORT char *realpath(const char *path, char *out)
{
	char *r = sys_realpath(path, out, PATH_MAX);

	REAL(char *, realpath, (const char *, char *));
	if (r)
		return r;
	if (!real_realpath) {
		errno = ENOSYS;
		return NULL;
	}
	return real_realpath(path, out);
}

/* What _FORTIFY_SOURCE builds call instead of realpath (UCX is one). */
SMX_EXPORT char *__realpath_chk(const char *path, char *out, size_t outlen)
{
	char *r = sys_realpath(path, out, outlen);

	REAL(char *, __realpath_chk, (const char *, char *, size_t));
	if (r)
		return r;
	if (!real___realpath_chk) {
		errno = ENOSYS;
		return NULL;
	}
	return real___realpath_chk(path, out, outlen);
}

/* A read-only open of a file of the view, or -2: not one. */
static int sys_try_open(const char *path, int flags)
{
	char buf[64];
	const char *text = (flags & O_ACCMODE) == O_RDONLY ?
			   sys_file(path, buf, sizeof(buf)) : NULL;

	if (text == sys_einval) {
		errno = EINVAL;
		return -1;
	}
	return text ? sys_open(text) : -2;
}

/* The mode argument of open(), present only with O_CREAT / O_TMPFILE. */
#define OPEN_MODE(flags, last, mode)                                           \
	do {                                                                   \
		if ((flags) & (O_CREAT | O_TMPFILE)) {                        \
			va_list ap;                                            \
			va_start(ap, last);                                    \
			mode = (mode_t)va_arg(ap, int);                        \
			va_end(ap);                                            \
		}                                                              \
	} while (0)

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

/* A file of the view, else libc's open (@f) or openat (@fat). */
static int open_any(open_fn f, openat_fn fat, int dirfd, const char *path,
		    int flags, mode_t mode)
{
	int fd = sys_try_open(path, flags);	/* absolute paths only */

	if (fd != -2)
		return fd;
	if (fat)
		return fat(dirfd, path, flags, mode);
	if (f)
		return f(path, flags, mode);
	errno = ENOSYS;
	return -1;
}

SMX_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, flags, mode);
	REAL(int, open, (const char *, int, ...));
	return open_any(real_open, NULL, AT_FDCWD, path, flags, mode);
}

SMX_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, flags, mode);
	REAL(int, open64, (const char *, int, ...));
	return open_any(real_open64, NULL, AT_FDCWD, path, flags, mode);
}

SMX_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, flags, mode);
	REAL(int, openat, (int, const char *, int, ...));
	return open_any(NULL, real_openat, dirfd, path, flags, mode);
}

SMX_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, flags, mode);
	REAL(int, openat64, (int, const char *, int, ...));
	return open_any(NULL, real_openat64, dirfd, path, flags, mode);
}

/* NULL with errno 0: not a file of the view. */
static FILE *sys_fopen(const char *path, const char *mode)
{
	char buf[64];
	const char *text = mode && mode[0] == 'r' && !strchr(mode, '+') ?
			   sys_file(path, buf, sizeof(buf)) : NULL;
	int fd;

	errno = 0;
	if (!text)
		return NULL;
	if (text == sys_einval) {
		errno = EINVAL;
		return NULL;
	}
	fd = sys_open(text);
	return fd < 0 ? NULL : fdopen(fd, "r");
}

SMX_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f = sys_fopen(path, mode);
	int err = errno;	/* EINVAL: a file of the view that fails */

	REAL(FILE *, fopen, (const char *, const char *));
	if (f || err == EINVAL) {
		errno = err;
		return f;
	}
	return real_fopen ? real_fopen(path, mode) : NULL;
}

SMX_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f = sys_fopen(path, mode);
	int err = errno;	/* EINVAL: a file of the view that fails */

	REAL(FILE *, fopen64, (const char *, const char *));
	if (f || err == EINVAL) {
		errno = err;
		return f;
	}
	return real_fopen64 ? real_fopen64(path, mode) : NULL;
}

/* ---- the sysfs view: listing hw_counters ---- */

/*
 * A directory stream of the view: what opendir() returns for hw_counters
 * (an opaque DIR * to the program). Streams are known by address: every
 * call taking a DIR * looks it up among the live ones before touching
 * it, and gives any other to libc.
 */
struct sys_dir {
	struct sys_dir *next;
	long pos;		/* 0 ".", 1 "..", then the counters */
	struct dirent ent;
	struct dirent64 ent64;
};

static struct sys_dir *sys_dirs;
static pthread_mutex_t sys_dirs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct sys_dir *sys_dir_of(DIR *d)
{
	struct sys_dir *s;

	pthread_mutex_lock(&sys_dirs_lock);
	for (s = sys_dirs; s && (DIR *)s != d; s = s->next)
		;
	pthread_mutex_unlock(&sys_dirs_lock);
	return s;
}

#define SYS_DIR_ENTRIES (2 + TRN_CTR_NUM)

/* Entry @pos: its name and type; false past the end. */
static bool sys_dir_entry(long pos, const char **name, unsigned char *type)
{
	if (pos < 0 || pos >= SYS_DIR_ENTRIES)
		return false;
	*name = pos == 0 ? "." : pos == 1 ? ".." : trn_ctr_info[pos - 2].name;
	*type = pos < 2 ? DT_DIR : DT_REG;
	return true;
}

SMX_EXPORT DIR *opendir(const char *path)
{
	struct sys_dir *s;

	REAL(DIR *, opendir, (const char *));
	if (!sys_hwc_dir(path)) {
		if (!real_opendir) {
			errno = ENOSYS;
			return NULL;
		}
		return real_opendir(path);
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_lock(&sys_dirs_lock);
	s->next = sys_dirs;
	sys_dirs = s;
	pthread_mutex_unlock(&sys_dirs_lock);
	return (DIR *)s;
}

SMX_EXPORT struct dirent *readdir(DIR *d)
{
	struct sys_dir *s = sys_dir_of(d);
	const char *name;
	unsigned char type;

	REAL(struct dirent *, readdir, (DIR *));
	if (!s) {
		if (!real_readdir) {
			errno = ENOSYS;
			return NULL;
		}
		return real_readdir(d);
	}
	if (!sys_dir_entry(s->pos, &name, &type))
		return NULL;	/* the end: errno untouched */
	memset(&s->ent, 0, sizeof(s->ent));
	s->ent.d_ino = (ino_t)(s->pos + 1);
	s->ent.d_off = s->pos + 1;
	s->ent.d_reclen = sizeof(s->ent);
	s->ent.d_type = type;
	snprintf(s->ent.d_name, sizeof(s->ent.d_name), "%s", name);
	s->pos++;
	return &s->ent;
}

SMX_EXPORT struct dirent64 *readdir64(DIR *d)
{
	struct sys_dir *s = sys_dir_of(d);
	const char *name;
	unsigned char type;

	REAL(struct dirent64 *, readdir64, (DIR *));
	if (!s) {
		if (!real_readdir64) {
			errno = ENOSYS;
			return NULL;
		}
		return real_readdir64(d);
	}
	if (!sys_dir_entry(s->pos, &name, &type))
		return NULL;
	memset(&s->ent64, 0, sizeof(s->ent64));
	s->ent64.d_ino = (ino64_t)(s->pos + 1);
	s->ent64.d_off = s->pos + 1;
	s->ent64.d_reclen = sizeof(s->ent64);
	s->ent64.d_type = type;
	snprintf(s->ent64.d_name, sizeof(s->ent64.d_name), "%s", name);
	s->pos++;
	return &s->ent64;
}

SMX_EXPORT int closedir(DIR *d)
{
	struct sys_dir **pp, *s = NULL;

	REAL(int, closedir, (DIR *));
	pthread_mutex_lock(&sys_dirs_lock);
	for (pp = &sys_dirs; *pp; pp = &(*pp)->next) {
		if ((DIR *)*pp == d) {
			s = *pp;
			*pp = s->next;
			break;
		}
	}
	pthread_mutex_unlock(&sys_dirs_lock);
	if (s) {
		free(s);
		return 0;
	}
	if (!real_closedir) {
		errno = ENOSYS;
		return -1;
	}
	return real_closedir(d);
}

SMX_EXPORT void rewinddir(DIR *d)
{
	struct sys_dir *s = sys_dir_of(d);

	REAL(void, rewinddir, (DIR *));
	if (s)
		s->pos = 0;
	else if (real_rewinddir)
		real_rewinddir(d);
}

SMX_EXPORT long telldir(DIR *d)
{
	struct sys_dir *s = sys_dir_of(d);

	REAL(long, telldir, (DIR *));
	if (s)
		return s->pos;
	if (!real_telldir) {
		errno = ENOSYS;
		return -1;
	}
	return real_telldir(d);
}

SMX_EXPORT void seekdir(DIR *d, long pos)
{
	struct sys_dir *s = sys_dir_of(d);

	REAL(void, seekdir, (DIR *, long));
	if (s)
		s->pos = pos;
	else if (real_seekdir)
		real_seekdir(d, pos);
}

SMX_EXPORT int dirfd(DIR *d)
{
	REAL(int, dirfd, (DIR *));
	if (sys_dir_of(d)) {
		errno = ENOTSUP;	/* no descriptor behind it */
		return -1;
	}
	if (!real_dirfd) {
		errno = ENOSYS;
		return -1;
	}
	return real_dirfd(d);
}
