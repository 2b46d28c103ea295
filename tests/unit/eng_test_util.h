/* SPDX-License-Identifier: MIT */
/*
 * A mini-driver for the engine tests: objects created through PRM mailboxes
 * (smx_dev_cmd), rings in process memory, WQEs built by hand with the
 * <infiniband/mlx5dv.h> segment structs, doorbells through
 * smx_dev_mmio_write64 -- exactly the boundary a real driver uses.
 */
#ifndef SMX_ENG_TEST_UTIL_H
#define SMX_ENG_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/device.h"
#include "device/engine/engine.h"
#include "device/fw/fw.h"
#include "prm/prm.h"
#include "smx_test.h"

#define TMB(typ) uint32_t typ[DEVX_ST_SZ_DW(typ)]

struct t_env {
	struct smx_dev *d;
	uint32_t pd, pd2, uar;
	uint8_t gid[16];
};

struct t_cq {
	uint32_t cqn;
	uint8_t *buf;
	volatile uint32_t *db;
	uint32_t n;
	uint32_t ci;
};

struct t_qp {
	uint32_t qpn, st;
	uint8_t *buf, *rq, *sq;
	volatile uint32_t *db;
	uint32_t sq_cnt, rq_cnt, rq_stride;
	uint32_t sq_pi, rq_pi;
	struct t_env *env;
	struct t_cq *scq, *rcq;
};

struct t_mr {
	uint32_t key;
	uint8_t *addr;
	uint64_t len;
};

static inline unsigned int t_exec(struct smx_dev *d, const void *in, size_t inlen,
				  void *out, size_t outlen)
{
	if (smx_dev_cmd(d, in, inlen, out, outlen))
		return 0x100;
	return DEVX_GET(mbox_out, out, status);
}

/* Everything a test allocates stays reachable here and is freed at exit
 * (t_free_all), so LeakSanitizer only reports what the device leaks. */
static void *t_allocs[8192];
static unsigned int t_nallocs;

static inline void *t_keep(void *p)
{
	if (p && t_nallocs < sizeof(t_allocs) / sizeof(t_allocs[0]))
		t_allocs[t_nallocs++] = p;
	return p;
}

static inline void t_free_all(void)
{
	while (t_nallocs)
		free(t_allocs[--t_nallocs]);
}

static inline void *t_zalloc(size_t bytes)
{
	size_t sz = (bytes + 4095) & ~(size_t)4095;
	void *p = aligned_alloc(4096, sz ? sz : 4096);

	memset(p, 0, sz ? sz : 4096);
	return t_keep(p);
}

static inline uint32_t t_alloc_handle(struct smx_dev *d, uint16_t op)
{
	TMB(mbox_in) = { 0 };
	uint32_t out[DEVX_ST_SZ_DW(obj_handle_out)] = { 0 };

	DEVX_SET(mbox_in, mbox_in, opcode, op);
	if (t_exec(d, mbox_in, sizeof(mbox_in), out, sizeof(out)))
		return 0;
	return DEVX_GET(obj_handle_out, out, handle);
}

static inline void t_env_open(struct t_env *env)
{
	unsetenv("SOFTMLX5_CONFIG");
	setenv("XDG_CONFIG_HOME", "/nonexistent-softmlx5-test", 1);
	setenv("HOME", "/nonexistent-softmlx5-test", 1);
	memset(env, 0, sizeof(*env));
	env->d = smx_dev_open();
	env->pd = t_alloc_handle(env->d, MLX5_CMD_OP_ALLOC_PD);
	env->pd2 = t_alloc_handle(env->d, MLX5_CMD_OP_ALLOC_PD);
	env->uar = t_alloc_handle(env->d, MLX5_CMD_OP_ALLOC_UAR);
	fw_gid(smx_dev_fw(env->d), 0, env->gid);
}

/* A CQ of 2^log 64-byte CQEs on EQ @eqn, CQEs initialised like a driver. */
static inline struct t_cq *t_cq_create(struct t_env *env, uint32_t log,
				       uint32_t eqn)
{
	struct t_cq *cq = t_keep(calloc(1, sizeof(*cq)));
	size_t bytes = (size_t)64 << log, npas = (bytes + 4095) / 4096, i;
	size_t inlen = DEVX_ST_SZ_BYTES(create_cq_in) + 8 * npas;
	uint8_t *in = calloc(1, inlen);
	TMB(create_cq_out) = { 0 };
	void *cqc = DEVX_ADDR_OF(create_cq_in, in, cq_context);

	cq->n = 1u << log;
	cq->buf = t_zalloc(bytes);
	cq->db = t_zalloc(64);
	for (i = 0; i < cq->n; i++)
		cq->buf[i * 64 + 63] = MLX5_CQE_INVALID << 4;
	DEVX_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(cqc, cqc, log_cq_size, log);
	DEVX_SET(cqc, cqc, c_eqn, eqn);
	DEVX_SET(cqc, cqc, uar_page, env->uar);
	DEVX_SET64(cqc, cqc, dbr_addr, (uint64_t)(uintptr_t)cq->db);
	for (i = 0; i < npas; i++) {
		uint64_t v = htobe64((uint64_t)(uintptr_t)cq->buf + i * 4096);

		memcpy(in + DEVX_BYTE_OFF(create_cq_in, pas) + i * 8, &v, 8);
	}
	if (t_exec(env->d, in, inlen, create_cq_out, sizeof(create_cq_out))) {
		free(in);
		return NULL;
	}
	cq->cqn = DEVX_GET(create_cq_out, create_cq_out, cqn);
	free(in);
	return cq;
}

/* Polls one CQE into @out; 1 if there was one. */
static inline int t_poll(struct t_cq *cq, struct mlx5_cqe64 *out)
{
	struct mlx5_cqe64 *c = (struct mlx5_cqe64 *)(cq->buf +
				(size_t)(cq->ci & (cq->n - 1)) * 64);
	uint8_t own = __atomic_load_n(&c->op_own, __ATOMIC_ACQUIRE);

	if ((own >> 4) == MLX5_CQE_INVALID || (own & 1) != !!(cq->ci & cq->n)) {
		memset(out, 0, sizeof(*out));	/* callers check fields anyway */
		return 0;
	}
	*out = *c;
	cq->ci++;
	cq->db[0] = htobe32(cq->ci & 0xffffff);
	return 1;
}

static inline uint8_t t_cqe_op(const struct mlx5_cqe64 *c)
{
	return c->op_own >> 4;
}

static inline uint8_t t_cqe_synd(const struct mlx5_cqe64 *c)
{
	return ((const struct mlx5_err_cqe *)c)->syndrome;
}

/* A memory key over [addr, addr + len): MTT with 2^page_shift pages, or PA. */
static inline uint32_t t_mkey(struct t_env *env, uint32_t pd, void *addr,
			      uint64_t len, uint32_t acc, uint32_t mode,
			      uint32_t page_shift, uint8_t variant,
			      bool en_rinval)
{
	uint64_t start = (uint64_t)(uintptr_t)addr;
	uint64_t psz = 1ull << page_shift, base = start & ~(psz - 1);
	uint64_t npg = mode == MLX5_MKC_ACCESS_MODE_MTT ?
		       (start - base + len + psz - 1) / psz : 0;
	uint64_t oct = (npg + 1) / 2, i;
	size_t inlen = DEVX_ST_SZ_BYTES(create_mkey_in) + 16 * oct;
	uint8_t *in = calloc(1, inlen);
	TMB(create_mkey_out) = { 0 };
	void *mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	uint32_t key = 0;

	DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(mkc, mkc, access_mode_1_0, mode & 3);
	DEVX_SET(mkc, mkc, access_mode_4_2, mode >> 2);
	DEVX_SET(mkc, mkc, lr, !!(acc & 1));
	DEVX_SET(mkc, mkc, lw, !!(acc & 2));
	DEVX_SET(mkc, mkc, rr, !!(acc & 4));
	DEVX_SET(mkc, mkc, rw, !!(acc & 8));
	DEVX_SET(mkc, mkc, a, !!(acc & 16));
	DEVX_SET(mkc, mkc, en_rinval, en_rinval);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, mkey_7_0, variant);
	DEVX_SET(mkc, mkc, pd, pd);
	DEVX_SET64(mkc, mkc, start_addr, start);
	DEVX_SET64(mkc, mkc, len, len);
	DEVX_SET(mkc, mkc, log_page_size, page_shift);
	DEVX_SET(mkc, mkc, translations_octword_size, (uint32_t)oct);
	DEVX_SET(create_mkey_in, in, translations_octword_actual_size,
		 (uint32_t)oct);
	for (i = 0; i < npg; i++) {
		uint64_t v = htobe64(base + i * psz);

		memcpy(in + DEVX_BYTE_OFF(create_mkey_in, klm_pas_mtt) + i * 8,
		       &v, 8);
	}
	if (!t_exec(env->d, in, inlen, create_mkey_out, sizeof(create_mkey_out)))
		key = DEVX_GET(create_mkey_out, create_mkey_out, mkey_index) << 8 |
		      variant;
	free(in);
	return key;
}

enum { T_LR = 1, T_LW = 2, T_RR = 4, T_RW = 8, T_A = 16, T_ALL = 31 };

static inline struct t_mr t_mr(struct t_env *env, uint32_t pd, void *addr,
			       uint64_t len, uint32_t acc)
{
	struct t_mr m = { 0, addr, len };

	m.key = t_mkey(env, pd, addr, len, acc, MLX5_MKC_ACCESS_MODE_MTT, 12,
		       0x42, false);
	return m;
}

struct t_qp_opt {
	uint32_t srqn;
	uint32_t log_sq, log_rq;
	bool no_rq;
	uint32_t xrcd;
	uint32_t pd;
};

static inline struct t_qp *t_qp_create(struct t_env *env, uint32_t st,
				       struct t_cq *scq, struct t_cq *rcq,
				       const struct t_qp_opt *o)
{
	struct t_qp *qp = t_keep(calloc(1, sizeof(*qp)));
	uint32_t log_sq = o && o->log_sq ? o->log_sq : 6;
	uint32_t log_rq = o && o->log_rq ? o->log_rq : 5;
	bool srq = o && o->srqn;
	bool no_rq = srq || (o && o->no_rq);
	size_t rq = no_rq ? 0 : ((size_t)64 << log_rq);
	size_t sq = (size_t)64 << log_sq, npas = (rq + sq + 4095) / 4096, i;
	size_t inlen = DEVX_ST_SZ_BYTES(create_qp_in) + 8 * npas;
	uint8_t *in = calloc(1, inlen);
	TMB(create_qp_out) = { 0 };
	void *qpc = DEVX_ADDR_OF(create_qp_in, in, qpc);

	qp->env = env;
	qp->st = st;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->buf = t_zalloc(rq + sq);
	qp->rq = qp->buf;
	qp->sq = qp->buf + rq;
	qp->db = t_zalloc(64);
	qp->sq_cnt = 1u << log_sq;
	qp->rq_cnt = no_rq ? 0 : 1u << log_rq;
	qp->rq_stride = 64;
	DEVX_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	DEVX_SET(qpc, qpc, st, st);
	DEVX_SET(qpc, qpc, pd, o && o->pd ? o->pd : env->pd);
	DEVX_SET(qpc, qpc, uar_page, env->uar);
	DEVX_SET(qpc, qpc, log_sq_size, log_sq);
	DEVX_SET(qpc, qpc, cqn_snd, scq->cqn);
	if (rcq)
		DEVX_SET(qpc, qpc, cqn_rcv, rcq->cqn);
	if (srq) {
		DEVX_SET(qpc, qpc, rq_type, MLX5_QPC_RQ_TYPE_SRQ_RMP_XRC_SRQ_XRQ);
		DEVX_SET(qpc, qpc, srqn_rmpn_xrqn, o->srqn);
	} else if (no_rq) {
		DEVX_SET(qpc, qpc, rq_type, MLX5_QPC_RQ_TYPE_ZERO_SIZE_RQ);
	} else {
		DEVX_SET(qpc, qpc, log_rq_size, log_rq);
		DEVX_SET(qpc, qpc, log_rq_stride, 2);
	}
	if (o && o->xrcd)
		DEVX_SET(qpc, qpc, xrcd, o->xrcd);
	DEVX_SET64(qpc, qpc, dbr_addr, (uint64_t)(uintptr_t)qp->db);
	for (i = 0; i < npas; i++) {
		uint64_t v = htobe64((uint64_t)(uintptr_t)qp->buf + i * 4096);

		memcpy(in + DEVX_BYTE_OFF(create_qp_in, pas) + i * 8, &v, 8);
	}
	if (t_exec(env->d, in, inlen, create_qp_out, sizeof(create_qp_out))) {
		free(in);
		return NULL;
	}
	qp->qpn = DEVX_GET(create_qp_out, create_qp_out, qpn);
	free(in);
	return qp;
}

struct t_conn {
	uint32_t remote_qpn;
	uint32_t sq_psn, rq_psn;
	uint32_t rnr_retry, retry_count, timeout, min_rnr_nak;
	bool rwe, rre, rae;
	uint32_t qkey;
	uint32_t mtu;		/* MLX5_QPC_MTU_*; 0: 1K */
	const uint8_t *rgid;	/* NULL: our GID */
};

static inline unsigned int t_modify(struct t_env *env, uint16_t op,
				    uint32_t qpn, uint32_t mask,
				    const struct t_conn *c)
{
	TMB(modify_qp_in) = { 0 };
	TMB(modify_qp_out) = { 0 };
	void *qpc = DEVX_ADDR_OF(modify_qp_in, modify_qp_in, qpc);

	DEVX_SET(modify_qp_in, modify_qp_in, opcode, op);
	DEVX_SET(modify_qp_in, modify_qp_in, qpn, qpn);
	DEVX_SET(modify_qp_in, modify_qp_in, opt_param_mask, mask);
	if (c) {
		uint8_t *rgid = DEVX_ADDR_OF(qpc, qpc,
					     primary_address_path.rgid_rip);

		DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		DEVX_SET(qpc, qpc, rwe, c->rwe);
		DEVX_SET(qpc, qpc, rre, c->rre);
		DEVX_SET(qpc, qpc, rae, c->rae);
		DEVX_SET(qpc, qpc, q_key, c->qkey);
		DEVX_SET(qpc, qpc, mtu, c->mtu ? c->mtu : MLX5_QPC_MTU_1K_BYTES);
		DEVX_SET(qpc, qpc, log_msg_max, 30);
		DEVX_SET(qpc, qpc, remote_qpn, c->remote_qpn);
		DEVX_SET(qpc, qpc, next_rcv_psn, c->rq_psn);
		DEVX_SET(qpc, qpc, min_rnr_nak, c->min_rnr_nak);
		DEVX_SET(qpc, qpc, log_rra_max, 2);
		DEVX_SET(qpc, qpc, primary_address_path.grh, 1);
		DEVX_SET(qpc, qpc, primary_address_path.hop_limit, 64);
		DEVX_SET(qpc, qpc, primary_address_path.src_addr_index, 0);
		memcpy(rgid, c->rgid ? c->rgid : env->gid, 16);
		DEVX_SET(qpc, qpc, next_send_psn, c->sq_psn);
		DEVX_SET(qpc, qpc, retry_count, c->retry_count);
		DEVX_SET(qpc, qpc, rnr_retry, c->rnr_retry);
		DEVX_SET(qpc, qpc, log_sra_max, 2);
		DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, c->timeout);
	}
	if (op == MLX5_CMD_OP_2ERR_QP || op == MLX5_CMD_OP_2RST_QP)
		return t_exec(env->d, modify_qp_in, DEVX_ST_SZ_BYTES(qp_2rst_in),
			      modify_qp_out, sizeof(modify_qp_out));
	return t_exec(env->d, modify_qp_in, sizeof(modify_qp_in), modify_qp_out,
		      sizeof(modify_qp_out));
}

/* RESET -> INIT -> RTR -> RTS. */
static inline unsigned int t_qp_rts(struct t_qp *qp, const struct t_conn *c)
{
	struct t_env *env = qp->env;
	unsigned int st;

	st = t_modify(env, MLX5_CMD_OP_RST2INIT_QP, qp->qpn, 0, c);
	if (!st)
		st = t_modify(env, MLX5_CMD_OP_INIT2RTR_QP, qp->qpn, 0, c);
	if (!st)
		st = t_modify(env, MLX5_CMD_OP_RTR2RTS_QP, qp->qpn, 0, c);
	return st;
}

static inline void t_query_qp(struct t_env *env, uint32_t qpn, void *qpc_out)
{
	TMB(query_qp_in) = { 0 };
	uint8_t *out = calloc(1, DEVX_ST_SZ_BYTES(query_qp_out) + 4096);

	DEVX_SET(query_qp_in, query_qp_in, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, query_qp_in, qpn, qpn);
	t_exec(env->d, query_qp_in, sizeof(query_qp_in), out,
	       DEVX_ST_SZ_BYTES(query_qp_out) + 4096);
	memcpy(qpc_out, DEVX_ADDR_OF(query_qp_out, out, qpc),
	       DEVX_ST_SZ_BYTES(qpc));
	free(out);
}

static inline uint32_t t_qp_state(struct t_env *env, uint32_t qpn)
{
	uint8_t qpc[DEVX_ST_SZ_BYTES(qpc)] __attribute__((aligned(8)));

	t_query_qp(env, qpn, qpc);
	return DEVX_GET(qpc, qpc, state);
}

/* ---- send WQEs ---- */

struct t_wqe {
	uint8_t b[1024] __attribute__((aligned(16)));
	uint32_t len;	/* bytes so far */
};

static inline struct mlx5_wqe_ctrl_seg *t_wqe_ctrl(struct t_wqe *w)
{
	return (struct mlx5_wqe_ctrl_seg *)w->b;
}

static inline void t_wqe_begin(struct t_wqe *w, uint8_t opcode, uint8_t fm_ce_se,
			       uint32_t imm)
{
	struct mlx5_wqe_ctrl_seg *c = t_wqe_ctrl(w);

	memset(w, 0, sizeof(*w));
	c->opmod_idx_opcode = htobe32(opcode);
	c->fm_ce_se = fm_ce_se;
	c->imm = imm;
	w->len = 16;
}

static inline void t_wqe_raddr(struct t_wqe *w, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg *r = (void *)(w->b + w->len);

	r->raddr = htobe64(raddr);
	r->rkey = htobe32(rkey);
	w->len += 16;
}

static inline void t_wqe_atomic(struct t_wqe *w, uint64_t swap_add,
				uint64_t compare)
{
	struct mlx5_wqe_atomic_seg *a = (void *)(w->b + w->len);

	a->swap_add = htobe64(swap_add);
	a->compare = htobe64(compare);
	w->len += 16;
}

static inline void t_wqe_data(struct t_wqe *w, uint32_t lkey, const void *addr,
			      uint32_t len)
{
	struct mlx5_wqe_data_seg *d = (void *)(w->b + w->len);

	d->byte_count = htobe32(len);
	d->lkey = htobe32(lkey);
	d->addr = htobe64((uint64_t)(uintptr_t)addr);
	w->len += 16;
}

static inline void t_wqe_inline(struct t_wqe *w, const void *data, uint32_t len)
{
	uint32_t bc = htobe32(len | MLX5_INLINE_SEG);

	memcpy(w->b + w->len, &bc, 4);
	memcpy(w->b + w->len + 4, data, len);
	w->len += (4 + len + 15) & ~15u;
}

static inline void t_wqe_ud(struct t_wqe *w, struct t_env *env, uint32_t dqpn,
			    uint32_t qkey)
{
	struct mlx5_wqe_av *av = (void *)(w->b + w->len);

	av->key.qkey.qkey = htobe32(qkey);
	av->dqp_dct = htobe32(dqpn | MLX5_EXTENDED_UD_AV);
	av->hop_limit = 64;
	av->grh_gid_fl = htobe32(1u << 30 | 0u << 20);
	memcpy(av->rgid, env->gid, 16);
	w->len += sizeof(*av);
}

/* Copies the WQE into the ring (wrapping) and sets the producer; returns
 * the WQE's index. Does not ring. */
static inline uint32_t t_wqe_put(struct t_qp *qp, struct t_wqe *w)
{
	struct mlx5_wqe_ctrl_seg *c = t_wqe_ctrl(w);
	uint32_t ds = (w->len + 15) / 16, nbb = (ds * 16 + 63) / 64, i;
	uint32_t idx = qp->sq_pi;

	c->opmod_idx_opcode |= htobe32((idx & 0xffff) << 8);
	c->qpn_ds = htobe32(qp->qpn << 8 | ds);
	for (i = 0; i < nbb; i++)
		memcpy(qp->sq + (size_t)((idx + i) & (qp->sq_cnt - 1)) * 64,
		       w->b + i * 64, 64);
	qp->sq_pi += nbb;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	qp->db[1] = htobe32(qp->sq_pi & 0xffff);
	return idx;
}

static inline void t_ring(struct t_qp *qp, struct t_wqe *w)
{
	uint64_t v;

	memcpy(&v, w->b, 8);
	smx_dev_mmio_write64(qp->env->d,
			     (uint64_t)qp->env->uar * 4096 + 0x800, v);
}

static inline uint32_t t_post(struct t_qp *qp, struct t_wqe *w)
{
	uint32_t idx = t_wqe_put(qp, w);

	t_ring(qp, w);
	return idx;
}

/* ---- receives ---- */

struct t_sge {
	uint32_t lkey;
	void *addr;
	uint32_t len;
};

static inline void t_post_recv(struct t_qp *qp, const struct t_sge *s,
			       uint32_t n)
{
	struct mlx5_wqe_data_seg *d = (void *)(qp->rq + (size_t)(qp->rq_pi &
					       (qp->rq_cnt - 1)) * qp->rq_stride);
	uint32_t i;

	for (i = 0; i < n; i++) {
		d[i].byte_count = htobe32(s[i].len);
		d[i].lkey = htobe32(s[i].lkey);
		d[i].addr = htobe64((uint64_t)(uintptr_t)s[i].addr);
	}
	if (n < qp->rq_stride / 16) {
		d[n].byte_count = 0;
		d[n].lkey = htobe32(MLX5_INVALID_LKEY);
		d[n].addr = 0;
	}
	qp->rq_pi++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	qp->db[0] = htobe32(qp->rq_pi & 0xffff);
}

/* Guarded buffer: @len bytes with 64 guard bytes (0xa5) on each side. */
static inline uint8_t *t_guarded(size_t len)
{
	uint8_t *p = t_zalloc(len + 128 + 4096);

	memset(p, 0xa5, len + 128);
	return p + 64;
}

static inline bool t_guards_ok(const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 1; i <= 64; i++)
		if (buf[-(ssize_t)i] != 0xa5 || buf[len + i - 1] != 0xa5)
			return false;
	return true;
}

#endif
