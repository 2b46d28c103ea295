/* SPDX-License-Identifier: MIT */
/*
 * Direct SEND between processes (docs/multiprocess.md, fabric/drq.h).
 *
 * A SEND through the inbox costs a packet into a cell, the responder's
 * parse and checks on the other side, an ACK back and the completer here.
 * An RC QP whose receives go to its own RQ has one source of SENDs, its
 * peer; so its owner can lend the RQ to that peer:
 *
 *   OWNER (receives)                      PEER (sends)
 *   a SEND asking for a record arrives:
 *     open an entry, ARM, answer RREC ->  learn it (per QP)
 *   ARM: each posted receive WQE, its     SEND with nothing in flight:
 *     segments through eng_key_check()      dbegin(owner's generation),
 *     (the responder's check), found in     claim rx[head] (CAS), copy the
 *     a memfd -> rx[tail++]                 gather list into its segments,
 *                                           publish arr[], dend, ring
 *   COLLECT (pollers, the inbox thread,     -> our CQE as for an ACKed SEND
 *     the responder before it takes a
 *     WQE): arr[] in order -> receive CQEs
 *
 * No PSN, no ACK: the data is in place when the peer completes, as with
 * direct WRITE (eng_direct.c), and the peer does it only with nothing in
 * flight, so message order holds; the owner's responder completes what
 * arrived before it takes a WQE of its own (claimed by the same CAS), and
 * refuses (RNR) while a claim is still being filled.
 *
 * Validity: an armed receive names the key generation its checks were
 * made under; every firmware command, UMR and QP error bumps it and waits
 * for peers inside an access (smx_shm_dbump()), so a deregistered buffer
 * or a changed QP is never written through an old arming -- the owner
 * re-arms under the new generation before it gives out a record of it.
 * Taking the queue back (ERR, RESET, destroy) closes the claim counter,
 * bumps, then completes what arrived: the flush that follows sees every
 * WQE either arrived or untouched.
 *
 * Not taken (the SEND goes as packets): UC (its packets complete when
 * sent, so a later direct SEND could pass one still in the inbox), XRC,
 * SRQs, SEND with invalidate, signature / crypto keys on either side,
 * buffers not in a memfd, more than SMX_DRQ_SGE segments, a message
 * longer than the armed receive (the responder reports the error), a
 * fault stage or a capture (the link must see the bytes), the loopback
 * link, SOFTMLX5_DIRECT=0 or SOFTMLX5_DIRECT_SEND=0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/engine/eng_loc.h"
#include "device/transport/counters.h"
#include "device/transport/pcap.h"
#include "util/fault.h"
#include "util/log.h"

#define DRQ_ALIVE_NS 1000000ull	/* peer liveness re-check period */
#define DRQ_ALIVE_OPS 32u
/* After DRQ_PKT_RUN receives in a row taken by packets, only
 * DRQ_IDLE_DEPTH are kept armed. */
#define DRQ_PKT_RUN 16u
#define DRQ_IDLE_DEPTH 2u
/* A SEND this long goes direct even with more WQEs posted behind it:
 * the copy it saves outweighs what packets batch. */
#define DRQ_STREAM_MIN 1024u

static struct smx_drq_ent *drq_ent(struct eng *e, const struct eng_qp *q)
{
	return &e->drq_tab->ent[q->drq_idx];
}

/* Direct SEND is possible on this device now (either side). */
static bool drq_usable(const struct eng *e)
{
	return e->direct_send && e->shm && !e->fault_spec && !trn_pcap_on();
}

/* ------------------------------------------------------------------ */
/* Owner side                                                         */
/* ------------------------------------------------------------------ */

static struct smx_drq_tab *drq_tab_get(struct eng *e)
{
	struct smx_drq_tab *t;
	struct stat st;
	int fd;

	if (e->drq_tab)
		return e->drq_tab;
	fd = memfd_create("softmlx5-drq", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, sizeof(*t)) || fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	t->nent = SMX_DRQ_ENTRIES;
	__atomic_store_n(&t->magic, SMX_DRQ_MAGIC, __ATOMIC_RELEASE);
	e->drq_total = calloc(SMX_DRQ_ENTRIES, sizeof(*e->drq_total));
	if (!e->drq_total) {
		munmap(t, sizeof(*t));
		close(fd);
		return NULL;
	}
	e->drq_fd = fd;
	e->drq_ino = (uint64_t)st.st_ino;
	e->drq_tab = t;
	return t;
}

void eng_drq_fini(struct eng *e)
{
	uint32_t i;

	for (i = 0; i < SMX_SHM_SLOTS; i++)
		if (e->drqmap[i].tab)
			munmap(e->drqmap[i].tab, sizeof(struct smx_drq_tab));
	memset(e->drqmap, 0, sizeof(e->drqmap));
	/* The device closes: peers stop placing (they see the queues
	 * closed and send packets, which find nobody). */
	e->drq_hi = 0;
	memset(e->drq_dbr, 0, sizeof(e->drq_dbr));
	for (i = 0; i < SMX_DRQ_ENTRIES; i++)
		if (e->drq_qp[i]) {
			__atomic_fetch_or(&e->drq_tab->ent[i].head,
					  SMX_DRQ_CLOSED, __ATOMIC_SEQ_CST);
			e->drq_qp[i]->drq_on = false;
			e->drq_qp[i] = NULL;
		}
	if (e->drq_tab) {
		munmap(e->drq_tab, sizeof(*e->drq_tab));
		close(e->drq_fd);
		e->drq_tab = NULL;
		free(e->drq_total);
		e->drq_total = NULL;
	}
}

/* Lends @q's receive queue: a free entry, empty, claims starting at the
 * next receive. */
static bool drq_open(struct eng *e, struct eng_qp *q)
{
	struct fw_qp *qp = q->qp;
	struct smx_drq_tab *t;
	struct smx_drq_ent *d;
	uint32_t i;

	if (q->drq_on)
		return !q->drq_closed;
	if (!drq_usable(e) || qp->st != MLX5_QPC_ST_RC || qp->srq ||
	    !qp->rq_wqes || !qp->dbrec || !qp->rcq || !eng_racc_ready(qp))
		return false;
	t = drq_tab_get(e);
	if (!t)
		return false;
	for (i = 0; i < SMX_DRQ_ENTRIES && e->drq_qp[i]; i++)
		;
	if (i == SMX_DRQ_ENTRIES)
		return false;
	d = &t->ent[i];
	memset(d->rx, 0, sizeof(d->rx));
	memset(d->arr, 0, sizeof(d->arr));
	q->drq_ci = q->rq_ci;
	q->drq_gen = 0;		/* the first arming starts afresh */
	q->drq_tail = q->drq_ci;
	__atomic_store_n(&d->tail, q->drq_ci, __ATOMIC_RELAXED);
	__atomic_store_n(&d->done, q->drq_ci, __ATOMIC_RELAXED);
	__atomic_store_n(&d->stuck, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->head, q->drq_ci, __ATOMIC_RELAXED);
	__atomic_store_n(&d->qpn, qp->obj.id, __ATOMIC_RELEASE);
	q->drq_on = true;
	q->drq_closed = false;
	q->drq_idx = i;
	e->drq_qp[i] = q;
	__atomic_store_n(&e->drq_dbr[i], (const uint32_t *)qp->dbrec,
			 __ATOMIC_RELEASE);
	if (i >= e->drq_hi)
		e->drq_hi = i + 1;
	return true;
}

/* Receive WQE @w checked as the responder's scatter list would be
 * (eng_key_check(), local write, the QP's PD) and found in our memfds. */
static bool drq_arm_one(struct eng *e, struct eng_qp *q, uint64_t gen,
			const struct eng_rwqe *w, struct smx_drq_rx *rx)
{
	char why[8];
	uint32_t i;

	if (w->nseg > SMX_DRQ_SGE)
		return false;
	rx->nseg = w->nseg;
	rx->total = 0;
	for (i = 0; i < w->nseg; i++) {
		const struct mlx5_wqe_data_seg *s = &w->seg[i];
		uint32_t len = be32toh(s->byte_count) & 0x7fffffff;
		uint64_t va = be64toh(s->addr), off;
		const struct eng_kwhere *k;
		struct fw_mkey *mk;

		/* (0 is 2 GiB to the PRM: left to the responder) */
		if (!len || eng_key_check(e, be32toh(s->lkey), q->qp->pd,
					  ENG_ACC_LW, va, len, &mk, why,
					  sizeof(why)) ||
		    !(k = eng_direct_key_where(e, mk, gen)))
			return false;
		off = k->off0 + (va - mk->start);
		if (off > k->rlen || len > k->rlen - off)
			return false;
		rx->seg[i] = (struct smx_drq_seg){ .fd = k->fd, .len = len,
						   .ino = k->ino,
						   .rlen = k->rlen, .off = off };
		rx->total += len;
	}
	return true;
}

/* Arms the receives posted since the last arming, in order, up to
 * SMX_DRQ_DEPTH beyond the last completed. Under a new key generation
 * the old arming is void: it starts again at the claim counter. */
static void drq_arm(struct eng *e, struct eng_qp *q)
{
	struct smx_drq_ent *d = drq_ent(e, q);
	uint64_t gen = smx_shm_dgen(e->shm, e->slot), head, tail, depth;
	uint16_t pi;

	if (q->drq_closed)
		return;
	tail = q->drq_tail;
	if (q->drq_gen != gen) {
		/* No peer holds a record of @gen yet (we give them out
		 * after arming), and none is inside an access under an
		 * older one (the bump waited): the ring is ours from the
		 * claim counter on (the peer's line: read only here; its
		 * word, so kept within what was armed). */
		head = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);
		if (head < q->drq_ci)
			head = q->drq_ci;
		if (head < tail)
			tail = head;
		q->drq_tail = tail;
		__atomic_store_n(&d->tail, tail, __ATOMIC_RELEASE);
		q->drq_gen = gen;
	}
	/* The responder may have taken receives beyond the armed ones. */
	if (tail < q->drq_ci) {
		tail = q->drq_ci;
		q->drq_tail = tail;
		__atomic_store_n(&d->tail, tail, __ATOMIC_RELEASE);
	}
	pi = (uint16_t)be32toh(__atomic_load_n(&q->qp->dbrec[0],
					       __ATOMIC_ACQUIRE));
	/* A peer that sends by packets (a stream of small SENDs, below)
	 * would only see its receives armed for nothing: a few stay armed
	 * for when it places again. */
	depth = q->drq_pkt_run >= DRQ_PKT_RUN ? DRQ_IDLE_DEPTH : SMX_DRQ_DEPTH;
	while ((uint16_t)tail != pi && tail < q->drq_ci + depth) {
		struct smx_drq_rx *rx = &d->rx[tail % SMX_DRQ_DEPTH];
		struct eng_rwqe w;

		__atomic_store_n(&rx->gen, 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		if (!eng_rq_peek(q->qp, (uint16_t)tail, &w) ||
		    !drq_arm_one(e, q, gen, &w, rx)) {
			/* this one, and so the rest, as packets; pollers
			 * stop asking until the responder takes it */
			__atomic_store_n(&d->stuck, tail + 1, __ATOMIC_RELAXED);
			break;
		}
		/* ours to trust at completion (the table is the peer's to
		 * write too) */
		e->drq_total[q->drq_idx][tail % SMX_DRQ_DEPTH] =
			rx->total > UINT32_MAX ? UINT32_MAX : (uint32_t)rx->total;
		/* the index last but the generation: a peer that finds both
		 * finds the segments written */
		__atomic_store_n(&rx->index, tail, __ATOMIC_RELEASE);
		__atomic_store_n(&rx->gen, gen, __ATOMIC_RELEASE);
		q->drq_tail = ++tail;
		__atomic_store_n(&d->tail, tail, __ATOMIC_RELEASE);
	}
}

void eng_drq_collect(struct eng *e, struct eng_qp *q)
{
	struct smx_drq_ent *d = drq_ent(e, q);
	struct fw_qp *qp = q->qp;

	for (;;) {
		struct smx_drq_arr *a = &d->arr[q->drq_ci % SMX_DRQ_DEPTH];
		uint32_t total, uidx, len;
		struct eng_pkt p;

		/* Only a receive we armed (so posted) completes, whatever
		 * the peer's words say. */
		if (__atomic_load_n(&a->seq, __ATOMIC_ACQUIRE) !=
		    (uint32_t)(q->drq_ci + 1) || q->drq_ci >= q->drq_tail)
			return;
		total = e->drq_total[q->drq_idx][q->drq_ci % SMX_DRQ_DEPTH];
		uidx = DEVX_GET(qpc, qp->qpc, user_index);
		len = a->len;
		memset(&p, 0, sizeof(p));
		p.op = ENG_PKT_SEND;
		p.st = qp->st;
		p.sqpn = DEVX_GET(qpc, qp->qpc, remote_qpn);
		p.imm = a->imm;
		if (a->flags & SMX_DRQ_F_IMM)
			p.flags |= ENG_PKT_F_IMM;
		if (a->flags & SMX_DRQ_F_SE)
			p.flags |= ENG_PKT_F_SE;
		q->drq_ci++;
		q->rq_ci++;
		q->drq_pkt_run = 0;
		__atomic_store_n(&d->done, q->drq_ci, __ATOMIC_RELAXED);
		if (len > total) {
			/* A peer that places more than the receive holds
			 * broke the rules: what the responder does with a
			 * message too long for its receive. */
			struct eng_cqe c = {
				.opcode = MLX5_CQE_RESP_ERR,
				.syndrome = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
				.qpn = qp->obj.id,
				.wqe_counter = (uint16_t)(q->rq_ci - 1),
				.srqn_uidx = uidx,
			};

			smx_dbg("engine: qp 0x%x: direct SEND of %u bytes into "
				"receive %u of %u bytes -> local length error",
				qp->obj.id, len, (unsigned int)c.wqe_counter,
				total);
			eng_cqe_post(e, qp->rcq, &c);
			eng_qp_to_err(e, qp);
			return;
		}
		eng_resp_cqe(e, qp, qp->rcq, (uint16_t)(q->rq_ci - 1), uidx,
			     len, &p);
		trn_ctr_add(e->ctr, TRN_CTR_RX_SEND_DIRECT, 1);
	}
}

bool eng_drq_claim(struct eng *e, struct eng_qp *q)
{
	struct smx_drq_ent *d = drq_ent(e, q);
	uint64_t h = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);

	if (h & SMX_DRQ_CLOSED)
		return true;	/* ours again */
	if (h != q->drq_ci) {
		smx_dbg("engine: qp 0x%x: receive %u is still being filled "
			"by the peer; RNR", q->qp->obj.id, (unsigned int)q->rq_ci);
		return false;
	}
	if (!__atomic_compare_exchange_n(&d->head, &h, h + 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	q->drq_ci = h + 1;
	__atomic_store_n(&d->done, q->drq_ci, __ATOMIC_RELAXED);
	if (q->drq_pkt_run < UINT16_MAX)
		q->drq_pkt_run++;
	return true;
}

void eng_drq_close(struct eng *e, struct eng_qp *q, bool release)
{
	struct smx_drq_ent *d;
	uint64_t h;

	if (!q->drq_on)
		return;
	d = drq_ent(e, q);
	h = __atomic_fetch_or(&d->head, SMX_DRQ_CLOSED, __ATOMIC_SEQ_CST);
	q->drq_closed = true;
	if (!(h & SMX_DRQ_CLOSED))
		eng_gen_bump(e);	/* claims under way end first */
	if (!release) {
		eng_drq_collect(e, q);
		return;
	}
	/* (reset or destroyed: what arrived is dropped, as the QP's other
	 * work is) */
	__atomic_store_n(&d->qpn, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&e->drq_dbr[q->drq_idx], NULL, __ATOMIC_RELEASE);
	e->drq_qp[q->drq_idx] = NULL;
	q->drq_on = false;
}

void eng_drq_record(struct eng *e, uint32_t slot, struct fw_qp *qp,
		    uint32_t sqpn)
{
	struct eng_qp *q = eng_qp_of(e, qp);
	struct eng_racc a;
	struct smx_rrec r;

	if (!q || slot == e->slot || !drq_open(e, q))
		return;
	drq_arm(e, q);
	eng_racc_of(qp, &a);
	memset(&r, 0, sizeof(r));
	r.dqpn = qp->obj.id;
	r.sqpn = sqpn;
	r.fd = e->drq_fd;
	r.pid = e->pid;
	r.ino = e->drq_ino;
	r.rlen = sizeof(*e->drq_tab);
	r.gen = q->drq_gen;
	r.idx = q->drq_idx;
	r.st = a.st;
	r.qp_acc = a.acc;
	r.log_msg = a.log_msg;
	eng_fabric_rrec(e, slot, &r);
}

/* Has a peer published the arrival entry @d completes next? */
static bool drq_arrived(const struct smx_drq_ent *d)
{
	uint64_t done = __atomic_load_n(&d->done, __ATOMIC_RELAXED);

	return __atomic_load_n(&d->arr[done % SMX_DRQ_DEPTH].seq,
			       __ATOMIC_RELAXED) == (uint32_t)(done + 1);
}

/* For the inbox thread before it parks (smx_shm_set_pending()). */
static bool drq_pending(void *arg)
{
	struct eng *e = arg;
	uint32_t i, n = __atomic_load_n(&e->drq_hi, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (__atomic_load_n(&e->drq_dbr[i], __ATOMIC_RELAXED) &&
		    drq_arrived(&e->drq_tab->ent[i]))
			return true;
	return false;
}

void eng_drq_start(struct eng *e)
{
	smx_shm_set_pending(e->shm, drq_pending, e);
}

bool eng_drq_due(struct eng *e)
{
	uint32_t i, n = __atomic_load_n(&e->drq_hi, __ATOMIC_ACQUIRE);
	const struct smx_drq_ent *d;
	const uint32_t *dbr;
	uint64_t tail, done;
	uint32_t v;

	/* The arrival word is the peer's only store we need to see: it is
	 * the notification (one cache line from the peer per SEND). */
	if (!n || drq_pending(e))
		return n != 0;
	/* Receives posted and room to arm them: one queue per look, so
	 * that many lent queues cost a poller little. The doorbell record
	 * is the application's (a QP destroyed meanwhile may have taken
	 * it: read through the fault guard; a wrong answer costs one
	 * locked pass). */
	i = __atomic_load_n(&e->drq_rr, __ATOMIC_RELAXED);
	__atomic_store_n(&e->drq_rr, i + 1, __ATOMIC_RELAXED);
	i %= n;
	dbr = __atomic_load_n(&e->drq_dbr[i], __ATOMIC_ACQUIRE);
	if (!dbr)
		return false;
	d = &e->drq_tab->ent[i];
	tail = __atomic_load_n(&d->tail, __ATOMIC_RELAXED);
	done = __atomic_load_n(&d->done, __ATOMIC_RELAXED);
	if (done > tail)
		return true;	/* the responder took the armed ones */
	return tail - done < SMX_DRQ_DEPTH / 2 &&
	       __atomic_load_n(&d->stuck, __ATOMIC_RELAXED) != tail + 1 &&
	       smx_fault_memmove(&v, dbr, sizeof(v)) &&
	       (uint16_t)be32toh(v) != (uint16_t)tail;
}

unsigned int eng_drq_run(struct eng *e)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i < e->drq_hi; i++) {
		struct eng_qp *q = e->drq_qp[i];
		uint64_t ci, armed;

		if (!q)
			continue;
		ci = q->drq_ci;
		eng_drq_collect(e, q);
		n += (unsigned int)(q->drq_ci - ci);
		/* Arming moves the lines the peer reads: after a completion
		 * it waits for a pass of its own (the application is waiting
		 * for this one), unless few receives remain armed. */
		armed = q->drq_tail - q->drq_ci;
		if ((q->drq_ci == ci || armed < SMX_DRQ_DEPTH / 2) &&
		    (q->qp->state == MLX5_QPC_STATE_RTS ||
		     q->qp->state == MLX5_QPC_STATE_RTR))
			drq_arm(e, q);
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Peer side                                                          */
/* ------------------------------------------------------------------ */

/* @slot's table mapped here (its process @pid, memfd @fd / @ino). */
static struct smx_drq_tab *drq_map(struct eng *e, uint32_t slot, int32_t pid,
				   int32_t fd, uint64_t ino, uint64_t rlen)
{
	struct eng_drqmap *m = &e->drqmap[slot];
	struct smx_drq_tab *t;
	char path[64];
	struct stat st;
	int f;

	if (m->tab && m->pid == pid && m->ino == ino)
		return m->tab;
	if (rlen != sizeof(*t))
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, (int)fd);
	f = open(path, O_RDWR | O_CLOEXEC);
	if (f < 0)
		return NULL;
	if (fstat(f, &st) || (uint64_t)st.st_ino != ino ||
	    (uint64_t)st.st_size < sizeof(*t)) {
		close(f);
		return NULL;
	}
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	close(f);
	if (t == MAP_FAILED)
		return NULL;
	if (__atomic_load_n(&t->magic, __ATOMIC_ACQUIRE) != SMX_DRQ_MAGIC) {
		munmap(t, sizeof(*t));
		return NULL;
	}
	if (m->tab) {
		/* The slot has a new owner: records of the old are void. */
		struct eng_obj *o;

		for (o = e->list[ENG_K_QP].next; o != &e->list[ENG_K_QP];
		     o = o->next) {
			struct eng_qp *q = (struct eng_qp *)o;

			if (q->rrec.valid && q->rrec.slot == slot)
				q->rrec.valid = false;
		}
		munmap(m->tab, sizeof(*m->tab));
	}
	m->pid = pid;
	m->ino = ino;
	m->tab = t;
	return t;
}

void eng_drq_learn(struct eng *e, uint32_t slot, int32_t pid,
		   const struct smx_rrec *r)
{
	struct fw_qp *qp = fw_qp_lookup(e->fw, r->sqpn);
	struct smx_drq_tab *t;
	struct eng_qp *q;

	/* Ours, connected to the QP the record is about, in the process
	 * the cell came from. */
	if (!drq_usable(e) || r->pid != pid || slot == e->slot ||
	    slot >= SMX_SHM_SLOTS || r->idx >= SMX_DRQ_ENTRIES || !qp ||
	    qp->st != MLX5_QPC_ST_RC || !(q = eng_qp_of(e, qp)) ||
	    DEVX_GET(qpc, qp->qpc, remote_qpn) != r->dqpn)
		return;
	t = drq_map(e, slot, pid, r->fd, r->ino, r->rlen);
	if (!t)
		return;
	q->rrec.valid = true;
	q->rrec.slot = slot;
	q->rrec.r = *r;
	q->rrec.ent = &t->ent[r->idx];
	q->rrec.alive_ns = eng_now();
	q->rrec.uses = 0;
}

/* Is receive @h armed, under generation @gen? (Its own words say so.) */
static bool drq_armed(const struct smx_drq_ent *d, uint64_t h, uint64_t gen)
{
	const struct smx_drq_rx *rx = &d->rx[h % SMX_DRQ_DEPTH];

	return __atomic_load_n(&rx->gen, __ATOMIC_ACQUIRE) == gen &&
	       __atomic_load_n(&rx->index, __ATOMIC_ACQUIRE) == h;
}

/* Is the SEND one direct SEND takes? */
static bool drq_fits(struct eng *e, uint32_t slot, const struct eng_pkt *p)
{
	uint32_t i;

	if (p->op != ENG_PKT_SEND || p->st != MLX5_QPC_ST_RC ||
	    (p->flags & ENG_PKT_F_INV) || slot == e->slot ||
	    eng_dst_net(slot) || !drq_usable(e))
		return false;
	for (i = 0; p->payload && i < p->payload->n; i++)
		if (p->payload->sge[i].mk && eng_xform(p->payload->sge[i].mk))
			return false;
	return true;
}

/* Does @q hold a current record of the queue @p goes to? */
static bool drq_current(struct eng *e, const struct eng_qp *q, uint32_t slot,
			const struct eng_pkt *p)
{
	const struct eng_rrec *rr = &q->rrec;

	return rr->valid && rr->slot == slot && rr->r.dqpn == p->dqpn &&
	       rr->r.gen == smx_shm_dgen(e->shm, slot);
}

bool eng_drq_want(struct eng *e, struct eng_qp *q, uint32_t slot,
		  const struct eng_pkt *p)
{
	return drq_fits(e, slot, p) && !drq_current(e, q, slot, p);
}

bool eng_drq_ready(struct eng *e, struct eng_qp *q, uint32_t slot,
		   const struct eng_pkt *p)
{
	const struct smx_drq_ent *d = q->rrec.ent;
	uint64_t h;

	if (p->len < DRQ_STREAM_MIN || q->nout >= SMX_DRQ_DEPTH ||
	    !drq_fits(e, slot, p) || !drq_current(e, q, slot, p))
		return false;
	/* The SENDs in flight take the receives before it. */
	h = __atomic_load_n(&d->head, __ATOMIC_RELAXED) + q->nout;
	return !(h & SMX_DRQ_CLOSED) && drq_armed(d, h, q->rrec.r.gen);
}

bool eng_drq_send(struct eng *e, struct eng_qp *q, const struct eng_pkt *p,
		  uint32_t slot, bool more)
{
	struct eng_rrec *rr = &q->rrec;
	struct eng_sge sge[SMX_DRQ_SGE];
	struct eng_racc qa;
	struct smx_drq_ent *d;
	struct smx_drq_arr *a;
	struct smx_drq_rx rx;
	struct eng_sgl dst;
	uint64_t h, now, total;
	uint32_t i;

	/* A stream of small SENDs batches better as packets (cells and
	 * coalesced ACKs) than placed one by one. */
	if ((more && p->len < DRQ_STREAM_MIN) || !drq_fits(e, slot, p) ||
	    !drq_current(e, q, slot, p))
		return false;
	/* The responder's CHK_QP / CHK_OP on what the record says. */
	qa = (struct eng_racc){ rr->r.st, rr->r.qp_acc, rr->r.log_msg };
	if (eng_racc_op(&qa, p->dqpn, ENG_PKT_SEND, 0, p->len, NULL, 0) !=
	    ENG_RACC_OK)
		return false;
	if (++rr->uses >= DRQ_ALIVE_OPS &&
	    (rr->uses = 0, now = eng_now()) - rr->alive_ns > DRQ_ALIVE_NS) {
		if (!eng_direct_peer_alive(e, slot, rr->r.pid)) {
			rr->valid = false;
			return false;
		}
		rr->alive_ns = now;
	}
	if (!smx_shm_dbegin(e->shm, slot, rr->r.gen)) {
		rr->valid = false;	/* stale: the next SEND asks again */
		return false;
	}
	d = rr->ent;
	h = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);
	if ((h & SMX_DRQ_CLOSED) || !drq_armed(d, h, rr->r.gen) ||
	    __atomic_load_n(&d->qpn, __ATOMIC_RELAXED) != p->dqpn)
		goto no;
	/* The armed receive, read once (the owner's words, checked). */
	memcpy(&rx, &d->rx[h % SMX_DRQ_DEPTH], sizeof(rx));
	if (rx.index != h || rx.nseg > SMX_DRQ_SGE)
		goto no;
	for (total = 0, i = 0; i < rx.nseg; i++)
		total += rx.seg[i].len;		/* (not the owner's word) */
	if (total < p->len)
		goto no;
	for (i = 0; i < rx.nseg; i++) {
		const struct smx_drq_seg *s = &rx.seg[i];
		int m;

		if (s->off > s->rlen || s->len > s->rlen - s->off)
			goto no;
		m = eng_direct_map(e, rr->r.pid, s->fd, s->ino, s->rlen);
		if (m < 0)
			goto no;
		sge[i] = (struct eng_sge){ .host = e->dmap[m].base + s->off,
					   .len = s->len };
	}
	dst = (struct eng_sgl){ .sge = sge, .n = rx.nseg, .len = total };
	if (!__atomic_compare_exchange_n(&d->head, &h, h + 1, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		goto no;
	if (p->len && (!p->payload ||
		       eng_sgl_copy(&dst, 0, p->payload, 0, p->len) != p->len)) {
		/* Our gather list faulted: the receive goes back (nobody
		 * else claims while we hold it), the general path reports
		 * the error. */
		uint64_t mine = h + 1;

		__atomic_compare_exchange_n(&d->head, &mine, h, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
		goto no;
	}
	a = &d->arr[h % SMX_DRQ_DEPTH];
	a->len = p->len;
	a->imm = p->imm;
	a->flags = (p->flags & ENG_PKT_F_IMM ? SMX_DRQ_F_IMM : 0) |
		   (p->flags & ENG_PKT_F_SE ? SMX_DRQ_F_SE : 0);
	__atomic_store_n(&a->seq, (uint32_t)(h + 1), __ATOMIC_RELEASE);
	smx_shm_dend(e->shm);
	smx_shm_arrive(e->shm, slot);
	trn_ctr_add(e->ctr, TRN_CTR_TX_SEND_DIRECT, 1);
	return true;
no:
	smx_shm_dend(e->shm);
	return false;
}
