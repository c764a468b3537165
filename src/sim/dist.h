/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Access distributions over n items (keys, pages, records):
 * - uniform over a hot part: the first hot_n items take hot_mass of the
 *   accesses, uniformly; the rest of the accesses are uniform over all n;
 * - zipfian with exponent theta (Gray et al., "Quickly generating
 *   billion-record synthetic databases", SIGMOD 1994, the generator YCSB
 *   uses), optionally scrambled by a hash so that popularity is not laid out
 *   in item order (YCSB's ScrambledZipfianGenerator);
 * - a hot part that moves: as uniform, but the hot window starts at
 *   (phase * shift * n) mod n, the phase advancing every phase_ns of
 *   virtual time.
 */
#ifndef PGHOT_SIM_DIST_H
#define PGHOT_SIM_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/rng.h"

enum sim_dist_kind {
	SIM_DIST_UNIFORM = 0,
	SIM_DIST_ZIPF,
	SIM_DIST_PHASE,
	SIM_DIST_MAX,
};

struct sim_dist {
	enum sim_dist_kind kind;
	uint64_t n;		/* items, >= 1 */
	uint64_t hot_n;		/* uniform, phase: items of the hot part */
	double hot_mass;	/* share of accesses into the hot part */
	uint64_t phase_ns;	/* phase: length of one phase */
	uint64_t shift_n;	/* phase: items the hot part moves per phase */
	bool scramble;		/* zipf: hash ranks to items */
	double theta, alpha, zetan, eta, half_pow_theta;
};

/**
 * sim_dist_init() - set up a distribution.
 * @d:        filled on success.
 * @kind:     enum sim_dist_kind.
 * @n:        items, 1..2^40.
 * @hot_frac: uniform, phase: size of the hot part as a share of n, (0, 1].
 * @hot_mass: uniform, phase: share of accesses into the hot part, [0, 1].
 * @theta:    zipf: exponent, (0, 1) (YCSB's default is 0.99).
 * @scramble: zipf: spread ranks over the items with a hash.
 * @phase_ns: phase: length of a phase, ns of virtual time, > 0.
 * @shift:    phase: distance the hot part moves per phase, share of n.
 *
 * The zipfian constant costs O(n) pow() calls, once.
 *
 * Return: 0, or -EINVAL for an argument out of range.
 */
int sim_dist_init(struct sim_dist *d, enum sim_dist_kind kind, uint64_t n,
		  double hot_frac, double hot_mass, double theta, bool scramble,
		  uint64_t phase_ns, double shift);

/** sim_dist_name() - "uniform", "zipf", "phase", or NULL. */
const char *sim_dist_name(enum sim_dist_kind kind);

/** sim_dist_zipf_rank() - a zipfian rank in [0, n), 0 the most popular. */
uint64_t sim_dist_zipf_rank(const struct sim_dist *d, struct sim_rng *r);

/* FNV-1a of the rank's 8 bytes, as YCSB scrambles (fnvhash64). */
static inline uint64_t sim_fnv64(uint64_t v)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < 8; i++) {
		h ^= v & 0xff;
		h *= 0x100000001b3ull;
		v >>= 8;
	}
	return h;
}

/**
 * sim_dist_next() - the next item, in [0, n).
 * @now_ns: virtual time (phase only).
 */
static inline uint64_t sim_dist_next(const struct sim_dist *d, struct sim_rng *r,
				     uint64_t now_ns)
{
	uint64_t start;

	switch (d->kind) {
	case SIM_DIST_ZIPF:
		start = sim_dist_zipf_rank(d, r);
		return d->scramble ? sim_fnv64(start) % d->n : start;
	case SIM_DIST_PHASE:
		start = (uint64_t)((unsigned __int128)(now_ns / d->phase_ns) *
				   d->shift_n % d->n);
		break;
	default:
		start = 0;
		break;
	}
	if (d->hot_mass >= 1.0 || sim_rng_unit(r) < d->hot_mass)
		return (start + sim_rng_below(r, d->hot_n)) % d->n;
	return sim_rng_below(r, d->n);
}

#endif
