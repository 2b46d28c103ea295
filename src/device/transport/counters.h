/* SPDX-License-Identifier: MIT */
/*
 * The port's counters, under the names a ConnectX's port shows in
 * /sys/class/infiniband/<dev>/ports/1/hw_counters/ (the kernel's
 * drivers/infiniband/hw/mlx5/counters.c), plus a few of softmlx5's own
 * (packets and bytes through the transport, what the fault stage did).
 *
 * Each process's device counts into its slot of the shared segment
 * (smx_shm_counters(); a process without a segment counts into process
 * memory); the port's value is the sum over the live slots
 * (smx_shm_counters_sum(), or smx_shm_counters_read() by path, without
 * attaching: the CLI's `softmlx5 counters` and the sysfs view of
 * `softmlx5 run` use that). A process that exits takes its counts with it.
 *
 * Adding a counter: append it before TRN_CTR_NUM (indices are the slot's
 * layout: never renumber) and give it a row in trn_ctr_info[].
 */
#ifndef SMX_DEVICE_TRANSPORT_COUNTERS_H
#define SMX_DEVICE_TRANSPORT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

/* Entries a slot reserves (struct smx_slot.ctr): room to grow. */
#define TRN_CTR_MAX_SLOTS 64u

enum trn_ctr {
	/* Queue counters: responder side (basic_q_cnts). */
	TRN_CTR_RX_WRITE_REQUESTS,
	TRN_CTR_RX_READ_REQUESTS,
	TRN_CTR_RX_ATOMIC_REQUESTS,
	TRN_CTR_RX_DCT_CONNECT,
	TRN_CTR_OUT_OF_BUFFER,
	/* out_of_seq_q_cnts */
	TRN_CTR_OUT_OF_SEQUENCE,
	/* retrans_q_cnts */
	TRN_CTR_DUPLICATE_REQUEST,
	TRN_CTR_RNR_NAK_RETRY_ERR,
	TRN_CTR_PACKET_SEQ_ERR,
	TRN_CTR_IMPLIED_NAK_SEQ_ERR,
	TRN_CTR_LOCAL_ACK_TIMEOUT_ERR,
	/* extended_err_cnts */
	TRN_CTR_RESP_LOCAL_LENGTH_ERROR,
	TRN_CTR_RESP_CQE_ERROR,
	TRN_CTR_REQ_CQE_ERROR,
	TRN_CTR_REQ_REMOTE_INVALID_REQUEST,
	TRN_CTR_REQ_REMOTE_ACCESS_ERRORS,
	TRN_CTR_RESP_REMOTE_ACCESS_ERRORS,
	TRN_CTR_RESP_CQE_FLUSH_ERROR,
	TRN_CTR_REQ_CQE_FLUSH_ERROR,
	/* roce_accl_cnts */
	TRN_CTR_ROCE_ADP_RETRANS,
	TRN_CTR_ROCE_ADP_RETRANS_TO,
	TRN_CTR_ROCE_SLOW_RESTART,
	TRN_CTR_ROCE_SLOW_RESTART_CNPS,
	TRN_CTR_ROCE_SLOW_RESTART_TRANS,
	/* cong_cnts */
	TRN_CTR_RP_CNP_IGNORED,
	TRN_CTR_RP_CNP_HANDLED,
	TRN_CTR_NP_ECN_MARKED_ROCE_PACKETS,
	TRN_CTR_NP_CNP_SENT,
	/* ext_ppcnt_cnts */
	TRN_CTR_RX_ICRC_ENCAPSULATED,
	/* softmlx5's own */
	TRN_CTR_TX_PACKETS,
	TRN_CTR_RX_PACKETS,
	TRN_CTR_TX_BYTES,
	TRN_CTR_RX_BYTES,
	TRN_CTR_RX_ICRC_ERRORS,
	TRN_CTR_FAULT_DROPPED,
	TRN_CTR_FAULT_DUPLICATED,
	TRN_CTR_FAULT_CORRUPTED,
	TRN_CTR_FAULT_DELAYED,
	TRN_CTR_FAULT_REORDERED,
	TRN_CTR_RX_MALFORMED,
	TRN_CTR_RX_DROPPED,
	TRN_CTR_DUPLICATE_RESPONSE,
	TRN_CTR_PEER_STALLED,
	TRN_CTR_TX_SEND_BY_REF,
	TRN_CTR_RX_SEND_REF_STALE,
	TRN_CTR_TX_SEND_DIRECT,
	TRN_CTR_RX_SEND_DIRECT,
	TRN_CTR_NET_TX_DROPPED,
	TRN_CTR_NET_RX_FORWARDED,
	TRN_CTR_NUM
};

_Static_assert(TRN_CTR_NUM <= TRN_CTR_MAX_SLOTS, "counters outgrow the slot");

/* One process's counters: what a slot holds (or process memory). */
struct trn_counters {
	uint64_t v[TRN_CTR_MAX_SLOTS];
};

struct trn_ctr_info {
	const char *name;	/* the hw_counters file name */
	const char *desc;	/* one line: what it counts */
};

/* Indexed by enum trn_ctr; every entry set. */
extern const struct trn_ctr_info trn_ctr_info[TRN_CTR_NUM];

/* The counter named @name, or -1. */
int trn_ctr_lookup(const char *name);

/* Counts @n events of @i: a relaxed atomic add (counters order nothing). */
static inline void trn_ctr_add(struct trn_counters *c, enum trn_ctr i,
			       uint64_t n)
{
	if (c && (unsigned int)i < TRN_CTR_NUM)
		__atomic_fetch_add(&c->v[i], n, __ATOMIC_RELAXED);
}

static inline uint64_t trn_ctr_get(const struct trn_counters *c,
				   enum trn_ctr i)
{
	return c && (unsigned int)i < TRN_CTR_NUM ?
	       __atomic_load_n(&c->v[i], __ATOMIC_RELAXED) : 0;
}

#endif
