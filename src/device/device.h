/* SPDX-License-Identifier: MIT */
/*
 * THE DEVICE BOUNDARY. Everything above (src/verbs, src/mlx5, src/flexio) talks
 * to the software HCA only through this header: PRM command mailboxes, memory
 * the device is told about (rings, doorbell records, umems -- in-process, so
 * "DMA addresses" are virtual addresses), the BAR (UAR pages, device memory) and
 * event fds. Nothing else crosses.
 */
#ifndef SMX_DEVICE_DEVICE_H
#define SMX_DEVICE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/config.h"

struct smx_dev;

/*
 * The process's instance of the device (created on first use, refcounted).
 * An instance belongs to the process that created it: in a fork child the
 * inherited one refuses every use (commands -EIO, doorbells dropped, no
 * BAR, no progress), smx_dev_close() forgets it, and smx_dev_open() gives
 * the child an instance of its own.
 */
struct smx_dev *smx_dev_open(void);
void smx_dev_close(struct smx_dev *dev);
/* Is @dev this process's own (not inherited across fork)? */
bool smx_dev_owned(const struct smx_dev *dev);

const struct smx_config *smx_dev_config(const struct smx_dev *dev);

/*
 * Executes one PRM command. @in/@inlen is the input mailbox (big-endian PRM
 * layout, opcode in the first dword, uid in dword 1 as the kernel writes it),
 * @out/@outlen the output mailbox. Returns 0 when the firmware produced an
 * answer -- which may be a failure: status (byte 0) and syndrome (dword 1) of
 * the output -- or -EINVAL when the mailboxes cannot carry a command at all
 * (shorter than the 16-byte in / out headers, NULL), -EIO when @dev is not
 * this process's (inherited across fork).
 */
int smx_dev_cmd(struct smx_dev *dev, const void *in, size_t inlen, void *out,
		size_t outlen);

/*
 * The device's BAR as the host sees it: UAR pages (4 KiB each, page_id * 4096)
 * followed by device memory (MEMIC) at smx_dev_memic_base(). Returns NULL when
 * [offset, offset + len) is not inside the BAR.
 */
void *smx_dev_bar(struct smx_dev *dev, uint64_t offset, size_t len);
uint64_t smx_dev_memic_base(const struct smx_dev *dev);

/*
 * MMIO: CPU stores into the BAR, as a driver does to its UAR pages.
 * smx_dev_mmio_write64() is one 64-bit store of @value at BAR offset @offset;
 * @value holds the 8 bytes exactly as they land in memory (a driver that
 * builds the doorbell big-endian passes it unchanged, as mmio_write64_be does).
 * Registers of a UAR page (PRM): 0x20 CQ doorbell (arm), 0x40 EQ doorbell
 * with arm, 0x48 EQ doorbell without arm, 0x800 / 0x900 send doorbell or
 * BlueFlame buffer. smx_dev_mmio_write() copies a BlueFlame burst (a whole
 * WQE, a multiple of 64 bytes up to 256).
 * The device acts on a doorbell before returning when it can (the inline fast
 * path); a plain store into the page that bypasses these calls is picked up by
 * the device's doorbell watcher instead, with identical results.
 */
void smx_dev_mmio_write64(struct smx_dev *dev, uint64_t offset, uint64_t value);
void smx_dev_mmio_write(struct smx_dev *dev, uint64_t offset, const void *buf,
			size_t len);

/*
 * Lends the calling thread to the device: it serves what other processes
 * sent (requests, responses) if any is waiting, as the device's inbox thread
 * would, and returns whether there was any. A driver calls it when a CQ
 * poll finds nothing -- the thread is idle, and the inbox thread would need
 * a wake-up and a CPU to do the same. Cheap when the inbox is empty.
 */
bool smx_dev_progress(struct smx_dev *dev);

/*
 * Interrupts. An EQ's eqc.intr names an MSI-X vector; when the device writes
 * an EQE to an armed EQ it calls the handler registered for that vector (from
 * whichever thread runs the engine). Handlers must not issue commands or ring
 * doorbells synchronously; they read EQEs and hand work off (pipes, eventfds).
 */
typedef void (*smx_irq_fn)(void *arg, uint32_t vector);
int smx_dev_irq_register(struct smx_dev *dev, uint32_t vector, smx_irq_fn fn,
			 void *arg);
void smx_dev_irq_unregister(struct smx_dev *dev, uint32_t vector);

#endif
