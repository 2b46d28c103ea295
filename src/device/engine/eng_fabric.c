/* SPDX-License-Identifier: MIT */
/*
 * The fabric as the engine sees it: a requester hands one message (struct
 * eng_pkt) to the device that owns the destination and gets the response
 * back (ACK, NAK with its reason, RNR NAK with the responder's timer, or
 * nothing). Today the only destination is this device (in-process delivery:
 * the responder runs in the requester's thread, under the same locks, and
 * moves payload straight between the two sides' validated memory). A shared-
 * memory fabric between processes replaces eng_fabric_xmit() and carries
 * payload in the packet instead; nothing else in the engine changes.
 */
#include <string.h>

#include "device/engine/eng_loc.h"

bool eng_fabric_gid_local(struct eng *e, const uint8_t gid[16])
{
	const struct smx_config *cfg = fw_config(e->fw);
	uint8_t mine[16];
	uint32_t i;

	for (i = 0; i < cfg->gid_tbl_len; i++)
		if (fw_gid(e->fw, i, mine) && !memcmp(mine, gid, 16))
			return true;
	return false;
}

void eng_fabric_xmit(struct eng *e, const struct eng_pkt *p,
		     struct eng_resp *r)
{
	memset(r, 0, sizeof(*r));
	eng_resp_rx(e, p, r);
}
