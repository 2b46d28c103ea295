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
 *    populates is RoCE v2). Writes to them are refused like sysfs refuses
 *    them (the path does not exist: ENOENT).
 *
 * `softmlx5 run` passes the configuration in SOFTMLX5_DEVNODE_NAME (dev_name),
 * SOFTMLX5_DEVNODE_PART (part_id) and SOFTMLX5_DEVNODE_LINK (eth or ib);
 * without them the defaults (mlx5_0, 0x1021, eth) apply. SOFTMLX5_DEVNODE=0
 * in the environment of the program turns the whole view off.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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

#define SMX_DEVNODE "/dev/infiniband/uverbs0"
#define SMX_DEVNODE_STANDIN "/dev/null"
#define SMX_SYS_STANDIN "/proc/self/stat"	/* a regular, readable file */
#define SMX_SYS_PCI "/sys/devices/softmlx5/0000:ff:00.0"

#define SMX_EXPORT __attribute__((visibility("default")))

/* The view as the environment configures it, read once. */
static struct {
	bool off;
	bool eth;
	char cls[96];		/* /sys/class/infiniband/<dev> */
	char real[128];		/* SMX_SYS_PCI/infiniband/<dev> */
	char part[16];		/* "0x1021\n" */
} view;
static pthread_once_t view_once = PTHREAD_ONCE_INIT;

static void view_init(void)
{
	const char *off = getenv("SOFTMLX5_DEVNODE");
	const char *name = getenv("SOFTMLX5_DEVNODE_NAME");
	const char *part = getenv("SOFTMLX5_DEVNODE_PART");
	const char *link = getenv("SOFTMLX5_DEVNODE_LINK");
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

/* The contents of a file of the sysfs view, NULL if @path is not one. */
static const char *sys_file(const char *path)
{
	const char *rest, *p;

	if (!path || strncmp(path, "/sys/", 5) || !view_on())
		return NULL;
	if ((rest = after(path, SMX_SYS_PCI "/")))
		return sys_pci_file(rest);
	if (!(rest = after(path, view.cls)))
		return NULL;
	if ((p = after(rest, "/device/")))
		return sys_pci_file(p);
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
	if (sys_file(path))
		return SMX_SYS_STANDIN;
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
	const char *text = (flags & O_ACCMODE) == O_RDONLY ? sys_file(path) :
			   NULL;

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

static FILE *sys_fopen(const char *path, const char *mode)
{
	const char *text = mode && mode[0] == 'r' && !strchr(mode, '+') ?
			   sys_file(path) : NULL;
	int fd;

	if (!text)
		return NULL;
	fd = sys_open(text);
	return fd < 0 ? NULL : fdopen(fd, "r");
}

SMX_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f = sys_fopen(path, mode);

	REAL(FILE *, fopen, (const char *, const char *));
	if (f)
		return f;
	return real_fopen ? real_fopen(path, mode) : NULL;
}

SMX_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f = sys_fopen(path, mode);

	REAL(FILE *, fopen64, (const char *, const char *));
	if (f)
		return f;
	return real_fopen64 ? real_fopen64(path, mode) : NULL;
}
