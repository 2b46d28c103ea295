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
 *
 * The device, the tags and the ring are fuzz_wqe_dev.h's (shared with the
 * differential test, tests/unit/test_diff_wqe.c): the input is rung once
 * and the device is let finish (timers, flushes) before the checks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_wqe_dev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fzw f;	/* 16 KiB of CQEs: not on the stack */
	uint32_t i;

	if (!size)
		return 0;
	if (fzw_open(&f, NULL) || fzw_connect(&f, f.qp->qpn, f.mr.key))
		abort();
	fzw_load(&f, data, size);
	fzw_ring(&f);
	/* RNR and ACK timers are microseconds here: a second is plenty,
	 * and an input that takes longer is not a finding of this target. */
	fzw_drain(&f, 1000);
	for (i = 0; i < f.ncqe && i < FZW_MAX_CQES; i++) {
		uint8_t op = f.cqe[i][63] >> 4;

		if (op != MLX5_CQE_REQ && op != MLX5_CQE_REQ_ERR &&
		    op != MLX5_CQE_RESP_SEND && op != MLX5_CQE_RESP_SEND_IMM &&
		    op != MLX5_CQE_RESP_SEND_INV && op != MLX5_CQE_RESP_WR_IMM &&
		    op != MLX5_CQE_RESP_ERR && op != MLX5_CQE_SIG_ERR) {
			fprintf(stderr, "fuzz_wqe: CQE with opcode %u\n", op);
			abort();
		}
	}
	fzw_close(&f);	/* no device thread writes after this */
	if (!t_guards_ok(f.buf, FZW_BUF)) {
		fprintf(stderr, "fuzz_wqe: a WQE wrote outside the MR's buffer\n");
		abort();
	}
	t_free_all();
	return 0;
}
