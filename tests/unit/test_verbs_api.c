/* SPDX-License-Identifier: MIT */
/*
 * libibverbs + libmlx5 against the software device, through the public API
 * only: device presentation, queries, and every control-path object with
 * good and hostile arguments. Expected values come from the verbs contract
 * and the device's defaults (man 7 softmlx5), not from our headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "smx_test.h"

/* CHECK with a printf-style explanation; @cond is evaluated once. */
static struct ibv_context *open_dev(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n = -1;

	list = ibv_get_device_list(&n);
	CHECKM(list != NULL && n == 1, "device list %p, %d devices", (void *)list, n);
	if (!list || n < 1)
		exit(1);
	CHECKM(!strcmp(ibv_get_device_name(list[0]), "mlx5_0"), "name %s",
	      ibv_get_device_name(list[0]));
	CHECKM(ibv_get_device_guid(list[0]) != 0, "node guid is zero");
	CHECKM(mlx5dv_is_supported(list[0]), "mlx5dv_is_supported false");
	ctx = ibv_open_device(list[0]);
	CHECKM(ctx != NULL, "open: %s", strerror(errno));
	ibv_free_device_list(list);
	if (!ctx)
		exit(1);
	return ctx;
}

static void test_queries(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex ex;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	struct ibv_gid_entry ent, table[4];
	union ibv_gid gid;
	__be16 pkey;
	ssize_t n;

	CHECKM(!ibv_query_device(ctx, &attr), "query_device");
	CHECKM(attr.vendor_id == 0x02c9, "vendor 0x%x", attr.vendor_id);
	CHECKM(attr.vendor_part_id == 0x1021, "part 0x%x", attr.vendor_part_id);
	CHECKM(strstr(attr.fw_ver, "softmlx5") != NULL, "fw_ver %s", attr.fw_ver);
	CHECKM(attr.node_guid && attr.sys_image_guid, "guids zero");
	CHECKM(attr.max_qp > 0 && attr.max_qp_wr > 0 && attr.max_sge > 0 &&
	      attr.max_cq > 0 && attr.max_cqe > 0 && attr.max_mr > 0 &&
	      attr.max_pd > 0 && attr.max_pkeys > 0, "a zero limit");
	CHECKM(attr.phys_port_cnt == 1, "ports %d", attr.phys_port_cnt);
	CHECKM(attr.max_mr_size > 4096 && attr.page_size_cap >= 4096, "mr caps");

	CHECKM(!ibv_query_device_ex(ctx, NULL, &ex), "query_device_ex");
	CHECKM(ex.phys_port_cnt_ex == attr.phys_port_cnt, "phys_port_cnt_ex %u",
	      ex.phys_port_cnt_ex);
	CHECKM(ex.max_dm_size > 0, "max_dm_size 0");

	CHECKM(!ibv_query_port(ctx, 1, &port), "query_port 1");
	CHECKM(port.state == IBV_PORT_ACTIVE, "state %d", port.state);
	CHECKM(port.link_layer == IBV_LINK_LAYER_ETHERNET, "link %d", port.link_layer);
	CHECKM(port.max_msg_sz > 0x1000, "max_msg_sz %u", port.max_msg_sz);
	CHECKM(port.gid_tbl_len >= 2, "gid_tbl_len %d", port.gid_tbl_len);
	CHECKM(port.active_mtu >= IBV_MTU_256 && port.active_mtu <= IBV_MTU_4096,
	      "mtu %d", port.active_mtu);
	CHECKM(ibv_query_port(ctx, 2, &port) == EINVAL, "port 2 must be EINVAL");
	CHECKM(ibv_query_port(ctx, 0, &port) == EINVAL, "port 0 must be EINVAL");

	CHECKM(!ibv_query_gid(ctx, 1, 0, &gid), "query_gid 0");
	CHECKM(gid.raw[10] == 0xff && gid.raw[11] == 0xff && gid.raw[12] == 192 &&
	      gid.raw[13] == 0 && gid.raw[14] == 2 && gid.raw[15] == 1,
	      "gid 0 is not ::ffff:192.0.2.1");
	CHECKM(!ibv_query_gid(ctx, 1, 1, &gid) && !gid.global.interface_id,
	      "empty slot must read as the zero GID");
	CHECKM(!ibv_query_gid_ex(ctx, 1, 0, &ent, 0) && ent.gid_type == IBV_GID_TYPE_ROCE_V2,
	      "gid_ex 0 type %u", ent.gid_type);
	CHECKM(ibv_query_gid_ex(ctx, 1, 1, &ent, 0) == ENODATA, "empty gid_ex must be ENODATA");
	CHECKM(ibv_query_gid_ex(ctx, 1, 0, &ent, 1) == EINVAL, "flags must be EINVAL");
	n = ibv_query_gid_table(ctx, table, 4, 0);
	CHECKM(n == 1, "gid table has %zd entries", n);
	CHECKM(ibv_query_gid_table(ctx, table, 0, 0) == -EINVAL, "too small a table");
	CHECKM(!ibv_query_pkey(ctx, 1, 0, &pkey) && pkey == htobe16(0xffff), "pkey 0x%x",
	      be16toh(pkey));
	CHECKM(ibv_query_pkey(ctx, 1, 1, &pkey) != 0, "pkey index 1 must fail");
	CHECKM(ibv_get_pkey_index(ctx, 1, htobe16(0xffff)) == 0, "pkey index of 0xffff");
}

static void test_pd_mr(struct ibv_context *ctx)
{
	struct ibv_pd *pds[200];
	struct ibv_mr *mr;
	char *buf = aligned_alloc(4096, 3 * 4096);
	int i, ok = 1;

	for (i = 0; i < 200; i++) {
		pds[i] = ibv_alloc_pd(ctx);
		ok &= pds[i] != NULL;
	}
	CHECKM(ok, "200 PDs");
	for (i = 1; i < 200; i++)
		ok &= pds[i] && !ibv_dealloc_pd(pds[i]);
	CHECKM(ok, "dealloc 199 PDs");

	mr = ibv_reg_mr(pds[0], buf + 100, 8000, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECKM(mr && mr->lkey == mr->rkey && mr->addr == buf + 100 && mr->length == 8000,
	      "reg_mr: %s", strerror(errno));
	CHECKM(ibv_dealloc_pd(pds[0]) == EBUSY || ibv_dealloc_pd(pds[0]) != 0,
	      "a PD with an MR must not go away");
	CHECKM(mr && !ibv_dereg_mr(mr), "dereg_mr");

	errno = 0;
	CHECKM(!ibv_reg_mr(pds[0], buf, 4096, IBV_ACCESS_REMOTE_WRITE) && errno == EINVAL,
	      "REMOTE_WRITE without LOCAL_WRITE: errno %d", errno);
	errno = 0;
	CHECKM(!ibv_reg_mr(pds[0], buf, 4096, IBV_ACCESS_REMOTE_ATOMIC) && errno == EINVAL,
	      "REMOTE_ATOMIC without LOCAL_WRITE: errno %d", errno);
	errno = 0;
	CHECKM(!ibv_reg_mr(pds[0], buf, 0, IBV_ACCESS_LOCAL_WRITE) && errno == EINVAL,
	      "zero length: errno %d", errno);
	errno = 0;
	CHECKM(!ibv_reg_mr(pds[0], buf, 4096, 1 << 30) && errno == EINVAL,
	      "unknown access bit: errno %d", errno);
	CHECKM(!ibv_dealloc_pd(pds[0]), "dealloc last PD");
	free(buf);
}

static void test_dm(struct ibv_context *ctx)
{
	struct ibv_alloc_dm_attr a = { .length = 4096 };
	struct ibv_device_attr_ex ex;
	char in[64] = "softmlx5 device memory", out[64] = "";
	struct ibv_dm *dm;
	struct ibv_pd *pd;
	struct ibv_mr *mr;

	ibv_query_device_ex(ctx, NULL, &ex);
	dm = ibv_alloc_dm(ctx, &a);
	CHECKM(dm != NULL, "alloc_dm: %s", strerror(errno));
	if (!dm)
		return;
	CHECKM(!ibv_memcpy_to_dm(dm, 100, in, sizeof(in)), "memcpy_to_dm");
	CHECKM(!ibv_memcpy_from_dm(out, dm, 100, sizeof(out)) && !memcmp(in, out, sizeof(in)),
	      "DM round trip");
	CHECKM(ibv_memcpy_to_dm(dm, 4096 - 8, in, 16) == EFAULT, "write past the end");
	CHECKM(ibv_memcpy_from_dm(out, dm, 1ull << 40, 4) == EFAULT, "read far past the end");
	CHECKM(ibv_memcpy_to_dm(dm, 101, in, 8) == EINVAL, "unaligned offset");
	CHECKM(ibv_memcpy_from_dm(out, dm, 100, 6) == EINVAL, "unaligned length");
	pd = ibv_alloc_pd(ctx);
	mr = ibv_reg_dm_mr(pd, dm, 0, 4096, IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE);
	CHECKM(mr != NULL, "reg_dm_mr: %s", strerror(errno));
	errno = 0;
	CHECKM(!ibv_reg_dm_mr(pd, dm, 0, 4096, IBV_ACCESS_LOCAL_WRITE) && errno == EINVAL,
	      "reg_dm_mr without ZERO_BASED");
	CHECKM(!ibv_reg_dm_mr(pd, dm, 4000, 200, IBV_ACCESS_ZERO_BASED), "range past DM");
	if (mr)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	CHECKM(!ibv_free_dm(dm), "free_dm");

	a.length = ex.max_dm_size + 1;
	CHECKM(!ibv_alloc_dm(ctx, &a), "DM larger than max_dm_size");
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type t,
			      uint32_t wr, uint32_t sge)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = t,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr, .max_send_sge = sge,
			 .max_recv_sge = sge, .max_inline_data = 64 },
	};

	return ibv_create_qp(pd, &a);
}

static void test_qp_states(struct ibv_context *ctx)
{
	struct ibv_qp_init_attr init;
	struct ibv_port_attr port;
	struct ibv_qp_attr qa, got;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	struct ibv_qp *qp, *ud;
	union ibv_gid gid;

	CHECKM(pd && cq, "pd/cq");
	ibv_query_port(ctx, 1, &port);
	ibv_query_gid(ctx, 1, 0, &gid);

	qp = make_qp(pd, cq, IBV_QPT_RC, 16, 2);
	CHECKM(qp && qp->state == IBV_QPS_RESET && qp->qp_num, "create RC: %s", strerror(errno));
	if (!qp)
		return;
	CHECKM(ibv_destroy_cq(cq) != 0, "a CQ in use by a QP must not be destroyed");

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	CHECKM(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT) == EINVAL,
	      "RST->INIT without access/pkey must be EINVAL");
	qa.qp_state = IBV_QPS_RTR;
	CHECKM(ibv_modify_qp(qp, &qa, IBV_QP_STATE) == EINVAL, "RST->RTR must be EINVAL");

	qa.qp_state = IBV_QPS_INIT;
	qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	CHECKM(!ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX |
			     IBV_QP_ACCESS_FLAGS), "RST->INIT");
	CHECKM(qp->state == IBV_QPS_INIT, "state %d", qp->state);

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = IBV_MTU_1024;
	qa.dest_qp_num = qp->qp_num;
	qa.rq_psn = 0x123456;
	qa.max_dest_rd_atomic = 4;
	qa.min_rnr_timer = 12;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.grh.dgid = gid;
	qa.ah_attr.grh.hop_limit = 64;
	qa.ah_attr.port_num = 1;
	CHECKM(!ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER), "INIT->RTR: %s", strerror(errno));

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 0x654321;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 2;
	CHECKM(!ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC),
	      "RTR->RTS: %s", strerror(errno));

	CHECKM(!ibv_query_qp(qp, &got, IBV_QP_STATE | IBV_QP_CAP, &init), "query_qp");
	CHECKM(got.qp_state == IBV_QPS_RTS, "queried state %d", got.qp_state);
	CHECKM(got.sq_psn == 0x654321 && got.rq_psn == 0x123456, "psns %x %x", got.sq_psn,
	      got.rq_psn);
	CHECKM(got.dest_qp_num == qp->qp_num && got.path_mtu == IBV_MTU_1024,
	      "dest %u mtu %d", got.dest_qp_num, got.path_mtu);
	CHECKM(got.timeout == 14 && got.retry_cnt == 7 && got.rnr_retry == 7 &&
	      got.min_rnr_timer == 12, "timers %u %u %u %u", got.timeout, got.retry_cnt,
	      got.rnr_retry, got.min_rnr_timer);
	CHECKM(got.max_rd_atomic == 2 && got.max_dest_rd_atomic == 4, "rd atomic %u %u",
	      got.max_rd_atomic, got.max_dest_rd_atomic);
	CHECKM(got.qp_access_flags == (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ),
	      "access 0x%x", got.qp_access_flags);
	CHECKM(!memcmp(got.ah_attr.grh.dgid.raw, gid.raw, 16) && got.ah_attr.grh.hop_limit == 64,
	      "address path");
	CHECKM(init.cap.max_send_wr >= 16 && init.cap.max_recv_wr >= 16 &&
	      init.cap.max_send_sge >= 2 && init.cap.max_inline_data >= 64, "caps");

	qa.qp_state = IBV_QPS_SQD;
	CHECKM(!ibv_modify_qp(qp, &qa, IBV_QP_STATE), "RTS->SQD");
	qa.qp_state = IBV_QPS_RTS;
	CHECKM(!ibv_modify_qp(qp, &qa, IBV_QP_STATE), "SQD->RTS");
	qa.qp_state = IBV_QPS_ERR;
	CHECKM(!ibv_modify_qp(qp, &qa, IBV_QP_STATE), "RTS->ERR");
	qa.qp_state = IBV_QPS_RTS;
	CHECKM(ibv_modify_qp(qp, &qa, IBV_QP_STATE) == EINVAL, "ERR->RTS must be EINVAL");
	qa.qp_state = IBV_QPS_RESET;
	CHECKM(!ibv_modify_qp(qp, &qa, IBV_QP_STATE), "ERR->RESET");
	CHECKM(!ibv_query_qp(qp, &got, IBV_QP_STATE, &init) && got.qp_state == IBV_QPS_RESET,
	      "queried RESET");
	CHECKM(!ibv_destroy_qp(qp), "destroy RC");

	/* UD: qkey and sq_psn come back from the firmware. */
	ud = make_qp(pd, cq, IBV_QPT_UD, 8, 1);
	CHECKM(ud != NULL, "create UD: %s", strerror(errno));
	if (ud) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_INIT;
		qa.port_num = 1;
		qa.qkey = 0x11111111;
		CHECKM(!ibv_modify_qp(ud, &qa, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX |
				     IBV_QP_QKEY), "UD RST->INIT");
		qa.qp_state = IBV_QPS_RTR;
		CHECKM(!ibv_modify_qp(ud, &qa, IBV_QP_STATE), "UD INIT->RTR");
		qa.qp_state = IBV_QPS_RTS;
		qa.sq_psn = 77;
		CHECKM(!ibv_modify_qp(ud, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN), "UD RTR->RTS");
		CHECKM(!ibv_query_qp(ud, &got, IBV_QP_QKEY | IBV_QP_SQ_PSN, &init) &&
		      got.qkey == 0x11111111 && got.sq_psn == 77, "UD qkey/psn");
		CHECKM(!ibv_destroy_qp(ud), "destroy UD");
	}

	/* Hostile capabilities. */
	errno = 0;
	CHECKM(!make_qp(pd, cq, IBV_QPT_UD, 0xffffffff, 1) && errno, "max_send_wr 2^32-1");
	errno = 0;
	CHECKM(!make_qp(pd, cq, IBV_QPT_RC, 8, 0xffff) && errno, "max_sge 0xffff");
	/* Raw packet QPs exist on the Ethernet port (test_raw_qp.c). */
	qp = make_qp(pd, cq, IBV_QPT_RAW_PACKET, 8, 1);
	CHECKM(qp && qp->qp_type == IBV_QPT_RAW_PACKET, "raw packet: errno %d", errno);
	if (qp)
		CHECKM(!ibv_destroy_qp(qp), "destroy raw packet QP");
	{
		struct ibv_qp_init_attr a = { .send_cq = NULL, .recv_cq = cq,
					      .qp_type = IBV_QPT_RC,
					      .cap = { .max_send_wr = 1, .max_recv_wr = 1 } };
		errno = 0;
		CHECKM(!ibv_create_qp(pd, &a) && errno == EINVAL, "no send CQ");
	}
	CHECKM(!ibv_destroy_cq(cq), "destroy CQ");
	CHECKM(!ibv_dealloc_pd(pd), "dealloc PD");
}

static void test_cq_channel_ah(struct ibv_context *ctx)
{
	struct ibv_device_attr attr;
	struct ibv_comp_channel *ch;
	struct ibv_ah_attr ah = { .port_num = 1 };
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_ah *h;

	ibv_query_device(ctx, &attr);
	errno = 0;
	CHECKM(!ibv_create_cq(ctx, attr.max_cqe + 1, NULL, NULL, 0) && errno == EINVAL,
	      "cqe > max_cqe: errno %d", errno);
	errno = 0;
	CHECKM(!ibv_create_cq(ctx, 1, NULL, NULL, ctx->num_comp_vectors) && errno == EINVAL,
	      "comp_vector out of range: errno %d", errno);
	cq = ibv_create_cq(ctx, attr.max_cqe, NULL, NULL, 0);
	CHECKM(cq && cq->cqe >= attr.max_cqe, "max-size CQ");
	if (cq)
		ibv_destroy_cq(cq);

	ch = ibv_create_comp_channel(ctx);
	CHECKM(ch && ch->fd >= 0 && fcntl(ch->fd, F_GETFD) >= 0, "comp channel fd");
	cq = ibv_create_cq(ctx, 8, NULL, ch, 0);
	CHECKM(cq && cq->channel == ch, "CQ on a channel");
	CHECKM(ibv_destroy_comp_channel(ch) == EBUSY, "busy channel");
	CHECKM(!ibv_req_notify_cq(cq, 0), "arm");
	CHECKM(!ibv_destroy_cq(cq) && !ibv_destroy_comp_channel(ch), "teardown");

	pd = ibv_alloc_pd(ctx);
	errno = 0;
	CHECKM(!ibv_create_ah(pd, &ah) && errno == EINVAL, "RoCE AH without GRH");
	ah.is_global = 1;
	ibv_query_gid(ctx, 1, 0, &ah.grh.dgid);
	h = ibv_create_ah(pd, &ah);
	CHECKM(h != NULL, "RoCE AH: %s", strerror(errno));
	if (h)
		CHECKM(!ibv_destroy_ah(h), "destroy AH");
	ah.port_num = 9;
	CHECKM(!ibv_create_ah(pd, &ah), "AH on port 9");
	ibv_dealloc_pd(pd);
}

static void test_import(struct ibv_context *ctx)
{
	char buf[64] = "shared";
	struct ibv_context *ictx;
	struct ibv_pd *pd, *ipd;
	struct ibv_mr *mr, *imr;

	pd = ibv_alloc_pd(ctx);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ictx = ibv_import_device(dup(ctx->cmd_fd));
	CHECKM(ictx != NULL, "import_device: %s", strerror(errno));
	if (!ictx)
		return;
	ipd = ibv_import_pd(ictx, pd->handle);
	CHECKM(ipd != NULL, "import_pd: %s", strerror(errno));
	imr = ipd ? ibv_import_mr(ipd, mr->handle) : NULL;
	CHECKM(imr && imr->lkey == mr->lkey && imr->addr == mr->addr &&
	      imr->length == mr->length, "import_mr");
	errno = 0;
	CHECKM(!ibv_import_pd(ictx, 123456) && errno, "import of a bogus handle");
	if (imr)
		ibv_unimport_mr(imr);
	if (ipd)
		ibv_unimport_pd(ipd);
	CHECKM(!ibv_close_device(ictx), "close imported context");
	int fd = open("/dev/null", O_RDONLY);
	errno = 0;
	CHECKM(!ibv_import_device(fd) && errno, "import of a non-device fd");
	close(fd);
	CHECKM(!ibv_dereg_mr(mr) && !ibv_dealloc_pd(pd), "originals still work");
}

/* Entry points added with the data path, fed hostile arguments. */
static void test_hostile_extras(struct ibv_context *ctx)
{
	struct ibv_parent_domain_init_attr pda = {};
	struct ibv_td_init_attr tda = { .comp_mask = 1 };
	char buf[4096] __attribute__((aligned(4096)));
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *par;
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_mr *mr, *odp;
	struct ibv_td *td;
	struct ibv_mw *mw;

	errno = 0;
	CHECKM(!ibv_alloc_mw(pd, 3) && errno == EINVAL, "MW type 3: errno %d", errno);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	CHECKM(mw && !ibv_dealloc_mw(mw), "MW type 2 alloc/dealloc");

	CHECKM(ibv_resize_cq(cq, 0) == EINVAL, "resize to 0");
	CHECKM(ibv_resize_cq(cq, 1 << 30) == EINVAL, "resize beyond max_cqe");
	CHECKM(!ibv_resize_cq(cq, 64) && cq->cqe >= 64, "resize up");

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	CHECKM(mr != NULL, "reg_mr");
	CHECKM(ibv_rereg_mr(mr, 1 << 5, NULL, NULL, 0, 0) == IBV_REREG_MR_ERR_INPUT,
	       "rereg with an unknown flag");
	CHECKM(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 0, 0) ==
	       IBV_REREG_MR_ERR_INPUT, "rereg translation without addr/len");
	CHECKM(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			    IBV_ACCESS_REMOTE_WRITE) == IBV_REREG_MR_ERR_CMD,
	       "rereg to remote write without local write");
	{
		uint32_t key = mr->lkey;

		CHECKM(!ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) &&
		       mr->lkey == key, "rereg access keeps the key");
	}
	CHECKM(ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1) == EINVAL,
	       "advise on a non-ODP MR");
	odp = ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	CHECKM(odp != NULL, "implicit ODP MR: %s", strerror(errno));
	if (odp) {
		sge.lkey = odp->lkey;
		CHECKM(!ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				      IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1), "advise on ODP");
		CHECKM(ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 0) == EINVAL,
		       "advise with no SGE");
		CHECKM(!ibv_dereg_mr(odp), "dereg implicit ODP");
	}
	errno = 0;
	CHECKM(!ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE) && errno == EINVAL,
	       "implicit MR without ON_DEMAND");

	errno = 0;
	CHECKM(!ibv_alloc_td(ctx, &tda) && errno == EINVAL, "TD with comp_mask");
	tda.comp_mask = 0;
	td = ibv_alloc_td(ctx, &tda);
	CHECKM(td != NULL, "TD");
	errno = 0;
	CHECKM(!ibv_alloc_parent_domain(ctx, &pda) && errno == EINVAL, "parent without PD");
	pda.pd = pd;
	pda.td = td;
	par = ibv_alloc_parent_domain(ctx, &pda);
	CHECKM(par != NULL, "parent domain");
	CHECKM(ibv_dealloc_pd(pd) == EBUSY, "a PD under a parent domain stays");
	CHECKM(ibv_dealloc_td(td) == EBUSY, "a TD under a parent domain stays");
	CHECKM(par && !ibv_dealloc_pd(par), "dealloc parent domain");
	CHECKM(!ibv_dealloc_td(td), "dealloc TD");
	CHECKM(!ibv_dereg_mr(mr) && !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd), "teardown");
}

int main(void)
{
	struct ibv_context *ctx = open_dev();

	test_queries(ctx);
	test_pd_mr(ctx);
	test_dm(ctx);
	test_qp_states(ctx);
	test_cq_channel_ah(ctx);
	test_import(ctx);
	test_hostile_extras(ctx);
	CHECKM(!ibv_close_device(ctx), "close");
	return smx_test_done();
}
