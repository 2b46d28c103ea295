/* SPDX-License-Identifier: MIT */
/*
 * The transport's fault stage (src/device/transport/fault.c):
 *
 *   - specs: every form accepted; every mistake refused with NULL and one
 *     message naming the bad token; empty / none / off: NULL, no message;
 *   - determinism: the same spec and link make the same choices; another
 *     link or seed other ones;
 *   - rates: loss=5% drops 5% +- 0.5% of 100k packets, dup=1% duplicates
 *     1% +- 0.2%; the fault_* counters agree;
 *   - exact cases: nth, interval, times;
 *   - dup emits two identical copies; corrupt changes exactly one byte at
 *     or after min_off (never the caller's buffer); delay holds a copy
 *     that poll() releases once its time has come (and flush() drops);
 *     reorder swaps two consecutive packets, or lets the held one go
 *     after 1 ms;
 *   - filters: class, qpn, dir, psn;
 *   - threads: packets from four threads are all accounted for.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device/transport/fault.h"
#include "smx_test.h"

/* What emit() saw: each packet starts with its 32-bit sequence number. */
struct cap {
	uint32_t n;
	uint32_t seq[64];
	uint32_t len[64];
	uint8_t data[64][128];
	uint64_t total;
};

static void cap_emit(void *ctx, const uint8_t *pkt, uint32_t len)
{
	struct cap *c = ctx;

	c->total++;
	if (c->n < 64) {
		memcpy(&c->seq[c->n], pkt, 4);
		c->len[c->n] = len;
		memcpy(c->data[c->n], pkt, len < 128 ? len : 128);
		c->n++;
	}
}

static void count_emit(void *ctx, const uint8_t *pkt, uint32_t len)
{
	(void)pkt;
	(void)len;
	__atomic_fetch_add((uint64_t *)ctx, 1, __ATOMIC_RELAXED);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct trn_fault_pkt REQ = { .tx = true, .dqpn = 0x123,
					  .cls = TRN_FC_REQ, .psn = 0 };

/* Sends packet @seq (@len bytes, sequence number first). */
static int send1(struct trn_fault *f, const struct trn_fault_pkt *info,
		 uint32_t seq, uint32_t len, struct cap *c)
{
	uint8_t pkt[128];
	uint32_t i;

	for (i = 0; i < len; i++)
		pkt[i] = (uint8_t)(i * 7 + 1);
	memcpy(pkt, &seq, 4);
	return trn_fault_xmit(f, info, pkt, len, 0, cap_emit, c);
}

/* ---- specs ---------------------------------------------------------- */

static void test_spec_good(void)
{
	static const char *const good[] = {
		"loss=5%",
		"loss=5",
		"loss=0.000001%",
		"loss=100%",
		"loss=5%,dup=1%,reorder=2%,corrupt=0.1%,delay=100us,jitter=20us,seed=7",
		"dir=tx,qpn=0x123,class=ack+rdresp,nth=3",
		"dir=RX,class=REQ+atomic,loss=1%",
		"nth=1,action=dup,times=2,interval=5",
		"nth=4,action=delay,delay=1ms,jitter=100us",
		"nth=4,action=reorder",
		"nth=4,action=corrupt",
		"psn=5-9,loss=100%",
		"psn=7,loss=100%",
		"delay=1.5ms",
		"delay=2s",
		"delay=500ns",
		"delay=100",
		"times=10,loss=50%",
		" loss = 5% ; ; dup=1% ;",
		"loss=1%;dup=1%;corrupt=1%;reorder=1%;delay=1ms;nth=2",
	};
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct trn_fault *f = trn_fault_create(good[i], 1, err,
						       sizeof(err));

		CHECKM(f && !err[0], "'%s': %s", good[i], err);
		CHECK(trn_fault_active(f));
		trn_fault_destroy(f);
	}
}

static void test_spec_empty(void)
{
	static const char *const none[] = { "", "  ", "none", "off", "OFF",
					    ";", " ; ;" };
	char err[64];
	size_t i;

	CHECK(trn_fault_create(NULL, 0, err, sizeof(err)) == NULL && !err[0]);
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		strcpy(err, "x");
		CHECKM(trn_fault_create(none[i], 0, err, sizeof(err)) == NULL &&
		       !err[0], "'%s': %s", none[i], err);
	}
	CHECK(!trn_fault_active(NULL));
	/* No error buffer: no crash either way. */
	CHECK(trn_fault_create("loss=5x", 0, NULL, 0) == NULL);
}

static void test_spec_bad(void)
{
	static const struct { const char *spec, *token; } bad[] = {
		{ "loss=5x", "'loss=5x'" },
		{ "loss=101%", "'loss=101%'" },
		{ "loss=-1%", "'loss=-1%'" },
		{ "loss=1.1234567%", "'loss=1.1234567%'" },
		{ "loss=.5%", "'loss=.5%'" },
		{ "loss=5%%", "'loss=5%%'" },
		{ "dup=", "'dup='" },
		{ "delay=5m", "'delay=5m'" },
		{ "delay=11s", "'delay=11s'" },
		{ "delay=ms", "'delay=ms'" },
		{ "delay=6s,jitter=5s", "'jitter=5s'" },
		{ "jitter=1ms,loss=1%", "'jitter=1ms'" },
		{ "dir=up,loss=1%", "'dir=up'" },
		{ "qpn=0x1000000,loss=1%", "'qpn=0x1000000'" },
		{ "qpn=abc,loss=1%", "'qpn=abc'" },
		{ "class=foo,loss=1%", "'foo'" },
		{ "class=ack+,loss=1%", "'class=ack+'" },
		{ "class=ack++req,loss=1%", "'class=ack++req'" },
		{ "psn=9-5,loss=1%", "'psn=9-5'" },
		{ "psn=x,loss=1%", "'psn=x'" },
		{ "psn=0x1000000,loss=1%", "'psn=0x1000000'" },
		{ "nth=0", "'nth=0'" },
		{ "nth=2,times=0", "'times=0'" },
		{ "interval=3,loss=1%", "'interval=3'" },
		{ "action=dup", "'action=dup'" },
		{ "nth=2,action=explode", "'action=explode'" },
		{ "nth=2,loss=5%", "'loss=5%'" },
		{ "nth=2,action=delay", "'action=delay'" },
		{ "nth=2,delay=1ms", "'delay=1ms'" },
		{ "loss=1%,loss=2%", "'loss=2%'" },
		{ "foo=1", "'foo=1'" },
		{ "loss", "'loss'" },
		{ "loss=1%,,dup=1%", "'loss=1%,,dup=1%'" },
		{ "loss=1%,", "'loss=1%,'" },
		{ "dir=tx,qpn=5", "'dir=tx,qpn=5'" },
		{ "seed=x,loss=1%", "'seed=x'" },
		{ "seed=18446744073709551616,loss=1%",
		  "'seed=18446744073709551616'" },
		{ "loss=1%;dup=2x", "'dup=2x'" },
		{ "loss=1%;loss=1%;loss=1%;loss=1%;loss=1%;loss=1%;loss=1%;"
		  "loss=1%;loss=1%;loss=1%;loss=1%;loss=1%;loss=1%;loss=1%;"
		  "loss=1%;loss=1%;loss=2%", "'loss=2%': more than 16 rules" },
	};
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct trn_fault *f = trn_fault_create(bad[i].spec, 1, err,
						       sizeof(err));

		CHECKM(!f && strstr(err, bad[i].token) && !strchr(err, '\n'),
		       "'%s' -> '%s' (want %s)", bad[i].spec, err,
		       bad[i].token);
		trn_fault_destroy(f);
	}
}

/* ---- decisions ------------------------------------------------------ */

/* A fingerprint of @n decisions: emit counts, packet by packet. */
static uint64_t fingerprint(const char *spec, uint64_t link, uint32_t n)
{
	struct trn_fault *f = trn_fault_create(spec, link, NULL, 0);
	uint64_t h = 1469598103934665603ull;
	struct cap c;
	uint32_t i;

	if (!f)
		return 0;
	for (i = 0; i < n; i++) {
		int k;

		c.n = 0;
		k = send1(f, &REQ, i, 32, &c);
		h = (h ^ (uint64_t)(k + 1)) * 1099511628211ull;
		if (c.n)	/* which byte corrupt changed shows here */
			h = (h ^ c.data[0][4 + i % 28]) * 1099511628211ull;
	}
	trn_fault_destroy(f);
	return h;
}

static void test_determinism(void)
{
	const char *spec = "loss=10%,dup=10%,corrupt=10%";
	uint64_t a = fingerprint(spec, 42, 10000);

	CHECK(a != 0);
	CHECK_EQ(fingerprint(spec, 42, 10000), a);
	CHECK(fingerprint(spec, 43, 10000) != a);
	CHECK(fingerprint("loss=10%,dup=10%,corrupt=10%,seed=2", 42, 10000) != a);
	CHECK_EQ(fingerprint("loss=10%,dup=10%,corrupt=10%,seed=1", 42, 10000),
		 a);	/* 1 is the default */
}

static void test_rates(void)
{
	struct trn_fault *f = trn_fault_create("loss=5%;dup=1%", 7, NULL, 0);
	struct trn_counters ctr = { { 0 } };
	uint64_t dropped = 0, twice = 0, n = 100000, i;
	struct cap c;

	CHECK(f != NULL);
	if (!f)
		return;
	trn_fault_set_counters(f, &ctr);
	CHECK(trn_fault_counters(f) == &ctr);
	for (i = 0; i < n; i++) {
		int k;

		c.n = 0;
		k = send1(f, &REQ, (uint32_t)i, 16, &c);
		dropped += k == 0;
		twice += k == 2;
		if (k == 2)
			CHECK(!memcmp(c.data[0], c.data[1], 16));
	}
	CHECKM(dropped >= 4500 && dropped <= 5500, "%llu of %llu dropped",
	       (unsigned long long)dropped, (unsigned long long)n);
	CHECKM(twice >= 700 && twice <= 1300, "%llu of %llu duplicated",
	       (unsigned long long)twice, (unsigned long long)n);
	CHECK_EQ(trn_ctr_get(&ctr, TRN_CTR_FAULT_DROPPED), dropped);
	CHECK_EQ(trn_ctr_get(&ctr, TRN_CTR_FAULT_DUPLICATED), twice);
	CHECK_EQ(trn_ctr_get(&ctr, TRN_CTR_FAULT_CORRUPTED), 0);
	trn_fault_destroy(f);

	/* 0% never, 100% always. */
	f = trn_fault_create("loss=0%,corrupt=0%;dup=100%", 7, NULL, 0);
	for (i = 0, twice = 0; f && i < 1000; i++) {
		c.n = 0;
		twice += send1(f, &REQ, (uint32_t)i, 16, &c) == 2;
	}
	CHECK_EQ(twice, 1000);
	trn_fault_destroy(f);
}

/* The 1-based numbers of the packets out of @n that @spec drops. */
static uint32_t drops(const char *spec, uint32_t n, uint32_t *which)
{
	struct trn_fault *f = trn_fault_create(spec, 1, NULL, 0);
	uint32_t i, k = 0;
	struct cap c;

	for (i = 1; f && i <= n; i++) {
		c.n = 0;
		if (send1(f, &REQ, i, 16, &c) == 0)
			which[k++] = i;
	}
	trn_fault_destroy(f);
	return k;
}

static void test_exact(void)
{
	uint32_t w[64], k;
	struct trn_fault *f;
	struct cap c;
	uint32_t i, dup[8], nd = 0;

	k = drops("nth=3", 20, w);
	CHECK(k == 1 && w[0] == 3);
	k = drops("nth=3,interval=4", 20, w);
	CHECK(k == 5 && w[0] == 3 && w[1] == 7 && w[2] == 11 && w[3] == 15 &&
	      w[4] == 19);
	k = drops("nth=3,interval=4,times=2", 20, w);
	CHECK(k == 2 && w[0] == 3 && w[1] == 7);
	k = drops("nth=1,interval=1,times=5", 20, w);
	CHECK(k == 5 && w[0] == 1 && w[4] == 5);
	k = drops("nth=5,action=drop;nth=2", 20, w);	/* two rules */
	CHECK(k == 2 && w[0] == 2 && w[1] == 5);
	k = drops("times=3,loss=100%", 20, w);	/* times caps random ones */
	CHECK(k == 3 && w[0] == 1 && w[2] == 3);

	f = trn_fault_create("nth=2,action=dup,interval=2,times=3", 1, NULL, 0);
	for (i = 1; f && i <= 12; i++) {
		c.n = 0;
		if (send1(f, &REQ, i, 16, &c) == 2 && nd < 8)
			dup[nd++] = i;
	}
	CHECK(nd == 3 && dup[0] == 2 && dup[1] == 4 && dup[2] == 6);
	trn_fault_destroy(f);
}

static void test_dup(void)
{
	struct trn_fault *f = trn_fault_create("nth=1,action=dup", 1, NULL, 0);
	struct cap c = { 0 };

	CHECK_EQ(send1(f, &REQ, 77, 40, &c), 2);
	CHECK(c.n == 2 && c.seq[0] == 77 && c.seq[1] == 77 &&
	      c.len[0] == 40 && c.len[1] == 40 &&
	      !memcmp(c.data[0], c.data[1], 40));
	c.n = 0;
	CHECK_EQ(send1(f, &REQ, 78, 40, &c), 1);	/* only the first */
	trn_fault_destroy(f);
}

static void test_corrupt(void)
{
	struct trn_fault *f = trn_fault_create("corrupt=100%", 3, NULL, 0);
	struct trn_counters ctr = { { 0 } };
	uint8_t pkt[128], orig[128];
	uint32_t i, j, len, min_off = 10, seen_off[128] = { 0 }, spread = 0;
	struct cap c;

	trn_fault_set_counters(f, &ctr);
	for (i = 0; f && i < 2000; i++) {
		uint32_t diff = 0, at = 0;

		len = 11 + i % 100;
		for (j = 0; j < len; j++)
			pkt[j] = (uint8_t)(i + j);
		memcpy(orig, pkt, len);
		c.n = 0;
		CHECK_EQ(trn_fault_xmit(f, &REQ, pkt, len, min_off, cap_emit,
					&c), 1);
		CHECK(!memcmp(pkt, orig, len));	/* the caller's: untouched */
		for (j = 0; j < len; j++) {
			if (c.data[0][j] != orig[j]) {
				diff++;
				at = j;
			}
		}
		CHECKM(diff == 1 && at >= min_off, "packet %u: %u bytes "
		       "changed, last at %u", i, diff, at);
		if (!seen_off[at]++)
			spread++;
	}
	CHECKM(spread > 50, "%u offsets hit", spread);
	CHECK_EQ(trn_ctr_get(&ctr, TRN_CTR_FAULT_CORRUPTED), 2000);
	/* Nothing at or after min_off: passes unchanged, not counted. */
	memset(pkt, 0x5a, 10);
	c.n = 0;
	CHECK_EQ(trn_fault_xmit(f, &REQ, pkt, 10, 10, cap_emit, &c), 1);
	CHECK(c.n == 1 && c.data[0][0] == 0x5a && c.data[0][9] == 0x5a);
	CHECK_EQ(trn_ctr_get(&ctr, TRN_CTR_FAULT_CORRUPTED), 2000);
	trn_fault_destroy(f);
}

static void test_delay(void)
{
	struct trn_fault *f = trn_fault_create("delay=5ms", 1, NULL, 0);
	struct trn_counters ctr = { { 0 } };
	uint64_t t0 = mono_ns(), dl, dl2;
	struct cap c = { 0 };

	trn_fault_set_counters(f, &ctr);
	CHECK_EQ(send1(f, &REQ, 1, 20, &c), 0);
	CHECK_EQ(send1(f, &REQ, 2, 20, &c), 0);
	CHECK_EQ(trn_fault_held(f), 2);
	CHECK_EQ(c.n, 0);
	dl = trn_fault_poll(f, t0, cap_emit, &c);	/* too early */
	CHECKM(dl >= t0 + 5000000 && dl <= mono_ns() + 5000000,
	       "deadline %llu ns after the send",
	       (unsigned long long)(dl - t0));
	CHECK_EQ(c.n, 0);
	dl2 = trn_fault_poll(f, dl - 1, cap_emit, &c);
	CHECK(c.n == 0 && dl2 == dl);
	CHECK_EQ(trn_fault_poll(f, dl + 1000000, cap_emit, &c), 0);
	CHECK(c.n == 2 && c.seq[0] == 1 && c.seq[1] == 2);
	CHECK_EQ(trn_fault_held(f), 0);
	CHECK_EQ(trn_ctr_get(&ctr, TRN_CTR_FAULT_DELAYED), 2);

	/* flush: the held ones are gone. */
	send1(f, &REQ, 3, 20, &c);
	trn_fault_flush(f);
	CHECK_EQ(trn_fault_held(f), 0);
	c.n = 0;
	CHECK_EQ(trn_fault_poll(f, UINT64_MAX, cap_emit, &c), 0);
	CHECK_EQ(c.n, 0);
	trn_fault_destroy(f);

	/* Jitter: 1 ms +- 500 us, and spread. The stage reads the clock
	 * between t0 and t1: each deadline lies in [t0 + 0.5 ms, t1 + 1.5 ms]
	 * however long a loaded machine took in between. */
	f = trn_fault_create("delay=1ms,jitter=500us", 1, NULL, 0);
	{
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		int i, out = 0;

		for (i = 0; f && i < 200; i++) {
			uint64_t t0 = mono_ns(), t1, dl;
			int64_t d;

			send1(f, &REQ, (uint32_t)i, 20, &c);
			t1 = mono_ns();
			dl = trn_fault_poll(f, 0, cap_emit, &c);
			out += dl < t0 + 500000 || dl > t1 + 1500000;
			d = (int64_t)(dl - t0 / 2 - t1 / 2);
			if (d < lo)
				lo = d;
			if (d > hi)
				hi = d;
			trn_fault_flush(f);
		}
		CHECKM(!out && hi - lo > 500000, "%d of 200 delays out of "
		       "[0.5, 1.5] ms; spread %lld ns", out,
		       (long long)(hi - lo));
	}
	trn_fault_destroy(f);

	/* A delayed duplicate: both copies held. */
	f = trn_fault_create("nth=1,action=delay,delay=1ms;nth=1,action=dup",
			     1, NULL, 0);
	c.n = 0;
	CHECK_EQ(send1(f, &REQ, 9, 20, &c), 0);
	CHECK_EQ(trn_fault_held(f), 2);
	trn_fault_poll(f, UINT64_MAX, cap_emit, &c);
	CHECK(c.n == 2 && c.seq[0] == 9 && c.seq[1] == 9);
	trn_fault_destroy(f);
}

static void test_reorder(void)
{
	struct trn_fault *f = trn_fault_create("nth=2,action=reorder", 1, NULL,
					       0);
	struct trn_counters ctr = { { 0 } };
	struct cap c = { 0 };
	uint64_t dl;

	trn_fault_set_counters(f, &ctr);
	CHECK_EQ(send1(f, &REQ, 1, 20, &c), 1);
	CHECK_EQ(send1(f, &REQ, 2, 20, &c), 0);	/* held */
	CHECK_EQ(trn_fault_held(f), 1);
	CHECK_EQ(send1(f, &REQ, 3, 20, &c), 2);	/* 3, then 2 */
	CHECK_EQ(send1(f, &REQ, 4, 20, &c), 1);
	CHECK(c.n == 4 && c.seq[0] == 1 && c.seq[1] == 3 && c.seq[2] == 2 &&
	      c.seq[3] == 4);
	CHECK_EQ(trn_ctr_get(&ctr, TRN_CTR_FAULT_REORDERED), 1);
	trn_fault_destroy(f);

	/* Nothing follows: it goes after 1 ms. */
	f = trn_fault_create("nth=1,action=reorder", 1, NULL, 0);
	c.n = 0;
	CHECK_EQ(send1(f, &REQ, 5, 20, &c), 0);
	dl = trn_fault_poll(f, mono_ns(), cap_emit, &c);
	CHECK(dl != 0 && c.n == 0);
	CHECK_EQ(trn_fault_poll(f, dl, cap_emit, &c), 0);
	CHECK(c.n == 1 && c.seq[0] == 5);
	trn_fault_destroy(f);

	/* A dropped packet does not release it; the next one sent does. */
	f = trn_fault_create("nth=1,action=reorder;nth=2", 1, NULL, 0);
	c.n = 0;
	CHECK_EQ(send1(f, &REQ, 1, 20, &c), 0);
	CHECK_EQ(send1(f, &REQ, 2, 20, &c), 0);	/* dropped */
	CHECK_EQ(send1(f, &REQ, 3, 20, &c), 2);
	CHECK(c.n == 2 && c.seq[0] == 3 && c.seq[1] == 1);
	trn_fault_destroy(f);
}

/* A packet's class and how many times it must come out (0: dropped). */
struct cls_out {
	uint32_t cls;
	int out;
};

/* Packets like REQ but of the classes @want[i].cls (up to a class 0),
 * 16 bytes each with sequence numbers 1, 2, ..., sent in turn through a
 * fault stage made of @spec: each must come out @want[i].out times. */
static void check_classes(const char *spec, const struct cls_out *want)
{
	struct trn_fault *f = trn_fault_create(spec, 1, NULL, 0);
	struct trn_fault_pkt p = REQ;
	struct cap c = { 0 };
	uint32_t i;

	for (i = 0; want[i].cls; i++) {
		int got;

		p.cls = want[i].cls;
		got = send1(f, &p, i + 1, 16, &c);
		CHECKM(got == want[i].out, "%s: packet %u (class %u) came out "
		       "%d times, expected %d", spec, i + 1, want[i].cls, got,
		       want[i].out);
	}
	trn_fault_destroy(f);
}

static void test_filters(void)
{
	struct trn_fault_pkt p;
	struct trn_fault *f;
	struct cap c = { 0 };

	check_classes("class=ack,loss=100%", (const struct cls_out[]){
		{ TRN_FC_REQ, 1 }, { TRN_FC_ACK, 0 }, { TRN_FC_RDRESP, 1 },
		{ 0 } });
	check_classes("class=ack+rdresp,loss=100%", (const struct cls_out[]){
		{ TRN_FC_ACK, 0 }, { TRN_FC_RDRESP, 0 }, { TRN_FC_ATOMIC, 1 },
		{ 0 } });

	p = REQ;
	f = trn_fault_create("qpn=0x123,loss=100%", 1, NULL, 0);
	CHECK_EQ(send1(f, &p, 1, 16, &c), 0);
	p.dqpn = 0x124;
	CHECK_EQ(send1(f, &p, 2, 16, &c), 1);
	trn_fault_destroy(f);

	p = REQ;
	f = trn_fault_create("dir=rx,loss=100%", 1, NULL, 0);
	CHECK_EQ(send1(f, &p, 1, 16, &c), 1);
	p.tx = false;
	CHECK_EQ(send1(f, &p, 2, 16, &c), 0);
	trn_fault_destroy(f);

	p = REQ;
	f = trn_fault_create("psn=5-6,loss=100%", 1, NULL, 0);
	p.psn = 4;
	CHECK_EQ(send1(f, &p, 1, 16, &c), 1);
	p.psn = 5;
	CHECK_EQ(send1(f, &p, 2, 16, &c), 0);
	p.psn = 6;
	CHECK_EQ(send1(f, &p, 3, 16, &c), 0);
	p.psn = 7;
	CHECK_EQ(send1(f, &p, 4, 16, &c), 1);
	trn_fault_destroy(f);

	/* nth counts matching packets only: the second ACK is dropped. */
	check_classes("nth=2,class=ack", (const struct cls_out[]){
		{ TRN_FC_REQ, 1 }, { TRN_FC_ACK, 1 }, { TRN_FC_REQ, 1 },
		{ TRN_FC_ACK, 0 }, { 0 } });
}

static void test_no_fault(void)
{
	struct cap c = { 0 };

	CHECK_EQ(send1(NULL, &REQ, 1, 16, &c), 1);
	CHECK(c.n == 1 && c.seq[0] == 1);
	CHECK_EQ(trn_fault_poll(NULL, UINT64_MAX, cap_emit, &c), 0);
	trn_fault_flush(NULL);
	trn_fault_destroy(NULL);
	CHECK_EQ(trn_fault_held(NULL), 0);
	CHECK(trn_fault_counters(NULL) == NULL);
}

/* ---- threads -------------------------------------------------------- */

struct thr {
	struct trn_fault *f;
	uint64_t emitted;
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	uint8_t pkt[64] = { 0 };
	uint32_t i;

	for (i = 0; i < 20000; i++) {
		trn_fault_xmit(t->f, &REQ, pkt, sizeof(pkt), 8, count_emit,
			       &t->emitted);
		if (i % 64 == 0)
			trn_fault_poll(t->f, mono_ns(), count_emit, &t->emitted);
	}
	return NULL;
}

static void test_threads(void)
{
	struct trn_fault *f = trn_fault_create("loss=10%,dup=10%,corrupt=5%,"
					       "reorder=5%;nth=3,interval=7,"
					       "action=delay,delay=50us", 9,
					       NULL, 0);
	struct trn_counters ctr = { { 0 } };
	struct thr t = { .f = f };
	pthread_t th[4];
	uint64_t dropped, dups;
	int i;

	trn_fault_set_counters(f, &ctr);
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, thr_main, &t);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	trn_fault_poll(f, UINT64_MAX, count_emit, &t.emitted);
	CHECK_EQ(trn_fault_held(f), 0);
	dropped = trn_ctr_get(&ctr, TRN_CTR_FAULT_DROPPED);
	dups = trn_ctr_get(&ctr, TRN_CTR_FAULT_DUPLICATED);
	CHECKM(t.emitted == 80000 - dropped + dups, "emitted %llu, dropped "
	       "%llu, duplicated %llu", (unsigned long long)t.emitted,
	       (unsigned long long)dropped, (unsigned long long)dups);
	trn_fault_destroy(f);
}

int main(void)
{
	test_spec_good();
	test_spec_empty();
	test_spec_bad();
	test_determinism();
	test_rates();
	test_exact();
	test_dup();
	test_corrupt();
	test_delay();
	test_reorder();
	test_filters();
	test_no_fault();
	test_threads();
	return smx_test_done();
}
