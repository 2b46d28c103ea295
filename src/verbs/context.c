/* SPDX-License-Identifier: MIT */
/*
 * Context plumbing shared with the provider (IBVERBS_PRIVATE_34) and the two
 * event queues every context has: completion channels and the async fd. Both
 * are pipes the device side writes records into, so applications can poll(),
 * select() or make them non-blocking exactly as with the kernel's uverbs files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/symver.h"
#include "verbs/driver.h"
#include "verbs/verbs_priv.h"

/* What one read() of a channel or async fd returns (the uverbs ABI). */
struct comp_event_rec {
	uint64_t cq_handle;
};

struct async_event_rec {
	uint64_t element;
	uint32_t event_type;
	uint32_t reserved;
};

/* A pipe whose read end blocks (like a uverbs file) and whose write end never
 * does: the device must not stall because an application stopped reading. */
static int event_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	if (fcntl(fds[1], F_SETFL, O_NONBLOCK)) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	return 0;
}

static int query_port_wrapper(struct ibv_context *ctx, uint8_t port_num,
			      struct ibv_port_attr *attr, size_t len)
{
	struct ibv_port_attr full;
	int ret;

	if (!attr)
		return EINVAL;
	memset(&full, 0, sizeof(full));
	ret = verbs_ops(ctx)->query_port(ctx, port_num, &full);
	if (ret)
		return ret;
	memcpy(attr, &full, len < sizeof(full) ? len : sizeof(full));
	return 0;
}

SMX_EXPORT void *_verbs_init_and_alloc_context(struct ibv_device *device,
					       int cmd_fd, size_t alloc_size,
					       struct verbs_context *context_offset,
					       uint32_t driver_id)
{
	size_t off = (size_t)(uintptr_t)context_offset;
	struct verbs_context *vctx;
	int fds[2];
	void *drv;

	if (alloc_size < off + sizeof(*vctx)) {
		errno = EINVAL;
		return NULL;
	}
	drv = calloc(1, alloc_size);
	if (!drv) {
		errno = ENOMEM;
		return NULL;
	}
	vctx = (struct verbs_context *)((uint8_t *)drv + off);
	vctx->priv = calloc(1, sizeof(*vctx->priv));
	if (!vctx->priv || event_pipe(fds)) {
		free(vctx->priv);
		free(drv);
		errno = ENOMEM;
		return NULL;
	}
	vctx->sz = sizeof(*vctx);
	vctx->priv->driver_id = driver_id;
	vctx->priv->async_write_fd = fds[1];
	vctx->context.device = device;
	vctx->context.cmd_fd = cmd_fd;
	vctx->context.async_fd = fds[0];
	vctx->context.num_comp_vectors = 1;
	vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&vctx->context.mutex, NULL);
	vctx->query_port = query_port_wrapper;
	return drv;
}

SMX_EXPORT void verbs_uninit_context(struct verbs_context *vctx)
{
	close(vctx->context.async_fd);
	close(vctx->priv->async_write_fd);
	close(vctx->context.cmd_fd);
	pthread_mutex_destroy(&vctx->context.mutex);
	free(vctx->priv);
	vctx->priv = NULL;
}

#define SET_OP(dst, name)                                                      \
	do {                                                                   \
		if (ops->name)                                                 \
			(dst)->name = ops->name;                               \
	} while (0)
#define SET_PRIV_OP(name) SET_OP(&priv->ops, name)

SMX_EXPORT void verbs_set_ops(struct verbs_context *vctx,
			      const struct verbs_context_ops *ops)
{
	struct verbs_ex_private *priv = vctx->priv;
	struct ibv_context *ctx = &vctx->context;
	const void *const *src = (const void *const *)ops;
	void **dst = (void **)&priv->ops;
	size_t i;

	/* Every non-NULL op overrides; the table is all function pointers. */
	for (i = 0; i < sizeof(*ops) / sizeof(void *); i++)
		if (src[i])
			dst[i] = (void *)src[i];

	/* Inline verbs.h functions call through these public slots. */
	SET_OP(&ctx->ops, alloc_mw);
	SET_OP(&ctx->ops, bind_mw);
	SET_OP(&ctx->ops, dealloc_mw);
	SET_OP(&ctx->ops, poll_cq);
	SET_OP(&ctx->ops, req_notify_cq);
	SET_OP(&ctx->ops, post_srq_recv);
	SET_OP(&ctx->ops, post_send);
	SET_OP(&ctx->ops, post_recv);

	SET_OP(vctx, advise_mr);
	SET_OP(vctx, alloc_null_mr);
	SET_OP(vctx, reg_dm_mr);
	SET_OP(vctx, alloc_dm);
	SET_OP(vctx, free_dm);
	SET_OP(vctx, alloc_parent_domain);
	SET_OP(vctx, alloc_td);
	SET_OP(vctx, dealloc_td);
	SET_OP(vctx, modify_cq);
	SET_OP(vctx, post_srq_ops);
	SET_OP(vctx, create_rwq_ind_table);
	SET_OP(vctx, destroy_rwq_ind_table);
	SET_OP(vctx, create_wq);
	SET_OP(vctx, modify_wq);
	SET_OP(vctx, destroy_wq);
	SET_OP(vctx, query_rt_values);
	SET_OP(vctx, create_cq_ex);
	SET_OP(vctx, query_device_ex);
	SET_OP(vctx, open_qp);
	SET_OP(vctx, create_qp_ex);
	SET_OP(vctx, get_srq_num);
	SET_OP(vctx, create_srq_ex);
	SET_OP(vctx, open_xrcd);
	SET_OP(vctx, close_xrcd);
	SET_OP(vctx, modify_qp_rate_limit);
	SET_OP(vctx, destroy_flow_action);
	if (ops->create_flow)
		vctx->ibv_create_flow = ops->create_flow;
	if (ops->destroy_flow)
		vctx->ibv_destroy_flow = ops->destroy_flow;
}

SMX_EXPORT void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
			      struct ibv_comp_channel *channel, void *cq_context)
{
	cq->context = context;
	cq->channel = channel;
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	cq->cq_context = cq_context;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
}

/* ---- completion channels ---- */

SMX_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct verbs_comp_channel *ch;
	int fds[2];

	if (!context)
		return SMX_FAIL_NULL(EINVAL);
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return SMX_FAIL_NULL(ENOMEM);
	if (event_pipe(fds)) {
		free(ch);
		return NULL;
	}
	ch->channel.context = context;
	ch->channel.fd = fds[0];
	ch->channel.refcnt = 0;
	ch->write_fd = fds[1];
	return &ch->channel;
}

SMX_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct verbs_comp_channel *ch;
	struct ibv_context *ctx;

	if (!channel)
		return EINVAL;
	ctx = channel->context;
	pthread_mutex_lock(&ctx->mutex);
	if (channel->refcnt) {
		pthread_mutex_unlock(&ctx->mutex);
		return EBUSY;
	}
	pthread_mutex_unlock(&ctx->mutex);
	ch = SMX_CONTAINER_OF(channel, struct verbs_comp_channel, channel);
	close(ch->channel.fd);
	close(ch->write_fd);
	free(ch);
	return 0;
}

SMX_EXPORT int verbs_comp_event_post(struct ibv_cq *cq)
{
	struct comp_event_rec rec = { .cq_handle = (uint64_t)(uintptr_t)cq };
	struct verbs_comp_channel *ch;

	if (!cq->channel)
		return 0;
	ch = SMX_CONTAINER_OF(cq->channel, struct verbs_comp_channel, channel);
	if (write(ch->write_fd, &rec, sizeof(rec)) != sizeof(rec)) {
		smx_dbg("cq %p: completion event dropped: channel full", (void *)cq);
		return -EAGAIN;
	}
	return 0;
}

SMX_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
				struct ibv_cq **cq, void **cq_context)
{
	struct comp_event_rec rec;

	if (!channel || !cq || !cq_context)
		return -1;
	if (read(channel->fd, &rec, sizeof(rec)) != sizeof(rec))
		return -1;
	*cq = (struct ibv_cq *)(uintptr_t)rec.cq_handle;
	*cq_context = (*cq)->cq_context;
	if (verbs_ops((*cq)->context)->cq_event)
		verbs_ops((*cq)->context)->cq_event(*cq);
	return 0;
}

SMX_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ---- asynchronous events ---- */

SMX_EXPORT int verbs_async_event_post(struct ibv_context *ctx,
				      enum ibv_event_type type, uint64_t element)
{
	struct async_event_rec rec = { .element = element, .event_type = type };

	if (write(verbs_get_ctx(ctx)->priv->async_write_fd, &rec, sizeof(rec)) !=
	    sizeof(rec)) {
		smx_dbg("async event %d dropped: async fd full", (int)type);
		return -EAGAIN;
	}
	return 0;
}

/* Which object an async event names (the uverbs event element kinds). */
enum event_elem { ELEM_CQ, ELEM_QP, ELEM_SRQ, ELEM_WQ, ELEM_PORT };

static enum event_elem event_elem(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return ELEM_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return ELEM_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return ELEM_SRQ;
	case IBV_EVENT_WQ_FATAL:
		return ELEM_WQ;
	default:
		return ELEM_PORT;
	}
}

SMX_EXPORT int ibv_get_async_event(struct ibv_context *context,
				   struct ibv_async_event *event)
{
	struct async_event_rec rec;

	if (!context || !event)
		return -1;
	if (read(context->async_fd, &rec, sizeof(rec)) != sizeof(rec))
		return -1;
	event->event_type = rec.event_type;
	switch (event_elem(rec.event_type)) {
	case ELEM_CQ:
		event->element.cq = (struct ibv_cq *)(uintptr_t)rec.element;
		break;
	case ELEM_QP:
		event->element.qp = (struct ibv_qp *)(uintptr_t)rec.element;
		break;
	case ELEM_SRQ:
		event->element.srq = (struct ibv_srq *)(uintptr_t)rec.element;
		break;
	case ELEM_WQ:
		event->element.wq = (struct ibv_wq *)(uintptr_t)rec.element;
		break;
	case ELEM_PORT:
		event->element.port_num = (int)rec.element;
		break;
	}
	return 0;
}

/* Counts the acknowledged event on its object, waking destroy paths. */
static void event_ack(pthread_mutex_t *m, pthread_cond_t *c, uint32_t *count)
{
	pthread_mutex_lock(m);
	(*count)++;
	pthread_cond_signal(c);
	pthread_mutex_unlock(m);
}

SMX_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event_elem(event->event_type)) {
	case ELEM_CQ: {
		struct ibv_cq *cq = event->element.cq;

		event_ack(&cq->mutex, &cq->cond, &cq->async_events_completed);
		break;
	}
	case ELEM_QP: {
		struct ibv_qp *qp = event->element.qp;

		event_ack(&qp->mutex, &qp->cond, &qp->events_completed);
		break;
	}
	case ELEM_SRQ: {
		struct ibv_srq *srq = event->element.srq;

		event_ack(&srq->mutex, &srq->cond, &srq->events_completed);
		break;
	}
	default:
		break;
	}
}
