/* SPDX-License-Identifier: MIT */
/*
 * QUERY_HCA_CAP and QUERY_ADAPTER: how the device describes itself. Values
 * come from the configuration (defaults: a ConnectX-7 with one RoCEv2 port);
 * a capability is advertised only where the device implements it.
 */
#include <string.h>

#include "device/fw/fw_loc.h"

#define CAP_SET(typ, fld, v) DEVX_SET(typ, cap, fld, v)

static void fw_caps_general(const struct fw *fw, void *cap)
{
	const struct smx_config *cfg = &fw->cfg;
	uint32_t sge = cfg->max_sge ? cfg->max_sge : 30;

	CAP_SET(cmd_hca_cap, vhca_id, 0);
	CAP_SET(cmd_hca_cap, log_max_srq_sz, cfg->log_max_srq_sz);
	CAP_SET(cmd_hca_cap, log_max_qp_sz, cfg->log_max_qp_sz);
	CAP_SET(cmd_hca_cap, log_max_qp, cfg->log_max_qp);
	CAP_SET(cmd_hca_cap, log_max_srq, cfg->log_max_srq);
	CAP_SET(cmd_hca_cap, log_max_cq_sz, cfg->log_max_cq_sz);
	CAP_SET(cmd_hca_cap, log_max_cq, cfg->log_max_cq);
	CAP_SET(cmd_hca_cap, log_max_eq_sz, 22);
	CAP_SET(cmd_hca_cap, log_max_mkey, cfg->log_max_mkey);
	CAP_SET(cmd_hca_cap, log_max_eq, 8);
	CAP_SET(cmd_hca_cap, max_indirection, 4);
	CAP_SET(cmd_hca_cap, log_max_mrw_sz, 64);
	CAP_SET(cmd_hca_cap, log_max_klm_list_size, 16);
	/* KSM mkeys (fixed-size entities), translated by eng_mkey.c. */
	CAP_SET(cmd_hca_cap, fixed_buffer_size, 1);
	CAP_SET(cmd_hca_cap, log_max_ra_req_dc, 4);
	CAP_SET(cmd_hca_cap, log_max_ra_res_dc, 4);
	CAP_SET(cmd_hca_cap, log_max_ra_req_qp, 4);
	CAP_SET(cmd_hca_cap, log_max_ra_res_qp, 4);
	/* DMA memcpy MMO WQEs on any RC send queue (the engine's
	 * eng_sq_mmo()), up to 1 MiB per WQE. */
	CAP_SET(cmd_hca_cap, dma_mmo_sq, 1);
	CAP_SET(cmd_hca_cap, log_dma_mmo_max_size, 20);
	CAP_SET(cmd_hca_cap, end_pad, 1);
	CAP_SET(cmd_hca_cap, gid_table_size, cfg->gid_tbl_len);
	CAP_SET(cmd_hca_cap, out_of_seq_cnt, 1);
	CAP_SET(cmd_hca_cap, max_qp_cnt, 64);
	CAP_SET(cmd_hca_cap, pkey_table_size, cfg->pkey_tbl_len);
	CAP_SET(cmd_hca_cap, device_memory, cfg->max_dm_size ? 1 : 0);
	CAP_SET(cmd_hca_cap, local_ca_ack_delay, 16);
	CAP_SET(cmd_hca_cap, port_type, cfg->link_layer == SMX_LINK_ETH ?
		MLX5_CAP_PORT_TYPE_ETH : MLX5_CAP_PORT_TYPE_IB);
	CAP_SET(cmd_hca_cap, num_ports, 1);
	CAP_SET(cmd_hca_cap, log_max_msg, cfg->log_max_msg);
	CAP_SET(cmd_hca_cap, max_tc, 0);
	CAP_SET(cmd_hca_cap, stat_rate_support, 0);
	CAP_SET(cmd_hca_cap, cqe_version, 1);
	CAP_SET(cmd_hca_cap, roce, cfg->link_layer == SMX_LINK_ETH);
	CAP_SET(cmd_hca_cap, atomic, 1);
	CAP_SET(cmd_hca_cap, cq_oi, 1);
	CAP_SET(cmd_hca_cap, cq_resize, 1);
	CAP_SET(cmd_hca_cap, cq_moderation, 1);
	CAP_SET(cmd_hca_cap, cq_period_mode_modify, 1);
	CAP_SET(cmd_hca_cap, cq_eq_remap, 1);
	CAP_SET(cmd_hca_cap, pg, 1);		/* on-demand paging */
	CAP_SET(cmd_hca_cap, xrc, 1);
	CAP_SET(cmd_hca_cap, ud, 1);
	CAP_SET(cmd_hca_cap, uc, 1);
	CAP_SET(cmd_hca_cap, rc, 1);
	/* DC: DCI QPs (st DCI) and DCTs; DCI stream channels with per-stream
	 * error accounting, extended QP contexts (RTS2RTS stream reset). */
	CAP_SET(cmd_hca_cap, dct, 1);
	CAP_SET(cmd_hca_cap, qpc_extension, 1);
	CAP_SET(cmd_hca_cap, rts2rts_qp_udp_sport, 1);
	CAP_SET(cmd_hca_cap, qos, 1);
	CAP_SET(cmd_hca_cap, cqe_128_always, 1);	/* 128B padded CQEs */
	/* CQE compression of Ethernet receive CQEs, basic layout, 64- and
	 * 128-byte CQEs, mini CQEs with hash, checksum or checksum + stride
	 * index (src/device/engine/eng_comp.c) */
	CAP_SET(cmd_hca_cap, cqe_compression, 1);
	CAP_SET(cmd_hca_cap, cqe_compression_128, 1);
	CAP_SET(cmd_hca_cap, mini_cqe_resp_stride_index, 1);
	CAP_SET(cmd_hca_cap, cqe_compression_max_num, FW_CQE_COMP_MAX);
	CAP_SET(cmd_hca_cap, cqe_compression_timeout, 0);
	/* Signature offload (eng_sig.c): T10-DIF and CRC32/CRC32C blocks of
	 * 512/520/4096/4160/4048 bytes, signature error CQEs, drain on error. */
	CAP_SET(cmd_hca_cap, sho, 1);
	CAP_SET(cmd_hca_cap, sigerr_domain_and_sig_type, 1);
	CAP_SET(cmd_hca_cap, sigerr_cqe, 1);
	CAP_SET(cmd_hca_cap, drain_sigerr, 1);
	CAP_SET(cmd_hca_cap, sig_crc32c, 1);
	CAP_SET(cmd_hca_cap, sig_block_4048, 1);
	CAP_SET(cmd_hca_cap, log_max_bsf_list_size, 0);
	/* general objects the firmware implements (fw_genobj.c); the crypto
	 * ones as the configured crypto mode offers them */
	DEVX_SET64(cmd_hca_cap, cap, general_obj_types,
		   1ull << MLX5_OBJ_TYPE_AV_QP_MAPPING |
		   1ull << MLX5_OBJ_TYPE_SCHEDULING_ELEMENT |
		   (cfg->crypto_mode != SMX_CRYPTO_OFF ?
		    1ull << MLX5_OBJ_TYPE_DEK : 0) |
		   (cfg->crypto_mode == SMX_CRYPTO_WRAPPED ?
		    1ull << MLX5_OBJ_TYPE_CRYPTO_LOGIN : 0));
	/* AES-XTS over many data units per mkey, initial tweak big-endian in
	 * the BSF, incremented per data unit (engine/eng_crypto.c). */
	CAP_SET(cmd_hca_cap, crypto, cfg->crypto_mode != SMX_CRYPTO_OFF);
	CAP_SET(cmd_hca_cap, aes_xts_multi_block_be_tweak,
		cfg->crypto_mode != SMX_CRYPTO_OFF);
	CAP_SET(cmd_hca_cap, log_max_dci_stream_channels, FW_LOG_MAX_DCI_STREAMS);
	CAP_SET(cmd_hca_cap, log_max_dci_errored_streams, FW_LOG_MAX_DCI_ERRORED);
	CAP_SET(cmd_hca_cap, uar_4k, 1);
	CAP_SET(cmd_hca_cap, uar_sz, 0);	/* log2(BAR UAR area / 1 MiB) */
	CAP_SET(cmd_hca_cap, umem_uid_0, 1);
	CAP_SET(cmd_hca_cap, log_pg_sz, 12);
	CAP_SET(cmd_hca_cap, bf, 1);
	CAP_SET(cmd_hca_cap, log_bf_reg_size, 9);
	/* max_wqe_sz_*: the provider derives max_sge from these. */
	/* At least 1 KiB of send WQE, as ConnectX parts: room for 512 bytes
	 * of inline data or an inline mkey layout (mlx5dv mkey WRs). */
	CAP_SET(cmd_hca_cap, max_wqe_sz_sq, 32 + 16 * sge > 1024 ? 32 + 16 * sge : 1024);
	/* A receive WQE stride is a power of two (512 bytes for 30 SGEs,
	 * as on ConnectX parts): a queue sized for max_sge must fit. */
	CAP_SET(cmd_hca_cap, max_wqe_sz_rq, 1u << (32 - __builtin_clz(16 * sge - 1)));
	CAP_SET(cmd_hca_cap, max_wqe_sz_sq_dc, 32 + 16 * sge);
	CAP_SET(cmd_hca_cap, max_qp_mcg, 0);
	CAP_SET(cmd_hca_cap, log_max_mcg, 0);
	CAP_SET(cmd_hca_cap, log_max_transport_domain, 16);
	CAP_SET(cmd_hca_cap, log_max_pd, cfg->log_max_pd);
	CAP_SET(cmd_hca_cap, log_max_xrcd, cfg->log_max_xrcd);
	/* RMPs take linked-list and basic cyclic WQEs (fw_rmp.c). */
	CAP_SET(cmd_hca_cap, basic_cyclic_rcv_wqe, 1);
	CAP_SET(cmd_hca_cap, log_max_rmp, cfg->log_max_srq);
	CAP_SET(cmd_hca_cap, log_max_wq_sz, cfg->log_max_qp_sz);
	/* CREATE_UMEM and the user context are real commands here, not
	 * general objects; no general object type is implemented yet. */
	CAP_SET(cmd_hca_cap, log_max_uctx, 10);
	CAP_SET(cmd_hca_cap, log_max_umem, 20);
	CAP_SET(cmd_hca_cap, max_num_eqs, 256);
	CAP_SET(cmd_hca_cap, log_uar_page_sz, 0);	/* 4 KiB UAR pages */
	CAP_SET(cmd_hca_cap, device_frequency_mhz, 1000);
	CAP_SET(cmd_hca_cap, device_frequency_khz, 1000000);
	CAP_SET(cmd_hca_cap, num_of_uars_per_page, 1);
	CAP_SET(cmd_hca_cap, log_max_atomic_size_qp, 3);
	CAP_SET(cmd_hca_cap, log_max_atomic_size_dc, 3);
	CAP_SET(cmd_hca_cap, native_port_num, 1);
	CAP_SET(cmd_hca_cap, num_vhca_ports, 1);
	/* Ethernet queues and NIC receive steering (fw_sq.c, fw_rq.c,
	 * fw_tis.c, fw_tir.c, fw_flow.c; frames loop back in-process). */
	CAP_SET(cmd_hca_cap, eth_net_offloads, cfg->link_layer == SMX_LINK_ETH);
	CAP_SET(cmd_hca_cap, nic_flow_table, cfg->link_layer == SMX_LINK_ETH);
	CAP_SET(cmd_hca_cap, log_max_tis, 16);
	CAP_SET(cmd_hca_cap, log_max_tir, 16);
	CAP_SET(cmd_hca_cap, log_max_sq, 16);
	CAP_SET(cmd_hca_cap, log_max_rq, 16);
	/* RSS: RQ tables for indirect TIRs (fw_rqt.c) */
	CAP_SET(cmd_hca_cap, log_max_rqt, 16);
	CAP_SET(cmd_hca_cap, log_max_rqt_size, FW_LOG_MAX_RQT_SIZE);
	CAP_SET(cmd_hca_cap, log_max_tis_per_sq, 0);
	/* Flow counters (fw_fc.c), one per ALLOC_FLOW_COUNTER: no bulk
	 * allocation, no dump to memory. */
	CAP_SET(cmd_hca_cap, max_flow_counter_15_0, 0xffff);
	CAP_SET(cmd_hca_cap, max_flow_counter_31_16, 0);
	CAP_SET(cmd_hca_cap, flow_counter_bulk_alloc, 0);
	CAP_SET(cmd_hca_cap, log_max_flow_counter_bulk, 0);
}

/* What an Ethernet SQ / RQ offloads (eng_eth.c): IPv4 header and TCP/UDP
 * checksums inserted on send and verified on receive, C-VLAN stripping;
 * no inline headers needed in send WQEs; no LSO, LRO or RSS. */
static void fw_caps_eth(void *cap)
{
	CAP_SET(per_protocol_networking_offload_caps, csum_cap, 1);
	CAP_SET(per_protocol_networking_offload_caps, rss_ind_tbl_cap, FW_LOG_MAX_RQT_SIZE);
	CAP_SET(per_protocol_networking_offload_caps, vlan_cap, 1);
	CAP_SET(per_protocol_networking_offload_caps, wqe_inline_mode,
		MLX5_CAP_INLINE_MODE_NOT_REQUIRED);
}

/* What NIC RX and NIC TX flow tables share (fw_flow.c): outer L2-L4
 * fields, counters, destination and miss tables. */
static void fw_caps_ft_props(void *p)
{
	void *f[2] = {
		DEVX_ADDR_OF(flow_table_prop_layout, p, ft_field_support),
		DEVX_ADDR_OF(flow_table_prop_layout, p, ft_field_bitmask_support),
	};

	DEVX_SET(flow_table_prop_layout, p, ft_support, 1);
	DEVX_SET(flow_table_prop_layout, p, log_max_ft_size, 16);
	DEVX_SET(flow_table_prop_layout, p, max_ft_level, 63);
	DEVX_SET(flow_table_prop_layout, p, log_max_ft_num, 16);
	DEVX_SET(flow_table_prop_layout, p, log_max_destination, 4);
	DEVX_SET(flow_table_prop_layout, p, log_max_flow, 16);
	DEVX_SET(flow_table_prop_layout, p, flow_counter, 1);
	DEVX_SET(flow_table_prop_layout, p, log_max_flow_counter, 4);
	for (unsigned int i = 0; i < 2; i++) {
		DEVX_SET(flow_table_fields_supported, f[i], outer_dmac, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_smac, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_ether_type, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_ip_version, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_first_prio, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_first_cfi, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_first_vid, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_ipv4_ttl, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_sip, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_dip, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_frag, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_ip_protocol, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_ip_ecn, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_ip_dscp, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_udp_sport, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_udp_dport, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_tcp_sport, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_tcp_dport, 1);
		DEVX_SET(flow_table_fields_supported, f[i], outer_tcp_flags, 1);
	}
}

/* NIC receive tables: several TIR destinations per entry, VLAN pop, VXLAN
 * decap. NIC transmit tables: their own root, and rewrites (fw_modhdr.c,
 * VLAN pop/push, encap through packet reformat contexts, fw_reformat.c).
 * `reformat` is set on NIC RX as well: rdma-core's reformat tests read it
 * as "reformat actions on NIC RX", which here is the L2 tunnel decap
 * (action DECAP); a NIC RX entry naming a reformat context is refused. */
static void fw_caps_flow_table(void *cap)
{
	void *rx = DEVX_ADDR_OF(flow_table_nic_cap, cap,
				flow_table_properties_nic_receive);
	void *tx = DEVX_ADDR_OF(flow_table_nic_cap, cap,
				flow_table_properties_nic_transmit);

	CAP_SET(flow_table_nic_cap, nic_rx_multi_path_tirs, 1);
	CAP_SET(flow_table_nic_cap, encap_general_header, 1);
	CAP_SET(flow_table_nic_cap, log_max_packet_reformat_context, FW_PR_LOG_MAX);
	CAP_SET(flow_table_nic_cap, max_encap_header_size, FW_PR_MAX_HDR);
	fw_caps_ft_props(rx);
	fw_caps_ft_props(tx);
	DEVX_SET(flow_table_prop_layout, rx, pop_vlan, 1);
	DEVX_SET(flow_table_prop_layout, rx, reformat, 1);
	DEVX_SET(flow_table_prop_layout, rx, decap, 1);
	DEVX_SET(flow_table_prop_layout, tx, reformat, 1);
	DEVX_SET(flow_table_prop_layout, tx, modify_root, 1);
	DEVX_SET(flow_table_prop_layout, tx, pop_vlan, 1);
	DEVX_SET(flow_table_prop_layout, tx, push_vlan, 1);
	DEVX_SET(flow_table_prop_layout, tx, log_max_modify_header_context,
		 FW_MH_LOG_MAX);
	DEVX_SET(flow_table_prop_layout, tx, max_modify_header_actions,
		 FW_MH_MAX_ACTIONS);
}

static void fw_caps_atomic(void *cap)
{
	/* Compare-and-swap and fetch-and-add (bits 0, 1), 8-byte operands
	 * (size bit 3 = 8 bytes) on host-order memory: mode 1, which
	 * mlx5_core sets at init wherever supported_..._mode_1 allows. */
	CAP_SET(atomic_caps, atomic_req_8B_endianness_mode, 1);
	CAP_SET(atomic_caps, supported_atomic_req_8B_endianness_mode_1, 1);
	CAP_SET(atomic_caps, atomic_operations, 0x3);
	CAP_SET(atomic_caps, atomic_size_qp, 0x8);
	CAP_SET(atomic_caps, atomic_size_dc, 0x8);
	CAP_SET(atomic_caps, fetch_add_pci_atomic, 0x8);
	CAP_SET(atomic_caps, swap_pci_atomic, 0x8);
	CAP_SET(atomic_caps, compare_swap_pci_atomic, 0x8);
}

static void fw_caps_roce(void *cap)
{
	CAP_SET(roce_cap, sw_r_roce_src_udp_port, 1);
	CAP_SET(roce_cap, fl_rc_qp_when_roce_enabled, 0);
	CAP_SET(roce_cap, qp_ts_format, 0);
}

/* Packet pacing: the rate table is kept (SET_PP_RATE_LIMIT); the engine does
 * not pace any queue by it -- see docs/status.md. */
static void fw_caps_qos(void *cap)
{
	CAP_SET(qos_cap, packet_pacing, 1);
	CAP_SET(qos_cap, packet_pacing_burst_bound, 1);
	CAP_SET(qos_cap, packet_pacing_typical_size, 1);
	CAP_SET(qos_cap, packet_pacing_uid, 1);
	CAP_SET(qos_cap, packet_pacing_max_rate, FW_RL_MAX_KBPS);
	CAP_SET(qos_cap, packet_pacing_min_rate, FW_RL_MIN_KBPS);
	CAP_SET(qos_cap, packet_pacing_rate_table_size, FW_RL_TABLE_SIZE);
	/* NIC scheduling elements (fw_genobj.c): DWRR TSAR nodes and queue
	 * group leaves that RC/UC/UD QPs join; kept, not enforced. */
	CAP_SET(qos_cap, nic_bw_share, 1);
	CAP_SET(qos_cap, nic_rate_limit, 1);
	CAP_SET(qos_cap, nic_qp_scheduling, 1);
	CAP_SET(qos_cap, max_tsar_bw_share, FW_SCHED_MAX_BW_SHARE);
	CAP_SET(qos_cap, nic_element_type, ELEMENT_TYPE_CAP_MASK_TSAR |
		ELEMENT_TYPE_CAP_MASK_QUEUE_GROUP);
	CAP_SET(qos_cap, nic_tsar_type, TSAR_TYPE_CAP_MASK_DWRR);
}

/* The crypto engine: wrapped (RFC 3394 with the import KEK, after a login)
 * or plaintext DEK import, as configured; one KEK and one credential held in
 * "non-volatile" storage (the configuration). */
static void fw_caps_crypto(const struct fw *fw, void *cap)
{
	bool wrapped = fw->cfg.crypto_mode == SMX_CRYPTO_WRAPPED;

	if (fw->cfg.crypto_mode == SMX_CRYPTO_OFF)
		return;
	CAP_SET(crypto_caps, wrapped_crypto_operational, wrapped);
	CAP_SET(crypto_caps, wrapped_import_method,
		wrapped ? MLX5_CRYPTO_WRAPPED_IMPORT_METHOD_AES_XTS : 0);
	CAP_SET(crypto_caps, log_max_num_deks, FW_CRYPTO_LOG_MAX_DEKS);
	CAP_SET(crypto_caps, failed_selftests, fw->crypto.failed_selftests);
	CAP_SET(crypto_caps, num_nv_import_keks, wrapped);
	CAP_SET(crypto_caps, num_nv_credentials, wrapped);
}

static void fw_caps_dev_mem(const struct fw *fw, void *cap)
{
	if (!fw->memic_size)
		return;
	CAP_SET(device_mem_cap, memic, 1);
	CAP_SET(device_mem_cap, log_min_memic_alloc_size, 6);
	CAP_SET(device_mem_cap, log_max_memic_addr_alignment, 12);
	DEVX_SET64(device_mem_cap, cap, memic_bar_start_addr, fw->memic_bar_off);
	CAP_SET(device_mem_cap, memic_bar_size, (uint32_t)fw->memic_size);
	CAP_SET(device_mem_cap, max_memic_size, (uint32_t)fw->memic_size);
}

/* On-demand paging: the device reaches host memory through the owner's
 * mappings, so every transport can fault in every operation. */
static void fw_caps_odp(void *cap)
{
	/* rc, uc, ud, xrc, dc */
	void *t[5] = {
		DEVX_ADDR_OF(odp_cap, cap, rc_odp_caps),
		DEVX_ADDR_OF(odp_cap, cap, uc_odp_caps),
		DEVX_ADDR_OF(odp_cap, cap, ud_odp_caps),
		DEVX_ADDR_OF(odp_cap, cap, xrc_odp_caps),
		DEVX_ADDR_OF(odp_cap, cap, dc_odp_caps),
	};

	for (unsigned int i = 0; i < 5; i++) {
		bool reliable = i != 1 && i != 2;	/* not UC, not UD */

		DEVX_SET(odp_per_transport_service_cap, t[i], send, 1);
		DEVX_SET(odp_per_transport_service_cap, t[i], receive, i != 4);
		DEVX_SET(odp_per_transport_service_cap, t[i], write, i != 2);
		DEVX_SET(odp_per_transport_service_cap, t[i], read, reliable);
		DEVX_SET(odp_per_transport_service_cap, t[i], atomic, reliable);
		DEVX_SET(odp_per_transport_service_cap, t[i], srq_receive, 1);
	}
}

int fw_caps_query_hca_cap(struct fw_cmd *c)
{
	uint32_t type = c->op_mod >> 1;
	void *cap = OUT_ADDR(query_hca_cap_out, capability);

	if (IN_GET(query_hca_cap_in, other_function))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "other_function: function %u is not ours to query",
			       IN_GET(query_hca_cap_in, function_id));
	switch (type) {
	case MLX5_CAP_GENERAL:
		fw_caps_general(c->fw, cap);
		break;
	case MLX5_CAP_ODP:
		fw_caps_odp(cap);
		break;
	case MLX5_CAP_ATOMIC:
		fw_caps_atomic(cap);
		break;
	case MLX5_CAP_ROCE:
		fw_caps_roce(cap);
		break;
	case MLX5_CAP_DEV_MEM:
		fw_caps_dev_mem(c->fw, cap);
		break;
	case MLX5_CAP_QOS:
		fw_caps_qos(cap);
		break;
	case MLX5_CAP_CRYPTO:
		fw_caps_crypto(c->fw, cap);
		break;
	case MLX5_CAP_ETHERNET_OFFLOADS:
		if (c->fw->cfg.link_layer == SMX_LINK_ETH)
			fw_caps_eth(cap);
		break;
	case MLX5_CAP_FLOW_TABLE:
		if (c->fw->cfg.link_layer == SMX_LINK_ETH)
			fw_caps_flow_table(cap);
		break;
	case MLX5_CAP_IPOIB_OFFLOADS:
	case MLX5_CAP_IPOIB_ENHANCED_OFFLOADS:
	case MLX5_CAP_ESWITCH_FLOW_TABLE:
	case MLX5_CAP_ESWITCH:
	case MLX5_CAP_VECTOR_CALC:
	case MLX5_CAP_DEBUG:
	case MLX5_CAP_DEV_EVENT:
	case MLX5_CAP_IPSEC:
	case MLX5_CAP_GENERAL_2:
		/* Known capability page, nothing of it implemented. */
		break;
	default:
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "op_mod 0x%x: capability type 0x%x is unknown",
			       c->op_mod, type);
	}
	return 0;
}

int fw_caps_query_adapter(struct fw_cmd *c)
{
	uint8_t *blk = OUT_ADDR(query_adapter_out, query_adapter_struct);
	static const char psid[] = "SMX0000000001";

	DEVX_SET(query_adapter_param_block, blk, ieee_vendor_id,
		 c->fw->cfg.vendor_id);
	DEVX_SET(query_adapter_param_block, blk, vsd_vendor_id, 0x15b3);
	memcpy(DEVX_ADDR_OF(query_adapter_param_block, blk, vsd_contd_psid),
	       psid, sizeof(psid) - 1);
	return 0;
}

int fw_caps_nop(struct fw_cmd *c)
{
	(void)c;
	return 0;
}
