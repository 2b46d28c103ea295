/* SPDX-License-Identifier: MIT */
/*
 * The rules a remote request meets at its target QP, in one place. The
 * responder applies them to the QP it holds (eng_resp.c, CHK_QP and
 * CHK_OP); direct placement applies them, in the requester's process, to
 * the record that QP gave (eng_direct.c) -- so a request is taken by
 * both paths or by neither, and a change of rule reaches both.
 *
 *   ready   the QP receives in RTR, RTS, SQD and SQER (IBTA 10.3.1);
 *   op      the operation is one the transport has (READ and atomics on
 *           RC / XRC / DC only, no WRITE on UD), the QP allows it (rwe,
 *           rre, rae), an atomic's address is 8-byte aligned, and the
 *           message fits 2^log_msg_max (UD: the 4 KiB MTU).
 *
 * The key's half is eng_key_check() (eng_mkey.c) on the responder and
 * its rights and range, eng_key_inside(), on a record.
 */
#include <stdio.h>

#include "device/engine/eng_loc.h"

bool eng_racc_ready(const struct fw_qp *qp)
{
	return qp->state == MLX5_QPC_STATE_RTR ||
	       qp->state == MLX5_QPC_STATE_RTS ||
	       qp->state == MLX5_QPC_STATE_SQD ||
	       qp->state == MLX5_QPC_STATE_SQER;
}

void eng_racc_of(const struct fw_qp *qp, struct eng_racc *a)
{
	a->st = (uint8_t)qp->st;
	a->acc = (uint8_t)((DEVX_GET(qpc, qp->qpc, rwe) ? ENG_ACC_RW : 0) |
			   (DEVX_GET(qpc, qp->qpc, rre) ? ENG_ACC_RR : 0) |
			   (DEVX_GET(qpc, qp->qpc, rae) ? ENG_ACC_A : 0));
	a->log_msg = (uint8_t)DEVX_GET(qpc, qp->qpc, log_msg_max);
}

bool eng_racc_connected(uint32_t st)
{
	return st == MLX5_QPC_ST_RC || st == MLX5_QPC_ST_XRC ||
	       st == FW_QP_ST_DCT;
}

enum eng_racc_verdict eng_racc_op(const struct eng_racc *a, uint32_t qpn,
				  uint8_t op, uint64_t raddr, uint64_t len,
				  char *why, size_t whylen)
{
	static const char *const right[] = {
		[ENG_PKT_WRITE] = "remote write (rwe 0)",
		[ENG_PKT_READ] = "remote read (rre 0)",
		[ENG_PKT_CMP_SWAP] = "atomics (rae 0)",
		[ENG_PKT_FETCH_ADD] = "atomics (rae 0)",
	};
	uint32_t need;

	switch (op) {
	case ENG_PKT_SEND:
		need = 0;
		break;
	case ENG_PKT_WRITE:
		if (a->st == MLX5_QPC_ST_UD)
			goto bad_op;
		need = ENG_ACC_RW;
		break;
	case ENG_PKT_READ:
		if (!eng_racc_connected(a->st))
			goto bad_op;
		need = ENG_ACC_RR;
		break;
	case ENG_PKT_CMP_SWAP:
	case ENG_PKT_FETCH_ADD:
		if (!eng_racc_connected(a->st))
			goto bad_op;
		need = ENG_ACC_A;
		break;
	default:
		goto bad_op;
	}
	if (need & ~a->acc) {
		if (why)
			snprintf(why, whylen, "qp 0x%x does not allow %s", qpn,
				 right[op]);
		return ENG_RACC_ACCESS;
	}
	if ((op == ENG_PKT_CMP_SWAP || op == ENG_PKT_FETCH_ADD) && (raddr & 7)) {
		if (why)
			snprintf(why, whylen, "atomic address 0x%llx is not "
				 "8-byte aligned", (unsigned long long)raddr);
		return ENG_RACC_INV_REQ;
	}
	if (a->st == MLX5_QPC_ST_UD) {
		if (len > 4096u) {
			if (why)
				snprintf(why, whylen, "UD message of %llu bytes "
					 "above the MTU",
					 (unsigned long long)len);
			return ENG_RACC_DROP;
		}
	} else if (a->log_msg && a->log_msg < 32 &&
		   len > (1ull << a->log_msg)) {
		if (why)
			snprintf(why, whylen, "message of %llu bytes above "
				 "2^log_msg_max (%u)", (unsigned long long)len,
				 a->log_msg);
		return ENG_RACC_INV_REQ;
	}
	return ENG_RACC_OK;
bad_op:
	if (why)
		snprintf(why, whylen, "operation %u is not valid on qp 0x%x of "
			 "type %u", op, qpn, a->st);
	return ENG_RACC_INV_REQ;
}
