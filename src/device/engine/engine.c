/* SPDX-License-Identifier: MIT */
/*
 * The engine instance: locks, per-object engine state (created on first use,
 * freed by the firmware's destroy hooks), the firmware hooks that tell the
 * engine about QP state changes, interrupt vectors, and the doorbell watcher.
 *
 * THE DOORBELL WATCHER. A device thread that, while any QP exists, compares
 * every QP's send doorbell record with the engine's consumer counter and
 * executes what a client posted by plain stores (DEVX clients never call the
 * library), flushes receives posted to QPs in error, notices CQ arm records
 * and EQ doorbells stored in UAR pages (eng_mmio.c),
 * and retries requesters parked on an RNR or ACK timer when it expires.
 * Period: 100 us for 20 ms after the last work it found itself, then 1 ms,
 * 5 ms after a second of quiet, always shortened to the earliest requester
 * timer; a QP state change asks for one pass at once. SOFTMLX5_WATCH_SPIN_US
 * makes it look again at once (yielding between passes) for that long after
 * work it found: store-rung doorbells then take microseconds instead of
 * ~100 us, at the price of a busy thread -- worth it with a spare core. With no QP at all it
 * sleeps on a condition variable until one is created.
 *
 * Doorbells that arrive as MMIO stores (eng_mmio_write) are executed by the
 * storing thread and do not make the watcher poll faster: a watcher waking
 * every 100 us beside a busy data path costs that data path dearly when the
 * two CPUs are hyperthreads of one core (a VM's vCPUs often are), and there
 * is nothing for it to find. Hand-written doorbells make it find work, which
 * is what keeps it fast; WQEs it finds on a QP that was rung through MMIO
 * before (caught between the record and the doorbell) do not count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <sys/prctl.h>

#include "device/engine/eng_loc.h"
#include "util/fault.h"
#include "util/log.h"

uint64_t eng_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *eng_synd_str(uint8_t s)
{
	switch (s) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR: return "LOCAL_LENGTH_ERR";
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR: return "LOCAL_QP_OP_ERR";
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR: return "LOCAL_PROT_ERR";
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case MLX5_CQE_SYNDROME_MW_BIND_ERR: return "MW_BIND_ERR";
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR: return "BAD_RESP_ERR";
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR: return "LOCAL_ACCESS_ERR";
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR: return "REMOTE_INVAL_REQ_ERR";
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR: return "REMOTE_ACCESS_ERR";
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR: return "REMOTE_OP_ERR";
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR: return "TRANSPORT_RETRY_EXC_ERR";
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR: return "REMOTE_ABORTED_ERR";
	default: return "unknown syndrome";
	}
}

/* ------------------------------------------------------------------ */
/* Object state                                                       */
/* ------------------------------------------------------------------ */

static void eng_link(struct eng *e, struct eng_obj *o, enum eng_kind kind)
{
	struct eng_obj *head = &e->list[kind];

	o->kind = kind;
	o->next = head;
	o->prev = head->prev;
	head->prev->next = o;
	head->prev = o;
}

static void eng_unlink(struct eng_obj *o)
{
	o->prev->next = o->next;
	o->next->prev = o->prev;
	o->next = o->prev = o;
}

static void eng_watcher_qps(struct eng *e, int delta)
{
	pthread_mutex_lock(&e->wlock);
	e->wqps += delta;
	pthread_cond_signal(&e->wcond);
	pthread_mutex_unlock(&e->wlock);
}

/* Engine state of another file's object kind (eng_eth.c). */
void eng_obj_add(struct eng *e, struct eng_obj *o, enum eng_kind kind)
{
	eng_link(e, o, kind);
}

/* Ethernet SQs are queues the watcher polls like QPs (eng_eth.c). */
void eng_watch_add(struct eng *e, int delta)
{
	eng_watcher_qps(e, delta);
}

/* Work may be waiting (a queue became ready): the watcher looks now. */
void eng_watch_kick(struct eng *e)
{
	pthread_mutex_lock(&e->wlock);
	e->last_activity = eng_now();
	pthread_cond_signal(&e->wcond);
	pthread_mutex_unlock(&e->wlock);
}

struct eng_qp *eng_qp_of(struct eng *e, struct fw_qp *qp)
{
	struct eng_qp *q = qp->eng;

	if (q)
		return q;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->qp = qp;
	eng_link(e, &q->o, ENG_K_QP);
	qp->eng = q;
	e->nqps++;
	eng_watcher_qps(e, 1);
	return q;
}

struct eng_cq *eng_cq_of(struct eng *e, struct fw_cq *cq)
{
	struct eng_cq *c = cq->eng;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cq = cq;
	/* Whatever the arm record holds now is not a new request. */
	c->arm_word = be32toh(__atomic_load_n(&cq->dbrec[1], __ATOMIC_ACQUIRE));
	eng_link(e, &c->o, ENG_K_CQ);
	cq->eng = c;
	return c;
}

struct eng_eq *eng_eq_of(struct eng *e, struct fw_eq *eq)
{
	struct eng_eq *q = eq->eng;

	if (q)
		return q;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->eq = eq;
	/* An EQ starts in the state its creator wrote into eqc.st. */
	q->always_armed = DEVX_GET(eqc, eq->ctx, st) == MLX5_EQC_ST_ALWAYS_ARMED;
	q->armed = eq->internal || q->always_armed ||
		   DEVX_GET(eqc, eq->ctx, st) == MLX5_EQC_ST_ARMED;
	eng_link(e, &q->o, ENG_K_EQ);
	eq->eng = q;
	return q;
}

struct eng_srq *eng_srq_of(struct eng *e, struct fw_srq *srq)
{
	struct eng_srq *s = srq->eng;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->srq = srq;
	eng_link(e, &s->o, ENG_K_SRQ);
	srq->eng = s;
	return s;
}

/* ------------------------------------------------------------------ */
/* Firmware hooks (called by command handlers, fw->lock held)        */
/* ------------------------------------------------------------------ */

static void eng_hook_qp_created(void *arg, struct fw_qp *qp)
{
	struct eng *e = arg;

	smx_shm_tomb_clear(e->shm, qp->obj.id);	/* a QPN alive again */
	eng_qp_of(e, qp);
	if (qp->scq)
		eng_cq_of(e, qp->scq);
	if (qp->rcq)
		eng_cq_of(e, qp->rcq);
}

/* Everything the hardware does when a QP enters ERR. */
static void eng_qp_entered_err(struct eng *e, struct eng_qp *q)
{
	struct fw_qp *qp = q->qp;

	if (!q->busy) {
		q->wait = ENG_WAIT_NONE;
		q->have_resp = false;
		eng_sq_flush(e, q);
	}
	eng_rq_flush(e, q);
	if (qp->srq && !q->last_wqe_sent) {
		q->last_wqe_sent = true;
		eng_async_event(e, ENG_EVT_SRQ_LAST_WQE, qp->obj.id, false,
				qp->obj.uid);
	}
}

void eng_qp_to_err(struct eng *e, struct fw_qp *qp)
{
	struct eng_qp *q = eng_qp_of(e, qp);

	if (qp->state == MLX5_QPC_STATE_ERR)
		return;
	qp->state = MLX5_QPC_STATE_ERR;
	DEVX_SET(qpc, qp->qpc, state, MLX5_QPC_STATE_ERR);
	eng_gen_bump(e);	/* direct WRITE / READ to it must stop */
	if (q)
		eng_qp_entered_err(e, q);
}

static void eng_hook_qp_modified(void *arg, struct fw_qp *qp, uint32_t old)
{
	struct eng *e = arg;
	struct eng_qp *q = eng_qp_of(e, qp);

	if (!q)
		return;
	switch (qp->state) {
	case MLX5_QPC_STATE_RST:
		/* The driver restarts its counters at 0 (and zeroes the
		 * doorbell record); so does the device. */
		eng_drq_close(e, q, true);
		q->rrec.valid = false;
		q->sq_ci = 0;
		q->sq_tx = 0;
		q->trace_next = 0;
		q->nout = 0;
		q->nrd = 0;
		q->rq_ci = 0;
		q->wait = ENG_WAIT_NONE;
		q->attempted = false;
		q->have_resp = false;
		q->sig_drain = false;
		q->tx_blocked = false;
		q->resending = false;
		q->rd_resume = false;
		q->tx_resume = false;
		q->late_nak = false;
		eng_resp_free(e, q);	/* a reset responder starts afresh */
		q->last_wqe_sent = false;
		q->db_mmio = false;
		break;
	case MLX5_QPC_STATE_ERR:
		if (old != MLX5_QPC_STATE_ERR)
			eng_qp_entered_err(e, q);
		break;
	case MLX5_QPC_STATE_RTS:
		/* A DCI starts a new stream: DCTs forget what they kept of
		 * its old one (its PSNs begin again). */
		if (old == MLX5_QPC_STATE_RTR)
			q->dc_gen++;
		break;
	case MLX5_QPC_STATE_SQD:
		/* Where software may cancel from (mlx5dv_qp_cancel_posted_send_wrs). */
		DEVX_SET(qpc, qp->qpc, hw_sq_wqebb_counter, q->sq_ci);
		/* Synchronous fabric: nothing is outstanding unless the
		 * requester is parked on a timer. */
		if (old == MLX5_QPC_STATE_RTS && q->wait == ENG_WAIT_NONE)
			eng_async_event(e, ENG_EVT_SQ_DRAINED, qp->obj.id,
					false, qp->obj.uid);
		break;
	default:
		break;
	}
	/* WQEs posted before RTS (or during SQD) are now executable: let the
	 * watcher look at once (one pass; its period stays as it was). */
	pthread_mutex_lock(&e->wlock);
	e->scan_now = true;
	pthread_cond_signal(&e->wcond);
	pthread_mutex_unlock(&e->wlock);
}

static void eng_hook_free(void *arg, void *state)
{
	struct eng *e = arg;
	struct eng_obj *o = state;

	eng_unlink(o);
	if (o->kind == ENG_K_QP) {
		struct fw_qp *qp = ((struct eng_qp *)o)->qp;

		/* What it received stays known to its requesters: a lost last
		 * ACK must not fail them (smx_shm_tomb_put()). */
		if ((qp->st == MLX5_QPC_ST_RC || qp->st == MLX5_QPC_ST_XRC) &&
		    qp->state != MLX5_QPC_STATE_RST &&
		    qp->state != MLX5_QPC_STATE_INIT)
		{
			smx_shm_tomb_put(e->shm, qp->obj.id,
					 DEVX_GET(qpc, qp->qpc, next_rcv_psn));
			if (e->udp)
				eng_udp_tomb_put(e, qp);
		}
		e->nqps--;
		eng_watcher_qps(e, -1);
		eng_drq_close(e, (struct eng_qp *)o, true);
		eng_sq_free(e, (struct eng_qp *)o);
	}
	if (o->kind == ENG_K_SQ)
		eng_watcher_qps(e, -1);
	free(o);
}

/* An event the firmware raises about a QP or DCT (DCT drained). */
static void eng_hook_qp_event(void *arg, struct fw_qp *qp, uint8_t type)
{
	eng_async_event(arg, type, qp->obj.id, false, qp->obj.uid);
}

void eng_gen_bump(struct eng *e)
{
	e->gen++;
	eng_direct_bump(e);
}

/* A command ran: keys and QPs may have changed. */
static void eng_hook_changed(void *arg)
{
	eng_gen_bump(arg);
	eng_fabric_cache_gids(arg);	/* a bound port's addresses move */
}

static const struct fw_hooks eng_hooks = {
	.changed = eng_hook_changed,
	.qp_created = eng_hook_qp_created,
	.qp_modified = eng_hook_qp_modified,
	.eng_free = eng_hook_free,
	.qp_event = eng_hook_qp_event,
	.sq_changed = eng_eth_sq_changed,
	.rq_changed = eng_eth_rq_changed,
};

/* ------------------------------------------------------------------ */
/* Interrupts                                                         */
/* ------------------------------------------------------------------ */

void eng_irq_fire(struct eng *e, uint32_t vector)
{
	/* The device keeps the vector table (smx_dev_irq_register). */
	smx_dev_irq_fire(e->dev, vector);
}

/* ------------------------------------------------------------------ */
/* The doorbell watcher                                               */
/* ------------------------------------------------------------------ */

void eng_timer_note(struct eng *e, uint64_t deadline)
{
	if (deadline >= e->next_timer)
		return;
	/* wlock is a leaf: fine under fw->lock. */
	pthread_mutex_lock(&e->wlock);
	e->next_timer = deadline;
	e->timer_used = deadline;
	/* A watcher that wakes by then looks at next_timer when it does:
	 * no wake-up (a system call, and on a busy core a context switch
	 * in the requester's path) for the usual deadlines of a millisecond
	 * and more (eng_watcher()'s naps). */
	if (deadline < e->watch_wake)
		pthread_cond_signal(&e->wcond);
	pthread_mutex_unlock(&e->wlock);
}

bool eng_scan(struct eng *e, uint64_t now)
{
	struct eng_obj *o, *n;
	bool work = false;

	e->next_timer = UINT64_MAX;
	for (o = e->list[ENG_K_QP].next; o != &e->list[ENG_K_QP]; o = n) {
		struct eng_qp *q = (struct eng_qp *)o;
		struct fw_qp *qp = q->qp;
		uint16_t sq_pi, rq_pi;

		n = o->next;
		if (!qp->dbrec)
			continue;
		sq_pi = (uint16_t)be32toh(__atomic_load_n(&qp->dbrec[1],
							  __ATOMIC_ACQUIRE));
		rq_pi = (uint16_t)be32toh(__atomic_load_n(&qp->dbrec[0],
							  __ATOMIC_ACQUIRE));
		if (qp->state == MLX5_QPC_STATE_ERR) {
			if ((qp->sq_wqebbs && sq_pi != q->sq_ci) ||
			    (qp->rq_wqes && rq_pi != q->rq_ci)) {
				eng_sq_flush(e, q);
				eng_rq_flush(e, q);
				work = true;
			}
			continue;
		}
		if (q->wait != ENG_WAIT_NONE) {
			if (now < q->deadline) {
				eng_timer_note(e, q->deadline);
				continue;
			}
			eng_sq_run(e, q);	/* retry it, or give up */
			work = true;
		} else if (qp->sq_wqebbs && sq_pi != q->sq_ci) {
			uint16_t ci = q->sq_ci, tx = q->sq_tx;

			eng_sq_run(e, q);
			/* Progress is a WQE completed or sent to another
			 * process (whose response completes it later). A QP
			 * rung through MMIO was caught between its record and
			 * its doorbell, which is on its way: no reason to poll
			 * faster (and contend with that thread). */
			work |= (q->sq_ci != ci || q->sq_tx != tx) &&
				!q->db_mmio;
		}
		if (q->wait != ENG_WAIT_NONE)
			eng_timer_note(e, q->deadline);
	}
	for (o = e->list[ENG_K_CQ].next; o != &e->list[ENG_K_CQ]; o = o->next) {
		struct eng_cq *c = (struct eng_cq *)o;
		uint32_t w = be32toh(__atomic_load_n(&c->cq->dbrec[1],
						     __ATOMIC_ACQUIRE));

		if (w != c->arm_word) {
			eng_cq_arm(e, c->cq, w);
			work = true;
		}
	}
	work |= eng_eth_scan(e);
	work |= eng_eq_uar_scan(e);
	/* Packets a fault stage delays go when their time comes, not when
	 * the link next carries something. */
	if (e->fault || e->fault_rx) {
		eng_fabric_fault_poll(e);
		eng_fabric_ring(e);
	}
	return work;
}

void eng_poll(struct eng *e)
{
	uint64_t now = eng_now();
	bool work;

	fw_lock(e->fw);
	work = eng_scan(e, now);
	eng_loop_run(e);
	fw_unlock(e->fw);
	if (work)
		__atomic_store_n(&e->last_activity, now, __ATOMIC_RELAXED);
}

/* The watcher's longest nap while requester timers are in use: as long as
 * the adaptive retransmission timer (eng_sq.c), the shortest deadline a
 * requester sets per message. */
#define ENG_WATCH_TIMER_NAP_NS 1000000ull

static void *eng_watcher(void *arg)
{
	struct eng *e = arg;

	/* Its 100 us naps would otherwise end up to 50 us late (the default
	 * timer slack), which UCX's mlx5 transports see in every message. */
	prctl(PR_SET_TIMERSLACK, 1000ul, 0, 0, 0);

	pthread_mutex_lock(&e->wlock);
	while (!e->stop) {
		uint64_t now, idle, period, next, timer;
		struct timespec ts;

		if (!e->wqps) {
			e->watch_wake = UINT64_MAX;
			pthread_cond_wait(&e->wcond, &e->wlock);
			e->watch_wake = 0;
			continue;
		}
		if (e->scan_now) {
			e->scan_now = false;
			pthread_mutex_unlock(&e->wlock);
			eng_poll(e);
			pthread_mutex_lock(&e->wlock);
			continue;
		}
		now = eng_now();
		idle = __atomic_load_n(&e->last_activity, __ATOMIC_RELAXED);
		idle = idle < now ? now - idle : 0;
		if (idle < e->watch_spin_ns) {
			/* SOFTMLX5_WATCH_SPIN_US: look again at once,
			 * leaving the CPU to whoever else wants it. */
			pthread_mutex_unlock(&e->wlock);
			sched_yield();
			eng_poll(e);
			pthread_mutex_lock(&e->wlock);
			continue;
		}
		period = idle < 20000000ull ? 100000ull :
			 idle < 1000000000ull ? 1000000ull : 5000000ull;
		/* Requester timers in use within the last second: naps of
		 * ENG_WATCH_TIMER_NAP_NS at most, so that a deadline of that
		 * much or more from now falls after the nap and needs no
		 * wake-up (eng_timer_note()). */
		if (period > ENG_WATCH_TIMER_NAP_NS &&
		    e->timer_used + 1000000000ull > now)
			period = ENG_WATCH_TIMER_NAP_NS;
		next = now + period;
		timer = __atomic_load_n(&e->next_timer, __ATOMIC_RELAXED);
		if (timer < next)
			next = timer > now ? timer : now;
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		if (next > now) {
			int r;

			e->watch_wake = next;
			r = pthread_cond_timedwait(&e->wcond, &e->wlock, &ts);
			e->watch_wake = 0;
			if (r != ETIMEDOUT)
				continue;	/* woken: re-evaluate */
		}
		if (e->stop || !e->wqps)
			continue;
		pthread_mutex_unlock(&e->wlock);
		eng_poll(e);
		pthread_mutex_lock(&e->wlock);
	}
	pthread_mutex_unlock(&e->wlock);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                           */
/* ------------------------------------------------------------------ */

/* A microsecond knob from the environment, in ns (0 if unset or bad). */
uint64_t eng_env_us(const char *name)
{
	const char *v = getenv(name);
	unsigned long us;
	char *end;

	if (!v || !*v)
		return 0;
	us = strtoul(v, &end, 10);
	if (*end || us > 10000000ul) {
		smx_err("%s=\"%s\" is not a number of microseconds up to "
			"10000000; using 0", name, v);
		return 0;
	}
	return (uint64_t)us * 1000;
}

struct eng *eng_create(struct smx_dev *dev, struct fw *fw, uint8_t *bar,
		       uint32_t nr_uars)
{
	struct eng *e = aligned_alloc(64, sizeof(struct eng));
	pthread_condattr_t ca;
	const char *v;
	int k;

	if (!e)
		return NULL;
	/* What memory keys name may be unmapped under us (eng_mkey.c). */
	smx_fault_init();
	memset(e, 0, sizeof(*e));
	e->dev = dev;
	e->fw = fw;
	eng_fabric_cache_gids(e);
	e->bar = bar;
	e->nr_uars = nr_uars;
	e->next_timer = UINT64_MAX;
	e->watch_spin_ns = eng_env_us("SOFTMLX5_WATCH_SPIN_US");
	v = getenv("SOFTMLX5_FAST");
	e->fast = !(v && !strcmp(v, "0"));
	v = getenv("SOFTMLX5_ADAPTIVE_RETRANS");
	e->adaptive = !(v && !strcmp(v, "0"));
	for (k = 0; k < ENG_K_NUM; k++)
		e->list[k].next = e->list[k].prev = &e->list[k];
	pthread_mutex_init(&e->wlock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->wcond, &ca);
	pthread_condattr_destroy(&ca);
	fw_set_hooks(fw, &eng_hooks, e);
	eng_fabric_fault_init(e);
	eng_loop_start(e);
	eng_wire_start(e);
	if (pthread_create(&e->thr, NULL, eng_watcher, e) == 0)
		e->thr_started = true;
	else
		smx_err("engine: cannot start the doorbell watcher; doorbells "
			"written without the library will not be seen");
	return e;
}

void eng_destroy(struct eng *e)
{
	int k;

	if (!e)
		return;
	eng_wire_stop(e);
	eng_udp_stop(e);
	eng_fabric_stop(e);
	fw_set_hooks(e->fw, NULL, NULL);
	pthread_mutex_lock(&e->wlock);
	e->stop = true;
	pthread_cond_signal(&e->wcond);
	pthread_mutex_unlock(&e->wlock);
	if (e->thr_started)
		pthread_join(e->thr, NULL);
	fw_lock(e->fw);
	for (k = 0; k < ENG_K_NUM; k++) {
		while (e->list[k].next != &e->list[k]) {
			struct eng_obj *o = e->list[k].next;

			switch (o->kind) {
			case ENG_K_QP:
				((struct eng_qp *)o)->qp->eng = NULL;
				eng_sq_free(e, (struct eng_qp *)o);
				break;
			case ENG_K_CQ: ((struct eng_cq *)o)->cq->eng = NULL; break;
			case ENG_K_EQ: ((struct eng_eq *)o)->eq->eng = NULL; break;
			case ENG_K_SRQ: ((struct eng_srq *)o)->srq->eng = NULL; break;
			case ENG_K_SQ: ((struct eng_sq *)o)->sq->eng = NULL; break;
			case ENG_K_RQ: ((struct eng_rq *)o)->rq->eng = NULL; break;
			default: break;
			}
			eng_unlink(o);
			free(o);
		}
	}
	fw_unlock(e->fw);
	eng_loop_stop(e);	/* the watcher received on it until joined */
	eng_fabric_fault_free(e);	/* and released held packets */
	pthread_cond_destroy(&e->wcond);
	pthread_mutex_destroy(&e->wlock);
	free(e);
}

void eng_mmio_write(struct eng *e, uint64_t offset, const void *buf, size_t len)
{
	bool clk, paused;

	fw_lock(e->fw);
	clk = eng_clock_begin(e);
	eng_mmio(e, offset, buf, len);
	eng_loop_run(e);
	eng_clock_end(e, clk);
	paused = e->tx_paused;
	fw_unlock(e->fw);
	/* A requester stopped for the responses in our inbox (a lossy link,
	 * eng_sq.c): this thread takes them now, as a poller would, rather
	 * than leave the requester stopped until the application polls. */
	if (paused)
		eng_fabric_progress(e);
}
