/* SPDX-License-Identifier: MIT */
/*
 * SEND by reference (eng_direct.c, eng_direct_sref()): a SEND of at least
 * 1 KiB whose payload lies in registered memory of a process sharing the
 * device reaches the receiver as one cell naming the payload in the
 * sender's memfd, and the receiver copies it straight into the receive
 * buffer. Nothing either side sees may change. Two processes, one RC QP
 * each (path MTU 1024):
 *
 *  - sizes across the threshold and the MTU (1023 .. 65636 bytes), with and
 *    without immediate, packet-path SENDs between them: data, byte counts,
 *    immediates and completion order; tx_send_by_ref counts exactly the
 *    SENDs of 1 KiB and more.
 *  - stale: the receiver is stopped while a SEND by reference waits in its
 *    inbox, and the sender registers another MR meanwhile (its keys'
 *    generation moves): the receiver drops the reference
 *    (rx_send_ref_stale), the sender's timer sends the message again, and
 *    it lands right.
 *  - a receive too small: LOC_LEN_ERR at the receiver, REM_INV_REQ_ERR at
 *    the sender, as with packets.
 *
 * Direct SEND (eng_drq.c) is off (SOFTMLX5_DIRECT_SEND=0): it would take
 * these SENDs before they became packets. The whole run is made twice: as
 * is, then with SOFTMLX5_DIRECT=0 (every
 * SEND in packets, tx_send_by_ref 0), with the same results. Each run has
 * its own segment ($SOFTMLX5_SHM_PATH); an alarm fails a hang.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "peer_test_util.h"
#include "smx_test.h"

#ifndef SMX_TOOL
#define SMX_TOOL "softmlx5"
#endif

#define BUFSZ (128u * 1024u)

enum { ORD_RECV = 1, ORD_DONE = 2 };

struct order {
	uint32_t op, len, seed;
};

struct result {
	int32_t status;
	uint32_t byte_len, imm, bad_at;
	uint32_t has_imm;
};

static uint8_t pattern(uint32_t seed, uint32_t i)
{
	return (uint8_t)(i * 13 + seed + i / 251);
}

static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i;

	for (i = 0; i < 100000; i++) {
		if (ibv_poll_cq(cq, 1, wc) == 1)
			return 0;
		usleep(50);
	}
	return -1;
}

/* The receiver: posts a receive of the length it is told, reports what
 * completed it and whether the bytes are the pattern. */
static int receiver(int in, int out)
{
	uint8_t *buf = aligned_alloc(4096, BUFSZ);
	struct peer_hello peer;
	struct peer_end x;

	if (!buf)
		return 2;
	peer_end_open(&x, IBV_ACCESS_LOCAL_WRITE, buf, BUFSZ);
	peer = peer_end_swap(&x, in, out, true);
	if (qp_connect_peer(x.qp, peer.qpn, &peer.gid, 0))
		return 2;
	xwrite(out, "r", 1);
	for (;;) {
		struct ibv_sge sge = { (uintptr_t)buf, 0, x.mr->lkey };
		struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
		struct result res = { 0 };
		struct order o;
		struct ibv_wc wc;
		uint32_t i;

		xread(in, &o, sizeof(o));
		if (o.op == ORD_DONE)
			break;
		memset(buf, 0, BUFSZ);
		sge.length = o.len;
		if (ibv_post_recv(x.qp, &wr, &bad))
			return 2;
		xwrite(out, "p", 1);
		if (wait_wc(x.cq, &wc)) {
			res.status = -1;
		} else {
			res.status = wc.status;
			res.byte_len = wc.byte_len;
			res.has_imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
			res.imm = ntohl(wc.imm_data);
			res.bad_at = UINT32_MAX;
			for (i = 0; wc.status == IBV_WC_SUCCESS &&
			     i < wc.byte_len; i++)
				if (buf[i] != pattern(o.seed, i)) {
					res.bad_at = i;
					break;
				}
		}
		xwrite(out, &res, sizeof(res));
	}
	peer_end_close(&x);
	free(buf);
	return 0;
}

static struct peer_end sx;
static int s_in, s_out, s_pid;

/* One SEND of @len bytes (@imm: with immediate); the receiver posts a
 * receive of @rlen. @stale: the receiver is stopped meanwhile and another
 * MR registered. Returns the receiver's result; *@sst the sender's status. */
static struct result one(uint32_t len, uint32_t rlen, bool imm, uint32_t seed,
			 bool stale, int *sst)
{
	struct ibv_sge sge = { (uintptr_t)sx.buf, len, sx.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct order o = { ORD_RECV, rlen, seed };
	struct result res;
	struct ibv_mr *other = NULL;
	struct ibv_wc wc;
	uint32_t i;
	char c;

	wr.imm_data = htonl(0xab000000u | seed);
	for (i = 0; i < len; i++)
		sx.buf[i] = pattern(seed, i);
	xwrite(s_out, &o, sizeof(o));
	xread(s_in, &c, 1);
	if (stale)
		CHECK(stop(s_pid));
	CHECK_EQ(ibv_post_send(sx.qp, &wr, &bad), 0);
	if (stale) {
		/* Let the message reach the stopped receiver's inbox, then
		 * move our keys' generation. */
		usleep(20000);
		other = ibv_reg_mr(sx.pd, sx.buf + BUFSZ - 4096, 4096,
				   IBV_ACCESS_LOCAL_WRITE);
		CHECK(other != NULL);
		CHECK(kill(s_pid, SIGCONT) == 0);
	}
	*sst = wait_wc(sx.cq, &wc) ? -1 : (int)wc.status;
	xread(s_in, &res, sizeof(res));
	if (other)
		ibv_dereg_mr(other);
	return res;
}

static void run(bool direct)
{
	static const struct { uint32_t len; bool imm; } msg[] = {
		{ 1023, false }, { 1024, false }, { 4096, true }, { 100, false },
		{ 5000, false }, { 65536, true }, { 2000, false },
		{ 65636, false }, { 1024, true },
	};
	enum { C_REF, C_STALE, NCNT };
	static const char *const cnt_name[NCNT] = {
		"tx_send_by_ref", "rx_send_ref_stale",
	};
	uint64_t v[NCNT], want_ref = 0;
	bool seen[NCNT];
	struct peer_hello peer;
	struct result r;
	char path[96], why[600], c;
	const char *tool = getenv("SOFTMLX5_TOOL") ? getenv("SOFTMLX5_TOOL") :
			   SMX_TOOL;
	int st, sst;
	unsigned int i;

	snprintf(path, sizeof(path), "/dev/shm/softmlx5-test-sref-%d-%d",
		 (int)getpid(), direct);
	setenv("SOFTMLX5_SHM_PATH", path, 1);
	/* SENDs into receives the peer lent (eng_drq.c) would take most of
	 * these: this test is about the path they leave to packets. */
	setenv("SOFTMLX5_DIRECT_SEND", "0", 1);
	if (direct)
		unsetenv("SOFTMLX5_DIRECT");
	else
		setenv("SOFTMLX5_DIRECT", "0", 1);
	s_pid = peer_fork(&s_in, &s_out);
	if (s_pid < 0)
		exit(2);
	if (s_pid == 0)
		_exit(receiver(s_in, s_out));
	sx.buf = aligned_alloc(4096, BUFSZ);
	CHECK(sx.buf != NULL);
	peer_end_open(&sx, IBV_ACCESS_LOCAL_WRITE, sx.buf, BUFSZ);
	peer = peer_end_swap(&sx, s_in, s_out, false);
	CHECK(qp_connect_peer(sx.qp, peer.qpn, &peer.gid, 0) == 0);
	xread(s_in, &c, 1);

	for (i = 0; i < sizeof(msg) / sizeof(msg[0]); i++) {
		r = one(msg[i].len, BUFSZ, msg[i].imm, i + 1, false, &sst);
		CHECKM(sst == IBV_WC_SUCCESS && r.status == IBV_WC_SUCCESS,
		       "direct=%d: SEND of %u: sender %d, receiver %d", direct,
		       msg[i].len, sst, r.status);
		CHECKM(r.byte_len == msg[i].len && r.bad_at == UINT32_MAX,
		       "direct=%d: SEND of %u: %u bytes, wrong from byte %d",
		       direct, msg[i].len, r.byte_len, (int)r.bad_at);
		CHECKM(r.has_imm == msg[i].imm &&
		       (!msg[i].imm || r.imm == (0xab000000u | (i + 1))),
		       "direct=%d: SEND of %u: immediate %u 0x%x", direct,
		       msg[i].len, r.has_imm, r.imm);
		want_ref += msg[i].len >= 1024;
	}

	/* Stale: dropped once by the receiver, sent again by our timer (by
	 * reference again: two more). */
	r = one(8192, BUFSZ, false, 77, true, &sst);
	CHECKM(sst == IBV_WC_SUCCESS && r.status == IBV_WC_SUCCESS &&
	       r.byte_len == 8192 && r.bad_at == UINT32_MAX,
	       "direct=%d: stale SEND: sender %d, receiver %d, %u bytes, "
	       "wrong from %d", direct, sst, r.status, r.byte_len,
	       (int)r.bad_at);
	want_ref += 2;

	CHECKM(peer_counters_read(tool, cnt_name, NCNT, v, seen, why,
				  sizeof(why)), "counters: %s", why);
	printf("direct=%d: tx_send_by_ref %llu (expected %llu), "
	       "rx_send_ref_stale %llu\n", direct, (unsigned long long)v[C_REF],
	       (unsigned long long)(direct ? want_ref : 0),
	       (unsigned long long)v[C_STALE]);
	CHECKM(v[C_REF] == (direct ? want_ref : 0),
	       "direct=%d: %llu SENDs by reference, expected %llu", direct,
	       (unsigned long long)v[C_REF],
	       (unsigned long long)(direct ? want_ref : 0));
	CHECKM(v[C_STALE] == (direct ? 1 : 0),
	       "direct=%d: %llu stale references dropped", direct,
	       (unsigned long long)v[C_STALE]);

	/* Too long for the receive: both sides' errors as with packets. */
	r = one(4096, 2048, false, 99, false, &sst);
	CHECKM(r.status == IBV_WC_LOC_LEN_ERR && sst == IBV_WC_REM_INV_REQ_ERR,
	       "direct=%d: 4096 bytes into 2048: receiver %s, sender %s",
	       direct, ibv_wc_status_str(r.status),
	       ibv_wc_status_str(sst));

	{
		struct order o = { ORD_DONE, 0, 0 };

		xwrite(s_out, &o, sizeof(o));
	}
	CHECK(waitpid(s_pid, &st, 0) == s_pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	peer_end_close(&sx);
	free(sx.buf);
	close(s_in);
	close(s_out);
	unlink(path);
}

int main(void)
{
	alarm(90);
	run(true);
	run(false);
	return smx_test_done();
}
