/* SPDX-License-Identifier: MIT */
/*
 * libflexio and the DPA runtime: apps and registration, processes on the
 * device, the DPA heap, RPC argument passing, per-process DPA globals, thread
 * control (unwinding, finish, retrigger, continuable yield), message streams
 * and levels, device errors and process finish, the process error handler,
 * symbol data from the device image, and bad input everywhere
 * (FLEXIO_STATUS_FAILED and a log line); `softmlx5 status` of this process
 * lists its DPA process and threads.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libflexio/flexio.h>

#include "smx_test.h"

extern struct flexio_app *test_flexio_app;
extern flexio_func_t t_mix, t_bump, t_noargs, t_print, t_unwind, t_activate, t_stats, t_error,
	t_finish_process, t_handler, t_cont, t_err_handler, t_window_fault, t_err_stats, t_fault;

static struct ibv_context *ctx;

static struct flexio_process *new_proc(void)
{
	struct flexio_process *p = NULL;

	CHECK_EQ(flexio_process_create(ctx, test_flexio_app, NULL, &p), FLEXIO_STATUS_SUCCESS);
	return p;
}

static uint64_t call1(struct flexio_process *p, flexio_func_t *f, uint64_t a)
{
	uint64_t r = 0xdead;

	CHECK_EQ(flexio_process_call(p, f, &r, a), FLEXIO_STATUS_SUCCESS);
	return r;
}

static void test_apps(void)
{
	struct flexio_app_select_attr sel = { .app_name = "test_flexio_app" };
	struct flexio_app *a = NULL, **list = NULL;
	char name[64], uname[64];
	size_t argsz = 0;
	uint32_t n = 0, pup = 0;
	uint64_t *elf;

	CHECK(test_flexio_app != NULL);
	CHECK_EQ(flexio_version_set(FLEXIO_VER(25, 1, 0)), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_version_set(FLEXIO_VER(23, 4, 0)), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_app_get(&sel, &a), FLEXIO_STATUS_SUCCESS);
	CHECK(a == test_flexio_app);
	sel.app_name = "no_such_app";
	CHECK_EQ(flexio_app_get(&sel, &a), FLEXIO_STATUS_FAILED);
	CHECK(a == NULL);
	CHECK_EQ(flexio_app_get_list(&list, &n), FLEXIO_STATUS_SUCCESS);
	CHECK(n >= 1 && list && list[0]);
	flexio_app_list_free(list);
	CHECK(!strcmp(flexio_app_get_name(test_flexio_app), "test_flexio_app"));
	CHECK(flexio_app_get_elf_size(test_flexio_app) > 64);
	elf = calloc(1, flexio_app_get_elf_size(test_flexio_app) + 8);
	CHECK_EQ(flexio_app_get_elf(test_flexio_app, elf, flexio_app_get_elf_size(test_flexio_app)),
		 FLEXIO_STATUS_SUCCESS);
	CHECK(!memcmp(elf, "\177ELF", 4));
	CHECK_EQ(flexio_app_get_elf(test_flexio_app, elf, 4), FLEXIO_STATUS_FAILED);
	free(elf);
	CHECK_EQ(flexio_func_get_register_info(test_flexio_app, &t_mix, &pup, name, uname,
					       sizeof(name), &argsz, NULL, NULL, NULL),
		 FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(pup, 1);
	CHECK(!strcmp(name, "t_mix"));
	CHECK(!strcmp(uname, "__smx_dpa_unpack_t_mix"));
	CHECK_EQ(argsz, 5 * 8);
	CHECK_EQ(flexio_func_pup_register(test_flexio_app, "t_mix", "x", &t_mix, 8,
					  (flexio_func_arg_pack_fn_t *)1), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_func_pup_register(NULL, "a", "b", &t_mix, 8, NULL), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_app_create(NULL, &a), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_app_destroy(NULL), FLEXIO_STATUS_SUCCESS);
}

/* Symbols' data from the device image: initialised, .bss, absent, bad input. */
static void test_extract_symbol(void)
{
	struct flexio_app_attr aa = { .app_name = "not_an_elf" };
	uint8_t junk[256];
	uint64_t tab[4] = { 0 };
	uint32_t z[8];
	struct flexio_app *bad = NULL;
	size_t sz = sizeof(tab);

	CHECK_EQ(flexio_app_extract_symbol(test_flexio_app, "t_table", tab, &sz),
		 FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(sz, sizeof(tab));
	CHECK(tab[0] == 1 && tab[1] == 2 && tab[2] == 3 && tab[3] == 0x5eed);
	sz = 16;	/* too small: nothing copied */
	memset(tab, 0, sizeof(tab));
	CHECK_EQ(flexio_app_extract_symbol(test_flexio_app, "t_table", tab, &sz),
		 FLEXIO_STATUS_FAILED);
	CHECK_EQ(tab[0], 0);
	memset(z, 0xff, sizeof(z));
	sz = sizeof(z);
	CHECK_EQ(flexio_app_extract_symbol(test_flexio_app, "t_zeros", z, &sz),
		 FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(sz, sizeof(z));
	CHECK(z[0] == 0 && z[7] == 0);
	sz = sizeof(z);
	CHECK_EQ(flexio_app_extract_symbol(test_flexio_app, "no_such_symbol", z, &sz),
		 FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(sz, 0);
	CHECK_EQ(flexio_app_extract_symbol(NULL, "t_table", tab, &sz), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_app_extract_symbol(test_flexio_app, NULL, tab, &sz), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_app_extract_symbol(test_flexio_app, "t_table", NULL, &sz),
		 FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_app_extract_symbol(test_flexio_app, "t_table", tab, NULL),
		 FLEXIO_STATUS_FAILED);
	/* an image that is not an ELF, and one whose section table points past its end */
	memset(junk, 0x5a, sizeof(junk));
	aa.app_ptr = junk;
	aa.app_bsize = sizeof(junk);
	CHECK_EQ(flexio_app_create(&aa, &bad), FLEXIO_STATUS_SUCCESS);
	sz = sizeof(tab);
	CHECK_EQ(flexio_app_extract_symbol(bad, "t_table", tab, &sz), FLEXIO_STATUS_FAILED);
	memcpy(junk, "\177ELF\2", 5);
	junk[0x3a] = 64;	/* e_shentsize */
	junk[0x3c] = 1;		/* e_shnum */
	CHECK_EQ(flexio_app_extract_symbol(bad, "t_table", tab, &sz), FLEXIO_STATUS_FAILED);
	flexio_app_destroy(bad);
}

static void test_process_and_heap(void)
{
	struct flexio_heap_mem_info mi = {};
	struct flexio_process *p;
	flexio_uintptr_t d1 = 1, d2 = 0;
	uint8_t src[300], back[300];
	size_t i;

	CHECK_EQ(flexio_process_create(NULL, test_flexio_app, NULL, &p), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_process_create(ctx, NULL, NULL, &p), FLEXIO_STATUS_FAILED);
	p = new_proc();
	if (!p)
		return;
	CHECK(flexio_process_get_pd(p) != NULL);
	CHECK(flexio_uar_get_id(flexio_process_get_uar(p)) != UINT32_MAX);
	CHECK(flexio_process_get_dumem_id(p) != UINT32_MAX);
	CHECK_EQ(flexio_err_status_get(p), FLEXIO_DEV_NO_ERROR);
	CHECK(flexio_err_handler_fd(p) >= 0);

	CHECK_EQ(flexio_buf_dev_alloc(p, 0, &d1), FLEXIO_STATUS_FAILED);
	CHECK_EQ(d1, 0);
	CHECK_EQ(flexio_buf_dev_alloc(p, 1ull << 40, &d1), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_buf_dev_alloc(p, 100, &d1), FLEXIO_STATUS_SUCCESS);
	CHECK(d1 != 0 && d1 % 64 == 0);
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7);
	CHECK_EQ(flexio_copy_from_host(p, src, sizeof(src), &d2), FLEXIO_STATUS_SUCCESS);
	CHECK(d2 && d2 != d1);
	memcpy(back, (void *)(uintptr_t)d2, sizeof(back));
	CHECK(!memcmp(src, back, sizeof(src)));
	CHECK_EQ(flexio_buf_dev_memset(p, 0xab, 100, d1), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(((uint8_t *)(uintptr_t)d1)[99], 0xab);
	CHECK_EQ(flexio_host2dev_memcpy(p, src, 100, d1), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(((uint8_t *)(uintptr_t)d1)[99], src[99]);
	CHECK_EQ(flexio_host2dev_memcpy(p, src, 100, (flexio_uintptr_t)(uintptr_t)src),
		 FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_process_mem_info_get(p, &mi), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(mi.requested, 100 + 300);
	CHECK_EQ(mi.allocated, 128 + 320);
	CHECK(mi.size >= (1u << 20));
	CHECK_EQ(flexio_buf_dev_free(p, d1), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_buf_dev_free(p, d1), FLEXIO_STATUS_FAILED);	/* double free */
	CHECK_EQ(flexio_buf_dev_free(p, 0), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_buf_dev_free(p, d2), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_process_mem_info_get(p, &mi), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(mi.allocated, 0);
	CHECK_EQ(flexio_process_destroy(p), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_process_destroy(NULL), FLEXIO_STATUS_SUCCESS);
}

static void test_rpc(void)
{
	struct flexio_process *p = new_proc(), *q = new_proc();
	uint64_t out = 0, r = 0;
	flexio_func_t *key = NULL;
	int i;

	if (!p || !q)
		return;
	/* types: uint32, negative int32, pointer, uint8 (upper bits ignored), uint64 */
	CHECK_EQ(flexio_process_call(p, &t_mix, &r, (uint32_t)1000, (int32_t)-10, &out,
				     (uint64_t)0xff05, (uint64_t)0x123456789ull),
		 FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(out, 1000 - 10 + 5);
	CHECK_EQ(r, 0x123456789ull ^ 0x5a5a);
	CHECK_EQ(flexio_process_call(p, &t_noargs, &r), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(r, 77);
	/* DPA globals are per process */
	for (i = 0; i < 5; i++)
		call1(p, &t_bump, 2);
	CHECK_EQ(call1(p, &t_bump, 0), 10);
	CHECK_EQ(call1(q, &t_bump, 1), 1);
	/* reschedule from deep in the stack ends the RPC; the thread is reusable */
	CHECK_EQ(call1(p, &t_unwind, 50), 0);
	CHECK_EQ(call1(p, &t_bump, 0), 10);
	/* flexio_func_register: no packer, one 64-bit argument */
	CHECK_EQ(flexio_func_register(test_flexio_app, "t_bump", &key), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(call1(p, key, 5), 15);
	CHECK_EQ(flexio_func_register(test_flexio_app, "no_such_function", &key),
		 FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_process_call(p, key, &r, 1), FLEXIO_STATUS_FAILED);
	/* bad input */
	CHECK_EQ(flexio_process_call(NULL, &t_bump, &r, 1), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_process_call(p, &t_bump, NULL, 1), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_process_call(p, (flexio_func_t *)&r, &r, 1), FLEXIO_STATUS_FAILED);
	flexio_process_destroy(q);
	flexio_process_destroy(p);
}

/* Handler runs are asynchronous: poll the device's count for up to 5 s. */
static uint64_t wait_stat(struct flexio_process *p, uint64_t which, uint64_t expect)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 500; i++) {
		v = call1(p, &t_stats, which);
		if (v >= expect)
			break;
		usleep(10000);
	}
	usleep(20000);	/* and nothing more arrives */
	return call1(p, &t_stats, which);
}

static void test_event_handlers(void)
{
	struct flexio_event_handler_attr at = { .host_stub_func = &t_handler };
	struct flexio_event_handler *eh = NULL, *eh2 = NULL, *ec = NULL;
	struct flexio_process *p = new_proc();
	uint32_t id;
	int i;

	if (!p)
		return;
	CHECK_EQ(flexio_event_handler_create(p, &at, &eh), FLEXIO_STATUS_SUCCESS);
	id = flexio_event_handler_get_id(eh);
	CHECK(flexio_event_handler_get_thread(eh) != NULL);
	/* not running yet: triggers are ignored */
	call1(p, &t_activate, id);
	usleep(20000);
	CHECK_EQ(call1(p, &t_stats, 0), 0);
	CHECK_EQ(flexio_event_handler_run(eh, 0), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_event_handler_run(eh, 0), FLEXIO_STATUS_FAILED);
	for (i = 0; i < 3; i++) {
		call1(p, &t_activate, id);
		wait_stat(p, 0, (uint64_t)i + 1);
	}
	CHECK_EQ(call1(p, &t_stats, 0), 3);
	flexio_event_handler_destroy(eh);

	/* arg 1: finish -- one run, then never again */
	CHECK_EQ(flexio_event_handler_create(p, &at, &eh2), FLEXIO_STATUS_SUCCESS);
	flexio_event_handler_run(eh2, 1);
	id = flexio_event_handler_get_id(eh2);
	call1(p, &t_activate, id);
	wait_stat(p, 0, 4);
	call1(p, &t_activate, id);
	usleep(50000);
	CHECK_EQ(call1(p, &t_stats, 0), 4);
	flexio_event_handler_destroy(eh2);

	/* arg 2: retrigger twice from one activation */
	CHECK_EQ(flexio_event_handler_create(p, &at, &eh2), FLEXIO_STATUS_SUCCESS);
	flexio_event_handler_run(eh2, 2);
	call1(p, &t_activate, flexio_event_handler_get_id(eh2));
	CHECK_EQ(wait_stat(p, 0, 7), 7);
	flexio_event_handler_destroy(eh2);

	/* continuable: three triggers resume one activation */
	at.host_stub_func = &t_cont;
	at.continuable = 1;
	at.affinity.type = FLEXIO_AFFINITY_STRICT;
	at.affinity.id = 1;
	CHECK_EQ(flexio_event_handler_create(p, &at, &ec), FLEXIO_STATUS_SUCCESS);
	flexio_event_handler_run(ec, 3);
	call1(p, &t_activate, flexio_event_handler_get_id(ec));
	wait_stat(p, 0, 8);
	for (i = 0; i < 3; i++) {
		call1(p, &t_activate, flexio_event_handler_get_id(ec));
		wait_stat(p, 1, (uint64_t)i + 1);
	}
	CHECK_EQ(call1(p, &t_stats, 0), 8);
	CHECK_EQ(call1(p, &t_stats, 1), 3);
	/* bad input */
	at.affinity.id = 100000;
	CHECK_EQ(flexio_event_handler_create(p, &at, &eh), FLEXIO_STATUS_FAILED);
	at.affinity.id = 0;
	at.host_stub_func = (flexio_func_t *)&at;
	CHECK_EQ(flexio_event_handler_create(p, &at, &eh), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_event_handler_create(p, NULL, &eh), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_event_handler_run(NULL, 0), FLEXIO_STATUS_FAILED);
	/* the process destroys what is left (ec) */
	flexio_process_destroy(p);
}

static void test_streams(void)
{
	flexio_msg_stream_attr_t sa = { .data_bsize = 2048, .sync_mode = FLEXIO_LOG_DEV_SYNC_MODE_ASYNC,
					.level = FLEXIO_MSG_DEV_WARN };
	struct flexio_process *p = new_proc();
	struct flexio_msg_stream *s = NULL, *s2 = NULL;
	char buf[512] = "";
	FILE *f = tmpfile();
	size_t n;

	if (!p || !f)
		return;
	CHECK_EQ(flexio_msg_stream_create(p, &sa, f, NULL, &s), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_msg_stream_get_id(s), 0);
	call1(p, &t_print, FLEXIO_MSG_DEV_ERROR);
	call1(p, &t_print, FLEXIO_MSG_DEV_DEBUG);	/* above the stream's level */
	call1(p, &t_print, FLEXIO_MSG_DEV_ALWAYS_PRINT);
	call1(p, &t_print, FLEXIO_MSG_DEV_NO_PRINT);
	fflush(f);
	CHECK_EQ(ftell(f), 0);	/* ASYNC: nothing until flushed */
	CHECK_EQ(flexio_msg_stream_flush(s), FLEXIO_STATUS_SUCCESS);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	CHECK(!strcmp(buf, "level 2 message\nlevel 1 message\n"));
	CHECK_EQ(flexio_msg_stream_level_set(s, FLEXIO_MSG_DEV_DEBUG), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_msg_stream_level_set(s, 9), FLEXIO_STATUS_FAILED);
	/* a second stream gets id 1 */
	sa.sync_mode = FLEXIO_LOG_DEV_SYNC_MODE_SYNC;
	CHECK_EQ(flexio_msg_stream_create(p, &sa, f, NULL, &s2), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_msg_stream_get_id(s2), 1);
	CHECK_EQ(flexio_msg_stream_destroy(s2), FLEXIO_STATUS_SUCCESS);
	/* bad attributes */
	sa.data_bsize = 3000;
	CHECK_EQ(flexio_msg_stream_create(p, &sa, f, NULL, &s2), FLEXIO_STATUS_FAILED);
	sa.data_bsize = 1024;
	CHECK_EQ(flexio_msg_stream_create(p, &sa, f, NULL, &s2), FLEXIO_STATUS_FAILED);
	sa.data_bsize = 4096;
	sa.sync_mode = FLEXIO_LOG_DEV_SYNC_MODE_TRACER;
	CHECK_EQ(flexio_msg_stream_create(p, &sa, f, NULL, &s2), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_msg_stream_create(NULL, &sa, f, NULL, &s2), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_msg_stream_flush(NULL), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_msg_stream_get_id(NULL), -1);
	/* s is left for process destroy */
	flexio_process_destroy(p);
	fclose(f);
}

static void test_errors(void)
{
	struct flexio_process *p = new_proc(), *q = new_proc();
	struct pollfd pfd;
	uint64_t r;

	if (!p || !q)
		return;
	CHECK_EQ(flexio_process_call(p, &t_error, &r, (uint64_t)0x85), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_err_status_get(p), FLEXIO_DEV_USER_ERROR);
	pfd.fd = flexio_err_handler_fd(p);
	pfd.events = POLLIN;
	CHECK_EQ(poll(&pfd, 1, 1000), 1);
	CHECK_EQ(flexio_process_call(p, &t_bump, &r, 1), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_err_status_get(NULL), FLEXIO_DEV_NO_ERROR);
#ifndef __SANITIZE_ADDRESS__
	/* a memory fault in DPA code stops that process, not the program: the
	 * call fails, the status is fatal, other processes go on (ASan builds
	 * leave SIGSEGV to ASan) */
	{
		struct flexio_process *f = new_proc();

		if (f) {
			CHECK_EQ(flexio_process_call(f, &t_fault, &r, (uint64_t)16),
				 FLEXIO_STATUS_FAILED);
			CHECK_EQ(flexio_err_status_get(f), FLEXIO_DEV_FATAL_ERROR);
			CHECK_EQ(flexio_process_call(f, &t_bump, &r, 1), FLEXIO_STATUS_FAILED);
			CHECK_EQ(flexio_process_call(q, &t_bump, &r, 1), FLEXIO_STATUS_SUCCESS);
			CHECK_EQ(flexio_process_destroy(f), FLEXIO_STATUS_SUCCESS);
		}
	}
#endif
	/* process finish: no further calls, no error */
	CHECK_EQ(flexio_process_call(q, &t_finish_process, &r, 0), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_err_status_get(q), FLEXIO_DEV_NO_ERROR);
	CHECK_EQ(flexio_process_call(q, &t_bump, &r, 1), FLEXIO_STATUS_FAILED);
	/* bad input and what is not there: clear failures */
	CHECK_EQ(flexio_cq_create(q, NULL, NULL, NULL), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_coredump_create(q, "/dev/null"), FLEXIO_STATUS_FAILED);
	flexio_process_destroy(q);
	flexio_process_destroy(p);
}

/*
 * The process error handler: set after the process and before its first
 * thread; a window fault ends the faulting activation and runs the handler
 * on the same thread, and the process goes on. Without one, the call fails.
 */
static void test_error_handler(void)
{
	struct flexio_process *p = new_proc(), *q = new_proc();
	static flexio_func_t *unregistered = (flexio_func_t *)&new_proc;

	if (!p || !q)
		return;
	CHECK_EQ(flexio_process_error_handler_set(NULL, &t_err_handler), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_process_error_handler_set(p, NULL), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_process_error_handler_set(p, unregistered), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_process_error_handler_set(p, &t_err_handler), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(call1(p, &t_window_fault, 0x1000), 0);	/* ended at the fault */
	CHECK_EQ(call1(p, &t_err_stats, 0), 1);
	CHECK_EQ(call1(p, &t_err_stats, 1), 3);		/* FLEXIO_DEV_ERRNO_WINDOW */
	CHECK_EQ(flexio_err_status_get(p), FLEXIO_DEV_NO_ERROR);
	CHECK_EQ(call1(p, &t_window_fault, 0x1000), 0);	/* and again */
	CHECK_EQ(call1(p, &t_err_stats, 0), 2);
	/* the process has a thread now: too late */
	CHECK_EQ(flexio_process_error_handler_set(p, &t_err_handler), FLEXIO_STATUS_FAILED);
	/* no handler: the failing call returns, errno set */
	CHECK_EQ(call1(q, &t_window_fault, 0x1000), 2 + 3);
	CHECK_EQ(call1(q, &t_err_stats, 0), 0);
	flexio_process_destroy(q);
	flexio_process_destroy(p);
}

/* DPA queues: real objects on the heap umem; bad input fails with a log line. */
static void test_queues(void)
{
	struct flexio_process *p = new_proc();
	struct flexio_cq_attr ca = {0};
	struct flexio_qp_attr qa = {0};
	struct flexio_mkey_attr ma = {0};
	struct flexio_cmdq_attr qa2 = { .workers = 0, .batch_size = 1 };
	struct flexio_cq *cq = NULL;
	struct flexio_qp *qp = NULL;
	struct flexio_mkey *mk = NULL;
	struct flexio_cmdq *cmdq = NULL;
	struct flexio_sq *sq = NULL;
	flexio_uintptr_t ring = 0, dbr = 0, qbuf = 0, qdbr = 0;
	uint16_t mc, per, mode;

	if (!p)
		return;
	CHECK_EQ(flexio_buf_dev_alloc(p, 64 << 4, &ring), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_buf_dev_alloc(p, 8, &dbr), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_buf_dev_alloc(p, 16 * 16 + 64 * 16, &qbuf), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_buf_dev_alloc(p, 8, &qdbr), FLEXIO_STATUS_SUCCESS);
	ca.log_cq_depth = 4;
	ca.element_type = FLEXIO_CQ_ELEMENT_TYPE_NON_DPA_CQ;
	ca.cq_ring_qmem.daddr = ring;
	ca.cq_dbr_daddr = dbr + 1;			/* misaligned */
	CHECK_EQ(flexio_cq_create(p, NULL, &ca, &cq), FLEXIO_STATUS_FAILED);
	ca.cq_dbr_daddr = dbr;
	ca.element_type = FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD;	/* no thread */
	CHECK_EQ(flexio_cq_create(p, NULL, &ca, &cq), FLEXIO_STATUS_FAILED);
	ca.element_type = FLEXIO_CQ_ELEMENT_TYPE_NON_DPA_CQ;
	ca.cq_ring_qmem.daddr = 0x1000;			/* not DPA memory */
	CHECK_EQ(flexio_cq_create(p, NULL, &ca, &cq), FLEXIO_STATUS_FAILED);
	ca.cq_ring_qmem.daddr = ring;
	CHECK_EQ(flexio_cq_create(p, NULL, &ca, &cq), FLEXIO_STATUS_SUCCESS);
	CHECK(flexio_cq_get_cq_num(cq) != UINT32_MAX);
	CHECK_EQ(flexio_cq_modify_moderation(cq, 8, 16, FLEXIO_CQ_PERIOD_MODE_CQE),
		 FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_cq_query_moderation(cq, &mc, &per, &mode), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(mc, 8);
	CHECK_EQ(per, 16);
	qa.transport_type = FLEXIO_QPC_ST_UD;		/* not a DPA QP type here */
	CHECK_EQ(flexio_qp_create(p, NULL, &qa, &qp), FLEXIO_STATUS_FAILED);
	qa.transport_type = FLEXIO_QPC_ST_RC;
	qa.log_rq_depth = 4;
	qa.log_sq_depth = 4;
	qa.rq_cqn = qa.sq_cqn = flexio_cq_get_cq_num(cq);
	qa.qp_wq_buff_qmem.daddr = qbuf;
	qa.qp_wq_dbr_qmem.daddr = qdbr;
	CHECK_EQ(flexio_qp_create(p, NULL, &qa, &qp), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_qp_state_get(qp), FLEXIO_QP_STATE_RST);
	qa.next_state = FLEXIO_QP_STATE_RTS;		/* RST -> RTS: no such step */
	CHECK_EQ(flexio_qp_modify(qp, &qa, NULL), FLEXIO_STATUS_FAILED);
	qa.next_state = FLEXIO_QP_STATE_INIT;
	CHECK_EQ(flexio_qp_modify(qp, &qa, NULL), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_qp_state_get(qp), FLEXIO_QP_STATE_INIT);
	qa.next_state = FLEXIO_QP_STATE_RTR;
	qa.path_mtu = 0;				/* bad MTU */
	CHECK_EQ(flexio_qp_modify(qp, &qa, NULL), FLEXIO_STATUS_FAILED);
	qa.next_state = FLEXIO_QP_STATE_ERR;
	CHECK_EQ(flexio_qp_modify(qp, &qa, NULL), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_qp_state_get(qp), FLEXIO_QP_STATE_ERR);
	ma.daddr = 0x1000;
	ma.len = 64;
	CHECK_EQ(flexio_device_mkey_create(p, &ma, &mk), FLEXIO_STATUS_FAILED);
	ma.daddr = qbuf;
	CHECK_EQ(flexio_device_mkey_create(p, &ma, &mk), FLEXIO_STATUS_SUCCESS);
	CHECK(flexio_mkey_get_id(mk) != UINT32_MAX);
	CHECK_EQ(flexio_device_mkey_destroy(mk), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_sq_create(p, NULL, 0, NULL, &sq), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_cmdq_create(p, &qa2, &cmdq), FLEXIO_STATUS_FAILED);
	qa2.workers = 2;
	CHECK_EQ(flexio_cmdq_create(p, &qa2, &cmdq), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_cmdq_is_empty(cmdq), 1);
	CHECK_EQ(flexio_cmdq_task_add(cmdq, NULL, 0), FLEXIO_STATUS_FAILED);
	CHECK_EQ(flexio_cmdq_destroy(cmdq), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_qp_destroy(qp), FLEXIO_STATUS_SUCCESS);
	/* the CQ is left for process destroy */
	flexio_process_destroy(p);
}

/* `softmlx5 status PID` (the tool's path in SMX_STATUS_TOOL) while this
 * process holds a DPA process with an RPC thread and a running event
 * handler: the "dpa" section libflexio adds to the snapshot lists both. */
static void test_status(void)
{
	struct flexio_event_handler_attr at = { .host_stub_func = &t_handler };
	const char *tool = getenv("SMX_STATUS_TOOL");
	const char *shm = getenv("SOFTMLX5_SHM_PATH");
	struct flexio_event_handler *eh = NULL;
	char cmd[600], out[64] = "/tmp/smx-flexio-status.XXXXXX", buf[8192];
	struct flexio_process *p;
	size_t n = 0;
	FILE *f;
	int fd;

	if (!tool || (shm && !strcmp(shm, "off")))
		return;	/* no tool given, or no segment: nothing answers */
	p = new_proc();
	if (!p)
		return;
	call1(p, &t_stats, 0);	/* the RPC thread exists */
	CHECK_EQ(flexio_event_handler_create(p, &at, &eh), FLEXIO_STATUS_SUCCESS);
	CHECK_EQ(flexio_event_handler_run(eh, 0), FLEXIO_STATUS_SUCCESS);
	fd = mkstemp(out);
	CHECK(fd >= 0);
	if (fd >= 0) {
		close(fd);
		snprintf(cmd, sizeof(cmd), "%s status --json --wait 5000 %d > %s", tool,
			 (int)getpid(), out);
		CHECK_EQ(system(cmd), 0);
		f = fopen(out, "r");
		if (f) {
			n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
		}
		buf[n] = 0;
		unlink(out);
		CHECK(strstr(buf, "\"dpa\":[{\"process\":") != NULL);
		CHECK(strstr(buf, "\"app\":\"test_flexio_app\"") != NULL);
		CHECK(strstr(buf, "\"entry\":\"t_handler\",\"kind\":\"event_handler\"") != NULL);
		CHECK(strstr(buf, "\"kind\":\"rpc\"") != NULL);
		if (!strstr(buf, "\"dpa\":[{"))
			fprintf(stderr, "status said: %.*s\n", 600, buf);
	}
	flexio_event_handler_destroy(eh);
	flexio_process_destroy(p);
}

int main(void)
{
	struct ibv_device **list;
	int n;

	flexio_log_lvl_set(FLEXIO_LOG_LVL_WARN);
	list = ibv_get_device_list(&n);
	CHECK(list && n >= 1);
	if (!list || n < 1)
		return smx_test_done();
	ctx = ibv_open_device(list[0]);
	CHECK(ctx != NULL);
	if (ctx) {
		test_apps();
		test_extract_symbol();
		test_process_and_heap();
		test_rpc();
		test_event_handlers();
		test_streams();
		test_errors();
		test_error_handler();
		test_queues();
		test_status();
		ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	return smx_test_done();
}
