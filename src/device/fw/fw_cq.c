/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: a ring of 64- or 128-byte CQEs given by PAS or a umem,
 * a doorbell record (consumer index, arm word), the EQ that reports its
 * events and the UAR its arm doorbells are rung on.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

void fw_cq_free(struct fw_cq *cq)
{
	fw_buf_release(&cq->buf);
	free(cq);
}

static void fw_cq_put_refs(struct fw_cq *cq)
{
	fw_unref(&cq->eq->obj);
	fw_unref(&cq->uar->obj);
	if (cq->dbr_umem)
		fw_unref(&cq->dbr_umem->obj);
}

/* Buffer of a CQ context (CREATE_CQ, resize in MODIFY_CQ). */
static int fw_cq_buffer(struct fw_cmd *c, const uint8_t *cqc, uint32_t log_size,
			uint32_t cqe_size, bool umem_valid, uint32_t umem_id,
			uint64_t umem_off, size_t pas_off, struct fw_buf *b)
{
	uint64_t size = (uint64_t)cqe_size << log_size;

	if (umem_valid)
		return fw_buf_from_umem(c, b, "cq buffer", umem_id, umem_off,
					size);
	return fw_buf_from_pas(c, b, "cq buffer", pas_off,
			       DEVX_GET(cqc, cqc, log_page_size),
			       (uint64_t)DEVX_GET(cqc, cqc, page_offset) * 64,
			       size);
}

int fw_cq_create(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	const uint8_t *cqc = IN_ADDR(create_cq_in, cq_context);
	uint32_t log_size = DEVX_GET(cqc, cqc, log_cq_size);
	uint32_t cqe_sz = DEVX_GET(cqc, cqc, cqe_sz);
	struct fw_eq *eq;
	struct fw_uar *uar;
	struct fw_cq *cq;

	if (log_size > cfg->log_max_cq_sz)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "log_cq_size %u above log_max_cq_sz %u", log_size,
			       cfg->log_max_cq_sz);
	if (cqe_sz > MLX5_CQC_CQE_SZ_128_PAD)
		return FW_FAIL(c, BAD_PARAM_ERR, "cqe_sz %u is not 64, 128 or "
			       "128 B padded", cqe_sz);
	/* mini CQE formats: 0 hash, 1 checksum, 3 checksum + stride index */
	if (DEVX_GET(cqc, cqc, cqe_comp_en) &&
	    (DEVX_GET(cqc, cqc, mini_cqe_res_format) == 2 ||
	     cqe_sz == MLX5_CQC_CQE_SZ_128_PAD))
		return FW_FAIL(c, BAD_PARAM_ERR, "cqe_comp_en with mini_cqe_res_format "
			       "%u and cqe_sz %u: formats are 0, 1 and 3, and padded "
			       "CQEs are not compressed",
			       DEVX_GET(cqc, cqc, mini_cqe_res_format), cqe_sz);
	eq = FW_REF(c, eq, DEVX_GET(cqc, cqc, c_eqn), "cq c_eqn");
	if (!eq)
		return -1;
	uar = FW_REF(c, uar, DEVX_GET(cqc, cqc, uar_page), "cq uar_page");
	if (!uar)
		return -1;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return FW_FAIL(c, NO_RES_ERR, "cq: out of memory");
	cq->cqe_size = cqe_sz == MLX5_CQC_CQE_SZ_64_BYTES ? 64 : 128;
	cq->cqe_pad = cqe_sz == MLX5_CQC_CQE_SZ_128_PAD;
	if (fw_cq_buffer(c, cqc, log_size, cq->cqe_size,
			 IN_GET(create_cq_in, cq_umem_valid),
			 IN_GET(create_cq_in, cq_umem_id),
			 IN_GET64(create_cq_in, cq_umem_offset),
			 DEVX_BYTE_OFF(create_cq_in, pas), &cq->buf))
		goto err;
	cq->dbrec = fw_dbr_resolve(c, "cq dbr_addr",
				   DEVX_GET(cqc, cqc, dbr_umem_valid),
				   DEVX_GET(cqc, cqc, dbr_umem_id),
				   DEVX_GET64(cqc, cqc, dbr_addr), &cq->dbr_umem);
	if (!cq->dbrec)
		goto err;
	if (fw_table_add(&c->fw->cq, &cq->obj)) {
		FW_FAIL(c, NO_RES_ERR, "cq: all %u numbers are in use",
			c->fw->cq.limit);
		goto err;
	}
	if (fw_obj_own(c, &cq->obj, "cq")) {
		fw_table_del(&c->fw->cq, cq->obj.id);
		goto err;
	}
	cq->buf.stride = cq->cqe_size;
	cq->log_size = log_size;
	cq->eq = eq;
	cq->uar = uar;
	fw_ref(&eq->obj);
	fw_ref(&uar->obj);
	memcpy(cq->ctx, cqc, sizeof(cq->ctx));
	DEVX_SET(cqc, cq->ctx, status, 0);
	OUT_SET(create_cq_out, cqn, cq->obj.id);
	return 0;
err:
	if (cq->dbr_umem)
		fw_unref(&cq->dbr_umem->obj);
	fw_cq_free(cq);
	return -1;
}

int fw_cq_destroy(struct fw_cmd *c)
{
	uint32_t cqn = IN_GET(destroy_cq_in, cqn);
	struct fw_cq *cq = FW_GET(c, cq, cqn, "DESTROY_CQ");

	if (!cq)
		return -1;
	if (cq->obj.refs)
		return FW_FAIL(c, BAD_RES_STATE_ERR,
			       "cq 0x%x is still attached to %u QPs/SRQs", cqn,
			       cq->obj.refs);
	fw_hook_eng_free(c->fw, &cq->eng);
	fw_table_del(&c->fw->cq, cqn);
	fw_obj_disown(c->fw, &cq->obj);
	fw_cq_put_refs(cq);
	fw_cq_free(cq);
	return 0;
}

int fw_cq_query(struct fw_cmd *c)
{
	uint32_t cqn = IN_GET(query_cq_in, cqn);
	struct fw_cq *cq = FW_GET(c, cq, cqn, "QUERY_CQ");

	if (!cq)
		return -1;
	memcpy(OUT_ADDR(query_cq_out, cq_context), cq->ctx, sizeof(cq->ctx));
	fw_buf_put_pas(c, &cq->buf, DEVX_BYTE_OFF(query_cq_out, pas));
	return 0;
}

static int fw_cq_resize(struct fw_cmd *c, struct fw_cq *cq, uint32_t sel)
{
	const uint8_t *cqc = IN_ADDR(modify_cq_in, cq_context);
	uint32_t log_size = DEVX_GET(cqc, cqc, log_cq_size);
	struct fw_buf nb;

	if (!(sel & MLX5_CQ_RESIZE_LOG_CQ_SIZE))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "resize cq 0x%x without log_cq_size selected",
			       cq->obj.id);
	if (log_size > c->fw->cfg.log_max_cq_sz)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "resize cq 0x%x: log_cq_size %u above %u",
			       cq->obj.id, log_size, c->fw->cfg.log_max_cq_sz);
	if (fw_cq_buffer(c, cqc, log_size, cq->cqe_size,
			 IN_GET(modify_cq_in, cq_umem_valid),
			 IN_GET(modify_cq_in, cq_umem_id),
			 IN_GET64(modify_cq_in, cq_umem_offset),
			 DEVX_BYTE_OFF(modify_cq_in, pas), &nb))
		return -1;
	fw_buf_release(&cq->buf);
	cq->buf = nb;
	cq->buf.stride = cq->cqe_size;
	cq->log_size = log_size;
	DEVX_SET(cqc, cq->ctx, log_cq_size, log_size);
	DEVX_SET(cqc, cq->ctx, log_page_size, DEVX_GET(cqc, cqc, log_page_size));
	DEVX_SET(cqc, cq->ctx, page_offset, DEVX_GET(cqc, cqc, page_offset));
	return 0;
}

int fw_cq_modify(struct fw_cmd *c)
{
	uint32_t cqn = IN_GET(modify_cq_in, cqn);
	uint32_t sel = IN_GET(modify_cq_in, modify_field_select_resize_field_select);
	const uint8_t *cqc = IN_ADDR(modify_cq_in, cq_context);
	struct fw_cq *cq = FW_GET(c, cq, cqn, "MODIFY_CQ");
	struct fw_eq *eq = NULL;

	if (!cq)
		return -1;
	if (c->op_mod == MLX5_MODIFY_CQ_IN_OP_MOD_RESIZE_CQ)
		return fw_cq_resize(c, cq, sel);
	if (c->op_mod != MLX5_MODIFY_CQ_IN_OP_MOD_MODIFY_CQ)
		return FW_FAIL(c, BAD_PARAM_ERR, "op_mod %u is not modify/resize",
			       c->op_mod);
	if (sel & ~0x3fu)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "modify_field_select 0x%x has unknown bits", sel);
	if (sel & MLX5_CQ_MODIFY_EQN) {
		eq = FW_REF(c, eq, DEVX_GET(cqc, cqc, c_eqn), "MODIFY_CQ c_eqn");
		if (!eq)
			return -1;
	}
	if (sel & MLX5_CQ_MODIFY_PERIOD)
		DEVX_SET(cqc, cq->ctx, cq_period, DEVX_GET(cqc, cqc, cq_period));
	if (sel & MLX5_CQ_MODIFY_COUNT)
		DEVX_SET(cqc, cq->ctx, cq_max_count,
			 DEVX_GET(cqc, cqc, cq_max_count));
	if (sel & MLX5_CQ_MODIFY_OVERRUN)
		DEVX_SET(cqc, cq->ctx, oi, DEVX_GET(cqc, cqc, oi));
	if (sel & MLX5_CQ_MODIFY_PERIOD_MODE)
		DEVX_SET(cqc, cq->ctx, cq_period_mode,
			 DEVX_GET(cqc, cqc, cq_period_mode));
	if (sel & MLX5_CQ_MODIFY_STATUS)
		DEVX_SET(cqc, cq->ctx, status, DEVX_GET(cqc, cqc, status));
	if (eq) {
		fw_unref(&cq->eq->obj);
		cq->eq = eq;
		fw_ref(&eq->obj);
		DEVX_SET(cqc, cq->ctx, c_eqn, eq->obj.id);
	}
	return 0;
}
