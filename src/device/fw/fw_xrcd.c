/* SPDX-License-Identifier: MIT */
/* XRC domains: referenced by XRC target QPs and XRC SRQs. */
#include <stdlib.h>

#include "device/fw/fw_loc.h"

int fw_xrcd_alloc(struct fw_cmd *c)
{
	struct fw_xrcd *x = calloc(1, sizeof(*x));

	if (!x)
		return FW_FAIL(c, NO_RES_ERR, "xrcd: out of memory");
	if (fw_table_add(&c->fw->xrcd, &x->obj)) {
		free(x);
		return FW_FAIL(c, NO_RES_ERR, "xrcd: all %u numbers are in use",
			       c->fw->xrcd.limit);
	}
	if (fw_obj_own(c, &x->obj, "xrcd")) {
		fw_table_del(&c->fw->xrcd, x->obj.id);
		free(x);
		return -1;
	}
	OUT_SET(alloc_xrcd_out, xrcd, x->obj.id);
	return 0;
}

int fw_xrcd_dealloc(struct fw_cmd *c)
{
	uint32_t id = IN_GET(dealloc_xrcd_in, xrcd);
	struct fw_xrcd *x = FW_GET(c, xrcd, id, "DEALLOC_XRCD");

	if (!x)
		return -1;
	if (x->obj.refs)
		return FW_FAIL(c, RES_BUSY,
			       "xrcd 0x%x is still used by %u QPs/SRQs", id,
			       x->obj.refs);
	fw_table_del(&c->fw->xrcd, id);
	fw_obj_disown(c->fw, &x->obj);
	free(x);
	return 0;
}
