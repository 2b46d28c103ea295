/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: queue helpers for DPA code -- doorbells through the outbox,
 * doorbell-record updates, CQE/EQE field readers and send-WQE segment
 * builders. All inline; doorbells end in smx_dpa_outbox_write().
 *
 * 24.01 signatures take the thread context first and return a status;
 * FLEXIO_DEV_VER_USED >= 24.10 drops the context and returns void.
 */
#ifndef _FLEXIO_DEV_QUEUE_ACCESS_H_
#define _FLEXIO_DEV_QUEUE_ACCESS_H_

#include <stdint.h>

#include <libflexio-dev/flexio_dev.h>
#include <libflexio-dev/flexio_dev_dpa_arch.h>
#include <libflexio-dev/flexio_dev_endianity.h>
#include <libflexio-dev/flexio_dev_queue_types.h>

/* Send opcodes (ctrl segment bits 7:0). */
enum {
	MLX5_CTRL_SEG_OPCODE_NOP = 0x0,
	MLX5_CTRL_SEG_OPCODE_SND_INV = 0x1,
	MLX5_CTRL_SEG_OPCODE_RDMA_WRITE = 0x8,
	MLX5_CTRL_SEG_OPCODE_RDMA_WRITE_WITH_IMMEDIATE = 0x9,
	MLX5_CTRL_SEG_OPCODE_SEND = 0xa,
	MLX5_CTRL_SEG_OPCODE_SEND_WITH_IMMEDIATE = 0xb,
	MLX5_CTRL_SEG_OPCODE_LSO = 0xe,
	MLX5_CTRL_SEG_OPCODE_WAIT = 0xf,
	MLX5_CTRL_SEG_OPCODE_RDMA_READ = 0x10,
	MLX5_CTRL_SEG_OPCODE_ATOMIC_COMPARE_AND_SWAP = 0x11,
	MLX5_CTRL_SEG_OPCODE_ATOMIC_FETCH_AND_ADD = 0x12,
	MLX5_CTRL_SEG_OPCODE_ATOMIC_MASKED_COMPARE_AND_SWAP = 0x14,
	MLX5_CTRL_SEG_OPCODE_ATOMIC_MASKED_FETCH_AND_ADD = 0x15,
	MLX5_CTRL_SEG_OPCODE_RECEIVE_EN = 0x16,
	MLX5_CTRL_SEG_OPCODE_SEND_EN = 0x17,
	MLX5_CTRL_SEG_OPCODE_SET_PSV = 0x20,
	MLX5_CTRL_SEG_OPCODE_DUMP = 0x23,
	MLX5_CTRL_SEG_OPCODE_UMR = 0x25,
	MLX5_CTRL_SEG_OPCODE_LOCAL_MMO = 0x32,
};

/* Kinds of send WQE the ctrl-segment builder knows (opcode, size, opmod). */
enum flexio_ctrl_seg {
	FLEXIO_CTRL_SEG_SEND_EN = 0,
	FLEXIO_CTRL_SEG_SEND_RC = 1,
	FLEXIO_CTRL_SEG_SEND_UC = 1,
	FLEXIO_CTRL_SEG_SEND_UD = 2,
	FLEXIO_CTRL_SEG_LDMA = 3,
	FLEXIO_CTRL_SEG_RDMA_WRITE = 4,
	FLEXIO_CTRL_SEG_RDMA_READ = 5,
	FLEXIO_CTRL_SEG_LSO = 6,
	FLEXIO_CTRL_SEG_NOP = 7,
	FLEXIO_CTRL_SEG_RDMA_WRITE_IMM = 8,
	FLEXIO_CTRL_SEG_TRANSPOSE = 9,
	FLEXIO_CTRL_SEG_WAIT_ON_DATA = 10,
	FLEXIO_CTRL_SEG_ATOMIC_COMPARE_AND_SWAP = 11,
	FLEXIO_CTRL_SEG_ATOMIC_FETCH_AND_ADD = 12,
};

/* Ethernet segment checksum / software-parser flags (cs_swp_flags). */
enum {
	FLEXIO_ETH_SEG_L4CS = 0x8000,
	FLEXIO_ETH_SEG_L3CS = 0x4000,
	FLEXIO_ETH_SEG_L4CS_INNER = 0x2000,
	FLEXIO_ETH_SEG_L3CS_INNER = 0x1000,
	FLEXIO_ETH_SEG_TRAILER_ALIGN = 0x0200,
	FLEXIO_ETH_SEG_SWP_OUTER_L4_TYPE = 0x0040,
	FLEXIO_ETH_SEG_SWP_OUTER_L3_TYPE = 0x0020,
	FLEXIO_ETH_SEG_SWP_INNER_L4_TYPE = 0x0002,
	FLEXIO_ETH_SEG_SWP_INNER_L3_TYPE = 0x0001,
};

/* ---- doorbells -------------------------------------------------------------- */
#if FLEXIO_DEV_NEW_API
#define SMX_DPA_DB_CTX_PARAM
#define SMX_DPA_DB_RET void
#define SMX_DPA_DB_RETURN
#else
#define SMX_DPA_DB_CTX_PARAM struct flexio_dev_thread_ctx *dtctx,
#define SMX_DPA_DB_RET flexio_dev_status_t
#define SMX_DPA_DB_RETURN FLEXIO_DEV_STATUS_SUCCESS
#endif

/* SQ (or QP send) doorbell: @pi is the new producer index in WQE basic blocks. */
static inline SMX_DPA_DB_RET flexio_dev_qp_sq_ring_db(SMX_DPA_DB_CTX_PARAM uint16_t pi,
						      uint32_t qnum)
{
#if !FLEXIO_DEV_NEW_API
	(void)dtctx;
#endif
	smx_dpa_outbox_write(FLEXIO_OUTBOX_SXD_DB, (uint64_t)pi | (uint64_t)(qnum & 0xffffff) << 32);
	return SMX_DPA_DB_RETURN;
}

/* CQ doorbell: consumer index @ci, and arm the CQ for its next completion. */
static inline SMX_DPA_DB_RET flexio_dev_cq_arm(SMX_DPA_DB_CTX_PARAM uint32_t ci, uint32_t cqn)
{
#if !FLEXIO_DEV_NEW_API
	(void)dtctx;
#endif
	smx_dpa_outbox_write(FLEXIO_OUTBOX_CQ_DB,
			     (uint64_t)(cqn & 0xffffff) | (uint64_t)(ci & 0xffffff) << 32);
	return SMX_DPA_DB_RETURN;
}

/* EQ consumer index, no re-arm. */
static inline SMX_DPA_DB_RET flexio_dev_eq_update_ci(SMX_DPA_DB_CTX_PARAM uint32_t ci,
						     uint32_t eqn)
{
#if !FLEXIO_DEV_NEW_API
	(void)dtctx;
#endif
	smx_dpa_outbox_write(FLEXIO_OUTBOX_EQ_DB_NO_REARM,
			     (uint64_t)(eqn & 0xffffff) | (uint64_t)(ci & 0x3ffffff) << 32);
	return SMX_DPA_DB_RETURN;
}

/* Generate a zero-length CQE on @cqn (wakes what the CQ is attached to). */
static inline SMX_DPA_DB_RET flexio_dev_msix_send(SMX_DPA_DB_CTX_PARAM uint32_t cqn)
{
#if !FLEXIO_DEV_NEW_API
	(void)dtctx;
#endif
	smx_dpa_outbox_write(FLEXIO_OUTBOX_RXT_DB, cqn & 0xffffff);
	return SMX_DPA_DB_RETURN;
}
#define flexio_dev_zcqe_gen flexio_dev_msix_send

/* Device-emulation doorbell contexts. */
static inline SMX_DPA_DB_RET flexio_dev_db_ctx_arm(SMX_DPA_DB_CTX_PARAM uint32_t qnum,
						   uint32_t emu_ctx_id)
{
#if !FLEXIO_DEV_NEW_API
	(void)dtctx;
#endif
	smx_dpa_outbox_write(FLEXIO_OUTBOX_EMU_CAP,
			     (uint64_t)(qnum & 0xffffff) | (uint64_t)(emu_ctx_id & 0x3ffffff) << 32);
	return SMX_DPA_DB_RETURN;
}

static inline SMX_DPA_DB_RET flexio_dev_db_ctx_force_trigger(SMX_DPA_DB_CTX_PARAM uint32_t cqn,
							     uint32_t emu_ctx_id)
{
#if !FLEXIO_DEV_NEW_API
	(void)dtctx;
#endif
	smx_dpa_outbox_write(FLEXIO_OUTBOX_EMU_CAP_TRIGGER,
			     (uint64_t)(cqn & 0xffffff) | (uint64_t)(emu_ctx_id & 0x3ffffff) << 32);
	return SMX_DPA_DB_RETURN;
}

/* Congestion-control doorbell. */
static inline SMX_DPA_DB_RET flexio_dev_cc_ring_db(SMX_DPA_DB_CTX_PARAM uint16_t ccq_id,
						   uint32_t rate, uint32_t rtt_req,
						   uint32_t next_act)
{
#if !FLEXIO_DEV_NEW_API
	(void)dtctx;
#endif
	smx_dpa_outbox_write(FLEXIO_OUTBOX_CC_DB,
			     (uint64_t)rate | (uint64_t)(rtt_req & 1) << 32 |
				     (uint64_t)(next_act & 3) << 34 | (uint64_t)ccq_id << 48);
	return SMX_DPA_DB_RETURN;
}

/* ---- doorbell records (memory the NIC reads) -------------------------------- */
/* RQ doorbell record: one more receive WQE posted (16-bit counter). */
static inline void flexio_dev_dbr_rq_inc_pi(uint32_t *rq_dbr)
{
	uint32_t v = be32_to_cpu(*(volatile uint32_t *)rq_dbr);

	*(volatile uint32_t *)rq_dbr = cpu_to_be32((v + 1) & 0xffff);
}

/* CQ doorbell record: consumer index (24 bits). */
static inline void flexio_dev_dbr_cq_set_ci(uint32_t *cq_dbr, uint32_t ci)
{
	*(volatile uint32_t *)cq_dbr = cpu_to_be32(ci & 0xffffff);
}

/* ---- CQE / EQE readers -------------------------------------------------------- */
static inline uint8_t flexio_dev_cqe_get_owner(struct flexio_dev_cqe64 *cqe)
{
	return cqe->op_own & 0x1;
}

static inline uint8_t flexio_dev_cqe_get_opcode(struct flexio_dev_cqe64 *cqe)
{
	return cqe->op_own >> 4;
}

/* CQE format: 3 is a compressed-CQE array. */
static inline uint8_t flexio_dev_cqe_get_type(struct flexio_dev_cqe64 *cqe)
{
	return (cqe->op_own >> 2) & 0x3;
}

static inline uint16_t flexio_dev_cqe_get_wqe_counter(struct flexio_dev_cqe64 *cqe)
{
	return be16_to_cpu(cqe->wqe_counter);
}

static inline uint32_t flexio_dev_cqe_get_byte_cnt(struct flexio_dev_cqe64 *cqe)
{
	return be32_to_cpu(cqe->byte_cnt);
}

static inline uint32_t flexio_dev_cqe_get_qpn(struct flexio_dev_cqe64 *cqe)
{
	return be32_to_cpu(cqe->qpn) & 0xffffff;
}

static inline uint32_t flexio_dev_cqe_get_user_index(struct flexio_dev_cqe64 *cqe)
{
	return be32_to_cpu(cqe->srqn_uidx) & 0xffffff;
}

static inline uint32_t flexio_dev_cqe_get_csum_ok(struct flexio_dev_cqe64 *cqe)
{
#if FLEXIO_DEV_NEW_API
	return (be16_to_cpu(cqe->csum_ok) >> 10) & 0x7;
#else
	return (cqe->csum_ok >> 2) & 0x7;
#endif
}

/* Error CQE syndromes live at 0x34..0x37 of the 64-byte CQE. */
static inline uint8_t flexio_dev_cqe_get_err_synd(struct flexio_dev_cqe64 *cqe)
{
	return ((volatile uint8_t *)cqe)[0x37];
}

static inline uint8_t flexio_dev_cqe_get_hw_err_synd(struct flexio_dev_cqe64 *cqe)
{
	return ((volatile uint8_t *)cqe)[0x34];
}

static inline uint8_t flexio_dev_cqe_get_vendor_err_synd(struct flexio_dev_cqe64 *cqe)
{
	return ((volatile uint8_t *)cqe)[0x36];
}

static inline uint32_t flexio_dev_eqe_get_cqn(struct flexio_dev_eqe *eqe)
{
	return be32_to_cpu(eqe->event_data.cqn) & 0xffffff;
}

static inline uint8_t flexio_dev_eqe_get_owner(struct flexio_dev_eqe *eqe)
{
	return eqe->owner & 0x1;
}

/* ---- compressed CQEs -------------------------------------------------------- */
#define FLEXIO_DEV_COMP_CQE_GET_RX_HASH_RESULT(mini) (be32_to_cpu((uint32_t)((mini) >> 32)))

static inline uint8_t flexio_dev_comp_cqe_get_validity_byte(struct flexio_dev_cqe64 *cqe)
{
	return ((volatile uint8_t *)cqe)[0x3e];
}

static inline int flexio_dev_comp_cqe_is_comp_cqe_array(struct flexio_dev_cqe64 *cqe)
{
	return flexio_dev_cqe_get_type(cqe) == 0x3;
}

static inline uint8_t flexio_dev_comp_cqe_get_num_comp_cqes(struct flexio_dev_mini_cqe64 *m)
{
	return (uint8_t)((m->num_and_type >> 4) + 1);
}

static inline uint64_t flexio_dev_comp_cqe_get_comp_cqe(struct flexio_dev_mini_cqe64 *m, int i)
{
	return m->mini_cqe[i];
}

/* ---- receive WQEs ------------------------------------------------------------- */
static inline void *flexio_dev_rwqe_get_addr(struct flexio_dev_wqe_rcv_data_seg *rwqe)
{
	return (void *)(uintptr_t)be64_to_cpu(rwqe->addr);
}

/* ---- send WQE segment builders -------------------------------------------- */
static inline void flexio_dev_swqe_seg_ctrl_set(union flexio_dev_sqe_seg *swqe, uint32_t sq_pi,
						uint32_t sq_number, uint32_t ce,
						enum flexio_ctrl_seg ctrl_seg_type)
{
	uint32_t opcode, ds, opmod = 0;

	switch (ctrl_seg_type) {
	case FLEXIO_CTRL_SEG_SEND_EN:
		opcode = MLX5_CTRL_SEG_OPCODE_SEND; ds = 3; break;
	case FLEXIO_CTRL_SEG_SEND_RC:
		opcode = MLX5_CTRL_SEG_OPCODE_SEND; ds = 2; break;
	case FLEXIO_CTRL_SEG_SEND_UD:
		opcode = MLX5_CTRL_SEG_OPCODE_SEND; ds = 3; break;
	case FLEXIO_CTRL_SEG_LDMA:
		opcode = MLX5_CTRL_SEG_OPCODE_LOCAL_MMO; ds = 4; opmod = 1; break;
	case FLEXIO_CTRL_SEG_RDMA_WRITE:
		opcode = MLX5_CTRL_SEG_OPCODE_RDMA_WRITE; ds = 3; break;
	case FLEXIO_CTRL_SEG_RDMA_READ:
		opcode = MLX5_CTRL_SEG_OPCODE_RDMA_READ; ds = 3; break;
	case FLEXIO_CTRL_SEG_LSO:
		opcode = MLX5_CTRL_SEG_OPCODE_LSO; ds = 4; break;
	case FLEXIO_CTRL_SEG_RDMA_WRITE_IMM:
		opcode = MLX5_CTRL_SEG_OPCODE_RDMA_WRITE_WITH_IMMEDIATE; ds = 3; break;
	case FLEXIO_CTRL_SEG_TRANSPOSE:
		opcode = MLX5_CTRL_SEG_OPCODE_LOCAL_MMO; ds = 4; break;
	case FLEXIO_CTRL_SEG_WAIT_ON_DATA:
		opcode = MLX5_CTRL_SEG_OPCODE_WAIT; ds = 3; opmod = 1; break;
	case FLEXIO_CTRL_SEG_ATOMIC_COMPARE_AND_SWAP:
		opcode = MLX5_CTRL_SEG_OPCODE_ATOMIC_COMPARE_AND_SWAP; ds = 4; break;
	case FLEXIO_CTRL_SEG_ATOMIC_FETCH_AND_ADD:
		opcode = MLX5_CTRL_SEG_OPCODE_ATOMIC_FETCH_AND_ADD; ds = 4; break;
	case FLEXIO_CTRL_SEG_NOP:
	default:
		opcode = MLX5_CTRL_SEG_OPCODE_NOP; ds = 1; break;
	}
	swqe->ctrl.idx_opcode = cpu_to_be32(opmod << 24 | (sq_pi & 0xffff) << 8 | opcode);
	swqe->ctrl.qpn_ds = cpu_to_be32(sq_number << 8 | ds);
	swqe->ctrl.signature_fm_ce_se = cpu_to_be32((ce & 0x3) << 2);
	swqe->ctrl.general_id = 0;
}

static inline void flexio_dev_swqe_seg_eth_set(union flexio_dev_sqe_seg *swqe,
					       uint16_t cs_swp_flags, uint16_t mss,
					       uint16_t inline_hdr_bsz, uint8_t inline_hdrs[2])
{
	swqe->eth.rsvd0 = 0;
	swqe->eth.cs_swp_flags = cpu_to_be16(cs_swp_flags);
	swqe->eth.mss = cpu_to_be16(mss);
	swqe->eth.rsvd2 = 0;
	swqe->eth.inline_hdr_bsz = cpu_to_be16(inline_hdr_bsz);
	swqe->eth.inline_hdrs[0] = inline_hdrs ? inline_hdrs[0] : 0;
	swqe->eth.inline_hdrs[1] = inline_hdrs ? inline_hdrs[1] : 0;
}

static inline void flexio_dev_swqe_seg_inline_data_set(union flexio_dev_sqe_seg *swqe,
						       uint32_t data_sz, uint32_t *data)
{
	swqe->inline_send_data.byte_count = cpu_to_be32(data_sz | 0x80000000u);
	swqe->inline_send_data.data_and_padding[0] = data[0];
	swqe->inline_send_data.data_and_padding[1] = data[1];
	swqe->inline_send_data.data_and_padding[2] = data[2];
}

static inline void flexio_dev_swqe_seg_mem_ptr_data_set(union flexio_dev_sqe_seg *swqe,
							uint32_t data_sz, uint32_t lkey,
							uint64_t data_addr)
{
	swqe->mem_ptr_send_data.byte_count = cpu_to_be32(data_sz);
	swqe->mem_ptr_send_data.lkey = cpu_to_be32(lkey);
	swqe->mem_ptr_send_data.addr = cpu_to_be64(data_addr);
}

static inline void flexio_dev_swqe_seg_rdma_set(union flexio_dev_sqe_seg *swqe, uint32_t rkey,
						uint64_t raddr)
{
	swqe->rdma.raddr = cpu_to_be64(raddr);
	swqe->rdma.rkey = cpu_to_be32(rkey);
	swqe->rdma.rsvd0 = 0;
}

static inline void flexio_dev_swqe_seg_atomic_set(union flexio_dev_sqe_seg *swqe,
						  uint64_t swap_or_add_data, uint64_t compare_data)
{
	swqe->atomic.swap_or_add_data = cpu_to_be64(swap_or_add_data);
	swqe->atomic.compare_data = cpu_to_be64(compare_data);
}

static inline void flexio_dev_swqe_seg_shared_receive_set(union flexio_dev_sqe_seg *swqe,
							  uint16_t next_wqe_index,
							  uint8_t signature)
{
	__builtin_memset(swqe, 0, sizeof(*swqe));
	swqe->shared_receive.next_wqe_index = cpu_to_be16(next_wqe_index);
	swqe->shared_receive.signature = signature;
}

static inline void flexio_dev_swqe_seg_transpose_set(union flexio_dev_sqe_seg *swqe,
						     uint8_t element_size, uint8_t num_of_cols,
						     uint8_t num_of_rows)
{
	__builtin_memset(swqe, 0, sizeof(*swqe));
	swqe->transpose.element_size = element_size;
	swqe->transpose.num_of_cols = num_of_cols & 0x7f;
	swqe->transpose.num_of_rows = num_of_rows & 0x7f;
}

static inline void flexio_dev_swqe_seg_wait_on_data_set(union flexio_dev_sqe_seg *swqe,
							uint8_t op_inv, uint32_t lkey,
							uint64_t va, uint8_t fail_act)
{
	__builtin_memset(swqe, 0, sizeof(*swqe));
	swqe->wait_on_data.op_inv = op_inv;
	swqe->wait_on_data.lkey = cpu_to_be32(lkey);
	swqe->wait_on_data.va_63_32 = cpu_to_be32((uint32_t)(va >> 32));
	swqe->wait_on_data.va_31_3_fail_act =
		cpu_to_be32(((uint32_t)va & ~0x7u) | (fail_act & 0x3));
}

static inline void flexio_dev_swqe_seg_wait_on_data_data_set(union flexio_dev_sqe_seg *swqe,
							     uint64_t data, uint64_t data_mask)
{
	swqe->wait_on_data_data.data = cpu_to_be64(data);
	swqe->wait_on_data_data.data_mask = cpu_to_be64(data_mask);
}

#endif /* _FLEXIO_DEV_QUEUE_ACCESS_H_ */
