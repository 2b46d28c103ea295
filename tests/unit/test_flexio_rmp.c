/* SPDX-License-Identifier: MIT */
/*
 * FlexIO RMPs: flexio_rmp_create / _destroy / _get_wq_num on a process's
 * DPA heap, refused attributes, and a DPA event handler (t_rmp_handler)
 * receiving on an RC QP whose receives come from the RMP (rq_type
 * SRQ_RMP_XRC_SRQ_XRQ, rmpqn): a host RC QP sends RMP_MSGS messages, the
 * handler records what each CQE says and hands the WQE back. The RMP is
 * refused destruction while the QP uses it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <libflexio/flexio.h>

#include "peer_test_util.h"
#include "smx_test.h"
#include "verbs_test_util.h"
#include "test_flexio_rmp.h"

extern struct flexio_app *test_flexio_app;
extern flexio_func_t t_rmp_handler;	/* the host stub softmlx5-dpacc made */

static struct ibv_context *ctx;

static flexio_uintptr_t heap(struct flexio_process *p, size_t len)
{
	flexio_uintptr_t a = 0;

	CHECK_EQ(flexio_buf_dev_alloc(p, len, &a), FLEXIO_STATUS_SUCCESS);
	if (a)
		memset((void *)(uintptr_t)a, 0, len);
	return a;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Refused RMP attributes; a cyclic RMP made and destroyed. */
static void test_rmp_attrs(struct flexio_process *p)
{
	struct flexio_wq_attr wa = { 0 };
	struct flexio_rmp *rmp = (struct flexio_rmp *)&wa;

	wa.log_wq_depth = 3;
	wa.wq_ring_qmem.daddr = heap(p, 64 * 8);
	wa.wq_dbr_qmem.daddr = heap(p, 8);
	CHECK_EQ(flexio_rmp_create(NULL, NULL, &wa, &rmp), FLEXIO_STATUS_FAILED);
	CHECK(rmp == NULL);
	CHECK_EQ(flexio_rmp_create(p, NULL, NULL, &rmp), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, NULL), FLEXIO_STATUS_FAILED);
	wa.rq.wq_type = (enum flexio_wq_type)5;
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, &rmp), FLEXIO_STATUS_FAILED);
	wa.rq.wq_type = FLEXIO_WQ_TYPE_LINKED_LIST;
	wa.log_wq_stride = 4;	/* no room for a data segment */
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, &rmp), FLEXIO_STATUS_FAILED);
	wa.log_wq_stride = 11;
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, &rmp), FLEXIO_STATUS_FAILED);
	wa.log_wq_stride = 6;
	wa.log_wq_depth = 16;
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, &rmp), FLEXIO_STATUS_FAILED);
	wa.log_wq_depth = 3;
	wa.wq_ring_qmem.daddr = 0x1000;
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, &rmp), FLEXIO_STATUS_FAILED);
	wa.wq_ring_qmem.daddr = heap(p, 64 * 8);
	wa.wq_dbr_qmem.memtype = FLEXIO_MEMTYPE_HOST;	/* no umem id */
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, &rmp), FLEXIO_STATUS_FAILED);
	wa.wq_dbr_qmem.memtype = FLEXIO_MEMTYPE_DPA;
	CHECK(rmp == NULL);
	/* A cyclic one (basic cyclic WQEs, data segments only). */
	wa.rq.wq_type = FLEXIO_WQ_TYPE_CYCLIC;
	wa.log_wq_stride = 0;
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, &rmp), FLEXIO_STATUS_SUCCESS);
	CHECK(rmp != NULL && flexio_rmp_get_wq_num(rmp) != UINT32_MAX);
	CHECK_EQ(flexio_rmp_destroy(rmp), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_rmp_destroy(NULL), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_rmp_get_wq_num(NULL), UINT32_MAX);
}

static void test_rmp_receive(void)
{
	struct flexio_event_handler_attr ea = { .host_stub_func = &t_rmp_handler };
	struct flexio_process *p = NULL;
	struct flexio_event_handler *eh = NULL;
	struct flexio_cq_attr ca = { 0 };
	struct flexio_wq_attr wa = { 0 };
	struct flexio_qp_attr qa = { 0 };
	struct flexio_mkey_attr ma = { 0 };
	struct flexio_mkey *mkey = NULL;
	struct flexio_rmp *rmp = NULL;
	struct flexio_cq *cq = NULL;
	struct flexio_qp *qp = NULL;
	struct ibv_port_attr port;
	union ibv_gid gid;
	struct rmp_ctx *rc;
	flexio_uintptr_t data, ring, dbr, rcd = 0;
	uint8_t *cring;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *hcq = NULL;
	struct ibv_qp *hqp = NULL;
	struct ibv_mr *hmr = NULL;
	uint8_t *hbuf = NULL;
	uint32_t i, done = 0;

	CHECK_EQ(ibv_query_port(ctx, 1, &port), 0);
	CHECK_EQ(ibv_query_gid(ctx, 1, 0, &gid), 0);
	CHECK_EQ(flexio_process_create(ctx, test_flexio_app, NULL, &p), FLEXIO_STATUS_SUCCESS);
	if (!p)
		return;
	test_rmp_attrs(p);

	/* The handler, its CQ (element: the handler's thread), the data
	 * buffers under a device mkey. */
	CHECK_EQ(flexio_event_handler_create(p, &ea, &eh), FLEXIO_STATUS_SUCCESS);
	if (!eh)
		goto out;
	cring = (uint8_t *)(uintptr_t)heap(p, 64u << RMP_LOG_CQ);
	for (i = 0; cring && i < (1u << RMP_LOG_CQ); i++)
		cring[i * 64 + 63] = MLX5_CQE_INVALID << 4;
	ca.log_cq_depth = RMP_LOG_CQ;
	ca.element_type = FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD;
	ca.thread = flexio_event_handler_get_thread(eh);
	ca.cq_ring_qmem.daddr = (flexio_uintptr_t)(uintptr_t)cring;
	ca.cq_dbr_daddr = heap(p, 8);
	CHECK_EQ(flexio_cq_create(p, NULL, &ca, &cq), FLEXIO_STATUS_SUCCESS);
	data = heap(p, (size_t)RMP_BUF << RMP_LOG_WQES);
	ma.daddr = data;
	ma.len = (size_t)RMP_BUF << RMP_LOG_WQES;
	ma.access = IBV_ACCESS_LOCAL_WRITE;
	CHECK_EQ(flexio_device_mkey_create(p, &ma, &mkey), FLEXIO_STATUS_SUCCESS);
	if (!cq || !mkey || !data)
		goto out;

	/* The RMP: 8 linked-list WQEs (next segment + one data segment),
	 * each linked to the next and the last to the first, all posted. */
	ring = heap(p, 32u << RMP_LOG_WQES);
	dbr = heap(p, 8);
	wa.log_wq_depth = RMP_LOG_WQES;
	wa.rq.wq_type = FLEXIO_WQ_TYPE_LINKED_LIST;
	wa.wq_ring_qmem.daddr = ring;
	wa.wq_dbr_qmem.daddr = dbr;
	CHECK_EQ(flexio_rmp_create(p, NULL, &wa, &rmp), FLEXIO_STATUS_SUCCESS);
	if (!rmp)
		goto out;
	{
		uint8_t host[32u << RMP_LOG_WQES] = { 0 };
		uint32_t cnt = htobe32(1u << RMP_LOG_WQES);

		for (i = 0; i < (1u << RMP_LOG_WQES); i++) {
			uint16_t next = htobe16((uint16_t)((i + 1) & ((1u << RMP_LOG_WQES) - 1)));
			struct mlx5_wqe_data_seg *d = (void *)(host + i * 32 + 16);

			memcpy(host + i * 32 + 2, &next, 2);
			d->byte_count = htobe32(RMP_BUF);
			d->lkey = htobe32(flexio_mkey_get_id(mkey));
			d->addr = htobe64(data + (uint64_t)i * RMP_BUF);
		}
		CHECK_EQ(flexio_host2dev_memcpy(p, host, sizeof(host), ring), FLEXIO_STATUS_SUCCESS);
		CHECK_EQ(flexio_host2dev_memcpy(p, &cnt, 4, dbr), FLEXIO_STATUS_SUCCESS);
	}

	/* A DPA RC QP without an SQ, receiving through the RMP. Refused
	 * first: no rmpqn, and an RMP number that does not exist. */
	qa.transport_type = FLEXIO_QPC_ST_RC;
	qa.no_sq = 1;
	qa.rq_type = FLEXIO_QP_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ;
	qa.rq_cqn = flexio_cq_get_cq_num(cq);
	qa.qp_wq_dbr_qmem.daddr = heap(p, 8);
	qa.qp_access_mask = IBV_ACCESS_LOCAL_WRITE;
	CHECK_EQ(flexio_qp_create(p, NULL, &qa, &qp), FLEXIO_STATUS_FAILED);
	qa.rmpqn = 0xfff0;
	CHECK_EQ(flexio_qp_create(p, NULL, &qa, &qp), FLEXIO_STATUS_FAILED);
	qa.rmpqn = flexio_rmp_get_wq_num(rmp);
	CHECK_EQ(flexio_qp_create(p, NULL, &qa, &qp), FLEXIO_STATUS_SUCCESS);
	if (!qp)
		goto out;
	/* In use: not destroyed. */
	CHECK_EQ(flexio_rmp_destroy(rmp), FLEXIO_STATUS_FAILED);

	/* The host peer. */
	hbuf = aligned_alloc(4096, 8192);
	pd = ibv_alloc_pd(ctx);
	hcq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (hbuf && pd)
		hmr = ibv_reg_mr(pd, hbuf, 8192, IBV_ACCESS_LOCAL_WRITE);
	CHECK(hbuf && pd && hcq && hmr);
	if (!hbuf || !pd || !hcq || !hmr)
		goto out;
	{
		struct ibv_qp_init_attr ia = { .send_cq = hcq, .recv_cq = hcq,
					       .qp_type = IBV_QPT_RC,
					       .cap = { .max_send_wr = 32, .max_recv_wr = 1,
							.max_send_sge = 1, .max_recv_sge = 1 } };

		hqp = ibv_create_qp(pd, &ia);
		CHECK(hqp != NULL);
		if (!hqp)
			goto out;
	}
	{
		/* The host RC QP to RTS towards the DPA QP. */
		const struct rc_conn hc = {
			.access = IBV_ACCESS_LOCAL_WRITE, .min_rnr_timer = 1,
			.hop_limit = 64, .timeout = 14, .retry_cnt = 7,
			.rnr_retry = 7, .dlid = port.lid,
			.no_grh = port.link_layer != IBV_LINK_LAYER_ETHERNET,
		};

		CHECK_EQ(qp_connect_rc(hqp, flexio_qp_get_qp_num(qp), &gid,
				       &hc), 0);
	}
	qa.next_state = FLEXIO_QP_STATE_INIT;
	qa.vhca_port_num = 1;
	CHECK_EQ(flexio_qp_modify(qp, &qa, NULL), FLEXIO_STATUS_SUCCESS);
	qa.next_state = FLEXIO_QP_STATE_RTR;
	qa.remote_qp_num = hqp->qp_num;
	qa.path_mtu = FLEXIO_QP_QPC_MTU_BYTES_1K;
	qa.rlid = port.lid;
	qa.rgid_or_rip = gid;
	qa.grh = port.link_layer == IBV_LINK_LAYER_ETHERNET;
	qa.min_rnr_nak_timer = 1;
	qa.udp_sport = 0xc000;
	CHECK_EQ(flexio_qp_modify(qp, &qa, NULL), FLEXIO_STATUS_SUCCESS);
	qa.next_state = FLEXIO_QP_STATE_RTS;
	qa.retry_count = 7;
	CHECK_EQ(flexio_qp_modify(qp, &qa, NULL), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_qp_state_get(qp), FLEXIO_QP_STATE_RTS);

	/* The handler's context; run. */
	{
		struct rmp_ctx c0 = { 0 };

		c0.cqn = flexio_cq_get_cq_num(cq);
		c0.cq_ring = (flexio_uintptr_t)(uintptr_t)cring;
		c0.cq_dbr = ca.cq_dbr_daddr;
		c0.rmp_dbr = dbr;
		CHECK_EQ(flexio_copy_from_host(p, &c0, sizeof(c0), &rcd), FLEXIO_STATUS_SUCCESS);
		CHECK_EQ(flexio_event_handler_run(eh, rcd), FLEXIO_STATUS_SUCCESS);
	}
	rc = (struct rmp_ctx *)(uintptr_t)rcd;

	/* RMP_MSGS messages of 40 + 7i bytes, byte i of message m = m + i. */
	for (i = 0; i < RMP_MSGS; i++) {
		uint8_t *tx = hbuf + (size_t)i * 256;
		struct ibv_sge s = { (uintptr_t)tx, 40 + 7 * i, hmr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &s, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		uint32_t k;

		for (k = 0; k < s.length; k++)
			tx[k] = (uint8_t)(i + k);
		CHECK_EQ(ibv_post_send(hqp, &wr, &bad), 0);
	}
	for (i = 0; i < 5000 && (done < RMP_MSGS ||
				 __atomic_load_n(&rc->n, __ATOMIC_ACQUIRE) < RMP_MSGS); i++) {
		struct ibv_wc wc;

		while (ibv_poll_cq(hcq, 1, &wc) == 1) {
			CHECK_EQ(wc.status, IBV_WC_SUCCESS);
			done++;
		}
		if (done < RMP_MSGS || __atomic_load_n(&rc->n, __ATOMIC_ACQUIRE) < RMP_MSGS)
			sleep_ms(1);
	}
	CHECK_EQ(done, RMP_MSGS);
	CHECK_EQ(rc->n, RMP_MSGS);
	CHECK_EQ(rc->errors, 0);
	CHECK(rc->activations >= 1);
	/* In list order, round and round: WQE i % 8, the RMP's number. */
	for (i = 0; i < RMP_MSGS && i < rc->n; i++) {
		CHECKM(rc->wqe_index[i] == i % (1u << RMP_LOG_WQES), "msg %u in WQE %u", i,
		       rc->wqe_index[i]);
		CHECK_EQ(rc->byte_cnt[i], 40 + 7 * i);
		CHECK_EQ(rc->srqn[i], flexio_rmp_get_wq_num(rmp));
	}
	/* The last 8 messages are still in their buffers. */
	for (i = RMP_MSGS - (1u << RMP_LOG_WQES); i < RMP_MSGS; i++) {
		const uint8_t *b = (const uint8_t *)(uintptr_t)data +
				   (size_t)(i % (1u << RMP_LOG_WQES)) * RMP_BUF;

		CHECKM(b[0] == (uint8_t)i && b[39 + 7 * i] == (uint8_t)(i + 39 + 7 * i),
		       "message %u's bytes", i);
	}

out:
	if (hqp)
		CHECK_EQ(ibv_destroy_qp(hqp), 0);
	if (hmr)
		ibv_dereg_mr(hmr);
	if (hcq)
		ibv_destroy_cq(hcq);
	if (pd)
		ibv_dealloc_pd(pd);
	free(hbuf);
	if (qp)
		CHECK_EQ(flexio_qp_destroy(qp), FLEXIO_STATUS_SUCCESS);
	if (rmp)
		CHECK_EQ(flexio_rmp_destroy(rmp), FLEXIO_STATUS_SUCCESS);
	if (mkey)
		flexio_device_mkey_destroy(mkey);
	if (cq)
		flexio_cq_destroy(cq);
	if (eh)
		flexio_event_handler_destroy(eh);
	flexio_process_destroy(p);
}

int main(void)
{
	flexio_log_lvl_set(FLEXIO_LOG_LVL_ERR);
	ctx = open_dev();
	test_rmp_receive();
	ibv_close_device(ctx);
	return smx_test_done();
}
