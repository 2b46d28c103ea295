/* SPDX-License-Identifier: MIT */
/*
 * Device side of the FlexIO RPC example: two __dpa_rpc__ entry points the
 * host calls with flexio_process_call(). They run on a DPA thread, print
 * through the process's message stream and return a 64-bit result.
 */
#include <libflexio-dev/flexio_dev.h>

/* DPA globals live as long as the process: calls see each other's updates. */
static uint64_t calls;

uint64_t rpc_sum_range(uint64_t first, uint64_t last);
uint64_t rpc_calls_so_far(uint32_t extra);

/* Sum of the integers first..last, computed on the DPA. */
__dpa_rpc__ uint64_t rpc_sum_range(uint64_t first, uint64_t last)
{
	uint64_t sum = 0, i;

	calls++;
	for (i = first; i <= last; i++)
		sum += i;
	flexio_dev_print("DPA: sum of %lu..%lu is %lu\n", first, last, sum);
	return sum;
}

/* How many calls this process has seen, plus @extra. */
__dpa_rpc__ uint64_t rpc_calls_so_far(uint32_t extra)
{
	struct flexio_dev_thread_ctx *dtctx;

	calls++;
	if (flexio_dev_get_thread_ctx(&dtctx) < 0)
		return UINT64_MAX;
	flexio_dev_print("DPA: thread %u, call number %lu\n", flexio_dev_get_thread_id(dtctx),
			 calls);
	return calls + extra;
}
