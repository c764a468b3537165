// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon-probe: drive the damon source (src_damon_ops) on its own and print
 * what it reports. Used by tests/integration/damon_fake.sh against a fake
 * tree, and inside the QEMU guest against the guest's real /sys.
 *
 *   damon-probe [-s SYSFS] [-p PROC] [-r RUN_DIR] [-n POLLS] [-S SAMPLE_US]
 *               [-A AGGR_US] [-H HOT_MIN] [-t TOP] [-L PID] [-c] PID...
 *
 * -L adds PID to the targets after half the polls (an online change).
 * -c exits after the polls without close(), as a crash would.
 * SIGTERM or SIGINT end the polls early; close() runs as in pghotd.
 * Exit: 0 ok, 2 open failed, 3 set_targets failed, 4 poll failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux/damon.h"
#include "linux/source.h"

#define MAX_KEEP 4096

struct seen {
	struct pl_range r[MAX_KEEP];
	int n, hot, cold;
	unsigned long long hot_bytes, cold_bytes;
};

static struct seen seen;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static void plog(void *arg, int level, const char *msg)
{
	printf("log<%d>: %s\n", level, msg);
}

static int on_ranges(void *arg, const struct pl_range *rv, size_t n)
{
	struct seen *s = arg;

	for (size_t i = 0; i < n; i++) {
		const struct pl_range *r = &rv[i];

		if (s->n < MAX_KEEP)
			s->r[s->n++] = *r;
		if (r->cold) {
			s->cold++;
			s->cold_bytes += r->end - r->start;
		} else {
			s->hot++;
			s->hot_bytes += r->end - r->start;
		}
	}
	return 0;
}

static int by_accesses(const void *a, const void *b)
{
	const struct pl_range *x = a, *y = b;

	if (x->nr_accesses != y->nr_accesses)
		return x->nr_accesses < y->nr_accesses ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct src_env env = {
		.sysfs_root = "/sys",
		.procfs_root = "/proc",
		.run_dir = "/run/pghot",
		.log = plog,
	};
	struct damon_cfg cfg = {
		.sample_us = 5000,
		.aggr_us = 100000,
		.min_nr_regions = 10,
		.max_nr_regions = 1000,
		.hot_min_accesses = 1,
	};
	const struct src_ops *ops = src_damon.ops;
	const struct src_sink sink = { .ranges = on_ranges, .sink_arg = &seen };
		int polls = 5, top = 8, opt, err;
	bool crash = false;
	pid_t pids[64], late = 0;
	size_t npids = 0;
	char errbuf[2048] = "";
	struct src_stats st;
	void *p = NULL;

	while ((opt = getopt(argc, argv, "s:p:r:n:S:A:H:t:L:c")) != -1) {
		switch (opt) {
		case 's': env.sysfs_root = optarg; break;
		case 'p': env.procfs_root = optarg; break;
		case 'r': env.run_dir = optarg; break;
		case 'n': polls = atoi(optarg); break;
		case 'S': cfg.sample_us = strtoull(optarg, NULL, 10); break;
		case 'A': cfg.aggr_us = strtoull(optarg, NULL, 10); break;
		case 'H': cfg.hot_min_accesses = (uint32_t)atoi(optarg); break;
		case 't': top = atoi(optarg); break;
		case 'c': crash = true; break;
		case 'L': late = (pid_t)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-s SYSFS] [-p PROC] [-r RUN_DIR] [-n POLLS] [-S SAMPLE_US] [-A AGGR_US] [-H HOT_MIN] [-t TOP] [-L PID] [-c] PID...\n", argv[0]);
			return 1;
		}
	}
	for (int i = optind; i < argc && npids < 64; i++)
		pids[npids++] = (pid_t)atoi(argv[i]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	err = ops->open(&env, &cfg, &p, errbuf, sizeof(errbuf));
	if (err) {
		printf("open: error %d: %s\n", err, errbuf);
		return 2;
	}
	printf("open: ok, layout %s, %s, interval %llu ms\n",
	       damon_src_layout(p)->name,
	       damon_src_per_target_kdamonds(p) ? "one kdamond per target" :
						  "target filters",
	       (unsigned long long)ops->interval_ms(p));
	err = ops->set_targets(p, pids, npids);
	if (err) {
		printf("set_targets: error %d\n", err);
		ops->close(p);
		return 3;
	}
	for (int i = 1; i <= polls && !stop; i++) {
		uint64_t t0 = now_ms();
		int n;

		if (late && i == polls / 2 + 1 && npids < 64) {
			pids[npids++] = late;
			err = ops->set_targets(p, pids, npids);
			printf("set_targets +%d: %d\n", (int)late, err);
		}
		memset(&seen, 0, sizeof(seen));
		n = ops->poll(p, t0, &sink);
		if (n < 0) {
			printf("poll %d: error %d\n", i, n);
			ops->close(p);
			return 4;
		}
		printf("poll %d (%llu ms): %d reports: hot %d (%llu KiB), cold %d (%llu KiB)\n",
		       i, (unsigned long long)(now_ms() - t0), n, seen.hot,
		       seen.hot_bytes >> 10, seen.cold, seen.cold_bytes >> 10);
		qsort(seen.r, (size_t)seen.n, sizeof(seen.r[0]), by_accesses);
		for (int j = 0; j < seen.n && j < top; j++) {
			const struct pl_range *r = &seen.r[j];

			printf("  %s pid=%d %#llx-%#llx %llu KiB nr_accesses=%u age=%u\n",
			       r->cold ? "cold" : "hot", (int)r->pid,
			       (unsigned long long)r->start,
			       (unsigned long long)r->end,
			       (unsigned long long)(r->end - r->start) >> 10,
			       r->nr_accesses, r->age);
		}
		if (i < polls) {
			uint64_t spent = now_ms() - t0, iv = ops->interval_ms(p);

			if (spent < iv)
				usleep((useconds_t)(iv - spent) * 1000);
		}
	}
	if (stop)
		printf("signal %d: stopping\n", (int)stop);
	ops->stats(p, &st);
	printf("stats: reports %llu bytes %llu errors %llu\n",
	       (unsigned long long)st.reports,
	       (unsigned long long)st.bytes_reported,
	       (unsigned long long)st.errors);
	if (crash) {
		printf("crash: exiting without close()\n");
		_exit(0);
	}
	ops->close(p);
	printf("closed\n");
	return 0;
}
