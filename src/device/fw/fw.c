/* SPDX-License-Identifier: MIT */
/*
 * Firmware core: the command table (the single source of truth for dispatch,
 * names and mailbox length checks), the dispatcher, handle tables, ownership
 * (uid) rules and queue-buffer resolution shared by the object files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "device/fw/fw_loc.h"
#include "device/trace.h"
#include "util/log.h"

#define ST_BYTES(typ) ((uint32_t)DEVX_ST_SZ_BYTES(typ))
#define CMD(op, nm, in_typ, out_typ, fn)                                       \
	{ MLX5_CMD_OP_##op, nm, ST_BYTES(in_typ), ST_BYTES(out_typ), fn }

/* Sorted by opcode (checked at fw_create). */
static const struct fw_cmd_desc fw_cmd_table[] = {
	{ MLX5_CMD_OP_QUERY_HCA_CAP, "QUERY_HCA_CAP", ST_BYTES(query_hca_cap_in), 0x810, fw_caps_query_hca_cap }, /* out: header + at least 2 KiB of the page (pyverbs reads 0x810), truncated */
	CMD(QUERY_ADAPTER, "QUERY_ADAPTER", query_adapter_in, query_adapter_out, fw_caps_query_adapter),
	CMD(CREATE_MKEY, "CREATE_MKEY", create_mkey_in, create_mkey_out, fw_mkey_create),
	CMD(QUERY_MKEY, "QUERY_MKEY", query_mkey_in, query_mkey_out, fw_mkey_query),
	CMD(DESTROY_MKEY, "DESTROY_MKEY", destroy_mkey_in, mbox_out, fw_mkey_destroy),
	CMD(ALLOC_MEMIC, "ALLOC_MEMIC", alloc_memic_in, alloc_memic_out, fw_memic_alloc),
	CMD(DEALLOC_MEMIC, "DEALLOC_MEMIC", dealloc_memic_in, mbox_out, fw_memic_dealloc),
	CMD(CREATE_EQ, "CREATE_EQ", create_eq_in, create_eq_out, fw_eq_create),
	CMD(DESTROY_EQ, "DESTROY_EQ", destroy_eq_in, mbox_out, fw_eq_destroy),
	CMD(QUERY_EQ, "QUERY_EQ", query_eq_in, query_eq_out, fw_eq_query),
	CMD(CREATE_CQ, "CREATE_CQ", create_cq_in, create_cq_out, fw_cq_create),
	CMD(DESTROY_CQ, "DESTROY_CQ", destroy_cq_in, mbox_out, fw_cq_destroy),
	CMD(QUERY_CQ, "QUERY_CQ", query_cq_in, query_cq_out, fw_cq_query),
	CMD(MODIFY_CQ, "MODIFY_CQ", modify_cq_in, mbox_out, fw_cq_modify),
	CMD(CREATE_QP, "CREATE_QP", create_qp_in, create_qp_out, fw_qp_create),
	CMD(DESTROY_QP, "DESTROY_QP", destroy_qp_in, mbox_out, fw_qp_destroy),
	CMD(RST2INIT_QP, "RST2INIT_QP", rst2init_qp_in, rst2init_qp_out, fw_qp_rst2init),
	CMD(INIT2RTR_QP, "INIT2RTR_QP", init2rtr_qp_in, init2rtr_qp_out, fw_qp_init2rtr),
	CMD(RTR2RTS_QP, "RTR2RTS_QP", rtr2rts_qp_in, rtr2rts_qp_out, fw_qp_rtr2rts),
	CMD(RTS2RTS_QP, "RTS2RTS_QP", rts2rts_qp_in, rts2rts_qp_out, fw_qp_rts2rts),
	CMD(SQERR2RTS_QP, "SQERR2RTS_QP", sqerr2rts_qp_in, sqerr2rts_qp_out, fw_qp_sqerr2rts),
	CMD(2ERR_QP, "2ERR_QP", qp_2err_in, qp_2err_out, fw_qp_2err),
	CMD(RTS2SQD_QP, "RTS2SQD_QP", rts2sqd_qp_in, rts2sqd_qp_out, fw_qp_rts2sqd),
	CMD(SQD2RTS_QP, "SQD2RTS_QP", sqd2rts_qp_in, sqd2rts_qp_out, fw_qp_sqd2rts),
	CMD(2RST_QP, "2RST_QP", qp_2rst_in, qp_2rst_out, fw_qp_2rst),
	CMD(QUERY_QP, "QUERY_QP", query_qp_in, query_qp_out, fw_qp_query),
	CMD(SQD_RTS_QP, "SQD_RTS_QP", sqd2rts_qp_in, sqd2rts_qp_out, fw_qp_sqd2rts),
	CMD(INIT2INIT_QP, "INIT2INIT_QP", init2init_qp_in, init2init_qp_out, fw_qp_init2init),
	CMD(SQD2SQD_QP, "SQD2SQD_QP", sqd2sqd_qp_in, sqd2sqd_qp_out, fw_qp_sqd2sqd),
	CMD(CREATE_PSV, "CREATE_PSV", create_psv_in, create_psv_out, fw_psv_create),
	CMD(DESTROY_PSV, "DESTROY_PSV", destroy_psv_in, mbox_out, fw_psv_destroy),
	CMD(CREATE_SRQ, "CREATE_SRQ", create_srq_in, create_srq_out, fw_srq_create),
	CMD(DESTROY_SRQ, "DESTROY_SRQ", destroy_srq_in, mbox_out, fw_srq_destroy),
	CMD(QUERY_SRQ, "QUERY_SRQ", query_srq_in, query_srq_out, fw_srq_query),
	CMD(ARM_RQ, "ARM_RQ", arm_rq_in, mbox_out, fw_srq_arm),
	CMD(CREATE_XRC_SRQ, "CREATE_XRC_SRQ", create_xrc_srq_in, create_xrc_srq_out, fw_xrc_srq_create),
	CMD(DESTROY_XRC_SRQ, "DESTROY_XRC_SRQ", destroy_xrc_srq_in, mbox_out, fw_xrc_srq_destroy),
	CMD(QUERY_XRC_SRQ, "QUERY_XRC_SRQ", query_xrc_srq_in, query_xrc_srq_out, fw_xrc_srq_query),
	CMD(ARM_XRC_SRQ, "ARM_XRC_SRQ", arm_xrc_srq_in, mbox_out, fw_xrc_srq_arm),
	CMD(CREATE_DCT, "CREATE_DCT", create_dct_in, create_dct_out, fw_dct_create),
	CMD(DESTROY_DCT, "DESTROY_DCT", dct_cmd_in, mbox_out, fw_dct_destroy),
	CMD(DRAIN_DCT, "DRAIN_DCT", dct_cmd_in, mbox_out, fw_dct_drain),
	CMD(QUERY_DCT, "QUERY_DCT", dct_cmd_in, query_dct_out, fw_dct_query),
	CMD(ARM_DCT_FOR_KEY_VIOLATION, "ARM_DCT_FOR_KEY_VIOLATION", dct_cmd_in, mbox_out, fw_dct_arm),
	CMD(QUERY_VPORT_STATE, "QUERY_VPORT_STATE", query_vport_state_in, query_vport_state_out, fw_vport_query_vport_state),
	CMD(QUERY_NIC_VPORT_CONTEXT, "QUERY_NIC_VPORT_CONTEXT", query_nic_vport_context_in, query_nic_vport_context_out, fw_vport_query_nic_vport_context),
	CMD(QUERY_ROCE_ADDRESS, "QUERY_ROCE_ADDRESS", query_roce_address_in, query_roce_address_out, fw_vport_query_roce_address),
	CMD(QUERY_HCA_VPORT_CONTEXT, "QUERY_HCA_VPORT_CONTEXT", query_hca_vport_context_in, query_hca_vport_context_out, fw_vport_query_hca_vport_context),
	CMD(QUERY_HCA_VPORT_GID, "QUERY_HCA_VPORT_GID", query_hca_vport_gid_in, query_hca_vport_gid_out, fw_vport_query_hca_vport_gid),
	CMD(QUERY_HCA_VPORT_PKEY, "QUERY_HCA_VPORT_PKEY", query_hca_vport_pkey_in, query_hca_vport_pkey_out, fw_vport_query_hca_vport_pkey),
	CMD(SET_PP_RATE_LIMIT, "SET_PP_RATE_LIMIT", set_pp_rate_limit_in, mbox_out, fw_rl_set),
	CMD(ALLOC_PD, "ALLOC_PD", alloc_pd_in, alloc_pd_out, fw_pd_alloc),
	CMD(DEALLOC_PD, "DEALLOC_PD", dealloc_pd_in, mbox_out, fw_pd_dealloc),
	CMD(ALLOC_UAR, "ALLOC_UAR", alloc_uar_in, alloc_uar_out, fw_uar_alloc),
	CMD(DEALLOC_UAR, "DEALLOC_UAR", dealloc_uar_in, mbox_out, fw_uar_dealloc),
	CMD(NOP, "NOP", mbox_in, mbox_out, fw_caps_nop),
	CMD(ALLOC_XRCD, "ALLOC_XRCD", alloc_xrcd_in, alloc_xrcd_out, fw_xrcd_alloc),
	CMD(DEALLOC_XRCD, "DEALLOC_XRCD", dealloc_xrcd_in, mbox_out, fw_xrcd_dealloc),
	CMD(ALLOC_TRANSPORT_DOMAIN, "ALLOC_TRANSPORT_DOMAIN", alloc_transport_domain_in, alloc_transport_domain_out, fw_td_alloc),
	CMD(DEALLOC_TRANSPORT_DOMAIN, "DEALLOC_TRANSPORT_DOMAIN", dealloc_transport_domain_in, mbox_out, fw_td_dealloc),
	CMD(CREATE_TIR, "CREATE_TIR", create_tir_in, create_tir_out, fw_tir_create),
	CMD(DESTROY_TIR, "DESTROY_TIR", eth_obj_cmd_in, mbox_out, fw_tir_destroy),
	CMD(QUERY_TIR, "QUERY_TIR", eth_obj_cmd_in, query_tir_out, fw_tir_query),
	CMD(CREATE_SQ, "CREATE_SQ", create_sq_in, create_sq_out, fw_sq_create),
	CMD(MODIFY_SQ, "MODIFY_SQ", modify_sq_in, mbox_out, fw_sq_modify),
	CMD(DESTROY_SQ, "DESTROY_SQ", eth_obj_cmd_in, mbox_out, fw_sq_destroy),
	CMD(QUERY_SQ, "QUERY_SQ", eth_obj_cmd_in, query_sq_out, fw_sq_query),
	CMD(CREATE_RQ, "CREATE_RQ", create_rq_in, create_rq_out, fw_rq_create),
	CMD(MODIFY_RQ, "MODIFY_RQ", modify_rq_in, mbox_out, fw_rq_modify),
	CMD(DESTROY_RQ, "DESTROY_RQ", eth_obj_cmd_in, mbox_out, fw_rq_destroy),
	CMD(QUERY_RQ, "QUERY_RQ", eth_obj_cmd_in, query_rq_out, fw_rq_query),
	CMD(CREATE_RMP, "CREATE_RMP", create_rmp_in, create_rmp_out, fw_rmp_create),
	CMD(MODIFY_RMP, "MODIFY_RMP", modify_rmp_in, modify_rmp_out, fw_rmp_modify),
	CMD(DESTROY_RMP, "DESTROY_RMP", destroy_rmp_in, mbox_out, fw_rmp_destroy),
	CMD(QUERY_RMP, "QUERY_RMP", query_rmp_in, query_rmp_out, fw_rmp_query),
	CMD(CREATE_TIS, "CREATE_TIS", create_tis_in, create_tis_out, fw_tis_create),
	CMD(MODIFY_TIS, "MODIFY_TIS", modify_tis_in, mbox_out, fw_tis_modify),
	CMD(DESTROY_TIS, "DESTROY_TIS", eth_obj_cmd_in, mbox_out, fw_tis_destroy),
	CMD(QUERY_TIS, "QUERY_TIS", eth_obj_cmd_in, query_tis_out, fw_tis_query),
	CMD(CREATE_RQT, "CREATE_RQT", create_rqt_in, create_rqt_out, fw_rqt_create),
	CMD(MODIFY_RQT, "MODIFY_RQT", modify_rqt_in, mbox_out, fw_rqt_modify),
	CMD(DESTROY_RQT, "DESTROY_RQT", eth_obj_cmd_in, mbox_out, fw_rqt_destroy),
	CMD(QUERY_RQT, "QUERY_RQT", eth_obj_cmd_in, query_rqt_out, fw_rqt_query),
	CMD(SET_FLOW_TABLE_ROOT, "SET_FLOW_TABLE_ROOT", set_flow_table_root_in, mbox_out, fw_ft_set_root),
	CMD(CREATE_FLOW_TABLE, "CREATE_FLOW_TABLE", create_flow_table_in, create_flow_table_out, fw_ft_create),
	CMD(DESTROY_FLOW_TABLE, "DESTROY_FLOW_TABLE", destroy_flow_table_in, mbox_out, fw_ft_destroy),
	CMD(QUERY_FLOW_TABLE, "QUERY_FLOW_TABLE", destroy_flow_table_in, query_flow_table_out, fw_ft_query),
	CMD(CREATE_FLOW_GROUP, "CREATE_FLOW_GROUP", create_flow_group_in, create_flow_group_out, fw_fg_create),
	CMD(DESTROY_FLOW_GROUP, "DESTROY_FLOW_GROUP", destroy_flow_group_in, mbox_out, fw_fg_destroy),
	CMD(SET_FLOW_TABLE_ENTRY, "SET_FLOW_TABLE_ENTRY", set_fte_in, mbox_out, fw_fte_set),
	CMD(DELETE_FLOW_TABLE_ENTRY, "DELETE_FLOW_TABLE_ENTRY", delete_fte_in, mbox_out, fw_fte_delete),
	CMD(ALLOC_FLOW_COUNTER, "ALLOC_FLOW_COUNTER", alloc_flow_counter_in, alloc_flow_counter_out, fw_fc_alloc),
	CMD(DEALLOC_FLOW_COUNTER, "DEALLOC_FLOW_COUNTER", dealloc_flow_counter_in, mbox_out, fw_fc_dealloc),
	CMD(QUERY_FLOW_COUNTER, "QUERY_FLOW_COUNTER", query_flow_counter_in, query_flow_counter_out, fw_fc_query),
	CMD(ALLOC_PACKET_REFORMAT_CONTEXT, "ALLOC_PACKET_REFORMAT_CONTEXT", alloc_packet_reformat_context_in, alloc_packet_reformat_context_out, fw_pr_alloc),
	CMD(DEALLOC_PACKET_REFORMAT_CONTEXT, "DEALLOC_PACKET_REFORMAT_CONTEXT", dealloc_packet_reformat_context_in, mbox_out, fw_pr_dealloc),
	CMD(ALLOC_MODIFY_HEADER_CONTEXT, "ALLOC_MODIFY_HEADER_CONTEXT", alloc_modify_header_context_in, alloc_modify_header_context_out, fw_mh_alloc),
	CMD(DEALLOC_MODIFY_HEADER_CONTEXT, "DEALLOC_MODIFY_HEADER_CONTEXT", dealloc_modify_header_context_in, mbox_out, fw_mh_dealloc),
	CMD(CREATE_GENERAL_OBJECT, "CREATE_GENERAL_OBJECT", general_obj_in_cmd_hdr, general_obj_out_cmd_hdr, fw_genobj_create),
	CMD(MODIFY_GENERAL_OBJECT, "MODIFY_GENERAL_OBJECT", general_obj_in_cmd_hdr, general_obj_out_cmd_hdr, fw_genobj_modify),
	CMD(QUERY_GENERAL_OBJECT, "QUERY_GENERAL_OBJECT", general_obj_in_cmd_hdr, general_obj_out_cmd_hdr, fw_genobj_query),
	CMD(DESTROY_GENERAL_OBJECT, "DESTROY_GENERAL_OBJECT", general_obj_in_cmd_hdr, general_obj_out_cmd_hdr, fw_genobj_destroy),
	CMD(CREATE_UCTX, "CREATE_UCTX", create_uctx_in, general_obj_out_cmd_hdr, fw_uctx_create),
	CMD(DESTROY_UCTX, "DESTROY_UCTX", destroy_uctx_in, general_obj_out_cmd_hdr, fw_uctx_destroy),
	CMD(CREATE_UMEM, "CREATE_UMEM", create_umem_in, create_umem_out, fw_umem_create),
	CMD(DESTROY_UMEM, "DESTROY_UMEM", destroy_umem_in, mbox_out, fw_umem_destroy),
};

static const struct fw_cmd_desc *fw_cmd_find(uint16_t opcode)
{
	size_t lo = 0, hi = sizeof(fw_cmd_table) / sizeof(fw_cmd_table[0]);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (fw_cmd_table[mid].opcode == opcode)
			return &fw_cmd_table[mid];
		if (fw_cmd_table[mid].opcode < opcode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A command's name from the table, NULL when the firmware does not know it
 * (decoder, trace). */
const char *fw_cmd_name(uint16_t opcode)
{
	const struct fw_cmd_desc *d = fw_cmd_find(opcode);

	return d ? d->name : NULL;
}

int fw_fail(struct fw_cmd *c, uint8_t status, unsigned int site,
	    const char *fmt, ...)
{
	va_list ap;

	if (c->status != MLX5_CMD_STAT_OK)
		return -1;	/* the first failure is the one reported */
	c->status = status;
	c->syndrome = ((uint32_t)c->opcode << 16) | (site & 0xffff);
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return -1;
}

void fw_exec(struct fw *fw, const void *in, size_t inlen, void *out,
	     size_t outlen)
{
	struct fw_cmd cmd = { .fw = fw, .inlen = inlen, .outlen = outlen };
	struct fw_cmd *c = &cmd;
	void *inb, *outb;

	/* Aligned private copies: DEVX_GET reads 32-bit words, and a failed
	 * command must leave nothing but status and syndrome behind. */
	inb = calloc(1, (inlen + 7) & ~(size_t)7);
	outb = calloc(1, ((outlen > 0x1010 ? outlen : 0x1010) + 7) & ~(size_t)7); /* room for any handler's whole answer; outlen bytes go back */
	if (!inb || !outb) {
		free(inb);
		free(outb);
		memset(out, 0, outlen);
		((uint8_t *)out)[0] = MLX5_CMD_STAT_NO_RES_ERR;
		return;
	}
	memcpy(inb, in, inlen);
	c->in = inb;
	c->out = outb;
	c->opcode = IN_GET(mbox_in, opcode);
	c->uid = IN_GET(mbox_in, uid);
	c->op_mod = IN_GET(mbox_in, op_mod);
	c->desc = fw_cmd_find(c->opcode);

	smx_mutex_lock(&fw->lock);
	fw_port_sync(fw);	/* every command sees the interface as it is */
	if (!c->desc)
		FW_FAIL(c, BAD_OP_ERR, "opcode 0x%x is not implemented",
			c->opcode);
	else if (inlen < c->desc->min_inlen)
		FW_FAIL(c, BAD_INP_LEN_ERR,
			"input mailbox %zu bytes, the command needs %u", inlen,
			c->desc->min_inlen);
	else if (outlen < c->desc->min_outlen)
		FW_FAIL(c, BAD_OUTP_LEN_ERR,
			"output mailbox %zu bytes, the command needs %u",
			outlen, c->desc->min_outlen);
	else if (c->uid && c->uid != MLX5_SHARED_RESOURCE_UID &&
		 c->opcode != MLX5_CMD_OP_DESTROY_UCTX &&
		 !fw_table_get(&fw->uctx, c->uid))
		FW_FAIL(c, BAD_PARAM_ERR, "uid %u names no user context",
			c->uid);
	else
		c->desc->handler(c);
	if (fw->hooks.changed)
		fw->hooks.changed(fw->hooks_arg);
	smx_mutex_unlock(&fw->lock);

	if (c->status != MLX5_CMD_STAT_OK) {
		memset(outb, 0, outlen);
		smx_dbg("fw: %s(0x%x) uid %u op_mod 0x%x failed: %s -> %s(0x%x) "
			"syndrome 0x%08x",
			c->desc ? c->desc->name : "UNKNOWN", c->opcode, c->uid,
			c->op_mod, c->why, smx_prm_status_str(c->status),
			c->status, c->syndrome);
	}
	DEVX_SET(mbox_out, outb, status, c->status);
	DEVX_SET(mbox_out, outb, syndrome, c->syndrome);
	memcpy(out, outb, outlen);
	if (smx_trace_on(SMX_TR_CMD))
		smx_trace_cmd_log(inb, inlen, outb, outlen);
	free(inb);
	free(outb);
}

void fw_lock(struct fw *fw)
{
	smx_mutex_lock(&fw->lock);
}

void fw_unlock(struct fw *fw)
{
	smx_mutex_unlock(&fw->lock);
}

/* ------------------------------------------------------------------ */
/* Handle tables                                                      */
/* ------------------------------------------------------------------ */

int fw_table_init(struct fw_table *t, const char *name, uint32_t min,
		  uint32_t limit)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->min = min;
	t->limit = limit;
	t->next = min;
	return 0;
}

/*
 * Host-wide numbering: process slot @slot owns the ids
 * [base + slot * 2^16, base + (slot + 1) * 2^16) of a table whose ids start
 * at @base, so the owner of a number is computable (docs/multiprocess.md).
 * Only an empty table is moved.
 */
static void fw_table_partition(struct fw_table *t, uint32_t slot)
{
	uint32_t prefix = t->min & (FW_SQN_PREFIX | FW_RQN_PREFIX);
	uint32_t base = t->min & 0xffff;
	uint32_t span = 0x10000u - base;

	if (t->count)
		return;
	free(t->slot);
	t->slot = NULL;
	t->cap = 0;
	t->min = prefix + base + (slot << 16);
	if (t->limit > span)
		t->limit = span;
	t->next = t->min;
}

void fw_set_slot(struct fw *fw, uint32_t slot)
{
	smx_mutex_lock(&fw->lock);
	fw_table_partition(&fw->pd, slot);
	fw_table_partition(&fw->xrcd, slot);
	fw_table_partition(&fw->cq, slot);
	fw_table_partition(&fw->srq, slot);
	fw_table_partition(&fw->qp, slot);
	fw_table_partition(&fw->mkey, slot);
	fw_table_partition(&fw->genobj, slot);
	fw_table_partition(&fw->sq, slot);
	fw_table_partition(&fw->rq, slot);
	smx_mutex_unlock(&fw->lock);
}

void fw_table_fini(struct fw_table *t)
{
	free(t->slot);
	t->slot = NULL;
	t->cap = t->count = 0;
}

void *fw_table_get(const struct fw_table *t, uint32_t id)
{
	uint32_t i;

	if (id < t->min)
		return NULL;
	i = id - t->min;
	if (i >= t->cap)
		return NULL;
	return t->slot[i];
}

static int fw_table_grow(struct fw_table *t, uint32_t need)
{
	uint32_t ncap = t->cap ? t->cap : 64;
	void **ns;

	while (ncap < need)
		ncap *= 2;
	if (ncap > t->limit)
		ncap = t->limit;
	if (ncap < need)
		return -1;
	ns = realloc(t->slot, (size_t)ncap * sizeof(*ns));
	if (!ns)
		return -1;
	memset(ns + t->cap, 0, (size_t)(ncap - t->cap) * sizeof(*ns));
	t->slot = ns;
	t->cap = ncap;
	return 0;
}

int fw_table_add_at(struct fw_table *t, struct fw_obj *obj, uint32_t id)
{
	uint32_t i = id - t->min;

	if (id < t->min || i >= t->limit)
		return -1;
	if (i >= t->cap && fw_table_grow(t, i + 1))
		return -1;
	if (t->slot[i])
		return -1;
	t->slot[i] = obj;
	obj->id = id;
	t->count++;
	return 0;
}

int fw_table_add(struct fw_table *t, struct fw_obj *obj)
{
	uint32_t i, n;

	if (t->count >= t->limit)
		return -1;
	/* Round robin from the last id handed out, like real firmware: a
	 * destroyed number is not reused at once. Prefer growing the slot
	 * array over wrapping while it is below the limit. */
	i = t->next - t->min;
	if (i >= t->cap && i < t->limit) {
		if (fw_table_grow(t, i + 1) == 0)
			goto found;
	}
	for (n = 0; n < t->cap; n++, i++) {
		if (i >= t->cap)
			i = 0;
		if (!t->slot[i])
			goto found;
	}
	i = t->cap;
	if (fw_table_grow(t, i + 1))
		return -1;
found:
	t->slot[i] = obj;
	obj->id = t->min + i;
	t->count++;
	t->next = t->min + ((i + 1) % t->limit);
	return 0;
}

void fw_table_del(struct fw_table *t, uint32_t id)
{
	uint32_t i = id - t->min;

	if (id < t->min || i >= t->cap || !t->slot[i])
		return;
	t->slot[i] = NULL;
	t->count--;
}

/* ------------------------------------------------------------------ */
/* Ownership                                                          */
/* ------------------------------------------------------------------ */

void fw_ref(struct fw_obj *o)
{
	if (o)
		o->refs++;
}

void fw_unref(struct fw_obj *o)
{
	if (o && o->refs)
		o->refs--;
}

int fw_obj_own(struct fw_cmd *c, struct fw_obj *obj, const char *what)
{
	struct fw_uctx *u;

	obj->uid = c->uid;
	if (!c->uid || c->uid == MLX5_SHARED_RESOURCE_UID)
		return 0;
	u = fw_table_get(&c->fw->uctx, c->uid);
	if (!u)
		return FW_FAIL(c, BAD_PARAM_ERR, "%s: uid %u has no user context",
			       what, c->uid);
	u->nobjs++;
	return 0;
}

void fw_obj_disown(struct fw *fw, struct fw_obj *obj)
{
	struct fw_uctx *u;

	if (!obj->uid || obj->uid == MLX5_SHARED_RESOURCE_UID)
		return;
	u = fw_table_get(&fw->uctx, obj->uid);
	if (u && u->nobjs)
		u->nobjs--;
}

bool fw_uid_ok(const struct fw_cmd *c, const struct fw_obj *obj)
{
	/* uid 0 is the privileged ("kernel") function; objects of uid 0 or
	 * the shared uid may be referenced by anybody. */
	if (c->uid == 0)
		return true;
	return obj->uid == c->uid || obj->uid == 0 ||
	       obj->uid == MLX5_SHARED_RESOURCE_UID;
}

void *fw_get(struct fw_cmd *c, struct fw_table *t, uint32_t id,
	     const char *what, bool ref)
{
	struct fw_obj *o = fw_table_get(t, id);
	bool ok;

	if (!o) {
		FW_FAIL(c, BAD_RES_ERR, "%s %s 0x%x does not exist", what,
			t->name, id);
		return NULL;
	}
	ok = ref ? fw_uid_ok(c, o) : (c->uid == 0 || o->uid == c->uid);
	if (!ok) {
		FW_FAIL(c, BAD_PARAM_ERR,
			"%s %s 0x%x belongs to uid %u, command uid %u", what,
			t->name, id, o->uid, c->uid);
		return NULL;
	}
	return o;
}

/* ------------------------------------------------------------------ */
/* Memory: PAS, umem, doorbell records                                */
/* ------------------------------------------------------------------ */

/*
 * True when every address in @addrs is readable in this process: one
 * process_vm_readv() on ourselves, which fails with EFAULT on a hole instead
 * of faulting. Probing is skipped where the call is not permitted.
 */
bool fw_mem_readable(const uint64_t *addrs, uint32_t n)
{
	uint8_t sink[64];
	struct iovec local, remote[64];
	uint32_t i = 0;

	while (i < n) {
		uint32_t k = 0;
		ssize_t r;

		while (k < 64 && i + k < n) {
			remote[k].iov_base = (void *)(uintptr_t)addrs[i + k];
			remote[k].iov_len = 1;
			k++;
		}
		local.iov_base = sink;
		local.iov_len = k;
		r = process_vm_readv(getpid(), &local, 1, remote, k, 0);
		if (r < 0 && (errno == ENOSYS || errno == EPERM))
			return true;
		if (r != (ssize_t)k)
			return false;
		i += k;
	}
	return true;
}

/*
 * True when @n pages of 1 << @shift bytes at @pages are mapped in this
 * process over their whole length, not only at their first byte (mincore()
 * fails with ENOMEM on a hole). Contiguous pages are checked as one range.
 */
bool fw_mem_pages_mapped(const uint64_t *pages, uint32_t n, uint32_t shift)
{
	uint64_t psz = 1ull << shift;
	uint32_t i = 0;

	while (i < n) {
		uint64_t start = pages[i], len = psz;
		unsigned char *vec;
		int r;

		while (++i < n && pages[i] == start + len && len < (1ull << 32))
			len += psz;
		if (start + len < start)
			return false;
		vec = malloc((len + 4095) >> 12);
		if (!vec)
			return false;
		r = mincore((void *)(uintptr_t)(start & ~4095ull),
			    len + (start & 4095), vec);
		free(vec);
		if (r)
			return false;
	}
	return true;
}

void *fw_buf_addr(const struct fw_buf *b, uint64_t off)
{
	uint64_t pos, pg;

	if (off >= b->size)
		return NULL;
	if (b->base)
		return b->base + off;
	pos = b->offset + off;
	pg = pos >> b->page_shift;
	if (pg >= b->npages)
		return NULL;
	return (uint8_t *)(uintptr_t)b->pages[pg] +
	       (pos & ((1ull << b->page_shift) - 1));
}

static void fw_buf_set_base(struct fw_buf *b)
{
	uint64_t psz = 1ull << b->page_shift;
	uint32_t i;

	for (i = 1; i < b->npages; i++)
		if (b->pages[i] != b->pages[i - 1] + psz)
			break;
	b->base = i >= b->npages && b->npages ?
		  (uint8_t *)(uintptr_t)b->pages[0] + b->offset : NULL;
}

int fw_buf_from_pas(struct fw_cmd *c, struct fw_buf *b, const char *what,
		    size_t pas_off, uint32_t log_pg_sz_4k, uint64_t page_off,
		    uint64_t size)
{
	const uint8_t *pas = (const uint8_t *)c->in + pas_off;
	uint32_t shift = 12 + log_pg_sz_4k;
	uint64_t psz, npages, i;

	memset(b, 0, sizeof(*b));
	if (shift > 30)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: log_page_size %u (4 KiB units) is above 1 GiB",
			       what, log_pg_sz_4k);
	psz = 1ull << shift;
	if (!size)
		return FW_FAIL(c, BAD_PARAM_ERR, "%s: zero-sized buffer", what);
	if (page_off >= psz)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: page_offset %llu beyond the %llu-byte page",
			       what, (unsigned long long)page_off,
			       (unsigned long long)psz);
	npages = (page_off + size + psz - 1) >> shift;
	if (npages > (1u << 22))
		return FW_FAIL(c, BAD_PARAM_ERR, "%s: %llu pages is too many",
			       what, (unsigned long long)npages);
	if (c->inlen < pas_off || (c->inlen - pas_off) / 8 < npages)
		return FW_FAIL(c, BAD_INP_LEN_ERR,
			       "%s: %llu-byte buffer needs %llu PAS entries, "
			       "input mailbox has room for %zu",
			       what, (unsigned long long)size,
			       (unsigned long long)npages,
			       c->inlen > pas_off ? (c->inlen - pas_off) / 8 : 0);
	b->pages = calloc(npages, sizeof(uint64_t));
	if (!b->pages)
		return FW_FAIL(c, NO_RES_ERR, "%s: out of memory", what);
	for (i = 0; i < npages; i++) {
		uint64_t pa = be64toh(*(const uint64_t *)(pas + i * 8));

		if (!pa || (pa & (psz - 1))) {
			free(b->pages);
			b->pages = NULL;
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "%s: PAS[%llu] = 0x%llx is not a %llu-byte "
				       "aligned page",
				       what, (unsigned long long)i,
				       (unsigned long long)pa,
				       (unsigned long long)psz);
		}
		b->pages[i] = pa;
	}
	if (!fw_mem_readable(b->pages, (uint32_t)npages)) {
		free(b->pages);
		b->pages = NULL;
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: a PAS page is not mapped in the process", what);
	}
	b->npages = (uint32_t)npages;
	b->page_shift = shift;
	b->offset = page_off;
	b->size = size;
	fw_buf_set_base(b);
	return 0;
}

int fw_buf_from_umem(struct fw_cmd *c, struct fw_buf *b, const char *what,
		     uint32_t umem_id, uint64_t umem_off, uint64_t size)
{
	struct fw_umem *u;

	memset(b, 0, sizeof(*b));
	u = fw_get(c, &c->fw->umem, umem_id, what, true);
	if (!u)
		return -1;
	if (!size)
		return FW_FAIL(c, BAD_PARAM_ERR, "%s: zero-sized buffer", what);
	if (umem_off > u->buf.size || size > u->buf.size - umem_off)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "%s: [0x%llx, +0x%llx) exceeds umem 0x%x of 0x%llx "
			       "bytes",
			       what, (unsigned long long)umem_off,
			       (unsigned long long)size, umem_id,
			       (unsigned long long)u->buf.size);
	b->pages = u->buf.pages;
	b->npages = u->buf.npages;
	b->page_shift = u->buf.page_shift;
	b->offset = u->buf.offset + umem_off;
	b->size = size;
	b->base = u->buf.base ? u->buf.base + umem_off : NULL;
	b->umem = u;
	fw_ref(&u->obj);
	return 0;
}

void fw_buf_release(struct fw_buf *b)
{
	if (b->umem)
		fw_unref(&b->umem->obj);
	else
		free(b->pages);
	memset(b, 0, sizeof(*b));
}

volatile uint32_t *fw_dbr_resolve(struct fw_cmd *c, const char *what,
				  bool umem_valid, uint32_t umem_id,
				  uint64_t addr, struct fw_umem **umem_out)
{
	*umem_out = NULL;
	if (addr & 7) {
		FW_FAIL(c, BAD_PARAM_ERR,
			"%s: doorbell record 0x%llx is not 8-byte aligned", what,
			(unsigned long long)addr);
		return NULL;
	}
	if (umem_valid) {
		struct fw_umem *u = fw_get(c, &c->fw->umem, umem_id, what, true);
		void *p;

		if (!u)
			return NULL;
		p = addr <= UINT64_MAX - 8 ? fw_buf_addr(&u->buf, addr + 7) : NULL;
		if (!p) {
			FW_FAIL(c, BAD_PARAM_ERR,
				"%s: doorbell record offset 0x%llx outside umem 0x%x",
				what, (unsigned long long)addr, umem_id);
			return NULL;
		}
		fw_ref(&u->obj);
		*umem_out = u;
		return (volatile uint32_t *)((uint8_t *)p - 7);
	}
	if (!addr || !fw_mem_readable(&addr, 1)) {
		FW_FAIL(c, BAD_PARAM_ERR,
			"%s: doorbell record 0x%llx is not mapped", what,
			(unsigned long long)addr);
		return NULL;
	}
	return (volatile uint32_t *)(uintptr_t)addr;
}

void fw_buf_put_pas(struct fw_cmd *c, const struct fw_buf *b, size_t pas_off)
{
	uint8_t *pas = (uint8_t *)c->out + pas_off;
	uint32_t i;

	if (b->umem)
		return;
	for (i = 0; i < b->npages; i++) {
		uint64_t v;

		if (pas_off + (size_t)(i + 1) * 8 > c->outlen)
			break;
		v = htobe64(b->pages[i]);
		memcpy(pas + (size_t)i * 8, &v, 8);
	}
}

/* ------------------------------------------------------------------ */
/* Instance                                                           */
/* ------------------------------------------------------------------ */

static uint32_t lim(uint32_t log)
{
	return log >= 24 ? (1u << 24) - 1 : 1u << log;
}

struct fw *fw_create(const struct smx_config *cfg, void *memic,
		     uint64_t memic_size, uint64_t memic_bar_off,
		     uint32_t nr_uars)
{
	struct fw *fw = calloc(1, sizeof(*fw));
	size_t i;

	if (!fw)
		return NULL;
	for (i = 1; i < sizeof(fw_cmd_table) / sizeof(fw_cmd_table[0]); i++) {
		if (fw_cmd_table[i - 1].opcode >= fw_cmd_table[i].opcode) {
			smx_err("fw: command table not sorted at %s",
				fw_cmd_table[i].name);
			free(fw);
			return NULL;
		}
	}
	fw->lock = (struct smx_mutex)SMX_MUTEX_INIT;
	fw->cfg = *cfg;
	if (fw_port_init(fw)) {
		free(fw);
		return NULL;
	}
	fw->memic = memic;
	fw->memic_size = memic_size;
	fw->memic_bar_off = memic_bar_off;
	fw->nr_uars = nr_uars;

	/* Number spaces like a ConnectX: small numbers are reserved for the
	 * device's own objects (QP0/QP1, the null mkey, UAR 0 ...). */
	fw_table_init(&fw->pd, "pd", 1, lim(cfg->log_max_pd));
	fw_table_init(&fw->uar, "uar", 1, nr_uars > 1 ? nr_uars - 1 : 1);
	fw_table_init(&fw->td, "transport_domain", 1, 1u << 16);
	fw_table_init(&fw->xrcd, "xrcd", 1, lim(cfg->log_max_xrcd));
	fw_table_init(&fw->uctx, "uctx", 1, 0xfffe);
	fw_table_init(&fw->umem, "umem", 1, 1u << 20);
	fw_table_init(&fw->eq, "eq", 0, 256);
	fw_table_init(&fw->cq, "cq", 1, lim(cfg->log_max_cq));
	fw_table_init(&fw->srq, "srq", 1, lim(cfg->log_max_srq));
	fw_table_init(&fw->qp, "qp", 0x100, lim(cfg->log_max_qp));
	/* Index 1 is reserved: key 0x100 is MLX5_INVALID_LKEY, the scatter-list
	 * terminator of receive WQEs, and must never name a real mkey. */
	fw_table_init(&fw->mkey, "mkey", 2, lim(cfg->log_max_mkey) - 1);
	fw_table_init(&fw->genobj, "general_object", 1, 1u << 20);
	fw_table_init(&fw->psv, "psv", 1, 1u << 20);
	/* Ethernet objects; SQ and RQ numbers are disjoint from QP numbers */
	fw_table_init(&fw->tis, "tis", 1, 1u << 16);
	fw_table_init(&fw->sq, "sq", FW_SQN_PREFIX | 1, 1u << 16);
	fw_table_init(&fw->rq, "rq", FW_RQN_PREFIX | 1, 1u << 16);
	fw_table_init(&fw->rqt, "rqt", 1, 1u << 16);
	fw_table_init(&fw->tir, "tir", 1, 1u << 16);
	fw_table_init(&fw->ft, "flow_table", 1, 1u << 16);
	fw_table_init(&fw->fg, "flow_group", 1, 1u << 20);
	fw_table_init(&fw->fc, "flow_counter", 1, 1u << 16);
	fw_table_init(&fw->mh, "modify_header", 1, 1u << FW_MH_LOG_MAX);
	fw_table_init(&fw->pr, "packet_reformat", 1, 1u << FW_PR_LOG_MAX);
	if (cfg->crypto_mode != SMX_CRYPTO_OFF) {
		fw->crypto.failed_selftests = fw_crypto_selftest();
		if (fw->crypto.failed_selftests)
			smx_err("fw: crypto self-test failed (0x%x): DEKs and "
				"logins are refused",
				fw->crypto.failed_selftests);
	}
	if (fw_eq_create_internal(fw, cfg->num_comp_vectors ?
				  cfg->num_comp_vectors : 1)) {
		fw_destroy(fw);
		return NULL;
	}
	return fw;
}

void fw_set_uar_pages(struct fw *fw, void *pages)
{
	fw->uar_pages = pages;
}

void fw_set_hooks(struct fw *fw, const struct fw_hooks *hooks, void *arg)
{
	smx_mutex_lock(&fw->lock);
	if (hooks)
		fw->hooks = *hooks;
	else
		memset(&fw->hooks, 0, sizeof(fw->hooks));
	fw->hooks_arg = arg;
	smx_mutex_unlock(&fw->lock);
}

void fw_hook_eng_free(struct fw *fw, void **eng)
{
	if (*eng && fw->hooks.eng_free)
		fw->hooks.eng_free(fw->hooks_arg, *eng);
	*eng = NULL;
}

#define FW_FREE_TABLE(t, type, fn)                                             \
	do {                                                                   \
		uint32_t i_;                                                   \
		for (i_ = 0; i_ < (t).cap; i_++)                               \
			if ((t).slot[i_])                                      \
				fn((type *)(t).slot[i_]);                      \
		fw_table_fini(&(t));                                           \
	} while (0)

static void fw_free_plain(void *p)
{
	free(p);
}

static void fw_umem_free(struct fw_umem *u)
{
	free(u->buf.pages);
	free(u);
}

void fw_destroy(struct fw *fw)
{
	if (!fw)
		return;
	/* Users first, then what they reference. Flow groups and entries go
	 * with their tables. */
	fw_table_fini(&fw->fg);
	FW_FREE_TABLE(fw->ft, struct fw_ft, fw_ft_free);
	FW_FREE_TABLE(fw->fc, void, fw_free_plain);
	FW_FREE_TABLE(fw->mh, void, fw_free_plain);
	FW_FREE_TABLE(fw->pr, void, fw_free_plain);
	FW_FREE_TABLE(fw->tir, void, fw_free_plain);
	FW_FREE_TABLE(fw->rqt, struct fw_rqt, fw_rqt_free);
	FW_FREE_TABLE(fw->sq, struct fw_sq, fw_sq_free);
	FW_FREE_TABLE(fw->rq, struct fw_rq, fw_rq_free);
	FW_FREE_TABLE(fw->tis, void, fw_free_plain);
	FW_FREE_TABLE(fw->genobj, void, fw_free_plain);
	FW_FREE_TABLE(fw->qp, struct fw_qp, fw_qp_free);
	FW_FREE_TABLE(fw->srq, struct fw_srq, fw_srq_free);
	/* Windows reference the MRs they are bound to: everything goes, so
	 * the references are dropped first, in any order. */
	for (uint32_t i = 0; i < fw->mkey.cap; i++) {
		struct fw_mkey *mk = fw->mkey.slot[i];

		if (mk)
			mk->bound = NULL;
	}
	FW_FREE_TABLE(fw->mkey, struct fw_mkey, fw_mkey_free);
	FW_FREE_TABLE(fw->psv, void, fw_free_plain);
	FW_FREE_TABLE(fw->cq, struct fw_cq, fw_cq_free);
	FW_FREE_TABLE(fw->eq, struct fw_eq, fw_eq_free);
	FW_FREE_TABLE(fw->umem, struct fw_umem, fw_umem_free);
	FW_FREE_TABLE(fw->pd, void, fw_free_plain);
	FW_FREE_TABLE(fw->uar, void, fw_free_plain);
	FW_FREE_TABLE(fw->td, void, fw_free_plain);
	FW_FREE_TABLE(fw->xrcd, void, fw_free_plain);
	FW_FREE_TABLE(fw->uctx, void, fw_free_plain);
	fw_memic_fini(fw);
	fw_port_fini(fw);
	free(fw);
}

/* ------------------------------------------------------------------ */
/* Lookups                                                            */
/* ------------------------------------------------------------------ */

struct fw_qp *fw_qp_lookup(struct fw *fw, uint32_t qpn)
{
	return fw_table_get(&fw->qp, qpn & 0xffffff);
}

struct fw_cq *fw_cq_lookup(struct fw *fw, uint32_t cqn)
{
	return fw_table_get(&fw->cq, cqn & 0xffffff);
}

struct fw_eq *fw_eq_lookup(struct fw *fw, uint32_t eqn)
{
	return fw_table_get(&fw->eq, eqn);
}

struct fw_srq *fw_srq_lookup(struct fw *fw, uint32_t srqn)
{
	return fw_table_get(&fw->srq, srqn & 0xffffff);
}

struct fw_pd *fw_pd_lookup(struct fw *fw, uint32_t pdn)
{
	return fw_table_get(&fw->pd, pdn & 0xffffff);
}

struct fw_mkey *fw_mkey_lookup(struct fw *fw, uint32_t key)
{
	struct fw_mkey *mk = fw_table_get(&fw->mkey, key >> 8);

	if (!mk || mk->variant != (key & 0xff))
		return NULL;
	return mk;
}

struct fw_umem *fw_umem_lookup(struct fw *fw, uint32_t umem_id)
{
	return fw_table_get(&fw->umem, umem_id);
}

struct fw_uar *fw_uar_lookup(struct fw *fw, uint32_t index)
{
	return fw_table_get(&fw->uar, index);
}

struct fw_sq *fw_sq_lookup(struct fw *fw, uint32_t sqn)
{
	return fw_table_get(&fw->sq, sqn & 0xffffff);
}

struct fw_rq *fw_rq_lookup(struct fw *fw, uint32_t rqn)
{
	return fw_table_get(&fw->rq, rqn & 0xffffff);
}

const struct smx_config *fw_config(const struct fw *fw)
{
	return &fw->cfg;
}

bool fw_gid(const struct fw *fw, uint32_t index, uint8_t gid[16])
{
	return fw_gid_entry(fw, index, gid, NULL);
}
