/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internals of the hwhint machinery, shared by hwhint.c (events, targets,
 * the loop's side) and hwhint_reader.c (reader threads). */
#ifndef PGHOT_LINUX_HWHINT_INT_H
#define PGHOT_LINUX_HWHINT_INT_H

#include <pthread.h>

#include "linux/hwhint.h"
#include "linux/hwhint_period.h"
#include "linux/perf_ring.h"
#include "linux/physmap.h"
#include "linux/pmu.h"
#include "linux/sampleq.h"

#define HW_NR_COUNTERS (sizeof(struct hwhint_counters) / sizeof(uint64_t))

/* The ring of one CPU, written by every event of that CPU. */
struct hw_ring {
	int cpu;
	int owner_fd;		/* the event the ring is mapped on */
	struct perf_ring ring;
};

/* Event descriptors of one CPU set (per_cpu) or one target. */
struct hw_fds {
	int *fd;
	bool *sampling;		/* takes PERF_EVENT_IOC_PERIOD */
	size_t n, cap;
};

struct hw_target {
	pid_t pid;
	struct hw_fds fds;
};

struct hw_reader {
	struct hwhint *h;
	pthread_t th;
	bool started;
	int epfd;
	size_t first_ring, ring_step;	/* rings first, first + step, ... */
	struct sampleq q;
	struct hwp_seen *seen;
	struct perf_rec_counts rc;
	struct hwhint_counters local;	/* the reader's own */
	struct hwhint_counters pub;	/* published copy (relaxed atomics) */
	pid_t *tg;			/* snapshot of the targets, sorted */
	size_t nr_tg, cap_tg;
	uint64_t tg_gen;
};

struct hwhint {
	struct hwhint_cfg cfg;
	struct pmu_plan plan;
	struct perf_rec_format fmt;
	struct physmap pm;		/* nr_runs 0: page nodes unknown */
	int *cpu_node;			/* by CPU number, PGHOT_NID_UNKNOWN */
	size_t nr_cpu_node;
	bool lower[PGHOT_MAX_NODES];
	bool have_tiers;		/* lower[] is known (topology read) */
	int *cpus;			/* CPUs sampled */
	size_t nr_cpus;
	struct hw_ring *rings;		/* one per CPU of cpus[] */
	size_t nr_rings;
	struct hw_fds cpu_fds;		/* per_cpu: every event */
	struct hw_target *targets;	/* per target */
	size_t nr_targets;
	struct hw_reader *readers;
	size_t nr_readers;
	int notify_fd;			/* readers -> loop */
	int stop_fd;			/* loop -> readers */
	bool stop;
	bool enabled;			/* per_cpu events enabled */
	pthread_mutex_t tg_mu;		/* guards tg, nr_tg */
	pid_t *tg;
	size_t nr_tg;
	uint64_t tg_gen;		/* bumped (release) on every change */
	struct hwp_params hp;
	struct hwp_state hs;
	uint64_t last_adapt_ms;
	struct hwhint_counters last;	/* at the last adaptation */
	uint64_t period_changes, open_errors, reported;
	src_log_fn log;
	void *log_arg;
	char procfs_root[512];
};

#define hw_log(h, level, ...) src_logf((h)->log, (h)->log_arg, level, __VA_ARGS__)

/* hwhint_reader.c */
int hw_readers_start(struct hwhint *h, char *errbuf, size_t errlen);
void hw_readers_stop(struct hwhint *h);
/** hw_drain_ring() - decode every record of @ring into @r's queue and
 * counters. Return: samples queued. Exposed for the benchmark. */
size_t hw_drain_ring(struct hw_reader *r, struct hw_ring *ring);
/** hw_reader_publish() - copy @r's counters for hwhint_counters(). */
void hw_reader_publish(struct hw_reader *r);

#endif
