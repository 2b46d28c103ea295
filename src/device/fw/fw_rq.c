/* SPDX-License-Identifier: MIT */
/*
 * Ethernet receive queues: CREATE/MODIFY/QUERY/DESTROY_RQ. An RQ is an rqc
 * with its own cyclic wq (receive WQEs of 16 to 1024 bytes: data segments
 * ended by MLX5_INVALID_LKEY), the CQ its completions go to, and the VLAN
 * strip switch (vsd: 1 leaves the 802.1Q tag in the frame). It is created
 * in RST; MODIFY_RQ names the current (rq_state) and next (ctx.state)
 * state, with the same transitions as an SQ, and may change vsd
 * (modify_bitmask VSD). Frames reach it through a TIR (fw_tir.c).
 *
 * An RQ with mem_rq_type MEMORY_RQ_RMP has no WQEs of its own: its wq
 * context is not looked at, frames take the WQEs of the RMP rqc.rmpn
 * names (fw_rmp.c; held while the RQ exists), the RQ's PD is the RMP's.
 *
 * Not supported (BAD_PARAM): hairpin, scatter FCS, delay drop, counter
 * sets.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

static const char *const fw_rq_state_name[16] = {
	[MLX5_RQC_STATE_RST] = "RST", [MLX5_RQC_STATE_RDY] = "RDY",
	[MLX5_RQC_STATE_ERR] = "ERR",
};

void fw_rq_free(struct fw_rq *rq)
{
	fw_buf_release(&rq->buf);
	free(rq);
}

static int fw_rq_check(struct fw_cmd *c, const uint8_t *rqc)
{
	uint32_t mem = DEVX_GET(rqc, rqc, mem_rq_type);

	if (mem != MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_INLINE &&
	    mem != MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP)
		return FW_FAIL(c, BAD_PARAM_ERR, "rq: mem_rq_type %u is neither "
			       "inline (0) nor RMP (1)", mem);
	if (DEVX_GET(rqc, rqc, hairpin) || DEVX_GET(rqc, rqc, scatter_fcs) ||
	    DEVX_GET(rqc, rqc, delay_drop_en))
		return FW_FAIL(c, BAD_PARAM_ERR, "rq: hairpin, scatter_fcs and "
			       "delay_drop_en are not supported");
	if (DEVX_GET(rqc, rqc, counter_set_id))
		return FW_FAIL(c, BAD_PARAM_ERR, "rq: counter_set_id %u: queue "
			       "counters are not supported",
			       DEVX_GET(rqc, rqc, counter_set_id));
	return 0;
}

/* An RMP-backed RQ: the RMP (referenced) in place of a wq of its own. */
static int fw_rq_attach_rmp(struct fw_cmd *c, uint32_t rmpn,
			    struct fw_wq_res *r, struct fw_srq **rmp)
{
	struct fw_srq *srq = FW_REF(c, srq, rmpn, "rq rmpn");

	memset(r, 0, sizeof(*r));
	if (!srq)
		return -1;
	if (srq->kind != FW_SRQ_RMP)
		return FW_FAIL(c, BAD_PARAM_ERR, "rq: rmpn 0x%x is an SRQ, not "
			       "an RMP", rmpn);
	r->pd = srq->pd;
	fw_ref(&srq->pd->obj);
	fw_ref(&srq->obj);
	*rmp = srq;
	return 0;
}

static void fw_rq_detach(struct fw_wq_res *r, struct fw_srq *rmp)
{
	if (rmp)
		fw_unref(&rmp->obj);
	fw_wq_detach(r);
}

int fw_rq_create(struct fw_cmd *c)
{
	const uint8_t *rqc = IN_ADDR(create_rq_in, ctx);
	struct fw_srq *rmp = NULL;
	struct fw_wq_res r;
	struct fw_cq *cq;
	struct fw_rq *rq;

	if (fw_rq_check(c, rqc))
		return -1;
	if (DEVX_GET(rqc, rqc, state) != MLX5_RQC_STATE_RST)
		return FW_FAIL(c, BAD_PARAM_ERR, "rq: created in state %u, an "
			       "RQ starts in RST (0)", DEVX_GET(rqc, rqc, state));
	cq = FW_REF(c, cq, DEVX_GET(rqc, rqc, cqn), "rq cqn");
	if (!cq)
		return -1;
	if (DEVX_GET(rqc, rqc, mem_rq_type) == MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP) {
		if (fw_rq_attach_rmp(c, DEVX_GET(rqc, rqc, rmpn), &r, &rmp))
			return -1;
	} else if (fw_wq_attach(c, "rq wq", DEVX_BYTE_OFF(create_rq_in, ctx) +
				DEVX_BYTE_OFF(rqc, wq), 16, 1024, &r)) {
		return -1;
	}
	rq = calloc(1, sizeof(*rq));
	if (!rq) {
		fw_rq_detach(&r, rmp);
		return FW_FAIL(c, NO_RES_ERR, "rq: out of memory");
	}
	rq->pd = r.pd;
	rq->buf = r.buf;
	rq->dbrec = r.dbrec;
	rq->dbr_umem = r.dbr_umem;
	rq->wqes = rmp ? 0 : 1u << r.log_sz;
	rq->rmp = rmp;
	rq->cq = cq;
	rq->vsd = DEVX_GET(rqc, rqc, vsd);
	if (fw_table_add(&c->fw->rq, &rq->obj)) {
		FW_FAIL(c, NO_RES_ERR, "rq: all %u numbers are in use",
			c->fw->rq.limit);
		goto err;
	}
	if (fw_obj_own(c, &rq->obj, "rq")) {
		fw_table_del(&c->fw->rq, rq->obj.id);
		goto err;
	}
	fw_ref(&cq->obj);
	memcpy(rq->ctx, rqc, sizeof(rq->ctx));
	rq->state = MLX5_RQC_STATE_RST;
	OUT_SET(create_rq_out, rqn, rq->obj.id);
	if (c->fw->hooks.rq_changed)
		c->fw->hooks.rq_changed(c->fw->hooks_arg, rq, FW_WQ_NEW);
	return 0;
err:
	fw_rq_detach(&r, rmp);
	free(rq);
	return -1;
}

static bool fw_rq_transition_ok(uint32_t cur, uint32_t next)
{
	switch (cur) {
	case MLX5_RQC_STATE_RST:
		return next == MLX5_RQC_STATE_RDY || next == MLX5_RQC_STATE_RST;
	case MLX5_RQC_STATE_RDY:
		return next == MLX5_RQC_STATE_RDY || next == MLX5_RQC_STATE_RST ||
		       next == MLX5_RQC_STATE_ERR;
	case MLX5_RQC_STATE_ERR:
		return next == MLX5_RQC_STATE_RST || next == MLX5_RQC_STATE_ERR;
	default:
		return false;
	}
}

int fw_rq_modify(struct fw_cmd *c)
{
	struct fw_rq *rq = FW_GET(c, rq, IN_GET(modify_rq_in, rqn), "MODIFY_RQ");
	const uint8_t *rqc = IN_ADDR(modify_rq_in, ctx);
	uint32_t cur = IN_GET(modify_rq_in, rq_state);
	uint32_t next = DEVX_GET(rqc, rqc, state);
	uint64_t mask = IN_GET64(modify_rq_in, modify_bitmask);
	uint32_t old;

	if (!rq)
		return -1;
	if (cur != rq->state)
		return FW_FAIL(c, BAD_RES_STATE_ERR, "rq 0x%x is in %s, the "
			       "command says %u", rq->obj.id,
			       fw_rq_state_name[rq->state & 0xf], cur);
	if (!fw_rq_transition_ok(cur, next))
		return FW_FAIL(c, BAD_RES_STATE_ERR, "rq 0x%x: %s -> state %u is "
			       "not a transition", rq->obj.id,
			       fw_rq_state_name[cur & 0xf], next);
	if (mask & ~(uint64_t)MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD)
		return FW_FAIL(c, BAD_PARAM_ERR, "rq 0x%x: modify_bitmask 0x%llx: "
			       "only VSD (0x2) can be modified", rq->obj.id,
			       (unsigned long long)mask);
	if (mask & MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD) {
		rq->vsd = DEVX_GET(rqc, rqc, vsd);
		DEVX_SET(rqc, rq->ctx, vsd, rq->vsd);
	}
	old = rq->state;
	rq->state = next;
	DEVX_SET(rqc, rq->ctx, state, next);
	if (old != next && c->fw->hooks.rq_changed)
		c->fw->hooks.rq_changed(c->fw->hooks_arg, rq, old);
	return 0;
}

int fw_rq_query(struct fw_cmd *c)
{
	struct fw_rq *rq = FW_GET(c, rq, IN_GET(eth_obj_cmd_in, obj_num),
				  "QUERY_RQ");
	uint8_t *rqc = OUT_ADDR(query_rq_out, rq_context);

	if (!rq)
		return -1;
	memcpy(rqc, rq->ctx, sizeof(rq->ctx));
	DEVX_SET(rqc, rqc, state, rq->state);
	if (!rq->rmp)
		fw_wq_put((uint8_t *)DEVX_ADDR_OF(rqc, rqc, wq), rq->pd,
			  &rq->buf, __builtin_ctz(rq->wqes));
	return 0;
}

int fw_rq_destroy(struct fw_cmd *c)
{
	struct fw_rq *rq = FW_GET(c, rq, IN_GET(eth_obj_cmd_in, obj_num),
				  "DESTROY_RQ");

	if (!rq)
		return -1;
	if (rq->obj.refs)
		return FW_FAIL(c, RES_BUSY, "rq 0x%x is still the destination "
			       "of %u TIRs", rq->obj.id, rq->obj.refs);
	fw_hook_eng_free(c->fw, &rq->eng);
	fw_table_del(&c->fw->rq, rq->obj.id);
	fw_obj_disown(c->fw, &rq->obj);
	fw_unref(&rq->pd->obj);
	fw_unref(&rq->cq->obj);
	if (rq->rmp)
		fw_unref(&rq->rmp->obj);
	if (rq->dbr_umem)
		fw_unref(&rq->dbr_umem->obj);
	fw_rq_free(rq);
	return 0;
}
