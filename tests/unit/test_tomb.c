/* SPDX-License-Identifier: MIT */
/*
 * A requester whose last ACK was lost, towards a QP that is gone
 * (docs/multiprocess.md, "Requester side"): the target T receives one SEND
 * on an RC QP and every ACK it sends is dropped by its fault stage
 * (SOFTMLX5_FAULT="class=ack,loss=100%"). Both QPs have timeout 18 (1.07 s)
 * and retry_cnt 1. Then
 *
 *   destroy  T destroys its QP and exits. The QP's tombstone in T's slot
 *            says what it received: the requester R's first SEND completes
 *            successfully on its ACK timeout (as the responder's re-ACK of
 *            the retry would have), and a second SEND, which T never got,
 *            fails with IBV_WC_RETRY_EXC_ERR, as towards any vanished QP.
 *   reuse    as destroy, but before R's timer runs out another process
 *            takes T's slot and creates a QP with T's QPN: the tombstone,
 *            made under T's claim of the slot, still answers R's first
 *            SEND; the second goes to the new QP, which is in RESET and
 *            answers nothing.
 *   kill     T is SIGKILLed instead: no tombstone, so R's SEND ends in
 *            IBV_WC_RETRY_EXC_ERR -- a process that dies fails its peers.
 *
 * The segment is private to the test ($SOFTMLX5_SHM_PATH); an alarm fails
 * the test instead of letting it hang.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "peer_test_util.h"
#include "smx_test.h"

/* One completion within @ms: its status, or -1. */
static int end_wait(struct peer_end *x, int ms)
{
	return peer_wait_wc(x->cq, (unsigned int)ms * 10, 100);
}

static int end_send(struct peer_end *x, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)x->buf, len, x->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	return ibv_post_send(x->qp, &wr, &bad);
}

/* T: one receive, then "received" once it completed, then waits for the
 * word: 'd' destroy everything and exit; 'k' wait to be killed. */
static int target(int in, int out)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	uint8_t buf[4096];
	struct peer_hello peer;
	struct peer_end x;
	char c;

	setenv("SOFTMLX5_FAULT", "class=ack,loss=100%", 1);
	peer_end_open(&x, IBV_ACCESS_LOCAL_WRITE, buf, sizeof(buf));
	sge = (struct ibv_sge){ (uintptr_t)x.buf, (uint32_t)x.len, x.mr->lkey };
	peer = peer_end_swap(&x, in, out, true);
	if (qp_connect_peer_t(x.qp, peer.qpn, &peer.gid, 0, 18, 1) ||
	    ibv_post_recv(x.qp, &wr, &bad))
		return 2;
	xwrite(out, "r", 1);
	c = end_wait(&x, 5000) == IBV_WC_SUCCESS && x.buf[0] == 0x5c ? 'y' : 'n';
	xwrite(out, &c, 1);
	xread(in, &c, 1);
	if (c == 'k')
		for (;;)
			pause();
	peer_end_close(&x);
	return 0;
}

/* The process that takes T's slot after it left: opens the device, says
 * its QP's number, waits for a byte. */
static int newcomer(int in, int out)
{
	uint8_t buf[64];
	struct peer_end x;
	char c;

	peer_end_open(&x, IBV_ACCESS_LOCAL_WRITE, buf, sizeof(buf));
	xwrite(out, &x.qp->qp_num, sizeof(uint32_t));
	xread(in, &c, 1);
	peer_end_close(&x);
	return 0;
}

static void run(const char *mode)
{
	int in, out, pid, st;
	uint8_t buf[4096];
	struct peer_hello peer;
	struct peer_end x;
	char c;

	pid = peer_fork(&in, &out);
	if (pid < 0)
		exit(2);
	if (pid == 0)
		_exit(target(in, out));
	peer_end_open(&x, IBV_ACCESS_LOCAL_WRITE, buf, sizeof(buf));
	peer = peer_end_swap(&x, in, out, false);
	CHECK(qp_connect_peer_t(x.qp, peer.qpn, &peer.gid, 0, 18, 1) == 0);
	xread(in, &c, 1);
	memset(x.buf, 0x5c, 64);
	CHECK_EQ(end_send(&x, 64), 0);
	xread(in, &c, 1);
	CHECKM(c == 'y', "%s: the target did not receive the SEND", mode);
	/* Its ACK was dropped: nothing completes before T goes away, which
	 * it does before R's ACK timer (timeout 18: 1.07 s) runs out. */
	CHECK_EQ(end_wait(&x, 150), -1);
	if (strcmp(mode, "kill")) {
		int nin = -1, nout = -1, npid = -1;
		uint32_t nqpn = 0;

		xwrite(out, "d", 1);
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 0);
		if (!strcmp(mode, "reuse")) {
			npid = peer_fork(&nin, &nout);
			if (npid < 0)
				exit(2);
			if (npid == 0)
				_exit(newcomer(nin, nout));
			xread(nin, &nqpn, sizeof(nqpn));
			CHECKM(nqpn == peer.qpn, "reuse: the new process's QP "
			       "is 0x%x, not T's 0x%x (not T's slot)", nqpn,
			       peer.qpn);
		}
		CHECKM(end_wait(&x, 5000) == IBV_WC_SUCCESS, "%s: the SEND the "
		       "target received did not complete successfully", mode);
		CHECK_EQ(end_send(&x, 64), 0);
		CHECK_EQ(end_wait(&x, 5000), IBV_WC_RETRY_EXC_ERR);
		if (npid > 0) {
			xwrite(nout, "e", 1);
			CHECK(waitpid(npid, &st, 0) == npid && WIFEXITED(st) &&
			      WEXITSTATUS(st) == 0);
			close(nin);
			close(nout);
		}
	} else {
		xwrite(out, "k", 1);
		usleep(50000);
		CHECK(kill(pid, SIGKILL) == 0);
		CHECK(waitpid(pid, &st, 0) == pid);
		CHECK_EQ(end_wait(&x, 5000), IBV_WC_RETRY_EXC_ERR);
	}
	peer_end_close(&x);
	close(out);
	close(in);
}

int main(void)
{
	char path[96];

	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-tomb-%d",
		 (int)getpid());
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	alarm(60);
	run("destroy");
	run("reuse");
	run("kill");
	unlink(path);
	return smx_test_done();
}
