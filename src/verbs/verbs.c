/* SPDX-License-Identifier: MIT */
/*
 * The object verbs that are real functions in libibverbs.so.1: each checks its
 * arguments, dispatches to the provider op (which issues the PRM commands) and
 * fills the generic fields of the returned object.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/symver.h"
#include "verbs/driver.h"
#include "verbs/verbs_priv.h"

/* verbs.h wraps these names in macros that pick a variant inline. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova
#undef ibv_query_port

/* ---- protection domains ---- */

SMX_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd;

	if (!context)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(context, alloc_pd))
		return NULL;
	pd = verbs_ops(context)->alloc_pd(context);
	if (pd)
		pd->context = context;
	return pd;
}

SMX_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (!pd)
		return EINVAL;
	return verbs_ops(pd->context)->dealloc_pd(pd);
}

SMX_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	if (!context)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(context, import_pd))
		return NULL;
	return verbs_ops(context)->import_pd(context, pd_handle);
}

SMX_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	if (pd && verbs_ops(pd->context)->unimport_pd)
		verbs_ops(pd->context)->unimport_pd(pd);
}

/* ---- memory regions ---- */

SMX_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
					   uint64_t iova, unsigned int access)
{
	struct ibv_mr *mr;

	if (!pd)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(pd->context, reg_mr))
		return NULL;
	mr = verbs_ops(pd->context)->reg_mr(pd, addr, length, iova, (int)access);
	if (mr) {
		mr->context = pd->context;
		mr->pd = pd;
		mr->addr = addr;
		mr->length = length;
	}
	return mr;
}

SMX_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				     int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

SMX_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
					  uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

SMX_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					     size_t length, uint64_t iova, int fd,
					     int access)
{
	struct ibv_mr *mr;

	if (!pd)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(pd->context, reg_dmabuf_mr))
		return NULL;
	mr = verbs_ops(pd->context)->reg_dmabuf_mr(pd, offset, length, iova, fd, access);
	if (mr) {
		mr->context = pd->context;
		mr->pd = pd;
		mr->addr = (void *)(uintptr_t)offset;
		mr->length = length;
	}
	return mr;
}

/* Returns 0 or one of enum ibv_rereg_mr_err_code (negative), errno set. */
SMX_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			    void *addr, size_t length, int access)
{
	bool translate = flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	int ret;

	if (!mr || (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    (translate && (!length || !addr)) ||
	    (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS)) ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && !pd)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (!verbs_ops(mr->context)->rereg_mr) {
		errno = EOPNOTSUPP;
		return IBV_REREG_MR_ERR_INPUT;
	}
	ret = verbs_ops(mr->context)->rereg_mr(mr, flags, pd, addr, length, access);
	if (ret) {
		errno = ret;
		return IBV_REREG_MR_ERR_CMD;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (translate) {
		mr->addr = addr;
		mr->length = length;
	}
	return 0;
}

SMX_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	if (!mr)
		return EINVAL;
	return verbs_ops(mr->context)->dereg_mr(mr);
}

SMX_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	if (!pd)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(pd->context, import_mr))
		return NULL;
	return verbs_ops(pd->context)->import_mr(pd, mr_handle);
}

SMX_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	if (mr && verbs_ops(mr->context)->unimport_mr)
		verbs_ops(mr->context)->unimport_mr(mr);
}

SMX_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	if (!context)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(context, import_dm))
		return NULL;
	return verbs_ops(context)->import_dm(context, dm_handle);
}

SMX_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	if (dm && verbs_ops(dm->context)->unimport_dm)
		verbs_ops(dm->context)->unimport_dm(dm);
}

/* ---- completion queues ---- */

SMX_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
					void *cq_context,
					struct ibv_comp_channel *channel,
					int comp_vector)
{
	struct ibv_cq *cq;

	if (!context)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(context, create_cq))
		return NULL;
	cq = verbs_ops(context)->create_cq(context, cqe, channel, comp_vector);
	if (cq)
		verbs_init_cq(cq, context, channel, cq_context);
	return cq;
}

SMX_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	if (!cq)
		return EINVAL;
	if (!verbs_ops(cq->context)->resize_cq)
		return EOPNOTSUPP;
	return verbs_ops(cq->context)->resize_cq(cq, cqe);
}

SMX_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ibv_comp_channel *channel;
	struct ibv_context *ctx;
	int ret;

	if (!cq)
		return EINVAL;
	channel = cq->channel;
	ctx = cq->context;
	ret = verbs_ops(ctx)->destroy_cq(cq);
	if (!ret && channel) {
		pthread_mutex_lock(&ctx->mutex);
		channel->refcnt--;
		pthread_mutex_unlock(&ctx->mutex);
	}
	return ret;
}

/* ---- shared receive queues ---- */

SMX_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					  struct ibv_srq_init_attr *srq_init_attr)
{
	struct ibv_srq *srq;

	if (!pd || !srq_init_attr)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(pd->context, create_srq))
		return NULL;
	srq = verbs_ops(pd->context)->create_srq(pd, srq_init_attr);
	if (srq) {
		srq->context = pd->context;
		srq->srq_context = srq_init_attr->srq_context;
		srq->pd = pd;
		srq->events_completed = 0;
		pthread_mutex_init(&srq->mutex, NULL);
		pthread_cond_init(&srq->cond, NULL);
	}
	return srq;
}

SMX_EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			      int srq_attr_mask)
{
	if (!srq || !srq_attr)
		return EINVAL;
	return verbs_ops(srq->context)->modify_srq(srq, srq_attr, srq_attr_mask);
}

SMX_EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	if (!srq || !srq_attr)
		return EINVAL;
	return verbs_ops(srq->context)->query_srq(srq, srq_attr);
}

SMX_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	if (!srq)
		return EINVAL;
	return verbs_ops(srq->context)->destroy_srq(srq);
}

/* ---- queue pairs ---- */

SMX_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
					struct ibv_qp_init_attr *qp_init_attr)
{
	if (!pd || !qp_init_attr)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(pd->context, create_qp))
		return NULL;
	return verbs_ops(pd->context)->create_qp(pd, qp_init_attr);
}

SMX_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct verbs_qp *vqp = (struct verbs_qp *)qp;

	if (vqp->comp_mask & VERBS_QP_EX)
		return &vqp->qp_ex;
	return NULL;
}

SMX_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	int ret;

	if (!qp || !attr || !init_attr)
		return EINVAL;
	ret = verbs_ops(qp->context)->query_qp(qp, attr, attr_mask, init_attr);
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

SMX_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
					  uint32_t flags)
{
	if (!qp || !verbs_ops(qp->context)->query_qp_data_in_order)
		return 0;
	return verbs_ops(qp->context)->query_qp_data_in_order(qp, op, flags);
}

SMX_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	int ret;

	if (!qp || !attr)
		return EINVAL;
	ret = verbs_ops(qp->context)->modify_qp(qp, attr, attr_mask);
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

SMX_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	if (!qp)
		return EINVAL;
	return verbs_ops(qp->context)->destroy_qp(qp);
}

SMX_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	if (!qp || !ece)
		return EINVAL;
	if (!verbs_ops(qp->context)->query_ece)
		return EOPNOTSUPP;
	return verbs_ops(qp->context)->query_ece(qp, ece);
}

SMX_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	if (!qp || !ece || !ece->vendor_id || ece->comp_mask)
		return EINVAL;
	if (!verbs_ops(qp->context)->set_ece)
		return EOPNOTSUPP;
	return verbs_ops(qp->context)->set_ece(qp, ece);
}

/* ---- address handles and multicast ---- */

SMX_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah;

	if (!pd || !attr)
		return SMX_FAIL_NULL(EINVAL);
	if (!SMX_OP(pd->context, create_ah))
		return NULL;
	ah = verbs_ops(pd->context)->create_ah(pd, attr);
	if (ah) {
		ah->context = pd->context;
		ah->pd = pd;
	}
	return ah;
}

SMX_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	if (!ah)
		return EINVAL;
	return verbs_ops(ah->context)->destroy_ah(ah);
}

SMX_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	if (!qp || !gid)
		return EINVAL;
	if (!verbs_ops(qp->context)->attach_mcast)
		return EOPNOTSUPP;
	return verbs_ops(qp->context)->attach_mcast(qp, gid, lid);
}

SMX_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	if (!qp || !gid)
		return EINVAL;
	if (!verbs_ops(qp->context)->detach_mcast)
		return EOPNOTSUPP;
	return verbs_ops(qp->context)->detach_mcast(qp, gid, lid);
}
