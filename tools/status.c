/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 status [--json] [--wait MS] [PID]: the device as every process of the
 * user on this host (network namespace) has it now. Asks each live slot of
 * the shared segment for a snapshot (smx_shm_status_ask(): a word in its
 * slot and its inbox's bell; the process's inbox thread answers, reading
 * only -- eng_status.c), then prints what each wrote: its QPs (type,
 * state, PSNs, WQEs posted / taken, requests in flight), CQs (size,
 * fill), SRQs, memory keys (range, rights) and the number of objects of
 * every other kind, and its share of the port counters; with PID, that
 * process alone. A process that does not answer in time (stopped, or
 * busy beyond it) is listed as such. --json: one object, the processes'
 * snapshots as they wrote them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/config.h"
#include "device/fabric/shm.h"
#include "status_cmd.h"

/* A snapshot file whole (NUL-terminated), or NULL. */
static char *status_read(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = (cap + 4096) * 2);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return buf;
}

/*
 * The text form of a snapshot (our own JSON: objects, arrays, numbers,
 * strings without escapes, true/false): each array of objects becomes a
 * line per object, "key value ..."; a top-level object's plain members
 * one line. A pointer past what was printed, or NULL on malformed input.
 */
static const char *status_value(const char *s, FILE *o);

static const char *status_members(const char *s, FILE *o, const char *indent)
{
	bool first = true;

	if (*s++ != '{')
		return NULL;
	while (*s && *s != '}') {
		const char *k = s + 1, *ke;

		if (*s == ',')
			k = ++s + 1;
		if (*s != '"' || !(ke = strchr(k, '"')))
			return NULL;
		s = ke + 1;
		if (*s++ != ':')
			return NULL;
		if (*s == '[' && s[1] == '{') {
			fprintf(o, "%s%.*s:\n", first ? "" : "\n", (int)(ke - k), k);
			s++;
			while (*s == '{' || *s == ',') {
				if (*s == ',')
					s++;
				fputs(indent, o);
				if (!(s = status_members(s, o, "")))
					return NULL;
				fputc('\n', o);
			}
			if (*s++ != ']')
				return NULL;
			first = true;
			continue;
		}
		if (*s == '[' && s[1] == ']') {
			s += 2;		/* none of these */
			continue;
		}
		fprintf(o, "%s%.*s ", first ? indent : " ", (int)(ke - k), k);
		first = false;
		if (!(s = status_value(s, o)))
			return NULL;
	}
	return *s == '}' ? s + 1 : NULL;
}

static const char *status_value(const char *s, FILE *o)
{
	const char *e;

	if (*s == '"') {
		if (!(e = strchr(s + 1, '"')))
			return NULL;
		fprintf(o, "%.*s", (int)(e - s - 1), s + 1);
		return e + 1;
	}
	if (*s == '{')
		return status_members(s, o, "  ");
	if (*s == '[') {
		fputc('[', o);
		for (s++; *s && *s != ']'; s++)
			fputc(*s == ',' ? ' ' : *s, o);
		if (*s != ']')
			return NULL;
		fputc(']', o);
		return s + 1;
	}
	for (e = s; *e && *e != ',' && *e != '}' && *e != ']'; e++)
		;
	if (e == s)
		return NULL;
	fprintf(o, "%.*s", (int)(e - s), s);
	return e;
}

int cmd_status(int argc, char **argv)
{
	int32_t pids[SMX_SHM_SLOTS] = { 0 };
	uint64_t asked, answered;
	uint32_t wait_ms = 500, i, n = 0;
	struct smx_config c;
	char path[256], file[300];
	const char *p;
	bool json = false;
	long only = 0;
	int a, ret;

	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "--json") || !strcmp(argv[a], "-j")) {
			json = true;
		} else if (!strcmp(argv[a], "--wait") && a + 1 < argc) {
			wait_ms = (uint32_t)strtoul(argv[++a], NULL, 10);
		} else if (argv[a][0] >= '1' && argv[a][0] <= '9' && !only) {
			only = strtol(argv[a], NULL, 10);
		} else {
			fprintf(stderr, "softmlx5 status: unexpected argument "
				"'%s'\nusage: softmlx5 status [--json] "
				"[--wait MS] [PID]\n", argv[a]);
			return 2;
		}
	}
	if (smx_config_load(&c) != 0) {
		fprintf(stderr, "softmlx5 status: the configuration is invalid "
			"(see the error above)\n");
		return 1;
	}
	p = smx_shm_default_path(path, sizeof(path));
	if (!p) {
		fprintf(stderr, "softmlx5 status: %s\n", errno == ENODEV ?
			"SOFTMLX5_SHM_PATH=off: every process has the device "
			"to itself; nothing to look at" : "no shared segment");
		return 1;
	}
	ret = smx_shm_status_ask(p, wait_ms, only, &asked, &answered, pids);
	if (ret == -ENOENT) {
		asked = answered = 0;	/* nobody has the device open */
	} else if (ret) {
		fprintf(stderr, "softmlx5 status: %s: %s\n", p, ret == -ESTALE ?
			"of another softmlx5 version's layout" : strerror(-ret));
		return 1;
	}
	if (json)
		printf("{\"device\":\"%s\",\"segment\":\"%s\",\"processes\":[",
		       c.dev_name, p);
	else
		printf("# %s: %u process%s (%s)\n", c.dev_name,
		       (unsigned)__builtin_popcountll(asked),
		       __builtin_popcountll(asked) == 1 ? "" : "es", p);
	for (i = 0; i < SMX_SHM_SLOTS; i++) {
		char *snap = NULL;

		if (!(asked >> i & 1))
			continue;
		snprintf(file, sizeof(file), "%s.status.%u", p, i);
		if (answered >> i & 1)
			snap = status_read(file);
		if (json) {
			if (snap)
				printf("%s%s", n ? "," : "", snap);
			else
				printf("%s{\"pid\":%d,\"slot\":%u,\"answered\":"
				       "false}", n ? "," : "", (int)pids[i], i);
		} else if (!snap) {
			printf("\npid %d (slot %u): no answer within %u ms "
			       "(stopped?)\n", (int)pids[i], i, wait_ms);
		} else {
			putchar('\n');
			if (!status_members(snap, stdout, ""))
				printf("\n(pid %d: a snapshot that does not "
				       "parse)", (int)pids[i]);
			putchar('\n');
		}
		n++;
		free(snap);
	}
	if (json)
		printf("]}\n");
	return 0;
}
