/* SPDX-License-Identifier: MIT */
/*
 * DC transport through the public API: DCTs (created at INIT->RTR, numbers
 * from the QP space, receives from their SRQ on their CQ, the DC access key
 * checked), DCIs (SEND, RDMA WRITE/READ, atomics towards any DCT with
 * mlx5dv_wr_set_dc_addr), and DCI stream channels (an error marks only its
 * stream until 2^log_num_errored streams are errored, errored streams
 * flush, mlx5dv_dci_stream_id_reset). Bad flows: wrong DC key, unknown DCT,
 * hostile creation attributes and transitions.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "smx_test.h"
#include "verbs_test_util.h"

#define DC_KEY 0xbadc0deull
#define BUF 4096

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_srq *srq;
static struct ibv_mr *mr;
static struct ibv_ah *ah;
static uint8_t *buf;

/* Polls one completion (up to 2 s); returns its status, -1 on timeout. */
static int poll1(struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n == 1)
			return wc->status;
		if (n < 0)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 2)
			return -1;
	}
}

/* The requester's and the responder's successful completions of one SEND,
 * in either order; 0 when both came. */
static int poll2(struct ibv_wc *req, struct ibv_wc *resp)
{
	struct ibv_wc a, b;

	if (poll1(&a) != IBV_WC_SUCCESS || poll1(&b) != IBV_WC_SUCCESS)
		return -1;
	if (a.opcode & IBV_WC_RECV) {
		*resp = a;
		*req = b;
	} else {
		*req = a;
		*resp = b;
	}
	return 0;
}

static struct ibv_qp *dct_create(uint64_t key, struct ibv_srq *s, uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_DRIVER,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = s,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCT, .dct_access_key = key },
	};

	if (send_ops) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = send_ops;
	}
	errno = 0;
	return mlx5dv_create_qp(ctx, &a, &dv);
}

static struct ibv_ah_attr self_av(void)
{
	struct ibv_port_attr pa;
	struct ibv_ah_attr av = { .port_num = 1, .is_global = 1 };

	ibv_query_port(ctx, 1, &pa);
	av.dlid = pa.lid;
	ibv_query_gid(ctx, 1, 0, &av.grh.dgid);
	av.grh.sgid_index = 0;
	av.grh.hop_limit = 64;
	return av;
}

static int dct_to_rtr(struct ibv_qp *qp)
{
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .pkey_index = 0,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	int r;

	r = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS);
	if (r)
		return r;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.min_rnr_timer = 1;
	at.ah_attr = self_av();
	return ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			     IBV_QP_MIN_RNR_TIMER);
}

static struct ibv_qp *dci_create(int log_conc, int log_err)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_DRIVER,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,	/* as pyverbs passes it: ignored by a DCI */
		.cap = { .max_send_wr = 32, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		.sq_sig_all = 1,
	};
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCI },
	};

	if (log_conc >= 0) {
		dv.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
		dv.dc_init_attr.dci_streams.log_num_concurent = (uint8_t)log_conc;
		dv.dc_init_attr.dci_streams.log_num_errored = (uint8_t)log_err;
	}
	errno = 0;
	return mlx5dv_create_qp(ctx, &a, &dv);
}

/* RESET -> INIT -> RTR -> RTS with the masks pyverbs uses for a DCI. */
static int dci_to_rts(struct ibv_qp *qp, uint8_t timeout, uint8_t retry)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int r;

	r = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	if (r)
		return r;
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	r = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PATH_MTU);
	if (r)
		return r;
	at.qp_state = IBV_QPS_RTS;
	at.timeout = timeout;
	at.retry_cnt = retry;
	at.rnr_retry = 7;
	at.sq_psn = 0;
	at.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void post_srq(uint32_t off, uint32_t len, uint64_t id)
{
	struct ibv_sge sg = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1 }, *bad;

	CHECK(!ibv_post_srq_recv(srq, &wr, &bad));
}

enum { OP_SEND, OP_WRITE, OP_READ, OP_FADD };

/* One DCI WQE to @dctn with @key on @stream (-1: wr_set_dc_addr). */
static int dci_post(struct ibv_qp *dci, int op, uint32_t dctn, uint64_t key, int stream,
		    uint32_t lkey, uint32_t loff, uint32_t roff, uint32_t len)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *dx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);

	ibv_wr_start(qx);
	qx->wr_id = 0x100 + (uint64_t)op;
	qx->wr_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case OP_SEND:
		ibv_wr_send(qx);
		break;
	case OP_WRITE:
		ibv_wr_rdma_write(qx, mr->rkey, (uintptr_t)buf + roff);
		break;
	case OP_READ:
		ibv_wr_rdma_read(qx, mr->rkey, (uintptr_t)buf + roff);
		break;
	default:
		ibv_wr_atomic_fetch_add(qx, mr->rkey, (uintptr_t)buf + roff, 5);
		break;
	}
	if (stream < 0)
		mlx5dv_wr_set_dc_addr(dx, ah, dctn, key);
	else
		mlx5dv_wr_set_dc_addr_stream(dx, ah, dctn, key, (uint16_t)stream);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)buf + loff, len);
	return ibv_wr_complete(qx);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr at;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &at, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return at.qp_state;
}

static void test_create_attrs(void)
{
	struct mlx5dv_context dc = { .comp_mask = MLX5DV_CONTEXT_MASK_DCI_STREAMS };
	struct ibv_qp *qp;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RTS };

	CHECK(!mlx5dv_query_device(ctx, &dc));
	CHECK(dc.comp_mask & MLX5DV_CONTEXT_MASK_DCI_STREAMS);
	CHECKM(dc.dci_streams_caps.max_log_num_concurent == 4 &&
	       dc.dci_streams_caps.max_log_num_errored == 3, "caps %u %u",
	       dc.dci_streams_caps.max_log_num_concurent,
	       dc.dci_streams_caps.max_log_num_errored);

	qp = dct_create(DC_KEY, NULL, 0);
	CHECKM(!qp && errno == EINVAL, "DCT without an SRQ: errno %d", errno);
	qp = dct_create(DC_KEY, srq, IBV_QP_EX_WITH_SEND);
	CHECKM(!qp && errno == EINVAL, "DCT with send ops: errno %d", errno);
	qp = dci_create(5, 1);
	CHECKM(!qp && errno == EINVAL, "DCI streams above the caps: errno %d", errno);
	qp = dci_create(1, 4);
	CHECKM(!qp && errno == EINVAL, "DCI errored streams above the caps: errno %d",
	       errno);

	/* A DCT has its number once it is RTR; nothing beyond RTR. */
	qp = dct_create(DC_KEY, srq, 0);
	CHECKM(qp, "DCT: errno %d", errno);
	if (!qp)
		return;
	CHECK_EQ(qp->qp_num, 0);
	CHECK_EQ(ibv_modify_qp(qp, &at, IBV_QP_STATE), EINVAL);
	CHECK_EQ(dct_to_rtr(qp), 0);
	CHECK(qp->qp_num != 0);
	CHECK_EQ(qp_state(qp), IBV_QPS_RTR);
	{
		struct ibv_qp_attr q;
		struct ibv_qp_init_attr ia;

		CHECK(!ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, &ia));
		CHECK_EQ(q.path_mtu, IBV_MTU_1024);
		CHECK_EQ(q.min_rnr_timer, 1);
		CHECK(q.qp_access_flags & IBV_ACCESS_REMOTE_WRITE);
		CHECK(ia.srq == srq);
	}
	CHECK_EQ(ibv_modify_qp(qp, &at, IBV_QP_STATE), EINVAL);
	CHECK_EQ(mlx5dv_dci_stream_id_reset(qp, 1), EOPNOTSUPP);	/* not RTS */
	CHECK(!ibv_destroy_qp(qp));
	/* Destroyed before RTR: nothing was created in the device. */
	qp = dct_create(DC_KEY, srq, 0);
	CHECK(qp && !ibv_destroy_qp(qp));
}

static void test_traffic(void)
{
	struct ibv_qp *dct = dct_create(DC_KEY, srq, 0), *dci = dci_create(-1, 0);
	struct ibv_wc wc, rwc;
	uint64_t v;
	int i;

	CHECKM(dct && dci, "create: errno %d", errno);
	if (!dct || !dci)
		return;
	CHECK_EQ(dct_to_rtr(dct), 0);
	CHECK_EQ(dci_to_rts(dci, 14, 7), 0);
	CHECK(dct->qp_num != dci->qp_num);

	/* SEND into the DCT's SRQ, completed on its CQ. */
	for (i = 0; i < 3; i++) {
		memset(buf, 'a' + i, 64);
		memset(buf + 1024, 0, 64);
		post_srq(1024, 256, 0x500 + (uint64_t)i);
		CHECK_EQ(dci_post(dci, OP_SEND, dct->qp_num, DC_KEY, -1, mr->lkey, 0, 0, 64), 0);
		CHECK_EQ(poll2(&wc, &rwc), 0);
		CHECK(wc.opcode == IBV_WC_SEND && wc.qp_num == dci->qp_num);
		CHECK(rwc.opcode == IBV_WC_RECV && rwc.qp_num == dct->qp_num &&
		      rwc.src_qp == dci->qp_num && rwc.byte_len == 64 &&
		      rwc.wr_id == 0x500 + (uint64_t)i);
		CHECK(buf[1024] == 'a' + i && buf[1087] == 'a' + i);
	}

	/* RDMA WRITE, READ, fetch-and-add checked against the DCT's PD. */
	memset(buf, 'w', 128);
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, -1, mr->lkey, 0, 2048, 128), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_SUCCESS);
	CHECK(wc.opcode == IBV_WC_RDMA_WRITE && buf[2048] == 'w' && buf[2175] == 'w');
	memset(buf + 2048, 'r', 32);
	CHECK_EQ(dci_post(dci, OP_READ, dct->qp_num, DC_KEY, -1, mr->lkey, 256, 2048, 32), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_SUCCESS);
	CHECK(wc.opcode == IBV_WC_RDMA_READ && buf[256] == 'r' && buf[287] == 'r');
	v = 10;		/* host order */
	memcpy(buf + 3072, &v, 8);
	CHECK_EQ(dci_post(dci, OP_FADD, dct->qp_num, DC_KEY, -1, mr->lkey, 512, 3072, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_SUCCESS);
	memcpy(&v, buf + 3072, 8);
	CHECK_EQ(v, 15);
	memcpy(&v, buf + 512, 8);
	CHECK_EQ(v, 10);

	/* Wrong DC access key: NAK remote access, the DCI goes to ERR, the
	 * DCT keeps serving. */
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY + 1, -1, mr->lkey, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(qp_state(dci), IBV_QPS_ERR);
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, -1, mr->lkey, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_WR_FLUSH_ERR);
	{
		struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };

		CHECK(!ibv_modify_qp(dci, &at, IBV_QP_STATE));
	}
	CHECK_EQ(dci_to_rts(dci, 1, 1), 0);
	CHECK_EQ(qp_state(dct), IBV_QPS_RTR);
	post_srq(1024, 256, 0x600);
	CHECK_EQ(dci_post(dci, OP_SEND, dct->qp_num, DC_KEY, -1, mr->lkey, 0, 0, 16), 0);
	CHECK_EQ(poll2(&wc, &rwc), 0);
	CHECK(rwc.wr_id == 0x600);

	/* Remote access error on the rkey: NAK, the DCT stays RTR. */
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, -1, mr->lkey, 0, BUF, 64), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(qp_state(dct), IBV_QPS_RTR);

	/* Unknown DCT: nobody answers, transport retries run out (8 us ack
	 * timeout, 1 retry). A QP number is no DCT either. */
	{
		struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };

		CHECK(!ibv_modify_qp(dci, &at, IBV_QP_STATE));
		CHECK_EQ(dci_to_rts(dci, 1, 1), 0);
		CHECK_EQ(dci_post(dci, OP_WRITE, 0xfff0, DC_KEY, -1, mr->lkey, 0, 2048, 8), 0);
		CHECK_EQ(poll1(&wc), IBV_WC_RETRY_EXC_ERR);
		CHECK(!ibv_modify_qp(dci, &at, IBV_QP_STATE));
		CHECK_EQ(dci_to_rts(dci, 1, 1), 0);
		CHECK_EQ(dci_post(dci, OP_WRITE, dci->qp_num, DC_KEY, -1, mr->lkey, 0, 2048, 8),
			 0);
		CHECK_EQ(poll1(&wc), IBV_WC_RETRY_EXC_ERR);
	}
	CHECK(!ibv_destroy_qp(dci));
	CHECK(!ibv_destroy_qp(dct));
}

static void test_streams(void)
{
	/* 4 streams, 2 errored streams allowed before the DCI stops. */
	struct ibv_qp *dct = dct_create(DC_KEY, srq, 0), *dci = dci_create(2, 1);
	uint32_t bad = mr->lkey ^ 0xffff00;
	struct ibv_wc wc;
	int s;

	CHECKM(dct && dci, "create: errno %d", errno);
	if (!dct || !dci)
		return;
	CHECK_EQ(dct_to_rtr(dct), 0);
	CHECK_EQ(dci_to_rts(dci, 14, 7), 0);

	/* Good traffic on stream ids beyond the channel count too. */
	for (s = 1; s <= 6; s++) {
		CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, s, mr->lkey, 0, 2048, 8), 0);
		CHECK_EQ(poll1(&wc), IBV_WC_SUCCESS);
	}
	/* Resetting a stream that is not in error fails. */
	CHECK(mlx5dv_dci_stream_id_reset(dci, 3) != 0);

	/* An error on stream 3: only stream 3 stops. */
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 3, bad, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(qp_state(dci), IBV_QPS_RTS);
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 3, mr->lkey, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 2, mr->lkey, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_SUCCESS);
	CHECK(mlx5dv_dci_stream_id_reset(dci, 4) != 0);
	CHECK_EQ(mlx5dv_dci_stream_id_reset(dci, 3), 0);
	CHECK(mlx5dv_dci_stream_id_reset(dci, 3) != 0);	/* once */
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 3, mr->lkey, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_SUCCESS);

	/* Two distinct errored streams reach 2^1: the DCI goes to ERR. The
	 * same stream twice counts once. */
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 5, bad, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(qp_state(dci), IBV_QPS_RTS);
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 5, bad, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_WR_FLUSH_ERR);	/* stream 5 is stopped */
	CHECK_EQ(qp_state(dci), IBV_QPS_RTS);
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 6, bad, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(qp_state(dci), IBV_QPS_ERR);
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 1, mr->lkey, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_WR_FLUSH_ERR);

	/* RESET forgets the errored streams. */
	{
		struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };

		CHECK(!ibv_modify_qp(dci, &at, IBV_QP_STATE));
	}
	CHECK_EQ(dci_to_rts(dci, 14, 7), 0);
	CHECK(mlx5dv_dci_stream_id_reset(dci, 5) != 0);
	CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 5, mr->lkey, 0, 2048, 8), 0);
	CHECK_EQ(poll1(&wc), IBV_WC_SUCCESS);
	CHECK(!ibv_destroy_qp(dci));

	/* Without stream channels, the first error stops the DCI. */
	dci = dci_create(-1, 0);
	CHECK(dci && !dci_to_rts(dci, 14, 7));
	if (dci) {
		CHECK_EQ(mlx5dv_dci_stream_id_reset(dci, 0), EINVAL);
		CHECK_EQ(dci_post(dci, OP_WRITE, dct->qp_num, DC_KEY, 1, bad, 0, 2048, 8), 0);
		CHECK_EQ(poll1(&wc), IBV_WC_LOC_PROT_ERR);
		CHECK_EQ(qp_state(dci), IBV_QPS_ERR);
		CHECK(!ibv_destroy_qp(dci));
	}
	CHECK(!ibv_destroy_qp(dct));
}

/* What the DCT process tells the DCI process. */
struct dct_info {
	uint32_t dctn, rkey;
	uint64_t addr;
};

/*
 * The DCT side of the two-process test, in a child forked before the
 * parent opens the device: a DCT with DC_KEY over a registered buffer;
 * after the parent's writes, the right-key one must have landed and the
 * wrong-key one not. Exit status 0 when so.
 */
static int dct_process(int to_parent, int from_parent)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct dct_info info;
	struct ibv_qp *dct;
	char go;
	int i, bad = 0;

	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	srq = pd ? ibv_create_srq(pd, &sa) : NULL;
	buf = aligned_alloc(4096, BUF);
	if (!pd || !cq || !srq || !buf)
		return 2;
	memset(buf, 0, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	dct = mr ? dct_create(DC_KEY, srq, 0) : NULL;
	if (!dct || dct_to_rtr(dct))
		return 3;
	info.dctn = dct->qp_num;
	info.rkey = mr->rkey;
	info.addr = (uintptr_t)buf;
	if (write(to_parent, &info, sizeof(info)) != sizeof(info) ||
	    read(from_parent, &go, 1) != 1)
		return 4;
	for (i = 0; i < 64; i++)
		bad |= buf[2048 + i] != 'x' || buf[3072 + i] != 0;
	if (bad)
		fprintf(stderr, "dct process: buf[2048] 0x%x buf[3072] 0x%x\n",
			buf[2048], buf[3072]);
	ibv_destroy_qp(dct);
	return bad ? 5 : 0;
}

/* The DCI side: RDMA WRITEs into the other process's DCT, with its key
 * (lands) and with another (REMOTE_ACCESS, nothing written). */
static void test_two_processes(int from_child, int to_child, pid_t child)
{
	struct dct_info info;
	struct ibv_qp *dci = dci_create(-1, 0);
	struct ibv_qp_ex *qx;
	struct mlx5dv_qp_ex *dx;
	struct ibv_wc wc;
	int st = 0, k;

	CHECKM(read(from_child, &info, sizeof(info)) == sizeof(info),
	       "no DCT from the child");
	CHECK(dci && !dci_to_rts(dci, 14, 3));
	if (!dci)
		goto out;
	memset(buf, 'x', 64);
	for (k = 0; k < 2; k++) {
		qx = ibv_qp_to_qp_ex(dci);
		dx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
		ibv_wr_start(qx);
		qx->wr_id = 0x900 + (uint64_t)k;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qx, info.rkey, info.addr + (k ? 3072 : 2048));
		mlx5dv_wr_set_dc_addr(dx, ah, info.dctn, k ? DC_KEY + 1 : DC_KEY);
		ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)buf, 64);
		CHECK_EQ(ibv_wr_complete(qx), 0);
		CHECKM(poll1(&wc) == (k ? IBV_WC_REM_ACCESS_ERR : IBV_WC_SUCCESS),
		       "cross-process DC write %d: status %d", k, wc.status);
	}
	ibv_destroy_qp(dci);
out:
	CHECK(write(to_child, "g", 1) == 1);
	CHECK(waitpid(child, &st, 0) == child);
	CHECKM(WIFEXITED(st) && WEXITSTATUS(st) == 0, "dct process status 0x%x", st);
}

int main(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct ibv_ah_attr av;
	char path[128];
	int a[2], b[2];
	pid_t child;

	/* A private fabric segment, and the DCT process forked before this
	 * one opens the device. */
	snprintf(path, sizeof(path), "%s/softmlx5-test-dc-%d",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	if (pipe(a) || pipe(b))
		return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		close(a[0]);
		close(b[1]);
		_exit(dct_process(a[1], b[0]));
	}
	close(a[1]);
	close(b[0]);

	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	srq = ibv_create_srq(pd, &sa);
	buf = aligned_alloc(4096, BUF);
	if (!pd || !cq || !srq || !buf) {
		fprintf(stderr, "setup: %s\n", strerror(errno));
		return 1;
	}
	memset(buf, 0, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	av = self_av();
	ah = ibv_create_ah(pd, &av);
	if (!mr || !ah) {
		fprintf(stderr, "setup: %s\n", strerror(errno));
		return 1;
	}

	test_create_attrs();
	test_traffic();
	test_streams();
	test_two_processes(a[0], b[1], child);

	ibv_destroy_ah(ah);
	ibv_dereg_mr(mr);
	ibv_destroy_srq(srq);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	unlink(path);
	return smx_test_done();
}
