/* SPDX-License-Identifier: MIT */
/*
 * Device side of the FlexIO benchmark (bench/flexio_bench.c).
 *
 * fb_trigger: the event handler of the CQ behind the DPA QP's receive queue.
 * Its first act is to read the DPA clock; the CQE it was woken for carries
 * the device's timestamp of the moment the CQE was written (the device clock
 * and the DPA clock are the same counter on softmlx5, in nanoseconds), so the
 * difference is the trigger latency. It hands the receive buffers back,
 * consumes the CQEs, re-arms the CQ, and reports through a window into host
 * memory: the latency of this activation, then the count of CQEs seen.
 *
 * fb_nop: the trivial RPC whose round trip is measured.
 */
#include <stddef.h>

#include <dpaintrin.h>
#include <libflexio-dev/flexio_dev.h>
#include <libflexio-dev/flexio_dev_endianity.h>
#include <libflexio-dev/flexio_dev_queue_access.h>

#include "flexio_bench.h"

#define CQE_OP_RESP_SEND 0x2
#define CQE_OP_INVALID 0xf

void fb_trigger(uint64_t arg);
uint64_t fb_nop(uint64_t x);

__dpa_rpc__ uint64_t fb_nop(uint64_t x)
{
	return x + 1;
}

static struct flexio_dev_cqe64 *cqe_at(uint64_t ring, uint32_t ci)
{
	struct flexio_dev_cqe64 *cqe = (struct flexio_dev_cqe64 *)ring + (ci & ((1u << FB_LOG_CQ) - 1));

	if (flexio_dev_cqe_get_owner(cqe) != ((ci >> FB_LOG_CQ) & 1) ||
	    flexio_dev_cqe_get_opcode(cqe) == CQE_OP_INVALID)
		return NULL;
	__dpa_thread_fence(__DPA_MEMORY, __DPA_R, __DPA_R);
	return cqe;
}

__dpa_global__ void fb_trigger(uint64_t arg)
{
	uint64_t now = __dpa_thread_time();
	struct fb_ctx *c = (struct fb_ctx *)arg;
	struct flexio_dev_thread_ctx *dtctx;
	struct flexio_dev_cqe64 *cqe;
	struct fb_host *h;
	int first = 1;

	flexio_dev_get_thread_ctx(&dtctx);
	if (!c->win) {
		flexio_uintptr_t w;

		if (flexio_dev_window_config(dtctx, (uint16_t)c->window_id, c->host_mkey) !=
			    FLEXIO_DEV_STATUS_SUCCESS ||
		    flexio_dev_window_ptr_acquire(dtctx, c->host_buf, &w) != FLEXIO_DEV_STATUS_SUCCESS)
			flexio_dev_thread_finish();	/* the host times out and says so */
		c->win = w;
	}
	h = (struct fb_host *)c->win;
	c->activations++;
	while ((cqe = cqe_at(c->cq_ring, c->ci))) {
		uint64_t ts;

		if (flexio_dev_cqe_get_opcode(cqe) != CQE_OP_RESP_SEND)
			h->bad++;
		ts = be64_to_cpu(*(volatile uint64_t *)((uint8_t *)cqe + FB_CQE_TS_OFF));
		if (first && c->cqes < c->max_samples)
			h->lat_ns[c->cqes] = now - ts;
		first = 0;
		flexio_dev_dbr_rq_inc_pi((uint32_t *)c->qp_dbr);
		c->ci++;
		c->cqes++;
	}
	flexio_dev_dbr_cq_set_ci((uint32_t *)c->cq_dbr, c->ci);
	flexio_dev_cq_arm(dtctx, c->ci, c->cqn);
	h->activations = c->activations;
	/* the sample first, then the count the host waits for */
	__dpa_thread_window_writeback();
	h->seen = c->cqes;
	__dpa_thread_window_writeback();
	flexio_dev_thread_reschedule();
}
