/* SPDX-License-Identifier: MIT */
/*
 * Protection domains, UARs, transport domains, user contexts (the DEVX uid a
 * process context works under) and umems (user memory registered for queue
 * buffers and doorbell records).
 *
 * Destroying an object that other objects still reference fails with
 * RES_BUSY (the kernel turns it into EBUSY); an unknown handle is BAD_RES; a
 * handle owned by another uid is BAD_PARAM.
 */
#include <stdlib.h>
#include <string.h>

#include "device/fw/fw_loc.h"

/* Allocates a bare object of @size bytes in @t and answers its number. */
static void *fw_simple_alloc(struct fw_cmd *c, struct fw_table *t,
			     size_t size, const char *what)
{
	struct fw_obj *o = calloc(1, size);

	if (!o) {
		FW_FAIL(c, NO_RES_ERR, "%s: out of memory", what);
		return NULL;
	}
	if (fw_table_add(t, o)) {
		free(o);
		FW_FAIL(c, NO_RES_ERR, "%s: all %u numbers are in use", what,
			t->limit);
		return NULL;
	}
	if (fw_obj_own(c, o, what)) {
		fw_table_del(t, o->id);
		free(o);
		return NULL;
	}
	OUT_SET(obj_handle_out, handle, o->id);
	return o;
}

/* Looks up the handle at dword 2 for a destroy: exists, ours, unused. */
static void *fw_simple_victim(struct fw_cmd *c, struct fw_table *t,
			      const char *what)
{
	uint32_t id = IN_GET(obj_handle_in, handle);
	struct fw_obj *o = fw_get(c, t, id, what, false);

	if (!o)
		return NULL;
	if (o->refs) {
		FW_FAIL(c, RES_BUSY, "%s 0x%x is still referenced by %u objects",
			what, id, o->refs);
		return NULL;
	}
	return o;
}

static int fw_simple_free(struct fw_cmd *c, struct fw_table *t,
			  const char *what)
{
	struct fw_obj *o = fw_simple_victim(c, t, what);

	if (!o)
		return -1;
	fw_table_del(t, o->id);
	fw_obj_disown(c->fw, o);
	free(o);
	return 0;
}

int fw_pd_alloc(struct fw_cmd *c)
{
	return fw_simple_alloc(c, &c->fw->pd, sizeof(struct fw_pd), "pd") ?
	       0 : -1;
}

int fw_pd_dealloc(struct fw_cmd *c)
{
	return fw_simple_free(c, &c->fw->pd, "pd");
}

int fw_uar_alloc(struct fw_cmd *c)
{
	struct fw_uar *u = fw_simple_alloc(c, &c->fw->uar, sizeof(*u), "uar");

	if (!u)
		return -1;
	if (c->fw->uar_pages) {
		u->page = c->fw->uar_pages + (size_t)u->obj.id * 4096;
		/* a doorbell left by the page's last owner is not a request */
		memset(u->page, 0, 4096);
	}
	return 0;
}

int fw_uar_dealloc(struct fw_cmd *c)
{
	return fw_simple_free(c, &c->fw->uar, "uar");
}

int fw_td_alloc(struct fw_cmd *c)
{
	return fw_simple_alloc(c, &c->fw->td, sizeof(struct fw_td),
			       "transport_domain") ? 0 : -1;
}

int fw_td_dealloc(struct fw_cmd *c)
{
	return fw_simple_free(c, &c->fw->td, "transport_domain");
}

int fw_uctx_create(struct fw_cmd *c)
{
	struct fw_uctx *u;

	if (c->uid)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "uid %u: a user context is created by uid 0",
			       c->uid);
	u = calloc(1, sizeof(*u));
	if (!u)
		return FW_FAIL(c, NO_RES_ERR, "uctx: out of memory");
	if (fw_table_add(&c->fw->uctx, &u->obj)) {
		free(u);
		return FW_FAIL(c, NO_RES_ERR, "uctx: all uids are in use");
	}
	u->cap = DEVX_GET(uctx, IN_ADDR(create_uctx_in, uctx), cap);
	OUT_SET(general_obj_out_cmd_hdr, obj_id, u->obj.id);
	return 0;
}

int fw_uctx_destroy(struct fw_cmd *c)
{
	uint32_t uid = IN_GET(destroy_uctx_in, uid);
	struct fw_uctx *u = fw_table_get(&c->fw->uctx, uid);

	if (!u)
		return FW_FAIL(c, BAD_RES_ERR, "uctx uid %u does not exist", uid);
	if (c->uid && c->uid != uid)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "uctx uid %u destroyed by uid %u", uid, c->uid);
	if (u->nobjs)
		return FW_FAIL(c, RES_BUSY,
			       "uctx uid %u still owns %u objects", uid,
			       u->nobjs);
	fw_table_del(&c->fw->uctx, uid);
	free(u);
	return 0;
}

int fw_umem_create(struct fw_cmd *c)
{
	const uint8_t *um = IN_ADDR(create_umem_in, umem);
	uint32_t log_pg = DEVX_GET(umem, um, log_page_size);
	uint32_t page_off = DEVX_GET(umem, um, page_offset);
	uint64_t nmtt = DEVX_GET64(umem, um, num_of_mtt);
	size_t mtt_off = DEVX_BYTE_OFF(create_umem_in, umem) +
			 DEVX_BYTE_OFF(umem, mtt);
	uint32_t shift = 12 + log_pg;
	struct fw_umem *u;
	uint64_t i;

	if (shift > 30)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "log_page_size %u (4 KiB units) is above 1 GiB",
			       log_pg);
	if (!nmtt || nmtt > (1u << 22))
		return FW_FAIL(c, BAD_PARAM_ERR, "num_of_mtt %llu out of range",
			       (unsigned long long)nmtt);
	if (page_off >= (1u << shift))
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "page_offset %u beyond the first page", page_off);
	if ((c->inlen - mtt_off) / 8 < nmtt)
		return FW_FAIL(c, BAD_INP_LEN_ERR,
			       "num_of_mtt %llu, input mailbox holds %zu",
			       (unsigned long long)nmtt,
			       (c->inlen - mtt_off) / 8);
	u = calloc(1, sizeof(*u));
	if (u)
		u->buf.pages = calloc(nmtt, sizeof(uint64_t));
	if (!u || !u->buf.pages) {
		free(u);
		return FW_FAIL(c, NO_RES_ERR, "umem: out of memory");
	}
	for (i = 0; i < nmtt; i++) {
		const uint8_t *m = (const uint8_t *)c->in + mtt_off + i * 8;
		uint64_t pa = (uint64_t)DEVX_GET(mtt, m, ptag_63_32) << 32 |
			      (uint64_t)DEVX_GET(mtt, m, ptag_31_8) << 8;

		if (!pa || (pa & ((1ull << shift) - 1))) {
			free(u->buf.pages);
			free(u);
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "MTT[%llu] = 0x%llx is not a page address",
				       (unsigned long long)i,
				       (unsigned long long)pa);
		}
		u->buf.pages[i] = pa;
	}
	/* Like a PAS list, the pages must exist (found by fuzz_fw_cmd: an
	 * unmapped MTT page became a CQ's doorbell record the engine read). */
	if (!fw_mem_readable(u->buf.pages, (uint32_t)nmtt) ||
	    !fw_mem_pages_mapped(u->buf.pages, (uint32_t)nmtt, shift)) {
		free(u->buf.pages);
		free(u);
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "umem: an MTT page is not mapped in the process");
	}
	u->buf.npages = (uint32_t)nmtt;
	u->buf.page_shift = shift;
	u->buf.offset = page_off;
	u->buf.size = (nmtt << shift) - page_off;
	{
		uint32_t k;

		for (k = 1; k < u->buf.npages; k++)
			if (u->buf.pages[k] !=
			    u->buf.pages[k - 1] + (1ull << shift))
				break;
		if (k >= u->buf.npages)
			u->buf.base = (uint8_t *)(uintptr_t)u->buf.pages[0] +
				      page_off;
	}
	if (fw_table_add(&c->fw->umem, &u->obj)) {
		free(u->buf.pages);
		free(u);
		return FW_FAIL(c, NO_RES_ERR, "umem: all ids are in use");
	}
	if (fw_obj_own(c, &u->obj, "umem")) {
		fw_table_del(&c->fw->umem, u->obj.id);
		free(u->buf.pages);
		free(u);
		return -1;
	}
	OUT_SET(create_umem_out, umem_id, u->obj.id);
	return 0;
}

int fw_umem_destroy(struct fw_cmd *c)
{
	struct fw_umem *u = fw_simple_victim(c, &c->fw->umem, "umem");

	if (!u)
		return -1;
	fw_table_del(&c->fw->umem, u->obj.id);
	fw_obj_disown(c->fw, &u->obj);
	free(u->buf.pages);
	free(u);
	return 0;
}
