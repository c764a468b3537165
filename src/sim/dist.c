// SPDX-License-Identifier: GPL-2.0-or-later
/* Access distributions; see dist.h. */
#include <errno.h>
#include <math.h>
#include <stddef.h>

#include "sim/dist.h"

static const char *const dist_names[SIM_DIST_MAX] = {
	[SIM_DIST_UNIFORM] = "uniform",
	[SIM_DIST_ZIPF] = "zipf",
	[SIM_DIST_PHASE] = "phase",
};

const char *sim_dist_name(enum sim_dist_kind kind)
{
	return (unsigned)kind < SIM_DIST_MAX ? dist_names[kind] : NULL;
}

static double zeta(uint64_t n, double theta)
{
	double sum = 0;

	for (uint64_t i = 1; i <= n; i++)
		sum += pow((double)i, -theta);
	return sum;
}

int sim_dist_init(struct sim_dist *d, enum sim_dist_kind kind, uint64_t n,
		  double hot_frac, double hot_mass, double theta, bool scramble,
		  uint64_t phase_ns, double shift)
{
	struct sim_dist x = { .kind = kind, .n = n, .scramble = scramble };

	if ((unsigned)kind >= SIM_DIST_MAX || n < 1 || n > (1ull << 40))
		return -EINVAL;
	if (kind == SIM_DIST_ZIPF) {
		if (!(theta > 0 && theta < 1))
			return -EINVAL;
		x.theta = theta;
		x.alpha = 1.0 / (1.0 - theta);
		x.zetan = zeta(n, theta);
		x.half_pow_theta = pow(0.5, theta);
		x.eta = n < 2 ? 0 : (1.0 - pow(2.0 / (double)n, 1.0 - theta)) /
			(1.0 - zeta(2, theta) / x.zetan);
	} else {
		if (!(hot_frac > 0 && hot_frac <= 1) || !(hot_mass >= 0 && hot_mass <= 1))
			return -EINVAL;
		x.hot_n = (uint64_t)(hot_frac * (double)n);
		if (x.hot_n < 1)
			x.hot_n = 1;
		x.hot_mass = hot_mass;
	}
	if (kind == SIM_DIST_PHASE) {
		if (!phase_ns || !(shift >= 0 && shift <= 1))
			return -EINVAL;
		x.phase_ns = phase_ns;
		x.shift_n = (uint64_t)(shift * (double)n);
	}
	*d = x;
	return 0;
}

uint64_t sim_dist_zipf_rank(const struct sim_dist *d, struct sim_rng *r)
{
	double u = sim_rng_unit(r), uz = u * d->zetan;
	uint64_t k;

	if (uz < 1.0)
		return 0;
	if (uz < 1.0 + d->half_pow_theta)
		return d->n > 1;
	k = (uint64_t)((double)d->n * pow(d->eta * u - d->eta + 1.0, d->alpha));
	return k < d->n ? k : d->n - 1;
}
