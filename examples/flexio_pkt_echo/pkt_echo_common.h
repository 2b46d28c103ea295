/* SPDX-License-Identifier: MIT */
/*
 * What the host and the DPA event handler of the packet-echo sample share:
 * the queue geometry and the handler's context, which the host copies to
 * DPA memory and passes as the thread argument.
 */
#ifndef PKT_ECHO_COMMON_H
#define PKT_ECHO_COMMON_H

#include <stdint.h>

#define ECHO_LOG_CQ 7		/* 128 CQEs per CQ */
#define ECHO_LOG_RQ 6		/* 64 receive WQEs of 16 bytes */
#define ECHO_LOG_SQ 6		/* 64 send WQEBBs of 64 bytes */
#define ECHO_BUF 2048		/* one packet buffer */
#define ECHO_HDR 12		/* destination and source "MAC" the DPA swaps */

struct echo_ctx {
	/* set up by the host */
	uint32_t qpn, lkey, rq_cqn, sq_cqn;
	uint64_t rq_cq_ring, rq_cq_dbr;		/* DPA addresses */
	uint64_t sq_cq_ring, sq_cq_dbr;
	uint64_t rq_ring, sq_ring, qp_dbr;
	uint64_t rx_data, tx_data;
	/* handler state, kept across activations */
	uint32_t rq_cq_ci, sq_cq_ci, sq_pi;
	uint32_t errors;
	uint64_t packets, activations;
};

#endif
