/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: the DPA outbox page. A thread rings doorbells by storing
 * 64-bit little-endian values into registers of its configured outbox; the
 * doorbell helpers in flexio_dev_queue_access.h build these values and hand
 * them to smx_dpa_outbox_write(), which plays the outbox.
 */
#ifndef _FLEXIO_DEV_DPA_ARCH_H_
#define _FLEXIO_DEV_DPA_ARCH_H_

#include <stdint.h>

enum {
	FLEXIO_OUTBOX_UCTL = 0x000,
	FLEXIO_OUTBOX_BUFFER = 0x040,
	FLEXIO_OUTBOX_CQ_DB = 0x100,		/* cqn 23:0, ci 55:32 -- update CI, arm */
	FLEXIO_OUTBOX_EQ_DB_REARM = 0x140,	/* eqn 23:0, ci 57:32 */
	FLEXIO_OUTBOX_EQ_DB_NO_REARM = 0x180,	/* eqn 23:0, ci 57:32 */
	FLEXIO_OUTBOX_SXD_DB = 0x1c0,		/* pi 15:0, sq/qp number 55:32 */
	FLEXIO_OUTBOX_EMU_CAP = 0x200,		/* dummy qpn 23:0, emu index 57:32 */
	FLEXIO_OUTBOX_EMU_CAP_TRIGGER = 0x240,
	FLEXIO_OUTBOX_RXT_DB = 0x280,		/* cqn 23:0 -- generate a zero CQE */
	FLEXIO_OUTBOX_RXT_DONE0 = 0x2c0,
	FLEXIO_OUTBOX_RXT_DONE1 = 0x2c8,
	FLEXIO_OUTBOX_RXC_RD = 0x300,
	FLEXIO_OUTBOX_CC_DB = 0x340,		/* ccq result 31:0, rtt req 32, next act 35:34, ccq id 63:48 */
	FLEXIO_OUTBOX_SW_RESERVE = 0xfc0,
	FLEXIO_OUTBOX_PAGE_SIZE = 0x1000,
};

#endif
