/* SPDX-License-Identifier: MIT */
/*
 * The device side of fuzz_wqe.h's input convention, in one place for the
 * fuzzer (fuzz_wqe.c) and the differential test (tests/unit/
 * test_diff_wqe.c): the objects a fresh device holds, how an input becomes
 * the send queue (tags patched), the doorbell, and waiting until the device
 * has done all the input asked for.
 *
 *   fzw_open()     a fresh in-process device with the convention's objects
 *   fzw_connect()  its QP to RTS towards @remote_qpn (its own: loopback)
 *   fzw_load()     the input into the ring from WQEBB 0, tags patched, the
 *                  producer counter in the doorbell record
 *   fzw_ring()     the doorbell as an MMIO store (the device executes in
 *                  the caller's thread); without it the watcher finds the
 *                  record (eng_poll() in fzw_drain())
 *   fzw_drain()    polls the CQ into f->cqe until the QP has nothing left
 *                  to do (fzw_idle())
 *   fzw_close()    closes the device (no device thread writes after it)
 *
 * Built with the unit tests' mini-driver (eng_test_util.h); fzw_idle()
 * reads the engine's own counters (eng_loc.h).
 */
#ifndef SMX_FUZZ_WQE_DEV_H
#define SMX_FUZZ_WQE_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "device/engine/eng_loc.h"
#include "device/fabric/direct.h"
#include "eng_test_util.h"
#include "fuzz_wqe.h"

#define FZW_LOG_CQ 8u
#define FZW_MAX_CQES (1u << FZW_LOG_CQ)
#define FZW_NRECV 4u

struct fzw {
	struct t_env env;
	struct t_cq *cq;	/* the QP's send and receive CQ */
	struct t_qp *qp;
	struct t_mr mr;
	uint8_t *buf;		/* FZW_BUF bytes, 64 guard bytes each side */
	uint32_t tag[FZW_NTAGS];
	uint32_t nbb;		/* WQEBBs the input filled */
	uint32_t ncqe;		/* CQEs polled (the first FZW_MAX_CQES kept) */
	uint8_t cqe[FZW_MAX_CQES][64];
};

/* A free UMR-enabled KLM mkey of 8 entries; @sig: signature- and
 * crypto-capable (room for both BSFs). */
static inline uint32_t fzw_klm_key(struct t_env *env, bool sig)
{
	TMB(create_mkey_in) = { 0 };
	TMB(create_mkey_out) = { 0 };
	void *mkc = DEVX_ADDR_OF(create_mkey_in, create_mkey_in, memory_key_mkey_entry);

	DEVX_SET(create_mkey_in, create_mkey_in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	DEVX_SET(mkc, mkc, free, 1);
	DEVX_SET(mkc, mkc, umr_en, 1);
	DEVX_SET(mkc, mkc, lr, 1);
	if (sig) {
		DEVX_SET(mkc, mkc, bsf_en, 1);
		DEVX_SET(mkc, mkc, crypto_en, 1);
		DEVX_SET(mkc, mkc, bsf_octword_size, 8);
	}
	DEVX_SET(mkc, mkc, pd, env->pd);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, translations_octword_size, 8);
	if (t_exec(env->d, create_mkey_in, sizeof(create_mkey_in), create_mkey_out,
		   sizeof(create_mkey_out)))
		return 0;
	return DEVX_GET(create_mkey_out, create_mkey_out, mkey_index) << 8;
}

static inline int fzw_psvs(struct t_env *env, uint32_t *p0, uint32_t *p1)
{
	TMB(create_psv_in) = { 0 };
	TMB(create_psv_out) = { 0 };

	DEVX_SET(create_psv_in, create_psv_in, opcode, MLX5_CMD_OP_CREATE_PSV);
	DEVX_SET(create_psv_in, create_psv_in, num_psv, 2);
	DEVX_SET(create_psv_in, create_psv_in, pd, env->pd);
	if (t_exec(env->d, create_psv_in, sizeof(create_psv_in), create_psv_out,
		   sizeof(create_psv_out)))
		return -1;
	*p0 = DEVX_GET(create_psv_out, create_psv_out, psv0_index);
	*p1 = DEVX_GET(create_psv_out, create_psv_out, psv1_index);
	return 0;
}

/* The tags of fuzz_wqe.h in @len bytes at @p, replaced in place. */
static inline void fzw_patch(uint8_t *p, size_t len,
			     const uint32_t tag[FZW_NTAGS], const uint8_t *buf,
			     uint32_t qpn)
{
	size_t off;

	for (off = 0; off + 8 <= len; off += 8) {
		uint64_t v;

		memcpy(&v, p + off, 8);
		v = be64toh(v);
		if ((v >> 32) != FZW_TAG64)
			continue;
		v = htobe64((uint64_t)(uintptr_t)buf + (v & 0xffffffffu) % FZW_BUF);
		memcpy(p + off, &v, 8);
	}
	for (off = 0; off + 4 <= len; off += 4) {
		uint32_t w;

		memcpy(&w, p + off, 4);
		w = be32toh(w);
		if (w >= FZW_TAG32 && w < FZW_TAG32 + FZW_NTAGS)
			w = tag[w - FZW_TAG32];
		else if ((w >> 24) == FZW_TAG_QPN_DS)
			w = qpn << 8 | (w & 0x3f);
		else
			continue;
		w = htobe32(w);
		memcpy(p + off, &w, 4);
	}
}

/*
 * A fresh device (t_env_open(): the environment's SOFTMLX5_* variables
 * apply) with an RC QP in RESET on one CQ, an MR with every right over @buf
 * (FZW_BUF bytes from t_guarded(); NULL: a new one), a free signature- and
 * crypto-capable KLM mkey, two PSVs, a plain free KLM mkey and FZW_NRECV
 * receives of 1 KiB in the buffer's upper half. 0, or -1 when something
 * could not be made.
 */
static inline int fzw_open(struct fzw *f, uint8_t *buf)
{
	uint32_t i;

	memset(f, 0, sizeof(*f));
	t_env_open(&f->env);
	if (!f->env.d)
		return -1;
	f->cq = t_cq_create(&f->env, FZW_LOG_CQ, 0);
	f->qp = f->cq ? t_qp_create(&f->env, MLX5_QPC_ST_RC, f->cq, f->cq,
				    NULL) : NULL;
	if (!f->qp)
		return -1;
	f->buf = buf ? buf : t_guarded(FZW_BUF);
	/* Remotely accessible, so shareable with other processes' engines
	 * for direct placement, as ibv_reg_mr() makes it (a device of this
	 * process alone: nothing to do). Released at the device's close. */
	smx_direct_back(f->buf, FZW_BUF);
	f->mr = t_mr(&f->env, f->env.pd, f->buf, FZW_BUF, T_ALL);
	f->tag[FZW_MR] = f->mr.key;
	f->tag[FZW_RMR] = f->mr.key;
	f->tag[FZW_SIGKEY] = fzw_klm_key(&f->env, true);
	if (!f->mr.key || !f->tag[FZW_SIGKEY] ||
	    fzw_psvs(&f->env, &f->tag[FZW_PSV0], &f->tag[FZW_PSV1]))
		return -1;
	f->tag[FZW_KLM] = fzw_klm_key(&f->env, false);
	if (!f->tag[FZW_KLM])
		return -1;
	f->tag[FZW_PD] = f->env.pd;
	f->tag[FZW_QPN] = f->qp->qpn;
	for (i = 0; i < FZW_NRECV; i++) {
		struct t_sge s = { f->mr.key, f->buf + FZW_BUF / 2 + i * 1024, 1024 };

		t_post_recv(f->qp, &s, 1);
	}
	return 0;
}

/*
 * The QP to RTS, connected to @remote_qpn whose MR key is @remote_mr (tag
 * FZW_RMR). Loopback (@remote_qpn is the QP's own): the ACK timer is short
 * (8 us, no response is ever late in one thread); towards another process
 * 67 ms, so that a response that is merely late is not retried. RNR NAKs
 * wait 10 us; one RNR and one transport retry.
 */
static inline int fzw_connect(struct fzw *f, uint32_t remote_qpn,
			      uint32_t remote_mr)
{
	struct t_conn c = { .rwe = true, .rre = true, .rae = true,
			    .retry_count = 1, .rnr_retry = 1, .min_rnr_nak = 1 };

	c.remote_qpn = remote_qpn;
	c.timeout = remote_qpn == f->qp->qpn ? 1 : 14;
	f->tag[FZW_RMR] = remote_mr;
	return t_qp_rts(f->qp, &c) ? -1 : 0;
}

/* The input as the ring's contents from WQEBB 0 (at most FZW_MAX_BBS and
 * the ring's size; the rest zero), tags patched, the producer counter set;
 * returns the WQEBBs it takes. */
static inline uint32_t fzw_load(struct fzw *f, const uint8_t *data, size_t size)
{
	struct t_qp *qp = f->qp;
	uint32_t nbb = (uint32_t)((size + 63) / 64);

	if (nbb > FZW_MAX_BBS)
		nbb = FZW_MAX_BBS;
	if (nbb > qp->sq_cnt)
		nbb = qp->sq_cnt;
	memset(qp->sq, 0, (size_t)qp->sq_cnt * 64);
	memcpy(qp->sq, data, size < (size_t)nbb * 64 ? size : (size_t)nbb * 64);
	fzw_patch(qp->sq, (size_t)nbb * 64, f->tag, f->buf, qp->qpn);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	qp->db[1] = htobe32(nbb & 0xffff);
	f->nbb = nbb;
	return nbb;
}

/* The send doorbell: one MMIO store of the ring's first 8 bytes. */
static inline void fzw_ring(struct fzw *f)
{
	uint64_t db;

	memcpy(&db, f->qp->sq, 8);
	smx_dev_mmio_write64(f->env.d, (uint64_t)f->env.uar * 4096 + 0x800, db);
}

/* Polls every CQE there is into f->cqe; returns how many. */
static inline uint32_t fzw_poll(struct fzw *f)
{
	struct mlx5_cqe64 c;
	uint32_t n = 0;

	while (t_poll(f->cq, &c)) {
		if (f->ncqe < FZW_MAX_CQES)
			memcpy(f->cqe[f->ncqe], &c, 64);
		f->ncqe++;
		n++;
	}
	return n;
}

/*
 * Whether the QP has nothing left to do: in ERR, every WQE and receive
 * flushed; otherwise every WQE posted completed, nothing in flight, no
 * timer (RNR, ACK) pending. A responder that owes another process packets
 * is not asked: the requester's own completion comes after them.
 */
static inline bool fzw_idle(struct fzw *f)
{
	struct fw *fw = smx_dev_fw(f->env.d);
	struct fw_qp *qp;
	struct eng_qp *q;
	uint16_t sq_pi, rq_pi;
	bool idle = true;

	fw_lock(fw);
	qp = fw_qp_lookup(fw, f->qp->qpn);
	q = qp ? qp->eng : NULL;
	if (q && qp->dbrec) {
		sq_pi = (uint16_t)be32toh(qp->dbrec[1]);
		rq_pi = (uint16_t)be32toh(qp->dbrec[0]);
		if (qp->state == MLX5_QPC_STATE_ERR)
			idle = q->sq_ci == sq_pi && q->rq_ci == rq_pi;
		else if (qp->state == MLX5_QPC_STATE_RTS)
			idle = q->sq_ci == sq_pi && !q->nout &&
			       q->wait == ENG_WAIT_NONE;
	}
	fw_unlock(fw);
	return idle;
}

/*
 * Lets the device finish: watcher passes (eng_poll(): doorbells found in
 * the record, expired RNR / ACK timers, flushes) and CQ polls until
 * fzw_idle(), for at most @ms milliseconds. True when idle.
 */
static inline bool fzw_drain(struct fzw *f, unsigned int ms)
{
	struct eng *e = smx_dev_eng(f->env.d);
	uint64_t end = eng_now() + (uint64_t)ms * 1000000u;
	const struct timespec nap = { 0, 20000 };

	for (;;) {
		fzw_poll(f);
		if (fzw_idle(f)) {
			fzw_poll(f);
			return true;
		}
		if (eng_now() > end)
			return false;
		eng_poll(e);
		nanosleep(&nap, NULL);
	}
}

static inline void fzw_close(struct fzw *f)
{
	smx_dev_close(f->env.d);
	f->env.d = NULL;
}

#endif
