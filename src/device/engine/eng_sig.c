/* SPDX-License-Identifier: MIT */
/*
 * Signature offload: the BSF a UMR attaches to a signature mkey, SET_PSV
 * WQEs, and the per-block transform every use of such a key goes through.
 *
 * A signature mkey has two domains, memory and wire, each unsigned or
 * protected per block of B data bytes by a T10-DIF tuple (8 bytes: guard,
 * application tag, reference tag) or a CRC32/CRC32C (4 bytes), stored after
 * the block, big-endian. n blocks are n * (B + m) bytes of the key's
 * layout in memory (m = the memory domain's signature bytes) and
 * n * (B + w) bytes on the wire; the key's address space is the wire
 * stream (see eng_sig_len()). Data leaving memory through the key
 * (SEND / WRITE gather, READ source) has its memory signature checked
 * against check_byte_mask and the wire signature generated; data arriving
 * (receive scatter, WRITE target) the reverse. With the same block
 * structure on both sides (sbs) the bytes of copy_byte_mask are copied from
 * the incoming signature instead of generated.
 *
 * A failed check does not fail the transfer: the data moves, and a
 * signature error CQE (opcode 12: mkey, domain, syndrome GUARD / APPTAG /
 * REFTAG -- the first failing in T10-DIF order --, expected and actual
 * values, offset of the block) goes to the CQ before the WQE's completion.
 * On a QP created with drain_sigerr the send queue then stops in SQD
 * (eng_sq.c). Guards: T10-DIF CRC is CRC-16/T10-DIF (poly 0x8bb7) from the
 * PSV's seed (or 0), IP checksum the inverted ones' complement sum of the
 * block's 16-bit words; CRC32 is the IEEE 802.3 CRC and CRC32C
 * Castagnoli's, both reflected, the register starting at the seed (0 or all
 * ones, per the block format selector) and inverted at the end. ISA-L does
 * the arithmetic. CRC64_XP10 is not offered (sig_crc64_xp10 = 0), nor are
 * different block sizes in the two domains.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/crc.h>

#include "device/engine/eng_crypto.h"
#include "device/engine/eng_loc.h"
#include "util/log.h"

static uint32_t sig_block_bytes(uint8_t sel)
{
	switch (sel) {
	case SMX_BS_SEL_512: return 512;
	case SMX_BS_SEL_520: return 520;
	case SMX_BS_SEL_4096: return 4096;
	case SMX_BS_SEL_4160: return 4160;
	case SMX_BS_SEL_4048: return 4048;
	default: return 0;
	}
}

/* Signature bytes per block of a domain. */
static uint32_t sig_bytes(const struct fw_sig_dom *d)
{
	switch (d->type) {
	case FW_SIG_T10DIF: return 8;
	case FW_SIG_CRC: return d->crc == FW_CRC64_XP10 ? 8 : 4;
	default: return 0;
	}
}

/* ------------------------------------------------------------------ */
/* The BSF of a UMR WQE                                               */
/* ------------------------------------------------------------------ */

static int sig_dom_parse(struct eng *e, struct fw_mkey *mk, const char *dname,
			 uint32_t bfs_psv, uint8_t bs_sel, const struct smx_bsf_inl *inl,
			 struct fw_sig_dom *d, uint32_t *block, char *why, size_t whylen)
{
	uint32_t key = mk->obj.id << 8 | mk->variant;
	uint8_t bfs = bfs_psv >> SMX_BFS_SHIFT;
	uint32_t bs;

	d->psv = fw_psv_lookup(e->fw, bfs_psv & SMX_BSF_PSV_INDEX_MASK);
	if (!d->psv || d->psv->pd != mk->pd) {
		snprintf(why, whylen, "UMR on key 0x%x: %s domain names psv 0x%x, "
			 "%s", key, dname, bfs_psv & SMX_BSF_PSV_INDEX_MASK,
			 d->psv ? "which is in another pd" : "which does not exist");
		return -1;
	}
	if (bfs) {
		switch (bfs & ~(SMX_BFS_CRC_REPEAT_BIT | SMX_BFS_CRC_SEED_BIT)) {
		case SMX_BFS_CRC32_BASE:
			d->crc = FW_CRC32;
			break;
		case SMX_BFS_CRC32C_BASE:
			d->crc = FW_CRC32C;
			break;
		default:
			snprintf(why, whylen, "UMR on key 0x%x: %s domain block "
				 "format selector 0x%x is not a supported CRC "
				 "(CRC32 0x2x, CRC32C 0x4x)", key, dname, bfs);
			return -1;
		}
		d->type = FW_SIG_CRC;
		d->crc_seed_ones = !(bfs & SMX_BFS_CRC_SEED_BIT);
	} else {
		uint16_t vr = be16toh(inl->vld_refresh);

		if (!(vr & SMX_BSF_INL_VALID) ||
		    (inl->sig_type != SMX_T10DIF_CRC && inl->sig_type != SMX_T10DIF_IPCS)) {
			snprintf(why, whylen, "UMR on key 0x%x: %s domain has no "
				 "block format selector and no valid T10-DIF inline "
				 "section (vld_refresh 0x%x, sig_type %u)", key,
				 dname, vr, inl->sig_type);
			return -1;
		}
		d->type = FW_SIG_T10DIF;
		d->t10_guard = inl->sig_type;
		d->t10_seed = !!(inl->rp_inv_seed & SMX_BSF_SEED);
		d->t10_inc_ref = !!(inl->dif_inc_ref_guard_check & SMX_BSF_INC_REFTAG);
		d->t10_escape = inl->dif_inc_ref_guard_check &
				(SMX_BSF_APPTAG_ESCAPE | SMX_BSF_APPREF_ESCAPE);
		d->app_tag = be16toh(inl->dif_apptag);
		d->ref_tag = be32toh(inl->dif_reftag);
	}
	if (bs_sel) {
		bs = sig_block_bytes(bs_sel);
		if (!bs) {
			snprintf(why, whylen, "UMR on key 0x%x: %s domain block "
				 "size selector %u is not 512/520/4096/4160/4048",
				 key, dname, bs_sel);
			return -1;
		}
		if (*block && *block != bs) {
			snprintf(why, whylen, "UMR on key 0x%x: blocks of %u bytes "
				 "in memory and %u on the wire: block size "
				 "conversion is not supported", key, *block, bs);
			return -1;
		}
		*block = bs;
	}
	return 0;
}

/*
 * Checks the BSF of a UMR configuring @mk, whose layout will be
 * @layout_len bytes, into @out (out->en false: no signed domain). Nothing
 * is installed: the caller does once the whole WQE checked out.
 */
/*
 * The crypto BSF (AES-XTS): order, data unit, initial tweak (big-endian),
 * DEK id and key tag. The DEK itself is checked when the key is used.
 */
static int crypto_bsf_parse(const struct fw_mkey *mk, const struct smx_crypto_bsf *cb,
			    uint32_t want_size, struct fw_mkey_crypto *c, char *why,
			    size_t whylen)
{
	uint32_t key = mk->obj.id << 8 | mk->variant;

	if (!mk->crypto_cap) {
		snprintf(why, whylen, "UMR on key 0x%x: crypto BSF for an mkey "
			 "created without crypto_en", key);
		return -1;
	}
	if ((cb->bsf_size_type & 0x3f) != SMX_BSF_TYPE_CRYPTO ||
	    (uint32_t)(cb->bsf_size_type >> SMX_BSF_SIZE_SHIFT) != want_size ||
	    cb->enc_standard != 0 || cb->enc_order > 3) {
		snprintf(why, whylen, "UMR on key 0x%x: crypto BSF size/type 0x%x "
			 "(want size %u, type crypto), standard %u (AES-XTS is 0), "
			 "order %u", key, cb->bsf_size_type, want_size,
			 cb->enc_standard, cb->enc_order);
		return -1;
	}
	memset(c, 0, sizeof(*c));
	c->du = sig_block_bytes(cb->bs_pointer);
	if (!c->du) {
		snprintf(why, whylen, "UMR on key 0x%x: crypto data unit selector "
			 "%u is not 512/520/4096/4160/4048", key, cb->bs_pointer);
		return -1;
	}
	/* orders: 0 encrypted wire + signature, 1 encrypted memory +
	 * signature, 2 raw wire, 3 raw memory */
	c->encrypt_on_tx = cb->enc_order == 0 || cb->enc_order == 2;
	c->sig_before = cb->enc_order == 0 || cb->enc_order == 3;
	memcpy(c->tweak_be, cb->xts_init_tweak, sizeof(c->tweak_be));
	c->dek = be32toh(cb->rsvd_dek_ptr) & 0xffffff;
	memcpy(c->keytag, cb->keytag, sizeof(c->keytag));
	c->en = true;
	return 0;
}

uint8_t eng_sig_bsf(struct eng *e, struct fw_mkey *mk, const uint8_t *bsf,
		    uint32_t bsf_bytes, uint64_t layout_len, struct fw_sig *out,
		    struct fw_mkey_crypto *cout, char *why, size_t whylen)
{
	uint32_t key = mk->obj.id << 8 | mk->variant;
	const struct smx_bsf *b = (const void *)bsf;
	uint32_t m, w, size;
	struct fw_sig s;

	memset(out, 0, sizeof(*out));
	memset(cout, 0, sizeof(*cout));
	if (!mk->bsf_cap) {
		snprintf(why, whylen, "UMR on key 0x%x: BSF for an mkey created "
			 "without bsf_en", key);
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	}
	if (bsf_bytes < sizeof(*b) || bsf_bytes % sizeof(*b) ||
	    bsf_bytes > 2 * sizeof(*b)) {
		snprintf(why, whylen, "UMR on key 0x%x: BSF of %u bytes, a BSF "
			 "takes %zu (signature or crypto) or %zu (both)", key,
			 bsf_bytes, sizeof(*b), 2 * sizeof(*b));
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	}
	/* A crypto BSF alone (its type nibble says so), else signature first. */
	if ((bsf[0] & 0x0f) == SMX_BSF_TYPE_CRYPTO) {
		if (bsf_bytes != sizeof(*b)) {
			snprintf(why, whylen, "UMR on key 0x%x: a crypto BSF first "
				 "in %u BSF bytes (a signature BSF comes first)",
				 key, bsf_bytes);
			goto bad_crypto;
		}
		if (crypto_bsf_parse(mk, (const void *)bsf, SMX_BSF_SIZE_WITH_INLINE,
				     cout, why, whylen))
			goto bad_crypto;
		return 0;
	}
	size = b->basic.bsf_size_sbs >> SMX_BSF_SIZE_SHIFT;
	if (size != (bsf_bytes > sizeof(*b) ? SMX_BSF_SIZE_SIG_AND_CRYPTO :
					      SMX_BSF_SIZE_WITH_INLINE)) {
		snprintf(why, whylen, "UMR on key 0x%x: signature BSF size %u in "
			 "%u BSF bytes (inline signature 2 alone, signature and "
			 "crypto 3 before a crypto BSF)", key, size, bsf_bytes);
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	}
	if (bsf_bytes > sizeof(*b) &&
	    crypto_bsf_parse(mk, (const void *)(bsf + sizeof(*b)),
			     SMX_BSF_SIZE_SIG_AND_CRYPTO, cout, why, whylen))
		goto bad_crypto;
	memset(&s, 0, sizeof(s));
	s.check_mask = b->basic.check_byte_mask;
	s.sbs = !!(b->basic.bsf_size_sbs & (1 << SMX_BSF_SBS_SHIFT));
	if (b->basic.m_bfs_psv || (be16toh(b->m_inl.vld_refresh) & SMX_BSF_INL_VALID)) {
		if (sig_dom_parse(e, mk, "memory", be32toh(b->basic.m_bfs_psv),
				  b->basic.mem_sel, &b->m_inl, &s.mem, &s.block,
				  why, whylen))
			return MLX5_CQE_SYNDROME_MW_BIND_ERR;
		if (!b->basic.mem_sel) {
			snprintf(why, whylen, "UMR on key 0x%x: memory domain "
				 "without a block size", key);
			return MLX5_CQE_SYNDROME_MW_BIND_ERR;
		}
	}
	if (b->basic.w_bfs_psv || (be16toh(b->w_inl.vld_refresh) & SMX_BSF_INL_VALID)) {
		if (sig_dom_parse(e, mk, "wire", be32toh(b->basic.w_bfs_psv),
				  s.sbs ? 0 : b->basic.wire_sel, &b->w_inl, &s.wire,
				  &s.block, why, whylen))
			return MLX5_CQE_SYNDROME_MW_BIND_ERR;
		if (s.sbs) {
			if (s.mem.type != s.wire.type) {
				snprintf(why, whylen, "UMR on key 0x%x: same block "
					 "structure with different signature types",
					 key);
				return MLX5_CQE_SYNDROME_MW_BIND_ERR;
			}
			s.copy_mask = b->basic.wire_sel;
		} else if (!b->basic.wire_sel) {
			snprintf(why, whylen, "UMR on key 0x%x: wire domain "
				 "without a block size", key);
			return MLX5_CQE_SYNDROME_MW_BIND_ERR;
		}
	} else if (s.sbs) {
		snprintf(why, whylen, "UMR on key 0x%x: same block structure "
			 "without a wire domain", key);
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	}
	m = sig_bytes(&s.mem);
	w = sig_bytes(&s.wire);
	s.en = m || w;
	/* The device cannot encrypt raw data with both domains signed. */
	if (cout->en && m && w &&
	    ((cout->encrypt_on_tx && !cout->sig_before) ||
	     (!cout->encrypt_on_tx && cout->sig_before))) {
		snprintf(why, whylen, "UMR on key 0x%x: raw-data crypto order with "
			 "both signature domains is not supported", key);
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	}
	if (s.en && layout_len % (s.block + m)) {
		snprintf(why, whylen, "UMR on key 0x%x: layout of 0x%llx bytes is "
			 "not a whole number of %u-byte memory blocks", key,
			 (unsigned long long)layout_len, s.block + m);
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	}
	*out = s;
	return 0;
bad_crypto:
	memset(cout, 0, sizeof(*cout));
	return MLX5_CQE_SYNDROME_MW_BIND_ERR;
}

/* SET_PSV WQE: ctrl, then {psv_index, syndrome, transient_signature}. */
uint8_t eng_sig_set_psv(struct eng *e, struct fw_qp *qp, const uint8_t *wqe,
			uint32_t len, char *why, size_t whylen)
{
	const struct smx_set_psv_seg *ps = (const void *)(wqe + 16);
	struct fw_psv *psv;

	if (len < 32) {
		snprintf(why, whylen, "SET_PSV WQE of %u bytes, needs 32", len);
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	psv = fw_psv_lookup(e->fw, be32toh(ps->psv_index));
	if (!psv || psv->pd != qp->pd) {
		snprintf(why, whylen, "SET_PSV of psv 0x%x: %s",
			 be32toh(ps->psv_index) & 0xffffff,
			 psv ? "it is in another pd than the QP" : "no such PSV");
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	}
	psv->transient = be64toh(ps->transient_signature);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Block arithmetic                                                   */
/* ------------------------------------------------------------------ */

static uint16_t sig_ipcs(const uint8_t *p, uint32_t n, uint16_t seed)
{
	uint32_t sum = seed, i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, (uint16_t)v);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The signature of data block @blk (counted from the key's start). */
static void sig_gen(const struct fw_sig_dom *d, const uint8_t *data, uint32_t bs,
		    uint64_t blk, uint8_t out[8])
{
	memset(out, 0, 8);
	if (d->type == FW_SIG_T10DIF) {
		uint16_t seed = d->t10_seed ? (uint16_t)(d->psv->transient >> 48) : 0;
		uint16_t g = d->t10_guard == SMX_T10DIF_CRC ?
			     crc16_t10dif(seed, data, bs) : sig_ipcs(data, bs, seed);

		put_be16(out, g);
		put_be16(out + 2, d->app_tag);
		put_be32(out + 4, d->t10_inc_ref ? d->ref_tag + (uint32_t)blk :
			 d->ref_tag);
	} else if (d->type == FW_SIG_CRC) {
		uint32_t seed = d->crc_seed_ones ? 0xffffffffu : 0;
		uint32_t c;

		if (d->crc == FW_CRC32C)
			c = ~crc32_iscsi((unsigned char *)data, (int)bs, seed);
		else
			c = crc32_gzip_refl(~seed, data, bs);
		put_be32(out, c);
	}
}

/*
 * Checks the incoming signature @got of block @blk against the one computed
 * from @data, on the bytes of check_mask (bit 7 = signature byte 0). The
 * first failure of a transfer is kept in @err.
 */
static void sig_check(const struct fw_sig *s, const struct fw_sig_dom *d, uint8_t domain,
		      const uint8_t *data, const uint8_t *got, uint64_t blk,
		      struct eng_sig_err *err)
{
	uint32_t n = sig_bytes(d), i;
	uint8_t exp[8], bad = 0;
	uint16_t synd;

	if (!s->check_mask || err->set)
		return;
	sig_gen(d, data, s->block, blk, exp);
	if (d->type == FW_SIG_T10DIF) {
		uint16_t app = (uint16_t)(got[2] << 8 | got[3]);

		if ((d->t10_escape & SMX_BSF_APPREF_ESCAPE) && app == 0xffff &&
		    get_be32(got + 4) == 0xffffffffu)
			return;
		if ((d->t10_escape & SMX_BSF_APPTAG_ESCAPE) && app == 0xffff)
			return;
	}
	for (i = 0; i < n; i++)
		if ((s->check_mask >> (7 - i) & 1) && exp[i] != got[i])
			bad |= (uint8_t)(0x80 >> i);
	if (!bad)
		return;
	if (d->type == FW_SIG_T10DIF)
		synd = bad & 0xc0 ? SMX_SIGERR_SYND_GUARD :
		       bad & 0x30 ? SMX_SIGERR_SYND_APPTAG : SMX_SIGERR_SYND_REFTAG;
	else
		synd = SMX_SIGERR_SYND_GUARD;
	err->set = true;
	err->domain = domain;
	err->syndrome = synd;
	/* the block's offset in the key's (wire) address space */
	err->offset = blk * (s->block + sig_bytes(&s->wire));
	err->expected_sig = get_be32(exp);
	err->actual_sig = get_be32(got);
	err->expected_ref = n == 8 ? get_be32(exp + 4) : 0;
	err->actual_ref = n == 8 ? get_be32(got + 4) : 0;
}

/* ------------------------------------------------------------------ */
/* Transfers through a signature mkey                                 */
/* ------------------------------------------------------------------ */

/*
 * The key's address space is its wire stream: what an SGE, an RDMA
 * address or a length names through the key is wire bytes, data and the
 * wire domain's signatures interleaved (as rdma-core's tests and the
 * kernel's rdma_rw use it: 512 bytes through a key with a wire CRC are
 * the block's data without its CRC). A transfer may start and end inside
 * a block; a block's signature is checked only when the transfer covers
 * the whole block on the wire, and generated (like the data) only where
 * the transfer reaches it. The layout is whole memory blocks (eng_sig_bsf).
 */
struct sig_geo {
	bool sig;
	uint64_t B, MB, WB;	/* data, memory and wire bytes per block */
	uint64_t L, W;		/* layout and wire stream lengths */
};

static void sig_geo(const struct fw_mkey *mk, struct sig_geo *g)
{
	g->sig = mk->sig.en;
	g->B = g->sig ? mk->sig.block : 1;
	g->MB = g->B + (g->sig ? sig_bytes(&mk->sig.mem) : 0);
	g->WB = g->B + (g->sig ? sig_bytes(&mk->sig.wire) : 0);
	g->L = mk->len;
	g->W = mk->len / g->MB * g->WB;
}

static uint64_t round_dn(uint64_t v, uint64_t u) { return v / u * u; }
static uint64_t round_up_to(uint64_t v, uint64_t u, uint64_t lim)
{
	uint64_t r = (v + u - 1) / u * u;

	return r < lim ? r : lim;
}

uint64_t eng_sig_len(const struct fw_mkey *mk)
{
	struct sig_geo g;

	sig_geo(mk, &g);
	return g.W;
}

bool eng_sig_span(const struct fw_mkey *mk, uint64_t va, uint64_t len,
		  uint64_t *mva, uint64_t *mlen, char *why, size_t whylen)
{
	uint64_t off = va - mk->start, k0, k1;
	uint32_t key = mk->obj.id << 8 | mk->variant;
	struct sig_geo g;

	sig_geo(mk, &g);
	if (mk->crypto_cap && !mk->crypto.en) {
		if (why)
			snprintf(why, whylen, "crypto key 0x%x is used before a UMR "
				 "configured its crypto properties", key);
		return false;
	}
	if (va < mk->start || off > g.W || len > g.W - off) {
		if (why)
			snprintf(why, whylen, "%s key 0x%x: [0x%llx,+0x%llx) is "
				 "outside its 0x%llx-byte wire address space",
				 g.sig ? "signature" : "crypto", key,
				 (unsigned long long)va, (unsigned long long)len,
				 (unsigned long long)g.W);
		return false;
	}
	/* the layout of every block the range touches */
	k0 = off / g.WB;
	k1 = len ? (off + len + g.WB - 1) / g.WB : k0;
	*mva = mk->start + k0 * g.MB;
	*mlen = (k1 - k0) * g.MB;
	return true;
}

/* Copies between @buf and bytes [off, off + n) of @mk's layout. */
static bool sig_mem_io(struct fw_mkey *mk, uint64_t off, uint8_t *buf, uint64_t n,
		       bool to_mem)
{
	struct eng_sge ks = { NULL, mk, mk->start + off, n };
	struct eng_sge hs = { buf, NULL, 0, n };
	struct eng_sgl kl = { &ks, 1, n }, hl = { &hs, 1, n };

	/* eng_mkey_host() walks the KLM layout itself: the signature and
	 * crypto state play no part in it. */
	return to_mem ? eng_sgl_copy(&kl, 0, &hl, 0, n) == n :
			eng_sgl_copy(&hl, 0, &kl, 0, n) == n;
}

/* The key's DEK, checked at every use like an inner key; NULL + @err. */
static const struct fw_dek *sig_dek(struct fw_mkey *mk, struct eng_sig_err *err)
{
	const struct fw_mkey_crypto *c = &mk->crypto;
	const struct fw_dek *dek = fw_dek_lookup(mk->fw, c->dek);

	if (!dek || dek->state != MLX5_ENCRYPTION_KEY_OBJ_STATE_READY ||
	    !mk->pd || dek->pdn != mk->pd->obj.id ||
	    (dek->has_keytag && memcmp(dek->keytag, c->keytag, 8))) {
		snprintf(err->why, sizeof(err->why), "crypto key 0x%x: DEK 0x%x %s",
			 mk->obj.id << 8 | mk->variant, c->dek,
			 !dek ? "does not exist" :
			 dek->state != MLX5_ENCRYPTION_KEY_OBJ_STATE_READY ? "is not ready" :
			 !mk->pd || dek->pdn != mk->pd->obj.id ? "is in another pd" :
			 "has another key tag");
		return NULL;
	}
	return dek;
}

/*
 * The crypto step over a stream: @n bytes at byte @at (a data unit
 * boundary) of the key's memory or wire stream (which one the order
 * decides), en- or decrypted as the direction requires: encrypt_on_tx
 * encrypts on TX and decrypts on RX.
 */
static int sig_crypt(struct fw_mkey *mk, uint8_t *buf, uint64_t n, uint64_t at,
		     bool tx, struct eng_sig_err *err)
{
	const struct fw_mkey_crypto *c = &mk->crypto;
	const struct fw_dek *dek = sig_dek(mk, err);

	if (!dek)
		return -1;
	if (eng_xts_crypt(dek->key, dek->key_len, tx == c->encrypt_on_tx, c->tweak_be,
			  at / c->du, c->du, buf, buf, n)) {
		snprintf(err->why, sizeof(err->why), "crypto key 0x%x: AES-XTS "
			 "cannot process %llu bytes in %u-byte data units (a "
			 "last unit under 16 bytes)", mk->obj.id << 8 | mk->variant,
			 (unsigned long long)n, c->du);
		return -1;
	}
	return 0;
}

/*
 * One block from domain @from (data + its signature, @from_id for error
 * reports) to domain @to: the incoming signature checked (when @check),
 * the data copied, the outgoing signature generated -- or, with the same
 * block structure, the bytes of copy_mask taken from the incoming one.
 */
static void sig_block_convert(const struct fw_sig *s, const struct fw_sig_dom *from,
			      const struct fw_sig_dom *to, uint8_t from_id, bool check,
			      const uint8_t *in, uint8_t *out, uint64_t blk,
			      struct eng_sig_err *err)
{
	uint32_t B = s->block, ni = sig_bytes(from), no = sig_bytes(to), i;
	uint8_t gen[8];

	if (ni && check)
		sig_check(s, from, from_id, in, in + B, blk, err);
	memcpy(out, in, B);
	if (!no)
		return;
	sig_gen(to, in, B, blk, gen);
	if (s->sbs && ni)
		for (i = 0; i < no; i++)
			if (s->copy_mask >> (7 - i) & 1)
				gen[i] = in[B + i];
	memcpy(out + B, gen, no);
}

/*
 * Memory -> wire (TX: SEND / WRITE gather, READ source): wire bytes
 * [va, +len) into @out, stage by stage as mlx5dv_wr_set_mkey_crypto(3)'s
 * table orders them: with the signature after crypto on TX, crypto runs on
 * the memory stream (data and memory signatures as they sit in memory),
 * else on the wire stream. Whole blocks and whole data units are built
 * around the range, then the range is cut out of them.
 */
int eng_sig_read(struct fw_mkey *mk, uint64_t va, uint64_t len, uint8_t *out,
		 struct eng_sig_err *err)
{
	const struct fw_sig *s = &mk->sig;
	bool cry = mk->crypto.en, wire_cry, mem_cry;
	uint64_t du = cry ? mk->crypto.du : 1, off = va - mk->start, end = off + len;
	uint64_t a = off, b = end, k0, k1, ma, mb, k;
	uint8_t *M = NULL, *Wb = NULL;
	struct sig_geo g;
	int rc = -1;

	sig_geo(mk, &g);
	wire_cry = cry && mk->crypto.sig_before && g.sig;
	mem_cry = cry && !wire_cry;
	if (!len)
		return 0;
	if (wire_cry) {		/* whole data units of the wire stream */
		a = round_dn(a, du);
		b = round_up_to(b, du, g.W);
	}
	k0 = a / g.WB;
	k1 = (b + g.WB - 1) / g.WB;
	ma = k0 * g.MB;
	mb = k1 * g.MB;
	if (mem_cry) {		/* whole data units of the memory stream */
		ma = round_dn(ma, du);
		mb = round_up_to(mb, du, g.L);
	}
	M = malloc(mb - ma);
	Wb = g.sig ? malloc((k1 - k0) * g.WB) : NULL;
	if (!M || (g.sig && !Wb)) {
		snprintf(err->why, sizeof(err->why), "no memory for %llu bytes",
			 (unsigned long long)(mb - ma));
		goto out;
	}
	if (!sig_mem_io(mk, ma, M, mb - ma, false)) {
		snprintf(err->why, sizeof(err->why), "its layout could not be read");
		goto out;
	}
	if (mem_cry && sig_crypt(mk, M, mb - ma, ma, true, err))
		goto out;
	if (!g.sig) {
		memcpy(out, M + (off - ma), len);
		rc = 0;
		goto out;
	}
	for (k = k0; k < k1; k++)
		sig_block_convert(s, &s->mem, &s->wire, SMX_SIGERR_DOMAIN_MEMORY,
				  off <= k * g.WB && (k + 1) * g.WB <= end,
				  M + (k * g.MB - ma), Wb + (k - k0) * g.WB, k, err);
	if (wire_cry && sig_crypt(mk, Wb + (a - k0 * g.WB), b - a, a, true, err))
		goto out;
	memcpy(out, Wb + (off - k0 * g.WB), len);
	rc = 0;
out:
	free(M);
	free(Wb);
	return rc;
}

/*
 * Wire -> memory (RX: receive scatter, WRITE target): wire bytes [va, +len)
 * from @in. Blocks the range covers whole are converted (wire signature
 * checked, memory signature generated); in a block it covers in part only
 * the data bytes it carries land. Crypto needs whole data units of its
 * stream: a range that cuts one is refused before memory is touched.
 */
int eng_sig_write(struct fw_mkey *mk, uint64_t va, uint64_t len, const uint8_t *in,
		  struct eng_sig_err *err)
{
	const struct fw_sig *s = &mk->sig;
	bool cry = mk->crypto.en, wire_cry, mem_cry;
	uint64_t du = cry ? mk->crypto.du : 1, off = va - mk->start, end = off + len;
	uint32_t key = mk->obj.id << 8 | mk->variant;
	uint64_t k0, k1, k, ma;
	uint8_t *Wc = NULL, *M = NULL;
	struct sig_geo g;
	int rc = -1;

	sig_geo(mk, &g);
	wire_cry = cry && mk->crypto.sig_before && g.sig;
	mem_cry = cry && !wire_cry;
	if (!len)
		return 0;
	k0 = off / g.WB;
	k1 = (end + g.WB - 1) / g.WB;
	ma = k0 * g.MB;
	if ((wire_cry || (mem_cry && !g.sig)) && (off % du || (end % du && end != g.W))) {
		snprintf(err->why, sizeof(err->why), "crypto key 0x%x: [0x%llx,"
			 "+0x%llx) of its stream cuts a %llu-byte data unit",
			 key, (unsigned long long)off, (unsigned long long)len,
			 (unsigned long long)du);
		return -1;
	}
	if (mem_cry && g.sig &&
	    (off % g.WB || end % g.WB || ma % du ||
	     (k1 * g.MB % du && k1 * g.MB != g.L))) {
		snprintf(err->why, sizeof(err->why), "crypto key 0x%x: [0x%llx,"
			 "+0x%llx) is not whole blocks in whole %llu-byte data "
			 "units of memory", key, (unsigned long long)off,
			 (unsigned long long)len, (unsigned long long)du);
		return -1;
	}
	Wc = malloc(len);
	M = malloc((k1 - k0) * g.MB);
	if (!Wc || !M) {
		snprintf(err->why, sizeof(err->why), "no memory for %llu bytes",
			 (unsigned long long)len);
		goto out;
	}
	memcpy(Wc, in, len);
	if (wire_cry && sig_crypt(mk, Wc, len, off, false, err))
		goto out;
	if (!g.sig) {
		if (mem_cry && sig_crypt(mk, Wc, len, off, false, err))
			goto out;
		if (!sig_mem_io(mk, off, Wc, len, true))
			goto no_layout;
		rc = 0;
		goto out;
	}
	for (k = k0; k < k1; k++) {
		uint64_t wa = k * g.WB, p0 = off > wa ? off : wa;
		uint64_t p1 = end < wa + g.B ? end : wa + g.B;
		uint8_t *mb = M + (k - k0) * g.MB;

		if (off <= wa && wa + g.WB <= end) {
			sig_block_convert(s, &s->wire, &s->mem, SMX_SIGERR_DOMAIN_WIRE,
					  true, Wc + (wa - off), mb, k, err);
			continue;
		}
		/* part of a block: its data bytes only, nothing to check */
		if (p0 < p1 && !sig_mem_io(mk, k * g.MB + (p0 - wa), Wc + (p0 - off),
					   p1 - p0, true))
			goto no_layout;
	}
	/* the whole blocks, one run of memory (with crypto: every block) */
	{
		uint64_t f0 = (off + g.WB - 1) / g.WB, f1 = end / g.WB;

		if (f0 < f1) {
			if (mem_cry && sig_crypt(mk, M + (f0 - k0) * g.MB, (f1 - f0) * g.MB,
					     f0 * g.MB, false, err))
				goto out;
			if (!sig_mem_io(mk, f0 * g.MB, M + (f0 - k0) * g.MB,
					(f1 - f0) * g.MB, true))
				goto no_layout;
		}
	}
	rc = 0;
	goto out;
no_layout:
	snprintf(err->why, sizeof(err->why), "its layout could not be written");
out:
	free(Wc);
	free(M);
	return rc;
}

void eng_sig_report(struct eng *e, struct fw_cq *cq, const struct fw_mkey *mk,
		    uint32_t qpn, const struct eng_sig_err *err)
{
	struct smx_sigerr_cqe sc;
	struct eng_cqe c;

	smx_dbg("engine: signature error on key 0x%x (qp 0x%x): %s domain, %s, "
		"block at data offset 0x%llx: expected 0x%08x/0x%08x, actual "
		"0x%08x/0x%08x", mk->obj.id << 8 | mk->variant, qpn,
		err->domain == SMX_SIGERR_DOMAIN_MEMORY ? "memory" : "wire",
		err->syndrome == SMX_SIGERR_SYND_GUARD ? "bad guard/CRC" :
		err->syndrome == SMX_SIGERR_SYND_APPTAG ? "bad application tag" :
		"bad reference tag", (unsigned long long)err->offset,
		err->expected_sig, err->expected_ref, err->actual_sig,
		err->actual_ref);
	if (!cq)
		return;
	memset(&sc, 0, sizeof(sc));
	sc.expected_trans_sig = htobe32(err->expected_sig);
	sc.actual_trans_sig = htobe32(err->actual_sig);
	sc.expected_ref_tag = htobe32(err->expected_ref);
	sc.actual_ref_tag = htobe32(err->actual_ref);
	sc.syndrome = htobe16(err->syndrome);
	sc.sig_type = SMX_SIGERR_SIG_TYPE_BLOCK;
	sc.domain = err->domain;
	sc.mkey = htobe32(mk->obj.id << 8 | mk->variant);
	sc.sig_err_offset = htobe64(err->offset);
	memset(&c, 0, sizeof(c));
	c.opcode = MLX5_CQE_SIG_ERR;
	c.qpn = qpn;
	c.raw = &sc;
	eng_cqe_post(e, cq, &c);
}
