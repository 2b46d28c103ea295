/* SPDX-License-Identifier: MIT */
/*
 * libflexio internals shared by the host library (src/flexio/host) and the
 * DPA runtime (src/flexio/dev). See docs/flexio.md for what is modelled.
 */
#ifndef SMX_FLEXIO_PRIV_H
#define SMX_FLEXIO_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

/* Everything the SDK headers declare is exported from libflexio.so. */
#pragma GCC visibility push(default)
#include <libflexio/flexio.h>
#include <libflexio-dev/flexio_dev.h>
#include <libflexio-dev/flexio_dev_debug.h>
#include <libflexio-dev/flexio_dev_err.h>
void smx_flexio_stub_called(const char *name) __attribute__((noreturn));
#pragma GCC visibility pop

/* ---- logging: "flexio <level>: ..." on stderr, filtered by flexio_log_lvl_set */
void fx_log(enum flexio_log_lvl lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define fx_err(...) fx_log(FLEXIO_LOG_LVL_ERR, __VA_ARGS__)
#define fx_warn(...) fx_log(FLEXIO_LOG_LVL_WARN, __VA_ARGS__)
#define fx_info(...) fx_log(FLEXIO_LOG_LVL_INFO, __VA_ARGS__)
#define fx_dbg(...) fx_log(FLEXIO_LOG_LVL_DBG, __VA_ARGS__)

/* ---- applications ------------------------------------------------------- */
struct fx_func {
	char *dev_name;			/* entry point in the device image */
	char *unpack_name;		/* its generated unpacker (NULL: none) */
	flexio_func_t *stub;		/* host key */
	size_t argbuf_size;
	flexio_func_arg_pack_fn_t *pack;
	bool key_owned;			/* stub allocated by flexio_func_register */
};

struct flexio_app {
	char *name;
	const void *elf;		/* device image (a host shared object) */
	size_t elf_size;
	struct fx_func *funcs;
	size_t nfuncs, cap;
	struct flexio_app *next;	/* global list */
};

struct fx_func *fx_app_find_func(struct flexio_app *app, flexio_func_t *stub);

/* ---- DPA threads ------------------------------------------------------------ */
enum fx_thread_state {
	FX_T_IDLE,		/* waiting for a trigger */
	FX_T_QUEUED,		/* on its hart's run queue */
	FX_T_RUNNING,
	FX_T_SUSPENDED,		/* yielded (continuable), resumes in place */
	FX_T_FINISHED,		/* flexio_dev_thread_finish: never again */
};

enum fx_outcome {
	FX_END_RETURN,		/* entry point returned */
	FX_END_RESCHEDULE,
	FX_END_FINISH,
	FX_END_RETRIGGER,
	FX_END_YIELD,
	FX_END_PROCESS_FINISH,
	FX_END_ERROR,		/* flexio_dev_error */
};

struct fx_hart;

/* What flexio_dev_get_thread_ctx() hands out: one per DPA thread. */
struct flexio_dev_thread_ctx {
	struct fx_thread *t;
};

struct fx_thread {
	struct flexio_process *proc;
	uint32_t id;
	const char *name;		/* entry point name */
	/* what an activation runs: unpack(argbuf, fn) when unpack is set, else fn(arg) */
	flexio_dev_arg_unpack_func_t *unpack;
	void *fn;
	void *argbuf;
	uint64_t arg;
	uint64_t result;
	flexio_uintptr_t tls;
	bool continuable;
	bool is_rpc;
	/* execution */
	struct fx_hart *hart;
	void *stack;
	size_t stack_size;
	ucontext_t uc;
	void *asan_fake;		/* ASan fiber bookkeeping */
	enum fx_thread_state state;
	bool pending;			/* triggered while not idle */
	bool enabled;			/* event handler is running (flexio_event_handler_run) */
	bool resume;			/* a yielded context waits to be resumed */
	enum fx_outcome outcome;
	uint8_t error_code;
	uint64_t dev_errno;
	bool in_err_handler;		/* the process error handler runs on it */
	int fault_sig;			/* a memory fault ended the activation */
	void *fault_addr;
	uint64_t activations;
	/* completion of one activation (RPC, destroy) */
	pthread_cond_t done_cv;
	uint64_t done_seq;
	struct flexio_dev_thread_ctx dtctx;
	struct fx_thread *qnext;
	/* window/outbox configured by the thread */
	uint16_t outbox_id;
	uint16_t window_id[FLEXIO_DEV_WINDOW_ENTITY_NUM];
	uint32_t window_mkey[FLEXIO_DEV_WINDOW_ENTITY_NUM];
};

/* runtime (src/flexio/dev/runtime.c) */
int fx_rt_get(void);			/* start the hart pool (refcounted) */
void fx_rt_put(void);
struct fx_thread *fx_thread_new(struct flexio_process *p, const char *name,
				const struct flexio_affinity *aff);
void fx_thread_free(struct fx_thread *t);	/* must not be queued or running */
void fx_thread_trigger(struct fx_thread *t);
/* Runs one activation and waits for it to end; false when @timeout_ms passed. */
bool fx_thread_run_sync(struct fx_thread *t, unsigned int timeout_ms);
/* Waits until @t is neither queued nor running (it may still be suspended). */
void fx_thread_quiesce(struct fx_thread *t);
/* A recoverable error @err (FLEXIO_DEV_ERRNO_*) of the running activation:
 * runs the process error handler instead of returning, if there is one. */
void fx_thread_fault(struct fx_thread *t, uint64_t err);
extern __thread struct fx_thread *fx_cur;

/* ---- messaging ------------------------------------------------------------ */
struct flexio_msg_stream {
	struct flexio_process *proc;
	int id;
	flexio_msg_dev_level level;
	flexio_msg_dev_sync_mode mode;
	FILE *out;
	char *name;
	/* the buffer lives on the DPA heap, as the SDK's does */
	flexio_uintptr_t buf_daddr;
	char *buf;
	size_t size;
	uint64_t head, tail;		/* bytes written by the device / printed by the host */
	uint64_t dropped;
	pthread_mutex_t lock;
	pthread_cond_t cv;		/* data written / data printed */
	pthread_t thread;
	bool has_thread, stop;
};

int fx_msg_write(struct flexio_process *p, int stream_id, flexio_msg_dev_level level,
		 const char *text, size_t len);

/* ---- process ------------------------------------------------------------------ */
struct fx_heap_blk {
	uint64_t off, len, req;
	struct fx_heap_blk *next;
};

struct flexio_uar {
	struct flexio_process *proc;
	struct mlx5dv_devx_uar *devx;	/* ALLOC_UAR through DEVX */
	uint32_t id;
	bool is_default;
};

struct flexio_outbox {
	struct flexio_process *proc;
	struct flexio_uar *uar;
	uint32_t id;
	bool is_default;
};

struct flexio_window {
	struct flexio_process *proc;
	struct ibv_pd *pd;
	uint32_t id;
	bool is_default;
};

struct flexio_mkey {
	struct flexio_process *proc;
	struct mlx5dv_devx_obj *obj;	/* CREATE_MKEY over the heap umem */
	uint32_t id;
	flexio_uintptr_t daddr;
	size_t len;
};

struct flexio_event_handler {
	struct flexio_process *proc;
	struct fx_thread *t;
	struct flexio_thread *thread_handle;	/* = (struct flexio_thread *)this */
	struct flexio_event_handler *next;
};

#define FX_MAX_STREAMS 256
/* DPA process status after a memory fault in DPA code (the DPA OS range,
 * 1..63, of flexio_dev_err.h). */
#define FX_DPA_MEMORY_FAULT 0x0e

/* ---- DPA queues (host/queues.c) --------------------------------------------- */
struct fx_events;			/* the process's EQ, MSI vector and interrupt thread */

struct flexio_cq {
	struct flexio_process *proc;
	struct mlx5dv_devx_obj *obj;	/* CREATE_CQ over a umem */
	uint32_t cqn;
	uint8_t log_depth;
	uint8_t element_type;
	struct flexio_thread *thread;	/* DPA_THREAD element */
	volatile uint32_t *dbr;		/* doorbell record (DPA heap) */
	uint8_t *uar;			/* UAR page base the arm doorbell goes to */
	uint32_t arm_sn;		/* arm sequence number (2 bits used) */
	bool arm_at_attach;		/* armed at creation: arm again once a QP uses it */
	uint16_t max_count, period, period_mode;
	struct flexio_cq *next;
};

struct flexio_qp {
	struct flexio_process *proc;
	struct mlx5dv_devx_obj *obj;	/* CREATE_QP over a umem */
	uint32_t qpn;
	uint32_t st;			/* FLEXIO_QPC_ST_* */
	enum flexio_qp_state state;
	volatile uint32_t *dbr;		/* [0] receive, [1] send counter; NULL for host qmem */
	uint8_t *uar;
	struct flexio_rmp *rmp;		/* receives through this RMP of ours */
	struct flexio_qp *next;
};

struct fx_cmdq_task {
	void *fn;
	uint64_t arg;
};

struct flexio_cmdq {
	struct flexio_process *proc;
	struct fx_thread **workers;
	int nworkers, batch_size;
	pthread_mutex_t lock;
	struct fx_cmdq_task *ring;
	size_t cap, head, tail;		/* tasks [head, tail) wait */
	uint64_t running;		/* tasks taken but not finished */
	uint64_t done;
	unsigned int next_worker;
	bool is_running, dying;
	struct flexio_cmdq *next;	/* the process's list */
};

void fx_queues_process_free(struct flexio_process *p);

struct flexio_process {
	struct flexio_app *app;
	struct ibv_context *ibv_ctx;	/* the caller's context */
	struct ibv_context *devx_ctx;	/* our DEVX context on the same device */
	struct ibv_pd *pd;
	bool own_pd;
	uint32_t pdn;
	struct flexio_uar *uar;
	struct flexio_outbox *outbox;
	struct flexio_window *window;
	/* DPA heap: host memory registered with the device as one umem */
	uint8_t *heap;
	size_t heap_size;
	struct mlx5dv_devx_umem *heap_umem;
	struct fx_heap_blk *blks;	/* live allocations, sorted by offset */
	size_t requested, allocated;
	/* device image loaded for this process (its own copy of DPA globals) */
	void *dl;
	/* threads */
	void *err_handler;		/* flexio_process_error_handler_set, resolved */
	struct fx_thread *rpc_thread;
	pthread_mutex_t rpc_lock;
	struct flexio_event_handler *handlers;
	uint32_t next_thread_id;
	uint32_t next_obj_id;
	/* queues created on the DPA, and the interrupt path behind DPA_THREAD CQs */
	struct flexio_cq *cqs;
	struct flexio_qp *qps;
	struct flexio_cmdq *cmdqs;
	struct fx_events *ev;
	/* streams */
	struct flexio_msg_stream *streams[FX_MAX_STREAMS];
	/* state */
	pthread_mutex_t lock;
	bool finished;			/* flexio_dev_process_finish */
	uint8_t dpa_status;		/* 0 fine, 0x40 finished, >= 0x80 user error */
	enum flexio_err_status err;
	int err_fd;			/* eventfd raised on a fatal error */
	/* `softmlx5 status` (process.c): the live processes, numbered */
	uint32_t status_id;
	struct flexio_process *status_next;
};

bool fx_daddr_ok(const struct flexio_process *p, flexio_uintptr_t daddr, size_t len);
void fx_process_fatal(struct flexio_process *p, uint8_t code, enum flexio_err_status kind);

#endif
