/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 -- command-line front end.
 *
 *   softmlx5 run [--] CMD [ARGS...]   run CMD on the software device
 *   softmlx5 info                     effective configuration
 *   softmlx5 crypto-test-data         test_mlx5_crypto's data file (JSON)
 *   softmlx5 wire [options]           the far end of the port's cable
 *   softmlx5 counters [--json]        the port's counters (hw_counters)
 *   softmlx5 status [--json]          every process's objects (tools/status.c)
 *   softmlx5 version | help
 *
 * "run" works by prepending the directory that holds softmlx5's
 * libibverbs.so.1 and libmlx5.so.1 to LD_LIBRARY_PATH and exec'ing CMD, so
 * the dynamic loader picks our libraries instead of the system's.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto_test_data.h"
#include "decode_cmd.h"
#include "status_cmd.h"
#include "wire.h"
#include "device/config.h"
#include "device/fabric/shm.h"
#include "device/transport/counters.h"

#ifndef SMX_VERSION
#error "SMX_VERSION must be defined by the build"
#endif
#ifndef SMX_INSTALL_BINDIR
#define SMX_INSTALL_BINDIR "bin"
#endif
#ifndef SMX_INSTALL_LIBDIR
#define SMX_INSTALL_LIBDIR "lib"
#endif

static const char *const our_libs[] = { "libibverbs.so.1", "libmlx5.so.1" };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: softmlx5 <command> [arguments]\n"
		"\n"
		"commands:\n"
		"  run [--] CMD [ARGS...]  run CMD with softmlx5's libibverbs.so.1 and\n"
		"                          libmlx5.so.1, so it sees the software device\n"
		"  info                    print the effective device configuration,\n"
		"                          the config file and the library directory\n"
		"  crypto-test-data        print rdma-core's test_mlx5_crypto data\n"
		"                          file (JSON, for $MLX5_CRYPTO_TEST_INFO) for\n"
		"                          the configured import KEK and credential\n"
		"  wire [options]          the far end of the Ethernet port's cable\n"
		"                          (the `wire` knob): send frames into the\n"
		"                          port, capture what comes out (wire --help)\n"
		"  counters [--json]       print the port's counters (the names of\n"
		"                          sysfs hw_counters), summed over the\n"
		"                          processes that have the device open\n"
		"  decode KIND [HEX...]    decode a hex dump (arguments or stdin) of a\n"
		"                          WQE, receive WQE, CQE, EQE, doorbell,\n"
		"                          command mailbox or RoCEv2 packet: KIND is\n"
		"                          wqe, rwqe, cqe, eqe, db, cmd or pkt\n"
		"                          (decode --help)\n"
		"  status [--json]         the device's objects in every process that\n"
		"                          has it open: QPs (state, PSNs, WQEs),\n"
		"                          CQs (fill), SRQs, memory keys, counts\n"
		"  version                 print the version\n"
		"  help                    print this help\n"
		"\n"
		"Configuration: man 7 softmlx5 (config file, SOFTMLX5_* variables).\n"
		"Python programs using pyverbs need Debian's interpreter:\n"
		"  softmlx5 run -- /usr/bin/python3 script.py\n");
}

/* Copies @src into @out; false (and @out empty) if it does not fit. */
static bool copy_str(char *out, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len) {
		if (len)
			out[0] = '\0';
		return false;
	}
	memcpy(out, src, n + 1);
	return true;
}

static bool has_libs(const char *dir)
{
	char p[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(our_libs) / sizeof(our_libs[0]); i++) {
		if (snprintf(p, sizeof(p), "%s/%s", dir, our_libs[i]) >=
		    (int)sizeof(p))
			return false;
		if (access(p, R_OK) != 0)
			return false;
	}
	return true;
}

/* Directory of the running executable, or NULL. */
static bool exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0 || (size_t)n >= len - 1)
		return false;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

/*
 * Candidate library directories, in order:
 *   1. $SOFTMLX5_LIBDIR (must hold the libraries, else it is an error)
 *   2. installed layout: <prefix>/<libdir>, where the executable lives in
 *      <prefix>/<bindir> (bindir/libdir as configured at build time)
 *   3. build tree: <dir of executable>/../lib
 * Writes up to @max candidates into @cands; returns how many.
 */
static int lib_candidates(char cands[][PATH_MAX], int max)
{
	char dir[PATH_MAX];
	int n = 0;

	if (!exe_dir(dir, sizeof(dir)))
		return 0;

	if (n < max) {
		const char *bindir = SMX_INSTALL_BINDIR;
		const char *libdir = SMX_INSTALL_LIBDIR;
		size_t dl = strlen(dir), bl = strlen(bindir);

		if (libdir[0] == '/') {
			snprintf(cands[n++], PATH_MAX, "%s", libdir);
		} else if (bindir[0] != '/' && dl > bl &&
			   !strcmp(dir + dl - bl, bindir) &&
			   dir[dl - bl - 1] == '/') {
			int w = snprintf(cands[n], PATH_MAX, "%.*s%s",
					 (int)(dl - bl), dir, libdir);

			if (w > 0 && w < PATH_MAX)
				n++;
		}
	}
	if (n < max) {
		/* <dir>/../lib, spelled without the "..". */
		char *slash = strrchr(dir, '/');
		int w;

		if (slash && slash != dir)
			*slash = '\0';
		w = snprintf(cands[n], PATH_MAX, "%s/lib", dir);
		if (w > 0 && w < PATH_MAX &&
		    (n == 0 || strcmp(cands[n], cands[n - 1]) != 0))
			n++;
	}
	return n;
}

/* Finds our library directory; returns false with a message on failure. */
static bool find_libdir(char *out, size_t len, bool quiet)
{
	const char *env = getenv("SOFTMLX5_LIBDIR");
	char cands[2][PATH_MAX];
	int i, n;

	if (env && *env) {
		if (!has_libs(env)) {
			if (!quiet)
				fprintf(stderr,
					"softmlx5: SOFTMLX5_LIBDIR=%s does not "
					"contain libibverbs.so.1 and "
					"libmlx5.so.1\n", env);
			return false;
		}
		char real[PATH_MAX];

		return copy_str(out, len, realpath(env, real) ? real : env);
	}

	n = lib_candidates(cands, 2);
	for (i = 0; i < n; i++) {
		if (has_libs(cands[i])) {
			char real[PATH_MAX];

			return copy_str(out, len, realpath(cands[i], real) ?
						  real : cands[i]);
		}
	}
	if (!quiet) {
		fprintf(stderr,
			"softmlx5: cannot find softmlx5's libibverbs.so.1 and "
			"libmlx5.so.1; looked in:\n");
		for (i = 0; i < n; i++)
			fprintf(stderr, "  %s\n", cands[i]);
		fprintf(stderr,
			"Build them with 'make build', or point "
			"SOFTMLX5_LIBDIR at their directory.\n");
	}
	return false;
}

/* Puts @first in front of the colon-separated list in $@name. An empty
 * element would mean "the current directory": none is made. */
static int env_prepend(const char *name, const char *first)
{
	const char *old = getenv(name);
	size_t len = strlen(first) + (old ? strlen(old) : 0) + 2;
	char *v = malloc(len);

	if (!v) {
		fprintf(stderr, "softmlx5 run: out of memory\n");
		return 1;
	}
	if (old && *old)
		snprintf(v, len, "%s:%s", first, old);
	else
		snprintf(v, len, "%s", first);
	if (setenv(name, v, 1)) {
		fprintf(stderr, "softmlx5 run: setenv %s: %s\n", name,
			strerror(errno));
		free(v);
		return 1;
	}
	free(v);
	return 0;
}

/*
 * The device node view (src/run/devnode.c) in front of LD_PRELOAD: programs
 * that check /dev/infiniband/uverbs0 and sysfs before using libibverbs
 * (UCX) find the software device. Absent library: nothing preloaded.
 */
static int run_preload_devnode(const char *libdir)
{
	char lib[PATH_MAX + 32];

	snprintf(lib, sizeof(lib), "%s/libsoftmlx5_devnode.so", libdir);
	if (access(lib, R_OK))
		return 0;
	return env_prepend("LD_PRELOAD", lib);
}

/* What the device node view needs to know of the device (devnode.c): a
 * port bound to an interface shows that interface's GID table, as long as
 * the configured one. */
static int run_export_device(const struct smx_config *cfg)
{
	char part[16], gids[16];
	bool eth = cfg->link_layer == SMX_LINK_ETH;
	int err;

	snprintf(part, sizeof(part), "0x%04x", cfg->part_id);
	snprintf(gids, sizeof(gids), "%u", cfg->gid_tbl_len);
	err = setenv("SOFTMLX5_DEVNODE_NAME", cfg->dev_name, 1) ||
	      setenv("SOFTMLX5_DEVNODE_PART", part, 1) ||
	      setenv("SOFTMLX5_DEVNODE_LINK", eth ? "eth" : "ib", 1);
	if (!err && eth && cfg->netdev[0])
		err = setenv("SOFTMLX5_DEVNODE_NETDEV", cfg->netdev, 1) ||
		      setenv("SOFTMLX5_DEVNODE_GIDS", gids, 1);
	else if (!err)
		err = unsetenv("SOFTMLX5_DEVNODE_NETDEV");
	if (err) {
		fprintf(stderr, "softmlx5 run: setenv: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	char libdir[PATH_MAX];
	struct smx_config cfg;
	int i = 0;

	if (argc > 0 && !strcmp(argv[0], "--"))
		i = 1;
	else if (argc > 0 && argv[0][0] == '-') {
		fprintf(stderr,
			"softmlx5 run: unknown option '%s' (use '--' before a "
			"command that starts with '-')\n", argv[0]);
		return 2;
	}
	if (i >= argc) {
		fprintf(stderr, "softmlx5 run: no command given\n"
				"usage: softmlx5 run [--] CMD [ARGS...]\n");
		return 2;
	}

	/* Refuse to start anything with a broken configuration: every
	 * process would otherwise fail to open the device on its own. */
	if (smx_config_load(&cfg) != 0) {
		fprintf(stderr,
			"softmlx5 run: the configuration is invalid (see the "
			"error above); not starting %s\n", argv[i]);
		return 1;
	}
	if (!find_libdir(libdir, sizeof(libdir), false))
		return 1;

	if (env_prepend("LD_LIBRARY_PATH", libdir))
		return 1;
	if (run_preload_devnode(libdir) || run_export_device(&cfg))
		return 1;

	execvp(argv[i], &argv[i]);
	fprintf(stderr, "softmlx5 run: cannot run '%s': %s\n", argv[i],
		strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

static const char *part_name(uint32_t id)
{
	/* PCI device ids of mlx5 parts (rdma-core's mlx5 provider table). */
	switch (id) {
	case 0x1011: return "Connect-IB";
	case 0x1012: return "Connect-IB VF";
	case 0x1013: return "ConnectX-4";
	case 0x1014: return "ConnectX-4 VF";
	case 0x1015: return "ConnectX-4 Lx";
	case 0x1016: return "ConnectX-4 Lx VF";
	case 0x1017: return "ConnectX-5";
	case 0x1018: return "ConnectX-5 VF";
	case 0x1019: return "ConnectX-5 Ex";
	case 0x101a: return "ConnectX-5 Ex VF";
	case 0x101b: return "ConnectX-6";
	case 0x101c: return "ConnectX-6 VF";
	case 0x101d: return "ConnectX-6 Dx";
	case 0x101e: return "ConnectX family VF";
	case 0x101f: return "ConnectX-6 Lx";
	case 0x1021: return "ConnectX-7";
	case 0x1023: return "ConnectX-8";
	case 0xa2d2: return "BlueField";
	case 0xa2d3: return "BlueField VF";
	case 0xa2d6: return "BlueField-2";
	case 0xa2dc: return "BlueField-3";
	case 0xa2df: return "BlueField-4";
	default: return "not an mlx5 part id known to rdma-core";
	}
}

static const char *mtu_bytes(unsigned int mtu)
{
	switch (mtu) {
	case 1: return "256";
	case 2: return "512";
	case 3: return "1024";
	case 4: return "2048";
	case 5: return "4096";
	default: return "?";
	}
}

static void print_guid(const char *key, uint64_t g)
{
	printf("%-17s= %04x:%04x:%04x:%04x\n", key, (unsigned)(g >> 48) & 0xffff,
	       (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff,
	       (unsigned)g & 0xffff);
}

/* Key material in config syntax: the device is software, its keys are
 * configuration (test values by default), so info shows them. */
static void print_secret(const char *key, const struct smx_secret *s)
{
	printf("%-17s= ", key);
	for (unsigned int i = 0; i < s->len; i++)
		printf("%02x", s->bytes[i]);
	printf("\n");
}

static int cmd_info(int argc, char **argv)
{
	char path[PATH_MAX], libdir[PATH_MAX];
	struct smx_config c;
	struct stat sb;
	const char *p;

	if (argc > 0) {
		fprintf(stderr, "softmlx5 info: unexpected argument '%s'\n",
			argv[0]);
		return 2;
	}
	p = smx_config_path(path, sizeof(path));
	if (smx_config_load(&c) != 0) {
		fprintf(stderr, "softmlx5 info: the configuration is invalid "
				"(see the error above)\n");
		return 1;
	}

	printf("# softmlx5 %s -- effective configuration\n", SMX_VERSION);
	printf("# (defaults < config file < SOFTMLX5_* environment; "
	       "man 7 softmlx5)\n");
	if (!p)
		printf("# config file: none (no home directory)\n");
	else
		printf("# config file: %s (%s)\n", p,
		       stat(p, &sb) == 0 ? "read" : "not present");
	if (find_libdir(libdir, sizeof(libdir), true))
		printf("# libraries:   %s\n", libdir);
	else
		printf("# libraries:   not found (run 'make build' or set "
		       "SOFTMLX5_LIBDIR)\n");
	printf("# vendor_id:   0x%04x (fixed), hw_ver 0x%x\n", c.vendor_id,
	       c.hw_ver);
	/* The host this process belongs to: one segment per user and
	 * network namespace (docs/multiprocess.md). */
	p = smx_shm_default_path(path, sizeof(path));
	printf("# segment:     %s\n", p ? p : errno == ENODEV ?
	       "none (SOFTMLX5_SHM_PATH is off: every process alone)" :
	       "none (no place for one)");
	printf("\n");
	printf("%-17s= %s\n", "dev_name", c.dev_name);
	printf("%-17s= 0x%04x  # %s\n", "part_id", c.part_id,
	       part_name(c.part_id));
	printf("%-17s= %u.%u.%u\n", "fw_version", c.fw_major, c.fw_minor,
	       c.fw_sub);
	printf("%-17s= %s\n", "link_layer",
	       c.link_layer == SMX_LINK_IB ? "ib" : "eth");
	printf("%-17s= %u.%u.%u.%u%s\n", "ipv4", c.ipv4[0], c.ipv4[1],
	       c.ipv4[2], c.ipv4[3], c.netdev[0] ?
	       "  # not used: the GIDs are the interface's" : "");
	printf("%-17s= %02x:%02x:%02x:%02x:%02x:%02x%s%s\n", "mac", c.mac[0],
	       c.mac[1], c.mac[2], c.mac[3], c.mac[4], c.mac[5],
	       c.netdev[0] ? "  # from netdev " : "", c.netdev);
	print_guid("node_guid", c.node_guid);
	print_guid("sys_image_guid", c.sys_image_guid);
	printf("%-17s= %u%s\n", "lid", c.lid,
	       c.link_layer == SMX_LINK_IB ? "" : "  # used on ib only");
	printf("%-17s= %u\n", "gid_tbl_len", c.gid_tbl_len);
	printf("%-17s= %u\n", "pkey_tbl_len", c.pkey_tbl_len);
	printf("%-17s= %s\n", "max_mtu", mtu_bytes(c.max_mtu));
	printf("%-17s= %u  # %lu QPs\n", "log_max_qp", c.log_max_qp,
	       1ul << c.log_max_qp);
	printf("%-17s= %u  # %lu WQEs\n", "log_max_qp_sz", c.log_max_qp_sz,
	       1ul << c.log_max_qp_sz);
	printf("%-17s= %u\n", "log_max_cq", c.log_max_cq);
	printf("%-17s= %u\n", "log_max_cq_sz", c.log_max_cq_sz);
	printf("%-17s= %u\n", "log_max_srq", c.log_max_srq);
	printf("%-17s= %u\n", "log_max_srq_sz", c.log_max_srq_sz);
	printf("%-17s= %u\n", "log_max_mkey", c.log_max_mkey);
	printf("%-17s= %u\n", "log_max_pd", c.log_max_pd);
	printf("%-17s= %u\n", "log_max_xrcd", c.log_max_xrcd);
	printf("%-17s= %u\n", "max_sge", c.max_sge);
	printf("%-17s= %u\n", "log_max_msg", c.log_max_msg);
	printf("%-17s= %u\n", "num_comp_vectors", c.num_comp_vectors);
	printf("%-17s= %llu\n", "max_dm_size",
	       (unsigned long long)c.max_dm_size);
	printf("%-17s= %s\n", "crypto_mode",
	       c.crypto_mode == SMX_CRYPTO_WRAPPED ? "wrapped" :
	       c.crypto_mode == SMX_CRYPTO_PLAINTEXT ? "plaintext" : "off");
	print_secret("crypto_import_kek", &c.crypto_import_kek);
	printf("%-17s= %u\n", "crypto_import_kek_id", c.crypto_import_kek_id);
	print_secret("crypto_credential", &c.crypto_credential);
	printf("%-17s= %u\n", "crypto_credential_id", c.crypto_credential_id);
	printf("%-17s= %s\n", "wire", c.wire[0] ? c.wire : "none");
	printf("%-17s= %s\n", "eth_switch", c.eth_switch ? "on" : "off");
	printf("%-17s= %s\n", "fault", c.fault[0] ? c.fault : "none");
	printf("%-17s= %s\n", "netdev", c.netdev[0] ? c.netdev : "none");
	printf("%-17s= %s\n", "netdev_mode",
	       c.netdev_mode == SMX_NETDEV_RAW ? "raw" :
	       c.netdev_mode == SMX_NETDEV_UDP ? "udp" :
	       "auto  # raw where a packet socket may be opened, else udp");
	return 0;
}

/*
 * The port's counters, summed over the processes attached to the shared
 * segment (read-only, without attaching). Text: "name value" per line, as
 * `rdma statistic show` lists them; --json: rdma -j's shape, one object
 * per port.
 */
static int cmd_counters(int argc, char **argv)
{
	uint64_t v[TRN_CTR_NUM];
	struct smx_config c;
	char path[256];
	const char *p;
	bool json = false;
	uint32_t live = 0;
	int i, ret;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j")) {
			json = true;
		} else {
			fprintf(stderr, "softmlx5 counters: unexpected argument "
				"'%s'\nusage: softmlx5 counters [--json]\n",
				argv[i]);
			return 2;
		}
	}
	if (smx_config_load(&c) != 0) {
		fprintf(stderr, "softmlx5 counters: the configuration is "
				"invalid (see the error above)\n");
		return 1;
	}
	p = smx_shm_default_path(path, sizeof(path));
	if (!p && errno == ENODEV) {
		fprintf(stderr, "softmlx5 counters: SOFTMLX5_SHM_PATH=%s: "
			"processes run alone and keep their counters to "
			"themselves\n", getenv("SOFTMLX5_SHM_PATH"));
		return 1;
	}
	ret = p ? smx_shm_counters_read(p, v, &live) : -ENOENT;
	if (ret == -ESTALE) {
		fprintf(stderr, "softmlx5 counters: %s is of another softmlx5 "
			"version's layout; counting nothing\n", p);
	} else if (ret && ret != -ENOENT) {
		fprintf(stderr, "softmlx5 counters: cannot read %s: %s\n",
			p ? p : "the shared segment", strerror(-ret));
		return 1;
	}
	if (json) {
		printf("[{\"ifname\":\"%s\",\"port\":1", c.dev_name);
		for (i = 0; i < TRN_CTR_NUM; i++)
			printf(",\"%s\":%llu", trn_ctr_info[i].name,
			       (unsigned long long)v[i]);
		printf("}]\n");
		return 0;
	}
	printf("# %s port 1: %u process%s attached (%s)\n", c.dev_name, live,
	       live == 1 ? "" : "es", p ? p : "no shared segment");
	for (i = 0; i < TRN_CTR_NUM; i++)
		printf("%-28s %llu\n", trn_ctr_info[i].name,
		       (unsigned long long)v[i]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(cmd, "info"))
		return cmd_info(argc - 2, argv + 2);
	if (!strcmp(cmd, "crypto-test-data"))
		return cmd_crypto_test_data(argc - 2, argv + 2);
	if (!strcmp(cmd, "wire"))
		return cmd_wire(argc - 2, argv + 2);
	if (!strcmp(cmd, "counters"))
		return cmd_counters(argc - 2, argv + 2);
	if (!strcmp(cmd, "decode"))
		return cmd_decode(argc - 2, argv + 2);
	if (!strcmp(cmd, "status"))
		return cmd_status(argc - 2, argv + 2);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		if (argc > 2) {
			fprintf(stderr, "softmlx5 version: unexpected "
					"argument '%s'\n", argv[2]);
			return 2;
		}
		printf("softmlx5 %s (libibverbs.so.1 / libmlx5.so.1, "
		       "rdma-core 44 ABI)\n", SMX_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "softmlx5: unknown command '%s'\n\n", cmd);
	usage(stderr);
	return 2;
}
