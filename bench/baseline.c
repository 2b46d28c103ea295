/* SPDX-License-Identifier: MIT */
/*
 * Physical baselines for `make bench`, measured in the same run:
 *   baseline lat [ROUNDS]   one-way latency of handing a cache line between
 *                           two processes through shared memory (fork, a
 *                           MAP_SHARED page, each side waits for the other's
 *                           store); prints microseconds, the median of 20
 *                           chunks of the rounds.
 *   baseline memcpy SIZE    single-thread memcpy bandwidth between two hot
 *                           buffers of SIZE bytes; prints MiB/s (2^20 bytes,
 *                           as perftest's MB/sec).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The middle of @n values (sorts them). */
static double median(double *v, int n)
{
	int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define LAT_CHUNKS 20

/* The rounds go in LAT_CHUNKS chunks, each timed: the median chunk is the
 * figure, so that a chunk during which the other side was descheduled
 * (another process took its CPU) does not move it. */
static int lat(long rounds)
{
	volatile uint64_t *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long per = rounds / LAT_CHUNKS > 0 ? rounds / LAT_CHUNKS : 1, i;
	double t[LAT_CHUNKS], t0;
	pid_t pid;
	int c;

	if (line == MAP_FAILED) {
		perror("baseline: mmap");
		return 1;
	}
	line[0] = 0;
	pid = fork();
	if (pid < 0) {
		perror("baseline: fork");
		return 1;
	}
	if (pid == 0) {
		/* Child: answer every odd value with the next even one. */
		for (i = 0; i < per * LAT_CHUNKS; i++) {
			uint64_t want = 2 * (uint64_t)i + 1;

			while (__atomic_load_n(&line[0], __ATOMIC_ACQUIRE) != want)
				;
			__atomic_store_n(&line[0], want + 1, __ATOMIC_RELEASE);
		}
		_exit(0);
	}
	for (c = 0, i = 0; c < LAT_CHUNKS; c++) {
		long end = i + per;

		t0 = now_s();
		for (; i < end; i++) {
			uint64_t v = 2 * (uint64_t)i + 1;

			__atomic_store_n(&line[0], v, __ATOMIC_RELEASE);
			while (__atomic_load_n(&line[0], __ATOMIC_ACQUIRE) !=
			       v + 1)
				;
		}
		t[c] = (now_s() - t0) / (double)per / 2 * 1e6;
	}
	waitpid(pid, NULL, 0);
	printf("%.3f\n", median(t, LAT_CHUNKS));
	return 0;
}

static int mcpy(size_t size)
{
	char *a = malloc(size), *b = malloc(size);
	double t0, t, bytes = 0;
	long n = 0;

	if (!a || !b) {
		fprintf(stderr, "baseline: no memory for 2 x %zu bytes\n", size);
		return 1;
	}
	memset(a, 1, size);
	memset(b, 2, size);
	t0 = now_s();
	do {
		memcpy(n & 1 ? a : b, n & 1 ? b : a, size);
		__asm__ __volatile__("" : : "r"(a), "r"(b) : "memory");
		bytes += (double)size;
		n++;
		t = now_s();
	} while (t - t0 < 0.5 || n < 16);
	printf("%.1f\n", bytes / (t - t0) / 1048576.0);
	free(a);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "lat"))
		return lat(argc > 2 ? atol(argv[2]) : 200000);
	if (argc == 3 && !strcmp(argv[1], "memcpy")) {
		char *end;
		unsigned long long s = strtoull(argv[2], &end, 0);

		if (*end || !s || s > (1ull << 30)) {
			fprintf(stderr, "baseline: bad size '%s'\n", argv[2]);
			return 2;
		}
		return mcpy((size_t)s);
	}
	fprintf(stderr, "usage: baseline lat [ROUNDS] | baseline memcpy SIZE\n");
	return 2;
}
