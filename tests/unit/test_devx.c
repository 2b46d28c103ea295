/* SPDX-License-Identifier: MIT */
/*
 * DEVX through libmlx5's public API on the software device: general commands,
 * objects built from raw PRM mailboxes (PD, CQ, RC QP on umems + UAR + EQN,
 * the way rdma-core's test_mlx5_devx does; an RMP on umems), QP and RMP
 * modifies, queries, derived destroys, the asynchronous query channel,
 * event channels, EQ + MSI vector, an EQ's consumer index through its UAR
 * doorbell, and hostile input.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "smx_test.h"

static struct ibv_device *dev;

static uint8_t status_of(const void *out)
{
	return ((const uint8_t *)out)[0];
}

static struct ibv_context *open_devx(void)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };

	return mlx5dv_open_device(dev, &attr);
}

static void test_general(struct ibv_context *ctx, struct ibv_context *plain)
{
	uint32_t in[DEVX_ST_SZ_DW(query_hca_cap_in)] = {};
	uint8_t out[0x1010];
	uint32_t nop[4] = {};
	int ret;

	/* QUERY_HCA_CAP, general caps, current: pyverbs' 0x810-byte read */
	DEVX_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	DEVX_SET(query_hca_cap_in, in, op_mod, 0 << 1 | 1);
	memset(out, 0xee, sizeof(out));
	ret = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, 0x810);
	CHECK_EQ(ret, 0);
	CHECK_EQ(status_of(out), 0);
	/* port_type at cap bit 0x1b6 (2 bits), num_ports at bit 0x1b8 */
	CHECK_EQ(out[16 + 0x36] & 3, 1);	/* Ethernet */
	CHECK_EQ(out[16 + 0x37], 1);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, out + 16, port_type), out[16 + 0x36] & 3);
	CHECK_EQ(out[0x810 - 1 + 1], 0xee);	/* nothing past outlen */

	/* ibv_open_device contexts have a DEVX uid too (rdma-core >= 29
	 * asks for one by default): any command, not only the whitelist. */
	ret = mlx5dv_devx_general_cmd(plain, in, sizeof(in), out, 0x1010);
	CHECK_EQ(ret, 0);
	CHECK_EQ(status_of(out), 0);
	DEVX_SET(mbox_in, nop, opcode, MLX5_CMD_OP_NOP);
	CHECK_EQ(mlx5dv_devx_general_cmd(plain, nop, sizeof(nop), out, 16), 0);
	CHECK_EQ(mlx5dv_devx_general_cmd(ctx, nop, sizeof(nop), out, 16), 0);

	/* Failure answered by the device: EREMOTEIO, status in out. */
	DEVX_SET(query_hca_cap_in, in, op_mod, 0x3e << 1 | 1);
	ret = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, 0x1010);
	if (ret) {
		CHECK_EQ(ret, EREMOTEIO);
		CHECK(status_of(out) != 0);
	}
	/* Object commands are not general commands. */
	DEVX_SET(mbox_in, nop, opcode, MLX5_CMD_OP_ALLOC_PD);
	CHECK_EQ(mlx5dv_devx_general_cmd(ctx, nop, sizeof(nop), out, 16), EINVAL);
	DEVX_SET(mbox_in, nop, opcode, MLX5_CMD_OP_DEALLOC_PD);
	CHECK_EQ(mlx5dv_devx_general_cmd(ctx, nop, sizeof(nop), out, 16), EINVAL);
	/* Mailboxes that cannot carry a command */
	CHECK_EQ(mlx5dv_devx_general_cmd(ctx, in, 8, out, 16), EINVAL);
	CHECK_EQ(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, 8), EINVAL);
	CHECK_EQ(mlx5dv_devx_general_cmd(ctx, NULL, 16, out, 16), EFAULT);
	CHECK_EQ(mlx5dv_devx_general_cmd(ctx, in, 16, NULL, 16), EFAULT);
	CHECK_EQ(mlx5dv_devx_general_cmd(NULL, in, 16, out, 16), EINVAL);
}

struct qp_res {
	void *cq_buf, *cq_dbr, *qp_buf, *qp_dbr;
	struct mlx5dv_devx_umem *cq_um, *cq_dbr_um, *qp_um, *qp_dbr_um;
	struct mlx5dv_devx_uar *uar;
	struct mlx5dv_devx_obj *pd, *cq, *qp;
	uint32_t pdn, cqn, qpn, eqn;
};

static void *zalloc_pages(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

static struct mlx5dv_devx_obj *create_cq(struct ibv_context *ctx, struct qp_res *r,
					 uint32_t cq_umem_id, uint8_t *out)
{
	uint32_t in[DEVX_ST_SZ_DW(create_cq_in)] = {};
	void *cqc = DEVX_ADDR_OF(create_cq_in, in, cq_context);

	DEVX_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(create_cq_in, in, cq_umem_valid, 1);
	DEVX_SET(create_cq_in, in, cq_umem_id, cq_umem_id);
	DEVX_SET(cqc, cqc, c_eqn, r->eqn);
	DEVX_SET(cqc, cqc, uar_page, r->uar->page_id);
	DEVX_SET(cqc, cqc, log_cq_size, 8);
	DEVX_SET(cqc, cqc, dbr_umem_valid, 1);
	DEVX_SET(cqc, cqc, dbr_umem_id, r->cq_dbr_um->umem_id);
	return mlx5dv_devx_obj_create(ctx, in, sizeof(in), out,
				      DEVX_ST_SZ_BYTES(create_cq_out));
}

static int qp_query_state(struct mlx5dv_devx_obj *qp, uint32_t qpn)
{
	uint32_t in[DEVX_ST_SZ_DW(query_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_qp_out)] = {};

	DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, in, qpn, qpn);
	if (mlx5dv_devx_obj_query(qp, in, sizeof(in), out, sizeof(out)))
		return -1;
	return (int)DEVX_GET(query_qp_out, out, qpc.state);
}

static void test_objects(struct ibv_context *ctx)
{
	struct qp_res r = {};
	uint8_t out[0x200];
	int ret;

	/* umems: zero-filled posix_memalign buffers, like pyverbs */
	r.cq_buf = zalloc_pages(256 * 64);
	r.cq_dbr = zalloc_pages(4096);
	r.qp_buf = zalloc_pages(512 * 1024);
	r.qp_dbr = zalloc_pages(4096);
	r.cq_um = mlx5dv_devx_umem_reg(ctx, r.cq_buf, 256 * 64, IBV_ACCESS_LOCAL_WRITE);
	r.cq_dbr_um = mlx5dv_devx_umem_reg(ctx, r.cq_dbr, 8, IBV_ACCESS_LOCAL_WRITE);
	r.qp_um = mlx5dv_devx_umem_reg(ctx, r.qp_buf, 512 * 1024, IBV_ACCESS_LOCAL_WRITE);
	r.qp_dbr_um = mlx5dv_devx_umem_reg(ctx, r.qp_dbr, 8, IBV_ACCESS_LOCAL_WRITE);
	CHECK(r.cq_um && r.cq_dbr_um && r.qp_um && r.qp_dbr_um);
	if (!r.cq_um || !r.cq_dbr_um || !r.qp_um || !r.qp_dbr_um)
		return;
	CHECK(r.cq_um->umem_id != r.qp_um->umem_id);

	r.uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	CHECK(r.uar != NULL);
	if (!r.uar)
		return;
	CHECK(r.uar->page_id != 0);
	CHECK((uint8_t *)r.uar->reg_addr == (uint8_t *)r.uar->base_addr + 0x800);
	CHECK(mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC) == r.uar);
	CHECK_EQ(mlx5dv_devx_query_eqn(ctx, 0, &r.eqn), 0);
	CHECK_EQ(mlx5dv_devx_query_eqn(ctx, 4096, &r.eqn), ENOENT);
	CHECK_EQ(mlx5dv_devx_query_eqn(ctx, 0, &r.eqn), 0);

	/* PD */
	{
		uint32_t in[DEVX_ST_SZ_DW(alloc_pd_in)] = {};

		DEVX_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
		r.pd = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out,
					      DEVX_ST_SZ_BYTES(alloc_pd_out));
		CHECK(r.pd != NULL);
		CHECK_EQ(status_of(out), 0);
		r.pdn = DEVX_GET(alloc_pd_out, out, pd);
		CHECK(r.pdn != 0);
	}

	/* CQ on a umem that does not exist: the device's answer, EREMOTEIO */
	errno = 0;
	CHECK(create_cq(ctx, &r, 0xabcdef, out) == NULL);
	CHECK_EQ(errno, EREMOTEIO);
	CHECK(status_of(out) != 0);

	r.cq = create_cq(ctx, &r, r.cq_um->umem_id, out);
	CHECK(r.cq != NULL);
	if (!r.cq)
		return;
	r.cqn = DEVX_GET(create_cq_out, out, cqn);

	/* RC QP: RQ 1024 x 16 B at 0, SQ 4096 x 64 B at 16 KiB */
	{
		uint32_t in[DEVX_ST_SZ_DW(create_qp_in)] = {};
		void *qpc = DEVX_ADDR_OF(create_qp_in, in, qpc);

		DEVX_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
		DEVX_SET(qpc, qpc, st, 0);
		DEVX_SET(qpc, qpc, pd, r.pdn);
		DEVX_SET(qpc, qpc, pm_state, 3);
		DEVX_SET(qpc, qpc, log_rq_size, 10);
		DEVX_SET(qpc, qpc, log_rq_stride, 0);
		DEVX_SET(qpc, qpc, log_sq_size, 12);
		DEVX_SET(qpc, qpc, ts_format, 1);
		DEVX_SET(qpc, qpc, uar_page, r.uar->page_id);
		DEVX_SET(qpc, qpc, cqn_snd, r.cqn);
		DEVX_SET(qpc, qpc, cqn_rcv, r.cqn);
		DEVX_SET(qpc, qpc, dbr_umem_valid, 1);
		DEVX_SET(qpc, qpc, dbr_umem_id, r.qp_dbr_um->umem_id);
		DEVX_SET(create_qp_in, in, wq_umem_valid, 1);
		DEVX_SET(create_qp_in, in, wq_umem_id, r.qp_um->umem_id);
		r.qp = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out,
					      DEVX_ST_SZ_BYTES(create_qp_out));
		CHECK(r.qp != NULL);
		if (!r.qp) {
			fprintf(stderr, "create_qp: status 0x%x syndrome 0x%x\n",
				status_of(out), DEVX_GET(mbox_out, out, syndrome));
			return;
		}
		r.qpn = DEVX_GET(create_qp_out, out, qpn);
	}
	CHECK_EQ(qp_query_state(r.qp, r.qpn), MLX5_QPC_STATE_RST);

	/* A query naming another object is refused before the device. */
	CHECK_EQ(qp_query_state(r.qp, r.qpn + 1), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(qp_query_state(r.cq, r.cqn), -1);
	{
		uint32_t in[DEVX_ST_SZ_DW(query_cq_in)] = {};
		uint32_t qout[DEVX_ST_SZ_DW(query_cq_out)] = {};

		DEVX_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
		DEVX_SET(query_cq_in, in, cqn, r.cqn);
		CHECK_EQ(mlx5dv_devx_obj_query(r.cq, in, sizeof(in), qout, sizeof(qout)), 0);
		CHECK_EQ(DEVX_GET(query_cq_out, qout, cq_context.log_cq_size), 8);
		CHECK_EQ(mlx5dv_devx_obj_query(r.qp, in, sizeof(in), qout, sizeof(qout)), EINVAL);
		/* a modify opcode through query */
		CHECK_EQ(mlx5dv_devx_obj_modify(r.cq, in, sizeof(in), qout, sizeof(qout)), EINVAL);
	}

	/* RST -> INIT -> RTR -> RTS, connected to itself */
	{
		uint32_t in[DEVX_ST_SZ_DW(rst2init_qp_in)] = {};
		uint32_t mout[DEVX_ST_SZ_DW(rst2init_qp_out)] = {};
		void *qpc = DEVX_ADDR_OF(rst2init_qp_in, in, qpc);

		DEVX_SET(rst2init_qp_in, in, opcode, MLX5_CMD_OP_RST2INIT_QP);
		DEVX_SET(rst2init_qp_in, in, qpn, r.qpn);
		DEVX_SET(qpc, qpc, rre, 1);
		DEVX_SET(qpc, qpc, rwe, 1);
		DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		ret = mlx5dv_devx_obj_modify(r.qp, in, sizeof(in), mout, sizeof(mout));
		CHECK_EQ(ret, 0);
		CHECK_EQ(qp_query_state(r.qp, r.qpn), MLX5_QPC_STATE_INIT);
		/* the same transition again: the device says no */
		ret = mlx5dv_devx_obj_modify(r.qp, in, sizeof(in), mout, sizeof(mout));
		CHECK_EQ(ret, EREMOTEIO);
		CHECK(status_of(mout) != 0);
	}
	{
		uint32_t in[DEVX_ST_SZ_DW(init2rtr_qp_in)] = {};
		uint32_t mout[DEVX_ST_SZ_DW(init2rtr_qp_out)] = {};
		void *qpc = DEVX_ADDR_OF(init2rtr_qp_in, in, qpc);
		struct ibv_gid_entry gid;

		DEVX_SET(init2rtr_qp_in, in, opcode, MLX5_CMD_OP_INIT2RTR_QP);
		DEVX_SET(init2rtr_qp_in, in, qpn, r.qpn);
		DEVX_SET(qpc, qpc, mtu, 3);
		DEVX_SET(qpc, qpc, log_msg_max, 20);
		DEVX_SET(qpc, qpc, remote_qpn, r.qpn);
		DEVX_SET(qpc, qpc, min_rnr_nak, 12);
		DEVX_SET(qpc, qpc, next_rcv_psn, 0);
		DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		if (!ibv_query_gid_ex(ctx, 1, 0, &gid, 0))
			memcpy(DEVX_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip),
			       gid.gid.raw, 16);
		DEVX_SET(qpc, qpc, primary_address_path.src_addr_index, 0);
		DEVX_SET(qpc, qpc, primary_address_path.hop_limit, 64);
		DEVX_SET(qpc, qpc, primary_address_path.udp_sport, 0xdcba);
		ret = mlx5dv_devx_obj_modify(r.qp, in, sizeof(in), mout, sizeof(mout));
		CHECK_EQ(ret, 0);
		if (ret)
			fprintf(stderr, "init2rtr: status 0x%x syndrome 0x%x\n",
				status_of(mout), DEVX_GET(mbox_out, mout, syndrome));
		CHECK_EQ(qp_query_state(r.qp, r.qpn), MLX5_QPC_STATE_RTR);
	}
	{
		uint32_t in[DEVX_ST_SZ_DW(rtr2rts_qp_in)] = {};
		uint32_t mout[DEVX_ST_SZ_DW(rtr2rts_qp_out)] = {};
		void *qpc = DEVX_ADDR_OF(rtr2rts_qp_in, in, qpc);

		DEVX_SET(rtr2rts_qp_in, in, opcode, MLX5_CMD_OP_RTR2RTS_QP);
		DEVX_SET(rtr2rts_qp_in, in, qpn, r.qpn);
		DEVX_SET(qpc, qpc, retry_count, 7);
		DEVX_SET(qpc, qpc, rnr_retry, 7);
		DEVX_SET(qpc, qpc, next_send_psn, 0);
		DEVX_SET(qpc, qpc, log_sra_max, 3);
		DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
		ret = mlx5dv_devx_obj_modify(r.qp, in, sizeof(in), mout, sizeof(mout));
		CHECK_EQ(ret, 0);
		CHECK_EQ(qp_query_state(r.qp, r.qpn), MLX5_QPC_STATE_RTS);
	}

	/* Asynchronous query through a pollable command-completion fd. */
	{
		struct mlx5dv_devx_cmd_comp *cc = mlx5dv_devx_create_cmd_comp(ctx);
		uint32_t in[DEVX_ST_SZ_DW(query_qp_in)] = {};
		size_t outlen = DEVX_ST_SZ_BYTES(query_qp_out);
		struct mlx5dv_devx_async_cmd_hdr *resp = calloc(1, sizeof(*resp) + outlen);
		struct pollfd pfd;

		CHECK(cc != NULL && resp != NULL);
		if (cc && resp) {
			pfd.fd = cc->fd;
			pfd.events = POLLIN;
			CHECK_EQ(poll(&pfd, 1, 0), 0);	/* nothing yet */
			DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
			DEVX_SET(query_qp_in, in, qpn, r.qpn);
			CHECK_EQ(mlx5dv_devx_obj_query_async(r.qp, in, sizeof(in), outlen,
							     0x1234abcd, cc), 0);
			CHECK_EQ(mlx5dv_devx_obj_query_async(r.qp, in, sizeof(in), outlen,
							     7, cc), 0);
			CHECK_EQ(poll(&pfd, 1, 1000), 1);
			CHECK(pfd.revents & POLLIN);
			/* too small: refused, the answer stays queued */
			CHECK_EQ(mlx5dv_devx_get_async_cmd_comp(cc, resp, sizeof(*resp) + 4),
				 ENOSPC);
			CHECK_EQ(mlx5dv_devx_get_async_cmd_comp(cc, resp, sizeof(*resp) + outlen), 0);
			CHECK_EQ(resp->wr_id, 0x1234abcd);
			CHECK_EQ(status_of(resp->out_data), 0);
			CHECK_EQ(DEVX_GET(query_qp_out, resp->out_data, qpc.state),
				 MLX5_QPC_STATE_RTS);
			CHECK_EQ(mlx5dv_devx_get_async_cmd_comp(cc, resp, sizeof(*resp) + outlen), 0);
			CHECK_EQ(resp->wr_id, 7);
			CHECK_EQ(poll(&pfd, 1, 0), 0);
			/* a foreign object number is the call's error */
			DEVX_SET(query_qp_in, in, qpn, r.cqn);
			CHECK_EQ(mlx5dv_devx_obj_query_async(r.qp, in, sizeof(in), outlen, 1, cc),
				 EINVAL);
			/* left unread on purpose: destroy must drop it */
			DEVX_SET(query_qp_in, in, qpn, r.qpn);
			CHECK_EQ(mlx5dv_devx_obj_query_async(r.qp, in, sizeof(in), outlen, 2, cc), 0);
			mlx5dv_devx_destroy_cmd_comp(cc);
		}
		free(resp);
	}

	/* Event channel bookkeeping */
	{
		struct mlx5dv_devx_event_channel *ch =
			mlx5dv_devx_create_event_channel(ctx, 0);
		uint16_t evs[2] = { 0, 0x04 };	/* completion, CQ error */
		uint16_t bad = 0x30;
		int efd = eventfd(0, 0), p[2];

		CHECK(ch != NULL);
		if (ch) {
			struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

			CHECK_EQ(mlx5dv_devx_subscribe_devx_event(ch, r.cq, sizeof(evs), evs, 99), 0);
			CHECK_EQ(mlx5dv_devx_subscribe_devx_event(ch, r.cq, 3, evs, 99), EINVAL);
			CHECK_EQ(mlx5dv_devx_subscribe_devx_event(ch, r.cq, sizeof(bad), &bad, 1), EINVAL);
			CHECK_EQ(mlx5dv_devx_subscribe_devx_event(ch, NULL, sizeof(evs), evs, 1), EINVAL);
			CHECK_EQ(mlx5dv_devx_subscribe_devx_event_fd(ch, efd, r.qp, 0x13), 0);
			CHECK_EQ(pipe(p), 0);
			CHECK_EQ(mlx5dv_devx_subscribe_devx_event_fd(ch, p[0], r.qp, 0x13), EINVAL);
			CHECK_EQ(mlx5dv_devx_subscribe_devx_event_fd(ch, -1, r.qp, 0x13), EBADF);
			close(p[0]);
			close(p[1]);
			CHECK_EQ(poll(&pfd, 1, 0), 0);
			mlx5dv_devx_destroy_event_channel(ch);
		}
		close(efd);
	}

	/* Derived destroys meet the device's reference rules. */
	CHECK(mlx5dv_devx_obj_destroy(r.cq) != 0);		/* QP uses it */
	CHECK_EQ(mlx5dv_devx_umem_dereg(r.qp_um), EBUSY);	/* QP buffer */
	CHECK_EQ(mlx5dv_devx_obj_destroy(r.pd), EBUSY);
	CHECK_EQ(mlx5dv_devx_obj_destroy(r.qp), 0);		/* DESTROY_QP(qpn) */
	CHECK_EQ(mlx5dv_devx_obj_destroy(r.cq), 0);		/* DESTROY_CQ(cqn) */
	CHECK_EQ(mlx5dv_devx_obj_destroy(r.pd), 0);		/* DEALLOC_PD(pdn) */
	CHECK_EQ(mlx5dv_devx_umem_dereg(r.qp_um), 0);
	CHECK_EQ(mlx5dv_devx_umem_dereg(r.qp_dbr_um), 0);
	CHECK_EQ(mlx5dv_devx_umem_dereg(r.cq_um), 0);
	CHECK_EQ(mlx5dv_devx_umem_dereg(r.cq_dbr_um), 0);
	mlx5dv_devx_free_uar(r.uar);	/* NC: no-op, freed with the context */
	free(r.cq_buf);
	free(r.cq_dbr);
	free(r.qp_buf);
	free(r.qp_dbr);
}

static void test_hostile(struct ibv_context *ctx, struct ibv_context *plain)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_pd_in)] = {};
	uint8_t out[64] __attribute__((aligned(8)));	/* DEVX_GET reads dwords */
	void *p;

	DEVX_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	p = mlx5dv_devx_obj_create(plain, in, sizeof(in), out, sizeof(out));
	CHECK(p != NULL);				/* DEVX by default */
	if (p)
		CHECK_EQ(mlx5dv_devx_obj_destroy(p), 0);
	CHECK(mlx5dv_devx_obj_create(ctx, in, 4, out, sizeof(out)) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(mlx5dv_devx_obj_create(ctx, NULL, 16, out, sizeof(out)) == NULL);
	CHECK_EQ(errno, EFAULT);
	CHECK(mlx5dv_devx_obj_create(NULL, in, sizeof(in), out, sizeof(out)) == NULL);
	/* not a create */
	DEVX_SET(mbox_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	CHECK(mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)) == NULL);
	CHECK_EQ(errno, EINVAL);
	DEVX_SET(mbox_in, in, opcode, MLX5_CMD_OP_CREATE_UMEM);
	CHECK(mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)) == NULL);
	CHECK_EQ(errno, EINVAL);
	DEVX_SET(mbox_in, in, opcode, 0x7fff);
	CHECK(mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)) == NULL);
	CHECK_EQ(errno, EINVAL);
	/* vhca_tunnel_id set */
	DEVX_SET(mbox_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	DEVX_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 1);
	CHECK(mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)) == NULL);
	CHECK_EQ(errno, EINVAL);
	/* Output mailboxes: ALLOC_PD's whole 16-byte answer is enough; one
	 * shorter than the header never reaches the device; CREATE_PSV
	 * answers 32 bytes, so 16 are too few: BAD_OUTP_LEN, no object. */
	DEVX_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 0);
	p = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out,
				   DEVX_ST_SZ_BYTES(alloc_pd_out));
	CHECK(p != NULL);
	errno = 0;
	CHECK(mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, 8) == NULL);
	CHECK_EQ(errno, EINVAL);
	if (p) {
		uint32_t pin[DEVX_ST_SZ_DW(create_psv_in)] = {};
		uint32_t pdn = DEVX_GET(alloc_pd_out, out, pd);
		void *psv;

		DEVX_SET(create_psv_in, pin, opcode, MLX5_CMD_OP_CREATE_PSV);
		DEVX_SET(create_psv_in, pin, num_psv, 1);
		DEVX_SET(create_psv_in, pin, pd, pdn);
		CHECK_EQ(DEVX_ST_SZ_BYTES(create_psv_out), 32);
		memset(out, 0xee, sizeof(out));
		errno = 0;
		CHECK(mlx5dv_devx_obj_create(ctx, pin, sizeof(pin), out, 16) == NULL);
		CHECK_EQ(errno, EREMOTEIO);
		CHECK_EQ(status_of(out), MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
		CHECK_EQ(out[16], 0xee);	/* nothing past outlen */
		psv = mlx5dv_devx_obj_create(ctx, pin, sizeof(pin), out,
					     DEVX_ST_SZ_BYTES(create_psv_out));
		CHECK(psv != NULL);
		if (psv)
			CHECK_EQ(mlx5dv_devx_obj_destroy(psv), 0);
		CHECK_EQ(mlx5dv_devx_obj_destroy(p), 0);
	}

	/* umems of memory that is not there, or with bad rights */
	p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	munmap((uint8_t *)p + 4096, 4096);
	errno = 0;
	CHECK(mlx5dv_devx_umem_reg(ctx, p, 3 * 4096, IBV_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EFAULT);
	CHECK(mlx5dv_devx_umem_reg(ctx, (void *)16, 4096, 0) == NULL);
	CHECK_EQ(errno, EFAULT);
	CHECK(mlx5dv_devx_umem_reg(ctx, p, 0, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(mlx5dv_devx_umem_reg(ctx, p, 4096, IBV_ACCESS_REMOTE_WRITE) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(mlx5dv_devx_umem_reg(ctx, p, 4096, IBV_ACCESS_REMOTE_ATOMIC) == NULL);
	CHECK_EQ(errno, EINVAL);
	{
		struct mlx5dv_devx_umem *pu = mlx5dv_devx_umem_reg(plain, p, 4096, 0);

		CHECK(pu != NULL);			/* DEVX by default */
		if (pu)
			CHECK_EQ(mlx5dv_devx_umem_dereg(pu), 0);
	}
	{
		struct mlx5dv_devx_umem_in uin = { .addr = p, .size = 4096,
						   .pgsz_bitmap = 0 };
		struct mlx5dv_devx_umem *um;

		CHECK(mlx5dv_devx_umem_reg_ex(ctx, &uin) == NULL);
		CHECK_EQ(errno, EINVAL);
		uin.pgsz_bitmap = 4096;
		uin.comp_mask = 1ull << 5;
		CHECK(mlx5dv_devx_umem_reg_ex(ctx, &uin) == NULL);
		CHECK_EQ(errno, EOPNOTSUPP);
		uin.comp_mask = 0;
		um = mlx5dv_devx_umem_reg_ex(ctx, &uin);
		CHECK(um != NULL);
		if (um)
			CHECK_EQ(mlx5dv_devx_umem_dereg(um), 0);
		/* 3-page umem at an offset inside the first page */
		um = mlx5dv_devx_umem_reg(ctx, (uint8_t *)p + 100, 3000, 0);
		CHECK(um != NULL);
		if (um)
			CHECK_EQ(mlx5dv_devx_umem_dereg(um), 0);
	}
	munmap(p, 4096);
	munmap((uint8_t *)p + 2 * 4096, 4096);

	/* UARs: BF is dedicated, unknown types unsupported, plain contexts too */
	{
		struct mlx5dv_devx_uar *a = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
		struct mlx5dv_devx_uar *b = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
		struct mlx5dv_devx_uar *c = mlx5dv_devx_alloc_uar(plain, MLX5DV_UAR_ALLOC_TYPE_BF);

		CHECK(a && b && c);
		if (a && b)
			CHECK(a->page_id != b->page_id && a->page_id && b->page_id);
		CHECK(mlx5dv_devx_alloc_uar(ctx, 0x2) == NULL);
		CHECK_EQ(errno, EOPNOTSUPP);
		mlx5dv_devx_free_uar(a);
		mlx5dv_devx_free_uar(b);
		mlx5dv_devx_free_uar(c);
	}
	/* event channel on a plain context: it has DEVX, so it may subscribe
	 * to an unaffiliated event */
	{
		struct mlx5dv_devx_event_channel *ch = mlx5dv_devx_create_event_channel(plain, 0);
		uint16_t ev = 0x09;

		CHECK(ch != NULL);
		if (ch) {
			CHECK_EQ(mlx5dv_devx_subscribe_devx_event(ch, NULL, 2, &ev, 0), 0);
			mlx5dv_devx_destroy_event_channel(ch);
		}
		CHECK(mlx5dv_devx_create_event_channel(ctx, 0x100) == NULL);
	}
}

/* Verbs objects through DEVX query/modify: the number must be theirs. */
/* An RMP through DEVX, ring and doorbell record in umems: create, modify
 * (lwm), query, and the destroy the library derives from the create. */
static void test_rmp(struct ibv_context *ctx)
{
	uint32_t in[DEVX_ST_SZ_DW(create_rmp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_rmp_out)] = {};
	uint32_t min[DEVX_ST_SZ_DW(modify_rmp_in)] = {};
	uint32_t pin[DEVX_ST_SZ_DW(alloc_pd_in)] = {};
	uint32_t pout[DEVX_ST_SZ_DW(alloc_pd_out)] = {};
	void *ring = zalloc_pages(4096), *dbr = zalloc_pages(4096);
	struct mlx5dv_devx_umem *rum = NULL, *dum = NULL;
	struct mlx5dv_devx_obj *pd = NULL, *rmp = NULL;
	uint32_t rmpn;

	CHECK(ring && dbr);
	if (!ring || !dbr)
		goto out;
	rum = mlx5dv_devx_umem_reg(ctx, ring, 4096, IBV_ACCESS_LOCAL_WRITE);
	dum = mlx5dv_devx_umem_reg(ctx, dbr, 8, IBV_ACCESS_LOCAL_WRITE);
	DEVX_SET(alloc_pd_in, pin, opcode, MLX5_CMD_OP_ALLOC_PD);
	pd = mlx5dv_devx_obj_create(ctx, pin, sizeof(pin), pout, sizeof(pout));
	CHECK(rum && dum && pd);
	if (!rum || !dum || !pd)
		goto out;
	DEVX_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);
	DEVX_SET(create_rmp_in, in, ctx.state, MLX5_RMPC_STATE_RDY);
	DEVX_SET(create_rmp_in, in, ctx.wq.wq_type, MLX5_WQ_TYPE_LINKED_LIST);
	DEVX_SET(create_rmp_in, in, ctx.wq.pd, DEVX_GET(alloc_pd_out, pout, pd));
	DEVX_SET(create_rmp_in, in, ctx.wq.log_wq_stride, 6);
	DEVX_SET(create_rmp_in, in, ctx.wq.log_wq_sz, 6);
	DEVX_SET(create_rmp_in, in, ctx.wq.wq_umem_valid, 1);
	DEVX_SET(create_rmp_in, in, ctx.wq.wq_umem_id, rum->umem_id);
	DEVX_SET(create_rmp_in, in, ctx.wq.dbr_umem_valid, 1);
	DEVX_SET(create_rmp_in, in, ctx.wq.dbr_umem_id, dum->umem_id);
	rmp = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out,
				     DEVX_ST_SZ_BYTES(create_rmp_out));
	CHECK(rmp != NULL);
	if (!rmp)
		goto out;
	rmpn = DEVX_GET(create_rmp_out, out, rmpn);
	DEVX_SET(modify_rmp_in, min, opcode, MLX5_CMD_OP_MODIFY_RMP);
	DEVX_SET(modify_rmp_in, min, rmpn, rmpn);
	DEVX_SET(modify_rmp_in, min, rmp_state, MLX5_RMPC_STATE_RDY);
	DEVX_SET(modify_rmp_in, min, ctx.state, MLX5_RMPC_STATE_RDY);
	DEVX_SET(modify_rmp_in, min, bitmask.lwm, 1);
	DEVX_SET(modify_rmp_in, min, ctx.wq.lwm, 16);
	CHECK_EQ(mlx5dv_devx_obj_modify(rmp, min, sizeof(min), out,
					DEVX_ST_SZ_BYTES(modify_rmp_out)), 0);
	/* lwm 64 is not below the 64 WQEs: the firmware's status comes back */
	DEVX_SET(modify_rmp_in, min, ctx.wq.lwm, 64);
	CHECK(mlx5dv_devx_obj_modify(rmp, min, sizeof(min), out,
				     DEVX_ST_SZ_BYTES(modify_rmp_out)) != 0);
	CHECK_EQ(status_of(out), MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* another object's number is refused by the library */
	DEVX_SET(modify_rmp_in, min, rmpn, rmpn + 1);
	DEVX_SET(modify_rmp_in, min, ctx.wq.lwm, 1);
	CHECK(mlx5dv_devx_obj_modify(rmp, min, sizeof(min), out,
				     DEVX_ST_SZ_BYTES(modify_rmp_out)) != 0);
	memset(in, 0, sizeof(in));
	DEVX_SET(query_rmp_in, in, opcode, MLX5_CMD_OP_QUERY_RMP);
	DEVX_SET(query_rmp_in, in, rmpn, rmpn);
	CHECK_EQ(mlx5dv_devx_obj_query(rmp, in, DEVX_ST_SZ_BYTES(query_rmp_in), out,
				       sizeof(out)), 0);
	CHECK_EQ(DEVX_GET(query_rmp_out, out, rmp_context.state), MLX5_RMPC_STATE_RDY);
	CHECK_EQ(DEVX_GET(query_rmp_out, out, rmp_context.wq.lwm), 16);
	CHECK_EQ(DEVX_GET(query_rmp_out, out, rmp_context.wq.log_wq_sz), 6);
	CHECK_EQ(mlx5dv_devx_obj_destroy(rmp), 0);
	rmp = NULL;
out:
	if (rmp)
		mlx5dv_devx_obj_destroy(rmp);
	if (pd)
		mlx5dv_devx_obj_destroy(pd);
	if (dum)
		mlx5dv_devx_umem_dereg(dum);
	if (rum)
		mlx5dv_devx_umem_dereg(rum);
	free(ring);
	free(dbr);
}

static void test_verbs_objects(struct ibv_context *ctx)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct mlx5dv_cq dvcq;
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dvcq } };
	uint32_t in[DEVX_ST_SZ_DW(query_cq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_cq_out)] = {};

	CHECK(cq != NULL);
	if (!cq)
		return;
	CHECK_EQ(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	DEVX_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	DEVX_SET(query_cq_in, in, cqn, dvcq.cqn);
	CHECK_EQ(mlx5dv_devx_cq_query(cq, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(status_of(out), 0);
	DEVX_SET(query_cq_in, in, cqn, dvcq.cqn + 1);
	CHECK_EQ(mlx5dv_devx_cq_query(cq, in, sizeof(in), out, sizeof(out)), EINVAL);
	ibv_destroy_cq(cq);
}

/* A DEVX EQ on a buffer the library allocates, interrupting an MSI vector. */
static void test_eq(struct ibv_context *ctx)
{
	struct mlx5dv_devx_msi_vector *msi = mlx5dv_devx_alloc_msi_vector(ctx);
	struct mlx5dv_devx_uar *uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	uint32_t in[DEVX_ST_SZ_DW(create_eq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_eq_out)] = {};
	struct mlx5dv_devx_eq *eq;
	void *eqc;

	CHECK(msi != NULL && uar != NULL);
	if (!msi || !uar)
		return;
	CHECK(msi->fd >= 0 && msi->vector > 0);
	DEVX_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	eqc = DEVX_ADDR_OF(create_eq_in, in, eq_context_entry);
	DEVX_SET(eqc, eqc, log_eq_size, 6);
	DEVX_SET(eqc, eqc, uar_page, uar->page_id);
	DEVX_SET(eqc, eqc, intr, msi->vector);
	eq = mlx5dv_devx_create_eq(ctx, in, sizeof(in), out, sizeof(out));
	CHECK(eq != NULL);
	if (eq) {
		CHECK(eq->vaddr != NULL);
		CHECK_EQ(((uint8_t *)eq->vaddr)[63] & 1, 1);	/* owned by the device */
		CHECK_EQ(mlx5dv_devx_destroy_eq(eq), 0);
	} else {
		fprintf(stderr, "create_eq: status 0x%x syndrome 0x%x\n",
			status_of(out), DEVX_GET(mbox_out, out, syndrome));
	}
	CHECK_EQ(mlx5dv_devx_free_msi_vector(msi), 0);
	mlx5dv_devx_free_uar(uar);
}

/* Closing a context with DEVX objects still alive cleans up after them. */
static void test_close_with_leftovers(void)
{
	struct ibv_context *ctx = open_devx();
	uint32_t in[DEVX_ST_SZ_DW(alloc_pd_in)] = {};
	uint8_t out[DEVX_ST_SZ_BYTES(alloc_pd_out)];
	void *buf = zalloc_pages(8192);
	struct mlx5dv_devx_umem *um;
	int i;

	CHECK(ctx != NULL);
	if (!ctx)
		return;
	DEVX_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	for (i = 0; i < 8; i++)
		CHECK(mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)) != NULL);
	um = mlx5dv_devx_umem_reg(ctx, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	CHECK(um != NULL);
	CHECK(mlx5dv_devx_alloc_uar(ctx, 0) != NULL);
	CHECK(mlx5dv_devx_create_cmd_comp(ctx) != NULL);
	CHECK(mlx5dv_devx_create_event_channel(ctx, 0) != NULL);
	CHECK(mlx5dv_devx_alloc_msi_vector(ctx) != NULL);
	CHECK_EQ(ibv_close_device(ctx), 0);
	free(buf);
}

/*
 * The data path with no library call, as rdma-core's test_mlx5_devx drives
 * it: two DEVX RC QPs connected to each other, a receive WQE and a doorbell
 * record written by hand, a SEND_IMM WQE, the SND doorbell record and one
 * plain 64-bit store into the UAR's doorbell register; then CQE memory is
 * polled until the device's completions appear.
 */
struct e2e_qp {
	uint8_t *buf, *dbr, *cqbuf, *cqdbr;
	struct mlx5dv_devx_umem *um[4];
	struct mlx5dv_devx_obj *cq, *qp;
	uint32_t cqn, qpn;
};

#define E2E_RQ_LOG 6		/* 64 x 16 B receive WQEs at 0 */
#define E2E_SQ_LOG 6		/* 64 x 64 B send WQEBBs after the RQ */
#define E2E_SQ_OFF (16u << E2E_RQ_LOG)
#define E2E_CQ_LOG 6

static int e2e_modify(struct mlx5dv_devx_obj *qp, uint16_t op, uint32_t qpn,
		      uint32_t remote, struct ibv_context *ctx)
{
	uint32_t in[DEVX_ST_SZ_DW(init2rtr_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(init2rtr_qp_out)] = {};
	void *qpc = DEVX_ADDR_OF(init2rtr_qp_in, in, qpc);
	struct ibv_gid_entry gid;

	DEVX_SET(init2rtr_qp_in, in, opcode, op);
	DEVX_SET(init2rtr_qp_in, in, qpn, qpn);
	DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	if (op == MLX5_CMD_OP_RST2INIT_QP) {
		DEVX_SET(qpc, qpc, rre, 1);
		DEVX_SET(qpc, qpc, rwe, 1);
	} else if (op == MLX5_CMD_OP_INIT2RTR_QP) {
		DEVX_SET(qpc, qpc, mtu, 3);
		DEVX_SET(qpc, qpc, log_msg_max, 20);
		DEVX_SET(qpc, qpc, remote_qpn, remote);
		DEVX_SET(qpc, qpc, min_rnr_nak, 12);
		if (!ibv_query_gid_ex(ctx, 1, 0, &gid, 0))
			memcpy(DEVX_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip),
			       gid.gid.raw, 16);
		DEVX_SET(qpc, qpc, primary_address_path.hop_limit, 64);
		DEVX_SET(qpc, qpc, primary_address_path.udp_sport, 0xdcba);
	} else {
		DEVX_SET(qpc, qpc, retry_count, 7);
		DEVX_SET(qpc, qpc, rnr_retry, 7);
		DEVX_SET(qpc, qpc, log_sra_max, 3);
		DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
	}
	return mlx5dv_devx_obj_modify(qp, in, sizeof(in), out, sizeof(out));
}

static int e2e_make(struct ibv_context *ctx, struct e2e_qp *q, uint32_t pdn,
		    uint32_t eqn, struct mlx5dv_devx_uar *uar)
{
	uint32_t cin[DEVX_ST_SZ_DW(create_cq_in)] = {};
	uint32_t qin[DEVX_ST_SZ_DW(create_qp_in)] = {};
	uint8_t out[DEVX_ST_SZ_BYTES(create_qp_out)];
	void *cqc = DEVX_ADDR_OF(create_cq_in, cin, cq_context);
	void *qpc = DEVX_ADDR_OF(create_qp_in, qin, qpc);
	size_t qlen = E2E_SQ_OFF + (64u << E2E_SQ_LOG);
	unsigned int i;

	q->buf = zalloc_pages(qlen);
	q->dbr = zalloc_pages(4096);
	q->cqbuf = zalloc_pages(64u << E2E_CQ_LOG);
	q->cqdbr = zalloc_pages(4096);
	q->um[0] = mlx5dv_devx_umem_reg(ctx, q->buf, qlen, IBV_ACCESS_LOCAL_WRITE);
	q->um[1] = mlx5dv_devx_umem_reg(ctx, q->dbr, 8, IBV_ACCESS_LOCAL_WRITE);
	q->um[2] = mlx5dv_devx_umem_reg(ctx, q->cqbuf, 64u << E2E_CQ_LOG,
					IBV_ACCESS_LOCAL_WRITE);
	q->um[3] = mlx5dv_devx_umem_reg(ctx, q->cqdbr, 8, IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < 4; i++)
		if (!q->um[i])
			return -1;
	DEVX_SET(create_cq_in, cin, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(create_cq_in, cin, cq_umem_id, q->um[2]->umem_id);
	DEVX_SET(cqc, cqc, c_eqn, eqn);
	DEVX_SET(cqc, cqc, uar_page, uar->page_id);
	DEVX_SET(cqc, cqc, log_cq_size, E2E_CQ_LOG);
	DEVX_SET(cqc, cqc, dbr_umem_id, q->um[3]->umem_id);
	/* cq_umem_valid / dbr_umem_valid: the library sets them, as the kernel */
	q->cq = mlx5dv_devx_obj_create(ctx, cin, sizeof(cin), out,
				       DEVX_ST_SZ_BYTES(create_cq_out));
	if (!q->cq)
		return -1;
	q->cqn = DEVX_GET(create_cq_out, out, cqn);
	DEVX_SET(create_qp_in, qin, opcode, MLX5_CMD_OP_CREATE_QP);
	DEVX_SET(qpc, qpc, st, 0);
	DEVX_SET(qpc, qpc, pd, pdn);
	DEVX_SET(qpc, qpc, pm_state, 3);
	DEVX_SET(qpc, qpc, log_rq_size, E2E_RQ_LOG);
	DEVX_SET(qpc, qpc, log_rq_stride, 0);
	DEVX_SET(qpc, qpc, log_sq_size, E2E_SQ_LOG);
	DEVX_SET(qpc, qpc, ts_format, 1);
	DEVX_SET(qpc, qpc, uar_page, uar->page_id);
	DEVX_SET(qpc, qpc, cqn_snd, q->cqn);
	DEVX_SET(qpc, qpc, cqn_rcv, q->cqn);
	DEVX_SET(qpc, qpc, dbr_umem_id, q->um[1]->umem_id);
	DEVX_SET(create_qp_in, qin, wq_umem_id, q->um[0]->umem_id);
	q->qp = mlx5dv_devx_obj_create(ctx, qin, sizeof(qin), out,
				       DEVX_ST_SZ_BYTES(create_qp_out));
	if (!q->qp)
		return -1;
	q->qpn = DEVX_GET(create_qp_out, out, qpn);
	return 0;
}

static void e2e_free(struct e2e_qp *q)
{
	int i;

	if (q->qp)
		mlx5dv_devx_obj_destroy(q->qp);
	if (q->cq)
		mlx5dv_devx_obj_destroy(q->cq);
	for (i = 0; i < 4; i++)
		if (q->um[i])
			mlx5dv_devx_umem_dereg(q->um[i]);
	free(q->buf);
	free(q->dbr);
	free(q->cqbuf);
	free(q->cqdbr);
}

/* The CQE at @ci once the device wrote it, or NULL after ~5 s. */
static struct mlx5_cqe64 *e2e_poll(struct e2e_qp *q, uint32_t ci)
{
	struct mlx5_cqe64 *cqe = (void *)(q->cqbuf + 64u * (ci & ((1u << E2E_CQ_LOG) - 1)));
	int i, j;

	for (i = 0; i < 5000; i++) {
		volatile uint8_t *b = (volatile uint8_t *)cqe;
		uint8_t own = b[63];
		bool empty = true;

		for (j = 0; j < 64; j++)
			if (b[j])
				empty = false;
		if (!empty && (own >> 4) != MLX5_CQE_INVALID &&
		    ((own & 1) ^ !!(ci & (1u << E2E_CQ_LOG))) == 0) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			return cqe;
		}
		usleep(1000);
	}
	return NULL;
}

static void test_e2e_hand_written(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct mlx5dv_pd dvpd;
	struct mlx5dv_obj obj = { .pd = { .in = pd, .out = &dvpd } };
	struct mlx5dv_devx_uar *uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	struct e2e_qp a = {}, b = {};
	uint8_t *src = zalloc_pages(4096), *dst = zalloc_pages(4096);
	struct ibv_mr *smr, *dmr;
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5_wqe_data_seg *ds;
	struct mlx5_cqe64 *cqe;
	struct mlx5dv_devx_event_channel *ch = NULL;
	uint32_t eqn;
	uint64_t db;

	CHECK(pd && uar && src && dst);
	if (!pd || !uar || !src || !dst)
		goto out;
	CHECK_EQ(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD), 0);
	CHECK_EQ(mlx5dv_devx_query_eqn(ctx, 0, &eqn), 0);
	memset(src, 'c', 1024);
	smr = ibv_reg_mr(pd, src, 4096, IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(pd, dst, 4096, IBV_ACCESS_LOCAL_WRITE);
	CHECK(smr && dmr);
	if (!smr || !dmr)
		goto out;
	CHECK_EQ(e2e_make(ctx, &a, dvpd.pdn, eqn, uar), 0);
	CHECK_EQ(e2e_make(ctx, &b, dvpd.pdn, eqn, uar), 0);
	if (!a.qp || !b.qp)
		goto out_mr;
	CHECK_EQ(e2e_modify(a.qp, MLX5_CMD_OP_RST2INIT_QP, a.qpn, 0, ctx), 0);
	CHECK_EQ(e2e_modify(b.qp, MLX5_CMD_OP_RST2INIT_QP, b.qpn, 0, ctx), 0);
	CHECK_EQ(e2e_modify(a.qp, MLX5_CMD_OP_INIT2RTR_QP, a.qpn, b.qpn, ctx), 0);
	CHECK_EQ(e2e_modify(b.qp, MLX5_CMD_OP_INIT2RTR_QP, b.qpn, a.qpn, ctx), 0);
	CHECK_EQ(e2e_modify(a.qp, MLX5_CMD_OP_RTR2RTS_QP, a.qpn, 0, ctx), 0);
	CHECK_EQ(e2e_modify(b.qp, MLX5_CMD_OP_RTR2RTS_QP, b.qpn, 0, ctx), 0);

	/* Completion events of B's CQ on an event channel: subscribe, then
	 * arm the CQ by hand (arm record + CQ doorbell store at UAR 0x20). */
	ch = mlx5dv_devx_create_event_channel(ctx, 0);
	CHECK(ch != NULL);
	if (ch) {
		uint16_t ev = 0;	/* completion */
		/* sn 1: a fresh arm request the watcher sees in the arm record */
		uint32_t arm = htobe32(1u << 28 | 0u << 24 | 0);
		uint32_t bell[2] = { arm, htobe32(b.cqn) };

		CHECK_EQ(mlx5dv_devx_subscribe_devx_event(ch, b.cq, sizeof(ev), &ev,
							  0xc0ffee), 0);
		((volatile uint32_t *)b.cqdbr)[1] = arm;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		memcpy(&db, bell, 8);
		*(volatile uint64_t *)((uint8_t *)uar->base_addr + 0x20) = db;
	}

	/* B: one receive WQE, RCV doorbell record; no doorbell ring */
	ds = (void *)b.buf;
	ds->byte_count = htobe32(1024);
	ds->lkey = htobe32(dmr->lkey);
	ds->addr = htobe64((uintptr_t)dst);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	((volatile uint32_t *)b.dbr)[0] = htobe32(1);

	/* A: SEND_IMM, SND doorbell record, then one store to reg_addr */
	ctrl = (void *)(a.buf + E2E_SQ_OFF);
	ctrl->opmod_idx_opcode = htobe32(0 << 8 | MLX5_OPCODE_SEND_IMM);
	ctrl->qpn_ds = htobe32(a.qpn << 8 | 2);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	ctrl->imm = htobe32(0x03020100);
	ds = (void *)(ctrl + 1);
	ds->byte_count = htobe32(1024);
	ds->lkey = htobe32(smr->lkey);
	ds->addr = htobe64((uintptr_t)src);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	((volatile uint32_t *)a.dbr)[1] = htobe32(1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&db, ctrl, 8);
	*(volatile uint64_t *)uar->reg_addr = db;

	cqe = e2e_poll(&a, 0);
	CHECK(cqe != NULL);
	if (cqe)
		CHECK_EQ(cqe->op_own >> 4, MLX5_CQE_REQ);
	cqe = e2e_poll(&b, 0);
	CHECK(cqe != NULL);
	if (cqe) {
		CHECK_EQ(cqe->op_own >> 4, MLX5_CQE_RESP_SEND_IMM);
		CHECK_EQ(cqe->imm_inval_pkey, htobe32(0x03020100));
		CHECK_EQ(be32toh(cqe->byte_cnt), 1024);
		CHECK(memcmp(src, dst, 1024) == 0);
	}
	if (ch) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		uint8_t evbuf[sizeof(struct mlx5dv_devx_async_event_hdr) + 64];
		struct mlx5dv_devx_async_event_hdr *hdr = (void *)evbuf;
		uint32_t cqn;

		int np = poll(&pfd, 1, 3000);

		CHECK_EQ(np, 1);
		if (np != 1)
			goto no_event;
		CHECK_EQ(mlx5dv_devx_get_event(ch, hdr, 8), -1);	/* too small */
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(mlx5dv_devx_get_event(ch, hdr, sizeof(evbuf)), (ssize_t)sizeof(evbuf));
		CHECK_EQ(hdr->cookie, 0xc0ffee);
		CHECK_EQ(hdr->out_data[1], 0);	/* EQE type: completion */
		memcpy(&cqn, hdr->out_data + 0x38, 4);
		CHECK_EQ(be32toh(cqn) & 0xffffff, b.cqn);
no_event:
		mlx5dv_devx_destroy_event_channel(ch);
	}
out_mr:
	e2e_free(&a);
	e2e_free(&b);
	if (smr)
		ibv_dereg_mr(smr);
	if (dmr)
		ibv_dereg_mr(dmr);
out:
	if (pd)
		ibv_dealloc_pd(pd);
	free(src);
	free(dst);
}

/*
 * An EQ's consumer index reaches the device through the EQ doorbell alone:
 * a 32-bit store of eqn << 24 | ci at UAR offset 0x48 (0x40 also arms), as
 * the kernel's eq_update_ci does, here a plain store into a DEVX UAR page.
 * An 8-entry EQ takes 100 completion events in a row while its consumer
 * stores the index after each; then, with the index held back, 8 events fit
 * and the following ones are dropped without overwriting an unread EQE.
 * Events: a DEVX QP sends to another whose CQ, on this EQ, is armed before
 * each SEND; everything rung by hand.
 */
#define EQT_LOG 3

struct eqt {
	struct e2e_qp a, b;
	struct mlx5dv_devx_uar *uar;
	struct ibv_mr *smr, *dmr;
	uint8_t *src, *dst;
	uint8_t *eq;
	uint32_t eqn, eq_ci, sent, a_ci, b_ci;
};

static void eqt_store32(struct eqt *t, uint32_t reg, uint32_t v)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint32_t *)((uint8_t *)t->uar->base_addr + reg) = htobe32(v);
}

static void eqt_eq_doorbell(struct eqt *t, bool arm)
{
	eqt_store32(t, arm ? 0x40 : 0x48, (t->eq_ci & 0xffffff) | t->eqn << 24);
}

/* The EQE at @ci if the device wrote it in ci's pass: its CQN, else -1. */
static int64_t eqt_eqe(struct eqt *t, uint32_t ci)
{
	uint8_t *e = t->eq + (size_t)(ci & ((1u << EQT_LOG) - 1)) * 64;
	uint32_t cqn;

	if ((__atomic_load_n(&e[63], __ATOMIC_ACQUIRE) & 1) != !!(ci & (1u << EQT_LOG)))
		return -1;
	if (e[1] != 0)	/* completion events only */
		return -2;
	memcpy(&cqn, e + 0x38, 4);
	return be32toh(cqn) & 0xffffff;
}

/* Arms B's CQ, posts a receive on B and a SEND on A, waits for both CQEs. */
static int eqt_event(struct eqt *t)
{
	uint32_t i = t->sent++, arm;
	uint32_t bell[2];
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5_wqe_data_seg *ds;
	struct mlx5_cqe64 *cqe;
	uint64_t db;

	arm = htobe32(((i + 1) & 3) << 28 | (t->b_ci & 0xffffff));
	bell[0] = arm;
	bell[1] = htobe32(t->b.cqn);
	((volatile uint32_t *)t->b.cqdbr)[1] = arm;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&db, bell, 8);
	*(volatile uint64_t *)((uint8_t *)t->uar->base_addr + 0x20) = db;

	ds = (void *)(t->b.buf + (size_t)(i % (1u << E2E_RQ_LOG)) * 16);
	ds->byte_count = htobe32(64);
	ds->lkey = htobe32(t->dmr->lkey);
	ds->addr = htobe64((uintptr_t)t->dst);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	((volatile uint32_t *)t->b.dbr)[0] = htobe32(i + 1);

	ctrl = (void *)(t->a.buf + E2E_SQ_OFF + (size_t)(i % (1u << E2E_SQ_LOG)) * 64);
	memset(ctrl, 0, 64);
	ctrl->opmod_idx_opcode = htobe32((i & 0xffff) << 8 | MLX5_OPCODE_SEND);
	ctrl->qpn_ds = htobe32(t->a.qpn << 8 | 2);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	ds = (void *)(ctrl + 1);
	ds->byte_count = htobe32(64);
	ds->lkey = htobe32(t->smr->lkey);
	ds->addr = htobe64((uintptr_t)t->src);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	((volatile uint32_t *)t->a.dbr)[1] = htobe32((i + 1) & 0xffff);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&db, ctrl, 8);
	*(volatile uint64_t *)t->uar->reg_addr = db;

	cqe = e2e_poll(&t->a, t->a_ci);
	if (!cqe || cqe->op_own >> 4 != MLX5_CQE_REQ)
		return -1;
	((volatile uint32_t *)t->a.cqdbr)[0] = htobe32(++t->a_ci & 0xffffff);
	cqe = e2e_poll(&t->b, t->b_ci);
	if (!cqe || cqe->op_own >> 4 != MLX5_CQE_RESP_SEND)
		return -1;
	((volatile uint32_t *)t->b.cqdbr)[0] = htobe32(++t->b_ci & 0xffffff);
	return 0;
}

static void test_eq_consumer_index(struct ibv_context *ctx)
{
	struct mlx5dv_devx_msi_vector *msi = mlx5dv_devx_alloc_msi_vector(ctx);
	uint32_t in[DEVX_ST_SZ_DW(create_eq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_eq_out)] = {};
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct mlx5dv_pd dvpd;
	struct mlx5dv_obj obj = { .pd = { .in = pd, .out = &dvpd } };
	struct mlx5dv_devx_eq *eq = NULL;
	struct pollfd pfd;
	struct eqt t = {};
	unsigned int i, ok = 0, fit;
	uint64_t v;
	void *eqc;

	t.uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	t.src = zalloc_pages(4096);
	t.dst = zalloc_pages(4096);
	CHECK(msi && pd && t.uar && t.src && t.dst);
	if (!msi || !pd || !t.uar || !t.src || !t.dst)
		goto out;
	CHECK_EQ(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD), 0);
	/* created neither armed nor always armed */
	DEVX_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	eqc = DEVX_ADDR_OF(create_eq_in, in, eq_context_entry);
	DEVX_SET(eqc, eqc, log_eq_size, EQT_LOG);
	DEVX_SET(eqc, eqc, uar_page, t.uar->page_id);
	DEVX_SET(eqc, eqc, intr, msi->vector);
	eq = mlx5dv_devx_create_eq(ctx, in, sizeof(in), out, sizeof(out));
	CHECK(eq != NULL);
	if (!eq)
		goto out;
	t.eq = eq->vaddr;
	t.eqn = DEVX_GET(create_eq_out, out, eq_number);
	t.smr = ibv_reg_mr(pd, t.src, 4096, IBV_ACCESS_LOCAL_WRITE);
	t.dmr = ibv_reg_mr(pd, t.dst, 4096, IBV_ACCESS_LOCAL_WRITE);
	CHECK(t.smr && t.dmr);
	if (!t.smr || !t.dmr)
		goto out;
	CHECK_EQ(e2e_make(ctx, &t.a, dvpd.pdn, t.eqn, t.uar), 0);
	CHECK_EQ(e2e_make(ctx, &t.b, dvpd.pdn, t.eqn, t.uar), 0);
	if (!t.a.qp || !t.b.qp)
		goto out;
	CHECK_EQ(e2e_modify(t.a.qp, MLX5_CMD_OP_RST2INIT_QP, t.a.qpn, 0, ctx), 0);
	CHECK_EQ(e2e_modify(t.b.qp, MLX5_CMD_OP_RST2INIT_QP, t.b.qpn, 0, ctx), 0);
	CHECK_EQ(e2e_modify(t.a.qp, MLX5_CMD_OP_INIT2RTR_QP, t.a.qpn, t.b.qpn, ctx), 0);
	CHECK_EQ(e2e_modify(t.b.qp, MLX5_CMD_OP_INIT2RTR_QP, t.b.qpn, t.a.qpn, ctx), 0);
	CHECK_EQ(e2e_modify(t.a.qp, MLX5_CMD_OP_RTR2RTS_QP, t.a.qpn, 0, ctx), 0);
	CHECK_EQ(e2e_modify(t.b.qp, MLX5_CMD_OP_RTR2RTS_QP, t.b.qpn, 0, ctx), 0);

	/* armed by a store at 0x40: the first EQE interrupts, and disarms */
	eqt_eq_doorbell(&t, true);
	for (i = 0; i < 100; i++) {
		if (eqt_event(&t))
			break;
		if (eqt_eqe(&t, t.eq_ci) != t.b.cqn)
			break;
		t.eq_ci++;
		eqt_eq_doorbell(&t, false);
		ok++;
	}
	CHECK_EQ(ok, 100);	/* 12 passes over the ring, none dropped */
	pfd.fd = msi->fd;
	pfd.events = POLLIN;
	CHECK_EQ(poll(&pfd, 1, 2000), 1);
	CHECK_EQ(read(msi->fd, &v, sizeof(v)), sizeof(v));
	CHECK_EQ(v, 1);
	CHECK_EQ(poll(&pfd, 1, 0), 0);

	/* The index held back: 8 events fit, 3 more are dropped. */
	eqt_eq_doorbell(&t, true);	/* re-armed: one interrupt again */
	for (i = 0; i < (1u << EQT_LOG) + 3; i++)
		CHECK_EQ(eqt_event(&t), 0);	/* the CQEs all arrive */
	for (fit = 0; fit < (1u << EQT_LOG) + 3; fit++)
		if (eqt_eqe(&t, t.eq_ci + fit) != t.b.cqn)
			break;
	CHECK_EQ(fit, 1u << EQT_LOG);
	CHECK_EQ(poll(&pfd, 1, 1000), 1);
	CHECK_EQ(read(msi->fd, &v, sizeof(v)), sizeof(v));
	CHECK_EQ(v, 1);
	/* consumed and handed back: the next event lands after them */
	t.eq_ci += fit;
	eqt_eq_doorbell(&t, false);
	CHECK_EQ(eqt_event(&t), 0);
	CHECK_EQ(eqt_eqe(&t, t.eq_ci), t.b.cqn);
	CHECK_EQ(eqt_eqe(&t, t.eq_ci + 1), -1);
out:
	e2e_free(&t.a);
	e2e_free(&t.b);
	if (t.smr)
		ibv_dereg_mr(t.smr);
	if (t.dmr)
		ibv_dereg_mr(t.dmr);
	if (eq)
		CHECK_EQ(mlx5dv_devx_destroy_eq(eq), 0);
	if (msi)
		mlx5dv_devx_free_msi_vector(msi);
	if (t.uar)
		mlx5dv_devx_free_uar(t.uar);
	if (pd)
		ibv_dealloc_pd(pd);
	free(t.src);
	free(t.dst);
}

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx, *plain;
	int n;

	list = ibv_get_device_list(&n);
	CHECK(list && n >= 1);
	if (!list || n < 1)
		return smx_test_done();
	dev = list[0];
	ctx = open_devx();
	plain = ibv_open_device(dev);
	CHECK(ctx != NULL && plain != NULL);
	if (ctx && plain) {
		test_general(ctx, plain);
		test_objects(ctx);
		test_hostile(ctx, plain);
		test_verbs_objects(ctx);
		test_rmp(ctx);
		test_eq(ctx);
		test_e2e_hand_written(ctx);
		test_eq_consumer_index(ctx);
		test_close_with_leftovers();
	}
	if (plain)
		ibv_close_device(plain);
	if (ctx)
		ibv_close_device(ctx);
	ibv_free_device_list(list);
	return smx_test_done();
}
