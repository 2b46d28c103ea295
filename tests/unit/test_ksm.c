/* SPDX-License-Identifier: MIT */
/*
 * KSM mkeys (fixed-size entities) created by DEVX and used by RDMA WRITE,
 * READ and fetch-and-add on an RC QP that talks to itself.
 *
 * The first case is UCX 1.13's atomic key (uct_ib_mlx5_devx_reg_ksm_data_contig):
 * 2 GiB entities over one MR, entry i at A + i * 2 GiB (A = the MR's address
 * rounded down to 2 GiB), start_addr A + off with off = 8 * (pid % 256), so
 * that byte X + off of the KSM key is byte X of the MR. UCX's peers add off
 * to every address they use with that key. A device without KSM
 * (cmd_hca_cap.fixed_buffer_size 0) made UCX fall back to the plain MR as
 * its atomic key while the peers still added off: with relaxed ordering on
 * (AMD hosts) puts ended in remote access errors and fetch-and-adds landed
 * off bytes too far.
 * The second case checks entry selection and the offset inside an entity
 * with 4 KiB entities over two MRs in reverse order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "smx_test.h"
#include "verbs_test_util.h"

#define BUF (64u * 1024)
#define TAG 0x5a

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static uint32_t pdn;

static struct ibv_context *open_devx(void)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *c = list && list[0] ? mlx5dv_open_device(list[0], &attr) : NULL;

	if (list)
		ibv_free_device_list(list);
	return c;
}

static struct ibv_qp *rc_qp(void)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	if (qp && qp_to_rts_loopback(ctx, qp, IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC)) {
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	CHECKM(qp != NULL, "RC QP: %s", strerror(errno));
	return qp;
}

/* One completion's status (5 s at most; -1 when none came). */
static int poll1(void)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return -1;
	}
	return n == 1 ? (int)wc.status : -1;
}

/* Posts one signaled WR of @op: local [la, +len) of @lmr, remote @raddr. */
static int post(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_mr *lmr,
		void *la, uint32_t len, uint32_t rkey, uint64_t raddr, uint64_t add)
{
	struct ibv_sge s = { .addr = (uintptr_t)la, .length = len, .lkey = lmr->lkey };
	struct ibv_send_wr w = { .sg_list = &s, .num_sge = 1, .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		w.wr.atomic.remote_addr = raddr;
		w.wr.atomic.rkey = rkey;
		w.wr.atomic.compare_add = add;
	} else {
		w.wr.rdma.remote_addr = raddr;
		w.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(qp, &w, &bad))
		return -1;
	return poll1();
}

struct ksm_ent {
	uint32_t mkey;
	uint64_t addr;
};

/*
 * CREATE_MKEY in KSM mode by DEVX, as UCX fills it: all rights, 2^@log
 * byte entities, the range [start, +len). The key in *@key.
 */
static struct mlx5dv_devx_obj *ksm_create(const struct ksm_ent *e, uint32_t n,
					  unsigned int log, uint64_t start,
					  uint64_t len, uint32_t *key)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_mkey_in) + 16u * n;
	uint32_t out[DEVX_ST_SZ_DW(create_mkey_out)] = {};
	uint8_t *in = calloc(1, inlen), *klm;
	struct mlx5dv_devx_obj *o;
	void *mkc;
	uint32_t i;

	if (!in)
		return NULL;
	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KSM);
	DEVX_SET(mkc, mkc, a, 1);
	DEVX_SET(mkc, mkc, rw, 1);
	DEVX_SET(mkc, mkc, rr, 1);
	DEVX_SET(mkc, mkc, lw, 1);
	DEVX_SET(mkc, mkc, lr, 1);
	DEVX_SET(mkc, mkc, pd, pdn);
	DEVX_SET(mkc, mkc, translations_octword_size, n);
	DEVX_SET(mkc, mkc, log_page_size, log);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, mkey_7_0, TAG);
	DEVX_SET64(mkc, mkc, start_addr, start);
	DEVX_SET64(mkc, mkc, len, len);
	DEVX_SET(create_mkey_in, in, translations_octword_actual_size, n);
	klm = (uint8_t *)DEVX_ADDR_OF(create_mkey_in, in, klm_pas_mtt);
	for (i = 0; i < n; i++) {
		DEVX_SET(klm, klm + 16u * i, mkey, e[i].mkey);
		DEVX_SET64(klm, klm + 16u * i, address, e[i].addr);
	}
	o = mlx5dv_devx_obj_create(ctx, in, inlen, out, sizeof(out));
	if (o)
		*key = DEVX_GET(create_mkey_out, out, mkey_index) << 8 | TAG;
	free(in);
	return o;
}

static void test_cap(void)
{
	uint32_t in[DEVX_ST_SZ_DW(query_hca_cap_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_hca_cap_out)] = {};
	void *cap = DEVX_ADDR_OF(query_hca_cap_out, out, capability);

	DEVX_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	DEVX_SET(query_hca_cap_in, in, op_mod, 0 << 1 | 1);
	CHECK(!mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)));
	/* What UCX tests before it makes KSM keys. */
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, fixed_buffer_size), 1);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, umr_modify_atomic_disabled), 0);
}

static void test_ucx_atomic_key(uint8_t *dst, struct ibv_mr *dmr, uint8_t *src,
				struct ibv_mr *smr)
{
	const uint64_t two_g = 0x80000000ull, off = 8 * 47;
	uint64_t x = (uintptr_t)dst, a = x & ~(two_g - 1);
	uint64_t len = x - a + BUF;	/* 8-byte aligned already */
	struct ksm_ent e[2] = { { dmr->lkey, a }, { dmr->lkey, a + two_g } };
	uint32_t n = (uint32_t)((len + off + two_g - 1) / two_g);
	struct mlx5dv_devx_obj *o;
	struct ibv_qp *qp;
	uint32_t key = 0;
	uint64_t v;
	unsigned int i;

	o = ksm_create(e, n, 31, a + off, len, &key);
	CHECKM(o != NULL, "KSM mkey with 2 GiB entities: %s", strerror(errno));
	if (!o)
		return;
	qp = rc_qp();
	if (!qp)
		goto out;
	for (i = 0; i < BUF; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	memset(dst, 0xee, BUF);
	/* The whole MR through the key, at the shifted address. */
	CHECK_EQ(post(qp, IBV_WR_RDMA_WRITE, smr, src, BUF, key, x + off, 0),
		 IBV_WC_SUCCESS);
	CHECKM(!memcmp(dst, src, BUF), "WRITE at X + off lands at X");
	memset(src, 0, 4096);
	CHECK_EQ(post(qp, IBV_WR_RDMA_READ, smr, src, 4096, key, x + off + 0x1000, 0),
		 IBV_WC_SUCCESS);
	CHECKM(!memcmp(src, dst + 0x1000, 4096), "READ at X + off + 4 KiB reads X + 4 KiB");
	memcpy(&v, dst + 8, 8);
	CHECK_EQ(post(qp, IBV_WR_ATOMIC_FETCH_AND_ADD, smr, src, 8, key, x + off + 8, 5),
		 IBV_WC_SUCCESS);
	CHECK_EQ(*(uint64_t *)src, v);
	CHECK_EQ(*(uint64_t *)(dst + 8), v + 5);
	ibv_destroy_qp(qp);

	/* Past the MR behind the key, and before it: refused, nothing written. */
	for (i = 0; i < 2; i++) {
		uint64_t at = i ? x + off - 8 : x + off + BUF - 8;

		memcpy(src, dst, BUF);
		qp = rc_qp();
		if (!qp)
			break;
		CHECK_EQ(post(qp, IBV_WR_RDMA_WRITE, smr, src + 0x100, 16, key, at, 0),
			 IBV_WC_REM_ACCESS_ERR);
		CHECKM(!memcmp(src, dst, BUF), "refused WRITE %u wrote nothing", i);
		ibv_destroy_qp(qp);
	}
out:
	CHECK(!mlx5dv_devx_obj_destroy(o));
}

/* 4 KiB entities: entry 0 -> page 1 of @dst, entry 1 -> page 0. */
static void test_entities(uint8_t *dst, struct ibv_mr *dmr, uint8_t *src,
			  struct ibv_mr *smr)
{
	const uint64_t start = 0x10000;	/* a KSM range needs no relation to VAs */
	struct ksm_ent e[2] = { { dmr->lkey, (uintptr_t)dst + 4096 },
				{ dmr->lkey, (uintptr_t)dst } };
	struct mlx5dv_devx_obj *o;
	struct ibv_qp *qp;
	uint32_t key = 0;
	unsigned int i;

	/* a range one entity longer than the entries given */
	o = ksm_create(e, 2, 12, start, 3 * 4096, &key);
	CHECKM(o != NULL, "KSM mkey with 4 KiB entities: %s", strerror(errno));
	if (!o)
		return;
	qp = rc_qp();
	if (qp) {
		for (i = 0; i < 8192; i++)
			src[i] = (uint8_t)(i * 13 + 1);
		memset(dst, 0xee, 3 * 4096);
		/* 100 bytes across the boundary of the two entities */
		CHECK_EQ(post(qp, IBV_WR_RDMA_WRITE, smr, src, 100, key,
			      start + 4096 - 40, 0), IBV_WC_SUCCESS);
		CHECKM(!memcmp(dst + 4096 + 4096 - 40, src, 40) &&
		       !memcmp(dst, src + 40, 60),
		       "entry 0 ends in page 1, entry 1 starts in page 0");
		CHECKM(dst[4096 + 4096 - 41] == 0xee && dst[60] == 0xee &&
		       dst[2 * 4096] == 0xee, "nothing around it moved");
		ibv_destroy_qp(qp);
	}
	/* Inside the range, beyond the last entry: no layout there. */
	qp = rc_qp();
	if (qp) {
		CHECK_EQ(post(qp, IBV_WR_RDMA_WRITE, smr, src, 8, key, start + 8192, 0),
			 IBV_WC_REM_ACCESS_ERR);
		ibv_destroy_qp(qp);
	}
	CHECK(!mlx5dv_devx_obj_destroy(o));
}

int main(void)
{
	struct mlx5dv_pd dpd = {};
	struct mlx5dv_obj obj = { .pd = { .in = NULL, .out = &dpd } };
	uint8_t *dst = aligned_alloc(4096, BUF), *src = aligned_alloc(4096, BUF);
	struct ibv_mr *dmr, *smr;

	ctx = open_devx();
	if (!ctx || !dst || !src) {
		fprintf(stderr, "setup: %s\n", strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	obj.pd.in = pd;
	if (!pd || !cq || mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD)) {
		fprintf(stderr, "pd/cq: %s\n", strerror(errno));
		return 1;
	}
	pdn = dpd.pdn;
	dmr = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	smr = ibv_reg_mr(pd, src, BUF, IBV_ACCESS_LOCAL_WRITE);
	if (!dmr || !smr) {
		fprintf(stderr, "reg_mr: %s\n", strerror(errno));
		return 1;
	}
	test_cap();
	test_ucx_atomic_key(dst, dmr, src, smr);
	test_entities(dst, dmr, src, smr);
	ibv_dereg_mr(dmr);
	ibv_dereg_mr(smr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(dst);
	free(src);
	return smx_test_done();
}
