/* SPDX-License-Identifier: MIT */
/*
 * Completion event queues. On real hardware the kernel creates one EQ per
 * completion vector when the device comes up and every CQ names one (c_eqn);
 * our provider plays the kernel, so the device (struct mlx5_device) owns them,
 * created with uid 0 on first use and shared by all contexts of the process.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

#define MLX5_EQ_LOG_SIZE 10	/* 1024 EQEs of 64 bytes */
#define MLX5_EQE_SIZE 64

static pthread_mutex_t eq_lock = PTHREAD_MUTEX_INITIALIZER;

static int eq_create(struct mlx5_device *mdev, struct mlx5_eq *eq, uint32_t uar_page)
{
	uint32_t out[DEVX_ST_SZ_DW(create_eq_out)] = {};
	size_t inlen, n, i;
	uint32_t *in;
	void *eqc;
	int ret;

	ret = mlx5_buf_alloc(&eq->buf, MLX5_EQE_SIZE << MLX5_EQ_LOG_SIZE);
	if (ret)
		return ret;
	/* EQEs start owned by hardware: owner bit set (PRM). */
	for (i = 0; i < (1u << MLX5_EQ_LOG_SIZE); i++)
		((uint8_t *)eq->buf.addr)[i * MLX5_EQE_SIZE + 63] = 1;
	n = mlx5_buf_npages(&eq->buf);
	inlen = DEVX_ST_SZ_BYTES(create_eq_in) + n * sizeof(__be64);
	in = calloc(1, inlen);
	if (!in) {
		mlx5_buf_free(&eq->buf);
		return ENOMEM;
	}
	DEVX_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	eqc = DEVX_ADDR_OF(create_eq_in, in, eq_context_entry);
	DEVX_SET(eqc, eqc, log_eq_size, MLX5_EQ_LOG_SIZE);
	DEVX_SET(eqc, eqc, uar_page, uar_page);
	DEVX_SET(eqc, eqc, intr, eq->vector);
	DEVX_SET(eqc, eqc, log_page_size, 0);
	/* Event type 0x00 is "completion event"; bit N of the mask enables type N. */
	DEVX_SET64(create_eq_in, in, event_bitmask[0], 1ull << 0);
	mlx5_buf_fill_pas(&eq->buf, (__be64 *)DEVX_ADDR_OF(create_eq_in, in, pas));
	ret = mlx5_cmd_exec_hca(mdev->hca, 0, in, inlen, out, sizeof(out));
	free(in);
	if (ret) {
		mlx5_buf_free(&eq->buf);
		return ret;
	}
	eq->eqn = DEVX_GET(create_eq_out, out, eq_number);
	return 0;
}

/* EQ number serving completion vector @vector, creating the EQs on first use. */
int mlx5_comp_eqn(struct mlx5_context *ctx, int vector, uint32_t *eqn)
{
	struct mlx5_device *mdev = to_mdev(ctx->ibv_ctx.context.device);
	int nvec = ctx->ibv_ctx.context.num_comp_vectors;
	int ret = 0, i;

	if (vector < 0 || vector >= nvec || vector >= MLX5_MAX_COMP_EQS)
		return EINVAL;
	pthread_mutex_lock(&eq_lock);
	if (!mdev->eq_uar_valid) {
		/* The EQs' doorbell page belongs to the device, not a context. */
		uint32_t in[DEVX_ST_SZ_DW(alloc_uar_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(alloc_uar_out)] = {};

		DEVX_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
		ret = mlx5_cmd_exec_hca(mdev->hca, 0, in, sizeof(in), out, sizeof(out));
		if (ret) {
			pthread_mutex_unlock(&eq_lock);
			return ret;
		}
		mdev->eq_uar = DEVX_GET(alloc_uar_out, out, uar);
		mdev->eq_uar_valid = true;
	}
	for (i = mdev->num_eqs; i < nvec && i < MLX5_MAX_COMP_EQS; i++) {
		mdev->eqs[i].vector = (uint32_t)i;
		ret = eq_create(mdev, &mdev->eqs[i], mdev->eq_uar);
		if (ret)
			break;
		mdev->num_eqs = i + 1;
	}
	if (vector < mdev->num_eqs)
		*eqn = mdev->eqs[vector].eqn;
	else if (!ret)
		ret = EINVAL;
	pthread_mutex_unlock(&eq_lock);
	return ret;
}
