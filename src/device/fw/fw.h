/* SPDX-License-Identifier: MIT */
/*
 * The firmware of the software HCA: PRM command interpreter and the object
 * tables the data-path engine works from.
 *
 * LOCKING. One mutex per firmware instance (fw->lock) serialises every
 * command, like a single command queue. The engine takes the same lock
 * (fw_lock()/fw_unlock()) around object lookups: pointers returned by the
 * fw_*_lookup() functions are valid only while the lock is held, because a
 * DESTROY_* command may free the object as soon as it is released. Data-path
 * state that changes without commands (PSNs, counters, ring indexes) belongs
 * to the engine and is not protected by fw->lock.
 *
 * "Physical" addresses: in this device a PAS / MTT entry holds a process
 * virtual address; page-aligned entries are required like real DMA pages.
 */
#ifndef SMX_DEVICE_FW_FW_H
#define SMX_DEVICE_FW_FW_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/config.h"
#include "prm/prm.h"

struct fw;

/* ------------------------------------------------------------------ */
/* Lifetime and command execution                                     */
/* ------------------------------------------------------------------ */

/*
 * @memic/@memic_size: the device-memory window inside the BAR (may be 0),
 * whose BAR offset is @memic_bar_off; @nr_uars: UAR pages in the BAR.
 */
struct fw *fw_create(const struct smx_config *cfg, void *memic,
		     uint64_t memic_size, uint64_t memic_bar_off,
		     uint32_t nr_uars);
void fw_destroy(struct fw *fw);

/* Executes one command; always produces an answer in @out (status, syndrome).
 * @inlen/@outlen must be at least the 16-byte headers (checked by caller). */
void fw_exec(struct fw *fw, const void *in, size_t inlen, void *out,
	     size_t outlen);

/* Host-wide numbering: this process's slot in the shared process table.
 * PDN, XRCD, CQN, SRQN, QPN and mkey index of slot s are
 * base + s * 2^16 + local (QPN base 0x100, mkey index base 2, others 1).
 * Call before any of those objects exist. */
void fw_set_slot(struct fw *fw, uint32_t slot);

/* The BAR's UAR pages (4 KiB each), for fw_uar.page. */
void fw_set_uar_pages(struct fw *fw, void *pages);

/* The firmware behind a device instance (tests, tools, the engine). */
struct smx_dev;
struct fw *smx_dev_fw(struct smx_dev *dev);
/* Raises MSI-X @vector: calls the handler smx_dev_irq_register() set. */
void smx_dev_irq_fire(struct smx_dev *dev, uint32_t vector);

void fw_lock(struct fw *fw);
void fw_unlock(struct fw *fw);

/* ------------------------------------------------------------------ */
/* Objects                                                            */
/* ------------------------------------------------------------------ */

/* Common header: number, owner uid, references held by other objects. */
struct fw_obj {
	uint32_t id;
	uint16_t uid;
	uint32_t refs;
};

/*
 * A queue buffer or umem as the engine sees it: a list of pages of
 * 1 << page_shift bytes (process virtual addresses), the byte offset of the
 * object inside the first page, and its size. @base is non-NULL when the pages
 * are virtually contiguous (the common case), so base[off] is byte off.
 */
struct fw_buf {
	uint64_t *pages;
	uint32_t npages;
	uint32_t page_shift;
	uint64_t offset;	/* bytes into the first page */
	uint64_t size;		/* bytes */
	uint32_t stride;	/* entry size in bytes (WQE/CQE/EQE) */
	uint8_t *base;
	struct fw_umem *umem;	/* set when described by a umem */
};

/* Host address of byte @off of @b, or NULL if outside. */
void *fw_buf_addr(const struct fw_buf *b, uint64_t off);

struct fw_umem {
	struct fw_obj obj;
	struct fw_buf buf;	/* stride 0 */
};

struct fw_pd {
	struct fw_obj obj;
};

struct fw_uar {
	struct fw_obj obj;
	void *page;		/* the 4 KiB page in the BAR */
};

struct fw_xrcd {
	struct fw_obj obj;
};

struct fw_td {
	struct fw_obj obj;
};

struct fw_uctx {
	struct fw_obj obj;	/* obj.id is the uid it hands out */
	uint32_t cap;
	uint32_t nobjs;		/* objects created under this uid */
};

struct fw_eq {
	struct fw_obj obj;
	bool internal;		/* created by the device itself (comp vectors) */
	uint8_t ctx[0x40] __attribute__((aligned(8)));	/* eqc as last written (PRM bytes) */
	uint64_t event_bitmask[4];
	struct fw_uar *uar;
	struct fw_buf buf;	/* EQEs, stride 64 */
	uint32_t log_size;
	uint32_t intr;
	void *eng;		/* data-path engine state (fw_hooks.eng_free) */
};

/* Completions in one compressed CQE session at most (caps
 * cqe_compression_max_num; the engine gathers sessions, eng_comp.c). */
#define FW_CQE_COMP_MAX 64

struct fw_cq {
	struct fw_obj obj;
	uint8_t ctx[0x40] __attribute__((aligned(8)));	/* cqc as last written (PRM bytes) */
	struct fw_eq *eq;
	struct fw_uar *uar;
	struct fw_buf buf;	/* CQEs, stride 64 or 128 */
	uint32_t log_size;
	uint32_t cqe_size;
	bool cqe_pad;		/* cqe_sz 128_PAD: the first half is written as zero padding */
	volatile uint32_t *dbrec; /* [0] consumer index, [1] arm */
	struct fw_umem *dbr_umem;
	void *eng;		/* data-path engine state (fw_hooks.eng_free) */
};

enum fw_srq_kind {
	FW_SRQ_BASIC = 1,	/* CREATE_SRQ */
	FW_SRQ_XRC = 2,		/* CREATE_XRC_SRQ */
	FW_SRQ_RMP = 3,		/* CREATE_RMP */
};

struct fw_srq {
	struct fw_obj obj;
	enum fw_srq_kind kind;
	uint8_t ctx[0x40] __attribute__((aligned(8)));	/* srqc / xrc_srqc / rmpc head (PRM bytes) */
	struct fw_pd *pd;
	struct fw_cq *cq;	/* XRC SRQ only */
	struct fw_xrcd *xrcd;	/* XRC SRQ only */
	struct fw_buf buf;	/* receive WQEs */
	uint32_t log_size;
	uint32_t lwm;
	bool armed;
	uint32_t user_index;
	uint32_t state;		/* RMP: MLX5_RMPC_STATE_* (SRQs: unused) */
	bool cyclic;		/* RMP wq_type cyclic: WQE n at slot n % size, next_wqe_index unused */
	bool basic;		/* RMP basic_cyclic_rcv_wqe: no 16-byte next segment */
	volatile uint32_t *dbrec;
	struct fw_umem *dbr_umem;
	void *eng;		/* data-path engine state (fw_hooks.eng_free) */
};

/* DCI stream caps (HCA caps log_max_dci_stream_channels / _errored). */
#define FW_LOG_MAX_DCI_STREAMS 4
#define FW_LOG_MAX_DCI_ERRORED 3

struct fw_qp {
	struct fw_obj obj;
	uint8_t qpc[0xe8] __attribute__((aligned(8)));	/* qpc, kept current by every transition */
	uint32_t opt_param_mask;
	uint32_t state;		/* MLX5_QPC_STATE_* */
	uint32_t st;		/* MLX5_QPC_ST_* */
	struct fw_pd *pd;
	struct fw_cq *scq, *rcq;
	struct fw_srq *srq;
	struct fw_xrcd *xrcd;
	struct fw_uar *uar;
	struct fw_buf buf;	/* RQ at 0, SQ at sq_offset */
	uint64_t sq_offset;
	uint32_t sq_wqebbs;	/* 64-byte send WQE basic blocks */
	uint32_t rq_wqes;
	uint32_t rq_stride;
	volatile uint32_t *dbrec; /* [0] RQ counter, [1] SQ counter */
	struct fw_umem *dbr_umem;
	void *eng;		/* data-path engine state (fw_hooks.eng_free) */
	/* DCI stream channels: the distinct stream ids in error (reset by
	 * RTS2RTS with dci_stream_channel_id, cleared by 2RST). */
	uint16_t dci_err_ids[1u << FW_LOG_MAX_DCI_ERRORED];
	uint32_t dci_nerr;
	/* QoS queue groups (scheduling elements) the requester / responder
	 * side joined through qpc_data_ext; 0 = none */
	uint32_t qos_req, qos_resp;
	/* DCT (st FW_QP_ST_DCT): the dctc as created, for QUERY_DCT. */
	uint8_t dctc[0x40] __attribute__((aligned(8)));
	uint32_t dct_state;	/* MLX5_DCTC_STATE_* */
	bool dct_armed;		/* ARM_DCT_FOR_KEY_VIOLATION pending */
	uint32_t dct_key_violations;
};

/* A DC target: kept in the QP table (DCT and QP numbers share one space),
 * with this st, which is no PRM QP service type. */
#define FW_QP_ST_DCT 0xff

/* Is @qp a DC initiator running with stream channels? */
static inline bool fw_qp_dci_streams(const struct fw_qp *qp)
{
	return qp->st == MLX5_QPC_ST_DCI &&
	       (DEVX_GET(qpc, qp->qpc, log_num_dci_stream_channels) ||
		DEVX_GET(qpc, qp->qpc, log_num_dci_errored_streams));
}

/* A PSV: one signature domain's running state (fw_psv.c). */
struct fw_psv {
	struct fw_obj obj;
	struct fw_pd *pd;
	uint64_t transient;	/* loaded by SET_PSV WQEs */
};

enum fw_sig_type { FW_SIG_NONE, FW_SIG_CRC, FW_SIG_T10DIF };
enum fw_sig_crc { FW_CRC32, FW_CRC32C, FW_CRC64_XP10 };

/* One domain (memory or wire) of a signature mkey's BSF. */
struct fw_sig_dom {
	uint8_t type;		/* enum fw_sig_type */
	uint8_t crc;		/* enum fw_sig_crc */
	bool crc_seed_ones;	/* CRC register starts all ones (else 0) */
	uint8_t t10_guard;	/* SMX_T10DIF_CRC / SMX_T10DIF_IPCS */
	bool t10_seed;		/* guard seeded from the PSV */
	bool t10_inc_ref;	/* ref tag + block number */
	uint8_t t10_escape;	/* SMX_BSF_APPTAG_ESCAPE / _APPREF_ESCAPE */
	uint16_t app_tag;
	uint32_t ref_tag;
	struct fw_psv *psv;	/* referenced */
};

struct fw_sig {
	bool en;		/* a BSF with at least one signed domain */
	uint32_t block;		/* data bytes per block */
	uint8_t check_mask;	/* bytes of the incoming signature checked */
	bool sbs;		/* same block structure: copy_mask applies */
	uint8_t copy_mask;	/* bytes copied from the incoming signature */
	uint8_t err_cnt;	/* mkc sig_err_cnt, as last set by a UMR */
	struct fw_sig_dom mem, wire;
};

/* The crypto BSF in force on a crypto mkey (AES-XTS). */
struct fw_mkey_crypto {
	bool en;
	bool encrypt_on_tx;	/* memory plaintext, wire encrypted */
	bool sig_before;	/* TX: signature, then crypto (wire stream) */
	uint32_t du;		/* data unit bytes */
	uint8_t tweak_be[16];	/* initial tweak, big-endian */
	uint32_t dek;		/* DEK object id, checked at use */
	uint8_t keytag[8];
};

struct fw_mkey {
	struct fw_obj obj;	/* obj.id = mkey index (key >> 8) */
	uint8_t ctx[0x40] __attribute__((aligned(8)));	/* mkc as created (PRM bytes) */
	uint8_t variant;	/* mkey_7_0 */
	uint32_t access_mode;	/* MLX5_MKC_ACCESS_MODE_* */
	bool free;
	bool umr_en;
	uint32_t access;	/* bit0 lr, bit1 lw, bit2 rr, bit3 rw, bit4 a */
	struct fw_pd *pd;
	uint64_t start;
	uint64_t len;
	bool len64;		/* length is 2^64 */
	uint32_t page_shift;
	/* MTT mode: page addresses; KLM/KSM: 16-byte entries (PRM bytes). */
	uint64_t *mtt;
	uint32_t nmtt;
	uint8_t *klm;
	uint32_t nklm;
	struct fw_umem *umem;	/* mkey_umem_valid */
	uint64_t umem_offset;
	uint8_t *memic;		/* MEMIC mode: host address of start */
	/* A memory window bound by UMR: the MR its one KLM points into,
	 * referenced so the MR cannot be destroyed under the window. */
	struct fw_mkey *bound;
	/* KLM mode set up by a user UMR (an indirect mkey): klm holds either
	 * nklm KLM entries or, with @rblock, the repeat-block header followed
	 * by its nklm entries (16 bytes each, PRM bytes). The inner keys are
	 * not referenced: the engine looks each one up and checks it at
	 * access time, like the hardware. */
	bool rblock;
	uint32_t max_klm;	/* translations_octword_size at creation */
	struct fw *fw;		/* for looking up inner keys */
	/* Signature mkey (mkc.bsf_en at creation): the BSF in force, set by a
	 * UMR WQE (eng_umr.c) and applied by eng_sig.c on every use. */
	bool bsf_cap;
	struct fw_sig sig;
	/* Crypto mkey (mkc.crypto_en): unusable until a UMR's crypto BSF
	 * configured it (crypto.en). */
	bool crypto_cap;
	struct fw_mkey_crypto crypto;
};

/*
 * Data-path changes to mkeys (UMR WQEs, remote invalidation), made by the
 * engine with fw_lock held so the mkey's state and its references stay
 * consistent for QUERY_MKEY and DESTROY_MKEY.
 */
struct fw_mkey_bind {
	uint64_t start;		/* window start (0: zero-based) */
	uint64_t len;
	uint32_t access;	/* bits as fw_mkey.access */
	uint32_t qpn;		/* 0xffffff: not tied to a QP (type 1) */
	uint8_t variant;	/* new mkey_7_0 */
	struct fw_mkey *mr;	/* the MR the single KLM points into */
	uint64_t mr_addr;	/* where in that MR the window starts */
};

void fw_mkey_bind(struct fw_mkey *mw, const struct fw_mkey_bind *b);

/* A privileged UMR on a direct (MTT) key: new PD, range, rights and, when
 * @mtt is given, a new page list of 2^@page_shift-byte pages. 0, or -1 with
 * @why when the change cannot be made (nothing changed then). */
struct fw_mkey_update {
	struct fw_pd *pd;		/* NULL: keep */
	bool set_range;
	uint64_t start, len;
	bool set_access;
	uint32_t access;
	const uint64_t *mtt;		/* NULL: keep the translation */
	uint32_t nmtt;
	uint32_t page_shift;
};

int fw_mkey_update(struct fw_mkey *mk, const struct fw_mkey_update *u, char *why,
		   size_t whylen);
/* A user UMR (re)configuring an indirect KLM mkey: the new layout
 * (@klm: @nklm KLM entries, or with @rblock a repeat-block header and its
 * @nklm entries; NULL keeps the layout), length, rights, variant and
 * free state, each applied only when its set_* flag is given. 0, or -1
 * with @why (nothing changed then). */
struct fw_mkey_conf {
	const uint8_t *klm;
	uint32_t nklm;
	bool rblock;
	bool set_len;
	uint64_t len;
	bool set_access;
	uint32_t access;
	bool set_variant;
	uint8_t variant;
	bool set_free;
	bool free;
};

int fw_mkey_configure(struct fw_mkey *mk, const struct fw_mkey_conf *c, char *why,
		      size_t whylen);
/* Installs a signature mkey's BSF (NULL: none), moving the PSV references. */
void fw_mkey_set_sig(struct fw_mkey *mk, const struct fw_sig *s);
/* Marks @mk free (invalid), releasing the MR a window was bound to. */
void fw_mkey_invalidate(struct fw_mkey *mk, bool set_variant, uint8_t variant);


/* ------------------------------------------------------------------ */
/* Ethernet objects (fw_tis.c, fw_sq.c, fw_rq.c, fw_tir.c, fw_flow.c) */
/* ------------------------------------------------------------------ */

/*
 * Number spaces: SQs and RQs have their own tables, numbered with a prefix
 * (SQN 0x400000 | slot << 16 | n, RQN 0x800000 | ...) so that no SQN, RQN
 * and QPN are ever equal: a send doorbell names its queue unambiguously.
 */
#define FW_SQN_PREFIX 0x400000u
#define FW_RQN_PREFIX 0x800000u

/* A transport interface send: what an SQ's packets leave through. */
struct fw_tis {
	struct fw_obj obj;
	uint8_t ctx[0xa0] __attribute__((aligned(8)));	/* tisc */
	struct fw_td *td;
	struct fw_pd *pd;	/* optional */
};

/* A cyclic Ethernet send queue: 64-byte WQEBBs, producer in dbrec[1]. */
struct fw_sq {
	struct fw_obj obj;
	uint8_t ctx[0xf0] __attribute__((aligned(8)));	/* sqc, kept current */
	uint32_t state;		/* MLX5_SQC_STATE_* */
	struct fw_cq *cq;
	struct fw_pd *pd;
	struct fw_tis *tis;
	struct fw_uar *uar;	/* optional */
	struct fw_buf buf;	/* stride 64 */
	uint32_t wqebbs;
	uint32_t min_inline;	/* sqc.min_wqe_inline_mode */
	volatile uint32_t *dbrec;	/* [1] WQEBB producer counter */
	struct fw_umem *dbr_umem;
	void *eng;		/* data-path engine state (fw_hooks.eng_free) */
};

/* A cyclic Ethernet receive queue: WQE i at i * stride, a scatter list
 * ended by MLX5_INVALID_LKEY; producer in dbrec[0]. */
struct fw_rq {
	struct fw_obj obj;
	uint8_t ctx[0xf0] __attribute__((aligned(8)));	/* rqc, kept current */
	uint32_t state;		/* MLX5_RQC_STATE_* */
	struct fw_cq *cq;
	struct fw_pd *pd;
	struct fw_buf buf;
	uint32_t wqes;		/* 0 for an RMP-backed RQ */
	struct fw_srq *rmp;	/* mem_rq_type MEMORY_RQ_RMP: WQEs come from here */
	bool vsd;		/* VLAN strip disabled */
	volatile uint32_t *dbrec;	/* [0] WQE producer counter */
	struct fw_umem *dbr_umem;
	uint64_t out_of_buffer;	/* frames dropped: no receive WQE posted */
	void *eng;
};

/* An RQ table (fw_rqt.c): the RQs an indirect TIR hashes frames over. */
struct fw_rqt {
	struct fw_obj obj;
	uint32_t max;		/* rqt_max_size */
	uint32_t n;		/* rqt_actual_size */
	struct fw_rq **rq;	/* max slots, n used (referenced) */
};

/* A transport interface receive: a direct dispatch to one RQ, or an
 * indirect one over an RQ table by a Toeplitz hash of selected fields. */
struct fw_tir {
	struct fw_obj obj;
	uint8_t ctx[0xf0] __attribute__((aligned(8)));	/* tirc */
	struct fw_rq *rq;	/* direct */
	struct fw_rqt *rqt;	/* indirect */
	uint8_t hash_key[40];	/* rx_hash_toeplitz_key */
	uint8_t hash_l3;	/* MLX5_L3_PROT_TYPE_* */
	uint8_t hash_l4;	/* MLX5_L4_PROT_TYPE_* */
	uint32_t hash_fields;	/* MLX5_HASH_FIELD_SEL_*; 0: no hash */
	struct fw_td *td;
	uint8_t self_lb_block;	/* MLX5_TIRC_SELF_LB_BLOCK_* */
};

/* Flow steering. A table holds groups (index ranges sharing one match
 * criteria) and entries (a match value and what to do with a match). */
struct fw_fg;
struct fw_fte;

struct fw_ft {
	struct fw_obj obj;
	uint32_t type;		/* MLX5_FLOW_TABLE_TYPE_* */
	uint32_t level;
	uint32_t log_size;
	uint32_t miss_action;	/* MLX5_FLOW_TABLE_MISS_ACTION_* */
	struct fw_ft *miss;	/* miss_action FWD */
	struct fw_fg *groups;	/* by start index */
	struct fw_fte **fte;	/* by flow index */
	uint32_t nfte, capfte;
};

#define FW_MATCH_BYTES 64	/* one fte_match_set_lyr_2_4 */

struct fw_fg {
	struct fw_obj obj;
	struct fw_ft *ft;
	uint32_t start, end;	/* inclusive */
	uint8_t mce;		/* match_criteria_enable */
	uint8_t crit[FW_MATCH_BYTES];	/* outer headers criteria */
	uint32_t nfte;
	struct fw_fg *next;
};

struct fw_fte_dest {
	uint32_t type;		/* MLX5_FLOW_DESTINATION_TYPE_* */
	struct fw_tir *tir;
	struct fw_ft *ft;
};

/* Flow counter (fw_fc.c): what entries with action COUNT saw. */
struct fw_fc {
	struct fw_obj obj;
	uint64_t packets, octets;
};

/* Modify header context (fw_modhdr.c): header rewrites a flow entry with
 * action MOD_HDR runs on the frame, in list order. */
struct fw_mh_action {
	uint8_t type;		/* MLX5_ACTION_TYPE_SET / _ADD */
	uint16_t field;		/* MLX5_ACTION_IN_FIELD_* */
	uint8_t offset, length;	/* bits; length 1..32 */
	uint32_t data;
};

struct fw_mh {
	struct fw_obj obj;
	uint32_t table_type;	/* MLX5_FLOW_TABLE_TYPE_* it may serve */
	uint32_t n;
	struct fw_mh_action act[];
};

/* Packet reformat context (fw_reformat.c): the outer header an entry with
 * action PACKET_REFORMAT puts in front of the frame. */
struct fw_pr {
	struct fw_obj obj;
	uint32_t type;		/* MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL */
	uint32_t size;		/* header bytes */
	uint8_t data[];
};

struct fw_fte {
	uint32_t index;
	uint16_t uid;
	struct fw_fg *fg;
	uint32_t action;	/* MLX5_FLOW_CONTEXT_ACTION_* */
	uint32_t flow_tag;
	uint8_t val[FW_MATCH_BYTES];	/* outer headers, masked by the group */
	uint64_t hits;
	struct fw_mh *mh;	/* action MOD_HDR */
	struct fw_pr *pr;	/* action PACKET_REFORMAT (NIC TX: encap) */
	uint32_t push_vlan;	/* action VLAN_PUSH: TPID << 16 | TCI */
	uint32_t nfc;		/* flow counters (action COUNT) */
	struct fw_fc **fc;
	uint32_t ndest;
	struct fw_fte_dest dest[];
};

/* The TIRs a received frame goes to (fw_flow_steer). */
#define FW_STEER_MAX 16

struct fw_steer {
	uint32_t ntir;
	struct fw_tir *tir[FW_STEER_MAX];
	uint32_t flow_tag;	/* of the entry that matched last */
	bool dropped;		/* by an entry with action DROP */
	bool pop_vlan;		/* an entry on the path pops the outer tag */
	bool decap;		/* an entry on the path has action DECAP */
};

/* Device-wide Ethernet receive counters. */
struct fw_eth_stats {
	uint64_t rx_frames;	/* frames into NIC receive steering */
	uint64_t rx_no_match;	/* a table missed, no miss table: dropped */
	uint64_t rx_dropped;	/* entries with action DROP */
	uint64_t rx_out_of_buffer;	/* a TIR's RQ had no WQE */
	uint64_t rx_malformed;	/* shorter than an Ethernet header */
	uint64_t tx_frames;	/* frames into NIC transmit steering */
	uint64_t tx_dropped;	/* dropped by a NIC TX entry (action DROP) */
};

/* ------------------------------------------------------------------ */
/* Lookups for the engine (call with fw_lock held)                    */
/* ------------------------------------------------------------------ */

struct fw_qp *fw_qp_lookup(struct fw *fw, uint32_t qpn);
struct fw_cq *fw_cq_lookup(struct fw *fw, uint32_t cqn);
struct fw_eq *fw_eq_lookup(struct fw *fw, uint32_t eqn);
struct fw_srq *fw_srq_lookup(struct fw *fw, uint32_t srqn);
struct fw_pd *fw_pd_lookup(struct fw *fw, uint32_t pdn);
/* By full key (index << 8 | variant); NULL if index or variant differ. */
struct fw_mkey *fw_mkey_lookup(struct fw *fw, uint32_t key);
struct fw_psv *fw_psv_lookup(struct fw *fw, uint32_t index);
struct fw_umem *fw_umem_lookup(struct fw *fw, uint32_t umem_id);
struct fw_uar *fw_uar_lookup(struct fw *fw, uint32_t index);
struct fw_sq *fw_sq_lookup(struct fw *fw, uint32_t sqn);
struct fw_rq *fw_rq_lookup(struct fw *fw, uint32_t rqn);
/*
 * NIC receive steering of one frame whose headers are given as a
 * fte_match_set_lyr_2_4 (@hdr, PRM bytes): from the root table set by
 * SET_FLOW_TABLE_ROOT, each table's entries in flow index order, the first
 * entry whose group criteria match; FWD_DEST to TIRs (each gets the frame)
 * or to a deeper table (followed), DROP, or a table miss (miss table, or
 * dropped); VLAN_POP on the path sets out->pop_vlan (the engine removes
 * the tag). Counts into fw_eth_stats() and into the flow counters of
 * every matching entry with action COUNT (@len bytes, the frame's length).
 */
void fw_flow_steer(struct fw *fw, const uint8_t hdr[FW_MATCH_BYTES],
		   uint32_t len, struct fw_steer *out);
/*
 * NIC transmit steering of one frame an SQ sends, rewritten in place
 * (@f holds @cap bytes, *@len of them the frame): from the NIC TX root,
 * each matching entry's actions in PRM order (pop VLAN, modify header, push
 * VLAN), then DROP (false), ALLOW (on to the wire, true) or a deeper table;
 * a miss goes to the miss table or on to the wire. @classify refills the
 * match set after a rewrite. No NIC TX root: true, the frame untouched.
 */
bool fw_flow_steer_tx(struct fw *fw, uint8_t *f, uint32_t *len, uint32_t cap,
		      void (*classify)(const uint8_t *f, uint32_t len,
				       uint8_t hdr[FW_MATCH_BYTES]));
struct fw_eth_stats *fw_eth_stats(struct fw *fw);

/*
 * Engine hooks. Called by command handlers with fw->lock held, in the
 * command's thread; they must not issue commands. eng_free is called for an
 * object being destroyed whose ->eng is set; the hook frees that state (the
 * engine frees what is left itself when it stops, before fw_destroy). qp_modified follows every successful QP transition (the
 * new state is qp->state).
 */
/* The type and state of @qp by name (DCT for a DCT). */
const char *fw_qp_names(const struct fw_qp *qp, const char **state);

/*
 * softmlx5 status (fw_status.c): calls @cb for every QP, CQ, SRQ and
 * mkey (in that order, each kind by id), and gives the number of objects
 * of every other table by its name (fw->lock held).
 */
struct fw_status_cb {
	void (*qp)(void *arg, struct fw_qp *qp);
	void (*cq)(void *arg, struct fw_cq *cq);
	void (*srq)(void *arg, struct fw_srq *srq);
	void (*mkey)(void *arg, struct fw_mkey *mk);
	/* a DEVX general object: its id and type (by name) */
	void (*genobj)(void *arg, uint32_t id, uint16_t type, const char *name);
	void (*count)(void *arg, const char *table, uint32_t n);
};
void fw_status_walk(struct fw *fw, const struct fw_status_cb *cb, void *arg);
/* A general object type's name (the table of fw_genobj.c), "?" if none. */
const char *fw_genobj_type_name(uint16_t type);

struct fw_hooks {
	void (*qp_created)(void *arg, struct fw_qp *qp);
	void (*qp_modified)(void *arg, struct fw_qp *qp, uint32_t old_state);
	void (*eng_free)(void *arg, void *eng);
	/* An asynchronous event about @qp (a DCT drained ...). */
	void (*qp_event)(void *arg, struct fw_qp *qp, uint8_t type);
	/* After every command, before it returns: objects may have changed. */
	void (*changed)(void *arg);
	/* An Ethernet SQ / RQ was created (@old_state FW_WQ_NEW) or moved
	 * to another state (sq->state / rq->state). */
	void (*sq_changed)(void *arg, struct fw_sq *sq, uint32_t old_state);
	void (*rq_changed)(void *arg, struct fw_rq *rq, uint32_t old_state);
};
#define FW_WQ_NEW 0xffu
void fw_set_hooks(struct fw *fw, const struct fw_hooks *hooks, void *arg);

/* ------------------------------------------------------------------ */
/* Crypto (fw_crypto.c)                                               */
/* ------------------------------------------------------------------ */

/*
 * A data encryption key as the crypto engine uses it: AES-XTS key1 (data)
 * then key2 (tweak), already unwrapped. Crypto mkeys name it by object id
 * in their BSF; the engine checks it at use time (state, PD, keytag), like
 * the inner keys of an indirect mkey.
 */
struct fw_dek {
	uint8_t state;		/* MLX5_ENCRYPTION_KEY_OBJ_STATE_* */
	uint8_t key_size;	/* MLX5_ENCRYPTION_KEY_OBJ_KEY_SIZE_* */
	uint32_t key_len;	/* bytes of key: 32 (2 x 128) or 64 (2 x 256) */
	uint8_t key[64];
	bool has_keytag;
	uint8_t keytag[8];	/* compared with the BSF's keytag when set */
	uint8_t opaque[8];
	/* The PD it was made in. Not referenced: like a real part, the device
	 * lets the PD go first (pyverbs closes PDs before DEKs); a mkey in
	 * another PD cannot use the key. */
	uint32_t pdn;
};

/* The DEK with general object id @id, or NULL (call with fw_lock held). */
const struct fw_dek *fw_dek_lookup(struct fw *fw, uint32_t id);

/*
 * AES key unwrap (RFC 3394, default IV 0xA6..A6) of @in_len bytes (a
 * multiple of 8, at least 24) under @kek (16, 24 or 32 bytes) into @out
 * (@in_len - 8 bytes). 0, -EINVAL for sizes, -EBADMSG when the integrity
 * check fails (another KEK or damaged data; @out is cleared), -ENOMEM/-EIO.
 */
int fw_crypto_unwrap(const uint8_t *kek, size_t kek_len, const uint8_t *in,
		     size_t in_len, uint8_t *out);

/* Known-answer tests of AES-XTS and key unwrap; the failed_selftests bits
 * (0: none failed). Run once when the firmware starts. */
uint16_t fw_crypto_selftest(void);

/* Device identity as firmware presents it. */
const struct smx_config *fw_config(const struct fw *fw);
/* GID table entry @index (16 bytes); false for an empty slot. */
bool fw_gid(const struct fw *fw, uint32_t index, uint8_t gid[16]);
/* A command's name ("CREATE_QP"), NULL when the firmware does not know it. */
const char *fw_cmd_name(uint16_t opcode);

#endif
