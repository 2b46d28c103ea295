/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues in their three PRM guises, one number space (as in
 * the hardware, where all of them are RMPs): CREATE_SRQ (srqc), CREATE_XRC_SRQ
 * (xrc_srqc, bound to an XRC domain and a CQ) and CREATE_RMP (rmpc + wq,
 * fw_rmp.c, which shares the helpers below). A command of one kind on a
 * number of another kind is BAD_RES.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

static const char *const fw_srq_kind_name[] = {
	[FW_SRQ_BASIC] = "srq",
	[FW_SRQ_XRC] = "xrc_srq",
	[FW_SRQ_RMP] = "rmp",
};

void fw_srq_free(struct fw_srq *srq)
{
	fw_buf_release(&srq->buf);
	free(srq);
}

int fw_srq_insert(struct fw_cmd *c, struct fw_srq *srq)
{
	if (fw_table_add(&c->fw->srq, &srq->obj))
		return FW_FAIL(c, NO_RES_ERR, "%s: all %u numbers are in use",
			       fw_srq_kind_name[srq->kind], c->fw->srq.limit);
	if (fw_obj_own(c, &srq->obj, fw_srq_kind_name[srq->kind])) {
		fw_table_del(&c->fw->srq, srq->obj.id);
		return -1;
	}
	fw_ref(&srq->pd->obj);
	if (srq->cq)
		fw_ref(&srq->cq->obj);
	if (srq->xrcd)
		fw_ref(&srq->xrcd->obj);
	return 0;
}

void fw_srq_abort(struct fw_srq *srq)
{
	if (srq->dbr_umem)
		fw_unref(&srq->dbr_umem->obj);
	fw_srq_free(srq);
}

struct fw_srq *fw_srq_get(struct fw_cmd *c, uint32_t n,
				 enum fw_srq_kind kind)
{
	struct fw_srq *srq = FW_GET(c, srq, n, fw_srq_kind_name[kind]);

	if (srq && srq->kind != kind) {
		FW_FAIL(c, BAD_RES_ERR, "number 0x%x is a %s, not a %s", n,
			fw_srq_kind_name[srq->kind], fw_srq_kind_name[kind]);
		return NULL;
	}
	return srq;
}

int fw_srq_remove(struct fw_cmd *c, uint32_t n, enum fw_srq_kind kind)
{
	struct fw_srq *srq = fw_srq_get(c, n, kind);

	if (!srq)
		return -1;
	if (srq->obj.refs)
		return FW_FAIL(c, BAD_RES_STATE_ERR,
			       "%s 0x%x still serves %u QPs / RQs",
			       fw_srq_kind_name[kind], n, srq->obj.refs);
	fw_hook_eng_free(c->fw, &srq->eng);
	fw_table_del(&c->fw->srq, n);
	fw_obj_disown(c->fw, &srq->obj);
	fw_unref(&srq->pd->obj);
	if (srq->cq)
		fw_unref(&srq->cq->obj);
	if (srq->xrcd)
		fw_unref(&srq->xrcd->obj);
	if (srq->dbr_umem)
		fw_unref(&srq->dbr_umem->obj);
	fw_srq_free(srq);
	return 0;
}

int fw_srq_check_size(struct fw_cmd *c, const char *what,
			     uint32_t log_size, uint32_t stride)
{
	if (log_size > c->fw->cfg.log_max_srq_sz)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: log size %u above log_max_srq_sz %u", what,
			       log_size, c->fw->cfg.log_max_srq_sz);
	if (stride < 16 || stride > 16u * 64)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: %u-byte receive WQE stride out of range",
			       what, stride);
	return 0;
}

int fw_srq_arm_lwm(struct fw_cmd *c, struct fw_srq *srq, uint32_t lwm)
{
	if (lwm >= (1u << srq->log_size))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s 0x%x: lwm %u not below the %u WQEs",
			       fw_srq_kind_name[srq->kind], srq->obj.id, lwm,
			       1u << srq->log_size);
	srq->lwm = lwm;
	srq->armed = lwm != 0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* CREATE_SRQ                                                         */
/* ------------------------------------------------------------------ */

int fw_srq_create(struct fw_cmd *c)
{
	const uint8_t *ctx = IN_ADDR(create_srq_in, srq_context_entry);
	uint32_t log_size = DEVX_GET(srqc, ctx, log_srq_size);
	uint32_t stride = 16u << DEVX_GET(srqc, ctx, log_rq_stride);
	struct fw_srq *srq;
	struct fw_pd *pd;

	if (fw_srq_check_size(c, "srq", log_size, stride))
		return -1;
	pd = FW_REF(c, pd, DEVX_GET(srqc, ctx, pd), "srq pd");
	if (!pd)
		return -1;
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return FW_FAIL(c, NO_RES_ERR, "srq: out of memory");
	srq->kind = FW_SRQ_BASIC;
	srq->pd = pd;
	if (fw_buf_from_pas(c, &srq->buf, "srq buffer",
			    DEVX_BYTE_OFF(create_srq_in, pas),
			    DEVX_GET(srqc, ctx, log_page_size),
			    (uint64_t)DEVX_GET(srqc, ctx, page_offset) * 64,
			    (uint64_t)stride << log_size))
		goto err;
	srq->dbrec = fw_dbr_resolve(c, "srq dbr_addr", false, 0,
				    DEVX_GET64(srqc, ctx, dbr_addr),
				    &srq->dbr_umem);
	if (!srq->dbrec)
		goto err;
	srq->buf.stride = stride;
	srq->log_size = log_size;
	memcpy(srq->ctx, ctx, sizeof(srq->ctx));
	if (fw_srq_arm_lwm(c, srq, DEVX_GET(srqc, ctx, lwm)))
		goto err;
	srq->armed = false;
	if (fw_srq_insert(c, srq))
		goto err;
	OUT_SET(create_srq_out, srqn, srq->obj.id);
	return 0;
err:
	fw_srq_abort(srq);
	return -1;
}

int fw_srq_destroy(struct fw_cmd *c)
{
	return fw_srq_remove(c, IN_GET(destroy_srq_in, srqn), FW_SRQ_BASIC);
}

int fw_srq_query(struct fw_cmd *c)
{
	struct fw_srq *srq = fw_srq_get(c, IN_GET(query_srq_in, srqn),
					FW_SRQ_BASIC);
	uint8_t *ctx = OUT_ADDR(query_srq_out, srq_context_entry);

	if (!srq)
		return -1;
	memcpy(ctx, srq->ctx, sizeof(srq->ctx));
	DEVX_SET(srqc, ctx, state, MLX5_SRQC_STATE_GOOD);
	DEVX_SET(srqc, ctx, lwm, srq->lwm);
	fw_buf_put_pas(c, &srq->buf, DEVX_BYTE_OFF(query_srq_out, pas));
	return 0;
}

int fw_srq_arm(struct fw_cmd *c)
{
	uint32_t n = IN_GET(arm_rq_in, srq_number);
	struct fw_srq *srq;

	if (c->op_mod != MLX5_ARM_RQ_IN_OP_MOD_SRQ)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "op_mod %u: only SRQs (1) can be armed here",
			       c->op_mod);
	srq = FW_GET(c, srq, n, "ARM_RQ");
	if (!srq)
		return -1;
	if (srq->kind == FW_SRQ_XRC)
		return FW_FAIL(c, BAD_RES_ERR,
			       "0x%x is an XRC SRQ: use ARM_XRC_SRQ", n);
	return fw_srq_arm_lwm(c, srq, IN_GET(arm_rq_in, lwm));
}

/* ------------------------------------------------------------------ */
/* CREATE_XRC_SRQ                                                     */
/* ------------------------------------------------------------------ */

int fw_xrc_srq_create(struct fw_cmd *c)
{
	const uint8_t *ctx = IN_ADDR(create_xrc_srq_in, xrc_srq_context_entry);
	uint32_t log_size = DEVX_GET(xrc_srqc, ctx, log_xrc_srq_size);
	uint32_t stride = 16u << DEVX_GET(xrc_srqc, ctx, log_rq_stride);
	uint64_t dbr = (uint64_t)DEVX_GET(xrc_srqc, ctx, db_record_addr_h) << 32 |
		       (uint64_t)DEVX_GET(xrc_srqc, ctx, db_record_addr_l) << 2;
	struct fw_srq *srq;
	struct fw_pd *pd;
	struct fw_cq *cq;
	struct fw_xrcd *xrcd;

	if (fw_srq_check_size(c, "xrc_srq", log_size, stride))
		return -1;
	if (IN_GET(create_xrc_srq_in, xrc_srq_umem_valid) ||
	    DEVX_GET(xrc_srqc, ctx, dbr_umem_valid))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "xrc_srq: umem-backed XRC SRQs are not supported, "
			       "give PAS and a doorbell address");
	pd = FW_REF(c, pd, DEVX_GET(xrc_srqc, ctx, pd), "xrc_srq pd");
	if (!pd)
		return -1;
	cq = FW_REF(c, cq, DEVX_GET(xrc_srqc, ctx, cqn), "xrc_srq cqn");
	if (!cq)
		return -1;
	xrcd = FW_REF(c, xrcd, DEVX_GET(xrc_srqc, ctx, xrcd), "xrc_srq xrcd");
	if (!xrcd)
		return -1;
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return FW_FAIL(c, NO_RES_ERR, "xrc_srq: out of memory");
	srq->kind = FW_SRQ_XRC;
	srq->pd = pd;
	srq->cq = cq;
	srq->xrcd = xrcd;
	if (fw_buf_from_pas(c, &srq->buf, "xrc_srq buffer",
			    DEVX_BYTE_OFF(create_xrc_srq_in, pas),
			    DEVX_GET(xrc_srqc, ctx, log_page_size),
			    (uint64_t)DEVX_GET(xrc_srqc, ctx, page_offset) * 64,
			    (uint64_t)stride << log_size))
		goto err;
	srq->dbrec = fw_dbr_resolve(c, "xrc_srq db_record_addr", false, 0, dbr,
				    &srq->dbr_umem);
	if (!srq->dbrec)
		goto err;
	srq->buf.stride = stride;
	srq->log_size = log_size;
	srq->user_index = DEVX_GET(xrc_srqc, ctx, user_index);
	memcpy(srq->ctx, ctx, sizeof(srq->ctx));
	if (fw_srq_arm_lwm(c, srq, DEVX_GET(xrc_srqc, ctx, lwm)))
		goto err;
	srq->armed = false;
	if (fw_srq_insert(c, srq))
		goto err;
	OUT_SET(create_xrc_srq_out, xrc_srqn, srq->obj.id);
	return 0;
err:
	fw_srq_abort(srq);
	return -1;
}

int fw_xrc_srq_destroy(struct fw_cmd *c)
{
	return fw_srq_remove(c, IN_GET(destroy_xrc_srq_in, xrc_srqn),
			     FW_SRQ_XRC);
}

int fw_xrc_srq_query(struct fw_cmd *c)
{
	struct fw_srq *srq = fw_srq_get(c, IN_GET(query_xrc_srq_in, xrc_srqn),
					FW_SRQ_XRC);
	uint8_t *ctx = OUT_ADDR(query_xrc_srq_out, xrc_srq_context_entry);

	if (!srq)
		return -1;
	memcpy(ctx, srq->ctx, sizeof(srq->ctx));
	DEVX_SET(xrc_srqc, ctx, state, MLX5_SRQC_STATE_GOOD);
	DEVX_SET(xrc_srqc, ctx, lwm, srq->lwm);
	fw_buf_put_pas(c, &srq->buf, DEVX_BYTE_OFF(query_xrc_srq_out, pas));
	return 0;
}

int fw_xrc_srq_arm(struct fw_cmd *c)
{
	struct fw_srq *srq;

	if (c->op_mod != MLX5_ARM_XRC_SRQ_IN_OP_MOD_XRC_SRQ)
		return FW_FAIL(c, BAD_PARAM_ERR, "op_mod %u is not XRC_SRQ (1)",
			       c->op_mod);
	srq = fw_srq_get(c, IN_GET(arm_xrc_srq_in, xrc_srqn), FW_SRQ_XRC);
	if (!srq)
		return -1;
	return fw_srq_arm_lwm(c, srq, IN_GET(arm_xrc_srq_in, lwm));
}
