/* SPDX-License-Identifier: MIT */
/*
 * The data-path engine as the device instance (device.c) sees it: created
 * after the firmware, stopped before it. Everything else is private to
 * src/device/engine (eng_loc.h).
 */
#ifndef SMX_DEVICE_ENGINE_ENGINE_H
#define SMX_DEVICE_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "device/device.h"

struct fw;
struct eng;

/* @bar: the BAR's UAR pages (@nr_uars pages of 4 KiB from BAR offset 0).
 * Interrupts are raised through smx_dev_irq_fire(@dev, vector). */
struct eng *eng_create(struct smx_dev *dev, struct fw *fw, uint8_t *bar,
		       uint32_t nr_uars);
/* Stops the doorbell watcher, frees all engine state, unhooks the firmware. */
void eng_destroy(struct eng *e);

/* Joins the host-wide fabric as process slot smx_shm_slot(@shm): starts the
 * inbox thread. @shm NULL: in-process delivery only. */
struct smx_shm;
void eng_fabric_start(struct eng *e, struct smx_shm *shm);

/* A CPU store of @len bytes (4, 8, or a BlueFlame burst) at BAR @offset. */
void eng_mmio_write(struct eng *e, uint64_t offset, const void *buf,
		    size_t len);

/* Serves this process's inbox from the calling thread if anything waits
 * there (smx_dev_progress()); true if there was. */
bool eng_fabric_progress(struct eng *e);

/* Runs one pass of the doorbell watcher now (tests: deterministic timing). */
void eng_poll(struct eng *e);

/* The engine behind a device instance (tests, tools). */
struct eng *smx_dev_eng(struct smx_dev *dev);

#endif
