/* SPDX-License-Identifier: MIT */
/*
 * Host side of the packet-processor sample, the shape of the SDK's 24.01
 * packet_processor: an Ethernet RQ and SQ on the DPA heap, frames for the
 * DPA's MAC steered to the RQ's TIR by a flow rule, an event handler on
 * the RQ's CQ that swaps the MAC addresses and sends each frame back. The
 * device has no wire, so a host raw packet QP on the same device plays the
 * network: it sends frames to the DPA's MAC and receives the replies (a
 * flow for the host's MAC). Steering to the DPA is the SDK's own
 * sequence (common/host/flow_steering_utils.c): an mlx5dv_dr NIC RX domain,
 * its root table, a matcher on the outer source MAC, a rule whose action
 * is the RQ's TIR (flexio_rq_get_tir).
 *
 *   host raw QP --frame--> NIC RX steering --> DPA RQ -> CQE -> DPA thread
 *   host raw QP <--frame-- NIC RX steering <-- DPA SQ <-- swap MACs <--'
 *
 *   flexio_packet_processor [device] [frames]      (defaults: mlx5_0 1000)
 *   flexio_packet_processor [device] --wire
 *
 * With --wire there is no host QP: like the SDK's sample on a NIC, the
 * program sets up the DPA side and steering, then serves frames from the
 * port's cable (SOFTMLX5_WIRE, fed by e.g. `softmlx5 wire`) until a line
 * or end of file on standard input; replies leave on the cable.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <libflexio/flexio.h>

#include "../pp_common.h"

extern struct flexio_app *DEV_APP_NAME;
extern flexio_func_t pp_handler;

#define PORT 1
#define WINDOW 32		/* frames in flight */
#define HOST_DEPTH 64

static const uint8_t dpa_mac[6] = PP_DPA_MAC;
static const uint8_t host_mac[6] = PP_HOST_MAC;

struct dpa_queues {
	flexio_uintptr_t rq_cq_ring, rq_cq_dbr, sq_cq_ring, sq_cq_dbr;
	flexio_uintptr_t rq_ring, rq_dbr, sq_ring, sq_dbr, data, ctx;
	struct flexio_cq *rq_cq, *sq_cq;
	struct flexio_rq *rq;
	struct flexio_sq *sq;
	struct flexio_mkey *mkey;
};

static int fail(const char *what)
{
	fprintf(stderr, "packet_processor: %s failed\n", what);
	return 1;
}

/* A CQ ring in DPA memory with every CQE invalid and owned by the device. */
static int dpa_cq_ring(struct flexio_process *p, flexio_uintptr_t *ring, flexio_uintptr_t *dbr)
{
	size_t n = 1u << PP_LOG_CQ, i;
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

static uint32_t frame_len(unsigned int n)
{
	return 60 + (n * 37) % 900;
}

/* An Ethernet frame to the DPA: local experimental ethertype 0x88b5. */
static void make_frame(uint8_t *b, unsigned int n)
{
	uint32_t len = frame_len(n), i;

	memcpy(b, dpa_mac, 6);
	memcpy(b + 6, host_mac, 6);
	b[12] = 0x88;
	b[13] = 0xb5;
	for (i = 14; i < len; i++)
		b[i] = (uint8_t)"frame for the packet processor #"[(i + n) % 33];
	b[14] = (uint8_t)n;
	b[15] = (uint8_t)(n >> 8);
}

/* fte_match_set_lyr_2_4 (the outer headers of fte_match_param): dmac_47_16
 * at byte 8, dmac_15_0 at byte 12. */
/* fte_match_param, 512 bytes as the SDK passes it: outer smac_47_16 at
 * byte 0, smac_15_0 at byte 4. */
struct match_buf {
	size_t match_sz;
	uint8_t b[512];
} __attribute__((aligned(8)));

static void match_smac(struct match_buf *m, const uint8_t *mac)
{
	m->match_sz = sizeof(m->b);
	memcpy(m->b, mac, 4);
	memcpy(m->b + 4, mac + 4, 2);
}

int main(int argc, char **argv)
{
	const char *devname = argc > 1 ? argv[1] : "mlx5_0";
	bool wire = argc > 2 && !strcmp(argv[2], "--wire");
	unsigned int nframes = argc > 2 && !wire ? (unsigned int)strtoul(argv[2], NULL, 0) : 1000;
	static const uint8_t ones[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct flexio_event_handler_attr eattr = {0};
	struct flexio_cq_attr cqa = {0};
	struct flexio_wq_attr wa = {0};
	struct flexio_mkey_attr mka = {0};
	struct flexio_event_handler *eh = NULL;
	struct flexio_process *proc = NULL;
	struct mlx5dv_dr_domain *dr_dom = NULL;
	struct mlx5dv_dr_table *dr_tbl = NULL;
	struct mlx5dv_dr_matcher *dr_matcher = NULL;
	struct mlx5dv_dr_action *dr_to_rq = NULL;
	struct mlx5dv_dr_rule *to_dpa = NULL;
	struct ibv_flow *to_host = NULL;
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *hcq = NULL;
	struct ibv_qp *hqp = NULL;
	struct ibv_mr *hmr = NULL;
	struct dpa_queues q = {0};
	struct pp_ctx pc = {0};
	uint8_t *hbuf = NULL;
	unsigned int sent = 0, got = 0, i;
	size_t data_bytes = ((size_t)PP_BUF << PP_LOG_RQ) + ((size_t)PP_BUF << PP_LOG_SQ);
	int rc = 1;

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		return fail("opening the device");

	/* ---- the DPA side: process, handler, CQs, RQ, SQ, buffers ---- */
	if (flexio_process_create(ctx, DEV_APP_NAME, NULL, &proc))
		return fail("flexio_process_create");
	eattr.host_stub_func = pp_handler;
	eattr.affinity.type = FLEXIO_AFFINITY_NONE;
	if (flexio_event_handler_create(proc, &eattr, &eh))
		goto out;
	if (dpa_cq_ring(proc, &q.rq_cq_ring, &q.rq_cq_dbr) ||
	    dpa_cq_ring(proc, &q.sq_cq_ring, &q.sq_cq_dbr) ||
	    flexio_buf_dev_alloc(proc, 16u << PP_LOG_RQ, &q.rq_ring) ||
	    flexio_buf_dev_alloc(proc, 64u << PP_LOG_SQ, &q.sq_ring) ||
	    flexio_buf_dev_alloc(proc, 8, &q.rq_dbr) || flexio_buf_dev_memset(proc, 0, 8, q.rq_dbr) ||
	    flexio_buf_dev_alloc(proc, 8, &q.sq_dbr) || flexio_buf_dev_memset(proc, 0, 8, q.sq_dbr) ||
	    flexio_buf_dev_alloc(proc, data_bytes, &q.data)) {
		fail("DPA memory");
		goto out;
	}
	cqa.log_cq_depth = PP_LOG_CQ;
	cqa.element_type = FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD;
	cqa.thread = flexio_event_handler_get_thread(eh);
	cqa.cq_ring_qmem.daddr = q.rq_cq_ring;
	cqa.cq_dbr_daddr = q.rq_cq_dbr;
	if (flexio_cq_create(proc, NULL, &cqa, &q.rq_cq)) {
		fail("flexio_cq_create (RQ)");
		goto out;
	}
	memset(&cqa, 0, sizeof(cqa));
	cqa.log_cq_depth = PP_LOG_CQ;
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
	/* the cyclic RQ, every receive buffer posted */
	wa.log_wq_depth = PP_LOG_RQ;
	wa.rq.wq_type = FLEXIO_WQ_TYPE_CYCLIC;
	wa.wq_ring_qmem.daddr = q.rq_ring;
	wa.wq_dbr_qmem.daddr = q.rq_dbr;
	{
		uint32_t *rwqe = calloc(1u << PP_LOG_RQ, 16), cnt = htobe32(1u << PP_LOG_RQ);

		for (i = 0; rwqe && i < (1u << PP_LOG_RQ); i++) {
			uint64_t addr = htobe64(q.data + (uint64_t)i * PP_BUF);

			rwqe[i * 4] = htobe32(PP_BUF);
			rwqe[i * 4 + 1] = htobe32(flexio_mkey_get_id(q.mkey));
			memcpy(&rwqe[i * 4 + 2], &addr, 8);
		}
		if (!rwqe || flexio_host2dev_memcpy(proc, rwqe, 16u << PP_LOG_RQ, q.rq_ring) ||
		    flexio_host2dev_memcpy(proc, &cnt, 4, q.rq_dbr)) {
			free(rwqe);
			fail("posting DPA receive WQEs");
			goto out;
		}
		free(rwqe);
	}
	if (flexio_rq_create(proc, NULL, flexio_cq_get_cq_num(q.rq_cq), &wa, &q.rq)) {
		fail("flexio_rq_create");
		goto out;
	}
	memset(&wa, 0, sizeof(wa));
	wa.log_wq_depth = PP_LOG_SQ;
	wa.wq_ring_qmem.daddr = q.sq_ring;
	wa.wq_dbr_qmem.daddr = q.sq_dbr;
	if (flexio_sq_create(proc, NULL, flexio_cq_get_cq_num(q.sq_cq), &wa, &q.sq)) {
		fail("flexio_sq_create");
		goto out;
	}

	/* ---- steering, as the SDK does it: the host's frames (by their
	 * source MAC) to the DPA RQ's TIR, through mlx5dv_dr ---- */
	{
		struct match_buf mask = {0}, val = {0};

		match_smac(&mask, ones);
		match_smac(&val, host_mac);
		dr_dom = mlx5dv_dr_domain_create(ctx, MLX5DV_DR_DOMAIN_TYPE_NIC_RX);
		if (!dr_dom) {
			fail("mlx5dv_dr_domain_create");
			goto out;
		}
		dr_tbl = mlx5dv_dr_table_create(dr_dom, 0);
		if (!dr_tbl) {
			fail("mlx5dv_dr_table_create");
			goto out;
		}
		dr_matcher = mlx5dv_dr_matcher_create(dr_tbl, 0, 1 /* outer */,
				(struct mlx5dv_flow_match_parameters *)&mask);
		if (!dr_matcher) {
			fail("mlx5dv_dr_matcher_create");
			goto out;
		}
		dr_to_rq = mlx5dv_dr_action_create_dest_devx_tir(flexio_rq_get_tir(q.rq));
		if (!dr_to_rq) {
			fail("mlx5dv_dr_action_create_dest_devx_tir");
			goto out;
		}
		to_dpa = mlx5dv_dr_rule_create(dr_matcher,
				(struct mlx5dv_flow_match_parameters *)&val, 1, &dr_to_rq);
		if (!to_dpa) {
			fail("mlx5dv_dr_rule_create");
			goto out;
		}
	}

	if (wire)
		goto serve_cable;

	/* ---- the host "network": a raw packet QP for the host's MAC ---- */
	hbuf = calloc(2 * HOST_DEPTH, PP_BUF);
	pd = ibv_alloc_pd(ctx);
	hcq = ibv_create_cq(ctx, 4 * HOST_DEPTH, NULL, NULL, 0);
	if (!hbuf || !pd || !hcq ||
	    !(hmr = ibv_reg_mr(pd, hbuf, 2 * HOST_DEPTH * PP_BUF, IBV_ACCESS_LOCAL_WRITE))) {
		fail("host verbs resources");
		goto out;
	}
	{
		struct ibv_qp_init_attr ia = { .send_cq = hcq, .recv_cq = hcq,
					       .qp_type = IBV_QPT_RAW_PACKET,
					       .cap = { .max_send_wr = HOST_DEPTH,
							.max_recv_wr = HOST_DEPTH,
							.max_send_sge = 1, .max_recv_sge = 1 } };
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = PORT };
		struct {
			struct ibv_flow_attr attr;
			struct ibv_flow_spec_eth eth;
		} f = {
			.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(f),
				  .num_of_specs = 1, .port = PORT },
			.eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(f.eth) },
		};

		hqp = ibv_create_qp(pd, &ia);
		if (!hqp || ibv_modify_qp(hqp, &a, IBV_QP_STATE | IBV_QP_PORT)) {
			fail("host raw packet QP");
			goto out;
		}
		a.qp_state = IBV_QPS_RTR;
		if (ibv_modify_qp(hqp, &a, IBV_QP_STATE)) {
			fail("host QP to RTR");
			goto out;
		}
		a.qp_state = IBV_QPS_RTS;
		if (ibv_modify_qp(hqp, &a, IBV_QP_STATE)) {
			fail("host QP to RTS");
			goto out;
		}
		memcpy(f.eth.val.dst_mac, host_mac, 6);
		memset(f.eth.mask.dst_mac, 0xff, 6);
		to_host = ibv_create_flow(hqp, &f.attr);
		if (!to_host) {
			fail("steering to the host (ibv_create_flow)");
			goto out;
		}
	}

serve_cable:
	/* the handler's context in DPA memory; it is the thread argument */
	pc.sq_num = flexio_sq_get_wq_num(q.sq);
	pc.lkey = flexio_mkey_get_id(q.mkey);
	pc.rq_cqn = flexio_cq_get_cq_num(q.rq_cq);
	pc.sq_cqn = flexio_cq_get_cq_num(q.sq_cq);
	pc.rq_cq_ring = q.rq_cq_ring;
	pc.rq_cq_dbr = q.rq_cq_dbr;
	pc.sq_cq_ring = q.sq_cq_ring;
	pc.sq_cq_dbr = q.sq_cq_dbr;
	pc.rq_dbr = q.rq_dbr;
	pc.sq_ring = q.sq_ring;
	pc.rx_data = q.data;
	pc.tx_data = q.data + ((size_t)PP_BUF << PP_LOG_RQ);
	if (flexio_copy_from_host(proc, &pc, sizeof(pc), &q.ctx) ||
	    flexio_event_handler_run(eh, q.ctx)) {
		fail("starting the event handler");
		goto out;
	}
	if (wire) {
		char line[16];

		printf("packet_processor: DPA RQ 0x%x / SQ 0x%x serving the port's cable; "
		       "Enter ends\n", flexio_rq_get_wq_num(q.rq), pc.sq_num);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin) && ferror(stdin))
			perror("packet_processor: stdin");
		memcpy(&pc, (void *)(uintptr_t)q.ctx, sizeof(pc));
		printf("packet_processor: DPA: %" PRIu64 " frames in %" PRIu64
		       " activations, %u errors\n", pc.frames, pc.activations, pc.errors);
		rc = pc.errors != 0;
		goto out;
	}
	printf("packet_processor: DPA RQ 0x%x / SQ 0x%x (RQ CQ 0x%x wakes thread %u), "
	       "host raw QP 0x%x, %u frames\n", flexio_rq_get_wq_num(q.rq), pc.sq_num,
	       pc.rq_cqn, flexio_event_handler_get_id(eh), hqp->qp_num, nframes);

	/* ---- send frames, receive the replies, check them ---- */
	while (got < nframes) {
		unsigned int burst = nframes - sent < WINDOW ? nframes - sent : WINDOW, b;
		unsigned int first = sent, done = 0, replies = 0;
		struct timespec t0, t;

		for (b = 0; b < burst; b++) {
			uint8_t *rx = hbuf + (size_t)(HOST_DEPTH + b) * PP_BUF;
			struct ibv_sge sge = { (uintptr_t)rx, PP_BUF, hmr->lkey };
			struct ibv_recv_wr wr = { .wr_id = b, .sg_list = &sge, .num_sge = 1 }, *bad;

			if (ibv_post_recv(hqp, &wr, &bad)) {
				fail("ibv_post_recv");
				goto out;
			}
		}
		for (b = 0; b < burst; b++, sent++) {
			uint8_t *tx = hbuf + (size_t)b * PP_BUF;
			struct ibv_sge sge = { (uintptr_t)tx, frame_len(sent), hmr->lkey };
			struct ibv_send_wr wr = { .wr_id = b, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND,
						  .send_flags = IBV_SEND_SIGNALED }, *bad;

			make_frame(tx, sent);
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
				uint32_t len;
				uint8_t *rx, *tx;

				if (wc[k].status != IBV_WC_SUCCESS) {
					fprintf(stderr, "packet_processor: completion %s\n",
						ibv_wc_status_str(wc[k].status));
					goto out;
				}
				if (wc[k].opcode != IBV_WC_RECV)
					continue;
				/* receives complete in posting order: reply number replies */
				rx = hbuf + (size_t)(HOST_DEPTH + wc[k].wr_id) * PP_BUF;
				tx = hbuf + (size_t)replies * PP_BUF;
				len = frame_len(first + replies);
				if (wc[k].byte_len != len || memcmp(rx, host_mac, 6) ||
				    memcmp(rx + 6, dpa_mac, 6) || memcmp(rx + 12, tx + 12, len - 12)) {
					fprintf(stderr, "packet_processor: reply to frame %u: %u bytes "
						"(sent %u) or contents differ\n", first + replies,
						wc[k].byte_len, len);
					goto out;
				}
				replies++;
				got++;
			}
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 10) {
				memcpy(&pc, (void *)(uintptr_t)q.ctx, sizeof(pc));
				fprintf(stderr, "packet_processor: timed out, %u of %u replies; DPA: %"
					PRIu64 " activations, %" PRIu64 " frames, %u errors\n", got,
					nframes, pc.activations, pc.frames, pc.errors);
				goto out;
			}
		}
	}
	memcpy(&pc, (void *)(uintptr_t)q.ctx, sizeof(pc));
	printf("packet_processor: %u frames reflected and checked; DPA: %" PRIu64
	       " frames in %" PRIu64 " activations, %u errors\n", got, pc.frames,
	       pc.activations, pc.errors);
	rc = pc.errors || pc.frames != nframes;
out:
	if (rc)
		fprintf(stderr, "packet_processor: FAILED\n");
	if (to_host)
		ibv_destroy_flow(to_host);
	if (to_dpa)
		mlx5dv_dr_rule_destroy(to_dpa);
	if (dr_to_rq)
		mlx5dv_dr_action_destroy(dr_to_rq);
	if (dr_matcher)
		mlx5dv_dr_matcher_destroy(dr_matcher);
	if (dr_tbl)
		mlx5dv_dr_table_destroy(dr_tbl);
	if (dr_dom)
		mlx5dv_dr_domain_destroy(dr_dom);
	if (hqp)
		ibv_destroy_qp(hqp);
	if (hmr)
		ibv_dereg_mr(hmr);
	if (hcq)
		ibv_destroy_cq(hcq);
	if (pd)
		ibv_dealloc_pd(pd);
	free(hbuf);
	flexio_sq_destroy(q.sq);
	flexio_rq_destroy(q.rq);
	flexio_device_mkey_destroy(q.mkey);
	flexio_cq_destroy(q.rq_cq);
	flexio_cq_destroy(q.sq_cq);
	flexio_event_handler_destroy(eh);
	flexio_process_destroy(proc);
	ibv_close_device(ctx);
	return rc;
}
