/* SPDX-License-Identifier: MIT */
/*
 * The mlx5dv extensions of libmlx5 on the software device, through the
 * public API only: mlx5dv_create_cq / mlx5dv_create_qp and their hostile
 * attributes, raw WQEs, DMA memcpy WQEs, the port query, the clock,
 * reserved QP numbers, $MLX_*_ALLOC_TYPE and the application's buffer
 * allocators (mlx5dv_set_context_attr), mlx5dv_alloc_dm. Expected errnos are rdma-core
 * 44's for a device without the feature.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "smx_test.h"
#include "verbs_test_util.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;

static struct ibv_cq_ex *dv_cq(uint64_t mask, int size, uint32_t flags, uint32_t comp)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS |
					  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
	struct mlx5dv_cq_init_attr dv = { .comp_mask = mask, .cqe_size = (uint16_t)size,
					  .flags = flags, .cqe_comp_res_format = (uint8_t)comp };

	errno = 0;
	return mlx5dv_create_cq(ctx, &ca, &dv);
}

static int cqe_size_of(struct ibv_cq_ex *cq)
{
	struct mlx5dv_cq out = {};
	struct mlx5dv_obj obj = { .cq = { .in = ibv_cq_ex_to_cq(cq), .out = &out } };

	return mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ) ? -1 : (int)out.cqe_size;
}

static void test_cq(void)
{
	struct ibv_cq_ex *cq;
	struct ibv_cq *plain;

	unsetenv("MLX5_CQE_SIZE");
	cq = dv_cq(0, 0, 0, 0);
	CHECKM(cq && cqe_size_of(cq) == 64, "default: %s", strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE, 128, 0, 0);
	CHECKM(cq && cqe_size_of(cq) == 128, "128: %s", strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE, 100, 0, 0);
	CHECKM(!cq && errno == EINVAL, "cqe_size 100: errno %d", errno);
	cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE | MLX5DV_CQ_INIT_ATTR_MASK_FLAGS, 64,
		   MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD, 0);
	CHECKM(!cq && errno == EINVAL, "pad with 64 B: errno %d", errno);
	cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE | MLX5DV_CQ_INIT_ATTR_MASK_FLAGS, 128,
		   MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD, 0);
	CHECKM(cq && cqe_size_of(cq) == 128, "pad with 128 B: %s",
	       strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_FLAGS, 0, 1u << 7, 0);
	CHECKM(!cq && errno == EINVAL, "unknown flag: errno %d", errno);
	/* CQE compression: each format alone, with 64- or 128-byte CQEs */
	{
		const uint32_t fmts[] = { MLX5DV_CQE_RES_FORMAT_HASH, MLX5DV_CQE_RES_FORMAT_CSUM,
					  MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX };
		unsigned int i;

		for (i = 0; i < 3; i++) {
			cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE |
				   (i == 2 ? MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE : 0),
				   i == 2 ? 128 : 0, 0, fmts[i]);
			CHECKM(cq, "compression format 0x%x: %s", fmts[i], strerror(errno));
			if (cq)
				ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
		}
		/* padded 128-byte CQEs are not compressed */
		cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE | MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE |
			   MLX5DV_CQ_INIT_ATTR_MASK_FLAGS, 128, MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD,
			   MLX5DV_CQE_RES_FORMAT_CSUM);
		CHECKM(!cq && errno == EINVAL, "compression with padding: errno %d", errno);
	}
	cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE, 0, 0,
		   MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM);
	CHECKM(!cq && errno == EINVAL, "two formats: errno %d", errno);
	cq = dv_cq(1u << 20, 0, 0, 0);
	CHECKM(!cq && errno == EINVAL, "unknown comp_mask: errno %d", errno);

	/* $MLX5_CQE_SIZE is read at each creation, for every CQ. */
	setenv("MLX5_CQE_SIZE", "128", 1);
	cq = dv_cq(0, 0, 0, 0);
	CHECKM(cq && cqe_size_of(cq) == 128, "env 128: %s", strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE, 64, 0, 0);
	CHECKM(cq && cqe_size_of(cq) == 64, "attr beats env: %s", strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	setenv("MLX5_CQE_SIZE", "100", 1);
	cq = dv_cq(0, 0, 0, 0);
	CHECKM(!cq && errno == EINVAL, "env 100: errno %d", errno);
	plain = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECKM(!plain && errno == EINVAL, "env 100, ibv_create_cq: errno %d", errno);
	unsetenv("MLX5_CQE_SIZE");
	setenv("MLX5_SCATTER_TO_CQE", "0", 1);
	plain = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECKM(plain != NULL, "MLX5_SCATTER_TO_CQE: %s", strerror(errno));
	if (plain)
		ibv_destroy_cq(plain);
	unsetenv("MLX5_SCATTER_TO_CQE");
}

static struct ibv_qp *dv_qp(struct ibv_cq_ex *cq, enum ibv_qp_type t, uint64_t mask,
			    uint32_t cflags, uint64_t dvops, uint32_t sq_wr)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = t,
		.send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.cap = { .max_send_wr = sq_wr, .max_recv_wr = 8, .max_send_sge = 2,
			 .max_recv_sge = 2 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct mlx5dv_qp_init_attr dv = { .comp_mask = mask, .create_flags = cflags,
					  .send_ops_flags = dvops };

	if (t == IBV_QPT_DRIVER) {
		dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	}
	errno = 0;
	return mlx5dv_create_qp(ctx, &a, &dv);
}

static void test_qp_attrs(struct ibv_cq_ex *cq)
{
	struct ibv_qp *qp;

	qp = dv_qp(cq, IBV_QPT_RC, 1u << 10, 0, 0, 4);
	CHECKM(!qp && errno == EINVAL, "unknown comp_mask: errno %d", errno);
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_DC, 0, 0, 4);
	CHECKM(!qp && errno == EINVAL, "DC on an RC QP: errno %d", errno);
	qp = dv_qp(cq, IBV_QPT_DRIVER, MLX5DV_QP_INIT_ATTR_MASK_DC, 0, 0, 4);
	CHECKM(qp, "DCI: errno %d", errno);
	if (qp)
		CHECK(!ibv_destroy_qp(qp));
	qp = dv_qp(cq, IBV_QPT_DRIVER, 0, 0, 0, 4);
	CHECKM(!qp && errno == EINVAL, "driver QP without DC: errno %d", errno);
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		   MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE | MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE,
		   0, 4);
	CHECKM(!qp && errno == EINVAL, "disable+allow s2cqe: errno %d", errno);
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS, 1u << 20, 0, 4);
	CHECKM(!qp && errno == EINVAL, "unknown create flag: errno %d", errno);
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		   MLX5DV_QP_CREATE_SIG_PIPELINING, 0, 4);
	CHECKM(qp != NULL, "sig pipelining (drain_sigerr): errno %d", errno);
	if (qp)
		ibv_destroy_qp(qp);
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		   MLX5DV_QP_CREATE_TUNNEL_OFFLOADS, 0, 4);
	CHECKM(!qp && errno == EOPNOTSUPP, "tunnel offloads: errno %d", errno);
	/* mkey WRs: RC only (test_mkey.c exercises them). */
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS, 0,
		   MLX5DV_QP_EX_WITH_MR_LIST | MLX5DV_QP_EX_WITH_MKEY_CONFIGURE, 4);
	CHECKM(qp != NULL, "mr_list + mkey_configure on RC: %s", strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	qp = dv_qp(cq, IBV_QPT_UD, MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS, 0,
		   MLX5DV_QP_EX_WITH_MKEY_CONFIGURE, 4);
	CHECKM(!qp && errno == EOPNOTSUPP, "mkey_configure on UD: errno %d", errno);
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS, 0, 1ull << 40, 4);
	CHECKM(!qp && errno == EOPNOTSUPP, "unknown dv op: errno %d", errno);
	qp = dv_qp(cq, IBV_QPT_UD, MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS, 0,
		   MLX5DV_QP_EX_WITH_MEMCPY, 4);
	CHECKM(!qp && errno == EOPNOTSUPP, "memcpy on UD: errno %d", errno);

	/* Scatter-to-CQE requests are accepted (and change nothing). */
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		   MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE, 0, 4);
	CHECKM(qp != NULL, "disable s2cqe: %s", strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	qp = dv_qp(cq, IBV_QPT_UD, MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS |
		   MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		   MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE, MLX5DV_QP_EX_WITH_RAW_WQE, 4);
	CHECKM(qp != NULL, "UD with raw WQEs: %s", strerror(errno));
	if (qp) {
		CHECKM(mlx5dv_qp_ex_from_ibv_qp_ex(ibv_qp_to_qp_ex(qp)) != NULL, "dv qp ex");
		ibv_destroy_qp(qp);
	}
	CHECKM(mlx5dv_qp_ex_from_ibv_qp_ex(NULL) == NULL && errno == EINVAL, "NULL qp_ex");
}

/* RST -> RTS, connected to itself. */
static int to_rts(struct ibv_qp *qp)
{
	return qp_to_rts_loopback(ctx, qp, IBV_ACCESS_REMOTE_WRITE);
}

/* Polls one completion (5 s at most) through the extended API. */
static int poll_one(struct ibv_cq_ex *cq, enum ibv_wc_opcode *op, enum ibv_wc_status *st,
		    uint64_t *ts)
{
	struct ibv_poll_cq_attr pa = {};
	struct timespec t0, t;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((ret = ibv_start_poll(cq, &pa)) == ENOENT) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return ENOENT;
	}
	if (ret)
		return ret;
	*st = cq->status;
	*op = ibv_wc_read_opcode(cq);
	if (ts)
		*ts = ibv_wc_read_completion_ts(cq);
	ibv_end_poll(cq);
	return 0;
}

static void test_raw_wqe(void)
{
	struct ibv_cq_ex *cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE, 128, 0, 0);
	char *buf = calloc(1, 4096);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	struct mlx5dv_qp_ex *dvqp;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	struct ibv_sge rs;
	struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *bad;
	uint8_t wqe[64] __attribute__((aligned(16)));
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5_wqe_data_seg *d = (void *)(wqe + 16);
	enum ibv_wc_opcode op, op2;
	enum ibv_wc_status st, st2;
	int i;

	CHECKM(cq && mr, "cq/mr: %s", strerror(errno));
	if (!cq || !mr)
		return;
	/* One send WR: raw WQEs wrap around the ring. */
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS, 0,
		   MLX5DV_QP_EX_WITH_RAW_WQE, 1);
	CHECKM(qp && !to_rts(qp), "raw qp: %s", strerror(errno));
	if (!qp)
		return;
	qpx = ibv_qp_to_qp_ex(qp);
	dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	for (i = 0; i < 6; i++) {
		memset(buf, 'a' + i, 64);
		memset(buf + 2048, 0, 64);
		rs = (struct ibv_sge){ (uintptr_t)buf + 2048, 64, mr->lkey };
		CHECKM(!ibv_post_recv(qp, &rwr, &bad), "post_recv");
		memset(wqe, 0, sizeof(wqe));
		mlx5dv_set_ctrl_seg(ctrl, 0, MLX5_OPCODE_SEND, 0, qp->qp_num,
				    MLX5_WQE_CTRL_CQ_UPDATE, 2, 0, 0);
		mlx5dv_set_data_seg(d, 64, mr->lkey, (uintptr_t)buf);
		ibv_wr_start(qpx);
		qpx->wr_id = (uint64_t)i;
		mlx5dv_wr_raw_wqe(dvqp, wqe);
		CHECKM(!ibv_wr_complete(qpx), "raw wr_complete %d", i);
		/* Looped back onto one CQ: the receive may complete first. */
		CHECKM(!poll_one(cq, &op, &st, NULL) && st == IBV_WC_SUCCESS &&
		       !poll_one(cq, &op2, &st2, NULL) && st2 == IBV_WC_SUCCESS &&
		       ((op == IBV_WC_DRIVER2 && op2 == IBV_WC_RECV) ||
			(op == IBV_WC_RECV && op2 == IBV_WC_DRIVER2)),
		       "raw send %d: opcodes %d %d", i, op, op2);
		CHECKM(!memcmp(buf, buf + 2048, 64), "raw data %d", i);
	}

	/* DS 0 and a WQE bigger than the ring allows: the batch fails. */
	memset(wqe, 0, sizeof(wqe));
	ibv_wr_start(qpx);
	mlx5dv_wr_raw_wqe(dvqp, wqe);
	CHECKM(ibv_wr_complete(qpx) == EINVAL, "DS 0 must be EINVAL");
	ctrl->qpn_ds = htobe32(qp->qp_num << 8 | 63);
	ibv_wr_start(qpx);
	mlx5dv_wr_raw_wqe(dvqp, wqe);
	CHECKM(ibv_wr_complete(qpx) == EINVAL, "DS 63 on a small ring must be EINVAL");

	/* The device rejects a WQE naming another QP. */
	mlx5dv_set_ctrl_seg(ctrl, 0, MLX5_OPCODE_SEND, 0, qp->qp_num + 1,
			    MLX5_WQE_CTRL_CQ_UPDATE, 2, 0, 0);
	mlx5dv_set_data_seg(d, 64, mr->lkey, (uintptr_t)buf);
	ibv_wr_start(qpx);
	mlx5dv_wr_raw_wqe(dvqp, wqe);
	CHECKM(!ibv_wr_complete(qpx), "wrong-qpn raw wr_complete");
	CHECKM(!poll_one(cq, &op, &st, NULL) && st == IBV_WC_LOC_QP_OP_ERR,
	       "wrong qpn: status %d", st);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	free(buf);
}

/* 128-byte padded CQEs: the CQE sits in the second half of its slot and
 * the device writes the first half as zero padding. */
static void test_cqe_pad(void)
{
	struct ibv_cq_ex *cq = dv_cq(MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE |
				     MLX5DV_CQ_INIT_ATTR_MASK_FLAGS, 128,
				     MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD, 0);
	char *buf = calloc(1, 4096);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	struct mlx5dv_cq dcq = { 0 };
	struct mlx5dv_obj obj = { 0 };
	struct ibv_sge rs;
	struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *bad;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp = NULL;
	enum ibv_wc_opcode op;
	enum ibv_wc_status st;
	uint8_t *slot;
	int i, nz = 0;

	CHECKM(cq && mr, "padded cq/mr: %s", strerror(errno));
	if (!cq || !mr)
		goto out;
	obj.cq.in = ibv_cq_ex_to_cq(cq);
	obj.cq.out = &dcq;
	CHECK(!mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ) && dcq.cqe_size == 128);
	slot = dcq.buf;
	memset(slot, 0xa5, 64);	/* slot 0's first half: must become padding */
	qp = dv_qp(cq, IBV_QPT_RC, 0, 0, 0, 4);
	CHECKM(qp && !to_rts(qp), "qp: %s", strerror(errno));
	if (!qp)
		goto out;
	rs = (struct ibv_sge){ (uintptr_t)buf + 2048, 64, mr->lkey };
	CHECK(!ibv_post_recv(qp, &rwr, &bad));
	qpx = ibv_qp_to_qp_ex(qp);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, 64);
	CHECK(!ibv_wr_complete(qpx));
	CHECK(!poll_one(cq, &op, &st, NULL) && st == IBV_WC_SUCCESS);
	CHECK(!poll_one(cq, &op, &st, NULL) && st == IBV_WC_SUCCESS);
	for (i = 0; i < 64; i++)
		nz |= slot[i];
	CHECKM(!nz, "padding half of slot 0 not zero");
	CHECKM(slot[127] >> 4 != MLX5_CQE_INVALID, "slot 0 CQE opcode 0x%x",
	       slot[127] >> 4);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	free(buf);
}

/* The QoS / entropy entry points with hostile arguments and states:
 * packet-pacing entries, scheduling elements, UDP sport, AH-to-QP mapping. */
static void test_qos_bad_args(void)
{
	uint32_t rate = htobe32(100), big[16] = { 0 };
	struct mlx5dv_sched_attr root_attr = { 0 }, attr = { 0 };
	struct mlx5dv_sched_node *root, *node;
	struct mlx5dv_sched_leaf *leaf;
	struct mlx5dv_pp *pp, *pp2, *pp3;
	struct ibv_cq_ex *cq = dv_cq(0, 0, 0, 0);
	struct ibv_ah_attr aa = { .port_num = 1, .is_global = 1 };
	struct ibv_ah *ah;
	struct ibv_qp *qp;

	/* pp: flags, sizes, NULL context; equal contexts share an index
	 * unless one asks for a dedicated index. */
	errno = 0;
	CHECKM(!mlx5dv_pp_alloc(ctx, sizeof(rate), &rate, 1u << 5) &&
	       errno == EOPNOTSUPP, "pp unknown flag: errno %d", errno);
	errno = 0;
	CHECKM(!mlx5dv_pp_alloc(ctx, 0, &rate, 0) && errno == EINVAL,
	       "pp size 0: errno %d", errno);
	errno = 0;
	CHECKM(!mlx5dv_pp_alloc(ctx, sizeof(big), big, 0) && errno == EINVAL,
	       "pp context too big: errno %d", errno);
	errno = 0;
	CHECKM(!mlx5dv_pp_alloc(ctx, sizeof(rate), NULL, 0) && errno == EINVAL,
	       "pp NULL context: errno %d", errno);
	pp = mlx5dv_pp_alloc(ctx, sizeof(rate), &rate, 0);
	pp2 = mlx5dv_pp_alloc(ctx, sizeof(rate), &rate, 0);
	pp3 = mlx5dv_pp_alloc(ctx, sizeof(rate), &rate, 1);
	CHECKM(pp && pp2 && pp3, "pp alloc: %s", strerror(errno));
	if (pp && pp2 && pp3)
		CHECK(pp->index && pp->index == pp2->index &&
		      pp3->index != pp->index);
	mlx5dv_pp_free(pp);
	mlx5dv_pp_free(pp2);
	mlx5dv_pp_free(pp3);

	/* sched: a root takes no rates, a leaf needs a parent, unknown flags
	 * and comp_mask are refused; a parent with children stays. */
	errno = 0;
	CHECKM(!mlx5dv_sched_node_create(ctx, NULL) && errno == EINVAL,
	       "sched NULL attr: errno %d", errno);
	attr.flags = MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE;
	errno = 0;
	CHECKM(!mlx5dv_sched_node_create(ctx, &attr) && errno == EINVAL,
	       "root with rates: errno %d", errno);
	errno = 0;
	CHECKM(!mlx5dv_sched_leaf_create(ctx, &root_attr) && errno == EINVAL,
	       "leaf without parent: errno %d", errno);
	root = mlx5dv_sched_node_create(ctx, &root_attr);
	CHECKM(root, "root: %s", strerror(errno));
	if (root) {
		attr.parent = root;
		attr.flags = 1u << 7;
		errno = 0;
		CHECKM(!mlx5dv_sched_node_create(ctx, &attr) && errno == EINVAL,
		       "unknown sched flag: errno %d", errno);
		attr.flags = MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE;
		attr.bw_share = 1000;	/* above max_tsar_bw_share */
		errno = 0;
		CHECKM(!mlx5dv_sched_node_create(ctx, &attr) && errno == EINVAL,
		       "bw_share too big: errno %d", errno);
		attr.bw_share = 5;
		attr.comp_mask = 1;
		CHECK(mlx5dv_sched_node_modify(root, &attr) == EINVAL);
		attr.comp_mask = 0;
		node = mlx5dv_sched_node_create(ctx, &attr);
		leaf = node ? mlx5dv_sched_leaf_create(ctx,
				&(struct mlx5dv_sched_attr){ .parent = node })
			    : NULL;
		CHECKM(node && leaf, "node/leaf: %s", strerror(errno));
		CHECK(mlx5dv_sched_node_destroy(root) == EBUSY);
		if (leaf)
			CHECK(!mlx5dv_sched_leaf_destroy(leaf));
		if (node)
			CHECK(!mlx5dv_sched_node_destroy(node));
		CHECK(!mlx5dv_sched_node_destroy(root));
	}

	/* udp sport and sched join: RC in RESET is not RTS/INIT; a UD QP has
	 * no responder queue group. */
	qp = cq ? dv_qp(cq, IBV_QPT_RC, 0, 0, 0, 4) : NULL;
	CHECKM(qp, "qp: %s", strerror(errno));
	if (qp) {
		CHECK(mlx5dv_modify_qp_udp_sport(qp, 55555) == EOPNOTSUPP);
		CHECK(mlx5dv_modify_qp_sched_elem(qp, NULL, NULL) == EOPNOTSUPP);
		ibv_destroy_qp(qp);
	}
	qp = cq ? dv_qp(cq, IBV_QPT_UD, 0, 0, 0, 4) : NULL;
	if (qp) {
		CHECK(mlx5dv_modify_qp_udp_sport(qp, 55555) == EOPNOTSUPP);
		/* refused on the QP type, before the leaf is looked at */
		CHECK(mlx5dv_modify_qp_sched_elem(qp, NULL,
			(const struct mlx5dv_sched_leaf *)qp) == EINVAL);
		ibv_destroy_qp(qp);
	}

	/* AH-to-QP mapping: global AHs only; mapped twice is one object. */
	ibv_query_gid(ctx, 1, 0, &aa.grh.dgid);
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	CHECKM(ah, "ah: %s", strerror(errno));
	if (ah) {
		CHECK(!mlx5dv_map_ah_to_qp(ah, 0x1234));
		CHECK(!mlx5dv_map_ah_to_qp(ah, 0x1234));
		CHECK(!ibv_destroy_ah(ah));
	}
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

static void test_memcpy(void)
{
	struct mlx5dv_context dc = { .comp_mask = MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH };
	struct ibv_cq_ex *cq = dv_cq(0, 0, 0, 0);
	size_t len = 1u << 20;
	char *src = malloc(len + 4096), *dst = calloc(1, len + 4096);
	struct ibv_mr *smr = ibv_reg_mr(pd, src, len + 4096, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *dmr = ibv_reg_mr(pd, dst, len + 4096, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *romr = ibv_reg_mr(pd, dst, 4096, IBV_ACCESS_REMOTE_READ);
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct ibv_mr *omr = pd2 ? ibv_reg_mr(pd2, dst, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct mlx5dv_qp_ex *dvqp;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	enum ibv_wc_opcode op;
	enum ibv_wc_status st;
	size_t i;

	CHECKM(!mlx5dv_query_device(ctx, &dc) &&
	       (dc.comp_mask & MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH) &&
	       dc.max_wr_memcpy_length == len, "max_wr_memcpy_length %zu",
	       (size_t)dc.max_wr_memcpy_length);
	CHECK(dc.flags & MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD);
	CHECKM(cq && src && dst && smr && dmr && romr && omr, "resources: %s", strerror(errno));
	if (!cq || !src || !dst || !smr || !dmr || !romr || !omr)
		return;
	for (i = 0; i < len; i++)
		src[i] = (char)(i * 7 + 1);
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS, 0,
		   MLX5DV_QP_EX_WITH_MEMCPY, 8);
	CHECKM(qp && !to_rts(qp), "memcpy qp: %s", strerror(errno));
	if (!qp)
		return;
	qpx = ibv_qp_to_qp_ex(qp);
	dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);

	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	mlx5dv_wr_memcpy(dvqp, dmr->lkey, (uintptr_t)dst, smr->lkey, (uintptr_t)src, len);
	CHECKM(!ibv_wr_complete(qpx), "memcpy wr_complete");
	CHECKM(!poll_one(cq, &op, &st, NULL) && st == IBV_WC_SUCCESS &&
	       op == (enum ibv_wc_opcode)MLX5DV_WC_MEMCPY, "memcpy: status %d opcode %d", st, op);
	CHECKM(!memcmp(src, dst, len), "memcpy data");

	/* Length 0 or above the limit: wr_complete says EINVAL, nothing runs. */
	ibv_wr_start(qpx);
	mlx5dv_wr_memcpy(dvqp, dmr->lkey, (uintptr_t)dst, smr->lkey, (uintptr_t)src, 0);
	CHECKM(ibv_wr_complete(qpx) == EINVAL, "length 0");
	ibv_wr_start(qpx);
	mlx5dv_wr_memcpy(dvqp, dmr->lkey, (uintptr_t)dst, smr->lkey, (uintptr_t)src, len + 1);
	CHECKM(ibv_wr_complete(qpx) == EINVAL, "length above the limit");

	/* Destination of another PD: LOCAL_PROT_ERR (the QP then errs). */
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	mlx5dv_wr_memcpy(dvqp, omr->lkey, (uintptr_t)dst, smr->lkey, (uintptr_t)src, 64);
	CHECKM(!ibv_wr_complete(qpx), "other-pd wr_complete");
	CHECKM(!poll_one(cq, &op, &st, NULL) && st == IBV_WC_LOC_PROT_ERR,
	       "other pd: status %d", st);
	ibv_destroy_qp(qp);

	/* Destination without local write. */
	qp = dv_qp(cq, IBV_QPT_RC, MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS, 0,
		   MLX5DV_QP_EX_WITH_MEMCPY, 8);
	CHECKM(qp && !to_rts(qp), "memcpy qp 2: %s", strerror(errno));
	if (qp) {
		qpx = ibv_qp_to_qp_ex(qp);
		dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
		ibv_wr_start(qpx);
		qpx->wr_flags = IBV_SEND_SIGNALED;
		mlx5dv_wr_memcpy(dvqp, romr->lkey, (uintptr_t)dst, smr->lkey, (uintptr_t)src, 64);
		CHECKM(!ibv_wr_complete(qpx), "read-only wr_complete");
		CHECKM(!poll_one(cq, &op, &st, NULL) && st == IBV_WC_LOC_PROT_ERR,
		       "read-only destination: status %d", st);
		ibv_destroy_qp(qp);
	}
	ibv_dereg_mr(omr);
	CHECKM(!ibv_dealloc_pd(pd2), "pd2 dealloc");
	ibv_dereg_mr(romr);
	ibv_dereg_mr(dmr);
	ibv_dereg_mr(smr);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	free(src);
	free(dst);
}

static void test_port_clock(void)
{
	struct mlx5dv_port port;
	struct mlx5dv_clock_info ci;
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct timespec now;
	uint64_t ns, now_ns;

	memset(&port, 0xff, sizeof(port));
	CHECKM(!mlx5dv_query_port(ctx, 1, &port) && port.flags == 0, "query_port flags 0x%llx",
	       (unsigned long long)port.flags);
	CHECKM(mlx5dv_query_port(ctx, 2, &port) == EINVAL, "port 2 must be EINVAL");
	CHECKM(mlx5dv_query_port(ctx, 0, &port) == EINVAL, "port 0 must be EINVAL");

	CHECKM(!mlx5dv_get_clock_info(ctx, &ci), "get_clock_info");
	CHECKM(!ibv_query_rt_values_ex(ctx, &v) && v.comp_mask == IBV_VALUES_MASK_RAW_CLOCK,
	       "query_rt_values_ex");
	ns = mlx5dv_ts_to_ns(&ci, (uint64_t)v.raw_clock.tv_nsec);
	clock_gettime(CLOCK_REALTIME, &now);
	now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	CHECKM(ns <= now_ns + 1000000000ull && ns + 5000000000ull >= now_ns,
	       "raw clock %llu ns vs realtime %llu", (unsigned long long)ns,
	       (unsigned long long)now_ns);
	v.comp_mask = 1u << 5;
	CHECKM(ibv_query_rt_values_ex(ctx, &v) == EINVAL, "unknown comp_mask");
}

static void test_completion_ts(void)
{
	struct ibv_cq_ex *cq = dv_cq(0, 0, 0, 0);
	struct mlx5dv_clock_info ci;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	enum ibv_wc_opcode op;
	enum ibv_wc_status st;
	struct timespec now;
	uint64_t ts = 0, ns, now_ns;

	qp = cq ? dv_qp(cq, IBV_QPT_RC, 0, 0, 0, 4) : NULL;
	CHECKM(qp && !to_rts(qp), "ts qp: %s", strerror(errno));
	if (!qp)
		return;
	qpx = ibv_qp_to_qp_ex(qp);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, 0, 0);	/* zero-length write to itself */
	ibv_wr_set_sge_list(qpx, 0, NULL);
	CHECKM(!ibv_wr_complete(qpx), "write wr_complete");
	CHECKM(!poll_one(cq, &op, &st, &ts) && st == IBV_WC_SUCCESS, "write: status %d", st);
	CHECKM(!mlx5dv_get_clock_info(ctx, &ci), "get_clock_info");
	ns = mlx5dv_ts_to_ns(&ci, ts);
	clock_gettime(CLOCK_REALTIME, &now);
	now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	CHECKM(ts && ns <= now_ns && ns + 5000000000ull >= now_ns,
	       "completion at %llu ns, now %llu", (unsigned long long)ns,
	       (unsigned long long)now_ns);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

static uint64_t realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK: the completion's time on
 * the wall clock lies between the post and the poll. */
static void test_completion_wallclock(void)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS |
					  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK };
	struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, &ca);
	struct ibv_poll_cq_attr pa = {};
	uint64_t before, after, wall = 0;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	int ret;

	CHECKM(cq != NULL, "wallclock CQ: %s", strerror(errno));
	qp = cq ? dv_qp(cq, IBV_QPT_RC, 0, 0, 0, 4) : NULL;
	CHECKM(qp && !to_rts(qp), "wallclock qp: %s", strerror(errno));
	if (!qp)
		goto out;
	qpx = ibv_qp_to_qp_ex(qp);
	before = realtime_ns();
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, 0, 0);
	ibv_wr_set_sge_list(qpx, 0, NULL);
	CHECKM(!ibv_wr_complete(qpx), "wallclock write");
	while ((ret = ibv_start_poll(cq, &pa)) == ENOENT)
		if (realtime_ns() - before > 5000000000ull)
			break;
	CHECKM(!ret && cq->status == IBV_WC_SUCCESS, "wallclock poll: %d", ret);
	if (!ret) {
		wall = ibv_wc_read_completion_wallclock_ns(cq);
		ibv_end_poll(cq);
	}
	after = realtime_ns();
	/* 1 ms of slack each side for the two clocks' pairing */
	CHECKM(wall + 1000000 >= before && wall <= after + 1000000,
	       "wall clock %llu outside [%llu, %llu]", (unsigned long long)wall,
	       (unsigned long long)before, (unsigned long long)after);
	ibv_destroy_qp(qp);
out:
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

static void test_reserved_qpn(void)
{
	uint32_t a = 0, b = 0;

	CHECKM(!mlx5dv_reserved_qpn_alloc(ctx, &a) && !mlx5dv_reserved_qpn_alloc(ctx, &b) &&
	       a != b && a <= 0xffffff && b <= 0xffffff, "alloc %x %x", a, b);
	CHECKM(mlx5dv_reserved_qpn_dealloc(ctx, 0x1234) == EINVAL, "fake dealloc");
	CHECKM(!mlx5dv_reserved_qpn_dealloc(ctx, a), "dealloc a");
	CHECKM(mlx5dv_reserved_qpn_dealloc(ctx, a) == EINVAL, "double dealloc");
	CHECKM(!mlx5dv_reserved_qpn_dealloc(ctx, b), "dealloc b");
	CHECKM(mlx5dv_reserved_qpn_alloc(ctx, NULL) == EINVAL, "NULL qpn");
}

static int huge_pages_free(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void test_alloc_type(void)
{
	struct ibv_cq *cq;

	setenv("MLX_CQ_ALLOC_TYPE", "HUGE", 1);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (huge_pages_free())
		CHECKM(cq != NULL, "HUGE with huge pages: %s", strerror(errno));
	else
		CHECKM(cq == NULL, "HUGE without huge pages must fail");
	if (cq)
		ibv_destroy_cq(cq);
	setenv("MLX_CQ_ALLOC_TYPE", "PREFER_HUGE", 1);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECKM(cq != NULL, "PREFER_HUGE: %s", strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	setenv("MLX_CQ_ALLOC_TYPE", "ANON", 1);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECKM(cq != NULL, "ANON: %s", strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	unsetenv("MLX_CQ_ALLOC_TYPE");
}

/* mlx5dv_set_context_attr(BUF_ALLOCATORS): an allocator that keeps a
 * ledger of what it handed out. */
#define BA_MAX 16
static struct ba_ledger {
	void *base[BA_MAX], *ptr[BA_MAX];
	size_t size[BA_MAX];
	unsigned int allocs, frees;
	bool misalign;
} ba;

static void *ba_alloc(size_t size, void *priv)
{
	unsigned int i;
	void *p;

	if (priv != &ba || posix_memalign(&p, 4096, size + 4096))
		return NULL;
	for (i = 0; i < BA_MAX && ba.base[i]; i++)
		;
	if (i == BA_MAX) {
		free(p);
		return NULL;
	}
	ba.base[i] = p;
	ba.ptr[i] = (char *)p + (ba.misalign ? 64 : 0);
	ba.size[i] = size;
	ba.allocs++;
	memset(ba.ptr[i], 0xa5, size);	/* the provider must clear it */
	return ba.ptr[i];
}

static void ba_free(void *ptr, void *priv)
{
	unsigned int i;

	for (i = 0; i < BA_MAX; i++)
		if (ba.base[i] && ba.ptr[i] == ptr && priv == &ba) {
			free(ba.base[i]);
			ba.base[i] = NULL;
			ba.frees++;
			return;
		}
	CHECKM(0, "free of %p, which the allocator did not give", ptr);
}

/* Is [p, p + len) inside one live allocation? */
static bool ba_holds(const void *p, size_t len)
{
	unsigned int i;

	for (i = 0; i < BA_MAX; i++)
		if (ba.base[i] && (const char *)p >= (const char *)ba.ptr[i] &&
		    (const char *)p + len <= (const char *)ba.ptr[i] + ba.size[i])
			return true;
	return false;
}

static void test_buf_allocators(void)
{
	struct mlx5dv_ctx_allocators a = { .alloc = ba_alloc, .free = ba_free,
					   .data = &ba };
	struct mlx5dv_ctx_allocators none = {};
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 8, .max_recv_wr = 8,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct mlx5dv_cq dcq = {};
	struct mlx5dv_qp dqp = {};
	struct mlx5dv_obj obj = {};
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char *buf;
	int n = 0, i;

	CHECK_EQ(mlx5dv_set_context_attr(ctx, (enum mlx5dv_set_ctx_attr_type)99, &a),
		 ENOTSUP);
	CHECK_EQ(mlx5dv_set_context_attr(ctx, MLX5DV_CTX_ATTR_BUF_ALLOCATORS, NULL),
		 EINVAL);
	CHECK_EQ(mlx5dv_set_context_attr(ctx, MLX5DV_CTX_ATTR_BUF_ALLOCATORS, &a), 0);

	/* The CQ's and the QP's rings come from the allocator, cleared. */
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECKM(cq != NULL, "cq on the allocator: %s", strerror(errno));
	if (!cq)
		goto out;
	CHECK_EQ(ba.allocs, 1);
	obj.cq.in = cq;
	obj.cq.out = &dcq;
	CHECK(!mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ) &&
	      ba_holds(dcq.buf, (size_t)dcq.cqe_cnt * dcq.cqe_size));
	qa.send_cq = qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	CHECKM(qp != NULL, "qp on the allocator: %s", strerror(errno));
	if (!qp)
		goto out;
	CHECK_EQ(ba.allocs, 2);
	obj.qp.in = qp;
	obj.qp.out = &dqp;
	CHECK(!mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP) &&
	      ba_holds(dqp.sq.buf, (size_t)dqp.sq.wqe_cnt * dqp.sq.stride) &&
	      ba_holds(dqp.rq.buf, (size_t)dqp.rq.wqe_cnt * dqp.rq.stride));
	CHECK(((unsigned char *)dqp.sq.buf)[0] == 0);

	/* The device executes WQEs and writes CQEs there: RDMA WRITEs to
	 * itself. */
	buf = calloc(1, 8192);
	mr = buf ? ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE) : NULL;
	CHECK(mr != NULL);
	if (mr && !qp_to_rts_loopback(ctx, qp, IBV_ACCESS_REMOTE_WRITE)) {
		for (i = 0; i < 20; i++) {	/* past the 8-entry SQ: wraps */
			struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
			struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { (uintptr_t)buf + 4096, mr->rkey } }, *bad;

			memset(buf, 'a' + i, 64);
			if (ibv_post_send(qp, &wr, &bad))
				break;
			while (ibv_poll_cq(cq, 1, &wc) == 0)
				;
			n += wc.status == IBV_WC_SUCCESS && buf[4096 + 63] == 'a' + i;
		}
	}
	CHECK_EQ(n, 20);
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
out:
	if (qp)
		CHECK_EQ(ibv_destroy_qp(qp), 0);
	if (cq)
		CHECK_EQ(ibv_destroy_cq(cq), 0);
	CHECK_EQ(ba.frees, ba.allocs);

	/* Memory the device cannot take by page is handed back, and the
	 * creation fails. */
	ba.misalign = true;
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(cq == NULL && errno == ENOMEM);
	if (cq)
		ibv_destroy_cq(cq);
	CHECK_EQ(ba.frees, ba.allocs);
	ba.misalign = false;

	/* Cleared allocators: our own memory again. */
	CHECK_EQ(mlx5dv_set_context_attr(ctx, MLX5DV_CTX_ATTR_BUF_ALLOCATORS,
					 &none), 0);
	n = (int)ba.allocs;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(cq != NULL && ba.allocs == (unsigned int)n);
	if (cq)
		ibv_destroy_cq(cq);
}

/* mlx5dv_alloc_dm: MEMIC memory like ibv_alloc_dm's; no SW ICM types. */
static void test_dv_alloc_dm(void)
{
	struct ibv_alloc_dm_attr a = { .length = 256 };
	struct mlx5dv_alloc_dm_attr memic = { .type = MLX5DV_DM_TYPE_MEMIC };
	struct mlx5dv_alloc_dm_attr icm = { .type = MLX5DV_DM_TYPE_STEERING_SW_ICM };
	struct mlx5dv_alloc_dm_attr bad = { .type = MLX5DV_DM_TYPE_MEMIC,
					    .comp_mask = 1 };
	char in[32] = "mlx5dv device memory", out[32] = "";
	struct mlx5dv_dm ddm = {};
	struct mlx5dv_obj obj = {};
	struct ibv_dm *dm;

	dm = mlx5dv_alloc_dm(ctx, &a, &memic);
	CHECKM(dm != NULL, "mlx5dv_alloc_dm MEMIC: %s", strerror(errno));
	if (dm) {
		CHECK(!ibv_memcpy_to_dm(dm, 64, in, sizeof(in)) &&
		      !ibv_memcpy_from_dm(out, dm, 64, sizeof(out)) &&
		      !memcmp(in, out, sizeof(in)));
		obj.dm.in = dm;
		obj.dm.out = &ddm;
		CHECK(!mlx5dv_init_obj(&obj, MLX5DV_OBJ_DM) && ddm.length >= 256 &&
		      ddm.buf != NULL);
		CHECK_EQ(ibv_free_dm(dm), 0);
	}
	errno = 0;
	CHECK(!mlx5dv_alloc_dm(ctx, &a, &icm) && errno == EOPNOTSUPP);
	errno = 0;
	CHECK(!mlx5dv_alloc_dm(ctx, &a, &bad) && errno == EINVAL);
	errno = 0;
	CHECK(!mlx5dv_alloc_dm(ctx, &a, NULL) && errno == EINVAL);
	a.length = 0;
	errno = 0;
	CHECK(!mlx5dv_alloc_dm(ctx, &a, &memic) && errno == EINVAL);
}

int main(void)
{
	struct ibv_cq_ex *cq;

	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		fprintf(stderr, "alloc_pd: %s\n", strerror(errno));
		return 1;
	}
	test_cq();
	cq = dv_cq(0, 0, 0, 0);
	CHECKM(cq != NULL, "cq: %s", strerror(errno));
	if (cq) {
		test_qp_attrs(cq);
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	}
	test_raw_wqe();
	test_cqe_pad();
	test_qos_bad_args();
	test_memcpy();
	test_port_clock();
	test_completion_ts();
	test_completion_wallclock();
	test_reserved_qpn();
	test_alloc_type();
	test_buf_allocators();
	test_dv_alloc_dm();
	CHECKM(!ibv_dealloc_pd(pd), "dealloc_pd: %s", strerror(errno));
	ibv_close_device(ctx);
	return smx_test_done();
}
