/* SPDX-License-Identifier: MIT */
/*
 * libmlx5.so.1, the driver half of softmlx5. It plays the roles the kernel's
 * mlx5_ib and rdma-core's mlx5 provider play on real hardware: it builds PRM
 * command mailboxes for every object, keeps queues and doorbell records in
 * process memory, and hands the device (src/device/device.h) nothing else.
 */
#ifndef SMX_MLX5_H
#define SMX_MLX5_H

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "device/device.h"
#include "verbs/driver.h"

#define MLX5_ADAPTER_PAGE_SHIFT 12
#define MLX5_ADAPTER_PAGE_SIZE (1u << MLX5_ADAPTER_PAGE_SHIFT)
#define MLX5_SEND_WQE_BB 64
#define MLX5_SEND_WQE_SHIFT 6
#define MLX5_RECV_WQE_MIN 16
#define MLX5_CAP_GENERAL_BYTES 0x1000	/* one capability page */

/* Ring sizes are powers of two; the PRM carries their log2. */
static inline uint32_t mlx5_roundup_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v && p)
		p <<= 1;
	return p;
}

/* log2 of the smallest power of two >= @v */
static inline uint32_t mlx5_ilog2_ceil(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

struct mlx5_buf {
	void *addr;
	size_t len;		/* page multiple */
	struct mlx5_pd *custom;	/* parent domain whose allocator gave it */
	struct mlx5_context *ext;	/* context whose buffer allocators gave it */
	uint64_t res_type;
	size_t huge_len;	/* mapped from 2 MiB huge pages: munmap length */
};

#define MLX5_MAX_COMP_EQS 32
#define MLX5_TABLE_BUCKETS 256

struct mlx5_table_ent {
	struct mlx5_table_ent *next;
	uint32_t num;
	void *obj;
};

struct mlx5_table {
	pthread_rwlock_t lock;
	struct mlx5_table_ent *bucket[MLX5_TABLE_BUCKETS];
};

void mlx5_table_init(struct mlx5_table *t);
int mlx5_table_insert(struct mlx5_table *t, uint32_t num, void *obj);
void mlx5_table_remove(struct mlx5_table *t, uint32_t num);
void *mlx5_table_find(struct mlx5_table *t, uint32_t num);
/* Forgets every entry; the objects are not the table's to free. */
void mlx5_table_clear(struct mlx5_table *t);

struct mlx5_eq {
	struct mlx5_buf buf;
	uint32_t eqn;
	uint32_t vector;
	uint32_t cons_index;
	bool need_arm;
};

/* The kernel half's UMR QP (umr.c), created with uid 0 on first use. */
struct mlx5_umr {
	bool ready;
	uint32_t pdn, cqn, qpn;
	struct mlx5_buf cqbuf, sqbuf;
	__be32 *cqdb, *qpdb;
	uint32_t sq_pi, cq_ci;
};

struct mlx5_umr_rereg {
	bool set_pd, set_access;
	uint32_t pdn;
	int access;
	uint64_t start, len;	/* with the page list */
	const uint64_t *mtt;	/* page addresses | read/write enable bits */
	uint32_t nmtt;		/* 0: translation unchanged */
	uint32_t page_shift;
};

struct mlx5_device {
	struct verbs_device vdev;
	/* The device instance exists only while user contexts do, as on
	 * hardware nothing of the device stays in a process after its last
	 * close (mlx5.c): opened by the first, closed with the last, and
	 * everything below that refers to it goes with it. */
	pthread_mutex_t lock;
	unsigned int users;		/* struct mlx5_ucontext alive */
	uint64_t gen;			/* instances opened so far */
	struct smx_dev *hca;		/* NULL while no user context exists */
	/* completion EQs by vector, then the async EQ at [MLX5_MAX_COMP_EQS] */
	struct mlx5_eq eqs[MLX5_MAX_COMP_EQS + 1];
	int num_eqs;
	uint32_t eq_uar;		/* UAR page of the EQs (uid 0) */
	bool eq_uar_valid;
	struct mlx5_table qps;		/* qpn -> struct mlx5_qp */
	struct mlx5_table srqs;		/* srqn -> struct mlx5_srq */
	struct mlx5_table cqs;		/* cqn -> struct mlx5_cq (completion events) */
	struct mlx5_table mkeys;	/* mkey index -> signature struct mlx5_mkey */
	struct mlx5_umr umr;
	struct mlx5_rl_table *rl;	/* packet-pacing entries (pp.c) */
	/* Raw packet QPs by user index (raw.c): their CQEs name them so. */
	struct mlx5_table uidx;
	atomic_uint next_uidx;
	/* The kernel half's NIC receive and transmit steering roots
	 * (flow.c). */
	pthread_mutex_t steer_lock;
	struct mlx5_steer_ft *steer;
	struct mlx5_steer_ft *steer_tx;
};

/*
 * User indexes of raw packet QPs (sqc/rqc.user_index, the CQE's srqn_uidx):
 * bit 23 set, so they never equal an SRQ number, which is what srqn_uidx
 * carries for the other QPs' receive completions.
 */
#define MLX5_RAW_UIDX_BIT 0x800000u

/* Kinds of object an importing context can look up by handle. */
enum mlx5_handle_type {
	MLX5_HANDLE_PD = 1,
	MLX5_HANDLE_MR,
	MLX5_HANDLE_DM,
};

struct mlx5_handle {
	enum mlx5_handle_type type;
	uint32_t hw_id;		/* pdn, mkey, memic address page ... */
	uint64_t u64;		/* type-specific: MR addr, DM length ... */
	uint64_t u64b;		/* type-specific: MR length, DM device offset */
	uint32_t access;
	uint32_t pd_handle;	/* for MRs: the PD's handle */
	uint64_t dm_len;	/* for DMs: the length the application asked for */
	bool live;
};

/*
 * The "ucontext": what the kernel keeps per opened uverbs file. Contexts
 * created by ibv_import_device() on a dup of the cmd_fd share it, so object
 * handles (PD, MR, DM) resolve across them.
 */
struct mlx5_ucontext {
	struct mlx5_ucontext *next;
	atomic_int refcount;
	dev_t cmd_dev;
	ino_t cmd_ino;
	struct mlx5_device *mdev;	/* holds its instance open */
	struct smx_dev *hca;
	uint16_t uid;		/* DEVX user id from CREATE_UCTX */
	pthread_mutex_t lock;
	struct mlx5_handle *handles;
	uint32_t num_handles;
};

struct mlx5_caps {
	uint8_t gen[MLX5_CAP_GENERAL_BYTES];	/* cmd_hca_cap, current */
	uint8_t roce[MLX5_CAP_GENERAL_BYTES];	/* roce_cap (Ethernet only) */
	uint8_t dm[MLX5_CAP_GENERAL_BYTES];	/* device_mem_cap */
	uint8_t odp[MLX5_CAP_GENERAL_BYTES];	/* odp_cap */
	uint8_t eth[MLX5_CAP_GENERAL_BYTES];	/* ETHERNET_OFFLOADS */
	uint8_t crypto[MLX5_CAP_GENERAL_BYTES];	/* crypto_caps */
	/* The pages above stay 4-byte aligned: DEVX_GET reads dwords. */
	bool have_eth;
	bool have_roce;
	bool have_dm;
	bool have_odp;
	bool have_crypto;
};

struct mlx5_context {
	struct verbs_context ibv_ctx;
	/* mlx5dv_set_context_attr(MLX5DV_CTX_ATTR_BUF_ALLOCATORS) */
	struct mlx5dv_ctx_allocators extern_alloc;
	struct mlx5_ucontext *uctx;
	struct smx_dev *hca;
	struct mlx5_caps caps;
	uint32_t uar_page;	/* ALLOC_UAR page id: doorbells, BlueFlame */
	void *uar;		/* the page, mapped from the device BAR */
	uint32_t tdn;		/* transport domain for TIS/TIR (raw QPs) */
	uint32_t xrc_tgt_pdn;	/* the PD XRC target QPs are created in */
	pthread_mutex_t lock;
	uint64_t dv_flags;	/* mlx5dv_open_device flags */
	uint8_t link_layer;	
	uint8_t num_ports;
	uint32_t max_sge;
	uint32_t max_qp_wr;
	uint32_t max_cqe;
	uint32_t max_srq_wr;
	uint32_t max_inline;
	uint64_t dma_max_size;	/* mlx5dv_wr_memcpy() limit, 0: no DMA MMO */
	/* Crypto offload as rdma-core 44 derives it from the caps, and the
	 * login session of mlx5dv_crypto_login() (under lock). */
	struct mlx5dv_crypto_caps crypto_caps;
	struct mlx5dv_crypto_login_obj *crypto_login;
};

/* A CRYPTO_LOGIN or DEK general object. It holds its user context, not the
 * verbs context: pyverbs may destroy a DEK after closing the context. */
struct mlx5dv_crypto_login_obj {
	struct ibv_context *context;	/* where it was made; may be closed */
	struct mlx5_ucontext *uctx;	/* referenced: commands go by its uid */
	uint32_t id;
};

struct mlx5dv_dek {
	struct ibv_context *context;	/* where it was made; may be closed */
	struct mlx5_ucontext *uctx;	/* referenced */
	uint32_t id;			/* the crypto BSF's DEK pointer */
	uint32_t pdn;
};

struct mlx5_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
	bool imported;
	atomic_int users;		/* parent domains built on this PD */
	/* Parent domain (ibv_alloc_parent_domain): the PD it wraps, the
	 * thread domain, and the application's buffer allocators. */
	struct mlx5_pd *parent;
	struct ibv_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
	/* mlx5dv_wr_memcpy(): the PD's scratch key the MMO WQE names
	 * (rdma-core's "opaque MR"); made on first use, under ctx->lock. */
	struct ibv_mr *opaque_mr;
	void *opaque_buf;
};

struct mlx5_td {
	struct ibv_td ibv_td;
	atomic_int users;
};

struct mlx5_mr {
	struct ibv_mr ibv_mr;
	int access;
	uint64_t iova;
	bool implicit;		/* implicit ODP: a uid-0 mkey over all memory */
	uint32_t mkey;
	bool imported;
	uint64_t direct;	/* smx_direct_back() handle, 0: none */
};

struct mlx5_dm {
	struct ibv_dm ibv_dm;
	uint64_t dev_addr;	/* MEMIC address returned by ALLOC_MEMIC */
	uint64_t length;	/* what the application asked for */
	uint64_t alloc_len;	/* what ALLOC_MEMIC reserved (rounded up) */
	void *map;		/* the range, mapped from the device BAR */
	bool imported;
};

struct mlx5_ah {
	struct ibv_ah ibv_ah;
	struct mlx5_wqe_av av;
	bool is_global;
	pthread_mutex_t lock;		/* guards the mapping below */
	uint32_t qp_map;		/* AV_QP_MAPPING object id, 0 = none */
};

struct mlx5_cq {
	struct ibv_cq_ex ibv_cq;	/* ibv_cq first: verbs_init_cq writes it */
	struct mlx5_buf buf;
	__be32 *dbrec;		/* [0] set_ci, [1] arm */
	uint32_t cqn;
	uint32_t cqe_cnt;
	uint32_t cqe_size;
	uint32_t cons_index;
	uint32_t arm_sn;
	uint64_t wc_flags;
	int comp_vector;
	pthread_spinlock_t lock;
	struct mlx5_qp *last_qp;	/* CQE -> QP lookup cache */
	/* Extended polling: the CQE being read between start/next/end_poll. */
	struct mlx5_cqe64 *cur_cqe;
	struct ibv_wc cur_wc;
	uint64_t cur_ts;
	uint32_t cur_flow_tag;	/* raw packet receives: steering flow tag */
	uint16_t cur_cvlan;	/* ... and the stripped C-VLAN tag */
	bool polling;
	/* CQE compression (mlx5dv_create_cq): the cqc mini_cqe_res_format,
	 * -1 without; the poller expands sessions in place (cq_poll.c). */
	int comp_fmt;
};

struct mlx5_wq {
	void *buf;		/* inside the QP buffer */
	uint32_t wqe_cnt;	/* power of two, 0 if absent */
	uint32_t wqe_shift;	/* log2 of the stride */
	uint32_t max_post;
	uint32_t max_gs;
	uint32_t head;		/* work requests posted */
	uint32_t tail;		/* work requests retired */
	uint32_t cur_post;	/* SQ: next WQEBB index (the hardware counter) */
	uint64_t *wrid;		/* by WQE (WQEBB) index */
	uint32_t *wqe_head;	/* SQ: value of head when the WQE was posted */
	uint8_t *wc_opcode;	/* SQ: enum ibv_wc_opcode of the WQE */
	pthread_spinlock_t lock;
};

/* A send WQE being assembled (legacy post_send and the ibv_wr_* API). */
struct mlx5_wqe_build {
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint8_t *seg;		/* where the next segment goes */
	uint8_t *dgram;		/* UD: the address vector slot to fill */
	uint8_t *xrc;		/* XRC: the SRQ number slot to fill */
	uint8_t *eth;		/* raw packet: the Ethernet segment */
	uint32_t ds;		/* size so far, 16-byte units */
	uint8_t mlx5_opcode;
	uint8_t opmod;		/* bits 31:24 of opmod_idx_opcode */
	uint8_t wc_opcode;
	uint8_t fm_ce_se;
	__be32 imm;
	uint16_t stream_id;	/* DCI: dci_stream_channel_id */
	bool needs_data;	/* an SGE / inline setter completes the WQE */
};

struct mlx5_srq {
	struct ibv_srq ibv_srq;
	enum ibv_srq_type srq_type;
	struct ibv_cq *cq;
	struct mlx5_buf buf;
	__be32 *dbrec;
	uint32_t srqn;
	uint32_t wqe_cnt;
	uint32_t wqe_shift;
	uint32_t max_gs;
	uint32_t srq_limit;
	uint64_t *wrid;
	bool is_xrc;
	uint32_t head;		/* next free WQE (linked through next_wqe_index) */
	uint32_t tail;		/* last free WQE */
	uint32_t counter;	/* WQEs posted, the doorbell record value */
	pthread_spinlock_t lock;
};

/* One domain of a signature mkey as the application configured it. */
struct mlx5_sig_dom {
	enum mlx5_sig_dom_type { MLX5_SIG_NONE, MLX5_SIG_T10DIF, MLX5_SIG_CRC } type;
	struct mlx5dv_sig_t10dif dif;
	struct mlx5dv_sig_crc crc;
	enum mlx5dv_block_size block_size;
};

/*
 * Signature state of a BLOCK_SIGNATURE mkey: its two PSVs, the block
 * configuration (UPDATED by a setter in the UMR being built, SET once
 * posted, RESET by MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR) and the first
 * signature error the CQ reported for it, kept until mlx5dv_mkey_check().
 */
struct mlx5_mkey_sig {
	uint32_t mem_psv, wire_psv;
	enum { MLX5_SIG_ST_NONE, MLX5_SIG_ST_UPDATED, MLX5_SIG_ST_SET,
	       MLX5_SIG_ST_RESET } state;
	struct mlx5_sig_dom mem, wire;
	uint32_t flags;			/* MLX5DV_SIG_BLOCK_ATTR_FLAG_* */
	uint8_t check_mask, copy_mask;
	pthread_mutex_t lock;		/* the error record below */
	bool err_exists;
	uint32_t err_count;
	bool err_count_updated;		/* the next UMR tells the device */
	uint16_t err_syndrome;
	uint8_t err_sig_type, err_domain;
	uint64_t err_expected, err_actual, err_offset;
};

/* Crypto properties of a CRYPTO mkey, as the application last set them. */
struct mlx5_mkey_crypto {
	enum { MLX5_CRYPTO_ST_NONE, MLX5_CRYPTO_ST_UPDATED, MLX5_CRYPTO_ST_SET } state;
	bool encrypt_on_tx;
	enum mlx5dv_signature_crypto_order order;
	enum mlx5dv_block_size data_unit_size;
	uint8_t initial_tweak[16];	/* little-endian, as given */
	uint32_t dek_id;
	uint8_t keytag[8];
};

/* mlx5dv_create_mkey(): an indirect KLM mkey (mkey.c). */
struct mlx5_mkey {
	struct mlx5dv_mkey dv;
	struct mlx5_context *ctx;
	uint32_t num_desc;		/* translation entries (max_entries, x4) */
	uint64_t length;		/* bytes of the last layout posted */
	struct mlx5_mkey_sig *sig;	/* BLOCK_SIGNATURE mkeys */
	struct mlx5_mkey_crypto *crypto; /* CRYPTO mkeys */
};

struct mlx5_qp {
	struct verbs_qp vqp;		/* first: ibv_qp_to_qp_ex() relies on it */
	struct mlx5dv_qp_ex dv_qp;
	struct mlx5_buf buf;
	__be32 *dbrec;			/* [0] receive counter, [1] send counter */
	struct mlx5_wq sq;
	struct mlx5_wq rq;
	uint32_t qpn;
	enum ibv_qp_type qp_type;
	uint32_t max_inline;
	struct ibv_qp_cap cap;		/* what the creator got */
	bool sq_sig_all;
	bool has_srq;
	uint32_t create_flags;
	/* QP-ex builder state (between wr_start and wr_complete). */
	struct mlx5_wqe_build bld;
	int ex_err;
	uint32_t ex_nreq;
	uint32_t ex_rb_post, ex_rb_head;	/* rollback point of the batch */
	/* mlx5dv_wr_mkey_configure in progress: its mkey, UMR control and
	 * mkey context segments, the setters still due and those called. */
	struct mlx5_mkey *mk_cur;
	struct mlx5_wqe_umr_ctrl_seg *mk_uc;
	struct mlx5_wqe_mkey_context_seg *mk_mkc;
	uint8_t mk_setters_left;
	uint8_t mk_seen;
	uint64_t send_ops;		/* IBV_QP_EX_WITH_* accepted at create */
	uint64_t dv_send_ops;		/* MLX5DV_QP_EX_WITH_* accepted at create */
	uint32_t dv_create_flags;	/* MLX5DV_QP_CREATE_* accepted at create */
	uint32_t bf_offset;		/* BlueFlame register in use: 0x800 / 0x900 */
	/* Attributes the PRM context does not carry back. */
	uint8_t port_num;
	uint8_t sq_draining;
	uint32_t rate_limit;
	/* DC (qp_type IBV_QPT_DRIVER): MLX5DV_DCTYPE_DCI / _DCT, 0 otherwise. */
	uint32_t dc_type;
	/* Raw packet QP (raw.c): TIS + SQ + RQ + TIR, one verbs QP. */
	struct {
		uint32_t tisn, sqn, rqn, tirn;
		uint32_t uidx;
		uint8_t sq_state, rq_state;	/* MLX5_SQC/RQC_STATE_* */
		bool cvlan_strip;
		bool rss;	/* an RSS QP: an indirect TIR only */
	} raw;
	/* DCT: what CREATE_DCT gets at RTR (verbs attributes gathered by
	 * RESET->INIT and INIT->RTR); dct_created once it exists. */
	struct {
		uint64_t access_key;
		uint32_t access_flags;
		uint16_t pkey_index;
		uint8_t port;
		uint8_t min_rnr_timer;
		uint8_t mtu;
		struct ibv_ah_attr ah;
		bool created;
	} dct;
};

static inline struct mlx5_device *to_mdev(struct ibv_device *d)
{
	return SMX_CONTAINER_OF(d, struct mlx5_device, vdev.device);
}

static inline struct mlx5_context *to_mctx(struct ibv_context *c)
{
	return SMX_CONTAINER_OF(c, struct mlx5_context, ibv_ctx.context);
}

static inline struct mlx5_pd *to_mpd(struct ibv_pd *pd)
{
	return SMX_CONTAINER_OF(pd, struct mlx5_pd, ibv_pd);
}

static inline struct mlx5_mr *to_mmr(struct ibv_mr *mr)
{
	return SMX_CONTAINER_OF(mr, struct mlx5_mr, ibv_mr);
}

static inline struct mlx5_cq *to_mcq(struct ibv_cq *cq)
{
	return SMX_CONTAINER_OF(cq, struct mlx5_cq, ibv_cq);
}

static inline struct mlx5_qp *to_mqp(struct ibv_qp *qp)
{
	return SMX_CONTAINER_OF(qp, struct mlx5_qp, vqp.qp);
}

static inline struct mlx5_srq *to_msrq(struct ibv_srq *srq)
{
	return SMX_CONTAINER_OF(srq, struct mlx5_srq, ibv_srq);
}

/* mlx5.c: references on a user context (objects that may outlive the
 * verbs context they were made on) */
void mlx5_ucontext_get(struct mlx5_ucontext *u);
void mlx5_ucontext_put(struct mlx5_ucontext *u);

/* crypto.c: crypto caps at context creation; the login of
 * mlx5dv_crypto_login() ends with the context */
void mlx5_crypto_caps_load(struct mlx5_context *ctx);
void mlx5_crypto_context_free(struct mlx5_context *ctx);

/* pp.c: the packet-pacing entry table of a device; freed (entries still
 * held cleared in the device) at the last close */
void mlx5_pp_table_free(struct mlx5_device *mdev);

/* cmd.c: PRM command execution, status -> errno */
int mlx5_cmd_exec(struct mlx5_context *ctx, void *in, size_t inlen, void *out,
		  size_t outlen);
int mlx5_cmd_exec_hca(struct smx_dev *hca, uint16_t uid, void *in, size_t inlen,
		      void *out, size_t outlen);
/* DESTROY_GENERAL_OBJECT of @obj_type @obj_id under the context's uid. */
struct smx_sigerr_cqe;
int mlx5_mkey_sig_error(struct mlx5_device *mdev, const struct smx_sigerr_cqe *c);
/* Signature offload: the general caps' sho and sigerr_domain_and_sig_type. */
bool mlx5_sig_supported(const struct mlx5_context *ctx);
bool mlx5_devx_obj_ident(const struct mlx5dv_devx_obj *obj, uint16_t *creator,
			 uint32_t *id);
int mlx5_genobj_destroy(struct mlx5_context *ctx, uint16_t obj_type,
			uint32_t obj_id);
int mlx5_query_hca_cap(struct smx_dev *hca, uint16_t cap_type, void *cap,
		       size_t len);

/* qp_post.c / cq_poll.c: the data path of the driver */
int mlx5_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int mlx5_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int mlx5_rq_post(struct mlx5_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int mlx5_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad);
void mlx5_qp_ex_init(struct mlx5_qp *qp);
uint64_t mlx5_qp_ex_supported_ops(enum ibv_qp_type t);
void mlx5_srq_free_wqe(struct mlx5_srq *srq, uint32_t idx);
void mlx5_cq_ex_init(struct mlx5_cq *cq);

/* qp.c: receive queue sizing, shared by every QP type that owns an RQ */
int mlx5_rq_size(struct mlx5_context *ctx, struct mlx5_qp *qp,
		 const struct ibv_qp_cap *cap);

/* raw.c: raw packet QPs (IBV_QPT_RAW_PACKET) */
struct ibv_qp *mlx5_raw_qp_create(struct mlx5_context *ctx,
				  struct ibv_qp_init_attr_ex *attr);
int mlx5_raw_qp_modify(struct mlx5_qp *qp, struct ibv_qp_attr *attr, int mask);
int mlx5_raw_qp_query(struct mlx5_qp *qp, struct ibv_qp_attr *attr, int mask,
		      struct ibv_qp_init_attr *init_attr);
int mlx5_raw_qp_destroy(struct mlx5_qp *qp);
/* The PRM objects raw packet QPs are made of, shared with receive WQs
 * (wq.c): DESTROY_* by number, an RQ on @qp's ring, RQ state moves. */
int mlx5_raw_destroy_obj(struct mlx5_context *ctx, uint16_t op, uint32_t num);
uint32_t mlx5_raw_uidx_alloc(struct mlx5_device *mdev);
int mlx5_raw_rq_create(struct mlx5_context *ctx, struct mlx5_qp *qp,
		       struct ibv_pd *pd, struct ibv_cq *cq);
int mlx5_raw_rq_move(struct mlx5_context *ctx, struct mlx5_qp *qp, uint8_t next);
/* wq.c: receive WQs and their indirection tables (RSS) */
struct mlx5_rwq_ind_table {
	struct ibv_rwq_ind_table t;
	uint32_t rqtn;		/* the PRM RQ table */
	uint32_t log_size;
};

static inline struct mlx5_rwq_ind_table *to_mind(struct ibv_rwq_ind_table *t)
{
	return SMX_CONTAINER_OF(t, struct mlx5_rwq_ind_table, t);
}

struct ibv_wq *mlx5_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr);
int mlx5_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr);
int mlx5_destroy_wq(struct ibv_wq *wq);
struct ibv_rwq_ind_table *mlx5_create_rwq_ind_table(struct ibv_context *context,
						    struct ibv_rwq_ind_table_init_attr *attr);
int mlx5_destroy_rwq_ind_table(struct ibv_rwq_ind_table *ind);
/* Raw packet QPs: the ETHERNET_OFFLOADS bits the verbs caps come from. */
bool mlx5_raw_csum(const struct mlx5_context *ctx);
bool mlx5_raw_cvlan(const struct mlx5_context *ctx);

/* flow.c: ibv_create_flow onto the kernel half's NIC receive root */
struct ibv_flow *mlx5_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr);
int mlx5_destroy_flow(struct ibv_flow *flow);
int mlx5_destroy_flow_action(struct ibv_flow_action *action);
void mlx5_steer_free(struct mlx5_device *mdev);

/* eq.c */
int mlx5_comp_eqn(struct mlx5_context *ctx, int vector, uint32_t *eqn);
void mlx5_eq_rearm(struct mlx5_context *ctx);
/* Last close: the EQs and their UAR are destroyed while the instance is
 * open; their rings are freed once it is closed (a CQ left open keeps
 * its EQ in the device, which may write it until then). */
void mlx5_eq_destroy(struct mlx5_device *mdev);
void mlx5_eq_free_rings(struct mlx5_device *mdev);

/* buf.c */
int mlx5_buf_alloc(struct mlx5_buf *buf, size_t len);
/* Through @pd's allocators when @pd is a parent domain that has them. */
int mlx5_buf_alloc_pd(struct mlx5_context *ctx, struct mlx5_buf *buf, size_t len,
		      struct ibv_pd *pd, uint64_t res_type);
void mlx5_buf_free(struct mlx5_buf *buf);
size_t mlx5_buf_npages(const struct mlx5_buf *buf);
void mlx5_buf_fill_pas(const struct mlx5_buf *buf, __be64 *pas);
__be32 *mlx5_dbrec_alloc(void);
void mlx5_dbrec_free(__be32 *db);

/* umr.c: in-place re-registration through the UMR QP; the QP goes at the
 * last close (before the EQs: its CQ is on one) */
int mlx5_umr_rereg(struct mlx5_context *ctx, uint32_t key, const struct mlx5_umr_rereg *r);
void mlx5_umr_free(struct mlx5_device *mdev);

/* handle.c: per-ucontext object handles for ibv_import_* */
int mlx5_handle_add(struct mlx5_ucontext *u, const struct mlx5_handle *h,
		    uint32_t *handle);
int mlx5_handle_get(struct mlx5_ucontext *u, uint32_t handle,
		    enum mlx5_handle_type type, struct mlx5_handle *out);
void mlx5_handle_del(struct mlx5_ucontext *u, uint32_t handle);

/* per-object ops (one file each) */
int mlx5_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int mlx5_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
int mlx5_query_gid_ex(struct ibv_context *context, uint32_t port,
		      uint32_t index, struct ibv_gid_entry *entry);
int mlx5_query_pkey(struct ibv_context *context, uint8_t port, int index,
		    __be16 *pkey);
int mlx5_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values);
int mlx5_context_caps_load(struct mlx5_context *ctx);
int mlx5_context_internal_pd(struct mlx5_context *ctx, uint32_t *pdn);

struct ibv_pd *mlx5_alloc_pd(struct ibv_context *context);
int mlx5_dealloc_pd(struct ibv_pd *pd);
struct ibv_pd *mlx5_import_pd(struct ibv_context *context, uint32_t handle);
void mlx5_unimport_pd(struct ibv_pd *pd);
struct ibv_pd *mlx5_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr);
struct ibv_td *mlx5_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *attr);
int mlx5_dealloc_td(struct ibv_td *td);

int mlx5_mr_check_access(int access);
int mlx5_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		   struct ibv_sge *sg_list, uint32_t num_sge);
void mlx5_mkc_set_access(void *mkc, int access);
int mlx5_mkey_destroy(struct mlx5_context *ctx, uint32_t mkey);
struct ibv_mr *mlx5_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int mlx5_dereg_mr(struct ibv_mr *mr);
int mlx5_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		  size_t length, int access);
struct ibv_mr *mlx5_import_mr(struct ibv_pd *pd, uint32_t handle);
void mlx5_unimport_mr(struct ibv_mr *mr);

struct ibv_dm *mlx5_alloc_dm(struct ibv_context *context,
			     struct ibv_alloc_dm_attr *attr);
int mlx5_free_dm(struct ibv_dm *dm);
struct ibv_dm *mlx5_import_dm(struct ibv_context *context, uint32_t handle);
void mlx5_unimport_dm(struct ibv_dm *dm);
struct ibv_mr *mlx5_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
			      uint64_t dm_offset, size_t length, unsigned int access);

int mlx5_av_fill(struct mlx5_context *ctx, const struct ibv_ah_attr *attr,
		 struct mlx5_wqe_av *av);
struct ibv_mw *mlx5_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int mlx5_dealloc_mw(struct ibv_mw *mw);
int mlx5_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind);
struct ibv_ah *mlx5_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int mlx5_destroy_ah(struct ibv_ah *ah);

struct ibv_cq *mlx5_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *mlx5_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
int mlx5_destroy_cq(struct ibv_cq *cq);
int mlx5_cq_poll(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int mlx5_cq_arm(struct ibv_cq *cq, int solicited);
void mlx5_cq_event(struct ibv_cq *cq);
void mlx5_cq_clean(struct mlx5_cq *cq, uint32_t qpn, struct mlx5_srq *srq);
/* The same for a raw packet QP, whose CQEs name it by user index. */
void mlx5_cq_clean_uidx(struct mlx5_cq *cq, uint32_t uidx);
int mlx5_resize_cq(struct ibv_cq *cq, int cqe);

struct ibv_srq *mlx5_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
struct ibv_srq *mlx5_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int mlx5_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
int mlx5_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int mlx5_destroy_srq(struct ibv_srq *srq);
int mlx5_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_xrcd *mlx5_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr);
int mlx5_close_xrcd(struct ibv_xrcd *xrcd);
/* Last close: domains bound to files were the closed instance's. */
void mlx5_xrcd_forget(void);
uint32_t mlx5_xrcdn(struct ibv_xrcd *xrcd);

struct ibv_qp *mlx5_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *mlx5_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int mlx5_pd_opaque_mr(struct ibv_pd *pd);
void mlx5_pd_opaque_free(struct mlx5_pd *pd);
int mlx5_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int mlx5_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		  struct ibv_qp_init_attr *init_attr);
int mlx5_destroy_qp(struct ibv_qp *qp);
int mlx5_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
				uint32_t flags);

#endif
