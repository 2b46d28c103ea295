/* SPDX-License-Identifier: MIT */
/*
 * Symbols that exist only for binary compatibility and that softmlx5 does not
 * implement: the IBVERBS_1.0 ABI (pre-2006 struct layouts, bound as
 * name@IBVERBS_1.0 next to the current name@@IBVERBS_1.1) and the obsolete
 * ibv_register_driver@IBVERBS_1.1. Each logs once and fails with EOPNOTSUPP;
 * all are listed in docs/status.md.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "util/log.h"
#include "util/symver.h"

#define COMPAT_PTR(name)                                                       \
	SMX_EXPORT void *smx_compat_##name##_1_0(void);                         \
	void *smx_compat_##name##_1_0(void)                                     \
	{                                                                      \
		smx_stub(#name "@IBVERBS_1.0");                                \
		errno = EOPNOTSUPP;                                            \
		return NULL;                                                   \
	}                                                                      \
	SMX_COMPAT_SYMVER(smx_compat_##name##_1_0, name, "IBVERBS_1.0")

#define COMPAT_INT(name)                                                       \
	SMX_EXPORT int smx_compat_##name##_1_0(void);                           \
	int smx_compat_##name##_1_0(void)                                       \
	{                                                                      \
		smx_stub(#name "@IBVERBS_1.0");                                \
		errno = EOPNOTSUPP;                                            \
		return EOPNOTSUPP;                                             \
	}                                                                      \
	SMX_COMPAT_SYMVER(smx_compat_##name##_1_0, name, "IBVERBS_1.0")

#define COMPAT_VOID(name)                                                      \
	SMX_EXPORT void smx_compat_##name##_1_0(void);                          \
	void smx_compat_##name##_1_0(void)                                      \
	{                                                                      \
		smx_stub(#name "@IBVERBS_1.0");                                \
	}                                                                      \
	SMX_COMPAT_SYMVER(smx_compat_##name##_1_0, name, "IBVERBS_1.0")

COMPAT_PTR(ibv_alloc_pd);
COMPAT_PTR(ibv_create_ah);
COMPAT_PTR(ibv_create_cq);
COMPAT_PTR(ibv_create_qp);
COMPAT_PTR(ibv_create_srq);
COMPAT_PTR(ibv_get_device_list);
COMPAT_PTR(ibv_get_device_name);
COMPAT_PTR(ibv_open_device);
COMPAT_PTR(ibv_reg_mr);
COMPAT_INT(ibv_attach_mcast);
COMPAT_INT(ibv_close_device);
COMPAT_INT(ibv_dealloc_pd);
COMPAT_INT(ibv_dereg_mr);
COMPAT_INT(ibv_destroy_ah);
COMPAT_INT(ibv_destroy_cq);
COMPAT_INT(ibv_destroy_qp);
COMPAT_INT(ibv_destroy_srq);
COMPAT_INT(ibv_detach_mcast);
COMPAT_INT(ibv_get_async_event);
COMPAT_INT(ibv_get_cq_event);
COMPAT_INT(ibv_modify_qp);
COMPAT_INT(ibv_modify_srq);
COMPAT_INT(ibv_query_device);
COMPAT_INT(ibv_query_gid);
COMPAT_INT(ibv_query_pkey);
COMPAT_INT(ibv_query_port);
COMPAT_INT(ibv_query_qp);
COMPAT_INT(ibv_query_srq);
COMPAT_INT(ibv_resize_cq);
COMPAT_VOID(ibv_ack_async_event);
COMPAT_VOID(ibv_ack_cq_events);
COMPAT_VOID(ibv_free_device_list);

SMX_EXPORT uint64_t smx_compat_ibv_get_device_guid_1_0(void);
uint64_t smx_compat_ibv_get_device_guid_1_0(void)
{
	smx_stub("ibv_get_device_guid@IBVERBS_1.0");
	return 0;
}
SMX_COMPAT_SYMVER(smx_compat_ibv_get_device_guid_1_0, ibv_get_device_guid, "IBVERBS_1.0");

/* Pre-1.1 provider registration; providers built for rdma-core 44 use
 * verbs_register_driver_34(). */
SMX_EXPORT void smx_compat_ibv_register_driver(const char *name, void *init_func);
void smx_compat_ibv_register_driver(const char *name, void *init_func)
{
	smx_stub("ibv_register_driver@IBVERBS_1.1");
}
SMX_COMPAT_SYMVER(smx_compat_ibv_register_driver, ibv_register_driver, "IBVERBS_1.1");
