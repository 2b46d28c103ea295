/* SPDX-License-Identifier: MIT */
/*
 * The DPA runtime's I/O: device messages into host message streams, outbox
 * doorbells, windows onto host memory, and the small services (NIC counters,
 * PCC table, handler activation).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "flexio/host/fx_priv.h"

/* host/queues.c: a doorbell value written to outbox register @reg */
void fx_outbox_doorbell(struct flexio_process *p, uint16_t outbox_id, uint32_t reg,
			uint64_t value);

#define FX_MSG_MAX 2048	/* longest single message; longer ones are cut */

int flexio_dev_msg(int stream_id, flexio_msg_dev_level level, const char *format, ...)
{
	struct fx_thread *t = fx_cur;
	char buf[FX_MSG_MAX];
	va_list ap;
	int n;

	if (!format)
		return -1;
	va_start(ap, format);
	n = vsnprintf(buf, sizeof(buf), format, ap);
	va_end(ap);
	if (n < 0)
		return n;
	if (!t || !t->proc) {
		/* not on a DPA thread: nowhere to send it */
		fx_warn("flexio_dev_msg outside a DPA thread: %s", buf);
		return n;
	}
	if (level == FLEXIO_MSG_DEV_NO_PRINT)
		return n;
	if (fx_msg_write(t->proc, stream_id, level, buf,
			 (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
		t->dev_errno = FLEXIO_DEV_ERRNO_NO_STREAM;
	return n;
}

int flexio_dev_puts(struct flexio_dev_thread_ctx *dtctx, char *str)
{
	struct fx_thread *t = dtctx ? dtctx->t : fx_cur;
	size_t len;

	if (!str)
		return -1;
	len = strlen(str);
	if (t && t->proc)
		fx_msg_write(t->proc, FLEXIO_MSG_DEV_DEFAULT_STREAM_ID, FLEXIO_MSG_DEV_ALWAYS_PRINT,
			     str, len);
	return (int)len;
}

/* ---- outbox ----------------------------------------------------------------- */
void smx_dpa_outbox_write(uint32_t reg, uint64_t value)
{
	struct fx_thread *t = fx_cur;

	if (!t || !t->proc) {
		fx_err("outbox doorbell (register 0x%x) outside a DPA thread", reg);
		return;
	}
	fx_outbox_doorbell(t->proc, t->outbox_id, reg, value);
}

flexio_dev_status_t smx_dpa_outbox_config(uint16_t outbox_config_id)
{
	struct fx_thread *t = fx_cur;

	if (!t || !t->proc)
		return FLEXIO_DEV_STATUS_FAILED;
	/* The process's outboxes are numbered by flexio_outbox_get_id(). */
	if (outbox_config_id >= t->proc->next_obj_id) {
		t->dev_errno = FLEXIO_DEV_ERRNO_BAD_ARG;
		return FLEXIO_DEV_STATUS_FAILED;
	}
	t->outbox_id = outbox_config_id;
	return FLEXIO_DEV_STATUS_SUCCESS;
}

flexio_dev_status_t smx_dpa_outbox_uar_extension(flexio_uar_device_id device_id)
{
	(void)device_id;
	return fx_cur ? FLEXIO_DEV_STATUS_SUCCESS : FLEXIO_DEV_STATUS_FAILED;
}

/* ---- windows ------------------------------------------------------------------ */
static bool entity_ok(int entity)
{
	return entity >= 0 && entity < FLEXIO_DEV_WINDOW_ENTITY_NUM;
}

flexio_dev_status_t smx_dpa_window_config(int entity, uint16_t window_config_id, uint32_t mkey)
{
	struct fx_thread *t = fx_cur;

	if (!t || !entity_ok(entity))
		return FLEXIO_DEV_STATUS_FAILED;
	t->window_id[entity] = window_config_id;
	t->window_mkey[entity] = mkey;
	return FLEXIO_DEV_STATUS_SUCCESS;
}

flexio_dev_status_t smx_dpa_window_mkey_config(int entity, uint32_t mkey)
{
	struct fx_thread *t = fx_cur;

	if (!t || !entity_ok(entity))
		return FLEXIO_DEV_STATUS_FAILED;
	t->window_mkey[entity] = mkey;
	return FLEXIO_DEV_STATUS_SUCCESS;
}

/*
 * The DPA and the host share one address space here, so a host address seen
 * through a window is the host address itself. The window must have been
 * configured with an mkey first, as on the DPA.
 */
flexio_dev_status_t smx_dpa_window_ptr_acquire(int entity, uint64_t haddr,
					       flexio_uintptr_t *daddr)
{
	struct fx_thread *t = fx_cur;

	if (!t || !entity_ok(entity) || !daddr)
		return FLEXIO_DEV_STATUS_FAILED;
	if (!t->window_mkey[entity]) {
		fx_thread_fault(t, FLEXIO_DEV_ERRNO_WINDOW);
		return FLEXIO_DEV_STATUS_FAILED;
	}
	*daddr = haddr;
	return FLEXIO_DEV_STATUS_SUCCESS;
}

flexio_dev_status_t smx_dpa_window_copy(int entity, int to_host, void *daddr, uint64_t haddr,
					uint32_t size)
{
	struct fx_thread *t = fx_cur;

	if (!t || !entity_ok(entity) || !daddr || !haddr)
		return FLEXIO_DEV_STATUS_FAILED;
	if (!t->window_mkey[entity]) {
		fx_thread_fault(t, FLEXIO_DEV_ERRNO_WINDOW);
		return FLEXIO_DEV_STATUS_FAILED;
	}
	if (to_host)
		memmove((void *)(uintptr_t)haddr, daddr, size);
	else
		memmove(daddr, (const void *)(uintptr_t)haddr, size);
	return FLEXIO_DEV_STATUS_SUCCESS;
}

/* ---- small services ----------------------------------------------------------- */
uint64_t flexio_dev_get_pcc_table_base(uint16_t gvmi)
{
	(void)gvmi;
	return 0;	/* no congestion-control tables on softmlx5 */
}

static __thread uint32_t *ctr_values, *ctr_ids, ctr_num;

void flexio_dev_nic_counters_config(uint32_t *values, uint32_t *counter_ids,
				    uint32_t num_counters)
{
	ctr_values = values;
	ctr_ids = counter_ids;
	ctr_num = num_counters;
}

/* Port byte counters are not modelled yet: every configured counter reads 0. */
void flexio_dev_nic_counters_sample(void)
{
	uint32_t i;

	if (!ctr_values || !ctr_ids) {
		fx_err("flexio_dev_nic_counters_sample before flexio_dev_nic_counters_config");
		flexio_dev_error(FLEXIO_DEV_ERROR_ILLEGAL_ERR);
	}
	for (i = 0; i < ctr_num; i++)
		ctr_values[i] = 0;
}

void flexio_dev_event_handler_activate(uint32_t activation_id)
{
	struct fx_thread *t = fx_cur;
	struct flexio_event_handler *eh;

	if (!t || !t->proc)
		return;
	pthread_mutex_lock(&t->proc->lock);
	for (eh = t->proc->handlers; eh; eh = eh->next)
		if (eh->t->id == activation_id)
			break;
	pthread_mutex_unlock(&t->proc->lock);
	if (eh && eh->t->enabled)
		fx_thread_trigger(eh->t);
}
