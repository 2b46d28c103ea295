/* SPDX-License-Identifier: MIT */
/*
 * The requester: send WQEs from the SQ ring, decoded through one opcode table,
 * checked, turned into a message for the fabric, and completed in order.
 *
 * SEND WQE (PRM): a 16-byte control segment (opmod_idx_opcode: opmod << 24 |
 * wqe index << 8 | opcode; qpn_ds: qpn << 8 | DS, the WQE size in 16-byte
 * units; fm_ce_se: fence bits 7:5, CQ update (ce) bits 3:2, solicited bit 1;
 * imm: immediate data or the rkey to invalidate), then per QP type and opcode
 * an XRC segment (XRC: remote SRQ number), a datagram segment (UD: the 48-byte
 * address vector with dqpn and qkey), a remote-address segment, an atomic
 * segment, and data: 16-byte pointer segments (byte_count 0 = 2 GiB) or
 * inline segments (byte_count | 0x80000000, data, padded to 16). A WQE takes
 * ceil(DS / 4) 64-byte basic blocks (WQEBBs) and may wrap around the ring.
 * The producer is the WQEBB counter in the low 16 bits of dbrec[1].
 *
 * Ordering: WQEs execute in ring order. In-process the fabric is synchronous
 * (the responder has run when xmit returns), so RDMA READ and atomic results
 * are in place before the next WQE starts: every fence is satisfied by
 * construction. A WQE that must wait (RNR NAK, no response) parks the QP
 * until its timer expires; nothing behind it runs meanwhile.
 *
 * Pipelining (another process's QP): up to ENG_SQ_WINDOW requests are in
 * flight per QP (READ / atomic: at most 2^log_sra_max), each with its own
 * PSN; responses are matched by PSN (eng_fabric.c) and WQEs complete in
 * order, each decoded again (same checks) when its turn comes. Only a plain
 * request to another process goes behind outstanding ones: a fenced WQE,
 * a local one (NOP, UMR, MMO), one for this process, one that fails its
 * checks or finds the peer's inbox full waits until the window is empty
 * (errors thus complete in order). An RNR NAK or a lost response rewinds
 * the window to the oldest WQE (go-back-N): it and everything after it go
 * out again with the same PSNs, responses from before count as stale.
 *
 * Fast lane (eng_sq_fast()): a one-WQEBB RDMA WRITE / READ at the head of an
 * empty window, to another process, that direct placement takes is run
 * without the general decode, from caches that eng_gen_bump() voids (the
 * QP's route, its last lkey); what it does not take goes the general way.
 * SOFTMLX5_FAST=0 (e->fast) turns the lane and the caches off: then every
 * WQE is decoded and checked in full, the reference tests/unit/
 * test_diff_wqe.c holds the shortcuts to (same CQEs, same memory).
 *
 * Errors complete the WQE with an error CQE (whether signalled or not), move
 * the QP to ERR and flush every later WQE with WR_FLUSH_ERR.
 *
 * DC initiators (st DCI) carry a datagram segment like UD: the address
 * vector names the DCT (dqp_dct) and its DC access key (key.dc_key); the
 * exchange itself is RC's (acknowledged, RNR and transport retries, RDMA
 * and atomics). With stream channels the control segment's
 * dci_stream_channel_id names the WQE's stream: an error marks that stream
 * errored (fw_qp.dci_err_ids) and completes the WQE with its error while
 * the DCI stays in RTS; later WQEs of an errored stream complete with
 * WR_FLUSH_ERR until the stream is reset (RTS2RTS). When the errored
 * streams reach 2^log_num_dci_errored_streams the DCI goes to ERR.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/decode.h"
#include "device/engine/eng_loc.h"
#include "device/trace.h"
#include "device/transport/counters.h"
#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"
#include "util/log.h"

/* Segments following the control segment, and what the opcode does. */
enum {
	OPF_RADDR = 1 << 0,	/* remote address segment */
	OPF_ATOMIC = 1 << 1,	/* atomic segment */
	OPF_GATHER = 1 << 2,	/* data segments are the source (local read) */
	OPF_SCATTER = 1 << 3,	/* data segments receive the response */
	OPF_IMM = 1 << 4,	/* ctrl.imm is immediate data */
	OPF_INV = 1 << 5,	/* ctrl.imm is the rkey to invalidate */
	OPF_NOP = 1 << 6,	/* nothing goes on the wire */
	OPF_UMR = 1 << 7,	/* changes a memory key locally (eng_umr.c) */
	OPF_MMO = 1 << 8,	/* memory-to-memory offload (eng_sq_mmo()) */
	OPF_PSV = 1 << 9,	/* loads a signature PSV (eng_sig.c) */
};

#define QT(x) (1u << MLX5_QPC_ST_##x)
#define QT_ALL (QT(RC) | QT(UC) | QT(UD) | QT(XRC) | QT(DCI))
#define QT_CONN (QT(RC) | QT(UC) | QT(XRC))
#define QT_UMR (QT_CONN | QT(REG_UMR))
#define QT_RELIABLE (QT(RC) | QT(XRC) | QT(DCI))

struct eng_opdesc {
	const char *name;
	uint32_t qp_types;	/* QT() of the QP types that may post it */
	uint32_t flags;		/* OPF_* */
	uint8_t pkt_op;		/* enum eng_pkt_op */
};

static const struct eng_opdesc eng_opdesc[256] = {
	[MLX5_OPCODE_NOP] = {
		.name = "NOP", .qp_types = QT_ALL, .flags = OPF_NOP,
	},
	[MLX5_OPCODE_SEND] = {
		.name = "SEND", .qp_types = QT_ALL, .flags = OPF_GATHER,
		.pkt_op = ENG_PKT_SEND,
	},
	[MLX5_OPCODE_SEND_IMM] = {
		.name = "SEND_IMM", .qp_types = QT_ALL,
		.flags = OPF_GATHER | OPF_IMM, .pkt_op = ENG_PKT_SEND,
	},
	[MLX5_OPCODE_SEND_INVAL] = {
		.name = "SEND_INVAL", .qp_types = QT_CONN,
		.flags = OPF_GATHER | OPF_INV, .pkt_op = ENG_PKT_SEND,
	},
	[MLX5_OPCODE_RDMA_WRITE] = {
		.name = "RDMA_WRITE", .qp_types = QT_CONN | QT(DCI),
		.flags = OPF_RADDR | OPF_GATHER, .pkt_op = ENG_PKT_WRITE,
	},
	[MLX5_OPCODE_RDMA_WRITE_IMM] = {
		.name = "RDMA_WRITE_IMM", .qp_types = QT_CONN | QT(DCI),
		.flags = OPF_RADDR | OPF_GATHER | OPF_IMM,
		.pkt_op = ENG_PKT_WRITE,
	},
	[MLX5_OPCODE_RDMA_READ] = {
		.name = "RDMA_READ", .qp_types = QT_RELIABLE,
		.flags = OPF_RADDR | OPF_SCATTER, .pkt_op = ENG_PKT_READ,
	},
	[MLX5_OPCODE_ATOMIC_CS] = {
		.name = "ATOMIC_CS", .qp_types = QT_RELIABLE,
		.flags = OPF_RADDR | OPF_ATOMIC | OPF_SCATTER,
		.pkt_op = ENG_PKT_CMP_SWAP,
	},
	[MLX5_OPCODE_ATOMIC_FA] = {
		.name = "ATOMIC_FA", .qp_types = QT_RELIABLE,
		.flags = OPF_RADDR | OPF_ATOMIC | OPF_SCATTER,
		.pkt_op = ENG_PKT_FETCH_ADD,
	},
	[MLX5_OPCODE_UMR] = {
		.name = "UMR", .qp_types = QT_UMR, .flags = OPF_NOP | OPF_UMR,
	},
	[MLX5_OPCODE_MMO] = {
		.name = "MMO", .qp_types = QT(RC), .flags = OPF_NOP | OPF_MMO,
	},
	[MLX5_OPCODE_SET_PSV] = {
		.name = "SET_PSV", .qp_types = QT_UMR, .flags = OPF_NOP | OPF_PSV,
	},
	/* ATOMIC_MASKED_*, LOCAL_INVAL ...: not in the table,
	 * so LOCAL_QP_OP_ERR like any opcode the QP cannot execute. */
};

/* The requester's view of an opcode for the decoder and the trace: its
 * name (NULL: the requester does not execute it) and which segments follow
 * the control segment. */
const char *eng_sq_op_layout(uint8_t opcode, bool *raddr, bool *atomic, bool *umr)
{
	const struct eng_opdesc *d = &eng_opdesc[opcode];

	*raddr = d->flags & OPF_RADDR;
	*atomic = d->flags & OPF_ATOMIC;
	*umr = d->flags & OPF_UMR;
	return d->name;
}

static const char *const eng_st_name[16] = {
	[MLX5_QPC_ST_RC] = "RC", [MLX5_QPC_ST_UC] = "UC",
	[MLX5_QPC_ST_UD] = "UD", [MLX5_QPC_ST_XRC] = "XRC",
	[MLX5_QPC_ST_DCI] = "DCI",
};

static bool eng_sq_reliable(uint32_t st)
{
	return st == MLX5_QPC_ST_RC || st == MLX5_QPC_ST_XRC ||
	       st == MLX5_QPC_ST_DCI;
}

/* ------------------------------------------------------------------ */
/* Arithmetic of the wire                                             */
/* ------------------------------------------------------------------ */

uint32_t eng_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & 0xffffff;
}

int32_t eng_psn_diff(uint32_t a, uint32_t b)
{
	/* Sign-extend the 24-bit difference. */
	return (int32_t)(((a - b) & 0xffffff) << 8) >> 8;
}

uint32_t eng_mtu_bytes(uint32_t mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128u << mtu : 4096u;
}

uint64_t eng_rnr_timer_ns(uint32_t enc)
{
	/* IB spec 9.7.5.2.8: encoded minimum RNR NAK timer, in 10 us. */
	static const uint32_t t10us[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152,
	};

	return (uint64_t)t10us[enc & 31] * 10000ull;
}

uint64_t eng_ack_timeout_ns(uint32_t timeout)
{
	/* 4.096 us * 2^timeout; 0 means infinite. */
	if (!timeout)
		return UINT64_MAX;
	return 4096ull << (timeout & 31);
}

/* ------------------------------------------------------------------ */
/* Reading the ring                                                   */
/* ------------------------------------------------------------------ */

/* Copies @nbb WQEBBs starting at counter @idx (wrapping) into @dst. */
static bool eng_sq_copy(const struct fw_qp *qp, uint16_t idx, uint32_t nbb,
			uint8_t *dst)
{
	uint32_t i;

	for (i = 0; i < nbb; i++) {
		uint32_t bb = (uint32_t)(uint16_t)(idx + i) & (qp->sq_wqebbs - 1);
		const uint8_t *src = fw_buf_addr(&qp->buf, qp->sq_offset +
						 (uint64_t)bb * 64);

		if (!src)
			return false;
		memcpy(dst + (size_t)i * 64, src, 64);
	}
	return true;
}

static uint16_t eng_sq_pi(const struct fw_qp *qp)
{
	return (uint16_t)be32toh(__atomic_load_n(&qp->dbrec[1],
						 __ATOMIC_ACQUIRE));
}

/* Opcode and size of the WQE at @idx as written (flush, errors). */
static void eng_sq_peek(const struct fw_qp *qp, uint16_t idx, uint16_t avail,
			uint8_t *opcode, uint32_t *nbb)
{
	uint8_t bb[64];
	uint32_t ds, n;

	*opcode = 0;
	*nbb = 1;
	if (!eng_sq_copy(qp, idx, 1, bb))
		return;
	*opcode = (uint8_t)(be32toh(((struct mlx5_wqe_ctrl_seg *)bb)
				    ->opmod_idx_opcode) & 0xff);
	ds = be32toh(((struct mlx5_wqe_ctrl_seg *)bb)->qpn_ds) & 0x3f;
	n = ds ? (ds * 16 + 63) / 64 : 1;
	*nbb = n > avail ? avail : n;
	if (!*nbb)
		*nbb = 1;
}

/* SOFTMLX5_TRACE=wqe: the WQE at @at as the engine first takes it; WQEs
 * sent again after a go-back-N are not traced twice (their packets are). */
static void eng_sq_trace(struct eng_qp *q, uint16_t at, uint16_t pi)
{
	const struct fw_qp *qp = q->qp;
	uint8_t wqe[16 * 64], opcode;	/* DS <= 63: at most 16 WQEBBs */
	uint32_t nbb;
	int t;

	if ((int16_t)(at - q->trace_next) < 0)
		return;
	eng_sq_peek(qp, at, (uint16_t)(pi - at), &opcode, &nbb);
	if (nbb > 16)
		nbb = 16;
	if (!eng_sq_copy(qp, at, nbb, wqe))
		return;
	t = qp->st == MLX5_QPC_ST_UD ? DEC_SQ_UD : qp->st == MLX5_QPC_ST_DCI ? DEC_SQ_DCI :
	    qp->st == MLX5_QPC_ST_XRC ? DEC_SQ_XRC : DEC_SQ_RC;
	smx_trace_wqe_log(qp->obj.id, t, at, wqe, (size_t)nbb * 64);
	q->trace_next = (uint16_t)(at + nbb);
}

/* ------------------------------------------------------------------ */
/* Completion                                                         */
/* ------------------------------------------------------------------ */

struct sq_err {
	uint8_t syndrome;
	uint32_t seg;
	const char *segname;
	char why[200];
};

#define SQ_FAIL(err, synd, sg, sgname, ...)                                    \
	do {                                                                   \
		(err)->syndrome = MLX5_CQE_SYNDROME_##synd;                    \
		(err)->seg = (sg);                                             \
		(err)->segname = (sgname);                                     \
		snprintf((err)->why, sizeof((err)->why), __VA_ARGS__);         \
	} while (0)

static void eng_sq_cqe(struct eng *e, struct eng_qp *q, uint8_t cqe_opcode,
		       uint8_t syndrome, uint8_t sq_opcode, uint32_t byte_cnt)
{
	struct fw_qp *qp = q->qp;
	struct eng_cqe c = {
		.opcode = cqe_opcode,
		.syndrome = syndrome,
		.sq_opcode = sq_opcode,
		.qpn = qp->obj.id,
		.wqe_counter = q->sq_ci,
		.byte_cnt = byte_cnt,
		.srqn_uidx = DEVX_GET(qpc, qp->qpc, user_index),
	};

	if (qp->scq)
		eng_cqe_post(e, qp->scq, &c);
}

/* The DCI stream channel of the WQE at @idx (0 when unreadable). */
static uint16_t eng_sq_stream(const struct fw_qp *qp, uint16_t idx)
{
	uint8_t bb[64];

	if (!eng_sq_copy(qp, idx, 1, bb))
		return 0;
	return be16toh(((const struct mlx5_wqe_ctrl_seg *)bb)
		       ->dci_stream_channel_id);
}

static bool eng_sq_stream_errored(const struct fw_qp *qp, uint16_t id)
{
	uint32_t i;

	for (i = 0; i < qp->dci_nerr; i++)
		if (qp->dci_err_ids[i] == id)
			return true;
	return false;
}

/*
 * Completes the WQE at sq_ci in error. The QP goes to ERR, except on a DCI
 * with stream channels while fewer than 2^log_num_dci_errored_streams
 * streams are errored: then only the WQE's stream is; returns true when
 * the QP carries on.
 */
static bool eng_sq_fail(struct eng *e, struct eng_qp *q, const struct sq_err *err)
{
	struct fw_qp *qp = q->qp;
	uint16_t avail = (uint16_t)(eng_sq_pi(qp) - q->sq_ci);
	uint16_t stream = 0;
	bool streams = fw_qp_dci_streams(qp);
	uint8_t opcode;
	uint32_t nbb;

	eng_sq_peek(qp, q->sq_ci, avail ? avail : 1, &opcode, &nbb);
	if (streams)
		stream = eng_sq_stream(qp, q->sq_ci);
	smx_dbg("engine: qp 0x%x wqe %u seg %u (%s): %s -> %s", qp->obj.id,
		q->sq_ci, err->seg, err->segname, err->why,
		eng_synd_str(err->syndrome));
	eng_sq_cqe(e, q, MLX5_CQE_REQ_ERR, err->syndrome, opcode, 0);
	q->sq_ci += (uint16_t)nbb;
	q->attempted = false;
	q->have_resp = false;
	q->wait = ENG_WAIT_NONE;
	if (streams) {
		uint32_t limit = 1u << DEVX_GET(qpc, qp->qpc,
						log_num_dci_errored_streams);

		if (!eng_sq_stream_errored(qp, stream) &&
		    qp->dci_nerr < (1u << FW_LOG_MAX_DCI_ERRORED))
			qp->dci_err_ids[qp->dci_nerr++] = stream;
		if (qp->dci_nerr < limit) {
			smx_dbg("engine: dci 0x%x stream %u errored (%u of %u)",
				qp->obj.id, stream, qp->dci_nerr, limit);
			return true;
		}
		smx_dbg("engine: dci 0x%x: %u streams errored -> ERR",
			qp->obj.id, qp->dci_nerr);
	}
	eng_qp_to_err(e, qp);
	return false;
}

void eng_sq_flush(struct eng *e, struct eng_qp *q)
{
	struct fw_qp *qp = q->qp;
	uint16_t pi;

	if (!qp->sq_wqebbs || !qp->dbrec)
		return;
	pi = eng_sq_pi(qp);
	while (q->sq_ci != pi) {
		uint8_t opcode;
		uint32_t nbb;

		eng_sq_peek(qp, q->sq_ci, (uint16_t)(pi - q->sq_ci), &opcode,
			    &nbb);
		eng_sq_cqe(e, q, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
			   opcode, 0);
		q->sq_ci += (uint16_t)nbb;
	}
	q->attempted = false;
	q->wait = ENG_WAIT_NONE;
	q->nout = 0;
	q->nrd = 0;
	q->sq_tx = q->sq_ci;
}

void eng_sq_free(struct eng *e, struct eng_qp *q)
{
	eng_resp_free(e, q);
}

/* ------------------------------------------------------------------ */
/* One WQE                                                            */
/* ------------------------------------------------------------------ */

enum sq_step {
	SQ_DONE,	/* completed, sq_ci moved */
	SQ_PARK,	/* waiting (ENG_WAIT_RESP: sent to another process) */
	SQ_FAILED,
	SQ_BLOCK,	/* not at the head: must wait for an empty window */
};

struct sq_wqe {
	const struct eng_opdesc *d;
	uint8_t opcode;
	uint32_t nbb;
	bool signaled;
	struct eng_pkt pkt;
	struct eng_sge sge[ENG_MAX_SGE];
	struct eng_sgl data;		/* gather or scatter list */
	const struct mlx5_wqe_av *av;	/* UD */
	/* Gather entries through signature keys (eng_sig.c): their wire
	 * bytes are produced into sigbuf just before the message leaves. */
	uint8_t nsig;
	uint8_t sig_idx[ENG_MAX_SGE];
	uint8_t *sigbuf;
};

/*
 * Zeroes a packet in 32-byte pieces: GCC's generic tuning turns one memset of
 * a known size above 32 bytes into rep stos, whose start-up cost more than
 * the rest of the decode on the per-WQE path.
 */
static inline void eng_pkt_clear(struct eng_pkt *p)
{
	uint8_t *b = (uint8_t *)p;
	size_t n = sizeof(*p);

	for (; n >= 32; b += 32, n -= 32)
		memset(b, 0, 32);
	memset(b, 0, n);
}

/* Parses and checks the WQE in e->wqe; builds w->pkt. */
static int eng_sq_decode(struct eng *e, struct eng_qp *q, struct sq_wqe *w,
			 uint16_t at, uint16_t avail, struct sq_err *err)
{
	struct fw_qp *qp = q->qp;
	uint8_t *b = e->wqe;
	const struct mlx5_wqe_ctrl_seg *ctrl = (const void *)b;
	uint32_t opmod_idx_opcode = be32toh(ctrl->opmod_idx_opcode);
	uint32_t qpn_ds = be32toh(ctrl->qpn_ds);
	uint32_t ds = qpn_ds & 0x3f, end = ds * 16, off = 16, segno = 1;
	struct eng_pkt *p = &w->pkt;
	uint32_t need;

	w->opcode = opmod_idx_opcode & 0xff;
	w->nsig = 0;
	w->nbb = ds ? (ds * 16 + 63) / 64 : 1;
	w->d = &eng_opdesc[w->opcode];
	w->signaled = ((ctrl->fm_ce_se >> 2) & 3) >= 2;
	if (!ds) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "ctrl", "DS is 0");
		return -1;
	}
	if (w->nbb > avail) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "ctrl", "DS %u needs %u WQEBBs, "
			"only %u posted", ds, w->nbb, avail);
		return -1;
	}
	if (w->nbb > 1 && !eng_sq_copy(qp, (uint16_t)(at + 1),
				       w->nbb - 1, b + 64)) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "ctrl", "WQE outside the SQ");
		return -1;
	}
	if ((qpn_ds >> 8) != qp->obj.id) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "ctrl", "qpn 0x%x in the "
			"control segment, the WQE is on qp 0x%x", qpn_ds >> 8,
			qp->obj.id);
		return -1;
	}
	if (!w->d->name || !(w->d->qp_types & (1u << qp->st))) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "ctrl", "opcode 0x%x (%s) is "
			"not supported on a %s QP", w->opcode,
			w->d->name ? w->d->name : "unknown",
			eng_st_name[qp->st & 0xf] ? eng_st_name[qp->st & 0xf] :
			"?");
		return -1;
	}
	if (w->d->flags & (OPF_UMR | OPF_MMO | OPF_PSV))
		return 0;	/* own layouts: eng_umr_exec(), eng_sq_mmo(),
				 * eng_sig_set_psv() */
	if ((w->d->flags & OPF_ATOMIC) && (opmod_idx_opcode >> 24)) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "ctrl", "extended atomic "
			"(opmod %u) is not supported", opmod_idx_opcode >> 24);
		return -1;
	}

	eng_pkt_clear(p);
	p->op = w->d->pkt_op;
	p->st = (uint8_t)qp->st;
	p->sqpn = qp->obj.id;
	if (w->d->flags & OPF_IMM) {
		p->flags |= ENG_PKT_F_IMM;
		p->imm = ctrl->imm;
	}
	if (w->d->flags & OPF_INV) {
		p->flags |= ENG_PKT_F_INV;
		p->inv_rkey = be32toh(ctrl->imm);
	}
	if (ctrl->fm_ce_se & MLX5_WQE_CTRL_SOLICITED)
		p->flags |= ENG_PKT_F_SE;

	if (qp->st == MLX5_QPC_ST_XRC) {
		if (off + 16 > end) {
			SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "xrc",
				"DS %u ends before the XRC segment", ds);
			return -1;
		}
		p->xrc_srqn = be32toh(*(const uint32_t *)(b + off)) & 0xffffff;
		off += 16;
		segno++;
	}
	if (qp->st == MLX5_QPC_ST_UD || qp->st == MLX5_QPC_ST_DCI) {
		if (off + sizeof(struct mlx5_wqe_av) > end) {
			SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "datagram",
				"DS %u ends before the address vector", ds);
			return -1;
		}
		w->av = (const struct mlx5_wqe_av *)(b + off);
		off += sizeof(struct mlx5_wqe_av);
		segno++;
	}
	if (w->d->flags & OPF_RADDR) {
		const struct mlx5_wqe_raddr_seg *r = (const void *)(b + off);

		if (off + 16 > end) {
			SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "raddr",
				"DS %u ends before the remote address segment",
				ds);
			return -1;
		}
		p->raddr = be64toh(r->raddr);
		p->rkey = be32toh(r->rkey);
		off += 16;
		segno++;
	}
	if (w->d->flags & OPF_ATOMIC) {
		const struct mlx5_wqe_atomic_seg *a = (const void *)(b + off);

		if (off + 16 > end) {
			SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "atomic",
				"DS %u ends before the atomic segment", ds);
			return -1;
		}
		p->swap_add = be64toh(a->swap_add);
		p->compare = be64toh(a->compare);
		off += 16;
		segno++;
	}

	/* Data: gather (local read) or scatter (local write) list. */
	need = (w->d->flags & OPF_SCATTER) ? ENG_ACC_LW : ENG_ACC_LR;
	w->data.sge = w->sge;
	w->data.n = 0;
	w->data.len = 0;
	while (!(w->d->flags & OPF_NOP) && off < end) {
		uint32_t bc = be32toh(*(const uint32_t *)(b + off));
		struct eng_sge *s = &w->sge[w->data.n];

		if (w->data.n >= ENG_MAX_SGE) {
			SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "data",
				"more than %u data segments", ENG_MAX_SGE);
			return -1;
		}
		if (bc & MLX5_INLINE_SEG) {
			uint32_t len = bc & ~MLX5_INLINE_SEG;

			if (w->d->flags & OPF_SCATTER) {
				SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "inline",
					"inline data on %s", w->d->name);
				return -1;
			}
			if (len > end - off - 4) {
				SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "inline",
					"%u inline bytes run past DS %u", len, ds);
				return -1;
			}
			s->host = b + off + 4;
			s->mk = NULL;
			s->va = 0;
			s->len = len;
			off += (4 + len + 15) & ~15u;
		} else {
			const struct mlx5_wqe_data_seg *d = (const void *)(b + off);
			uint64_t len = bc & 0x7fffffff;
			uint32_t lkey = be32toh(d->lkey);

			if (off + 16 > end) {
				SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "data",
					"data segment cut by DS %u", ds);
				return -1;
			}
			if (!len)
				len = 1ull << 31;	/* PRM: 0 means 2 GiB */
			if (eng_key_check_cached(e, &q->lkey, lkey, qp->pd,
						 need, be64toh(d->addr), len,
						 &s->mk, err->why,
						 sizeof(err->why))) {
				err->syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
				err->seg = segno;
				err->segname = "data";
				return -1;
			}
			s->host = NULL;
			s->va = be64toh(d->addr);
			s->len = len;
			if (eng_xform(s->mk)) {
				if (!(w->d->flags & OPF_GATHER)) {
					SQ_FAIL(err, LOCAL_QP_OP_ERR, segno, "data",
						"signature key 0x%x as the %s "
						"destination is not supported",
						lkey, w->d->name);
					return -1;
				}
				/* len names wire bytes: data and the wire
				 * domain's signatures (eng_sig.c) */
				w->sig_idx[w->nsig++] = (uint8_t)w->data.n;
			}
			off += 16;
		}
		w->data.len += s->len;
		w->data.n++;
		segno++;
	}
	if (w->data.len > (1ull << 31)) {
		SQ_FAIL(err, LOCAL_LENGTH_ERR, segno - 1, "data",
			"message of %llu bytes above 2 GiB",
			(unsigned long long)w->data.len);
		return -1;
	}
	p->len = (uint32_t)w->data.len;
	if ((w->d->flags & OPF_ATOMIC) && p->len != 8 && p->len != 0) {
		SQ_FAIL(err, LOCAL_LENGTH_ERR, segno - 1, "data",
			"atomic result buffer of %u bytes, must be 8", p->len);
		return -1;
	}
	if (w->d->flags & OPF_GATHER)
		p->payload = &w->data;
	if (w->d->flags & OPF_SCATTER)
		p->rdata = &w->data;
	return 0;
}

/*
 * MMO WQE, opmod 1 (DMA memcpy): ctrl, an MMO metadata segment
 * (mmo_control, local_key + local_address: a scratch key of the QP's PD),
 * then two data segments, source and destination, of one length (0 means
 * 2 GiB). The copy happens locally: the source needs local read, the
 * destination local write, both in the QP's PD. Returns the CQE syndrome,
 * 0 on success; *len is the byte count.
 */
#define ENG_DMA_MMO_MAX (1ull << 20)	/* log_dma_mmo_max_size in fw_caps.c */

static uint8_t eng_sq_mmo(struct eng *e, struct fw_qp *qp, const uint8_t *b,
			  uint64_t *len, struct sq_err *err)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = (const void *)b;
	uint32_t opmod = be32toh(ctrl->opmod_idx_opcode) >> 24;
	uint32_t ds = be32toh(ctrl->qpn_ds) & 0x3f;
	const struct mlx5_wqe_data_seg *d = (const void *)(b + 32);
	struct eng_sge sge[2];
	struct eng_sgl src = { &sge[0], 1, 0 }, dst = { &sge[1], 1, 0 };
	struct fw_mkey *scratch;
	uint64_t l[2];
	int i;

	*len = 0;
	err->segname = "mmo";
	err->seg = 1;
	if (opmod != 1) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "ctrl", "MMO opmod %u is not "
			"DMA (1)", opmod);
		return err->syndrome;
	}
	if (ds < 4) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "ctrl", "DMA MMO WQE of DS %u, "
			"needs 4", ds);
		return err->syndrome;
	}
	if (eng_key_check(e, be32toh(*(const uint32_t *)(b + 20)), qp->pd, 0,
			  be64toh(*(const uint64_t *)(b + 24)), 0, &scratch,
			  err->why, sizeof(err->why))) {
		err->syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		return err->syndrome;
	}
	for (i = 0; i < 2; i++) {
		l[i] = be32toh(d[i].byte_count) & 0x7fffffff;
		if (!l[i])
			l[i] = 1ull << 31;
	}
	if (l[0] != l[1] || l[0] > ENG_DMA_MMO_MAX) {
		SQ_FAIL(err, LOCAL_LENGTH_ERR, 2, "data", "DMA of %llu bytes "
			"into %llu (max %llu)", (unsigned long long)l[0],
			(unsigned long long)l[1],
			(unsigned long long)ENG_DMA_MMO_MAX);
		return err->syndrome;
	}
	for (i = 0; i < 2; i++) {
		err->seg = 2 + (uint32_t)i;
		err->segname = i ? "dest" : "src";
		if (eng_key_check(e, be32toh(d[i].lkey), qp->pd,
				  i ? ENG_ACC_LW : ENG_ACC_LR,
				  be64toh(d[i].addr), l[i], &sge[i].mk,
				  err->why, sizeof(err->why))) {
			err->syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			return err->syndrome;
		}
		if (eng_xform(sge[i].mk)) {
			SQ_FAIL(err, LOCAL_QP_OP_ERR, 2 + (uint32_t)i, err->segname,
				"signature key 0x%x in a DMA MMO is not "
				"supported", be32toh(d[i].lkey));
			return err->syndrome;
		}
		sge[i].host = NULL;
		sge[i].va = be64toh(d[i].addr);
		sge[i].len = l[i];
	}
	src.len = dst.len = l[0];
	if (eng_sgl_copy(&dst, 0, &src, 0, l[0]) != l[0]) {
		char f[96];

		SQ_FAIL(err, LOCAL_PROT_ERR, 2, "src", "DMA of %llu bytes: %s",
			(unsigned long long)l[0], eng_fault_why(f, sizeof(f)));
		return err->syndrome;
	}
	*len = l[0];
	return 0;
}

/* The address vector of a UD or DC WQE (mlx5_wqe_av): destination QP or
 * DCT, key, and the GRH fields a RoCE packet's IP header is built from --
 * the source GID index, traffic class, hop limit and flow label travel in
 * the AV, not in the QP's context, for both. */
static bool sq_av_address(struct eng *e, struct eng_qp *eq, struct sq_wqe *w,
			  struct sq_err *err)
{
	const struct smx_config *cfg = fw_config(e->fw);
	const struct mlx5_wqe_av *av = w->av;
	const uint8_t *q = eq->qp->qpc;
	struct eng_pkt *p = &w->pkt;
	uint32_t fl = be32toh(av->grh_gid_fl);
	bool grh = cfg->link_layer == SMX_LINK_ETH || (fl >> 30) & 1;
	const char *seg = eq->qp->st == MLX5_QPC_ST_UD ? "datagram" : "DC address";

	p->dqpn = be32toh(av->dqp_dct) & 0xffffff;
	if (eq->qp->st == MLX5_QPC_ST_UD) {
		uint32_t qkey = be32toh(av->key.qkey.qkey);

		/* A qkey with the high bit set means "use the QP's". */
		p->qkey = qkey & 0x80000000u ? DEVX_GET(qpc, q, q_key) : qkey;
	} else {
		p->dc_key = be64toh(av->key.dc_key);
		p->dc_gen = eq->dc_gen;
	}
	p->tclass = av->tclass;
	p->hop_limit = av->hop_limit;
	p->flow_label = fl & 0xfffff;
	memcpy(p->dgid, av->rgid, 16);
	if (!fw_gid(e->fw, (fl >> 20) & 0xff, p->sgid)) {
		if (grh || eq->qp->st == MLX5_QPC_ST_UD) {
			SQ_FAIL(err, LOCAL_QP_OP_ERR, 1, seg, "source GID "
				"index %u is empty", (fl >> 20) & 0xff);
			return false;
		}
		memset(p->sgid, 0, 16);	/* the port's first (eng_fabric_l3) */
	}
	if (!grh)
		return be16toh(av->rlid) == cfg->lid;
	/* RoCEv2: one IP header, so both GIDs of one family. */
	if (cfg->link_layer == SMX_LINK_ETH &&
	    roce_gid_is_v4(p->sgid) != roce_gid_is_v4(p->dgid)) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 1, seg, "source GID index %u is "
			"IPv%c, the destination GID IPv%c", (fl >> 20) & 0xff,
			roce_gid_is_v4(p->sgid) ? '4' : '6',
			roce_gid_is_v4(p->dgid) ? '4' : '6');
		return false;
	}
	return eng_fabric_routed(e, p->dgid);
}

/* Where the message goes; false when the path leads off this device. */
static bool eng_sq_address(struct eng *e, struct eng_qp *eq, struct sq_wqe *w,
			   struct sq_err *err)
{
	const struct smx_config *cfg = fw_config(e->fw);
	struct fw_qp *qp = eq->qp;
	struct eng_pkt *p = &w->pkt;
	const uint8_t *q = qp->qpc;

	if (qp->st == MLX5_QPC_ST_UD || qp->st == MLX5_QPC_ST_DCI)
		return sq_av_address(e, eq, w, err);
	if (!(e->fast && eq->route_ok && eq->route_gen == e->gen)) {
		bool grh = cfg->link_layer == SMX_LINK_ETH ||
			   DEVX_GET(qpc, q, primary_address_path.grh);

		eq->dqpn = DEVX_GET(qpc, q, remote_qpn);
		memset(eq->sgid, 0, 16);
		memset(eq->rgid, 0, 16);
		if (grh) {
			/* (an empty source entry: the port's first GID,
			 * eng_fabric_l3()) */
			memcpy(eq->rgid, DEVX_ADDR_OF(qpc, q,
				primary_address_path.rgid_rip), 16);
			fw_gid(e->fw, DEVX_GET(qpc, q,
				primary_address_path.src_addr_index), eq->sgid);
			eq->routed = eng_fabric_routed(e, eq->rgid);
		} else {
			eq->routed = DEVX_GET(qpc, q,
					      primary_address_path.rlid) ==
				     cfg->lid;
		}
		eq->peer = eng_fabric_peer(e, eq->rgid, eq->dqpn);
		eq->route_gen = e->gen;
		eq->route_ok = true;
	}
	p->dqpn = eq->dqpn;
	memcpy(p->sgid, eq->sgid, 16);
	memcpy(p->dgid, eq->rgid, 16);
	return eq->routed;
}

/* eng_fabric_peer() of the message's destination (cached for a connected
 * QP by eng_sq_address()). */
static int eng_sq_peer(struct eng *e, const struct eng_qp *q,
		       const struct eng_pkt *p)
{
	if (e->fast && q->route_ok && q->route_gen == e->gen &&
	    p->dqpn == q->dqpn && !memcmp(p->dgid, q->rgid, 16))
		return q->peer;
	return eng_fabric_peer(e, p->dgid, p->dqpn);
}

/* Go-back-N: forget what is in flight; sq_tx returns to the oldest WQE
 * (sq_ci), PSNs after it are handed out again, and responses to what was
 * sent so far are stale. */
/*
 * After a go-back the WQEs that were in flight are executed again and take
 * the PSNs they had. Each must go as a packet again, never by direct
 * placement or the fast lane: the responder may have executed it already,
 * and only its old PSN lets it see a duplicate (an atomic replayed, not
 * executed twice) -- and a WQE that took no PSN would shift every later
 * one.
 */
static bool eng_sq_resending(struct eng_qp *q)
{
	if (q->resending &&
	    eng_psn_diff(DEVX_GET(qpc, q->qp->qpc, next_send_psn),
			 q->resend_end) >= 0)
		q->resending = false;
	return q->resending;
}

static void eng_sq_rewind(struct eng *e, struct eng_qp *q)
{
	struct eng_out *o = &q->out[q->out_head];
	uint32_t hi, i;

	if (!q->nout)
		return;
	(void)e;
	hi = DEVX_GET(qpc, q->qp->qpc, next_send_psn);
	if (!q->resending || eng_psn_diff(hi, q->resend_end) > 0)
		q->resend_end = hi;
	q->resending = true;
	/* Responses are taken in PSN order, so only the oldest unanswered
	 * request can be a READ half placed. */
	q->rd_resume = false;
	q->tx_resume = false;
	for (i = 0; i < q->nout; i++) {
		struct eng_out *x = eng_out_at(q, i);

		if (x->have_resp)
			continue;
		if (x->op == ENG_PKT_READ && x->rd_next) {
			q->rd_resume = true;
			q->rd_resume_psn = x->psn;
			q->rd_resume_k = x->rd_next;
		}
		if (x->nak_k) {
			q->tx_resume = true;
			q->tx_resume_psn = x->psn;
			q->tx_resume_k = x->nak_k;
		}
		break;
	}
	DEVX_SET(qpc, q->qp->qpc, next_send_psn, eng_psn_add(o->psn, o->npkts));
	q->nout = 0;
	q->nrd = 0;
	q->sq_tx = q->sq_ci;
	q->tx_blocked = false;
}

static void eng_sq_park(struct eng *e, struct eng_qp *q, uint8_t why,
			uint64_t ns)
{
	if (why == ENG_WAIT_RESP && q->wait == ENG_WAIT_RESP &&
	    eng_clock(e) < q->deadline)
		return;	/* the timer runs for the oldest request */
	if (why != ENG_WAIT_RESP)
		eng_sq_rewind(e, q);
	q->wait = why;
	q->deadline = ns == UINT64_MAX ? UINT64_MAX : eng_clock(e) + ns;
	eng_timer_note(e, q->deadline);
}

static bool eng_sq_unreliable(const struct fw_qp *qp)
{
	return qp->st == MLX5_QPC_ST_UC || qp->st == MLX5_QPC_ST_UD;
}

/* How long the oldest request may wait for its response. */
static uint64_t eng_sq_resp_timeout(const struct fw_qp *qp)
{
	uint64_t t = eng_sq_unreliable(qp) ? UINT64_MAX :
		     eng_ack_timeout_ns(DEVX_GET(qpc, qp->qpc,
					primary_address_path.ack_timeout));

	return t == UINT64_MAX ? 1000000000ull : t;
}

/*
 * Adaptive retransmission, as ConnectX does it (roce_adp_retrans): a
 * reliable QP with an ACK timer whose peer took every packet sent to it
 * and answered none within ENG_ADP_RTO_NS (doubled each time until heard)
 * lost one, so it goes back then rather than after the QP's own timeout
 * -- 4.096 us x 2^timeout, often tens of milliseconds, a stall per tail
 * loss. The QP's own timer keeps running from tmo_since and alone spends
 * retries and ends in RETRY_EXC, so what fails and when is unchanged.
 */
#define ENG_ADP_RTO_NS 1000000ull

/* The adaptive timer's first value towards the oldest request's peer: a
 * link may ask for more (the network's, whose far end we cannot see). */
static uint64_t eng_sq_rto_min(const struct eng *e, const struct eng_qp *q)
{
	uint64_t t = eng_fabric_link(e, q->peer_slot)->rto_ns;

	return t ? t : ENG_ADP_RTO_NS;
}

static bool eng_sq_adaptive(const struct eng *e, const struct fw_qp *qp)
{
	return e->adaptive && eng_sq_reliable(qp->st) &&
	       DEVX_GET(qpc, qp->qpc, primary_address_path.ack_timeout);
}

/* How long the oldest request waits for its response from now. */
static uint64_t eng_sq_resp_wait(struct eng *e, struct eng_qp *q)
{
	uint64_t full = eng_sq_resp_timeout(q->qp), now = eng_clock(e), end;

	if (!eng_sq_adaptive(e, q->qp))
		return full;
	end = q->tmo_since + full;
	if (end <= now)
		return 0;
	if (q->rto_ns < eng_sq_rto_min(e, q))
		q->rto_ns = eng_sq_rto_min(e, q);
	return q->rto_ns < end - now ? q->rto_ns : end - now;
}

/* How long to wait before looking again at a peer (or our own inbox) that
 * looked stalled when the timer ran out: a stopped process waits as long
 * as the QP's timeout allows for each look; a busy one caught between two
 * batches must not cost a whole timeout (tens of ms at perftest's 14), so
 * with the adaptive timer the looks come at its pace, doubling (the
 * caller has just restarted the timer: eng_sq_resp_wait() from now). */
static uint64_t eng_sq_stall_wait(struct eng *e, struct eng_qp *q)
{
	uint64_t t = eng_sq_resp_wait(e, q);	/* tmo_since is now */

	if (eng_sq_adaptive(e, q->qp) && t == q->rto_ns)
		q->rto_ns *= 2;
	return t;
}

void eng_sq_heard(struct eng *e, struct eng_qp *q)
{
	q->progress_ns = q->tmo_since = eng_clock(e);
	q->rto_ns = eng_sq_rto_min(e, q);
}

static uint32_t eng_sq_window(const struct fw_qp *qp)
{
	switch (qp->st) {
	case MLX5_QPC_ST_RC:
	case MLX5_QPC_ST_XRC:
	case MLX5_QPC_ST_UC:
	case MLX5_QPC_ST_UD:
		return ENG_SQ_WINDOW;
	default:
		return 1;	/* other transports: stop-and-wait */
	}
}

/* May the decoded WQE at sq_tx go out behind the ones in flight? */
static bool eng_sq_may_pipeline(struct eng *e, struct eng_qp *q,
				const struct sq_wqe *w)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = (const void *)e->wqe;
	bool rd = w->pkt.op == ENG_PKT_READ || w->pkt.op == ENG_PKT_CMP_SWAP ||
		  w->pkt.op == ENG_PKT_FETCH_ADD;

	if (w->d->flags & OPF_NOP)
		return false;	/* NOP, UMR, MMO: local, in order */
	if (ctrl->fm_ce_se & 0xe0)
		return false;	/* fence: after everything before it */
	if (rd && q->nrd >= 1u << DEVX_GET(qpc, q->qp->qpc, log_sra_max))
		return false;
	return true;
}

/* Sends the WQE at @at to process @slot as packets and records it in the
 * window: 0 all sent, -EAGAIN the peer's inbox is full (nothing sent: the
 * WQE stays where it is; part sent: the rest goes when room is made,
 * eng_sq_continue()), -EFAULT a page of the gather list is not mapped. */
static int eng_sq_send(struct eng *e, struct eng_qp *q, struct sq_wqe *w,
		       uint16_t at, uint32_t slot, uint32_t mtu)
{
	struct eng_out *o = eng_out_at(q, q->nout);
	bool rd = w->pkt.op == ENG_PKT_READ || w->pkt.op == ENG_PKT_CMP_SWAP ||
		  w->pkt.op == ENG_PKT_FETCH_ADD;
	int rc;

	memset(o, 0, sizeof(*o));
	o->psn = w->pkt.psn;
	o->npkts = w->pkt.npkts;
	o->slot = slot;
	o->at = at;
	o->nbb = (uint16_t)w->nbb;
	o->op = w->pkt.op;
	o->len = w->pkt.len;
	if (q->rd_resume && o->op == ENG_PKT_READ &&
	    o->psn == q->rd_resume_psn && q->rd_resume_k < o->npkts) {
		/* What was placed before the go-back stays placed. */
		o->rd_from = o->rd_next = q->rd_resume_k;
		q->rd_resume = false;
	}
	if (q->tx_resume && (o->op == ENG_PKT_SEND || o->op == ENG_PKT_WRITE) &&
	    o->psn == q->tx_resume_psn && q->tx_resume_k < o->npkts) {
		/* What arrived before the NAK'd packet stays arrived. */
		o->sent = q->tx_resume_k;
		q->tx_resume = false;
	}
	rc = eng_fabric_send(e, &w->pkt, mtu, o, slot,
			     !eng_dst_net(slot) &&
			     (eng_direct_want(e, slot, &w->pkt) ||
			      eng_drq_want(e, q, slot, &w->pkt)));
	if (rc == -EAGAIN)
		q->tx_blocked = true;
	if (rc && !o->sent)
		return rc;
	if (!q->nout) {
		q->peer_slot = slot;
		q->peer_gen = smx_shm_slot_gen(e->shm, slot);
		q->progress_ns = eng_clock(e);
		if (!q->resending)	/* a go-back keeps the timer running */
			q->tmo_since = q->progress_ns;
	}
	q->nout++;
	q->nrd += rd;
	eng_compl_late(q, o);
	q->sq_tx = (uint16_t)(at + w->nbb);
	if (at != q->sq_ci)
		DEVX_SET(qpc, q->qp->qpc, next_send_psn,
			 eng_psn_add(w->pkt.psn, w->pkt.npkts));
	/* Unacknowledged transports: sent is done. */
	if (!rc && eng_sq_unreliable(q->qp)) {
		o->have_resp = true;
		o->resp.ack = ENG_ACK_OK;
	}
	return rc == -EAGAIN ? 0 : rc;
}

/* The oldest WQE in flight completed: the next one becomes the oldest. */
static void eng_sq_pop(struct eng *e, struct eng_qp *q)
{
	struct eng_out *o = &q->out[q->out_head];

	q->nrd -= o->op != ENG_PKT_SEND && o->op != ENG_PKT_WRITE;
	q->nout--;
	q->out_head = (uint8_t)((q->out_head + 1) & (ENG_SQ_WINDOW - 1));
	if (!q->nout) {
		q->sq_tx = q->sq_ci;
		if (q->wait == ENG_WAIT_RESP)
			q->wait = ENG_WAIT_NONE;
		return;
	}
	/* Its retry counters and PSN now count (eng_sq_exec at sq_ci). */
	o = &q->out[q->out_head];
	eng_sq_heard(e, q);
	q->attempted = true;
	q->wqe_psn = o->psn;
	q->rnr_left = (uint8_t)DEVX_GET(qpc, q->qp->qpc, rnr_retry);
	q->retry_left = (uint8_t)DEVX_GET(qpc, q->qp->qpc, retry_count);
	q->nak_retry = false;
	q->peer_slot = o->slot;
	q->wait = ENG_WAIT_RESP;
	q->deadline = eng_clock(e) + eng_sq_resp_wait(e, q);
	eng_timer_note(e, q->deadline);
}

/*
 * The wire bytes of the gather entries through signature keys: data read
 * through the key's layout, memory signatures checked, wire signatures
 * made. A failed check is reported now -- a signature error CQE before the
 * WQE's own completion -- and on a drain_sigerr QP stops the send queue in
 * SQD once this WQE is done (eng_sq_sig_drained()).
 */
#define ENG_SIG_MAX_BYTES (1ull << 30)

static int eng_sq_sig_gather(struct eng *e, struct eng_qp *q, struct sq_wqe *w,
			     struct sq_err *err)
{
	uint64_t total = 0, pos = 0;
	uint32_t i;

	for (i = 0; i < w->nsig; i++)
		total += w->sge[w->sig_idx[i]].len;
	if (total > ENG_SIG_MAX_BYTES) {
		SQ_FAIL(err, LOCAL_LENGTH_ERR, 0, "data", "%llu bytes through "
			"signature keys in one WQE (at most %llu)",
			(unsigned long long)total,
			(unsigned long long)ENG_SIG_MAX_BYTES);
		return -1;
	}
	w->sigbuf = malloc(total ? total : 1);
	if (!w->sigbuf) {
		SQ_FAIL(err, LOCAL_QP_OP_ERR, 0, "data", "no memory for %llu "
			"signature-transformed bytes", (unsigned long long)total);
		return -1;
	}
	for (i = 0; i < w->nsig; i++) {
		struct eng_sge *s = &w->sge[w->sig_idx[i]];
		struct eng_sig_err se = { 0 };

		if (eng_sig_read(s->mk, s->va, s->len, w->sigbuf + pos, &se)) {
			SQ_FAIL(err, LOCAL_PROT_ERR, 1u + w->sig_idx[i], "data",
				"key 0x%x: %s", s->mk->obj.id << 8 | s->mk->variant,
				se.why);
			return -1;
		}
		if (se.set) {
			eng_sig_report(e, q->qp->scq, s->mk, q->qp->obj.id, &se);
			if (DEVX_GET(qpc, q->qp->qpc, drain_sigerr))
				q->sig_drain = true;
		}
		s->host = w->sigbuf + pos;
		s->mk = NULL;
		pos += s->len;
	}
	return 0;
}

/* A drain_sigerr QP after a signature error: the send queue stops in SQD
 * at the next WQE, which software may cancel before going back to RTS. */
static void eng_sq_sig_drained(struct eng *e, struct eng_qp *q)
{
	struct fw_qp *qp = q->qp;

	q->sig_drain = false;
	qp->state = MLX5_QPC_STATE_SQD;
	DEVX_SET(qpc, qp->qpc, state, MLX5_QPC_STATE_SQD);
	DEVX_SET(qpc, qp->qpc, hw_sq_wqebb_counter, q->sq_ci);
	smx_dbg("engine: qp 0x%x stopped in SQD at WQEBB 0x%x after a "
		"signature error (drain_sigerr)", qp->obj.id, q->sq_ci);
	eng_async_event(e, ENG_EVT_SQ_DRAINED, qp->obj.id, false, qp->obj.uid);
}

static enum sq_step eng_sq_exec_wqe(struct eng *e, struct eng_qp *q, uint16_t pi,
				    uint16_t at, struct sq_wqe *wp);

/* READ data or an atomic's original value (@len bytes at @src) into the
 * WQE's scatter list: false (@err, LOCAL_PROT_ERR) when the application
 * unmapped a page of it. */
static bool eng_sq_land(struct sq_wqe *w, const uint8_t *src, uint32_t len,
			struct sq_err *err)
{
	struct eng_sge s = { (uint8_t *)src, NULL, 0, len };
	struct eng_sgl one = { &s, 1, len };
	char f[96];

	if (eng_sgl_copy(&w->data, 0, &one, 0, len) == len)
		return true;
	SQ_FAIL(err, LOCAL_PROT_ERR, 0, "data", "%s result of %u bytes into "
		"the scatter list: %s", w->d->name, len,
		eng_fault_why(f, sizeof(f)));
	return false;
}

/* Before a responder copies the WQE's own gather (SEND, WRITE) or scatter
 * (READ) list directly, in this process: a fault there is a local
 * protection error here, not the responder's access error. */
static bool eng_sq_probe(struct sq_wqe *w, struct sq_err *err)
{
	bool rd = w->pkt.op == ENG_PKT_READ;
	char f[96];

	if ((!w->pkt.payload && !rd) || !w->pkt.len ||
	    w->pkt.op == ENG_PKT_CMP_SWAP || w->pkt.op == ENG_PKT_FETCH_ADD ||
	    eng_sgl_probe(&w->data, w->pkt.len, rd))
		return true;
	SQ_FAIL(err, LOCAL_PROT_ERR, 0, "data", "%s of %u bytes: %s list: %s",
		w->d->name, w->pkt.len, rd ? "scatter" : "gather",
		eng_fault_why(f, sizeof(f)));
	return false;
}

/*
 * The common one-sided case, executed without the general decode: the WQE
 * at sq_ci is an RDMA WRITE (RC, UC) or READ (RC) of one WQEBB --
 * control, remote address and one pointer data segment over contiguous
 * memory, or (WRITE) one inline segment of up to 28 bytes -- on a connected
 * QP whose route (cached, so checked since the last
 * eng_gen_bump()) leads to another process, nothing is in flight, and direct
 * placement takes it. The checks are the general path's own (the lkey
 * through q->lkey, eng_direct_rdma() as eng_direct_exec()); anything else,
 * including every failure, returns false with nothing changed but caches,
 * and the general path takes the WQE (and reports what is wrong with it;
 * a local page that faulted may have left part of a WRITE placed).
 * The WQEBB is read once into a private copy, as the general path copies
 * the WQE before decoding it; inline data is placed from that copy.
 */
static bool eng_sq_fast(struct eng *e, struct eng_qp *q)
{
	struct fw_qp *qp = q->qp;
	struct {
		struct mlx5_wqe_ctrl_seg ctrl;
		struct mlx5_wqe_raddr_seg ra;
		union {
			struct mlx5_wqe_data_seg ds;
			uint8_t inl[32];	/* byte count, then data */
		};
	} w;
	const uint8_t *src;
	uint32_t qpn_ds, ds, bc, lkey, need;
	uint64_t va, contig = 0, at;
	uint8_t opcode;
	struct fw_mkey *mk;
	uint8_t *local;
	bool read, app = true;	/* @local is memory an lkey names */

	if (!q->route_ok || q->route_gen != e->gen || !q->routed ||
	    q->peer < 0 || eng_dst_net(q->peer) || q->nout || q->attempted ||
	    q->have_resp ||
	    q->wait != ENG_WAIT_NONE || eng_sq_resending(q))
		return false;
	at = qp->sq_offset + (uint64_t)(q->sq_ci & (qp->sq_wqebbs - 1)) * 64;
	/* fw_buf_addr(), its contiguous case inline. */
	src = qp->buf.base && at < qp->buf.size ? qp->buf.base + at :
	      fw_buf_addr(&qp->buf, at);
	if (!src)
		return false;
	/* Only WRITE and READ: the opcode's byte first (the copy below is
	 * what the decision uses; a SEND costs no more than this look). */
	opcode = src[3];
	if (opcode != MLX5_OPCODE_RDMA_WRITE && opcode != MLX5_OPCODE_RDMA_READ)
		return false;
	memcpy(&w, src, sizeof(w));
	qpn_ds = be32toh(w.ctrl.qpn_ds);
	ds = qpn_ds & 0x3f;
	opcode = (uint8_t)be32toh(w.ctrl.opmod_idx_opcode);
	bc = be32toh(w.ds.byte_count);
	if ((qpn_ds >> 8) != qp->obj.id)
		return false;
	if (bc & MLX5_INLINE_SEG) {
		/* Inline WRITE: the data follows its 4-byte count and is
		 * the WQE's only data segment, ending in DS 3 or 4 (one
		 * WQEBB). */
		bc &= ~MLX5_INLINE_SEG;
		if (opcode != MLX5_OPCODE_RDMA_WRITE || (ds != 3 && ds != 4) ||
		    !bc || (4 + bc + 15) / 16 != ds - 2 ||
		    qp->st != MLX5_QPC_ST_RC)	/* (deligible()) */
			return false;
		local = w.inl + 4;
		app = false;
		goto place;
	}
	if (ds != 3 || !bc)
		return false;
	read = opcode == MLX5_OPCODE_RDMA_READ;
	need = read ? ENG_ACC_LW : ENG_ACC_LR;
	lkey = be32toh(w.ds.lkey);
	va = be64toh(w.ds.addr);
	/* RC only: direct placement's rule (deligible()) */
	if ((opcode != MLX5_OPCODE_RDMA_WRITE && !read) ||
	    qp->st != MLX5_QPC_ST_RC)
		return false;
	if (eng_key_check_cached(e, &q->lkey, lkey, qp->pd, need, va, bc, &mk,
				 NULL, 0))
		return false;
	/* signature / crypto keys transform their data: the general path */
	if (eng_xform(mk))
		return false;
	local = mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT && !mk->umem ?
		eng_mtt_host(mk, va, bc, &contig) :
		eng_mkey_host(mk, va, &contig);
	if (!local || contig < bc)
		return false;
place:
	if (!eng_direct_rdma(e, (uint32_t)q->peer,
			     opcode == MLX5_OPCODE_RDMA_READ ? ENG_PKT_READ :
			     ENG_PKT_WRITE, (uint8_t)qp->st, q->dqpn,
			     be32toh(w.ra.rkey), be64toh(w.ra.raddr), bc, local,
			     app))
		return false;
	if (((w.ctrl.fm_ce_se >> 2) & 3) >= 2)
		eng_sq_cqe(e, q, MLX5_CQE_REQ, 0, opcode, bc);
	q->sq_ci++;
	e->fast_wqes++;
	return true;
}

/* The path MTU a message of @qp is cut at. */
static uint32_t eng_sq_mtu(struct eng *e, const struct fw_qp *qp)
{
	return qp->st == MLX5_QPC_ST_UD ?
	       eng_mtu_bytes(fw_config(e->fw)->max_mtu) :
	       eng_mtu_bytes(DEVX_GET(qpc, qp->qpc, mtu));
}

/* The WQE of request @o, in flight, decoded and addressed again (the same
 * checks as when it went out) with the PSNs it took; false if it no longer
 * decodes (@err says why). The caller frees w->sigbuf. */
static bool eng_sq_redecode(struct eng *e, struct eng_qp *q,
			    const struct eng_out *o, struct sq_wqe *w,
			    struct sq_err *err)
{
	struct fw_qp *qp = q->qp;

	w->sigbuf = NULL;
	if (!eng_sq_copy(qp, o->at, 1, e->wqe) ||
	    eng_sq_decode(e, q, w, o->at, (uint16_t)(eng_sq_pi(qp) - o->at),
			  err))
		return false;
	eng_sq_address(e, q, w, err);
	if (err->syndrome)
		return false;
	w->pkt.psn = o->psn;
	w->pkt.npkts = o->npkts;
	w->pkt.pkey = 0xffff;
	return true;
}

/*
 * The rest of the newest request in flight, whose packets did not all fit
 * in the peer's inbox: decoded again (same checks) and sent from where it
 * stopped. 0: all out; -EAGAIN: the inbox is full again. A WQE that no
 * longer decodes, or whose memory went, is answered as a local protection
 * error and completes so, in order.
 */
static int eng_sq_continue(struct eng *e, struct eng_qp *q)
{
	struct eng_out *o = eng_out_at(q, q->nout - 1u);
	struct fw_qp *qp = q->qp;
	struct sq_err err = { 0 };
	struct sq_wqe w;
	int rc = -EINVAL;

	if (!eng_sq_redecode(e, q, o, &w, &err) ||
	    (w.nsig && eng_sq_sig_gather(e, q, &w, &err)))
		goto bad;
	rc = eng_fabric_send(e, &w.pkt, eng_sq_mtu(e, qp), o, o->slot, false);
	free(w.sigbuf);
	w.sigbuf = NULL;
	if (rc == -EAGAIN) {
		q->tx_blocked = true;
		return rc;
	}
	if (rc)
		goto bad;
	if (eng_sq_unreliable(qp)) {
		o->have_resp = true;
		o->resp.ack = ENG_ACK_OK;
	}
	return 0;
bad:
	free(w.sigbuf);
	smx_dbg("engine: qp 0x%x wqe %u: the rest of the message cannot be "
		"sent (%s)", qp->obj.id, o->at, err.why[0] ? err.why :
		"its gather list faulted");
	o->sent = o->npkts;
	o->have_resp = true;
	o->resp.ack = ENG_ACK_LOCAL_PROT;
	return 0;
}

/*
 * A READ in flight lost a response (eng_compl_pkt() saw the gap): its
 * request goes again for the rest of the message, from the first missing
 * PSN; what came after it in the window is not resent (the responder
 * serves the READ again from its resources, IBTA's duplicate READ).
 * -EAGAIN: the peer's inbox is full, asked again when it has room.
 */
static int eng_sq_reread(struct eng *e, struct eng_qp *q, struct eng_out *o)
{
	struct fw_qp *qp = q->qp;
	struct sq_err err = { 0 };
	struct eng_out t;
	struct sq_wqe w;
	int rc;

	if (!eng_sq_redecode(e, q, o, &w, &err) || w.pkt.op != ENG_PKT_READ) {
		free(w.sigbuf);
		o->rd_reask = false;	/* the timer's go-back decides */
		return 0;
	}
	t = *o;
	t.sent = 0;
	t.rd_from = o->rd_next;
	rc = eng_fabric_send(e, &w.pkt, eng_sq_mtu(e, qp), &t, o->slot, false);
	free(w.sigbuf);
	if (rc == -EAGAIN) {
		q->tx_blocked = true;
		return rc;
	}
	o->rd_reask = false;
	if (!rc)
		o->rd_from = t.rd_from;
	return 0;
}

/* Re-requests the READs whose responses came with a gap, until the
 * peer's inbox is full (the rest then when it has room). */
static void eng_sq_reread_all(struct eng *e, struct eng_qp *q)
{
	uint32_t i;

	for (i = 0; i < q->nout; i++) {
		struct eng_out *o = eng_out_at(q, i);

		if (o->rd_reask && !o->have_resp && eng_sq_reread(e, q, o))
			break;
	}
}

void eng_sq_progress(struct eng *e, struct eng_qp *q)
{
	if (q->wait != ENG_WAIT_RESP)
		return;
	q->retry_left = (uint8_t)DEVX_GET(qpc, q->qp->qpc, retry_count);
	q->nak_retry = false;
	q->deadline = eng_clock(e) + eng_sq_resp_wait(e, q);
	eng_timer_note(e, q->deadline);
}

bool eng_sq_land_at(struct eng *e, struct eng_qp *q, uint16_t at,
		    uint64_t off, const uint8_t *src, uint32_t len)
{
	struct fw_qp *qp = q->qp;
	struct sq_err err = { 0 };
	struct eng_sge s = { (uint8_t *)src, NULL, 0, len };
	struct eng_sgl one = { &s, 1, len };
	struct sq_wqe w;

	if (!eng_sq_copy(qp, at, 1, e->wqe) ||
	    eng_sq_decode(e, q, &w, at, (uint16_t)(eng_sq_pi(qp) - at), &err) ||
	    w.pkt.op != ENG_PKT_READ || off + len > w.data.len)
		return false;
	return eng_sgl_copy(&w.data, off, &one, 0, len) == len;
}

static enum sq_step eng_sq_exec(struct eng *e, struct eng_qp *q, uint16_t pi,
				uint16_t at)
{
	struct sq_wqe w;
	enum sq_step st;

	w.sigbuf = NULL;
	st = eng_sq_exec_wqe(e, q, pi, at, &w);
	free(w.sigbuf);
	return st;
}

static enum sq_step eng_sq_exec_wqe(struct eng *e, struct eng_qp *q, uint16_t pi,
				    uint16_t at, struct sq_wqe *w)
{
	struct fw_qp *qp = q->qp;
	const uint8_t *qc = qp->qpc;
	struct sq_err err;	/* fields set here, not the 200-byte text */
	struct eng_resp r;
	uint32_t mtu, byte_cnt;
	bool routed;
	int peer;

	err.syndrome = 0;
	err.seg = 0;
	err.segname = NULL;
	err.why[0] = '\0';
	if (!eng_sq_copy(qp, at, 1, e->wqe)) {
		SQ_FAIL(&err, LOCAL_QP_OP_ERR, 0, "ctrl", "WQE outside the SQ");
		goto fail;
	}
	if (qp->dci_nerr && fw_qp_dci_streams(qp) &&
	    eng_sq_stream_errored(qp, be16toh(((const struct mlx5_wqe_ctrl_seg *)
					     e->wqe)->dci_stream_channel_id))) {
		/* A WQE of an errored stream: flushed, the DCI goes on. */
		uint8_t opcode;
		uint32_t nbb;

		eng_sq_peek(qp, q->sq_ci, (uint16_t)(pi - q->sq_ci), &opcode,
			    &nbb);
		eng_sq_cqe(e, q, MLX5_CQE_REQ_ERR,
			   MLX5_CQE_SYNDROME_WR_FLUSH_ERR, opcode, 0);
		q->sq_ci += (uint16_t)nbb;
		return SQ_DONE;
	}
	if (eng_sq_decode(e, q, w, at, (uint16_t)(pi - at), &err))
		goto fail;
	if (at != q->sq_ci && !eng_sq_may_pipeline(e, q, w))
		return SQ_BLOCK;

	if (w->d->flags & OPF_UMR) {
		err.syndrome = eng_umr_exec(e, qp, e->wqe, w->nbb * 64, err.why,
					    sizeof(err.why));
		eng_gen_bump(e);	/* a key changed: caches, peers' records */
		if (err.syndrome) {
			err.segname = "umr";
			err.seg = 1;
			goto fail;
		}
		goto done;
	}
	if (w->d->flags & OPF_PSV) {
		err.syndrome = eng_sig_set_psv(e, qp, e->wqe, w->nbb * 64, err.why,
					       sizeof(err.why));
		if (err.syndrome) {
			err.segname = "set_psv";
			err.seg = 1;
			goto fail;
		}
		goto done;
	}
	if (w->d->flags & OPF_MMO) {
		uint64_t n;

		if (eng_sq_mmo(e, qp, e->wqe, &n, &err))
			goto fail;
		memset(&w->pkt, 0, sizeof(w->pkt));
		w->pkt.len = (uint32_t)n;
		goto done;
	}
	if (w->d->flags & OPF_NOP)
		goto done;

	mtu = eng_sq_mtu(e, qp);
	if (qp->st == MLX5_QPC_ST_UD && w->pkt.len > mtu) {
		SQ_FAIL(&err, LOCAL_LENGTH_ERR, 0, "data", "UD message of %u "
			"bytes above the %u-byte MTU", w->pkt.len, mtu);
		goto fail;
	}
	routed = eng_sq_address(e, q, w, &err);
	if (err.syndrome)
		goto fail;

	if (at != q->sq_ci && (!routed || eng_sq_peer(e, q, &w->pkt) < 0))
		return SQ_BLOCK;
	/* Data through signature keys, unless this is only the completion
	 * of a request another process answered. */
	if (w->nsig && !(at == q->sq_ci && q->have_resp) &&
	    eng_sq_sig_gather(e, q, w, &err))
		goto fail;

	/* Direct placement (eng_direct.c): a WRITE / READ / atomic to
	 * another process with nothing in flight, checked here against the
	 * target's key record and copied into / out of its memory; a SEND
	 * into a receive the peer lent us (eng_drq.c). */
	if (routed && at == q->sq_ci && !q->nout && !q->attempted &&
	    !q->have_resp && !eng_sq_resending(q) &&
	    (peer = eng_sq_peer(e, q, &w->pkt)) >= 0 && !eng_dst_net(peer) &&
	    (w->pkt.op == ENG_PKT_SEND ?
	     eng_drq_send(e, q, &w->pkt, (uint32_t)peer,
			  eng_sq_pi(qp) != (uint16_t)(at + w->nbb)) :
	     eng_direct_exec(e, &w->pkt, (uint32_t)peer, &r.atomic_orig))) {
		e->direct_wqes++;
		/* the original value, in host order */
		if ((w->pkt.op == ENG_PKT_CMP_SWAP ||
		     w->pkt.op == ENG_PKT_FETCH_ADD) && w->data.len &&
		    !eng_sq_land(w, (const uint8_t *)&r.atomic_orig, 8, &err))
			goto fail;
		goto done;
	}

	/* PSNs: a message takes ceil(len / MTU) packets (at least one); a
	 * retransmission reuses them. */
	w->pkt.npkts = w->pkt.len ? (w->pkt.len + mtu - 1) / mtu : 1;
	if (w->pkt.op == ENG_PKT_CMP_SWAP || w->pkt.op == ENG_PKT_FETCH_ADD ||
	    qp->st == MLX5_QPC_ST_UD)
		w->pkt.npkts = 1;
	if (at != q->sq_ci) {
		w->pkt.psn = DEVX_GET(qpc, qc, next_send_psn);
	} else if (!q->attempted) {
		q->attempted = true;
		q->have_resp = false;
		q->wqe_psn = DEVX_GET(qpc, qc, next_send_psn);
		q->rnr_left = DEVX_GET(qpc, qc, rnr_retry);
		q->retry_left = DEVX_GET(qpc, qc, retry_count);
		q->nak_retry = false;
		DEVX_SET(qpc, qp->qpc, next_send_psn,
			 eng_psn_add(q->wqe_psn, w->pkt.npkts));
	}
	if (at == q->sq_ci)
		w->pkt.psn = q->wqe_psn;
	w->pkt.pkey = 0xffff;

	if (q->have_resp) {
		/* Another process answered (the completer, eng_compl.c):
		 * READ data has already landed in this WQE's scatter list. */
		memset(&r, 0, sizeof(r));
		r.ack = q->resp.ack;
		r.rnr_timer = q->resp.rnr_timer;
		r.atomic_orig = q->resp.atomic_orig;
		q->have_resp = false;
		if (r.ack == ENG_ACK_LOCAL_PROT) {
			char f[96];

			SQ_FAIL(&err, LOCAL_PROT_ERR, 0, "data", "READ response "
				"into the scatter list: %s",
				eng_fault_why(f, sizeof(f)));
			goto fail;
		}
	} else if (routed && (peer = eng_sq_peer(e, q, &w->pkt)) >= 0) {
		int rc;
		uint64_t t;

		/* Behind requests in flight, a WQE that direct placement
		 * would take (its record is current) waits for the window
		 * to drain rather than join it: else a requester that keeps
		 * posting never leaves the inbox. */
		if (at != q->sq_ci && !eng_dst_net(peer) &&
		    (eng_direct_ready(e, (uint32_t)peer, &w->pkt) ||
		     eng_drq_ready(e, q, (uint32_t)peer, &w->pkt)))
			return SQ_BLOCK;
		rc = eng_sq_send(e, q, w, at, (uint32_t)peer, mtu);
		if (w->pkt.len >= ENG_CLOCK_STALE_BYTES)
			eng_clock_tick(e);	/* the copy took a while */

		if (rc == -EINVAL || rc == -EFAULT) {
			char f[96];

			err.syndrome = rc == -EFAULT ?
				       MLX5_CQE_SYNDROME_LOCAL_PROT_ERR :
				       MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
			err.segname = "data";
			snprintf(err.why, sizeof(err.why), "%u-byte %s: %s",
				 w->pkt.len, w->pkt.op == ENG_PKT_READ ?
				 "READ" : "gather list",
				 eng_fault_why(f, sizeof(f)));
			goto fail;
		}
		if (rc == 0) {
			/* Park until the response arrives; the ACK timer (or,
			 * without one, a liveness check each second) covers a
			 * peer that never answers. */
			t = eng_sq_reliable(qp->st) ? eng_sq_resp_wait(e, q) :
			    UINT64_MAX;
			eng_sq_park(e, q, ENG_WAIT_RESP,
				    t == UINT64_MAX ? 1000000000ull : t);
			return SQ_PARK;
		}
		/* The peer's inbox is full: we are rung when it has room. */
		return SQ_BLOCK;
	} else if (routed) {
		if (!eng_sq_probe(w, &err))
			goto fail;
		eng_fabric_xmit(e, &w->pkt, &r);
	} else {
		memset(&r, 0, sizeof(r));
		r.ack = ENG_ACK_DROPPED;
	}

	if (qp->st == MLX5_QPC_ST_UC || qp->st == MLX5_QPC_ST_UD)
		goto done;	/* unacknowledged: sent is done */
	switch (r.ack) {
	case ENG_ACK_OK:
		break;
	case ENG_NAK_RNR:
		if (!q->rnr_left) {
			trn_ctr_add(e->ctr, TRN_CTR_RNR_NAK_RETRY_ERR, 1);
			SQ_FAIL(&err, RNR_RETRY_EXC_ERR, 0, "ctrl",
				"RNR NAK from qp 0x%x, RNR retries exhausted "
				"(rnr_retry %u)", w->pkt.dqpn,
				DEVX_GET(qpc, qc, rnr_retry));
			goto fail;
		}
		if (q->rnr_left != 7)
			q->rnr_left--;
		eng_sq_park(e, q, ENG_WAIT_RNR, eng_rnr_timer_ns(r.rnr_timer));
		return SQ_PARK;
	case ENG_NAK_SEQ:
		/* A sequence NAK or an implied one: resend at once, one
		 * retry counted (eng_sq_run). */
		q->retry_why = ENG_RETRY_NAK;
		eng_sq_park(e, q, ENG_WAIT_ACK, 0);
		return SQ_PARK;
	case ENG_ACK_DROPPED:
		q->retry_why = ENG_RETRY_DROPPED;
		eng_sq_park(e, q, ENG_WAIT_ACK,
			    eng_ack_timeout_ns(DEVX_GET(qpc, qc,
						primary_address_path.ack_timeout)));
		return SQ_PARK;
	case ENG_NAK_INV_REQ:
		trn_ctr_add(e->ctr, TRN_CTR_REQ_REMOTE_INVALID_REQUEST, 1);
		SQ_FAIL(&err, REMOTE_INVAL_REQ_ERR, 0, "ctrl", "qp 0x%x "
			"answered NAK invalid request", w->pkt.dqpn);
		goto fail;
	case ENG_NAK_REM_ACCESS:
		trn_ctr_add(e->ctr, TRN_CTR_REQ_REMOTE_ACCESS_ERRORS, 1);
		SQ_FAIL(&err, REMOTE_ACCESS_ERR, w->d->flags & OPF_RADDR ? 1 : 0,
			w->d->flags & OPF_RADDR ? "raddr" : "ctrl",
			"qp 0x%x answered NAK remote access (rkey 0x%x "
			"[0x%llx,+0x%x))", w->pkt.dqpn, w->pkt.rkey,
			(unsigned long long)w->pkt.raddr, w->pkt.len);
		goto fail;
	case ENG_NAK_REM_OP:
	default:
		SQ_FAIL(&err, REMOTE_OP_ERR, 0, "ctrl", "qp 0x%x answered NAK "
			"remote operational error", w->pkt.dqpn);
		goto fail;
	}
	/* the original value, in host order */
	if ((w->pkt.op == ENG_PKT_CMP_SWAP || w->pkt.op == ENG_PKT_FETCH_ADD) &&
	    w->data.len && !eng_sq_land(w, (const uint8_t *)&r.atomic_orig, 8,
					&err))
		goto fail;
done:
	byte_cnt = w->pkt.op == ENG_PKT_CMP_SWAP ||
		   w->pkt.op == ENG_PKT_FETCH_ADD ? 8 : w->pkt.len;
	if (w->signaled)
		eng_sq_cqe(e, q, MLX5_CQE_REQ, 0, w->opcode,
			   (w->d->flags & (OPF_NOP | OPF_MMO)) == OPF_NOP ? 0 :
			   byte_cnt);
	q->sq_ci += (uint16_t)w->nbb;
	q->attempted = false;
	return SQ_DONE;
fail:
	if (at != q->sq_ci)
		return SQ_BLOCK;	/* fails in order, at the head */
	return eng_sq_fail(e, q, &err) ? SQ_DONE : SQ_FAILED;
}

/*
 * The ACK timer fired, and the peer QP is gone: destroyed after it received
 * requests up to its tombstone's PSN (smx_shm_tomb()). For those it would
 * have re-ACKed a retry, so its tombstone answers as that ACK; what it did
 * not receive goes on to retry and fail, as towards any vanished QP. True
 * when the oldest request is answered now.
 */
static bool eng_sq_peer_tomb(struct eng *e, struct eng_qp *q)
{
	struct fw_qp *qp = q->qp;
	struct ibp_hdr h = { 0 };
	uint32_t epsn;

	if (!q->nout || !smx_shm_tomb(e->shm, q->peer_slot, q->peer_gen,
				      DEVX_GET(qpc, qp->qpc, remote_qpn), &epsn))
		return false;
	h.opcode = (qp->st == MLX5_QPC_ST_XRC ? IBP_TR_XRC : IBP_TR_RC) |
		   IBP_OP_ACK;
	h.dqpn = qp->obj.id;
	h.psn = (epsn - 1) & 0xffffff;
	h.syndrome = ibp_aeth_ack(IBP_AETH_CREDIT_INVALID);
	eng_compl_pkt(e, &h, q->peer_slot);
	return q->out[q->out_head].have_resp;
}

static void eng_sq_run_once(struct eng *e, struct eng_qp *q);

/* A retry was spent on the oldest request (rewound already). After a
 * NAK's, NAKs up to the PSN it resends from are stale (eng_loc.h). */
static void eng_sq_retry_note(struct eng_qp *q)
{
	static const char *const why[] = {
		[ENG_RETRY_TIMEOUT] = "local ACK timeout",
		[ENG_RETRY_NAK] = "sequence NAK",
		[ENG_RETRY_DROPPED] = "request lost",
	};
	uint32_t k = q->tx_resume && q->tx_resume_psn == q->wqe_psn ?
		     q->tx_resume_k :
		     q->rd_resume && q->rd_resume_psn == q->wqe_psn ?
		     q->rd_resume_k : 0;

	if (q->retry_why == ENG_RETRY_NAK) {
		q->nak_retry = true;
		q->nak_retry_psn = eng_psn_add(q->wqe_psn, k);
	}
	smx_dbg("engine: qp 0x%x: retry from psn 0x%x (%s), %u left",
		q->qp->obj.id, eng_psn_add(q->wqe_psn, k),
		why[q->retry_why], q->retry_left);
}

/* A sequence NAK parks the QP with a timer that has already expired
 * (resend at once): rather than wait for the watcher thread to notice --
 * a wake-up and a context switch on a busy core, ~100 us per go-back -- the
 * resend runs here, once. */
void eng_sq_run(struct eng *e, struct eng_qp *q)
{
	eng_sq_run_once(e, q);
	if (q->wait == ENG_WAIT_ACK && q->deadline <= eng_clock(e) &&
	    q->qp->state == MLX5_QPC_STATE_RTS)
		eng_sq_run_once(e, q);
}

static void eng_sq_run_once(struct eng *e, struct eng_qp *q)
{
	struct fw_qp *qp = q->qp;
	uint32_t ticks = 0;

	if (!qp->sq_wqebbs || !qp->dbrec)
		return;
	switch (qp->state) {
	case MLX5_QPC_STATE_ERR:
	case MLX5_QPC_STATE_SQER:
		eng_sq_flush(e, q);
		return;
	case MLX5_QPC_STATE_RTS:
		break;
	default:
		return;	/* RST/INIT/RTR: not yet; SQD: nothing new */
	}
	if (q->wait == ENG_WAIT_RESP) {
		bool reliable = eng_sq_reliable(qp->st);
		bool alive;

		/* More may go out meanwhile. An answer to the oldest request
		 * that came after the deadline, before the timer was looked
		 * at, is progress all the same: the timer is moot. */
		if (eng_clock(e) < q->deadline ||
		    (q->nout && eng_out_at(q, 0)->have_resp))
			goto progress;
		if (reliable && eng_sq_peer_tomb(e, q))
			goto progress;
		alive = eng_fabric_peer_alive(e, q->peer_slot);
		/* A peer that is stopped (a debugger, SIGSTOP) or has not
		 * looked at its inbox since we last heard from it has lost
		 * nothing: as a NIC would, wait for it without spending a
		 * retry or resending into its full inbox. */
		if (alive && eng_fabric_peer_stalled(e, q->peer_slot,
						     q->progress_ns)) {
			trn_ctr_add(e->ctr, TRN_CTR_PEER_STALLED, 1);
			q->tmo_since = eng_clock(e);
			q->wait = ENG_WAIT_NONE;
			eng_sq_park(e, q, ENG_WAIT_RESP, eng_sq_stall_wait(e, q));
			return;
		}
		/* Nor when it is our own inbox that nobody served since the
		 * timer expired (this process starved of CPU): the response
		 * may be waiting there, and a NIC handles what it received
		 * before its timer decides. Else a busy host turns answers
		 * that came in time into retries, and retries exhausted. */
		if (smx_shm_stalled(e->shm, e->slot, q->deadline) ||
		    (e->udp && eng_udp_pending(e))) {
			q->tmo_since = eng_clock(e);
			q->wait = ENG_WAIT_NONE;
			eng_sq_park(e, q, ENG_WAIT_RESP, eng_sq_stall_wait(e, q));
			return;
		}
		if (!reliable) {
			/* UC / UD: unacknowledged on the wire; the response
			 * only said the peer is done with our memory. */
			if (alive) {
				eng_sq_park(e, q, ENG_WAIT_RESP, 1000000000ull);
				return;
			}
			uint32_t i;

			for (i = 0; i < q->nout; i++) {
				struct eng_out *o = eng_out_at(q, i);

				if (!o->have_resp) {
					o->have_resp = true;
					o->resp.ack = ENG_ACK_DROPPED;
				}
			}
			q->wait = ENG_WAIT_NONE;
		} else if (!DEVX_GET(qpc, qp->qpc,
				     primary_address_path.ack_timeout)) {
			/* No ACK timer: wait while the peer lives. */
			if (alive) {
				eng_sq_park(e, q, ENG_WAIT_RESP, 1000000000ull);
				return;
			}
			q->retry_left = 0;
			q->wait = ENG_WAIT_ACK;
		} else if (eng_sq_adaptive(e, qp) &&
			   eng_clock(e) < q->tmo_since + eng_sq_resp_timeout(qp)) {
			uint64_t left = q->tmo_since + eng_sq_resp_timeout(qp) -
					eng_clock(e);

			if (!alive) {
				/* Nothing to win from a process that is gone:
				 * the QP's own timer decides, at its pace. */
				q->wait = ENG_WAIT_NONE;
				eng_sq_park(e, q, ENG_WAIT_RESP, left);
				return;
			}
			/* The adaptive timer: go back now, no retry spent. */
			trn_ctr_add(e->ctr, TRN_CTR_ROCE_ADP_RETRANS, 1);
			smx_dbg("engine: qp 0x%x: no response within %llu us: "
				"going back to psn 0x%x (adaptive retransmission, "
				"%u in flight, next psn 0x%x)", qp->obj.id,
				(unsigned long long)q->rto_ns / 1000,
				q->nout ? q->out[q->out_head].psn : 0, q->nout,
				DEVX_GET(qpc, qp->qpc, next_send_psn));
			q->rto_ns *= 2;
			q->wait = ENG_WAIT_NONE;
			eng_sq_rewind(e, q);
		} else {
			trn_ctr_add(e->ctr, TRN_CTR_LOCAL_ACK_TIMEOUT_ERR, 1);
			q->tmo_since = eng_clock(e);
			q->retry_why = ENG_RETRY_TIMEOUT;
			q->wait = ENG_WAIT_ACK;
		}
	}
	if (q->wait != ENG_WAIT_NONE) {
		eng_sq_rewind(e, q);	/* a lost response: go back */
		if (eng_clock(e) < q->deadline)
			return;
		if (q->wait == ENG_WAIT_ACK) {
			if (!q->retry_left) {
				struct sq_err err = { 0 };

				SQ_FAIL(&err, TRANSPORT_RETRY_EXC_ERR, 0, "ctrl",
					"no response from qp 0x%x, transport "
					"retries exhausted (retry_count %u)",
					DEVX_GET(qpc, qp->qpc, remote_qpn),
					DEVX_GET(qpc, qp->qpc, retry_count));
				if (!eng_sq_fail(e, q, &err))
					return;
			} else {
				q->retry_left--;
				eng_sq_retry_note(q);
			}
		}
		q->wait = ENG_WAIT_NONE;
	}
progress:
	/* busy: a responder error on this very QP (loopback) must not flush
	 * the WQE being executed; the flush happens below instead. */
	q->busy = true;
	eng_sq_reread_all(e, q);
	while (qp->state == MLX5_QPC_STATE_RTS) {
		uint16_t pi = eng_sq_pi(qp);
		enum sq_step st;

		if (!(++ticks % ENG_CLOCK_WQES))
			eng_clock_tick(e);
		if (q->sig_drain && (!q->nout || !q->out[q->out_head].have_resp)) {
			/* Nothing new after a signature error: SQD once the
			 * requests in flight are done. */
			if (!q->nout)
				eng_sq_sig_drained(e, q);
			break;
		}
		if (q->nout && q->out[q->out_head].have_resp) {
			/* The oldest request was answered: complete it. */
			struct eng_out *o = &q->out[q->out_head];

			q->have_resp = true;
			q->resp = o->resp;
			o->have_resp = false;
			st = eng_sq_exec(e, q, pi, q->sq_ci);
			if (st != SQ_DONE)
				break;	/* parked (rewound) or failed */
			if (q->nout)
				eng_sq_pop(e, q);
			continue;
		}
		if (q->nout && eng_out_at(q, q->nout - 1u)->sent <
			       eng_out_at(q, q->nout - 1u)->npkts) {
			/* The newest request is still going out. */
			if (q->wait != ENG_WAIT_NONE && q->wait != ENG_WAIT_RESP)
				break;
			if (eng_sq_continue(e, q))
				break;
			continue;
		}
		if (pi == q->sq_tx || q->nout >= eng_sq_window(qp) ||
		    (q->wait != ENG_WAIT_NONE && q->wait != ENG_WAIT_RESP))
			break;
		if (q->nout && eng_fabric_lossy(e) && eng_sq_reliable(qp->st) &&
		    e->shm && smx_shm_peek(e->shm)) {
			/* On a link that loses packets, responses first (a
			 * NIC takes them while it sends): a NAK waiting there
			 * makes everything sent from here on a loss for
			 * go-back-N. The end of the batch that takes them
			 * sends on (fab_unpause()). Where nothing is lost,
			 * the pause would only cost pipelining. */
			q->tx_blocked = true;
			e->tx_paused = true;
			break;
		}
		if (smx_trace_on(SMX_TR_WQE))
			eng_sq_trace(q, q->sq_tx, pi);
		if (q->sq_tx == q->sq_ci && e->fast && eng_sq_fast(e, q)) {
			q->sq_tx = q->sq_ci;
			continue;
		}
		st = eng_sq_exec(e, q, pi, q->sq_tx);
		if (st == SQ_DONE) {
			q->sq_tx = q->sq_ci;	/* executed here and then */
			continue;
		}
		if (st != SQ_PARK || q->wait != ENG_WAIT_RESP)
			break;	/* blocked, parked on a timer, or failed */
	}
	q->busy = false;
	eng_fabric_ring(e);
	if (qp->state == MLX5_QPC_STATE_ERR)
		eng_sq_flush(e, q);
}
