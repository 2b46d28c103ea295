/* SPDX-License-Identifier: MIT */
/*
 * Device code for test_flexio (built by softmlx5-dpacc): entry points that
 * exercise argument unpacking, DPA globals, thread control and errors, and
 * the receive handler of test_flexio_rmp.
 */
#include <libflexio-dev/flexio_dev.h>
#include <libflexio-dev/flexio_dev_err.h>
#include <libflexio-dev/flexio_dev_queue_access.h>
#include <dpaintrin.h>

#include "test_flexio_rmp.h"

static uint64_t counter;		/* per process */
static uint64_t eh_runs, eh_resumes;

/* mixed argument types: each slot cast to its declared type */
__dpa_rpc__ uint64_t t_mix(uint32_t a, int32_t b, uint64_t *p, uint8_t c, uint64_t d)
{
	*p = (uint64_t)a + (uint64_t)(int64_t)b + c;
	return d ^ 0x5a5a;
}

__dpa_rpc__ uint64_t t_bump(uint64_t by)
{
	counter += by;
	return counter;
}

__dpa_rpc__ uint64_t t_noargs(void)
{
	struct flexio_dev_thread_ctx *c;

	return flexio_dev_get_thread_ctx(&c) == 0 && c ? 77 : 0;
}

__dpa_rpc__ uint64_t t_print(uint64_t level)
{
	flexio_dev_msg(0, (flexio_msg_dev_level)level, "level %lu message\n", level);
	return 0;
}

/* an RPC that unwinds from deep in its stack */
static uint64_t deep(int n)
{
	volatile uint8_t pad[128];

	pad[0] = (uint8_t)n;
	if (n < 0)
		return 0;
	if (!n)
		flexio_dev_thread_reschedule();
	return deep(n - 1) + pad[0];
}

__dpa_rpc__ uint64_t t_unwind(uint64_t n)
{
	return deep((int)n) + 1;	/* not reached for n >= 0 */
}

__dpa_rpc__ uint64_t t_activate(uint64_t id)
{
	flexio_dev_event_handler_activate((uint32_t)id);
	return 0;
}

__dpa_rpc__ uint64_t t_stats(uint64_t which)
{
	return which == 0 ? eh_runs : eh_resumes;
}

__dpa_rpc__ uint64_t t_error(uint64_t code)
{
	flexio_dev_error((uint8_t)code);
}

/* A wild read: the DPA takes a memory fault, the process stops. */
__dpa_rpc__ uint64_t t_fault(uint64_t addr)
{
	return *(volatile uint64_t *)(uintptr_t)addr;
}

__dpa_rpc__ uint64_t t_finish_process(uint64_t unused)
{
	(void)unused;
	flexio_dev_process_finish();
}

/* event handler: counts runs; arg 1 finishes the thread, 2 retriggers twice */
__dpa_global__ void t_handler(uint64_t arg)
{
	static int retrig;

	__dpa_thread_fence(__DPA_MEMORY, __DPA_W, __DPA_W);
	__atomic_add_fetch(&eh_runs, 1, __ATOMIC_SEQ_CST);
	if (arg == 1)
		flexio_dev_thread_finish();
	if (arg == 2 && retrig++ < 2)
		flexio_dev_thread_retrigger();
	flexio_dev_thread_reschedule();
}

/* continuable handler: one activation spans several triggers */
__dpa_global__ void t_cont(uint64_t arg)
{
	struct flexio_dev_thread_ctx *c;
	uint64_t i;

	flexio_dev_get_thread_ctx(&c);
	__atomic_add_fetch(&eh_runs, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < arg; i++) {
		flexio_dev_yield(c);
		__atomic_add_fetch(&eh_resumes, 1, __ATOMIC_SEQ_CST);
	}
	flexio_dev_thread_reschedule();
}

/* data flexio_app_extract_symbol reads from the image: initialised, and .bss */
const uint64_t t_table[4] = { 1, 2, 3, 0x5eed };
uint32_t t_zeros[8];

static uint64_t err_seen, err_errno;

/* the process error handler: its argument is the faulting thread's context */
__dpa_global__ void t_err_handler(uint64_t dtctx)
{
	err_seen++;
	err_errno = flexio_dev_get_errno((struct flexio_dev_thread_ctx *)dtctx);
	flexio_dev_thread_reschedule();
}

/* a window access without a window mkey configured: a recoverable fault */
__dpa_rpc__ uint64_t t_window_fault(uint64_t haddr)
{
	struct flexio_dev_thread_ctx *c;
	flexio_uintptr_t d;

	flexio_dev_get_thread_ctx(&c);
	if (flexio_dev_window_ptr_acquire(c, haddr, &d) != FLEXIO_DEV_STATUS_SUCCESS)
		return 2 + flexio_dev_get_errno(c);
	return 1;
}

__dpa_rpc__ uint64_t t_err_stats(uint64_t which)
{
	return which ? err_errno : err_seen;
}

/*
 * Receives on an RMP-backed DPA QP (test_flexio_rmp): each RESP_SEND CQE
 * is recorded (RMP WQE index, byte count, RMP number), its WQE handed back
 * to the RMP (the linked list is a ring, so one more on the WQE counter),
 * the CQ re-armed.
 */
__dpa_global__ void t_rmp_handler(uint64_t arg)
{
	struct rmp_ctx *c = (struct rmp_ctx *)arg;
	struct flexio_dev_thread_ctx *dtctx;

	flexio_dev_get_thread_ctx(&dtctx);
	c->activations++;
	for (;;) {
		struct flexio_dev_cqe64 *cqe = (struct flexio_dev_cqe64 *)c->cq_ring +
					       (c->ci & ((1u << RMP_LOG_CQ) - 1));

		if (flexio_dev_cqe_get_owner(cqe) != ((c->ci >> RMP_LOG_CQ) & 1) ||
		    flexio_dev_cqe_get_opcode(cqe) == 0xf)
			break;
		__dpa_thread_fence(__DPA_MEMORY, __DPA_R, __DPA_R);
		if (flexio_dev_cqe_get_opcode(cqe) != 0x2 || c->n >= RMP_MSGS) {
			c->errors++;
		} else {
			c->wqe_index[c->n] = flexio_dev_cqe_get_wqe_counter(cqe);
			c->byte_cnt[c->n] = flexio_dev_cqe_get_byte_cnt(cqe);
			c->srqn[c->n] = flexio_dev_cqe_get_user_index(cqe);
			c->n++;
		}
		flexio_dev_dbr_rq_inc_pi((uint32_t *)c->rmp_dbr);
		c->ci++;
		flexio_dev_dbr_cq_set_ci((uint32_t *)c->cq_dbr, c->ci);
	}
	flexio_dev_cq_arm(dtctx, c->ci, c->cqn);
	flexio_dev_thread_reschedule();
}
