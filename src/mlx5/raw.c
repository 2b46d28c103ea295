/* SPDX-License-Identifier: MIT */
/*
 * Raw packet QPs (IBV_QPT_RAW_PACKET) on the Ethernet port, built the way
 * the kernel's mlx5_ib builds them: one verbs QP made of a TIS (in the
 * context's transport domain), an Ethernet SQ transmitting through it, an
 * RQ and a direct TIR that steering (ibv_create_flow, flow.c) can deliver
 * to. Rings live in one buffer (RQ first, then the SQ on its own page) with
 * one doorbell record ([0] receive, [1] send), as for other QPs.
 *
 * States: RESET->INIT moves the RQ to RDY (receives may be posted),
 * RTR->RTS the SQ; ERR moves both to ERR (posted work is flushed), RESET
 * both to RST. Queue numbers: ibv_qp.qp_num is the SQN (the RQN without an
 * SQ). Completions find the QP by the user index both queues carry
 * (MLX5_RAW_UIDX_BIT set), like rdma-core with CQE version 1: an RQ's CQE
 * carries the steering flow tag where other CQEs carry the QP number.
 *
 * Supported: create flags BLOCK_SELF_MCAST_LB (the TIR blocks multicast the
 * context itself sent) and CVLAN_STRIPPING (when the device strips VLANs);
 * IBV_SEND_IP_CSUM; send op SEND. Not supported: TSO, SRQs, scatter FCS,
 * end padding, rate limits.
 *
 * RSS QPs (IBV_QP_INIT_ATTR_RX_HASH + IND_TABLE) are receive-only: one
 * indirect TIR over the indirection table's RQ table, hashing with
 * Toeplitz (the 40-byte key) the fields rx_hash_fields_mask names -- IPv4
 * or IPv6 addresses, TCP or UDP ports, not both kinds of one layer, as the
 * kernel's mlx5_ib takes them; no fields only over a one-entry table.
 * Their qp_num is the TIR number; ibv_modify_qp and ibv_query_qp answer
 * EOPNOTSUPP as rdma-core's mlx5 does for them; frames reach the WQs
 * (wq.c) through ibv_create_flow on the QP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

#define RAW_ETH_SEG 32		/* eth segment holding the 18-byte L2 header */
#define RAW_SQ_HDR (16 + RAW_ETH_SEG)	/* ctrl + eth segment */
#define RAW_MAX_DS 63

static const uint32_t raw_create_flags =
	IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_CVLAN_STRIPPING;

bool mlx5_raw_csum(const struct mlx5_context *ctx)
{
	return ctx->caps.have_eth &&
	       DEVX_GET(per_protocol_networking_offload_caps, ctx->caps.eth, csum_cap);
}

bool mlx5_raw_cvlan(const struct mlx5_context *ctx)
{
	return ctx->caps.have_eth &&
	       DEVX_GET(per_protocol_networking_offload_caps, ctx->caps.eth, vlan_cap);
}

/* ---- sizing ---- */

static int raw_size_sq(struct mlx5_context *ctx, struct mlx5_qp *qp,
		       struct ibv_qp_cap *cap)
{
	uint32_t max_wqe = DEVX_GET(cmd_hca_cap, ctx->caps.gen, max_wqe_sz_sq);
	uint32_t inl, data, wqe, wqebbs;

	if (!cap->max_send_wr)
		return 0;
	if (cap->max_send_wr > ctx->max_qp_wr || cap->max_send_sge > ctx->max_sge ||
	    cap->max_inline_data > ctx->max_inline)
		return EINVAL;
	/* Inline data past the L2 header goes in an inline segment. */
	inl = cap->max_inline_data > 18 ? 4 + cap->max_inline_data - 18 : 0;
	data = cap->max_send_sge * (uint32_t)sizeof(struct mlx5_wqe_data_seg);
	wqe = RAW_SQ_HDR + (inl > data ? inl : data);
	wqe = (wqe + MLX5_SEND_WQE_BB - 1) & ~(uint32_t)(MLX5_SEND_WQE_BB - 1);
	if (wqe > max_wqe || wqe - MLX5_SEND_WQE_BB >= RAW_MAX_DS * 16)
		return EINVAL;
	wqebbs = wqe / MLX5_SEND_WQE_BB;
	if ((uint64_t)cap->max_send_wr * wqebbs > ctx->max_qp_wr)
		return EINVAL;
	qp->sq.wqe_cnt = mlx5_roundup_pow2(cap->max_send_wr * wqebbs);
	qp->sq.wqe_shift = MLX5_SEND_WQE_SHIFT;
	qp->sq.max_post = qp->sq.wqe_cnt / wqebbs;
	/* Within the slot, and within the 63 16-byte units a WQE can have. */
	if (wqe > RAW_MAX_DS * 16)
		wqe = RAW_MAX_DS * 16;
	qp->sq.max_gs = (wqe - RAW_SQ_HDR) / (uint32_t)sizeof(struct mlx5_wqe_data_seg);
	qp->max_inline = wqe - RAW_SQ_HDR - (uint32_t)sizeof(struct mlx5_wqe_inl_data_seg);
	return 0;
}

/* ---- the PRM objects ---- */

int mlx5_raw_destroy_obj(struct mlx5_context *ctx, uint16_t op, uint32_t num)
{
	uint32_t in[DEVX_ST_SZ_DW(eth_obj_cmd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(eth_obj_cmd_in, in, opcode, op);
	DEVX_SET(eth_obj_cmd_in, in, obj_num, num);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

/* A user index for a raw RQ's CQEs: the RAW bit and 23 bits never 0. */
uint32_t mlx5_raw_uidx_alloc(struct mlx5_device *mdev)
{
	return MLX5_RAW_UIDX_BIT |
	       ((atomic_fetch_add(&mdev->next_uidx, 1) % 0x7fffff) + 1);
}

/* PAS of @bytes of the QP buffer from byte @off (a page boundary). */
static void raw_fill_pas(const struct mlx5_qp *qp, size_t off, size_t bytes,
			 uint8_t *pas)
{
	size_t i, n = (bytes + MLX5_ADAPTER_PAGE_SIZE - 1) / MLX5_ADAPTER_PAGE_SIZE;

	for (i = 0; i < n; i++) {
		uint64_t v = htobe64((uint64_t)(uintptr_t)qp->buf.addr + off +
				     i * MLX5_ADAPTER_PAGE_SIZE);

		memcpy(pas + i * 8, &v, 8);
	}
}

static int raw_tis_create(struct mlx5_context *ctx, struct mlx5_qp *qp)
{
	uint32_t in[DEVX_ST_SZ_DW(create_tis_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_tis_out)] = {};
	int ret;

	DEVX_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	DEVX_SET(create_tis_in, in, ctx.transport_domain, ctx->tdn);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (!ret)
		qp->raw.tisn = DEVX_GET(create_tis_out, out, tisn);
	return ret;
}

static int raw_sq_create(struct mlx5_context *ctx, struct mlx5_qp *qp,
			 struct ibv_qp_init_attr_ex *attr, size_t off)
{
	size_t bytes = (size_t)qp->sq.wqe_cnt << qp->sq.wqe_shift;
	size_t npas = (bytes + MLX5_ADAPTER_PAGE_SIZE - 1) / MLX5_ADAPTER_PAGE_SIZE;
	size_t inlen = DEVX_ST_SZ_BYTES(create_sq_in) + npas * 8;
	uint32_t out[DEVX_ST_SZ_DW(create_sq_out)] = {};
	uint8_t *in = calloc(1, inlen);
	void *sqc, *wq;
	int ret;

	if (!in)
		return ENOMEM;
	sqc = DEVX_ADDR_OF(create_sq_in, in, ctx);
	wq = DEVX_ADDR_OF(sqc, sqc, wq);
	DEVX_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	DEVX_SET(sqc, sqc, flush_in_error_en, 1);
	DEVX_SET(sqc, sqc, user_index, qp->raw.uidx);
	DEVX_SET(sqc, sqc, cqn, to_mcq(attr->send_cq)->cqn);
	DEVX_SET(sqc, sqc, tis_lst_sz, 1);
	DEVX_SET(sqc, sqc, tis_num_0, qp->raw.tisn);
	DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	DEVX_SET(wq, wq, pd, to_mpd(attr->pd)->pdn);
	DEVX_SET(wq, wq, uar_page, ctx->uar_page);
	DEVX_SET64(wq, wq, dbr_addr, (uint64_t)(uintptr_t)qp->dbrec);
	DEVX_SET(wq, wq, log_wq_stride, MLX5_SEND_WQE_SHIFT);
	DEVX_SET(wq, wq, log_wq_sz, mlx5_ilog2_ceil(qp->sq.wqe_cnt));
	raw_fill_pas(qp, off, bytes, (uint8_t *)wq + DEVX_BYTE_OFF(wq, pas));
	ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
	free(in);
	if (!ret)
		qp->raw.sqn = DEVX_GET(create_sq_out, out, sqn);
	return ret;
}

int mlx5_raw_rq_create(struct mlx5_context *ctx, struct mlx5_qp *qp,
		       struct ibv_pd *pd, struct ibv_cq *cq)
{
	size_t bytes = (size_t)qp->rq.wqe_cnt << qp->rq.wqe_shift;
	size_t npas = (bytes + MLX5_ADAPTER_PAGE_SIZE - 1) / MLX5_ADAPTER_PAGE_SIZE;
	size_t inlen = DEVX_ST_SZ_BYTES(create_rq_in) + npas * 8;
	uint32_t out[DEVX_ST_SZ_DW(create_rq_out)] = {};
	uint8_t *in = calloc(1, inlen);
	void *rqc, *wq;
	int ret;

	if (!in)
		return ENOMEM;
	rqc = DEVX_ADDR_OF(create_rq_in, in, ctx);
	wq = DEVX_ADDR_OF(rqc, rqc, wq);
	DEVX_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	DEVX_SET(rqc, rqc, flush_in_error_en, 1);
	DEVX_SET(rqc, rqc, vsd, !qp->raw.cvlan_strip);
	DEVX_SET(rqc, rqc, user_index, qp->raw.uidx);
	DEVX_SET(rqc, rqc, cqn, to_mcq(cq)->cqn);
	DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	DEVX_SET(wq, wq, pd, to_mpd(pd)->pdn);
	DEVX_SET64(wq, wq, dbr_addr, (uint64_t)(uintptr_t)qp->dbrec);
	DEVX_SET(wq, wq, log_wq_stride, qp->rq.wqe_shift);
	DEVX_SET(wq, wq, log_wq_sz, mlx5_ilog2_ceil(qp->rq.wqe_cnt));
	raw_fill_pas(qp, 0, bytes, (uint8_t *)wq + DEVX_BYTE_OFF(wq, pas));
	ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
	free(in);
	if (!ret)
		qp->raw.rqn = DEVX_GET(create_rq_out, out, rqn);
	return ret;
}

static int raw_tir_create(struct mlx5_context *ctx, struct mlx5_qp *qp,
			  bool block_mc)
{
	uint32_t in[DEVX_ST_SZ_DW(create_tir_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_tir_out)] = {};
	int ret;

	DEVX_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	DEVX_SET(create_tir_in, in, ctx.disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	DEVX_SET(create_tir_in, in, ctx.inline_rqn, qp->raw.rqn);
	DEVX_SET(create_tir_in, in, ctx.transport_domain, ctx->tdn);
	if (block_mc)
		DEVX_SET(create_tir_in, in, ctx.self_lb_block,
			 MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (!ret)
		qp->raw.tirn = DEVX_GET(create_tir_out, out, tirn);
	return ret;
}

/* Destroys what exists, last made first; the first failure is returned. */
static int raw_objs_destroy(struct mlx5_context *ctx, struct mlx5_qp *qp)
{
	int ret;

	if (qp->raw.tirn) {
		ret = mlx5_raw_destroy_obj(ctx, MLX5_CMD_OP_DESTROY_TIR, qp->raw.tirn);
		if (ret)
			return ret;	/* flows still steer to it (EBUSY) */
		qp->raw.tirn = 0;
	}
	if (qp->raw.rqn && !mlx5_raw_destroy_obj(ctx, MLX5_CMD_OP_DESTROY_RQ, qp->raw.rqn))
		qp->raw.rqn = 0;
	if (qp->raw.sqn && !mlx5_raw_destroy_obj(ctx, MLX5_CMD_OP_DESTROY_SQ, qp->raw.sqn))
		qp->raw.sqn = 0;
	if (qp->raw.tisn && !mlx5_raw_destroy_obj(ctx, MLX5_CMD_OP_DESTROY_TIS, qp->raw.tisn))
		qp->raw.tisn = 0;
	return qp->raw.rqn || qp->raw.sqn || qp->raw.tisn ? EIO : 0;
}

static void raw_free(struct mlx5_qp *qp)
{
	free(qp->sq.wqe_head);
	free(qp->sq.wc_opcode);
	free(qp->sq.wrid);
	free(qp->rq.wrid);
	mlx5_dbrec_free(qp->dbrec);
	mlx5_buf_free(&qp->buf);
	free(qp);
}

/* rx_hash_fields_mask -> the TIR's outer field selector; EINVAL for a
 * mix the device cannot hash, EOPNOTSUPP for inner headers / IPsec SPI. */
static int rss_selector(uint64_t mask, uint32_t *l3, uint32_t *l4, uint32_t *fields)
{
	const uint64_t v4 = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4;
	const uint64_t v6 = IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6;
	const uint64_t tcp = IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
	const uint64_t udp = IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;

	if (mask & ~(v4 | v6 | tcp | udp))
		return mask & (IBV_RX_HASH_INNER | IBV_RX_HASH_IPSEC_SPI) ?
		       EOPNOTSUPP : EINVAL;
	if (((mask & v4) && (mask & v6)) || ((mask & tcp) && (mask & udp)))
		return EINVAL;
	*l3 = mask & v6 ? MLX5_L3_PROT_TYPE_IPV6 : MLX5_L3_PROT_TYPE_IPV4;
	*l4 = mask & udp ? MLX5_L4_PROT_TYPE_UDP : MLX5_L4_PROT_TYPE_TCP;
	*fields = 0;
	if (mask & (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_SRC_IPV6))
		*fields |= MLX5_HASH_FIELD_SEL_SRC_IP;
	if (mask & (IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_DST_IPV6))
		*fields |= MLX5_HASH_FIELD_SEL_DST_IP;
	if (mask & (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_SRC_PORT_UDP))
		*fields |= MLX5_HASH_FIELD_SEL_L4_SPORT;
	if (mask & (IBV_RX_HASH_DST_PORT_TCP | IBV_RX_HASH_DST_PORT_UDP))
		*fields |= MLX5_HASH_FIELD_SEL_L4_DPORT;
	return 0;
}

/* The verbs face of a raw packet QP (an RSS QP has no CQs). */
static struct ibv_qp *raw_verbs_qp(struct mlx5_context *ctx, struct mlx5_qp *qp,
				   const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *q = &qp->vqp.qp;

	q->context = &ctx->ibv_ctx.context;
	q->qp_context = attr->qp_context;
	q->pd = attr->pd;
	q->send_cq = qp->raw.rss ? NULL : attr->send_cq;
	q->recv_cq = qp->raw.rss ? NULL : attr->recv_cq;
	q->qp_num = qp->qpn;
	q->state = IBV_QPS_RESET;
	q->qp_type = IBV_QPT_RAW_PACKET;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
	return q;
}

/* An RSS QP: an indirect TIR in the context's transport domain. */
static struct ibv_qp *raw_rss_qp_create(struct mlx5_context *ctx,
					struct ibv_qp_init_attr_ex *attr)
{
	const struct ibv_rx_hash_conf *h = &attr->rx_hash_conf;
	uint32_t in[DEVX_ST_SZ_DW(create_tir_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_tir_out)] = {};
	uint32_t l3, l4, fields;
	struct mlx5_qp *qp;
	void *tirc, *sel;
	int ret;

	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
					  IBV_QP_INIT_ATTR_RX_HASH |
					  IBV_QP_INIT_ATTR_IND_TABLE) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) || !attr->rwq_ind_tbl ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	if (h->rx_hash_function != IBV_RX_HASH_FUNC_TOEPLITZ) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ret = rss_selector(h->rx_hash_fields_mask, &l3, &l4, &fields);
	if (!ret && h->rx_hash_key_len != 40)
		ret = EINVAL;	/* the TIR's Toeplitz key is 40 bytes */
	if (!ret && !fields && to_mind(attr->rwq_ind_tbl)->log_size)
		ret = EINVAL;	/* no fields: only a one-entry table */
	if (ret) {
		errno = ret;
		return NULL;
	}
	tirc = DEVX_ADDR_OF(create_tir_in, in, ctx);
	sel = DEVX_ADDR_OF(tirc, tirc, rx_hash_field_selector_outer);
	DEVX_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	DEVX_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	DEVX_SET(tirc, tirc, indirect_table, to_mind(attr->rwq_ind_tbl)->rqtn);
	DEVX_SET(tirc, tirc, transport_domain, ctx->tdn);
	DEVX_SET(tirc, tirc, rx_hash_fn, fields ? MLX5_RX_HASH_FN_TOEPLITZ :
						  MLX5_RX_HASH_FN_NONE);
	if (fields)
		memcpy(DEVX_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key), h->rx_hash_key, 40);
	DEVX_SET(rx_hash_field_select, sel, l3_prot_type, l3);
	DEVX_SET(rx_hash_field_select, sel, l4_prot_type, l4);
	DEVX_SET(rx_hash_field_select, sel, selected_fields, fields);
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	qp->qp_type = IBV_QPT_RAW_PACKET;
	qp->raw.rss = true;
	qp->raw.tirn = DEVX_GET(create_tir_out, out, tirn);
	qp->qpn = qp->raw.tirn;
	return raw_verbs_qp(ctx, qp, attr);
}

struct ibv_qp *mlx5_raw_qp_create(struct mlx5_context *ctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct mlx5_device *mdev = to_mdev(ctx->ibv_ctx.context.device);
	uint32_t flags = attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS ?
			 attr->create_flags : 0;
	size_t rq_bytes, rq_alloc, sq_bytes;
	struct mlx5_qp *qp;
	int ret;

	if (ctx->link_layer != IBV_LINK_LAYER_ETHERNET ||
	    !DEVX_GET(cmd_hca_cap, ctx->caps.gen, eth_net_offloads)) {
		errno = EOPNOTSUPP;	/* raw Ethernet needs an Ethernet port */
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH)
		return raw_rss_qp_create(ctx, attr);
	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_CREATE_FLAGS |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		errno = EOPNOTSUPP;	/* TSO headers; a table without a hash */
		return NULL;
	}
	if ((flags & ~raw_create_flags) ||
	    ((flags & IBV_QP_CREATE_CVLAN_STRIPPING) && !mlx5_raw_cvlan(ctx))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~(uint64_t)IBV_QP_EX_WITH_SEND)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->srq) {
		errno = EOPNOTSUPP;	/* raw packet QPs receive into their RQ */
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    (attr->cap.max_send_wr && !attr->send_cq) ||
	    (attr->cap.max_recv_wr && !attr->recv_cq) ||
	    (!attr->cap.max_send_wr && !attr->cap.max_recv_wr)) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->qp_type = IBV_QPT_RAW_PACKET;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->create_flags = flags;
	qp->raw.cvlan_strip = flags & IBV_QP_CREATE_CVLAN_STRIPPING;
	ret = raw_size_sq(ctx, qp, &attr->cap);
	if (!ret)
		ret = mlx5_rq_size(ctx, qp, &attr->cap);
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	/* RQ first; the SQ from the next page on (its PAS start there). */
	rq_bytes = (size_t)qp->rq.wqe_cnt << qp->rq.wqe_shift;
	rq_alloc = (rq_bytes + MLX5_ADAPTER_PAGE_SIZE - 1) &
		   ~(size_t)(MLX5_ADAPTER_PAGE_SIZE - 1);
	sq_bytes = (size_t)qp->sq.wqe_cnt << qp->sq.wqe_shift;
	ret = mlx5_buf_alloc_pd(ctx, &qp->buf, rq_alloc + sq_bytes, attr->pd,
				MLX5DV_RES_TYPE_QP);
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	qp->rq.buf = qp->buf.addr;
	qp->sq.buf = (uint8_t *)qp->buf.addr + rq_alloc;
	qp->dbrec = mlx5_dbrec_alloc();
	qp->sq.wrid = qp->sq.wqe_cnt ? calloc(qp->sq.wqe_cnt, sizeof(uint64_t)) : NULL;
	qp->sq.wqe_head = qp->sq.wqe_cnt ? calloc(qp->sq.wqe_cnt, sizeof(uint32_t)) : NULL;
	qp->sq.wc_opcode = qp->sq.wqe_cnt ? calloc(qp->sq.wqe_cnt, 1) : NULL;
	qp->rq.wrid = qp->rq.wqe_cnt ? calloc(qp->rq.wqe_cnt, sizeof(uint64_t)) : NULL;
	if (!qp->dbrec ||
	    (qp->sq.wqe_cnt && (!qp->sq.wrid || !qp->sq.wqe_head || !qp->sq.wc_opcode)) ||
	    (qp->rq.wqe_cnt && !qp->rq.wrid)) {
		raw_free(qp);
		errno = ENOMEM;
		return NULL;
	}
	qp->raw.uidx = mlx5_raw_uidx_alloc(mdev);

	ret = raw_tis_create(ctx, qp);
	if (!ret && qp->sq.wqe_cnt)
		ret = raw_sq_create(ctx, qp, attr, rq_alloc);
	if (!ret && qp->rq.wqe_cnt)
		ret = mlx5_raw_rq_create(ctx, qp, attr->pd, attr->recv_cq);
	if (!ret && qp->rq.wqe_cnt)
		ret = raw_tir_create(ctx, qp, flags & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB);
	if (!ret)
		ret = mlx5_table_insert(&mdev->uidx, qp->raw.uidx, qp);
	if (ret) {
		raw_objs_destroy(ctx, qp);
		raw_free(qp);
		errno = ret;
		return NULL;
	}
	qp->qpn = qp->raw.sqn ? qp->raw.sqn : qp->raw.rqn;
	qp->raw.sq_state = MLX5_SQC_STATE_RST;
	qp->raw.rq_state = MLX5_RQC_STATE_RST;
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	qp->bf_offset = 0x800;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->send_ops = attr->send_ops_flags;
		mlx5_qp_ex_init(qp);
	}

	if (qp->sq.wqe_cnt) {
		attr->cap.max_send_wr = qp->sq.max_post;
		attr->cap.max_send_sge = qp->sq.max_gs;
		attr->cap.max_inline_data = 18 + qp->max_inline;
	}
	if (qp->rq.wqe_cnt) {
		attr->cap.max_recv_wr = qp->rq.max_post;
		attr->cap.max_recv_sge = qp->rq.max_gs;
	}
	qp->cap = attr->cap;
	return raw_verbs_qp(ctx, qp, attr);
}

int mlx5_raw_qp_destroy(struct mlx5_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct mlx5_context *ctx = to_mctx(ibqp->context);
	int ret;

	ret = raw_objs_destroy(ctx, qp);
	if (ret)
		return ret;
	if (qp->raw.rss) {
		free(qp);
		return 0;
	}
	mlx5_table_remove(&to_mdev(ibqp->context->device)->uidx, qp->raw.uidx);
	if (ibqp->recv_cq)
		mlx5_cq_clean_uidx(to_mcq(ibqp->recv_cq), qp->raw.uidx);
	if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
		mlx5_cq_clean_uidx(to_mcq(ibqp->send_cq), qp->raw.uidx);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	raw_free(qp);
	return 0;
}

/* ---- state ---- */

static int raw_query_state(struct mlx5_context *ctx, uint16_t op, uint32_t num,
			   uint32_t *state);

/* The device moves a queue to ERR on its own (an error completion): the
 * modify names the state the device reports. */
static void raw_sync_state(struct mlx5_context *ctx, struct mlx5_qp *qp)
{
	uint32_t st;

	if (qp->raw.sqn && !raw_query_state(ctx, MLX5_CMD_OP_QUERY_SQ,
					    qp->raw.sqn, &st))
		qp->raw.sq_state = (uint8_t)st;
	if (qp->raw.rqn && !raw_query_state(ctx, MLX5_CMD_OP_QUERY_RQ,
					    qp->raw.rqn, &st))
		qp->raw.rq_state = (uint8_t)st;
}

static int raw_sq_move(struct mlx5_context *ctx, struct mlx5_qp *qp, uint8_t next)
{
	uint32_t in[DEVX_ST_SZ_DW(modify_sq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	int ret;

	if (!qp->raw.sqn || qp->raw.sq_state == next)
		return 0;
	/* An SQ in RST has nothing to flush: it stays there. */
	if (next == MLX5_SQC_STATE_ERR && qp->raw.sq_state == MLX5_SQC_STATE_RST)
		return 0;
	DEVX_SET(modify_sq_in, in, opcode, MLX5_CMD_OP_MODIFY_SQ);
	DEVX_SET(modify_sq_in, in, sqn, qp->raw.sqn);
	DEVX_SET(modify_sq_in, in, sq_state, qp->raw.sq_state);
	DEVX_SET(modify_sq_in, in, ctx.state, next);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (!ret)
		qp->raw.sq_state = next;
	return ret;
}

int mlx5_raw_rq_move(struct mlx5_context *ctx, struct mlx5_qp *qp, uint8_t next)
{
	uint32_t in[DEVX_ST_SZ_DW(modify_rq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
	int ret;

	if (!qp->raw.rqn || qp->raw.rq_state == next)
		return 0;
	if (next == MLX5_RQC_STATE_ERR && qp->raw.rq_state == MLX5_RQC_STATE_RST)
		return 0;
	DEVX_SET(modify_rq_in, in, opcode, MLX5_CMD_OP_MODIFY_RQ);
	DEVX_SET(modify_rq_in, in, rqn, qp->raw.rqn);
	DEVX_SET(modify_rq_in, in, rq_state, qp->raw.rq_state);
	DEVX_SET(modify_rq_in, in, ctx.state, next);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (!ret)
		qp->raw.rq_state = next;
	return ret;
}

/* The kernel's attribute table for raw packet QPs: RESET->INIT needs the
 * port, INIT->INIT may change it; nothing else is taken. */
static bool raw_mask_ok(enum ibv_qp_state cur, enum ibv_qp_state next, int mask)
{
	int extra = mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE);

	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
		return !extra;
	switch (cur) {
	case IBV_QPS_RESET:
		return next == IBV_QPS_INIT && extra == IBV_QP_PORT;
	case IBV_QPS_INIT:
		return (next == IBV_QPS_INIT && !(extra & ~IBV_QP_PORT)) ||
		       (next == IBV_QPS_RTR && !extra);
	case IBV_QPS_RTR:
		return next == IBV_QPS_RTS && !extra;
	case IBV_QPS_RTS:
		return next == IBV_QPS_RTS && !extra;
	default:
		return false;
	}
}

int mlx5_raw_qp_modify(struct mlx5_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct mlx5_context *ctx = to_mctx(ibqp->context);
	enum ibv_qp_state cur = ibqp->state, next;
	int ret = 0;

	if (qp->raw.rss)
		return EOPNOTSUPP;	/* an RSS QP has no state to move */

	if (mask & IBV_QP_RATE_LIMIT)
		return EOPNOTSUPP;	/* packet pacing: docs/status.md */
	if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return EINVAL;
	next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
	if (next > IBV_QPS_ERR || !raw_mask_ok(cur, next, mask))
		return EINVAL;
	if ((mask & IBV_QP_PORT) &&
	    (attr->port_num < 1 || attr->port_num > ctx->num_ports))
		return EINVAL;
	raw_sync_state(ctx, qp);
	switch (next) {
	case IBV_QPS_INIT:
		ret = mlx5_raw_rq_move(ctx, qp, MLX5_RQC_STATE_RDY);
		break;
	case IBV_QPS_RTS:
		ret = raw_sq_move(ctx, qp, MLX5_SQC_STATE_RDY);
		break;
	case IBV_QPS_ERR:
		ret = mlx5_raw_rq_move(ctx, qp, MLX5_RQC_STATE_ERR);
		if (!ret)
			ret = raw_sq_move(ctx, qp, MLX5_SQC_STATE_ERR);
		break;
	case IBV_QPS_RESET:
		ret = mlx5_raw_rq_move(ctx, qp, MLX5_RQC_STATE_RST);
		if (!ret)
			ret = raw_sq_move(ctx, qp, MLX5_SQC_STATE_RST);
		break;
	default:
		break;		/* RTR: nothing in the device changes */
	}
	if (ret)
		return ret;
	if (mask & IBV_QP_PORT)
		qp->port_num = attr->port_num;
	if (next == IBV_QPS_RESET) {
		/* No completions of the old incarnation stay behind. */
		if (ibqp->recv_cq)
			mlx5_cq_clean_uidx(to_mcq(ibqp->recv_cq), qp->raw.uidx);
		if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
			mlx5_cq_clean_uidx(to_mcq(ibqp->send_cq), qp->raw.uidx);
		qp->sq.head = qp->sq.tail = qp->sq.cur_post = 0;
		qp->rq.head = qp->rq.tail = 0;
		qp->dbrec[0] = 0;
		qp->dbrec[1] = 0;
	}
	return 0;
}

/* The device's view: each queue's state from QUERY_SQ / QUERY_RQ. */
static int raw_query_state(struct mlx5_context *ctx, uint16_t op, uint32_t num,
			   uint32_t *state)
{
	uint32_t in[DEVX_ST_SZ_DW(eth_obj_cmd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_sq_out)] = {};
	int ret;

	DEVX_SET(eth_obj_cmd_in, in, opcode, op);
	DEVX_SET(eth_obj_cmd_in, in, obj_num, num);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (!ret)
		*state = op == MLX5_CMD_OP_QUERY_SQ ?
			 DEVX_GET(query_sq_out, out, sq_context.state) :
			 DEVX_GET(query_rq_out, out, rq_context.state);
	return ret;
}

int mlx5_raw_qp_query(struct mlx5_qp *qp, struct ibv_qp_attr *attr, int mask,
		      struct ibv_qp_init_attr *init_attr)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct mlx5_context *ctx = to_mctx(ibqp->context);
	uint32_t sq = MLX5_SQC_STATE_RST, rq = MLX5_RQC_STATE_RST;
	int ret = 0;

	if (qp->raw.rss)
		return EOPNOTSUPP;

	(void)mask;
	if (qp->raw.sqn)
		ret = raw_query_state(ctx, MLX5_CMD_OP_QUERY_SQ, qp->raw.sqn, &sq);
	if (!ret && qp->raw.rqn)
		ret = raw_query_state(ctx, MLX5_CMD_OP_QUERY_RQ, qp->raw.rqn, &rq);
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	/* A queue the device moved to ERR (an error completion) makes the
	 * QP ERR; otherwise the verbs state stands (INIT and RTR look alike
	 * in the device). */
	attr->qp_state = sq == MLX5_SQC_STATE_ERR || rq == MLX5_RQC_STATE_ERR ?
			 IBV_QPS_ERR : ibqp->state;
	attr->cur_qp_state = attr->qp_state;
	attr->port_num = qp->port_num;
	attr->cap = qp->cap;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->qp_type = IBV_QPT_RAW_PACKET;
	init_attr->cap = qp->cap;
	init_attr->sq_sig_all = qp->sq_sig_all;
	return 0;
}
