/* SPDX-License-Identifier: MIT */
/*
 * General objects: CREATE/MODIFY/QUERY/DESTROY_GENERAL_OBJECT dispatch on
 * obj_type through a table. Implemented types:
 *   AV_QP_MAPPING -- a remote address vector and the QP number it leads to
 *   (mlx5dv_map_ah_to_qp; the QP is the peer's, so it is not looked up
 *   here).
 *   SCHEDULING_ELEMENT -- the NIC QoS tree of mlx5dv_sched_*: DWRR TSAR
 *   nodes (root or under a TSAR) and queue-group leaves under a TSAR, with
 *   bw_share / max_average_bw; QPs join a leaf through the extended QP
 *   context (fw_qp.c).
 *   DEK and CRYPTO_LOGIN -- the crypto engine's keys and login sessions
 *   (fw_crypto.c).
 * The device keeps and answers the first two; the engine neither steers by
 * a mapping nor shapes traffic by the tree (docs/status.md). Any other type
 * fails BAD_PARAM and is not advertised in general_obj_types.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

struct fw_av_qp_map {
	struct fw_genobj g;
	uint32_t qpn;
	uint8_t av[DEVX_ST_SZ_BYTES(ud_av)];
};

struct fw_sched {
	struct fw_genobj g;
	struct fw_sched *parent;	/* NULL for a root TSAR */
	uint8_t element_type;
	uint32_t bw_share, max_average_bw;
};

struct fw_genobj_ops {
	uint16_t type;
	const char *name;
	size_t in_size;		/* create/modify mailbox */
	size_t out_size;	/* query answer */
	int (*create)(struct fw_cmd *c, struct fw_genobj **o);
	int (*modify)(struct fw_cmd *c, struct fw_genobj *o);
	int (*query)(struct fw_cmd *c, struct fw_genobj *o);
	int (*destroy)(struct fw_cmd *c, struct fw_genobj *o);
};

#define HDR_GET(fld) IN_GET(general_obj_in_cmd_hdr, fld)

/* ---- AV_QP_MAPPING ---------------------------------------------------- */

static int fw_av_qp_map_create(struct fw_cmd *c, struct fw_genobj **o)
{
	const uint8_t *av = IN_ADDR(create_av_qp_mapping_in,
				    mapping.remote_address_vector);
	uint32_t qpn = IN_GET(create_av_qp_mapping_in, mapping.qpn);
	struct fw_av_qp_map *m;

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
	m->qpn = qpn;
	memcpy(m->av, av, sizeof(m->av));
	*o = &m->g;
	return 0;
}

static int fw_av_qp_map_modify(struct fw_cmd *c, struct fw_genobj *o)
{
	return FW_FAIL(c, BAD_PARAM_ERR, "AV_QP_MAPPING 0x%x has no modifiable "
		       "field", o->obj.id);
}

static int fw_av_qp_map_query(struct fw_cmd *c, struct fw_genobj *o)
{
	struct fw_av_qp_map *m = (struct fw_av_qp_map *)o;

	OUT_SET(query_av_qp_mapping_out, obj.qpn, m->qpn);
	memcpy(OUT_ADDR(query_av_qp_mapping_out, obj.remote_address_vector),
	       m->av, sizeof(m->av));
	return 0;
}

static int fw_av_qp_map_destroy(struct fw_cmd *c, struct fw_genobj *o)
{
	(void)c;
	(void)o;
	return 0;
}

/* ---- SCHEDULING_ELEMENT ----------------------------------------------- */

#define SCTX(fld) IN_GET(create_sched_elem_in, sched_elem.sched_context.fld)

/* bw_share / max_average_bw from the mailbox where @select says so. */
static int fw_sched_rates(struct fw_cmd *c, struct fw_sched *s,
			  uint64_t select)
{
	uint32_t share = SCTX(bw_share);

	if (select & ~(uint64_t)(MLX5_SCHED_MODIFY_BW_SHARE |
				 MLX5_SCHED_MODIFY_MAX_AVERAGE_BW))
		return FW_FAIL(c, BAD_PARAM_ERR, "scheduling element: "
			       "modify_field_select 0x%llx has unknown bits",
			       (unsigned long long)select);
	if ((select & MLX5_SCHED_MODIFY_BW_SHARE) &&
	    share > FW_SCHED_MAX_BW_SHARE)
		return FW_FAIL(c, BAD_PARAM_ERR, "scheduling element: bw_share "
			       "%u above max_tsar_bw_share %u", share,
			       FW_SCHED_MAX_BW_SHARE);
	if (select & MLX5_SCHED_MODIFY_BW_SHARE)
		s->bw_share = share;
	if (select & MLX5_SCHED_MODIFY_MAX_AVERAGE_BW)
		s->max_average_bw = SCTX(max_average_bw);
	return 0;
}

static int fw_sched_create(struct fw_cmd *c, struct fw_genobj **o)
{
	uint32_t hier = IN_GET(create_sched_elem_in,
			       sched_elem.scheduling_hierarchy);
	uint32_t type = SCTX(element_type), pid = SCTX(parent_element_id);
	struct fw_genobj *pg = NULL;
	struct fw_sched *s, *parent = NULL;

	if (hier != MLX5_SCHED_HIERARCHY_NIC)
		return FW_FAIL(c, BAD_PARAM_ERR, "scheduling element: hierarchy "
			       "%u (only NIC, %u, is implemented)", hier,
			       MLX5_SCHED_HIERARCHY_NIC);
	if (type != MLX5_SCHED_ELEM_TYPE_TSAR &&
	    type != MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP)
		return FW_FAIL(c, BAD_PARAM_ERR, "scheduling element: element "
			       "type %u (TSAR 0 and QUEUE_GROUP 4 only)", type);
	if (type == MLX5_SCHED_ELEM_TYPE_TSAR &&
	    SCTX(sched_elem_attr.tsar_type) != MLX5_SCHED_TSAR_TYPE_DWRR)
		return FW_FAIL(c, BAD_PARAM_ERR, "scheduling element: TSAR type "
			       "%u (only DWRR)", SCTX(sched_elem_attr.tsar_type));
	if (pid) {
		pg = FW_REF(c, genobj, pid, "scheduling element parent");
		if (!pg)
			return -1;
		parent = (struct fw_sched *)pg;
		if (pg->type != MLX5_OBJ_TYPE_SCHEDULING_ELEMENT ||
		    parent->element_type != MLX5_SCHED_ELEM_TYPE_TSAR)
			return FW_FAIL(c, BAD_PARAM_ERR, "scheduling element: "
				       "parent 0x%x is not a TSAR", pid);
	} else if (type != MLX5_SCHED_ELEM_TYPE_TSAR) {
		return FW_FAIL(c, BAD_PARAM_ERR, "scheduling element: a queue "
			       "group needs a parent TSAR");
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return FW_FAIL(c, NO_RES_ERR, "scheduling element: out of memory");
	s->element_type = (uint8_t)type;
	if (fw_sched_rates(c, s, IN_GET64(create_sched_elem_in,
					  sched_elem.modify_field_select))) {
		free(s);
		return -1;
	}
	if (parent) {
		s->parent = parent;
		fw_ref(&parent->g.obj);
	}
	*o = &s->g;
	return 0;
}

static int fw_sched_modify(struct fw_cmd *c, struct fw_genobj *o)
{
	struct fw_sched *s = (struct fw_sched *)o;
	struct fw_sched tmp = *s;

	if (SCTX(element_type) != s->element_type)
		return FW_FAIL(c, BAD_PARAM_ERR, "scheduling element 0x%x is of "
			       "element type %u, not %u", o->obj.id,
			       s->element_type, SCTX(element_type));
	if (fw_sched_rates(c, &tmp, IN_GET64(create_sched_elem_in,
					     sched_elem.modify_field_select)))
		return -1;
	s->bw_share = tmp.bw_share;
	s->max_average_bw = tmp.max_average_bw;
	return 0;
}

static int fw_sched_query(struct fw_cmd *c, struct fw_genobj *o)
{
	struct fw_sched *s = (struct fw_sched *)o;
	uint8_t *ctx = OUT_ADDR(query_sched_elem_out, sched_elem.sched_context);

	OUT_SET(query_sched_elem_out, sched_elem.scheduling_hierarchy,
		MLX5_SCHED_HIERARCHY_NIC);
	DEVX_SET(sched_context, ctx, element_type, s->element_type);
	DEVX_SET(sched_context, ctx, parent_element_id,
		 s->parent ? s->parent->g.obj.id : 0);
	DEVX_SET(sched_context, ctx, bw_share, s->bw_share);
	DEVX_SET(sched_context, ctx, max_average_bw, s->max_average_bw);
	if (s->element_type == MLX5_SCHED_ELEM_TYPE_TSAR)
		DEVX_SET(sched_context, ctx, sched_elem_attr.tsar_type,
			 MLX5_SCHED_TSAR_TYPE_DWRR);
	return 0;
}

static int fw_sched_destroy(struct fw_cmd *c, struct fw_genobj *o)
{
	struct fw_sched *s = (struct fw_sched *)o;

	(void)c;
	if (s->parent)
		fw_unref(&s->parent->g.obj);
	return 0;
}

bool fw_sched_queue_group_ok(struct fw_cmd *c, uint32_t id)
{
	struct fw_genobj *o = FW_REF(c, genobj, id, "QoS queue group");

	if (!o)
		return false;
	if (o->type != MLX5_OBJ_TYPE_SCHEDULING_ELEMENT ||
	    ((struct fw_sched *)o)->element_type !=
	    MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP) {
		FW_FAIL(c, BAD_PARAM_ERR, "0x%x is not a queue-group scheduling "
			"element", id);
		return false;
	}
	return true;
}

/* ---- dispatch ---------------------------------------------------------- */

static const struct fw_genobj_ops fw_genobj_types[] = {
	{ MLX5_OBJ_TYPE_AV_QP_MAPPING, "AV_QP_MAPPING",
	  DEVX_ST_SZ_BYTES(create_av_qp_mapping_in),
	  DEVX_ST_SZ_BYTES(query_av_qp_mapping_out),
	  fw_av_qp_map_create, fw_av_qp_map_modify, fw_av_qp_map_query,
	  fw_av_qp_map_destroy },
	{ MLX5_OBJ_TYPE_SCHEDULING_ELEMENT, "SCHEDULING_ELEMENT",
	  DEVX_ST_SZ_BYTES(create_sched_elem_in),
	  DEVX_ST_SZ_BYTES(query_sched_elem_out),
	  fw_sched_create, fw_sched_modify, fw_sched_query, fw_sched_destroy },
	{ MLX5_OBJ_TYPE_DEK, "DEK",
	  DEVX_ST_SZ_BYTES(create_encryption_key_obj_in),
	  DEVX_ST_SZ_BYTES(query_encryption_key_obj_out),
	  fw_dek_create, fw_dek_modify, fw_dek_query, fw_dek_destroy },
	{ MLX5_OBJ_TYPE_CRYPTO_LOGIN, "CRYPTO_LOGIN",
	  DEVX_ST_SZ_BYTES(create_crypto_login_obj_in),
	  DEVX_ST_SZ_BYTES(query_crypto_login_obj_out),
	  fw_crypto_login_create, fw_crypto_login_modify,
	  fw_crypto_login_query, fw_crypto_login_destroy },
};

const char *fw_genobj_type_name(uint16_t type)
{
	uint32_t i;

	for (i = 0; i < sizeof(fw_genobj_types) / sizeof(fw_genobj_types[0]);
	     i++)
		if (fw_genobj_types[i].type == type)
			return fw_genobj_types[i].name;
	return "?";
}

/* The type's operations, after the mailbox-length checks of @c's opcode. */
static const struct fw_genobj_ops *fw_genobj_ops(struct fw_cmd *c)
{
	uint32_t type = HDR_GET(obj_type), i;
	const struct fw_genobj_ops *t = NULL;

	for (i = 0; i < sizeof(fw_genobj_types) / sizeof(fw_genobj_types[0]);
	     i++)
		if (fw_genobj_types[i].type == type)
			t = &fw_genobj_types[i];
	if (!t) {
		FW_FAIL(c, BAD_PARAM_ERR, "%s: obj_type 0x%x is not implemented",
			c->desc->name, type);
		return NULL;
	}
	/* The table checked only the header: the object follows it. */
	if ((c->opcode == MLX5_CMD_OP_CREATE_GENERAL_OBJECT ||
	     c->opcode == MLX5_CMD_OP_MODIFY_GENERAL_OBJECT) &&
	    c->inlen < t->in_size) {
		FW_FAIL(c, BAD_INP_LEN_ERR, "%s %s: inlen %zu < %zu",
			c->desc->name, t->name, c->inlen, t->in_size);
		return NULL;
	}
	if (c->opcode == MLX5_CMD_OP_QUERY_GENERAL_OBJECT &&
	    c->outlen < t->out_size) {
		FW_FAIL(c, BAD_OUTP_LEN_ERR, "%s %s: outlen %zu < %zu",
			c->desc->name, t->name, c->outlen, t->out_size);
		return NULL;
	}
	return t;
}

/* The object the header names, of the type it names, usable by the uid. */
static struct fw_genobj *fw_genobj_find(struct fw_cmd *c,
					const struct fw_genobj_ops *t)
{
	uint32_t id = HDR_GET(obj_id);
	struct fw_genobj *o;

	o = FW_GET(c, genobj, id, "general object");
	if (!o)
		return NULL;
	if (o->type != t->type) {
		FW_FAIL(c, BAD_PARAM_ERR, "general object 0x%x is of type "
			"0x%x, not %s", id, o->type, t->name);
		return NULL;
	}
	return o;
}

int fw_genobj_create(struct fw_cmd *c)
{
	const struct fw_genobj_ops *t = fw_genobj_ops(c);
	struct fw_genobj *o = NULL;

	if (!t || t->create(c, &o))
		return -1;
	o->type = t->type;
	if (fw_table_add(&c->fw->genobj, &o->obj)) {
		t->destroy(c, o);
		free(o);
		return FW_FAIL(c, NO_RES_ERR, "general objects: all %u numbers "
			       "are in use", c->fw->genobj.limit);
	}
	if (fw_obj_own(c, &o->obj, t->name)) {
		fw_table_del(&c->fw->genobj, o->obj.id);
		t->destroy(c, o);
		free(o);
		return -1;
	}
	OUT_SET(general_obj_out_cmd_hdr, obj_id, o->obj.id);
	return 0;
}

int fw_genobj_modify(struct fw_cmd *c)
{
	const struct fw_genobj_ops *t = fw_genobj_ops(c);
	struct fw_genobj *o = t ? fw_genobj_find(c, t) : NULL;

	return o ? t->modify(c, o) : -1;
}

int fw_genobj_query(struct fw_cmd *c)
{
	const struct fw_genobj_ops *t = fw_genobj_ops(c);
	struct fw_genobj *o = t ? fw_genobj_find(c, t) : NULL;

	if (!o)
		return -1;
	if (t->query(c, o))
		return -1;
	OUT_SET(general_obj_out_cmd_hdr, obj_id, o->obj.id);
	return 0;
}

int fw_genobj_destroy(struct fw_cmd *c)
{
	const struct fw_genobj_ops *t = fw_genobj_ops(c);
	struct fw_genobj *o = t ? fw_genobj_find(c, t) : NULL;

	if (!o)
		return -1;
	if (o->obj.refs)
		return FW_FAIL(c, RES_BUSY, "%s 0x%x is still referenced by %u "
			       "objects", t->name, o->obj.id, o->obj.refs);
	if (t->destroy(c, o))
		return -1;
	fw_table_del(&c->fw->genobj, o->obj.id);
	fw_obj_disown(c->fw, &o->obj);
	free(o);
	return 0;
}
