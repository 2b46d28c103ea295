/* SPDX-License-Identifier: MIT */
/*
 * Small mlx5dv entry points: the port query, the device clock
 * (mlx5dv_get_clock_info, ibv_query_rt_values_ex) and reserved QP numbers.
 *
 * The clock. softmlx5's hca_core_clock is the host's CLOCK_MONOTONIC in
 * nanoseconds: the engine stamps CQEs with it (eng_comp.c) and the
 * capabilities say device_frequency_khz = 1000000. Where rdma-core reads
 * the free-running counter from the BAR's internal timer, this driver reads
 * the same counter with clock_gettime(). mlx5dv_get_clock_info() pairs one
 * reading of it with the wall clock, so mlx5dv_ts_to_ns() turns a CQE
 * timestamp into nanoseconds since the epoch (mult 1, shift 0, 64-bit mask).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

/* ---- port ---- */

/*
 * What mlx5_ib answers for a port whose e-switch is not in switchdev mode
 * (always so here): no vport, steering ICM or reg_c0 information, flags 0.
 */
SMX_EXPORT int _mlx5dv_query_port(struct ibv_context *context, uint32_t port_num,
				  struct mlx5dv_port *info, size_t info_len)
{
	if (!context || !info)
		return EINVAL;
	if (!mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	if (port_num < 1 || port_num > to_mctx(context)->num_ports)
		return EINVAL;
	memset(info, 0, info_len);
	return 0;
}

/* ---- clock ---- */

static uint64_t hca_core_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

SMX_EXPORT int mlx5dv_get_clock_info(struct ibv_context *context,
				     struct mlx5dv_clock_info *ci)
{
	struct timespec rt;
	uint64_t before, after;

	if (!context || !ci)
		return EINVAL;
	if (!mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	/* One wall-clock reading between two counter readings: their mean
	 * is the counter value at that instant, to within the gap. */
	before = hca_core_clock();
	clock_gettime(CLOCK_REALTIME, &rt);
	after = hca_core_clock();
	memset(ci, 0, sizeof(*ci));
	ci->nsec = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
	ci->last_cycles = before + (after - before) / 2;
	ci->frac = 0;
	ci->mult = 1;
	ci->shift = 0;
	ci->mask = UINT64_MAX;
	return 0;
}

int mlx5_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values)
{
	uint32_t comp_mask = 0;

	if (!values || (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK))
		return EINVAL;
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		/* rdma-core's format: the raw counter in tv_nsec, tv_sec 0. */
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = (long)hca_core_clock();
		comp_mask |= IBV_VALUES_MASK_RAW_CLOCK;
	}
	values->comp_mask = comp_mask;
	return 0;
}

/* ---- reserved QP numbers ---- */

/*
 * QP numbers that no QP will ever get, for applications that implement a
 * QP themselves. rdma-core takes them in blocks from the firmware's
 * RESERVED_QPN general object; the firmware here has no such object yet,
 * so the driver hands them out from the top of the 24-bit QPN space, above
 * every number the device assigns (below 2^log_max_qp). They are unique
 * within this process; two processes may get the same numbers.
 */
#define RSV_QPN_TOP 0xffffffu

struct mlx5_rsv_qpns {
	pthread_mutex_t lock;
	uint8_t *used;		/* [RSV_QPN_TOP - qpn], one byte per number */
	uint32_t count;		/* numbers in the range */
};

static struct mlx5_rsv_qpns rsv = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int rsv_init(struct mlx5_context *ctx)
{
	uint32_t log = DEVX_GET(cmd_hca_cap, ctx->caps.gen, log_max_qp);
	uint32_t first = log >= 24 ? RSV_QPN_TOP : 1u << log;
	uint32_t n = RSV_QPN_TOP - first;

	if (rsv.used)
		return 0;
	/* A modest window is plenty and keeps the table small. */
	if (n > 1u << 16)
		n = 1u << 16;
	if (!n)
		return EOPNOTSUPP;
	rsv.used = calloc(n, 1);
	if (!rsv.used)
		return ENOMEM;
	rsv.count = n;
	return 0;
}

SMX_EXPORT int mlx5dv_reserved_qpn_alloc(struct ibv_context *context, uint32_t *qpn)
{
	uint32_t i;
	int ret;

	if (!context || !qpn)
		return EINVAL;
	if (!mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	pthread_mutex_lock(&rsv.lock);
	ret = rsv_init(to_mctx(context));
	if (!ret) {
		ret = ENOSPC;
		for (i = 0; i < rsv.count; i++) {
			if (!rsv.used[i]) {
				rsv.used[i] = 1;
				*qpn = RSV_QPN_TOP - i;
				ret = 0;
				break;
			}
		}
	}
	pthread_mutex_unlock(&rsv.lock);
	return ret;
}

SMX_EXPORT int mlx5dv_reserved_qpn_dealloc(struct ibv_context *context, uint32_t qpn)
{
	int ret = EINVAL;

	if (!context)
		return EINVAL;
	if (!mlx5dv_is_supported(context->device))
		return EOPNOTSUPP;
	pthread_mutex_lock(&rsv.lock);
	/* Not handed out (never, or already returned): EINVAL, as rdma-core. */
	if (rsv.used && qpn <= RSV_QPN_TOP && RSV_QPN_TOP - qpn < rsv.count &&
	    rsv.used[RSV_QPN_TOP - qpn]) {
		rsv.used[RSV_QPN_TOP - qpn] = 0;
		ret = 0;
	}
	pthread_mutex_unlock(&rsv.lock);
	return ret;
}
