/* SPDX-License-Identifier: MIT */
/*
 * Two-process verbs tests (test_direct, test_regmem): orders over pipes,
 * an RC QP connected to a QP of the other process, and stopping a process
 * the way a debugger's breakpoint does.
 */
#ifndef SMX_PEER_TEST_UTIL_H
#define SMX_PEER_TEST_UTIL_H

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* RESET -> RTS, connected to QP @dqpn at @gid, granting @access. */
static __attribute__((unused)) int qp_connect_peer(struct ibv_qp *qp,
						   uint32_t dqpn,
						   const union ibv_gid *gid,
						   unsigned int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			     IBV_QP_MAX_QP_RD_ATOMIC);
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

#endif
