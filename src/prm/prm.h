/* SPDX-License-Identifier: MIT */
/*
 * Umbrella header for the PRM: control-path layouts (mlx5_ifc.h), constants
 * (prm_defs.h) and the DEVX_SET/GET accessors from rdma-core's mlx5dv.h.
 */
#ifndef SMX_PRM_PRM_H
#define SMX_PRM_PRM_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>

#include "prm/mlx5_ifc.h"
#include "prm/prm_defs.h"
#include "prm/prm_sig.h"

/* Bytes of the fixed part of an input/output mailbox. */
#define SMX_PRM_HDR_BYTES 16

/* Name of a command status, for logs. */
static inline const char *smx_prm_status_str(unsigned int status)
{
	switch (status) {
	case MLX5_CMD_STAT_OK: return "OK";
	case MLX5_CMD_STAT_INT_ERR: return "internal error";
	case MLX5_CMD_STAT_BAD_OP_ERR: return "bad operation";
	case MLX5_CMD_STAT_BAD_PARAM_ERR: return "bad parameter";
	case MLX5_CMD_STAT_BAD_SYS_STATE_ERR: return "bad system state";
	case MLX5_CMD_STAT_BAD_RES_ERR: return "bad resource";
	case MLX5_CMD_STAT_RES_BUSY: return "resource busy";
	case MLX5_CMD_STAT_LIM_ERR: return "limits exceeded";
	case MLX5_CMD_STAT_BAD_RES_STATE_ERR: return "bad resource state";
	case MLX5_CMD_STAT_IX_ERR: return "bad index";
	case MLX5_CMD_STAT_NO_RES_ERR: return "no resources";
	case MLX5_CMD_STAT_BAD_QP_STATE_ERR: return "bad QP state";
	case MLX5_CMD_STAT_BAD_PKT_ERR: return "bad packet";
	case MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR: return "bad size, too many outstanding CQEs";
	case MLX5_CMD_STAT_BAD_INP_LEN_ERR: return "bad input length";
	case MLX5_CMD_STAT_BAD_OUTP_LEN_ERR: return "bad output length";
	default: return "unknown status";
	}
}

#endif
