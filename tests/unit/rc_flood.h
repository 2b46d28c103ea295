/* SPDX-License-Identifier: MIT */
/*
 * RC traffic between processes for the transport acceptance tests
 * (test_stop, test_fault_rc), through the public verbs API only.
 *
 * A "link" is one connected RC QP pair; its two ends (side 0 and side 1)
 * live in different processes and run the same deterministic plan at each
 * other: op `seq` has a kind (SEND, WRITE, WRITE with immediate, READ,
 * FETCH_ADD on a word only this end adds to, FETCH_ADD on the process's
 * shared word, CMP_SWAP) and a size, both functions of `seq` alone, so
 * each end knows exactly what the other will send it. Every request is
 * signaled with wr_id = seq, every receive WQE has wr_id = its index, so
 * "each WQE completes exactly once, in order" is "the n-th CQE of a queue
 * has wr_id n and there is no CQE after the last".
 *
 * Memory of an end (one MR per process, all remote rights):
 *   out   what this end SENDs / WRITEs, pattern-filled;
 *   in    where the other end's SENDs (receive buffers) and WRITEs land,
 *         at the same offsets as in the sender's out area;
 *   rsrc  what the other end READs, pattern-filled;
 *   rdst  where this end's READs land;
 *   res   the original values its atomics return;
 *   fa1, cas  the words the other end adds to / swaps.
 * The process's first 64 bytes hold the shared word every remote end adds
 * to; the set of values those FETCH_ADDs return must be 0..N-1.
 */
#ifndef SMX_RC_FLOOD_H
#define SMX_RC_FLOOD_H

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "smx_test.h"

enum fk { FK_SEND, FK_WRITE, FK_WIMM, FK_READ, FK_FA1, FK_FAS, FK_CAS };

static const char *const fk_name[] = {
	"SEND", "WRITE", "WRITE_IMM", "READ", "FETCH_ADD", "FETCH_ADD(shared)",
	"CMP_SWAP",
};

#define FLOOD_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* What both ends of every link run. */
struct fcfg {
	const uint8_t *kinds;	/* op seq has kind kinds[seq % nkinds] */
	unsigned int nkinds;
	const uint32_t *sizes;	/* ... and size sizes[(seq / nkinds) % nsizes] */
	unsigned int nsizes;
	unsigned int nops;	/* requests per end */
	unsigned int chunk;	/* posted per round */
	unsigned int gap_us;	/* between rounds */
	enum ibv_mtu mtu;
};

struct fop {
	uint8_t kind;
	uint32_t size;
	uint64_t off;		/* in out/in (SEND, WRITE*) or rsrc/rdst (READ) */
	uint32_t kidx;		/* index among ops of its kind */
	uint32_t aidx;		/* index among atomics (res slot) */
	uint32_t ridx;		/* receive WQE it consumes (SEND, WRITE_IMM) */
};

struct fplan {
	struct fop *op;
	unsigned int n, nrecv, natomic;
	unsigned int count[7];	/* ops per kind */
	uint64_t data_bytes, read_bytes;
	uint32_t *recv_seq;	/* receive index -> op seq */
	const struct fcfg *cfg;
};

static inline uint64_t fl_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static __attribute__((unused)) void fplan_make(struct fplan *p,
					       const struct fcfg *c)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->cfg = c;
	p->n = c->nops;
	p->op = calloc(c->nops, sizeof(*p->op));
	p->recv_seq = calloc(c->nops, sizeof(*p->recv_seq));
	if (!p->op || !p->recv_seq)
		exit(2);
	for (i = 0; i < c->nops; i++) {
		struct fop *o = &p->op[i];

		o->kind = c->kinds[i % c->nkinds];
		o->size = c->sizes[(i / c->nkinds) % c->nsizes];
		o->kidx = p->count[o->kind]++;
		switch (o->kind) {
		case FK_SEND:
		case FK_WIMM:
			o->ridx = p->nrecv;
			p->recv_seq[p->nrecv++] = i;
			/* fall through */
		case FK_WRITE:
			o->off = p->data_bytes;
			p->data_bytes += fl_align(o->size, 64);
			break;
		case FK_READ:
			o->off = p->read_bytes;
			p->read_bytes += fl_align(o->size, 64);
			break;
		default:
			o->size = 8;
			o->aidx = p->natomic++;
			break;
		}
	}
}

/* The byte @i of what side @side of @link sends (side 0/1) or what side
 * @side - 2 reads (2/3) as op @seq. */
static inline uint8_t fl_pat(unsigned int link, unsigned int side,
			     unsigned int seq, uint64_t i)
{
	return (uint8_t)((seq * 131u + (unsigned int)i * 7u + link * 29u +
			  side * 97u + (unsigned int)(i >> 8)) ^ 0x5a);
}

static inline uint64_t fl_fnv(uint64_t h, const uint8_t *p, uint64_t n)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static inline uint64_t fl_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* A process's device, PD and the one MR over all its ends. */
struct fproc {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t size, used;
	union ibv_gid gid;
	int max_rd_atom;
};

/* What an end tells its other end. */
struct fremote {
	uint32_t qpn, rkey;
	union ibv_gid gid;
	uint64_t in, rsrc, fa1, cas, shared;
};

/* QP attributes of an end as a requester. */
struct fqpcfg {
	uint8_t timeout, retry_cnt, rnr_retry;
};

struct fend {
	const char *who;	/* the process, in messages */
	struct fproc *p;
	const struct fplan *pl;
	unsigned int link, side;
	struct fqpcfg qc;
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	uint8_t *out, *in, *rsrc, *rdst;
	uint64_t *res;
	volatile uint64_t *fa1, *cas;
	struct fremote rem;
	/* progress */
	unsigned int posted, sdone, rdone, extra;
	uint64_t next_round_ms;
	/* findings */
	unsigned int bad, shown, failed_wc;
	int first_status;
	uint64_t *shared_vals;	/* what this end's shared FETCH_ADDs returned */
	unsigned int nshared;
	unsigned int outstanding_mark;
	bool no_recv;		/* post no receive WQE (an RNR target) */
	uint8_t min_rnr;	/* as a responder; 0: 1 (10 us) */
};

static __attribute__((unused)) void fproc_open(struct fproc *p, size_t size)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_device_attr da;

	memset(p, 0, sizeof(*p));
	if (!l || !l[0] || !(p->ctx = ibv_open_device(l[0]))) {
		fprintf(stderr, "cannot open the device\n");
		exit(2);
	}
	ibv_free_device_list(l);
	p->pd = ibv_alloc_pd(p->ctx);
	if (!p->pd || ibv_query_gid(p->ctx, 1, 0, &p->gid) ||
	    ibv_query_device(p->ctx, &da))
		exit(2);
	p->max_rd_atom = da.max_qp_rd_atom < 16 ? da.max_qp_rd_atom : 16;
	p->size = fl_align(size + 64, 4096);
	p->buf = mmap(NULL, p->size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->buf == MAP_FAILED)
		exit(2);
	memset(p->buf, 0, p->size);
	p->used = 64;	/* the shared word */
	p->mr = ibv_reg_mr(p->pd, p->buf, p->size, FLOOD_ACCESS);
	if (!p->mr) {
		perror("ibv_reg_mr");
		exit(2);
	}
}

static __attribute__((unused)) size_t fend_bytes(const struct fplan *pl)
{
	return fl_align(2 * pl->data_bytes + 2 * pl->read_bytes +
			8ull * pl->natomic + 128, 4096);
}

static inline volatile uint64_t *fproc_shared(struct fproc *p)
{
	return (volatile uint64_t *)(void *)p->buf;
}

static uint8_t *fproc_take(struct fproc *p, uint64_t n)
{
	uint8_t *r = p->buf + p->used;

	p->used += fl_align(n, 64);
	if (p->used > p->size) {
		fprintf(stderr, "rc_flood: process buffer too small\n");
		exit(2);
	}
	return r;
}

/* Creates the end's CQs and QP and lays out its memory; the QP stays in
 * RESET until fend_connect(). */
static __attribute__((unused)) void fend_init(struct fend *e, struct fproc *p,
					      const struct fplan *pl,
					      unsigned int link,
					      unsigned int side,
					      struct fqpcfg qc)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = pl->n, .max_recv_wr = pl->nrecv + 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	unsigned int i;
	uint64_t j;

	memset(e, 0, sizeof(*e));
	e->p = p;
	e->pl = pl;
	e->link = link;
	e->side = side;
	e->qc = qc;
	e->scq = ibv_create_cq(p->ctx, (int)pl->n + 16, NULL, NULL, 0);
	e->rcq = ibv_create_cq(p->ctx, (int)pl->nrecv + 16, NULL, NULL, 0);
	if (!e->scq || !e->rcq)
		exit(2);
	a.send_cq = e->scq;
	a.recv_cq = e->rcq;
	e->qp = ibv_create_qp(p->pd, &a);
	if (!e->qp) {
		perror("ibv_create_qp");
		exit(2);
	}
	e->out = fproc_take(p, pl->data_bytes);
	e->in = fproc_take(p, pl->data_bytes);
	e->rsrc = fproc_take(p, pl->read_bytes);
	e->rdst = fproc_take(p, pl->read_bytes);
	e->res = (uint64_t *)(void *)fproc_take(p, 8ull * pl->natomic);
	e->fa1 = (volatile uint64_t *)(void *)fproc_take(p, 64);
	e->cas = (volatile uint64_t *)(void *)fproc_take(p, 64);
	e->shared_vals = calloc(pl->count[FK_FAS] + 1, sizeof(uint64_t));
	if (!e->shared_vals)
		exit(2);
	memset(e->in, 0xee, pl->data_bytes);
	memset(e->rdst, 0xee, pl->read_bytes);
	for (i = 0; i < pl->n; i++) {
		const struct fop *o = &pl->op[i];

		if (o->kind == FK_SEND || o->kind == FK_WRITE || o->kind == FK_WIMM)
			for (j = 0; j < o->size; j++)
				e->out[o->off + j] = fl_pat(link, side, i, j);
		else if (o->kind == FK_READ)	/* what the other end reads */
			for (j = 0; j < o->size; j++)
				e->rsrc[o->off + j] = fl_pat(link, 3 - side, i, j);
	}
}

static __attribute__((unused)) struct fremote fend_hello(const struct fend *e)
{
	struct fremote r = {
		.qpn = e->qp->qp_num, .rkey = e->p->mr->rkey, .gid = e->p->gid,
		.in = (uintptr_t)e->in, .rsrc = (uintptr_t)e->rsrc,
		.fa1 = (uintptr_t)e->fa1, .cas = (uintptr_t)e->cas,
		.shared = (uintptr_t)e->p->buf,
	};

	return r;
}

/* RESET -> RTS towards @r, then every receive WQE posted. */
static __attribute__((unused)) int fend_connect(struct fend *e,
						const struct fremote *r)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = FLOOD_ACCESS,
	};
	unsigned int k;

	e->rem = *r;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = e->pl->cfg->mtu;
	a.dest_qp_num = r->qpn;
	a.max_dest_rd_atomic = (uint8_t)e->p->max_rd_atom;
	a.min_rnr_timer = e->min_rnr ? e->min_rnr : 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = r->gid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = e->qc.timeout;
	a.retry_cnt = e->qc.retry_cnt;
	a.rnr_retry = e->qc.rnr_retry;
	a.max_rd_atomic = (uint8_t)e->p->max_rd_atom;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		return -1;
	for (k = 0; !e->no_recv && k < e->pl->nrecv; k++) {
		const struct fop *o = &e->pl->op[e->pl->recv_seq[k]];
		struct ibv_sge sge = { (uintptr_t)(e->in + o->off), o->size,
				       e->p->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = k, .sg_list = &sge,
					  .num_sge = o->kind == FK_SEND &&
						     o->size ? 1 : 0 }, *bad;

		if (ibv_post_recv(e->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

#define FL_SHOW 4	/* findings printed per end */

static void fend_bad(struct fend *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fend_bad(struct fend *e, const char *fmt, ...)
{
	va_list ap;

	e->bad++;
	if (e->shown++ >= FL_SHOW)
		return;
	fprintf(stderr, "  %s link %u side %u (qpn 0x%x): ",
		e->who ? e->who : "", e->link, e->side, e->qp->qp_num);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Posts up to @max more requests; false once posting fails. */
static __attribute__((unused)) bool fend_post(struct fend *e, unsigned int max)
{
	while (max-- && e->posted < e->pl->n) {
		unsigned int seq = e->posted;
		const struct fop *o = &e->pl->op[seq];
		struct ibv_sge sge = { 0, o->size, e->p->mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = seq, .sg_list = &sge, .num_sge = 1,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;
		int rc;

		switch (o->kind) {
		case FK_SEND:
			wr.opcode = IBV_WR_SEND;
			break;
		case FK_WRITE:
			wr.opcode = IBV_WR_RDMA_WRITE;
			break;
		case FK_WIMM:
			wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			wr.imm_data = htonl((e->link << 24) ^ (e->side << 20) ^ seq);
			break;
		case FK_READ:
			wr.opcode = IBV_WR_RDMA_READ;
			break;
		case FK_FA1:
		case FK_FAS:
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			break;
		default:
			wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			break;
		}
		if (o->kind <= FK_WIMM) {
			sge.addr = (uintptr_t)(e->out + o->off);
			wr.wr.rdma.remote_addr = e->rem.in + o->off;
			wr.wr.rdma.rkey = e->rem.rkey;
		} else if (o->kind == FK_READ) {
			sge.addr = (uintptr_t)(e->rdst + o->off);
			wr.wr.rdma.remote_addr = e->rem.rsrc + o->off;
			wr.wr.rdma.rkey = e->rem.rkey;
		} else {
			sge.addr = (uintptr_t)&e->res[o->aidx];
			e->res[o->aidx] = 0xdeadbeefdeadbeefull;
			wr.wr.atomic.rkey = e->rem.rkey;
			wr.wr.atomic.remote_addr = o->kind == FK_FA1 ? e->rem.fa1 :
						   o->kind == FK_FAS ? e->rem.shared :
						   e->rem.cas;
			wr.wr.atomic.compare_add = o->kind == FK_CAS ? o->kidx : 1;
			wr.wr.atomic.swap = o->kidx + 1ull;
		}
		if (!o->size)
			wr.num_sge = 0;
		rc = ibv_post_send(e->qp, &wr, &bad);
		if (rc) {
			fend_bad(e, "ibv_post_send of op %u (%s) failed: %s", seq,
				 fk_name[o->kind], strerror(rc));
			e->posted = e->pl->n;	/* nothing more will come */
			e->sdone = e->pl->n;
			return false;
		}
		e->posted++;
	}
	return true;
}

static const enum ibv_wc_opcode fk_wc[] = {
	IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
	IBV_WC_FETCH_ADD, IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP,
};

static void fend_scqe(struct fend *e, const struct ibv_wc *wc)
{
	unsigned int seq = e->sdone;
	const struct fop *o;
	uint64_t j;

	if (seq >= e->pl->n || wc->wr_id != seq) {
		e->extra += seq >= e->pl->n;
		fend_bad(e, "send CQE wr_id %llu where %u was due (%s)",
			 (unsigned long long)wc->wr_id, seq,
			 ibv_wc_status_str(wc->status));
		if (seq >= e->pl->n)
			return;
	}
	o = &e->pl->op[seq];
	e->sdone++;
	if (wc->status != IBV_WC_SUCCESS) {
		if (!e->failed_wc++)
			e->first_status = wc->status;
		else if (wc->status == IBV_WC_WR_FLUSH_ERR) {
			e->bad++;	/* the flush after the first error */
			return;
		}
		fend_bad(e, "op %u (%s, %u bytes): %s (vendor_err 0x%x)", seq,
			 fk_name[o->kind], o->size,
			 ibv_wc_status_str(wc->status), wc->vendor_err);
		return;
	}
	if (wc->opcode != fk_wc[o->kind])
		fend_bad(e, "op %u (%s): CQE opcode %d", seq, fk_name[o->kind],
			 wc->opcode);
	switch (o->kind) {
	case FK_READ:
		for (j = 0; j < o->size; j++)
			if (e->rdst[o->off + j] != fl_pat(e->link, 2 + e->side, seq, j))
				break;
		if (j < o->size)
			fend_bad(e, "READ op %u (%u bytes): byte %llu is 0x%02x, "
				 "not 0x%02x", seq, o->size,
				 (unsigned long long)j, e->rdst[o->off + j],
				 fl_pat(e->link, 2 + e->side, seq, j));
		break;
	case FK_FA1:
	case FK_CAS:
		/* Alone on that word: it held exactly kidx before. */
		if (e->res[o->aidx] != o->kidx)
			fend_bad(e, "%s op %u: returned %llu, the word held %u",
				 fk_name[o->kind], seq,
				 (unsigned long long)e->res[o->aidx], o->kidx);
		break;
	case FK_FAS:
		if (e->nshared && e->res[o->aidx] <= e->shared_vals[e->nshared - 1])
			fend_bad(e, "shared FETCH_ADD op %u returned %llu after %llu",
				 seq, (unsigned long long)e->res[o->aidx],
				 (unsigned long long)e->shared_vals[e->nshared - 1]);
		e->shared_vals[e->nshared++] = e->res[o->aidx];
		break;
	default:
		break;
	}
}

static void fend_rcqe(struct fend *e, const struct ibv_wc *wc)
{
	unsigned int k = e->rdone, seq;
	const struct fop *o;
	uint64_t j;

	if (k >= e->pl->nrecv || wc->wr_id != k) {
		e->extra += k >= e->pl->nrecv;
		fend_bad(e, "receive CQE wr_id %llu where %u was due (%s)",
			 (unsigned long long)wc->wr_id, k,
			 ibv_wc_status_str(wc->status));
		if (k >= e->pl->nrecv)
			return;
	}
	e->rdone++;
	seq = e->pl->recv_seq[k];
	o = &e->pl->op[seq];
	if (wc->status != IBV_WC_SUCCESS) {
		if (!e->failed_wc++)
			e->first_status = wc->status;
		else if (wc->status == IBV_WC_WR_FLUSH_ERR) {
			e->bad++;
			return;
		}
		fend_bad(e, "receive %u (the other end's op %u, %s): %s", k, seq,
			 fk_name[o->kind], ibv_wc_status_str(wc->status));
		return;
	}
	if (wc->byte_len != o->size)
		fend_bad(e, "receive %u (%s op %u): byte_len %u, sent %u", k,
			 fk_name[o->kind], seq, wc->byte_len, o->size);
	if (o->kind == FK_WIMM) {
		uint32_t want = htonl((e->link << 24) ^ ((1 - e->side) << 20) ^ seq);

		if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    !(wc->wc_flags & IBV_WC_WITH_IMM) || wc->imm_data != want)
			fend_bad(e, "receive %u (WRITE_IMM op %u): opcode %d "
				 "flags 0x%x imm 0x%x", k, seq, wc->opcode,
				 wc->wc_flags, ntohl(wc->imm_data));
		return;
	}
	if (wc->opcode != IBV_WC_RECV || (wc->wc_flags & IBV_WC_WITH_IMM))
		fend_bad(e, "receive %u (SEND op %u): opcode %d flags 0x%x", k,
			 seq, wc->opcode, wc->wc_flags);
	for (j = 0; j < o->size; j++)
		if (e->in[o->off + j] != fl_pat(e->link, 1 - e->side, seq, j))
			break;
	if (j < o->size)
		fend_bad(e, "SEND op %u (%u bytes): byte %llu is 0x%02x, not "
			 "0x%02x", seq, o->size, (unsigned long long)j,
			 e->in[o->off + j], fl_pat(e->link, 1 - e->side, seq, j));
}

/* Polls both CQs once; the number of CQEs seen. */
static __attribute__((unused)) int fend_poll(struct fend *e)
{
	struct ibv_wc wc[16];
	int n, i, got = 0;

	n = ibv_poll_cq(e->scq, 16, wc);
	for (i = 0; i < n; i++)
		fend_scqe(e, &wc[i]);
	got += n > 0 ? n : 0;
	n = ibv_poll_cq(e->rcq, 16, wc);
	for (i = 0; i < n; i++)
		fend_rcqe(e, &wc[i]);
	got += n > 0 ? n : 0;
	return got;
}

static inline bool fend_done(const struct fend *e)
{
	return e->sdone >= e->pl->n && e->rdone >= e->pl->nrecv;
}

/*
 * Runs @n ends until every request and receive completed or @deadline_ms
 * (CLOCK_MONOTONIC, ms) passed: @cfg->chunk requests per end every
 * @cfg->gap_us. @hook, when not NULL, is called after each round's posting
 * with the round number (test_stop stops the process there). True when
 * everything completed.
 */
static __attribute__((unused)) bool flood_run(struct fend *e, unsigned int n,
					      uint64_t deadline_ms,
					      void (*hook)(struct fend *,
							   unsigned int,
							   unsigned int))
{
	const struct fcfg *c = e[0].pl->cfg;
	unsigned int round = 0, i;
	uint64_t next = 0;
	bool all;

	for (;;) {
		uint64_t now = fl_now_ms();
		int got = 0;

		if (now >= next) {
			bool more = false;

			for (i = 0; i < n; i++) {
				fend_post(&e[i], c->chunk);
				more |= e[i].posted < e[i].pl->n;
			}
			if (hook)
				hook(e, n, round);
			round++;
			next = more ? now + c->gap_us / 1000 : UINT64_MAX;
		}
		all = true;
		for (i = 0; i < n; i++) {
			got += fend_poll(&e[i]);
			all &= fend_done(&e[i]);
		}
		if (all || fl_now_ms() > deadline_ms)
			break;
		if (!got)
			usleep(100);
	}
	/* Nothing may complete twice: a last look for stray CQEs. */
	usleep(50000);
	for (i = 0; i < n; i++)
		fend_poll(&e[i]);
	return all;
}

/* One line per end; a CHECK per thing that must hold. */
static __attribute__((unused)) void fend_report(struct fend *e,
						const char *who)
{
	printf("%s link %u side %u (timeout %u): requests %u/%u posted, %u "
	       "completed; receives %u/%u; %u error CQEs%s%s; %u findings\n",
	       who, e->link, e->side, e->qc.timeout, e->posted, e->pl->n,
	       e->sdone, e->rdone, e->pl->nrecv, e->failed_wc,
	       e->failed_wc ? ", first: " : "",
	       e->failed_wc ? ibv_wc_status_str(e->first_status) : "", e->bad);
	CHECKM(e->sdone == e->pl->n, "%s link %u: %u of %u requests completed",
	       who, e->link, e->sdone, e->pl->n);
	CHECKM(e->rdone == e->pl->nrecv, "%s link %u: %u of %u receives "
	       "completed", who, e->link, e->rdone, e->pl->nrecv);
	CHECKM(e->failed_wc == 0, "%s link %u: %u CQEs not successful "
	       "(first: %s)", who, e->link, e->failed_wc,
	       ibv_wc_status_str(e->first_status));
	CHECKM(e->extra == 0, "%s link %u: %u CQEs beyond the last", who,
	       e->link, e->extra);
	CHECKM(e->bad == 0, "%s link %u: %u findings (see above)", who,
	       e->link, e->bad);
}

/* Once the other end's requests all completed: what they left in this
 * end's memory (WRITE data by checksum, the words it added to / swapped). */
static __attribute__((unused)) void fend_check_mem(struct fend *e,
						   const char *who)
{
	const struct fplan *pl = e->pl;
	uint64_t want = 0xcbf29ce484222325ull, got = want;
	unsigned int i, badw = 0, first = 0;
	uint64_t j;

	for (i = 0; i < pl->n; i++) {
		const struct fop *o = &pl->op[i];
		uint8_t tmp[256];
		bool ok = true;

		if (o->kind != FK_WRITE && o->kind != FK_WIMM)
			continue;
		got = fl_fnv(got, e->in + o->off, o->size);
		for (j = 0; j < o->size; j += sizeof(tmp)) {
			uint64_t k, m = o->size - j < sizeof(tmp) ? o->size - j :
								   sizeof(tmp);

			for (k = 0; k < m; k++)
				tmp[k] = fl_pat(e->link, 1 - e->side, i, j + k);
			want = fl_fnv(want, tmp, m);
			ok &= !memcmp(tmp, e->in + o->off + j, m);
		}
		if (!ok && !badw++)
			first = i;
	}
	CHECKM(got == want && !badw, "%s link %u: WRITE data checksum 0x%llx, "
	       "expected 0x%llx; %u of %u WRITEs wrong (first op %u)", who,
	       e->link, (unsigned long long)got, (unsigned long long)want,
	       badw, pl->count[FK_WRITE] + pl->count[FK_WIMM], first);
	CHECKM(*e->fa1 == pl->count[FK_FA1], "%s link %u: FETCH_ADD word %llu,"
	       " %u adds of 1", who, e->link, (unsigned long long)*e->fa1,
	       pl->count[FK_FA1]);
	CHECKM(*e->cas == pl->count[FK_CAS], "%s link %u: CMP_SWAP word %llu, "
	       "%u swaps i -> i+1", who, e->link, (unsigned long long)*e->cas,
	       pl->count[FK_CAS]);
}

static __attribute__((unused)) void fend_destroy(struct fend *e)
{
	CHECK_EQ(ibv_destroy_qp(e->qp), 0);
	CHECK_EQ(ibv_destroy_cq(e->scq), 0);
	CHECK_EQ(ibv_destroy_cq(e->rcq), 0);
	free(e->shared_vals);
}

static __attribute__((unused)) void fproc_close(struct fproc *p)
{
	CHECK_EQ(ibv_dereg_mr(p->mr), 0);
	CHECK_EQ(ibv_dealloc_pd(p->pd), 0);
	CHECK_EQ(ibv_close_device(p->ctx), 0);
	munmap(p->buf, p->size);
}

static __attribute__((unused)) void fplan_free(struct fplan *p)
{
	free(p->op);
	free(p->recv_seq);
}

/* @n values returned by FETCH_ADDs of 1 on one word that started at 0:
 * true when they are exactly 0..n-1, each once. */
static __attribute__((unused)) bool fl_is_perm(const uint64_t *v, unsigned int n)
{
	uint8_t *seen = calloc(n + 1, 1);
	unsigned int i;
	bool ok = seen != NULL;

	for (i = 0; ok && i < n; i++) {
		if (v[i] >= n || seen[v[i]])
			ok = false;
		else
			seen[v[i]] = 1;
	}
	free(seen);
	return ok;
}

#endif
