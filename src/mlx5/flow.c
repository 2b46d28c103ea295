/* SPDX-License-Identifier: MIT */
/*
 * ibv_create_flow / ibv_destroy_flow for raw packet QPs, done as the kernel
 * half of mlx5_ib would: with uid 0, one NIC receive flow table per device
 * instance made the steering root (SET_FLOW_TABLE_ROOT) on first use; each
 * flow becomes a flow table entry forwarding to the QP's TIR, in a flow
 * group holding the flows that share its match criteria (groups of 64
 * indexes, created and destroyed as flows come and go).
 *
 * Specs: Ethernet (MACs, ethertype, VLAN tag), IPv4 and IPv4-ext (addresses,
 * protocol, TOS, TTL), IPv6 (addresses, next header, traffic class, hop
 * limit), TCP and UDP ports; action tag (the CQE's flow tag) and drop.
 * Not supported (EOPNOTSUPP): inner / tunnel / ESP / MPLS specs, IPv4 flags
 * and IPv6 flow label matches, counters, flow actions, non-NORMAL flow
 * types, DONT_TRAP / EGRESS. The priority is not honoured: flows are tried
 * in the order of their group's index range, then their index.
 *
 * The mlx5dv flow API (mlx5dv_create_flow_matcher / mlx5dv_create_flow)
 * puts its rules in the same table: a matcher is a mask of the outer
 * headers (misc and inner fields answer EOPNOTSUPP), a rule forwards to a
 * raw packet QP, a DEVX TIR (e.g. a FlexIO RQ's, flexio_rq_get_tir) or a
 * DEVX flow table, or drops, with an optional tag and DEVX flow counter.
 *
 * The table, group, entry and modify header commands are shared with
 * mlx5dv_dr (dr.c) through steer.h, with the table type a parameter (DR
 * also has a NIC transmit root, made like the receive one); groups there
 * carry a priority and an owner (a DR matcher), ours priority 0 and none.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "mlx5/steer.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

#define MATCH_BYTES STEER_MATCH_BYTES

/* A packet reformat flow action (mlx5dv_create_flow_action_packet_reformat):
 * an encap on NIC TX (a packet reformat context the kernel half owns, uid
 * 0 like the rules that use it) or a decap on NIC RX (no context: the
 * entry's DECAP action). */
struct mlx5_flow_action {
	struct ibv_flow_action ibv_action;
	struct mlx5_device *mdev;
	uint8_t ft_type;		/* MLX5_FLOW_TABLE_TYPE_NIC_RX / _NIC_TX */
	bool decap;
	uint32_t reformat_id;		/* !decap */
	uint32_t refs;			/* flows using it */
};

struct mlx5_flow {
	struct ibv_flow ibv_flow;
	struct mlx5_device *mdev;
	struct mlx5_steer_ft *ft;	/* the root it is in */
	struct mlx5_steer_fg *fg;
	uint32_t index;
	struct mlx5dv_flow_matcher *matcher;	/* mlx5dv_create_flow */
	struct mlx5_flow_action *action;	/* a reformat it uses */
};

_Static_assert(STEER_FG_SIZE == 64, "one 64-bit map per group");

static int steer_cmd(struct mlx5_steer_ft *ft, void *in, size_t inlen, void *out,
		     size_t outlen)
{
	return mlx5_cmd_exec_hca(ft->mdev->hca, ft->uid, in, inlen, out, outlen);
}

static int steer_ft_create_cmd(struct mlx5_steer_ft *ft)
{
	uint32_t in[DEVX_ST_SZ_DW(create_flow_table_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_flow_table_out)] = {};
	int ret;

	DEVX_SET(create_flow_table_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
	DEVX_SET(create_flow_table_in, in, table_type, ft->type);
	DEVX_SET(create_flow_table_in, in, flow_table_context.level, ft->level);
	DEVX_SET(create_flow_table_in, in, flow_table_context.log_size,
		 STEER_LOG_SIZE);
	ret = steer_cmd(ft, in, sizeof(in), out, sizeof(out));
	if (!ret)
		ft->id = DEVX_GET(create_flow_table_out, out, table_id);
	return ret;
}

static int steer_ft_destroy_cmd(struct mlx5_steer_ft *ft)
{
	uint32_t in[DEVX_ST_SZ_DW(destroy_flow_table_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(destroy_flow_table_in, in, opcode, MLX5_CMD_OP_DESTROY_FLOW_TABLE);
	DEVX_SET(destroy_flow_table_in, in, table_type, ft->type);
	DEVX_SET(destroy_flow_table_in, in, table_id, ft->id);
	return steer_cmd(ft, in, sizeof(in), out, sizeof(out));
}

/* op_mod 0 sets the NIC RX root to @ft, 1 disconnects it. */
static int steer_set_root_cmd(struct mlx5_steer_ft *ft, bool disconnect)
{
	uint32_t in[DEVX_ST_SZ_DW(set_flow_table_root_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(set_flow_table_root_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
	DEVX_SET(set_flow_table_root_in, in, op_mod, disconnect);
	DEVX_SET(set_flow_table_root_in, in, table_type, ft->type);
	if (!disconnect)
		DEVX_SET(set_flow_table_root_in, in, table_id, ft->id);
	return steer_cmd(ft, in, sizeof(in), out, sizeof(out));
}

int mlx5_steer_ft_create(struct mlx5_device *mdev, uint16_t uid, uint8_t type,
			 uint32_t level, struct mlx5_steer_ft **out)
{
	struct mlx5_steer_ft *ft = calloc(1, sizeof(*ft));
	int ret;

	if (!ft)
		return ENOMEM;
	ft->mdev = mdev;
	ft->uid = uid;
	ft->type = type;
	ft->level = level;
	ret = steer_ft_create_cmd(ft);
	if (ret) {
		free(ft);
		return ret;
	}
	*out = ft;
	return 0;
}

int mlx5_steer_ft_destroy(struct mlx5_steer_ft *ft)
{
	int ret = steer_ft_destroy_cmd(ft);

	if (!ret)
		free(ft);
	return ret;
}

/* The root table of a type (uid 0, as the kernel's), made on first use. */
int mlx5_steer_root(struct mlx5_device *mdev, uint8_t type, struct mlx5_steer_ft **out)
{
	struct mlx5_steer_ft **root = type == MLX5_FLOW_TABLE_TYPE_NIC_TX ?
				      &mdev->steer_tx : &mdev->steer;
	struct mlx5_steer_ft *ft;
	int ret;

	if (!*root) {
		ret = mlx5_steer_ft_create(mdev, 0, type, 0, &ft);
		if (ret)
			return ret;
		ret = steer_set_root_cmd(ft, false);
		if (ret) {
			mlx5_steer_ft_destroy(ft);
			return ret;
		}
		*root = ft;
	}
	*out = *root;
	return 0;
}

int mlx5_steer_fg_destroy(struct mlx5_steer_ft *ft, struct mlx5_steer_fg *g)
{
	uint32_t in[DEVX_ST_SZ_DW(destroy_flow_group_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	struct mlx5_steer_fg **pp;
	int ret;

	DEVX_SET(destroy_flow_group_in, in, opcode, MLX5_CMD_OP_DESTROY_FLOW_GROUP);
	DEVX_SET(destroy_flow_group_in, in, table_type, ft->type);
	DEVX_SET(destroy_flow_group_in, in, table_id, ft->id);
	DEVX_SET(destroy_flow_group_in, in, group_id, g->id);
	ret = steer_cmd(ft, in, sizeof(in), out, sizeof(out));
	if (ret) {
		smx_dbg("flow: group 0x%x of table 0x%x could not be destroyed",
			g->id, ft->id);
		return ret;
	}
	for (pp = &ft->groups; *pp != g; pp = &(*pp)->next)
		;
	*pp = g->next;
	ft->range_used[g->range] = 0;
	free(g);
	return 0;
}

/*
 * A free range for a group of @prio: above every group of a lower priority
 * value, below every group of a higher one. Next to the groups of the same
 * priority when there are some (so they keep their creation order), else
 * in the middle of the window, leaving room on both sides for priorities
 * still to come. -1 when the window is full.
 */
static int steer_range_pick(const struct mlx5_steer_ft *ft, uint16_t prio)
{
	int lo = -1, hi = STEER_NRANGES, same_lo = STEER_NRANGES, same_hi = -1;
	const struct mlx5_steer_fg *g;
	int r, mid;

	for (g = ft->groups; g; g = g->next) {
		int gr = (int)g->range;

		if (g->prio < prio && gr > lo)
			lo = gr;
		else if (g->prio > prio && gr < hi)
			hi = gr;
		else if (g->prio == prio) {
			same_lo = gr < same_lo ? gr : same_lo;
			same_hi = gr > same_hi ? gr : same_hi;
		}
	}
	if (same_hi >= 0) {
		for (r = same_hi + 1; r < hi; r++)
			if (!ft->range_used[r])
				return r;
		for (r = same_lo - 1; r > lo; r--)
			if (!ft->range_used[r])
				return r;
	}
	mid = lo + (hi - lo) / 2;
	for (r = 0; mid - r > lo || mid + r < hi; r++) {
		if (mid - r > lo && !ft->range_used[mid - r])
			return mid - r;
		if (mid + r < hi && !ft->range_used[mid + r])
			return mid + r;
	}
	return -1;
}

/* CREATE_FLOW_GROUP: range @r of @ft, outer-header criteria @crit. */
static int steer_fg_create_cmd(struct mlx5_steer_ft *ft, const uint8_t *crit,
			       uint32_t r, uint32_t *id)
{
	uint32_t out[DEVX_ST_SZ_DW(create_flow_group_out)] = {};
	uint8_t *in = calloc(1, DEVX_ST_SZ_BYTES(create_flow_group_in));
	int ret;

	if (!in)
		return ENOMEM;
	DEVX_SET(create_flow_group_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
	DEVX_SET(create_flow_group_in, in, table_type, ft->type);
	DEVX_SET(create_flow_group_in, in, table_id, ft->id);
	DEVX_SET(create_flow_group_in, in, start_flow_index, r * STEER_FG_SIZE);
	DEVX_SET(create_flow_group_in, in, end_flow_index,
		 r * STEER_FG_SIZE + STEER_FG_SIZE - 1);
	DEVX_SET(create_flow_group_in, in, match_criteria_enable,
		 MLX5_MATCH_OUTER_HEADERS);
	memcpy(DEVX_ADDR_OF(create_flow_group_in, in, match_criteria.outer_headers),
	       crit, MATCH_BYTES);
	ret = steer_cmd(ft, in, DEVX_ST_SZ_BYTES(create_flow_group_in), out,
			sizeof(out));
	free(in);
	if (!ret)
		*id = DEVX_GET(create_flow_group_out, out, group_id);
	return ret;
}

struct mlx5_steer_fg *mlx5_steer_fg_get(struct mlx5_steer_ft *ft, const uint8_t *crit,
					uint16_t prio, const void *owner, int *err)
{
	static const uint8_t none[STEER_MATCH_BYTES];
	struct mlx5_steer_fg *g;
	int r;

	if (!crit)
		crit = none;
	for (g = ft->groups; g; g = g->next)
		if (g->owner == owner && g->prio == prio && g->used < STEER_FG_SIZE &&
		    !memcmp(g->crit, crit, MATCH_BYTES))
			return g;
	r = steer_range_pick(ft, prio);
	if (r < 0) {
		smx_dbg("flow: table 0x%x has no free group range for priority %u",
			ft->id, prio);
		*err = ENOSPC;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		*err = ENOMEM;
		return NULL;
	}
	*err = steer_fg_create_cmd(ft, crit, (uint32_t)r, &g->id);
	if (*err) {
		free(g);
		return NULL;
	}
	memcpy(g->crit, crit, MATCH_BYTES);
	g->range = (uint32_t)r;
	g->prio = prio;
	g->owner = owner;
	ft->range_used[r] = 1;
	g->next = ft->groups;
	ft->groups = g;
	return g;
}

void mlx5_steer_fg_put(struct mlx5_steer_ft *ft, struct mlx5_steer_fg *g)
{
	if (!g->used && !g->owner)
		mlx5_steer_fg_destroy(ft, g);
}

static int steer_fte_delete_cmd(struct mlx5_steer_ft *ft, uint32_t index)
{
	uint32_t in[DEVX_ST_SZ_DW(delete_fte_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(delete_fte_in, in, opcode, MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
	DEVX_SET(delete_fte_in, in, table_type, ft->type);
	DEVX_SET(delete_fte_in, in, table_id, ft->id);
	DEVX_SET(delete_fte_in, in, flow_index, index);
	return steer_cmd(ft, in, sizeof(in), out, sizeof(out));
}

int mlx5_steer_fte_del(struct mlx5_steer_ft *ft, struct mlx5_steer_fg *g,
		       uint32_t index)
{
	int ret = steer_fte_delete_cmd(ft, index);

	if (!ret) {
		g->map &= ~(1ull << (index % STEER_FG_SIZE));
		g->used--;
	}
	return ret;
}

int mlx5_steer_fte_add(struct mlx5_steer_ft *ft, struct mlx5_steer_fg *g,
		       const struct mlx5_steer_rule *r, uint32_t *index)
{
	size_t inlen = DEVX_ST_SZ_BYTES(set_fte_in) + 16;
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	uint32_t slot, action, ndest = 0;
	uint8_t *in, *d;
	void *fc;
	int ret;

	if (g->used >= STEER_FG_SIZE)
		return ENOSPC;
	in = calloc(1, inlen);
	if (!in)
		return ENOMEM;
	for (slot = 0; g->map & (1ull << slot); slot++)
		;
	*index = g->range * STEER_FG_SIZE + slot;
	fc = DEVX_ADDR_OF(set_fte_in, in, flow_context);
	DEVX_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	DEVX_SET(set_fte_in, in, table_type, ft->type);
	DEVX_SET(set_fte_in, in, table_id, ft->id);
	DEVX_SET(set_fte_in, in, flow_index, *index);
	DEVX_SET(flow_context, fc, group_id, g->id);
	DEVX_SET(flow_context, fc, flow_tag, r->tag);
	memcpy(DEVX_ADDR_OF(flow_context, fc, match_value.outer_headers), r->val,
	       MATCH_BYTES);
	d = (uint8_t *)fc + DEVX_BYTE_OFF(flow_context, destination);
	if (r->drop) {
		action = MLX5_FLOW_CONTEXT_ACTION_DROP;
	} else if (r->allow) {
		action = MLX5_FLOW_CONTEXT_ACTION_ALLOW;
	} else {
		action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST;
		DEVX_SET(dest_format, d, destination_type, r->dest_type);
		DEVX_SET(dest_format, d, destination_id, r->dest_id);
		ndest = 1;
	}
	DEVX_SET(flow_context, fc, destination_list_size, ndest);
	if (r->count) {
		/* the counter list follows the destinations, 8 bytes each */
		uint32_t c = htobe32(r->counter);

		memcpy(d + ndest * 8, &c, 4);
		DEVX_SET(flow_context, fc, flow_counter_list_size, 1);
		action |= MLX5_FLOW_CONTEXT_ACTION_COUNT;
	}
	if (r->pop_vlan)
		action |= MLX5_FLOW_CONTEXT_ACTION_VLAN_POP;
	if (r->mod_hdr) {
		action |= MLX5_FLOW_CONTEXT_ACTION_MOD_HDR;
		DEVX_SET(flow_context, fc, modify_header_id, r->mod_hdr_id);
	}
	if (r->push_vlan) {
		action |= MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH;
		DEVX_SET(flow_context, fc, push_vlan, r->vlan_hdr);
	}
	if (r->reformat) {
		action |= MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT;
		DEVX_SET(flow_context, fc, packet_reformat_id, r->reformat_id);
	}
	if (r->decap)
		action |= MLX5_FLOW_CONTEXT_ACTION_DECAP;
	DEVX_SET(flow_context, fc, action, action);
	inlen = DEVX_ST_SZ_BYTES(set_fte_in) + 8 * (ndest + r->count);
	ret = steer_cmd(ft, in, inlen, out, sizeof(out));
	free(in);
	if (!ret) {
		g->map |= 1ull << slot;
		g->used++;
	}
	return ret;
}

int mlx5_steer_mh_alloc(struct mlx5_device *mdev, uint16_t uid, uint8_t type,
			const __be64 *actions, size_t n, uint32_t *id)
{
	uint32_t out[DEVX_ST_SZ_DW(alloc_modify_header_context_out)] = {};
	size_t inlen = DEVX_ST_SZ_BYTES(alloc_modify_header_context_in) + n * 8;
	uint8_t *in;
	int ret;

	if (!n || n > 0xff)
		return EINVAL;	/* num_of_actions is 8 bits */
	in = calloc(1, inlen);
	if (!in)
		return ENOMEM;
	DEVX_SET(alloc_modify_header_context_in, in, opcode,
		 MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT);
	DEVX_SET(alloc_modify_header_context_in, in, table_type, type);
	DEVX_SET(alloc_modify_header_context_in, in, num_of_actions, n);
	memcpy(in + DEVX_ST_SZ_BYTES(alloc_modify_header_context_in), actions,
	       n * 8);
	ret = mlx5_cmd_exec_hca(mdev->hca, uid, in, inlen, out, sizeof(out));
	free(in);
	if (!ret)
		*id = DEVX_GET(alloc_modify_header_context_out, out, modify_header_id);
	return ret;
}

int mlx5_steer_mh_free(struct mlx5_device *mdev, uint16_t uid, uint32_t id)
{
	uint32_t in[DEVX_ST_SZ_DW(dealloc_modify_header_context_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(dealloc_modify_header_context_in, in, opcode,
		 MLX5_CMD_OP_DEALLOC_MODIFY_HEADER_CONTEXT);
	DEVX_SET(dealloc_modify_header_context_in, in, modify_header_id, id);
	return mlx5_cmd_exec_hca(mdev->hca, uid, in, sizeof(in), out, sizeof(out));
}

size_t mlx5_steer_encap_max(struct mlx5_device *mdev)
{
	/* 0x8000 bytes of flow table caps: off the stack */
	uint8_t *cap = calloc(1, DEVX_ST_SZ_BYTES(flow_table_nic_cap));
	size_t max = 0;

	if (!cap)
		return 0;
	if (!mlx5_query_hca_cap(mdev->hca, MLX5_CAP_FLOW_TABLE, cap,
				DEVX_ST_SZ_BYTES(flow_table_nic_cap)) &&
	    DEVX_GET(flow_table_nic_cap, cap, encap_general_header) &&
	    DEVX_GET(flow_table_nic_cap, cap,
		     flow_table_properties_nic_transmit.reformat))
		max = DEVX_GET(flow_table_nic_cap, cap, max_encap_header_size);
	free(cap);
	return max;
}

int mlx5_steer_pr_alloc(struct mlx5_device *mdev, uint16_t uid,
			const void *data, size_t n, uint32_t *id)
{
	uint32_t out[DEVX_ST_SZ_DW(alloc_packet_reformat_context_out)] = {};
	size_t at = DEVX_BYTE_OFF(alloc_packet_reformat_context_in,
				  packet_reformat_context.reformat_data);
	size_t inlen = at + n;
	uint8_t *in;
	int ret;

	if (n > 0x3ff)
		return EINVAL;	/* reformat_data_size is 10 bits */
	if (inlen < DEVX_ST_SZ_BYTES(alloc_packet_reformat_context_in))
		inlen = DEVX_ST_SZ_BYTES(alloc_packet_reformat_context_in);
	in = calloc(1, inlen);
	if (!in)
		return ENOMEM;
	DEVX_SET(alloc_packet_reformat_context_in, in, opcode,
		 MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT);
	DEVX_SET(alloc_packet_reformat_context_in, in,
		 packet_reformat_context.reformat_type,
		 MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL);
	DEVX_SET(alloc_packet_reformat_context_in, in,
		 packet_reformat_context.reformat_data_size, n);
	memcpy(in + at, data, n);
	ret = mlx5_cmd_exec_hca(mdev->hca, uid, in, inlen, out, sizeof(out));
	free(in);
	if (!ret)
		*id = DEVX_GET(alloc_packet_reformat_context_out, out,
			       packet_reformat_id);
	return ret;
}

int mlx5_steer_pr_free(struct mlx5_device *mdev, uint16_t uid, uint32_t id)
{
	uint32_t in[DEVX_ST_SZ_DW(dealloc_packet_reformat_context_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(dealloc_packet_reformat_context_in, in, opcode,
		 MLX5_CMD_OP_DEALLOC_PACKET_REFORMAT_CONTEXT);
	DEVX_SET(dealloc_packet_reformat_context_in, in, packet_reformat_id, id);
	return mlx5_cmd_exec_hca(mdev->hca, uid, in, sizeof(in), out, sizeof(out));
}

/* ---- specs -> match criteria and value ---- */

struct flow_match {
	uint8_t crit[MATCH_BYTES] __attribute__((aligned(8)));
	uint8_t val[MATCH_BYTES] __attribute__((aligned(8)));
	bool drop;
	uint32_t tag;
};

#define F_SET(m, fld, c, v)                                                    \
	do {                                                                   \
		DEVX_SET(fte_match_set_lyr_2_4, (m)->crit, fld, (c));          \
		DEVX_SET(fte_match_set_lyr_2_4, (m)->val, fld, (v) & (c));     \
	} while (0)

static void f_mac(struct flow_match *m, bool dst, const uint8_t *v,
		  const uint8_t *k)
{
	uint32_t c_hi = (uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 |
			(uint32_t)k[2] << 8 | k[3];
	uint32_t v_hi = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 |
			(uint32_t)v[2] << 8 | v[3];
	uint32_t c_lo = (uint32_t)k[4] << 8 | k[5], v_lo = (uint32_t)v[4] << 8 | v[5];

	if (dst) {
		F_SET(m, dmac_47_16, c_hi, v_hi);
		F_SET(m, dmac_15_0, c_lo, v_lo);
	} else {
		F_SET(m, smac_47_16, c_hi, v_hi);
		F_SET(m, smac_15_0, c_lo, v_lo);
	}
}

static void f_ip_proto(struct flow_match *m, uint8_t proto)
{
	F_SET(m, ip_protocol, 0xff, proto);
}

static void f_bytes(struct flow_match *m, size_t off, const uint8_t *v,
		    const uint8_t *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		m->crit[off + i] = k[i];
		m->val[off + i] = v[i] & k[i];
	}
}

static int flow_spec(struct flow_match *m, const void *spec, uint16_t size,
		     uint32_t type)
{
	switch (type) {
	case IBV_FLOW_SPEC_ETH: {
		const struct ibv_flow_spec_eth *s = spec;
		uint16_t vt = be16toh(s->mask.vlan_tag), vv = be16toh(s->val.vlan_tag);

		if (size != sizeof(*s))
			return EINVAL;
		f_mac(m, true, s->val.dst_mac, s->mask.dst_mac);
		f_mac(m, false, s->val.src_mac, s->mask.src_mac);
		F_SET(m, ethertype, be16toh(s->mask.ether_type),
		      be16toh(s->val.ether_type));
		if (vt) {
			F_SET(m, cvlan_tag, 1, 1);
			F_SET(m, first_prio, vt >> 13, vv >> 13);
			F_SET(m, first_cfi, (vt >> 12) & 1, (vv >> 12) & 1);
			F_SET(m, first_vid, vt & 0xfff, vv & 0xfff);
		}
		return 0;
	}
	case IBV_FLOW_SPEC_IPV4:
	case IBV_FLOW_SPEC_IPV4_EXT: {
		const struct ibv_flow_spec_ipv4_ext *s = spec;

		if (size != (type == IBV_FLOW_SPEC_IPV4 ?
			     sizeof(struct ibv_flow_spec_ipv4) : sizeof(*s)))
			return EINVAL;
		F_SET(m, ip_version, 0xf, 4);
		F_SET(m, src_ipv4_src_ipv6.ipv4_layout.ipv4, be32toh(s->mask.src_ip),
		      be32toh(s->val.src_ip));
		F_SET(m, dst_ipv4_dst_ipv6.ipv4_layout.ipv4, be32toh(s->mask.dst_ip),
		      be32toh(s->val.dst_ip));
		if (type == IBV_FLOW_SPEC_IPV4)
			return 0;
		if (s->mask.flags)
			return EOPNOTSUPP;	/* IPv4 flags */
		F_SET(m, ip_protocol, s->mask.proto, s->val.proto);
		F_SET(m, ip_dscp, s->mask.tos >> 2, s->val.tos >> 2);
		F_SET(m, ip_ecn, s->mask.tos & 3, s->val.tos & 3);
		F_SET(m, ttl_hoplimit, s->mask.ttl, s->val.ttl);
		return 0;
	}
	case IBV_FLOW_SPEC_IPV6: {
		const struct ibv_flow_spec_ipv6 *s = spec;

		if (size != sizeof(*s))
			return EINVAL;
		if (s->mask.flow_label)
			return EOPNOTSUPP;	/* a misc parameter */
		F_SET(m, ip_version, 0xf, 6);
		f_bytes(m, DEVX_BYTE_OFF(fte_match_set_lyr_2_4,
					 src_ipv4_src_ipv6.ipv6_layout.ipv6),
			s->val.src_ip, s->mask.src_ip, 16);
		f_bytes(m, DEVX_BYTE_OFF(fte_match_set_lyr_2_4,
					 dst_ipv4_dst_ipv6.ipv6_layout.ipv6),
			s->val.dst_ip, s->mask.dst_ip, 16);
		F_SET(m, ip_protocol, s->mask.next_hdr, s->val.next_hdr);
		F_SET(m, ip_dscp, s->mask.traffic_class >> 2, s->val.traffic_class >> 2);
		F_SET(m, ip_ecn, s->mask.traffic_class & 3, s->val.traffic_class & 3);
		F_SET(m, ttl_hoplimit, s->mask.hop_limit, s->val.hop_limit);
		return 0;
	}
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP: {
		const struct ibv_flow_spec_tcp_udp *s = spec;

		if (size != sizeof(*s))
			return EINVAL;
		/* As mlx5_ib: the port match implies the protocol. */
		if (type == IBV_FLOW_SPEC_TCP) {
			f_ip_proto(m, 6);
			F_SET(m, tcp_sport, be16toh(s->mask.src_port),
			      be16toh(s->val.src_port));
			F_SET(m, tcp_dport, be16toh(s->mask.dst_port),
			      be16toh(s->val.dst_port));
		} else {
			f_ip_proto(m, 17);
			F_SET(m, udp_sport, be16toh(s->mask.src_port),
			      be16toh(s->val.src_port));
			F_SET(m, udp_dport, be16toh(s->mask.dst_port),
			      be16toh(s->val.dst_port));
		}
		return 0;
	}
	case IBV_FLOW_SPEC_ACTION_TAG: {
		const struct ibv_flow_spec_action_tag *s = spec;

		if (size != sizeof(*s) || s->tag_id > 0xffffff)
			return EINVAL;
		m->tag = s->tag_id;
		return 0;
	}
	case IBV_FLOW_SPEC_ACTION_DROP:
		if (size != sizeof(struct ibv_flow_spec_action_drop))
			return EINVAL;
		m->drop = true;
		return 0;
	default:
		return EOPNOTSUPP;	/* inner, tunnels, ESP, MPLS, counters */
	}
}

static int flow_parse(const struct ibv_flow_attr *attr, struct flow_match *m)
{
	const uint8_t *p = (const uint8_t *)(attr + 1);
	unsigned int i;
	int ret;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < attr->num_of_specs; i++) {
		/* Specs follow each other at the caller's sizes: copied out to
		 * an aligned buffer before they are read. */
		union {
			struct ibv_flow_spec s;
			uint8_t raw[256];
		} u;
		uint16_t size;

		memcpy(&u.s.hdr, p, sizeof(u.s.hdr));
		size = u.s.hdr.size;
		if (size < sizeof(u.s.hdr) || size > sizeof(u))
			return EINVAL;
		memcpy(&u, p, size);
		ret = flow_spec(m, &u, size, u.s.hdr.type);
		if (ret)
			return ret;
		p += size;
	}
	return 0;
}

/* Adds the entry in a shared group of its criteria in the root table of
 * @type; the flow, or NULL + errno. */
static struct ibv_flow *steer_add(struct ibv_context *ctx, uint8_t type,
				  const uint8_t *crit, const struct mlx5_steer_rule *r)
{
	struct mlx5_device *mdev = to_mdev(ctx->device);
	struct mlx5_steer_fg *g = NULL;
	struct mlx5_steer_ft *ft;
	struct mlx5_flow *f;
	int ret;

	f = calloc(1, sizeof(*f));
	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&mdev->steer_lock);
	ret = mlx5_steer_root(mdev, type, &ft);
	if (!ret)
		g = mlx5_steer_fg_get(ft, crit, 0, NULL, &ret);
	if (g) {
		ret = mlx5_steer_fte_add(ft, g, r, &f->index);
		if (ret)
			mlx5_steer_fg_put(ft, g);
	}
	pthread_mutex_unlock(&mdev->steer_lock);
	if (ret) {
		free(f);
		errno = ret;
		return NULL;
	}
	f->fg = g;
	f->ft = ft;
	f->mdev = mdev;
	f->ibv_flow.context = ctx;
	f->ibv_flow.handle = f->index;
	return &f->ibv_flow;
}

struct ibv_flow *mlx5_create_flow(struct ibv_qp *ibqp, struct ibv_flow_attr *attr)
{
	struct mlx5_qp *qp = to_mqp(ibqp);
	struct mlx5_steer_rule r = { 0 };
	struct flow_match m;
	int ret;

	if (!attr || attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	if (qp->qp_type != IBV_QPT_RAW_PACKET || attr->type != IBV_FLOW_ATTR_NORMAL ||
	    attr->flags) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!qp->raw.tirn || attr->port < 1 ||
	    attr->port > to_mctx(ibqp->context)->num_ports) {
		errno = EINVAL;	/* no receive queue to steer to, or no port */
		return NULL;
	}
	ret = flow_parse(attr, &m);
	if (ret) {
		errno = ret;
		return NULL;
	}
	r.val = m.val;
	r.tag = m.tag;
	r.drop = m.drop;
	r.dest_type = MLX5_FLOW_DESTINATION_TYPE_TIR;
	r.dest_id = qp->raw.tirn;
	return steer_add(ibqp->context, MLX5_FLOW_TABLE_TYPE_NIC_RX, m.crit, &r);
}

/* ---- the mlx5dv flow API: matchers (criteria) and rules ---- */

struct mlx5dv_flow_matcher {
	struct ibv_context *ctx;
	uint8_t ft_type;		/* MLX5_FLOW_TABLE_TYPE_NIC_RX / _NIC_TX */
	uint8_t crit[MATCH_BYTES] __attribute__((aligned(8)));
	uint32_t flows;		/* rules made with it, still alive */
};

/* Only the outer L2-L4 headers are matched: any mask bit past them (misc,
 * inner headers, metadata) asks for what this device does not steer on. */
int mlx5_steer_match_outer(const struct mlx5dv_flow_match_parameters *p,
			   uint8_t out[STEER_MATCH_BYTES])
{
	const uint8_t *b;
	size_t i;

	memset(out, 0, MATCH_BYTES);
	if (!p)
		return 0;
	b = (const uint8_t *)p->match_buf;
	if (p->match_sz > STEER_PARAM_BYTES)
		return EINVAL;
	for (i = MATCH_BYTES; i < p->match_sz; i++)
		if (b[i])
			return EOPNOTSUPP;
	memcpy(out, b, p->match_sz < MATCH_BYTES ? p->match_sz : MATCH_BYTES);
	return 0;
}

/* A raw packet QP as a destination: its TIR. */
int mlx5_steer_dest_qp(struct ibv_qp *qp, struct mlx5_steer_rule *r)
{
	if (!qp)
		return EINVAL;
	if (qp->qp_type != IBV_QPT_RAW_PACKET)
		return EOPNOTSUPP;
	if (!to_mqp(qp)->raw.tirn)
		return EINVAL;	/* no receive queue to steer to */
	r->dest_type = MLX5_FLOW_DESTINATION_TYPE_TIR;
	r->dest_id = to_mqp(qp)->raw.tirn;
	return 0;
}

/* A DEVX object as a destination: a TIR or a flow table. */
int mlx5_steer_dest_devx(const struct mlx5dv_devx_obj *obj, struct mlx5_steer_rule *r)
{
	uint16_t creator;
	uint32_t id;

	if (!obj || !mlx5_devx_obj_ident(obj, &creator, &id))
		return EINVAL;
	if (creator == MLX5_CMD_OP_CREATE_TIR)
		r->dest_type = MLX5_FLOW_DESTINATION_TYPE_TIR;
	else if (creator == MLX5_CMD_OP_CREATE_FLOW_TABLE)
		r->dest_type = MLX5_FLOW_DESTINATION_TYPE_FLOW_TABLE;
	else
		return EOPNOTSUPP;
	r->dest_id = id;
	return 0;
}

/* A DEVX flow counter (+ @offset into a bulk); its id in *id. */
int mlx5_steer_counter_devx(const struct mlx5dv_devx_obj *obj, uint32_t offset,
			    uint32_t *id)
{
	uint16_t creator;

	if (!obj || !mlx5_devx_obj_ident(obj, &creator, id) ||
	    creator != MLX5_CMD_OP_ALLOC_FLOW_COUNTER || *id + offset < *id)
		return EINVAL;
	*id += offset;
	return 0;
}

SMX_EXPORT struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *ctx, struct mlx5dv_flow_matcher_attr *a)
{
	struct mlx5dv_flow_matcher *fm;
	bool has_type, egress;
	uint8_t type;
	int ret;

	if (!ctx || !a || !a->match_mask) {
		errno = EINVAL;
		return NULL;
	}
	has_type = a->comp_mask & MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
	egress = a->flags & IBV_FLOW_ATTR_FLAGS_EGRESS;
	if (!mlx5dv_is_supported(ctx->device) ||
	    (a->comp_mask & ~(uint64_t)MLX5DV_FLOW_MATCHER_MASK_FT_TYPE) ||
	    (has_type && a->ft_type != MLX5DV_FLOW_TABLE_TYPE_NIC_RX &&
	     a->ft_type != MLX5DV_FLOW_TABLE_TYPE_NIC_TX) ||
	    a->type != IBV_FLOW_ATTR_NORMAL ||
	    (a->flags & ~(uint32_t)IBV_FLOW_ATTR_FLAGS_EGRESS) ||
	    (a->match_criteria_enable & ~(uint8_t)MLX5_MATCH_OUTER_HEADERS)) {
		smx_dbg("flow matcher: comp_mask 0x%llx ft_type %d type %d flags 0x%x "
			"criteria 0x%x: only NIC RX / NIC TX (EGRESS), normal, "
			"outer headers", (unsigned long long)a->comp_mask,
			(int)a->ft_type, (int)a->type, a->flags,
			a->match_criteria_enable);
		errno = EOPNOTSUPP;	/* NIC RX / TX, outer headers only */
		return NULL;
	}
	/* EGRESS alone names NIC TX, as it does to mlx5_ib */
	if (has_type && egress && a->ft_type != MLX5DV_FLOW_TABLE_TYPE_NIC_TX) {
		smx_dbg("flow matcher: EGRESS flag with ft_type %d (not NIC TX)",
			(int)a->ft_type);
		errno = EINVAL;
		return NULL;
	}
	type = egress || (has_type && a->ft_type == MLX5DV_FLOW_TABLE_TYPE_NIC_TX) ?
	       MLX5_FLOW_TABLE_TYPE_NIC_TX : MLX5_FLOW_TABLE_TYPE_NIC_RX;
	fm = calloc(1, sizeof(*fm));
	if (!fm) {
		errno = ENOMEM;
		return NULL;
	}
	ret = mlx5_steer_match_outer(a->match_mask, fm->crit);
	if (ret) {
		smx_dbg("flow matcher: mask of %zu bytes: %s", a->match_mask->match_sz,
			ret == EINVAL ? "longer than fte_match_param" :
			"matches past the outer headers (not supported)");
		free(fm);
		errno = ret;
		return NULL;
	}
	if (!(a->match_criteria_enable & MLX5_MATCH_OUTER_HEADERS))
		memset(fm->crit, 0, MATCH_BYTES);	/* nothing enabled: match all */
	fm->ctx = ctx;
	fm->ft_type = type;
	return fm;
}

SMX_EXPORT int mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *fm)
{
	if (!fm)
		return EINVAL;
	if (__atomic_load_n(&fm->flows, __ATOMIC_ACQUIRE))
		return EBUSY;	/* rules made with it still exist */
	free(fm);
	return 0;
}

/*
 * A rule: the value (masked by the matcher) and its actions -- one
 * destination (a raw packet QP, or a DEVX TIR or flow table) or DROP, an
 * optional TAG, an optional DEVX flow counter and an optional packet
 * reformat flow action of the matcher's table type. A NIC TX rule forwards
 * to a DEVX NIC TX table or drops; with neither, the frame goes on to the
 * wire (ALLOW).
 */
SMX_EXPORT struct ibv_flow *
mlx5dv_create_flow(struct mlx5dv_flow_matcher *fm, struct mlx5dv_flow_match_parameters *value,
		   size_t n, struct mlx5dv_flow_action_attr actions[])
{
	uint8_t val[MATCH_BYTES] __attribute__((aligned(8)));
	struct mlx5_flow_action *fa = NULL;
	struct mlx5_steer_rule r = { 0 };
	bool dest = false, tx;
	struct ibv_flow *f;
	size_t i, b;
	int ret;

	if (!fm || !value || (n && !actions)) {
		errno = EINVAL;
		return NULL;
	}
	ret = mlx5_steer_match_outer(value, val);
	if (ret) {
		errno = ret;
		return NULL;
	}
	for (b = 0; b < MATCH_BYTES; b++)
		val[b] &= fm->crit[b];
	tx = fm->ft_type == MLX5_FLOW_TABLE_TYPE_NIC_TX;
	for (i = 0; i < n; i++) {
		const struct mlx5dv_flow_action_attr *a = &actions[i];

		switch (a->type) {
		case MLX5DV_FLOW_ACTION_DEST_IBV_QP:
		case MLX5DV_FLOW_ACTION_DEST_DEVX:
			if (tx && a->type == MLX5DV_FLOW_ACTION_DEST_IBV_QP) {
				smx_dbg("flow: a NIC TX rule cannot deliver to a QP");
				errno = EINVAL;
				return NULL;
			}
			ret = dest ? EINVAL :
			      a->type == MLX5DV_FLOW_ACTION_DEST_IBV_QP ?
			      mlx5_steer_dest_qp(a->qp, &r) :
			      mlx5_steer_dest_devx(a->obj, &r);
			if (ret) {
				errno = ret;
				return NULL;
			}
			dest = true;
			break;
		case MLX5DV_FLOW_ACTION_DROP:
			r.drop = true;
			break;
		case MLX5DV_FLOW_ACTION_TAG:
			r.tag = a->tag_value;
			break;
		case MLX5DV_FLOW_ACTION_COUNTERS_DEVX:
			if (r.count ||
			    mlx5_steer_counter_devx(a->obj, 0, &r.counter)) {
				errno = EINVAL;
				return NULL;
			}
			r.count = true;
			break;
		case MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION:
			if (fa || !a->action) {
				smx_dbg("flow: %s flow action", fa ? "a second" :
					"a NULL");
				errno = EINVAL;
				return NULL;
			}
			fa = SMX_CONTAINER_OF(a->action, struct mlx5_flow_action,
					      ibv_action);
			if (a->action->context != fm->ctx ||
			    fa->ft_type != fm->ft_type) {
				smx_dbg("flow: the flow action is for another %s",
					a->action->context != fm->ctx ?
					"context" : "table type");
				errno = EINVAL;
				return NULL;
			}
			r.decap = fa->decap;
			r.reformat = !fa->decap;
			r.reformat_id = fa->reformat_id;
			break;
		default:
			errno = EOPNOTSUPP;	/* verbs counters, flow actions, default miss */
			return NULL;
		}
	}
	if (dest && r.drop) {
		errno = EINVAL;	/* at most one of a destination or DROP */
		return NULL;
	}
	if (!dest && !r.drop && !tx) {
		errno = EINVAL;	/* NIC RX: a destination or DROP */
		return NULL;
	}
	r.allow = !dest && !r.drop;	/* NIC TX: on to the wire */
	r.val = val;
	f = steer_add(fm->ctx, fm->ft_type, fm->crit, &r);
	if (f) {
		struct mlx5_flow *mf = SMX_CONTAINER_OF(f, struct mlx5_flow, ibv_flow);

		mf->matcher = fm;
		mf->action = fa;
		__atomic_fetch_add(&fm->flows, 1, __ATOMIC_RELEASE);
		if (fa)
			__atomic_fetch_add(&fa->refs, 1, __ATOMIC_RELEASE);
	}
	return f;
}

int mlx5_destroy_flow(struct ibv_flow *flow)
{
	struct mlx5_flow *f = SMX_CONTAINER_OF(flow, struct mlx5_flow, ibv_flow);
	struct mlx5_device *mdev = f->mdev;
	int ret;

	pthread_mutex_lock(&mdev->steer_lock);
	ret = mlx5_steer_fte_del(f->ft, f->fg, f->index);
	if (!ret)
		mlx5_steer_fg_put(f->ft, f->fg);
	pthread_mutex_unlock(&mdev->steer_lock);
	if (!ret) {
		if (f->matcher)
			__atomic_fetch_sub(&f->matcher->flows, 1, __ATOMIC_RELEASE);
		if (f->action)
			__atomic_fetch_sub(&f->action->refs, 1, __ATOMIC_RELEASE);
		free(f);
	}
	return ret;
}

/* ---- packet reformat flow actions ---- */

/*
 * L2_TO_L2_TUNNEL on NIC TX: @data is the outer header to put in front of
 * every frame (ALLOC_PACKET_REFORMAT_CONTEXT). L2_TUNNEL_TO_L2 on NIC RX,
 * without data: decap. Other types and table types answer EOPNOTSUPP.
 */
SMX_EXPORT struct ibv_flow_action *
mlx5dv_create_flow_action_packet_reformat(struct ibv_context *ctx, size_t data_sz,
					  void *data,
					  enum mlx5dv_flow_action_packet_reformat_type reformat_type,
					  enum mlx5dv_flow_table_type ft_type)
{
	struct mlx5_flow_action *fa;
	struct mlx5_device *mdev;
	size_t max;
	int ret;

	if (!ctx) {
		smx_dbg("flow action: no context");
		errno = EINVAL;
		return NULL;
	}
	mdev = to_mdev(ctx->device);
	if (reformat_type == MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2 &&
	    ft_type == MLX5DV_FLOW_TABLE_TYPE_NIC_RX) {
		if (data || data_sz) {
			smx_dbg("flow action: decap takes no data (%zu bytes given)",
				data_sz);
			errno = EINVAL;
			return NULL;
		}
	} else if (reformat_type ==
		   MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL &&
		   ft_type == MLX5DV_FLOW_TABLE_TYPE_NIC_TX) {
		max = mlx5_steer_encap_max(mdev);
		if (!data || data_sz < STEER_ENCAP_MIN || data_sz > max) {
			smx_dbg("flow action: encap header of %zu bytes%s: an "
				"Ethernet header (%d) up to max_encap_header_size "
				"(%zu)", data_sz, data ? "" : " (no data)",
				STEER_ENCAP_MIN, max);
			errno = EINVAL;
			return NULL;
		}
	} else {
		smx_dbg("flow action: reformat type %d on table type %d: only "
			"L2_TO_L2_TUNNEL on NIC TX and L2_TUNNEL_TO_L2 on NIC RX",
			(int)reformat_type, (int)ft_type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	fa = calloc(1, sizeof(*fa));
	if (!fa) {
		errno = ENOMEM;
		return NULL;
	}
	fa->mdev = mdev;
	fa->ibv_action.context = ctx;
	fa->decap = ft_type == MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
	fa->ft_type = fa->decap ? MLX5_FLOW_TABLE_TYPE_NIC_RX :
		      MLX5_FLOW_TABLE_TYPE_NIC_TX;
	if (!fa->decap) {
		ret = mlx5_steer_pr_alloc(mdev, 0, data, data_sz, &fa->reformat_id);
		if (ret) {
			smx_dbg("flow action: the device refused the %zu-byte encap "
				"header", data_sz);
			free(fa);
			errno = ret;
			return NULL;
		}
	}
	return &fa->ibv_action;
}

int mlx5_destroy_flow_action(struct ibv_flow_action *action)
{
	struct mlx5_flow_action *fa;
	int ret;

	if (!action)
		return EINVAL;
	fa = SMX_CONTAINER_OF(action, struct mlx5_flow_action, ibv_action);
	if (__atomic_load_n(&fa->refs, __ATOMIC_ACQUIRE)) {
		smx_dbg("flow action: still used by %u flows", fa->refs);
		return EBUSY;
	}
	if (!fa->decap) {
		ret = mlx5_steer_pr_free(fa->mdev, 0, fa->reformat_id);
		if (ret)
			return ret;
	}
	free(fa);
	return 0;
}

/* Device release: whatever entries are left in a root go, then the root. */
static void steer_root_free(struct mlx5_steer_ft *ft)
{
	if (!ft)
		return;
	while (ft->groups) {
		struct mlx5_steer_fg *g = ft->groups;
		uint32_t i;

		for (i = 0; i < STEER_FG_SIZE; i++)
			if (g->map & (1ull << i))
				mlx5_steer_fte_del(ft, g, g->range * STEER_FG_SIZE + i);
		if (mlx5_steer_fg_destroy(ft, g)) {
			ft->groups = g->next;	/* the device goes anyway */
			free(g);
		}
	}
	steer_set_root_cmd(ft, true);
	if (mlx5_steer_ft_destroy(ft))
		free(ft);
}

void mlx5_steer_free(struct mlx5_device *mdev)
{
	steer_root_free(mdev->steer);
	steer_root_free(mdev->steer_tx);
	mdev->steer = mdev->steer_tx = NULL;
}
