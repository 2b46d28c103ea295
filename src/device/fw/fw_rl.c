/* SPDX-License-Identifier: MIT */
/*
 * The packet-pacing rate table: SET_PP_RATE_LIMIT writes one entry. Index 0
 * means "not paced" and cannot be written; a zero rate clears an entry.
 * Sharing of entries between users is the driver's business (the kernel's
 * rate-limit table, our provider's pp.c), not the device's.
 */
#include "device/fw/fw_loc.h"

int fw_rl_set(struct fw_cmd *c)
{
	uint32_t idx = IN_GET(set_pp_rate_limit_in, rate_limit_index);
	uint32_t rate = IN_GET(set_pp_rate_limit_in, ctx.rate_limit);
	struct fw_rl_entry *e;

	if (!idx || idx > FW_RL_TABLE_SIZE)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "rate_limit_index %u outside [1, %u]", idx,
			       FW_RL_TABLE_SIZE);
	if (rate && (rate < FW_RL_MIN_KBPS || rate > FW_RL_MAX_KBPS))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "rate_limit %u kbps outside [%u, %u]", rate,
			       FW_RL_MIN_KBPS, FW_RL_MAX_KBPS);
	e = &c->fw->rl[idx];
	e->rate_kbps = rate;
	e->burst = rate ? IN_GET(set_pp_rate_limit_in, ctx.burst_upper_bound) : 0;
	e->typical_size = rate ? IN_GET(set_pp_rate_limit_in,
					ctx.typical_packet_size) : 0;
	return 0;
}
