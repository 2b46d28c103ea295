/* SPDX-License-Identifier: MIT */
/*
 * Ethernet queues and NIC receive steering at the device boundary, as a
 * DEVX client or the kernel would drive them: TIS, SQ, RQ, TIR, flow table,
 * group and entries by PRM mailboxes; frames by hand-built send WQEs and a
 * doorbell; CQEs read from the ring.
 *
 * Covered: a frame sent and received byte for byte (inline L2 header plus a
 * gather entry, checksums inserted on request, CQE fields), no-match and
 * out-of-buffer drops (counted), C-VLAN stripping, a DROP entry, a
 * destination table one level down, self-loopback blocking, flow tags, SQ
 * error CQE + flush + recovery through RST, RQ length error, the number
 * spaces, mailboxes refused with the right status, and RSS: RQ tables and
 * indirect TIRs checked against Microsoft's Toeplitz verification vectors.
 * RMP-backed RQs: frames take linked-list, cyclic (next segment present,
 * unused) and basic cyclic RMP WQEs in the pool's order (CQEs name the RMP index), an empty or ERR pool drops and
 * counts, MODIFY_RMP / QUERY_RMP / DESTROY_RMP, hostile RMP mailboxes, uids.
 * Packet reformat contexts: hostile ALLOC/DEALLOC mailboxes, uids, the
 * entries that may name one, busy while named; reformat_en / decap_en.
 */
#include "device/engine/eng_loc.h"
#include "eng_test_util.h"

static struct t_env env;
static uint32_t td, td2;

struct t_sq {
	uint32_t sqn;
	uint8_t *buf;
	volatile uint32_t *db;
	uint32_t cnt, pi;
};

struct t_rq {
	uint32_t rqn;
	uint8_t *buf;
	volatile uint32_t *db;
	uint32_t cnt, pi;
};

static const uint8_t mc_dmac[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };
static const uint8_t smac[6] = { 0x24, 0x8a, 0x07, 0xa5, 0x28, 0xc8 };

static unsigned int cmd(void *in, size_t inlen, void *out, size_t outlen)
{
	return t_exec(env.d, in, inlen, out, outlen);
}

static uint32_t t_td(void)
{
	TMB(alloc_transport_domain_in) = { 0 };
	TMB(alloc_transport_domain_out) = { 0 };

	DEVX_SET(alloc_transport_domain_in, alloc_transport_domain_in, opcode,
		 MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	if (cmd(alloc_transport_domain_in, sizeof(alloc_transport_domain_in),
		alloc_transport_domain_out, sizeof(alloc_transport_domain_out)))
		return 0;
	return DEVX_GET(alloc_transport_domain_out, alloc_transport_domain_out,
			transport_domain);
}

static unsigned int t_tis(uint16_t uid, uint32_t tdn, uint32_t *tisn)
{
	TMB(create_tis_in) = { 0 };
	TMB(create_tis_out) = { 0 };
	unsigned int st;

	DEVX_SET(create_tis_in, create_tis_in, opcode, MLX5_CMD_OP_CREATE_TIS);
	DEVX_SET(create_tis_in, create_tis_in, uid, uid);
	DEVX_SET(create_tis_in, create_tis_in, ctx.transport_domain, tdn);
	st = cmd(create_tis_in, sizeof(create_tis_in), create_tis_out,
		 sizeof(create_tis_out));
	*tisn = DEVX_GET(create_tis_out, create_tis_out, tisn);
	return st;
}

/* CREATE_SQ; @edit may spoil the mailbox before it goes. */
static unsigned int t_sq_create(struct t_sq *sq, uint32_t cqn, uint32_t tisn,
				uint32_t log, void (*edit)(uint8_t *in))
{
	size_t bytes = (size_t)64 << log, npas = (bytes + 4095) / 4096, i;
	size_t inlen = DEVX_ST_SZ_BYTES(create_sq_in) + 8 * npas;
	uint8_t *in = calloc(1, inlen);
	TMB(create_sq_out) = { 0 };
	void *sqc = DEVX_ADDR_OF(create_sq_in, in, ctx);
	void *wq = DEVX_ADDR_OF(sqc, sqc, wq);
	unsigned int st;

	memset(sq, 0, sizeof(*sq));
	sq->buf = t_zalloc(bytes);
	sq->db = t_zalloc(64);
	sq->cnt = 1u << log;
	DEVX_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	DEVX_SET(sqc, sqc, flush_in_error_en, 1);
	DEVX_SET(sqc, sqc, user_index, 0x1234);
	DEVX_SET(sqc, sqc, cqn, cqn);
	DEVX_SET(sqc, sqc, tis_lst_sz, 1);
	DEVX_SET(sqc, sqc, tis_num_0, tisn);
	DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	DEVX_SET(wq, wq, pd, env.pd);
	DEVX_SET(wq, wq, uar_page, env.uar);
	DEVX_SET64(wq, wq, dbr_addr, (uint64_t)(uintptr_t)sq->db);
	DEVX_SET(wq, wq, log_wq_stride, 6);
	DEVX_SET(wq, wq, log_wq_sz, log);
	for (i = 0; i < npas; i++) {
		uint64_t v = htobe64((uint64_t)(uintptr_t)sq->buf + i * 4096);

		memcpy((uint8_t *)wq + DEVX_BYTE_OFF(wq, pas) + i * 8, &v, 8);
	}
	if (edit)
		edit(in);
	st = cmd(in, inlen, create_sq_out, sizeof(create_sq_out));
	sq->sqn = DEVX_GET(create_sq_out, create_sq_out, sqn);
	free(in);
	return st;
}

static unsigned int t_rq_create(struct t_rq *rq, uint32_t cqn, uint32_t log,
				bool vsd)
{
	size_t bytes = (size_t)64 << log, npas = (bytes + 4095) / 4096, i;
	size_t inlen = DEVX_ST_SZ_BYTES(create_rq_in) + 8 * npas;
	uint8_t *in = calloc(1, inlen);
	TMB(create_rq_out) = { 0 };
	void *rqc = DEVX_ADDR_OF(create_rq_in, in, ctx);
	void *wq = DEVX_ADDR_OF(rqc, rqc, wq);
	unsigned int st;

	memset(rq, 0, sizeof(*rq));
	rq->buf = t_zalloc(bytes);
	rq->db = t_zalloc(64);
	rq->cnt = 1u << log;
	DEVX_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	DEVX_SET(rqc, rqc, flush_in_error_en, 1);
	DEVX_SET(rqc, rqc, vsd, vsd);
	DEVX_SET(rqc, rqc, user_index, 0x5678);
	DEVX_SET(rqc, rqc, cqn, cqn);
	DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	DEVX_SET(wq, wq, pd, env.pd);
	DEVX_SET64(wq, wq, dbr_addr, (uint64_t)(uintptr_t)rq->db);
	DEVX_SET(wq, wq, log_wq_stride, 6);
	DEVX_SET(wq, wq, log_wq_sz, log);
	for (i = 0; i < npas; i++) {
		uint64_t v = htobe64((uint64_t)(uintptr_t)rq->buf + i * 4096);

		memcpy((uint8_t *)wq + DEVX_BYTE_OFF(wq, pas) + i * 8, &v, 8);
	}
	st = cmd(in, inlen, create_rq_out, sizeof(create_rq_out));
	rq->rqn = DEVX_GET(create_rq_out, create_rq_out, rqn);
	free(in);
	return st;
}

static unsigned int t_sq_modify(uint32_t sqn, uint32_t cur, uint32_t next)
{
	TMB(modify_sq_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(modify_sq_in, modify_sq_in, opcode, MLX5_CMD_OP_MODIFY_SQ);
	DEVX_SET(modify_sq_in, modify_sq_in, sqn, sqn);
	DEVX_SET(modify_sq_in, modify_sq_in, sq_state, cur);
	DEVX_SET(modify_sq_in, modify_sq_in, ctx.state, next);
	return cmd(modify_sq_in, sizeof(modify_sq_in), mbox_out, sizeof(mbox_out));
}

static unsigned int t_rq_modify(uint32_t rqn, uint32_t cur, uint32_t next,
				int vsd)
{
	TMB(modify_rq_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(modify_rq_in, modify_rq_in, opcode, MLX5_CMD_OP_MODIFY_RQ);
	DEVX_SET(modify_rq_in, modify_rq_in, rqn, rqn);
	DEVX_SET(modify_rq_in, modify_rq_in, rq_state, cur);
	DEVX_SET(modify_rq_in, modify_rq_in, ctx.state, next);
	if (vsd >= 0) {
		DEVX_SET64(modify_rq_in, modify_rq_in, modify_bitmask,
			   MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD);
		DEVX_SET(modify_rq_in, modify_rq_in, ctx.vsd, vsd);
	}
	return cmd(modify_rq_in, sizeof(modify_rq_in), mbox_out, sizeof(mbox_out));
}

static uint32_t t_obj_state(uint16_t op, uint32_t num, bool sq)
{
	TMB(eth_obj_cmd_in) = { 0 };
	TMB(query_sq_out) = { 0 };

	DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, opcode, op);
	DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, obj_num, num);
	if (cmd(eth_obj_cmd_in, sizeof(eth_obj_cmd_in), query_sq_out,
		sizeof(query_sq_out)))
		return 0xff;
	return sq ? DEVX_GET(query_sq_out, query_sq_out, sq_context.state) :
		    DEVX_GET(query_rq_out, query_sq_out, rq_context.state);
}

static unsigned int t_destroy(uint16_t op, uint32_t num)
{
	TMB(eth_obj_cmd_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, opcode, op);
	DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, obj_num, num);
	return cmd(eth_obj_cmd_in, sizeof(eth_obj_cmd_in), mbox_out,
		   sizeof(mbox_out));
}

static unsigned int t_tir(uint32_t rqn, uint32_t tdn, uint32_t lb,
			  uint32_t disp, uint32_t *tirn)
{
	TMB(create_tir_in) = { 0 };
	TMB(create_tir_out) = { 0 };
	unsigned int st;

	DEVX_SET(create_tir_in, create_tir_in, opcode, MLX5_CMD_OP_CREATE_TIR);
	DEVX_SET(create_tir_in, create_tir_in, ctx.disp_type, disp);
	DEVX_SET(create_tir_in, create_tir_in, ctx.inline_rqn, rqn);
	DEVX_SET(create_tir_in, create_tir_in, ctx.transport_domain, tdn);
	DEVX_SET(create_tir_in, create_tir_in, ctx.self_lb_block, lb);
	st = cmd(create_tir_in, sizeof(create_tir_in), create_tir_out,
		 sizeof(create_tir_out));
	*tirn = DEVX_GET(create_tir_out, create_tir_out, tirn);
	return st;
}

static unsigned int t_ft(uint32_t type, uint32_t level, uint32_t log,
			 uint32_t *id)
{
	TMB(create_flow_table_in) = { 0 };
	TMB(create_flow_table_out) = { 0 };
	unsigned int st;

	DEVX_SET(create_flow_table_in, create_flow_table_in, opcode,
		 MLX5_CMD_OP_CREATE_FLOW_TABLE);
	DEVX_SET(create_flow_table_in, create_flow_table_in, table_type, type);
	DEVX_SET(create_flow_table_in, create_flow_table_in,
		 flow_table_context.level, level);
	DEVX_SET(create_flow_table_in, create_flow_table_in,
		 flow_table_context.log_size, log);
	st = cmd(create_flow_table_in, sizeof(create_flow_table_in),
		 create_flow_table_out, sizeof(create_flow_table_out));
	*id = DEVX_GET(create_flow_table_out, create_flow_table_out, table_id);
	return st;
}

/* The table_type the flow helpers below send: NIC RX unless a test says
 * otherwise. */
static uint32_t t_type = MLX5_FLOW_TABLE_TYPE_NIC_RX;

static unsigned int t_ft_cmd(uint16_t op, uint16_t op_mod, uint32_t ft)
{
	TMB(destroy_flow_table_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(destroy_flow_table_in, destroy_flow_table_in, opcode, op);
	DEVX_SET(destroy_flow_table_in, destroy_flow_table_in, op_mod, op_mod);
	DEVX_SET(destroy_flow_table_in, destroy_flow_table_in, table_type, t_type);
	DEVX_SET(destroy_flow_table_in, destroy_flow_table_in, table_id, ft);
	return cmd(destroy_flow_table_in, sizeof(destroy_flow_table_in),
		   mbox_out, sizeof(mbox_out));
}

/* Criteria bits the tests use. */
enum { C_DMAC = 1, C_ETYPE = 2, C_UDP_DPORT = 4, C_MISC = 8 };

static void crit_fill(void *h, unsigned int which)
{
	if (which & C_DMAC) {
		DEVX_SET(fte_match_set_lyr_2_4, h, dmac_47_16, 0xffffffff);
		DEVX_SET(fte_match_set_lyr_2_4, h, dmac_15_0, 0xffff);
	}
	if (which & C_ETYPE)
		DEVX_SET(fte_match_set_lyr_2_4, h, ethertype, 0xffff);
	if (which & C_UDP_DPORT) {
		DEVX_SET(fte_match_set_lyr_2_4, h, ip_protocol, 0xff);
		DEVX_SET(fte_match_set_lyr_2_4, h, udp_dport, 0xffff);
	}
}

static unsigned int t_fg(uint32_t ft, uint32_t start, uint32_t end,
			 unsigned int which, uint32_t *id)
{
	uint8_t *in = calloc(1, DEVX_ST_SZ_BYTES(create_flow_group_in));
	TMB(create_flow_group_out) = { 0 };
	unsigned int st;

	DEVX_SET(create_flow_group_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
	DEVX_SET(create_flow_group_in, in, table_type, t_type);
	DEVX_SET(create_flow_group_in, in, table_id, ft);
	DEVX_SET(create_flow_group_in, in, start_flow_index, start);
	DEVX_SET(create_flow_group_in, in, end_flow_index, end);
	DEVX_SET(create_flow_group_in, in, match_criteria_enable,
		 MLX5_MATCH_OUTER_HEADERS |
		 (which & C_MISC ? MLX5_MATCH_MISC_PARAMETERS : 0));
	crit_fill(DEVX_ADDR_OF(create_flow_group_in, in,
			       match_criteria.outer_headers), which);
	st = cmd(in, DEVX_ST_SZ_BYTES(create_flow_group_in),
		 create_flow_group_out, sizeof(create_flow_group_out));
	*id = DEVX_GET(create_flow_group_out, create_flow_group_out, group_id);
	free(in);
	return st;
}

struct t_fte {
	uint32_t ft, fg, index, action, tag;
	const uint8_t *dmac;
	uint16_t etype, udp_dport;
	uint32_t ndest;
	struct { uint32_t type, id; } dest[4];
	uint32_t nfc, fc[2];	/* flow counters (action COUNT) */
	size_t cut;		/* bytes cut off the mailbox */
	uint32_t mh, push_vlan;	/* actions MOD_HDR, VLAN_PUSH */
	uint32_t pr;		/* action PACKET_REFORMAT */
};

static unsigned int t_fte_set(const struct t_fte *f)
{
	size_t inlen = DEVX_ST_SZ_BYTES(set_fte_in) + 8 * (f->ndest + f->nfc);
	uint8_t *in = calloc(1, inlen);
	TMB(mbox_out) = { 0 };
	void *fc = DEVX_ADDR_OF(set_fte_in, in, flow_context);
	void *v = DEVX_ADDR_OF(flow_context, fc, match_value.outer_headers);
	unsigned int st, i;

	DEVX_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	DEVX_SET(set_fte_in, in, table_type, t_type);
	DEVX_SET(flow_context, fc, modify_header_id, f->mh);
	DEVX_SET(flow_context, fc, push_vlan, f->push_vlan);
	DEVX_SET(flow_context, fc, packet_reformat_id, f->pr);
	DEVX_SET(set_fte_in, in, table_id, f->ft);
	DEVX_SET(set_fte_in, in, flow_index, f->index);
	DEVX_SET(flow_context, fc, group_id, f->fg);
	DEVX_SET(flow_context, fc, action, f->action);
	DEVX_SET(flow_context, fc, flow_tag, f->tag);
	DEVX_SET(flow_context, fc, destination_list_size, f->ndest);
	if (f->dmac) {
		DEVX_SET(fte_match_set_lyr_2_4, v, dmac_47_16,
			 (uint32_t)f->dmac[0] << 24 | (uint32_t)f->dmac[1] << 16 |
			 (uint32_t)f->dmac[2] << 8 | f->dmac[3]);
		DEVX_SET(fte_match_set_lyr_2_4, v, dmac_15_0,
			 (uint32_t)f->dmac[4] << 8 | f->dmac[5]);
	}
	DEVX_SET(fte_match_set_lyr_2_4, v, ethertype, f->etype);
	if (f->udp_dport) {
		DEVX_SET(fte_match_set_lyr_2_4, v, ip_protocol, 17);
		DEVX_SET(fte_match_set_lyr_2_4, v, udp_dport, f->udp_dport);
	}
	for (i = 0; i < f->ndest; i++) {
		void *d = (uint8_t *)fc + DEVX_BYTE_OFF(flow_context, destination) +
			  8 * i;

		DEVX_SET(dest_format, d, destination_type, f->dest[i].type);
		DEVX_SET(dest_format, d, destination_id, f->dest[i].id);
	}
	/* Counters follow the destinations. */
	DEVX_SET(flow_context, fc, flow_counter_list_size, f->nfc);
	for (i = 0; i < f->nfc; i++) {
		void *l = (uint8_t *)fc + DEVX_BYTE_OFF(flow_context, destination) +
			  8 * (f->ndest + i);

		DEVX_SET(flow_counter_list, l, flow_counter_id, f->fc[i]);
	}
	st = cmd(in, inlen - f->cut, mbox_out, sizeof(mbox_out));
	free(in);
	return st;
}

static unsigned int t_fte_del(uint32_t ft, uint32_t index)
{
	TMB(delete_fte_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(delete_fte_in, delete_fte_in, opcode,
		 MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
	DEVX_SET(delete_fte_in, delete_fte_in, table_type, t_type);
	DEVX_SET(delete_fte_in, delete_fte_in, table_id, ft);
	DEVX_SET(delete_fte_in, delete_fte_in, flow_index, index);
	return cmd(delete_fte_in, sizeof(delete_fte_in), mbox_out,
		   sizeof(mbox_out));
}

static unsigned int t_fg_del(uint32_t ft, uint32_t fg)
{
	TMB(destroy_flow_group_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(destroy_flow_group_in, destroy_flow_group_in, opcode,
		 MLX5_CMD_OP_DESTROY_FLOW_GROUP);
	DEVX_SET(destroy_flow_group_in, destroy_flow_group_in, table_type, t_type);
	DEVX_SET(destroy_flow_group_in, destroy_flow_group_in, table_id, ft);
	DEVX_SET(destroy_flow_group_in, destroy_flow_group_in, group_id, fg);
	return cmd(destroy_flow_group_in, sizeof(destroy_flow_group_in),
		   mbox_out, sizeof(mbox_out));
}

/* ---- frames, WQEs ---- */

static uint16_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Eth [VLAN] | IPv4 | UDP to @dport | payload; @len bytes in all. */
static size_t t_frame(uint8_t *f, size_t len, const uint8_t *dmac, bool vlan,
		      uint16_t dport)
{
	size_t o = 12, ip, l4;

	memset(f, 0, len);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	if (vlan) {
		f[o++] = 0x81; f[o++] = 0x00;
		f[o++] = 0xac; f[o++] = 0x0c;	/* prio 5, cfi 0, vid 0xc0c */
	}
	f[o++] = 0x08; f[o++] = 0x00;
	ip = o;
	f[ip] = 0x45;
	f[ip + 2] = (uint8_t)((len - ip) >> 8);
	f[ip + 3] = (uint8_t)(len - ip);
	f[ip + 6] = 0x40;	/* DF */
	f[ip + 8] = 64;
	f[ip + 9] = 17;
	f[ip + 12] = 1; f[ip + 13] = 1; f[ip + 14] = 1; f[ip + 15] = 1;
	f[ip + 16] = 2; f[ip + 17] = 2; f[ip + 18] = 2; f[ip + 19] = 2;
	l4 = ip + 20;
	f[l4] = 0x04; f[l4 + 1] = 0xd2;	/* 1234 */
	f[l4 + 2] = (uint8_t)(dport >> 8);
	f[l4 + 3] = (uint8_t)dport;
	f[l4 + 4] = (uint8_t)((len - l4) >> 8);
	f[l4 + 5] = (uint8_t)(len - l4);
	for (o = l4 + 8; o < len; o++)
		f[o] = (uint8_t)('a' + o % 26);
	return ip;
}

/* SEND: ctrl, eth segment with @ihs inline bytes, the rest by @lkey. */
static void t_eth_wqe(struct t_sq *sq, const uint8_t *frame, size_t len,
		      uint32_t ihs, uint32_t lkey, uint8_t cs, bool ring)
{
	struct t_wqe w;
	struct mlx5_wqe_eth_seg *e;
	uint32_t ds, nbb, i, idx = sq->pi;
	uint64_t v;

	t_wqe_begin(&w, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	e = (void *)(w.b + 16);
	e->cs_flags = cs;
	e->inline_hdr_sz = htobe16((uint16_t)ihs);
	memcpy(e->inline_hdr_start, frame, ihs);
	w.len = 32 + (ihs > 2 ? (ihs - 2 + 15) & ~15u : 0);
	if (len > ihs)
		t_wqe_data(&w, lkey, frame + ihs, (uint32_t)(len - ihs));
	ds = (w.len + 15) / 16;
	nbb = (ds * 16 + 63) / 64;
	t_wqe_ctrl(&w)->opmod_idx_opcode |= htobe32((idx & 0xffff) << 8);
	t_wqe_ctrl(&w)->qpn_ds = htobe32(sq->sqn << 8 | ds);
	for (i = 0; i < nbb; i++)
		memcpy(sq->buf + (size_t)((idx + i) & (sq->cnt - 1)) * 64,
		       w.b + i * 64, 64);
	sq->pi += nbb;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	sq->db[1] = htobe32(sq->pi & 0xffff);
	if (!ring)
		return;
	memcpy(&v, w.b, 8);
	smx_dev_mmio_write64(env.d, (uint64_t)env.uar * 4096 + 0x800, v);
}

static void t_rq_post(struct t_rq *rq, uint32_t lkey, void *addr, uint32_t len)
{
	struct mlx5_wqe_data_seg *d = (void *)(rq->buf +
				      (size_t)(rq->pi & (rq->cnt - 1)) * 64);

	d[0].byte_count = htobe32(len);
	d[0].lkey = htobe32(lkey);
	d[0].addr = htobe64((uint64_t)(uintptr_t)addr);
	d[1].byte_count = 0;
	d[1].lkey = htobe32(MLX5_INVALID_LKEY);
	d[1].addr = 0;
	rq->pi++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	rq->db[0] = htobe32(rq->pi & 0xffff);
}

/* ---- the tests ---- */

static struct t_cq *scq, *rcq;
static struct t_sq sq;
static struct t_rq rq;
static uint32_t tisn, tirn, ft0, fg0;
static struct t_mr mr;
static uint8_t *txb, *rxb;

static void test_setup(void)
{
	scq = t_cq_create(&env, 6, 0);
	rcq = t_cq_create(&env, 6, 0);
	CHECK(scq && rcq);
	td = t_td();
	td2 = t_td();
	CHECK(td && td2 && td != td2);
	CHECK_EQ(t_tis(0, td, &tisn), 0);
	CHECK_EQ(t_sq_create(&sq, scq->cqn, tisn, 6, NULL), 0);
	CHECK_EQ(t_rq_create(&rq, rcq->cqn, 5, true), 0);
	/* SQ, RQ and QP numbers never meet. */
	CHECK(sq.sqn & FW_SQN_PREFIX);
	CHECK(rq.rqn & FW_RQN_PREFIX);
	CHECK(!(rq.rqn & FW_SQN_PREFIX) && !(sq.sqn & FW_RQN_PREFIX));
	CHECK_EQ(t_obj_state(MLX5_CMD_OP_QUERY_SQ, sq.sqn, true),
		 MLX5_SQC_STATE_RST);
	CHECK_EQ(t_sq_modify(sq.sqn, MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY), 0);
	CHECK_EQ(t_rq_modify(rq.rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, -1),
		 0);
	CHECK_EQ(t_obj_state(MLX5_CMD_OP_QUERY_RQ, rq.rqn, false),
		 MLX5_RQC_STATE_RDY);
	CHECK_EQ(t_tir(rq.rqn, td2, 0, MLX5_TIRC_DISP_TYPE_DIRECT, &tirn), 0);
	CHECK_EQ(t_ft(MLX5_FLOW_TABLE_TYPE_NIC_RX, 0, 4, &ft0), 0);
	CHECK_EQ(t_fg(ft0, 0, 7, C_DMAC | C_ETYPE, &fg0), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 3,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .tag = 0xabc, .dmac = mc_dmac, .etype = 0x0800,
				   .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tirn } } };

		CHECK_EQ(t_fte_set(&f), 0);
	}
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, 0, ft0), 0);
	txb = t_zalloc(16384);
	rxb = txb + 8192;
	mr = t_mr(&env, env.pd, txb, 16384, T_LR | T_LW);
	CHECK(mr.key);
}

static void test_traffic(void)
{
	uint8_t *frame = txb, *got = rxb + 4096;
	struct fw_eth_stats *st = fw_eth_stats(smx_dev_fw(env.d));
	struct mlx5_cqe64 c;
	size_t ip;

	ip = t_frame(frame, 100, mc_dmac, false, 5678);
	t_rq_post(&rq, mr.key, got, 256);
	/* Inline L2 header, the rest gathered; both checksums asked for. */
	t_eth_wqe(&sq, frame, 100, 18, mr.key,
		  MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM, true);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, sq.sqn);
	CHECK_EQ(be32toh(c.sop_drop_qpn) >> 24, MLX5_OPCODE_SEND);
	CHECK_EQ(be32toh(c.srqn_uidx) & 0xffffff, 0x1234);
	CHECK_EQ(be16toh(c.wqe_counter), 0);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(c.byte_cnt), 100);
	CHECK_EQ(be32toh(c.srqn_uidx) & 0xffffff, 0x5678);
	CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, 0xabc);	/* flow tag */
	CHECK_EQ(be16toh(c.wqe_counter), 0);
	CHECK_EQ(c.hds_ip_ext, MLX5_CQE_L2_OK | MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	CHECK_EQ(c.l4_hdr_type_etc, 2 << 4 | MLX5_CQE_L3_HDR_TYPE_IPV4 << 2);
	CHECK(c.timestamp != 0);
	/* Byte for byte, checksums aside; those verify. */
	CHECK(memcmp(got, frame, ip + 10) == 0);
	CHECK(memcmp(got + ip + 12, frame + ip + 12, 14) == 0);
	CHECK(memcmp(got + ip + 28, frame + ip + 28, 100 - ip - 28) == 0);
	CHECK_EQ(sum16(got + ip, 20, 0), 0xffff);
	{
		uint8_t ph[12] = { 1, 1, 1, 1, 2, 2, 2, 2, 0, 17, 0,
				   (uint8_t)(100 - ip - 20) };

		CHECK_EQ(sum16(got + ip + 20, 100 - ip - 20, sum16(ph, 12, 0)),
			 0xffff);
	}
	CHECK(got[100] == 0);

	/* The same frame without checksums: the IPv4 header checksum (0) is
	 * wrong, UDP checksum 0 means "none" and is fine. */
	t_frame(frame, 100, mc_dmac, false, 5678);
	t_rq_post(&rq, mr.key, got, 256);
	t_eth_wqe(&sq, frame, 100, 0, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(be16toh(c.wqe_counter), 1);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(c.hds_ip_ext, MLX5_CQE_L2_OK | MLX5_CQE_L4_OK);
	CHECK(memcmp(got, frame, 100) == 0);

	/* IPv6 whose payload length counts its own header too (as
	 * pyverbs' frames do): still parsed and steered, L3/L4 not OK. */
	{
		struct t_fte f6 = { .ft = ft0, .fg = fg0, .index = 5,
				    .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				    .tag = 0x66, .dmac = mc_dmac, .etype = 0x86dd,
				    .ndest = 1,
				    .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tirn } } };

		CHECK_EQ(t_fte_set(&f6), 0);
		memset(frame, 0, 100);
		memcpy(frame, mc_dmac, 6);
		memcpy(frame + 6, smac, 6);
		frame[12] = 0x86;
		frame[13] = 0xdd;
		frame[14] = 0x60;
		frame[18] = 0;
		frame[19] = 100 - 14;	/* 40 too many */
		frame[20] = 17;
		frame[21] = 64;
		t_rq_post(&rq, mr.key, got, 256);
		t_eth_wqe(&sq, frame, 100, 18, mr.key, 0, true);
		CHECK(t_poll(scq, &c));
		CHECK(t_poll(rcq, &c));
		CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, 0x66);
		CHECK_EQ(c.hds_ip_ext, MLX5_CQE_L2_OK);
		CHECK_EQ(c.l4_hdr_type_etc, 2 << 4 | MLX5_CQE_L3_HDR_TYPE_IPV6 << 2);
		CHECK_EQ(t_fte_del(ft0, 5), 0);
	}

	/* No entry matches: dropped and counted. */
	{
		static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 9 };
		uint64_t nm = st->rx_no_match;

		t_frame(frame, 80, other, false, 5678);
		t_eth_wqe(&sq, frame, 80, 18, mr.key, 0, true);
		CHECK(t_poll(scq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
		CHECK(!t_poll(rcq, &c));
		CHECK_EQ(st->rx_no_match, nm + 1);
	}
	/* Matches, but no receive WQE is posted: out of buffer. */
	{
		uint64_t oob = st->rx_out_of_buffer;

		t_frame(frame, 80, mc_dmac, false, 5678);
		t_eth_wqe(&sq, frame, 80, 18, mr.key, 0, true);
		CHECK(t_poll(scq, &c));
		CHECK(!t_poll(rcq, &c));
		CHECK_EQ(st->rx_out_of_buffer, oob + 1);
	}
	/* Posted without a doorbell: the watcher finds it. */
	t_frame(frame, 64, mc_dmac, false, 5678);
	t_rq_post(&rq, mr.key, got, 256);
	t_eth_wqe(&sq, frame, 64, 18, mr.key, 0, false);
	eng_poll(smx_dev_eng(env.d));
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(be32toh(c.byte_cnt), 64);
}

static void test_vlan_strip(void)
{
	uint8_t *frame = txb, *got = rxb + 4096;
	struct mlx5_cqe64 c;

	/* vsd 1: the tag stays. */
	t_frame(frame, 104, mc_dmac, true, 5678);
	t_rq_post(&rq, mr.key, got, 256);
	t_eth_wqe(&sq, frame, 104, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(be32toh(c.byte_cnt), 104);
	CHECK_EQ(c.l4_hdr_type_etc & 1, 0);
	CHECK(memcmp(got, frame, 104) == 0);
	/* vsd 0 (MODIFY_RQ RDY->RDY with the VSD bit): stripped. */
	CHECK_EQ(t_rq_modify(rq.rqn, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_RDY, 0),
		 0);
	t_rq_post(&rq, mr.key, got, 256);
	t_eth_wqe(&sq, frame, 104, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(be32toh(c.byte_cnt), 100);
	CHECK_EQ(c.l4_hdr_type_etc & 1, 1);
	CHECK_EQ(be16toh(c.vlan_info), 0xac0c);
	CHECK(memcmp(got, frame, 12) == 0);
	CHECK(memcmp(got + 12, frame + 16, 88) == 0);
	CHECK_EQ(t_rq_modify(rq.rqn, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_RDY, 1),
		 0);
}

/* A second table one level down, a DROP entry, two TIRs, self loopback. */
static void test_steering(void)
{
	uint8_t *frame = txb, *got = rxb + 4096;
	struct fw_eth_stats *st = fw_eth_stats(smx_dev_fw(env.d));
	uint32_t ft1, fg1, fg_fwd, tir_lb;
	struct mlx5_cqe64 c;
	uint64_t drops;

	CHECK_EQ(t_ft(MLX5_FLOW_TABLE_TYPE_NIC_RX, 1, 3, &ft1), 0);
	CHECK_EQ(t_fg(ft1, 0, 3, C_UDP_DPORT, &fg1), 0);
	{
		struct t_fte drop = { .ft = ft1, .fg = fg1, .index = 0,
				      .action = MLX5_FLOW_CONTEXT_ACTION_DROP,
				      .udp_dport = 9 };
		struct t_fte to_tir = { .ft = ft1, .fg = fg1, .index = 1,
					.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
					.tag = 0x77, .udp_dport = 4791, .ndest = 1,
					.dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR,
						    tirn } } };

		CHECK_EQ(t_fte_set(&drop), 0);
		CHECK_EQ(t_fte_set(&to_tir), 0);
	}
	/* Root index 9 (after the dmac entry at 3): unicast to table 1. */
	CHECK_EQ(t_fg(ft0, 8, 15, C_ETYPE, &fg_fwd), 0);
	{
		struct t_fte fwd = { .ft = ft0, .fg = fg_fwd, .index = 9,
				     .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				     .etype = 0x0800, .ndest = 1,
				     .dest = { { MLX5_FLOW_DESTINATION_TYPE_FLOW_TABLE,
						 ft1 } } };
		struct t_fte up = fwd;

		CHECK_EQ(t_fte_set(&fwd), 0);
		/* Table 1 cannot forward back up to the root. */
		up.ft = ft1;
		up.fg = fg1;
		up.index = 2;
		up.udp_dport = 1;
		up.dest[0].id = ft0;
		CHECK_EQ(t_fte_set(&up), MLX5_CMD_STAT_BAD_PARAM_ERR);
		/* Destroying a table another one forwards to: busy. */
		CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, ft1),
			 MLX5_CMD_STAT_RES_BUSY);
	}
	{
		static const uint8_t uc[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

		t_frame(frame, 90, uc, false, 4791);
		t_rq_post(&rq, mr.key, got, 256);
		t_eth_wqe(&sq, frame, 90, 18, mr.key, 0, true);
		CHECK(t_poll(scq, &c));
		CHECK(t_poll(rcq, &c));
		CHECK_EQ(be32toh(c.byte_cnt), 90);
		CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, 0x77);
		/* Port 9 hits the DROP entry. */
		drops = st->rx_dropped;
		t_frame(frame, 90, uc, false, 9);
		t_eth_wqe(&sq, frame, 90, 18, mr.key, 0, true);
		CHECK(t_poll(scq, &c));
		CHECK(!t_poll(rcq, &c));
		CHECK_EQ(st->rx_dropped, drops + 1);
		/* An unknown port misses table 1: no miss table, dropped. */
		drops = st->rx_no_match;
		t_frame(frame, 90, uc, false, 1000);
		t_eth_wqe(&sq, frame, 90, 18, mr.key, 0, true);
		CHECK(t_poll(scq, &c));
		CHECK(!t_poll(rcq, &c));
		CHECK_EQ(st->rx_no_match, drops + 1);
	}
	CHECK_EQ(t_fte_del(ft0, 9), 0);
	CHECK_EQ(t_fte_del(ft0, 9), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_fg_del(ft0, fg_fwd), 0);
	CHECK_EQ(t_fte_del(ft1, 0), 0);
	CHECK_EQ(t_fte_del(ft1, 1), 0);
	CHECK_EQ(t_fg_del(ft1, fg1), 0);
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, ft1), 0);

	/* Self loopback: a TIR in the SQ's transport domain that blocks
	 * multicast does not get the SQ's multicast frame; the other one
	 * (another domain) still does -- one frame, two destinations. */
	CHECK_EQ(t_tir(rq.rqn, td, MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST,
		       MLX5_TIRC_DISP_TYPE_DIRECT, &tir_lb), 0);
	CHECK_EQ(t_fte_del(ft0, 3), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 3,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .tag = 0xabc, .dmac = mc_dmac, .etype = 0x0800,
				   .ndest = 2,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tir_lb },
					     { MLX5_FLOW_DESTINATION_TYPE_TIR, tirn } } };

		CHECK_EQ(t_fte_set(&f), 0);
	}
	t_frame(frame, 70, mc_dmac, false, 5678);
	t_rq_post(&rq, mr.key, got, 256);
	t_rq_post(&rq, mr.key, got + 1024, 256);
	t_eth_wqe(&sq, frame, 70, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(be32toh(c.byte_cnt), 70);
	CHECK(!t_poll(rcq, &c));	/* only once: tir_lb blocked it */
	rq.pi--;	/* the spare WQE: take it back (still unconsumed) */
	rq.db[0] = htobe32(rq.pi & 0xffff);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tir_lb),
		 MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_fte_del(ft0, 3), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tir_lb), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 3,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .tag = 0xabc, .dmac = mc_dmac, .etype = 0x0800,
				   .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tirn } } };

		CHECK_EQ(t_fte_set(&f), 0);
	}
}

static unsigned int t_fc_alloc(uint32_t bulk, uint32_t *id)
{
	TMB(alloc_flow_counter_in) = { 0 };
	TMB(alloc_flow_counter_out) = { 0 };
	unsigned int st;

	DEVX_SET(alloc_flow_counter_in, alloc_flow_counter_in, opcode,
		 MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
	DEVX_SET(alloc_flow_counter_in, alloc_flow_counter_in,
		 flow_counter_bulk, bulk);
	st = cmd(alloc_flow_counter_in, sizeof(alloc_flow_counter_in),
		 alloc_flow_counter_out, sizeof(alloc_flow_counter_out));
	*id = DEVX_GET(alloc_flow_counter_out, alloc_flow_counter_out,
		       flow_counter_id);
	return st;
}

static unsigned int t_fc_dealloc(uint32_t id)
{
	TMB(dealloc_flow_counter_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(dealloc_flow_counter_in, dealloc_flow_counter_in, opcode,
		 MLX5_CMD_OP_DEALLOC_FLOW_COUNTER);
	DEVX_SET(dealloc_flow_counter_in, dealloc_flow_counter_in,
		 flow_counter_id, id);
	return cmd(dealloc_flow_counter_in, sizeof(dealloc_flow_counter_in),
		   mbox_out, sizeof(mbox_out));
}

/* Queries @n counters from @id (num_of_counters @n; 0 means one) into
 * pk/oc; @outlen bytes of output mailbox. */
static unsigned int t_fc_query(uint32_t id, uint32_t n, bool clear,
			       bool dump, size_t outlen, uint64_t *pk,
			       uint64_t *oc)
{
	TMB(query_flow_counter_in) = { 0 };
	uint8_t out[0x40] __attribute__((aligned(8))) = { 0 };
	unsigned int st, i;

	DEVX_SET(query_flow_counter_in, query_flow_counter_in, opcode,
		 MLX5_CMD_OP_QUERY_FLOW_COUNTER);
	DEVX_SET(query_flow_counter_in, query_flow_counter_in, flow_counter_id,
		 id);
	DEVX_SET(query_flow_counter_in, query_flow_counter_in, num_of_counters,
		 n);
	DEVX_SET(query_flow_counter_in, query_flow_counter_in, clear, clear);
	DEVX_SET(query_flow_counter_in, query_flow_counter_in, dump_to_memory,
		 dump);
	st = cmd(query_flow_counter_in, sizeof(query_flow_counter_in), out,
		 outlen);
	for (i = 0; !st && i < (n ? n : 1); i++) {
		uint8_t *t = out + 0x10 + 0x10 * i;

		pk[i] = DEVX_GET64(traffic_counter, t, packets);
		oc[i] = DEVX_GET64(traffic_counter, t, octets);
	}
	return st;
}

/* Flow counters: an entry forwarding to the TIR counts every frame it
 * matches (packets and bytes), a second counter on the same entry too;
 * QUERY with clear resets; bad requests are refused. */
static void test_counters(void)
{
	uint8_t *frame = txb, *got = rxb + 4096;
	uint32_t fc1, fc2, nofc;
	uint64_t pk[2] = { 0 }, oc[2] = { 0 };
	struct mlx5_cqe64 c;
	unsigned int i;

	CHECK_EQ(t_fc_alloc(0, &fc1), 0);
	CHECK_EQ(t_fc_alloc(0, &fc2), 0);
	CHECK_EQ(fc2, fc1 + 1);
	CHECK_EQ(t_fc_alloc(1, &nofc), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_fte_del(ft0, 3), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 3,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
					     MLX5_FLOW_CONTEXT_ACTION_COUNT,
				   .dmac = mc_dmac, .etype = 0x0800, .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tirn } },
				   .nfc = 2, .fc = { fc1, fc2 } };
		struct t_fte bad = f;

		/* COUNT without counters, counters without COUNT, a
		 * counter that does not exist, a list cut short. */
		bad.nfc = 0;
		CHECK_EQ(t_fte_set(&bad), MLX5_CMD_STAT_BAD_PARAM_ERR);
		bad = f;
		bad.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST;
		CHECK_EQ(t_fte_set(&bad), MLX5_CMD_STAT_BAD_PARAM_ERR);
		bad = f;
		bad.action = MLX5_FLOW_CONTEXT_ACTION_COUNT;
		CHECK_EQ(t_fte_set(&bad), MLX5_CMD_STAT_BAD_PARAM_ERR);
		bad = f;
		bad.fc[1] = fc2 + 100;
		CHECK_EQ(t_fte_set(&bad), MLX5_CMD_STAT_BAD_RES_ERR);
		bad = f;
		bad.cut = 8;
		CHECK_EQ(t_fte_set(&bad), MLX5_CMD_STAT_BAD_INP_LEN_ERR);
		CHECK_EQ(t_fte_set(&f), 0);
	}
	for (i = 0; i < 3; i++) {
		t_frame(frame, 70 + 10 * i, mc_dmac, false, 5678);
		t_rq_post(&rq, mr.key, got, 256);
		t_eth_wqe(&sq, frame, 70 + 10 * i, 18, mr.key, 0, true);
		CHECK(t_poll(scq, &c));
		CHECK(t_poll(rcq, &c));
	}
	CHECK_EQ(t_fc_query(fc1, 2, false, false, 0x30, pk, oc), 0);
	CHECK_EQ(pk[0], 3);
	CHECK_EQ(oc[0], 70 + 80 + 90);
	CHECK_EQ(pk[1], 3);
	CHECK_EQ(oc[1], 240);
	/* Clear, then one more frame counts from zero. */
	CHECK_EQ(t_fc_query(fc2, 0, true, false, 0x20, pk, oc), 0);
	CHECK_EQ(pk[0], 3);
	t_rq_post(&rq, mr.key, got, 256);
	t_eth_wqe(&sq, frame, 64, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_fc_query(fc2, 1, false, false, 0x20, pk, oc), 0);
	CHECK_EQ(pk[0], 1);
	CHECK_EQ(oc[0], 64);
	CHECK_EQ(t_fc_query(fc1, 0, false, false, 0x20, pk, oc), 0);
	CHECK_EQ(pk[0], 4);
	/* Two counters do not fit 0x20 bytes; no dump; fc2 + 1 is free;
	 * a listed counter cannot go. */
	CHECK_EQ(t_fc_query(fc1, 2, false, false, 0x20, pk, oc),
		 MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
	CHECK_EQ(t_fc_query(fc1, 0, false, true, 0x20, pk, oc),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_fc_query(fc1, 3, false, false, 0x40, pk, oc),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_fc_dealloc(fc1), MLX5_CMD_STAT_RES_BUSY);
	/* Back to the plain entry; the counters go. */
	CHECK_EQ(t_fte_del(ft0, 3), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 3,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .tag = 0xabc, .dmac = mc_dmac, .etype = 0x0800,
				   .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tirn } } };

		CHECK_EQ(t_fte_set(&f), 0);
	}
	CHECK_EQ(t_fc_dealloc(fc1), 0);
	CHECK_EQ(t_fc_dealloc(fc2), 0);
	CHECK_EQ(t_fc_dealloc(fc2), MLX5_CMD_STAT_BAD_RES_ERR);
}

/* ---- RMP-backed RQs ---- */

struct t_rmp {
	uint32_t rmpn;
	uint8_t *buf;
	volatile uint32_t *db;
	uint32_t cnt;
	uint16_t ctr;		/* WQEs posted (the doorbell record) */
	bool cyclic;		/* wq_type cyclic */
	bool basic;		/* basic_cyclic_rcv_wqe: no next segment */
};

enum t_rmp_layout { T_RMP_LIST, T_RMP_CYCLIC, T_RMP_BASIC };

/* CREATE_RMP of 2^@log 64-byte WQEs under @uid; @edit may spoil it. */
static unsigned int t_rmp_create(struct t_rmp *r, uint32_t log,
				 enum t_rmp_layout layout, uint16_t uid,
				 void (*edit)(uint8_t *in))
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_rmp_in) + 8;
	uint8_t *in = calloc(1, inlen);
	TMB(create_rmp_out) = { 0 };
	void *rmpc = DEVX_ADDR_OF(create_rmp_in, in, ctx);
	void *wq = DEVX_ADDR_OF(rmpc, rmpc, wq);
	uint64_t v;
	unsigned int st;

	memset(r, 0, sizeof(*r));
	r->buf = t_zalloc(4096);
	r->db = t_zalloc(64);
	r->cnt = 1u << log;
	r->cyclic = layout != T_RMP_LIST;
	r->basic = layout == T_RMP_BASIC;
	DEVX_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);
	DEVX_SET(create_rmp_in, in, uid, uid);
	DEVX_SET(rmpc, rmpc, state, MLX5_RMPC_STATE_RDY);
	DEVX_SET(rmpc, rmpc, basic_cyclic_rcv_wqe, r->basic);
	DEVX_SET(wq, wq, wq_type, r->cyclic ? MLX5_WQ_TYPE_CYCLIC :
		 MLX5_WQ_TYPE_LINKED_LIST);
	DEVX_SET(wq, wq, pd, env.pd);
	DEVX_SET64(wq, wq, dbr_addr, (uint64_t)(uintptr_t)r->db);
	DEVX_SET(wq, wq, log_wq_stride, 6);
	DEVX_SET(wq, wq, log_wq_sz, log);
	v = htobe64((uint64_t)(uintptr_t)r->buf);
	memcpy((uint8_t *)wq + DEVX_BYTE_OFF(wq, pas), &v, 8);
	if (edit)
		edit(in);
	st = cmd(in, inlen, create_rmp_out, sizeof(create_rmp_out));
	r->rmpn = DEVX_GET(create_rmp_out, create_rmp_out, rmpn);
	free(in);
	return st;
}

/* WQE at @slot (its next segment, if it has one, says @next), one buffer;
 * then the WQE counter in the doorbell record. */
static void t_rmp_post(struct t_rmp *r, uint32_t slot, uint32_t next,
		       uint32_t lkey, void *addr, uint32_t len)
{
	uint8_t *w = r->buf + (size_t)slot * 64;
	struct mlx5_wqe_data_seg *d = (void *)(w + (r->basic ? 0 : 16));

	memset(w, 0, 64);
	if (!r->basic)
		((struct mlx5_wqe_srq_next_seg *)(void *)w)->next_wqe_index =
			htobe16((uint16_t)next);
	d[0].byte_count = htobe32(len);
	d[0].lkey = htobe32(lkey);
	d[0].addr = htobe64((uint64_t)(uintptr_t)addr);
	d[1].lkey = htobe32(MLX5_INVALID_LKEY);
	r->ctr++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	r->db[0] = htobe32(r->ctr);
}

static unsigned int t_rmp_modify(uint16_t uid, uint32_t rmpn, uint32_t cur,
				 uint32_t next, uint64_t mask, uint32_t lwm)
{
	TMB(modify_rmp_in) = { 0 };
	TMB(modify_rmp_out) = { 0 };

	DEVX_SET(modify_rmp_in, modify_rmp_in, opcode, MLX5_CMD_OP_MODIFY_RMP);
	DEVX_SET(modify_rmp_in, modify_rmp_in, uid, uid);
	DEVX_SET(modify_rmp_in, modify_rmp_in, rmpn, rmpn);
	DEVX_SET(modify_rmp_in, modify_rmp_in, rmp_state, cur);
	DEVX_SET(modify_rmp_in, modify_rmp_in, ctx.state, next);
	DEVX_SET64(modify_rmp_in, modify_rmp_in, bitmask, mask);
	DEVX_SET(modify_rmp_in, modify_rmp_in, ctx.wq.lwm, lwm);
	return cmd(modify_rmp_in, sizeof(modify_rmp_in), modify_rmp_out,
		   sizeof(modify_rmp_out));
}

/* QUERY_RMP (or DESTROY_RMP: @op) by @uid; the answer's rmpc in @rmpc. */
static unsigned int t_rmp_cmd(uint16_t op, uint16_t uid, uint32_t rmpn,
			      uint8_t *rmpc)
{
	TMB(query_rmp_in) = { 0 };
	TMB(query_rmp_out) = { 0 };
	unsigned int st;

	DEVX_SET(query_rmp_in, query_rmp_in, opcode, op);
	DEVX_SET(query_rmp_in, query_rmp_in, uid, uid);
	DEVX_SET(query_rmp_in, query_rmp_in, rmpn, rmpn);
	st = cmd(query_rmp_in, sizeof(query_rmp_in), query_rmp_out,
		 op == MLX5_CMD_OP_QUERY_RMP ? sizeof(query_rmp_out) : 16);
	if (rmpc)
		memcpy(rmpc, DEVX_ADDR_OF(query_rmp_out, query_rmp_out,
					  rmp_context),
		       DEVX_ST_SZ_BYTES(rmpc));
	return st;
}

/* CREATE_RQ with mem_rq_type @mem naming @rmpn (no wq of its own). */
static unsigned int t_rq_on_rmp(uint32_t *rqn, uint32_t cqn, uint32_t mem,
				uint32_t rmpn)
{
	TMB(create_rq_in) = { 0 };
	TMB(create_rq_out) = { 0 };
	unsigned int st;

	DEVX_SET(create_rq_in, create_rq_in, opcode, MLX5_CMD_OP_CREATE_RQ);
	DEVX_SET(create_rq_in, create_rq_in, ctx.mem_rq_type, mem);
	DEVX_SET(create_rq_in, create_rq_in, ctx.rmpn, rmpn);
	DEVX_SET(create_rq_in, create_rq_in, ctx.vsd, 1);
	DEVX_SET(create_rq_in, create_rq_in, ctx.flush_in_error_en, 1);
	DEVX_SET(create_rq_in, create_rq_in, ctx.user_index, 0x4321);
	DEVX_SET(create_rq_in, create_rq_in, ctx.cqn, cqn);
	st = cmd(create_rq_in, sizeof(create_rq_in), create_rq_out,
		 sizeof(create_rq_out));
	*rqn = DEVX_GET(create_rq_out, create_rq_out, rqn);
	return st;
}

static void rmp_edit_state(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.state, 0);
}

static void rmp_edit_type(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.wq.wq_type, 2);
}

static void rmp_edit_cyclic_mismatch(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.basic_cyclic_rcv_wqe, 1);
}

static void rmp_edit_small_stride(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.wq.log_wq_stride, 3);
}

static void rmp_edit_big_stride(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.wq.log_wq_stride, 11);
}

static void rmp_edit_huge(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.wq.log_wq_sz, 31);
}

static void rmp_edit_pd(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.wq.pd, 0xfffff0);
}

static void rmp_edit_dbr(uint8_t *in)
{
	DEVX_SET64(create_rmp_in, in, ctx.wq.dbr_addr,
		   DEVX_GET64(create_rmp_in, in, ctx.wq.dbr_addr) + 4);
}

static void rmp_edit_sig(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.wq.wq_signature, 1);
}

static void rmp_edit_lwm(uint8_t *in)
{
	DEVX_SET(create_rmp_in, in, ctx.wq.lwm, 4);	/* not below 4 WQEs */
}

static void rmp_edit_no_page(uint8_t *in)
{
	memset(in + DEVX_BYTE_OFF(create_rmp_in, ctx.wq.pas), 0, 8);
}

static uint32_t t_srq_plain(void)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_srq_in) + 8;
	uint8_t *in = calloc(1, inlen);
	TMB(create_srq_out) = { 0 };
	void *ctx = DEVX_ADDR_OF(create_srq_in, in, srq_context_entry);
	uint64_t v = htobe64((uint64_t)(uintptr_t)t_zalloc(4096));
	uint32_t n = 0;

	DEVX_SET(create_srq_in, in, opcode, MLX5_CMD_OP_CREATE_SRQ);
	DEVX_SET(srqc, ctx, log_srq_size, 2);
	DEVX_SET(srqc, ctx, log_rq_stride, 2);
	DEVX_SET(srqc, ctx, pd, env.pd);
	DEVX_SET64(srqc, ctx, dbr_addr, (uint64_t)(uintptr_t)t_zalloc(64));
	memcpy(in + DEVX_BYTE_OFF(create_srq_in, pas), &v, 8);
	if (!cmd(in, inlen, create_srq_out, sizeof(create_srq_out)))
		n = DEVX_GET(create_srq_out, create_srq_out, srqn);
	free(in);
	return n;
}

static const uint8_t rmp_dmac[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xb1 };
static const uint8_t rmp2_dmac[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xb2 };

/* Sends one @len-byte frame to @dmac and reaps the send CQE. */
static void rmp_send(const uint8_t *dmac, size_t len)
{
	struct mlx5_cqe64 c;

	t_frame(txb, len, dmac, false, 4000 + (uint16_t)len);
	t_eth_wqe(&sq, txb, len, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
}

static void test_rmp(void)
{
	static const uint32_t order[4] = { 0, 2, 1, 3 };
	struct fw_eth_stats *st = fw_eth_stats(smx_dev_fw(env.d));
	uint8_t *bufs = rxb, rmpc[DEVX_ST_SZ_BYTES(rmpc)];
	uint32_t rqn, rqn2, rqn3, tir1, tir2, tir3, srqn, x, i;
	struct t_rmp r, r2, r3;
	struct mlx5_cqe64 c;
	uint64_t oob;

	/* A linked-list RMP of 4 WQEs; an RQ on it, steered to by DMAC. */
	CHECK_EQ(t_rmp_create(&r, 2, T_RMP_LIST, 0, NULL), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_QUERY_RMP, 0, r.rmpn, rmpc), 0);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, state), MLX5_RMPC_STATE_RDY);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, basic_cyclic_rcv_wqe), 0);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, wq.wq_type), MLX5_WQ_TYPE_LINKED_LIST);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, wq.log_wq_sz), 2);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, wq.log_wq_stride), 6);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, wq.pd), env.pd);
	CHECK_EQ(t_rq_on_rmp(&rqn, rcq->cqn, MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP,
			     r.rmpn), 0);
	CHECK_EQ(t_rq_modify(rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, -1),
		 0);
	{
		TMB(eth_obj_cmd_in) = { 0 };
		TMB(query_rq_out) = { 0 };

		DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, opcode,
			 MLX5_CMD_OP_QUERY_RQ);
		DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, obj_num, rqn);
		CHECK_EQ(cmd(eth_obj_cmd_in, sizeof(eth_obj_cmd_in),
			     query_rq_out, sizeof(query_rq_out)), 0);
		CHECK_EQ(DEVX_GET(query_rq_out, query_rq_out,
				  rq_context.mem_rq_type),
			 MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP);
		CHECK_EQ(DEVX_GET(query_rq_out, query_rq_out, rq_context.rmpn),
			 r.rmpn);
		CHECK_EQ(DEVX_GET(query_rq_out, query_rq_out, rq_context.state),
			 MLX5_RQC_STATE_RDY);
	}
	CHECK_EQ(t_tir(rqn, td2, 0, MLX5_TIRC_DISP_TYPE_DIRECT, &tir1), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 6,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .tag = 0x11, .dmac = rmp_dmac, .etype = 0x0800,
				   .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tir1 } } };

		CHECK_EQ(t_fte_set(&f), 0);
	}

	/* The list is 0 -> 2 -> 1 -> 3: frames land in that order, each CQE
	 * naming the RMP's WQE index. */
	for (i = 0; i < 4; i++)
		t_rmp_post(&r, order[i], i < 3 ? order[i + 1] : 0, mr.key,
			   bufs + order[i] * 256, 256);
	for (i = 0; i < 4; i++)
		rmp_send(rmp_dmac, 64 + 4 * i);
	for (i = 0; i < 4; i++) {
		CHECK(t_poll(rcq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
		CHECK_EQ(be16toh(c.wqe_counter), order[i]);
		CHECK_EQ(be32toh(c.byte_cnt), 64 + 4 * i);
		CHECK_EQ(be32toh(c.srqn_uidx) & 0xffffff, 0x4321);
		CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, 0x11);
		t_frame(txb, 64 + 4 * i, rmp_dmac, false,
			4000 + (uint16_t)(64 + 4 * i));
		CHECK(memcmp(bufs + order[i] * 256, txb, 64 + 4 * i) == 0);
	}
	/* The pool is empty: the frame is dropped and counted, no CQE. */
	oob = st->rx_out_of_buffer;
	rmp_send(rmp_dmac, 80);
	CHECK(!t_poll(rcq, &c));
	CHECK_EQ(st->rx_out_of_buffer, oob + 1);

	/* The RMP serves an RQ: not destroyed. */
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, r.rmpn, NULL),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);

	/* MODIFY_RMP: lwm; RDY -> ERR (hands out nothing) -> RDY. */
	CHECK_EQ(t_rmp_modify(0, r.rmpn, MLX5_RMPC_STATE_RDY,
			      MLX5_RMPC_STATE_RDY, 1, 2), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_QUERY_RMP, 0, r.rmpn, rmpc), 0);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, wq.lwm), 2);
	CHECK_EQ(t_rmp_modify(0, r.rmpn, MLX5_RMPC_STATE_RDY,
			      MLX5_RMPC_STATE_ERR, 0, 0), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_QUERY_RMP, 0, r.rmpn, rmpc), 0);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, state), MLX5_RMPC_STATE_ERR);
	t_rmp_post(&r, 0, 1, mr.key, bufs, 256);	/* after 3 comes 0 */
	oob = st->rx_out_of_buffer;
	rmp_send(rmp_dmac, 90);
	CHECK(!t_poll(rcq, &c));
	CHECK_EQ(st->rx_out_of_buffer, oob + 1);
	/* Bad modifies: wrong current state, no such next state, other
	 * bitmask bits, lwm not below the size, lwm into ERR, no RMP. */
	CHECK_EQ(t_rmp_modify(0, r.rmpn, MLX5_RMPC_STATE_RDY,
			      MLX5_RMPC_STATE_RDY, 0, 0),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	CHECK_EQ(t_rmp_modify(0, r.rmpn, MLX5_RMPC_STATE_ERR, 0, 0, 0),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_rmp_modify(0, r.rmpn, MLX5_RMPC_STATE_ERR,
			      MLX5_RMPC_STATE_RDY, 2, 0),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_rmp_modify(0, r.rmpn, MLX5_RMPC_STATE_ERR,
			      MLX5_RMPC_STATE_RDY, 1, 4),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_rmp_modify(0, r.rmpn, MLX5_RMPC_STATE_ERR,
			      MLX5_RMPC_STATE_ERR, 1, 1),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_rmp_modify(0, 0xfff0, MLX5_RMPC_STATE_RDY,
			      MLX5_RMPC_STATE_ERR, 0, 0),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_rmp_modify(0, r.rmpn, MLX5_RMPC_STATE_ERR,
			      MLX5_RMPC_STATE_RDY, 0, 0), 0);
	/* Back in RDY the WQE posted meanwhile takes the next frame. */
	rmp_send(rmp_dmac, 100);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
	CHECK_EQ(be16toh(c.wqe_counter), 0);
	CHECK_EQ(be32toh(c.byte_cnt), 100);

	/* A bad key in an RMP WQE: LOCAL_PROT_ERR naming the RMP index, the
	 * RQ to ERR; the pool's other WQEs are not flushed. */
	t_rmp_post(&r, 1, 2, 0xdead00, bufs, 256);
	t_rmp_post(&r, 2, 3, mr.key, bufs + 512, 256);
	rmp_send(rmp_dmac, 70);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_ERR);
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CHECK_EQ(be16toh(((struct mlx5_err_cqe *)&c)->wqe_counter), 1);
	CHECK_EQ(t_obj_state(MLX5_CMD_OP_QUERY_RQ, rqn, false),
		 MLX5_RQC_STATE_ERR);
	eng_poll(smx_dev_eng(env.d));
	CHECK(!t_poll(rcq, &c));
	CHECK_EQ(t_rq_modify(rqn, MLX5_RQC_STATE_ERR, MLX5_RQC_STATE_RST, -1),
		 0);
	CHECK_EQ(t_rq_modify(rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, -1),
		 0);
	rmp_send(rmp_dmac, 72);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(be16toh(c.wqe_counter), 2);
	CHECK_EQ(be32toh(c.byte_cnt), 72);

	/* A basic cyclic RMP: WQE n at slot n % 2, no next segment. */
	CHECK_EQ(t_rmp_create(&r2, 1, T_RMP_BASIC, 0, NULL), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_QUERY_RMP, 0, r2.rmpn, rmpc), 0);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, basic_cyclic_rcv_wqe), 1);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, wq.wq_type), MLX5_WQ_TYPE_CYCLIC);
	CHECK_EQ(t_rq_on_rmp(&rqn2, rcq->cqn, MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP,
			     r2.rmpn), 0);
	CHECK_EQ(t_rq_modify(rqn2, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, -1),
		 0);
	CHECK_EQ(t_tir(rqn2, td2, 0, MLX5_TIRC_DISP_TYPE_DIRECT, &tir2), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 7,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .tag = 0x22, .dmac = rmp2_dmac, .etype = 0x0800,
				   .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tir2 } } };

		CHECK_EQ(t_fte_set(&f), 0);
	}
	t_rmp_post(&r2, 0, 0, mr.key, bufs, 128);
	t_rmp_post(&r2, 1, 0, mr.key, bufs + 128, 128);
	rmp_send(rmp2_dmac, 66);
	rmp_send(rmp2_dmac, 67);
	oob = st->rx_out_of_buffer;
	rmp_send(rmp2_dmac, 68);
	CHECK_EQ(st->rx_out_of_buffer, oob + 1);
	t_rmp_post(&r2, 0, 0, mr.key, bufs + 256, 128);
	rmp_send(rmp2_dmac, 69);
	for (i = 0; i < 3; i++) {
		CHECK(t_poll(rcq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
		CHECK_EQ(be16toh(c.wqe_counter), i & 1);
		CHECK_EQ(be32toh(c.byte_cnt), i < 2 ? 66 + i : 69);
		CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, 0x22);
	}
	CHECK(!t_poll(rcq, &c));
	t_frame(txb, 69, rmp2_dmac, false, 4069);
	CHECK(memcmp(bufs + 256, txb, 69) == 0);

	/* A cyclic RMP with next segments (UCX's cyclic SRQ): the device
	 * takes slots in order and ignores next_wqe_index, which here says 0
	 * for both (a linked list would take slot 0 every time). The entry
	 * at index 7 now leads to it. */
	CHECK_EQ(t_rmp_create(&r3, 1, T_RMP_CYCLIC, 0, NULL), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_QUERY_RMP, 0, r3.rmpn, rmpc), 0);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, basic_cyclic_rcv_wqe), 0);
	CHECK_EQ(DEVX_GET(rmpc, rmpc, wq.wq_type), MLX5_WQ_TYPE_CYCLIC);
	CHECK_EQ(t_rq_on_rmp(&rqn3, rcq->cqn, MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP,
			     r3.rmpn), 0);
	CHECK_EQ(t_rq_modify(rqn3, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, -1),
		 0);
	CHECK_EQ(t_tir(rqn3, td2, 0, MLX5_TIRC_DISP_TYPE_DIRECT, &tir3), 0);
	CHECK_EQ(t_fte_del(ft0, 7), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 7,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .tag = 0x33, .dmac = rmp2_dmac, .etype = 0x0800,
				   .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tir3 } } };

		CHECK_EQ(t_fte_set(&f), 0);
	}
	t_rmp_post(&r3, 0, 0, mr.key, bufs, 128);
	t_rmp_post(&r3, 1, 0, mr.key, bufs + 128, 128);
	rmp_send(rmp2_dmac, 80);
	rmp_send(rmp2_dmac, 81);
	t_rmp_post(&r3, 0, 0, mr.key, bufs + 256, 128);
	rmp_send(rmp2_dmac, 82);
	for (i = 0; i < 3; i++) {
		CHECK(t_poll(rcq, &c));
		CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
		CHECK_EQ(be16toh(c.wqe_counter), i & 1);
		CHECK_EQ(be32toh(c.byte_cnt), 80 + i);
		CHECK_EQ(be32toh(c.sop_drop_qpn) & 0xffffff, 0x33);
	}
	CHECK(!t_poll(rcq, &c));
	t_frame(txb, 81, rmp2_dmac, false, 4081);
	CHECK(memcmp(bufs + 128, txb, 81) == 0);

	/* RQs that cannot be: no such RMP, an SRQ's number, a bad type. */
	srqn = t_srq_plain();
	CHECK(srqn != 0);
	CHECK_EQ(t_rq_on_rmp(&x, rcq->cqn, MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP,
			     0xfff0), MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_rq_on_rmp(&x, rcq->cqn, MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP,
			     srqn), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_rq_on_rmp(&x, rcq->cqn, 2, r.rmpn),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* RMP commands on an SRQ's number. */
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_QUERY_RMP, 0, srqn, NULL),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_rmp_modify(0, srqn, MLX5_RMPC_STATE_RDY,
			      MLX5_RMPC_STATE_ERR, 0, 0),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, srqn, NULL),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	{
		TMB(destroy_srq_in) = { 0 };
		TMB(mbox_out) = { 0 };

		DEVX_SET(destroy_srq_in, destroy_srq_in, opcode,
			 MLX5_CMD_OP_DESTROY_SRQ);
		DEVX_SET(destroy_srq_in, destroy_srq_in, srqn, srqn);
		CHECK_EQ(cmd(destroy_srq_in, sizeof(destroy_srq_in), mbox_out,
			     sizeof(mbox_out)), 0);
	}

	/* Hostile CREATE_RMP mailboxes. */
	{
		static const struct {
			void (*edit)(uint8_t *in);
			unsigned int st;
		} bad[] = {
			{ rmp_edit_state, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_type, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_cyclic_mismatch, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_small_stride, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_big_stride, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_huge, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_pd, MLX5_CMD_STAT_BAD_RES_ERR },
			{ rmp_edit_dbr, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_sig, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_lwm, MLX5_CMD_STAT_BAD_PARAM_ERR },
			{ rmp_edit_no_page, MLX5_CMD_STAT_BAD_PARAM_ERR },
		};
		struct t_rmp b;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECKM(t_rmp_create(&b, 2, T_RMP_LIST, 0, bad[i].edit) ==
			       bad[i].st, "bad CREATE_RMP #%u", i);
	}
	/* A mailbox cut short of the rmpc is refused by length. */
	{
		TMB(create_rmp_in) = { 0 };
		TMB(create_rmp_out) = { 0 };

		DEVX_SET(create_rmp_in, create_rmp_in, opcode,
			 MLX5_CMD_OP_CREATE_RMP);
		CHECK_EQ(cmd(create_rmp_in, 0x40, create_rmp_out,
			     sizeof(create_rmp_out)),
			 MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	}

	/* A user context's RMP: the uid's own to modify, query, destroy. */
	{
		TMB(create_uctx_in) = { 0 };
		TMB(general_obj_out_cmd_hdr) = { 0 };
		TMB(destroy_uctx_in) = { 0 };
		TMB(mbox_out) = { 0 };
		struct t_rmp u;
		uint16_t uid;

		DEVX_SET(create_uctx_in, create_uctx_in, opcode,
			 MLX5_CMD_OP_CREATE_UCTX);
		CHECK_EQ(cmd(create_uctx_in, sizeof(create_uctx_in),
			     general_obj_out_cmd_hdr,
			     sizeof(general_obj_out_cmd_hdr)), 0);
		uid = (uint16_t)DEVX_GET(general_obj_out_cmd_hdr,
					 general_obj_out_cmd_hdr, obj_id);
		CHECK_EQ(t_rmp_create(&u, 2, T_RMP_LIST, uid, NULL), 0);
		/* A uid with no context is refused; so is a uid acting on
		 * uid 0's RMP. */
		CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_QUERY_RMP, (uint16_t)(uid + 1),
				   u.rmpn, NULL), MLX5_CMD_STAT_BAD_PARAM_ERR);
		CHECK_EQ(t_rmp_modify(uid, r.rmpn, MLX5_RMPC_STATE_RDY,
				      MLX5_RMPC_STATE_ERR, 0, 0),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
		CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_DESTROY_RMP, uid, r.rmpn, NULL),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
		CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_QUERY_RMP, uid, u.rmpn, rmpc), 0);
		CHECK_EQ(DEVX_GET(rmpc, rmpc, state), MLX5_RMPC_STATE_RDY);
		CHECK_EQ(t_rmp_modify(uid, u.rmpn, MLX5_RMPC_STATE_RDY,
				      MLX5_RMPC_STATE_ERR, 0, 0), 0);
		CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_DESTROY_RMP, uid, u.rmpn, NULL),
			 0);
		DEVX_SET(destroy_uctx_in, destroy_uctx_in, opcode,
			 MLX5_CMD_OP_DESTROY_UCTX);
		DEVX_SET(destroy_uctx_in, destroy_uctx_in, uid, uid);
		CHECK_EQ(cmd(destroy_uctx_in, sizeof(destroy_uctx_in), mbox_out,
			     sizeof(mbox_out)), 0);
	}

	/* Teardown: the RMPs go once their RQs are gone. */
	CHECK_EQ(t_fte_del(ft0, 6), 0);
	CHECK_EQ(t_fte_del(ft0, 7), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tir1), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tir2), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tir3), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQ, rqn), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQ, rqn2), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQ, rqn3), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, r.rmpn, NULL), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, r2.rmpn, NULL), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, r3.rmpn, NULL), 0);
	CHECK_EQ(t_rmp_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, r.rmpn, NULL),
		 MLX5_CMD_STAT_BAD_RES_ERR);
}

static void test_errors(void)
{
	uint8_t *frame = txb, *got = rxb + 4096;
	struct mlx5_cqe64 c;
	uint16_t ctr;

	/* A gather entry with a key that does not exist: LOCAL_PROT_ERR, the
	 * SQ goes to ERR; a WQE posted after it is flushed. */
	t_frame(frame, 80, mc_dmac, false, 5678);
	ctr = (uint16_t)sq.pi;
	t_eth_wqe(&sq, frame, 80, 18, 0xdead00, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ_ERR);
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CHECK_EQ(be16toh(((struct mlx5_err_cqe *)&c)->wqe_counter), ctr);
	CHECK_EQ(t_obj_state(MLX5_CMD_OP_QUERY_SQ, sq.sqn, true),
		 MLX5_SQC_STATE_ERR);
	t_eth_wqe(&sq, frame, 80, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CHECK(!t_poll(rcq, &c));
	/* Wrong current state; then ERR -> RST -> RDY, counters restart. */
	CHECK_EQ(t_sq_modify(sq.sqn, MLX5_SQC_STATE_RDY, MLX5_SQC_STATE_RST),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	CHECK_EQ(t_sq_modify(sq.sqn, MLX5_SQC_STATE_ERR, MLX5_SQC_STATE_RDY),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	CHECK_EQ(t_sq_modify(sq.sqn, MLX5_SQC_STATE_ERR, MLX5_SQC_STATE_RST), 0);
	sq.pi = 0;
	sq.db[1] = 0;
	CHECK_EQ(t_sq_modify(sq.sqn, MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY), 0);
	t_rq_post(&rq, mr.key, got, 256);
	t_eth_wqe(&sq, frame, 80, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_REQ);
	CHECK_EQ(be16toh(c.wqe_counter), 0);
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);

	/* A TSO opcode: not supported, LOCAL_QP_OP_ERR. */
	{
		struct t_wqe w;
		uint64_t v;

		t_wqe_begin(&w, MLX5_OPCODE_TSO, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		t_wqe_ctrl(&w)->opmod_idx_opcode |= htobe32((sq.pi & 0xffff) << 8);
		t_wqe_ctrl(&w)->qpn_ds = htobe32(sq.sqn << 8 | 2);
		memcpy(sq.buf + (size_t)(sq.pi & (sq.cnt - 1)) * 64, w.b, 64);
		sq.pi++;
		sq.db[1] = htobe32(sq.pi & 0xffff);
		memcpy(&v, w.b, 8);
		smx_dev_mmio_write64(env.d, (uint64_t)env.uar * 4096 + 0x800, v);
		CHECK(t_poll(scq, &c));
		CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
		CHECK_EQ(t_sq_modify(sq.sqn, MLX5_SQC_STATE_ERR,
				     MLX5_SQC_STATE_RST), 0);
		sq.pi = 0;
		sq.db[1] = 0;
		CHECK_EQ(t_sq_modify(sq.sqn, MLX5_SQC_STATE_RST,
				     MLX5_SQC_STATE_RDY), 0);
	}

	/* A receive buffer too small: LOCAL_LENGTH_ERR, the RQ goes to ERR,
	 * a WQE posted while in ERR is flushed. */
	t_rq_post(&rq, mr.key, got, 32);
	t_eth_wqe(&sq, frame, 80, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_ERR);
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	CHECK_EQ(be32toh(((struct mlx5_err_cqe *)&c)->srqn) & 0xffffff, 0x5678);
	CHECK_EQ(t_obj_state(MLX5_CMD_OP_QUERY_RQ, rq.rqn, false),
		 MLX5_RQC_STATE_ERR);
	t_rq_post(&rq, mr.key, got, 256);
	eng_poll(smx_dev_eng(env.d));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_synd(&c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CHECK_EQ(t_rq_modify(rq.rqn, MLX5_RQC_STATE_ERR, MLX5_RQC_STATE_RST, -1),
		 0);
	rq.pi = 0;
	rq.db[0] = 0;
	CHECK_EQ(t_rq_modify(rq.rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, -1),
		 0);
	t_rq_post(&rq, mr.key, got, 256);
	t_eth_wqe(&sq, frame, 80, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	CHECK_EQ(t_cqe_op(&c), MLX5_CQE_RESP_SEND);
	CHECK_EQ(be16toh(c.wqe_counter), 0);
}

static void edit_linked_list(uint8_t *in)
{
	DEVX_SET(create_sq_in, in, ctx.wq.wq_type, MLX5_WQ_TYPE_LINKED_LIST);
}

static void edit_stride(uint8_t *in)
{
	DEVX_SET(create_sq_in, in, ctx.wq.log_wq_stride, 4);
}

static void edit_two_tis(uint8_t *in)
{
	DEVX_SET(create_sq_in, in, ctx.tis_lst_sz, 2);
}

static void edit_huge(uint8_t *in)
{
	DEVX_SET(create_sq_in, in, ctx.wq.log_wq_sz, 30);
}

static void edit_bad_dbr(uint8_t *in)
{
	DEVX_SET64(create_sq_in, in, ctx.wq.dbr_addr, 0x13);
}

/* ALLOC_MODIFY_HEADER_CONTEXT of @n actions, @room of them in the mailbox,
 * each @type / @field / length 16, for tables of @tt. */
static unsigned int t_mh(uint32_t tt, uint32_t n, uint32_t room, uint32_t type,
			 uint32_t field, uint32_t *id)
{
	size_t inlen = DEVX_ST_SZ_BYTES(alloc_modify_header_context_in) + 8 * room;
	uint8_t *in = calloc(1, inlen);
	TMB(alloc_modify_header_context_out) = { 0 };
	unsigned int st, i;

	DEVX_SET(alloc_modify_header_context_in, in, opcode,
		 MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT);
	DEVX_SET(alloc_modify_header_context_in, in, table_type, tt);
	DEVX_SET(alloc_modify_header_context_in, in, num_of_actions, n);
	for (i = 0; i < room; i++) {
		uint8_t *a = in + DEVX_ST_SZ_BYTES(alloc_modify_header_context_in) + 8 * i;

		DEVX_SET(set_action_in, a, action_type, type);
		DEVX_SET(set_action_in, a, field, field);
		DEVX_SET(set_action_in, a, length, 16);
		DEVX_SET(set_action_in, a, data, 0x1234);
	}
	st = cmd(in, inlen, alloc_modify_header_context_out,
		 sizeof(alloc_modify_header_context_out));
	*id = DEVX_GET(alloc_modify_header_context_out,
		       alloc_modify_header_context_out, modify_header_id);
	free(in);
	return st;
}

static unsigned int t_mh_free(uint32_t id)
{
	TMB(dealloc_modify_header_context_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(dealloc_modify_header_context_in, dealloc_modify_header_context_in,
		 opcode, MLX5_CMD_OP_DEALLOC_MODIFY_HEADER_CONTEXT);
	DEVX_SET(dealloc_modify_header_context_in, dealloc_modify_header_context_in,
		 modify_header_id, id);
	return cmd(dealloc_modify_header_context_in,
		   sizeof(dealloc_modify_header_context_in), mbox_out,
		   sizeof(mbox_out));
}

/* NIC TX tables, modify header contexts and entries: what the firmware
 * refuses, and what an entry in use holds. */
static void test_tx_mailboxes(void)
{
	const uint32_t bad = MLX5_CMD_STAT_BAD_PARAM_ERR;
	const uint32_t tx = MLX5_FLOW_TABLE_TYPE_NIC_TX;
	uint32_t txft = 0, txft1 = 0, txfg = 0, mh = 0, x;

	/* modify header contexts */
	CHECK_EQ(t_mh(MLX5_FLOW_TABLE_TYPE_NIC_RX, 1, 1, MLX5_ACTION_TYPE_SET,
		      MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0, &x), bad);
	CHECK_EQ(t_mh(tx, 0, 0, MLX5_ACTION_TYPE_SET,
		      MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0, &x), bad);
	CHECK_EQ(t_mh(tx, 33, 33, MLX5_ACTION_TYPE_SET,
		      MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0, &x), bad);
	CHECK_EQ(t_mh(tx, 2, 1, MLX5_ACTION_TYPE_SET,
		      MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0, &x),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	CHECK_EQ(t_mh(tx, 1, 1, MLX5_ACTION_TYPE_SET, 0x16, &x), bad);
	CHECK_EQ(t_mh(tx, 1, 1, MLX5_ACTION_TYPE_SET, 0xfff, &x), bad);
	CHECK_EQ(t_mh(tx, 1, 1, MLX5_ACTION_TYPE_COPY,
		      MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0, &x), bad);
	CHECK_EQ(t_mh(tx, 1, 1, 0xf, MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0, &x), bad);
	CHECK_EQ(t_mh_free(0x7777), MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_mh(tx, 1, 1, MLX5_ACTION_TYPE_ADD,
		      MLX5_ACTION_IN_FIELD_OUT_DMAC_47_16, &x), 0);
	CHECK_EQ(t_mh_free(x), 0);
	CHECK_EQ(t_mh(tx, 2, 2, MLX5_ACTION_TYPE_SET,
		      MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0, &mh), 0);

	/* an RX entry only pops; an RX root is not a TX table */
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 4, .mh = mh,
				   .action = MLX5_FLOW_CONTEXT_ACTION_DROP |
					     MLX5_FLOW_CONTEXT_ACTION_MOD_HDR };

		CHECK_EQ(t_fte_set(&f), bad);
		f.action = MLX5_FLOW_CONTEXT_ACTION_DROP |
			   MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH;
		f.push_vlan = 0x81000005;
		CHECK_EQ(t_fte_set(&f), bad);
	}
	CHECK_EQ(t_ft(tx, 0, 4, &txft), 0);
	CHECK_EQ(t_ft(tx, 1, 4, &txft1), 0);
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, 0, txft), bad);

	t_type = tx;
	CHECK_EQ(t_fg(txft, 0, 7, C_DMAC, &txfg), 0);
	{
		struct t_fte f = { .ft = txft, .fg = txfg, .index = 1,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tirn } } };

		/* no TIRs on transmit; one fate; a real context; a VLAN TPID */
		CHECK_EQ(t_fte_set(&f), bad);
		f.ndest = 0;
		f.action = MLX5_FLOW_CONTEXT_ACTION_ALLOW |
			   MLX5_FLOW_CONTEXT_ACTION_DROP;
		CHECK_EQ(t_fte_set(&f), bad);
		f.action = MLX5_FLOW_CONTEXT_ACTION_ALLOW |
			   MLX5_FLOW_CONTEXT_ACTION_MOD_HDR;
		f.mh = 0x7777;
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_RES_ERR);
		f.action = MLX5_FLOW_CONTEXT_ACTION_ALLOW |
			   MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH;
		f.push_vlan = 0x08000005;
		CHECK_EQ(t_fte_set(&f), bad);
		f.action = 0x200;	/* a rewrite this device does not do */
		CHECK_EQ(t_fte_set(&f), bad);
		/* forward to a deeper TX table, rewriting on the way */
		f.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
			   MLX5_FLOW_CONTEXT_ACTION_MOD_HDR |
			   MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH;
		f.mh = mh;
		f.push_vlan = 0x81000005;
		f.ndest = 1;
		f.dest[0].type = MLX5_FLOW_DESTINATION_TYPE_FLOW_TABLE;
		f.dest[0].id = ft0;	/* an RX table */
		CHECK_EQ(t_fte_set(&f), bad);
		f.dest[0].id = txft1;
		CHECK_EQ(t_fte_set(&f), 0);
	}
	/* in use: busy */
	CHECK_EQ(t_mh_free(mh), MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, txft1),
		 MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_fte_del(txft, 1), 0);
	CHECK_EQ(t_mh_free(mh), 0);
	CHECK_EQ(t_fg_del(txft, txfg), 0);
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, txft1), 0);
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, txft), 0);
	t_type = MLX5_FLOW_TABLE_TYPE_NIC_RX;
}

/* ALLOC_PACKET_REFORMAT_CONTEXT by @uid of @type saying @size header bytes,
 * @room of them in the mailbox (0x5a), reformat_param_0 @param. */
static unsigned int t_pr(uint16_t uid, uint32_t type, uint32_t size,
			 uint32_t room, uint32_t param, uint32_t *id)
{
	size_t at = DEVX_BYTE_OFF(alloc_packet_reformat_context_in,
				  packet_reformat_context.reformat_data);
	size_t inlen = at + room;
	uint8_t *in;
	TMB(alloc_packet_reformat_context_out) = { 0 };
	unsigned int st;

	if (inlen < DEVX_ST_SZ_BYTES(alloc_packet_reformat_context_in))
		inlen = DEVX_ST_SZ_BYTES(alloc_packet_reformat_context_in);
	in = calloc(1, inlen);
	DEVX_SET(alloc_packet_reformat_context_in, in, opcode,
		 MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT);
	DEVX_SET(alloc_packet_reformat_context_in, in, uid, uid);
	DEVX_SET(alloc_packet_reformat_context_in, in,
		 packet_reformat_context.reformat_type, type);
	DEVX_SET(alloc_packet_reformat_context_in, in,
		 packet_reformat_context.reformat_data_size, size);
	DEVX_SET(alloc_packet_reformat_context_in, in,
		 packet_reformat_context.reformat_param_0, param);
	memset(in + at, 0x5a, room);
	st = cmd(in, inlen, alloc_packet_reformat_context_out,
		 sizeof(alloc_packet_reformat_context_out));
	*id = DEVX_GET(alloc_packet_reformat_context_out,
		       alloc_packet_reformat_context_out, packet_reformat_id);
	free(in);
	return st;
}

static unsigned int t_pr_free(uint16_t uid, uint32_t id)
{
	TMB(dealloc_packet_reformat_context_in) = { 0 };
	TMB(mbox_out) = { 0 };

	DEVX_SET(dealloc_packet_reformat_context_in,
		 dealloc_packet_reformat_context_in, opcode,
		 MLX5_CMD_OP_DEALLOC_PACKET_REFORMAT_CONTEXT);
	DEVX_SET(dealloc_packet_reformat_context_in,
		 dealloc_packet_reformat_context_in, uid, uid);
	DEVX_SET(dealloc_packet_reformat_context_in,
		 dealloc_packet_reformat_context_in, packet_reformat_id, id);
	return cmd(dealloc_packet_reformat_context_in,
		   sizeof(dealloc_packet_reformat_context_in), mbox_out,
		   sizeof(mbox_out));
}

/* A flow table of @type with reformat_en / decap_en; destroyed if made. */
static unsigned int t_ft_tunnel(uint32_t type, bool reformat_en, bool decap_en)
{
	TMB(create_flow_table_in) = { 0 };
	TMB(create_flow_table_out) = { 0 };
	unsigned int st;

	DEVX_SET(create_flow_table_in, create_flow_table_in, opcode,
		 MLX5_CMD_OP_CREATE_FLOW_TABLE);
	DEVX_SET(create_flow_table_in, create_flow_table_in, table_type, type);
	DEVX_SET(create_flow_table_in, create_flow_table_in,
		 flow_table_context.level, 1);
	DEVX_SET(create_flow_table_in, create_flow_table_in,
		 flow_table_context.log_size, 2);
	DEVX_SET(create_flow_table_in, create_flow_table_in,
		 flow_table_context.reformat_en, reformat_en);
	DEVX_SET(create_flow_table_in, create_flow_table_in,
		 flow_table_context.decap_en, decap_en);
	st = cmd(create_flow_table_in, sizeof(create_flow_table_in),
		 create_flow_table_out, sizeof(create_flow_table_out));
	if (!st) {
		uint32_t saved = t_type;

		t_type = type;
		CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0,
				  DEVX_GET(create_flow_table_out,
					   create_flow_table_out, table_id)), 0);
		t_type = saved;
	}
	return st;
}

/* CREATE_UCTX (@destroy 0) or DESTROY_UCTX of @destroy; the uid or status. */
static uint32_t t_uctx_cmd(uint16_t destroy)
{
	TMB(create_uctx_in) = { 0 };
	TMB(destroy_uctx_in) = { 0 };
	TMB(general_obj_out_cmd_hdr) = { 0 };

	if (destroy) {
		DEVX_SET(destroy_uctx_in, destroy_uctx_in, opcode,
			 MLX5_CMD_OP_DESTROY_UCTX);
		DEVX_SET(destroy_uctx_in, destroy_uctx_in, uid, destroy);
		return cmd(destroy_uctx_in, sizeof(destroy_uctx_in),
			   general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr));
	}
	DEVX_SET(create_uctx_in, create_uctx_in, opcode, MLX5_CMD_OP_CREATE_UCTX);
	if (cmd(create_uctx_in, sizeof(create_uctx_in), general_obj_out_cmd_hdr,
		sizeof(general_obj_out_cmd_hdr)))
		return 0;
	return DEVX_GET(general_obj_out_cmd_hdr, general_obj_out_cmd_hdr, obj_id);
}

/* Packet reformat contexts and the entries that name them. */
static void test_reformat_mailboxes(void)
{
	const uint32_t bad = MLX5_CMD_STAT_BAD_PARAM_ERR;
	const uint32_t l2 = MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL;
	const uint32_t tx = MLX5_FLOW_TABLE_TYPE_NIC_TX;
	uint32_t pr = 0, x = 0, txft = 0, txfg = 0;
	uint16_t uid, uid2;

	/* types other than L2_TO_L2_TUNNEL, sizes, parameters, short mailboxes */
	CHECK_EQ(t_pr(0, MLX5_REFORMAT_TYPE_L2_TO_VXLAN, 50, 50, 0, &x), bad);
	CHECK_EQ(t_pr(0, MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2, 50, 50, 0, &x), bad);
	CHECK_EQ(t_pr(0, MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL, 50, 50, 0, &x), bad);
	CHECK_EQ(t_pr(0, 0xff, 50, 50, 0, &x), bad);
	CHECK_EQ(t_pr(0, l2, 0, 0, 0, &x), bad);
	CHECK_EQ(t_pr(0, l2, 13, 13, 0, &x), bad);
	CHECK_EQ(t_pr(0, l2, 129, 129, 0, &x), bad);	/* max_encap_header_size */
	CHECK_EQ(t_pr(0, l2, 0x3ff, 0x3ff, 0, &x), bad);
	CHECK_EQ(t_pr(0, l2, 50, 49, 0, &x), MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	CHECK_EQ(t_pr(0, l2, 128, 2, 0, &x), MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	CHECK_EQ(t_pr(0, l2, 50, 50, 3, &x), bad);
	CHECK_EQ(t_pr_free(0, 0), MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_pr_free(0, 0x7777), MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_pr(0, l2, 14, 14, 0, &x), 0);
	CHECK_EQ(t_pr_free(0, x), 0);
	CHECK_EQ(t_pr_free(0, x), MLX5_CMD_STAT_BAD_RES_ERR);	/* twice */
	CHECK_EQ(t_pr(0, l2, 128, 128, 0, &x), 0);
	CHECK_EQ(t_pr_free(0, x), 0);

	/* uids: a context without a user context is refused; a user
	 * context's reformat is its own (and the privileged function's) */
	uid = (uint16_t)t_uctx_cmd(0);
	uid2 = (uint16_t)t_uctx_cmd(0);
	CHECK(uid && uid2);
	CHECK_EQ(t_pr((uint16_t)(uid2 + 7), l2, 50, 50, 0, &x), bad);
	CHECK_EQ(t_pr(uid, l2, 50, 50, 0, &x), 0);
	CHECK_EQ(t_pr_free(uid2, x), bad);
	CHECK_EQ(t_pr_free(uid, x), 0);
	CHECK_EQ(t_uctx_cmd(uid), 0);
	CHECK_EQ(t_uctx_cmd(uid2), 0);

	/* entries: reformat on NIC TX, decap on NIC RX, nothing else */
	CHECK_EQ(t_pr(0, l2, 50, 50, 0, &pr), 0);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 4, .pr = pr,
				   .action = MLX5_FLOW_CONTEXT_ACTION_DROP |
					     MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT };

		CHECK_EQ(t_fte_set(&f), bad);
	}
	CHECK_EQ(t_ft(tx, 0, 4, &txft), 0);
	t_type = tx;
	CHECK_EQ(t_fg(txft, 0, 7, C_DMAC, &txfg), 0);
	{
		struct t_fte f = { .ft = txft, .fg = txfg, .index = 1,
				   .action = MLX5_FLOW_CONTEXT_ACTION_ALLOW |
					     MLX5_FLOW_CONTEXT_ACTION_DECAP };

		CHECK_EQ(t_fte_set(&f), bad);
		f.action = MLX5_FLOW_CONTEXT_ACTION_ALLOW |
			   MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT;
		f.pr = 0x7777;
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_RES_ERR);
		f.pr = pr;
		CHECK_EQ(t_fte_set(&f), 0);
	}
	/* named by an entry: busy until the entry goes */
	CHECK_EQ(t_pr_free(0, pr), MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_fte_del(txft, 1), 0);
	CHECK_EQ(t_pr_free(0, pr), 0);
	CHECK_EQ(t_fg_del(txft, txfg), 0);
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, txft), 0);
	t_type = MLX5_FLOW_TABLE_TYPE_NIC_RX;

	/* tables: reformat_en on transmit, decap_en on receive */
	CHECK_EQ(t_ft_tunnel(tx, true, false), 0);
	CHECK_EQ(t_ft_tunnel(tx, false, true), bad);
	CHECK_EQ(t_ft_tunnel(MLX5_FLOW_TABLE_TYPE_NIC_RX, false, true), 0);
	CHECK_EQ(t_ft_tunnel(MLX5_FLOW_TABLE_TYPE_NIC_RX, true, false), bad);
}

static void test_bad_mailboxes(void)
{
	struct t_sq bad;
	struct t_rq badrq;
	uint32_t x, fgx, uid;

	CHECK_EQ(t_sq_create(&bad, scq->cqn, tisn, 4, edit_linked_list),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_sq_create(&bad, scq->cqn, tisn, 4, edit_stride),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_sq_create(&bad, scq->cqn, tisn, 4, edit_two_tis),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_sq_create(&bad, scq->cqn, tisn, 4, edit_bad_dbr),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_sq_create(&bad, 0xabcdef, tisn, 4, NULL),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_sq_create(&bad, scq->cqn, 0x7777, 4, NULL),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_sq_create(&bad, scq->cqn, tisn, 4, edit_huge),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_rq_create(&badrq, 0xabcdef, 4, true), MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_tis(0, 0x9999, &x), MLX5_CMD_STAT_BAD_RES_ERR);
	/* an indirect TIR naming no RQ table; a dispatch type that is none */
	CHECK_EQ(t_tir(rq.rqn, td, 0, MLX5_TIRC_DISP_TYPE_INDIRECT, &x),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_tir(rq.rqn, td, 0, 2, &x), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_tir(0x123456, td, 0, MLX5_TIRC_DISP_TYPE_DIRECT, &x),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_ft(MLX5_FLOW_TABLE_TYPE_FDB, 0, 4, &x),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_ft(MLX5_FLOW_TABLE_TYPE_NIC_RX, 0, 30, &x),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_fg(ft0, 4, 9, C_DMAC, &fgx), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_fg(ft0, 8, 20, C_DMAC, &fgx), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_fg(ft0, 8, 9, C_DMAC | C_MISC, &fgx),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_fg(0x4242, 8, 9, C_DMAC, &fgx), MLX5_CMD_STAT_BAD_RES_ERR);
	{
		struct t_fte f = { .ft = ft0, .fg = fg0, .index = 9,
				   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				   .ndest = 1,
				   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tirn } } };

		/* Outside its group, taken, cut short, no destination,
		 * an unknown destination type, a missing TIR. */
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_PARAM_ERR);
		f.index = 3;
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_PARAM_ERR);
		f.index = 4;
		f.cut = 8;
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_INP_LEN_ERR);
		f.cut = 0;
		f.ndest = 0;
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_PARAM_ERR);
		f.ndest = 1;
		f.dest[0].type = MLX5_FLOW_DESTINATION_TYPE_VPORT;
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_PARAM_ERR);
		f.dest[0].type = MLX5_FLOW_DESTINATION_TYPE_TIR;
		f.dest[0].id = 0x31337;
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_RES_ERR);
		f.action |= 0x8;	/* COUNT */
		CHECK_EQ(t_fte_set(&f), MLX5_CMD_STAT_BAD_PARAM_ERR);
	}
	/* In use: busy. */
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQ, rq.rqn), MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tirn), MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIS, tisn), MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_fg_del(ft0, fg0), MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, ft0),
		 MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_SQ, 0x400abc),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	/* A user context: no root for it, and no TIS without RAW_TX. */
	{
		TMB(create_uctx_in) = { 0 };
		TMB(general_obj_out_cmd_hdr) = { 0 };
		TMB(set_flow_table_root_in) = { 0 };
		TMB(mbox_out) = { 0 };

		DEVX_SET(create_uctx_in, create_uctx_in, opcode,
			 MLX5_CMD_OP_CREATE_UCTX);
		CHECK_EQ(cmd(create_uctx_in, sizeof(create_uctx_in),
			     general_obj_out_cmd_hdr,
			     sizeof(general_obj_out_cmd_hdr)), 0);
		uid = DEVX_GET(general_obj_out_cmd_hdr, general_obj_out_cmd_hdr,
			       obj_id);
		CHECK_EQ(t_tis((uint16_t)uid, td, &x), MLX5_CMD_STAT_BAD_PARAM_ERR);
		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in, opcode,
			 MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in, uid, uid);
		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in, table_id,
			 ft0);
		CHECK_EQ(cmd(set_flow_table_root_in, sizeof(set_flow_table_root_in),
			     mbox_out, sizeof(mbox_out)),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
		/* Someone else's SQ is not the uid's to query. */
		{
			TMB(eth_obj_cmd_in) = { 0 };
			TMB(query_sq_out) = { 0 };

			DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, opcode,
				 MLX5_CMD_OP_QUERY_SQ);
			DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, uid, uid);
			DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, obj_num, sq.sqn);
			CHECK_EQ(cmd(eth_obj_cmd_in, sizeof(eth_obj_cmd_in),
				     query_sq_out, sizeof(query_sq_out)),
				 MLX5_CMD_STAT_BAD_PARAM_ERR);
		}
		{
			TMB(destroy_uctx_in) = { 0 };

			DEVX_SET(destroy_uctx_in, destroy_uctx_in, opcode,
				 MLX5_CMD_OP_DESTROY_UCTX);
			DEVX_SET(destroy_uctx_in, destroy_uctx_in, uid, uid);
			CHECK_EQ(cmd(destroy_uctx_in, sizeof(destroy_uctx_in),
				     mbox_out, sizeof(mbox_out)), 0);
		}
	}
}

/* ---- RSS: RQ tables and indirect TIRs ------------------------------------- */

/* CREATE_RQT (or MODIFY_RQT of @rqtn) with @n of @rqn, room for @max;
 * @cut bytes short of the list. */
static unsigned int t_rqt(bool modify, uint32_t rqtn, uint32_t max, uint32_t n,
			  const uint32_t *rqn, size_t cut, uint32_t *out_rqtn)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_rqt_in) + 4 * (size_t)n - cut;
	uint8_t *in = calloc(1, DEVX_ST_SZ_BYTES(create_rqt_in) + 4 * (size_t)n);
	TMB(create_rqt_out) = { 0 };
	uint8_t *rqtc;
	unsigned int st;
	uint32_t i;

	if (modify) {
		DEVX_SET(modify_rqt_in, in, opcode, MLX5_CMD_OP_MODIFY_RQT);
		DEVX_SET(modify_rqt_in, in, rqtn, rqtn);
		DEVX_SET(modify_rqt_in, in, rqn_list, 1);
		rqtc = DEVX_ADDR_OF(modify_rqt_in, in, rqt_context);
	} else {
		DEVX_SET(create_rqt_in, in, opcode, MLX5_CMD_OP_CREATE_RQT);
		rqtc = DEVX_ADDR_OF(create_rqt_in, in, rqt_context);
	}
	DEVX_SET(rqtc, rqtc, rqt_max_size, max);
	DEVX_SET(rqtc, rqtc, rqt_actual_size, n);
	for (i = 0; i < n; i++)
		DEVX_SET(rq_num, rqtc + DEVX_ST_SZ_BYTES(rqtc) + 4 * i, rq_num, rqn[i]);
	st = cmd(in, inlen, create_rqt_out, sizeof(create_rqt_out));
	if (out_rqtn)
		*out_rqtn = DEVX_GET(create_rqt_out, create_rqt_out, rqtn);
	free(in);
	return st;
}

/* Microsoft's RSS verification key and IPv4 vectors ("Verifying the RSS
 * hash calculation"): addresses, ports, hash of IPs only, of IPs + TCP. */
static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};
static const struct {
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
	uint32_t h_ip, h_tcp;
} ms_vec[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
};

static const uint8_t rss_dmac[6] = { 0x02, 0x52, 0x53, 0x53, 0x00, 0x01 };

/* Ethernet | IPv4 | TCP (20-byte header, 10 payload bytes): 64 bytes. */
static size_t t_tcp_frame(uint8_t *f, unsigned int v)
{
	memset(f, 0, 64);
	memcpy(f, rss_dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[17] = 50;		/* total length 20 + 20 + 10 */
	f[22] = 64;
	f[23] = 6;		/* TCP */
	memcpy(f + 26, ms_vec[v].src, 4);
	memcpy(f + 30, ms_vec[v].dst, 4);
	f[34] = (uint8_t)(ms_vec[v].sport >> 8);
	f[35] = (uint8_t)ms_vec[v].sport;
	f[36] = (uint8_t)(ms_vec[v].dport >> 8);
	f[37] = (uint8_t)ms_vec[v].dport;
	f[46] = 0x50;		/* data offset 5 */
	return 64;
}

static unsigned int t_rss_tir(uint32_t rqtn, uint32_t fields, uint32_t l4, uint32_t fn,
			      uint32_t *tirn_out)
{
	TMB(create_tir_in) = { 0 };
	TMB(create_tir_out) = { 0 };
	void *ctx = DEVX_ADDR_OF(create_tir_in, create_tir_in, ctx);
	void *sel = DEVX_ADDR_OF(tirc, ctx, rx_hash_field_selector_outer);
	unsigned int st;

	DEVX_SET(create_tir_in, create_tir_in, opcode, MLX5_CMD_OP_CREATE_TIR);
	DEVX_SET(tirc, ctx, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	DEVX_SET(tirc, ctx, indirect_table, rqtn);
	DEVX_SET(tirc, ctx, transport_domain, td2);
	DEVX_SET(tirc, ctx, rx_hash_fn, fn);
	memcpy(DEVX_ADDR_OF(tirc, ctx, rx_hash_toeplitz_key), ms_key, 40);
	DEVX_SET(rx_hash_field_select, sel, l3_prot_type, MLX5_L3_PROT_TYPE_IPV4);
	DEVX_SET(rx_hash_field_select, sel, l4_prot_type, l4);
	DEVX_SET(rx_hash_field_select, sel, selected_fields, fields);
	st = cmd(create_tir_in, sizeof(create_tir_in), create_tir_out,
		 sizeof(create_tir_out));
	*tirn_out = DEVX_GET(create_tir_out, create_tir_out, tirn);
	return st;
}

/* Sends Microsoft vector @v through @tir; returns which of the 4 RQs got it
 * (-1: none) and checks the CQE's hash result and type. */
static int t_rss_send(struct t_rq *rqs, uint32_t tir, unsigned int v, uint32_t want_hash,
		      uint8_t want_type)
{
	struct t_fte f = { .ft = ft0, .fg = fg0, .index = 7,
			   .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, .dmac = rss_dmac,
			   .etype = 0x0800, .ndest = 1,
			   .dest = { { MLX5_FLOW_DESTINATION_TYPE_TIR, tir } } };
	uint8_t *frame = txb, *got = rxb;
	struct mlx5_cqe64 c;
	uint32_t h;
	int i, hit = -1;

	CHECK_EQ(t_fte_set(&f), 0);
	memset(got, 0, 4 * 128);
	for (i = 0; i < 4; i++)
		t_rq_post(&rqs[i], mr.key, got + 128 * i, 128);
	t_tcp_frame(frame, v);
	t_eth_wqe(&sq, frame, 64, 18, mr.key, 0, true);
	CHECK(t_poll(scq, &c));
	CHECK(t_poll(rcq, &c));
	memcpy(&h, (uint8_t *)&c + 12, 4);
	CHECKM(be32toh(h) == want_hash && ((uint8_t *)&c)[16] == want_type,
	       "vector %u: hash 0x%08x type 0x%x, want 0x%08x 0x%x", v, be32toh(h),
	       ((uint8_t *)&c)[16], want_hash, want_type);
	for (i = 0; i < 4; i++)
		if (!memcmp(got + 128 * i, frame, 64))
			hit = hit < 0 ? i : 99;
	CHECK_EQ(t_fte_del(ft0, 7), 0);
	/* the 3 unused receives: moved to RST and back, they are dropped */
	for (i = 0; i < 4; i++) {
		CHECK_EQ(t_rq_modify(rqs[i].rqn, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_RST, -1), 0);
		CHECK_EQ(t_rq_modify(rqs[i].rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, -1), 0);
		rqs[i].pi = 0;
	}
	return hit;
}

static void test_rss(void)
{
	struct t_rq rqs[4];
	uint32_t rqn[4], rqtn, rqtx, tir_tcp, tir_ip, x, v;
	TMB(eth_obj_cmd_in) = { 0 };
	uint8_t q[DEVX_ST_SZ_BYTES(query_rqt_out) + 16] = { 0 };
	int i;

	for (i = 0; i < 4; i++) {
		CHECK_EQ(t_rq_create(&rqs[i], rcq->cqn, 2, true), 0);
		CHECK_EQ(t_rq_modify(rqs[i].rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, -1), 0);
		rqn[i] = rqs[i].rqn;
	}
	CHECK_EQ(t_rqt(false, 0, 4, 4, rqn, 0, &rqtn), 0);
	/* QUERY_RQT gives the list back */
	DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, opcode, MLX5_CMD_OP_QUERY_RQT);
	DEVX_SET(eth_obj_cmd_in, eth_obj_cmd_in, obj_num, rqtn);
	CHECK_EQ(cmd(eth_obj_cmd_in, sizeof(eth_obj_cmd_in), q, sizeof(q)), 0);
	{
		uint8_t *ctx = DEVX_ADDR_OF(query_rqt_out, q, rqt_context);

		CHECK_EQ(DEVX_GET(rqtc, ctx, rqt_max_size), 4);
		CHECK_EQ(DEVX_GET(rqtc, ctx, rqt_actual_size), 4);
		CHECK_EQ(DEVX_GET(rq_num, ctx + DEVX_ST_SZ_BYTES(rqtc) + 12, rq_num), rqn[3]);
	}
	CHECK_EQ(t_rss_tir(rqtn, MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP |
				 MLX5_HASH_FIELD_SEL_L4_SPORT | MLX5_HASH_FIELD_SEL_L4_DPORT,
			   MLX5_L4_PROT_TYPE_TCP, MLX5_RX_HASH_FN_TOEPLITZ, &tir_tcp), 0);
	CHECK_EQ(t_rss_tir(rqtn, MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP,
			   MLX5_L4_PROT_TYPE_TCP, MLX5_RX_HASH_FN_TOEPLITZ, &tir_ip), 0);
	/* every vector's hash, written in the CQE, picks RQ hash % 4 */
	for (v = 0; v < 3; v++) {
		CHECK_EQ(t_rss_send(rqs, tir_tcp, v, ms_vec[v].h_tcp, 0x44),
			 (int)(ms_vec[v].h_tcp % 4));
		CHECK_EQ(t_rss_send(rqs, tir_ip, v, ms_vec[v].h_ip, 0x04),
			 (int)(ms_vec[v].h_ip % 4));
	}
	/* MODIFY_RQT: one RQ left, everything goes there */
	CHECK_EQ(t_rqt(true, rqtn, 4, 1, &rqn[2], 0, NULL), 0);
	CHECK_EQ(t_rss_send(rqs, tir_tcp, 0, ms_vec[0].h_tcp, 0x44), 2);

	/* bad mailboxes */
	CHECK_EQ(t_rqt(false, 0, 2, 3, rqn, 0, &x), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_rqt(false, 0, 4096, 1, rqn, 0, &x), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_rqt(false, 0, 4, 4, rqn, 8, &x), MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	{
		uint32_t bad[2] = { rqn[0], 0x123456 };

		CHECK_EQ(t_rqt(false, 0, 2, 2, bad, 0, &x), MLX5_CMD_STAT_BAD_RES_ERR);
	}
	{
		uint32_t five[5] = { rqn[0], rqn[1], rqn[2], rqn[3], rqn[0] };

		CHECK_EQ(t_rqt(true, rqtn, 4, 5, five, 0, NULL), MLX5_CMD_STAT_BAD_PARAM_ERR);
	}
	CHECK_EQ(t_rss_tir(rqtn, 0x10, MLX5_L4_PROT_TYPE_TCP, MLX5_RX_HASH_FN_TOEPLITZ, &x),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);		/* IPsec SPI */
	CHECK_EQ(t_rss_tir(rqtn, MLX5_HASH_FIELD_SEL_SRC_IP, MLX5_L4_PROT_TYPE_TCP,
			   MLX5_RX_HASH_FN_INVERTED_XOR8, &x), MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* in use: the table by its TIRs, each RQ by the table */
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQT, rqtn), MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQ, rqn[2]), MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_rqt(false, 0, 1, 1, &rqn[0], 0, &rqtx), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQT, rqtx), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tir_tcp), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tir_ip), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQT, rqtn), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQ, rqn[i]), 0);
}

static void test_teardown(void)
{
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, 1, 0), 0);
	CHECK_EQ(t_fte_del(ft0, 3), 0);
	CHECK_EQ(t_fg_del(ft0, fg0), 0);
	CHECK_EQ(t_ft_cmd(MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, ft0), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIR, tirn), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_RQ, rq.rqn), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_SQ, sq.sqn), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_TIS, tisn), 0);
	CHECK_EQ(t_destroy(MLX5_CMD_OP_DESTROY_SQ, sq.sqn),
		 MLX5_CMD_STAT_BAD_RES_ERR);
}

int main(void)
{
	t_env_open(&env);
	test_setup();
	test_traffic();
	test_vlan_strip();
	test_steering();
	test_counters();
	test_rmp();
	test_errors();
	test_bad_mailboxes();
	test_tx_mailboxes();
	test_reformat_mailboxes();
	test_rss();
	test_teardown();
	smx_dev_close(env.d);
	t_free_all();
	return smx_test_done();
}
