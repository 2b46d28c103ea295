/* SPDX-License-Identifier: MIT */
/*
 * Recovery from expected memory faults (fault.h).
 *
 * Why signals and not process_vm_readv() on ourselves (which fails with
 * EFAULT instead of faulting): it costs a system call per access (1.4-2.2 us
 * measured here, against ~2 ns for a guard), and it cannot do atomics.
 * Why __builtin_setjmp: it stores the frame, stack and resume addresses
 * only (the compiler keeps everything else in the frame); with
 * sigsetjmp(env, 0) test_fault's 8-byte guarded copy took 7.5 ns, with it
 * 4.4 (libc memmove 2.5). GCC has it on every target, clang on x86.
 * Neither saves the signal mask (a system call): the handler runs with
 * SA_NODEFER, so jumping out of it leaves SIGSEGV unblocked.
 */
#include "util/fault.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

__thread struct smx_fault_point *smx_fault_top
	__attribute__((tls_model("initial-exec")));
static __thread int fault_sig __attribute__((tls_model("initial-exec")));
static __thread void *fault_addr __attribute__((tls_model("initial-exec")));

static struct sigaction old_segv, old_bus;
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;

/* A fault that is not ours: to what was installed before. */
static void fault_chain(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *o = sig == SIGBUS ? &old_bus : &old_segv;
	struct sigaction dfl;

	/* SIG_DFL / SIG_IGN read the same through either member */
	if (o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN) {
		if (o->sa_flags & SA_SIGINFO)
			o->sa_sigaction(sig, si, uc);
		else
			o->sa_handler(sig);
		return;
	}
	/* The default action: a fault happens again when we return, a
	 * signal someone sent is sent again. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void fault_handler(int sig, siginfo_t *si, void *uc)
{
	struct smx_fault_point *fp = smx_fault_top;

	/* si_code > 0: raised by the kernel for an access (kill() and
	 * raise() give <= 0); SI_KERNEL for a non-canonical address. */
	if (fp && si->si_code > 0) {
		smx_fault_top = fp->prev;
		fault_sig = sig;
		fault_addr = si->si_addr;
		fp->recover(fp, sig, si->si_addr);
	}
	fault_chain(sig, si, uc);
}

static void fault_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fault_handler;
	/* SA_ONSTACK: the DPA runtime's harts catch stack overflows on an
	 * alternate stack; threads without one use their own. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
}

void smx_fault_init(void)
{
	pthread_once(&fault_once, fault_install);
}

/* A recovery point with __builtin_setjmp's buffer. */
struct fault_jmp {
	struct smx_fault_point fp;	/* first: the handler passes it */
	void *env[5];
};

static void fault_jmp_recover(struct smx_fault_point *fp, int sig, void *addr)
{
	(void)sig;
	(void)addr;
#if defined(__SANITIZE_ADDRESS__)
	/* the frames jumped over may leave stack poisoned (what ASan's
	 * longjmp interceptors do) */
	__asan_handle_no_return();
#endif
	__builtin_longjmp(((struct fault_jmp *)(void *)fp)->env, 1);
}

bool smx_fault_memmove(void *dst, const void *src, size_t n)
{
	struct fault_jmp j;

	j.fp.recover = fault_jmp_recover;
	if (__builtin_setjmp(j.env))
		return false;	/* the handler disarmed j */
	smx_fault_push(&j.fp);
	if (n - 8 <= 8) {
		/* 8 to 16 bytes (the fast lane's 8-byte READ) without a
		 * call into libc, which cost ~2 ns in situ; both words are
		 * loaded before either is stored, as memmove() */
		uint64_t a, b;

		memcpy(&a, src, 8);
		memcpy(&b, (const uint8_t *)src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy((uint8_t *)dst + n - 8, &b, 8);
	} else {
		memmove(dst, src, n);
	}
	smx_fault_pop(&j.fp);
	return true;
}

bool smx_fault_run(void (*fn)(void *arg), void *arg)
{
	struct fault_jmp j;

	j.fp.recover = fault_jmp_recover;
	if (__builtin_setjmp(j.env))
		return false;
	smx_fault_push(&j.fp);
	fn(arg);
	smx_fault_pop(&j.fp);
	return true;
}

struct fault_probe {
	uint8_t *p;
	size_t n;
	bool write;
};

/* 4 KiB steps: no page is smaller. */
static void fault_probe_fn(void *arg)
{
	const struct fault_probe *pr = arg;
	uintptr_t a = (uintptr_t)pr->p, end = a + pr->n;

	while (a < end) {
		if (pr->write)
			__atomic_fetch_or((uint8_t *)a, 0, __ATOMIC_RELAXED);
		else
			(void)*(volatile const uint8_t *)a;
		a = (a | 4095u) + 1;
	}
}

bool smx_fault_probe(void *p, size_t n, bool write)
{
	struct fault_probe pr = { p, n, write };

	return !n || smx_fault_run(fault_probe_fn, &pr);
}

bool smx_fault_take(int *sig, void **addr)
{
	*sig = fault_sig;
	*addr = fault_addr;
	fault_sig = 0;
	return *sig != 0;
}
