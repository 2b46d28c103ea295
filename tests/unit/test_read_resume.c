/* SPDX-License-Identifier: MIT */
/*
 * A READ that loses one of its response packets asks again only for the
 * rest of the message, from the first missing PSN, as an IBTA requester
 * does (rxe's req_retry(): VA advanced by whole MTUs, the remaining
 * length) -- not for the whole message, which at a few percent loss never
 * gets through whole.
 *
 * The target T exposes 8 KiB; the requester R READs all of it over an RC
 * QP with path MTU 1024 (8 response packets, ACK timeout 18: 1.07 s). T's
 * fault stage drops exactly its Nth READ response packet
 * (SOFTMLX5_FAULT="nth=N,class=rdresp"). For each case the READ completes
 * successfully with T's bytes, and the port's counters (`softmlx5 counters
 * --json`, both processes alive) show what went on the wire:
 *
 *   N=3  a middle one: the next packet reveals the gap at once; R asks
 *        from PSN+2 (out_of_sequence +1, no ACK timeout); R receives at
 *        most 7 + 6 packets (asking for the whole READ: 7 + 8).
 *   N=8  the last one: nothing reveals it but a timer -- the adaptive
 *        one (roce_adp_retrans), milliseconds, not the QP's own 1.07 s
 *        (local_ack_timeout_err stays 0); its go-back asks from PSN+7;
 *        R receives 7 + 1.
 *   N=1  the first one: asked again from the start (7 + 8).
 *
 * N=3 and N=1 run with SOFTMLX5_ADAPTIVE_RETRANS=0, so that no timer can
 * take part; N=8 with it on.
 *
 * The same for an 8 KiB RDMA WRITE whose 3rd request packet R's own fault
 * stage drops (nth=3,class=req): T NAKs the gap at the 4th, and R resends
 * from the 3rd packet, with its original opcode -- not the whole message:
 * T counts no duplicate request (the first two are not sent again), the
 * bytes are right, and T receives 2 + 5 + 6 packets (the whole WRITE
 * again: 2 + 5 + 8, two of them duplicates). Then the same packet dropped
 * as it arrives, by T's stage (dir=rx,nth=3,class=req), with the same
 * counts; and T's stage with nth=1,class=req and no dir=, which acts on
 * what T sends (no request) and so drops nothing: 8 packets and an ACK.
 * T receives the READ request and the one asked again (duplicate_request
 * +1). The segment is private to each case ($SOFTMLX5_SHM_PATH); an alarm
 * fails the test instead of letting it hang.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "peer_test_util.h"
#include "smx_test.h"

#ifndef SMX_TOOL
#define SMX_TOOL "softmlx5"
#endif

#define LEN 8192u

enum { C_RX, C_OOS, C_TMO, C_ADP, C_DUP, C_DROP, NCNT };
static const char *const cnt_name[NCNT] = {
	"rx_packets", "out_of_sequence", "local_ack_timeout_err",
	"roce_adp_retrans", "duplicate_request", "fault_dropped",
};

static uint8_t pattern(unsigned int nth, uint32_t i)
{
	return (uint8_t)(i * 7 + i / 1024 + nth);
}

/* T: its bytes, its Nth READ response packet dropped; exits on a word. */
static int target(int in, int out, unsigned int nth)
{
	uint8_t buf[LEN];
	struct peer_hello peer;
	struct peer_end x;
	char spec[64], c;
	uint32_t i;

	snprintf(spec, sizeof(spec), "nth=%u,class=rdresp", nth);
	setenv("SOFTMLX5_FAULT", spec, 1);
	peer_end_open(&x, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, buf,
		      sizeof(buf));
	for (i = 0; i < LEN; i++)
		x.buf[i] = pattern(nth, i);
	peer = peer_end_swap(&x, in, out, true);
	if (qp_connect_peer_t(x.qp, peer.qpn, &peer.gid, IBV_ACCESS_REMOTE_READ,
			      18, 3))
		return 2;
	xwrite(out, "r", 1);
	xread(in, &c, 1);
	peer_end_close(&x);
	return 0;
}

/* T told to exit and reaped; R's end closed, the case's segment gone. */
static void finish(int pid, int in, int out, struct peer_end *x,
		   const char *path)
{
	int st;

	xwrite(out, "x", 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	peer_end_close(x);
	close(out);
	close(in);
	unlink(path);
}

/* R's one RDMA @op of LEN bytes at T's memory, to completion (5 s at
 * most); then the port's counters, both processes still attached, into
 * @v. false: it did not complete, or not successfully (said why). */
static bool one_rdma(struct peer_end *x, const struct peer_hello *peer,
		     enum ibv_wr_opcode op, const char *what, uint64_t *v)
{
	struct ibv_sge sge = { (uintptr_t)x->buf, LEN, x->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	bool seen[NCNT];
	struct ibv_wc wc;
	char why[600];
	int i;

	wr.wr.rdma.remote_addr = peer->addr;
	wr.wr.rdma.rkey = peer->rkey;
	CHECK_EQ(ibv_post_send(x->qp, &wr, &bad), 0);
	for (i = 0; i < 50000 && ibv_poll_cq(x->cq, 1, &wc) != 1; i++)
		usleep(100);
	CHECKM(i < 50000, "%s: no completion in 5 s", what);
	if (i == 50000)
		return false;
	CHECKM(wc.status == IBV_WC_SUCCESS, "%s completed with %s", what,
	       ibv_wc_status_str(wc.status));
	CHECKM(peer_counters_read(getenv("SOFTMLX5_TOOL") ?
				  getenv("SOFTMLX5_TOOL") : SMX_TOOL,
				  cnt_name, NCNT, v, seen, why, sizeof(why)),
	       "counters: %s", why);
	return wc.status == IBV_WC_SUCCESS;
}

static void run(unsigned int nth, uint64_t rx_max, uint64_t rx_min,
		bool gap)
{
	int in, out, pid;
	uint64_t v[NCNT] = { 0 };
	uint8_t buf[LEN];
	struct peer_hello peer;
	struct peer_end x;
	char path[96], what[32], c;
	uint32_t k, bad_at = LEN;

	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-rdres-%d-%u",
		 (int)getpid(), nth);
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	/* A gap is answered without a timer: with the adaptive one off, a
	 * slow peer (a sanitizer build on a busy host) cannot add a go-back
	 * of its own to what is counted. */
	if (gap)
		setenv("SOFTMLX5_ADAPTIVE_RETRANS", "0", 1);
	else
		unsetenv("SOFTMLX5_ADAPTIVE_RETRANS");
	pid = peer_fork(&in, &out);
	if (pid < 0)
		exit(2);
	if (pid == 0)
		_exit(target(in, out, nth));
	peer_end_open(&x, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, buf,
		      sizeof(buf));
	peer = peer_end_swap(&x, in, out, false);
	CHECK(qp_connect_peer_t(x.qp, peer.qpn, &peer.gid, 0, 18, 3) == 0);
	xread(in, &c, 1);

	memset(x.buf, 0, x.len);
	snprintf(what, sizeof(what), "READ nth=%u", nth);
	one_rdma(&x, &peer, IBV_WR_RDMA_READ, what, v);
	for (k = 0; k < LEN; k++)
		if (x.buf[k] != pattern(nth, k)) {
			bad_at = k;
			break;
		}
	CHECKM(bad_at == LEN, "nth=%u: READ data wrong from byte %u", nth,
	       bad_at);
	printf("nth=%u: rx_packets %llu (expected %llu..%llu), "
	       "out_of_sequence %llu, local_ack_timeout_err %llu, "
	       "roce_adp_retrans %llu, duplicate_request %llu, "
	       "fault_dropped %llu\n", nth,
	       (unsigned long long)v[C_RX], (unsigned long long)rx_min,
	       (unsigned long long)rx_max, (unsigned long long)v[C_OOS],
	       (unsigned long long)v[C_TMO], (unsigned long long)v[C_ADP],
	       (unsigned long long)v[C_DUP],
	       (unsigned long long)v[C_DROP]);
	CHECKM(v[C_DROP] == 1, "nth=%u: the fault stage dropped %llu packets",
	       nth, (unsigned long long)v[C_DROP]);
	CHECKM(v[C_RX] >= rx_min && v[C_RX] <= rx_max,
	       "nth=%u: %llu packets received, expected %llu..%llu", nth,
	       (unsigned long long)v[C_RX], (unsigned long long)rx_min,
	       (unsigned long long)rx_max);
	CHECKM(v[C_DUP] == 1, "nth=%u: T saw %llu duplicate requests, "
	       "expected the one READ asked again", nth,
	       (unsigned long long)v[C_DUP]);
	if (gap)
		CHECKM(v[C_OOS] >= 1 && v[C_TMO] == 0,
		       "nth=%u: the gap was not answered at once "
		       "(out_of_sequence %llu, timeouts %llu + %llu)", nth,
		       (unsigned long long)v[C_OOS],
		       (unsigned long long)v[C_TMO],
		       (unsigned long long)v[C_ADP]);
	else
		CHECKM(v[C_ADP] >= 1 && v[C_TMO] == 0, "nth=%u: the tail loss "
		       "was not recovered by the adaptive timer (roce_adp_retrans "
		       "%llu, local_ack_timeout_err %llu)", nth,
		       (unsigned long long)v[C_ADP],
		       (unsigned long long)v[C_TMO]);

	finish(pid, in, out, &x, path);
}

/* T for the WRITE case: exposes LEN bytes for remote writes, then reports
 * the first byte that is not the pattern (LEN: none); @spec (or NULL) is
 * its own fault stage. */
static int wtarget(int in, int out, const char *spec)
{
	uint8_t buf[LEN];
	struct peer_hello peer;
	struct peer_end x;
	uint32_t i, bad = LEN;
	char c;

	if (spec)
		setenv("SOFTMLX5_FAULT", spec, 1);
	peer_end_open(&x, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, buf,
		      sizeof(buf));
	memset(x.buf, 0, LEN);
	peer = peer_end_swap(&x, in, out, true);
	if (qp_connect_peer_t(x.qp, peer.qpn, &peer.gid, IBV_ACCESS_REMOTE_WRITE,
			      18, 3))
		return 2;
	xwrite(out, "r", 1);
	xread(in, &c, 1);
	for (i = 0; i < LEN; i++)
		if (x.buf[i] != pattern(9, i)) {
			bad = i;
			break;
		}
	xwrite(out, &bad, sizeof(bad));
	xread(in, &c, 1);
	peer_end_close(&x);
	return 0;
}

/* The WRITE case with @spec as R's fault stage, or T's (@at_target). */
static void run_write(const char *spec, bool at_target, uint64_t drops,
		      uint64_t rx)
{
	int in, out, pid;
	uint64_t v[NCNT] = { 0 };
	uint8_t buf[LEN];
	struct peer_hello peer;
	struct peer_end x;
	char path[96], c;
	uint32_t k, bad_at;

	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-wres-%d",
		 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	setenv("SOFTMLX5_ADAPTIVE_RETRANS", "0", 1);
	/* Packets, so that the fault stage sees the WRITE. */
	setenv("SOFTMLX5_DIRECT", "0", 1);
	pid = peer_fork(&in, &out);
	if (pid < 0)
		exit(2);
	if (pid == 0)
		_exit(wtarget(in, out, at_target ? spec : NULL));
	if (!at_target)
		setenv("SOFTMLX5_FAULT", spec, 1);
	peer_end_open(&x, IBV_ACCESS_LOCAL_WRITE, buf, sizeof(buf));
	unsetenv("SOFTMLX5_FAULT");
	peer = peer_end_swap(&x, in, out, false);
	CHECK(qp_connect_peer_t(x.qp, peer.qpn, &peer.gid, 0, 18, 3) == 0);
	xread(in, &c, 1);

	for (k = 0; k < LEN; k++)
		x.buf[k] = pattern(9, k);
	one_rdma(&x, &peer, IBV_WR_RDMA_WRITE, "WRITE", v);
	printf("WRITE %s: rx_packets %llu (expected %llu), "
	       "out_of_sequence %llu, duplicate_request %llu, "
	       "local_ack_timeout_err %llu, fault_dropped %llu\n", spec,
	       (unsigned long long)v[C_RX], (unsigned long long)rx,
	       (unsigned long long)v[C_OOS], (unsigned long long)v[C_DUP],
	       (unsigned long long)v[C_TMO], (unsigned long long)v[C_DROP]);
	CHECKM(v[C_DROP] == drops, "WRITE %s: %llu packets dropped", spec,
	       (unsigned long long)v[C_DROP]);
	CHECKM(v[C_DUP] == 0, "WRITE %s: T saw %llu duplicate requests: the "
	       "go-back resent packets it had", spec,
	       (unsigned long long)v[C_DUP]);
	CHECKM(v[C_TMO] == 0, "WRITE %s: %llu ACK timeouts", spec,
	       (unsigned long long)v[C_TMO]);
	CHECKM(v[C_RX] == rx, "WRITE %s: %llu packets received", spec,
	       (unsigned long long)v[C_RX]);
	xwrite(out, "x", 1);
	xread(in, &bad_at, sizeof(bad_at));
	CHECKM(bad_at == LEN, "WRITE: T's bytes wrong from %u", bad_at);
	finish(pid, in, out, &x, path);
	unsetenv("SOFTMLX5_DIRECT");
}

int main(void)
{
	alarm(60);
	/* rx_packets over both processes: T's two READ requests, then R's
	 * responses (7 of the first 8, and what it asked again for). */
	run(3, 2 + 7 + 6, 2 + 7 + 1, true);
	run(8, 2 + 7 + 1, 2 + 7 + 1, false);
	run(1, 2 + 7 + 8, 2 + 7 + 8, true);
	/* rx_packets: T's, then R's NAK and the ACK. */
	run_write("nth=3,class=req", false, 1, 2 + 5 + 6 + 2);
	/* The same packet lost where it arrives: T's own stage drops it. */
	run_write("dir=rx,nth=3,class=req", true, 1, 2 + 5 + 6 + 2);
	/* A rule without dir= acts where packets leave only: on T, which
	 * sends no request, it drops nothing. */
	run_write("nth=1,class=req", true, 0, 8 + 1);
	return smx_test_done();
}
