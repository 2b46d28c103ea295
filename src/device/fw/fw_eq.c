/* SPDX-License-Identifier: MIT */
/*
 * Event queues. The device owns one internal EQ per completion vector
 * (numbers 0 .. num_comp_vectors-1, uid 0, no ring: the engine signals them
 * through the event fds); CREATE_EQ adds EQs with a real ring of 64-byte EQEs.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

#define EQE_SIZE 64
#define EQ_LOG_MAX_SZ 22

int fw_eq_create_internal(struct fw *fw, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && i < 256; i++) {
		struct fw_eq *eq = calloc(1, sizeof(*eq));

		if (!eq || fw_table_add_at(&fw->eq, &eq->obj, i)) {
			free(eq);
			return -1;
		}
		eq->internal = true;
		eq->intr = i;
	}
	fw->eq.next = i;
	return 0;
}

void fw_eq_free(struct fw_eq *eq)
{
	fw_buf_release(&eq->buf);
	free(eq);
}

int fw_eq_create(struct fw_cmd *c)
{
	const uint8_t *eqc = IN_ADDR(create_eq_in, eq_context_entry);
	uint32_t log_size = DEVX_GET(eqc, eqc, log_eq_size);
	uint32_t uarn = DEVX_GET(eqc, eqc, uar_page);
	struct fw_eq *eq;
	struct fw_uar *uar;
	int i;

	if (log_size > EQ_LOG_MAX_SZ)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "log_eq_size %u above log_max_eq_sz %u", log_size,
			       EQ_LOG_MAX_SZ);
	uar = FW_REF(c, uar, uarn, "eq uar_page");
	if (!uar)
		return -1;
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return FW_FAIL(c, NO_RES_ERR, "eq: out of memory");
	if (fw_buf_from_pas(c, &eq->buf, "eq buffer",
			    DEVX_BYTE_OFF(create_eq_in, pas),
			    DEVX_GET(eqc, eqc, log_page_size),
			    (uint64_t)DEVX_GET(eqc, eqc, page_offset) * 64,
			    (uint64_t)EQE_SIZE << log_size))
		goto err;
	if (fw_table_add(&c->fw->eq, &eq->obj)) {
		FW_FAIL(c, NO_RES_ERR, "eq: all 256 numbers are in use");
		goto err;
	}
	if (fw_obj_own(c, &eq->obj, "eq")) {
		fw_table_del(&c->fw->eq, eq->obj.id);
		goto err;
	}
	eq->buf.stride = EQE_SIZE;
	eq->log_size = log_size;
	eq->intr = DEVX_GET(eqc, eqc, intr);
	eq->uar = uar;
	fw_ref(&uar->obj);
	memcpy(eq->ctx, eqc, sizeof(eq->ctx));
	DEVX_SET(eqc, eq->ctx, status, 0);
	for (i = 0; i < 4; i++) {
		uint64_t v;

		memcpy(&v, IN_ADDR(create_eq_in, event_bitmask) + 8 * i, 8);
		eq->event_bitmask[i] = be64toh(v);
	}
	OUT_SET(create_eq_out, eq_number, eq->obj.id);
	return 0;
err:
	fw_buf_release(&eq->buf);
	free(eq);
	return -1;
}

static struct fw_eq *fw_eq_get(struct fw_cmd *c, uint32_t eqn)
{
	struct fw_eq *eq = FW_GET(c, eq, eqn, "eq_number");

	if (eq && eq->internal && c->uid) {
		FW_FAIL(c, BAD_PARAM_ERR, "eq %u is a device completion vector",
			eqn);
		return NULL;
	}
	return eq;
}

int fw_eq_destroy(struct fw_cmd *c)
{
	uint32_t eqn = IN_GET(destroy_eq_in, eq_number);
	struct fw_eq *eq = fw_eq_get(c, eqn);

	if (!eq)
		return -1;
	if (eq->internal)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "eq %u is a device completion vector", eqn);
	if (eq->obj.refs)
		return FW_FAIL(c, BAD_RES_STATE_ERR,
			       "eq %u still serves %u CQs", eqn, eq->obj.refs);
	fw_hook_eng_free(c->fw, &eq->eng);
	fw_table_del(&c->fw->eq, eqn);
	fw_obj_disown(c->fw, &eq->obj);
	fw_unref(&eq->uar->obj);
	fw_eq_free(eq);
	return 0;
}

int fw_eq_query(struct fw_cmd *c)
{
	uint32_t eqn = IN_GET(query_eq_in, eq_number);
	struct fw_eq *eq = fw_eq_get(c, eqn);
	uint8_t *eqc = OUT_ADDR(query_eq_out, eq_context_entry);
	uint64_t v = htobe64(eq ? eq->event_bitmask[0] : 0);

	if (!eq)
		return -1;
	memcpy(eqc, eq->ctx, sizeof(eq->ctx));
	if (eq->internal) {
		DEVX_SET(eqc, eqc, st, MLX5_EQC_ST_ARMED);
		DEVX_SET(eqc, eqc, intr, eq->intr);
		return 0;
	}
	memcpy(OUT_ADDR(query_eq_out, event_bitmask), &v, 8);
	fw_buf_put_pas(c, &eq->buf, DEVX_BYTE_OFF(query_eq_out, pas));
	return 0;
}
