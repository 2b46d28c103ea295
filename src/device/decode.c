/* SPDX-License-Identifier: MIT */
/*
 * Decoders: WQE, CQE, PRM mailbox, RoCEv2 packet -> one line of named
 * fields (decode.h). Pure functions of the bytes given.
 */
#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "device/decode.h"
#include "device/engine/eng_loc.h"
#include "device/fw/fw.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"
#include "prm/prm.h"
#include "prm/prm_sig.h"
#include "util/parse.h"

struct dec_out {
	char *p;
	size_t room;
	int n;
};

static void add(struct dec_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct dec_out *o, const char *fmt, ...)
{
	va_list ap;
	size_t at = (size_t)o->n;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(at < o->room ? o->p + at : NULL, at < o->room ? o->room - at : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n += k;
}

static struct dec_out dec_begin(char *out, size_t room)
{
	if (room)
		out[0] = '\0';
	return (struct dec_out){ .p = out, .room = room };
}

/* Copies the @sz-byte segment at @off, or says the dump ends inside it. */
static bool seg(struct dec_out *o, void *dst, size_t sz, const uint8_t *buf, size_t len,
		size_t off, const char *name)
{
	if (off > len || len - off < sz) {
		add(o, " | %s truncated (%zu of %zu bytes)", name, off < len ? len - off : 0, sz);
		return false;
	}
	memcpy(dst, buf + off, sz);
	return true;
}

static void add_bytes(struct dec_out *o, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		add(o, "%02x", p[i]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- send WQEs -------------------------------------------------------------- */

static const char *wqe_op_name(uint8_t op)
{
	bool r, a, u;
	const char *n = eng_sq_op_layout(op, &r, &a, &u);

	if (n)
		return n;
	/* Opcodes the requester does not execute, named for the reader. */
	switch (op) {
	case MLX5_OPCODE_LOCAL_INVAL: return "LOCAL_INVAL";
	case MLX5_OPCODE_TSO: return "TSO";
	case MLX5_OPCODE_ATOMIC_MASKED_CS: return "ATOMIC_MASKED_CS";
	case MLX5_OPCODE_ATOMIC_MASKED_FA: return "ATOMIC_MASKED_FA";
	case MLX5_OPCODE_CONFIG_CMD: return "CONFIG_CMD";
	default: return NULL;
	}
}

static void dec_av(struct dec_out *o, const struct mlx5_wqe_av *av, bool dc)
{
	uint32_t dqp = be32toh(av->dqp_dct);

	if (dc)
		add(o, " | av dc_key=0x%016llx", (unsigned long long)be64toh(av->key.dc_key));
	else
		add(o, " | av qkey=0x%08x", be32toh(av->key.qkey.qkey));
	add(o, " dqpn=0x%06x ext=%u sl=%u rlid=0x%04x", dqp & 0xffffff, dqp >> 31,
	    av->stat_rate_sl & 0xf, be16toh(av->rlid));
	if (be32toh(av->grh_gid_fl) & (1u << 30)) {
		add(o, " grh=1 flow_label=0x%05x tclass=%u hop_limit=%u rgid=",
		    be32toh(av->grh_gid_fl) & 0xfffff, av->tclass, av->hop_limit);
		add_bytes(o, av->rgid, 16);
	}
	add(o, " rmac=%02x:%02x:%02x:%02x:%02x:%02x", av->rmac[0], av->rmac[1], av->rmac[2],
	    av->rmac[3], av->rmac[4], av->rmac[5]);
}

/* A signature BSF (prm_sig.h): sizes, masks, both domains' block format
 * selectors and PSVs, and the inline T10-DIF sections. */
static void dec_sig_bsf(struct dec_out *o, const struct smx_bsf *b)
{
	static const char *const dom[2] = { "wire", "mem" };
	const struct smx_bsf_inl *inl[2] = { &b->w_inl, &b->m_inl };
	uint32_t bfs[2] = { be32toh(b->basic.w_bfs_psv), be32toh(b->basic.m_bfs_psv) };
	int d;

	add(o, " | sig_bsf size=%u sbs=%u check_byte_mask=0x%02x wire_sel=0x%02x "
	    "mem_sel=0x%02x raw_data_size=%u", b->basic.bsf_size_sbs >> SMX_BSF_SIZE_SHIFT,
	    b->basic.bsf_size_sbs >> SMX_BSF_SBS_SHIFT & 1, b->basic.check_byte_mask,
	    b->basic.wire_sel, b->basic.mem_sel, be32toh(b->basic.raw_data_size));
	for (d = 0; d < 2; d++) {
		uint16_t v = be16toh(inl[d]->vld_refresh);

		add(o, " %s_bfs=0x%02x %s_psv=0x%06x", dom[d], bfs[d] >> SMX_BFS_SHIFT, dom[d],
		    bfs[d] & SMX_BSF_PSV_INDEX_MASK);
		if (!(v & SMX_BSF_INL_VALID))
			continue;
		add(o, " %s_dif=(refresh=%u sig_type=%u app_tag=0x%04x ref_tag=0x%08x "
		    "inc_ref_guard_check=0x%02x app_bitmask_check=0x%04x)", dom[d],
		    !!(v & SMX_BSF_REFRESH_DIF), inl[d]->sig_type,
		    be16toh(inl[d]->dif_apptag), be32toh(inl[d]->dif_reftag),
		    inl[d]->dif_inc_ref_guard_check,
		    be16toh(inl[d]->dif_app_bitmask_check));
	}
}

/* A crypto BSF (prm_sig.h): standard, order, data size, tweak, DEK. */
static void dec_crypto_bsf(struct dec_out *o, const struct smx_crypto_bsf *c)
{
	add(o, " | crypto_bsf size=%u type=%u enc_order=%u enc_standard=%u "
	    "raw_data_size=%u bs_pointer=%u dek=0x%06x xts_init_tweak=",
	    c->bsf_size_type >> SMX_BSF_SIZE_SHIFT, c->bsf_size_type & 0x0f,
	    c->enc_order, c->enc_standard, be32toh(c->raw_data_size), c->bs_pointer,
	    be32toh(c->rsvd_dek_ptr) & 0xffffff);
	add_bytes(o, c->xts_init_tweak, sizeof(c->xts_init_tweak));
	add(o, " keytag=");
	add_bytes(o, c->keytag, sizeof(c->keytag));
}

/*
 * What follows a UMR's mkey context when its translations are inline, as
 * the engine reads it (eng_umr.c): a repeat block (a 16-byte header whose
 * op is 0x400, then its entries) or a KLM list (16 bytes each: byte count,
 * key, address -- an MTT mkey's pairs of page addresses cannot be told
 * from them without the key and show as KLMs), then @bsf_octw octowords of
 * BSF: a crypto BSF alone (its type nibble says so), or a signature BSF, a
 * crypto one after it when there are two.
 */
#define DEC_UMR_REPEAT_BLOCK_OP 0x400
static void dec_umr_xlt(struct dec_out *o, const uint8_t *buf, size_t len, size_t *off,
			uint32_t xlt_octw, uint32_t bsf_octw)
{
	struct mlx5_wqe_umr_repeat_block_seg rb;
	uint32_t i = 0;

	if (xlt_octw && !seg(o, &rb, sizeof(rb), buf, len, *off, "xlt"))
		return;
	if (xlt_octw && be32toh(rb.op) == DEC_UMR_REPEAT_BLOCK_OP) {
		*off += sizeof(rb);
		add(o, " | repeat_block byte_count=%u repeat_count=%u num_ent=%u",
		    be32toh(rb.byte_count), be32toh(rb.repeat_count), be16toh(rb.num_ent));
		for (i = 1; i < xlt_octw && i <= be16toh(rb.num_ent); i++) {
			struct mlx5_wqe_umr_repeat_ent_seg r;

			if (!seg(o, &r, sizeof(r), buf, len, *off, "repeat_ent"))
				return;
			*off += sizeof(r);
			add(o, " | repeat_ent[%u] stride=%u byte_count=%u mkey=0x%08x va=0x%llx",
			    i - 1, be16toh(r.stride), be16toh(r.byte_count), be32toh(r.memkey),
			    (unsigned long long)be64toh(r.va));
		}
		*off += (size_t)(xlt_octw - i) * 16u;	/* padding entries */
		i = xlt_octw;
	}
	for (; i < xlt_octw; i++) {
		struct mlx5_wqe_umr_klm_seg k;

		if (!seg(o, &k, sizeof(k), buf, len, *off, "klm"))
			return;
		*off += sizeof(k);
		add(o, " | klm[%u] byte_count=%u mkey=0x%08x va=0x%llx", i,
		    be32toh(k.byte_count), be32toh(k.mkey), (unsigned long long)be64toh(k.address));
	}
	if (bsf_octw != 4 && bsf_octw != 8) {
		if (bsf_octw)
			add(o, " | bsf octowords=%u (not 4 or 8)", bsf_octw);
		return;
	}
	if (*off + 64 <= len && (buf[*off] & 0x0f) == SMX_BSF_TYPE_CRYPTO) {
		struct smx_crypto_bsf c;

		if (seg(o, &c, sizeof(c), buf, len, *off, "crypto_bsf"))
			dec_crypto_bsf(o, &c);
		*off += sizeof(c);
		return;
	}
	{
		struct smx_bsf b;

		if (!seg(o, &b, sizeof(b), buf, len, *off, "sig_bsf"))
			return;
		*off += sizeof(b);
		dec_sig_bsf(o, &b);
	}
	if (bsf_octw == 8) {
		struct smx_crypto_bsf c;

		if (!seg(o, &c, sizeof(c), buf, len, *off, "crypto_bsf"))
			return;
		*off += sizeof(c);
		dec_crypto_bsf(o, &c);
	}
}

static void dec_umr(struct dec_out *o, const uint8_t *buf, size_t len, size_t *off)
{
	struct mlx5_wqe_umr_ctrl_seg u;
	struct mlx5_wqe_mkey_context_seg m;
	uint32_t qm, fp;

	if (!seg(o, &u, sizeof(u), buf, len, *off, "umr_ctrl"))
		return;
	*off += sizeof(u);
	add(o, " | umr_ctrl flags=0x%02x%s%s xlt_octowords=%u %s=%u mkey_mask=0x%016llx",
	    u.flags, u.flags & MLX5_WQE_UMR_CTRL_FLAG_INLINE ? "(inline" : "(",
	    u.flags & MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE ? ",check_free)" : ")",
	    be16toh(u.klm_octowords),
	    be64toh(u.mkey_mask) & MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE ?
	    "bsf_octowords" : "xlt_offset", be16toh(u.translation_offset),
	    (unsigned long long)be64toh(u.mkey_mask));
	if (!seg(o, &m, sizeof(m), buf, len, *off, "mkey_ctx"))
		return;
	*off += sizeof(m);
	qm = be32toh(m.qpn_mkey);
	fp = be32toh(m.flags_pd);
	add(o, " | mkey_ctx free=%u access=0x%02x(%s%s%s%s%s) qpn=0x%06x key=0x%02x pd=0x%06x "
	    "start=0x%llx len=0x%llx bsf_octowords=%u xlt_octowords=%u log_page_size=%u",
	    m.free >> 6 & 1, m.access_flags,
	    m.access_flags & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC ? "a" : "",
	    m.access_flags & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE ? "rw" : "",
	    m.access_flags & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ ? "rr" : "",
	    m.access_flags & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE ? "lw" : "",
	    m.access_flags & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_READ ? "lr" : "",
	    qm >> 8, qm & 0xff, fp & 0xffffff, (unsigned long long)be64toh(m.start_addr),
	    (unsigned long long)be64toh(m.len), be32toh(m.bsf_octword_size),
	    be32toh(m.translations_octword_size), m.log_page_size & 0x1f);
	/* (the BSF's size shares its field with the translation offset: a
	 * BSF only when the mask enables one, as the engine reads it) */
	if (u.flags & MLX5_WQE_UMR_CTRL_FLAG_INLINE)
		dec_umr_xlt(o, buf, len, off, be16toh(u.klm_octowords),
			    be64toh(u.mkey_mask) & MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE ?
			    be16toh(u.bsf_octowords) : 0);
}

int dec_rwqe(char *out, size_t room, const uint8_t *buf, size_t len, bool next_seg)
{
	struct dec_out o = dec_begin(out, room);
	size_t off = 0;

	add(&o, "rwqe");
	if (next_seg) {
		struct mlx5_wqe_srq_next_seg n;

		if (!seg(&o, &n, sizeof(n), buf, len, 0, "next"))
			return o.n;
		add(&o, " next_wqe_index=%u signature=0x%02x", be16toh(n.next_wqe_index),
		    n.signature);
		off = sizeof(n);
	}
	for (; off + sizeof(struct mlx5_wqe_data_seg) <= len; off += 16) {
		struct mlx5_wqe_data_seg d;

		memcpy(&d, buf + off, sizeof(d));
		if (be32toh(d.lkey) == MLX5_INVALID_LKEY) {
			add(&o, " | end (lkey 0x%x)", MLX5_INVALID_LKEY);
			return o.n;
		}
		add(&o, " | data len=%u lkey=0x%08x addr=0x%llx", be32toh(d.byte_count),
		    be32toh(d.lkey), (unsigned long long)be64toh(d.addr));
	}
	if (off < len)
		add(&o, " | %zu trailing bytes", len - off);
	return o.n;
}

int dec_wqe(char *out, size_t room, const uint8_t *buf, size_t len, enum dec_sq_type t)
{
	struct dec_out o = dec_begin(out, room);
	struct mlx5_wqe_ctrl_seg c;
	const char *name;
	uint32_t w0, w1, ds, i;
	size_t off = 16, end;
	bool raddr = false, atomic = false, umr = false;
	uint8_t op;

	add(&o, "wqe");
	if (!seg(&o, &c, sizeof(c), buf, len, 0, "ctrl"))
		return o.n;
	w0 = be32toh(c.opmod_idx_opcode);
	w1 = be32toh(c.qpn_ds);
	op = (uint8_t)w0;
	ds = w1 & 0x3f;
	name = wqe_op_name(op);
	eng_sq_op_layout(op, &raddr, &atomic, &umr);
	if (name)
		add(&o, " opcode=%s(0x%02x)", name, op);
	else
		add(&o, " opcode=0x%02x(unknown)", op);
	add(&o, " opmod=0x%02x wqe_index=%u qpn=0x%06x ds=%u fm_ce_se=0x%02x(ce=%u se=%u fence=%u)",
	    w0 >> 24, (w0 >> 8) & 0xffff, w1 >> 8, ds, c.fm_ce_se,
	    (c.fm_ce_se >> 2) & 3, (c.fm_ce_se & MLX5_WQE_CTRL_SOLICITED) >> 1,
	    c.fm_ce_se >> 5);
	if (op == MLX5_OPCODE_SEND_IMM || op == MLX5_OPCODE_RDMA_WRITE_IMM)
		add(&o, " imm=0x%08x", be32toh(c.imm));
	else if (op == MLX5_OPCODE_SEND_INVAL || op == MLX5_OPCODE_LOCAL_INVAL)
		add(&o, " inval_rkey=0x%08x", be32toh(c.imm));
	else if (umr)
		add(&o, " mkey=0x%08x", be32toh(c.imm));
	/* The WQE's own size bounds the segments; the dump may stop sooner. */
	end = (size_t)ds * 16;
	if (end > len) {
		add(&o, " | wqe truncated (%zu of %zu bytes)", len, end);
		end = len;
	}
	if (t == DEC_SQ_XRC) {
		uint8_t x[16];

		if (!seg(&o, x, sizeof(x), buf, end, off, "xrc"))
			return o.n;
		add(&o, " | xrc srqn=0x%06x", get_be32(x) & 0xffffff);
		off += sizeof(x);
	} else if (t == DEC_SQ_UD || t == DEC_SQ_DCI) {
		struct mlx5_wqe_av av;

		if (!seg(&o, &av, sizeof(av), buf, end, off, "av"))
			return o.n;
		dec_av(&o, &av, t == DEC_SQ_DCI);
		off += sizeof(av);
	} else if (t == DEC_SQ_ETH) {
		struct mlx5_wqe_eth_seg e;
		uint32_t hs;

		/* Its first 16 bytes; inline headers may go on past them. */
		memset(&e, 0, sizeof(e));
		if (!seg(&o, &e, 16, buf, end, off, "eth"))
			return o.n;
		hs = be16toh(e.inline_hdr_sz);
		add(&o, " | eth cs_flags=0x%02x(l3=%u l4=%u) mss=%u inline_hdr_sz=%u", e.cs_flags,
		    !!(e.cs_flags & MLX5_ETH_WQE_L3_CSUM), !!(e.cs_flags & MLX5_ETH_WQE_L4_CSUM),
		    be16toh(e.mss), hs);
		/* The inline headers start 2 bytes before the segment's end and
		 * go on in 16-byte units. */
		if (hs) {
			size_t at = off + offsetof(struct mlx5_wqe_eth_seg, inline_hdr_start);

			add(&o, " inline_hdr=");
			if (at + hs > end) {
				add_bytes(&o, buf + at, end > at ? end - at : 0);
				add(&o, " (truncated)");
				return o.n;
			}
			add_bytes(&o, buf + at, hs);
			off = at + ((hs - 2 + 15) & ~(size_t)15) + 2;
			off = (off + 15) & ~(size_t)15;
		} else {
			off += 16;
		}
	}
	if (umr) {
		dec_umr(&o, buf, end, &off);
		return o.n;
	}
	if (raddr) {
		struct mlx5_wqe_raddr_seg r;

		if (!seg(&o, &r, sizeof(r), buf, end, off, "raddr"))
			return o.n;
		add(&o, " | raddr va=0x%llx rkey=0x%08x", (unsigned long long)be64toh(r.raddr),
		    be32toh(r.rkey));
		off += sizeof(r);
	}
	if (atomic) {
		struct mlx5_wqe_atomic_seg a;

		if (!seg(&o, &a, sizeof(a), buf, end, off, "atomic"))
			return o.n;
		if (op == MLX5_OPCODE_ATOMIC_CS)
			add(&o, " | atomic swap=0x%llx compare=0x%llx",
			    (unsigned long long)be64toh(a.swap_add),
			    (unsigned long long)be64toh(a.compare));
		else
			add(&o, " | atomic add=0x%llx", (unsigned long long)be64toh(a.swap_add));
		off += sizeof(a);
	}
	/* The rest: data (pointer) segments and inline data, 16 bytes at a time. */
	for (i = 0; off < end; i++) {
		uint32_t bc;

		if (end - off < 4)
			break;
		memcpy(&bc, buf + off, 4);
		bc = be32toh(bc);
		if (bc & MLX5_INLINE_SEG) {
			uint32_t n = bc & ~MLX5_INLINE_SEG, have;

			have = end - off - 4 < n ? (uint32_t)(end - off - 4) : n;
			add(&o, " | inline len=%u data=", n);
			add_bytes(&o, buf + off + 4, have);
			if (have < n)
				add(&o, " (truncated)");
			off += (4 + (size_t)n + 15) & ~(size_t)15;
		} else {
			struct mlx5_wqe_data_seg d;

			if (!seg(&o, &d, sizeof(d), buf, end, off, "data"))
				return o.n;
			add(&o, " | data len=%u lkey=0x%08x addr=0x%llx", bc, be32toh(d.lkey),
			    (unsigned long long)be64toh(d.addr));
			off += sizeof(d);
		}
	}
	return o.n;
}

/* ---- CQEs --------------------------------------------------------------------- */

static const char *cqe_op_name(uint8_t op)
{
	switch (op) {
	case MLX5_CQE_REQ: return "REQ";
	case MLX5_CQE_RESP_WR_IMM: return "RESP_WR_IMM";
	case MLX5_CQE_RESP_SEND: return "RESP_SEND";
	case MLX5_CQE_RESP_SEND_IMM: return "RESP_SEND_IMM";
	case MLX5_CQE_RESP_SEND_INV: return "RESP_SEND_INV";
	case MLX5_CQE_RESIZE_CQ: return "RESIZE_CQ";
	case MLX5_CQE_NO_PACKET: return "NO_PACKET";
	case MLX5_CQE_SIG_ERR: return "SIG_ERR";
	case MLX5_CQE_REQ_ERR: return "REQ_ERR";
	case MLX5_CQE_RESP_ERR: return "RESP_ERR";
	case MLX5_CQE_INVALID: return "INVALID";
	default: return "unknown";
	}
}

int dec_cqe(char *out, size_t room, const uint8_t *buf, size_t len)
{
	struct dec_out o = dec_begin(out, room);
	struct mlx5_cqe64 c;
	uint32_t sdq;
	uint8_t op;

	add(&o, "cqe");
	if (len >= 128)		/* a 128-byte CQE keeps the 64-byte layout in its second half */
		buf += 64, len = 64;
	if (!seg(&o, &c, sizeof(c), buf, len, 0, "cqe"))
		return o.n;
	op = c.op_own >> 4;
	sdq = be32toh(c.sop_drop_qpn);
	add(&o, " opcode=%s(0x%x) owner=%u format=%u qpn=0x%06x wqe_counter=%u", cqe_op_name(op),
	    op, c.op_own & 1, (c.op_own >> 2) & 3, sdq & 0xffffff, be16toh(c.wqe_counter));
	if (op == MLX5_CQE_REQ_ERR || op == MLX5_CQE_RESP_ERR) {
		struct mlx5_err_cqe e;

		memcpy(&e, buf, sizeof(e));
		add(&o, " syndrome=%s(0x%02x) vendor_syndrome=0x%02x wqe_opcode=0x%02x srqn=0x%06x",
		    eng_synd_str(e.syndrome), e.syndrome, e.vendor_err_synd,
		    be32toh(e.s_wqe_opcode_qpn) >> 24, be32toh(e.srqn) & 0xffffff);
		return o.n;
	}
	if (op == MLX5_CQE_REQ) {
		uint8_t wop = (uint8_t)(sdq >> 24);
		const char *n = wqe_op_name(wop);

		add(&o, " wqe_opcode=%s(0x%02x) byte_cnt=%u", n ? n : "unknown", wop,
		    be32toh(c.byte_cnt));
	} else if (op <= MLX5_CQE_RESP_SEND_INV) {
		uint32_t fr = be32toh(c.flags_rqpn);

		add(&o, " byte_cnt=%u srqn_uidx=0x%06x", be32toh(c.byte_cnt),
		    be32toh(c.srqn_uidx) & 0xffffff);
		if (op == MLX5_CQE_RESP_WR_IMM || op == MLX5_CQE_RESP_SEND_IMM)
			add(&o, " imm=0x%08x", be32toh(c.imm_inval_pkey));
		else if (op == MLX5_CQE_RESP_SEND_INV)
			add(&o, " inval_rkey=0x%08x", be32toh(c.imm_inval_pkey));
		add(&o, " rqpn=0x%06x grh=%u l4_hdr_type=%u", fr & 0xffffff, (fr >> 28) & 3,
		    (c.l4_hdr_type_etc >> 4) & 7);
		if (c.l4_hdr_type_etc & 1)
			add(&o, " vlan=0x%04x", be16toh(c.vlan_info) & 0xfff);
	}
	add(&o, " timestamp=%llu", (unsigned long long)be64toh(c.timestamp));
	return o.n;
}

/* ---- EQEs ------------------------------------------------------------------- */

/* PRM event types (the kernel's enum mlx5_event names them alike). */
static const char *eqe_type_name(uint8_t t)
{
	switch (t) {
	case 0x00: return "COMP";
	case 0x01: return "PATH_MIG";
	case 0x02: return "COMM_EST";
	case 0x03: return "SQ_DRAINED";
	case 0x04: return "CQ_ERROR";
	case 0x05: return "WQ_CATAS_ERROR";
	case 0x07: return "PATH_MIG_FAILED";
	case 0x08: return "INTERNAL_ERROR";
	case 0x09: return "PORT_CHANGE";
	case 0x0a: return "CMD";
	case 0x0b: return "PAGE_REQUEST";
	case 0x0c: return "PAGE_FAULT";
	case 0x0d: return "NIC_VPORT_CHANGE";
	case 0x10: return "WQ_INVAL_REQ_ERROR";
	case 0x11: return "WQ_ACCESS_ERROR";
	case 0x12: return "SRQ_CATAS_ERROR";
	case 0x13: return "SRQ_LAST_WQE";
	case 0x14: return "SRQ_RQ_LIMIT";
	case 0x18: return "XRQ_ERROR";
	case 0x1c: return "DCT_DRAINED";
	case 0x1d: return "DCT_KEY_VIOLATION";
	default: return "unknown";
	}
}

int dec_eqe(char *out, size_t room, const uint8_t *buf, size_t len)
{
	struct dec_out o = dec_begin(out, room);
	const uint8_t *d = buf + 32;	/* the 28 bytes of event data */
	uint8_t t;

	add(&o, "eqe");
	if (len < 64) {
		add(&o, " truncated (%zu of 64 bytes)", len);
		return o.n;
	}
	t = buf[1];
	add(&o, " type=%s(0x%02x) sub_type=0x%02x owner=%u", eqe_type_name(t), t, buf[3],
	    buf[63] & 1);
	switch (t) {
	case 0x00:	/* completion: the CQ in the last dword */
		add(&o, " cqn=0x%06x", get_be32(d + 24) & 0xffffff);
		break;
	case 0x04:
		add(&o, " cqn=0x%06x syndrome=%u(%s)", get_be32(d) & 0xffffff, d[11],
		    d[11] == 1 ? "overrun" : d[11] == 2 ? "access_violation" : "?");
		break;
	case 0x01: case 0x02: case 0x03: case 0x05: case 0x07: case 0x10: case 0x11:
	case 0x12: case 0x13: case 0x14: case 0x1c: case 0x1d:
		/* affiliated with a queue: its type and number */
		add(&o, " queue_type=%u num=0x%06x", d[20], get_be32(d + 24) & 0xffffff);
		break;
	case 0x09:
		add(&o, " port=%u", d[8] >> 4);
		break;
	default:
		add(&o, " data=");
		add_bytes(&o, d, 28);
	}
	return o.n;
}

/* ---- doorbells ---------------------------------------------------------------- */

int dec_db(char *out, size_t room, uint32_t reg, const uint8_t *buf, size_t len)
{
	struct dec_out o = dec_begin(out, room);

	add(&o, "db");
	reg &= 0xfff;
	if (reg >= 0x800 && reg < 0xa00) {
		/* send doorbell / BlueFlame: the last WQE's first 8 bytes */
		uint32_t w0, w1;

		add(&o, " reg=0x%03x(send) bf_buf=%u", reg, (reg - 0x800) / 0x100);
		if (len < 8) {
			add(&o, " truncated (%zu of 8 bytes)", len);
			return o.n;
		}
		w0 = get_be32(buf);
		w1 = get_be32(buf + 4);
		add(&o, " qpn=0x%06x wqe_index=%u opcode=0x%02x opmod=0x%02x ds=%u", w1 >> 8,
		    (w0 >> 8) & 0xffff, w0 & 0xff, w0 >> 24, w1 & 0x3f);
		if (len > 8)
			add(&o, " bf_bytes=%zu", len);
	} else if (reg == 0x20) {
		uint32_t w;

		add(&o, " reg=0x020(cq_arm)");
		if (len < 8) {
			add(&o, " truncated (%zu of 8 bytes)", len);
			return o.n;
		}
		w = get_be32(buf);
		add(&o, " cqn=0x%06x sn=%u cmd=%u(%s) ci=%u", get_be32(buf + 4) & 0xffffff, w >> 28,
		    (w >> 24) & 0xf, ((w >> 24) & 0xf) == 0 ? "next" :
		    ((w >> 24) & 0xf) == 1 ? "solicited" : "?", w & 0xffffff);
	} else if (reg == 0x40 || reg == 0x48) {
		uint32_t w;

		add(&o, " reg=0x%03x(%s)", reg, reg == 0x40 ? "eq_arm" : "eq_update");
		if (len < 4) {
			add(&o, " truncated (%zu of 4 bytes)", len);
			return o.n;
		}
		w = get_be32(buf);
		add(&o, " eqn=%u ci=%u", w >> 24, w & 0xffffff);
	} else {
		add(&o, " reg=0x%03x(unknown) len=%zu", reg, len);
	}
	return o.n;
}

/* ---- PRM command mailboxes ---------------------------------------------------- */

/* Bytes of an input mailbox the decoder reads at most (a QP command's qpc). */
#define DEC_CMD_BYTES 512

/* A field of layout @typ when the mailbox holds it. */
#define HAS(typ, fld, len) \
	((size_t)(__devx_bit_off(typ, fld) + __devx_bit_sz(typ, fld) + 7) / 8 <= (len))

static void dec_cmd_in(struct dec_out *o, uint16_t opcode, const uint8_t *in, size_t len)
{
	switch (opcode) {
	case MLX5_CMD_OP_CREATE_QP: {
		static const char *const st[16] = {
			[MLX5_QPC_ST_RC] = "RC", [MLX5_QPC_ST_UC] = "UC", [MLX5_QPC_ST_UD] = "UD",
			[MLX5_QPC_ST_XRC] = "XRC", [MLX5_QPC_ST_DCI] = "DCI",
		};
		const void *qpc = DEVX_ADDR_OF(create_qp_in, in, qpc);
		uint32_t t;

		if (!HAS(create_qp_in, qpc.cqn_rcv, len))
			break;
		t = DEVX_GET(qpc, qpc, st);
		add(o, " st=%s(0x%x) pd=0x%x cqn_snd=0x%x cqn_rcv=0x%x log_sq_size=%u log_rq_size=%u "
		    "log_rq_stride=%u uar_page=0x%x user_index=0x%x", st[t & 15] ? st[t & 15] : "?",
		    t, DEVX_GET(qpc, qpc, pd), DEVX_GET(qpc, qpc, cqn_snd), DEVX_GET(qpc, qpc, cqn_rcv),
		    DEVX_GET(qpc, qpc, log_sq_size), DEVX_GET(qpc, qpc, log_rq_size),
		    DEVX_GET(qpc, qpc, log_rq_stride), DEVX_GET(qpc, qpc, uar_page),
		    DEVX_GET(qpc, qpc, user_index));
		return;
	}
	case MLX5_CMD_OP_RST2INIT_QP: case MLX5_CMD_OP_INIT2RTR_QP: case MLX5_CMD_OP_RTR2RTS_QP:
	case MLX5_CMD_OP_RTS2RTS_QP: case MLX5_CMD_OP_INIT2INIT_QP: case MLX5_CMD_OP_SQERR2RTS_QP: {
		const void *qpc = DEVX_ADDR_OF(modify_qp_in, in, qpc);

		if (!HAS(modify_qp_in, qpc.next_send_psn, len))
			break;
		add(o, " qpn=0x%x opt_param_mask=0x%x", DEVX_GET(modify_qp_in, in, qpn),
		    DEVX_GET(modify_qp_in, in, opt_param_mask));
		if (opcode == MLX5_CMD_OP_INIT2RTR_QP)
			add(o, " remote_qpn=0x%x mtu=%u next_rcv_psn=0x%x", DEVX_GET(qpc, qpc, remote_qpn),
			    DEVX_GET(qpc, qpc, mtu), HAS(modify_qp_in, qpc.next_rcv_psn, len) ?
			    DEVX_GET(qpc, qpc, next_rcv_psn) : 0);
		else if (opcode == MLX5_CMD_OP_RTR2RTS_QP)
			add(o, " next_send_psn=0x%x retry_count=%u rnr_retry=%u",
			    DEVX_GET(qpc, qpc, next_send_psn), DEVX_GET(qpc, qpc, retry_count),
			    DEVX_GET(qpc, qpc, rnr_retry));
		return;
	}
	case MLX5_CMD_OP_CREATE_CQ: {
		const void *cqc = DEVX_ADDR_OF(create_cq_in, in, cq_context);

		if (!HAS(create_cq_in, cq_context.c_eqn, len))
			break;
		add(o, " log_cq_size=%u cqe_sz=%u uar_page=0x%x c_eqn=%u cq_period=%u cq_max_count=%u",
		    DEVX_GET(cqc, cqc, log_cq_size), DEVX_GET(cqc, cqc, cqe_sz),
		    DEVX_GET(cqc, cqc, uar_page), DEVX_GET(cqc, cqc, c_eqn),
		    DEVX_GET(cqc, cqc, cq_period), DEVX_GET(cqc, cqc, cq_max_count));
		return;
	}
	case MLX5_CMD_OP_CREATE_MKEY: {
		const void *m = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

		if (!HAS(create_mkey_in, memory_key_mkey_entry.len, len))
			break;
		add(o, " access_mode=%u access=%s%s%s%s%s pd=0x%x qpn=0x%x key=0x%02x start=0x%llx "
		    "len=0x%llx", DEVX_GET(mkc, m, access_mode_4_2) << 2 |
		    DEVX_GET(mkc, m, access_mode_1_0), DEVX_GET(mkc, m, a) ? "a" : "",
		    DEVX_GET(mkc, m, rw) ? "rw" : "", DEVX_GET(mkc, m, rr) ? "rr" : "",
		    DEVX_GET(mkc, m, lw) ? "lw" : "", DEVX_GET(mkc, m, lr) ? "lr" : "",
		    DEVX_GET(mkc, m, pd), DEVX_GET(mkc, m, qpn), DEVX_GET(mkc, m, mkey_7_0),
		    (unsigned long long)DEVX_GET64(mkc, m, start_addr),
		    (unsigned long long)DEVX_GET64(mkc, m, len));
		return;
	}
	case MLX5_CMD_OP_QUERY_HCA_CAP:
		add(o, " cap_type=0x%x current=%u", DEVX_GET(query_hca_cap_in, in, op_mod) >> 1,
		    DEVX_GET(query_hca_cap_in, in, op_mod) & 1);
		return;
	/* These name their object in the low 24 bits of dword 2. */
	case MLX5_CMD_OP_QUERY_MKEY: case MLX5_CMD_OP_DESTROY_MKEY: case MLX5_CMD_OP_DESTROY_EQ:
	case MLX5_CMD_OP_QUERY_EQ: case MLX5_CMD_OP_DESTROY_CQ: case MLX5_CMD_OP_QUERY_CQ:
	case MLX5_CMD_OP_MODIFY_CQ: case MLX5_CMD_OP_DESTROY_QP: case MLX5_CMD_OP_2ERR_QP:
	case MLX5_CMD_OP_2RST_QP: case MLX5_CMD_OP_QUERY_QP: case MLX5_CMD_OP_DESTROY_PSV:
	case MLX5_CMD_OP_DESTROY_SRQ: case MLX5_CMD_OP_QUERY_SRQ: case MLX5_CMD_OP_ARM_RQ:
	case MLX5_CMD_OP_DESTROY_XRC_SRQ: case MLX5_CMD_OP_QUERY_XRC_SRQ: case MLX5_CMD_OP_DESTROY_DCT:
	case MLX5_CMD_OP_DRAIN_DCT: case MLX5_CMD_OP_QUERY_DCT: case MLX5_CMD_OP_DEALLOC_PD:
	case MLX5_CMD_OP_DEALLOC_UAR: case MLX5_CMD_OP_DEALLOC_XRCD:
	case MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN: case MLX5_CMD_OP_MODIFY_TIR:
	case MLX5_CMD_OP_DESTROY_TIR: case MLX5_CMD_OP_QUERY_TIR: case MLX5_CMD_OP_MODIFY_SQ:
	case MLX5_CMD_OP_DESTROY_SQ: case MLX5_CMD_OP_QUERY_SQ: case MLX5_CMD_OP_MODIFY_RQ:
	case MLX5_CMD_OP_DESTROY_RQ: case MLX5_CMD_OP_QUERY_RQ: case MLX5_CMD_OP_MODIFY_RMP:
	case MLX5_CMD_OP_DESTROY_RMP: case MLX5_CMD_OP_QUERY_RMP: case MLX5_CMD_OP_MODIFY_TIS:
	case MLX5_CMD_OP_DESTROY_TIS: case MLX5_CMD_OP_QUERY_TIS: case MLX5_CMD_OP_MODIFY_RQT:
	case MLX5_CMD_OP_DESTROY_RQT: case MLX5_CMD_OP_QUERY_RQT: case MLX5_CMD_OP_DESTROY_UMEM:
		if (len < 12)
			break;
		add(o, " obj=0x%x", DEVX_GET(destroy_qp_in, in, qpn));
		return;
	default:
		return;
	}
	add(o, " (input truncated: %zu bytes)", len);
}

int dec_cmd(char *out, size_t room, const uint8_t *ibuf, size_t ilen, const uint8_t *obuf_u,
	    size_t olen)
{
	/* DEVX_GET loads aligned big-endian dwords: work on aligned copies of
	 * the part any decoded field can lie in. */
	uint32_t ia[DEC_CMD_BYTES / 4] = { 0 }, oa[4] = { 0 };
	struct dec_out o = dec_begin(out, room);
	const uint8_t *in = (const uint8_t *)ia, *obuf = obuf_u ? (const uint8_t *)oa : NULL;
	uint16_t opcode;
	const char *name;

	memcpy(ia, ibuf, ilen < sizeof(ia) ? ilen : sizeof(ia));
	if (obuf_u)
		memcpy(oa, obuf_u, olen < sizeof(oa) ? olen : sizeof(oa));

	add(&o, "cmd");
	if (ilen < SMX_PRM_HDR_BYTES) {
		add(&o, " truncated (%zu of %u bytes)", ilen, SMX_PRM_HDR_BYTES);
		return o.n;
	}
	opcode = (uint16_t)DEVX_GET(mbox_in, in, opcode);
	name = fw_cmd_name(opcode);
	if (name)
		add(&o, " opcode=%s(0x%x)", name, opcode);
	else
		add(&o, " opcode=0x%x(unknown)", opcode);
	add(&o, " uid=0x%x op_mod=0x%x", DEVX_GET(mbox_in, in, uid), DEVX_GET(mbox_in, in, op_mod));
	dec_cmd_in(&o, opcode, in, ilen);
	if (!obuf)
		return o.n;
	if (olen < 8) {
		add(&o, " | out truncated (%zu of 8 bytes)", olen);
		return o.n;
	}
	{
		uint32_t st = DEVX_GET(mbox_out, obuf, status);

		add(&o, " | out status=%s(0x%x) syndrome=0x%08x", smx_prm_status_str(st), st,
		    DEVX_GET(mbox_out, obuf, syndrome));
		/* Creating commands return the new object's number in dword 2. */
		if (!st && olen >= 12 && name &&
		    (!strncmp(name, "CREATE_", 7) || !strncmp(name, "ALLOC_", 6)))
			add(&o, " obj=0x%x", DEVX_GET(create_qp_out, obuf, qpn));
	}
	return o.n;
}

/* ---- packets --------------------------------------------------------------- */

static void add_ip(struct dec_out *o, const uint8_t gid[16], bool v4)
{
	if (v4) {
		add(o, "%u.%u.%u.%u", gid[12], gid[13], gid[14], gid[15]);
		return;
	}
	for (int i = 0; i < 16; i += 2)
		add(o, "%s%x", i ? ":" : "", gid[i] << 8 | gid[i + 1]);
}

/* A name with blanks ("RC RDMA WRITE Only") as one upper-case token. */
static void add_token(struct dec_out *o, const char *s)
{
	for (; *s; s++)
		add(o, "%c", *s == ' ' ? '_' : *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s);
}

/* The parsed IBTA headers, one segment per header, every field named. */
static void dec_ib(struct dec_out *o, const struct ibp_hdr *h)
{
	const struct ibp_op *op = ibp_op(h->opcode);
	uint32_t i;

	add(o, " | bth opcode=");
	if (op)
		add_token(o, op->name);
	else
		add(o, "unknown");
	add(o, "(0x%02x) psn=0x%06x dqpn=0x%06x ackreq=%u se=%u mig=%u pkey=0x%04x fecn=%u becn=%u",
	    h->opcode, h->psn, h->dqpn, h->ackreq, h->se, h->mig, h->pkey,
	    !!(h->resv8a & IBP_BTH_FECN), !!(h->resv8a & IBP_BTH_BECN));
	for (i = 0; op && i < IBP_OP_MAX_HDRS && op->hdrs[i] != IBP_H_NONE; i++) {
		switch ((enum ibp_hdr_kind)op->hdrs[i]) {
		case IBP_H_XRCETH:
			add(o, " | xrceth srqn=0x%06x", h->xrc_srqn);
			break;
		case IBP_H_DCETH:
			add(o, " | dceth dc_key=0x%016llx dci=0x%06x gen=%u",
			    (unsigned long long)h->dc_key, h->dc_sqpn, h->dc_gen);
			break;
		case IBP_H_DETH:
			add(o, " | deth qkey=0x%08x sqpn=0x%06x", h->qkey, h->src_qp);
			break;
		case IBP_H_RETH:
			add(o, " | reth va=0x%llx rkey=0x%08x dma_len=%u", (unsigned long long)h->va,
			    h->rkey, h->dma_len);
			break;
		case IBP_H_ATOMICETH:
			add(o, " | atomiceth va=0x%llx rkey=0x%08x swap_add=0x%llx compare=0x%llx",
			    (unsigned long long)h->va, h->rkey, (unsigned long long)h->swap_add,
			    (unsigned long long)h->compare);
			break;
		case IBP_H_AETH:
			add(o, " | aeth syndrome=0x%02x", h->syndrome);
			if (ibp_aeth_is_ack(h->syndrome))
				add(o, " type=ACK credits=%u", ibp_aeth_value(h->syndrome));
			else if (ibp_aeth_is_rnr_nak(h->syndrome))
				add(o, " type=RNR_NAK timer=%u timer_us=%u", ibp_aeth_value(h->syndrome),
				    ibp_rnr_timer_us(ibp_aeth_value(h->syndrome)));
			else if (ibp_aeth_is_nak(h->syndrome)) {
				add(o, " type=NAK code=");
				add_token(o, ibp_nak_name(h->syndrome));
			} else
				add(o, " type=reserved");
			add(o, " msn=0x%06x", h->msn);
			break;
		case IBP_H_ATOMICACKETH:
			add(o, " | atomicacketh orig=0x%llx", (unsigned long long)h->atomic_orig);
			break;
		case IBP_H_IMMDT: {
			uint8_t imm[4];

			memcpy(imm, &h->imm, 4);
			add(o, " | immdt imm=0x%08x", get_be32(imm));
			break;
		}
		case IBP_H_IETH:
			add(o, " | ieth rkey=0x%08x", h->ieth_rkey);
			break;
		case IBP_H_NONE:
		case IBP_H_COUNT:
			break;
		}
	}
	if (op && (op->flags & IBP_OF_PAYLOAD))
		add(o, " | payload len=%u", h->paylen);
}

int dec_pkt(char *out, size_t room, const uint8_t *buf, size_t len)
{
	return dec_pkt_link(out, room, buf, len, true);
}

int dec_pkt_link(char *out, size_t room, const uint8_t *buf, size_t len, bool has_icrc)
{
	struct dec_out o = dec_begin(out, room);
	const uint8_t *ip = buf, *ib;
	size_t iplen = len;
	uint32_t ib_off = 0, ib_len = 0;
	struct roce_l3 l3;
	struct ibp_hdr h;
	const char *why;
	bool v4;

	add(&o, "pkt");
	if (len > UINT32_MAX)
		len = UINT32_MAX;
	if (len >= 14) {
		uint16_t et = (uint16_t)(buf[12] << 8 | buf[13]);
		size_t l2 = 14;

		if (et == 0x8100 && len >= 18) {
			add(&o, " | eth vlan=%u pcp=%u", (buf[14] << 8 | buf[15]) & 0xfff, buf[14] >> 5);
			et = (uint16_t)(buf[16] << 8 | buf[17]);
			l2 = 18;
		}
		if (et == 0x0800 || et == 0x86dd) {
			add(&o, "%s dst=%02x:%02x:%02x:%02x:%02x:%02x src=%02x:%02x:%02x:%02x:%02x:%02x "
			    "ethertype=0x%04x", l2 == 14 ? " | eth" : "", buf[0], buf[1], buf[2],
			    buf[3], buf[4], buf[5], buf[6], buf[7], buf[8], buf[9], buf[10], buf[11], et);
			ip = buf + l2;
			iplen = len - l2;
		} else if (l2 == 18) {
			add(&o, " ethertype=0x%04x (not IP)", et);
			return o.n;
		}
	}
	if (iplen && (ip[0] >> 4 == 4 || ip[0] >> 4 == 6)) {
		if (roce_parse(ip, (uint32_t)iplen, &l3, &ib_off, &ib_len, &why)) {
			add(&o, " | ip not RoCEv2: %s", why);
			return o.n;
		}
		v4 = ip[0] >> 4 == 4;
		add(&o, " | %s src=", v4 ? "ipv4" : "ipv6");
		add_ip(&o, l3.sgid, v4);
		add(&o, " dst=");
		add_ip(&o, l3.dgid, v4);
		add(&o, " %s=%u %s=0x%02x", v4 ? "ttl" : "hop_limit", l3.hop_limit, v4 ? "tos" : "tclass",
		    l3.tclass);
		if (!v4)
			add(&o, " flow_label=0x%05x", l3.flow_label);
		add(&o, " | udp sport=%u dport=%u", l3.sport, ROCE_UDP_PORT);
		ib = ip + ib_off;
	} else {
		ib = ip;	/* a bare IB transport packet, no ICRC */
		ib_len = (uint32_t)iplen;
	}
	if (ibp_parse(ib, ib_len, &h, &why)) {
		add(&o, " | bth invalid: %s", why);
		return o.n;
	}
	dec_ib(&o, &h);
	if (ib != ip) {
		uint32_t total = ib_off + ib_len + ROCE_ICRC_BYTES;

		if (!has_icrc)
			add(&o, " | icrc=none");
		else
			add(&o, " | icrc=%s", roce_icrc_ok(ip, total) ? "ok" : "bad");
	}
	return o.n;
}

/* ---- hex input ------------------------------------------------------------- */

long dec_hex(const char *s, uint8_t *out, size_t cap, const char **why)
{
	size_t n = 0;

	while (*s) {
		size_t digits = 0;

		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ':' ||
		       *s == ',' || *s == '-')
			s++;
		if (!*s)
			break;
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2;
		while (smx_hex_digit((unsigned char)s[digits]) >= 0)
			digits++;
		if (!digits || (s[digits] && !strchr(" \t\n\r:,-", s[digits]))) {
			*why = "a character that is not a hex digit or a separator";
			return -1;
		}
		if (digits & 1) {
			*why = "an odd number of hex digits in a token";
			return -1;
		}
		for (; digits; digits -= 2, s += 2) {
			if (n == cap) {
				*why = "more bytes than the format can hold";
				return -1;
			}
			out[n++] = (uint8_t)(smx_hex_digit((unsigned char)s[0]) << 4 |
					     smx_hex_digit((unsigned char)s[1]));
		}
	}
	return (long)n;
}
