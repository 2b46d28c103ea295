/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: the device-side API of the DPA SDK (libflexio-dev), for
 * DPA code that softmlx5-dpacc builds for the host.
 *
 * Two signature families exist in the SDK. Code written for 24.01 (the
 * default here) passes a struct flexio_dev_thread_ctx * to the window and
 * doorbell helpers, which return flexio_dev_status_t. Code that defines
 * FLEXIO_DEV_VER_USED as FLEXIO_DEV_VER(24, 10, 0) or later gets the newer
 * forms: no thread context, void doorbell helpers, and window helpers that
 * name an enum flexio_window_entity.
 *
 * Functions called smx_dpa_*() are this runtime's own entry points behind the
 * inline helpers; they are not part of the SDK API.
 */
#ifndef _FLEXIO_DEV_H_
#define _FLEXIO_DEV_H_

#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions ------------------------------------------------------------ */
/* plain integer arithmetic: usable in #if */
#define FLEXIO_DEV_VER(major, minor, sub)                                          \
	((((major) & 0xffUL) << 24) | (((minor) & 0xffUL) << 16) | ((sub) & 0xffffUL))
#define FLEXIO_DEV_CURRENT_VERSION FLEXIO_DEV_VER(25, 1, 0)
#define FLEXIO_DEV_LAST_SUPPORTED_VERSION FLEXIO_DEV_VER(24, 1, 0)
#ifndef FLEXIO_DEV_VER_USED
#define FLEXIO_DEV_VER_USED FLEXIO_DEV_VER(24, 1, 0)
#endif
/* 1 when the caller asked for the >= 24.10 signatures */
#define FLEXIO_DEV_NEW_API (FLEXIO_DEV_VER_USED >= FLEXIO_DEV_VER(24, 10, 0))

/* Entry points the SDK marks experimental warn unless the caller opts in. */
#ifdef FLEXIO_DEV_ALLOW_EXPERIMENTAL_API
#define FLEXIO_DEV_EXPERIMENTAL
#else
#define FLEXIO_DEV_EXPERIMENTAL                                                \
	__attribute__((deprecated("experimental FlexIO device API; define "     \
				   "FLEXIO_DEV_ALLOW_EXPERIMENTAL_API")))
#endif

/*
 * Entry-point markers. dpacc treats them as keywords; softmlx5-dpacc predefines
 * them (it also scans for them). A plain compiler gets exported symbols.
 */
#ifndef __dpa_global__
#define __dpa_global__ __attribute__((used, visibility("default")))
#endif
#ifndef __dpa_rpc__
#define __dpa_rpc__ __attribute__((used, visibility("default")))
#endif

#ifndef __unused
#define __unused __attribute__((__unused__))
#endif

/* Placing entry points in their own section is a dpa-clang matter; no-ops. */
#define __FLEXIO_ENTRY_POINT_START
#define __FLEXIO_ENTRY_POINT_END

typedef uint64_t flexio_uintptr_t;

typedef enum {
	FLEXIO_DEV_STATUS_SUCCESS = 0,
	FLEXIO_DEV_STATUS_FAILED = 1,
} flexio_dev_status_t;

typedef uint32_t flexio_uar_device_id;

/* Completion mode of a send WQE (ctrl segment, bits 3:2 of dword 2). */
enum cq_ce_mode {
	MLX5_CTRL_SEG_CE_CQE_ON_CQE_ERROR = 0x0,
	MLX5_CTRL_SEG_CE_CQE_ON_FIRST_CQE_ERROR = 0x1,
	MLX5_CTRL_SEG_CE_CQE_ALWAYS = 0x2,
	MLX5_CTRL_SEG_CE_CQE_AND_EQE = 0x3,
};

/* NIC counters a process may sample (flexio_dev_nic_counters_config). */
enum flexio_dev_nic_counter_ids {
	FLEXIO_DEV_NIC_COUNTER_PORT0_RX_BYTES = 0x10,
	FLEXIO_DEV_NIC_COUNTER_PORT1_RX_BYTES = 0x11,
	FLEXIO_DEV_NIC_COUNTER_PORT2_RX_BYTES = 0x12,
	FLEXIO_DEV_NIC_COUNTER_PORT3_RX_BYTES = 0x13,
	FLEXIO_DEV_NIC_COUNTER_PORT0_TX_BYTES = 0x20,
	FLEXIO_DEV_NIC_COUNTER_PORT1_TX_BYTES = 0x21,
	FLEXIO_DEV_NIC_COUNTER_PORT2_TX_BYTES = 0x22,
	FLEXIO_DEV_NIC_COUNTER_PORT3_TX_BYTES = 0x23,
};

/* Window slots of a thread (>= 24.10 window helpers). */
enum flexio_window_entity {
	FLEXIO_DEV_WINDOW_ENTITY_0 = 0,
	FLEXIO_DEV_WINDOW_ENTITY_1 = 1,
	FLEXIO_DEV_WINDOW_ENTITY_NUM = 2,
};

/* The running thread's context; opaque (flexio_dev_get_thread_ctx). */
struct flexio_dev_thread_ctx;

/* ---- entry-point types ---------------------------------------------------- */
/* RPC entry point of one argument, returning its result to the host. */
typedef uint64_t(flexio_dev_rpc_handler_t)(uint64_t arg);
/* Generated unpacker: reads the host's argument buffer, calls @func. */
typedef uint64_t(flexio_dev_arg_unpack_func_t)(void *argbuf, void *func);
/* Command-queue task. */
typedef void(flexio_dev_async_rpc_handler_t)(uint64_t arg);
/*
 * Event handler. It should end with flexio_dev_thread_reschedule() (or
 * finish / retrigger / process_finish) rather than return; softmlx5 treats a
 * plain return like reschedule.
 */
typedef void(flexio_dev_event_handler_t)(uint64_t thread_arg);

/* ---- spinlock ----------------------------------------------------------- */
struct spinlock_s {
	uint32_t locked;	/* 1 while held */
#ifdef SPINLOCK_DEBUG
	uint32_t locker_tid;	/* thread id of the holder */
#endif
};

#define spin_init(lock) __atomic_store_n(&(lock)->locked, 0, __ATOMIC_SEQ_CST)
#define spin_lock(lock)                                                        \
	do {                                                                   \
		while (__atomic_exchange_n(&(lock)->locked, 1, __ATOMIC_SEQ_CST)) \
			;                                                      \
	} while (0)
#define spin_unlock(lock) __atomic_store_n(&(lock)->locked, 0, __ATOMIC_SEQ_CST)
/* 0 when the lock was taken */
#define spin_trylock(lock) __atomic_exchange_n(&(lock)->locked, 1, __ATOMIC_SEQ_CST)

/* ---- thread context and control ------------------------------------------ */
/* The running thread's context; 0 on success, negative outside a DPA thread. */
int flexio_dev_get_thread_ctx(struct flexio_dev_thread_ctx **dtctx);
uint32_t flexio_dev_get_thread_id(struct flexio_dev_thread_ctx *dtctx);
flexio_uintptr_t flexio_dev_get_thread_local_storage(struct flexio_dev_thread_ctx *dtctx);
/* 25.x: name of the running thread's entry point. */
const char *flexio_dev_get_current_thread_name(void);

/* End the activation; the next trigger starts the handler from the top. */
void flexio_dev_thread_reschedule(void) __attribute__((noreturn));
void flexio_dev_reschedule(void) __attribute__((noreturn, deprecated));
/* End the activation and never trigger this thread again. */
void flexio_dev_thread_finish(void) __attribute__((noreturn));
/* End the activation and trigger it again at once. */
void flexio_dev_thread_retrigger(void) __attribute__((noreturn));
/* Stop the whole process: no thread of it runs or triggers again. */
void flexio_dev_process_finish(void) __attribute__((noreturn));
void flexio_dev_finish(void) __attribute__((noreturn, deprecated));
/* Continuable handlers: suspend here; the next trigger resumes here. */
void flexio_dev_yield(struct flexio_dev_thread_ctx *dtctx);
/* 25.x: yield and trigger again at once. */
void flexio_dev_yield_and_retrigger(void);

/* ---- messaging ----------------------------------------------------------- */
#define FLEXIO_MSG_DEV_BROADCAST_STREAM 0xff
#define FLEXIO_MSG_DEV_MAX_STREAMS_AMOUNT 255
#define FLEXIO_MSG_DEV_DEFAULT_STREAM_ID 0
#define FLEXIO_MSG_DEV_NO_PRINT 0
#define FLEXIO_MSG_DEV_ALWAYS_PRINT 1
#define FLEXIO_MSG_DEV_ERROR 2
#define FLEXIO_MSG_DEV_WARN 3
#define FLEXIO_MSG_DEV_INFO 4
#define FLEXIO_MSG_DEV_DEBUG 5
typedef uint8_t flexio_msg_dev_level;

/* printf into a host message stream; returns the length formatted. */
int flexio_dev_msg(int stream_id, flexio_msg_dev_level level, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
#define flexio_dev_msg_err(strm_id, ...) flexio_dev_msg(strm_id, FLEXIO_MSG_DEV_ERROR, __VA_ARGS__)
#define flexio_dev_msg_warn(strm_id, ...) flexio_dev_msg(strm_id, FLEXIO_MSG_DEV_WARN, __VA_ARGS__)
#define flexio_dev_msg_info(strm_id, ...) flexio_dev_msg(strm_id, FLEXIO_MSG_DEV_INFO, __VA_ARGS__)
#define flexio_dev_msg_dbg(strm_id, ...) flexio_dev_msg(strm_id, FLEXIO_MSG_DEV_DEBUG, __VA_ARGS__)
#define flexio_dev_msg_dflt(lvl, ...)                                          \
	flexio_dev_msg(FLEXIO_MSG_DEV_DEFAULT_STREAM_ID, lvl, __VA_ARGS__)
#define flexio_dev_msg_broadcast(lvl, ...)                                     \
	flexio_dev_msg(FLEXIO_MSG_DEV_BROADCAST_STREAM, lvl, __VA_ARGS__)
#define flexio_dev_print(...)                                                  \
	flexio_dev_msg(FLEXIO_MSG_DEV_DEFAULT_STREAM_ID, FLEXIO_MSG_DEV_INFO, __VA_ARGS__)
/* A string to the default stream; returns its length. */
int flexio_dev_puts(struct flexio_dev_thread_ctx *dtctx, char *str);

/* ---- runtime entry points behind the inline helpers (softmlx5) ------------ */
void smx_dpa_outbox_write(uint32_t reg, uint64_t value);
flexio_dev_status_t smx_dpa_outbox_config(uint16_t outbox_config_id);
flexio_dev_status_t smx_dpa_outbox_uar_extension(flexio_uar_device_id device_id);
flexio_dev_status_t smx_dpa_window_config(int entity, uint16_t window_config_id, uint32_t mkey);
flexio_dev_status_t smx_dpa_window_mkey_config(int entity, uint32_t mkey);
flexio_dev_status_t smx_dpa_window_ptr_acquire(int entity, uint64_t haddr,
					       flexio_uintptr_t *daddr);
flexio_dev_status_t smx_dpa_window_copy(int entity, int to_host, void *daddr,
					uint64_t haddr, uint32_t size);

/* ---- outbox and window configuration -------------------------------------- */
static inline flexio_dev_status_t
flexio_dev_outbox_config(struct flexio_dev_thread_ctx *dtctx, uint16_t outbox_config_id)
{
	(void)dtctx;
	return smx_dpa_outbox_config(outbox_config_id);
}

static inline void flexio_dev_outbox_config_fast(struct flexio_dev_thread_ctx *dtctx,
						 uint16_t outbox_config_id)
{
	(void)dtctx;
	(void)smx_dpa_outbox_config(outbox_config_id);
}

static inline flexio_dev_status_t
flexio_dev_outbox_config_uar_extension(struct flexio_dev_thread_ctx *dtctx,
				       flexio_uar_device_id device_id)
{
	(void)dtctx;
	return smx_dpa_outbox_uar_extension(device_id);
}

#if FLEXIO_DEV_NEW_API
static inline flexio_dev_status_t
flexio_dev_window_config(enum flexio_window_entity window_entity, uint16_t window_config_id,
			 uint32_t mkey)
{
	return smx_dpa_window_config(window_entity, window_config_id, mkey);
}

static inline flexio_dev_status_t
flexio_dev_window_mkey_config(enum flexio_window_entity window_entity, uint32_t mkey)
{
	return smx_dpa_window_mkey_config(window_entity, mkey);
}

static inline flexio_dev_status_t
flexio_dev_window_ptr_acquire(enum flexio_window_entity window_entity, uint64_t haddr,
			      flexio_uintptr_t *daddr)
{
	return smx_dpa_window_ptr_acquire(window_entity, haddr, daddr);
}

static inline flexio_dev_status_t
flexio_dev_window_copy_from_host(enum flexio_window_entity window_entity, void *daddr,
				 uint64_t haddr, uint32_t size)
{
	return smx_dpa_window_copy(window_entity, 0, daddr, haddr, size);
}

static inline flexio_dev_status_t
flexio_dev_window_copy_to_host(enum flexio_window_entity window_entity, uint64_t haddr,
			       const void *daddr, uint32_t size)
{
	return smx_dpa_window_copy(window_entity, 1, (void *)(uintptr_t)daddr, haddr, size);
}
#else
static inline flexio_dev_status_t
flexio_dev_window_config(struct flexio_dev_thread_ctx *dtctx, uint16_t window_config_id,
			 uint32_t mkey)
{
	(void)dtctx;
	return smx_dpa_window_config(FLEXIO_DEV_WINDOW_ENTITY_0, window_config_id, mkey);
}

static inline flexio_dev_status_t
flexio_dev_window_mkey_config(struct flexio_dev_thread_ctx *dtctx, uint32_t mkey)
{
	(void)dtctx;
	return smx_dpa_window_mkey_config(FLEXIO_DEV_WINDOW_ENTITY_0, mkey);
}

static inline flexio_dev_status_t
flexio_dev_window_ptr_acquire(struct flexio_dev_thread_ctx *dtctx, uint64_t haddr,
			      flexio_uintptr_t *daddr)
{
	(void)dtctx;
	return smx_dpa_window_ptr_acquire(FLEXIO_DEV_WINDOW_ENTITY_0, haddr, daddr);
}

static inline flexio_dev_status_t
flexio_dev_window_copy_from_host(struct flexio_dev_thread_ctx *dtctx, void *daddr,
				 uint64_t haddr, uint32_t size)
{
	(void)dtctx;
	return smx_dpa_window_copy(FLEXIO_DEV_WINDOW_ENTITY_0, 0, daddr, haddr, size);
}

static inline flexio_dev_status_t
flexio_dev_window_copy_to_host(struct flexio_dev_thread_ctx *dtctx, uint64_t haddr,
			       const void *daddr, uint32_t size)
{
	(void)dtctx;
	return smx_dpa_window_copy(FLEXIO_DEV_WINDOW_ENTITY_0, 1, (void *)(uintptr_t)daddr,
				   haddr, size);
}
#endif

/* ---- misc ---------------------------------------------------------------- */
/* Base of the congestion-control table of @gvmi (softmlx5: 0, none). */
uint64_t flexio_dev_get_pcc_table_base(uint16_t gvmi);
/* Choose NIC counters to sample into @values (32-bit each). */
void flexio_dev_nic_counters_config(uint32_t *values, uint32_t *counter_ids,
				    uint32_t num_counters);
void flexio_dev_nic_counters_sample(void);
/* 25.x: trigger another event handler of this process by its activation id. */
void flexio_dev_event_handler_activate(uint32_t activation_id);

#ifdef __cplusplus
}
#endif

#endif /* _FLEXIO_DEV_H_ */
