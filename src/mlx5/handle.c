/* SPDX-License-Identifier: MIT */
/*
 * Object handles of a ucontext -- what the kernel's uverbs object table gives
 * ibv_import_pd/mr/dm(): a small integer that another context opened on a dup
 * of the same cmd_fd can resolve. Handles are never reused while live.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"

int mlx5_handle_add(struct mlx5_ucontext *u, const struct mlx5_handle *h,
		    uint32_t *handle)
{
	struct mlx5_handle *tab;
	uint32_t i;

	pthread_mutex_lock(&u->lock);
	for (i = 0; i < u->num_handles; i++)
		if (!u->handles[i].live)
			break;
	if (i == u->num_handles) {
		uint32_t n = u->num_handles ? u->num_handles * 2 : 16;

		tab = realloc(u->handles, n * sizeof(*tab));
		if (!tab) {
			pthread_mutex_unlock(&u->lock);
			return ENOMEM;
		}
		memset(tab + u->num_handles, 0, (n - u->num_handles) * sizeof(*tab));
		u->handles = tab;
		u->num_handles = n;
	}
	u->handles[i] = *h;
	u->handles[i].live = true;
	*handle = i;
	pthread_mutex_unlock(&u->lock);
	return 0;
}

int mlx5_handle_get(struct mlx5_ucontext *u, uint32_t handle,
		    enum mlx5_handle_type type, struct mlx5_handle *out)
{
	int ret = 0;

	pthread_mutex_lock(&u->lock);
	if (handle >= u->num_handles || !u->handles[handle].live ||
	    u->handles[handle].type != type)
		ret = EINVAL;
	else
		*out = u->handles[handle];
	pthread_mutex_unlock(&u->lock);
	return ret;
}

void mlx5_handle_del(struct mlx5_ucontext *u, uint32_t handle)
{
	pthread_mutex_lock(&u->lock);
	if (handle < u->num_handles)
		u->handles[handle].live = false;
	pthread_mutex_unlock(&u->lock);
}
