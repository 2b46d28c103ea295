/* SPDX-License-Identifier: MIT */
/*
 * Provider registration, the mlx5_0 device and its contexts.
 *
 * Opening a context does what the kernel does for a new uverbs file on real
 * mlx5 hardware: CREATE_UCTX for a DEVX user id, ALLOC_UAR for the doorbell
 * page, ALLOC_TRANSPORT_DOMAIN, and QUERY_HCA_CAP for the capabilities every
 * later verb is checked against. The first context also brings the device
 * instance up; the last one's end takes it down (mdev_get / mdev_put).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlx5/devx.h"
#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

static pthread_mutex_t uctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mlx5_ucontext *uctx_list;

static const struct verbs_context_ops mlx5_ctx_ops;
static const struct verbs_device_ops mlx5_dev_ops;

/* ---- device ---- */

/* The list entry: names and GUID from the configuration, no instance. */
static struct verbs_device *mlx5_device_alloc(struct verbs_sysfs_dev *unused)
{
	struct mlx5_device *mdev;
	struct smx_config cfg;

	if (smx_config_load(&cfg))
		return NULL;	/* the loader said why, in one line */
	mdev = calloc(1, sizeof(*mdev));
	if (!mdev)
		return NULL;
	pthread_mutex_init(&mdev->lock, NULL);
	mlx5_table_init(&mdev->qps);
	mlx5_table_init(&mdev->srqs);
	mlx5_table_init(&mdev->cqs);
	mlx5_table_init(&mdev->mkeys);
	mlx5_table_init(&mdev->uidx);
	pthread_mutex_init(&mdev->steer_lock, NULL);
	mdev->vdev.device.node_type = IBV_NODE_CA;
	mdev->vdev.device.transport_type = IBV_TRANSPORT_IB;
	snprintf(mdev->vdev.device.name, sizeof(mdev->vdev.device.name), "%s",
		 cfg.dev_name);
	snprintf(mdev->vdev.device.dev_name, sizeof(mdev->vdev.device.dev_name),
		 "uverbs0");
	snprintf(mdev->vdev.device.dev_path, sizeof(mdev->vdev.device.dev_path),
		 "/sys/class/infiniband_verbs/uverbs0");
	snprintf(mdev->vdev.device.ibdev_path, sizeof(mdev->vdev.device.ibdev_path),
		 "/sys/class/infiniband/%s", cfg.dev_name);
	mdev->vdev.node_guid = htobe64(cfg.node_guid);
	return &mdev->vdev;
}

static void mlx5_device_uninit(struct verbs_device *vdev)
{
	struct mlx5_device *mdev = SMX_CONTAINER_OF(vdev, struct mlx5_device, vdev);

	/* A user context left (a DEK holds one) still needs it. */
	if (mdev->users)
		return;
	pthread_mutex_destroy(&mdev->steer_lock);
	pthread_mutex_destroy(&mdev->lock);
	free(mdev);
}

/*
 * The device instance (BAR, firmware, shared-memory slot, engine threads)
 * is open exactly while user contexts exist: the first opens it, the last
 * one's end closes it, so that after the last ibv_close_device nothing of
 * the device stays in the process, as with the kernel's driver. A later
 * open gets a new instance (new slot, new numbers).
 */
static struct smx_dev *mdev_get(struct mlx5_device *mdev)
{
	struct smx_dev *hca;

	pthread_mutex_lock(&mdev->lock);
	if (!mdev->users) {
		mdev->hca = smx_dev_open();
		if (mdev->hca)
			mdev->gen++;
	}
	hca = mdev->hca;
	if (hca)
		mdev->users++;
	pthread_mutex_unlock(&mdev->lock);
	if (!hca) {
		smx_err("cannot bring up the software HCA");
		errno = ENODEV;
	}
	return hca;
}

/* The last user gone: what the provider made on the instance goes first
 * (UMR QP before the EQs, its CQ is on one), then the instance. */
static void mdev_release(struct mlx5_device *mdev)
{
	/* In a fork child the instance and all made on it are the parent's;
	 * their rings are not even here (MADV_DONTFORK): just let go. */
	if (!smx_dev_owned(mdev->hca)) {
		smx_dev_close(mdev->hca);
		mdev->hca = NULL;
		return;
	}
	mlx5_umr_free(mdev);
	pthread_mutex_lock(&mdev->steer_lock);
	mlx5_steer_free(mdev);
	pthread_mutex_unlock(&mdev->steer_lock);
	mlx5_pp_table_free(mdev);
	mlx5_eq_destroy(mdev);
	smx_dev_close(mdev->hca);
	mdev->hca = NULL;
	mlx5_eq_free_rings(mdev);
	/* Objects the application left open are its leak; their numbers
	 * must not find them once a new instance reuses them. */
	mlx5_table_clear(&mdev->qps);
	mlx5_table_clear(&mdev->srqs);
	mlx5_table_clear(&mdev->cqs);
	mlx5_table_clear(&mdev->mkeys);
	mlx5_table_clear(&mdev->uidx);
	mlx5_xrcd_forget();
}

static void mdev_put(struct mlx5_device *mdev)
{
	pthread_mutex_lock(&mdev->lock);
	if (!--mdev->users)
		mdev_release(mdev);
	pthread_mutex_unlock(&mdev->lock);
}

/* ---- ucontext: CREATE_UCTX / DESTROY_UCTX, shared by importers ---- */

static int ucontext_create_uid(struct smx_dev *hca, uint16_t *uid)
{
	uint32_t in[DEVX_ST_SZ_DW(create_uctx_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(general_obj_out_cmd_hdr)] = {};
	int ret;

	DEVX_SET(create_uctx_in, in, opcode, MLX5_CMD_OP_CREATE_UCTX);
	/* cap bit 0: raw packet TX allowed (MLX5_UCTX_CAP_RAW_TX) */
	DEVX_SET(create_uctx_in, in, uctx.cap, 1);
	ret = mlx5_cmd_exec_hca(hca, 0, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	*uid = (uint16_t)DEVX_GET(general_obj_out_cmd_hdr, out, obj_id);
	return 0;
}

static void ucontext_destroy_uid(struct smx_dev *hca, uint16_t uid)
{
	uint32_t in[DEVX_ST_SZ_DW(destroy_uctx_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(destroy_uctx_in, in, opcode, MLX5_CMD_OP_DESTROY_UCTX);
	DEVX_SET(destroy_uctx_in, in, uid, uid);
	mlx5_cmd_exec_hca(hca, 0, in, sizeof(in), out, sizeof(out));
}

/* A new user context; it holds the device instance open (mdev_get). */
static struct mlx5_ucontext *ucontext_new(struct mlx5_device *mdev, int cmd_fd)
{
	struct mlx5_ucontext *u;
	struct stat st;

	if (fstat(cmd_fd, &st))
		return NULL;
	u = calloc(1, sizeof(*u));
	if (!u) {
		errno = ENOMEM;
		return NULL;
	}
	u->mdev = mdev;
	u->hca = mdev_get(mdev);
	if (!u->hca) {
		free(u);
		return NULL;
	}
	u->cmd_dev = st.st_dev;
	u->cmd_ino = st.st_ino;
	atomic_store(&u->refcount, 1);
	pthread_mutex_init(&u->lock, NULL);
	errno = ucontext_create_uid(u->hca, &u->uid);
	if (errno) {
		int err = errno;

		pthread_mutex_destroy(&u->lock);
		mdev_put(mdev);
		free(u);
		errno = err;
		return NULL;
	}
	pthread_mutex_lock(&uctx_lock);
	u->next = uctx_list;
	uctx_list = u;
	pthread_mutex_unlock(&uctx_lock);
	return u;
}

/* The ucontext behind a (dup of a) cmd_fd on @hca, with a reference, or
 * NULL. (A fork child's inherited ones live on the parent's instance.) */
static struct mlx5_ucontext *ucontext_find(struct smx_dev *hca, int cmd_fd)
{
	struct mlx5_ucontext *u;
	struct stat st;

	if (fstat(cmd_fd, &st))
		return NULL;
	pthread_mutex_lock(&uctx_lock);
	for (u = uctx_list; u; u = u->next)
		if (u->hca == hca && u->cmd_dev == st.st_dev &&
		    u->cmd_ino == st.st_ino) {
			atomic_fetch_add(&u->refcount, 1);
			break;
		}
	pthread_mutex_unlock(&uctx_lock);
	return u;
}

static void ucontext_put(struct mlx5_ucontext *u)
{
	struct mlx5_ucontext **pp;

	/* The last reference drops under the list lock: ucontext_find()
	 * cannot take a new one on a user context on its way out. */
	pthread_mutex_lock(&uctx_lock);
	if (atomic_fetch_sub(&u->refcount, 1) != 1) {
		pthread_mutex_unlock(&uctx_lock);
		return;
	}
	for (pp = &uctx_list; *pp; pp = &(*pp)->next)
		if (*pp == u) {
			*pp = u->next;
			break;
		}
	pthread_mutex_unlock(&uctx_lock);
	ucontext_destroy_uid(u->hca, u->uid);
	mdev_put(u->mdev);
	free(u->handles);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

void mlx5_ucontext_get(struct mlx5_ucontext *u)
{
	atomic_fetch_add(&u->refcount, 1);
}

void mlx5_ucontext_put(struct mlx5_ucontext *u)
{
	ucontext_put(u);
}

/* ---- context ---- */

static int context_alloc_uar(struct mlx5_context *ctx)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_uar_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_uar_out)] = {};
	int ret;

	DEVX_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	ctx->uar_page = DEVX_GET(alloc_uar_out, out, uar);
	ctx->uar = smx_dev_bar(ctx->hca, (uint64_t)ctx->uar_page * MLX5_ADAPTER_PAGE_SIZE,
			       MLX5_ADAPTER_PAGE_SIZE);
	return ctx->uar ? 0 : EFAULT;
}

static void context_free_uar(struct mlx5_context *ctx)
{
	uint32_t in[DEVX_ST_SZ_DW(dealloc_uar_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(dealloc_uar_in, in, opcode, MLX5_CMD_OP_DEALLOC_UAR);
	DEVX_SET(dealloc_uar_in, in, uar, ctx->uar_page);
	mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

static int context_alloc_td(struct mlx5_context *ctx)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_transport_domain_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_transport_domain_out)] = {};
	int ret;

	DEVX_SET(alloc_transport_domain_in, in, opcode, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (!ret)
		ctx->tdn = DEVX_GET(alloc_transport_domain_out, out, transport_domain);
	return ret;
}

static void context_free_td(struct mlx5_context *ctx)
{
	uint32_t in[DEVX_ST_SZ_DW(dealloc_transport_domain_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(dealloc_transport_domain_in, in, opcode,
		 MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN);
	DEVX_SET(dealloc_transport_domain_in, in, transport_domain, ctx->tdn);
	mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

static struct verbs_context *context_create(struct ibv_device *ibdev, int cmd_fd,
					    struct mlx5_ucontext *u, uint64_t dv_flags)
{
	struct mlx5_device *mdev = to_mdev(ibdev);
	struct mlx5_context *ctx;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx, 0);
	if (!ctx)
		return NULL;
	ctx->dv_flags = dv_flags;
	pthread_mutex_init(&ctx->lock, NULL);
	/* A new user context opens the device instance if none is open. */
	ctx->uctx = u ? u : ucontext_new(mdev, cmd_fd);
	if (!ctx->uctx) {
		ret = errno ? errno : ENOMEM;
		goto err_ctx;
	}
	ctx->hca = ctx->uctx->hca;
	ret = mlx5_context_caps_load(ctx);
	if (ret)
		goto err_uctx;
	ret = context_alloc_uar(ctx);
	if (ret)
		goto err_uctx;
	ret = context_alloc_td(ctx);
	if (ret)
		goto err_uar;
	ctx->ibv_ctx.context.num_comp_vectors =
		smx_dev_config(ctx->hca)->num_comp_vectors;
	verbs_set_ops(&ctx->ibv_ctx, &mlx5_ctx_ops);
	return &ctx->ibv_ctx;

err_uar:
	context_free_uar(ctx);
err_uctx:
	if (!u)		/* an importer's reference is its caller's to drop */
		ucontext_put(ctx->uctx);
err_ctx:
	ctx->ibv_ctx.context.cmd_fd = -1;	/* the caller still owns it */
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	errno = ret;
	return NULL;
}

static struct verbs_context *mlx5_context_alloc(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct mlx5dv_context_attr *attr = private_data;
	uint64_t flags = attr ? attr->flags : 0;

	/* rdma-core >= 29 asks the kernel for a DEVX uid on every context
	 * (and only drops it when the kernel refuses, which ours never does):
	 * ibv_open_device contexts may create DEVX objects too. */
	return context_create(ibdev, cmd_fd, NULL, flags | MLX5DV_CONTEXT_FLAGS_DEVX);
}

static struct verbs_context *mlx5_context_import(struct ibv_device *ibdev,
						 int cmd_fd)
{
	struct mlx5_ucontext *u = ucontext_find(to_mdev(ibdev)->hca, cmd_fd);
	struct verbs_context *vctx;

	if (!u) {
		errno = EINVAL;	/* not a softmlx5 command fd */
		return NULL;
	}
	vctx = context_create(ibdev, cmd_fd, u, MLX5DV_CONTEXT_FLAGS_DEVX);
	if (!vctx)
		ucontext_put(u);
	else
		vctx->priv->imported = true;
	return vctx;
}

/* A PD of the context's own, created on first use (XRC target QPs). */
int mlx5_context_internal_pd(struct mlx5_context *ctx, uint32_t *pdn)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_pd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_pd_out)] = {};
	int ret = 0;

	pthread_mutex_lock(&ctx->lock);
	if (!ctx->xrc_tgt_pdn) {
		DEVX_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
		ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
		if (!ret)
			ctx->xrc_tgt_pdn = DEVX_GET(alloc_pd_out, out, pd);
	}
	*pdn = ctx->xrc_tgt_pdn;
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

static void mlx5_free_context(struct ibv_context *ibctx)
{
	struct mlx5_context *ctx = to_mctx(ibctx);

	mlx5_devx_context_cleanup(ctx);
	mlx5_crypto_context_free(ctx);
	if (ctx->xrc_tgt_pdn) {
		uint32_t in[DEVX_ST_SZ_DW(dealloc_pd_in)] = {};
		uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

		DEVX_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
		DEVX_SET(dealloc_pd_in, in, pd, ctx->xrc_tgt_pdn);
		mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	}
	pthread_mutex_destroy(&ctx->lock);

	context_free_td(ctx);
	context_free_uar(ctx);
	ucontext_put(ctx->uctx);	/* the last one closes the instance */
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops mlx5_ctx_ops = {
	.advise_mr = mlx5_advise_mr,
	.alloc_dm = mlx5_alloc_dm,
	.alloc_mw = mlx5_alloc_mw,
	.alloc_parent_domain = mlx5_alloc_parent_domain,
	.alloc_pd = mlx5_alloc_pd,
	.alloc_td = mlx5_alloc_td,
	.bind_mw = mlx5_bind_mw,
	.close_xrcd = mlx5_close_xrcd,
	.create_ah = mlx5_create_ah,
	.cq_event = mlx5_cq_event,
	.create_cq = mlx5_create_cq,
	.create_cq_ex = mlx5_create_cq_ex,
	.create_flow = mlx5_create_flow,
	.create_qp = mlx5_create_qp,
	.create_qp_ex = mlx5_create_qp_ex,
	.create_rwq_ind_table = mlx5_create_rwq_ind_table,
	.create_srq = mlx5_create_srq,
	.create_srq_ex = mlx5_create_srq_ex,
	.create_wq = mlx5_create_wq,
	.dealloc_mw = mlx5_dealloc_mw,
	.dealloc_pd = mlx5_dealloc_pd,
	.dealloc_td = mlx5_dealloc_td,
	.dereg_mr = mlx5_dereg_mr,
	.destroy_ah = mlx5_destroy_ah,
	.destroy_cq = mlx5_destroy_cq,
	.destroy_flow = mlx5_destroy_flow,
	.destroy_flow_action = mlx5_destroy_flow_action,
	.destroy_qp = mlx5_destroy_qp,
	.destroy_rwq_ind_table = mlx5_destroy_rwq_ind_table,
	.destroy_srq = mlx5_destroy_srq,
	.destroy_wq = mlx5_destroy_wq,
	.free_context = mlx5_free_context,
	.free_dm = mlx5_free_dm,
	.get_srq_num = mlx5_get_srq_num,
	.import_dm = mlx5_import_dm,
	.import_mr = mlx5_import_mr,
	.import_pd = mlx5_import_pd,
	.modify_qp = mlx5_modify_qp,
	.modify_srq = mlx5_modify_srq,
	.modify_wq = mlx5_modify_wq,
	.open_xrcd = mlx5_open_xrcd,
	.query_device_ex = mlx5_query_device_ex,
	.query_gid_ex = mlx5_query_gid_ex,
	.query_pkey = mlx5_query_pkey,
	.query_port = mlx5_query_port,
	.query_qp = mlx5_query_qp,
	.query_qp_data_in_order = mlx5_query_qp_data_in_order,
	.query_rt_values = mlx5_query_rt_values,
	.poll_cq = mlx5_cq_poll,
	.post_recv = mlx5_post_recv,
	.post_send = mlx5_post_send,
	.post_srq_recv = mlx5_post_srq_recv,
	.query_srq = mlx5_query_srq,
	.req_notify_cq = mlx5_cq_arm,
	.reg_dm_mr = mlx5_reg_dm_mr,
	.reg_mr = mlx5_reg_mr,
	.rereg_mr = mlx5_rereg_mr,
	.resize_cq = mlx5_resize_cq,
	.unimport_dm = mlx5_unimport_dm,
	.unimport_mr = mlx5_unimport_mr,
	.unimport_pd = mlx5_unimport_pd,
};

static const struct verbs_device_ops mlx5_dev_ops = {
	.name = "mlx5",
	.match_min_abi_version = SMX_PROVIDER_MAGIC,
	.match_max_abi_version = SMX_PROVIDER_MAGIC,
	.alloc_context = mlx5_context_alloc,
	.import_context = mlx5_context_import,
	.alloc_device = mlx5_device_alloc,
	.uninit_device = mlx5_device_uninit,
};

__attribute__((constructor)) static void mlx5_register_driver(void)
{
	verbs_register_driver_34(&mlx5_dev_ops);
}

/* ---- mlx5dv entry points of the device itself ---- */

SMX_EXPORT bool mlx5dv_is_supported(struct ibv_device *device)
{
	struct verbs_device *vdev;

	if (!device)
		return false;
	vdev = SMX_CONTAINER_OF(device, struct verbs_device, device);
	return vdev->ops == &mlx5_dev_ops;
}

SMX_EXPORT struct ibv_context *mlx5dv_open_device(struct ibv_device *device,
						  struct mlx5dv_context_attr *attr)
{
	if (!mlx5dv_is_supported(device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr && (attr->comp_mask ||
		     (attr->flags & ~(uint64_t)MLX5DV_CONTEXT_FLAGS_DEVX))) {
		errno = EINVAL;
		return NULL;
	}
	return verbs_open_device(device, attr);
}
