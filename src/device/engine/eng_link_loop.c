/* SPDX-License-Identifier: MIT */
/*
 * The loopback link in packets: a message between two QPs of this process
 * as the packets of the transport (docs/transport.md) -- segmented at the
 * path MTU, PSN windows, ACKs, the completer, the fault stages, capture --
 * where a NIC would loop them back internally.
 *
 * On when a fault stage or a capture is configured (they must see the
 * packets) or with the key loopback_packets; otherwise a message to a QP of
 * this process is handed to the responder whole (eng_fabric_xmit()), the
 * loopback link's fast path.
 *
 * The link is a ring of LOOP_N packet buffers. Sending fills one; the end
 * of every engine pass (doorbell, inbox batch, watcher scan) receives
 * until the ring is empty -- answers and the requests they let go included
 * -- so a doorbell returns with its messages as far as they can go, as the
 * whole hand-over does. A full ring blocks the requester as a full inbox
 * does; it goes on once the ring has been received. Everything runs under
 * fw->lock; receiving never nests (eng_loop_run() called while it runs
 * returns: the outer loop takes what was added).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "device/config.h"
#include "device/engine/eng_loc.h"
#include "device/trace.h"
#include "device/transport/pcap.h"
#include "util/log.h"

#define LOOP_N 256u		/* packets the ring holds (power of 2) */
#define LOOP_BATCH 32u		/* packets received per end of batch */

struct eng_loop {
	uint8_t *buf;		/* LOOP_N packets of SMX_SHM_INLINE bytes */
	uint32_t len[LOOP_N];
	uint8_t flags[LOOP_N];
	uint32_t head, tail;	/* received, sent */
	bool running;		/* eng_loop_run() is receiving */
	bool blocked;		/* a requester found the ring full */
};

static int loop_tx_get(struct eng *e, uint32_t dst, struct eng_link_tx *t)
{
	struct eng_loop *l = e->loop;

	if (!l->buf && !(l->buf = malloc((size_t)LOOP_N * SMX_SHM_INLINE))) {
		smx_err("engine: loopback link: no memory for its ring");
		return -ENOTCONN;
	}
	if (l->tail - l->head == LOOP_N) {
		l->blocked = true;
		return 0;
	}
	t->buf = l->buf + (size_t)(l->tail % LOOP_N) * SMX_SHM_INLINE;
	t->cap = SMX_SHM_INLINE;
	t->dst = dst;
	t->cell = NULL;
	t->pos = l->tail;
	return 1;
}

static void loop_tx_put(struct eng *e, struct eng_link_tx *t, uint32_t len,
			uint8_t flags)
{
	struct eng_loop *l = e->loop;

	if (!len)
		return;	/* nothing taken: the buffer was only lent */
	l->len[l->tail % LOOP_N] = len;
	l->flags[l->tail % LOOP_N] = flags;
	l->tail++;
}

static uint32_t loop_tx_room(struct eng *e, uint32_t dst)
{
	(void)dst;
	return LOOP_N - (e->loop->tail - e->loop->head);
}

static bool loop_alive(struct eng *e, uint32_t dst)
{
	(void)e;
	(void)dst;
	return true;
}

static bool loop_stalled(struct eng *e, uint32_t dst, uint64_t since_ns)
{
	(void)e;
	(void)dst;
	(void)since_ns;
	return false;	/* it is received in the sender's own pass */
}

const struct eng_link_ops eng_link_loop = {
	.name = "loopback",
	.tx_get = loop_tx_get,
	.tx_put = loop_tx_put,
	.tx_room = loop_tx_room,
	.alive = loop_alive,
	.stalled = loop_stalled,
};

void eng_loop_start(struct eng *e)
{
	e->pid = (int32_t)getpid();
	/* A packet trace shows packets, so there must be some (trace.h). */
	e->loop_pkts = e->fault_spec || trn_pcap_on() || smx_trace_on(SMX_TR_PKT) ||
		       fw_config(e->fw)->loopback_packets;
	if (!e->loop_pkts)
		return;
	e->loop = calloc(1, sizeof(*e->loop));
	if (!e->loop) {
		smx_err("engine: loopback link: no memory; messages between "
			"this process's QPs are handed over whole");
		e->loop_pkts = false;
	}
}

void eng_loop_stop(struct eng *e)
{
	if (e->loop)
		free(e->loop->buf);
	free(e->loop);
	e->loop = NULL;
	e->loop_pkts = false;
}

bool eng_loop_pending(const struct eng *e)
{
	return e->loop && e->loop->head != e->loop->tail;
}

void eng_loop_run(struct eng *e)
{
	struct eng_loop *l = e->loop;

	if (!l || l->running || l->head == l->tail)
		return;
	l->running = true;
	while (l->head != l->tail) {
		struct eng_qp *run[LOOP_BATCH];
		unsigned int n, nrun = 0;

		for (n = 0; n < LOOP_BATCH && l->head != l->tail; n++) {
			uint32_t k = l->head % LOOP_N;
			struct eng_qp *q;

			/* Freed only once received: what receiving sends
			 * finds it still taken, never overwrites it. */
			q = eng_fabric_rx(e, e->slot, e->pid,
					  l->buf + (size_t)k * SMX_SHM_INLINE,
					  l->len[k], l->flags[k]);
			l->head++;
			eng_fabric_run_add(run, &nrun, q);
		}
		eng_fabric_rx_end(e, run, nrun);
		if (l->blocked) {
			l->blocked = false;
			eng_fabric_unblock(e);
		}
	}
	l->running = false;
}
