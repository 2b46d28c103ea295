/* SPDX-License-Identifier: MIT */
/*
 * FlexIO Ethernet queues: flexio_sq_create / flexio_rq_create on a process's
 * DPA heap, refused attributes, the RQ's TIR and error state, and a frame
 * that a DPA SQ sends (WQE and doorbell record written into the DPA heap,
 * as DPA code would; the device's watcher picks it up) arriving at a host
 * raw packet QP through ibv_create_flow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <libflexio/flexio.h>

#include "smx_test.h"
#include "verbs_test_util.h"

extern struct flexio_app *test_flexio_app;

static struct ibv_context *ctx;

static const uint8_t dmac[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };

static flexio_uintptr_t heap(struct flexio_process *p, size_t len)
{
	flexio_uintptr_t a = 0;

	CHECK_EQ(flexio_buf_dev_alloc(p, len, &a), FLEXIO_STATUS_SUCCESS);
	if (a)
		memset((void *)(uintptr_t)a, 0, len);
	return a;
}

/* A NON_DPA CQ of 16 64-byte CQEs, owned by software. */
static struct flexio_cq *dpa_cq(struct flexio_process *p, uint8_t **ring)
{
	struct flexio_cq_attr ca = { .log_cq_depth = 4,
				     .element_type = FLEXIO_CQ_ELEMENT_TYPE_NON_DPA_CQ };
	struct flexio_cq *cq = NULL;
	int i;

	*ring = (uint8_t *)(uintptr_t)heap(p, 64 * 16);
	for (i = 0; i < 16; i++)
		(*ring)[i * 64 + 63] = MLX5_CQE_INVALID << 4;
	ca.cq_ring_qmem.daddr = (flexio_uintptr_t)(uintptr_t)*ring;
	ca.cq_dbr_daddr = heap(p, 8);
	CHECK_EQ(flexio_cq_create(p, NULL, &ca, &cq), FLEXIO_STATUS_SUCCESS);
	return cq;
}

static void test_queues(void)
{
	struct flexio_process *p = NULL;
	struct flexio_wq_attr wa = { 0 };
	struct flexio_sq *sq = NULL;
	struct flexio_rq *rq = NULL;
	struct flexio_cq *scq, *rcq;
	uint8_t *sring, *rring, *wq;
	volatile uint32_t *sdbr;

	CHECK_EQ(flexio_process_create(ctx, test_flexio_app, NULL, &p),
		 FLEXIO_STATUS_SUCCESS);
	if (!p)
		return;
	scq = dpa_cq(p, &sring);
	rcq = dpa_cq(p, &rring);
	CHECK(scq && rcq);
	if (!scq || !rcq)
		goto out;

	/* RQ: an unknown WQ type and odd strides refused; then a cyclic one
	 * (rq.wq_type left 0, as the SDK's packet_processor leaves it). */
	wa.log_wq_depth = 4;
	wa.wq_ring_qmem.daddr = heap(p, 64 * 16);
	wa.wq_dbr_qmem.daddr = heap(p, 8);
	wa.user_index = 0x77;
	wa.rq.wq_type = (enum flexio_wq_type)7;
	CHECK_EQ(flexio_rq_create(p, NULL, flexio_cq_get_cq_num(rcq), &wa, &rq),
		 FLEXIO_STATUS_FAILED);
	wa.rq.wq_type = FLEXIO_WQ_TYPE_LINKED_LIST;
	wa.log_wq_stride = 3;
	CHECK_EQ(flexio_rq_create(p, NULL, flexio_cq_get_cq_num(rcq), &wa, &rq),
		 FLEXIO_STATUS_FAILED);
	wa.log_wq_stride = 0;
	CHECK_EQ(flexio_rq_create(p, NULL, 0xabcdef, &wa, &rq), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_rq_create(p, NULL, flexio_cq_get_cq_num(rcq), &wa, &rq),
		 FLEXIO_STATUS_SUCCESS);
	CHECK(flexio_rq_get_wq_num(rq) != UINT32_MAX);
	CHECK(flexio_rq_get_tir(rq) != NULL);
	CHECK_EQ(flexio_rq_set_err_state(rq), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_rq_set_err_state(rq), FLEXIO_STATUS_FAILED);	/* not RDY */
	CHECK_EQ(flexio_rq_destroy(rq), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, NULL), FLEXIO_STATUS_FAILED);

	/* SQ: multi-packet WQEs, a non-64-byte stride, memory outside the
	 * heap refused; then one. */
	memset(&wa, 0, sizeof(wa));
	wa.log_wq_depth = 4;
	wq = (uint8_t *)(uintptr_t)heap(p, 64 * 16);
	sdbr = (volatile uint32_t *)(uintptr_t)heap(p, 8);
	wa.wq_ring_qmem.daddr = (flexio_uintptr_t)(uintptr_t)wq;
	wa.wq_dbr_qmem.daddr = (flexio_uintptr_t)(uintptr_t)sdbr;
	wa.user_index = 0x55;
	wa.sq.allow_multi_pkt_send_wqe = 1;
	CHECK_EQ(flexio_sq_create(p, NULL, flexio_cq_get_cq_num(scq), &wa, &sq),
		 FLEXIO_STATUS_FAILED);
	wa.sq.allow_multi_pkt_send_wqe = 0;
	wa.log_wq_stride = 4;
	CHECK_EQ(flexio_sq_create(p, NULL, flexio_cq_get_cq_num(scq), &wa, &sq),
		 FLEXIO_STATUS_FAILED);
	wa.log_wq_stride = 0;
	wa.wq_ring_qmem.daddr = 0x1000;
	CHECK_EQ(flexio_sq_create(p, NULL, flexio_cq_get_cq_num(scq), &wa, &sq),
		 FLEXIO_STATUS_FAILED);
	wa.wq_ring_qmem.daddr = (flexio_uintptr_t)(uintptr_t)wq;
	/* no doorbell record given (as the SDK's packet_processor does): the
	 * library allocates one on the heap and frees it with the SQ */
	{
		struct flexio_heap_mem_info before, after;

		wa.wq_dbr_qmem.daddr = 0;
		CHECK_EQ(flexio_process_mem_info_get(p, &before), FLEXIO_STATUS_SUCCESS);
		CHECK_EQ(flexio_sq_create(p, NULL, flexio_cq_get_cq_num(scq), &wa, &sq),
			 FLEXIO_STATUS_SUCCESS);
		CHECK_EQ(flexio_sq_destroy(sq), FLEXIO_STATUS_SUCCESS);
		CHECK_EQ(flexio_process_mem_info_get(p, &after), FLEXIO_STATUS_SUCCESS);
		CHECK_EQ(after.allocated, before.allocated);
		wa.wq_dbr_qmem.daddr = (flexio_uintptr_t)(uintptr_t)sdbr;
		sq = NULL;
	}
	CHECK_EQ(flexio_sq_create(p, NULL, flexio_cq_get_cq_num(scq), &wa, &sq),
		 FLEXIO_STATUS_SUCCESS);
	if (!sq)
		goto out;

	/* A host raw QP with a flow for the frame's destination. */
	{
		struct ibv_pd *pd = ibv_alloc_pd(ctx);
		struct ibv_cq *hcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		uint8_t *buf = aligned_alloc(4096, 4096);
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
		struct ibv_qp_init_attr qi = {
			.send_cq = hcq, .recv_cq = hcq, .qp_type = IBV_QPT_RAW_PACKET,
			.cap = { .max_send_wr = 1, .max_recv_wr = 4, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};
		struct ibv_qp *qp = ibv_create_qp(pd, &qi);
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
		struct {
			struct ibv_flow_attr attr;
			struct ibv_flow_spec_eth eth;
		} f = {
			.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(f),
				  .num_of_specs = 1, .port = 1 },
			.eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(f.eth) },
		};
		struct ibv_sge s = { (uintptr_t)buf, 256, 0 };
		struct ibv_recv_wr rw = { .wr_id = 9, .sg_list = &s, .num_sge = 1 }, *bad;
		struct ibv_flow *fl = NULL;
		uint8_t frame[64];
		struct mlx5_wqe_ctrl_seg *c = (void *)wq;
		struct mlx5_wqe_eth_seg *e = (void *)(wq + 16);
		uint32_t inl;
		struct ibv_wc wc;
		struct mlx5_cqe64 *cqe = (void *)sring;
		int n = 0, i;

		CHECK(pd && hcq && mr && qp);
		if (!pd || !hcq || !mr || !qp)
			goto host_out;
		s.lkey = mr->lkey;
		CHECK_EQ(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT), 0);
		memcpy(f.eth.val.dst_mac, dmac, 6);
		memset(f.eth.mask.dst_mac, 0xff, 6);
		fl = ibv_create_flow(qp, &f.attr);
		CHECK(fl != NULL);
		CHECK_EQ(ibv_post_recv(qp, &rw, &bad), 0);

		/* The WQE a DPA thread would build: ctrl, eth segment with
		 * the 18-byte L2 header, the rest inline; then the doorbell
		 * record (the watcher executes it). */
		for (i = 0; i < 64; i++)
			frame[i] = (uint8_t)(i * 3);
		memcpy(frame, dmac, 6);
		frame[12] = 0x88;
		frame[13] = 0xb5;	/* local experimental ethertype */
		memset(wq, 0, 128);
		c->opmod_idx_opcode = htobe32(MLX5_OPCODE_SEND);
		c->qpn_ds = htobe32(flexio_sq_get_wq_num(sq) << 8 | 7);
		c->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
		e->inline_hdr_sz = htobe16(18);
		memcpy(e->inline_hdr_start, frame, 18);
		inl = htobe32((64 - 18) | MLX5_INLINE_SEG);
		memcpy(wq + 48, &inl, 4);
		memcpy(wq + 52, frame + 18, 64 - 18);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		sdbr[1] = htobe32(2);	/* DS 7: two WQEBBs */
		for (i = 0; i < 2000 && !n; i++) {
			struct timespec ts = { 0, 1000000 };

			n = ibv_poll_cq(hcq, 1, &wc);
			if (!n)
				nanosleep(&ts, NULL);
		}
		CHECK_EQ(n, 1);
		CHECK(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 9 &&
		      wc.byte_len == 64);
		CHECK(memcmp(buf, frame, 64) == 0);
		/* The DPA SQ's own completion, in its CQ ring in the heap. */
		CHECK_EQ(cqe->op_own >> 4, MLX5_CQE_REQ);
		CHECK_EQ(be32toh(cqe->sop_drop_qpn) & 0xffffff, flexio_sq_get_wq_num(sq));
		CHECK_EQ(be32toh(cqe->srqn_uidx) & 0xffffff, 0x55);
host_out:
		if (fl)
			CHECK_EQ(ibv_destroy_flow(fl), 0);
		if (qp)
			CHECK_EQ(ibv_destroy_qp(qp), 0);
		if (mr)
			ibv_dereg_mr(mr);
		if (hcq)
			ibv_destroy_cq(hcq);
		if (pd)
			ibv_dealloc_pd(pd);
		free(buf);
	}
	CHECK_EQ(flexio_sq_destroy(sq), FLEXIO_STATUS_SUCCESS);
out:
	if (scq)
		flexio_cq_destroy(scq);
	if (rcq)
		flexio_cq_destroy(rcq);
	flexio_process_destroy(p);
}

int main(void)
{
	flexio_log_lvl_set(FLEXIO_LOG_LVL_ERR);
	ctx = open_dev();
	test_queues();
	ibv_close_device(ctx);
	return smx_test_done();
}
