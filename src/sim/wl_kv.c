// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Key-value GETs: redis-memtier (seed 000) and ycsb (seed 004).
 *
 * The dataset is one process: a value area (keys x slot_bytes, keys in load
 * order, as the allocator lays out a sequential load) and a metadata area
 * (keys x meta_bytes: hash bucket, entry, key and object). A GET of key k
 * reads k's metadata (dependent misses, one line in flight) and then
 * value_lines lines of its slot (value_mlp in flight), with cpu_ns of other
 * work (parsing, syscalls, the reply), spread over both in proportion to
 * their lines so that the hardware sampler sees them as a CPU would.
 *
 * Requests: a closed loop of `outstanding` requests in FIFO order over the
 * server threads (memtier's connections x pipeline depth); a request's
 * latency is the time from its issue (the completion of the one before it
 * on its connection) to its completion. One request in 64 is kept for the
 * percentiles (reservoir of 65536).
 *
 * First-touch placement (ycsb): a load phase writes every key once (value
 * and metadata, load_ns each) on server thread 0, allocating pages where the
 * kernel would; the measured phase starts when it ends.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"

#define LAT_KEEP 65536
#define LAT_EVERY 64

struct kv {
	const struct sim_kv_cfg *cfg;
	struct sim_dist dist;
	int proc;
	uint64_t keys;
	uint64_t value_off, meta_off;	/* byte offsets in the process */
	unsigned meta_lines;
	double ops_per_req;
	double inv_value_mlp;
	uint64_t total, issued, done;	/* requests (simulated) */
	uint64_t loaded;		/* keys written in the load phase */
	/* FIFO of issue times of the requests in flight */
	double *issue;
	uint64_t nq, head;
	float *lat_ms;
	uint64_t lat_seen;
	double lat_sum_ms;
	uint64_t lat_n;
};

static const struct sim_kv_cfg *kv_cfg(const struct sim *s)
{
	return s->sc->workload == SIM_WL_YCSB ? &s->sc->ycsb : &s->sc->redis;
}

/* Lines [off, off + len) of the process, as touches of at most one page. */
static void touch_bytes(struct sim *s, struct sim_thread *t, const struct sim_proc *p,
			uint64_t off, uint64_t lines, double ops, double inv_mlp, bool store)
{
	uint64_t line = off >> 6;

	while (lines) {
		unsigned in_page = SIM_LINES - (unsigned)(line % SIM_LINES);
		unsigned n = lines < in_page ? (unsigned)lines : in_page;

		sim_touch(s, t, sim_proc_page(p, line * 64), (unsigned)(line % SIM_LINES), n,
			  (unsigned)(ops * n / (double)lines + 0.5), inv_mlp, store);
		ops -= ops * n / (double)lines;
		lines -= n;
		line += n;
	}
}

static void kv_request(struct sim *s, struct sim_thread *t, struct kv *kv, uint64_t k,
		       bool load)
{
	const struct sim_kv_cfg *c = kv->cfg;
	const struct sim_proc *p = &s->proc[kv->proc];
	uint64_t vlines = load ? (c->slot_bytes + 63) / 64 : c->value_lines;
	double ops = load ? c->load_ns / s->ns_per_op : kv->ops_per_req;
	double all = (double)(kv->meta_lines + vlines);

	touch_bytes(s, t, p, kv->meta_off + k * c->meta_bytes, kv->meta_lines,
		    ops * kv->meta_lines / all, 1.0, load);
	touch_bytes(s, t, p, kv->value_off + k * c->slot_bytes, vlines,
		    ops * (double)vlines / all, kv->inv_value_mlp, load);
}

static void lat_add(struct kv *kv, struct sim_thread *t, double ms)
{
	uint64_t slot;

	kv->lat_sum_ms += ms;
	kv->lat_n++;
	if (kv->lat_n % LAT_EVERY)
		return;
	slot = kv->lat_seen++;
	if (slot >= LAT_KEEP) {			/* reservoir sampling */
		slot = sim_rng_below(&t->rng, kv->lat_seen);
		if (slot >= LAT_KEEP)
			return;
	}
	kv->lat_ms[slot] = (float)ms;
}

static void kv_run(struct sim *s, struct sim_thread *t, double until)
{
	struct kv *kv = s->wl_priv;

	if (s->loading) {
		if (t->id != s->proc[kv->proc].first_thread) {
			t->clock = until;	/* the other threads wait for the load */
			return;
		}
		while (t->clock < until && kv->loaded < kv->keys)
			kv_request(s, t, kv, kv->loaded++, true);
		if (kv->loaded == kv->keys) {
			const struct sim_proc *p = &s->proc[kv->proc];

			for (int i = 0; i < p->nr_threads; i++)
				s->thread[p->first_thread + i].clock = t->clock;
			s->clocks_moved = true;
			sim_measure_start(s, t->clock);
		}
		return;
	}
	while (t->clock < until) {
		double issued;

		if (kv->issued >= kv->total) {
			t->done = true;
			return;
		}
		kv->issued++;
		issued = kv->issue[kv->head];
		kv_request(s, t, kv, sim_dist_next(&kv->dist, &t->rng, (uint64_t)t->clock), false);
		lat_add(kv, t, (t->clock - fmax(issued, s->measure_start_ns)) * 1e-6);
		/* The connection sends its next request now. */
		kv->issue[kv->head] = t->clock;
		kv->head = (kv->head + 1) % kv->nq;
		kv->done++;
	}
}

/* The hot set: the value pages of the keys that take hot_mass of the GETs
 * (uniform, phase: the hot part as it starts), as the test bed counts it;
 * the metadata is the rest of the workload's memory. */
static void mark_hot(struct sim *s, const struct kv *kv)
{
	const struct sim_kv_cfg *c = kv->cfg;
	const struct sim_proc *p = &s->proc[kv->proc];
	double goal = c->hot_mass * kv->dist.zetan, sum = 0;
	uint64_t n = kv->dist.kind == SIM_DIST_ZIPF ? 0 : kv->dist.hot_n;

	if (kv->dist.kind == SIM_DIST_ZIPF)
		while (n < kv->keys && sum < goal)
			sum += pow((double)++n, -c->theta);
	for (uint64_t r = 0; r < n; r++) {
		uint64_t k = kv->dist.kind == SIM_DIST_ZIPF && c->scramble ? sim_fnv64(r) % kv->keys : r;
		uint64_t v = kv->value_off + k * c->slot_bytes;

		sim_mark_hot(s, sim_proc_page(p, v), ((v + c->slot_bytes - 1) >> SIM_PAGE_SHIFT) -
			     (v >> SIM_PAGE_SHIFT) + 1);
	}
}

static int kv_setup(struct sim *s)
{
	const struct sim_kv_cfg *c = kv_cfg(s);
	struct kv *kv = calloc(1, sizeof(*kv));
	uint64_t bytes, hot;
	int nid = (int)c->place_node, place = c->place, err;

	if (!kv)
		return -ENOMEM;
	s->wl_priv = kv;
	kv->cfg = c;
	kv->keys = (uint64_t)((double)c->keys * s->scale);
	if (kv->keys < 16)
		return sim_errf(s, -EINVAL, "%llu keys at scale %g: raise --scale or keys",
				(unsigned long long)kv->keys, s->scale);
	kv->meta_lines = (unsigned)((c->meta_bytes + 63) / 64);
	kv->ops_per_req = c->cpu_ns / s->ns_per_op;
	kv->inv_value_mlp = 1.0 / c->value_mlp;
	kv->value_off = 0;
	kv->meta_off = (kv->keys * c->slot_bytes + SIM_PAGE - 1) & ~(uint64_t)(SIM_PAGE - 1);
	bytes = kv->meta_off + kv->keys * c->meta_bytes;
	err = sim_dist_init(&kv->dist, c->dist, kv->keys, c->hot_frac, c->hot_mass, c->theta,
			    c->scramble, (uint64_t)(c->phase_s * 1e9), c->shift);
	if (err)
		return sim_errf(s, err, "bad access distribution parameters");
	hot = c->dist == SIM_DIST_ZIPF ? kv->keys : kv->dist.hot_n;
	kv->total = c->requests ? (uint64_t)((double)c->requests * s->scale) :
		    (uint64_t)(c->passes * (double)hot);
	kv->nq = (uint64_t)fmax(1, round((double)c->outstanding * s->scale));
	kv->issue = calloc(kv->nq, sizeof(*kv->issue));
	kv->lat_ms = calloc(LAT_KEEP, sizeof(*kv->lat_ms));
	if (!kv->issue || !kv->lat_ms)
		return -ENOMEM;
	kv->proc = sim_proc_add(s, (bytes + SIM_PAGE - 1) / SIM_PAGE, true);
	if (kv->proc < 0)
		return kv->proc;
	for (uint64_t i = 0; i < c->threads; i++)
		if (!sim_thread_add(s, kv->proc, (int)c->node))
			return sim_errf(s, -EINVAL, "too many threads");
	/* References: everything bound to one tier. */
	if (s->c->policy == SIM_POL_DRAM_ONLY) {
		place = SIM_PLACE_TOP;
		nid = s->node[c->node].present ? (int)c->node : s->top_nid;
	} else if (s->c->policy == SIM_POL_CXL_ONLY) {
		place = SIM_PLACE_LOWER;
		nid = s->node[nid].present && s->node[nid].lower ? nid : s->lower_nid;
	}
	s->loading = place == SIM_PLACE_FIRST_TOUCH;
	mark_hot(s, kv);
	return sim_place_pages(s, s->proc[kv->proc].base, s->proc[kv->proc].nr_pages, place,
			       nid, nid, 0);
}

static double kv_progress(const struct sim *s, double *ret_total)
{
	const struct kv *kv = s->wl_priv;

	*ret_total = (double)(kv->total + kv->keys);
	return (double)(kv->done + kv->loaded);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

static void kv_result(struct sim *s, struct sim_result *r)
{
	struct kv *kv = s->wl_priv;
	uint64_t n = kv->lat_seen < LAT_KEEP ? kv->lat_seen : LAT_KEEP;

	r->has_requests = true;
	r->work = (double)kv->done * s->w;
	r->lat_avg_ms = kv->lat_n ? kv->lat_sum_ms / (double)kv->lat_n : 0;
	if (!n)
		return;
	qsort(kv->lat_ms, n, sizeof(*kv->lat_ms), cmp_float);
	r->lat_p50_ms = kv->lat_ms[(size_t)(0.5 * (double)(n - 1))];
	r->lat_p99_ms = kv->lat_ms[(size_t)(0.99 * (double)(n - 1))];
	r->lat_p999_ms = kv->lat_ms[(size_t)(0.999 * (double)(n - 1))];
}

static void kv_free(struct sim *s)
{
	struct kv *kv = s->wl_priv;

	if (!kv)
		return;
	free(kv->issue);
	free(kv->lat_ms);
	free(kv);
	s->wl_priv = NULL;
}

const struct sim_workload_ops sim_wl_kv = {
	.name = "kv",
	.setup = kv_setup,
	.run = kv_run,
	.progress = kv_progress,
	.result = kv_result,
	.free = kv_free,
};
