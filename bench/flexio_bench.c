/* SPDX-License-Identifier: MIT */
/*
 * FlexIO benchmark (make bench): two figures of the software DPA, each beside
 * a host baseline measured in the same run, through the public FlexIO API.
 *
 *   trigger  a host RC QP SENDs 8 bytes to a DPA RC QP; the receive CQE
 *            lands in a CQ whose element is a DPA thread. Latency = the DPA
 *            clock when the event handler starts - the CQE's timestamp (the
 *            device stamps a CQE as it writes it; on softmlx5 the device
 *            clock and the DPA clock are both CLOCK_MONOTONIC in ns, and
 *            hca_core_clock says so). Path: CQE -> EQE on the process's EQ
 *            -> MSI vector -> the process's interrupt thread -> the DPA
 *            thread's hart: two thread wake-ups.
 *            Baseline: one host thread wake-up (eventfd write -> the reader
 *            blocked in read() runs), same clock, the waker spinning for the
 *            answer as the driver spins for the handler's report.
 *   rpc      flexio_process_call of a function returning its argument + 1,
 *            timed by the caller (the hart wakes, runs it, wakes the caller).
 *            Baseline: an eventfd ping-pong round trip between two threads
 *            (both blocked in read() when woken).
 *
 * Every figure is a median (p50) or 99th percentile (p99) over N samples,
 * after 200 warm-up rounds. Triggers alternate with one-way wake-ups, RPCs
 * with ping-pongs, so load from elsewhere on the host weighs on a figure
 * and its baseline alike. Before each the driver pauses 30 us, so the
 * threads to be woken are asleep: each sample is a wake-up, not a hand-off
 * to a thread still running. The SENDs come ~70 us apart.
 *
 * Output: "row NAME VALUE UNIT BASELINE" lines on stdout (bench/run.sh turns
 * them into its table); details on stderr. Exit status non-zero when a
 * trigger went missing, an RPC failed, or the clocks disagree.
 *
 *   flexio_bench [--iters N] [--device NAME]
 */
#include <endian.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <libflexio/flexio.h>

#include "flexio_bench.h"

extern struct flexio_app *DEV_APP_NAME;
extern flexio_func_t fb_trigger;
extern flexio_func_t fb_nop;

#define PORT 1
#define WARMUP 200
#define PAUSE_NS 30000ull
#define TIMEOUT_NS 5000000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pause_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* p-th percentile (0..100) of @n samples in ns, in us; sorts @v. */
static double pct_us(uint64_t *v, size_t n, unsigned int p)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	i = n * p / 100;
	if (i >= n)
		i = n - 1;
	return (double)v[i] / 1000.0;
}

static void row(const char *name, double v, const char *unit, double base)
{
	printf("row %s %.2f %s %.2f\n", name, v, unit, base);
}

/* ---- baseline: host thread wake-ups over eventfds ---------------------------- */
struct wake {
	int to_b, to_a;
	pthread_t th;
	bool started;
	uint64_t sent;			/* A's clock just before the write */
	uint64_t oneway;		/* B's clock after read() - sent */
	uint64_t done;			/* one-way rounds B finished */
};

enum { WAKE_ONEWAY = 1, WAKE_PINGPONG = 2, WAKE_STOP = 3 };

/*
 * B: blocked in read() until A writes. One-way rounds: B stamps and raises
 * a flag A spins on (as the host spins on the handler's report). Ping-pong
 * rounds: B wakes A, blocked in read() (as flexio_process_call's caller
 * waits for its answer).
 */
static void *wake_b(void *arg)
{
	struct wake *w = arg;
	uint64_t v, one = 1;

	for (;;) {
		if (read(w->to_b, &v, sizeof(v)) != sizeof(v) || v >= WAKE_STOP)
			return NULL;
		if (v == WAKE_ONEWAY) {
			w->oneway = now_ns() - __atomic_load_n(&w->sent, __ATOMIC_ACQUIRE);
			__atomic_add_fetch(&w->done, 1, __ATOMIC_RELEASE);
		} else if (write(w->to_a, &one, sizeof(one)) != sizeof(one)) {
			return NULL;
		}
	}
}

static int wake_start(struct wake *w)
{
	w->to_b = eventfd(0, EFD_CLOEXEC);
	w->to_a = eventfd(0, EFD_CLOEXEC);
	if (w->to_b < 0 || w->to_a < 0 || pthread_create(&w->th, NULL, wake_b, w))
		return -1;
	w->started = true;
	return 0;
}

static int wake_oneway(struct wake *w, uint64_t *oneway)
{
	uint64_t cmd = WAKE_ONEWAY, before = __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);

	__atomic_store_n(&w->sent, now_ns(), __ATOMIC_RELEASE);
	if (write(w->to_b, &cmd, sizeof(cmd)) != sizeof(cmd))
		return -1;
	while (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) == before)
		;
	*oneway = w->oneway;
	return 0;
}

static int wake_pingpong(struct wake *w, uint64_t *rtt)
{
	uint64_t cmd = WAKE_PINGPONG, v, t = now_ns();

	if (write(w->to_b, &cmd, sizeof(cmd)) != sizeof(cmd) ||
	    read(w->to_a, &v, sizeof(v)) != sizeof(v))
		return -1;
	*rtt = now_ns() - t;
	return 0;
}

static void wake_stop(struct wake *w)
{
	uint64_t stop = WAKE_STOP;

	if (w->started && write(w->to_b, &stop, sizeof(stop)) == sizeof(stop))
		pthread_join(w->th, NULL);
	if (w->to_b >= 0)
		close(w->to_b);
	if (w->to_a >= 0)
		close(w->to_a);
}

/* ---- the DPA side -------------------------------------------------------------- */
struct dpa {
	struct flexio_process *proc;
	struct flexio_event_handler *eh;
	struct flexio_cq *cq;
	struct flexio_qp *qp;
	struct flexio_mkey *mkey;
	struct flexio_window *win;
	flexio_uintptr_t cq_ring, cq_dbr, qp_ring, qp_dbr, data, ctx;
};

static int dpa_setup(struct dpa *d, struct ibv_context *ctx, struct ibv_pd *pd)
{
	size_t ncqe = 1u << FB_LOG_CQ, nrq = 1u << FB_LOG_RQ, i;
	size_t qp_bytes = (16u << FB_LOG_RQ) + (64u << FB_LOG_SQ);
	struct flexio_event_handler_attr ea = {0};
	struct flexio_cq_attr ca = {0};
	struct flexio_qp_attr qa = {0};
	struct flexio_mkey_attr ma = {0};
	uint8_t *cqes = calloc(ncqe, 64);
	uint32_t *rwqe = calloc(nrq, 16), cnt = htobe32((uint32_t)nrq);
	int ret = -1;

	if (!cqes || !rwqe)
		goto out;
	if (flexio_process_create(ctx, DEV_APP_NAME, NULL, &d->proc))
		goto out;
	ea.host_stub_func = fb_trigger;
	ea.affinity.type = FLEXIO_AFFINITY_NONE;
	if (flexio_event_handler_create(d->proc, &ea, &d->eh))
		goto out;
	for (i = 0; i < ncqe; i++)
		cqes[i * 64 + 63] = 0xf << 4 | 1;	/* invalid, owned by the device */
	if (flexio_buf_dev_alloc(d->proc, ncqe * 64, &d->cq_ring) ||
	    flexio_host2dev_memcpy(d->proc, cqes, ncqe * 64, d->cq_ring) ||
	    flexio_buf_dev_alloc(d->proc, 8, &d->cq_dbr) ||
	    flexio_buf_dev_memset(d->proc, 0, 8, d->cq_dbr) ||
	    flexio_buf_dev_alloc(d->proc, qp_bytes, &d->qp_ring) ||
	    flexio_buf_dev_alloc(d->proc, 8, &d->qp_dbr) ||
	    flexio_buf_dev_memset(d->proc, 0, 8, d->qp_dbr) ||
	    flexio_buf_dev_alloc(d->proc, nrq * FB_MSG, &d->data))
		goto out;
	ca.log_cq_depth = FB_LOG_CQ;
	ca.element_type = FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD;
	ca.thread = flexio_event_handler_get_thread(d->eh);
	ca.cq_ring_qmem.daddr = d->cq_ring;
	ca.cq_dbr_daddr = d->cq_dbr;
	if (flexio_cq_create(d->proc, NULL, &ca, &d->cq))
		goto out;
	ma.daddr = d->data;
	ma.len = nrq * FB_MSG;
	ma.access = IBV_ACCESS_LOCAL_WRITE;
	if (flexio_device_mkey_create(d->proc, &ma, &d->mkey))
		goto out;
	qa.transport_type = FLEXIO_QPC_ST_RC;
	qa.log_rq_depth = FB_LOG_RQ;
	qa.log_sq_depth = FB_LOG_SQ;
	qa.rq_cqn = qa.sq_cqn = flexio_cq_get_cq_num(d->cq);
	qa.qp_wq_buff_qmem.daddr = d->qp_ring;
	qa.qp_wq_dbr_qmem.daddr = d->qp_dbr;
	qa.qp_access_mask = IBV_ACCESS_LOCAL_WRITE;
	if (flexio_qp_create(d->proc, NULL, &qa, &d->qp))
		goto out;
	/* every receive WQE posted: one data segment, one buffer each */
	for (i = 0; i < nrq; i++) {
		uint64_t a = htobe64(d->data + i * FB_MSG);

		rwqe[i * 4] = htobe32(FB_MSG);
		rwqe[i * 4 + 1] = htobe32(flexio_mkey_get_id(d->mkey));
		memcpy(&rwqe[i * 4 + 2], &a, 8);
	}
	if (flexio_host2dev_memcpy(d->proc, rwqe, nrq * 16, d->qp_ring) ||
	    flexio_host2dev_memcpy(d->proc, &cnt, 4, d->qp_dbr))
		goto out;
	if (flexio_window_create(d->proc, pd, &d->win))
		goto out;
	ret = 0;
out:
	free(cqes);
	free(rwqe);
	return ret;
}

static void dpa_free(struct dpa *d)
{
	flexio_qp_destroy(d->qp);
	flexio_device_mkey_destroy(d->mkey);
	flexio_cq_destroy(d->cq);
	flexio_event_handler_destroy(d->eh);
	flexio_window_destroy(d->win);
	flexio_process_destroy(d->proc);
}

/* RST -> INIT -> RTR -> RTS for both ends, each naming the other. */
static int connect_qps(struct dpa *d, struct ibv_qp *hqp, struct ibv_context *ctx)
{
	struct ibv_port_attr port;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = PORT };
	struct flexio_qp_attr qa = {0};
	union ibv_gid gid;
	bool eth;

	if (ibv_query_port(ctx, PORT, &port) || ibv_query_gid(ctx, PORT, 0, &gid))
		return -1;
	eth = port.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (ibv_modify_qp(hqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = flexio_qp_get_qp_num(d->qp);
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = PORT;
	a.ah_attr.dlid = port.lid;
	if (eth) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.hop_limit = 64;
	}
	if (ibv_modify_qp(hqp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(hqp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return -1;
	qa.qp_access_mask = IBV_ACCESS_LOCAL_WRITE;
	qa.next_state = FLEXIO_QP_STATE_INIT;
	qa.vhca_port_num = PORT;
	if (flexio_qp_modify(d->qp, &qa, NULL))
		return -1;
	qa.next_state = FLEXIO_QP_STATE_RTR;
	qa.remote_qp_num = hqp->qp_num;
	qa.path_mtu = FLEXIO_QP_QPC_MTU_BYTES_1K;
	qa.rlid = port.lid;
	qa.rgid_or_rip = gid;
	qa.grh = eth;
	qa.min_rnr_nak_timer = 1;
	qa.udp_sport = 0xc000;
	if (flexio_qp_modify(d->qp, &qa, NULL))
		return -1;
	qa.next_state = FLEXIO_QP_STATE_RTS;
	qa.retry_count = 7;
	return flexio_qp_modify(d->qp, &qa, NULL) ? -1 : 0;
}

/* One SEND; the handler reports its CQE through the window. */
static int trigger_round(struct ibv_qp *hqp, struct ibv_cq *hcq, volatile struct fb_host *h,
			 unsigned int i)
{
	uint64_t payload = 0x6265616e63680a00ull, t0;
	struct ibv_sge sge = { (uintptr_t)&payload, sizeof(payload), 0 };
	struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE }, *bad;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(hqp, &wr, &bad)) {
		fprintf(stderr, "flexio_bench: ibv_post_send failed\n");
		return -1;
	}
	t0 = now_ns();
	while (h->seen < i + 1u) {
		if (now_ns() - t0 > TIMEOUT_NS) {
			fprintf(stderr, "flexio_bench: SEND %u: the handler saw %" PRIu64
				" CQEs in %" PRIu64 " activations after 5 s\n", i,
				(uint64_t)h->seen, (uint64_t)h->activations);
			return -1;
		}
	}
	do {
		n = ibv_poll_cq(hcq, 1, &wc);
	} while (n == 0 && now_ns() - t0 < TIMEOUT_NS);
	if (n != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "flexio_bench: SEND %u completed %s\n", i,
			n == 1 ? ibv_wc_status_str(wc.status) : "never");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *devname = "mlx5_0";
	unsigned int iters = 20000, i, total;
	struct ibv_device_attr_ex dx;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *hcq = NULL;
	struct ibv_qp *hqp = NULL;
	struct ibv_mr *mr = NULL;
	struct fb_host *h = NULL;
	struct fb_ctx fc = {0};
	struct dpa d = {0};
	struct wake w = { .to_b = -1, .to_a = -1 };
	uint64_t *wake1 = NULL, *wake2 = NULL, *rpc = NULL, *lat;
	size_t hbytes;
	int rc = 1;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--iters") && i + 1 < (unsigned int)argc)
			iters = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--device") && i + 1 < (unsigned int)argc)
			devname = argv[++i];
		else {
			fprintf(stderr, "usage: flexio_bench [--iters N] [--device NAME]\n");
			return 2;
		}
	}
	if (iters < 100 || iters > 10000000) {
		fprintf(stderr, "flexio_bench: --iters must be 100..10000000\n");
		return 2;
	}
	total = iters + WARMUP;
	wake1 = calloc(total, sizeof(uint64_t));
	wake2 = calloc(total, sizeof(uint64_t));
	rpc = calloc(total, sizeof(uint64_t));
	if (!wake1 || !wake2 || !rpc || wake_start(&w)) {
		fprintf(stderr, "flexio_bench: baseline threads\n");
		goto out;
	}

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "flexio_bench: no device %s\n", devname);
		goto out;
	}
	/* CQE timestamps must be nanoseconds for the handler's subtraction */
	if (ibv_query_device_ex(ctx, NULL, &dx) || dx.hca_core_clock != 1000000) {
		fprintf(stderr, "flexio_bench: hca_core_clock is not 1 GHz: CQE timestamps "
			"are not nanoseconds\n");
		goto out;
	}
	pd = ibv_alloc_pd(ctx);
	hbytes = sizeof(*h) + (size_t)total * sizeof(uint64_t);
	h = calloc(1, hbytes);
	hcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !h || !hcq ||
	    !(mr = ibv_reg_mr(pd, h, hbytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))) {
		fprintf(stderr, "flexio_bench: host verbs resources\n");
		goto out;
	}
	{
		struct ibv_qp_init_attr ia = { .send_cq = hcq, .recv_cq = hcq, .qp_type = IBV_QPT_RC,
					       .cap = { .max_send_wr = 8, .max_recv_wr = 1,
							.max_send_sge = 1, .max_recv_sge = 1,
							.max_inline_data = 64 } };

		hqp = ibv_create_qp(pd, &ia);
	}
	if (!hqp || dpa_setup(&d, ctx, pd) || connect_qps(&d, hqp, ctx)) {
		fprintf(stderr, "flexio_bench: setting up the queues failed\n");
		goto out;
	}
	fc.cq_ring = d.cq_ring;
	fc.cq_dbr = d.cq_dbr;
	fc.qp_dbr = d.qp_dbr;
	fc.host_buf = (uintptr_t)h;
	fc.cqn = flexio_cq_get_cq_num(d.cq);
	fc.window_id = flexio_window_get_id(d.win);
	fc.host_mkey = mr->lkey;
	fc.max_samples = total;
	if (flexio_copy_from_host(d.proc, &fc, sizeof(fc), &d.ctx) ||
	    flexio_event_handler_run(d.eh, d.ctx)) {
		fprintf(stderr, "flexio_bench: starting the event handler failed\n");
		goto out;
	}

	/* Each figure interleaved with its baseline, so that whatever else
	 * runs on the host weighs on both alike. SENDs follow each other
	 * ~70 us apart (two pauses and a baseline round). */
	for (i = 0; i < total; i++) {
		pause_ns(PAUSE_NS);
		if (trigger_round(hqp, hcq, h, i))
			goto out;
		pause_ns(PAUSE_NS);
		if (wake_oneway(&w, &wake1[i]))
			goto base_fail;
	}
	for (i = 0; i < total; i++) {
		uint64_t ret = 0, t;

		pause_ns(PAUSE_NS);
		if (wake_pingpong(&w, &wake2[i]))
			goto base_fail;
		pause_ns(PAUSE_NS);
		t = now_ns();
		if (flexio_process_call(d.proc, fb_nop, &ret, (uint64_t)i) || ret != i + 1u) {
			fprintf(stderr, "flexio_bench: flexio_process_call %u returned %" PRIu64
				"\n", i, ret);
			goto out;
		}
		rpc[i] = now_ns() - t;
	}
	if (h->bad || h->seen != total) {
		fprintf(stderr, "flexio_bench: %" PRIu64 " CQEs seen (%u sent), %" PRIu64 " bad\n",
			(uint64_t)h->seen, total, (uint64_t)h->bad);
		goto out;
	}
	lat = h->lat_ns + WARMUP;
	for (i = 0; i < iters; i++)
		if (lat[i] == 0 || lat[i] > 1000000000ull) {
			fprintf(stderr, "flexio_bench: trigger %u took %" PRIu64 " ns: the CQE "
				"timestamp and the DPA clock disagree\n", i, lat[i]);
			goto out;
		}
	fprintf(stderr, "flexio_bench: %u rounds: %u SENDs in %" PRIu64 " activations, "
		"%u RPCs\n", total, total, (uint64_t)h->activations, total);
	row("flexio_trig_p50", pct_us(lat, iters, 50), "us", pct_us(wake1 + WARMUP, iters, 50));
	row("flexio_trig_p99", pct_us(lat, iters, 99), "us", pct_us(wake1 + WARMUP, iters, 99));
	row("flexio_rpc_p50", pct_us(rpc + WARMUP, iters, 50), "us",
	    pct_us(wake2 + WARMUP, iters, 50));
	row("flexio_rpc_p99", pct_us(rpc + WARMUP, iters, 99), "us",
	    pct_us(wake2 + WARMUP, iters, 99));
	rc = 0;
	goto out;
base_fail:
	fprintf(stderr, "flexio_bench: baseline round %u failed\n", i);
out:
	wake_stop(&w);
	if (hqp)
		ibv_destroy_qp(hqp);
	dpa_free(&d);
	if (mr)
		ibv_dereg_mr(mr);
	if (hcq)
		ibv_destroy_cq(hcq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	free(h);
	free(wake1);
	free(wake2);
	free(rpc);
	return rc;
}
