/* SPDX-License-Identifier: MIT */
/*
 * Transport interface receive (TIR): where steering delivers a frame. Only
 * direct dispatch exists here (disp_type DIRECT: every frame to inline_rqn);
 * an indirect TIR (RSS over an RQ table) is refused with a clear reason, as
 * are LRO and TLS. The TIR belongs to a transport domain: with
 * self_lb_block, frames sent by an SQ whose TIS is in the same domain are
 * not delivered to it (unicast and/or multicast, by the frame's DMAC).
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

int fw_tir_create(struct fw_cmd *c)
{
	const uint8_t *ctx = IN_ADDR(create_tir_in, ctx);
	struct fw_tir *tir;
	struct fw_rq *rq;
	struct fw_td *td;

	if (DEVX_GET(tirc, ctx, disp_type) != MLX5_TIRC_DISP_TYPE_DIRECT)
		return FW_FAIL(c, BAD_PARAM_ERR, "tir: disp_type %u: indirect "
			       "(RSS) TIRs are not supported, only direct (0)",
			       DEVX_GET(tirc, ctx, disp_type));
	if (DEVX_GET(tirc, ctx, packet_merge_mask) || DEVX_GET(tirc, ctx, tls_en) ||
	    DEVX_GET(tirc, ctx, tunneled_offload_en))
		return FW_FAIL(c, BAD_PARAM_ERR, "tir: LRO, TLS and tunneled "
			       "offloads are not supported");
	rq = FW_REF(c, rq, DEVX_GET(tirc, ctx, inline_rqn), "tir inline_rqn");
	if (!rq)
		return -1;
	td = FW_REF(c, td, DEVX_GET(tirc, ctx, transport_domain),
		    "tir transport_domain");
	if (!td)
		return -1;
	tir = calloc(1, sizeof(*tir));
	if (!tir)
		return FW_FAIL(c, NO_RES_ERR, "tir: out of memory");
	if (fw_table_add(&c->fw->tir, &tir->obj)) {
		free(tir);
		return FW_FAIL(c, NO_RES_ERR, "tir: all %u numbers are in use",
			       c->fw->tir.limit);
	}
	if (fw_obj_own(c, &tir->obj, "tir")) {
		fw_table_del(&c->fw->tir, tir->obj.id);
		free(tir);
		return -1;
	}
	memcpy(tir->ctx, ctx, sizeof(tir->ctx));
	tir->rq = rq;
	tir->td = td;
	tir->self_lb_block = (uint8_t)DEVX_GET(tirc, ctx, self_lb_block);
	fw_ref(&rq->obj);
	fw_ref(&td->obj);
	OUT_SET(create_tir_out, tirn, tir->obj.id);
	return 0;
}

int fw_tir_query(struct fw_cmd *c)
{
	struct fw_tir *tir = FW_GET(c, tir, IN_GET(eth_obj_cmd_in, obj_num),
				    "QUERY_TIR");

	if (!tir)
		return -1;
	memcpy(OUT_ADDR(query_tir_out, tir_context), tir->ctx, sizeof(tir->ctx));
	return 0;
}

int fw_tir_destroy(struct fw_cmd *c)
{
	struct fw_tir *tir = FW_GET(c, tir, IN_GET(eth_obj_cmd_in, obj_num),
				    "DESTROY_TIR");

	if (!tir)
		return -1;
	if (tir->obj.refs)
		return FW_FAIL(c, RES_BUSY, "tir 0x%x is still the destination "
			       "of %u flow table entries", tir->obj.id,
			       tir->obj.refs);
	fw_table_del(&c->fw->tir, tir->obj.id);
	fw_obj_disown(c->fw, &tir->obj);
	fw_unref(&tir->rq->obj);
	fw_unref(&tir->td->obj);
	free(tir);
	return 0;
}
