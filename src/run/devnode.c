/* SPDX-License-Identifier: MIT */
/*
 * libsoftmlx5_devnode.so: what `softmlx5 run` preloads so that programs
 * which look for the kernel's device node before they use libibverbs --
 * UCX skips a device unless /dev/infiniband/<dev_name> is a read/write
 * character device -- find one for the software device, without root and
 * without a kernel module.
 *
 * Only the device's own node (SMX_DEVNODE, /dev/infiniband/uverbs0, the
 * dev_name libmlx5 gives mlx5_0) is answered, and only by the status and
 * access calls: stat, lstat, fstatat, statx and access / faccessat report what
 * /dev/null reports (a character device every user may read and write).
 * Opening it still fails with ENOENT: softmlx5's libibverbs never opens it,
 * and a program that does would find no kernel behind it. Every other path
 * goes to libc untouched. SOFTMLX5_DEVNODE=0 in the environment of the
 * program turns the view off.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SMX_DEVNODE "/dev/infiniband/uverbs0"
#define SMX_DEVNODE_STANDIN "/dev/null"

#define SMX_EXPORT __attribute__((visibility("default")))

static bool devnode(const char *path)
{
	const char *off = getenv("SOFTMLX5_DEVNODE");

	return path && !strcmp(path, SMX_DEVNODE) && !(off && !strcmp(off, "0"));
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
	return real_stat(devnode(path) ? SMX_DEVNODE_STANDIN : path, st);
}

SMX_EXPORT int stat64(const char *path, struct stat64 *st)
{
	REAL(int, stat64, (const char *, struct stat64 *));
	if (!real_stat64) {
		errno = ENOSYS;
		return -1;
	}
	return real_stat64(devnode(path) ? SMX_DEVNODE_STANDIN : path, st);
}

SMX_EXPORT int lstat(const char *path, struct stat *st)
{
	REAL(int, lstat, (const char *, struct stat *));
	if (!real_lstat) {
		errno = ENOSYS;
		return -1;
	}
	return real_lstat(devnode(path) ? SMX_DEVNODE_STANDIN : path, st);
}

SMX_EXPORT int lstat64(const char *path, struct stat64 *st)
{
	REAL(int, lstat64, (const char *, struct stat64 *));
	if (!real_lstat64) {
		errno = ENOSYS;
		return -1;
	}
	return real_lstat64(devnode(path) ? SMX_DEVNODE_STANDIN : path, st);
}

SMX_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REAL(int, fstatat, (int, const char *, struct stat *, int));
	if (!real_fstatat) {
		errno = ENOSYS;
		return -1;
	}
	return real_fstatat(dirfd, devnode(path) ? SMX_DEVNODE_STANDIN : path, st, flags);
}

SMX_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	REAL(int, fstatat64, (int, const char *, struct stat64 *, int));
	if (!real_fstatat64) {
		errno = ENOSYS;
		return -1;
	}
	return real_fstatat64(dirfd, devnode(path) ? SMX_DEVNODE_STANDIN : path, st, flags);
}

SMX_EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask,
			struct statx *st)
{
	REAL(int, statx, (int, const char *, int, unsigned int, struct statx *));
	if (!real_statx) {
		errno = ENOSYS;
		return -1;
	}
	return real_statx(dirfd, devnode(path) ? SMX_DEVNODE_STANDIN : path, flags, mask, st);
}

SMX_EXPORT int access(const char *path, int mode)
{
	REAL(int, access, (const char *, int));
	if (!real_access) {
		errno = ENOSYS;
		return -1;
	}
	return real_access(devnode(path) ? SMX_DEVNODE_STANDIN : path, mode);
}

SMX_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	REAL(int, faccessat, (int, const char *, int, int));
	if (!real_faccessat) {
		errno = ENOSYS;
		return -1;
	}
	return real_faccessat(dirfd, devnode(path) ? SMX_DEVNODE_STANDIN : path, mode, flags);
}
