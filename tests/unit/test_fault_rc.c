/* SPDX-License-Identifier: MIT */
/*
 * RC over a lossy link between two processes (an acceptance test of the
 * inter-process transport; public verbs API and environment only).
 *
 * Both processes run with SOFTMLX5_FAULT="loss=5%,dup=1%,reorder=2%,seed=N"
 * (set before either opens the device; N from argv, default 1) and talk
 * over two RC QP pairs, path MTU 4096, timeout 12, retry_cnt 7,
 * rnr_retry 7. Each end floods the other with 480 requests (rc_flood.h):
 * SENDs, WRITEs, WRITEs with immediate, READs, FETCH_ADDs on a word of its
 * own, FETCH_ADDs on the other process's shared word (two adders),
 * CMP_SWAPs i -> i+1, every kind with every size of 0, 1, 63, 100, 512,
 * 4095, 4096, 4097, 8192, 12000, 30000 and 65536 bytes (atomics: 8), every
 * receive WQE posted beforehand. Then:
 *   - every WQE completes exactly once, in order, with IBV_WC_SUCCESS;
 *   - SEND payloads, byte_len, immediates and READ data are right, the
 *     WRITE data landed (checksum);
 *   - single-adder FETCH_ADD / CMP_SWAP return 0, 1, 2, ...; the shared
 *     word's FETCH_ADDs return a permutation of 0..N-1; every word ends
 *     at its count;
 *   - the device's counters moved: `softmlx5 counters --json` (the tool
 *     this build made, or $SOFTMLX5_TOOL) before and after, and
 *     local_ack_timeout_err + packet_seq_err + out_of_sequence grew (loss,
 *     reordering) and duplicate_request grew (duplicates); counters that
 *     cannot be read fail the test.
 *
 * `test_fault_rc --loop N` runs both ends in one process: every QP pair
 * is then joined by the loopback link in packets (the fault stage turns
 * it on), with the same checks.
 *
 * The segment is private to the test ($SOFTMLX5_SHM_PATH); a
 * watchdog (alarm) fails the test instead of letting it hang.
 * SOFTMLX5_DEBUG is dropped unless FRC_KEEP_DEBUG is set too (then every
 * go-back and retry is logged, with its reason).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "peer_test_util.h"
#include "rc_flood.h"
#include "smx_test.h"

#ifndef SMX_TOOL
#define SMX_TOOL "softmlx5"
#endif

#define NENDS 2
#define DEADLINE_MS 60000

static const uint8_t kinds[] = {
	FK_SEND, FK_WRITE, FK_WIMM, FK_READ, FK_FA1,
	FK_SEND, FK_CAS, FK_FAS, FK_WRITE, FK_READ,
};
static const uint32_t sizes[] = {
	0, 1, 63, 4095, 4096, 4097, 8192, 65536, 100, 12000, 512, 30000,
};
static const struct fcfg cfg = {
	.kinds = kinds, .nkinds = sizeof(kinds),
	.sizes = sizes, .nsizes = sizeof(sizes) / sizeof(sizes[0]),
	.nops = 480, .chunk = 32, .gap_us = 0,
	.mtu = IBV_MTU_4096,
};

static struct fplan plan;
static pid_t child_pid;

static void watchdog(int sig)
{
	static const char m[] = "test_fault_rc: WATCHDOG: traffic did not end "
				"within 100 s\n";

	(void)sig;
	if (write(2, m, sizeof(m) - 1) < 0)
		_exit(1);
	if (child_pid > 0)
		kill(child_pid, SIGKILL);
	_exit(1);
}

/* ------------------------------------------------------------------ */
/* counters                                                           */
/* ------------------------------------------------------------------ */

enum { C_ACK_TMO, C_PSN, C_OOS, C_DUP, NCNT };
static const char *const cnt_name[NCNT] = {
	"local_ack_timeout_err", "packet_seq_err", "out_of_sequence",
	"duplicate_request",
};

static bool read_counters(uint64_t v[NCNT], bool seen[NCNT], char *why,
			  size_t whylen)
{
	return peer_counters_read(getenv("SOFTMLX5_TOOL") ?
				  getenv("SOFTMLX5_TOOL") : SMX_TOOL,
				  cnt_name, NCNT, v, seen, why, whylen);
}

/* ------------------------------------------------------------------ */
/* the two sides                                                      */
/* ------------------------------------------------------------------ */

/* A process's shared word: the @n FETCH_ADDs on it (@vals, from the other
 * side's ends) returned 0..want-1 once each, and it ends at want. */
static void check_shared(const char *who, const uint64_t *vals, unsigned int n,
			 unsigned int want, struct fproc *p)
{
	CHECKM(n == want && fl_is_perm(vals, n), "%s: the %u FETCH_ADDs on its "
	       "shared word (of %u) did not return 0..%u once each", who, n,
	       want, want - 1);
	CHECKM(*fproc_shared(p) == want, "%s: shared word %llu, %u adds", who,
	       (unsigned long long)*fproc_shared(p), want);
}

/* The counters moved as 5% loss, 2% reordering and 1% duplication must
 * move them (c0 / c1: before / after). */
static void check_counters(bool counters, const uint64_t c0[NCNT],
			   uint64_t c1[NCNT], bool seen1[NCNT], char *why,
			   size_t whylen)
{
	uint64_t d[NCNT];
	unsigned int i;

	if (counters)
		counters = read_counters(c1, seen1, why, whylen);
	CHECKM(counters, "counters unreadable: %s", why);
	if (!counters)
		return;
	for (i = 0; i < NCNT; i++) {
		d[i] = c1[i] - c0[i];
		printf("counter %-22s %s +%llu\n", cnt_name[i],
		       seen1[i] ? "" : "(absent)", (unsigned long long)d[i]);
	}
	CHECKM(seen1[C_ACK_TMO] || seen1[C_PSN] || seen1[C_OOS],
	       "none of local_ack_timeout_err, packet_seq_err, "
	       "out_of_sequence in `softmlx5 counters --json`");
	CHECKM(d[C_ACK_TMO] + d[C_PSN] + d[C_OOS] > 0,
	       "5%% loss and 2%% reordering moved no local_ack_timeout_err / "
	       "packet_seq_err / out_of_sequence");
	CHECKM(seen1[C_DUP] && d[C_DUP] > 0, "1%% duplication did not move "
	       "duplicate_request (%s)", seen1[C_DUP] ? "stayed" : "absent");
}

static int side(int in, int out, unsigned int idx)
{
	static struct fend ends[NENDS];
	static struct fproc p;
	static uint64_t other[NENDS * 64], all[2 * NENDS * 64];
	const char *who = idx ? "B" : "A";
	struct fremote hello[NENDS], rem[NENDS];
	struct fqpcfg qc = { 12, 7, 7 };
	uint32_t nother[NENDS];
	uint64_t c0[NCNT] = { 0 }, c1[NCNT] = { 0 }, t0;
	bool seen0[NCNT], seen1[NCNT], counters = false;
	char why[512] = "", c;
	unsigned int i, n = 0, want = NENDS * plan.count[FK_FAS];
	bool ok;

	fproc_open(&p, NENDS * fend_bytes(&plan));
	for (i = 0; i < NENDS; i++) {
		fend_init(&ends[i], &p, &plan, i, idx, qc);
		ends[i].who = who;
		hello[i] = fend_hello(&ends[i]);
	}
	xwrite(out, hello, sizeof(hello));
	xread(in, rem, sizeof(rem));
	for (i = 0; i < NENDS; i++)
		if (fend_connect(&ends[i], &rem[i])) {
			fprintf(stderr, "%s: connecting link %u failed\n", who, i);
			return 2;
		}
	if (!idx)
		counters = read_counters(c0, seen0, why, sizeof(why));
	xwrite(out, "r", 1);
	xread(in, &c, 1);
	t0 = fl_now_ms();
	ok = flood_run(ends, NENDS, t0 + DEADLINE_MS, NULL);
	printf("%s: traffic over in %llu ms\n", who,
	       (unsigned long long)(fl_now_ms() - t0));
	CHECKM(ok, "%s: not everything completed within %d ms", who,
	       DEADLINE_MS);
	for (i = 0; i < NENDS; i++)
		fend_report(&ends[i], who);
	/* The shared-word FETCH_ADD results, to the word's owner. */
	for (i = 0; i < NENDS; i++) {
		xwrite(out, &ends[i].nshared, sizeof(uint32_t));
		xwrite(out, ends[i].shared_vals, ends[i].nshared * 8ull);
	}
	for (i = 0; i < NENDS; i++) {
		xread(in, &nother[i], sizeof(uint32_t));
		if (nother[i] > 64)
			return 2;
		xread(in, other, nother[i] * 8ull);
		memcpy(all + n, other, nother[i] * 8ull);
		n += nother[i];
	}
	/* The other side's requests have all completed: check memory. */
	for (i = 0; i < NENDS; i++)
		fend_check_mem(&ends[i], who);
	check_shared(who, all, n, want, &p);
	if (!idx)
		check_counters(counters, c0, c1, seen1, why, sizeof(why));
	xwrite(out, "e", 1);
	xread(in, &c, 1);	/* nobody destroys a QP under the other's traffic */
	for (i = 0; i < NENDS; i++)
		fend_destroy(&ends[i]);
	fproc_close(&p);
	printf("%s: ", who);
	return smx_test_done();
}

/* Both sides in this process: each its own context, PD and MR, the QP pairs
 * between them on the loopback link. */
static int both(void)
{
	static struct fend ends[2 * NENDS];
	static struct fproc p[2];
	struct fqpcfg qc = { 12, 7, 7 };
	uint64_t c0[NCNT] = { 0 }, c1[NCNT] = { 0 }, t0;
	bool seen0[NCNT], seen1[NCNT], counters;
	unsigned int i, k, want = NENDS * plan.count[FK_FAS];
	char why[512] = "";
	bool ok;

	for (k = 0; k < 2; k++) {
		fproc_open(&p[k], NENDS * fend_bytes(&plan));
		for (i = 0; i < NENDS; i++) {
			fend_init(&ends[k * NENDS + i], &p[k], &plan, i, k, qc);
			ends[k * NENDS + i].who = k ? "B" : "A";
		}
	}
	for (i = 0; i < NENDS; i++) {
		struct fremote a = fend_hello(&ends[i]);
		struct fremote b = fend_hello(&ends[NENDS + i]);

		if (fend_connect(&ends[i], &b) ||
		    fend_connect(&ends[NENDS + i], &a)) {
			fprintf(stderr, "connecting link %u failed\n", i);
			return 2;
		}
	}
	counters = read_counters(c0, seen0, why, sizeof(why));
	t0 = fl_now_ms();
	ok = flood_run(ends, 2 * NENDS, t0 + DEADLINE_MS, NULL);
	printf("traffic over in %llu ms\n",
	       (unsigned long long)(fl_now_ms() - t0));
	CHECKM(ok, "not everything completed within %d ms", DEADLINE_MS);
	for (i = 0; i < 2 * NENDS; i++) {
		fend_report(&ends[i], ends[i].who);
		fend_check_mem(&ends[i], ends[i].who);
	}
	/* Each process's shared word: the other side's FETCH_ADDs. */
	for (k = 0; k < 2; k++) {
		uint64_t all[2 * NENDS * 64];
		unsigned int n = 0;

		for (i = 0; i < NENDS; i++) {
			const struct fend *o = &ends[(1 - k) * NENDS + i];

			if (n + o->nshared > sizeof(all) / 8)
				return 2;
			memcpy(all + n, o->shared_vals, o->nshared * 8ull);
			n += o->nshared;
		}
		check_shared(k ? "B" : "A", all, n, want, &p[k]);
	}
	check_counters(counters, c0, c1, seen1, why, sizeof(why));
	for (i = 0; i < 2 * NENDS; i++)
		fend_destroy(&ends[i]);
	for (k = 0; k < 2; k++)
		fproc_close(&p[k]);
	return smx_test_done();
}

int main(int argc, char **argv)
{
	bool loop = argc > 1 && !strcmp(argv[1], "--loop");
	int seed = argc > 1 + loop ? atoi(argv[1 + loop]) : 1;
	char path[128], fault[128];
	int a[2], b[2], st = 0, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(fault, sizeof(fault), "loss=5%%,dup=1%%,reorder=2%%,seed=%d",
		 seed);
	setenv("SOFTMLX5_FAULT", fault, 1);
	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-fault-rc-%d",
		 (int)getpid());
	if (access("/dev/shm", W_OK))
		snprintf(path, sizeof(path), "/tmp/softmlx5-test-fault-rc-%d",
			 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	if (!getenv("FRC_KEEP_DEBUG"))
		unsetenv("SOFTMLX5_DEBUG");
	printf("SOFTMLX5_FAULT=%s\n", fault);
	fplan_make(&plan, &cfg);
	printf("%u requests per end (%u SEND, %u WRITE, %u WRITE_IMM, %u READ, "
	       "%u atomics), %u receives, %llu + %llu data bytes\n", plan.n,
	       plan.count[FK_SEND], plan.count[FK_WRITE], plan.count[FK_WIMM],
	       plan.count[FK_READ], plan.natomic, plan.nrecv,
	       (unsigned long long)plan.data_bytes,
	       (unsigned long long)plan.read_bytes);
	signal(SIGALRM, watchdog);
	signal(SIGPIPE, SIG_IGN);
	alarm(100);
	if (loop) {
		rc = both();
		alarm(0);
		fplan_free(&plan);
		unlink(path);
		return rc;
	}
	if (pipe(a) || pipe(b))
		return 2;
	fflush(stdout);
	child_pid = fork();
	if (child_pid < 0)
		return 2;
	if (child_pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGALRM, SIG_DFL);
		alarm(0);
		close(a[1]);
		close(b[0]);
		rc = side(a[0], b[1], 1);
		fplan_free(&plan);
		exit(rc);
	}
	close(a[0]);
	close(b[1]);
	rc = side(b[0], a[1], 0);
	if (waitpid(child_pid, &st, 0) != child_pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		fprintf(stderr, "B ended with status 0x%x\n", st);
		rc = 1;
	}
	alarm(0);
	fplan_free(&plan);
	unlink(path);
	return rc;
}
