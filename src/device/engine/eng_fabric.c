/* SPDX-License-Identifier: MIT */
/*
 * The fabric as the engine sees it: a requester hands one message (struct
 * eng_pkt) to the device instance that owns the destination QP.
 *
 * In-process (the destination QPN belongs to this process's slot, or the
 * process is alone): eng_fabric_xmit() runs the responder in the requester's
 * thread, under the same locks, and the response is there when it returns.
 *
 * Between processes (docs/multiprocess.md): the QPN names its owner's slot
 * (fw_set_slot). eng_fabric_send() serialises the message into a cell of the
 * owner's inbox in the shared segment (fabric/shm.c) -- payloads up to
 * SMX_SHM_INLINE bytes inline, larger ones as a list of the requester's
 * already checked memory ranges that the responder moves with cross-memory
 * attach (process_vm_readv/writev) after its own key checks -- and wakes
 * the owner. The requester QP parks (ENG_WAIT_RESP). Each process's inbox
 * thread drains its inbox without the application calling the library: a
 * request runs the responder (eng_resp_rx) and its answer goes back as a
 * response cell (ACK / NAK / RNR, atomic original value, READ data inline or
 * already written into the requester); a response is stored on the parked
 * QP, which is then run again and completes the WQE (eng_sq.c).
 *
 * ETHERNET (the eth_switch knob): a frame an SQ of this process sends is
 * also copied, inline (frames up to SMX_SHM_INLINE bytes), into the inbox
 * of every other attached process, whose inbox thread runs it through its
 * own NIC receive steering (eng_eth_rx), as a switch floods a frame to all
 * ports; a full inbox loses the frame for that process, counted, as a
 * congested switch port drops. Off by default: processes then see only
 * their own frames (and the port's cable).
 *
 * THREADS AND LOCKS. The inbox thread processes cells under fw->lock like
 * any engine pass. Cells are reserved in another process's ring without any
 * lock of that process; a full ring is waited for at most 1 ms, then the
 * message counts as lost (the requester's ACK timer retries), so two
 * processes sending to each other can never deadlock.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "device/engine/eng_loc.h"
#include "util/log.h"

#define FAB_RESERVE_WAIT_NS 1000000ull	/* a full inbox: wait up to 1 ms */
#define FAB_MAX_BATCH 32u		/* cells per lock hold */
#define FAB_POLLED_PARK_NS 1000000ull	/* inbox thread's park while polled */
#define FAB_POLLED_RECENT_NS 10000000ull /* traffic this recent: polled */
#define FAB_POLLED_PER_MS 200u		/* empty polls per ms: busy polling */

static inline void fab_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Called once at engine creation: the GID table is fixed by configuration. */
void eng_fabric_cache_gids(struct eng *e)
{
	const struct smx_config *cfg = fw_config(e->fw);
	uint8_t mine[16];
	uint32_t i;

	e->ngids = 0;
	for (i = 0; i < cfg->gid_tbl_len && e->ngids < 4; i++)
		if (fw_gid(e->fw, i, mine))
			memcpy(e->gids[e->ngids++], mine, 16);
}

bool eng_fabric_gid_local(struct eng *e, const uint8_t gid[16])
{
	uint32_t i;

	for (i = 0; i < e->ngids; i++)
		if (!memcmp(e->gids[i], gid, 16))
			return true;
	return false;
}

void eng_fabric_xmit(struct eng *e, const struct eng_pkt *p,
		     struct eng_resp *r)
{
	memset(r, 0, sizeof(*r));
	eng_resp_rx(e, p, r);
}

int eng_fabric_peer(struct eng *e, uint32_t dqpn)
{
	int slot;

	if (!e->shm)
		return -1;
	slot = smx_shm_qpn_slot(dqpn);
	if (slot < 0 || (uint32_t)slot == e->slot)
		return -1;
	return slot;
}

bool eng_fabric_peer_alive(struct eng *e, uint32_t slot)
{
	return smx_shm_alive(e->shm, slot, NULL);
}

/* ------------------------------------------------------------------ */
/* Cross-memory attach                                                */
/* ------------------------------------------------------------------ */

/* iovecs of @rm for [off, off + len), at most @max; bytes covered. */
static uint64_t rmem_slice(const struct eng_rmem *rm, uint64_t off,
			   uint64_t len, struct iovec *iov, int max, int *np)
{
	uint64_t done = 0;
	uint32_t i;
	int n = 0;

	for (i = 0; i < rm->n && done < len && n < max; i++) {
		uint64_t l = rm->iov[i].len, take;

		if (off >= l) {
			off -= l;
			continue;
		}
		take = l - off;
		if (take > len - done)
			take = len - done;
		iov[n].iov_base = (void *)(uintptr_t)(rm->iov[i].addr + off);
		iov[n].iov_len = take;
		n++;
		done += take;
		off = 0;
	}
	*np = n;
	return done;
}

/* Cuts @iov[0..*n) down to @bytes. */
static void iov_trim(struct iovec *iov, int *n, uint64_t bytes)
{
	uint64_t at = 0;
	int i;

	for (i = 0; i < *n; i++) {
		if (at + iov[i].iov_len >= bytes) {
			iov[i].iov_len = bytes - at;
			*n = i + 1;
			return;
		}
		at += iov[i].iov_len;
	}
}

bool eng_rmem_xfer(const struct eng_sgl *l, uint64_t loff,
		   const struct eng_rmem *rm, uint64_t len, bool to_remote)
{
	uint64_t done = 0;

	while (done < len) {
		struct iovec liov[64], riov[64];
		uint64_t lcov, rcov, n;
		int nl, nr;
		ssize_t got;

		nl = eng_sgl_iov(l, loff + done, len - done, liov, 64, false,
				 &lcov);
		if (nl <= 0 || !lcov)
			return false;
		rcov = rmem_slice(rm, done, lcov, riov, 64, &nr);
		if (!nr || !rcov)
			return false;
		n = lcov < rcov ? lcov : rcov;
		iov_trim(liov, &nl, n);
		iov_trim(riov, &nr, n);
		got = to_remote ?
		      process_vm_writev(rm->pid, liov, (unsigned long)nl, riov,
					(unsigned long)nr, 0) :
		      process_vm_readv(rm->pid, liov, (unsigned long)nl, riov,
				       (unsigned long)nr, 0);
		if (got != (ssize_t)n) {
			smx_dbg("engine: cross-memory %s of %llu bytes with pid "
				"%d failed: %s", to_remote ? "write" : "read",
				(unsigned long long)n, (int)rm->pid,
				got < 0 ? strerror(errno) : "short transfer");
			return false;
		}
		done += n;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Requests out                                                       */
/* ------------------------------------------------------------------ */

void eng_fabric_ring(struct eng *e)
{
	uint64_t m = e->ring_mask;

	e->ring_mask = 0;
	while (m) {
		uint32_t slot = (uint32_t)__builtin_ctzll(m);

		m &= m - 1;
		smx_shm_ring(e->shm, slot);
	}
}

int eng_fabric_send(struct eng *e, struct eng_qp *q, const struct eng_pkt *p,
		    uint32_t slot, uint64_t wait_ns, char *why, size_t whylen)
{
	struct iovec iov[SMX_SHM_MAX_IOV];
	uint64_t covered = 0, pos;
	bool pay_iov = false, rd_iov = false;
	int n = 0, i;
	struct smx_cell *c;
	struct smx_msg *m;
	bool want = eng_direct_want(e, slot, p);
	char f[96];

	/* Describe by reference what does not fit inline (the requester's
	 * memory stays valid: the WQE completes only after the response).
	 * READ data that would leave no room for the direct record asked
	 * for goes by reference too. The peer's cross-memory copy would
	 * fail on a page unmapped here and blame its own memory: probed
	 * first, such a page is this requester's local protection error. */
	if (p->payload && p->len > SMX_SHM_INLINE) {
		n = eng_sgl_iov(p->payload, 0, p->len, iov, SMX_SHM_MAX_IOV,
				true, &covered);
		if (n < 0 || covered != p->len) {
			snprintf(why, whylen, "%u-byte payload cannot be "
				 "described in %u ranges", p->len,
				 SMX_SHM_MAX_IOV);
			return -EINVAL;
		}
		if (!eng_sgl_probe(p->payload, p->len, false)) {
			snprintf(why, whylen, "%u-byte gather list: %s", p->len,
				 eng_fault_why(f, sizeof(f)));
			return -EFAULT;
		}
		pay_iov = true;
	} else if (p->op == ENG_PKT_READ && p->rdata &&
		   (p->len > SMX_SHM_INLINE ||
		    (want && p->len + sizeof(struct smx_drec) > SMX_SHM_INLINE))) {
		n = eng_sgl_iov(p->rdata, 0, p->len, iov, SMX_SHM_MAX_IOV,
				true, &covered);
		if (n < 0 || covered != p->len) {
			snprintf(why, whylen, "%u-byte READ destination cannot "
				 "be described in %u ranges", p->len,
				 SMX_SHM_MAX_IOV);
			return -EINVAL;
		}
		if (!eng_sgl_probe(p->rdata, p->len, true)) {
			snprintf(why, whylen, "%u-byte READ scatter list: %s",
				 p->len, eng_fault_why(f, sizeof(f)));
			return -EFAULT;
		}
		rd_iov = true;
	}
	(void)q;
	/* A request behind others (wait_ns 0) leaves half of the peer's
	 * inbox to responses and to other QPs' first requests: two processes
	 * filling each other's inboxes with requests could otherwise not
	 * answer each other until the 1 ms reserve limit. */
	if (!wait_ns && smx_shm_room(e->shm, slot) <= SMX_SHM_CELLS / 2)
		return -EAGAIN;
	c = smx_shm_reserve(e->shm, slot, wait_ns, &pos);
	if (!c)
		return -EAGAIN;
	m = &c->m;
	memset(m, 0, sizeof(*m));
	m->kind = SMX_MSG_REQ;
	m->op = p->op;
	m->flags = p->flags;
	m->st = p->st;
	m->src_slot = e->slot;
	m->src_pid = (int32_t)getpid();
	m->sqpn = p->sqpn;
	m->dqpn = p->dqpn;
	m->psn = p->psn;
	m->npkts = p->npkts;
	m->len = p->len;
	m->imm = p->imm;
	m->inv_rkey = p->inv_rkey;
	m->qkey = p->qkey;
	m->xrc_srqn = p->xrc_srqn;
	m->dc_key_hi = (uint32_t)(p->dc_key >> 32);
	m->dc_key_lo = (uint32_t)p->dc_key;
	m->rkey = p->rkey;
	m->raddr = p->raddr;
	m->swap_add = p->swap_add;
	m->compare = p->compare;
	m->pkey = p->pkey;
	m->tclass = p->tclass;
	m->hop_limit = p->hop_limit;
	m->flow_label = p->flow_label;
	memcpy(m->sgid, p->sgid, 16);
	memcpy(m->dgid, p->dgid, 16);
	m->token = ++e->token;
	if (want)
		m->flags |= SMX_MSG_F_DR;
	if (pay_iov || rd_iov) {
		struct smx_iov *w = (struct smx_iov *)c->data;

		for (i = 0; i < n; i++) {
			w[i].addr = (uint64_t)(uintptr_t)iov[i].iov_base;
			w[i].len = iov[i].iov_len;
		}
		if (pay_iov) {
			m->pay = SMX_PAY_IOV;
			m->niov = (uint16_t)n;
		} else {
			m->rpay = SMX_PAY_IOV;
			m->nriov = (uint16_t)n;
		}
		m->data_len = (uint32_t)(n * sizeof(*w));
	} else if (p->payload && p->len) {
		struct eng_sge s = { c->data, NULL, 0, p->len };
		struct eng_sgl l = { &s, 1, p->len };

		if (eng_sgl_copy(&l, 0, p->payload, 0, p->len) != p->len) {
			/* A reserved cell must be published: as kind 0,
			 * which the owner skips. */
			snprintf(why, whylen, "%u-byte gather list: %s", p->len,
				 eng_fault_why(f, sizeof(f)));
			m->kind = 0;
			smx_shm_publish_quiet(e->shm, slot, c, pos);
			return -EFAULT;
		}
		m->pay = SMX_PAY_INLINE;
		m->data_len = p->len;
	}
	smx_shm_publish_quiet(e->shm, slot, c, pos);
	e->ring_mask |= 1ull << slot;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The inbox                                                          */
/* ------------------------------------------------------------------ */

static void fab_respond(struct eng *e, const struct smx_msg *req,
			const struct eng_resp *r, const uint8_t *rdata,
			uint32_t rlen, const struct smx_drec *dr)
{
	struct smx_cell *c;
	struct smx_msg *m;
	uint64_t pos;

	c = smx_shm_reserve(e->shm, req->src_slot, FAB_RESERVE_WAIT_NS, &pos);
	if (!c) {
		smx_dbg("engine: response to qp 0x%x (slot %u) lost: inbox full "
			"or process gone", req->sqpn, req->src_slot);
		return;
	}
	if (req->src_slot >= SMX_SHM_SLOTS)
		return;
	m = &c->m;
	memset(m, 0, sizeof(*m));
	m->kind = SMX_MSG_RESP;
	m->op = req->op;
	m->st = req->st;
	m->src_slot = e->slot;
	m->src_pid = (int32_t)getpid();
	m->sqpn = req->dqpn;
	m->dqpn = req->sqpn;
	m->psn = req->psn;
	m->token = req->token;
	m->ack = r->ack;
	m->rnr_timer = r->rnr_timer;
	m->atomic_orig = r->atomic_orig;
	if (rdata && rlen) {
		memcpy(c->data, rdata, rlen);
		m->pay = SMX_PAY_INLINE;
		m->len = rlen;
		m->data_len = rlen;
	}
	if (dr && dr->valid && m->data_len + sizeof(*dr) <= SMX_SHM_INLINE) {
		memcpy(c->data + m->data_len, dr, sizeof(*dr));
		m->data_len += sizeof(*dr);
		m->flags |= SMX_MSG_F_DR;
	}
	smx_shm_publish_quiet(e->shm, req->src_slot, c, pos);
	e->ring_mask |= 1ull << req->src_slot;	/* woken after the batch */
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
		memset(&c->m, 0, sizeof(c->m));
		c->m.kind = SMX_MSG_ETH;
		c->m.src_slot = e->slot;
		c->m.src_pid = (int32_t)getpid();
		c->m.len = len;
		c->m.data_len = len;
		memcpy(c->data, frame, len);
		smx_shm_publish(e->shm, s, c, pos);
	}
}

/* A frame another process's SQ sent (eth_switch): through our steering. */
static void fab_rx_eth(struct eng *e, const struct smx_cell *c)
{
	if (c->m.len < 14 || c->m.len > SMX_SHM_INLINE)
		return;
	eng_eth_rx(e, c->data, c->m.len, NULL);
}

static void fab_rx_request(struct eng *e, struct smx_cell *c)
{
	const struct smx_msg *m = &c->m;
	const struct smx_iov *iov = (const struct smx_iov *)c->data;
	struct eng_pkt p = {
		.op = m->op, .flags = m->flags & ~SMX_MSG_F_DR, .st = m->st,
		.sqpn = m->sqpn, .dqpn = m->dqpn, .psn = m->psn,
		.npkts = m->npkts, .len = m->len, .imm = m->imm,
		.inv_rkey = m->inv_rkey, .qkey = m->qkey,
		.xrc_srqn = m->xrc_srqn, .raddr = m->raddr, .rkey = m->rkey,
		.dc_key = (uint64_t)m->dc_key_hi << 32 | m->dc_key_lo,
		.swap_add = m->swap_add, .compare = m->compare,
		.pkey = m->pkey, .tclass = m->tclass,
		.hop_limit = m->hop_limit, .flow_label = m->flow_label,
	};
	struct eng_sge ps = { c->data, NULL, 0, m->len };
	struct eng_sgl pl = { &ps, 1, m->len };
	struct eng_sge rs = { e->rx_buf, NULL, 0, m->len };
	struct eng_sgl rl = { &rs, 1, m->len };
	struct eng_rmem rpay = { m->src_pid, iov, m->niov };
	struct eng_rmem rrd = { m->src_pid, iov, m->nriov };
	struct eng_resp r;
	struct smx_drec dr;
	bool inline_read = false;

	/* The sender's pid goes to process_vm_*(): it must be the process
	 * attached in the slot it names, in our pid namespace. */
	if (!smx_shm_peer(e->shm, m->src_slot, m->src_pid)) {
		smx_dbg("engine: request from slot %u pid %d dropped: not the "
			"process attached there in our pid namespace",
			m->src_slot, (int)m->src_pid);
		return;
	}
	memcpy(p.sgid, m->sgid, 16);
	memcpy(p.dgid, m->dgid, 16);
	if (m->data_len > SMX_SHM_INLINE ||
	    (m->pay == SMX_PAY_INLINE && m->len > SMX_SHM_INLINE) ||
	    (uint32_t)(m->niov + m->nriov) * sizeof(*iov) > SMX_SHM_INLINE) {
		smx_err("engine: malformed request from slot %u dropped",
			m->src_slot);
		return;
	}
	if (m->pay == SMX_PAY_INLINE)
		p.payload = &pl;
	else if (m->pay == SMX_PAY_IOV)
		p.rpay = &rpay;
	if (m->op == ENG_PKT_READ) {
		if (m->rpay == SMX_PAY_IOV) {
			p.rrdata = &rrd;
		} else if (m->len && m->len <= SMX_SHM_INLINE && e->rx_buf) {
			p.rdata = &rl;
			inline_read = true;
		}
	}
	memset(&r, 0, sizeof(r));
	eng_resp_rx(e, &p, &r);
	dr.valid = 0;
	if ((m->flags & SMX_MSG_F_DR) && r.ack == ENG_ACK_OK)
		eng_direct_record(e, m->op, m->dqpn, m->rkey, &dr);
	fab_respond(e, m, &r, inline_read && r.ack == ENG_ACK_OK ? e->rx_buf :
		    NULL, inline_read ? m->len : 0, &dr);
}

/* Stores a response on the in-flight WQE it answers; returns the QP when
 * its oldest WQE can now complete, else NULL. */
static struct eng_qp *fab_rx_response(struct eng *e, struct smx_cell *c)
{
	const struct smx_msg *m = &c->m;
	struct fw_qp *qp = fw_qp_lookup(e->fw, m->dqpn);
	struct eng_qp *q = qp ? qp->eng : NULL;
	struct eng_out *o = NULL;
	uint32_t i;

	if (q && m->token >= q->token) {
		for (i = 0; i < q->nout; i++) {
			struct eng_out *x = &q->out[(q->out_head + i) &
						    (ENG_SQ_WINDOW - 1)];

			if (x->psn == m->psn) {
				o = x;
				break;
			}
		}
	}
	if (!o || o->have_resp || m->src_slot != o->slot) {
		smx_dbg("engine: stale response for qp 0x%x psn 0x%x dropped",
			m->dqpn, m->psn);
		return NULL;
	}
	if ((m->flags & SMX_MSG_F_DR) && m->ack == ENG_ACK_OK &&
	    m->data_len <= SMX_SHM_INLINE &&
	    m->data_len >= sizeof(struct smx_drec) &&
	    m->data_len - sizeof(struct smx_drec) ==
	    (m->pay == SMX_PAY_INLINE ? m->len : 0)) {
		struct smx_drec dr;

		memcpy(&dr, c->data + m->data_len - sizeof(dr), sizeof(dr));
		eng_direct_learn(e, m->src_slot, &dr);
	}
	o->resp.ack = m->ack;
	o->resp.rnr_timer = m->rnr_timer;
	o->resp.atomic_orig = m->atomic_orig;
	o->resp_data = false;
	if (m->pay == SMX_PAY_INLINE && m->len && m->len <= SMX_SHM_INLINE &&
	    o->rbuf) {
		memcpy(o->rbuf, c->data, m->len);
		o->resp_data = true;
	}
	o->have_resp = true;
	return o == &q->out[q->out_head] ? q : NULL;
}

/* Processes up to FAB_MAX_BATCH cells; returns how many. */
static unsigned int fab_drain(struct eng *e)
{
	struct eng_qp *run[FAB_MAX_BATCH];
	unsigned int n = 0, nrun = 0, i;
	struct smx_cell *c;

	if (!smx_shm_peek(e->shm))
		return 0;
	fw_lock(e->fw);
	eng_comp_batch_begin(e);	/* flooded frames' CQEs may compress */
	while (n < FAB_MAX_BATCH && (c = smx_shm_peek(e->shm))) {
		struct eng_qp *q = NULL;

		if (c->m.kind == SMX_MSG_REQ)
			fab_rx_request(e, c);
		else if (c->m.kind == SMX_MSG_RESP)
			q = fab_rx_response(e, c);
		else if (c->m.kind == SMX_MSG_ETH)
			fab_rx_eth(e, c);
		smx_shm_pop(e->shm);
		n++;
		for (i = 0; q && i < nrun; i++)
			if (run[i] == q)
				q = NULL;
		if (q)
			run[nrun++] = q;
	}
	/* Completions in order, and the next requests of those QPs, once per
	 * batch (objects stay valid: fw->lock is held throughout). */
	for (i = 0; i < nrun; i++)
		eng_sq_run(e, run[i]);
	eng_comp_batch_end(e);
	eng_fabric_ring(e);
	fw_unlock(e->fw);
	if (n)
		__atomic_store_n(&e->traffic_ns, eng_now(), __ATOMIC_RELAXED);
	return n;
}

bool eng_fabric_progress(struct eng *e)
{
	if (!e || !e->shm)
		return false;
	/* Several pollers may race here: any change will do. */
	__atomic_store_n(&e->polls, __atomic_load_n(&e->polls, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	return fab_drain(e);
}

void eng_fabric_armed(struct eng *e)
{
	if (!e->shm)
		return;
	__atomic_store_n(&e->polls_armed,
			 __atomic_load_n(&e->polls, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	/* The application is about to wait for an event instead of polling:
	 * producers must wake the inbox thread again, now if cells wait. */
	if (smx_shm_unpoll(e->shm))
		smx_shm_kick(e->shm);
}

/*
 * THE INBOX THREAD parks on its futex doorbell when the inbox is empty. While
 * cells keep coming (within FAB_POLLED_RECENT_NS) and the application busy-
 * polls its CQs (FAB_POLLED_PER_MS empty polls since the thread last looked,
 * none armed since), the pollers serve the inbox themselves
 * (eng_fabric_progress()): the thread then parks "polled", for at most
 * FAB_POLLED_PARK_NS, and producers skip the futex wake-up -- on two cores
 * that wake-up, and the context switch it forces on a busy CPU, cost more
 * than the message. If the pollers stop without arming, a cell waits that
 * long at most; an arm (eng_fabric_armed()) ends it at once. An application
 * that waits for events polls a few times per event: far below the rate.
 */
static void *fab_rx_thread(void *arg)
{
	struct eng *e = arg;
	uint64_t last = 0, seen_ns = 0;
	uint32_t seen = 0;

	while (!__atomic_load_n(&e->rx_stop, __ATOMIC_ACQUIRE)) {
		uint64_t now;
		uint32_t p;
		bool polled;

		if (fab_drain(e)) {
			last = eng_now();
			continue;
		}
		now = eng_now();
		if (now - last < e->spin_ns) {
			/* Yield rather than pause: with more busy threads
			 * than cores the peer we wait for needs this CPU. */
			sched_yield();
			continue;
		}
		p = __atomic_load_n(&e->polls, __ATOMIC_RELAXED);
		polled = p != __atomic_load_n(&e->polls_armed, __ATOMIC_RELAXED) &&
			 (uint64_t)(p - seen) * 1000000ull >=
			 (now - seen_ns) * FAB_POLLED_PER_MS &&
			 now - __atomic_load_n(&e->traffic_ns, __ATOMIC_RELAXED) <
			 FAB_POLLED_RECENT_NS;
		seen = p;
		seen_ns = now;
		smx_shm_wait(e->shm, polled ? FAB_POLLED_PARK_NS : 1000000000ull,
			     polled);
		last = 0;
	}
	return NULL;
}

void eng_fabric_start(struct eng *e, struct smx_shm *shm)
{
	if (!e || !shm)
		return;
	e->spin_ns = eng_env_us("SOFTMLX5_PROGRESS_SPIN_US");
	e->rx_buf = malloc(SMX_SHM_INLINE);
	if (!e->rx_buf)
		return;
	eng_direct_start(e);
	e->shm = shm;
	e->slot = smx_shm_slot(shm);
	if (pthread_create(&e->rx_thr, NULL, fab_rx_thread, e) == 0) {
		e->rx_started = true;
	} else {
		smx_err("engine: cannot start the inbox thread; this process is "
			"alone on the device");
		e->shm = NULL;
	}
}

void eng_fabric_stop(struct eng *e)
{
	if (!e->rx_started)
		return;
	__atomic_store_n(&e->rx_stop, true, __ATOMIC_RELEASE);
	smx_shm_kick(e->shm);
	pthread_join(e->rx_thr, NULL);
	e->rx_started = false;
	eng_direct_fini(e);
}
