/* SPDX-License-Identifier: MIT */
/*
 * NIC receive and transmit steering inside libmlx5 (src/mlx5/flow.c): flow
 * tables, flow groups, flow table entries and modify header contexts, each
 * made by its PRM command. Shared by ibv_create_flow and the mlx5dv flow
 * API (flow.c, NIC RX) and by mlx5dv_dr (dr.c, NIC RX and NIC TX).
 *
 * A table's 2^16 flow indexes are cut in ranges of STEER_FG_SIZE; a group
 * takes one range. The device tries entries in flow index order, so a
 * group's range decides its precedence: groups of a lower priority value sit
 * below those of a higher one (steer_range_pick). Every function here
 * expects mdev->steer_lock held.
 */
#ifndef SMX_MLX5_STEER_H
#define SMX_MLX5_STEER_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>

struct mlx5_device;

#define STEER_LOG_SIZE 16
#define STEER_FG_SIZE 64
#define STEER_NRANGES ((1u << STEER_LOG_SIZE) / STEER_FG_SIZE)
#define STEER_MATCH_BYTES 64		/* fte_match_set_lyr_2_4 */
#define STEER_PARAM_BYTES 0x200		/* fte_match_param */

struct mlx5_steer_fg {
	struct mlx5_steer_fg *next;
	uint8_t crit[STEER_MATCH_BYTES] __attribute__((aligned(8)));
	uint32_t id, range;
	uint32_t used;
	uint64_t map;		/* STEER_FG_SIZE indexes in use */
	uint16_t prio;
	const void *owner;	/* a DR matcher's own groups; NULL: shared */
};

struct mlx5_steer_ft {
	struct mlx5_device *mdev;
	uint16_t uid;		/* 0: the kernel half's root; else a context's */
	uint8_t type;		/* MLX5_FLOW_TABLE_TYPE_NIC_RX / _NIC_TX */
	uint32_t id, level;
	struct mlx5_steer_fg *groups;
	uint8_t range_used[STEER_NRANGES];
};

/* What one flow table entry does: drop, allow (NIC TX: on to the wire;
 * NIC RX: as a miss) or forward to dest_type/dest_id; NIC TX rewrites. */
struct mlx5_steer_rule {
	const uint8_t *val;		/* STEER_MATCH_BYTES, outer headers */
	uint32_t tag;
	bool drop;
	bool allow;
	bool pop_vlan;
	bool push_vlan;
	uint32_t vlan_hdr;		/* TPID << 16 | TCI, with push_vlan */
	bool mod_hdr;
	uint32_t mod_hdr_id;
	bool reformat;			/* NIC TX: encap with reformat_id */
	uint32_t reformat_id;
	bool decap;			/* NIC RX: VXLAN decap */
	uint8_t dest_type;		/* MLX5_FLOW_DESTINATION_TYPE_*, with !drop */
	uint32_t dest_id;
	bool count;
	uint32_t counter;
};

/* The device's root table of @type (MLX5_FLOW_TABLE_TYPE_NIC_RX or _TX),
 * made (and made the root) on first use. */
int mlx5_steer_root(struct mlx5_device *mdev, uint8_t type, struct mlx5_steer_ft **ft);
/* A table of @type and @level made with @uid (not the root). */
int mlx5_steer_ft_create(struct mlx5_device *mdev, uint16_t uid, uint8_t type,
			 uint32_t level, struct mlx5_steer_ft **ft);
int mlx5_steer_ft_destroy(struct mlx5_steer_ft *ft);
/*
 * A group of @owner with these criteria, @prio and a free index: an existing
 * one, or a new one (CREATE_FLOW_GROUP). @crit NULL: match everything.
 */
struct mlx5_steer_fg *mlx5_steer_fg_get(struct mlx5_steer_ft *ft, const uint8_t *crit,
					uint16_t prio, const void *owner, int *err);
/* An empty shared group is destroyed; owned groups stay (fg_destroy). */
void mlx5_steer_fg_put(struct mlx5_steer_ft *ft, struct mlx5_steer_fg *g);
int mlx5_steer_fg_destroy(struct mlx5_steer_ft *ft, struct mlx5_steer_fg *g);
/* An entry in @g (SET_FLOW_TABLE_ENTRY); its flow index in *index. */
int mlx5_steer_fte_add(struct mlx5_steer_ft *ft, struct mlx5_steer_fg *g,
		       const struct mlx5_steer_rule *r, uint32_t *index);
int mlx5_steer_fte_del(struct mlx5_steer_ft *ft, struct mlx5_steer_fg *g,
		       uint32_t index);
/* ALLOC_MODIFY_HEADER_CONTEXT of @n PRM actions (8 bytes each) for tables
 * of @type; DEALLOC_MODIFY_HEADER_CONTEXT. 0 or an errno. */
int mlx5_steer_mh_alloc(struct mlx5_device *mdev, uint16_t uid, uint8_t type,
			const __be64 *actions, size_t n, uint32_t *id);
int mlx5_steer_mh_free(struct mlx5_device *mdev, uint16_t uid, uint32_t id);
/* ALLOC_PACKET_REFORMAT_CONTEXT of type L2_TO_L2_TUNNEL with the @n header
 * bytes @data; DEALLOC_PACKET_REFORMAT_CONTEXT. 0 or an errno. */
int mlx5_steer_pr_alloc(struct mlx5_device *mdev, uint16_t uid,
			const void *data, size_t n, uint32_t *id);
int mlx5_steer_pr_free(struct mlx5_device *mdev, uint16_t uid, uint32_t id);
/* The header sizes an L2_TO_L2_TUNNEL encap takes: an Ethernet header up
 * to the device's max_encap_header_size (0 when the device does not
 * encapsulate, or its caps cannot be read). */
#define STEER_ENCAP_MIN 14
size_t mlx5_steer_encap_max(struct mlx5_device *mdev);

/*
 * Parameters shared by the flow APIs (0 or an errno): the outer-header bytes
 * of a match buffer (EINVAL past fte_match_param, EOPNOTSUPP for bits past
 * the outer headers); a raw packet QP's TIR, or a DEVX TIR or flow table, as
 * the rule's destination; a DEVX flow counter's id plus @offset.
 */
int mlx5_steer_match_outer(const struct mlx5dv_flow_match_parameters *p,
			   uint8_t out[STEER_MATCH_BYTES]);
int mlx5_steer_dest_qp(struct ibv_qp *qp, struct mlx5_steer_rule *r);
int mlx5_steer_dest_devx(const struct mlx5dv_devx_obj *obj, struct mlx5_steer_rule *r);
int mlx5_steer_counter_devx(const struct mlx5dv_devx_obj *obj, uint32_t offset,
			    uint32_t *id);

#endif
