/* SPDX-License-Identifier: MIT */
/*
 * Modify header contexts: ALLOC/DEALLOC_MODIFY_HEADER_CONTEXT. A context
 * is a list of 8-byte actions for NIC transmit flow tables; an entry with
 * action MOD_HDR names it (modify_header_id) and the device runs the list
 * on every frame the entry matches (fw_flow.c). Every action is checked at
 * allocation, so running them cannot fail.
 *
 * Actions: SET (set_action_in: bits [offset, offset + length) of a field,
 * counted from its least significant bit, take the low bits of data; length
 * 0 means 32) and ADD (add_action_in: data is added to the field, modulo
 * its width). COPY and the other action types are refused. Fields: the
 * outer MAC addresses (OUT_SMAC_47_16, OUT_SMAC_15_0, OUT_DMAC_47_16,
 * OUT_DMAC_15_0); the others the PRM lists are refused. Rewriting a MAC
 * touches no checksum, so the device fixes nothing else.
 */
#include <stdlib.h>

#include "device/fw/fw_loc.h"

/* Where a field lives in an Ethernet frame. */
struct fw_mh_field {
	uint8_t off;		/* first byte */
	uint8_t bits;		/* width: 16 or 32 */
};

static const struct fw_mh_field fw_mh_fields[] = {
	[MLX5_ACTION_IN_FIELD_OUT_SMAC_47_16] = { 6, 32 },
	[MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0] = { 10, 16 },
	[MLX5_ACTION_IN_FIELD_OUT_DMAC_47_16] = { 0, 32 },
	[MLX5_ACTION_IN_FIELD_OUT_DMAC_15_0] = { 4, 16 },
};

static const struct fw_mh_field *fw_mh_field(uint32_t id)
{
	if (id >= sizeof(fw_mh_fields) / sizeof(fw_mh_fields[0]) ||
	    !fw_mh_fields[id].bits)
		return NULL;
	return &fw_mh_fields[id];
}

/* Action @i of the input mailbox into @a; 0 or a failed command. */
static int fw_mh_parse(struct fw_cmd *c, uint32_t i, struct fw_mh_action *a)
{
	const uint8_t *in = IN_ADDR(alloc_modify_header_context_in, actions) +
			    (size_t)i * 8;
	uint32_t type = DEVX_GET(set_action_in, in, action_type);
	uint32_t field = DEVX_GET(set_action_in, in, field);
	const struct fw_mh_field *f = fw_mh_field(field);

	if (type != MLX5_ACTION_TYPE_SET && type != MLX5_ACTION_TYPE_ADD)
		return FW_FAIL(c, BAD_PARAM_ERR, "modify header: action %u has "
			       "action_type %u: only set (1) and add (2) are "
			       "supported", i, type);
	if (!f)
		return FW_FAIL(c, BAD_PARAM_ERR, "modify header: action %u names "
			       "field 0x%x: only the outer MAC addresses (0x1, "
			       "0x2, 0x4, 0x5) are supported", i, field);
	a->type = (uint8_t)type;
	a->field = (uint16_t)field;
	a->data = DEVX_GET(set_action_in, in, data);
	if (type == MLX5_ACTION_TYPE_ADD) {
		a->offset = 0;
		a->length = f->bits;
		return 0;
	}
	a->offset = (uint8_t)DEVX_GET(set_action_in, in, offset);
	a->length = (uint8_t)DEVX_GET(set_action_in, in, length);
	if (!a->length)
		a->length = 32;
	if (a->offset + a->length > f->bits)
		return FW_FAIL(c, BAD_PARAM_ERR, "modify header: action %u sets "
			       "bits [%u, %u) of field 0x%x, which has %u", i,
			       a->offset, a->offset + a->length, field, f->bits);
	return 0;
}

int fw_mh_alloc(struct fw_cmd *c)
{
	uint32_t type = IN_GET(alloc_modify_header_context_in, table_type);
	uint32_t n = IN_GET(alloc_modify_header_context_in, num_of_actions);
	size_t at = DEVX_BYTE_OFF(alloc_modify_header_context_in, actions);
	struct fw_mh *mh;
	uint32_t i;

	/* NIC RX entries do not rewrite frames (fw_flow.c) */
	if (type != MLX5_FLOW_TABLE_TYPE_NIC_TX)
		return FW_FAIL(c, BAD_PARAM_ERR, "modify header: table_type %u: "
			       "only NIC transmit (1) tables rewrite headers",
			       type);
	if (!n || n > FW_MH_MAX_ACTIONS)
		return FW_FAIL(c, BAD_PARAM_ERR, "modify header: %u actions, "
			       "max_modify_header_actions is %u", n,
			       FW_MH_MAX_ACTIONS);
	if ((c->inlen - at) / 8 < n)
		return FW_FAIL(c, BAD_INP_LEN_ERR, "modify header: %u actions do "
			       "not fit the %zu-byte input mailbox", n, c->inlen);
	mh = calloc(1, sizeof(*mh) + (size_t)n * sizeof(mh->act[0]));
	if (!mh)
		return FW_FAIL(c, NO_RES_ERR, "modify header: out of memory");
	for (i = 0; i < n; i++)
		if (fw_mh_parse(c, i, &mh->act[i])) {
			free(mh);
			return -1;
		}
	mh->n = n;
	mh->table_type = type;
	if (fw_table_add(&c->fw->mh, &mh->obj)) {
		free(mh);
		return FW_FAIL(c, NO_RES_ERR, "modify header: all %u numbers are "
			       "in use", c->fw->mh.limit);
	}
	if (fw_obj_own(c, &mh->obj, "modify header")) {
		fw_table_del(&c->fw->mh, mh->obj.id);
		free(mh);
		return -1;
	}
	OUT_SET(alloc_modify_header_context_out, modify_header_id, mh->obj.id);
	return 0;
}

int fw_mh_dealloc(struct fw_cmd *c)
{
	struct fw_mh *mh = FW_GET(c, mh, IN_GET(dealloc_modify_header_context_in,
					       modify_header_id),
				  "DEALLOC_MODIFY_HEADER_CONTEXT");

	if (!mh)
		return -1;
	if (mh->obj.refs)
		return FW_FAIL(c, RES_BUSY, "modify header 0x%x is still used by "
			       "%u flow table entries", mh->obj.id, mh->obj.refs);
	fw_table_del(&c->fw->mh, mh->obj.id);
	fw_obj_disown(c->fw, &mh->obj);
	free(mh);
	return 0;
}

/* Big-endian field of @bits at @p. */
static uint32_t fw_mh_get(const uint8_t *p, uint8_t bits)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < bits / 8u; i++)
		v = v << 8 | p[i];
	return v;
}

static void fw_mh_put(uint8_t *p, uint8_t bits, uint32_t v)
{
	for (unsigned int i = bits / 8u; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

void fw_mh_apply(const struct fw_mh *mh, uint8_t *f, uint32_t len)
{
	for (uint32_t i = 0; i < mh->n; i++) {
		const struct fw_mh_action *a = &mh->act[i];
		const struct fw_mh_field *fd = fw_mh_field(a->field);
		uint64_t mask = ((1ull << a->length) - 1) << a->offset;
		uint32_t v;

		if (fd->off + fd->bits / 8u > len)
			continue;	/* a runt frame has no such field */
		v = fw_mh_get(f + fd->off, fd->bits);
		if (a->type == MLX5_ACTION_TYPE_ADD)
			v += a->data;
		else
			v = (uint32_t)((v & ~mask) |
				       (((uint64_t)a->data << a->offset) & mask));
		fw_mh_put(f + fd->off, fd->bits, v);
	}
}
