/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hwhint: hardware-sampled accesses (AMD IBS, Intel PEBS; Arm SPE found but
 * not decoded) through perf_event_open(), as pl_samples with the page's
 * node known. The machinery behind the hwhint source (src_hwhint.c adapts
 * it to struct src_ops).
 *
 *   PMU events (one set per CPU) --perf mmap rings--> reader thread(s)
 *     --decode, filter to targets, node from PHYS_ADDR--> sampleq (SPSC,
 *     bounded, full = drop) --hwhint_poll(), batches--> the sink
 *
 * Events: a fixed sample_period (never frequency mode: the kernel lowers
 * perf_event_max_sample_rate under load and freq mode then drifts);
 * sample_type TID|TIME|ADDR|CPU|DATA_SRC|PHYS_ADDR (+WEIGHT on PMUs that
 * fill it); time on CLOCK_MONOTONIC (attr.use_clockid), the daemon's clock.
 * per_cpu: one event set per CPU for all tasks (pid -1), samples of other
 * processes dropped by the reader; otherwise one set per CPU for each
 * thread of each target (pid = tid, inherit for new threads), writing into
 * per-CPU rings (PERF_EVENT_IOC_SET_OUTPUT to a dummy carrier event).
 *
 * Page node: physmap (memory blocks) from PHYS_ADDR, no move_pages() per
 * sample; accessing node: the node of the sample's CPU (precise mode
 * promotes there). Counters: named as the kernel's IBS memory profiler
 * names them (arch/x86/mm/ibs-mprof.c, pghot v8), see struct
 * hwhint_counters.
 *
 * Privileges: per_cpu sampling of all tasks and PHYS_ADDR need CAP_PERFMON
 * (Linux 5.8+) or CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0 (<= 1
 * for PHYS_ADDR of own processes). The rings count against
 * perf_event_mlock_kb unless CAP_IPC_LOCK.
 */
#ifndef PGHOT_LINUX_HWHINT_H
#define PGHOT_LINUX_HWHINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/pipeline.h"
#include "linux/source.h"

/* The source (src_hwhint.c): struct src_ops over the functions below. */
extern const struct src_desc src_hwhint;

/* Length of the pmu key: SRC_PATH_LEN, as a SRC_KEY_STRING wants. */
#define HWHINT_STR_LEN 1024

/* The [hwhint] section of pghot.conf (src_hwhint.c lists the keys). */
struct hwhint_cfg {
	char pmu[HWHINT_STR_LEN];	/* auto|ibs|pebs|spe|faults|PMU name */
	uint64_t period;		/* start (or fixed) sample period,
					 * events (IBS: ops) */
	uint64_t period_min, period_max;
	bool adaptive;			/* move the period within the bounds */
	bool per_cpu;			/* system-wide per CPU, else per target */
	uint64_t ldlat;			/* load-latency threshold, cycles, 0 =
					 * PMU default */
	bool l3miss_only;		/* IBS: only ops that missed L3 */
	bool stores;			/* PEBS: also sample stores */
	bool lower_only;		/* queue only samples of pages not known
					 * to be on the top tier */
	uint64_t ring_pages;		/* data pages per ring, power of two */
	uint64_t queue_len;		/* samples per reader queue, power of 2 */
	uint64_t readers;		/* reader threads */
	uint64_t wakeup_ms;		/* a reader drains at least this often */
	uint64_t adapt_ms;		/* control interval of the period */
	uint64_t new_hi, new_lo;	/* new lower-tier pages/s: faster, slower */
	uint64_t share_hi_pm, share_lo_pm; /* lower-tier share, per mille */
};

/** hwhint_cfg_default() - the defaults of every key. */
void hwhint_cfg_default(struct hwhint_cfg *c);

/**
 * hwhint_cfg_check() - cross-key checks: period_min <= period <=
 * period_max, ring_pages and queue_len powers of two, new_lo <= new_hi,
 * share_lo_pm <= share_hi_pm, pmu a name (no '/', not "." or "..": it is
 * looked up under <sysfs_root>/bus/event_source/devices).
 * Return: 0, or -EINVAL with the keys named in @errbuf.
 */
int hwhint_cfg_check(const struct hwhint_cfg *c, char *errbuf, size_t errlen);

/**
 * hwhint_check() - what hwhint_open() would refuse before it opens any
 * event: the cross-key checks and the PMU @cfg names (or the best one for
 * "auto") under <@sysfs_root>/bus/event_source/devices. Read only (pghotd
 * --check-config).
 * @msg/@len: the PMU found ("PMU ibs_op"), or what is wrong and what to do.
 * Return: 0, or the errors of hwhint_cfg_check() and pmu_plan(),
 * -EOPNOTSUPP for Arm SPE (not decoded yet).
 */
int hwhint_check(const struct hwhint_cfg *cfg, const char *sysfs_root, char *msg,
		 size_t len);

/* Counters (cumulative). The first five as the kernel's IBS memory profiler
 * counts them: total = samples decoded; useful = samples with a user data
 * address and a physical address, of a target process; dropped = useful
 * samples a full queue refused; dram/extmem = samples whose data source
 * says DRAM / CXL or PMEM (counted, never filtered on). */
struct hwhint_counters {
	uint64_t hwhint_total_events;
	uint64_t hwhint_useful_events;
	uint64_t hwhint_dropped_events;
	uint64_t hwhint_dram_accesses;
	uint64_t hwhint_extmem_accesses;
	/* records the kernel wrote besides samples */
	uint64_t hwhint_throttle_records;	/* PERF_RECORD_THROTTLE */
	uint64_t hwhint_unthrottle_records;	/* PERF_RECORD_UNTHROTTLE */
	uint64_t hwhint_lost_records;		/* PERF_RECORD_LOST records */
	uint64_t hwhint_lost_events;		/* samples they say were lost */
	uint64_t hwhint_lost_samples_records;	/* PERF_RECORD_LOST_SAMPLES */
	uint64_t hwhint_lost_samples;		/* samples the PMU dropped */
	uint64_t hwhint_other_records;		/* known types, ignored */
	uint64_t hwhint_unknown_records;
	uint64_t hwhint_malformed_records;	/* failed to decode */
	uint64_t hwhint_ring_corrupt;		/* framing breaks */
	uint64_t hwhint_ring_wrapped;		/* records across the ring end */
	/* why samples were not useful, and what became of useful ones */
	uint64_t hwhint_noaddr_events;		/* no user address or no PHYS_ADDR */
	uint64_t hwhint_untargeted_events;	/* another process */
	uint64_t hwhint_nonode_events;		/* PHYS_ADDR in no memory block */
	uint64_t hwhint_toptier_events;		/* page on the top tier (not
						 * queued with lower_only) */
	uint64_t hwhint_lower_events;		/* page on a lower tier */
	uint64_t hwhint_new_lower_pages;	/* lower-tier pages new lately */
	uint64_t hwhint_reported;		/* handed to the sink */
	/* state */
	uint64_t hwhint_period;			/* current sample period */
	uint64_t hwhint_period_changes;
	uint64_t hwhint_events_open;		/* perf event descriptors */
	uint64_t hwhint_rings;
	uint64_t hwhint_open_errors;		/* per-target opens that failed */
};

struct hwhint;

/**
 * hwhint_open() - plan the events, open them, map the rings, start the
 * readers. With per_cpu the events run (disabled while there is no target);
 * otherwise events come with hwhint_set_targets().
 * @cfg:         copied.
 * @env:         sysfs_root (PMUs, topology and memory blocks below it),
 *               procfs_root (threads of targets, perf_event_paranoid),
 *               log (may be NULL), lower_override (the config's tiers);
 *               borrowed for the call.
 * @errbuf:      on failure, what is wrong and what to do (no PMU: what is
 *               missing and what works instead; a refused open: the
 *               privilege or sysctl that decides).
 * Return: 0 with *@ret set; -ENODEV (no usable PMU), -EOPNOTSUPP (Arm SPE:
 * AUX-area decoding is not implemented), -EACCES/-EPERM (privilege), the
 * errno of perf_event_open()/mmap(), -ENOMEM.
 */
int hwhint_open(const struct hwhint_cfg *cfg, const struct src_env *env,
		struct hwhint **ret, char *errbuf, size_t errlen);

/**
 * hwhint_set_targets() - the processes to sample now (the full set).
 * Per target: opens events for every thread of new targets, closes those
 * of targets gone. A thread that exits meanwhile is skipped.
 * Return: 0, -ENOMEM, or the first errno of perf_event_open() (the other
 * targets are still set up; counted in hwhint_open_errors).
 */
int hwhint_set_targets(struct hwhint *h, const pid_t *pids, size_t n);

/** hwhint_fd() - an eventfd that turns readable when samples are queued. */
int hwhint_fd(const struct hwhint *h);

/* Where hwhint_poll() hands samples: 0 or a negative errno to stop. */
typedef int (*hwhint_sink_fn)(void *arg, const struct pl_sample *s, size_t n);

/**
 * hwhint_poll() - hand the queued samples to @fn in batches (at most one
 * queue's capacity per reader per call), then adapt the period if
 * adapt_ms passed. Never blocks.
 * Return: samples handed over, or the negative errno @fn returned.
 */
int hwhint_poll(struct hwhint *h, uint64_t now_ms, hwhint_sink_fn fn, void *arg);

/** hwhint_counters() - sum of every reader's counters and the state. */
void hwhint_counters(struct hwhint *h, struct hwhint_counters *ret);

/** hwhint_describe() - one line: PMU, features, mode, period. */
void hwhint_describe(const struct hwhint *h, char *buf, size_t len);

/** hwhint_close() - stop the readers, close every event, free. NULL: no-op. */
void hwhint_close(struct hwhint *h);

/**
 * hwhint_data_src_class() - what union perf_mem_data_src @ds says served
 * the access: 1 DRAM (LVLNUM_RAM, or legacy LOC_RAM/REM_RAM*), 2 external
 * memory (LVLNUM_CXL or LVLNUM_PMEM), 0 otherwise (a cache, NA).
 */
int hwhint_data_src_class(uint64_t ds);

#endif
