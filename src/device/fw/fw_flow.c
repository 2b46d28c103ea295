/* SPDX-License-Identifier: MIT */
/*
 * NIC receive and transmit flow steering: CREATE/DESTROY/QUERY_FLOW_TABLE,
 * SET_FLOW_TABLE_ROOT, CREATE/DESTROY_FLOW_GROUP, SET/DELETE_FLOW_TABLE_ENTRY
 * and the lookup the engine runs for every received frame (fw_flow_steer).
 *
 * A table (type NIC_RX, a level, 2^log_size flow indexes) holds groups --
 * disjoint index ranges sharing one match criteria -- and entries at flow
 * indexes inside a group, each a match value and an action. A frame matches
 * an entry when (headers & criteria) == (value & criteria); the entries of a
 * table are tried in flow index order and the first match wins. FWD_DEST
 * delivers to every TIR destination and continues in at most one deeper
 * table (a destination table's level must be above the source's); DROP
 * drops; a miss goes to the table's miss table (table_miss_action FWD) or
 * drops the frame. The frame enters at the root table SET_FLOW_TABLE_ROOT
 * named (uid 0 only, like the kernel's steering root); without one every
 * frame is dropped.
 *
 * NIC transmit tables (type 1) have their own root; every frame an SQ
 * sends goes through them (fw_flow_steer_tx) before loopback and the wire.
 * Their entries forward to deeper NIC TX tables only, drop (the send still
 * completes), or allow (on to the wire; a miss does the same), and may
 * rewrite the frame: pop the outer VLAN tag, run a modify header context
 * (fw_modhdr.c), push the flow context's push_vlan tag, encapsulate
 * (action PACKET_REFORMAT: the packet reformat context's outer header goes
 * in front, its lengths and IPv4 checksum fixed; fw_reformat.c). A MAC or
 * a tag is under no checksum. On NIC RX tables, allow ends steering as a
 * miss does (rdma-core's default-miss action); VLAN pop removes the outer
 * tag and DECAP the VXLAN outer headers (eng_eth.c) of the frames the path
 * delivers: deeper tables still match the frame as it arrived (receive
 * steering classifies a frame once).
 *
 * Matching: the outer L2-L4 headers (fte_match_set_lyr_2_4: MACs,
 * ethertype, first VLAN, IP version/protocol/DSCP/ECN/TTL/fragment/IHL,
 * addresses, TCP/UDP ports, TCP flags, L4 type). Misc parameters and inner
 * headers are refused at CREATE_FLOW_GROUP; so are packet reformats in
 * NIC RX entries and decap in NIC TX ones, reformats named by a
 * destination (dest_format.packet_reformat), and, in NIC RX entries,
 * header rewrites other than VLAN pop and decap. Tables may set
 * reformat_en (NIC TX) and decap_en (NIC RX); entries do not need them.
 * An entry may add
 * action COUNT to forward or drop: its flow counters (fw_fc.c), listed
 * after the destinations, count every frame it matches. Modifying an entry in place
 * (SET_FLOW_TABLE_ENTRY op_mod 1) is not supported: delete and set again.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

#define FW_FT_LOG_MAX_SIZE 16
#define FW_FT_MAX_LEVEL 63
#define FW_FTE_MAX_DEST 16
#define FW_FTE_MAX_FC 16

#define FG_CRIT_OFF (DEVX_BYTE_OFF(create_flow_group_in, match_criteria) + \
		     DEVX_BYTE_OFF(fte_match_param, outer_headers))
#define FTE_CTX_OFF DEVX_BYTE_OFF(set_fte_in, flow_context)

/* The outer-header bits the device can match on: all but the reserved. */
static void fw_flow_supported(uint8_t m[FW_MATCH_BYTES])
{
	memset(m, 0xff, FW_MATCH_BYTES);
	DEVX_SET(fte_match_set_lyr_2_4, m, reserved_at_c2, 0);
	DEVX_SET(fte_match_set_lyr_2_4, m, reserved_at_d4, 0);
}

/* Common head of the flow commands: vport and table type checks. */
static int fw_flow_head(struct fw_cmd *c, uint32_t other_vport, uint32_t type)
{
	if (other_vport)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow table of another vport: "
			       "the device has one vport");
	if (type != MLX5_FLOW_TABLE_TYPE_NIC_RX &&
	    type != MLX5_FLOW_TABLE_TYPE_NIC_TX)
		return FW_FAIL(c, BAD_PARAM_ERR, "table_type %u: only NIC "
			       "receive (0) and transmit (1) flow tables are "
			       "supported", type);
	return 0;
}

/* The root slot of a table type (checked by fw_flow_head). */
static struct fw_ft **fw_flow_root(struct fw *fw, uint32_t type)
{
	return type == MLX5_FLOW_TABLE_TYPE_NIC_TX ? &fw->nic_tx_root :
	       &fw->nic_rx_root;
}

/* The table a command names (destroy/query/group/entry commands share the
 * table_type and table_id positions of destroy_flow_table_in). */
static struct fw_ft *fw_flow_table(struct fw_cmd *c, const char *what)
{
	struct fw_ft *ft;

	if (fw_flow_head(c, IN_GET(destroy_flow_table_in, other_vport),
			 IN_GET(destroy_flow_table_in, table_type)))
		return NULL;
	ft = FW_GET(c, ft, IN_GET(destroy_flow_table_in, table_id), what);
	if (ft && ft->type != IN_GET(destroy_flow_table_in, table_type)) {
		FW_FAIL(c, BAD_PARAM_ERR, "%s: table 0x%x is of type %u", what,
			ft->obj.id, ft->type);
		return NULL;
	}
	return ft;
}

/* ------------------------------------------------------------------ */
/* Tables                                                             */
/* ------------------------------------------------------------------ */

static void fw_fte_free(struct fw_fte *e)
{
	uint32_t i;

	for (i = 0; i < e->ndest; i++) {
		if (e->dest[i].tir)
			fw_unref(&e->dest[i].tir->obj);
		if (e->dest[i].ft)
			fw_unref(&e->dest[i].ft->obj);
	}
	for (i = 0; i < e->nfc; i++)
		fw_unref(&e->fc[i]->obj);
	if (e->mh)
		fw_unref(&e->mh->obj);
	if (e->pr)
		fw_unref(&e->pr->obj);
	free(e->fc);
	free(e);
}

/* Device teardown: everything goes at once, references included. */
void fw_ft_free(struct fw_ft *ft)
{
	while (ft->groups) {
		struct fw_fg *g = ft->groups;

		ft->groups = g->next;
		free(g);
	}
	for (uint32_t i = 0; i < ft->nfte; i++)
		free(ft->fte[i]);
	free(ft->fte);
	free(ft);
}

int fw_ft_create(struct fw_cmd *c)
{
	const uint8_t *ctx = IN_ADDR(create_flow_table_in, flow_table_context);
	uint32_t miss = DEVX_GET(flow_table_context, ctx, table_miss_action);
	uint32_t level = DEVX_GET(flow_table_context, ctx, level);
	uint32_t log_size = DEVX_GET(flow_table_context, ctx, log_size);
	struct fw_ft *ft, *miss_ft = NULL;

	if (fw_flow_head(c, IN_GET(create_flow_table_in, other_vport),
			 IN_GET(create_flow_table_in, table_type)))
		return -1;
	if (DEVX_GET(flow_table_context, ctx, sw_owner) ||
	    DEVX_GET(flow_table_context, ctx, termination_table))
		return FW_FAIL(c, BAD_PARAM_ERR, "flow table: software-owned and "
			       "termination tables are not supported");
	/* encap happens on the way out, decap on the way in */
	if ((DEVX_GET(flow_table_context, ctx, reformat_en) &&
	     IN_GET(create_flow_table_in, table_type) != MLX5_FLOW_TABLE_TYPE_NIC_TX) ||
	    (DEVX_GET(flow_table_context, ctx, decap_en) &&
	     IN_GET(create_flow_table_in, table_type) != MLX5_FLOW_TABLE_TYPE_NIC_RX))
		return FW_FAIL(c, BAD_PARAM_ERR, "flow table: reformat_en is for "
			       "NIC transmit tables, decap_en for NIC receive "
			       "tables");
	if (log_size > FW_FT_LOG_MAX_SIZE)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow table: log_size %u above "
			       "log_max_ft_size %u", log_size, FW_FT_LOG_MAX_SIZE);
	if (level > FW_FT_MAX_LEVEL)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow table: level %u above "
			       "max_ft_level %u", level, FW_FT_MAX_LEVEL);
	if (miss == MLX5_FLOW_TABLE_MISS_ACTION_FWD) {
		miss_ft = FW_REF(c, ft, DEVX_GET(flow_table_context, ctx,
						 table_miss_id),
				 "flow table table_miss_id");
		if (!miss_ft)
			return -1;
		if (miss_ft->type != IN_GET(create_flow_table_in, table_type) ||
		    miss_ft->level <= level)
			return FW_FAIL(c, BAD_PARAM_ERR, "flow table: miss table "
				       "0x%x (type %u) is at level %u, not a "
				       "deeper table of this type (%u)",
				       miss_ft->obj.id, miss_ft->type,
				       miss_ft->level, level);
	} else if (miss != MLX5_FLOW_TABLE_MISS_ACTION_DEF) {
		return FW_FAIL(c, BAD_PARAM_ERR, "flow table: table_miss_action "
			       "%u is not default (0) or forward (1)", miss);
	}
	ft = calloc(1, sizeof(*ft));
	if (!ft)
		return FW_FAIL(c, NO_RES_ERR, "flow table: out of memory");
	if (fw_table_add(&c->fw->ft, &ft->obj)) {
		free(ft);
		return FW_FAIL(c, NO_RES_ERR, "flow table: all %u numbers are in "
			       "use", c->fw->ft.limit);
	}
	if (fw_obj_own(c, &ft->obj, "flow table")) {
		fw_table_del(&c->fw->ft, ft->obj.id);
		free(ft);
		return -1;
	}
	ft->type = IN_GET(create_flow_table_in, table_type);
	ft->level = level;
	ft->log_size = log_size;
	ft->miss_action = miss;
	ft->miss = miss_ft;
	if (miss_ft)
		fw_ref(&miss_ft->obj);
	OUT_SET(create_flow_table_out, table_id, ft->obj.id);
	return 0;
}

int fw_ft_destroy(struct fw_cmd *c)
{
	struct fw_ft *ft = fw_flow_table(c, "DESTROY_FLOW_TABLE");

	if (!ft)
		return -1;
	if (ft->groups)
		return FW_FAIL(c, RES_BUSY, "flow table 0x%x still has flow "
			       "groups", ft->obj.id);
	if (ft->obj.refs)
		return FW_FAIL(c, RES_BUSY, "flow table 0x%x is still %s (%u "
			       "references)", ft->obj.id,
			       *fw_flow_root(c->fw, ft->type) == ft ? "a root" :
			       "a destination or miss table", ft->obj.refs);
	fw_table_del(&c->fw->ft, ft->obj.id);
	fw_obj_disown(c->fw, &ft->obj);
	if (ft->miss)
		fw_unref(&ft->miss->obj);
	fw_ft_free(ft);
	return 0;
}

int fw_ft_query(struct fw_cmd *c)
{
	struct fw_ft *ft = fw_flow_table(c, "QUERY_FLOW_TABLE");
	uint8_t *ctx = OUT_ADDR(query_flow_table_out, flow_table_context);

	if (!ft)
		return -1;
	DEVX_SET(flow_table_context, ctx, level, ft->level);
	DEVX_SET(flow_table_context, ctx, log_size, ft->log_size);
	DEVX_SET(flow_table_context, ctx, table_miss_action, ft->miss_action);
	if (ft->miss)
		DEVX_SET(flow_table_context, ctx, table_miss_id, ft->miss->obj.id);
	return 0;
}

/* op_mod 0 points the root of a table type at a table, op_mod 1
 * disconnects it (received frames are then dropped, sent ones go out
 * unsteered). Privileged: uid 0 only. */
int fw_ft_set_root(struct fw_cmd *c)
{
	uint32_t type = IN_GET(set_flow_table_root_in, table_type);
	struct fw_ft *ft = NULL, **root;

	if (c->uid)
		return FW_FAIL(c, BAD_PARAM_ERR, "SET_FLOW_TABLE_ROOT: uid %u: "
			       "only the privileged function sets the root",
			       c->uid);
	if (IN_GET(set_flow_table_root_in, underlay_qpn))
		return FW_FAIL(c, BAD_PARAM_ERR, "SET_FLOW_TABLE_ROOT: underlay "
			       "QPs are not supported");
	if (c->op_mod > 1)
		return FW_FAIL(c, BAD_PARAM_ERR, "SET_FLOW_TABLE_ROOT: op_mod %u "
			       "is not set (0) or disconnect (1)", c->op_mod);
	if (fw_flow_head(c, IN_GET(set_flow_table_root_in, other_vport),
			 IN_GET(set_flow_table_root_in, table_type)))
		return -1;
	if (c->op_mod == 0) {
		ft = FW_GET(c, ft, IN_GET(set_flow_table_root_in, table_id),
			    "SET_FLOW_TABLE_ROOT");
		if (!ft)
			return -1;
		if (ft->type != type)
			return FW_FAIL(c, BAD_PARAM_ERR, "SET_FLOW_TABLE_ROOT: "
				       "table 0x%x is of type %u, not %u",
				       ft->obj.id, ft->type, type);
		fw_ref(&ft->obj);
	}
	root = fw_flow_root(c->fw, type);
	if (*root)
		fw_unref(&(*root)->obj);
	*root = ft;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Groups                                                             */
/* ------------------------------------------------------------------ */

int fw_fg_create(struct fw_cmd *c)
{
	struct fw_ft *ft = fw_flow_table(c, "CREATE_FLOW_GROUP");
	uint32_t start = IN_GET(create_flow_group_in, start_flow_index);
	uint32_t end = IN_GET(create_flow_group_in, end_flow_index);
	uint32_t mce = IN_GET(create_flow_group_in, match_criteria_enable);
	const uint8_t *crit = (const uint8_t *)c->in + FG_CRIT_OFF;
	uint8_t sup[FW_MATCH_BYTES];
	struct fw_fg *g, **pp;
	unsigned int i;

	if (!ft)
		return -1;
	if (IN_GET(create_flow_group_in, group_type))
		return FW_FAIL(c, BAD_PARAM_ERR, "flow group: group_type %u: only "
			       "plain groups (0) are supported",
			       IN_GET(create_flow_group_in, group_type));
	if (start > end || end >= (1u << ft->log_size))
		return FW_FAIL(c, BAD_PARAM_ERR, "flow group: indexes [%u, %u] "
			       "outside table 0x%x of %u entries", start, end,
			       ft->obj.id, 1u << ft->log_size);
	if (mce & ~(uint32_t)MLX5_MATCH_OUTER_HEADERS)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow group: match_criteria_enable "
			       "0x%x: only outer headers (0x1) are supported", mce);
	fw_flow_supported(sup);
	for (i = 0; (mce & MLX5_MATCH_OUTER_HEADERS) && i < FW_MATCH_BYTES; i++)
		if (crit[i] & ~sup[i])
			return FW_FAIL(c, BAD_PARAM_ERR, "flow group: criteria "
				       "byte %u (0x%02x) names reserved bits",
				       i, crit[i]);
	for (g = ft->groups; g; g = g->next)
		if (start <= g->end && g->start <= end)
			return FW_FAIL(c, BAD_PARAM_ERR, "flow group: [%u, %u] "
				       "overlaps group 0x%x [%u, %u]", start, end,
				       g->obj.id, g->start, g->end);
	g = calloc(1, sizeof(*g));
	if (!g)
		return FW_FAIL(c, NO_RES_ERR, "flow group: out of memory");
	if (fw_table_add(&c->fw->fg, &g->obj)) {
		free(g);
		return FW_FAIL(c, NO_RES_ERR, "flow group: all %u numbers are in "
			       "use", c->fw->fg.limit);
	}
	if (fw_obj_own(c, &g->obj, "flow group")) {
		fw_table_del(&c->fw->fg, g->obj.id);
		free(g);
		return -1;
	}
	g->ft = ft;
	g->start = start;
	g->end = end;
	g->mce = (uint8_t)mce;
	if (mce & MLX5_MATCH_OUTER_HEADERS)
		memcpy(g->crit, crit, FW_MATCH_BYTES);
	for (pp = &ft->groups; *pp && (*pp)->start < start; pp = &(*pp)->next)
		;
	g->next = *pp;
	*pp = g;
	OUT_SET(create_flow_group_out, group_id, g->obj.id);
	return 0;
}

int fw_fg_destroy(struct fw_cmd *c)
{
	struct fw_ft *ft = fw_flow_table(c, "DESTROY_FLOW_GROUP");
	uint32_t id = IN_GET(destroy_flow_group_in, group_id);
	struct fw_fg *g, **pp;

	if (!ft)
		return -1;
	g = FW_GET(c, fg, id, "DESTROY_FLOW_GROUP");
	if (!g)
		return -1;
	if (g->ft != ft)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow group 0x%x belongs to "
			       "table 0x%x, not 0x%x", id, g->ft->obj.id,
			       ft->obj.id);
	if (g->nfte)
		return FW_FAIL(c, RES_BUSY, "flow group 0x%x still has %u "
			       "entries", id, g->nfte);
	for (pp = &ft->groups; *pp != g; pp = &(*pp)->next)
		;
	*pp = g->next;
	fw_table_del(&c->fw->fg, id);
	fw_obj_disown(c->fw, &g->obj);
	free(g);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Entries                                                            */
/* ------------------------------------------------------------------ */

/* Position of flow index @index in @ft->fte (sorted), *found if there. */
static uint32_t fw_fte_pos(const struct fw_ft *ft, uint32_t index, bool *found)
{
	uint32_t lo = 0, hi = ft->nfte;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (ft->fte[mid]->index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < ft->nfte && ft->fte[lo]->index == index;
	return lo;
}

static int fw_fte_dests(struct fw_cmd *c, struct fw_ft *ft,
			const uint8_t *fc, struct fw_fte *e)
{
	uint32_t i, nft = 0;

	for (i = 0; i < e->ndest; i++) {
		const uint8_t *d = fc + DEVX_BYTE_OFF(flow_context, destination) +
				   (size_t)i * 8;
		uint32_t type = DEVX_GET(dest_format, d, destination_type);
		uint32_t id = DEVX_GET(dest_format, d, destination_id);
		struct fw_fte_dest *fd = &e->dest[i];

		fd->type = type;
		if (DEVX_GET(dest_format, d, packet_reformat))
			return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: destination "
				       "%u: per-destination packet reformat is not "
				       "supported (use action PACKET_REFORMAT)", i);
		if (type == MLX5_FLOW_DESTINATION_TYPE_TIR &&
		    ft->type == MLX5_FLOW_TABLE_TYPE_NIC_TX) {
			return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: destination "
				       "%u: a NIC transmit table cannot forward "
				       "to a TIR", i);
		} else if (type == MLX5_FLOW_DESTINATION_TYPE_TIR) {
			fd->tir = FW_REF(c, tir, id, "flow entry destination");
			if (!fd->tir)
				return -1;
			fw_ref(&fd->tir->obj);
		} else if (type == MLX5_FLOW_DESTINATION_TYPE_FLOW_TABLE) {
			struct fw_ft *to = FW_REF(c, ft, id, "flow entry destination");

			if (!to)
				return -1;
			if (++nft > 1)
				return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: more "
					       "than one destination table");
			if (to == ft)
				return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: "
					       "table 0x%x forwards to itself", id);
			if (to->type != ft->type || to->level <= ft->level)
				return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: "
					       "destination table 0x%x (level %u, "
					       "type %u) is not deeper than 0x%x "
					       "(level %u)", id, to->level, to->type,
					       ft->obj.id, ft->level);
			fd->ft = to;
			fw_ref(&to->obj);
		} else {
			return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: destination "
				       "%u of type 0x%x: only TIRs (2) and flow "
				       "tables (1) are supported", i, type);
		}
	}
	return 0;
}

/* The flow_counter_list entries that follow the destinations. */
static int fw_fte_counters(struct fw_cmd *c, const uint8_t *fc, uint32_t nfc,
			   struct fw_fte *e)
{
	uint32_t i;

	if (!nfc)
		return 0;
	e->fc = calloc(nfc, sizeof(e->fc[0]));
	if (!e->fc)
		return FW_FAIL(c, NO_RES_ERR, "flow entry: out of memory");
	for (i = 0; i < nfc; i++) {
		const uint8_t *l = fc + DEVX_BYTE_OFF(flow_context, destination) +
				   (size_t)(e->ndest + i) * 8;
		struct fw_fc *cnt = FW_REF(c, fc, DEVX_GET(flow_counter_list, l,
							   flow_counter_id),
					   "flow entry counter");

		if (!cnt)
			return -1;
		fw_ref(&cnt->obj);
		e->fc[e->nfc++] = cnt;
	}
	return 0;
}

/* The actions that rewrite a frame a NIC TX entry matches (fw_fte_rewrite). */
#define FW_FTE_TX_REWRITE                                                      \
	(MLX5_FLOW_CONTEXT_ACTION_MOD_HDR | MLX5_FLOW_CONTEXT_ACTION_VLAN_POP | \
	 MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH |                                  \
	 MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT)

/*
 * What an entry may do: exactly one of forward, drop and allow (NIC TX:
 * on to the wire; NIC RX: leave steering as on a miss), plus count; a NIC
 * TX entry may also rewrite the frame (modify header, VLAN pop / push,
 * packet reformat), a NIC RX entry pop the outer VLAN tag and decap.
 */
static int fw_fte_action_check(struct fw_cmd *c, const struct fw_ft *ft,
			       uint32_t action)
{
	const uint32_t fate = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
			      MLX5_FLOW_CONTEXT_ACTION_DROP |
			      MLX5_FLOW_CONTEXT_ACTION_ALLOW;
	uint32_t ok = fate | MLX5_FLOW_CONTEXT_ACTION_COUNT;
	uint32_t f = action & fate;

	if (ft->type == MLX5_FLOW_TABLE_TYPE_NIC_TX)
		ok |= FW_FTE_TX_REWRITE;
	else
		ok |= MLX5_FLOW_CONTEXT_ACTION_VLAN_POP |
		      MLX5_FLOW_CONTEXT_ACTION_DECAP;
	if (action & ~ok)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: action 0x%x: bits "
			       "0x%x are not supported in a %s table (allow 0x1, "
			       "drop 0x2, forward 0x4, count 0x8%s)", action,
			       action & ~ok, ft->type ? "NIC transmit" :
			       "NIC receive", ft->type ? ", packet reformat 0x10, "
			       "modify header 0x40, VLAN pop 0x80, VLAN push 0x100" :
			       ", decap 0x20, VLAN pop 0x80");
	if (!f || (f & (f - 1)))
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: action 0x%x: "
			       "exactly one of forward, drop and allow", action);
	return 0;
}

/* The modify header context an entry with action MOD_HDR names. */
static int fw_fte_mod_hdr(struct fw_cmd *c, const struct fw_ft *ft, uint32_t id,
			  struct fw_fte *e)
{
	struct fw_mh *mh = FW_REF(c, mh, id, "flow entry modify_header_id");

	if (!mh)
		return -1;
	if (mh->table_type != ft->type)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: modify header 0x%x "
			       "is for table type %u, the table is of type %u",
			       id, mh->table_type, ft->type);
	fw_ref(&mh->obj);
	e->mh = mh;
	return 0;
}

/* The packet reformat context an entry with action PACKET_REFORMAT names
 * (NIC TX only: fw_fte_action_check). */
static int fw_fte_reformat(struct fw_cmd *c, uint32_t id, struct fw_fte *e)
{
	struct fw_pr *pr = FW_REF(c, pr, id, "flow entry packet_reformat_id");

	if (!pr)
		return -1;
	fw_ref(&pr->obj);
	e->pr = pr;
	return 0;
}

int fw_fte_set(struct fw_cmd *c)
{
	struct fw_ft *ft;
	const uint8_t *fc = (const uint8_t *)c->in + FTE_CTX_OFF;
	const uint8_t *val = fc + DEVX_BYTE_OFF(flow_context, match_value) +
			     DEVX_BYTE_OFF(fte_match_param, outer_headers);
	uint32_t index = IN_GET(set_fte_in, flow_index);
	uint32_t action = DEVX_GET(flow_context, fc, action);
	uint32_t ndest = DEVX_GET(flow_context, fc, destination_list_size);
	uint32_t nfc = DEVX_GET(flow_context, fc, flow_counter_list_size);
	struct fw_fte *e, **nf;
	struct fw_fg *g;
	uint32_t pos, i;
	bool found;

	if (c->op_mod != 0)
		return FW_FAIL(c, BAD_PARAM_ERR, "SET_FLOW_TABLE_ENTRY op_mod %u: "
			       "modifying an entry is not supported (delete and "
			       "set it again)", c->op_mod);
	if (IN_GET(set_fte_in, ignore_flow_level))
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: ignore_flow_level is "
			       "not supported (destinations must be deeper)");
	ft = fw_flow_table(c, "SET_FLOW_TABLE_ENTRY");
	if (!ft)
		return -1;
	if (index >= (1u << ft->log_size))
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: index %u outside "
			       "table 0x%x of %u entries", index, ft->obj.id,
			       1u << ft->log_size);
	g = FW_GET(c, fg, DEVX_GET(flow_context, fc, group_id), "flow entry "
		   "group_id");
	if (!g)
		return -1;
	if (g->ft != ft || index < g->start || index > g->end)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: index %u is not in "
			       "group 0x%x [%u, %u] of table 0x%x", index,
			       g->obj.id, g->start, g->end, ft->obj.id);
	pos = fw_fte_pos(ft, index, &found);
	if (found)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: index %u of table "
			       "0x%x is already set", index, ft->obj.id);
	if (fw_fte_action_check(c, ft, action))
		return -1;
	if (action & MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH) {
		uint32_t tpid = DEVX_GET(flow_context, fc, push_vlan) >> 16;

		if (tpid != 0x8100 && tpid != 0x88a8)
			return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: push_vlan "
				       "TPID 0x%04x is not 802.1Q (0x8100) or "
				       "802.1ad (0x88a8)", tpid);
	}
	if (DEVX_GET(flow_context, fc, extended_destination))
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: extended "
			       "destinations are not supported");
	if ((action & MLX5_FLOW_CONTEXT_ACTION_COUNT) ?
	    (!nfc || nfc > FW_FTE_MAX_FC) : nfc != 0)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: %u flow counters "
			       "for action 0x%x (count takes 1 to %u)", nfc,
			       action, FW_FTE_MAX_FC);
	if ((action & MLX5_FLOW_CONTEXT_ACTION_FWD_DEST) ?
	    (!ndest || ndest > FW_FTE_MAX_DEST) : ndest != 0)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: %u destinations "
			       "for action 0x%x (forward takes 1 to %u)", ndest,
			       action, FW_FTE_MAX_DEST);
	if ((c->inlen - FTE_CTX_OFF - DEVX_BYTE_OFF(flow_context, destination)) / 8 <
	    ndest + nfc)
		return FW_FAIL(c, BAD_INP_LEN_ERR, "flow entry: %u destinations "
			       "and %u flow counters do not fit the %zu-byte "
			       "input mailbox", ndest, nfc, c->inlen);
	e = calloc(1, sizeof(*e) + (size_t)ndest * sizeof(e->dest[0]));
	if (!e)
		return FW_FAIL(c, NO_RES_ERR, "flow entry: out of memory");
	e->index = index;
	e->uid = c->uid;
	e->fg = g;
	e->action = action;
	e->flow_tag = DEVX_GET(flow_context, fc, flow_tag);
	if (action & MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH)
		e->push_vlan = DEVX_GET(flow_context, fc, push_vlan);
	for (i = 0; i < FW_MATCH_BYTES; i++)
		e->val[i] = val[i] & g->crit[i];
	e->ndest = ndest;
	if (fw_fte_dests(c, ft, fc, e) || fw_fte_counters(c, fc, nfc, e))
		goto err;
	if ((action & MLX5_FLOW_CONTEXT_ACTION_MOD_HDR) &&
	    fw_fte_mod_hdr(c, ft, DEVX_GET(flow_context, fc, modify_header_id), e))
		goto err;
	if ((action & MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT) &&
	    fw_fte_reformat(c, DEVX_GET(flow_context, fc, packet_reformat_id), e))
		goto err;
	if (ft->nfte == ft->capfte) {
		uint32_t ncap = ft->capfte ? ft->capfte * 2 : 16;

		nf = realloc(ft->fte, (size_t)ncap * sizeof(*nf));
		if (!nf) {
			FW_FAIL(c, NO_RES_ERR, "flow entry: out of memory");
			goto err;
		}
		ft->fte = nf;
		ft->capfte = ncap;
	}
	memmove(&ft->fte[pos + 1], &ft->fte[pos],
		(size_t)(ft->nfte - pos) * sizeof(ft->fte[0]));
	ft->fte[pos] = e;
	ft->nfte++;
	g->nfte++;
	return 0;
err:
	fw_fte_free(e);
	return -1;
}

int fw_fte_delete(struct fw_cmd *c)
{
	struct fw_ft *ft = fw_flow_table(c, "DELETE_FLOW_TABLE_ENTRY");
	uint32_t index = IN_GET(delete_fte_in, flow_index);
	uint32_t pos;
	bool found;

	if (!ft)
		return -1;
	pos = fw_fte_pos(ft, index, &found);
	if (!found)
		return FW_FAIL(c, BAD_PARAM_ERR, "flow entry: index %u of table "
			       "0x%x is not set", index, ft->obj.id);
	ft->fte[pos]->fg->nfte--;
	fw_fte_free(ft->fte[pos]);
	memmove(&ft->fte[pos], &ft->fte[pos + 1],
		(size_t)(ft->nfte - pos - 1) * sizeof(ft->fte[0]));
	ft->nfte--;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The lookup                                                         */
/* ------------------------------------------------------------------ */

static bool fw_fte_match(const struct fw_fte *e, const uint8_t *hdr)
{
	const uint8_t *crit = e->fg->crit;
	unsigned int i;

	for (i = 0; i < FW_MATCH_BYTES; i++)
		if ((hdr[i] & crit[i]) != e->val[i])
			return false;
	return true;
}

/* A frame of @len bytes matched @e: its hit and flow counters count it. */
static void fw_fte_hit(struct fw_fte *e, uint32_t len)
{
	uint32_t i;

	e->hits++;
	for (i = 0; i < e->nfc; i++) {
		e->fc[i]->packets++;
		e->fc[i]->octets += len;
	}
}

/* The table's first entry (in flow index order) whose group criteria match
 * @hdr, or NULL: a miss. */
static struct fw_fte *fw_ft_first_match(const struct fw_ft *ft,
					const uint8_t hdr[FW_MATCH_BYTES])
{
	uint32_t i;

	for (i = 0; i < ft->nfte; i++)
		if (fw_fte_match(ft->fte[i], hdr))
			return ft->fte[i];
	return NULL;
}

void fw_flow_steer(struct fw *fw, const uint8_t hdr[FW_MATCH_BYTES],
		   uint32_t len, struct fw_steer *out)
{
	struct fw_ft *ft = fw->nic_rx_root;
	unsigned int depth;

	memset(out, 0, sizeof(*out));
	fw->eth.rx_frames++;
	/* Levels only grow along a path, so this ends; the bound is a
	 * second guard. */
	for (depth = 0; ft && depth <= FW_FT_MAX_LEVEL + 1; depth++) {
		struct fw_fte *e = fw_ft_first_match(ft, hdr);
		struct fw_ft *next = NULL;
		uint32_t i;

		if (!e) {
			if (ft->miss_action == MLX5_FLOW_TABLE_MISS_ACTION_FWD) {
				ft = ft->miss;
				continue;
			}
			break;	/* a miss with nowhere to go */
		}
		fw_fte_hit(e, len);
		out->flow_tag = e->flow_tag;
		if (e->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_POP)
			out->pop_vlan = true;
		if (e->action & MLX5_FLOW_CONTEXT_ACTION_DECAP)
			out->decap = true;
		if (e->action & MLX5_FLOW_CONTEXT_ACTION_DROP) {
			fw->eth.rx_dropped++;
			out->dropped = true;
			out->ntir = 0;
			return;
		}
		for (i = 0; i < e->ndest; i++) {
			struct fw_tir *t = e->dest[i].tir;
			uint32_t k;

			if (e->dest[i].ft)
				next = e->dest[i].ft;
			if (!t)
				continue;
			for (k = 0; k < out->ntir && out->tir[k] != t; k++)
				;
			if (k == out->ntir && out->ntir < FW_STEER_MAX)
				out->tir[out->ntir++] = t;
		}
		if (!next)
			return;
		ft = next;
	}
	/* Frames already given to TIRs keep going there; a frame that
	 * reached no TIR is dropped here. */
	if (!out->ntir)
		fw->eth.rx_no_match++;
}

/* 802.1Q/802.1ad tag right after the MAC addresses? */
static bool fw_frame_tagged(const uint8_t *f, uint32_t len)
{
	uint16_t t;

	if (len < 18)
		return false;
	t = (uint16_t)(f[12] << 8 | f[13]);
	return t == 0x8100 || t == 0x88a8;
}

/* An entry's rewrites, in the PRM's order: pop, modify, push, encap;
 * false when the encapsulated frame would not fit the buffer. */
static bool fw_fte_rewrite(const struct fw_fte *e, uint8_t *f, uint32_t *len,
			   uint32_t cap)
{
	if ((e->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_POP) &&
	    fw_frame_tagged(f, *len)) {
		memmove(f + 12, f + 16, *len - 16);
		*len -= 4;
	}
	if (e->mh)
		fw_mh_apply(e->mh, f, *len);
	if ((e->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH) && *len >= 12 &&
	    *len + 4 <= cap) {
		memmove(f + 16, f + 12, *len - 12);
		f[12] = (uint8_t)(e->push_vlan >> 24);
		f[13] = (uint8_t)(e->push_vlan >> 16);
		f[14] = (uint8_t)(e->push_vlan >> 8);
		f[15] = (uint8_t)e->push_vlan;
		*len += 4;
	}
	return !e->pr || fw_pr_encap(e->pr, f, len, cap);
}

bool fw_flow_steer_tx(struct fw *fw, uint8_t *f, uint32_t *len, uint32_t cap,
		      void (*classify)(const uint8_t *f, uint32_t len,
				       uint8_t hdr[FW_MATCH_BYTES]))
{
	uint8_t hdr[FW_MATCH_BYTES];
	struct fw_ft *ft = fw->nic_tx_root;
	unsigned int depth;

	if (!ft)
		return true;
	fw->eth.tx_frames++;
	classify(f, *len, hdr);
	for (depth = 0; ft && depth <= FW_FT_MAX_LEVEL + 1; depth++) {
		struct fw_fte *e = fw_ft_first_match(ft, hdr);
		struct fw_ft *next = NULL;
		uint32_t i;

		if (!e) {
			/* a miss without a miss table: out to the wire */
			ft = ft->miss_action == MLX5_FLOW_TABLE_MISS_ACTION_FWD ?
			     ft->miss : NULL;
			continue;
		}
		fw_fte_hit(e, *len);
		if (e->action & MLX5_FLOW_CONTEXT_ACTION_DROP) {
			fw->eth.tx_dropped++;
			return false;
		}
		if ((e->action & FW_FTE_TX_REWRITE) &&
		    !fw_fte_rewrite(e, f, len, cap)) {
			fw->eth.tx_dropped++;	/* too big to wrap */
			return false;
		}
		for (i = 0; i < e->ndest; i++)
			if (e->dest[i].ft)
				next = e->dest[i].ft;
		/* Deeper tables match the frame as rewritten. */
		if (next && (e->action & FW_FTE_TX_REWRITE))
			classify(f, *len, hdr);
		ft = next;	/* ALLOW, or nowhere deeper: on to the wire */
	}
	return true;
}

struct fw_eth_stats *fw_eth_stats(struct fw *fw)
{
	return &fw->eth;
}
