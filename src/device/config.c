/* SPDX-License-Identifier: MIT */
/*
 * Device presentation: defaults < config file < SOFTMLX5_* environment.
 *
 * Every knob has one entry in knobs[] below; the file key is the entry's name
 * and the environment variable is "SOFTMLX5_" + the name in upper case. The
 * knobs are documented in man/softmlx5.7 and docs/configuration.md -- keep the
 * three in step.
 */
#include "device/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/transport/fault.h"
#include "util/log.h"
#include "util/parse.h"

#define SMX_LINE_MAX 1024

/* Where a value came from, for error messages. */
struct smx_src {
	const char *file;	/* NULL: environment */
	unsigned int line;
	const char *env;	/* environment variable name */
};

/* What load() remembers while it applies values. */
struct smx_load_state {
	bool node_guid_set;
	bool sys_image_guid_set;
	bool gid_tbl_len_set;
	bool pkey_tbl_len_set;
	/* Where netdev was set: finish() names it when the interface is not
	 * there (the file's path outlives load_file() here). */
	struct smx_src netdev_src;
	char netdev_file[PATH_MAX];
	char netdev_env[32];
};

enum knob_kind {
	K_NAME,		/* dev_name */
	K_U32,		/* plain integer, range checked */
	K_LINK,		/* eth | ib */
	K_IPV4,
	K_MAC,
	K_GUID,
	K_MTU,		/* bytes -> enum ibv_mtu */
	K_FW,		/* major.minor.sub */
	K_SIZE,		/* bytes with optional K/M/G suffix */
	K_CRYPTO,	/* wrapped | plaintext | off */
	K_SECRET,	/* hex bytes, length min..max in steps of 8 */
	K_PATH,		/* a UNIX socket path (sun_path), or "none" */
	K_BOOL,		/* on | off (also 1 / 0, yes / no, true / false) */
	K_FAULT,	/* a fault spec (fault.h), or "none" */
	K_NETDEV,	/* a network interface name (netdev.h), or "none" */
	K_NETMODE,	/* udp | raw */
};

struct knob {
	const char *name;
	enum knob_kind kind;
	size_t off;		/* offset of the field in struct smx_config */
	unsigned int width;	/* field size in bytes for K_U32 / K_SIZE / K_PATH */
	uint64_t min, max;
};

#define FIELD(f) offsetof(struct smx_config, f), sizeof(((struct smx_config *)0)->f)

static const struct knob knobs[] = {
	{ "dev_name",        K_NAME, FIELD(dev_name),       0, 0 },
	{ "part_id",         K_U32,  FIELD(part_id),        1, 0xffff },
	{ "fw_version",      K_FW,   FIELD(fw_major),       0, 0 },
	{ "link_layer",      K_LINK, FIELD(link_layer),     0, 0 },
	{ "ipv4",            K_IPV4, FIELD(ipv4),           0, 0 },
	{ "mac",             K_MAC,  FIELD(mac),            0, 0 },
	{ "node_guid",       K_GUID, FIELD(node_guid),      0, 0 },
	{ "sys_image_guid",  K_GUID, FIELD(sys_image_guid), 0, 0 },
	{ "lid",             K_U32,  FIELD(lid),            1, 0xbfff },
	{ "gid_tbl_len",     K_U32,  FIELD(gid_tbl_len),    1, 256 },
	{ "pkey_tbl_len",    K_U32,  FIELD(pkey_tbl_len),   1, 128 },
	{ "max_mtu",         K_MTU,  FIELD(max_mtu),        0, 0 },
	{ "log_max_qp",      K_U32,  FIELD(log_max_qp),     1, 24 },
	{ "log_max_qp_sz",   K_U32,  FIELD(log_max_qp_sz),  1, 15 },
	{ "log_max_cq",      K_U32,  FIELD(log_max_cq),     1, 24 },
	{ "log_max_cq_sz",   K_U32,  FIELD(log_max_cq_sz),  1, 22 },
	{ "log_max_srq",     K_U32,  FIELD(log_max_srq),    1, 23 },
	{ "log_max_srq_sz",  K_U32,  FIELD(log_max_srq_sz), 1, 15 },
	{ "log_max_mkey",    K_U32,  FIELD(log_max_mkey),   1, 24 },
	{ "log_max_pd",      K_U32,  FIELD(log_max_pd),     1, 24 },
	{ "log_max_xrcd",    K_U32,  FIELD(log_max_xrcd),   1, 24 },
	{ "max_sge",         K_U32,  FIELD(max_sge),        1, 30 },
	{ "log_max_msg",     K_U32,  FIELD(log_max_msg),    13, 31 },
	{ "num_comp_vectors", K_U32, FIELD(num_comp_vectors), 1, 64 },
	{ "max_dm_size",     K_SIZE, FIELD(max_dm_size),    0, 64ull << 20 },
	{ "crypto_mode",     K_CRYPTO, FIELD(crypto_mode),  0, 0 },
	{ "crypto_import_kek", K_SECRET, FIELD(crypto_import_kek), 16, 32 },
	{ "crypto_import_kek_id", K_U32, FIELD(crypto_import_kek_id), 0, 0xffffff },
	{ "crypto_credential", K_SECRET, FIELD(crypto_credential),
	  SMX_CRYPTO_CREDENTIAL_LEN, SMX_CRYPTO_CREDENTIAL_LEN },
	{ "crypto_credential_id", K_U32, FIELD(crypto_credential_id), 0, 0xffffff },
	{ "wire",            K_PATH, FIELD(wire),           0, 0 },
	{ "eth_switch",      K_BOOL, FIELD(eth_switch),     0, 0 },
	{ "loopback_packets", K_BOOL, FIELD(loopback_packets), 0, 0 },
	{ "fault",           K_FAULT, FIELD(fault),         0, 0 },
	{ "netdev",          K_NETDEV, FIELD(netdev),       0, 0 },
	{ "netdev_mode",     K_NETMODE, FIELD(netdev_mode), 0, 0 },
};

/* ------------------------------------------------------------------ errors */

/* Copies @val for display: non-printable bytes become \xNN, long values are
 * cut, so an error stays on one line whatever the input holds. */
static const char *printable(const char *val, char *buf, size_t len)
{
	size_t o = 0;

	for (; *val && o + 8 < len; val++) {
		unsigned char c = (unsigned char)*val;

		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	if (*val)
		snprintf(buf + o, len - o, "...");
	else
		buf[o] = '\0';
	return buf;
}

static void report(const struct smx_src *src, const char *key, const char *val,
		   const char *why)
{
	char shown[160];

	val = printable(val, shown, sizeof(shown));
	if (src->file)
		smx_err("config: %s:%u: %s = '%s': %s", src->file, src->line,
			key, val, why);
	else
		smx_err("config: %s='%s': %s", src->env, val, why);
}

/* ----------------------------------------------------------------- parsing */

/* xx:xx:xx:xx:xx:xx or xx-xx-xx-xx-xx-xx, exactly two hex digits per byte. */
static bool parse_mac(const char *s, uint8_t mac[6])
{
	char sep;
	int i;

	if (strlen(s) != 17)
		return false;
	sep = s[2];
	if (sep != ':' && sep != '-')
		return false;
	for (i = 0; i < 6; i++) {
		const char *p = s + i * 3;
		int hi = smx_hex_digit((unsigned char)p[0]);
		int lo = smx_hex_digit((unsigned char)p[1]);

		if (hi < 0 || lo < 0)
			return false;
		if (i < 5 && p[2] != sep)
			return false;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

/*
 * A GUID as ibv_devinfo prints it (xxxx:xxxx:xxxx:xxxx, 1-4 hex digits per
 * group) or as one 0x-prefixed 64-bit hex number.
 */
static bool parse_guid(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int group;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (strlen(s) > 18)
			return false;
		return smx_parse_u64(s, out);
	}
	for (group = 0; group < 4; group++) {
		unsigned int digits = 0, g = 0;

		while (digits < 5 && smx_hex_digit((unsigned char)*s) >= 0) {
			g = g << 4 | (unsigned int)smx_hex_digit((unsigned char)*s);
			s++;
			digits++;
		}
		if (digits == 0 || digits > 4)
			return false;
		v = v << 16 | g;
		if (group < 3 && *s++ != ':')
			return false;
	}
	if (*s)
		return false;
	*out = v;
	return true;
}

/* "1024", "128K", "128KiB", "1M", "1MiB" (binary multiples). */
static bool parse_size(const char *s, uint64_t *out)
{
	char num[32];
	size_t n;
	const char *suf;
	uint64_t v, mult = 1;

	/* Hex numbers take no suffix: "0x1K" would be ambiguous. */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return smx_parse_u64(s, out);
	n = strspn(s, "0123456789");
	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, s, n);
	num[n] = '\0';
	if (!smx_parse_u64(num, &v))
		return false;
	suf = s + n;
	if (*suf) {
		switch (toupper((unsigned char)*suf)) {
		case 'K': mult = 1ull << 10; break;
		case 'M': mult = 1ull << 20; break;
		case 'G': mult = 1ull << 30; break;
		default: return false;
		}
		suf++;
		if (strcmp(suf, "") != 0 && strcmp(suf, "iB") != 0 &&
		    strcmp(suf, "B") != 0)
			return false;
	}
	if (v > UINT64_MAX / mult)
		return false;
	*out = v * mult;
	return true;
}

/* Hex digits, optionally 0x-prefixed, two per byte; ':' may separate bytes. */
static bool parse_hex_bytes(const char *s, uint8_t *out, size_t cap,
			    size_t *len)
{
	size_t n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (*s) {
		int hi = smx_hex_digit((unsigned char)s[0]), lo;

		if (hi < 0)
			return false;
		lo = smx_hex_digit((unsigned char)s[1]);
		if (lo < 0 || n == cap)
			return false;
		out[n++] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (*s == ':' && s[1])
			s++;
	}
	*len = n;
	return n > 0;
}

static bool valid_dev_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n >= sizeof(((struct smx_config *)0)->dev_name))
		return false;
	if (!isalnum((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '_' && c != '-' && c != '.')
			return false;
	}
	return true;
}

static void store_uint(void *field, unsigned int width, uint64_t v)
{
	switch (width) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(field, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(field, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(field, &x, 4); break; }
	default: memcpy(field, &v, 8); break;
	}
}

/* Applies one key/value pair. Returns 0, -ENOENT (unknown key), -EINVAL. */
static int apply(struct smx_config *cfg, struct smx_load_state *st,
		 const struct knob *k, const char *val,
		 const struct smx_src *src)
{
	char *field = (char *)cfg + k->off;
	uint64_t v;

	if (!*val) {
		report(src, k->name, val, "empty value");
		return -EINVAL;
	}

	switch (k->kind) {
	case K_NAME:
		if (!valid_dev_name(val)) {
			report(src, k->name, val,
			       "not a device name (1-63 characters: letters, "
			       "digits, '_', '-', '.'; starting with a letter "
			       "or digit)");
			return -EINVAL;
		}
		snprintf(cfg->dev_name, sizeof(cfg->dev_name), "%s", val);
		return 0;

	case K_U32:
		if (!smx_parse_u64(val, &v)) {
			report(src, k->name, val,
			       "not a number (decimal, or hex with 0x)");
			return -EINVAL;
		}
		if (v < k->min || v > k->max) {
			char why[96];

			snprintf(why, sizeof(why),
				 "out of range (allowed %llu..%llu)",
				 (unsigned long long)k->min,
				 (unsigned long long)k->max);
			report(src, k->name, val, why);
			return -EINVAL;
		}
		store_uint(field, k->width, v);
		if (strcmp(k->name, "gid_tbl_len") == 0)
			st->gid_tbl_len_set = true;
		if (strcmp(k->name, "pkey_tbl_len") == 0)
			st->pkey_tbl_len_set = true;
		return 0;

	case K_SIZE:
		if (!parse_size(val, &v)) {
			report(src, k->name, val,
			       "not a size (bytes, optionally with a K, M or "
			       "G suffix)");
			return -EINVAL;
		}
		if (v > k->max || (v % 4096) != 0) {
			report(src, k->name, val,
			       "must be a multiple of 4096 bytes, at most 64M "
			       "(0 disables device memory)");
			return -EINVAL;
		}
		store_uint(field, k->width, v);
		return 0;

	case K_CRYPTO:
		if (!strcasecmp(val, "wrapped"))
			cfg->crypto_mode = SMX_CRYPTO_WRAPPED;
		else if (!strcasecmp(val, "plaintext"))
			cfg->crypto_mode = SMX_CRYPTO_PLAINTEXT;
		else if (!strcasecmp(val, "off"))
			cfg->crypto_mode = SMX_CRYPTO_OFF;
		else {
			report(src, k->name, val,
			       "not a crypto mode (wrapped, plaintext or off)");
			return -EINVAL;
		}
		return 0;

	case K_BOOL: {
		bool *dst = (bool *)((char *)cfg + k->off);

		if (!strcasecmp(val, "on") || !strcasecmp(val, "1") ||
		    !strcasecmp(val, "yes") || !strcasecmp(val, "true"))
			*dst = true;
		else if (!strcasecmp(val, "off") || !strcasecmp(val, "0") ||
			 !strcasecmp(val, "no") || !strcasecmp(val, "false"))
			*dst = false;
		else {
			report(src, k->name, val, "not on or off");
			return -EINVAL;
		}
		return 0;
	}

	case K_PATH: {
		/* the field is a sun_path: 107 characters and a NUL */
		char *dst = (char *)cfg + k->off;

		if (!strcmp(val, "none")) {
			dst[0] = '\0';
			return 0;
		}
		if (strlen(val) >= k->width) {
			report(src, k->name, val, "a UNIX socket path is at most "
			       "107 characters");
			return -EINVAL;
		}
		snprintf(dst, k->width, "%s", val);
		return 0;
	}

	case K_FAULT: {
		/* Checked here, so that a bad spec stops the device from
		 * opening with one line naming the token; the links parse
		 * it again, each for itself (trn_fault_create()). */
		char *dst = (char *)cfg + k->off, why[256];
		struct trn_fault *f;

		if (strlen(val) >= k->width) {
			report(src, k->name, val, "a fault spec is at most "
			       "1023 characters");
			return -EINVAL;
		}
		f = trn_fault_create(val, 0, why, sizeof(why));
		if (!f && why[0]) {
			report(src, k->name, val, why);
			return -EINVAL;
		}
		trn_fault_destroy(f);
		/* "none", "off": nothing configured */
		snprintf(dst, k->width, "%s", f ? val : "");
		return 0;
	}

	case K_NETDEV:
		/* Only the name here; finish() looks for the interface, once
		 * every source had its say. */
		if (!strcmp(val, "none")) {
			cfg->netdev[0] = '\0';
			return 0;
		}
		if (!smx_netdev_name_ok(val)) {
			report(src, k->name, val,
			       "not a network interface name (1-15 characters, "
			       "no '/', ':' or blanks), or none");
			return -EINVAL;
		}
		snprintf(cfg->netdev, sizeof(cfg->netdev), "%s", val);
		st->netdev_src = *src;
		if (src->file) {
			snprintf(st->netdev_file, sizeof(st->netdev_file), "%s",
				 src->file);
			st->netdev_src.file = st->netdev_file;
		} else {
			snprintf(st->netdev_env, sizeof(st->netdev_env), "%s",
				 src->env);
			st->netdev_src.env = st->netdev_env;
		}
		return 0;

	case K_NETMODE:
		if (!strcasecmp(val, "udp"))
			cfg->netdev_mode = SMX_NETDEV_UDP;
		else if (!strcasecmp(val, "raw"))
			cfg->netdev_mode = SMX_NETDEV_RAW;
		else if (!strcasecmp(val, "auto"))
			cfg->netdev_mode = SMX_NETDEV_AUTO;
		else {
			report(src, k->name, val,
			       "not a netdev mode (auto, raw or udp)");
			return -EINVAL;
		}
		return 0;

	case K_SECRET: {
		struct smx_secret sec = { 0 };
		size_t n = 0;
		char why[128];

		/* Never echo key material into the log: say what is wrong
		 * with it, not what it is. */
		if (!parse_hex_bytes(val, sec.bytes, sizeof(sec.bytes), &n) ||
		    n < k->min || n > k->max || n % 8) {
			if (k->min == k->max)
				snprintf(why, sizeof(why),
					 "must be exactly %llu bytes in hex "
					 "(%llu digits)",
					 (unsigned long long)k->min,
					 (unsigned long long)k->min * 2);
			else
				snprintf(why, sizeof(why),
					 "must be %llu to %llu bytes in hex, a "
					 "multiple of 8 (an AES key: 16, 24 or "
					 "32)", (unsigned long long)k->min,
					 (unsigned long long)k->max);
			report(src, k->name, "<hidden>", why);
			return -EINVAL;
		}
		sec.len = (uint8_t)n;
		memcpy(field, &sec, sizeof(sec));
		return 0;
	}

	case K_LINK:
		if (!strcasecmp(val, "eth") || !strcasecmp(val, "ethernet") ||
		    !strcasecmp(val, "roce")) {
			cfg->link_layer = SMX_LINK_ETH;
		} else if (!strcasecmp(val, "ib") ||
			   !strcasecmp(val, "infiniband")) {
			cfg->link_layer = SMX_LINK_IB;
		} else {
			report(src, k->name, val,
			       "not a link layer (eth or ib)");
			return -EINVAL;
		}
		return 0;

	case K_IPV4: {
		struct in_addr a;
		uint8_t b[4];

		if (inet_pton(AF_INET, val, &a) != 1) {
			report(src, k->name, val,
			       "not an IPv4 address (dotted decimal a.b.c.d)");
			return -EINVAL;
		}
		memcpy(b, &a, 4);
		if ((b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0) ||
		    (b[0] & 0xf0) == 0xe0 || b[0] >= 0xf0) {
			report(src, k->name, val,
			       "not a unicast address (0.0.0.0, multicast and "
			       "240.0.0.0/4 are not allowed)");
			return -EINVAL;
		}
		memcpy(cfg->ipv4, b, 4);
		return 0;
	}

	case K_MAC: {
		uint8_t m[6];
		static const uint8_t zero[6];

		if (!parse_mac(val, m)) {
			report(src, k->name, val,
			       "not a MAC address (xx:xx:xx:xx:xx:xx)");
			return -EINVAL;
		}
		if (m[0] & 1) {
			report(src, k->name, val,
			       "multicast MAC address (low bit of the first "
			       "byte set)");
			return -EINVAL;
		}
		if (!memcmp(m, zero, 6)) {
			report(src, k->name, val, "all-zero MAC address");
			return -EINVAL;
		}
		memcpy(cfg->mac, m, 6);
		return 0;
	}

	case K_GUID:
		if (!parse_guid(val, &v)) {
			report(src, k->name, val,
			       "not a GUID (xxxx:xxxx:xxxx:xxxx or 0x followed "
			       "by up to 16 hex digits)");
			return -EINVAL;
		}
		if (v == 0) {
			report(src, k->name, val, "GUID must not be zero");
			return -EINVAL;
		}
		memcpy(field, &v, 8);
		if (field == (char *)&cfg->node_guid)
			st->node_guid_set = true;
		else
			st->sys_image_guid_set = true;
		return 0;

	case K_MTU:
		if (!smx_parse_u64(val, &v)) {
			report(src, k->name, val,
			       "not an MTU (256, 512, 1024, 2048 or 4096)");
			return -EINVAL;
		}
		switch (v) {
		case 256: cfg->max_mtu = 1; break;
		case 512: cfg->max_mtu = 2; break;
		case 1024: cfg->max_mtu = 3; break;
		case 2048: cfg->max_mtu = 4; break;
		case 4096: cfg->max_mtu = 5; break;
		default:
			report(src, k->name, val,
			       "not an MTU (256, 512, 1024, 2048 or 4096)");
			return -EINVAL;
		}
		return 0;

	case K_FW: {
		char buf[64], *parts[3], *save = NULL, *tok;
		uint64_t n[3];
		int i = 0;

		if (strlen(val) >= sizeof(buf) || strstr(val, "..") ||
		    val[0] == '.' || val[strlen(val) - 1] == '.')
			goto bad_fw;
		snprintf(buf, sizeof(buf), "%s", val);
		for (tok = strtok_r(buf, ".", &save); tok;
		     tok = strtok_r(NULL, ".", &save)) {
			if (i == 3)
				goto bad_fw;
			parts[i++] = tok;
		}
		if (i != 3)
			goto bad_fw;
		for (i = 0; i < 3; i++) {
			if (strspn(parts[i], "0123456789") != strlen(parts[i]) ||
			    !smx_parse_u64(parts[i], &n[i]) || n[i] > 0xffff)
				goto bad_fw;
		}
		cfg->fw_major = (uint16_t)n[0];
		cfg->fw_minor = (uint16_t)n[1];
		cfg->fw_sub = (uint16_t)n[2];
		return 0;
bad_fw:
		report(src, k->name, val,
		       "not a firmware version (major.minor.sub, each "
		       "0..65535)");
		return -EINVAL;
	}
	}
	return -EINVAL;
}

static const struct knob *find_knob(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(knobs[i].name, name))
			return &knobs[i];
	return NULL;
}

/* Trims leading and trailing blanks in place. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
			 e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* ----------------------------------------------------------------- sources */

static void set_defaults(struct smx_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->dev_name, sizeof(cfg->dev_name), "mlx5_0");
	cfg->vendor_id = 0x02c9;
	cfg->part_id = 0x1021;
	cfg->hw_ver = 0;
	cfg->fw_major = 28;
	cfg->fw_minor = 99;
	cfg->fw_sub = 1;
	cfg->link_layer = SMX_LINK_ETH;
	cfg->ipv4[0] = 192; cfg->ipv4[1] = 0; cfg->ipv4[2] = 2; cfg->ipv4[3] = 1;
	cfg->mac[0] = 0x02; cfg->mac[1] = 0x53; cfg->mac[2] = 0x4d;
	cfg->mac[3] = 0x58; cfg->mac[4] = 0x35; cfg->mac[5] = 0x00;
	cfg->lid = 1;
	cfg->gid_tbl_len = 256;
	cfg->pkey_tbl_len = 1;
	cfg->max_mtu = 5;		/* IBV_MTU_4096 */
	cfg->log_max_qp = 17;
	cfg->log_max_qp_sz = 15;
	cfg->log_max_cq = 16;
	cfg->log_max_cq_sz = 22;
	cfg->log_max_srq = 15;
	cfg->log_max_srq_sz = 15;
	cfg->log_max_mkey = 20;
	cfg->log_max_pd = 17;
	cfg->log_max_xrcd = 16;
	cfg->max_sge = 30;
	cfg->log_max_msg = 30;
	cfg->max_dm_size = 128 * 1024;
	cfg->num_comp_vectors = 2;
	/* Crypto: wrapped import, like a commissioned crypto-enabled part,
	 * with published test values (docs/configuration.md): not secrets. */
	cfg->crypto_mode = SMX_CRYPTO_WRAPPED;
	cfg->netdev_mode = SMX_NETDEV_AUTO;	/* raw where we may, else udp */
	cfg->crypto_import_kek.len = 32;
	for (unsigned int i = 0; i < 32; i++)
		cfg->crypto_import_kek.bytes[i] = (uint8_t)i;
	cfg->crypto_credential.len = SMX_CRYPTO_CREDENTIAL_LEN;
	memcpy(cfg->crypto_credential.bytes, SMX_CRYPTO_TEST_CREDENTIAL,
	       SMX_CRYPTO_CREDENTIAL_LEN);
	/* node_guid / sys_image_guid are derived in finish(). */
}

const char *smx_config_path(char *buf, unsigned long len)
{
	const char *p = getenv("SOFTMLX5_CONFIG");
	int n;

	if (!buf || len == 0)
		return NULL;
	if (p && *p) {
		n = snprintf(buf, len, "%s", p);
	} else if ((p = getenv("XDG_CONFIG_HOME")) && p[0] == '/') {
		/* The XDG spec says relative values are to be ignored. */
		n = snprintf(buf, len, "%s/softmlx5/softmlx5.conf", p);
	} else {
		const char *home = getenv("HOME");
		struct passwd pw, *res = NULL;
		char pwbuf[1024];

		if (!home || home[0] != '/') {
			if (getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf),
				       &res) != 0 || !res || !pw.pw_dir ||
			    pw.pw_dir[0] != '/')
				return NULL;
			home = pw.pw_dir;
		}
		n = snprintf(buf, len, "%s/.config/softmlx5/softmlx5.conf",
			     home);
	}
	if (n < 0 || (unsigned long)n >= len)
		return NULL;
	return buf;
}

static int load_file(struct smx_config *cfg, struct smx_load_state *st)
{
	char path[PATH_MAX];
	const char *explicit_path = getenv("SOFTMLX5_CONFIG");
	bool explicit = explicit_path && *explicit_path;
	struct smx_src src = { 0 };
	struct stat sb;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int ret = 0;

	if (!smx_config_path(path, sizeof(path))) {
		if (explicit) {
			smx_err("config: SOFTMLX5_CONFIG is too long");
			return -EINVAL;
		}
		return 0;	/* no home directory: defaults + environment */
	}

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && !explicit)
			return 0;
		smx_err("config: cannot open %s%s: %s", path,
			explicit ? " (from SOFTMLX5_CONFIG)" : "",
			strerror(errno));
		return -EINVAL;
	}
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		smx_err("config: %s is a directory, not a config file", path);
		fclose(f);
		return -EINVAL;
	}

	src.file = path;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *s, *eq, *key, *val, *hash;
		const struct knob *k;

		src.line++;
		if ((size_t)len != strlen(line)) {
			smx_err("config: %s:%u: line contains a NUL byte",
				path, src.line);
			ret = -EINVAL;
			break;
		}
		if (len >= SMX_LINE_MAX) {
			smx_err("config: %s:%u: line longer than %d bytes",
				path, src.line, SMX_LINE_MAX - 1);
			ret = -EINVAL;
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			char shown[160];

			smx_err("config: %s:%u: expected 'key = value', got '%s'",
				path, src.line, printable(s, shown, sizeof(shown)));
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		k = find_knob(key);
		if (!k) {
			char shown[160];

			smx_err("config: %s:%u: unknown key '%s' (see man 7 "
				"softmlx5)", path, src.line,
				printable(key, shown, sizeof(shown)));
			ret = -EINVAL;
			break;
		}
		ret = apply(cfg, st, k, val, &src);
		if (ret)
			break;
	}
	if (!ret && ferror(f)) {
		smx_err("config: error reading %s: %s", path, strerror(errno));
		ret = -EINVAL;
	}
	free(line);
	fclose(f);
	return ret;
}

static int load_env(struct smx_config *cfg, struct smx_load_state *st)
{
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		char name[64], val[SMX_LINE_MAX];
		struct smx_src src = { .env = name };
		const char *raw;
		size_t j;
		int ret;

		snprintf(name, sizeof(name), "SOFTMLX5_%s", knobs[i].name);
		for (j = 0; name[j]; j++)
			name[j] = (char)toupper((unsigned char)name[j]);
		raw = getenv(name);
		if (!raw)
			continue;
		if (strlen(raw) >= sizeof(val)) {
			smx_err("config: %s is longer than %zu bytes", name,
				sizeof(val) - 1);
			return -EINVAL;
		}
		snprintf(val, sizeof(val), "%s", raw);
		ret = apply(cfg, st, &knobs[i], trim(val), &src);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A port bound to an interface: it must be there, an Ethernet one; its MAC
 * is the port's (and, EUI-64 style, the GUIDs' unless set). The device
 * follows the interface from then on (fw_port_sync()).
 */
static int finish_netdev(struct smx_config *cfg, const struct smx_load_state *st)
{
	struct smx_netdev nd;
	int ret;

	if (!cfg->netdev[0])
		return 0;
	if (cfg->link_layer != SMX_LINK_ETH) {
		report(&st->netdev_src, "netdev", cfg->netdev,
		       "only an Ethernet port (link_layer = eth) is bound to an "
		       "interface");
		return -EINVAL;
	}
	ret = smx_netdev_read(cfg->netdev, 0, &nd);
	if (ret == -ENODEV)
		report(&st->netdev_src, "netdev", cfg->netdev,
		       "no such network interface (in this network namespace)");
	else if (ret == -EPROTOTYPE)
		report(&st->netdev_src, "netdev", cfg->netdev,
		       "not an Ethernet interface (RoCE needs one)");
	else if (ret)
		report(&st->netdev_src, "netdev", cfg->netdev, strerror(-ret));
	else
		memcpy(cfg->mac, nd.mac, 6);
	return ret ? -EINVAL : 0;
}

/* Derived values and checks that involve more than one knob. */
static int finish(struct smx_config *cfg, const struct smx_load_state *st)
{
	if (finish_netdev(cfg, st))
		return -EINVAL;
	if (!st->node_guid_set) {
		/* EUI-64 from the MAC: insert ff:fe in the middle. */
		const uint8_t *m = cfg->mac;

		cfg->node_guid = (uint64_t)m[0] << 56 | (uint64_t)m[1] << 48 |
				 (uint64_t)m[2] << 40 | 0xffull << 32 |
				 0xfeull << 24 | (uint64_t)m[3] << 16 |
				 (uint64_t)m[4] << 8 | m[5];
	}
	if (!st->sys_image_guid_set)
		cfg->sys_image_guid = cfg->node_guid;

	if (cfg->link_layer == SMX_LINK_IB) {
		/* What a ConnectX port in InfiniBand mode reports. */
		if (!st->gid_tbl_len_set)
			cfg->gid_tbl_len = 8;
		if (!st->pkey_tbl_len_set)
			cfg->pkey_tbl_len = 128;
	} else if (cfg->pkey_tbl_len != 1) {
		smx_err("config: pkey_tbl_len = %u: an Ethernet (RoCE) port "
			"has exactly one P_Key; use link_layer = ib for more",
			cfg->pkey_tbl_len);
		return -EINVAL;
	}
	return 0;
}

int smx_config_load(struct smx_config *cfg)
{
	struct smx_load_state st = { 0 };
	int ret;

	if (!cfg)
		return -EINVAL;
	set_defaults(cfg);
	ret = load_file(cfg, &st);
	if (!ret)
		ret = load_env(cfg, &st);
	if (!ret)
		ret = finish(cfg, &st);
	return ret;
}
