/* SPDX-License-Identifier: MIT */
/*
 * Device and port attributes, derived from PRM queries the way the kernel's
 * mlx5_ib derives them: QUERY_HCA_CAP for limits, the NIC/HCA vport contexts
 * and QUERY_VPORT_STATE for the port, QUERY_ROCE_ADDRESS / QUERY_HCA_VPORT_GID
 * for GIDs, QUERY_HCA_VPORT_PKEY for P_Keys.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

#define CAP_GEN(ctx, fld) DEVX_GET(cmd_hca_cap, (ctx)->caps.gen, fld)

enum { PORT_TYPE_IB = 0, PORT_TYPE_ETH = 1 };

int mlx5_context_caps_load(struct mlx5_context *ctx)
{
	uint32_t max_sq_desc, send_sge, recv_sge;
	int ret;

	ret = mlx5_query_hca_cap(ctx->hca, MLX5_CAP_GENERAL, ctx->caps.gen,
				 sizeof(ctx->caps.gen));
	if (ret)
		return ret;
	ctx->link_layer = CAP_GEN(ctx, port_type) == PORT_TYPE_ETH ?
				  IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
	ctx->num_ports = (uint8_t)CAP_GEN(ctx, num_ports);
	if (CAP_GEN(ctx, roce))
		ctx->caps.have_roce = !mlx5_query_hca_cap(ctx->hca, MLX5_CAP_ROCE,
							  ctx->caps.roce,
							  sizeof(ctx->caps.roce));
	if (CAP_GEN(ctx, pg))
		ctx->caps.have_odp = !mlx5_query_hca_cap(ctx->hca, MLX5_CAP_ODP,
							 ctx->caps.odp,
							 sizeof(ctx->caps.odp));
	if (CAP_GEN(ctx, eth_net_offloads))
		ctx->caps.have_eth = !mlx5_query_hca_cap(ctx->hca, MLX5_CAP_ETHERNET_OFFLOADS,
							 ctx->caps.eth,
							 sizeof(ctx->caps.eth));
	if (CAP_GEN(ctx, device_memory))
		ctx->caps.have_dm = !mlx5_query_hca_cap(ctx->hca, MLX5_CAP_DEV_MEM,
							ctx->caps.dm,
							sizeof(ctx->caps.dm));
	mlx5_crypto_caps_load(ctx);

	/* DMA memcpy (MMO) WQEs: the send queue form only (the QP form needs
	 * qpc_ext.mmo set through INIT2INIT, which is not done here). */
	ctx->dma_max_size = 0;
	if (CAP_GEN(ctx, dma_mmo_sq))
		ctx->dma_max_size = CAP_GEN(ctx, log_dma_mmo_max_size) ?
			1ull << CAP_GEN(ctx, log_dma_mmo_max_size) : 1ull << 31;

	/* Scatter/gather limits follow from the largest WQE, as in mlx5_ib. */
	max_sq_desc = CAP_GEN(ctx, max_wqe_sz_sq);
	if (max_sq_desc > 512)
		max_sq_desc = 512;
	send_sge = (max_sq_desc - sizeof(struct mlx5_wqe_ctrl_seg) -
		    sizeof(struct mlx5_wqe_raddr_seg)) /
		   sizeof(struct mlx5_wqe_data_seg);
	recv_sge = CAP_GEN(ctx, max_wqe_sz_rq) / sizeof(struct mlx5_wqe_data_seg);
	ctx->max_sge = send_sge < recv_sge ? send_sge : recv_sge;
	ctx->max_qp_wr = 1u << CAP_GEN(ctx, log_max_qp_sz);
	ctx->max_cqe = (1u << CAP_GEN(ctx, log_max_cq_sz)) - 1;
	ctx->max_srq_wr = (1u << CAP_GEN(ctx, log_max_srq_sz)) - 1;
	/* Inline data is bounded by the whole WQE (63 octowords at most), as
	 * rdma-core bounds it by max_sq_desc_sz, not by the SGE limit. */
	max_sq_desc = CAP_GEN(ctx, max_wqe_sz_sq);
	if (max_sq_desc > 63 * 16)
		max_sq_desc = 63 * 16;
	ctx->max_inline = max_sq_desc - sizeof(struct mlx5_wqe_ctrl_seg) -
			  sizeof(struct mlx5_wqe_inl_data_seg) -
			  sizeof(struct mlx5_wqe_datagram_seg);
	return 0;
}

static int query_nic_vport(struct mlx5_context *ctx, void *out, size_t outlen)
{
	uint32_t in[DEVX_ST_SZ_DW(query_nic_vport_context_in)] = {};

	DEVX_SET(query_nic_vport_context_in, in, opcode,
		 MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, outlen);
}

static int query_hca_vport(struct mlx5_context *ctx, uint8_t port, void *out,
			   size_t outlen)
{
	uint32_t in[DEVX_ST_SZ_DW(query_hca_vport_context_in)] = {};

	DEVX_SET(query_hca_vport_context_in, in, opcode,
		 MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT);
	DEVX_SET(query_hca_vport_context_in, in, port_num, port);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, outlen);
}

static uint32_t odp_transport_caps(const void *t)
{
	return (DEVX_GET(odp_per_transport_service_cap, t, send) ? IBV_ODP_SUPPORT_SEND : 0) |
	       (DEVX_GET(odp_per_transport_service_cap, t, receive) ? IBV_ODP_SUPPORT_RECV : 0) |
	       (DEVX_GET(odp_per_transport_service_cap, t, write) ? IBV_ODP_SUPPORT_WRITE : 0) |
	       (DEVX_GET(odp_per_transport_service_cap, t, read) ? IBV_ODP_SUPPORT_READ : 0) |
	       (DEVX_GET(odp_per_transport_service_cap, t, atomic) ? IBV_ODP_SUPPORT_ATOMIC : 0) |
	       (DEVX_GET(odp_per_transport_service_cap, t, srq_receive) ?
			IBV_ODP_SUPPORT_SRQ_RECV : 0);
}

int mlx5_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct mlx5_context *ctx = to_mctx(context);
	const struct smx_config *cfg = smx_dev_config(ctx->hca);
	struct ibv_device_attr_ex a;
	struct ibv_device_attr *o = &a.orig_attr;

	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < sizeof(attr->orig_attr))
		return EINVAL;

	memset(&a, 0, sizeof(a));
	snprintf(o->fw_ver, sizeof(o->fw_ver), "%u.%u.%04u (softmlx5)", cfg->fw_major,
		 cfg->fw_minor, cfg->fw_sub);
	o->node_guid = htobe64(cfg->node_guid);
	o->sys_image_guid = htobe64(cfg->sys_image_guid);
	o->max_mr_size = ~0ull;
	o->page_size_cap = ~(uint64_t)((1ull << CAP_GEN(ctx, log_pg_sz)) - 1);
	o->vendor_id = cfg->vendor_id;
	o->vendor_part_id = cfg->part_id;
	o->hw_ver = cfg->hw_ver;
	o->max_qp = 1 << CAP_GEN(ctx, log_max_qp);
	o->max_qp_wr = (int)ctx->max_qp_wr;
	o->device_cap_flags = IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |
			      IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_PORT_ACTIVE_EVENT |
			      IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN;
	o->max_sge = (int)ctx->max_sge;
	o->max_sge_rd = (int)ctx->max_sge;
	o->max_cq = 1 << CAP_GEN(ctx, log_max_cq);
	o->max_cqe = (int)ctx->max_cqe;
	o->max_mr = 1 << CAP_GEN(ctx, log_max_mkey);
	o->max_pd = 1 << CAP_GEN(ctx, log_max_pd);
	o->max_qp_rd_atom = 1 << CAP_GEN(ctx, log_max_ra_res_qp);
	o->max_qp_init_rd_atom = 1 << CAP_GEN(ctx, log_max_ra_req_qp);
	o->max_res_rd_atom = o->max_qp_rd_atom * o->max_qp;
	o->max_srq = 1 << CAP_GEN(ctx, log_max_srq);
	o->max_srq_wr = (int)ctx->max_srq_wr;
	o->max_srq_sge = (int)(CAP_GEN(ctx, max_wqe_sz_rq) /
			       sizeof(struct mlx5_wqe_data_seg)) - 1;
	o->max_pkeys = (uint16_t)(ctx->link_layer == IBV_LINK_LAYER_ETHERNET ?
				  1 : CAP_GEN(ctx, pkey_table_size));
	o->max_ah = 0x7fffffff;
	o->local_ca_ack_delay = (uint8_t)CAP_GEN(ctx, local_ca_ack_delay);
	o->phys_port_cnt = ctx->num_ports;
	o->atomic_cap = CAP_GEN(ctx, atomic) ? IBV_ATOMIC_HCA : IBV_ATOMIC_NONE;
	if (o->atomic_cap != IBV_ATOMIC_NONE) {
		a.pci_atomic_caps.fetch_add = IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP;
		a.pci_atomic_caps.compare_swap = IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP;
	}
	o->max_mcast_grp = 1 << CAP_GEN(ctx, log_max_mcg);
	o->max_mcast_qp_attach = (int)CAP_GEN(ctx, max_qp_mcg);
	o->max_total_mcast_qp_attach = o->max_mcast_qp_attach * o->max_mcast_grp;

	if (ctx->caps.have_odp) {
		a.odp_caps.general_caps = IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT;
		a.odp_caps.per_transport_caps.rc_odp_caps =
			odp_transport_caps(DEVX_ADDR_OF(odp_cap, ctx->caps.odp, rc_odp_caps));
		a.odp_caps.per_transport_caps.uc_odp_caps =
			odp_transport_caps(DEVX_ADDR_OF(odp_cap, ctx->caps.odp, uc_odp_caps));
		a.odp_caps.per_transport_caps.ud_odp_caps =
			odp_transport_caps(DEVX_ADDR_OF(odp_cap, ctx->caps.odp, ud_odp_caps));
		a.xrc_odp_caps =
			odp_transport_caps(DEVX_ADDR_OF(odp_cap, ctx->caps.odp, xrc_odp_caps));
	}
	/* Raw packet QPs (raw.c): checksums inserted on send (IBV_SEND_IP_CSUM)
	 * and verified on receive (IBV_WC_IP_CSUM_OK); C-VLAN stripping. */
	if (mlx5_raw_csum(ctx)) {
		o->device_cap_flags |= IBV_DEVICE_RAW_IP_CSUM;
		a.raw_packet_caps |= IBV_RAW_PACKET_CAP_IP_CSUM;
	}
	if (mlx5_raw_cvlan(ctx))
		a.raw_packet_caps |= IBV_RAW_PACKET_CAP_CVLAN_STRIPPING;
	/* Receive WQs and RSS (wq.c, raw.c): RQ tables behind indirect TIRs. */
	if (ctx->link_layer == IBV_LINK_LAYER_ETHERNET &&
	    CAP_GEN(ctx, eth_net_offloads) && CAP_GEN(ctx, log_max_rqt)) {
		a.max_wq_type_rq = 1u << CAP_GEN(ctx, log_max_rq);
		a.rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		a.rss_caps.max_rwq_indirection_tables = 1u << CAP_GEN(ctx, log_max_rqt);
		a.rss_caps.max_rwq_indirection_table_size =
			1u << CAP_GEN(ctx, log_max_rqt_size);
		a.rss_caps.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
		a.rss_caps.rx_hash_fields_mask =
			IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 |
			IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP |
			IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	}
	a.phys_port_cnt_ex = ctx->num_ports;
	a.max_dm_size = ctx->caps.have_dm ?
				DEVX_GET(device_mem_cap, ctx->caps.dm, max_memic_size) : 0;
	a.hca_core_clock = CAP_GEN(ctx, device_frequency_khz);
	a.completion_timestamp_mask = (1ull << 63) - 1;
	a.cq_mod_caps.max_cq_count = 0xffff;
	a.cq_mod_caps.max_cq_period = 0xfff;

	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	if (attr_size > sizeof(a))
		memset((uint8_t *)attr + sizeof(a), 0, attr_size - sizeof(a));
	return 0;
}

/*
 * The IB MTU a RoCE port can use on an Ethernet MTU of @eth bytes, as the
 * kernel's iboe_get_mtu() (rdma/ib_addr.h) says: what is left after a GRH
 * or IPv6 header (40; IPv4's 20 fits in it), UDP (8), BTH (12), the
 * largest extended headers (XRC 4 + AtomicETH 28) and the ICRC (4). Below
 * 256 bytes the kernel gives 0, no MTU at all; 256 here.
 */
static enum ibv_mtu roce_mtu(unsigned int eth)
{
	unsigned int hdrs = 40 + 8 + 12 + 4 + 28 + 4;
	unsigned int room = eth > hdrs ? eth - hdrs : 0;

	if (room >= 4096)
		return IBV_MTU_4096;
	if (room >= 2048)
		return IBV_MTU_2048;
	if (room >= 1024)
		return IBV_MTU_1024;
	if (room >= 512)
		return IBV_MTU_512;
	return IBV_MTU_256;
}

/* What mlx5e adds to an interface's MTU for the vport's: Ethernet header,
 * a VLAN tag, FCS (MLX5E_SW2HW_MTU). */
#define VPORT_HARD_MTU 22

int mlx5_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct mlx5_context *ctx = to_mctx(context);
	uint32_t out[DEVX_ST_SZ_DW(query_hca_vport_context_out)] = {};
	int ret;

	if (port < 1 || port > ctx->num_ports)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->max_msg_sz = 1u << CAP_GEN(ctx, log_max_msg);
	attr->gid_tbl_len = (int)CAP_GEN(ctx, gid_table_size);
	attr->active_width = 2;		/* 4x */
	attr->active_speed = 32;	/* EDR: 25 Gb/s per lane, x4 = 100 Gb/s */
	attr->max_vl_num = 1;
	attr->link_layer = ctx->link_layer;

	if (ctx->link_layer == IBV_LINK_LAYER_ETHERNET) {
		uint32_t nout[DEVX_ST_SZ_DW(query_nic_vport_context_out)] = {};
		uint32_t sin[DEVX_ST_SZ_DW(query_vport_state_in)] = {};
		uint32_t sout[DEVX_ST_SZ_DW(query_vport_state_out)] = {};
		const struct smx_config *cfg = smx_dev_config(ctx->hca);
		unsigned int mtu;
		enum ibv_mtu active;

		ret = query_nic_vport(ctx, nout, sizeof(nout));
		if (ret)
			return ret;
		DEVX_SET(query_vport_state_in, sin, opcode, MLX5_CMD_OP_QUERY_VPORT_STATE);
		ret = mlx5_cmd_exec(ctx, sin, sizeof(sin), sout, sizeof(sout));
		if (ret)
			return ret;
		mtu = DEVX_GET(query_nic_vport_context_out, nout, nic_vport_context.mtu);
		/* As mlx5_ib: the port's largest MTU (max_mtu, the PMTU
		 * register's on hardware), the active one no larger than the
		 * interface's MTU leaves room for. */
		attr->max_mtu = (enum ibv_mtu)cfg->max_mtu;
		active = roce_mtu(mtu > VPORT_HARD_MTU ? mtu - VPORT_HARD_MTU : 0);
		attr->active_mtu = active < attr->max_mtu ? active : attr->max_mtu;
		attr->state = DEVX_GET(query_vport_state_out, sout, state) == 1 ?
				      IBV_PORT_ACTIVE : IBV_PORT_DOWN;
		attr->phys_state = attr->state == IBV_PORT_ACTIVE ? 5 : 3;
		attr->pkey_tbl_len = 1;
		attr->port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
		attr->lid = 0;
	} else {
		ret = query_hca_vport(ctx, port, out, sizeof(out));
		if (ret)
			return ret;
		attr->state = DEVX_GET(query_hca_vport_context_out, out,
				       hca_vport_context.vport_state);
		attr->phys_state = (uint8_t)DEVX_GET(query_hca_vport_context_out, out,
						     hca_vport_context.port_physical_state);
		attr->lid = (uint16_t)DEVX_GET(query_hca_vport_context_out, out,
					       hca_vport_context.lid);
		attr->sm_lid = (uint16_t)DEVX_GET(query_hca_vport_context_out, out,
						  hca_vport_context.sm_lid);
		attr->lmc = (uint8_t)DEVX_GET(query_hca_vport_context_out, out,
					      hca_vport_context.lmc);
		attr->port_cap_flags = DEVX_GET(query_hca_vport_context_out, out,
						hca_vport_context.cap_mask1);
		attr->pkey_tbl_len = (uint16_t)CAP_GEN(ctx, pkey_table_size);
		attr->max_mtu = IBV_MTU_4096;
		attr->active_mtu = IBV_MTU_4096;
	}
	return 0;
}

int mlx5_query_gid_ex(struct ibv_context *context, uint32_t port,
		      uint32_t index, struct ibv_gid_entry *entry)
{
	struct mlx5_context *ctx = to_mctx(context);
	static const uint8_t zero[16];
	int ret;

	if (port < 1 || port > ctx->num_ports ||
	    index >= CAP_GEN(ctx, gid_table_size))
		return EINVAL;
	memset(entry, 0, sizeof(*entry));
	entry->gid_index = index;
	entry->port_num = port;

	if (ctx->link_layer == IBV_LINK_LAYER_ETHERNET) {
		uint32_t in[DEVX_ST_SZ_DW(query_roce_address_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(query_roce_address_out)] = {};
		void *ra = DEVX_ADDR_OF(query_roce_address_out, out, roce_address);

		DEVX_SET(query_roce_address_in, in, opcode, MLX5_CMD_OP_QUERY_ROCE_ADDRESS);
		DEVX_SET(query_roce_address_in, in, roce_address_index, index);
		DEVX_SET(query_roce_address_in, in, vhca_port_num, port);
		ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
		if (ret)
			return ret;
		memcpy(entry->gid.raw,
		       DEVX_ADDR_OF(roce_addr_layout, ra, source_l3_address), 16);
		if (!memcmp(entry->gid.raw, zero, 16))
			return ENODATA;
		entry->gid_type = DEVX_GET(roce_addr_layout, ra, roce_version) ==
						  MLX5_ROCE_VERSION_2 ?
					  IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
		/* The kernel names the GID's interface; a port bound to one
		 * has it (its index now: it may have come back renumbered). */
		if (smx_dev_config(ctx->hca)->netdev[0])
			entry->ndev_ifindex =
				if_nametoindex(smx_dev_config(ctx->hca)->netdev);
	} else {
		uint32_t in[DEVX_ST_SZ_DW(query_hca_vport_gid_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(query_hca_vport_gid_out) + 4] = {};

		DEVX_SET(query_hca_vport_gid_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_VPORT_GID);
		DEVX_SET(query_hca_vport_gid_in, in, port_num, port);
		DEVX_SET(query_hca_vport_gid_in, in, gid_index, index);
		ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
		if (ret)
			return ret;
		memcpy(entry->gid.raw, (uint8_t *)out + DEVX_ST_SZ_BYTES(query_hca_vport_gid_out), 16);
		if (!memcmp(entry->gid.raw, zero, 16))
			return ENODATA;
		entry->gid_type = IBV_GID_TYPE_IB;
	}
	return 0;
}

int mlx5_query_pkey(struct ibv_context *context, uint8_t port, int index,
		    __be16 *pkey)
{
	struct mlx5_context *ctx = to_mctx(context);
	uint32_t in[DEVX_ST_SZ_DW(query_hca_vport_pkey_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_hca_vport_pkey_out) + 1] = {};
	int ret;

	if (port < 1 || port > ctx->num_ports || index < 0)
		return EINVAL;
	DEVX_SET(query_hca_vport_pkey_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY);
	DEVX_SET(query_hca_vport_pkey_in, in, port_num, port);
	DEVX_SET(query_hca_vport_pkey_in, in, pkey_index, index);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	*pkey = htobe16((uint16_t)DEVX_GET(pkey, (uint8_t *)out +
					   DEVX_ST_SZ_BYTES(query_hca_vport_pkey_out), pkey));
	return 0;
}

SMX_EXPORT int mlx5dv_query_device(struct ibv_context *context,
				   struct mlx5dv_context *attrs)
{
	struct mlx5_context *ctx;
	uint64_t asked;

	if (!context || !attrs)
		return EINVAL;
	if (!mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	ctx = to_mctx(context);
	asked = attrs->comp_mask;
	attrs->version = 0;
	/* CQE version 0: srqn_uidx carries the SRQ number (no user index). */
	attrs->flags = 0;
	if (DEVX_GET(cmd_hca_cap, ctx->caps.gen, cqe_128_always))
		attrs->flags |= MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD;
	if (DEVX_GET(cmd_hca_cap, ctx->caps.gen, cqe_compression_128))
		attrs->flags |= MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP;
	attrs->comp_mask = 0;
	/* Each block the caller asked for is answered, with "nothing
	 * supported" where the feature is not implemented yet. */
	if (asked & MLX5DV_CONTEXT_MASK_CQE_COMPRESION) {
		memset(&attrs->cqe_comp_caps, 0, sizeof(attrs->cqe_comp_caps));
		if (DEVX_GET(cmd_hca_cap, ctx->caps.gen, cqe_compression)) {
			attrs->cqe_comp_caps.max_num =
				DEVX_GET(cmd_hca_cap, ctx->caps.gen, cqe_compression_max_num);
			attrs->cqe_comp_caps.supported_format =
				MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM |
				(DEVX_GET(cmd_hca_cap, ctx->caps.gen, mini_cqe_resp_stride_index) ?
				 MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX : 0);
		}
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_CQE_COMPRESION;
	}
	if (asked & MLX5DV_CONTEXT_MASK_SWP) {
		memset(&attrs->sw_parsing_caps, 0, sizeof(attrs->sw_parsing_caps));
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_SWP;
	}
	if (asked & MLX5DV_CONTEXT_MASK_STRIDING_RQ) {
		memset(&attrs->striding_rq_caps, 0, sizeof(attrs->striding_rq_caps));
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_STRIDING_RQ;
	}
	if (asked & MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS) {
		attrs->tunnel_offloads_caps = 0;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS;
	}
	if (asked & MLX5DV_CONTEXT_MASK_DYN_BFREGS) {
		attrs->max_dynamic_bfregs = 0;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_DYN_BFREGS;
	}
	if (asked & MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS) {
		attrs->flow_action_flags = 0;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS;
	}
	if (asked & MLX5DV_CONTEXT_MASK_DC_ODP_CAPS) {
		attrs->dc_odp_caps = ctx->caps.have_odp ?
			odp_transport_caps(DEVX_ADDR_OF(odp_cap, ctx->caps.odp, dc_odp_caps)) : 0;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_DC_ODP_CAPS;
	}
	if (asked & MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS) {
		attrs->num_lag_ports = 0;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS;
	}
	if (asked & MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD) {
		/* As rdma-core derives them from the general caps. */
		memset(&attrs->sig_caps, 0, sizeof(attrs->sig_caps));
		if (mlx5_sig_supported(ctx)) {
			const void *g = ctx->caps.gen;

			attrs->sig_caps.block_prot = MLX5DV_SIG_PROT_CAP_T10DIF |
						     MLX5DV_SIG_PROT_CAP_CRC;
			attrs->sig_caps.block_size = MLX5DV_BLOCK_SIZE_CAP_512 |
						     MLX5DV_BLOCK_SIZE_CAP_520 |
						     MLX5DV_BLOCK_SIZE_CAP_4096 |
						     MLX5DV_BLOCK_SIZE_CAP_4160;
			attrs->sig_caps.t10dif_bg = MLX5DV_SIG_T10DIF_BG_CAP_CRC |
						    MLX5DV_SIG_T10DIF_BG_CAP_CSUM;
			attrs->sig_caps.crc_type = MLX5DV_SIG_CRC_TYPE_CAP_CRC32;
			if (DEVX_GET(cmd_hca_cap, g, sig_block_4048))
				attrs->sig_caps.block_size |= MLX5DV_BLOCK_SIZE_CAP_4048;
			if (DEVX_GET(cmd_hca_cap, g, sig_crc32c))
				attrs->sig_caps.crc_type |= MLX5DV_SIG_CRC_TYPE_CAP_CRC32C;
			if (DEVX_GET(cmd_hca_cap, g, sig_crc64_xp10))
				attrs->sig_caps.crc_type |= MLX5DV_SIG_CRC_TYPE_CAP_CRC64_XP10;
		}
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD;
	}
	if (asked & MLX5DV_CONTEXT_MASK_DCI_STREAMS) {
		attrs->dci_streams_caps.max_log_num_concurent = (uint8_t)
			DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_dci_stream_channels);
		attrs->dci_streams_caps.max_log_num_errored = (uint8_t)
			DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_dci_errored_streams);
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_DCI_STREAMS;
	}
	if (asked & MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH) {
		attrs->max_wr_memcpy_length = ctx->dma_max_size;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH;
	}
	if (asked & MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD) {
		attrs->crypto_caps = ctx->crypto_caps;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD;
	}
	return 0;
}
