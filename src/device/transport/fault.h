/* SPDX-License-Identifier: MIT */
/*
 * Fault injection on the transport's links: netem's vocabulary, done in
 * softmlx5's own fabric so it works where the kernel has no netem.
 *
 * The spec (the `fault` key, SOFTMLX5_FAULT; docs/configuration.md) is
 * rules separated by ';', each a ','-separated list of key=value:
 *
 *   random:   loss=P%  dup=P%  reorder=P%  corrupt=P%  delay=T  jitter=T
 *   exact:    nth=N [action=drop|dup|corrupt|delay|reorder] [times=K]
 *             [interval=M]      (the Nth matching packet, 1-based; then
 *                               every Mth after it; at most K actions)
 *   filters:  dir=tx|rx  qpn=Q  class=req|ack|rdresp|atomic[+...]
 *             psn=A or psn=A-B
 *   seed=S    (per rule; default 1)
 *
 * P is a percentage (0-100, up to 6 decimals, '%' optional); T a time
 * with a unit ns, us, ms or s (a bare number is microseconds, as tc's).
 * "none" or "off" (or an empty spec) configures nothing.
 *
 * A link owns one struct trn_fault per direction (trn_fault_create()) and
 * hands it every packet it sends and, if a rule says dir=rx, every packet
 * it receives (trn_fault_xmit()); a rule without dir= acts on packets
 * sent only, so a packet meets it once.
 * Decisions come from a per-rule splitmix64 stream seeded with the rule's
 * seed mixed with the link's identity: a run repeats exactly, two links
 * (or two processes) do not make the same choices.
 *
 * Thread safety: one mutex per trn_fault; emit() is always called with it
 * released (it may block).
 */
#ifndef SMX_DEVICE_TRANSPORT_FAULT_H
#define SMX_DEVICE_TRANSPORT_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/transport/counters.h"

/* Classified from the IB opcode by the caller. */
enum trn_fault_class {
	TRN_FC_REQ = 1,		/* requests: SEND, WRITE, READ request, ... */
	TRN_FC_ACK = 2,		/* ACK / NAK (and atomic-free acks) */
	TRN_FC_RDRESP = 4,	/* RDMA READ response packets */
	TRN_FC_ATOMIC = 8,	/* atomic requests and ATOMIC ACKNOWLEDGE */
};

struct trn_fault_pkt {
	bool tx;		/* leaving this device (else arriving) */
	uint32_t dqpn;		/* the packet's destination QPN */
	uint32_t cls;		/* one enum trn_fault_class bit */
	uint32_t psn;
};

struct trn_fault;

/*
 * Parses @spec for a link of identity @link_id (any value unique within
 * the process, e.g. slot << 32 | link number). NULL @spec, "", "none" and
 * "off": NULL with @err "" (no fault; trn_fault_active() false). A bad
 * spec: NULL with one line in @err naming the bad token, e.g.
 * "loss=5x: not a percentage (0-100, e.g. 5% or 0.1%)" -- the device
 * refuses to open with that line (config.c checks the spec this way when
 * it loads). Out of memory: NULL, "out of memory".
 */
struct trn_fault *trn_fault_create(const char *spec, uint64_t link_id,
				   char *err, size_t errlen);
/* Frees @f and the packets it holds (NULL: nothing). */
void trn_fault_destroy(struct trn_fault *f);

/* Counts what the stage does into @c (fault_* counters); until called, it
 * counts into its own (trn_fault_counters()). */
void trn_fault_set_counters(struct trn_fault *f, struct trn_counters *c);
struct trn_counters *trn_fault_counters(struct trn_fault *f);

/* Is any fault configured? Cheap: a link without faults holds NULL. */
static inline bool trn_fault_active(const struct trn_fault *f)
{
	return f != NULL;
}

/* Does any rule of @f act on packets leaving (@tx) / arriving (!@tx)? A
 * rule without dir= acts on packets leaving. */
bool trn_fault_sees(const struct trn_fault *f, bool tx);

typedef void (*trn_emit_fn)(void *ctx, const uint8_t *pkt, uint32_t len);

/*
 * The fault stage for one packet (@pkt, @len bytes; the caller keeps it).
 * Calls emit() zero times (dropped, or held), once, or twice (duplicated),
 * plus once for a packet held by reorder that this one releases. Corrupt
 * emits a copy with one byte changed at a pseudo-random offset >= @min_off
 * (a packet of @min_off bytes or fewer passes unchanged). Delay and
 * reorder keep a copy, emitted later by trn_fault_poll() (or, for reorder,
 * right after the next packet this link emits now). Returns the number of
 * emit() calls made. With @f NULL: emit() once.
 */
int trn_fault_xmit(struct trn_fault *f, const struct trn_fault_pkt *info,
		   const uint8_t *pkt, uint32_t len, uint32_t min_off,
		   trn_emit_fn emit, void *ctx);

/*
 * Emits the held packets whose time has come by @now_ns (CLOCK_MONOTONIC),
 * earliest first. Returns the earliest deadline among those still held
 * (ns, CLOCK_MONOTONIC), 0 if none: the link polls again by then.
 */
uint64_t trn_fault_poll(struct trn_fault *f, uint64_t now_ns,
			trn_emit_fn emit, void *ctx);

/* Drops every held packet, unsent and uncounted (link teardown). */
void trn_fault_flush(struct trn_fault *f);

/* Packets held right now (delayed or reordered). */
uint32_t trn_fault_held(struct trn_fault *f);

#endif
