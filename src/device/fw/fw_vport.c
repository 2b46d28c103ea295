/* SPDX-License-Identifier: MIT */
/*
 * Port and vport queries: HCA vport context, GID and P_Key tables, NIC vport
 * context, RoCE address table and vport state. One port, always ACTIVE.
 */
#include <string.h>

#include "device/fw/fw_loc.h"

void fw_ipv4_gid(const struct smx_config *cfg, uint8_t gid[16])
{
	/* RoCEv2 GID of an IPv4 address: ::ffff:a.b.c.d */
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, cfg->ipv4, 4);
}

/* The port number fields of the vport queries: 0 (single-port default) or 1. */
static int fw_vport_check(struct fw_cmd *c, uint32_t other_vport,
			  uint32_t port_num, uint32_t vport_number)
{
	if (other_vport)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "other_vport: vport %u is not managed by this "
			       "function", vport_number);
	if (port_num > 1)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "port_num %u: the device has one port", port_num);
	return 0;
}

int fw_vport_query_hca_vport_context(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint8_t *ctx = OUT_ADDR(query_hca_vport_context_out, hca_vport_context);

	if (fw_vport_check(c, IN_GET(query_hca_vport_context_in, other_vport),
			   IN_GET(query_hca_vport_context_in, port_num),
			   IN_GET(query_hca_vport_context_in, vport_number)))
		return -1;
	DEVX_SET(hca_vport_context, ctx, grh_required,
		 cfg->link_layer == SMX_LINK_ETH);
	DEVX_SET(hca_vport_context, ctx, port_physical_state,
		 MLX5_PORT_PHYS_STATE_LINK_UP);
	DEVX_SET(hca_vport_context, ctx, port_state, MLX5_PORT_STATE_ACTIVE);
	DEVX_SET(hca_vport_context, ctx, vport_state, MLX5_PORT_STATE_ACTIVE);
	DEVX_SET64(hca_vport_context, ctx, system_image_guid,
		   cfg->sys_image_guid);
	DEVX_SET64(hca_vport_context, ctx, port_guid, cfg->node_guid);
	DEVX_SET64(hca_vport_context, ctx, node_guid, cfg->node_guid);
	if (cfg->link_layer == SMX_LINK_IB) {
		DEVX_SET(hca_vport_context, ctx, lid, cfg->lid);
		DEVX_SET(hca_vport_context, ctx, sm_lid, 1);
		DEVX_SET(hca_vport_context, ctx, has_smi, 1);
	}
	return 0;
}

int fw_vport_query_hca_vport_gid(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint32_t idx = IN_GET(query_hca_vport_gid_in, gid_index);
	uint32_t first = idx, n = 1, i;
	size_t base = DEVX_BYTE_OFF(query_hca_vport_gid_out, gid);

	if (fw_vport_check(c, IN_GET(query_hca_vport_gid_in, other_vport),
			   IN_GET(query_hca_vport_gid_in, port_num),
			   IN_GET(query_hca_vport_gid_in, vport_number)))
		return -1;
	if (idx == 0xffff) {
		first = 0;
		n = cfg->gid_tbl_len;
	} else if (idx >= cfg->gid_tbl_len) {
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "gid_index %u beyond the %u-entry GID table", idx,
			       cfg->gid_tbl_len);
	}
	if (c->outlen < base + (size_t)n * 16)
		return FW_FAIL(c, BAD_OUTP_LEN_ERR,
			       "%u GIDs need %zu output bytes, have %zu", n,
			       base + (size_t)n * 16, c->outlen);
	OUT_SET(query_hca_vport_gid_out, gids_num, n);
	for (i = 0; i < n; i++)
		fw_gid(c->fw, first + i, (uint8_t *)c->out + base + i * 16);
	return 0;
}

int fw_vport_query_hca_vport_pkey(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint32_t idx = IN_GET(query_hca_vport_pkey_in, pkey_index);
	uint32_t first = idx, n = 1, i;
	size_t base = DEVX_BYTE_OFF(query_hca_vport_pkey_out, pkey);

	if (fw_vport_check(c, IN_GET(query_hca_vport_pkey_in, other_vport),
			   IN_GET(query_hca_vport_pkey_in, port_num),
			   IN_GET(query_hca_vport_pkey_in, vport_number)))
		return -1;
	if (idx == 0xffff) {
		first = 0;
		n = cfg->pkey_tbl_len;
	} else if (idx >= cfg->pkey_tbl_len) {
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "pkey_index %u beyond the %u-entry P_Key table",
			       idx, cfg->pkey_tbl_len);
	}
	if (c->outlen < base + (size_t)n * 4)
		return FW_FAIL(c, BAD_OUTP_LEN_ERR,
			       "%u P_Keys need %zu output bytes, have %zu", n,
			       base + (size_t)n * 4, c->outlen);
	for (i = 0; i < n; i++)
		DEVX_SET(pkey, (uint8_t *)c->out + base + i * 4, pkey,
			 first + i == 0 ? 0xffff : 0);
	return 0;
}

int fw_vport_query_nic_vport_context(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint8_t *ctx = OUT_ADDR(query_nic_vport_context_out, nic_vport_context);
	uint8_t *mac = (uint8_t *)DEVX_ADDR_OF(nic_vport_context, ctx,
					       permanent_address);

	if (fw_vport_check(c, IN_GET(query_nic_vport_context_in, other_vport),
			   0, IN_GET(query_nic_vport_context_in, vport_number)))
		return -1;
	DEVX_SET(nic_vport_context, ctx, roce_en,
		 cfg->link_layer == SMX_LINK_ETH);
	/* Ethernet MTU big enough for the configured RoCE MTU + headers. */
	DEVX_SET(nic_vport_context, ctx, mtu, 9000);
	DEVX_SET64(nic_vport_context, ctx, system_image_guid,
		   cfg->sys_image_guid);
	DEVX_SET64(nic_vport_context, ctx, port_guid, cfg->node_guid);
	DEVX_SET64(nic_vport_context, ctx, node_guid, cfg->node_guid);
	DEVX_SET(mac_address_layout, mac, mac_addr_47_32,
		 (uint32_t)cfg->mac[0] << 8 | cfg->mac[1]);
	DEVX_SET(mac_address_layout, mac, mac_addr_31_0,
		 (uint32_t)cfg->mac[2] << 24 | (uint32_t)cfg->mac[3] << 16 |
		 (uint32_t)cfg->mac[4] << 8 | cfg->mac[5]);
	return 0;
}

int fw_vport_query_roce_address(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint32_t idx = IN_GET(query_roce_address_in, roce_address_index);
	uint8_t *ra = OUT_ADDR(query_roce_address_out, roce_address);
	uint8_t gid[16];

	if (IN_GET(query_roce_address_in, vhca_port_num) > 1)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "vhca_port_num %u: the device has one port",
			       IN_GET(query_roce_address_in, vhca_port_num));
	if (cfg->link_layer != SMX_LINK_ETH)
		return FW_FAIL(c, BAD_SYS_STATE_ERR,
			       "the port is InfiniBand, it has no RoCE addresses");
	if (idx >= cfg->gid_tbl_len)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "roce_address_index %u beyond the %u-entry table",
			       idx, cfg->gid_tbl_len);
	if (!fw_gid(c->fw, idx, gid))
		return 0;	/* empty slot: zeroes */
	memcpy(DEVX_ADDR_OF(roce_addr_layout, ra, source_l3_address), gid, 16);
	DEVX_SET(roce_addr_layout, ra, source_mac_47_32,
		 (uint32_t)cfg->mac[0] << 8 | cfg->mac[1]);
	DEVX_SET(roce_addr_layout, ra, source_mac_31_0,
		 (uint32_t)cfg->mac[2] << 24 | (uint32_t)cfg->mac[3] << 16 |
		 (uint32_t)cfg->mac[4] << 8 | cfg->mac[5]);
	DEVX_SET(roce_addr_layout, ra, roce_l3_type, MLX5_ROCE_L3_TYPE_IPV4);
	DEVX_SET(roce_addr_layout, ra, roce_version, MLX5_ROCE_VERSION_2);
	return 0;
}

int fw_vport_query_vport_state(struct fw_cmd *c)
{
	if (c->op_mod != 0)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "op_mod 0x%x: only the vNIC vport (0) exists",
			       c->op_mod);
	if (fw_vport_check(c, IN_GET(query_vport_state_in, other_vport), 0,
			   IN_GET(query_vport_state_in, vport_number)))
		return -1;
	OUT_SET(query_vport_state_out, admin_state, MLX5_VPORT_STATE_UP);
	OUT_SET(query_vport_state_out, state, MLX5_VPORT_STATE_UP);
	return 0;
}
