/* SPDX-License-Identifier: MIT */
/* Firmware dispatcher, capabilities and port/vport queries. */
#include <errno.h>

#include "fw_test_util.h"

static void test_dispatch(struct smx_dev *d)
{
	MB(mbox_in) = { 0 };
	uint32_t big[64] = { 0 };
	MB(mbox_out) = { 0 };
	MB(query_hca_cap_in) = { 0 };

	/* Mailboxes that cannot carry a command at all. */
	CHECK_EQ(smx_dev_cmd(d, mbox_in, 8, mbox_out, sizeof(mbox_out)), -EINVAL);
	CHECK_EQ(smx_dev_cmd(d, mbox_in, 16, mbox_out, 8), -EINVAL);
	CHECK_EQ(smx_dev_cmd(d, NULL, 16, mbox_out, 16), -EINVAL);

	/* Unknown opcode. */
	DEVX_SET(mbox_in, mbox_in, opcode, 0x7ff);
	CHECK_EQ(t_cmd(d, mbox_in, sizeof(mbox_in), mbox_out, sizeof(mbox_out)),
		 MLX5_CMD_STAT_BAD_OP_ERR);
	CHECK(t_syndrome(mbox_out) != 0);

	/* NOP works. */
	DEVX_SET(mbox_in, mbox_in, opcode, MLX5_CMD_OP_NOP);
	CHECK_EQ(t_cmd(d, mbox_in, sizeof(mbox_in), mbox_out, sizeof(mbox_out)),
		 MLX5_CMD_STAT_OK);

	/* Lengths from the table. */
	DEVX_SET(query_hca_cap_in, query_hca_cap_in, opcode,
		 MLX5_CMD_OP_QUERY_HCA_CAP);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in), big,
		       sizeof(big)), MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
	DEVX_SET(mbox_in, mbox_in, opcode, MLX5_CMD_OP_CREATE_QP);
	CHECK_EQ(t_cmd(d, mbox_in, sizeof(mbox_in), mbox_out, sizeof(mbox_out)),
		 MLX5_CMD_STAT_BAD_INP_LEN_ERR);

	/* A uid that names no user context. */
	DEVX_SET(mbox_in, mbox_in, opcode, MLX5_CMD_OP_ALLOC_PD);
	DEVX_SET(mbox_in, mbox_in, uid, 0x777);
	CHECK_EQ(t_cmd(d, mbox_in, sizeof(mbox_in), mbox_out, sizeof(mbox_out)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
}

static void test_caps(struct smx_dev *d)
{
	const struct smx_config *cfg = smx_dev_config(d);
	MB(query_hca_cap_in) = { 0 };
	uint32_t *out = calloc(1, DEVX_ST_SZ_BYTES(query_hca_cap_out));
	void *cap = DEVX_ADDR_OF(query_hca_cap_out, out, capability);
	size_t olen = DEVX_ST_SZ_BYTES(query_hca_cap_out);
	unsigned int t;

	DEVX_SET(query_hca_cap_in, query_hca_cap_in, opcode,
		 MLX5_CMD_OP_QUERY_HCA_CAP);
	DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod,
		 MLX5_CAP_GENERAL << 1 | HCA_CAP_OPMOD_GET_CUR);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in), out, olen),
		 0);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, port_type), MLX5_CAP_PORT_TYPE_ETH);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, num_ports), 1);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, log_max_qp), cfg->log_max_qp);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, log_max_cq_sz), cfg->log_max_cq_sz);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, log_max_mkey), cfg->log_max_mkey);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, log_max_pd), cfg->log_max_pd);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, roce), 1);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, rc), 1);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, xrc), 1);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, cqe_version), 1);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, gid_table_size), cfg->gid_tbl_len);
	/* the power of two that holds max_sge data segments */
	CHECK(DEVX_GET(cmd_hca_cap, cap, max_wqe_sz_rq) >= 16 * cfg->max_sge &&
	      DEVX_GET(cmd_hca_cap, cap, max_wqe_sz_rq) < 32 * cfg->max_sge &&
	      !(DEVX_GET(cmd_hca_cap, cap, max_wqe_sz_rq) &
		(DEVX_GET(cmd_hca_cap, cap, max_wqe_sz_rq) - 1)));

	/* max mode answers too */
	DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod, MLX5_CAP_GENERAL << 1);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in), out, olen),
		 0);
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, log_max_qp), cfg->log_max_qp);

	DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod,
		 MLX5_CAP_ATOMIC << 1 | 1);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in), out, olen),
		 0);
	CHECK_EQ(DEVX_GET(atomic_caps, cap, atomic_operations), 3);

	DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod,
		 MLX5_CAP_DEV_MEM << 1 | 1);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in), out, olen),
		 0);
	CHECK_EQ(DEVX_GET(device_mem_cap, cap, memic), cfg->max_dm_size ? 1 : 0);
	CHECK_EQ(DEVX_GET64(device_mem_cap, cap, memic_bar_start_addr),
		 smx_dev_memic_base(d));

	/* Known but empty pages answer zeroes; ODP is zero (unsupported). */
	for (t = 1; t <= 0x20; t++) {
		unsigned int want = (t == 0xa || t == 0xe || (t > 0xf && t < 0x14) ||
				     (t > 0x15 && t < 0x1a) || (t > 0x1a && t < 0x20)) ?
				    MLX5_CMD_STAT_BAD_PARAM_ERR : 0;

		DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod, t << 1 | 1);
		CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in), out,
			       olen), want);
	}
	DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod, MLX5_CAP_ODP << 1);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in), out, olen),
		 0);
	/* ODP: every transport sends; UD has no RDMA; DC receives nothing. */
	CHECK_EQ(DEVX_GET(odp_cap, cap, rc_odp_caps.send), 1);
	CHECK_EQ(DEVX_GET(odp_cap, cap, rc_odp_caps.atomic), 1);
	CHECK_EQ(DEVX_GET(odp_cap, cap, ud_odp_caps.write), 0);
	CHECK_EQ(DEVX_GET(odp_cap, cap, ud_odp_caps.read), 0);
	CHECK_EQ(DEVX_GET(odp_cap, cap, uc_odp_caps.read), 0);
	CHECK_EQ(DEVX_GET(odp_cap, cap, dc_odp_caps.receive), 0);
	CHECK_EQ(DEVX_GET(odp_cap, cap, xrc_odp_caps.srq_receive), 1);

	/* Hostile: other function. */
	DEVX_SET(query_hca_cap_in, query_hca_cap_in, op_mod, 1);
	DEVX_SET(query_hca_cap_in, query_hca_cap_in, other_function, 1);
	CHECK_EQ(t_cmd(d, query_hca_cap_in, sizeof(query_hca_cap_in), out, olen),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* A failed command leaves nothing but status and syndrome. */
	CHECK_EQ(DEVX_GET(cmd_hca_cap, cap, log_max_qp), 0);
	free(out);
}

static void test_vport(struct smx_dev *d)
{
	const struct smx_config *cfg = smx_dev_config(d);
	MB(query_roce_address_in) = { 0 };
	MB(query_roce_address_out) = { 0 };
	MB(query_hca_vport_gid_in) = { 0 };
	MB(query_hca_vport_pkey_in) = { 0 };
	MB(query_vport_state_in) = { 0 };
	MB(query_vport_state_out) = { 0 };
	MB(query_nic_vport_context_in) = { 0 };
	MB(query_nic_vport_context_out) = { 0 };
	MB(query_hca_vport_context_in) = { 0 };
	MB(query_hca_vport_context_out) = { 0 };
	uint8_t *ra = DEVX_ADDR_OF(query_roce_address_out, query_roce_address_out,
				   roce_address);
	uint8_t *l3 = DEVX_ADDR_OF(roce_addr_layout, ra, source_l3_address);
	uint32_t gout[4 + 4 * 256] = { 0 };
	uint32_t pout[4 + 128] = { 0 };
	void *nic, *hca;

	DEVX_SET(query_roce_address_in, query_roce_address_in, opcode,
		 MLX5_CMD_OP_QUERY_ROCE_ADDRESS);
	CHECK_EQ(t_cmd(d, query_roce_address_in, sizeof(query_roce_address_in),
		       query_roce_address_out, sizeof(query_roce_address_out)), 0);
	CHECK_EQ(DEVX_GET(roce_addr_layout, ra, roce_version), 2);
	CHECK_EQ(DEVX_GET(roce_addr_layout, ra, roce_l3_type), 0);
	CHECK_EQ(l3[10], 0xff);
	CHECK_EQ(l3[12], cfg->ipv4[0]);
	CHECK_EQ(l3[15], cfg->ipv4[3]);
	CHECK_EQ(DEVX_GET(roce_addr_layout, ra, source_mac_47_32),
		 (uint32_t)cfg->mac[0] << 8 | cfg->mac[1]);
	DEVX_SET(query_roce_address_in, query_roce_address_in,
		 roce_address_index, 1);
	CHECK_EQ(t_cmd(d, query_roce_address_in, sizeof(query_roce_address_in),
		       query_roce_address_out, sizeof(query_roce_address_out)), 0);
	CHECK_EQ(DEVX_GET(roce_addr_layout, ra, roce_version), 0);
	DEVX_SET(query_roce_address_in, query_roce_address_in,
		 roce_address_index, cfg->gid_tbl_len);
	CHECK_EQ(t_cmd(d, query_roce_address_in, sizeof(query_roce_address_in),
		       query_roce_address_out, sizeof(query_roce_address_out)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);

	DEVX_SET(query_hca_vport_gid_in, query_hca_vport_gid_in, opcode,
		 MLX5_CMD_OP_QUERY_HCA_VPORT_GID);
	DEVX_SET(query_hca_vport_gid_in, query_hca_vport_gid_in, gid_index,
		 0xffff);
	CHECK_EQ(t_cmd(d, query_hca_vport_gid_in, sizeof(query_hca_vport_gid_in),
		       gout, 16 + 16 * cfg->gid_tbl_len), 0);
	CHECK_EQ(DEVX_GET(query_hca_vport_gid_out, gout, gids_num),
		 cfg->gid_tbl_len);
	CHECK_EQ(((uint8_t *)gout)[16 + 10], 0xff);
	CHECK_EQ(t_cmd(d, query_hca_vport_gid_in, sizeof(query_hca_vport_gid_in),
		       gout, 32), MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
	DEVX_SET(query_hca_vport_gid_in, query_hca_vport_gid_in, port_num, 2);
	CHECK_EQ(t_cmd(d, query_hca_vport_gid_in, sizeof(query_hca_vport_gid_in),
		       gout, sizeof(gout)), MLX5_CMD_STAT_BAD_PARAM_ERR);

	DEVX_SET(query_hca_vport_pkey_in, query_hca_vport_pkey_in, opcode,
		 MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY);
	CHECK_EQ(t_cmd(d, query_hca_vport_pkey_in,
		       sizeof(query_hca_vport_pkey_in), pout, sizeof(pout)), 0);
	CHECK_EQ(DEVX_GET(pkey, (uint8_t *)pout + 16, pkey), 0xffff);
	DEVX_SET(query_hca_vport_pkey_in, query_hca_vport_pkey_in, pkey_index, 5);
	CHECK_EQ(t_cmd(d, query_hca_vport_pkey_in,
		       sizeof(query_hca_vport_pkey_in), pout, sizeof(pout)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);

	DEVX_SET(query_vport_state_in, query_vport_state_in, opcode,
		 MLX5_CMD_OP_QUERY_VPORT_STATE);
	CHECK_EQ(t_cmd(d, query_vport_state_in, sizeof(query_vport_state_in),
		       query_vport_state_out, sizeof(query_vport_state_out)), 0);
	CHECK_EQ(DEVX_GET(query_vport_state_out, query_vport_state_out, state),
		 MLX5_VPORT_STATE_UP);
	DEVX_SET(query_vport_state_in, query_vport_state_in, op_mod, 1);
	CHECK_EQ(t_cmd(d, query_vport_state_in, sizeof(query_vport_state_in),
		       query_vport_state_out, sizeof(query_vport_state_out)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);

	DEVX_SET(query_nic_vport_context_in, query_nic_vport_context_in, opcode,
		 MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	CHECK_EQ(t_cmd(d, query_nic_vport_context_in,
		       sizeof(query_nic_vport_context_in),
		       query_nic_vport_context_out,
		       sizeof(query_nic_vport_context_out)), 0);
	nic = DEVX_ADDR_OF(query_nic_vport_context_out,
			   query_nic_vport_context_out, nic_vport_context);
	CHECK_EQ(DEVX_GET(nic_vport_context, nic, roce_en), 1);
	CHECK(DEVX_GET(nic_vport_context, nic, mtu) >= 4096);
	CHECK_EQ(DEVX_GET(mac_address_layout,
			  DEVX_ADDR_OF(nic_vport_context, nic, permanent_address),
			  mac_addr_31_0) & 0xff, cfg->mac[5]);

	DEVX_SET(query_hca_vport_context_in, query_hca_vport_context_in, opcode,
		 MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT);
	CHECK_EQ(t_cmd(d, query_hca_vport_context_in,
		       sizeof(query_hca_vport_context_in),
		       query_hca_vport_context_out,
		       sizeof(query_hca_vport_context_out)), 0);
	hca = DEVX_ADDR_OF(query_hca_vport_context_out,
			   query_hca_vport_context_out, hca_vport_context);
	CHECK_EQ(DEVX_GET(hca_vport_context, hca, port_state),
		 MLX5_PORT_STATE_ACTIVE);
	CHECK_EQ(DEVX_GET64(hca_vport_context, hca, node_guid), cfg->node_guid);
	DEVX_SET(query_hca_vport_context_in, query_hca_vport_context_in,
		 other_vport, 1);
	CHECK_EQ(t_cmd(d, query_hca_vport_context_in,
		       sizeof(query_hca_vport_context_in),
		       query_hca_vport_context_out,
		       sizeof(query_hca_vport_context_out)),
		 MLX5_CMD_STAT_BAD_PARAM_ERR);
}

int main(void)
{
	struct smx_dev *d = t_open();

	CHECK(d != NULL);
	if (!d)
		return smx_test_done();
	CHECK(smx_dev_open() == d);	/* one instance, refcounted */
	smx_dev_close(d);
	test_dispatch(d);
	test_caps(d);
	test_vport(d);
	CHECK(smx_dev_bar(d, 0, 4096) != NULL);
	CHECK(smx_dev_bar(d, smx_dev_memic_base(d), 64) != NULL);
	CHECK(smx_dev_bar(d, ~0ull - 10, 64) == NULL);
	smx_dev_close(d);
	return smx_test_done();
}
