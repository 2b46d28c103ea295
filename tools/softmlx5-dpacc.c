/* SPDX-License-Identifier: MIT */
/*
 * softmlx5-dpacc: builds FlexIO device code for the software DPA.
 *
 * Takes dpacc's command line and, like dpacc, produces a host static library
 * (-o out.a) that a FlexIO host program links. Inside it:
 *   - the device image: the device sources compiled by the host compiler into
 *     a shared object, embedded byte for byte (libflexio loads one copy per
 *     process, so every process has its own DPA globals);
 *   - struct flexio_app *<app-name>;
 *   - per __dpa_global__ / __dpa_rpc__ entry point `foo`: a host symbol `foo`
 *     of type flexio_func_t (the key host code passes to the API), and a packer
 *     storing each argument in one 64-bit slot;
 *   - a constructor that calls flexio_app_create() and
 *     flexio_func_pup_register(), and a destructor calling flexio_app_destroy().
 * The device side gets, per entry point, an unpacker __smx_dpa_unpack_foo
 * that casts each slot to the declared parameter type and calls foo.
 *
 * Entry points are found by preprocessing each source with the markers
 * redefined to tokens and reading the function definitions that carry them.
 * Limits: parameters are integers, pointers or enums (64 bits at most); no
 * variadic entry points.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SMX_FLEXIO_INCLUDE_DIR
#define SMX_FLEXIO_INCLUDE_DIR "/usr/include/softmlx5-flexio"
#endif

#define MARK_GLOBAL "__smx_dpa_mark_global__"
#define MARK_RPC "__smx_dpa_mark_rpc__"

static const char *prog = "softmlx5-dpacc";

/*
 * A compiler driver that exits after one run: its memory is returned by exit,
 * so a sanitizer build (SMX_SANITIZE) should not fail it for leaks.
 */
const char *__asan_default_options(void) __attribute__((visibility("default"), used));
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
static bool verbose;

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

/* ---- string vectors ------------------------------------------------------ */
struct vec {
	char **v;
	size_t n, cap;
};

static void vpush(struct vec *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = realloc(a->v, a->cap * sizeof(*a->v));
		if (!a->v)
			die("out of memory");
	}
	a->v[a->n++] = s ? xstrdup(s) : NULL;
	a->v[a->n] = NULL;
}

/* Empties @a (its strings are owned copies). */
static void vreset(struct vec *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	a->n = 0;
	if (a->v)
		a->v[0] = NULL;
}

static void vfree(struct vec *a)
{
	vreset(a);
	free(a->v);
	a->v = NULL;
	a->cap = 0;
}

static void vcat(struct vec *a, const struct vec *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		vpush(a, b->v[i]);
}

/* Splits an option string the way a shell would for simple quoting. */
static void split_opts(struct vec *out, const char *s)
{
	char buf[4096];
	size_t n = 0;
	char q = 0;
	bool have = false;

	for (;; s++) {
		char c = *s;

		if (!c || (!q && isspace((unsigned char)c))) {
			if (have) {
				buf[n] = 0;
				vpush(out, buf);
			}
			n = 0;
			have = false;
			if (!c)
				break;
			continue;
		}
		if (q) {
			if (c == q) {
				q = 0;
				continue;
			}
		} else if (c == '"' || c == '\'') {
			q = c;
			have = true;
			continue;
		} else if (c == '\\' && s[1]) {
			c = *++s;
		}
		if (n + 1 >= sizeof(buf))
			die("option string too long");
		buf[n++] = c;
		have = true;
	}
}

static void run(const struct vec *argv)
{
	pid_t pid;
	int st;
	size_t i;

	if (verbose) {
		for (i = 0; i < argv->n; i++)
			fprintf(stderr, "%s%s", i ? " " : "", argv->v[i]);
		fputc('\n', stderr);
	}
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		execvp(argv->v[0], argv->v);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv->v[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("%s failed", argv->v[0]);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	long len;
	char *buf;

	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc((size_t)len + 1);
	if (len && fread(buf, 1, (size_t)len, f) != (size_t)len)
		die("cannot read %s", path);
	fclose(f);
	return buf;
}

/* ---- a tokenizer good enough for preprocessed C ----------------------------- */
static struct vec toks;

static void tokenize(const char *s)
{
	bool bol = true;
	char buf[1024];

	vreset(&toks);
	while (*s) {
		if (*s == '\n') {
			bol = true;
			s++;
			continue;
		}
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (bol && *s == '#') {	/* line marker or pragma */
			while (*s && *s != '\n')
				s++;
			continue;
		}
		bol = false;
		if (isalpha((unsigned char)*s) || *s == '_' || isdigit((unsigned char)*s)) {
			size_t n = 0;

			while (isalnum((unsigned char)*s) || *s == '_' || *s == '.') {
				if (n + 1 < sizeof(buf))
					buf[n++] = *s;
				s++;
				if (!isdigit((unsigned char)buf[0]) && s[0] == '.')
					break;
			}
			buf[n] = 0;
			vpush(&toks, buf);
			continue;
		}
		if (*s == '"' || *s == '\'') {
			char q = *s++;

			while (*s && *s != q) {
				if (*s == '\\' && s[1])
					s++;
				s++;
			}
			if (*s)
				s++;
			vpush(&toks, q == '"' ? "\"\"" : "''");
			continue;
		}
		if (s[0] == '.' && s[1] == '.' && s[2] == '.') {
			vpush(&toks, "...");
			s += 3;
			continue;
		}
		buf[0] = *s++;
		buf[1] = 0;
		vpush(&toks, buf);
	}
}

static bool is(size_t i, const char *s)
{
	return i < toks.n && !strcmp(toks.v[i], s);
}

static bool is_ident(size_t i)
{
	return i < toks.n && (isalpha((unsigned char)toks.v[i][0]) || toks.v[i][0] == '_');
}

static bool is_attr(size_t i)
{
	return is(i, "__attribute__") || is(i, "__attribute") || is(i, "__asm__") ||
	       is(i, "__asm") || is(i, "asm") || is(i, "__declspec");
}

/* Index of the bracket closing the one at @i. */
static size_t match(size_t i)
{
	const char *o = toks.v[i], *c = !strcmp(o, "(") ? ")" : !strcmp(o, "[") ? "]" : "}";
	int d = 0;

	for (; i < toks.n; i++) {
		if (!strcmp(toks.v[i], o))
			d++;
		else if (!strcmp(toks.v[i], c) && --d == 0)
			return i;
	}
	die("unbalanced %s in preprocessed source", o);
}

struct param {
	char *type;	/* cast type text */
};

struct entry {
	char *name;
	bool is_void;
	struct param *params;
	size_t nparams;
	bool marked, defined;
	size_t src;	/* source file that defines it */
};

static struct entry *ents;
static size_t nents;

static size_t cur_src;

static struct entry *entry_find(const char *name)
{
	size_t i;

	for (i = 0; i < nents; i++)
		if (!strcmp(ents[i].name, name))
			return &ents[i];
	return NULL;
}

static struct entry *entry_get(const char *name)
{
	struct entry *e = entry_find(name);

	if (e)
		return e;
	ents = realloc(ents, (nents + 1) * sizeof(*ents));
	if (!ents)
		die("out of memory");
	memset(&ents[nents], 0, sizeof(*ents));
	ents[nents].name = xstrdup(name);
	return &ents[nents++];
}

static void strappend(char **dst, const char *s)
{
	size_t a = *dst ? strlen(*dst) : 0, b = strlen(s);

	*dst = realloc(*dst, a + b + 2);
	if (!*dst)
		die("out of memory");
	if (a && isalnum((unsigned char)(*dst)[a - 1]) && (isalnum((unsigned char)s[0]) || s[0] == '_'))
		(*dst)[a++] = ' ';
	else if (a && (*dst)[a - 1] == '_' && (isalnum((unsigned char)s[0]) || s[0] == '_'))
		(*dst)[a++] = ' ';
	memcpy(*dst + a, s, b + 1);
}

/* One parameter [b, e): the cast type for it. */
static char *param_type(size_t b, size_t e, const char *fn)
{
	size_t i, name = SIZE_MAX;
	bool array = false, fptr = false;
	char *t = NULL;

	for (i = b; i < e; i++)
		if (is(i, "(") && !is_attr(i - 1))
			fptr = true;
	if (fptr) {
		for (i = b; i + 1 < e; i++)
			if (is(i, "(") && is(i + 1, "*") && is_ident(i + 2)) {
				name = i + 2;
				break;
			}
	} else {
		for (i = b; i < e; i++) {
			if (is_attr(i) && is(i + 1, "(")) {
				i = match(i + 1);
				continue;
			}
			if (is(i, "[")) {
				array = true;
				break;
			}
			if (is_ident(i))
				name = i;
		}
	}
	if (name == SIZE_MAX)
		die("%s: cannot tell the name of a parameter", fn);
	for (i = b; i < e; i++) {
		if (i == name || is(i, "register"))
			continue;
		if (is_attr(i) && is(i + 1, "(")) {
			i = match(i + 1);
			continue;
		}
		if (!fptr && is(i, "["))
			break;
		strappend(&t, toks.v[i]);
	}
	if (array)
		strappend(&t, "*");
	if (!t)
		die("%s: parameter without a type", fn);
	return t;
}

static void parse_params(struct entry *en, size_t b, size_t e)
{
	size_t i, s = b;
	int d = 0;

	if (e == b || (e == b + 1 && is(b, "void")))
		return;
	for (i = b; i <= e; i++) {
		if (i < e && (is(i, "(") || is(i, "[")))
			d++;
		else if (i < e && (is(i, ")") || is(i, "]")))
			d--;
		if (i == e || (d == 0 && is(i, ","))) {
			if (is(s, "..."))
				die("%s: variadic entry points are not supported", en->name);
			en->params = realloc(en->params, (en->nparams + 1) * sizeof(*en->params));
			if (!en->params)
				die("out of memory");
			en->params[en->nparams++].type = param_type(s, i, en->name);
			s = i + 1;
		}
	}
}

static bool decl_has_mark(size_t b, size_t e)
{
	size_t i;

	for (i = b; i < e; i++)
		if (is(i, MARK_GLOBAL) || is(i, MARK_RPC))
			return true;
	return false;
}

static bool ret_is_void(size_t b, size_t e)
{
	size_t i, n = 0;
	bool v = false;

	for (i = b; i < e; i++) {
		if (is_attr(i) && is(i + 1, "(")) {
			i = match(i + 1);
			continue;
		}
		if (is(i, MARK_GLOBAL) || is(i, MARK_RPC) || is(i, "extern") || is(i, "static") ||
		    is(i, "inline") || is(i, "__inline") || is(i, "__inline__") ||
		    is(i, "__extension__"))
			continue;
		n++;
		v = is(i, "void");
	}
	return n == 1 && v;
}

static void scan(void)
{
	size_t i, decl = 0;
	int brace = 0, paren = 0;

	for (i = 0; i < toks.n; i++) {
		if (is(i, "{")) {
			brace++;
			continue;
		}
		if (is(i, "}")) {
			if (--brace == 0)
				decl = i + 1;
			continue;
		}
		if (brace)
			continue;
		if (is(i, ";") && !paren) {
			decl = i + 1;
			continue;
		}
		if (is(i, "(")) {
			paren++;
			continue;
		}
		if (is(i, ")")) {
			paren--;
			continue;
		}
		if (paren || !is_ident(i) || !is(i + 1, "(") || is_attr(i) || is(i, "_Static_assert") ||
		    is(i, "__typeof__") || is(i, "typeof") || is(i, "__typeof") || is(i, "sizeof") ||
		    is(i, "_Alignas") || is(i, "__extension__"))
			continue;
		{
			size_t close = match(i + 1), k = close + 1;
			bool marked = decl_has_mark(decl, i);
			struct entry *en;

			while (is_attr(k) && is(k + 1, "("))
				k = match(k + 1) + 1;
			if (is(k, "{")) {
				en = marked ? entry_get(toks.v[i]) : entry_find(toks.v[i]);
				if (!en) {
					i = close;
					continue;
				}
				if (!en->defined) {
					en->defined = true;
					en->src = cur_src;
					en->is_void = ret_is_void(decl, i);
					parse_params(en, i + 2, close);
				}
				en->marked |= marked;
			} else if (marked) {
				entry_get(toks.v[i])->marked = true;
			}
			i = close;
		}
	}
}

/* ---- generation ---------------------------------------------------------------- */
static void write_device_wrapper(const char *path, const char *src_abs)
{
	FILE *f = fopen(path, "w");
	size_t i, j;

	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	fprintf(f, "/* generated by softmlx5-dpacc: device side of %s */\n", src_abs);
	fprintf(f, "#include \"%s\"\n\n#include <stdint.h>\n", src_abs);
	for (i = 0; i < nents; i++) {
		struct entry *e = &ents[i];

		if (!e->marked || !e->defined || e->src != cur_src)
			continue;
		fprintf(f, "\n__attribute__((used, visibility(\"default\"))) uint64_t "
			   "__smx_dpa_unpack_%s(void *argbuf, void *func);\n", e->name);
		fprintf(f, "uint64_t __smx_dpa_unpack_%s(void *argbuf, void *func)\n{\n", e->name);
		fprintf(f, "\tconst uint64_t *a_ = (const uint64_t *)argbuf;\n\n\t(void)a_;\n\t");
		fprintf(f, e->is_void ? "" : "return (uint64_t)");
		fprintf(f, "((__typeof__(&%s))func)(", e->name);
		for (j = 0; j < e->nparams; j++)
			fprintf(f, "%s(%s)(uintptr_t)a_[%zu]", j ? ", " : "", e->params[j].type, j);
		fprintf(f, ");\n%s}\n", e->is_void ? "\treturn 0;\n" : "");
	}
	if (fclose(f))
		die("cannot write %s", path);
}

static void write_host(const char *path, const char *app, const char *image)
{
	FILE *f = fopen(path, "w");
	size_t i, j;

	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	fprintf(f, "/* generated by softmlx5-dpacc: host side of app %s */\n", app);
	fprintf(f, "#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n"
		   "#include <libflexio/flexio.h>\n\n"
		   "void smx_flexio_stub_called(const char *name) __attribute__((noreturn));\n\n");
	fprintf(f, "__asm__(\".section .rodata.smx_dpa_image,\\\"a\\\"\\n\"\n"
		   "\t\".balign 64\\n\"\n"
		   "\t\".globl __smx_dpa_image_%1$s\\n\"\n"
		   "\t\".hidden __smx_dpa_image_%1$s\\n\"\n"
		   "\t\".globl __smx_dpa_image_end_%1$s\\n\"\n"
		   "\t\".hidden __smx_dpa_image_end_%1$s\\n\"\n"
		   "\t\"__smx_dpa_image_%1$s:\\n\"\n"
		   "\t\".incbin \\\"%2$s\\\"\\n\"\n"
		   "\t\"__smx_dpa_image_end_%1$s:\\n\"\n"
		   "\t\".previous\\n\");\n", app, image);
	fprintf(f, "extern const unsigned char __smx_dpa_image_%1$s[] "
		   "__attribute__((visibility(\"hidden\")));\n"
		   "extern const unsigned char __smx_dpa_image_end_%1$s[] "
		   "__attribute__((visibility(\"hidden\")));\n\n"
		   "struct flexio_app *%1$s;\n", app);
	for (i = 0; i < nents; i++) {
		struct entry *e = &ents[i];

		if (!e->marked || !e->defined)
			continue;
		fprintf(f, "\n/* %s: %zu argument(s) */\n", e->name, e->nparams);
		fprintf(f, "__attribute__((noinline, used, visibility(\"default\"))) void %1$s(void);\n"
			   "void %1$s(void)\n{\n\tsmx_flexio_stub_called(\"%1$s\");\n}\n", e->name);
		fprintf(f, "static void __smx_pack_%s(void *argbuf, va_list ap)\n{\n"
			   "\tuint64_t *a_ = (uint64_t *)argbuf;\n\n\t(void)a_;\n\t(void)ap;\n",
			e->name);
		for (j = 0; j < e->nparams; j++)
			fprintf(f, "\ta_[%zu] = va_arg(ap, uint64_t);\n", j);
		fprintf(f, "}\n");
	}
	fprintf(f, "\n__attribute__((constructor)) static void __smx_dpa_register_%1$s(void)\n{\n"
		   "\tstruct flexio_app_attr attr = {\n"
		   "\t\t.app_name = \"%1$s\",\n"
		   "\t\t.app_ptr = (void *)__smx_dpa_image_%1$s,\n"
		   "\t\t.app_bsize = (size_t)(__smx_dpa_image_end_%1$s - __smx_dpa_image_%1$s),\n"
		   "\t};\n\n"
		   "\tif (flexio_app_create(&attr, &%1$s))\n\t\treturn;\n", app);
	for (i = 0; i < nents; i++) {
		struct entry *e = &ents[i];

		if (!e->marked || !e->defined)
			continue;
		fprintf(f, "\tflexio_func_pup_register(%1$s, \"%2$s\", \"__smx_dpa_unpack_%2$s\", "
			   "%2$s, %3$zu, __smx_pack_%2$s);\n", app, e->name, e->nparams * 8);
	}
	fprintf(f, "}\n\n__attribute__((destructor)) static void __smx_dpa_unregister_%1$s(void)\n"
		   "{\n\tflexio_app_destroy(%1$s);\n\t%1$s = NULL;\n}\n", app);
	if (fclose(f))
		die("cannot write %s", path);
}

/* ---- command line ------------------------------------------------------------- */
static void usage(void)
{
	printf("usage: %s <device .c files> -o <out.a> [--app-name=NAME] [-hostcc=CC]\n"
	       "       [--devicecc-options=\"...\"] [-hostcc-options=\"...\"] [-mcpu=...]\n"
	       "       [-device-libs=\"-L.. -l..\"] [-keep] [-keep-dir=DIR] [-v]\n"
	       "Builds FlexIO device code for softmlx5's software DPA (dpacc's command line).\n",
	       prog);
}

/* Device options that mean something only to dpa-clang. */
static bool dpa_only(const char *o)
{
	static const char *const pfx[] = { "-mcpu=", "-march=", "-mabi=", "-mcmodel=", "-mtune=",
					   "--target=", "-fuse-ld=" };
	static const char *const exact[] = { "-mno-relax", "-mrelax", "-nostdlib",
					     "-nostartfiles", "-nodefaultlibs", "-flto",
					     "-static", "-fno-pic", "-fno-PIC" };
	size_t i;

	for (i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(o, pfx[i], strlen(pfx[i])))
			return true;
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(o, exact[i]))
			return true;
	return !strncmp(o, "-flto=", 6);
}

/*
 * The FlexIO headers: $SOFTMLX5_FLEXIO_INCLUDE, else <prefix>/include when
 * this dpacc runs from an installed <prefix>/bin (the SDK's layout), else the
 * source tree this dpacc was built from.
 */
static const char *flexio_include_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("SOFTMLX5_FLEXIO_INCLUDE");
	char probe[PATH_MAX + 64], *slash;
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n > 0 && (size_t)n < sizeof(dir) - 1) {
		dir[n] = 0;
		if ((slash = strrchr(dir, '/')))
			*slash = 0;
		if ((slash = strrchr(dir, '/')) && slash != dir) {
			*slash = 0;
			snprintf(probe, sizeof(probe), "%s/include/libflexio-dev/flexio_dev.h", dir);
			if (access(probe, R_OK) == 0 &&
			    strlen(dir) + sizeof("/include") <= sizeof(dir)) {
				strcat(dir, "/include");
				return dir;
			}
		}
	}
	return SMX_FLEXIO_INCLUDE_DIR;
}

static bool valid_ident(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

int main(int argc, char **argv)
{
	struct vec srcs = {}, devopts_raw = {}, devopts = {}, hostopts = {}, devlibs = {}, cmd = {};
	const char *out = NULL, *app = "__dpa_a_out", *hostcc = "gcc", *keepdir = NULL;
	const char *inc = flexio_include_dir();
	char tmpl[] = "/tmp/softmlx5-dpacc.XXXXXX", *tmp, path[PATH_MAX], image[PATH_MAX];
	bool keep = false;
	size_t i;
	int a;

	for (a = 1; a < argc; a++) {
		const char *o = argv[a], *n, *v;

		if (o[0] != '-') {
			vpush(&srcs, o);
			continue;
		}
		n = o + 1 + (o[1] == '-');
		v = strchr(n, '=');
#define OPT(name) (!strncmp(n, name, strlen(name)) && (n[strlen(name)] == '=' || !n[strlen(name)]))
#define VAL() (v ? v + 1 : (a + 1 < argc ? argv[++a] : (die("%s needs a value", o), "")))
		if (!strcmp(o, "-o")) {
			out = VAL();
		} else if (!strncmp(o, "-o", 2) && o[2] != '-') {
			out = o + 2;
		} else if (OPT("app-name")) {
			app = VAL();
		} else if (OPT("hostcc")) {
			hostcc = VAL();
		} else if (OPT("hostcc-options")) {
			split_opts(&hostopts, VAL());
		} else if (OPT("devicecc-options")) {
			split_opts(&devopts_raw, VAL());
		} else if (OPT("device-libs") || OPT("devicelink-options")) {
			split_opts(&devlibs, VAL());
		} else if (OPT("mcpu") || OPT("dpa-proc-attr") || OPT("disable-asm-checks") ||
			   OPT("flto") || OPT("O0") || OPT("O1") || OPT("O2") || OPT("O3") ||
			   OPT("g")) {
			/* dpa-clang targeting/optimisation: nothing to do for the host build */
		} else if (OPT("keep")) {
			keep = true;
		} else if (OPT("keep-dir")) {
			keepdir = VAL();
			keep = true;
		} else if (!strcmp(o, "-v") || OPT("verbose")) {
			verbose = true;
		} else if (!strcmp(o, "-h") || OPT("help")) {
			usage();
			return 0;
		} else if (OPT("version") || !strcmp(o, "-V")) {
			printf("softmlx5-dpacc 0.1 (dpacc 1.6 command line, host-compiled DPA code)\n");
			return 0;
		} else if (o[1] == 'I' || o[1] == 'D' || o[1] == 'U') {
			vpush(&devopts_raw, o);
		} else if (OPT("gen-libs")) {
			die("--gen-libs (DPA libraries) is not supported yet");
		} else {
			fprintf(stderr, "%s: warning: ignoring option %s\n", prog, o);
		}
	}
	if (!out || !srcs.n) {
		usage();
		die("need device sources and -o <out.a>");
	}
	if (!valid_ident(app))
		die("--app-name=%s is not a C identifier", app);
	for (i = 0; i < devopts_raw.n; i++)
		if (!dpa_only(devopts_raw.v[i]))
			vpush(&devopts, devopts_raw.v[i]);
	if (keepdir) {
		mkdir(keepdir, 0700);
		tmp = (char *)keepdir;
	} else if (!(tmp = mkdtemp(tmpl))) {
		die("mkdtemp: %s", strerror(errno));
	}

	for (i = 0; i < srcs.n; i++) {
		char ipath[PATH_MAX], wpath[PATH_MAX], opath[PATH_MAX], abs[PATH_MAX], *text, *dir;

		if (!realpath(srcs.v[i], abs))
			die("%s: %s", srcs.v[i], strerror(errno));
		snprintf(ipath, sizeof(ipath), "%s/dev%zu.i", tmp, i);
		snprintf(wpath, sizeof(wpath), "%s/dev%zu.c", tmp, i);
		snprintf(opath, sizeof(opath), "%s/dev%zu.o", tmp, i);
		cur_src = i;
		dir = xstrdup(abs);
		*strrchr(dir, '/') = 0;
		/* 1. find the entry points */
		vreset(&cmd);
		vpush(&cmd, hostcc);
		vpush(&cmd, "-E");
		vpush(&cmd, "-D__DPA__=1");
		vpush(&cmd, "-D__SMX_DPACC__=1");
		vpush(&cmd, "-D__dpa_global__=" MARK_GLOBAL);
		vpush(&cmd, "-D__dpa_rpc__=" MARK_RPC);
		if (snprintf(path, sizeof(path), "-I%s", inc) >= (int)sizeof(path))
			die("include directory %s: path too long", inc);
		vpush(&cmd, path);
		vcat(&cmd, &devopts);
		vpush(&cmd, abs);
		vpush(&cmd, "-o");
		vpush(&cmd, ipath);
		run(&cmd);
		text = read_file(ipath);
		tokenize(text);
		free(text);
		scan();
		/* 2. compile the source with its unpackers */
		write_device_wrapper(wpath, abs);
		vreset(&cmd);
		vpush(&cmd, hostcc);
		vpush(&cmd, "-c");
		vpush(&cmd, "-fPIC");
		vpush(&cmd, "-D__DPA__=1");
		vpush(&cmd, "-D__SMX_DPACC__=1");
		vpush(&cmd, path);	/* -I<inc> */
		snprintf(ipath, sizeof(ipath), "-I%s", dir);
		vpush(&cmd, ipath);
		vcat(&cmd, &devopts);
		vpush(&cmd, wpath);
		vpush(&cmd, "-o");
		vpush(&cmd, opath);
		run(&cmd);
		free(dir);
	}
	for (i = 0, a = 0; i < nents; i++)
		a += ents[i].marked && ents[i].defined;
	if (!a)
		fprintf(stderr, "%s: warning: no __dpa_global__ / __dpa_rpc__ entry points found\n",
			prog);

	/* 3. the device image */
	snprintf(image, sizeof(image), "%s/%s.dpa.so", tmp, app);
	vreset(&cmd);
	vpush(&cmd, hostcc);
	vpush(&cmd, "-shared");
	vpush(&cmd, "-fPIC");
	vpush(&cmd, "-Wl,-Bsymbolic");
	vpush(&cmd, "-o");
	vpush(&cmd, image);
	for (i = 0; i < srcs.n; i++) {
		snprintf(path, sizeof(path), "%s/dev%zu.o", tmp, i);
		vpush(&cmd, path);
	}
	for (i = 0; i < devopts.n; i++)	/* sanitizer flags must reach the link too */
		if (!strncmp(devopts.v[i], "-fsanitize", 10))
			vpush(&cmd, devopts.v[i]);
	vcat(&cmd, &devlibs);
	run(&cmd);

	/* 4. the host side and the archive */
	snprintf(path, sizeof(path), "%s/host.c", tmp);
	write_host(path, app, image);
	vreset(&cmd);
	vpush(&cmd, hostcc);
	vpush(&cmd, "-c");
	vpush(&cmd, "-fPIC");
	if (snprintf(image, sizeof(image), "-I%s", inc) >= (int)sizeof(image))
		die("include directory %s: path too long", inc);
	vpush(&cmd, image);
	vcat(&cmd, &hostopts);
	vpush(&cmd, path);
	vpush(&cmd, "-o");
	snprintf(path, sizeof(path), "%s/%s.host.o", tmp, app);
	vpush(&cmd, path);
	run(&cmd);
	unlink(out);
	vreset(&cmd);
	vpush(&cmd, "ar");
	vpush(&cmd, "rcs");
	vpush(&cmd, out);
	vpush(&cmd, path);
	run(&cmd);

	if (!keep) {
		vreset(&cmd);
		vpush(&cmd, "rm");
		vpush(&cmd, "-rf");
		vpush(&cmd, tmp);
		run(&cmd);
	} else {
		fprintf(stderr, "%s: intermediate files kept in %s\n", prog, tmp);
	}
	vfree(&srcs);
	vfree(&devopts_raw);
	vfree(&devopts);
	vfree(&hostopts);
	vfree(&devlibs);
	vfree(&cmd);
	return 0;
}
