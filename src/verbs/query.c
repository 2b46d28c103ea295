/* SPDX-License-Identifier: MIT */
/*
 * Device, port, GID and P_Key queries. The provider answers them from PRM
 * queries (QUERY_HCA_CAP, vport contexts, QUERY_ROCE_ADDRESS); this file keeps
 * the libibverbs contracts: sizes, empty GID slots, negative-errno tables.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <string.h>

#include "util/symver.h"
#include "verbs/driver.h"
#include "verbs/verbs_priv.h"

#undef ibv_query_port

SMX_EXPORT int ibv_query_device(struct ibv_context *context,
				struct ibv_device_attr *device_attr)
{
	struct ibv_device_attr_ex ex;
	int ret;

	if (!context || !device_attr)
		return EINVAL;
	memset(&ex, 0, sizeof(ex));
	ret = verbs_ops(context)->query_device_ex(context, NULL, &ex, sizeof(ex));
	if (ret)
		return ret;
	*device_attr = ex.orig_attr;
	return 0;
}

/* The exported symbol takes the pre-1.x layout; verbs.h's inline wrapper
 * prefers verbs_context::query_port with the caller's size. */
struct _compat_ibv_port_attr {
	enum ibv_port_state state;
	enum ibv_mtu max_mtu;
	enum ibv_mtu active_mtu;
	int gid_tbl_len;
	uint32_t port_cap_flags;
	uint32_t max_msg_sz;
	uint32_t bad_pkey_cntr;
	uint32_t qkey_viol_cntr;
	uint16_t pkey_tbl_len;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t lmc;
	uint8_t max_vl_num;
	uint8_t sm_sl;
	uint8_t subnet_timeout;
	uint8_t init_type_reply;
	uint8_t active_width;
	uint8_t active_speed;
	uint8_t phys_state;
	uint8_t link_layer;
	uint8_t flags;
};

SMX_EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port_num,
			      struct _compat_ibv_port_attr *port_attr)
{
	if (!context)
		return EINVAL;
	return verbs_get_ctx(context)->query_port(
		context, port_num, (struct ibv_port_attr *)port_attr, sizeof(*port_attr));
}

static int query_gid_entry(struct ibv_context *context, uint32_t port_num,
			   uint32_t index, struct ibv_gid_entry *entry)
{
	if (!context || !entry)
		return EINVAL;
	if (!verbs_ops(context)->query_gid_ex)
		return EOPNOTSUPP;
	memset(entry, 0, sizeof(*entry));
	return verbs_ops(context)->query_gid_ex(context, port_num, index, entry);
}

SMX_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num,
			     int index, union ibv_gid *gid)
{
	struct ibv_gid_entry entry;
	int ret;

	if (index < 0 || !gid) {
		errno = EINVAL;
		return -1;
	}
	ret = query_gid_entry(context, port_num, (uint32_t)index, &entry);
	if (ret == ENODATA) {
		memset(gid, 0, sizeof(*gid)); /* empty slot: the zero GID */
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	*gid = entry.gid;
	return 0;
}

SMX_EXPORT int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
				 uint32_t gid_index, struct ibv_gid_entry *entry,
				 uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry full;
	int ret;

	if (flags || !entry || entry_size < offsetof(struct ibv_gid_entry, ndev_ifindex))
		return EINVAL;
	ret = query_gid_entry(context, port_num, gid_index, &full);
	if (ret)
		return ret;
	memset(entry, 0, entry_size);
	memcpy(entry, &full, entry_size < sizeof(full) ? entry_size : sizeof(full));
	return 0;
}

SMX_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
					struct ibv_gid_entry *entries,
					size_t max_entries, uint32_t flags,
					size_t entry_size)
{
	struct ibv_device_attr_ex dattr;
	struct ibv_port_attr pattr;
	size_t n = 0;
	uint32_t port, i;
	int ret;

	if (!context || flags || !entries ||
	    entry_size < offsetof(struct ibv_gid_entry, ndev_ifindex))
		return -EINVAL;
	if (!verbs_ops(context)->query_gid_ex)
		return -EOPNOTSUPP;
	memset(&dattr, 0, sizeof(dattr));
	ret = verbs_ops(context)->query_device_ex(context, NULL, &dattr, sizeof(dattr));
	if (ret)
		return -ret;
	for (port = 1; port <= dattr.orig_attr.phys_port_cnt; port++) {
		memset(&pattr, 0, sizeof(pattr));
		ret = verbs_ops(context)->query_port(context, (uint8_t)port, &pattr);
		if (ret)
			return -ret;
		for (i = 0; i < (uint32_t)pattr.gid_tbl_len; i++) {
			struct ibv_gid_entry e;

			ret = query_gid_entry(context, port, i, &e);
			if (ret == ENODATA)
				continue;
			if (ret)
				return -ret;
			if (n >= max_entries)
				return -EINVAL; /* the caller's table is too small */
			memset((uint8_t *)entries + n * entry_size, 0, entry_size);
			memcpy((uint8_t *)entries + n * entry_size, &e,
			       entry_size < sizeof(e) ? entry_size : sizeof(e));
			n++;
		}
	}
	return (ssize_t)n;
}

SMX_EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
				  unsigned int index, enum ibv_gid_type_sysfs *type)
{
	struct ibv_gid_entry entry;
	int ret;

	ret = query_gid_entry(context, port_num, index, &entry);
	if (ret == ENODATA) {
		/* Empty slots still have a type in sysfs; report IB/RoCEv1. */
		*type = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	*type = entry.gid_type == IBV_GID_TYPE_ROCE_V2 ? IBV_GID_TYPE_SYSFS_ROCE_V2
						       : IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

SMX_EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num,
			      int index, __be16 *pkey)
{
	int ret;

	if (!context || !pkey || index < 0) {
		errno = EINVAL;
		return -1;
	}
	if (!verbs_ops(context)->query_pkey) {
		errno = EOPNOTSUPP;
		return -1;
	}
	ret = verbs_ops(context)->query_pkey(context, port_num, index, pkey);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

SMX_EXPORT int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
				  __be16 pkey)
{
	__be16 pk;
	int i;

	for (i = 0; ibv_query_pkey(context, port_num, i, &pk) == 0; i++)
		if (pk == pkey)
			return i;
	return -1;
}

/* Index of @gid of @type in the port's table, or -1 with errno. */
static int find_gid_index(struct ibv_context *context, uint8_t port_num,
			  const union ibv_gid *gid, enum ibv_gid_type_sysfs type)
{
	enum ibv_gid_type_sysfs t;
	union ibv_gid g;
	int i;

	for (i = 0; ibv_query_gid(context, port_num, i, &g) == 0; i++) {
		if (memcmp(&g, gid, sizeof(g)))
			continue;
		if (ibv_query_gid_type(context, port_num, (unsigned int)i, &t) == 0 &&
		    t == type)
			return i;
	}
	errno = ENOENT;
	return -1;
}

static void map_ipv4_to_gid(uint32_t addr_be, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &addr_be, 4);
}

SMX_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
				   struct ibv_wc *wc, struct ibv_grh *grh,
				   struct ibv_ah_attr *ah_attr)
{
	uint32_t flow;
	int idx;

	if (!context || !wc || !ah_attr) {
		errno = EINVAL;
		return -1;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	if (!grh) {
		errno = EINVAL;
		return -1;
	}
	ah_attr->is_global = 1;
	flow = be32toh(grh->version_tclass_flow);
	if ((flow >> 28) == 6) {
		ah_attr->grh.dgid = grh->sgid;
		ah_attr->grh.flow_label = flow & 0xfffff;
		ah_attr->grh.traffic_class = (flow >> 20) & 0xff;
		ah_attr->grh.hop_limit = 0xff;
		idx = find_gid_index(context, port_num, &grh->dgid,
				     IBV_GID_TYPE_SYSFS_ROCE_V2);
		if (idx < 0)
			idx = find_gid_index(context, port_num, &grh->dgid,
					     IBV_GID_TYPE_SYSFS_IB_ROCE_V1);
	} else {
		/* RoCEv2 over IPv4: the last 20 of the 40 bytes are the IP header. */
		const struct iphdr *ip4 = (const struct iphdr *)((const uint8_t *)grh + 20);
		union ibv_gid sgid;

		if (ip4->version != 4) {
			errno = EINVAL;
			return -1;
		}
		map_ipv4_to_gid(ip4->daddr, &sgid);
		map_ipv4_to_gid(ip4->saddr, &ah_attr->grh.dgid);
		ah_attr->grh.hop_limit = ip4->ttl;
		ah_attr->grh.traffic_class = ip4->tos;
		idx = find_gid_index(context, port_num, &sgid, IBV_GID_TYPE_SYSFS_ROCE_V2);
	}
	if (idx < 0)
		return -1;
	ah_attr->grh.sgid_index = (uint8_t)idx;
	return 0;
}

SMX_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
						struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (!pd)
		return SMX_FAIL_NULL(EINVAL);
	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}
