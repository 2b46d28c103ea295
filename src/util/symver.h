/* SPDX-License-Identifier: MIT */
/*
 * Symbol versioning helpers. The default version of each exported name comes
 * from the linker version script (src/verbs/libibverbs.map, src/mlx5/libmlx5.map);
 * an older ABI of the same name is a separate function bound here, e.g.
 *
 *   SMX_COMPAT_SYMVER(smx_alloc_pd_1_0, ibv_alloc_pd, "IBVERBS_1.0");
 */
#ifndef SMX_UTIL_SYMVER_H
#define SMX_UTIL_SYMVER_H

#define SMX_EXPORT __attribute__((visibility("default")))

#define SMX_COMPAT_SYMVER(impl, name, ver)                                     \
	__asm__(".symver " #impl "," #name "@" ver)

#endif
