/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpus of fuzz_fw_cmd: real PRM command sequences in the
 * fuzzer's record format (u16 outlen, u16 inlen, mailbox), one file each.
 * Addresses are tagged 0xA5A5A5A5'<arena offset> for the fuzzer to patch.
 * Object numbers are those of a fresh device: PD, UAR, CQ, umem, mkey and
 * SRQ numbers start at 1, QPs at 0x100.
 *     gen_corpus DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"

#define TAG(off) (0xA5A5A5A500000000ull | (uint32_t)(off))

static uint8_t seq[1 << 16];
static size_t seq_len;

static void rec(const void *in, size_t inlen, size_t outlen)
{
	seq[seq_len++] = outlen & 0xff;
	seq[seq_len++] = outlen >> 8;
	seq[seq_len++] = inlen & 0xff;
	seq[seq_len++] = inlen >> 8;
	memcpy(seq + seq_len, in, inlen);
	seq_len += inlen;
}

static void emit(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(seq, 1, seq_len, f) != seq_len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	seq_len = 0;
}

#define MB(typ) uint32_t typ##_mb[DEVX_ST_SZ_DW(typ)]; memset(typ##_mb, 0, sizeof(typ##_mb))
#define OUT(typ) DEVX_ST_SZ_BYTES(typ)

static void simple(uint16_t op, uint32_t handle, size_t outlen)
{
	uint32_t in[4] = {};

	DEVX_SET(mbox_in, in, opcode, op);
	DEVX_SET(obj_handle_in, in, handle, handle);
	rec(in, sizeof(in), outlen);
}

static void be64put(void *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static void umem(uint32_t arena_off, unsigned int npages)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_umem_in) + npages * 8;
	uint8_t *in = calloc(1, inlen);
	void *um = DEVX_ADDR_OF(create_umem_in, in, umem);
	unsigned int i;

	DEVX_SET(create_umem_in, in, opcode, MLX5_CMD_OP_CREATE_UMEM);
	DEVX_SET64(umem, um, num_of_mtt, npages);
	for (i = 0; i < npages; i++)
		be64put((uint8_t *)um + DEVX_BYTE_OFF(umem, mtt) + i * 8,
			TAG(arena_off + i * 4096) | 3);
	rec(in, inlen, OUT(create_umem_out));
	free(in);
}

static void cq_pas(uint32_t eqn)
{
	size_t inlen = DEVX_ST_SZ_BYTES(create_cq_in) + 8;
	uint8_t *in = calloc(1, inlen);
	void *cqc = DEVX_ADDR_OF(create_cq_in, in, cq_context);

	DEVX_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(cqc, cqc, log_cq_size, 6);
	DEVX_SET(cqc, cqc, uar_page, 1);
	DEVX_SET(cqc, cqc, c_eqn, eqn);
	DEVX_SET64(cqc, cqc, dbr_addr, TAG(0x3f000));
	be64put(in + DEVX_ST_SZ_BYTES(create_cq_in), TAG(0x1000));
	rec(in, inlen, OUT(create_cq_out));
	free(in);
}

static void cq_umem(uint32_t buf_umem, uint32_t dbr_umem)
{
	MB(create_cq_in);
	void *cqc = DEVX_ADDR_OF(create_cq_in, create_cq_in_mb, cq_context);

	DEVX_SET(create_cq_in, create_cq_in_mb, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(create_cq_in, create_cq_in_mb, cq_umem_valid, 1);
	DEVX_SET(create_cq_in, create_cq_in_mb, cq_umem_id, buf_umem);
	DEVX_SET(cqc, cqc, log_cq_size, 6);
	DEVX_SET(cqc, cqc, uar_page, 1);
	DEVX_SET(cqc, cqc, dbr_umem_valid, 1);
	DEVX_SET(cqc, cqc, dbr_umem_id, dbr_umem);
	rec(create_cq_in_mb, sizeof(create_cq_in_mb), OUT(create_cq_out));
}

static void qp_umem(uint32_t st, uint32_t buf_umem, uint32_t dbr_umem)
{
	MB(create_qp_in);
	void *qpc = DEVX_ADDR_OF(create_qp_in, create_qp_in_mb, qpc);

	DEVX_SET(create_qp_in, create_qp_in_mb, opcode, MLX5_CMD_OP_CREATE_QP);
	DEVX_SET(qpc, qpc, st, st);
	DEVX_SET(qpc, qpc, pd, 1);
	DEVX_SET(qpc, qpc, pm_state, 3);
	DEVX_SET(qpc, qpc, log_rq_size, 4);
	DEVX_SET(qpc, qpc, log_rq_stride, 0);
	DEVX_SET(qpc, qpc, log_sq_size, 4);
	DEVX_SET(qpc, qpc, uar_page, 1);
	DEVX_SET(qpc, qpc, cqn_snd, 1);
	DEVX_SET(qpc, qpc, cqn_rcv, 1);
	DEVX_SET(qpc, qpc, dbr_umem_valid, 1);
	DEVX_SET(qpc, qpc, dbr_umem_id, dbr_umem);
	DEVX_SET(create_qp_in, create_qp_in_mb, wq_umem_valid, 1);
	DEVX_SET(create_qp_in, create_qp_in_mb, wq_umem_id, buf_umem);
	rec(create_qp_in_mb, sizeof(create_qp_in_mb), OUT(create_qp_out));
}

static void qp_transitions(uint32_t qpn)
{
	MB(rst2init_qp_in);
	MB(init2rtr_qp_in);
	MB(rtr2rts_qp_in);
	MB(query_qp_in);
	void *qpc;

	DEVX_SET(rst2init_qp_in, rst2init_qp_in_mb, opcode, MLX5_CMD_OP_RST2INIT_QP);
	DEVX_SET(rst2init_qp_in, rst2init_qp_in_mb, qpn, qpn);
	qpc = DEVX_ADDR_OF(rst2init_qp_in, rst2init_qp_in_mb, qpc);
	DEVX_SET(qpc, qpc, rre, 1);
	DEVX_SET(qpc, qpc, rwe, 1);
	DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	rec(rst2init_qp_in_mb, sizeof(rst2init_qp_in_mb), OUT(rst2init_qp_out));

	DEVX_SET(init2rtr_qp_in, init2rtr_qp_in_mb, opcode, MLX5_CMD_OP_INIT2RTR_QP);
	DEVX_SET(init2rtr_qp_in, init2rtr_qp_in_mb, qpn, qpn);
	qpc = DEVX_ADDR_OF(init2rtr_qp_in, init2rtr_qp_in_mb, qpc);
	DEVX_SET(qpc, qpc, mtu, 3);
	DEVX_SET(qpc, qpc, log_msg_max, 20);
	DEVX_SET(qpc, qpc, remote_qpn, qpn);
	DEVX_SET(qpc, qpc, min_rnr_nak, 12);
	DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	DEVX_SET(qpc, qpc, primary_address_path.hop_limit, 64);
	DEVX_SET(qpc, qpc, primary_address_path.udp_sport, 0xdcba);
	rec(init2rtr_qp_in_mb, sizeof(init2rtr_qp_in_mb), OUT(init2rtr_qp_out));

	DEVX_SET(rtr2rts_qp_in, rtr2rts_qp_in_mb, opcode, MLX5_CMD_OP_RTR2RTS_QP);
	DEVX_SET(rtr2rts_qp_in, rtr2rts_qp_in_mb, qpn, qpn);
	qpc = DEVX_ADDR_OF(rtr2rts_qp_in, rtr2rts_qp_in_mb, qpc);
	DEVX_SET(qpc, qpc, retry_count, 7);
	DEVX_SET(qpc, qpc, rnr_retry, 7);
	DEVX_SET(qpc, qpc, log_sra_max, 3);
	DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
	rec(rtr2rts_qp_in_mb, sizeof(rtr2rts_qp_in_mb), OUT(rtr2rts_qp_out));

	DEVX_SET(query_qp_in, query_qp_in_mb, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, query_qp_in_mb, qpn, qpn);
	rec(query_qp_in_mb, sizeof(query_qp_in_mb), OUT(query_qp_out));
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	uint32_t big[64];

	/* capabilities: general (full and pyverbs' 0x810), ODP, RoCE, DM, bad */
	{
		static const uint16_t types[] = { 0x0, 0x2, 0x4, 0xf, 0x3f };
		unsigned int i;

		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
			MB(query_hca_cap_in);
			DEVX_SET(query_hca_cap_in, query_hca_cap_in_mb, opcode,
				 MLX5_CMD_OP_QUERY_HCA_CAP);
			DEVX_SET(query_hca_cap_in, query_hca_cap_in_mb, op_mod,
				 types[i] << 1 | 1);
			rec(query_hca_cap_in_mb, sizeof(query_hca_cap_in_mb), 0x1010);
			rec(query_hca_cap_in_mb, sizeof(query_hca_cap_in_mb), 0x810);
		}
		emit(dir, "query_hca_cap");
	}
	/* identity and vport queries */
	simple(MLX5_CMD_OP_QUERY_ADAPTER, 0, OUT(query_adapter_out));
	simple(MLX5_CMD_OP_NOP, 0, 16);
	{
		MB(query_roce_address_in);
		MB(query_hca_vport_gid_in);

		DEVX_SET(query_roce_address_in, query_roce_address_in_mb, opcode,
			 MLX5_CMD_OP_QUERY_ROCE_ADDRESS);
		DEVX_SET(query_roce_address_in, query_roce_address_in_mb, vhca_port_num, 1);
		rec(query_roce_address_in_mb, sizeof(query_roce_address_in_mb),
		    OUT(query_roce_address_out));
		DEVX_SET(query_hca_vport_gid_in, query_hca_vport_gid_in_mb, opcode,
			 MLX5_CMD_OP_QUERY_HCA_VPORT_GID);
		DEVX_SET(query_hca_vport_gid_in, query_hca_vport_gid_in_mb, port_num, 1);
		rec(query_hca_vport_gid_in_mb, sizeof(query_hca_vport_gid_in_mb),
		    OUT(query_hca_vport_gid_out));
	}
	simple(MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, OUT(query_hca_vport_context_out));
	simple(MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY, 0, OUT(query_hca_vport_pkey_out));
	simple(MLX5_CMD_OP_QUERY_VPORT_STATE, 0, OUT(query_vport_state_out));
	simple(MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, 0, OUT(query_nic_vport_context_out));
	emit(dir, "queries");

	/* bad opcodes and lengths */
	simple(0x7fff, 0, 16);
	simple(0x0000, 0, 16);
	simple(MLX5_CMD_OP_CREATE_QP, 0, 16);
	memset(big, 0, sizeof(big));
	DEVX_SET(mbox_in, big, opcode, MLX5_CMD_OP_ALLOC_PD);
	rec(big, 8, 16);
	rec(big, 16, 4);
	emit(dir, "bad_opcodes");

	/* PD, UAR, TD, XRCD lifecycles */
	simple(MLX5_CMD_OP_ALLOC_PD, 0, OUT(alloc_pd_out));
	simple(MLX5_CMD_OP_ALLOC_UAR, 0, OUT(alloc_uar_out));
	simple(MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, OUT(alloc_transport_domain_out));
	simple(MLX5_CMD_OP_ALLOC_XRCD, 0, OUT(alloc_xrcd_out));
	simple(MLX5_CMD_OP_DEALLOC_PD, 1, 16);
	simple(MLX5_CMD_OP_DEALLOC_PD, 1, 16);	/* twice */
	simple(MLX5_CMD_OP_DEALLOC_UAR, 1, 16);
	simple(MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 1, 16);
	simple(MLX5_CMD_OP_DEALLOC_XRCD, 1, 16);
	emit(dir, "alloc_dealloc");

	/* crypto: caps page, a login with the default test credential wrapped
	 * by the default test KEK, a wrapped 128-bit DEK, queries, destroys
	 * (the wrapped bytes are softmlx5 crypto-test-data's for the built-in
	 * configuration) */
	{
		static const char wcred[] =
			"9f37e8cbd336eab00ac00c3f83ce9b2e166723e9b68bac5b"
			"2d7e4c9b3e4f9129065712160fe05e508af39077c5970c85";
		static const char wkey[] =
			"ad98a849a140724d24928ba55980e747032734b2f281e2b7"
			"d8244281b813c02b62c0fd868f4c6c83";
		uint8_t login[DEVX_ST_SZ_BYTES(create_crypto_login_obj_in)] = { 0 };
		uint8_t dek[DEVX_ST_SZ_BYTES(create_encryption_key_obj_in)] = { 0 };
		uint8_t *p;
		unsigned int i, v;
		MB(query_hca_cap_in);

		DEVX_SET(query_hca_cap_in, query_hca_cap_in_mb, opcode,
			 MLX5_CMD_OP_QUERY_HCA_CAP);
		DEVX_SET(query_hca_cap_in, query_hca_cap_in_mb, op_mod,
			 MLX5_CAP_CRYPTO << 1 | 1);
		rec(query_hca_cap_in_mb, sizeof(query_hca_cap_in_mb), 0x1010);
		simple(MLX5_CMD_OP_ALLOC_PD, 0, OUT(alloc_pd_out));
		DEVX_SET(general_obj_in_cmd_hdr, login, opcode,
			 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
		DEVX_SET(general_obj_in_cmd_hdr, login, obj_type,
			 MLX5_OBJ_TYPE_CRYPTO_LOGIN);
		p = DEVX_ADDR_OF(create_crypto_login_obj_in, login,
				 login_obj.credential);
		for (i = 0; i < 48; i++) {
			sscanf(wcred + 2 * i, "%2x", &v);
			p[i] = (uint8_t)v;
		}
		rec(login, sizeof(login), OUT(general_obj_out_cmd_hdr));
		DEVX_SET(general_obj_in_cmd_hdr, dek, opcode,
			 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
		DEVX_SET(general_obj_in_cmd_hdr, dek, obj_type, MLX5_OBJ_TYPE_DEK);
		DEVX_SET(create_encryption_key_obj_in, dek, key_obj.key_purpose,
			 MLX5_ENCRYPTION_KEY_OBJ_KEY_PURPOSE_AES_XTS);
		DEVX_SET(create_encryption_key_obj_in, dek, key_obj.pd, 1);
		p = DEVX_ADDR_OF(create_encryption_key_obj_in, dek, key_obj.key);
		for (i = 0; i < 40; i++) {
			sscanf(wkey + 2 * i, "%2x", &v);
			p[i] = (uint8_t)v;
		}
		rec(dek, sizeof(dek), OUT(general_obj_out_cmd_hdr));
		/* general objects number from 1: login 1, DEK 2 */
		memset(big, 0, 16);
		DEVX_SET(general_obj_in_cmd_hdr, big, opcode,
			 MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
		DEVX_SET(general_obj_in_cmd_hdr, big, obj_type, MLX5_OBJ_TYPE_DEK);
		DEVX_SET(general_obj_in_cmd_hdr, big, obj_id, 2);
		rec(big, 16, OUT(query_encryption_key_obj_out));
		DEVX_SET(general_obj_in_cmd_hdr, big, obj_type,
			 MLX5_OBJ_TYPE_CRYPTO_LOGIN);
		DEVX_SET(general_obj_in_cmd_hdr, big, obj_id, 1);
		rec(big, 16, OUT(query_crypto_login_obj_out));
		DEVX_SET(general_obj_in_cmd_hdr, big, opcode,
			 MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
		rec(big, 16, OUT(general_obj_out_cmd_hdr));
		DEVX_SET(general_obj_in_cmd_hdr, big, obj_type, MLX5_OBJ_TYPE_DEK);
		DEVX_SET(general_obj_in_cmd_hdr, big, obj_id, 2);
		rec(big, 16, OUT(general_obj_out_cmd_hdr));
		emit(dir, "crypto");
	}

	/* user contexts: a uid, an object under it, destroy with it alive */
	{
		MB(create_uctx_in);

		DEVX_SET(create_uctx_in, create_uctx_in_mb, opcode, MLX5_CMD_OP_CREATE_UCTX);
		rec(create_uctx_in_mb, sizeof(create_uctx_in_mb),
		    OUT(general_obj_out_cmd_hdr));
		memset(big, 0, 16);
		DEVX_SET(mbox_in, big, opcode, MLX5_CMD_OP_ALLOC_PD);
		DEVX_SET(mbox_in, big, uid, 1);
		rec(big, 16, OUT(alloc_pd_out));
		memset(big, 0, 16);
		DEVX_SET(destroy_uctx_in, big, opcode, MLX5_CMD_OP_DESTROY_UCTX);
		DEVX_SET(destroy_uctx_in, big, uid, 1);
		rec(big, DEVX_ST_SZ_BYTES(destroy_uctx_in), 16);
		emit(dir, "uctx");
	}

	/* CQ on PAS pages, then query, modify, destroy */
	simple(MLX5_CMD_OP_ALLOC_UAR, 0, OUT(alloc_uar_out));
	cq_pas(0);
	simple(MLX5_CMD_OP_QUERY_CQ, 1, OUT(query_cq_out));
	{
		MB(modify_cq_in);

		DEVX_SET(modify_cq_in, modify_cq_in_mb, opcode, MLX5_CMD_OP_MODIFY_CQ);
		DEVX_SET(modify_cq_in, modify_cq_in_mb, cqn, 1);
		DEVX_SET(modify_cq_in, modify_cq_in_mb, modify_field_select_resize_field_select, 3);
		rec(modify_cq_in_mb, sizeof(modify_cq_in_mb), 16);
	}
	simple(MLX5_CMD_OP_DESTROY_CQ, 1, 16);
	simple(MLX5_CMD_OP_DESTROY_CQ, 1, 16);
	emit(dir, "cq_pas");

	/* The DEVX way: umems, CQ and RC QP on them, RST->RTS, teardown */
	simple(MLX5_CMD_OP_ALLOC_UAR, 0, OUT(alloc_uar_out));
	simple(MLX5_CMD_OP_ALLOC_PD, 0, OUT(alloc_pd_out));
	umem(0x2000, 1);	/* 1: CQ buffer */
	umem(0x3000, 1);	/* 2: CQ doorbell */
	umem(0x4000, 2);	/* 3: QP buffer */
	umem(0x6000, 1);	/* 4: QP doorbell */
	cq_umem(1, 2);
	qp_umem(0, 3, 4);
	qp_transitions(0x100);
	simple(MLX5_CMD_OP_2ERR_QP, 0x100, OUT(qp_2err_out));
	simple(MLX5_CMD_OP_2RST_QP, 0x100, OUT(qp_2rst_out));
	simple(MLX5_CMD_OP_DESTROY_QP, 0x100, 16);
	simple(MLX5_CMD_OP_DESTROY_CQ, 1, 16);
	simple(MLX5_CMD_OP_DESTROY_UMEM, 1, 16);
	emit(dir, "devx_rc_qp");

	/* UD QP straight to RTS would need a GRH-less path: just create it */
	simple(MLX5_CMD_OP_ALLOC_UAR, 0, OUT(alloc_uar_out));
	simple(MLX5_CMD_OP_ALLOC_PD, 0, OUT(alloc_pd_out));
	umem(0x2000, 1);
	umem(0x3000, 1);
	umem(0x4000, 2);
	umem(0x6000, 1);
	cq_umem(1, 2);
	qp_umem(3, 3, 4);
	emit(dir, "devx_ud_qp");

	/* mkeys: PA and MTT on a umem, query, destroy */
	simple(MLX5_CMD_OP_ALLOC_PD, 0, OUT(alloc_pd_out));
	umem(0x8000, 4);
	{
		MB(create_mkey_in);
		void *mkc = DEVX_ADDR_OF(create_mkey_in, create_mkey_in_mb, memory_key_mkey_entry);

		DEVX_SET(create_mkey_in, create_mkey_in_mb, opcode, MLX5_CMD_OP_CREATE_MKEY);
		DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
		DEVX_SET(mkc, mkc, lr, 1);
		DEVX_SET(mkc, mkc, lw, 1);
		DEVX_SET(mkc, mkc, rr, 1);
		DEVX_SET(mkc, mkc, pd, 1);
		DEVX_SET(mkc, mkc, mkey_7_0, 0x42);
		DEVX_SET(mkc, mkc, qpn, 0xffffff);
		DEVX_SET64(mkc, mkc, start_addr, TAG(0x8000));
		DEVX_SET64(mkc, mkc, len, 0x4000);
		rec(create_mkey_in_mb, sizeof(create_mkey_in_mb), OUT(create_mkey_out));
		DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
		DEVX_SET(mkc, mkc, log_page_size, 12);
		DEVX_SET(mkc, mkc, translations_octword_size, 2);
		DEVX_SET(create_mkey_in, create_mkey_in_mb, mkey_umem_valid, 1);
		DEVX_SET(create_mkey_in, create_mkey_in_mb, mkey_umem_id, 1);
		rec(create_mkey_in_mb, sizeof(create_mkey_in_mb), OUT(create_mkey_out));
		DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
		rec(create_mkey_in_mb, sizeof(create_mkey_in_mb), OUT(create_mkey_out));
	}
	simple(MLX5_CMD_OP_QUERY_MKEY, 1, OUT(query_mkey_out));
	simple(MLX5_CMD_OP_DESTROY_MKEY, 1, 16);
	simple(MLX5_CMD_OP_DESTROY_MKEY, 2, 16);
	simple(MLX5_CMD_OP_DESTROY_UMEM, 1, 16);
	emit(dir, "mkeys");

	/* SRQ on PAS pages, an EQ on PAS pages, memic */
	simple(MLX5_CMD_OP_ALLOC_PD, 0, OUT(alloc_pd_out));
	{
		size_t inlen = DEVX_ST_SZ_BYTES(create_srq_in) + 8;
		uint8_t *in = calloc(1, inlen);
		void *srqc = DEVX_ADDR_OF(create_srq_in, in, srq_context_entry);

		DEVX_SET(create_srq_in, in, opcode, MLX5_CMD_OP_CREATE_SRQ);
		DEVX_SET(srqc, srqc, log_srq_size, 4);
		DEVX_SET(srqc, srqc, log_rq_stride, 2);
		DEVX_SET(srqc, srqc, pd, 1);
		DEVX_SET64(srqc, srqc, dbr_addr, TAG(0x3e000));
		be64put(in + DEVX_ST_SZ_BYTES(create_srq_in), TAG(0xa000));
		rec(in, inlen, OUT(create_srq_out));
		free(in);
	}
	simple(MLX5_CMD_OP_QUERY_SRQ, 1, OUT(query_srq_out));
	simple(MLX5_CMD_OP_DESTROY_SRQ, 1, 16);
	simple(MLX5_CMD_OP_ALLOC_UAR, 0, OUT(alloc_uar_out));
	{
		size_t inlen = DEVX_ST_SZ_BYTES(create_eq_in) + 8;
		uint8_t *in = calloc(1, inlen);
		void *eqc = DEVX_ADDR_OF(create_eq_in, in, eq_context_entry);

		DEVX_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
		DEVX_SET(eqc, eqc, log_eq_size, 6);
		DEVX_SET(eqc, eqc, uar_page, 1);
		DEVX_SET(eqc, eqc, intr, 200);
		be64put(in + DEVX_ST_SZ_BYTES(create_eq_in), TAG(0xc000));
		rec(in, inlen, OUT(create_eq_out));
		free(in);
	}
	{
		MB(alloc_memic_in);

		DEVX_SET(alloc_memic_in, alloc_memic_in_mb, opcode, MLX5_CMD_OP_ALLOC_MEMIC);
		DEVX_SET(alloc_memic_in, alloc_memic_in_mb, memic_size, 256);
		rec(alloc_memic_in_mb, sizeof(alloc_memic_in_mb), OUT(alloc_memic_out));
	}
	emit(dir, "srq_eq_memic");

	/* RMP: linked list on a PAS page, lwm armed, queried, destroyed */
	simple(MLX5_CMD_OP_ALLOC_PD, 0, OUT(alloc_pd_out));
	{
		size_t inlen = DEVX_ST_SZ_BYTES(create_rmp_in) + 8;
		uint8_t *in = calloc(1, inlen);
		void *rmpc = DEVX_ADDR_OF(create_rmp_in, in, ctx);
		void *wq = DEVX_ADDR_OF(rmpc, rmpc, wq);

		DEVX_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);
		DEVX_SET(rmpc, rmpc, state, MLX5_RMPC_STATE_RDY);
		DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_LINKED_LIST);
		DEVX_SET(wq, wq, pd, 1);
		DEVX_SET64(wq, wq, dbr_addr, TAG(0x3e040));
		DEVX_SET(wq, wq, log_wq_stride, 6);
		DEVX_SET(wq, wq, log_wq_sz, 4);
		be64put(in + DEVX_ST_SZ_BYTES(create_rmp_in), TAG(0xe000));
		rec(in, inlen, OUT(create_rmp_out));
		free(in);
	}
	{
		MB(modify_rmp_in);

		DEVX_SET(modify_rmp_in, modify_rmp_in_mb, opcode, MLX5_CMD_OP_MODIFY_RMP);
		DEVX_SET(modify_rmp_in, modify_rmp_in_mb, rmpn, 1);
		DEVX_SET(modify_rmp_in, modify_rmp_in_mb, rmp_state, MLX5_RMPC_STATE_RDY);
		DEVX_SET(modify_rmp_in, modify_rmp_in_mb, bitmask.lwm, 1);
		DEVX_SET(modify_rmp_in, modify_rmp_in_mb, ctx.state, MLX5_RMPC_STATE_RDY);
		DEVX_SET(modify_rmp_in, modify_rmp_in_mb, ctx.wq.lwm, 4);
		rec(modify_rmp_in_mb, sizeof(modify_rmp_in_mb), OUT(modify_rmp_out));
		DEVX_SET(modify_rmp_in, modify_rmp_in_mb, bitmask.lwm, 0);
		DEVX_SET(modify_rmp_in, modify_rmp_in_mb, ctx.state, MLX5_RMPC_STATE_ERR);
		rec(modify_rmp_in_mb, sizeof(modify_rmp_in_mb), OUT(modify_rmp_out));
	}
	simple(MLX5_CMD_OP_QUERY_RMP, 1, OUT(query_rmp_out));
	simple(MLX5_CMD_OP_DESTROY_RMP, 1, 16);
	emit(dir, "rmp");

	/* RSS and CQE compression: a compressing CQ, an RQ, an RQ table of
	 * two entries, an indirect Toeplitz TIR; the table queried and cut to
	 * one entry; everything destroyed, the table after its TIR */
	simple(MLX5_CMD_OP_ALLOC_UAR, 0, OUT(alloc_uar_out));
	simple(MLX5_CMD_OP_ALLOC_PD, 0, OUT(alloc_pd_out));
	simple(MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, OUT(alloc_transport_domain_out));
	{
		size_t inlen = DEVX_ST_SZ_BYTES(create_cq_in) + 8;
		uint8_t *in = calloc(1, inlen);
		void *cqc = DEVX_ADDR_OF(create_cq_in, in, cq_context);

		DEVX_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
		DEVX_SET(cqc, cqc, log_cq_size, 6);
		DEVX_SET(cqc, cqc, uar_page, 1);
		DEVX_SET(cqc, cqc, cqe_comp_en, 1);
		DEVX_SET(cqc, cqc, mini_cqe_res_format, 1);
		DEVX_SET64(cqc, cqc, dbr_addr, TAG(0x3f000));
		be64put(in + DEVX_ST_SZ_BYTES(create_cq_in), TAG(0x1000));
		rec(in, inlen, OUT(create_cq_out));
		free(in);
	}
	{
		size_t inlen = DEVX_ST_SZ_BYTES(create_rq_in) + 8;
		uint8_t *in = calloc(1, inlen);
		void *rqc = DEVX_ADDR_OF(create_rq_in, in, ctx);
		void *wq = DEVX_ADDR_OF(rqc, rqc, wq);

		DEVX_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
		DEVX_SET(rqc, rqc, cqn, 1);
		DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
		DEVX_SET(wq, wq, pd, 1);
		DEVX_SET64(wq, wq, dbr_addr, TAG(0x3e080));
		DEVX_SET(wq, wq, log_wq_stride, 6);
		DEVX_SET(wq, wq, log_wq_sz, 4);
		be64put(in + DEVX_ST_SZ_BYTES(create_rq_in), TAG(0xf000));
		rec(in, inlen, OUT(create_rq_out));
		free(in);
	}
	{
		/* RQs are numbered from 0x800001 (fw.h FW_RQN_PREFIX) */
		size_t inlen = DEVX_ST_SZ_BYTES(create_rqt_in) + 8;
		uint8_t *in = calloc(1, inlen);
		uint8_t *rqtc = DEVX_ADDR_OF(create_rqt_in, in, rqt_context);

		DEVX_SET(create_rqt_in, in, opcode, MLX5_CMD_OP_CREATE_RQT);
		DEVX_SET(rqtc, rqtc, rqt_max_size, 2);
		DEVX_SET(rqtc, rqtc, rqt_actual_size, 2);
		DEVX_SET(rq_num, rqtc + DEVX_ST_SZ_BYTES(rqtc), rq_num, 0x800001);
		DEVX_SET(rq_num, rqtc + DEVX_ST_SZ_BYTES(rqtc) + 4, rq_num, 0x800001);
		rec(in, inlen, OUT(create_rqt_out));
		DEVX_SET(modify_rqt_in, in, opcode, MLX5_CMD_OP_MODIFY_RQT);
		DEVX_SET(modify_rqt_in, in, rqtn, 1);
		DEVX_SET(modify_rqt_in, in, rqn_list, 1);
		DEVX_SET(rqtc, rqtc, rqt_actual_size, 1);
		rec(in, inlen - 4, 16);
		free(in);
	}
	{
		MB(create_tir_in);
		void *ctx = DEVX_ADDR_OF(create_tir_in, create_tir_in_mb, ctx);
		void *sel = DEVX_ADDR_OF(tirc, ctx, rx_hash_field_selector_outer);

		DEVX_SET(create_tir_in, create_tir_in_mb, opcode, MLX5_CMD_OP_CREATE_TIR);
		DEVX_SET(tirc, ctx, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
		DEVX_SET(tirc, ctx, indirect_table, 1);
		DEVX_SET(tirc, ctx, transport_domain, 1);
		DEVX_SET(tirc, ctx, rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
		DEVX_SET(rx_hash_field_select, sel, l4_prot_type, MLX5_L4_PROT_TYPE_UDP);
		DEVX_SET(rx_hash_field_select, sel, selected_fields, 0xf);
		rec(create_tir_in_mb, sizeof(create_tir_in_mb), OUT(create_tir_out));
	}
	simple(MLX5_CMD_OP_QUERY_RQT, 1, OUT(query_rqt_out) + 8);
	simple(MLX5_CMD_OP_DESTROY_RQT, 1, 16);	/* busy: the TIR uses it */
	simple(MLX5_CMD_OP_DESTROY_TIR, 1, 16);
	simple(MLX5_CMD_OP_DESTROY_RQT, 1, 16);
	simple(MLX5_CMD_OP_DESTROY_RQ, 0x800001, 16);
	simple(MLX5_CMD_OP_DESTROY_CQ, 1, 16);
	emit(dir, "rss_comp");

	/* NIC TX steering: a modify header context, a TX root and a level-1
	 * table, a group, an entry forwarding with a rewrite and a VLAN push;
	 * the context freed while used (busy), then in order */
	{
		size_t inlen = DEVX_ST_SZ_BYTES(alloc_modify_header_context_in) + 16;
		uint8_t *in = calloc(1, inlen);
		uint8_t *a = in + DEVX_ST_SZ_BYTES(alloc_modify_header_context_in);

		DEVX_SET(alloc_modify_header_context_in, in, opcode,
			 MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT);
		DEVX_SET(alloc_modify_header_context_in, in, table_type,
			 MLX5_FLOW_TABLE_TYPE_NIC_TX);
		DEVX_SET(alloc_modify_header_context_in, in, num_of_actions, 2);
		DEVX_SET(set_action_in, a, action_type, MLX5_ACTION_TYPE_SET);
		DEVX_SET(set_action_in, a, field, MLX5_ACTION_IN_FIELD_OUT_SMAC_47_16);
		DEVX_SET(set_action_in, a, data, 0x88888888);
		DEVX_SET(set_action_in, a + 8, action_type, MLX5_ACTION_TYPE_SET);
		DEVX_SET(set_action_in, a + 8, field, MLX5_ACTION_IN_FIELD_OUT_SMAC_15_0);
		DEVX_SET(set_action_in, a + 8, length, 16);
		DEVX_SET(set_action_in, a + 8, data, 0x8888);
		rec(in, inlen, OUT(alloc_modify_header_context_out));
		free(in);
	}
	for (unsigned int level = 0; level < 2; level++) {
		MB(create_flow_table_in);

		DEVX_SET(create_flow_table_in, create_flow_table_in_mb, opcode,
			 MLX5_CMD_OP_CREATE_FLOW_TABLE);
		DEVX_SET(create_flow_table_in, create_flow_table_in_mb, table_type,
			 MLX5_FLOW_TABLE_TYPE_NIC_TX);
		DEVX_SET(create_flow_table_in, create_flow_table_in_mb,
			 flow_table_context.level, level);
		DEVX_SET(create_flow_table_in, create_flow_table_in_mb,
			 flow_table_context.log_size, 4);
		rec(create_flow_table_in_mb, sizeof(create_flow_table_in_mb),
		    OUT(create_flow_table_out));
	}
	{
		MB(set_flow_table_root_in);

		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in_mb, opcode,
			 MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in_mb, table_type,
			 MLX5_FLOW_TABLE_TYPE_NIC_TX);
		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in_mb, table_id, 1);
		rec(set_flow_table_root_in_mb, sizeof(set_flow_table_root_in_mb), 16);
	}
	{
		uint8_t *in = calloc(1, DEVX_ST_SZ_BYTES(create_flow_group_in));

		DEVX_SET(create_flow_group_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
		DEVX_SET(create_flow_group_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_TX);
		DEVX_SET(create_flow_group_in, in, table_id, 1);
		DEVX_SET(create_flow_group_in, in, end_flow_index, 3);
		DEVX_SET(create_flow_group_in, in, match_criteria_enable,
			 MLX5_MATCH_OUTER_HEADERS);
		DEVX_SET(create_flow_group_in, in, match_criteria.outer_headers.smac_47_16,
			 0xffffffff);
		rec(in, DEVX_ST_SZ_BYTES(create_flow_group_in), OUT(create_flow_group_out));
		free(in);
	}
	{
		size_t inlen = DEVX_ST_SZ_BYTES(set_fte_in) + 8;
		uint8_t *in = calloc(1, inlen);
		void *fc = DEVX_ADDR_OF(set_fte_in, in, flow_context);
		uint8_t *d = (uint8_t *)fc + DEVX_BYTE_OFF(flow_context, destination);

		DEVX_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
		DEVX_SET(set_fte_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_TX);
		DEVX_SET(set_fte_in, in, table_id, 1);
		DEVX_SET(flow_context, fc, group_id, 1);
		DEVX_SET(flow_context, fc, action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
			 MLX5_FLOW_CONTEXT_ACTION_MOD_HDR |
			 MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH);
		DEVX_SET(flow_context, fc, modify_header_id, 1);
		DEVX_SET(flow_context, fc, push_vlan, 0x81002005);
		DEVX_SET(flow_context, fc, destination_list_size, 1);
		DEVX_SET(flow_context, fc, match_value.outer_headers.smac_47_16,
			 0x02112233);
		DEVX_SET(dest_format, d, destination_type,
			 MLX5_FLOW_DESTINATION_TYPE_FLOW_TABLE);
		DEVX_SET(dest_format, d, destination_id, 2);
		rec(in, inlen, 16);
		free(in);
	}
	{
		MB(dealloc_modify_header_context_in);
		MB(delete_fte_in);

		DEVX_SET(dealloc_modify_header_context_in,
			 dealloc_modify_header_context_in_mb, opcode,
			 MLX5_CMD_OP_DEALLOC_MODIFY_HEADER_CONTEXT);
		DEVX_SET(dealloc_modify_header_context_in,
			 dealloc_modify_header_context_in_mb, modify_header_id, 1);
		rec(dealloc_modify_header_context_in_mb,
		    sizeof(dealloc_modify_header_context_in_mb), 16);
		DEVX_SET(delete_fte_in, delete_fte_in_mb, opcode,
			 MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
		DEVX_SET(delete_fte_in, delete_fte_in_mb, table_type,
			 MLX5_FLOW_TABLE_TYPE_NIC_TX);
		DEVX_SET(delete_fte_in, delete_fte_in_mb, table_id, 1);
		rec(delete_fte_in_mb, sizeof(delete_fte_in_mb), 16);
		rec(dealloc_modify_header_context_in_mb,
		    sizeof(dealloc_modify_header_context_in_mb), 16);
	}
	emit(dir, "nic_tx_steering");

	/* Packet reformat: an L3 tunnel type refused, a 50-byte VXLAN encap
	 * context, a NIC TX root with an ALLOW | PACKET_REFORMAT entry, a NIC
	 * RX table with a DROP | DECAP entry; the context freed while used
	 * (busy), then after the entry */
	for (unsigned int i = 0; i < 2; i++) {
		const unsigned int type = i ? MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL :
					  MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2;
		size_t at = DEVX_BYTE_OFF(alloc_packet_reformat_context_in,
					  packet_reformat_context.reformat_data);
		uint8_t *in = calloc(1, at + 50);

		DEVX_SET(alloc_packet_reformat_context_in, in, opcode,
			 MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT);
		DEVX_SET(alloc_packet_reformat_context_in, in,
			 packet_reformat_context.reformat_type, type);
		DEVX_SET(alloc_packet_reformat_context_in, in,
			 packet_reformat_context.reformat_data_size, 50);
		memset(in + at, 0x02, 12);	/* MACs */
		in[at + 12] = 0x08;		/* IPv4 */
		in[at + 14] = 0x45;
		in[at + 23] = 17;		/* UDP */
		in[at + 36] = 0x12;		/* dport 4789 */
		in[at + 37] = 0xb5;
		in[at + 42] = 0x08;		/* VXLAN I flag */
		rec(in, at + 50, OUT(alloc_packet_reformat_context_out));
		free(in);
	}
	for (unsigned int tt = MLX5_FLOW_TABLE_TYPE_NIC_RX;
	     tt <= MLX5_FLOW_TABLE_TYPE_NIC_TX; tt++) {
		MB(create_flow_table_in);
		MB(set_flow_table_root_in);
		uint8_t *fg = calloc(1, DEVX_ST_SZ_BYTES(create_flow_group_in));
		uint8_t *in = calloc(1, DEVX_ST_SZ_BYTES(set_fte_in));
		void *fc = DEVX_ADDR_OF(set_fte_in, in, flow_context);

		DEVX_SET(create_flow_table_in, create_flow_table_in_mb, opcode,
			 MLX5_CMD_OP_CREATE_FLOW_TABLE);
		DEVX_SET(create_flow_table_in, create_flow_table_in_mb, table_type, tt);
		DEVX_SET(create_flow_table_in, create_flow_table_in_mb,
			 flow_table_context.log_size, 2);
		DEVX_SET(create_flow_table_in, create_flow_table_in_mb,
			 flow_table_context.reformat_en, tt == MLX5_FLOW_TABLE_TYPE_NIC_TX);
		DEVX_SET(create_flow_table_in, create_flow_table_in_mb,
			 flow_table_context.decap_en, tt == MLX5_FLOW_TABLE_TYPE_NIC_RX);
		rec(create_flow_table_in_mb, sizeof(create_flow_table_in_mb),
		    OUT(create_flow_table_out));
		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in_mb, opcode,
			 MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in_mb,
			 table_type, tt);
		DEVX_SET(set_flow_table_root_in, set_flow_table_root_in_mb,
			 table_id, tt + 1);
		rec(set_flow_table_root_in_mb, sizeof(set_flow_table_root_in_mb), 16);
		DEVX_SET(create_flow_group_in, fg, opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
		DEVX_SET(create_flow_group_in, fg, table_type, tt);
		DEVX_SET(create_flow_group_in, fg, table_id, tt + 1);
		DEVX_SET(create_flow_group_in, fg, end_flow_index, 3);
		rec(fg, DEVX_ST_SZ_BYTES(create_flow_group_in),
		    OUT(create_flow_group_out));
		DEVX_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
		DEVX_SET(set_fte_in, in, table_type, tt);
		DEVX_SET(set_fte_in, in, table_id, tt + 1);
		DEVX_SET(flow_context, fc, group_id, tt + 1);
		DEVX_SET(flow_context, fc, action, tt == MLX5_FLOW_TABLE_TYPE_NIC_TX ?
			 MLX5_FLOW_CONTEXT_ACTION_ALLOW |
			 MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT :
			 MLX5_FLOW_CONTEXT_ACTION_DROP | MLX5_FLOW_CONTEXT_ACTION_DECAP);
		DEVX_SET(flow_context, fc, packet_reformat_id, 1);
		rec(in, DEVX_ST_SZ_BYTES(set_fte_in), 16);
		free(fg);
		free(in);
	}
	{
		MB(dealloc_packet_reformat_context_in);
		MB(delete_fte_in);

		DEVX_SET(dealloc_packet_reformat_context_in,
			 dealloc_packet_reformat_context_in_mb, opcode,
			 MLX5_CMD_OP_DEALLOC_PACKET_REFORMAT_CONTEXT);
		DEVX_SET(dealloc_packet_reformat_context_in,
			 dealloc_packet_reformat_context_in_mb, packet_reformat_id, 1);
		rec(dealloc_packet_reformat_context_in_mb,
		    sizeof(dealloc_packet_reformat_context_in_mb), 16);
		DEVX_SET(delete_fte_in, delete_fte_in_mb, opcode,
			 MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
		DEVX_SET(delete_fte_in, delete_fte_in_mb, table_type,
			 MLX5_FLOW_TABLE_TYPE_NIC_TX);
		DEVX_SET(delete_fte_in, delete_fte_in_mb, table_id, 2);
		rec(delete_fte_in_mb, sizeof(delete_fte_in_mb), 16);
		rec(dealloc_packet_reformat_context_in_mb,
		    sizeof(dealloc_packet_reformat_context_in_mb), 16);
	}
	emit(dir, "packet_reformat");
	return 0;
}
