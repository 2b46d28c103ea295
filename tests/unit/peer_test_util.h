/* SPDX-License-Identifier: MIT */
/*
 * Two-process verbs tests (test_direct, test_regmem, ...): orders over
 * pipes, an RC QP connected to a QP of the other process, and stopping a
 * process the way a debugger's breakpoint does; qp_connect_rc() also
 * serves single-process tests.
 */
#ifndef SMX_PEER_TEST_UTIL_H
#define SMX_PEER_TEST_UTIL_H

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static __attribute__((unused)) void xwrite(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		exit(2);
}

static __attribute__((unused)) void xread(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);

		if (r <= 0)
			exit(2);
		got += (size_t)r;
	}
}

/* How qp_connect_rc() sets up an RC connection: what tests choose. */
struct rc_conn {
	unsigned int access;	/* qp_access_flags */
	uint8_t min_rnr_timer;	/* RTR */
	uint8_t hop_limit;	/* the GRH's */
	uint8_t timeout;	/* RTS: ACK timeout, retries, RNR retries */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint16_t dlid;		/* the port's LID */
	bool no_grh;		/* an InfiniBand port: by LID only */
};

/* RESET -> INIT -> RTR -> RTS, connected to QP @dqpn at @gid (path MTU
 * 1024, one READ/atomic in flight each way) as @c says. */
static __attribute__((unused)) int qp_connect_rc(struct ibv_qp *qp,
						 uint32_t dqpn,
						 const union ibv_gid *gid,
						 const struct rc_conn *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = c->access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = c->min_rnr_timer;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = c->dlid;
	if (!c->no_grh) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *gid;
		a.ah_attr.grh.hop_limit = c->hop_limit;
	}
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = c->timeout;
	a.retry_cnt = c->retry_cnt;
	a.rnr_retry = c->rnr_retry;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* RESET -> RTS, connected to QP @dqpn at @gid, granting @access, with
 * the ACK timeout @timeout and @retry_cnt retries (RNR timer 12, 3 RNR
 * retries, hop limit 1). */
static __attribute__((unused)) int qp_connect_peer_t(struct ibv_qp *qp,
						     uint32_t dqpn,
						     const union ibv_gid *gid,
						     unsigned int access,
						     uint8_t timeout,
						     uint8_t retry_cnt)
{
	const struct rc_conn c = {
		.access = access, .min_rnr_timer = 12, .hop_limit = 1,
		.timeout = timeout, .retry_cnt = retry_cnt, .rnr_retry = 3,
	};

	return qp_connect_rc(qp, dqpn, gid, &c);
}

/* qp_connect_peer_t() with timeout 14 (67 ms) and 3 retries. */
static __attribute__((unused)) int qp_connect_peer(struct ibv_qp *qp,
						   uint32_t dqpn,
						   const union ibv_gid *gid,
						   unsigned int access)
{
	return qp_connect_peer_t(qp, dqpn, gid, access, 14, 3);
}

/*
 * The test's own segment: @path (of @len bytes) gets
 * <dir>/softmlx5-test-@name-<pid>, dir /dev/shm where it is writable, else
 * /tmp, and SOFTMLX5_SHM_PATH names it.
 */
static __attribute__((unused)) void peer_seg_path(char *path, size_t len,
						  const char *name)
{
	snprintf(path, len, "%s/softmlx5-test-%s-%d",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", name,
		 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
}

/*
 * fork() with two pipes between parent and child: in each of them, @in
 * reads what the other writes to its @out (the other ends are closed).
 * 0 in the child, the child's pid in the parent; -1 when a pipe or the
 * fork fails.
 */
static __attribute__((unused)) pid_t peer_fork(int *in, int *out)
{
	int a[2], b[2];
	pid_t pid;

	if (pipe(a) || pipe(b))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		*in = a[0];
		*out = b[1];
		return 0;
	}
	close(a[0]);
	close(b[1]);
	*in = b[0];
	*out = a[1];
	return pid;
}

/* The first device, opened; exits (2) when there is none. */
static __attribute__((unused)) struct ibv_context *peer_open_device(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	if (!l || !l[0] || !(ctx = ibv_open_device(l[0]))) {
		fprintf(stderr, "cannot open the device\n");
		exit(2);
	}
	ibv_free_device_list(l);
	return ctx;
}

/*
 * One end of a two-process test over one RC QP: the device, a PD, a CQ, a
 * QP, and (peer_end_open()) an MR over the caller's @buf of @len bytes.
 */
struct peer_end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
};

/* What one end tells the other: its QP, its MR and its GID. */
struct peer_hello {
	uint32_t qpn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

/* Opens @x without an MR: a CQ of @cqe entries and an RC QP of @wr send
 * and @wr receive WRs of one SGE each; exits (2) when anything fails. */
static __attribute__((unused)) void peer_rc_open(struct peer_end *x, int cqe,
						 uint32_t wr)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	memset(x, 0, sizeof(*x));
	x->ctx = peer_open_device();
	x->pd = ibv_alloc_pd(x->ctx);
	x->cq = ibv_create_cq(x->ctx, cqe, NULL, NULL, 0);
	if (!x->pd || !x->cq)
		exit(2);
	a.send_cq = a.recv_cq = x->cq;
	x->qp = ibv_create_qp(x->pd, &a);
	if (!x->qp)
		exit(2);
}

/* Opens @x with a CQ of 8 entries, a QP of 4 send and 4 receive WRs, and
 * its MR over @buf registered with the rights @acc; exits (2) when
 * anything fails. */
static __attribute__((unused)) void peer_end_open(struct peer_end *x,
						  unsigned int acc, void *buf,
						  size_t len)
{
	peer_rc_open(x, 8, 4);
	x->buf = buf;
	x->len = len;
	x->mr = ibv_reg_mr(x->pd, buf, len, acc);
	if (!x->mr)
		exit(2);
}

static __attribute__((unused)) void peer_end_close(struct peer_end *x)
{
	ibv_destroy_qp(x->qp);
	if (x->mr)
		ibv_dereg_mr(x->mr);
	ibv_destroy_cq(x->cq);
	ibv_dealloc_pd(x->pd);
	ibv_close_device(x->ctx);
}

/* @x's hello sent over @out, the other end's read from @in and returned
 * (@first: this end sends first, the other reads first). */
static __attribute__((unused)) struct peer_hello
peer_end_swap(struct peer_end *x, int in, int out, bool first)
{
	struct peer_hello me = { .qpn = x->qp->qp_num, .rkey = x->mr->rkey,
				 .addr = (uintptr_t)x->buf }, peer;

	if (ibv_query_gid(x->ctx, 1, 0, &me.gid))
		exit(2);
	if (first)
		xwrite(out, &me, sizeof(me));
	xread(in, &peer, sizeof(peer));
	if (!first)
		xwrite(out, &me, sizeof(me));
	return peer;
}

/* The QP numbers and the GID one side sends the other
 * (peer_connect_qps()). */
#define PEER_MAX_QPS 16
struct peer_qps {
	uint32_t n;
	uint32_t qpn[PEER_MAX_QPS];
	union ibv_gid gid;
};

/*
 * Connects @qp[0..n) to the QPs of the same index in the other process,
 * over the pipes @in / @out: sends their numbers and this side's GID,
 * reads the other side's (@first: this side sends first), then connects
 * each with qp_connect_peer() granting @acc. The number of QPs that could
 * not be connected (all of them when the other side has not as many).
 */
static __attribute__((unused)) unsigned int
peer_connect_qps(int in, int out, bool first, struct ibv_qp **qp,
		 unsigned int n, unsigned int acc)
{
	struct peer_qps me = { .n = n }, peer;
	unsigned int i, bad = 0;

	if (n < 1 || n > PEER_MAX_QPS ||
	    ibv_query_gid(qp[0]->context, 1, 0, &me.gid))
		exit(2);
	for (i = 0; i < n; i++)
		me.qpn[i] = qp[i]->qp_num;
	if (first)
		xwrite(out, &me, sizeof(me));
	xread(in, &peer, sizeof(peer));
	if (!first)
		xwrite(out, &me, sizeof(me));
	if (peer.n != n)
		return n;
	for (i = 0; i < n; i++)
		bad += qp_connect_peer(qp[i], peer.qpn[i], &peer.gid, acc) != 0;
	return bad;
}

/* Polls @cq for one completion up to @polls times, @us microseconds
 * apart: its WC status, or -1 when none came. */
static __attribute__((unused)) int peer_wait_wc(struct ibv_cq *cq,
						unsigned int polls,
						unsigned int us)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < polls; i++) {
		if (ibv_poll_cq(cq, 1, &wc) == 1)
			return wc.status;
		usleep(us);
	}
	return -1;
}

/* SIGSTOP, then waits until every thread of @pid is stopped (delivery is
 * asynchronous: the inbox thread could otherwise still serve a request). */
static __attribute__((unused)) bool stop(int pid)
{
	char path[64];
	int tries;

	if (kill(pid, SIGSTOP))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	for (tries = 0; tries < 2000; tries++) {
		DIR *d = opendir(path);
		struct dirent *de;
		bool all = true;

		if (!d)
			return false;
		while ((de = readdir(d)) && all) {
			char p[400], buf[512], *c;
			FILE *f;

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s/stat", path, de->d_name);
			f = fopen(p, "r");
			if (f && fgets(buf, sizeof(buf), f) &&
			    (c = strrchr(buf, ')')) && c[1] == ' ' &&
			    c[2] != 'T' && c[2] != 't')
				all = false;
			if (f)
				fclose(f);
		}
		closedir(d);
		if (all)
			return true;
		usleep(500);
	}
	return false;
}


/* Sums every `"name": number` of each counter @names[0..n) in `@tool
 * counters --json` (the port's counters over every process attached to
 * the segment); false (with the reason in @why) when the command is
 * missing or fails. @seen[i]: the name appeared. */
static __attribute__((unused)) bool
peer_counters_read(const char *tool, const char *const *names, unsigned int n,
		   uint64_t *v, bool *seen, char *why, size_t whylen)
{
	static char out[1 << 16];
	char cmd[1024];
	size_t len = 0;
	unsigned int i;
	FILE *f;
	int st;

	if (access(tool, X_OK)) {
		snprintf(why, whylen, "%.200s not found", tool);
		return false;
	}
	snprintf(cmd, sizeof(cmd), "'%s' counters --json 2>&1", tool);
	f = popen(cmd, "r");
	if (!f) {
		snprintf(why, whylen, "cannot run %.200s", tool);
		return false;
	}
	while (len < sizeof(out) - 1) {
		size_t r = fread(out + len, 1, sizeof(out) - 1 - len, f);

		if (!r)
			break;
		len += r;
	}
	out[len] = 0;
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		char *nl = strchr(out, '\n');

		if (nl)
			*nl = 0;
		snprintf(why, whylen, "`%.200s counters --json` exited %d: %.200s",
			 tool, st == -1 ? -1 : WEXITSTATUS(st), out);
		return false;
	}
	for (i = 0; i < n; i++) {
		char key[64];
		const char *p = out;

		v[i] = 0;
		seen[i] = false;
		snprintf(key, sizeof(key), "\"%s\"", names[i]);
		while ((p = strstr(p, key))) {
			p += strlen(key);
			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ':')
				p++;
			if (*p >= '0' && *p <= '9') {
				v[i] += strtoull(p, NULL, 10);
				seen[i] = true;
			}
		}
	}
	return true;
}

#endif
