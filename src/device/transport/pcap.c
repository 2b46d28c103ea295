/* SPDX-License-Identifier: MIT */
/*
 * SOFTMLX5_PCAP capture (pcap.h). File format: the classic libpcap one,
 * in host byte order (magic 0xa1b2c3d4 tells readers which).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "device/transport/pcap.h"
#include "util/log.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u	/* microsecond timestamps */
#define PCAP_LINKTYPE_ETHERNET 1u
#define PCAP_SNAPLEN 65535u
#define ETH_HDR_BYTES 14u

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t version_major, version_minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec, ts_usec;
	uint32_t incl_len, orig_len;
};

_Static_assert(sizeof(struct pcap_file_hdr) == 24, "pcap global header");
_Static_assert(sizeof(struct pcap_rec_hdr) == 16, "pcap record header");

int trn_pcap_state;
static pthread_mutex_t trn_pcap_lock = PTHREAD_MUTEX_INITIALIZER;
static int trn_pcap_fd = -1;

/* Under the file's flock: an empty file gets the global header; a file
 * with content must already be an Ethernet pcap in our byte order. */
static bool trn_pcap_header(int fd, const char *path)
{
	struct pcap_file_hdr fh;
	struct stat st;
	bool ok = false;

	if (flock(fd, LOCK_EX)) {
		smx_err("SOFTMLX5_PCAP %s: flock: %s", path, strerror(errno));
		return false;
	}
	if (fstat(fd, &st)) {
		smx_err("SOFTMLX5_PCAP %s: fstat: %s", path, strerror(errno));
	} else if (st.st_size == 0) {
		memset(&fh, 0, sizeof(fh));
		fh.magic = PCAP_MAGIC_US;
		fh.version_major = 2;
		fh.version_minor = 4;
		fh.snaplen = PCAP_SNAPLEN;
		fh.linktype = PCAP_LINKTYPE_ETHERNET;
		ok = write(fd, &fh, sizeof(fh)) == (ssize_t)sizeof(fh);
		if (!ok)
			smx_err("SOFTMLX5_PCAP %s: cannot write the header", path);
	} else if (pread(fd, &fh, sizeof(fh), 0) != (ssize_t)sizeof(fh) ||
		   fh.magic != PCAP_MAGIC_US || fh.linktype != PCAP_LINKTYPE_ETHERNET) {
		smx_err("SOFTMLX5_PCAP %s: exists and is not an Ethernet pcap file "
			"of this byte order; not capturing", path);
	} else {
		ok = true;
	}
	flock(fd, LOCK_UN);
	return ok;
}

bool trn_pcap_start(void)
{
	const char *path;
	int state, fd;

	pthread_mutex_lock(&trn_pcap_lock);
	state = __atomic_load_n(&trn_pcap_state, __ATOMIC_RELAXED);
	if (state != TRN_PCAP_UNKNOWN)
		goto out;
	state = TRN_PCAP_OFF;
	path = getenv("SOFTMLX5_PCAP");
	if (!path || !*path)
		goto set;
	/* read-write: an existing file's header is read back */
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		smx_err("SOFTMLX5_PCAP %s: %s; not capturing", path, strerror(errno));
		goto set;
	}
	if (!trn_pcap_header(fd, path)) {
		close(fd);
		goto set;
	}
	trn_pcap_fd = fd;
	state = TRN_PCAP_ON;
	smx_dbg("capturing RoCE packets into %s", path);
set:
	__atomic_store_n(&trn_pcap_state, state, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&trn_pcap_lock);
	return state == TRN_PCAP_ON;
}

void trn_pcap_record(const uint8_t *ip_pkt, uint32_t len, const uint8_t smac[6],
		     const uint8_t dmac[6])
{
	static int write_failed;
	struct pcap_rec_hdr rh;
	uint8_t eth[ETH_HDR_BYTES];
	struct timespec ts;
	struct iovec iov[3];
	uint32_t frame = ETH_HDR_BYTES + len;
	uint32_t caplen = frame < PCAP_SNAPLEN ? frame : PCAP_SNAPLEN;
	uint16_t type = len && ip_pkt[0] >> 4 == 6 ? 0x86dd : 0x0800;
	ssize_t want = (ssize_t)(sizeof(rh) + caplen);

	clock_gettime(CLOCK_REALTIME, &ts);
	rh.ts_sec = (uint32_t)ts.tv_sec;
	rh.ts_usec = (uint32_t)(ts.tv_nsec / 1000);
	rh.incl_len = caplen;
	rh.orig_len = frame;
	memcpy(eth, dmac, 6);
	memcpy(eth + 6, smac, 6);
	eth[12] = (uint8_t)(type >> 8);
	eth[13] = (uint8_t)type;
	iov[0].iov_base = &rh;
	iov[0].iov_len = sizeof(rh);
	iov[1].iov_base = eth;
	iov[1].iov_len = sizeof(eth);
	iov[2].iov_base = (void *)ip_pkt;
	iov[2].iov_len = caplen - ETH_HDR_BYTES;
	/* One system call per record: O_APPEND places it atomically. */
	if (writev(trn_pcap_fd, iov, 3) != want &&
	    !__atomic_exchange_n(&write_failed, 1, __ATOMIC_RELAXED))
		smx_err("SOFTMLX5_PCAP: a record was not written whole (%s); the "
			"capture may be damaged", strerror(errno));
}

void trn_pcap_reset(void)
{
	pthread_mutex_lock(&trn_pcap_lock);
	if (trn_pcap_fd >= 0)
		close(trn_pcap_fd);
	trn_pcap_fd = -1;
	__atomic_store_n(&trn_pcap_state, TRN_PCAP_UNKNOWN, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&trn_pcap_lock);
}

void roce_mac_of_gid(const uint8_t gid[16], uint8_t mac[6])
{
	mac[0] = 0x02;
	memcpy(mac + 1, gid + 11, 5);
}
