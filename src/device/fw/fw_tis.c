/* SPDX-License-Identifier: MIT */
/*
 * Transport interface send (TIS): the transmit context an Ethernet SQ
 * names (sqc.tis_num_0). It belongs to a transport domain, which is what
 * self-loopback blocking compares against a TIR's. Creating one takes the
 * raw-TX right: uid 0, or a user context created with cap RAW_TX (bit 0).
 * LAG port affinity and TLS are not supported; prio is kept.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

#define FW_UCTX_CAP_RAW_TX 0x1

static int fw_tis_check(struct fw_cmd *c, const uint8_t *ctx)
{
	if (DEVX_GET(tisc, ctx, tls_en))
		return FW_FAIL(c, BAD_PARAM_ERR, "tis: tls_en: TLS offload is "
			       "not supported");
	if (DEVX_GET(tisc, ctx, lag_tx_port_affinity) > 1 ||
	    DEVX_GET(tisc, ctx, strict_lag_tx_port_affinity))
		return FW_FAIL(c, BAD_PARAM_ERR, "tis: lag_tx_port_affinity %u: "
			       "the device has one port and no LAG",
			       DEVX_GET(tisc, ctx, lag_tx_port_affinity));
	if (DEVX_GET(tisc, ctx, underlay_qpn))
		return FW_FAIL(c, BAD_PARAM_ERR, "tis: underlay_qpn 0x%x: IPoIB "
			       "underlay QPs are not supported",
			       DEVX_GET(tisc, ctx, underlay_qpn));
	return 0;
}

int fw_tis_create(struct fw_cmd *c)
{
	const uint8_t *ctx = IN_ADDR(create_tis_in, ctx);
	struct fw_tis *tis;
	struct fw_td *td;
	struct fw_pd *pd = NULL;

	if (c->uid && c->uid != MLX5_SHARED_RESOURCE_UID) {
		struct fw_uctx *u = fw_table_get(&c->fw->uctx, c->uid);

		if (!u || !(u->cap & FW_UCTX_CAP_RAW_TX))
			return FW_FAIL(c, BAD_PARAM_ERR, "tis: uid %u lacks the "
				       "RAW_TX capability (uctx cap bit 0)",
				       c->uid);
	}
	if (fw_tis_check(c, ctx))
		return -1;
	td = FW_REF(c, td, DEVX_GET(tisc, ctx, transport_domain),
		    "tis transport_domain");
	if (!td)
		return -1;
	if (DEVX_GET(tisc, ctx, pd)) {
		pd = FW_REF(c, pd, DEVX_GET(tisc, ctx, pd), "tis pd");
		if (!pd)
			return -1;
	}
	tis = calloc(1, sizeof(*tis));
	if (!tis)
		return FW_FAIL(c, NO_RES_ERR, "tis: out of memory");
	if (fw_table_add(&c->fw->tis, &tis->obj)) {
		free(tis);
		return FW_FAIL(c, NO_RES_ERR, "tis: all %u numbers are in use",
			       c->fw->tis.limit);
	}
	if (fw_obj_own(c, &tis->obj, "tis")) {
		fw_table_del(&c->fw->tis, tis->obj.id);
		free(tis);
		return -1;
	}
	memcpy(tis->ctx, ctx, sizeof(tis->ctx));
	tis->td = td;
	tis->pd = pd;
	fw_ref(&td->obj);
	if (pd)
		fw_ref(&pd->obj);
	OUT_SET(create_tis_out, tisn, tis->obj.id);
	return 0;
}

int fw_tis_modify(struct fw_cmd *c)
{
	struct fw_tis *tis = FW_GET(c, tis, IN_GET(modify_tis_in, tisn),
				    "MODIFY_TIS");
	const uint8_t *ctx = IN_ADDR(modify_tis_in, ctx);
	uint32_t mask = IN_GET(modify_tis_in, bitmask.prio) ?
			MLX5_MODIFY_TIS_BITMASK_PRIO : 0;

	if (!tis)
		return -1;
	if (IN_GET(modify_tis_in, bitmask.lag_tx_port_affinity) ||
	    IN_GET(modify_tis_in, bitmask.strict_lag_tx_port_affinity))
		return FW_FAIL(c, BAD_PARAM_ERR, "tis 0x%x: LAG port affinity "
			       "cannot be modified (no LAG)", tis->obj.id);
	if (mask & MLX5_MODIFY_TIS_BITMASK_PRIO)
		DEVX_SET(tisc, tis->ctx, prio, DEVX_GET(tisc, ctx, prio));
	return 0;
}

int fw_tis_query(struct fw_cmd *c)
{
	struct fw_tis *tis = FW_GET(c, tis, IN_GET(eth_obj_cmd_in, obj_num),
				    "QUERY_TIS");

	if (!tis)
		return -1;
	memcpy(OUT_ADDR(query_tis_out, tis_context), tis->ctx, sizeof(tis->ctx));
	return 0;
}

int fw_tis_destroy(struct fw_cmd *c)
{
	struct fw_tis *tis = FW_GET(c, tis, IN_GET(eth_obj_cmd_in, obj_num),
				    "DESTROY_TIS");

	if (!tis)
		return -1;
	if (tis->obj.refs)
		return FW_FAIL(c, RES_BUSY, "tis 0x%x is still used by %u SQs",
			       tis->obj.id, tis->obj.refs);
	fw_table_del(&c->fw->tis, tis->obj.id);
	fw_obj_disown(c->fw, &tis->obj);
	fw_unref(&tis->td->obj);
	if (tis->pd)
		fw_unref(&tis->pd->obj);
	free(tis);
	return 0;
}
