/* SPDX-License-Identifier: MIT */
/*
 * Device message streams. Each stream's buffer is allocated on the DPA heap;
 * DPA threads append formatted messages (flexio_dev_msg) and the host side
 * prints them to the stream's FILE:
 *   SYNC   a host thread prints each message as it arrives, and the device
 *          call returns once its message is out (so output order is the
 *          program order across host and device);
 *   ASYNC  messages wait for flexio_msg_stream_flush();
 *   BATCH  a host thread prints when the buffer is half full, and on flush.
 * Messages that do not fit an ASYNC buffer are dropped and counted.
 */
#include <stdlib.h>
#include <string.h>

#include "flexio/host/fx_priv.h"

static size_t used(const struct flexio_msg_stream *s)
{
	return (size_t)(s->head - s->tail);
}

/* Prints everything buffered (lock held; released while writing). */
static void drain_locked(struct flexio_msg_stream *s)
{
	while (s->head != s->tail) {
		size_t off = (size_t)(s->tail % s->size);
		size_t n = used(s);
		uint64_t upto;

		if (n > s->size - off)
			n = s->size - off;
		upto = s->tail + n;
		pthread_mutex_unlock(&s->lock);
		fwrite(s->buf + off, 1, n, s->out);
		fflush(s->out);
		pthread_mutex_lock(&s->lock);
		s->tail = upto;
		pthread_cond_broadcast(&s->cv);
	}
	if (s->dropped) {
		fprintf(s->out, "[flexio: %llu device messages dropped, stream buffer full]\n",
			(unsigned long long)s->dropped);
		fflush(s->out);
		s->dropped = 0;
	}
}

static void *stream_thread(void *arg)
{
	struct flexio_msg_stream *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		bool go = s->mode == FLEXIO_LOG_DEV_SYNC_MODE_SYNC ? s->head != s->tail
								   : used(s) >= s->size / 2;

		if (go)
			drain_locked(s);
		else
			pthread_cond_wait(&s->cv, &s->lock);
	}
	drain_locked(s);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int stream_put(struct flexio_msg_stream *s, flexio_msg_dev_level level, const char *text,
		      size_t len)
{
	uint64_t end;
	size_t i;

	if (level != FLEXIO_MSG_DEV_ALWAYS_PRINT && level > s->level)
		return 0;
	if (len > s->size)
		len = s->size;
	pthread_mutex_lock(&s->lock);
	if (s->mode == FLEXIO_LOG_DEV_SYNC_MODE_ASYNC) {
		if (s->size - used(s) < len) {
			s->dropped++;
			pthread_mutex_unlock(&s->lock);
			return 0;
		}
	} else {
		while (s->size - used(s) < len && !s->stop)
			pthread_cond_wait(&s->cv, &s->lock);
		if (s->stop) {
			pthread_mutex_unlock(&s->lock);
			return 0;
		}
	}
	for (i = 0; i < len; i++)
		s->buf[(s->head + i) % s->size] = text[i];
	s->head += len;
	end = s->head;
	pthread_cond_broadcast(&s->cv);
	if (s->mode == FLEXIO_LOG_DEV_SYNC_MODE_SYNC)
		while (s->tail < end && !s->stop)
			pthread_cond_wait(&s->cv, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int fx_msg_write(struct flexio_process *p, int stream_id, flexio_msg_dev_level level,
		 const char *text, size_t len)
{
	int i;

	if (stream_id == FLEXIO_MSG_DEV_BROADCAST_STREAM) {
		for (i = 0; i < FX_MAX_STREAMS; i++)
			if (p->streams[i])
				stream_put(p->streams[i], level, text, len);
		return 0;
	}
	if (stream_id < 0 || stream_id >= FX_MAX_STREAMS || !p->streams[stream_id])
		return -1;	/* no such stream: no effect, as the SDK says */
	return stream_put(p->streams[stream_id], level, text, len);
}

flexio_status flexio_msg_stream_create(struct flexio_process *process,
				       flexio_msg_stream_attr_t *stream_fattr, FILE *out,
				       pthread_t *ppthread, struct flexio_msg_stream **stream)
{
	struct flexio_msg_stream *s;
	int id;

	if (stream)
		*stream = NULL;
	if (!process || !stream_fattr || !stream) {
		fx_err("flexio_msg_stream_create: process, attributes and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (stream_fattr->data_bsize < 2048 ||
	    (stream_fattr->data_bsize & (stream_fattr->data_bsize - 1))) {
		fx_err("flexio_msg_stream_create: data_bsize %zu must be a power of two of at "
		       "least 2 KiB", stream_fattr->data_bsize);
		return FLEXIO_STATUS_FAILED;
	}
	if (stream_fattr->sync_mode > FLEXIO_LOG_DEV_SYNC_MODE_BATCH) {
		fx_err("flexio_msg_stream_create: sync mode %d not supported (TRACER is not "
		       "implemented)", (int)stream_fattr->sync_mode);
		return FLEXIO_STATUS_FAILED;
	}
	if (stream_fattr->level > FLEXIO_MSG_DEV_DEBUG) {
		fx_err("flexio_msg_stream_create: level %u out of range", stream_fattr->level);
		return FLEXIO_STATUS_FAILED;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->proc = process;
	s->level = stream_fattr->level;
	s->mode = stream_fattr->sync_mode;
	s->out = out ? out : stdout;
	s->size = stream_fattr->data_bsize;
	if (stream_fattr->stream_name && !(s->name = strdup(stream_fattr->stream_name))) {
		free(s);
		goto nomem;
	}
	if (flexio_buf_dev_alloc(process, s->size, &s->buf_daddr)) {
		free(s->name);
		free(s);
		return FLEXIO_STATUS_FAILED;
	}
	s->buf = (char *)(uintptr_t)s->buf_daddr;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_mutex_lock(&process->lock);
	for (id = 0; id < FLEXIO_MSG_DEV_MAX_STREAMS_AMOUNT; id++)
		if (!process->streams[id])
			break;
	if (id < FLEXIO_MSG_DEV_MAX_STREAMS_AMOUNT)
		process->streams[id] = s;
	pthread_mutex_unlock(&process->lock);
	if (id == FLEXIO_MSG_DEV_MAX_STREAMS_AMOUNT) {
		fx_err("flexio_msg_stream_create: all %d streams in use",
		       FLEXIO_MSG_DEV_MAX_STREAMS_AMOUNT);
		goto fail;
	}
	s->id = id;
	if (s->mode != FLEXIO_LOG_DEV_SYNC_MODE_ASYNC) {
		if (pthread_create(&s->thread, NULL, stream_thread, s)) {
			fx_err("flexio_msg_stream_create: cannot start the stream thread");
			pthread_mutex_lock(&process->lock);
			process->streams[id] = NULL;
			pthread_mutex_unlock(&process->lock);
			goto fail;
		}
		s->has_thread = true;
		if (ppthread)
			*ppthread = s->thread;
	}
	*stream = s;
	return FLEXIO_STATUS_SUCCESS;
fail:
	flexio_buf_dev_free(process, s->buf_daddr);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->lock);
	free(s->name);
	free(s);
	return FLEXIO_STATUS_FAILED;
nomem:
	fx_err("flexio_msg_stream_create: out of memory");
	return FLEXIO_STATUS_FAILED;
}

flexio_status flexio_msg_stream_flush(struct flexio_msg_stream *stream)
{
	if (!stream) {
		fx_err("flexio_msg_stream_flush: NULL stream");
		return FLEXIO_STATUS_FAILED;
	}
	pthread_mutex_lock(&stream->lock);
	drain_locked(stream);
	pthread_mutex_unlock(&stream->lock);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_msg_stream_destroy(struct flexio_msg_stream *stream)
{
	struct flexio_process *p;

	if (!stream)
		return FLEXIO_STATUS_SUCCESS;
	p = stream->proc;
	pthread_mutex_lock(&p->lock);
	if (stream->id < 0 || stream->id >= FX_MAX_STREAMS || p->streams[stream->id] != stream) {
		pthread_mutex_unlock(&p->lock);
		fx_err("flexio_msg_stream_destroy: not a live stream");
		return FLEXIO_STATUS_FAILED;
	}
	p->streams[stream->id] = NULL;
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_lock(&stream->lock);
	stream->stop = true;
	pthread_cond_broadcast(&stream->cv);
	pthread_mutex_unlock(&stream->lock);
	if (stream->has_thread)
		pthread_join(stream->thread, NULL);
	else
		flexio_msg_stream_flush(stream);
	flexio_buf_dev_free(p, stream->buf_daddr);
	pthread_cond_destroy(&stream->cv);
	pthread_mutex_destroy(&stream->lock);
	free(stream->name);
	free(stream);
	return FLEXIO_STATUS_SUCCESS;
}

int flexio_msg_stream_get_id(struct flexio_msg_stream *stream)
{
	return stream ? stream->id : -1;
}

flexio_status flexio_msg_stream_level_set(struct flexio_msg_stream *stream,
					  flexio_msg_dev_level level)
{
	if (!stream || level > FLEXIO_MSG_DEV_DEBUG) {
		fx_err("flexio_msg_stream_level_set: NULL stream or level %u out of range", level);
		return FLEXIO_STATUS_FAILED;
	}
	pthread_mutex_lock(&stream->lock);
	stream->level = level;
	pthread_mutex_unlock(&stream->lock);
	return FLEXIO_STATUS_SUCCESS;
}

/* The older single-stream calls act on the default stream (id 0). */
flexio_status flexio_log_dev_init(struct flexio_process *process,
				  flexio_msg_stream_attr_t *stream_fattr, FILE *out,
				  pthread_t *ppthread)
{
	struct flexio_msg_stream *s;

	if (process && process->streams[FLEXIO_MSG_DEV_DEFAULT_STREAM_ID]) {
		fx_err("flexio_log_dev_init: the default stream exists already");
		return FLEXIO_STATUS_FAILED;
	}
	return flexio_msg_stream_create(process, stream_fattr, out, ppthread, &s);
}

flexio_status flexio_log_dev_flush(struct flexio_process *process)
{
	if (!process || !process->streams[FLEXIO_MSG_DEV_DEFAULT_STREAM_ID]) {
		fx_err("flexio_log_dev_flush: no default stream");
		return FLEXIO_STATUS_FAILED;
	}
	return flexio_msg_stream_flush(process->streams[FLEXIO_MSG_DEV_DEFAULT_STREAM_ID]);
}

flexio_status flexio_log_dev_destroy(struct flexio_process *process)
{
	if (!process || !process->streams[FLEXIO_MSG_DEV_DEFAULT_STREAM_ID]) {
		fx_err("flexio_log_dev_destroy: no default stream");
		return FLEXIO_STATUS_FAILED;
	}
	return flexio_msg_stream_destroy(process->streams[FLEXIO_MSG_DEV_DEFAULT_STREAM_ID]);
}
