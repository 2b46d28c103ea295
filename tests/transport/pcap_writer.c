/* SPDX-License-Identifier: MIT */
/*
 * SOFTMLX5_PCAP writer for tests/transport/check_pcap.py:
 *   pcap_writer FILE ROUNDS PROCS
 * Builds every golden packet (tests/unit/golden_pkt.h) with the transport
 * module's builders -- roce_build, ibp_build, roce_icrc_set -- and captures
 * it with trn_pcap_write(). PROCS processes (forked before the file exists,
 * so they race to create it) each capture ROUNDS rounds of all packets.
 * Prints "packets N", then "opcode 0xNN NAME" for each golden packet, for
 * the script's checks. Exits non-zero on a failed build or child.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "golden_pkt.h"

#include "device/transport/ib_pkt.h"
#include "device/transport/pcap.h"
#include "device/transport/roce.h"

/* One golden packet rebuilt from its fields; returns its length. */
static uint32_t build(const struct golden_pkt *g, uint8_t *buf, uint32_t room)
{
	struct ibp_hdr h = g->h;
	uint32_t ib_len = g->h.hdr_len + g->h.paylen + ibp_pad(g->h.paylen);
	uint32_t hl, il;

	if (g->has_imm)
		memcpy(&h.imm, g->imm, 4);
	hl = roce_build(buf, room, &g->l3, ib_len);
	if (!hl)
		return 0;
	il = ibp_build(buf + hl, room - hl, &h);
	if (!il || hl + ib_len + ROCE_ICRC_BYTES > room)
		return 0;
	memcpy(buf + hl + il, g->pkt + g->ib_off + g->h.hdr_len, g->h.paylen);
	memset(buf + hl + il + g->h.paylen, 0, ibp_pad(g->h.paylen));
	roce_icrc_set(buf, hl + ib_len);
	return hl + ib_len + ROCE_ICRC_BYTES;
}

int main(int argc, char **argv)
{
	static uint8_t buf[GOLDEN_COUNT][2048];
	uint32_t len[GOLDEN_COUNT];
	uint8_t smac[6], dmac[6];
	int rounds, procs, i, r, status, bad = 0;
	pid_t pid;

	if (argc != 4) {
		fprintf(stderr, "usage: %s FILE ROUNDS PROCS\n", argv[0]);
		return 2;
	}
	rounds = atoi(argv[2]);
	procs = atoi(argv[3]);
	for (size_t g = 0; g < GOLDEN_COUNT; g++) {
		len[g] = build(&golden[g], buf[g], sizeof(buf[g]));
		if (!len[g]) {
			fprintf(stderr, "%s: not built\n", golden[g].name);
			return 1;
		}
	}
	/* unset: off, and nothing created */
	unsetenv("SOFTMLX5_PCAP");
	trn_pcap_write(buf[0], len[0], smac, dmac);
	if (trn_pcap_on() || !access(argv[1], F_OK)) {
		fprintf(stderr, "capturing without SOFTMLX5_PCAP\n");
		return 1;
	}
	setenv("SOFTMLX5_PCAP", argv[1], 1);
	trn_pcap_reset();

	for (i = 1; i < procs; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			break;
	}
	for (r = 0; r < rounds; r++) {
		for (size_t g = 0; g < GOLDEN_COUNT; g++) {
			roce_mac_of_gid(golden[g].l3.sgid, smac);
			roce_mac_of_gid(golden[g].l3.dgid, dmac);
			trn_pcap_write(buf[g], len[g], smac, dmac);
		}
	}
	if (!trn_pcap_on())
		return 1;
	if (i < procs)	/* a child */
		return 0;
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	printf("packets %zu\n", (size_t)rounds * procs * GOLDEN_COUNT);
	for (size_t g = 0; g < GOLDEN_COUNT; g++)
		printf("opcode 0x%02x %s\n", golden[g].h.opcode, ibp_op(golden[g].h.opcode)->name);
	return bad;
}
