/* SPDX-License-Identifier: MIT */
/*
 * `softmlx5 status`: this process's view of the device, written when a
 * reader asks (smx_shm_status_asked(): the reader rang our inbox's bell,
 * so the inbox thread answers). Read only: the firmware's objects
 * (fw_status_walk()) and the engine's state of each, taken under fw->lock
 * in one pass, then written as one JSON object to <segment>.status.<slot>
 * (a new file renamed over the old one, mode 0600), and the request is
 * marked answered. Nothing is written on the data path: a snapshot costs
 * the process one pass when somebody looks, never otherwise.
 *
 * The application's doorbell records (consumer indices, posted WQE
 * counters) are read through the fault guard: a record whose memory is
 * gone reads as unknown (-1).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/engine/eng_loc.h"
#include "device/status.h"
#include "device/transport/counters.h"
#include "util/fault.h"
#include "util/log.h"
#include "util/symver.h"

/* Sections our other libraries add (status.h), process-wide. */
#define STATUS_SECTIONS 8
static struct {
	char name[32];
	void (*fn)(FILE *f, void *arg);
	void *arg;
} status_sections[STATUS_SECTIONS];
static pthread_mutex_t status_sections_mu = PTHREAD_MUTEX_INITIALIZER;

SMX_EXPORT int smx_status_section(const char *name,
				  void (*fn)(FILE *f, void *arg), void *arg)
{
	int i, free_at = -1, ret = 0;

	if (!name || !*name || strlen(name) >= sizeof(status_sections[0].name) ||
	    strpbrk(name, "\"\\"))
		return -EINVAL;
	pthread_mutex_lock(&status_sections_mu);
	for (i = 0; i < STATUS_SECTIONS; i++) {
		if (!status_sections[i].fn) {
			if (free_at < 0)
				free_at = i;
		} else if (!strcmp(status_sections[i].name, name)) {
			break;
		}
	}
	if (i < STATUS_SECTIONS) {	/* a section of that name */
		if (fn)
			ret = -EEXIST;
		else
			status_sections[i].fn = NULL;
	} else if (fn && free_at < 0) {
		ret = -ENOSPC;
	} else if (fn) {
		snprintf(status_sections[free_at].name,
			 sizeof(status_sections[0].name), "%s", name);
		status_sections[free_at].fn = fn;
		status_sections[free_at].arg = arg;
	}
	pthread_mutex_unlock(&status_sections_mu);
	return ret;
}

struct status_out {
	FILE *f;
	bool first;
};

static void status_sep(struct status_out *o)
{
	if (!o->first)
		fputc(',', o->f);
	o->first = false;
}

/* A doorbell record word in host order, or -1 when it cannot be read. */
static int64_t status_dbrec(const volatile uint32_t *rec)
{
	uint32_t v;

	if (!rec || !smx_fault_memmove(&v, (const void *)rec, sizeof(v)))
		return -1;
	return be32toh(v);
}

static void status_qp(void *arg, struct fw_qp *qp)
{
	struct status_out *o = arg;
	const struct eng_qp *q = qp->eng;
	const char *state, *type = fw_qp_names(qp, &state);
	int64_t posted = qp->st == FW_QP_ST_DCT ? -1 : status_dbrec(
		qp->dbrec ? qp->dbrec + 1 : NULL);

	status_sep(o);
	fprintf(o->f, "{\"qpn\":%u,\"type\":\"%s\",\"state\":\"%s\"",
		qp->obj.id, type, state);
	if (qp->st != FW_QP_ST_DCT) {
		fprintf(o->f, ",\"remote_qpn\":%u,\"sq_psn\":%u,\"rq_psn\":%u",
			DEVX_GET(qpc, qp->qpc, remote_qpn),
			DEVX_GET(qpc, qp->qpc, next_send_psn),
			DEVX_GET(qpc, qp->qpc, next_rcv_psn));
		/* WQEBBs posted (the doorbell record) and taken by the
		 * engine; requests waiting for their response */
		fprintf(o->f, ",\"sq_posted\":%lld,\"sq_taken\":%u,"
			"\"in_flight\":%u", (long long)posted,
			q ? q->sq_ci : 0, q ? q->nout : 0);
	}
	fprintf(o->f, ",\"cqn\":[%u,%u]}", qp->scq ? qp->scq->obj.id : 0,
		qp->rcq ? qp->rcq->obj.id : 0);
}

static void status_cq(void *arg, struct fw_cq *cq)
{
	struct status_out *o = arg;
	const struct eng_cq *ec = cq->eng;
	int64_t ci = status_dbrec(cq->dbrec);
	uint32_t pi = ec ? ec->pi : 0;

	status_sep(o);
	fprintf(o->f, "{\"cqn\":%u,\"size\":%u,\"written\":%u,\"consumed\":%lld,"
		"\"fill\":%lld,\"overrun\":%s}", cq->obj.id, 1u << cq->log_size,
		pi, (long long)ci,
		ci < 0 ? -1ll : (long long)((pi - (uint32_t)ci) & 0xffffff),
		ec && ec->overrun ? "true" : "false");
}

static void status_srq(void *arg, struct fw_srq *srq)
{
	struct status_out *o = arg;

	status_sep(o);
	fprintf(o->f, "{\"srqn\":%u,\"size\":%u}", srq->obj.id,
		1u << srq->log_size);
}

static void status_mkey(void *arg, struct fw_mkey *mk)
{
	struct status_out *o = arg;

	if (mk->free)
		return;
	status_sep(o);
	fprintf(o->f, "{\"key\":%u,\"start\":%llu,\"length\":%llu,"
		"\"access\":\"%s%s%s%s%s\",\"pd\":%u}",
		mk->obj.id << 8 | mk->variant, (unsigned long long)mk->start,
		mk->len64 ? 0ull : (unsigned long long)mk->len,
		mk->access & 1 ? "r" : "-", mk->access & 2 ? "w" : "-",
		mk->access & 4 ? "R" : "-", mk->access & 8 ? "W" : "-",
		mk->access & 16 ? "A" : "-", mk->pd ? mk->pd->obj.id : 0);
}

static void status_genobj(void *arg, uint32_t id, uint16_t type,
			  const char *name)
{
	struct status_out *o = arg;

	status_sep(o);
	fprintf(o->f, "{\"id\":%u,\"type\":%u,\"name\":\"%s\"}", id, type,
		name);
}

static void status_count(void *arg, const char *table, uint32_t n)
{
	struct status_out *o = arg;

	status_sep(o);
	fprintf(o->f, "\"%s\":%u", table, n);
}

/* The snapshot, built under fw->lock; NULL when memory ran out. */
/* The snapshot's firmware parts, in order: its key, the brackets of its
 * value, and the walk that fills it. */
static const struct {
	const char *key, *open, *close;
	struct fw_status_cb cb;
} status_parts[] = {
	{ "qps", "[", "]", { .qp = status_qp } },
	{ "cqs", "[", "]", { .cq = status_cq } },
	{ "srqs", "[", "]", { .srq = status_srq } },
	{ "mkeys", "[", "]", { .mkey = status_mkey } },
	{ "devx_objects", "[", "]", { .genobj = status_genobj } },
	{ "objects", "{", "}", { .count = status_count } },
};

static char *status_build(struct eng *e, size_t *len)
{
	struct status_out o = { NULL, true };
	char *buf = NULL;
	unsigned int i;

	o.f = open_memstream(&buf, len);
	if (!o.f)
		return NULL;
	fprintf(o.f, "{\"pid\":%d,\"slot\":%u", (int)getpid(), e->slot);
	fw_lock(e->fw);
	for (i = 0; i < sizeof(status_parts) / sizeof(status_parts[0]); i++) {
		fprintf(o.f, ",\"%s\":%s", status_parts[i].key, status_parts[i].open);
		o.first = true;
		fw_status_walk(e->fw, &status_parts[i].cb, &o);
		fputs(status_parts[i].close, o.f);
	}
	fw_unlock(e->fw);
	/* this process's share of the port counters (those not 0) */
	fputs(",\"counters\":{", o.f);
	o.first = true;
	for (i = 0; e->ctr && i < TRN_CTR_NUM; i++) {
		uint64_t v = __atomic_load_n(&e->ctr->v[i], __ATOMIC_RELAXED);

		if (!v)
			continue;
		status_sep(&o);
		fprintf(o.f, "\"%s\":%llu", trn_ctr_info[i].name,
			(unsigned long long)v);
	}
	fputc('}', o.f);
	/* our other libraries' sections, outside fw->lock (they take their
	 * own locks) */
	pthread_mutex_lock(&status_sections_mu);
	for (i = 0; i < STATUS_SECTIONS; i++)
		if (status_sections[i].fn) {
			fprintf(o.f, ",\"%s\":", status_sections[i].name);
			status_sections[i].fn(o.f, status_sections[i].arg);
		}
	pthread_mutex_unlock(&status_sections_mu);
	fputs("}\n", o.f);
	if (fclose(o.f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void eng_status_answer(struct eng *e)
{
	char path[300], tmp[310];
	uint32_t req;
	size_t len = 0;
	char *buf;
	bool ok;
	int fd;

	if (!smx_shm_status_asked(e->shm, &req))
		return;
	snprintf(path, sizeof(path), "%s.status.%u", smx_shm_path(e->shm),
		 e->slot);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	buf = status_build(e, &len);
	fd = buf ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
			O_NOFOLLOW, 0600) : -1;
	ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;
	if (fd >= 0 && close(fd))
		ok = false;
	if (ok && rename(tmp, path))
		ok = false;
	if (!ok) {
		smx_dbg("engine: status: cannot write %s", path);
		if (fd >= 0)
			unlink(tmp);
	}
	free(buf);
	smx_shm_status_answered(e->shm, req);
}

void eng_status_forget(struct eng *e)
{
	char path[300];

	if (!e->shm)
		return;
	snprintf(path, sizeof(path), "%s.status.%u", smx_shm_path(e->shm),
		 e->slot);
	unlink(path);
}
