/* SPDX-License-Identifier: MIT */
/*
 * PSVs (protection signature values): the per-domain running signature of a
 * signature mkey. CREATE_PSV makes 1..4 of them in a PD; the BSF a UMR WQE
 * attaches to a signature mkey names one per domain (referenced, so a PSV in
 * use cannot be destroyed), and SET_PSV WQEs load its transient signature
 * (T10-DIF: guard seed << 48 | app tag << 32 | ref tag; CRC: the seed).
 */
#include <stdlib.h>

#include "device/fw/fw_loc.h"

int fw_psv_create(struct fw_cmd *c)
{
	uint32_t n = IN_GET(create_psv_in, num_psv), i;
	struct fw_psv *psv[4] = { NULL };
	struct fw_pd *pd;

	if (n < 1 || n > 4)
		return FW_FAIL(c, BAD_PARAM_ERR, "num_psv %u: 1 to 4", n);
	pd = FW_REF(c, pd, IN_GET(create_psv_in, pd), "psv pd");
	if (!pd)
		return -1;
	for (i = 0; i < n; i++) {
		psv[i] = calloc(1, sizeof(*psv[i]));
		if (!psv[i]) {
			FW_FAIL(c, NO_RES_ERR, "psv: out of memory");
			goto err;
		}
		if (fw_table_add(&c->fw->psv, &psv[i]->obj)) {
			free(psv[i]);
			psv[i] = NULL;
			FW_FAIL(c, NO_RES_ERR, "psv: all %u numbers are in use",
				c->fw->psv.limit);
			goto err;
		}
		if (fw_obj_own(c, &psv[i]->obj, "psv")) {
			fw_table_del(&c->fw->psv, psv[i]->obj.id);
			free(psv[i]);
			psv[i] = NULL;
			goto err;
		}
		psv[i]->pd = pd;
	}
	OUT_SET(create_psv_out, psv0_index, psv[0]->obj.id);
	if (psv[1])
		OUT_SET(create_psv_out, psv1_index, psv[1]->obj.id);
	if (psv[2])
		OUT_SET(create_psv_out, psv2_index, psv[2]->obj.id);
	if (psv[3])
		OUT_SET(create_psv_out, psv3_index, psv[3]->obj.id);
	return 0;
err:
	for (i = 0; i < 4; i++) {
		if (!psv[i])
			continue;
		fw_table_del(&c->fw->psv, psv[i]->obj.id);
		fw_obj_disown(c->fw, &psv[i]->obj);
		free(psv[i]);
	}
	return -1;
}

int fw_psv_destroy(struct fw_cmd *c)
{
	uint32_t id = IN_GET(destroy_psv_in, psvn);
	struct fw_psv *psv = FW_GET(c, psv, id, "DESTROY_PSV");

	if (!psv)
		return -1;
	if (psv->obj.refs)
		return FW_FAIL(c, RES_BUSY, "psv 0x%x is named by the BSF of %u "
			       "signature mkeys", id, psv->obj.refs);
	fw_table_del(&c->fw->psv, id);
	fw_obj_disown(c->fw, &psv->obj);
	free(psv);
	return 0;
}

struct fw_psv *fw_psv_lookup(struct fw *fw, uint32_t index)
{
	return fw_table_get(&fw->psv, index & 0xffffff);
}
