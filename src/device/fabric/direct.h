/* SPDX-License-Identifier: MIT */
/*
 * Registered memory that other processes can map: at registration the
 * page-rounded range of private anonymous memory is re-backed by a memfd at
 * the same addresses, so a peer's engine can map the memfd
 * (/proc/<pid>/fd/<fd>) and place RDMA WRITE / READ data directly, after
 * its own check of the target's key, or read a SEND's payload from it
 * (SEND by reference; eng_direct.c, docs/multiprocess.md).
 *
 * The application never sees the switch: it happens with every other
 * thread of the process parked (freeze.h), so no store is lost, and it is
 * undone at deregistration (the pages become private anonymous memory
 * again) and around fork() (the child gets a private copy-on-write view,
 * as with rdma-core on a current kernel). Where the threads cannot be
 * parked, and for file-backed, shared, hugetlb, read-only or partly mapped
 * ranges, nothing is changed: that memory keeps the inbox path.
 * Process-wide.
 */
#ifndef SMX_DEVICE_FABRIC_DIRECT_H
#define SMX_DEVICE_FABRIC_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Turns re-backing on (the process shares the device with others).
 * @suspend(@arg) must make every record peers hold of this process's
 * memory stale and wait for accesses under them (smx_shm_dbump): it runs
 * before fork() switches the memory back for a moment.
 */
void smx_direct_enable(bool on, void (*suspend)(void *), void *arg);
bool smx_direct_enabled(void);

/* Re-backs [addr, addr + len) if eligible (or finds it backed already by a
 * registration still alive): a handle for smx_direct_release(), 0 if the
 * memory stays as it is. */
uint64_t smx_direct_back(void *addr, size_t len);

/* Drops one registration's hold (@h from smx_direct_back; 0: nothing);
 * the last one gives the application private pages again and closes the
 * memfd. Call after the key is gone (no peer may use a record of it). */
void smx_direct_release(uint64_t h);

/* Every region, as at the last device close. */
void smx_direct_release_all(void);

/* fork(): the device's pthread_atfork handlers call these, in this order
 * against its own locks (device.c). */
void smx_direct_fork_prepare(void);
void smx_direct_fork_parent(void);
void smx_direct_fork_child(void);

/* The memfd range holding [addr, addr + len) of this process, if any. */
bool smx_direct_find(uint64_t addr, uint64_t len, int *fd, uint64_t *ino,
		     uint64_t *rva, uint64_t *rlen);

#endif
