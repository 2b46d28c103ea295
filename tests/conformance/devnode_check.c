/* SPDX-License-Identifier: MIT */
/*
 * What a program started by `softmlx5 run` sees of the device in /dev and
 * /sys (src/run/devnode.c), through the libc calls UCX and others use:
 *
 *   devnode_check on NAME PART   the view is there, for dev_name NAME and
 *                                part_id PART (e.g. mlx5_0 0x1021)
 *   devnode_check off NAME       SOFTMLX5_DEVNODE=0: none of it is
 *
 * Either way, paths outside the view behave as libc makes them. Prints
 * "N passed, N failed" and exits non-zero on any failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "smx_test.h"

#define PCI "/sys/devices/softmlx5/0000:ff:00.0"

/* The whole of @path through open/openat + read, or NULL. */
static char *slurp_fd(int fd)
{
	static char buf[256];
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

static bool reads(const char *path, const char *want)
{
	char line[256] = "";
	const char *got;
	FILE *f;
	bool ok;

	got = slurp_fd(open(path, O_RDONLY));
	ok = got && !strcmp(got, want);
	got = slurp_fd(openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
	ok = ok && got && !strcmp(got, want);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = ok && fgets(line, sizeof(line), f) && !strcmp(line, want);
	fclose(f);
	return ok;
}

static bool absent(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == ENOENT && !fopen(path, "r") && stat(path, &st) < 0;
}

int main(int argc, char **argv)
{
	char cls[128], real[160], file[192], buf[PATH_MAX], want[16], *r;
	bool on = argc >= 3 && !strcmp(argv[1], "on");
	struct stat st;

	if (argc < 3 || (on && argc < 4) ||
	    (!on && strcmp(argv[1], "off"))) {
		fprintf(stderr, "usage: devnode_check on NAME PART | off NAME\n");
		return 2;
	}
	snprintf(cls, sizeof(cls), "/sys/class/infiniband/%s", argv[2]);
	snprintf(real, sizeof(real), PCI "/infiniband/%s", argv[2]);

	/* Paths outside the view: libc's answers. */
	CHECK(stat("/proc/self/stat", &st) == 0 && S_ISREG(st.st_mode));
	r = realpath("/proc/self/..", NULL);
	CHECK(r && !strcmp(r, "/proc"));
	free(r);
	CHECK(slurp_fd(open("/proc/self/comm", O_RDONLY)) != NULL);
	CHECK(absent("/sys/class/infiniband/no_such_dev/device/vendor"));

	if (!on) {
		CHECK(stat("/dev/infiniband/uverbs0", &st) < 0 ||
		      !S_ISCHR(st.st_mode) || access("/dev/infiniband/uverbs0",
						    R_OK | W_OK));
		CHECK(realpath(cls, buf) == NULL);
		snprintf(file, sizeof(file), "%s/device/vendor", cls);
		CHECK(absent(file));
		CHECK(absent(PCI "/vendor"));
		goto out;
	}

	/* The device node: a read/write character device, not openable. */
	CHECK(stat("/dev/infiniband/uverbs0", &st) == 0 && S_ISCHR(st.st_mode));
	CHECK(lstat("/dev/infiniband/uverbs0", &st) == 0 && S_ISCHR(st.st_mode));
	CHECK(fstatat(AT_FDCWD, "/dev/infiniband/uverbs0", &st, 0) == 0 &&
	      S_ISCHR(st.st_mode));
	CHECK(access("/dev/infiniband/uverbs0", R_OK | W_OK) == 0);
	CHECK(faccessat(AT_FDCWD, "/dev/infiniband/uverbs0", W_OK, 0) == 0);
	CHECK(open("/dev/infiniband/uverbs0", O_RDWR) < 0 && errno == ENOENT);

	/* The class entry resolves to the PCI function's directory. */
	r = realpath(cls, NULL);
	CHECK(r && !strcmp(r, real));
	free(r);
	CHECK(realpath(cls, buf) == buf && !strcmp(buf, real));

	/* The function's identity, directly and through device/. */
	snprintf(want, sizeof(want), "0x%04lx\n", strtoul(argv[3], NULL, 0));
	CHECK(reads(PCI "/vendor", "0x15b3\n"));
	CHECK(reads(PCI "/device", want));
	CHECK(reads(PCI "/numa_node", "-1\n"));
	snprintf(file, sizeof(file), "%s/device/vendor", cls);
	CHECK(reads(file, "0x15b3\n"));
	CHECK(stat(file, &st) == 0 && S_ISREG(st.st_mode));
	snprintf(file, sizeof(file), "%s/device/device", cls);
	CHECK(reads(file, want));
	snprintf(file, sizeof(file), "%s/ports/1/gid_attrs/types/0", cls);
	CHECK(reads(file, "RoCE v2\n"));
	snprintf(file, sizeof(file), "%s/ports/1/gid_attrs/types/7", cls);
	CHECK(reads(file, "RoCE v2\n"));

	/* Not part of it: other files, other devices, writes. */
	CHECK(absent(PCI "/current_link_width"));
	snprintf(file, sizeof(file), "%s/ports/1/gid_attrs/types/x", cls);
	CHECK(absent(file));
	snprintf(file, sizeof(file), "%s/device/vendor", cls);
	CHECK(open(file, O_WRONLY) < 0 && errno == ENOENT);
	CHECK(fopen(file, "w") == NULL);
	CHECK(fopen(file, "r+") == NULL);
out:
	return smx_test_done();
}
