/* SPDX-License-Identifier: MIT */
/*
 * Device side of the packet-processor sample (the shape of the SDK's 24.01
 * packet_processor): an event handler bound to the CQ of an Ethernet RQ.
 * Each activation drains the receive completions, swaps each frame's
 * destination and source MAC addresses into a send buffer, posts one
 * Ethernet SEND WQE (control, eth segment without inline headers, one
 * pointer segment) per frame on the SQ, rings the send doorbell once, hands
 * the receive buffers back, consumes send completions, re-arms the CQ and
 * reschedules.
 */
#include <stddef.h>

#include <dpaintrin.h>
#include <libflexio-dev/flexio_dev.h>
#include <libflexio-dev/flexio_dev_err.h>
#include <libflexio-dev/flexio_dev_queue_access.h>

#include "../pp_common.h"

#define CQE_OP_REQ 0x0
#define CQE_OP_RESP_SEND 0x2
#define CQE_OP_INVALID 0xf

void pp_handler(uint64_t arg);

/* The CQE at @ci if software owns it (the device writes owner 0 on the first pass). */
static struct flexio_dev_cqe64 *cqe_at(uint64_t ring, uint32_t ci)
{
	struct flexio_dev_cqe64 *cqe = (struct flexio_dev_cqe64 *)ring + (ci & ((1u << PP_LOG_CQ) - 1));

	if (flexio_dev_cqe_get_owner(cqe) != ((ci >> PP_LOG_CQ) & 1) ||
	    flexio_dev_cqe_get_opcode(cqe) == CQE_OP_INVALID)
		return NULL;
	__dpa_thread_fence(__DPA_MEMORY, __DPA_R, __DPA_R);
	return cqe;
}

/* The reply: the frame with its two MAC addresses exchanged. */
static void swap_macs(uint8_t *out, const uint8_t *in, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		out[i] = i < 12 ? in[i < 6 ? i + 6 : i - 6] : in[i];
}

__dpa_global__ void pp_handler(uint64_t arg)
{
	struct pp_ctx *c = (struct pp_ctx *)arg;
	struct flexio_dev_thread_ctx *dtctx;
	struct flexio_dev_cqe64 *cqe;
	uint32_t posted = 0;

	flexio_dev_get_thread_ctx(&dtctx);
	c->activations++;
	while ((cqe = cqe_at(c->rq_cq_ring, c->rq_cq_ci))) {
		uint32_t idx = flexio_dev_cqe_get_wqe_counter(cqe) & ((1u << PP_LOG_RQ) - 1);
		uint32_t len = flexio_dev_cqe_get_byte_cnt(cqe);
		uint32_t slot = c->sq_pi & ((1u << PP_LOG_SQ) - 1);
		uint8_t *tx = (uint8_t *)c->tx_data + (uint64_t)slot * PP_BUF;
		union flexio_dev_sqe_seg *wqe =
			(union flexio_dev_sqe_seg *)(c->sq_ring + (uint64_t)slot * 64);

		if (flexio_dev_cqe_get_opcode(cqe) != CQE_OP_RESP_SEND || len < 14 ||
		    len > PP_BUF) {
			c->errors++;
		} else {
			swap_macs(tx, (uint8_t *)c->rx_data + (uint64_t)idx * PP_BUF, len);
			flexio_dev_swqe_seg_ctrl_set(&wqe[0], c->sq_pi, c->sq_num,
						     MLX5_CTRL_SEG_CE_CQE_ALWAYS,
						     FLEXIO_CTRL_SEG_SEND_EN);
			flexio_dev_swqe_seg_eth_set(&wqe[1], 0, 0, 0, NULL);
			flexio_dev_swqe_seg_mem_ptr_data_set(&wqe[2], len, c->lkey,
							     (uint64_t)(uintptr_t)tx);
			c->sq_pi++;
			posted++;
			c->frames++;
		}
		/* the receive buffer goes straight back to the RQ */
		flexio_dev_dbr_rq_inc_pi((uint32_t *)c->rq_dbr);
		c->rq_cq_ci++;
		flexio_dev_dbr_cq_set_ci((uint32_t *)c->rq_cq_dbr, c->rq_cq_ci);
	}
	if (posted) {
		__dpa_thread_fence(__DPA_MEMORY, __DPA_W, __DPA_W);
		flexio_dev_qp_sq_ring_db(dtctx, (uint16_t)c->sq_pi, c->sq_num);
	}
	while ((cqe = cqe_at(c->sq_cq_ring, c->sq_cq_ci))) {
		if (flexio_dev_cqe_get_opcode(cqe) != CQE_OP_REQ)
			c->errors++;
		c->sq_cq_ci++;
		flexio_dev_dbr_cq_set_ci((uint32_t *)c->sq_cq_dbr, c->sq_cq_ci);
	}
	flexio_dev_cq_arm(dtctx, c->rq_cq_ci, c->rq_cqn);
	flexio_dev_thread_reschedule();
}
