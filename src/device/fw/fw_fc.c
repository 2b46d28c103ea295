/* SPDX-License-Identifier: MIT */
/*
 * Flow counters: packet and byte counts of the flow table entries that
 * list them (action COUNT, fw_flow.c). One counter per ALLOC_FLOW_COUNTER
 * (bulk allocation is not offered: cap flow_counter_bulk_alloc 0);
 * QUERY_FLOW_COUNTER reads one or num_of_counters consecutive counters into
 * the output mailbox, optionally clearing them; dumping to memory is not
 * offered (cap flow_counters_dump 0). A counter still listed by an entry
 * cannot be freed.
 */
#include <stdlib.h>

#include "device/fw/fw_loc.h"

int fw_fc_alloc(struct fw_cmd *c)
{
	struct fw_fc *fc;

	if (IN_GET(alloc_flow_counter_in, flow_counter_bulk))
		return FW_FAIL(c, BAD_PARAM_ERR, "ALLOC_FLOW_COUNTER: "
			       "flow_counter_bulk 0x%x: bulk allocation is not "
			       "supported (cap flow_counter_bulk_alloc 0)",
			       IN_GET(alloc_flow_counter_in, flow_counter_bulk));
	fc = calloc(1, sizeof(*fc));
	if (!fc)
		return FW_FAIL(c, NO_RES_ERR, "flow counter: out of memory");
	if (fw_table_add(&c->fw->fc, &fc->obj)) {
		free(fc);
		return FW_FAIL(c, NO_RES_ERR, "flow counter: all %u numbers are "
			       "in use", c->fw->fc.limit);
	}
	if (fw_obj_own(c, &fc->obj, "flow counter")) {
		fw_table_del(&c->fw->fc, fc->obj.id);
		free(fc);
		return -1;
	}
	OUT_SET(alloc_flow_counter_out, flow_counter_id, fc->obj.id);
	return 0;
}

int fw_fc_dealloc(struct fw_cmd *c)
{
	struct fw_fc *fc = FW_GET(c, fc, IN_GET(dealloc_flow_counter_in,
					       flow_counter_id),
				  "DEALLOC_FLOW_COUNTER");

	if (!fc)
		return -1;
	if (fc->obj.refs)
		return FW_FAIL(c, RES_BUSY, "flow counter 0x%x is still listed by "
			       "%u flow table entries", fc->obj.id,
			       fc->obj.refs);
	fw_table_del(&c->fw->fc, fc->obj.id);
	fw_obj_disown(c->fw, &fc->obj);
	free(fc);
	return 0;
}

int fw_fc_query(struct fw_cmd *c)
{
	uint32_t id = IN_GET(query_flow_counter_in, flow_counter_id);
	uint32_t n = IN_GET(query_flow_counter_in, num_of_counters);
	size_t stat_off = DEVX_BYTE_OFF(query_flow_counter_out, flow_statistics);
	size_t stat_sz = DEVX_ST_SZ_BYTES(traffic_counter);
	uint32_t i;

	if (IN_GET(query_flow_counter_in, dump_to_memory))
		return FW_FAIL(c, BAD_PARAM_ERR, "QUERY_FLOW_COUNTER: "
			       "dump_to_memory is not supported (cap "
			       "flow_counters_dump 0)");
	if (!n)
		n = 1;
	if ((c->outlen - stat_off) / stat_sz < n)
		return FW_FAIL(c, BAD_OUTP_LEN_ERR, "QUERY_FLOW_COUNTER: %u "
			       "counters do not fit the %zu-byte output mailbox",
			       n, c->outlen);
	if (id > UINT32_MAX - (n - 1))
		return FW_FAIL(c, BAD_PARAM_ERR, "QUERY_FLOW_COUNTER: counters "
			       "0x%x + %u wrap around", id, n);
	/* All or nothing: every counter is checked before one is cleared. */
	for (i = 0; i < n; i++)
		if (!FW_GET(c, fc, id + i, "QUERY_FLOW_COUNTER"))
			return -1;
	for (i = 0; i < n; i++) {
		struct fw_fc *fc = fw_table_get(&c->fw->fc, id + i);
		uint8_t *st = (uint8_t *)c->out + stat_off + i * stat_sz;

		DEVX_SET64(traffic_counter, st, packets, fc->packets);
		DEVX_SET64(traffic_counter, st, octets, fc->octets);
		if (IN_GET(query_flow_counter_in, clear))
			fc->packets = fc->octets = 0;
	}
	return 0;
}
