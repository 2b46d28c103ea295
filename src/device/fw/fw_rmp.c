/* SPDX-License-Identifier: MIT */
/*
 * Receive memory pools: CREATE/MODIFY/QUERY/DESTROY_RMP. An RMP is the
 * PRM's shared receive queue for Ethernet RQs (rqc.mem_rq_type
 * MEMORY_RQ_RMP, rqc.rmpn) and QPs (qpc.rq_type SRQ_RMP, srqn_rmpn_xrqn):
 * an rmpc whose wq context gives the PD, the WQE buffer (PAS or umem), the
 * doorbell record (dbrec[0]: the 16-bit WQE counter) and the limit (lwm).
 * It lives in the SRQ number space (fw_srq.c) and is taken like an SRQ by
 * the engine (eng_rq.c).
 *
 * Three WQE layouts: a linked list (wq_type 0; each WQE starts with a
 * 16-byte next segment whose next_wqe_index the device follows), cyclic
 * (wq_type 1; WQE n is at slot n % size, the next segment is still there
 * but unused -- UCX's "cyclic SRQ"), or basic cyclic (wq_type 1 and
 * basic_cyclic_rcv_wqe 1, cap basic_cyclic_rcv_wqe; no next segment, data
 * segments only). Created RDY; MODIFY_RMP moves RDY <-> ERR and
 * may set lwm (bitmask.lwm), which arms the limit event (SRQ_RQ_LIMIT,
 * the RMP's number). An RMP in ERR hands out no WQEs.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

static const char *const fw_rmp_state_name[16] = {
	[MLX5_RMPC_STATE_RDY] = "RDY", [MLX5_RMPC_STATE_ERR] = "ERR",
};

/* Checks the wq context's fields an RMP does not use or support. */
static int fw_rmp_check_wq(struct fw_cmd *c, const uint8_t *rmpc,
			   const uint8_t *wq)
{
	uint32_t type = DEVX_GET(wq, wq, wq_type);
	bool basic = DEVX_GET(rmpc, rmpc, basic_cyclic_rcv_wqe);

	if (type != MLX5_WQ_TYPE_LINKED_LIST && type != MLX5_WQ_TYPE_CYCLIC)
		return FW_FAIL(c, BAD_PARAM_ERR, "rmp: wq_type %u is neither a "
			       "linked list (0) nor cyclic (1)", type);
	if (basic && type != MLX5_WQ_TYPE_CYCLIC)
		return FW_FAIL(c, BAD_PARAM_ERR, "rmp: basic_cyclic_rcv_wqe 1 "
			       "with wq_type %u: basic cyclic WQEs need a cyclic "
			       "(1) queue", type);
	if (DEVX_GET(wq, wq, wq_signature) || DEVX_GET(wq, wq, cd_slave) ||
	    DEVX_GET(wq, wq, hds_skip_first_sge) ||
	    DEVX_GET(wq, wq, log2_hds_buf_size))
		return FW_FAIL(c, BAD_PARAM_ERR, "rmp: wq_signature, cd_slave "
			       "and header-data split are not supported");
	if (DEVX_GET(wq, wq, log_wq_stride) < 4 ||
	    DEVX_GET(wq, wq, log_wq_stride) > 10)
		return FW_FAIL(c, BAD_PARAM_ERR, "rmp: log_wq_stride %u outside "
			       "16 to 1024-byte WQEs",
			       DEVX_GET(wq, wq, log_wq_stride));
	return 0;
}

int fw_rmp_create(struct fw_cmd *c)
{
	const uint8_t *rmpc = IN_ADDR(create_rmp_in, ctx);
	const uint8_t *wq = (const uint8_t *)DEVX_ADDR_OF(rmpc, rmpc, wq);
	uint32_t log_size = DEVX_GET(wq, wq, log_wq_sz);
	uint32_t stride = 1u << (DEVX_GET(wq, wq, log_wq_stride) & 0xf);
	size_t pas_off = DEVX_BYTE_OFF(create_rmp_in, ctx) +
			 DEVX_BYTE_OFF(rmpc, wq) + DEVX_BYTE_OFF(wq, pas);
	struct fw_srq *srq;
	struct fw_pd *pd;

	if (DEVX_GET(rmpc, rmpc, state) != MLX5_RMPC_STATE_RDY)
		return FW_FAIL(c, BAD_PARAM_ERR, "rmp: created in state %u, an "
			       "RMP starts RDY (1)", DEVX_GET(rmpc, rmpc, state));
	if (fw_rmp_check_wq(c, rmpc, wq) ||
	    fw_srq_check_size(c, "rmp", log_size, stride))
		return -1;
	pd = FW_REF(c, pd, DEVX_GET(wq, wq, pd), "rmp pd");
	if (!pd)
		return -1;
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return FW_FAIL(c, NO_RES_ERR, "rmp: out of memory");
	srq->kind = FW_SRQ_RMP;
	srq->pd = pd;
	if (DEVX_GET(wq, wq, wq_umem_valid)) {
		if (fw_buf_from_umem(c, &srq->buf, "rmp buffer",
				     DEVX_GET(wq, wq, wq_umem_id),
				     DEVX_GET64(wq, wq, wq_umem_offset),
				     (uint64_t)stride << log_size))
			goto err;
	} else if (fw_buf_from_pas(c, &srq->buf, "rmp buffer", pas_off,
				   DEVX_GET(wq, wq, log_wq_pg_sz),
				   (uint64_t)DEVX_GET(wq, wq, page_offset) * 64,
				   (uint64_t)stride << log_size)) {
		goto err;
	}
	srq->dbrec = fw_dbr_resolve(c, "rmp dbr_addr",
				    DEVX_GET(wq, wq, dbr_umem_valid),
				    DEVX_GET(wq, wq, dbr_umem_id),
				    DEVX_GET64(wq, wq, dbr_addr), &srq->dbr_umem);
	if (!srq->dbrec)
		goto err;
	srq->buf.stride = stride;
	srq->log_size = log_size;
	srq->cyclic = DEVX_GET(wq, wq, wq_type) == MLX5_WQ_TYPE_CYCLIC;
	srq->basic = DEVX_GET(rmpc, rmpc, basic_cyclic_rcv_wqe);
	srq->state = MLX5_RMPC_STATE_RDY;
	memcpy(srq->ctx, rmpc, sizeof(srq->ctx));
	/* lwm given at creation is kept but not armed: as for SRQs, the
	 * limit event needs an explicit arm (MODIFY_RMP with bitmask.lwm). */
	if (fw_srq_arm_lwm(c, srq, DEVX_GET(wq, wq, lwm)))
		goto err;
	srq->armed = false;
	if (fw_srq_insert(c, srq))
		goto err;
	OUT_SET(create_rmp_out, rmpn, srq->obj.id);
	return 0;
err:
	fw_srq_abort(srq);
	return -1;
}

static bool fw_rmp_state_ok(uint32_t s)
{
	return s == MLX5_RMPC_STATE_RDY || s == MLX5_RMPC_STATE_ERR;
}

int fw_rmp_modify(struct fw_cmd *c)
{
	uint32_t n = IN_GET(modify_rmp_in, rmpn);
	struct fw_srq *srq = fw_srq_get(c, n, FW_SRQ_RMP);
	const uint8_t *rmpc = IN_ADDR(modify_rmp_in, ctx);
	const uint8_t *wq = (const uint8_t *)DEVX_ADDR_OF(rmpc, rmpc, wq);
	uint64_t mask = IN_GET64(modify_rmp_in, bitmask);
	uint32_t cur = IN_GET(modify_rmp_in, rmp_state);
	uint32_t next = DEVX_GET(rmpc, rmpc, state);

	if (!srq)
		return -1;
	if (cur != srq->state)
		return FW_FAIL(c, BAD_RES_STATE_ERR, "rmp 0x%x is %s, the "
			       "command says %u", n,
			       fw_rmp_state_name[srq->state & 0xf], cur);
	if (!fw_rmp_state_ok(next))
		return FW_FAIL(c, BAD_PARAM_ERR, "rmp 0x%x: next state %u is "
			       "neither RDY (1) nor ERR (3)", n, next);
	if (mask & ~(uint64_t)1)
		return FW_FAIL(c, BAD_PARAM_ERR, "rmp 0x%x: bitmask 0x%llx: only "
			       "lwm (0x1) can be modified", n,
			       (unsigned long long)mask);
	if (mask & 1) {
		if (next != MLX5_RMPC_STATE_RDY)
			return FW_FAIL(c, BAD_PARAM_ERR, "rmp 0x%x: lwm is set "
				       "only with next state RDY", n);
		if (fw_srq_arm_lwm(c, srq, DEVX_GET(wq, wq, lwm)))
			return -1;
	}
	srq->state = next;
	DEVX_SET(rmpc, srq->ctx, state, next);
	return 0;
}

int fw_rmp_destroy(struct fw_cmd *c)
{
	return fw_srq_remove(c, IN_GET(destroy_rmp_in, rmpn), FW_SRQ_RMP);
}

int fw_rmp_query(struct fw_cmd *c)
{
	struct fw_srq *srq = fw_srq_get(c, IN_GET(query_rmp_in, rmpn),
					FW_SRQ_RMP);
	uint8_t *rmpc = OUT_ADDR(query_rmp_out, rmp_context);
	uint8_t *wq = (uint8_t *)DEVX_ADDR_OF(rmpc, rmpc, wq);

	if (!srq)
		return -1;
	memcpy(rmpc, srq->ctx, sizeof(srq->ctx));
	DEVX_SET(rmpc, rmpc, state, srq->state);
	DEVX_SET(rmpc, rmpc, basic_cyclic_rcv_wqe, srq->basic);
	DEVX_SET(wq, wq, wq_type, srq->cyclic ? MLX5_WQ_TYPE_CYCLIC :
		 MLX5_WQ_TYPE_LINKED_LIST);
	DEVX_SET(wq, wq, pd, srq->pd->obj.id);
	DEVX_SET(wq, wq, lwm, srq->lwm);
	DEVX_SET(wq, wq, log_wq_stride, __builtin_ctz(srq->buf.stride));
	DEVX_SET(wq, wq, log_wq_sz, srq->log_size);
	return 0;
}
