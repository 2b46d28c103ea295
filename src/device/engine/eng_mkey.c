/* SPDX-License-Identifier: MIT */
/*
 * Memory keys on the data path: the checks every lkey/rkey use goes through
 * (exists and not free, protection domain, access rights, bounds, a mode the
 * engine can translate) and the translation of a virtual address into a host
 * address, chunk by chunk:
 *   PA     the address is the "physical" (= process virtual) address;
 *   MTT    entry i covers page i of 2^log_page_size bytes counted from
 *          align_down(start_addr, page size); or, with a umem, byte
 *          mkey_umem_offset + (va - start_addr) of the umem;
 *   MEMIC  device memory in the BAR, start_addr being its BAR address.
 *   KLM    a bound memory window: one KLM into the MR it is bound to; an
 *          indirect mkey (CREATE_MKEY with KLM entries, or configured by a
 *          user UMR): a list of KLMs {byte_count, mkey, address}, or a
 *          repeat block whose entries {stride, byte_count, mkey, va} are
 *          laid one after the other and the whole repeated, entry r of
 *          repeat k at va + k * stride. Each inner key is looked up and
 *          checked (exists, same PD, local rights, bounds) at access time,
 *          piece by piece, and again when the piece is translated.
 *   KSM    an indirect mkey of fixed-size entities: byte off of its range
 *          (off = va - start_addr) is in entry off >> log_entity_size,
 *          {reserved, mkey, va}, at va + (off % entity size) of that entry's
 *          key; inner keys are checked like KLM ones.
 * Nothing outside a checked [va, va + len) is ever touched: copies walk the
 * checked lists and translate at most one run of pages at a time (pages
 * whose MTT entries are consecutive host pages, inside the checked range).
 * Memory a key names is the application's, which may unmap it while it is
 * registered (hardware pins it; we cannot): every copy touching it goes
 * through the fault guard (util/fault.h), so an unmapped page is a failed
 * copy -- the callers' access errors -- never a crash.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "device/engine/eng_loc.h"
#include "util/fault.h"

static const char *const eng_acc_name[] = {
	"local read", "local write", "remote read", "remote write", "atomic",
};

/* Indirect mkeys may point at indirect mkeys this deep, no deeper. */
#define ENG_IND_DEPTH 3

/*
 * The piece of indirect mkey @mk at byte @off of its (zero-based) range:
 * inner key, address in it and the bytes that follow contiguously in the
 * same entry. false if @off is outside the layout.
 */
static bool eng_ind_piece(const struct fw_mkey *mk, uint64_t off, uint32_t *key,
			  uint64_t *addr, uint64_t *n)
{
	uint32_t i;

	if (mk->access_mode == MLX5_MKC_ACCESS_MODE_KSM) {
		uint64_t in = off & ((1ull << mk->page_shift) - 1);
		const struct mlx5_wqe_umr_klm_seg *k;

		if ((off >> mk->page_shift) >= mk->nklm)
			return false;
		/* KSM entries are KLMs whose byte count is unused. */
		k = (const void *)(mk->klm + (off >> mk->page_shift) * 16u);
		*key = be32toh(k->mkey);
		*addr = be64toh(k->address) + in;
		*n = (1ull << mk->page_shift) - in;
		return true;
	}
	if (mk->rblock) {
		const struct mlx5_wqe_umr_repeat_block_seg *h = (const void *)mk->klm;
		uint64_t bc = be32toh(h->byte_count), rep, o;

		if (!bc)
			return false;
		rep = off / bc;
		o = off % bc;
		if (rep >= be32toh(h->repeat_count))
			return false;
		for (i = 0; i < mk->nklm; i++) {
			const struct mlx5_wqe_umr_repeat_ent_seg *en = &h->entries[i];
			uint64_t ebc = be16toh(en->byte_count);

			if (o < ebc) {
				*key = be32toh(en->memkey);
				*addr = be64toh(en->va) + rep * be16toh(en->stride) + o;
				*n = ebc - o;
				return true;
			}
			o -= ebc;
		}
		return false;
	}
	for (i = 0; i < mk->nklm; i++) {
		const struct mlx5_wqe_umr_klm_seg *k = (const void *)(mk->klm + i * 16u);
		uint64_t ebc = be32toh(k->byte_count);

		if (off < ebc) {
			*key = be32toh(k->mkey);
			*addr = be64toh(k->address) + off;
			*n = ebc - off;
			return true;
		}
		off -= ebc;
	}
	return false;
}

static bool eng_ind_mkey(const struct fw_mkey *mk)
{
	return ((mk->access_mode == MLX5_MKC_ACCESS_MODE_KLMS && !mk->bound) ||
		mk->access_mode == MLX5_MKC_ACCESS_MODE_KSM) &&
	       mk->nklm && mk->klm;
}

static int eng_key_check_at(struct eng *e, uint32_t key, const struct fw_pd *pd,
			    uint32_t need, uint64_t va, uint64_t len,
			    struct fw_mkey **mkp, char *why, size_t whylen,
			    unsigned int depth);

/*
 * Every piece of [va, va + len) of indirect mkey @mk: its inner key must
 * exist, be valid, be in @mk's PD, cover the piece and allow it locally
 * (read; write when the access writes, whoever asked: the indirect key's
 * own rights were checked already).
 */
static int eng_ind_check(struct eng *e, const struct fw_mkey *mk, uint32_t key,
			 uint32_t need, uint64_t va, uint64_t len, char *why,
			 size_t whylen, unsigned int depth)
{
	uint32_t inner_need = ENG_ACC_LR |
			      (need & (ENG_ACC_LW | ENG_ACC_RW | ENG_ACC_A) ? ENG_ACC_LW : 0);
	uint64_t off = va - mk->start, done = 0;

	if (depth >= ENG_IND_DEPTH) {
		if (why)
			snprintf(why, whylen, "key 0x%x: indirect mkeys nested "
				 "deeper than %u", key, ENG_IND_DEPTH);
		return ENG_KEY_MODE;
	}
	while (done < len) {
		struct fw_mkey *inner;
		uint64_t addr, n;
		uint32_t ik;
		int rc;

		if (!eng_ind_piece(mk, off + done, &ik, &addr, &n)) {
			if (why)
				snprintf(why, whylen, "key 0x%x: byte 0x%llx is "
					 "outside its layout", key,
					 (unsigned long long)(off + done));
			return ENG_KEY_BOUNDS;
		}
		if (n > len - done)
			n = len - done;
		rc = eng_key_check_at(e, ik, mk->pd, inner_need, addr, n, &inner,
				      why, whylen, depth + 1);
		if (rc) {
			if (why) {
				char sub[200];

				snprintf(sub, sizeof(sub), "%s", why);
				snprintf(why, whylen, "key 0x%x, byte 0x%llx: %s", key,
					 (unsigned long long)(off + done), sub);
			}
			return rc;
		}
		done += n;
	}
	return ENG_KEY_OK;
}

int eng_key_check(struct eng *e, uint32_t key, const struct fw_pd *pd,
		  uint32_t need, uint64_t va, uint64_t len,
		  struct fw_mkey **mkp, char *why, size_t whylen)
{
	return eng_key_check_at(e, key, pd, need, va, len, mkp, why, whylen, 0);
}

static int eng_key_check_at(struct eng *e, uint32_t key, const struct fw_pd *pd,
			    uint32_t need, uint64_t va, uint64_t len,
			    struct fw_mkey **mkp, char *why, size_t whylen,
			    unsigned int depth)
{
	struct fw_mkey *mk = fw_mkey_lookup(e->fw, key);
	uint32_t missing;

	*mkp = NULL;
	if (!mk || mk->free) {
		if (why)
			snprintf(why, whylen, "key 0x%x %s", key,
				 mk ? "is free (invalidated)" : "does not exist");
		return ENG_KEY_INVALID;
	}
	if (mk->pd != pd) {
		if (why)
			snprintf(why, whylen, "key 0x%x is in pd 0x%x, the QP in "
				 "pd 0x%x", key, mk->pd ? mk->pd->obj.id : 0,
				 pd ? pd->obj.id : 0);
		return ENG_KEY_PD;
	}
	missing = need & ~mk->access;
	if (missing) {
		unsigned int b = (unsigned int)__builtin_ctz(missing);

		if (why)
			snprintf(why, whylen, "key 0x%x lacks %s access", key,
				 b < 5 ? eng_acc_name[b] : "?");
		return ENG_KEY_RIGHTS;
	}
	/* A signature key's address space is its wire stream: the range
	 * checked below is the layout of the blocks the range touches.
	 * Reached through another indirect key it would be read raw. */
	if (eng_xform(mk)) {
		uint64_t mva, mlen;

		if (depth) {
			if (why)
				snprintf(why, whylen, "key 0x%x is a signature "
					 "key inside an indirect key", key);
			return ENG_KEY_MODE;
		}
		if (!eng_sig_span(mk, va, len, &mva, &mlen, why, whylen))
			return ENG_KEY_BOUNDS;
		va = mva;
		len = mlen;
	}
	/* MEMIC keys are zero-based (verbs allows DM MRs no other way):
	 * [0, len) maps onto the device memory that starts at start_addr. */
	uint64_t base = mk->access_mode == MLX5_MKC_ACCESS_MODE_MEMIC ? 0 : mk->start;

	if (!mk->len64 && !eng_key_inside(base, mk->len, va, len)) {
		if (why)
			snprintf(why, whylen, "key 0x%x bounds [0x%llx,+0x%llx) "
				 "outside mkey [0x%llx,+0x%llx)", key,
				 (unsigned long long)va, (unsigned long long)len,
				 (unsigned long long)base,
				 (unsigned long long)mk->len);
		return ENG_KEY_BOUNDS;
	}
	if (mk->len64 && len && va + len - 1 < va) {
		if (why)
			snprintf(why, whylen, "key 0x%x: [0x%llx,+0x%llx) wraps "
				 "the address space", key,
				 (unsigned long long)va, (unsigned long long)len);
		return ENG_KEY_BOUNDS;
	}
	switch (mk->access_mode) {
	case MLX5_MKC_ACCESS_MODE_PA:
		/* Implicit ODP: the whole address space, so an address may be
		 * unmapped or read-only -- found at the access, by the fault
		 * guard, like an ODP page fault that cannot be resolved. */
	case MLX5_MKC_ACCESS_MODE_MEMIC:
		break;
	case MLX5_MKC_ACCESS_MODE_KLMS:
		/* A bound memory window: one KLM into a referenced MR. */
		if (mk->bound && mk->nklm == 1)
			break;
		/* fall through */
	case MLX5_MKC_ACCESS_MODE_KSM:
		if (eng_ind_mkey(mk)) {
			int rc = eng_ind_check(e, mk, key, need, va, len, why,
					       whylen, depth);

			if (rc)
				return rc;
			break;
		}
		if (why)
			snprintf(why, whylen, "key 0x%x: %s mkey %s", key,
				 mk->access_mode == MLX5_MKC_ACCESS_MODE_KSM ?
				 "KSM" : "KLM",
				 mk->access_mode == MLX5_MKC_ACCESS_MODE_KLMS &&
				 mk->bound ? "with more than one entry is not "
				 "translated yet" : "has no layout");
		return ENG_KEY_MODE;
	case MLX5_MKC_ACCESS_MODE_MTT:
		if (len && !mk->umem && !eng_mtt_covers(mk, va, len)) {
			uint64_t pb = mk->start & ~((1ull << mk->page_shift) - 1);

			if (why)
				snprintf(why, whylen, "key 0x%x: page %llu "
					 "has no MTT entry (%u given)", key,
					 (unsigned long long)((va + len - 1 - pb) >>
							      mk->page_shift),
					 mk->nmtt);
			return ENG_KEY_BOUNDS;
		}
		break;
	default:
		if (why)
			snprintf(why, whylen, "key 0x%x: access mode %u is not "
				 "translated by the engine yet", key,
				 mk->access_mode);
		return ENG_KEY_MODE;
	}
	*mkp = mk;
	return ENG_KEY_OK;
}

int eng_key_check_cached(struct eng *e, struct eng_kcache *kc, uint32_t key,
			 const struct fw_pd *pd, uint32_t need, uint64_t va,
			 uint64_t len, struct fw_mkey **mkp, char *why,
			 size_t whylen)
{
	struct fw_mkey *mk = e->fast ? eng_kcache_hit(e, kc, key, pd, need,
						      va, len) : NULL;
	int rc;

	if (mk) {
		*mkp = mk;
		return ENG_KEY_OK;
	}
	rc = eng_key_check(e, key, pd, need, va, len, mkp, why, whylen);
	mk = *mkp;
	if (!rc && mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT && !mk->umem &&
	    !mk->len64) {
		kc->gen = e->gen;
		kc->key = key;
		kc->pd = pd;
		kc->need = need;
		kc->mk = mk;
	}
	return rc;
}

static uint8_t *eng_mkey_host_at(const struct fw_mkey *mk, uint64_t va,
				 uint64_t *contig, unsigned int depth);

/*
 * One piece of an indirect mkey: the inner key is checked again (it may
 * have changed since the access was checked: valid, same PD, the piece
 * inside it) so that nothing outside it is ever touched.
 */
static uint8_t *eng_ind_host(const struct fw_mkey *mk, uint64_t va, uint64_t *contig,
			     unsigned int depth)
{
	const struct fw_mkey *in;
	uint64_t addr, n, base, c;
	uint32_t ik;
	uint8_t *p;

	if (depth >= ENG_IND_DEPTH || !mk->fw ||
	    !eng_ind_piece(mk, va - mk->start, &ik, &addr, &n))
		return NULL;
	in = fw_mkey_lookup(mk->fw, ik);
	if (!in || in->free || in->pd != mk->pd || eng_xform(in))
		return NULL;
	base = in->access_mode == MLX5_MKC_ACCESS_MODE_MEMIC ? 0 : in->start;
	if (!in->len64) {
		if (addr < base || addr - base >= in->len)
			return NULL;
		if (n > in->len - (addr - base))
			n = in->len - (addr - base);
	}
	p = eng_mkey_host_at(in, addr, &c, depth + 1);
	if (!p)
		return NULL;
	*contig = c < n ? c : n;
	return p;
}

uint8_t *eng_mkey_host(const struct fw_mkey *mk, uint64_t va, uint64_t *contig)
{
	return eng_mkey_host_at(mk, va, contig, 0);
}

static uint8_t *eng_mkey_host_at(const struct fw_mkey *mk, uint64_t va,
				 uint64_t *contig, unsigned int depth)
{
	switch (mk->access_mode) {
	case MLX5_MKC_ACCESS_MODE_KSM:
		return eng_ind_host(mk, va, contig, depth);
	case MLX5_MKC_ACCESS_MODE_KLMS: {
		if (!mk->bound)
			return eng_ind_host(mk, va, contig, depth);
		uint64_t off = va - mk->start;
		uint64_t at = DEVX_GET64(klm, mk->klm, address) + off;
		uint8_t *p = eng_mkey_host_at(mk->bound, at, contig, depth + 1);

		if (p && *contig > mk->len - off)
			*contig = mk->len - off;
		return p;
	}
	case MLX5_MKC_ACCESS_MODE_PA:
		*contig = UINT64_MAX;
		return (uint8_t *)(uintptr_t)va;
	case MLX5_MKC_ACCESS_MODE_MEMIC:
		*contig = mk->len - va;
		return mk->memic + va;
	case MLX5_MKC_ACCESS_MODE_MTT: {
		if (mk->umem) {
			const struct fw_buf *b = &mk->umem->buf;
			uint64_t off = mk->umem_offset + (va - mk->start);
			uint64_t ppos = (b->offset + off) &
					((1ull << b->page_shift) - 1);
			uint8_t *p = fw_buf_addr(b, off);

			if (!p)
				return NULL;
			*contig = (1ull << b->page_shift) - ppos;
			if (*contig > b->size - off)
				*contig = b->size - off;
			return p;
		}
		return eng_mtt_host(mk, va, 0, contig);
	}
	default:
		return NULL;
	}
}

/* Host address of byte @off of @s and the contiguous bytes there. */
static uint8_t *eng_sge_at(const struct eng_sge *s, uint64_t off, uint64_t *n)
{
	uint8_t *p;
	uint64_t c;

	if (s->host) {
		*n = s->len - off;
		return s->host + off;
	}
	/* Registered memory (plain MTT) without the walk through the modes. */
	if (s->mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT && !s->mk->umem)
		p = eng_mtt_host(s->mk, s->va + off, s->len - off, &c);
	else
		p = eng_mkey_host(s->mk, s->va + off, &c);
	if (!p)
		return NULL;
	*n = c < s->len - off ? c : s->len - off;
	return p;
}

struct eng_cursor {
	const struct eng_sgl *l;
	uint32_t i;
	uint64_t off;	/* within sge[i] */
};

static void eng_cursor_seek(struct eng_cursor *c, const struct eng_sgl *l,
			    uint64_t off)
{
	c->l = l;
	c->i = 0;
	while (c->i < l->n && off >= l->sge[c->i].len) {
		off -= l->sge[c->i].len;
		c->i++;
	}
	c->off = off;
}

static uint8_t *eng_cursor_chunk(struct eng_cursor *c, uint64_t *n)
{
	while (c->i < c->l->n && c->off >= c->l->sge[c->i].len) {
		c->i++;
		c->off = 0;
	}
	if (c->i >= c->l->n)
		return NULL;
	return eng_sge_at(&c->l->sge[c->i], c->off, n);
}

/* One translated piece. Through the guard when either side is memory a key
 * names; our own buffers (inline data, scratch, cells, a peer's memfd
 * mapped here, which is never truncated) are copied plainly. */
static inline bool eng_piece_copy(uint8_t *dp, const struct eng_sge *ds,
				  const uint8_t *sp, const struct eng_sge *ss,
				  uint64_t n)
{
	if (ds->host && ss->host) {
		memmove(dp, sp, n);
		return true;
	}
	return smx_fault_memmove(dp, sp, n);
}

uint64_t eng_sgl_copy(const struct eng_sgl *dst, uint64_t doff,
		      const struct eng_sgl *src, uint64_t soff, uint64_t len)
{
	struct eng_cursor d, s;
	uint64_t done = 0;

	/* Small messages are one contiguous piece on each side: translate
	 * each once (same checks as below) and copy. */
	if (dst->n == 1 && src->n == 1 && len &&
	    doff < dst->sge[0].len && len <= dst->sge[0].len - doff &&
	    soff < src->sge[0].len && len <= src->sge[0].len - soff) {
		uint64_t dn, sn;
		uint8_t *dp = eng_sge_at(&dst->sge[0], doff, &dn);
		uint8_t *sp = eng_sge_at(&src->sge[0], soff, &sn);

		if (dp && sp && dn >= len && sn >= len)
			return eng_piece_copy(dp, &dst->sge[0], sp, &src->sge[0],
					      len) ? len : 0;
	}
	eng_cursor_seek(&d, dst, doff);
	eng_cursor_seek(&s, src, soff);
	while (done < len) {
		uint64_t dn, sn, n;
		uint8_t *dp = eng_cursor_chunk(&d, &dn);
		uint8_t *sp = eng_cursor_chunk(&s, &sn);

		if (!dp || !sp)
			break;
		n = len - done;
		if (dn < n)
			n = dn;
		if (sn < n)
			n = sn;
		if (!eng_piece_copy(dp, &d.l->sge[d.i], sp, &s.l->sge[s.i], n))
			break;
		d.off += n;
		s.off += n;
		done += n;
	}
	return done;
}

const char *eng_fault_why(char *buf, size_t len)
{
	void *addr;
	int sig;

	if (smx_fault_take(&sig, &addr))
		snprintf(buf, len, "access to %p faulted (%s: page not "
			 "mapped, or not with that access)", addr,
			 sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
	else
		snprintf(buf, len, "a piece could not be translated");
	return buf;
}

bool eng_sgl_probe(const struct eng_sgl *l, uint64_t len, bool write)
{
	struct eng_cursor c;
	uint64_t done = 0;

	eng_cursor_seek(&c, l, 0);
	while (done < len) {
		uint64_t n;
		uint8_t *p = eng_cursor_chunk(&c, &n);

		if (!p)
			return false;
		if (n > len - done)
			n = len - done;
		if (!c.l->sge[c.i].host && !smx_fault_probe(p, n, write))
			return false;
		c.off += n;
		done += n;
	}
	return true;
}

uint8_t *eng_sgl_ptr8(const struct eng_sgl *l, uint64_t off)
{
	struct eng_cursor c;
	uint64_t n;
	uint8_t *p;

	eng_cursor_seek(&c, l, off);
	p = eng_cursor_chunk(&c, &n);
	if (!p || n < 8 || ((uintptr_t)p & 7))
		return NULL;
	return p;
}

int eng_sgl_iov(const struct eng_sgl *l, uint64_t off, uint64_t len,
		struct iovec *iov, int max, bool no_host, uint64_t *covered)
{
	struct eng_cursor c;
	uint64_t done = 0;
	int n = 0;

	eng_cursor_seek(&c, l, off);
	while (done < len) {
		uint64_t cn;
		uint8_t *p;

		while (c.i < l->n && c.off >= l->sge[c.i].len) {
			c.i++;
			c.off = 0;
		}
		if (c.i >= l->n)
			break;
		if (no_host && l->sge[c.i].host)
			return -1;
		p = eng_sge_at(&l->sge[c.i], c.off, &cn);
		if (!p || !cn)
			break;
		if (cn > len - done)
			cn = len - done;
		if (n && (uint8_t *)iov[n - 1].iov_base + iov[n - 1].iov_len == p) {
			iov[n - 1].iov_len += cn;
		} else {
			if (n == max)
				break;
			iov[n].iov_base = p;
			iov[n].iov_len = cn;
			n++;
		}
		c.off += cn;
		done += cn;
	}
	*covered = done;
	return n;
}
