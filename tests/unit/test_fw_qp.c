/* SPDX-License-Identifier: MIT */
/* QPs: creation checks, the state machine per type, QUERY_QP round trip. */
#include "fw_test_util.h"

struct env {
	struct smx_dev *d;
	uint32_t pd, uar, cq, cq2, xrcd;
};

static unsigned int t_modify(struct smx_dev *d, uint16_t op, uint16_t uid,
			     uint32_t qpn, uint32_t mask,
			     void (*fill)(void *qpc, void *arg), void *arg)
{
	MB(modify_qp_in) = { 0 };
	MB(modify_qp_out) = { 0 };

	DEVX_SET(modify_qp_in, modify_qp_in, opcode, op);
	DEVX_SET(modify_qp_in, modify_qp_in, uid, uid);
	DEVX_SET(modify_qp_in, modify_qp_in, qpn, qpn);
	DEVX_SET(modify_qp_in, modify_qp_in, opt_param_mask, mask);
	if (fill)
		fill(DEVX_ADDR_OF(modify_qp_in, modify_qp_in, qpc), arg);
	if (op == MLX5_CMD_OP_2ERR_QP || op == MLX5_CMD_OP_2RST_QP)
		return t_cmd(d, modify_qp_in, DEVX_ST_SZ_BYTES(qp_2rst_in),
			     modify_qp_out, sizeof(modify_qp_out));
	return t_cmd(d, modify_qp_in, sizeof(modify_qp_in), modify_qp_out,
		     sizeof(modify_qp_out));
}

static void fill_init(void *qpc, void *arg)
{
	(void)arg;
	DEVX_SET(qpc, qpc, primary_address_path.pkey_index, 0);
	DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	DEVX_SET(qpc, qpc, rwe, 1);
	DEVX_SET(qpc, qpc, rre, 1);
	DEVX_SET(qpc, qpc, q_key, 0x11111111);
}

static void fill_rtr(void *qpc, void *arg)
{
	uint8_t *rgid = DEVX_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip);

	DEVX_SET(qpc, qpc, mtu, MLX5_QPC_MTU_4K_BYTES);
	DEVX_SET(qpc, qpc, log_msg_max, 30);
	DEVX_SET(qpc, qpc, remote_qpn, *(uint32_t *)arg);
	DEVX_SET(qpc, qpc, next_rcv_psn, 0x123456);
	DEVX_SET(qpc, qpc, log_rra_max, 3);
	DEVX_SET(qpc, qpc, min_rnr_nak, 12);
	DEVX_SET(qpc, qpc, primary_address_path.grh, 1);
	DEVX_SET(qpc, qpc, primary_address_path.hop_limit, 64);
	DEVX_SET(qpc, qpc, primary_address_path.src_addr_index, 0);
	DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	DEVX_SET(qpc, qpc, primary_address_path.rmac_47_32, 0x0253);
	DEVX_SET(qpc, qpc, primary_address_path.rmac_31_0, 0x4d583501);
	DEVX_SET(qpc, qpc, primary_address_path.udp_sport, 0xc000);
	rgid[10] = 0xff;
	rgid[11] = 0xff;
	rgid[12] = 10;
	rgid[15] = 7;
}

static void fill_rts(void *qpc, void *arg)
{
	(void)arg;
	DEVX_SET(qpc, qpc, next_send_psn, 0xabcdef);
	DEVX_SET(qpc, qpc, retry_count, 7);
	DEVX_SET(qpc, qpc, rnr_retry, 6);
	DEVX_SET(qpc, qpc, log_sra_max, 2);
	DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
}

static void fill_bad_mtu(void *qpc, void *arg)
{
	fill_rtr(qpc, arg);
	DEVX_SET(qpc, qpc, mtu, 6);
}

static void fill_bad_sgid(void *qpc, void *arg)
{
	fill_rtr(qpc, arg);
	DEVX_SET(qpc, qpc, primary_address_path.src_addr_index, 3);
}

static void fill_bad_rra(void *qpc, void *arg)
{
	fill_rtr(qpc, arg);
	DEVX_SET(qpc, qpc, log_rra_max, 7);
}

static void fill_min_rnr(void *qpc, void *arg)
{
	(void)arg;
	DEVX_SET(qpc, qpc, min_rnr_nak, 20);
	DEVX_SET(qpc, qpc, next_send_psn, 0x1);	/* not optional: ignored */
}

static unsigned int t_query(struct smx_dev *d, uint32_t qpn, uint32_t *out,
			    size_t outlen)
{
	MB(query_qp_in) = { 0 };

	DEVX_SET(query_qp_in, query_qp_in, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, query_qp_in, qpn, qpn);
	return t_cmd(d, query_qp_in, sizeof(query_qp_in), out, outlen);
}

static uint32_t new_qp(struct env *e, uint32_t st, unsigned int *status)
{
	struct t_qp_attr a = {
		.st = st, .pd = e->pd, .scq = e->cq, .rcq = e->cq2,
		.uar = e->uar, .log_sq = 6, .log_rq = 5,
	};

	return t_qp(e->d, &a, status);
}

static void test_rc(struct env *e)
{
	struct smx_dev *d = e->d;
	uint32_t out[DEVX_ST_SZ_DW(query_qp_out) + 16] = { 0 };
	void *qpc = DEVX_ADDR_OF(query_qp_out, out, qpc);
	unsigned int st;
	uint32_t qpn = new_qp(e, MLX5_QPC_ST_RC, &st), peer = 0x4242;

	CHECK_EQ(st, 0);
	CHECK(qpn >= 0x100);
	CHECK_EQ(t_query(d, qpn, out, sizeof(out)), 0);
	CHECK_EQ(DEVX_GET(qpc, qpc, state), MLX5_QPC_STATE_RST);
	CHECK_EQ(DEVX_GET(qpc, qpc, pd), e->pd);
	CHECK_EQ(DEVX_GET(qpc, qpc, cqn_snd), e->cq);
	/* The PAS come back after the qpc. */
	CHECK(DEVX_GET64(query_qp_out, out, pas[0]) != 0);

	/* Out of order: RST -> RTR is not a transition. */
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_INIT2RTR_QP, 0, qpn, 0, fill_rtr, &peer),
		 MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RTR2RTS_QP, 0, qpn, 0, fill_rts, NULL),
		 MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RST2INIT_QP, 0, qpn, 0, fill_init, NULL),
		 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_INIT2INIT_QP, 0, qpn,
			  MLX5_QP_OPTPAR_RWE, fill_init, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RST2INIT_QP, 0, qpn, 0, fill_init, NULL),
		 MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	/* Hostile RTR attributes. */
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_INIT2RTR_QP, 0, qpn, 0, fill_bad_mtu,
			  &peer), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_INIT2RTR_QP, 0, qpn, 0, fill_bad_sgid,
			  &peer), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_INIT2RTR_QP, 0, qpn, 0, fill_bad_rra,
			  &peer), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_query(d, qpn, out, sizeof(out)), 0);
	CHECK_EQ(DEVX_GET(qpc, qpc, state), MLX5_QPC_STATE_INIT);

	CHECK_EQ(t_modify(d, MLX5_CMD_OP_INIT2RTR_QP, 0, qpn, 0, fill_rtr, &peer),
		 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RTR2RTS_QP, 0, qpn, 0, fill_rts, NULL),
		 0);
	CHECK_EQ(t_query(d, qpn, out, sizeof(out)), 0);
	CHECK_EQ(DEVX_GET(qpc, qpc, state), MLX5_QPC_STATE_RTS);
	CHECK_EQ(DEVX_GET(qpc, qpc, remote_qpn), peer);
	CHECK_EQ(DEVX_GET(qpc, qpc, next_rcv_psn), 0x123456);
	CHECK_EQ(DEVX_GET(qpc, qpc, next_send_psn), 0xabcdef);
	CHECK_EQ(DEVX_GET(qpc, qpc, mtu), MLX5_QPC_MTU_4K_BYTES);
	CHECK_EQ(DEVX_GET(qpc, qpc, retry_count), 7);
	CHECK_EQ(DEVX_GET(qpc, qpc, rnr_retry), 6);
	CHECK_EQ(DEVX_GET(qpc, qpc, min_rnr_nak), 12);
	CHECK_EQ(DEVX_GET(qpc, qpc, log_rra_max), 3);
	CHECK_EQ(DEVX_GET(qpc, qpc, log_sra_max), 2);
	CHECK_EQ(DEVX_GET(qpc, qpc, rre), 1);
	CHECK_EQ(DEVX_GET(qpc, qpc, rwe), 1);
	CHECK_EQ(DEVX_GET(qpc, qpc, primary_address_path.ack_timeout), 14);
	CHECK_EQ(DEVX_GET(qpc, qpc, primary_address_path.hop_limit), 64);
	CHECK_EQ(DEVX_GET(qpc, qpc, primary_address_path.grh), 1);
	CHECK_EQ(DEVX_GET(qpc, qpc, primary_address_path.rmac_31_0), 0x4d583501);
	CHECK_EQ(DEVX_GET(qpc, qpc, primary_address_path.udp_sport), 0xc000);
	CHECK_EQ(((uint8_t *)DEVX_ADDR_OF(qpc, qpc,
			primary_address_path.rgid_rip))[12], 10);

	/* RTS2RTS applies only what opt_param_mask selects. */
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RTS2RTS_QP, 0, qpn,
			  MLX5_QP_OPTPAR_RNR_TIMEOUT, fill_min_rnr, NULL), 0);
	CHECK_EQ(t_query(d, qpn, out, sizeof(out)), 0);
	CHECK_EQ(DEVX_GET(qpc, qpc, min_rnr_nak), 20);
	CHECK_EQ(DEVX_GET(qpc, qpc, next_send_psn), 0xabcdef);

	/* RTS2RTS opt_param_mask_95_32 UDP_SPORT (rdma-core: no qpc_ext);
	 * port 0 is refused and leaves the old port. */
	{
		MB(modify_qp_ext_in) = { 0 };
		MB(modify_qp_out) = { 0 };
		void *q = DEVX_ADDR_OF(modify_qp_ext_in, modify_qp_ext_in, qpc);

		DEVX_SET(modify_qp_ext_in, modify_qp_ext_in, opcode,
			 MLX5_CMD_OP_RTS2RTS_QP);
		DEVX_SET(modify_qp_ext_in, modify_qp_ext_in, qpn, qpn);
		DEVX_SET64(modify_qp_ext_in, modify_qp_ext_in,
			   opt_param_mask_95_32, MLX5_QPC_OPT_MASK_32_UDP_SPORT);
		CHECK_EQ(t_cmd(d, modify_qp_ext_in, sizeof(modify_qp_ext_in),
			       modify_qp_out, sizeof(modify_qp_out)),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
		DEVX_SET(qpc, q, primary_address_path.udp_sport, 55555);
		CHECK_EQ(t_cmd(d, modify_qp_ext_in, sizeof(modify_qp_ext_in),
			       modify_qp_out, sizeof(modify_qp_out)), 0);
		CHECK_EQ(t_query(d, qpn, out, sizeof(out)), 0);
		CHECK_EQ(DEVX_GET(qpc, qpc, primary_address_path.udp_sport),
			 55555);
		CHECK_EQ(DEVX_GET(qpc, qpc, min_rnr_nak), 20);

		/* QoS queue groups through the extension: an unknown
		 * element is refused, 0/0 (leave both) is fine. */
		memset(modify_qp_ext_in, 0, sizeof(modify_qp_ext_in));
		DEVX_SET(modify_qp_ext_in, modify_qp_ext_in, opcode,
			 MLX5_CMD_OP_RTS2RTS_QP);
		DEVX_SET(modify_qp_ext_in, modify_qp_ext_in, qpn, qpn);
		DEVX_SET(modify_qp_ext_in, modify_qp_ext_in, qpc_ext, 1);
		DEVX_SET64(modify_qp_ext_in, modify_qp_ext_in,
			   opt_param_mask_95_32,
			   MLX5_QPC_OPT_MASK_32_QOS_QUEUE_GROUP_ID);
		DEVX_SET(qpc_ext, DEVX_ADDR_OF(modify_qp_ext_in,
					       modify_qp_ext_in, qpc_data_ext),
			 qos_queue_group_id_requester, 0x7777);
		CHECK_EQ(t_cmd(d, modify_qp_ext_in, sizeof(modify_qp_ext_in),
			       modify_qp_out, sizeof(modify_qp_out)),
			 MLX5_CMD_STAT_BAD_RES_ERR);
		DEVX_SET(qpc_ext, DEVX_ADDR_OF(modify_qp_ext_in,
					       modify_qp_ext_in, qpc_data_ext),
			 qos_queue_group_id_requester, 0);
		CHECK_EQ(t_cmd(d, modify_qp_ext_in, sizeof(modify_qp_ext_in),
			       modify_qp_out, sizeof(modify_qp_out)), 0);
	}

	/* RC has no SQ error state; SQD round trip. */
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_SQERR2RTS_QP, 0, qpn, 0, NULL, NULL),
		 MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RTS2SQD_QP, 0, qpn, 0, NULL, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_SQD2SQD_QP, 0, qpn, 0, NULL, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_SQD_RTS_QP, 0, qpn, 0, NULL, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RTS2SQD_QP, 0, qpn, 0, NULL, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_SQD2RTS_QP, 0, qpn, 0, NULL, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_2ERR_QP, 0, qpn, 0, NULL, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RTS2RTS_QP, 0, qpn, 0, NULL, NULL),
		 MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_2RST_QP, 0, qpn, 0, NULL, NULL), 0);
	CHECK_EQ(t_query(d, qpn, out, sizeof(out)), 0);
	CHECK_EQ(DEVX_GET(qpc, qpc, state), MLX5_QPC_STATE_RST);

	/* CQ in use by the QP. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_CQ, 0, e->cq),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, qpn), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, qpn),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RST2INIT_QP, 0, qpn, 0, fill_init, NULL),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_query(d, qpn, out, sizeof(out)), MLX5_CMD_STAT_BAD_RES_ERR);
}

static void test_ud_uc(struct env *e)
{
	struct smx_dev *d = e->d;
	uint32_t out[DEVX_ST_SZ_DW(query_qp_out) + 16] = { 0 };
	void *qpc = DEVX_ADDR_OF(query_qp_out, out, qpc);
	unsigned int st;
	uint32_t ud = new_qp(e, MLX5_QPC_ST_UD, &st), uc, peer = 9;

	CHECK_EQ(st, 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RST2INIT_QP, 0, ud, 0, fill_init, NULL),
		 0);
	/* UD RTR/RTS need no path, PSN from RTR are ignored. */
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_INIT2RTR_QP, 0, ud, 0, NULL, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RTR2RTS_QP, 0, ud, 0, fill_rts, NULL),
		 0);
	CHECK_EQ(t_query(d, ud, out, sizeof(out)), 0);
	CHECK_EQ(DEVX_GET(qpc, qpc, q_key), 0x11111111);
	CHECK_EQ(DEVX_GET(qpc, qpc, next_send_psn), 0xabcdef);
	CHECK_EQ(DEVX_GET(qpc, qpc, state), MLX5_QPC_STATE_RTS);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_SQERR2RTS_QP, 0, ud, 0, NULL, NULL),
		 MLX5_CMD_STAT_BAD_QP_STATE_ERR);	/* not in SQER */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, ud), 0);

	uc = new_qp(e, MLX5_QPC_ST_UC, &st);
	CHECK_EQ(st, 0);
	/* UC takes no RDMA read access. */
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RST2INIT_QP, 0, uc, 0, fill_init, NULL),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RST2INIT_QP, 0, uc, 0, NULL, NULL), 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_INIT2RTR_QP, 0, uc, 0, fill_rtr, &peer),
		 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, uc), 0);
}

static void test_create_hostile(struct env *e)
{
	struct smx_dev *d = e->d;
	struct t_qp_attr a = {
		.st = MLX5_QPC_ST_RC, .pd = e->pd, .scq = e->cq, .rcq = e->cq,
		.uar = e->uar, .log_sq = 4, .log_rq = 4,
	};
	unsigned int st;
	uint16_t uid = t_uctx(d);
	uint32_t qpn;

	a.st = MLX5_QPC_ST_RAW_DATAGRAM;
	t_qp(d, &a, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* A DC initiator needs its send queue. */
	a.st = MLX5_QPC_ST_DCI;
	a.no_sq = 1;
	t_qp(d, &a, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);
	a.no_sq = 0;
	a.st = MLX5_QPC_ST_RC;
	a.log_sq = 15;		/* fine: log_max_qp_sz 15 ... */
	a.log_rq = 0;
	qpn = t_qp(d, &a, &st);
	CHECK_EQ(st, 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, qpn), 0);
	a.log_sq = 4;
	a.pd = 0xfffff;
	t_qp(d, &a, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_RES_ERR);
	a.pd = e->pd;
	a.scq = 0xfffff;
	t_qp(d, &a, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_RES_ERR);
	a.scq = e->cq;
	a.rq_type = 2;
	t_qp(d, &a, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);
	a.rq_type = 1;		/* SRQ that does not exist */
	a.srqn = 0x5555;
	t_qp(d, &a, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_RES_ERR);
	a.rq_type = 0;
	/* uid: a user context may reference uid 0's PD/CQs/UAR, but may not
	 * act on a QP it does not own (uid 0's or another user's). */
	qpn = t_qp(d, &a, &st);
	CHECK_EQ(st, 0);
	CHECK_EQ(t_modify(d, MLX5_CMD_OP_RST2INIT_QP, uid, qpn, 0, fill_init,
			  NULL), MLX5_CMD_STAT_BAD_PARAM_ERR);
	a.uid = uid;
	{
		uint32_t uqp = t_qp(d, &a, &st);
		uint16_t uid2 = t_uctx(d);

		CHECK_EQ(st, 0);
		CHECK_EQ(t_modify(d, MLX5_CMD_OP_RST2INIT_QP, uid2, uqp, 0,
				  fill_init, NULL), MLX5_CMD_STAT_BAD_PARAM_ERR);
		CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, uid2, uqp),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
		CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, uid, uqp), 0);
	}
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, qpn), 0);
}

static void test_xrc(struct env *e)
{
	struct smx_dev *d = e->d;
	struct t_qp_attr ini = {
		.st = MLX5_QPC_ST_XRC, .pd = e->pd, .scq = e->cq,
		.uar = e->uar, .log_sq = 4, .rq_type = 3,
	};
	unsigned int st;
	uint32_t qpn = t_qp(d, &ini, &st);

	CHECK_EQ(st, 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, qpn), 0);
	/* XRC target without an XRC domain. */
	{
		struct t_qp_attr tgt = {
			.st = MLX5_QPC_ST_XRC, .pd = e->pd, .rcq = e->cq,
			.no_sq = 1, .rq_type = 3,
		};

		tgt.rcq = e->cq;
		t_qp(d, &tgt, &st);
		CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* no queue */
	}
}

static unsigned int t_dct_cmd(struct smx_dev *d, uint16_t op, uint32_t dctn,
			      void *out, size_t outlen)
{
	MB(dct_cmd_in) = { 0 };

	DEVX_SET(dct_cmd_in, dct_cmd_in, opcode, op);
	DEVX_SET(dct_cmd_in, dct_cmd_in, dctn, dctn);
	return t_cmd(d, dct_cmd_in, sizeof(dct_cmd_in), out, outlen);
}

/* DCTs: CREATE/QUERY/DRAIN/ARM/DESTROY_DCT, numbers shared with QPs, the
 * QP commands refuse a DCT; DCI creation rules; stream reset refusals. */
static void test_dc(struct env *e)
{
	struct smx_dev *d = e->d;
	size_t len = DEVX_ST_SZ_BYTES(create_srq_in) + 8;
	uint8_t *sin = calloc(1, len);
	void *sctx = DEVX_ADDR_OF(create_srq_in, sin, srq_context_entry);
	MB(create_srq_out) = { 0 };
	MB(create_dct_in) = { 0 };
	MB(create_dct_out) = { 0 };
	MB(query_dct_out) = { 0 };
	MB(mbox_out) = { 0 };
	MB(modify_qp_ext_in) = { 0 };
	MB(modify_qp_out) = { 0 };
	uint32_t qpc_out[DEVX_ST_SZ_DW(query_qp_out) + 64];
	void *dc = DEVX_ADDR_OF(create_dct_in, create_dct_in, dct_context_entry);
	void *qd = DEVX_ADDR_OF(query_dct_out, query_dct_out, dct_context_entry);
	struct t_qp_attr a = {
		.st = MLX5_QPC_ST_DCI, .pd = e->pd, .scq = e->cq, .rcq = e->cq,
		.uar = e->uar, .log_sq = 4, .rq_type = 3,
	};
	uint32_t srqn, dctn, dci;
	unsigned int st;

	DEVX_SET(create_srq_in, sin, opcode, MLX5_CMD_OP_CREATE_SRQ);
	DEVX_SET(srqc, sctx, log_srq_size, 6);
	DEVX_SET(srqc, sctx, log_rq_stride, 2);
	DEVX_SET(srqc, sctx, pd, e->pd);
	DEVX_SET64(srqc, sctx, dbr_addr, (uint64_t)(uintptr_t)t_pages(64));
	t_put_pas(sin, DEVX_BYTE_OFF(create_srq_in, pas), t_pages(4096), 4096);
	CHECK_EQ(t_cmd(d, sin, len, create_srq_out, sizeof(create_srq_out)), 0);
	srqn = DEVX_GET(create_srq_out, create_srq_out, srqn);
	free(sin);

	DEVX_SET(create_dct_in, create_dct_in, opcode, MLX5_CMD_OP_CREATE_DCT);
	DEVX_SET(dctc, dc, pd, e->pd);
	DEVX_SET(dctc, dc, cqn, e->cq);
	DEVX_SET(dctc, dc, srqn_xrqn, srqn);
	DEVX_SET(dctc, dc, rwe, 1);
	DEVX_SET(dctc, dc, mtu, 3);
	DEVX_SET(dctc, dc, port, 1);
	DEVX_SET(dctc, dc, min_rnr_nak, 12);
	DEVX_SET64(dctc, dc, dc_access_key, 0xbadc0de);
	DEVX_SET(dctc, dc, mtu, 7);
	CHECK_EQ(t_cmd(d, create_dct_in, sizeof(create_dct_in), create_dct_out,
		       sizeof(create_dct_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(dctc, dc, mtu, 3);
	DEVX_SET(dctc, dc, srqn_xrqn, srqn + 77);
	CHECK_EQ(t_cmd(d, create_dct_in, sizeof(create_dct_in), create_dct_out,
		       sizeof(create_dct_out)), MLX5_CMD_STAT_BAD_RES_ERR);
	DEVX_SET(dctc, dc, srqn_xrqn, srqn);
	CHECK_EQ(t_cmd(d, create_dct_in, sizeof(create_dct_in), create_dct_out,
		       sizeof(create_dct_out)), 0);
	dctn = DEVX_GET(create_dct_out, create_dct_out, dctn);

	/* The same number space as QPs: a new QP gets another number. */
	dci = t_qp(d, &a, &st);
	CHECK_EQ(st, 0);
	CHECK(dci != dctn);
	CHECK_EQ(t_dct_cmd(d, MLX5_CMD_OP_QUERY_DCT, dctn, query_dct_out,
			   sizeof(query_dct_out)), 0);
	CHECK_EQ(DEVX_GET(dctc, qd, state), MLX5_DCTC_STATE_ACTIVE);
	CHECK_EQ(DEVX_GET(dctc, qd, rwe), 1);
	CHECK_EQ(DEVX_GET(dctc, qd, min_rnr_nak), 12);
	CHECK_EQ(DEVX_GET64(dctc, qd, dc_access_key), 0xbadc0de);
	/* DCT commands refuse QPs, QP commands refuse DCTs. */
	CHECK_EQ(t_dct_cmd(d, MLX5_CMD_OP_QUERY_DCT, dci, query_dct_out,
			   sizeof(query_dct_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_query(d, dctn, qpc_out, sizeof(qpc_out)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, dctn),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_dct_cmd(d, MLX5_CMD_OP_ARM_DCT_FOR_KEY_VIOLATION, dctn,
			   mbox_out, sizeof(mbox_out)), 0);
	CHECK_EQ(t_dct_cmd(d, MLX5_CMD_OP_DRAIN_DCT, dctn, mbox_out,
			   sizeof(mbox_out)), 0);
	CHECK_EQ(t_dct_cmd(d, MLX5_CMD_OP_DRAIN_DCT, dctn, mbox_out,
			   sizeof(mbox_out)), MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	CHECK_EQ(t_dct_cmd(d, MLX5_CMD_OP_QUERY_DCT, dctn, query_dct_out,
			   sizeof(query_dct_out)), 0);
	CHECK_EQ(DEVX_GET(dctc, qd, state), MLX5_DCTC_STATE_DRAINED);
	CHECK_EQ(t_dct_cmd(d, MLX5_CMD_OP_DESTROY_DCT, dctn, mbox_out,
			   sizeof(mbox_out)), 0);
	CHECK_EQ(t_dct_cmd(d, MLX5_CMD_OP_QUERY_DCT, dctn, query_dct_out,
			   sizeof(query_dct_out)), MLX5_CMD_STAT_BAD_RES_ERR);

	/* A DCI without stream channels: no stream to reset (and not RTS). */
	DEVX_SET(modify_qp_ext_in, modify_qp_ext_in, opcode, MLX5_CMD_OP_RTS2RTS_QP);
	DEVX_SET(modify_qp_ext_in, modify_qp_ext_in, qpn, dci);
	DEVX_SET(modify_qp_ext_in, modify_qp_ext_in, qpc_ext, 1);
	DEVX_SET64(modify_qp_ext_in, modify_qp_ext_in, opt_param_mask_95_32,
		   MLX5_QPC_OPT_MASK_32_DCI_STREAM_CHANNEL_ID);
	CHECK_EQ(t_cmd(d, modify_qp_ext_in, sizeof(modify_qp_ext_in), modify_qp_out,
		       sizeof(modify_qp_out)), MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_QP, 0, dci), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_SRQ, 0, srqn), 0);
}

int main(void)
{
	struct env e = { 0 };
	unsigned int st;

	e.d = t_open();
	CHECK(e.d != NULL);
	if (!e.d)
		return smx_test_done();
	e.pd = t_alloc(e.d, MLX5_CMD_OP_ALLOC_PD, 0, &st);
	e.uar = t_alloc(e.d, MLX5_CMD_OP_ALLOC_UAR, 0, &st);
	e.cq = t_cq(e.d, 0, 6, 0, e.uar, &st);
	CHECK_EQ(st, 0);
	e.cq2 = t_cq(e.d, 0, 6, 1, e.uar, &st);
	CHECK_EQ(st, 0);
	test_rc(&e);
	test_ud_uc(&e);
	test_create_hostile(&e);
	test_xrc(&e);
	test_dc(&e);
	CHECK_EQ(t_dealloc(e.d, MLX5_CMD_OP_DESTROY_CQ, 0, e.cq), 0);
	CHECK_EQ(t_dealloc(e.d, MLX5_CMD_OP_DESTROY_CQ, 0, e.cq2), 0);
	CHECK_EQ(t_dealloc(e.d, MLX5_CMD_OP_DEALLOC_PD, 0, e.pd), 0);
	smx_dev_close(e.d);
	return smx_test_done();
}
