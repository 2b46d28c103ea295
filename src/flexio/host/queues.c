/* SPDX-License-Identifier: MIT */
/*
 * Queues on the DPA (CQ, QP), device mkeys, the interrupt path that turns a
 * CQ event into a DPA thread activation, and the outbox doorbells DPA threads
 * ring. Every queue is a real PRM object, created through DEVX mailboxes on
 * the process's DEVX context, with its ring and doorbell record in the DPA
 * heap umem (or a host umem); WQEs and CQEs are the device's own formats.
 *
 *   CQ element DPA_THREAD: the CQ's c_eqn is the process's EQ, which
 *   interrupts an MSI vector (mlx5dv_devx_alloc_msi_vector + create_eq). The
 *   process's interrupt thread reads the EQEs, maps each CQN to the CQ's
 *   thread and triggers it; triggers of a busy thread collapse into one
 *   pending activation. The thread re-arms its CQ with flexio_dev_cq_arm();
 *   an arm whose consumer index is behind the producer fires at once, so no
 *   wake-up is lost between the last poll and the arm.
 *
 *   Outbox doorbells: CQ_DB becomes the CQ arm (arm record + UAR store at
 *   0x20), SXD_DB the send doorbell (send counter in the doorbell record +
 *   UAR store at 0x800), EQ_DB the EQ doorbell (UAR 0x40/0x48).
 *
 * Ethernet queues: flexio_sq_create / flexio_rq_create make SQ (+TIS) and
 * RQ (+TIR) objects; flexio_rmp_create an RMP, which DPA QPs may receive
 * through (rq_type SRQ_RMP_XRC_SRQ_XRQ, rmpqn).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "flexio/host/fx_priv.h"
#include <libflexio-dev/flexio_dev_dpa_arch.h>
#include "prm/prm.h"

#define FX_EQ_LOG_SIZE 12	/* see fx_events_get */
#define FX_UAR_CQ_DB 0x20
#define FX_UAR_EQ_DB_ARM 0x40
#define FX_UAR_EQ_DB_NOARM 0x48
#define FX_UAR_SQ_DB 0x800

void fx_event_handler_trigger(struct flexio_thread *th);	/* host/process.c */

struct fx_events {
	struct flexio_process *proc;
	struct mlx5dv_devx_msi_vector *msi;
	struct mlx5dv_devx_eq *eq;
	uint32_t eqn, ci;
	int stop_fd;
	pthread_t th;
	bool started;
	uint64_t eqes;
};

static uint32_t cmd_status(const void *out)
{
	return DEVX_GET(mbox_out, out, status);
}

static uint32_t cmd_syndrome(const void *out)
{
	return DEVX_GET(mbox_out, out, syndrome);
}

static uint8_t *uar_base(struct flexio_process *p)
{
	return (uint8_t *)p->uar->devx->base_addr;
}

static void uar_store64(uint8_t *base, uint32_t reg, uint32_t hi_be, uint32_t lo_be)
{
	uint32_t w[2] = { hi_be, lo_be };
	uint64_t v;

	memcpy(&v, w, sizeof(v));
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint64_t *)(base + reg) = v;
}

/* The EQ doorbell is one 32-bit store (the kernel's eq_update_ci). */
static void uar_store32(uint8_t *base, uint32_t reg, uint32_t v_be)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint32_t *)(base + reg) = v_be;
}

/* ---- queue memory -------------------------------------------------------------- */
/* A qmem as (umem id, offset), and its host address when it is in the DPA heap. */
static int qmem_resolve(struct flexio_process *p, const struct flexio_qmem *q, size_t len,
			const char *who, const char *what, uint32_t *umem_id, uint64_t *off,
			void **host)
{
	*host = NULL;
	if (q->memtype == FLEXIO_MEMTYPE_DPA) {
		if (!q->daddr || !fx_daddr_ok(p, q->daddr, len)) {
			fx_err("%s: %s 0x%llx (+%zu bytes) is not in the DPA heap", who, what,
			       (unsigned long long)q->daddr, len);
			return -1;
		}
		*umem_id = p->heap_umem->umem_id;
		*off = q->daddr - (uintptr_t)p->heap;
		*host = (void *)(uintptr_t)q->daddr;
		return 0;
	}
	if (q->memtype == FLEXIO_MEMTYPE_HOST) {
		if (!q->umem_id) {
			fx_err("%s: %s in host memory needs a umem id", who, what);
			return -1;
		}
		*umem_id = q->umem_id;
		*off = q->humem_offset;
		return 0;
	}
	fx_err("%s: %s: memory type %d is not DPA or HOST", who, what, (int)q->memtype);
	return -1;
}

static bool pd_of(struct flexio_process *p, struct ibv_pd *pd, uint32_t *pdn)
{
	struct mlx5dv_pd dvpd = {};
	struct mlx5dv_obj obj = {};

	if (!pd) {
		*pdn = p->pdn;
		return true;
	}
	obj.pd.in = pd;
	obj.pd.out = &dvpd;
	if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD))
		return false;
	*pdn = dvpd.pdn;
	return true;
}

static bool ctx_ok(struct flexio_process *p, struct ibv_context *ctx, const char *who)
{
	if (!ctx || ctx == p->ibv_ctx || ctx == p->devx_ctx || ctx->device == p->ibv_ctx->device)
		return true;
	fx_err("%s: ibv context of device %s, the process runs on %s", who,
	       ibv_get_device_name(ctx->device), ibv_get_device_name(p->ibv_ctx->device));
	return false;
}

/* ---- the interrupt path ----------------------------------------------------------- */
static struct flexio_cq *cq_find_locked(struct flexio_process *p, uint32_t cqn)
{
	struct flexio_cq *c;

	for (c = p->cqs; c; c = c->next)
		if (c->cqn == cqn)
			return c;
	return NULL;
}

/*
 * Completion EQEs: CQN at 0x38. An EQE is ours when its owner bit equals the
 * pass bit of our consumer index (the device writes 0 on the first pass).
 */
static void ev_drain(struct fx_events *ev)
{
	struct flexio_process *p = ev->proc;
	uint32_t nent = 1u << FX_EQ_LOG_SIZE;
	bool any = false;

	for (;;) {
		uint8_t *eqe = (uint8_t *)ev->eq->vaddr + (size_t)(ev->ci & (nent - 1)) * 64;
		uint8_t own = __atomic_load_n(&eqe[63], __ATOMIC_ACQUIRE) & 1;
		struct flexio_thread *th = NULL;
		struct flexio_cq *c;
		uint32_t cqn;

		if (own != ((ev->ci >> FX_EQ_LOG_SIZE) & 1))
			break;
		memcpy(&cqn, eqe + 0x38, 4);
		cqn = be32toh(cqn) & 0xffffff;
		if (eqe[1] == 0x00) {	/* completion event */
			pthread_mutex_lock(&p->lock);
			c = cq_find_locked(p, cqn);
			if (c && c->element_type == FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD)
				th = c->thread;
			pthread_mutex_unlock(&p->lock);
			if (th)
				fx_event_handler_trigger(th);
			else
				fx_dbg("EQ %u: event for CQ 0x%x with no DPA thread", ev->eqn, cqn);
		} else {
			fx_warn("EQ %u: event type 0x%x (CQ/QP 0x%x) ignored", ev->eqn, eqe[1], cqn);
		}
		ev->ci++;
		ev->eqes++;
		any = true;
	}
	if (any)	/* consumer index, EQ stays always-armed */
		uar_store32(uar_base(p), FX_UAR_EQ_DB_NOARM,
			    htobe32((ev->ci & 0xffffff) | ev->eqn << 24));
}

static void *ev_main(void *arg)
{
	struct fx_events *ev = arg;
	struct pollfd pf[2] = { { .fd = ev->msi->fd, .events = POLLIN },
				{ .fd = ev->stop_fd, .events = POLLIN } };
	uint64_t v;

	for (;;) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fx_err("interrupt thread: poll: %s", strerror(errno));
			break;
		}
		if (pf[1].revents)
			break;
		if (pf[0].revents && read(ev->msi->fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			break;
		ev_drain(ev);
	}
	return NULL;
}

/*
 * The process's EQ: always armed, interrupting its own MSI vector. The
 * interrupt thread hands the consumer index back after every drain (UAR
 * 0x48), so 4096 EQEs only need to hold the events of one drain: at most one
 * completion event per armed CQ.
 */
static struct fx_events *fx_events_get(struct flexio_process *p)
{
	uint32_t in[DEVX_ST_SZ_DW(create_eq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_eq_out)] = {};
	struct fx_events *ev;
	void *eqc;

	pthread_mutex_lock(&p->lock);
	ev = p->ev;
	pthread_mutex_unlock(&p->lock);
	if (ev)
		return ev;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	ev->proc = p;
	ev->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ev->msi = mlx5dv_devx_alloc_msi_vector(p->devx_ctx);
	if (!ev->msi || ev->stop_fd < 0) {
		fx_err("flexio_cq_create: MSI vector for the process's EQ: %s", strerror(errno));
		goto fail;
	}
	DEVX_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	eqc = DEVX_ADDR_OF(create_eq_in, in, eq_context_entry);
	DEVX_SET(eqc, eqc, log_eq_size, FX_EQ_LOG_SIZE);
	DEVX_SET(eqc, eqc, uar_page, p->uar->id);
	DEVX_SET(eqc, eqc, intr, ev->msi->vector);
	DEVX_SET(eqc, eqc, st, MLX5_EQC_ST_ALWAYS_ARMED);
	ev->eq = mlx5dv_devx_create_eq(p->devx_ctx, in, sizeof(in), out, sizeof(out));
	if (!ev->eq) {
		fx_err("flexio_cq_create: CREATE_EQ: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(out), cmd_syndrome(out));
		goto fail;
	}
	ev->eqn = DEVX_GET(create_eq_out, out, eq_number);
	if (pthread_create(&ev->th, NULL, ev_main, ev)) {
		fx_err("flexio_cq_create: cannot start the interrupt thread");
		goto fail;
	}
	ev->started = true;
	pthread_mutex_lock(&p->lock);
	p->ev = ev;
	pthread_mutex_unlock(&p->lock);
	fx_dbg("process EQ %u on MSI vector %d", ev->eqn, ev->msi->vector);
	return ev;
fail:
	if (ev->eq)
		mlx5dv_devx_destroy_eq(ev->eq);
	if (ev->msi)
		mlx5dv_devx_free_msi_vector(ev->msi);
	if (ev->stop_fd >= 0)
		close(ev->stop_fd);
	free(ev);
	return NULL;
}

static void fx_events_free(struct fx_events *ev)
{
	uint64_t one = 1;

	if (!ev)
		return;
	if (ev->started) {
		if (write(ev->stop_fd, &one, sizeof(one)) < 0)
			fx_err("interrupt thread: stop: %s", strerror(errno));
		pthread_join(ev->th, NULL);
	}
	if (ev->eq && mlx5dv_devx_destroy_eq(ev->eq))
		fx_err("process destroy: DESTROY_EQ failed");
	if (ev->msi)
		mlx5dv_devx_free_msi_vector(ev->msi);
	close(ev->stop_fd);
	free(ev);
}

void fx_queues_process_free(struct flexio_process *p)
{
	while (p->cmdqs)
		flexio_cmdq_destroy(p->cmdqs);
	while (p->qps)
		flexio_qp_destroy(p->qps);
	while (p->cqs)
		flexio_cq_destroy(p->cqs);
	fx_events_free(p->ev);
	p->ev = NULL;
}

/* ---- CQ ---------------------------------------------------------------------------- */
static bool thread_known(struct flexio_process *p, struct flexio_thread *th)
{
	struct flexio_event_handler *eh;
	bool ok = false;

	pthread_mutex_lock(&p->lock);
	for (eh = p->handlers; eh; eh = eh->next)
		if (eh->thread_handle == th)
			ok = true;
	pthread_mutex_unlock(&p->lock);
	return ok;
}

/* Arm for the next completion: arm record (dbr[1]), then the UAR doorbell. */
static void cq_arm(struct flexio_cq *c, uint32_t ci)
{
	uint32_t sn = __atomic_add_fetch(&c->arm_sn, 1, __ATOMIC_RELAXED) & 3;
	uint32_t w = sn << 28 | (ci & 0xffffff);	/* cmd 0: next completion */

	__atomic_store_n(&c->dbr[1], htobe32(w), __ATOMIC_RELEASE);
	uar_store64(c->uar, FX_UAR_CQ_DB, htobe32(w), htobe32(c->cqn));
}

flexio_status flexio_cq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       const struct flexio_cq_attr *fattr, struct flexio_cq **cq)
{
	uint32_t in[DEVX_ST_SZ_DW(create_cq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_cq_out)] = {};
	void *cqc = DEVX_ADDR_OF(create_cq_in, in, cq_context);
	struct fx_events *ev;
	struct flexio_cq *c;
	uint32_t umem_id, eqn;
	uint64_t off;
	void *ring;

	if (cq)
		*cq = NULL;
	if (!process || !fattr || !cq) {
		fx_err("flexio_cq_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (!ctx_ok(process, ibv_ctx, "flexio_cq_create"))
		return FLEXIO_STATUS_FAILED;
	if (fattr->log_cq_depth < 1 || fattr->log_cq_depth > 22) {
		fx_err("flexio_cq_create: log_cq_depth %u outside 1..22", fattr->log_cq_depth);
		return FLEXIO_STATUS_FAILED;
	}
	if (fattr->cqe_comp_type != FLEXIO_CQE_COMP_NONE || fattr->cc) {
		fx_err("flexio_cq_create: CQE compression is not supported on softmlx5");
		return FLEXIO_STATUS_FAILED;
	}
	if (!fattr->cq_dbr_daddr || (fattr->cq_dbr_daddr & 7) ||
	    !fx_daddr_ok(process, fattr->cq_dbr_daddr, 8)) {
		fx_err("flexio_cq_create: doorbell record 0x%llx is not 8 aligned bytes of DPA heap",
		       (unsigned long long)fattr->cq_dbr_daddr);
		return FLEXIO_STATUS_FAILED;
	}
	if (qmem_resolve(process, &fattr->cq_ring_qmem, (size_t)64 << fattr->log_cq_depth,
			 "flexio_cq_create", "CQ ring", &umem_id, &off, &ring))
		return FLEXIO_STATUS_FAILED;
	switch (fattr->element_type) {
	case FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD:
		if (!fattr->thread || !thread_known(process, fattr->thread)) {
			fx_err("flexio_cq_create: element thread %p is not a thread of this process",
			       (void *)fattr->thread);
			return FLEXIO_STATUS_FAILED;
		}
		/* fall through */
	case FLEXIO_CQ_ELEMENT_TYPE_NON_DPA_CQ:
		ev = fx_events_get(process);
		if (!ev)
			return FLEXIO_STATUS_FAILED;
		eqn = ev->eqn;
		break;
	case FLEXIO_CQ_ELEMENT_TYPE_EXT_EQ:
		eqn = fattr->emulated_eqn;
		break;
	default:
		fx_err("flexio_cq_create: element type 0x%x is not supported (DPA_THREAD, EXT_EQ, "
		       "NON_DPA_CQ are)", fattr->element_type);
		return FLEXIO_STATUS_FAILED;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		fx_err("flexio_cq_create: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	DEVX_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(create_cq_in, in, cq_umem_valid, 1);
	DEVX_SET(create_cq_in, in, cq_umem_id, umem_id);
	DEVX_SET64(create_cq_in, in, cq_umem_offset, off);
	DEVX_SET(cqc, cqc, log_cq_size, fattr->log_cq_depth);
	DEVX_SET(cqc, cqc, uar_page, fattr->uar_id ? fattr->uar_id : process->uar->id);
	DEVX_SET(cqc, cqc, c_eqn, eqn);
	DEVX_SET(cqc, cqc, cq_period, fattr->cq_period);
	DEVX_SET(cqc, cqc, cq_max_count, fattr->cq_max_count);
	DEVX_SET(cqc, cqc, cq_period_mode, fattr->cq_period_mode);
	DEVX_SET(cqc, cqc, oi, fattr->overrun_ignore ? 1 : 0);
	DEVX_SET(cqc, cqc, dbr_umem_valid, 1);
	DEVX_SET(cqc, cqc, dbr_umem_id, process->heap_umem->umem_id);
	DEVX_SET64(cqc, cqc, dbr_addr, fattr->cq_dbr_daddr - (uintptr_t)process->heap);
	c->obj = mlx5dv_devx_obj_create(process->devx_ctx, in, sizeof(in), out, sizeof(out));
	if (!c->obj) {
		fx_err("flexio_cq_create: CREATE_CQ: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(out), cmd_syndrome(out));
		free(c);
		return FLEXIO_STATUS_FAILED;
	}
	c->proc = process;
	c->cqn = DEVX_GET(create_cq_out, out, cqn);
	c->log_depth = fattr->log_cq_depth;
	c->element_type = fattr->element_type;
	c->thread = fattr->element_type == FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD ? fattr->thread : NULL;
	c->dbr = (volatile uint32_t *)(uintptr_t)fattr->cq_dbr_daddr;
	c->uar = uar_base(process);
	c->max_count = fattr->cq_max_count;
	c->period = fattr->cq_period;
	c->period_mode = fattr->cq_period_mode;
	pthread_mutex_lock(&process->lock);
	c->next = process->cqs;
	process->cqs = c;
	pthread_mutex_unlock(&process->lock);
	if (!fattr->no_arm && fattr->element_type != FLEXIO_CQ_ELEMENT_TYPE_NON_DPA_CQ) {
		cq_arm(c, 0);
		c->arm_at_attach = true;
	}
	fx_dbg("CQ 0x%x: %u CQEs, element 0x%x, EQ %u", c->cqn, 1u << c->log_depth,
	       c->element_type, eqn);
	*cq = c;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_cq_destroy(struct flexio_cq *cq)
{
	struct flexio_process *p;
	struct flexio_cq **pp;

	if (!cq)
		return FLEXIO_STATUS_SUCCESS;
	p = cq->proc;
	if (mlx5dv_devx_obj_destroy(cq->obj)) {
		fx_err("flexio_cq_destroy: DESTROY_CQ 0x%x: %s (a QP still uses it?)", cq->cqn,
		       strerror(errno));
		return FLEXIO_STATUS_FAILED;
	}
	pthread_mutex_lock(&p->lock);
	for (pp = &p->cqs; *pp && *pp != cq; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = cq->next;
	pthread_mutex_unlock(&p->lock);
	free(cq);
	return FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_cq_get_cq_num(struct flexio_cq *cq)
{
	return cq ? cq->cqn : UINT32_MAX;
}

flexio_status flexio_cq_query_moderation(struct flexio_cq *cq, uint16_t *max_count,
					 uint16_t *period, uint16_t *mode)
{
	uint32_t in[DEVX_ST_SZ_DW(query_cq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_cq_out)] = {};

	if (!cq || !max_count || !period || !mode) {
		fx_err("flexio_cq_query_moderation: NULL argument");
		return FLEXIO_STATUS_FAILED;
	}
	DEVX_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	DEVX_SET(query_cq_in, in, cqn, cq->cqn);
	if (mlx5dv_devx_obj_query(cq->obj, in, sizeof(in), out, sizeof(out))) {
		fx_err("flexio_cq_query_moderation: QUERY_CQ 0x%x: status 0x%x syndrome 0x%x",
		       cq->cqn, cmd_status(out), cmd_syndrome(out));
		return FLEXIO_STATUS_FAILED;
	}
	*max_count = DEVX_GET(query_cq_out, out, cq_context.cq_max_count);
	*period = DEVX_GET(query_cq_out, out, cq_context.cq_period);
	*mode = DEVX_GET(query_cq_out, out, cq_context.cq_period_mode);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_cq_modify_moderation(struct flexio_cq *cq, uint16_t max_count,
					  uint16_t period, uint16_t mode)
{
	uint32_t in[DEVX_ST_SZ_DW(modify_cq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	if (!cq || mode > FLEXIO_CQ_PERIOD_MODE_CQE) {
		fx_err("flexio_cq_modify_moderation: NULL CQ or period mode %u", mode);
		return FLEXIO_STATUS_FAILED;
	}
	DEVX_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	DEVX_SET(modify_cq_in, in, cqn, cq->cqn);
	DEVX_SET(modify_cq_in, in, modify_field_select_resize_field_select,
		 MLX5_CQ_MODIFY_PERIOD | MLX5_CQ_MODIFY_COUNT | MLX5_CQ_MODIFY_PERIOD_MODE);
	DEVX_SET(modify_cq_in, in, cq_context.cq_period, period);
	DEVX_SET(modify_cq_in, in, cq_context.cq_max_count, max_count);
	DEVX_SET(modify_cq_in, in, cq_context.cq_period_mode, mode);
	if (mlx5dv_devx_obj_modify(cq->obj, in, sizeof(in), out, sizeof(out))) {
		fx_err("flexio_cq_modify_moderation: MODIFY_CQ 0x%x: status 0x%x syndrome 0x%x",
		       cq->cqn, cmd_status(out), cmd_syndrome(out));
		return FLEXIO_STATUS_FAILED;
	}
	cq->max_count = max_count;
	cq->period = period;
	cq->period_mode = mode;
	return FLEXIO_STATUS_SUCCESS;
}

static void rearm_attached(struct flexio_process *p, uint32_t cqn)
{
	struct flexio_cq *c;

	pthread_mutex_lock(&p->lock);
	c = cq_find_locked(p, cqn);
	if (c && !c->arm_at_attach)
		c = NULL;
	if (c)
		c->arm_at_attach = false;
	pthread_mutex_unlock(&p->lock);
	if (c)
		cq_arm(c, 0);
}

/* ---- Ethernet WQs: SQ, RQ (+TIR) ---------------------------------------------------------- */
/*
 * flexio_sq_create / flexio_rq_create: PRM objects on the process's DEVX
 * context with their rings and doorbell records in the DPA heap (or a host
 * umem), moved to RDY at creation. Each queue has its own transport domain;
 * an SQ transmits through its own TIS, an RQ is reached through its own
 * direct TIR (flexio_rq_get_tir), which steering must name (the device has
 * no mlx5dv_dr: only the kernel half's flow tables steer). SQs are kept in
 * a list of this file so that the outbox send doorbell finds them.
 */
struct flexio_sq {
	struct flexio_process *proc;
	struct mlx5dv_devx_obj *td, *tis, *obj;
	uint32_t sqn;
	volatile uint32_t *dbr;		/* [1] send counter; NULL for host qmem */
	uint8_t *uar;
	flexio_uintptr_t own_dbr;	/* a doorbell record the library allocated */
	struct flexio_sq *next;
};

struct flexio_rq {
	struct flexio_process *proc;
	struct mlx5dv_devx_obj *td, *obj, *tir;
	uint32_t rqn;
};

static pthread_mutex_t fx_sqs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct flexio_sq *fx_sqs;

static struct flexio_sq *sq_find(struct flexio_process *p, uint32_t sqn)
{
	struct flexio_sq *q;

	pthread_mutex_lock(&fx_sqs_lock);
	for (q = fx_sqs; q && (q->proc != p || q->sqn != sqn); q = q->next)
		;
	pthread_mutex_unlock(&fx_sqs_lock);
	return q;
}

/* A transport domain for one queue (ALLOC_TRANSPORT_DOMAIN). */
static struct mlx5dv_devx_obj *wq_td(struct flexio_process *p, const char *who,
				     uint32_t *tdn)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_transport_domain_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_transport_domain_out)] = {};
	struct mlx5dv_devx_obj *o;

	DEVX_SET(alloc_transport_domain_in, in, opcode, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	o = mlx5dv_devx_obj_create(p->devx_ctx, in, sizeof(in), out, sizeof(out));
	if (!o)
		fx_err("%s: ALLOC_TRANSPORT_DOMAIN: %s (status 0x%x syndrome 0x%x)", who,
		       strerror(errno), cmd_status(out), cmd_syndrome(out));
	else
		*tdn = DEVX_GET(alloc_transport_domain_out, out, transport_domain);
	return o;
}

/* Common checks and memory of a WQ of 2^depth entries of 2^stride bytes. */
static int wq_mem(struct flexio_process *p, struct ibv_context *ctx,
		  const struct flexio_wq_attr *a, uint32_t log_stride, const char *who,
		  uint32_t *pdn, uint32_t *wq_umem, uint64_t *wq_off, uint32_t *dbr_umem,
		  uint64_t *dbr_off, void **dbr_host)
{
	void *wq_host;

	if (!ctx_ok(p, ctx, who))
		return -1;
	if (a->log_wq_depth > 15) {
		fx_err("%s: log_wq_depth %u: depths up to 2^15", who, a->log_wq_depth);
		return -1;
	}
	if (!pd_of(p, a->pd, pdn)) {
		fx_err("%s: not an mlx5 PD", who);
		return -1;
	}
	if (qmem_resolve(p, &a->wq_dbr_qmem, 8, who, "doorbell record", dbr_umem, dbr_off,
			 dbr_host) ||
	    qmem_resolve(p, &a->wq_ring_qmem, (size_t)1 << (log_stride + a->log_wq_depth),
			 who, "WQ ring", wq_umem, wq_off, &wq_host))
		return -1;
	return 0;
}

static void wq_set(void *wq, uint32_t pdn, uint32_t uar, uint32_t log_stride,
		   uint32_t log_depth, uint32_t wq_umem, uint64_t wq_off, uint32_t dbr_umem,
		   uint64_t dbr_off)
{
	DEVX_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	DEVX_SET(wq, wq, pd, pdn);
	DEVX_SET(wq, wq, uar_page, uar);
	DEVX_SET(wq, wq, log_wq_stride, log_stride);
	DEVX_SET(wq, wq, log_wq_sz, log_depth);
	DEVX_SET(wq, wq, wq_umem_valid, 1);
	DEVX_SET(wq, wq, wq_umem_id, wq_umem);
	DEVX_SET64(wq, wq, wq_umem_offset, wq_off);
	DEVX_SET(wq, wq, dbr_umem_valid, 1);
	DEVX_SET(wq, wq, dbr_umem_id, dbr_umem);
	DEVX_SET64(wq, wq, dbr_addr, dbr_off);
}

static int rq_move(struct flexio_rq *rq, uint32_t cur, uint32_t next, const char *who)
{
	uint32_t in[DEVX_ST_SZ_DW(modify_rq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(modify_rq_in, in, opcode, MLX5_CMD_OP_MODIFY_RQ);
	DEVX_SET(modify_rq_in, in, rqn, rq->rqn);
	DEVX_SET(modify_rq_in, in, rq_state, cur);
	DEVX_SET(modify_rq_in, in, ctx.state, next);
	if (mlx5dv_devx_obj_modify(rq->obj, in, sizeof(in), out, sizeof(out))) {
		fx_err("%s: MODIFY_RQ 0x%x %u -> %u: %s (status 0x%x syndrome 0x%x)", who,
		       rq->rqn, cur, next, strerror(errno), cmd_status(out),
		       cmd_syndrome(out));
		return -1;
	}
	return 0;
}

static void rq_free(struct flexio_rq *rq)
{
	if (rq->tir)
		mlx5dv_devx_obj_destroy(rq->tir);
	if (rq->obj)
		mlx5dv_devx_obj_destroy(rq->obj);
	if (rq->td)
		mlx5dv_devx_obj_destroy(rq->td);
	free(rq);
}

flexio_status flexio_rq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       uint32_t cq_num, const struct flexio_wq_attr *fattr,
			       struct flexio_rq **flexio_rq_ptr)
{
	uint32_t in[DEVX_ST_SZ_DW(create_rq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_rq_out)] = {};
	uint32_t tin[DEVX_ST_SZ_DW(create_tir_in)] = {};
	uint32_t tout[DEVX_ST_SZ_DW(create_tir_out)] = {};
	void *rqc = DEVX_ADDR_OF(create_rq_in, in, ctx);
	uint32_t pdn, wq_umem, dbr_umem, tdn = 0, log_stride;
	uint64_t wq_off, dbr_off;
	struct flexio_rq *rq;
	void *dbr_host;

	if (flexio_rq_ptr)
		*flexio_rq_ptr = NULL;
	if (!process || !fattr || !flexio_rq_ptr) {
		fx_err("flexio_rq_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	/* An Ethernet RQ is a cyclic ring whatever rq.wq_type says: the SDK's
	 * own packet_processor leaves it 0 (linked list) and fills a cyclic
	 * ring, so the type only matters to flexio_rmp_create. */
	if (fattr->rq.wq_type != FLEXIO_WQ_TYPE_CYCLIC &&
	    fattr->rq.wq_type != FLEXIO_WQ_TYPE_LINKED_LIST) {
		fx_err("flexio_rq_create: wq_type %d is neither linked list (0) nor cyclic (1)",
		       (int)fattr->rq.wq_type);
		return FLEXIO_STATUS_FAILED;
	}
	log_stride = fattr->log_wq_stride ? fattr->log_wq_stride : 4;
	if (log_stride < 4 || log_stride > 10) {
		fx_err("flexio_rq_create: log_wq_stride %u: 16 to 1024-byte receive WQEs",
		       log_stride);
		return FLEXIO_STATUS_FAILED;
	}
	if (wq_mem(process, ibv_ctx, fattr, log_stride, "flexio_rq_create", &pdn, &wq_umem,
		   &wq_off, &dbr_umem, &dbr_off, &dbr_host))
		return FLEXIO_STATUS_FAILED;
	rq = calloc(1, sizeof(*rq));
	if (!rq) {
		fx_err("flexio_rq_create: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	rq->proc = process;
	rq->td = wq_td(process, "flexio_rq_create", &tdn);
	if (!rq->td)
		goto err;
	DEVX_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	DEVX_SET(rqc, rqc, vsd, 1);
	DEVX_SET(rqc, rqc, flush_in_error_en, 1);
	DEVX_SET(rqc, rqc, user_index, fattr->user_index);
	DEVX_SET(rqc, rqc, cqn, cq_num);
	wq_set(DEVX_ADDR_OF(rqc, rqc, wq), pdn, 0, log_stride, fattr->log_wq_depth, wq_umem,
	       wq_off, dbr_umem, dbr_off);
	rq->obj = mlx5dv_devx_obj_create(process->devx_ctx, in, sizeof(in), out, sizeof(out));
	if (!rq->obj) {
		fx_err("flexio_rq_create: CREATE_RQ: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(out), cmd_syndrome(out));
		goto err;
	}
	rq->rqn = DEVX_GET(create_rq_out, out, rqn);
	if (rq_move(rq, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, "flexio_rq_create"))
		goto err;
	DEVX_SET(create_tir_in, tin, opcode, MLX5_CMD_OP_CREATE_TIR);
	DEVX_SET(create_tir_in, tin, ctx.disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	DEVX_SET(create_tir_in, tin, ctx.inline_rqn, rq->rqn);
	DEVX_SET(create_tir_in, tin, ctx.transport_domain, tdn);
	rq->tir = mlx5dv_devx_obj_create(process->devx_ctx, tin, sizeof(tin), tout,
					 sizeof(tout));
	if (!rq->tir) {
		fx_err("flexio_rq_create: CREATE_TIR: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(tout), cmd_syndrome(tout));
		goto err;
	}
	rearm_attached(process, cq_num);
	*flexio_rq_ptr = rq;
	return FLEXIO_STATUS_SUCCESS;
err:
	rq_free(rq);
	return FLEXIO_STATUS_FAILED;
}

flexio_status flexio_rq_destroy(struct flexio_rq *flexio_rq)
{
	struct flexio_rq *rq = flexio_rq;

	if (!rq)
		return FLEXIO_STATUS_SUCCESS;
	if (mlx5dv_devx_obj_destroy(rq->tir)) {
		fx_err("flexio_rq_destroy: DESTROY_TIR of RQ 0x%x: %s (still steered to?)",
		       rq->rqn, strerror(errno));
		return FLEXIO_STATUS_FAILED;
	}
	rq->tir = NULL;
	rq_free(rq);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_rq_set_err_state(struct flexio_rq *rq)
{
	if (!rq) {
		fx_err("flexio_rq_set_err_state: NULL RQ");
		return FLEXIO_STATUS_FAILED;
	}
	return rq_move(rq, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_ERR, "flexio_rq_set_err_state") ?
	       FLEXIO_STATUS_FAILED : FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_rq_get_wq_num(struct flexio_rq *rq)
{
	return rq ? rq->rqn : UINT32_MAX;
}

struct mlx5dv_devx_obj *flexio_rq_get_tir(struct flexio_rq *rq)
{
	return rq ? rq->tir : NULL;
}

/* ---- RMPs ----------------------------------------------------------------------------- */
/*
 * flexio_rmp_create: CREATE_RMP on the process's DEVX context, created RDY,
 * its WQEs and doorbell record (dbr[0]: the WQE counter, which
 * flexio_dev_dbr_rq_inc_pi advances) in the DPA heap or a host umem. A
 * linked list (the default) has a 16-byte next segment
 * (flexio_dev_swqe_seg_shared_receive_set) before its data segments, so its
 * stride defaults to 32 bytes; a cyclic RMP (basic_cyclic_rcv_wqe) has
 * data segments only and defaults to 16. DPA QPs name one through
 * flexio_qp_attr rq_type SRQ_RMP_XRC_SRQ_XRQ + rmpqn; the RMP counts them
 * and is not destroyed while any is left. The 24.01 flexio_rq_create has
 * no field that names an RMP: an RMP-backed Ethernet RQ is a DEVX CREATE_RQ
 * (mem_rq_type RMP, rmpn) that the firmware accepts from any DEVX client.
 */
struct flexio_rmp {
	struct flexio_process *proc;
	struct mlx5dv_devx_obj *obj;
	uint32_t rmpn;
	uint32_t users;			/* DPA QPs receiving through it */
	struct flexio_rmp *next;
};

static pthread_mutex_t fx_rmps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct flexio_rmp *fx_rmps;

/* Counts a QP in (+1) or out (-1) of the process's RMP @rmpn, if ours. */
static struct flexio_rmp *rmp_use(struct flexio_process *p, uint32_t rmpn, int d)
{
	struct flexio_rmp *r;

	pthread_mutex_lock(&fx_rmps_lock);
	for (r = fx_rmps; r && (r->proc != p || r->rmpn != rmpn); r = r->next)
		;
	if (r)
		r->users += d;
	pthread_mutex_unlock(&fx_rmps_lock);
	return r;
}

flexio_status flexio_rmp_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
				const struct flexio_wq_attr *fattr,
				struct flexio_rmp **flexio_rmp_ptr)
{
	uint32_t in[DEVX_ST_SZ_DW(create_rmp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_rmp_out)] = {};
	void *rmpc = DEVX_ADDR_OF(create_rmp_in, in, ctx);
	void *wq = DEVX_ADDR_OF(rmpc, rmpc, wq);
	uint32_t pdn, wq_umem, dbr_umem, log_stride;
	uint64_t wq_off, dbr_off;
	struct flexio_rmp *rmp;
	void *dbr_host;
	bool cyclic;

	if (flexio_rmp_ptr)
		*flexio_rmp_ptr = NULL;
	if (!process || !fattr || !flexio_rmp_ptr) {
		fx_err("flexio_rmp_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (fattr->rq.wq_type != FLEXIO_WQ_TYPE_LINKED_LIST &&
	    fattr->rq.wq_type != FLEXIO_WQ_TYPE_CYCLIC) {
		fx_err("flexio_rmp_create: wq_type %d is neither linked list (0) nor cyclic (1)",
		       (int)fattr->rq.wq_type);
		return FLEXIO_STATUS_FAILED;
	}
	cyclic = fattr->rq.wq_type == FLEXIO_WQ_TYPE_CYCLIC;
	log_stride = fattr->log_wq_stride ? fattr->log_wq_stride : cyclic ? 4 : 5;
	if (log_stride < (cyclic ? 4u : 5u) || log_stride > 10) {
		fx_err("flexio_rmp_create: log_wq_stride %u: %s WQEs of %u to 1024 bytes",
		       log_stride, cyclic ? "cyclic" : "linked-list", cyclic ? 16 : 32);
		return FLEXIO_STATUS_FAILED;
	}
	if (wq_mem(process, ibv_ctx, fattr, log_stride, "flexio_rmp_create", &pdn, &wq_umem,
		   &wq_off, &dbr_umem, &dbr_off, &dbr_host))
		return FLEXIO_STATUS_FAILED;
	rmp = calloc(1, sizeof(*rmp));
	if (!rmp) {
		fx_err("flexio_rmp_create: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	DEVX_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);
	DEVX_SET(rmpc, rmpc, state, MLX5_RMPC_STATE_RDY);
	DEVX_SET(rmpc, rmpc, basic_cyclic_rcv_wqe, cyclic);
	wq_set(wq, pdn, 0, log_stride, fattr->log_wq_depth, wq_umem, wq_off, dbr_umem,
	       dbr_off);
	DEVX_SET(wq, wq, wq_type, cyclic ? MLX5_WQ_TYPE_CYCLIC : MLX5_WQ_TYPE_LINKED_LIST);
	rmp->obj = mlx5dv_devx_obj_create(process->devx_ctx, in, sizeof(in), out, sizeof(out));
	if (!rmp->obj) {
		fx_err("flexio_rmp_create: CREATE_RMP: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(out), cmd_syndrome(out));
		free(rmp);
		return FLEXIO_STATUS_FAILED;
	}
	rmp->proc = process;
	rmp->rmpn = DEVX_GET(create_rmp_out, out, rmpn);
	pthread_mutex_lock(&fx_rmps_lock);
	rmp->next = fx_rmps;
	fx_rmps = rmp;
	pthread_mutex_unlock(&fx_rmps_lock);
	*flexio_rmp_ptr = rmp;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_rmp_destroy(struct flexio_rmp *flexio_rmp)
{
	struct flexio_rmp *rmp = flexio_rmp, **pp;
	uint32_t users;

	if (!rmp)
		return FLEXIO_STATUS_SUCCESS;
	pthread_mutex_lock(&fx_rmps_lock);
	for (pp = &fx_rmps; *pp && *pp != rmp; pp = &(*pp)->next)
		;
	users = *pp ? rmp->users : 0;
	pthread_mutex_unlock(&fx_rmps_lock);
	if (!*pp) {
		fx_err("flexio_rmp_destroy: not an RMP of this library");
		return FLEXIO_STATUS_FAILED;
	}
	if (users) {
		fx_err("flexio_rmp_destroy: RMP 0x%x still serves %u QPs; destroy them first",
		       rmp->rmpn, users);
		return FLEXIO_STATUS_FAILED;
	}
	if (mlx5dv_devx_obj_destroy(rmp->obj)) {
		fx_err("flexio_rmp_destroy: DESTROY_RMP 0x%x: %s (an RQ or QP still uses it?)",
		       rmp->rmpn, strerror(errno));
		return FLEXIO_STATUS_FAILED;
	}
	pthread_mutex_lock(&fx_rmps_lock);
	for (pp = &fx_rmps; *pp && *pp != rmp; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = rmp->next;
	pthread_mutex_unlock(&fx_rmps_lock);
	free(rmp);
	return FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_rmp_get_wq_num(struct flexio_rmp *rmp)
{
	return rmp ? rmp->rmpn : UINT32_MAX;
}

static void sq_free(struct flexio_sq *sq)
{
	if (sq->obj)
		mlx5dv_devx_obj_destroy(sq->obj);
	if (sq->tis)
		mlx5dv_devx_obj_destroy(sq->tis);
	if (sq->td)
		mlx5dv_devx_obj_destroy(sq->td);
	if (sq->own_dbr)
		flexio_buf_dev_free(sq->proc, sq->own_dbr);
	free(sq);
}

flexio_status flexio_sq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       uint32_t cq_num, const struct flexio_wq_attr *fattr,
			       struct flexio_sq **flexio_sq_ptr)
{
	uint32_t in[DEVX_ST_SZ_DW(create_sq_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_sq_out)] = {};
	uint32_t tin[DEVX_ST_SZ_DW(create_tis_in)] = {};
	uint32_t tout[DEVX_ST_SZ_DW(create_tis_out)] = {};
	uint32_t min[DEVX_ST_SZ_DW(modify_sq_in)] = {};
	uint32_t mout[DEVX_ST_SZ_DW(mbox_out)] = {};
	void *sqc = DEVX_ADDR_OF(create_sq_in, in, ctx);
	uint32_t pdn, wq_umem, dbr_umem, tdn = 0;
	uint64_t wq_off, dbr_off;
	struct flexio_wq_attr a;
	flexio_uintptr_t own_dbr = 0;
	struct flexio_sq *sq;
	void *dbr_host;

	if (flexio_sq_ptr)
		*flexio_sq_ptr = NULL;
	if (!process || !fattr || !flexio_sq_ptr) {
		fx_err("flexio_sq_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (fattr->sq.allow_multi_pkt_send_wqe) {
		fx_err("flexio_sq_create: multi-packet send WQEs are not supported");
		return FLEXIO_STATUS_FAILED;
	}
	if (fattr->log_wq_stride && fattr->log_wq_stride != 6) {
		fx_err("flexio_sq_create: log_wq_stride %u: send WQEs are 64-byte blocks",
		       fattr->log_wq_stride);
		return FLEXIO_STATUS_FAILED;
	}
	/* The DPA rings an SQ through the outbox, so SDK programs (the 24.01
	 * packet_processor) give no doorbell record: the library allocates
	 * one on the DPA heap, as the SDK does, and frees it with the SQ. */
	a = *fattr;
	if (a.wq_dbr_qmem.memtype == FLEXIO_MEMTYPE_DPA && !a.wq_dbr_qmem.daddr) {
		if (flexio_buf_dev_alloc(process, 8, &own_dbr) ||
		    flexio_buf_dev_memset(process, 0, 8, own_dbr)) {
			fx_err("flexio_sq_create: no DPA heap for the doorbell record");
			if (own_dbr)
				flexio_buf_dev_free(process, own_dbr);
			return FLEXIO_STATUS_FAILED;
		}
		a.wq_dbr_qmem.daddr = own_dbr;
	}
	fattr = &a;
	if (wq_mem(process, ibv_ctx, fattr, 6, "flexio_sq_create", &pdn, &wq_umem, &wq_off,
		   &dbr_umem, &dbr_off, &dbr_host)) {
		if (own_dbr)
			flexio_buf_dev_free(process, own_dbr);
		return FLEXIO_STATUS_FAILED;
	}
	sq = calloc(1, sizeof(*sq));
	if (!sq) {
		fx_err("flexio_sq_create: out of memory");
		if (own_dbr)
			flexio_buf_dev_free(process, own_dbr);
		return FLEXIO_STATUS_FAILED;
	}
	sq->proc = process;
	sq->own_dbr = own_dbr;
	sq->td = wq_td(process, "flexio_sq_create", &tdn);
	if (!sq->td)
		goto err;
	DEVX_SET(create_tis_in, tin, opcode, MLX5_CMD_OP_CREATE_TIS);
	DEVX_SET(create_tis_in, tin, ctx.transport_domain, tdn);
	sq->tis = mlx5dv_devx_obj_create(process->devx_ctx, tin, sizeof(tin), tout,
					 sizeof(tout));
	if (!sq->tis) {
		fx_err("flexio_sq_create: CREATE_TIS: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(tout), cmd_syndrome(tout));
		goto err;
	}
	DEVX_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	DEVX_SET(sqc, sqc, flush_in_error_en, 1);
	DEVX_SET(sqc, sqc, user_index, fattr->user_index);
	DEVX_SET(sqc, sqc, cqn, cq_num);
	DEVX_SET(sqc, sqc, tis_lst_sz, 1);
	DEVX_SET(sqc, sqc, tis_num_0, DEVX_GET(create_tis_out, tout, tisn));
	wq_set(DEVX_ADDR_OF(sqc, sqc, wq), pdn, fattr->uar_id ? fattr->uar_id : process->uar->id,
	       6, fattr->log_wq_depth, wq_umem, wq_off, dbr_umem, dbr_off);
	sq->obj = mlx5dv_devx_obj_create(process->devx_ctx, in, sizeof(in), out, sizeof(out));
	if (!sq->obj) {
		fx_err("flexio_sq_create: CREATE_SQ: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(out), cmd_syndrome(out));
		goto err;
	}
	sq->sqn = DEVX_GET(create_sq_out, out, sqn);
	DEVX_SET(modify_sq_in, min, opcode, MLX5_CMD_OP_MODIFY_SQ);
	DEVX_SET(modify_sq_in, min, sqn, sq->sqn);
	DEVX_SET(modify_sq_in, min, sq_state, MLX5_SQC_STATE_RST);
	DEVX_SET(modify_sq_in, min, ctx.state, MLX5_SQC_STATE_RDY);
	if (mlx5dv_devx_obj_modify(sq->obj, min, sizeof(min), mout, sizeof(mout))) {
		fx_err("flexio_sq_create: MODIFY_SQ 0x%x RST -> RDY: %s (status 0x%x syndrome "
		       "0x%x)", sq->sqn, strerror(errno), cmd_status(mout), cmd_syndrome(mout));
		goto err;
	}
	sq->dbr = dbr_host;
	sq->uar = uar_base(process);
	pthread_mutex_lock(&fx_sqs_lock);
	sq->next = fx_sqs;
	fx_sqs = sq;
	pthread_mutex_unlock(&fx_sqs_lock);
	rearm_attached(process, cq_num);
	*flexio_sq_ptr = sq;
	return FLEXIO_STATUS_SUCCESS;
err:
	sq_free(sq);
	return FLEXIO_STATUS_FAILED;
}

flexio_status flexio_sq_destroy(struct flexio_sq *flexio_sq)
{
	struct flexio_sq *sq = flexio_sq, **pp;

	if (!sq)
		return FLEXIO_STATUS_SUCCESS;
	pthread_mutex_lock(&fx_sqs_lock);
	for (pp = &fx_sqs; *pp && *pp != sq; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = sq->next;
	pthread_mutex_unlock(&fx_sqs_lock);
	sq_free(sq);
	return FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_sq_get_wq_num(struct flexio_sq *sq)
{
	return sq ? sq->sqn : UINT32_MAX;
}

/* ---- QP ------------------------------------------------------------------------------- */
static int log2_ok(int v, int max)
{
	return v >= 0 && v <= max;
}

flexio_status flexio_qp_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       struct flexio_qp_attr *qp_fattr, struct flexio_qp **qp_ptr)
{
	uint32_t in[DEVX_ST_SZ_DW(create_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_qp_out)] = {};
	void *qpc = DEVX_ADDR_OF(create_qp_in, in, qpc);
	const struct flexio_qp_attr *a = qp_fattr;
	uint32_t wq_umem, dbr_umem, pdn;
	uint64_t wq_off, dbr_off;
	size_t rq_bytes, sq_bytes;
	void *wq_host, *dbr_host;
	struct flexio_qp *q;
	bool no_rq;

	if (qp_ptr)
		*qp_ptr = NULL;
	if (!process || !a || !qp_ptr) {
		fx_err("flexio_qp_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (!ctx_ok(process, ibv_ctx, "flexio_qp_create"))
		return FLEXIO_STATUS_FAILED;
	if (a->transport_type != FLEXIO_QPC_ST_RC && a->transport_type != FLEXIO_QPC_ST_UC) {
		fx_err("flexio_qp_create: transport type 0x%x: DPA QPs are RC or UC here",
		       a->transport_type);
		return FLEXIO_STATUS_FAILED;
	}
	/* An RQ of the QP's own, none, or an RMP's (no ring in the QP). */
	no_rq = a->rq_type == FLEXIO_QP_QPC_RQ_TYPE_ZERO_SIZE_RQ ||
		a->rq_type == FLEXIO_QP_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ;
	if ((a->rq_type != FLEXIO_QP_QPC_RQ_TYPE_REGULAR && !no_rq) ||
	    (!no_rq && !log2_ok(a->log_rq_depth, 15)) || (!a->no_sq && !log2_ok(a->log_sq_depth, 15))) {
		fx_err("flexio_qp_create: rq_type %d, log_rq_depth %d, log_sq_depth %d: regular, "
		       "RMP or zero-size RQs, depths up to 2^15", a->rq_type, a->log_rq_depth,
		       a->log_sq_depth);
		return FLEXIO_STATUS_FAILED;
	}
	if (a->rq_type == FLEXIO_QP_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ && !a->rmpqn) {
		fx_err("flexio_qp_create: rq_type SRQ_RMP_XRC_SRQ_XRQ needs rmpqn "
		       "(flexio_rmp_get_wq_num)");
		return FLEXIO_STATUS_FAILED;
	}
	if (!pd_of(process, a->pd, &pdn)) {
		fx_err("flexio_qp_create: not an mlx5 PD");
		return FLEXIO_STATUS_FAILED;
	}
	rq_bytes = no_rq ? 0 : (size_t)16 << a->log_rq_depth;	/* one data segment per RWQE */
	sq_bytes = a->no_sq ? 0 : (size_t)64 << a->log_sq_depth;
	if (qmem_resolve(process, &a->qp_wq_dbr_qmem, 8, "flexio_qp_create", "doorbell record",
			 &dbr_umem, &dbr_off, &dbr_host))
		return FLEXIO_STATUS_FAILED;
	if (rq_bytes + sq_bytes &&
	    qmem_resolve(process, &a->qp_wq_buff_qmem, rq_bytes + sq_bytes, "flexio_qp_create",
			 "WQ ring", &wq_umem, &wq_off, &wq_host))
		return FLEXIO_STATUS_FAILED;
	q = calloc(1, sizeof(*q));
	if (!q) {
		fx_err("flexio_qp_create: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	DEVX_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	if (rq_bytes + sq_bytes) {
		DEVX_SET(create_qp_in, in, wq_umem_valid, 1);
		DEVX_SET(create_qp_in, in, wq_umem_id, wq_umem);
		DEVX_SET64(create_qp_in, in, wq_umem_offset, wq_off);
	}
	DEVX_SET(qpc, qpc, st, a->transport_type == FLEXIO_QPC_ST_RC ? MLX5_QPC_ST_RC : MLX5_QPC_ST_UC);
	DEVX_SET(qpc, qpc, pm_state, 3);
	DEVX_SET(qpc, qpc, pd, pdn);
	DEVX_SET(qpc, qpc, uar_page, a->uar_id ? a->uar_id : process->uar->id);
	DEVX_SET(qpc, qpc, user_index, a->user_index);
	DEVX_SET(qpc, qpc, ts_format, 1);
	if (a->rq_type == FLEXIO_QP_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ) {
		DEVX_SET(qpc, qpc, rq_type, FLEXIO_QP_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ);
		DEVX_SET(qpc, qpc, srqn_rmpn_xrqn, a->rmpqn);
	} else if (no_rq) {
		DEVX_SET(qpc, qpc, rq_type, FLEXIO_QP_QPC_RQ_TYPE_ZERO_SIZE_RQ);
	} else {
		DEVX_SET(qpc, qpc, log_rq_size, a->log_rq_depth);
		DEVX_SET(qpc, qpc, log_rq_stride, 0);
	}
	if (a->no_sq)
		DEVX_SET(qpc, qpc, no_sq, 1);
	else
		DEVX_SET(qpc, qpc, log_sq_size, a->log_sq_depth);
	DEVX_SET(qpc, qpc, cqn_snd, a->sq_cqn);
	DEVX_SET(qpc, qpc, cqn_rcv, a->rq_cqn);
	DEVX_SET(qpc, qpc, dbr_umem_valid, 1);
	DEVX_SET(qpc, qpc, dbr_umem_id, dbr_umem);
	DEVX_SET64(qpc, qpc, dbr_addr, dbr_off);
	q->obj = mlx5dv_devx_obj_create(process->devx_ctx, in, sizeof(in), out, sizeof(out));
	if (!q->obj) {
		fx_err("flexio_qp_create: CREATE_QP: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(out), cmd_syndrome(out));
		free(q);
		return FLEXIO_STATUS_FAILED;
	}
	q->proc = process;
	q->qpn = DEVX_GET(create_qp_out, out, qpn);
	if (a->rq_type == FLEXIO_QP_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ)
		q->rmp = rmp_use(process, a->rmpqn, 1);
	q->st = a->transport_type;
	q->state = FLEXIO_QP_STATE_RST;
	q->dbr = dbr_host;
	q->uar = uar_base(process);
	pthread_mutex_lock(&process->lock);
	q->next = process->qps;
	process->qps = q;
	pthread_mutex_unlock(&process->lock);
	/*
	 * Our device takes up a CQ when the first QP names it and ignores the arm
	 * record it finds then (user-space UAR stores do not reach it), so a CQ
	 * armed at creation is armed again now, with the next sequence number.
	 */
	rearm_attached(process, a->rq_cqn);
	rearm_attached(process, a->sq_cqn);
	*qp_ptr = q;
	return FLEXIO_STATUS_SUCCESS;
}

static const char *state_name(enum flexio_qp_state s)
{
	switch (s) {
	case FLEXIO_QP_STATE_RST: return "RST";
	case FLEXIO_QP_STATE_INIT: return "INIT";
	case FLEXIO_QP_STATE_RTR: return "RTR";
	case FLEXIO_QP_STATE_RTS: return "RTS";
	case FLEXIO_QP_STATE_ERR: return "ERR";
	default: return "?";
	}
}

static uint32_t opt_mask(const struct flexio_qp_attr_opt_param_mask *m)
{
	uint32_t v = 0;

	if (m && m->qp_access_mask)
		v |= MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_RAE;
	if (m && m->min_rnr_nak_timer)
		v |= MLX5_QP_OPTPAR_RNR_TIMEOUT;
	return v;
}

static void set_access(void *qpc, int acc)
{
	DEVX_SET(qpc, qpc, rre, !!(acc & IBV_ACCESS_REMOTE_READ));
	DEVX_SET(qpc, qpc, rwe, !!(acc & IBV_ACCESS_REMOTE_WRITE));
	DEVX_SET(qpc, qpc, rae, !!(acc & IBV_ACCESS_REMOTE_ATOMIC));
}

flexio_status flexio_qp_modify(struct flexio_qp *qp, struct flexio_qp_attr *fattr,
			       struct flexio_qp_attr_opt_param_mask *mask)
{
	/* RST2INIT, INIT2RTR, RTR2RTS and RTS2RTS share the layout of init2rtr_qp_in. */
	uint32_t in[DEVX_ST_SZ_DW(init2rtr_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(init2rtr_qp_out)] = {};
	void *qpc = DEVX_ADDR_OF(init2rtr_qp_in, in, qpc);
	enum flexio_qp_state from, to;
	uint32_t opt = opt_mask(mask);
	uint16_t op;
	size_t inlen = sizeof(in);

	if (!qp || !fattr) {
		fx_err("flexio_qp_modify: QP and attributes are required");
		return FLEXIO_STATUS_FAILED;
	}
	from = qp->state;
	to = fattr->next_state;
	if (to == FLEXIO_QP_STATE_ERR) {
		op = MLX5_CMD_OP_2ERR_QP;
		opt = 0;
	} else if (to == FLEXIO_QP_STATE_RST) {
		op = MLX5_CMD_OP_2RST_QP;
		opt = 0;
	} else if (from == FLEXIO_QP_STATE_RST && to == FLEXIO_QP_STATE_INIT) {
		op = MLX5_CMD_OP_RST2INIT_QP;
		set_access(qpc, fattr->qp_access_mask);
		DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num,
			 fattr->vhca_port_num ? fattr->vhca_port_num : 1);
		opt = 0;
	} else if (from == FLEXIO_QP_STATE_INIT && to == FLEXIO_QP_STATE_INIT) {
		op = MLX5_CMD_OP_INIT2INIT_QP;
		if (mask && mask->qp_access_mask)
			set_access(qpc, fattr->qp_access_mask);
	} else if (from == FLEXIO_QP_STATE_INIT && to == FLEXIO_QP_STATE_RTR) {
		op = MLX5_CMD_OP_INIT2RTR_QP;
		if (fattr->path_mtu < FLEXIO_QP_QPC_MTU_BYTES_256 ||
		    fattr->path_mtu > FLEXIO_QP_QPC_MTU_BYTES_4K) {
			fx_err("flexio_qp_modify: QP 0x%x INIT->RTR: path MTU %d is not 256..4K",
			       qp->qpn, (int)fattr->path_mtu);
			return FLEXIO_STATUS_FAILED;
		}
		DEVX_SET(qpc, qpc, mtu, fattr->path_mtu);
		DEVX_SET(qpc, qpc, log_msg_max, 30);
		DEVX_SET(qpc, qpc, remote_qpn, fattr->remote_qp_num);
		DEVX_SET(qpc, qpc, next_rcv_psn, fattr->next_rcv_psn);
		DEVX_SET(qpc, qpc, min_rnr_nak, fattr->min_rnr_nak_timer);
		DEVX_SET(qpc, qpc, log_rra_max, fattr->log_rra_max);
		DEVX_SET(qpc, qpc, isolate_vl_tc, fattr->isolate_vl_tc);
		DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num,
			 fattr->vhca_port_num ? fattr->vhca_port_num : 1);
		DEVX_SET(qpc, qpc, primary_address_path.fl, fattr->fl);
		DEVX_SET(qpc, qpc, primary_address_path.grh, fattr->grh);
		DEVX_SET(qpc, qpc, primary_address_path.rlid, fattr->rlid);
		DEVX_SET(qpc, qpc, primary_address_path.src_addr_index, fattr->gid_table_index);
		DEVX_SET(qpc, qpc, primary_address_path.hop_limit, 64);
		DEVX_SET(qpc, qpc, primary_address_path.udp_sport, fattr->udp_sport);
		memcpy(DEVX_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip), fattr->rgid_or_rip.raw,
		       sizeof(fattr->rgid_or_rip.raw));
		if (fattr->dest_mac) {
			const uint8_t *m = fattr->dest_mac;

			DEVX_SET(qpc, qpc, primary_address_path.rmac_47_32, m[0] << 8 | m[1]);
			DEVX_SET(qpc, qpc, primary_address_path.rmac_31_0,
				 (uint32_t)m[2] << 24 | m[3] << 16 | m[4] << 8 | m[5]);
		}
		if (mask && mask->qp_access_mask)
			set_access(qpc, fattr->qp_access_mask);
	} else if (from == FLEXIO_QP_STATE_RTR && to == FLEXIO_QP_STATE_RTS) {
		op = MLX5_CMD_OP_RTR2RTS_QP;
		DEVX_SET(qpc, qpc, next_send_psn, fattr->next_send_psn);
		DEVX_SET(qpc, qpc, retry_count, fattr->retry_count);
		DEVX_SET(qpc, qpc, rnr_retry, 7);
		DEVX_SET(qpc, qpc, log_sra_max, fattr->log_sra_max);
		DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
		if (mask && mask->qp_access_mask)
			set_access(qpc, fattr->qp_access_mask);
		if (mask && mask->min_rnr_nak_timer)
			DEVX_SET(qpc, qpc, min_rnr_nak, fattr->min_rnr_nak_timer);
	} else if (from == FLEXIO_QP_STATE_RTS && to == FLEXIO_QP_STATE_RTS) {
		op = MLX5_CMD_OP_RTS2RTS_QP;
		if (!opt) {
			fx_err("flexio_qp_modify: QP 0x%x RTS->RTS with nothing in the opt-param mask",
			       qp->qpn);
			return FLEXIO_STATUS_FAILED;
		}
		if (mask->qp_access_mask)
			set_access(qpc, fattr->qp_access_mask);
		if (mask->min_rnr_nak_timer)
			DEVX_SET(qpc, qpc, min_rnr_nak, fattr->min_rnr_nak_timer);
	} else {
		fx_err("flexio_qp_modify: QP 0x%x: no transition %s -> %s", qp->qpn,
		       state_name(from), state_name(to));
		return FLEXIO_STATUS_FAILED;
	}
	DEVX_SET(init2rtr_qp_in, in, opcode, op);
	DEVX_SET(init2rtr_qp_in, in, qpn, qp->qpn);
	if (op == MLX5_CMD_OP_2ERR_QP || op == MLX5_CMD_OP_2RST_QP) {
		inlen = DEVX_ST_SZ_BYTES(qp_2err_in);
	} else {
		DEVX_SET(init2rtr_qp_in, in, opt_param_mask, opt);
	}
	if (mlx5dv_devx_obj_modify(qp->obj, in, inlen, out, sizeof(out))) {
		fx_err("flexio_qp_modify: QP 0x%x %s -> %s: %s (status 0x%x syndrome 0x%x)", qp->qpn,
		       state_name(from), state_name(to), strerror(errno), cmd_status(out),
		       cmd_syndrome(out));
		return FLEXIO_STATUS_FAILED;
	}
	qp->state = to;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_qp_destroy(struct flexio_qp *qp)
{
	struct flexio_process *p;
	struct flexio_qp **pp;

	if (!qp)
		return FLEXIO_STATUS_SUCCESS;
	p = qp->proc;
	if (mlx5dv_devx_obj_destroy(qp->obj)) {
		fx_err("flexio_qp_destroy: DESTROY_QP 0x%x: %s", qp->qpn, strerror(errno));
		return FLEXIO_STATUS_FAILED;
	}
	if (qp->rmp)
		rmp_use(p, qp->rmp->rmpn, -1);
	pthread_mutex_lock(&p->lock);
	for (pp = &p->qps; *pp && *pp != qp; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = qp->next;
	pthread_mutex_unlock(&p->lock);
	free(qp);
	return FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_qp_get_qp_num(struct flexio_qp *qp)
{
	return qp ? qp->qpn : UINT32_MAX;
}

enum flexio_qp_state flexio_qp_state_get(struct flexio_qp *qp)
{
	uint32_t in[DEVX_ST_SZ_DW(query_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_qp_out)] = {};

	if (!qp)
		return FLEXIO_QP_STATE_ERR;
	DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, in, qpn, qp->qpn);
	if (mlx5dv_devx_obj_query(qp->obj, in, sizeof(in), out, sizeof(out))) {
		fx_err("flexio_qp_state_get: QUERY_QP 0x%x failed", qp->qpn);
		return FLEXIO_QP_STATE_ERR;
	}
	return (enum flexio_qp_state)DEVX_GET(query_qp_out, out, qpc.state);
}

/* ---- device mkeys ------------------------------------------------------------------ */
flexio_status flexio_device_mkey_create(struct flexio_process *process,
					struct flexio_mkey_attr *fattr, struct flexio_mkey **mkey)
{
	uint32_t in[DEVX_ST_SZ_DW(create_mkey_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(create_mkey_out)] = {};
	void *mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	struct flexio_mkey *k;
	uint32_t pdn;

	if (mkey)
		*mkey = NULL;
	if (!process || !fattr || !mkey) {
		fx_err("flexio_device_mkey_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (!fattr->len || !fx_daddr_ok(process, fattr->daddr, fattr->len)) {
		fx_err("flexio_device_mkey_create: [0x%llx, +%zu) is not DPA heap memory",
		       (unsigned long long)fattr->daddr, fattr->len);
		return FLEXIO_STATUS_FAILED;
	}
	if (fattr->access & ~(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)) {
		fx_err("flexio_device_mkey_create: access flags 0x%x not supported", fattr->access);
		return FLEXIO_STATUS_FAILED;
	}
	if (!pd_of(process, fattr->pd, &pdn)) {
		fx_err("flexio_device_mkey_create: not an mlx5 PD");
		return FLEXIO_STATUS_FAILED;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return FLEXIO_STATUS_FAILED;
	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(create_mkey_in, in, mkey_umem_valid, 1);
	DEVX_SET(create_mkey_in, in, mkey_umem_id, process->heap_umem->umem_id);
	DEVX_SET64(create_mkey_in, in, mkey_umem_offset, fattr->daddr - (uintptr_t)process->heap);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	DEVX_SET(mkc, mkc, lr, 1);
	DEVX_SET(mkc, mkc, lw, !!(fattr->access & IBV_ACCESS_LOCAL_WRITE));
	DEVX_SET(mkc, mkc, rr, !!(fattr->access & IBV_ACCESS_REMOTE_READ));
	DEVX_SET(mkc, mkc, rw, !!(fattr->access & IBV_ACCESS_REMOTE_WRITE));
	DEVX_SET(mkc, mkc, a, !!(fattr->access & IBV_ACCESS_REMOTE_ATOMIC));
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, mkey_7_0, 0x42);
	DEVX_SET(mkc, mkc, pd, pdn);
	DEVX_SET64(mkc, mkc, start_addr, fattr->daddr);
	DEVX_SET64(mkc, mkc, len, fattr->len);
	DEVX_SET(mkc, mkc, log_page_size, 12);
	k->obj = mlx5dv_devx_obj_create(process->devx_ctx, in, sizeof(in), out, sizeof(out));
	if (!k->obj) {
		fx_err("flexio_device_mkey_create: CREATE_MKEY: %s (status 0x%x syndrome 0x%x)",
		       strerror(errno), cmd_status(out), cmd_syndrome(out));
		free(k);
		return FLEXIO_STATUS_FAILED;
	}
	k->proc = process;
	k->id = DEVX_GET(create_mkey_out, out, mkey_index) << 8 | 0x42;
	k->daddr = fattr->daddr;
	k->len = fattr->len;
	*mkey = k;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_device_mkey_destroy(struct flexio_mkey *mkey)
{
	if (!mkey)
		return FLEXIO_STATUS_SUCCESS;
	if (mlx5dv_devx_obj_destroy(mkey->obj)) {
		fx_err("flexio_device_mkey_destroy: DESTROY_MKEY 0x%x: %s", mkey->id,
		       strerror(errno));
		return FLEXIO_STATUS_FAILED;
	}
	free(mkey);
	return FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_mkey_get_id(struct flexio_mkey *mkey)
{
	return mkey ? mkey->id : UINT32_MAX;
}

/* ---- outbox doorbells (from DPA threads) ------------------------------------------- */
static struct flexio_qp *qp_find_locked(struct flexio_process *p, uint32_t qpn)
{
	struct flexio_qp *q;

	for (q = p->qps; q; q = q->next)
		if (q->qpn == qpn)
			return q;
	return NULL;
}

void fx_outbox_doorbell(struct flexio_process *p, uint16_t outbox_id, uint32_t reg,
			uint64_t value)
{
	uint32_t num = (uint32_t)value & 0xffffff;

	switch (reg) {
	case FLEXIO_OUTBOX_CQ_DB: {
		struct flexio_cq *c;

		pthread_mutex_lock(&p->lock);
		c = cq_find_locked(p, num);
		pthread_mutex_unlock(&p->lock);
		if (!c) {
			fx_err("outbox %u: CQ doorbell for CQ 0x%x, not a CQ of this process",
			       outbox_id, num);
			return;
		}
		cq_arm(c, (uint32_t)(value >> 32) & 0xffffff);
		return;
	}
	case FLEXIO_OUTBOX_SXD_DB: {
		uint32_t qpn = (uint32_t)(value >> 32) & 0xffffff;
		uint16_t pi = (uint16_t)value;
		struct flexio_qp *q;

		volatile uint32_t *dbr;
		uint8_t *uar;
		struct flexio_sq *sq = NULL;

		pthread_mutex_lock(&p->lock);
		q = qp_find_locked(p, qpn);
		pthread_mutex_unlock(&p->lock);
		if (!q)
			sq = sq_find(p, qpn);
		if (!q && !sq) {
			fx_err("outbox %u: send doorbell for QP/SQ 0x%x, not a queue of this process",
			       outbox_id, qpn);
			return;
		}
		dbr = q ? q->dbr : sq->dbr;
		uar = q ? q->uar : sq->uar;
		/* The DPA's doorbell carries the producer index; our device reads it
		 * from the send counter of the doorbell record. */
		if (dbr)
			__atomic_store_n(&dbr[1], htobe32(pi), __ATOMIC_RELEASE);
		uar_store64(uar, FX_UAR_SQ_DB, htobe32((uint32_t)pi << 8), htobe32(qpn << 8));
		return;
	}
	case FLEXIO_OUTBOX_EQ_DB_REARM:
	case FLEXIO_OUTBOX_EQ_DB_NO_REARM:
		uar_store32(uar_base(p),
			    reg == FLEXIO_OUTBOX_EQ_DB_REARM ? FX_UAR_EQ_DB_ARM : FX_UAR_EQ_DB_NOARM,
			    htobe32(((uint32_t)(value >> 32) & 0xffffff) | num << 24));
		return;
	default:
		fx_err("outbox %u: doorbell register 0x%x (value 0x%llx) is not supported on "
		       "softmlx5", outbox_id, reg, (unsigned long long)value);
	}
}
