/* SPDX-License-Identifier: MIT */
/*
 * What `softmlx5 status` shows of the firmware's objects: a walk over the
 * tables, read only, under fw->lock (the caller's). The engine adds its
 * live state (eng_status.c) and writes the snapshot.
 */
#include "device/fw/fw_loc.h"

void fw_status_walk(struct fw *fw, const struct fw_status_cb *cb, void *arg)
{
	const struct fw_table *counted[] = {
		&fw->pd, &fw->uar, &fw->td, &fw->xrcd, &fw->uctx, &fw->umem,
		&fw->eq, &fw->psv, &fw->genobj, &fw->tis, &fw->sq, &fw->rq,
		&fw->rqt, &fw->tir, &fw->ft, &fw->fg, &fw->fc, &fw->mh, &fw->pr,
	};
	uint32_t i;

	for (i = 0; cb->qp && i < fw->qp.cap; i++)
		if (fw->qp.slot[i])
			cb->qp(arg, fw->qp.slot[i]);
	for (i = 0; cb->cq && i < fw->cq.cap; i++)
		if (fw->cq.slot[i])
			cb->cq(arg, fw->cq.slot[i]);
	for (i = 0; cb->srq && i < fw->srq.cap; i++)
		if (fw->srq.slot[i])
			cb->srq(arg, fw->srq.slot[i]);
	for (i = 0; cb->mkey && i < fw->mkey.cap; i++)
		if (fw->mkey.slot[i])
			cb->mkey(arg, fw->mkey.slot[i]);
	for (i = 0; cb->genobj && i < fw->genobj.cap; i++) {
		const struct fw_genobj *g = fw->genobj.slot[i];

		if (g)
			cb->genobj(arg, g->obj.id, g->type,
				   fw_genobj_type_name(g->type));
	}
	for (i = 0; cb->count && i < sizeof(counted) / sizeof(counted[0]); i++)
		cb->count(arg, counted[i]->name, counted[i]->count);
}
