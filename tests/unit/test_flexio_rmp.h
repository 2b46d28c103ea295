/* SPDX-License-Identifier: MIT */
/*
 * What test_flexio_rmp and its DPA handler (t_rmp_handler in
 * test_flexio_dev.c) share: the handler's context, in DPA memory.
 */
#ifndef TEST_FLEXIO_RMP_H
#define TEST_FLEXIO_RMP_H

#include <stdint.h>

#define RMP_LOG_CQ 5		/* 32 CQEs */
#define RMP_LOG_WQES 3		/* 8 linked-list WQEs of 32 bytes */
#define RMP_BUF 256		/* one receive buffer */
#define RMP_MSGS 20

struct rmp_ctx {
	/* set up by the host */
	uint32_t cqn, pad;
	uint64_t cq_ring, cq_dbr, rmp_dbr;	/* DPA addresses */
	/* written by the handler */
	uint32_t ci, n, errors, activations;
	uint16_t wqe_index[RMP_MSGS];
	uint32_t byte_cnt[RMP_MSGS];
	uint32_t srqn[RMP_MSGS];
};

#endif
