/* SPDX-License-Identifier: MIT */
/*
 * The port and the vport queries: HCA vport context, GID and P_Key tables,
 * NIC vport context, RoCE address table and vport state. One port: always
 * ACTIVE, or, bound to a network interface (key netdev), as that interface
 * is (docs/transport.md, "Ports bound to a network interface").
 */
#include <endian.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "device/fw/fw_loc.h"
#include "util/log.h"

/* What mlx5e adds to the interface's MTU for the vport's (MLX5E_SW2HW_MTU:
 * Ethernet header, a VLAN tag, FCS); the driver takes it off again. */
#define FW_PORT_HARD_MTU 22
/* The vport MTU of a port without an interface: room for 4096-byte RoCE
 * packets with every header. */
#define FW_PORT_MTU_UNBOUND 9000

/* ---------------------------------------------------------------- the port */

/* Reads the interface again; the GID table as long as the configured one. */
static void port_read(struct fw *fw)
{
	struct fw_port *p = &fw->port;
	int ret = smx_netdev_read(fw->cfg.netdev, fw->cfg.gid_tbl_len, p->nd);

	if (ret != 0 && p->present)
		smx_dbg("fw: port: interface %s: %s; the port is down",
			fw->cfg.netdev, strerror(-ret));
	p->present = ret == 0;
	p->stale = false;
}

int fw_port_init(struct fw *fw)
{
	struct fw_port *p = &fw->port;
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
	};

	p->nl = -1;
	if (!fw->cfg.netdev[0])
		return 0;
	p->nd = malloc(sizeof(*p->nd));
	if (!p->nd)
		return -ENOMEM;
	/* Subscribed before the first read: no change falls in between. */
	p->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       NETLINK_ROUTE);
	if (p->nl >= 0 && bind(p->nl, (struct sockaddr *)&sa, sizeof(sa))) {
		close(p->nl);
		p->nl = -1;
	}
	if (p->nl < 0)
		smx_dbg("fw: port: no netlink socket (%s); interface %s is read "
			"before every command", strerror(errno), fw->cfg.netdev);
	p->pid = (int)getpid();
	port_read(fw);
	return 0;
}

void fw_port_fini(struct fw *fw)
{
	if (fw->port.nl >= 0)
		close(fw->port.nl);
	fw->port.nl = -1;
	free(fw->port.nd);
	fw->port.nd = NULL;
}

void fw_port_sync(struct fw *fw)
{
	struct fw_port *p = &fw->port;
	char buf[8192];
	ssize_t n;

	if (!p->nd)
		return;
	/* A fork child shares the parent's socket: it must not take the
	 * parent's news, so it reads every time. */
	if (p->nl < 0 || p->pid != (int)getpid()) {
		port_read(fw);
		return;
	}
	/* Any message (or ENOBUFS: we missed some) means something changed;
	 * which interface or address does not matter, the read is cheap. */
	while ((n = recv(p->nl, buf, sizeof(buf), MSG_DONTWAIT)) > 0 ||
	       (n < 0 && (errno == ENOBUFS || errno == EINTR)))
		p->stale = true;
	if (p->stale)
		port_read(fw);
}

/* The port's state, MTU and MAC as the interface has them this instant: a
 * carrier change is announced only when the kernel's link watch runs (up
 * to a second later), so the queries of them read the interface anew. */
static void port_read_now(struct fw *fw)
{
	if (fw->port.nd)
		port_read(fw);
}

/* Is the port up: unbound always, bound when its interface is up and has a
 * carrier (mlx5_ib: netif_running() && netif_carrier_ok()). */
static bool port_active(const struct fw *fw)
{
	const struct fw_port *p = &fw->port;

	return !p->nd || (p->present && p->nd->up && p->nd->carrier);
}

static const uint8_t *port_mac(const struct fw *fw)
{
	const struct fw_port *p = &fw->port;

	return p->nd && p->present ? p->nd->mac : fw->cfg.mac;
}

bool fw_gid_entry(const struct fw *fw, uint32_t index, uint8_t gid[16],
		  uint8_t *version)
{
	const struct fw_port *p = &fw->port;
	uint64_t guid = htobe64(fw->cfg.node_guid);

	memset(gid, 0, 16);
	if (version)
		*version = MLX5_ROCE_VERSION_2;
	if (p->nd) {
		/* Bound: the kernel's table of the interface (netdev.h). */
		if (!p->present || index >= p->nd->ngids)
			return false;
		memcpy(gid, p->nd->gid[index].raw, 16);
		if (version && p->nd->gid[index].type == SMX_GID_ROCE_V1)
			*version = MLX5_ROCE_VERSION_1;
		return true;
	}
	/* Unbound: one GID, at index 0. */
	if (index != 0)
		return false;
	if (fw->cfg.link_layer == SMX_LINK_ETH) {
		/* RoCEv2 GID of the configured IPv4 address: ::ffff:a.b.c.d */
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, fw->cfg.ipv4, 4);
	} else {
		gid[0] = 0xfe;
		gid[1] = 0x80;
		memcpy(gid + 8, &guid, 8);
	}
	return true;
}

/* ------------------------------------------------------------ the queries */

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
	port_read_now(c->fw);
	DEVX_SET(hca_vport_context, ctx, grh_required,
		 cfg->link_layer == SMX_LINK_ETH);
	DEVX_SET(hca_vport_context, ctx, port_physical_state,
		 port_active(c->fw) ? MLX5_PORT_PHYS_STATE_LINK_UP :
		 MLX5_PORT_PHYS_STATE_DISABLED);
	DEVX_SET(hca_vport_context, ctx, port_state, port_active(c->fw) ?
		 MLX5_PORT_STATE_ACTIVE : MLX5_PORT_STATE_DOWN);
	DEVX_SET(hca_vport_context, ctx, vport_state, port_active(c->fw) ?
		 MLX5_PORT_STATE_ACTIVE : MLX5_PORT_STATE_DOWN);
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
	const struct fw_port *p = &c->fw->port;
	uint8_t *ctx = OUT_ADDR(query_nic_vport_context_out, nic_vport_context);
	uint8_t *mac = (uint8_t *)DEVX_ADDR_OF(nic_vport_context, ctx,
					       permanent_address);
	const uint8_t *m;

	if (fw_vport_check(c, IN_GET(query_nic_vport_context_in, other_vport),
			   0, IN_GET(query_nic_vport_context_in, vport_number)))
		return -1;
	port_read_now(c->fw);
	m = port_mac(c->fw);
	DEVX_SET(nic_vport_context, ctx, roce_en,
		 cfg->link_layer == SMX_LINK_ETH);
	/* The interface's MTU as mlx5e sets the vport's; unbound, big
	 * enough for the largest RoCE MTU with its headers. */
	DEVX_SET(nic_vport_context, ctx, mtu, p->nd && p->present ?
		 p->nd->mtu + FW_PORT_HARD_MTU : FW_PORT_MTU_UNBOUND);
	DEVX_SET64(nic_vport_context, ctx, system_image_guid,
		   cfg->sys_image_guid);
	DEVX_SET64(nic_vport_context, ctx, port_guid, cfg->node_guid);
	DEVX_SET64(nic_vport_context, ctx, node_guid, cfg->node_guid);
	DEVX_SET(mac_address_layout, mac, mac_addr_47_32,
		 (uint32_t)m[0] << 8 | m[1]);
	DEVX_SET(mac_address_layout, mac, mac_addr_31_0,
		 (uint32_t)m[2] << 24 | (uint32_t)m[3] << 16 |
		 (uint32_t)m[4] << 8 | m[5]);
	return 0;
}

int fw_vport_query_roce_address(struct fw_cmd *c)
{
	const struct smx_config *cfg = &c->fw->cfg;
	uint32_t idx = IN_GET(query_roce_address_in, roce_address_index);
	uint8_t *ra = OUT_ADDR(query_roce_address_out, roce_address);
	const uint8_t *m = port_mac(c->fw);
	uint8_t gid[16], version;
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

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
	if (!fw_gid_entry(c->fw, idx, gid, &version))
		return 0;	/* empty slot: zeroes */
	memcpy(DEVX_ADDR_OF(roce_addr_layout, ra, source_l3_address), gid, 16);
	DEVX_SET(roce_addr_layout, ra, source_mac_47_32,
		 (uint32_t)m[0] << 8 | m[1]);
	DEVX_SET(roce_addr_layout, ra, source_mac_31_0,
		 (uint32_t)m[2] << 24 | (uint32_t)m[3] << 16 |
		 (uint32_t)m[4] << 8 | m[5]);
	/* As mlx5_ib's set_roce_addr(): the L3 type says which IP header a
	 * RoCE v2 packet carries; v1 has none (0). */
	DEVX_SET(roce_addr_layout, ra, roce_l3_type,
		 version == MLX5_ROCE_VERSION_2 && memcmp(gid, v4mapped, 12) ?
		 MLX5_ROCE_L3_TYPE_IPV6 : MLX5_ROCE_L3_TYPE_IPV4);
	DEVX_SET(roce_addr_layout, ra, roce_version, version);
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
	port_read_now(c->fw);
	OUT_SET(query_vport_state_out, admin_state,
		!c->fw->port.nd || (c->fw->port.present && c->fw->port.nd->up) ?
		MLX5_VPORT_STATE_UP : MLX5_VPORT_STATE_DOWN);
	OUT_SET(query_vport_state_out, state, port_active(c->fw) ?
		MLX5_VPORT_STATE_UP : MLX5_VPORT_STATE_DOWN);
	return 0;
}
