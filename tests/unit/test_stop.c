/* SPDX-License-Identifier: MIT */
/*
 * A process stopped or killed in the middle of RC traffic, as a debugger's
 * breakpoint or the OOM killer would (an acceptance test of the
 * inter-process transport; public verbs API only, rc_flood.h).
 *
 *   flood  T owns four RC QPs, two to peer P1 and two to peer P2; T's QP of
 *          link 0 has timeout 0 (no ACK timer), every other QP timeout 14,
 *          retry_cnt 7, rnr_retry 7. All ends post every receive WQE the
 *          other end will consume, then flood each other in paced rounds
 *          (SENDs of 1 B..7000 B, 96 per end; WRITEs; READs; FETCH_ADDs on
 *          a word only that end adds to; FETCH_ADDs on the target
 *          process's shared word from every remote end; CMP_SWAPs i ->
 *          i+1). A quarter of the way in, T stops itself (SIGSTOP) right
 *          after posting a round, with its own WQEs outstanding and the
 *          peers still posting; the orchestrator continues it after 2 s.
 *          Every WQE on every side must complete with IBV_WC_SUCCESS
 *          exactly once and in order, SEND payloads and READ data must be
 *          right, WRITE data must have landed (checksum), every
 *          single-adder FETCH_ADD / CMP_SWAP must return exactly 0, 1,
 *          2, ..., the values a shared word's FETCH_ADDs returned must be
 *          a permutation of 0..N-1 (and increase on each QP), and every
 *          word must end at its count. On hardware the responder side is
 *          the HCA, which keeps answering while the process is stopped;
 *          an ACK timeout towards a stopped peer costs no retry, so
 *          the peers wait instead of ending in "transport retry counter
 *          exceeded".
 *
 *   kill   T owns three RC QPs to peer P: timeout 0, timeout 12 /
 *          retry_cnt 1 and timeout 14 / retry_cnt 1 (rnr_retry 7 each).
 *          P posts no receive WQE, so T's first SEND on each QP is
 *          answered with RNR NAKs (82 ms) for as long as P lives (timeout
 *          10, 4 ms, missed a live peer's answer on a loaded 2-core
 *          machine), and a WRITE, a
 *          READ, a FETCH_ADD, a CMP_SWAP and another SEND wait behind it.
 *          For 0.5 s nothing may complete; then P is SIGKILLed. Each QP's
 *          first WQE must complete with IBV_WC_RETRY_EXC_ERR and the five
 *          others with IBV_WC_WR_FLUSH_ERR, once each, in order -- also on
 *          the timeout-0 QP, which docs/multiprocess.md says "waits while
 *          the peer lives and fails once it is gone".
 *
 * Usage: test_stop [flood|kill]   (no argument: both). The processes are
 * children of an orchestrator that opens no device; a watchdog (alarm)
 * kills them all and fails with the phase it hung in. The segment is
 * private to the test ($SOFTMLX5_SHM_PATH).
 */
#include <errno.h>
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

#define MAXKIDS 3
#define MAXENDS 4

struct kid {
	pid_t pid;
	int to, from;	/* orchestrator's ends of the pipes */
};

static struct kid kids[MAXKIDS];
static unsigned int nkids;
static const char *volatile phase = "start";

static void watchdog(int sig)
{
	static const char m1[] = "test_stop: WATCHDOG: hung in phase: ";
	unsigned int i;

	(void)sig;
	if (write(2, m1, sizeof(m1) - 1) < 0 ||
	    write(2, phase, strlen(phase)) < 0 || write(2, "\n", 1) < 0)
		_exit(1);
	for (i = 0; i < nkids; i++)
		if (kids[i].pid > 0)
			kill(kids[i].pid, SIGKILL);
	_exit(1);
}

/* Forks a child running @fn(in, out, arg); the child exits with its
 * return value and dies with the orchestrator. */
static void spawn(int (*fn)(int, int, int), int arg)
{
	int a[2], b[2];
	pid_t pid;

	if (pipe(a) || pipe(b))
		exit(2);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (pid == 0) {
		int rc;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGALRM, SIG_DFL);
		alarm(0);
		close(a[1]);
		close(b[0]);
		rc = fn(a[0], b[1], arg);
		fflush(stdout);
		exit(rc);
	}
	close(a[0]);
	close(b[1]);
	kids[nkids++] = (struct kid){ pid, a[1], b[0] };
}

/* The exit status of child @k; false (and a line) unless it exited 0. */
static bool reap(unsigned int k, const char *name)
{
	int st = 0;

	if (waitpid(kids[k].pid, &st, 0) != kids[k].pid)
		return false;
	kids[k].pid = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	if (WIFEXITED(st))
		fprintf(stderr, "%s exited with %d\n", name, WEXITSTATUS(st));
	else
		fprintf(stderr, "%s ended by signal %d\n", name,
			WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	return false;
}

/* ------------------------------------------------------------------ */
/* flood                                                              */
/* ------------------------------------------------------------------ */

static const uint8_t flood_kinds[] = {
	FK_SEND, FK_WRITE, FK_SEND, FK_FA1, FK_WRITE,
	FK_READ, FK_FAS, FK_SEND, FK_CAS, FK_FAS,
};
static const uint32_t flood_sizes[] = { 1, 64, 333, 4096, 4097, 7000, 16, 2048 };
static const struct fcfg flood_cfg = {
	.kinds = flood_kinds, .nkinds = sizeof(flood_kinds),
	.sizes = flood_sizes, .nsizes = sizeof(flood_sizes) / sizeof(flood_sizes[0]),
	.nops = 320,		/* 96 SENDs, 64 WRITEs, 32 READs, 128 atomics */
	.chunk = 10, .gap_us = 25000,	/* 32 rounds: ~0.8 s */
	.mtu = IBV_MTU_1024,
};
#define STOP_ROUND 8		/* T stops after posting this round */
#define STOP_MS 2000
#define FLOOD_DEADLINE_MS 10000	/* after "go" */

static struct fplan plan;

/* What a child tells the orchestrator when its traffic is over. */
struct flood_done {
	uint32_t ok;		/* everything completed */
	uint32_t outstanding;	/* T: its WQEs not completed when it stopped */
	uint32_t stopped_ms;	/* T: how long it was stopped */
	uint32_t nshared[MAXENDS];
};

static struct flood_done t_done;

static void t_hook(struct fend *e, unsigned int n, unsigned int round)
{
	uint64_t t0;
	unsigned int i;

	if (round != STOP_ROUND)
		return;
	for (i = 0; i < n; i++)
		t_done.outstanding += e[i].posted - e[i].sdone;
	t0 = fl_now_ms();
	/* A breakpoint: every thread of T, device threads included. */
	kill(getpid(), SIGSTOP);
	t_done.stopped_ms = (uint32_t)(fl_now_ms() - t0);
}

/* T (@idx 0) or a peer (@idx 1, 2). */
static int flood_child(int in, int out, int idx)
{
	static struct fend ends[MAXENDS];
	static struct fproc p;
	struct fqpcfg std = { 14, 7, 7 }, none = { 0, 7, 7 };
	struct fremote hello[MAXENDS], rem[MAXENDS];
	unsigned int n = idx == 0 ? 4 : 2, i;
	const char *who = idx == 0 ? "T" : idx == 1 ? "P1" : "P2";
	uint64_t shared_want;
	char c;

	fproc_open(&p, n * fend_bytes(&plan));
	for (i = 0; i < n; i++) {
		unsigned int link = idx == 0 ? i : (unsigned int)(idx - 1) * 2 + i;

		fend_init(&ends[i], &p, &plan, link, idx == 0 ? 0 : 1,
			  idx == 0 && i == 0 ? none : std);
		ends[i].who = who;
		hello[i] = fend_hello(&ends[i]);
	}
	xwrite(out, hello, sizeof(hello));
	xread(in, rem, sizeof(rem));
	for (i = 0; i < n; i++)
		if (fend_connect(&ends[i], &rem[i])) {
			fprintf(stderr, "%s: connecting link %u failed\n", who,
				ends[i].link);
			return 2;
		}
	xwrite(out, "r", 1);
	xread(in, &c, 1);	/* go */
	t_done.ok = flood_run(ends, n, fl_now_ms() + FLOOD_DEADLINE_MS,
			      idx == 0 ? t_hook : NULL);
	for (i = 0; i < n; i++) {
		fend_report(&ends[i], who);
		t_done.nshared[i] = ends[i].nshared;
	}
	xwrite(out, &t_done, sizeof(t_done));
	for (i = 0; i < n; i++)
		xwrite(out, ends[i].shared_vals, ends[i].nshared * sizeof(uint64_t));
	xread(in, &c, 1);	/* every side's traffic is over */
	for (i = 0; i < n; i++)
		fend_check_mem(&ends[i], who);
	shared_want = (idx == 0 ? 4ull : 2ull) * plan.count[FK_FAS];
	CHECKM(*fproc_shared(&p) == shared_want, "%s: shared word %llu, %llu "
	       "FETCH_ADDs of 1 from its peers", who,
	       (unsigned long long)*fproc_shared(&p),
	       (unsigned long long)shared_want);
	for (i = 0; i < n; i++)
		fend_destroy(&ends[i]);
	fproc_close(&p);
	printf("%s: ", who);
	return smx_test_done();
}

static void case_flood(void)
{
	static const char *const names[] = { "T", "P1", "P2" };
	struct fremote hello[3][MAXENDS], rem[3][MAXENDS];
	struct flood_done done[3];
	static uint64_t vals[3][MAXENDS][64];
	unsigned int i, j;
	char c;
	int st;

	printf("== flood: T stopped for %d ms in the middle of RC traffic "
	       "with P1 and P2\n", STOP_MS);
	nkids = 0;
	fplan_make(&plan, &flood_cfg);
	alarm(20);
	phase = "flood: setup";
	for (i = 0; i < 3; i++)
		spawn(flood_child, (int)i);
	for (i = 0; i < 3; i++)
		xread(kids[i].from, hello[i], sizeof(hello[i]));
	/* links 0,1: T e0,e1 <-> P1 e0,e1; links 2,3: T e2,e3 <-> P2 e0,e1 */
	memset(rem, 0, sizeof(rem));
	for (j = 0; j < 4; j++) {
		rem[0][j] = hello[1 + j / 2][j % 2];
		rem[1 + j / 2][j % 2] = hello[0][j];
	}
	for (i = 0; i < 3; i++)
		xwrite(kids[i].to, rem[i], sizeof(rem[i]));
	for (i = 0; i < 3; i++)
		xread(kids[i].from, &c, 1);
	phase = "flood: traffic, waiting for T to stop itself";
	for (i = 0; i < 3; i++)
		xwrite(kids[i].to, "g", 1);
	if (waitpid(kids[0].pid, &st, WUNTRACED) != kids[0].pid ||
	    !WIFSTOPPED(st)) {
		fprintf(stderr, "T did not stop (status 0x%x)\n", st);
		CHECK(0);
		kids[0].pid = 0;
	} else {
		phase = "flood: T stopped";
		usleep(STOP_MS * 1000);
		kill(kids[0].pid, SIGCONT);
	}
	phase = "flood: traffic after SIGCONT";
	for (i = 0; i < 3; i++) {
		xread(kids[i].from, &done[i], sizeof(done[i]));
		for (j = 0; j < (i ? 2u : 4u); j++) {
			if (done[i].nshared[j] > 64)
				exit(2);
			xread(kids[i].from, vals[i][j],
			      done[i].nshared[j] * sizeof(uint64_t));
		}
	}
	printf("T had %u WQEs outstanding when it stopped; stopped %u ms\n",
	       done[0].outstanding, done[0].stopped_ms);
	CHECKM(done[0].outstanding > 0, "T stopped with no WQE outstanding: "
	       "the case tests nothing");
	CHECKM(done[0].stopped_ms >= STOP_MS - 100, "T was stopped %u ms",
	       done[0].stopped_ms);
	for (i = 0; i < 3; i++)
		CHECKM(done[i].ok, "%s: traffic did not complete within %d ms",
		       names[i], FLOOD_DEADLINE_MS);
	/* Shared words: T's gets the adds of P1's and P2's four ends, P1's
	 * those of T's e0/e1, P2's those of T's e2/e3. */
	for (i = 0; i < 3; i++) {
		uint64_t all[256];
		unsigned int n = 0, want = (i ? 2 : 4) * plan.count[FK_FAS];

		if (i == 0) {
			for (j = 0; j < 4; j++) {
				unsigned int s = 1 + j / 2, e = j % 2;

				memcpy(all + n, vals[s][e], done[s].nshared[e] * 8);
				n += done[s].nshared[e];
			}
		} else {
			for (j = 0; j < 2; j++) {
				unsigned int e = (i - 1) * 2 + j;

				memcpy(all + n, vals[0][e], done[0].nshared[e] * 8);
				n += done[0].nshared[e];
			}
		}
		CHECKM(n == want && fl_is_perm(all, n), "%s's shared word: %u "
		       "FETCH_ADD results of %u are not a permutation of 0..%u",
		       names[i], n, want, want - 1);
	}
	phase = "flood: checking memory";
	for (i = 0; i < 3; i++)
		xwrite(kids[i].to, "c", 1);
	for (i = 0; i < 3; i++)
		CHECK(reap(i, names[i]));
	for (i = 0; i < 3; i++) {
		close(kids[i].to);
		close(kids[i].from);
	}
	alarm(0);
	fplan_free(&plan);
}

/* ------------------------------------------------------------------ */
/* kill                                                               */
/* ------------------------------------------------------------------ */

static const uint8_t kill_kinds[] = {
	FK_SEND, FK_WRITE, FK_READ, FK_FA1, FK_CAS, FK_SEND,
};
static const uint32_t kill_sizes[] = { 64 };
static const struct fcfg kill_cfg = {
	.kinds = kill_kinds, .nkinds = sizeof(kill_kinds),
	.sizes = kill_sizes, .nsizes = 1,
	.nops = 6, .chunk = 6, .mtu = IBV_MTU_1024,
};
#define KILL_ENDS 3
static const struct fqpcfg kill_qc[KILL_ENDS] = {
	{ 0, 7, 7 }, { 12, 1, 7 }, { 14, 1, 7 },
};
/* From the kill to the error CQE, at most: ACK timer x (retry_cnt + 1)
 * plus slack; the timeout-0 QP looks at its peer about once a second. */
static const unsigned int kill_limit_ms[KILL_ENDS] = { 4000, 1500, 1500 };

/* T (@idx 0) or P (@idx 1). */
static int kill_child(int in, int out, int idx)
{
	static struct fend ends[KILL_ENDS];
	static struct fproc p;
	struct fremote hello[KILL_ENDS], rem[KILL_ENDS];
	unsigned int i, early = 0;
	uint64_t t0, first_ms[KILL_ENDS] = { 0 };
	char c;

	fproc_open(&p, KILL_ENDS * fend_bytes(&plan));
	for (i = 0; i < KILL_ENDS; i++) {
		fend_init(&ends[i], &p, &plan, i, (unsigned int)idx,
			  idx ? (struct fqpcfg){ 14, 7, 7 } : kill_qc[i]);
		ends[i].no_recv = true;	/* P: RNR NAKs; T: nothing to flush */
		/* P's RNR NAKs ask for 82 ms: few rounds while it lives, each
		 * of which a loaded machine must answer within T's timer. */
		ends[i].min_rnr = 26;
		hello[i] = fend_hello(&ends[i]);
	}
	xwrite(out, hello, sizeof(hello));
	xread(in, rem, sizeof(rem));
	for (i = 0; i < KILL_ENDS; i++)
		if (fend_connect(&ends[i], &rem[i]))
			return 2;
	xwrite(out, "r", 1);
	if (idx) {	/* P: answers only what its device answers */
		for (;;)
			pause();
	}
	xread(in, &c, 1);	/* go */
	for (i = 0; i < KILL_ENDS; i++)
		CHECK(fend_post(&ends[i], 6));
	/* While P lives: RNR NAKs, nothing completes (timeout 0 included). */
	t0 = fl_now_ms();
	while (fl_now_ms() - t0 < 500) {
		struct ibv_wc wc;

		for (i = 0; i < KILL_ENDS; i++)
			while (ibv_poll_cq(ends[i].scq, 1, &wc) == 1) {
				early++;
				fprintf(stderr, "  link %u (timeout %u): wr_id "
					"%llu completed while P lives: %s\n", i,
					kill_qc[i].timeout,
					(unsigned long long)wc.wr_id,
					ibv_wc_status_str(wc.status));
			}
		usleep(1000);
	}
	CHECKM(early == 0, "%u CQEs while the peer was alive and not "
	       "answering (RNR)", early);
	xwrite(out, "k", 1);
	xread(in, &c, 1);	/* P is dead */
	t0 = fl_now_ms();
	for (i = 0; i < KILL_ENDS; i++)
		ends[i].sdone = 0;
	for (;;) {
		bool all = true;

		for (i = 0; i < KILL_ENDS; i++) {
			struct fend *e = &ends[i];
			struct ibv_wc wc;

			while (ibv_poll_cq(e->scq, 1, &wc) == 1) {
				enum ibv_wc_status want = e->sdone ? IBV_WC_WR_FLUSH_ERR :
						      IBV_WC_RETRY_EXC_ERR;

				if (!e->sdone)
					first_ms[i] = fl_now_ms() - t0;
				CHECKM(wc.wr_id == e->sdone && wc.status == want,
				       "link %u (timeout %u retry_cnt %u): CQE %u:"
				       " wr_id %llu status \"%s\", expected wr_id "
				       "%u \"%s\"", i, kill_qc[i].timeout,
				       kill_qc[i].retry_cnt, e->sdone,
				       (unsigned long long)wc.wr_id,
				       ibv_wc_status_str(wc.status), e->sdone,
				       ibv_wc_status_str(want));
				e->sdone++;
			}
			all &= e->sdone >= 6;
		}
		if (all || fl_now_ms() - t0 > 6000)
			break;
		usleep(1000);
	}
	usleep(50000);
	for (i = 0; i < KILL_ENDS; i++) {
		struct ibv_wc wc;
		unsigned int extra = 0;

		while (ibv_poll_cq(ends[i].scq, 1, &wc) == 1)
			extra++;
		printf("T link %u (timeout %u, retry_cnt %u): %u of 6 WQEs "
		       "completed, the first %llu ms after the kill\n", i,
		       kill_qc[i].timeout, kill_qc[i].retry_cnt, ends[i].sdone,
		       (unsigned long long)first_ms[i]);
		CHECKM(ends[i].sdone == 6, "link %u (timeout %u): %u of 6 WQEs "
		       "completed within 6 s of the peer's death", i,
		       kill_qc[i].timeout, ends[i].sdone);
		CHECKM(extra == 0, "link %u: %u CQEs beyond the last", i, extra);
		CHECKM(ends[i].sdone == 0 || first_ms[i] <= kill_limit_ms[i],
		       "link %u (timeout %u): error CQE %llu ms after the kill "
		       "(limit %u)", i, kill_qc[i].timeout,
		       (unsigned long long)first_ms[i], kill_limit_ms[i]);
	}
	for (i = 0; i < KILL_ENDS; i++)
		fend_destroy(&ends[i]);
	fproc_close(&p);
	printf("T: ");
	return smx_test_done();
}

static void case_kill(void)
{
	struct fremote hello[2][KILL_ENDS];
	char c;

	printf("== kill: P SIGKILLed while T has WQEs outstanding to it\n");
	nkids = 0;
	fplan_make(&plan, &kill_cfg);
	alarm(20);
	phase = "kill: setup";
	spawn(kill_child, 0);
	spawn(kill_child, 1);
	xread(kids[0].from, hello[0], sizeof(hello[0]));
	xread(kids[1].from, hello[1], sizeof(hello[1]));
	xwrite(kids[0].to, hello[1], sizeof(hello[1]));
	xwrite(kids[1].to, hello[0], sizeof(hello[0]));
	xread(kids[0].from, &c, 1);
	xread(kids[1].from, &c, 1);
	phase = "kill: T posting to a live P that answers RNR";
	xwrite(kids[0].to, "g", 1);
	xread(kids[0].from, &c, 1);
	kill(kids[1].pid, SIGKILL);
	waitpid(kids[1].pid, NULL, 0);
	kids[1].pid = 0;
	phase = "kill: T waiting for its error completions";
	xwrite(kids[0].to, "d", 1);
	CHECK(reap(0, "T"));
	close(kids[0].to);
	close(kids[0].from);
	close(kids[1].to);
	close(kids[1].from);
	alarm(0);
	fplan_free(&plan);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";
	bool flood = !strcmp(mode, "flood") || !strcmp(mode, "all");
	bool kil = !strcmp(mode, "kill") || !strcmp(mode, "all");
	char path[128];

	if (!flood && !kil) {
		fprintf(stderr, "usage: test_stop [flood|kill]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-stop-%d",
		 (int)getpid());
	if (access("/dev/shm", W_OK))
		snprintf(path, sizeof(path), "/tmp/softmlx5-test-stop-%d",
			 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	unsetenv("SOFTMLX5_DEBUG");
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, watchdog);
	signal(SIGPIPE, SIG_IGN);
	if (kil)
		case_kill();
	if (flood)
		case_flood();
	unlink(path);
	return smx_test_done();
}
