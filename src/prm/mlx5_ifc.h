/* SPDX-License-Identifier: MIT */
/*
 * PRM mailbox layouts, mlx5 convention: one uint8_t per bit, so
 * sizeof(struct mlx5_ifc_X_bits) is the size in bits and offsetof() a field's
 * bit offset. Access only through DEVX_SET/GET/SET64/GET64/ADDR_OF from
 * <infiniband/mlx5dv.h>. Field names and offsets are the PRM's (facts taken
 * from rdma-core v44 providers/mlx5/mlx5_ifc.h, its tests/mlx5_prm_structs.py
 * and the Linux include/linux/mlx5/mlx5_ifc.h); structures that we only
 * partly need keep their real size with the rest left as reserved_at_<off>.
 *
 * Every structure has a size assertion at the end of this file; golden byte
 * vectors in tests/prm/ check the field offsets independently.
 */
#ifndef SMX_PRM_MLX5_IFC_H
#define SMX_PRM_MLX5_IFC_H

#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Command envelope                                                   */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_mbox_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_mbox_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_general_obj_in_cmd_hdr_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t vhca_tunnel_id[0x10];
	uint8_t obj_type[0x10];

	uint8_t obj_id[0x20];

	uint8_t reserved_at_60[0x3];
	uint8_t log_obj_range[0x5];
	uint8_t reserved_at_68[0x18];
};

/* The UD address vector as general objects carry it (PRM "ud_av"). */
struct mlx5_ifc_ud_av_bits {
	uint8_t reserved_at_0[0x60];

	uint8_t reserved_at_60[0x4];
	uint8_t sl_or_eth_prio[0x4];
	uint8_t reserved_at_68[0x18];

	uint8_t reserved_at_80[0x60];

	uint8_t reserved_at_e0[0x4];
	uint8_t src_addr_index[0x8];
	uint8_t reserved_at_ec[0x14];

	uint8_t rgid_or_rip[16][0x8];
};

/* General object AV_QP_MAPPING: traffic to this address goes by this QP. */
struct mlx5_ifc_av_qp_mapping_bits {
	uint8_t modify_field_select[0x40];

	uint8_t reserved_at_40[0x20];

	uint8_t qpn[0x20];

	struct mlx5_ifc_ud_av_bits remote_address_vector;
};

struct mlx5_ifc_general_obj_out_cmd_hdr_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t obj_id[0x20];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_create_av_qp_mapping_in_bits {
	struct mlx5_ifc_general_obj_in_cmd_hdr_bits hdr;
	struct mlx5_ifc_av_qp_mapping_bits mapping;
};

struct mlx5_ifc_query_av_qp_mapping_out_bits {
	struct mlx5_ifc_general_obj_out_cmd_hdr_bits hdr;
	struct mlx5_ifc_av_qp_mapping_bits obj;
};

/* A command with nothing but a 24-bit handle at dword 2 (DESTROY_*, DEALLOC_*). */
struct mlx5_ifc_obj_handle_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t handle[0x18];

	uint8_t reserved_at_60[0x20];
};

/* A command answering a 24-bit handle at dword 2 (CREATE_*, ALLOC_*). */
struct mlx5_ifc_obj_handle_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t handle[0x18];

	uint8_t reserved_at_60[0x20];
};

/* ------------------------------------------------------------------ */
/* Capabilities                                                       */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_cmd_hca_cap_bits {
	uint8_t access_other_hca_roce[0x1];
	uint8_t reserved_at_1[0x1e];
	uint8_t vhca_resource_manager[0x1];

	uint8_t hca_cap_2[0x1];
	uint8_t reserved_at_21[0xf];
	uint8_t vhca_id[0x10];

	uint8_t reserved_at_40[0x20];

	uint8_t reserved_at_60[0xb];
	uint8_t log_dma_mmo_max_size[0x5];
	uint8_t reserved_at_70[0x10];

	uint8_t log_max_srq_sz[0x8];
	uint8_t log_max_qp_sz[0x8];
	uint8_t reserved_at_90[0xb];
	uint8_t log_max_qp[0x5];

	uint8_t reserved_at_a0[0xb];
	uint8_t log_max_srq[0x5];
	uint8_t reserved_at_b0[0x10];

	uint8_t reserved_at_c0[0x8];
	uint8_t log_max_cq_sz[0x8];
	uint8_t reserved_at_d0[0xb];
	uint8_t log_max_cq[0x5];

	uint8_t log_max_eq_sz[0x8];
	uint8_t relaxed_ordering_write[0x1];
	uint8_t reserved_at_e9[0x1];
	uint8_t log_max_mkey[0x6];
	uint8_t reserved_at_f0[0x8];
	uint8_t dump_fill_mkey[0x1];
	uint8_t reserved_at_f9[0x3];
	uint8_t log_max_eq[0x4];

	uint8_t max_indirection[0x8];
	uint8_t fixed_buffer_size[0x1];
	uint8_t log_max_mrw_sz[0x7];
	uint8_t force_teardown[0x1];
	uint8_t reserved_at_111[0x1];
	uint8_t log_max_bsf_list_size[0x6];
	uint8_t umr_extended_translation_offset[0x1];
	uint8_t null_mkey[0x1];
	uint8_t log_max_klm_list_size[0x6];

	uint8_t reserved_at_120[0x2];
	uint8_t qpc_extension[0x1];
	uint8_t reserved_at_123[0x7];
	uint8_t log_max_ra_req_dc[0x6];
	uint8_t reserved_at_130[0xa];
	uint8_t log_max_ra_res_dc[0x6];

	uint8_t reserved_at_140[0x7];
	uint8_t sig_crc64_xp10[0x1];
	uint8_t sig_crc32c[0x1];
	uint8_t reserved_at_149[0x1];
	uint8_t log_max_ra_req_qp[0x6];
	uint8_t reserved_at_150[0x1];
	uint8_t rts2rts_qp_udp_sport[0x1];
	uint8_t rts2rts_lag_tx_port_affinity[0x1];
	uint8_t dma_mmo_sq[0x1];
	uint8_t reserved_at_154[0x6];
	uint8_t log_max_ra_res_qp[0x6];

	uint8_t end_pad[0x1];
	uint8_t cc_query_allowed[0x1];
	uint8_t cc_modify_allowed[0x1];
	uint8_t start_pad[0x1];
	uint8_t cache_line_128byte[0x1];
	uint8_t gid_table_size_ro[0x1];
	uint8_t pkey_table_size_ro[0x1];
	uint8_t reserved_at_167[0x9];
	uint8_t gid_table_size[0x10];

	uint8_t out_of_seq_cnt[0x1];
	uint8_t vport_counters[0x1];
	uint8_t retransmission_q_counters[0x1];
	uint8_t debug[0x1];
	uint8_t modify_rq_counters_set_id[0x1];
	uint8_t rq_delay_drop[0x1];
	uint8_t max_qp_cnt[0xa];
	uint8_t pkey_table_size[0x10];

	uint8_t vport_group_manager[0x1];
	uint8_t vhca_group_manager[0x1];
	uint8_t ib_virt[0x1];
	uint8_t eth_virt[0x1];
	uint8_t vnic_env_queue_counters[0x1];
	uint8_t ets[0x1];
	uint8_t nic_flow_table[0x1];
	uint8_t eswitch_manager[0x1];
	uint8_t device_memory[0x1];
	uint8_t mcam_reg[0x1];
	uint8_t pcam_reg[0x1];
	uint8_t local_ca_ack_delay[0x5];
	uint8_t port_module_event[0x1];
	uint8_t reserved_at_1b1[0x5];
	uint8_t port_type[0x2];
	uint8_t num_ports[0x8];

	uint8_t reserved_at_1c0[0x3];
	uint8_t log_max_msg[0x5];
	uint8_t reserved_at_1c8[0x4];
	uint8_t max_tc[0x4];
	uint8_t reserved_at_1d0[0x10];

	uint8_t stat_rate_support[0x10];
	uint8_t sig_block_4048[0x1];
	uint8_t reserved_at_1f1[0xb];
	uint8_t cqe_version[0x4];

	uint8_t compact_address_vector[0x1];
	uint8_t reserved_at_201[0x6];
	uint8_t umr_modify_entity_size_disabled[0x1];
	uint8_t umr_modify_atomic_disabled[0x1];
	uint8_t umr_indirect_mkey_disabled[0x1];
	uint8_t umr_fence[0x2];
	uint8_t dc_req_sctr_data_cqe[0x1];
	uint8_t dc_connect_qp[0x1];
	uint8_t dc_cnak_trace[0x1];
	uint8_t drain_sigerr[0x1];
	uint8_t cmdif_checksum[0x2];
	uint8_t sigerr_cqe[0x1];
	uint8_t reserved_at_213[0x1];
	uint8_t wq_signature[0x1];
	uint8_t sctr_data_cqe[0x1];
	uint8_t reserved_at_216[0x1];
	uint8_t sho[0x1];
	uint8_t tph[0x1];
	uint8_t rf[0x1];
	uint8_t dct[0x1];
	uint8_t qos[0x1];
	uint8_t eth_net_offloads[0x1];
	uint8_t roce[0x1];
	uint8_t atomic[0x1];
	uint8_t extended_retry_count[0x1];

	uint8_t cq_oi[0x1];
	uint8_t cq_resize[0x1];
	uint8_t cq_moderation[0x1];
	uint8_t cq_period_mode_modify[0x1];
	uint8_t cq_invalidate[0x1];
	uint8_t reserved_at_225[0x1];
	uint8_t cq_eq_remap[0x1];
	uint8_t pg[0x1];
	uint8_t block_lb_mc[0x1];
	uint8_t exponential_backoff[0x1];
	uint8_t scqe_break_moderation[0x1];
	uint8_t cq_period_start_from_cqe[0x1];
	uint8_t cd[0x1];
	uint8_t atm[0x1];
	uint8_t apm[0x1];
	uint8_t vector_calc[0x1];
	uint8_t umr_ptr_rlkey[0x1];
	uint8_t imaicl[0x1];
	uint8_t qp_packet_based[0x1];
	uint8_t reserved_at_233[0x1];
	uint8_t ipoib_enhanced_pkey_change[0x1];
	uint8_t initiator_src_dct_in_cqe[0x1];
	uint8_t qkv[0x1];
	uint8_t pkv[0x1];
	uint8_t set_deth_sqpn[0x1];
	uint8_t rts2rts_primary_sl[0x1];
	uint8_t initiator_src_dct[0x1];
	uint8_t dc_v2[0x1];
	uint8_t xrc[0x1];
	uint8_t ud[0x1];
	uint8_t uc[0x1];
	uint8_t rc[0x1];

	uint8_t uar_4k[0x1];
	uint8_t reserved_at_241[0x9];
	uint8_t uar_sz[0x6];
	uint8_t reserved_at_250[0x2];
	uint8_t umem_uid_0[0x1];
	uint8_t log_max_dc_cnak_qps[0x5];
	uint8_t log_pg_sz[0x8];

	uint8_t bf[0x1];
	uint8_t driver_version[0x1];
	uint8_t pad_tx_eth_packet[0x1];
	uint8_t query_driver_version[0x1];
	uint8_t max_qp_retry_freq[0x1];
	uint8_t qp_by_name[0x1];
	uint8_t mkey_by_name[0x1];
	uint8_t reserved_at_267[0x4];
	uint8_t log_bf_reg_size[0x5];
	uint8_t reserved_at_270[0x10];

	uint8_t num_of_diagnostic_counters[0x10];
	uint8_t max_wqe_sz_sq[0x10];

	uint8_t reserved_at_2a0[0x10];
	uint8_t max_wqe_sz_rq[0x10];

	uint8_t max_flow_counter_31_16[0x10];
	uint8_t max_wqe_sz_sq_dc[0x10];

	uint8_t reserved_at_2e0[0x7];
	uint8_t max_qp_mcg[0x19];

	uint8_t reserved_at_300[0x10];
	uint8_t flow_counter_bulk_alloc[0x8];
	uint8_t log_max_mcg[0x8];

	uint8_t reserved_at_320[0x3];
	uint8_t log_max_transport_domain[0x5];
	uint8_t reserved_at_328[0x3];
	uint8_t log_max_pd[0x5];
	uint8_t reserved_at_330[0xb];
	uint8_t log_max_xrcd[0x5];

	uint8_t reserved_at_340[0x8];
	uint8_t log_max_flow_counter_bulk[0x8];
	uint8_t max_flow_counter_15_0[0x10];

	uint8_t reserved_at_360[0x3];
	uint8_t log_max_rq[0x5];
	uint8_t reserved_at_368[0x3];
	uint8_t log_max_sq[0x5];
	uint8_t reserved_at_370[0x3];
	uint8_t log_max_tir[0x5];
	uint8_t reserved_at_378[0x3];
	uint8_t log_max_tis[0x5];

	uint8_t basic_cyclic_rcv_wqe[0x1];
	uint8_t reserved_at_381[0x2];
	uint8_t log_max_rmp[0x5];
	uint8_t reserved_at_388[0x3];
	uint8_t log_max_rqt[0x5];
	uint8_t reserved_at_390[0x3];
	uint8_t log_max_rqt_size[0x5];
	uint8_t reserved_at_398[0x3];
	uint8_t log_max_tis_per_sq[0x5];

	uint8_t reserved_at_3a0[0x3b];
	uint8_t log_max_wq_sz[0x5];

	uint8_t reserved_at_3e0[0x11];
	uint8_t aes_xts_single_block_le_tweak[0x1];
	uint8_t aes_xts_multi_block_be_tweak[0x1];
	uint8_t reserved_at_3f3[0xd];

	uint8_t general_obj_types[0x40];

	uint8_t reserved_at_440[0x23];
	uint8_t log_max_uctx[0x5];
	uint8_t reserved_at_468[0x1];
	uint8_t crypto[0x1];
	uint8_t reserved_at_46a[0x1];
	uint8_t log_max_umem[0x5];
	uint8_t max_num_eqs[0x10];

	uint8_t sigerr_domain_and_sig_type[0x1];
	uint8_t reserved_at_481[0xf];
	uint8_t log_uar_page_sz[0x10];

	uint8_t reserved_at_4a0[0x20];

	uint8_t device_frequency_mhz[0x20];

	uint8_t device_frequency_khz[0x20];

	uint8_t reserved_at_500[0x20];

	uint8_t num_of_uars_per_page[0x20];

	uint8_t reserved_at_540[0x40];

	uint8_t log_max_atomic_size_qp[0x8];
	uint8_t reserved_at_588[0x3];
	uint8_t log_max_dci_stream_channels[0x5];
	uint8_t reserved_at_590[0x3];
	uint8_t log_max_dci_errored_streams[0x5];
	uint8_t log_max_atomic_size_dc[0x8];

	uint8_t reserved_at_5a0[0x1c];
	uint8_t mini_cqe_resp_stride_index[0x1];
	uint8_t cqe_128_always[0x1];
	uint8_t cqe_compression_128[0x1];
	uint8_t cqe_compression[0x1];

	uint8_t cqe_compression_timeout[0x10];
	uint8_t cqe_compression_max_num[0x10];

	uint8_t reserved_at_5e0[0x20];

	uint8_t reserved_at_600[0x8];
	uint8_t native_port_num[0x8];
	uint8_t num_vhca_ports[0x8];
	uint8_t reserved_at_618[0x6];
	uint8_t sw_owner_id[0x1];
	uint8_t reserved_at_61f[0x1];

	uint8_t reserved_at_620[0x80];

	uint8_t uctx_permission[0x20];

	uint8_t reserved_at_6c0[0x80];

	uint8_t reserved_at_740[0x8];
	uint8_t dma_mmo_qp[0x1];
	uint8_t reserved_at_749[0xb7];
};

struct mlx5_ifc_odp_per_transport_service_cap_bits {
	uint8_t send[0x1];
	uint8_t receive[0x1];
	uint8_t write[0x1];
	uint8_t read[0x1];
	uint8_t atomic[0x1];
	uint8_t srq_receive[0x1];
	uint8_t reserved_at_6[0x1a];
};

struct mlx5_ifc_odp_cap_bits {
	uint8_t reserved_at_0[0x40];

	uint8_t sig[0x1];
	uint8_t reserved_at_41[0x3f];

	struct mlx5_ifc_odp_per_transport_service_cap_bits rc_odp_caps;
	struct mlx5_ifc_odp_per_transport_service_cap_bits uc_odp_caps;
	struct mlx5_ifc_odp_per_transport_service_cap_bits ud_odp_caps;
	struct mlx5_ifc_odp_per_transport_service_cap_bits xrc_odp_caps;
	struct mlx5_ifc_odp_per_transport_service_cap_bits dc_odp_caps;

	uint8_t reserved_at_120[0x6e0];
};

struct mlx5_ifc_atomic_caps_bits {
	uint8_t reserved_at_0[0x40];

	uint8_t atomic_req_8B_endianness_mode[0x2];
	uint8_t reserved_at_42[0x4];
	uint8_t supported_atomic_req_8B_endianness_mode_1[0x1];
	uint8_t reserved_at_47[0x19];

	uint8_t reserved_at_60[0x20];

	uint8_t reserved_at_80[0x10];
	uint8_t atomic_operations[0x10];

	uint8_t reserved_at_a0[0x10];
	uint8_t atomic_size_qp[0x10];

	uint8_t reserved_at_c0[0x10];
	uint8_t atomic_size_dc[0x10];

	uint8_t reserved_at_e0[0x1a0];

	uint8_t fetch_add_pci_atomic[0x10];
	uint8_t swap_pci_atomic[0x10];

	uint8_t compare_swap_pci_atomic[0x10];
	uint8_t reserved_at_2b0[0x550];
};

struct mlx5_ifc_roce_cap_bits {
	uint8_t reserved_at_0[0x4];
	uint8_t sw_r_roce_src_udp_port[0x1];
	uint8_t fl_rc_qp_when_roce_disabled[0x1];
	uint8_t fl_rc_qp_when_roce_enabled[0x1];
	uint8_t reserved_at_7[0x17];
	uint8_t qp_ts_format[0x2];

	uint8_t reserved_at_20[0x7e0];
};

struct mlx5_ifc_device_mem_cap_bits {
	uint8_t memic[0x1];
	uint8_t reserved_at_1[0x1f];

	uint8_t reserved_at_20[0xb];
	uint8_t log_min_memic_alloc_size[0x5];
	uint8_t reserved_at_30[0x8];
	uint8_t log_max_memic_addr_alignment[0x8];

	uint8_t memic_bar_start_addr[0x40];

	uint8_t memic_bar_size[0x20];

	uint8_t max_memic_size[0x20];

	uint8_t steering_sw_icm_start_address[0x40];

	uint8_t reserved_at_100[0x700];
};

/* QUERY_HCA_CAP type QOS: packet pacing (the rate-limit table). */
struct mlx5_ifc_qos_cap_bits {
	uint8_t packet_pacing[0x1];
	uint8_t esw_scheduling[0x1];
	uint8_t esw_bw_share[0x1];
	uint8_t esw_rate_limit[0x1];
	uint8_t reserved_at_4[0x1];
	uint8_t packet_pacing_burst_bound[0x1];
	uint8_t packet_pacing_typical_size[0x1];
	uint8_t reserved_at_7[0x1];
	uint8_t nic_sq_scheduling[0x1];
	uint8_t nic_bw_share[0x1];
	uint8_t nic_rate_limit[0x1];
	uint8_t packet_pacing_uid[0x1];
	uint8_t log_esw_max_sched_depth[0x4];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x1];
	uint8_t nic_qp_scheduling[0x1];
	uint8_t reserved_at_22[0x9];
	uint8_t log_max_qos_nic_queue_group[0x5];
	uint8_t reserved_at_30[0x10];

	uint8_t packet_pacing_max_rate[0x20];

	uint8_t packet_pacing_min_rate[0x20];

	uint8_t reserved_at_80[0x10];
	uint8_t packet_pacing_rate_table_size[0x10];

	uint8_t reserved_at_a0[0x40];

	uint8_t max_tsar_bw_share[0x20];

	uint8_t nic_element_type[0x10];	/* ELEMENT_TYPE_CAP_MASK_* */
	uint8_t nic_tsar_type[0x10];	/* TSAR_TYPE_CAP_MASK_* */

	uint8_t reserved_at_120[0x6e0];
};

enum {
	ELEMENT_TYPE_CAP_MASK_TSAR		= 1 << 0,
	ELEMENT_TYPE_CAP_MASK_QUEUE_GROUP	= 1 << 4,
};

enum {
	TSAR_TYPE_CAP_MASK_DWRR			= 1 << 0,
};

/* Scheduling elements (general object SCHEDULING_ELEMENT), NIC hierarchy. */
enum {
	MLX5_SCHED_HIERARCHY_NIC		= 3,
	MLX5_SCHED_ELEM_TYPE_TSAR		= 0x0,
	MLX5_SCHED_ELEM_TYPE_QUEUE_GROUP	= 0x4,
	MLX5_SCHED_TSAR_TYPE_DWRR		= 0x0,
	/* modify_field_select */
	MLX5_SCHED_MODIFY_BW_SHARE		= 1 << 0,
	MLX5_SCHED_MODIFY_MAX_AVERAGE_BW	= 1 << 1,
};

struct mlx5_ifc_sched_elem_attr_tsar_bits {
	uint8_t reserved_at_0[0x8];
	uint8_t tsar_type[0x8];
	uint8_t reserved_at_10[0x10];
};

struct mlx5_ifc_sched_context_bits {
	uint8_t element_type[0x8];
	uint8_t reserved_at_8[0x18];

	struct mlx5_ifc_sched_elem_attr_tsar_bits sched_elem_attr;

	uint8_t parent_element_id[0x20];

	uint8_t reserved_at_60[0x40];

	uint8_t bw_share[0x20];

	uint8_t max_average_bw[0x20];

	uint8_t reserved_at_e0[0x120];
};

struct mlx5_ifc_sched_elem_bits {
	uint8_t modify_field_select[0x40];

	uint8_t scheduling_hierarchy[0x8];
	uint8_t reserved_at_48[0x18];

	uint8_t reserved_at_60[0xa0];

	struct mlx5_ifc_sched_context_bits sched_context;

	uint8_t reserved_at_300[0x100];
};

struct mlx5_ifc_create_sched_elem_in_bits {
	struct mlx5_ifc_general_obj_in_cmd_hdr_bits hdr;
	struct mlx5_ifc_sched_elem_bits sched_elem;
};

struct mlx5_ifc_query_sched_elem_out_bits {
	struct mlx5_ifc_general_obj_out_cmd_hdr_bits hdr;
	struct mlx5_ifc_sched_elem_bits sched_elem;
};

/* ETHERNET_OFFLOADS capability page (QUERY_HCA_CAP type 0x1). */
struct mlx5_ifc_per_protocol_networking_offload_caps_bits {
	uint8_t csum_cap[0x1];
	uint8_t vlan_cap[0x1];
	uint8_t lro_cap[0x1];
	uint8_t lro_psh_flag[0x1];
	uint8_t lro_time_stamp[0x1];
	uint8_t reserved_at_5[0x2];
	uint8_t wqe_vlan_insert[0x1];
	uint8_t self_lb_en_modifiable[0x1];
	uint8_t reserved_at_9[0x2];
	uint8_t max_lso_cap[0x5];
	uint8_t multi_pkt_send_wqe[0x2];
	uint8_t wqe_inline_mode[0x2];
	uint8_t rss_ind_tbl_cap[0x4];
	uint8_t reg_umr_sq[0x1];
	uint8_t scatter_fcs[0x1];
	uint8_t enhanced_multi_pkt_send_wqe[0x1];
	uint8_t tunnel_lso_const_out_ip_id[0x1];
	uint8_t tunnel_lro_gre[0x1];
	uint8_t tunnel_lro_vxlan[0x1];
	uint8_t tunnel_stateless_gre[0x1];
	uint8_t tunnel_stateless_vxlan[0x1];

	uint8_t swp[0x1];
	uint8_t swp_csum[0x1];
	uint8_t swp_lso[0x1];
	uint8_t cqe_checksum_full[0x1];
	uint8_t reserved_at_24[0x1c];

	uint8_t reserved_at_40[0x10];
	uint8_t lro_min_mss_size[0x10];

	uint8_t reserved_at_60[0x7a0];
};

/* QUERY_HCA_CAP type CRYPTO: the crypto engine's import state and limits.
 * wrapped_import_method is a mask of MLX5_CRYPTO_WRAPPED_IMPORT_METHOD_*. */
struct mlx5_ifc_crypto_caps_bits {
	uint8_t wrapped_crypto_operational[0x1];
	uint8_t wrapped_crypto_going_to_commissioning[0x1];
	uint8_t reserved_at_2[0x16];
	uint8_t wrapped_import_method[0x8];

	uint8_t reserved_at_20[0xb];
	uint8_t log_max_num_deks[0x5];
	uint8_t reserved_at_30[0x3];
	uint8_t log_max_num_import_keks[0x5];
	uint8_t reserved_at_38[0x3];
	uint8_t log_max_num_creds[0x5];

	uint8_t failed_selftests[0x10];
	uint8_t num_nv_import_keks[0x8];
	uint8_t num_nv_credentials[0x8];

	uint8_t reserved_at_60[0x7a0];
};

/* Which match fields a flow table supports (one bit per field). */
struct mlx5_ifc_flow_table_fields_supported_bits {
	uint8_t outer_dmac[0x1];
	uint8_t outer_smac[0x1];
	uint8_t outer_ether_type[0x1];
	uint8_t outer_ip_version[0x1];
	uint8_t outer_first_prio[0x1];
	uint8_t outer_first_cfi[0x1];
	uint8_t outer_first_vid[0x1];
	uint8_t outer_ipv4_ttl[0x1];
	uint8_t outer_second_prio[0x1];
	uint8_t outer_second_cfi[0x1];
	uint8_t outer_second_vid[0x1];
	uint8_t reserved_at_b[0x1];
	uint8_t outer_sip[0x1];
	uint8_t outer_dip[0x1];
	uint8_t outer_frag[0x1];
	uint8_t outer_ip_protocol[0x1];
	uint8_t outer_ip_ecn[0x1];
	uint8_t outer_ip_dscp[0x1];
	uint8_t outer_udp_sport[0x1];
	uint8_t outer_udp_dport[0x1];
	uint8_t outer_tcp_sport[0x1];
	uint8_t outer_tcp_dport[0x1];
	uint8_t outer_tcp_flags[0x1];
	uint8_t reserved_at_17[0x9];

	uint8_t reserved_at_20[0x60];
};

struct mlx5_ifc_flow_table_prop_layout_bits {
	uint8_t ft_support[0x1];
	uint8_t reserved_at_1[0x1];
	uint8_t flow_counter[0x1];
	uint8_t flow_modify_en[0x1];
	uint8_t modify_root[0x1];
	uint8_t identified_miss_table_mode[0x1];
	uint8_t flow_table_modify[0x1];
	uint8_t reformat[0x1];
	uint8_t decap[0x1];
	uint8_t reset_root_to_default[0x1];
	uint8_t pop_vlan[0x1];
	uint8_t push_vlan[0x1];
	uint8_t reserved_at_c[0x14];

	uint8_t reserved_at_20[0x2];
	uint8_t log_max_ft_size[0x6];
	uint8_t log_max_modify_header_context[0x8];
	uint8_t max_modify_header_actions[0x8];
	uint8_t max_ft_level[0x8];

	uint8_t reserved_at_40[0x20];

	uint8_t reserved_at_60[0x18];
	uint8_t log_max_ft_num[0x8];

	uint8_t reserved_at_80[0x10];
	uint8_t log_max_flow_counter[0x8];
	uint8_t log_max_destination[0x8];

	uint8_t reserved_at_a0[0x18];
	uint8_t log_max_flow[0x8];

	uint8_t reserved_at_c0[0x40];

	struct mlx5_ifc_flow_table_fields_supported_bits ft_field_support;

	struct mlx5_ifc_flow_table_fields_supported_bits ft_field_bitmask_support;
};

/* FLOW_TABLE capability page (QUERY_HCA_CAP type 0x7). */
struct mlx5_ifc_flow_table_nic_cap_bits {
	uint8_t nic_rx_multi_path_tirs[0x1];
	uint8_t nic_rx_multi_path_tirs_fts[0x1];
	uint8_t allow_sniffer_and_nic_rx_shared_tir[0x1];
	uint8_t reserved_at_3[0x1d];

	uint8_t encap_general_header[0x1];
	uint8_t reserved_at_21[0xa];
	uint8_t log_max_packet_reformat_context[0x5];
	uint8_t reserved_at_30[0x6];
	uint8_t max_encap_header_size[0xa];

	uint8_t reserved_at_40[0x1c0];

	struct mlx5_ifc_flow_table_prop_layout_bits flow_table_properties_nic_receive;

	struct mlx5_ifc_flow_table_prop_layout_bits flow_table_properties_nic_receive_rdma;

	struct mlx5_ifc_flow_table_prop_layout_bits flow_table_properties_nic_receive_sniffer;

	struct mlx5_ifc_flow_table_prop_layout_bits flow_table_properties_nic_transmit;

	struct mlx5_ifc_flow_table_prop_layout_bits flow_table_properties_nic_transmit_rdma;

	struct mlx5_ifc_flow_table_prop_layout_bits flow_table_properties_nic_transmit_sniffer;

	uint8_t reserved_at_e00[0x7200];
};

/* General object CRYPTO_LOGIN: a login session of one user context with a
 * credential the device stores, checked through an import KEK. */
struct mlx5_ifc_crypto_login_obj_bits {
	uint8_t modify_field_select[0x40];

	uint8_t reserved_at_40[0x40];

	uint8_t reserved_at_80[0x4];
	uint8_t state[0x4];
	uint8_t credential_pointer[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t session_import_kek_ptr[0x18];

	uint8_t reserved_at_c0[0x140];

	uint8_t credential[12][0x20];	/* wrapped by the import KEK */

	uint8_t reserved_at_380[0x480];
};

struct mlx5_ifc_create_crypto_login_obj_in_bits {
	struct mlx5_ifc_general_obj_in_cmd_hdr_bits hdr;
	struct mlx5_ifc_crypto_login_obj_bits login_obj;
};

struct mlx5_ifc_query_crypto_login_obj_out_bits {
	struct mlx5_ifc_general_obj_out_cmd_hdr_bits hdr;
	struct mlx5_ifc_crypto_login_obj_bits obj;
};

/* General object DEK (encryption key): an AES-XTS data key, plaintext or
 * wrapped by the session's import KEK, bound to a PD. */
struct mlx5_ifc_encryption_key_obj_bits {
	uint8_t modify_field_select[0x40];

	uint8_t state[0x8];
	uint8_t reserved_at_48[0xc];
	uint8_t key_size[0x4];
	uint8_t has_keytag[0x1];
	uint8_t reserved_at_59[0x3];
	uint8_t key_purpose[0x4];

	uint8_t reserved_at_60[0x8];
	uint8_t pd[0x18];

	uint8_t reserved_at_80[0x100];

	uint8_t opaque[0x40];

	uint8_t reserved_at_1c0[0x40];

	uint8_t key[32][0x20];

	uint8_t reserved_at_600[0x200];
};

struct mlx5_ifc_create_encryption_key_obj_in_bits {
	struct mlx5_ifc_general_obj_in_cmd_hdr_bits hdr;
	struct mlx5_ifc_encryption_key_obj_bits key_obj;
};

struct mlx5_ifc_query_encryption_key_obj_out_bits {
	struct mlx5_ifc_general_obj_out_cmd_hdr_bits hdr;
	struct mlx5_ifc_encryption_key_obj_bits obj;
};

union mlx5_ifc_hca_cap_union_bits {
	struct mlx5_ifc_qos_cap_bits qos_cap;
	struct mlx5_ifc_crypto_caps_bits crypto_caps;
	struct mlx5_ifc_cmd_hca_cap_bits cmd_hca_cap;
	struct mlx5_ifc_odp_cap_bits odp_cap;
	struct mlx5_ifc_atomic_caps_bits atomic_caps;
	struct mlx5_ifc_roce_cap_bits roce_cap;
	struct mlx5_ifc_device_mem_cap_bits device_mem_cap;
	struct mlx5_ifc_per_protocol_networking_offload_caps_bits per_protocol_networking_offload_caps;
	struct mlx5_ifc_flow_table_nic_cap_bits flow_table_nic_cap;
	uint8_t reserved_at_0[0x8000];
};

struct mlx5_ifc_query_hca_cap_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_function[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t function_id[0x10];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_hca_cap_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	union mlx5_ifc_hca_cap_union_bits capability;
};

struct mlx5_ifc_query_adapter_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_query_adapter_param_block_bits {
	uint8_t reserved_at_0[0xc0];

	uint8_t reserved_at_c0[0x8];
	uint8_t ieee_vendor_id[0x18];

	uint8_t reserved_at_e0[0x10];
	uint8_t vsd_vendor_id[0x10];

	uint8_t vsd[208][0x8];

	uint8_t vsd_contd_psid[16][0x8];
};

struct mlx5_ifc_query_adapter_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_query_adapter_param_block_bits query_adapter_struct;
};

/* ------------------------------------------------------------------ */
/* Vport / port queries                                               */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_mac_address_layout_bits {
	uint8_t reserved_at_0[0x10];
	uint8_t mac_addr_47_32[0x10];

	uint8_t mac_addr_31_0[0x20];
};

struct mlx5_ifc_nic_vport_context_bits {
	uint8_t reserved_at_0[0x5];
	uint8_t min_wqe_inline_mode[0x3];
	uint8_t reserved_at_8[0x15];
	uint8_t disable_mc_local_lb[0x1];
	uint8_t disable_uc_local_lb[0x1];
	uint8_t roce_en[0x1];

	uint8_t arm_change_event[0x1];
	uint8_t reserved_at_21[0x1a];
	uint8_t event_on_mtu[0x1];
	uint8_t event_on_promisc_change[0x1];
	uint8_t event_on_vlan_change[0x1];
	uint8_t event_on_mc_address_change[0x1];
	uint8_t event_on_uc_address_change[0x1];

	uint8_t reserved_at_40[0xc];
	uint8_t affiliation_criteria[0x4];
	uint8_t affiliated_vhca_id[0x10];

	uint8_t reserved_at_60[0xd0];

	uint8_t mtu[0x10];

	uint8_t system_image_guid[0x40];

	uint8_t port_guid[0x40];

	uint8_t node_guid[0x40];

	uint8_t reserved_at_200[0x140];

	uint8_t qkey_violation_counter[0x10];
	uint8_t reserved_at_350[0x430];

	uint8_t promisc_uc[0x1];
	uint8_t promisc_mc[0x1];
	uint8_t promisc_all[0x1];
	uint8_t reserved_at_783[0x2];
	uint8_t allowed_list_type[0x3];
	uint8_t reserved_at_788[0xc];
	uint8_t allowed_list_size[0xc];

	struct mlx5_ifc_mac_address_layout_bits permanent_address;

	uint8_t reserved_at_7e0[0x20];
};

struct mlx5_ifc_query_nic_vport_context_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x5];
	uint8_t allowed_list_type[0x3];
	uint8_t reserved_at_68[0x18];
};

struct mlx5_ifc_query_nic_vport_context_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_nic_vport_context_bits nic_vport_context;
};

struct mlx5_ifc_hca_vport_context_bits {
	uint8_t field_select[0x20];

	uint8_t reserved_at_20[0xe0];

	uint8_t sm_virt_aware[0x1];
	uint8_t has_smi[0x1];
	uint8_t has_raw[0x1];
	uint8_t grh_required[0x1];
	uint8_t reserved_at_104[0xc];
	uint8_t port_physical_state[0x4];
	uint8_t vport_state_policy[0x4];
	uint8_t port_state[0x4];
	uint8_t vport_state[0x4];

	uint8_t reserved_at_120[0x20];

	uint8_t system_image_guid[0x40];

	uint8_t port_guid[0x40];

	uint8_t node_guid[0x40];

	uint8_t cap_mask1[0x20];

	uint8_t cap_mask1_field_select[0x20];

	uint8_t cap_mask2[0x20];

	uint8_t cap_mask2_field_select[0x20];

	uint8_t reserved_at_280[0x80];

	uint8_t lid[0x10];
	uint8_t reserved_at_310[0x4];
	uint8_t init_type_reply[0x4];
	uint8_t lmc[0x3];
	uint8_t subnet_timeout[0x5];

	uint8_t sm_lid[0x10];
	uint8_t sm_sl[0x4];
	uint8_t reserved_at_334[0xc];

	uint8_t qkey_violation_counter[0x10];
	uint8_t pkey_violation_counter[0x10];

	uint8_t reserved_at_360[0xca0];
};

struct mlx5_ifc_query_hca_vport_context_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xb];
	uint8_t port_num[0x4];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_hca_vport_context_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_hca_vport_context_bits hca_vport_context;
};

struct mlx5_ifc_array128_auto_bits {
	uint8_t array128_auto[16][0x8];
};

struct mlx5_ifc_query_hca_vport_gid_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xb];
	uint8_t port_num[0x4];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x10];
	uint8_t gid_index[0x10];
};

struct mlx5_ifc_query_hca_vport_gid_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x20];

	uint8_t gids_num[0x10];
	uint8_t reserved_at_70[0x10];

	struct mlx5_ifc_array128_auto_bits gid[];
};

struct mlx5_ifc_pkey_bits {
	uint8_t reserved_at_0[0x10];
	uint8_t pkey[0x10];
};

struct mlx5_ifc_query_hca_vport_pkey_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xb];
	uint8_t port_num[0x4];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x10];
	uint8_t pkey_index[0x10];
};

struct mlx5_ifc_query_hca_vport_pkey_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_pkey_bits pkey[];
};

struct mlx5_ifc_query_vport_state_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_vport_state_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x20];

	uint8_t reserved_at_60[0x18];
	uint8_t admin_state[0x4];
	uint8_t state[0x4];
};

struct mlx5_ifc_roce_addr_layout_bits {
	uint8_t source_l3_address[16][0x8];

	uint8_t reserved_at_80[0x3];
	uint8_t vlan_valid[0x1];
	uint8_t vlan_id[0xc];
	uint8_t source_mac_47_32[0x10];

	uint8_t source_mac_31_0[0x20];

	uint8_t reserved_at_c0[0x14];
	uint8_t roce_l3_type[0x4];
	uint8_t roce_version[0x8];

	uint8_t reserved_at_e0[0x20];
};

struct mlx5_ifc_query_roce_address_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t roce_address_index[0x10];
	uint8_t reserved_at_50[0xc];
	uint8_t vhca_port_num[0x4];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_roce_address_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_roce_addr_layout_bits roce_address;
};

/* ------------------------------------------------------------------ */
/* PD, UAR, transport domain, XRCD, user context, umem, memic          */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_alloc_pd_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_alloc_pd_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t pd[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_dealloc_pd_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t pd[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_alloc_uar_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_alloc_uar_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t uar[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_dealloc_uar_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t uar[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_alloc_transport_domain_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_alloc_transport_domain_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t transport_domain[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_dealloc_transport_domain_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t transport_domain[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_alloc_xrcd_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_alloc_xrcd_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t xrcd[0x18];

	uint8_t reserved_at_60[0x20];
};

/* PSVs (protection signature values): the running state of a signature
 * domain, named by the BSF of a signature mkey and set by SET_PSV WQEs. */
struct mlx5_ifc_create_psv_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	uint8_t reserved_at_80[0x8];
	uint8_t psv0_index[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t psv1_index[0x18];

	uint8_t reserved_at_c0[0x8];
	uint8_t psv2_index[0x18];

	uint8_t reserved_at_e0[0x8];
	uint8_t psv3_index[0x18];
};

struct mlx5_ifc_create_psv_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t num_psv[0x4];
	uint8_t reserved_at_44[0x4];
	uint8_t pd[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_psv_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t psvn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_dealloc_xrcd_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t xrcd[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_uctx_bits {
	uint8_t cap[0x20];

	uint8_t reserved_at_20[0x160];
};

struct mlx5_ifc_create_uctx_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_uctx_bits uctx;
};

struct mlx5_ifc_destroy_uctx_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_mtt_bits {
	uint8_t ptag_63_32[0x20];

	uint8_t ptag_31_8[0x18];
	uint8_t reserved_at_38[0x6];
	uint8_t wr_en[0x1];
	uint8_t rd_en[0x1];
};

struct mlx5_ifc_umem_bits {
	uint8_t reserved_at_0[0x80];

	uint8_t reserved_at_80[0x1b];
	uint8_t log_page_size[0x5];

	uint8_t page_offset[0x20];

	uint8_t num_of_mtt[0x40];

	struct mlx5_ifc_mtt_bits mtt[];
};

struct mlx5_ifc_create_umem_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_umem_bits umem;
};

struct mlx5_ifc_create_umem_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t umem_id[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_umem_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t umem_id[0x18];

	uint8_t reserved_at_60[0x20];
};

/* SET_PP_RATE_LIMIT: one entry of the packet-pacing rate table. The
 * context is what mlx5dv_pp_alloc() callers pass (rate in kbps). */
struct mlx5_ifc_set_pp_rate_limit_context_bits {
	uint8_t rate_limit[0x20];

	uint8_t burst_upper_bound[0x20];

	uint8_t reserved_at_40[0x10];
	uint8_t typical_packet_size[0x10];

	uint8_t reserved_at_60[0x120];
};

struct mlx5_ifc_set_pp_rate_limit_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x10];
	uint8_t rate_limit_index[0x10];

	uint8_t reserved_at_60[0x20];

	struct mlx5_ifc_set_pp_rate_limit_context_bits ctx;
};

struct mlx5_ifc_alloc_memic_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x20];

	uint8_t reserved_at_60[0x18];
	uint8_t log_memic_addr_alignment[0x8];

	uint8_t range_start_addr[0x40];

	uint8_t range_size[0x20];

	uint8_t memic_size[0x20];
};

struct mlx5_ifc_alloc_memic_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t memic_start_addr[0x40];
};

struct mlx5_ifc_dealloc_memic_in_bits {
	uint8_t opcode[0x10];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];

	uint8_t memic_start_addr[0x40];

	uint8_t memic_size[0x20];

	uint8_t reserved_at_e0[0x20];
};

/* ------------------------------------------------------------------ */
/* EQ                                                                 */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_eqc_bits {
	uint8_t status[0x4];
	uint8_t reserved_at_4[0x9];
	uint8_t ec[0x1];
	uint8_t oi[0x1];
	uint8_t reserved_at_f[0x5];
	uint8_t st[0x4];
	uint8_t reserved_at_18[0x8];

	uint8_t reserved_at_20[0x20];

	uint8_t reserved_at_40[0x14];
	uint8_t page_offset[0x6];
	uint8_t reserved_at_5a[0x6];

	uint8_t reserved_at_60[0x3];
	uint8_t log_eq_size[0x5];
	uint8_t uar_page[0x18];

	uint8_t reserved_at_80[0x20];

	uint8_t reserved_at_a0[0x18];
	uint8_t intr[0x8];

	uint8_t reserved_at_c0[0x3];
	uint8_t log_page_size[0x5];
	uint8_t reserved_at_c8[0x18];

	uint8_t reserved_at_e0[0x60];

	uint8_t reserved_at_140[0x8];
	uint8_t consumer_counter[0x18];

	uint8_t reserved_at_160[0x8];
	uint8_t producer_counter[0x18];

	uint8_t reserved_at_180[0x80];
};

struct mlx5_ifc_create_eq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_eqc_bits eq_context_entry;

	uint8_t reserved_at_280[0x40];

	uint8_t event_bitmask[4][0x40];

	uint8_t reserved_at_3c0[0x4c0];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_create_eq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x18];
	uint8_t eq_number[0x8];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_eq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x18];
	uint8_t eq_number[0x8];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_eq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x18];
	uint8_t eq_number[0x8];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_eq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_eqc_bits eq_context_entry;

	uint8_t reserved_at_280[0x40];

	uint8_t event_bitmask[0x40];

	uint8_t reserved_at_300[0x580];

	uint8_t pas[][0x40];
};

/* ------------------------------------------------------------------ */
/* CQ                                                                 */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_cqc_bits {
	uint8_t status[0x4];
	uint8_t as_notify[0x1];
	uint8_t initiator_src_dct[0x1];
	uint8_t dbr_umem_valid[0x1];
	uint8_t reserved_at_7[0x1];
	uint8_t cqe_sz[0x3];
	uint8_t cc[0x1];
	uint8_t reserved_at_c[0x1];
	uint8_t scqe_break_moderation_en[0x1];
	uint8_t oi[0x1];
	uint8_t cq_period_mode[0x2];
	uint8_t cqe_comp_en[0x1];
	uint8_t mini_cqe_res_format[0x2];
	uint8_t st[0x4];
	uint8_t reserved_at_18[0x8];

	uint8_t dbr_umem_id[0x20];

	uint8_t reserved_at_40[0x14];
	uint8_t page_offset[0x6];
	uint8_t reserved_at_5a[0x6];

	uint8_t reserved_at_60[0x3];
	uint8_t log_cq_size[0x5];
	uint8_t uar_page[0x18];

	uint8_t reserved_at_80[0x4];
	uint8_t cq_period[0xc];
	uint8_t cq_max_count[0x10];

	uint8_t reserved_at_a0[0x18];
	uint8_t c_eqn[0x8];

	uint8_t reserved_at_c0[0x3];
	uint8_t log_page_size[0x5];
	uint8_t reserved_at_c8[0x18];

	uint8_t reserved_at_e0[0x20];

	uint8_t reserved_at_100[0x8];
	uint8_t last_notified_index[0x18];

	uint8_t reserved_at_120[0x8];
	uint8_t last_solicit_index[0x18];

	uint8_t reserved_at_140[0x8];
	uint8_t consumer_counter[0x18];

	uint8_t reserved_at_160[0x8];
	uint8_t producer_counter[0x18];

	uint8_t reserved_at_180[0x40];

	uint8_t dbr_addr[0x40];
};

struct mlx5_ifc_create_cq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_cqc_bits cq_context;

	uint8_t cq_umem_offset[0x40];

	uint8_t cq_umem_id[0x20];

	uint8_t cq_umem_valid[0x1];
	uint8_t reserved_at_2e1[0x59f];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_create_cq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_cq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_cq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_cq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_cqc_bits cq_context;

	uint8_t reserved_at_280[0x600];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_modify_cq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];

	uint8_t modify_field_select_resize_field_select[0x20];

	struct mlx5_ifc_cqc_bits cq_context;

	uint8_t cq_umem_offset[0x40];

	uint8_t cq_umem_id[0x20];

	uint8_t cq_umem_valid[0x1];
	uint8_t reserved_at_2e1[0x1f];

	uint8_t reserved_at_300[0x580];

	uint8_t pas[][0x40];
};

/* ------------------------------------------------------------------ */
/* QP                                                                 */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_ads_bits {
	uint8_t fl[0x1];
	uint8_t free_ar[0x1];
	uint8_t reserved_at_2[0xe];
	uint8_t pkey_index[0x10];

	uint8_t reserved_at_20[0x8];
	uint8_t grh[0x1];
	uint8_t mlid[0x7];
	uint8_t rlid[0x10];

	uint8_t ack_timeout[0x5];
	uint8_t reserved_at_45[0x3];
	uint8_t src_addr_index[0x8];
	uint8_t reserved_at_50[0x4];
	uint8_t stat_rate[0x4];
	uint8_t hop_limit[0x8];

	uint8_t reserved_at_60[0x4];
	uint8_t tclass[0x8];
	uint8_t flow_label[0x14];

	uint8_t rgid_rip[16][0x8];

	uint8_t reserved_at_100[0x4];
	uint8_t f_dscp[0x1];
	uint8_t f_ecn[0x1];
	uint8_t reserved_at_106[0x1];
	uint8_t f_eth_prio[0x1];
	uint8_t ecn[0x2];
	uint8_t dscp[0x6];
	uint8_t udp_sport[0x10];

	uint8_t dei_cfi[0x1];
	uint8_t eth_prio[0x3];
	uint8_t sl[0x4];
	uint8_t vhca_port_num[0x8];
	uint8_t rmac_47_32[0x10];

	uint8_t rmac_31_0[0x20];
};

struct mlx5_ifc_qpc_bits {
	uint8_t state[0x4];
	uint8_t lag_tx_port_affinity[0x4];
	uint8_t st[0x8];
	uint8_t reserved_at_10[0x2];
	uint8_t isolate_vl_tc[0x1];
	uint8_t pm_state[0x2];
	uint8_t reserved_at_15[0x1];
	uint8_t req_e2e_credit_mode[0x2];
	uint8_t offload_type[0x4];
	uint8_t end_padding_mode[0x2];
	uint8_t reserved_at_1e[0x2];

	uint8_t wq_signature[0x1];
	uint8_t block_lb_mc[0x1];
	uint8_t atomic_like_write_en[0x1];
	uint8_t latency_sensitive[0x1];
	uint8_t reserved_at_24[0x1];
	uint8_t drain_sigerr[0x1];
	uint8_t reserved_at_26[0x2];
	uint8_t pd[0x18];

	uint8_t mtu[0x3];
	uint8_t log_msg_max[0x5];
	uint8_t reserved_at_48[0x1];
	uint8_t log_rq_size[0x4];
	uint8_t log_rq_stride[0x3];
	uint8_t no_sq[0x1];
	uint8_t log_sq_size[0x4];
	uint8_t reserved_at_55[0x3];
	uint8_t ts_format[0x2];
	uint8_t data_in_order[0x1];
	uint8_t rlky[0x1];
	uint8_t ulp_stateless_offload_mode[0x4];

	uint8_t counter_set_id[0x8];
	uint8_t uar_page[0x18];

	uint8_t reserved_at_80[0x8];
	uint8_t user_index[0x18];

	uint8_t reserved_at_a0[0x3];
	uint8_t log_page_size[0x5];
	uint8_t remote_qpn[0x18];

	struct mlx5_ifc_ads_bits primary_address_path;

	struct mlx5_ifc_ads_bits secondary_address_path;

	uint8_t log_ack_req_freq[0x4];
	uint8_t reserved_at_384[0x4];
	uint8_t log_sra_max[0x3];
	uint8_t reserved_at_38b[0x2];
	uint8_t retry_count[0x3];
	uint8_t rnr_retry[0x3];
	uint8_t reserved_at_393[0x1];
	uint8_t fre[0x1];
	uint8_t cur_rnr_retry[0x3];
	uint8_t cur_retry_count[0x3];
	uint8_t reserved_at_39b[0x5];

	uint8_t reserved_at_3a0[0x20];

	uint8_t reserved_at_3c0[0x8];
	uint8_t next_send_psn[0x18];

	uint8_t reserved_at_3e0[0x3];
	uint8_t log_num_dci_stream_channels[0x5];
	uint8_t cqn_snd[0x18];

	uint8_t reserved_at_400[0x3];
	uint8_t log_num_dci_errored_streams[0x5];
	uint8_t deth_sqpn[0x18];

	uint8_t reserved_at_420[0x20];

	uint8_t reserved_at_440[0x8];
	uint8_t last_acked_psn[0x18];

	uint8_t reserved_at_460[0x8];
	uint8_t ssn[0x18];

	uint8_t reserved_at_480[0x8];
	uint8_t log_rra_max[0x3];
	uint8_t reserved_at_48b[0x1];
	uint8_t atomic_mode[0x4];
	uint8_t rre[0x1];
	uint8_t rwe[0x1];
	uint8_t rae[0x1];
	uint8_t reserved_at_493[0x1];
	uint8_t page_offset[0x6];
	uint8_t reserved_at_49a[0x3];
	uint8_t cd_slave_receive[0x1];
	uint8_t cd_slave_send[0x1];
	uint8_t cd_master[0x1];

	uint8_t reserved_at_4a0[0x3];
	uint8_t min_rnr_nak[0x5];
	uint8_t next_rcv_psn[0x18];

	uint8_t reserved_at_4c0[0x8];
	uint8_t xrcd[0x18];

	uint8_t reserved_at_4e0[0x8];
	uint8_t cqn_rcv[0x18];

	uint8_t dbr_addr[0x40];

	uint8_t q_key[0x20];

	uint8_t reserved_at_560[0x5];
	uint8_t rq_type[0x3];
	uint8_t srqn_rmpn_xrqn[0x18];

	uint8_t reserved_at_580[0x8];
	uint8_t rmsn[0x18];

	uint8_t hw_sq_wqebb_counter[0x10];
	uint8_t sw_sq_wqebb_counter[0x10];

	uint8_t hw_rq_counter[0x20];

	uint8_t sw_rq_counter[0x20];

	uint8_t reserved_at_600[0x20];

	uint8_t reserved_at_620[0xf];
	uint8_t cgs[0x1];
	uint8_t cs_req[0x8];
	uint8_t cs_res[0x8];

	uint8_t dc_access_key[0x40];

	uint8_t reserved_at_680[0x3];
	uint8_t dbr_umem_valid[0x1];
	uint8_t reserved_at_684[0x9c];

	uint8_t dbr_umem_id[0x20];
};

struct mlx5_ifc_create_qp_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t input_qpn[0x18];

	uint8_t reserved_at_60[0x20];

	uint8_t opt_param_mask[0x20];

	uint8_t ece[0x20];

	struct mlx5_ifc_qpc_bits qpc;

	uint8_t wq_umem_offset[0x40];

	uint8_t wq_umem_id[0x20];

	uint8_t wq_umem_valid[0x1];
	uint8_t reserved_at_861[0x1f];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_create_qp_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t qpn[0x18];

	uint8_t ece[0x20];
};

struct mlx5_ifc_destroy_qp_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t qpn[0x18];

	uint8_t reserved_at_60[0x20];
};

/* Layout shared by every qpc-carrying transition (RST2INIT ... SQD2SQD). */
struct mlx5_ifc_modify_qp_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t vhca_tunnel_id[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t qpn[0x18];

	uint8_t reserved_at_60[0x20];

	uint8_t opt_param_mask[0x20];

	uint8_t ece[0x20];

	struct mlx5_ifc_qpc_bits qpc;

	uint8_t reserved_at_800[0x80];
};

struct mlx5_ifc_modify_qp_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x20];
	uint8_t ece[0x20];
};

#define SMX_DECLARE_QP_MODIFY(name)                                            \
	struct mlx5_ifc_##name##_in_bits {                                     \
		uint8_t opcode[0x10];                                          \
		uint8_t uid[0x10];                                             \
		uint8_t vhca_tunnel_id[0x10];                                  \
		uint8_t op_mod[0x10];                                          \
		uint8_t qpc_ext[0x1];                                          \
		uint8_t reserved_at_41[0x7];                                   \
		uint8_t qpn[0x18];                                             \
		uint8_t reserved_at_60[0x20];                                  \
		uint8_t opt_param_mask[0x20];                                  \
		uint8_t ece[0x20];                                             \
		struct mlx5_ifc_qpc_bits qpc;                                  \
		uint8_t reserved_at_800[0x80];                                 \
	};                                                                     \
	struct mlx5_ifc_##name##_out_bits {                                    \
		uint8_t status[0x8];                                           \
		uint8_t reserved_at_8[0x18];                                   \
		uint8_t syndrome[0x20];                                        \
		uint8_t reserved_at_40[0x20];                                  \
		uint8_t ece[0x20];                                             \
	}

SMX_DECLARE_QP_MODIFY(rst2init_qp);
SMX_DECLARE_QP_MODIFY(init2init_qp);
SMX_DECLARE_QP_MODIFY(init2rtr_qp);
SMX_DECLARE_QP_MODIFY(rtr2rts_qp);
SMX_DECLARE_QP_MODIFY(rts2rts_qp);
SMX_DECLARE_QP_MODIFY(sqerr2rts_qp);
SMX_DECLARE_QP_MODIFY(sqd2rts_qp);
SMX_DECLARE_QP_MODIFY(rts2sqd_qp);
SMX_DECLARE_QP_MODIFY(sqd2sqd_qp);

/* The QP context extension a transition carries when its qpc_ext bit is
 * set, after opt_param_mask_95_32 (whose bit 0 selects
 * dci_stream_channel_id). */
struct mlx5_ifc_qpc_ext_bits {
	uint8_t reserved_at_0[0x2];
	uint8_t mmo[0x1];
	uint8_t reserved_at_3[0xd];
	uint8_t dci_stream_channel_id[0x10];

	uint8_t qos_queue_group_id_requester[0x20];

	uint8_t qos_queue_group_id_responder[0x20];

	uint8_t reserved_at_60[0x5a0];
};

/* A qpc-carrying transition with its extension (RTS2RTS, INIT2INIT). */
struct mlx5_ifc_modify_qp_ext_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t qpc_ext[0x1];
	uint8_t reserved_at_41[0x7];
	uint8_t qpn[0x18];

	uint8_t reserved_at_60[0x20];

	uint8_t opt_param_mask[0x20];

	uint8_t ece[0x20];

	struct mlx5_ifc_qpc_bits qpc;

	uint8_t reserved_at_800[0x40];

	uint8_t opt_param_mask_95_32[0x40];

	struct mlx5_ifc_qpc_ext_bits qpc_data_ext;
};

enum {
	MLX5_QPC_OPT_MASK_32_DCI_STREAM_CHANNEL_ID = 1 << 0,
	MLX5_QPC_OPT_MASK_32_QOS_QUEUE_GROUP_ID = 1 << 1,
	MLX5_QPC_OPT_MASK_32_UDP_SPORT = 1 << 2,
};

struct mlx5_ifc_qp_2rst_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t qpn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_qp_2rst_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_qp_2err_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t qpn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_qp_2err_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];
};

struct mlx5_ifc_query_qp_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t qpn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_qp_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x20];
	uint8_t ece[0x20];

	uint8_t opt_param_mask[0x20];

	uint8_t reserved_at_a0[0x20];

	struct mlx5_ifc_qpc_bits qpc;

	uint8_t reserved_at_800[0x80];

	uint8_t pas[][0x40];
};

/* ------------------------------------------------------------------ */
/* DCT: the DC target (DCT numbers share the QP number space)        */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_dctc_bits {
	uint8_t reserved_at_0[0x4];
	uint8_t state[0x4];
	uint8_t reserved_at_8[0x15];
	uint8_t data_in_order[0x1];
	uint8_t reserved_at_1e[0x2];

	uint8_t reserved_at_20[0x8];
	uint8_t user_index[0x18];

	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];

	uint8_t counter_set_id[0x8];
	uint8_t atomic_mode[0x4];
	uint8_t rre[0x1];
	uint8_t rwe[0x1];
	uint8_t rae[0x1];
	uint8_t atomic_like_write_en[0x1];
	uint8_t latency_sensitive[0x1];
	uint8_t rlky[0x1];
	uint8_t free_ar[0x1];
	uint8_t reserved_at_73[0xd];

	uint8_t reserved_at_80[0x8];
	uint8_t cs_res[0x8];
	uint8_t reserved_at_90[0x3];
	uint8_t min_rnr_nak[0x5];
	uint8_t reserved_at_98[0x8];

	uint8_t reserved_at_a0[0x8];
	uint8_t srqn_xrqn[0x18];

	uint8_t reserved_at_c0[0x8];
	uint8_t pd[0x18];

	uint8_t tclass[0x8];
	uint8_t reserved_at_e8[0x4];
	uint8_t flow_label[0x14];

	uint8_t dc_access_key[0x40];

	uint8_t reserved_at_140[0x5];
	uint8_t mtu[0x3];
	uint8_t port[0x8];
	uint8_t pkey_index[0x10];

	uint8_t reserved_at_160[0x8];
	uint8_t my_addr_index[0x8];
	uint8_t reserved_at_170[0x8];
	uint8_t hop_limit[0x8];

	uint8_t dc_access_key_violation_count[0x20];

	uint8_t reserved_at_1a0[0x14];
	uint8_t dei_cfi[0x1];
	uint8_t eth_prio[0x3];
	uint8_t ecn[0x2];
	uint8_t dscp[0x6];

	uint8_t reserved_at_1c0[0x20];

	uint8_t ece[0x20];
};

struct mlx5_ifc_create_dct_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_dctc_bits dct_context_entry;

	uint8_t reserved_at_280[0x180];
};

struct mlx5_ifc_create_dct_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t dctn[0x18];

	uint8_t ece[0x20];
};

/* DESTROY_DCT, DRAIN_DCT, QUERY_DCT and ARM_DCT_FOR_KEY_VIOLATION: the
 * same input (the DCT number). */
struct mlx5_ifc_dct_cmd_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t dctn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_dct_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_dctc_bits dct_context_entry;

	uint8_t reserved_at_280[0x180];
};

enum {
	MLX5_DCTC_STATE_ACTIVE = 0,
	MLX5_DCTC_STATE_DRAINING = 1,
	MLX5_DCTC_STATE_DRAINED = 2,
};

/* ------------------------------------------------------------------ */
/* SRQ, XRC SRQ, RMP                                                  */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_srqc_bits {
	uint8_t state[0x4];
	uint8_t log_srq_size[0x4];
	uint8_t reserved_at_8[0x18];

	uint8_t wq_signature[0x1];
	uint8_t cont_srq[0x1];
	uint8_t reserved_at_22[0x1];
	uint8_t rlky[0x1];
	uint8_t reserved_at_24[0x1];
	uint8_t log_rq_stride[0x3];
	uint8_t xrcd[0x18];

	uint8_t page_offset[0x6];
	uint8_t reserved_at_46[0x2];
	uint8_t cqn[0x18];

	uint8_t reserved_at_60[0x20];

	uint8_t reserved_at_80[0x2];
	uint8_t log_page_size[0x6];
	uint8_t reserved_at_88[0x18];

	uint8_t reserved_at_a0[0x20];

	uint8_t reserved_at_c0[0x8];
	uint8_t pd[0x18];

	uint8_t lwm[0x10];
	uint8_t wqe_cnt[0x10];

	uint8_t reserved_at_100[0x40];

	uint8_t dbr_addr[0x40];

	uint8_t reserved_at_180[0x80];
};

struct mlx5_ifc_create_srq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_srqc_bits srq_context_entry;

	uint8_t reserved_at_280[0x600];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_create_srq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t srqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_srq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t srqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_srq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t srqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_srq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_srqc_bits srq_context_entry;

	uint8_t reserved_at_280[0x600];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_arm_rq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t srq_number[0x18];

	uint8_t reserved_at_60[0x10];
	uint8_t lwm[0x10];
};

struct mlx5_ifc_xrc_srqc_bits {
	uint8_t state[0x4];
	uint8_t log_xrc_srq_size[0x4];
	uint8_t reserved_at_8[0x18];

	uint8_t wq_signature[0x1];
	uint8_t cont_srq[0x1];
	uint8_t reserved_at_22[0x1];
	uint8_t rlky[0x1];
	uint8_t basic_cyclic_rcv_wqe[0x1];
	uint8_t log_rq_stride[0x3];
	uint8_t xrcd[0x18];

	uint8_t page_offset[0x6];
	uint8_t reserved_at_46[0x1];
	uint8_t dbr_umem_valid[0x1];
	uint8_t cqn[0x18];

	uint8_t reserved_at_60[0x20];

	uint8_t user_index_equal_xrc_srqn[0x1];
	uint8_t reserved_at_81[0x1];
	uint8_t log_page_size[0x6];
	uint8_t user_index[0x18];

	uint8_t reserved_at_a0[0x20];

	uint8_t reserved_at_c0[0x8];
	uint8_t pd[0x18];

	uint8_t lwm[0x10];
	uint8_t wqe_cnt[0x10];

	uint8_t reserved_at_100[0x40];

	uint8_t db_record_addr_h[0x20];

	uint8_t db_record_addr_l[0x1e];
	uint8_t reserved_at_17e[0x2];

	uint8_t reserved_at_180[0x80];
};

struct mlx5_ifc_create_xrc_srq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_xrc_srqc_bits xrc_srq_context_entry;

	uint8_t reserved_at_280[0x60];

	uint8_t xrc_srq_umem_valid[0x1];
	uint8_t reserved_at_2e1[0x1f];

	uint8_t reserved_at_300[0x580];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_create_xrc_srq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t xrc_srqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_xrc_srq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t xrc_srqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_xrc_srq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t xrc_srqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_xrc_srq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_xrc_srqc_bits xrc_srq_context_entry;

	uint8_t reserved_at_280[0x600];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_arm_xrc_srq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t xrc_srqn[0x18];

	uint8_t reserved_at_60[0x10];
	uint8_t lwm[0x10];
};

struct mlx5_ifc_wq_bits {
	uint8_t wq_type[0x4];
	uint8_t wq_signature[0x1];
	uint8_t end_padding_mode[0x2];
	uint8_t cd_slave[0x1];
	uint8_t reserved_at_8[0x18];

	uint8_t hds_skip_first_sge[0x1];
	uint8_t log2_hds_buf_size[0x3];
	uint8_t reserved_at_24[0x7];
	uint8_t page_offset[0x5];
	uint8_t lwm[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t pd[0x18];

	uint8_t reserved_at_60[0x8];
	uint8_t uar_page[0x18];

	uint8_t dbr_addr[0x40];

	uint8_t hw_counter[0x20];

	uint8_t sw_counter[0x20];

	uint8_t reserved_at_100[0xc];
	uint8_t log_wq_stride[0x4];
	uint8_t reserved_at_110[0x3];
	uint8_t log_wq_pg_sz[0x5];
	uint8_t reserved_at_118[0x3];
	uint8_t log_wq_sz[0x5];

	uint8_t dbr_umem_valid[0x1];
	uint8_t wq_umem_valid[0x1];
	uint8_t reserved_at_122[0x1];
	uint8_t log_hairpin_num_packets[0x5];
	uint8_t reserved_at_128[0x3];
	uint8_t log_hairpin_data_sz[0x5];
	uint8_t reserved_at_130[0x10];

	uint8_t dbr_umem_id[0x20];

	uint8_t wq_umem_id[0x20];

	uint8_t wq_umem_offset[0x40];

	uint8_t reserved_at_1c0[0x440];

	uint8_t pas[][0x40];
};

struct mlx5_ifc_rmpc_bits {
	uint8_t reserved_at_0[0x8];
	uint8_t state[0x4];
	uint8_t reserved_at_c[0x14];

	uint8_t basic_cyclic_rcv_wqe[0x1];
	uint8_t reserved_at_21[0x1f];

	uint8_t reserved_at_40[0x140];

	struct mlx5_ifc_wq_bits wq;
};

struct mlx5_ifc_create_rmp_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_rmpc_bits ctx;
};

struct mlx5_ifc_create_rmp_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t rmpn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_rmp_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t rmpn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_rmp_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t rmpn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_rmp_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_rmpc_bits rmp_context;
};

/* MODIFY_RMP: rmp_state is the current state, ctx.state the next one;
 * bitmask.lwm says ctx.wq.lwm is to be taken. */
struct mlx5_ifc_rmp_bitmask_bits {
	uint8_t reserved_at_0[0x20];

	uint8_t reserved_at_20[0x1f];
	uint8_t lwm[0x1];
};

struct mlx5_ifc_modify_rmp_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t rmp_state[0x4];
	uint8_t reserved_at_44[0x4];
	uint8_t rmpn[0x18];

	uint8_t reserved_at_60[0x20];

	struct mlx5_ifc_rmp_bitmask_bits bitmask;

	uint8_t reserved_at_c0[0x40];

	struct mlx5_ifc_rmpc_bits ctx;
};

struct mlx5_ifc_modify_rmp_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];
};

/* ------------------------------------------------------------------ */
/* MKEY                                                               */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_mkc_bits {
	uint8_t reserved_at_0[0x1];
	uint8_t free[0x1];
	uint8_t reserved_at_2[0x1];
	uint8_t access_mode_4_2[0x3];
	uint8_t reserved_at_6[0x7];
	uint8_t relaxed_ordering_write[0x1];
	uint8_t reserved_at_e[0x1];
	uint8_t small_fence_on_rdma_read_response[0x1];
	uint8_t umr_en[0x1];
	uint8_t a[0x1];
	uint8_t rw[0x1];
	uint8_t rr[0x1];
	uint8_t lw[0x1];
	uint8_t lr[0x1];
	uint8_t access_mode_1_0[0x2];
	uint8_t reserved_at_18[0x8];

	uint8_t qpn[0x18];
	uint8_t mkey_7_0[0x8];

	uint8_t reserved_at_40[0x20];

	uint8_t length64[0x1];
	uint8_t bsf_en[0x1];
	uint8_t sync_umr[0x1];
	uint8_t reserved_at_63[0x2];
	uint8_t expected_sigerr_count[0x1];
	uint8_t reserved_at_66[0x1];
	uint8_t en_rinval[0x1];
	uint8_t pd[0x18];

	uint8_t start_addr[0x40];

	uint8_t len[0x40];

	uint8_t bsf_octword_size[0x20];

	uint8_t reserved_at_120[0x80];

	uint8_t translations_octword_size[0x20];

	uint8_t reserved_at_1c0[0x19];
	uint8_t relaxed_ordering_read[0x1];
	uint8_t reserved_at_1da[0x1];
	uint8_t log_page_size[0x5];

	uint8_t reserved_at_1e0[0x3];
	uint8_t crypto_en[0x2];
	uint8_t reserved_at_1e5[0x1b];
};

struct mlx5_ifc_create_mkey_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t mkey_umem_id[0x20];

	uint8_t pg_access[0x1];
	uint8_t mkey_umem_valid[0x1];
	uint8_t reserved_at_62[0x1e];

	struct mlx5_ifc_mkc_bits memory_key_mkey_entry;

	uint8_t mkey_umem_offset[0x40];

	uint8_t reserved_at_2c0[0x40];

	uint8_t translations_octword_actual_size[0x20];

	uint8_t reserved_at_320[0x560];

	uint8_t klm_pas_mtt[][0x20];
};

struct mlx5_ifc_create_mkey_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t mkey_index[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_mkey_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t mkey_index[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_mkey_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t mkey_index[0x18];

	uint8_t pg_access[0x1];
	uint8_t reserved_at_61[0x1f];
};

struct mlx5_ifc_query_mkey_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_mkc_bits memory_key_mkey_entry;

	uint8_t reserved_at_280[0x600];

	uint8_t bsf0_klm0_pas_mtt0_1[16][0x8];

	uint8_t bsf1_klm1_pas_mtt2_3[16][0x8];
};

/* Translation entries following create_mkey_in (MTT: 8 bytes; KLM/KSM: 16). */
struct mlx5_ifc_klm_bits {
	uint8_t byte_count[0x20];

	uint8_t mkey[0x20];

	uint8_t address[0x40];
};

/* ------------------------------------------------------------------ */
/* Ethernet: transport interface send/receive (TIS, TIR), SQ, RQ      */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_tisc_bits {
	uint8_t strict_lag_tx_port_affinity[0x1];
	uint8_t tls_en[0x1];
	uint8_t reserved_at_2[0x2];
	uint8_t lag_tx_port_affinity[0x4];

	uint8_t reserved_at_8[0x4];
	uint8_t prio[0x4];
	uint8_t reserved_at_10[0x10];

	uint8_t reserved_at_20[0x100];

	uint8_t reserved_at_120[0x8];
	uint8_t transport_domain[0x18];

	uint8_t reserved_at_140[0x8];
	uint8_t underlay_qpn[0x18];

	uint8_t reserved_at_160[0x8];
	uint8_t pd[0x18];

	uint8_t reserved_at_180[0x380];
};

struct mlx5_ifc_create_tis_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_tisc_bits ctx;
};

/* CREATE_TIS/TIR/SQ/RQ answer the new number in dword 2. */
struct mlx5_ifc_create_tis_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t tisn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_modify_tis_bitmask_bits {
	uint8_t reserved_at_0[0x20];

	uint8_t reserved_at_20[0x1d];
	uint8_t lag_tx_port_affinity[0x1];
	uint8_t strict_lag_tx_port_affinity[0x1];
	uint8_t prio[0x1];
};

struct mlx5_ifc_modify_tis_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t tisn[0x18];

	uint8_t reserved_at_60[0x20];

	struct mlx5_ifc_modify_tis_bitmask_bits bitmask;

	uint8_t reserved_at_c0[0x40];

	struct mlx5_ifc_tisc_bits ctx;
};

/* DESTROY_TIS/TIR/SQ/RQ and QUERY_TIS/TIR/SQ/RQ name the object here. */
struct mlx5_ifc_eth_obj_cmd_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t obj_num[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_tis_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_tisc_bits tis_context;
};

/* RQ table (RSS): an indirect TIR spreads frames over its RQs by hash. */
struct mlx5_ifc_rq_num_bits {
	uint8_t reserved_at_0[0x8];
	uint8_t rq_num[0x18];
};

struct mlx5_ifc_rqtc_bits {
	uint8_t reserved_at_0[0xa0];

	uint8_t reserved_at_a0[0x5];
	uint8_t list_q_type[0x3];
	uint8_t reserved_at_a8[0x8];
	uint8_t rqt_max_size[0x10];

	uint8_t rq_vhca_id_format[0x1];
	uint8_t reserved_at_c1[0xf];
	uint8_t rqt_actual_size[0x10];

	uint8_t reserved_at_e0[0x6a0];

	struct mlx5_ifc_rq_num_bits rq_num[];
};

struct mlx5_ifc_create_rqt_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_rqtc_bits rqt_context;
};

struct mlx5_ifc_create_rqt_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t rqtn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_modify_rqt_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x8];
	uint8_t rqtn[0x18];

	uint8_t reserved_at_60[0x20];

	uint8_t reserved_at_80[0x20];

	uint8_t reserved_at_a0[0x1f];
	uint8_t rqn_list[0x1];		/* modify bitmask: the RQ list */

	uint8_t reserved_at_c0[0x40];

	struct mlx5_ifc_rqtc_bits rqt_context;
};

struct mlx5_ifc_query_rqt_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_rqtc_bits rqt_context;
};

struct mlx5_ifc_rx_hash_field_select_bits {
	uint8_t l3_prot_type[0x1];
	uint8_t l4_prot_type[0x1];
	uint8_t selected_fields[0x1e];
};

struct mlx5_ifc_tirc_bits {
	uint8_t reserved_at_0[0x20];

	uint8_t disp_type[0x4];
	uint8_t tls_en[0x1];
	uint8_t reserved_at_25[0x1b];

	uint8_t reserved_at_40[0x40];

	uint8_t reserved_at_80[0x4];
	uint8_t lro_timeout_period_usecs[0x10];
	uint8_t packet_merge_mask[0x4];
	uint8_t lro_max_ip_payload_size[0x8];

	uint8_t reserved_at_a0[0x40];

	uint8_t reserved_at_e0[0x8];
	uint8_t inline_rqn[0x18];

	uint8_t rx_hash_symmetric[0x1];
	uint8_t reserved_at_101[0x1];
	uint8_t tunneled_offload_en[0x1];
	uint8_t reserved_at_103[0x5];
	uint8_t indirect_table[0x18];

	uint8_t rx_hash_fn[0x4];
	uint8_t reserved_at_124[0x2];
	uint8_t self_lb_block[0x2];
	uint8_t transport_domain[0x18];

	uint8_t rx_hash_toeplitz_key[10][0x20];

	struct mlx5_ifc_rx_hash_field_select_bits rx_hash_field_selector_outer;

	struct mlx5_ifc_rx_hash_field_select_bits rx_hash_field_selector_inner;

	uint8_t reserved_at_2c0[0x4c0];
};

struct mlx5_ifc_create_tir_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_tirc_bits ctx;
};

struct mlx5_ifc_create_tir_out_bits {
	uint8_t status[0x8];
	uint8_t icm_address_63_40[0x18];

	uint8_t syndrome[0x20];

	uint8_t icm_address_39_32[0x8];
	uint8_t tirn[0x18];

	uint8_t icm_address_31_0[0x20];
};

struct mlx5_ifc_query_tir_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_tirc_bits tir_context;
};

struct mlx5_ifc_sqc_bits {
	uint8_t rlky[0x1];
	uint8_t cd_master[0x1];
	uint8_t fre[0x1];
	uint8_t flush_in_error_en[0x1];
	uint8_t allow_multi_pkt_send_wqe[0x1];
	uint8_t min_wqe_inline_mode[0x3];
	uint8_t state[0x4];
	uint8_t reg_umr[0x1];
	uint8_t allow_swp[0x1];
	uint8_t hairpin[0x1];
	uint8_t non_wire[0x1];
	uint8_t reserved_at_10[0xa];
	uint8_t ts_format[0x2];
	uint8_t reserved_at_1c[0x4];

	uint8_t reserved_at_20[0x8];
	uint8_t user_index[0x18];

	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];

	uint8_t reserved_at_60[0x8];
	uint8_t hairpin_peer_rq[0x18];

	uint8_t reserved_at_80[0x10];
	uint8_t hairpin_peer_vhca[0x10];

	uint8_t reserved_at_a0[0x20];

	uint8_t reserved_at_c0[0x8];
	uint8_t ts_cqe_to_dest_cqn[0x18];

	uint8_t reserved_at_e0[0x10];
	uint8_t packet_pacing_rate_limit_index[0x10];

	uint8_t tis_lst_sz[0x10];
	uint8_t qos_queue_group_id[0x10];

	uint8_t reserved_at_120[0x40];

	uint8_t reserved_at_160[0x8];
	uint8_t tis_num_0[0x18];

	struct mlx5_ifc_wq_bits wq;
};

struct mlx5_ifc_create_sq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_sqc_bits ctx;
};

struct mlx5_ifc_create_sq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t sqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_modify_sq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t sq_state[0x4];
	uint8_t reserved_at_44[0x4];
	uint8_t sqn[0x18];

	uint8_t reserved_at_60[0x20];

	uint8_t modify_bitmask[0x40];

	uint8_t reserved_at_c0[0x40];

	struct mlx5_ifc_sqc_bits ctx;
};

struct mlx5_ifc_query_sq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_sqc_bits sq_context;
};

struct mlx5_ifc_rqc_bits {
	uint8_t rlky[0x1];
	uint8_t delay_drop_en[0x1];
	uint8_t scatter_fcs[0x1];
	uint8_t vsd[0x1];
	uint8_t mem_rq_type[0x4];
	uint8_t state[0x4];
	uint8_t reserved_at_c[0x1];
	uint8_t flush_in_error_en[0x1];
	uint8_t hairpin[0x1];
	uint8_t reserved_at_f[0xb];
	uint8_t ts_format[0x2];
	uint8_t reserved_at_1c[0x4];

	uint8_t reserved_at_20[0x8];
	uint8_t user_index[0x18];

	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];

	uint8_t counter_set_id[0x8];
	uint8_t reserved_at_68[0x18];

	uint8_t reserved_at_80[0x8];
	uint8_t rmpn[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t hairpin_peer_sq[0x18];

	uint8_t reserved_at_c0[0x10];
	uint8_t hairpin_peer_vhca[0x10];

	uint8_t reserved_at_e0[0xa0];

	struct mlx5_ifc_wq_bits wq;
};

struct mlx5_ifc_create_rq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_rqc_bits ctx;
};

struct mlx5_ifc_create_rq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t rqn[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_modify_rq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t rq_state[0x4];
	uint8_t reserved_at_44[0x4];
	uint8_t rqn[0x18];

	uint8_t reserved_at_60[0x20];

	uint8_t modify_bitmask[0x40];

	uint8_t reserved_at_c0[0x40];

	struct mlx5_ifc_rqc_bits ctx;
};

struct mlx5_ifc_query_rq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0xc0];

	struct mlx5_ifc_rqc_bits rq_context;
};

/* ------------------------------------------------------------------ */
/* NIC flow steering: flow tables, flow groups, flow table entries    */
/* ------------------------------------------------------------------ */

struct mlx5_ifc_ipv4_layout_bits {
	uint8_t reserved_at_0[0x60];

	uint8_t ipv4[0x20];
};

struct mlx5_ifc_ipv6_layout_bits {
	uint8_t ipv6[16][0x8];
};

union mlx5_ifc_ipv6_layout_ipv4_layout_auto_bits {
	struct mlx5_ifc_ipv6_layout_bits ipv6_layout;
	struct mlx5_ifc_ipv4_layout_bits ipv4_layout;
	uint8_t reserved_at_0[0x80];
};

/* Outer (or inner) L2-L4 header fields of a match value / criteria. */
struct mlx5_ifc_fte_match_set_lyr_2_4_bits {
	uint8_t smac_47_16[0x20];

	uint8_t smac_15_0[0x10];
	uint8_t ethertype[0x10];

	uint8_t dmac_47_16[0x20];

	uint8_t dmac_15_0[0x10];
	uint8_t first_prio[0x3];
	uint8_t first_cfi[0x1];
	uint8_t first_vid[0xc];

	uint8_t ip_protocol[0x8];
	uint8_t ip_dscp[0x6];
	uint8_t ip_ecn[0x2];
	uint8_t cvlan_tag[0x1];
	uint8_t svlan_tag[0x1];
	uint8_t frag[0x1];
	uint8_t ip_version[0x4];
	uint8_t tcp_flags[0x9];

	uint8_t tcp_sport[0x10];
	uint8_t tcp_dport[0x10];

	uint8_t l4_type[0x2];
	uint8_t reserved_at_c2[0xe];
	uint8_t ipv4_ihl[0x4];
	uint8_t reserved_at_d4[0x4];
	uint8_t ttl_hoplimit[0x8];

	uint8_t udp_sport[0x10];
	uint8_t udp_dport[0x10];

	union mlx5_ifc_ipv6_layout_ipv4_layout_auto_bits src_ipv4_src_ipv6;

	union mlx5_ifc_ipv6_layout_ipv4_layout_auto_bits dst_ipv4_dst_ipv6;
};

/* Only the outer and inner headers are spelled out; the misc parameter
 * sets are kept whole (the device matches on none of them). */
struct mlx5_ifc_fte_match_param_bits {
	struct mlx5_ifc_fte_match_set_lyr_2_4_bits outer_headers;

	uint8_t misc_parameters[0x200];

	struct mlx5_ifc_fte_match_set_lyr_2_4_bits inner_headers;

	uint8_t misc_parameters_2[0x200];

	uint8_t misc_parameters_3[0x200];

	uint8_t misc_parameters_4[0x200];

	uint8_t misc_parameters_5[0x200];

	uint8_t reserved_at_e00[0x200];
};

struct mlx5_ifc_flow_table_context_bits {
	uint8_t reformat_en[0x1];
	uint8_t decap_en[0x1];
	uint8_t sw_owner[0x1];
	uint8_t termination_table[0x1];
	uint8_t table_miss_action[0x4];
	uint8_t level[0x8];
	uint8_t reserved_at_10[0x8];
	uint8_t log_size[0x8];

	uint8_t reserved_at_20[0x8];
	uint8_t table_miss_id[0x18];

	uint8_t reserved_at_40[0x8];
	uint8_t lag_master_next_table_id[0x18];

	uint8_t reserved_at_60[0x60];

	uint8_t sw_owner_icm_root_1[0x40];

	uint8_t sw_owner_icm_root_0[0x40];
};

struct mlx5_ifc_create_flow_table_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];

	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];

	uint8_t reserved_at_a0[0x20];

	struct mlx5_ifc_flow_table_context_bits flow_table_context;
};

struct mlx5_ifc_create_flow_table_out_bits {
	uint8_t status[0x8];
	uint8_t icm_address_63_40[0x18];

	uint8_t syndrome[0x20];

	uint8_t icm_address_39_32[0x8];
	uint8_t table_id[0x18];

	uint8_t icm_address_31_0[0x20];
};

/* DESTROY_FLOW_TABLE, QUERY_FLOW_TABLE and SET_FLOW_TABLE_ROOT share the
 * head: the table type at 0x80, its number at 0xa0. */
struct mlx5_ifc_destroy_flow_table_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];

	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];

	uint8_t reserved_at_c0[0x140];
};

struct mlx5_ifc_query_flow_table_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x80];

	struct mlx5_ifc_flow_table_context_bits flow_table_context;
};

struct mlx5_ifc_set_flow_table_root_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];

	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];

	uint8_t reserved_at_c0[0x8];
	uint8_t underlay_qpn[0x18];

	uint8_t reserved_at_e0[0x120];
};

struct mlx5_ifc_create_flow_group_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];

	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x4];
	uint8_t group_type[0x4];
	uint8_t reserved_at_90[0x10];

	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];

	uint8_t reserved_at_c0[0x20];

	uint8_t start_flow_index[0x20];

	uint8_t reserved_at_100[0x20];

	uint8_t end_flow_index[0x20];

	uint8_t reserved_at_140[0xa0];

	uint8_t reserved_at_1e0[0x18];
	uint8_t match_criteria_enable[0x8];

	struct mlx5_ifc_fte_match_param_bits match_criteria;

	uint8_t reserved_at_1200[0xe00];
};

struct mlx5_ifc_create_flow_group_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t group_id[0x18];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_destroy_flow_group_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];

	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];

	uint8_t group_id[0x20];

	uint8_t reserved_at_e0[0x120];
};

struct mlx5_ifc_dest_format_bits {
	uint8_t destination_type[0x8];
	uint8_t destination_id[0x18];

	uint8_t reserved_at_20[0x1];
	uint8_t packet_reformat[0x1];
	uint8_t reserved_at_22[0x1e];
};

struct mlx5_ifc_flow_context_bits {
	uint8_t push_vlan[0x20];

	uint8_t group_id[0x20];

	uint8_t reserved_at_40[0x8];
	uint8_t flow_tag[0x18];

	uint8_t reserved_at_60[0x10];
	uint8_t action[0x10];

	uint8_t extended_destination[0x1];
	uint8_t reserved_at_81[0x1];
	uint8_t flow_source[0x2];
	uint8_t encrypt_decrypt_type[0x4];
	uint8_t destination_list_size[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t flow_counter_list_size[0x18];

	uint8_t packet_reformat_id[0x20];

	uint8_t modify_header_id[0x20];

	uint8_t push_vlan_2[0x20];

	uint8_t encrypt_decrypt_obj_id[0x20];

	uint8_t reserved_at_140[0xc0];

	struct mlx5_ifc_fte_match_param_bits match_value;

	uint8_t execute_aso[4][0x40];

	uint8_t reserved_at_1300[0x500];

	/* destination_list_size dest_format entries, then the flow
	 * counters, 0x40 bits each (0x80 with extended_destination) */
	uint8_t destination[][0x40];
};

struct mlx5_ifc_set_fte_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];

	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];

	uint8_t ignore_flow_level[0x1];
	uint8_t reserved_at_c1[0x17];
	uint8_t modify_enable_mask[0x8];

	uint8_t reserved_at_e0[0x20];

	uint8_t flow_index[0x20];

	uint8_t reserved_at_120[0xe0];

	struct mlx5_ifc_flow_context_bits flow_context;
};

/* DELETE_FLOW_TABLE_ENTRY and QUERY_FLOW_TABLE_ENTRY. */
struct mlx5_ifc_delete_fte_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];

	uint8_t reserved_at_60[0x20];

	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];

	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];

	uint8_t reserved_at_c0[0x40];

	uint8_t flow_index[0x20];

	uint8_t reserved_at_120[0xe0];
};

/* Flow counters: an entry with action COUNT lists them after its
 * destinations, one flow_counter_list entry (0x40 bits) each. */
struct mlx5_ifc_flow_counter_list_bits {
	uint8_t flow_counter_id[0x20];

	uint8_t reserved_at_20[0x20];
};

struct mlx5_ifc_traffic_counter_bits {
	uint8_t packets[0x40];

	uint8_t octets[0x40];
};

/* Modify header: a list of 8-byte actions (set, add, copy) the device runs
 * on a frame before an entry's other actions. */
struct mlx5_ifc_set_action_in_bits {
	uint8_t action_type[0x4];
	uint8_t field[0xc];
	uint8_t reserved_at_10[0x3];
	uint8_t offset[0x5];
	uint8_t reserved_at_18[0x3];
	uint8_t length[0x5];

	uint8_t data[0x20];
};

struct mlx5_ifc_alloc_modify_header_context_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x20];

	uint8_t table_type[0x8];
	uint8_t reserved_at_68[0x10];
	uint8_t num_of_actions[0x8];

	/* num_of_actions set_action_in (0x40 bits each) follow */
	uint8_t actions[][0x40];
};

struct mlx5_ifc_alloc_modify_header_context_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t modify_header_id[0x20];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_dealloc_modify_header_context_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t modify_header_id[0x20];

	uint8_t reserved_at_60[0x20];
};

/* Packet reformat context: reformat_data_size bytes of header data start
 * at reformat_data and run on past the end of the layout. */
struct mlx5_ifc_packet_reformat_context_in_bits {
	uint8_t reformat_type[0x8];
	uint8_t reserved_at_8[0x4];
	uint8_t reformat_param_0[0x4];
	uint8_t reserved_at_10[0x6];
	uint8_t reformat_data_size[0xa];

	uint8_t reformat_param_1[0x8];
	uint8_t reserved_at_28[0x8];
	uint8_t reformat_data[2][0x8];

	uint8_t more_reformat_data[][0x8];
};

struct mlx5_ifc_alloc_packet_reformat_context_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0xa0];

	struct mlx5_ifc_packet_reformat_context_in_bits packet_reformat_context;
};

struct mlx5_ifc_alloc_packet_reformat_context_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t packet_reformat_id[0x20];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_dealloc_packet_reformat_context_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t packet_reformat_id[0x20];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_alloc_flow_counter_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t flow_counter_id[0x20];

	uint8_t reserved_at_60[0x18];
	uint8_t flow_counter_bulk[0x8];
};

struct mlx5_ifc_alloc_flow_counter_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t flow_counter_id[0x20];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_dealloc_flow_counter_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t flow_counter_id[0x20];

	uint8_t reserved_at_60[0x20];
};

struct mlx5_ifc_query_flow_counter_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];

	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];

	uint8_t reserved_at_40[0x20];

	uint8_t mkey[0x20];

	uint8_t address[0x40];

	uint8_t clear[0x1];
	uint8_t dump_to_memory[0x1];
	uint8_t num_of_counters[0x1e];

	uint8_t flow_counter_id[0x20];
};

/* Followed by num_of_counters traffic_counter entries (one when 0). */
struct mlx5_ifc_query_flow_counter_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];

	uint8_t syndrome[0x20];

	uint8_t reserved_at_40[0x40];

	struct mlx5_ifc_traffic_counter_bits flow_statistics;
};

/* ------------------------------------------------------------------ */
/* Sizes (bits) -- the PRM's                                          */
/* ------------------------------------------------------------------ */

#define SMX_IFC_SIZE(name, bits)                                               \
	_Static_assert(sizeof(struct mlx5_ifc_##name##_bits) == (bits),        \
		       "PRM size of " #name)

SMX_IFC_SIZE(mbox_in, 0x80);
SMX_IFC_SIZE(ud_av, 0x180);
SMX_IFC_SIZE(sched_context, 0x200);
SMX_IFC_SIZE(sched_elem, 0x400);
SMX_IFC_SIZE(create_sched_elem_in, 0x480);
SMX_IFC_SIZE(av_qp_mapping, 0x200);
SMX_IFC_SIZE(create_av_qp_mapping_in, 0x280);
SMX_IFC_SIZE(query_av_qp_mapping_out, 0x280);
SMX_IFC_SIZE(qos_cap, 0x800);
SMX_IFC_SIZE(crypto_caps, 0x800);
SMX_IFC_SIZE(crypto_login_obj, 0x800);
SMX_IFC_SIZE(create_crypto_login_obj_in, 0x880);
SMX_IFC_SIZE(query_crypto_login_obj_out, 0x880);
SMX_IFC_SIZE(encryption_key_obj, 0x800);
SMX_IFC_SIZE(create_encryption_key_obj_in, 0x880);
SMX_IFC_SIZE(query_encryption_key_obj_out, 0x880);
SMX_IFC_SIZE(set_pp_rate_limit_context, 0x180);
SMX_IFC_SIZE(set_pp_rate_limit_in, 0x200);
SMX_IFC_SIZE(mbox_out, 0x80);
SMX_IFC_SIZE(create_psv_in, 0x80);
SMX_IFC_SIZE(create_psv_out, 0x100);
SMX_IFC_SIZE(destroy_psv_in, 0x80);
SMX_IFC_SIZE(general_obj_in_cmd_hdr, 0x80);
SMX_IFC_SIZE(general_obj_out_cmd_hdr, 0x80);
SMX_IFC_SIZE(obj_handle_in, 0x80);
SMX_IFC_SIZE(obj_handle_out, 0x80);
SMX_IFC_SIZE(cmd_hca_cap, 0x800);
SMX_IFC_SIZE(odp_per_transport_service_cap, 0x20);
SMX_IFC_SIZE(odp_cap, 0x800);
SMX_IFC_SIZE(atomic_caps, 0x800);
SMX_IFC_SIZE(roce_cap, 0x800);
SMX_IFC_SIZE(device_mem_cap, 0x800);
_Static_assert(sizeof(union mlx5_ifc_hca_cap_union_bits) == 0x8000, "cap union");
SMX_IFC_SIZE(query_hca_cap_in, 0x80);
SMX_IFC_SIZE(query_hca_cap_out, 0x8080);
SMX_IFC_SIZE(query_adapter_in, 0x80);
SMX_IFC_SIZE(query_adapter_param_block, 0x800);
SMX_IFC_SIZE(query_adapter_out, 0x880);
SMX_IFC_SIZE(mac_address_layout, 0x40);
SMX_IFC_SIZE(nic_vport_context, 0x800);
SMX_IFC_SIZE(query_nic_vport_context_in, 0x80);
SMX_IFC_SIZE(query_nic_vport_context_out, 0x880);
SMX_IFC_SIZE(hca_vport_context, 0x1000);
SMX_IFC_SIZE(query_hca_vport_context_in, 0x80);
SMX_IFC_SIZE(query_hca_vport_context_out, 0x1080);
SMX_IFC_SIZE(array128_auto, 0x80);
SMX_IFC_SIZE(query_hca_vport_gid_in, 0x80);
SMX_IFC_SIZE(query_hca_vport_gid_out, 0x80);
SMX_IFC_SIZE(pkey, 0x20);
SMX_IFC_SIZE(query_hca_vport_pkey_in, 0x80);
SMX_IFC_SIZE(query_hca_vport_pkey_out, 0x80);
SMX_IFC_SIZE(query_vport_state_in, 0x80);
SMX_IFC_SIZE(query_vport_state_out, 0x80);
SMX_IFC_SIZE(roce_addr_layout, 0x100);
SMX_IFC_SIZE(query_roce_address_in, 0x80);
SMX_IFC_SIZE(query_roce_address_out, 0x180);
SMX_IFC_SIZE(alloc_pd_in, 0x80);
SMX_IFC_SIZE(alloc_pd_out, 0x80);
SMX_IFC_SIZE(dealloc_pd_in, 0x80);
SMX_IFC_SIZE(alloc_uar_in, 0x80);
SMX_IFC_SIZE(alloc_uar_out, 0x80);
SMX_IFC_SIZE(dealloc_uar_in, 0x80);
SMX_IFC_SIZE(alloc_transport_domain_in, 0x80);
SMX_IFC_SIZE(alloc_transport_domain_out, 0x80);
SMX_IFC_SIZE(dealloc_transport_domain_in, 0x80);
SMX_IFC_SIZE(alloc_xrcd_in, 0x80);
SMX_IFC_SIZE(alloc_xrcd_out, 0x80);
SMX_IFC_SIZE(dealloc_xrcd_in, 0x80);
SMX_IFC_SIZE(uctx, 0x180);
SMX_IFC_SIZE(create_uctx_in, 0x200);
SMX_IFC_SIZE(destroy_uctx_in, 0x80);
SMX_IFC_SIZE(mtt, 0x40);
SMX_IFC_SIZE(umem, 0x100);
SMX_IFC_SIZE(create_umem_in, 0x180);
SMX_IFC_SIZE(create_umem_out, 0x80);
SMX_IFC_SIZE(destroy_umem_in, 0x80);
SMX_IFC_SIZE(alloc_memic_in, 0x100);
SMX_IFC_SIZE(alloc_memic_out, 0x80);
SMX_IFC_SIZE(dealloc_memic_in, 0x100);
SMX_IFC_SIZE(eqc, 0x200);
SMX_IFC_SIZE(create_eq_in, 0x880);
SMX_IFC_SIZE(create_eq_out, 0x80);
SMX_IFC_SIZE(destroy_eq_in, 0x80);
SMX_IFC_SIZE(query_eq_in, 0x80);
SMX_IFC_SIZE(query_eq_out, 0x880);
SMX_IFC_SIZE(cqc, 0x200);
SMX_IFC_SIZE(create_cq_in, 0x880);
SMX_IFC_SIZE(create_cq_out, 0x80);
SMX_IFC_SIZE(destroy_cq_in, 0x80);
SMX_IFC_SIZE(query_cq_in, 0x80);
SMX_IFC_SIZE(query_cq_out, 0x880);
SMX_IFC_SIZE(modify_cq_in, 0x880);
SMX_IFC_SIZE(ads, 0x160);
SMX_IFC_SIZE(qpc, 0x740);
SMX_IFC_SIZE(create_qp_in, 0x880);
SMX_IFC_SIZE(create_qp_out, 0x80);
SMX_IFC_SIZE(destroy_qp_in, 0x80);
SMX_IFC_SIZE(modify_qp_in, 0x880);
SMX_IFC_SIZE(modify_qp_out, 0x80);
SMX_IFC_SIZE(rst2init_qp_in, 0x880);
SMX_IFC_SIZE(init2init_qp_in, 0x880);
SMX_IFC_SIZE(init2rtr_qp_in, 0x880);
SMX_IFC_SIZE(rtr2rts_qp_in, 0x880);
SMX_IFC_SIZE(rts2rts_qp_in, 0x880);
SMX_IFC_SIZE(sqerr2rts_qp_in, 0x880);
SMX_IFC_SIZE(sqd2rts_qp_in, 0x880);
SMX_IFC_SIZE(rts2sqd_qp_in, 0x880);
SMX_IFC_SIZE(sqd2sqd_qp_in, 0x880);
SMX_IFC_SIZE(rst2init_qp_out, 0x80);
SMX_IFC_SIZE(qp_2rst_in, 0x80);
SMX_IFC_SIZE(qp_2rst_out, 0x80);
SMX_IFC_SIZE(qp_2err_in, 0x80);
SMX_IFC_SIZE(qp_2err_out, 0x80);
SMX_IFC_SIZE(query_qp_in, 0x80);
SMX_IFC_SIZE(query_qp_out, 0x880);
SMX_IFC_SIZE(dctc, 0x200);
SMX_IFC_SIZE(create_dct_in, 0x400);
SMX_IFC_SIZE(create_dct_out, 0x80);
SMX_IFC_SIZE(dct_cmd_in, 0x80);
SMX_IFC_SIZE(query_dct_out, 0x400);
SMX_IFC_SIZE(qpc_ext, 0x600);
SMX_IFC_SIZE(modify_qp_ext_in, 0xe80);
SMX_IFC_SIZE(srqc, 0x200);
SMX_IFC_SIZE(create_srq_in, 0x880);
SMX_IFC_SIZE(create_srq_out, 0x80);
SMX_IFC_SIZE(destroy_srq_in, 0x80);
SMX_IFC_SIZE(query_srq_in, 0x80);
SMX_IFC_SIZE(query_srq_out, 0x880);
SMX_IFC_SIZE(arm_rq_in, 0x80);
SMX_IFC_SIZE(xrc_srqc, 0x200);
SMX_IFC_SIZE(create_xrc_srq_in, 0x880);
SMX_IFC_SIZE(create_xrc_srq_out, 0x80);
SMX_IFC_SIZE(destroy_xrc_srq_in, 0x80);
SMX_IFC_SIZE(query_xrc_srq_in, 0x80);
SMX_IFC_SIZE(query_xrc_srq_out, 0x880);
SMX_IFC_SIZE(arm_xrc_srq_in, 0x80);
SMX_IFC_SIZE(wq, 0x600);
SMX_IFC_SIZE(rmpc, 0x780);
SMX_IFC_SIZE(create_rmp_in, 0x880);
SMX_IFC_SIZE(create_rmp_out, 0x80);
SMX_IFC_SIZE(destroy_rmp_in, 0x80);
SMX_IFC_SIZE(query_rmp_in, 0x80);
SMX_IFC_SIZE(query_rmp_out, 0x880);
SMX_IFC_SIZE(rmp_bitmask, 0x40);
SMX_IFC_SIZE(modify_rmp_in, 0x880);
SMX_IFC_SIZE(modify_rmp_out, 0x80);
SMX_IFC_SIZE(mkc, 0x200);
SMX_IFC_SIZE(create_mkey_in, 0x880);
SMX_IFC_SIZE(create_mkey_out, 0x80);
SMX_IFC_SIZE(destroy_mkey_in, 0x80);
SMX_IFC_SIZE(query_mkey_in, 0x80);
SMX_IFC_SIZE(query_mkey_out, 0x980);
SMX_IFC_SIZE(klm, 0x80);

SMX_IFC_SIZE(per_protocol_networking_offload_caps, 0x800);
SMX_IFC_SIZE(flow_table_fields_supported, 0x80);
SMX_IFC_SIZE(flow_table_prop_layout, 0x200);
SMX_IFC_SIZE(flow_table_nic_cap, 0x8000);
SMX_IFC_SIZE(tisc, 0x500);
SMX_IFC_SIZE(create_tis_in, 0x600);
SMX_IFC_SIZE(create_tis_out, 0x80);
SMX_IFC_SIZE(modify_tis_bitmask, 0x40);
SMX_IFC_SIZE(modify_tis_in, 0x600);
SMX_IFC_SIZE(eth_obj_cmd_in, 0x80);
SMX_IFC_SIZE(query_tis_out, 0x580);
SMX_IFC_SIZE(rx_hash_field_select, 0x20);
SMX_IFC_SIZE(tirc, 0x780);
SMX_IFC_SIZE(rqtc, 0x780);
SMX_IFC_SIZE(create_rqt_in, 0x880);
SMX_IFC_SIZE(create_rqt_out, 0x80);
SMX_IFC_SIZE(modify_rqt_in, 0x880);
SMX_IFC_SIZE(query_rqt_out, 0x880);
SMX_IFC_SIZE(create_tir_in, 0x880);
SMX_IFC_SIZE(create_tir_out, 0x80);
SMX_IFC_SIZE(query_tir_out, 0x880);
SMX_IFC_SIZE(sqc, 0x780);
SMX_IFC_SIZE(create_sq_in, 0x880);
SMX_IFC_SIZE(create_sq_out, 0x80);
SMX_IFC_SIZE(modify_sq_in, 0x880);
SMX_IFC_SIZE(query_sq_out, 0x880);
SMX_IFC_SIZE(rqc, 0x780);
SMX_IFC_SIZE(create_rq_in, 0x880);
SMX_IFC_SIZE(create_rq_out, 0x80);
SMX_IFC_SIZE(modify_rq_in, 0x880);
SMX_IFC_SIZE(query_rq_out, 0x880);
SMX_IFC_SIZE(fte_match_set_lyr_2_4, 0x200);
SMX_IFC_SIZE(fte_match_param, 0x1000);
SMX_IFC_SIZE(flow_table_context, 0x140);
SMX_IFC_SIZE(create_flow_table_in, 0x200);
SMX_IFC_SIZE(create_flow_table_out, 0x80);
SMX_IFC_SIZE(destroy_flow_table_in, 0x200);
SMX_IFC_SIZE(query_flow_table_out, 0x200);
SMX_IFC_SIZE(set_flow_table_root_in, 0x200);
SMX_IFC_SIZE(create_flow_group_in, 0x2000);
SMX_IFC_SIZE(create_flow_group_out, 0x80);
SMX_IFC_SIZE(destroy_flow_group_in, 0x200);
SMX_IFC_SIZE(dest_format, 0x40);
SMX_IFC_SIZE(flow_context, 0x1800);
SMX_IFC_SIZE(set_fte_in, 0x1a00);
SMX_IFC_SIZE(delete_fte_in, 0x200);
SMX_IFC_SIZE(flow_counter_list, 0x40);
SMX_IFC_SIZE(traffic_counter, 0x80);
SMX_IFC_SIZE(set_action_in, 0x40);
SMX_IFC_SIZE(alloc_modify_header_context_in, 0x80);
SMX_IFC_SIZE(alloc_modify_header_context_out, 0x80);
SMX_IFC_SIZE(dealloc_modify_header_context_in, 0x80);
SMX_IFC_SIZE(alloc_flow_counter_in, 0x80);
SMX_IFC_SIZE(alloc_flow_counter_out, 0x80);
SMX_IFC_SIZE(dealloc_flow_counter_in, 0x80);
SMX_IFC_SIZE(query_flow_counter_in, 0x100);
SMX_IFC_SIZE(query_flow_counter_out, 0x100);

#endif
