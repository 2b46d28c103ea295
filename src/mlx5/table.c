/* SPDX-License-Identifier: MIT */
/*
 * Number -> object tables for the completion path: a CQE names its QP (and
 * SRQ) by number, like hardware does, and the driver finds its own object.
 * Open hashing on the 24-bit number; readers take the lock shared.
 */
#include <errno.h>
#include <stdlib.h>

#include "mlx5/mlx5.h"

void mlx5_table_init(struct mlx5_table *t)
{
	pthread_rwlock_init(&t->lock, NULL);
}

int mlx5_table_insert(struct mlx5_table *t, uint32_t num, void *obj)
{
	struct mlx5_table_ent *e = malloc(sizeof(*e));
	uint32_t b = num % MLX5_TABLE_BUCKETS;

	if (!e)
		return ENOMEM;
	e->num = num;
	e->obj = obj;
	pthread_rwlock_wrlock(&t->lock);
	e->next = t->bucket[b];
	t->bucket[b] = e;
	pthread_rwlock_unlock(&t->lock);
	return 0;
}

void mlx5_table_remove(struct mlx5_table *t, uint32_t num)
{
	struct mlx5_table_ent **pp, *e;
	uint32_t b = num % MLX5_TABLE_BUCKETS;

	pthread_rwlock_wrlock(&t->lock);
	for (pp = &t->bucket[b]; (e = *pp); pp = &e->next)
		if (e->num == num) {
			*pp = e->next;
			free(e);
			break;
		}
	pthread_rwlock_unlock(&t->lock);
}

void *mlx5_table_find(struct mlx5_table *t, uint32_t num)
{
	struct mlx5_table_ent *e;
	void *obj = NULL;

	pthread_rwlock_rdlock(&t->lock);
	for (e = t->bucket[num % MLX5_TABLE_BUCKETS]; e; e = e->next)
		if (e->num == num) {
			obj = e->obj;
			break;
		}
	pthread_rwlock_unlock(&t->lock);
	return obj;
}

void mlx5_table_clear(struct mlx5_table *t)
{
	struct mlx5_table_ent *e;
	unsigned int b;

	pthread_rwlock_wrlock(&t->lock);
	for (b = 0; b < MLX5_TABLE_BUCKETS; b++)
		while ((e = t->bucket[b])) {
			t->bucket[b] = e->next;
			free(e);
		}
	pthread_rwlock_unlock(&t->lock);
}
