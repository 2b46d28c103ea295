/* SPDX-License-Identifier: MIT */
/*
 * General objects: CREATE/MODIFY/QUERY/DESTROY_GENERAL_OBJECT dispatch on
 * obj_type. Implemented types:
 *   AV_QP_MAPPING -- a remote address vector and the QP number it leads to
 *   (mlx5dv_map_ah_to_qp; the QP is the peer's, so it is not looked up
 *   here). The device keeps and answers the mapping; our engine takes each
 *   WQE's address from the WQE, so nothing is steered by it
 *   (docs/status.md).
 * Any other type fails BAD_PARAM and is not advertised in general_obj_types.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

/* Every general object starts with its handle and its obj_type (so a
 * pointer to one is a pointer to its fw_genobj). */
struct fw_genobj {
	struct fw_obj obj;
	uint16_t type;
};

struct fw_av_qp_map {
	struct fw_genobj g;
	uint32_t qpn;
	uint8_t av[DEVX_ST_SZ_BYTES(ud_av)];
};

#define HDR_GET(fld) IN_GET(general_obj_in_cmd_hdr, fld)

static int fw_genobj_unknown(struct fw_cmd *c, uint32_t type)
{
	return FW_FAIL(c, BAD_PARAM_ERR, "%s: obj_type 0x%x is not implemented",
		       c->desc->name, type);
}

static int fw_av_qp_map_create(struct fw_cmd *c)
{
	const uint8_t *av;
	struct fw_av_qp_map *m;
	uint32_t qpn;

	/* The table checked only the header: the object follows it. */
	if (c->inlen < DEVX_ST_SZ_BYTES(create_av_qp_mapping_in))
		return FW_FAIL(c, BAD_INP_LEN_ERR, "AV_QP_MAPPING: inlen %zu "
			       "< %zu", c->inlen,
			       (size_t)DEVX_ST_SZ_BYTES(create_av_qp_mapping_in));
	qpn = IN_GET(create_av_qp_mapping_in, mapping.qpn);
	av = IN_ADDR(create_av_qp_mapping_in, mapping.remote_address_vector);
	if (qpn >> 24)
		return FW_FAIL(c, BAD_PARAM_ERR, "AV_QP_MAPPING: qpn 0x%x is "
			       "wider than 24 bits", qpn);
	if (DEVX_GET(ud_av, av, src_addr_index) >= c->fw->cfg.gid_tbl_len)
		return FW_FAIL(c, BAD_PARAM_ERR, "AV_QP_MAPPING: src_addr_index "
			       "%u outside the GID table (%u)",
			       DEVX_GET(ud_av, av, src_addr_index),
			       c->fw->cfg.gid_tbl_len);
	m = calloc(1, sizeof(*m));
	if (!m)
		return FW_FAIL(c, NO_RES_ERR, "AV_QP_MAPPING: out of memory");
	if (fw_table_add(&c->fw->genobj, &m->g.obj)) {
		free(m);
		return FW_FAIL(c, NO_RES_ERR, "general objects: all %u numbers "
			       "are in use", c->fw->genobj.limit);
	}
	if (fw_obj_own(c, &m->g.obj, "AV_QP_MAPPING")) {
		fw_table_del(&c->fw->genobj, m->g.obj.id);
		free(m);
		return -1;
	}
	m->g.type = MLX5_OBJ_TYPE_AV_QP_MAPPING;
	m->qpn = qpn;
	memcpy(m->av, av, sizeof(m->av));
	OUT_SET(general_obj_out_cmd_hdr, obj_id, m->g.obj.id);
	return 0;
}

/* The object the header names, of the type it names, usable by the uid. */
static struct fw_genobj *fw_genobj_find(struct fw_cmd *c)
{
	uint32_t type = HDR_GET(obj_type), id = HDR_GET(obj_id);
	struct fw_genobj *o;

	o = FW_GET(c, genobj, id, "general object");
	if (!o)
		return NULL;
	if (o->type != type) {
		FW_FAIL(c, BAD_PARAM_ERR, "general object 0x%x is of type "
			"0x%x, not 0x%x", id, o->type, type);
		return NULL;
	}
	return o;
}

int fw_genobj_create(struct fw_cmd *c)
{
	uint32_t type = HDR_GET(obj_type);

	switch (type) {
	case MLX5_OBJ_TYPE_AV_QP_MAPPING:
		return fw_av_qp_map_create(c);
	default:
		return fw_genobj_unknown(c, type);
	}
}

int fw_genobj_query(struct fw_cmd *c)
{
	uint32_t type = HDR_GET(obj_type);
	struct fw_av_qp_map *m;
	struct fw_genobj *o;

	if (type != MLX5_OBJ_TYPE_AV_QP_MAPPING)
		return fw_genobj_unknown(c, type);
	if (c->outlen < DEVX_ST_SZ_BYTES(query_av_qp_mapping_out))
		return FW_FAIL(c, BAD_OUTP_LEN_ERR, "AV_QP_MAPPING query: "
			       "outlen %zu < %zu", c->outlen,
			       (size_t)DEVX_ST_SZ_BYTES(query_av_qp_mapping_out));
	o = fw_genobj_find(c);
	if (!o)
		return -1;
	m = (struct fw_av_qp_map *)o;
	OUT_SET(query_av_qp_mapping_out, hdr.obj_id, o->obj.id);
	OUT_SET(query_av_qp_mapping_out, obj.qpn, m->qpn);
	memcpy(OUT_ADDR(query_av_qp_mapping_out, obj.remote_address_vector),
	       m->av, sizeof(m->av));
	return 0;
}

int fw_genobj_modify(struct fw_cmd *c)
{
	uint32_t type = HDR_GET(obj_type);

	if (type != MLX5_OBJ_TYPE_AV_QP_MAPPING)
		return fw_genobj_unknown(c, type);
	if (!fw_genobj_find(c))
		return -1;
	return FW_FAIL(c, BAD_PARAM_ERR, "AV_QP_MAPPING has no modifiable "
		       "field");
}

int fw_genobj_destroy(struct fw_cmd *c)
{
	uint32_t type = HDR_GET(obj_type);
	struct fw_genobj *o;

	if (type != MLX5_OBJ_TYPE_AV_QP_MAPPING)
		return fw_genobj_unknown(c, type);
	o = fw_genobj_find(c);
	if (!o)
		return -1;
	fw_table_del(&c->fw->genobj, o->obj.id);
	fw_obj_disown(c->fw, &o->obj);
	free((struct fw_av_qp_map *)o);
	return 0;
}
