/* SPDX-License-Identifier: MIT */
/*
 * Private to src/device/engine: the engine instance, per-object engine state,
 * the "packet" handed between requester and responder through the fabric,
 * and cross-file prototypes grouped by the file that defines them.
 *
 * LOCKING AND THREADS.
 *   fw->lock    the one lock of the data path: every engine pass (an MMIO
 *               doorbell in the storing thread, a doorbell-watcher pass, an
 *               inbox batch) holds it throughout, so fw object pointers
 *               (QP, CQ, mkey ...) stay valid, no command can change a QP's
 *               state under a WQE being executed, and passes run one at a
 *               time. Command handlers hold it too and call the engine hooks
 *               (engine.c) with it held.
 *   Order: fw->lock -> wlock, the device's irq_lock (leaves).
 * So every piece of engine state hanging off a firmware object (->eng), the
 * engine's object lists and its scratch (below) are protected by fw->lock.
 * (An engine lock outside it used to serialise passes as well; it protected
 * nothing fw->lock did not, and cost every doorbell a second lock.)
 * Interrupt handlers are called with fw->lock held (device.h: handlers must
 * not issue commands or ring doorbells synchronously).
 */
#ifndef SMX_DEVICE_ENGINE_ENG_LOC_H
#define SMX_DEVICE_ENGINE_ENG_LOC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "device/engine/engine.h"
#include "device/fabric/shm.h"
#include "device/fabric/drq.h"
#include "device/fw/fw.h"
#include "prm/prm.h"

#define ENG_NR_VECTORS 256
#define ENG_KWHERE_CACHE 8u	/* keys whose memfd place is cached */
#define ENG_MAX_GIDS 64u	/* distinct local GIDs the engine knows */
#define ENG_UAR_SIZE 4096u
#define ENG_MAX_WQE_BYTES (63 * 16)	/* DS is a 6-bit count of 16 bytes */
#define ENG_MAX_SGE 64

/* ------------------------------------------------------------------ */
/* Per-object engine state                                            */
/* ------------------------------------------------------------------ */

enum eng_kind { ENG_K_QP, ENG_K_CQ, ENG_K_EQ, ENG_K_SRQ, ENG_K_SQ, ENG_K_RQ,
	       ENG_K_NUM };

struct eng_obj {
	enum eng_kind kind;
	struct eng_obj *next, *prev;	/* e->list[kind], circular */
};

/* Why a requester's WQE is parked. */
enum eng_wait {
	ENG_WAIT_NONE = 0,
	ENG_WAIT_RNR,		/* RNR NAK: retry when the RNR timer expires */
	ENG_WAIT_ACK,		/* no response: retry when the ACK timer expires */
	ENG_WAIT_RESP,		/* sent to another process: waiting for its
				 * response (eng_fabric.c), or the ACK timer */
};

/*
 * The last local key a QP's WQEs named, as eng_key_check() found it: valid
 * while e->gen is @gen (nothing about any key or QP changed since), so only
 * the bounds of each new access remain to check (eng_key_check_cached()).
 */
struct eng_kcache {
	uint64_t gen;
	uint32_t key;
	uint32_t need;		/* rights checked (ENG_ACC_*) */
	const struct fw_pd *pd;	/* protection domain checked */
	struct fw_mkey *mk;	/* NULL: nothing cached */
};

struct eng_qp {
	struct eng_obj o;
	struct fw_qp *qp;
	uint16_t sq_ci;		/* next WQEBB counter to execute */
	uint16_t rq_ci;		/* next receive WQE counter */
	uint8_t wait;		/* enum eng_wait for the WQE at sq_ci */
	bool attempted;		/* the WQE at sq_ci went out at least once */
	uint8_t dc_gen;		/* a DCI: its entries into RTS (DCETH) */
	uint8_t rnr_left;	/* RNR retries left (7: infinite) */
	uint8_t retry_left;	/* transport retries left */
	uint8_t retry_why;	/* enum eng_retry_why: the next retry's */
	/* A sequence NAK (or an implied one) made the oldest request go
	 * back, resending from PSN nak_retry_psn: until it is answered, a
	 * NAK naming that PSN or an earlier one, or an implied NAK of it,
	 * was sent before the responder saw the resend, and costs no second
	 * retry (eng_compl.c; rxe's comp.started_retry). */
	bool nak_retry;
	uint32_t nak_retry_psn;
	uint32_t wqe_psn;	/* first PSN of the WQE at sq_ci */
	/* After a go-back: WQEs before PSN resend_end went out as packets
	 * and go again as packets (eng_sq_resending()). */
	bool resending;
	uint32_t resend_end;
	/* A go-back met a READ half answered: when it goes out again it
	 * asks only from the first missing response (IBTA 9.7.5.1.2). */
	bool rd_resume;
	uint32_t rd_resume_psn, rd_resume_k;
	/* A SEND / WRITE a sequence NAK cut: resent from that packet. */
	bool tx_resume;
	uint32_t tx_resume_psn, tx_resume_k;
	uint64_t deadline;	/* ns, CLOCK_MONOTONIC, when wait != NONE */
	/* The QP's own ACK timer runs from tmo_since (a first send into an
	 * empty window, a response heard, a timeout spent); the adaptive
	 * retransmission timer (rto_ns, doubled while nothing is heard)
	 * goes back earlier without spending a retry (eng_sq_run). */
	uint64_t tmo_since;
	uint64_t rto_ns;
	/* An error NAK for a request not yet sent again after a go-back
	 * (eng_compl.c): applied when it is. */
	bool late_nak;
	uint8_t late_nak_ack;
	uint32_t late_nak_psn;
	bool last_wqe_sent;	/* SRQ "last WQE reached" already reported */
	/* The connected QP's route as the QPC gives it (eng_sq_address()),
	 * valid while e->gen is @route_gen (the QPC changes by commands). */
	uint64_t route_gen;
	bool route_ok;
	bool routed;		/* the path leads to this device or, bound
				 * to a network interface, to the network */
	int32_t peer;		/* eng_fabric_peer(rgid, dqpn) */
	uint32_t dqpn;
	uint8_t sgid[16], rgid[16];	/* the path's GIDs */
	struct eng_kcache lkey;	/* the gather / scatter list's last lkey */
	bool busy;		/* eng_sq_run is executing a WQE of this QP */
	bool sig_drain;		/* drain_sigerr: a signature error, stop in SQD */
	bool db_mmio;		/* its send doorbells arrive as MMIO stores */
	/* Another process's response to the WQE at sq_ci (the completer,
	 * eng_fabric.c): the next execution of that WQE uses it. */
	bool have_resp;
	/* Direct SEND (eng_drq.c). As the owner: the entry of our table
	 * that lends this QP's receive queue (drq_on), the receive counter
	 * completed so far (rq_ci is its low 16 bits) and the key
	 * generation its armed receives hold under. */
	bool drq_on;
	bool drq_closed;	/* taken back (the claim counter says so) */
	uint32_t drq_idx;
	uint64_t drq_ci, drq_gen;
	uint64_t drq_tail;	/* armed so far (the table's copy is a hint:
				 * the peer can write it) */
	uint16_t drq_pkt_run;	/* receives taken by packets in a row */
	/* As the peer: the record of the queue lent to us. */
	struct eng_rrec {
		bool valid;
		uint32_t slot;
		struct smx_rrec r;
		struct smx_drq_ent *ent;	/* mapped here */
		uint64_t alive_ns;
		uint32_t uses;
	} rrec;
	uint32_t peer_slot;	/* where the oldest request went */
	uint64_t peer_gen;	/* that slot's claim then (tombstones) */
	struct eng_resp_saved {
		uint8_t ack, rnr_timer;
		uint64_t atomic_orig;
	} resp;
	/*
	 * Requests in flight to another process (eng_sq.c): WQEs [sq_ci,
	 * sq_tx) went out as packets and wait for their acknowledgement,
	 * oldest first in out[] (a ring of ENG_SQ_WINDOW entries from
	 * out_head). The newest may still be going out (sent < npkts: the
	 * peer's inbox was full). Completion stays in order; a lost packet,
	 * a sequence NAK or an RNR NAK rewinds sq_tx to sq_ci (go-back-N).
	 */
	uint16_t sq_tx;		/* next WQEBB counter to transmit */
	uint16_t trace_next;	/* SOFTMLX5_TRACE: first WQEBB not traced yet */
	uint8_t nout;		/* entries in out[] */
	uint8_t out_head;
	uint8_t nrd;		/* READ / atomic entries among them */
	bool tx_blocked;	/* a packet waits for room in the peer's inbox */
	uint64_t progress_ns;	/* when the peer last acknowledged anything */
	struct eng_out {
		uint32_t psn, npkts;
		uint32_t slot;		/* process the request went to */
		uint16_t at;		/* its WQEBB counter */
		uint16_t nbb;
		uint8_t op;		/* enum eng_pkt_op */
		bool have_resp;
		uint32_t sent;		/* packets transmitted */
		uint32_t rd_next;	/* READ: response packets placed */
		uint32_t rd_from;	/* READ: the packet its request asked
					 * from (a re-request resumes) */
		bool rd_reask;		/* READ: a response is missing; ask
					 * again from rd_next (eng_sq_run) */
		bool rd_retry;		/* READ: asked again; later gaps wait
					 * for a response in order */
		uint32_t nak_k;		/* SEND / WRITE: a sequence NAK named
					 * its packet nak_k (> 0): the ones
					 * before it arrived */
		uint32_t len;		/* message length */
		struct eng_resp_saved resp;
	} out[32];
	/* The responder's state towards other processes (eng_resp.c): the
	 * message being received, responder resources, what is owed. */
	struct eng_rstate *rs;
};
#define ENG_SQ_WINDOW 32u	/* requests in flight per QP (power of 2) */

/* Why the oldest request goes back and spends a retry. */
enum eng_retry_why {
	ENG_RETRY_TIMEOUT = 0,	/* the local ACK timer expired */
	ENG_RETRY_NAK,		/* a sequence NAK, or an implied one */
	ENG_RETRY_DROPPED,	/* in-process: the request was lost */
};

/* The @i-th oldest request in flight (0: the oldest, q->nout - 1: the
 * newest). */
static inline struct eng_out *eng_out_at(struct eng_qp *q, uint32_t i)
{
	return &q->out[(q->out_head + i) & (ENG_SQ_WINDOW - 1)];
}

enum eng_arm { ENG_ARM_NONE = 0, ENG_ARM_NEXT, ENG_ARM_SOLICITED };

#define ENG_COMP_MAX FW_CQE_COMP_MAX

struct eng_cq {
	struct eng_obj o;
	struct fw_cq *cq;
	uint32_t pi;		/* CQEs written (producer counter) */
	uint8_t arm;		/* enum eng_arm */
	uint32_t arm_word;	/* last arm request seen (dbrec[1] format) */
	bool overrun;		/* a CQE was lost: CQ in error */
	/* CQE compression (eng_comp.c): the session being gathered -- its
	 * title CQE and one mini CQE per completion -- during a batch */
	uint32_t comp_n;
	uint8_t comp_title[64];
	uint8_t comp_mini[ENG_COMP_MAX][8];
	struct eng_cq *comp_next;	/* on eng.comp_open */
	bool comp_listed;	/* on e->comp_open (a list tail's comp_next is NULL too) */
};

struct eng_eq {
	struct eng_obj o;
	struct fw_eq *eq;
	uint32_t pi;		/* EQEs written */
	uint32_t ci;		/* consumer index from the last EQ doorbell */
	bool armed;
	bool always_armed;	/* eqc.st ALWAYS_ARMED: every EQE interrupts */
};

struct eng_srq {
	struct eng_obj o;
	struct fw_srq *srq;
	uint16_t consumed;	/* WQEs taken (compared with dbrec[0]) */
	uint16_t head;		/* index of the next WQE (linked list) */
};

/* Ethernet frames (eng_eth.c): the largest one an SQ may send. */
#define ENG_ETH_MAX_FRAME 9728u

struct eng_sq {
	struct eng_obj o;
	struct fw_sq *sq;
	uint16_t ci;		/* next WQEBB counter to execute */
	/* the frame being sent, with room for the VLAN tags NIC TX steering
	 * may push */
	uint8_t frame[ENG_ETH_MAX_FRAME + 64];
};

struct eng_rq {
	struct eng_obj o;
	struct fw_rq *rq;
	uint16_t ci;		/* next receive WQE counter */
};

/* ------------------------------------------------------------------ */
/* The engine                                                         */
/* ------------------------------------------------------------------ */

struct eng {
	struct smx_dev *dev;
	struct fw *fw;
	uint8_t *bar;
	uint32_t nr_uars;
	struct eng_obj list[ENG_K_NUM];	/* sentinels (fw->lock) */
	uint64_t gen;			/* eng_gen_bump() (fw->lock) */
	uint32_t nqps;			/* (fw->lock) */
	/* The engine's clock reading (eng_clock(), fw->lock): kept while
	 * clk_on (a batch of received cells, a doorbell's run) until
	 * eng_clock_tick() (clk_ns 0: not read yet). */
	bool clk_on;
	uint64_t clk_ns;

	/* Doorbell watcher. */
	pthread_t thr;
	bool thr_started;
	pthread_mutex_t wlock;
	pthread_cond_t wcond;
	bool stop;
	uint32_t wqps;			/* QPs as the watcher knows (wlock) */
	uint64_t last_activity;		/* ns of the last work it found */
	uint64_t watch_spin_ns;		/* it keeps looking this long after */
	bool scan_now;			/* a pass is wanted at once (wlock) */
	uint64_t next_timer;		/* earliest requester timer, ns */
	uint64_t watch_wake;		/* when its nap ends: 0 awake (wlock) */
	uint64_t timer_used;		/* latest deadline noted (wlock) */

	/* The distinct populated GIDs, read from the firmware at creation
	 * and after every command (eng_fabric_cache_gids()): routing checks
	 * run per WQE. */
	uint8_t gids[ENG_MAX_GIDS][16];
	uint32_t ngids;

	/* Shared-memory link (eng_link_shm.c); shm NULL: this process alone. */
	struct smx_shm *shm;
	uint32_t slot;
	pthread_t rx_thr;
	bool rx_started;
	bool rx_stop;
	uint64_t token;			/* last request token (fw->lock) */
	uint64_t spin_ns;		/* rx thread spins this long after work */
	/* Inbox served by the application's pollers (eng_link_shm.c): empty
	 * CQ polls so far, their count at the last CQ arm, and when a batch
	 * last found cells (all atomic). */
	uint32_t polls;
	uint32_t polls_armed;
	/* CQE compression: while a batch of Ethernet receives runs
	 * (eng_comp_batch_begin/end), their CQEs gather into sessions on the
	 * CQs of this list, written out at the batch's end. */
	uint32_t comp_batch;		/* nesting depth */
	struct eng_cq *comp_open;
	uint64_t traffic_ns;

	/* The Ethernet port's cable (eng_wire.c): socket, its thread, the
	 * far end's address (fw->lock) and frame counters (fw->lock). */
	int wire_fd;
	pthread_t wire_thr;
	bool wire_started;
	bool wire_stop;
	uint8_t *wire_buf;
	struct sockaddr_un wire_peer;
	socklen_t wire_peer_len;
	uint64_t wire_rx, wire_rx_dropped, wire_tx, wire_tx_dropped;
	uint64_t eth_flood_dropped;	/* eth_switch: frames a process missed */
	/* frames the far end could not take yet, oldest first (fw->lock) */
	uint8_t **wire_q;
	uint32_t wire_q_head, wire_q_n;
	int32_t pid;			/* ours, in the cells we send */
	struct trn_counters *ctr;	/* port counters (in our slot) */
	bool tx_paused;			/* a requester waits for our inbox to
					 * be served (fw->lock) */
	bool resume;			/* the inbox thread was woken: QPs
					 * blocked on a full inbox go on */
	uint32_t resp_pending;		/* responders owing packets (fw->lock) */
	/* Fault injection (SOFTMLX5_FAULT): one stage per peer slot for
	 * what we send, and one for what arrives from it if a rule says
	 * dir=rx (fault_rx_on: 0 not looked at yet, 1 no, 2 yes). */
	const char *fault_spec;
	struct trn_fault **fault;
	struct trn_fault **fault_rx;
	int32_t *fault_rx_pid;		/* the sender each rx stage is for */
	uint8_t fault_rx_on;
	uint64_t fault_next;		/* a held packet's deadline */
	uint8_t *txbuf;			/* a packet built for the fault stage */
	struct smx_cell *rx_in, *rx_out; /* a received packet before and
					  * after the dir=rx stage */
	uint64_t ring_mask;		/* slots published to, not yet woken
					 * (fw->lock): eng_fabric_ring() */
	/* The loopback link in packets (eng_link_loop.c): on with a fault
	 * stage, a capture or SOFTMLX5_LOOPBACK=packets; else a message to
	 * a QP of this process is handed over whole (eng_fabric_xmit()). */
	bool loop_pkts;
	struct eng_loop *loop;
	/* The network link (eng_link_udp.c): on with a port bound to a
	 * network interface; NULL otherwise. Its frames go through a packet
	 * socket (eng_link_raw.c) when raw is set: netdev_mode raw or auto,
	 * and the packet socket could be opened. */
	struct eng_udp *udp;
	struct eng_raw *raw;
	uint16_t ip_id;			/* the next IPv4 identification (raw) */

	/* The requester's shortcuts: the fast lane (eng_sq_fast()) and
	 * what QPs cache between WQEs (route, last lkey). False
	 * (SOFTMLX5_FAST=0, read at creation): every WQE takes the general
	 * decode and full checks -- the reference the differential test
	 * (tests/unit/test_diff_wqe.c) compares the shortcuts with. */
	bool fast;
	/* SOFTMLX5_ADAPTIVE_RETRANS=0 clears it: only the QPs' own ACK timers
	 * go back (eng_sq_run()). */
	bool adaptive;
	/* WQEs completed by the fast lane and by the general path's direct
	 * placement (fw->lock; tests read them to know these paths ran). */
	uint64_t fast_wqes, direct_wqes;

	/* Direct placement (eng_direct.c, fw->lock): records of peers'
	 * keys and the peers' memfds mapped here. */
	bool direct;
	bool direct_send;		/* eng_drq.c (SOFTMLX5_DIRECT_SEND) */
	struct eng_dent *dcache;	/* ENG_DCACHE entries, lazily */
	struct eng_dmap {
		int32_t pid;
		uint64_t ino;
		uint8_t *base;
		uint64_t len;
	} dmap[8];
	uint32_t dmap_next;		/* round-robin victim */
	/* Peers' pidfds (eng_direct_peer_alive()), per slot: fd + 1. */
	struct eng_pidfd {
		int32_t pid;
		int fd1;
		uint64_t gen;
	} pidfd[SMX_SHM_SLOTS];
	/* Where keys' pages lie in our memfds (eng_direct_key_where()),
	 * valid for (gen, dgen); direct-mapped by the key's address. */
	struct eng_kwhere {
		const struct fw_mkey *mk;
		uint64_t gen, dgen;
		bool ok;		/* false: the key is not in a memfd */
		int32_t fd;
		uint64_t ino, rlen;
		uint64_t off0;		/* memfd offset of the key's start */
	} kwhere[ENG_KWHERE_CACHE];

	/* Direct SEND (eng_drq.c): our table of lent receive queues (a
	 * memfd, made at the first loan), the QPs its entries lend and
	 * their doorbell records (read without the lock, as hints); peers'
	 * tables mapped here, one per slot. */
	struct smx_drq_tab *drq_tab;
	int drq_fd;
	uint64_t drq_ino;
	uint32_t drq_hi;		/* entries [0, drq_hi) may be in use */
	uint32_t drq_rr;		/* the next one a poller looks at to arm
					 * (racy among pollers: a hint) */
	struct eng_qp *drq_qp[SMX_DRQ_ENTRIES];
	uint32_t (*drq_total)[SMX_DRQ_DEPTH];	/* bytes each armed receive
						 * holds, as we checked it */
	const uint32_t *drq_dbr[SMX_DRQ_ENTRIES];
	struct eng_drqmap {
		int32_t pid;
		uint64_t ino;
		struct smx_drq_tab *tab;
	} drqmap[SMX_SHM_SLOTS];

	/* Scratch for the WQE being executed (fw->lock). */
	uint8_t wqe[ENG_MAX_WQE_BYTES + 64] __attribute__((aligned(64)));
};

/* ------------------------------------------------------------------ */
/* Scatter/gather lists: validated memory, translated chunk by chunk  */
/* ------------------------------------------------------------------ */

/* Either host memory (@host: inline data, device scratch) or @len bytes of
 * mkey @mk starting at virtual address @va (already checked). */
struct eng_sge {
	uint8_t *host;
	struct fw_mkey *mk;
	uint64_t va;
	uint64_t len;
};

struct eng_sgl {
	struct eng_sge *sge;
	uint32_t n;
	uint64_t len;		/* sum of sge[].len */
};

/* ------------------------------------------------------------------ */
/* The fabric: one message ("packet") from a requester to a responder */
/* ------------------------------------------------------------------ */

enum eng_pkt_op {
	ENG_PKT_SEND,
	ENG_PKT_WRITE,
	ENG_PKT_READ,
	ENG_PKT_CMP_SWAP,
	ENG_PKT_FETCH_ADD,
};

enum {
	ENG_PKT_F_IMM = 1 << 0,	/* imm carries immediate data */
	ENG_PKT_F_INV = 1 << 1,	/* inv_rkey: SEND with invalidate */
	ENG_PKT_F_SE = 1 << 2,	/* solicited event */
};

struct eng_pkt {
	uint8_t op;		/* enum eng_pkt_op */
	uint8_t flags;
	uint8_t st;		/* MLX5_QPC_ST_* of the sender */
	uint32_t sqpn, dqpn;
	uint32_t psn;		/* first PSN */
	uint32_t npkts;		/* packets the message takes on the wire */
	uint32_t len;		/* message length */
	uint32_t imm;		/* immediate data, big-endian as in the WQE */
	uint32_t inv_rkey;
	uint32_t qkey;		/* UD */
	uint32_t xrc_srqn;	/* XRC */
	uint64_t dc_key;	/* DC: the DC access key the DCT must hold */
	uint8_t dc_gen;		/* DC: the DCI's stream generation */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add, compare;
	uint16_t pkey;
	uint8_t sgid[16], dgid[16];	/* UD GRH */
	uint8_t tclass, hop_limit;
	uint32_t flow_label;
	/* SEND / WRITE data: the whole message (in-process), or this
	 * packet's payload (@plen bytes at offset @off of the message). */
	const struct eng_sgl *payload;
	const struct eng_sgl *rdata;	/* READ / atomic response lands here
					 * (in-process; NULL: from another
					 * process, answered by packets) */
	uint8_t seg;		/* ENG_SEG_*: where the packet is in its
				 * message (in-process: FIRST | LAST) */
	bool ackreq;		/* AckReq: the requester wants an ACK */
	uint32_t plen;		/* payload bytes in this packet */
	uint32_t src_slot;	/* the sending process (packets) */
};

enum { ENG_SEG_FIRST = 1, ENG_SEG_LAST = 2, ENG_SEG_ONLY = 3 };

/*
 * The fields a request packet's headers carry as they are (struct eng_pkt
 * field, struct ibp_hdr field): the one list the requester builds headers
 * from (fab_req_hdr()) and the responder reads them back with
 * (eng_resp_pkt()). What is derived -- the opcode, PSN, P_Key default,
 * source QPN, length, AckReq, SE -- each of them handles.
 */
#define ENG_PKT_HDR_FIELDS(X)			\
	X(dqpn, dqpn)		/* BTH */	\
	X(xrc_srqn, xrc_srqn)	/* XRCETH */	\
	X(dc_key, dc_key)	/* DCETH */	\
	X(dc_gen, dc_gen)			\
	X(qkey, qkey)		/* DETH */	\
	X(raddr, va)		/* RETH, AtomicETH */ \
	X(rkey, rkey)				\
	X(swap_add, swap_add)	/* AtomicETH */	\
	X(compare, compare)			\
	X(imm, imm)		/* ImmDt, wire order */ \
	X(inv_rkey, ieth_rkey)	/* IETH */

enum eng_ack {
	ENG_ACK_OK = 0,
	ENG_ACK_DROPPED,	/* no response at all (lost, or UC/UD) */
	ENG_NAK_RNR,
	ENG_NAK_SEQ,		/* PSN sequence error */
	ENG_NAK_INV_REQ,
	ENG_NAK_REM_ACCESS,
	ENG_NAK_REM_OP,
	ENG_ACK_LOCAL_PROT,	/* (completer) READ data could not land */
};

struct eng_resp {
	uint8_t ack;		/* enum eng_ack */
	uint8_t rnr_timer;	/* min_rnr_nak encoding, for ENG_NAK_RNR */
	uint64_t atomic_orig;
};

/* ------------------------------------------------------------------ */
/* Completions                                                        */
/* ------------------------------------------------------------------ */

struct eng_cqe {
	uint8_t opcode;		/* MLX5_CQE_* */
	uint8_t syndrome;	/* error CQEs */
	uint8_t vendor_synd;
	uint8_t sq_opcode;	/* requester CQEs: the WQE's MLX5_OPCODE_* */
	uint32_t qpn;
	uint16_t wqe_counter;
	uint32_t byte_cnt;
	uint32_t imm_inval_pkey;	/* stored as given (big-endian imm) */
	uint32_t flags_rqpn;	/* host order */
	uint32_t srqn_uidx;
	bool solicited;		/* wakes a solicited-only armed CQ */
	const void *raw;	/* 64 bytes given whole (signature error CQE) */
	bool compressible;	/* an Ethernet receive CQE (raw): may join a
				 * compressed session on a cqe_comp_en CQ */
};

/* EQE types (PRM "event types"). */
enum {
	ENG_EVT_COMP = 0x00,
	ENG_EVT_SQ_DRAINED = 0x03,
	ENG_EVT_CQ_ERROR = 0x04,
	ENG_EVT_WQ_CATAS_ERROR = 0x05,
	ENG_EVT_WQ_INVAL_REQ_ERROR = 0x10,
	ENG_EVT_WQ_ACCESS_ERROR = 0x11,
	ENG_EVT_SRQ_CATAS_ERROR = 0x12,
	ENG_EVT_SRQ_LAST_WQE = 0x13,
	ENG_EVT_SRQ_RQ_LIMIT = 0x14,
};

/* ------------------------------------------------------------------ */
/* Cross-file prototypes                                              */
/* ------------------------------------------------------------------ */

/* engine.c */
uint64_t eng_now(void);

/*
 * CLOCK_MONOTONIC for the engine's timers and CQE timestamps: read once for
 * a batch of received cells or a doorbell's run, and again after whatever
 * may have taken a while (a long copy, ENG_CLOCK_WQES WQEs), not at each
 * use (a small SEND read it 3-5 times on each side, ~25 ns each, an eighth
 * of its cost); outside a batch or run, read at each call.
 */
static inline uint64_t eng_clock(struct eng *e)
{
	if (!e->clk_on)
		return eng_now();
	if (!e->clk_ns)
		e->clk_ns = eng_now();
	return e->clk_ns;
}

/* A message this long takes long enough to copy that the clock is read
 * again after it (its timer starts then); so is it every ENG_CLOCK_WQES
 * WQEs of one run (a few microseconds). */
#define ENG_CLOCK_STALE_BYTES 65536u
#define ENG_CLOCK_WQES 16u

/* The next packet or WQE: the clock is read again when next used. */
static inline void eng_clock_tick(struct eng *e)
{
	e->clk_ns = 0;
}

/* A batch or a doorbell's run begins (returns what eng_clock_end() puts
 * back: batches nest) / ends. */
static inline bool eng_clock_begin(struct eng *e)
{
	bool was = e->clk_on;

	e->clk_on = true;
	e->clk_ns = 0;
	return was;
}

static inline void eng_clock_end(struct eng *e, bool was)
{
	e->clk_on = was;
	e->clk_ns = 0;
}
struct eng_qp *eng_qp_of(struct eng *e, struct fw_qp *qp);
struct eng_cq *eng_cq_of(struct eng *e, struct fw_cq *cq);
struct eng_eq *eng_eq_of(struct eng *e, struct fw_eq *eq);
struct eng_srq *eng_srq_of(struct eng *e, struct fw_srq *srq);
void eng_irq_fire(struct eng *e, uint32_t vector);
/* A key or a QP of this process changed (every command, a UMR, a remote
 * invalidation, a QP error), before fw->lock is dropped: what WQEs cached
 * about them (struct eng_qp c_*) and the records peers hold are void. */
void eng_gen_bump(struct eng *e);
/* Moves @qp to ERR as the hardware does after an error completion. */
void eng_qp_to_err(struct eng *e, struct fw_qp *qp);
/* A requester timer was set: make the watcher wake by @deadline. */
void eng_timer_note(struct eng *e, uint64_t deadline);
/* One pass over all QPs (watcher); returns true if there was work. */
bool eng_scan(struct eng *e, uint64_t now);
const char *eng_synd_str(uint8_t syndrome);
/* eng_sq.c: an opcode's name and segments, from the requester's table */
const char *eng_sq_op_layout(uint8_t opcode, bool *raddr, bool *atomic, bool *umr);

/* engine.c: for eng_eth.c's objects (linked like the others; the
 * watcher polls Ethernet SQs too) */
void eng_obj_add(struct eng *e, struct eng_obj *o, enum eng_kind kind);
void eng_watch_add(struct eng *e, int delta);
void eng_watch_kick(struct eng *e);

/* eng_eth.c: Ethernet SQs and RQs, NIC receive */
void eng_eth_sq_changed(void *arg, struct fw_sq *sq, uint32_t old_state);
void eng_eth_rq_changed(void *arg, struct fw_rq *rq, uint32_t old_state);
/* Executes the posted WQEs of @sq (RDY), or flushes them (ERR). */
void eng_eth_sq_run(struct eng *e, struct fw_sq *sq);
/* One watcher pass over the SQs and RQs; true if there was work. */
bool eng_eth_scan(struct eng *e);
/* A frame arriving at the NIC receive (sent by an SQ of @tis, or NULL). */
/* eng_link_shm.c: a sent frame to the other processes (eth_switch) */
void eng_fabric_eth_flood(struct eng *e, const uint8_t *frame, uint32_t len);
/* eng_wire.c: the port's cable (a UNIX datagram socket) */
void eng_wire_start(struct eng *e);
void eng_wire_stop(struct eng *e);
void eng_wire_tx(struct eng *e, const uint8_t *frame, uint32_t len);
void eng_eth_rx(struct eng *e, const uint8_t *frame, uint32_t len,
		const struct fw_tis *tis);

/* eng_mmio.c */
void eng_mmio(struct eng *e, uint64_t offset, const uint8_t *buf,
	      size_t len);
/* Takes the EQ doorbells stored in @uar's page (true if there were any). */
bool eng_eq_uar_take(struct eng *e, struct fw_uar *uar);
/* The same for the pages of every EQ the engine knows (watcher). */
bool eng_eq_uar_scan(struct eng *e);

/* eng_sq.c: the requester */
/* Executes posted send WQEs of @q (or flushes them in ERR). */
void eng_sq_run(struct eng *e, struct eng_qp *q);
/* Flushes every posted SQ WQE of an ERR QP with WR_FLUSH_ERR. */
void eng_sq_flush(struct eng *e, struct eng_qp *q);
uint32_t eng_mtu_bytes(uint32_t mtu_enum);
uint64_t eng_rnr_timer_ns(uint32_t enc);
uint64_t eng_ack_timeout_ns(uint32_t timeout);
uint32_t eng_psn_add(uint32_t psn, uint32_t n);
/* Distance a - b in the 24-bit PSN space, as a signed value. */
int32_t eng_psn_diff(uint32_t a, uint32_t b);

/* eng_resp.c: the responder */
void eng_resp_rx(struct eng *e, const struct eng_pkt *p, struct eng_resp *r);
/* engine.c: a microsecond knob from the environment, in ns. */
uint64_t eng_env_us(const char *name);
/* An 8-byte CAS / fetch-add on host-order memory; the value before. */
uint64_t eng_atomic8(const struct eng_pkt *p, uint64_t *m);

/* eng_rq.c: receive WQEs */
struct eng_rwqe {
	struct fw_srq *srq;	/* NULL: the QP's RQ */
	uint16_t index;		/* WQE index (CQE wqe_counter) */
	uint32_t nseg;
	struct mlx5_wqe_data_seg seg[ENG_MAX_SGE];
};
/* Parses the data segments of a copied receive WQE body (ended by
 * MLX5_INVALID_LKEY or @len) into @w. */
void eng_rwqe_parse(struct eng_rwqe *w, const uint8_t *p, uint32_t len);
/* Takes the next receive WQE of @qp (RQ, or @srq); false if none posted. */
/* Regular RQ: receive WQE @index of @qp, parsed (not taken). */
bool eng_rq_peek(const struct fw_qp *qp, uint16_t index, struct eng_rwqe *w);
bool eng_rq_take(struct eng *e, struct fw_qp *qp, struct fw_srq *srq,
		 struct eng_rwqe *w);
/* Flushes every posted RQ WQE of an ERR QP with WR_FLUSH_ERR. */
void eng_rq_flush(struct eng *e, struct eng_qp *q);
/* SRQ limit event check after a WQE was taken. */
void eng_srq_limit_check(struct eng *e, struct fw_srq *srq);

/* eng_comp.c: CQEs and EQEs */
/* Writes a CQE to @cq (completion event if armed); false on overrun. */
bool eng_cqe_post(struct eng *e, struct fw_cq *cq, const struct eng_cqe *c);
/* A batch of Ethernet receives whose CQEs may be compressed: sessions are
 * gathered between begin and end and written at end (fw->lock held
 * throughout). */
void eng_comp_batch_begin(struct eng *e);
void eng_comp_batch_end(struct eng *e);
/* Applies a CQ arm request (doorbell or arm record). */
void eng_cq_arm(struct eng *e, struct fw_cq *cq, uint32_t arm_word);
void eng_eq_doorbell(struct eng *e, struct fw_eq *eq, uint32_t ci, bool arm);
/* Async event about a QP (@is_srq: an SRQ) to every EQ that enables it. */
void eng_async_event(struct eng *e, uint8_t type, uint32_t num, bool is_srq,
		     uint16_t uid);
/* Writes one EQE (type, 28 bytes of data) to @eq; fires the IRQ if armed. */
void eng_eqe_post(struct eng *e, struct fw_eq *eq, uint8_t type,
		  uint8_t sub_type, const uint8_t data[28]);

/* eng_mkey.c: keys, translation, copies */
enum {
	ENG_ACC_LR = 1 << 0,
	ENG_ACC_LW = 1 << 1,
	ENG_ACC_RR = 1 << 2,
	ENG_ACC_RW = 1 << 3,
	ENG_ACC_A = 1 << 4,
};
enum eng_key_err {
	ENG_KEY_OK = 0,
	ENG_KEY_INVALID,	/* no such key / free */
	ENG_KEY_PD,
	ENG_KEY_RIGHTS,
	ENG_KEY_BOUNDS,
	ENG_KEY_MODE,		/* access mode the engine cannot translate */
};
/*
 * Checks key @key for [va, va + len) with rights @need in protection domain
 * @pd; on success *mkp is the mkey. On failure @why (may be NULL) says why.
 */
/* eng_umr.c: executes the UMR WQE at @wqe; 0 or a CQE syndrome + @why. */
/* eng_sig.c: signature mkeys */
struct eng_sig_err {
	bool set;
	uint8_t domain;		/* SMX_SIGERR_DOMAIN_* */
	uint16_t syndrome;	/* SMX_SIGERR_SYND_* */
	uint64_t offset;	/* data offset of the bad block */
	uint32_t expected_sig, actual_sig, expected_ref, actual_ref;
	char why[160];		/* a transfer that could not be done */
};
/* Keys whose data go through eng_sig_read/write: signature and crypto. */
static inline bool eng_xform(const struct fw_mkey *mk)
{
	return mk->sig.en || mk->crypto_cap;
}
uint8_t eng_sig_bsf(struct eng *e, struct fw_mkey *mk, const uint8_t *bsf,
		    uint32_t bsf_bytes, uint64_t layout_len, struct fw_sig *out,
		    struct fw_mkey_crypto *cout, char *why, size_t whylen);
uint8_t eng_sig_set_psv(struct eng *e, struct fw_qp *qp, const uint8_t *wqe,
			uint32_t len, char *why, size_t whylen);
/* The key's address space is its wire stream, eng_sig_len() bytes. */
uint64_t eng_sig_len(const struct fw_mkey *mk);
/* The layout range [*mva, +*mlen) holding the blocks wire bytes [va, +len)
 * touch; false (with @why) unless the range is inside the key. */
bool eng_sig_span(const struct fw_mkey *mk, uint64_t va, uint64_t len,
		  uint64_t *mva, uint64_t *mlen, char *why, size_t whylen);
/* Wire bytes [va, +len) out of / into memory (@out / @in, len bytes);
 * -1 with err->why if the layout could not be translated. */
int eng_sig_read(struct fw_mkey *mk, uint64_t va, uint64_t len, uint8_t *out,
		 struct eng_sig_err *err);
int eng_sig_write(struct fw_mkey *mk, uint64_t va, uint64_t len, const uint8_t *in,
		  struct eng_sig_err *err);
void eng_sig_report(struct eng *e, struct fw_cq *cq, const struct fw_mkey *mk,
		    uint32_t qpn, const struct eng_sig_err *err);

uint8_t eng_umr_exec(struct eng *e, struct fw_qp *qp, const uint8_t *wqe,
		     uint32_t len, char *why, size_t whylen);

int eng_key_check(struct eng *e, uint32_t key, const struct fw_pd *pd,
		  uint32_t need, uint64_t va, uint64_t len,
		  struct fw_mkey **mkp, char *why, size_t whylen);
/* [va, va + len) inside a key's range [base, base + klen) (not len64):
 * eng_key_check()'s bounds, and direct placement's on a record. */
static inline bool eng_key_inside(uint64_t base, uint64_t klen, uint64_t va,
				  uint64_t len)
{
	return va >= base && va - base <= klen && len <= klen - (va - base);
}

/* eng_access.c: the rules a remote request meets at its target QP */
struct eng_racc {
	uint8_t st;		/* the QP's transport (MLX5_QPC_ST_*, DCT) */
	uint8_t acc;		/* ENG_ACC_RW / RR / A: rwe, rre, rae */
	uint8_t log_msg;	/* log_msg_max (0: no limit) */
};
enum eng_racc_verdict {
	ENG_RACC_OK = 0,
	ENG_RACC_DROP,		/* silently dropped (UD) */
	ENG_RACC_INV_REQ,	/* NAK invalid request */
	ENG_RACC_ACCESS,	/* NAK remote access error */
};
/* @qp receives (RTR, RTS, SQD, SQER). */
bool eng_racc_ready(const struct fw_qp *qp);
/* Transport @st has connections, and READ, atomics and responder
 * resources (RC, XRC, DCT). */
bool eng_racc_connected(uint32_t st);
void eng_racc_of(const struct fw_qp *qp, struct eng_racc *a);
/* May operation @op (enum eng_pkt_op) of a @len-byte message (a SEND: the
 * bytes so far) at @raddr go to QP @qpn that @a describes? @why says why
 * not (may be NULL). */
enum eng_racc_verdict eng_racc_op(const struct eng_racc *a, uint32_t qpn,
				  uint8_t op, uint64_t raddr, uint64_t len,
				  char *why, size_t whylen);

/* [va, va + len) (len > 0) inside an MTT key's range: are its first and last
 * pages translated? (Registration fills every page; a partial MTT may not.) */
static inline bool eng_mtt_covers(const struct fw_mkey *mk, uint64_t va,
				  uint64_t len)
{
	uint64_t base = mk->start & ~((1ull << mk->page_shift) - 1);
	uint64_t last = (va + len - 1 - base) >> mk->page_shift;

	return last < mk->nmtt && mk->mtt[last] &&
	       mk->mtt[(va - base) >> mk->page_shift];
}

/* Host address of @va in an MTT key without umem (entry i covers page i
 * counted from the page holding start_addr) and the bytes that follow it
 * contiguously: the rest of its page, and further pages while each next
 * entry is the host page right after (what reg_mr makes) and fewer than
 * @want bytes are covered (0: one page). */
static inline uint8_t *eng_mtt_host(const struct fw_mkey *mk, uint64_t va,
				    uint64_t want, uint64_t *contig)
{
	uint64_t psz = 1ull << mk->page_shift;
	uint64_t i = (va - (mk->start & ~(psz - 1))) >> mk->page_shift;
	uint64_t c;

	if (i >= mk->nmtt || !mk->mtt[i])
		return NULL;
	c = psz - (va & (psz - 1));
	for (; c < want && i + 1 < mk->nmtt &&
	       mk->mtt[i + 1] == mk->mtt[i] + psz; i++)
		c += psz;
	*contig = c;
	return (uint8_t *)(uintptr_t)mk->mtt[(va - (mk->start & ~(psz - 1))) >>
					     mk->page_shift] + (va & (psz - 1));
}

/* The key @kc holds, if it is @key, was checked for @pd and (at least)
 * @need since the last eng_gen_bump() -- only plain MTT keys are cached, so
 * their range and MTT pages are all that is left to check -- else NULL. */
static inline struct fw_mkey *eng_kcache_hit(const struct eng *e,
					     const struct eng_kcache *kc,
					     uint32_t key,
					     const struct fw_pd *pd,
					     uint32_t need, uint64_t va,
					     uint64_t len)
{
	struct fw_mkey *mk = kc->mk;

	if (mk && kc->gen == e->gen && kc->key == key && kc->pd == pd &&
	    !(need & ~kc->need) && eng_key_inside(mk->start, mk->len, va, len) &&
	    (!len || eng_mtt_covers(mk, va, len)))
		return mk;
	return NULL;
}

/* eng_key_check() through @kc: a key found valid with these rights and PD
 * since the last eng_gen_bump() only has its bounds checked again; any other
 * case (or a failure), and every case while e->fast is off, takes the full
 * check, whose result refills @kc. */
int eng_key_check_cached(struct eng *e, struct eng_kcache *kc, uint32_t key,
			 const struct fw_pd *pd, uint32_t need, uint64_t va,
			 uint64_t len, struct fw_mkey **mkp, char *why,
			 size_t whylen);
/* Host address of @va in @mk, and how many bytes are contiguous there. */
uint8_t *eng_mkey_host(const struct fw_mkey *mk, uint64_t va,
		       uint64_t *contig);
/* Copies @len bytes from @src at @soff to @dst at @doff; returns bytes
 * copied: fewer when a piece cannot be translated or a page of memory a
 * key names is not mapped (eng_fault_why() says which). */
uint64_t eng_sgl_copy(const struct eng_sgl *dst, uint64_t doff,
		      const struct eng_sgl *src, uint64_t soff, uint64_t len);
/* Are the first @len bytes of @l translatable, and the memory keys name
 * there mapped readable (@write: writable)? For a requester's own list
 * before another side copies it (a fault there would be blamed on that
 * side): one guarded access per page. */
bool eng_sgl_probe(const struct eng_sgl *l, uint64_t len, bool write);
/* Why a copy or probe just failed, for an error's log line: the page that
 * faulted, or that a piece could not be translated. Returns @buf. */
const char *eng_fault_why(char *buf, size_t len);
/* Host iovecs for [off, off + len) of @l, contiguous chunks merged; at most
 * @max. Returns the count and sets *covered (< len when @max ran out or a
 * chunk cannot be translated); -1 when @no_host and a host chunk is met. */
struct iovec;
int eng_sgl_iov(const struct eng_sgl *l, uint64_t off, uint64_t len,
		struct iovec *iov, int max, bool no_host, uint64_t *covered);
/* Host address of 8 naturally aligned bytes at @off in @l, or NULL. */
uint8_t *eng_sgl_ptr8(const struct eng_sgl *l, uint64_t off);

/* eng_direct.c: one-sided RDMA WRITE / READ placed by the requester in a
 * peer's memfd-backed memory after its own check of the peer's key. */
void eng_direct_start(struct eng *e);
void eng_direct_fini(struct eng *e);
/* This process's keys or QPs changed: records given out are void (called
 * by eng_gen_bump()). */
void eng_direct_bump(struct eng *e);
/* Should the request to @slot ask for a record? */
bool eng_direct_want(struct eng *e, uint32_t slot, const struct eng_pkt *p);
/* Direct placement would take @p now (its record is current). */
bool eng_direct_ready(struct eng *e, uint32_t slot, const struct eng_pkt *p);
/* Responder side: a record for the (QP, rkey) a request has just used. */
void eng_direct_record(struct eng *e, uint8_t op, uint32_t dqpn, uint32_t rkey,
		       struct smx_drec *d);
void eng_direct_learn(struct eng *e, uint32_t slot, const struct smx_drec *d);
/* Requester side: executes @p against @slot's memory; false: use the
 * inbox (no record, a check failed, the record went stale). */
bool eng_direct_exec(struct eng *e, const struct eng_pkt *p, uint32_t slot,
		     uint64_t *atomic_orig);
/* SEND by reference: fills @r for a SEND of @p (@npkts PSNs) whose payload
 * lies in our memfd-backed memory; false: send the payload in packets. */
bool eng_direct_sref(struct eng *e, const struct eng_pkt *p, uint32_t npkts,
		     struct smx_sref *r);
/* The receiving side: the referenced payload mapped here (@pid: the
 * sender's, from the process table), or NULL. */
const uint8_t *eng_direct_sref_map(struct eng *e, int32_t pid,
				   const struct smx_sref *r);
/* The same as eng_direct_exec() for an RDMA WRITE (ENG_PKT_WRITE, no
 * immediate) or READ of @len bytes whose local side is the checked,
 * contiguous host range @local: memory an lkey names when @app (copied
 * through the fault guard; false if it faulted), else our own (inline
 * data). */
bool eng_direct_rdma(struct eng *e, uint32_t slot, uint8_t op, uint8_t st,
		     uint32_t dqpn, uint32_t rkey, uint64_t raddr, uint32_t len,
		     uint8_t *local, bool app);
/* Where the pages of key @mk lie in one of our memfds (*@host: the address
 * of its first byte); false: not in one contiguous memfd run. */
bool eng_direct_key_memfd(const struct fw_mkey *mk, uint64_t *host, int *fd,
			  uint64_t *ino, uint64_t *rva, uint64_t *rlen);
/* Where the pages of key @mk (not a signature / crypto key) lie in our
 * memfds, cached until e->gen or @dgen (our smx_shm_dgen(), read before)
 * moves; NULL: not in one. */
const struct eng_kwhere *eng_direct_key_where(struct eng *e,
					      const struct fw_mkey *mk,
					      uint64_t dgen);
/* Is @slot still held by process @pid (not exited, slot not reclaimed)?
 * Cheap after the first look (a pidfd). */
bool eng_direct_peer_alive(struct eng *e, uint32_t slot, int32_t pid);
/* A peer's memfd mapped here: an index into e->dmap, or -1. */
int eng_direct_map(struct eng *e, int32_t pid, int32_t fd, uint64_t ino,
		   uint64_t rlen);

/* eng_drq.c: direct SEND -- an RC QP's receive queue lent to its peer,
 * which places SENDs into it (fabric/drq.h). fw->lock held throughout. */
void eng_drq_start(struct eng *e);
void eng_drq_fini(struct eng *e);
/* eng_resp.c: the CQE of receive @index that message @p (its last packet)
 * filled with @byte_cnt bytes. */
void eng_resp_cqe(struct eng *e, struct fw_qp *qp, struct fw_cq *cq,
		  uint16_t index, uint32_t srqn_uidx, uint32_t byte_cnt,
		  const struct eng_pkt *p);
/* Owner side. A SEND that asked for a record (SMX_CELL_F_DREQ) came to
 * @qp from @slot: lend its receive queue if it can be, and answer. */
void eng_drq_record(struct eng *e, uint32_t slot, struct fw_qp *qp,
		    uint32_t sqpn);
/* Cheap and without the lock: do arrivals or newly posted receives wait
 * (then eng_drq_run(), under the lock, must follow)? Takes the news. */
bool eng_drq_due(struct eng *e);
/* Every lent queue: arrivals completed, new receives armed; how many
 * arrivals. */
unsigned int eng_drq_run(struct eng *e);
/* The responder is about to take receive rq_ci of @q: arrivals before it
 * completed, then the WQE claimed; false: a peer holds it (RNR). */
void eng_drq_collect(struct eng *e, struct eng_qp *q);
bool eng_drq_claim(struct eng *e, struct eng_qp *q);
/* Takes the queue back (the QP leaves RTS / RTR, is reset or destroyed):
 * no further claim, what arrived completed; @release frees the entry. */
void eng_drq_close(struct eng *e, struct eng_qp *q, bool release);
/* Peer side: a record from @slot's process @pid. */
void eng_drq_learn(struct eng *e, uint32_t slot, int32_t pid,
		   const struct smx_rrec *r);
/* Should a SEND of @q to @slot ask for a record? Would direct SEND take
 * @p now? */
bool eng_drq_want(struct eng *e, struct eng_qp *q, uint32_t slot,
		  const struct eng_pkt *p);
bool eng_drq_ready(struct eng *e, struct eng_qp *q, uint32_t slot,
		   const struct eng_pkt *p);
/* Places SEND @p of @q into a receive @slot lent us; false: send it as
 * packets (no record, nothing armed, a check failed, a fault, or a small
 * SEND with @more WQEs posted behind it). */
bool eng_drq_send(struct eng *e, struct eng_qp *q, const struct eng_pkt *p,
		  uint32_t slot, bool more);

/*
 * LINKS (docs/transport.md). A destination is a number: the slot of a
 * process on the shared-memory link, this process's own slot on the
 * loopback link when it carries packets. The stages and the packet layer
 * of eng_fabric.c (segmentation, building, fault stages, capture, the
 * checks of what arrives) reach a link only through its ops; what a link
 * receives goes to eng_fabric_rx_pkt().
 */
/* Destinations: [0, SMX_SHM_SLOTS) the processes of this host (their
 * slots; our own is the loopback link's), [ENG_NET_DST0, ENG_DSTS) hosts
 * on the network, one per IP address (eng_link_udp.c). */
#define ENG_NET_DST0 SMX_SHM_SLOTS
/* The adaptive retransmission timer's start towards the network (both
 * network links, udp and raw): 1 ms (the shared-memory link's) went back
 * on data merely late -- on two busy cores a thread waits milliseconds
 * for its turn -- and the resends cost more than they saved (64 KiB
 * ib_read_bw: 10-60 MB/s against 120-200 without the timer; 4 ms:
 * 125-160). */
#define ENG_NET_RTO_NS (4 * 1000000ull)
#define ENG_NET_DSTS 256u
#define ENG_DSTS (ENG_NET_DST0 + ENG_NET_DSTS)
/* Is destination @dst on the network? Shared-memory features (direct
 * placement, direct SEND, SEND by reference, tombstones) never are. */
static inline bool eng_dst_net(int64_t dst)
{
	return dst >= (int64_t)ENG_NET_DST0;
}

struct eng_link_tx {
	uint8_t *buf;		/* where the packet is built */
	uint32_t cap;		/* bytes of room there */
	uint32_t dst;
	uint64_t pos;		/* the link's own */
	void *cell;		/* the link's own */
};

struct eng_link_ops {
	const char *name;
	/* Room for a packet to @dst: 1 (t->buf, t->cap set), 0 none now
	 * (the link resumes blocked requesters when there is), -ENOTCONN
	 * nobody is there any more (the packet is lost, as on a wire). */
	int (*tx_get)(struct eng *e, uint32_t dst, struct eng_link_tx *t);
	/* The @len bytes built in t->buf go, with @flags (SMX_CELL_F_ICRC:
	 * the ICRC is computed, SMX_CELL_F_DREQ); @len 0 gives the room
	 * back unused. */
	void (*tx_put)(struct eng *e, struct eng_link_tx *t, uint32_t len,
		       uint8_t flags);
	/* Packets @dst can take right now (a hint). */
	uint32_t (*tx_room)(struct eng *e, uint32_t dst);
	/* Is @dst still there, and is it taking what it is sent? */
	bool (*alive)(struct eng *e, uint32_t dst);
	bool (*stalled)(struct eng *e, uint32_t dst, uint64_t since_ns);
	/* A real network: every packet carries its ICRC. */
	bool icrc;
	/* The UDP source port every packet has (a socket's own), or 0: the
	 * QP's (roce_udp_sport()). */
	uint16_t sport;
	/* The link sends the IP header as built: IPv4 packets are numbered
	 * (identification), which the ICRC covers. */
	bool ip_id;
	/* The adaptive retransmission timer's first value (eng_sq.c), or
	 * 0: ConnectX's 1 ms. */
	uint64_t rto_ns;
};

/* eng_link_shm.c: the shared-memory link between processes. */
extern const struct eng_link_ops eng_link_shm;
/* Responder: a direct placement record of (@dqpn, @rkey) to @slot. */
void eng_fabric_drec(struct eng *e, uint32_t slot, uint8_t op, uint32_t dqpn,
		     uint32_t rkey);
/* Gives @slot's engine the record of a receive queue lent to it. */
void eng_fabric_rrec(struct eng *e, uint32_t slot, const struct smx_rrec *r);
/* One cell as the inbox thread handles it, as a batch of its own (takes
 * fw->lock): the cell need not be in the inbox. For the receive-path
 * fuzzer (tests/fuzz/fuzz_rc_rx.c), which plays another process. */
void eng_fabric_rx_cell(struct eng *e, const struct smx_cell *c);
/* What the inbox thread does when room was made in an inbox we waited for
 * (takes fw->lock): blocked QPs go on, responders send what they owe. */
void eng_fabric_resume(struct eng *e);
/* Wakes every process published to since the last call (one futex wake per
 * sleeping process, not one per message). */
void eng_fabric_ring(struct eng *e);
/* A CQ was armed by a doorbell: the application waits for events now. */
void eng_fabric_armed(struct eng *e);
/* Does the application busy poll its CQs, so that its idle pollers serve
 * the links (eng_fabric_progress()): enough empty polls since the last
 * look (*@seen polls at *@seen_ns, updated), no CQ armed since? For the
 * threads that would otherwise wake for each arrival. */
bool eng_fabric_busy_polled(struct eng *e, uint32_t *seen, uint64_t *seen_ns,
			    uint64_t now);
/* Stops the inbox thread (eng_destroy). */
void eng_fabric_stop(struct eng *e);
/* eng_link_loop.c: the loopback link in packets. */
struct eng_loop;
extern const struct eng_link_ops eng_link_loop;
/* Engine creation, after eng_fabric_fault_init(): whether the loopback
 * link carries packets (a fault spec, a capture or the key
 * loopback_packets). eng_loop_stop(): engine destruction, once no thread
 * runs the engine. */
void eng_loop_start(struct eng *e);
void eng_loop_stop(struct eng *e);
/* Receives what the loopback link carries until it is empty (fw->lock
 * held): the end of every engine pass. */
void eng_loop_run(struct eng *e);
/* Has the loopback link packets waiting? */
bool eng_loop_pending(const struct eng *e);

/* eng_link_udp.c: the network link of a port bound to an interface in
 * netdev_mode udp (UDP sockets on port 4791). eng_udp_start(): once the
 * slot is known (eng_fabric_start()); eng_udp_stop(): engine destruction,
 * before the shared-memory link stops. */
extern const struct eng_link_ops eng_link_udp;
void eng_udp_start(struct eng *e);
void eng_udp_stop(struct eng *e);
/* The destination of the host at @gid (added if new), or -1: not an
 * address the link reaches (fw->lock held). */
int eng_udp_dst(struct eng *e, const uint8_t gid[16]);
/* Sends the packets queued for the sockets (fw->lock held): the end of
 * every engine pass (eng_fabric_ring()). */
void eng_udp_flush(struct eng *e);
/* An idle poller takes what waits on the sockets; true if anything. */
bool eng_udp_poll(struct eng *e);
/* Do datagrams wait in our sockets (the receive side is behind)? */
bool eng_udp_pending(struct eng *e);
/* QP @qp, connected to the network, is destroyed: what it received stays
 * known for a while (the device's close waits for it). */
void eng_udp_tomb_put(struct eng *e, const struct fw_qp *qp);
/* A request @h from @src to a QP that is gone: answered from its
 * tombstone if it is one the QP had received (true). */
struct ibp_hdr;
bool eng_udp_tomb_ack(struct eng *e, const struct ibp_hdr *h, uint32_t src);
/* A packet another process of this host received from the network for a
 * QP of ours (SMX_CELL_F_NET); returns as eng_fabric_rx_pkt(). */
struct smx_cell;
struct eng_qp *eng_udp_rx_cell(struct eng *e, const struct smx_cell *c);
/* What the raw link shares with it. The GID of network destination @dst,
 * or NULL (fw->lock held). */
const uint8_t *eng_udp_dst_gid(const struct eng *e, uint32_t dst);
/* Packet @pkt (@len bytes from its IP header, its BTH at @ib_off) from
 * the host at @sgid: forwarded to the process of this host owning its
 * QPN, or to the transport; returns as eng_fabric_rx() (fw->lock held). */
struct eng_qp *eng_udp_rx_ip(struct eng *e, const uint8_t sgid[16],
			     const uint8_t *pkt, uint32_t len, uint32_t ib_off,
			     uint8_t flags);
/* The QPs a receive batch runs at its end (eng_fabric_rx_end()); adding
 * to a full list ends the batch there and starts another. */
#define ENG_UDP_RUN 64u
struct eng_udp_run {
	struct eng_qp *q[ENG_UDP_RUN];
	unsigned int n;
};
void eng_udp_run_add(struct eng *e, struct eng_udp_run *r, struct eng_qp *q);
/* Sends @m[*at, @n) with sendmmsg(), again after EINTR, waiting once for
 * room (*waited) when the socket is full: 0 when all went out, else the
 * error of message *at, which the caller drops or changes (both links). */
int eng_net_send(int fd, struct mmsghdr *m, uint32_t n, uint32_t *at,
		 bool *waited);
/* Handles @n received items under fw->lock as one batch: @one(e, k, arg,
 * run) for k in [0, n) hands item k on, adding the QPs to run at the
 * batch's end to @run (rx_mu held). */
void eng_udp_rx_batch(struct eng *e, uint32_t n,
		      void (*one)(struct eng *, uint32_t, void *,
				  struct eng_udp_run *),
		      void *arg);
void eng_udp_drop(struct eng *e, unsigned int ctr, const char *why);

/* eng_status.c: `softmlx5 status`. eng_status_answer(): the snapshot a
 * reader asked for, if one did (the inbox thread, after each wake-up);
 * eng_status_forget(): its file removed when the device closes. */
void eng_status_answer(struct eng *e);
void eng_status_forget(struct eng *e);

/* eng_link_raw.c: netdev_mode raw, the network link's frames through a
 * packet socket on the interface (CAP_NET_RAW). eng_raw_start(): from
 * eng_udp_start(), @hold the link's UDP sockets on port 4791, which then
 * only keep the kernel from answering our datagrams; 0 (e->raw set), or
 * -errno (the link stays udp). The rest as eng_udp_*'s, for the packet
 * socket. */
struct eng_raw;
extern const struct eng_link_ops eng_link_raw;
int eng_raw_start(struct eng *e, const char *ifname, unsigned int ifindex,
		  const int hold[2]);
void eng_raw_stop(struct eng_raw *r);
int eng_raw_fd(const struct eng_raw *r);
void eng_raw_flush(struct eng *e);
bool eng_raw_rx_drain(struct eng *e);
bool eng_raw_pending(struct eng *e);

/* eng_fabric.c */
struct ibp_hdr;
struct roce_l3;
/* The link that reaches @dst. */
const struct eng_link_ops *eng_fabric_link(const struct eng *e, uint32_t dst);
/* One packet a link received from @src (@flags as tx_put's), checked as
 * hostile input, to the responder or the completer; returns the QP whose
 * oldest request can complete now (for eng_fabric_rx_end()), or NULL. */
struct eng_qp *eng_fabric_rx_pkt(struct eng *e, uint32_t src,
				 const uint8_t *pkt, uint32_t len,
				 uint8_t flags);
/* The checks every received packet meets before anything moves (RoCEv2
 * encapsulation, the ICRC if @flags say it was computed, the IBTA headers,
 * the destination address); false: counted as malformed and dropped. */
bool eng_fabric_rx_parse(struct eng *e, uint32_t src, const uint8_t *pkt,
			 uint32_t plen, uint8_t flags, struct ibp_hdr *h,
			 struct roce_l3 *l3);
/* eng_fabric_rx_pkt() behind the dir=rx fault stage, for the packets a link
 * takes from process @pid. */
struct eng_qp *eng_fabric_rx(struct eng *e, uint32_t src, int32_t pid,
			     const uint8_t *pkt, uint32_t len, uint8_t flags);
/* Requesters that found a link full go on (fw->lock held). */
void eng_fabric_unblock(struct eng *e);
/* A batch of received packets lists each QP whose oldest request can
 * complete once (@q NULL: none). */
static inline void eng_fabric_run_add(struct eng_qp **run, unsigned int *nrun,
				      struct eng_qp *q)
{
	unsigned int i;

	for (i = 0; q && i < *nrun; i++)
		if (run[i] == q)
			return;
	if (q)
		run[(*nrun)++] = q;
}
/* The end of a batch of received packets (fw->lock held): the QPs in
 * @run complete and send on, responders send what they owe. */
void eng_fabric_rx_end(struct eng *e, struct eng_qp *const *run,
		       unsigned int nrun);
/* Has @dst stopped taking packets since @since_ns (a debugger, SIGSTOP)? */
bool eng_fabric_peer_stalled(struct eng *e, uint32_t dst, uint64_t since_ns);
/* Hands @p to the device that owns @p->dqpn; fills the response. */
void eng_fabric_xmit(struct eng *e, const struct eng_pkt *p,
		     struct eng_resp *r);
/* Does @gid belong to this device (any GID table entry)? */
void eng_fabric_cache_gids(struct eng *e);
bool eng_fabric_gid_local(struct eng *e, const uint8_t gid[16]);
/* Does a path to @gid lead anywhere: this device, or the network through
 * the network link? */
bool eng_fabric_routed(struct eng *e, const uint8_t gid[16]);
/* The destination of a message to (@dgid, @dqpn), routed: the network
 * link's destination of @dgid when that is not ours; else the slot of the
 * process owning @dqpn when that is another one; ours when it is this
 * process and the loopback link carries packets; else -1 (handed over
 * whole, eng_fabric_xmit()). */
int eng_fabric_peer(struct eng *e, const uint8_t dgid[16], uint32_t dqpn);
/* Sends packets [o->sent, o->npkts) of the request @p, cut at @mtu (a
 * READ or atomic: one request packet for all its PSNs), to destination
 * @slot (@dreq: ask for a direct placement record): 0 all sent, -EAGAIN
 * the link is full (o->sent says how far), -EFAULT the gather list faulted.
 * The wake-up is left to eng_fabric_ring(). */
int eng_fabric_send(struct eng *e, const struct eng_pkt *p, uint32_t mtu,
		    struct eng_out *o, uint32_t slot, bool dreq);
/* Builds one packet (headers @h, addressing @l3, h->paylen payload bytes
 * from @src at @soff) into the buffer of the link to destination @slot:
 * 1 sent, 0 no room (the link resumes us when there is), -EFAULT the
 * payload faulted. */
int eng_fabric_tx(struct eng *e, uint32_t slot, struct ibp_hdr *h,
		  const struct roce_l3 *l3, const struct eng_sgl *src,
		  uint64_t soff, uint8_t cflags);
/* May the links lose packets (a fault stage is configured)? The
 * shared-memory and loopback links themselves never drop one. */
static inline bool eng_fabric_lossy(const struct eng *e)
{
	return e->fault_spec != NULL;
}
/* The addressing of a request @p (GIDs, traffic class, UDP source port). */
void eng_fabric_l3(struct eng *e, const struct eng_pkt *p, struct roce_l3 *l3);
/* Emits (sends or receives) packets the fault stages held whose time has
 * come (fw->lock held). */
void eng_fabric_fault_poll(struct eng *e);
/* eng_compl.c: a response packet; returns the QP when its oldest request
 * can complete now. */
struct eng_qp *eng_compl_pkt(struct eng *e, const struct ibp_hdr *h,
			     uint32_t slot);
/* eng_resp.c: a request packet from process @slot, taking @npkts PSNs (1;
 * more for a whole SEND by reference, its payload at h->payload). */
void eng_resp_pkt(struct eng *e, const struct ibp_hdr *h,
		  const struct roce_l3 *l3, uint32_t slot, bool dreq,
		  uint32_t npkts);
/* Sends what responders owe requesters whose inbox was full. */
void eng_resp_flush_all(struct eng *e);
void eng_resp_free(struct eng *e, struct eng_qp *q);
/* eng_sq.c: a response of the oldest request in flight arrived in order:
 * its ACK timer restarts and its retries are whole again (progress). */
void eng_sq_progress(struct eng *e, struct eng_qp *q);
/* eng_compl.c: a request @o went out again after a go-back; an error
 * NAK that came for it meanwhile answers it now. */
void eng_compl_late(struct eng_qp *q, struct eng_out *o);
/* eng_sq.c: a response to a request in flight was heard: the peer lives
 * and the link carries; the ACK timers start afresh. */
void eng_sq_heard(struct eng *e, struct eng_qp *q);
/* READ data @src (@len bytes) into the scatter list of the WQE at @at, at
 * byte @off; false if it cannot land. */
bool eng_sq_land_at(struct eng *e, struct eng_qp *q, uint16_t at,
		    uint64_t off, const uint8_t *src, uint32_t len);
/* Frees the pipelining buffers of @q (QP destroyed). */
void eng_sq_free(struct eng *e, struct eng_qp *q);
/* The fault spec (SOFTMLX5_FAULT, else the key fault) at engine creation;
 * the fault stages and the spec freed at its destruction, once no thread
 * runs the engine. */
void eng_fabric_fault_init(struct eng *e);
void eng_fabric_fault_free(struct eng *e);
/* Is the far end of destination @slot still there? */
bool eng_fabric_peer_alive(struct eng *e, uint32_t slot);

#endif
