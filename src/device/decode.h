/* SPDX-License-Identifier: MIT */
/*
 * Decoders of the device's formats into one line of named fields: send
 * WQEs, CQEs, EQEs, doorbells (UAR stores), PRM command mailboxes and
 * RoCEv2 packets. `softmlx5 decode`
 * prints them for hex dumps a user gives, SOFTMLX5_TRACE for the running
 * device (docs/observe.md).
 *
 * Each writes "<kind> name=value ..." with segments after " | ", never
 * reads outside buf[0..len), and says "truncated" where the bytes end
 * before the layout does. They read the layouts through the structs and
 * accessors the engine and the firmware use (mlx5dv.h segments, the
 * mlx5_ifc.h DEVX_GET layouts, the transport's packet parser), and take
 * names from the engine's and the firmware's own tables.
 *
 * Return: what snprintf would (the untruncated length).
 */
#ifndef SMX_DEVICE_DECODE_H
#define SMX_DEVICE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What follows a send WQE's control segment depends on the queue. */
enum dec_sq_type {
	DEC_SQ_RC,	/* RC, UC: raddr / atomic / UMR segments by opcode */
	DEC_SQ_UD,	/* UD: a datagram (address vector) segment first */
	DEC_SQ_DCI,	/* DCI: the same, with the DC access key */
	DEC_SQ_ETH,	/* raw packet QP / Ethernet SQ: an Ethernet segment */
	DEC_SQ_XRC,	/* XRC: an XRC segment (remote SRQ) first, then as RC */
};

int dec_wqe(char *out, size_t room, const uint8_t *buf, size_t len, enum dec_sq_type t);
/* A receive WQE: with @next_seg (an SRQ's that is not cyclic) its next
 * segment first, then data segments up to the one with the invalid lkey
 * (0x100) or @len. */
int dec_rwqe(char *out, size_t room, const uint8_t *buf, size_t len, bool next_seg);
/* One 64-byte CQE (only the last 64 bytes of a 128-byte one are read). */
int dec_cqe(char *out, size_t room, const uint8_t *buf, size_t len);
/* A 64-byte EQE: type by name, the queue or CQ it names. */
int dec_eqe(char *out, size_t room, const uint8_t *buf, size_t len);
/* A store to UAR register @reg (its offset in the page): send / BlueFlame
 * doorbell, CQ arm, EQ doorbell; @buf as stored (big-endian words). */
int dec_db(char *out, size_t room, uint32_t reg, const uint8_t *buf, size_t len);
/* An input mailbox, and when @obuf is not NULL its output mailbox. */
int dec_cmd(char *out, size_t room, const uint8_t *ibuf, size_t ilen, const uint8_t *obuf,
	    size_t olen);
/* A RoCEv2 packet from its Ethernet header (or its IP header, or its BTH). */
int dec_pkt(char *out, size_t room, const uint8_t *buf, size_t len);
/* The same for a packet as a link carried it: @has_icrc false when the
 * sender left the ICRC zero (a local link may, docs/transport.md), said as
 * icrc=none rather than checked. */
int dec_pkt_link(char *out, size_t room, const uint8_t *buf, size_t len, bool has_icrc);

/*
 * Hex text to bytes: pairs of hex digits; blanks, ':' ',' '-' separate
 * tokens, a token may start with 0x. Returns the byte count, or -1 with
 * *why set (a character that is not hex, an odd digit count in a token,
 * more than @cap bytes).
 */
long dec_hex(const char *s, uint8_t *out, size_t cap, const char **why);

#endif
