/* SPDX-License-Identifier: MIT */
/*
 * port_query: port 1 of mlx5_0 as programs see it, for tests/net/port_check.py
 * (which compares it with the network interface the port is bound to).
 * Prints one block, then another each time a line arrives on standard
 * input, until it ends; one process and one open device throughout, so
 * the blocks show the device following the interface.
 *
 *   port state=S phys_state=P max_mtu=M active_mtu=A gid_tbl_len=N
 *   node_guid XXXXXXXXXXXXXXXX
 *   mac xx:xx:xx:xx:xx:xx          (DEVX QUERY_NIC_VPORT_CONTEXT)
 *   roce_mac xx:xx:xx:xx:xx:xx     (DEVX QUERY_ROCE_ADDRESS, entry 0)
 *   gid I GID v1|v2 IFINDEX         (every populated entry, ibv_query_gid_ex)
 *   error WHAT                      (a disagreement between the ways of
 *                                    asking, see below)
 *   end
 *
 * The GIDs are asked for before the port in each block: what the port
 * query reads of the interface must not be what keeps the table current.
 * Within a block it checks that ibv_query_gid() and ibv_query_gid_ex()
 * agree, that the entries are those of
 * ibv_query_gid_table(), and, run by `softmlx5 run` on a bound port
 * (SOFTMLX5_DEVNODE_NETDEV set), that the sysfs view agrees: gids/<i>,
 * gid_attrs/types/<i> and gid_attrs/ndevs/<i> for every index, zeros and
 * EINVAL for empty ones. Exit status 0, or 1 when the device cannot be
 * opened.
 */
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"	/* mlx5_ifc layouts + DEVX_SET/DEVX_GET */

static void gid_str(const uint8_t *r, char *out)
{
	int i;

	for (i = 0; i < 16; i += 2)
		out += sprintf(out, "%02x%02x%s", r[i], r[i + 1],
			       i < 14 ? ":" : "");
}

/* The sysfs file @rel of the port, read whole into @buf; -errno on failure. */
static int sys_read(const char *rel, int i, char *buf, size_t len)
{
	char path[128];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/mlx5_0/ports/1/%s/%d", rel, i);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

static void check_sysfs(int i, const struct ibv_gid_entry *e, bool full)
{
	char want[64], got[64], name[IF_NAMESIZE + 2];
	static const uint8_t zero[16];
	int r;

	gid_str(full ? e->gid.raw : zero, want);
	strcat(want, "\n");
	if (sys_read("gids", i, got, sizeof(got)) || strcmp(got, want))
		printf("error sysfs gids/%d: '%s'\n", i, strtok(got, "\n"));
	r = sys_read("gid_attrs/types", i, got, sizeof(got));
	if (!full ? r != -EINVAL :
	    r || strcmp(got, e->gid_type == IBV_GID_TYPE_ROCE_V1 ?
			"IB/RoCE v1\n" : "RoCE v2\n"))
		printf("error sysfs gid_attrs/types/%d: %d '%s'\n", i, r,
		       r ? "" : strtok(got, "\n"));
	r = sys_read("gid_attrs/ndevs", i, got, sizeof(got));
	if (full && if_indextoname(e->ndev_ifindex, name))
		strcat(name, "\n");
	if (!full ? r != -EINVAL : r || strcmp(got, name))
		printf("error sysfs gid_attrs/ndevs/%d: %d '%s'\n", i, r,
		       r ? "" : strtok(got, "\n"));
}

/*
 * The port's MAC as the firmware reports it to a DEVX client: in the NIC
 * vport context (@roce false) or in the RoCE address table's entry 0, the
 * source MAC of RoCE frames. Both must be the interface's.
 */
static int query_mac(struct ibv_context *ctx, bool roce, uint8_t mac[6])
{
	/* Both commands' input is 16 bytes; the vport context's output is
	 * the larger. */
	uint32_t in[DEVX_ST_SZ_DW(query_roce_address_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_nic_vport_context_out)] = {};
	void *ra = DEVX_ADDR_OF(query_roce_address_out, out, roce_address);
	void *pa = DEVX_ADDR_OF(query_nic_vport_context_out, out,
				nic_vport_context.permanent_address);
	uint32_t hi, lo;

	if (roce) {
		DEVX_SET(query_roce_address_in, in, opcode,
			 MLX5_CMD_OP_QUERY_ROCE_ADDRESS);
		DEVX_SET(query_roce_address_in, in, vhca_port_num, 1);
	} else {
		DEVX_SET(query_nic_vport_context_in, in, opcode,
			 MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	}
	if (mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)))
		return -1;
	hi = roce ? DEVX_GET(roce_addr_layout, ra, source_mac_47_32) :
		    DEVX_GET(mac_address_layout, pa, mac_addr_47_32);
	lo = roce ? DEVX_GET(roce_addr_layout, ra, source_mac_31_0) :
		    DEVX_GET(mac_address_layout, pa, mac_addr_31_0);
	mac[0] = (uint8_t)(hi >> 8);
	mac[1] = (uint8_t)hi;
	mac[2] = (uint8_t)(lo >> 24);
	mac[3] = (uint8_t)(lo >> 16);
	mac[4] = (uint8_t)(lo >> 8);
	mac[5] = (uint8_t)lo;
	return 0;
}

/* Lines of the block printed after the port's, gathered first. */
static char later[64 * 1024];
static size_t later_len;

#define LATER(...)                                                             \
	(later_len += (size_t)snprintf(later + later_len,                      \
				       sizeof(later) - later_len, __VA_ARGS__))

static void block(struct ibv_context *ctx, bool sysfs)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_gid_entry e, mine[256], table[256];
	union ibv_gid g;
	char s[64];
	uint8_t mac[6];
	ssize_t n;
	int i, k = 0, r;

	later_len = 0;
	for (i = 0; i < 256; i++) {
		r = ibv_query_gid_ex(ctx, 1, (uint32_t)i, &e, 0);
		if (r == EINVAL)
			break;		/* past the table */
		if (r && r != ENODATA) {
			LATER("error ibv_query_gid_ex %d: %d\n", i, r);
			continue;
		}
		if (sysfs)
			check_sysfs(i, &e, !r);
		if (r)
			continue;
		gid_str(e.gid.raw, s);
		LATER("gid %d %s %s %u\n", i, s,
		       e.gid_type == IBV_GID_TYPE_ROCE_V1 ? "v1" :
		       e.gid_type == IBV_GID_TYPE_ROCE_V2 ? "v2" : "ib",
		       e.ndev_ifindex);
		if (ibv_query_gid(ctx, 1, i, &g) || memcmp(&g, &e.gid, 16))
			LATER("error ibv_query_gid %d\n", i);
		mine[k++] = e;
	}
	/* After the loop: it asks for the port first. */
	n = ibv_query_gid_table(ctx, table, 256, 0);
	if (k != n)
		LATER("error ibv_query_gid_table: %zd entries, %d GIDs\n", n, k);
	for (i = 0; i < k && i < n; i++)
		if (table[i].gid_index != mine[i].gid_index ||
		    memcmp(&table[i].gid, &mine[i].gid, 16) ||
		    table[i].gid_type != mine[i].gid_type)
			LATER("error ibv_query_gid_table entry %d\n", i);
	if (ibv_query_device(ctx, &da) || ibv_query_port(ctx, 1, &pa)) {
		printf("error query device or port\nend\n");
		return;
	}
	printf("port state=%d phys_state=%d max_mtu=%d active_mtu=%d "
	       "gid_tbl_len=%d\n", pa.state, pa.phys_state,
	       128 << pa.max_mtu, 128 << pa.active_mtu, pa.gid_tbl_len);
	printf("node_guid %016llx\n", (unsigned long long)be64toh(da.node_guid));
	for (r = 0; r < 2; r++) {
		if (query_mac(ctx, r, mac))
			printf("error %s\n", r ? "QUERY_ROCE_ADDRESS" :
			       "QUERY_NIC_VPORT_CONTEXT");
		else
			printf("%s %02x:%02x:%02x:%02x:%02x:%02x\n",
			       r ? "roce_mac" : "mac", mac[0], mac[1], mac[2],
			       mac[3], mac[4], mac[5]);
	}
	fputs(later, stdout);
	printf("end\n");
	fflush(stdout);
}

int main(void)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	const char *nd = getenv("SOFTMLX5_DEVNODE_NETDEV");
	char line[64];

	if (list && list[0])
		ctx = mlx5dv_open_device(list[0], &attr);
	if (!ctx) {
		fprintf(stderr, "port_query: cannot open the device\n");
		return 1;
	}
	do
		block(ctx, nd && *nd);
	while (fgets(line, sizeof(line), stdin));
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
