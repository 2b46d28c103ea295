/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs: CREATE/DESTROY/QUERY_QP and the state machine driven by the
 * transition commands. Each QP keeps its qpc as PRM bytes, current after
 * every transition, so QUERY_QP answers exactly what was configured and the
 * engine can DEVX_GET any field it needs.
 *
 * A transition from the wrong state is BAD_QP_STATE. RC, UC, UD, XRC and DC
 * initiators (DCI) are supported; raw packet QPs are refused (BAD_PARAM).
 *
 * DC: a DCI is a QP of st DCI whose WQEs carry the destination (DCT number,
 * DC access key) in a datagram segment. With stream channels
 * (qpc.log_num_dci_stream_channels / log_num_dci_errored_streams) an error
 * marks the WQE's stream errored without stopping the DCI, until
 * 2^log_num_dci_errored_streams distinct streams are errored; RTS2RTS with
 * the extended context (qpc_data_ext.dci_stream_channel_id) resets one. A
 * DCT is created active by CREATE_DCT and lives in the QP table (DCT and QP
 * numbers share one space) with st FW_QP_ST_DCT; QP commands refuse it and
 * the DCT commands refuse QPs.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

#define QPC_OFF(fld) __devx_bit_off(qpc, fld)
#define QPC_SZ(fld) __devx_bit_sz(qpc, fld)
#define QGET(src, fld) DEVX_GET(qpc, src, fld)

static const char *const fw_qp_state_name[16] = {
	[MLX5_QPC_STATE_RST] = "RST",	[MLX5_QPC_STATE_INIT] = "INIT",
	[MLX5_QPC_STATE_RTR] = "RTR",	[MLX5_QPC_STATE_RTS] = "RTS",
	[MLX5_QPC_STATE_SQER] = "SQER",	[MLX5_QPC_STATE_ERR] = "ERR",
	[MLX5_QPC_STATE_SQD] = "SQD",	[MLX5_QPC_STATE_SUSPENDED] = "SUSPENDED",
};

static const char *const fw_qp_st_name[16] = {
	[MLX5_QPC_ST_RC] = "RC",	[MLX5_QPC_ST_UC] = "UC",
	[MLX5_QPC_ST_UD] = "UD",	[MLX5_QPC_ST_XRC] = "XRC",
	[MLX5_QPC_ST_DCI] = "DCI",	[MLX5_QPC_ST_QP0] = "QP0",
	[MLX5_QPC_ST_QP1] = "QP1",	[MLX5_QPC_ST_RAW_DATAGRAM] = "RAW",
	[MLX5_QPC_ST_REG_UMR] = "REG_UMR",
};

const char *fw_qp_names(const struct fw_qp *qp, const char **state)
{
	*state = fw_qp_state_name[qp->state & 0xf] ?
		 fw_qp_state_name[qp->state & 0xf] : "?";
	if (qp->st == FW_QP_ST_DCT)
		return "DCT";
	return fw_qp_st_name[qp->st & 0xf] ? fw_qp_st_name[qp->st & 0xf] : "?";
}

static bool fw_qp_connected(uint32_t st)
{
	return st == MLX5_QPC_ST_RC || st == MLX5_QPC_ST_UC ||
	       st == MLX5_QPC_ST_XRC || st == MLX5_QPC_ST_DCI;
}

/* Copies one qpc field (any width) from a command's qpc into the QP's. */
static void fw_bits_copy(uint8_t *dst, const uint8_t *src, size_t off,
			 size_t sz)
{
	if (sz > 32) {
		memcpy(dst + off / 8, src + off / 8, sz / 8);
		return;
	}
	_devx_set(dst, _devx_get(src, off, sz), off, sz);
}

#define QPC_CP(qp, src, fld)                                                   \
	fw_bits_copy((qp)->qpc, src, QPC_OFF(fld), QPC_SZ(fld))

void fw_qp_free(struct fw_qp *qp)
{
	fw_buf_release(&qp->buf);
	free(qp);
}

static void fw_qp_put_refs(struct fw_qp *qp)
{
	fw_unref(&qp->pd->obj);
	if (qp->scq)
		fw_unref(&qp->scq->obj);
	if (qp->rcq)
		fw_unref(&qp->rcq->obj);
	if (qp->srq)
		fw_unref(&qp->srq->obj);
	if (qp->xrcd)
		fw_unref(&qp->xrcd->obj);
	if (qp->uar)
		fw_unref(&qp->uar->obj);
	if (qp->dbr_umem)
		fw_unref(&qp->dbr_umem->obj);
}

/* ------------------------------------------------------------------ */
/* CREATE_QP                                                          */
/* ------------------------------------------------------------------ */

int fw_qp_create(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	const uint8_t *qpc = IN_ADDR(create_qp_in, qpc);
	uint32_t st = QGET(qpc, st);
	uint32_t rq_type = QGET(qpc, rq_type);
	bool no_sq = QGET(qpc, no_sq);
	uint64_t rq_bytes = 0, sq_bytes = 0, dbr;
	struct fw_qp *qp;
	uint32_t n;

	if (st == MLX5_QPC_ST_RAW_DATAGRAM)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "st RAW: raw packet QPs are not supported yet");
	/* REG_UMR: the privileged QP the driver's kernel half modifies
	 * memory keys with (any PD of the function): uid 0 only. */
	if (st == MLX5_QPC_ST_REG_UMR && c->uid)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "st REG_UMR: only the kernel (uid 0) creates UMR QPs");
	if (st != MLX5_QPC_ST_RC && st != MLX5_QPC_ST_UC &&
	    st != MLX5_QPC_ST_UD && st != MLX5_QPC_ST_XRC &&
	    st != MLX5_QPC_ST_DCI && st != MLX5_QPC_ST_REG_UMR)
		return FW_FAIL(c, BAD_PARAM_ERR, "st 0x%x (%s) is not supported",
			       st, fw_qp_st_name[st & 0xf] ?
			       fw_qp_st_name[st & 0xf] : "unknown");
	if (st == MLX5_QPC_ST_DCI && no_sq)
		return FW_FAIL(c, BAD_PARAM_ERR, "st DCI: a DC initiator needs "
			       "its send queue (no_sq set)");
	if (st == MLX5_QPC_ST_DCI &&
	    (QGET(qpc, log_num_dci_stream_channels) > FW_LOG_MAX_DCI_STREAMS ||
	     QGET(qpc, log_num_dci_errored_streams) > FW_LOG_MAX_DCI_ERRORED))
		return FW_FAIL(c, BAD_PARAM_ERR, "DCI streams: "
			       "log_num_dci_stream_channels %u (max %u), "
			       "log_num_dci_errored_streams %u (max %u)",
			       QGET(qpc, log_num_dci_stream_channels),
			       FW_LOG_MAX_DCI_STREAMS,
			       QGET(qpc, log_num_dci_errored_streams),
			       FW_LOG_MAX_DCI_ERRORED);
	if (st != MLX5_QPC_ST_DCI &&
	    (QGET(qpc, log_num_dci_stream_channels) ||
	     QGET(qpc, log_num_dci_errored_streams)))
		return FW_FAIL(c, BAD_PARAM_ERR, "DCI stream fields on a %s QP",
			       fw_qp_st_name[st & 0xf]);
	if (IN_GET(create_qp_in, input_qpn))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "input_qpn: choosing the QP number is not allowed");
	if (!no_sq && QGET(qpc, log_sq_size) > cfg->log_max_qp_sz)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "log_sq_size %u above log_max_qp_sz %u",
			       QGET(qpc, log_sq_size), cfg->log_max_qp_sz);
	if (rq_type == MLX5_QPC_RQ_TYPE_REGULAR &&
	    QGET(qpc, log_rq_size) > cfg->log_max_qp_sz)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "log_rq_size %u above log_max_qp_sz %u",
			       QGET(qpc, log_rq_size), cfg->log_max_qp_sz);
	if (rq_type != MLX5_QPC_RQ_TYPE_REGULAR &&
	    rq_type != MLX5_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ &&
	    rq_type != MLX5_QPC_RQ_TYPE_ZERO_SIZE_RQ)
		return FW_FAIL(c, BAD_PARAM_ERR, "rq_type %u is not valid",
			       rq_type);
	/* An XRC target QP has neither: its receives land in the XRC SRQ
	 * each packet names, within the QP's XRC domain. */
	if (no_sq && rq_type == MLX5_QPC_RQ_TYPE_ZERO_SIZE_RQ &&
	    !(st == MLX5_QPC_ST_XRC && QGET(qpc, xrcd)))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "no_sq with a zero-size RQ: the QP has no queue");

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return FW_FAIL(c, NO_RES_ERR, "qp: out of memory");
	qp->st = st;
	qp->pd = FW_REF(c, pd, QGET(qpc, pd), "qp pd");
	if (!qp->pd)
		goto err_free;
	fw_ref(&qp->pd->obj);
	if (!no_sq || QGET(qpc, cqn_snd)) {
		qp->scq = FW_REF(c, cq, QGET(qpc, cqn_snd), "qp cqn_snd");
		if (!qp->scq)
			goto err;
		fw_ref(&qp->scq->obj);
	}
	if (rq_type != MLX5_QPC_RQ_TYPE_ZERO_SIZE_RQ || QGET(qpc, cqn_rcv)) {
		qp->rcq = FW_REF(c, cq, QGET(qpc, cqn_rcv), "qp cqn_rcv");
		if (!qp->rcq)
			goto err;
		fw_ref(&qp->rcq->obj);
	}
	if (rq_type == MLX5_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ) {
		qp->srq = FW_REF(c, srq, QGET(qpc, srqn_rmpn_xrqn),
				 "qp srqn_rmpn_xrqn");
		if (!qp->srq)
			goto err;
		fw_ref(&qp->srq->obj);
	}
	if (QGET(qpc, xrcd) || (st == MLX5_QPC_ST_XRC && no_sq)) {
		qp->xrcd = FW_REF(c, xrcd, QGET(qpc, xrcd), "qp xrcd");
		if (!qp->xrcd)
			goto err;
		fw_ref(&qp->xrcd->obj);
	}
	if (QGET(qpc, uar_page) || !no_sq) {
		qp->uar = FW_REF(c, uar, QGET(qpc, uar_page), "qp uar_page");
		if (!qp->uar)
			goto err;
		fw_ref(&qp->uar->obj);
	}

	if (rq_type == MLX5_QPC_RQ_TYPE_REGULAR) {
		qp->rq_wqes = 1u << QGET(qpc, log_rq_size);
		qp->rq_stride = 16u << QGET(qpc, log_rq_stride);
		rq_bytes = (uint64_t)qp->rq_wqes * qp->rq_stride;
	}
	if (!no_sq) {
		qp->sq_wqebbs = 1u << QGET(qpc, log_sq_size);
		sq_bytes = (uint64_t)qp->sq_wqebbs * 64;
	}
	qp->sq_offset = rq_bytes;
	if (rq_bytes + sq_bytes) {
		int r;

		if (IN_GET(create_qp_in, wq_umem_valid))
			r = fw_buf_from_umem(c, &qp->buf, "qp buffer",
					     IN_GET(create_qp_in, wq_umem_id),
					     IN_GET64(create_qp_in, wq_umem_offset),
					     rq_bytes + sq_bytes);
		else
			r = fw_buf_from_pas(c, &qp->buf, "qp buffer",
					    DEVX_BYTE_OFF(create_qp_in, pas),
					    QGET(qpc, log_page_size),
					    (uint64_t)QGET(qpc, page_offset) * 64,
					    rq_bytes + sq_bytes);
		if (r)
			goto err;
	}
	dbr = DEVX_GET64(qpc, qpc, dbr_addr);
	if (rq_bytes + sq_bytes || dbr || QGET(qpc, dbr_umem_valid)) {
		qp->dbrec = fw_dbr_resolve(c, "qp dbr_addr",
					   QGET(qpc, dbr_umem_valid),
					   QGET(qpc, dbr_umem_id), dbr,
					   &qp->dbr_umem);
		if (!qp->dbrec)
			goto err;
	}
	if (fw_table_add(&c->fw->qp, &qp->obj)) {
		FW_FAIL(c, NO_RES_ERR, "qp: all %u numbers are in use",
			c->fw->qp.limit);
		goto err;
	}
	if (fw_obj_own(c, &qp->obj, "qp")) {
		fw_table_del(&c->fw->qp, qp->obj.id);
		goto err;
	}
	memcpy(qp->qpc, qpc, sizeof(qp->qpc));
	qp->state = MLX5_QPC_STATE_RST;
	DEVX_SET(qpc, qp->qpc, state, MLX5_QPC_STATE_RST);
	qp->opt_param_mask = IN_GET(create_qp_in, opt_param_mask);
	n = qp->obj.id;
	OUT_SET(create_qp_out, qpn, n);
	if (c->fw->hooks.qp_created)
		c->fw->hooks.qp_created(c->fw->hooks_arg, qp);
	return 0;
err:
	fw_qp_put_refs(qp);
err_free:
	fw_qp_free(qp);
	return -1;
}

int fw_qp_destroy(struct fw_cmd *c)
{
	uint32_t qpn = IN_GET(destroy_qp_in, qpn);
	struct fw_qp *qp = FW_GET(c, qp, qpn, "DESTROY_QP");

	if (!qp)
		return -1;
	if (qp->st == FW_QP_ST_DCT)
		return FW_FAIL(c, BAD_PARAM_ERR, "0x%x is a DCT (DESTROY_DCT)",
			       qpn);
	if (qp->obj.refs)
		return FW_FAIL(c, BAD_RES_STATE_ERR,
			       "qp 0x%x is still referenced %u times", qpn,
			       qp->obj.refs);
	fw_hook_eng_free(c->fw, &qp->eng);
	fw_table_del(&c->fw->qp, qpn);
	fw_obj_disown(c->fw, &qp->obj);
	fw_qp_put_refs(qp);
	fw_qp_free(qp);
	return 0;
}

int fw_qp_query(struct fw_cmd *c)
{
	uint32_t qpn = IN_GET(query_qp_in, qpn);
	struct fw_qp *qp = FW_GET(c, qp, qpn, "QUERY_QP");

	if (!qp)
		return -1;
	if (qp->st == FW_QP_ST_DCT)
		return FW_FAIL(c, BAD_PARAM_ERR, "0x%x is a DCT (QUERY_DCT)",
			       qpn);
	memcpy(OUT_ADDR(query_qp_out, qpc), qp->qpc, sizeof(qp->qpc));
	DEVX_SET(qpc, OUT_ADDR(query_qp_out, qpc), state, qp->state);
	fw_buf_put_pas(c, &qp->buf, DEVX_BYTE_OFF(query_qp_out, pas));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Transitions                                                        */
/* ------------------------------------------------------------------ */

/* What a transition may carry. */
enum {
	T_ACCESS = 1 << 0,	/* rre, rwe, rae, atomic_mode */
	T_PKEY = 1 << 1,	/* primary path pkey_index */
	T_PORT = 1 << 2,	/* primary path vhca_port_num */
	T_QKEY = 1 << 3,
	T_RTR = 1 << 4,		/* mtu, remote_qpn, next_rcv_psn, log_rra_max */
	T_PATH = 1 << 5,	/* primary address path */
	T_RNR = 1 << 6,		/* min_rnr_nak */
	T_RTS = 1 << 7,		/* next_send_psn */
	T_RETRY = 1 << 8,	/* retry_count */
	T_RNR_RETRY = 1 << 9,
	T_SRA = 1 << 10,	/* log_sra_max */
	T_RRA = 1 << 11,	/* log_rra_max */
	T_ACK_TO = 1 << 12,	/* primary path ack_timeout */
	T_COUNTER = 1 << 13,	/* counter_set_id */
};

struct fw_qp_trans {
	uint32_t from;		/* mask of MLX5_QPC_STATE_* bits */
	uint32_t to;
	uint32_t required;	/* T_* always applied (connected QPs) */
	uint32_t required_ud;	/* T_* always applied (UD QPs) */
	uint32_t optional;	/* T_* applied when opt_param_mask says so */
};

#define S(x) (1u << MLX5_QPC_STATE_##x)
#define T_OPT_COMMON (T_ACCESS | T_PKEY | T_QKEY | T_RNR | T_PATH |          \
		      T_ACK_TO | T_RETRY | T_RNR_RETRY | T_SRA | T_RRA |       \
		      T_COUNTER)

enum fw_qp_op {
	OP_RST2INIT, OP_INIT2INIT, OP_INIT2RTR, OP_RTR2RTS, OP_RTS2RTS,
	OP_SQERR2RTS, OP_SQD2RTS, OP_RTS2SQD, OP_SQD2SQD, OP_2ERR, OP_2RST,
};

static const struct fw_qp_trans fw_qp_trans[] = {
	[OP_RST2INIT] = { S(RST), MLX5_QPC_STATE_INIT,
			  T_ACCESS | T_PKEY | T_PORT | T_COUNTER,
			  T_PKEY | T_PORT | T_QKEY | T_COUNTER, 0 },
	[OP_INIT2INIT] = { S(INIT), MLX5_QPC_STATE_INIT, 0, 0,
			   T_ACCESS | T_PKEY | T_PORT | T_QKEY | T_COUNTER },
	[OP_INIT2RTR] = { S(INIT), MLX5_QPC_STATE_RTR,
			  T_RTR | T_PATH | T_RNR | T_RRA, 0,
			  T_ACCESS | T_PKEY | T_QKEY | T_COUNTER },
	[OP_RTR2RTS] = { S(RTR), MLX5_QPC_STATE_RTS,
			 T_RTS | T_RETRY | T_RNR_RETRY | T_SRA | T_ACK_TO,
			 T_RTS, T_ACCESS | T_RNR | T_QKEY | T_COUNTER },
	[OP_RTS2RTS] = { S(RTS), MLX5_QPC_STATE_RTS, 0, 0, T_OPT_COMMON },
	[OP_SQERR2RTS] = { S(SQER), MLX5_QPC_STATE_RTS, 0, 0, T_OPT_COMMON },
	[OP_SQD2RTS] = { S(SQD), MLX5_QPC_STATE_RTS, 0, 0, T_OPT_COMMON },
	[OP_RTS2SQD] = { S(RTS), MLX5_QPC_STATE_SQD, 0, 0, 0 },
	[OP_SQD2SQD] = { S(SQD), MLX5_QPC_STATE_SQD, 0, 0, T_OPT_COMMON },
	[OP_2ERR] = { 0xffff, MLX5_QPC_STATE_ERR, 0, 0, 0 },
	[OP_2RST] = { 0xffff, MLX5_QPC_STATE_RST, 0, 0, 0 },
};

#define FW_QPC_OPT_DRAIN_SIGERR (1u << 11)	/* INIT2INIT */

/* Which opt_param_mask bits enable which T_* group. */
static uint32_t fw_qp_opt_groups(uint32_t mask)
{
	uint32_t g = 0;

	if (mask & (MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE |
		    MLX5_QP_OPTPAR_RWE))
		g |= T_ACCESS;
	if (mask & MLX5_QP_OPTPAR_PKEY_INDEX)
		g |= T_PKEY;
	if (mask & MLX5_QP_OPTPAR_PRI_PORT)
		g |= T_PORT;
	if (mask & MLX5_QP_OPTPAR_Q_KEY)
		g |= T_QKEY;
	if (mask & MLX5_QP_OPTPAR_RNR_TIMEOUT)
		g |= T_RNR;
	if (mask & MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH)
		g |= T_PATH | T_PKEY | T_PORT;
	if (mask & MLX5_QP_OPTPAR_ACK_TIMEOUT)
		g |= T_ACK_TO;
	if (mask & MLX5_QP_OPTPAR_RETRY_COUNT)
		g |= T_RETRY;
	if (mask & MLX5_QP_OPTPAR_RNR_RETRY)
		g |= T_RNR_RETRY;
	if (mask & MLX5_QP_OPTPAR_SRA_MAX)
		g |= T_SRA;
	if (mask & MLX5_QP_OPTPAR_RRA_MAX)
		g |= T_RRA;
	if (mask & MLX5_QP_OPTPAR_COUNTER_SET_ID)
		g |= T_COUNTER;
	return g;
}

/* Validates the groups @g of command qpc @q for @qp; 0 or a failure. */
static int fw_qp_check(struct fw_cmd *c, struct fw_qp *qp, const uint8_t *q,
		       uint32_t g)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint8_t gid[16];

	if ((g & T_PKEY) &&
	    QGET(q, primary_address_path.pkey_index) >= cfg->pkey_tbl_len)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "qp 0x%x: pkey_index %u beyond the %u-entry table",
			       qp->obj.id, QGET(q, primary_address_path.pkey_index),
			       cfg->pkey_tbl_len);
	if ((g & T_PORT) && QGET(q, primary_address_path.vhca_port_num) > 1)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "qp 0x%x: vhca_port_num %u, the device has one port",
			       qp->obj.id,
			       QGET(q, primary_address_path.vhca_port_num));
	if ((g & T_ACCESS) && qp->st == MLX5_QPC_ST_UC &&
	    (QGET(q, rre) || QGET(q, rae)))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "qp 0x%x: UC QPs take no RDMA read/atomic access",
			       qp->obj.id);
	if ((g & T_RTR)) {
		uint32_t mtu = QGET(q, mtu);

		if (mtu < MLX5_QPC_MTU_256_BYTES || mtu > cfg->max_mtu)
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "qp 0x%x: mtu %u outside 1..%u", qp->obj.id,
				       mtu, cfg->max_mtu);
	}
	if ((g & T_RRA) && QGET(q, log_rra_max) > 4)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "qp 0x%x: log_rra_max %u above log_max_ra_res_qp 4",
			       qp->obj.id, QGET(q, log_rra_max));
	if ((g & T_SRA) && QGET(q, log_sra_max) > 4)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "qp 0x%x: log_sra_max %u above log_max_ra_req_qp 4",
			       qp->obj.id, QGET(q, log_sra_max));
	if (g & T_PATH) {
		uint32_t sgid = QGET(q, primary_address_path.src_addr_index);

		/* RoCE paths always carry a GRH: the grh bit is IB-only and
		 * the kernel leaves it clear on Ethernet, so check the GID. */
		bool global = cfg->link_layer == SMX_LINK_ETH ||
			      QGET(q, primary_address_path.grh);

		if (global &&
		    (sgid >= cfg->gid_tbl_len || !fw_gid(c->fw, sgid, gid)))
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "qp 0x%x: src_addr_index %u is an empty "
				       "GID slot", qp->obj.id, sgid);
		if (QGET(q, primary_address_path.vhca_port_num) > 1)
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "qp 0x%x: vhca_port_num %u, the device "
				       "has one port", qp->obj.id,
				       QGET(q, primary_address_path.vhca_port_num));
	}
	return 0;
}

static void fw_qp_apply(struct fw_qp *qp, const uint8_t *q, uint32_t g)
{
	if (g & T_ACCESS) {
		QPC_CP(qp, q, rre);
		QPC_CP(qp, q, rwe);
		QPC_CP(qp, q, rae);
		QPC_CP(qp, q, atomic_mode);
	}
	if (g & T_PKEY)
		QPC_CP(qp, q, primary_address_path.pkey_index);
	if (g & T_PORT)
		QPC_CP(qp, q, primary_address_path.vhca_port_num);
	if (g & T_QKEY)
		QPC_CP(qp, q, q_key);
	if (g & T_RTR) {
		QPC_CP(qp, q, mtu);
		QPC_CP(qp, q, log_msg_max);
		QPC_CP(qp, q, remote_qpn);
		QPC_CP(qp, q, next_rcv_psn);
	}
	if (g & T_PATH) {
		/* The whole primary address path except what has its own
		 * optional bit (ack_timeout) or was applied above. */
		uint8_t keep_to = _devx_get(qp->qpc,
					    QPC_OFF(primary_address_path.ack_timeout),
					    5);

		fw_bits_copy(qp->qpc, q, QPC_OFF(primary_address_path),
			     QPC_SZ(primary_address_path));
		_devx_set(qp->qpc, keep_to,
			  QPC_OFF(primary_address_path.ack_timeout), 5);
	}
	if (g & T_RNR)
		QPC_CP(qp, q, min_rnr_nak);
	if (g & T_RTS)
		QPC_CP(qp, q, next_send_psn);
	if (g & T_RETRY)
		QPC_CP(qp, q, retry_count);
	if (g & T_RNR_RETRY)
		QPC_CP(qp, q, rnr_retry);
	if (g & T_SRA)
		QPC_CP(qp, q, log_sra_max);
	if (g & T_RRA)
		QPC_CP(qp, q, log_rra_max);
	if (g & T_ACK_TO)
		QPC_CP(qp, q, primary_address_path.ack_timeout);
	if (g & T_COUNTER)
		QPC_CP(qp, q, counter_set_id);
}

/*
 * Bits 95..32 of a transition's optional-parameter mask, 0 when the mailbox
 * does not reach them. @ext: only with the extended context (qpc_ext set and
 * the whole qpc_data_ext present) -- rdma-core sends UDP_SPORT without it.
 */
static uint64_t fw_qp_opt_hi(const struct fw_cmd *c, bool ext)
{
	if (ext ? c->inlen < DEVX_ST_SZ_BYTES(modify_qp_ext_in) ||
		  !IN_GET(modify_qp_ext_in, qpc_ext) :
		  c->inlen < DEVX_BYTE_OFF(modify_qp_ext_in,
					   opt_param_mask_95_32) + 8)
		return 0;
	return IN_GET64(modify_qp_ext_in, opt_param_mask_95_32);
}

/*
 * RTS2RTS with the extended context: opt_param_mask_95_32 bit 0 resets DCI
 * stream qpc_data_ext.dci_stream_channel_id, which must be errored.
 */
static int fw_qp_stream_reset(struct fw_cmd *c, struct fw_qp *qp)
{
	uint32_t id, i;

	if (!(fw_qp_opt_hi(c, true) &
	      MLX5_QPC_OPT_MASK_32_DCI_STREAM_CHANNEL_ID))
		return 0;
	id = DEVX_GET(qpc_ext, IN_ADDR(modify_qp_ext_in, qpc_data_ext),
		      dci_stream_channel_id);
	if (!fw_qp_dci_streams(qp))
		return FW_FAIL(c, BAD_PARAM_ERR, "qp 0x%x: stream reset on a QP "
			       "without DCI stream channels", qp->obj.id);
	for (i = 0; i < qp->dci_nerr; i++)
		if (qp->dci_err_ids[i] == id)
			break;
	if (i == qp->dci_nerr)
		return FW_FAIL(c, BAD_PARAM_ERR, "qp 0x%x: DCI stream %u is not "
			       "in error", qp->obj.id, id);
	qp->dci_err_ids[i] = qp->dci_err_ids[--qp->dci_nerr];
	return 0;
}

/*
 * RTS2RTS opt_param_mask_95_32 UDP_SPORT: a new RoCEv2 UDP source port for
 * a connected QP's primary path (rdma-core sends it without qpc_ext; the
 * mask sits after the base context either way).
 */
static int fw_qp_udp_sport(struct fw_cmd *c, struct fw_qp *qp,
			   const uint8_t *q)
{
	if (!(fw_qp_opt_hi(c, false) & MLX5_QPC_OPT_MASK_32_UDP_SPORT))
		return 0;
	if (qp->st != MLX5_QPC_ST_RC && qp->st != MLX5_QPC_ST_UC)
		return FW_FAIL(c, BAD_PARAM_ERR, "qp 0x%x (%s): UDP source port "
			       "is only for RC/UC QPs", qp->obj.id,
			       fw_qp_st_name[qp->st]);
	if (!QGET(q, primary_address_path.udp_sport))
		return FW_FAIL(c, BAD_PARAM_ERR, "qp 0x%x: UDP source port 0",
			       qp->obj.id);
	QPC_CP(qp, q, primary_address_path.udp_sport);
	return 0;
}

/*
 * INIT2INIT / RTS2RTS with the extended context and opt_param_mask_95_32
 * QOS_QUEUE_GROUP_ID: the QP joins queue-group scheduling elements as
 * requester and responder (0 leaves one). UC/UD have no responder group.
 */
static int fw_qp_qos(struct fw_cmd *c, struct fw_qp *qp)
{
	const uint8_t *x;
	uint32_t req, resp;

	if (!(fw_qp_opt_hi(c, true) & MLX5_QPC_OPT_MASK_32_QOS_QUEUE_GROUP_ID))
		return 0;
	x = IN_ADDR(modify_qp_ext_in, qpc_data_ext);
	req = DEVX_GET(qpc_ext, x, qos_queue_group_id_requester);
	resp = DEVX_GET(qpc_ext, x, qos_queue_group_id_responder);
	if (qp->st != MLX5_QPC_ST_RC && qp->st != MLX5_QPC_ST_UC &&
	    qp->st != MLX5_QPC_ST_UD)
		return FW_FAIL(c, BAD_PARAM_ERR, "qp 0x%x (%s): QoS queue groups "
			       "are for RC/UC/UD QPs", qp->obj.id,
			       fw_qp_st_name[qp->st]);
	if (resp && qp->st != MLX5_QPC_ST_RC)
		return FW_FAIL(c, BAD_PARAM_ERR, "qp 0x%x (%s) has no responder "
			       "queue group", qp->obj.id, fw_qp_st_name[qp->st]);
	if ((req && !fw_sched_queue_group_ok(c, req)) ||
	    (resp && !fw_sched_queue_group_ok(c, resp)))
		return -1;
	qp->qos_req = req;
	qp->qos_resp = resp;
	return 0;
}

static int fw_qp_transition(struct fw_cmd *c, enum fw_qp_op op)
{
	const struct fw_qp_trans *t = &fw_qp_trans[op];
	bool has_qpc = op != OP_2ERR && op != OP_2RST;
	uint32_t qpn = has_qpc ? IN_GET(modify_qp_in, qpn) :
				 IN_GET(qp_2rst_in, qpn);
	const uint8_t *q = has_qpc ? IN_ADDR(modify_qp_in, qpc) : NULL;
	uint32_t mask = has_qpc ? IN_GET(modify_qp_in, opt_param_mask) : 0;
	struct fw_qp *qp = FW_GET(c, qp, qpn, c->desc->name);
	uint32_t g, old;

	if (!qp)
		return -1;
	if (qp->st == FW_QP_ST_DCT)
		return FW_FAIL(c, BAD_PARAM_ERR, "0x%x is a DCT: it has no "
			       "QP state machine", qpn);
	if (!(t->from & (1u << qp->state)))
		return FW_FAIL(c, BAD_QP_STATE_ERR,
			       "qp 0x%x (%s) is in state %s", qpn,
			       fw_qp_st_name[qp->st],
			       fw_qp_state_name[qp->state & 0xf] ?
			       fw_qp_state_name[qp->state & 0xf] : "?");
	if (op == OP_SQERR2RTS && qp->st == MLX5_QPC_ST_RC)
		return FW_FAIL(c, BAD_QP_STATE_ERR,
			       "qp 0x%x: an RC QP has no SQ error state", qpn);
	if (has_qpc) {
		g = (fw_qp_connected(qp->st) ? t->required : t->required_ud) |
		    (fw_qp_opt_groups(mask) & t->optional);
		if (qp->st == MLX5_QPC_ST_UD || qp->st == MLX5_QPC_ST_REG_UMR)
			g &= ~(T_RTR | T_PATH | T_RNR | T_RRA | T_SRA |
			       T_RETRY | T_RNR_RETRY | T_ACK_TO | T_ACCESS);
		else
			g &= ~T_QKEY;
		/* A DCI has no fixed peer: the address, the responder
		 * resources and the RNR timer belong to each WQE's DCT. */
		if (qp->st == MLX5_QPC_ST_DCI)
			g &= ~(T_PATH | T_RNR | T_RRA);
		if (fw_qp_check(c, qp, q, g))
			return -1;
		if (op == OP_RTS2RTS || op == OP_INIT2INIT) {
			/* The extension's parts: all or nothing. */
			uint32_t req = qp->qos_req, resp = qp->qos_resp;

			if (fw_qp_qos(c, qp))
				return -1;
			if (op == OP_RTS2RTS && (fw_qp_udp_sport(c, qp, q) ||
						 fw_qp_stream_reset(c, qp))) {
				qp->qos_req = req;
				qp->qos_resp = resp;
				return -1;
			}
		}
		fw_qp_apply(qp, q, g);
		/* INIT2INIT may turn signature-error draining on or off. */
		if (op == OP_INIT2INIT && (mask & FW_QPC_OPT_DRAIN_SIGERR))
			DEVX_SET(qpc, qp->qpc, drain_sigerr,
				 DEVX_GET(qpc, q, drain_sigerr));
		qp->opt_param_mask = mask;
	}
	old = qp->state;
	if (t->to == MLX5_QPC_STATE_RST)
		qp->dci_nerr = 0;	/* a new incarnation: no stream errored */
	qp->state = t->to;
	DEVX_SET(qpc, qp->qpc, state, qp->state);
	if (c->fw->hooks.qp_modified)
		c->fw->hooks.qp_modified(c->fw->hooks_arg, qp, old);
	return 0;
}

int fw_qp_rst2init(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_RST2INIT);
}

int fw_qp_init2init(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_INIT2INIT);
}

int fw_qp_init2rtr(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_INIT2RTR);
}

int fw_qp_rtr2rts(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_RTR2RTS);
}

int fw_qp_rts2rts(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_RTS2RTS);
}

int fw_qp_sqerr2rts(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_SQERR2RTS);
}

int fw_qp_sqd2rts(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_SQD2RTS);
}

int fw_qp_rts2sqd(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_RTS2SQD);
}

int fw_qp_sqd2sqd(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_SQD2SQD);
}

int fw_qp_2err(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_2ERR);
}

int fw_qp_2rst(struct fw_cmd *c)
{
	return fw_qp_transition(c, OP_2RST);
}

/* ------------------------------------------------------------------ */
/* DCT                                                                */
/* ------------------------------------------------------------------ */

#define DGET(src, fld) DEVX_GET(dctc, src, fld)

int fw_dct_create(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	const uint8_t *d = IN_ADDR(create_dct_in, dct_context_entry);
	uint32_t mtu = DGET(d, mtu), sgid = DGET(d, my_addr_index);
	uint8_t gid[16];
	struct fw_qp *qp;

	if (mtu < MLX5_QPC_MTU_256_BYTES || mtu > cfg->max_mtu)
		return FW_FAIL(c, BAD_PARAM_ERR, "dct: mtu %u outside 1..%u",
			       mtu, cfg->max_mtu);
	if (DGET(d, port) > 1)
		return FW_FAIL(c, BAD_PARAM_ERR, "dct: port %u, the device has "
			       "one port", DGET(d, port));
	if (DGET(d, pkey_index) >= cfg->pkey_tbl_len)
		return FW_FAIL(c, BAD_PARAM_ERR, "dct: pkey_index %u beyond the "
			       "%u-entry table", DGET(d, pkey_index),
			       cfg->pkey_tbl_len);
	if (sgid >= cfg->gid_tbl_len || !fw_gid(c->fw, sgid, gid))
		return FW_FAIL(c, BAD_PARAM_ERR, "dct: my_addr_index %u is an "
			       "empty GID slot", sgid);

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return FW_FAIL(c, NO_RES_ERR, "dct: out of memory");
	qp->st = FW_QP_ST_DCT;
	qp->pd = FW_REF(c, pd, DGET(d, pd), "dct pd");
	if (!qp->pd)
		goto err_free;
	fw_ref(&qp->pd->obj);
	qp->rcq = FW_REF(c, cq, DGET(d, cqn), "dct cqn");
	if (!qp->rcq)
		goto err;
	fw_ref(&qp->rcq->obj);
	qp->srq = FW_REF(c, srq, DGET(d, srqn_xrqn), "dct srqn_xrqn");
	if (!qp->srq)
		goto err;
	fw_ref(&qp->srq->obj);
	if (fw_table_add(&c->fw->qp, &qp->obj)) {
		FW_FAIL(c, NO_RES_ERR, "dct: all %u numbers are in use",
			c->fw->qp.limit);
		goto err;
	}
	if (fw_obj_own(c, &qp->obj, "dct")) {
		fw_table_del(&c->fw->qp, qp->obj.id);
		goto err;
	}
	memcpy(qp->dctc, d, sizeof(qp->dctc));
	/* The responder reads a DCT through the same qpc fields as a QP's. */
	DEVX_SET(qpc, qp->qpc, st, 0);
	DEVX_SET(qpc, qp->qpc, pd, DGET(d, pd));
	DEVX_SET(qpc, qp->qpc, mtu, mtu);
	DEVX_SET(qpc, qp->qpc, log_msg_max, cfg->log_max_msg);
	DEVX_SET(qpc, qp->qpc, no_sq, 1);
	DEVX_SET(qpc, qp->qpc, user_index, DGET(d, user_index));
	DEVX_SET(qpc, qp->qpc, rre, DGET(d, rre));
	DEVX_SET(qpc, qp->qpc, rwe, DGET(d, rwe));
	DEVX_SET(qpc, qp->qpc, rae, DGET(d, rae));
	DEVX_SET(qpc, qp->qpc, atomic_mode, DGET(d, atomic_mode));
	DEVX_SET(qpc, qp->qpc, min_rnr_nak, DGET(d, min_rnr_nak));
	DEVX_SET(qpc, qp->qpc, cqn_rcv, DGET(d, cqn));
	DEVX_SET(qpc, qp->qpc, rq_type, MLX5_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ);
	DEVX_SET(qpc, qp->qpc, srqn_rmpn_xrqn, DGET(d, srqn_xrqn));
	DEVX_SET(qpc, qp->qpc, primary_address_path.vhca_port_num,
		 DGET(d, port));
	DEVX_SET(qpc, qp->qpc, primary_address_path.pkey_index,
		 DGET(d, pkey_index));
	DEVX_SET64(qpc, qp->qpc, dc_access_key, DEVX_GET64(dctc, d, dc_access_key));
	/* Active at once: ready to receive, as an RTR QP. */
	qp->state = MLX5_QPC_STATE_RTR;
	DEVX_SET(qpc, qp->qpc, state, MLX5_QPC_STATE_RTR);
	qp->dct_state = MLX5_DCTC_STATE_ACTIVE;
	OUT_SET(create_dct_out, dctn, qp->obj.id);
	if (c->fw->hooks.qp_created)
		c->fw->hooks.qp_created(c->fw->hooks_arg, qp);
	return 0;
err:
	fw_qp_put_refs(qp);
err_free:
	fw_qp_free(qp);
	return -1;
}

/* The DCT named by a DCT command, or NULL (failure set). */
static struct fw_qp *fw_dct_get(struct fw_cmd *c)
{
	uint32_t n = IN_GET(dct_cmd_in, dctn);
	struct fw_qp *qp = FW_GET(c, qp, n, c->desc->name);

	if (qp && qp->st != FW_QP_ST_DCT) {
		FW_FAIL(c, BAD_PARAM_ERR, "0x%x is a QP, not a DCT", n);
		return NULL;
	}
	return qp;
}

int fw_dct_destroy(struct fw_cmd *c)
{
	struct fw_qp *qp = fw_dct_get(c);

	if (!qp)
		return -1;
	if (qp->obj.refs)
		return FW_FAIL(c, BAD_RES_STATE_ERR,
			       "dct 0x%x is still referenced %u times",
			       qp->obj.id, qp->obj.refs);
	fw_hook_eng_free(c->fw, &qp->eng);
	fw_table_del(&c->fw->qp, qp->obj.id);
	fw_obj_disown(c->fw, &qp->obj);
	fw_qp_put_refs(qp);
	fw_qp_free(qp);
	return 0;
}

int fw_dct_query(struct fw_cmd *c)
{
	struct fw_qp *qp = fw_dct_get(c);
	uint8_t *d = OUT_ADDR(query_dct_out, dct_context_entry);

	if (!qp)
		return -1;
	memcpy(d, qp->dctc, sizeof(qp->dctc));
	DEVX_SET(dctc, d, state, qp->dct_state);
	DEVX_SET(dctc, d, data_in_order, 1);
	DEVX_SET(dctc, d, dc_access_key_violation_count,
		 qp->dct_key_violations);
	return 0;
}

/* The fabric is synchronous: no request is ever in flight, so a drain
 * completes at once (DCT_DRAINED event). A drained DCT answers nothing. */
int fw_dct_drain(struct fw_cmd *c)
{
	struct fw_qp *qp = fw_dct_get(c);

	if (!qp)
		return -1;
	if (qp->dct_state != MLX5_DCTC_STATE_ACTIVE)
		return FW_FAIL(c, BAD_RES_STATE_ERR, "dct 0x%x is already "
			       "drained", qp->obj.id);
	qp->dct_state = MLX5_DCTC_STATE_DRAINED;
	qp->state = MLX5_QPC_STATE_ERR;
	DEVX_SET(qpc, qp->qpc, state, MLX5_QPC_STATE_ERR);
	if (c->fw->hooks.qp_event)
		c->fw->hooks.qp_event(c->fw->hooks_arg, qp, 0x1c);
	return 0;
}

int fw_dct_arm(struct fw_cmd *c)
{
	struct fw_qp *qp = fw_dct_get(c);

	if (!qp)
		return -1;
	qp->dct_armed = true;
	return 0;
}
