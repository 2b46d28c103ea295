/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv indirect mkeys through the public API: mlx5dv_create_mkey /
 * destroy_mkey, mlx5dv_wr_mkey_configure with its setters,
 * mlx5dv_wr_mr_list / _interleaved, LOCAL_INV and send-with-invalidate.
 * The two layouts of the mlx5dv_wr_mkey_configure(3) man page are
 * reproduced byte for byte with an RDMA write through the mkey:
 *   list: 64 bytes into mr1, then 4096 bytes into mr2;
 *   interleaved: {mr1, 512 bytes, skip 4}, {mr2, 8 bytes, skip 0},
 *   repeated twice: data at mr1+0, mr2+0, mr1+516, mr2+8.
 * Then the bad flows: too many entries, a setter twice, fewer setters,
 * no INLINE, signature setters, wrong rights (outer and inner),
 * out-of-bounds accesses, use after LOCAL_INV, remote invalidation.
 * Each QP talks to itself (RC loopback); an error CQE moves it to ERR, so
 * every failing access gets a fresh QP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "smx_test.h"
#include "verbs_test_util.h"

#define ALL_MKEY_OPS                                                           \
	(MLX5DV_QP_EX_WITH_MR_LIST | MLX5DV_QP_EX_WITH_MR_INTERLEAVED |        \
	 MLX5DV_QP_EX_WITH_MKEY_CONFIGURE)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

/* RST -> RTS, connected to itself. */
static int to_rts(struct ibv_qp *qp)
{
	return qp_to_rts_loopback(ctx, qp, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ);
}

/* An RC QP in RTS with the mkey WRs; @inl: max_inline_data. */
static struct ibv_qp *mk_qp(uint32_t inl, uint64_t dvops)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = inl },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND_WITH_INV,
	};
	struct mlx5dv_qp_init_attr dv = { .comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
					  .send_ops_flags = dvops };
	struct ibv_qp *qp = mlx5dv_create_qp(ctx, &a, &dv);

	CHECKM(qp != NULL, "mlx5dv_create_qp: %s", strerror(errno));
	if (qp && to_rts(qp)) {
		CHECKM(0, "to_rts: %s", strerror(errno));
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* One completion (5 s at most). */
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

/* Drains what an errored QP left behind. */
static void drain(void)
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

static struct mlx5dv_mkey *mkey_new(uint32_t flags, uint16_t max)
{
	struct mlx5dv_mkey_init_attr ma = { .pd = pd, .create_flags = flags,
					    .max_entries = max };
	struct mlx5dv_mkey *mk = mlx5dv_create_mkey(&ma);

	CHECKM(mk != NULL, "create_mkey: %s", strerror(errno));
	return mk;
}

/* Expects one signaled success of opcode @op. */
static void expect_ok(const char *what, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	CHECKM(!poll1(&wc) && wc.status == IBV_WC_SUCCESS && wc.opcode == op,
	       "%s: status %d (%s) opcode %d, want success/%d", what, wc.status,
	       ibv_wc_status_str(wc.status), wc.opcode, op);
}

static void expect_err(const char *what, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	CHECKM(!poll1(&wc) && wc.status == st, "%s: status %d (%s), want %s", what,
	       wc.status, ibv_wc_status_str(wc.status), ibv_wc_status_str(st));
}

static int post_rdma_write(struct ibv_qp *qp, uint32_t rkey, uint64_t raddr,
			   struct ibv_mr *src, uint64_t off, uint32_t len)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(qx);
	qx->wr_id = 2;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, rkey, raddr);
	ibv_wr_set_sge(qx, src->lkey, (uintptr_t)src->addr + off, len);
	return ibv_wr_complete(qx);
}

/* The man page's list: 64 bytes into mr1, then 4096 into mr2. */
static int conf_list(struct ibv_qp *qp, struct mlx5dv_mkey *mk, struct ibv_mr *mr1,
		     struct ibv_mr *mr2, uint32_t acc)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp_ex *dx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
	struct mlx5dv_mkey_conf_attr attr = {};
	struct ibv_sge sgl[2] = {
		{ .addr = (uintptr_t)mr1->addr, .length = 64, .lkey = mr1->lkey },
		{ .addr = (uintptr_t)mr2->addr, .length = 4096, .lkey = mr2->lkey },
	};

	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	mlx5dv_wr_mkey_configure(dx, mk, 2, &attr);
	mlx5dv_wr_set_mkey_access_flags(dx, acc);
	mlx5dv_wr_set_mkey_layout_list(dx, 2, sgl);
	return ibv_wr_complete(qx);
}

/* The man page's interleaved layout, repeated twice. */
static int conf_interleaved(struct ibv_qp *qp, struct mlx5dv_mkey *mk, struct ibv_mr *mr1,
			    struct ibv_mr *mr2, bool old_api)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp_ex *dx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
	struct mlx5dv_mkey_conf_attr attr = {};
	struct mlx5dv_mr_interleaved data[2] = {
		{ .addr = (uintptr_t)mr1->addr, .bytes_count = 512, .bytes_skip = 4,
		  .lkey = mr1->lkey },
		{ .addr = (uintptr_t)mr2->addr, .bytes_count = 8, .bytes_skip = 0,
		  .lkey = mr2->lkey },
	};

	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	if (old_api) {
		mlx5dv_wr_mr_interleaved(dx, mk, IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE,
					 2, 2, data);
	} else {
		mlx5dv_wr_mkey_configure(dx, mk, 2, &attr);
		mlx5dv_wr_set_mkey_access_flags(dx, IBV_ACCESS_REMOTE_READ |
						IBV_ACCESS_REMOTE_WRITE);
		mlx5dv_wr_set_mkey_layout_interleaved(dx, 2, 2, data);
	}
	return ibv_wr_complete(qx);
}

static int local_inv(struct ibv_qp *qp, uint32_t key)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(qx);
	qx->wr_id = 3;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(qx, key);
	return ibv_wr_complete(qx);
}

struct bufs {
	uint8_t *b1, *b2, *src;
	struct ibv_mr *mr1, *mr2, *src_mr;
};

static void fill(struct bufs *b)
{
	size_t i;

	memset(b->b1, 0xee, 8192);
	memset(b->b2, 0xdd, 8192);
	for (i = 0; i < 8192; i++)
		b->src[i] = (uint8_t)(i * 7 + 1);
}

static bool all(const uint8_t *p, int v, size_t n)
{
	while (n--)
		if (*p++ != (uint8_t)v)
			return false;
	return true;
}

static void test_create(void)
{
	struct mlx5dv_mkey_init_attr ma = { .pd = pd, .max_entries = 3 };
	struct mlx5dv_mkey *mk;

	ma.create_flags = 0;
	CHECKM(!mlx5dv_create_mkey(&ma) && errno == EOPNOTSUPP, "no flags: errno %d", errno);
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			  MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
	mk = mlx5dv_create_mkey(&ma);
	CHECKM(mk != NULL, "signature mkey: errno %d", errno);
	if (mk)
		CHECKM(!mlx5dv_destroy_mkey(mk), "destroy signature mkey");
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			  MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO;
	mk = mlx5dv_create_mkey(&ma);
	CHECKM(mk != NULL, "crypto mkey: errno %d", errno);
	if (mk)
		CHECKM(!mlx5dv_destroy_mkey(mk), "destroy crypto mkey");
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	mk = mlx5dv_create_mkey(&ma);
	CHECKM(mk && ma.max_entries == 4 && mk->lkey == mk->rkey && !(mk->lkey & 0xff),
	       "indirect: %s, max_entries %u", mk ? "ok" : strerror(errno), ma.max_entries);
	if (mk)
		CHECKM(!mlx5dv_destroy_mkey(mk), "destroy_mkey");
}

/* The two layouts of the man page, byte for byte, then local use. */
static void test_seed_layouts(struct bufs *b)
{
	struct ibv_qp *qp = mk_qp(512, ALL_MKEY_OPS);
	struct mlx5dv_mkey *mk = mkey_new(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 3);
	int ret;

	if (!qp || !mk)
		goto out;

	/* List: 64 bytes into mr1, the next 4096 into mr2. */
	fill(b);
	ret = conf_list(qp, mk, b->mr1, b->mr2, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	CHECKM(!ret, "configure list: %d", ret);
	expect_ok("configure list", IBV_WC_DRIVER1);
	ret = post_rdma_write(qp, mk->rkey, 0, b->src_mr, 0, 64 + 4096);
	CHECKM(!ret, "rdma write: %d", ret);
	expect_ok("write through the list mkey", IBV_WC_RDMA_WRITE);
	CHECKM(!memcmp(b->b1, b->src, 64) && all(b->b1 + 64, 0xee, 8192 - 64),
	       "mr1 holds bytes 0..63 and nothing else");
	CHECKM(!memcmp(b->b2, b->src + 64, 4096) && all(b->b2 + 4096, 0xdd, 8192 - 4096),
	       "mr2 holds bytes 64..4159 and nothing else");
	/* An offset write (zero-based: the address is an offset). */
	fill(b);
	ret = post_rdma_write(qp, mk->rkey, 60, b->src_mr, 0, 8);
	expect_ok("write across the entry boundary", IBV_WC_RDMA_WRITE);
	CHECKM(!ret && !memcmp(b->b1 + 60, b->src, 4) && !memcmp(b->b2, b->src + 4, 4) &&
	       all(b->b1, 0xee, 60) && all(b->b2 + 4, 0xdd, 100),
	       "offset 60: 4 bytes at mr1+60, 4 at mr2+0");

	/* LOCAL_INV, then the interleaved layout on the same key (new API). */
	CHECKM(!local_inv(qp, mk->lkey), "local_inv post");
	expect_ok("local_inv", IBV_WC_LOCAL_INV);
	fill(b);
	ret = conf_interleaved(qp, mk, b->mr1, b->mr2, false);
	CHECKM(!ret, "configure interleaved: %d", ret);
	expect_ok("configure interleaved", IBV_WC_DRIVER1);
	ret = post_rdma_write(qp, mk->rkey, 0, b->src_mr, 0, 2 * (512 + 8));
	CHECKM(!ret, "rdma write: %d", ret);
	expect_ok("write through the interleaved mkey", IBV_WC_RDMA_WRITE);
	CHECKM(!memcmp(b->b1, b->src, 512) && all(b->b1 + 512, 0xee, 4) &&
	       !memcmp(b->b1 + 516, b->src + 520, 512) && all(b->b1 + 1028, 0xee, 8192 - 1028),
	       "mr1: bytes 0..511 at 0, 520..1031 at 516, nothing else");
	CHECKM(!memcmp(b->b2, b->src + 512, 8) && !memcmp(b->b2 + 8, b->src + 1032, 8) &&
	       all(b->b2 + 16, 0xdd, 8192 - 16),
	       "mr2: bytes 512..519 at 0, 1032..1039 at 8, nothing else");

	/* Reconfigured without LOCAL_INV (overrides), old API: a local
	 * SEND gathering through the mkey into a plain receive buffer. */
	{
		struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
		struct ibv_recv_wr rw = { .wr_id = 9, .num_sge = 1 }, *bad;
		struct ibv_sge rs = { .addr = (uintptr_t)b->src, .length = 1040,
				      .lkey = b->src_mr->lkey };

		ret = conf_interleaved(qp, mk, b->mr1, b->mr2, true);
		CHECKM(!ret, "mr_interleaved: %d", ret);
		expect_ok("mr_interleaved", IBV_WC_DRIVER1);
		memset(b->src, 0, 8192);
		rw.sg_list = &rs;
		CHECK(!ibv_post_recv(qp, &rw, &bad));
		ibv_wr_start(qx);
		qx->wr_id = 4;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qx);
		ibv_wr_set_sge(qx, mk->lkey, 0, 1040);
		CHECK(!ibv_wr_complete(qx));
		{
			struct ibv_wc wc[2];
			int i, seen = 0;

			for (i = 0; i < 2; i++)
				if (!poll1(&wc[i]) && wc[i].status == IBV_WC_SUCCESS)
					seen |= wc[i].opcode == IBV_WC_SEND ? 1 :
						wc[i].opcode == IBV_WC_RECV ? 2 : 0;
			CHECKM(seen == 3, "send gathered through the mkey and its "
			       "receive: %d", seen);
		}
		CHECKM(!memcmp(b->src, b->b1, 512) && !memcmp(b->src + 512, b->b2, 8) &&
		       !memcmp(b->src + 520, b->b1 + 516, 512) &&
		       !memcmp(b->src + 1032, b->b2 + 8, 8), "gathered in layout order");
	}
out:
	if (mk)
		CHECKM(!mlx5dv_destroy_mkey(mk), "destroy_mkey");
	if (qp)
		ibv_destroy_qp(qp);
}

/* Builder misuse: every case fails its batch at wr_complete. */
static void test_builder_errors(struct bufs *b)
{
	struct ibv_qp *qp = mk_qp(512, ALL_MKEY_OPS), *small = mk_qp(0, ALL_MKEY_OPS);
	struct mlx5dv_mkey *mk = mkey_new(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 3);
	struct mlx5dv_mkey *big = mkey_new(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 8);
	struct mlx5dv_mkey_conf_attr attr = {};
	struct ibv_sge sg[8];
	struct mlx5dv_mr_interleaved il[8];
	struct ibv_qp_ex *qx;
	struct mlx5dv_qp_ex *dx;
	struct ibv_wc wc;
	int i, ret;

	if (!qp || !small || !mk || !big)
		goto out;
	for (i = 0; i < 8; i++) {
		sg[i] = (struct ibv_sge){ .addr = (uintptr_t)b->b1 + 16 * i, .length = 16,
					  .lkey = b->mr1->lkey };
		il[i] = (struct mlx5dv_mr_interleaved){ .addr = (uintptr_t)b->b1 + 64 * i,
						       .bytes_count = 16, .bytes_skip = 0,
						       .lkey = b->mr1->lkey };
	}
	qx = ibv_qp_to_qp_ex(qp);
	dx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);

#define BATCH(want, what, ...)                                                 \
	do {                                                                   \
		ibv_wr_start(qx);                                              \
		qx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;            \
		__VA_ARGS__;                                                   \
		ret = ibv_wr_complete(qx);                                     \
		CHECKM(ret == (want), "%s: %d, want %d", what, ret, want);     \
	} while (0)

	/* Too many entries: 5 list entries in a 4-entry mkey; 4 interleaved
	 * need 5 (the repeat header takes one). */
	BATCH(ENOMEM, "5 entries in 4", mlx5dv_wr_mr_list(dx, mk, 0, 5, sg));
	BATCH(ENOMEM, "4 interleaved in 4",
	      mlx5dv_wr_mr_interleaved(dx, mk, 0, 1, 4, il));
	/* ... and more than the WQE holds: 5 list entries in the default
	 * 192-byte WQE even though the mkey has 8. */
	qx = ibv_qp_to_qp_ex(small);
	dx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
	BATCH(ENOMEM, "5 entries in a small WQE", mlx5dv_wr_mr_list(dx, big, 0, 5, sg));
	BATCH(0, "4 entries in a small WQE", mlx5dv_wr_mr_list(dx, big, 0, 4, sg));
	expect_ok("4 entries in a small WQE", IBV_WC_DRIVER1);
	qx = ibv_qp_to_qp_ex(qp);
	dx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
	BATCH(0, "8 entries in a large WQE", mlx5dv_wr_mr_list(dx, big, 0, 8, sg));
	expect_ok("8 entries in a large WQE", IBV_WC_DRIVER1);

	/* Setters: each once, after a builder, as many as announced. */
	BATCH(EINVAL, "access twice",
	      mlx5dv_wr_mkey_configure(dx, mk, 3, &attr);
	      mlx5dv_wr_set_mkey_access_flags(dx, 0);
	      mlx5dv_wr_set_mkey_access_flags(dx, IBV_ACCESS_LOCAL_WRITE);
	      mlx5dv_wr_set_mkey_layout_list(dx, 1, sg));
	BATCH(EINVAL, "layout twice",
	      mlx5dv_wr_mkey_configure(dx, mk, 2, &attr);
	      mlx5dv_wr_set_mkey_layout_list(dx, 1, sg);
	      mlx5dv_wr_set_mkey_layout_interleaved(dx, 1, 1, il));
	BATCH(EINVAL, "setter without builder", mlx5dv_wr_set_mkey_layout_list(dx, 1, sg));
	BATCH(EINVAL, "more setters than announced",
	      mlx5dv_wr_mkey_configure(dx, mk, 1, &attr);
	      mlx5dv_wr_set_mkey_layout_list(dx, 1, sg);
	      mlx5dv_wr_set_mkey_access_flags(dx, 0));
	BATCH(EINVAL, "fewer setters than announced",
	      mlx5dv_wr_mkey_configure(dx, mk, 2, &attr);
	      mlx5dv_wr_set_mkey_layout_list(dx, 1, sg));
	BATCH(EINVAL, "unknown access flag",
	      mlx5dv_wr_mkey_configure(dx, mk, 1, &attr);
	      mlx5dv_wr_set_mkey_access_flags(dx, IBV_ACCESS_ZERO_BASED));
	{
		struct mlx5dv_sig_block_attr sa = {};

		BATCH(EINVAL, "signature setter on an mkey without BLOCK_SIGNATURE",
		      mlx5dv_wr_mkey_configure(dx, mk, 1, &attr);
		      mlx5dv_wr_set_mkey_sig_block(dx, &sa));
	}
	ibv_wr_start(qx);
	qx->wr_flags = IBV_SEND_SIGNALED;	/* no INLINE */
	mlx5dv_wr_mr_list(dx, mk, 0, 1, sg);
	ret = ibv_wr_complete(qx);
	CHECKM(ret == EOPNOTSUPP, "without IBV_SEND_INLINE: %d", ret);
	/* Nothing of the failed batches reached the device. */
	CHECKM(ibv_poll_cq(cq, 1, &wc) == 0, "no completion from failed batches");
	/* A good configuration with 0 setters after all this. */
	BATCH(0, "configure, no setters", mlx5dv_wr_mkey_configure(dx, mk, 0, &attr));
	expect_ok("configure, no setters", IBV_WC_DRIVER1);
#undef BATCH
out:
	if (mk)
		mlx5dv_destroy_mkey(mk);
	if (big)
		mlx5dv_destroy_mkey(big);
	if (qp)
		ibv_destroy_qp(qp);
	if (small)
		ibv_destroy_qp(small);
}

/*
 * Accesses that must fail, each on a fresh QP: outer rights, inner rights
 * (an inner MR without local write), out of bounds, after LOCAL_INV, and
 * an inner key of another PD. Nothing outside the permitted ranges moves.
 */
static void test_access_errors(struct bufs *b)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct ibv_mr *ro = ibv_reg_mr(pd, b->b2, 8192, 0);
	struct ibv_mr *other = pd2 ? ibv_reg_mr(pd2, b->b2, 8192, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct mlx5dv_mkey *mk = mkey_new(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 3);
	struct ibv_qp *qp;
	int step;

	CHECKM(pd2 && ro && other, "setup: %s", strerror(errno));
	if (!pd2 || !ro || !other || !mk)
		goto out;
	for (step = 0; step < 6; step++) {
		static const char *const what[] = {
			"write to a mkey without remote write",
			"write through an inner MR without local write",
			"write past the end of the layout",
			"write after LOCAL_INV",
			"inner key in another pd",
			"local send past the end",
		};
		struct ibv_mr *m2 = step == 1 ? ro : step == 4 ? other : b->mr2;
		uint32_t acc = step == 0 ? IBV_ACCESS_LOCAL_WRITE :
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		uint32_t len = step == 2 ? 64 + 4096 + 1 : 64 + 4096;
		int ret;

		qp = mk_qp(512, ALL_MKEY_OPS);
		if (!qp)
			break;
		fill(b);
		ret = conf_list(qp, mk, b->mr1, m2, acc);
		CHECKM(!ret, "%s: configure %d", what[step], ret);
		expect_ok(what[step], IBV_WC_DRIVER1);
		if (step == 3) {
			CHECK(!local_inv(qp, mk->lkey));
			expect_ok("local_inv", IBV_WC_LOCAL_INV);
		}
		if (step == 5) {
			struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);

			ibv_wr_start(qx);
			qx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_send(qx);
			ibv_wr_set_sge(qx, mk->lkey, 100, 64 + 4096 - 99);
			CHECK(!ibv_wr_complete(qx));
			expect_err(what[step], IBV_WC_LOC_PROT_ERR);
		} else {
			CHECK(!post_rdma_write(qp, mk->rkey, 0, b->src_mr, 0, len));
			expect_err(what[step], IBV_WC_REM_ACCESS_ERR);
		}
		drain();
		CHECKM(all(b->b1, 0xee, 8192) && all(b->b2, 0xdd, 8192),
		       "%s: memory untouched", what[step]);
		ibv_destroy_qp(qp);
	}
out:
	if (mk)
		mlx5dv_destroy_mkey(mk);
	if (ro)
		ibv_dereg_mr(ro);
	if (other)
		ibv_dereg_mr(other);
	if (pd2)
		ibv_dealloc_pd(pd2);
}

/* Send with invalidate: only a mkey created with REMOTE_INVALIDATE. */
static void test_remote_invalidate(struct bufs *b)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		uint32_t flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				 (pass ? MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE : 0);
		struct mlx5dv_mkey *mk = mkey_new(flags, 3);
		struct ibv_qp *qp = mk_qp(512, ALL_MKEY_OPS);
		struct ibv_recv_wr rw = { .wr_id = 9, .num_sge = 1 }, *bad;
		struct ibv_sge rs = { .addr = 0, .length = 16 };
		struct ibv_qp_ex *qx;

		if (!mk || !qp)
			goto next;
		qx = ibv_qp_to_qp_ex(qp);
		CHECK(!conf_list(qp, mk, b->mr1, b->mr2, IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE));
		expect_ok("configure", IBV_WC_DRIVER1);
		rs.lkey = b->src_mr->lkey;
		rs.addr = (uintptr_t)b->src;
		rw.sg_list = &rs;
		CHECK(!ibv_post_recv(qp, &rw, &bad));
		ibv_wr_start(qx);
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_inv(qx, mk->rkey);
		ibv_wr_set_sge(qx, b->src_mr->lkey, (uintptr_t)b->src, 0);
		CHECK(!ibv_wr_complete(qx));
		if (pass) {
			struct ibv_wc wc[2];
			int i;

			for (i = 0; i < 2; i++)
				CHECKM(!poll1(&wc[i]) && wc[i].status == IBV_WC_SUCCESS,
				       "send_inv: status %s", ibv_wc_status_str(wc[i].status));
			CHECKM((wc[0].wc_flags | wc[1].wc_flags) & IBV_WC_WITH_INV,
			       "receive reports the invalidated key");
			/* The key is invalid now. */
			fill(b);
			CHECK(!post_rdma_write(qp, mk->rkey, 0, b->src_mr, 0, 16));
			expect_err("write after remote invalidation", IBV_WC_REM_ACCESS_ERR);
			drain();
			CHECKM(all(b->b1, 0xee, 8192), "memory untouched");
		} else {
			/* Refused: the requester sees the error. */
			struct ibv_wc wc;
			bool err = false;
			int i;

			for (i = 0; i < 2 && !poll1(&wc); i++)
				err |= wc.status != IBV_WC_SUCCESS;
			CHECKM(err, "send_inv on a mkey without REMOTE_INVALIDATE fails");
			drain();
		}
next:
		if (qp)
			ibv_destroy_qp(qp);
		if (mk)
			mlx5dv_destroy_mkey(mk);
	}
}

int main(void)
{
	struct bufs b;

	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!pd || !cq) {
		fprintf(stderr, "setup: %s\n", strerror(errno));
		return 1;
	}
	b.b1 = aligned_alloc(4096, 8192);
	b.b2 = aligned_alloc(4096, 8192);
	b.src = aligned_alloc(4096, 8192);
	b.mr1 = ibv_reg_mr(pd, b.b1, 8192, IBV_ACCESS_LOCAL_WRITE);
	b.mr2 = ibv_reg_mr(pd, b.b2, 8192, IBV_ACCESS_LOCAL_WRITE);
	b.src_mr = ibv_reg_mr(pd, b.src, 8192, IBV_ACCESS_LOCAL_WRITE);
	if (!b.mr1 || !b.mr2 || !b.src_mr) {
		fprintf(stderr, "reg_mr: %s\n", strerror(errno));
		return 1;
	}
	test_create();
	test_seed_layouts(&b);
	test_builder_errors(&b);
	test_access_errors(&b);
	test_remote_invalidate(&b);
	ibv_dereg_mr(b.mr1);
	ibv_dereg_mr(b.mr2);
	ibv_dereg_mr(b.src_mr);
	ibv_destroy_cq(cq);
	CHECKM(!ibv_dealloc_pd(pd), "dealloc_pd: %s", strerror(errno));
	ibv_close_device(ctx);
	free(b.b1);
	free(b.b2);
	free(b.src);
	return smx_test_done();
}
