/* SPDX-License-Identifier: MIT */
/*
 * DEVX inside libmlx5 (src/mlx5/devx.c): what the rest of the provider needs
 * to know about it. The public API is <infiniband/mlx5dv.h>.
 *
 * Return conventions (rdma-core 44 over a Linux >= 5.19 kernel, whose devx.c
 * copies the firmware's answer back and fails with EREMOTEIO):
 *   general_cmd / obj_query / obj_modify / *_query / *_modify return 0 when
 *   the device executed the command with status OK; EREMOTEIO when it answered
 *   with a bad status (status and syndrome are then in the caller's out
 *   mailbox); another errno when the command never reached the device.
 *   obj_create returns NULL with errno, EREMOTEIO meaning "status and syndrome
 *   are in out".
 * Every context has a DEVX uid, as rdma-core >= 29 asks for one whether or
 * not MLX5DV_CONTEXT_FLAGS_DEVX is given (mlx5.c). A context without one
 * (kept in devx.c for the kernel's semantics) would fail every object /
 * umem / subscription call with EINVAL, as the kernel's devx_get_uid()
 * answers, and still run the three whitelisted general commands
 * (QUERY_HCA_CAP, QUERY_HCA_VPORT_CONTEXT, QUERY_ESW_VPORT_CONTEXT).
 */
#ifndef SMX_MLX5_DEVX_H
#define SMX_MLX5_DEVX_H

#include <stdint.h>

struct mlx5_context;

/*
 * Context close: destroys every DEVX object, umem, UAR, EQ, MSI vector,
 * command-completion and event channel @ctx still owns (the kernel does the
 * same for a ucontext whose file is closed). Objects go newest first; one
 * that the device refuses to destroy (still referenced) is retried after the
 * others, and its memory freed anyway at the end.
 */
void mlx5_devx_context_cleanup(struct mlx5_context *ctx);

/*
 * Event delivery for DEVX subscriptions: called with each EQE (64 bytes) the
 * provider's EQs consume, from the interrupt handler (it only writes fds).
 * Completion EQEs (type 0) go to subscriptions of event 0 on the CQ object
 * whose number the EQE carries; QP/SRQ/CQ-error events to subscriptions on the
 * matching object; other types to unaffiliated subscriptions. Returns the
 * number of subscriptions the event was delivered to.
 */
int mlx5_devx_event(const void *eqe);

#endif
