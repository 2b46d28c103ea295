/* SPDX-License-Identifier: MIT */
/*
 * The DPA runtime: harts, DPA threads and their activations, and the device
 * API DPA code calls (thread context, thread control, errors).
 *
 * Harts are host threads (SMX_FLEXIO_HARTS, default 4). A DPA thread is bound
 * to one hart (by its affinity, else round robin) and every activation runs on
 * the thread's own stack through ucontext, so the "does not return" calls --
 * flexio_dev_thread_reschedule / finish / retrigger, flexio_dev_process_finish,
 * flexio_dev_error -- switch straight back to the hart's scheduler, and
 * flexio_dev_yield() keeps the context to resume it on the next trigger.
 * A thread has at most one activation in flight; triggers that arrive
 * meanwhile collapse into one pending activation, as on the DPA.
 *
 * A memory fault (SIGSEGV / SIGBUS) while an activation runs is the DPA's
 * fault, not the host program's: the activation is abandoned on the spot
 * (the hart goes back to its scheduler), the process stops with a fatal
 * error (status FX_DPA_MEMORY_FAULT, flexio_err_status_get() and the error
 * fd say so) and one line names the thread, the entry point and the
 * address -- as a DPA exception stops a DPA process and leaves the host
 * application running. The hart arms a recovery point of util/fault.h (the
 * engine's guard against unmapped registered memory uses the same handler)
 * around each activation; faults anywhere else go to the handler that was
 * there before (by default: the program dies, as it would without us).
 * ASan builds leave DPA faults to ASan: recovering would switch stacks
 * behind its fiber annotations.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "flexio/host/fx_priv.h"
#include "util/fault.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define FX_ASAN 1
#else
#define FX_ASAN 0
#endif

#define FX_STACK_SIZE (256 * 1024)

struct fx_hart {
	unsigned int idx;
	pthread_t th;
	pthread_mutex_t *lock;		/* the runtime lock (one for all harts) */
	pthread_cond_t cv;
	struct fx_thread *qhead, *qtail;
	ucontext_t sched;
	void *altstack;			/* where a fault handler runs */
	struct smx_fault_point fault;	/* armed while an activation runs */
	const void *sched_stack;	/* ASan: the hart's own stack */
	size_t sched_stack_size;
	bool stop;
};

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rt_done = PTHREAD_COND_INITIALIZER;
static struct fx_hart *harts;
static unsigned int nharts, rt_refs, rr_next;

__thread struct fx_thread *fx_cur;

/* ---- DPA memory faults -------------------------------------------------------- */
#define FX_ALTSTACK_SIZE (64 * 1024)

/* A fault while the hart's point is armed: in the activation fx_cur runs. */
static void fx_fault_recover(struct smx_fault_point *fp, int sig, void *addr)
{
	struct fx_hart *h = (struct fx_hart *)(void *)((char *)fp -
						       offsetof(struct fx_hart, fault));
	struct fx_thread *t = fx_cur;

	t->fault_sig = sig;
	t->fault_addr = addr;
	t->outcome = FX_END_ERROR;
	/* resumes run_one() right after its switch to the thread, with the
	 * hart's signal mask (SIGSEGV unblocked again) */
	setcontext(&h->sched);
}

/* After an activation that faulted: the process stops, one line says why. */
static void fx_fault_report(struct fx_thread *t)
{
	fx_err("DPA thread %u (%s): %s at address %p; the DPA process stops with "
	       "status 0x%x", t->id, t->name ? t->name : "?",
	       t->fault_sig == SIGBUS ? "bus error" : "memory fault", t->fault_addr,
	       FX_DPA_MEMORY_FAULT);
	t->error_code = FX_DPA_MEMORY_FAULT;
	t->fault_sig = 0;
	if (t->proc)
		fx_process_fatal(t->proc, FX_DPA_MEMORY_FAULT, FLEXIO_DEV_FATAL_ERROR);
}

/* ---- fiber switches (with ASan's fiber annotations when built with it) ---- */
static void switch_to_thread(struct fx_hart *h, struct fx_thread *t)
{
#if FX_ASAN
	void *fake = NULL;

	__sanitizer_start_switch_fiber(&fake, t->stack, t->stack_size);
	swapcontext(&h->sched, &t->uc);
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
	swapcontext(&h->sched, &t->uc);
#endif
}

/* From an activation back to its hart; returns only when a yield resumes. */
static void switch_to_sched(struct fx_thread *t, bool keep)
{
	struct fx_hart *h = t->hart;
#if FX_ASAN
	__sanitizer_start_switch_fiber(keep ? &t->asan_fake : NULL, h->sched_stack,
				       h->sched_stack_size);
	swapcontext(&t->uc, &h->sched);
	__sanitizer_finish_switch_fiber(t->asan_fake, &h->sched_stack, &h->sched_stack_size);
#else
	(void)keep;
	swapcontext(&t->uc, &h->sched);
#endif
}

static void activation_entry(void)
{
	struct fx_thread *t = fx_cur;

#if FX_ASAN
	__sanitizer_finish_switch_fiber(NULL, &t->hart->sched_stack, &t->hart->sched_stack_size);
#endif
	if (t->unpack)
		t->result = t->unpack(t->argbuf, t->fn);
	else
		((flexio_dev_event_handler_t *)t->fn)(t->arg);
	t->outcome = FX_END_RETURN;
	switch_to_sched(t, false);
	abort();	/* never resumed */
}

/* ---- run queues ------------------------------------------------------------ */
static void enqueue_locked(struct fx_thread *t)
{
	struct fx_hart *h = t->hart;

	t->state = FX_T_QUEUED;
	t->qnext = NULL;
	if (h->qtail)
		h->qtail->qnext = t;
	else
		h->qhead = t;
	h->qtail = t;
	pthread_cond_signal(&h->cv);
}

static bool process_stopped(const struct fx_thread *t)
{
	return t->proc && (t->proc->finished || t->proc->err != FLEXIO_DEV_NO_ERROR);
}

/* After an activation ended: what the thread does next (runtime lock held). */
static void settle_locked(struct fx_thread *t)
{
	t->done_seq++;
	switch (t->outcome) {
	case FX_END_FINISH:
		t->state = FX_T_FINISHED;
		break;
	case FX_END_RETRIGGER:
		t->state = FX_T_IDLE;
		t->pending = true;
		break;
	case FX_END_YIELD:
		t->state = FX_T_SUSPENDED;
		t->resume = true;
		break;
	default:
		t->state = FX_T_IDLE;
		break;
	}
	if (t->pending && t->state != FX_T_FINISHED && !process_stopped(t) && !t->is_rpc) {
		t->pending = false;
		enqueue_locked(t);
	} else {
		t->pending = false;
	}
	pthread_cond_broadcast(&rt_done);
}

static void run_one(struct fx_hart *h, struct fx_thread *t)
{
	if (!t->resume) {
		getcontext(&t->uc);
		t->uc.uc_stack.ss_sp = t->stack;
		t->uc.uc_stack.ss_size = t->stack_size;
		t->uc.uc_link = NULL;
		makecontext(&t->uc, activation_entry, 0);
	}
	if (!t->resume)
		t->in_err_handler = false;
	t->resume = false;
	t->activations++;
	fx_cur = t;
	if (!FX_ASAN) {
		h->fault.recover = fx_fault_recover;
		smx_fault_push(&h->fault);
	}
	switch_to_thread(h, t);
	if (!FX_ASAN)
		smx_fault_pop(&h->fault);
	fx_cur = NULL;
	if (t->fault_sig)
		fx_fault_report(t);
}

static void *hart_main(void *arg)
{
	struct fx_hart *h = arg;

	if (!FX_ASAN) {
		stack_t ss = { .ss_sp = malloc(FX_ALTSTACK_SIZE), .ss_size = FX_ALTSTACK_SIZE };

		h->altstack = ss.ss_sp;
		if (ss.ss_sp && sigaltstack(&ss, NULL))
			fx_err("hart %u: sigaltstack: %s (a DPA stack overflow will not be "
			       "contained)", h->idx, strerror(errno));
	}
	pthread_mutex_lock(&rt_lock);
	for (;;) {
		struct fx_thread *t;

		while (!h->qhead && !h->stop)
			pthread_cond_wait(&h->cv, &rt_lock);
		if (!h->qhead && h->stop)
			break;
		t = h->qhead;
		h->qhead = t->qnext;
		if (!h->qhead)
			h->qtail = NULL;
		if (process_stopped(t) && !t->is_rpc) {
			t->state = t->state == FX_T_FINISHED ? FX_T_FINISHED : FX_T_IDLE;
			t->done_seq++;
			pthread_cond_broadcast(&rt_done);
			continue;
		}
		t->state = FX_T_RUNNING;
		pthread_mutex_unlock(&rt_lock);
		run_one(h, t);
		pthread_mutex_lock(&rt_lock);
		settle_locked(t);
	}
	pthread_mutex_unlock(&rt_lock);
	if (h->altstack) {
		stack_t off = { .ss_flags = SS_DISABLE };

		sigaltstack(&off, NULL);
	}
	return NULL;
}

int fx_rt_get(void)
{
	int ret = 0;

	pthread_mutex_lock(&rt_lock);
	if (rt_refs++ == 0) {
		const char *e = getenv("SMX_FLEXIO_HARTS");
		unsigned int n = e ? (unsigned int)strtoul(e, NULL, 0) : 4, i;

		if (n < 1 || n > USER_EUS_LIMIT)
			n = 4;
		harts = calloc(n, sizeof(*harts));
		if (!harts) {
			rt_refs = 0;
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < n; i++) {
			harts[i].idx = i;
			harts[i].lock = &rt_lock;
			pthread_cond_init(&harts[i].cv, NULL);
			if (pthread_create(&harts[i].th, NULL, hart_main, &harts[i])) {
				ret = -EAGAIN;
				break;
			}
		}
		nharts = i;
		if (!nharts) {
			free(harts);
			harts = NULL;
			rt_refs = 0;
		} else {
			if (!FX_ASAN)
				smx_fault_init();
			ret = 0;
		}
	}
out:
	pthread_mutex_unlock(&rt_lock);
	return ret;
}

void fx_rt_put(void)
{
	struct fx_hart *hs;
	unsigned int n, i;

	pthread_mutex_lock(&rt_lock);
	if (!rt_refs || --rt_refs) {
		pthread_mutex_unlock(&rt_lock);
		return;
	}
	hs = harts;
	n = nharts;
	for (i = 0; i < n; i++) {
		hs[i].stop = true;
		pthread_cond_signal(&hs[i].cv);
	}
	pthread_mutex_unlock(&rt_lock);
	for (i = 0; i < n; i++) {
		pthread_join(hs[i].th, NULL);
		pthread_cond_destroy(&hs[i].cv);
		free(hs[i].altstack);
	}
	pthread_mutex_lock(&rt_lock);
	if (!rt_refs) {
		harts = NULL;
		nharts = 0;
		free(hs);
	}
	pthread_mutex_unlock(&rt_lock);
}

struct fx_thread *fx_thread_new(struct flexio_process *p, const char *name,
				const struct flexio_affinity *aff)
{
	struct fx_thread *t = calloc(1, sizeof(*t));
	unsigned int hi;

	if (!t)
		return NULL;
	t->stack_size = FX_STACK_SIZE;
	t->stack = mmap(NULL, t->stack_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (t->stack == MAP_FAILED) {
		free(t);
		return NULL;
	}
	t->proc = p;
	t->name = name;
	t->dtctx.t = t;
	pthread_cond_init(&t->done_cv, NULL);
	pthread_mutex_lock(&rt_lock);
	if (aff && aff->type != FLEXIO_AFFINITY_NONE)
		hi = aff->id % nharts;
	else
		hi = rr_next++ % nharts;
	t->hart = &harts[hi];
	if (p)
		t->id = p->next_thread_id++;
	pthread_mutex_unlock(&rt_lock);
	return t;
}

void fx_thread_free(struct fx_thread *t)
{
	if (!t)
		return;
	munmap(t->stack, t->stack_size);
	pthread_cond_destroy(&t->done_cv);
	free(t);
}

void fx_thread_trigger(struct fx_thread *t)
{
	pthread_mutex_lock(&rt_lock);
	if (t->state == FX_T_FINISHED || process_stopped(t)) {
		pthread_mutex_unlock(&rt_lock);
		return;
	}
	if (t->state == FX_T_IDLE || t->state == FX_T_SUSPENDED)
		enqueue_locked(t);
	else
		t->pending = true;
	pthread_mutex_unlock(&rt_lock);
}

bool fx_thread_run_sync(struct fx_thread *t, unsigned int timeout_ms)
{
	struct timespec dl;
	uint64_t seq;
	bool ok = true;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&rt_lock);
	seq = t->done_seq;
	if (t->state == FX_T_FINISHED)
		t->state = FX_T_IDLE;	/* an RPC thread may run again after finish */
	enqueue_locked(t);
	while (t->done_seq == seq) {
		if (pthread_cond_timedwait(&rt_done, &rt_lock, &dl) == ETIMEDOUT) {
			ok = t->done_seq != seq;
			break;
		}
	}
	pthread_mutex_unlock(&rt_lock);
	return ok;
}

void fx_thread_quiesce(struct fx_thread *t)
{
	pthread_mutex_lock(&rt_lock);
	t->pending = false;
	if (t->state == FX_T_QUEUED) {
		/* unlink from the run queue */
		struct fx_hart *h = t->hart;
		struct fx_thread **pp = &h->qhead, *prev = NULL;

		while (*pp && *pp != t) {
			prev = *pp;
			pp = &(*pp)->qnext;
		}
		if (*pp) {
			*pp = t->qnext;
			if (h->qtail == t)
				h->qtail = prev;
			t->state = FX_T_IDLE;
		}
	}
	while (t->state == FX_T_RUNNING || t->state == FX_T_QUEUED)
		pthread_cond_wait(&rt_done, &rt_lock);
	pthread_mutex_unlock(&rt_lock);
}

/* ---- device API: thread context and control --------------------------------- */
static struct fx_thread *cur_or_die(const char *what)
{
	if (!fx_cur) {
		fx_err("%s called outside a DPA thread", what);
		abort();
	}
	return fx_cur;
}

int flexio_dev_get_thread_ctx(struct flexio_dev_thread_ctx **dtctx)
{
	if (!dtctx)
		return -1;
	if (!fx_cur) {
		*dtctx = NULL;
		return -1;
	}
	*dtctx = &fx_cur->dtctx;
	return 0;
}

static struct fx_thread *ctx_thread(struct flexio_dev_thread_ctx *dtctx)
{
	if (dtctx)
		return dtctx->t;
	return fx_cur;
}

uint32_t flexio_dev_get_thread_id(struct flexio_dev_thread_ctx *dtctx)
{
	struct fx_thread *t = ctx_thread(dtctx);

	return t ? t->id : UINT32_MAX;
}

flexio_uintptr_t flexio_dev_get_thread_local_storage(struct flexio_dev_thread_ctx *dtctx)
{
	struct fx_thread *t = ctx_thread(dtctx);

	return t ? t->tls : 0;
}

const char *flexio_dev_get_current_thread_name(void)
{
	return fx_cur ? fx_cur->name : NULL;
}

static void __attribute__((noreturn)) end_activation(enum fx_outcome how, const char *what)
{
	struct fx_thread *t = cur_or_die(what);

	t->outcome = how;
	switch_to_sched(t, false);
	abort();
}

void flexio_dev_thread_reschedule(void)
{
	end_activation(FX_END_RESCHEDULE, "flexio_dev_thread_reschedule");
}

void flexio_dev_reschedule(void)
{
	end_activation(FX_END_RESCHEDULE, "flexio_dev_reschedule");
}

void flexio_dev_thread_finish(void)
{
	end_activation(FX_END_FINISH, "flexio_dev_thread_finish");
}

void flexio_dev_thread_retrigger(void)
{
	end_activation(FX_END_RETRIGGER, "flexio_dev_thread_retrigger");
}

void flexio_dev_process_finish(void)
{
	struct fx_thread *t = cur_or_die("flexio_dev_process_finish");

	if (t->proc) {
		pthread_mutex_lock(&t->proc->lock);
		t->proc->finished = true;
		if (!t->proc->dpa_status)
			t->proc->dpa_status = FLEXIO_DEV_PROCESS_FINISHED;
		pthread_mutex_unlock(&t->proc->lock);
	}
	end_activation(FX_END_PROCESS_FINISH, "flexio_dev_process_finish");
}

void flexio_dev_finish(void)
{
	flexio_dev_process_finish();
}

void flexio_dev_yield(struct flexio_dev_thread_ctx *dtctx)
{
	struct fx_thread *t = cur_or_die("flexio_dev_yield");

	(void)dtctx;
	if (!t->continuable)
		return;		/* "no effect" for non-continuable handlers */
	t->outcome = FX_END_YIELD;
	switch_to_sched(t, true);
	/* resumed by the next trigger */
}

void flexio_dev_yield_and_retrigger(void)
{
	struct fx_thread *t = cur_or_die("flexio_dev_yield_and_retrigger");

	if (!t->continuable)
		end_activation(FX_END_RETRIGGER, "flexio_dev_yield_and_retrigger");
	pthread_mutex_lock(&rt_lock);
	t->pending = true;
	pthread_mutex_unlock(&rt_lock);
	t->outcome = FX_END_YIELD;
	switch_to_sched(t, true);
}

/*
 * Recoverable errors are those the DPA takes as a fault of one thread, not
 * of the process: here, a window access the window does not allow (a memory
 * fault through the window on the DPA). With a process error handler the
 * activation ends at the fault and the handler runs on the same thread, its
 * argument the thread's context (flexio_dev_get_errno tells what happened);
 * it ends like any handler, a plain return counting as reschedule. A fault
 * inside the error handler returns to its caller, as without a handler.
 */
void fx_thread_fault(struct fx_thread *t, uint64_t err)
{
	void *h = t->proc ? t->proc->err_handler : NULL;

	t->dev_errno = err;
	if (!h || t->in_err_handler || t != fx_cur)
		return;
	t->in_err_handler = true;
	((flexio_dev_event_handler_t *)h)((uint64_t)(uintptr_t)&t->dtctx);
	end_activation(FX_END_RESCHEDULE, "the process error handler");
}

void flexio_dev_error(uint8_t error)
{
	struct fx_thread *t = cur_or_die("flexio_dev_error");
	uint8_t code = error >= FLEXIO_DEV_ERROR_USER_FIRST ? error : FLEXIO_DEV_ERROR_ILLEGAL_ERR;

	t->error_code = code;
	if (t->proc)
		fx_process_fatal(t->proc, code,
				 code >= FLEXIO_DEV_ERROR_USER_FIRST ? FLEXIO_DEV_USER_ERROR
								     : FLEXIO_DEV_FATAL_ERROR);
	end_activation(FX_END_ERROR, "flexio_dev_error");
}

uint64_t flexio_dev_get_errno(struct flexio_dev_thread_ctx *dtctx)
{
	struct fx_thread *t = ctx_thread(dtctx);

	return t ? t->dev_errno : 0;
}

void flexio_dev_rst_errno(struct flexio_dev_thread_ctx *dtctx)
{
	struct fx_thread *t = ctx_thread(dtctx);

	if (t)
		t->dev_errno = 0;
}

uint64_t flexio_dev_get_and_rst_errno(struct flexio_dev_thread_ctx *dtctx)
{
	struct fx_thread *t = ctx_thread(dtctx);
	uint64_t v = 0;

	if (t) {
		v = t->dev_errno;
		t->dev_errno = 0;
	}
	return v;
}

/* ---- simulator debug prints ------------------------------------------------- */
void print_sim_str(const char *str, int len)
{
	fprintf(stderr, "%.*s", len, str);
}

void print_sim_hex(uint64_t val, int len)
{
	(void)len;
	fprintf(stderr, "%llx", (unsigned long long)val);
}

void print_sim_int(int64_t val, int len)
{
	(void)len;
	fprintf(stderr, "%lld", (long long)val);
}

void print_sim_putc(char c)
{
	fputc(c, stderr);
}

void sim_trace(uint64_t text, uint64_t val)
{
	fprintf(stderr, "sim_trace %llx %llx\n", (unsigned long long)text,
		(unsigned long long)val);
}

void smx_flexio_stub_called(const char *name)
{
	fx_err("host stub of device function %s was called on the host; device entry points "
	       "run through flexio_process_call / event handlers", name);
	abort();
}
