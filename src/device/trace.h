/* SPDX-License-Identifier: MIT */
/*
 * SOFTMLX5_TRACE=cmd,wqe,cqe,eqe,pkt,db[,qp=N] (or all): one line per
 * device event, decoded by the decoders of decode.c, to stderr or to
 * SOFTMLX5_TRACE_FILE (docs/observe.md, "The trace"):
 *
 *   softmlx5-trace pid=P t=SECONDS <kind> <where> <decoded fields...>
 *
 * Every line is one write() (O_APPEND for a file), so the lines of every
 * thread and process sharing the file stay whole. Tracing only reads what
 * the device writes or takes: it changes nothing, except that `pkt` makes
 * messages between one process's own QPs go as packets through the
 * loopback link, as a capture does (eng_link_loop.c), so there are packets
 * to show.
 *
 * The environment is read once, lazily, at the first event; off, each
 * event point costs a load and a branch (smx_trace_on()).
 */
#ifndef SMX_DEVICE_TRACE_H
#define SMX_DEVICE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	SMX_TR_CMD = 1u << 0,
	SMX_TR_WQE = 1u << 1,
	SMX_TR_CQE = 1u << 2,
	SMX_TR_EQE = 1u << 3,
	SMX_TR_PKT = 1u << 4,
	SMX_TR_DB = 1u << 5,
	SMX_TR_UNREAD = 1u << 31,	/* the environment is not read yet */
};

/* SMX_TR_* of the events traced; SMX_TR_UNREAD until the first event. */
extern unsigned int smx_trace_mask;

/* Slow path of smx_trace_on(): reads the environment the first time. */
bool smx_trace_start(unsigned int kind);

/* True when events of @kind (SMX_TR_*) are traced. */
static inline bool smx_trace_on(unsigned int kind)
{
	/* acquire: the file and filter set before the mask are seen (a
	 * plain load on x86) */
	unsigned int m = __atomic_load_n(&smx_trace_mask, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!(m & (kind | SMX_TR_UNREAD)), 1))
		return false;
	return (m & kind) || smx_trace_start(kind);
}

/* Whether the qp=N filter lets a WQE, CQE or packet of @qpn through. */
bool smx_trace_qp_ok(uint32_t qpn);

/*
 * The events, called only when smx_trace_on() says so. Each decodes its
 * bytes with decode.c and writes one line; @where is "name=value ..."
 * saying where the event happened (queue, slot, direction), put after the
 * kind.
 */
/* A command as executed: input mailbox, output mailbox with status. */
void smx_trace_cmd_log(const void *in, size_t inlen, const void *out, size_t outlen);
/* A send WQE the engine takes (@qpn's SQ, of queue type @sq_type: enum
 * dec_sq_type), @len bytes. */
void smx_trace_wqe_log(uint32_t qpn, int sq_type, uint16_t index, const uint8_t *wqe,
		       size_t len);
/* A CQE written to CQ @cqn at producer counter @pi (64 bytes); @session:
 * it joins a compressed session instead (slot written when it closes). */
/* A receive WQE as the responder takes it (@qpn 0: an Ethernet RQ's;
 * @srqn 0: the QP's own RQ). */
void smx_trace_rwqe_log(uint32_t qpn, uint32_t srqn, uint16_t index, const uint8_t *wqe,
			size_t len, bool next_seg);
void smx_trace_cqe_log(uint32_t cqn, uint32_t pi, const uint8_t *cqe, bool session);
/* An EQE posted to EQ @eqn at @pi (@internal: a device EQ with no ring,
 * whose event only raises its vector). */
void smx_trace_eqe_log(uint32_t eqn, uint32_t pi, bool internal, const uint8_t eqe[64]);
/* A store to UAR page @uar, register @reg; @in_page: the device found it
 * in the page (a plain store, DEVX) rather than being handed it. */
void smx_trace_db_log(uint32_t uar, uint32_t reg, const void *buf, size_t len, bool in_page);
/* A packet from its IP header (ICRC included), sent to (@tx) or received
 * from process slot @slot over link @link; @dqpn: its BTH destination QP,
 * @sqpn: the sending QP when known (requests), else 0; @has_icrc: the
 * sender computed the ICRC; @by_ref: a SEND by reference, whose payload
 * is not in the packet (docs/multiprocess.md). */
void smx_trace_pkt_log(bool tx, const char *link, uint32_t slot, uint32_t dqpn,
		       uint32_t sqpn, const uint8_t *pkt, size_t len, bool has_icrc,
		       bool by_ref);

/* For tests: forgets the environment, closes the file; the next event
 * reads them again. Not safe while other threads trace. */
void smx_trace_reset(void);

#endif
