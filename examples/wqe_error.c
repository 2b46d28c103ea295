/* SPDX-License-Identifier: MIT */
/*
 * wqe_error: one RDMA WRITE whose gather entry names a wrong lkey, and the
 * error completion the device gives for it.
 *
 * An RC QP connected to itself (remote QPN = its own) posts an RDMA WRITE
 * from a registered buffer, but with the lkey's key byte changed. The
 * device refuses the gather entry: the CQE is an error CQE with status
 * IBV_WC_LOC_PROT_ERR (PRM syndrome LOCAL_PROT_ERR, 0x4) and the QP goes to
 * ERR. With SOFTMLX5_DEBUG=1 the device also logs one line naming the QP,
 * the WQE, the segment and why. Exits 0 when the completion is that error.
 *
 *   wqe_error [device]        (default mlx5_0)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define PORT 1

static int fail(const char *what)
{
	fprintf(stderr, "wqe_error: FAILED: %s: %s\n", what, strerror(errno));
	return 1;
}

/* RST -> INIT -> RTR -> RTS, the remote end being the QP itself. */
static int connect_self(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid, int roce)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return fail("modify to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = PORT;
	a.ah_attr.dlid = lid;
	if (roce) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *gid;
		a.ah_attr.grh.hop_limit = 1;
	}
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return fail("modify to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return fail("modify to RTS");
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "mlx5_0";
	static char src[4096], dst[4096];
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr port;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_mr *smr, *dmr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int i, n, rc = 1;

	/* Line by line, so our lines and the device's log keep their order. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		return fail(name);
	if (ibv_query_port(ctx, PORT, &port) || ibv_query_gid(ctx, PORT, 0, &gid))
		return fail("query port");
	pd = ibv_alloc_pd(ctx);
	smr = pd ? ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE) : NULL;
	dmr = pd ? ibv_reg_mr(pd, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE) : NULL;
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!smr || !dmr || !cq)
		return fail("PD, MRs, CQ");
	{
		struct ibv_qp_init_attr qa = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		qp = ibv_create_qp(pd, &qa);
	}
	if (!qp)
		return fail("create QP");
	if (connect_self(qp, &gid, port.lid, port.link_layer == IBV_LINK_LAYER_ETHERNET))
		return 1;

	/* The lkey with its low (key) byte changed: the index is right, the key is not. */
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = 64, .lkey = smr->lkey ^ 0x5a };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = (uintptr_t)dst, .rkey = dmr->rkey },
	}, *bad;

	printf("RDMA WRITE of 64 bytes, lkey 0x%x (the MR's is 0x%x), on RC QP 0x%x\n",
	       sge.lkey, smr->lkey, qp->qp_num);
	if (ibv_post_send(qp, &wr, &bad))
		return fail("post_send");
	for (i = 0; i < 100000000; i++)
		if ((n = ibv_poll_cq(cq, 1, &wc)) != 0)
			break;
	if (n != 1)
		return fail("no completion");
	printf("completion: wr_id %llu, status %s (%d), vendor_err 0x%x\n",
	       (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status), wc.status,
	       wc.vendor_err);
	if (wc.status == IBV_WC_LOC_PROT_ERR && wc.wr_id == 7)
		rc = 0;
	else
		fprintf(stderr, "wqe_error: FAILED: expected IBV_WC_LOC_PROT_ERR\n");

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(dmr);
	ibv_dereg_mr(smr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return rc;
}
