/* SPDX-License-Identifier: MIT */
/*
 * Golden RoCEv2 packets, made independently of the C code by
 * tests/unit/gen_golden_pkts.py (IB headers hand-packed with Python's
 * struct.pack; IPv4 + UDP + BTH + ICRC by scapy 2.5, cross-checked against
 * zlib.crc32 over the masked fields; IPv6 headers by scapy, ICRC by
 * zlib.crc32). The bytes and the fields each packet was built from are in
 * golden_pkts.inc; rerun the script to regenerate it.
 */
#ifndef SMX_TEST_GOLDEN_PKT_H
#define SMX_TEST_GOLDEN_PKT_H

#include <stdint.h>

#include "device/transport/ib_pkt.h"
#include "device/transport/roce.h"

struct golden_pkt {
	const char *name;
	int ipv;		/* 4 or 6 */
	uint32_t ib_off;	/* BTH offset from the IP header */
	const uint8_t *pkt;	/* IP header .. ICRC */
	uint32_t len;
	struct roce_l3 l3;
	int udp_csum;		/* the UDP checksum is set (by scapy) */
	int has_imm;
	uint8_t imm[4];		/* ImmDt bytes on the wire */
	struct ibp_hdr h;	/* the fields (imm and payload aside) */
};

#include "golden_pkts.inc"

#define GOLDEN_COUNT (sizeof(golden) / sizeof(golden[0]))

#endif
