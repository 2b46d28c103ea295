/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: layouts of the queue elements DPA code reads and writes --
 * CQEs, EQEs, and the 16-byte segments send and receive WQEs are built from.
 * All multi-byte fields are big-endian, as the NIC reads them; comments give
 * the dword (and bits) each field occupies.
 */
#ifndef _FLEXIO_DEV_QUEUE_TYPES_H_
#define _FLEXIO_DEV_QUEUE_TYPES_H_

#include <stdint.h>
#include <linux/types.h>

#include <libflexio-dev/flexio_dev.h>

/* A send WQE basic block is 2^2 segments of 16 bytes (64 bytes). */
#define LOG_SQE_NUM_SEGS 2

/* ---- completion queue element (64 bytes) --------------------------------- */
#if FLEXIO_DEV_NEW_API
struct flexio_dev_cqe64 {
	__be32 rsvd00[5];		/* 00h..04h */
	__be16 csum_ok;			/* 05h 16..31: checksum-ok bits */
	uint8_t rsvd22[2];		/* 05h 0..15 */
	uint8_t rsvd24[8];		/* 06h..07h */
	__be32 srqn_uidx;		/* 08h: SRQ number or user index */
	__be32 imm_inval_pkey;		/* 09h: immediate / invalidated key */
	__be32 rsvd40;			/* 0Ah */
	__be32 byte_cnt;		/* 0Bh: byte count */
	__be32 rsvd48;			/* 0Ch */
	uint8_t hw_err_syndrome;	/* 0Dh 24..31 */
	uint8_t rsvd50;			/* 0Dh 16..23 */
	uint8_t vendor_err_synd;	/* 0Dh 8..15 */
	uint8_t syndrome;		/* 0Dh 0..7 */
	union {
		__be32 qpn;		/* 0Eh: QP / SQ / RQ number (24 bits) */
		struct {
			uint8_t sop_rdrop; /* 0Eh 24..31 */
			uint8_t qpn24[3];  /* 0Eh 0..23 */
		};
	};
	__be16 wqe_counter;		/* 0Fh 16..31: WQE counter */
	union {
		uint8_t signature;	/* 0Fh 8..15 */
		uint8_t validity_iteration_count;
	};
	volatile uint8_t op_own;	/* 0Fh 0..7: opcode 7:4, format 3:2, owner 0 */
} __attribute__((packed, aligned(8)));
#else
struct flexio_dev_cqe64 {
	__be32 rsvd0[7];		/* 00h..06h: reserved */
	uint8_t csum_ok;		/* 07h 24..26: checksum-ok bits */
	uint8_t rsvd29[3];		/* 07h 0..23: reserved */
	__be32 srqn_uidx;		/* 08h: SRQ number or user index */
	__be32 rsvd36[2];		/* 09h..0Ah: reserved */
	__be32 byte_cnt;		/* 0Bh: byte count */
	__be32 rsvd48[2];		/* 0Ch..0Dh: reserved */
	__be32 qpn;			/* 0Eh: QPN */
	__be16 wqe_counter;		/* 0Fh 16..31: WQE counter */
	uint8_t signature;		/* 0Fh 8..15: signature */
	volatile uint8_t op_own;	/* 0Fh 0: ownership bit (opcode in 7:4) */
} __attribute__((packed, aligned(8)));
#endif
_Static_assert(sizeof(struct flexio_dev_cqe64) == 64, "CQE is 64 bytes");
_Static_assert(__builtin_offsetof(struct flexio_dev_cqe64, srqn_uidx) == 0x20, "srqn_uidx at 08h");
_Static_assert(__builtin_offsetof(struct flexio_dev_cqe64, byte_cnt) == 0x2c, "byte_cnt at 0Bh");
_Static_assert(__builtin_offsetof(struct flexio_dev_cqe64, qpn) == 0x38, "qpn at 0Eh");
_Static_assert(__builtin_offsetof(struct flexio_dev_cqe64, wqe_counter) == 0x3c, "wqe_counter at 0Fh");
_Static_assert(__builtin_offsetof(struct flexio_dev_cqe64, op_own) == 0x3f, "op_own last");

/* A compressed-CQE array: seven 8-byte mini CQEs and a trailer. */
struct flexio_dev_mini_cqe64 {
	__be64 mini_cqe[7];		/* 00h..0Dh: mini CQEs */
	uint8_t rsvd0[6];		/* 0Eh..0Fh 16..31 */
	uint8_t validity_iteration_count; /* 0Fh 8..15 */
	uint8_t num_and_type;		/* 0Fh 0..7: count-1 in 7:4, format 3:2 */
} __attribute__((packed, aligned(8)));
_Static_assert(sizeof(struct flexio_dev_mini_cqe64) == 64, "mini CQE array is 64 bytes");

/* ---- event queue element (64 bytes) -------------------------------------- */
struct flexio_dev_eqe {
	uint8_t rsvd00;			/* 00h 24..31: reserved */
	uint8_t type;			/* 00h 16..23: EQE type */
	uint8_t rsvd02;			/* 00h 8..15: reserved */
	uint8_t sub_type;		/* 00h 0..7: sub type */
	uint8_t rsvd4[28];		/* 01h..07h: reserved */
	struct {
		__be32 rsvd00[6];	/* 08h..0Dh: reserved */
		__be32 cqn;		/* 0Eh: CQN in the low 24 bits */
	} event_data;			/* 08h..0Eh: event data */
	__be16 rsvd3c;			/* 0Fh 16..31: reserved */
	uint8_t signature;		/* 0Fh 8..15: signature */
	uint8_t owner;			/* 0Fh 0: owner bit */
} __attribute__((packed, aligned(8)));
_Static_assert(sizeof(struct flexio_dev_eqe) == 64, "EQE is 64 bytes");
_Static_assert(__builtin_offsetof(struct flexio_dev_eqe, event_data.cqn) == 0x38, "cqn at 0Eh");

/* ---- WQE segments (16 bytes each) ---------------------------------------- */
/* Control segment: first segment of every send WQE. */
struct flexio_dev_wqe_ctrl_seg {
	__be32 idx_opcode;		/* 00h: opmod 31:24, WQE index 23:8, opcode 7:0 */
	__be32 qpn_ds;			/* 01h: SQ/QP number 31:8, size in 16 B 5:0 */
	__be32 signature_fm_ce_se;	/* 02h: signature, fence, CQ update (3:2), SE */
	__be32 general_id;		/* 03h: immediate / general id */
} __attribute__((packed, aligned(8)));

/* Ethernet segment. */
struct flexio_dev_wqe_eth_seg {
	__be32 rsvd0;			/* 00h: reserved */
	__be16 cs_swp_flags;		/* 01h 16..31: checksum and SWP flags */
	__be16 mss;			/* 01h 0..15: max segment size (LSO) */
	__be32 rsvd2;			/* 02h: reserved */
	__be16 inline_hdr_bsz;		/* 03h 16..31: inline header bytes */
	uint8_t inline_hdrs[2];		/* 03h 0..15: first two inline bytes */
} __attribute__((packed, aligned(8)));

/* Inline data (a continuation of inline headers or data). */
struct flexio_dev_wqe_inline_data_seg {
	uint8_t inline_data[16];	/* 00h..03h */
} __attribute__((packed, aligned(8)));

/* Send data given by pointer. */
struct flexio_dev_wqe_mem_ptr_send_data_seg {
	__be32 byte_count;		/* 00h: bytes */
	__be32 lkey;			/* 01h: local key */
	__be64 addr;			/* 02h..03h: address */
} __attribute__((packed, aligned(8)));

/* Inline send data: byte count (bit 31 set) then data. */
struct flexio_dev_wqe_inline_send_data_seg {
	__be32 byte_count;		/* 00h: 0x80000000 | bytes */
	__be32 data_and_padding[3];	/* 01h..03h */
} __attribute__((packed, aligned(8)));

/* Receive WQE data segment (one per 16-byte RQ WQE in the samples). */
struct flexio_dev_wqe_rcv_data_seg {
	__be32 byte_count;		/* 00h: buffer bytes */
	__be32 lkey;			/* 01h: local key */
	__be64 addr;			/* 02h..03h: buffer address */
} __attribute__((packed, aligned(8)));

/* Remote address segment (RDMA READ/WRITE). */
struct flexio_dev_wqe_rdma_seg {
	__be64 raddr;			/* 00h..01h: remote address */
	__be32 rkey;			/* 02h: remote key */
	__be32 rsvd0;			/* 03h: reserved */
} __attribute__((packed, aligned(8)));

/* Atomic operands. */
struct flexio_dev_wqe_atomic_seg {
	__be64 swap_or_add_data;	/* 00h..01h: swap value or addend */
	__be64 compare_data;		/* 02h..03h: compare value */
} __attribute__((packed, aligned(8)));

/* Matrix transpose (LOCAL_MMO opmod 0). */
struct flexio_dev_wqe_transpose_seg {
	uint8_t rsvd0[0x3];		/* 00h 8..31: reserved */
	uint8_t element_size;		/* 00h 0..7: element size */
	uint8_t rsvd1;			/* 01h 24..31: reserved */
	uint8_t num_of_cols;		/* 01h 16..22: columns (7 bits) */
	uint8_t rsvd2;			/* 01h 8..15: reserved */
	uint8_t num_of_rows;		/* 01h 0..6: rows (7 bits) */
	uint8_t rsvd4[0x8];		/* 02h..03h: reserved */
} __attribute__((packed, aligned(8)));

/* Next-WQE segment of a linked-list (shared) receive queue. */
struct flexio_dev_wqe_shared_receive_seg {
	uint8_t rsvd0[2];		/* 00h 16..31: reserved */
	__be16 next_wqe_index;		/* 00h 0..15: next WQE */
	uint8_t signature;		/* 01h 24..31 */
	uint8_t rsvd1[11];		/* 01h..03h */
} __attribute__((packed, aligned(8)));

/* WAIT opcode (opmod 1): wait until memory matches. */
struct flexio_dev_wqe_wait_on_data_seg {
	uint8_t rsvd0[3];		/* 00h 8..31 */
	uint8_t op_inv;			/* 00h 0..7: operation, invert */
	uint32_t lkey;			/* 01h: key of the watched word */
	uint32_t va_63_32;		/* 02h: address bits 63:32 */
	uint32_t va_31_3_fail_act;	/* 03h: address bits 31:3, failure action */
} __attribute__((packed, aligned(8)));

struct flexio_dev_wqe_wait_on_data_data_seg {
	__be64 data;			/* 00h..01h: value */
	__be64 data_mask;		/* 02h..03h: mask */
} __attribute__((packed, aligned(8)));

/* Address vector of a UD send, in three 16-byte parts. */
struct flexio_dev_wqe_datagram_seg {
	union {
		struct {
			__be64 qkey_dc_key;	/* 00h..01h: Q_Key / DC key */
			__be32 ext_dqp_dct;	/* 02h: destination QP (24 bits) */
			uint8_t stat_rate_sl;	/* 03h 24..31 */
			uint8_t fl_mlid;	/* 03h 16..23 */
			__be16 rlid;		/* 03h 0..15 */
		} s1;
		struct {
			uint8_t rmac[6];	/* 00h..01h: remote MAC */
			uint8_t tclass;		/* 01h 8..15 */
			uint8_t hop_limit;	/* 01h 0..7 */
			__be32 grh_gid_fl;	/* 02h: GRH, GID index, flow label */
			uint8_t rsvd[4];	/* 03h */
		} s2;
		struct {
			uint8_t rgid[16];	/* 00h..03h: remote GID */
		} s3;
	};
} __attribute__((packed, aligned(8)));

/* One 16-byte slot of a send WQE: exactly one member is meaningful. */
union flexio_dev_sqe_seg {
	struct flexio_dev_wqe_ctrl_seg ctrl;
	struct flexio_dev_wqe_eth_seg eth;
	struct flexio_dev_wqe_inline_data_seg inline_data;
	struct flexio_dev_wqe_mem_ptr_send_data_seg mem_ptr_send_data;
	struct flexio_dev_wqe_inline_send_data_seg inline_send_data;
	struct flexio_dev_wqe_rdma_seg rdma;
	struct flexio_dev_wqe_atomic_seg atomic;
	struct flexio_dev_wqe_transpose_seg transpose;
	struct flexio_dev_wqe_shared_receive_seg shared_receive;
	struct flexio_dev_wqe_wait_on_data_seg wait_on_data;
	struct flexio_dev_wqe_wait_on_data_data_seg wait_on_data_data;
	struct flexio_dev_wqe_datagram_seg datagram;
};

_Static_assert(sizeof(struct flexio_dev_wqe_ctrl_seg) == 16, "ctrl seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_eth_seg) == 16, "eth seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_inline_data_seg) == 16, "inline data seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_mem_ptr_send_data_seg) == 16, "mem ptr seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_inline_send_data_seg) == 16, "inline send seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_rcv_data_seg) == 16, "receive seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_rdma_seg) == 16, "rdma seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_atomic_seg) == 16, "atomic seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_transpose_seg) == 16, "transpose seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_shared_receive_seg) == 16, "shared receive seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_wait_on_data_seg) == 16, "wait seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_wait_on_data_data_seg) == 16, "wait data seg is 16 B");
_Static_assert(sizeof(struct flexio_dev_wqe_datagram_seg) == 16, "datagram seg is 16 B");
_Static_assert(sizeof(union flexio_dev_sqe_seg) == 16, "a send WQE segment is 16 B");
_Static_assert(__builtin_offsetof(struct flexio_dev_wqe_eth_seg, inline_hdr_bsz) == 12, "eth inline size at 03h");
_Static_assert(__builtin_offsetof(struct flexio_dev_wqe_mem_ptr_send_data_seg, addr) == 8, "addr at 02h");

#endif /* _FLEXIO_DEV_QUEUE_TYPES_H_ */
