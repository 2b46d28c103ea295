/* SPDX-License-Identifier: MIT */
/*
 * Device memory (MEMIC): blocks of the BAR's device-memory window. An
 * allocation answers its BAR address (memic_bar_start_addr + offset), which
 * the host maps through smx_dev_bar(); MEMIC-mode mkeys point into it.
 */
#include <stdlib.h>

#include "device/fw/fw_loc.h"

#define MEMIC_MIN_LOG 6	/* log_min_memic_alloc_size */

static bool fw_memic_overlaps(const struct fw *fw, uint64_t off, uint64_t size)
{
	const struct fw_memic_blk *b;

	for (b = fw->memic_used; b; b = b->next)
		if (off < b->off + b->size && b->off < off + size)
			return true;
	return false;
}

int fw_memic_alloc(struct fw_cmd *c)
{
	struct fw *fw = c->fw;
	uint64_t size = IN_GET(alloc_memic_in, memic_size);
	uint32_t log_align = IN_GET(alloc_memic_in, log_memic_addr_alignment);
	uint64_t rstart = IN_GET64(alloc_memic_in, range_start_addr);
	uint64_t rsize = IN_GET(alloc_memic_in, range_size);
	uint64_t align, lo, hi, off;
	struct fw_memic_blk *blk;

	if (!fw->memic_size)
		return FW_FAIL(c, BAD_SYS_STATE_ERR,
			       "the device has no device memory (max_dm_size 0)");
	if (!size || size > fw->memic_size)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "memic_size %llu outside (0, %llu]",
			       (unsigned long long)size,
			       (unsigned long long)fw->memic_size);
	if (log_align > 12)
		return FW_FAIL(c, BAD_PARAM_ERR,
			       "log_memic_addr_alignment %u above the cap (12)",
			       log_align);
	if (log_align < MEMIC_MIN_LOG)
		log_align = MEMIC_MIN_LOG;
	align = 1ull << log_align;
	/* The search range is in BAR addresses; empty means everywhere. */
	lo = 0;
	hi = fw->memic_size;
	if (rsize) {
		if (rstart < fw->memic_bar_off ||
		    rstart - fw->memic_bar_off >= fw->memic_size)
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "range_start_addr 0x%llx outside device "
				       "memory", (unsigned long long)rstart);
		lo = rstart - fw->memic_bar_off;
		if (rsize < hi - lo)
			hi = lo + rsize;
	}
	size = (size + (1ull << MEMIC_MIN_LOG) - 1) &
	       ~((1ull << MEMIC_MIN_LOG) - 1);
	for (off = (lo + align - 1) & ~(align - 1); off + size <= hi;
	     off += align)
		if (!fw_memic_overlaps(fw, off, size))
			break;
	if (off + size > hi)
		return FW_FAIL(c, NO_RES_ERR,
			       "no free %llu-byte block of device memory",
			       (unsigned long long)size);
	blk = calloc(1, sizeof(*blk));
	if (!blk)
		return FW_FAIL(c, NO_RES_ERR, "memic: out of memory");
	blk->off = off;
	blk->size = size;
	blk->next = fw->memic_used;
	fw->memic_used = blk;
	OUT_SET64(alloc_memic_out, memic_start_addr, fw->memic_bar_off + off);
	return 0;
}

int fw_memic_dealloc(struct fw_cmd *c)
{
	struct fw *fw = c->fw;
	uint64_t addr = IN_GET64(dealloc_memic_in, memic_start_addr);
	uint64_t size = IN_GET(dealloc_memic_in, memic_size);
	struct fw_memic_blk **pp, *b;

	for (pp = &fw->memic_used; (b = *pp); pp = &b->next) {
		if (fw->memic_bar_off + b->off != addr)
			continue;
		if (((size + 63) & ~63ull) != b->size)
			return FW_FAIL(c, BAD_PARAM_ERR,
				       "memic 0x%llx is %llu bytes, not %llu",
				       (unsigned long long)addr,
				       (unsigned long long)b->size,
				       (unsigned long long)size);
		*pp = b->next;
		free(b);
		return 0;
	}
	return FW_FAIL(c, BAD_PARAM_ERR,
		       "memic_start_addr 0x%llx is not an allocation",
		       (unsigned long long)addr);
}

void fw_memic_fini(struct fw *fw)
{
	while (fw->memic_used) {
		struct fw_memic_blk *b = fw->memic_used;

		fw->memic_used = b->next;
		free(b);
	}
}

/* For MEMIC-mode mkeys: host address of BAR address @addr, @len bytes. */
uint8_t *fw_memic_host(struct fw *fw, uint64_t addr, uint64_t len)
{
	if (addr < fw->memic_bar_off || addr - fw->memic_bar_off > fw->memic_size ||
	    len > fw->memic_size - (addr - fw->memic_bar_off))
		return NULL;
	return fw->memic + (addr - fw->memic_bar_off);
}
