/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the device's PRM command interpreter (smx_dev_cmd()).
 *
 * Input: a sequence of up to 16 commands, each
 *     u16 (little-endian) outlen | u16 (little-endian) inlen | inlen bytes
 * fed in order to a device opened fresh for every input, so object numbers
 * start from the same values each time and a seed can create a umem, then a
 * CQ on it, then a QP on both. A truncated last record is sent as far as it
 * goes.
 *
 * Addresses: PAS / MTT entries and doorbell-record addresses are process
 * virtual addresses that the firmware probes. Any big-endian 64-bit word of a
 * mailbox whose high half is 0xA5A5A5A5 is replaced by an address inside an
 * arena of real pages (low half = byte offset, modulo the arena), so seeds
 * reach the create paths; everything else is left as the fuzzer made it,
 * garbage addresses included -- refusing those is the firmware's job.
 * One exception: a word that names a page this harness has mapped outside
 * the arena (libFuzzer learns heap addresses from the comparisons it
 * watches) is moved into the arena too. The device may read any memory the
 * program maps, as hardware may any page the program pinned; the program
 * fuzzed here owns only the arena, and the harness's own heap -- freed
 * engine structures of an earlier input included -- is not its memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "device/device.h"

#define ARENA_BYTES (64u * 4096u)
#define MAX_CMDS 16
#define MAX_OUT 0x4000
#define ADDR_TAG 0xA5A5A5A5u

static uint8_t *arena;
static uint8_t *outbuf;
static int trace;	/* SMX_FUZZ_TRACE=1: one line per command (seed checks) */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	arena = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	outbuf = malloc(MAX_OUT);
	if (arena == MAP_FAILED || !outbuf)
		abort();
	trace = getenv("SMX_FUZZ_TRACE") != NULL;
	return 0;
}

/* Is @v an address of a page mapped here, outside the arena? */
static int harness_page(uint64_t v)
{
	unsigned char in;
	uintptr_t a = (uintptr_t)arena;

	if (v < 0x10000 || v >= 0x800000000000ull ||
	    (v >= a && v < a + ARENA_BYTES))
		return 0;
	return mincore((void *)(uintptr_t)(v & ~4095ull), 4096, &in) == 0;
}

static void patch_addresses(uint8_t *mbox, size_t len)
{
	size_t off;

	for (off = 0; off + 8 <= len; off += 8) {
		uint64_t v, a;

		memcpy(&v, mbox + off, 8);
		v = be64toh(v);
		if ((v >> 32) != ADDR_TAG && !harness_page(v))
			continue;
		a = (uint64_t)(uintptr_t)arena + (v & 0xffffffffu) % ARENA_BYTES;
		a = htobe64(a);
		memcpy(mbox + off, &a, 8);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smx_dev *dev = smx_dev_open();
	size_t pos = 0;
	int n, ret;

	if (!dev)
		abort();
	memset(arena, 0, ARENA_BYTES);
	for (n = 0; n < MAX_CMDS && pos + 4 <= size; n++) {
		size_t outlen = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
		size_t inlen = (size_t)data[pos + 2] | (size_t)data[pos + 3] << 8;
		uint8_t *in;

		pos += 4;
		if (inlen > size - pos)
			inlen = size - pos;
		if (outlen > MAX_OUT)
			outlen = MAX_OUT;
		/* An exactly sized heap copy: ASan sees any read past inlen. */
		in = malloc(inlen ? inlen : 1);
		if (!in)
			break;
		memcpy(in, data + pos, inlen);
		pos += inlen;
		patch_addresses(in, inlen);
		ret = smx_dev_cmd(dev, in, inlen, outbuf, outlen);
		if (trace)
			fprintf(stderr, "cmd 0x%04x in %zu out %zu: ret %d status 0x%02x "
				"syndrome 0x%08x dw2 0x%08x\n",
				inlen >= 2 ? in[0] << 8 | in[1] : 0, inlen, outlen, ret,
				!ret ? outbuf[0] : 0,
				!ret ? be32toh(*(uint32_t *)(outbuf + 4)) : 0,
				!ret ? be32toh(*(uint32_t *)(outbuf + 8)) : 0);
		free(in);
	}
	smx_dev_close(dev);
	return 0;
}
