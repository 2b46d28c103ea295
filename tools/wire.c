/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 wire: the far end of the Ethernet port's cable (the `wire`
 * knob, man 7 softmlx5). It sends frames into the port -- from a pcap file
 * or generated UDP/IPv4 frames -- and writes the frames that come out of
 * the port to a pcap file, so a program on the software device (a FlexIO
 * packet processor, a raw packet QP application) can be fed and checked
 * from outside its process.
 *
 * The port's socket exists once the program opened the device; frames sent
 * before it installed its steering are dropped, as on a real port. With
 * --probe the first frame is resent every 200 ms until something comes out
 * of the port, and only then are the others sent.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "device/config.h"
#include "wire.h"

#define WIRE_MAX_FRAME 9238u
#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_LINKTYPE_ETHERNET 1u

struct frames {
	uint8_t **f;
	uint32_t *len;
	size_t n, cap;
};

struct wire_opts {
	char port[108];
	const char *send, *capture;
	unsigned long gen, gen_len, expect, timeout_ms, interval_us, window;
	uint8_t smac[6], dmac[6];
	bool probe;
};

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int frames_add(struct frames *fs, const uint8_t *f, uint32_t len)
{
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 64;
		uint8_t **nf = realloc(fs->f, cap * sizeof(*nf));
		uint32_t *nl;

		if (!nf)
			return -1;
		fs->f = nf;
		nl = realloc(fs->len, cap * sizeof(*nl));
		if (!nl)
			return -1;
		fs->len = nl;
		fs->cap = cap;
	}
	fs->f[fs->n] = malloc(len ? len : 1);
	if (!fs->f[fs->n])
		return -1;
	memcpy(fs->f[fs->n], f, len);
	fs->len[fs->n++] = len;
	return 0;
}

static uint32_t swap32(uint32_t v) { return __builtin_bswap32(v); }

/* A pcap file of Ethernet frames (either byte order, us or ns stamps). */
static int pcap_read(const char *path, struct frames *fs)
{
	FILE *f = fopen(path, "rb");
	uint32_t gh[6], rh[4];
	uint8_t *buf = NULL;
	bool sw;
	int rc = -1;

	if (!f) {
		fprintf(stderr, "softmlx5 wire: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(gh, 4, 6, f) != 6) {
		fprintf(stderr, "softmlx5 wire: %s: not a pcap file (short header)\n", path);
		goto out;
	}
	sw = gh[0] == swap32(PCAP_MAGIC_US) || gh[0] == swap32(PCAP_MAGIC_NS);
	if (!sw && gh[0] != PCAP_MAGIC_US && gh[0] != PCAP_MAGIC_NS) {
		fprintf(stderr, "softmlx5 wire: %s: not a pcap file (magic 0x%08x)\n",
			path, gh[0]);
		goto out;
	}
	if ((sw ? swap32(gh[5]) : gh[5]) != PCAP_LINKTYPE_ETHERNET) {
		fprintf(stderr, "softmlx5 wire: %s: link type %u is not Ethernet\n",
			path, sw ? swap32(gh[5]) : gh[5]);
		goto out;
	}
	buf = malloc(WIRE_MAX_FRAME);
	if (!buf)
		goto out;
	while (fread(rh, 4, 4, f) == 4) {
		uint32_t incl = sw ? swap32(rh[2]) : rh[2];

		if (incl > WIRE_MAX_FRAME || incl < 14) {
			fprintf(stderr, "softmlx5 wire: %s: record %zu has %u bytes "
				"(a frame is 14..%u)\n", path, fs->n, incl, WIRE_MAX_FRAME);
			goto out;
		}
		if (fread(buf, 1, incl, f) != incl) {
			fprintf(stderr, "softmlx5 wire: %s: record %zu is cut short\n",
				path, fs->n);
			goto out;
		}
		if (frames_add(fs, buf, incl))
			goto out;
	}
	rc = 0;
out:
	free(buf);
	fclose(f);
	return rc;
}

static FILE *pcap_create(const char *path)
{
	const uint32_t gh[6] = { PCAP_MAGIC_US, 2 | 4u << 16, 0, 0, 65535,
				 PCAP_LINKTYPE_ETHERNET };
	FILE *f = fopen(path, "wb");

	if (!f) {
		fprintf(stderr, "softmlx5 wire: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fwrite(gh, 4, 6, f);
	return f;
}

static void pcap_write(FILE *f, const uint8_t *frame, uint32_t len)
{
	struct timespec t;
	uint32_t rh[4];

	clock_gettime(CLOCK_REALTIME, &t);
	rh[0] = (uint32_t)t.tv_sec;
	rh[1] = (uint32_t)(t.tv_nsec / 1000);
	rh[2] = rh[3] = len;
	fwrite(rh, 4, 4, f);
	fwrite(frame, 1, len, f);
}

static uint16_t csum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Frame @k of --gen: Ethernet | IPv4 | UDP (ports 4660 -> 5678), the
 * payload "softmlx5 frame <k>" then a byte pattern; IPv4 checksum set. */
static void gen_frame(const struct wire_opts *o, unsigned long k, uint8_t *f)
{
	uint32_t len = (uint32_t)o->gen_len, ip = 14, udp = 34, i;
	char tag[48];
	size_t tl;

	memset(f, 0, len);
	memcpy(f, o->dmac, 6);
	memcpy(f + 6, o->smac, 6);
	f[12] = 0x08;
	f[ip] = 0x45;
	f[ip + 2] = (uint8_t)((len - ip) >> 8);
	f[ip + 3] = (uint8_t)(len - ip);
	f[ip + 4] = (uint8_t)(k >> 8);
	f[ip + 5] = (uint8_t)k;
	f[ip + 8] = 64;
	f[ip + 9] = 17;
	f[ip + 12] = 10; f[ip + 15] = 1;
	f[ip + 16] = 10; f[ip + 19] = 2;
	i = csum16(f + ip, 20);
	f[ip + 10] = (uint8_t)(i >> 8);
	f[ip + 11] = (uint8_t)i;
	f[udp] = 0x12; f[udp + 1] = 0x34;
	f[udp + 2] = 0x16; f[udp + 3] = 0x2e;
	f[udp + 4] = (uint8_t)((len - udp) >> 8);
	f[udp + 5] = (uint8_t)(len - udp);
	snprintf(tag, sizeof(tag), "softmlx5 frame %lu", k);
	tl = strlen(tag);
	for (i = udp + 8; i < len; i++)
		f[i] = i - udp - 8 < tl ? (uint8_t)tag[i - udp - 8] : (uint8_t)(i * 7 + k);
}

static bool parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6];
	char end;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &end) != 6)
		return false;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return false;
		mac[i] = (uint8_t)b[i];
	}
	return true;
}

static bool parse_ul(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return !errno && *s && !*end && *v <= max;
}

static void wire_usage(FILE *f)
{
	fprintf(f,
		"usage: softmlx5 wire [--port PATH] [--send FILE.pcap | --gen N [--len L]\n"
		"                     [--smac MAC] [--dmac MAC]] [--capture FILE.pcap]\n"
		"                     [--expect N] [--timeout MS] [--interval-us US] [--window N]\n"
		"                     [--probe]\n"
		"Plays the far end of the port's cable (the `wire` knob): sends frames\n"
		"into the port and captures the frames that come out of it.\n"
		"  --port PATH      the port's socket (default: the configured `wire`)\n"
		"  --send FILE      frames of a pcap file (Ethernet link type)\n"
		"  --gen N          N generated UDP/IPv4 frames of --len bytes (default 64)\n"
		"  --smac/--dmac    their addresses (default 02:00:00:00:00:01 -> :02)\n"
		"  --capture FILE   write the frames out of the port to a pcap file\n"
		"  --expect N       wait for N frames out of the port (exit 1 if fewer)\n"
		"  --timeout MS     give up waiting after MS ms (default 10000); also how\n"
		"                   long to wait for the port's socket to appear\n"
		"  --interval-us US pause between frames sent (default 0)\n"
		"  --window N       at most N frames sent and not yet come out (for a\n"
		"                   program that answers every frame; default: no limit)\n"
		"  --probe          resend the first frame every 200 ms until a frame\n"
		"                   comes out, then send the rest\n");
}

static int parse_opts(int argc, char **argv, struct wire_opts *o)
{
	struct smx_config cfg;
	int i;

	memset(o, 0, sizeof(*o));
	o->gen_len = 64;
	o->timeout_ms = 10000;
	memcpy(o->smac, (const uint8_t[6]){ 2, 0, 0, 0, 0, 1 }, 6);
	memcpy(o->dmac, (const uint8_t[6]){ 2, 0, 0, 0, 0, 2 }, 6);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;

		if (!strcmp(a, "--probe")) {
			o->probe = true;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			wire_usage(stdout);
			exit(0);
		}
		if (!v) {
			fprintf(stderr, "softmlx5 wire: '%s' needs a value (or is "
				"unknown)\n\n", a);
			wire_usage(stderr);
			return -1;
		}
		i++;
		if (!strcmp(a, "--port"))
			ok = strlen(v) < sizeof(o->port) &&
			     snprintf(o->port, sizeof(o->port), "%s", v) > 0;
		else if (!strcmp(a, "--send"))
			o->send = v;
		else if (!strcmp(a, "--capture"))
			o->capture = v;
		else if (!strcmp(a, "--gen"))
			ok = parse_ul(v, 1000000, &o->gen);
		else if (!strcmp(a, "--len"))
			ok = parse_ul(v, WIRE_MAX_FRAME, &o->gen_len) && o->gen_len >= 60;
		else if (!strcmp(a, "--smac"))
			ok = parse_mac(v, o->smac);
		else if (!strcmp(a, "--dmac"))
			ok = parse_mac(v, o->dmac);
		else if (!strcmp(a, "--expect"))
			ok = parse_ul(v, 100000000, &o->expect);
		else if (!strcmp(a, "--timeout"))
			ok = parse_ul(v, 86400000, &o->timeout_ms);
		else if (!strcmp(a, "--interval-us"))
			ok = parse_ul(v, 10000000, &o->interval_us);
		else if (!strcmp(a, "--window"))
			ok = parse_ul(v, 1000000, &o->window) && o->window;
		else {
			fprintf(stderr, "softmlx5 wire: unknown option '%s'\n\n", a);
			wire_usage(stderr);
			return -1;
		}
		if (!ok) {
			fprintf(stderr, "softmlx5 wire: bad value '%s' for %s\n", v, a);
			return -1;
		}
	}
	if (o->send && o->gen) {
		fprintf(stderr, "softmlx5 wire: --send and --gen exclude each other\n");
		return -1;
	}
	if (!o->port[0]) {
		if (smx_config_load(&cfg))
			return -1;
		if (!cfg.wire[0]) {
			fprintf(stderr, "softmlx5 wire: no --port and no `wire` in the "
				"configuration (man 7 softmlx5)\n");
			return -1;
		}
		snprintf(o->port, sizeof(o->port), "%s", cfg.wire);
	}
	return 0;
}

/* Takes every frame waiting at @fd; returns how many. */
static unsigned long drain(int fd, FILE *cap, uint8_t *buf)
{
	unsigned long n = 0;
	ssize_t r;

	while ((r = recv(fd, buf, WIRE_MAX_FRAME, MSG_DONTWAIT)) >= 0) {
		if (cap)
			pcap_write(cap, buf, (uint32_t)r);
		n++;
	}
	return n;
}

int cmd_wire(int argc, char **argv)
{
	struct sockaddr_un port = { .sun_family = AF_UNIX }, me = { .sun_family = AF_UNIX };
	struct frames fs = { 0 };
	struct wire_opts o;
	unsigned long got = 0, sent = 0;
	uint64_t deadline;
	uint8_t *buf = NULL;
	FILE *cap = NULL;
	struct stat st;
	int fd = -1, rc = 1;
	size_t k;

	if (parse_opts(argc, argv, &o))
		return 2;
	buf = malloc(WIRE_MAX_FRAME);
	if (!buf)
		return 1;
	if (o.send && pcap_read(o.send, &fs))
		goto out;
	for (k = 0; k < o.gen; k++) {
		gen_frame(&o, k, buf);
		if (frames_add(&fs, buf, (uint32_t)o.gen_len))
			goto out;
	}
	if (o.capture && !(cap = pcap_create(o.capture)))
		goto out;
	snprintf(port.sun_path, sizeof(port.sun_path), "%s", o.port);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* an autobound (abstract) address: the port answers to it, and
	 * nothing is left in the filesystem */
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(sa_family_t))) {
		fprintf(stderr, "softmlx5 wire: socket: %s\n", strerror(errno));
		goto out;
	}
	deadline = now_ms() + o.timeout_ms;
	while (stat(o.port, &st) || !S_ISSOCK(st.st_mode)) {
		if (now_ms() >= deadline) {
			fprintf(stderr, "softmlx5 wire: no port socket at %s after %lu ms "
				"(is a program with SOFTMLX5_WIRE=%s running?)\n",
				o.port, o.timeout_ms, o.port);
			goto out;
		}
		usleep(20000);
	}
	deadline = now_ms() + o.timeout_ms;
	for (k = 0; k < fs.n; k++) {
		/* flow control: wait for answers before going further ahead */
		while (o.window && k >= got + o.window) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (now_ms() >= deadline) {
				fprintf(stderr, "softmlx5 wire: %lu frames in flight and "
					"nothing came out for %lu ms\n", o.window, o.timeout_ms);
				goto out;
			}
			if (poll(&p, 1, 100) == 1) {
				got += drain(fd, cap, buf);
				deadline = now_ms() + o.timeout_ms;
			}
		}
		if (sendto(fd, fs.f[k], fs.len[k], 0, (struct sockaddr *)&port,
			   sizeof(port)) < 0) {
			if (errno == EAGAIN || errno == ENOBUFS) {
				usleep(1000);
				k--;
				continue;
			}
			fprintf(stderr, "softmlx5 wire: send to %s: %s\n", o.port,
				strerror(errno));
			goto out;
		}
		sent++;
		while (o.probe && k == 0 && !got) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, 200) == 1) {
				got += drain(fd, cap, buf);
			} else if (now_ms() >= deadline) {
				fprintf(stderr, "softmlx5 wire: nothing came out of the "
					"port in %lu ms of probing\n", o.timeout_ms);
				goto out;
			} else if (sendto(fd, fs.f[0], fs.len[0], 0,
					  (struct sockaddr *)&port, sizeof(port)) >= 0) {
				sent++;
			}
		}
		if (o.interval_us)
			usleep((useconds_t)o.interval_us);
		got += drain(fd, cap, buf);
	}
	deadline = now_ms() + o.timeout_ms;
	while (got < o.expect && now_ms() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) == 1)
			got += drain(fd, cap, buf);
	}
	got += drain(fd, cap, buf);
	printf("softmlx5 wire: %lu frames sent to %s, %lu came out\n", sent, o.port, got);
	rc = got >= o.expect ? 0 : 1;
	if (rc)
		fprintf(stderr, "softmlx5 wire: expected %lu frames out of the port, "
			"got %lu\n", o.expect, got);
out:
	if (fd >= 0)
		close(fd);
	if (cap)
		fclose(cap);
	for (k = 0; k < fs.n; k++)
		free(fs.f[k]);
	free(fs.f);
	free(fs.len);
	free(buf);
	return rc;
}
