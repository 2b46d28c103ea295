/* SPDX-License-Identifier: MIT */
/*
 * The port counters (src/device/transport/counters.[ch]) and where they
 * live (src/device/fabric/shm.c, shm_ro.c):
 *
 *   - the table: every counter named, names unique, lookup finds them;
 *   - a process without a segment counts in its own memory;
 *   - attached, a process counts in its slot; the port's value is the sum
 *     over the live slots: a second process (a fork child that attaches
 *     for itself) adds to it while it lives, and not once it is gone;
 *     smx_shm_counters_sum() and smx_shm_counters_read() (read-only, by
 *     path, unattached) agree, and count the live processes;
 *   - a slot taken again starts from zero; a fork child of an attached
 *     process counts in its own memory, not in its parent's slot;
 *   - no segment: -ENOENT and zeros; SOFTMLX5_SHM_PATH=off: -ENODEV;
 *     a segment of layout 2: -ESTALE;
 *   - `softmlx5 counters` and `softmlx5 counters --json` (argv[1], the
 *     CLI) print the same sums, and fail on SOFTMLX5_SHM_PATH=off;
 *   - the default segment is one per user and network namespace: its name
 *     carries the inode of /proc/self/ns/net, and a child that enters a
 *     new network namespace (where it may: root) gets another one.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device/fabric/shm.h"
#include "device/fabric/shm_layout.h"
#include "device/transport/counters.h"
#include "smx_test.h"

static char path[128];
static const char *cli;

static void test_table(void)
{
	int i, j;

	for (i = 0; i < TRN_CTR_NUM; i++) {
		CHECKM(trn_ctr_info[i].name && trn_ctr_info[i].desc &&
		       trn_ctr_info[i].name[0], "counter %d", i);
		if (!trn_ctr_info[i].name)
			continue;
		CHECK_EQ(trn_ctr_lookup(trn_ctr_info[i].name), i);
		for (j = 0; j < i; j++)
			CHECKM(!trn_ctr_info[j].name ||
			       strcmp(trn_ctr_info[i].name,
				      trn_ctr_info[j].name), "%s twice",
			       trn_ctr_info[i].name);
	}
	CHECK_EQ(trn_ctr_lookup("out_of_sequence"), TRN_CTR_OUT_OF_SEQUENCE);
	CHECK_EQ(trn_ctr_lookup("fault_dropped"), TRN_CTR_FAULT_DROPPED);
	CHECK_EQ(trn_ctr_lookup("no_such_counter"), -1);
	CHECK_EQ(trn_ctr_lookup(NULL), -1);
	/* ConnectX's names, as the kernel's mlx5 driver shows them. */
	CHECK(!strcmp(trn_ctr_info[TRN_CTR_LOCAL_ACK_TIMEOUT_ERR].name,
		      "local_ack_timeout_err"));
	CHECK(!strcmp(trn_ctr_info[TRN_CTR_REQ_REMOTE_ACCESS_ERRORS].name,
		      "req_remote_access_errors"));
}

static void test_alone(void)
{
	struct trn_counters *c = smx_shm_counters(NULL);
	uint64_t v[TRN_CTR_NUM];

	CHECK(c != NULL);
	CHECK(c == smx_shm_counters(NULL));
	trn_ctr_add(c, TRN_CTR_RX_READ_REQUESTS, 3);
	trn_ctr_add(NULL, TRN_CTR_RX_READ_REQUESTS, 3);	/* no crash */
	smx_shm_counters_sum(NULL, v);
	CHECK_EQ(v[TRN_CTR_RX_READ_REQUESTS], 3);
}

/* What `softmlx5 counters [--json]` says counter @name is; -1: missing. */
static long long cli_value(const char *name, bool json, int *status)
{
	char cmd[512], line[8192], key[96];
	long long v = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' counters%s 2>/dev/null", cli,
		 json ? " --json" : "");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (json)
		snprintf(key, sizeof(key), "\"%s\":", name);
	else
		snprintf(key, sizeof(key), "%s ", name);
	while (fgets(line, sizeof(line), p)) {
		char *at = strstr(line, key);

		if (at && (json || at == line))
			v = strtoll(at + strlen(key), NULL, 10);
	}
	*status = pclose(p);
	return v;
}

/* A child that attaches, counts @n of out_of_sequence and 2n tx_bytes,
 * reports its slot's counters were zero at attach, then waits. */
static pid_t counting_child(uint64_t n, int *wake, int *ready)
{
	int a[2], b[2];
	pid_t pid;

	if (pipe(a) || pipe(b))
		exit(2);
	pid = fork();
	if (pid == 0) {
		struct smx_shm *s = smx_shm_attach();
		struct trn_counters *c = smx_shm_counters(s);
		char ok = s != NULL;
		int i;

		close(a[1]);
		close(b[0]);
		for (i = 0; i < TRN_CTR_NUM; i++)
			ok = ok && trn_ctr_get(c, (enum trn_ctr)i) == 0;
		trn_ctr_add(c, TRN_CTR_OUT_OF_SEQUENCE, n);
		trn_ctr_add(c, TRN_CTR_TX_BYTES, 2 * n);
		if (write(b[1], &ok, 1) != 1 || read(a[0], &ok, 1) < 0)
			_exit(1);
		smx_shm_detach(s);
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	*wake = a[1];
	*ready = b[0];
	return pid;
}

static void test_slots(void)
{
	struct smx_shm *s = smx_shm_attach();
	uint64_t v[TRN_CTR_NUM], r[TRN_CTR_NUM];
	struct trn_counters *mine;
	int wake, ready, st = -1;
	uint32_t live = 0;
	pid_t child;
	char ok = 0;

	CHECK(s != NULL);
	if (!s)
		return;
	mine = smx_shm_counters(s);
	CHECK(mine != smx_shm_counters(NULL));	/* in the slot */
	trn_ctr_add(mine, TRN_CTR_OUT_OF_SEQUENCE, 10);
	trn_ctr_add(mine, TRN_CTR_FAULT_DROPPED, 1);

	child = counting_child(5, &wake, &ready);
	CHECK(read(ready, &ok, 1) == 1 && ok);	/* its slot started at 0 */
	smx_shm_counters_sum(s, v);
	CHECK_EQ(v[TRN_CTR_OUT_OF_SEQUENCE], 15);
	CHECK_EQ(v[TRN_CTR_TX_BYTES], 10);
	CHECK_EQ(v[TRN_CTR_FAULT_DROPPED], 1);
	CHECK_EQ(smx_shm_counters_read(path, r, &live), 0);
	CHECK_EQ(live, 2);
	CHECK(!memcmp(v, r, sizeof(v)));
	CHECK_EQ(smx_shm_counters_read(NULL, r, NULL), 0);	/* the env's */
	CHECK(!memcmp(v, r, sizeof(v)));
	if (cli) {
		CHECK_EQ(cli_value("out_of_sequence", false, &st), 15);
		CHECK_EQ(st, 0);
		CHECK_EQ(cli_value("out_of_sequence", true, &st), 15);
		CHECK_EQ(st, 0);
		CHECK_EQ(cli_value("tx_bytes", true, &st), 10);
		CHECK_EQ(cli_value("fault_dropped", false, &st), 1);
		CHECK_EQ(cli_value("rx_write_requests", true, &st), 0);
	}

	/* A child killed while attached: its slot is no longer summed. */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(wake);
	close(ready);
	smx_shm_counters_sum(s, v);
	CHECK_EQ(v[TRN_CTR_OUT_OF_SEQUENCE], 10);
	CHECK_EQ(v[TRN_CTR_TX_BYTES], 0);
	CHECK_EQ(smx_shm_counters_read(path, r, &live), 0);
	CHECK_EQ(live, 1);
	CHECK(!memcmp(v, r, sizeof(v)));
	if (cli)
		CHECK_EQ(cli_value("out_of_sequence", true, &st), 10);

	/* Its slot, taken again, starts from zero (the child checks). */
	child = counting_child(7, &wake, &ready);
	CHECK(read(ready, &ok, 1) == 1 && ok);
	smx_shm_counters_sum(s, v);
	CHECK_EQ(v[TRN_CTR_OUT_OF_SEQUENCE], 17);
	close(wake);	/* it detaches and exits */
	waitpid(child, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(ready);
	smx_shm_counters_sum(s, v);
	CHECK_EQ(v[TRN_CTR_OUT_OF_SEQUENCE], 10);

	/* A fork child of ours does not count in our slot. */
	child = fork();
	if (child == 0) {
		struct trn_counters *c = smx_shm_counters(s);

		trn_ctr_add(c, TRN_CTR_OUT_OF_SEQUENCE, 1000);
		_exit(c == mine ? 1 : 0);
	}
	waitpid(child, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	smx_shm_counters_sum(s, v);
	CHECK_EQ(v[TRN_CTR_OUT_OF_SEQUENCE], 10);
	smx_shm_detach(s);

	/* Nobody attached: nothing summed, though the file is there. */
	CHECK_EQ(smx_shm_counters_read(path, r, &live), 0);
	CHECK_EQ(live, 0);
	CHECK_EQ(r[TRN_CTR_OUT_OF_SEQUENCE], 0);
}

static void test_no_segment(void)
{
	uint64_t r[TRN_CTR_NUM];
	char other[160];
	uint32_t live = 7;
	int fd, st = -1;
	struct smx_shm_hdr *h;

	snprintf(other, sizeof(other), "%s-none", path);
	unlink(other);
	r[0] = 99;
	CHECK_EQ(smx_shm_counters_read(other, r, &live), -ENOENT);
	CHECK(r[0] == 0 && live == 0);

	/* Layout 2 (no counters): refused, zeros. */
	fd = open(other, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)SMX_SHM_SIZE) == 0);
	h = mmap(NULL, SMX_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(h != MAP_FAILED);
	if (h != MAP_FAILED) {
		h->version = 2;
		h->nslots = SMX_SHM_SLOTS;
		h->size = SMX_SHM_SIZE;
		h->magic = SMX_SHM_MAGIC;
		munmap(h, SMX_SHM_SIZE);
	}
	close(fd);
	CHECK_EQ(smx_shm_counters_read(other, r, NULL), -ESTALE);
	unlink(other);

	if (cli) {
		setenv("SOFTMLX5_SHM_PATH", other, 1);
		CHECK_EQ(cli_value("out_of_sequence", false, &st), 0);
		CHECK_EQ(st, 0);
		setenv("SOFTMLX5_SHM_PATH", "off", 1);
		cli_value("out_of_sequence", false, &st);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	}
	setenv("SOFTMLX5_SHM_PATH", "off", 1);
	CHECK_EQ(smx_shm_counters_read(NULL, r, NULL), -ENODEV);
	CHECK(smx_shm_default_path(other, sizeof(other)) == NULL &&
	      errno == ENODEV);
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	CHECK(smx_shm_default_path(other, sizeof(other)) == other &&
	      !strcmp(other, path));
}

/* The default path as the docs give it, computed here from the namespace
 * this process is in now. */
static void expected_default(char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st) == 0)
		snprintf(buf, len, "/dev/shm/softmlx5-%u-%llu",
			 (unsigned int)getuid(), (unsigned long long)st.st_ino);
	else
		snprintf(buf, len, "/dev/shm/softmlx5-%u", (unsigned int)getuid());
}

static void test_default_path(void)
{
	char got[256], want[256], child[256], small[20];
	int pfd[2], st = -1;
	struct stat sb;
	pid_t pid;
	ssize_t n;

	if (stat("/dev/shm", &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		printf("# no /dev/shm: default path not checked\n");
		return;
	}
	unsetenv("SOFTMLX5_SHM_PATH");
	expected_default(want, sizeof(want));
	CHECK(smx_shm_default_path(got, sizeof(got)) == got);
	CHECKM(!strcmp(got, want), "default path %s, expected %s", got, want);
	CHECK(smx_shm_default_path(small, sizeof(small)) == NULL &&
	      errno == ENAMETOOLONG);

	/* Another network namespace, another host: another segment. */
	CHECK(pipe(pfd) == 0);
	pid = fork();
	if (pid == 0) {
		char mine[256] = "", exp[256] = "";

		close(pfd[0]);
		if (unshare(CLONE_NEWNET) == 0) {
			smx_shm_default_path(mine, sizeof(mine));
			expected_default(exp, sizeof(exp));
			if (strcmp(mine, exp))
				mine[0] = '!';	/* not what the docs say */
		}
		n = write(pfd[1], mine, strlen(mine) + 1);
		_exit(n > 0 ? 0 : 1);
	}
	close(pfd[1]);
	memset(child, 0, sizeof(child));
	n = read(pfd[0], child, sizeof(child) - 1);
	close(pfd[0]);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && n > 0);
	if (!child[0])
		printf("# cannot enter a new network namespace here: the "
		       "per-namespace path of a second host not checked\n");
	else
		CHECKM(child[0] == '/' && strcmp(child, got),
		       "a new network namespace gave '%s' (ours: %s)", child,
		       got);
	setenv("SOFTMLX5_SHM_PATH", path, 1);
}

int main(int argc, char **argv)
{
	unsetenv("SOFTMLX5_DEBUG");
	unsetenv("SOFTMLX5_CONFIG");
	setenv("SOFTMLX5_CONFIG", "/dev/null", 1);	/* the CLI's */
	cli = argc > 1 ? argv[1] : NULL;
	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-ctr-%d",
		 (int)getpid());
	if (access("/dev/shm", W_OK))
		snprintf(path, sizeof(path), "/tmp/softmlx5-test-ctr-%d",
			 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	test_table();
	test_alone();
	test_slots();
	test_no_segment();
	test_default_path();
	unlink(path);
	return smx_test_done();
}
