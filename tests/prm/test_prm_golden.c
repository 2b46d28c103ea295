/* SPDX-License-Identifier: MIT */
/*
 * PRM golden vectors. Expected byte positions below are written by hand from
 * the PRM (facts: rdma-core v44 providers/mlx5/mlx5_ifc.h, tests/
 * mlx5_prm_structs.py and Linux include/linux/mlx5/mlx5_ifc.h), NOT derived
 * from our own headers, so a wrong layout in src/prm cannot agree with itself.
 *
 * (a) set a field through our layout, check the PRM byte position;
 * (b) run complete hand-assembled mailboxes through smx_dev_cmd() and check
 *     the answer bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "prm/prm.h"
#include "smx_test.h"

static uint8_t buf[0x1100] __attribute__((aligned(8)));

#define FRESH() memset(buf, 0, sizeof(buf))

/* (a) ------------------------------------------------------------------ */

static void golden_caps(void)
{
	uint8_t *cap = buf + 16;	/* QUERY_HCA_CAP output: capability at byte 16 */

	FRESH();
	DEVX_SET(cmd_hca_cap, cap, port_type, 1);
	CHECK_EQ(buf[70], 0x01);	/* port_type: byte 70 bits 1:0 */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, num_ports, 0xab);
	CHECK_EQ(buf[71], 0xab);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_qp, 0x1f);
	CHECK_EQ(buf[16 + 19], 0x1f);	/* cap bit 0x9b, 5 bits */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_qp_sz, 0xa5);
	CHECK_EQ(buf[16 + 17], 0xa5);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_srq_sz, 0x5a);
	CHECK_EQ(buf[16 + 16], 0x5a);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_cq_sz, 0x77);
	CHECK_EQ(buf[16 + 25], 0x77);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_cq, 0x1f);
	CHECK_EQ(buf[16 + 27], 0x1f);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_mkey, 0x3f);
	CHECK_EQ(buf[16 + 29], 0x3f);	/* bit 0xea, 6 bits */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_srq, 0x1f);
	CHECK_EQ(buf[16 + 21], 0x1f);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_msg, 0x1f);
	CHECK_EQ(buf[16 + 56], 0x1f);	/* bit 0x1c3 */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, cqe_version, 0xf);
	CHECK_EQ(buf[16 + 63], 0x0f);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, roce, 1);
	CHECK_EQ(buf[16 + 67], 0x04);	/* bit 0x21d */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, atomic, 1);
	CHECK_EQ(buf[16 + 67], 0x02);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, dct, 1);
	CHECK_EQ(buf[16 + 67], 0x20);	/* bit 0x21a */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, xrc, 1);
	DEVX_SET(cmd_hca_cap, cap, rc, 1);
	CHECK_EQ(buf[16 + 71], 0x09);	/* xrc 0x23c, rc 0x23f */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, ud, 1);
	DEVX_SET(cmd_hca_cap, cap, uc, 1);
	CHECK_EQ(buf[16 + 71], 0x06);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_pg_sz, 12);
	CHECK_EQ(buf[16 + 75], 12);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_pd, 0x1f);
	CHECK_EQ(buf[16 + 101], 0x1f);	/* bit 0x32b */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_xrcd, 0x1f);
	CHECK_EQ(buf[16 + 103], 0x1f);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, vhca_id, 0x1234);
	CHECK_EQ(buf[16 + 6], 0x12);
	CHECK_EQ(buf[16 + 7], 0x34);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, gid_table_size, 0x0100);
	CHECK_EQ(buf[16 + 46], 0x01);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, max_wqe_sz_rq, 0x1e0);
	CHECK_EQ(buf[16 + 86], 0x01);
	CHECK_EQ(buf[16 + 87], 0xe0);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_uctx, 0x1f);
	CHECK_EQ(buf[16 + 140], 0x1f);	/* bit 0x463 */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, umem_uid_0, 1);
	CHECK_EQ(buf[16 + 74], 0x20);	/* bit 0x252 */
	FRESH();
	DEVX_SET64(cmd_hca_cap, cap, general_obj_types, 0x0102030405060708ull);
	CHECK_EQ(buf[16 + 128], 0x01);
	CHECK_EQ(buf[16 + 135], 0x08);
	FRESH();
	DEVX_SET(device_mem_cap, cap, memic, 1);
	CHECK_EQ(buf[16], 0x80);
	FRESH();
	DEVX_SET(device_mem_cap, cap, max_memic_size, 0x11223344);
	CHECK_EQ(buf[16 + 20], 0x11);
	CHECK_EQ(buf[16 + 23], 0x44);
	FRESH();
	DEVX_SET(atomic_caps, cap, atomic_operations, 0x0003);
	CHECK_EQ(buf[16 + 19], 0x03);
	FRESH();
	DEVX_SET(odp_cap, cap, rc_odp_caps.send, 1);
	CHECK_EQ(buf[16 + 16], 0x80);
	FRESH();
	DEVX_SET(odp_cap, cap, ud_odp_caps.receive, 1);
	CHECK_EQ(buf[16 + 24], 0x40);
	CHECK_EQ(DEVX_BYTE_OFF(query_hca_cap_out, capability), 16);
	CHECK_EQ(DEVX_ST_SZ_BYTES(query_hca_cap_out), 0x1010);
}

static void golden_qp(void)
{
	uint8_t *qpc = buf + 0x18;	/* create_qp_in: qpc at byte 0x18 */

	FRESH();
	DEVX_SET(qpc, qpc, state, 0x6);
	CHECK_EQ(buf[0x18], 0x60);	/* top nibble of qpc byte 0 */
	FRESH();
	DEVX_SET(qpc, qpc, st, 0x3);
	CHECK_EQ(buf[0x19], 0x03);
	FRESH();
	DEVX_SET(qpc, qpc, pd, 0x123456);
	CHECK_EQ(buf[0x18 + 5], 0x12);
	CHECK_EQ(buf[0x18 + 7], 0x56);
	FRESH();
	DEVX_SET(qpc, qpc, mtu, 5);
	CHECK_EQ(buf[0x18 + 8], 0xa0);	/* bits 7:5 of qpc byte 8 */
	FRESH();
	DEVX_SET(qpc, qpc, log_sq_size, 0xf);
	CHECK_EQ(buf[0x18 + 10], 0x78);	/* bit 0x51, 4 bits */
	FRESH();
	DEVX_SET(qpc, qpc, log_rq_size, 0xf);
	CHECK_EQ(buf[0x18 + 9], 0x78);	/* bit 0x49 */
	FRESH();
	DEVX_SET(qpc, qpc, uar_page, 0xabcdef);
	CHECK_EQ(buf[0x18 + 13], 0xab);
	FRESH();
	DEVX_SET(qpc, qpc, remote_qpn, 0x00beef);
	CHECK_EQ(buf[0x18 + 22], 0xbe);
	CHECK_EQ(buf[0x18 + 23], 0xef);
	FRESH();
	DEVX_SET(qpc, qpc, primary_address_path.pkey_index, 0x1234);
	CHECK_EQ(buf[0x18 + 24 + 2], 0x12);	/* ads at qpc byte 24 */
	FRESH();
	DEVX_SET(qpc, qpc, primary_address_path.grh, 1);
	CHECK_EQ(buf[0x18 + 24 + 5], 0x80);
	FRESH();
	DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, 0x1f);
	CHECK_EQ(buf[0x18 + 24 + 8], 0xf8);
	FRESH();
	DEVX_SET(qpc, qpc, primary_address_path.hop_limit, 0x40);
	CHECK_EQ(buf[0x18 + 24 + 11], 0x40);
	FRESH();
	DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	CHECK_EQ(buf[0x18 + 24 + 37], 0x01);
	FRESH();
	DEVX_SET(qpc, qpc, primary_address_path.rmac_47_32, 0x0253);
	CHECK_EQ(buf[0x18 + 24 + 38], 0x02);
	CHECK_EQ(DEVX_BYTE_OFF(qpc, primary_address_path.rgid_rip), 24 + 16);
	FRESH();
	DEVX_SET(qpc, qpc, log_sra_max, 7);
	CHECK_EQ(buf[0x18 + 113], 0xe0);	/* bit 0x388 */
	FRESH();
	DEVX_SET(qpc, qpc, retry_count, 7);
	CHECK_EQ(buf[0x18 + 113], 0x07);	/* bit 0x38d */
	FRESH();
	DEVX_SET(qpc, qpc, rnr_retry, 7);
	CHECK_EQ(buf[0x18 + 114], 0xe0);
	FRESH();
	DEVX_SET(qpc, qpc, next_send_psn, 0xabcdef);
	CHECK_EQ(buf[0x18 + 121], 0xab);	/* bit 0x3c8 */
	FRESH();
	DEVX_SET(qpc, qpc, cqn_snd, 0x000102);
	CHECK_EQ(buf[0x18 + 127], 0x02);
	FRESH();
	DEVX_SET(qpc, qpc, log_rra_max, 7);
	CHECK_EQ(buf[0x18 + 145], 0xe0);
	FRESH();
	DEVX_SET(qpc, qpc, rre, 1);
	DEVX_SET(qpc, qpc, rwe, 1);
	DEVX_SET(qpc, qpc, rae, 1);
	CHECK_EQ(buf[0x18 + 146], 0xe0);	/* bits 0x490..0x492 */
	FRESH();
	DEVX_SET(qpc, qpc, min_rnr_nak, 0x1f);
	CHECK_EQ(buf[0x18 + 148], 0x1f);
	FRESH();
	DEVX_SET(qpc, qpc, next_rcv_psn, 0x010203);
	CHECK_EQ(buf[0x18 + 149], 0x01);
	FRESH();
	DEVX_SET(qpc, qpc, cqn_rcv, 0x0a0b0c);
	CHECK_EQ(buf[0x18 + 157], 0x0a);
	FRESH();
	DEVX_SET64(qpc, qpc, dbr_addr, 0x1122334455667788ull);
	CHECK_EQ(buf[0x18 + 160], 0x11);
	FRESH();
	DEVX_SET(qpc, qpc, q_key, 0x80010000);
	CHECK_EQ(buf[0x18 + 168], 0x80);
	FRESH();
	DEVX_SET(qpc, qpc, rq_type, 3);
	CHECK_EQ(buf[0x18 + 172], 0x03);
	FRESH();
	DEVX_SET(qpc, qpc, dbr_umem_valid, 1);
	CHECK_EQ(buf[0x18 + 208], 0x10);	/* bit 0x683 */
	FRESH();
	DEVX_SET(create_qp_in, buf, wq_umem_valid, 1);
	CHECK_EQ(buf[0x10c], 0x80);
	FRESH();
	DEVX_SET(create_qp_in, buf, wq_umem_id, 0x01020304);
	CHECK_EQ(buf[0x108], 0x01);
	FRESH();
	DEVX_SET(create_qp_in, buf, opt_param_mask, 0x01020304);
	CHECK_EQ(buf[0x10], 0x01);
	CHECK_EQ(DEVX_BYTE_OFF(create_qp_in, pas), 0x110);
	CHECK_EQ(DEVX_BYTE_OFF(query_qp_out, pas), 0x110);
	CHECK_EQ(DEVX_BYTE_OFF(rtr2rts_qp_in, qpc), 0x18);
	CHECK_EQ(DEVX_ST_SZ_BYTES(init2rtr_qp_in), 0x110);
	FRESH();
	DEVX_SET(init2rtr_qp_in, buf, qpn, 0x123456);
	CHECK_EQ(buf[9], 0x12);
}

/* Crypto: cap bits, the crypto cap page and the CRYPTO_LOGIN / DEK
 * general objects (object at byte 0x10, after the general object header). */
static void golden_crypto(void)
{
	/* cmd_hca_cap.crypto: bit 0x469 = byte 0x8d, mask 0x40 */
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, crypto, 1);
	CHECK_EQ(buf[0x8d], 0x40);
	/* aes_xts_single_block_le_tweak 0x3f1 / multi_block_be 0x3f2: byte 0x7e */
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, aes_xts_single_block_le_tweak, 1);
	CHECK_EQ(buf[0x7e], 0x40);
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, aes_xts_multi_block_be_tweak, 1);
	CHECK_EQ(buf[0x7e], 0x20);
	/* crypto_caps */
	FRESH();
	DEVX_SET(crypto_caps, buf, wrapped_crypto_operational, 1);
	CHECK_EQ(buf[0], 0x80);
	FRESH();
	DEVX_SET(crypto_caps, buf, wrapped_import_method, 0x4);
	CHECK_EQ(buf[3], 0x04);
	FRESH();
	DEVX_SET(crypto_caps, buf, log_max_num_deks, 0x1f);
	CHECK_EQ(buf[5], 0x1f);
	FRESH();
	DEVX_SET(crypto_caps, buf, failed_selftests, 0xa55a);
	CHECK_EQ(buf[8], 0xa5);
	CHECK_EQ(buf[9], 0x5a);
	/* create_crypto_login_obj_in */
	FRESH();
	DEVX_SET(create_crypto_login_obj_in, buf, login_obj.state, 0xf);
	CHECK_EQ(buf[0x20], 0x0f);
	FRESH();
	DEVX_SET(create_crypto_login_obj_in, buf, login_obj.credential_pointer,
		 0xabcdef);
	CHECK_EQ(buf[0x21], 0xab);
	CHECK_EQ(buf[0x23], 0xef);
	FRESH();
	DEVX_SET(create_crypto_login_obj_in, buf,
		 login_obj.session_import_kek_ptr, 0x123456);
	CHECK_EQ(buf[0x25], 0x12);
	CHECK_EQ(buf[0x27], 0x56);
	/* credential: bits 0x200..0x37f of the object */
	CHECK_EQ(DEVX_BYTE_OFF(create_crypto_login_obj_in, login_obj.credential),
		 0x50);
	CHECK_EQ(DEVX_ST_SZ_BYTES(create_crypto_login_obj_in), 0x110);
	/* create_encryption_key_obj_in */
	FRESH();
	DEVX_SET(create_encryption_key_obj_in, buf, key_obj.state, 0xff);
	CHECK_EQ(buf[0x18], 0xff);
	FRESH();
	DEVX_SET(create_encryption_key_obj_in, buf, key_obj.key_size, 1);
	CHECK_EQ(buf[0x1a], 0x01);
	FRESH();
	DEVX_SET(create_encryption_key_obj_in, buf, key_obj.has_keytag, 1);
	CHECK_EQ(buf[0x1b], 0x80);
	FRESH();
	DEVX_SET(create_encryption_key_obj_in, buf, key_obj.key_purpose, 3);
	CHECK_EQ(buf[0x1b], 0x03);
	FRESH();
	DEVX_SET(create_encryption_key_obj_in, buf, key_obj.pd, 0xfedcba);
	CHECK_EQ(buf[0x1d], 0xfe);
	CHECK_EQ(buf[0x1f], 0xba);
	CHECK_EQ(DEVX_BYTE_OFF(create_encryption_key_obj_in, key_obj.opaque),
		 0x40);
	CHECK_EQ(DEVX_BYTE_OFF(create_encryption_key_obj_in, key_obj.key), 0x50);
	CHECK_EQ(DEVX_ST_SZ_BYTES(create_encryption_key_obj_in), 0x110);
}

static void golden_others(void)
{
	uint8_t *c;

	/* set_pp_rate_limit_in: index in dword 2 low half, the context
	 * (rate_limit, burst_upper_bound, typical_packet_size) from 0x10 */
	FRESH();
	DEVX_SET(set_pp_rate_limit_in, buf, rate_limit_index, 0x1234);
	CHECK_EQ(buf[0x0a], 0x12);
	CHECK_EQ(buf[0x0b], 0x34);
	FRESH();
	DEVX_SET(set_pp_rate_limit_in, buf, ctx.rate_limit, 0x64);
	CHECK_EQ(buf[0x13], 0x64);
	FRESH();
	DEVX_SET(set_pp_rate_limit_in, buf, ctx.typical_packet_size, 0x5dc);
	CHECK_EQ(buf[0x1a], 0x05);
	CHECK_EQ(buf[0x1b], 0xdc);
	/* qos_cap: packet_pacing bit 0, rate table size at byte 0x12 */
	FRESH();
	DEVX_SET(qos_cap, buf, packet_pacing, 1);
	CHECK_EQ(buf[0], 0x80);
	FRESH();
	DEVX_SET(qos_cap, buf, packet_pacing_rate_table_size, 0x80);
	CHECK_EQ(buf[0x13], 0x80);
	FRESH();
	DEVX_SET(qos_cap, buf, packet_pacing_min_rate, 0x11223344);
	CHECK_EQ(buf[0x0c], 0x11);
	/* cmd_hca_cap.cqe_128_always: bit 0x5bd = byte 0xb7, mask 0x04 */
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, cqe_128_always, 1);
	CHECK_EQ(buf[0xb7], 0x04);
	/* cmd_hca_cap.qos: bit 0x21b = byte 0x43, mask 0x10 */
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, qos, 1);
	CHECK_EQ(buf[0x43], 0x10);
	/* cmd_hca_cap.rts2rts_qp_udp_sport: bit 0x151 = byte 0x2a, mask 0x40 */
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, rts2rts_qp_udp_sport, 1);
	CHECK_EQ(buf[0x2a], 0x40);
	/* rts2rts_qp_in.opt_param_mask_95_32 at byte 0x108 (bit 0x840) */
	CHECK_EQ(DEVX_BYTE_OFF(modify_qp_ext_in, opt_param_mask_95_32), 0x108);

	/* create_av_qp_mapping_in: mapping at 0x10 (qpn at +0x0c), its ud_av
	 * at 0x20: SL low nibble of byte 12, src_addr_index straddling bytes
	 * 0x1c/0x1d, rgid at +0x20 */
	FRESH();
	DEVX_SET(create_av_qp_mapping_in, buf, mapping.qpn, 0xabcdef);
	CHECK_EQ(buf[0x1d], 0xab);
	CHECK_EQ(buf[0x1f], 0xef);
	FRESH();
	DEVX_SET(create_av_qp_mapping_in, buf,
		 mapping.remote_address_vector.sl_or_eth_prio, 0x7);
	CHECK_EQ(buf[0x2c], 0x07);
	FRESH();
	DEVX_SET(create_av_qp_mapping_in, buf,
		 mapping.remote_address_vector.src_addr_index, 0xa5);
	CHECK_EQ(buf[0x3c], 0x0a);
	CHECK_EQ(buf[0x3d], 0x50);
	CHECK_EQ(DEVX_BYTE_OFF(create_av_qp_mapping_in,
			       mapping.remote_address_vector.rgid_or_rip), 0x40);

	/* create_cq_in: cqc at 0x10 */
	c = buf + 0x10;
	FRESH();
	DEVX_SET(cqc, c, log_cq_size, 0x1f);
	CHECK_EQ(buf[0x10 + 12], 0x1f);
	FRESH();
	DEVX_SET(cqc, c, c_eqn, 0x42);
	CHECK_EQ(buf[0x10 + 23], 0x42);
	FRESH();
	DEVX_SET(cqc, c, cqe_sz, 1);
	CHECK_EQ(buf[0x11], 0x20);	/* bit 8, 3 bits */
	FRESH();
	DEVX_SET64(cqc, c, dbr_addr, 0xa1ull << 56);
	CHECK_EQ(buf[0x10 + 56], 0xa1);
	FRESH();
	DEVX_SET(create_cq_in, buf, cq_umem_id, 0xaabbccdd);
	CHECK_EQ(buf[0x58], 0xaa);
	FRESH();
	DEVX_SET(create_cq_in, buf, cq_umem_valid, 1);
	CHECK_EQ(buf[0x5c], 0x80);
	CHECK_EQ(DEVX_BYTE_OFF(create_cq_in, pas), 0x110);

	/* create_mkey_in: mkc at 0x10 */
	c = buf + 0x10;
	FRESH();
	DEVX_SET(mkc, c, mkey_7_0, 0x5a);
	CHECK_EQ(buf[0x17], 0x5a);
	FRESH();
	DEVX_SET(mkc, c, access_mode_1_0, 1);
	DEVX_SET(mkc, c, lr, 1);
	CHECK_EQ(buf[0x12], 0x05);
	FRESH();
	DEVX_SET(mkc, c, free, 1);
	CHECK_EQ(buf[0x10], 0x40);
	FRESH();
	DEVX_SET(mkc, c, pd, 0x00abcd);
	CHECK_EQ(buf[0x10 + 14], 0xab);
	FRESH();
	DEVX_SET64(mkc, c, start_addr, 0x1ull << 56);
	CHECK_EQ(buf[0x10 + 16], 0x01);
	FRESH();
	DEVX_SET64(mkc, c, len, 0x2ull << 56);
	CHECK_EQ(buf[0x10 + 24], 0x02);
	FRESH();
	DEVX_SET(mkc, c, log_page_size, 0x1f);
	CHECK_EQ(buf[0x10 + 59], 0x1f);
	FRESH();
	DEVX_SET(create_mkey_in, buf, translations_octword_actual_size, 0x10203);
	CHECK_EQ(buf[0x61], 0x01);
	CHECK_EQ(DEVX_BYTE_OFF(create_mkey_in, klm_pas_mtt), 0x110);

	/* create_eq_in */
	FRESH();
	DEVX_SET(eqc, buf + 0x10, log_eq_size, 0x1f);
	CHECK_EQ(buf[0x10 + 12], 0x1f);
	CHECK_EQ(DEVX_BYTE_OFF(create_eq_in, event_bitmask), 0x58);
	CHECK_EQ(DEVX_BYTE_OFF(create_eq_in, pas), 0x110);

	/* srqc, rmpc/wq */
	FRESH();
	DEVX_SET(srqc, buf + 0x10, log_srq_size, 0xf);
	CHECK_EQ(buf[0x10], 0x0f);
	FRESH();
	DEVX_SET(srqc, buf + 0x10, pd, 0x000102);
	CHECK_EQ(buf[0x10 + 27], 0x02);
	CHECK_EQ(DEVX_BYTE_OFF(create_srq_in, pas), 0x110);
	CHECK_EQ(DEVX_BYTE_OFF(create_rmp_in, ctx), 0x20);
	CHECK_EQ(DEVX_BYTE_OFF(rmpc, wq), 0x30);
	FRESH();
	DEVX_SET(wq, buf, log_wq_sz, 0x1f);
	CHECK_EQ(buf[0x23], 0x1f);
	FRESH();
	DEVX_SET(wq, buf, wq_umem_id, 0x01020304);
	CHECK_EQ(buf[0x2c], 0x01);
	FRESH();
	DEVX_SET(xrc_srqc, buf, user_index, 0x010203);
	CHECK_EQ(buf[17], 0x01);

	/* answers */
	FRESH();
	DEVX_SET(roce_addr_layout, buf, roce_version, 2);
	CHECK_EQ(buf[27], 0x02);
	FRESH();
	DEVX_SET(roce_addr_layout, buf, source_mac_47_32, 0x0253);
	CHECK_EQ(buf[18], 0x02);
	FRESH();
	DEVX_SET(nic_vport_context, buf, mtu, 0x2328);
	CHECK_EQ(buf[38], 0x23);
	FRESH();
	DEVX_SET(nic_vport_context, buf, permanent_address.mac_addr_47_32, 0x0253);
	CHECK_EQ(buf[0xf6], 0x02);	/* permanent_address at byte 0xf4 */
	FRESH();
	DEVX_SET(hca_vport_context, buf, port_state, 4);
	CHECK_EQ(buf[35], 0x40);
	FRESH();
	DEVX_SET(query_vport_state_out, buf, state, 1);
	CHECK_EQ(buf[15], 0x01);
	FRESH();
	DEVX_SET(create_umem_out, buf, umem_id, 0x010203);
	CHECK_EQ(buf[9], 0x01);
	FRESH();
	DEVX_SET(create_eq_out, buf, eq_number, 0x07);
	CHECK_EQ(buf[11], 0x07);
	FRESH();
	DEVX_SET(destroy_uctx_in, buf, uid, 0x0102);
	CHECK_EQ(buf[10], 0x01);
	CHECK_EQ(DEVX_BYTE_OFF(create_umem_in, umem.mtt), 0x30);
	CHECK_EQ(DEVX_BYTE_OFF(query_hca_vport_gid_out, gid), 0x10);
	CHECK_EQ(DEVX_ST_SZ_BYTES(qpc), 0xe8);
	CHECK_EQ(DEVX_ST_SZ_BYTES(ads), 0x2c);
}

/* (b) ------------------------------------------------------------------ */

/* Ethernet queues and flow steering (PRM "SQ/RQ/TIS/TIR Context",
 * "Flow Table", "Flow Group", "Flow Context"). */
static void golden_eth(void)
{
	/* sqc: flush_in_error_en bit 3, min_wqe_inline_mode bits 7:5 of
	 * byte 0, state the high nibble of byte 1; user_index, cqn in dwords
	 * 1 and 2; tis_lst_sz at byte 0x20; tis_num_0 dword 0xb; wq at 0x30 */
	FRESH();
	DEVX_SET(sqc, buf, flush_in_error_en, 1);
	CHECK_EQ(buf[0], 0x10);
	FRESH();
	DEVX_SET(sqc, buf, min_wqe_inline_mode, 1);
	CHECK_EQ(buf[0], 0x01);
	FRESH();
	DEVX_SET(sqc, buf, state, 3);
	CHECK_EQ(buf[1], 0x30);
	FRESH();
	DEVX_SET(sqc, buf, user_index, 0x123456);
	CHECK_EQ(buf[5], 0x12);
	CHECK_EQ(buf[7], 0x56);
	FRESH();
	DEVX_SET(sqc, buf, cqn, 0xabcdef);
	CHECK_EQ(buf[9], 0xab);
	CHECK_EQ(buf[11], 0xef);
	FRESH();
	DEVX_SET(sqc, buf, tis_lst_sz, 1);
	CHECK_EQ(buf[0x21], 0x01);
	FRESH();
	DEVX_SET(sqc, buf, tis_num_0, 0x10203);
	CHECK_EQ(buf[0x2d], 0x01);
	CHECK_EQ(buf[0x2f], 0x03);
	FRESH();
	DEVX_SET(sqc, buf, wq.wq_type, 1);
	CHECK_EQ(buf[0x30], 0x10);
	FRESH();
	DEVX_SET(sqc, buf, wq.pd, 0x77);
	CHECK_EQ(buf[0x30 + 11], 0x77);
	FRESH();
	DEVX_SET(sqc, buf, wq.log_wq_stride, 6);
	CHECK_EQ(buf[0x30 + 0x21], 0x06);
	FRESH();
	DEVX_SET(sqc, buf, wq.log_wq_sz, 0x1f);
	CHECK_EQ(buf[0x30 + 0x23], 0x1f);
	CHECK_EQ(DEVX_BYTE_OFF(create_sq_in, ctx.wq.pas), 0x110);
	/* create_sq_out / create_rq_out: the number in dword 2 */
	FRESH();
	DEVX_SET(create_sq_out, buf, sqn, 0x400001);
	CHECK_EQ(buf[9], 0x40);
	CHECK_EQ(buf[11], 0x01);
	/* modify_sq_in: current state high nibble of byte 8, sqn after it,
	 * modify_bitmask at 0x10, context at 0x20 */
	FRESH();
	DEVX_SET(modify_sq_in, buf, sq_state, 1);
	CHECK_EQ(buf[8], 0x10);
	FRESH();
	DEVX_SET(modify_sq_in, buf, ctx.state, 3);
	CHECK_EQ(buf[0x21], 0x30);
	FRESH();
	DEVX_SET64(modify_rq_in, buf, modify_bitmask, 2);
	CHECK_EQ(buf[0x17], 0x02);
	/* rqc: vsd bit 3 of byte 0, mem_rq_type its low nibble, state the
	 * high nibble of byte 1, counter_set_id byte 12, wq at 0x30 */
	FRESH();
	DEVX_SET(rqc, buf, vsd, 1);
	CHECK_EQ(buf[0], 0x10);
	FRESH();
	DEVX_SET(rqc, buf, mem_rq_type, 1);
	CHECK_EQ(buf[0], 0x01);
	FRESH();
	DEVX_SET(rqc, buf, counter_set_id, 0x5a);
	CHECK_EQ(buf[12], 0x5a);
	FRESH();
	DEVX_SET64(rqc, buf, wq.dbr_addr, 0x1122334455667788ull);
	CHECK_EQ(buf[0x30 + 0x10], 0x11);
	CHECK_EQ(buf[0x30 + 0x17], 0x88);
	/* tisc: prio low nibble of byte 1, transport_domain dword 9, pd
	 * dword 0xb; create_tis_in context at 0x20 */
	FRESH();
	DEVX_SET(tisc, buf, prio, 5);
	CHECK_EQ(buf[1], 0x05);
	FRESH();
	DEVX_SET(tisc, buf, transport_domain, 0x42);
	CHECK_EQ(buf[0x27], 0x42);
	FRESH();
	DEVX_SET(tisc, buf, pd, 0x43);
	CHECK_EQ(buf[0x2f], 0x43);
	CHECK_EQ(DEVX_BYTE_OFF(create_tis_in, ctx), 0x20);
	CHECK_EQ(DEVX_BYTE_OFF(query_tis_out, tis_context), 0x10);
	/* tirc: disp_type high nibble of byte 4, inline_rqn dword 7,
	 * self_lb_block bits 1:0 of byte 0x24, transport_domain after it */
	FRESH();
	DEVX_SET(tirc, buf, disp_type, 1);
	CHECK_EQ(buf[4], 0x10);
	FRESH();
	DEVX_SET(tirc, buf, inline_rqn, 0x800001);
	CHECK_EQ(buf[0x1d], 0x80);
	CHECK_EQ(buf[0x1f], 0x01);
	FRESH();
	DEVX_SET(tirc, buf, self_lb_block, 2);
	CHECK_EQ(buf[0x24], 0x02);
	FRESH();
	DEVX_SET(tirc, buf, transport_domain, 0x99);
	CHECK_EQ(buf[0x27], 0x99);
	CHECK_EQ(DEVX_BYTE_OFF(query_tir_out, tir_context), 0x20);
	/* create_flow_table_in: table_type byte 0x10, context at 0x18
	 * (table_miss_action low nibble of 0x18, level 0x19, log_size 0x1b,
	 * table_miss_id dword 0x1c) */
	FRESH();
	DEVX_SET(create_flow_table_in, buf, table_type, 1);
	CHECK_EQ(buf[0x10], 0x01);
	FRESH();
	DEVX_SET(create_flow_table_in, buf, flow_table_context.table_miss_action, 1);
	CHECK_EQ(buf[0x18], 0x01);
	FRESH();
	DEVX_SET(create_flow_table_in, buf, flow_table_context.level, 3);
	CHECK_EQ(buf[0x19], 0x03);
	FRESH();
	DEVX_SET(create_flow_table_in, buf, flow_table_context.log_size, 9);
	CHECK_EQ(buf[0x1b], 0x09);
	FRESH();
	DEVX_SET(create_flow_table_in, buf, flow_table_context.table_miss_id, 7);
	CHECK_EQ(buf[0x1f], 0x07);
	FRESH();
	DEVX_SET(create_flow_table_out, buf, table_id, 0x10203);
	CHECK_EQ(buf[9], 0x01);
	CHECK_EQ(buf[11], 0x03);
	/* destroy_flow_table_in / set_flow_table_root_in: table_id dword 5 */
	FRESH();
	DEVX_SET(set_flow_table_root_in, buf, table_id, 0x55);
	CHECK_EQ(buf[0x17], 0x55);
	/* create_flow_group_in: table_id dword 5, start dword 7, end dword
	 * 9, match_criteria_enable byte 0x3f, criteria from 0x40: smac 0x40,
	 * ethertype 0x46, dmac 0x48, VLAN 0x4e, ip_protocol 0x50, ip_version
	 * bits of 0x52/0x53, udp_dport 0x5e, src IPv4 0x6c, dst IPv4 0x7c */
	FRESH();
	DEVX_SET(create_flow_group_in, buf, start_flow_index, 0x11);
	CHECK_EQ(buf[0x1f], 0x11);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, end_flow_index, 0x22);
	CHECK_EQ(buf[0x27], 0x22);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria_enable, 1);
	CHECK_EQ(buf[0x3f], 0x01);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria.outer_headers.smac_47_16,
		 0xaabbccdd);
	CHECK_EQ(buf[0x40], 0xaa);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria.outer_headers.ethertype,
		 0x86dd);
	CHECK_EQ(buf[0x46], 0x86);
	CHECK_EQ(buf[0x47], 0xdd);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria.outer_headers.dmac_47_16,
		 0x01505619);
	CHECK_EQ(buf[0x48], 0x01);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria.outer_headers.first_vid,
		 0xc0c);
	CHECK_EQ(buf[0x4e], 0x0c);
	CHECK_EQ(buf[0x4f], 0x0c);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria.outer_headers.ip_protocol,
		 17);
	CHECK_EQ(buf[0x50], 17);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria.outer_headers.cvlan_tag, 1);
	CHECK_EQ(buf[0x52], 0x80);
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria.outer_headers.ip_version, 6);
	CHECK_EQ(buf[0x52], 0x0c);	/* bits 4:1 of byte 0x52 */
	FRESH();
	DEVX_SET(create_flow_group_in, buf, match_criteria.outer_headers.udp_dport,
		 5678);
	CHECK_EQ(buf[0x5e], 0x16);
	CHECK_EQ(buf[0x5f], 0x2e);
	FRESH();
	DEVX_SET(create_flow_group_in, buf,
		 match_criteria.outer_headers.src_ipv4_src_ipv6.ipv4_layout.ipv4,
		 0x01010101);
	CHECK_EQ(buf[0x6c], 0x01);
	CHECK_EQ(buf[0x6b], 0x00);
	FRESH();
	DEVX_SET(create_flow_group_in, buf,
		 match_criteria.outer_headers.dst_ipv4_dst_ipv6.ipv4_layout.ipv4,
		 0x02020202);
	CHECK_EQ(buf[0x7c], 0x02);
	/* set_fte_in: table_id dword 5, flow_index dword 8, flow context at
	 * 0x40: group_id 0x44, flow_tag 0x49, action 0x4e, destination list
	 * size 0x51, match value at 0x80, destinations at 0x340 */
	FRESH();
	DEVX_SET(set_fte_in, buf, flow_index, 0x33);
	CHECK_EQ(buf[0x23], 0x33);
	FRESH();
	DEVX_SET(set_fte_in, buf, flow_context.group_id, 0x44);
	CHECK_EQ(buf[0x47], 0x44);
	FRESH();
	DEVX_SET(set_fte_in, buf, flow_context.flow_tag, 0xabcdef);
	CHECK_EQ(buf[0x49], 0xab);
	FRESH();
	DEVX_SET(set_fte_in, buf, flow_context.action, 4);
	CHECK_EQ(buf[0x4f], 0x04);
	FRESH();
	DEVX_SET(set_fte_in, buf, flow_context.destination_list_size, 2);
	CHECK_EQ(buf[0x53], 0x02);
	CHECK_EQ(DEVX_BYTE_OFF(set_fte_in, flow_context.match_value), 0x80);
	CHECK_EQ(DEVX_BYTE_OFF(set_fte_in, flow_context.destination), 0x340);
	FRESH();
	DEVX_SET(dest_format, buf, destination_type, 2);
	DEVX_SET(dest_format, buf, destination_id, 0x10);
	CHECK_EQ(buf[0], 0x02);
	CHECK_EQ(buf[3], 0x10);
	/* delete_fte_in: flow_index dword 8 */
	FRESH();
	DEVX_SET(delete_fte_in, buf, flow_index, 7);
	CHECK_EQ(buf[0x23], 0x07);
	/* Flow counters: flow_counter_list_size the low 24 bits of flow
	 * context dword 5 (set_fte_in 0x54); a flow_counter_list entry is
	 * the id in its first dword. alloc_flow_counter_in: id dword 2,
	 * flow_counter_bulk byte 0xf; out: id dword 2. query_flow_counter_in:
	 * clear bit 31 / dump_to_memory bit 30 / num_of_counters of dword 6,
	 * id dword 7; out: packets at 0x10, octets at 0x18 (64-bit each). */
	FRESH();
	DEVX_SET(set_fte_in, buf, flow_context.flow_counter_list_size, 2);
	CHECK_EQ(buf[0x57], 0x02);
	CHECK_EQ(buf[0x53], 0x00);
	FRESH();
	DEVX_SET(flow_counter_list, buf, flow_counter_id, 0x1020304);
	CHECK_EQ(buf[0], 0x01);
	CHECK_EQ(buf[3], 0x04);
	FRESH();
	DEVX_SET(alloc_flow_counter_in, buf, flow_counter_bulk, 0x80);
	CHECK_EQ(buf[0xf], 0x80);
	FRESH();
	DEVX_SET(alloc_flow_counter_out, buf, flow_counter_id, 0x11);
	CHECK_EQ(buf[0xb], 0x11);
	FRESH();
	DEVX_SET(dealloc_flow_counter_in, buf, flow_counter_id, 0x12);
	CHECK_EQ(buf[0xb], 0x12);
	FRESH();
	DEVX_SET(query_flow_counter_in, buf, clear, 1);
	CHECK_EQ(buf[0x18], 0x80);
	FRESH();
	DEVX_SET(query_flow_counter_in, buf, dump_to_memory, 1);
	CHECK_EQ(buf[0x18], 0x40);
	FRESH();
	DEVX_SET(query_flow_counter_in, buf, num_of_counters, 0x3000001);
	CHECK_EQ(buf[0x18], 0x03);
	CHECK_EQ(buf[0x1b], 0x01);
	FRESH();
	DEVX_SET(query_flow_counter_in, buf, flow_counter_id, 0x13);
	CHECK_EQ(buf[0x1f], 0x13);
	FRESH();
	DEVX_SET64(query_flow_counter_out, buf, flow_statistics.packets, 5);
	DEVX_SET64(query_flow_counter_out, buf, flow_statistics.octets,
		   0x0102030405060708ull);
	CHECK_EQ(buf[0x17], 0x05);
	CHECK_EQ(buf[0x18], 0x01);
	CHECK_EQ(buf[0x1f], 0x08);
	/* cmd_hca_cap: flow_counter_bulk_alloc byte 0x62,
	 * log_max_flow_counter_bulk 0x69, max_flow_counter_15_0 0x6a-0x6b,
	 * max_flow_counter_31_16 0x58-0x59; flow_table_prop_layout:
	 * flow_counter bit 2 of byte 0, log_max_flow_counter byte 0x12 */
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, flow_counter_bulk_alloc, 0x81);
	CHECK_EQ(buf[0x62], 0x81);
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, log_max_flow_counter_bulk, 0x17);
	CHECK_EQ(buf[0x69], 0x17);
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, max_flow_counter_15_0, 0xfffe);
	CHECK_EQ(buf[0x6a], 0xff);
	CHECK_EQ(buf[0x6b], 0xfe);
	FRESH();
	DEVX_SET(cmd_hca_cap, buf, max_flow_counter_31_16, 0x1234);
	CHECK_EQ(buf[0x58], 0x12);
	FRESH();
	DEVX_SET(flow_table_prop_layout, buf, flow_counter, 1);
	CHECK_EQ(buf[0], 0x20);
	FRESH();
	DEVX_SET(flow_table_prop_layout, buf, log_max_flow_counter, 4);
	CHECK_EQ(buf[0x12], 0x04);
	/* ETHERNET_OFFLOADS: csum_cap bit 0, vlan_cap bit 1, wqe_inline_mode
	 * bits 0x12-0x13; FLOW_TABLE: NIC receive properties at 0x40 */
	FRESH();
	DEVX_SET(per_protocol_networking_offload_caps, buf, csum_cap, 1);
	DEVX_SET(per_protocol_networking_offload_caps, buf, vlan_cap, 1);
	CHECK_EQ(buf[0], 0xc0);
	FRESH();
	DEVX_SET(per_protocol_networking_offload_caps, buf, wqe_inline_mode, 2);
	CHECK_EQ(buf[2], 0x20);
	FRESH();
	DEVX_SET(flow_table_nic_cap, buf,
		 flow_table_properties_nic_receive.ft_support, 1);
	CHECK_EQ(buf[0x40], 0x80);
	FRESH();
	DEVX_SET(flow_table_nic_cap, buf,
		 flow_table_properties_nic_receive.log_max_ft_size, 0x10);
	CHECK_EQ(buf[0x44], 0x10);
	FRESH();
	DEVX_SET(flow_table_nic_cap, buf,
		 flow_table_properties_nic_receive.ft_field_support.outer_dmac, 1);
	CHECK_EQ(buf[0x40 + 0x20], 0x80);
	/* NIC transmit properties at 0x100; modify_root bit 4, pop_vlan bit
	 * 10, push_vlan bit 11; log_max_modify_header_context byte 5,
	 * max_modify_header_actions byte 6 */
	FRESH();
	DEVX_SET(flow_table_nic_cap, buf,
		 flow_table_properties_nic_transmit.ft_support, 1);
	CHECK_EQ(buf[0x100], 0x80);
	FRESH();
	DEVX_SET(flow_table_prop_layout, buf, modify_root, 1);
	DEVX_SET(flow_table_prop_layout, buf, pop_vlan, 1);
	DEVX_SET(flow_table_prop_layout, buf, push_vlan, 1);
	CHECK_EQ(buf[0], 0x08);
	CHECK_EQ(buf[1], 0x30);
	FRESH();
	DEVX_SET(flow_table_prop_layout, buf, log_max_modify_header_context, 0x10);
	DEVX_SET(flow_table_prop_layout, buf, max_modify_header_actions, 0x20);
	CHECK_EQ(buf[5], 0x10);
	CHECK_EQ(buf[6], 0x20);
	/* Modify header: set_action_in action_type bits 0-3, field bits
	 * 4-15, offset the low 5 bits of byte 2, length of byte 3, data
	 * dword 1; alloc_modify_header_context_in table_type byte 0xc,
	 * num_of_actions byte 0xf, actions from 0x10; out and dealloc_in:
	 * modify_header_id dword 2. flow_context: push_vlan dword 0,
	 * modify_header_id dword 7 (set_fte_in 0x40 + 0x1c). */
	FRESH();
	DEVX_SET(set_action_in, buf, action_type, 1);
	DEVX_SET(set_action_in, buf, field, 0x2);
	DEVX_SET(set_action_in, buf, offset, 8);
	DEVX_SET(set_action_in, buf, length, 16);
	DEVX_SET(set_action_in, buf, data, 0x8888);
	CHECK_EQ(buf[0], 0x10);
	CHECK_EQ(buf[1], 0x02);
	CHECK_EQ(buf[2], 0x08);
	CHECK_EQ(buf[3], 0x10);
	CHECK_EQ(buf[6], 0x88);
	CHECK_EQ(buf[7], 0x88);
	FRESH();
	DEVX_SET(alloc_modify_header_context_in, buf, table_type, 1);
	DEVX_SET(alloc_modify_header_context_in, buf, num_of_actions, 2);
	CHECK_EQ(buf[0xc], 0x01);
	CHECK_EQ(buf[0xf], 0x02);
	CHECK_EQ(DEVX_BYTE_OFF(alloc_modify_header_context_in, actions), 0x10);
	FRESH();
	DEVX_SET(alloc_modify_header_context_out, buf, modify_header_id, 0x21);
	CHECK_EQ(buf[0xb], 0x21);
	FRESH();
	DEVX_SET(dealloc_modify_header_context_in, buf, modify_header_id, 0x22);
	CHECK_EQ(buf[0xb], 0x22);
	FRESH();
	DEVX_SET(set_fte_in, buf, flow_context.push_vlan, 0x81002005);
	DEVX_SET(set_fte_in, buf, flow_context.modify_header_id, 0x23);
	CHECK_EQ(buf[0x40], 0x81);
	CHECK_EQ(buf[0x43], 0x05);
	CHECK_EQ(buf[0x5f], 0x23);
}

/* Packet reformat: the cap fields, the ALLOC/DEALLOC mailboxes, the flow
 * context's packet_reformat_id, the opcodes and action bits (PRM). */
static void golden_reformat(void)
{
	/* flow_table_nic_cap dword 1: encap_general_header bit 0x20,
	 * log_max_packet_reformat_context bits 0x2b-0x2f,
	 * max_encap_header_size bits 0x36-0x3f */
	FRESH();
	DEVX_SET(flow_table_nic_cap, buf, encap_general_header, 1);
	CHECK_EQ(buf[4], 0x80);
	FRESH();
	DEVX_SET(flow_table_nic_cap, buf, log_max_packet_reformat_context, 0x1f);
	CHECK_EQ(buf[5], 0x1f);
	CHECK_EQ(buf[4], 0x00);
	FRESH();
	DEVX_SET(flow_table_nic_cap, buf, max_encap_header_size, 0x3ff);
	CHECK_EQ(buf[6], 0x03);
	CHECK_EQ(buf[7], 0xff);
	/* flow_table_prop_layout: reformat bit 7, decap bit 8; NIC receive
	 * properties at 0x40, transmit at 0x100 */
	FRESH();
	DEVX_SET(flow_table_prop_layout, buf, reformat, 1);
	CHECK_EQ(buf[0], 0x01);
	FRESH();
	DEVX_SET(flow_table_prop_layout, buf, decap, 1);
	CHECK_EQ(buf[1], 0x80);
	FRESH();
	DEVX_SET(flow_table_nic_cap, buf,
		 flow_table_properties_nic_transmit.reformat, 1);
	DEVX_SET(flow_table_nic_cap, buf,
		 flow_table_properties_nic_receive.reformat, 1);
	CHECK_EQ(buf[0x40], 0x01);
	CHECK_EQ(buf[0x100], 0x01);
	/* alloc_packet_reformat_context_in: uid bytes 2-3, the context at
	 * 0x1c: reformat_type byte 0x1c, reformat_param_0 low nibble of byte
	 * 0x1d, reformat_data_size the low 10 bits of bytes 0x1e-0x1f,
	 * reformat_param_1 byte 0x20, reformat_data from byte 0x22 */
	FRESH();
	DEVX_SET(alloc_packet_reformat_context_in, buf, uid, 0x1234);
	DEVX_SET(alloc_packet_reformat_context_in, buf,
		 packet_reformat_context.reformat_type, 2);
	DEVX_SET(alloc_packet_reformat_context_in, buf,
		 packet_reformat_context.reformat_param_0, 0xf);
	DEVX_SET(alloc_packet_reformat_context_in, buf,
		 packet_reformat_context.reformat_data_size, 0x232);
	DEVX_SET(alloc_packet_reformat_context_in, buf,
		 packet_reformat_context.reformat_param_1, 0x77);
	CHECK_EQ(buf[2], 0x12);
	CHECK_EQ(buf[3], 0x34);
	CHECK_EQ(buf[0x1c], 0x02);
	CHECK_EQ(buf[0x1d], 0x0f);
	CHECK_EQ(buf[0x1e], 0x02);
	CHECK_EQ(buf[0x1f], 0x32);
	CHECK_EQ(buf[0x20], 0x77);
	CHECK_EQ(DEVX_BYTE_OFF(alloc_packet_reformat_context_in,
			       packet_reformat_context.reformat_data), 0x22);
	/* out and dealloc_in: packet_reformat_id dword 2 */
	FRESH();
	DEVX_SET(alloc_packet_reformat_context_out, buf, packet_reformat_id,
		 0xa1b2c3d4);
	CHECK_EQ(buf[8], 0xa1);
	CHECK_EQ(buf[0xb], 0xd4);
	FRESH();
	DEVX_SET(dealloc_packet_reformat_context_in, buf, packet_reformat_id, 0x31);
	CHECK_EQ(buf[0xb], 0x31);
	/* flow_context packet_reformat_id dword 6 (set_fte_in 0x40 + 0x18) */
	FRESH();
	DEVX_SET(set_fte_in, buf, flow_context.packet_reformat_id, 0x01020304);
	CHECK_EQ(buf[0x58], 0x01);
	CHECK_EQ(buf[0x5b], 0x04);
	CHECK_EQ(MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT, 0x93d);
	CHECK_EQ(MLX5_CMD_OP_DEALLOC_PACKET_REFORMAT_CONTEXT, 0x93e);
	CHECK_EQ(MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT, 0x10);
	CHECK_EQ(MLX5_FLOW_CONTEXT_ACTION_DECAP, 0x20);
	CHECK_EQ(MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL, 2);
}

/* RMP: rmpc, modify_rmp_in, rqc's RMP fields, the caps an RMP user reads. */
static void golden_rmp(void)
{
	uint8_t *cap = buf + 16;

	/* rmpc: state the high nibble of byte 1, basic_cyclic_rcv_wqe bit 7
	 * of byte 4, wq at byte 0x30 */
	FRESH();
	DEVX_SET(rmpc, buf, state, 3);
	CHECK_EQ(buf[1], 0x30);
	FRESH();
	DEVX_SET(rmpc, buf, basic_cyclic_rcv_wqe, 1);
	CHECK_EQ(buf[4], 0x80);
	FRESH();
	DEVX_SET(rmpc, buf, wq.lwm, 0x1234);
	CHECK_EQ(buf[0x36], 0x12);
	CHECK_EQ(buf[0x37], 0x34);
	/* modify_rmp_in: rmp_state high nibble of byte 8, rmpn bytes 9-11,
	 * bitmask dwords 4-5 with lwm the last bit, ctx at byte 0x20; 0x110
	 * bytes in all, the answer 0x10 */
	FRESH();
	DEVX_SET(modify_rmp_in, buf, rmp_state, 1);
	CHECK_EQ(buf[8], 0x10);
	FRESH();
	DEVX_SET(modify_rmp_in, buf, rmpn, 0xabcdef);
	CHECK_EQ(buf[9], 0xab);
	CHECK_EQ(buf[11], 0xef);
	FRESH();
	DEVX_SET(modify_rmp_in, buf, bitmask.lwm, 1);
	CHECK_EQ(buf[0x17], 0x01);
	CHECK_EQ(buf[0x10] | buf[0x14] | buf[0x16], 0);
	FRESH();
	DEVX_SET(modify_rmp_in, buf, ctx.state, 1);
	CHECK_EQ(buf[0x21], 0x10);
	CHECK_EQ(DEVX_ST_SZ_BYTES(modify_rmp_in), 0x110);
	CHECK_EQ(DEVX_ST_SZ_BYTES(modify_rmp_out), 0x10);
	CHECK_EQ(DEVX_BYTE_OFF(query_rmp_out, rmp_context), 0x20);
	/* rqc: mem_rq_type the low nibble of byte 0, rmpn bytes 0x11-0x13 */
	FRESH();
	DEVX_SET(rqc, buf, mem_rq_type, 1);
	CHECK_EQ(buf[0], 0x01);
	FRESH();
	DEVX_SET(rqc, buf, rmpn, 0x010203);
	CHECK_EQ(buf[0x11], 0x01);
	CHECK_EQ(buf[0x13], 0x03);
	/* cmd_hca_cap byte 0x70: basic_cyclic_rcv_wqe bit 7, log_max_rmp
	 * bits 4:0 */
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, basic_cyclic_rcv_wqe, 1);
	CHECK_EQ(buf[16 + 0x70], 0x80);
	FRESH();
	DEVX_SET(cmd_hca_cap, cap, log_max_rmp, 0x1f);
	CHECK_EQ(buf[16 + 0x70], 0x1f);
}

static void be_put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void golden_mailboxes(struct smx_dev *d)
{
	static uint8_t out[0x1010] __attribute__((aligned(8)));
	/* QUERY_HCA_CAP (0x100), op_mod 1 = general caps, current. */
	static const uint8_t q_cap[16] = { 0x01, 0x00, 0, 0, 0, 0, 0x00, 0x01 };
	static const uint8_t q_bad_op[16] = { 0x0f, 0xff };
	static const uint8_t alloc_pd[16] = { 0x08, 0x00 };
	static const uint8_t alloc_uar[16] = { 0x08, 0x02 };
	/* QUERY_ROCE_ADDRESS (0x760) index 0 */
	static const uint8_t q_roce[16] = { 0x07, 0x60 };
	/* QUERY_VPORT_STATE (0x750) */
	static const uint8_t q_vps[16] = { 0x07, 0x50 };
	static uint8_t cq_in[0x118] __attribute__((aligned(8)));
	static uint8_t ring[4096] __attribute__((aligned(4096)));
	static uint8_t db[64] __attribute__((aligned(64)));
	uint32_t uar;

	memset(out, 0xee, sizeof(out));
	CHECK_EQ(smx_dev_cmd(d, q_cap, 16, out, 0x1010), 0);
	CHECK_EQ(out[0], 0x00);			/* status OK */
	CHECK_EQ(out[70] & 0x03, 0x01);		/* port_type Ethernet */
	CHECK_EQ(out[71], 0x01);		/* num_ports */
	CHECK_EQ(out[35] & 0x1f, smx_dev_config(d)->log_max_qp);
	CHECK_EQ(out[16 + 67] & 0x04, 0x04);	/* roce */
	CHECK_EQ(out[16 + 71] & 0x0f, 0x0f);	/* xrc ud uc rc */
	CHECK_EQ(out[16 + 0x100], 0);		/* past the cap: zeroes */
	CHECK_EQ(out[16 + 0x6a], 0xff);		/* max_flow_counter_15_0 */
	CHECK_EQ(out[16 + 0x62], 0);		/* no bulk allocation */

	/* op_mod 3: ETHERNET_OFFLOADS, current: csum and VLAN caps, no
	 * inline header required; op_mod 0xf: FLOW_TABLE, NIC receive */
	{
		static const uint8_t q_eth[16] = { 0x01, 0x00, 0, 0, 0, 0, 0x00, 0x03 };
		static const uint8_t q_ft[16] = { 0x01, 0x00, 0, 0, 0, 0, 0x00, 0x0f };

		memset(out, 0xee, sizeof(out));
		CHECK_EQ(smx_dev_cmd(d, q_eth, 16, out, 0x1010), 0);
		CHECK_EQ(out[0], 0x00);
		CHECK_EQ(out[16], 0xc0);
		CHECK_EQ(out[18] & 0x30, 0x20);
		memset(out, 0xee, sizeof(out));
		CHECK_EQ(smx_dev_cmd(d, q_ft, 16, out, 0x1010), 0);
		CHECK_EQ(out[0], 0x00);
		CHECK_EQ(out[16 + 0x40] & 0xa0, 0xa0);	/* ft_support, flow_counter */
		CHECK_EQ(out[16 + 0x60] & 0xe0, 0xe0);	/* dmac smac ethertype */
	}

	memset(out, 0xee, 16);
	CHECK_EQ(smx_dev_cmd(d, q_bad_op, 16, out, 16), 0);
	CHECK_EQ(out[0], 0x02);			/* BAD_OP */
	CHECK(out[4] | out[5] | out[6] | out[7]);	/* a syndrome */

	memset(out, 0xee, 16);
	CHECK_EQ(smx_dev_cmd(d, q_cap, 16, out, 16), 0);
	CHECK_EQ(out[0], 0x51);			/* BAD_OUTP_LEN */

	memset(out, 0, 16);
	CHECK_EQ(smx_dev_cmd(d, alloc_pd, 16, out, 16), 0);
	CHECK_EQ(out[0], 0x00);
	CHECK(out[9] | out[10] | out[11]);	/* pd number */

	memset(out, 0, 0x30);
	CHECK_EQ(smx_dev_cmd(d, q_roce, 16, out, 0x30), 0);
	CHECK_EQ(out[0], 0x00);
	CHECK_EQ(out[0x10 + 10], 0xff);		/* ::ffff:192.0.2.1 */
	CHECK_EQ(out[0x10 + 11], 0xff);
	CHECK_EQ(out[0x10 + 12], 192);
	CHECK_EQ(out[0x10 + 15], 1);
	CHECK_EQ(out[0x10 + 18], 0x02);		/* source_mac 02:53:4d:58:35:00 */
	CHECK_EQ(out[0x10 + 19], 0x53);
	CHECK_EQ(out[0x10 + 23], 0x00);
	CHECK_EQ(out[0x10 + 26] & 0x0f, 0);	/* IPv4 */
	CHECK_EQ(out[0x10 + 27], 2);		/* RoCEv2 */

	memset(out, 0, 16);
	CHECK_EQ(smx_dev_cmd(d, q_vps, 16, out, 16), 0);
	CHECK_EQ(out[0], 0);
	CHECK_EQ(out[15] & 0x0f, 1);		/* up */

	/* CREATE_CQ (0x400): 64 CQEs, EQ 0, one PAS page. */
	memset(out, 0, 16);
	CHECK_EQ(smx_dev_cmd(d, alloc_uar, 16, out, 16), 0);
	uar = (uint32_t)out[9] << 16 | out[10] << 8 | out[11];
	cq_in[0] = 0x04;
	cq_in[0x10 + 12] = 6;			/* log_cq_size */
	cq_in[0x10 + 13] = (uint8_t)(uar >> 16);
	cq_in[0x10 + 14] = (uint8_t)(uar >> 8);
	cq_in[0x10 + 15] = (uint8_t)uar;
	be_put64(cq_in + 0x10 + 56, (uint64_t)(uintptr_t)db);
	be_put64(cq_in + 0x110, (uint64_t)(uintptr_t)ring);
	memset(out, 0xee, 16);
	CHECK_EQ(smx_dev_cmd(d, cq_in, sizeof(cq_in), out, 16), 0);
	CHECK_EQ(out[0], 0x00);
	CHECK(out[9] | out[10] | out[11]);	/* cqn */
	/* Same mailbox cut before its PAS: BAD_INP_LEN. */
	memset(out, 0xee, 16);
	CHECK_EQ(smx_dev_cmd(d, cq_in, 0x110, out, 16), 0);
	CHECK_EQ(out[0], 0x50);
	/* PAS entry not page aligned: BAD_PARAM. */
	be_put64(cq_in + 0x110, (uint64_t)(uintptr_t)ring + 8);
	CHECK_EQ(smx_dev_cmd(d, cq_in, sizeof(cq_in), out, 16), 0);
	CHECK_EQ(out[0], 0x03);

	/* RMP life: CREATE_RMP (0x90c) of 4 linked-list 64-byte WQEs on a
	 * fresh PD, MODIFY_RMP (0x90d) lwm 3, QUERY_RMP (0x90f),
	 * DESTROY_RMP (0x90e). */
	{
		static uint8_t rmp_in[0x118] __attribute__((aligned(8)));
		static uint8_t mod_in[0x110] __attribute__((aligned(8)));
		static uint8_t rring[4096] __attribute__((aligned(4096)));
		static uint8_t rdb[64] __attribute__((aligned(64)));
		static const uint8_t cap_rmp[16] = { 0x01, 0x00, 0, 0, 0, 0, 0x00, 0x01 };
		uint8_t q_in[16] = { 0x09, 0x0f }, d_in[16] = { 0x09, 0x0e };

		memset(out, 0xee, sizeof(out));
		CHECK_EQ(smx_dev_cmd(d, cap_rmp, 16, out, 0x1010), 0);
		CHECK_EQ(out[16 + 0x70] & 0x80, 0x80);	/* basic_cyclic_rcv_wqe */
		CHECK(out[16 + 0x70] & 0x1f);		/* log_max_rmp */
		memset(out, 0, 16);
		CHECK_EQ(smx_dev_cmd(d, alloc_pd, 16, out, 16), 0);
		rmp_in[0] = 0x09;
		rmp_in[1] = 0x0c;
		rmp_in[0x21] = 0x10;			/* state RDY */
		memcpy(rmp_in + 0x59, out + 9, 3);	/* wq.pd */
		be_put64(rmp_in + 0x60, (uint64_t)(uintptr_t)rdb);	/* dbr_addr */
		rmp_in[0x71] = 6;			/* log_wq_stride */
		rmp_in[0x73] = 2;			/* log_wq_sz */
		be_put64(rmp_in + 0x110, (uint64_t)(uintptr_t)rring);
		memset(out, 0xee, 16);
		CHECK_EQ(smx_dev_cmd(d, rmp_in, sizeof(rmp_in), out, 16), 0);
		CHECK_EQ(out[0], 0x00);
		CHECK(out[9] | out[10] | out[11]);	/* rmpn */
		mod_in[0] = 0x09;
		mod_in[1] = 0x0d;
		mod_in[8] = 0x10;			/* rmp_state RDY */
		memcpy(mod_in + 9, out + 9, 3);
		memcpy(q_in + 9, out + 9, 3);
		memcpy(d_in + 9, out + 9, 3);
		mod_in[0x17] = 0x01;			/* bitmask.lwm */
		mod_in[0x21] = 0x10;			/* next state RDY */
		mod_in[0x57] = 3;			/* wq.lwm */
		memset(out, 0xee, 16);
		CHECK_EQ(smx_dev_cmd(d, mod_in, sizeof(mod_in), out, 16), 0);
		CHECK_EQ(out[0], 0x00);
		memset(out, 0xee, 0x110);
		CHECK_EQ(smx_dev_cmd(d, q_in, 16, out, 0x110), 0);
		CHECK_EQ(out[0], 0x00);
		CHECK_EQ(out[0x21] >> 4, 1);		/* RDY */
		CHECK_EQ(out[0x56] << 8 | out[0x57], 3);	/* lwm */
		CHECK_EQ(out[0x50] >> 4, 0);		/* linked list */
		CHECK_EQ(out[0x71] & 0x0f, 6);
		CHECK_EQ(out[0x73] & 0x1f, 2);
		/* lwm 4 is not below 4 WQEs: BAD_PARAM */
		mod_in[0x57] = 4;
		CHECK_EQ(smx_dev_cmd(d, mod_in, sizeof(mod_in), out, 16), 0);
		CHECK_EQ(out[0], 0x03);
		memset(out, 0xee, 16);
		CHECK_EQ(smx_dev_cmd(d, d_in, 16, out, 16), 0);
		CHECK_EQ(out[0], 0x00);
		CHECK_EQ(smx_dev_cmd(d, d_in, 16, out, 16), 0);
		CHECK_EQ(out[0], 0x05);			/* BAD_RES: gone */
	}
}

int main(void)
{
	struct smx_dev *d;

	golden_caps();
	golden_qp();
	golden_others();
	golden_eth();
	golden_rmp();
	golden_reformat();
	golden_crypto();
	unsetenv("SOFTMLX5_CONFIG");
	setenv("XDG_CONFIG_HOME", "/nonexistent-softmlx5-test", 1);
	setenv("HOME", "/nonexistent-softmlx5-test", 1);
	d = smx_dev_open();
	CHECK(d != NULL);
	if (d) {
		golden_mailboxes(d);
		smx_dev_close(d);
	}
	return smx_test_done();
}
