/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: `softmlx5 decode`'s input path (src/device/decode.c).
 * Each input is taken as hex text (dec_hex, as the tool reads stdin) and,
 * whatever that gives, its raw bytes go through every decoder too: WQE
 * for each queue type, CQE, command mailbox (with the input's tail as an
 * output mailbox), packet.
 *
 * Invariants checked (abort = a finding): every decoder returns the same
 * length with a small room as with a large one and writes no byte past
 * its room (the canary); dec_hex never returns more than its capacity.
 * ASan/UBSan catch reads past the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(c)                                                             \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "fuzz_decode: %s:%d: %s\n", __FILE__,  \
				__LINE__, #c);                                 \
			abort();                                               \
		}                                                              \
	} while (0)

#define SMALL 24

static void all(const uint8_t *b, size_t n)
{
	static char big[16384], small[SMALL + 1];
	size_t half = n / 2;
	int i, a, s;

	for (i = 0; i < 14; i++) {
		memset(small, 0x5a, sizeof(small));
		switch (i) {
		case 8:		/* XRC */
			a = dec_wqe(big, sizeof(big), b, n, DEC_SQ_XRC);
			s = dec_wqe(small, SMALL, b, n, DEC_SQ_XRC);
			break;
		case 9:
			a = dec_eqe(big, sizeof(big), b, n);
			s = dec_eqe(small, SMALL, b, n);
			break;
		case 10:	/* the register from the first bytes: every kind */
			a = dec_db(big, sizeof(big), n > 1 ? (uint32_t)(b[0] << 8 | b[1]) : 0, b, n);
			s = dec_db(small, SMALL, n > 1 ? (uint32_t)(b[0] << 8 | b[1]) : 0, b, n);
			break;
		case 11:
			a = dec_pkt_link(big, sizeof(big), b, n, false);
			s = dec_pkt_link(small, SMALL, b, n, false);
			break;
		case 12: case 13:	/* receive WQEs: RQ, SRQ */
			a = dec_rwqe(big, sizeof(big), b, n, i == 13);
			s = dec_rwqe(small, SMALL, b, n, i == 13);
			break;
		case 0: case 1: case 2: case 3:
			a = dec_wqe(big, sizeof(big), b, n, (enum dec_sq_type)i);
			s = dec_wqe(small, SMALL, b, n, (enum dec_sq_type)i);
			break;
		case 4:
			a = dec_cqe(big, sizeof(big), b, n);
			s = dec_cqe(small, SMALL, b, n);
			break;
		case 5:
			a = dec_cmd(big, sizeof(big), b, n, NULL, 0);
			s = dec_cmd(small, SMALL, b, n, NULL, 0);
			break;
		case 6:
			a = dec_cmd(big, sizeof(big), b, half, b + half, n - half);
			s = dec_cmd(small, SMALL, b, half, b + half, n - half);
			break;
		default:
			a = dec_pkt(big, sizeof(big), b, n);
			s = dec_pkt(small, SMALL, b, n);
			break;
		}
		REQUIRE(a == s && a >= 0);
		REQUIRE((size_t)a < sizeof(big) && strlen(big) == (size_t)a);
		REQUIRE(small[SMALL] == 0x5a && memchr(small, 0, SMALL));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t bytes[4096];
	char *text = malloc(size + 1);
	const char *why;
	long n;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	n = dec_hex(text, bytes, sizeof(bytes), &why);
	REQUIRE(n <= (long)sizeof(bytes));
	if (n > 0)
		all(bytes, (size_t)n);
	free(text);
	all(data, size);
	return 0;
}
