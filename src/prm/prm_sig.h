/* SPDX-License-Identifier: MIT */
/*
 * Signature offload in WQEs and CQEs (PRM "Signature" / "BSF"): the byte
 * stream format (BSF) a UMR WQE attaches to a signature mkey, the SET_PSV
 * segment that loads a PSV's transient signature, the signature-error CQE,
 * and the crypto BSF. Byte layouts, big-endian fields; sizes asserted.
 */
#ifndef SMX_PRM_PRM_SIG_H
#define SMX_PRM_PRM_SIG_H

#include <stdint.h>

/* BSF basic section: sizes, check/copy masks, block-size selectors and the
 * block format selector + PSV index of each domain. */
struct smx_bsf_basic {
	uint8_t bsf_size_sbs;	/* size << 6 | same-block-structure << 4 */
	uint8_t check_byte_mask;
	uint8_t wire_sel;	/* copy_byte_mask (sbs) or bs_selector */
	uint8_t mem_sel;	/* bs_selector */
	uint32_t raw_data_size;
	uint32_t w_bfs_psv;	/* bfs << 24 | psv index */
	uint32_t m_bfs_psv;
};

struct smx_bsf_ext {
	uint32_t t_init_gen_pro_size;
	uint32_t rsvd_epi_size;
	uint32_t w_tfs_psv;
	uint32_t m_tfs_psv;
};

/* Inline T10-DIF section of one domain. */
struct smx_bsf_inl {
	uint16_t vld_refresh;
	uint16_t dif_apptag;
	uint32_t dif_reftag;
	uint8_t sig_type;	/* SMX_T10DIF_CRC / SMX_T10DIF_IPCS */
	uint8_t rp_inv_seed;
	uint8_t rsvd[3];
	uint8_t dif_inc_ref_guard_check;
	uint16_t dif_app_bitmask_check;
};

struct smx_bsf {
	struct smx_bsf_basic basic;
	struct smx_bsf_ext ext;
	struct smx_bsf_inl w_inl;
	struct smx_bsf_inl m_inl;
};

struct smx_crypto_bsf {
	uint8_t bsf_size_type;
	uint8_t enc_order;
	uint8_t rsvd0;
	uint8_t enc_standard;
	uint32_t raw_data_size;
	uint8_t bs_pointer;
	uint8_t rsvd1[7];
	uint8_t xts_init_tweak[16];
	uint32_t rsvd_dek_ptr;
	uint8_t rsvd2[4];
	uint8_t keytag[8];
	uint8_t rsvd3[16];
};

/* SET_PSV WQE (opcode 0x20): ctrl, then this segment. */
struct smx_set_psv_seg {
	uint32_t psv_index;
	uint16_t syndrome;
	uint8_t rsvd[2];
	uint64_t transient_signature;
};

/* Signature error CQE (opcode MLX5_CQE_SIG_ERR). */
struct smx_sigerr_cqe {
	uint8_t rsvd0[16];
	uint32_t expected_trans_sig;
	uint32_t actual_trans_sig;
	uint32_t expected_ref_tag;
	uint32_t actual_ref_tag;
	uint16_t syndrome;
	uint8_t sig_type;
	uint8_t domain;
	uint32_t mkey;
	uint64_t sig_err_offset;
	uint8_t rsvd30[14];
	uint8_t signature;
	uint8_t op_own;
};

_Static_assert(sizeof(struct smx_bsf) == 64, "BSF is 4 octowords");
_Static_assert(sizeof(struct smx_crypto_bsf) == 64, "crypto BSF is 4 octowords");
_Static_assert(sizeof(struct smx_set_psv_seg) == 16, "SET_PSV segment");
_Static_assert(sizeof(struct smx_sigerr_cqe) == 64, "signature error CQE");

enum {
	SMX_BSF_SIZE_BASIC = 0,
	SMX_BSF_SIZE_EXTENDED = 1,
	SMX_BSF_SIZE_WITH_INLINE = 2,
	SMX_BSF_SIZE_SIG_AND_CRYPTO = 3,
	SMX_BSF_TYPE_CRYPTO = 1,
	SMX_BSF_SIZE_SHIFT = 6,
	SMX_BSF_SBS_SHIFT = 4,

	/* block format selectors (bits 31..24 of *_bfs_psv) for CRCs */
	SMX_BFS_CRC32_BASE = 0x20,
	SMX_BFS_CRC32C_BASE = 0x40,
	SMX_BFS_CRC64_XP10_BASE = 0x50,
	SMX_BFS_CRC_REPEAT_BIT = 0x2,
	SMX_BFS_CRC_SEED_BIT = 0x1,	/* set: seed 0; clear: all ones */
	SMX_BFS_SHIFT = 24,
	SMX_BSF_PSV_INDEX_MASK = 0xffffff,

	/* inline T10-DIF section */
	SMX_BSF_INL_VALID = 1 << 15,
	SMX_BSF_REFRESH_DIF = 1 << 14,
	SMX_BSF_REPEAT_BLOCK = 1 << 7,
	SMX_BSF_INC_REFTAG = 1 << 6,
	SMX_BSF_SEED = 1 << 3,
	SMX_BSF_APPTAG_ESCAPE = 0x1,
	SMX_BSF_APPREF_ESCAPE = 0x2,
	SMX_T10DIF_CRC = 0x1,
	SMX_T10DIF_IPCS = 0x2,

	/* block-size selectors */
	SMX_BS_SEL_512 = 1,
	SMX_BS_SEL_520 = 2,
	SMX_BS_SEL_4096 = 3,
	SMX_BS_SEL_4160 = 4,
	SMX_BS_SEL_4048 = 6,

	/* signature error CQE */
	SMX_SIGERR_SYND_REFTAG = 1 << 11,
	SMX_SIGERR_SYND_APPTAG = 1 << 12,
	SMX_SIGERR_SYND_GUARD = 1 << 13,
	SMX_SIGERR_SIG_TYPE_BLOCK = 0,
	SMX_SIGERR_DOMAIN_WIRE = 0,
	SMX_SIGERR_DOMAIN_MEMORY = 1,

	/* mkey context segment of a UMR WQE */
	SMX_MKC_SEG_FLAGS_BSF_ENABLE = 1 << 30,
	SMX_MKC_SEG_SIG_ERR_CNT_SHIFT = 26,
};

#endif
