/* SPDX-License-Identifier: MIT */
/*
 * Command queues: flexio_cmdq_* hand tasks (a device function and one 64-bit
 * argument) to a pool of DPA worker threads. Each activation of a worker runs
 * at most batch_size tasks on its own DPA stack and retriggers itself while
 * tasks remain; a queue created PENDING only collects tasks until
 * flexio_cmdq_state_running(). The queue itself is library bookkeeping (no
 * firmware object), as on the SDK where it is a ring the workers poll.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "flexio/host/fx_priv.h"

#define FX_CMDQ_MAX_WORKERS 256

/* One activation of a worker: up to batch_size tasks. */
static uint64_t cmdq_worker(void *argbuf, void *unused)
{
	struct flexio_cmdq *q = argbuf;
	bool more;
	int n;

	(void)unused;
	for (n = 0; n < q->batch_size; n++) {
		struct fx_cmdq_task task;

		pthread_mutex_lock(&q->lock);
		if (!q->is_running || q->dying || q->head == q->tail) {
			pthread_mutex_unlock(&q->lock);
			break;
		}
		task = q->ring[q->head++ % q->cap];
		q->running++;
		pthread_mutex_unlock(&q->lock);
		((flexio_dev_rpc_handler_t *)task.fn)(task.arg);
		pthread_mutex_lock(&q->lock);
		q->running--;
		q->done++;
		pthread_mutex_unlock(&q->lock);
	}
	pthread_mutex_lock(&q->lock);
	more = q->is_running && !q->dying && q->head != q->tail;
	pthread_mutex_unlock(&q->lock);
	if (more)
		fx_thread_trigger(fx_cur);	/* one pending activation */
	return 0;
}

static void cmdq_free(struct flexio_cmdq *q)
{
	int i;

	for (i = 0; q->workers && i < q->nworkers; i++)
		fx_thread_free(q->workers[i]);
	free(q->workers);
	free(q->ring);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

flexio_status flexio_cmdq_create(struct flexio_process *process, struct flexio_cmdq_attr *fattr,
				 struct flexio_cmdq **cmdq)
{
	struct flexio_cmdq *q;
	int i;

	if (cmdq)
		*cmdq = NULL;
	if (!process || !fattr || !cmdq) {
		fx_err("flexio_cmdq_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (fattr->workers < 1 || fattr->workers > FX_CMDQ_MAX_WORKERS || fattr->batch_size < 1 ||
	    (fattr->state != FLEXIO_CMDQ_STATE_PENDING && fattr->state != FLEXIO_CMDQ_STATE_RUNNING)) {
		fx_err("flexio_cmdq_create: %d workers (1..%d), batch size %d (>= 1), state %d",
		       fattr->workers, FX_CMDQ_MAX_WORKERS, fattr->batch_size, (int)fattr->state);
		return FLEXIO_STATUS_FAILED;
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		goto nomem;
	pthread_mutex_init(&q->lock, NULL);
	q->proc = process;
	q->batch_size = fattr->batch_size;
	q->is_running = fattr->state == FLEXIO_CMDQ_STATE_RUNNING;
	q->cap = 64;
	q->ring = calloc(q->cap, sizeof(*q->ring));
	q->workers = calloc((size_t)fattr->workers, sizeof(*q->workers));
	if (!q->ring || !q->workers) {
		cmdq_free(q);
		goto nomem;
	}
	for (i = 0; i < fattr->workers; i++) {
		struct fx_thread *t = fx_thread_new(process, "cmdq_worker", NULL);

		if (!t) {
			cmdq_free(q);
			goto nomem;
		}
		t->unpack = cmdq_worker;
		t->argbuf = q;
		q->workers[q->nworkers++] = t;
	}
	pthread_mutex_lock(&process->lock);
	q->next = process->cmdqs;
	process->cmdqs = q;
	pthread_mutex_unlock(&process->lock);
	*cmdq = q;
	return FLEXIO_STATUS_SUCCESS;
nomem:
	fx_err("flexio_cmdq_create: out of memory");
	return FLEXIO_STATUS_FAILED;
}

flexio_status flexio_cmdq_task_add(struct flexio_cmdq *cmdq, flexio_func_t *host_func,
				   uint64_t arg)
{
	struct fx_thread *wake = NULL;
	struct fx_func *f;
	void *fn;

	if (!cmdq || !host_func) {
		fx_err("flexio_cmdq_task_add: queue and function are required");
		return FLEXIO_STATUS_FAILED;
	}
	f = fx_app_find_func(cmdq->proc->app, host_func);
	if (!f) {
		fx_err("flexio_cmdq_task_add: function %p is not registered with app '%s'",
		       (void *)host_func, cmdq->proc->app->name);
		return FLEXIO_STATUS_FAILED;
	}
	dlerror();
	fn = dlsym(cmdq->proc->dl, f->dev_name);
	if (!fn) {
		fx_err("flexio_cmdq_task_add: '%s' is not in the device image", f->dev_name);
		return FLEXIO_STATUS_FAILED;
	}
	pthread_mutex_lock(&cmdq->lock);
	if (cmdq->dying) {
		pthread_mutex_unlock(&cmdq->lock);
		fx_err("flexio_cmdq_task_add: the queue is being destroyed");
		return FLEXIO_STATUS_FAILED;
	}
	if (cmdq->tail - cmdq->head == cmdq->cap) {
		struct fx_cmdq_task *r = calloc(cmdq->cap * 2, sizeof(*r));
		size_t i;

		if (!r) {
			pthread_mutex_unlock(&cmdq->lock);
			fx_err("flexio_cmdq_task_add: out of memory");
			return FLEXIO_STATUS_FAILED;
		}
		for (i = 0; i < cmdq->cap; i++)
			r[i] = cmdq->ring[(cmdq->head + i) % cmdq->cap];
		free(cmdq->ring);
		cmdq->ring = r;
		cmdq->tail -= cmdq->head;
		cmdq->head = 0;
		cmdq->cap *= 2;
	}
	cmdq->ring[cmdq->tail++ % cmdq->cap] = (struct fx_cmdq_task){ fn, arg };
	if (cmdq->is_running)
		wake = cmdq->workers[cmdq->next_worker++ % (unsigned int)cmdq->nworkers];
	pthread_mutex_unlock(&cmdq->lock);
	if (wake)
		fx_thread_trigger(wake);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_cmdq_state_running(struct flexio_cmdq *cmdq)
{
	int i;

	if (!cmdq) {
		fx_err("flexio_cmdq_state_running: NULL queue");
		return FLEXIO_STATUS_FAILED;
	}
	pthread_mutex_lock(&cmdq->lock);
	if (cmdq->is_running) {
		pthread_mutex_unlock(&cmdq->lock);
		fx_err("flexio_cmdq_state_running: the queue is already running");
		return FLEXIO_STATUS_FAILED;
	}
	cmdq->is_running = true;
	pthread_mutex_unlock(&cmdq->lock);
	for (i = 0; i < cmdq->nworkers; i++)
		fx_thread_trigger(cmdq->workers[i]);
	return FLEXIO_STATUS_SUCCESS;
}

int flexio_cmdq_is_empty(struct flexio_cmdq *cmdq)
{
	int empty;

	if (!cmdq)
		return 1;
	pthread_mutex_lock(&cmdq->lock);
	empty = cmdq->head == cmdq->tail && cmdq->running == 0;
	pthread_mutex_unlock(&cmdq->lock);
	return empty;
}

flexio_status flexio_cmdq_destroy(struct flexio_cmdq *cmdq)
{
	struct flexio_process *p;
	struct flexio_cmdq **pp;
	int i;

	if (!cmdq)
		return FLEXIO_STATUS_SUCCESS;
	p = cmdq->proc;
	pthread_mutex_lock(&cmdq->lock);
	cmdq->dying = true;
	pthread_mutex_unlock(&cmdq->lock);
	for (i = 0; i < cmdq->nworkers; i++)
		fx_thread_quiesce(cmdq->workers[i]);
	pthread_mutex_lock(&p->lock);
	for (pp = &p->cmdqs; *pp && *pp != cmdq; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = cmdq->next;
	pthread_mutex_unlock(&p->lock);
	if (cmdq->head != cmdq->tail)
		fx_warn("flexio_cmdq_destroy: %zu tasks never ran", cmdq->tail - cmdq->head);
	cmdq_free(cmdq);
	return FLEXIO_STATUS_SUCCESS;
}
