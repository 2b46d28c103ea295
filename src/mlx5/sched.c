/* SPDX-License-Identifier: MIT */
/*
 * QoS scheduling elements (mlx5dv_sched_*): a tree of DWRR TSAR nodes with
 * queue-group leaves, each a SCHEDULING_ELEMENT general object of the NIC
 * hierarchy; mlx5dv_modify_qp_sched_elem() joins a QP to leaves through the
 * extended QP context (INIT2INIT in INIT, RTS2RTS in RTS). The device keeps
 * the tree; the engine does not shape traffic by it (docs/status.md).
 */
#include <errno.h>
#include <stdlib.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

struct mlx5dv_sched_node {
	struct ibv_context *ctx;
	struct mlx5dv_sched_node *parent;
	uint32_t id;
};

struct mlx5dv_sched_leaf {
	struct ibv_context *ctx;
	struct mlx5dv_sched_node *parent;
	uint32_t id;
};

#define SCHED_ALL_FLAGS (MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE | \
			 MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW)

/* The device's qos_cap page; false if it cannot be read. */
static bool sched_qos_cap(struct ibv_context *ctx, uint8_t *cap)
{
	struct mlx5_context *mctx = to_mctx(ctx);

	return DEVX_GET(cmd_hca_cap, mctx->caps.gen, qos) &&
	       !mlx5_query_hca_cap(mctx->hca, MLX5_CAP_QOS, cap,
				   MLX5_CAP_GENERAL_BYTES);
}

/* Trees at all: the NIC scheduler with TSAR and queue-group elements. */
static bool sched_supported(const uint8_t *cap)
{
	uint32_t et = DEVX_GET(qos_cap, cap, nic_element_type);

	return (et & ELEMENT_TYPE_CAP_MASK_TSAR) &&
	       (et & ELEMENT_TYPE_CAP_MASK_QUEUE_GROUP) &&
	       (DEVX_GET(qos_cap, cap, nic_tsar_type) & TSAR_TYPE_CAP_MASK_DWRR);
}

/* The rates the attributes ask for are ones the device can apply. */
static bool sched_attr_supported(const uint8_t *cap,
				 const struct mlx5dv_sched_attr *a)
{
	if ((a->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE) &&
	    !DEVX_GET(qos_cap, cap, nic_bw_share))
		return false;
	if ((a->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW) &&
	    !DEVX_GET(qos_cap, cap, nic_rate_limit))
		return false;
	return true;
}

/* A node may be a root (no parent, then no rates); a leaf needs a parent. */
static bool sched_attr_valid(const struct mlx5dv_sched_attr *a, bool node)
{
	if (!a || a->comp_mask || (a->flags & ~(uint32_t)SCHED_ALL_FLAGS))
		return false;
	if (node && !a->parent && a->flags)
		return false;
	if (!node && !a->parent)
		return false;
	return true;
}

/* CREATE or MODIFY_GENERAL_OBJECT of a NIC scheduling element. */
static int sched_cmd(struct ibv_context *ctx, uint16_t opcode, uint32_t id,
		     const struct mlx5dv_sched_attr *a, uint8_t type,
		     uint32_t *out_id)
{
	uint32_t in[DEVX_ST_SZ_DW(create_sched_elem_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(general_obj_out_cmd_hdr)] = {};
	void *se = DEVX_ADDR_OF(create_sched_elem_in, in, sched_elem);
	void *sc = DEVX_ADDR_OF(sched_elem, se, sched_context);
	int ret;

	DEVX_SET(general_obj_in_cmd_hdr, in, opcode, opcode);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type,
		 MLX5_OBJ_TYPE_SCHEDULING_ELEMENT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_id, id);
	/* The flag bits are the PRM modify_field_select bits. */
	DEVX_SET64(sched_elem, se, modify_field_select, a->flags);
	DEVX_SET(sched_elem, se, scheduling_hierarchy, MLX5_SCHED_HIERARCHY_NIC);
	DEVX_SET(sched_context, sc, element_type, type);
	if (opcode == MLX5_CMD_OP_CREATE_GENERAL_OBJECT && a->parent)
		DEVX_SET(sched_context, sc, parent_element_id, a->parent->id);
	if (a->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE)
		DEVX_SET(sched_context, sc, bw_share, a->bw_share);
	if (a->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW)
		DEVX_SET(sched_context, sc, max_average_bw, a->max_avg_bw);
	DEVX_SET(sched_context, sc, sched_elem_attr.tsar_type,
		 MLX5_SCHED_TSAR_TYPE_DWRR);
	ret = mlx5_cmd_exec(to_mctx(ctx), in, sizeof(in), out, sizeof(out));
	if (!ret && out_id)
		*out_id = DEVX_GET(general_obj_out_cmd_hdr, out, obj_id);
	return ret;
}

/* Common create: checks, then the object; NULL + errno on failure. */
static void *sched_create(struct ibv_context *ctx,
			  const struct mlx5dv_sched_attr *a, bool node)
{
	uint8_t cap[MLX5_CAP_GENERAL_BYTES] = { 0 };
	struct mlx5dv_sched_node *n;
	int ret;

	if (!ctx || !mlx5dv_is_supported(ctx->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!sched_attr_valid(a, node)) {
		errno = EINVAL;
		return NULL;
	}
	if (!sched_qos_cap(ctx, cap) || (node && !sched_supported(cap)) ||
	    !sched_attr_supported(cap, a)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* Node and leaf share the layout; the type tells them apart. */
	n = calloc(1, sizeof(*n));
	if (!n) {
		errno = ENOMEM;
		return NULL;
	}
	n->ctx = ctx;
	n->parent = a->parent;
	ret = sched_cmd(ctx, MLX5_CMD_OP_CREATE_GENERAL_OBJECT, 0, a,
			node ? MLX5_SCHED_ELEM_TYPE_TSAR :
			       MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP, &n->id);
	if (ret) {
		free(n);
		errno = ret;
		return NULL;
	}
	return n;
}

static int sched_modify(struct ibv_context *ctx, uint32_t id,
			const struct mlx5dv_sched_attr *a, bool node)
{
	uint8_t cap[MLX5_CAP_GENERAL_BYTES] = { 0 };

	if (!sched_attr_valid(a, node))
		return errno = EINVAL;
	if (!sched_qos_cap(ctx, cap) || !sched_attr_supported(cap, a))
		return errno = EOPNOTSUPP;
	return sched_cmd(ctx, MLX5_CMD_OP_MODIFY_GENERAL_OBJECT, id, a,
			 node ? MLX5_SCHED_ELEM_TYPE_TSAR :
				MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP, NULL);
}

SMX_EXPORT struct mlx5dv_sched_node *
mlx5dv_sched_node_create(struct ibv_context *context,
			 const struct mlx5dv_sched_attr *sched_attr)
{
	return sched_create(context, sched_attr, true);
}

SMX_EXPORT struct mlx5dv_sched_leaf *
mlx5dv_sched_leaf_create(struct ibv_context *context,
			 const struct mlx5dv_sched_attr *sched_attr)
{
	return sched_create(context, sched_attr, false);
}

SMX_EXPORT int mlx5dv_sched_node_modify(struct mlx5dv_sched_node *node,
					const struct mlx5dv_sched_attr *sched_attr)
{
	if (!node)
		return errno = EINVAL;
	return sched_modify(node->ctx, node->id, sched_attr, true);
}

SMX_EXPORT int mlx5dv_sched_leaf_modify(struct mlx5dv_sched_leaf *leaf,
					const struct mlx5dv_sched_attr *sched_attr)
{
	if (!leaf)
		return errno = EINVAL;
	return sched_modify(leaf->ctx, leaf->id, sched_attr, false);
}

/* A node with children is refused by the device (RES_BUSY -> EBUSY). */
SMX_EXPORT int mlx5dv_sched_node_destroy(struct mlx5dv_sched_node *node)
{
	int ret;

	if (!node)
		return EINVAL;
	ret = mlx5_genobj_destroy(to_mctx(node->ctx),
				  MLX5_OBJ_TYPE_SCHEDULING_ELEMENT, node->id);
	if (!ret)
		free(node);
	return ret;
}

SMX_EXPORT int mlx5dv_sched_leaf_destroy(struct mlx5dv_sched_leaf *leaf)
{
	int ret;

	if (!leaf)
		return EINVAL;
	ret = mlx5_genobj_destroy(to_mctx(leaf->ctx),
				  MLX5_OBJ_TYPE_SCHEDULING_ELEMENT, leaf->id);
	if (!ret)
		free(leaf);
	return ret;
}

/* The extended-context transition that keeps @qp in its state. */
static int sched_qp_join(struct ibv_qp *qp, uint16_t opcode, uint32_t req,
			 uint32_t resp)
{
	uint32_t in[DEVX_ST_SZ_DW(modify_qp_ext_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(modify_qp_out)] = {};
	void *x = DEVX_ADDR_OF(modify_qp_ext_in, in, qpc_data_ext);

	DEVX_SET(modify_qp_ext_in, in, opcode, opcode);
	DEVX_SET(modify_qp_ext_in, in, qpc_ext, 1);
	DEVX_SET(modify_qp_ext_in, in, qpn, to_mqp(qp)->qpn);
	DEVX_SET64(modify_qp_ext_in, in, opt_param_mask_95_32,
		   MLX5_QPC_OPT_MASK_32_QOS_QUEUE_GROUP_ID);
	DEVX_SET(qpc_ext, x, qos_queue_group_id_requester, req);
	DEVX_SET(qpc_ext, x, qos_queue_group_id_responder, resp);
	return mlx5_cmd_exec(to_mctx(qp->context), in, sizeof(in), out,
			     sizeof(out));
}

SMX_EXPORT int
mlx5dv_modify_qp_sched_elem(struct ibv_qp *qp,
			    const struct mlx5dv_sched_leaf *requestor,
			    const struct mlx5dv_sched_leaf *responder)
{
	uint8_t cap[MLX5_CAP_GENERAL_BYTES] = { 0 };
	uint32_t req = requestor ? requestor->id : 0;
	uint32_t resp = responder ? responder->id : 0;

	if (!qp || !mlx5dv_is_supported(qp->context->device))
		return EOPNOTSUPP;
	switch (qp->qp_type) {
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		if (responder)
			return EINVAL;
		/* fall through */
	case IBV_QPT_RC:
		break;
	default:
		return EOPNOTSUPP;	/* raw packet QPs: not implemented */
	}
	if (!DEVX_GET(cmd_hca_cap, to_mctx(qp->context)->caps.gen,
		      qpc_extension) ||
	    !sched_qos_cap(qp->context, cap) ||
	    !DEVX_GET(qos_cap, cap, nic_qp_scheduling))
		return EOPNOTSUPP;
	switch (qp->state) {
	case IBV_QPS_INIT:
		return sched_qp_join(qp, MLX5_CMD_OP_INIT2INIT_QP, req, resp);
	case IBV_QPS_RTS:
		return sched_qp_join(qp, MLX5_CMD_OP_RTS2RTS_QP, req, resp);
	default:
		return EOPNOTSUPP;
	}
}
