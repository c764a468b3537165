/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulator's PRNG: xoshiro256** (Blackman and Vigna, 2018) seeded
 * through splitmix64, so that nearby seeds give unrelated streams. Every
 * stream is owned by one object (a thread, a policy, DAMON); nothing is
 * global, so a run is a pure function of its seed.
 */
#ifndef PGHOT_SIM_RNG_H
#define PGHOT_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

static inline uint64_t sim_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seed from (seed, stream): stream tells the owners of one run apart. */
static inline void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);

	for (int i = 0; i < 4; i++)
		r->s[i] = sim_splitmix64(&x);
}

static inline uint64_t sim_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = sim_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n), n >= 1 (Lemire's multiply-shift; the bias, below
 * n / 2^64, is far under anything the model resolves). */
static inline uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)sim_rng_next(r) * n) >> 64);
}

/* Uniform in [0, 1). */
static inline double sim_rng_unit(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
