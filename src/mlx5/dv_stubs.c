/* SPDX-License-Identifier: MIT */
/*
 * libmlx5.so.1 entry points that softmlx5 does not implement yet. Every
 * function here is a stub listed in docs/status.md: it logs one line the
 * first time it is called (smx_stub(), util/log.h) and fails the way
 * rdma-core 44's own libmlx5 fails when the device or the context lacks the
 * feature, so callers (pyverbs turns EOPNOTSUPP into a skipped test) take
 * their "not supported" path.
 *
 * Each definition keeps the real prototype from <infiniband/mlx5dv.h>, so
 * the compiler checks it against the ABI header. When a feature lands its
 * stubs move out of this file and out of the stub list in docs/status.md.
 *
 * mlx5dv_is_supported, mlx5dv_open_device, mlx5dv_query_device and
 * mlx5dv_init_obj (both versions) live with the provider, not here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <infiniband/mlx5dv.h>

#include "util/log.h"
#include "util/symver.h"

/*
 * Stub bodies, one per failure convention of rdma-core 44:
 *   STUB_INT   returns the positive errno (the libmlx5 wrappers answer
 *              EOPNOTSUPP when the dv op is missing); errno set as well.
 *   STUB_NEG   returns -EOPNOTSUPP, for calls documented "-errno on error"
 *              or whose success value is a count or a file descriptor.
 *   STUB_M1    returns -1 with errno, for calls documented that way.
 *   STUB_PTR   returns NULL with errno.
 *   STUB_VOID  only logs.
 */
#define STUB_INT                                                               \
	{                                                                      \
		smx_stub(__func__);                                            \
		errno = EOPNOTSUPP;                                            \
		return EOPNOTSUPP;                                             \
	}
#define STUB_NEG                                                               \
	{                                                                      \
		smx_stub(__func__);                                            \
		errno = EOPNOTSUPP;                                            \
		return -EOPNOTSUPP;                                            \
	}
#define STUB_M1                                                                \
	{                                                                      \
		smx_stub(__func__);                                            \
		errno = EOPNOTSUPP;                                            \
		return -1;                                                     \
	}
#define STUB_PTR                                                               \
	{                                                                      \
		smx_stub(__func__);                                            \
		errno = EOPNOTSUPP;                                            \
		return NULL;                                                   \
	}
#define STUB_VOID                                                              \
	{                                                                      \
		smx_stub(__func__);                                            \
	}

/* dv CQ/QP/WQ creation -- issue: mlx5dv extensions */

SMX_EXPORT struct ibv_wq *
mlx5dv_create_wq(struct ibv_context *context,
		 struct ibv_wq_init_attr *wq_init_attr,
		 struct mlx5dv_wq_init_attr *mlx5_wq_attr) STUB_PTR


/* device memory operations (MEMIC atomic ops) -- issue: mlx5dv extensions */

SMX_EXPORT void *mlx5dv_dm_map_op_addr(struct ibv_dm *dm, uint8_t op) STUB_PTR

/* QP attributes -- issue: mlx5dv extensions */


SMX_EXPORT int mlx5dv_modify_qp_lag_port(struct ibv_qp *qp,
					 uint8_t port_num) STUB_INT

SMX_EXPORT int mlx5dv_query_qp_lag_port(struct ibv_qp *qp, uint8_t *port_num,
					uint8_t *active_port_num) STUB_INT


/* VAR -- issue: mlx5dv extensions */

SMX_EXPORT struct mlx5dv_var *mlx5dv_alloc_var(struct ibv_context *context,
					       uint32_t flags) STUB_PTR

SMX_EXPORT void mlx5dv_free_var(struct mlx5dv_var *dv_var) STUB_VOID


/* crypto login objects and DEKs: src/mlx5/crypto.c */

/* DEVX (commands, objects, UMEM, UAR, EQ, MSI, events): src/mlx5/devx.c */

/* flow steering, dv flow API -- not planned yet */

SMX_EXPORT struct ibv_flow_action *
mlx5dv_create_flow_action_esp(struct ibv_context *ctx,
			      struct ibv_flow_action_esp_attr *esp,
			      struct mlx5dv_flow_action_esp *mlx5_attr) STUB_PTR

SMX_EXPORT struct ibv_flow_action *
mlx5dv_create_flow_action_modify_header(struct ibv_context *ctx,
					size_t actions_sz, uint64_t actions[],
					enum mlx5dv_flow_table_type ft_type)
	STUB_PTR

SMX_EXPORT struct mlx5dv_steering_anchor *
mlx5dv_create_steering_anchor(struct ibv_context *context,
			      struct mlx5dv_steering_anchor_attr *attr) STUB_PTR

SMX_EXPORT int
mlx5dv_destroy_steering_anchor(struct mlx5dv_steering_anchor *sa) STUB_INT

/* DR, direct rule steering: what src/mlx5/dr.c does not implement */

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_root_table(struct mlx5dv_dr_table *table,
					uint16_t priority) STUB_PTR

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_vport(struct mlx5dv_dr_domain *domain,
				   uint32_t vport) STUB_PTR

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_ib_port(struct mlx5dv_dr_domain *domain,
				     uint32_t ib_port) STUB_PTR

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_dest_array(struct mlx5dv_dr_domain *domain,
				   size_t num_dest,
				   struct mlx5dv_dr_action_dest_attr *dests[])
	STUB_PTR

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_flow_meter(struct mlx5dv_dr_flow_meter_attr *attr)
	STUB_PTR

SMX_EXPORT int
mlx5dv_dr_action_modify_flow_meter(struct mlx5dv_dr_action *action,
				   struct mlx5dv_dr_flow_meter_attr *attr,
				   __be64 modify_field_select) STUB_INT

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_flow_sampler(struct mlx5dv_dr_flow_sampler_attr *attr)
	STUB_PTR

SMX_EXPORT struct mlx5dv_dr_action *
mlx5dv_dr_action_create_aso(struct mlx5dv_dr_domain *domain,
			    struct mlx5dv_devx_obj *devx_obj, uint32_t offset,
			    uint32_t flags, uint8_t return_reg_c) STUB_PTR

SMX_EXPORT int mlx5dv_dr_action_modify_aso(struct mlx5dv_dr_action *action,
					   uint32_t offset, uint32_t flags,
					   uint8_t return_reg_c) STUB_INT

SMX_EXPORT int
mlx5dv_dr_aso_other_domain_link(struct mlx5dv_devx_obj *devx_obj,
				struct mlx5dv_dr_domain *peer_dmn,
				struct mlx5dv_dr_domain *dmn, uint32_t flags,
				uint8_t return_reg_c) STUB_INT

SMX_EXPORT int
mlx5dv_dr_aso_other_domain_unlink(struct mlx5dv_devx_obj *devx_obj,
				  struct mlx5dv_dr_domain *dmn) STUB_INT

/* VFIO, user-space PCI driver mode -- not planned yet */

SMX_EXPORT struct ibv_device **
mlx5dv_get_vfio_device_list(struct mlx5dv_vfio_context_attr *attr) STUB_PTR

/* Returns a file descriptor; pyverbs reads a negative value as -errno. */
SMX_EXPORT int mlx5dv_vfio_get_events_fd(struct ibv_context *ibctx) STUB_NEG

SMX_EXPORT int mlx5dv_vfio_process_events(struct ibv_context *context) STUB_INT
