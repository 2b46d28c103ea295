/* SPDX-License-Identifier: MIT */
/*
 * The kernel half's UMR QP: a REG_UMR QP created with uid 0 on first use,
 * through which memory regions are re-registered in place (the key stays,
 * as ibv_rereg_mr users rely on) -- new PD, range, rights and page list
 * carried by one UMR WQE, executed by the device and completed on a private
 * CQ that is polled synchronously.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

#define UMR_LOG_SQ 4		/* 16 WQEBBs: one UMR at a time */
#define UMR_CQE 8
#define UMR_MKEY_MASK_PD (1ull << 7)
#define UMR_KLM_OFF (16 + 48 + 64)

static pthread_mutex_t umr_lock = PTHREAD_MUTEX_INITIALIZER;

static int umr_modify(struct mlx5_device *mdev, uint16_t op, uint32_t qpn)
{
	uint32_t in[DEVX_ST_SZ_DW(modify_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(modify_qp_out)] = {};

	DEVX_SET(modify_qp_in, in, opcode, op);
	DEVX_SET(modify_qp_in, in, qpn, qpn);
	DEVX_SET(modify_qp_in, in, qpc.primary_address_path.vhca_port_num, 1);
	return mlx5_cmd_exec_hca(mdev->hca, 0, in, sizeof(in), out, sizeof(out));
}

/* Creates the UMR PD, CQ and REG_UMR QP (all uid 0) and brings it to RTS. */
static int umr_make(struct mlx5_context *ctx, struct mlx5_umr *u)
{
	struct mlx5_device *mdev = to_mdev(ctx->ibv_ctx.context.device);
	uint32_t pin[DEVX_ST_SZ_DW(alloc_pd_in)] = {};
	uint32_t pout[DEVX_ST_SZ_DW(alloc_pd_out)] = {};
	uint32_t cout[DEVX_ST_SZ_DW(create_cq_out)] = {};
	uint32_t qout[DEVX_ST_SZ_DW(create_qp_out)] = {};
	uint32_t eqn, i, *in;
	size_t inlen;
	void *c;
	int ret;

	ret = mlx5_comp_eqn(ctx, 0, &eqn);	/* also gives mdev->eq_uar */
	if (ret)
		return ret;
	DEVX_SET(alloc_pd_in, pin, opcode, MLX5_CMD_OP_ALLOC_PD);
	ret = mlx5_cmd_exec_hca(mdev->hca, 0, pin, sizeof(pin), pout, sizeof(pout));
	if (ret)
		return ret;
	u->pdn = DEVX_GET(alloc_pd_out, pout, pd);

	if (mlx5_buf_alloc(&u->cqbuf, UMR_CQE * 64) || mlx5_buf_alloc(&u->sqbuf,
			   (1u << UMR_LOG_SQ) * MLX5_SEND_WQE_BB) ||
	    !(u->cqdb = mlx5_dbrec_alloc()) || !(u->qpdb = mlx5_dbrec_alloc()))
		return ENOMEM;
	for (i = 0; i < UMR_CQE; i++)
		((struct mlx5_cqe64 *)u->cqbuf.addr)[i].op_own = MLX5_CQE_INVALID << 4;

	inlen = DEVX_ST_SZ_BYTES(create_cq_in) + mlx5_buf_npages(&u->cqbuf) * 8;
	in = calloc(1, inlen);
	if (!in)
		return ENOMEM;
	DEVX_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	c = DEVX_ADDR_OF(create_cq_in, in, cq_context);
	DEVX_SET(cqc, c, log_cq_size, 3);
	DEVX_SET(cqc, c, uar_page, mdev->eq_uar);
	DEVX_SET(cqc, c, c_eqn, eqn);
	DEVX_SET64(cqc, c, dbr_addr, (uint64_t)(uintptr_t)u->cqdb);
	mlx5_buf_fill_pas(&u->cqbuf, (__be64 *)DEVX_ADDR_OF(create_cq_in, in, pas));
	ret = mlx5_cmd_exec_hca(mdev->hca, 0, in, inlen, cout, sizeof(cout));
	free(in);
	if (ret)
		return ret;
	u->cqn = DEVX_GET(create_cq_out, cout, cqn);

	inlen = DEVX_ST_SZ_BYTES(create_qp_in) + mlx5_buf_npages(&u->sqbuf) * 8;
	in = calloc(1, inlen);
	if (!in)
		return ENOMEM;
	DEVX_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	c = DEVX_ADDR_OF(create_qp_in, in, qpc);
	DEVX_SET(qpc, c, st, MLX5_QPC_ST_REG_UMR);
	DEVX_SET(qpc, c, pm_state, 3);
	DEVX_SET(qpc, c, pd, u->pdn);
	DEVX_SET(qpc, c, uar_page, mdev->eq_uar);
	DEVX_SET(qpc, c, log_sq_size, UMR_LOG_SQ);
	DEVX_SET(qpc, c, rq_type, MLX5_QPC_RQ_TYPE_ZERO_SIZE_RQ);
	DEVX_SET(qpc, c, cqn_snd, u->cqn);
	DEVX_SET(qpc, c, cqn_rcv, u->cqn);
	DEVX_SET64(qpc, c, dbr_addr, (uint64_t)(uintptr_t)u->qpdb);
	mlx5_buf_fill_pas(&u->sqbuf, (__be64 *)DEVX_ADDR_OF(create_qp_in, in, pas));
	ret = mlx5_cmd_exec_hca(mdev->hca, 0, in, inlen, qout, sizeof(qout));
	free(in);
	if (ret)
		return ret;
	u->qpn = DEVX_GET(create_qp_out, qout, qpn);
	ret = umr_modify(mdev, MLX5_CMD_OP_RST2INIT_QP, u->qpn);
	if (!ret)
		ret = umr_modify(mdev, MLX5_CMD_OP_INIT2RTR_QP, u->qpn);
	if (!ret)
		ret = umr_modify(mdev, MLX5_CMD_OP_RTR2RTS_QP, u->qpn);
	if (!ret)
		u->ready = true;
	return ret;
}

/* Destroys what umr_make() made, all of it or as far as it got (the
 * device never numbers a PD, CQ or QP 0). The rings are written only while
 * a UMR is posted, under umr_lock: free to go once the QP is. */
static void umr_destroy(struct mlx5_device *mdev, struct mlx5_umr *u)
{
	/* one 0x80-byte mailbox fits the three commands */
	uint32_t in[DEVX_ST_SZ_DW(destroy_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	if (u->qpn) {
		DEVX_SET(destroy_qp_in, in, opcode, MLX5_CMD_OP_DESTROY_QP);
		DEVX_SET(destroy_qp_in, in, qpn, u->qpn);
		mlx5_cmd_exec_hca(mdev->hca, 0, in, sizeof(in), out, sizeof(out));
	}
	if (u->cqn) {
		memset(in, 0, sizeof(in));
		DEVX_SET(destroy_cq_in, in, opcode, MLX5_CMD_OP_DESTROY_CQ);
		DEVX_SET(destroy_cq_in, in, cqn, u->cqn);
		mlx5_cmd_exec_hca(mdev->hca, 0, in, sizeof(in), out, sizeof(out));
	}
	if (u->pdn) {
		memset(in, 0, sizeof(in));
		DEVX_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
		DEVX_SET(dealloc_pd_in, in, pd, u->pdn);
		mlx5_cmd_exec_hca(mdev->hca, 0, in, sizeof(in), out, sizeof(out));
	}
	mlx5_buf_free(&u->cqbuf);
	mlx5_buf_free(&u->sqbuf);
	mlx5_dbrec_free(u->cqdb);
	mlx5_dbrec_free(u->qpdb);
	memset(u, 0, sizeof(*u));
}

/* umr_make(), leaving nothing behind when it fails (a later call tries
 * again from scratch). */
static int umr_setup(struct mlx5_context *ctx, struct mlx5_umr *u)
{
	int ret = umr_make(ctx, u);

	if (ret)
		umr_destroy(to_mdev(ctx->ibv_ctx.context.device), u);
	return ret;
}

void mlx5_umr_free(struct mlx5_device *mdev)
{
	pthread_mutex_lock(&umr_lock);
	umr_destroy(mdev, &mdev->umr);
	pthread_mutex_unlock(&umr_lock);
}

/* Posts one UMR WQE and waits for its completion: 0, or EIO with the
 * error CQE's syndrome logged under SOFTMLX5_DEBUG. */
static int umr_post(struct mlx5_device *mdev, struct mlx5_umr *u, const uint8_t *wqe,
		    uint32_t bytes)
{
	uint32_t nbb = (bytes + 63) / 64, i, pos;
	struct mlx5_wqe_ctrl_seg ctrl;
	struct mlx5_cqe64 *cqe;
	struct timespec t0, t;
	uint64_t val;

	for (i = 0; i < nbb; i++) {
		pos = (u->sq_pi + i) & ((1u << UMR_LOG_SQ) - 1);
		memcpy((uint8_t *)u->sqbuf.addr + pos * 64, wqe + i * 64,
		       bytes - i * 64 < 64 ? bytes - i * 64 : 64);
	}
	memcpy(&ctrl, wqe, sizeof(ctrl));
	u->sq_pi += nbb;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	u->qpdb[MLX5_SND_DBR] = htobe32(u->sq_pi & 0xffff);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&val, &ctrl, sizeof(val));
	smx_dev_mmio_write64(mdev->hca, (uint64_t)mdev->eq_uar * MLX5_ADAPTER_PAGE_SIZE + 0x800,
			     val);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cqe = (struct mlx5_cqe64 *)u->cqbuf.addr + (u->cq_ci & (UMR_CQE - 1));
	for (;;) {
		uint8_t own = __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);

		if ((own >> 4) != MLX5_CQE_INVALID &&
		    !((own & 1) ^ !!(u->cq_ci & UMR_CQE)))
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 2)
			return ETIMEDOUT;
	}
	u->cq_ci++;
	u->cqdb[0] = htobe32(u->cq_ci & 0xffffff);
	if (mlx5dv_get_cqe_opcode(cqe) != MLX5_CQE_REQ) {
		smx_dbg("umr: re-registration WQE failed, syndrome 0x%x",
			((struct mlx5_err_cqe *)cqe)->syndrome);
		return EIO;
	}
	return 0;
}

int mlx5_umr_rereg(struct mlx5_context *ctx, uint32_t key, const struct mlx5_umr_rereg *r)
{
	struct mlx5_device *mdev = to_mdev(ctx->ibv_ctx.context.device);
	uint8_t wqe[1024] __attribute__((aligned(64)));
	struct mlx5_wqe_ctrl_seg *c = (void *)wqe;
	struct mlx5_wqe_umr_ctrl_seg *uc = (void *)(wqe + 16);
	struct mlx5_wqe_mkey_context_seg *mc = (void *)(wqe + 64);
	uint32_t octw = (r->nmtt + 1) / 2, bytes, i;
	uint64_t mask = 0;
	int ret = 0;

	if (UMR_KLM_OFF + octw * 16 > 63 * 16)
		return E2BIG;	/* too many pages for one inline UMR */
	pthread_mutex_lock(&umr_lock);
	if (!mdev->umr.ready)
		ret = umr_setup(ctx, &mdev->umr);
	if (ret)
		goto out;
	memset(wqe, 0, sizeof(wqe));
	bytes = UMR_KLM_OFF + octw * 16;
	c->opmod_idx_opcode = htobe32((mdev->umr.sq_pi & 0xffff) << 8 | MLX5_OPCODE_UMR);
	c->qpn_ds = htobe32(mdev->umr.qpn << 8 | bytes / 16);
	c->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	c->imm = htobe32(key);
	if (r->set_pd) {
		mask |= UMR_MKEY_MASK_PD;
		mc->flags_pd = htobe32(r->pdn);
	}
	if (r->set_access) {
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
		mc->access_flags =
			(r->access & IBV_ACCESS_LOCAL_WRITE ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE : 0) |
			(r->access & IBV_ACCESS_REMOTE_READ ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ : 0) |
			(r->access & IBV_ACCESS_REMOTE_WRITE ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE : 0) |
			(r->access & IBV_ACCESS_REMOTE_ATOMIC ? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC : 0);
	}
	if (r->nmtt) {
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR | MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN;
		mc->start_addr = htobe64(r->start);
		mc->len = htobe64(r->len);
		mc->log_page_size = r->page_shift;
		mc->translations_octword_size = htobe32(octw);
		uc->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
		uc->klm_octowords = htobe16((uint16_t)octw);
		for (i = 0; i < r->nmtt; i++)
			((__be64 *)(wqe + UMR_KLM_OFF))[i] = htobe64(r->mtt[i]);
	}
	uc->mkey_mask = htobe64(mask);
	ret = umr_post(mdev, &mdev->umr, wqe, bytes);
out:
	pthread_mutex_unlock(&umr_lock);
	return ret;
}
