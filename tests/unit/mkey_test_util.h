/* SPDX-License-Identifier: MIT */
/*
 * Plumbing shared by the signature and crypto mkey tests (test_sig.c,
 * test_crypto_mkey.c): one device context, PD and CQ, RC QPs that talk to
 * themselves with the mkey-configure send op, mkey configuration with the
 * optional signature and crypto setters, posting and polling helpers.
 */
#ifndef SMX_MKEY_TEST_UTIL_H
#define SMX_MKEY_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "smx_test.h"
#include "verbs_test_util.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static int to_rts(struct ibv_qp *qp)
{
	return qp_to_rts_loopback(ctx, qp, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ);
}

static struct ibv_qp *rc_qp(uint32_t create_flags)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 32, .max_recv_wr = 16, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 512 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_LOCAL_INV,
	};
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS |
			     MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
		.create_flags = create_flags,
	};
	struct ibv_qp *qp = mlx5dv_create_qp(ctx, &a, &dv);

	CHECKM(qp != NULL, "mlx5dv_create_qp: %s", strerror(errno));
	if (qp && to_rts(qp)) {
		CHECKM(0, "to_rts: %s", strerror(errno));
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int poll1(struct ibv_wc *wc)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = ibv_poll_cq(cq, 1, wc)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return -1;
	}
	return n == 1 ? 0 : -1;
}

static void expect_ok(const char *what, enum ibv_wc_opcode op, uint64_t wr_id)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	CHECKM(!poll1(&wc) && wc.status == IBV_WC_SUCCESS && wc.opcode == op &&
	       wc.wr_id == wr_id,
	       "%s: status %d (%s) opcode %d wr_id %llu, want success/%d/%llu", what,
	       wc.status, ibv_wc_status_str(wc.status), wc.opcode,
	       (unsigned long long)wc.wr_id, op, (unsigned long long)wr_id);
}

/* A SEND to itself: the receive and the send complete, in either order. */
static __attribute__((unused)) void expect_send_recv(const char *what, uint64_t send_id, uint64_t recv_id)
{
	struct ibv_wc wc[2];
	int i, seen = 0;

	for (i = 0; i < 2; i++) {
		memset(&wc[i], 0, sizeof(wc[i]));
		if (poll1(&wc[i]) || wc[i].status != IBV_WC_SUCCESS)
			break;
		if (wc[i].opcode == IBV_WC_SEND && wc[i].wr_id == send_id)
			seen |= 1;
		else if (wc[i].opcode == IBV_WC_RECV && wc[i].wr_id == recv_id)
			seen |= 2;
	}
	CHECKM(seen == 3, "%s: completions %d/%llu/%s and %d/%llu/%s, want SEND %llu "
	       "and RECV %llu", what, wc[0].opcode, (unsigned long long)wc[0].wr_id,
	       ibv_wc_status_str(wc[0].status), wc[1].opcode,
	       (unsigned long long)wc[1].wr_id, ibv_wc_status_str(wc[1].status),
	       (unsigned long long)send_id, (unsigned long long)recv_id);
}

static __attribute__((unused)) void expect_err(const char *what, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	CHECKM(!poll1(&wc) && wc.status == st, "%s: status %d (%s), want %s", what,
	       wc.status, ibv_wc_status_str(wc.status), ibv_wc_status_str(st));
}

static __attribute__((unused)) void drain(void)
{
	struct ibv_wc wc[16];
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		while (ibv_poll_cq(cq, 16, wc) > 0)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_nsec - t0.tv_nsec) / 1000000 + (t.tv_sec - t0.tv_sec) * 1000 < 50);
}

/* An indirect mkey with @flags besides INDIRECT (BLOCK_SIGNATURE, CRYPTO). */
static struct mlx5dv_mkey *new_mkey(uint32_t flags)
{
	struct mlx5dv_mkey_init_attr ma = {
		.pd = pd, .max_entries = 4,
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT | flags,
	};
	struct mlx5dv_mkey *mk = mlx5dv_create_mkey(&ma);

	CHECKM(mk != NULL, "create mkey (flags 0x%x): %s", flags, strerror(errno));
	return mk;
}

/* Configures @mk as one list entry over @mr's [0, len) with @access and
 * the signature @sa (NULL: none); 0 when wr_complete accepted it. */
static int configure(struct ibv_qp *qp, struct mlx5dv_mkey *mk, struct ibv_mr *mr,
		     uint32_t len, uint32_t access, const struct mlx5dv_sig_block_attr *sa,
		     const struct mlx5dv_crypto_attr *ca)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp_ex *dx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
	struct mlx5dv_mkey_conf_attr attr = { 0 };
	struct ibv_sge sge = { (uintptr_t)mr->addr, len, mr->lkey };

	ibv_wr_start(qx);
	qx->wr_id = 100;
	qx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	mlx5dv_wr_mkey_configure(dx, mk, 2 + !!sa + !!ca, &attr);
	mlx5dv_wr_set_mkey_access_flags(dx, access);
	mlx5dv_wr_set_mkey_layout_list(dx, 1, &sge);
	if (sa)
		mlx5dv_wr_set_mkey_sig_block(dx, sa);
	if (ca)
		mlx5dv_wr_set_mkey_crypto(dx, ca);
	return ibv_wr_complete(qx);
}

static void configure_ok(const char *what, struct ibv_qp *qp, struct mlx5dv_mkey *mk,
			 struct ibv_mr *mr, uint32_t len, uint32_t access,
			 const struct mlx5dv_sig_block_attr *sa,
			 const struct mlx5dv_crypto_attr *ca)
{
	int ret = configure(qp, mk, mr, len, access, sa, ca);

	CHECKM(!ret, "%s: wr_complete: %s", what, strerror(ret));
	if (!ret)	/* one completion: the last SET_PSV (or the UMR) */
		expect_ok(what, IBV_WC_DRIVER1, 100);
}

static __attribute__((unused)) void rdma_write(struct ibv_qp *qp, uint32_t lkey, uint64_t addr, uint32_t len,
		       uint32_t rkey, uint64_t raddr, uint64_t wr_id, bool signaled)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = signaled ? IBV_SEND_SIGNALED : 0;
	ibv_wr_rdma_write(qx, rkey, raddr);
	ibv_wr_set_sge(qx, lkey, addr, len);
	CHECKM(!ibv_wr_complete(qx), "post RDMA write");
}

static __attribute__((unused)) void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)mr->addr, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	CHECKM(!ibv_post_recv(qp, &wr, &bad), "post_recv");
}

static __attribute__((unused)) void send1(struct ibv_qp *qp, uint32_t lkey, uint64_t addr, uint32_t len,
		  uint64_t wr_id, unsigned int flags)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = flags;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, lkey, addr, len);
	CHECKM(!ibv_wr_complete(qx), "post SEND");
}

static struct ibv_mr *mr_new(size_t len)
{
	void *b = calloc(1, len);
	struct ibv_mr *mr = ibv_reg_mr(pd, b, len, IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);

	CHECKM(mr != NULL, "reg_mr: %s", strerror(errno));
	return mr;
}

static void mr_free(struct ibv_mr *mr)
{
	void *b = mr->addr;

	ibv_dereg_mr(mr);
	free(b);
}

static __attribute__((unused)) void fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

static __attribute__((unused)) enum mlx5dv_mkey_err_type check_mkey(struct mlx5dv_mkey *mk, struct mlx5dv_mkey_err *e)
{
	memset(e, 0xa5, sizeof(*e));
	CHECKM(!mlx5dv_mkey_check(mk, e), "mkey_check");
	return e->err_type;
}


#endif
