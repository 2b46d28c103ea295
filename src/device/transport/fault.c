/* SPDX-License-Identifier: MIT */
/*
 * The fault stage of the transport's links (fault.h): spec parsing, the
 * per-rule decisions, and the packets held back for delay and reorder.
 *
 * Each rule draws from its own splitmix64 stream a fixed number of values
 * per packet it matches, whatever it decides: a rule's choices depend
 * only on its seed, the link and the packets it matched, never on what
 * the other rules did. Every rule sees every packet; their decisions are
 * merged: drop wins; otherwise a packet may be duplicated, corrupted (the
 * first copy) and delayed (all copies) at once; reorder applies to a
 * packet that is not delayed, one at a time (while one is held, a second
 * is sent in order).
 *
 * libc only (no softmlx5 logging): config.c checks specs with
 * trn_fault_create(), and the CLI compiles config.c in.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "device/transport/fault.h"
#include "util/parse.h"

#define FAULT_MAX_RULES 16
#define FAULT_MAX_HELD 4096u		/* packets held at once; more: dropped */
#define FAULT_REORDER_NS 1000000ull	/* a reordered packet waits at most */
#define FAULT_MAX_DELAY_NS 10000000000ull	/* delay + jitter: 10 s */
#define FAULT_PCT_ONE 100000000ull	/* 100%, in millionths of a percent */
#define FAULT_DEFAULT_SEED 1ull

enum fault_action {
	FA_NONE = 0,
	FA_DROP,
	FA_DUP,
	FA_CORRUPT,
	FA_DELAY,
	FA_REORDER,
};

static const char *const fault_action_name[] = {
	[FA_NONE] = "none",
	[FA_DROP] = "drop",
	[FA_DUP] = "dup",
	[FA_CORRUPT] = "corrupt",
	[FA_DELAY] = "delay",
	[FA_REORDER] = "reorder",
};

enum fault_dir { FD_ANY = 0, FD_TX = 1, FD_RX = 2 };

/* Keys a rule may give, as bits (each at most once). */
enum {
	K_LOSS = 1u << 0, K_DUP = 1u << 1, K_REORDER = 1u << 2,
	K_CORRUPT = 1u << 3, K_DELAY = 1u << 4, K_JITTER = 1u << 5,
	K_SEED = 1u << 6, K_DIR = 1u << 7, K_QPN = 1u << 8,
	K_CLASS = 1u << 9, K_PSN = 1u << 10, K_NTH = 1u << 11,
	K_ACTION = 1u << 12, K_TIMES = 1u << 13, K_INTERVAL = 1u << 14,
};
#define K_RANDOM (K_LOSS | K_DUP | K_REORDER | K_CORRUPT)

struct fault_rule {
	/* Filters. */
	enum fault_dir dir;
	uint32_t cls;			/* enum trn_fault_class bits; 0: any */
	bool has_qpn;
	uint32_t qpn;
	bool has_psn;
	uint32_t psn_lo, psn_hi;
	/* Random faults: probabilities in millionths of a percent. */
	uint64_t p_loss, p_dup, p_reorder, p_corrupt;
	uint64_t delay_ns, jitter_ns;
	/* Exact faults. */
	uint64_t nth;			/* 0: random rule */
	uint64_t interval;		/* 0: only the nth */
	uint64_t times;			/* actions at most; 0: unlimited */
	enum fault_action action;
	/* State. */
	uint64_t seed;
	uint64_t rng;
	uint64_t seen;			/* matching packets */
	uint64_t done;			/* actions taken */
	/* The rule as written, for messages (while parsing only). */
	const char *text;
	unsigned int keys;
};

/* A packet held back: by delay until @deadline, or by reorder until the
 * next packet goes out (or @deadline). */
struct fault_held {
	struct fault_held *next;
	uint64_t deadline;
	uint32_t len;
	bool reorder;
	uint8_t data[];
};

struct trn_fault {
	pthread_mutex_t lock;
	unsigned int nrules;
	struct fault_rule rule[FAULT_MAX_RULES];
	struct fault_held *held;	/* by deadline, then arrival */
	struct fault_held *reorder;	/* the one reorder holds, or NULL */
	uint32_t nheld;
	struct trn_counters own;	/* until trn_fault_set_counters() */
	struct trn_counters *ctr;
};

/* --------------------------------------------------------------- random */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* splitmix64: a Weyl sequence through the mixer above. */
static uint64_t rng_next(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ull;
	return mix64(*state);
}

/* True with probability @p (millionths of a percent) for draw @r. */
static bool rng_hit(uint64_t r, uint64_t p)
{
	if (p >= FAULT_PCT_ONE)
		return true;
	return (uint64_t)(((unsigned __int128)r * FAULT_PCT_ONE) >> 64) < p;
}

/* A draw in [0, n). */
static uint64_t rng_below(uint64_t r, uint64_t n)
{
	return n ? (uint64_t)(((unsigned __int128)r * n) >> 64) : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* -------------------------------------------------------------- parsing */

struct parse {
	char *err;
	size_t errlen;
};

/* Reports @tok (one key=value) and why it is wrong. Returns -1. */
static int bad(struct parse *p, const char *tok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct parse *p, const char *tok, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (p->errlen)
		snprintf(p->err, p->errlen, "'%s': %s", tok, why);
	return -1;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/*
 * Digits with an optional fraction of at most @maxfrac digits: the value
 * times 10^@maxfrac in *out; *end after it.
 */
static bool parse_fixed(const char *s, unsigned int maxfrac, uint64_t *out,
			const char **end)
{
	uint64_t v = 0;
	unsigned int nint = 0, nfrac = 0;

	for (; *s >= '0' && *s <= '9'; s++, nint++) {
		if (v > (UINT64_MAX / 10 - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, nfrac++) {
			if (nfrac == maxfrac)
				return false;
			if (v > (UINT64_MAX / 10 - 9) / 10)
				return false;
			v = v * 10 + (uint64_t)(*s - '0');
		}
		if (!nfrac)
			return false;
	}
	if (!nint)
		return false;
	for (; nfrac < maxfrac; nfrac++) {
		if (v > UINT64_MAX / 10)
			return false;
		v *= 10;
	}
	*out = v;
	*end = s;
	return true;
}

/* "5%", "0.1%", "5": millionths of a percent, at most 100%. */
static bool parse_pct(const char *s, uint64_t *out)
{
	const char *e;
	uint64_t v;

	if (!parse_fixed(s, 6, &v, &e))
		return false;
	if (*e == '%')
		e++;
	if (*e || v > FAULT_PCT_ONE)
		return false;
	*out = v;
	return true;
}

/* "100us", "1.5ms", "2s", "500ns", "100" (us): nanoseconds. */
static bool parse_time(const char *s, uint64_t *out)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "", 1000 },
	};
	const char *e;
	uint64_t v;
	size_t i;

	/* Nine fraction digits: down to a nanosecond of a second. */
	if (!parse_fixed(s, 9, &v, &e))
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		unsigned __int128 ns;

		if (strcmp(e, units[i].unit))
			continue;
		ns = (unsigned __int128)v * units[i].ns / 1000000000u;
		if (ns > FAULT_MAX_DELAY_NS)
			return false;
		*out = (uint64_t)ns;
		return true;
	}
	return false;
}

static bool parse_class(char *s, uint32_t *out, const char **badname)
{
	uint32_t cls = 0;
	char *save = NULL, *t;

	if (!*s || s[strlen(s) - 1] == '+' || s[0] == '+' || strstr(s, "++")) {
		*badname = "";
		return false;
	}
	for (t = strtok_r(s, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		t = trim(t);
		if (!strcasecmp(t, "req"))
			cls |= TRN_FC_REQ;
		else if (!strcasecmp(t, "ack"))
			cls |= TRN_FC_ACK;
		else if (!strcasecmp(t, "rdresp"))
			cls |= TRN_FC_RDRESP;
		else if (!strcasecmp(t, "atomic"))
			cls |= TRN_FC_ATOMIC;
		else {
			*badname = t;
			return false;
		}
	}
	*out = cls;
	return true;
}

static const struct {
	const char *key;
	unsigned int bit;
} fault_keys[] = {
	{ "loss", K_LOSS }, { "dup", K_DUP }, { "reorder", K_REORDER },
	{ "corrupt", K_CORRUPT }, { "delay", K_DELAY }, { "jitter", K_JITTER },
	{ "seed", K_SEED }, { "dir", K_DIR }, { "qpn", K_QPN },
	{ "class", K_CLASS }, { "psn", K_PSN }, { "nth", K_NTH },
	{ "action", K_ACTION }, { "times", K_TIMES }, { "interval", K_INTERVAL },
};

/* One key=value of rule @r: 0 or -1 with @p's message. @tok is the item
 * as written (for messages), @key and @val its trimmed halves. */
static int parse_item(struct parse *p, struct fault_rule *r, const char *tok,
		      const char *key, char *val)
{
	unsigned int bit = 0;
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(fault_keys) / sizeof(fault_keys[0]); i++)
		if (!strcmp(key, fault_keys[i].key))
			bit = fault_keys[i].bit;
	if (!bit)
		return bad(p, tok, "unknown key (loss, dup, reorder, corrupt, "
			   "delay, jitter, seed, dir, qpn, class, psn, nth, "
			   "action, times, interval)");
	if (r->keys & bit)
		return bad(p, tok, "'%s' given twice in one rule", key);
	r->keys |= bit;
	if (!*val)
		return bad(p, tok, "empty value");

	switch (bit) {
	case K_LOSS:
	case K_DUP:
	case K_REORDER:
	case K_CORRUPT:
		if (!parse_pct(val, &v))
			return bad(p, tok, "not a percentage (0-100, e.g. 5%% "
				   "or 0.1%%; at most 6 decimals)");
		if (bit == K_LOSS)
			r->p_loss = v;
		else if (bit == K_DUP)
			r->p_dup = v;
		else if (bit == K_REORDER)
			r->p_reorder = v;
		else
			r->p_corrupt = v;
		return 0;
	case K_DELAY:
	case K_JITTER:
		if (!parse_time(val, &v))
			return bad(p, tok, "not a time (e.g. 100us, 1.5ms, 2s, "
				   "500ns; a bare number is us; at most 10 s)");
		if (bit == K_DELAY)
			r->delay_ns = v;
		else
			r->jitter_ns = v;
		return 0;
	case K_SEED:
		if (!smx_parse_u64(val, &v))
			return bad(p, tok, "not a number (decimal, or hex "
				   "with 0x)");
		r->seed = v;
		return 0;
	case K_DIR:
		if (!strcasecmp(val, "tx"))
			r->dir = FD_TX;
		else if (!strcasecmp(val, "rx"))
			r->dir = FD_RX;
		else
			return bad(p, tok, "not a direction (tx or rx)");
		return 0;
	case K_QPN:
		if (!smx_parse_u64(val, &v) || v > 0xffffff)
			return bad(p, tok, "not a QPN (0-0xffffff)");
		r->has_qpn = true;
		r->qpn = (uint32_t)v;
		return 0;
	case K_CLASS: {
		const char *which = "";

		if (!parse_class(val, &r->cls, &which))
			return bad(p, tok, "%s%s%snot a class list (req, ack, "
				   "rdresp, atomic, joined with '+')",
				   *which ? "'" : "", which,
				   *which ? "': " : "");
		return 0;
	}
	case K_PSN: {
		char *dash = strchr(val, '-');
		uint64_t lo, hi;

		if (dash)
			*dash = '\0';
		if (!smx_parse_u64(trim(val), &lo) ||
		    (dash && !smx_parse_u64(trim(dash + 1), &hi)))
			return bad(p, tok, "not a PSN or PSN range (A or A-B, "
				   "0-0xffffff)");
		if (!dash)
			hi = lo;
		if (lo > 0xffffff || hi > 0xffffff || lo > hi)
			return bad(p, tok, "not a PSN range (A-B with A <= B "
				   "<= 0xffffff)");
		r->has_psn = true;
		r->psn_lo = (uint32_t)lo;
		r->psn_hi = (uint32_t)hi;
		return 0;
	}
	case K_NTH:
	case K_TIMES:
	case K_INTERVAL:
		if (!smx_parse_u64(val, &v) || v == 0)
			return bad(p, tok, "not a count (1 or more)");
		if (bit == K_NTH)
			r->nth = v;
		else if (bit == K_TIMES)
			r->times = v;
		else
			r->interval = v;
		return 0;
	case K_ACTION:
		for (i = FA_DROP; i <= FA_REORDER; i++)
			if (!strcasecmp(val, fault_action_name[i]))
				r->action = (enum fault_action)i;
		if (r->action == FA_NONE)
			return bad(p, tok, "not an action (drop, dup, corrupt, "
				   "delay, reorder)");
		return 0;
	}
	return bad(p, tok, "unknown key");
}

/* The item of @r that gave key @bit, for a message about it. */
static const char *item_of(const struct fault_rule *r, const char *key,
			   char *buf, size_t len)
{
	const char *s = r->text;
	size_t n = strlen(key);

	/* r->text is the rule as written, items separated by ','. */
	while (s && *s) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		const char *t = s;

		while (*t == ' ' || *t == '\t')
			t++;
		if (!strncmp(t, key, n) && (t[n] == '=' || t[n] == ' ' ||
					    t[n] == '\t')) {
			snprintf(buf, len, "%.*s", (int)(l - (size_t)(t - s)), t);
			return trim(buf);
		}
		s = e ? e + 1 : NULL;
	}
	snprintf(buf, len, "%s", key);
	return buf;
}

/* Checks that rule @r's keys make sense together. */
static int check_rule(struct parse *p, struct fault_rule *r)
{
	char buf[128];

	if (r->nth) {
		if (r->keys & K_RANDOM) {
			const char *k = r->keys & K_LOSS ? "loss" :
					r->keys & K_DUP ? "dup" :
					r->keys & K_REORDER ? "reorder" :
					"corrupt";

			return bad(p, item_of(r, k, buf, sizeof(buf)),
				   "a random fault does not go with nth= (give "
				   "action= instead, or put it in a rule of "
				   "its own after ';')");
		}
		if (r->action == FA_NONE)
			r->action = FA_DROP;
		if (r->action == FA_DELAY && !(r->keys & K_DELAY))
			return bad(p, item_of(r, "action", buf, sizeof(buf)),
				   "needs delay= (how long)");
		if (r->action != FA_DELAY && (r->keys & (K_DELAY | K_JITTER)))
			return bad(p, item_of(r, r->keys & K_DELAY ? "delay" :
					      "jitter", buf, sizeof(buf)),
				   "with nth=, only for action=delay");
		if (!r->times && !r->interval)
			r->times = 1;
	} else {
		if (r->keys & K_ACTION)
			return bad(p, item_of(r, "action", buf, sizeof(buf)),
				   "needs nth= (which packet)");
		if (r->keys & K_INTERVAL)
			return bad(p, item_of(r, "interval", buf, sizeof(buf)),
				   "needs nth= (the first packet)");
		if (!(r->keys & (K_RANDOM | K_DELAY))) {
			snprintf(buf, sizeof(buf), "%s", r->text);
			return bad(p, trim(buf), "the rule does nothing (give "
				   "loss=, dup=, reorder=, corrupt=, delay= or "
				   "nth=)");
		}
	}
	if ((r->keys & K_JITTER) && !(r->keys & K_DELAY))
		return bad(p, item_of(r, "jitter", buf, sizeof(buf)),
			   "needs delay=");
	if (r->delay_ns + r->jitter_ns > FAULT_MAX_DELAY_NS)
		return bad(p, item_of(r, r->jitter_ns ? "jitter" : "delay",
				      buf, sizeof(buf)),
			   "delay + jitter exceeds 10 s");
	return 0;
}

/*
 * Parses @spec into @f's rules. Two copies: @work is cut into items,
 * @keep only at the ';' (rule texts for messages, valid while parsing).
 */
static int parse_spec(struct trn_fault *f, const char *spec, struct parse *p)
{
	char *work = strdup(spec), *keep = strdup(spec), *rs, *next;
	unsigned int i;
	int ret = 0;

	if (!work || !keep) {
		free(work);
		free(keep);
		if (p->errlen)
			snprintf(p->err, p->errlen, "out of memory");
		return -1;
	}
	for (rs = work; rs && !ret; rs = next) {
		char *semi = strchr(rs, ';'), *is, *inext;
		struct fault_rule *r;

		next = semi ? semi + 1 : NULL;
		if (semi) {
			*semi = '\0';
			keep[semi - work] = '\0';
		}
		if (!*trim(rs))
			continue;	/* "a;;b", a trailing ';' */
		if (f->nrules == FAULT_MAX_RULES) {
			ret = bad(p, trim(keep + (rs - work)),
				  "more than %d rules", FAULT_MAX_RULES);
			break;
		}
		r = &f->rule[f->nrules++];
		r->text = trim(keep + (rs - work));
		r->seed = FAULT_DEFAULT_SEED;
		for (is = rs; is && !ret; is = inext) {
			char *comma = strchr(is, ','), *tok, *eq, shown[128];

			inext = comma ? comma + 1 : NULL;
			if (comma)
				*comma = '\0';
			tok = trim(is);
			snprintf(shown, sizeof(shown), "%s", tok);
			if (!*tok) {
				ret = bad(p, r->text, "an empty item");
				break;
			}
			eq = strchr(tok, '=');
			if (!eq) {
				ret = bad(p, shown, "expected key=value");
				break;
			}
			*eq = '\0';
			ret = parse_item(p, r, shown, trim(tok), trim(eq + 1));
		}
		if (!ret)
			ret = check_rule(p, r);
	}
	for (i = 0; i < f->nrules; i++)
		f->rule[i].text = NULL;
	free(work);
	free(keep);
	return ret;
}

static bool spec_empty(const char *spec)
{
	char buf[8];
	size_t n;

	if (!spec)
		return true;
	while (*spec == ' ' || *spec == '\t')
		spec++;
	n = strlen(spec);
	while (n && (spec[n - 1] == ' ' || spec[n - 1] == '\t'))
		n--;
	if (!n)
		return true;
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, spec, n);
	buf[n] = '\0';
	return !strcasecmp(buf, "none") || !strcasecmp(buf, "off");
}

struct trn_fault *trn_fault_create(const char *spec, uint64_t link_id,
				   char *err, size_t errlen)
{
	struct parse p = { .err = err, .errlen = errlen };
	struct trn_fault *f;
	unsigned int i;

	if (err && errlen)
		err[0] = '\0';
	if (!err)
		p.errlen = 0;
	if (spec_empty(spec))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f) {
		if (p.errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_spec(f, spec, &p)) {
		free(f);
		if (p.errlen && !err[0])
			snprintf(err, errlen, "invalid fault spec");
		return NULL;
	}
	if (!f->nrules) {	/* only ';' and blanks */
		free(f);
		return NULL;
	}
	for (i = 0; i < f->nrules; i++) {
		struct fault_rule *r = &f->rule[i];

		/* A different stream per rule and per link, the same from
		 * one run to the next. */
		r->rng = r->seed ^ mix64(link_id + 0x632be59bd9b4e019ull) ^
			 mix64((uint64_t)i + 0x8cb92ba72f3d8dd7ull);
	}
	pthread_mutex_init(&f->lock, NULL);
	f->ctr = &f->own;
	return f;
}

static void held_free_all(struct fault_held *h)
{
	while (h) {
		struct fault_held *n = h->next;

		free(h);
		h = n;
	}
}

void trn_fault_destroy(struct trn_fault *f)
{
	if (!f)
		return;
	held_free_all(f->held);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

void trn_fault_set_counters(struct trn_fault *f, struct trn_counters *c)
{
	if (f)
		__atomic_store_n(&f->ctr, c ? c : &f->own, __ATOMIC_RELEASE);
}

struct trn_counters *trn_fault_counters(struct trn_fault *f)
{
	return f ? __atomic_load_n(&f->ctr, __ATOMIC_ACQUIRE) : NULL;
}

/* ------------------------------------------------------------ deciding */

struct decision {
	bool drop, dup, corrupt, reorder;
	uint64_t delay_ns;		/* 0: none */
	uint64_t corrupt_r;		/* the draw that places the byte */
};

static bool rule_matches(const struct fault_rule *r,
			 const struct trn_fault_pkt *in)
{
	/* Without dir=, a rule acts where packets leave, as netem does on
	 * egress: each packet meets it once, not again where it arrives. */
	if (r->dir != FD_RX && !in->tx)
		return false;
	if (r->dir == FD_RX && in->tx)
		return false;
	if (r->cls && !(r->cls & in->cls))
		return false;
	if (r->has_qpn && (in->dqpn & 0xffffff) != r->qpn)
		return false;
	if (r->has_psn && ((in->psn & 0xffffff) < r->psn_lo ||
			   (in->psn & 0xffffff) > r->psn_hi))
		return false;
	return true;
}

/* A delay of @d ns give or take @j, never below 0. */
static uint64_t jittered(uint64_t d, uint64_t j, uint64_t r)
{
	uint64_t span;

	if (!j)
		return d;
	span = rng_below(r, 2 * j + 1);	/* [0, 2j] */
	return d + span < j ? 0 : d + span - j;
}

/* Rule @r's say on one packet it matches, merged into @d. */
static void rule_decide(struct fault_rule *r, struct decision *d)
{
	/* Always six draws, whatever is configured or decided. */
	uint64_t r_loss = rng_next(&r->rng), r_dup = rng_next(&r->rng);
	uint64_t r_reo = rng_next(&r->rng), r_cor = rng_next(&r->rng);
	uint64_t r_jit = rng_next(&r->rng), r_pos = rng_next(&r->rng);
	struct decision mine = { 0 };
	bool fire;

	r->seen++;
	if (r->times && r->done >= r->times)
		return;
	if (r->nth) {
		fire = r->seen == r->nth ||
		       (r->interval && r->seen > r->nth &&
			(r->seen - r->nth) % r->interval == 0);
		if (!fire)
			return;
		switch (r->action) {
		case FA_DROP: mine.drop = true; break;
		case FA_DUP: mine.dup = true; break;
		case FA_CORRUPT: mine.corrupt = true; break;
		case FA_REORDER: mine.reorder = true; break;
		case FA_DELAY:
			mine.delay_ns = jittered(r->delay_ns, r->jitter_ns,
						 r_jit);
			break;
		case FA_NONE: break;
		}
	} else {
		mine.drop = r->p_loss && rng_hit(r_loss, r->p_loss);
		mine.dup = r->p_dup && rng_hit(r_dup, r->p_dup);
		mine.reorder = r->p_reorder && rng_hit(r_reo, r->p_reorder);
		mine.corrupt = r->p_corrupt && rng_hit(r_cor, r->p_corrupt);
		if (r->delay_ns || r->jitter_ns)
			mine.delay_ns = jittered(r->delay_ns, r->jitter_ns,
						 r_jit);
	}
	if (!mine.drop && !mine.dup && !mine.reorder && !mine.corrupt &&
	    !mine.delay_ns)
		return;
	r->done++;
	d->drop |= mine.drop;
	d->dup |= mine.dup;
	d->reorder |= mine.reorder;
	if (mine.corrupt && !d->corrupt) {
		d->corrupt = true;
		d->corrupt_r = r_pos;
	}
	if (mine.delay_ns > d->delay_ns)
		d->delay_ns = mine.delay_ns;
}

/* --------------------------------------------------------- holding back */

/* Inserts @h by deadline, after those with the same one. */
static void held_insert(struct trn_fault *f, struct fault_held *h)
{
	struct fault_held **pp = &f->held;

	while (*pp && (*pp)->deadline <= h->deadline)
		pp = &(*pp)->next;
	h->next = *pp;
	*pp = h;
	f->nheld++;
}

static void held_unlink(struct trn_fault *f, struct fault_held *h)
{
	struct fault_held **pp = &f->held;

	while (*pp && *pp != h)
		pp = &(*pp)->next;
	if (*pp) {
		*pp = h->next;
		h->next = NULL;
		f->nheld--;
	}
	if (f->reorder == h)
		f->reorder = NULL;
}

/* A copy of @pkt to hold until @deadline; NULL: out of memory. */
static struct fault_held *held_new(const uint8_t *pkt, uint32_t len,
				   uint64_t deadline)
{
	struct fault_held *h = malloc(sizeof(*h) + len);

	if (!h)
		return NULL;
	h->next = NULL;
	h->deadline = deadline;
	h->len = len;
	h->reorder = false;
	memcpy(h->data, pkt, len);
	return h;
}

/* Changes one byte of @buf at an offset >= @min_off chosen by @r. */
static void corrupt_byte(uint8_t *buf, uint32_t len, uint32_t min_off,
			 uint64_t r)
{
	uint32_t off = min_off + (uint32_t)rng_below(r, len - min_off);

	/* Low bits place the byte, high bits pick a non-zero mask. */
	buf[off] ^= (uint8_t)(1 + rng_below(mix64(r), 255));
}

/* ------------------------------------------------------------- the stage */

struct out {
	const uint8_t *pkt;
	uint32_t len;
	void *owned;		/* freed after emit */
};

bool trn_fault_sees(const struct trn_fault *f, bool tx)
{
	unsigned int i;

	for (i = 0; f && i < f->nrules; i++)
		if ((f->rule[i].dir == FD_RX) != tx)
			return true;
	return false;
}

int trn_fault_xmit(struct trn_fault *f, const struct trn_fault_pkt *info,
		   const uint8_t *pkt, uint32_t len, uint32_t min_off,
		   trn_emit_fn emit, void *ctx)
{
	struct decision d = { 0 };
	struct out out[3];
	struct trn_counters *ctr;
	struct fault_held *cor = NULL;
	unsigned int i, nout = 0;
	bool can_corrupt;

	if (!f) {
		emit(ctx, pkt, len);
		return 1;
	}
	ctr = trn_fault_counters(f);
	can_corrupt = len > min_off;
	pthread_mutex_lock(&f->lock);
	for (i = 0; i < f->nrules; i++)
		if (rule_matches(&f->rule[i], info))
			rule_decide(&f->rule[i], &d);
	if (d.drop) {
		pthread_mutex_unlock(&f->lock);
		trn_ctr_add(ctr, TRN_CTR_FAULT_DROPPED, 1);
		return 0;
	}
	d.corrupt &= can_corrupt;
	if (d.corrupt) {
		cor = held_new(pkt, len, 0);
		if (cor)
			corrupt_byte(cor->data, len, min_off, d.corrupt_r);
		else
			d.corrupt = false;	/* out of memory: as is */
	}
	if (d.delay_ns) {
		uint64_t dl = now_ns() + d.delay_ns;
		unsigned int copies = 1 + d.dup;
		struct fault_held *h[2] = { NULL, NULL };

		if (f->nheld + copies > FAULT_MAX_HELD) {
			pthread_mutex_unlock(&f->lock);
			free(cor);
			trn_ctr_add(ctr, TRN_CTR_FAULT_DROPPED, 1);
			return 0;
		}
		h[0] = cor ? cor : held_new(pkt, len, dl);
		if (h[0] && d.dup)
			h[1] = held_new(pkt, len, dl);
		if (h[0] && (!d.dup || h[1])) {
			h[0]->deadline = dl;
			held_insert(f, h[0]);
			if (h[1])
				held_insert(f, h[1]);
			pthread_mutex_unlock(&f->lock);
			trn_ctr_add(ctr, TRN_CTR_FAULT_DELAYED, 1);
			if (d.dup)
				trn_ctr_add(ctr, TRN_CTR_FAULT_DUPLICATED, 1);
			if (d.corrupt)
				trn_ctr_add(ctr, TRN_CTR_FAULT_CORRUPTED, 1);
			return 0;
		}
		/* Out of memory: sent now, undelayed. */
		if (h[0] != cor)
			free(h[0]);
		free(h[1]);
		d.delay_ns = 0;
	}
	if (d.reorder && !f->reorder && f->nheld < FAULT_MAX_HELD) {
		struct fault_held *h = cor ? cor : held_new(pkt, len, 0);

		if (h) {
			h->deadline = now_ns() + FAULT_REORDER_NS;
			h->reorder = true;
			held_insert(f, h);
			f->reorder = h;
			if (d.dup) {
				/* The duplicate goes now, ahead of it. */
				out[nout++] = (struct out){ pkt, len, NULL };
			}
			pthread_mutex_unlock(&f->lock);
			trn_ctr_add(ctr, TRN_CTR_FAULT_REORDERED, 1);
			if (d.dup)
				trn_ctr_add(ctr, TRN_CTR_FAULT_DUPLICATED, 1);
			if (d.corrupt)
				trn_ctr_add(ctr, TRN_CTR_FAULT_CORRUPTED, 1);
			goto emit;
		}
	}
	if (cor)
		out[nout++] = (struct out){ cor->data, len, cor };
	else
		out[nout++] = (struct out){ pkt, len, NULL };
	if (d.dup)
		out[nout++] = (struct out){ pkt, len, NULL };
	/* A packet went out: the one reorder held follows it. */
	if (f->reorder) {
		struct fault_held *h = f->reorder;

		held_unlink(f, h);
		out[nout++] = (struct out){ h->data, h->len, h };
	}
	pthread_mutex_unlock(&f->lock);
	if (d.dup)
		trn_ctr_add(ctr, TRN_CTR_FAULT_DUPLICATED, 1);
	if (d.corrupt)
		trn_ctr_add(ctr, TRN_CTR_FAULT_CORRUPTED, 1);
emit:
	for (i = 0; i < nout; i++) {
		emit(ctx, out[i].pkt, out[i].len);
		free(out[i].owned);
	}
	return (int)nout;
}

uint64_t trn_fault_poll(struct trn_fault *f, uint64_t now, trn_emit_fn emit,
			void *ctx)
{
	struct fault_held *due = NULL, **tail = &due, *h;
	bool sent_other = false;
	uint64_t next;

	if (!f)
		return 0;
	pthread_mutex_lock(&f->lock);
	while (f->held && f->held->deadline <= now) {
		h = f->held;
		held_unlink(f, h);
		sent_other |= !h->reorder;
		*tail = h;
		tail = &h->next;
	}
	/* A delayed packet going out releases the one reorder holds. */
	if (sent_other && f->reorder) {
		h = f->reorder;
		held_unlink(f, h);
		*tail = h;
		tail = &h->next;
	}
	next = f->held ? f->held->deadline : 0;
	pthread_mutex_unlock(&f->lock);
	while (due) {
		h = due;
		due = h->next;
		emit(ctx, h->data, h->len);
		free(h);
	}
	return next;
}

void trn_fault_flush(struct trn_fault *f)
{
	struct fault_held *h;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	h = f->held;
	f->held = NULL;
	f->reorder = NULL;
	f->nheld = 0;
	pthread_mutex_unlock(&f->lock);
	held_free_all(h);
}

uint32_t trn_fault_held(struct trn_fault *f)
{
	uint32_t n;

	if (!f)
		return 0;
	pthread_mutex_lock(&f->lock);
	n = f->nheld;
	pthread_mutex_unlock(&f->lock);
	return n;
}
