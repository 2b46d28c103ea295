/* SPDX-License-Identifier: MIT */
/*
 * The decoded trace (trace.h): the sink, the filters, one function per
 * event kind. Lines are built in a stack buffer and written with one
 * write(), so threads and processes need no lock between them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device/decode.h"
#include "device/trace.h"
#include "util/log.h"

unsigned int smx_trace_mask = SMX_TR_UNREAD;

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static int trace_fd = -1;
static bool trace_qp_set;
static uint32_t trace_qp;

/* Lines stay whole on a pipe too: PIPE_BUF bytes are written atomically. */
#define TRACE_LINE 4096

static const struct {
	const char *name;
	unsigned int bit;
} trace_kinds[] = {
	{ "cmd", SMX_TR_CMD }, { "wqe", SMX_TR_WQE }, { "cqe", SMX_TR_CQE },
	{ "eqe", SMX_TR_EQE }, { "pkt", SMX_TR_PKT }, { "db", SMX_TR_DB },
	{ "all", SMX_TR_CMD | SMX_TR_WQE | SMX_TR_CQE | SMX_TR_EQE | SMX_TR_PKT | SMX_TR_DB },
};

/* Parses SOFTMLX5_TRACE into a mask (and the qp filter); unknown words
 * are reported and skipped rather than silently tracing nothing. */
static unsigned int trace_parse(const char *spec)
{
	char buf[256], *save = NULL, *w;
	unsigned int m = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (!strncmp(w, "qp=", 3)) {
			char *end;
			unsigned long v;

			errno = 0;
			/* decimal or 0x hex (not octal: "010" is ten) */
			v = strtoul(w + 3, &end, strncmp(w + 3, "0x", 2) ? 10 : 16);
			if (errno || end == w + 3 || *end || v > 0xffffff) {
				smx_err("SOFTMLX5_TRACE: \"%s\" is not qp=N with a QP number "
					"(decimal or 0x hex); no qp filter", w);
				continue;
			}
			trace_qp = (uint32_t)v;
			trace_qp_set = true;
			continue;
		}
		for (i = 0; i < sizeof(trace_kinds) / sizeof(trace_kinds[0]); i++)
			if (!strcmp(w, trace_kinds[i].name))
				break;
		if (i == sizeof(trace_kinds) / sizeof(trace_kinds[0])) {
			smx_err("SOFTMLX5_TRACE: unknown event kind \"%s\" (cmd, wqe, cqe, "
				"eqe, pkt, db, all, qp=N); ignored", w);
			continue;
		}
		m |= trace_kinds[i].bit;
	}
	return m;
}

bool smx_trace_start(unsigned int kind)
{
	unsigned int m;
	const char *spec, *path;

	pthread_mutex_lock(&trace_lock);
	m = __atomic_load_n(&smx_trace_mask, __ATOMIC_RELAXED);
	if (!(m & SMX_TR_UNREAD))
		goto out;
	m = 0;
	spec = getenv("SOFTMLX5_TRACE");
	if (spec && *spec)
		m = trace_parse(spec);
	path = getenv("SOFTMLX5_TRACE_FILE");
	if (m && path && *path) {
		trace_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		if (trace_fd < 0) {
			smx_err("SOFTMLX5_TRACE_FILE %s: %s; tracing to stderr", path,
				strerror(errno));
			trace_fd = -1;
		}
	}
	__atomic_store_n(&smx_trace_mask, m, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&trace_lock);
	return (m & kind) != 0;
}

void smx_trace_reset(void)
{
	pthread_mutex_lock(&trace_lock);
	if (trace_fd >= 0)
		close(trace_fd);
	trace_fd = -1;
	trace_qp_set = false;
	trace_qp = 0;
	__atomic_store_n(&smx_trace_mask, SMX_TR_UNREAD, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&trace_lock);
}

bool smx_trace_qp_ok(uint32_t qpn)
{
	return !trace_qp_set || (qpn & 0xffffff) == trace_qp;
}

/*
 * Writes "softmlx5-trace pid=P t=S.NS <kind> <where> <rest of @dec>": @dec
 * is a decoder's line, "<kind> fields..."; the place goes between the two.
 */
static void trace_emit(const char *dec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void trace_emit(const char *dec, const char *fmt, ...)
{
	char line[TRACE_LINE];
	const char *rest = strchr(dec, ' ');
	size_t kind = rest ? (size_t)(rest - dec) : strlen(dec);
	struct timespec ts;
	va_list ap;
	int n, k;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "softmlx5-trace pid=%d t=%lld.%09ld %.*s",
		     (int)getpid(), (long long)ts.tv_sec, ts.tv_nsec, (int)kind, dec);
	va_start(ap, fmt);
	k = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (k > 0)
		n += k;
	if (n < (int)sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%s", rest ? rest : "");
	if (n >= (int)sizeof(line) - 1) {
		/* cut: say so, before the newline */
		n = (int)sizeof(line) - 12;
		memcpy(line + n, " (line cut)", 11);
		n += 11;
	}
	line[n++] = '\n';
	/* One write: the line is not mixed with other threads' or processes'. */
	if (write(trace_fd >= 0 ? trace_fd : 2, line, (size_t)n) < 0)
		(void)0;	/* nowhere to report it */
}

void smx_trace_cmd_log(const void *in, size_t inlen, const void *out, size_t outlen)
{
	char dec[TRACE_LINE];

	dec_cmd(dec, sizeof(dec), in, inlen, out, outlen);
	trace_emit(dec, "%s", "");
}

void smx_trace_wqe_log(uint32_t qpn, int sq_type, uint16_t index, const uint8_t *wqe,
		       size_t len)
{
	static const char *const tn[] = { "rc", "ud", "dci", "eth" };
	char dec[TRACE_LINE];

	if (!smx_trace_qp_ok(qpn))
		return;
	dec_wqe(dec, sizeof(dec), wqe, len, (enum dec_sq_type)sq_type);
	trace_emit(dec, " sq=0x%06x sq_type=%s index=%u", qpn,
		   sq_type >= 0 && sq_type < 4 ? tn[sq_type] : "?", index);
}

void smx_trace_rwqe_log(uint32_t qpn, uint32_t srqn, uint16_t index, const uint8_t *wqe,
			size_t len, bool next_seg)
{
	char dec[TRACE_LINE];

	if (!smx_trace_qp_ok(qpn))
		return;
	dec_rwqe(dec, sizeof(dec), wqe, len, next_seg);
	if (srqn)
		trace_emit(dec, " qpn=0x%06x srqn=0x%06x index=%u", qpn, srqn, index);
	else
		trace_emit(dec, " rq=0x%06x index=%u", qpn, index);
}

void smx_trace_cqe_log(uint32_t cqn, uint32_t pi, const uint8_t *cqe, bool session)
{
	char dec[TRACE_LINE];
	uint32_t qpn = (uint32_t)cqe[57] << 16 | (uint32_t)cqe[58] << 8 | cqe[59];

	if (!smx_trace_qp_ok(qpn))
		return;
	dec_cqe(dec, sizeof(dec), cqe, 64);
	if (session)
		trace_emit(dec, " cqn=0x%06x compressed_session=1", cqn);
	else
		trace_emit(dec, " cqn=0x%06x pi=%u", cqn, pi);
}

void smx_trace_eqe_log(uint32_t eqn, uint32_t pi, bool internal, const uint8_t eqe[64])
{
	char dec[TRACE_LINE];

	dec_eqe(dec, sizeof(dec), eqe, 64);
	if (internal)
		trace_emit(dec, " eqn=%u internal=1", eqn);
	else
		trace_emit(dec, " eqn=%u pi=%u", eqn, pi);
}

void smx_trace_db_log(uint32_t uar, uint32_t reg, const void *buf, size_t len, bool in_page)
{
	char dec[TRACE_LINE];

	dec_db(dec, sizeof(dec), reg, buf, len);
	trace_emit(dec, " uar=%u%s", uar, in_page ? " in_page=1" : "");
}

void smx_trace_pkt_log(bool tx, const char *link, uint32_t slot, uint32_t dqpn,
		       uint32_t sqpn, const uint8_t *pkt, size_t len, bool has_icrc,
		       bool by_ref)
{
	char dec[TRACE_LINE];

	if (!smx_trace_qp_ok(dqpn) && !(sqpn && smx_trace_qp_ok(sqpn)))
		return;
	dec_pkt_link(dec, sizeof(dec), pkt, len, has_icrc);
	if (sqpn)
		trace_emit(dec, " dir=%s link=%s slot=%u sqpn=0x%06x len=%zu%s", tx ? "tx" : "rx",
			   link, slot, sqpn, len, by_ref ? " by_ref=1" : "");
	else
		trace_emit(dec, " dir=%s link=%s slot=%u len=%zu%s", tx ? "tx" : "rx", link,
			   slot, len, by_ref ? " by_ref=1" : "");
}
