/* SPDX-License-Identifier: MIT */
/*
 * Registered memory that other processes can map: at registration the
 * page-rounded range of private anonymous memory is re-backed by a memfd at
 * the same addresses (contents kept, MADV_DONTFORK as rdma-core does for
 * registered memory), so a peer's engine can map the memfd
 * (/proc/<pid>/fd/<fd>) and place RDMA WRITE / READ data directly, after
 * its own check of the target's key (eng_direct.c, docs/multiprocess.md).
 *
 * Ranges that are file-backed, shared, hugetlb, read-only or only partly
 * mapped are left alone: they keep the inbox path. Process-wide.
 */
#ifndef SMX_DEVICE_FABRIC_DIRECT_H
#define SMX_DEVICE_FABRIC_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Turns re-backing on (the process shares the device with others). */
void smx_direct_enable(bool on);
bool smx_direct_enabled(void);

/* Re-backs [addr, addr + len) if eligible; true when it is backed now. */
bool smx_direct_back(void *addr, size_t len);

/* The memfd range holding [addr, addr + len) of this process, if any. */
bool smx_direct_find(uint64_t addr, uint64_t len, int *fd, uint64_t *ino,
		     uint64_t *rva, uint64_t *rlen);

#endif
