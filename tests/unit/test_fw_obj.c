/* SPDX-License-Identifier: MIT */
/* Firmware objects: PD, UAR, TD, XRCD, UCTX, UMEM, MEMIC, EQ, CQ, SRQs, MKEY. */
#include "fw_test_util.h"

static void test_simple(struct smx_dev *d)
{
	unsigned int st;
	uint32_t pd, pd2, uar, td, xrcd;
	uint16_t uid, uid2;

	pd = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, 0, &st);
	CHECK_EQ(st, 0);
	pd2 = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, 0, &st);
	CHECK(pd2 != pd);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd2), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd2),
		 MLX5_CMD_STAT_BAD_RES_ERR);	/* double destroy */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, 0, 0xabcdef),
		 MLX5_CMD_STAT_BAD_RES_ERR);

	uar = t_alloc(d, MLX5_CMD_OP_ALLOC_UAR, 0, &st);
	CHECK_EQ(st, 0);
	CHECK(uar >= 1);
	td = t_alloc(d, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, &st);
	CHECK_EQ(st, 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 0, td), 0);
	xrcd = t_alloc(d, MLX5_CMD_OP_ALLOC_XRCD, 0, &st);
	CHECK_EQ(st, 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_XRCD, 0, xrcd), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_XRCD, 0, xrcd),
		 MLX5_CMD_STAT_BAD_RES_ERR);

	/* User contexts and uid ownership. */
	uid = t_uctx(d);
	uid2 = t_uctx(d);
	CHECK(uid != 0 && uid2 != 0 && uid != uid2);
	pd2 = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, uid, &st);
	CHECK_EQ(st, 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, uid2, pd2),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);	/* someone else's */
	{
		MB(destroy_uctx_in) = { 0 };
		MB(general_obj_out_cmd_hdr) = { 0 };

		DEVX_SET(destroy_uctx_in, destroy_uctx_in, opcode,
			 MLX5_CMD_OP_DESTROY_UCTX);
		DEVX_SET(destroy_uctx_in, destroy_uctx_in, uid, uid);
		CHECK_EQ(t_cmd(d, destroy_uctx_in, sizeof(destroy_uctx_in),
			       general_obj_out_cmd_hdr,
			       sizeof(general_obj_out_cmd_hdr)),
			 MLX5_CMD_STAT_RES_BUSY);	/* owns a PD */
		CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, uid, pd2), 0);
		CHECK_EQ(t_cmd(d, destroy_uctx_in, sizeof(destroy_uctx_in),
			       general_obj_out_cmd_hdr,
			       sizeof(general_obj_out_cmd_hdr)), 0);
		CHECK_EQ(t_cmd(d, destroy_uctx_in, sizeof(destroy_uctx_in),
			       general_obj_out_cmd_hdr,
			       sizeof(general_obj_out_cmd_hdr)),
			 MLX5_CMD_STAT_BAD_RES_ERR);
	}
	/* The destroyed uid is gone for every command. */
	t_alloc(d, MLX5_CMD_OP_ALLOC_PD, uid, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd), 0);
}

static void test_umem_memic(struct smx_dev *d)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_umem_in) + 2 * 8;
	uint8_t *in = calloc(1, inlen);
	void *um = DEVX_ADDR_OF(create_umem_in, in, umem);
	uint8_t *mem = t_pages(8192);
	MB(create_umem_out) = { 0 };
	MB(alloc_memic_in) = { 0 };
	MB(alloc_memic_out) = { 0 };
	MB(dealloc_memic_in) = { 0 };
	MB(mbox_out) = { 0 };
	uint32_t umem;
	uint64_t a1, a2;
	int i;

	DEVX_SET(create_umem_in, in, opcode, MLX5_CMD_OP_CREATE_UMEM);
	DEVX_SET64(umem, um, num_of_mtt, 2);
	for (i = 0; i < 2; i++) {
		void *m = (uint8_t *)in + DEVX_ST_SZ_BYTES(create_umem_in) + 8 * i;
		uint64_t pa = (uint64_t)(uintptr_t)mem + 4096 * i;

		DEVX_SET(mtt, m, ptag_63_32, pa >> 32);
		DEVX_SET(mtt, m, ptag_31_8, (uint32_t)pa >> 8);
		DEVX_SET(mtt, m, rd_en, 1);
		DEVX_SET(mtt, m, wr_en, 1);
	}
	CHECK_EQ(t_cmd(d, in, inlen, create_umem_out, sizeof(create_umem_out)), 0);
	umem = DEVX_GET(create_umem_out, create_umem_out, umem_id);
	CHECK(umem != 0);
	/* Hostile: more MTTs than the mailbox carries; unaligned page. */
	DEVX_SET64(umem, um, num_of_mtt, 3);
	CHECK_EQ(t_cmd(d, in, inlen, create_umem_out, sizeof(create_umem_out)),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	DEVX_SET64(umem, um, num_of_mtt, 2);
	DEVX_SET(mtt, (uint8_t *)in + DEVX_ST_SZ_BYTES(create_umem_in),
		 ptag_31_8, ((uint32_t)(uintptr_t)mem + 0x100) >> 8);
	CHECK_EQ(t_cmd(d, in, inlen, create_umem_out, sizeof(create_umem_out)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_UMEM, 0, umem), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_UMEM, 0, umem),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	free(in);

	DEVX_SET(alloc_memic_in, alloc_memic_in, opcode, MLX5_CMD_OP_ALLOC_MEMIC);
	DEVX_SET(alloc_memic_in, alloc_memic_in, memic_size, 100);
	DEVX_SET(alloc_memic_in, alloc_memic_in, log_memic_addr_alignment, 6);
	CHECK_EQ(t_cmd(d, alloc_memic_in, sizeof(alloc_memic_in),
		       alloc_memic_out, sizeof(alloc_memic_out)), 0);
	a1 = DEVX_GET64(alloc_memic_out, alloc_memic_out, memic_start_addr);
	CHECK(a1 >= smx_dev_memic_base(d));
	CHECK(smx_dev_bar(d, a1, 100) != NULL);
	CHECK_EQ(t_cmd(d, alloc_memic_in, sizeof(alloc_memic_in),
		       alloc_memic_out, sizeof(alloc_memic_out)), 0);
	a2 = DEVX_GET64(alloc_memic_out, alloc_memic_out, memic_start_addr);
	CHECK(a2 >= a1 + 128 || a1 >= a2 + 128);	/* no overlap */
	DEVX_SET(alloc_memic_in, alloc_memic_in, memic_size, 0x7fffffff);
	CHECK_EQ(t_cmd(d, alloc_memic_in, sizeof(alloc_memic_in),
		       alloc_memic_out, sizeof(alloc_memic_out)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(dealloc_memic_in, dealloc_memic_in, opcode,
		 MLX5_CMD_OP_DEALLOC_MEMIC);
	DEVX_SET64(dealloc_memic_in, dealloc_memic_in, memic_start_addr, a1);
	DEVX_SET(dealloc_memic_in, dealloc_memic_in, memic_size, 100);
	CHECK_EQ(t_cmd(d, dealloc_memic_in, sizeof(dealloc_memic_in), mbox_out,
		       sizeof(mbox_out)), 0);
	CHECK_EQ(t_cmd(d, dealloc_memic_in, sizeof(dealloc_memic_in), mbox_out,
		       sizeof(mbox_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);
}

static void test_eq_cq(struct smx_dev *d)
{
	unsigned int st;
	uint32_t uar = t_alloc(d, MLX5_CMD_OP_ALLOC_UAR, 0, &st);
	uint32_t cqn, cqn2, eqn;
	MB(query_cq_in) = { 0 };
	MB(query_cq_out) = { 0 };
	MB(modify_cq_in) = { 0 };
	MB(mbox_out) = { 0 };
	MB(query_eq_in) = { 0 };
	MB(query_eq_out) = { 0 };
	size_t eqlen = DEVX_ST_SZ_BYTES(create_eq_in) + 8;
	uint8_t *eqin = calloc(1, eqlen);
	MB(create_eq_out) = { 0 };
	void *eqc = DEVX_ADDR_OF(create_eq_in, eqin, eq_context_entry);
	void *cqc;

	/* EQ with a one-page ring of 64 EQEs. */
	DEVX_SET(create_eq_in, eqin, opcode, MLX5_CMD_OP_CREATE_EQ);
	DEVX_SET(eqc, eqc, log_eq_size, 6);
	DEVX_SET(eqc, eqc, uar_page, uar);
	t_put_pas(eqin, DEVX_BYTE_OFF(create_eq_in, pas), t_pages(4096), 4096);
	CHECK_EQ(t_cmd(d, eqin, eqlen, create_eq_out, sizeof(create_eq_out)), 0);
	eqn = DEVX_GET(create_eq_out, create_eq_out, eq_number);
	CHECK(eqn >= 2);	/* 0..num_comp_vectors-1 are the device's */
	DEVX_SET(eqc, eqc, log_eq_size, 7);	/* needs 2 pages, 1 given */
	CHECK_EQ(t_cmd(d, eqin, eqlen, create_eq_out, sizeof(create_eq_out)),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	DEVX_SET(query_eq_in, query_eq_in, opcode, MLX5_CMD_OP_QUERY_EQ);
	DEVX_SET(query_eq_in, query_eq_in, eq_number, eqn);
	CHECK_EQ(t_cmd(d, query_eq_in, sizeof(query_eq_in), query_eq_out,
		       sizeof(query_eq_out)), 0);
	CHECK_EQ(DEVX_GET(eqc, DEVX_ADDR_OF(query_eq_out, query_eq_out,
					    eq_context_entry), log_eq_size), 6);

	cqn = t_cq(d, 0, 6, eqn, uar, &st);
	CHECK_EQ(st, 0);
	cqn2 = t_cq(d, 0, 6, 0, uar, &st);
	CHECK_EQ(st, 0);
	CHECK(cqn2 != cqn);
	/* Hostile CQs. */
	t_cq(d, 0, 23, 0, uar, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* above log_max_cq_sz */
	t_cq(d, 0, 6, 200, uar, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_RES_ERR);	/* no such EQ */
	t_cq(d, 0, 6, 0, 400, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_RES_ERR);	/* no such UAR */
	t_cq_sz(d, 0, 6, 0, uar, 3, &st);
	CHECK_EQ(st, MLX5_CMD_STAT_BAD_PARAM_ERR);	/* cqe_sz 3: reserved */
	{
		/* 128-byte padded CQEs: accepted, 128-byte stride. */
		uint32_t pcq = t_cq_sz(d, 0, 6, 0, uar, MLX5_CQC_CQE_SZ_128_PAD,
				       &st);

		CHECK_EQ(st, 0);
		if (!st)
			CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_CQ, 0, pcq), 0);
	}

	/* EQ in use by a CQ cannot go. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_EQ, 0, eqn),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);

	DEVX_SET(query_cq_in, query_cq_in, opcode, MLX5_CMD_OP_QUERY_CQ);
	DEVX_SET(query_cq_in, query_cq_in, cqn, cqn);
	CHECK_EQ(t_cmd(d, query_cq_in, sizeof(query_cq_in), query_cq_out,
		       sizeof(query_cq_out)), 0);
	cqc = DEVX_ADDR_OF(query_cq_out, query_cq_out, cq_context);
	CHECK_EQ(DEVX_GET(cqc, cqc, log_cq_size), 6);
	CHECK_EQ(DEVX_GET(cqc, cqc, c_eqn), eqn);

	/* MODIFY_CQ: moderation + EQ remap. */
	DEVX_SET(modify_cq_in, modify_cq_in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	DEVX_SET(modify_cq_in, modify_cq_in, cqn, cqn);
	DEVX_SET(modify_cq_in, modify_cq_in,
		 modify_field_select_resize_field_select,
		 MLX5_CQ_MODIFY_PERIOD | MLX5_CQ_MODIFY_COUNT | MLX5_CQ_MODIFY_EQN);
	cqc = DEVX_ADDR_OF(modify_cq_in, modify_cq_in, cq_context);
	DEVX_SET(cqc, cqc, cq_period, 10);
	DEVX_SET(cqc, cqc, cq_max_count, 20);
	DEVX_SET(cqc, cqc, c_eqn, 1);
	CHECK_EQ(t_cmd(d, modify_cq_in, sizeof(modify_cq_in), mbox_out,
		       sizeof(mbox_out)), 0);
	CHECK_EQ(t_cmd(d, query_cq_in, sizeof(query_cq_in), query_cq_out,
		       sizeof(query_cq_out)), 0);
	cqc = DEVX_ADDR_OF(query_cq_out, query_cq_out, cq_context);
	CHECK_EQ(DEVX_GET(cqc, cqc, cq_max_count), 20);
	CHECK_EQ(DEVX_GET(cqc, cqc, c_eqn), 1);
	/* Now the EQ is free. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_EQ, 0, eqn), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_EQ, 0, eqn),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	/* Device EQs are not the user's to destroy. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_EQ, 0, 0),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(modify_cq_in, modify_cq_in, op_mod, 7);
	CHECK_EQ(t_cmd(d, modify_cq_in, sizeof(modify_cq_in), mbox_out,
		       sizeof(mbox_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);

	/* The UAR is referenced by the CQs. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_UAR, 0, uar),
		 MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_CQ, 0, cqn), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_CQ, 0, cqn),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_CQ, 0, cqn2), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_UAR, 0, uar), 0);
	free(eqin);
}

static void test_srqs(struct smx_dev *d)
{
	unsigned int st;
	uint32_t pd = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, 0, &st);
	uint32_t uar = t_alloc(d, MLX5_CMD_OP_ALLOC_UAR, 0, &st);
	uint32_t xrcd = t_alloc(d, MLX5_CMD_OP_ALLOC_XRCD, 0, &st);
	uint32_t cqn = t_cq(d, 0, 4, 0, uar, &st);
	size_t len = DEVX_ST_SZ_BYTES(create_srq_in) + 8;
	uint8_t *in = calloc(1, len);
	void *ctx = DEVX_ADDR_OF(create_srq_in, in, srq_context_entry);
	MB(create_srq_out) = { 0 };
	MB(arm_rq_in) = { 0 };
	MB(mbox_out) = { 0 };
	MB(query_srq_in) = { 0 };
	MB(query_srq_out) = { 0 };
	uint32_t srqn, xsrqn, rmpn;

	/* Plain SRQ: 64 WQEs of 64 bytes = one page. */
	DEVX_SET(create_srq_in, in, opcode, MLX5_CMD_OP_CREATE_SRQ);
	DEVX_SET(srqc, ctx, log_srq_size, 6);
	DEVX_SET(srqc, ctx, log_rq_stride, 2);
	DEVX_SET(srqc, ctx, pd, pd);
	DEVX_SET64(srqc, ctx, dbr_addr, (uint64_t)(uintptr_t)t_pages(64));
	t_put_pas(in, DEVX_BYTE_OFF(create_srq_in, pas), t_pages(4096), 4096);
	CHECK_EQ(t_cmd(d, in, len, create_srq_out, sizeof(create_srq_out)), 0);
	srqn = DEVX_GET(create_srq_out, create_srq_out, srqn);
	DEVX_SET(srqc, ctx, log_srq_size, 15);
	DEVX_SET(srqc, ctx, log_rq_stride, 7);
	CHECK_EQ(t_cmd(d, in, len, create_srq_out, sizeof(create_srq_out)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);	/* stride 2 KiB too big */
	DEVX_SET(srqc, ctx, log_rq_stride, 2);
	CHECK_EQ(t_cmd(d, in, len, create_srq_out, sizeof(create_srq_out)),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);	/* 512 pages, 1 PAS */
	DEVX_SET(srqc, ctx, log_srq_size, 6);
	DEVX_SET(srqc, ctx, pd, pd + 1000);
	CHECK_EQ(t_cmd(d, in, len, create_srq_out, sizeof(create_srq_out)),
		 MLX5_CMD_STAT_BAD_RES_ERR);

	DEVX_SET(arm_rq_in, arm_rq_in, opcode, MLX5_CMD_OP_ARM_RQ);
	DEVX_SET(arm_rq_in, arm_rq_in, op_mod, MLX5_ARM_RQ_IN_OP_MOD_SRQ);
	DEVX_SET(arm_rq_in, arm_rq_in, srq_number, srqn);
	DEVX_SET(arm_rq_in, arm_rq_in, lwm, 10);
	CHECK_EQ(t_cmd(d, arm_rq_in, sizeof(arm_rq_in), mbox_out,
		       sizeof(mbox_out)), 0);
	DEVX_SET(arm_rq_in, arm_rq_in, lwm, 64);
	CHECK_EQ(t_cmd(d, arm_rq_in, sizeof(arm_rq_in), mbox_out,
		       sizeof(mbox_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(arm_rq_in, arm_rq_in, op_mod, 0);
	CHECK_EQ(t_cmd(d, arm_rq_in, sizeof(arm_rq_in), mbox_out,
		       sizeof(mbox_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);

	DEVX_SET(query_srq_in, query_srq_in, opcode, MLX5_CMD_OP_QUERY_SRQ);
	DEVX_SET(query_srq_in, query_srq_in, srqn, srqn);
	CHECK_EQ(t_cmd(d, query_srq_in, sizeof(query_srq_in), query_srq_out,
		       sizeof(query_srq_out)), 0);
	CHECK_EQ(DEVX_GET(srqc, DEVX_ADDR_OF(query_srq_out, query_srq_out,
					     srq_context_entry), lwm), 10);
	free(in);

	/* XRC SRQ */
	len = DEVX_ST_SZ_BYTES(create_xrc_srq_in) + 8;
	in = calloc(1, len);
	ctx = DEVX_ADDR_OF(create_xrc_srq_in, in, xrc_srq_context_entry);
	{
		MB(create_xrc_srq_out) = { 0 };
		uint64_t db = (uint64_t)(uintptr_t)t_pages(64);

		DEVX_SET(create_xrc_srq_in, in, opcode,
			 MLX5_CMD_OP_CREATE_XRC_SRQ);
		DEVX_SET(xrc_srqc, ctx, log_xrc_srq_size, 6);
		DEVX_SET(xrc_srqc, ctx, log_rq_stride, 2);
		DEVX_SET(xrc_srqc, ctx, pd, pd);
		DEVX_SET(xrc_srqc, ctx, cqn, cqn);
		DEVX_SET(xrc_srqc, ctx, xrcd, xrcd);
		DEVX_SET(xrc_srqc, ctx, db_record_addr_h, db >> 32);
		DEVX_SET(xrc_srqc, ctx, db_record_addr_l, (uint32_t)db >> 2);
		t_put_pas(in, DEVX_BYTE_OFF(create_xrc_srq_in, pas),
			  t_pages(4096), 4096);
		CHECK_EQ(t_cmd(d, in, len, create_xrc_srq_out,
			       sizeof(create_xrc_srq_out)), 0);
		xsrqn = DEVX_GET(create_xrc_srq_out, create_xrc_srq_out,
				 xrc_srqn);
	}
	/* Kind mismatch: DESTROY_SRQ on an XRC SRQ number. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_SRQ, 0, xsrqn),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	/* XRCD and CQ are held by the XRC SRQ. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_XRCD, 0, xrcd),
		 MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_CQ, 0, cqn),
		 MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_XRC_SRQ, 0, xsrqn), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_XRCD, 0, xrcd), 0);
	free(in);

	/* RMP */
	len = DEVX_ST_SZ_BYTES(create_rmp_in) + 8;
	in = calloc(1, len);
	{
		void *rmpc = DEVX_ADDR_OF(create_rmp_in, in, ctx);
		void *wq = DEVX_ADDR_OF(rmpc, rmpc, wq);
		MB(create_rmp_out) = { 0 };

		DEVX_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);
		DEVX_SET(rmpc, rmpc, state, MLX5_RMPC_STATE_RDY);
		DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_LINKED_LIST);
		DEVX_SET(wq, wq, pd, pd);
		DEVX_SET(wq, wq, log_wq_stride, 6);
		DEVX_SET(wq, wq, log_wq_sz, 6);
		DEVX_SET64(wq, wq, dbr_addr, (uint64_t)(uintptr_t)t_pages(64));
		t_put_pas(in, DEVX_ST_SZ_BYTES(create_rmp_in), t_pages(4096),
			  4096);
		CHECK_EQ(t_cmd(d, in, len, create_rmp_out,
			       sizeof(create_rmp_out)), 0);
		rmpn = DEVX_GET(create_rmp_out, create_rmp_out, rmpn);
		/* Basic cyclic WQEs (no next segment) need a cyclic queue. */
		DEVX_SET(rmpc, rmpc, basic_cyclic_rcv_wqe, 1);
		CHECK_EQ(t_cmd(d, in, len, create_rmp_out,
			       sizeof(create_rmp_out)),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
		/* A cyclic queue takes either layout. */
		DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
		CHECK_EQ(t_cmd(d, in, len, create_rmp_out,
			       sizeof(create_rmp_out)), 0);
		CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_RMP, 0,
				   DEVX_GET(create_rmp_out, create_rmp_out,
					    rmpn)), 0);
		DEVX_SET(rmpc, rmpc, basic_cyclic_rcv_wqe, 0);
		CHECK_EQ(t_cmd(d, in, len, create_rmp_out,
			       sizeof(create_rmp_out)), 0);
		CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_RMP, 0,
				   DEVX_GET(create_rmp_out, create_rmp_out,
					    rmpn)), 0);
	}
	CHECK(rmpn != srqn);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_RMP, 0, rmpn), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_SRQ, 0, srqn), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_SRQ, 0, srqn),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	free(in);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_CQ, 0, cqn), 0);
}

static unsigned int t_mkey(struct smx_dev *d, uint16_t uid, uint32_t pd,
			   uint32_t mode, void *buf, size_t len, uint32_t nmtt,
			   uint32_t qpn, uint32_t *idx)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_mkey_in) + 16 * ((nmtt + 1) / 2);
	uint8_t *in = calloc(1, inlen);
	void *mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	MB(create_mkey_out) = { 0 };
	unsigned int st;
	uint32_t i;

	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(create_mkey_in, in, uid, uid);
	DEVX_SET(mkc, mkc, access_mode_1_0, mode & 3);
	DEVX_SET(mkc, mkc, access_mode_4_2, mode >> 2);
	DEVX_SET(mkc, mkc, lr, 1);
	DEVX_SET(mkc, mkc, lw, 1);
	DEVX_SET(mkc, mkc, rr, 1);
	DEVX_SET(mkc, mkc, rw, 1);
	DEVX_SET(mkc, mkc, qpn, qpn);
	DEVX_SET(mkc, mkc, mkey_7_0, 0x42);
	DEVX_SET(mkc, mkc, pd, pd);
	DEVX_SET64(mkc, mkc, start_addr, (uint64_t)(uintptr_t)buf);
	DEVX_SET64(mkc, mkc, len, len);
	DEVX_SET(mkc, mkc, log_page_size, 12);
	DEVX_SET(mkc, mkc, translations_octword_size, (nmtt + 1) / 2);
	DEVX_SET(create_mkey_in, in, translations_octword_actual_size,
		 (nmtt + 1) / 2);
	for (i = 0; i < nmtt; i++) {
		uint64_t v = htobe64((uint64_t)(uintptr_t)buf + 4096ull * i);

		memcpy(in + DEVX_ST_SZ_BYTES(create_mkey_in) + 8 * i, &v, 8);
	}
	st = t_cmd(d, in, inlen, create_mkey_out, sizeof(create_mkey_out));
	*idx = DEVX_GET(create_mkey_out, create_mkey_out, mkey_index);
	free(in);
	return st;
}

static void test_mkey(struct smx_dev *d)
{
	unsigned int st;
	uint32_t pd = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, 0, &st);
	uint16_t uid = t_uctx(d);
	uint32_t upd = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, uid, &st);
	void *buf = t_pages(3 * 4096);
	uint32_t idx, idx2, pa_idx;
	MB(query_mkey_in) = { 0 };
	MB(query_mkey_out) = { 0 };

	CHECK_EQ(t_mkey(d, 0, pd, MLX5_MKC_ACCESS_MODE_MTT, buf, 3 * 4096, 3,
			0xffffff, &idx), 0);
	CHECK(idx != 0);
	/* Too few MTT entries for the length. */
	CHECK_EQ(t_mkey(d, 0, pd, MLX5_MKC_ACCESS_MODE_MTT, buf, 3 * 4096, 2,
			0xffffff, &idx2), MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* qpn must be 0xffffff. */
	CHECK_EQ(t_mkey(d, 0, pd, MLX5_MKC_ACCESS_MODE_MTT, buf, 4096, 1, 5,
			&idx2), MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* PA mode is the privileged function's only. */
	CHECK_EQ(t_mkey(d, 0, pd, MLX5_MKC_ACCESS_MODE_PA, buf, 4096, 0,
			0xffffff, &pa_idx), 0);
	CHECK_EQ(t_mkey(d, uid, upd, MLX5_MKC_ACCESS_MODE_PA, buf, 4096, 0,
			0xffffff, &idx2), MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* A user may not use another uid's PD... */
	{
		uint16_t uid2 = t_uctx(d);
		uint32_t pd2 = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, uid2, &st);

		CHECK_EQ(t_mkey(d, uid, pd2, MLX5_MKC_ACCESS_MODE_MTT, buf,
				4096, 1, 0xffffff, &idx2),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
		CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, uid2, pd2), 0);
	}
	/* ... nor its own with an unknown access mode. */
	CHECK_EQ(t_mkey(d, uid, upd, 7, buf, 4096, 1, 0xffffff, &idx2),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);

	DEVX_SET(query_mkey_in, query_mkey_in, opcode, MLX5_CMD_OP_QUERY_MKEY);
	DEVX_SET(query_mkey_in, query_mkey_in, mkey_index, idx);
	CHECK_EQ(t_cmd(d, query_mkey_in, sizeof(query_mkey_in), query_mkey_out,
		       sizeof(query_mkey_out)), 0);
	CHECK_EQ(DEVX_GET(mkc, DEVX_ADDR_OF(query_mkey_out, query_mkey_out,
					    memory_key_mkey_entry), mkey_7_0),
		 0x42);
	/* PD in use by the mkey. */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd),
		 MLX5_CMD_STAT_RES_BUSY);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_MKEY, uid, idx),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);	/* not uid's mkey */
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_MKEY, 0, idx), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_MKEY, 0, idx),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DESTROY_MKEY, 0, pa_idx), 0);
	CHECK_EQ(t_dealloc(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd), 0);
}

/* SET_PP_RATE_LIMIT: index 1..table size, rate 0 (clear) or within the
 * qos_cap bounds; the table size comes from QUERY_HCA_CAP QOS. */
static void test_rate_limit(struct smx_dev *d)
{
	MB(query_hca_cap_in) = { 0 };
	MB(query_hca_cap_out) = { 0 };
	MB(set_pp_rate_limit_in) = { 0 };
	MB(mbox_out) = { 0 };
	void *cap = DEVX_ADDR_OF(query_hca_cap_out, query_hca_cap_out,
				 capability);
	uint32_t size, max;

	DEVX_SET(query_hca_cap_in, query_hca_cap_in, opcode,
		 MLX5_CMD_OP_QUERY_HCA_CAP);
	DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod,
		 MLX5_CAP_QOS << 1 | 1);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in),
		       query_hca_cap_out, sizeof(query_hca_cap_out)), 0);
	CHECK_EQ(DEVX_GET(qos_cap, cap, packet_pacing), 1);
	size = DEVX_GET(qos_cap, cap, packet_pacing_rate_table_size);
	max = DEVX_GET(qos_cap, cap, packet_pacing_max_rate);
	CHECK(size > 0);
	CHECK(max >= DEVX_GET(qos_cap, cap, packet_pacing_min_rate));

	DEVX_SET(set_pp_rate_limit_in, set_pp_rate_limit_in, opcode,
		 MLX5_CMD_OP_SET_PP_RATE_LIMIT);
	DEVX_SET(set_pp_rate_limit_in, set_pp_rate_limit_in, ctx.rate_limit,
		 100);
	/* index 0 is "unlimited", never written */
	CHECK_EQ(t_cmd(d, set_pp_rate_limit_in, sizeof(set_pp_rate_limit_in),
		       mbox_out, sizeof(mbox_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(set_pp_rate_limit_in, set_pp_rate_limit_in, rate_limit_index,
		 size + 1);
	CHECK_EQ(t_cmd(d, set_pp_rate_limit_in, sizeof(set_pp_rate_limit_in),
		       mbox_out, sizeof(mbox_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(set_pp_rate_limit_in, set_pp_rate_limit_in, rate_limit_index,
		 size);
	CHECK_EQ(t_cmd(d, set_pp_rate_limit_in, sizeof(set_pp_rate_limit_in),
		       mbox_out, sizeof(mbox_out)), 0);
	if (max < UINT32_MAX) {
		DEVX_SET(set_pp_rate_limit_in, set_pp_rate_limit_in,
			 ctx.rate_limit, max + 1);
		CHECK_EQ(t_cmd(d, set_pp_rate_limit_in,
			       sizeof(set_pp_rate_limit_in), mbox_out,
			       sizeof(mbox_out)), MLX5_CMD_STAT_BAD_PARAM_ERR);
	}
	DEVX_SET(set_pp_rate_limit_in, set_pp_rate_limit_in, ctx.rate_limit, 0);
	CHECK_EQ(t_cmd(d, set_pp_rate_limit_in, sizeof(set_pp_rate_limit_in),
		       mbox_out, sizeof(mbox_out)), 0);
	/* truncated mailbox */
	CHECK_EQ(t_cmd(d, set_pp_rate_limit_in, 16, mbox_out, sizeof(mbox_out)),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);
}

/* General objects: AV_QP_MAPPING round trip; unknown and mismatched types,
 * foreign uid and short mailboxes are refused. */
static void test_general_objects(struct smx_dev *d)
{
	MB(create_av_qp_mapping_in) = { 0 };
	MB(query_av_qp_mapping_out) = { 0 };
	MB(general_obj_in_cmd_hdr) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };
	uint8_t *in = (uint8_t *)create_av_qp_mapping_in;
	void *av = DEVX_ADDR_OF(create_av_qp_mapping_in, in,
				mapping.remote_address_vector);
	uint32_t id;
	uint16_t uid = t_uctx(d);

	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type, 0x7777);
	CHECK_EQ(t_cmd(d, in, sizeof(create_av_qp_mapping_in),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type,
		 MLX5_OBJ_TYPE_AV_QP_MAPPING);
	DEVX_SET(create_av_qp_mapping_in, in, mapping.qpn, 0x1000000);
	CHECK_EQ(t_cmd(d, in, sizeof(create_av_qp_mapping_in),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(create_av_qp_mapping_in, in, mapping.qpn, 0x123456);
	DEVX_SET(ud_av, av, sl_or_eth_prio, 5);
	((uint8_t *)DEVX_ADDR_OF(ud_av, av, rgid_or_rip))[15] = 0x42;
	CHECK_EQ(t_cmd(d, in, 16, general_obj_out_cmd_hdr,
		       sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	CHECK_EQ(t_cmd(d, in, sizeof(create_av_qp_mapping_in),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 0);
	id = DEVX_GET(general_obj_out_cmd_hdr, general_obj_out_cmd_hdr, obj_id);
	CHECK(id != 0);

	/* query answers what was created */
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, opcode,
		 MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_type,
		 MLX5_OBJ_TYPE_AV_QP_MAPPING);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_id, id);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       query_av_qp_mapping_out, sizeof(query_av_qp_mapping_out)),
		 0);
	CHECK_EQ(DEVX_GET(query_av_qp_mapping_out, query_av_qp_mapping_out,
			  obj.qpn), 0x123456);
	CHECK_EQ(DEVX_GET(query_av_qp_mapping_out, query_av_qp_mapping_out,
			  obj.remote_address_vector.sl_or_eth_prio), 5);
	CHECK_EQ(((uint8_t *)DEVX_ADDR_OF(query_av_qp_mapping_out,
			query_av_qp_mapping_out,
			obj.remote_address_vector.rgid_or_rip))[15], 0x42);
	/* short output, another uid, nothing to modify */
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
	CHECK(uid != 0);
	if (uid) {
		DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, uid,
			 uid);
		CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr,
			       sizeof(general_obj_in_cmd_hdr),
			       query_av_qp_mapping_out,
			       sizeof(query_av_qp_mapping_out)),
			 MLX5_CMD_STAT_BAD_PARAM_ERR);
		DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, uid, 0);
	}
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, opcode,
		 MLX5_CMD_OP_MODIFY_GENERAL_OBJECT);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);	/* header only */
	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_MODIFY_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_id, id);
	CHECK_EQ(t_cmd(d, in, sizeof(create_av_qp_mapping_in),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);	/* nothing to modify */
	/* destroy: wrong type refused, then gone */
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, opcode,
		 MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_type,
		 MLX5_OBJ_TYPE_DEK);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_type,
		 MLX5_OBJ_TYPE_AV_QP_MAPPING);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 0);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_BAD_RES_ERR);
	if (uid) {
		MB(destroy_uctx_in) = { 0 };

		DEVX_SET(destroy_uctx_in, destroy_uctx_in, opcode,
			 MLX5_CMD_OP_DESTROY_UCTX);
		DEVX_SET(destroy_uctx_in, destroy_uctx_in, uid, uid);
		CHECK_EQ(t_cmd(d, destroy_uctx_in, sizeof(destroy_uctx_in),
			       general_obj_out_cmd_hdr,
			       sizeof(general_obj_out_cmd_hdr)), 0);
	}
}

/* One SCHEDULING_ELEMENT command; answers the status, *id the object. */
static unsigned int t_sched(struct smx_dev *d, uint16_t op, uint32_t obj,
			    uint32_t type, uint32_t parent, uint64_t select,
			    uint32_t share, uint32_t *id)
{
	MB(create_sched_elem_in) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };
	void *se = DEVX_ADDR_OF(create_sched_elem_in, create_sched_elem_in,
				sched_elem);
	void *sc = DEVX_ADDR_OF(sched_elem, se, sched_context);
	unsigned int st;

	DEVX_SET(general_obj_in_cmd_hdr, create_sched_elem_in, opcode, op);
	DEVX_SET(general_obj_in_cmd_hdr, create_sched_elem_in, obj_type,
		 MLX5_OBJ_TYPE_SCHEDULING_ELEMENT);
	DEVX_SET(general_obj_in_cmd_hdr, create_sched_elem_in, obj_id, obj);
	DEVX_SET64(sched_elem, se, modify_field_select, select);
	DEVX_SET(sched_elem, se, scheduling_hierarchy, MLX5_SCHED_HIERARCHY_NIC);
	DEVX_SET(sched_context, sc, element_type, type);
	DEVX_SET(sched_context, sc, parent_element_id, parent);
	DEVX_SET(sched_context, sc, bw_share, share);
	st = t_cmd(d, create_sched_elem_in, sizeof(create_sched_elem_in),
		   general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr));
	if (id)
		*id = DEVX_GET(general_obj_out_cmd_hdr, general_obj_out_cmd_hdr,
			       obj_id);
	return st;
}

/* The scheduling tree: TSAR roots and children, queue-group leaves only
 * under a TSAR, bw_share bound, parents busy while children live, query. */
static void test_sched_elements(struct smx_dev *d)
{
	const uint16_t C = MLX5_CMD_OP_CREATE_GENERAL_OBJECT;
	const uint16_t M = MLX5_CMD_OP_MODIFY_GENERAL_OBJECT;
	MB(general_obj_in_cmd_hdr) = { 0 };
	MB(query_sched_elem_out) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };
	uint32_t root = 0, node = 0, leaf = 0, bad = 0;

	CHECK_EQ(t_sched(d, C, 0, MLX5_SCHED_ELEM_TYPE_TSAR, 0, 0, 0, &root), 0);
	CHECK_EQ(t_sched(d, C, 0, MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP, 0, 0, 0,
			 &bad), MLX5_CMD_STAT_BAD_PARAM_ERR);	/* no parent */
	CHECK_EQ(t_sched(d, C, 0, 7, root, 0, 0, &bad),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);	/* element type 7 */
	CHECK_EQ(t_sched(d, C, 0, MLX5_SCHED_ELEM_TYPE_TSAR, root,
			 MLX5_SCHED_MODIFY_BW_SHARE, 0xffffffffu,
			 &bad), MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_sched(d, C, 0, MLX5_SCHED_ELEM_TYPE_TSAR, 0x7777, 0, 0,
			 &bad), MLX5_CMD_STAT_BAD_RES_ERR);	/* no parent */
	CHECK_EQ(t_sched(d, C, 0, MLX5_SCHED_ELEM_TYPE_TSAR, root,
			 MLX5_SCHED_MODIFY_BW_SHARE, 10, &node), 0);
	CHECK_EQ(t_sched(d, C, 0, MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP, node, 0, 0,
			 &leaf), 0);
	CHECK_EQ(t_sched(d, C, 0, MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP, leaf, 0, 0,
			 &bad), MLX5_CMD_STAT_BAD_PARAM_ERR);	/* leaf parent */
	/* modify: the element type must match; rates change */
	CHECK_EQ(t_sched(d, M, node, MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP, 0,
			 MLX5_SCHED_MODIFY_BW_SHARE, 3, NULL),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_sched(d, M, node, MLX5_SCHED_ELEM_TYPE_TSAR, 0,
			 MLX5_SCHED_MODIFY_BW_SHARE, 3, NULL), 0);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, opcode,
		 MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_type,
		 MLX5_OBJ_TYPE_SCHEDULING_ELEMENT);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_id, node);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       query_sched_elem_out, sizeof(query_sched_elem_out)), 0);
	CHECK_EQ(DEVX_GET(query_sched_elem_out, query_sched_elem_out,
			  sched_elem.sched_context.bw_share), 3);
	CHECK_EQ(DEVX_GET(query_sched_elem_out, query_sched_elem_out,
			  sched_elem.sched_context.parent_element_id), root);
	/* a parent with children cannot go; children first */
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, opcode,
		 MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 MLX5_CMD_STAT_RES_BUSY);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_id, leaf);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 0);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_id, node);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 0);
	DEVX_SET(general_obj_in_cmd_hdr, general_obj_in_cmd_hdr, obj_id, root);
	CHECK_EQ(t_cmd(d, general_obj_in_cmd_hdr, sizeof(general_obj_in_cmd_hdr),
		       general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)),
		 0);
}

int main(void)
{
	struct smx_dev *d = t_open();

	CHECK(d != NULL);
	if (!d)
		return smx_test_done();
	test_simple(d);
	test_umem_memic(d);
	test_eq_cq(d);
	test_srqs(d);
	test_mkey(d);
	test_rate_limit(d);
	test_general_objects(d);
	test_sched_elements(d);
	smx_dev_close(d);
	return smx_test_done();
}
