/* SPDX-License-Identifier: MIT */
/*
 * The port counters' names and meanings (counters.h). The names are the
 * files of a ConnectX port's hw_counters directory; the meanings follow
 * what the mlx5 driver and NVIDIA's documentation say each one counts.
 * libc only: the CLI and the preloaded sysfs view compile this file in.
 */
#include <string.h>

#include "device/transport/counters.h"

#define C(id, n, d) [TRN_CTR_##id] = { .name = n, .desc = d }

const struct trn_ctr_info trn_ctr_info[TRN_CTR_NUM] = {
	C(RX_WRITE_REQUESTS, "rx_write_requests",
	  "RDMA WRITE requests received"),
	C(RX_READ_REQUESTS, "rx_read_requests",
	  "RDMA READ requests received"),
	C(RX_ATOMIC_REQUESTS, "rx_atomic_requests",
	  "atomic requests received"),
	C(RX_DCT_CONNECT, "rx_dct_connect",
	  "connect requests received by DC targets"),
	C(OUT_OF_BUFFER, "out_of_buffer",
	  "packets dropped for want of a receive WQE (shared RQ or SRQ)"),
	C(OUT_OF_SEQUENCE, "out_of_sequence",
	  "packets received with a PSN beyond the expected one"),
	C(DUPLICATE_REQUEST, "duplicate_request",
	  "requests received again (PSN already executed)"),
	C(RNR_NAK_RETRY_ERR, "rnr_nak_retry_err",
	  "RNR NAKs received after the RNR retry count ran out"),
	C(PACKET_SEQ_ERR, "packet_seq_err",
	  "PSN sequence error NAKs received"),
	C(IMPLIED_NAK_SEQ_ERR, "implied_nak_seq_err",
	  "READ / atomic responses with a later PSN than expected (an "
	  "implied NAK)"),
	C(LOCAL_ACK_TIMEOUT_ERR, "local_ack_timeout_err",
	  "ACK timer expirations on the requester side"),
	C(RESP_LOCAL_LENGTH_ERROR, "resp_local_length_error",
	  "responder: local length errors (message longer than the receive "
	  "WQE)"),
	C(RESP_CQE_ERROR, "resp_cqe_error",
	  "responder: error completions"),
	C(REQ_CQE_ERROR, "req_cqe_error",
	  "requester: error completions"),
	C(REQ_REMOTE_INVALID_REQUEST, "req_remote_invalid_request",
	  "requester: remote invalid request NAKs received"),
	C(REQ_REMOTE_ACCESS_ERRORS, "req_remote_access_errors",
	  "requester: remote access error NAKs received"),
	C(RESP_REMOTE_ACCESS_ERRORS, "resp_remote_access_errors",
	  "responder: remote access errors (bad rkey, range or rights)"),
	C(RESP_CQE_FLUSH_ERROR, "resp_cqe_flush_error",
	  "responder: receive WQEs flushed in error"),
	C(REQ_CQE_FLUSH_ERROR, "req_cqe_flush_error",
	  "requester: send WQEs flushed in error"),
	C(ROCE_ADP_RETRANS, "roce_adp_retrans",
	  "adaptive retransmissions"),
	C(ROCE_ADP_RETRANS_TO, "roce_adp_retrans_to",
	  "timeouts under adaptive retransmission"),
	C(ROCE_SLOW_RESTART, "roce_slow_restart",
	  "times slow restart was used"),
	C(ROCE_SLOW_RESTART_CNPS, "roce_slow_restart_cnps",
	  "CNPs slow restart generated"),
	C(ROCE_SLOW_RESTART_TRANS, "roce_slow_restart_trans",
	  "transitions into slow restart"),
	C(RP_CNP_IGNORED, "rp_cnp_ignored",
	  "CNPs received and ignored by the reaction point"),
	C(RP_CNP_HANDLED, "rp_cnp_handled",
	  "CNPs received and handled by the reaction point"),
	C(NP_ECN_MARKED_ROCE_PACKETS, "np_ecn_marked_roce_packets",
	  "ECN-marked RoCE packets received by the notification point"),
	C(NP_CNP_SENT, "np_cnp_sent",
	  "CNPs sent by the notification point"),
	C(RX_ICRC_ENCAPSULATED, "rx_icrc_encapsulated",
	  "RoCE packets received with an ICRC error (encapsulated)"),
	C(TX_PACKETS, "tx_packets",
	  "softmlx5: transport packets sent"),
	C(RX_PACKETS, "rx_packets",
	  "softmlx5: transport packets received"),
	C(TX_BYTES, "tx_bytes",
	  "softmlx5: transport bytes sent (whole packets)"),
	C(RX_BYTES, "rx_bytes",
	  "softmlx5: transport bytes received (whole packets)"),
	C(RX_ICRC_ERRORS, "rx_icrc_errors",
	  "softmlx5: packets dropped at receive for a bad ICRC"),
	C(FAULT_DROPPED, "fault_dropped",
	  "softmlx5: packets the fault stage dropped"),
	C(FAULT_DUPLICATED, "fault_duplicated",
	  "softmlx5: extra copies the fault stage sent"),
	C(FAULT_CORRUPTED, "fault_corrupted",
	  "softmlx5: packets the fault stage corrupted (one byte)"),
	C(FAULT_DELAYED, "fault_delayed",
	  "softmlx5: packets the fault stage delayed"),
	C(FAULT_REORDERED, "fault_reordered",
	  "softmlx5: packets the fault stage held back behind the next one"),
	C(RX_MALFORMED, "rx_malformed",
	  "softmlx5: packets dropped by a structural check (headers, "
	  "addresses, lengths)"),
	C(RX_DROPPED, "rx_dropped",
	  "softmlx5: well-formed packets to no QP"),
	C(DUPLICATE_RESPONSE, "duplicate_response",
	  "softmlx5: responses to no request in flight (duplicates, stale)"),
	C(PEER_STALLED, "peer_stalled",
	  "softmlx5: ACK timeouts not counted: the peer was stopped or not "
	  "reading its inbox"),
	C(TX_SEND_BY_REF, "tx_send_by_ref",
	  "softmlx5: SENDs whose payload the receiver copied from our memory "
	  "(one cell for the message, not one packet per MTU)"),
	C(RX_SEND_REF_STALE, "rx_send_ref_stale",
	  "softmlx5: SENDs by reference dropped because the sender's keys "
	  "changed after it sent them (it sends them again)"),
	C(TX_SEND_DIRECT, "tx_send_direct",
	  "softmlx5: SENDs we placed straight into a receive the peer lent us "
	  "(no packet, no ACK)"),
	C(RX_SEND_DIRECT, "rx_send_direct",
	  "softmlx5: receives a peer filled directly, completed here"),
	C(NET_TX_DROPPED, "net_tx_dropped",
	  "softmlx5: packets the network link's socket refused (lost)"),
	C(NET_RX_FORWARDED, "net_rx_forwarded",
	  "softmlx5: packets from the network this process received for "
	  "another process of the host, passed to its inbox"),
};

int trn_ctr_lookup(const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < TRN_CTR_NUM; i++)
		if (!strcmp(trn_ctr_info[i].name, name))
			return i;
	return -1;
}
