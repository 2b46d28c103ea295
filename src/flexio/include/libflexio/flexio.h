/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: the host-side API of the DPA SDK (libflexio).
 *
 * Names, types and argument orders follow the FlexIO 24.01 SDK so that host
 * programs written for it compile unchanged; the 25.x additions
 * flexio_version_set() and flexio_app_get() are here as well. Every struct
 * below has the members the SDK documents, in the documented order; a
 * zero-initialised attribute struct always means "defaults".
 *
 * On softmlx5 the DPA is modelled in software (see docs/flexio.md): device
 * code is built for the host by softmlx5-dpacc, DPA memory is host memory
 * registered with the device as a umem, and DPA threads run on a small pool of
 * host threads.
 */
#ifndef _FLEXIO_H_
#define _FLEXIO_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <libflexio/flexio_ver.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- limits of the DPA ------------------------------------------------- */
#define PHY_CORES_NUM 16		/* DPA cores */
#define EUS_PER_CORE 16			/* execution units (harts) per core */
#define EUS_LIMIT (PHY_CORES_NUM * EUS_PER_CORE)
#define OS_RESERVED_EUS 2		/* harts the DPA OS keeps */
#define USER_EUS_LIMIT (EUS_LIMIT - OS_RESERVED_EUS)
#define FLEXIO_MAX_NAME_LEN 256

/* Device messaging: a stream buffer is made of 2^9-byte chunks. */
#define FLEXIO_MSG_DEV_LOG_DATA_CHUNK_BSIZE 9
#define FLEXIO_MSG_DEV_MAX_STREAMS_AMOUNT 255
#define FLEXIO_MSG_DEV_DEFAULT_STREAM_ID 0
#define FLEXIO_MSG_DEV_BROADCAST_STREAM 0xff
/* Message levels: a message prints when its level is at most the stream's. */
#define FLEXIO_MSG_DEV_NO_PRINT 0
#define FLEXIO_MSG_DEV_ALWAYS_PRINT 1
#define FLEXIO_MSG_DEV_ERROR 2
#define FLEXIO_MSG_DEV_WARN 3
#define FLEXIO_MSG_DEV_INFO 4
#define FLEXIO_MSG_DEV_DEBUG 5

/* ---- basic types --------------------------------------------------------- */
/* An address in the DPA process's address space. */
typedef uint64_t flexio_uintptr_t;
/*
 * The host-side name of a device entry point. softmlx5-dpacc defines one
 * function of this type per __dpa_global__ / __dpa_rpc__ entry point; its
 * address is the key the library looks the entry point up by. It is never
 * meant to be called on the host.
 */
typedef void(flexio_func_t)(void);
/* Packs the variadic arguments of flexio_process_call() into @argbuf. */
typedef void(flexio_func_arg_pack_fn_t)(void *argbuf, va_list ap);
/* Id of a UAR extended to another device (flexio_uar_extend). */
typedef uint32_t flexio_uar_device_id;
typedef uint8_t flexio_msg_dev_level;

typedef enum {
	FLEXIO_STATUS_SUCCESS = 0,
	FLEXIO_STATUS_FAILED = 1,
	FLEXIO_STATUS_TIMEOUT = 2,
	FLEXIO_STATUS_FATAL_ERR = 3,
} flexio_status;

/* State of a process as flexio_err_status_get() reports it. */
enum flexio_err_status {
	FLEXIO_DEV_NO_ERROR = 0,
	FLEXIO_DEV_FATAL_ERROR = 1,
	FLEXIO_DEV_USER_ERROR = 2,
};

/* Host library log level (flexio_log_lvl_set). */
enum flexio_log_lvl {
	FLEXIO_LOG_LVL_ERR = 0,
	FLEXIO_LOG_LVL_WARN = 1,
	FLEXIO_LOG_LVL_INFO = 2,
	FLEXIO_LOG_LVL_DBG = 3,
};

/* ---- opaque objects ---------------------------------------------------- */
struct flexio_process;
struct flexio_window;
struct flexio_outbox;
struct flexio_event_handler;
struct flexio_thread;
struct flexio_cq;
struct flexio_rq;
struct flexio_rmp;
struct flexio_sq;
struct flexio_qp;
struct flexio_mkey;
struct flexio_uar;
struct flexio_app;
struct flexio_cmdq;
struct flexio_msg_stream;

/* ---- queue memory ------------------------------------------------------ */
enum flexio_memtype {
	FLEXIO_MEMTYPE_DPA = 0,		/* ring/DBR on the DPA heap (default) */
	FLEXIO_MEMTYPE_HOST = 1,	/* ring/DBR in a host umem */
};

/* Where a queue's ring or doorbell record lives. */
struct flexio_qmem {
	enum flexio_memtype memtype;
	union {
		flexio_uintptr_t daddr;	/* DPA address (FLEXIO_MEMTYPE_DPA) */
		uint64_t humem_offset;	/* offset in umem_id (FLEXIO_MEMTYPE_HOST) */
	};
	uint32_t umem_id;		/* umem holding the memory */
};

/* Heap statistics of a process (flexio_process_mem_info_get). */
struct flexio_heap_mem_info {
	uint64_t base_addr;	/* first DPA address of the heap */
	size_t size;		/* heap size in bytes */
	size_t requested;	/* bytes asked for by live allocations */
	size_t allocated;	/* bytes taken by live allocations (rounded) */
};

/* ---- CQ ---------------------------------------------------------------- */
/* What a CQ reports to when a CQE arrives while it is armed. */
enum {
	FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD = 0x0,	 /* trigger a DPA thread */
	FLEXIO_CQ_ELEMENT_TYPE_EXT_EQ = 0x2,		 /* an EQ */
	FLEXIO_CQ_ELEMENT_TYPE_NON_DPA_CQ = 0x8,	 /* nothing (polled) */
	FLEXIO_CQ_ELEMENT_TYPE_DPA_MSIX_EMULATED_CQ = 0x9, /* emulated MSI-X */
};

typedef enum flexio_cqe_comp_type {
	FLEXIO_CQE_COMP_NONE = 0,
	FLEXIO_CQE_COMP_BASIC = 1,
	FLEXIO_CQE_COMP_ENH = 2,
} flexio_cqe_comp_type;

typedef enum flexio_cq_period_mode {
	FLEXIO_CQ_PERIOD_MODE_EVENT = 0,
	FLEXIO_CQ_PERIOD_MODE_CQE = 1,
} flexio_cq_period_mode_t;

struct flexio_cq_attr {
	uint8_t log_cq_depth;		/* log2 of the number of CQEs */
	uint8_t element_type;		/* FLEXIO_CQ_ELEMENT_TYPE_* */
	union {
		uint32_t emulated_eqn;	/* EQ for the emulated-EQ element */
		struct flexio_thread *thread; /* thread for DPA_THREAD */
	};
	uint32_t uar_id;		/* UAR of the CQ (0: the process's) */
	void *uar_base_addr;		/* its base address (host UARs) */
	flexio_cqe_comp_type cqe_comp_type; /* CQE compression kind */
	flexio_cq_period_mode_t cq_period_mode; /* moderation: by CQE or event */
	uint16_t cq_period;		/* moderation period (usec) */
	uint16_t cq_max_count;		/* moderation count (CQEs) */
	bool no_arm;			/* do not arm the CQ on creation */
	bool cc;			/* collapsed CQE */
	uint8_t overrun_ignore;		/* ignore CQ overrun */
	uint8_t always_armed;		/* CQ stays armed */
	struct flexio_qmem cq_ring_qmem; /* ring memory */
	flexio_uintptr_t cq_dbr_daddr;	/* doorbell record (DPA address) */
};

/* ---- WQs: SQ, RQ, RMP -------------------------------------------------- */
enum flexio_wq_type {
	FLEXIO_WQ_TYPE_LINKED_LIST = 0,
	FLEXIO_WQ_TYPE_CYCLIC = 1,
};

struct flexio_wq_sq_attr {
	uint8_t allow_multi_pkt_send_wqe; /* multi-packet send WQEs */
};

struct flexio_wq_rq_attr {
	enum flexio_wq_type wq_type;	/* RMPs: linked list or cyclic; RQs are cyclic */
};

struct flexio_wq_attr {
	uint8_t log_wq_stride;		/* log2 WQE stride; 0 means 4 (16 B) */
	uint8_t log_wq_depth;		/* log2 of the number of WQEs */
	uint32_t uar_id;		/* UAR of the WQ (0: the process's) */
	uint32_t user_index;		/* user index reported in CQEs */
	struct ibv_pd *pd;		/* PD (NULL: the process's) */
	union {
		struct flexio_wq_sq_attr sq; /* SQ-only attributes */
		struct flexio_wq_rq_attr rq; /* RQ-only attributes */
	};
	struct flexio_qmem wq_ring_qmem; /* ring memory */
	struct flexio_qmem wq_dbr_qmem;	/* doorbell record memory */
};

/* ---- process, threads -------------------------------------------------- */
struct flexio_process_attr {
	struct ibv_pd *pd;	/* PD for the process; NULL creates an internal one */
	int en_pcc;		/* process runs congestion-control code */
};

enum flexio_affinity_type {
	FLEXIO_AFFINITY_NONE = 0,	/* any hart */
	FLEXIO_AFFINITY_STRICT,		/* the hart named by id */
	FLEXIO_AFFINITY_GROUP,		/* a hart of the group named by id */
};

struct flexio_affinity {
	enum flexio_affinity_type type;
	uint32_t id;		/* hart or hart-group id; ignored for NONE */
};

struct flexio_event_handler_attr {
	flexio_func_t *host_stub_func;	/* entry point (a __dpa_global__ stub) */
	int continuable;		/* flexio_dev_yield() resumes in place */
	uint64_t arg;			/* thread argument */
	flexio_uintptr_t thread_local_storage_daddr; /* TLS buffer (DPA) */
	struct flexio_affinity affinity; /* where the thread may run */
};

/* ---- QP ---------------------------------------------------------------- */
enum flexio_qp_op_types {
	FLEXIO_QP_WR_RDMA_WRITE = 0x4,
	FLEXIO_QP_WR_RDMA_READ = 0x8,
	FLEXIO_QP_WR_ATOMIC_CMP_AND_SWAP = 0x10,
};

struct flexio_qp_attr_opt_param_mask {
	bool qp_access_mask;		/* modify qp_access_mask */
	bool min_rnr_nak_timer;		/* modify min_rnr_nak_timer */
};

enum flexio_qp_qpc_mtu {
	FLEXIO_QP_QPC_MTU_BYTES_256 = 0x1,
	FLEXIO_QP_QPC_MTU_BYTES_512 = 0x2,
	FLEXIO_QP_QPC_MTU_BYTES_1K = 0x3,
	FLEXIO_QP_QPC_MTU_BYTES_2K = 0x4,
	FLEXIO_QP_QPC_MTU_BYTES_4K = 0x5,
};

enum {
	FLEXIO_QP_QPC_RQ_TYPE_REGULAR = 0x0,
	FLEXIO_QP_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ = 0x1,
	FLEXIO_QP_QPC_RQ_TYPE_ZERO_SIZE_RQ = 0x3,
};

enum flexio_qp_state {
	FLEXIO_QP_STATE_RST = 0x0,
	FLEXIO_QP_STATE_INIT = 0x1,
	FLEXIO_QP_STATE_RTR = 0x2,
	FLEXIO_QP_STATE_RTS = 0x3,
	FLEXIO_QP_STATE_ERR = 0x6,
};
typedef enum flexio_qp_state flexio_qp_state;

enum flexio_qp_transport_type {
	FLEXIO_QPC_ST_RC = 0x0,
	FLEXIO_QPC_ST_UC = 0x1,
	FLEXIO_QPC_ST_UD = 0x2,
	FLEXIO_QPC_ST_XRC = 0x3,
	FLEXIO_QPC_ST_IBL2 = 0x4,
	FLEXIO_QPC_ST_DCI = 0x5,
	FLEXIO_QPC_ST_QP0 = 0x7,
	FLEXIO_QPC_ST_QP1 = 0x8,
	FLEXIO_QPC_ST_RAW_DATAGRAM = 0x9,
	FLEXIO_QPC_ST_REG_UMR = 0xc,
	FLEXIO_QPC_ST_DC_CNAK = 0x10,
};

struct flexio_qp_attr {
	uint32_t transport_type;	/* FLEXIO_QPC_ST_* (RC only) */
	uint32_t uar_id;		/* UAR of the QP (0: the process's) */
	uint32_t user_index;		/* user index reported in CQEs */
	int qp_access_mask;		/* IBV_ACCESS_* remote rights */
	int ops_flag;			/* enum flexio_qp_op_types (deprecated) */
	struct ibv_pd *pd;		/* PD (NULL: the process's) */
	int log_sq_depth;		/* log2 of SQ WQEs */
	int no_sq;			/* QP without an SQ */
	uint32_t sq_cqn;		/* CQ of the SQ */
	int log_rq_depth;		/* log2 of RQ WQEs */
	int rq_type;			/* FLEXIO_QP_QPC_RQ_TYPE_* */
	uint32_t rq_cqn;		/* CQ of the RQ */
	uint32_t rmpqn;			/* RMP for an SRQ-type RQ */
	struct flexio_qmem qp_wq_buff_qmem; /* WQ ring memory (RQ then SQ) */
	struct flexio_qmem qp_wq_dbr_qmem; /* WQ doorbell record memory */
	/* modify-time attributes */
	enum flexio_qp_state next_state; /* state to move to */
	uint32_t remote_qp_num;		/* destination QP */
	uint8_t gid_table_index;	/* source GID index */
	uint8_t fl;			/* force loopback */
	uint8_t *dest_mac;		/* destination MAC (RoCE) */
	union ibv_gid rgid_or_rip;	/* remote GID / IP */
	uint16_t rlid;			/* remote LID */
	uint32_t min_rnr_nak_timer;	/* minimal RNR NAK timer */
	enum flexio_qp_qpc_mtu path_mtu; /* path MTU */
	uint8_t retry_count;		/* transport retries */
	uint8_t vhca_port_num;		/* port */
	uint32_t next_rcv_psn;		/* expected receive PSN */
	uint32_t next_send_psn;		/* next send PSN */
	uint16_t udp_sport;		/* RoCEv2 UDP source port */
	uint8_t grh;			/* use a GRH */
	uint8_t log_rra_max;		/* log2 responder RDMA read/atomic depth */
	uint8_t log_sra_max;		/* log2 requester RDMA read/atomic depth */
	uint8_t isolate_vl_tc;		/* isolated VL/TC */
};

/* ---- mkey, outbox, command queue ----------------------------------------- */
struct flexio_mkey_attr {
	struct ibv_pd *pd;	/* PD of the key */
	flexio_uintptr_t daddr;	/* first DPA address the key covers */
	size_t len;		/* length covered */
	int access;		/* IBV_ACCESS_LOCAL_WRITE / REMOTE_WRITE ... */
};

struct flexio_outbox_attr {
	struct flexio_uar *uar;	/* ignored (the process's UAR is used) */
	uint32_t en_pcc;	/* outbox usable by congestion control */
};

enum flexio_cmdq_state {
	FLEXIO_CMDQ_STATE_PENDING = 0,	/* tasks queue up, nothing runs */
	FLEXIO_CMDQ_STATE_RUNNING = 1,	/* workers run tasks as they come */
};

struct flexio_cmdq_attr {
	int workers;			/* DPA threads serving the queue */
	int batch_size;			/* tasks one activation runs at most */
	enum flexio_cmdq_state state;	/* initial state */
};

/* ---- applications ---------------------------------------------------------- */
/* Filled in by the code softmlx5-dpacc generates; users need not touch it. */
struct flexio_app_attr {
	const char *app_name;	/* application name (dpacc --app-name) */
	void *app_ptr;		/* the device image */
	size_t app_bsize;	/* its size */
	char *app_sig_sec_name;	/* signature section name (unused) */
};

/* 25.x: which build of an application flexio_app_get() should return. */
enum flexio_hw_model_id {
	FLEXIO_HW_MODEL_DEF = 0,	/* the default model of the device */
	FLEXIO_HW_MODEL_CX7 = 1,
	FLEXIO_HW_MODEL_BF3 = 2,
	FLEXIO_HW_MODEL_CX8 = 3,
};

struct flexio_app_select_attr {
	const char *app_name;		/* --app-name given to dpacc */
	enum flexio_hw_model_id hw_model_id;
	struct ibv_context *ibv_ctx;	/* device the app is meant for */
};

/* ---- device messaging ------------------------------------------------------ */
typedef enum flexio_log_dev_sync_mode {
	FLEXIO_LOG_DEV_SYNC_MODE_SYNC = 0,	/* host thread prints at once */
	FLEXIO_LOG_DEV_SYNC_MODE_ASYNC = 1,	/* kept until flexio_msg_stream_flush */
	FLEXIO_LOG_DEV_SYNC_MODE_BATCH = 2,	/* printed when the buffer fills */
	FLEXIO_LOG_DEV_SYNC_MODE_TRACER = 3,	/* binary tracer records */
} flexio_msg_dev_sync_mode;
/* 25.x spellings */
#define FLEXIO_MSG_DEV_SYNC_MODE_SYNC FLEXIO_LOG_DEV_SYNC_MODE_SYNC
#define FLEXIO_MSG_DEV_SYNC_MODE_ASYNC FLEXIO_LOG_DEV_SYNC_MODE_ASYNC
#define FLEXIO_MSG_DEV_SYNC_MODE_BATCH FLEXIO_LOG_DEV_SYNC_MODE_BATCH
#define FLEXIO_MSG_DEV_SYNC_MODE_TRACER FLEXIO_LOG_DEV_SYNC_MODE_TRACER

enum flexio_tracer_transport {
	FLEXIO_TRACER_TRANSPORT_QP = 0,
	FLEXIO_TRACER_TRANSPORT_WINDOW = 1,
};

/* 25.x: how stream data travels (softmlx5: always shared memory). */
enum flexio_msg_transport {
	FLEXIO_MSG_TRANSPORT_QP_RC = 0,
	FLEXIO_MSG_TRANSPORT_WINDOW = 1,
};

typedef struct flexio_log_dev_attr {
	struct flexio_uar *uar;		/* ignored */
	size_t data_bsize;		/* buffer size: a power of two, >= 2 KiB */
	flexio_msg_dev_sync_mode sync_mode; /* SYNC / ASYNC / BATCH */
	char *stream_name;		/* name (for logs); may be NULL */
	flexio_msg_dev_level level;	/* print messages of this level or lower */
	struct flexio_affinity mgmt_affinity; /* hart of the stream's manager */
	enum flexio_tracer_transport tracer_mode; /* TRACER mode only */
	char **tracer_msg_formats;	/* TRACER mode only */
	enum flexio_msg_transport transport_mode; /* 25.x */
} flexio_msg_stream_attr_t;
/* 25.x names the struct itself */
#define flexio_msg_stream_attr flexio_log_dev_attr

/* ---- version / apps / registration --------------------------------------- */
/* 25.x: the API version the caller was written for; call it first. */
flexio_status flexio_version_set(uint64_t version);

flexio_status flexio_app_create(struct flexio_app_attr *fattr, struct flexio_app **app);
flexio_status flexio_app_destroy(struct flexio_app *app);
/* 25.x: look an application up by name (and HW model). */
flexio_status flexio_app_get(struct flexio_app_select_attr *fattr, struct flexio_app **app);
flexio_status flexio_app_get_list(struct flexio_app ***app_list, uint32_t *num_apps);
flexio_status flexio_app_list_free(struct flexio_app **app_list);
const char *flexio_app_get_name(struct flexio_app *app);
size_t flexio_app_get_elf_size(struct flexio_app *app);
flexio_status flexio_app_get_elf(struct flexio_app *app, uint64_t *bin_buff, size_t bin_size);
flexio_status flexio_app_extract_symbol(struct flexio_app *app, const char *sym_name,
					void *data, size_t *size);

flexio_status flexio_func_pup_register(struct flexio_app *app, const char *dev_func_name,
				       const char *dev_unpack_func_name,
				       flexio_func_t *host_stub_func_addr, size_t argbuf_size,
				       flexio_func_arg_pack_fn_t *host_pack_func);
flexio_status flexio_func_register(struct flexio_app *app, const char *dev_func_name,
				   flexio_func_t **out_func);
flexio_status flexio_func_get_register_info(struct flexio_app *app,
					    flexio_func_t *host_stub_func_addr, uint32_t *pup,
					    char *dev_func_name, char *dev_unpack_func_name,
					    size_t func_name_size, size_t *argbuf_size,
					    flexio_func_arg_pack_fn_t **host_pack_func,
					    flexio_uintptr_t *dev_func_addr,
					    flexio_uintptr_t *dev_unpack_func_addr);

/* ---- process ------------------------------------------------------------- */
flexio_status flexio_process_create(struct ibv_context *ibv_ctx, struct flexio_app *app,
				    const struct flexio_process_attr *process_attr,
				    struct flexio_process **process_ptr);
flexio_status flexio_process_destroy(struct flexio_process *process);
flexio_status flexio_process_call(struct flexio_process *process, flexio_func_t *host_func,
				  uint64_t *func_ret, ...);
flexio_status flexio_process_error_handler_set(struct flexio_process *process,
					       flexio_func_t *error_handler);
flexio_status flexio_process_mem_info_get(const struct flexio_process *process,
					  struct flexio_heap_mem_info *info);
struct ibv_pd *flexio_process_get_pd(struct flexio_process *process);
struct flexio_uar *flexio_process_get_uar(struct flexio_process *process);
uint32_t flexio_process_get_dumem_id(struct flexio_process *process);
uint64_t flexio_process_udbg_token_get(struct flexio_process *process);
flexio_status flexio_coredump_create(struct flexio_process *process, const char *outfile);
flexio_status flexio_crash_data(struct flexio_process *process, const char *outfile);
int flexio_err_handler_fd(struct flexio_process *process);
enum flexio_err_status flexio_err_status_get(struct flexio_process *process);
enum flexio_log_lvl flexio_log_lvl_set(enum flexio_log_lvl lvl);

/* ---- DPA heap ------------------------------------------------------------ */
flexio_status flexio_buf_dev_alloc(struct flexio_process *process, size_t buff_bsize,
				   flexio_uintptr_t *dest_daddr_p);
flexio_status flexio_buf_dev_free(struct flexio_process *process,
				  flexio_uintptr_t daddr_p);
flexio_status flexio_host2dev_memcpy(struct flexio_process *process, void *src_haddr,
				     size_t buff_bsize, flexio_uintptr_t dest_daddr);
flexio_status flexio_buf_dev_memset(struct flexio_process *process, int value,
				    size_t buff_bsize, flexio_uintptr_t dest_daddr);
flexio_status flexio_copy_from_host(struct flexio_process *process, void *src_haddr,
				    size_t buff_bsize, flexio_uintptr_t *dest_daddr_p);

/* ---- event handlers -------------------------------------------------------- */
flexio_status flexio_event_handler_create(struct flexio_process *process,
					  struct flexio_event_handler_attr *fattr,
					  struct flexio_event_handler **event_handler_ptr);
flexio_status flexio_event_handler_run(struct flexio_event_handler *event_handler,
				       uint64_t user_arg);
flexio_status flexio_event_handler_destroy(struct flexio_event_handler *event_handler);
struct flexio_thread *flexio_event_handler_get_thread(struct flexio_event_handler *event_handler);
uint32_t flexio_event_handler_get_id(struct flexio_event_handler *event_handler);
uint32_t flexio_event_handler_get_obj_id(struct flexio_event_handler *event_handler);

/* ---- queues ---------------------------------------------------------------- */
flexio_status flexio_cq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       const struct flexio_cq_attr *fattr, struct flexio_cq **cq);
flexio_status flexio_cq_destroy(struct flexio_cq *cq);
uint32_t flexio_cq_get_cq_num(struct flexio_cq *cq);
flexio_status flexio_cq_query_moderation(struct flexio_cq *cq, uint16_t *max_count,
					 uint16_t *period, uint16_t *mode);
flexio_status flexio_cq_modify_moderation(struct flexio_cq *cq, uint16_t max_count,
					  uint16_t period, uint16_t mode);

flexio_status flexio_rq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       uint32_t cq_num, const struct flexio_wq_attr *fattr,
			       struct flexio_rq **flexio_rq_ptr);
flexio_status flexio_rq_destroy(struct flexio_rq *flexio_rq);
flexio_status flexio_rq_set_err_state(struct flexio_rq *rq);
uint32_t flexio_rq_get_wq_num(struct flexio_rq *rq);
struct mlx5dv_devx_obj *flexio_rq_get_tir(struct flexio_rq *rq);

flexio_status flexio_rmp_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
				const struct flexio_wq_attr *fattr,
				struct flexio_rmp **flexio_rmp_ptr);
flexio_status flexio_rmp_destroy(struct flexio_rmp *flexio_rmp);
uint32_t flexio_rmp_get_wq_num(struct flexio_rmp *rmp);

flexio_status flexio_sq_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       uint32_t cq_num, const struct flexio_wq_attr *fattr,
			       struct flexio_sq **flexio_sq_ptr);
flexio_status flexio_sq_destroy(struct flexio_sq *flexio_sq);
uint32_t flexio_sq_get_wq_num(struct flexio_sq *sq);

flexio_status flexio_qp_create(struct flexio_process *process, struct ibv_context *ibv_ctx,
			       struct flexio_qp_attr *qp_fattr, struct flexio_qp **qp_ptr);
flexio_status flexio_qp_modify(struct flexio_qp *qp, struct flexio_qp_attr *fattr,
			       struct flexio_qp_attr_opt_param_mask *mask);
flexio_status flexio_qp_destroy(struct flexio_qp *qp);
uint32_t flexio_qp_get_qp_num(struct flexio_qp *qp);
enum flexio_qp_state flexio_qp_state_get(struct flexio_qp *qp);

/* ---- mkeys, UARs, windows, outboxes -------------------------------------- */
flexio_status flexio_device_mkey_create(struct flexio_process *process,
					struct flexio_mkey_attr *fattr, struct flexio_mkey **mkey);
flexio_status flexio_device_mkey_destroy(struct flexio_mkey *mkey);
uint32_t flexio_mkey_get_id(struct flexio_mkey *mkey);

flexio_status flexio_uar_create(struct flexio_process *process, struct flexio_uar **flexio_uar);
flexio_status flexio_uar_destroy(struct flexio_uar *uar);
uint32_t flexio_uar_get_id(struct flexio_uar *uar);
flexio_status flexio_uar_extend(struct flexio_uar *in_uar, struct ibv_context *to_extend,
				struct flexio_uar **extended);
flexio_uar_device_id flexio_uar_get_extended_id(struct flexio_uar *uar);

flexio_status flexio_window_create(struct flexio_process *process, struct ibv_pd *pd,
				   struct flexio_window **window);
flexio_status flexio_window_destroy(struct flexio_window *window);
uint32_t flexio_window_get_id(struct flexio_window *window);

flexio_status flexio_outbox_create(struct flexio_process *process,
				   struct flexio_outbox_attr *fattr, struct flexio_outbox **outbox);
flexio_status flexio_outbox_destroy(struct flexio_outbox *outbox);
uint32_t flexio_outbox_get_id(struct flexio_outbox *outbox);
struct flexio_uar *flexio_outbox_get_uar(struct flexio_outbox *outbox);

/* ---- command queue (asynchronous RPC) ------------------------------------ */
flexio_status flexio_cmdq_create(struct flexio_process *process, struct flexio_cmdq_attr *fattr,
				 struct flexio_cmdq **cmdq);
flexio_status flexio_cmdq_task_add(struct flexio_cmdq *cmdq, flexio_func_t *host_func,
				   uint64_t arg);
flexio_status flexio_cmdq_state_running(struct flexio_cmdq *cmdq);
int flexio_cmdq_is_empty(struct flexio_cmdq *cmdq);
flexio_status flexio_cmdq_destroy(struct flexio_cmdq *cmdq);

/* ---- device messaging ------------------------------------------------------ */
flexio_status flexio_msg_stream_create(struct flexio_process *process,
				       flexio_msg_stream_attr_t *stream_fattr, FILE *out,
				       pthread_t *ppthread, struct flexio_msg_stream **stream);
flexio_status flexio_msg_stream_destroy(struct flexio_msg_stream *stream);
flexio_status flexio_msg_stream_flush(struct flexio_msg_stream *stream);
int flexio_msg_stream_get_id(struct flexio_msg_stream *stream);
flexio_status flexio_msg_stream_level_set(struct flexio_msg_stream *stream,
					  flexio_msg_dev_level level);
/* Older spellings: the default stream only. */
flexio_status flexio_log_dev_init(struct flexio_process *process,
				  flexio_msg_stream_attr_t *stream_fattr, FILE *out,
				  pthread_t *ppthread);
flexio_status flexio_log_dev_flush(struct flexio_process *process);
flexio_status flexio_log_dev_destroy(struct flexio_process *process);

#ifdef __cplusplus
}
#endif

#endif /* _FLEXIO_H_ */
