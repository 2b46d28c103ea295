/* SPDX-License-Identifier: MIT */
/*
 * How the software HCA presents itself. Defaults describe a ConnectX-7 with one
 * RoCEv2 port; a config file and SOFTMLX5_* environment variables override
 * them (documented in man/softmlx5.7). Precedence: defaults < file < env.
 */
#ifndef SMX_DEVICE_CONFIG_H
#define SMX_DEVICE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "device/netdev.h"

enum smx_link_layer {
	SMX_LINK_ETH = 1,	/* RoCEv2 */
	SMX_LINK_IB = 2,
};

/* What the crypto engine offers (crypto_mode). Wrapped: DEKs and the login
 * credential come wrapped (RFC 3394) by an import KEK, after a crypto login;
 * plaintext: DEKs come in the clear and there is no login; off: no crypto. */
enum smx_crypto_mode {
	SMX_CRYPTO_WRAPPED = 1,
	SMX_CRYPTO_PLAINTEXT = 2,
	SMX_CRYPTO_OFF = 3,
};

/* How a port bound to a network interface reaches the wire (netdev_mode;
 * docs/transport.md, "The network link"). udp: UDP sockets bound to port
 * 4791, no privilege (eng_link_udp.c); raw: whole frames through a packet
 * socket, CAP_NET_RAW (eng_link_raw.c), udp where the process may not open
 * one; auto (the default): raw where it may, else udp, silently. */
enum smx_netdev_mode {
	SMX_NETDEV_UDP = 1,
	SMX_NETDEV_RAW = 2,
	SMX_NETDEV_AUTO = 3,
};

/* Key material loaded into the device, as a crypto officer would have. */
struct smx_secret {
	uint8_t len;			/* bytes */
	uint8_t bytes[48];
};

/* Credential length (the PRM's login field holds it wrapped: +8 bytes). */
#define SMX_CRYPTO_CREDENTIAL_LEN 40
/* The default credential (ASCII, 40 bytes); the default import KEK is the
 * bytes 0x00..0x1f. Test values, documented, not secrets. */
#define SMX_CRYPTO_TEST_CREDENTIAL "softmlx5 crypto officer test credential!"

struct smx_config {
	char dev_name[64];		/* "mlx5_0" */
	uint32_t vendor_id;		/* 0x02c9 (Mellanox) */
	uint32_t part_id;		/* 0x1021 (ConnectX-7) */
	uint32_t hw_ver;
	uint16_t fw_major, fw_minor, fw_sub;
	enum smx_link_layer link_layer;
	uint8_t ipv4[4];		/* source of the RoCEv2 GID at index 0 */
	uint8_t mac[6];			/* with netdev: the interface's at load */
	uint64_t node_guid;		/* host order; derived from mac unless set */
	uint64_t sys_image_guid;
	uint16_t lid;			/* IB link layer only */
	uint16_t gid_tbl_len;		/* GID table slots (one populated) */
	uint16_t pkey_tbl_len;
	uint8_t max_mtu;		/* enum ibv_mtu: 5 = 4096 */

	/* Limits, as log2 where the PRM caps are log2. */
	uint8_t log_max_qp;
	uint8_t log_max_qp_sz;		/* WQEs per queue */
	uint8_t log_max_cq;
	uint8_t log_max_cq_sz;
	uint8_t log_max_srq;
	uint8_t log_max_srq_sz;
	uint8_t log_max_mkey;
	uint8_t log_max_pd;
	uint8_t log_max_xrcd;
	uint16_t max_sge;		/* send/recv scatter-gather entries */
	uint8_t log_max_msg;		/* max message size */
	uint64_t max_dm_size;		/* device memory (MEMIC) bytes; 0 disables */
	uint16_t num_comp_vectors;

	/* Crypto engine (man 7 softmlx5: crypto_*). */
	uint8_t crypto_mode;		/* enum smx_crypto_mode */
	struct smx_secret crypto_import_kek;	/* 16, 24 or 32 bytes */
	uint32_t crypto_import_kek_id;	/* 24-bit PRM pointer */
	struct smx_secret crypto_credential;	/* SMX_CRYPTO_CREDENTIAL_LEN */
	uint32_t crypto_credential_id;

	/* The Ethernet port's cable (man 7 softmlx5: wire): the path of a
	 * UNIX datagram socket the port binds; "" = no cable. */
	char wire[108];
	/* Frames between the processes sharing the device (eng_link_shm.c):
	 * every frame an SQ sends also enters the other processes' NIC
	 * receive, as a switch floods it. */
	bool eth_switch;
	/* Messages between this process's own QPs as packets through the
	 * loopback link (eng_link_loop.c) rather than handed over whole;
	 * implied by a fault spec or a capture. */
	bool loopback_packets;
	/* Fault injection on the transport's links (man 7 softmlx5: fault;
	 * device/transport/fault.h): the spec, checked at load; "" = none. */
	char fault[1024];
	/* The Linux network interface the port is bound to (netdev.h): its
	 * MAC, MTU, state and addresses make the port's; "" = none. */
	char netdev[SMX_NETDEV_NAME_MAX];
	/* How packets to other hosts leave through it (not used without
	 * netdev). */
	enum smx_netdev_mode netdev_mode;
};

/* Fills *cfg from defaults, then the config file, then the environment.
 * Returns 0, or -EINVAL with a logged reason for a malformed value. */
int smx_config_load(struct smx_config *cfg);

/* Which config file smx_config_load() reads (may not exist). */
const char *smx_config_path(char *buf, unsigned long len);

#endif
