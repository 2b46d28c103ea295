/* SPDX-License-Identifier: MIT */
/*
 * Applications (device images registered by softmlx5-dpacc's generated
 * constructors), their entry points, the API version and host logging.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "flexio/host/fx_priv.h"

static pthread_mutex_t app_lock = PTHREAD_MUTEX_INITIALIZER;
static struct flexio_app *apps;
static enum flexio_log_lvl log_lvl = FLEXIO_LOG_LVL_WARN;
static uint64_t api_version = FLEXIO_VER(24, 1, 0);

void fx_log(enum flexio_log_lvl lvl, const char *fmt, ...)
{
	static const char *const names[] = { "ERR", "WARN", "INFO", "DBG" };
	char buf[512];
	va_list ap;

	if (lvl > __atomic_load_n(&log_lvl, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "flexio %s: %s\n", names[lvl & 3], buf);
}

enum flexio_log_lvl flexio_log_lvl_set(enum flexio_log_lvl lvl)
{
	if ((unsigned int)lvl > FLEXIO_LOG_LVL_DBG) {
		fx_err("flexio_log_lvl_set: level %d out of range", (int)lvl);
		return __atomic_load_n(&log_lvl, __ATOMIC_RELAXED);
	}
	return __atomic_exchange_n(&log_lvl, lvl, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void fx_log_init(void)
{
	const char *e = getenv("FLEXIO_LOG_LEVEL");

	if (e && *e >= '0' && *e <= '3')
		log_lvl = (enum flexio_log_lvl)(*e - '0');
}

flexio_status flexio_version_set(uint64_t version)
{
	if (version < FLEXIO_LAST_SUPPORTED_VERSION) {
		fx_err("flexio_version_set: version %llu.%llu.%llu is older than this library "
		       "supports (24.01)", (unsigned long long)(version >> 24 & 0xff),
		       (unsigned long long)(version >> 16 & 0xff),
		       (unsigned long long)(version & 0xffff));
		return FLEXIO_STATUS_FAILED;
	}
	if (version > FLEXIO_CURRENT_VERSION && version != FLEXIO_VER_LATEST)
		fx_warn("flexio_version_set: version newer than this library (25.1.0); "
			"the 25.1 API is used");
	api_version = version;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_app_create(struct flexio_app_attr *fattr, struct flexio_app **app)
{
	struct flexio_app *a;

	if (!app) {
		fx_err("flexio_app_create: app pointer is NULL");
		return FLEXIO_STATUS_FAILED;
	}
	*app = NULL;
	if (!fattr || !fattr->app_name || !fattr->app_ptr || !fattr->app_bsize) {
		fx_err("flexio_app_create: attributes must give a name and a non-empty image");
		return FLEXIO_STATUS_FAILED;
	}
	if (strlen(fattr->app_name) >= FLEXIO_MAX_NAME_LEN) {
		fx_err("flexio_app_create: name longer than %d", FLEXIO_MAX_NAME_LEN - 1);
		return FLEXIO_STATUS_FAILED;
	}
	a = calloc(1, sizeof(*a));
	if (!a || !(a->name = strdup(fattr->app_name))) {
		free(a);
		fx_err("flexio_app_create: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	a->elf = fattr->app_ptr;
	a->elf_size = fattr->app_bsize;
	pthread_mutex_lock(&app_lock);
	a->next = apps;
	apps = a;
	pthread_mutex_unlock(&app_lock);
	*app = a;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_app_destroy(struct flexio_app *app)
{
	struct flexio_app **pp;
	size_t i;

	if (!app)
		return FLEXIO_STATUS_SUCCESS;
	pthread_mutex_lock(&app_lock);
	for (pp = &apps; *pp && *pp != app; pp = &(*pp)->next)
		;
	if (!*pp) {
		pthread_mutex_unlock(&app_lock);
		fx_err("flexio_app_destroy: not a registered application");
		return FLEXIO_STATUS_FAILED;
	}
	*pp = app->next;
	pthread_mutex_unlock(&app_lock);
	for (i = 0; i < app->nfuncs; i++) {
		free(app->funcs[i].dev_name);
		free(app->funcs[i].unpack_name);
		if (app->funcs[i].key_owned)
			free((void *)app->funcs[i].stub);
	}
	free(app->funcs);
	free(app->name);
	free(app);
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_app_get(struct flexio_app_select_attr *fattr, struct flexio_app **app)
{
	struct flexio_app *a;

	if (!app || !fattr || !fattr->app_name) {
		fx_err("flexio_app_get: attributes with an app_name and an output pointer needed");
		return FLEXIO_STATUS_FAILED;
	}
	/* One build serves every HW model on softmlx5. */
	pthread_mutex_lock(&app_lock);
	for (a = apps; a; a = a->next)
		if (!strcmp(a->name, fattr->app_name))
			break;
	pthread_mutex_unlock(&app_lock);
	*app = a;
	if (!a) {
		fx_err("flexio_app_get: no application named '%s' is registered (was its "
		       "softmlx5-dpacc library linked whole?)", fattr->app_name);
		return FLEXIO_STATUS_FAILED;
	}
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_app_get_list(struct flexio_app ***app_list, uint32_t *num_apps)
{
	struct flexio_app *a, **list;
	uint32_t n = 0, i = 0;

	if (!app_list || !num_apps) {
		fx_err("flexio_app_get_list: NULL output");
		return FLEXIO_STATUS_FAILED;
	}
	pthread_mutex_lock(&app_lock);
	for (a = apps; a; a = a->next)
		n++;
	list = calloc(n + 1, sizeof(*list));
	if (list)
		for (a = apps; a; a = a->next)
			list[i++] = a;
	pthread_mutex_unlock(&app_lock);
	if (!list) {
		fx_err("flexio_app_get_list: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	*app_list = list;
	*num_apps = n;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_app_list_free(struct flexio_app **app_list)
{
	free(app_list);
	return FLEXIO_STATUS_SUCCESS;
}

const char *flexio_app_get_name(struct flexio_app *app)
{
	return app ? app->name : NULL;
}

size_t flexio_app_get_elf_size(struct flexio_app *app)
{
	return app ? app->elf_size : 0;
}

flexio_status flexio_app_get_elf(struct flexio_app *app, uint64_t *bin_buff, size_t bin_size)
{
	if (!app || !bin_buff || bin_size < app->elf_size) {
		fx_err("flexio_app_get_elf: bad arguments or buffer smaller than %zu",
		       app ? app->elf_size : 0);
		return FLEXIO_STATUS_FAILED;
	}
	memcpy(bin_buff, app->elf, app->elf_size);
	return FLEXIO_STATUS_SUCCESS;
}

/*
 * A symbol's bytes in the device image (an ELF shared object), found the way
 * a loader would: the symbol table entry names a section and an address in
 * it; the bytes are the section's file contents there (zeros in a NOBITS
 * section such as .bss). The image came from the app's creator: every
 * offset is checked before it is used.
 */
static bool elf_range_ok(size_t img, uint64_t off, uint64_t len)
{
	return off <= img && len <= img - off;
}

/* Section header @idx, copied out (the image need not be aligned). */
static bool elf_shdr(const uint8_t *img, const Elf64_Ehdr *eh, uint32_t idx, Elf64_Shdr *sh)
{
	if (idx >= eh->e_shnum)
		return false;
	memcpy(sh, img + eh->e_shoff + (uint64_t)idx * sizeof(*sh), sizeof(*sh));
	return true;
}

/* 1 found (*sym, *sec set), 0 not in the image, -1 malformed image. */
static int elf_sym_find(const uint8_t *img, size_t n, const char *name, Elf64_Sym *sym,
			Elf64_Shdr *sec)
{
	Elf64_Ehdr eh;
	uint32_t i;
	int pass;

	if (n < sizeof(eh))
		return -1;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !elf_range_ok(n, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
		return -1;
	/* the full table first; a stripped image still has the dynamic one */
	for (pass = 0; pass < 2; pass++) {
		uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		for (i = 0; i < eh.e_shnum; i++) {
			Elf64_Shdr st, str;
			uint64_t k, cnt;

			elf_shdr(img, &eh, i, &st);
			if (st.sh_type != want)
				continue;
			if (!elf_shdr(img, &eh, st.sh_link, &str) ||
			    st.sh_entsize != sizeof(Elf64_Sym) ||
			    !elf_range_ok(n, st.sh_offset, st.sh_size) ||
			    !elf_range_ok(n, str.sh_offset, str.sh_size))
				return -1;
			cnt = st.sh_size / sizeof(Elf64_Sym);
			for (k = 0; k < cnt; k++) {
				const char *nm;
				Elf64_Sym s;

				memcpy(&s, img + st.sh_offset + k * sizeof(s), sizeof(s));
				if (s.st_name >= str.sh_size)
					continue;
				nm = (const char *)img + str.sh_offset + s.st_name;
				if (strnlen(nm, str.sh_size - s.st_name) == str.sh_size - s.st_name ||
				    strcmp(nm, name) || s.st_shndx == SHN_UNDEF ||
				    s.st_shndx >= SHN_LORESERVE)
					continue;
				if (!elf_shdr(img, &eh, s.st_shndx, sec) ||
				    s.st_value < sec->sh_addr || s.st_size > sec->sh_size ||
				    s.st_value - sec->sh_addr > sec->sh_size - s.st_size)
					return -1;
				if (sec->sh_type != SHT_NOBITS &&
				    !elf_range_ok(n, sec->sh_offset, sec->sh_size))
					return -1;
				*sym = s;
				return 1;
			}
		}
	}
	return 0;
}

flexio_status flexio_app_extract_symbol(struct flexio_app *app, const char *sym_name,
					void *data, size_t *size)
{
	Elf64_Shdr sec;
	Elf64_Sym sym;
	int r;

	if (!app || !sym_name || !data || !size) {
		fx_err("flexio_app_extract_symbol: app, symbol name, buffer and size are required");
		return FLEXIO_STATUS_FAILED;
	}
	r = elf_sym_find(app->elf, app->elf_size, sym_name, &sym, &sec);
	if (r < 0) {
		fx_err("flexio_app_extract_symbol(%s): the device image of app '%s' is not a "
		       "well-formed 64-bit ELF", sym_name, app->name);
		return FLEXIO_STATUS_FAILED;
	}
	if (r == 0 || !sym.st_size) {
		/* the SDK's answer for a symbol that is not there: nothing copied */
		fx_info("flexio_app_extract_symbol(%s): no data for it in app '%s'", sym_name,
			app->name);
		*size = 0;
		return FLEXIO_STATUS_SUCCESS;
	}
	if (sym.st_size > *size) {
		fx_err("flexio_app_extract_symbol(%s): %llu bytes do not fit the %zu-byte buffer",
		       sym_name, (unsigned long long)sym.st_size, *size);
		return FLEXIO_STATUS_FAILED;
	}
	if (sec.sh_type == SHT_NOBITS)
		memset(data, 0, sym.st_size);
	else
		memcpy(data, (const uint8_t *)app->elf + sec.sh_offset +
			     (sym.st_value - sec.sh_addr), sym.st_size);
	*size = sym.st_size;
	return FLEXIO_STATUS_SUCCESS;
}

struct fx_func *fx_app_find_func(struct flexio_app *app, flexio_func_t *stub)
{
	size_t i;

	if (!app || !stub)
		return NULL;
	for (i = 0; i < app->nfuncs; i++)
		if (app->funcs[i].stub == stub)
			return &app->funcs[i];
	return NULL;
}

static flexio_status add_func(struct flexio_app *app, const char *name, const char *unpack,
			      flexio_func_t *stub, size_t argbuf_size,
			      flexio_func_arg_pack_fn_t *pack, bool key_owned)
{
	struct fx_func *f;

	if (app->nfuncs == app->cap) {
		size_t cap = app->cap ? app->cap * 2 : 8;
		struct fx_func *n = realloc(app->funcs, cap * sizeof(*n));

		if (!n)
			return FLEXIO_STATUS_FAILED;
		app->funcs = n;
		app->cap = cap;
	}
	f = &app->funcs[app->nfuncs];
	memset(f, 0, sizeof(*f));
	f->dev_name = strdup(name);
	f->unpack_name = unpack ? strdup(unpack) : NULL;
	if (!f->dev_name || (unpack && !f->unpack_name)) {
		free(f->dev_name);
		free(f->unpack_name);
		return FLEXIO_STATUS_FAILED;
	}
	f->stub = stub;
	f->argbuf_size = argbuf_size;
	f->pack = pack;
	f->key_owned = key_owned;
	app->nfuncs++;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_func_pup_register(struct flexio_app *app, const char *dev_func_name,
				       const char *dev_unpack_func_name,
				       flexio_func_t *host_stub_func_addr, size_t argbuf_size,
				       flexio_func_arg_pack_fn_t *host_pack_func)
{
	if (!app || !dev_func_name || !dev_unpack_func_name || !host_stub_func_addr ||
	    !host_pack_func) {
		fx_err("flexio_func_pup_register: app, names, stub and pack function are required");
		return FLEXIO_STATUS_FAILED;
	}
	if (fx_app_find_func(app, host_stub_func_addr)) {
		fx_err("flexio_func_pup_register: %s: stub already registered", dev_func_name);
		return FLEXIO_STATUS_FAILED;
	}
	if (add_func(app, dev_func_name, dev_unpack_func_name, host_stub_func_addr, argbuf_size,
		     host_pack_func, false)) {
		fx_err("flexio_func_pup_register: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_func_register(struct flexio_app *app, const char *dev_func_name,
				   flexio_func_t **out_func)
{
	void *key;

	if (!app || !dev_func_name || !out_func) {
		fx_err("flexio_func_register: app, name and output are required");
		return FLEXIO_STATUS_FAILED;
	}
	key = malloc(1);	/* a unique address serves as the host key */
	if (!key || add_func(app, dev_func_name, NULL, (flexio_func_t *)key, 0, NULL, true)) {
		free(key);
		fx_err("flexio_func_register: out of memory");
		return FLEXIO_STATUS_FAILED;
	}
	*out_func = (flexio_func_t *)key;
	return FLEXIO_STATUS_SUCCESS;
}

flexio_status flexio_func_get_register_info(struct flexio_app *app,
					    flexio_func_t *host_stub_func_addr, uint32_t *pup,
					    char *dev_func_name, char *dev_unpack_func_name,
					    size_t func_name_size, size_t *argbuf_size,
					    flexio_func_arg_pack_fn_t **host_pack_func,
					    flexio_uintptr_t *dev_func_addr,
					    flexio_uintptr_t *dev_unpack_func_addr)
{
	struct fx_func *f = fx_app_find_func(app, host_stub_func_addr);

	if (!f) {
		fx_err("flexio_func_get_register_info: function not registered with this app");
		return FLEXIO_STATUS_FAILED;
	}
	if (pup)
		*pup = f->pack != NULL;
	if (dev_func_name && func_name_size) {
		strncpy(dev_func_name, f->dev_name, func_name_size - 1);
		dev_func_name[func_name_size - 1] = 0;
	}
	if (dev_unpack_func_name && func_name_size) {
		strncpy(dev_unpack_func_name, f->unpack_name ? f->unpack_name : "",
			func_name_size - 1);
		dev_unpack_func_name[func_name_size - 1] = 0;
	}
	if (argbuf_size)
		*argbuf_size = f->argbuf_size;
	if (host_pack_func)
		*host_pack_func = f->pack;
	/* Device addresses exist per process (each loads its own image). */
	if (dev_func_addr)
		*dev_func_addr = 0;
	if (dev_unpack_func_addr)
		*dev_unpack_func_addr = 0;
	return FLEXIO_STATUS_SUCCESS;
}
