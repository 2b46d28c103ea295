/* SPDX-License-Identifier: MIT */
/*
 * SOFTMLX5_PCAP=FILE: every RoCEv2 packet the transport sends or receives
 * is appended to FILE as an Ethernet II frame in pcap format (linktype 1
 * Ethernet, snaplen 65535, microsecond timestamps), for Wireshark/tshark:
 *   tshark -r FILE -d udp.port==4791,infiniband --disable-protocol rpcordma
 *
 * The file is opened once, lazily, by the first packet. Several processes
 * may capture into the same file: whichever finds it empty writes the
 * global header (under an flock, so it is written once and before any
 * record), and every record -- record header and frame -- is one writev()
 * on an O_APPEND descriptor, so records of different processes and threads
 * never interleave.
 *
 * With SOFTMLX5_PCAP unset (or empty) trn_pcap_write() costs a load and a
 * branch.
 */
#ifndef SMX_DEVICE_TRANSPORT_PCAP_H
#define SMX_DEVICE_TRANSPORT_PCAP_H

#include <stdbool.h>
#include <stdint.h>

enum {
	TRN_PCAP_UNKNOWN = 0,	/* SOFTMLX5_PCAP not read yet */
	TRN_PCAP_OFF = 1,
	TRN_PCAP_ON = 2,
};

/* TRN_PCAP_*; written once by trn_pcap_start(). */
extern int trn_pcap_state;

/* Slow path of trn_pcap_on(): reads SOFTMLX5_PCAP and opens the file the
 * first time; true when capturing. */
bool trn_pcap_start(void);

/* True when packets are being captured. */
static inline bool trn_pcap_on(void)
{
	int s = __atomic_load_n(&trn_pcap_state, __ATOMIC_ACQUIRE);

	if (__builtin_expect(s == TRN_PCAP_OFF, 1))
		return false;
	return s == TRN_PCAP_ON || trn_pcap_start();
}

/* Appends one frame: Ethernet II (dmac, smac, ethertype 0x0800 or 0x86DD
 * by the IP version in ip_pkt[0]) + the len bytes of ip_pkt. */
void trn_pcap_record(const uint8_t *ip_pkt, uint32_t len, const uint8_t smac[6],
		     const uint8_t dmac[6]);

/* Captures one RoCEv2 packet (from its IP header, ICRC included) when
 * SOFTMLX5_PCAP is set. */
static inline void trn_pcap_write(const uint8_t *ip_pkt, uint32_t len, const uint8_t smac[6],
				  const uint8_t dmac[6])
{
	if (trn_pcap_on())
		trn_pcap_record(ip_pkt, len, smac, dmac);
}

/* For tests: closes the capture file and forgets SOFTMLX5_PCAP, which the
 * next packet reads again. Not safe while other threads capture. */
void trn_pcap_reset(void);

/* A locally administered unicast MAC for the frames of a GID: 02 followed
 * by the GID's last 5 bytes (for ::ffff:a.b.c.d, 02:ff:a:b:c:d). */
void roce_mac_of_gid(const uint8_t gid[16], uint8_t mac[6]);

#endif
