/* SPDX-License-Identifier: MIT */
/*
 * Stopping every other thread of this process for a moment, so that a
 * mapping can change under memory that threads may be writing (direct.c).
 *
 * Each other thread is sent a real-time signal whose handler parks it on a
 * futex, with every signal blocked, until smx_thaw(). A parked thread is in
 * user mode inside the handler: it makes no store and has no system call in
 * progress (an interrupted call either finished or is restarted after the
 * handler), so the kernel writes nothing on its behalf either. When that
 * cannot be had for every thread -- the signal is blocked or taken over by
 * the application, a thread is stopped or traced, io_uring / AIO may write
 * asynchronously, a thread does not answer in time -- smx_freeze() fails
 * and nothing stays stopped: the caller must then leave the mapping alone.
 *
 * Process-wide; callers serialize (direct.c holds its lock). No allocation
 * between smx_freeze() and smx_thaw(): a stopped thread may hold malloc's
 * locks.
 */
#ifndef SMX_DEVICE_FABRIC_FREEZE_H
#define SMX_DEVICE_FABRIC_FREEZE_H

/* 0: every other thread is parked; -errno: none is (why: a debug line). */
int smx_freeze(void);
void smx_thaw(void);

/* After fork(), in the child: it has one thread and nothing is stopped. */
void smx_freeze_reset_child(void);

#endif
