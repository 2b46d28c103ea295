/* SPDX-License-Identifier: MIT */
/*
 * Address handles. As on real mlx5 hardware an AH is driver memory only: the
 * address vector (struct mlx5_wqe_av) that UD and DC WQEs carry. RoCE needs a
 * GRH. The destination MAC, as the kernel's ib_resolve_eth_dmac() finds it
 * for a ConnectX: on a port bound to a network interface the kernel's
 * neighbour table (util/neigh.h), asked for at most 1 s, ETIMEDOUT after
 * that (docs/transport.md, "Neighbours"); on a port that is not, a MAC the
 * software fabric derives from the GID.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "device/transport/roce.h"
#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/neigh.h"
#include "util/symver.h"

#define MLX5_STAT_RATE_OFFSET 5
#define GRH_FLOWLABEL_MASK 0xfffff

static uint8_t ah_stat_rate(uint8_t static_rate)
{
	/* 0 keeps the port's rate; other IB rate enums shift by 5. */
	return static_rate ? (uint8_t)(static_rate + MLX5_STAT_RATE_OFFSET) : 0;
}

/* The RoCEv2 UDP source port: entropy from the flow label, as rdma-core. */
static uint16_t ah_udp_sport(uint32_t flow_label)
{
	uint32_t fl = flow_label & GRH_FLOWLABEL_MASK;

	if (!fl)
		fl = (uint32_t)rand() & GRH_FLOWLABEL_MASK;
	return roce_sport_of_flow_label(fl);
}

/* The kernel's wait for a neighbour at modify_qp(RTR) and create_ah
 * (rdma_addr_find_l2_eth_by_grh(): rdma_resolve_ip(..., 1000, ...)). */
#define AH_NEIGH_TIMEOUT_MS 1000

/* L2 address for @dgid: ours if the GID is in our table; else through
 * the neighbour table of interface @ifindex, the one the source GID
 * belongs to; else (@ifindex 0: no interface) the locally administered MAC
 * the software fabric derives from the IPv4. */
static int ah_resolve_mac(struct mlx5_context *ctx, uint8_t port,
			  const union ibv_gid *dgid, unsigned int ifindex,
			  uint8_t mac[6])
{
	struct ibv_port_attr pattr;
	struct ibv_gid_entry e;
	uint32_t i;

	if (mlx5_query_port(&ctx->ibv_ctx.context, port, &pattr))
		return EINVAL;
	for (i = 0; i < (uint32_t)pattr.gid_tbl_len; i++) {
		if (mlx5_query_gid_ex(&ctx->ibv_ctx.context, port, i, &e))
			continue;
		if (!memcmp(e.gid.raw, dgid->raw, 16)) {
			uint32_t out[DEVX_ST_SZ_DW(query_nic_vport_context_out)] = {};
			uint32_t in[DEVX_ST_SZ_DW(query_nic_vport_context_in)] = {};
			void *nvc;
			int ret;

			DEVX_SET(query_nic_vport_context_in, in, opcode,
				 MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
			ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
			if (ret)
				return ret;
			nvc = DEVX_ADDR_OF(query_nic_vport_context_out, out,
					   nic_vport_context);
			mac[0] = (uint8_t)(DEVX_GET(nic_vport_context, nvc,
						    permanent_address.mac_addr_47_32) >> 8);
			mac[1] = (uint8_t)DEVX_GET(nic_vport_context, nvc,
						   permanent_address.mac_addr_47_32);
			uint32_t lo = DEVX_GET(nic_vport_context, nvc,
					       permanent_address.mac_addr_31_0);
			mac[2] = (uint8_t)(lo >> 24);
			mac[3] = (uint8_t)(lo >> 16);
			mac[4] = (uint8_t)(lo >> 8);
			mac[5] = (uint8_t)lo;
			return 0;
		}
	}
	if (ifindex) {
		int r = smx_neigh_resolve(ifindex, dgid->raw, mac,
					  AH_NEIGH_TIMEOUT_MS);

		if (r)
			smx_dbg("ah: no MAC for the destination GID on "
				"interface %u: %s", ifindex, strerror(-r));
		return -r;
	}
	mac[0] = 0x02;
	mac[1] = 0x00;
	memcpy(&mac[2], &dgid->raw[12], 4);
	return 0;
}

/* Builds the address vector for @attr (shared by AHs and connected QPs). */
int mlx5_av_fill(struct mlx5_context *ctx, const struct ibv_ah_attr *attr,
		 struct mlx5_wqe_av *av)
{
	bool is_eth = ctx->link_layer == IBV_LINK_LAYER_ETHERNET;
	struct ibv_gid_entry sgid;
	uint32_t grh = 0;
	int ret;

	if (attr->port_num < 1 || attr->port_num > ctx->num_ports)
		return EINVAL;
	if (is_eth && !attr->is_global)
		return EINVAL;	/* RoCE packets always carry a GRH */
	memset(av, 0, sizeof(*av));
	if (is_eth) {
		ret = mlx5_query_gid_ex(&ctx->ibv_ctx.context, attr->port_num,
					attr->grh.sgid_index, &sgid);
		if (ret)
			return ret == ENODATA ? EINVAL : ret;
		if (sgid.gid_type == IBV_GID_TYPE_ROCE_V2)
			av->rlid = htobe16(ah_udp_sport(attr->grh.flow_label));
		av->stat_rate_sl = (uint8_t)((ah_stat_rate(attr->static_rate) << 4) |
					     ((attr->sl & 0x7) << 1));
		ret = ah_resolve_mac(ctx, attr->port_num, &attr->grh.dgid,
				     sgid.ndev_ifindex, av->rmac);
		if (ret)
			return ret;
	} else {
		av->fl_mlid = attr->src_path_bits & 0x7f;
		av->rlid = htobe16(attr->dlid);
		av->stat_rate_sl = (uint8_t)((ah_stat_rate(attr->static_rate) << 4) |
					     (attr->sl & 0xf));
		grh = 1;
	}
	if (attr->is_global) {
		av->tclass = attr->grh.traffic_class;
		av->hop_limit = attr->grh.hop_limit;
		av->grh_gid_fl = htobe32((grh << 30) |
					 ((uint32_t)attr->grh.sgid_index << 20) |
					 (attr->grh.flow_label & GRH_FLOWLABEL_MASK));
		memcpy(av->rgid, attr->grh.dgid.raw, 16);
	}
	return 0;
}

struct ibv_ah *mlx5_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct mlx5_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ret = mlx5_av_fill(to_mctx(pd->context), attr, &ah->av);
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->is_global = attr->is_global;
	pthread_mutex_init(&ah->lock, NULL);
	return &ah->ibv_ah;
}

int mlx5_destroy_ah(struct ibv_ah *ah)
{
	struct mlx5_ah *mah = SMX_CONTAINER_OF(ah, struct mlx5_ah, ibv_ah);
	int ret;

	if (mah->qp_map) {
		ret = mlx5_genobj_destroy(to_mctx(ah->context),
					  MLX5_OBJ_TYPE_AV_QP_MAPPING,
					  mah->qp_map);
		if (ret)
			return ret;
	}
	pthread_mutex_destroy(&mah->lock);
	free(mah);
	return 0;
}

/*
 * mlx5dv_map_ah_to_qp(): an AV_QP_MAPPING general object from the AH's
 * address (SL, source GID index, remote GID) to @qp_num, created once per
 * AH and destroyed with it, as rdma-core 44 does. Global AHs only.
 */
SMX_EXPORT int mlx5dv_map_ah_to_qp(struct ibv_ah *ah, uint32_t qp_num)
{
	uint32_t in[DEVX_ST_SZ_DW(create_av_qp_mapping_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(general_obj_out_cmd_hdr)] = {};
	struct mlx5_context *ctx;
	struct mlx5_ah *mah;
	void *av;
	int ret = 0;

	if (!ah || !mlx5dv_is_supported(ah->context->device))
		return EOPNOTSUPP;
	ctx = to_mctx(ah->context);
	mah = SMX_CONTAINER_OF(ah, struct mlx5_ah, ibv_ah);
	if (!(DEVX_GET64(cmd_hca_cap, ctx->caps.gen, general_obj_types) &
	      (1ull << MLX5_OBJ_TYPE_AV_QP_MAPPING)) || !mah->is_global)
		return EOPNOTSUPP;
	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type,
		 MLX5_OBJ_TYPE_AV_QP_MAPPING);
	DEVX_SET(create_av_qp_mapping_in, in, mapping.qpn, qp_num);
	av = DEVX_ADDR_OF(create_av_qp_mapping_in, in,
			  mapping.remote_address_vector);
	DEVX_SET(ud_av, av, sl_or_eth_prio, mah->av.stat_rate_sl & 0xf);
	DEVX_SET(ud_av, av, src_addr_index,
		 (be32toh(mah->av.grh_gid_fl) >> 20) & 0xff);
	memcpy(DEVX_ADDR_OF(ud_av, av, rgid_or_rip), mah->av.rgid,
	       sizeof(mah->av.rgid));
	pthread_mutex_lock(&mah->lock);
	if (!mah->qp_map) {
		ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
		if (!ret)
			mah->qp_map = DEVX_GET(general_obj_out_cmd_hdr, out,
					       obj_id);
	}
	pthread_mutex_unlock(&mah->lock);
	return ret;
}
