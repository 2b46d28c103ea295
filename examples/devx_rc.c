/* SPDX-License-Identifier: MIT */
/*
 * devx_rc -- two RC queue pairs built and driven entirely through DEVX.
 *
 * DEVX lets an application talk PRM (the ConnectX command interface) to the
 * device directly: it writes the CREATE_CQ / CREATE_QP mailboxes itself, owns
 * the queue memory (registered as "umems"), writes WQEs into that memory,
 * rings the doorbell with a plain store to a UAR page and reads CQEs straight
 * out of memory. libmlx5 is only a thin courier for the mailboxes.
 *
 * This program does all of that on one device:
 *
 *   1. open mlx5_0 with MLX5DV_CONTEXT_FLAGS_DEVX;
 *   2. QUERY_HCA_CAP (general, current) through mlx5dv_devx_general_cmd();
 *   3. gather what the mailboxes refer to: a verbs PD's pdn, a UAR page, the
 *      EQ number of completion vector 0, and the port's GID 0;
 *   4. for two endpoints A and B: umems for CQ buffer, CQ doorbell record,
 *      QP buffer (RQ then SQ) and QP doorbell record; CREATE_CQ; CREATE_QP;
 *   5. RST -> INIT -> RTR -> RTS with each QP's remote_qpn set to the other;
 *   6. receive WQEs, then SEND_IMM WQEs in both directions, by hand;
 *   7. poll the CQ rings by hand and check every completion and payload;
 *   8. tear down in the order the kernel insists on.
 *
 * On softmlx5, build it in the tree (it includes "prm/prm.h" for the PRM
 * layouts) and run build/bin/devx_rc. Exit status 0 means every check passed.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"	/* mlx5_ifc layouts + DEVX_SET/DEVX_GET */

#define DEV_NAME	"mlx5_0"
#define PORT		1
#define NMSG		4	/* SEND_IMMs in each direction */
#define MSG_LEN		512

/* Queue geometry. RQ stride is 16 B (log_rq_stride = 0: one data segment
 * per receive WQE); an SQ WQE basic block (WQEBB) is always 64 B. */
#define LOG_RQ		4
#define LOG_SQ		4
#define LOG_CQ		5
#define RQ_BYTES	(16u << LOG_RQ)
#define SQ_BYTES	(64u << LOG_SQ)
#define QP_BYTES	(RQ_BYTES + SQ_BYTES)	/* the RQ comes first */
#define CQ_BYTES	(64u << LOG_CQ)
#define PAGE		4096u

/* Everything one endpoint owns. */
struct endpoint {
	char name;
	uint32_t imm_base;			/* immediates it sends: base + i */
	char fill;				/* its i-th message is fill + i */
	void *qbuf, *qdbr, *cqbuf, *cqdbr;	/* application memory */
	struct mlx5dv_devx_umem *qbuf_um, *qdbr_um, *cqbuf_um, *cqdbr_um;
	struct mlx5dv_devx_obj *cq, *qp;
	uint32_t cqn, qpn;
	uint8_t *data;				/* NMSG send + NMSG receive slots */
	struct ibv_mr *mr;
	uint32_t sq_pi, rq_pi, cq_ci;		/* software counters */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct mlx5dv_devx_uar *uar;
static uint32_t pdn, eqn;
static int port_type;
static union ibv_gid gid;
static uint16_t lid;
static struct endpoint ep[2] = {
	{ .name = 'A', .imm_base = 0xa0000000, .fill = 'a' },
	{ .name = 'B', .imm_base = 0xb0000000, .fill = 'w' },
};

static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "devx_rc: FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* A DEVX command failed. With kernel >= 5.19 semantics (which softmlx5
 * follows) a command the device refused returns EREMOTEIO and the out
 * mailbox still holds the device's status and syndrome -- print them. */
static int cmd_fail(const char *what, int err, const void *out)
{
	if (err == EREMOTEIO) {
		unsigned int st = DEVX_GET(mbox_out, out, status);

		return fail("%s: device status 0x%x (%s), syndrome 0x%08x", what, st,
			    smx_prm_status_str(st), DEVX_GET(mbox_out, out, syndrome));
	}
	return fail("%s: %s", what, strerror(err));
}

static void *page_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, PAGE, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

/* ---- step 2: capabilities ---------------------------------------------- */

static int query_caps(void)
{
	uint32_t in[DEVX_ST_SZ_DW(query_hca_cap_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_hca_cap_out)] = {};
	void *cap = DEVX_ADDR_OF(query_hca_cap_out, out, capability);
	int ret;

	DEVX_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	DEVX_SET(query_hca_cap_in, in, op_mod, MLX5_CAP_GENERAL << 1 | HCA_CAP_OPMOD_GET_CUR);
	ret = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
	if (ret)
		return cmd_fail("QUERY_HCA_CAP", ret, out);
	port_type = DEVX_GET(cmd_hca_cap, cap, port_type);
	printf("[2] QUERY_HCA_CAP: port_type=%d (%s) num_ports=%u log_max_qp=%u log_max_cq=%u\n",
	       port_type, port_type == MLX5_CAP_PORT_TYPE_ETH ? "Ethernet/RoCE" : "InfiniBand",
	       DEVX_GET(cmd_hca_cap, cap, num_ports), DEVX_GET(cmd_hca_cap, cap, log_max_qp),
	       DEVX_GET(cmd_hca_cap, cap, log_max_cq));
	return 0;
}

/* ---- step 4: queue memory, CQ, QP -------------------------------------- */

static struct mlx5dv_devx_umem *umem(void *addr, size_t len, const char *what)
{
	/* The device writes CQEs and doorbell records here: LOCAL_WRITE. */
	struct mlx5dv_devx_umem *u = mlx5dv_devx_umem_reg(ctx, addr, len,
							  IBV_ACCESS_LOCAL_WRITE);
	if (!u)
		fail("umem_reg(%s): %s", what, strerror(errno));
	return u;
}

static int make_endpoint(struct endpoint *e)
{
	uint32_t cin[DEVX_ST_SZ_DW(create_cq_in)] = {};
	uint32_t cout[DEVX_ST_SZ_DW(create_cq_out)] = {};
	uint32_t qin[DEVX_ST_SZ_DW(create_qp_in)] = {};
	uint32_t qout[DEVX_ST_SZ_DW(create_qp_out)] = {};
	void *cqc = DEVX_ADDR_OF(create_cq_in, cin, cq_context);
	void *qpc = DEVX_ADDR_OF(create_qp_in, qin, qpc);
	unsigned int i;

	e->qbuf = page_alloc(QP_BYTES);
	e->qdbr = page_alloc(PAGE);
	e->cqbuf = page_alloc(CQ_BYTES);
	e->cqdbr = page_alloc(PAGE);
	e->data = page_alloc(2 * NMSG * MSG_LEN);
	if (!e->qbuf || !e->qdbr || !e->cqbuf || !e->cqdbr || !e->data)
		return fail("out of memory");

	/* Mark every CQE invalid (opcode 0xF, owner 0), as libmlx5 does for
	 * its own CQs: a CQE becomes ours once the device wrote a real opcode
	 * with the owner bit of the current pass around the ring. */
	for (i = 0; i < (1u << LOG_CQ); i++)
		((struct mlx5_cqe64 *)e->cqbuf)[i].op_own = MLX5_CQE_INVALID << 4;

	if (!(e->qbuf_um = umem(e->qbuf, QP_BYTES, "QP buffer")) ||
	    !(e->qdbr_um = umem(e->qdbr, 8, "QP doorbell record")) ||
	    !(e->cqbuf_um = umem(e->cqbuf, CQ_BYTES, "CQ buffer")) ||
	    !(e->cqdbr_um = umem(e->cqdbr, 8, "CQ doorbell record")))
		return -1;

	/* CREATE_CQ: 64-byte CQEs in a umem, events to completion EQ 0. */
	DEVX_SET(create_cq_in, cin, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(create_cq_in, cin, cq_umem_valid, 1);
	DEVX_SET(create_cq_in, cin, cq_umem_id, e->cqbuf_um->umem_id);
	DEVX_SET(cqc, cqc, log_cq_size, LOG_CQ);
	DEVX_SET(cqc, cqc, uar_page, uar->page_id);
	DEVX_SET(cqc, cqc, c_eqn, eqn);
	DEVX_SET(cqc, cqc, dbr_umem_valid, 1);
	DEVX_SET(cqc, cqc, dbr_umem_id, e->cqdbr_um->umem_id);
	e->cq = mlx5dv_devx_obj_create(ctx, cin, sizeof(cin), cout, sizeof(cout));
	if (!e->cq)
		return cmd_fail("CREATE_CQ", errno, cout);
	e->cqn = DEVX_GET(create_cq_out, cout, cqn);

	/* CREATE_QP: RC, one CQ for both directions, RQ at offset 0 of the
	 * wq umem and the SQ right after it; doorbell record in its own umem
	 * (word 0 = receive counter, word 1 = send counter). */
	DEVX_SET(create_qp_in, qin, opcode, MLX5_CMD_OP_CREATE_QP);
	DEVX_SET(create_qp_in, qin, wq_umem_valid, 1);
	DEVX_SET(create_qp_in, qin, wq_umem_id, e->qbuf_um->umem_id);
	DEVX_SET(qpc, qpc, st, MLX5_QPC_ST_RC);
	DEVX_SET(qpc, qpc, pm_state, 3);	/* path migration: migrated */
	DEVX_SET(qpc, qpc, pd, pdn);
	DEVX_SET(qpc, qpc, uar_page, uar->page_id);
	DEVX_SET(qpc, qpc, log_rq_size, LOG_RQ);
	DEVX_SET(qpc, qpc, log_rq_stride, 0);	/* 16 << 0 bytes */
	DEVX_SET(qpc, qpc, log_sq_size, LOG_SQ);
	DEVX_SET(qpc, qpc, ts_format, 1);	/* free-running timestamps */
	DEVX_SET(qpc, qpc, cqn_snd, e->cqn);
	DEVX_SET(qpc, qpc, cqn_rcv, e->cqn);
	DEVX_SET(qpc, qpc, dbr_umem_valid, 1);
	DEVX_SET(qpc, qpc, dbr_umem_id, e->qdbr_um->umem_id);
	e->qp = mlx5dv_devx_obj_create(ctx, qin, sizeof(qin), qout, sizeof(qout));
	if (!e->qp)
		return cmd_fail("CREATE_QP", errno, qout);
	e->qpn = DEVX_GET(create_qp_out, qout, qpn);

	e->mr = ibv_reg_mr(pd, e->data, 2 * NMSG * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr)
		return fail("ibv_reg_mr: %s", strerror(errno));
	printf("[4] endpoint %c: umems %u/%u/%u/%u, CQ 0x%x (%u CQEs), RC QP 0x%x, MR lkey 0x%x\n",
	       e->name, e->qbuf_um->umem_id, e->qdbr_um->umem_id, e->cqbuf_um->umem_id,
	       e->cqdbr_um->umem_id, e->cqn, 1u << LOG_CQ, e->qpn, e->mr->lkey);
	return 0;
}

/* ---- step 5: state transitions ------------------------------------------ */

/* RST2INIT, INIT2RTR and RTR2RTS share one mailbox layout (qpn + qpc), so a
 * single buffer serves all three; only the fields of each step are set. */
static int modify_qp(struct endpoint *e, uint16_t op, uint32_t remote_qpn)
{
	uint32_t in[DEVX_ST_SZ_DW(init2rtr_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(init2rtr_qp_out)] = {};
	void *qpc = DEVX_ADDR_OF(init2rtr_qp_in, in, qpc);
	const char *name = "RST2INIT_QP";
	int ret;

	DEVX_SET(init2rtr_qp_in, in, opcode, op);
	DEVX_SET(init2rtr_qp_in, in, qpn, e->qpn);
	DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, PORT);
	if (op == MLX5_CMD_OP_RST2INIT_QP) {
		DEVX_SET(qpc, qpc, rre, 1);	/* allow remote read/write */
		DEVX_SET(qpc, qpc, rwe, 1);
	} else if (op == MLX5_CMD_OP_INIT2RTR_QP) {
		name = "INIT2RTR_QP";
		DEVX_SET(qpc, qpc, mtu, MLX5_QPC_MTU_1K_BYTES);
		DEVX_SET(qpc, qpc, log_msg_max, 20);
		DEVX_SET(qpc, qpc, remote_qpn, remote_qpn);
		DEVX_SET(qpc, qpc, next_rcv_psn, 0);
		DEVX_SET(qpc, qpc, min_rnr_nak, 12);
		if (port_type == MLX5_CAP_PORT_TYPE_ETH) {
			/* RoCE: the peer is addressed by GID (ours, it's a loopback). */
			memcpy(DEVX_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip),
			       gid.raw, sizeof(gid.raw));
			DEVX_SET(qpc, qpc, primary_address_path.src_addr_index, 0);
			DEVX_SET(qpc, qpc, primary_address_path.hop_limit, 64);
			DEVX_SET(qpc, qpc, primary_address_path.udp_sport, 0xdcba);
		} else {
			DEVX_SET(qpc, qpc, primary_address_path.rlid, lid);
		}
	} else {
		name = "RTR2RTS_QP";
		DEVX_SET(qpc, qpc, next_send_psn, 0);
		DEVX_SET(qpc, qpc, retry_count, 7);
		DEVX_SET(qpc, qpc, rnr_retry, 7);
		DEVX_SET(qpc, qpc, log_sra_max, 3);
		DEVX_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
	}
	ret = mlx5dv_devx_obj_modify(e->qp, in, sizeof(in), out, sizeof(out));
	return ret ? cmd_fail(name, ret, out) : 0;
}

static int qp_state(struct endpoint *e)
{
	uint32_t in[DEVX_ST_SZ_DW(query_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_qp_out)] = {};

	DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, in, qpn, e->qpn);
	if (mlx5dv_devx_obj_query(e->qp, in, sizeof(in), out, sizeof(out)))
		return -1;
	return DEVX_GET(query_qp_out, out, qpc.state);
}

/* ---- step 6: the data path, by hand --------------------------------------- */

static uint8_t *send_slot(struct endpoint *e, unsigned int i) { return e->data + i * MSG_LEN; }
static uint8_t *recv_slot(struct endpoint *e, unsigned int i) { return e->data + (NMSG + i) * MSG_LEN; }
static uint32_t imm_of(struct endpoint *e, unsigned int i) { return e->imm_base + i; }

static void post_recvs(struct endpoint *e)
{
	unsigned int i;

	for (i = 0; i < NMSG; i++, e->rq_pi++) {
		struct mlx5_wqe_data_seg *ds = (void *)((uint8_t *)e->qbuf +
					16 * (e->rq_pi & ((1u << LOG_RQ) - 1)));
		ds->byte_count = htobe32(MSG_LEN);
		ds->lkey = htobe32(e->mr->lkey);
		ds->addr = htobe64((uintptr_t)recv_slot(e, i));
	}
	/* WQEs visible before the counter; then the receive doorbell record.
	 * Receives have no UAR doorbell: the device reads this word. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	((volatile uint32_t *)e->qdbr)[MLX5_RCV_DBR] = htobe32(e->rq_pi & 0xffff);
}

static void post_sends(struct endpoint *e)
{
	struct mlx5_wqe_ctrl_seg *ctrl = NULL;
	unsigned int i;
	uint64_t bell;

	for (i = 0; i < NMSG; i++, e->sq_pi++) {
		uint8_t *wqe = (uint8_t *)e->qbuf + RQ_BYTES +
			       64 * (e->sq_pi & ((1u << LOG_SQ) - 1));
		struct mlx5_wqe_data_seg *ds = (void *)(wqe + sizeof(*ctrl));

		memset(send_slot(e, i), e->fill + i, MSG_LEN);
		ctrl = (void *)wqe;
		memset(ctrl, 0, sizeof(*ctrl));
		/* wqe index (16 bits) | opcode; qpn | size in 16-byte units */
		ctrl->opmod_idx_opcode = htobe32((e->sq_pi & 0xffff) << 8 | MLX5_OPCODE_SEND_IMM);
		ctrl->qpn_ds = htobe32(e->qpn << 8 | 2);	/* ctrl + 1 data seg */
		ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;	/* ask for a CQE */
		ctrl->imm = htobe32(imm_of(e, i));
		ds->byte_count = htobe32(MSG_LEN);
		ds->lkey = htobe32(e->mr->lkey);
		ds->addr = htobe64((uintptr_t)send_slot(e, i));
	}
	/* WQEs, then the send doorbell record, then the doorbell itself: the
	 * first 8 bytes of the last WQE, one 64-bit store to the UAR. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	((volatile uint32_t *)e->qdbr)[MLX5_SND_DBR] = htobe32(e->sq_pi & 0xffff);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&bell, ctrl, sizeof(bell));
	*(volatile uint64_t *)uar->reg_addr = bell;
}

/* ---- step 7: completions ------------------------------------------------ */

/* The next CQE once the device has written it, or NULL after 5 seconds. */
static struct mlx5_cqe64 *next_cqe(struct endpoint *e)
{
	struct mlx5_cqe64 *cqe = (struct mlx5_cqe64 *)e->cqbuf +
				 (e->cq_ci & ((1u << LOG_CQ) - 1));
	uint8_t sw_owner = (e->cq_ci >> LOG_CQ) & 1;	/* flips every pass */
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint8_t op_own = ((volatile struct mlx5_cqe64 *)cqe)->op_own;

		if ((op_own >> 4) != MLX5_CQE_INVALID &&
		    (op_own & MLX5_CQE_OWNER_MASK) == sw_owner) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* then the body */
			return cqe;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return NULL;
		sched_yield();	/* a real poller would just spin */
	}
}

/* Consume every completion of @e: NMSG requester + NMSG responder CQEs. */
static int reap(struct endpoint *e, struct endpoint *peer)
{
	unsigned int n, sends = 0, recvs = 0;

	for (n = 0; n < 2 * NMSG; n++) {
		struct mlx5_cqe64 *cqe = next_cqe(e);
		unsigned int op, idx;

		if (!cqe)
			return fail("%c: timed out waiting for CQE %u", e->name, e->cq_ci);
		op = cqe->op_own >> 4;
		idx = be16toh(cqe->wqe_counter);
		if (op == MLX5_CQE_REQ_ERR || op == MLX5_CQE_RESP_ERR) {
			struct mlx5_err_cqe *err = (void *)cqe;

			return fail("%c: error CQE opcode %u, syndrome 0x%x vendor 0x%x",
				    e->name, op, err->syndrome, err->vendor_err_synd);
		}
		if ((be32toh(cqe->sop_drop_qpn) & 0xffffff) != e->qpn)
			return fail("%c: CQE for QP 0x%x", e->name,
				    be32toh(cqe->sop_drop_qpn) & 0xffffff);
		if (op == MLX5_CQE_REQ) {
			printf("    %c: CQE %2u  REQ            send WQE %u done\n",
			       e->name, e->cq_ci, idx);
			sends++;
		} else if (op == MLX5_CQE_RESP_SEND_IMM) {
			uint32_t imm = be32toh(cqe->imm_inval_pkey);
			unsigned int i = idx & ((1u << LOG_RQ) - 1), j;
			uint8_t *buf = recv_slot(e, i);

			printf("    %c: CQE %2u  RESP_SEND_IMM  recv WQE %u, %u bytes, imm 0x%08x, data '%c'...\n",
			       e->name, e->cq_ci, idx, be32toh(cqe->byte_cnt), imm, buf[0]);
			if (be32toh(cqe->byte_cnt) != MSG_LEN || imm != imm_of(peer, i))
				return fail("%c: receive %u: byte_cnt %u imm 0x%x, expected %u 0x%x",
					    e->name, i, be32toh(cqe->byte_cnt), imm, MSG_LEN,
					    imm_of(peer, i));
			for (j = 0; j < MSG_LEN; j++)
				if (buf[j] != (uint8_t)(peer->fill + i))
					return fail("%c: receive %u: byte %u is 0x%02x, expected '%c'",
						    e->name, i, j, buf[j], peer->fill + i);
			recvs++;
		} else {
			return fail("%c: unexpected CQE opcode %u", e->name, op);
		}
		/* Hand the slot back: bump the consumer index in the CQ's
		 * doorbell record (24 bits, big-endian). */
		e->cq_ci++;
		((volatile uint32_t *)e->cqdbr)[0] = htobe32(e->cq_ci & 0xffffff);
	}
	if (sends != NMSG || recvs != NMSG)
		return fail("%c: %u send and %u receive completions", e->name, sends, recvs);
	return 0;
}

/* ---- step 8: teardown ---------------------------------------------------- */

static int teardown(void)
{
	int i, bad = 0;

	/* QPs before the CQs they post to, objects before the umems and the
	 * UAR they name, the PD (named by the QPs) last; then the context. */
	for (i = 0; i < 2; i++)
		if (ep[i].qp && mlx5dv_devx_obj_destroy(ep[i].qp))
			bad = fail("destroy QP %c", ep[i].name);
	for (i = 0; i < 2; i++)
		if (ep[i].cq && mlx5dv_devx_obj_destroy(ep[i].cq))
			bad = fail("destroy CQ %c", ep[i].name);
	for (i = 0; i < 2; i++) {
		struct mlx5dv_devx_umem *u[4] = { ep[i].qbuf_um, ep[i].qdbr_um,
						  ep[i].cqbuf_um, ep[i].cqdbr_um };
		int k;

		for (k = 0; k < 4; k++)
			if (u[k] && mlx5dv_devx_umem_dereg(u[k]))
				bad = fail("umem_dereg %c/%d", ep[i].name, k);
		if (ep[i].mr && ibv_dereg_mr(ep[i].mr))
			bad = fail("ibv_dereg_mr %c", ep[i].name);
		free(ep[i].qbuf);
		free(ep[i].qdbr);
		free(ep[i].cqbuf);
		free(ep[i].cqdbr);
		free(ep[i].data);
	}
	if (uar)
		mlx5dv_devx_free_uar(uar);
	if (pd && ibv_dealloc_pd(pd))
		bad = fail("ibv_dealloc_pd");
	if (ctx && ibv_close_device(ctx))
		bad = fail("ibv_close_device");
	return bad;
}

/* ---- main ----------------------------------------------------------------- */

static int run(void)
{
	struct mlx5dv_context_attr dattr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	struct mlx5dv_pd dvpd;
	struct mlx5dv_obj obj = { .pd = { .in = NULL, .out = &dvpd } };
	char gidstr[INET6_ADDRSTRLEN];
	int i, n;

	/* 1. The device, opened for DEVX. */
	list = ibv_get_device_list(&n);
	if (!list)
		return fail("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n && !ctx; i++) {
		if (strcmp(ibv_get_device_name(list[i]), DEV_NAME))
			continue;
		ctx = mlx5dv_open_device(list[i], &dattr);
		if (!ctx)
			fail("mlx5dv_open_device(%s, DEVX): %s", DEV_NAME, strerror(errno));
	}
	ibv_free_device_list(list);
	if (!ctx)
		return fail("no usable %s among %d device(s)", DEV_NAME, n);
	printf("[1] opened %s with MLX5DV_CONTEXT_FLAGS_DEVX\n", DEV_NAME);

	/* 2. What kind of device is this? */
	if (query_caps())
		return -1;

	/* 3. Resources the mailboxes will name. */
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return fail("ibv_alloc_pd: %s", strerror(errno));
	obj.pd.in = pd;
	if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD))
		return fail("mlx5dv_init_obj(PD)");
	pdn = dvpd.pdn;
	uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!uar)
		return fail("mlx5dv_devx_alloc_uar: %s", strerror(errno));
	if ((errno = mlx5dv_devx_query_eqn(ctx, 0, &eqn)))
		return fail("mlx5dv_devx_query_eqn(0): %s", strerror(errno));
	if (ibv_query_gid(ctx, PORT, 0, &gid))
		return fail("ibv_query_gid(port %d, index 0): %s", PORT, strerror(errno));
	if (port_type != MLX5_CAP_PORT_TYPE_ETH) {
		struct ibv_port_attr pattr;

		if (ibv_query_port(ctx, PORT, &pattr))
			return fail("ibv_query_port: %s", strerror(errno));
		lid = pattr.lid;
	}
	inet_ntop(AF_INET6, gid.raw, gidstr, sizeof(gidstr));
	printf("[3] pdn 0x%x (verbs PD), UAR page %u doorbell at %p, EQN %u, GID[0] %s\n",
	       pdn, uar->page_id, uar->reg_addr, eqn, gidstr);

	/* 4. Two endpoints. */
	for (i = 0; i < 2; i++)
		if (make_endpoint(&ep[i]))
			return -1;

	/* 5. Connect A <-> B. */
	for (i = 0; i < 2; i++)
		if (modify_qp(&ep[i], MLX5_CMD_OP_RST2INIT_QP, 0))
			return -1;
	for (i = 0; i < 2; i++)
		if (modify_qp(&ep[i], MLX5_CMD_OP_INIT2RTR_QP, ep[!i].qpn))
			return -1;
	for (i = 0; i < 2; i++)
		if (modify_qp(&ep[i], MLX5_CMD_OP_RTR2RTS_QP, 0))
			return -1;
	for (i = 0; i < 2; i++)
		if (qp_state(&ep[i]) != MLX5_QPC_STATE_RTS)
			return fail("QP %c is not in RTS after RTR2RTS", ep[i].name);
	printf("[5] QP 0x%x (A) <-> QP 0x%x (B): RST -> INIT -> RTR -> RTS (QUERY_QP says RTS)\n",
	       ep[0].qpn, ep[1].qpn);

	/* 6. Receives first on both sides, then the sends. */
	for (i = 0; i < 2; i++)
		post_recvs(&ep[i]);
	printf("[6] posted %d receive WQEs on each QP (RCV doorbell records only)\n", NMSG);
	for (i = 0; i < 2; i++)
		post_sends(&ep[i]);
	printf("    posted %d SEND_IMM WQEs of %d bytes on each QP, one UAR store each\n",
	       NMSG, MSG_LEN);

	/* 7. Completions. */
	printf("[7] polling CQ memory\n");
	for (i = 0; i < 2; i++)
		if (reap(&ep[i], &ep[!i]))
			return -1;
	printf("    all %d completions, immediates and payloads check out\n", 4 * NMSG);
	return 0;
}

int main(void)
{
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = run();
	if (teardown())
		ret = -1;
	else
		printf("[8] destroyed QPs, CQs, umems, MRs, UAR, PD; closed the device\n");
	printf("devx_rc: %s\n", ret ? "FAILED" : "OK");
	return ret ? 1 : 0;
}
