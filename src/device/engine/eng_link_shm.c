/* SPDX-License-Identifier: MIT */
/*
 * The shared-memory link between processes (docs/multiprocess.md,
 * docs/transport.md): the QPN names its owner's slot (fw_set_slot). The link
 * carries IBTA packets, one per cell of the owner's inbox (fabric/shm.c): a
 * RoCEv2 packet from the IP header to the ICRC, exactly what the network
 * link puts in a frame. The owner's inbox thread -- or its application's
 * idle pollers (eng_fabric_progress()) -- takes the cells in batches, each
 * sender checked against the process table first, and hands each packet to
 * the packet layer (eng_fabric_rx(): the one decoder, then the responder or
 * the completer).
 *
 * Nothing is dropped by design: a full inbox makes tx_get() say "no room"
 * with this process registered as waiting for room; the owner rings our
 * doorbell when it frees cells, and our inbox thread resumes every QP that
 * was blocked (eng_fabric_resume()). Requests stay in their send queue
 * meanwhile, a responder keeps what it owes (ACK state, READ and atomic
 * responses in its responder resources).
 *
 * The link's own sideband, beside the packets: direct placement records
 * (eng_direct.c: a request cell flagged SMX_CELL_F_DREQ asks for one, and
 * the responder answers with an SMX_CELL_DREC cell after the packet's
 * acknowledgement) and SENDs by reference (SMX_CELL_F_REF: the payload
 * named in the sender's memfd, fab_rx_ref()).
 *
 * ETHERNET (the eth_switch knob): a frame an SQ of this process sends is
 * also copied into the inbox of every other attached process, whose inbox
 * thread runs it through its own NIC receive steering (eng_eth_rx), as a
 * switch floods a frame to all ports; a full inbox loses the frame for that
 * process, counted, as a congested switch port drops.
 *
 * THREADS AND LOCKS. The inbox thread processes cells under fw->lock like
 * any engine pass. Cells are reserved in another process's ring without any
 * lock of that process, and never waited for.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/engine/eng_loc.h"
#include "device/transport/counters.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"
#include "util/log.h"

#define FAB_MAX_BATCH 32u		/* cells per lock hold */
#define FAB_POLLED_PARK_NS 1000000ull	/* inbox thread's park while polled */
#define FAB_POLLED_RECENT_NS 10000000ull /* traffic this recent: polled */
#define FAB_POLLED_PER_MS 200u		/* empty polls per ms: busy polling */
#define FAB_FLUSH_WAIT_NS 1000000000ull	/* closing: peers taking our cells */

static int shm_tx_get(struct eng *e, uint32_t dst, struct eng_link_tx *t)
{
	struct smx_cell *c = smx_shm_reserve(e->shm, dst, 0, &t->pos);

	if (!c)
		return smx_shm_alive(e->shm, dst, NULL) ? 0 : -ENOTCONN;
	t->cell = c;
	t->buf = c->data;
	t->cap = SMX_SHM_INLINE;
	t->dst = dst;
	return 1;
}

static void shm_tx_put(struct eng *e, struct eng_link_tx *t, uint32_t len,
		       uint8_t flags)
{
	struct smx_cell *c = t->cell;

	/* A reservation is published even when given back (a SKIP cell):
	 * the ring position is taken. */
	c->kind = len ? SMX_CELL_PKT : SMX_CELL_SKIP;
	c->flags = flags;
	c->src_slot = e->slot;
	c->src_pid = e->pid;
	c->len = len;
	smx_shm_publish_quiet(e->shm, t->dst, c, t->pos);
	e->ring_mask |= 1ull << t->dst;
}

static uint32_t shm_tx_room(struct eng *e, uint32_t dst)
{
	return smx_shm_room(e->shm, dst);
}

static bool shm_alive(struct eng *e, uint32_t dst)
{
	return smx_shm_alive(e->shm, dst, NULL);
}

static bool shm_stalled(struct eng *e, uint32_t dst, uint64_t since_ns)
{
	return smx_shm_stalled(e->shm, dst, since_ns);
}

const struct eng_link_ops eng_link_shm = {
	.name = "shm",
	.tx_get = shm_tx_get,
	.tx_put = shm_tx_put,
	.tx_room = shm_tx_room,
	.alive = shm_alive,
	.stalled = shm_stalled,
};

void eng_fabric_ring(struct eng *e)
{
	uint64_t m = e->ring_mask;

	if (e->udp)
		eng_udp_flush(e);	/* the network link's batch, too */
	e->ring_mask = 0;
	while (m) {
		uint32_t slot = (uint32_t)__builtin_ctzll(m);

		m &= m - 1;
		smx_shm_ring(e->shm, slot);
	}
}

/* ------------------------------------------------------------------ */
/* The inbox                                                          */
/* ------------------------------------------------------------------ */

/* A reserved cell of ours carrying @len bytes of @kind (not a packet:
 * those are built in place, eng_fabric_tx()). */
static void fab_cell_fill(struct eng *e, struct smx_cell *c, uint8_t kind,
			  const void *data, uint32_t len)
{
	c->kind = kind;
	c->flags = 0;
	c->src_slot = e->slot;
	c->src_pid = e->pid;
	c->len = len;
	memcpy(c->data, data, len);
}

void eng_fabric_eth_flood(struct eng *e, const uint8_t *frame, uint32_t len)
{
	uint32_t s;

	if (!e->shm || !fw_config(e->fw)->eth_switch)
		return;
	if (len > SMX_SHM_INLINE) {
		e->eth_flood_dropped++;
		smx_dbg("engine: eth_switch: a %u-byte frame is over the %u bytes a "
			"cell carries; not flooded", len, SMX_SHM_INLINE);
		return;
	}
	for (s = 0; s < SMX_SHM_SLOTS; s++) {
		struct smx_cell *c;
		uint64_t pos;

		if (s == e->slot)
			continue;
		c = smx_shm_reserve(e->shm, s, 0, &pos);
		if (!c) {
			int32_t pid;

			if (smx_shm_alive(e->shm, s, &pid))
				e->eth_flood_dropped++;	/* alive, inbox full */
			continue;
		}
		fab_cell_fill(e, c, SMX_CELL_ETH, frame, len);
		smx_shm_publish(e->shm, s, c, pos);
	}
}

/* A direct placement record a responder sent us. */
static void fab_rx_drec(struct eng *e, const struct smx_cell *c)
{
	struct smx_drec dr;

	if (c->len != sizeof(dr))
		return;
	memcpy(&dr, c->data, sizeof(dr));
	/* The memfd is opened through /proc/<pid>/fd: the pid must be the
	 * process attached in the slot the cell came from. */
	if (dr.pid != c->src_pid)
		return;
	eng_direct_learn(e, c->src_slot, &dr);
}

/* A record for @slot's engine (SMX_CELL_DREC / RREC): an optimisation,
 * not a message -- no room, no record. */
static void fab_send_rec(struct eng *e, uint32_t slot, uint8_t kind,
			 const void *rec, uint32_t len)
{
	struct smx_cell *c;
	uint64_t pos;

	if (smx_shm_room(e->shm, slot) < 2)
		return;
	c = smx_shm_reserve(e->shm, slot, 0, &pos);
	if (!c)
		return;
	fab_cell_fill(e, c, kind, rec, len);
	smx_shm_publish_quiet(e->shm, slot, c, pos);
	e->ring_mask |= 1ull << slot;
}

void eng_fabric_drec(struct eng *e, uint32_t slot, uint8_t op, uint32_t dqpn,
		     uint32_t rkey)
{
	struct smx_drec dr;

	eng_direct_record(e, op, dqpn, rkey, &dr);
	if (dr.valid)
		fab_send_rec(e, slot, SMX_CELL_DREC, &dr, sizeof(dr));
}

void eng_fabric_rrec(struct eng *e, uint32_t slot, const struct smx_rrec *r)
{
	fab_send_rec(e, slot, SMX_CELL_RREC, r, sizeof(*r));
}

/* A SEND by reference (eng_direct.c): a SEND ONLY header without payload
 * and the reference, checked like the rest of the cell; the responder
 * takes the payload from the sender's memory, mapped here, while the
 * sender's key generation has not moved (a moved one: the cell is lost,
 * and the requester's timer sends the message again). */
static struct eng_qp *fab_rx_ref(struct eng *e, const struct smx_cell *c,
				 struct ibp_hdr *h, const struct roce_l3 *l3)
{
	const struct ibp_op *op = ibp_op(h->opcode);
	struct smx_sref r;
	const uint8_t *at;
	const char *why;

	memcpy(&r, c->data + SMX_SHM_INLINE - sizeof(r), sizeof(r));
	if (!(op->flags & IBP_OF_SEND) || !(op->flags & IBP_OF_FIRST) ||
	    !(op->flags & IBP_OF_LAST) || h->paylen ||
	    c->len > SMX_SHM_INLINE - sizeof(r) || !r.npkts ||
	    r.npkts > (1u << 21) || !r.len) {
		why = "a reference that is not a SEND ONLY without payload";
		goto drop;
	}
	at = eng_direct_sref_map(e, c->src_pid, &r);
	if (!at) {
		why = "the referenced payload cannot be mapped";
		goto drop;
	}
	if (!smx_shm_dbegin(e->shm, c->src_slot, r.gen)) {
		trn_ctr_add(e->ctr, TRN_CTR_RX_SEND_REF_STALE, 1);
		smx_dbg("engine: SEND by reference psn 0x%x from slot %u "
			"dropped: the sender's keys changed since", h->psn,
			c->src_slot);
		return NULL;
	}
	trn_ctr_add(e->ctr, TRN_CTR_RX_PACKETS, r.npkts);
	trn_ctr_add(e->ctr, TRN_CTR_RX_BYTES,
		    (uint64_t)c->len * r.npkts + r.len);
	h->payload = at;
	h->paylen = r.len;
	eng_resp_pkt(e, h, l3, c->src_slot, (c->flags & SMX_CELL_F_DREQ) != 0,
		     r.npkts);
	if (r.len >= ENG_CLOCK_STALE_BYTES)
		eng_clock_tick(e);	/* the copy took a while */
	smx_shm_dend(e->shm);
	return NULL;
drop:
	trn_ctr_add(e->ctr, TRN_CTR_RX_MALFORMED, 1);
	smx_dbg("engine: cell from slot %u dropped: %s", c->src_slot, why);
	return NULL;
}

/* A packet cell of the shared-memory link. */
static struct eng_qp *fab_rx_pkt(struct eng *e, const struct smx_cell *c)
{
	struct roce_l3 l3;
	struct ibp_hdr h;

	if (!(c->flags & SMX_CELL_F_REF))
		return eng_fabric_rx_pkt(e, c->src_slot, c->data, c->len,
					 c->flags);
	if (!eng_fabric_rx_parse(e, c->src_slot, c->data, c->len, c->flags, &h, &l3))
		return NULL;
	return fab_rx_ref(e, c, &h, &l3);
}

/* One cell (fw->lock held): its sender checked against the process table,
 * then handled by kind. Returns the QP whose oldest request can complete
 * now (run at the end of the batch), or NULL. */
static struct eng_qp *fab_rx_cell(struct eng *e, const struct smx_cell *c)
{
	/* The process table says who may send: a cell naming a slot that is
	 * not its sender's is not looked at. */
	if (c->kind != SMX_CELL_SKIP &&
	    (c->src_slot >= SMX_SHM_SLOTS ||
	     !smx_shm_peer(e->shm, c->src_slot, c->src_pid))) {
		smx_dbg("engine: cell from slot %u pid %d dropped: not the "
			"process attached there in our pid namespace",
			c->src_slot, (int)c->src_pid);
	} else if (c->kind == SMX_CELL_PKT && (c->flags & SMX_CELL_F_NET)) {
		return eng_udp_rx_cell(e, c);
	} else if (c->kind == SMX_CELL_PKT) {
		/* A SEND by reference is not a packet on any wire: received
		 * as it is. */
		if (!(c->flags & SMX_CELL_F_REF))
			return eng_fabric_rx(e, c->src_slot, c->src_pid,
					     c->data, c->len, c->flags);
		return fab_rx_pkt(e, c);
	} else if (c->kind == SMX_CELL_ETH) {
		if (c->len >= 14 && c->len <= SMX_SHM_INLINE)
			eng_eth_rx(e, c->data, c->len, NULL);
	} else if (c->kind == SMX_CELL_DREC) {
		fab_rx_drec(e, c);
	} else if (c->kind == SMX_CELL_RREC) {
		struct smx_rrec r;

		if (c->len == sizeof(r)) {
			memcpy(&r, c->data, sizeof(r));
			eng_drq_learn(e, c->src_slot, c->src_pid, &r);
		}
	}
	return NULL;
}

/* Processes up to FAB_MAX_BATCH cells; returns how many. */
static unsigned int fab_drain(struct eng *e)
{
	struct eng_qp *run[FAB_MAX_BATCH];
	unsigned int n = 0, nrun = 0, arrived = 0;
	struct smx_cell *c;
	uint64_t now;
	bool clk, drq;

	/* Direct SENDs placed in our receive queues, or receives to arm
	 * for them (eng_drq.c): looked at first, without the lock. */
	drq = eng_drq_due(e);
	if (!drq && !smx_shm_peek(e->shm))
		return 0;
	fw_lock(e->fw);
	clk = eng_clock_begin(e);
	eng_comp_batch_begin(e);	/* flooded frames' CQEs may compress */
	if (drq)
		arrived = eng_drq_run(e);
	while (n < FAB_MAX_BATCH && (c = smx_shm_peek(e->shm))) {
		struct eng_qp *q = fab_rx_cell(e, c);

		/* the batch's clock: a cell's work is short, a SEND by
		 * reference's copy ticks it (fab_rx_ref()) */
		smx_shm_pop(e->shm, eng_clock(e));
		n++;
		eng_fabric_run_add(run, &nrun, q);
	}
	/* Objects stay valid: fw->lock is held throughout. */
	eng_fabric_rx_end(e, run, nrun);
	eng_loop_run(e);
	now = eng_clock(e);
	eng_clock_end(e, clk);
	fw_unlock(e->fw);
	if (n || arrived)
		__atomic_store_n(&e->traffic_ns, now, __ATOMIC_RELAXED);
	return n + arrived;
}

void eng_fabric_rx_cell(struct eng *e, const struct smx_cell *c)
{
	struct eng_qp *q;
	bool clk;

	fw_lock(e->fw);
	clk = eng_clock_begin(e);
	eng_comp_batch_begin(e);
	q = fab_rx_cell(e, c);
	eng_fabric_rx_end(e, &q, q ? 1 : 0);
	eng_loop_run(e);
	eng_clock_end(e, clk);
	fw_unlock(e->fw);
}

/* Room was made in an inbox we were waiting for (our bell rang): every QP
 * with a packet waiting goes on. */
void eng_fabric_resume(struct eng *e)
{
	struct eng_obj *o;

	fw_lock(e->fw);
	for (o = e->list[ENG_K_QP].next; o != &e->list[ENG_K_QP]; o = o->next) {
		struct eng_qp *q = (struct eng_qp *)o;

		if (q->tx_blocked) {
			q->tx_blocked = false;
			eng_sq_run(e, q);
		}
	}
	eng_resp_flush_all(e);
	eng_fabric_fault_poll(e);
	eng_loop_run(e);
	eng_fabric_ring(e);
	fw_unlock(e->fw);
}

bool eng_fabric_progress(struct eng *e)
{
	bool got;

	if (!e)
		return false;
	if (e->loop && eng_loop_pending(e)) {
		/* packets a command's side effect left on the loopback link */
		fw_lock(e->fw);
		eng_loop_run(e);
		fw_unlock(e->fw);
		return true;
	}
	/* Several pollers may race here: any change will do. */
	__atomic_store_n(&e->polls, __atomic_load_n(&e->polls, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	/* the network link's sockets too (its packets may also come
	 * forwarded through the inbox) */
	got = e->udp && eng_udp_poll(e);
	if (!e->shm)
		return got;
	return fab_drain(e) || got;
}

void eng_fabric_armed(struct eng *e)
{
	__atomic_store_n(&e->polls_armed,
			 __atomic_load_n(&e->polls, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	/* The application is about to wait for an event instead of polling:
	 * producers must wake the inbox thread again, now if cells wait. */
	if (e->shm && smx_shm_unpoll(e->shm))
		smx_shm_kick(e->shm);
}

bool eng_fabric_busy_polled(struct eng *e, uint32_t *seen, uint64_t *seen_ns,
			    uint64_t now)
{
	uint32_t p = __atomic_load_n(&e->polls, __ATOMIC_RELAXED);
	bool busy = p != __atomic_load_n(&e->polls_armed, __ATOMIC_RELAXED) &&
		    (uint64_t)(p - *seen) * 1000000ull >=
		    (now - *seen_ns) * FAB_POLLED_PER_MS;

	*seen = p;
	*seen_ns = now;
	return busy;
}

/*
 * THE INBOX THREAD parks on its futex doorbell when the inbox is empty. While
 * cells keep coming (within FAB_POLLED_RECENT_NS) and the application busy-
 * polls its CQs (FAB_POLLED_PER_MS empty polls since the thread last looked,
 * none armed since), the pollers serve the inbox themselves
 * (eng_fabric_progress()): the thread then parks "polled", for at most
 * FAB_POLLED_PARK_NS, and producers skip the futex wake-up -- on two cores
 * that wake-up, and the context switch it forces on a busy CPU, cost more
 * than the message. A polled park lasts its time even with cells waiting
 * (the pollers take them); when it ends, the thread takes cells only if
 * no poller took any during the park, one batch before it looks again.
 * If the pollers stop without arming, a cell waits two parks at most (the
 * one they stopped in, and the next, which no poller serves); an arm
 * (eng_fabric_armed()) ends the wait at once. An application that waits
 * for events polls a few times per event: far below the rate.
 * Every wake-up also resumes what waited for room in a peer's inbox.
 */
static void *fab_rx_thread(void *arg)
{
	struct eng *e = arg;
	uint64_t last = 0, seen_ns = 0, parked = 0;
	uint32_t seen = 0;
	bool polled = false;

	while (!__atomic_load_n(&e->rx_stop, __ATOMIC_ACQUIRE)) {
		uint64_t now;

		/* Polled: while the pollers took cells during the park, they
		 * serve the inbox, and a second consumer would only fight
		 * them for fw->lock (a futex wait and wake per collision);
		 * else one batch, then a look at the pollers again. */
		if (polled && __atomic_load_n(&e->traffic_ns, __ATOMIC_RELAXED) >=
			      parked) {
			/* served meanwhile */
		} else if (fab_drain(e)) {
			last = eng_now();
			if (!polled)
				continue;
		}
		if (__atomic_exchange_n(&e->resume, false, __ATOMIC_ACQ_REL))
			eng_fabric_resume(e);
		now = eng_now();
		if (!polled && now - last < e->spin_ns) {
			/* Yield rather than pause: with more busy threads
			 * than cores the peer we wait for needs this CPU. */
			sched_yield();
			continue;
		}
		polled = eng_fabric_busy_polled(e, &seen, &seen_ns, now) &&
			 now - __atomic_load_n(&e->traffic_ns, __ATOMIC_RELAXED) <
			 FAB_POLLED_RECENT_NS;
		parked = now;
		smx_shm_wait(e->shm, polled ? FAB_POLLED_PARK_NS : 1000000000ull,
			     polled);
		/* Woken: maybe a peer made room for us, or a reader asks
		 * for our status. */
		__atomic_store_n(&e->resume, true, __ATOMIC_RELEASE);
		eng_status_answer(e);
		last = 0;
	}
	return NULL;
}

void eng_fabric_start(struct eng *e, struct smx_shm *shm)
{
	if (!e)
		return;
	if (!shm) {
		eng_udp_start(e);	/* alone on this host, not on the net */
		return;
	}
	e->spin_ns = eng_env_us("SOFTMLX5_PROGRESS_SPIN_US");
	eng_direct_start(e);
	e->shm = shm;
	e->slot = smx_shm_slot(shm);
	e->pid = (int32_t)getpid();
	e->ctr = smx_shm_counters(shm);
	eng_drq_start(e);
	if (pthread_create(&e->rx_thr, NULL, fab_rx_thread, e) == 0) {
		e->rx_started = true;
	} else {
		smx_err("engine: cannot start the inbox thread; this process is "
			"alone on the device");
		e->shm = NULL;
	}
	eng_udp_start(e);	/* it hands packets to other slots' inboxes */
}

void eng_fabric_stop(struct eng *e)
{
	if (!e->rx_started)
		return;
	/* Our packets still in peers' inboxes are taken before our slot is
	 * freed (a cell of a freed slot is dropped), with our own inbox
	 * thread still serving peers that close at the same time. A UD or
	 * UC sender completes when its packets are out and may leave at
	 * once. */
	smx_shm_flush(e->shm, FAB_FLUSH_WAIT_NS);
	__atomic_store_n(&e->rx_stop, true, __ATOMIC_RELEASE);
	smx_shm_kick(e->shm);
	pthread_join(e->rx_thr, NULL);
	e->rx_started = false;
	eng_status_forget(e);
	eng_direct_fini(e);
	eng_drq_fini(e);
}
