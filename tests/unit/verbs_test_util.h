/* SPDX-License-Identifier: MIT */
/* Verbs-level unit tests: the first device, opened (exits if none). */
#ifndef SMX_VERBS_TEST_UTIL_H
#define SMX_VERBS_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static __attribute__((unused)) struct ibv_context *open_dev(void)
{
	struct ibv_device **list;
	struct ibv_context *c;
	int n = -1;

	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		fprintf(stderr, "no device\n");
		exit(1);
	}
	c = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!c) {
		fprintf(stderr, "open: %s\n", strerror(errno));
		exit(1);
	}
	return c;
}

/* RESET -> RTS, connected to itself (RC loopback) with @access rights. */
static __attribute__((unused)) int qp_to_rts_loopback(struct ibv_context *c, struct ibv_qp *qp,
						      unsigned int access)
{
	struct ibv_qp_attr qa;
	union ibv_gid gid;

	ibv_query_gid(c, 1, 0, &gid);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = access;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX |
			  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = IBV_MTU_1024;
	qa.dest_qp_num = qp->qp_num;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 1;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.grh.dgid = gid;
	qa.ah_attr.grh.hop_limit = 64;
	qa.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

#endif
