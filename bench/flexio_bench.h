/* SPDX-License-Identifier: MIT */
/*
 * What the FlexIO benchmark's host program and its DPA event handler share:
 * the queue geometry, the handler's context (host-built, copied to DPA
 * memory, the thread argument) and the host buffer the handler reaches
 * through a window.
 */
#ifndef FLEXIO_BENCH_H
#define FLEXIO_BENCH_H

#include <stdint.h>

#define FB_LOG_CQ 7		/* 128 CQEs */
#define FB_LOG_RQ 6		/* 64 receive WQEs of 16 bytes */
#define FB_LOG_SQ 2		/* unused by the handler; the QP needs one */
#define FB_MSG 64		/* receive buffer per WQE */
#define FB_CQE_TS_OFF 0x30	/* CQE timestamp, PRM dwords 0Ch..0Dh */

struct fb_ctx {
	/* set up by the host */
	uint64_t cq_ring, cq_dbr, qp_dbr;	/* DPA addresses */
	uint64_t host_buf;			/* struct fb_host, host address */
	uint32_t cqn, window_id, host_mkey;
	uint32_t max_samples;
	/* handler state, kept across activations */
	uint64_t win;				/* host_buf as the window shows it */
	uint32_t ci;
	uint32_t pad;
	uint64_t cqes, activations;
};

/* In host memory, written by the handler through its window. */
struct fb_host {
	volatile uint64_t seen;		/* CQEs consumed so far */
	volatile uint64_t activations;
	volatile uint64_t bad;		/* CQEs that were not a receive */
	uint64_t lat_ns[];		/* per activation: handler start - CQE timestamp */
};

#endif
