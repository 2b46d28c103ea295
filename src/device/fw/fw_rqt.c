/* SPDX-License-Identifier: MIT */
/*
 * RQ table (RQT): the RQs an indirect TIR spreads received frames over
 * (RSS). rqt_max_size is the room the table is created with (1 ..
 * 2^log_max_rqt_size), rqt_actual_size the RQs in it now; the RQ numbers
 * follow the context, one 32-bit entry each, and the mailbox must hold all
 * of them. An RQ may appear more than once. Every RQ is referenced while
 * it is in the table (DESTROY_RQ is refused), as is the table while an
 * indirect TIR names it. MODIFY_RQT replaces the list (bitmask rqn_list)
 * within the table's max size.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

/* The rqtc at @rqtc with its list, @avail bytes of mailbox from it; fills
 * @rq (rqt_actual_size entries) and takes a reference on each, all or
 * none. */
static int rqt_parse_list(struct fw_cmd *c, const uint8_t *rqtc, size_t avail,
			  uint32_t max, struct fw_rq **rq, uint32_t *nout)
{
	uint32_t n = DEVX_GET(rqtc, rqtc, rqt_actual_size), i;
	size_t need = DEVX_ST_SZ_BYTES(rqtc) + (size_t)n * 4;

	if (!n || n > max)
		return FW_FAIL(c, BAD_PARAM_ERR, "rqt: rqt_actual_size %u is not "
			       "1..rqt_max_size (%u)", n, max);
	if (avail < need)
		return FW_FAIL(c, BAD_INP_LEN_ERR, "rqt: %u RQ numbers need %zu "
			       "bytes of context, the mailbox has %zu", n, need,
			       avail);
	if (DEVX_GET(rqtc, rqtc, list_q_type) || DEVX_GET(rqtc, rqtc, rq_vhca_id_format))
		return FW_FAIL(c, BAD_PARAM_ERR, "rqt: list_q_type %u / "
			       "rq_vhca_id_format %u: only lists of RQ numbers",
			       DEVX_GET(rqtc, rqtc, list_q_type),
			       DEVX_GET(rqtc, rqtc, rq_vhca_id_format));
	for (i = 0; i < n; i++) {
		const uint8_t *e = rqtc + DEVX_ST_SZ_BYTES(rqtc) + (size_t)i * 4;

		rq[i] = FW_REF(c, rq, DEVX_GET(rq_num, e, rq_num), "rqt rq_num");
		if (!rq[i])
			return -1;
	}
	for (i = 0; i < n; i++)
		fw_ref(&rq[i]->obj);
	*nout = n;
	return 0;
}

static void rqt_release_list(struct fw_rqt *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		fw_unref(&t->rq[i]->obj);
	t->n = 0;
}

int fw_rqt_create(struct fw_cmd *c)
{
	const uint8_t *ctx = IN_ADDR(create_rqt_in, rqt_context);
	uint32_t max = DEVX_GET(rqtc, ctx, rqt_max_size);
	uint32_t cap = 1u << FW_LOG_MAX_RQT_SIZE;
	struct fw_rqt *t;

	if (!max || max > cap)
		return FW_FAIL(c, BAD_PARAM_ERR, "rqt: rqt_max_size %u is not "
			       "1..%u (log_max_rqt_size)", max, cap);
	t = calloc(1, sizeof(*t));
	if (t)
		t->rq = calloc(max, sizeof(*t->rq));
	if (!t || !t->rq) {
		free(t);
		return FW_FAIL(c, NO_RES_ERR, "rqt: out of memory");
	}
	t->max = max;
	if (rqt_parse_list(c, ctx, c->inlen - (size_t)(ctx - (const uint8_t *)c->in),
			   max, t->rq, &t->n))
		goto fail;
	if (fw_table_add(&c->fw->rqt, &t->obj)) {
		FW_FAIL(c, NO_RES_ERR, "rqt: all %u numbers are in use",
			c->fw->rqt.limit);
		goto fail_list;
	}
	if (fw_obj_own(c, &t->obj, "rqt")) {
		fw_table_del(&c->fw->rqt, t->obj.id);
		goto fail_list;
	}
	OUT_SET(create_rqt_out, rqtn, t->obj.id);
	return 0;
fail_list:
	rqt_release_list(t);
fail:
	free(t->rq);
	free(t);
	return -1;
}

int fw_rqt_modify(struct fw_cmd *c)
{
	struct fw_rqt *t = FW_GET(c, rqt, IN_GET(modify_rqt_in, rqtn), "MODIFY_RQT");
	const uint8_t *ctx = IN_ADDR(modify_rqt_in, rqt_context);
	struct fw_rq **rq;
	uint32_t n;

	if (!t)
		return -1;
	if (!IN_GET(modify_rqt_in, rqn_list))
		return 0;	/* nothing selected to change */
	rq = calloc(t->max, sizeof(*rq));
	if (!rq)
		return FW_FAIL(c, NO_RES_ERR, "rqt: out of memory");
	if (rqt_parse_list(c, ctx, c->inlen - (size_t)(ctx - (const uint8_t *)c->in),
			   t->max, rq, &n)) {
		free(rq);
		return -1;
	}
	/* the engine reads the list under fw->lock: swapped as one */
	rqt_release_list(t);
	free(t->rq);
	t->rq = rq;
	t->n = n;
	return 0;
}

int fw_rqt_query(struct fw_cmd *c)
{
	struct fw_rqt *t = FW_GET(c, rqt, IN_GET(eth_obj_cmd_in, obj_num), "QUERY_RQT");
	uint8_t *ctx = OUT_ADDR(query_rqt_out, rqt_context);
	size_t room = c->outlen - (size_t)(ctx - (uint8_t *)c->out);
	uint32_t i;

	if (!t)
		return -1;
	if (room < DEVX_ST_SZ_BYTES(rqtc) + (size_t)t->n * 4)
		return FW_FAIL(c, BAD_OUTP_LEN_ERR, "QUERY_RQT: %u RQ numbers need "
			       "%zu bytes of output, there are %zu", t->n,
			       DEVX_ST_SZ_BYTES(rqtc) + (size_t)t->n * 4, room);
	DEVX_SET(rqtc, ctx, rqt_max_size, t->max);
	DEVX_SET(rqtc, ctx, rqt_actual_size, t->n);
	for (i = 0; i < t->n; i++)
		DEVX_SET(rq_num, ctx + DEVX_ST_SZ_BYTES(rqtc) + (size_t)i * 4, rq_num,
			 t->rq[i]->obj.id);
	return 0;
}

int fw_rqt_destroy(struct fw_cmd *c)
{
	struct fw_rqt *t = FW_GET(c, rqt, IN_GET(eth_obj_cmd_in, obj_num), "DESTROY_RQT");

	if (!t)
		return -1;
	if (t->obj.refs)
		return FW_FAIL(c, RES_BUSY, "rqt 0x%x is the indirect table of %u "
			       "TIRs", t->obj.id, t->obj.refs);
	fw_table_del(&c->fw->rqt, t->obj.id);
	fw_obj_disown(c->fw, &t->obj);
	rqt_release_list(t);
	free(t->rq);
	free(t);
	return 0;
}

void fw_rqt_free(struct fw_rqt *t)
{
	free(t->rq);
	free(t);
}
