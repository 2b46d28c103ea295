/* SPDX-License-Identifier: MIT */
/*
 * Ethernet send queues: CREATE/MODIFY/QUERY/DESTROY_SQ. An SQ is an sqc
 * with its wq (cyclic, 64-byte WQEBBs), the CQ its completions go to, one
 * TIS it transmits through and optionally the UAR its doorbells are rung
 * on. It is created in RST; MODIFY_SQ names the current state (sq_state)
 * and the next one (ctx.state): RST->RDY, RDY->RDY, RDY->ERR, ERR->RST,
 * RDY->RST. The engine executes its WQEs in RDY only (eng_eth.c).
 *
 * Not supported (BAD_PARAM): hairpin, reg_umr, TLS/SWP, multi-packet send
 * WQEs, more than one TIS, packet pacing and queue groups, and minimum
 * inline modes beyond L2 (the device needs no inline headers: cap
 * wqe_inline_mode NOT_REQUIRED; min_wqe_inline_mode L2 is enforced).
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

static const char *const fw_sq_state_name[16] = {
	[MLX5_SQC_STATE_RST] = "RST", [MLX5_SQC_STATE_RDY] = "RDY",
	[MLX5_SQC_STATE_ERR] = "ERR",
};

void fw_sq_free(struct fw_sq *sq)
{
	fw_buf_release(&sq->buf);
	free(sq);
}

static void fw_sq_put_refs(struct fw_sq *sq)
{
	fw_unref(&sq->pd->obj);
	fw_unref(&sq->cq->obj);
	fw_unref(&sq->tis->obj);
	if (sq->uar)
		fw_unref(&sq->uar->obj);
	if (sq->dbr_umem)
		fw_unref(&sq->dbr_umem->obj);
}

static int fw_sq_check(struct fw_cmd *c, const uint8_t *sqc)
{
	if (DEVX_GET(sqc, sqc, hairpin) || DEVX_GET(sqc, sqc, reg_umr) ||
	    DEVX_GET(sqc, sqc, allow_swp) || DEVX_GET(sqc, sqc, non_wire) ||
	    DEVX_GET(sqc, sqc, allow_multi_pkt_send_wqe) ||
	    DEVX_GET(sqc, sqc, cd_master))
		return FW_FAIL(c, BAD_PARAM_ERR, "sq: hairpin, reg_umr, "
			       "allow_swp, non_wire, multi-packet WQEs and "
			       "cd_master are not supported");
	if (DEVX_GET(sqc, sqc, min_wqe_inline_mode) > MLX5_INLINE_MODE_L2)
		return FW_FAIL(c, BAD_PARAM_ERR, "sq: min_wqe_inline_mode %u: "
			       "only none (0) and L2 (1) are supported",
			       DEVX_GET(sqc, sqc, min_wqe_inline_mode));
	if (DEVX_GET(sqc, sqc, tis_lst_sz) != 1)
		return FW_FAIL(c, BAD_PARAM_ERR, "sq: tis_lst_sz %u, an SQ "
			       "transmits through exactly one TIS",
			       DEVX_GET(sqc, sqc, tis_lst_sz));
	if (DEVX_GET(sqc, sqc, packet_pacing_rate_limit_index) ||
	    DEVX_GET(sqc, sqc, qos_queue_group_id))
		return FW_FAIL(c, BAD_PARAM_ERR, "sq: packet pacing and QoS "
			       "queue groups are not supported on SQs");
	if (DEVX_GET(sqc, sqc, ts_cqe_to_dest_cqn))
		return FW_FAIL(c, BAD_PARAM_ERR, "sq: ts_cqe_to_dest_cqn is not "
			       "supported");
	return 0;
}

int fw_sq_create(struct fw_cmd *c)
{
	const uint8_t *sqc = IN_ADDR(create_sq_in, ctx);
	const uint8_t *wq = (const uint8_t *)DEVX_ADDR_OF(sqc, sqc, wq);
	struct fw_wq_res r;
	struct fw_cq *cq;
	struct fw_tis *tis;
	struct fw_uar *uar = NULL;
	struct fw_sq *sq;

	if (fw_sq_check(c, sqc))
		return -1;
	if (DEVX_GET(sqc, sqc, state) != MLX5_SQC_STATE_RST)
		return FW_FAIL(c, BAD_PARAM_ERR, "sq: created in state %u, an "
			       "SQ starts in RST (0)", DEVX_GET(sqc, sqc, state));
	cq = FW_REF(c, cq, DEVX_GET(sqc, sqc, cqn), "sq cqn");
	if (!cq)
		return -1;
	tis = FW_REF(c, tis, DEVX_GET(sqc, sqc, tis_num_0), "sq tis_num_0");
	if (!tis)
		return -1;
	if (DEVX_GET(wq, wq, uar_page)) {
		uar = FW_REF(c, uar, DEVX_GET(wq, wq, uar_page), "sq uar_page");
		if (!uar)
			return -1;
	}
	if (fw_wq_attach(c, "sq wq", DEVX_BYTE_OFF(create_sq_in, ctx) +
			 DEVX_BYTE_OFF(sqc, wq), 64, 64, &r))
		return -1;
	sq = calloc(1, sizeof(*sq));
	if (!sq) {
		fw_wq_detach(&r);
		return FW_FAIL(c, NO_RES_ERR, "sq: out of memory");
	}
	sq->pd = r.pd;
	sq->buf = r.buf;
	sq->dbrec = r.dbrec;
	sq->dbr_umem = r.dbr_umem;
	sq->wqebbs = 1u << r.log_sz;
	sq->cq = cq;
	sq->tis = tis;
	sq->uar = uar;
	sq->min_inline = DEVX_GET(sqc, sqc, min_wqe_inline_mode);
	if (fw_table_add(&c->fw->sq, &sq->obj)) {
		FW_FAIL(c, NO_RES_ERR, "sq: all %u numbers are in use",
			c->fw->sq.limit);
		goto err;
	}
	if (fw_obj_own(c, &sq->obj, "sq")) {
		fw_table_del(&c->fw->sq, sq->obj.id);
		goto err;
	}
	fw_ref(&cq->obj);
	fw_ref(&tis->obj);
	if (uar)
		fw_ref(&uar->obj);
	memcpy(sq->ctx, sqc, sizeof(sq->ctx));
	sq->state = MLX5_SQC_STATE_RST;
	OUT_SET(create_sq_out, sqn, sq->obj.id);
	if (c->fw->hooks.sq_changed)
		c->fw->hooks.sq_changed(c->fw->hooks_arg, sq, FW_WQ_NEW);
	return 0;
err:
	fw_wq_detach(&r);
	free(sq);
	return -1;
}

static bool fw_sq_transition_ok(uint32_t cur, uint32_t next)
{
	switch (cur) {
	case MLX5_SQC_STATE_RST:
		return next == MLX5_SQC_STATE_RDY || next == MLX5_SQC_STATE_RST;
	case MLX5_SQC_STATE_RDY:
		return next == MLX5_SQC_STATE_RDY || next == MLX5_SQC_STATE_RST ||
		       next == MLX5_SQC_STATE_ERR;
	case MLX5_SQC_STATE_ERR:
		return next == MLX5_SQC_STATE_RST || next == MLX5_SQC_STATE_ERR;
	default:
		return false;
	}
}

int fw_sq_modify(struct fw_cmd *c)
{
	struct fw_sq *sq = FW_GET(c, sq, IN_GET(modify_sq_in, sqn), "MODIFY_SQ");
	const uint8_t *sqc = IN_ADDR(modify_sq_in, ctx);
	uint32_t cur = IN_GET(modify_sq_in, sq_state);
	uint32_t next = DEVX_GET(sqc, sqc, state);
	uint64_t mask = IN_GET64(modify_sq_in, modify_bitmask);
	uint32_t old;

	if (!sq)
		return -1;
	if (cur != sq->state)
		return FW_FAIL(c, BAD_RES_STATE_ERR, "sq 0x%x is in %s, the "
			       "command says %u", sq->obj.id,
			       fw_sq_state_name[sq->state & 0xf], cur);
	if (!fw_sq_transition_ok(cur, next))
		return FW_FAIL(c, BAD_RES_STATE_ERR, "sq 0x%x: %s -> state %u is "
			       "not a transition", sq->obj.id,
			       fw_sq_state_name[cur & 0xf], next);
	if (mask)
		return FW_FAIL(c, BAD_PARAM_ERR, "sq 0x%x: modify_bitmask "
			       "0x%llx: rate limits and queue groups are not "
			       "supported", sq->obj.id, (unsigned long long)mask);
	old = sq->state;
	sq->state = next;
	DEVX_SET(sqc, sq->ctx, state, next);
	if (old != next && c->fw->hooks.sq_changed)
		c->fw->hooks.sq_changed(c->fw->hooks_arg, sq, old);
	return 0;
}

int fw_sq_query(struct fw_cmd *c)
{
	struct fw_sq *sq = FW_GET(c, sq, IN_GET(eth_obj_cmd_in, obj_num),
				  "QUERY_SQ");
	uint8_t *sqc = OUT_ADDR(query_sq_out, sq_context);

	if (!sq)
		return -1;
	memcpy(sqc, sq->ctx, sizeof(sq->ctx));
	DEVX_SET(sqc, sqc, state, sq->state);
	fw_wq_put((uint8_t *)DEVX_ADDR_OF(sqc, sqc, wq), sq->pd, &sq->buf,
		  __builtin_ctz(sq->wqebbs));
	return 0;
}

int fw_sq_destroy(struct fw_cmd *c)
{
	struct fw_sq *sq = FW_GET(c, sq, IN_GET(eth_obj_cmd_in, obj_num),
				  "DESTROY_SQ");

	if (!sq)
		return -1;
	fw_hook_eng_free(c->fw, &sq->eng);
	fw_table_del(&c->fw->sq, sq->obj.id);
	fw_obj_disown(c->fw, &sq->obj);
	fw_sq_put_refs(sq);
	fw_sq_free(sq);
	return 0;
}
