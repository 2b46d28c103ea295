/* SPDX-License-Identifier: MIT */
/*
 * The target of tests/net/hostile_rx.py: RC QPs on a port bound to an
 * interface, each connected to a requester that does not exist (the test
 * forges its packets), and one MR in the middle of three pages.
 *
 *   hostile_target GID_INDEX PEER_GID NQPS
 *
 * Prints one line -- "qpn=<hex,...> psn=<hex,...> rkey=<hex> addr=<hex>
 * len=<n>" -- then waits for a line on stdin (the attack is over), and
 * prints each QP's state ("state <i> <ibv_qp_state>") and the three
 * pages in hex ("page <0|1|2> <hex>"; page 1 is the MR), then exits 0.
 * Every page starts filled with 0xa5.
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096u
#define MAX_QPS 16

static int die(const char *what)
{
	fprintf(stderr, "hostile_target: %s failed\n", what);
	return 1;
}

static int qp_connect(struct ibv_qp *qp, int gidx, const union ibv_gid *peer,
		      uint32_t rqpn, uint32_t psn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.rq_psn = psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *peer;
	a.ah_attr.grh.sgid_index = (uint8_t)gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp[MAX_QPS];
	uint32_t psn[MAX_QPS];
	union ibv_gid peer;
	uint8_t *pages;
	char line[64];
	int gidx, nqps, i;
	unsigned p, j;

	if (argc != 4 || inet_pton(AF_INET6, argv[2], &peer) != 1) {
		fprintf(stderr, "usage: hostile_target GID_INDEX PEER_GID NQPS\n");
		return 2;
	}
	gidx = atoi(argv[1]);
	nqps = atoi(argv[3]);
	if (nqps < 1 || nqps > MAX_QPS)
		return 2;
	list = ibv_get_device_list(NULL);
	if (!list || !list[0] || !(ctx = ibv_open_device(list[0])))
		return die("opening the device");
	pages = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		return die("mmap");
	memset(pages, 0xa5, 3 * PAGE);
	if (!(pd = ibv_alloc_pd(ctx)) ||
	    !(cq = ibv_create_cq(ctx, 64, NULL, NULL, 0)) ||
	    !(mr = ibv_reg_mr(pd, pages + PAGE, PAGE, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_ATOMIC)))
		return die("PD, CQ or MR");
	for (i = 0; i < nqps; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		psn[i] = 0x1000u * (uint32_t)(i + 1) + 0x10u;
		if (!(qp[i] = ibv_create_qp(pd, &ia)) ||
		    qp_connect(qp[i], gidx, &peer, 0x800u + (uint32_t)i, psn[i]))
			return die("a QP");
	}
	printf("qpn=");
	for (i = 0; i < nqps; i++)
		printf("%s%x", i ? "," : "", qp[i]->qp_num);
	printf(" psn=");
	for (i = 0; i < nqps; i++)
		printf("%s%x", i ? "," : "", psn[i]);
	printf(" rkey=%x addr=%llx len=%u\n", mr->rkey,
	       (unsigned long long)(uintptr_t)(pages + PAGE), PAGE);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return die("reading stdin");
	for (i = 0; i < nqps; i++) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;

		if (ibv_query_qp(qp[i], &a, IBV_QP_STATE, &ia))
			return die("ibv_query_qp");
		printf("state %d %d\n", i, (int)a.qp_state);
	}
	for (p = 0; p < 3; p++) {
		printf("page %u ", p);
		for (j = 0; j < PAGE; j++)
			printf("%02x", pages[p * PAGE + j]);
		printf("\n");
	}
	fflush(stdout);
	return 0;
}
