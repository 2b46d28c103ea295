/* SPDX-License-Identifier: MIT */
/*
 * UC RDMA WRITEs between two processes stay in order. A UC WRITE
 * completes when its packets are handed to the link, before the target
 * has taken them from its inbox; a later WRITE placed directly by the
 * requester (eng_direct.c) would then land first. The classic pattern --
 * data to one MR, then a flag to another whose key record the requester
 * already holds -- is run with the target stopped (SIGSTOP) in between:
 * while it is stopped, the flag must never be visible without the data
 * (both read from outside through process_vm_readv), and once it runs both
 * land.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "peer_test_util.h"
#include "smx_test.h"

#define DATASZ 4096u
#define ROUNDS 4

struct hello {
	uint32_t qpn, rkey_data, rkey_flag;
	uint64_t data, flag;
	union ibv_gid gid;
};

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *data_mr, *flag_mr;
	uint8_t *data;
	uint64_t *flag;
};

static void end_open(struct end *x)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_UC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};
	unsigned int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	x->ctx = peer_open_device();
	x->pd = ibv_alloc_pd(x->ctx);
	x->cq = ibv_create_cq(x->ctx, 64, NULL, NULL, 0);
	x->data = aligned_alloc(4096, DATASZ);
	x->flag = aligned_alloc(4096, 4096);
	if (!x->pd || !x->cq || !x->data || !x->flag)
		exit(2);
	memset(x->data, 0, DATASZ);
	memset(x->flag, 0, 4096);
	a.send_cq = a.recv_cq = x->cq;
	x->qp = ibv_create_qp(x->pd, &a);
	x->data_mr = ibv_reg_mr(x->pd, x->data, DATASZ, acc);
	x->flag_mr = ibv_reg_mr(x->pd, x->flag, 4096, acc);
	if (!x->qp || !x->data_mr || !x->flag_mr)
		exit(2);
}

static void end_close(struct end *x)
{
	ibv_destroy_qp(x->qp);
	ibv_dereg_mr(x->data_mr);
	ibv_dereg_mr(x->flag_mr);
	ibv_destroy_cq(x->cq);
	ibv_dealloc_pd(x->pd);
	ibv_close_device(x->ctx);
	free(x->data);
	free(x->flag);
}

static int uc_connect(struct ibv_qp *qp, uint32_t dqpn,
		      const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static struct hello hello_of(struct end *x)
{
	struct hello h = { .qpn = x->qp->qp_num,
			   .rkey_data = x->data_mr->rkey,
			   .rkey_flag = x->flag_mr->rkey,
			   .data = (uintptr_t)x->data,
			   .flag = (uintptr_t)x->flag };

	if (ibv_query_gid(x->ctx, 1, 0, &h.gid))
		exit(2);
	return h;
}

static int target(int in, int out)
{
	struct end t;
	struct hello me, peer;
	char c;

	end_open(&t);
	me = hello_of(&t);
	xwrite(out, &me, sizeof(me));
	xread(in, &peer, sizeof(peer));
	if (uc_connect(t.qp, peer.qpn, &peer.gid))
		return 2;
	xwrite(out, "c", 1);
	xread(in, &c, 1);	/* done */
	end_close(&t);
	return 0;
}

static uint8_t pattern(int round, uint32_t i)
{
	return (uint8_t)(i * 7 + round * 31 + 1);
}

static int wr(struct end *x, uint64_t laddr, uint32_t lkey, uint32_t len,
	      uint64_t raddr, uint32_t rkey, bool inl)
{
	struct ibv_sge sge = { laddr, len, lkey };
	struct ibv_send_wr w = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0),
		.wr.rdma = { raddr, rkey },
	}, *bad;
	struct ibv_wc wc;
	int i;

	if (ibv_post_send(x->qp, &w, &bad))
		return -1;
	for (i = 0; i < 200000; i++) {
		if (ibv_poll_cq(x->cq, 1, &wc) == 1)
			return wc.status;
		usleep(10);
	}
	return -1;
}

/* The target's flag and first and last data bytes, read from outside. */
static bool peek(pid_t pid, const struct hello *t, uint64_t *flag,
		 uint8_t *first, uint8_t *last)
{
	struct iovec l[3] = { { flag, 8 }, { first, 1 }, { last, 1 } };
	struct iovec r[3] = { { (void *)(uintptr_t)t->flag, 8 },
			      { (void *)(uintptr_t)t->data, 1 },
			      { (void *)(uintptr_t)(t->data + DATASZ - 1), 1 } };

	return process_vm_readv(pid, l, 3, r, 3, 0) == 10;
}

int main(void)
{
	char path[128], c;
	struct hello me, t;
	struct end r;
	int in, out, st, round;
	pid_t pid;

	alarm(60);
	peer_seg_path(path, sizeof(path), "ucorder");
	unsetenv("SOFTMLX5_DIRECT");
	pid = peer_fork(&in, &out);
	if (pid < 0)
		return 2;
	if (pid == 0)
		_exit(target(in, out));
	end_open(&r);
	me = hello_of(&r);
	xread(in, &t, sizeof(t));
	xwrite(out, &me, sizeof(me));
	CHECK(uc_connect(r.qp, t.qpn, &t.gid) == 0);
	xread(in, &c, 1);

	/* The flag's key record reaches us with the first WRITE to it. */
	*r.flag = 0;
	CHECK_EQ(wr(&r, (uintptr_t)r.flag, r.flag_mr->lkey, 8, t.flag,
		    t.rkey_flag, true), IBV_WC_SUCCESS);
	usleep(100000);

	for (round = 1; round <= ROUNDS; round++) {
		uint64_t flag = 0;
		uint8_t first = 0, last = 0;
		uint32_t i;
		int k;

		for (i = 0; i < DATASZ; i++)
			r.data[i] = pattern(round, i);
		*r.flag = (uint64_t)round;
		CHECK(stop(pid));
		CHECK_EQ(wr(&r, (uintptr_t)r.data, r.data_mr->lkey, DATASZ,
			    t.data, t.rkey_data, false), IBV_WC_SUCCESS);
		CHECK_EQ(wr(&r, (uintptr_t)r.flag, r.flag_mr->lkey, 8, t.flag,
			    t.rkey_flag, true), IBV_WC_SUCCESS);
		usleep(20000);
		CHECK(peek(pid, &t, &flag, &first, &last));
		CHECKM(flag != (uint64_t)round ||
		       (first == pattern(round, 0) &&
			last == pattern(round, DATASZ - 1)),
		       "round %d: the flag landed before the data (first "
		       "0x%x, last 0x%x) while the target was stopped", round,
		       first, last);
		CHECK(kill(pid, SIGCONT) == 0);
		for (k = 0; k < 2000 && (flag != (uint64_t)round ||
					  last != pattern(round, DATASZ - 1));
		     k++) {
			usleep(1000);
			CHECK(peek(pid, &t, &flag, &first, &last));
		}
		CHECKM(flag == (uint64_t)round && first == pattern(round, 0) &&
		       last == pattern(round, DATASZ - 1),
		       "round %d: after the target ran: flag %llu, first 0x%x, "
		       "last 0x%x", round, (unsigned long long)flag, first,
		       last);
	}
	xwrite(out, "d", 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	end_close(&r);
	unlink(path);
	return smx_test_done();
}
