/* SPDX-License-Identifier: MIT */
/*
 * `softmlx5 crypto-test-data` against the device: the JSON it prints for
 * test_mlx5_crypto must be what this device accepts and computes. For each
 * DEK import mode: the wrapped credential logs in (wrapped mode), the
 * wrapped / plaintext keys make DEKs whose unwrapped key equals the
 * plaintext_* arrays, and the engine's AES-XTS of 512 / 1024 'c' bytes with
 * that DEK (tweak 0, 512-byte data units) equals encrypted_data_for_*_c.
 * The tool computes its vectors with OpenSSL alone, so this ties the device
 * to an independent computation, in the byte packing the test unpacks.
 *
 * usage: test_crypto_tool PATH-TO-softmlx5
 */
#include <inttypes.h>
#include <sys/wait.h>

#include "device/engine/eng_crypto.h"
#include "device/fw/fw.h"
#include "fw_test_util.h"

static const char *tool;

/* Runs the tool in @mode; its stdout (malloc'd) and exit status. */
static char *run_tool(const char *mode, const char *arg, int *status)
{
	char cmd[4096], *out = calloc(1, 1 << 16);
	size_t n = 0;
	FILE *p;

	setenv("SOFTMLX5_CRYPTO_MODE", mode, 1);
	snprintf(cmd, sizeof(cmd), "'%s' crypto-test-data %s 2>/dev/null", tool,
		 arg ? arg : "");
	p = popen(cmd, "r");
	if (!p) {
		*status = -1;
		return out;
	}
	while (n < (1 << 16) - 1) {
		size_t r = fread(out + n, 1, (1 << 16) - 1 - n, p);

		if (!r)
			break;
		n += r;
	}
	*status = pclose(p);
	return out;
}

/* The numbers of JSON array @name; how many, at most @max. */
static size_t json_array(const char *js, const char *name, uint64_t *v,
			 size_t max)
{
	char key[64];
	const char *p;
	size_t n = 0;

	snprintf(key, sizeof(key), "\"%s\": [", name);
	p = strstr(js, key);
	if (!p)
		return 0;
	p += strlen(key);
	while (n < max && *p && *p != ']') {
		char *end;

		v[n++] = strtoull(p, &end, 10);
		if (end == p)
			return 0;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return n;
}

static long json_int(const char *js, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\": ", name);
	p = strstr(js, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* struct.pack('!NQ'): big-endian 64-bit words. */
static size_t be64_bytes(const char *js, const char *name, uint8_t *out,
			 size_t max)
{
	uint64_t v[128];
	size_t n = json_array(js, name, v, max / 8);

	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			out[8 * i + b] = (uint8_t)(v[i] >> (56 - 8 * b));
	return n * 8;
}

/* struct.pack('NI'): native 32-bit words. */
static size_t u32_bytes(const char *js, const char *name, uint8_t *out,
			size_t max)
{
	uint64_t v[32];
	size_t n = json_array(js, name, v, max / 4);

	for (size_t i = 0; i < n; i++) {
		uint32_t w = (uint32_t)v[i];

		memcpy(out + 4 * i, &w, 4);
	}
	return n * 4;
}

static unsigned int dek(struct smx_dev *d, uint32_t pd, uint32_t size,
			const uint8_t *key, size_t n, uint32_t *id)
{
	MB(create_encryption_key_obj_in) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };
	void *in = create_encryption_key_obj_in;
	unsigned int st;

	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type, MLX5_OBJ_TYPE_DEK);
	DEVX_SET(create_encryption_key_obj_in, in, key_obj.key_size, size);
	DEVX_SET(create_encryption_key_obj_in, in, key_obj.key_purpose,
		 MLX5_ENCRYPTION_KEY_OBJ_KEY_PURPOSE_AES_XTS);
	DEVX_SET(create_encryption_key_obj_in, in, key_obj.pd, pd);
	memcpy(DEVX_ADDR_OF(create_encryption_key_obj_in, in, key_obj.key),
	       key, n);
	st = t_cmd(d, in, sizeof(create_encryption_key_obj_in),
		   general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr));
	*id = DEVX_GET(general_obj_out_cmd_hdr, general_obj_out_cmd_hdr, obj_id);
	return st;
}

static unsigned int login(struct smx_dev *d, const char *js)
{
	MB(create_crypto_login_obj_in) = { 0 };
	MB(general_obj_out_cmd_hdr) = { 0 };
	void *in = create_crypto_login_obj_in;
	uint8_t wcred[48];

	CHECK_EQ(be64_bytes(js, "credential", wcred, sizeof(wcred)), 48);
	DEVX_SET(general_obj_in_cmd_hdr, in, opcode,
		 MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	DEVX_SET(general_obj_in_cmd_hdr, in, obj_type,
		 MLX5_OBJ_TYPE_CRYPTO_LOGIN);
	DEVX_SET(create_crypto_login_obj_in, in, login_obj.credential_pointer,
		 (uint32_t)json_int(js, "credential_id"));
	DEVX_SET(create_crypto_login_obj_in, in,
		 login_obj.session_import_kek_ptr,
		 (uint32_t)json_int(js, "import_kek_id"));
	memcpy(DEVX_ADDR_OF(create_crypto_login_obj_in, in, login_obj.credential),
	       wcred, 48);
	return t_cmd(d, in, sizeof(create_crypto_login_obj_in),
		     general_obj_out_cmd_hdr, sizeof(general_obj_out_cmd_hdr));
}

/* The device's key for DEK @id, and its AES-XTS against the tool's data. */
static void check_dek(struct smx_dev *d, const char *js, uint32_t id,
		      const char *plain_name, bool check_data)
{
	uint8_t want[64], c[1024], ct[1024], out[1024], tweak[16] = { 0 };
	size_t kl = u32_bytes(js, plain_name, want, sizeof(want));
	struct fw *fw = smx_dev_fw(d);
	const struct fw_dek *k;
	struct fw_dek copy = { 0 };

	fw_lock(fw);
	k = fw_dek_lookup(fw, id);
	if (k)
		copy = *k;
	fw_unlock(fw);
	CHECK(k != NULL);
	CHECK_EQ(copy.key_len, kl);
	CHECKM(!memcmp(copy.key, want, kl), "%s", plain_name);
	if (!check_data)
		return;
	memset(c, 'c', sizeof(c));
	CHECK_EQ(be64_bytes(js, "encrypted_data_for_512_c", ct, 512), 512);
	CHECK_EQ(eng_xts_crypt(copy.key, copy.key_len, true, tweak, 0, 512, c,
			       out, 512), 0);
	CHECKM(!memcmp(out, ct, 512), "512 bytes of 'c'");
	CHECK_EQ(be64_bytes(js, "encrypted_data_for_1024_c", ct, 1024), 1024);
	CHECK_EQ(eng_xts_crypt(copy.key, copy.key_len, true, tweak, 0, 512, c,
			       out, 1024), 0);
	CHECKM(!memcmp(out, ct, 1024), "1024 bytes of 'c', two data units");
	CHECK_EQ(eng_xts_crypt(copy.key, copy.key_len, false, tweak, 0, 512, ct,
			       out, 1024), 0);
	CHECK(!memcmp(out, c, 1024));
}

static void test_mode(const char *mode)
{
	bool wrapped = !strcmp(mode, "wrapped");
	uint8_t key[80];
	uint32_t pd, k128, k256;
	struct smx_dev *d;
	unsigned int st;
	int status;
	char *js = run_tool(mode, NULL, &status);

	CHECKM(status == 0, "%s: exit status %d", mode, status);
	CHECK(strstr(js, wrapped ? "\"softmlx5_crypto_mode\": \"wrapped\"" :
				   "\"softmlx5_crypto_mode\": \"plaintext\""));
	d = t_open();
	CHECK(d != NULL);
	if (!d) {
		free(js);
		return;
	}
	pd = t_alloc(d, MLX5_CMD_OP_ALLOC_PD, 0, &st);
	if (wrapped) {
		CHECK_EQ(login(d, js), 0);
		CHECK_EQ(be64_bytes(js, "wrapped_key", key, sizeof(key)), 40);
		CHECK_EQ(dek(d, pd, 0, key, 40, &k128), 0);
		CHECK_EQ(be64_bytes(js, "wrapped_256_bits_key", key, sizeof(key)),
			 72);
		CHECK_EQ(dek(d, pd, 1, key, 72, &k256), 0);
	} else {
		CHECK_EQ(u32_bytes(js, "plaintext_key", key, sizeof(key)), 32);
		CHECK_EQ(dek(d, pd, 0, key, 32, &k128), 0);
		CHECK_EQ(u32_bytes(js, "plaintext_256_bits_key", key,
				   sizeof(key)), 64);
		CHECK_EQ(dek(d, pd, 1, key, 64, &k256), 0);
	}
	check_dek(d, js, k128, "plaintext_key", true);
	check_dek(d, js, k256, "plaintext_256_bits_key", false);
	smx_dev_close(d);
	free(js);
}

int main(int argc, char **argv)
{
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-TO-softmlx5\n", argv[0]);
		return 2;
	}
	tool = argv[1];
	/* Built-in defaults: the default test KEK and credential. */
	unsetenv("SOFTMLX5_CRYPTO_IMPORT_KEK");
	unsetenv("SOFTMLX5_CRYPTO_IMPORT_KEK_ID");
	unsetenv("SOFTMLX5_CRYPTO_CREDENTIAL");
	unsetenv("SOFTMLX5_CRYPTO_CREDENTIAL_ID");
	unsetenv("SOFTMLX5_CONFIG");
	setenv("XDG_CONFIG_HOME", "/nonexistent-softmlx5-test", 1);
	setenv("HOME", "/nonexistent-softmlx5-test", 1);
	test_mode("wrapped");
	test_mode("plaintext");
	/* Also with another KEK and ids: the tool follows the config. */
	setenv("SOFTMLX5_CRYPTO_IMPORT_KEK", "00112233445566778899aabbccddeeff", 1);
	setenv("SOFTMLX5_CRYPTO_IMPORT_KEK_ID", "5", 1);
	setenv("SOFTMLX5_CRYPTO_CREDENTIAL_ID", "0x77", 1);
	test_mode("wrapped");
	free(run_tool("off", NULL, &status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	free(run_tool("wrapped", "extra", &status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	return smx_test_done();
}
