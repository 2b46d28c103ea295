/* SPDX-License-Identifier: MIT */
/*
 * Transport interface receive (TIR): where steering delivers a frame.
 * Direct dispatch (disp_type DIRECT) sends every frame to inline_rqn;
 * indirect dispatch (RSS) to one RQ of the RQ table indirect_table, picked
 * by the Toeplitz hash (rx_hash_fn TOEPLITZ, the 40-byte key) of the outer
 * fields rx_hash_field_selector_outer selects -- source/destination IP of
 * its L3 type, source/destination port of its L4 type -- or, with no
 * fields selected, always the table's first RQ. Symmetric hashing, the
 * XOR8 function, inner (tunnel) selectors, IPsec SPI, LRO and TLS are
 * refused with a clear reason. The TIR belongs to a transport domain: with
 * self_lb_block, frames sent by an SQ whose TIS is in the same domain are
 * not delivered to it (unicast and/or multicast, by the frame's DMAC).
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

/* The hash settings of an indirect TIR's context into @tir. */
static int tir_parse_hash(struct fw_cmd *c, const uint8_t *ctx, struct fw_tir *tir)
{
	const uint8_t *sel = DEVX_ADDR_OF(tirc, ctx, rx_hash_field_selector_outer);
	const uint8_t *inner = DEVX_ADDR_OF(tirc, ctx, rx_hash_field_selector_inner);
	uint32_t fn = DEVX_GET(tirc, ctx, rx_hash_fn);
	uint32_t fields = DEVX_GET(rx_hash_field_select, sel, selected_fields);
	const uint32_t known = MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP |
			       MLX5_HASH_FIELD_SEL_L4_SPORT | MLX5_HASH_FIELD_SEL_L4_DPORT;

	if (DEVX_GET(tirc, ctx, rx_hash_symmetric) ||
	    DEVX_GET(rx_hash_field_select, inner, selected_fields))
		return FW_FAIL(c, BAD_PARAM_ERR, "tir: symmetric and inner-header "
			       "RSS hashing are not supported");
	if (fields & ~known)
		return FW_FAIL(c, BAD_PARAM_ERR, "tir: rx_hash selected_fields 0x%x: "
			       "only IP addresses and L4 ports (0xf)", fields);
	if (fields && fn != MLX5_RX_HASH_FN_TOEPLITZ)
		return FW_FAIL(c, BAD_PARAM_ERR, "tir: rx_hash_fn %u: only Toeplitz "
			       "(2) hashes selected fields", fn);
	if (!fields && fn != MLX5_RX_HASH_FN_NONE && fn != MLX5_RX_HASH_FN_TOEPLITZ)
		return FW_FAIL(c, BAD_PARAM_ERR, "tir: rx_hash_fn %u is not "
			       "supported", fn);
	tir->hash_fields = fields;
	tir->hash_l3 = (uint8_t)DEVX_GET(rx_hash_field_select, sel, l3_prot_type);
	tir->hash_l4 = (uint8_t)DEVX_GET(rx_hash_field_select, sel, l4_prot_type);
	memcpy(tir->hash_key, DEVX_ADDR_OF(tirc, ctx, rx_hash_toeplitz_key),
	       sizeof(tir->hash_key));
	return 0;
}

int fw_tir_create(struct fw_cmd *c)
{
	const uint8_t *ctx = IN_ADDR(create_tir_in, ctx);
	uint32_t disp = DEVX_GET(tirc, ctx, disp_type);
	struct fw_tir *tir;
	struct fw_obj *dst;
	struct fw_td *td;

	if (disp != MLX5_TIRC_DISP_TYPE_DIRECT && disp != MLX5_TIRC_DISP_TYPE_INDIRECT)
		return FW_FAIL(c, BAD_PARAM_ERR, "tir: disp_type %u is neither "
			       "direct (0) nor indirect (1)", disp);
	if (DEVX_GET(tirc, ctx, packet_merge_mask) || DEVX_GET(tirc, ctx, tls_en) ||
	    DEVX_GET(tirc, ctx, tunneled_offload_en))
		return FW_FAIL(c, BAD_PARAM_ERR, "tir: LRO, TLS and tunneled "
			       "offloads are not supported");
	tir = calloc(1, sizeof(*tir));
	if (!tir)
		return FW_FAIL(c, NO_RES_ERR, "tir: out of memory");
	if (disp == MLX5_TIRC_DISP_TYPE_INDIRECT && tir_parse_hash(c, ctx, tir))
		goto fail;
	if (disp == MLX5_TIRC_DISP_TYPE_DIRECT) {
		tir->rq = FW_REF(c, rq, DEVX_GET(tirc, ctx, inline_rqn), "tir inline_rqn");
		dst = tir->rq ? &tir->rq->obj : NULL;
	} else {
		tir->rqt = FW_REF(c, rqt, DEVX_GET(tirc, ctx, indirect_table),
				  "tir indirect_table");
		dst = tir->rqt ? &tir->rqt->obj : NULL;
	}
	if (!dst)
		goto fail;
	/* Transport domain 0 is none (DEVX users leave it so, e.g. rdma-core's
	 * test_mlx5_dr): such a TIR takes part in no self-loopback block. */
	td = NULL;
	if (DEVX_GET(tirc, ctx, transport_domain)) {
		td = FW_REF(c, td, DEVX_GET(tirc, ctx, transport_domain),
			    "tir transport_domain");
		if (!td)
			goto fail;
	}
	if (fw_table_add(&c->fw->tir, &tir->obj)) {
		FW_FAIL(c, NO_RES_ERR, "tir: all %u numbers are in use", c->fw->tir.limit);
		goto fail;
	}
	if (fw_obj_own(c, &tir->obj, "tir")) {
		fw_table_del(&c->fw->tir, tir->obj.id);
		goto fail;
	}
	memcpy(tir->ctx, ctx, sizeof(tir->ctx));
	tir->td = td;
	tir->self_lb_block = (uint8_t)DEVX_GET(tirc, ctx, self_lb_block);
	fw_ref(dst);
	if (td)
		fw_ref(&td->obj);
	OUT_SET(create_tir_out, tirn, tir->obj.id);
	return 0;
fail:
	free(tir);
	return -1;
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
	fw_unref(tir->rq ? &tir->rq->obj : &tir->rqt->obj);
	if (tir->td)
		fw_unref(&tir->td->obj);
	free(tir);
	return 0;
}
