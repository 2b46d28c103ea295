/* SPDX-License-Identifier: MIT */
/*
 * Engine internals in isolation: PSN arithmetic (24-bit wrap), the IB RNR
 * timer table, ACK timeouts, MTUs, mkey translation (PA, MTT over several
 * page sizes and scattered pages, MEMIC), key checks at the exact edges, the
 * rules of a remote request at its QP (eng_racc_op(): every operation on
 * every transport, each right, atomic alignment, the message size limit),
 * and the CQE writer (byte positions, owner bit across ring passes,
 * overrun).
 */
#include <string.h>

#include "device/engine/eng_loc.h"
#include "eng_test_util.h"

static struct t_env env;

static void test_psn(void)
{
	CHECK_EQ(eng_psn_add(0xffffff, 1), 0);
	CHECK_EQ(eng_psn_add(0xfffffe, 5), 3);
	CHECK_EQ(eng_psn_add(0x123, 0), 0x123);
	CHECK_EQ(eng_psn_diff(0, 0xffffff), 1);
	CHECK(eng_psn_diff(0xffffff, 0) == -1);
	CHECK_EQ(eng_psn_diff(5, 5), 0);
	CHECK(eng_psn_diff(0x10, 0x20) == -16);
	CHECK(eng_psn_diff(0x400000, 0) > 0);
	CHECK(eng_psn_diff(0x900000, 0) < 0);
}

static void test_timers(void)
{
	CHECK_EQ(eng_rnr_timer_ns(0), 655360000ull);
	CHECK_EQ(eng_rnr_timer_ns(1), 10000ull);
	CHECK_EQ(eng_rnr_timer_ns(12), 640000ull);
	CHECK_EQ(eng_rnr_timer_ns(14), 1280000ull);
	CHECK_EQ(eng_rnr_timer_ns(31), 491520000ull);
	CHECK_EQ(eng_ack_timeout_ns(0), UINT64_MAX);
	CHECK_EQ(eng_ack_timeout_ns(1), 8192ull);
	CHECK_EQ(eng_ack_timeout_ns(14), 4096ull << 14);
	CHECK_EQ(eng_mtu_bytes(MLX5_QPC_MTU_256_BYTES), 256);
	CHECK_EQ(eng_mtu_bytes(MLX5_QPC_MTU_1K_BYTES), 1024);
	CHECK_EQ(eng_mtu_bytes(MLX5_QPC_MTU_4K_BYTES), 4096);
}

static void test_xlate(void)
{
	uint8_t *mem = t_zalloc(8 << 16);	/* 512 KiB */
	uint8_t *base64k = (uint8_t *)(((uintptr_t)mem + 0xffff) & ~(uintptr_t)0xffff);
	uint64_t mtt[4], contig;
	struct fw_mkey mk;
	uint8_t *p;

	/* PA: identity. */
	memset(&mk, 0, sizeof(mk));
	mk.access_mode = MLX5_MKC_ACCESS_MODE_PA;
	mk.start = 0x1000;
	mk.len = 0x100;
	CHECK(eng_mkey_host(&mk, 0x1010, &contig) == (uint8_t *)0x1010);

	/* MTT, 4 KiB pages given in reverse order; start inside page 0. */
	mtt[0] = (uint64_t)(uintptr_t)(base64k + 3 * 4096);
	mtt[1] = (uint64_t)(uintptr_t)(base64k + 2 * 4096);
	mtt[2] = (uint64_t)(uintptr_t)(base64k + 1 * 4096);
	mtt[3] = (uint64_t)(uintptr_t)base64k;
	mk.access_mode = MLX5_MKC_ACCESS_MODE_MTT;
	mk.page_shift = 12;
	mk.start = 0x7000100;		/* virtual, not the host address */
	mk.len = 4 * 4096 - 0x100;
	mk.mtt = mtt;
	mk.nmtt = 4;
	p = eng_mkey_host(&mk, 0x7000100, &contig);
	CHECK(p == base64k + 3 * 4096 + 0x100);
	CHECK_EQ(contig, 4096 - 0x100);
	p = eng_mkey_host(&mk, 0x7001000, &contig);
	CHECK(p == base64k + 2 * 4096);
	CHECK_EQ(contig, 4096);
	p = eng_mkey_host(&mk, 0x7003fff, &contig);
	CHECK(p == base64k + 4095);
	CHECK_EQ(contig, 1);
	CHECK(eng_mkey_host(&mk, 0x7004000, &contig) == NULL);

	/* A copy across the scattered pages lands page by page. */
	{
		uint8_t src[8192];
		struct eng_sge ss = { src, NULL, 0, sizeof(src) };
		struct eng_sgl sl = { &ss, 1, sizeof(src) };
		struct eng_sge ds = { NULL, &mk, 0x7000f00, 8192 };
		struct eng_sgl dl = { &ds, 1, 8192 };
		unsigned int i;

		for (i = 0; i < sizeof(src); i++)
			src[i] = (uint8_t)(i * 3);
		CHECK_EQ(eng_sgl_copy(&dl, 0, &sl, 0, 8192), 8192);
		CHECK(!memcmp(base64k + 3 * 4096 + 0xf00, src, 0x100));
		CHECK(!memcmp(base64k + 2 * 4096, src + 0x100, 4096));
		CHECK(!memcmp(base64k + 1 * 4096, src + 0x1100, 8192 - 0x1100));
		CHECK_EQ(base64k[1 * 4096 + 8192 - 0x1100], 0);
	}

	/* MTT with 64 KiB pages. */
	mtt[0] = (uint64_t)(uintptr_t)(base64k + 65536);
	mtt[1] = (uint64_t)(uintptr_t)base64k;
	mk.page_shift = 16;
	mk.start = 0x40000000 + 0x8000;
	mk.len = 0x10000;
	mk.nmtt = 2;
	p = eng_mkey_host(&mk, 0x40000000 + 0x8000, &contig);
	CHECK(p == base64k + 65536 + 0x8000);
	CHECK_EQ(contig, 0x8000);
	p = eng_mkey_host(&mk, 0x40010004, &contig);
	CHECK(p == base64k + 4);
	CHECK_EQ(contig, 65536 - 4);

	/* MEMIC: device memory at start_addr, addressed zero-based. */
	mk.access_mode = MLX5_MKC_ACCESS_MODE_MEMIC;
	mk.memic = mem;
	mk.start = 0x200000;
	mk.len = 256;
	CHECK(eng_mkey_host(&mk, 0x10, &contig) == mem + 16);
	CHECK_EQ(contig, 240);
}

static void test_key_check(void)
{
	uint8_t *buf = t_zalloc(3 * 4096);
	uint32_t key = t_mkey(&env, env.pd, buf + 100, 5000, T_LR | T_LW | T_RR,
			      MLX5_MKC_ACCESS_MODE_MTT, 12, 7, false);
	struct eng *e = smx_dev_eng(env.d);
	struct fw *fw = smx_dev_fw(env.d);
	uint64_t va = (uint64_t)(uintptr_t)buf + 100;
	struct fw_mkey *mk;
	struct fw_pd *pd, *pd2;
	char why[200];

	CHECK(key != 0);
	fw_lock(fw);
	pd = fw_pd_lookup(fw, env.pd);
	pd2 = fw_pd_lookup(fw, env.pd2);
	CHECK_EQ(eng_key_check(e, key, pd, ENG_ACC_LW, va, 5000, &mk, why,
			       sizeof(why)), ENG_KEY_OK);
	CHECK_EQ(eng_key_check(e, key, pd, ENG_ACC_LR, va + 4999, 1, &mk, why,
			       sizeof(why)), ENG_KEY_OK);
	CHECK_EQ(eng_key_check(e, key, pd, ENG_ACC_LR, va, 5001, &mk, why,
			       sizeof(why)), ENG_KEY_BOUNDS);
	CHECK_EQ(eng_key_check(e, key, pd, ENG_ACC_LR, va - 1, 1, &mk, why,
			       sizeof(why)), ENG_KEY_BOUNDS);
	CHECK_EQ(eng_key_check(e, key, pd, ENG_ACC_LR, va + 5000, 0, &mk, why,
			       sizeof(why)), ENG_KEY_OK);
	CHECK_EQ(eng_key_check(e, key, pd, ENG_ACC_LR, va + 10, UINT64_MAX, &mk,
			       why, sizeof(why)), ENG_KEY_BOUNDS);
	CHECK_EQ(eng_key_check(e, key, pd, ENG_ACC_RW, va, 8, &mk, why,
			       sizeof(why)), ENG_KEY_RIGHTS);
	CHECK_EQ(eng_key_check(e, key, pd, ENG_ACC_A, va, 8, &mk, why,
			       sizeof(why)), ENG_KEY_RIGHTS);
	CHECK_EQ(eng_key_check(e, key, pd2, ENG_ACC_LR, va, 8, &mk, why,
			       sizeof(why)), ENG_KEY_PD);
	CHECK_EQ(eng_key_check(e, key ^ 1, pd, ENG_ACC_LR, va, 8, &mk, why,
			       sizeof(why)), ENG_KEY_INVALID);
	CHECK_EQ(eng_key_check(e, key + 0x100, pd, ENG_ACC_LR, va, 8, &mk, why,
			       sizeof(why)), ENG_KEY_INVALID);
	fw_unlock(fw);
}

static void test_cqe_writer(void)
{
	struct t_cq *cq = t_cq_create(&env, 2, 0);	/* 4 CQEs */
	struct fw *fw = smx_dev_fw(env.d);
	struct eng *e = smx_dev_eng(env.d);
	struct fw_cq *fcq;
	struct mlx5_cqe64 c;
	const uint8_t *raw;
	uint32_t i;

	CHECK(cq != NULL);
	for (i = 0; i < 11; i++) {
		struct eng_cqe in = {
			.opcode = i == 5 ? MLX5_CQE_REQ_ERR : MLX5_CQE_RESP_SEND_IMM,
			.syndrome = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
			.vendor_synd = 0x77,
			.sq_opcode = MLX5_OPCODE_RDMA_WRITE,
			.qpn = 0x123456,
			.wqe_counter = (uint16_t)(0xfff0 + i),
			.byte_cnt = 1000 + i,
			.imm_inval_pkey = htobe32(0xcafe0000 + i),
			.flags_rqpn = 1u << 28 | 0x654321,
			.srqn_uidx = 0x99,
		};
		bool ok;

		fw_lock(fw);
		fcq = fw_cq_lookup(fw, cq->cqn);
		ok = eng_cqe_post(e, fcq, &in);
		fw_unlock(fw);
		CHECK(ok);
		raw = cq->buf + (i & 3) * 64;
		/* Owner bit: pass number of the ring, starting at 0. */
		CHECK_EQ(raw[63] & 1, (i >> 2) & 1);
		CHECK(t_poll(cq, &c));
		if (i == 5) {
			CHECK_EQ(raw[63] >> 4, MLX5_CQE_REQ_ERR);
			CHECK_EQ(raw[55], MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
			CHECK_EQ(raw[54], 0x77);
			CHECK_EQ(raw[56], MLX5_OPCODE_RDMA_WRITE);
			CHECK_EQ(be32toh(*(const uint32_t *)(raw + 56)) & 0xffffff,
				 0x123456);
			CHECK_EQ(be32toh(*(const uint32_t *)(raw + 32)), 0x99);
		} else {
			CHECK_EQ(raw[63] >> 4, MLX5_CQE_RESP_SEND_IMM);
			CHECK_EQ(be32toh(*(const uint32_t *)(raw + 32)), 0x99);
			CHECK_EQ(be32toh(*(const uint32_t *)(raw + 36)),
				 0xcafe0000 + i);
			CHECK_EQ(be32toh(*(const uint32_t *)(raw + 44)), 1000 + i);
			CHECK_EQ(be32toh(*(const uint32_t *)(raw + 56)), 0x123456);
			CHECK_EQ(be32toh(*(const uint32_t *)(raw + 24)),
				 1u << 28 | 0x654321);
		}
		CHECK_EQ(be16toh(*(const uint16_t *)(raw + 60)), 0xfff0 + i);
	}
	/* Overrun: 4 unconsumed CQEs fill the CQ; the fifth is dropped. */
	for (i = 0; i < 5; i++) {
		struct eng_cqe in = { .opcode = MLX5_CQE_REQ, .qpn = 1 };
		bool ok;

		fw_lock(fw);
		ok = eng_cqe_post(e, fw_cq_lookup(fw, cq->cqn), &in);
		fw_unlock(fw);
		CHECK_EQ(ok, i < 4);
	}
}

/* eng_racc_op(): the one rule the responder and direct placement share. */
static void test_racc(void)
{
	static const uint8_t sts[] = { MLX5_QPC_ST_RC, MLX5_QPC_ST_UC,
				       MLX5_QPC_ST_UD, MLX5_QPC_ST_XRC,
				       FW_QP_ST_DCT };
	static const uint8_t right[] = { 0, ENG_ACC_RW, ENG_ACC_RR, ENG_ACC_A,
					 ENG_ACC_A };
	struct eng_racc a;
	char why[128];
	uint32_t i, op;

	for (i = 0; i < sizeof(sts); i++) {
		bool conn = sts[i] == MLX5_QPC_ST_RC ||
			    sts[i] == MLX5_QPC_ST_XRC || sts[i] == FW_QP_ST_DCT;

		for (op = ENG_PKT_SEND; op <= ENG_PKT_FETCH_ADD; op++) {
			bool legal = op == ENG_PKT_SEND ||
				     (op == ENG_PKT_WRITE ?
				      sts[i] != MLX5_QPC_ST_UD : conn);

			a.st = sts[i];
			a.log_msg = 0;
			/* every right: legal operations pass */
			a.acc = ENG_ACC_RW | ENG_ACC_RR | ENG_ACC_A;
			CHECK_EQ(eng_racc_op(&a, 7, (uint8_t)op, 0x1000, 8, why,
					     sizeof(why)),
				 legal ? ENG_RACC_OK : ENG_RACC_INV_REQ);
			if (!legal || !right[op])
				continue;
			/* all but the one it needs: a remote access error */
			a.acc = (uint8_t)(ENG_ACC_RW | ENG_ACC_RR | ENG_ACC_A) &
				(uint8_t)~right[op];
			CHECK_EQ(eng_racc_op(&a, 7, (uint8_t)op, 0x1000, 8, why,
					     sizeof(why)), ENG_RACC_ACCESS);
			CHECK(strstr(why, "qp 0x7 does not allow") != NULL);
		}
	}
	a.st = MLX5_QPC_ST_RC;
	a.acc = ENG_ACC_RW | ENG_ACC_RR | ENG_ACC_A;
	a.log_msg = 12;
	/* atomics at 8-byte aligned addresses only */
	CHECK_EQ(eng_racc_op(&a, 7, ENG_PKT_FETCH_ADD, 0x1004, 8, NULL, 0),
		 ENG_RACC_INV_REQ);
	CHECK_EQ(eng_racc_op(&a, 7, ENG_PKT_CMP_SWAP, 0x1008, 8, NULL, 0),
		 ENG_RACC_OK);
	/* 2^log_msg_max bytes and no more; 0: no limit */
	CHECK_EQ(eng_racc_op(&a, 7, ENG_PKT_WRITE, 0, 4096, NULL, 0),
		 ENG_RACC_OK);
	CHECK_EQ(eng_racc_op(&a, 7, ENG_PKT_READ, 0, 4097, NULL, 0),
		 ENG_RACC_INV_REQ);
	a.log_msg = 0;
	CHECK_EQ(eng_racc_op(&a, 7, ENG_PKT_READ, 0, 1ull << 31, NULL, 0),
		 ENG_RACC_OK);
	/* UD: a message above the 4 KiB MTU is dropped */
	a.st = MLX5_QPC_ST_UD;
	CHECK_EQ(eng_racc_op(&a, 7, ENG_PKT_SEND, 0, 4096, NULL, 0),
		 ENG_RACC_OK);
	CHECK_EQ(eng_racc_op(&a, 7, ENG_PKT_SEND, 0, 4097, NULL, 0),
		 ENG_RACC_DROP);
	/* ranges: the key's edges */
	CHECK(eng_key_inside(0x1000, 0x100, 0x1000, 0x100));
	CHECK(eng_key_inside(0x1000, 0x100, 0x1100, 0));
	CHECK(!eng_key_inside(0x1000, 0x100, 0x10ff, 2));
	CHECK(!eng_key_inside(0x1000, 0x100, 0xfff, 1));
	CHECK(!eng_key_inside(0x1000, 0x100, 0x1101, 0));
}

int main(void)
{
	t_env_open(&env);
	test_psn();
	test_timers();
	test_xlate();
	test_key_check();
	test_racc();
	test_cqe_writer();
	smx_dev_close(env.d);
	t_free_all();
	return smx_test_done();
}
