/* SPDX-License-Identifier: MIT */
/*
 * The wq context (PRM "Work Queue Format") that Ethernet SQs and RQs embed:
 * queue type, PD, stride and size, the buffer (PAS entries following the
 * context, or a umem) and the doorbell record. Only cyclic queues exist
 * here; the owning object checks what is specific to it.
 */
#include <string.h>

#include "device/fw/fw_loc.h"

int fw_wq_attach(struct fw_cmd *c, const char *what, size_t wq_off,
		 uint32_t min_stride, uint32_t max_stride, struct fw_wq_res *r)
{
	const uint8_t *wq = (const uint8_t *)c->in + wq_off;
	uint32_t type = DEVX_GET(wq, wq, wq_type);
	uint32_t log_stride = DEVX_GET(wq, wq, log_wq_stride);
	uint32_t log_sz = DEVX_GET(wq, wq, log_wq_sz);
	uint64_t size;

	memset(r, 0, sizeof(*r));
	if (type != MLX5_WQ_TYPE_CYCLIC)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: wq_type %u, only cyclic (1) queues are "
			       "supported", what, type);
	if (log_stride > 16 || (1u << log_stride) < min_stride ||
	    (1u << log_stride) > max_stride)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: log_wq_stride %u outside [%u, %u] bytes", what,
			       log_stride, min_stride, max_stride);
	if (log_sz > c->fw->cfg.log_max_qp_sz)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: log_wq_sz %u above log_max_wq_sz %u", what,
			       log_sz, c->fw->cfg.log_max_qp_sz);
	if (DEVX_GET(wq, wq, wq_signature) || DEVX_GET(wq, wq, cd_slave))
		return FW_FAIL(c, BAD_PARAM_ERR, "%s: wq_signature / cd_slave "
			       "are not supported", what);
	r->pd = FW_REF(c, pd, DEVX_GET(wq, wq, pd), what);
	if (!r->pd)
		return -1;
	r->log_sz = log_sz;
	r->stride = 1u << log_stride;
	size = (uint64_t)r->stride << log_sz;
	if (DEVX_GET(wq, wq, wq_umem_valid)) {
		if (fw_buf_from_umem(c, &r->buf, what,
				     DEVX_GET(wq, wq, wq_umem_id),
				     DEVX_GET64(wq, wq, wq_umem_offset), size))
			return -1;
	} else if (fw_buf_from_pas(c, &r->buf, what,
				   wq_off + DEVX_BYTE_OFF(wq, pas),
				   DEVX_GET(wq, wq, log_wq_pg_sz),
				   (uint64_t)DEVX_GET(wq, wq, page_offset) * 64,
				   size)) {
		return -1;
	}
	r->buf.stride = r->stride;
	r->dbrec = fw_dbr_resolve(c, what, DEVX_GET(wq, wq, dbr_umem_valid),
				  DEVX_GET(wq, wq, dbr_umem_id),
				  DEVX_GET64(wq, wq, dbr_addr), &r->dbr_umem);
	if (!r->dbrec) {
		fw_buf_release(&r->buf);
		return -1;
	}
	fw_ref(&r->pd->obj);
	return 0;
}

void fw_wq_detach(struct fw_wq_res *r)
{
	if (r->pd)
		fw_unref(&r->pd->obj);
	if (r->dbr_umem)
		fw_unref(&r->dbr_umem->obj);
	fw_buf_release(&r->buf);
	memset(r, 0, sizeof(*r));
}

void fw_wq_put(uint8_t *wq, const struct fw_pd *pd, const struct fw_buf *b,
	       uint32_t log_sz)
{
	DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	DEVX_SET(wq, wq, pd, pd->obj.id);
	DEVX_SET(wq, wq, log_wq_stride, __builtin_ctz(b->stride));
	DEVX_SET(wq, wq, log_wq_sz, log_sz);
}
