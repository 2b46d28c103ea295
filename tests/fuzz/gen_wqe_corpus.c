/* SPDX-License-Identifier: MIT */
/*
 * Seeds for fuzz_wqe: well-formed send queues in the tag convention of
 * fuzz_wqe.h, so the fuzzer starts from WQEs that reach the deep paths
 * (RDMA WRITE, SEND into a posted receive, a UMR configuring the signature
 * mkey with a T10-DIF BSF, SET_PSV, a WRITE and a SEND through that mkey,
 * an interleaved layout, DMA MMO, LOCAL_INV), and one-sided RDMA towards
 * the responder's MR key (tag FZW_RMR: what direct placement and the
 * requester's fast lane take when the responder is another process).
 *   gen_wqe_corpus DIR
 */
#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_wqe.h"
#include "prm/prm.h"

struct sq {
	uint8_t b[FZW_MAX_BBS * 64];
	uint32_t bb;		/* next WQEBB */
};

static void be32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static void be64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static void tag32(uint8_t *p, int which) { be32(p, FZW_TAG32 + (uint32_t)which); }
static void addr64(uint8_t *p, uint32_t off) { be64(p, (uint64_t)FZW_TAG64 << 32 | off); }

/* Starts a WQE of @ds octowords: the control segment at its first WQEBB. */
static uint8_t *wqe(struct sq *q, uint8_t opcode, uint32_t ds, uint32_t imm)
{
	uint8_t *c = q->b + q->bb * 64;

	be32(c, (q->bb & 0xffff) << 8 | opcode);
	be32(c + 4, (uint32_t)FZW_TAG_QPN_DS << 24 | ds);
	c[11] = MLX5_WQE_CTRL_CQ_UPDATE;
	be32(c + 12, imm);
	q->bb += (ds * 16 + 63) / 64;
	return c;
}

static void data_seg(uint8_t *p, uint32_t len, int key, uint32_t off)
{
	be32(p, len);
	tag32(p + 4, key);
	if (key == FZW_SIGKEY || key == FZW_KLM)
		be64(p + 8, off);	/* zero-based */
	else
		addr64(p + 8, off);
}

static void rdma_write(struct sq *q, int src_key, uint32_t src, uint32_t dst, uint32_t len)
{
	uint8_t *c = wqe(q, MLX5_OPCODE_RDMA_WRITE, 3, 0);

	addr64(c + 16, dst);
	tag32(c + 24, FZW_MR);
	data_seg(c + 32, len, src_key, src);
}

/* RDMA WRITE / READ of @len bytes between key @key (tag) at @loc and the
 * responder's MR (FZW_RMR) at @rem; @nseg > 1 splits the local side. */
static void rdma(struct sq *q, uint8_t opcode, int key, uint32_t loc,
		 uint32_t rem, uint32_t len, uint32_t nseg)
{
	uint8_t *c = wqe(q, opcode, 2 + nseg, 0);
	uint32_t i, part = len / nseg;

	addr64(c + 16, rem);
	tag32(c + 24, FZW_RMR);
	for (i = 0; i < nseg; i++)
		data_seg(c + 32 + 16 * i, i + 1 < nseg ? part : len - part * i,
			 key, loc + part * i);
}

/* RDMA WRITE of @len (1..28) inline bytes to the responder's MR at @rem. */
static void write_inline(struct sq *q, uint32_t rem, uint32_t len, uint8_t fill)
{
	uint32_t ds = 2 + (4 + len + 15) / 16;
	uint8_t *c = wqe(q, MLX5_OPCODE_RDMA_WRITE, ds, 0);

	addr64(c + 16, rem);
	tag32(c + 24, FZW_RMR);
	be32(c + 32, len | MLX5_INLINE_SEG);
	memset(c + 36, fill, len);
}

/* Fetch-and-add (or compare-and-swap) on the responder's MR at @rem, the
 * original value into the MR at @loc. */
static void atomic(struct sq *q, uint8_t opcode, uint32_t rem, uint32_t loc,
		   uint64_t swap_add, uint64_t compare)
{
	uint8_t *c = wqe(q, opcode, 4, 0);

	addr64(c + 16, rem);
	tag32(c + 24, FZW_RMR);
	be64(c + 32, swap_add);
	be64(c + 40, compare);
	data_seg(c + 48, 8, FZW_MR, loc);
}

static void send(struct sq *q, int key, uint32_t off, uint32_t len)
{
	uint8_t *c = wqe(q, MLX5_OPCODE_SEND, 2, 0);

	data_seg(c + 16, len, key, off);
}

/* UMR on the signature mkey: one KLM over [0, 1024) of the MR and a wire
 * T10-DIF BSF naming PSV 1; then SET_PSV loading it. */
static void umr_sig(struct sq *q)
{
	uint8_t *c = wqe(q, MLX5_OPCODE_UMR, (16 + 48 + 64 + 64 + 64) / 16, 0);
	struct mlx5_wqe_umr_ctrl_seg *uc = (void *)(c + 16);
	struct mlx5_wqe_mkey_context_seg *mk = (void *)(c + 64);
	struct smx_bsf *bsf = (void *)(c + 192);

	tag32(c + 12, FZW_SIGKEY);
	uc->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	uc->klm_octowords = htobe16(4);
	uc->bsf_octowords = htobe16(4);
	uc->mkey_mask = htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
	mk->flags_pd = htobe32(SMX_MKC_SEG_FLAGS_BSF_ENABLE);
	mk->access_flags = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE |
			   MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE;
	mk->qpn_mkey = htobe32(0xffffff00u);
	mk->len = htobe64(1024);
	data_seg(c + 128, 1024, FZW_MR, 0);
	bsf->basic.bsf_size_sbs = SMX_BSF_SIZE_WITH_INLINE << SMX_BSF_SIZE_SHIFT;
	bsf->basic.check_byte_mask = 0xff;
	bsf->basic.wire_sel = SMX_BS_SEL_512;
	bsf->basic.raw_data_size = htobe32(UINT32_MAX);
	tag32((uint8_t *)&bsf->basic.w_bfs_psv, FZW_PSV1);
	bsf->w_inl.vld_refresh = htobe16(SMX_BSF_INL_VALID | SMX_BSF_REFRESH_DIF);
	bsf->w_inl.dif_apptag = htobe16(0xabcd);
	bsf->w_inl.dif_reftag = htobe32(0x1234);
	bsf->w_inl.sig_type = SMX_T10DIF_CRC;
	bsf->w_inl.rp_inv_seed = SMX_BSF_REPEAT_BLOCK | SMX_BSF_SEED;
	bsf->w_inl.dif_inc_ref_guard_check = SMX_BSF_INC_REFTAG;
	bsf->w_inl.dif_app_bitmask_check = htobe16(0xffff);

	c = wqe(q, MLX5_OPCODE_SET_PSV, 2, 0);
	tag32(c + 16, FZW_PSV1);
	be64(c + 24, 0xffffull << 48 | 0xabcdull << 32 | 0x1234);
}

/* An interleaved (repeat block) layout on indirect mkey @key, no BSF. */
static void umr_interleaved(struct sq *q, int key)
{
	uint8_t *c = wqe(q, MLX5_OPCODE_UMR, (16 + 48 + 64 + 64) / 16, 0);
	struct mlx5_wqe_umr_ctrl_seg *uc = (void *)(c + 16);
	struct mlx5_wqe_mkey_context_seg *mk = (void *)(c + 64);
	struct mlx5_wqe_umr_repeat_block_seg *rb = (void *)(c + 128);

	tag32(c + 12, key);
	uc->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	uc->klm_octowords = htobe16(4);
	uc->mkey_mask = htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE);
	mk->access_flags = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE;
	mk->len = htobe64(3 * 24);
	rb->op = htobe32(0x400);
	rb->byte_count = htobe32(24);
	rb->repeat_count = htobe32(3);
	rb->num_ent = htobe16(2);
	rb->entries[0].byte_count = htobe16(16);
	rb->entries[0].stride = htobe16(20);
	tag32((uint8_t *)&rb->entries[0].memkey, FZW_MR);
	addr64((uint8_t *)&rb->entries[0].va, 0);
	rb->entries[1].byte_count = htobe16(8);
	rb->entries[1].stride = htobe16(8);
	tag32((uint8_t *)&rb->entries[1].memkey, FZW_MR);
	addr64((uint8_t *)&rb->entries[1].va, 512);
}

/* A plain KLM layout on the KLM mkey: [0, 100) is the MR at 0, [100, 300)
 * the MR at 1000. */
static void umr_klm(struct sq *q)
{
	uint8_t *c = wqe(q, MLX5_OPCODE_UMR, (16 + 48 + 64 + 64) / 16, 0);
	struct mlx5_wqe_umr_ctrl_seg *uc = (void *)(c + 16);
	struct mlx5_wqe_mkey_context_seg *mk = (void *)(c + 64);

	tag32(c + 12, FZW_KLM);
	uc->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	uc->klm_octowords = htobe16(4);
	uc->mkey_mask = htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE);
	mk->access_flags = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE;
	mk->len = htobe64(300);
	data_seg(c + 128, 100, FZW_MR, 0);
	data_seg(c + 144, 200, FZW_MR, 1000);
}

static void mmo(struct sq *q)
{
	uint8_t *c = wqe(q, MLX5_OPCODE_MMO, 4, 0);

	c[0] = 1;	/* opmod: DMA */
	tag32(c + 20, FZW_MR);
	addr64(c + 24, 0);
	data_seg(c + 32, 256, FZW_MR, 0);
	data_seg(c + 48, 256, FZW_MR, 2048);
}

/*
 * Every kind of one-sided RDMA towards the responder's key: the first
 * WRITE teaches the requester the key's record (when the responder is
 * another process); with @wait a NOP (a local WQE: after everything before
 * it) lets its answer come back first, so that the WQEs after it are what
 * direct placement and the fast lane (one WQEBB, one segment or inline)
 * take -- two segments, atomics, WRITE with immediate and SEND are theirs
 * to leave to the general path. Without it they go out behind the first
 * WRITE as packets.
 */
static void remote_rdma(struct sq *q, bool wait)
{
	uint8_t *c;

	memset(q, 0, sizeof(*q));
	rdma(q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 0, 4096, 512, 1);
	if (wait)
		wqe(q, MLX5_OPCODE_NOP, 1, 0);
	rdma(q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 512, 5000, 300, 1);
	rdma(q, MLX5_OPCODE_RDMA_READ, FZW_MR, 1024, 4200, 700, 1);
	write_inline(q, 6000, 8, 0x5a);
	write_inline(q, 6100, 28, 0x3c);
	rdma(q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 100, 7000, 900, 2);
	rdma(q, MLX5_OPCODE_RDMA_READ, FZW_MR, 2000, 4096, 1000, 3);
	atomic(q, MLX5_OPCODE_ATOMIC_FA, 4096, 3000, 5, 0);
	atomic(q, MLX5_OPCODE_ATOMIC_CS, 4096, 3008, 7, 0x0101010101010101ull);
	c = wqe(q, MLX5_OPCODE_RDMA_WRITE_IMM, 3, 0x12345678);
	addr64(c + 16, 7500);
	tag32(c + 24, FZW_RMR);
	data_seg(c + 32, 64, FZW_MR, 0);
	/* Not from 3000..3015, where the atomics' results land: without a
	 * fence a SEND may gather before them (the requester pipelines), as
	 * on a NIC, and the differential test wants one outcome. */
	send(q, FZW_MR, 3100, 200);
	rdma(q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 0, 8000, 192, 1);	/* to the end */
}

static int put(const char *dir, const char *name, const struct sq *q)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(q->b, 64, q->bb, f) != q->bb) {
		perror(path);
		if (f)
			fclose(f);
		return 1;
	}
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	struct sq q;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	memset(&q, 0, sizeof(q));
	rdma_write(&q, FZW_MR, 0, 4096, 512);
	send(&q, FZW_MR, 0, 100);
	rc |= put(argv[1], "wqe-write-send", &q);

	memset(&q, 0, sizeof(q));
	umr_sig(&q);
	rdma_write(&q, FZW_SIGKEY, 0, 4096, 1024);
	send(&q, FZW_SIGKEY, 0, 512);
	rc |= put(argv[1], "wqe-sig", &q);

	/* the same UMR with a crypto BSF after the signature BSF (no DEK
	 * exists: the transfer is refused at use) */
	memset(&q, 0, sizeof(q));
	umr_sig(&q);
	{
		uint8_t *c = q.b;
		struct mlx5_wqe_umr_ctrl_seg *uc = (void *)(c + 16);
		struct smx_bsf *bsf = (void *)(c + 192);
		struct smx_crypto_bsf *cb = (void *)(c + 256);
		uint8_t psv[64];

		/* move the SET_PSV one WQEBB down, grow the UMR by 4 octowords */
		memcpy(psv, q.b + 4 * 64, 64);
		memset(q.b + 4 * 64, 0, 64);
		be32(c + 4, (uint32_t)FZW_TAG_QPN_DS << 24 | (16 + 48 + 64 + 64 + 128) / 16);
		uc->bsf_octowords = htobe16(8);
		bsf->basic.bsf_size_sbs = SMX_BSF_SIZE_SIG_AND_CRYPTO << SMX_BSF_SIZE_SHIFT;
		cb->bsf_size_type = SMX_BSF_SIZE_SIG_AND_CRYPTO << SMX_BSF_SIZE_SHIFT |
				    SMX_BSF_TYPE_CRYPTO;
		cb->enc_order = 0;
		cb->bs_pointer = SMX_BS_SEL_520;
		cb->xts_init_tweak[15] = 1;
		cb->rsvd_dek_ptr = htobe32(1);
		memcpy(q.b + 5 * 64, psv, 64);
		be32(q.b + 5 * 64, 5u << 8 | MLX5_OPCODE_SET_PSV);
		q.bb = 6;
	}
	rdma_write(&q, FZW_SIGKEY, 0, 4096, 1024);
	rc |= put(argv[1], "wqe-sig-crypto", &q);

	memset(&q, 0, sizeof(q));
	umr_interleaved(&q, FZW_SIGKEY);
	rdma_write(&q, FZW_SIGKEY, 0, 4096, 72);
	mmo(&q);
	{
		uint8_t *c = wqe(&q, MLX5_OPCODE_UMR, (16 + 48 + 64) / 16, 0);
		struct mlx5_wqe_umr_ctrl_seg *uc = (void *)(c + 16);
		struct mlx5_wqe_mkey_context_seg *mk = (void *)(c + 64);

		tag32(c + 12, FZW_SIGKEY);	/* LOCAL_INV: the key becomes free */
		uc->mkey_mask = htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE);
		mk->free = MLX5_WQE_MKEY_CONTEXT_FREE;
	}
	rc |= put(argv[1], "wqe-interleaved-mmo-inv", &q);

	/* One-sided RDMA to the responder's key (remote_rdma()), with and
	 * without waiting for the first WRITE's answer. */
	remote_rdma(&q, true);
	rc |= put(argv[1], "wqe-remote-rdma", &q);
	remote_rdma(&q, false);
	rc |= put(argv[1], "wqe-remote-pipelined", &q);

	/* The same kinds failing, with the key's record current: a WRITE
	 * one byte past the responder's key (a NAK: the QP goes to ERR, the
	 * rest is flushed); a READ whose scatter list runs past the local
	 * MR (a local protection error). */
	memset(&q, 0, sizeof(q));
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 0, 4096, 64, 1);
	wqe(&q, MLX5_OPCODE_NOP, 1, 0);
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 0, 8000, 193, 1);
	rdma(&q, MLX5_OPCODE_RDMA_READ, FZW_MR, 0, 0, 64, 1);
	rc |= put(argv[1], "wqe-remote-past-end", &q);

	/* The local side through indirect layouts of the KLM mkey: a
	 * piece inside one KLM entry is contiguous (the fast lane's), one
	 * across entries is not (direct placement's, through the list);
	 * likewise the first entry of a repeat block. */
	memset(&q, 0, sizeof(q));
	umr_klm(&q);
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 0, 4096, 64, 1);
	wqe(&q, MLX5_OPCODE_NOP, 1, 0);
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_KLM, 10, 5000, 50, 1);
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_KLM, 80, 5100, 100, 1);
	rdma(&q, MLX5_OPCODE_RDMA_READ, FZW_KLM, 120, 4096, 64, 1);
	rdma(&q, MLX5_OPCODE_RDMA_READ, FZW_KLM, 0, 4200, 300, 1);
	umr_interleaved(&q, FZW_KLM);
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 0, 4096, 8, 1);
	wqe(&q, MLX5_OPCODE_NOP, 1, 0);
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_KLM, 0, 6000, 16, 1);
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_KLM, 0, 6100, 72, 1);
	rdma(&q, MLX5_OPCODE_RDMA_READ, FZW_KLM, 24, 6300, 16, 1);
	rc |= put(argv[1], "wqe-remote-indirect", &q);

	memset(&q, 0, sizeof(q));
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 0, 4096, 64, 1);
	wqe(&q, MLX5_OPCODE_NOP, 1, 0);
	rdma(&q, MLX5_OPCODE_RDMA_READ, FZW_MR, 8000, 0, 400, 1);
	rdma(&q, MLX5_OPCODE_RDMA_WRITE, FZW_MR, 0, 64, 64, 1);
	rc |= put(argv[1], "wqe-remote-local-fault", &q);
	return rc;
}
