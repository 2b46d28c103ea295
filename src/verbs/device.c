/* SPDX-License-Identifier: MIT */
/*
 * Device discovery and contexts: ibv_get_device_list(), ibv_open_device(),
 * ibv_import_device(). There is no sysfs here: the provider (libmlx5.so.1 from
 * the directory this library was loaded from) registers itself with
 * verbs_register_driver_34() and presents the software HCA.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/log.h"
#include "util/symver.h"
#include "verbs/driver.h"
#include "verbs/verbs_priv.h"

#define MAX_DRIVERS 16
#define MAX_DEVICES 8

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct verbs_device_ops *drivers[MAX_DRIVERS];
static unsigned int num_drivers;
static struct verbs_device *devices[MAX_DEVICES];
static unsigned int num_devices;
static pid_t devices_pid;	/* the process that found devices[] */
/* A fork child's devices found by its parent (or theirs): they stand for
 * the parent's device instance. Kept for the contexts inherited with them,
 * never opened again. */
static struct verbs_device *inherited[2 * MAX_DEVICES];
static unsigned int num_inherited;
static bool provider_loaded;

SMX_EXPORT void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	/* Called from provider constructors, possibly before our own. */
	pthread_mutex_lock(&dev_lock);
	if (ops && num_drivers < MAX_DRIVERS)
		drivers[num_drivers++] = ops;
	pthread_mutex_unlock(&dev_lock);
}

static bool driver_is_ours(const struct verbs_device_ops *ops)
{
	return ops->match_min_abi_version == SMX_PROVIDER_MAGIC &&
	       ops->alloc_device && ops->alloc_context;
}

/* dlopen our libmlx5.so.1 from the directory libibverbs.so.1 lives in. */
static void load_provider_locked(void)
{
	char path[PATH_MAX];
	Dl_info info;
	char *slash;

	if (provider_loaded)
		return;
	provider_loaded = true;

	if (dladdr((void *)load_provider_locked, &info) && info.dli_fname &&
	    strlen(info.dli_fname) < sizeof(path) - 16) {
		strcpy(path, info.dli_fname);
		slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash + 1, "libmlx5.so.1");
			/* The provider constructor re-enters verbs_register_driver_34. */
			pthread_mutex_unlock(&dev_lock);
			void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
			pthread_mutex_lock(&dev_lock);
			if (h)
				return;
			smx_dbg("cannot load provider %s: %s", path, dlerror());
		}
	}
	pthread_mutex_unlock(&dev_lock);
	void *h = dlopen("libmlx5.so.1", RTLD_NOW | RTLD_GLOBAL);
	pthread_mutex_lock(&dev_lock);
	if (!h)
		smx_err("cannot load the softmlx5 provider libmlx5.so.1: %s", dlerror());
}

/* In a fork child: the parent's devices are set aside, so the scan finds
 * this process's own (the provider opens its own device instance). */
static void devices_forget_inherited_locked(void)
{
	pid_t self = getpid();
	unsigned int i;

	if (devices_pid == self)
		return;
	for (i = 0; i < num_devices; i++) {
		if (num_inherited < sizeof(inherited) / sizeof(inherited[0]))
			inherited[num_inherited++] = devices[i];
		devices[i] = NULL;
	}
	num_devices = 0;
	devices_pid = self;
}

static void scan_devices_locked(void)
{
	unsigned int i, j;

	devices_forget_inherited_locked();
	load_provider_locked();
	for (i = 0; i < num_drivers; i++) {
		const struct verbs_device_ops *ops = drivers[i];
		struct verbs_device *vdev;
		bool have = false;

		if (!driver_is_ours(ops))
			continue;
		for (j = 0; j < num_devices; j++)
			if (devices[j]->ops == ops)
				have = true;
		if (have || num_devices >= MAX_DEVICES)
			continue;
		vdev = ops->alloc_device(NULL);
		if (!vdev)
			continue;
		vdev->ops = ops;
		vdev->index = num_devices;
		atomic_store(&vdev->refcount, 1); /* the list's own reference */
		devices[num_devices++] = vdev;
	}
}

static void device_put(struct verbs_device *vdev)
{
	/* Devices live for the life of the process: the provider owns the
	 * software HCA instance behind them. Keep the count honest anyway. */
	atomic_fetch_sub(&vdev->refcount, 1);
}

SMX_EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list;
	unsigned int i;

	pthread_mutex_lock(&dev_lock);
	scan_devices_locked();
	list = calloc(num_devices + 1, sizeof(*list));
	if (!list) {
		pthread_mutex_unlock(&dev_lock);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < num_devices; i++) {
		atomic_fetch_add(&devices[i]->refcount, 1);
		list[i] = &devices[i]->device;
	}
	pthread_mutex_unlock(&dev_lock);
	if (num)
		*num = (int)i;
	return list;
}

SMX_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	struct ibv_device **p;

	if (!list)
		return;
	for (p = list; *p; p++)
		device_put(SMX_CONTAINER_OF(*p, struct verbs_device, device));
	free(list);
}

SMX_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	return device ? device->name : NULL;
}

SMX_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	return SMX_CONTAINER_OF(device, struct verbs_device, device)->node_guid;
}

SMX_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	return (int)SMX_CONTAINER_OF(device, struct verbs_device, device)->index;
}

/* The device to open for @vdev: itself, or in a fork child, for one the
 * parent found, this process's own device of the same driver. */
static struct verbs_device *device_own(struct verbs_device *vdev)
{
	struct verbs_device *own = vdev;
	unsigned int i, j;

	pthread_mutex_lock(&dev_lock);
	scan_devices_locked();
	for (i = 0; i < num_inherited; i++) {
		if (inherited[i] != vdev)
			continue;
		for (j = 0; j < num_devices; j++)
			if (devices[j]->ops == vdev->ops)
				own = devices[j];
		break;
	}
	pthread_mutex_unlock(&dev_lock);
	return own;
}

/* The uverbs command file: a memfd, so it can be dup'ed, passed, mmap()ed
 * (VAR pages) and recognised again by inode in ibv_import_device(). */
static int cmd_fd_open(void)
{
	return memfd_create("softmlx5-uverbs", MFD_CLOEXEC);
}

SMX_EXPORT struct ibv_context *verbs_open_device(struct ibv_device *device,
						 void *private_data)
{
	struct verbs_device *vdev;
	struct verbs_context *vctx;
	int cmd_fd;

	if (!device) {
		errno = EINVAL;
		return NULL;
	}
	vdev = SMX_CONTAINER_OF(device, struct verbs_device, device);
	if (!vdev->ops || !driver_is_ours(vdev->ops)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	vdev = device_own(vdev);
	cmd_fd = cmd_fd_open();
	if (cmd_fd < 0)
		return NULL;
	vctx = vdev->ops->alloc_context(&vdev->device, cmd_fd, private_data);
	if (!vctx) {
		int err = errno ? errno : ENOMEM;

		close(cmd_fd);
		errno = err;
		return NULL;
	}
	atomic_fetch_add(&vdev->refcount, 1);
	return &vctx->context;
}

SMX_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	return verbs_open_device(device, NULL);
}

SMX_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	struct verbs_context *vctx = NULL;
	unsigned int i;

	pthread_mutex_lock(&dev_lock);
	scan_devices_locked();
	for (i = 0; i < num_devices && !vctx; i++) {
		const struct verbs_device_ops *ops = devices[i]->ops;

		if (!ops->import_context)
			continue;
		errno = 0;
		vctx = ops->import_context(&devices[i]->device, cmd_fd);
		if (vctx)
			atomic_fetch_add(&devices[i]->refcount, 1);
	}
	pthread_mutex_unlock(&dev_lock);
	if (!vctx) {
		if (!errno)
			errno = EOPNOTSUPP;
		return NULL;
	}
	return &vctx->context;
}

SMX_EXPORT int ibv_close_device(struct ibv_context *context)
{
	struct verbs_device *vdev;

	if (!context)
		return EINVAL;
	vdev = SMX_CONTAINER_OF(context->device, struct verbs_device, device);
	verbs_ops(context)->free_context(context);
	device_put(vdev);
	return 0;
}
