/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the data-path engine's WQE parsers -- the opcode table,
 * control/raddr/atomic/data/inline segments, UMR WQEs (mkey context, KLM
 * lists, repeat blocks, BSFs), SET_PSV, DMA MMO -- and what they do to
 * memory. Input convention and tags: fuzz_wqe.h.
 *
 * Invariants checked after every input (abort = a finding):
 *   - the 64 guard bytes on each side of the MR's buffer are intact: no
 *     access, however malformed, reached outside the registered memory;
 *   - every CQE the device wrote has a known opcode.
 * ASan/UBSan catch the rest (out-of-bounds reads of the ring or of WQE
 * segments, overflows in length arithmetic).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eng_test_util.h"
#include "fuzz_wqe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t fzw_sigkey(struct t_env *env)
{
	TMB(create_mkey_in) = { 0 };
	TMB(create_mkey_out) = { 0 };
	void *mkc = DEVX_ADDR_OF(create_mkey_in, create_mkey_in, memory_key_mkey_entry);

	DEVX_SET(create_mkey_in, create_mkey_in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	DEVX_SET(mkc, mkc, free, 1);
	DEVX_SET(mkc, mkc, umr_en, 1);
	DEVX_SET(mkc, mkc, lr, 1);
	DEVX_SET(mkc, mkc, bsf_en, 1);
	DEVX_SET(mkc, mkc, crypto_en, 1);	/* signature and crypto BSFs */
	DEVX_SET(mkc, mkc, bsf_octword_size, 8);
	DEVX_SET(mkc, mkc, pd, env->pd);
	DEVX_SET(mkc, mkc, qpn, 0xffffff);
	DEVX_SET(mkc, mkc, translations_octword_size, 8);
	if (t_exec(env->d, create_mkey_in, sizeof(create_mkey_in), create_mkey_out,
		   sizeof(create_mkey_out)))
		abort();
	return DEVX_GET(create_mkey_out, create_mkey_out, mkey_index) << 8;
}

static void fzw_psvs(struct t_env *env, uint32_t *p0, uint32_t *p1)
{
	TMB(create_psv_in) = { 0 };
	TMB(create_psv_out) = { 0 };

	DEVX_SET(create_psv_in, create_psv_in, opcode, MLX5_CMD_OP_CREATE_PSV);
	DEVX_SET(create_psv_in, create_psv_in, num_psv, 2);
	DEVX_SET(create_psv_in, create_psv_in, pd, env->pd);
	if (t_exec(env->d, create_psv_in, sizeof(create_psv_in), create_psv_out,
		   sizeof(create_psv_out)))
		abort();
	*p0 = DEVX_GET(create_psv_out, create_psv_out, psv0_index);
	*p1 = DEVX_GET(create_psv_out, create_psv_out, psv1_index);
}

static void fzw_patch(uint8_t *p, size_t len, const uint32_t tag[FZW_NTAGS],
		      uint8_t *buf, uint32_t qpn)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t_conn c = { .rwe = true, .rre = true, .rae = true,
			    .retry_count = 1, .rnr_retry = 1, .timeout = 1 };
	uint32_t tag[FZW_NTAGS], nbb, i;
	struct mlx5_cqe64 cqe;
	struct t_env env;
	struct t_cq *cq;
	struct t_qp *qp;
	struct t_mr mr;
	uint8_t *buf;
	uint64_t db;

	if (!size)
		return 0;
	t_env_open(&env);
	if (!env.d)
		abort();
	cq = t_cq_create(&env, 8, 0);
	qp = t_qp_create(&env, MLX5_QPC_ST_RC, cq, cq, NULL);
	c.remote_qpn = qp->qpn;
	if (t_qp_rts(qp, &c))
		abort();
	buf = t_guarded(FZW_BUF);
	mr = t_mr(&env, env.pd, buf, FZW_BUF, T_ALL);
	tag[FZW_MR] = mr.key;
	tag[FZW_SIGKEY] = fzw_sigkey(&env);
	fzw_psvs(&env, &tag[FZW_PSV0], &tag[FZW_PSV1]);
	tag[FZW_PD] = env.pd;
	tag[FZW_QPN] = qp->qpn;
	for (i = 0; i < 4; i++) {
		struct t_sge s = { mr.key, buf + FZW_BUF / 2 + i * 1024, 1024 };

		t_post_recv(qp, &s, 1);
	}

	/* The input is the ring from WQEBB 0, patched, then one doorbell. */
	nbb = (uint32_t)((size + 63) / 64);
	if (nbb > FZW_MAX_BBS)
		nbb = FZW_MAX_BBS;
	if (nbb > qp->sq_cnt)
		nbb = qp->sq_cnt;
	memset(qp->sq, 0, (size_t)qp->sq_cnt * 64);
	memcpy(qp->sq, data, size < (size_t)nbb * 64 ? size : (size_t)nbb * 64);
	fzw_patch(qp->sq, (size_t)nbb * 64, tag, buf, qp->qpn);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	qp->db[1] = htobe32(nbb & 0xffff);
	memcpy(&db, qp->sq, 8);
	smx_dev_mmio_write64(env.d, (uint64_t)env.uar * 4096 + 0x800, db);

	while (t_poll(cq, &cqe)) {
		uint8_t op = t_cqe_op(&cqe);

		if (op != MLX5_CQE_REQ && op != MLX5_CQE_REQ_ERR &&
		    op != MLX5_CQE_RESP_SEND && op != MLX5_CQE_RESP_SEND_IMM &&
		    op != MLX5_CQE_RESP_SEND_INV && op != MLX5_CQE_RESP_WR_IMM &&
		    op != MLX5_CQE_RESP_ERR && op != MLX5_CQE_SIG_ERR) {
			fprintf(stderr, "fuzz_wqe: CQE with opcode %u\n", op);
			abort();
		}
	}
	smx_dev_close(env.d);	/* no device thread writes after this */
	if (!t_guards_ok(buf, FZW_BUF)) {
		fprintf(stderr, "fuzz_wqe: a WQE wrote outside the MR's buffer\n");
		abort();
	}
	t_free_all();
	return 0;
}
