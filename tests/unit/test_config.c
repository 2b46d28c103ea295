/* SPDX-License-Identifier: MIT */
/*
 * Unit test for src/device/config.c: defaults, config file, environment,
 * precedence, derived GUIDs, and hostile values (each must fail with -EINVAL
 * and exactly one error line that names the offending key).
 */
#include "device/config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static int passed, failed;
static char tmpdir[PATH_MAX];
static char conf_path[PATH_MAX + 32];
static char captured[8192];

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			passed++;                                              \
		} else {                                                       \
			failed++;                                              \
			fprintf(stdout, "FAIL %s:%d: %s: ", __FILE__,          \
				__LINE__, #cond);                              \
			fprintf(stdout, __VA_ARGS__);                          \
			fputc('\n', stdout);                                   \
		}                                                              \
	} while (0)

/* Removes every SOFTMLX5_* variable and points HOME at the scratch dir. */
static void clean_env(void)
{
	for (;;) {
		char **e, name[256];
		int found = 0;

		for (e = environ; *e; e++) {
			if (!strncmp(*e, "SOFTMLX5_", 9) &&
			    strncmp(*e, "SOFTMLX5_DEBUG=", 15) != 0) {
				size_t n = strcspn(*e, "=");

				if (n >= sizeof(name))
					n = sizeof(name) - 1;
				memcpy(name, *e, n);
				name[n] = '\0';
				unsetenv(name);
				found = 1;
				break;
			}
		}
		if (!found)
			break;
	}
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", tmpdir, 1);
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	if (fwrite(data, 1, len, f) != len) {
		perror("fwrite");
		exit(2);
	}
	fclose(f);
}

static void write_conf(const char *text)
{
	write_file(conf_path, text, strlen(text));
	setenv("SOFTMLX5_CONFIG", conf_path, 1);
}

/* Runs smx_config_load() with stderr captured; returns its result. */
static int load_captured(struct smx_config *cfg, int *lines)
{
	char path[PATH_MAX + 32];
	int fd, saved, ret;
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path), "%s/stderr.txt", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	ret = smx_config_load(cfg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, captured, sizeof(captured) - 1);
	close(fd);
	captured[n > 0 ? n : 0] = '\0';
	*lines = 0;
	for (p = captured; *p; p++)
		if (*p == '\n')
			(*lines)++;
	return ret;
}

static void expect_ok(const char *what)
{
	struct smx_config cfg;
	int lines, ret = load_captured(&cfg, &lines);

	CHECK(ret == 0, "%s: expected success, got %d (%s)", what, ret,
	      captured);
	CHECK(lines == 0, "%s: expected no output, got '%s'", what, captured);
}

/* A hostile value must give -EINVAL and exactly one line naming @needle. */
static void expect_einval(const char *what, const char *needle)
{
	struct smx_config cfg;
	int lines, ret = load_captured(&cfg, &lines);

	CHECK(ret == -EINVAL, "%s: expected -EINVAL, got %d", what, ret);
	CHECK(lines == 1, "%s: expected one error line, got %d: '%s'", what,
	      lines, captured);
	CHECK(strstr(captured, needle) != NULL,
	      "%s: error line should mention '%s': '%s'", what, needle,
	      captured);
	CHECK(strstr(captured, "error") != NULL,
	      "%s: line should be an smx_err line: '%s'", what, captured);
}

static void env_bad(const char *var, const char *val)
{
	char what[256];

	clean_env();
	setenv(var, val, 1);
	snprintf(what, sizeof(what), "%s='%s'", var, val);
	expect_einval(what, var);
	unsetenv(var);
}

static void env_good(const char *var, const char *val)
{
	char what[256];

	clean_env();
	setenv(var, val, 1);
	snprintf(what, sizeof(what), "%s='%s'", var, val);
	expect_ok(what);
	unsetenv(var);
}

static void file_bad(const char *text, const char *needle)
{
	char what[256];

	clean_env();
	write_conf(text);
	snprintf(what, sizeof(what), "file '%.200s'", text);
	expect_einval(what, needle);
}

static void test_defaults(void)
{
	struct smx_config cfg;
	int lines;

	clean_env();
	CHECK(load_captured(&cfg, &lines) == 0, "defaults load: %s", captured);
	CHECK(lines == 0, "defaults print nothing: %s", captured);
	CHECK(!strcmp(cfg.dev_name, "mlx5_0"), "dev_name %s", cfg.dev_name);
	CHECK(cfg.vendor_id == 0x02c9, "vendor 0x%x", cfg.vendor_id);
	CHECK(cfg.part_id == 0x1021, "part 0x%x", cfg.part_id);
	CHECK(cfg.fw_major == 28 && cfg.fw_minor == 99 && cfg.fw_sub == 1,
	      "fw %u.%u.%u", cfg.fw_major, cfg.fw_minor, cfg.fw_sub);
	CHECK(cfg.link_layer == SMX_LINK_ETH, "link %d", cfg.link_layer);
	CHECK(cfg.ipv4[0] == 192 && cfg.ipv4[1] == 0 && cfg.ipv4[2] == 2 &&
	      cfg.ipv4[3] == 1, "ipv4");
	CHECK(cfg.mac[0] == 0x02 && cfg.mac[1] == 0x53 && cfg.mac[2] == 0x4d &&
	      cfg.mac[3] == 0x58 && cfg.mac[4] == 0x35 && cfg.mac[5] == 0x00,
	      "mac");
	CHECK(cfg.node_guid == 0x02534dfffe583500ull, "node_guid %016llx",
	      (unsigned long long)cfg.node_guid);
	CHECK(cfg.sys_image_guid == cfg.node_guid, "sys_image_guid");
	CHECK(cfg.gid_tbl_len == 256, "gid_tbl_len %u", cfg.gid_tbl_len);
	CHECK(cfg.pkey_tbl_len == 1, "pkey_tbl_len %u", cfg.pkey_tbl_len);
	CHECK(cfg.max_mtu == 5, "max_mtu %u", cfg.max_mtu);
	CHECK(cfg.log_max_qp == 17 && cfg.log_max_qp_sz == 15, "qp limits");
	CHECK(cfg.log_max_cq == 16 && cfg.log_max_cq_sz == 22, "cq limits");
	CHECK(cfg.log_max_srq == 15 && cfg.log_max_srq_sz == 15, "srq");
	CHECK(cfg.log_max_mkey == 20 && cfg.log_max_pd == 17 &&
	      cfg.log_max_xrcd == 16, "mkey/pd/xrcd");
	CHECK(cfg.max_sge == 30 && cfg.log_max_msg == 30, "sge/msg");
	CHECK(cfg.max_dm_size == 128 * 1024, "dm %llu",
	      (unsigned long long)cfg.max_dm_size);
	CHECK(cfg.num_comp_vectors == 2, "comp vectors");
	CHECK(smx_config_load(NULL) == -EINVAL, "NULL cfg");
}

static void test_paths(void)
{
	char buf[PATH_MAX], small[8], expect[PATH_MAX + 64];

	clean_env();
	snprintf(expect, sizeof(expect), "%s/.config/softmlx5/softmlx5.conf",
		 tmpdir);
	CHECK(smx_config_path(buf, sizeof(buf)) &&
	      !strcmp(buf, expect), "HOME path: %s", buf);

	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	CHECK(smx_config_path(buf, sizeof(buf)) &&
	      !strcmp(buf, "/xdg/softmlx5/softmlx5.conf"), "XDG path: %s", buf);

	setenv("XDG_CONFIG_HOME", "relative/dir", 1);
	CHECK(smx_config_path(buf, sizeof(buf)) && !strcmp(buf, expect),
	      "relative XDG_CONFIG_HOME is ignored: %s", buf);

	setenv("SOFTMLX5_CONFIG", "/etc/x.conf", 1);
	CHECK(smx_config_path(buf, sizeof(buf)) &&
	      !strcmp(buf, "/etc/x.conf"), "SOFTMLX5_CONFIG wins: %s", buf);
	CHECK(smx_config_path(small, sizeof(small)) == NULL,
	      "too-small buffer gives NULL");
	CHECK(smx_config_path(NULL, 10) == NULL, "NULL buffer");

	setenv("SOFTMLX5_CONFIG", "", 1);
	unsetenv("XDG_CONFIG_HOME");
	CHECK(smx_config_path(buf, sizeof(buf)) && !strcmp(buf, expect),
	      "empty SOFTMLX5_CONFIG means unset: %s", buf);
}

static void test_file(void)
{
	struct smx_config cfg;
	char dir[PATH_MAX + 32], path[PATH_MAX + 64];
	int lines;

	/* The default location is read when present. */
	clean_env();
	snprintf(dir, sizeof(dir), "%s/.config", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/.config/softmlx5", tmpdir);
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/softmlx5.conf", dir);
	write_file(path, "dev_name = home_dev\n", 20);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      !strcmp(cfg.dev_name, "home_dev"), "default-path file: %s",
	      captured);
	unlink(path);

	/* A missing default file is fine; a missing explicit file is not. */
	CHECK(load_captured(&cfg, &lines) == 0 && lines == 0,
	      "missing default file: %s", captured);
	setenv("SOFTMLX5_CONFIG", "/nonexistent/softmlx5.conf", 1);
	expect_einval("missing explicit file", "/nonexistent/softmlx5.conf");
	setenv("SOFTMLX5_CONFIG", tmpdir, 1);
	expect_einval("config path is a directory", "directory");

	/* Every knob, comments, blanks, CRLF, tabs. */
	clean_env();
	write_conf("# softmlx5 test config\n"
		   "\n"
		   "   dev_name   =   mlx5_7   # trailing comment\n"
		   "part_id = 0x101d\r\n"
		   "fw_version = 22.1.300\n"
		   "link_layer = ETH\n"
		   "ipv4 = 10.1.2.3\n"
		   "\tmac=02-00-00-aa-bb-cc\n"
		   "lid = 0x10\n"
		   "gid_tbl_len = 16\n"
		   "pkey_tbl_len = 1\n"
		   "max_mtu = 1024\n"
		   "log_max_qp = 10\n"
		   "log_max_qp_sz = 12\n"
		   "log_max_cq = 11\n"
		   "log_max_cq_sz = 13\n"
		   "log_max_srq = 9\n"
		   "log_max_srq_sz = 8\n"
		   "log_max_mkey = 14\n"
		   "log_max_pd = 7\n"
		   "log_max_xrcd = 6\n"
		   "max_sge = 16\n"
		   "log_max_msg = 20\n"
		   "num_comp_vectors = 4\n"
		   "max_dm_size = 256KiB\n");
	CHECK(load_captured(&cfg, &lines) == 0, "full file: %s", captured);
	CHECK(lines == 0, "full file silent: %s", captured);
	CHECK(!strcmp(cfg.dev_name, "mlx5_7"), "dev_name %s", cfg.dev_name);
	CHECK(cfg.part_id == 0x101d, "part_id %x", cfg.part_id);
	CHECK(cfg.fw_major == 22 && cfg.fw_minor == 1 && cfg.fw_sub == 300,
	      "fw");
	CHECK(cfg.ipv4[0] == 10 && cfg.ipv4[3] == 3, "ipv4");
	CHECK(cfg.mac[3] == 0xaa && cfg.mac[5] == 0xcc, "mac");
	CHECK(cfg.node_guid == 0x020000fffeaabbccull,
	      "node_guid derived from file MAC: %016llx",
	      (unsigned long long)cfg.node_guid);
	CHECK(cfg.sys_image_guid == cfg.node_guid, "sys_image_guid follows");
	CHECK(cfg.lid == 16, "lid %u", cfg.lid);
	CHECK(cfg.gid_tbl_len == 16, "gid_tbl_len");
	CHECK(cfg.max_mtu == 3, "max_mtu enum %u", cfg.max_mtu);
	CHECK(cfg.log_max_qp == 10 && cfg.log_max_qp_sz == 12 &&
	      cfg.log_max_cq == 11 && cfg.log_max_cq_sz == 13 &&
	      cfg.log_max_srq == 9 && cfg.log_max_srq_sz == 8 &&
	      cfg.log_max_mkey == 14 && cfg.log_max_pd == 7 &&
	      cfg.log_max_xrcd == 6 && cfg.max_sge == 16 &&
	      cfg.log_max_msg == 20 && cfg.num_comp_vectors == 4,
	      "limits from file");
	CHECK(cfg.max_dm_size == 256 * 1024, "dm size %llu",
	      (unsigned long long)cfg.max_dm_size);

	/* Environment overrides the file; later file lines override earlier. */
	write_conf("dev_name = first\ndev_name = second\nmac = 02:00:00:00:00:01\n");
	setenv("SOFTMLX5_DEV_NAME", "from_env", 1);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      !strcmp(cfg.dev_name, "from_env"), "env beats file: %s",
	      cfg.dev_name);
	unsetenv("SOFTMLX5_DEV_NAME");
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      !strcmp(cfg.dev_name, "second"), "last line wins: %s",
	      cfg.dev_name);
	setenv("SOFTMLX5_MAC", "0a:00:00:00:00:02", 1);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      cfg.node_guid == 0x0a0000fffe000002ull,
	      "GUID derives from the final (env) MAC: %016llx",
	      (unsigned long long)cfg.node_guid);

	/* Explicit GUIDs are kept; sys_image_guid follows node_guid. */
	clean_env();
	write_conf("node_guid = 1122:3344:5566:7788\n");
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      cfg.node_guid == 0x1122334455667788ull &&
	      cfg.sys_image_guid == 0x1122334455667788ull, "explicit GUID");
	setenv("SOFTMLX5_SYS_IMAGE_GUID", "0xabc", 1);
	setenv("SOFTMLX5_MAC", "02:00:00:00:00:09", 1);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      cfg.node_guid == 0x1122334455667788ull &&
	      cfg.sys_image_guid == 0xabc,
	      "explicit GUID survives a MAC change; sys_image_guid separate");

	/* InfiniBand defaults for the tables. */
	clean_env();
	setenv("SOFTMLX5_LINK_LAYER", "ib", 1);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      cfg.link_layer == SMX_LINK_IB && cfg.gid_tbl_len == 8 &&
	      cfg.pkey_tbl_len == 128, "IB table defaults");
	setenv("SOFTMLX5_PKEY_TBL_LEN", "64", 1);
	setenv("SOFTMLX5_GID_TBL_LEN", "2", 1);
	CHECK(load_captured(&cfg, &lines) == 0 && cfg.pkey_tbl_len == 64 &&
	      cfg.gid_tbl_len == 2, "IB explicit tables");
	unsetenv("SOFTMLX5_LINK_LAYER");
	expect_einval("pkey_tbl_len 64 on Ethernet", "pkey_tbl_len");

	/* Empty file, comment-only file. */
	clean_env();
	write_conf("");
	expect_ok("empty file");
	write_conf("# nothing\n   # still nothing\n\n");
	expect_ok("comments only");
	write_conf("dev_name = no_newline_at_end");
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      !strcmp(cfg.dev_name, "no_newline_at_end"), "last line w/o LF");
}

static void test_hostile_file(void)
{
	char big[4096];

	file_bad("no equals sign here\n", "expected 'key = value'");
	file_bad("bogus_key = 1\n", "unknown key 'bogus_key'");
	file_bad("bo\x01gus = 1\n", "unknown key 'bo\\x01gus'");
	file_bad("\x7f\x80\n", "\\x7f\\x80");
	file_bad("= 5\n", "unknown key ''");
	file_bad("log_max_qp =\n", "empty value");
	file_bad("log_max_qp = 1 2\n", "log_max_qp");
	file_bad("dev_name = mlx5_0\nlog_max_qp = 99\n", ":2:");
	file_bad("LOG_MAX_QP = 10\n", "unknown key");	/* keys are lower case */

	memset(big, 'a', sizeof(big));
	memcpy(big, "dev_name = ", 11);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	file_bad(big, "longer than");

	clean_env();
	write_file(conf_path, "dev_name = ab\0cd\n", 17);
	setenv("SOFTMLX5_CONFIG", conf_path, 1);
	expect_einval("NUL byte in file", "NUL");
}

static void test_hostile_env(void)
{
	char longname[128];

	/* numbers */
	env_bad("SOFTMLX5_LOG_MAX_QP", "");
	env_bad("SOFTMLX5_LOG_MAX_QP", "-1");
	env_bad("SOFTMLX5_LOG_MAX_QP", "+5");
	env_bad("SOFTMLX5_LOG_MAX_QP", "0");
	env_bad("SOFTMLX5_LOG_MAX_QP", "25");
	env_bad("SOFTMLX5_LOG_MAX_QP", "abc");
	env_bad("SOFTMLX5_LOG_MAX_QP", "0x");
	env_bad("SOFTMLX5_LOG_MAX_QP", "1e3");
	env_bad("SOFTMLX5_LOG_MAX_QP", "12abc");
	env_bad("SOFTMLX5_LOG_MAX_QP", "99999999999999999999999999");
	env_bad("SOFTMLX5_LOG_MAX_QP", "4294967313");	/* 2^32 + 17 */
	env_bad("SOFTMLX5_LOG_MAX_QP_SZ", "16");
	env_bad("SOFTMLX5_LOG_MAX_CQ_SZ", "23");
	env_bad("SOFTMLX5_MAX_SGE", "31");
	env_bad("SOFTMLX5_MAX_SGE", "0");
	env_bad("SOFTMLX5_LOG_MAX_MSG", "12");
	env_bad("SOFTMLX5_LOG_MAX_MSG", "32");
	env_bad("SOFTMLX5_NUM_COMP_VECTORS", "0");
	env_bad("SOFTMLX5_NUM_COMP_VECTORS", "65");
	env_bad("SOFTMLX5_PART_ID", "0");
	env_bad("SOFTMLX5_PART_ID", "0x10000");
	env_bad("SOFTMLX5_LID", "0");
	env_bad("SOFTMLX5_LID", "0xc000");
	env_bad("SOFTMLX5_GID_TBL_LEN", "0");
	env_bad("SOFTMLX5_GID_TBL_LEN", "257");
	env_good("SOFTMLX5_LOG_MAX_QP", " 12 ");	/* blanks are trimmed */
	env_good("SOFTMLX5_LOG_MAX_QP", "0x18");
	env_good("SOFTMLX5_LOG_MAX_QP", "024");	/* decimal, not octal */

	/* sizes */
	env_bad("SOFTMLX5_MAX_DM_SIZE", "12345");	/* not page multiple */
	env_bad("SOFTMLX5_MAX_DM_SIZE", "65M");
	env_bad("SOFTMLX5_MAX_DM_SIZE", "1T");
	env_bad("SOFTMLX5_MAX_DM_SIZE", "4KB5");
	env_bad("SOFTMLX5_MAX_DM_SIZE", "K");
	env_bad("SOFTMLX5_MAX_DM_SIZE", "18446744073709551615K");
	env_good("SOFTMLX5_MAX_DM_SIZE", "0");
	env_good("SOFTMLX5_MAX_DM_SIZE", "64M");
	env_good("SOFTMLX5_MAX_DM_SIZE", "4k");

	/* names */
	memset(longname, 'a', 64);
	longname[64] = '\0';
	env_bad("SOFTMLX5_DEV_NAME", longname);
	env_bad("SOFTMLX5_DEV_NAME", "../etc");
	env_bad("SOFTMLX5_DEV_NAME", "a/b");
	env_bad("SOFTMLX5_DEV_NAME", "mlx5 0");
	env_bad("SOFTMLX5_DEV_NAME", "_mlx");
	env_bad("SOFTMLX5_DEV_NAME", "mlx5_\xc3\xa9");
	env_bad("SOFTMLX5_DEV_NAME", "a\nb");	/* stays one line */
	env_bad("SOFTMLX5_DEV_NAME", "\x1b[31mred");
	longname[63] = '\0';
	env_good("SOFTMLX5_DEV_NAME", longname);
	{
		char huge[1000];

		memset(huge, 'z', sizeof(huge) - 1);
		huge[sizeof(huge) - 1] = '\0';
		env_bad("SOFTMLX5_DEV_NAME", huge);	/* message is cut */
		CHECK(strlen(captured) < 400, "long value shortened: %zu",
		      strlen(captured));
	}

	/* link layer */
	env_bad("SOFTMLX5_LINK_LAYER", "iwarp");
	env_bad("SOFTMLX5_LINK_LAYER", "e");
	env_good("SOFTMLX5_LINK_LAYER", "IB");
	env_good("SOFTMLX5_LINK_LAYER", "Ethernet");

	/* IPv4 */
	env_bad("SOFTMLX5_IPV4", "256.1.1.1");
	env_bad("SOFTMLX5_IPV4", "1.2.3");
	env_bad("SOFTMLX5_IPV4", "1.2.3.4.5");
	env_bad("SOFTMLX5_IPV4", "01.2.3.4");
	env_bad("SOFTMLX5_IPV4", "::1");
	env_bad("SOFTMLX5_IPV4", "0.0.0.0");
	env_bad("SOFTMLX5_IPV4", "224.0.0.1");
	env_bad("SOFTMLX5_IPV4", "255.255.255.255");
	env_good("SOFTMLX5_IPV4", "10.0.0.1");

	/* MAC */
	env_bad("SOFTMLX5_MAC", "02:53:4d:58:35");
	env_bad("SOFTMLX5_MAC", "02:53:4d:58:35:00:11");
	env_bad("SOFTMLX5_MAC", "g2:53:4d:58:35:00");
	env_bad("SOFTMLX5_MAC", "02:53-4d:58:35:00");
	env_bad("SOFTMLX5_MAC", "2:53:4d:58:35:0");
	env_bad("SOFTMLX5_MAC", "01:00:5e:00:00:01");	/* multicast */
	env_bad("SOFTMLX5_MAC", "00:00:00:00:00:00");
	env_good("SOFTMLX5_MAC", "AA:BB:CC:DD:EE:FF");

	/* GUIDs */
	env_bad("SOFTMLX5_NODE_GUID", "0");
	env_bad("SOFTMLX5_NODE_GUID", "0x0");
	env_bad("SOFTMLX5_NODE_GUID", "0000:0000:0000:0000");
	env_bad("SOFTMLX5_NODE_GUID", "1:2:3");
	env_bad("SOFTMLX5_NODE_GUID", "1:2:3:4:5");
	env_bad("SOFTMLX5_NODE_GUID", "12345:0:0:1");
	env_bad("SOFTMLX5_NODE_GUID", "0x11112222333344445");
	env_bad("SOFTMLX5_NODE_GUID", "1::2:3");
	env_bad("SOFTMLX5_SYS_IMAGE_GUID", "zz");
	env_good("SOFTMLX5_NODE_GUID", "0xffffffffffffffff");
	env_good("SOFTMLX5_NODE_GUID", "1:2:3:4");

	/* MTU and firmware */
	env_bad("SOFTMLX5_MAX_MTU", "1500");
	env_bad("SOFTMLX5_MAX_MTU", "5");
	env_bad("SOFTMLX5_MAX_MTU", "9000");
	env_good("SOFTMLX5_MAX_MTU", "2048");
	env_bad("SOFTMLX5_FW_VERSION", "28.99");
	env_bad("SOFTMLX5_FW_VERSION", "28.99.1.2");
	env_bad("SOFTMLX5_FW_VERSION", "28..1");
	env_bad("SOFTMLX5_FW_VERSION", ".28.1.1");
	env_bad("SOFTMLX5_FW_VERSION", "28.99.1.");
	env_bad("SOFTMLX5_FW_VERSION", "28.99.65536");
	env_bad("SOFTMLX5_FW_VERSION", "28.0x1.1");
	env_good("SOFTMLX5_FW_VERSION", "0.0.0");
}

/* Crypto knobs: defaults, accepted forms, and key material that never
 * reaches the error line. */
static void test_crypto(void)
{
	static const char kek128[] = "000102030405060708090a0b0c0d0e0f";
	struct smx_config cfg;
	int lines;

	clean_env();
	CHECK(load_captured(&cfg, &lines) == 0, "defaults: %s", captured);
	CHECK(cfg.crypto_mode == SMX_CRYPTO_WRAPPED, "mode %d", cfg.crypto_mode);
	CHECK(cfg.crypto_import_kek.len == 32 &&
	      cfg.crypto_import_kek.bytes[0] == 0 &&
	      cfg.crypto_import_kek.bytes[31] == 31, "default KEK");
	CHECK(cfg.crypto_credential.len == SMX_CRYPTO_CREDENTIAL_LEN &&
	      !memcmp(cfg.crypto_credential.bytes, SMX_CRYPTO_TEST_CREDENTIAL,
		      SMX_CRYPTO_CREDENTIAL_LEN), "default credential");
	CHECK(cfg.crypto_import_kek_id == 0 && cfg.crypto_credential_id == 0,
	      "ids %u %u", cfg.crypto_import_kek_id, cfg.crypto_credential_id);

	setenv("SOFTMLX5_CRYPTO_MODE", "Plaintext", 1);
	setenv("SOFTMLX5_CRYPTO_IMPORT_KEK", "0x00:01:02:03:04:05:06:07:08:09:"
	       "0A:0B:0C:0D:0E:0F", 1);
	setenv("SOFTMLX5_CRYPTO_IMPORT_KEK_ID", "0xffffff", 1);
	CHECK(load_captured(&cfg, &lines) == 0, "env: %s", captured);
	CHECK(cfg.crypto_mode == SMX_CRYPTO_PLAINTEXT, "mode %d",
	      cfg.crypto_mode);
	CHECK(cfg.crypto_import_kek.len == 16 &&
	      cfg.crypto_import_kek.bytes[15] == 15, "KEK from env");
	CHECK(cfg.crypto_import_kek_id == 0xffffff, "kek id");
	clean_env();

	env_good("SOFTMLX5_CRYPTO_MODE", "off");
	env_good("SOFTMLX5_CRYPTO_MODE", "WRAPPED");
	env_bad("SOFTMLX5_CRYPTO_MODE", "on");
	env_good("SOFTMLX5_CRYPTO_IMPORT_KEK", kek128);
	env_good("SOFTMLX5_CRYPTO_IMPORT_KEK",
		 "000102030405060708090a0b0c0d0e0f1011121314151617");
	env_bad("SOFTMLX5_CRYPTO_IMPORT_KEK", "0001020304050607");	/* 8 */
	env_bad("SOFTMLX5_CRYPTO_IMPORT_KEK",
		"000102030405060708090a0b0c0d0e0f10111213");		/* 20 */
	env_bad("SOFTMLX5_CRYPTO_IMPORT_KEK", "000102030405060708090a0b0c0d0e0");
	env_bad("SOFTMLX5_CRYPTO_IMPORT_KEK", "g00102030405060708090a0b0c0d0e0f");
	env_bad("SOFTMLX5_CRYPTO_IMPORT_KEK", "0x");
	env_bad("SOFTMLX5_CRYPTO_IMPORT_KEK", "00:");
	env_bad("SOFTMLX5_CRYPTO_IMPORT_KEK_ID", "0x1000000");
	env_good("SOFTMLX5_CRYPTO_CREDENTIAL_ID", "16777215");
	env_bad("SOFTMLX5_CRYPTO_CREDENTIAL", kek128);	/* not 40 bytes */
	/* The error names the key but never shows the value. */
	env_bad("SOFTMLX5_CRYPTO_IMPORT_KEK", "deadbeefdeadbeefdeadbeefdeadbeefaa");
	CHECK(!strstr(captured, "deadbeef"), "key material in '%s'", captured);
	file_bad("crypto_credential = 00112233\n", "crypto_credential");
	CHECK(!strstr(captured, "00112233"), "key material in '%s'", captured);
	clean_env();
	write_conf("crypto_mode = plaintext\n"
		   "crypto_credential = 6161616161616161616161616161616161616161"
		   "6161616161616161616161616161616161616161\n");
	CHECK(load_captured(&cfg, &lines) == 0, "file: %s", captured);
	CHECK(cfg.crypto_mode == SMX_CRYPTO_PLAINTEXT &&
	      cfg.crypto_credential.len == 40 &&
	      cfg.crypto_credential.bytes[39] == 'a', "credential from file");
	write_conf("");
}

/* The port's cable: a socket path (sun_path-sized) or "none". */
static void test_wire(void)
{
	char longp[120];
	struct smx_config cfg;
	int lines;

	clean_env();
	CHECK(load_captured(&cfg, &lines) == 0 && cfg.wire[0] == '\0',
	      "default: no cable ('%s')", cfg.wire);
	setenv("SOFTMLX5_WIRE", "/run/user/1000/port0", 1);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      !strcmp(cfg.wire, "/run/user/1000/port0"), "env: '%s'", cfg.wire);
	setenv("SOFTMLX5_WIRE", "none", 1);
	CHECK(load_captured(&cfg, &lines) == 0 && cfg.wire[0] == '\0', "none");
	clean_env();
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[107] = '\0';		/* 107 characters: fits */
	env_good("SOFTMLX5_WIRE", longp);
	longp[107] = 'a';
	longp[108] = '\0';		/* 108: does not */
	env_bad("SOFTMLX5_WIRE", longp);
	/* eth_switch: on / off and the usual spellings */
	setenv("SOFTMLX5_ETH_SWITCH", "On", 1);
	CHECK(load_captured(&cfg, &lines) == 0 && cfg.eth_switch, "eth_switch On");
	setenv("SOFTMLX5_ETH_SWITCH", "0", 1);
	CHECK(load_captured(&cfg, &lines) == 0 && !cfg.eth_switch, "eth_switch 0");
	clean_env();
	env_bad("SOFTMLX5_ETH_SWITCH", "maybe");
	write_conf("wire = port.sock\n");
	CHECK(load_captured(&cfg, &lines) == 0 && !strcmp(cfg.wire, "port.sock"),
	      "file: '%s'", cfg.wire);
	write_conf("");
}

/* fault: a spec checked at load (device/transport/fault.c); env wins. */
static void test_fault(void)
{
	struct smx_config cfg;
	int lines;

	clean_env();
	CHECK(load_captured(&cfg, &lines) == 0 && cfg.fault[0] == '\0',
	      "default: no fault ('%s')", cfg.fault);
	env_good("SOFTMLX5_FAULT", "loss=5%,dup=1%,seed=7;nth=3,class=ack");
	setenv("SOFTMLX5_FAULT", "loss=5%, delay=100us", 1);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      !strcmp(cfg.fault, "loss=5%, delay=100us"), "env: '%s'", cfg.fault);
	setenv("SOFTMLX5_FAULT", "none", 1);
	CHECK(load_captured(&cfg, &lines) == 0 && cfg.fault[0] == '\0', "none");
	/* One line naming the bad token (and the variable). */
	env_bad("SOFTMLX5_FAULT", "loss=5%,dup=2x");
	CHECK(strstr(captured, "'dup=2x'") != NULL, "token named: %s", captured);
	file_bad("fault = loss=1%;class=bogus,loss=1%\n", "fault");
	CHECK(strstr(captured, "'class=bogus'") != NULL, "token named: %s",
	      captured);
	write_conf("fault = nth=2,action=dup\n");
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      !strcmp(cfg.fault, "nth=2,action=dup"), "file: '%s'", cfg.fault);
	setenv("SOFTMLX5_FAULT", "corrupt=0.1%", 1);	/* env over file */
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      !strcmp(cfg.fault, "corrupt=0.1%"), "env wins: '%s'", cfg.fault);
	clean_env();
	write_conf("");
}

/* An Ethernet interface of this network namespace, from sysfs (type 1,
 * ARPHRD_ETHER), with its MAC; false if there is none. */
static bool some_ethernet(char *name, size_t nlen, char *mac, size_t mlen)
{
	char path[PATH_MAX], buf[64];
	struct dirent *d;
	DIR *dir = opendir("/sys/class/net");
	bool found = false;
	FILE *f;

	while (dir && !found && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || strlen(d->d_name) >= nlen)
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/type", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = fgets(buf, sizeof(buf), f) && atoi(buf) == 1;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/class/net/%s/address",
			 d->d_name);
		f = found ? fopen(path, "r") : NULL;
		found = f && fgets(mac, (int)mlen, f) && strlen(mac) >= 17;
		if (f)
			fclose(f);
		if (found) {
			mac[17] = '\0';
			memcpy(name, d->d_name, strlen(d->d_name) + 1);
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

/* netdev: a name checked at load, the interface looked for once every
 * source had its say; its MAC becomes the port's (and the GUIDs'). */
static void test_netdev(void)
{
	struct smx_config cfg;
	char name[32], mac[32], got[32];
	int lines;

	clean_env();
	CHECK(load_captured(&cfg, &lines) == 0 && cfg.netdev[0] == '\0',
	      "default: no interface ('%s')", cfg.netdev);
	env_good("SOFTMLX5_NETDEV", "none");
	env_bad("SOFTMLX5_NETDEV", "a/b");
	env_bad("SOFTMLX5_NETDEV", "eth0:1");
	env_bad("SOFTMLX5_NETDEV", "a b");
	env_bad("SOFTMLX5_NETDEV", "..");
	env_bad("SOFTMLX5_NETDEV", "sixteen-chars-xx");
	/* Not here: one line, naming the variable, the name and why. */
	env_bad("SOFTMLX5_NETDEV", "smxnosuch0");
	CHECK(strstr(captured, "'smxnosuch0': no such network interface"),
	      "named: %s", captured);
	file_bad("netdev = smxnosuch1\n", conf_path);
	CHECK(strstr(captured, ":1: netdev = 'smxnosuch1'"), "line named: %s",
	      captured);
	/* The environment decides before the interface is looked for. */
	setenv("SOFTMLX5_NETDEV", "none", 1);
	CHECK(load_captured(&cfg, &lines) == 0 && cfg.netdev[0] == '\0',
	      "env none over a missing file interface: %s", captured);
	clean_env();
	write_conf("");
	clean_env();
	setenv("SOFTMLX5_LINK_LAYER", "ib", 1);
	setenv("SOFTMLX5_NETDEV", "lo", 1);
	expect_einval("netdev on an InfiniBand port", "SOFTMLX5_NETDEV");
	CHECK(strstr(captured, "only an Ethernet port"), "ib: %s", captured);
	clean_env();
	/* Every namespace has lo, which is no Ethernet interface. */
	env_bad("SOFTMLX5_NETDEV", "lo");
	CHECK(strstr(captured, "not an Ethernet interface"), "lo: %s", captured);
	if (!some_ethernet(name, sizeof(name), mac, sizeof(mac))) {
		printf("# no Ethernet interface here: a bound port's MAC not "
		       "checked (tests/net does)\n");
		return;
	}
	setenv("SOFTMLX5_NETDEV", name, 1);
	CHECK(load_captured(&cfg, &lines) == 0 && !strcmp(cfg.netdev, name),
	      "%s: %s", name, captured);
	snprintf(got, sizeof(got), "%02x:%02x:%02x:%02x:%02x:%02x", cfg.mac[0],
		 cfg.mac[1], cfg.mac[2], cfg.mac[3], cfg.mac[4], cfg.mac[5]);
	CHECK(!strcmp(got, mac), "%s: the port's MAC %s, the interface's %s",
	      name, got, mac);
	CHECK(cfg.node_guid == ((uint64_t)cfg.mac[0] << 56 |
				(uint64_t)cfg.mac[1] << 48 |
				(uint64_t)cfg.mac[2] << 40 | 0xfffe000000ull |
				(uint64_t)cfg.mac[3] << 16 |
				(uint64_t)cfg.mac[4] << 8 | cfg.mac[5]),
	      "node_guid %016llx from the interface's MAC",
	      (unsigned long long)cfg.node_guid);
	setenv("SOFTMLX5_MAC", "02:00:00:00:00:01", 1);	/* the interface wins */
	CHECK(load_captured(&cfg, &lines) == 0, "mac with netdev: %s", captured);
	snprintf(got, sizeof(got), "%02x:%02x:%02x:%02x:%02x:%02x", cfg.mac[0],
		 cfg.mac[1], cfg.mac[2], cfg.mac[3], cfg.mac[4], cfg.mac[5]);
	CHECK(!strcmp(got, mac), "mac with netdev: %s, the interface's %s", got,
	      mac);
	clean_env();
}

/* netdev_mode: auto (the default), udp or raw, any case; nothing else. */
static void test_netdev_mode(void)
{
	struct smx_config cfg;
	int lines;

	clean_env();
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      cfg.netdev_mode == SMX_NETDEV_AUTO, "default: mode %d",
	      cfg.netdev_mode);
	setenv("SOFTMLX5_NETDEV_MODE", "RAW", 1);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      cfg.netdev_mode == SMX_NETDEV_RAW, "RAW: mode %d",
	      cfg.netdev_mode);
	clean_env();
	env_good("SOFTMLX5_NETDEV_MODE", "udp");
	setenv("SOFTMLX5_NETDEV_MODE", "Auto", 1);
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      cfg.netdev_mode == SMX_NETDEV_AUTO, "Auto: mode %d",
	      cfg.netdev_mode);
	clean_env();
	env_bad("SOFTMLX5_NETDEV_MODE", "tcp");
	CHECK(strstr(captured, "not a netdev mode (auto, raw or udp)"), "tcp: %s",
	      captured);
	env_bad("SOFTMLX5_NETDEV_MODE", "");
	file_bad("netdev_mode = packet\n", "netdev_mode");
	clean_env();
	write_conf("netdev_mode = raw\n");
	CHECK(load_captured(&cfg, &lines) == 0 &&
	      cfg.netdev_mode == SMX_NETDEV_RAW, "file raw: mode %d",
	      cfg.netdev_mode);
	clean_env();
	write_conf("");
	clean_env();
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/smx-test-config-XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(conf_path, sizeof(conf_path), "%s/test.conf", tmpdir);

	test_defaults();
	test_paths();
	test_file();
	test_hostile_file();
	test_hostile_env();
	test_crypto();
	test_wire();
	test_fault();
	test_netdev();
	test_netdev_mode();

	/* Clean up the scratch directory (best effort, known file names). */
	{
		char p[PATH_MAX + 64];

		unlink(conf_path);
		snprintf(p, sizeof(p), "%s/stderr.txt", tmpdir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/.config/softmlx5", tmpdir);
		rmdir(p);
		snprintf(p, sizeof(p), "%s/.config", tmpdir);
		rmdir(p);
		rmdir(tmpdir);
	}

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
