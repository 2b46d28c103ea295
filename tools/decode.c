/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 decode KIND [options] [HEX...]: one line of named fields for a
 * hex dump, through the device's own decoders (src/device/decode.c).
 * Without HEX arguments the dump is read from stdin.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/decode.h"
#include "decode_cmd.h"

/* Larger than any WQE (1 KiB), mailbox input we decode, or jumbo frame. */
#define DEC_MAX_BYTES 16384
#define DEC_MAX_TEXT (DEC_MAX_BYTES * 8)

static void decode_usage(FILE *f)
{
	fprintf(f,
		"usage: softmlx5 decode wqe [--qp-type rc|uc|xrc|ud|dci|eth] [HEX...]\n"
		"       softmlx5 decode rwqe [--srq] [HEX...]\n"
		"       softmlx5 decode cqe [HEX...]\n"
		"       softmlx5 decode eqe [HEX...]\n"
		"       softmlx5 decode db --reg OFFSET [HEX...]\n"
		"       softmlx5 decode cmd [--out HEX] [HEX...]\n"
		"       softmlx5 decode pkt [HEX...]\n"
		"Decodes a hex dump (the arguments, else stdin): a send WQE, a\n"
		"receive WQE (--srq: an SRQ's, its next segment first), a CQE,\n"
		"an EQE, a store to a UAR register (its offset in the page, e.g.\n"
		"0x20 CQ arm, 0x800 send doorbell, 0x40 EQ arm),\n"
		"a PRM command input mailbox (and its output with --out), a RoCEv2\n"
		"packet from its Ethernet or IP header. Hex: byte pairs, blanks, ':',\n"
		"',' or '-' between tokens, optional 0x per token (man 1 softmlx5).\n");
}

/* The arguments joined, or stdin; NULL (with a message) when too long. */
static char *read_text(int argc, char **argv)
{
	char *t = calloc(1, DEC_MAX_TEXT + 1);
	size_t n = 0;
	int i;

	if (!t)
		return NULL;
	if (argc) {
		for (i = 0; i < argc; i++) {
			size_t l = strlen(argv[i]);

			if (n + l + 1 > DEC_MAX_TEXT)
				goto long_input;
			memcpy(t + n, argv[i], l);
			n += l;
			t[n++] = ' ';
		}
		return t;
	}
	n = fread(t, 1, DEC_MAX_TEXT, stdin);
	if (n == DEC_MAX_TEXT && fgetc(stdin) != EOF)
		goto long_input;
	t[n] = 0;
	if (memchr(t, 0, n)) {
		fprintf(stderr, "softmlx5 decode: NUL byte in the input\n");
		free(t);
		return NULL;
	}
	return t;
long_input:
	fprintf(stderr, "softmlx5 decode: input longer than %d characters\n", DEC_MAX_TEXT);
	free(t);
	return NULL;
}

static long parse(const char *text, uint8_t *buf, const char *what)
{
	const char *why = "";
	long n = dec_hex(text, buf, DEC_MAX_BYTES, &why);

	if (n < 0)
		fprintf(stderr, "softmlx5 decode: %s: %s\n", what, why);
	else if (n == 0)
		fprintf(stderr, "softmlx5 decode: %s: no bytes\n", what);
	return n > 0 ? n : -1;
}

int cmd_decode(int argc, char **argv)
{
	static uint8_t in[DEC_MAX_BYTES], out[DEC_MAX_BYTES];
	enum dec_sq_type t = DEC_SQ_RC;
	const char *kind, *outhex = NULL;
	bool srq = false;
	unsigned long reg = ULONG_MAX;	/* db: the register */
	char line[8192], *text;
	long n, on = 0;
	int rc = 0;

	if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		decode_usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? 2 : 0;
	}
	kind = argv[0];
	argc--, argv++;
	while (argc && !strncmp(argv[0], "--", 2)) {
		if (!strcmp(argv[0], "--")) {
			argc--, argv++;
			break;
		}
		if (!strcmp(argv[0], "--srq") && !strcmp(kind, "rwqe")) {
			srq = true;
			argc--, argv++;
			continue;
		}
		if (argc < 2)
			goto usage;
		if (!strcmp(argv[0], "--qp-type") && !strcmp(kind, "wqe")) {
			const char *q = argv[1];

			if (!strcmp(q, "rc") || !strcmp(q, "uc"))
				t = DEC_SQ_RC;
			else if (!strcmp(q, "xrc"))
				t = DEC_SQ_XRC;
			else if (!strcmp(q, "ud"))
				t = DEC_SQ_UD;
			else if (!strcmp(q, "dci"))
				t = DEC_SQ_DCI;
			else if (!strcmp(q, "eth") || !strcmp(q, "raw"))
				t = DEC_SQ_ETH;
			else
				goto usage;
		} else if (!strcmp(argv[0], "--out") && !strcmp(kind, "cmd")) {
			outhex = argv[1];
		} else if (!strcmp(argv[0], "--reg") && !strcmp(kind, "db")) {
			char *end;

			reg = strtoul(argv[1], &end, 0);
			if (*end || end == argv[1] || reg > 0xfff)
				goto usage;
		} else {
			goto usage;
		}
		argc -= 2, argv += 2;
	}
	if (strcmp(kind, "wqe") && strcmp(kind, "rwqe") && strcmp(kind, "cqe") &&
	    strcmp(kind, "cmd") &&
	    strcmp(kind, "pkt") && strcmp(kind, "eqe") && strcmp(kind, "db"))
		goto usage;
	if (!strcmp(kind, "db") && reg == ULONG_MAX)
		goto usage;
	if (outhex && (on = parse(outhex, out, "--out")) < 0)
		return 1;
	text = read_text(argc, argv);
	if (!text)
		return 1;
	n = parse(text, in, kind);
	free(text);
	if (n < 0)
		return 1;
	if (!strcmp(kind, "wqe"))
		dec_wqe(line, sizeof(line), in, (size_t)n, t);
	else if (!strcmp(kind, "rwqe"))
		dec_rwqe(line, sizeof(line), in, (size_t)n, srq);
	else if (!strcmp(kind, "cqe"))
		dec_cqe(line, sizeof(line), in, (size_t)n);
	else if (!strcmp(kind, "eqe"))
		dec_eqe(line, sizeof(line), in, (size_t)n);
	else if (!strcmp(kind, "db"))
		dec_db(line, sizeof(line), (uint32_t)reg, in, (size_t)n);
	else if (!strcmp(kind, "cmd"))
		dec_cmd(line, sizeof(line), in, (size_t)n, outhex ? out : NULL, (size_t)on);
	else
		dec_pkt(line, sizeof(line), in, (size_t)n);
	if (puts(line) < 0)
		rc = 1;
	return rc;
usage:
	decode_usage(stderr);
	return 2;
}
