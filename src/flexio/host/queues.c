/* SPDX-License-Identifier: MIT */
/*
 * Queues on the DPA (CQ/SQ/RQ/RMP/QP), device mkeys, command queues and the
 * outbox doorbells DPA threads ring -- stage 2 of issue 8. Until they land
 * every call here fails with FLEXIO_STATUS_FAILED and a log line naming what
 * is missing (docs/status.md lists them).
 */
#include "flexio/host/fx_priv.h"

#define FX_NOT_YET(name)                                                       \
	do {                                                                   \
		fx_err("%s: not implemented on softmlx5 yet (docs/status.md)", name); \
		return FLEXIO_STATUS_FAILED;                                   \
	} while (0)

void fx_outbox_doorbell(struct flexio_process *p, uint16_t outbox_id, uint32_t reg,
			uint64_t value)
{
	(void)p;
	fx_err("outbox %u: doorbell register 0x%x value 0x%llx: DPA queues are not "
	       "implemented yet", outbox_id, reg, (unsigned long long)value);
}

flexio_status flexio_cq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       const struct flexio_cq_attr *fattr, struct flexio_cq **cq)
{
	(void)process; (void)ibv_ctx; (void)fattr;
	if (cq)
		*cq = NULL;
	FX_NOT_YET("flexio_cq_create");
}

flexio_status flexio_cq_destroy(struct flexio_cq *cq)
{
	if (!cq)
		return FLEXIO_STATUS_SUCCESS;
	FX_NOT_YET("flexio_cq_destroy");
}

uint32_t flexio_cq_get_cq_num(struct flexio_cq *cq)
{
	(void)cq;
	return UINT32_MAX;
}

flexio_status flexio_cq_query_moderation(struct flexio_cq *cq, uint16_t *max_count,
					 uint16_t *period, uint16_t *mode)
{
	(void)cq; (void)max_count; (void)period; (void)mode;
	FX_NOT_YET("flexio_cq_query_moderation");
}

flexio_status flexio_cq_modify_moderation(struct flexio_cq *cq, uint16_t max_count,
					  uint16_t period, uint16_t mode)
{
	(void)cq; (void)max_count; (void)period; (void)mode;
	FX_NOT_YET("flexio_cq_modify_moderation");
}

flexio_status flexio_rq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       uint32_t cq_num, const struct flexio_wq_attr *fattr,
			       struct flexio_rq **flexio_rq_ptr)
{
	(void)process; (void)ibv_ctx; (void)cq_num; (void)fattr;
	if (flexio_rq_ptr)
		*flexio_rq_ptr = NULL;
	FX_NOT_YET("flexio_rq_create");
}

flexio_status flexio_rq_destroy(struct flexio_rq *flexio_rq)
{
	if (!flexio_rq)
		return FLEXIO_STATUS_SUCCESS;
	FX_NOT_YET("flexio_rq_destroy");
}

flexio_status flexio_rq_set_err_state(struct flexio_rq *rq)
{
	(void)rq;
	FX_NOT_YET("flexio_rq_set_err_state");
}

uint32_t flexio_rq_get_wq_num(struct flexio_rq *rq)
{
	(void)rq;
	return UINT32_MAX;
}

struct mlx5dv_devx_obj *flexio_rq_get_tir(struct flexio_rq *rq)
{
	(void)rq;
	return NULL;
}

flexio_status flexio_rmp_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
				const struct flexio_wq_attr *fattr,
				struct flexio_rmp **flexio_rmp_ptr)
{
	(void)process; (void)ibv_ctx; (void)fattr;
	if (flexio_rmp_ptr)
		*flexio_rmp_ptr = NULL;
	FX_NOT_YET("flexio_rmp_create");
}

flexio_status flexio_rmp_destroy(struct flexio_rmp *flexio_rmp)
{
	if (!flexio_rmp)
		return FLEXIO_STATUS_SUCCESS;
	FX_NOT_YET("flexio_rmp_destroy");
}

uint32_t flexio_rmp_get_wq_num(struct flexio_rmp *rmp)
{
	(void)rmp;
	return UINT32_MAX;
}

flexio_status flexio_sq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       uint32_t cq_num, const struct flexio_wq_attr *fattr,
			       struct flexio_sq **flexio_sq_ptr)
{
	(void)process; (void)ibv_ctx; (void)cq_num; (void)fattr;
	if (flexio_sq_ptr)
		*flexio_sq_ptr = NULL;
	FX_NOT_YET("flexio_sq_create");
}

flexio_status flexio_sq_destroy(struct flexio_sq *flexio_sq)
{
	if (!flexio_sq)
		return FLEXIO_STATUS_SUCCESS;
	FX_NOT_YET("flexio_sq_destroy");
}

uint32_t flexio_sq_get_wq_num(struct flexio_sq *sq)
{
	(void)sq;
	return UINT32_MAX;
}

flexio_status flexio_qp_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       struct flexio_qp_attr *qp_fattr, struct flexio_qp **qp_ptr)
{
	(void)process; (void)ibv_ctx; (void)qp_fattr;
	if (qp_ptr)
		*qp_ptr = NULL;
	FX_NOT_YET("flexio_qp_create");
}

flexio_status flexio_qp_modify(struct flexio_qp *qp, struct flexio_qp_attr *fattr,
			       struct flexio_qp_attr_opt_param_mask *mask)
{
	(void)qp; (void)fattr; (void)mask;
	FX_NOT_YET("flexio_qp_modify");
}

flexio_status flexio_qp_destroy(struct flexio_qp *qp)
{
	if (!qp)
		return FLEXIO_STATUS_SUCCESS;
	FX_NOT_YET("flexio_qp_destroy");
}

uint32_t flexio_qp_get_qp_num(struct flexio_qp *qp)
{
	(void)qp;
	return UINT32_MAX;
}

enum flexio_qp_state flexio_qp_state_get(struct flexio_qp *qp)
{
	(void)qp;
	return FLEXIO_QP_STATE_ERR;
}

flexio_status flexio_device_mkey_create(struct flexio_process *process,
					struct flexio_mkey_attr *fattr, struct flexio_mkey **mkey)
{
	(void)process; (void)fattr;
	if (mkey)
		*mkey = NULL;
	FX_NOT_YET("flexio_device_mkey_create");
}

flexio_status flexio_device_mkey_destroy(struct flexio_mkey *mkey)
{
	if (!mkey)
		return FLEXIO_STATUS_SUCCESS;
	FX_NOT_YET("flexio_device_mkey_destroy");
}

uint32_t flexio_mkey_get_id(struct flexio_mkey *mkey)
{
	return mkey ? mkey->id : UINT32_MAX;
}

flexio_status flexio_cmdq_create(struct flexio_process *process, struct flexio_cmdq_attr *fattr,
				 struct flexio_cmdq **cmdq)
{
	(void)process; (void)fattr;
	if (cmdq)
		*cmdq = NULL;
	FX_NOT_YET("flexio_cmdq_create");
}

flexio_status flexio_cmdq_task_add(struct flexio_cmdq *cmdq, flexio_func_t *host_func,
				   uint64_t arg)
{
	(void)cmdq; (void)host_func; (void)arg;
	FX_NOT_YET("flexio_cmdq_task_add");
}

flexio_status flexio_cmdq_state_running(struct flexio_cmdq *cmdq)
{
	(void)cmdq;
	FX_NOT_YET("flexio_cmdq_state_running");
}

int flexio_cmdq_is_empty(struct flexio_cmdq *cmdq)
{
	(void)cmdq;
	return 1;
}

flexio_status flexio_cmdq_destroy(struct flexio_cmdq *cmdq)
{
	if (!cmdq)
		return FLEXIO_STATUS_SUCCESS;
	FX_NOT_YET("flexio_cmdq_destroy");
}
