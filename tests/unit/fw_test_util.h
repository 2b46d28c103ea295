/* SPDX-License-Identifier: MIT */
/* Mailbox builders shared by the firmware unit tests. */
#ifndef SMX_FW_TEST_UTIL_H
#define SMX_FW_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "prm/prm.h"
#include "smx_test.h"

#define MB(typ) uint32_t typ[DEVX_ST_SZ_DW(typ)]

/* A device with the built-in defaults, whatever the user's environment. */
static inline struct smx_dev *t_open(void)
{
	unsetenv("SOFTMLX5_CONFIG");
	setenv("XDG_CONFIG_HOME", "/nonexistent-softmlx5-test", 1);
	setenv("HOME", "/nonexistent-softmlx5-test", 1);
	return smx_dev_open();
}

/* Runs a command; returns the status byte (or 0x100 + errno on -EINVAL). */
static inline unsigned int t_cmd(struct smx_dev *d, const void *in,
				 size_t inlen, void *out, size_t outlen)
{
	int r = smx_dev_cmd(d, in, inlen, out, outlen);

	if (r)
		return 0x100 + (unsigned int)-r;
	return DEVX_GET(mbox_out, out, status);
}

static inline uint32_t t_syndrome(const void *out)
{
	return DEVX_GET(mbox_out, out, syndrome);
}

/* Page-aligned zeroed memory, freed at exit (after the device is closed). */
static void *t_pages_list[4096];
static unsigned int t_pages_n;

static inline void t_pages_free(void)
{
	while (t_pages_n)
		free(t_pages_list[--t_pages_n]);
}

static inline void *t_pages(size_t bytes)
{
	void *p = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);

	memset(p, 0, (bytes + 4095) & ~(size_t)4095);
	if (!t_pages_n)
		atexit(t_pages_free);
	if (t_pages_n < sizeof(t_pages_list) / sizeof(t_pages_list[0]))
		t_pages_list[t_pages_n++] = p;
	return p;
}

static inline void t_put_pas(void *in, size_t off, void *buf, size_t bytes)
{
	size_t i;

	for (i = 0; i * 4096 < bytes; i++) {
		uint64_t v = htobe64((uint64_t)(uintptr_t)buf + i * 4096);

		memcpy((uint8_t *)in + off + i * 8, &v, 8);
	}
}

/* Handle-returning helpers: status in *st, handle as the result. */
static inline uint32_t t_alloc(struct smx_dev *d, uint16_t op, uint16_t uid,
			       unsigned int *st)
{
	MB(mbox_in) = { 0 };
	uint32_t out[DEVX_ST_SZ_DW(obj_handle_out)] = { 0 };

	DEVX_SET(mbox_in, mbox_in, opcode, op);
	DEVX_SET(mbox_in, mbox_in, uid, uid);
	*st = t_cmd(d, mbox_in, sizeof(mbox_in), out, sizeof(out));
	return DEVX_GET(obj_handle_out, out, handle);
}

static inline unsigned int t_dealloc(struct smx_dev *d, uint16_t op,
				     uint16_t uid, uint32_t handle)
{
	MB(obj_handle_in) = { 0 };
	MB(mbox_out) = { 0 };

	DEVX_SET(obj_handle_in, obj_handle_in, opcode, op);
	DEVX_SET(obj_handle_in, obj_handle_in, uid, uid);
	DEVX_SET(obj_handle_in, obj_handle_in, handle, handle);
	return t_cmd(d, obj_handle_in, sizeof(obj_handle_in), mbox_out,
		     sizeof(mbox_out));
}

static inline uint16_t t_uctx(struct smx_dev *d)
{
	MB(create_uctx_in) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };

	DEVX_SET(create_uctx_in, create_uctx_in, opcode, MLX5_CMD_OP_CREATE_UCTX);
	if (t_cmd(d, create_uctx_in, sizeof(create_uctx_in),
		  general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr)))
		return 0;
	return DEVX_GET(general_obj_out_cmd_hdr, general_obj_out_cmd_hdr, obj_id);
}

/* A CQ with cqc.cqe_sz @cqe_sz (0 = 64 B, 1 = 128 B, 2 = 128 B padded). */
static inline uint32_t t_cq_sz(struct smx_dev *d, uint16_t uid,
			       uint32_t log_sz, uint32_t eqn, uint32_t uar,
			       uint32_t cqe_sz, unsigned int *st)
{
	size_t bytes = log_sz > 20 ? 4096 :
		       (size_t)(cqe_sz ? 128 : 64) << log_sz;
	size_t inlen = DEVX_ST_SZ_BYTES(create_cq_in) + 8 * ((bytes + 4095) / 4096);
	uint8_t *in = calloc(1, inlen);
	MB(create_cq_out) = { 0 };
	void *cqc = DEVX_ADDR_OF(create_cq_in, in, cq_context);
	void *buf = t_pages(bytes), *db = t_pages(64);
	uint32_t cqn;

	DEVX_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(create_cq_in, in, uid, uid);
	DEVX_SET(cqc, cqc, log_cq_size, log_sz);
	DEVX_SET(cqc, cqc, cqe_sz, cqe_sz);
	DEVX_SET(cqc, cqc, c_eqn, eqn);
	DEVX_SET(cqc, cqc, uar_page, uar);
	DEVX_SET64(cqc, cqc, dbr_addr, (uint64_t)(uintptr_t)db);
	t_put_pas(in, DEVX_BYTE_OFF(create_cq_in, pas), buf, bytes);
	*st = t_cmd(d, in, inlen, create_cq_out, sizeof(create_cq_out));
	cqn = DEVX_GET(create_cq_out, create_cq_out, cqn);
	free(in);
	return cqn;
}

static inline uint32_t t_cq(struct smx_dev *d, uint16_t uid, uint32_t log_sz,
			    uint32_t eqn, uint32_t uar, unsigned int *st)
{
	return t_cq_sz(d, uid, log_sz, eqn, uar, 0, st);
}

struct t_qp_attr {
	uint16_t uid;
	uint32_t st, pd, scq, rcq, uar, srqn, xrcd;
	uint32_t log_sq, log_rq, rq_type;
	int no_sq;
};

static inline uint32_t t_qp(struct smx_dev *d, const struct t_qp_attr *a,
			    unsigned int *st)
{
	size_t rq = a->rq_type == 0 ? ((size_t)1 << a->log_rq) * 64 : 0;
	size_t sq = a->no_sq ? 0 : ((size_t)1 << a->log_sq) * 64;
	size_t npas = (rq + sq + 4095) / 4096;
	size_t inlen = DEVX_ST_SZ_BYTES(create_qp_in) + 8 * npas;
	uint8_t *in = calloc(1, inlen);
	MB(create_qp_out) = { 0 };
	void *qpc = DEVX_ADDR_OF(create_qp_in, in, qpc);
	void *buf = t_pages(rq + sq + 1), *db = t_pages(64);
	uint32_t qpn;

	DEVX_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	DEVX_SET(create_qp_in, in, uid, a->uid);
	DEVX_SET(qpc, qpc, st, a->st);
	DEVX_SET(qpc, qpc, pd, a->pd);
	DEVX_SET(qpc, qpc, cqn_snd, a->scq);
	DEVX_SET(qpc, qpc, cqn_rcv, a->rcq);
	DEVX_SET(qpc, qpc, uar_page, a->uar);
	DEVX_SET(qpc, qpc, log_sq_size, a->log_sq);
	DEVX_SET(qpc, qpc, no_sq, a->no_sq);
	DEVX_SET(qpc, qpc, rq_type, a->rq_type);
	DEVX_SET(qpc, qpc, srqn_rmpn_xrqn, a->srqn);
	DEVX_SET(qpc, qpc, xrcd, a->xrcd);
	if (a->rq_type == 0) {
		DEVX_SET(qpc, qpc, log_rq_size, a->log_rq);
		DEVX_SET(qpc, qpc, log_rq_stride, 2);	/* 64-byte RQ WQEs */
	}
	DEVX_SET64(qpc, qpc, dbr_addr, (uint64_t)(uintptr_t)db);
	t_put_pas(in, DEVX_BYTE_OFF(create_qp_in, pas), buf, rq + sq);
	*st = t_cmd(d, in, inlen, create_qp_out, sizeof(create_qp_out));
	qpn = DEVX_GET(create_qp_out, create_qp_out, qpn);
	free(in);
	return qpn;
}

#endif
