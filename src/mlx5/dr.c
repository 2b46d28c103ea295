/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_dr ("direct rule" steering) for the NIC receive and transmit
 * domains, on the firmware's NIC RX and NIC TX flow tables: every object is
 * made by the PRM commands a DEVX client could send (flow.c's steering
 * helpers, steer.h).
 *
 *   domain   bookkeeping only (NIC_RX, NIC_TX; FDB answers EOPNOTSUPP: the
 *            device has no eswitch)
 *   table    level 0: the root of the domain's type the provider's kernel
 *            half owns (for NIC RX the one ibv_create_flow fills; rules
 *            there are set with uid 0, as rdma-core sends root rules through
 *            the kernel); level > 0: a CREATE_FLOW_TABLE of that level
 *            under the context's uid
 *   matcher  flow groups of its criteria in the table's ranges, placed by
 *            priority (lower values are tried first); the first group is
 *            made at creation, more as rules fill them
 *   rule     one SET_FLOW_TABLE_ENTRY in a group of its matcher
 *   action   a destination (a raw packet QP's TIR, a DEVX TIR, a table of a
 *            deeper level), drop, a flow tag, a DEVX flow counter; on NIC
 *            TX also a modify header context (ALLOC_MODIFY_HEADER_CONTEXT)
 *            and VLAN push, and encap (ALLOC_PACKET_REFORMAT_CONTEXT,
 *            L2_TO_L2_TUNNEL); on NIC RX VXLAN decap (L2_TUNNEL_TO_L2,
 *            action DECAP); VLAN pop (both domains); default miss (NIC
 *            TX: on to the wire; NIC RX: the frame leaves steering as on
 *            a miss of the kernel half's root, which delivers it nowhere). A NIC TX rule with no
 *            destination, drop or default miss sends the frame on to the
 *            wire, as rdma-core's TX rules do.
 *
 * Matching covers the outer L2-L4 headers (fte_match_set_lyr_2_4); mask bits
 * in other enabled criteria (misc, inner, misc2..5) answer EOPNOTSUPP.
 * Objects count their users: destroying one still used is EBUSY, as in
 * rdma-core. mdev->steer_lock serializes all of it.
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
/* outer, misc, inner, misc2, misc3, misc4, misc5: one bit per 64 bytes */
#define DR_CRITERIA_ALL 0x7f
#define DR_FLOW_TAG_MAX 0xffffff

struct mlx5dv_dr_domain {
	struct ibv_context *ctx;
	struct mlx5_device *mdev;
	uint8_t ft_type;		/* MLX5_FLOW_TABLE_TYPE_NIC_RX / _NIC_TX */
	uint32_t tables;		/* live tables */
	uint32_t actions;		/* live actions made on this domain */
	bool no_dup;			/* allow_duplicate_rules(false) */
	struct mlx5dv_dr_table *tbl_list;	/* for the dumps, newest first */
};

struct mlx5dv_dr_table {
	struct mlx5dv_dr_domain *dmn;
	struct mlx5_steer_ft *ft;	/* level 0: mdev->steer, not ours */
	uint32_t level;
	uint32_t matchers;
	uint32_t refs;			/* dest-table actions naming it */
	struct mlx5dv_dr_table *next;	/* on dmn->tbl_list */
	struct mlx5dv_dr_matcher *m_list;	/* newest first */
};

struct mlx5dv_dr_matcher {
	struct mlx5dv_dr_table *tbl;
	uint16_t prio;
	uint8_t crit[MATCH_BYTES] __attribute__((aligned(8)));
	struct mlx5dv_dr_rule *rules;	/* newest first */
	uint32_t nrules;
	uint8_t mce;			/* match_criteria_enable */
	struct mlx5dv_dr_matcher *next;	/* on tbl->m_list */
};

enum dr_action_type {
	DR_ACT_DEST,		/* a TIR (a QP's or a DEVX one) */
	DR_ACT_TABLE,
	DR_ACT_DROP,
	DR_ACT_TAG,
	DR_ACT_COUNTER,
	DR_ACT_MODIFY,		/* a modify header context */
	DR_ACT_PUSH_VLAN,
	DR_ACT_POP_VLAN,
	DR_ACT_DEFAULT_MISS,
	DR_ACT_ENCAP,		/* NIC TX: a packet reformat context */
	DR_ACT_DECAP,		/* NIC RX: VXLAN decap */
	DR_ACT_KINDS
};

struct mlx5dv_dr_action {
	enum dr_action_type type;
	uint32_t refs;			/* rules using it */
	uint32_t id;			/* TIR, tag, counter, modify header,
					 * packet reformat id;
					 * PUSH_VLAN: TPID << 16 | TCI */
	struct mlx5dv_dr_table *tbl;	/* DR_ACT_TABLE */
	struct mlx5dv_dr_domain *dmn;	/* DR_ACT_MODIFY, _PUSH_VLAN, _ENCAP,
					 * _DECAP */
	uint16_t uid;			/* DR_ACT_MODIFY, _ENCAP: of its context */
};

struct mlx5dv_dr_rule {
	struct mlx5dv_dr_matcher *m;
	struct mlx5dv_dr_rule *next;
	struct mlx5_steer_fg *fg;
	uint32_t index;
	uint8_t val[MATCH_BYTES] __attribute__((aligned(8)));
	size_t nact;
	struct mlx5dv_dr_action *act[];
};

/* Each action kind's name in messages and its word in dumps, in one table
 * so that a new kind cannot have one and miss the other. */
static const struct {
	const char *name, *dump;
} dr_act_kind[DR_ACT_KINDS] = {
	[DR_ACT_DEST] = { "destination TIR", "tir" },
	[DR_ACT_TABLE] = { "destination table", "table" },
	[DR_ACT_DROP] = { "drop", "drop" },
	[DR_ACT_TAG] = { "tag", "tag" },
	[DR_ACT_COUNTER] = { "counter", "counter" },
	[DR_ACT_MODIFY] = { "modify header", "modify_header" },
	[DR_ACT_PUSH_VLAN] = { "push VLAN", "push_vlan" },
	[DR_ACT_POP_VLAN] = { "pop VLAN", "pop_vlan" },
	[DR_ACT_DEFAULT_MISS] = { "default miss", "default_miss" },
	[DR_ACT_ENCAP] = { "encap (L2 to L2 tunnel)", "encap" },
	[DR_ACT_DECAP] = { "decap (L2 tunnel to L2)", "decap" },
};

/* Sets errno, logs why (SOFTMLX5_DEBUG) and gives NULL. */
#define DR_FAIL_PTR(err, fmt, ...)                                             \
	({                                                                     \
		smx_dbg("%s: " fmt, __func__, ##__VA_ARGS__);                  \
		errno = (err);                                                 \
		NULL;                                                          \
	})

/* Logs why and gives @err (also in errno, as rdma-core's DR does). */
#define DR_FAIL_INT(err, fmt, ...)                                             \
	({                                                                     \
		smx_dbg("%s: " fmt, __func__, ##__VA_ARGS__);                  \
		errno = (err);                                                 \
		(err);                                                         \
	})

/* ------------------------------------------------------------------ */
/* Domain                                                             */
/* ------------------------------------------------------------------ */

SMX_EXPORT struct mlx5dv_dr_domain *
mlx5dv_dr_domain_create(struct ibv_context *ctx, enum mlx5dv_dr_domain_type type)
{
	struct mlx5dv_dr_domain *dmn;

	if (!ctx)
		return DR_FAIL_PTR(EINVAL, "no context");
	if (!mlx5dv_is_supported(ctx->device))
		return DR_FAIL_PTR(EOPNOTSUPP, "not an mlx5 device");
	/* The device has no eswitch flow tables: the one-time stub line
	 * says so, a debug line on later calls. */
	if (type == MLX5DV_DR_DOMAIN_TYPE_FDB) {
		static int once;

		if (__atomic_exchange_n(&once, 1, __ATOMIC_RELAXED))
			return DR_FAIL_PTR(EOPNOTSUPP, "FDB domains are not "
					   "implemented");
		smx_stub("mlx5dv_dr_domain_create(FDB)");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (type != MLX5DV_DR_DOMAIN_TYPE_NIC_RX &&
	    type != MLX5DV_DR_DOMAIN_TYPE_NIC_TX)
		return DR_FAIL_PTR(EINVAL, "unknown domain type %d", (int)type);
	dmn = calloc(1, sizeof(*dmn));
	if (!dmn)
		return DR_FAIL_PTR(ENOMEM, "out of memory");
	dmn->ctx = ctx;
	dmn->mdev = to_mdev(ctx->device);
	dmn->ft_type = type == MLX5DV_DR_DOMAIN_TYPE_NIC_TX ?
		       MLX5_FLOW_TABLE_TYPE_NIC_TX : MLX5_FLOW_TABLE_TYPE_NIC_RX;
	return dmn;
}

SMX_EXPORT int mlx5dv_dr_domain_destroy(struct mlx5dv_dr_domain *dmn)
{
	uint32_t tables, actions;

	if (!dmn)
		return DR_FAIL_INT(EINVAL, "no domain");
	pthread_mutex_lock(&dmn->mdev->steer_lock);
	tables = dmn->tables;
	actions = dmn->actions;
	pthread_mutex_unlock(&dmn->mdev->steer_lock);
	if (tables || actions)
		return DR_FAIL_INT(EBUSY, "domain still has %u tables and %u "
				   "actions", tables, actions);
	free(dmn);
	return 0;
}

/* Rules reach the device when they are created: nothing is cached. */
SMX_EXPORT int mlx5dv_dr_domain_sync(struct mlx5dv_dr_domain *dmn, uint32_t flags)
{
	const uint32_t all = MLX5DV_DR_DOMAIN_SYNC_FLAGS_SW |
			     MLX5DV_DR_DOMAIN_SYNC_FLAGS_HW |
			     MLX5DV_DR_DOMAIN_SYNC_FLAGS_MEM;

	if (!dmn)
		return DR_FAIL_INT(EINVAL, "no domain");
	if (flags & ~all)
		return DR_FAIL_INT(EINVAL, "flags 0x%x: unknown bits 0x%x", flags,
				   flags & ~all);
	return 0;
}

/* No device memory is cached for rules: nothing to reclaim. */
SMX_EXPORT void mlx5dv_dr_domain_set_reclaim_device_memory(struct mlx5dv_dr_domain *dmn,
							   bool enable)
{
	(void)dmn;
	(void)enable;
}

SMX_EXPORT void mlx5dv_dr_domain_allow_duplicate_rules(struct mlx5dv_dr_domain *dmn,
						       bool allow)
{
	if (!dmn) {
		smx_dbg("%s: no domain", __func__);
		return;
	}
	pthread_mutex_lock(&dmn->mdev->steer_lock);
	dmn->no_dup = !allow;
	pthread_mutex_unlock(&dmn->mdev->steer_lock);
}

/* ------------------------------------------------------------------ */
/* Tables                                                             */
/* ------------------------------------------------------------------ */

SMX_EXPORT struct mlx5dv_dr_table *
mlx5dv_dr_table_create(struct mlx5dv_dr_domain *dmn, uint32_t level)
{
	struct mlx5dv_dr_table *tbl;
	uint32_t max_level = 0;
	int ret;

	if (!dmn)
		return DR_FAIL_PTR(EINVAL, "no domain");
	if (level) {
		/* 0x8000 bytes of flow table caps: off the stack */
		uint8_t *cap = calloc(1, DEVX_ST_SZ_BYTES(flow_table_nic_cap));

		if (!cap)
			return DR_FAIL_PTR(ENOMEM, "out of memory");
		ret = mlx5_query_hca_cap(dmn->mdev->hca, MLX5_CAP_FLOW_TABLE, cap,
					 DEVX_ST_SZ_BYTES(flow_table_nic_cap));
		if (!ret)
			max_level = dmn->ft_type == MLX5_FLOW_TABLE_TYPE_NIC_TX ?
				DEVX_GET(flow_table_nic_cap, cap,
					 flow_table_properties_nic_transmit.max_ft_level) :
				DEVX_GET(flow_table_nic_cap, cap,
					 flow_table_properties_nic_receive.max_ft_level);
		free(cap);
		if (ret)
			return DR_FAIL_PTR(ret, "flow table caps: query failed");
		if (level > max_level)
			return DR_FAIL_PTR(EOPNOTSUPP, "level %u above the device's "
					   "max_ft_level %u", level, max_level);
	}
	tbl = calloc(1, sizeof(*tbl));
	if (!tbl)
		return DR_FAIL_PTR(ENOMEM, "out of memory");
	tbl->dmn = dmn;
	tbl->level = level;
	pthread_mutex_lock(&dmn->mdev->steer_lock);
	if (level)
		ret = mlx5_steer_ft_create(dmn->mdev, to_mctx(dmn->ctx)->uctx->uid,
					   dmn->ft_type, level, &tbl->ft);
	else
		ret = mlx5_steer_root(dmn->mdev, dmn->ft_type, &tbl->ft);
	if (!ret) {
		dmn->tables++;
		tbl->next = dmn->tbl_list;
		dmn->tbl_list = tbl;
	}
	pthread_mutex_unlock(&dmn->mdev->steer_lock);
	if (ret) {
		free(tbl);
		return DR_FAIL_PTR(ret, "level %u: the device refused the table", level);
	}
	return tbl;
}

SMX_EXPORT int mlx5dv_dr_table_destroy(struct mlx5dv_dr_table *tbl)
{
	struct mlx5_device *mdev;
	int ret = 0;

	if (!tbl)
		return DR_FAIL_INT(EINVAL, "no table");
	mdev = tbl->dmn->mdev;
	pthread_mutex_lock(&mdev->steer_lock);
	if (tbl->matchers || tbl->refs) {
		uint32_t m = tbl->matchers, r = tbl->refs;

		pthread_mutex_unlock(&mdev->steer_lock);
		return DR_FAIL_INT(EBUSY, "table (level %u) still has %u matchers "
				   "and %u destination actions", tbl->level, m, r);
	}
	if (tbl->level)
		ret = mlx5_steer_ft_destroy(tbl->ft);
	if (!ret) {
		struct mlx5dv_dr_table **pp;

		tbl->dmn->tables--;
		for (pp = &tbl->dmn->tbl_list; *pp; pp = &(*pp)->next)
			if (*pp == tbl) {
				*pp = tbl->next;
				break;
			}
	}
	pthread_mutex_unlock(&mdev->steer_lock);
	if (ret)
		return DR_FAIL_INT(ret, "the device refused to destroy the table");
	free(tbl);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Matchers                                                           */
/* ------------------------------------------------------------------ */

/*
 * The outer-header criteria of @mask under @mce. Bytes of criteria that are
 * not enabled are ignored (as rdma-core's DR does); set bits in enabled
 * criteria past the outer headers are what the device cannot match.
 */
static int dr_mask_parse(uint8_t mce, const struct mlx5dv_flow_match_parameters *mask,
			 uint8_t crit[MATCH_BYTES])
{
	const uint8_t *b = (const uint8_t *)mask->match_buf;
	size_t i;

	memset(crit, 0, MATCH_BYTES);
	if (mask->match_sz > STEER_PARAM_BYTES)
		return DR_FAIL_INT(EINVAL, "mask of %zu bytes, fte_match_param has %u",
				   mask->match_sz, STEER_PARAM_BYTES);
	for (i = MATCH_BYTES; i < mask->match_sz; i++)
		if (b[i] && (mce & (1u << (i / MATCH_BYTES))))
			return DR_FAIL_INT(EOPNOTSUPP, "mask byte 0x%zx (criteria "
					   "bit %zu): only the outer headers are "
					   "matched", i, i / MATCH_BYTES);
	if (mce & MLX5_MATCH_OUTER_HEADERS)
		memcpy(crit, b, mask->match_sz < MATCH_BYTES ? mask->match_sz :
		       MATCH_BYTES);
	return 0;
}

SMX_EXPORT struct mlx5dv_dr_matcher *
mlx5dv_dr_matcher_create(struct mlx5dv_dr_table *tbl, uint16_t priority,
			 uint8_t match_criteria_enable,
			 struct mlx5dv_flow_match_parameters *mask)
{
	struct mlx5dv_dr_matcher *m;
	struct mlx5_device *mdev;
	struct mlx5_steer_fg *g;
	int ret;

	if (!tbl || !mask)
		return DR_FAIL_PTR(EINVAL, "no %s", tbl ? "mask" : "table");
	if (match_criteria_enable & ~DR_CRITERIA_ALL)
		return DR_FAIL_PTR(EINVAL, "match_criteria_enable 0x%x: unknown "
				   "bits 0x%x", match_criteria_enable,
				   match_criteria_enable & ~DR_CRITERIA_ALL);
	m = calloc(1, sizeof(*m));
	if (!m)
		return DR_FAIL_PTR(ENOMEM, "out of memory");
	if (dr_mask_parse(match_criteria_enable, mask, m->crit)) {
		ret = errno;
		free(m);
		errno = ret;
		return NULL;
	}
	m->tbl = tbl;
	m->prio = priority;
	m->mce = match_criteria_enable;
	mdev = tbl->dmn->mdev;
	pthread_mutex_lock(&mdev->steer_lock);
	/* The matcher's first group now: the device checks the criteria. */
	g = mlx5_steer_fg_get(tbl->ft, m->crit, priority, m, &ret);
	if (g) {
		tbl->matchers++;
		m->next = tbl->m_list;
		tbl->m_list = m;
	}
	pthread_mutex_unlock(&mdev->steer_lock);
	if (!g) {
		free(m);
		return DR_FAIL_PTR(ret, "priority %u: no flow group", priority);
	}
	return m;
}

SMX_EXPORT int mlx5dv_dr_matcher_destroy(struct mlx5dv_dr_matcher *m)
{
	struct mlx5_steer_ft *ft;
	struct mlx5_steer_fg *g, *next;
	struct mlx5_device *mdev;
	int ret = 0;

	if (!m)
		return DR_FAIL_INT(EINVAL, "no matcher");
	ft = m->tbl->ft;
	mdev = m->tbl->dmn->mdev;
	pthread_mutex_lock(&mdev->steer_lock);
	if (m->nrules) {
		uint32_t n = m->nrules;

		pthread_mutex_unlock(&mdev->steer_lock);
		return DR_FAIL_INT(EBUSY, "matcher still has %u rules", n);
	}
	for (g = ft->groups; g; g = next) {
		next = g->next;
		if (g->owner == m && mlx5_steer_fg_destroy(ft, g))
			ret = EIO;
	}
	if (!ret) {
		struct mlx5dv_dr_matcher **pp;

		m->tbl->matchers--;
		for (pp = &m->tbl->m_list; *pp; pp = &(*pp)->next)
			if (*pp == m) {
				*pp = m->next;
				break;
			}
	}
	pthread_mutex_unlock(&mdev->steer_lock);
	if (ret)
		return DR_FAIL_INT(ret, "the device refused to destroy a flow group");
	free(m);
	return 0;
}

/* Groups grow as rules come: a size hint changes nothing. */
SMX_EXPORT int mlx5dv_dr_matcher_set_layout(struct mlx5dv_dr_matcher *m,
					    struct mlx5dv_dr_matcher_layout *layout)
{
	const uint32_t all = MLX5DV_DR_MATCHER_LAYOUT_RESIZABLE |
			     MLX5DV_DR_MATCHER_LAYOUT_NUM_RULE;

	if (!m || !layout)
		return DR_FAIL_INT(EINVAL, "no %s", m ? "layout" : "matcher");
	if (layout->flags & ~all)
		return DR_FAIL_INT(EINVAL, "layout flags 0x%x: unknown bits 0x%x",
				   layout->flags, layout->flags & ~all);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rules                                                              */
/* ------------------------------------------------------------------ */

/* The rule's outer-header value; a bit outside the matcher's mask in an
 * enabled criteria is EINVAL (rdma-core: "value not specified by mask"). */
static int dr_value_parse(const struct mlx5dv_dr_matcher *m,
			  const struct mlx5dv_flow_match_parameters *value,
			  uint8_t val[MATCH_BYTES])
{
	const uint8_t *b = (const uint8_t *)value->match_buf;
	size_t i;

	memset(val, 0, MATCH_BYTES);
	if (value->match_sz > STEER_PARAM_BYTES)
		return DR_FAIL_INT(EINVAL, "value of %zu bytes, fte_match_param "
				   "has %u", value->match_sz, STEER_PARAM_BYTES);
	for (i = 0; i < value->match_sz; i++) {
		uint8_t crit = i < MATCH_BYTES ? m->crit[i] : 0;

		if (b[i] & ~crit)
			return DR_FAIL_INT(EINVAL, "value byte 0x%zx (0x%02x) has "
					   "bits outside the matcher's mask "
					   "(0x%02x)", i, b[i], crit);
		if (i < MATCH_BYTES)
			val[i] = b[i];
	}
	return 0;
}

/* Actions only a NIC TX domain's rules take: the device rewrites the
 * frames it sends; of those it receives it only pops VLAN tags and strips
 * tunnel headers. Encap and decap actions carry their domain, so a rule of
 * the other kind of domain refuses them as another domain's. */
static bool dr_action_tx_only(enum dr_action_type t)
{
	return t == DR_ACT_MODIFY || t == DR_ACT_PUSH_VLAN || t == DR_ACT_ENCAP;
}

/*
 * The actions into one entry: at most one destination, drop or default
 * miss, a tag and a counter; on NIC TX the rewrites, and no fate at all
 * means on to the wire.
 */
static int dr_actions_parse(const struct mlx5dv_dr_matcher *m, size_t n,
			    struct mlx5dv_dr_action *actions[],
			    struct mlx5_steer_rule *r)
{
	const struct mlx5dv_dr_domain *dmn = m->tbl->dmn;
	bool tx = dmn->ft_type == MLX5_FLOW_TABLE_TYPE_NIC_TX;
	unsigned int fates = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct mlx5dv_dr_action *a = actions[i];

		if (!a)
			return DR_FAIL_INT(EINVAL, "action %zu is NULL", i);
		for (j = 0; j < i; j++)
			if (actions[j]->type == a->type)
				return DR_FAIL_INT(EINVAL, "two %s actions",
						   dr_act_kind[a->type].name);
		if (!tx && dr_action_tx_only(a->type))
			return DR_FAIL_INT(EOPNOTSUPP, "%s action in a NIC RX rule: "
					   "the device rewrites received frames "
					   "only by popping VLAN tags",
					   dr_act_kind[a->type].name);
		if (tx && (a->type == DR_ACT_DEST || a->type == DR_ACT_TAG))
			return DR_FAIL_INT(EINVAL, "%s action in a NIC TX rule",
					   dr_act_kind[a->type].name);
		if (a->dmn && a->dmn != dmn)
			return DR_FAIL_INT(EINVAL, "%s action of another domain",
					   dr_act_kind[a->type].name);
		switch (a->type) {
		case DR_ACT_DEST:
			r->dest_type = MLX5_FLOW_DESTINATION_TYPE_TIR;
			r->dest_id = a->id;
			fates++;
			break;
		case DR_ACT_TABLE:
			if (a->tbl->dmn != dmn)
				return DR_FAIL_INT(EINVAL, "destination table of "
						   "another domain");
			if (a->tbl->level <= m->tbl->level)
				return DR_FAIL_INT(EINVAL, "destination table level "
						   "%u is not above the matcher's "
						   "table level %u", a->tbl->level,
						   m->tbl->level);
			r->dest_type = MLX5_FLOW_DESTINATION_TYPE_FLOW_TABLE;
			r->dest_id = a->tbl->ft->id;
			fates++;
			break;
		case DR_ACT_DROP:
			r->drop = true;
			fates++;
			break;
		case DR_ACT_DEFAULT_MISS:
			r->allow = true;
			fates++;
			break;
		case DR_ACT_TAG:
			r->tag = a->id;
			break;
		case DR_ACT_COUNTER:
			r->count = true;
			r->counter = a->id;
			break;
		case DR_ACT_MODIFY:
			r->mod_hdr = true;
			r->mod_hdr_id = a->id;
			break;
		case DR_ACT_PUSH_VLAN:
			r->push_vlan = true;
			r->vlan_hdr = a->id;
			break;
		case DR_ACT_POP_VLAN:
			r->pop_vlan = true;
			break;
		case DR_ACT_ENCAP:
			r->reformat = true;
			r->reformat_id = a->id;
			break;
		case DR_ACT_DECAP:
			r->decap = true;
			break;
		case DR_ACT_KINDS:
			break;
		}
	}
	if (fates > 1)
		return DR_FAIL_INT(EINVAL, "more than one of destination, drop and "
				   "default miss");
	if (!fates && !tx)
		return DR_FAIL_INT(EINVAL, "no destination, drop or default miss "
				   "action");
	if (!fates)
		r->allow = true;	/* NIC TX: on to the wire */
	return 0;
}

SMX_EXPORT struct mlx5dv_dr_rule *
mlx5dv_dr_rule_create(struct mlx5dv_dr_matcher *m,
		      struct mlx5dv_flow_match_parameters *value, size_t num_actions,
		      struct mlx5dv_dr_action *actions[])
{
	struct mlx5_steer_rule r = { 0 };
	struct mlx5dv_dr_rule *rule, *o;
	struct mlx5_device *mdev;
	struct mlx5_steer_ft *ft;
	size_t i;
	int ret;

	if (!m || !value)
		return DR_FAIL_PTR(EINVAL, "no %s", m ? "value" : "matcher");
	if (num_actions && !actions)
		return DR_FAIL_PTR(EINVAL, "%zu actions and no array", num_actions);
	if (num_actions > DR_ACT_KINDS)
		return DR_FAIL_PTR(EINVAL, "%zu actions: at most one of each of "
				   "the %d kinds", num_actions, DR_ACT_KINDS);
	rule = calloc(1, sizeof(*rule) + num_actions * sizeof(rule->act[0]));
	if (!rule)
		return DR_FAIL_PTR(ENOMEM, "out of memory");
	if (dr_value_parse(m, value, rule->val) ||
	    dr_actions_parse(m, num_actions, actions, &r)) {
		ret = errno;
		free(rule);
		errno = ret;
		return NULL;
	}
	r.val = rule->val;
	ft = m->tbl->ft;
	mdev = m->tbl->dmn->mdev;
	pthread_mutex_lock(&mdev->steer_lock);
	ret = 0;
	if (m->tbl->dmn->no_dup)
		for (o = m->rules; o; o = o->next)
			if (!memcmp(o->val, rule->val, MATCH_BYTES)) {
				ret = EEXIST;
				break;
			}
	if (!ret) {
		rule->fg = mlx5_steer_fg_get(ft, m->crit, m->prio, m, &ret);
		if (rule->fg)
			ret = mlx5_steer_fte_add(ft, rule->fg, &r, &rule->index);
	}
	if (!ret) {
		rule->m = m;
		rule->nact = num_actions;
		for (i = 0; i < num_actions; i++) {
			rule->act[i] = actions[i];
			__atomic_fetch_add(&actions[i]->refs, 1, __ATOMIC_RELEASE);
		}
		rule->next = m->rules;
		m->rules = rule;
		m->nrules++;
	}
	pthread_mutex_unlock(&mdev->steer_lock);
	if (ret) {
		free(rule);
		return DR_FAIL_PTR(ret, "%s", ret == EEXIST ? "a rule with this "
				   "value exists and the domain forbids "
				   "duplicates" : "the device refused the flow "
				   "table entry");
	}
	return rule;
}

SMX_EXPORT int mlx5dv_dr_rule_destroy(struct mlx5dv_dr_rule *rule)
{
	struct mlx5dv_dr_matcher *m;
	struct mlx5dv_dr_rule **pp;
	struct mlx5_device *mdev;
	size_t i;
	int ret;

	if (!rule)
		return DR_FAIL_INT(EINVAL, "no rule");
	m = rule->m;
	mdev = m->tbl->dmn->mdev;
	pthread_mutex_lock(&mdev->steer_lock);
	ret = mlx5_steer_fte_del(m->tbl->ft, rule->fg, rule->index);
	if (!ret) {
		for (pp = &m->rules; *pp != rule; pp = &(*pp)->next)
			;
		*pp = rule->next;
		m->nrules--;
		for (i = 0; i < rule->nact; i++)
			__atomic_fetch_sub(&rule->act[i]->refs, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&mdev->steer_lock);
	if (ret)
		return DR_FAIL_INT(ret, "the device refused to delete entry %u",
				   rule->index);
	free(rule);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Actions                                                            */
/* ------------------------------------------------------------------ */

static struct mlx5dv_dr_action *dr_action_new(enum dr_action_type type, uint32_t id)
{
	struct mlx5dv_dr_action *a = calloc(1, sizeof(*a));

	if (!a)
		return DR_FAIL_PTR(ENOMEM, "out of memory");
	a->type = type;
	a->id = id;
	return a;
}

SMX_EXPORT struct mlx5dv_dr_action *mlx5dv_dr_action_create_dest_ibv_qp(struct ibv_qp *qp)
{
	struct mlx5_steer_rule r = { 0 };
	int ret = mlx5_steer_dest_qp(qp, &r);

	if (ret)
		return DR_FAIL_PTR(ret, "%s", !qp ? "no QP" :
				   ret == EOPNOTSUPP ? "only raw packet QPs are "
				   "destinations" : "the QP has no receive queue");
	return dr_action_new(DR_ACT_DEST, r.dest_id);
}

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_devx_tir(struct mlx5dv_devx_obj *obj)
{
	struct mlx5_steer_rule r = { 0 };

	if (mlx5_steer_dest_devx(obj, &r) ||
	    r.dest_type != MLX5_FLOW_DESTINATION_TYPE_TIR)
		return DR_FAIL_PTR(EINVAL, "%s", obj ? "the DEVX object is not a "
				   "TIR" : "no DEVX object");
	return dr_action_new(DR_ACT_DEST, r.dest_id);
}

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_table(struct mlx5dv_dr_table *tbl)
{
	struct mlx5dv_dr_action *a;
	struct mlx5_device *mdev;

	if (!tbl)
		return DR_FAIL_PTR(EINVAL, "no table");
	if (!tbl->level)
		return DR_FAIL_PTR(EINVAL, "the root table (level 0) cannot be a "
				   "destination");
	a = dr_action_new(DR_ACT_TABLE, 0);
	if (!a)
		return NULL;
	a->tbl = tbl;
	mdev = tbl->dmn->mdev;
	pthread_mutex_lock(&mdev->steer_lock);
	tbl->refs++;
	pthread_mutex_unlock(&mdev->steer_lock);
	return a;
}

SMX_EXPORT struct mlx5dv_dr_action *mlx5dv_dr_action_create_drop(void)
{
	return dr_action_new(DR_ACT_DROP, 0);
}

SMX_EXPORT struct mlx5dv_dr_action *mlx5dv_dr_action_create_tag(uint32_t tag_value)
{
	if (tag_value > DR_FLOW_TAG_MAX)
		return DR_FAIL_PTR(EINVAL, "tag 0x%x is wider than the CQE's 24-bit "
				   "flow tag", tag_value);
	return dr_action_new(DR_ACT_TAG, tag_value);
}

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_flow_counter(struct mlx5dv_devx_obj *obj, uint32_t offset)
{
	uint32_t id;

	if (mlx5_steer_counter_devx(obj, offset, &id))
		return DR_FAIL_PTR(EINVAL, "%s", obj ? "the DEVX object is not a "
				   "flow counter" : "no DEVX object");
	return dr_action_new(DR_ACT_COUNTER, id);
}

/* A domain's action: counted on it, so the domain outlives it. */
static struct mlx5dv_dr_action *dr_action_of_domain(struct mlx5dv_dr_domain *dmn,
						    enum dr_action_type type,
						    uint32_t id)
{
	struct mlx5dv_dr_action *a = dr_action_new(type, id);

	if (!a)
		return NULL;
	a->dmn = dmn;
	pthread_mutex_lock(&dmn->mdev->steer_lock);
	dmn->actions++;
	pthread_mutex_unlock(&dmn->mdev->steer_lock);
	return a;
}

/*
 * A modify header context of @actions_sz bytes of PRM actions
 * (set_action_in / add_action_in, 8 bytes each). The device checks every
 * action (unknown types and fields are EINVAL from it); every table here is
 * a firmware table, so ROOT_LEVEL changes nothing.
 */
SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_modify_header(struct mlx5dv_dr_domain *dmn, uint32_t flags,
				      size_t actions_sz, __be64 actions[])
{
	struct mlx5dv_dr_action *a;
	uint16_t uid;
	uint32_t id;
	int ret;

	if (!dmn || !actions)
		return DR_FAIL_PTR(EINVAL, "no %s", dmn ? "actions" : "domain");
	if (flags & ~(uint32_t)MLX5DV_DR_ACTION_FLAGS_ROOT_LEVEL)
		return DR_FAIL_PTR(EINVAL, "flags 0x%x: unknown bits 0x%x", flags,
				   flags & ~(uint32_t)MLX5DV_DR_ACTION_FLAGS_ROOT_LEVEL);
	if (!actions_sz || actions_sz % 8)
		return DR_FAIL_PTR(EINVAL, "actions_sz %zu is not a positive "
				   "multiple of 8", actions_sz);
	if (dmn->ft_type != MLX5_FLOW_TABLE_TYPE_NIC_TX)
		return DR_FAIL_PTR(EOPNOTSUPP, "modify header on a NIC RX domain: "
				   "the device rewrites only frames it sends");
	uid = to_mctx(dmn->ctx)->uctx->uid;
	ret = mlx5_steer_mh_alloc(dmn->mdev, uid, dmn->ft_type, actions,
				  actions_sz / 8, &id);
	if (ret)
		return DR_FAIL_PTR(ret, "the device refused the %zu actions",
				   actions_sz / 8);
	a = dr_action_of_domain(dmn, DR_ACT_MODIFY, id);
	if (!a) {
		mlx5_steer_mh_free(dmn->mdev, uid, id);
		errno = ENOMEM;
		return NULL;
	}
	a->uid = uid;
	return a;
}

/* @vlan_hdr: TPID and TCI in network order, as the tag goes on the wire. */
SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_push_vlan(struct mlx5dv_dr_domain *dmn, __be32 vlan_hdr)
{
	uint32_t h = be32toh(vlan_hdr);

	if (!dmn)
		return DR_FAIL_PTR(EINVAL, "no domain");
	if (h >> 16 != 0x8100 && h >> 16 != 0x88a8)
		return DR_FAIL_PTR(EINVAL, "TPID 0x%04x is not 802.1Q (0x8100) or "
				   "802.1ad (0x88a8)", h >> 16);
	if (dmn->ft_type != MLX5_FLOW_TABLE_TYPE_NIC_TX)
		return DR_FAIL_PTR(EOPNOTSUPP, "push VLAN on a NIC RX domain: the "
				   "device rewrites only frames it sends");
	return dr_action_of_domain(dmn, DR_ACT_PUSH_VLAN, h);
}

/*
 * NIC TX, L2_TO_L2_TUNNEL: @data (an Ethernet header up to the device's
 * max_encap_header_size, e.g. Ethernet + IPv4 + UDP + VXLAN) goes in front
 * of every frame a rule with this action sends (a packet reformat context);
 * the device fixes the outer lengths and IPv4 checksum. NIC RX,
 * L2_TUNNEL_TO_L2 without data: the rule's VXLAN frames are delivered as
 * their inner frame. ROOT_LEVEL changes nothing (all tables are firmware
 * tables).
 */
SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_packet_reformat(struct mlx5dv_dr_domain *dmn, uint32_t flags,
					enum mlx5dv_flow_action_packet_reformat_type
						reformat_type,
					size_t data_sz, void *data)
{
	struct mlx5dv_dr_action *a;
	uint16_t uid;
	uint32_t id;
	size_t max;
	int ret;

	if (!dmn)
		return DR_FAIL_PTR(EINVAL, "no domain");
	if (flags & ~(uint32_t)MLX5DV_DR_ACTION_FLAGS_ROOT_LEVEL)
		return DR_FAIL_PTR(EINVAL, "flags 0x%x: unknown bits 0x%x", flags,
				   flags & ~(uint32_t)MLX5DV_DR_ACTION_FLAGS_ROOT_LEVEL);
	if (reformat_type == MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2) {
		if (dmn->ft_type != MLX5_FLOW_TABLE_TYPE_NIC_RX)
			return DR_FAIL_PTR(EINVAL, "decap on a NIC TX domain: the "
					   "device decapsulates what it receives");
		if (data || data_sz)
			return DR_FAIL_PTR(EINVAL, "decap takes no data (%zu bytes "
					   "given)", data_sz);
		return dr_action_of_domain(dmn, DR_ACT_DECAP, 0);
	}
	if (reformat_type != MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL)
		return DR_FAIL_PTR(EOPNOTSUPP, "reformat type %d: only L2_TO_L2_TUNNEL "
				   "(NIC TX) and L2_TUNNEL_TO_L2 (NIC RX)",
				   (int)reformat_type);
	if (dmn->ft_type != MLX5_FLOW_TABLE_TYPE_NIC_TX)
		return DR_FAIL_PTR(EINVAL, "encap on a NIC RX domain: the device "
				   "encapsulates what it sends");
	max = mlx5_steer_encap_max(dmn->mdev);
	if (!data || data_sz < STEER_ENCAP_MIN || data_sz > max)
		return DR_FAIL_PTR(EINVAL, "encap header of %zu bytes%s: an Ethernet "
				   "header (%d) up to max_encap_header_size (%zu)",
				   data_sz, data ? "" : " (no data)",
				   STEER_ENCAP_MIN, max);
	uid = to_mctx(dmn->ctx)->uctx->uid;
	ret = mlx5_steer_pr_alloc(dmn->mdev, uid, data, data_sz, &id);
	if (ret)
		return DR_FAIL_PTR(ret, "the device refused the %zu-byte encap "
				   "header", data_sz);
	a = dr_action_of_domain(dmn, DR_ACT_ENCAP, id);
	if (!a) {
		mlx5_steer_pr_free(dmn->mdev, uid, id);
		errno = ENOMEM;
		return NULL;
	}
	a->uid = uid;
	return a;
}

/* Removes the outer 802.1Q/802.1ad tag, if any: from the frame sent on
 * (NIC TX) or delivered (NIC RX). */
SMX_EXPORT struct mlx5dv_dr_action *mlx5dv_dr_action_create_pop_vlan(void)
{
	return dr_action_new(DR_ACT_POP_VLAN, 0);
}

/* NIC TX: on to the wire. NIC RX: steering ends as on a miss of the kernel
 * half's root: the frame reaches no queue. */
SMX_EXPORT struct mlx5dv_dr_action *mlx5dv_dr_action_create_default_miss(void)
{
	return dr_action_new(DR_ACT_DEFAULT_MISS, 0);
}

/* Domain-less actions (drop, tag, counter, pop VLAN, default miss) may
 * serve rules of several devices: their users are counted atomically, not
 * under one lock. */
SMX_EXPORT int mlx5dv_dr_action_destroy(struct mlx5dv_dr_action *a)
{
	struct mlx5_device *mdev;
	int ret;

	if (!a)
		return DR_FAIL_INT(EINVAL, "no action");
	if (__atomic_load_n(&a->refs, __ATOMIC_ACQUIRE))
		return DR_FAIL_INT(EBUSY, "%s action still used by %u rules",
				   dr_act_kind[a->type].name, a->refs);
	if (a->type == DR_ACT_MODIFY) {
		ret = mlx5_steer_mh_free(a->dmn->mdev, a->uid, a->id);
		if (ret)
			return DR_FAIL_INT(ret, "the device refused to free modify "
					   "header 0x%x", a->id);
	}
	if (a->type == DR_ACT_ENCAP) {
		ret = mlx5_steer_pr_free(a->dmn->mdev, a->uid, a->id);
		if (ret)
			return DR_FAIL_INT(ret, "the device refused to free packet "
					   "reformat 0x%x", a->id);
	}
	if (a->type == DR_ACT_TABLE) {
		mdev = a->tbl->dmn->mdev;
		pthread_mutex_lock(&mdev->steer_lock);
		a->tbl->refs--;
		pthread_mutex_unlock(&mdev->steer_lock);
	}
	if (a->dmn) {
		mdev = a->dmn->mdev;
		pthread_mutex_lock(&mdev->steer_lock);
		a->dmn->actions--;
		pthread_mutex_unlock(&mdev->steer_lock);
	}
	free(a);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Dumps                                                              */
/* ------------------------------------------------------------------ */

/*
 * A dump is text, one object per line, comma-separated key=value fields
 * after the record type and the object's handle; a domain's dump holds its
 * tables, a table's its matchers, a matcher's its rules (docs/status.md):
 *
 *   domain,0x..,type=nic_rx|nic_tx,tables=N
 *   table,0x..,domain=0x..,level=L,flow_table=0x..
 *   matcher,0x..,table=0x..,priority=P,criteria=0x..,mask=<hex, outer headers>
 *   rule,0x..,matcher=0x..,index=I,value=<hex>,actions=<kind[:id]>;...
 *
 * rdma-core's own dump format (for its steering dump parser) is not
 * reproduced: the device has no ICM steering entries to show.
 */
static void dr_hex(FILE *f, const uint8_t *b, size_t n)
{
	size_t i;

	while (n && !b[n - 1])
		n--;		/* trailing zero bytes say nothing */
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
	if (!n)
		fputc('0', f);
}

static void dr_dump_rule(FILE *f, const struct mlx5dv_dr_rule *r)
{
	size_t i;

	fprintf(f, "rule,%p,matcher=%p,index=%u,value=", (const void *)r,
		(const void *)r->m, r->index);
	dr_hex(f, r->val, MATCH_BYTES);
	fputs(",actions=", f);
	for (i = 0; i < r->nact; i++) {
		const struct mlx5dv_dr_action *a = r->act[i];

		fprintf(f, "%s%s", i ? ";" : "", dr_act_kind[a->type].dump);
		if (a->type == DR_ACT_TABLE)
			fprintf(f, ":%p", (const void *)a->tbl);
		else if (a->type != DR_ACT_DROP && a->type != DR_ACT_POP_VLAN &&
			 a->type != DR_ACT_DEFAULT_MISS && a->type != DR_ACT_DECAP)
			fprintf(f, ":0x%x", a->id);
	}
	fputc('\n', f);
}

static void dr_dump_matcher(FILE *f, const struct mlx5dv_dr_matcher *m)
{
	const struct mlx5dv_dr_rule *r;

	fprintf(f, "matcher,%p,table=%p,priority=%u,criteria=0x%x,mask=", (const void *)m,
		(const void *)m->tbl, m->prio, m->mce);
	dr_hex(f, m->crit, MATCH_BYTES);
	fputc('\n', f);
	for (r = m->rules; r; r = r->next)
		dr_dump_rule(f, r);
}

static void dr_dump_table(FILE *f, const struct mlx5dv_dr_table *t)
{
	const struct mlx5dv_dr_matcher *m;

	fprintf(f, "table,%p,domain=%p,level=%u,flow_table=0x%x\n", (const void *)t,
		(const void *)t->dmn, t->level, t->ft ? t->ft->id : 0);
	for (m = t->m_list; m; m = m->next)
		dr_dump_matcher(f, m);
}

/* Runs @fn on @obj of domain @dmn under the steering lock; 0 or errno. */
static int dr_dump(FILE *f, struct mlx5dv_dr_domain *dmn, const void *obj,
		   void (*fn)(FILE *, const void *))
{
	int ret = 0;

	pthread_mutex_lock(&dmn->mdev->steer_lock);
	clearerr(f);
	fn(f, obj);
	if (fflush(f) || ferror(f))
		ret = errno ? errno : EIO;
	pthread_mutex_unlock(&dmn->mdev->steer_lock);
	return ret ? DR_FAIL_INT(ret, "writing the dump failed") : 0;
}

static void dr_dump_domain_cb(FILE *f, const void *o)
{
	const struct mlx5dv_dr_domain *d = o;
	const struct mlx5dv_dr_table *t;

	fprintf(f, "domain,%p,type=%s,tables=%u\n", o,
		d->ft_type == MLX5_FLOW_TABLE_TYPE_NIC_TX ? "nic_tx" : "nic_rx",
		d->tables);
	for (t = d->tbl_list; t; t = t->next)
		dr_dump_table(f, t);
}

static void dr_dump_table_cb(FILE *f, const void *o) { dr_dump_table(f, o); }
static void dr_dump_matcher_cb(FILE *f, const void *o) { dr_dump_matcher(f, o); }
static void dr_dump_rule_cb(FILE *f, const void *o) { dr_dump_rule(f, o); }

SMX_EXPORT int mlx5dv_dump_dr_domain(FILE *fout, struct mlx5dv_dr_domain *domain)
{
	if (!fout || !domain)
		return DR_FAIL_INT(EINVAL, "no %s", fout ? "domain" : "file");
	return dr_dump(fout, domain, domain, dr_dump_domain_cb);
}

SMX_EXPORT int mlx5dv_dump_dr_table(FILE *fout, struct mlx5dv_dr_table *table)
{
	if (!fout || !table)
		return DR_FAIL_INT(EINVAL, "no %s", fout ? "table" : "file");
	return dr_dump(fout, table->dmn, table, dr_dump_table_cb);
}

SMX_EXPORT int mlx5dv_dump_dr_matcher(FILE *fout, struct mlx5dv_dr_matcher *matcher)
{
	if (!fout || !matcher)
		return DR_FAIL_INT(EINVAL, "no %s", fout ? "matcher" : "file");
	return dr_dump(fout, matcher->tbl->dmn, matcher, dr_dump_matcher_cb);
}

SMX_EXPORT int mlx5dv_dump_dr_rule(FILE *fout, struct mlx5dv_dr_rule *rule)
{
	if (!fout || !rule)
		return DR_FAIL_INT(EINVAL, "no %s", fout ? "rule" : "file");
	return dr_dump(fout, rule->m->tbl->dmn, rule, dr_dump_rule_cb);
}
