/* SPDX-License-Identifier: MIT */
/*
 * Network baselines for `make bench` (bench/run.sh, "two hosts"), measured
 * in the same run as the figures they stand beside:
 *
 *   udp_baseline lat server ADDR [-p PORT] [-t SEC] [--block]
 *   udp_baseline lat client ADDR [-p PORT] [-n ITERS] [--block]
 *       UDP ping-pong of 8-byte datagrams; the client prints the one-way
 *       latency (RTT / 2 of each iteration): its median and 99th
 *       percentile over ITERS (default 20000) iterations, after 1000
 *       unmeasured ones. Both sides busy-poll their socket (as perftest
 *       polls its CQ) unless --block is given.
 *
 *   udp_baseline bw server ADDR [-p PORT] [-t SEC] [--no-offload]
 *   udp_baseline bw client ADDR [-p PORT] [-d SEC] [--no-offload]
 *       UDP stream from client to server for SEC seconds (default 2): every
 *       system call moves 64 KiB of payload -- sendmmsg() of two UDP GSO
 *       super-datagrams (UDP_SEGMENT) cut at the path MTU, or, where the
 *       kernel refuses GSO, of one datagram per MTU; the server takes them
 *       with recvmmsg(), coalesced by UDP GRO where the kernel accepts it.
 *       The server measures the payload it received between the first and
 *       the last datagram and returns it; the client prints it.
 *       --no-offload: neither GSO nor GRO (the fallback, on purpose).
 *
 * ADDR is IPv4 or IPv6: the address the server binds, the server's address
 * for the client. PORT defaults to 47910. A server serves one client, then
 * exits (after SEC seconds, default 30, without one: status 1).
 *
 * Output (client, one line each):
 *   udp_lat family=4|6 iters=N median_us=X p99_us=Y mode=poll|block
 *   udp_bw family=4|6 bytes_per_s=X mib_per_s=Y seconds=T sent=B
 *          received=B loss_pct=P seg=S gso=0|1 gro=0|1
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEF_PORT 47910
#define BATCH (64 * 1024)		/* payload per sending system call */
#define RX_VLEN 64			/* messages per recvmmsg() */
#define RX_MSG (64 * 1024)		/* bytes per received message (GRO) */
#define WARMUP 1000
/* The first 8 bytes of every datagram of the stream say what it is. */
#define TAG_DATA 0x534d58444154410aull	/* "SMXDATA\n" */
#define TAG_END 0x534d58454e440a0aull
#define TAG_RES 0x534d58524553540aull
#define TAG_PROBE 0x534d5850524f420aull	/* "is the server there?" */

struct opts {
	const char *mode, *role, *addr;
	unsigned int port;
	long iters;
	double secs;		/* bw client: stream time; servers: patience */
	bool block;
	bool no_offload;	/* bw: no GSO / GRO */
};

struct result {			/* the server's answer to an END */
	uint64_t tag, bytes, ns, datagrams, gro;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int addr_parse(const char *s, unsigned int port,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return AF_INET6;
	}
	fprintf(stderr, "udp_baseline: '%s' is not an IPv4 or IPv6 address\n", s);
	return -1;
}

/* A UDP socket of @fam with big buffers (forced where we may: root). */
static int udp_socket(int fam)
{
	int fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0), sz = 8 << 20;

	if (fd < 0) {
		perror("udp_baseline: socket");
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	return fd;
}

/* A server's socket, bound to ADDR:PORT; -1 (said why) on failure. */
static int server_socket(const struct opts *o)
{
	struct sockaddr_storage me;
	socklen_t len;
	int fd, fam = addr_parse(o->addr, o->port, &me, &len);

	if (fam < 0 || (fd = udp_socket(fam)) < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&me, len)) {
		perror("udp_baseline: bind");
		close(fd);
		return -1;
	}
	return fd;
}

/* Waits up to @ms for @fd to become readable: > 0 ready, 0 not. */
static int wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms);
}

/* Receives one datagram into @buf, busy-polling unless @block; the peer's
 * address into @from. Gives up after @ms without one: -1, errno EAGAIN. */
static ssize_t recv_one(int fd, void *buf, size_t len, bool block, int ms,
			struct sockaddr_storage *from, socklen_t *flen)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;
	ssize_t n;

	for (;;) {
		if (from)
			*flen = sizeof(*from);
		n = recvfrom(fd, buf, len, block ? 0 : MSG_DONTWAIT,
			     (struct sockaddr *)from, from ? flen : NULL);
		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			return n;
		if (now_ns() > end) {
			errno = EAGAIN;
			return -1;
		}
		if (block && wait_in(fd, ms) == 0) {
			errno = EAGAIN;
			return -1;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------- latency */

static int lat_server(const struct opts *o)
{
	struct sockaddr_storage peer;
	socklen_t plen;
	uint64_t v[2];
	int fd = server_socket(o);
	ssize_t n;

	if (fd < 0)
		return 2;
	/* Echo every ping until the client's END. */
	for (;;) {
		n = recv_one(fd, v, sizeof(v), o->block,
			     (int)(o->secs * 1000), &peer, &plen);
		if (n < 0) {
			fprintf(stderr, "udp_baseline: no client within %.0f s\n",
				o->secs);
			return 1;
		}
		if (n == 16 && v[0] == TAG_END)
			return 0;
		if (n == 8)
			sendto(fd, v, 8, 0, (struct sockaddr *)&peer, plen);
	}
}

static int lat_client(const struct opts *o)
{
	struct sockaddr_storage srv;
	socklen_t len;
	uint64_t *owd, v, got, end[2] = { TAG_END, 0 };
	long i, k = 0, total = o->iters + WARMUP, lost = 0, refused = 0;
	int fd, fam = addr_parse(o->addr, o->port, &srv, &len);

	if (fam < 0 || (fd = udp_socket(fam)) < 0)
		return 2;
	if (connect(fd, (struct sockaddr *)&srv, len)) {
		perror("udp_baseline: connect");
		return 2;
	}
	owd = calloc((size_t)o->iters, sizeof(*owd));
	if (!owd)
		return 2;
	for (i = 0; i < total; i++) {
		uint64_t t0 = now_ns(), t1;

		v = (uint64_t)i;
		if (send(fd, &v, 8, 0) != 8) {
			perror("udp_baseline: send");
			return 1;
		}
		/* A server not up yet (refused), or a lost datagram: ask
		 * again, for 5 s at most. */
		do {
			bool refusal;

			if (recv_one(fd, &got, 8, o->block, 200, NULL, NULL) == 8)
				continue;
			refusal = errno == ECONNREFUSED;
			if (refusal ? ++refused >= 500 : ++lost >= 25) {
				fprintf(stderr, "udp_baseline: no answer from "
					"%s\n", o->addr);
				return 1;
			}
			if (refusal)
				usleep(10000);
			t0 = now_ns();
			send(fd, &v, 8, 0);
			got = ~v;
		} while (got != v);
		t1 = now_ns();
		if (i >= WARMUP)
			owd[k++] = (t1 - t0) / 2;
	}
	for (i = 0; i < 3; i++)
		send(fd, end, sizeof(end), 0);
	qsort(owd, (size_t)k, sizeof(*owd), cmp_u64);
	printf("udp_lat family=%d iters=%ld median_us=%.3f p99_us=%.3f "
	       "mode=%s\n", fam == AF_INET ? 4 : 6, k,
	       (double)owd[k / 2] / 1e3, (double)owd[(k * 99) / 100] / 1e3,
	       o->block ? "block" : "poll");
	free(owd);
	return 0;
}

/* ----------------------------------------------------------- throughput */

static int bw_server(const struct opts *o)
{
	struct sockaddr_storage peer[RX_VLEN];
	struct mmsghdr mm[RX_VLEN];
	struct iovec iov[RX_VLEN];
	char *bufs;
	uint64_t bytes = 0, dgrams = 0, first = 0, last = 0;
	uint64_t deadline = now_ns() + (uint64_t)(o->secs * 1e9);
	int fd = server_socket(o), i, n, on = 1;
	uint64_t gro;

	if (fd < 0)
		return 2;
	gro = !o->no_offload &&
	      setsockopt(fd, IPPROTO_UDP, UDP_GRO, &on, sizeof(on)) == 0;
	bufs = malloc((size_t)RX_VLEN * RX_MSG);
	if (!bufs)
		return 2;
	for (;;) {
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < RX_VLEN; i++) {
			iov[i].iov_base = bufs + (size_t)i * RX_MSG;
			iov[i].iov_len = RX_MSG;
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &peer[i];
			mm[i].msg_hdr.msg_namelen = sizeof(peer[i]);
		}
		if (wait_in(fd, 100) <= 0) {
			if (now_ns() > deadline) {
				fprintf(stderr, "udp_baseline: no END within "
					"%.0f s\n", o->secs);
				return 1;
			}
			continue;
		}
		n = recvmmsg(fd, mm, RX_VLEN, MSG_DONTWAIT, NULL);
		if (n <= 0)
			continue;
		for (i = 0; i < n; i++) {
			const uint64_t *tag = iov[i].iov_base;
			unsigned int got = mm[i].msg_len;

			if (got == 16 && *tag == TAG_END) {
				struct result r = { TAG_RES, bytes,
						    last - first, dgrams, gro };

				/* Every END is answered: the client asks
				 * again until it has the answer. */
				sendto(fd, &r, sizeof(r), 0,
				       (struct sockaddr *)&peer[i],
				       mm[i].msg_hdr.msg_namelen);
				if (bytes) {
					free(bufs);
					return 0;
				}
				continue;
			}
			if (got < 8 || *tag != TAG_DATA)
				continue;
			last = now_ns();
			if (!first)
				first = last;
			bytes += got;
			dgrams++;
		}
	}
}

/* IP_MTU / IPV6_MTU of the connected socket's route, else Ethernet's. */
static unsigned int path_mtu(int fd, int fam)
{
	int mtu = 0;
	socklen_t l = sizeof(mtu);

	if (fam == AF_INET ? getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &l) :
	    getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &l))
		mtu = 1500;
	return mtu >= 576 ? (unsigned int)mtu : 1500;
}

/* Fills @mm / @iov to send @buf (BATCH bytes) in one call: with @gso
 * super-datagrams of whole segments, at most half the batch each (UDP
 * takes 64 segments and 64 KiB at most), else datagrams of @seg bytes.
 * Every message starts at a multiple of @seg: where the tags are. */
static int bw_batch(struct mmsghdr *mm, struct iovec *iov, char *buf,
		    unsigned int seg, bool gso)
{
	unsigned int per = gso ? BATCH / 2 / seg * seg : seg, off, k = 0;

	for (off = 0; off < BATCH; off += per, k++) {
		memset(&mm[k], 0, sizeof(mm[k]));
		iov[k].iov_base = buf + off;
		iov[k].iov_len = BATCH - off < per ? BATCH - off : per;
		mm[k].msg_hdr.msg_iov = &iov[k];
		mm[k].msg_hdr.msg_iovlen = 1;
	}
	return (int)k;
}

static int bw_client(const struct opts *o)
{
	struct sockaddr_storage srv;
	struct mmsghdr mm[BATCH / 512];
	struct iovec iov[BATCH / 512];
	struct result r = { 0 };
	uint64_t end[2] = { TAG_END, 0 }, sent = 0, t_end;
	unsigned int seg, off;
	socklen_t len;
	int fd, k, n, tries, gso_sz, fam = addr_parse(o->addr, o->port, &srv, &len);
	bool gso;
	char *buf;

	if (fam < 0 || (fd = udp_socket(fam)) < 0)
		return 2;
	if (connect(fd, (struct sockaddr *)&srv, len)) {
		perror("udp_baseline: connect");
		return 2;
	}
	/* Datagrams fill the path MTU (lo's 64 KiB: half a batch). */
	seg = path_mtu(fd, fam) - (fam == AF_INET ? 20 : 40) - 8;
	if (seg > BATCH / 2)
		seg = BATCH / 2;
	gso_sz = (int)seg;
	gso = !o->no_offload &&
	      setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &gso_sz,
			 sizeof(gso_sz)) == 0;
	buf = malloc(BATCH);
	if (!buf)
		return 2;
	memset(buf, 0xa5, BATCH);
	/* Every datagram, GSO segments included, starts with the data tag. */
	for (off = 0; off < BATCH; off += seg)
		memcpy(buf + off, &(uint64_t){ TAG_DATA }, 8);
	/* A server not listening yet refuses (ECONNREFUSED): wait for it. */
	for (tries = 0; tries < 500; tries++) {
		if (send(fd, &(uint64_t){ TAG_PROBE }, 8, 0) == 8 &&
		    wait_in(fd, 10) == 0)
			break;
		recv(fd, &r, sizeof(r), MSG_DONTWAIT);
		usleep(10000);
	}
	t_end = now_ns() + (uint64_t)(o->secs * 1e9);
	k = bw_batch(mm, iov, buf, seg, gso);
	while (now_ns() < t_end) {
		n = sendmmsg(fd, mm, (unsigned int)k, 0);
		if (n < 0 && gso && (errno == EIO || errno == EINVAL)) {
			/* The kernel took the option but not the send. */
			gso_sz = 0;
			setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &gso_sz,
				   sizeof(gso_sz));
			gso = false;
			k = bw_batch(mm, iov, buf, seg, gso);
			continue;
		}
		if (n < 0) {
			if (errno == ENOBUFS || errno == EAGAIN ||
			    errno == ECONNREFUSED || errno == EINTR)
				continue;
			perror("udp_baseline: sendmmsg");
			return 1;
		}
		for (int i = 0; i < n; i++)
			sent += iov[i].iov_len;
	}
	/* Let the last batch land before the END (it must not be taken
	 * into a GRO super-datagram of data), then ask until answered. */
	usleep(5000);
	for (tries = 0; tries < 100; tries++) {
		send(fd, end, sizeof(end), 0);
		if (wait_in(fd, 20) > 0 &&
		    recv(fd, &r, sizeof(r), 0) == sizeof(r) && r.tag == TAG_RES &&
		    r.bytes)
			break;
		r.tag = 0;
	}
	if (r.tag != TAG_RES || !r.ns) {
		fprintf(stderr, "udp_baseline: no result from %s\n", o->addr);
		return 1;
	}
	printf("udp_bw family=%d bytes_per_s=%.0f mib_per_s=%.1f seconds=%.3f "
	       "sent=%llu received=%llu loss_pct=%.2f seg=%u gso=%d gro=%d\n",
	       fam == AF_INET ? 4 : 6, (double)r.bytes * 1e9 / (double)r.ns,
	       (double)r.bytes * 1e9 / (double)r.ns / 1048576.0,
	       (double)r.ns / 1e9, (unsigned long long)sent,
	       (unsigned long long)r.bytes,
	       sent ? 100.0 * (double)(sent - (r.bytes < sent ? r.bytes : sent)) /
		      (double)sent : 0.0, seg, gso, (int)r.gro);
	free(buf);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: udp_baseline lat server|client ADDR [-p PORT] "
		"[-n ITERS] [-t SEC] [--block]\n"
		"       udp_baseline bw server|client ADDR [-p PORT] [-d SEC] "
		"[-t SEC] [--no-offload]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = { .port = DEF_PORT, .iters = 20000, .secs = 30 };
	bool client;
	int i;

	if (argc < 4)
		return usage();
	o.mode = argv[1];
	o.role = argv[2];
	o.addr = argv[3];
	client = !strcmp(o.role, "client");
	if (client && !strcmp(o.mode, "bw"))
		o.secs = 2;
	for (i = 4; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--block")) {
			o.block = true;
			continue;
		}
		if (!strcmp(a, "--no-offload")) {
			o.no_offload = true;
			continue;
		}
		if (!v)
			return usage();
		if (!strcmp(a, "-p"))
			o.port = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(a, "-n"))
			o.iters = strtol(v, NULL, 0);
		else if (!strcmp(a, "-t") || !strcmp(a, "-d"))
			o.secs = strtod(v, NULL);
		else
			return usage();
		i++;
	}
	if (!o.port || o.port > 65535 || o.iters < 1 || !(o.secs > 0))
		return usage();
	if (!strcmp(o.mode, "lat") && client)
		return lat_client(&o);
	if (!strcmp(o.mode, "lat") && !strcmp(o.role, "server"))
		return lat_server(&o);
	if (!strcmp(o.mode, "bw") && client)
		return bw_client(&o);
	if (!strcmp(o.mode, "bw") && !strcmp(o.role, "server"))
		return bw_server(&o);
	return usage();
}
