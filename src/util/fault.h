/* SPDX-License-Identifier: MIT */
/*
 * Memory faults we expect. The device reads and writes memory that the
 * application may unmap under it (registered memory, which hardware pins;
 * we cannot), and the DPA runtime runs code that may fault: a thread arms a
 * recovery point for exactly that stretch, and a SIGSEGV / SIGBUS raised
 * there returns to it instead of killing the process.
 *
 * One handler per library that links this (libmlx5, libflexio), installed
 * once (smx_fault_init) and never removed; a fault with no point armed goes
 * to the handler that was there before it (ASan's, the application's, or
 * the default action: the program dies as it would without us). A handler
 * the application installs later without chaining takes faults away from
 * us (then a fault in a guarded access kills the process, as before).
 *
 * Cost (docs/multiprocess.md): one __builtin_setjmp and two thread-local
 * stores per guarded access (~2 ns on the 2-vCPU VM), no system call.
 */
#ifndef SMX_UTIL_FAULT_H
#define SMX_UTIL_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A recovery point. @recover is called from the signal handler, the point
 * already disarmed, and must not return (longjmp, setcontext). */
struct smx_fault_point {
	struct smx_fault_point *prev;
	void (*recover)(struct smx_fault_point *fp, int sig, void *addr);
};

/* initial-exec: the handler reads it, and a dynamic TLS access there could
 * allocate (a first access in a thread) inside a crashed malloc. */
extern __thread struct smx_fault_point *smx_fault_top
	__attribute__((tls_model("initial-exec")));

/* Installs the handler for SIGSEGV and SIGBUS (once; thread-safe). */
void smx_fault_init(void);

/* Arms / disarms @fp for this thread (innermost first). The signal fences
 * keep the compiler from moving the accesses out of the armed stretch. */
static inline void smx_fault_push(struct smx_fault_point *fp)
{
	fp->prev = smx_fault_top;
	smx_fault_top = fp;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void smx_fault_pop(struct smx_fault_point *fp)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	smx_fault_top = fp->prev;
}

/* memmove() that returns false, instead of faulting, when a page of either
 * range is not mapped (or not writable / readable); bytes before the
 * fault may have been copied. */
bool smx_fault_memmove(void *dst, const void *src, size_t n);
/* Runs @fn(@arg); false if it faulted (it was abandoned at the fault). */
bool smx_fault_run(void (*fn)(void *arg), void *arg);
/* Is every page of [p, p + n) readable (@write: writable)? One access per
 * page; the write probe adds 0 atomically, so concurrent stores survive. */
bool smx_fault_probe(void *p, size_t n, bool write);
/* The last fault this thread recovered from and nobody took yet (signal,
 * address); false if none. For the line that reports the failure. */
bool smx_fault_take(int *sig, void **addr);

#endif
