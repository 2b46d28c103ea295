/* SPDX-License-Identifier: MIT */
/*
 * Direct placement of one-sided RDMA between processes (docs/multiprocess.md).
 *
 * Registered, remotely accessible memory is backed by a memfd at its own
 * addresses (fabric/direct.c). When a responder serves an RC RDMA WRITE
 * (without immediate), an RC RDMA READ or atomic from another process and the
 * requester asked for it (smx_msg.want_dr), the response carries a record of
 * what the responder's checks used: the target QP's transport, remote
 * rights (rwe / rre) and log_msg_max, the key's rights and range, where the
 * range lies in which memfd, and the target's key generation. The requester
 * caches it per (slot, QP, rkey).
 *
 * A later WRITE / READ / atomic on the same pair, with the QP's window
 * empty, is then executed by the requester itself: the same checks the
 * responder makes, by the same functions (eng_access.c: QP transport,
 * rwe / rre / rae, message size, 8-byte alignment of atomics; the key's
 * rights and bounds as eng_key_check() has them; PD, key
 * validity, QP state and window binding are what the record was made from,
 * and any change to them moves the generation), then a copy into or out of
 * the peer's memfd, mapped here once (atomics: the responder's lock-free
 * compare-and-swap loop on the shared page, so both stay atomic with each
 * other). No message, no wake-up of the target.
 * Anything that consumes a receive or makes a responder CQE (SEND, WRITE
 * with immediate), other transports, zero-length operations and
 * any failed check take the inbox, whose responder reports the error.
 * Direct operations take no PSN: the responder never sees them, and the
 * requester executes them only when nothing is in flight, so message order
 * is kept.
 *
 * Invalidation: the target bumps its generation (smx_shm_dbump) after every
 * firmware command, UMR, remote invalidation and QP error -- before the
 * command returns -- and waits for accesses begun under the old generation;
 * each access is bracketed by smx_shm_dbegin / dend, which fail on a moved
 * generation. So once DESTROY_MKEY (dereg) returns, no requester writes
 * through the old record. A target that died is noticed after at most a
 * millisecond and ENG_DALIVE_OPS accesses (the clock is read every that
 * many accesses, slot liveness checked at most once a millisecond).
 *
 * Under fw->lock, like every engine pass.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "device/engine/eng_loc.h"
#include "device/fabric/direct.h"
#include "device/transport/pcap.h"
#include "util/fault.h"
#include "util/log.h"

#define ENG_DCACHE 64u
#define ENG_DALIVE_NS 1000000ull	/* liveness re-check period */
#define ENG_DALIVE_OPS 32u

struct eng_dent {
	bool valid;
	bool nomap;		/* mapping failed: keep using the inbox */
	uint32_t slot;
	int8_t map;		/* e->dmap index, -1: not mapped yet */
	uint64_t alive_ns;	/* when the target was last seen alive */
	uint32_t uses;		/* accesses since (the clock is read every
				 * ENG_DALIVE_OPS of them) */
	/* From the record, once (eng_direct_learn()): */
	uint64_t rel;		/* byte @start is at map base + rel */
	uint8_t *at;		/* byte @start here (d->map's mapping), or
				 * NULL until mapped */
	struct smx_drec r;
};

/* Before fork() switches registered memory back for a moment (direct.c):
 * every record a peer holds of it becomes stale. */
static void eng_direct_suspend(void *arg)
{
	eng_direct_bump(arg);
}

void eng_direct_start(struct eng *e)
{
	const char *v = getenv("SOFTMLX5_DIRECT");

	e->direct = !(v && !strcmp(v, "0"));
	v = getenv("SOFTMLX5_DIRECT_SEND");
	e->direct_send = e->direct && !(v && !strcmp(v, "0"));
	smx_direct_enable(e->direct, eng_direct_suspend, e);
}

void eng_direct_fini(struct eng *e)
{
	uint32_t i;

	/* The device closes: no record of ours stays usable, and no region
	 * outlives it (memfds closed, pages private again). */
	eng_direct_bump(e);
	smx_direct_enable(false, NULL, NULL);
	smx_direct_release_all();

	for (i = 0; i < sizeof(e->dmap) / sizeof(e->dmap[0]); i++)
		if (e->dmap[i].base)
			munmap(e->dmap[i].base, e->dmap[i].len);
	for (i = 0; i < SMX_SHM_SLOTS; i++)
		if (e->pidfd[i].fd1)
			close(e->pidfd[i].fd1 - 1);
	memset(e->pidfd, 0, sizeof(e->pidfd));
	memset(e->dmap, 0, sizeof(e->dmap));
	free(e->dcache);
	e->dcache = NULL;
}

void eng_direct_bump(struct eng *e)
{
	if (e && e->shm)
		smx_shm_dbump(e->shm);
}

static uint32_t dhash(uint32_t slot, uint32_t dqpn, uint32_t rkey)
{
	return ((rkey * 2654435761u) ^ (dqpn * 40503u) ^ slot) % ENG_DCACHE;
}

/* The operations direct placement takes (the rest make responder CQEs or
 * consume receives): @len is the message length, atomics' result length. */
static bool deligible(uint8_t op, uint8_t st, bool imm, uint64_t raddr,
		      uint32_t len)
{
	switch (op) {
	case ENG_PKT_CMP_SWAP:
	case ENG_PKT_FETCH_ADD:	/* misaligned: the responder's NAK */
		return st == MLX5_QPC_ST_RC && !(raddr & 7);
	case ENG_PKT_WRITE:
		/* Not UC: its WRITEs complete when their packets are handed
		 * to the link, so one placed now could land before an
		 * earlier one still in the target's inbox. */
		return len && len <= (1u << 31) && !imm && st == MLX5_QPC_ST_RC;
	case ENG_PKT_READ:
		return len && len <= (1u << 31) && st == MLX5_QPC_ST_RC;
	default:
		return false;
	}
}

static inline struct eng_dent *dfind(struct eng *e, uint32_t slot,
				     uint32_t dqpn, uint32_t rkey)
{
	struct eng_dent *d;

	if (!e->dcache)
		return NULL;
	d = &e->dcache[dhash(slot, dqpn, rkey)];
	if (!d->valid || d->slot != slot || d->r.dqpn != dqpn ||
	    d->r.rkey != rkey)
		return NULL;
	return d;
}

/* What direct placement knows for @p: -1 it never takes it, 0 no current
 * record (ask for one), 1 a current record. */
static int dstate(struct eng *e, uint32_t slot, const struct eng_pkt *p)
{
	struct eng_dent *d;

	/* (not on the loopback link: its records are another process's) */
	if (!e->direct || slot == e->slot || eng_dst_net(slot) ||
	    !deligible(p->op, p->st, p->flags & ENG_PKT_F_IMM, p->raddr, p->len))
		return -1;
	d = dfind(e, slot, p->dqpn, p->rkey);
	return d && d->r.gen == smx_shm_dgen(e->shm, slot) ? 1 + d->nomap : 0;
}

bool eng_direct_ready(struct eng *e, uint32_t slot, const struct eng_pkt *p)
{
	return dstate(e, slot, p) == 1;
}

bool eng_direct_want(struct eng *e, uint32_t slot, const struct eng_pkt *p)
{
	return dstate(e, slot, p) == 0;
}

/* ------------------------------------------------------------------ */
/* Responder side                                                     */
/* ------------------------------------------------------------------ */

/* Where the pages of @mk lie in one of our memfds (*@host: the address of
 * its first byte): direct MTT keys over one contiguous run of pages only
 * (the pages of a reg_mr); windows, umem, PA and MEMIC keys are not. */
bool eng_direct_key_memfd(const struct fw_mkey *mk, uint64_t *host, int *fd,
			  uint64_t *ino, uint64_t *rva, uint64_t *rlen)
{
	uint64_t psz, base, last, i;

	if (mk->access_mode != MLX5_MKC_ACCESS_MODE_MTT || mk->umem ||
	    mk->len64 || mk->bound || !mk->len || !mk->mtt)
		return false;
	psz = 1ull << mk->page_shift;
	base = mk->start & ~(psz - 1);
	last = (mk->start + mk->len - 1 - base) >> mk->page_shift;
	if (last >= mk->nmtt || !mk->mtt[0])
		return false;
	for (i = 1; i <= last; i++)
		if (mk->mtt[i] != mk->mtt[0] + i * psz)
			return false;
	*host = mk->mtt[0] + (mk->start - base);
	return smx_direct_find(*host, mk->len, fd, ino, rva, rlen);
}

void eng_direct_record(struct eng *e, uint8_t op, uint32_t dqpn, uint32_t rkey,
		       struct smx_drec *d)
{
	struct fw_qp *qp = fw_qp_lookup(e->fw, dqpn);
	struct fw_mkey *mk = fw_mkey_lookup(e->fw, rkey);
	const struct fw_pd *pd;
	struct eng_racc a;
	uint64_t host, gen;

	memset(d, 0, sizeof(*d));
	if (!e->direct || !qp || !mk || mk->free)
		return;
	if (qp->st != MLX5_QPC_ST_RC)	/* as deligible() */
		return;
	if (!eng_racc_ready(qp))
		return;
	pd = qp->srq ? qp->srq->pd : qp->pd;	/* as resp_chk_qp */
	if (!pd || mk->pd != pd)
		return;
	/* The generation is read before the region is looked up: fork()
	 * moves it without fw->lock (direct.c) and then holds the region
	 * table until the memory is shared again, so a record never claims
	 * a generation newer than the memory it describes. */
	gen = smx_shm_dgen(e->shm, e->slot);
	if (!eng_direct_key_memfd(mk, &host, &d->fd, &d->ino, &d->rva, &d->rlen))
		return;
	(void)op;
	eng_racc_of(qp, &a);
	d->st = a.st;
	d->qp_acc = a.acc;
	d->log_msg = a.log_msg;
	d->key_acc = mk->access;
	d->dqpn = dqpn;
	d->rkey = rkey;
	d->pid = (int32_t)getpid();
	/* Under fw->lock, so every other bump follows the checks above. */
	d->gen = gen;
	d->start = mk->start;
	d->len = mk->len;
	d->host = host;
	d->valid = 1;
}

/* ------------------------------------------------------------------ */
/* Requester side                                                     */
/* ------------------------------------------------------------------ */

void eng_direct_learn(struct eng *e, uint32_t slot, const struct smx_drec *r)
{
	struct eng_dent *d;

	if (!e->direct || !r->valid)
		return;
	if (!e->dcache) {
		e->dcache = calloc(ENG_DCACHE, sizeof(*e->dcache));
		if (!e->dcache)
			return;
	}
	d = &e->dcache[dhash(slot, r->dqpn, r->rkey)];
	memset(d, 0, sizeof(*d));
	/* The key's range must lie inside the memfd's: then every access
	 * inside the key's range is inside the mapping. */
	if (r->host < r->rva || r->host - r->rva > r->rlen ||
	    r->len > r->rlen - (r->host - r->rva))
		return;
	d->r = *r;
	d->slot = slot;
	d->map = -1;
	d->alive_ns = eng_now();
	d->rel = r->host - r->rva;
	d->valid = true;
}

bool eng_direct_peer_alive(struct eng *e, uint32_t slot, int32_t pid)
{
	struct eng_pidfd *c = &e->pidfd[slot % SMX_SHM_SLOTS];
	uint64_t gen = smx_shm_slot_gen(e->shm, slot);
	int32_t now_pid = 0;
	long fd;

	if (c->fd1 && c->pid == pid && c->gen == gen) {
		/* A pidfd turns readable when its process exits: one
		 * system call, no /proc read, no pid reuse. */
		struct pollfd p = { .fd = c->fd1 - 1, .events = POLLIN };

		return poll(&p, 1, 0) == 0;
	}
	if (!smx_shm_alive(e->shm, slot, &now_pid) || now_pid != pid)
		return false;
	if (c->fd1)
		close(c->fd1 - 1);
	c->fd1 = 0;
	fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0) {
		c->fd1 = (int)fd + 1;
		c->pid = pid;
		c->gen = gen;
	}
	return true;
}

/* The peer's memfd mapped here (index into e->dmap), or -1. */
static int dmap_get(struct eng *e, const struct smx_drec *r)
{
	uint32_t n = sizeof(e->dmap) / sizeof(e->dmap[0]), i;
	struct eng_dmap *m;
	char path[64];
	struct stat st;
	void *p;
	int fd;

	for (i = 0; i < n; i++)
		if (e->dmap[i].base && e->dmap[i].pid == r->pid &&
		    e->dmap[i].ino == r->ino && e->dmap[i].len == r->rlen)
			return (int)i;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)r->pid, (int)r->fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (uint64_t)st.st_ino != r->ino ||
	    (uint64_t)st.st_size < r->rlen) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, r->rlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	i = e->dmap_next++ % n;
	m = &e->dmap[i];
	if (m->base) {
		uint32_t k;

		munmap(m->base, m->len);
		for (k = 0; e->dcache && k < ENG_DCACHE; k++)
			if (e->dcache[k].map == (int8_t)i) {
				e->dcache[k].map = -1;
				e->dcache[k].at = NULL;
			}
	}
	m->pid = r->pid;
	m->ino = r->ino;
	m->base = p;
	m->len = r->rlen;
	return (int)i;
}

int eng_direct_map(struct eng *e, int32_t pid, int32_t fd, uint64_t ino,
		   uint64_t rlen)
{
	struct smx_drec r = { .pid = pid, .fd = fd, .ino = ino, .rlen = rlen };

	return dmap_get(e, &r);
}

/*
 * Where in @slot's memory (mapped here) an access of @op lands: every check
 * the responder would make passes (eng_resp.c: CHK_QP, CHK_OP, CHK_RKEY,
 * through eng_racc_op() and eng_key_inside() -- transport, rights of both
 * the QP and the key, message size, bounds; the key's range lies in the
 * mapping, checked in eng_direct_learn()), the
 * target was seen alive lately and its memory is mapped. NULL: take the
 * inbox. *@dp is the record; its generation is checked by the caller's
 * smx_shm_dbegin(), around the copy.
 */
static inline __attribute__((always_inline))
uint8_t *dtarget(struct eng *e, uint32_t slot, uint8_t op, uint8_t st, bool imm,
		 uint32_t dqpn, uint32_t rkey, uint64_t raddr, uint32_t len,
		 struct eng_dent **dp)
{
	bool atomic = op == ENG_PKT_CMP_SWAP || op == ENG_PKT_FETCH_ADD;
	uint64_t alen = atomic ? 8 : len, off, now;
	struct eng_dent *d;
	const struct smx_drec *r;
	struct eng_racc qa;
	uint32_t need;

	if (!e->direct || slot == e->slot || eng_dst_net(slot) ||
	    !deligible(op, st, imm, raddr, len))
		return NULL;
	d = dfind(e, slot, dqpn, rkey);
	if (!d || d->nomap)
		return NULL;
	r = &d->r;
	/* The responder's checks (eng_access.c, eng_key_check()) on what
	 * the record says of the QP and the key. */
	qa = (struct eng_racc){ r->st, r->qp_acc, r->log_msg };
	need = op == ENG_PKT_WRITE ? ENG_ACC_RW :
	       op == ENG_PKT_READ ? ENG_ACC_RR : ENG_ACC_A;
	if (r->st != st ||
	    eng_racc_op(&qa, dqpn, op, raddr, len, NULL, 0) != ENG_RACC_OK ||
	    (need & ~r->key_acc) || !eng_key_inside(r->start, r->len, raddr, alen))
		return NULL;
	off = raddr - r->start;
	if (++d->uses >= ENG_DALIVE_OPS &&
	    (d->uses = 0, now = eng_now()) - d->alive_ns > ENG_DALIVE_NS) {
		if (!eng_direct_peer_alive(e, slot, r->pid)) {
			d->valid = false;
			return NULL;
		}
		d->alive_ns = now;
	}
	if (!d->at) {
		int m = dmap_get(e, r);

		if (m < 0) {
			smx_dbg("engine: cannot map pid %d's memory for direct "
				"placement; using the inbox", (int)r->pid);
			d->nomap = true;
			return NULL;
		}
		d->map = (int8_t)m;
		d->at = e->dmap[m].base + d->rel;
	}
	*dp = d;
	return d->at + off;
}

/* The target's memory for an access, claimed against the target's key
 * generation (smx_shm_dbegin(); the caller ends it with smx_shm_dend()),
 * or NULL: no current record allows it. */
static uint8_t *dclaim(struct eng *e, uint32_t slot, uint8_t op, uint8_t st,
		       bool imm, uint32_t dqpn, uint32_t rkey, uint64_t raddr,
		       uint32_t len)
{
	struct eng_dent *d;
	uint8_t *at = dtarget(e, slot, op, st, imm, dqpn, rkey, raddr, len, &d);

	if (!at)
		return NULL;
	if (!smx_shm_dbegin(e->shm, slot, d->r.gen)) {
		d->valid = false;	/* stale: ask again */
		return NULL;
	}
	return at;
}

bool eng_direct_exec(struct eng *e, const struct eng_pkt *p, uint32_t slot,
		     uint64_t *atomic_orig)
{
	uint8_t *at = dclaim(e, slot, p->op, p->st, p->flags & ENG_PKT_F_IMM,
			     p->dqpn, p->rkey, p->raddr, p->len);
	struct eng_sge s;
	struct eng_sgl one;
	uint64_t done;

	if (!at)
		return false;
	/* The peer's side needs no fault guard: its memfd is ours to map,
	 * allocated whole at registration (fabric/direct.c) and never
	 * truncated, so every page of the key's range is there (the target
	 * unmapping its own view of it does not take it away from us). Our
	 * side -- the WQE's lists -- is the application's memory:
	 * eng_sgl_copy() guards it. */
	if (p->op == ENG_PKT_CMP_SWAP || p->op == ENG_PKT_FETCH_ADD) {
		*atomic_orig = eng_atomic8(p, (uint64_t *)(void *)at);
		smx_shm_dend(e->shm);
		return true;
	}
	s.host = at;
	s.mk = NULL;
	s.va = 0;
	s.len = p->len;
	one.sge = &s;
	one.n = 1;
	one.len = p->len;
	if (p->op == ENG_PKT_WRITE)
		done = eng_sgl_copy(&one, 0, p->payload, 0, p->len);
	else
		done = p->rdata ? eng_sgl_copy(p->rdata, 0, &one, 0, p->len) : 0;
	smx_shm_dend(e->shm);
	return done == p->len;
}

bool eng_direct_rdma(struct eng *e, uint32_t slot, uint8_t op, uint8_t st,
		     uint32_t dqpn, uint32_t rkey, uint64_t raddr, uint32_t len,
		     uint8_t *local, bool app)
{
	uint8_t *at, *dst;
	const uint8_t *src;
	bool ok = true;

	if (op != ENG_PKT_WRITE && op != ENG_PKT_READ)
		return false;
	at = dclaim(e, slot, op, st, false, dqpn, rkey, raddr, len);
	if (!at)
		return false;
	/* memmove: a PA-mode lkey may name our own mapping of the target.
	 * Only @local can fault (eng_direct_exec() says why); inline data
	 * (the fast lane's 8-byte WRITE) skips the guard's ~2 ns. */
	dst = op == ENG_PKT_WRITE ? at : local;
	src = op == ENG_PKT_WRITE ? local : at;
	if (app)
		ok = smx_fault_memmove(dst, src, len);
	else
		memmove(dst, src, len);
	smx_shm_dend(e->shm);
	return ok;
}

/* ------------------------------------------------------------------ */
/* SEND by reference                                                  */
/* ------------------------------------------------------------------ */

/*
 * A SEND's payload is copied twice through cells (into the inbox by the
 * sender, out of it by the receiver). When the payload lies in registered
 * memory that is backed by a memfd (every reg_mr of a process sharing the
 * device, fabric/direct.c), the sender references it instead and the
 * responder copies it straight into the receive buffer, after its own
 * checks of the receive WQE, exactly where the packets' payload would have
 * gone. The message keeps its PSNs, ACK and completion; only the payload's
 * path changes. Not with faults or capture on (the link must see the
 * bytes), nor for inline data, gathers of several pieces, keys that are
 * not one contiguous MTT run, or signature / crypto keys.
 */
#define ENG_SREF_MIN 1024u	/* smaller payloads: the copy is cheap */

const struct eng_kwhere *eng_direct_key_where(struct eng *e,
					      const struct fw_mkey *mk,
					      uint64_t dgen)
{
	struct eng_kwhere *k = &e->kwhere[((uintptr_t)mk >> 6) %
					  ENG_KWHERE_CACHE];
	uint64_t host, rva;

	if (k->mk != mk || k->gen != e->gen || k->dgen != dgen) {
		/* /proc/self/maps is read: once per key and generation */
		memset(k, 0, sizeof(*k));
		k->mk = mk;
		k->gen = e->gen;
		k->dgen = dgen;
		if (!eng_xform(mk) &&
		    eng_direct_key_memfd(mk, &host, &k->fd, &k->ino, &rva,
					 &k->rlen)) {
			k->off0 = host - rva;
			k->ok = true;
		}
	}
	return k->ok ? k : NULL;
}

bool eng_direct_sref(struct eng *e, const struct eng_pkt *p, uint32_t npkts,
		     struct smx_sref *r)
{
	const struct eng_kwhere *k;
	const struct eng_sge *sg;
	uint64_t dgen, at;

	if (!e->direct || !e->shm || e->fault_spec || trn_pcap_on() ||
	    p->op != ENG_PKT_SEND || p->len < ENG_SREF_MIN || !p->payload ||
	    p->payload->n != 1 ||
	    (p->st != MLX5_QPC_ST_RC && p->st != MLX5_QPC_ST_UC &&
	     p->st != MLX5_QPC_ST_XRC))
		return false;
	sg = &p->payload->sge[0];
	if (sg->host || !sg->mk || sg->len < p->len)
		return false;
	/* The generation first (as eng_direct_record): a reference never
	 * claims one newer than the memory it names. */
	dgen = smx_shm_dgen(e->shm, e->slot);
	k = eng_direct_key_where(e, sg->mk, dgen);
	if (!k)
		return false;
	at = sg->va - sg->mk->start;
	if (sg->va < sg->mk->start || at > sg->mk->len ||
	    p->len > sg->mk->len - at)
		return false;
	memset(r, 0, sizeof(*r));
	r->npkts = npkts;
	r->len = p->len;
	r->fd = k->fd;
	r->ino = k->ino;
	r->rlen = k->rlen;
	r->off = k->off0 + at;
	r->gen = dgen;
	return true;
}

const uint8_t *eng_direct_sref_map(struct eng *e, int32_t pid,
				   const struct smx_sref *r)
{
	struct smx_drec d;
	int m;

	if (!e->direct || r->off > r->rlen || r->len > r->rlen - r->off)
		return NULL;
	memset(&d, 0, sizeof(d));
	d.pid = pid;
	d.fd = r->fd;
	d.ino = r->ino;
	d.rlen = r->rlen;
	m = dmap_get(e, &d);
	return m < 0 ? NULL : e->dmap[m].base + r->off;
}
