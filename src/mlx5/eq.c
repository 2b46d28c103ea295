/* SPDX-License-Identifier: MIT */
/*
 * Completion event queues. On real hardware the kernel creates one EQ per
 * completion vector when the device comes up and every CQ names one (c_eqn);
 * our provider plays the kernel, so the device (struct mlx5_device) owns them,
 * created with uid 0 on first use and shared by all contexts of the process,
 * until the last of them closes (mlx5.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/devx.h"
#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"

#define MLX5_EQ_LOG_SIZE 10	/* 1024 EQEs of 64 bytes */
#define MLX5_EQE_SIZE 64

static pthread_mutex_t eq_lock = PTHREAD_MUTEX_INITIALIZER;

/* Asynchronous event types (PRM "Event Queue Element types"). */
enum {
	EQE_COMP = 0x00,
	EQE_PATH_MIG = 0x01,
	EQE_COMM_EST = 0x02,
	EQE_SQ_DRAINED = 0x03,
	EQE_CQ_ERROR = 0x04,
	EQE_WQ_CATAS_ERROR = 0x05,
	EQE_PATH_MIG_FAILED = 0x07,
	EQE_WQ_INVAL_REQ_ERROR = 0x10,
	EQE_WQ_ACCESS_ERROR = 0x11,
	EQE_SRQ_CATAS_ERROR = 0x12,
	EQE_SRQ_LAST_WQE = 0x13,
	EQE_SRQ_RQ_LIMIT = 0x14,
};

#define ASYNC_EVENT_MASK                                                        \
	(1ull << EQE_PATH_MIG | 1ull << EQE_COMM_EST | 1ull << EQE_SQ_DRAINED |   \
	 1ull << EQE_CQ_ERROR | 1ull << EQE_WQ_CATAS_ERROR |                      \
	 1ull << EQE_PATH_MIG_FAILED | 1ull << EQE_WQ_INVAL_REQ_ERROR |           \
	 1ull << EQE_WQ_ACCESS_ERROR | 1ull << EQE_SRQ_CATAS_ERROR |              \
	 1ull << EQE_SRQ_LAST_WQE | 1ull << EQE_SRQ_RQ_LIMIT)

static void eq_doorbell(struct mlx5_device *mdev, struct mlx5_eq *eq, bool arm)
{
	__be32 db[2] = { htobe32((eq->cons_index & 0xffffff) | eq->eqn << 24), 0 };
	uint64_t val;

	memcpy(&val, db, sizeof(val));
	smx_dev_mmio_write64(mdev->hca, (uint64_t)mdev->eq_uar * MLX5_ADAPTER_PAGE_SIZE +
						 (arm ? 0x40 : 0x48),
			     val);
}

static void eq_async_event(struct mlx5_device *mdev, const uint8_t *eqe, uint8_t type)
{
	static const enum ibv_event_type qp_events[] = {
		[EQE_PATH_MIG] = IBV_EVENT_PATH_MIG,
		[EQE_COMM_EST] = IBV_EVENT_COMM_EST,
		[EQE_SQ_DRAINED] = IBV_EVENT_SQ_DRAINED,
		[EQE_WQ_CATAS_ERROR] = IBV_EVENT_QP_FATAL,
		[EQE_PATH_MIG_FAILED] = IBV_EVENT_PATH_MIG_ERR,
		[EQE_WQ_INVAL_REQ_ERROR] = IBV_EVENT_QP_REQ_ERR,
		[EQE_WQ_ACCESS_ERROR] = IBV_EVENT_QP_ACCESS_ERR,
		[EQE_SRQ_CATAS_ERROR] = IBV_EVENT_SRQ_ERR,
		[EQE_SRQ_LAST_WQE] = IBV_EVENT_QP_LAST_WQE_REACHED,
		[EQE_SRQ_RQ_LIMIT] = IBV_EVENT_SRQ_LIMIT_REACHED,
	};
	uint32_t num;

	if (type == EQE_CQ_ERROR) {
		struct mlx5_cq *cq;

		memcpy(&num, eqe + 0x20, 4);
		cq = mlx5_table_find(&mdev->cqs, be32toh(num) & 0xffffff);
		if (cq)
			verbs_async_event_post(cq->ibv_cq.context, IBV_EVENT_CQ_ERR,
					       (uintptr_t)&cq->ibv_cq);
		return;
	}
	/* QP/SRQ events: number at +0x38, its kind (0 QP, 1 SRQ) at +0x34 */
	memcpy(&num, eqe + 0x38, 4);
	num = be32toh(num) & 0xffffff;
	if (eqe[0x34] == 1 || type == EQE_SRQ_CATAS_ERROR || type == EQE_SRQ_RQ_LIMIT) {
		struct mlx5_srq *srq = mlx5_table_find(&mdev->srqs, num);

		if (srq)
			verbs_async_event_post(srq->ibv_srq.context, qp_events[type],
					       (uintptr_t)&srq->ibv_srq);
	} else {
		struct mlx5_qp *qp = mlx5_table_find(&mdev->qps, num);

		if (qp)
			verbs_async_event_post(qp->vqp.qp.context, qp_events[type],
					       (uintptr_t)&qp->vqp.qp);
	}
}

/*
 * The interrupt handler: consume the vector's EQEs and hand each to the
 * application's completion channel or async fd. Runs in the engine's thread,
 * so it only writes pipes; the EQ is re-armed later from a library call.
 */
static void eq_irq(void *arg, uint32_t vector)
{
	struct mlx5_device *mdev = arg;
	struct mlx5_eq *eq = NULL;
	uint32_t nent = 1u << MLX5_EQ_LOG_SIZE;

	if (vector < (uint32_t)mdev->num_eqs)
		eq = &mdev->eqs[vector];
	else if (mdev->eqs[MLX5_MAX_COMP_EQS].buf.addr &&
		 mdev->eqs[MLX5_MAX_COMP_EQS].vector == vector)
		eq = &mdev->eqs[MLX5_MAX_COMP_EQS];
	if (!eq || !eq->buf.addr)
		return;
	for (;;) {
		uint8_t *eqe = (uint8_t *)eq->buf.addr +
			       (size_t)(eq->cons_index & (nent - 1)) * MLX5_EQE_SIZE;
		uint8_t owner = __atomic_load_n(&eqe[63], __ATOMIC_ACQUIRE);
		uint8_t type = eqe[1];

		if ((owner & 1) ^ !!(eq->cons_index & nent))
			break;
		if (type == EQE_COMP) {
			uint32_t cqn;
			struct mlx5_cq *cq;

			memcpy(&cqn, eqe + 0x38, 4);
			cq = mlx5_table_find(&mdev->cqs, be32toh(cqn) & 0xffffff);
			if (cq)
				verbs_comp_event_post(ibv_cq_ex_to_cq(&cq->ibv_cq));
		} else if (type < 0x20 && (ASYNC_EVENT_MASK >> type) & 1) {
			eq_async_event(mdev, eqe, type);
		}
		mlx5_devx_event(eqe);	/* DEVX subscriptions (devx.c) */
		eq->cons_index++;
	}
	__atomic_store_n(&eq->need_arm, true, __ATOMIC_RELEASE);
}

/* Reports the consumer index of EQs that fired since the last call, so the
 * device sees room in them (they stay armed: ALWAYS_ARMED). */
void mlx5_eq_rearm(struct mlx5_context *ctx)
{
	struct mlx5_device *mdev = to_mdev(ctx->ibv_ctx.context.device);
	int i;

	for (i = 0; i < MLX5_MAX_COMP_EQS + 1; i++) {
		struct mlx5_eq *eq = &mdev->eqs[i];

		if (eq->buf.addr && __atomic_exchange_n(&eq->need_arm, false, __ATOMIC_ACQ_REL))
			eq_doorbell(mdev, eq, false);
	}
}

static int eq_create(struct mlx5_device *mdev, struct mlx5_eq *eq, uint32_t uar_page,
		     uint64_t events)
{
	uint32_t out[DEVX_ST_SZ_DW(create_eq_out)] = {};
	size_t inlen, n, i;
	uint32_t *in;
	void *eqc;
	int ret;

	ret = mlx5_buf_alloc(&eq->buf, MLX5_EQE_SIZE << MLX5_EQ_LOG_SIZE);
	if (ret)
		return ret;
	/* EQEs start owned by hardware: owner bit set (PRM). */
	for (i = 0; i < (1u << MLX5_EQ_LOG_SIZE); i++)
		((uint8_t *)eq->buf.addr)[i * MLX5_EQE_SIZE + 63] = 1;
	n = mlx5_buf_npages(&eq->buf);
	inlen = DEVX_ST_SZ_BYTES(create_eq_in) + n * sizeof(__be64);
	in = calloc(1, inlen);
	if (!in) {
		mlx5_buf_free(&eq->buf);
		return ENOMEM;
	}
	DEVX_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	eqc = DEVX_ADDR_OF(create_eq_in, in, eq_context_entry);
	DEVX_SET(eqc, eqc, log_eq_size, MLX5_EQ_LOG_SIZE);
	DEVX_SET(eqc, eqc, uar_page, uar_page);
	DEVX_SET(eqc, eqc, intr, eq->vector);
	DEVX_SET(eqc, eqc, log_page_size, 0);
	/* Every EQE interrupts: the handler runs inside the device and may
	 * not ring a re-arm doorbell itself. */
	DEVX_SET(eqc, eqc, st, MLX5_EQC_ST_ALWAYS_ARMED);
	/* Event type 0x00 is "completion event"; bit N of the mask enables type N. */
	DEVX_SET64(create_eq_in, in, event_bitmask[0], events);
	mlx5_buf_fill_pas(&eq->buf, (__be64 *)DEVX_ADDR_OF(create_eq_in, in, pas));
	ret = mlx5_cmd_exec_hca(mdev->hca, 0, in, inlen, out, sizeof(out));
	free(in);
	if (ret) {
		mlx5_buf_free(&eq->buf);
		return ret;
	}
	eq->eqn = DEVX_GET(create_eq_out, out, eq_number);
	return smx_dev_irq_register(mdev->hca, eq->vector, eq_irq, mdev);
}

/* EQ number serving completion vector @vector, creating the EQs on first use. */
int mlx5_comp_eqn(struct mlx5_context *ctx, int vector, uint32_t *eqn)
{
	struct mlx5_device *mdev = to_mdev(ctx->ibv_ctx.context.device);
	int nvec = ctx->ibv_ctx.context.num_comp_vectors;
	int ret = 0, i;

	if (vector < 0 || vector >= nvec || vector >= MLX5_MAX_COMP_EQS)
		return EINVAL;
	pthread_mutex_lock(&eq_lock);
	if (!mdev->eq_uar_valid) {
		/* The EQs' doorbell page belongs to the device, not a context. */
		uint32_t in[DEVX_ST_SZ_DW(alloc_uar_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(alloc_uar_out)] = {};

		DEVX_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
		ret = mlx5_cmd_exec_hca(mdev->hca, 0, in, sizeof(in), out, sizeof(out));
		if (ret) {
			pthread_mutex_unlock(&eq_lock);
			return ret;
		}
		mdev->eq_uar = DEVX_GET(alloc_uar_out, out, uar);
		mdev->eq_uar_valid = true;
	}
	for (i = mdev->num_eqs; i < nvec && i < MLX5_MAX_COMP_EQS; i++) {
		mdev->eqs[i].vector = (uint32_t)i;
		ret = eq_create(mdev, &mdev->eqs[i], mdev->eq_uar, 1ull << EQE_COMP);
		if (ret)
			break;
		mdev->num_eqs = i + 1;
	}
	/* One more vector for asynchronous events, after the completion ones. */
	if (!ret && !mdev->eqs[MLX5_MAX_COMP_EQS].buf.addr) {
		mdev->eqs[MLX5_MAX_COMP_EQS].vector = (uint32_t)nvec;
		ret = eq_create(mdev, &mdev->eqs[MLX5_MAX_COMP_EQS], mdev->eq_uar,
				ASYNC_EVENT_MASK);
	}
	if (vector < mdev->num_eqs)
		*eqn = mdev->eqs[vector].eqn;
	else if (!ret)
		ret = EINVAL;
	pthread_mutex_unlock(&eq_lock);
	return ret;
}

void mlx5_eq_destroy(struct mlx5_device *mdev)
{
	int i;

	pthread_mutex_lock(&eq_lock);
	for (i = 0; i < MLX5_MAX_COMP_EQS + 1; i++) {
		uint32_t in[DEVX_ST_SZ_DW(destroy_eq_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};
		struct mlx5_eq *eq = &mdev->eqs[i];

		if (!eq->buf.addr)
			continue;
		smx_dev_irq_unregister(mdev->hca, eq->vector);
		DEVX_SET(destroy_eq_in, in, opcode, MLX5_CMD_OP_DESTROY_EQ);
		DEVX_SET(destroy_eq_in, in, eq_number, eq->eqn);
		if (mlx5_cmd_exec_hca(mdev->hca, 0, in, sizeof(in), out, sizeof(out)))
			smx_dbg("eq: EQ %u outlives the last close (CQs left open)",
				eq->eqn);
	}
	if (mdev->eq_uar_valid) {
		uint32_t in[DEVX_ST_SZ_DW(dealloc_uar_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

		DEVX_SET(dealloc_uar_in, in, opcode, MLX5_CMD_OP_DEALLOC_UAR);
		DEVX_SET(dealloc_uar_in, in, uar, mdev->eq_uar);
		mlx5_cmd_exec_hca(mdev->hca, 0, in, sizeof(in), out, sizeof(out));
		mdev->eq_uar_valid = false;
	}
	mdev->num_eqs = 0;
	pthread_mutex_unlock(&eq_lock);
}

void mlx5_eq_free_rings(struct mlx5_device *mdev)
{
	int i;

	pthread_mutex_lock(&eq_lock);
	for (i = 0; i < MLX5_MAX_COMP_EQS + 1; i++) {
		mlx5_buf_free(&mdev->eqs[i].buf);
		memset(&mdev->eqs[i], 0, sizeof(mdev->eqs[i]));
	}
	pthread_mutex_unlock(&eq_lock);
}
