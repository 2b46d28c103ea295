/* SPDX-License-Identifier: MIT */
/*
 * What the host and the DPA event handler of the packet-processor sample
 * share: queue geometry, the two MAC addresses, and the handler's context,
 * which the host copies to DPA memory and passes as the thread argument.
 */
#ifndef PP_COMMON_H
#define PP_COMMON_H

#include <stdint.h>

#define PP_LOG_CQ 7		/* 128 CQEs per CQ */
#define PP_LOG_RQ 6		/* 64 receive WQEs of 16 bytes (cyclic RQ) */
#define PP_LOG_SQ 6		/* 64 send WQEBBs of 64 bytes */
#define PP_BUF 2048		/* one frame buffer */

/* The DPA's MAC (frames to it are steered to its RQ) and the host's. */
#define PP_DPA_MAC { 0x02, 0x42, 0x7e, 0x7f, 0xeb, 0x02 }
#define PP_HOST_MAC { 0x02, 0x42, 0x7e, 0x7f, 0xeb, 0x01 }

struct pp_ctx {
	/* set up by the host */
	uint32_t sq_num, lkey, rq_cqn, sq_cqn;
	uint64_t rq_cq_ring, rq_cq_dbr;		/* DPA addresses */
	uint64_t sq_cq_ring, sq_cq_dbr;
	uint64_t rq_dbr, sq_ring;
	uint64_t rx_data, tx_data;
	/* handler state, kept across activations */
	uint32_t rq_cq_ci, sq_cq_ci, sq_pi;
	uint32_t errors;
	uint64_t frames, activations;
};

#endif
