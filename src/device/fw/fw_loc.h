/* SPDX-License-Identifier: MIT */
/*
 * Private to src/device/fw: the firmware instance, object tables, the command
 * context handed to every handler and the helpers handlers share.
 * Cross-file prototypes are grouped by the file that defines them.
 */
#ifndef SMX_DEVICE_FW_FW_LOC_H
#define SMX_DEVICE_FW_FW_LOC_H

#include <stdarg.h>

#include "device/fw/fw.h"
#include "device/netdev.h"
#include "util/mutex.h"

/* A handle namespace: ids in [min, min + limit), slots grown on demand. */
struct fw_table {
	const char *name;
	uint32_t min;
	uint32_t limit;		/* how many ids may exist */
	uint32_t next;		/* next id to try (round robin, like firmware) */
	uint32_t count;
	uint32_t cap;		/* slots allocated */
	void **slot;
};

struct fw_memic_blk {
	uint64_t off, size;
	struct fw_memic_blk *next;
};

/* Packet-pacing rate table size (qos_cap.packet_pacing_rate_table_size). */
#define FW_RL_TABLE_SIZE 128
#define FW_RL_MIN_KBPS 1
#define FW_RL_MAX_KBPS 400000000u	/* 400 Gb/s */
/* Scheduling elements: largest DWRR weight (qos_cap.max_tsar_bw_share). */
#define FW_SCHED_MAX_BW_SHARE 100

/* Modify header contexts: how many (log), actions in one (caps
 * log_max_modify_header_context, max_modify_header_actions). */
#define FW_MH_LOG_MAX 16
#define FW_MH_MAX_ACTIONS 32

/* Packet reformat contexts: how many (log), the longest header one holds
 * (caps log_max_packet_reformat_context, max_encap_header_size). */
#define FW_PR_LOG_MAX 16
#define FW_PR_MAX_HDR 128

/* DEKs a device holds at most (crypto_caps.log_max_num_deks). */
#define FW_CRYPTO_LOG_MAX_DEKS 16

/* Crypto engine state (fw_crypto.c). */
struct fw_crypto {
	uint16_t failed_selftests;	/* from fw_crypto_selftest() at start */
	uint32_t ndeks;
	struct fw_crypto_login *logins;	/* live login objects, one per uid */
};

/* Every general object starts with its handle and its obj_type (so a
 * pointer to one is a pointer to its fw_genobj). */
struct fw_genobj {
	struct fw_obj obj;
	uint16_t type;
};

/*
 * The port's interface (key netdev; fw_vport.c): read at start and again
 * when a netlink socket subscribed to link and address changes has news,
 * looked at before every command.
 */
struct fw_port {
	struct smx_netdev *nd;	/* as last read; NULL: the port is not bound */
	bool present;		/* the last read found the interface */
	bool stale;		/* read again before the next command */
	int nl;			/* -1: no socket (read before every command) */
	int pid;		/* the socket's owner: a fork child reads anew */
};

struct fw {
	struct smx_mutex lock;	/* util/mutex.h: taken per doorbell */
	struct smx_config cfg;
	struct fw_port port;

	struct fw_table pd, uar, td, xrcd, uctx, umem, eq, cq, srq, qp, mkey;
	struct fw_table psv;	/* signature PSVs (fw_psv.c) */
	struct fw_table genobj;	/* general objects (fw_genobj.c), one id space */
	/* Ethernet (fw_tis.c, fw_sq.c, fw_rq.c, fw_tir.c, fw_flow.c, fw_fc.c) */
	struct fw_table tis, sq, rq, rqt, tir, ft, fg, fc;
	struct fw_table mh;	/* modify header contexts (fw_modhdr.c) */
	struct fw_table pr;	/* packet reformat contexts (fw_reformat.c) */
	struct fw_ft *nic_rx_root;	/* SET_FLOW_TABLE_ROOT, per table type */
	struct fw_ft *nic_tx_root;
	struct fw_eth_stats eth;
	struct fw_crypto crypto;

	uint8_t *memic;
	uint64_t memic_size;
	uint64_t memic_bar_off;
	struct fw_memic_blk *memic_used;
	/* packet-pacing rate table; entry 0 is "no limit" and never set */
	struct fw_rl_entry {
		uint32_t rate_kbps, burst, typical_size;
	} rl[FW_RL_TABLE_SIZE + 1];
	uint32_t nr_uars;
	uint8_t *uar_pages;	/* set by device.c through fw_set_uar_pages */
	struct fw_hooks hooks;	/* the data-path engine's (fw_set_hooks) */
	void *hooks_arg;
};

/* Command context. in/out are aligned private copies of the mailboxes. */
struct fw_cmd {
	struct fw *fw;
	const struct fw_cmd_desc *desc;
	const void *in;
	size_t inlen;
	void *out;
	size_t outlen;
	uint16_t opcode, op_mod, uid;
	uint8_t status;
	uint32_t syndrome;
	char why[200];
};

typedef int (*fw_handler)(struct fw_cmd *c);

struct fw_cmd_desc {
	uint16_t opcode;
	const char *name;
	uint32_t min_inlen;	/* bytes */
	uint32_t min_outlen;	/* bytes */
	fw_handler handler;
};

/*
 * Fails the command: status + a syndrome naming the check site
 * (opcode << 16 | source line), and a one-line reason that the dispatcher
 * logs under SOFTMLX5_DEBUG. Returns -1 so handlers can `return FW_FAIL(...)`.
 */
int fw_fail(struct fw_cmd *c, uint8_t status, unsigned int site,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define FW_FAIL(c, st, fmt, ...)                                               \
	fw_fail(c, MLX5_CMD_STAT_##st, __LINE__, fmt, ##__VA_ARGS__)

#define IN_GET(typ, fld) DEVX_GET(typ, c->in, fld)
#define IN_GET64(typ, fld) DEVX_GET64(typ, c->in, fld)
#define IN_ADDR(typ, fld) ((const uint8_t *)DEVX_ADDR_OF(typ, c->in, fld))
#define OUT_SET(typ, fld, v) DEVX_SET(typ, c->out, fld, v)
#define OUT_SET64(typ, fld, v) DEVX_SET64(typ, c->out, fld, v)
#define OUT_ADDR(typ, fld) ((uint8_t *)DEVX_ADDR_OF(typ, c->out, fld))

/* fw.c: tables */
int fw_table_init(struct fw_table *t, const char *name, uint32_t min,
		  uint32_t limit);
void fw_table_fini(struct fw_table *t);
/* Inserts @obj under a fresh id (also stored in obj->id); -1 when full. */
int fw_table_add(struct fw_table *t, struct fw_obj *obj);
int fw_table_add_at(struct fw_table *t, struct fw_obj *obj, uint32_t id);
void *fw_table_get(const struct fw_table *t, uint32_t id);
void fw_table_del(struct fw_table *t, uint32_t id);

/* fw.c: ownership */
/* Records the command's uid on a new object and charges its user context. */
int fw_obj_own(struct fw_cmd *c, struct fw_obj *obj, const char *what);
void fw_obj_disown(struct fw *fw, struct fw_obj *obj);
/* May the command's uid act on / reference @obj? */
bool fw_uid_ok(const struct fw_cmd *c, const struct fw_obj *obj);
/*
 * Looks a handle up in @t; fails the command if it does not exist (BAD_RES)
 * or the command's uid may not use it (BAD_PARAM). FW_GET is for commands
 * that act on the object (query, modify, destroy): a non-zero uid must own
 * it. FW_REF is for objects a new object references: a user context may also
 * reference objects of uid 0 (the privileged function's shared resources).
 */
void *fw_get(struct fw_cmd *c, struct fw_table *t, uint32_t id,
	     const char *what, bool ref);
#define FW_GET(c, table, id, what) fw_get(c, &(c)->fw->table, id, what, false)
#define FW_REF(c, table, id, what) fw_get(c, &(c)->fw->table, id, what, true)

/* fw.c: buffers */
/*
 * Resolves a queue buffer of @size bytes given by PAS entries at input byte
 * @pas_off (page = 4 KiB << @log_pg_sz_4k, object starting @page_off bytes
 * into the first page) or, if @umem_valid, by umem @umem_id at @umem_off.
 */
int fw_buf_from_pas(struct fw_cmd *c, struct fw_buf *b, const char *what,
		    size_t pas_off, uint32_t log_pg_sz_4k, uint64_t page_off,
		    uint64_t size);
int fw_buf_from_umem(struct fw_cmd *c, struct fw_buf *b, const char *what,
		     uint32_t umem_id, uint64_t umem_off, uint64_t size);
void fw_buf_release(struct fw_buf *b);
/* Resolves an 8-byte doorbell record at @addr (or umem offset). */
volatile uint32_t *fw_dbr_resolve(struct fw_cmd *c, const char *what,
				  bool umem_valid, uint32_t umem_id,
				  uint64_t addr, struct fw_umem **umem_out);
/* Every address readable (1 byte each); whole pages mapped. */
bool fw_mem_readable(const uint64_t *addrs, uint32_t n);
bool fw_mem_pages_mapped(const uint64_t *pages, uint32_t n, uint32_t shift);
/* Write the buffer's PAS back into an output mailbox at @pas_off. */
void fw_buf_put_pas(struct fw_cmd *c, const struct fw_buf *b, size_t pas_off);

/* fw.c: engine hooks (no-ops while none are set) */
void fw_hook_eng_free(struct fw *fw, void **eng);

void fw_ref(struct fw_obj *o);
void fw_unref(struct fw_obj *o);

/* fw_caps.c */
int fw_caps_query_hca_cap(struct fw_cmd *c);
int fw_caps_query_adapter(struct fw_cmd *c);
int fw_caps_nop(struct fw_cmd *c);

/* fw_vport.c */
int fw_vport_query_hca_vport_context(struct fw_cmd *c);
int fw_vport_query_hca_vport_gid(struct fw_cmd *c);
int fw_vport_query_hca_vport_pkey(struct fw_cmd *c);
int fw_vport_query_nic_vport_context(struct fw_cmd *c);
int fw_vport_query_roce_address(struct fw_cmd *c);
int fw_vport_query_vport_state(struct fw_cmd *c);

/* fw_pd.c: PD, UAR, transport domain, user context, umem */
int fw_pd_alloc(struct fw_cmd *c);
int fw_pd_dealloc(struct fw_cmd *c);
int fw_uar_alloc(struct fw_cmd *c);
int fw_uar_dealloc(struct fw_cmd *c);
int fw_td_alloc(struct fw_cmd *c);
int fw_td_dealloc(struct fw_cmd *c);
int fw_uctx_create(struct fw_cmd *c);
int fw_uctx_destroy(struct fw_cmd *c);
int fw_umem_create(struct fw_cmd *c);
int fw_umem_destroy(struct fw_cmd *c);

/* fw_psv.c */
int fw_psv_create(struct fw_cmd *c);
int fw_psv_destroy(struct fw_cmd *c);

/* fw_xrcd.c */
int fw_xrcd_alloc(struct fw_cmd *c);
int fw_xrcd_dealloc(struct fw_cmd *c);

/* fw_memic.c */
int fw_memic_alloc(struct fw_cmd *c);
int fw_memic_dealloc(struct fw_cmd *c);
int fw_rl_set(struct fw_cmd *c);
int fw_genobj_create(struct fw_cmd *c);
int fw_genobj_modify(struct fw_cmd *c);
int fw_genobj_query(struct fw_cmd *c);
int fw_genobj_destroy(struct fw_cmd *c);
/* Is @id a queue-group scheduling element the command's uid may use? */
bool fw_sched_queue_group_ok(struct fw_cmd *c, uint32_t id);
void fw_memic_fini(struct fw *fw);
/* Host address of device-memory BAR address @addr, NULL unless @len fits. */
uint8_t *fw_memic_host(struct fw *fw, uint64_t addr, uint64_t len);

/* fw_crypto.c: general objects CRYPTO_LOGIN and DEK (fw_genobj.c table) */
int fw_crypto_login_create(struct fw_cmd *c, struct fw_genobj **o);
int fw_crypto_login_modify(struct fw_cmd *c, struct fw_genobj *o);
int fw_crypto_login_query(struct fw_cmd *c, struct fw_genobj *o);
int fw_crypto_login_destroy(struct fw_cmd *c, struct fw_genobj *o);
int fw_dek_create(struct fw_cmd *c, struct fw_genobj **o);
int fw_dek_modify(struct fw_cmd *c, struct fw_genobj *o);
int fw_dek_query(struct fw_cmd *c, struct fw_genobj *o);
int fw_dek_destroy(struct fw_cmd *c, struct fw_genobj *o);

/* fw_eq.c */
int fw_eq_create(struct fw_cmd *c);
int fw_eq_destroy(struct fw_cmd *c);
int fw_eq_query(struct fw_cmd *c);
int fw_eq_create_internal(struct fw *fw, uint32_t n);
void fw_eq_free(struct fw_eq *eq);

/* fw_cq.c */
int fw_cq_create(struct fw_cmd *c);
int fw_cq_destroy(struct fw_cmd *c);
int fw_cq_query(struct fw_cmd *c);
int fw_cq_modify(struct fw_cmd *c);
void fw_cq_free(struct fw_cq *cq);

/* fw_srq.c */
int fw_srq_create(struct fw_cmd *c);
int fw_srq_destroy(struct fw_cmd *c);
int fw_srq_query(struct fw_cmd *c);
int fw_srq_arm(struct fw_cmd *c);
int fw_xrc_srq_create(struct fw_cmd *c);
int fw_xrc_srq_destroy(struct fw_cmd *c);
int fw_xrc_srq_query(struct fw_cmd *c);
int fw_xrc_srq_arm(struct fw_cmd *c);
void fw_srq_free(struct fw_srq *srq);
/* Shared with fw_rmp.c: number table, kind checks, sizes, lwm. */
int fw_srq_insert(struct fw_cmd *c, struct fw_srq *srq);
void fw_srq_abort(struct fw_srq *srq);
struct fw_srq *fw_srq_get(struct fw_cmd *c, uint32_t n, enum fw_srq_kind kind);
int fw_srq_remove(struct fw_cmd *c, uint32_t n, enum fw_srq_kind kind);
int fw_srq_check_size(struct fw_cmd *c, const char *what, uint32_t log_size,
		      uint32_t stride);
int fw_srq_arm_lwm(struct fw_cmd *c, struct fw_srq *srq, uint32_t lwm);

/* fw_rmp.c */
int fw_rmp_create(struct fw_cmd *c);
int fw_rmp_modify(struct fw_cmd *c);
int fw_rmp_destroy(struct fw_cmd *c);
int fw_rmp_query(struct fw_cmd *c);

/* fw_qp.c */
int fw_qp_create(struct fw_cmd *c);
int fw_qp_destroy(struct fw_cmd *c);
int fw_qp_query(struct fw_cmd *c);
int fw_qp_rst2init(struct fw_cmd *c);
int fw_qp_init2init(struct fw_cmd *c);
int fw_qp_init2rtr(struct fw_cmd *c);
int fw_qp_rtr2rts(struct fw_cmd *c);
int fw_qp_rts2rts(struct fw_cmd *c);
int fw_qp_sqerr2rts(struct fw_cmd *c);
int fw_qp_sqd2rts(struct fw_cmd *c);
int fw_qp_rts2sqd(struct fw_cmd *c);
int fw_qp_sqd2sqd(struct fw_cmd *c);
int fw_qp_2err(struct fw_cmd *c);
int fw_qp_2rst(struct fw_cmd *c);
int fw_dct_create(struct fw_cmd *c);
int fw_dct_destroy(struct fw_cmd *c);
int fw_dct_query(struct fw_cmd *c);
int fw_dct_drain(struct fw_cmd *c);
int fw_dct_arm(struct fw_cmd *c);
void fw_qp_free(struct fw_qp *qp);

/* fw_mkey.c */
int fw_mkey_create(struct fw_cmd *c);
int fw_mkey_destroy(struct fw_cmd *c);
int fw_mkey_query(struct fw_cmd *c);
void fw_mkey_free(struct fw_mkey *mk);

/* fw_wq.c: the wq context an SQ or RQ embeds */
struct fw_wq_res {
	struct fw_pd *pd;
	struct fw_buf buf;
	volatile uint32_t *dbrec;
	struct fw_umem *dbr_umem;
	uint32_t log_sz, stride;
};
/* Validates the wq at input byte @wq_off (cyclic, stride in
 * [@min_stride, @max_stride], size within log_max_wq_sz) and resolves its
 * PD, buffer (PAS after it, or umem) and doorbell record; on failure
 * nothing is held. */
int fw_wq_attach(struct fw_cmd *c, const char *what, size_t wq_off,
		 uint32_t min_stride, uint32_t max_stride, struct fw_wq_res *r);
void fw_wq_detach(struct fw_wq_res *r);
/* Answers a wq back into an output context (PAS not included). */
void fw_wq_put(uint8_t *wq, const struct fw_pd *pd, const struct fw_buf *b,
	       uint32_t log_sz);

/* fw_tis.c */
int fw_tis_create(struct fw_cmd *c);
int fw_tis_modify(struct fw_cmd *c);
int fw_tis_query(struct fw_cmd *c);
int fw_tis_destroy(struct fw_cmd *c);

/* fw_sq.c */
int fw_sq_create(struct fw_cmd *c);
int fw_sq_modify(struct fw_cmd *c);
int fw_sq_query(struct fw_cmd *c);
int fw_sq_destroy(struct fw_cmd *c);
void fw_sq_free(struct fw_sq *sq);

/* fw_rq.c */
int fw_rq_create(struct fw_cmd *c);
int fw_rq_modify(struct fw_cmd *c);
int fw_rq_query(struct fw_cmd *c);
int fw_rq_destroy(struct fw_cmd *c);
void fw_rq_free(struct fw_rq *rq);

/* fw_rqt.c: RQ tables (RSS); 2^FW_LOG_MAX_RQT_SIZE RQs at most */
#define FW_LOG_MAX_RQT_SIZE 11
int fw_rqt_create(struct fw_cmd *c);
int fw_rqt_modify(struct fw_cmd *c);
int fw_rqt_query(struct fw_cmd *c);
int fw_rqt_destroy(struct fw_cmd *c);
void fw_rqt_free(struct fw_rqt *t);

/* fw_tir.c */
int fw_tir_create(struct fw_cmd *c);
int fw_tir_query(struct fw_cmd *c);
int fw_tir_destroy(struct fw_cmd *c);

/* fw_flow.c */
int fw_ft_create(struct fw_cmd *c);
int fw_ft_destroy(struct fw_cmd *c);
int fw_ft_query(struct fw_cmd *c);
int fw_ft_set_root(struct fw_cmd *c);
int fw_fg_create(struct fw_cmd *c);
int fw_fg_destroy(struct fw_cmd *c);
int fw_fte_set(struct fw_cmd *c);
int fw_fte_delete(struct fw_cmd *c);
void fw_ft_free(struct fw_ft *ft);

/* fw_modhdr.c */
int fw_mh_alloc(struct fw_cmd *c);
int fw_mh_dealloc(struct fw_cmd *c);
/* Runs @mh's actions on the Ethernet frame @f of @len bytes. */
void fw_mh_apply(const struct fw_mh *mh, uint8_t *f, uint32_t len);

/* fw_reformat.c */
int fw_pr_alloc(struct fw_cmd *c);
int fw_pr_dealloc(struct fw_cmd *c);
/* Puts @pr's header in front of the @len-byte frame @f (a buffer of @cap
 * bytes) and fixes its lengths and checksum; false if it does not fit. */
bool fw_pr_encap(const struct fw_pr *pr, uint8_t *f, uint32_t *len, uint32_t cap);

/* fw_fc.c */
int fw_fc_alloc(struct fw_cmd *c);
int fw_fc_dealloc(struct fw_cmd *c);
int fw_fc_query(struct fw_cmd *c);

/* fw_vport.c: the port. fw_port_init() at start (-ENOMEM), fw_port_fini()
 * at the end; fw_port_sync() before every command (the lock held) brings a
 * port bound to an interface up to date. */
int fw_port_init(struct fw *fw);
void fw_port_fini(struct fw *fw);
void fw_port_sync(struct fw *fw);
/* GID table entry @index and its MLX5_ROCE_VERSION_* (*version may be
 * NULL); false for an empty slot (zeroes). fw_gid() is this without the
 * version. */
bool fw_gid_entry(const struct fw *fw, uint32_t index, uint8_t gid[16],
		  uint8_t *version);

#endif
