/* SPDX-License-Identifier: MIT */
/*
 * Host side of the command-queue sample: create a PENDING queue of W workers
 * with batch size B, add N tasks, check nothing ran yet, switch it to
 * RUNNING, wait until flexio_cmdq_is_empty(), then let the DPA check the
 * results.
 *
 *   flexio_cmdq [device] [tasks] [workers] [batch]   (defaults: mlx5_0 500 4 8)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libflexio/flexio.h>

extern struct flexio_app *DEV_APP_NAME;
extern flexio_func_t cmdq_setup, cmdq_square, cmdq_report;

int main(int argc, char **argv)
{
	const char *devname = argc > 1 ? argv[1] : "mlx5_0";
	uint64_t ntasks = argc > 2 ? strtoull(argv[2], NULL, 0) : 500, i, ret = 0;
	struct flexio_cmdq_attr cattr = {
		.workers = argc > 3 ? atoi(argv[3]) : 4,
		.batch_size = argc > 4 ? atoi(argv[4]) : 8,
		.state = FLEXIO_CMDQ_STATE_PENDING,
	};
	flexio_msg_stream_attr_t sattr = {0};
	struct flexio_msg_stream *stream = NULL;
	struct flexio_process *proc = NULL;
	struct flexio_cmdq *cmdq = NULL;
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	flexio_uintptr_t results = 0;
	struct timespec t0, t;
	int rc = 1, n;

	list = ibv_get_device_list(NULL);
	for (n = 0; list && list[n]; n++)
		if (!strcmp(ibv_get_device_name(list[n]), devname))
			ctx = ibv_open_device(list[n]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx || !ntasks) {
		fprintf(stderr, "cmdq: cannot open %s (or no tasks)\n", devname);
		return 1;
	}
	if (flexio_process_create(ctx, DEV_APP_NAME, NULL, &proc))
		goto out;
	sattr.data_bsize = 4 << FLEXIO_MSG_DEV_LOG_DATA_CHUNK_BSIZE;
	sattr.sync_mode = FLEXIO_LOG_DEV_SYNC_MODE_SYNC;
	sattr.level = FLEXIO_MSG_DEV_INFO;
	if (flexio_msg_stream_create(proc, &sattr, stdout, NULL, &stream))
		goto out;
	if (flexio_buf_dev_alloc(proc, ntasks * 8, &results) ||
	    flexio_buf_dev_memset(proc, 0xff, ntasks * 8, results) ||
	    flexio_process_call(proc, cmdq_setup, &ret, results))
		goto out;
	if (flexio_cmdq_create(proc, &cattr, &cmdq))
		goto out;
	for (i = 0; i < ntasks; i++)
		if (flexio_cmdq_task_add(cmdq, cmdq_square, i))
			goto out;
	printf("cmdq: %" PRIu64 " tasks queued for %d workers (batch %d), pending: %s\n", ntasks,
	       cattr.workers, cattr.batch_size, flexio_cmdq_is_empty(cmdq) ? "empty?!" : "not empty");
	if (flexio_cmdq_is_empty(cmdq) || flexio_cmdq_state_running(cmdq))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!flexio_cmdq_is_empty(cmdq)) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20) {
			fprintf(stderr, "cmdq: the queue did not drain\n");
			goto out;
		}
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	if (flexio_process_call(proc, cmdq_report, &ret, ntasks))
		goto out;
	printf("cmdq: queue empty, DPA checked %" PRIu64 " results\n", ret);
	rc = ret != ntasks;
out:
	if (rc)
		fprintf(stderr, "cmdq: FAILED\n");
	flexio_cmdq_destroy(cmdq);
	flexio_msg_stream_destroy(stream);
	flexio_process_destroy(proc);
	ibv_close_device(ctx);
	return rc;
}
