/* SPDX-License-Identifier: MIT */
/*
 * Host side of the packet-echo sample, adapted to softmlx5: the SDK's sample
 * receives Ethernet frames from the wire on a DPA RQ; our device has no wire,
 * so a host RC QP on the same device plays the peer. The DPA side is a real
 * RC QP created with flexio_qp_create, its rings and doorbell record on the
 * DPA heap, with a CQ whose element is the echo event handler.
 *
 *   host RC QP --SEND--> DPA QP RQ -> CQE -> (CQ armed) EQE -> DPA thread
 *   host RC QP <--SEND-- DPA QP SQ <- flexio_dev_qp_sq_ring_db <--'
 *
 *   flexio_pkt_echo [device] [packets]      (defaults: mlx5_0 1000)
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libflexio/flexio.h>

#include "../pkt_echo_common.h"

extern struct flexio_app *DEV_APP_NAME;
extern flexio_func_t echo_handler;

#define PORT 1
#define WINDOW 32		/* packets in flight */
#define HOST_DEPTH 64

struct dpa_queues {
	flexio_uintptr_t rq_cq_ring, rq_cq_dbr, sq_cq_ring, sq_cq_dbr, qp_ring, qp_dbr, data, ctx;
	struct flexio_cq *rq_cq, *sq_cq;
	struct flexio_qp *qp;
	struct flexio_mkey *mkey;
};

static int fail(const char *what)
{
	fprintf(stderr, "pkt_echo: %s failed\n", what);
	return 1;
}

/* A CQ ring in DPA memory with every CQE invalid and owned by the device. */
static int dpa_cq_ring(struct flexio_process *p, flexio_uintptr_t *ring, flexio_uintptr_t *dbr)
{
	size_t n = 1u << ECHO_LOG_CQ, i;
	uint8_t *tmp = calloc(n, 64);
	int ret = 0;

	if (!tmp)
		return -1;
	for (i = 0; i < n; i++)
		tmp[i * 64 + 63] = 0xf << 4 | 1;
	if (flexio_buf_dev_alloc(p, n * 64, ring) || flexio_host2dev_memcpy(p, tmp, n * 64, *ring) ||
	    flexio_buf_dev_alloc(p, 8, dbr) || flexio_buf_dev_memset(p, 0, 8, *dbr))
		ret = -1;
	free(tmp);
	return ret;
}

static uint8_t expect_byte(const uint8_t *sent, uint32_t i)
{
	uint8_t c;

	if (i < ECHO_HDR)
		return sent[i < 6 ? i + 6 : i - 6];
	c = sent[i];
	return c >= 'a' && c <= 'z' ? (uint8_t)(c - 'a' + 'A') : c;
}

static uint32_t packet_len(unsigned int n)
{
	return ECHO_HDR + 20 + (n * 37) % 900;
}

static void make_packet(uint8_t *b, unsigned int n)
{
	uint32_t len = packet_len(n), i;

	memcpy(b, "\x02\x00\x00\x00\xd0\x0a", 6);		/* "dst" */
	memcpy(b + 6, "\x02\x00\x00\x00\x50\x0b", 6);		/* "src" */
	for (i = ECHO_HDR; i < len; i++)
		b[i] = (uint8_t)"packet echo from the dpa, number "[(i + n) % 33];
	b[ECHO_HDR] = (uint8_t)n;
	b[ECHO_HDR + 1] = (uint8_t)(n >> 8);
}

int main(int argc, char **argv)
{
	const char *devname = argc > 1 ? argv[1] : "mlx5_0";
	unsigned int npkts = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) : 1000;
	struct flexio_event_handler_attr eattr = {0};
	struct flexio_cq_attr cqa = {0};
	struct flexio_qp_attr qpa = {0};
	struct flexio_mkey_attr mka = {0};
	struct flexio_event_handler *eh = NULL;
	struct flexio_process *proc = NULL;
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *hcq = NULL;
	struct ibv_qp *hqp = NULL;
	struct ibv_mr *hmr = NULL;
	struct ibv_port_attr port;
	union ibv_gid gid;
	struct dpa_queues q = {0};
	struct echo_ctx ec = {0};
	uint8_t *hbuf = NULL;
	unsigned int sent = 0, got = 0, i;
	size_t qp_bytes = (16u << ECHO_LOG_RQ) + (64u << ECHO_LOG_SQ);
	size_t data_bytes = ((size_t)ECHO_BUF << ECHO_LOG_RQ) + ((size_t)ECHO_BUF << ECHO_LOG_SQ);
	int rc = 1;

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		return fail("opening the device");
	if (ibv_query_port(ctx, PORT, &port) || ibv_query_gid(ctx, PORT, 0, &gid))
		return fail("port query");

	/* ---- the DPA side ---- */
	if (flexio_process_create(ctx, DEV_APP_NAME, NULL, &proc))
		return fail("flexio_process_create");
	eattr.host_stub_func = echo_handler;
	eattr.affinity.type = FLEXIO_AFFINITY_NONE;
	if (flexio_event_handler_create(proc, &eattr, &eh))
		goto out;
	if (dpa_cq_ring(proc, &q.rq_cq_ring, &q.rq_cq_dbr) ||
	    dpa_cq_ring(proc, &q.sq_cq_ring, &q.sq_cq_dbr) ||
	    flexio_buf_dev_alloc(proc, qp_bytes, &q.qp_ring) ||
	    flexio_buf_dev_alloc(proc, 8, &q.qp_dbr) || flexio_buf_dev_memset(proc, 0, 8, q.qp_dbr) ||
	    flexio_buf_dev_alloc(proc, data_bytes, &q.data)) {
		fail("DPA memory");
		goto out;
	}
	/* the receive CQ wakes the handler; the send CQ is only polled */
	cqa.log_cq_depth = ECHO_LOG_CQ;
	cqa.element_type = FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD;
	cqa.thread = flexio_event_handler_get_thread(eh);
	cqa.cq_ring_qmem.daddr = q.rq_cq_ring;
	cqa.cq_dbr_daddr = q.rq_cq_dbr;
	if (flexio_cq_create(proc, NULL, &cqa, &q.rq_cq)) {
		fail("flexio_cq_create (RQ)");
		goto out;
	}
	memset(&cqa, 0, sizeof(cqa));
	cqa.log_cq_depth = ECHO_LOG_CQ;
	cqa.element_type = FLEXIO_CQ_ELEMENT_TYPE_NON_DPA_CQ;
	cqa.cq_ring_qmem.daddr = q.sq_cq_ring;
	cqa.cq_dbr_daddr = q.sq_cq_dbr;
	if (flexio_cq_create(proc, NULL, &cqa, &q.sq_cq)) {
		fail("flexio_cq_create (SQ)");
		goto out;
	}
	mka.daddr = q.data;
	mka.len = data_bytes;
	mka.access = IBV_ACCESS_LOCAL_WRITE;
	if (flexio_device_mkey_create(proc, &mka, &q.mkey)) {
		fail("flexio_device_mkey_create");
		goto out;
	}
	qpa.transport_type = FLEXIO_QPC_ST_RC;
	qpa.log_rq_depth = ECHO_LOG_RQ;
	qpa.log_sq_depth = ECHO_LOG_SQ;
	qpa.rq_cqn = flexio_cq_get_cq_num(q.rq_cq);
	qpa.sq_cqn = flexio_cq_get_cq_num(q.sq_cq);
	qpa.qp_wq_buff_qmem.daddr = q.qp_ring;
	qpa.qp_wq_dbr_qmem.daddr = q.qp_dbr;
	qpa.qp_access_mask = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (flexio_qp_create(proc, NULL, &qpa, &q.qp)) {
		fail("flexio_qp_create");
		goto out;
	}
	/* receive WQEs: one data segment each, every RX buffer posted */
	{
		uint32_t *rwqe = calloc(1u << ECHO_LOG_RQ, 16), cnt = htobe32(1u << ECHO_LOG_RQ);

		for (i = 0; rwqe && i < (1u << ECHO_LOG_RQ); i++) {
			uint64_t addr = htobe64(q.data + (uint64_t)i * ECHO_BUF);

			rwqe[i * 4] = htobe32(ECHO_BUF);
			rwqe[i * 4 + 1] = htobe32(flexio_mkey_get_id(q.mkey));
			memcpy(&rwqe[i * 4 + 2], &addr, 8);
		}
		if (!rwqe || flexio_host2dev_memcpy(proc, rwqe, 16u << ECHO_LOG_RQ, q.qp_ring) ||
		    flexio_host2dev_memcpy(proc, &cnt, 4, q.qp_dbr)) {
			free(rwqe);
			fail("posting DPA receive WQEs");
			goto out;
		}
		free(rwqe);
	}

	/* ---- the host peer ---- */
	hbuf = calloc(2 * HOST_DEPTH, ECHO_BUF);
	pd = ibv_alloc_pd(ctx);
	hcq = ibv_create_cq(ctx, 4 * HOST_DEPTH, NULL, NULL, 0);
	if (!hbuf || !pd || !hcq ||
	    !(hmr = ibv_reg_mr(pd, hbuf, 2 * HOST_DEPTH * ECHO_BUF, IBV_ACCESS_LOCAL_WRITE))) {
		fail("host verbs resources");
		goto out;
	}
	{
		struct ibv_qp_init_attr ia = { .send_cq = hcq, .recv_cq = hcq, .qp_type = IBV_QPT_RC,
					       .cap = { .max_send_wr = HOST_DEPTH,
							.max_recv_wr = HOST_DEPTH,
							.max_send_sge = 1, .max_recv_sge = 1 } };
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = PORT,
					 .qp_access_flags = IBV_ACCESS_LOCAL_WRITE };

		hqp = ibv_create_qp(pd, &ia);
		if (!hqp || ibv_modify_qp(hqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
							   IBV_QP_ACCESS_FLAGS)) {
			fail("host QP");
			goto out;
		}
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = flexio_qp_get_qp_num(q.qp);
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.port_num = PORT;
		a.ah_attr.dlid = port.lid;
		if (port.link_layer == IBV_LINK_LAYER_ETHERNET) {
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.dgid = gid;
			a.ah_attr.grh.hop_limit = 64;
		}
		if (ibv_modify_qp(hqp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
			fail("host QP to RTR");
			goto out;
		}
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		if (ibv_modify_qp(hqp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
			fail("host QP to RTS");
			goto out;
		}
	}
	/* the DPA QP through RST -> INIT -> RTR -> RTS */
	qpa.next_state = FLEXIO_QP_STATE_INIT;
	qpa.vhca_port_num = PORT;
	if (flexio_qp_modify(q.qp, &qpa, NULL))
		goto out;
	qpa.next_state = FLEXIO_QP_STATE_RTR;
	qpa.remote_qp_num = hqp->qp_num;
	qpa.path_mtu = FLEXIO_QP_QPC_MTU_BYTES_1K;
	qpa.rlid = port.lid;
	qpa.rgid_or_rip = gid;
	qpa.grh = port.link_layer == IBV_LINK_LAYER_ETHERNET;
	qpa.gid_table_index = 0;
	qpa.min_rnr_nak_timer = 12;
	qpa.udp_sport = 0xc000;
	if (flexio_qp_modify(q.qp, &qpa, NULL))
		goto out;
	qpa.next_state = FLEXIO_QP_STATE_RTS;
	qpa.retry_count = 7;
	qpa.log_sra_max = 0;
	if (flexio_qp_modify(q.qp, &qpa, NULL))
		goto out;
	if (flexio_qp_state_get(q.qp) != FLEXIO_QP_STATE_RTS) {
		fail("DPA QP state query");
		goto out;
	}

	/* the handler's context in DPA memory; it is the thread argument */
	ec.qpn = flexio_qp_get_qp_num(q.qp);
	ec.lkey = flexio_mkey_get_id(q.mkey);
	ec.rq_cqn = flexio_cq_get_cq_num(q.rq_cq);
	ec.sq_cqn = flexio_cq_get_cq_num(q.sq_cq);
	ec.rq_cq_ring = q.rq_cq_ring;
	ec.rq_cq_dbr = q.rq_cq_dbr;
	ec.sq_cq_ring = q.sq_cq_ring;
	ec.sq_cq_dbr = q.sq_cq_dbr;
	ec.rq_ring = q.qp_ring;
	ec.sq_ring = q.qp_ring + (16u << ECHO_LOG_RQ);
	ec.qp_dbr = q.qp_dbr;
	ec.rx_data = q.data;
	ec.tx_data = q.data + ((size_t)ECHO_BUF << ECHO_LOG_RQ);
	if (flexio_copy_from_host(proc, &ec, sizeof(ec), &q.ctx) ||
	    flexio_event_handler_run(eh, q.ctx)) {
		fail("starting the event handler");
		goto out;
	}
	printf("pkt_echo: DPA QP 0x%x (RQ CQ 0x%x wakes thread %u), host QP 0x%x, %u packets\n",
	       ec.qpn, ec.rq_cqn, flexio_event_handler_get_id(eh), hqp->qp_num, npkts);

	/* ---- send packets, receive the echoes, check them ---- */
	while (got < npkts) {
		unsigned int burst = npkts - sent < WINDOW ? npkts - sent : WINDOW, b, done = 0;
		unsigned int first = sent;
		struct timespec t0, t;

		for (b = 0; b < burst; b++) {
			uint8_t *rx = hbuf + (size_t)(HOST_DEPTH + b) * ECHO_BUF;
			struct ibv_sge sge = { (uintptr_t)rx, ECHO_BUF, hmr->lkey };
			struct ibv_recv_wr wr = { .wr_id = b, .sg_list = &sge, .num_sge = 1 }, *bad;

			if (ibv_post_recv(hqp, &wr, &bad)) {
				fail("ibv_post_recv");
				goto out;
			}
		}
		for (b = 0; b < burst; b++, sent++) {
			uint8_t *tx = hbuf + (size_t)b * ECHO_BUF;
			struct ibv_sge sge = { (uintptr_t)tx, packet_len(sent), hmr->lkey };
			struct ibv_send_wr wr = { .wr_id = b, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND,
						  .send_flags = IBV_SEND_SIGNALED }, *bad;

			make_packet(tx, sent);
			if (ibv_post_send(hqp, &wr, &bad)) {
				fail("ibv_post_send");
				goto out;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (done < 2 * burst) {
			struct ibv_wc wc[16];
			int n = ibv_poll_cq(hcq, 16, wc), k;

			for (k = 0; k < n; k++, done++) {
				uint32_t j, len;
				uint8_t *rx, *tx;

				if (wc[k].status != IBV_WC_SUCCESS) {
					fprintf(stderr, "pkt_echo: completion %s\n",
						ibv_wc_status_str(wc[k].status));
					goto out;
				}
				if (wc[k].opcode != IBV_WC_RECV)
					continue;
				/* RC keeps order: the echo of packet first + wr_id */
				rx = hbuf + (size_t)(HOST_DEPTH + wc[k].wr_id) * ECHO_BUF;
				tx = hbuf + (size_t)wc[k].wr_id * ECHO_BUF;
				len = packet_len(first + (unsigned int)wc[k].wr_id);
				if (wc[k].byte_len != len) {
					fprintf(stderr, "pkt_echo: echo of packet %u: %u bytes, sent %u\n",
						first + (unsigned int)wc[k].wr_id, wc[k].byte_len, len);
					goto out;
				}
				for (j = 0; j < len; j++)
					if (rx[j] != expect_byte(tx, j)) {
						fprintf(stderr, "pkt_echo: echo of packet %u: byte %u is "
							"0x%02x, expected 0x%02x\n",
							first + (unsigned int)wc[k].wr_id, j, rx[j],
							expect_byte(tx, j));
						goto out;
					}
				got++;
			}
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 10) {
				memcpy(&ec, (void *)(uintptr_t)q.ctx, sizeof(ec));
				fprintf(stderr, "pkt_echo: timed out, %u of %u echoes (%u completions); "
					"DPA: %" PRIu64 " activations, %" PRIu64 " packets, RQ CQ ci %u, "
					"first CQE op_own 0x%02x\n", got, npkts, done, ec.activations,
					ec.packets, ec.rq_cq_ci, ((uint8_t *)(uintptr_t)q.rq_cq_ring)[63]);
				goto out;
			}
		}
	}
	/* read the handler's counters back from DPA memory */
	memcpy(&ec, (void *)(uintptr_t)q.ctx, sizeof(ec));
	printf("pkt_echo: %u packets echoed and checked; DPA: %" PRIu64 " packets in %" PRIu64
	       " activations, %u errors\n", got, ec.packets, ec.activations, ec.errors);
	rc = ec.errors || ec.packets != npkts;
out:
	if (rc)
		fprintf(stderr, "pkt_echo: FAILED\n");
	if (hqp)
		ibv_destroy_qp(hqp);
	if (hmr)
		ibv_dereg_mr(hmr);
	if (hcq)
		ibv_destroy_cq(hcq);
	if (pd)
		ibv_dealloc_pd(pd);
	free(hbuf);
	flexio_qp_destroy(q.qp);
	flexio_device_mkey_destroy(q.mkey);
	flexio_cq_destroy(q.rq_cq);
	flexio_cq_destroy(q.sq_cq);
	flexio_event_handler_destroy(eh);
	flexio_process_destroy(proc);
	ibv_close_device(ctx);
	return rc;
}
