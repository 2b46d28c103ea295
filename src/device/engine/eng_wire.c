/* SPDX-License-Identifier: MIT */
/*
 * The Ethernet port's cable: with the `wire` knob set (man 7 softmlx5), the
 * port is a UNIX datagram socket bound at that path, one datagram per
 * frame (no preamble, no FCS). Whatever process sends frames to the socket
 * is the far end of the cable -- a switch, a traffic generator, a test
 * (`softmlx5 wire`) --, and frames leaving the port go back to the last
 * address a frame came from.
 *
 * Receive: a frame from the cable goes through NIC receive steering like
 * a looped-back one (eng_eth_rx, no sending TIS, so no self-loopback
 * block applies). Transmit: every frame an SQ sends still loops back into
 * this device's NIC receive (eng_eth.c) and, with a far end known, also
 * leaves on the cable. A far end that cannot take a frame yet (a UNIX
 * datagram socket queues only a few) gets it later, in order, from a
 * backlog of ENG_WIRE_BACKLOG frames the cable thread flushes, like a
 * port's transmit buffer; beyond that frames are dropped, counted and,
 * with SOFTMLX5_DEBUG, logged.
 *
 * The socket belongs to the process whose device bound it first; another
 * process with the same setting finds the path taken and runs without a
 * cable (logged). The path is removed when the device is freed; a socket
 * file left by a process that exited without that is taken over.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "device/config.h"
#include "device/engine/eng_loc.h"
#include "util/log.h"

/* Largest frame taken from the cable: a 9000-byte MTU, L2 header, tags. */
#define ENG_WIRE_MAX_FRAME 9238u
#define ENG_WIRE_POLL_MS 100
#define ENG_WIRE_BACKLOG 4096u

/* A backlogged frame: its length, then its bytes. */
static uint8_t *wire_frame_copy(const uint8_t *f, uint32_t len)
{
	uint8_t *c = malloc(4 + (size_t)len);

	if (c) {
		memcpy(c, &len, 4);
		memcpy(c + 4, f, len);
	}
	return c;
}

/* Sends what the far end now takes, oldest first (fw->lock held). */
static void wire_flush(struct eng *e)
{
	while (e->wire_q_n) {
		uint8_t *c = e->wire_q[e->wire_q_head];
		uint32_t len;

		memcpy(&len, c, 4);
		if (sendto(e->wire_fd, c + 4, len, MSG_DONTWAIT,
			   (const struct sockaddr *)&e->wire_peer, e->wire_peer_len) < 0) {
			if (errno == EAGAIN || errno == ENOBUFS)
				return;
			e->wire_tx_dropped++;
			smx_dbg("engine: wire: %u-byte frame not sent to the far end: %s",
				len, strerror(errno));
		} else {
			e->wire_tx++;
		}
		free(c);
		e->wire_q_head = (e->wire_q_head + 1) % ENG_WIRE_BACKLOG;
		__atomic_store_n(&e->wire_q_n, e->wire_q_n - 1, __ATOMIC_RELAXED);
	}
}

/* Frames taken from the cable per hold of the firmware lock: one batch,
 * whose receive CQEs may be compressed (eng_comp.c). */
#define ENG_WIRE_BATCH 32

static void *eng_wire_thread(void *arg)
{
	struct eng *e = arg;
	uint8_t *buf = e->wire_buf;

	while (!__atomic_load_n(&e->wire_stop, __ATOMIC_ACQUIRE)) {
		struct pollfd pfd = { .fd = e->wire_fd, .events = POLLIN };
		unsigned int k;

		/* with a backlog, the far end is retried every millisecond */
		if (poll(&pfd, 1, __atomic_load_n(&e->wire_q_n, __ATOMIC_RELAXED) ?
				  1 : ENG_WIRE_POLL_MS) <= 0) {
			if (__atomic_load_n(&e->wire_q_n, __ATOMIC_RELAXED)) {
				fw_lock(e->fw);
				wire_flush(e);
				fw_unlock(e->fw);
			}
			continue;
		}
		fw_lock(e->fw);
		eng_comp_batch_begin(e);
		for (k = 0; k < ENG_WIRE_BATCH; k++) {
			struct sockaddr_un from;
			socklen_t flen = sizeof(from);
			ssize_t n = recvfrom(e->wire_fd, buf, ENG_WIRE_MAX_FRAME + 1,
					     MSG_DONTWAIT, (struct sockaddr *)&from, &flen);

			if (n < 0)
				break;
			if (flen > offsetof(struct sockaddr_un, sun_path)) {
				e->wire_peer = from;
				e->wire_peer_len = flen;
			}
			if ((size_t)n > ENG_WIRE_MAX_FRAME) {
				e->wire_rx_dropped++;
				smx_dbg("engine: wire: a frame over %u bytes, dropped",
					ENG_WIRE_MAX_FRAME);
			} else {
				e->wire_rx++;
				eng_eth_rx(e, buf, (uint32_t)n, NULL);
			}
		}
		eng_comp_batch_end(e);
		wire_flush(e);
		fw_unlock(e->fw);
		__atomic_store_n(&e->traffic_ns, eng_now(), __ATOMIC_RELAXED);
	}
	return NULL;
}

/* A socket file nobody answers at: left by a process that died. */
static bool eng_wire_stale(const struct sockaddr_un *a)
{
	int probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool stale;

	if (probe < 0)
		return false;
	stale = connect(probe, (const struct sockaddr *)a, sizeof(*a)) &&
		errno == ECONNREFUSED;
	close(probe);
	return stale;
}

void eng_wire_start(struct eng *e)
{
	const char *path = fw_config(e->fw)->wire;
	struct sockaddr_un a;
	struct stat st;
	int fd, rc;

	e->wire_fd = -1;
	if (!path[0])
		return;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	/* A socket left by a process that died is taken over; anything
	 * else at the path is not ours to remove. */
	if (!lstat(path, &st) && !S_ISSOCK(st.st_mode)) {
		smx_err("wire: %s exists and is not a socket; the port has no "
			"cable", path);
		return;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		smx_err("wire: socket: %s; the port has no cable", strerror(errno));
		return;
	}
	rc = bind(fd, (struct sockaddr *)&a, sizeof(a));
	if (rc && errno == EADDRINUSE && eng_wire_stale(&a)) {
		unlink(path);
		rc = bind(fd, (struct sockaddr *)&a, sizeof(a));
	}
	if (rc) {
		if (errno == EADDRINUSE)
			smx_dbg("wire: %s is held by another process; this one "
				"runs without a cable", path);
		else
			smx_err("wire: bind %s: %s; the port has no cable", path,
				strerror(errno));
		close(fd);
		return;
	}
	e->wire_buf = malloc(ENG_WIRE_MAX_FRAME + 1);
	e->wire_q = calloc(ENG_WIRE_BACKLOG, sizeof(*e->wire_q));
	if (!e->wire_buf || !e->wire_q)
		goto fail;
	e->wire_fd = fd;
	if (pthread_create(&e->wire_thr, NULL, eng_wire_thread, e)) {
		smx_err("wire: cannot start the cable thread; the port has no cable");
		goto fail;
	}
	e->wire_started = true;
	smx_dbg("wire: port cabled at %s", path);
	return;
fail:
	close(fd);
	unlink(path);
	free(e->wire_buf);
	free(e->wire_q);
	e->wire_buf = NULL;
	e->wire_q = NULL;
	e->wire_fd = -1;
}

void eng_wire_stop(struct eng *e)
{
	if (!e->wire_started)
		return;
	__atomic_store_n(&e->wire_stop, true, __ATOMIC_RELEASE);
	pthread_join(e->wire_thr, NULL);
	close(e->wire_fd);
	unlink(fw_config(e->fw)->wire);
	while (e->wire_q_n) {
		free(e->wire_q[e->wire_q_head]);
		e->wire_q_head = (e->wire_q_head + 1) % ENG_WIRE_BACKLOG;
		e->wire_q_n--;
	}
	free(e->wire_q);
	e->wire_q = NULL;
	free(e->wire_buf);
	e->wire_buf = NULL;
	e->wire_fd = -1;
	e->wire_started = false;
}

void eng_wire_tx(struct eng *e, const uint8_t *frame, uint32_t len)
{
	uint8_t *c;

	if (!e->wire_started || !e->wire_peer_len)
		return;
	if (!e->wire_q_n) {
		if (sendto(e->wire_fd, frame, len, MSG_DONTWAIT,
			   (const struct sockaddr *)&e->wire_peer, e->wire_peer_len) >= 0) {
			e->wire_tx++;
			return;
		}
		if (errno != EAGAIN && errno != ENOBUFS) {
			e->wire_tx_dropped++;
			smx_dbg("engine: wire: %u-byte frame not sent to the far end: %s",
				len, strerror(errno));
			return;
		}
	}
	/* the far end is busy: after the frames already waiting */
	c = e->wire_q_n < ENG_WIRE_BACKLOG ? wire_frame_copy(frame, len) : NULL;
	if (!c) {
		e->wire_tx_dropped++;
		smx_dbg("engine: wire: the far end takes nothing and %u frames wait; "
			"%u-byte frame dropped", e->wire_q_n, len);
		return;
	}
	e->wire_q[(e->wire_q_head + e->wire_q_n) % ENG_WIRE_BACKLOG] = c;
	__atomic_store_n(&e->wire_q_n, e->wire_q_n + 1, __ATOMIC_RELAXED);
}
