/* SPDX-License-Identifier: MIT */
/*
 * Issuing PRM commands: stamp the caller's DEVX uid into the input header (as
 * the kernel does for a ucontext), hand the mailboxes to the device, and turn
 * a failed status into the errno the kernel's mlx5 driver would return.
 */
#include <errno.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

static int cmd_status_to_errno(unsigned int status)
{
	switch (status) {
	case MLX5_CMD_STAT_OK: return 0;
	case MLX5_CMD_STAT_BAD_OP_ERR:
	case MLX5_CMD_STAT_BAD_PARAM_ERR:
	case MLX5_CMD_STAT_BAD_RES_ERR:
	case MLX5_CMD_STAT_BAD_RES_STATE_ERR:
	case MLX5_CMD_STAT_IX_ERR:
	case MLX5_CMD_STAT_BAD_QP_STATE_ERR:
	case MLX5_CMD_STAT_BAD_PKT_ERR:
	case MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR:
		return EINVAL;
	case MLX5_CMD_STAT_RES_BUSY: return EBUSY;
	case MLX5_CMD_STAT_LIM_ERR: return ENOMEM;
	case MLX5_CMD_STAT_NO_RES_ERR: return EAGAIN;
	default: return EIO;
	}
}

int mlx5_cmd_exec_hca(struct smx_dev *hca, uint16_t uid, void *in, size_t inlen,
		      void *out, size_t outlen)
{
	unsigned int status;
	int ret;

	DEVX_SET(mbox_in, in, uid, uid);
	ret = smx_dev_cmd(hca, in, inlen, out, outlen);
	if (ret)
		return -ret;
	status = DEVX_GET(mbox_out, out, status);
	if (status) {
		smx_dbg("mlx5: command 0x%x op_mod 0x%x failed: %s (0x%x), syndrome 0x%x",
			DEVX_GET(mbox_in, in, opcode), DEVX_GET(mbox_in, in, op_mod),
			smx_prm_status_str(status), status,
			DEVX_GET(mbox_out, out, syndrome));
		return cmd_status_to_errno(status);
	}
	return 0;
}

int mlx5_cmd_exec(struct mlx5_context *ctx, void *in, size_t inlen, void *out,
		  size_t outlen)
{
	return mlx5_cmd_exec_hca(ctx->hca, ctx->uctx->uid, in, inlen, out, outlen);
}

int mlx5_query_hca_cap(struct smx_dev *hca, uint16_t cap_type, void *cap, size_t len)
{
	uint32_t in[DEVX_ST_SZ_DW(query_hca_cap_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_hca_cap_out)] = {};
	int ret;

	DEVX_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	DEVX_SET(query_hca_cap_in, in, op_mod, (cap_type << 1) | HCA_CAP_OPMOD_GET_CUR);
	ret = mlx5_cmd_exec_hca(hca, 0, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	memcpy(cap, DEVX_ADDR_OF(query_hca_cap_out, out, capability),
	       len < DEVX_FLD_SZ_BYTES(query_hca_cap_out, capability)
		       ? len
		       : DEVX_FLD_SZ_BYTES(query_hca_cap_out, capability));
	return 0;
}

int mlx5_genobj_destroy(struct mlx5_context *ctx, uint16_t obj_type,
			uint32_t obj_id)
{
	uint32_t in[DEVX_ST_SZ_DW(general_obj_in_cmd_hdr)] = {};
	uint32_t out[DEVX_ST_SZ_DW(general_obj_out_cmd_hdr)] = {};

	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type, obj_type);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_id, obj_id);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}
