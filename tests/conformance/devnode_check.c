/* SPDX-License-Identifier: MIT */
/*
 * What a program started by `softmlx5 run` sees of the device in /dev and
 * /sys (src/run/devnode.c), through the libc calls UCX and others use:
 *
 *   devnode_check on NAME PART   the view is there, for dev_name NAME and
 *                                part_id PART (e.g. mlx5_0 0x1021)
 *   devnode_check off NAME       SOFTMLX5_DEVNODE=0: none of it is
 *   devnode_check counters NAME  the port counters under hw_counters: it
 *                                plays two attached processes by writing
 *                                a segment at $SOFTMLX5_SHM_PATH by hand
 *                                (its own pid as both), and reads their
 *                                sums and the directory through the view
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
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/fabric/shm.h"
#include "device/fabric/shm_layout.h"
#include "device/transport/counters.h"
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

/* A segment at $SOFTMLX5_SHM_PATH with slots 2 and 5 held by this
 * process, counting out_of_sequence 40 + 2 and fault_dropped 7. */
static bool segment_write(void)
{
	const char *p = getenv("SOFTMLX5_SHM_PATH");
	struct smx_shm_hdr *h;
	int fd, i;

	if (!p || p[0] != '/')
		return false;
	unlink(p);
	fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)SMX_SHM_SIZE))
		return false;
	h = mmap(NULL, SMX_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return false;
	h->version = SMX_SHM_VERSION;
	h->nslots = SMX_SHM_SLOTS;
	h->ncells = SMX_SHM_CELLS;
	h->inline_max = SMX_SHM_INLINE;
	h->size = SMX_SHM_SIZE;
	for (i = 2; i <= 5; i += 3) {
		h->slot[i].pid = getpid();
		h->slot[i].start_time = smx_shm_start_time(getpid());
		h->slot[i].pidns = smx_shm_pidns();
		h->slot[i].state = SMX_SLOT_ALIVE;
		h->slot[i].ctr[TRN_CTR_OUT_OF_SEQUENCE] = i == 2 ? 40 : 2;
	}
	h->slot[5].ctr[TRN_CTR_FAULT_DROPPED] = 7;
	/* A dead holder's counts are not the port's. */
	h->slot[9].pid = 999999999;
	h->slot[9].state = SMX_SLOT_ALIVE;
	h->slot[9].pidns = smx_shm_pidns();
	h->slot[9].ctr[TRN_CTR_OUT_OF_SEQUENCE] = 1000;
	h->magic = SMX_SHM_MAGIC;
	munmap(h, SMX_SHM_SIZE);
	return true;
}

static void counters(const char *cls)
{
	char dir[192], file[256];
	bool seen[TRN_CTR_NUM] = { false };
	int n = 0, dots = 0, i, bad = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	CHECK(segment_write());
	snprintf(dir, sizeof(dir), "%s/ports/1/hw_counters", cls);
	snprintf(file, sizeof(file), "%s/out_of_sequence", dir);
	CHECK(reads(file, "42\n"));
	CHECK(stat(file, &st) == 0 && S_ISREG(st.st_mode));
	snprintf(file, sizeof(file), "%s/fault_dropped", dir);
	CHECK(reads(file, "7\n"));
	snprintf(file, sizeof(file), "%s/rx_write_requests", dir);
	CHECK(reads(file, "0\n"));
	snprintf(file, sizeof(file),
		 PCI "/infiniband/%s/ports/1/hw_counters/out_of_sequence",
		 strrchr(cls, '/') + 1);
	CHECK(reads(file, "42\n"));	/* through the PCI path too */
	snprintf(file, sizeof(file), "%s/no_such_counter", dir);
	CHECK(absent(file));
	snprintf(file, sizeof(file), "%s/out_of_sequence", dir);
	CHECK(open(file, O_WRONLY) < 0 && errno == ENOENT);
	CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));

	/* The directory lists every counter once, with . and .. */
	d = opendir(dir);
	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		n++;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) {
			dots++;
			continue;
		}
		i = trn_ctr_lookup(e->d_name);
		if (i < 0 || seen[i] || e->d_type != DT_REG)
			bad++;
		else
			seen[i] = true;
	}
	CHECK_EQ(n, TRN_CTR_NUM + 2);
	CHECK_EQ(dots, 2);
	CHECK_EQ(bad, 0);
	if (d) {
		rewinddir(d);
		CHECK((e = readdir(d)) && !strcmp(e->d_name, "."));
		CHECK(dirfd(d) < 0);
		CHECK_EQ(closedir(d), 0);
	}
	/* Other directories: libc's. */
	d = opendir("/proc/self");
	CHECK(d && readdir(d) && dirfd(d) >= 0);
	if (d)
		closedir(d);
	unlink(getenv("SOFTMLX5_SHM_PATH"));
	/* No segment: zeros. */
	snprintf(file, sizeof(file), "%s/out_of_sequence", dir);
	CHECK(reads(file, "0\n"));
}

int main(int argc, char **argv)
{
	char cls[128], real[160], file[192], buf[PATH_MAX], want[16], *r;
	bool on = argc >= 3 && !strcmp(argv[1], "on");
	struct stat st;

	if (argc == 3 && !strcmp(argv[1], "counters")) {
		snprintf(cls, sizeof(cls), "/sys/class/infiniband/%s",
			 argv[2]);
		counters(cls);
		return smx_test_done();
	}
	if (argc < 3 || (on && argc < 4) ||
	    (!on && strcmp(argv[1], "off"))) {
		fprintf(stderr, "usage: devnode_check on NAME PART | off NAME "
			"| counters NAME\n");
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
