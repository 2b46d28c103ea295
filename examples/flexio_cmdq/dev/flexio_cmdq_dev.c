/* SPDX-License-Identifier: MIT */
/*
 * Device side of the command-queue sample: the task the workers run and two
 * RPCs around it. Each task squares its index into a results array on the
 * DPA heap and counts which DPA thread ran it.
 */
#include <stdint.h>

#include <libflexio-dev/flexio_dev.h>

#define MAX_THREADS 64

static uint64_t *results;		/* DPA heap, set by cmdq_setup */
static uint64_t tasks_run, per_thread[MAX_THREADS];

uint64_t cmdq_setup(uint64_t results_daddr);
uint64_t cmdq_square(uint64_t idx);
uint64_t cmdq_report(uint64_t ntasks);

__dpa_rpc__ uint64_t cmdq_setup(uint64_t results_daddr)
{
	results = (uint64_t *)results_daddr;
	return 0;
}

/* One command: results[idx] = idx * idx. */
__dpa_rpc__ uint64_t cmdq_square(uint64_t idx)
{
	struct flexio_dev_thread_ctx *dtctx;

	flexio_dev_get_thread_ctx(&dtctx);
	results[idx] = idx * idx;
	__atomic_fetch_add(&tasks_run, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&per_thread[flexio_dev_get_thread_id(dtctx) % MAX_THREADS], 1,
			   __ATOMIC_RELAXED);
	return 0;
}

/* Checks the results; returns how many tasks ran, or ~0 on a wrong result. */
__dpa_rpc__ uint64_t cmdq_report(uint64_t ntasks)
{
	uint64_t i, busy = 0;

	for (i = 0; i < ntasks; i++)
		if (results[i] != i * i)
			return UINT64_MAX;
	for (i = 0; i < MAX_THREADS; i++)
		busy += per_thread[i] != 0;
	flexio_dev_print("DPA: %lu tasks ran on %lu worker threads\n", tasks_run, busy);
	return tasks_run;
}
