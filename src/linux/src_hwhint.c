// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hwhint source: hardware-sampled accesses (hwhint.h, docs/hwhint.md)
 * as struct src_ops, its [hwhint] keys and its registry entry.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "linux/hwhint.h"
#include "linux/source.h"

_Static_assert(HWHINT_STR_LEN == SRC_PATH_LEN, "pmu is a SRC_KEY_STRING");
_Static_assert(sizeof(struct hwhint_cfg) <= SRC_CFG_MAX, "config too large");

/* How often poll() logs the counters (they are not in struct src_stats). */
#define HW_LOG_EVERY_MS 60000

struct src_hw {
	struct hwhint *h;
	struct src_stats st;
	src_log_fn log;
	void *log_arg;
	uint64_t last_log_ms;
};

static int hw_open(const struct src_env *env, const void *cfg, void **ret_priv,
		   char *errbuf, size_t errlen)
{
	struct src_hw *s = calloc(1, sizeof(*s));
	char desc[512];
	int err;

	if (!s) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	err = hwhint_open(cfg, env, &s->h, errbuf, errlen);
	if (err) {
		free(s);
		return err;
	}
	s->log = env->log;
	s->log_arg = env->log_arg;
	hwhint_describe(s->h, desc, sizeof(desc));
	src_logf(env->log, env->log_arg, LOG_INFO, "hwhint: %s", desc);
	*ret_priv = s;
	return 0;
}

static int hw_check(const struct src_env *env, const void *cfg, char *msg, size_t len)
{
	return hwhint_check(cfg, env->sysfs_root, msg, len);
}

static int hw_set_targets(void *priv, const pid_t *pids, size_t n)
{
	struct src_hw *s = priv;
	int err = hwhint_set_targets(s->h, pids, n);

	if (err)
		s->st.errors++;
	return err;
}

static int hw_fd(void *priv)
{
	struct src_hw *s = priv;

	return hwhint_fd(s->h);
}

static uint64_t hw_interval_ms(void *priv)
{
	/* the fd says when samples wait; the interval drives the adaptive
	 * period when none come */
	return 100;
}

static int to_sink(void *arg, const struct pl_sample *smp, size_t n)
{
	const struct src_sink *sink = arg;

	return sink->samples(sink->sink_arg, smp, n);
}

static void log_counters(struct src_hw *s, uint64_t now_ms)
{
	struct hwhint_counters c;

	if (!s->last_log_ms) {
		s->last_log_ms = now_ms;
		return;
	}
	if (now_ms - s->last_log_ms < HW_LOG_EVERY_MS)
		return;
	s->last_log_ms = now_ms;
	hwhint_counters(s->h, &c);
	src_logf(s->log, s->log_arg, LOG_INFO,
		 "hwhint: hwhint_total_events=%llu hwhint_useful_events=%llu hwhint_dropped_events=%llu hwhint_dram_accesses=%llu hwhint_extmem_accesses=%llu lower=%llu new_lower_pages=%llu lost=%llu throttles=%llu period=%llu",
		 (unsigned long long)c.hwhint_total_events,
		 (unsigned long long)c.hwhint_useful_events,
		 (unsigned long long)c.hwhint_dropped_events,
		 (unsigned long long)c.hwhint_dram_accesses,
		 (unsigned long long)c.hwhint_extmem_accesses,
		 (unsigned long long)c.hwhint_lower_events,
		 (unsigned long long)c.hwhint_new_lower_pages,
		 (unsigned long long)(c.hwhint_lost_events + c.hwhint_lost_samples),
		 (unsigned long long)c.hwhint_throttle_records,
		 (unsigned long long)c.hwhint_period);
}

static int hw_poll(void *priv, uint64_t now_ms, const struct src_sink *sink)
{
	struct src_hw *s = priv;
	int n = hwhint_poll(s->h, now_ms, to_sink, (void *)sink);

	if (n > 0)
		s->st.reports += (uint64_t)n;
	log_counters(s, now_ms);
	return n;
}

static void hw_stats(void *priv, struct src_stats *ret)
{
	struct src_hw *s = priv;
	struct hwhint_counters c;

	hwhint_counters(s->h, &c);
	*ret = s->st;	/* samples, not ranges: bytes_reported stays 0 */
	ret->dropped = c.hwhint_dropped_events + c.hwhint_lost_events + c.hwhint_lost_samples;
	ret->errors = s->st.errors + c.hwhint_malformed_records + c.hwhint_ring_corrupt;
}

/* Every field of struct hwhint_counters, in its order; the state ones are
 * gauges. Names are those of the pghot series' IBS driver where it has
 * them. */
#define HWC(f, g, u, h) { #f, g, u, h }
static const struct src_counter hw_counter_table[] = {
	HWC(hwhint_total_events, false, "samples", "Samples decoded from the perf rings."),
	HWC(hwhint_useful_events, false, "samples",
	    "Samples with a user data address and a physical address, of a target process."),
	HWC(hwhint_dropped_events, false, "samples", "Useful samples the full queue refused."),
	HWC(hwhint_dram_accesses, false, "samples",
	    "Samples whose data source says DRAM (LVLNUM_RAM, or a legacy LOC_RAM/REM_RAM* hit)."),
	HWC(hwhint_extmem_accesses, false, "samples", "Samples whose data source says CXL or PMEM."),
	HWC(hwhint_throttle_records, false, "records",
	    "PERF_RECORD_THROTTLE: the kernel throttled the events (perf_event_max_sample_rate)."),
	HWC(hwhint_unthrottle_records, false, "records", "PERF_RECORD_UNTHROTTLE records."),
	HWC(hwhint_lost_records, false, "records", "PERF_RECORD_LOST records: the ring had no room."),
	HWC(hwhint_lost_events, false, "samples", "Samples the PERF_RECORD_LOST records say were lost."),
	HWC(hwhint_lost_samples_records, false, "records", "PERF_RECORD_LOST_SAMPLES records."),
	HWC(hwhint_lost_samples, false, "samples", "Samples the PMU dropped (PERF_RECORD_LOST_SAMPLES)."),
	HWC(hwhint_other_records, false, "records", "Records of known types that are ignored."),
	HWC(hwhint_unknown_records, false, "records", "Records of unknown types."),
	HWC(hwhint_malformed_records, false, "records", "Records that failed to decode."),
	HWC(hwhint_ring_corrupt, false, "events", "Framing breaks in a ring (the rest of its snapshot skipped)."),
	HWC(hwhint_ring_wrapped, false, "records", "Records copied across a ring's end."),
	HWC(hwhint_noaddr_events, false, "samples", "Samples without a user data address or a physical address."),
	HWC(hwhint_untargeted_events, false, "samples", "Samples of processes that are not targets."),
	HWC(hwhint_nonode_events, false, "samples", "Samples whose physical address is in no memory block."),
	HWC(hwhint_toptier_events, false, "samples", "Useful samples of pages on the top tier."),
	HWC(hwhint_lower_events, false, "samples", "Useful samples of pages on a lower tier."),
	HWC(hwhint_new_lower_pages, false, "pages", "Lower-tier pages not seen in the last 8 s."),
	HWC(hwhint_reported, false, "samples", "Samples handed to the pipeline."),
	HWC(hwhint_period, true, "events", "The current sample period (events per sample)."),
	HWC(hwhint_period_changes, false, "changes", "Changes of the adaptive sample period."),
	HWC(hwhint_events_open, true, "events", "Open perf event descriptors."),
	HWC(hwhint_rings, true, "rings", "Mapped perf rings."),
	HWC(hwhint_open_errors, false, "opens", "Per-target event opens that failed."),
};
#undef HWC

_Static_assert(sizeof(hw_counter_table) / sizeof(hw_counter_table[0]) ==
		       sizeof(struct hwhint_counters) / sizeof(uint64_t),
	       "every hwhint counter has a name");

static void hw_counters(void *priv, src_counter_fn fn, void *arg)
{
	struct src_hw *s = priv;
	struct hwhint_counters c;
	uint64_t v[sizeof(c) / sizeof(uint64_t)];

	hwhint_counters(s->h, &c);
	memcpy(v, &c, sizeof(v));	/* only uint64_t fields, in table order */
	for (size_t i = 0; i < sizeof(hw_counter_table) / sizeof(hw_counter_table[0]); i++)
		fn(arg, hw_counter_table[i].name, v[i], hw_counter_table[i].gauge);
}

static void hw_close(void *priv)
{
	struct src_hw *s = priv;

	if (!s)
		return;
	hwhint_close(s->h);
	free(s);
}

static const struct src_ops hw_ops = {
	.open = hw_open,
	.check = hw_check,
	.set_targets = hw_set_targets,
	.fd = hw_fd,
	.interval_ms = hw_interval_ms,
	.poll = hw_poll,
	.stats = hw_stats,
	.counters = hw_counters,
	.close = hw_close,
};

/* Every key is applied by reload: the source reopens with the new config. */
#define KEY(n, t, lo, hi, d, u, f, h) \
	{ .name = n, .type = SRC_KEY_##t, .min = lo, .max = hi, .def = d, .unit = u, \
	  .help = h, .offset = offsetof(struct hwhint_cfg, f), .runtime = true }
/* a ring or queue size: the reader masks its index */
#define KEY_POW2(n, lo, hi, d, u, f, h) \
	{ .name = n, .type = SRC_KEY_UINT, .min = lo, .max = hi, .def = d, .unit = u, \
	  .help = h, .offset = offsetof(struct hwhint_cfg, f), .runtime = true, .pow2 = true }

static const struct src_key hw_keys[] = {
	KEY("pmu", STRING, 0, 0, "auto", "", pmu,
	    "Sampling PMU: auto (IBS, then PEBS, then SPE), ibs, pebs, spe, faults (software page faults: a proof of the perf path), or a PMU's name under /sys/bus/event_source/devices."),
	KEY("period", UINT, 1, UINT32_MAX, "10000", "events", period,
	    "Sample period to start with (fixed when adaptive is off): one sample every this many events (IBS: ops, rounded to a multiple of 16)."),
	KEY("period_min", UINT, 1, UINT32_MAX, "2000", "events", period_min,
	    "Smallest period the adaptive period goes to (most samples)."),
	KEY("period_max", UINT, 1, UINT32_MAX, "1000000", "events", period_max,
	    "Largest period the adaptive period goes to (IBS caps it at 1048560)."),
	KEY("adaptive", BOOL, 0, 0, "true", "", adaptive,
	    "Move the period between period_min and period_max from the new lower-tier pages found per second and the share of samples on the lower tier."),
	KEY("per_cpu", BOOL, 0, 0, "true", "", per_cpu,
	    "One event set per CPU for all tasks, filtered to the targets (needs CAP_PERFMON); false: events on the targets' threads only."),
	KEY("ldlat", UINT, 0, 65535, "0", "cycles", ldlat,
	    "Load-latency threshold: Intel mem-loads (0: 30), AMD Zen 5 IBS (128..2048), Arm SPE min_latency; 0 leaves the PMU's default."),
	KEY("l3miss_only", BOOL, 0, 0, "true", "", l3miss_only,
	    "AMD IBS: sample only ops that missed L3 (Zen 4 and later)."),
	KEY("stores", BOOL, 0, 0, "true", "", stores,
	    "Intel PEBS: sample stores (mem-stores) besides loads."),
	KEY("lower_only", BOOL, 0, 0, "true", "", lower_only,
	    "Queue only samples of pages not known to be on the top tier (the pipeline drops the others anyway)."),
	KEY_POW2("ring_pages", 1, 65536, "256", "pages", ring_pages,
		 "Data pages of each CPU's perf ring, a power of two; counts against perf_event_mlock_kb without CAP_IPC_LOCK."),
	KEY_POW2("queue_len", 2, 1 << 24, "65536", "samples", queue_len,
		 "Samples each reader thread queues for the loop, a power of two; a full queue drops (hwhint_dropped_events)."),
	KEY("readers", UINT, 1, 64, "1", "", readers,
	    "Reader threads draining the rings (rings dealt out round-robin)."),
	KEY("wakeup_ms", UINT, 1, 10000, "50", "ms", wakeup_ms,
	    "A reader drains its rings at least this often (and whenever one is a quarter full)."),
	KEY("adapt_ms", UINT, 10, 600000, "1000", "ms", adapt_ms,
	    "Control interval of the adaptive period."),
	KEY("new_hi", UINT, 0, 1 << 30, "64", "pages/s", new_hi,
	    "New lower-tier pages found per second at or above which the period halves."),
	KEY("new_lo", UINT, 0, 1 << 30, "4", "pages/s", new_lo,
	    "New lower-tier pages per second below which (with share_lo_pm) the period may double."),
	KEY("share_hi_pm", UINT, 0, 1000, "100", "per mille", share_hi_pm,
	    "Share of samples on the lower tier at or above which the period halves."),
	KEY("share_lo_pm", UINT, 0, 1000, "10", "per mille", share_lo_pm,
	    "Share of samples on the lower tier below which (with new_lo) the period may double."),
};

/* Powers of two (ring_pages, queue_len) are checked at open(). */
static const struct src_key_order hw_orders[] = {
	{ "period_min", "period", false },
	{ "period", "period_max", false },
	{ "new_lo", "new_hi", false },
	{ "share_lo_pm", "share_hi_pm", false },
};

const struct src_desc src_hwhint = {
	.name = "hwhint",
	.kind = PGHOT_SRC_HWHINT,
	.summary = "hardware-sampled accesses (AMD IBS, Intel PEBS) through perf_event_open",
	.ops = &hw_ops,
	.keys = hw_keys,
	.nr_keys = sizeof(hw_keys) / sizeof(hw_keys[0]),
	.orders = hw_orders,
	.nr_orders = sizeof(hw_orders) / sizeof(hw_orders[0]),
	.cfg_size = sizeof(struct hwhint_cfg),
	.counters = hw_counter_table,
	.nr_counters = sizeof(hw_counter_table) / sizeof(hw_counter_table[0]),
};
