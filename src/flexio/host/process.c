/* SPDX-License-Identifier: MIT */
/*
 * FlexIO processes: creation on the device (PD, UAR, DPA heap umem through
 * DEVX/PRM), the device image loaded per process, the DPA heap, RPC
 * (flexio_process_call), event handlers, UARs/outboxes/windows and the error
 * status.
 *
 * Modelled, not on the device: the DPA process object itself, outboxes and
 * windows are bookkeeping in this library (the firmware has no DPA general
 * objects); see docs/flexio.md.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device/status.h"
#include "flexio/host/fx_priv.h"

#define FX_HEAP_ALIGN 64
#define FX_RPC_TIMEOUT_MS 60000

static size_t heap_size_default(void)
{
	const char *e = getenv("SMX_FLEXIO_HEAP_MB");
	unsigned long mb = e ? strtoul(e, NULL, 0) : 16;

	if (mb < 1 || mb > 4096)
		mb = 16;
	return (size_t)mb << 20;
}

bool fx_daddr_ok(const struct flexio_process *p, flexio_uintptr_t daddr, size_t len)
{
	uintptr_t base = (uintptr_t)p->heap;

	return daddr >= base && len <= p->heap_size && daddr - base <= p->heap_size - len;
}

void fx_process_fatal(struct flexio_process *p, uint8_t code, enum flexio_err_status kind)
{
	uint64_t one = 1;

	pthread_mutex_lock(&p->lock);
	if (p->err == FLEXIO_DEV_NO_ERROR) {
		p->err = kind;
		p->dpa_status = code;
		if (p->err_fd >= 0 && write(p->err_fd, &one, sizeof(one)) < 0)
			fx_err("error eventfd: %s", strerror(errno));
	}
	pthread_mutex_unlock(&p->lock);
	fx_err("DPA process stopped: %s error 0x%x", kind == FLEXIO_DEV_USER_ERROR ? "user" : "fatal",
	       code);
}

/* ---- device image ------------------------------------------------------------- */
/*
 * The image softmlx5-dpacc embeds is a host shared object. Each process loads
 * its own copy (through a memfd, so the dynamic loader sees a new file), which
 * gives every process its own DPA globals, as separate DPA processes have.
 */
static void *load_image(const struct flexio_app *app)
{
	char path[64];
	const uint8_t *p = app->elf;
	size_t left = app->elf_size;
	void *dl;
	int fd;

	fd = memfd_create("flexio-dpa-image", MFD_CLOEXEC);
	if (fd < 0) {
		fx_err("process: memfd_create: %s", strerror(errno));
		return NULL;
	}
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n <= 0) {
			fx_err("process: writing the device image: %s", strerror(errno));
			close(fd);
			return NULL;
		}
		p += n;
		left -= (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		fx_err("process: loading the device image of app '%s': %s", app->name, dlerror());
	close(fd);
	return dl;
}

/* ---- heap --------------------------------------------------------------------- */
static flexio_status heap_alloc(struct flexio_process *p, size_t bsize, flexio_uintptr_t *out)
{
	struct fx_heap_blk *b, **pp, *nb;
	uint64_t off = 0, len;

	len = (bsize + FX_HEAP_ALIGN - 1) & ~(uint64_t)(FX_HEAP_ALIGN - 1);
	pthread_mutex_lock(&p->lock);
	for (pp = &p->blks; (b = *pp); pp = &b->next) {
		if (b->off - off >= len)
			break;
		off = b->off + b->len;
	}
	if (off + len > p->heap_size || !(nb = calloc(1, sizeof(*nb)))) {
		pthread_mutex_unlock(&p->lock);
		return FLEXIO_STATUS_FAILED;
	}
	nb->off = off;
	nb->len = len;
	nb->req = bsize;
	nb->next = *pp;
	*pp = nb;
	p->requested += bsize;
	p->allocated += len;
	pthread_mutex_unlock(&p->lock);
	*out = (flexio_uintptr_t)(uintptr_t)(p->heap + off);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_buf_dev_alloc(struct flexio_process *process, size_t buff_bsize,
				   flexio_uintptr_t *dest_daddr_p)
{
	if (dest_daddr_p)
		*dest_daddr_p = 0;
	if (!process || !dest_daddr_p || !buff_bsize) {
		fx_err("flexio_buf_dev_alloc: process, size and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (heap_alloc(process, buff_bsize, dest_daddr_p)) {
		fx_err("flexio_buf_dev_alloc: %zu bytes do not fit the DPA heap (%zu of %zu used)",
		       buff_bsize, process->allocated, process->heap_size);
		return FLEXIO_STATUS_FAILED;
	}
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_buf_dev_free(struct flexio_process *process, flexio_uintptr_t daddr_p)
{
	struct fx_heap_blk *b, **pp;

	if (!process) {
		fx_err("flexio_buf_dev_free: NULL process");
		return FLEXIO_STATUS_FAILED;
	}
	if (!daddr_p)
		return FLEXIO_STATUS_SUCCESS;
	pthread_mutex_lock(&process->lock);
	for (pp = &process->blks; (b = *pp); pp = &b->next)
		if ((uintptr_t)process->heap + b->off == daddr_p)
			break;
	if (!b) {
		pthread_mutex_unlock(&process->lock);
		fx_err("flexio_buf_dev_free: 0x%llx is not a live DPA heap allocation",
		       (unsigned long long)daddr_p);
		return FLEXIO_STATUS_FAILED;
	}
	*pp = b->next;
	process->requested -= b->req;
	process->allocated -= b->len;
	pthread_mutex_unlock(&process->lock);
	free(b);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_host2dev_memcpy(struct flexio_process *process, void *src_haddr,
				     size_t buff_bsize, flexio_uintptr_t dest_daddr)
{
	if (!process || !src_haddr || !fx_daddr_ok(process, dest_daddr, buff_bsize)) {
		fx_err("flexio_host2dev_memcpy: %zu bytes to 0x%llx: bad process, source or range "
		       "outside the DPA heap", buff_bsize, (unsigned long long)dest_daddr);
		return FLEXIO_STATUS_FAILED;
	}
	memcpy((void *)(uintptr_t)dest_daddr, src_haddr, buff_bsize);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_buf_dev_memset(struct flexio_process *process, int value,
				    size_t buff_bsize, flexio_uintptr_t dest_daddr)
{
	if (!process || !fx_daddr_ok(process, dest_daddr, buff_bsize)) {
		fx_err("flexio_buf_dev_memset: %zu bytes at 0x%llx: outside the DPA heap",
		       buff_bsize, (unsigned long long)dest_daddr);
		return FLEXIO_STATUS_FAILED;
	}
	memset((void *)(uintptr_t)dest_daddr, value, buff_bsize);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_copy_from_host(struct flexio_process *process, void *src_haddr,
				    size_t buff_bsize, flexio_uintptr_t *dest_daddr_p)
{
	if (dest_daddr_p)
		*dest_daddr_p = 0;
	if (!process || !src_haddr || !dest_daddr_p) {
		fx_err("flexio_copy_from_host: process, source and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (flexio_buf_dev_alloc(process, buff_bsize, dest_daddr_p))
		return FLEXIO_STATUS_FAILED;
	memcpy((void *)(uintptr_t)*dest_daddr_p, src_haddr, buff_bsize);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_process_mem_info_get(const struct flexio_process *process,
					  struct flexio_heap_mem_info *info)
{
	if (!process || !info) {
		fx_err("flexio_process_mem_info_get: NULL argument");
		return FLEXIO_STATUS_FAILED;
	}
	info->base_addr = (uintptr_t)process->heap;
	info->size = process->heap_size;
	info->requested = process->requested;
	info->allocated = process->allocated;
	return FLEXIO_STATUS_SUCCESS;
}

/* ---- process ---------------------------------------------------------------- */
static void process_free(struct flexio_process *p)
{
	struct fx_heap_blk *b;
	int i;

	for (i = 0; i < FX_MAX_STREAMS; i++)
		if (p->streams[i])
			flexio_msg_stream_destroy(p->streams[i]);
	fx_queues_process_free(p);
	while (p->handlers)
		flexio_event_handler_destroy(p->handlers);
	if (p->rpc_thread) {
		fx_thread_quiesce(p->rpc_thread);
		fx_thread_free(p->rpc_thread);
	}
	if (p->dl)
		dlclose(p->dl);
	while ((b = p->blks)) {
		p->blks = b->next;
		free(b);
	}
	free(p->window);
	free(p->outbox);
	if (p->uar) {
		if (p->uar->devx)
			mlx5dv_devx_free_uar(p->uar->devx);
		free(p->uar);
	}
	if (p->heap_umem && mlx5dv_devx_umem_dereg(p->heap_umem))
		fx_err("process destroy: DPA heap umem deregistration failed");
	if (p->heap)
		munmap(p->heap, p->heap_size);
	if (p->own_pd && p->pd && ibv_dealloc_pd(p->pd))
		fx_err("process destroy: PD deallocation failed");
	if (p->devx_ctx)
		ibv_close_device(p->devx_ctx);
	if (p->err_fd >= 0)
		close(p->err_fd);
	pthread_mutex_destroy(&p->rpc_lock);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/*
 * `softmlx5 status` shows the DPA processes and threads of a process: the
 * device knows only their DEVX objects, so this library adds a section
 * ("dpa", device/status.h) listing its live processes -- app, heap,
 * state -- and each one's threads -- id, entry point, kind, state.
 */
static pthread_mutex_t status_mu = PTHREAD_MUTEX_INITIALIZER;
static struct flexio_process *status_procs;
static uint32_t status_next_id;
static pthread_once_t status_once = PTHREAD_ONCE_INIT;

static const char *status_thread_state(enum fx_thread_state s)
{
	switch (s) {
	case FX_T_IDLE: return "idle";
	case FX_T_QUEUED: return "queued";
	case FX_T_RUNNING: return "running";
	case FX_T_SUSPENDED: return "suspended";
	default: return "finished";
	}
}

static void status_thread(FILE *f, const struct fx_thread *t, const char *kind,
			  bool *first)
{
	fprintf(f, "%s{\"id\":%u,\"entry\":\"%s\",\"kind\":\"%s\",\"state\":\"%s\","
		"\"enabled\":%s}", *first ? "" : ",", t->id, t->name ? t->name : "?",
		kind, status_thread_state(t->state), t->enabled ? "true" : "false");
	*first = false;
}

static void status_write(FILE *f, void *arg)
{
	const struct flexio_process *p;
	bool first = true;

	(void)arg;
	fputc('[', f);
	pthread_mutex_lock(&status_mu);
	for (p = status_procs; p; p = p->status_next) {
		const struct flexio_event_handler *h;
		bool tfirst = true;

		fprintf(f, "%s{\"process\":%u,\"app\":\"%s\",\"pdn\":%u,\"heap_size\":%zu,"
			"\"heap_allocated\":%zu,\"dpa_status\":%u,\"threads\":",
			first ? "" : ",", p->status_id, p->app->name ? p->app->name : "?",
			p->pdn, p->heap_size, p->allocated, p->dpa_status);
		first = false;
		/* The device's inbox thread writes this: it must not wait for
		 * a process lock the application holds. */
		if (pthread_mutex_trylock((pthread_mutex_t *)&p->lock)) {
			fputs("null}", f);
			continue;
		}
		fputc('[', f);
		if (p->rpc_thread)
			status_thread(f, p->rpc_thread, "rpc", &tfirst);
		for (h = p->handlers; h; h = h->next)
			status_thread(f, h->t, "event_handler", &tfirst);
		fputs("]}", f);
		pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
	}
	pthread_mutex_unlock(&status_mu);
	fputc(']', f);
}

static void status_register(void)
{
	smx_status_section("dpa", status_write, NULL);
}

static void status_add(struct flexio_process *p)
{
	pthread_once(&status_once, status_register);
	pthread_mutex_lock(&status_mu);
	p->status_id = status_next_id++;
	p->status_next = status_procs;
	status_procs = p;
	pthread_mutex_unlock(&status_mu);
}

static void status_del(struct flexio_process *p)
{
	struct flexio_process **pp;

	pthread_mutex_lock(&status_mu);
	for (pp = &status_procs; *pp; pp = &(*pp)->status_next)
		if (*pp == p) {
			*pp = p->status_next;
			break;
		}
	pthread_mutex_unlock(&status_mu);
}

flexio_status flexio_process_create(struct ibv_context *ibv_ctx, struct flexio_app *app,
				    const struct flexio_process_attr *process_attr,
				    struct flexio_process **process_ptr)
{
	struct mlx5dv_context_attr dattr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct mlx5dv_pd dvpd = {};
	struct mlx5dv_obj obj = {};
	struct flexio_process *p;

	if (process_ptr)
		*process_ptr = NULL;
	if (!ibv_ctx || !app || !process_ptr) {
		fx_err("flexio_process_create: ibv context, app and output pointer are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (fx_rt_get()) {
		fx_err("flexio_process_create: cannot start the DPA harts");
		return FLEXIO_STATUS_FAILED;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		fx_rt_put();
		fx_err("flexio_process_create: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->rpc_lock, NULL);
	p->err_fd = -1;
	p->app = app;
	p->ibv_ctx = ibv_ctx;

	/* Our own DEVX context on the caller's device: the SDK's DEVX objects. */
	p->devx_ctx = mlx5dv_open_device(ibv_ctx->device, &dattr);
	if (!p->devx_ctx) {
		fx_err("flexio_process_create: DEVX context on %s: %s",
		       ibv_get_device_name(ibv_ctx->device), strerror(errno));
		goto fail;
	}
	/* PD: the caller's, or ALLOC_PD of our own */
	if (process_attr && process_attr->pd) {
		p->pd = process_attr->pd;
	} else {
		p->pd = ibv_alloc_pd(p->devx_ctx);
		p->own_pd = true;
		if (!p->pd) {
			fx_err("flexio_process_create: ALLOC_PD: %s", strerror(errno));
			goto fail;
		}
	}
	obj.pd.in = p->pd;
	obj.pd.out = &dvpd;
	if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD) == 0)
		p->pdn = dvpd.pdn;
	/* UAR: ALLOC_UAR through DEVX */
	p->uar = calloc(1, sizeof(*p->uar));
	if (!p->uar)
		goto nomem;
	p->uar->proc = p;
	p->uar->is_default = true;
	p->uar->devx = mlx5dv_devx_alloc_uar(p->devx_ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!p->uar->devx) {
		fx_err("flexio_process_create: ALLOC_UAR: %s", strerror(errno));
		goto fail;
	}
	p->uar->id = p->uar->devx->page_id;
	/* DPA heap: host memory the device knows as one umem */
	p->heap_size = heap_size_default();
	p->heap = mmap(NULL, p->heap_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->heap == MAP_FAILED) {
		p->heap = NULL;
		goto nomem;
	}
	p->heap_umem = mlx5dv_devx_umem_reg(p->devx_ctx, p->heap, p->heap_size,
					    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
						    IBV_ACCESS_REMOTE_READ);
	if (!p->heap_umem) {
		fx_err("flexio_process_create: CREATE_UMEM for the DPA heap: %s", strerror(errno));
		goto fail;
	}
	/* default outbox and window (library objects, see the file comment) */
	p->outbox = calloc(1, sizeof(*p->outbox));
	p->window = calloc(1, sizeof(*p->window));
	if (!p->outbox || !p->window)
		goto nomem;
	p->outbox->proc = p;
	p->outbox->uar = p->uar;
	p->outbox->is_default = true;
	p->outbox->id = p->next_obj_id++;
	p->window->proc = p;
	p->window->pd = p->pd;
	p->window->is_default = true;
	p->window->id = p->next_obj_id++;
	p->err_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* load the device image */
	p->dl = load_image(app);
	if (!p->dl)
		goto fail;
	status_add(p);
	*process_ptr = p;
	return FLEXIO_STATUS_SUCCESS;
nomem:
	fx_err("flexio_process_create: out of memory");
fail:
	process_free(p);
	fx_rt_put();
	return FLEXIO_STATUS_FAILED;
}

flexio_status flexio_process_destroy(struct flexio_process *process)
{
	if (!process)
		return FLEXIO_STATUS_SUCCESS;
	status_del(process);
	process_free(process);
	fx_rt_put();
	return FLEXIO_STATUS_SUCCESS;
}

struct ibv_pd *flexio_process_get_pd(struct flexio_process *process)
{
	return process ? process->pd : NULL;
}

struct flexio_uar *flexio_process_get_uar(struct flexio_process *process)
{
	return process ? process->uar : NULL;
}

uint32_t flexio_process_get_dumem_id(struct flexio_process *process)
{
	return process ? process->heap_umem->umem_id : UINT32_MAX;
}

uint64_t flexio_process_udbg_token_get(struct flexio_process *process)
{
	(void)process;
	return 0;	/* no DPA debugger */
}

int flexio_err_handler_fd(struct flexio_process *process)
{
	return process ? process->err_fd : -1;
}

enum flexio_err_status flexio_err_status_get(struct flexio_process *process)
{
	enum flexio_err_status e;

	if (!process)
		return FLEXIO_DEV_NO_ERROR;
	pthread_mutex_lock(&process->lock);
	e = process->err;
	pthread_mutex_unlock(&process->lock);
	return e;
}

static void *resolve(struct flexio_process *p, const char *name);

flexio_status flexio_process_error_handler_set(struct flexio_process *process,
					       flexio_func_t *error_handler)
{
	struct fx_func *f;
	uint32_t threads;
	void *fn;

	if (!process || !error_handler) {
		fx_err("flexio_process_error_handler_set: process and handler are required");
		return FLEXIO_STATUS_FAILED;
	}
	f = fx_app_find_func(process->app, error_handler);
	if (!f) {
		fx_err("flexio_process_error_handler_set: function %p is not registered with app "
		       "'%s'", (void *)error_handler, process->app->name);
		return FLEXIO_STATUS_FAILED;
	}
	/* the SDK's rule: after the process, before its first thread */
	threads = __atomic_load_n(&process->next_thread_id, __ATOMIC_ACQUIRE);
	if (threads) {
		fx_err("flexio_process_error_handler_set(%s): the process already has %u "
		       "thread(s); set the handler before the first one", f->dev_name, threads);
		return FLEXIO_STATUS_FAILED;
	}
	fn = resolve(process, f->dev_name);
	if (!fn)
		return FLEXIO_STATUS_FAILED;
	process->err_handler = fn;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_coredump_create(struct flexio_process *process, const char *outfile)
{
	(void)process;
	fx_err("flexio_coredump_create(%s): not supported on softmlx5", outfile ? outfile : "");
	return FLEXIO_STATUS_FAILED;
}

flexio_status flexio_crash_data(struct flexio_process *process, const char *outfile)
{
	(void)process;
	fx_err("flexio_crash_data(%s): not supported on softmlx5", outfile ? outfile : "");
	return FLEXIO_STATUS_FAILED;
}

/* ---- RPC ---------------------------------------------------------------------- */
static void *resolve(struct flexio_process *p, const char *name)
{
	void *s;

	dlerror();
	s = dlsym(p->dl, name);
	if (!s)
		fx_err("entry point '%s' is not in the device image of app '%s'", name,
		       p->app->name);
	return s;
}

/* The unpacker for functions registered without one: a single uint64_t. */
static uint64_t unpack_one(void *argbuf, void *func)
{
	return ((flexio_dev_rpc_handler_t *)func)(*(uint64_t *)argbuf);
}

flexio_status flexio_process_call(struct flexio_process *process, flexio_func_t *host_func,
				  uint64_t *func_ret, ...)
{
	flexio_uintptr_t argbuf = 0;
	struct fx_func *f;
	struct fx_thread *t;
	flexio_status st = FLEXIO_STATUS_FAILED;
	void *fn, *unpack = NULL;
	va_list ap;

	if (!process || !host_func || !func_ret) {
		fx_err("flexio_process_call: process, function and return pointer are required");
		return FLEXIO_STATUS_FAILED;
	}
	f = fx_app_find_func(process->app, host_func);
	if (!f) {
		fx_err("flexio_process_call: function %p is not registered with app '%s'",
		       (void *)host_func, process->app->name);
		return FLEXIO_STATUS_FAILED;
	}
	if (process->finished || process->err != FLEXIO_DEV_NO_ERROR) {
		fx_err("flexio_process_call(%s): the DPA process has stopped (status 0x%x)",
		       f->dev_name, process->dpa_status);
		return FLEXIO_STATUS_FAILED;
	}
	fn = resolve(process, f->dev_name);
	if (!fn || (f->unpack_name && !(unpack = resolve(process, f->unpack_name))))
		return FLEXIO_STATUS_FAILED;

	pthread_mutex_lock(&process->rpc_lock);
	if (!process->rpc_thread) {
		process->rpc_thread = fx_thread_new(process, "rpc", NULL);
		if (!process->rpc_thread) {
			fx_err("flexio_process_call: cannot create the RPC thread");
			goto out;
		}
		process->rpc_thread->is_rpc = true;
	}
	t = process->rpc_thread;
	/* the packed arguments travel in DPA memory, as on the device */
	if (f->pack) {
		if (flexio_buf_dev_alloc(process, f->argbuf_size ? f->argbuf_size : 8, &argbuf))
			goto out;
		va_start(ap, func_ret);
		f->pack((void *)(uintptr_t)argbuf, ap);
		va_end(ap);
		t->unpack = (flexio_dev_arg_unpack_func_t *)unpack;
		t->argbuf = (void *)(uintptr_t)argbuf;
	} else {
		/* registered without a packer: one 64-bit argument */
		uint64_t a;

		va_start(ap, func_ret);
		a = va_arg(ap, uint64_t);
		va_end(ap);
		if (flexio_buf_dev_alloc(process, 8, &argbuf))
			goto out;
		*(uint64_t *)(uintptr_t)argbuf = a;
		t->unpack = unpack_one;
		t->argbuf = (void *)(uintptr_t)argbuf;
	}
	t->fn = fn;
	t->name = f->dev_name;
	t->result = 0;
	t->outcome = FX_END_RETURN;
	if (!fx_thread_run_sync(t, FX_RPC_TIMEOUT_MS)) {
		fx_err("flexio_process_call(%s): no answer in %u ms", f->dev_name,
		       FX_RPC_TIMEOUT_MS);
		process->rpc_thread = NULL;	/* still busy: abandoned, not freed */
		argbuf = 0;
		st = FLEXIO_STATUS_TIMEOUT;
		goto out;
	}
	if (t->outcome == FX_END_ERROR || process->err != FLEXIO_DEV_NO_ERROR) {
		fx_err("flexio_process_call(%s): the DPA process failed (status 0x%x)",
		       f->dev_name, process->dpa_status);
		st = FLEXIO_STATUS_FAILED;
		goto out;
	}
	*func_ret = t->result;
	st = FLEXIO_STATUS_SUCCESS;
out:
	if (argbuf)
		flexio_buf_dev_free(process, argbuf);
	pthread_mutex_unlock(&process->rpc_lock);
	return st;
}

/* ---- event handlers ---------------------------------------------------------- */
flexio_status flexio_event_handler_create(struct flexio_process *process,
					  struct flexio_event_handler_attr *fattr,
					  struct flexio_event_handler **event_handler_ptr)
{
	struct flexio_event_handler *eh;
	struct fx_func *f;
	void *fn;

	if (event_handler_ptr)
		*event_handler_ptr = NULL;
	if (!process || !fattr || !event_handler_ptr) {
		fx_err("flexio_event_handler_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	f = fx_app_find_func(process->app, fattr->host_stub_func);
	if (!f) {
		fx_err("flexio_event_handler_create: entry point %p is not registered with app '%s'",
		       (void *)fattr->host_stub_func, process->app->name);
		return FLEXIO_STATUS_FAILED;
	}
	if (fattr->affinity.type > FLEXIO_AFFINITY_GROUP ||
	    (fattr->affinity.type == FLEXIO_AFFINITY_STRICT && fattr->affinity.id >= USER_EUS_LIMIT)) {
		fx_err("flexio_event_handler_create: affinity type %d id %u is invalid",
		       (int)fattr->affinity.type, fattr->affinity.id);
		return FLEXIO_STATUS_FAILED;
	}
	if (fattr->thread_local_storage_daddr &&
	    !fx_daddr_ok(process, fattr->thread_local_storage_daddr, 1)) {
		fx_err("flexio_event_handler_create: thread local storage 0x%llx is not DPA memory",
		       (unsigned long long)fattr->thread_local_storage_daddr);
		return FLEXIO_STATUS_FAILED;
	}
	fn = resolve(process, f->dev_name);
	if (!fn)
		return FLEXIO_STATUS_FAILED;
	eh = calloc(1, sizeof(*eh));
	if (!eh)
		goto nomem;
	eh->proc = process;
	eh->t = fx_thread_new(process, f->dev_name, &fattr->affinity);
	if (!eh->t) {
		free(eh);
		goto nomem;
	}
	eh->t->fn = fn;
	eh->t->arg = fattr->arg;
	eh->t->tls = fattr->thread_local_storage_daddr;
	eh->t->continuable = fattr->continuable != 0;
	eh->thread_handle = (struct flexio_thread *)eh;
	pthread_mutex_lock(&process->lock);
	eh->next = process->handlers;
	process->handlers = eh;
	pthread_mutex_unlock(&process->lock);
	*event_handler_ptr = eh;
	return FLEXIO_STATUS_SUCCESS;
nomem:
	fx_err("flexio_event_handler_create: out of memory");
	return FLEXIO_STATUS_FAILED;
}

flexio_status flexio_event_handler_run(struct flexio_event_handler *event_handler,
				       uint64_t user_arg)
{
	if (!event_handler) {
		fx_err("flexio_event_handler_run: NULL handler");
		return FLEXIO_STATUS_FAILED;
	}
	if (event_handler->t->enabled) {
		fx_err("flexio_event_handler_run: handler is already running");
		return FLEXIO_STATUS_FAILED;
	}
	event_handler->t->arg = user_arg;
	__atomic_store_n(&event_handler->t->enabled, true, __ATOMIC_RELEASE);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_event_handler_destroy(struct flexio_event_handler *event_handler)
{
	struct flexio_process *p;
	struct flexio_event_handler **pp;

	if (!event_handler)
		return FLEXIO_STATUS_SUCCESS;
	p = event_handler->proc;
	pthread_mutex_lock(&p->lock);
	for (pp = &p->handlers; *pp && *pp != event_handler; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = event_handler->next;
	pthread_mutex_unlock(&p->lock);
	__atomic_store_n(&event_handler->t->enabled, false, __ATOMIC_RELEASE);
	fx_thread_quiesce(event_handler->t);
	fx_thread_free(event_handler->t);
	free(event_handler);
	return FLEXIO_STATUS_SUCCESS;
}

struct flexio_thread *flexio_event_handler_get_thread(struct flexio_event_handler *event_handler)
{
	return event_handler ? event_handler->thread_handle : NULL;
}

uint32_t flexio_event_handler_get_id(struct flexio_event_handler *event_handler)
{
	return event_handler ? event_handler->t->id : UINT32_MAX;
}

uint32_t flexio_event_handler_get_obj_id(struct flexio_event_handler *event_handler)
{
	return event_handler ? event_handler->t->id : UINT32_MAX;
}

/* A trigger for the thread behind a CQ's element (host/queues.c). */
void fx_event_handler_trigger(struct flexio_thread *th)
{
	struct flexio_event_handler *eh = (struct flexio_event_handler *)th;

	if (eh && __atomic_load_n(&eh->t->enabled, __ATOMIC_ACQUIRE))
		fx_thread_trigger(eh->t);
}

/* ---- UARs, outboxes, windows -------------------------------------------------- */
flexio_status flexio_uar_create(struct flexio_process *process, struct flexio_uar **flexio_uar)
{
	struct flexio_uar *u;

	if (!process || !flexio_uar) {
		fx_err("flexio_uar_create: NULL argument");
		return FLEXIO_STATUS_FAILED;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return FLEXIO_STATUS_FAILED;
	u->proc = process;
	u->devx = mlx5dv_devx_alloc_uar(process->devx_ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!u->devx) {
		fx_err("flexio_uar_create: ALLOC_UAR: %s", strerror(errno));
		free(u);
		return FLEXIO_STATUS_FAILED;
	}
	u->id = u->devx->page_id;
	*flexio_uar = u;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_uar_destroy(struct flexio_uar *uar)
{
	if (!uar)
		return FLEXIO_STATUS_SUCCESS;
	if (uar->is_default) {
		fx_err("flexio_uar_destroy: the process's own UAR goes with the process");
		return FLEXIO_STATUS_FAILED;
	}
	mlx5dv_devx_free_uar(uar->devx);
	free(uar);
	return FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_uar_get_id(struct flexio_uar *uar)
{
	return uar ? uar->id : UINT32_MAX;
}

flexio_status flexio_uar_extend(struct flexio_uar *in_uar, struct ibv_context *to_extend,
				struct flexio_uar **extended)
{
	(void)in_uar;
	(void)to_extend;
	(void)extended;
	fx_err("flexio_uar_extend: one device only on softmlx5 (not supported)");
	return FLEXIO_STATUS_FAILED;
}

flexio_uar_device_id flexio_uar_get_extended_id(struct flexio_uar *uar)
{
	return uar ? 0 : UINT32_MAX;
}

flexio_status flexio_outbox_create(struct flexio_process *process,
				   struct flexio_outbox_attr *fattr, struct flexio_outbox **outbox)
{
	struct flexio_outbox *o;

	(void)fattr;
	if (!process || !outbox) {
		fx_err("flexio_outbox_create: NULL argument");
		return FLEXIO_STATUS_FAILED;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return FLEXIO_STATUS_FAILED;
	o->proc = process;
	o->uar = process->uar;
	pthread_mutex_lock(&process->lock);
	o->id = process->next_obj_id++;
	pthread_mutex_unlock(&process->lock);
	*outbox = o;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_outbox_destroy(struct flexio_outbox *outbox)
{
	if (outbox && outbox->is_default) {
		fx_err("flexio_outbox_destroy: the default outbox goes with the process");
		return FLEXIO_STATUS_FAILED;
	}
	free(outbox);
	return FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_outbox_get_id(struct flexio_outbox *outbox)
{
	return outbox ? outbox->id : UINT32_MAX;
}

struct flexio_uar *flexio_outbox_get_uar(struct flexio_outbox *outbox)
{
	return outbox ? outbox->uar : NULL;
}

flexio_status flexio_window_create(struct flexio_process *process, struct ibv_pd *pd,
				   struct flexio_window **window)
{
	struct flexio_window *w;

	if (!process || !pd || !window) {
		fx_err("flexio_window_create: process, PD and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (!pd->context || pd->context->device != process->ibv_ctx->device) {
		fx_err("flexio_window_create: the PD is not of device %s, where the process runs",
		       ibv_get_device_name(process->ibv_ctx->device));
		return FLEXIO_STATUS_FAILED;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return FLEXIO_STATUS_FAILED;
	w->proc = process;
	w->pd = pd;
	pthread_mutex_lock(&process->lock);
	w->id = process->next_obj_id++;
	pthread_mutex_unlock(&process->lock);
	*window = w;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_window_destroy(struct flexio_window *window)
{
	if (window && window->is_default) {
		fx_err("flexio_window_destroy: the default window goes with the process");
		return FLEXIO_STATUS_FAILED;
	}
	free(window);
	return FLEXIO_STATUS_SUCCESS;
}

uint32_t flexio_window_get_id(struct flexio_window *window)
{
	return window ? window->id : UINT32_MAX;
}
