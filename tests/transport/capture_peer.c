/* SPDX-License-Identifier: MIT */
/*
 * The messages perftest and ibverbs-utils do not send, between two
 * processes, for the capture test (tests/transport/capture_run.py):
 *   capture_peer rc|uc|ud
 * Forks before either process opens the device (so both attach to the
 * segment of $SOFTMLX5_SHM_PATH; $SOFTMLX5_PCAP captures the packets).
 * The child is the responder, the parent the requester; path MTU 1024.
 *
 *   rc, uc  SEND of 0, 101 (solicited) and 3001 bytes; SEND with immediate
 *           of 101 and 3001 bytes; RDMA WRITE of 101 and 3001 bytes; RDMA
 *           WRITE with immediate of 0 and 3001 bytes; rc also RDMA READ of
 *           0, 100 and 2049 bytes. Lengths not a multiple of 4 give the
 *           last packet a pad.
 *   ud      SEND of 0 and 101 bytes, SEND with immediate of 0 and 101.
 *
 * The responder checks every receive completion (opcode, length,
 * immediate, data) and, at the end, the bytes the WRITEs placed; the
 * requester checks every send completion and the bytes READ. Exit status
 * 0 when all is right, 1 otherwise, 2 on a setup failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define QKEY 0x11111111u
#define SLOT 4096u		/* one receive buffer */
#define NRECV 16u
#define WR_AT (NRECV * SLOT)	/* the WRITE target in the responder */
#define BUF_LEN (WR_AT + 8192u)
#define GRH 40u

enum kind { K_SEND, K_SEND_IMM, K_WRITE, K_WRITE_IMM, K_READ };

struct op {
	enum kind kind;
	uint32_t len;
	uint32_t off;		/* WRITE / READ: offset in the target's WR_AT area */
	int solicited;
};

/* uc sends all but the READs, which come last. */
static const struct op conn_ops[] = {
	{ K_SEND, 0, 0, 0 },
	{ K_SEND, 101, 0, 1 },
	{ K_SEND, 3001, 0, 0 },
	{ K_SEND_IMM, 101, 0, 0 },
	{ K_SEND_IMM, 3001, 0, 0 },
	{ K_WRITE, 101, 0, 0 },
	{ K_WRITE, 3001, 1024, 0 },
	{ K_WRITE_IMM, 0, 0, 0 },
	{ K_WRITE_IMM, 3001, 4096, 0 },
	{ K_READ, 0, 0, 0 },
	{ K_READ, 100, 0, 0 },
	{ K_READ, 2049, 4096, 0 },
};

static const struct op ud_ops[] = {
	{ K_SEND, 0, 0, 0 },
	{ K_SEND, 101, 0, 0 },
	{ K_SEND_IMM, 0, 0, 0 },
	{ K_SEND_IMM, 101, 0, 0 },
};

struct info {
	uint32_t qpn, psn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

static enum ibv_qp_type qpt;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static uint8_t *buf;
static const char *who = "";
static int bad;

#define FAILF(...) do { fprintf(stderr, "capture_peer %s: ", who); \
			fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad = 1; } while (0)

/* The byte the requester sends at offset @i of message @n. */
static uint8_t pat(unsigned int n, uint32_t i)
{
	return (uint8_t)(n * 37u + i * 7u + (i >> 8));
}

static uint32_t imm_of(unsigned int n)
{
	return 0xc0de0000u | n;
}

static int setup(void)
{
	struct ibv_device **list;
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 32, .max_recv_wr = NRECV, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		fprintf(stderr, "capture_peer %s: no device\n", who);
		return -1;
	}
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "capture_peer %s: open: %s\n", who, strerror(errno));
		return -1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	buf = aligned_alloc(4096, BUF_LEN);
	if (!pd || !cq || !buf)
		return -1;
	memset(buf, 0, BUF_LEN);
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			(qpt == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ : 0));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = qpt;
	qp = mr ? ibv_create_qp(pd, &ia) : NULL;
	if (!qp)
		fprintf(stderr, "capture_peer %s: setup: %s\n", who, strerror(errno));
	return qp ? 0 : -1;
}

static int to_rts(const struct info *me, const struct info *peer)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (qpt == IBV_QPT_UD) {
		a.qkey = QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    (qpt == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ : 0);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(qp, &a, mask))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (qpt != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = peer->qpn;
		a.rq_psn = peer->psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer->gid;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (qpt == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	if (ibv_modify_qp(qp, &a, mask))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = me->psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qpt == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* One completion within 5 s; 0 when it came. */
static int poll1(struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n == 1)
			return 0;
		if (n < 0)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 5)
			return -1;
	}
}

static int rw_all(int fd, void *p, size_t len, int wr)
{
	ssize_t r = wr ? write(fd, p, len) : read(fd, p, len);

	return r == (ssize_t)len ? 0 : -1;
}

static void fill_info(struct info *me)
{
	memset(me, 0, sizeof(*me));
	me->qpn = qp->qp_num;
	me->psn = (uint32_t)(getpid() * 2654435761u) & 0xffffff;
	me->rkey = mr->rkey;
	me->addr = (uintptr_t)buf;
	ibv_query_gid(ctx, 1, 0, &me->gid);
}

/* The responder: its receives are posted before the requester may send. */
static int responder(int to_req, int from_req, const struct op *ops, unsigned int nops)
{
	struct info me, peer;
	struct ibv_wc wc;
	unsigned int i, n;
	uint32_t k;
	char go;

	who = "responder";
	if (setup())
		return 2;
	fill_info(&me);
	if (rw_all(to_req, &me, sizeof(me), 1) || rw_all(from_req, &peer, sizeof(peer), 0) ||
	    to_rts(&me, &peer)) {
		fprintf(stderr, "capture_peer responder: connect: %s\n", strerror(errno));
		return 2;
	}
	for (i = 0; i < NRECV; i++) {
		struct ibv_sge sg = { (uintptr_t)buf + i * SLOT, SLOT, mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sg, .num_sge = 1 }, *badwr;

		if (ibv_post_recv(qp, &wr, &badwr)) {
			fprintf(stderr, "capture_peer responder: post_recv: %s\n", strerror(errno));
			return 2;
		}
	}
	if (rw_all(to_req, "r", 1, 1))
		return 2;
	for (n = 0, i = 0; n < nops; n++) {
		const struct op *o = &ops[n];
		uint32_t hdr = qpt == IBV_QPT_UD ? GRH : 0;
		const uint8_t *d;

		if (o->kind != K_SEND && o->kind != K_SEND_IMM && o->kind != K_WRITE_IMM)
			continue;
		if (poll1(&wc)) {
			FAILF("message %u: no receive completion", n);
			break;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != i) {
			FAILF("message %u: status %d wr_id %llu", n, wc.status,
			      (unsigned long long)wc.wr_id);
			break;
		}
		if (wc.opcode != (o->kind == K_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV) ||
		    wc.byte_len != o->len + hdr ||
		    !!(wc.wc_flags & IBV_WC_WITH_IMM) != (o->kind != K_SEND) ||
		    ((wc.wc_flags & IBV_WC_WITH_IMM) && ntohl(wc.imm_data) != imm_of(n)))
			FAILF("message %u: opcode %d len %u flags %#x imm %#x", n, wc.opcode,
			      wc.byte_len, wc.wc_flags, ntohl(wc.imm_data));
		d = buf + i * SLOT + hdr;
		for (k = 0; o->kind != K_WRITE_IMM && k < o->len; k++)
			if (d[k] != pat(n, k)) {
				FAILF("message %u: byte %u is %#x", n, k, d[k]);
				break;
			}
		i++;
	}
	/* The WRITEs' bytes, once the requester has seen them all complete. */
	if (rw_all(from_req, &go, 1, 0))
		return 2;
	for (n = 0; n < nops; n++) {
		const struct op *o = &ops[n];

		if (o->kind != K_WRITE && o->kind != K_WRITE_IMM)
			continue;
		for (k = 0; k < o->len; k++)
			if (buf[WR_AT + o->off + k] != pat(n, k)) {
				FAILF("WRITE %u: byte %u is %#x", n, k, buf[WR_AT + o->off + k]);
				break;
			}
	}
	ibv_destroy_qp(qp);
	return bad;
}

static int requester(int to_resp, int from_resp, const struct op *ops, unsigned int nops)
{
	struct info me, peer;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	unsigned int n;
	uint32_t k;
	char ready;

	who = "requester";
	if (setup())
		return 2;
	fill_info(&me);
	if (rw_all(from_resp, &peer, sizeof(peer), 0) || rw_all(to_resp, &me, sizeof(me), 1) ||
	    to_rts(&me, &peer) || rw_all(from_resp, &ready, 1, 0)) {
		fprintf(stderr, "capture_peer requester: connect: %s\n", strerror(errno));
		return 2;
	}
	if (qpt == IBV_QPT_UD) {
		struct ibv_ah_attr av = { .is_global = 1, .port_num = 1 };

		av.grh.dgid = peer.gid;
		av.grh.hop_limit = 64;
		ah = ibv_create_ah(pd, &av);
		if (!ah)
			return 2;
	}
	for (n = 0; n < nops && !bad; n++) {
		const struct op *o = &ops[n];
		uint8_t *src = buf + 8192;	/* READs land at 0, sources at 8192 */
		struct ibv_sge sg = { (uintptr_t)src, o->len, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = n, .sg_list = &sg, .num_sge = o->len ? 1 : 0,
					  .send_flags = IBV_SEND_SIGNALED }, *badwr;

		for (k = 0; k < o->len; k++)
			src[k] = pat(n, k);
		if (o->solicited)
			wr.send_flags |= IBV_SEND_SOLICITED;
		wr.imm_data = htonl(imm_of(n));
		wr.wr.rdma.remote_addr = peer.addr + WR_AT + o->off;
		wr.wr.rdma.rkey = peer.rkey;
		switch (o->kind) {
		case K_SEND:
			wr.opcode = IBV_WR_SEND;
			break;
		case K_SEND_IMM:
			wr.opcode = IBV_WR_SEND_WITH_IMM;
			break;
		case K_WRITE:
			wr.opcode = IBV_WR_RDMA_WRITE;
			break;
		case K_WRITE_IMM:
			wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			break;
		case K_READ:
			wr.opcode = IBV_WR_RDMA_READ;
			sg.addr = (uintptr_t)buf;
			memset(buf, 0, o->len);
			break;
		}
		if (qpt == IBV_QPT_UD) {
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = peer.qpn;
			wr.wr.ud.remote_qkey = QKEY;
		}
		if (ibv_post_send(qp, &wr, &badwr)) {
			FAILF("message %u: post_send: %s", n, strerror(errno));
			break;
		}
		if (poll1(&wc) || wc.status != IBV_WC_SUCCESS || wc.wr_id != n) {
			FAILF("message %u: no good completion (status %d)", n, wc.status);
			break;
		}
		/* A READ reads back what a WRITE placed there: message 5
		 * (101 bytes at 0) or 8 (3001 bytes at 4096). */
		for (k = 0; o->kind == K_READ && k < o->len; k++) {
			unsigned int w = o->off ? 8 : 5;

			if (buf[k] != pat(w, k)) {
				FAILF("READ %u: byte %u is %#x", n, k, buf[k]);
				break;
			}
		}
	}
	if (rw_all(to_resp, "g", 1, 1))
		bad = 1;
	if (ah)
		ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	return bad;
}

int main(int argc, char **argv)
{
	const struct op *ops;
	unsigned int nops, i;
	int a[2], b[2], st = 0, r;
	pid_t child;

	if (argc != 2 || (strcmp(argv[1], "rc") && strcmp(argv[1], "uc") &&
			  strcmp(argv[1], "ud"))) {
		fprintf(stderr, "usage: %s rc|uc|ud\n", argv[0]);
		return 2;
	}
	qpt = !strcmp(argv[1], "rc") ? IBV_QPT_RC : !strcmp(argv[1], "uc") ? IBV_QPT_UC :
	      IBV_QPT_UD;
	if (qpt == IBV_QPT_UD) {
		ops = ud_ops;
		nops = sizeof(ud_ops) / sizeof(ud_ops[0]);
	} else {
		ops = conn_ops;
		nops = sizeof(conn_ops) / sizeof(conn_ops[0]);
		if (qpt == IBV_QPT_UC)
			for (nops = 0, i = 0; i < sizeof(conn_ops) / sizeof(conn_ops[0]); i++)
				nops += conn_ops[i].kind != K_READ;
	}
	if (pipe(a) || pipe(b))
		return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		close(a[0]);
		close(b[1]);
		_exit(responder(a[1], b[0], ops, nops));
	}
	close(a[1]);
	close(b[0]);
	r = requester(b[1], a[0], ops, nops);
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "capture_peer: responder status %#x\n", st);
		r = r ? r : 1;
	}
	if (!r)
		printf("capture_peer %s: %u messages right\n", argv[1], nops);
	return r;
}
