/* SPDX-License-Identifier: MIT */
/*
 * util/fault.h: guarded accesses recover from SIGSEGV / SIGBUS; every other
 * fault, and a SIGSEGV someone sends, goes where it went before -- the
 * handler installed earlier, or the default action. Prints what a guarded
 * 8-byte copy costs next to memmove().
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "smx_test.h"
#include "util/fault.h"

static uint8_t *page;		/* PROT_NONE until the earlier handler fixes it */
static volatile int earlier_calls;

/* The application's handler, installed before ours: makes the page
 * accessible, so the faulting access runs again and succeeds. */
static void earlier(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	earlier_calls++;
	if ((uint8_t *)si->si_addr >= page && (uint8_t *)si->si_addr < page + 4096)
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
	else
		_exit(3);	/* a fault nobody expected */
}

static void fault_in(void *arg)
{
	*(volatile uint8_t *)arg = 1;
}

static void nested(void *arg)
{
	uint8_t x = 0;

	/* the inner point takes the fault; this one carries on ... */
	CHECK(!smx_fault_memmove(&x, arg, 1));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* the count first */
	*(volatile uint8_t *)arg = 1;	/* ... and takes this one */
}

static void raise_segv(void *arg)
{
	(void)arg;
	raise(SIGSEGV);
}

static void *thread_copy(void *arg)
{
	uint8_t x[8];

	return (void *)(uintptr_t)smx_fault_memmove(x, arg, 8);
}

/* This program again, with @mode: its wait status. */
static int rerun(const char *mode)
{
	int st = 0;
	pid_t p = fork();

	if (p == 0) {
		execl("/proc/self/exe", "test_fault", mode, (char *)NULL);
		_exit(4);
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return st;
}

/* Killed by SIGSEGV (under ASan, whose handler was there before ours:
 * its report and a non-zero exit). */
static bool died_of_segv(int st)
{
#if defined(__SANITIZE_ADDRESS__)
	return st != -1 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
#else
	return st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
#endif
}

static double ns_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* libc's, as the engine calls it (lengths it cannot know) */
static void *(*volatile libc_memmove)(void *, const void *, size_t) = memmove;

static void measure(void)
{
	static uint8_t a[64], b[64];
	const int n = 5000000;
	double t0, plain = 1e9, guarded = 1e9, d;
	int r, i;

	for (r = 0; r < 3; r++) {
		t0 = ns_now();
		for (i = 0; i < n; i++)
			libc_memmove(a + (i & 7), b, 8);
		d = (ns_now() - t0) / n;
		plain = d < plain ? d : plain;
		t0 = ns_now();
		for (i = 0; i < n; i++)
			smx_fault_memmove(a + (i & 7), b, 8);
		d = (ns_now() - t0) / n;
		guarded = d < guarded ? d : guarded;
	}
	printf("guarded 8-byte copy: %.1f ns, memmove: %.1f ns (best of 3)\n",
	       guarded, plain);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	uint8_t *hole, buf[16] = { 0 }, big[64], *ro;
	pthread_t th;
	void *ret;
	void *addr;
	int sig;

	/* Modes for rerun(): ours over the default action. A fault outside
	 * a guard still kills, and so does a SIGSEGV raised inside one. */
	if (argc > 1) {
		smx_fault_init();
		if (!strcmp(argv[1], "unguarded"))
			fault_in(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE |
				      MAP_ANONYMOUS, -1, 0));
		else
			smx_fault_run(raise_segv, NULL);
		return 0;
	}
	CHECK(died_of_segv(rerun("unguarded")));
	CHECK(died_of_segv(rerun("raise")));

	/* Ours over a handler the program installed before. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = earlier;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || hole == MAP_FAILED || ro == MAP_FAILED ||
	    munmap(hole + 4096, 4096) || sigaction(SIGSEGV, &sa, NULL))
		return 2;
	smx_fault_init();
	smx_fault_init();	/* once: a second call installs nothing */

	/* Guarded accesses: copy, write, probe, nesting, other threads;
	 * none reaches the earlier handler (it would _exit(3)). */
	memset(hole, 0x5a, 4096);
	CHECK(smx_fault_memmove(buf, hole + 4088, 8));
	CHECK_EQ(buf[7], 0x5a);
	CHECK(!smx_fault_memmove(buf, hole + 4090, 16));	/* crosses */
	CHECK(smx_fault_take(&sig, &addr));
	CHECK_EQ(sig, SIGSEGV);
	CHECK((uint8_t *)addr >= hole + 4096 && (uint8_t *)addr < hole + 4106);
	CHECK(!smx_fault_take(&sig, &addr));	/* taken */
	CHECK(!smx_fault_memmove(hole + 4096, buf, 8));
	CHECK(smx_fault_memmove(big, hole + 4032, 64));	/* through libc */
	CHECK_EQ(big[63], 0x5a);
	CHECK(!smx_fault_memmove(big, hole + 4064, 64));
	CHECK(smx_fault_memmove(buf, hole + 4091, 5));
	CHECK(!smx_fault_memmove(buf, hole + 4092, 5));
	for (sig = 0; sig < 16; sig++)
		hole[sig] = (uint8_t)sig;
	CHECK(smx_fault_memmove(hole + 8, hole, 16));	/* overlapping */
	CHECK(hole[8] == 0 && hole[15] == 7 && hole[16] == 8 && hole[23] == 15);
	CHECK(!smx_fault_run(fault_in, hole + 4100));
	CHECK(!smx_fault_run(fault_in, (void *)0xdead000000000000ull)); /* GP */
	CHECK(smx_fault_probe(ro, 4096, false));
	CHECK(!smx_fault_probe(ro, 4096, true));	/* read-only */
	CHECK(smx_fault_probe(hole, 4096, true));
	CHECK(!smx_fault_probe(hole, 4097, false));
	CHECK(!smx_fault_run(nested, hole + 4096));
	CHECK(smx_fault_top == NULL);
	CHECK(pthread_create(&th, NULL, thread_copy, hole + 4092) == 0);
	CHECK(pthread_join(th, &ret) == 0);
	CHECK(ret == NULL);
	CHECK(pthread_create(&th, NULL, thread_copy, hole) == 0);
	CHECK(pthread_join(th, &ret) == 0);
	CHECK(ret == (void *)1);
	CHECK_EQ(earlier_calls, 0);

	/* A fault outside a guard: the earlier handler fixes the page and
	 * the access runs again. */
	*(volatile uint8_t *)page = 7;
	CHECK_EQ(earlier_calls, 1);
	CHECK_EQ(*(volatile uint8_t *)page, 7);

	measure();
	return smx_test_done();
}
