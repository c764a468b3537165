// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot bench kv: an in-process key-value store under a GET load.
 *
 * --keys values of --value-size bytes live in the tracked area, four to a page
 * with 1 KiB values, in key order (or in random slots with --scatter). A hash
 * index (open addressing, key hash -> slot) maps a key to its value; a GET
 * formats the key, hashes it, probes the index, checks the key stored at the
 * head of the value and copies the whole value out. Keys are drawn uniformly
 * from the first --hot-frac of the keyspace (the pghot series' Redis test: memtier over 50% of the
 * keys) or zipfian over all keys (the DAMON tiering series' YCSB test). The hot set is the pages
 * of the keys read (uniform) or of the most popular keys that take --hot-mass
 * of the GETs (zipf); the rest of the area is cold. The index is placed like
 * the area but is not tracked. Each page's weight (for the DRAM access share)
 * is the popularity of the keys on it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cmd/common/log.h"
#include "cmd/pghot/bench.h"

struct kv_slot {
	uint64_t hash;
	uint64_t slot;			/* value slot + 1; 0 = empty */
};

struct kv {
	struct kv_slot *index;
	uint64_t index_mask;
	uint64_t *slot_of;		/* key -> value slot (only for setup) */
	uint64_t nkeys;
	uint64_t read_keys;		/* uniform: keys [0, read_keys) */
	/* zipf (Gray et al., as YCSB's ZipfianGenerator) */
	double theta, zetan, alpha, eta;
};

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static size_t key_fmt(char *buf, uint64_t key)
{
	return (size_t)snprintf(buf, 32, "key:%010llu", (unsigned long long)key);
}

static uint64_t zipf_next(const struct kv *kv, uint64_t *rng)
{
	double u = (double)(bench_rand(rng) >> 11) * 0x1.0p-53;
	double uz = u * kv->zetan;

	if (uz < 1.0)
		return 0;
	if (uz < 1.0 + pow(0.5, kv->theta))
		return 1;
	return (uint64_t)((double)kv->nkeys * pow(kv->eta * u - kv->eta + 1.0, kv->alpha)) % kv->nkeys;
}

/*
 * Each page's share of the GETs: the sum of the popularity of the keys on
 * it. Zipf: key k (rank k + 1) has 1 / (k + 1)^theta / zeta(n, theta), the
 * distribution zipf_next() draws from (YCSB's generator is exact for the
 * first two ranks and approximates the rest); uniform: 1 for each key read.
 */
static void kv_weigh(struct bench_run *run, const struct kv *kv)
{
	const struct bench_opts *o = run->o;

	for (uint64_t k = 0; k < kv->nkeys; k++) {
		double w = o->zipf ? 1.0 / pow((double)(k + 1), kv->theta) / kv->zetan :
				     k < kv->read_keys ? 1.0 : 0.0;

		run->weight[kv->slot_of[k] * o->value_bytes / BENCH_PAGE] += w;
	}
}

static int kv_setup(struct bench_run *run)
{
	const struct bench_opts *o = run->o;
	size_t per_page = BENCH_PAGE / o->value_bytes;
	uint64_t n = o->keys, hot_keys;
	struct kv *kv;
	char key[32];

	kv = calloc(1, sizeof(*kv));
	if (!kv) {
		log_err("out of memory");
		return -1;
	}
	kv->nkeys = n;
	if (bench_area_alloc(run, (size_t)((n + per_page - 1) / per_page) * BENCH_PAGE))
		return -1;
	kv->index_mask = 1;
	while (kv->index_mask < 2 * n)
		kv->index_mask <<= 1;
	kv->index = (struct kv_slot *)bench_alloc_on(kv->index_mask * sizeof(*kv->index), o->node, o->thp);
	if (!kv->index)
		return -1;
	kv->slot_of = malloc(n * sizeof(*kv->slot_of));
	if (!kv->slot_of) {
		log_err("out of memory for %llu keys", (unsigned long long)n);
		return -1;
	}
	memset(kv->index, 0, kv->index_mask * sizeof(*kv->index));
	kv->index_mask--;

	for (uint64_t k = 0; k < n; k++)
		kv->slot_of[k] = k;
	if (o->scatter) {
		uint64_t rng = o->seed ^ 0x5ca7;

		for (uint64_t k = n - 1; k > 0; k--) {
			uint64_t j = bench_rand(&rng) % (k + 1), tmp = kv->slot_of[k];

			kv->slot_of[k] = kv->slot_of[j];
			kv->slot_of[j] = tmp;
		}
	}
	for (uint64_t k = 0; k < n; k++) {
		size_t len = key_fmt(key, k);
		uint64_t h = fnv1a(key, len), i = h & kv->index_mask;
		char *val = run->area + kv->slot_of[k] * o->value_bytes;

		while (kv->index[i].slot)
			i = (i + 1) & kv->index_mask;
		kv->index[i].hash = h;
		kv->index[i].slot = kv->slot_of[k] + 1;
		memset(val, (int)(k & 0xff), o->value_bytes);
		memcpy(val, key, len + 1);
	}

	if (o->zipf) {
		double zeta2 = 0, mass = 0;

		kv->theta = o->theta;
		for (uint64_t i = 1; i <= n; i++)
			kv->zetan += 1.0 / pow((double)i, kv->theta);
		for (uint64_t i = 1; i <= 2; i++)
			zeta2 += 1.0 / pow((double)i, kv->theta);
		kv->alpha = 1.0 / (1.0 - kv->theta);
		kv->eta = (1.0 - pow(2.0 / (double)n, 1.0 - kv->theta)) / (1.0 - zeta2 / kv->zetan);
		/* rank r is key r: the hot set is the smallest top that takes hot_mass */
		for (hot_keys = 0; hot_keys < n && mass < o->hot_mass; hot_keys++)
			mass += 1.0 / pow((double)(hot_keys + 1), kv->theta) / kv->zetan;
	} else {
		/* hot_frac is in (0, 1] (checked at parsing): 1..n keys */
		double rk = (double)n * o->hot_frac;

		kv->read_keys = rk >= (double)n ? n : rk < 1 ? 1 : (uint64_t)rk;
		hot_keys = kv->read_keys;
	}
	for (uint64_t k = 0; k < hot_keys; k++)
		run->class[kv->slot_of[k] * o->value_bytes / BENCH_PAGE] = BENCH_HOT;
	kv_weigh(run, kv);
	log_info("%llu keys, %llu hot keys, index %zu KiB",
		(unsigned long long)n, (unsigned long long)hot_keys,
		(size_t)((kv->index_mask + 1) * sizeof(*kv->index)) >> 10);
	free(kv->slot_of);
	kv->slot_of = NULL;
	run->wl_priv = kv;
	return 0;
}

static void kv_work(struct bench_thread *t, uint64_t n)
{
	const struct bench_opts *o = t->run->o;
	const struct kv *kv = t->run->wl_priv;
	char key[32], out[BENCH_PAGE];
	uint64_t sink = 0;

	for (uint64_t i = 0; i < n; i++) {
		bool timed = i % (uint64_t)o->lat_every == 0;
		uint64_t t0 = timed ? bench_now_ns() : 0;
		uint64_t k = o->zipf ? zipf_next(kv, &t->rng) : bench_rand(&t->rng) % kv->read_keys;
		size_t len = key_fmt(key, k);
		uint64_t h = fnv1a(key, len), j = h & kv->index_mask;
		const char *val = NULL;

		for (; kv->index[j].slot; j = (j + 1) & kv->index_mask) {
			if (kv->index[j].hash != h)
				continue;
			val = t->run->area + (kv->index[j].slot - 1) * o->value_bytes;
			if (!memcmp(val, key, len + 1))
				break;
			val = NULL;
		}
		if (val) {
			memcpy(out, val, o->value_bytes);
			sink += (unsigned char)out[o->value_bytes - 1];
		}
		if (timed)
			bench_lat_add(t, bench_now_ns() - t0);
	}
	t->sink += sink;
}

static void kv_teardown(struct bench_run *run)
{
	struct kv *kv = run->wl_priv;

	if (!kv)
		return;
	munmap(kv->index, (kv->index_mask + 1) * sizeof(*kv->index));
	free(kv->slot_of);
	free(kv);
	run->wl_priv = NULL;
}

const struct bench_workload bench_kv = {
	.name = "kv",
	.setup = kv_setup,
	.work = kv_work,
	.teardown = kv_teardown,
};
